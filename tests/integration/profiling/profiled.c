/* Runs a ring with MPI_Send/MPI_Recv; the interposer must have seen every call,
 * and the messages must still arrive (the PMPI_ path does the real work). */
#include <mpi.h>
#include <stdio.h>

#include "interposer.h"

int main(int argc, char **argv) {
    int rank, size, i, value = -1, sends, recvs;
    long long bytes;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (i = 0; i < 5; ++i) {
        if (rank == 0) {
            MPI_Send(&i, 1, MPI_INT, 1 % size, i, MPI_COMM_WORLD);
            MPI_Recv(&value, 1, MPI_INT, size - 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&value, 1, MPI_INT, rank - 1, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&value, 1, MPI_INT, (rank + 1) % size, i, MPI_COMM_WORLD);
        }
        if (value != i) {
            fprintf(stderr, "rank %d: round %d received %d\n", rank, i, value);
            return 1;
        }
    }
    interposer_counts(&sends, &recvs, &bytes);
    if (sends != 5 || recvs != 5 || bytes != 5 * (long long)sizeof(int)) {
        fprintf(stderr, "rank %d: interposer saw %d sends, %d receives, %lld bytes; expected 5, 5, %d\n", rank, sends,
                recvs, bytes, 5 * (int)sizeof(int));
        return 1;
    }
    MPI_Finalize();
    if (rank == 0) printf("profiling: ok\n");
    return 0;
}
