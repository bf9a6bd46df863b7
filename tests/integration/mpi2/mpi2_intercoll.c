/* Collectives on intercommunicators (MPI-2 7.3): MPI_COMM_WORLD cut three
 * ways into two groups (the low half and the high half, rank 0 alone and the
 * rest, even and odd ranks: unequal sizes with 3 and more processes), joined
 * by MPI_Intercomm_create. On each, every collective with each group as the
 * root group and every root in turn: Bcast, Gather(v), Scatter(v), Reduce
 * with MPI_ROOT at the root and MPI_PROC_NULL beside it; Barrier,
 * Allgather(v), Alltoall(v), Allreduce, Reduce_scatter, where each group gets
 * what the other group gave. Counts include 0; MPI_INT, MPI_DOUBLE and a
 * strided type (every other int, whose gaps must stay untouched); the groups
 * send different counts where the standard allows it; the v-variants take
 * uneven counts in reversed, gapped layouts; a non-commutative user operation
 * (2x2 matrix product) proves the other group's rank order. A user message in
 * flight on the intercommunicator throughout is never taken by a collective.
 * Then a duplicate of the intercommunicator, and the errors: a root outside
 * the remote group (MPI_ERR_ROOT), MPI_ROOT on an intracommunicator,
 * MPI_Scan (MPI_ERR_COMM) and MPI_IN_PLACE (MPI_ERR_BUFFER). */
#include "pt2pt_common.h"

#define JUNK (-7)
#define MOD 1000003LL

static MPI_Datatype stride2; /* one int, extent two ints */
static MPI_Op matmul;

/* The intercommunicator under test, as this process sees it. */
static MPI_Comm ic;
static int side; /* 0 or 1: which of the two groups this process is in */
static int me, nl, nr;

/* Element i of what process `rank` of group `s` contributes. */
static int val(int s, int rank, int i) { return (s * 64 + rank) * 4096 + i % 4096 + 1; }

static int spacing(MPI_Datatype t) { return t == stride2 ? 2 : 1; }

/* n elements of t (MPI_INT or stride2), every int JUNK. */
static int *ints(int n, MPI_Datatype t)
{
    int k = n * spacing(t) + 1, i;
    int *b = pt_malloc(sizeof(int) * (size_t)k);
    for (i = 0; i < k; ++i) b[i] = JUNK;
    return b;
}
static int *at(int *b, int i, MPI_Datatype t) { return &b[i * spacing(t)]; }
static void gaps_untouched(const int *b, int n, MPI_Datatype t, const char *what)
{
    int i;
    for (i = 0; i < n * spacing(t) + 1; ++i) {
        if (t == stride2 && i % 2 == 1) EXPECT(b[i] == JUNK, "%s: gap int %d written (%d)", what, i, b[i]);
    }
    EXPECT(b[n * spacing(t)] == JUNK, "%s: written past the end", what);
}

/* The root argument of a rooted collective whose root is rank `root` of group `rg`. */
static int root_arg(int rg, int root)
{
    if (rg != side) return root;
    return me == root ? MPI_ROOT : MPI_PROC_NULL;
}

/* ---- rooted ------------------------------------------------------------ */

static void bcast_check(int rg, int root, int n, MPI_Datatype t)
{
    int *b = ints(n, t), i;
    int arg = root_arg(rg, root);
    if (arg == MPI_ROOT)
        for (i = 0; i < n; ++i) *at(b, i, t) = val(rg, root, i);
    CK(MPI_Bcast(b, n, t, arg, ic));
    for (i = 0; i < n; ++i) {
        int want = arg == MPI_PROC_NULL ? JUNK : val(rg, root, i);
        EXPECT(*at(b, i, t) == want, "bcast root %d/%d n %d: element %d is %d, want %d", rg, root, n, i,
               *at(b, i, t), want);
    }
    gaps_untouched(b, n, t, "bcast");
    free(b);
}

