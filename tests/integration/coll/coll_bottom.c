/* MPI_BOTTOM in every MPI-1 collective: buffers given as MPI_BOTTOM with
 * datatypes of absolute addresses (see bottom_common.h) on the send side, the
 * receive side, and both, every process as root in turn, with MPI_IN_PLACE
 * where the call has it. Every byte of both areas is checked after each call:
 * the data where it belongs, the gaps between the pieces untouched.
 *
 * Reductions (a user-defined sum; MPI_SUM too on Strata) share one datatype
 * between sendbuf and recvbuf, so MPI_BOTTOM can be only one of them (both
 * would alias): the other is the buffer from which the same absolute
 * addresses reach the other area (bt_shifted).
 *
 * Last, a NULL buffer whose datatype's data starts at its origin (MPI_INT, a
 * contiguous type) is still MPI_ERR_BUFFER. */
#include "bottom_common.h"
#include "coll_common.h"

#define M 2 /* elements per process in the fixed-count calls */

enum { OP_BCAST = 1, OP_GATHER, OP_GATHERV, OP_SCATTER, OP_SCATTERV, OP_ALLGATHER, OP_ALLGATHERV, OP_ALLTOALL,
       OP_ALLTOALLV };

static int me, np;
static bt_area S, R;               /* this process's send and receive memory */
static bt_region *want_s, *want_r; /* what S and R must hold after a call */
static char what[200];

/* Kinds of the send and the receive side (equal signatures). */
static const int kind_pairs[][2] = {{BT_SPREAD, BT_SPREAD}, {BT_BLOCK, BT_BLOCK}, {BT_MIXED, BT_MIXED},
                                    {BT_SPREAD, BT_BLOCK},  {BT_BLOCK, BT_SPREAD}};
/* Which sides are MPI_BOTTOM: the send side, the receive side, both. */
static const int bottom_sides[][2] = {{1, 0}, {0, 1}, {1, 1}};

static void begin(void)
{
    bt_clear(S.mem);
    bt_clear(R.mem);
    bt_clear(want_s);
    bt_clear(want_r);
}

static void end(void) { bt_compare_areas(S.mem, want_s, R.mem, want_r, what); }

static void name(const char *op, int root, int sk, int rk, int sa, int ra, int in_place)
{
    snprintf(what, sizeof what, "%s root %d, send %s%s, receive %s%s%s", op, root, bt_kind_name[sk],
             sa ? " at MPI_BOTTOM" : "", bt_kind_name[rk], ra ? " at MPI_BOTTOM" : "",
             in_place ? ", MPI_IN_PLACE" : "");
    pt_set_phase(what);
}

static uint32_t seed(int src, int dst, int op) { return pt_seed(src, dst, op, 0); }

/* The varying counts and displacements (in elements): blocks with a free
 * element before each, so the gaps between blocks are checked too. */
static int vcount(int i) { return 1 + i % 3; }
static void vlayout(int *counts, int *displs)
{
    /* MPICH 4.0's MPI_Allgatherv on one process copies the block to the
     * buffer's start, whatever its displacement: no leading gap there. */
    int i, at = PT_STRICT ? 1 : 0;
    for (i = 0; i < np; i++) {
        counts[i] = vcount(i);
        displs[i] = at;
        at += counts[i] + 1;
    }
}

static void bcast(int root, int sk, int rk, int sa, int ra)
{
    const int n = 3;
    name("MPI_Bcast", root, sk, rk, sa, ra, 0);
    begin();
    if (me == root) {
        bt_fill(S.mem, sk, 0, n, seed(root, 0, OP_BCAST), 0);
        bt_fill(want_s, sk, 0, n, seed(root, 0, OP_BCAST), 0);
        CK(MPI_Bcast(bt_buf(&S, sa), n, bt_dt(&S, sk, sa), root, MPI_COMM_WORLD));
    } else {
        bt_fill(want_r, rk, 0, n, seed(root, 0, OP_BCAST), 0);
        CK(MPI_Bcast(bt_buf(&R, ra), n, bt_dt(&R, rk, ra), root, MPI_COMM_WORLD));
    }
    end();
}

