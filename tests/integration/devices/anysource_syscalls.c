/* anysource_syscalls: a ping-pong whose receives all name MPI_ANY_SOURCE, on
 * a job whose processes share one host (shared memory and self reach every
 * rank; TCP reaches none). check_syscalls.py runs it under strace and checks
 * that the rounds, between two getppid() calls that mark them, made no
 * polling system call: no method but shared memory and self can deliver
 * anything here.
 *
 * usage: anysource_syscalls ROUNDS (2 ranks)
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, i, v = 0;
    const int rounds = argc > 1 ? atoi(argv[1]) : 0;
    MPI_Status st;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0) fprintf(stderr, "anysource_syscalls: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    (void)getppid(); /* marks the start of the rounds for strace */
    for (i = 0; i < rounds; ++i) {
        if (rank == 0) {
            v = i;
            MPI_Send(&v, 1, MPI_INT, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
        } else {
            MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st);
            MPI_Send(&v, 1, MPI_INT, 0, 2, MPI_COMM_WORLD);
        }
        if (v != i || st.MPI_SOURCE != 1 - rank) {
            fprintf(stderr, "anysource_syscalls: rank %d round %d got %d from %d\n", rank, i, v, st.MPI_SOURCE);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    (void)getppid(); /* and their end */
    MPI_Finalize();
    return 0;
}
