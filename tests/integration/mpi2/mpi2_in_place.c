/* MPI_IN_PLACE in every collective MPI-2 (and 2.2, for Alltoall(v)) defines
 * it for, with the exact buffer semantics: Gather(v) and Reduce at the root
 * (its input already in recvbuf), Scatter(v) at the root (nothing received,
 * its block stays in sendbuf), Allgather(v), Alltoall(v), Allreduce,
 * Reduce_scatter and Scan everywhere. Each runs with MPI_INT and with a
 * strided type (every other int), and every root in turn; the values are
 * checked, and so are the ints the call must leave alone. Then the places
 * MPI_IN_PLACE is not allowed: MPI_ERR_BUFFER. */
#include "pt2pt_common.h"

enum { K = 3 };             /* elements per process */
#define VAL(r, i) (1000 * (r) + (i) + 1)
#define JUNK (-7)

static MPI_Datatype stride2; /* one int, extent two ints: "every other int" */
static int P, R;

/* A buffer of n elements of type t (t is MPI_INT or stride2): n or 2n ints. */
static int spacing(MPI_Datatype t) { return t == MPI_INT ? 1 : 2; }
static int *ints(int n, MPI_Datatype t)
{
    int *b = pt_malloc(sizeof(int) * (size_t)(n * spacing(t) + 1));
    int i;
    for (i = 0; i < n * spacing(t) + 1; ++i) b[i] = JUNK;
    return b;
}
static int *at(int *b, int i, MPI_Datatype t) { return &b[i * spacing(t)]; }
/* The gaps of a strided buffer are never written. */
static void gaps_untouched(const int *b, int n, MPI_Datatype t, const char *what)
{
    int i;
    if (t == MPI_INT) return;
    for (i = 0; i < n; ++i) EXPECT(b[2 * i + 1] == JUNK, "%s: gap after element %d written (%d)", what, i, b[2 * i + 1]);
}

/* One Gather (v false) or Gatherv (v true) at root, in place there; the
 * Gatherv layout goes to counts and displs. */
static void gather_in_place(int root, MPI_Datatype t, int v, int *recv, int *send, int *counts, int *displs)
{
    int i, r;
    if (!v) {
        if (R == root)
            CK(MPI_Gather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, recv, K, t, root, MPI_COMM_WORLD));
        else
            CK(MPI_Gather(send, K, MPI_INT, NULL, 0, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD));
        return;
    }
    /* Blocks in reverse rank order, rank r gets r % K + 1 elements. */
    {
        int off = 0;
        for (r = P - 1; r >= 0; --r) {
            counts[r] = r % K + 1;
            displs[r] = off;
            off += counts[r];
        }
    }
    if (R == root) {
        for (i = 0; i < P * K; ++i) *at(recv, i, t) = JUNK;
        for (i = 0; i < counts[R]; ++i) *at(recv, displs[R] + i, t) = VAL(R, i);
        CK(MPI_Gatherv(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, recv, counts, displs, t, root, MPI_COMM_WORLD));
    } else {
        CK(MPI_Gatherv(send, R % K + 1, MPI_INT, NULL, NULL, NULL, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD));
    }
}

/* What the root of gather_in_place received. */
static void gather_received_check(int root, MPI_Datatype t, int v, int *recv, const int *counts, const int *displs)
{
    int i, r;
    for (r = 0; r < P; ++r) {
        const int n = v ? counts[r] : K, base = v ? displs[r] : r * K;
        for (i = 0; i < n; ++i)
            EXPECT(*at(recv, base + i, t) == VAL(r, i), "%s root %d: element %d of rank %d is %d",
                   v ? "Gatherv" : "Gather", root, i, r, *at(recv, base + i, t));
    }
    gaps_untouched(recv, P * K, t, v ? "Gatherv" : "Gather");
}