static void gather(int root, int sk, int rk, int sa, int ra, int in_place)
{
    const int here = in_place && me == root;
    int i;
    name("MPI_Gather", root, sk, rk, sa, ra, in_place);
    begin();
    if (here) {
        /* The root's own block is already in place. */
        bt_fill(R.mem, rk, root * M, M, seed(me, root, OP_GATHER), 0);
    } else {
        bt_fill(S.mem, sk, 0, M, seed(me, root, OP_GATHER), 0);
        bt_fill(want_s, sk, 0, M, seed(me, root, OP_GATHER), 0);
    }
    if (me == root) {
        for (i = 0; i < np; i++) bt_fill(want_r, rk, i * M, M, seed(i, root, OP_GATHER), 0);
    }
    CK(MPI_Gather(here ? MPI_IN_PLACE : bt_buf(&S, sa), M, bt_dt(&S, sk, sa), bt_buf(&R, ra), M, bt_dt(&R, rk, ra),
                  root, MPI_COMM_WORLD));
    end();
}

static void gatherv(int root, int sk, int rk, int sa, int ra, int in_place)
{
    const int here = in_place && me == root;
    int i, counts[16], displs[16];
    vlayout(counts, displs);
    name("MPI_Gatherv", root, sk, rk, sa, ra, in_place);
    begin();
    if (here) {
        bt_fill(R.mem, rk, displs[root], counts[root], seed(me, root, OP_GATHERV), 0);
    } else {
        bt_fill(S.mem, sk, 0, counts[me], seed(me, root, OP_GATHERV), 0);
        bt_fill(want_s, sk, 0, counts[me], seed(me, root, OP_GATHERV), 0);
    }
    if (me == root) {
        for (i = 0; i < np; i++) bt_fill(want_r, rk, displs[i], counts[i], seed(i, root, OP_GATHERV), 0);
    }
    CK(MPI_Gatherv(here ? MPI_IN_PLACE : bt_buf(&S, sa), counts[me], bt_dt(&S, sk, sa), bt_buf(&R, ra), counts,
                   displs, bt_dt(&R, rk, ra), root, MPI_COMM_WORLD));
    end();
}

static void scatter(int root, int sk, int rk, int sa, int ra, int in_place)
{
    const int here = in_place && me == root;
    name("MPI_Scatter", root, sk, rk, sa, ra, in_place);
    begin();
    if (me == root) {
        /* Element i * M + q goes to process i. */
        bt_fill(S.mem, sk, 0, np * M, seed(root, 0, OP_SCATTER), 0);
        bt_fill(want_s, sk, 0, np * M, seed(root, 0, OP_SCATTER), 0);
    }
    if (!here) bt_fill(want_r, rk, 0, M, seed(root, 0, OP_SCATTER), me * M);
    CK(MPI_Scatter(bt_buf(&S, sa), M, bt_dt(&S, sk, sa), here ? MPI_IN_PLACE : bt_buf(&R, ra), M,
                   bt_dt(&R, rk, ra), root, MPI_COMM_WORLD));
    end();
}

static void scatterv(int root, int sk, int rk, int sa, int ra, int in_place)
{
    const int here = in_place && me == root;
    int i, counts[16], displs[16];
    vlayout(counts, displs);
    name("MPI_Scatterv", root, sk, rk, sa, ra, in_place);
    begin();
    if (me == root) {
        for (i = 0; i < np; i++) {
            bt_fill(S.mem, sk, displs[i], counts[i], seed(root, i, OP_SCATTERV), 0);
            bt_fill(want_s, sk, displs[i], counts[i], seed(root, i, OP_SCATTERV), 0);
        }
    }
    if (!here) bt_fill(want_r, rk, 0, counts[me], seed(root, me, OP_SCATTERV), 0);
    CK(MPI_Scatterv(bt_buf(&S, sa), counts, displs, bt_dt(&S, sk, sa), here ? MPI_IN_PLACE : bt_buf(&R, ra),
                    counts[me], bt_dt(&R, rk, ra), root, MPI_COMM_WORLD));
    end();
}

