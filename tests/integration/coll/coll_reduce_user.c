/* User-defined reduction operations through MPI_Reduce (every root),
 * MPI_Allreduce, MPI_Scan and MPI_Reduce_scatter, small vectors to over 1 MB:
 *  - a non-commutative 2x2 matrix product (mod 2^32) whose result proves the
 *    order a0 op a1 op ... op a(p-1);
 *  - "first" and "last" (non-commutative projections);
 *  - a commutative integer sum, which may be reordered freely.
 * Run with each reduction algorithm forced. */
#include "coll_common.h"

static int bad_call = 0; /* a user function saw arguments it should not */

/* inout = in x inout, for *len / 4 matrices of MPI_UNSIGNED. */
static void matmul(void *invec, void *inoutvec, int *len, MPI_Datatype *type)
{
    const unsigned *a = (const unsigned *)invec;
    unsigned *b = (unsigned *)inoutvec;
    int m;
    if (*type != MPI_UNSIGNED || *len % 4 != 0) {
        bad_call = 1;
        return;
    }
    for (m = 0; m < *len / 4; m++) {
        const unsigned *x = a + 4 * m;
        unsigned *y = b + 4 * m;
        unsigned r0 = x[0] * y[0] + x[1] * y[2];
        unsigned r1 = x[0] * y[1] + x[1] * y[3];
        unsigned r2 = x[2] * y[0] + x[3] * y[2];
        unsigned r3 = x[2] * y[1] + x[3] * y[3];
        y[0] = r0;
        y[1] = r1;
        y[2] = r2;
        y[3] = r3;
    }
}

static void first(void *invec, void *inoutvec, int *len, MPI_Datatype *type)
{
    if (*type != MPI_INT) bad_call = 1;
    memcpy(inoutvec, invec, sizeof(int) * (size_t)*len);
}

static void last(void *invec, void *inoutvec, int *len, MPI_Datatype *type)
{
    (void)invec;
    (void)inoutvec;
    (void)len;
    if (*type != MPI_INT) bad_call = 1;
}

static void isum(void *invec, void *inoutvec, int *len, MPI_Datatype *type)
{
    const int *a = (const int *)invec;
    int *b = (int *)inoutvec;
    int i;
    if (*type != MPI_INT) bad_call = 1;
    for (i = 0; i < *len; i++) {
        b[i] = (int)((unsigned)a[i] + (unsigned)b[i]);
    }
}

static unsigned mat_entry(int r, int m, int e) { return pt_word(pt_seed(r, m, e, 77), 0) % 1000u; }

/* The product of the matrices of ranks 0..upto, matrix m, into y[4]. */
static void mat_expect(int upto, int m, unsigned *y)
{
    int r, e;
    for (e = 0; e < 4; e++) y[e] = mat_entry(0, m, e);
    for (r = 1; r <= upto; r++) {
        unsigned x[4], z[4];
        for (e = 0; e < 4; e++) x[e] = mat_entry(r, m, e);
        z[0] = y[0] * x[0] + y[1] * x[2];
        z[1] = y[0] * x[1] + y[1] * x[3];
        z[2] = y[2] * x[0] + y[3] * x[2];
        z[3] = y[2] * x[1] + y[3] * x[3];
        memcpy(y, z, sizeof z);
    }
}

/* Uneven pieces in units of `unit` elements summing to n units: the last rank
 * gets none, rank 0 the remainder. */
static void pieces(int n, int unit, int *counts)
{
    int i, given = 0;
    for (i = 0; i < pt_size; i++) {
        counts[i] = (pt_size > 1 && i == pt_size - 1) ? 0 : (n / (pt_size > 1 ? pt_size - 1 : 1)) * unit;
        given += counts[i];
    }
    counts[0] += n * unit - given;
}

static void matrices(MPI_Op op, int nm, int all_roots)
{
    unsigned *in = (unsigned *)pt_malloc(sizeof(unsigned) * 4 * (size_t)nm);
    unsigned *out = (unsigned *)coll_sentinel_alloc(sizeof(unsigned) * 4 * (size_t)nm);
    int *counts = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    int m, e, root, i, first_m = 0;
    unsigned y[4];
    for (m = 0; m < nm; m++) {
        for (e = 0; e < 4; e++) in[4 * m + e] = mat_entry(pt_rank, m, e);
    }
    for (root = 0; root < pt_size; root++) {
        if (!all_roots && root != nm % pt_size) continue;
        CK(MPI_Reduce(in, out, 4 * nm, MPI_UNSIGNED, op, root, MPI_COMM_WORLD));
        if (pt_rank == root) {
            for (m = 0; m < nm; m++) {
                mat_expect(pt_size - 1, m, y);
                EXPECT(memcmp(out + 4 * m, y, sizeof y) == 0, "matrix reduce to %d: product %d of %d in wrong order",
                       root, m, nm);
            }
            coll_check_tail(out, sizeof(unsigned) * 4 * (size_t)nm, "matrix reduce: after the buffer");
        }
    }
    CK(MPI_Allreduce(in, out, 4 * nm, MPI_UNSIGNED, op, MPI_COMM_WORLD));
    for (m = 0; m < nm; m++) {
        mat_expect(pt_size - 1, m, y);
        EXPECT(memcmp(out + 4 * m, y, sizeof y) == 0, "matrix allreduce: product %d of %d wrong", m, nm);
    }
    CK(MPI_Scan(in, out, 4 * nm, MPI_UNSIGNED, op, MPI_COMM_WORLD));
    for (m = 0; m < nm; m++) {
        mat_expect(pt_rank, m, y);
        EXPECT(memcmp(out + 4 * m, y, sizeof y) == 0, "matrix scan: product %d of %d wrong", m, nm);
    }
    pieces(nm, 4, counts);
    for (i = 0; i < pt_rank; i++) first_m += counts[i] / 4;
    memset(out, COLL_SENTINEL, sizeof(unsigned) * 4 * (size_t)nm);
    CK(MPI_Reduce_scatter(in, out, counts, MPI_UNSIGNED, op, MPI_COMM_WORLD));
    for (m = 0; m < counts[pt_rank] / 4; m++) {
        mat_expect(pt_size - 1, first_m + m, y);
        EXPECT(memcmp(out + 4 * m, y, sizeof y) == 0, "matrix reduce_scatter: my product %d wrong", m);
    }
    coll_check_tail(out, sizeof(unsigned) * (size_t)counts[pt_rank], "matrix reduce_scatter: after my piece");
    EXPECT(!bad_call, "a user function was called with a wrong datatype or length");
    free(in);
    free(out);
    free(counts);
}