static void check_gather(MPI_Datatype t, int v)
{
    int root, i;
    for (root = 0; root < P; ++root) {
        int *recv = ints(P * K, t);
        int send[K];
        int *counts = pt_malloc(sizeof(int) * (size_t)P), *displs = pt_malloc(sizeof(int) * (size_t)P);
        for (i = 0; i < K; ++i) send[i] = VAL(R, i);
        if (R == root) {
            for (i = 0; i < K; ++i) *at(recv, R * K + i, t) = VAL(R, i);
        }
        gather_in_place(root, t, v, recv, send, counts, displs);
        if (R == root) gather_received_check(root, t, v, recv, counts, displs);
        free(recv);
        free(counts);
        free(displs);
    }
}

static void check_scatter(MPI_Datatype t, int v)
{
    int root, i;
    for (root = 0; root < P; ++root) {
        int *send = ints(P * K, t);
        int recv[K];
        int *counts = pt_malloc(sizeof(int) * (size_t)P), *displs = pt_malloc(sizeof(int) * (size_t)P);
        for (i = 0; i < P; ++i) {
            counts[i] = i % K + 1;
            displs[i] = (P - 1 - i) * K;
        }
        for (i = 0; i < P * K; ++i) *at(send, i, t) = VAL(i / K, i % K) + 7 * root;
        for (i = 0; i < K; ++i) recv[i] = JUNK;
        if (R == root) {
            if (v) CK(MPI_Scatterv(send, counts, displs, t, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD));
            else CK(MPI_Scatter(send, K, t, MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, root, MPI_COMM_WORLD));
            /* Nothing moved at the root: sendbuf is as it was. */
            for (i = 0; i < P * K; ++i)
                EXPECT(*at(send, i, t) == VAL(i / K, i % K) + 7 * root, "%s root %d: sendbuf changed at %d",
                       v ? "Scatterv" : "Scatter", root, i);
        } else if (v) {
            CK(MPI_Scatterv(NULL, NULL, NULL, MPI_DATATYPE_NULL, recv, counts[R], MPI_INT, root, MPI_COMM_WORLD));
            for (i = 0; i < counts[R]; ++i) {
                const int g = displs[R] + i;
                EXPECT(recv[i] == VAL(g / K, g % K) + 7 * root, "Scatterv root %d: element %d is %d", root, i, recv[i]);
            }
        } else {
            CK(MPI_Scatter(NULL, 0, MPI_DATATYPE_NULL, recv, K, MPI_INT, root, MPI_COMM_WORLD));
            for (i = 0; i < K; ++i)
                EXPECT(recv[i] == VAL(R, i) + 7 * root, "Scatter root %d: element %d is %d", root, i, recv[i]);
        }
        free(send);
        free(counts);
        free(displs);
    }
}

static void check_allgather(MPI_Datatype t, int v)
{
    int *recv = ints(P * K, t);
    int *counts = pt_malloc(sizeof(int) * (size_t)P), *displs = pt_malloc(sizeof(int) * (size_t)P);
    int i, r, off = 0;
    for (r = 0; r < P; ++r) {
        counts[r] = v ? (r + 1) % K + 1 : K;
        displs[r] = off;
        off += counts[r];
        /* This rank's block, already in place (set here, not after the loop
         * through counts[R]: GCC 12 -O3 cannot see R < P and warns that
         * counts[R] may be uninitialized). */
        if (r == R)
            for (i = 0; i < counts[r]; ++i) *at(recv, displs[r] + i, t) = VAL(R, i);
    }
    if (v) CK(MPI_Allgatherv(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, recv, counts, displs, t, MPI_COMM_WORLD));
    else CK(MPI_Allgather(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, recv, K, t, MPI_COMM_WORLD));
    for (r = 0; r < P; ++r)
        for (i = 0; i < counts[r]; ++i)
            EXPECT(*at(recv, displs[r] + i, t) == VAL(r, i), "%s: element %d of rank %d is %d",
                   v ? "Allgatherv" : "Allgather", i, r, *at(recv, displs[r] + i, t));
    gaps_untouched(recv, off, t, "Allgather");
    free(recv);
    free(counts);
    free(displs);
}