static void bcast_double_check(int rg, int root, int n)
{
    double *b = pt_malloc(sizeof(double) * (size_t)(n + 1));
    int arg = root_arg(rg, root), i;
    for (i = 0; i <= n; ++i) b[i] = arg == MPI_ROOT ? 0.5 + val(rg, root, i) : -1.0;
    CK(MPI_Bcast(b, n, MPI_DOUBLE, arg, ic));
    for (i = 0; i < n; ++i) {
        double want = arg == MPI_PROC_NULL ? -1.0 : 0.5 + val(rg, root, i);
        EXPECT(b[i] == want, "bcast double root %d/%d: element %d is %g", rg, root, i, b[i]);
    }
    free(b);
}

/* Each process of the other group sends n elements; the root gets n per remote process. */
static void gather_check(int rg, int root, int n, MPI_Datatype t)
{
    int arg = root_arg(rg, root), i, j;
    int *send = ints(n, MPI_INT), *recv = ints(n * nr, t);
    for (i = 0; i < n; ++i) send[i] = val(side, me, i);
    CK(MPI_Gather(send, arg == MPI_ROOT || arg == MPI_PROC_NULL ? 0 : n, MPI_INT, recv, n, t, arg, ic));
    if (arg == MPI_ROOT) {
        for (j = 0; j < nr; ++j)
            for (i = 0; i < n; ++i)
                EXPECT(*at(recv, j * n + i, t) == val(1 - side, j, i), "gather root %d/%d: block %d element %d is %d",
                       rg, root, j, i, *at(recv, j * n + i, t));
        gaps_untouched(recv, n * nr, t, "gather");
    } else {
        for (i = 0; i < n * nr; ++i) EXPECT(*at(recv, i, t) == JUNK, "gather: a non-root's recvbuf was written");
    }
    free(send);
    free(recv);
}

/* Remote process j's block: j % 3 elements (some empty), in reverse order with a gap of one. */
static int layout_v(int procs, int *counts, int *displs)
{
    int j, off = 1;
    for (j = procs - 1; j >= 0; --j) {
        counts[j] = j % 3;
        displs[j] = off;
        off += counts[j] + 1;
    }
    return off;
}

static void gatherv_check(int rg, int root, MPI_Datatype t)
{
    int arg = root_arg(rg, root), i, j;
    int counts[64], displs[64];
    int total = layout_v(nr, counts, displs);
    int mine = me % 3;
    int *send = ints(mine, MPI_INT), *recv = ints(total, t);
    for (i = 0; i < mine; ++i) send[i] = val(side, me, i);
    CK(MPI_Gatherv(send, mine, MPI_INT, recv, counts, displs, t, arg, ic));
    if (arg == MPI_ROOT) {
        int expect_junk = 0;
        for (j = 0; j < nr; ++j)
            for (i = 0; i < counts[j]; ++i)
                EXPECT(*at(recv, displs[j] + i, t) == val(1 - side, j, i), "gatherv root %d/%d: block %d element %d",
                       rg, root, j, i);
        for (i = 0; i < total; ++i) expect_junk += *at(recv, i, t) == JUNK;
        for (j = 0; j < nr; ++j) expect_junk += counts[j];
        EXPECT(expect_junk == total, "gatherv: something outside the blocks was written");
        gaps_untouched(recv, total, t, "gatherv");
    }
    free(send);
    free(recv);
}

/* The root's block j (n elements) goes to remote process j. */
static void scatter_check(int rg, int root, int n, MPI_Datatype t)
{
    int arg = root_arg(rg, root), i, j;
    int *send = ints(n * nr, t), *recv = ints(n, MPI_INT);
    if (arg == MPI_ROOT)
        for (j = 0; j < nr; ++j)
            for (i = 0; i < n; ++i) *at(send, j * n + i, t) = val(side, me, j * n + i);
    CK(MPI_Scatter(send, n, t, recv, arg == MPI_ROOT || arg == MPI_PROC_NULL ? 0 : n, MPI_INT, arg, ic));
    for (i = 0; i < n; ++i) {
        int want = arg == MPI_ROOT || arg == MPI_PROC_NULL ? JUNK : val(rg, root, me * n + i);
        EXPECT(recv[i] == want, "scatter root %d/%d n %d: element %d is %d, want %d", rg, root, n, i, recv[i], want);
    }
    free(send);
    free(recv);
}