static void allgather(int sk, int rk, int sa, int ra, int in_place)
{
    int i;
    name("MPI_Allgather", -1, sk, rk, sa, ra, in_place);
    begin();
    if (in_place) {
        bt_fill(R.mem, rk, me * M, M, seed(me, 0, OP_ALLGATHER), 0);
    } else {
        bt_fill(S.mem, sk, 0, M, seed(me, 0, OP_ALLGATHER), 0);
        bt_fill(want_s, sk, 0, M, seed(me, 0, OP_ALLGATHER), 0);
    }
    for (i = 0; i < np; i++) bt_fill(want_r, rk, i * M, M, seed(i, 0, OP_ALLGATHER), 0);
    CK(MPI_Allgather(in_place ? MPI_IN_PLACE : bt_buf(&S, sa), M, bt_dt(&S, sk, sa), bt_buf(&R, ra), M,
                     bt_dt(&R, rk, ra), MPI_COMM_WORLD));
    end();
}

static void allgatherv(int sk, int rk, int sa, int ra, int in_place)
{
    int i, counts[16], displs[16];
    vlayout(counts, displs);
    name("MPI_Allgatherv", -1, sk, rk, sa, ra, in_place);
    begin();
    if (in_place) {
        bt_fill(R.mem, rk, displs[me], counts[me], seed(me, 0, OP_ALLGATHERV), 0);
    } else {
        bt_fill(S.mem, sk, 0, counts[me], seed(me, 0, OP_ALLGATHERV), 0);
        bt_fill(want_s, sk, 0, counts[me], seed(me, 0, OP_ALLGATHERV), 0);
    }
    for (i = 0; i < np; i++) bt_fill(want_r, rk, displs[i], counts[i], seed(i, 0, OP_ALLGATHERV), 0);
    CK(MPI_Allgatherv(in_place ? MPI_IN_PLACE : bt_buf(&S, sa), counts[me], bt_dt(&S, sk, sa), bt_buf(&R, ra),
                      counts, displs, bt_dt(&R, rk, ra), MPI_COMM_WORLD));
    end();
}

static void alltoall(int sk, int rk, int sa, int ra, int in_place)
{
    int i;
    name("MPI_Alltoall", -1, sk, rk, sa, ra, in_place);
    begin();
    for (i = 0; i < np; i++) {
        /* Block i goes to process i; in place, it leaves from the receive area. */
        if (in_place) {
            bt_fill(R.mem, rk, i * M, M, seed(me, i, OP_ALLTOALL), 0);
        } else {
            bt_fill(S.mem, sk, i * M, M, seed(me, i, OP_ALLTOALL), 0);
            bt_fill(want_s, sk, i * M, M, seed(me, i, OP_ALLTOALL), 0);
        }
        bt_fill(want_r, rk, i * M, M, seed(i, me, OP_ALLTOALL), 0);
    }
    CK(MPI_Alltoall(in_place ? MPI_IN_PLACE : bt_buf(&S, sa), M, bt_dt(&S, sk, sa), bt_buf(&R, ra), M,
                    bt_dt(&R, rk, ra), MPI_COMM_WORLD));
    end();
}

/* Elements from process i to process j; symmetric, as MPI_IN_PLACE needs. */
static int a2a_count(int i, int j) { return 1 + (i + j) % 3; }

static void alltoallv(int sk, int rk, int sa, int ra, int in_place)
{
    int i, at, scounts[16], sdispls[16], rcounts[16], rdispls[16];
    name("MPI_Alltoallv", -1, sk, rk, sa, ra, in_place);
    /* Send blocks in rank order, receive blocks in reverse, a free element before each. */
    for (i = 0, at = 1; i < np; i++) {
        scounts[i] = a2a_count(me, i);
        sdispls[i] = at;
        at += scounts[i] + 1;
    }
    for (i = np - 1, at = 1; i >= 0; i--) {
        rcounts[i] = a2a_count(i, me);
        rdispls[i] = at;
        at += rcounts[i] + 1;
    }
    begin();
    for (i = 0; i < np; i++) {
        if (in_place) {
            bt_fill(R.mem, rk, rdispls[i], rcounts[i], seed(me, i, OP_ALLTOALLV), 0);
        } else {
            bt_fill(S.mem, sk, sdispls[i], scounts[i], seed(me, i, OP_ALLTOALLV), 0);
            bt_fill(want_s, sk, sdispls[i], scounts[i], seed(me, i, OP_ALLTOALLV), 0);
        }
        bt_fill(want_r, rk, rdispls[i], rcounts[i], seed(i, me, OP_ALLTOALLV), 0);
    }
    CK(MPI_Alltoallv(in_place ? MPI_IN_PLACE : bt_buf(&S, sa), scounts, sdispls, bt_dt(&S, sk, sa), bt_buf(&R, ra),
                     rcounts, rdispls, bt_dt(&R, rk, ra), MPI_COMM_WORLD));
    end();
}

