/* poll_select: selective polling, seen from outside the library.
 *
 * Runs with 3 ranks (check_polls.py starts it): ranks 0 and 2 share memory,
 * rank 1 excludes it and is reached over TCP only. Ranks 0 and 2 ping-pong with
 * receives that name each other. With the argument "pending", rank 0 keeps a
 * receive from rank 1 posted during the ping-pong, which rank 1 satisfies
 * afterwards. With "anysource", rank 2 receives with MPI_ANY_SOURCE; with
 * "anysource-comm" it does so on an intercommunicator between ranks 0 and 2
 * (the ping-pong runs on it), which no TCP peer belongs to: made by
 * MPI_Intercomm_create over MPI_COMM_SELF, so that rank 1 takes no part.
 * check_polls.py reads the poll counters every rank prints at MPI_Finalize
 * (STRATA_POLL_STATS=1) and decides.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define ROUNDS 2000

int main(int argc, char **argv)
{
    int rank, size, i, v = 0, w = -1, go = 1;
    const char *mode = argc > 1 ? argv[1] : "none";
    const int pending = strcmp(mode, "pending") == 0;
    const int in_comm = strcmp(mode, "anysource-comm") == 0;
    const int anysource = in_comm || strcmp(mode, "anysource") == 0;
    MPI_Request rq = MPI_REQUEST_NULL;
    MPI_Status st;
    MPI_Comm comm = MPI_COMM_WORLD, pair = MPI_COMM_NULL;
    int zero = 0, two = 2; /* ranks 0 and 2 in comm */

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 3) {
        if (rank == 0) fprintf(stderr, "poll_select: needs 3 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (in_comm && rank != 1) {
        /* Each side is rank 0 of the other's remote group. */
        MPI_Intercomm_create(MPI_COMM_SELF, 0, MPI_COMM_WORLD, 2 - rank, 5, &pair);
        comm = pair;
        two = 0;
    }
    if (rank == 0 && pending) MPI_Irecv(&w, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &rq);
    for (i = 0; i < ROUNDS; ++i) {
        if (rank == 0) {
            v = i;
            MPI_Send(&v, 1, MPI_INT, two, 1, comm);
            MPI_Recv(&v, 1, MPI_INT, two, 1, comm, &st);
        } else if (rank == 2) {
            MPI_Recv(&v, 1, MPI_INT, anysource ? MPI_ANY_SOURCE : zero, 1, comm, &st);
            MPI_Send(&v, 1, MPI_INT, zero, 1, comm);
        }
        if (rank != 1 && v != i) {
            fprintf(stderr, "poll_select: rank %d round %d got %d\n", rank, i, v);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    if (pending) {
        if (rank == 0) {
            MPI_Send(&go, 1, MPI_INT, 1, 6, MPI_COMM_WORLD);
            MPI_Wait(&rq, &st);
            if (w != 42) {
                fprintf(stderr, "poll_select: pending receive got %d\n", w);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        } else if (rank == 1) {
            w = 42;
            MPI_Recv(&go, 1, MPI_INT, 0, 6, MPI_COMM_WORLD, &st);
            MPI_Send(&w, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
        }
    }
    if (pair != MPI_COMM_NULL) MPI_Comm_free(&pair);
    MPI_Finalize();
    return 0;
}
