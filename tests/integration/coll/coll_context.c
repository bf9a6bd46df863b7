/* Collectives never match user point-to-point traffic and user receives
 * never match collective traffic, even with the same tags and a wildcard
 * receive posted across the collectives. */
#include "coll_common.h"

#define NTAGS 14
static const int tags[NTAGS] = {0, 1, 2, 3, 100, 101, 102, 103, 104, 105, 106, 107, 108, 109};
#define BIG 200000 /* a rendezvous-sized user message */

static void some_collectives(int rank, int round)
{
    int i, v = rank + round, sum = 0, *all, *back;
    double d = rank == 0 ? 1.5 * round : 0.0;
    all = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    back = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    CK(MPI_Bcast(&d, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD));
    EXPECT(d == 1.5 * round, "bcast gave %g", d);
    CK(MPI_Allreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(sum == pt_size * (pt_size - 1) / 2 + pt_size * round, "allreduce gave %d", sum);
    CK(MPI_Barrier(MPI_COMM_WORLD));
    for (i = 0; i < pt_size; i++) all[i] = rank * 1000 + i;
    CK(MPI_Alltoall(all, 1, MPI_INT, back, 1, MPI_INT, MPI_COMM_WORLD));
    for (i = 0; i < pt_size; i++) EXPECT(back[i] == i * 1000 + rank, "alltoall from %d gave %d", i, back[i]);
    CK(MPI_Allgather(&v, 1, MPI_INT, back, 1, MPI_INT, MPI_COMM_WORLD));
    for (i = 0; i < pt_size; i++) EXPECT(back[i] == i + round, "allgather from %d gave %d", i, back[i]);
    CK(MPI_Scan(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(sum == rank * (rank + 1) / 2 + (rank + 1) * round, "scan gave %d", sum);
    free(all);
    free(back);
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "coll_context");
    int next = (rank + 1) % pt_size, prev = (rank - 1 + pt_size) % pt_size;
    int flag = 0, i, wild_buf[4] = {0, 0, 0, 0}, msg[4];
    MPI_Request wild, reqs[NTAGS + 1];
    MPI_Status st, sts[NTAGS + 1];
    unsigned char *big_out = (unsigned char *)pt_malloc(BIG);
    unsigned char *big_in = (unsigned char *)pt_malloc(BIG);
    int vals[NTAGS];

    pt_set_phase("wildcard receive across collectives");
    CK(MPI_Irecv(wild_buf, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &wild));
    some_collectives(rank, 1);
    CK(MPI_Test(&wild, &flag, &st));
    EXPECT(!flag, "a wildcard user receive matched collective traffic");
    CK(MPI_Barrier(MPI_COMM_WORLD));
    msg[0] = 42;
    msg[1] = rank;
    msg[2] = -7;
    msg[3] = 9;
    CK(MPI_Send(msg, 4, MPI_INT, next, 101, MPI_COMM_WORLD));
    CK(MPI_Wait(&wild, &st));
    EXPECT(st.MPI_SOURCE == prev && st.MPI_TAG == 101, "wildcard got source %d tag %d", st.MPI_SOURCE, st.MPI_TAG);
    EXPECT(wild_buf[0] == 42 && wild_buf[1] == prev && wild_buf[2] == -7 && wild_buf[3] == 9,
           "wildcard got the wrong payload");

    pt_set_phase("user messages waiting across collectives");
    for (i = 0; i < NTAGS; i++) {
        vals[i] = rank * 100 + tags[i];
        CK(MPI_Isend(&vals[i], 1, MPI_INT, next, tags[i], MPI_COMM_WORLD, &reqs[i]));
    }
    pt_fill(big_out, BIG, pt_seed(rank, next, 100, 8));
    CK(MPI_Isend(big_out, BIG, MPI_BYTE, next, 100, MPI_COMM_WORLD, &reqs[NTAGS]));
    some_collectives(rank, 2);
    for (i = NTAGS - 1; i >= 0; i--) {
        int got = -1;
        CK(MPI_Recv(&got, 1, MPI_INT, prev, tags[i], MPI_COMM_WORLD, &st));
        EXPECT(got == prev * 100 + tags[i], "user message tag %d carried %d", tags[i], got);
    }
    CK(MPI_Recv(big_in, BIG, MPI_BYTE, prev, 100, MPI_COMM_WORLD, &st));
    pt_verify(big_in, BIG, pt_seed(prev, rank, 100, 8), "large user message after collectives");
    CK(MPI_Waitall(NTAGS + 1, reqs, sts));
    some_collectives(rank, 3);
    free(big_out);
    free(big_in);
    return pt_finish();
}
