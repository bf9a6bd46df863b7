/* The grid topology attributes on derived communicators, the traffic counters
 * per level and method, and the processor names a job file gives. Run by
 * topology_test.py on the MPICH-G2 example's layout (12 ranks: 4 on machine
 * m1 at site A sharing memory, 4 + 4 on machines m2 and m3 at site B, TCP
 * only). Rank 0 prints the world's table and every rank its processor name;
 * the rest checks itself. */
#include "comm_common.h"

/* The rows of `comm`'s attributes must be the world's rows of its members,
 * with colours renumbered per level by first appearance in `comm`'s order. */
static void check_table(MPI_Comm comm, MPI_Group members, const char *what)
{
    int flag = 0, n = 0, r, level, i;
    int *depths = NULL, **colors = NULL, *wdepths = NULL, **wcolors = NULL;
    int seen[6][64], nseen[6] = {0};
    MPI_Group world_group;
    CK(MPI_Attr_get(comm, MPICHX_TOPOLOGY_DEPTHS, &depths, &flag));
    EXPECT(flag, "%s: no depths attribute", what);
    CK(MPI_Attr_get(comm, MPIX_TOPOLOGY_COLORS, &colors, &flag));
    EXPECT(flag, "%s: no colours attribute", what);
    CK(MPI_Attr_get(MPI_COMM_WORLD, MPICHX_TOPOLOGY_DEPTHS, &wdepths, &flag));
    CK(MPI_Attr_get(MPI_COMM_WORLD, MPICHX_TOPOLOGY_COLORS, &wcolors, &flag));
    CK(MPI_Comm_group(MPI_COMM_WORLD, &world_group));
    CK(MPI_Group_size(members, &n));
    for (r = 0; r < n; ++r) {
        int w = 0;
        CK(MPI_Group_translate_ranks(members, 1, &r, world_group, &w));
        EXPECT(depths[r] == wdepths[w], "%s: rank %d (world %d) has depth %d, the world says %d", what, r, w,
               depths[r], wdepths[w]);
        for (level = 0; level < depths[r]; ++level) {
            int want = -1;
            for (i = 0; i < nseen[level]; ++i)
                if (seen[level][i] == wcolors[w][level]) want = i;
            if (want < 0) {
                want = nseen[level];
                seen[level][nseen[level]++] = wcolors[w][level];
            }
            EXPECT(colors[r][level] == want, "%s: rank %d level %d has colour %d, want %d", what, r, level,
                   colors[r][level], want);
        }
    }
    CK(MPI_Group_free(&world_group));
}

static void check_comm(MPI_Comm comm, const char *what)
{
    MPI_Group g;
    CK(MPI_Comm_group(comm, &g));
    check_table(comm, g, what);
    CK(MPI_Group_free(&g));
}

/* Sends one message of `bytes` from world rank `from` to `to` and checks that
 * the sender counted exactly it, at `level` and on `method`. */
