/* MPI_Pack, MPI_Unpack and MPI_Pack_size: several items packed one after
 * the other into one buffer and unpacked again; a packed buffer sent as
 * MPI_PACKED and received as typed data, and typed data received as
 * MPI_PACKED and unpacked; Pack_size sums as the standard promises; a packed
 * buffer too small is MPI_ERR_TRUNCATE. Runs around a ring. */
#include "dt_common.h"

typedef struct {
    int id;
    double val;
    char tag;
} item;

#define N_ITEMS 7
#define N_INTS 11

static MPI_Datatype item_type(void)
{
    MPI_Datatype t;
    int bl[3] = {1, 1, 1};
    MPI_Aint disp[3];
    MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
    item probe = {0}; /* MPI_Address takes a const void *: GCC warns on an uninitialized one */
    MPI_Aint base;
    CK(MPI_Address(&probe, &base));
    CK(MPI_Address(&probe.id, &disp[0]));
    CK(MPI_Address(&probe.val, &disp[1]));
    CK(MPI_Address(&probe.tag, &disp[2]));
    disp[0] -= base;
    disp[1] -= base;
    disp[2] -= base;
    CK(MPI_Type_struct(3, bl, disp, ty, &t));
    CK(MPI_Type_commit(&t));
    return t;
}

static void items_fill(item *it, int n, int seed)
{
    int i;
    memset(it, 0, sizeof(item) * (size_t)n);
    for (i = 0; i < n; i++) {
        it[i].id = seed * 1000 + i;
        it[i].val = seed + i * 0.25;
        it[i].tag = (char)('a' + (seed + i) % 26);
    }
}

static void items_check(const item *it, int n, int seed, const char *what)
{
    int i;
    for (i = 0; i < n; i++) {
        EXPECT(it[i].id == seed * 1000 + i && it[i].val == seed + i * 0.25 && it[i].tag == (char)('a' + (seed + i) % 26),
               "%s: item %d is {%d, %g, %c}", what, i, it[i].id, it[i].val, it[i].tag);
    }
}

