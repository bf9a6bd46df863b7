/* A real MPI program that fails on purpose, for the failure tests.
 *   failing MARKER MODE [RANK [ARG]]
 * Every rank initializes, prints "ready R", and waits in MPI_Recv for a
 * message that never comes, except rank RANK which, after a barrier, does MODE:
 *   abort CODE   MPI_Abort(MPI_COMM_WORLD, CODE)
 *   exit CODE    returns CODE from main without MPI_Finalize
 *   signal SIG   raises SIG
 *   fatal        MPI_Send to a rank that does not exist (default error handler)
 *   wait         nothing: everyone waits (for the Ctrl-C test)
 * MARKER only makes the processes recognisable in /proc. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
    int rank, size, x = 0, who = argc > 3 ? atoi(argv[3]) : 0, arg = argc > 4 ? atoi(argv[4]) : 0;
    const char *mode = argc > 2 ? argv[2] : "wait";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("ready %d\n", rank);
    fflush(stdout);
    if (rank == who) {
        if (strcmp(mode, "abort") == 0) MPI_Abort(MPI_COMM_WORLD, arg);
        if (strcmp(mode, "exit") == 0) return arg;
        if (strcmp(mode, "signal") == 0) raise(arg);
        if (strcmp(mode, "fatal") == 0) MPI_Send(&x, 1, MPI_INT, size + 5, 0, MPI_COMM_WORLD);
    }
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
