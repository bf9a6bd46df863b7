/* self_loop: the per-message cost of an MPI library without any wire.
 *
 * Each iteration is MPI_Isend to self, MPI_Recv of it and MPI_Wait: every
 * layer a message passes through (argument checks, requests, matching,
 * completion) and no device latency. Meant for instruction counts under
 * callgrind (see `instructions` in this folder), where timing would only say
 * how slow valgrind is; run natively it prints ns per iteration too.
 *
 * usage: self_loop [ITERATIONS] (default 1000000) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    const long n = argc > 1 ? atol(argv[1]) : 1000000;
    char buf[8] = {0};
    MPI_Request req;
    const double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        MPI_Isend(buf, 0, MPI_BYTE, rank, 1, MPI_COMM_WORLD, &req);
        MPI_Recv(buf, 0, MPI_BYTE, rank, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
    }
    const double t1 = MPI_Wtime();
    if (rank == 0)
        printf("self_loop: %ld iterations, %.1f ns each\n", n, n > 0 ? (t1 - t0) / (double)n * 1e9 : 0.0);
    MPI_Finalize();
    return 0;
}