/* ------------------------------------------------------------------------ */
/* Reductions: a sum over the int kinds, by a user function everywhere and  */
/* by MPI_SUM on Strata.                                                     */

static MPI_Op red_op;         /* the operation of the reductions being run */
static const char *red_name;
static MPI_Aint piece_disp[2][2][4]; /* [S or R][kind][piece]: absolute address in element 0 */

static void piece_disps(void)
{
    int a, kind, j, basic;
    for (a = 0; a < 2; a++) {
        for (kind = 0; kind < 2; kind++) {
            for (j = 0; j < 4; j++) {
                CK(MPI_Get_address(bt_piece(a == 0 ? S.mem : R.mem, kind, 0, j, &basic), &piece_disp[a][kind][j]));
            }
        }
    }
}

/* A sum over the pieces of the int kinds. A user function sees its elements
 * as the datatype lays them out from the buffers it is given: with a datatype
 * of absolute addresses, piece j of element k is at buffer + (the piece's
 * address in element 0 of the area) + 16 k. */
static void user_sum(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    int a, kind, k, j;
    for (a = 0; a < 2; a++) {
        for (kind = 0; kind < 2; kind++) {
            if (*dt != (a == 0 ? S.abs[kind] : R.abs[kind])) continue;
            for (k = 0; k < *len; k++) {
                for (j = 0; j < 4; j++) {
                    const MPI_Aint at = piece_disp[a][kind][j] + 16 * (MPI_Aint)k;
                    const int *x = (const int *)(intptr_t)((intptr_t)in + at);
                    int *y = (int *)(intptr_t)((intptr_t)inout + at);
                    *y += *x;
                }
            }
            return;
        }
    }
    pt_fail("%s: the user function was called with a datatype the test did not make", what);
}

/* How a reduction's buffers are given. */
enum { SEND_BOTTOM, RECV_BOTTOM, IN_PLACE_BOTTOM };
static const char *const mode_name[] = {"sendbuf MPI_BOTTOM", "recvbuf MPI_BOTTOM",
                                        "MPI_IN_PLACE, recvbuf MPI_BOTTOM"};

/* Piece j of element g of process r's input. */
static int rvalue(int r, int g, int j) { return (r + 1) * 1000 + g * 10 + j; }

static void rput(bt_region *mem, int kind, int k, int r, int g)
{
    int j, v[BT_MAX_PIECES];
    for (j = 0; j < BT_MAX_PIECES; j++) v[j] = rvalue(r, g, j);
    bt_put(mem, kind, k, v);
}

/* Element g of the sum over processes first..last, into slot k. */
static void rsum(bt_region *mem, int kind, int k, int first, int last, int g)
{
    int j, r, v[BT_MAX_PIECES];
    for (j = 0; j < BT_MAX_PIECES; j++) {
        v[j] = 0;
        for (r = first; r <= last; r++) v[j] += rvalue(r, g, j);
    }
    bt_put(mem, kind, k, v);
}

/* The arguments of one reduction call on process `me`: where its input goes
 * (S, or R in place) and the buffers and datatype to pass. */
typedef struct {
    const void *sendbuf;
    void *recvbuf;
    MPI_Datatype type;
    int in_place;
} rargs;