static void check_alltoall(MPI_Datatype t, int v)
{
    /* Block for rank d holds VAL(100 * R + d, i); afterwards block s holds
     * VAL(100 * s + R, i). Alltoallv: block sizes s + R + 1 (symmetric, as
     * the in-place variant needs), laid out in reverse order. */
    int *counts = pt_malloc(sizeof(int) * (size_t)P), *displs = pt_malloc(sizeof(int) * (size_t)P);
    int i, d, total = 0;
    int *buf;
    for (d = P - 1; d >= 0; --d) {
        counts[d] = v ? (d + R) % K + 1 : K;
        displs[d] = v ? total : d * K;
        total += counts[d];
    }
    buf = ints(total, t);
    for (d = 0; d < P; ++d)
        for (i = 0; i < counts[d]; ++i) *at(buf, displs[d] + i, t) = VAL(100 * R + d, i);
    if (v) CK(MPI_Alltoallv(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, buf, counts, displs, t, MPI_COMM_WORLD));
    else CK(MPI_Alltoall(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, buf, K, t, MPI_COMM_WORLD));
    for (d = 0; d < P; ++d)
        for (i = 0; i < counts[d]; ++i)
            EXPECT(*at(buf, displs[d] + i, t) == VAL(100 * d + R, i), "%s: element %d from rank %d is %d",
                   v ? "Alltoallv" : "Alltoall", i, d, *at(buf, displs[d] + i, t));
    gaps_untouched(buf, total, t, "Alltoall");
    free(buf);
    free(counts);
    free(displs);
}

static void check_reductions(MPI_Datatype t)
{
    int *buf = ints(P * K, t);
    int *counts = pt_malloc(sizeof(int) * (size_t)P);
    int i, r, root, sum;
    if (t != MPI_INT && !PT_STRICT) { /* MPICH 4.0 refuses predefined operations on derived types */
        free(buf);
        free(counts);
        return;
    }
    /* Allreduce and Scan: sums of VAL(r, i) over the ranks (up to R for Scan). */
    for (i = 0; i < K; ++i) *at(buf, i, t) = VAL(R, i);
    CK(MPI_Allreduce(MPI_IN_PLACE, buf, K, t, MPI_SUM, MPI_COMM_WORLD));
    for (i = 0; i < K; ++i) {
        for (sum = 0, r = 0; r < P; ++r) sum += VAL(r, i);
        EXPECT(*at(buf, i, t) == sum, "Allreduce: element %d is %d, expected %d", i, *at(buf, i, t), sum);
    }
    for (i = 0; i < K; ++i) *at(buf, i, t) = VAL(R, i);
    CK(MPI_Scan(MPI_IN_PLACE, buf, K, t, MPI_SUM, MPI_COMM_WORLD));
    for (i = 0; i < K; ++i) {
        for (sum = 0, r = 0; r <= R; ++r) sum += VAL(r, i);
        EXPECT(*at(buf, i, t) == sum, "Scan: element %d is %d, expected %d", i, *at(buf, i, t), sum);
    }
    /* Reduce, every root: the root's input in recvbuf; MPI_MAX. */
    for (root = 0; root < P; ++root) {
        int send[K];
        for (i = 0; i < K; ++i) send[i] = VAL(R, i) * (R == 1 ? -1 : 1);
        if (R == root) {
            for (i = 0; i < K; ++i) *at(buf, i, t) = send[i];
            CK(MPI_Reduce(MPI_IN_PLACE, buf, K, t, MPI_MAX, root, MPI_COMM_WORLD));
            for (i = 0; i < K; ++i) {
                int best = send[i];
                for (r = 0; r < P; ++r) {
                    const int x = VAL(r, i) * (r == 1 ? -1 : 1);
                    if (x > best) best = x;
                }
                EXPECT(*at(buf, i, t) == best, "Reduce root %d: element %d is %d, expected %d", root, i,
                       *at(buf, i, t), best);
            }
        } else {
            CK(MPI_Reduce(send, NULL, K, MPI_INT, MPI_MAX, root, MPI_COMM_WORLD));
        }
    }
    /* Reduce_scatter: rank r gets r % K + 1 elements of the sum. */
    {
        int total = 0, first = 0;
        int *all;
        for (r = 0; r < P; ++r) {
            counts[r] = r % K + 1;
            if (r < R) first += counts[r];
            total += counts[r];
        }
        all = ints(total, t);
        for (i = 0; i < total; ++i) *at(all, i, t) = R + 10 * i;
        CK(MPI_Reduce_scatter(MPI_IN_PLACE, all, counts, t, MPI_SUM, MPI_COMM_WORLD));
        for (i = 0; i < counts[R]; ++i) {
            const int want = P * (P - 1) / 2 + P * 10 * (first + i);
            EXPECT(*at(all, i, t) == want, "Reduce_scatter: element %d is %d, expected %d", i, *at(all, i, t), want);
        }
        gaps_untouched(all, total, t, "Reduce_scatter");
        free(all);
    }
    gaps_untouched(buf, K, t, "reductions");
    free(buf);
    free(counts);
}