static int int_value(int r, int i) { return (int)(pt_word(pt_seed(r, i % 64, 3, 78), (size_t)i) % 20001u) - 10000; }

/* first: a0 everywhere; last: a(p-1); isum: the sum; each prefix for scan. */
static int ints_expect(int which, int upto, int i)
{
    int r, s = 0;
    if (which == 0) return int_value(0, i);
    if (which == 1) return int_value(upto, i);
    for (r = 0; r <= upto; r++) s += int_value(r, i);
    return s;
}

static void ints(MPI_Op op, int which, int n, int all_roots)
{
    int *in = (int *)pt_malloc(sizeof(int) * (size_t)n);
    int *out = (int *)coll_sentinel_alloc(sizeof(int) * (size_t)n);
    int *counts = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    int i, root, firsti = 0;
    static const char *names[] = {"first", "last", "sum"};
    for (i = 0; i < n; i++) in[i] = int_value(pt_rank, i);
    for (root = 0; root < pt_size; root++) {
        if (!all_roots && root != n % pt_size) continue;
        CK(MPI_Reduce(in, out, n, MPI_INT, op, root, MPI_COMM_WORLD));
        if (pt_rank == root) {
            for (i = 0; i < n; i++) {
                EXPECT(out[i] == ints_expect(which, pt_size - 1, i), "%s reduce to %d, n %d: element %d is %d",
                       names[which], root, n, i, out[i]);
            }
        }
    }
    CK(MPI_Allreduce(in, out, n, MPI_INT, op, MPI_COMM_WORLD));
    for (i = 0; i < n; i++) {
        EXPECT(out[i] == ints_expect(which, pt_size - 1, i), "%s allreduce n %d: element %d is %d", names[which], n, i,
               out[i]);
    }
    coll_check_tail(out, sizeof(int) * (size_t)n, "allreduce: after the buffer");
    CK(MPI_Scan(in, out, n, MPI_INT, op, MPI_COMM_WORLD));
    for (i = 0; i < n; i++) {
        EXPECT(out[i] == ints_expect(which, pt_rank, i), "%s scan n %d: element %d is %d", names[which], n, i,
               out[i]);
    }
    pieces(n, 1, counts);
    for (i = 0; i < pt_rank; i++) firsti += counts[i];
    CK(MPI_Reduce_scatter(in, out, counts, MPI_INT, op, MPI_COMM_WORLD));
    for (i = 0; i < counts[pt_rank]; i++) {
        EXPECT(out[i] == ints_expect(which, pt_size - 1, firsti + i), "%s reduce_scatter n %d: element %d is %d",
               names[which], n, i, out[i]);
    }
    EXPECT(!bad_call, "a user function was called with a wrong datatype");
    free(in);
    free(out);
    free(counts);
}

int main(int argc, char **argv)
{
    MPI_Op mat, fst, lst, sum;
    static const int sizes[] = {1, 5, 700, 70000};
    int s;
    pt_init(&argc, &argv, "coll_reduce_user");
    CK(MPI_Op_create(matmul, 0, &mat));
    CK(MPI_Op_create(first, 0, &fst));
    CK(MPI_Op_create(last, 0, &lst));
    CK(MPI_Op_create(isum, 1, &sum));
    for (s = 0; s < 4; s++) {
        pt_set_phase("matrix product");
        matrices(mat, sizes[s], s < 2);
        pt_set_phase("first");
        ints(fst, 0, 4 * sizes[s], s < 2);
        pt_set_phase("last");
        ints(lst, 1, 4 * sizes[s], s < 2);
        pt_set_phase("commutative sum");
        ints(sum, 2, 4 * sizes[s], s < 2);
    }
    pt_set_phase("free");
    CK(MPI_Op_free(&mat));
    CK(MPI_Op_free(&fst));
    CK(MPI_Op_free(&lst));
    CK(MPI_Op_free(&sum));
    EXPECT(mat == MPI_OP_NULL && sum == MPI_OP_NULL, "MPI_Op_free did not set the handle to MPI_OP_NULL");
    return pt_finish();
}