static void scatterv_check(int rg, int root, MPI_Datatype t)
{
    int arg = root_arg(rg, root), i, j;
    int counts[64], displs[64];
    int total = layout_v(nr, counts, displs);
    int mine = me % 3;
    int *send = ints(total, t), *recv = ints(mine, MPI_INT);
    if (arg == MPI_ROOT)
        for (j = 0; j < nr; ++j)
            for (i = 0; i < counts[j]; ++i) *at(send, displs[j] + i, t) = val(side, me, 10 * j + i);
    CK(MPI_Scatterv(send, counts, displs, t, recv, mine, MPI_INT, arg, ic));
    if (arg != MPI_ROOT && arg != MPI_PROC_NULL)
        for (i = 0; i < mine; ++i)
            EXPECT(recv[i] == val(rg, root, 10 * me + i), "scatterv root %d/%d: element %d is %d", rg, root, i,
                   recv[i]);
    EXPECT(recv[mine] == JUNK, "scatterv: written past the block");
    free(send);
    free(recv);
}

static void reduce_check(int rg, int root, int n)
{
    int arg = root_arg(rg, root), i, j;
    int *send = ints(n, MPI_INT), *recv = ints(n, MPI_INT);
    for (i = 0; i < n; ++i) send[i] = val(side, me, i);
    CK(MPI_Reduce(send, recv, n, MPI_INT, MPI_SUM, arg, ic));
    for (i = 0; i < n; ++i) {
        int want = 0;
        for (j = 0; j < nr; ++j) want += val(1 - side, j, i);
        if (arg != MPI_ROOT) want = JUNK;
        EXPECT(recv[i] == want, "reduce root %d/%d n %d: element %d is %d, want %d", rg, root, n, i, recv[i], want);
    }
    free(send);
    free(recv);
}

/* ---- the non-commutative operation: 2x2 integer matrices mod MOD ------- */

static void matmul_fn(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int *a = in, *b = inout, k;
    (void)type;
    for (k = 0; k < *len; ++k, a += 4, b += 4) {
        long long c0 = ((long long)a[0] * b[0] + (long long)a[1] * b[2]) % MOD;
        long long c1 = ((long long)a[0] * b[1] + (long long)a[1] * b[3]) % MOD;
        long long c2 = ((long long)a[2] * b[0] + (long long)a[3] * b[2]) % MOD;
        long long c3 = ((long long)a[2] * b[1] + (long long)a[3] * b[3]) % MOD;
        b[0] = (int)c0;
        b[1] = (int)c1;
        b[2] = (int)c2;
        b[3] = (int)c3;
    }
}

/* Matrix k of process `rank` of group s: no two of them commute. */
static void matrix(int s, int rank, int k, int *m)
{
    m[0] = 1;
    m[1] = s * 7 + rank + k + 1;
    m[2] = (rank + 2 * k) % 5 + s + 1;
    m[3] = 2;
}

/* The product in rank order of group s's matrices k (what the reduction must give). */
static void product(int s, int procs, int k, int *out)
{
    int j, m[4];
    matrix(s, 0, k, out);
    for (j = 1; j < procs; ++j) {
        int len = 1;
        matrix(s, j, k, m);
        /* out = out * m: matmul_fn computes inout = in * inout */
        matmul_fn(out, m, &len, NULL);
        memcpy(out, m, sizeof m);
    }
}

static void reduce_ordered_check(int rg, int root, int n, MPI_Datatype mat)
{
    int arg = root_arg(rg, root), k, e;
    int *send = ints(4 * n, MPI_INT), *recv = ints(4 * n, MPI_INT);
    for (k = 0; k < n; ++k) matrix(side, me, k, send + 4 * k);
    CK(MPI_Reduce(send, recv, n, mat, matmul, arg, ic));
    if (arg == MPI_ROOT) {
        for (k = 0; k < n; ++k) {
            int want[4];
            product(1 - side, nr, k, want);
            for (e = 0; e < 4; ++e)
                EXPECT(recv[4 * k + e] == want[e], "ordered reduce root %d/%d: matrix %d entry %d is %d, want %d", rg,
                       root, k, e, recv[4 * k + e], want[e]);
        }
    }
    free(send);
    free(recv);
}

