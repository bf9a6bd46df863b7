/* Ranks pair up (0-1, 2-3, ...) and bounce messages of growing size;
 * each even rank reports one-way time and bandwidth. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank, size, peer, s, r, reps;
    static const int sizes[] = {0, 8, 1024, 65536, 1 << 20};
    char *buf;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2 != 0) {
        if (rank == 0) fprintf(stderr, "pingpong needs an even number of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    peer = rank ^ 1;
    buf = malloc(1 << 20);
    memset(buf, rank, 1 << 20);
    for (s = 0; s < (int)(sizeof sizes / sizeof sizes[0]); ++s) {
        double t0, t;
        reps = sizes[s] >= 65536 ? 50 : 500;
        MPI_Barrier(MPI_COMM_WORLD);
        t0 = MPI_Wtime();
        for (r = 0; r < reps; ++r) {
            if (rank % 2 == 0) {
                MPI_Send(buf, sizes[s], MPI_BYTE, peer, s, MPI_COMM_WORLD);
                MPI_Recv(buf, sizes[s], MPI_BYTE, peer, s, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                MPI_Recv(buf, sizes[s], MPI_BYTE, peer, s, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, sizes[s], MPI_BYTE, peer, s, MPI_COMM_WORLD);
            }
        }
        t = (MPI_Wtime() - t0) / (2.0 * reps);
        if (rank % 2 == 0) {
            printf("pair %d-%d: %8d bytes  %9.2f us one-way  %9.2f MB/s\n", rank, peer, sizes[s], t * 1e6,
                   sizes[s] / t / 1e6);
        }
    }
    free(buf);
    MPI_Finalize();
    return 0;
}
