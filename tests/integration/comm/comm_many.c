/* Thousands of live communicators: 4,000 duplicates at once, each carrying
 * its own traffic, then freed; and create/free cycles that only work if
 * freed context ids come back. */
#include "comm_common.h"

#define LIVE 4000
#define CYCLES 3000

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "comm_many");
    int size = pt_size, i;
    MPI_Comm *comms = pt_malloc(sizeof(MPI_Comm) * LIVE);
    const int right = (rank + 1) % size, left = (rank - 1 + size) % size;

    pt_set_phase("create 4000");
    for (i = 0; i < LIVE; ++i) {
        /* Alternate constructors so both agreement paths run. */
        if (i % 2 == 0) {
            CK(MPI_Comm_dup(MPI_COMM_WORLD, &comms[i]));
        } else {
            CK(MPI_Comm_split(MPI_COMM_WORLD, 0, rank, &comms[i]));
        }
    }
    pt_set_phase("traffic on every communicator");
    /* Post all receives first, in reverse order, so a message that matched the
     * wrong communicator would show up with the wrong value. */
    {
        int *in = pt_malloc(sizeof(int) * LIVE);
        MPI_Request *reqs = pt_malloc(sizeof(MPI_Request) * LIVE);
        for (i = LIVE - 1; i >= 0; --i) CK(MPI_Irecv(&in[i], 1, MPI_INT, left, 0, comms[i], &reqs[i]));
        for (i = 0; i < LIVE; ++i) {
            int out = i * 10 + rank;
            CK(MPI_Send(&out, 1, MPI_INT, right, 0, comms[i]));
        }
        CK(MPI_Waitall(LIVE, reqs, MPI_STATUSES_IGNORE));
        for (i = 0; i < LIVE; ++i) EXPECT(in[i] == i * 10 + left, "communicator %d carried %d", i, in[i]);
        free(in);
        free(reqs);
    }
    pt_set_phase("free 4000");
    for (i = 0; i < LIVE; ++i) CK(MPI_Comm_free(&comms[i]));

    pt_set_phase("create/free cycles");
    for (i = 0; i < CYCLES; ++i) {
        MPI_Comm c;
        CK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
        CK(MPI_Comm_free(&c));
    }
    free(comms);
    return pt_finish();
}