static void check_errors(void)
{
    int x[K] = {0}, rc;
    pt_set_phase("MPI_IN_PLACE where it is not allowed");
    CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    /* Local checks only: every rank makes the same erroneous calls, and
     * none of them reaches the network. */
    rc = MPI_Bcast(MPI_IN_PLACE, K, MPI_INT, 0, MPI_COMM_WORLD);
    EXPECT(pt_error_class(rc) == MPI_ERR_BUFFER, "Bcast(MPI_IN_PLACE) gave class %d", pt_error_class(rc));
    rc = MPI_Allreduce(x, MPI_IN_PLACE, K, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(pt_error_class(rc) == MPI_ERR_BUFFER, "Allreduce into MPI_IN_PLACE gave class %d", pt_error_class(rc));
    rc = MPI_Allgather(x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, MPI_COMM_WORLD);
    EXPECT(pt_error_class(rc) == MPI_ERR_BUFFER, "Allgather into MPI_IN_PLACE gave class %d", pt_error_class(rc));
    if (P > 1) {
        /* Only the root may give MPI_IN_PLACE to a rooted collective. */
        const int root = R == 0 ? 1 : 0;
        rc = MPI_Gather(MPI_IN_PLACE, 1, MPI_INT, x, 1, MPI_INT, root, MPI_COMM_WORLD);
        EXPECT(pt_error_class(rc) == MPI_ERR_BUFFER, "Gather(MPI_IN_PLACE) off the root gave class %d",
               pt_error_class(rc));
        rc = MPI_Reduce(MPI_IN_PLACE, x, 1, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD);
        EXPECT(pt_error_class(rc) == MPI_ERR_BUFFER, "Reduce(MPI_IN_PLACE) off the root gave class %d",
               pt_error_class(rc));
        rc = MPI_Scatter(x, 1, MPI_INT, MPI_IN_PLACE, 1, MPI_INT, root, MPI_COMM_WORLD);
        EXPECT(pt_error_class(rc) == MPI_ERR_BUFFER, "Scatter into MPI_IN_PLACE off the root gave class %d",
               pt_error_class(rc));
    }
    CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    int k;
    pt_init(&argc, &argv, "mpi2_in_place");
    P = pt_size;
    R = pt_rank;
    {
        MPI_Datatype v;
        CK(MPI_Type_vector(1, 1, 2, MPI_INT, &v));
        CK(MPI_Type_create_resized(v, 0, 2 * (MPI_Aint)sizeof(int), &stride2));
        CK(MPI_Type_commit(&stride2));
        CK(MPI_Type_free(&v));
    }
    for (k = 0; k < 2; ++k) {
        const MPI_Datatype t = k == 0 ? MPI_INT : stride2;
        pt_set_phase(k == 0 ? "MPI_INT" : "strided");
        check_gather(t, 0);
        check_gather(t, 1);
        check_scatter(t, 0);
        check_scatter(t, 1);
        check_allgather(t, 0);
        check_allgather(t, 1);
        check_alltoall(t, 0);
        check_alltoall(t, 1);
        check_reductions(t);
    }
    if (PT_STRICT) check_errors(); /* MPICH 4.0 does not check these */
    CK(MPI_Type_free(&stride2));
    return pt_finish();
}