int main(int argc, char **argv)
{
    MPI_Datatype it_t, cols;
    int next, prev;
    int sz_items = 0, sz_cols = 0, sz_ints = 0, total = 0, pos = 0, c;
    item items[N_ITEMS], items_in[N_ITEMS];
    int matrix[6][5], matrix_in[6][5], ints[N_INTS], ints_in[N_INTS];
    unsigned char *packed, *packed_in;
    MPI_Status st;
    int i, j;

    pt_init(&argc, &argv, "dt_pack");
    pt_require_size(2);
    next = (pt_rank + 1) % pt_size;
    prev = (pt_rank + pt_size - 1) % pt_size;
    it_t = item_type();
    /* Column 1 and 3 of a 6x5 matrix of ints: vector(6, 1, 5) twice via hvector. */
    {
        MPI_Datatype col;
        CK(MPI_Type_vector(6, 1, 5, MPI_INT, &col));
        CK(MPI_Type_hvector(2, 1, 2 * sizeof(int), col, &cols));
        CK(MPI_Type_commit(&cols));
        CK(MPI_Type_free(&col));
    }

    pt_set_phase("pack_size");
    CK(MPI_Pack_size(N_ITEMS, it_t, MPI_COMM_WORLD, &sz_items));
    CK(MPI_Pack_size(1, cols, MPI_COMM_WORLD, &sz_cols));
    CK(MPI_Pack_size(N_INTS, MPI_INT, MPI_COMM_WORLD, &sz_ints));
    EXPECT(sz_items >= N_ITEMS * 13, "Pack_size of %d items is %d", N_ITEMS, sz_items);
    EXPECT(sz_cols >= 12 * 4, "Pack_size of two columns is %d", sz_cols);
    EXPECT(sz_ints >= N_INTS * 4, "Pack_size of %d ints is %d", N_INTS, sz_ints);
    total = sz_items + sz_cols + sz_ints;
    packed = pt_malloc((size_t)total);
    packed_in = pt_malloc((size_t)total);

    /* Pack three different things one after the other. */
    pt_set_phase("pack");
    items_fill(items, N_ITEMS, pt_rank + 1);
    for (i = 0; i < 6; i++)
        for (j = 0; j < 5; j++) matrix[i][j] = (pt_rank + 1) * 100 + i * 10 + j;
    for (i = 0; i < N_INTS; i++) ints[i] = (pt_rank + 1) * -7 + i;
    CK(MPI_Pack(items, N_ITEMS, it_t, packed, total, &pos, MPI_COMM_WORLD));
    EXPECT(pos == N_ITEMS * 13, "position after packing items is %d, expected %d", pos, N_ITEMS * 13);
    CK(MPI_Pack(matrix, 1, cols, packed, total, &pos, MPI_COMM_WORLD));
    CK(MPI_Pack(ints, N_INTS, MPI_INT, packed, total, &pos, MPI_COMM_WORLD));
    EXPECT(pos <= total, "position %d beyond the Pack_size total %d", pos, total);
    /* The columns were packed column by column, in typemap order. */
    for (i = 0; i < 6; i++) {
        int v0, v1;
        memcpy(&v0, packed + N_ITEMS * 13 + 4 * i, 4);
        memcpy(&v1, packed + N_ITEMS * 13 + 24 + 4 * i, 4);
        EXPECT(v0 == matrix[i][0] && v1 == matrix[i][2], "packed column entry %d is %d/%d", i, v0, v1);
    }

    /* Round trip locally. */
    pt_set_phase("unpack locally");
    {
        int back = 0;
        memset(items_in, 0, sizeof items_in);
        memset(matrix_in, 0xFF, sizeof matrix_in);
        memset(ints_in, 0, sizeof ints_in);
        CK(MPI_Unpack(packed, total, &back, items_in, N_ITEMS, it_t, MPI_COMM_WORLD));
        CK(MPI_Unpack(packed, total, &back, matrix_in, 1, cols, MPI_COMM_WORLD));
        CK(MPI_Unpack(packed, total, &back, ints_in, N_INTS, MPI_INT, MPI_COMM_WORLD));
        EXPECT(back == pos, "unpacking ended at %d, packing at %d", back, pos);
        items_check(items_in, N_ITEMS, pt_rank + 1, "local round trip");
        for (i = 0; i < 6; i++)
            for (j = 0; j < 5; j++) {
                int want = (j == 0 || j == 2) ? matrix[i][j] : -1;
                EXPECT(matrix_in[i][j] == want, "local round trip: matrix[%d][%d] is %d, expected %d", i, j,
                       matrix_in[i][j], want);
            }
        EXPECT(memcmp(ints, ints_in, sizeof ints) == 0, "local round trip: ints differ");
    }

    /* Packed -> typed: the packed items go as MPI_PACKED, arrive as items. */
    pt_set_phase("packed to typed");
    memset(items_in, 0, sizeof items_in);
    CK(MPI_Sendrecv(packed, N_ITEMS * 13, MPI_PACKED, next, 1, items_in, N_ITEMS, it_t, prev, 1, MPI_COMM_WORLD, &st));
    c = pt_count(&st, it_t);
    EXPECT(c == N_ITEMS, "packed to typed: Get_count %d", c);
    items_check(items_in, N_ITEMS, prev + 1, "packed to typed");

    /* Typed -> packed: columns arrive as MPI_PACKED and are unpacked. */
    pt_set_phase("typed to packed");
    memset(packed_in, 0, (size_t)total);
    CK(MPI_Sendrecv(matrix, 1, cols, next, 2, packed_in, total, MPI_PACKED, prev, 2, MPI_COMM_WORLD, &st));
    c = pt_count(&st, MPI_PACKED);
    EXPECT(c == 48, "typed to packed: %d bytes arrived, expected 48", c);
    {
        int back = 0;
        memset(matrix_in, 0xFF, sizeof matrix_in);
        CK(MPI_Unpack(packed_in, c, &back, matrix_in, 1, cols, MPI_COMM_WORLD));
        EXPECT(back == 48, "unpack position %d", back);
        for (i = 0; i < 6; i++) {
            EXPECT(matrix_in[i][0] == (prev + 1) * 100 + i * 10 && matrix_in[i][2] == (prev + 1) * 100 + i * 10 + 2 &&
                       matrix_in[i][1] == -1,
                   "typed to packed: row %d is %d %d %d", i, matrix_in[i][0], matrix_in[i][1], matrix_in[i][2]);
        }
    }

    /* The whole mixed buffer as one MPI_PACKED message, unpacked piecewise. */
    pt_set_phase("whole packed buffer");
    CK(MPI_Sendrecv(packed, pos, MPI_PACKED, next, 3, packed_in, total, MPI_PACKED, prev, 3, MPI_COMM_WORLD, &st));
    {
        int back = 0;
        CK(MPI_Unpack(packed_in, pos, &back, items_in, N_ITEMS, it_t, MPI_COMM_WORLD));
        CK(MPI_Unpack(packed_in, pos, &back, matrix_in, 1, cols, MPI_COMM_WORLD));
        CK(MPI_Unpack(packed_in, pos, &back, ints_in, N_INTS, MPI_INT, MPI_COMM_WORLD));
        items_check(items_in, N_ITEMS, prev + 1, "whole packed buffer");
        for (i = 0; i < N_INTS; i++) {
            EXPECT(ints_in[i] == (prev + 1) * -7 + i, "whole packed buffer: int %d is %d", i, ints_in[i]);
        }
    }

    /* Too little room: MPI_ERR_TRUNCATE, position unchanged. */
    pt_set_phase("truncate");
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    {
        int p2 = 5;
        DT_EXPECT_CLASS(MPI_Pack(items, N_ITEMS, it_t, packed, 5 + N_ITEMS * 13 - 1, &p2, MPI_COMM_WORLD),
                        MPI_ERR_TRUNCATE);
        EXPECT(p2 == 5, "a failed MPI_Pack moved the position to %d", p2);
        p2 = 0;
        DT_EXPECT_CLASS(MPI_Unpack(packed, N_ITEMS * 13 - 1, &p2, items_in, N_ITEMS, it_t, MPI_COMM_WORLD),
                        MPI_ERR_TRUNCATE);
        EXPECT(p2 == 0, "a failed MPI_Unpack moved the position to %d", p2);
    }
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    CK(MPI_Type_free(&it_t));
    CK(MPI_Type_free(&cols));
    free(packed);
    free(packed_in);
    return pt_finish();
}
