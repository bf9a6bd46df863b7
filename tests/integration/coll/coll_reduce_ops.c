/* Every predefined reduction operation on every type MPI-1 allows for it,
 * through MPI_Reduce (every root), MPI_Allreduce, MPI_Reduce_scatter and
 * MPI_Scan, compared element by element with a fold computed here in rank
 * order. MAXLOC/MINLOC with ties on MPI_2INT, and on the other pair types
 * when the library defines them. Large vectors (over 1 MB) for SUM. */
#include "coll_common.h"

enum { OP_MAX, OP_MIN, OP_SUM, OP_PROD, OP_LAND, OP_BAND, OP_LOR, OP_BOR, OP_LXOR, OP_BXOR, NOPS };
static const char *op_names[NOPS] = {"MAX", "MIN", "SUM", "PROD", "LAND", "BAND", "LOR", "BOR", "LXOR", "BXOR"};
static MPI_Op op_handle(int o)
{
    static const MPI_Op h[NOPS] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND,
                                   MPI_BAND, MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR};
    return h[o];
}

/* Inputs that keep every result exact and in range for the smallest type:
 * sums of small numbers, products of 1, 2 and -1, bit patterns below 2^15. */
static long long gen(int o, int r, int i, int is_unsigned)
{
    switch (o) {
    case OP_MAX:
    case OP_MIN:
        return (long long)((r * 131 + i * 71) % 201) - (is_unsigned ? 0 : 100);
    case OP_SUM:
        return (long long)(r + 1) * ((i % 13) - (is_unsigned ? 0 : 6));
    case OP_PROD:
        if ((r + i) % 3 == 0) return 2;
        return (!is_unsigned && (r + i) % 5 == 0) ? -1 : 1;
    case OP_LAND:
    case OP_LOR:
    case OP_LXOR:
        return ((i >> (r % 8)) & 1) ? r + 2 : 0;
    default:
        return (long long)((pt_mix((uint32_t)(i * 7919 + r * 104729)) & 0x7FFF));
    }
}

static long long combine(int o, long long a, long long b)
{
    switch (o) {
    case OP_MAX: return a > b ? a : b;
    case OP_MIN: return a < b ? a : b;
    case OP_SUM: return a + b;
    case OP_PROD: return a * b;
    case OP_LAND: return (a != 0) && (b != 0);
    case OP_LOR: return (a != 0) || (b != 0);
    case OP_LXOR: return (a != 0) != (b != 0);
    case OP_BAND: return a & b;
    case OP_BOR: return a | b;
    default: return a ^ b;
    }
}

/* The fold over ranks [0, upto]. */
static long long expect(int o, int upto, int i, int is_unsigned)
{
    long long acc = gen(o, 0, i, is_unsigned);
    int r;
    for (r = 1; r <= upto; r++) {
        acc = combine(o, acc, gen(o, r, i, is_unsigned));
    }
    return acc;
}

#define KIND_INT 1
#define KIND_FLOAT 2
#define KIND_BYTE 4

static int op_allowed(int o, int kind)
{
    if (kind == KIND_FLOAT) return o == OP_MAX || o == OP_MIN || o == OP_SUM || o == OP_PROD;
    if (kind == KIND_BYTE) return o == OP_BAND || o == OP_BOR || o == OP_BXOR;
    return 1;
}