static void rooted_checks(MPI_Datatype mat)
{
    static const int sizes[] = {0, 1, 5, 20000};
    int rg, root, s, size_rg;
    for (rg = 0; rg < 2; ++rg) {
        size_rg = rg == side ? nl : nr;
        for (root = 0; root < size_rg; ++root) {
            pt_set_phase("bcast");
            for (s = 0; s < 4; ++s) bcast_check(rg, root, sizes[s], MPI_INT);
            bcast_check(rg, root, 6, stride2);
            bcast_double_check(rg, root, 9);
            pt_set_phase("gather");
            for (s = 0; s < 3; ++s) gather_check(rg, root, sizes[s], MPI_INT);
            gather_check(rg, root, 3, stride2);
            pt_set_phase("gatherv");
            gatherv_check(rg, root, MPI_INT);
            gatherv_check(rg, root, stride2);
            pt_set_phase("scatter");
            for (s = 0; s < 3; ++s) scatter_check(rg, root, sizes[s], MPI_INT);
            scatter_check(rg, root, 4, stride2);
            pt_set_phase("scatterv");
            scatterv_check(rg, root, MPI_INT);
            scatterv_check(rg, root, stride2);
            pt_set_phase("reduce");
            for (s = 0; s < 3; ++s) reduce_check(rg, root, sizes[s]);
            reduce_ordered_check(rg, root, 3, mat);
        }
    }
}

/* ---- all-to-all -------------------------------------------------------- */

/* Group s sends s + 2 elements per process (the groups' counts differ). */
static void allgather_check(MPI_Datatype t, int zero)
{
    int ns = zero ? 0 : side + 2, nrecv = zero ? 0 : 3 - side, i, j;
    int *send = ints(ns, MPI_INT), *recv = ints(nrecv * nr, t);
    for (i = 0; i < ns; ++i) send[i] = val(side, me, i);
    CK(MPI_Allgather(send, ns, MPI_INT, recv, nrecv, t, ic));
    for (j = 0; j < nr; ++j)
        for (i = 0; i < nrecv; ++i)
            EXPECT(*at(recv, j * nrecv + i, t) == val(1 - side, j, i), "allgather: block %d element %d is %d", j, i,
                   *at(recv, j * nrecv + i, t));
    gaps_untouched(recv, nrecv * nr, t, "allgather");
    free(send);
    free(recv);
}

static void allgatherv_check(MPI_Datatype t)
{
    int counts[64], displs[64], i, j, junk = 0;
    int total = layout_v(nr, counts, displs);
    int mine = me % 3;
    int *send = ints(mine, MPI_INT), *recv = ints(total, t);
    for (i = 0; i < mine; ++i) send[i] = val(side, me, i);
    CK(MPI_Allgatherv(send, mine, MPI_INT, recv, counts, displs, t, ic));
    for (j = 0; j < nr; ++j)
        for (i = 0; i < counts[j]; ++i)
            EXPECT(*at(recv, displs[j] + i, t) == val(1 - side, j, i), "allgatherv: block %d element %d is %d", j, i,
                   *at(recv, displs[j] + i, t));
    for (i = 0; i < total; ++i) junk += *at(recv, i, t) == JUNK;
    for (j = 0; j < nr; ++j) junk += counts[j];
    EXPECT(junk == total, "allgatherv: something outside the blocks was written");
    gaps_untouched(recv, total, t, "allgatherv");
    free(send);
    free(recv);
}

/* Element i of the block process `rank` of group s sends to remote process j. */
static int cell(int s, int rank, int j, int i) { return (s * 64 + rank) * 4096 + j * 64 + i + 1; }

static void alltoall_check(MPI_Datatype t, int zero)
{
    int ns = zero ? 0 : side + 1, nrecv = zero ? 0 : 2 - side, i, j;
    int *send = ints(ns * nr, MPI_INT), *recv = ints(nrecv * nr, t);
    for (j = 0; j < nr; ++j)
        for (i = 0; i < ns; ++i) send[j * ns + i] = cell(side, me, j, i);
    CK(MPI_Alltoall(send, ns, MPI_INT, recv, nrecv, t, ic));
    for (j = 0; j < nr; ++j)
        for (i = 0; i < nrecv; ++i)
            EXPECT(*at(recv, j * nrecv + i, t) == cell(1 - side, j, me, i), "alltoall: from %d element %d is %d", j, i,
                   *at(recv, j * nrecv + i, t));
    gaps_untouched(recv, nrecv * nr, t, "alltoall");
    free(send);
    free(recv);
}

