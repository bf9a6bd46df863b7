/* Datatype additions: MPI_Type_create_struct / hvector / hindexed (the same
 * types as their MPI-1 twins), MPI_Type_create_indexed_block,
 * MPI_Type_create_resized (also over a type with MPI_LB/MPI_UB markers),
 * MPI_Type_get_extent / get_true_extent, MPI_Get_address, MPI_Aint_add /
 * diff; the basic types MPI_SIGNED_CHAR, MPI_UNSIGNED_LONG_LONG, MPI_WCHAR
 * and MPI_LONG_LONG in messages and reductions; MPI_Reduce_local (operand
 * order with a non-commutative operation) and MPI_Op_commutative. */
#include <wchar.h>

#include "pt2pt_common.h"

static void extent_is(MPI_Datatype t, MPI_Aint lb, MPI_Aint extent, MPI_Aint tlb, MPI_Aint textent,
                      const char *what)
{
    MPI_Aint l, e, old_e;
    CK(MPI_Type_get_extent(t, &l, &e));
    EXPECT(l == lb && e == extent, "%s: lb %ld extent %ld, expected %ld %ld", what, (long)l, (long)e, (long)lb,
           (long)extent);
    CK(MPI_Type_extent(t, &old_e));
    EXPECT(old_e == e, "%s: MPI_Type_extent %ld, MPI_Type_get_extent %ld", what, (long)old_e, (long)e);
    CK(MPI_Type_get_true_extent(t, &l, &e));
    EXPECT(l == tlb && e == textent, "%s: true lb %ld extent %ld, expected %ld %ld", what, (long)l, (long)e,
           (long)tlb, (long)textent);
}

/* Sends `count` elements of `t` from rank 0 to the last rank and compares
 * the bytes the type covers (others stay as they were). */
