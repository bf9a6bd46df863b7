// mpi.h must be usable from C++ as is: declarations with C linkage, handles
// as integers, constants usable in constant expressions.
#include <mpi.h>

#include <cstdio>

static_assert(sizeof(MPI_Comm) == sizeof(int), "handles are integers");
constexpr MPI_Comm world = MPI_COMM_WORLD;

int main(int argc, char** argv) {
    MPI_Init(&argc, &argv);
    int rank = -1;
    int size = 0;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    int token = rank;
    MPI_Status st;
    MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 0, (rank + size - 1) % size, 0, world, &st);
    const bool ok = token == (rank + size - 1) % size && st.MPI_SOURCE == (rank + size - 1) % size;
    MPI_Finalize();
    if (!ok) {
        std::fprintf(stderr, "rank %d: token %d from %d\n", rank, token, st.MPI_SOURCE);
        return 1;
    }
    return 0;
}