static void check_traffic(int from, int to, int bytes, int level, const char *method)
{
    static char buf[2 << 16];
    int me = 0;
    CK(MPI_Comm_rank(MPI_COMM_WORLD, &me));
    if (me == from) {
        long long m0, b0, m1, b1, mm0, mb0, mm1, mb1;
        CK(MPIX_Traffic_level(level, &m0, &b0));
        CK(MPIX_Traffic_method(method, &mm0, &mb0));
        MPI_Request req;
        CK(MPI_Isend(buf, bytes, MPI_BYTE, to, 5, MPI_COMM_WORLD, &req));
        if (to == me) CK(MPI_Recv(buf + bytes, bytes, MPI_BYTE, me, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CK(MPI_Wait(&req, MPI_STATUS_IGNORE));
        CK(MPIX_Traffic_level(level, &m1, &b1));
        CK(MPIX_Traffic_method(method, &mm1, &mb1));
        EXPECT(m1 - m0 == 1 && b1 - b0 == bytes, "%d -> %d: level %d counted %lld messages, %lld bytes", from, to,
               level, m1 - m0, b1 - b0);
        EXPECT(mm1 - mm0 == 1 && mb1 - mb0 == bytes, "%d -> %d: %s counted %lld messages, %lld bytes", from, to,
               method, mm1 - mm0, mb1 - mb0);
    } else if (me == to) {
        CK(MPI_Recv(buf, bytes, MPI_BYTE, from, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "topology_attrs");
    int size = pt_size, flag = 0, len = 0, r, level;
    int *depths = NULL, **colors = NULL;
    long long m, b;
    char name[MPI_MAX_PROCESSOR_NAME];
    MPI_Comm half, dup, inter;
    pt_require_size(12);
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    pt_set_phase("world");
    CK(MPI_Attr_get(MPI_COMM_WORLD, MPICHX_TOPOLOGY_DEPTHS, &depths, &flag));
    CK(MPI_Attr_get(MPI_COMM_WORLD, MPICHX_TOPOLOGY_COLORS, &colors, &flag));
    if (rank == 0) {
        for (r = 0; r < size; ++r) {
            printf("world rank %d: depth %d colours", r, depths[r]);
            for (level = 0; level < depths[r]; ++level) printf(" %d", colors[r][level]);
            printf("\n");
        }
        fflush(stdout);
    }
    check_comm(MPI_COMM_WORLD, "MPI_COMM_WORLD");
    check_comm(MPI_COMM_SELF, "MPI_COMM_SELF");
    CK(MPI_Get_processor_name(name, &len));
    EXPECT(len == (int)strlen(name), "MPI_Get_processor_name: length %d for '%s'", len, name);
    printf("rank %d: processor %s\n", rank, name);
    fflush(stdout);

    pt_set_phase("split, dup and an intercommunicator");
    /* Odd and even ranks: each half spans both sites. */
    CK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, size - rank, &half));
    check_comm(half, "a split of MPI_COMM_WORLD");
    CK(MPI_Comm_dup(half, &dup));
    check_comm(dup, "a dup of the split");
    /* Each half's leader is its highest world rank (keys reverse the order). */
    CK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 == 0 ? size - 1 : size - 2, 9, &inter));
    {
        MPI_Group local;
        CK(MPI_Comm_group(inter, &local));
        check_table(inter, local, "an intercommunicator's local side");
        CK(MPI_Group_free(&local));
    }
    CK(MPI_Comm_free(&inter));
    CK(MPI_Comm_free(&dup));
    CK(MPI_Comm_free(&half));

    pt_set_phase("the attributes are read-only");
    EXPECT_CLASS(MPI_Attr_put(MPI_COMM_WORLD, MPICHX_TOPOLOGY_DEPTHS, NULL), MPI_ERR_ARG, "put on the depths key");
    EXPECT_CLASS(MPI_Attr_delete(MPI_COMM_WORLD, MPICHX_TOPOLOGY_COLORS), MPI_ERR_ARG, "delete of the colours key");

    pt_set_phase("traffic counters");
    check_traffic(0, 4, 100, 0, "tcp");   /* site A to site B: the wide area */
    check_traffic(4, 8, 200, 1, "tcp");   /* two machines of site B: the local area */
    check_traffic(4, 5, 300, 2, "tcp");   /* one machine over TCP: the system area */
    check_traffic(0, 1, 400, 3, "shm");   /* shared memory: the vendor level */
    check_traffic(5, 5, 500, 2, "self");  /* to itself: its deepest level */
    EXPECT_CLASS(MPIX_Traffic_level(MPIX_TOPOLOGY_MAX_LEVELS, &m, &b), MPI_ERR_ARG, "level past the last");
    EXPECT_CLASS(MPIX_Traffic_level(-1, &m, &b), MPI_ERR_ARG, "level -1");
    EXPECT_CLASS(MPIX_Traffic_method("carrier-pigeon", &m, &b), MPI_ERR_ARG, "an unknown method");
    return pt_finish();
}