static void roundtrip(MPI_Datatype t, int count, size_t bytes, const char *what)
{
    unsigned char *out = pt_malloc(bytes), *in = pt_malloc(bytes), *want = pt_malloc(bytes);
    int last = pt_size - 1, packed = 0, pos = 0, size;
    size_t i;
    unsigned char *pack;
    pt_set_phase(what);
    pt_fill(out, bytes, 7);
    memset(in, 0xEE, bytes);
    /* What should arrive: pack on the sender's layout, unpack on 0xEE. */
    CK(MPI_Type_size(t, &size));
    CK(MPI_Pack_size(count, t, MPI_COMM_WORLD, &packed));
    pack = pt_malloc((size_t)packed);
    CK(MPI_Pack(out, count, t, pack, packed, &pos, MPI_COMM_WORLD));
    memset(want, 0xEE, bytes);
    pos = 0;
    CK(MPI_Unpack(pack, packed, &pos, want, count, t, MPI_COMM_WORLD));
    if (pt_size == 1) {
        CK(MPI_Sendrecv(out, count, t, 0, 1, in, count, t, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    } else if (pt_rank == 0) {
        CK(MPI_Send(out, count, t, last, 1, MPI_COMM_WORLD));
    } else if (pt_rank == last) {
        CK(MPI_Recv(in, count, t, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    }
    if (pt_rank == last) {
        for (i = 0; i < bytes; ++i) {
            if (in[i] != want[i]) pt_fail("%s: byte %zu is 0x%02x, expected 0x%02x", what, i, in[i], want[i]);
        }
    }
    free(out);
    free(in);
    free(want);
    free(pack);
}

static void check_constructors(void)
{
    int bl[3] = {2, 1, 3};
    MPI_Aint hd[3] = {0, 16, 40};
    int id[3] = {0, 4, 10};
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    MPI_Datatype a, b, c, d;
    MPI_Aint la, ea, lb, eb;
    int sa, sb;
    pt_set_phase("constructors");
    /* Each MPI-2 constructor builds the same type as its MPI-1 twin. */
    CK(MPI_Type_create_struct(3, bl, hd, ty, &a));
    CK(MPI_Type_struct(3, bl, hd, ty, &b));
    CK(MPI_Type_get_extent(a, &la, &ea));
    CK(MPI_Type_get_extent(b, &lb, &eb));
    CK(MPI_Type_size(a, &sa));
    CK(MPI_Type_size(b, &sb));
    EXPECT(la == lb && ea == eb && sa == sb, "struct: extents %ld/%ld sizes %d/%d", (long)ea, (long)eb, sa, sb);
    CK(MPI_Type_commit(&a));
    roundtrip(a, 3, (size_t)ea * 3, "create_struct");
    CK(MPI_Type_free(&a));
    CK(MPI_Type_free(&b));

    CK(MPI_Type_create_hvector(4, 3, 20, MPI_SHORT, &a));
    extent_is(a, 0, 66, 0, 66, "create_hvector");
    CK(MPI_Type_commit(&a));
    roundtrip(a, 2, 66 * 2, "create_hvector");
    CK(MPI_Type_free(&a));

    CK(MPI_Type_create_hindexed(3, bl, hd, MPI_INT, &a));
    extent_is(a, 0, 52, 0, 52, "create_hindexed");
    CK(MPI_Type_commit(&a));
    roundtrip(a, 2, 52 * 2, "create_hindexed");
    CK(MPI_Type_free(&a));

    CK(MPI_Type_create_indexed_block(3, 2, id, MPI_INT, &a));
    CK(MPI_Type_indexed(3, (int[]){2, 2, 2}, id, MPI_INT, &b));
    CK(MPI_Type_get_extent(a, &la, &ea));
    CK(MPI_Type_get_extent(b, &lb, &eb));
    EXPECT(la == 0 && ea == 48 && eb == 48, "indexed_block: extent %ld, indexed %ld", (long)ea, (long)eb);
    CK(MPI_Type_commit(&a));
    roundtrip(a, 3, 48 * 3, "create_indexed_block");
    CK(MPI_Type_free(&a));
    CK(MPI_Type_free(&b));

    /* Resized: a column of a 4x5 int matrix, one element further each time. */
    CK(MPI_Type_vector(4, 1, 5, MPI_INT, &c));
    extent_is(c, 0, 64, 0, 64, "vector");
    CK(MPI_Type_create_resized(c, 0, (MPI_Aint)sizeof(int), &d));
    extent_is(d, 0, 4, 0, 64, "resized column");
    CK(MPI_Type_commit(&d));
    roundtrip(d, 5, 80, "resized columns");
    CK(MPI_Type_free(&d));
    /* A negative lb, and resizing a type that carries MPI_LB/MPI_UB markers:
     * the old markers are erased. */
    CK(MPI_Type_create_resized(MPI_INT, -4, 12, &d));
    extent_is(d, -4, 12, 0, 4, "resized int");
    CK(MPI_Type_free(&d));
    {
        int bl2[3] = {1, 1, 1};
        MPI_Aint d2[3] = {-8, 0, 100};
        MPI_Datatype t2[3] = {MPI_LB, MPI_INT, MPI_UB};
        CK(MPI_Type_struct(3, bl2, d2, t2, &a));
        extent_is(a, -8, 108, 0, 4, "struct with markers");
        CK(MPI_Type_create_resized(a, 2, 6, &b));
        extent_is(b, 2, 6, 0, 4, "markers resized");
        /* The new markers are sticky: a contiguous type of two keeps them. */
        CK(MPI_Type_contiguous(2, b, &d));
        extent_is(d, 2, 12, 0, 10, "contiguous of resized");
        CK(MPI_Type_free(&a));
        CK(MPI_Type_free(&b));
        CK(MPI_Type_free(&d));
    }
    CK(MPI_Type_free(&c));
}

static void check_addresses(void)
{
    double arr[10];
    MPI_Aint a0, a5, old;
    pt_set_phase("addresses");
    CK(MPI_Get_address(&arr[0], &a0));
    CK(MPI_Get_address(&arr[5], &a5));
    CK(MPI_Address(&arr[5], &old));
    EXPECT(old == a5, "MPI_Address and MPI_Get_address disagree");
    EXPECT(MPI_Aint_diff(a5, a0) == (MPI_Aint)(5 * sizeof(double)), "MPI_Aint_diff %ld", (long)MPI_Aint_diff(a5, a0));
    EXPECT(MPI_Aint_add(a0, 5 * (MPI_Aint)sizeof(double)) == a5, "MPI_Aint_add");
}

static void check_basic_types(void)
{
    signed char sc[4] = {-100, -1, 0, 100}, scr[4];
    unsigned long long ull[2] = {0xFFFFFFFF00000000ull, 1ull << 40}, ullr[2];
    wchar_t wc[3] = {L'a', L'\u00e9', L'\u4e2d'}, wcr[3];
    long long ll = -(1ll << 50), llr = 0;
    int size, i, rc;
    pt_set_phase("basic types");
    CK(MPI_Type_size(MPI_SIGNED_CHAR, &size));
    EXPECT(size == 1, "MPI_SIGNED_CHAR size %d", size);
    CK(MPI_Type_size(MPI_UNSIGNED_LONG_LONG, &size));
    EXPECT(size == (int)sizeof(unsigned long long), "MPI_UNSIGNED_LONG_LONG size %d", size);
    CK(MPI_Type_size(MPI_WCHAR, &size));
    EXPECT(size == (int)sizeof(wchar_t), "MPI_WCHAR size %d", size);
    CK(MPI_Type_size(MPI_LONG_LONG, &size));
    EXPECT(size == (int)sizeof(long long), "MPI_LONG_LONG size %d", size);
    /* Messages: from every rank's point of view, the next rank's data. */
    {
        int to = (pt_rank + 1) % pt_size, from = (pt_rank + pt_size - 1) % pt_size;
        CK(MPI_Sendrecv(wc, 3, MPI_WCHAR, to, 5, wcr, 3, MPI_WCHAR, from, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        for (i = 0; i < 3; ++i) EXPECT(wcr[i] == wc[i], "MPI_WCHAR element %d", i);
        CK(MPI_Sendrecv(&ll, 1, MPI_LONG_LONG, to, 6, &llr, 1, MPI_LONG_LONG, from, 6, MPI_COMM_WORLD,
                        MPI_STATUS_IGNORE));
        EXPECT(llr == ll, "MPI_LONG_LONG came back as %lld", llr);
    }
    /* Reductions: sums that overflow a 32-bit int, signed minima. */
    CK(MPI_Allreduce(ull, ullr, 2, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(ullr[0] == 0xFFFFFFFF00000000ull * (unsigned long long)pt_size &&
               ullr[1] == (1ull << 40) * (unsigned long long)pt_size,
           "MPI_SUM on MPI_UNSIGNED_LONG_LONG: %llu %llu", ullr[0], ullr[1]);
    for (i = 0; i < 4; ++i) sc[i] = (signed char)(sc[i] + (i == 0 ? -pt_rank : 0));
    CK(MPI_Allreduce(sc, scr, 4, MPI_SIGNED_CHAR, MPI_MIN, MPI_COMM_WORLD));
    EXPECT(scr[0] == -100 - (pt_size - 1) && scr[1] == -1 && scr[3] == 100, "MPI_MIN on MPI_SIGNED_CHAR: %d %d %d",
           scr[0], scr[1], scr[3]);
    CK(MPI_Allreduce(ull, ullr, 2, MPI_UNSIGNED_LONG_LONG, MPI_BXOR, MPI_COMM_WORLD));
    EXPECT(ullr[1] == (pt_size % 2 ? (1ull << 40) : 0), "MPI_BXOR on MPI_UNSIGNED_LONG_LONG: %llu", ullr[1]);
    /* MPI_WCHAR is a character type: no arithmetic on it. */
    CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rc = MPI_Allreduce(wc, wcr, 3, MPI_WCHAR, MPI_SUM, MPI_COMM_WORLD);
    EXPECT(pt_error_class(rc) == MPI_ERR_OP, "MPI_SUM on MPI_WCHAR gave class %d", pt_error_class(rc));
    CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* inout[i] = in[i] * 10 + inout[i]: tells the operands apart. */
static void shift_op(void *in, void *inout, int *len, MPI_Datatype *t)
{
    int i;
    (void)t;
    for (i = 0; i < *len; ++i) ((int *)inout)[i] = ((int *)in)[i] * 10 + ((int *)inout)[i];
}

static void check_reduce_local(void)
{
    int in[3] = {1, 2, 3}, inout[3] = {4, 5, 6}, commute = -1, rc;
    double din[2] = {1.5, -2}, dinout[2] = {2, 8};
    MPI_Op op;
    MPI_Datatype pair;
    pt_set_phase("MPI_Reduce_local");
    CK(MPI_Reduce_local(din, dinout, 2, MPI_DOUBLE, MPI_MAX));
    EXPECT(dinout[0] == 2 && dinout[1] == 8, "MPI_MAX: %g %g", dinout[0], dinout[1]);
    CK(MPI_Reduce_local(din, dinout, 2, MPI_DOUBLE, MPI_PROD));
    EXPECT(dinout[0] == 3 && dinout[1] == -16, "MPI_PROD: %g %g", dinout[0], dinout[1]);
    CK(MPI_Op_create(shift_op, 0, &op));
    CK(MPI_Reduce_local(in, inout, 3, MPI_INT, op));
    EXPECT(inout[0] == 14 && inout[1] == 25 && inout[2] == 36, "user op: %d %d %d (inbuf must be the left operand)",
           inout[0], inout[1], inout[2]);
    /* A non-contiguous type: every other int of six (a derived type of one
     * basic type; MPICH 4.0 refuses predefined operations on derived types). */
    if (PT_STRICT) {
        int a[6] = {1, 100, 2, 100, 3, 100}, b[6] = {10, -1, 20, -1, 30, -1};
        CK(MPI_Type_vector(3, 1, 2, MPI_INT, &pair));
        CK(MPI_Type_commit(&pair));
        CK(MPI_Reduce_local(a, b, 1, pair, MPI_SUM));
        EXPECT(b[0] == 11 && b[2] == 22 && b[4] == 33 && b[1] == -1 && b[5] == -1,
               "strided MPI_SUM: %d %d %d (gaps %d %d)", b[0], b[2], b[4], b[1], b[5]);
        CK(MPI_Type_free(&pair));
    }
    CK(MPI_Op_commutative(op, &commute));
    EXPECT(commute == 0, "a non-commutative op says %d", commute);
    CK(MPI_Op_commutative(MPI_SUM, &commute));
    EXPECT(commute == 1, "MPI_SUM says %d", commute);
    CK(MPI_Op_free(&op));
    CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    rc = MPI_Reduce_local(in, inout, 3, MPI_INT, MPI_OP_NULL);
    EXPECT(pt_error_class(rc) == MPI_ERR_OP, "MPI_OP_NULL gave class %d", pt_error_class(rc));
    if (PT_STRICT) { /* MPICH 4.0 checks neither (a negative count crashes it) */
        rc = MPI_Reduce_local(in, inout, -1, MPI_INT, MPI_SUM);
        EXPECT(pt_error_class(rc) == MPI_ERR_COUNT, "count -1 gave class %d", pt_error_class(rc));
        rc = MPI_Op_commutative(MPI_OP_NULL, &commute);
        EXPECT(pt_error_class(rc) == MPI_ERR_OP, "MPI_Op_commutative(MPI_OP_NULL) gave class %d",
               pt_error_class(rc));
    }
    CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv, "mpi2_datatypes");
    check_constructors();
    check_addresses();
    check_basic_types();
    check_reduce_local();
    return pt_finish();
}