/* Elements process `rank` of group s sends to remote process j. */
static int count_v(int s, int rank, int j) { return (rank + 2 * j + s) % 3; }

static void alltoallv_check(MPI_Datatype t)
{
    int scounts[64], sdispls[64], rcounts[64], rdispls[64], i, j, soff = 0, roff = 2;
    int *send, *recv;
    /* Send blocks in reverse order, receive blocks in order with a gap of two. */
    for (j = nr - 1; j >= 0; --j) {
        scounts[j] = count_v(side, me, j);
        sdispls[j] = soff;
        soff += scounts[j];
    }
    for (j = 0; j < nr; ++j) {
        rcounts[j] = count_v(1 - side, j, me);
        rdispls[j] = roff;
        roff += rcounts[j] + 2;
    }
    send = ints(soff, MPI_INT);
    recv = ints(roff, t);
    for (j = 0; j < nr; ++j)
        for (i = 0; i < scounts[j]; ++i) send[sdispls[j] + i] = cell(side, me, j, i);
    CK(MPI_Alltoallv(send, scounts, sdispls, MPI_INT, recv, rcounts, rdispls, t, ic));
    for (j = 0; j < nr; ++j)
        for (i = 0; i < rcounts[j]; ++i)
            EXPECT(*at(recv, rdispls[j] + i, t) == cell(1 - side, j, me, i), "alltoallv: from %d element %d is %d", j,
                   i, *at(recv, rdispls[j] + i, t));
    gaps_untouched(recv, roff, t, "alltoallv");
    free(send);
    free(recv);
}

static void allreduce_checks(MPI_Datatype mat)
{
    static const int sizes[] = {0, 1, 7, 5000};
    int s, i, j, k, e;
    for (s = 0; s < 4; ++s) {
        int n = sizes[s];
        int *send = ints(n, MPI_INT), *recv = ints(n, MPI_INT);
        double *ds = pt_malloc(sizeof(double) * (size_t)(n + 1)), *dr = pt_malloc(sizeof(double) * (size_t)(n + 1));
        for (i = 0; i < n; ++i) {
            send[i] = val(side, me, i);
            ds[i] = 0.25 * val(side, me, i);
        }
        CK(MPI_Allreduce(send, recv, n, MPI_INT, MPI_SUM, ic));
        CK(MPI_Allreduce(ds, dr, n, MPI_DOUBLE, MPI_MAX, ic));
        for (i = 0; i < n; ++i) {
            int want = 0;
            for (j = 0; j < nr; ++j) want += val(1 - side, j, i);
            EXPECT(recv[i] == want, "allreduce n %d: element %d is %d, want %d", n, i, recv[i], want);
            EXPECT(dr[i] == 0.25 * val(1 - side, nr - 1, i), "allreduce MAX n %d: element %d is %g", n, i, dr[i]);
        }
        EXPECT(recv[n] == JUNK, "allreduce: written past the end");
        free(send);
        free(recv);
        free(ds);
        free(dr);
    }
    {
        int send[4 * 3], recv[4 * 3];
        for (k = 0; k < 3; ++k) matrix(side, me, k, send + 4 * k);
        CK(MPI_Allreduce(send, recv, 3, mat, matmul, ic));
        for (k = 0; k < 3; ++k) {
            int want[4];
            product(1 - side, nr, k, want);
            for (e = 0; e < 4; ++e)
                EXPECT(recv[4 * k + e] == want[e], "ordered allreduce: matrix %d entry %d is %d, want %d", k, e,
                       recv[4 * k + e], want[e]);
        }
    }
}

/* Both groups' vectors have T elements; this group's counts split them unevenly. */
enum { T = 12 };
static void reduce_scatter_counts(int procs, int *counts, int *offsets)
{
    int i, sum = 0;
    for (i = 0; i < procs; ++i) {
        counts[i] = i < procs - 1 ? i % 3 : T - sum;
        offsets[i] = sum;
        sum += counts[i];
    }
}