/* One type: all allowed operations through all four reductions. */
#define DEFINE_TYPE_TEST(T, SUFFIX, UNSIGNED_)                                                                  \
    static void test_##SUFFIX(MPI_Datatype dt, const char *tname, int kind, int count, int all_roots)          \
    {                                                                                                           \
        T *in = (T *)pt_malloc(sizeof(T) * (size_t)count);                                                      \
        T *out = (T *)coll_sentinel_alloc(sizeof(T) * (size_t)count);                                           \
        int *counts = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);                                          \
        int o, i, root, total = 0, first = 0;                                                                   \
        /* Uneven pieces: rank 0 takes rank 1's share too, rank 1 gets none. */                             \
        for (i = 0; i < pt_size; i++) counts[i] = count / pt_size + (i < count % pt_size ? 1 : 0);              \
        if (pt_size > 1) {                                                                                      \
            counts[0] += counts[1];                                                                             \
            counts[1] = 0;                                                                                      \
        }                                                                                                       \
        for (i = 0; i < pt_size; i++) {                                                                         \
            if (i < rank_of()) first += counts[i];                                                              \
            total += counts[i];                                                                                 \
        }                                                                                                       \
        EXPECT(total == count, "pieces add up to %d, not %d", total, count);                                    \
        for (o = 0; o < NOPS; o++) {                                                                            \
            if (!op_allowed(o, kind)) continue;                                                                 \
            for (i = 0; i < count; i++) in[i] = (T)gen(o, rank_of(), i, UNSIGNED_);                            \
            for (root = 0; root < pt_size; root++) {                                                            \
                if (!all_roots && root != count % pt_size) continue;                                            \
                memset(out, COLL_SENTINEL, sizeof(T) * (size_t)count);                                          \
                CK(MPI_Reduce(in, out, count, dt, op_handle(o), root, MPI_COMM_WORLD));                         \
                if (rank_of() == root) {                                                                        \
                    for (i = 0; i < count; i++)                                                                 \
                        EXPECT(out[i] == (T)expect(o, pt_size - 1, i, UNSIGNED_),                               \
                               "MPI_Reduce %s on %s, root %d, count %d: element %d wrong", op_names[o], tname,   \
                               root, count, i);                                                                 \
                }                                                                                               \
                coll_check_tail(out, sizeof(T) * (size_t)count, "MPI_Reduce: after the buffer");               \
            }                                                                                                   \
            CK(MPI_Allreduce(in, out, count, dt, op_handle(o), MPI_COMM_WORLD));                                \
            for (i = 0; i < count; i++)                                                                         \
                EXPECT(out[i] == (T)expect(o, pt_size - 1, i, UNSIGNED_),                                       \
                       "MPI_Allreduce %s on %s, count %d: element %d wrong", op_names[o], tname, count, i);     \
            coll_check_tail(out, sizeof(T) * (size_t)count, "MPI_Allreduce: after the buffer");                \
            CK(MPI_Scan(in, out, count, dt, op_handle(o), MPI_COMM_WORLD));                                     \
            for (i = 0; i < count; i++)                                                                         \
                EXPECT(out[i] == (T)expect(o, rank_of(), i, UNSIGNED_),                                         \
                       "MPI_Scan %s on %s, count %d: element %d wrong", op_names[o], tname, count, i);          \
            memset(out, COLL_SENTINEL, sizeof(T) * (size_t)count);                                              \
            CK(MPI_Reduce_scatter(in, out, counts, dt, op_handle(o), MPI_COMM_WORLD));                          \
            for (i = 0; i < counts[rank_of()]; i++)                                                             \
                EXPECT(out[i] == (T)expect(o, pt_size - 1, first + i, UNSIGNED_),                               \
                       "MPI_Reduce_scatter %s on %s, count %d: element %d wrong", op_names[o], tname, count, i); \
            coll_check_tail(out, sizeof(T) * (size_t)counts[rank_of()], "MPI_Reduce_scatter: after my piece");  \
        }                                                                                                       \
        free(in);                                                                                               \
        free(out);                                                                                              \
        free(counts);                                                                                           \
    }

static int rank_of(void) { return pt_rank; }

DEFINE_TYPE_TEST(short, short, 0)
DEFINE_TYPE_TEST(int, int, 0)
DEFINE_TYPE_TEST(long, long, 0)
DEFINE_TYPE_TEST(long long, longlong, 0)
DEFINE_TYPE_TEST(unsigned short, ushort, 1)
DEFINE_TYPE_TEST(unsigned, uint, 1)
DEFINE_TYPE_TEST(unsigned long, ulong, 1)
DEFINE_TYPE_TEST(float, float, 0)
DEFINE_TYPE_TEST(double, double, 0)
DEFINE_TYPE_TEST(long double, longdouble, 0)
DEFINE_TYPE_TEST(unsigned char, byte, 1)

