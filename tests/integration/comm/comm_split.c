/* Communicator constructors: dup, create, split (colours, MPI_UNDEFINED,
 * key order with ties broken by the old rank), compare, free; traffic on
 * each new communicator reaches the right processes and never matches
 * traffic of another communicator. */
#include "comm_common.h"

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "comm_split");
    int size = pt_size, i, n, r, cmp;
    int ident[64];
    MPI_Comm dup, half, rev, odd, none;
    MPI_Group world_group, g;

    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    pt_set_phase("dup");
    CK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp));
    EXPECT(cmp == MPI_CONGRUENT, "compare world/dup: %d", cmp);
    CK(MPI_Comm_compare(dup, dup, &cmp));
    EXPECT(cmp == MPI_IDENT, "compare dup/dup: %d", cmp);
    for (i = 0; i < size; ++i) ident[i] = i;
    cm_check_ranks(dup, ident, rank, "dup");
    {
        /* The error handler is inherited. */
        MPI_Errhandler eh;
        CK(MPI_Errhandler_get(dup, &eh));
        EXPECT(eh == MPI_ERRORS_RETURN, "dup did not inherit MPI_ERRORS_RETURN");
        CK(MPI_Errhandler_free(&eh));
    }

    pt_set_phase("isolation");
    if (size >= 2 && rank < 2) {
        /* Same peer, same tag, two communicators: each receive gets its own message
         * even though the messages arrive in the other order. */
        int a = 0, b = 0, other = 1 - rank;
        if (rank == 0) {
            int x = 111, y = 222;
            CK(MPI_Send(&x, 1, MPI_INT, other, 5, MPI_COMM_WORLD));
            CK(MPI_Send(&y, 1, MPI_INT, other, 5, dup));
        } else {
            CK(MPI_Recv(&b, 1, MPI_INT, other, 5, dup, MPI_STATUS_IGNORE));
            CK(MPI_Recv(&a, 1, MPI_INT, other, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            EXPECT(a == 111 && b == 222, "messages crossed communicators: world got %d, dup got %d", a, b);
        }
    }

    pt_set_phase("split halves");
    CK(MPI_Comm_split(MPI_COMM_WORLD, rank < size / 2, rank, &half));
    CK(MPI_Comm_size(half, &n));
    CK(MPI_Comm_rank(half, &r));
    if (rank < size / 2) {
        EXPECT(n == size / 2 && r == rank, "low half: size %d rank %d", n, r);
        for (i = 0; i < n; ++i) ident[i] = i;
    } else {
        EXPECT(n == size - size / 2 && r == rank - size / 2, "high half: size %d rank %d", n, r);
        for (i = 0; i < n; ++i) ident[i] = size / 2 + i;
    }
    cm_check_ranks(half, ident, rank, "half");

    pt_set_phase("split reversed keys");
    /* All keys equal except that higher world ranks get lower keys: reversed order. */
    CK(MPI_Comm_split(MPI_COMM_WORLD, 7, size - rank, &rev));
    CK(MPI_Comm_rank(rev, &r));
    EXPECT(r == size - 1 - rank, "reversed rank %d", r);
    for (i = 0; i < size; ++i) ident[i] = size - 1 - i;
    cm_check_ranks(rev, ident, rank, "reversed");
    CK(MPI_Comm_compare(MPI_COMM_WORLD, rev, &cmp));
    EXPECT(cmp == (size == 1 ? MPI_CONGRUENT : MPI_SIMILAR), "compare world/reversed: %d", cmp);

    pt_set_phase("split ties and undefined");
    /* Multiples of 3 stay out; the rest split by parity with one key for all: old order. */
    CK(MPI_Comm_split(MPI_COMM_WORLD, rank % 3 == 0 ? MPI_UNDEFINED : rank % 2, 0, &odd));
    if (rank % 3 == 0) {
        EXPECT(odd == MPI_COMM_NULL, "MPI_UNDEFINED colour gave a communicator");
    } else {
        for (i = 0, n = 0; i < size; ++i) {
            if (i % 3 != 0 && i % 2 == rank % 2) ident[n++] = i;
        }
        CK(MPI_Comm_size(odd, &r));
        EXPECT(r == n, "split by parity: size %d, want %d", r, n);
        cm_check_ranks(odd, ident, rank, "parity");
        CK(MPI_Comm_free(&odd));
        EXPECT(odd == MPI_COMM_NULL, "Comm_free did not set MPI_COMM_NULL");
    }

    pt_set_phase("create");
    CK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    {
        int ranks[64];
        for (i = 0, n = 0; i < size; i += 2) ranks[n++] = size - 1 - i;
        CK(MPI_Group_incl(world_group, n, ranks, &g));
        CK(MPI_Comm_create(MPI_COMM_WORLD, g, &none));
        if ((size - 1 - rank) % 2 == 0) {
            EXPECT(none != MPI_COMM_NULL, "member got MPI_COMM_NULL");
            cm_check_ranks(none, ranks, rank, "create");
            CK(MPI_Comm_free(&none));
        } else {
            EXPECT(none == MPI_COMM_NULL, "non-member got a communicator");
        }
        CK(MPI_Group_free(&g));
        CK(MPI_Comm_create(MPI_COMM_WORLD, MPI_GROUP_EMPTY, &none));
        EXPECT(none == MPI_COMM_NULL, "empty group gave a communicator");
    }

    pt_set_phase("create from a sub-communicator");
    {
        /* The group must be a subset of the communicator's: world is not a subset of half. */
        if (size >= 2) {
            MPI_Comm bad = MPI_COMM_NULL;
            EXPECT_CLASS(MPI_Comm_create(half, world_group, &bad), MPI_ERR_GROUP, "create with a foreign group");
        }
    }

    pt_set_phase("negative colours");
    {
        /* MPI-1.3 5.4.2 asks for a non-negative colour or MPI_UNDEFINED, but MPICH
         * accepts every colour but MPI_UNDEFINED, and MPICH-G2's topology example
         * passes -1 for "the others": a negative colour is a colour like any other. */
        MPI_Comm neg = MPI_COMM_NULL;
        int nsize = 0;
        CK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 ? -1 : 3, rank, &neg));
        CK(MPI_Comm_size(neg, &nsize));
        EXPECT(nsize == (rank % 2 == 0 ? (size + 1) / 2 : size / 2), "a negative colour groups its ranks");
        CK(MPI_Comm_free(&neg));
    }

    pt_set_phase("errors");
    EXPECT_CLASS(MPI_Comm_dup(MPI_COMM_NULL, &none), MPI_ERR_COMM, "dup of MPI_COMM_NULL");
    {
        MPI_Comm w = MPI_COMM_WORLD;
        EXPECT_CLASS(MPI_Comm_free(&w), MPI_ERR_COMM, "free of MPI_COMM_WORLD");
    }
    {
        MPI_Comm freed = dup;
        int x = 0;
        CK(MPI_Comm_free(&dup));
        EXPECT_CLASS(MPI_Send(&x, 1, MPI_INT, 0, 0, freed), MPI_ERR_COMM, "send on a freed communicator");
    }
    CK(MPI_Comm_test_inter(half, &i));
    EXPECT(i == 0, "test_inter on an intracommunicator: %d", i);
    /* MPI-1.3 5.6.1: only for intercommunicators (MPICH 4.0 answers anyway) */
    if (PT_STRICT) EXPECT_CLASS(MPI_Comm_remote_size(half, &i), MPI_ERR_COMM, "remote_size of an intracommunicator");

    CK(MPI_Group_free(&world_group));
    CK(MPI_Comm_free(&half));
    CK(MPI_Comm_free(&rev));
    return pt_finish();
}