static rargs rsetup(int kind, int mode, int n)
{
    rargs a;
    int g;
    a.in_place = mode == IN_PLACE_BOTTOM;
    if (mode == SEND_BOTTOM) {
        a.type = S.abs[kind];
        a.sendbuf = MPI_BOTTOM;
        a.recvbuf = bt_shifted(&R, &S);
    } else if (mode == RECV_BOTTOM) {
        a.type = R.abs[kind];
        a.sendbuf = bt_shifted(&S, &R);
        a.recvbuf = MPI_BOTTOM;
    } else {
        a.type = R.abs[kind];
        a.sendbuf = MPI_IN_PLACE;
        a.recvbuf = MPI_BOTTOM;
    }
    for (g = 0; g < n; g++) {
        if (a.in_place) {
            rput(R.mem, kind, g, me, g);
        } else {
            rput(S.mem, kind, g, me, g);
            rput(want_s, kind, g, me, g);
        }
    }
    return a;
}

static void rname(const char *op, int root, int variant, int mode)
{
    snprintf(what, sizeof what, "%s (%s) root %d, kinds %s, %s", op, red_name, root,
             variant ? "block/spread" : "spread/block", mode_name[mode]);
    pt_set_phase(what);
}

static void reduce(int root, int variant, int mode)
{
    const int n = 3, kind = (me + variant) % 2;
    rargs a;
    int g;
    rname("MPI_Reduce", root, variant, mode);
    begin();
    /* MPI_IN_PLACE is the root's alone; the others send from MPI_BOTTOM. */
    a = rsetup(kind, mode == IN_PLACE_BOTTOM && me != root ? SEND_BOTTOM : mode, n);
    if (me == root) {
        for (g = 0; g < n; g++) rsum(want_r, kind, g, 0, np - 1, g);
    }
    CK(MPI_Reduce(a.sendbuf, a.recvbuf, n, a.type, red_op, root, MPI_COMM_WORLD));
    end();
}

static void allreduce(int variant, int mode)
{
    const int n = 3, kind = (me + variant) % 2;
    rargs a;
    int g;
    rname("MPI_Allreduce", -1, variant, mode);
    begin();
    a = rsetup(kind, mode, n);
    for (g = 0; g < n; g++) rsum(want_r, kind, g, 0, np - 1, g);
    CK(MPI_Allreduce(a.sendbuf, a.recvbuf, n, a.type, red_op, MPI_COMM_WORLD));
    end();
}

static void scan(int variant, int mode)
{
    const int n = 3, kind = (me + variant) % 2;
    rargs a;
    int g;
    rname("MPI_Scan", -1, variant, mode);
    begin();
    a = rsetup(kind, mode, n);
    for (g = 0; g < n; g++) rsum(want_r, kind, g, 0, me, g);
    CK(MPI_Scan(a.sendbuf, a.recvbuf, n, a.type, red_op, MPI_COMM_WORLD));
    end();
}

static void reduce_scatter(int variant, int mode)
{
    const int kind = (me + variant) % 2;
    int counts[16], i, total = 0, first = 0, q;
    rargs a;
    rname("MPI_Reduce_scatter", -1, variant, mode);
    for (i = 0; i < np; i++) {
        counts[i] = 1 + i % 2;
        if (i < me) first += counts[i];
        total += counts[i];
    }
    begin();
    a = rsetup(kind, mode, total);
    for (q = 0; q < counts[me]; q++) rsum(want_r, kind, q, 0, np - 1, first + q);
    CK(MPI_Reduce_scatter(a.sendbuf, a.recvbuf, counts, a.type, red_op, MPI_COMM_WORLD));
    /* In place, MPI leaves the input elements after the result undefined. */
    if (a.in_place) bt_copy_pieces(want_r, R.mem, kind, counts[me], total - counts[me]);
    end();
}

/* ------------------------------------------------------------------------ */