static void all_types(int count, int all_roots)
{
    test_short(MPI_SHORT, "MPI_SHORT", KIND_INT, count, all_roots);
    test_int(MPI_INT, "MPI_INT", KIND_INT, count, all_roots);
    test_long(MPI_LONG, "MPI_LONG", KIND_INT, count, all_roots);
    test_longlong(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", KIND_INT, count, all_roots);
    test_ushort(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", KIND_INT, count, all_roots);
    test_uint(MPI_UNSIGNED, "MPI_UNSIGNED", KIND_INT, count, all_roots);
    test_ulong(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", KIND_INT, count, all_roots);
    test_float(MPI_FLOAT, "MPI_FLOAT", KIND_FLOAT, count, all_roots);
    test_double(MPI_DOUBLE, "MPI_DOUBLE", KIND_FLOAT, count, all_roots);
    test_longdouble(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", KIND_FLOAT, count, all_roots);
    test_byte(MPI_BYTE, "MPI_BYTE", KIND_BYTE, count, all_roots);
}

/* MAXLOC/MINLOC: values with many ties (v = (r + i) % 3), indexes falling
 * with the rank so the lowest index does not simply come from the lowest rank. */
static int loc_value(int r, int i) { return (r + i) % 3; }
static int loc_index(int r, int i) { return 10 * (pt_size - r) + i; }
static void loc_expect(int maxloc, int i, int *value, int *index)
{
    int r;
    *value = loc_value(0, i);
    *index = loc_index(0, i);
    for (r = 1; r < pt_size; r++) {
        int v = loc_value(r, i), idx = loc_index(r, i);
        if (maxloc ? v > *value : v < *value) {
            *value = v;
            *index = idx;
        } else if (v == *value && idx < *index) {
            *index = idx;
        }
    }
}

#define DEFINE_LOC_TEST(V, SUFFIX)                                                                            \
    typedef struct {                                                                                          \
        V v;                                                                                                  \
        int i;                                                                                                \
    } pair_##SUFFIX;                                                                                          \
    static void loc_##SUFFIX(MPI_Datatype dt, const char *tname, int count)                                   \
    {                                                                                                         \
        pair_##SUFFIX *in = (pair_##SUFFIX *)pt_malloc(sizeof(pair_##SUFFIX) * (size_t)count);                \
        pair_##SUFFIX *out = (pair_##SUFFIX *)pt_malloc(sizeof(pair_##SUFFIX) * (size_t)count);               \
        int k, i, root, v, idx;                                                                               \
        for (k = 0; k < 2; k++) {                                                                             \
            MPI_Op op = k == 0 ? MPI_MAXLOC : MPI_MINLOC;                                                     \
            for (i = 0; i < count; i++) {                                                                     \
                in[i].v = (V)loc_value(pt_rank, i);                                                           \
                in[i].i = loc_index(pt_rank, i);                                                              \
            }                                                                                                 \
            for (root = 0; root <= pt_size; root++) {                                                         \
                if (root < pt_size) {                                                                         \
                    CK(MPI_Reduce(in, out, count, dt, op, root, MPI_COMM_WORLD));                             \
                    if (pt_rank != root) continue;                                                            \
                } else {                                                                                      \
                    CK(MPI_Allreduce(in, out, count, dt, op, MPI_COMM_WORLD));                                \
                }                                                                                             \
                for (i = 0; i < count; i++) {                                                                 \
                    loc_expect(k == 0, i, &v, &idx);                                                          \
                    EXPECT(out[i].v == (V)v && out[i].i == idx,                                               \
                           "%s on %s (root %d, %d = allreduce): element %d is (%g, %d), expected (%d, %d)",   \
                           k == 0 ? "MAXLOC" : "MINLOC", tname, root, pt_size, i, (double)out[i].v, out[i].i, \
                           v, idx);                                                                           \
                }                                                                                             \
            }                                                                                                 \
        }                                                                                                     \
        free(in);                                                                                             \
        free(out);                                                                                            \
    }

DEFINE_LOC_TEST(int, int)
DEFINE_LOC_TEST(float, float)
DEFINE_LOC_TEST(double, double)
DEFINE_LOC_TEST(long, long)
DEFINE_LOC_TEST(short, short)
DEFINE_LOC_TEST(long double, longdouble)

/* Whether the library defines a datatype (the pair types may not exist yet). */
static int type_exists(MPI_Datatype t)
{
    int size = 0;
    int rc;
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rc = MPI_Type_size(t, &size);
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    return rc == MPI_SUCCESS;
}

static void large_sums(void)
{
    const int n = 300000; /* 1.2 MB of int, 2.4 MB of double */
    int *a = (int *)pt_malloc(sizeof(int) * (size_t)n);
    int *b = (int *)pt_malloc(sizeof(int) * (size_t)n);
    double *x = (double *)pt_malloc(sizeof(double) * (size_t)n);
    double *y = (double *)pt_malloc(sizeof(double) * (size_t)n);
    int i, root;
    long long ranks = (long long)pt_size * (pt_size - 1) / 2;
    for (i = 0; i < n; i++) {
        a[i] = pt_rank * 1000 + i % 1000;
        x[i] = (double)pt_rank - (double)(i % 17);
    }
    CK(MPI_Allreduce(a, b, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    for (i = 0; i < n; i++) {
        EXPECT(b[i] == (int)(ranks * 1000 + (long long)pt_size * (i % 1000)), "large int sum: element %d is %d", i,
               b[i]);
    }
    CK(MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
    for (i = 0; i < n; i++) {
        EXPECT(y[i] == (double)ranks - (double)pt_size * (i % 17), "large double sum: element %d is %g", i, y[i]);
    }
    for (root = 0; root < pt_size; root++) {
        memset(b, 0, sizeof(int) * (size_t)n);
        CK(MPI_Reduce(a, b, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD));
        if (pt_rank == root) {
            for (i = 0; i < n; i++) {
                EXPECT(b[i] == (int)(ranks * 1000 + (long long)pt_size * (i % 1000)),
                       "large reduce to %d: element %d is %d", root, i, b[i]);
            }
        }
    }
    CK(MPI_Scan(a, b, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
    for (i = 0; i < n; i++) {
        EXPECT(b[i] == pt_rank * 1000 + i % 1000, "large scan max: element %d is %d", i, b[i]);
    }
    free(a);
    free(b);
    free(x);
    free(y);
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv, "coll_reduce_ops");
    pt_set_phase("predefined, 7 elements, every root");
    all_types(7, 1);
    pt_set_phase("predefined, 1 element");
    all_types(1, 0);
    pt_set_phase("predefined, 1000 elements");
    all_types(1000, 0);
    pt_set_phase("maxloc/minloc");
    loc_int(MPI_2INT, "MPI_2INT", 5);
    if (type_exists(MPI_FLOAT_INT)) loc_float(MPI_FLOAT_INT, "MPI_FLOAT_INT", 5);
    if (type_exists(MPI_DOUBLE_INT)) loc_double(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", 5);
    if (type_exists(MPI_LONG_INT)) loc_long(MPI_LONG_INT, "MPI_LONG_INT", 5);
    if (type_exists(MPI_SHORT_INT)) loc_short(MPI_SHORT_INT, "MPI_SHORT_INT", 5);
    if (type_exists(MPI_LONG_DOUBLE_INT)) loc_longdouble(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", 5);
    pt_set_phase("large sums");
    large_sums();
    return pt_finish();
}
