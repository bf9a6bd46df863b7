/* link_waiter: a job that strangers probe while it runs (strangers_test.py).
 *
 *   link_waiter GO_FILE [anything...]
 *
 * The ranks pass a value around the ring (opening their links) and rank 0
 * prints "ready". Rank 0 then keeps calling MPI_Iprobe(MPI_ANY_SOURCE), which
 * polls every method and so answers whoever connects to its listener, until
 * GO_FILE exists; the others wait for its "go". A second ring and a barrier
 * then prove that the links still carry the job's data, and every rank
 * prints "done RANK". Extra arguments are ignored (the test's marker).
 */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

static void ring(int rank, int size, int round)
{
    int out = rank * 1000 + round, in = -1;
    const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    MPI_Sendrecv(&out, 1, MPI_INT, next, round, &in, 1, MPI_INT, prev, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (in != prev * 1000 + round) {
        fprintf(stderr, "link_waiter: rank %d got %d from rank %d in round %d\n", rank, in, prev, round);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    int rank, size, flag, go = 1, i;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: link_waiter GO_FILE\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    ring(rank, size, 1);
    if (rank == 0) {
        printf("ready\n");
        fflush(stdout);
        while (access(argv[1], F_OK) != 0) {
            MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
            usleep(1000);
        }
        for (i = 1; i < size; ++i) MPI_Send(&go, 1, MPI_INT, i, 99, MPI_COMM_WORLD);
    } else {
        MPI_Recv(&go, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    ring(rank, size, 2);
    MPI_Barrier(MPI_COMM_WORLD);
    printf("done %d\n", rank);
    MPI_Finalize();
    return 0;
}