static void reduce_scatter_checks(MPI_Datatype mat)
{
    int counts[64], offsets[64], send[4 * T], recv[4 * T + 1], i, j, k, e;
    reduce_scatter_counts(nl, counts, offsets);
    for (i = 0; i < T; ++i) send[i] = val(side, me, i);
    for (i = 0; i <= T; ++i) recv[i] = JUNK;
    CK(MPI_Reduce_scatter(send, recv, counts, MPI_INT, MPI_SUM, ic));
    for (i = 0; i < counts[me]; ++i) {
        int want = 0;
        for (j = 0; j < nr; ++j) want += val(1 - side, j, offsets[me] + i);
        EXPECT(recv[i] == want, "reduce_scatter: element %d is %d, want %d", i, recv[i], want);
    }
    EXPECT(recv[counts[me]] == JUNK, "reduce_scatter: written past the block");
    /* The same with the matrices: element k of the vector is matrix k. */
    for (k = 0; k < T; ++k) matrix(side, me, k, send + 4 * k);
    CK(MPI_Reduce_scatter(send, recv, counts, mat, matmul, ic));
    for (k = 0; k < counts[me]; ++k) {
        int want[4];
        product(1 - side, nr, offsets[me] + k, want);
        for (e = 0; e < 4; ++e)
            EXPECT(recv[4 * k + e] == want[e], "ordered reduce_scatter: matrix %d entry %d is %d, want %d", k, e,
                   recv[4 * k + e], want[e]);
    }
}

static void all_checks(MPI_Datatype mat)
{
    int z;
    pt_set_phase("barrier");
    CK(MPI_Barrier(ic));
    CK(MPI_Barrier(ic));
    for (z = 0; z < 2; ++z) {
        pt_set_phase("allgather");
        allgather_check(MPI_INT, z);
        allgather_check(stride2, z);
        pt_set_phase("alltoall");
        alltoall_check(MPI_INT, z);
        alltoall_check(stride2, z);
    }
    pt_set_phase("allgatherv");
    allgatherv_check(MPI_INT);
    allgatherv_check(stride2);
    pt_set_phase("alltoallv");
    alltoallv_check(MPI_INT);
    alltoallv_check(stride2);
    pt_set_phase("allreduce");
    allreduce_checks(mat);
    pt_set_phase("reduce_scatter");
    reduce_scatter_checks(mat);
}

/* ---- errors ------------------------------------------------------------ */

#define EXPECT_CLASS(rc, cls, what)                                                                            \
    do {                                                                                                       \
        int rc_ = (rc), cls_ = -1;                                                                             \
        if (rc_ != MPI_SUCCESS) MPI_Error_class(rc_, &cls_);                                                   \
        EXPECT(rc_ != MPI_SUCCESS && cls_ == (cls), "%s: got %d (class %d), want class %d", (what), rc_, cls_, \
               (cls));                                                                                         \
    } while (0)

static void error_checks(void)
{
    int x[4] = {0, 0, 0, 0}, y[4] = {0, 0, 0, 0};
    pt_set_phase("errors");
    EXPECT_CLASS(MPI_Bcast(x, 1, MPI_INT, nr, ic), MPI_ERR_ROOT, "bcast with a root beyond the remote group");
    EXPECT_CLASS(MPI_Bcast(x, 1, MPI_INT, -5, ic), MPI_ERR_ROOT, "bcast with root -5");
    EXPECT_CLASS(MPI_Reduce(x, y, 1, MPI_INT, MPI_SUM, nr + 3, ic), MPI_ERR_ROOT, "reduce with a bad root");
    EXPECT_CLASS(MPI_Gather(x, 1, MPI_INT, y, 1, MPI_INT, nr, ic), MPI_ERR_ROOT, "gather with a bad root");
    EXPECT_CLASS(MPI_Bcast(x, 1, MPI_INT, MPI_ROOT, MPI_COMM_WORLD), MPI_ERR_ROOT, "MPI_ROOT on an intracommunicator");
    EXPECT_CLASS(MPI_Scan(x, y, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_COMM, "scan on an intercommunicator");
    if (PT_STRICT) {
        /* MPI-2 7.3.1: no in-place option on intercommunicators (MPICH 4.0 accepts some of these) */
        EXPECT_CLASS(MPI_Allreduce(MPI_IN_PLACE, y, 1, MPI_INT, MPI_SUM, ic), MPI_ERR_BUFFER,
                     "MPI_IN_PLACE in an intercommunicator allreduce");
        EXPECT_CLASS(MPI_Allgather(MPI_IN_PLACE, 0, MPI_INT, y, 1, MPI_INT, ic), MPI_ERR_BUFFER,
                     "MPI_IN_PLACE in an intercommunicator allgather");
        /* (a process beside the root reads no buffer: it succeeds) */
        if (side == 1 || me == 0)
            EXPECT_CLASS(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, side == 0 ? MPI_ROOT : 0, ic), MPI_ERR_BUFFER,
                         "MPI_IN_PLACE as a bcast buffer");
        else
            CK(MPI_Bcast(MPI_IN_PLACE, 1, MPI_INT, MPI_PROC_NULL, ic));
    }
}

