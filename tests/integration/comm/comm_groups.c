/* Groups: every MPI-1 group function, with results computed independently,
 * and the error classes of bad arguments. */
#include "comm_common.h"

static int group_size(MPI_Group g)
{
    int n = -1;
    CK(MPI_Group_size(g, &n));
    return n;
}

/* World ranks of a group's members, through translate_ranks to the world group. */
static void members(MPI_Group g, MPI_Group world, int *out)
{
    int n = group_size(g), i;
    int *in = pt_malloc(sizeof(int) * (size_t)(n + 1));
    for (i = 0; i < n; ++i) in[i] = i;
    CK(MPI_Group_translate_ranks(g, n, in, world, out));
    free(in);
}

static void expect_members(MPI_Group g, MPI_Group world, const int *want, int n, const char *what)
{
    int got[64], i;
    EXPECT(group_size(g) == n, "%s: size %d, want %d", what, group_size(g), n);
    members(g, world, got);
    for (i = 0; i < n; ++i) EXPECT(got[i] == want[i], "%s: member %d is %d, want %d", what, i, got[i], want[i]);
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "comm_groups");
    int size = pt_size, i, n, r, cmp;
    int want[64], ranks[64];
    MPI_Group world, evens, odds, g, h, u;

    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    pt_set_phase("world group");
    CK(MPI_Comm_group(MPI_COMM_WORLD, &world));
    EXPECT(group_size(world) == size, "world group size");
    CK(MPI_Group_rank(world, &r));
    EXPECT(r == rank, "world group rank %d", r);

    pt_set_phase("incl/excl");
    for (i = 0, n = 0; i < size; i += 2) ranks[n++] = i;
    CK(MPI_Group_incl(world, n, ranks, &evens));
    expect_members(evens, world, ranks, n, "evens");
    CK(MPI_Group_rank(evens, &r));
    EXPECT(r == (rank % 2 == 0 ? rank / 2 : MPI_UNDEFINED), "rank in evens: %d", r);
    CK(MPI_Group_excl(world, n, ranks, &odds));
    for (i = 1, n = 0; i < size; i += 2) want[n++] = i;
    expect_members(odds, world, want, n, "odds");
    /* incl keeps the given order */
    for (i = 0; i < size; ++i) ranks[i] = size - 1 - i;
    CK(MPI_Group_incl(world, size, ranks, &g));
    expect_members(g, world, ranks, size, "reversed");
    CK(MPI_Group_compare(world, g, &cmp));
    EXPECT(cmp == (size == 1 ? MPI_IDENT : MPI_SIMILAR), "compare world/reversed: %d", cmp);
    CK(MPI_Group_compare(world, world, &cmp));
    EXPECT(cmp == MPI_IDENT, "compare world/world: %d", cmp);

    pt_set_phase("set operations");
    CK(MPI_Group_union(odds, evens, &u));
    for (i = 1, n = 0; i < size; i += 2) want[n++] = i;
    for (i = 0; i < size; i += 2) want[n++] = i;
    expect_members(u, world, want, n, "odds U evens");
    CK(MPI_Group_compare(u, world, &cmp));
    EXPECT(cmp == (size <= 1 ? MPI_IDENT : MPI_SIMILAR), "compare union/world: %d", cmp);
    CK(MPI_Group_free(&u));
    CK(MPI_Group_intersection(world, evens, &h));
    for (i = 0, n = 0; i < size; i += 2) want[n++] = i;
    expect_members(h, world, want, n, "world & evens");
    CK(MPI_Group_free(&h));
    CK(MPI_Group_difference(world, evens, &h));
    for (i = 1, n = 0; i < size; i += 2) want[n++] = i;
    expect_members(h, world, want, n, "world - evens");
    CK(MPI_Group_free(&h));
    CK(MPI_Group_intersection(evens, odds, &h));
    EXPECT(group_size(h) == 0, "evens & odds is not empty");
    CK(MPI_Group_compare(h, MPI_GROUP_EMPTY, &cmp));
    EXPECT(cmp == MPI_IDENT, "empty intersection vs MPI_GROUP_EMPTY: %d", cmp);
    CK(MPI_Group_free(&h));
    CK(MPI_Group_rank(MPI_GROUP_EMPTY, &r));
    EXPECT(r == MPI_UNDEFINED, "rank in MPI_GROUP_EMPTY: %d", r);

    pt_set_phase("ranges");
    {
        int range[2][3];
        /* every third rank counted down from the top, then rank 0 if not already in */
        range[0][0] = size - 1; range[0][1] = 0; range[0][2] = -3;
        CK(MPI_Group_range_incl(world, 1, range, &h));
        for (i = size - 1, n = 0; i >= 0; i -= 3) want[n++] = i;
        expect_members(h, world, want, n, "range_incl down by 3");
        CK(MPI_Group_free(&h));
        range[0][0] = 0; range[0][1] = size - 1; range[0][2] = 2;
        CK(MPI_Group_range_excl(world, 1, range, &h));
        for (i = 1, n = 0; i < size; i += 2) want[n++] = i;
        expect_members(h, world, want, n, "range_excl evens");
        CK(MPI_Group_compare(h, odds, &cmp));
        EXPECT(cmp == MPI_IDENT, "range_excl evens vs odds: %d", cmp);
        CK(MPI_Group_free(&h));
        if (size >= 4) {
            range[0][0] = 0; range[0][1] = 1; range[0][2] = 1;
            range[1][0] = 3; range[1][1] = size - 1; range[1][2] = 1;
            CK(MPI_Group_range_incl(world, 2, range, &h));
            for (i = 0, n = 0; i < size; ++i) if (i != 2) want[n++] = i;
            expect_members(h, world, want, n, "two ranges");
            CK(MPI_Group_free(&h));
            /* overlapping ranges name a rank twice */
            range[1][0] = 1; range[1][1] = 2; range[1][2] = 1;
            EXPECT_FAIL_CLASS(MPI_Group_range_incl(world, 2, range, &h), MPI_ERR_RANK, "overlapping ranges");
        }
        range[0][0] = 0; range[0][1] = size; range[0][2] = 1;
        EXPECT_FAIL_CLASS(MPI_Group_range_incl(world, 1, range, &h), MPI_ERR_RANK, "range beyond the group");
        range[0][0] = 0; range[0][1] = 0; range[0][2] = 0;
        EXPECT_CLASS(MPI_Group_range_incl(world, 1, range, &h), MPI_ERR_ARG, "stride 0");
    }

    pt_set_phase("translate");
    {
        int in[3] = {0, MPI_PROC_NULL, size - 1}, out[3];
        CK(MPI_Group_translate_ranks(world, 3, in, evens, out));
        EXPECT(out[0] == 0 && out[1] == MPI_PROC_NULL, "translate 0 / PROC_NULL: %d %d", out[0], out[1]);
        EXPECT(out[2] == ((size - 1) % 2 == 0 ? (size - 1) / 2 : MPI_UNDEFINED), "translate last: %d", out[2]);
    }

    pt_set_phase("errors");
    ranks[0] = 0; ranks[1] = 0;
    /* MPI-1.3 5.3.2: the ranks must be distinct (MPICH 4.0 does not check) */
    if (PT_STRICT) EXPECT_CLASS(MPI_Group_incl(world, 2, ranks, &h), MPI_ERR_RANK, "incl with a repeated rank");
    ranks[0] = size;
    EXPECT_CLASS(MPI_Group_incl(world, 1, ranks, &h), MPI_ERR_RANK, "incl beyond the group");
    EXPECT_CLASS(MPI_Group_excl(world, 1, ranks, &h), MPI_ERR_RANK, "excl beyond the group");
    EXPECT_CLASS(MPI_Group_incl(world, -1, ranks, &h), MPI_ERR_ARG, "incl with n < 0");
    EXPECT_CLASS(MPI_Group_size(MPI_GROUP_NULL, &n), MPI_ERR_GROUP, "size of MPI_GROUP_NULL");
    ranks[0] = size + 4;
    {
        int out = 0;
        EXPECT_CLASS(MPI_Group_translate_ranks(world, 1, ranks, evens, &out), MPI_ERR_RANK, "translate bad rank");
    }
    EXPECT_CLASS(MPI_Comm_group(MPI_COMM_NULL, &h), MPI_ERR_COMM, "group of MPI_COMM_NULL");
    CK(MPI_Group_free(&g));
    g = evens;
    CK(MPI_Group_free(&evens));
    EXPECT(evens == MPI_GROUP_NULL, "Group_free did not set MPI_GROUP_NULL");
    /* using a freed handle is erroneous; Strata detects it (MPICH 4.0 does not) */
    if (PT_STRICT) EXPECT_CLASS(MPI_Group_size(g, &n), MPI_ERR_GROUP, "size of a freed group");
    CK(MPI_Group_free(&odds));
    CK(MPI_Group_free(&world));
    return pt_finish();
}