static void errors(void)
{
    int a[4] = {1, 2, 3, 4}, b[4] = {0, 0, 0, 0}, counts[1] = {1}, displs[1] = {0};
    MPI_Datatype pair;
    pt_set_phase("NULL buffers are still MPI_ERR_BUFFER");
    CK(MPI_Type_contiguous(2, MPI_INT, &pair));
    CK(MPI_Type_commit(&pair));
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CK(MPI_Errhandler_set(MPI_COMM_SELF, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Bcast(NULL, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    /* A derived type whose data starts at its origin (true lb 0) is no
     * datatype of absolute addresses either. */
    EXPECT_CLASS(MPI_Bcast(NULL, 1, pair, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Allreduce(NULL, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Allreduce(a, NULL, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Alltoall(a, 1, pair, NULL, 1, pair, MPI_COMM_SELF), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Gather(a, 1, MPI_INT, NULL, 1, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Gatherv(a, 1, MPI_INT, NULL, counts, displs, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Scatter(NULL, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Scatterv(NULL, counts, displs, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Reduce(NULL, b, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_SELF), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Alltoall(a, 1, MPI_INT, NULL, 1, MPI_INT, MPI_COMM_SELF), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Scan(NULL, b, 1, MPI_INT, MPI_SUM, MPI_COMM_SELF), MPI_ERR_BUFFER);
    /* The same NULL with a type of absolute addresses is MPI_BOTTOM: fine. */
    bt_clear(S.mem);
    bt_fill(S.mem, BT_SPREAD, 0, 1, seed(me, 0, 99), 0);
    CK(MPI_Bcast(NULL, 1, S.abs[BT_SPREAD], 0, MPI_COMM_SELF));
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CK(MPI_Errhandler_set(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    CK(MPI_Type_free(&pair));
}

int main(int argc, char **argv)
{
    int p, s, root, ip, variant, mode, o;
    MPI_Op user_op;
    me = pt_init(&argc, &argv, "coll_bottom");
    np = pt_size;
    if (np > 16) pt_fail("at most 16 processes (the areas hold %d elements)", BT_SLOTS);
    bt_area_make(&S);
    bt_area_make(&R);
    bt_setup(&S);
    want_s = (bt_region *)pt_malloc(sizeof(bt_region));
    want_r = (bt_region *)pt_malloc(sizeof(bt_region));

    pt_set_phase("MPI_Barrier");
    CK(MPI_Barrier(MPI_COMM_WORLD));

    for (p = 0; p < (int)(sizeof kind_pairs / sizeof kind_pairs[0]); p++) {
        const int sk = kind_pairs[p][0], rk = kind_pairs[p][1];
        for (s = 0; s < (int)(sizeof bottom_sides / sizeof bottom_sides[0]); s++) {
            const int sa = bottom_sides[s][0], ra = bottom_sides[s][1];
            /* MPI_IN_PLACE leaves only the receive side: tried when that is MPI_BOTTOM. */
            for (ip = 0; ip <= ra; ip++) {
                for (root = 0; root < np; root++) {
                    if (!ip) bcast(root, sk, rk, sa, ra);
                    gather(root, sk, rk, sa, ra, ip);
                    gatherv(root, sk, rk, sa, ra, ip);
                    scatter(root, sk, rk, sa, ra, ip);
                    scatterv(root, sk, rk, sa, ra, ip);
                }
                allgather(sk, rk, sa, ra, ip);
                allgatherv(sk, rk, sa, ra, ip);
                alltoall(sk, rk, sa, ra, ip);
                alltoallv(sk, rk, sa, ra, ip);
            }
        }
    }

    /* MPI-1 defines the predefined operations on predefined datatypes only;
     * Strata takes them on any datatype of one basic type (as MPI-2's
     * MPI_Accumulate does), MPICH refuses them on derived types. */
    piece_disps();
    CK(MPI_Op_create(user_sum, 1, &user_op));
    for (o = 0; o < (PT_STRICT ? 2 : 1); o++) {
        red_op = o == 0 ? user_op : MPI_SUM;
        red_name = o == 0 ? "user sum" : "MPI_SUM";
        for (variant = 0; variant < 2; variant++) {
            for (mode = SEND_BOTTOM; mode <= IN_PLACE_BOTTOM; mode++) {
                for (root = 0; root < np; root++) reduce(root, variant, mode);
                allreduce(variant, mode);
                scan(variant, mode);
                reduce_scatter(variant, mode);
            }
        }
    }
    CK(MPI_Op_free(&user_op));

    errors();

    free(want_s);
    free(want_r);
    bt_teardown();
    bt_area_free(&S);
    bt_area_free(&R);
    return pt_finish();
}