/* ---- the cuts of the world --------------------------------------------- */

/* Which group world rank w is in, for cut c of p processes. */
static int group_of(int c, int w, int p)
{
    if (c == 0) return w >= p / 2;
    if (c == 1) return w != 0;
    return w % 2;
}

static void run_cut(int c, int rank, int size, MPI_Datatype mat)
{
    MPI_Comm local, dup;
    int w, remote_leader = -1, cmp, n, msg = -1, got = -1;
    MPI_Request pending;
    side = group_of(c, rank, size);
    for (w = 0; w < size && remote_leader < 0; ++w)
        if (group_of(c, w, size) != side) remote_leader = w;
    CK(MPI_Comm_split(MPI_COMM_WORLD, side, rank, &local));
    CK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_leader, 40 + c, &ic));
    CK(MPI_Comm_rank(ic, &me));
    CK(MPI_Comm_size(ic, &nl));
    CK(MPI_Comm_remote_size(ic, &nr));
    /* A user message from local rank 0 to remote rank 0, received only at
     * the end: no collective may take it. */
    if (me == 0) {
        msg = 5000 + side;
        CK(MPI_Isend(&msg, 1, MPI_INT, 0, 0, ic, &pending));
    }
    rooted_checks(mat);
    all_checks(mat);
    if (me == 0) {
        CK(MPI_Recv(&got, 1, MPI_INT, 0, MPI_ANY_TAG, ic, MPI_STATUS_IGNORE));
        EXPECT(got == 5000 + 1 - side, "the user message across was %d", got);
        CK(MPI_Wait(&pending, MPI_STATUS_IGNORE));
    }
    pt_set_phase("dup");
    CK(MPI_Comm_dup(ic, &dup));
    CK(MPI_Comm_compare(ic, dup, &cmp));
    EXPECT(cmp == MPI_CONGRUENT, "compare with the duplicate: %d", cmp);
    CK(MPI_Comm_remote_size(dup, &n));
    EXPECT(n == nr, "the duplicate's remote size %d", n);
    {
        MPI_Comm keep = ic;
        ic = dup;
        all_checks(mat);
        ic = keep;
    }
    error_checks();
    CK(MPI_Comm_free(&dup));
    CK(MPI_Comm_free(&ic));
    CK(MPI_Comm_free(&local));
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "mpi2_intercoll");
    MPI_Datatype mat;
    int c;
    pt_require_size(2);
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CK(MPI_Type_create_resized(MPI_INT, 0, 2 * (MPI_Aint)sizeof(int), &stride2));
    CK(MPI_Type_commit(&stride2));
    CK(MPI_Type_contiguous(4, MPI_INT, &mat));
    CK(MPI_Type_commit(&mat));
    CK(MPI_Op_create(matmul_fn, 0, &matmul));
    for (c = 0; c < 3; ++c) run_cut(c, rank, pt_size, mat);
    CK(MPI_Op_free(&matmul));
    CK(MPI_Type_free(&mat));
    CK(MPI_Type_free(&stride2));
    return pt_finish();
}
