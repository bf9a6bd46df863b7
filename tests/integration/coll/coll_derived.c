/* Collectives on derived datatypes: non-contiguous send and receive types
 * (gaps must stay untouched), different type maps with the same signature on
 * the two sides, a predefined operation on a type built from one basic type,
 * and user operations on types whose data does not start at the buffer
 * address (MPI_LB/MPI_UB markers) or mixes basic types. */
#include "coll_common.h"

#define N 6

/* A pair with a gap: { int key; (pad) double weight; } as a struct type. */
typedef struct {
    int key;
    double weight;
} item;

/* User op on `item`: keeps the larger key, sums the weights. */
static void item_combine(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    item *a = in, *b = inout;
    int i;
    (void)dt;
    for (i = 0; i < *len; ++i) {
        if (a[i].key > b[i].key) b[i].key = a[i].key;
        b[i].weight += a[i].weight;
    }
}

/* User op on the two ints stored 8 bytes into a 16-byte element (see
 * shifted_t): (p, d) stands for a string of digits d with p = 10^length, and
 * the op concatenates: associative but not commutative, so the result spells
 * the operands in the order they were combined. */
static void shifted_op(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    char *a = in, *b = inout;
    int i;
    (void)dt;
    for (i = 0; i < *len; ++i) {
        int x[2], y[2];
        memcpy(x, a + 16 * i + 8, sizeof x);
        memcpy(y, b + 16 * i + 8, sizeof y);
        y[1] = x[1] * y[0] + y[1];
        y[0] = x[0] * y[0];
        memcpy(b + 16 * i + 8, y, sizeof y);
    }
}

/* Gather and alltoall from pairs into a strided type whose gaps must stay untouched. */
static void gather_strided(int rank, int size, MPI_Datatype pair_t)
{
    int i, r;
    int send[2] = {rank * 2, rank * 2 + 1};
    int *recv = pt_malloc(sizeof(int) * 4 * (size_t)size);
    MPI_Datatype strided2;
    /* two ints with a one-int gap after each, extent 4 ints */
    CK(MPI_Type_vector(2, 1, 2, MPI_INT, &strided2));
    {
        MPI_Datatype t;
        int bl[2] = {1, 1};
        MPI_Aint disp[2] = {0, 4 * (MPI_Aint)sizeof(int)};
        MPI_Datatype types[2] = {strided2, MPI_UB};
        CK(MPI_Type_struct(2, bl, disp, types, &t));
        CK(MPI_Type_free(&strided2));
        strided2 = t;
    }
    CK(MPI_Type_commit(&strided2));
    for (i = 0; i < 4 * size; ++i) recv[i] = -3;
    CK(MPI_Gather(send, 1, pair_t, recv, 1, strided2, 0, MPI_COMM_WORLD));
    if (rank == 0) {
        for (r = 0; r < size; ++r) {
            EXPECT(recv[4 * r] == 2 * r && recv[4 * r + 2] == 2 * r + 1, "gathered from %d: %d %d", r, recv[4 * r],
                   recv[4 * r + 2]);
            EXPECT(recv[4 * r + 1] == -3 && recv[4 * r + 3] == -3, "gap of block %d was written", r);
        }
    }
    pt_set_phase("alltoall with a strided receive type");
    {
        int *out = pt_malloc(sizeof(int) * 2 * (size_t)size);
        for (i = 0; i < 2 * size; ++i) out[i] = 1000 * rank + i;
        for (i = 0; i < 4 * size; ++i) recv[i] = -3;
        CK(MPI_Alltoall(out, 1, pair_t, recv, 1, strided2, MPI_COMM_WORLD));
        for (r = 0; r < size; ++r) {
            EXPECT(recv[4 * r] == 1000 * r + 2 * rank && recv[4 * r + 2] == 1000 * r + 2 * rank + 1,
                   "alltoall block from %d: %d %d", r, recv[4 * r], recv[4 * r + 2]);
            EXPECT(recv[4 * r + 1] == -3 && recv[4 * r + 3] == -3, "alltoall gap of block %d", r);
        }
        free(out);
    }
    CK(MPI_Type_free(&strided2));
    free(recv);
}

/* A predefined operation on a type built from one basic type. */
static void predefined_op(int rank, int size, MPI_Datatype quad)
{
    int i;
    int in[8], out[8];
    for (i = 0; i < 8; ++i) in[i] = rank + i;
    CK(MPI_Allreduce(in, out, 2, quad, MPI_SUM, MPI_COMM_WORLD));
    for (i = 0; i < 8; ++i) EXPECT(out[i] == size * (size - 1) / 2 + size * i, "quad sum[%d] = %d", i, out[i]);
}

/* Reduce and broadcast a type whose data starts 8 bytes after the buffer address. */
static void contiguous_at8(int rank, int size)
{
    int i;
    /* one int at displacement 8: lb 8, extent 4 = size, so count elements
     * are one dense block, but at buf + 8 */
    MPI_Datatype at8;
    int bl = 1;
    MPI_Aint disp = 8;
    MPI_Datatype t = MPI_INT;
    int in[5], out[5];
    CK(MPI_Type_struct(1, &bl, &disp, &t, &at8));
    CK(MPI_Type_commit(&at8));
    for (i = 0; i < 5; ++i) {
        in[i] = i < 2 ? -9 : rank + i;
        out[i] = -9;
    }
    CK(MPI_Allreduce(in, out, 3, at8, MPI_SUM, MPI_COMM_WORLD));
    for (i = 0; i < 5; ++i) {
        int want = i < 2 ? -9 : size * (size - 1) / 2 + size * i;
        EXPECT(out[i] == want, "allreduce at +8: out[%d] = %d, want %d", i, out[i], want);
    }
    for (i = 0; i < 5; ++i) out[i] = rank == 0 ? 40 + i : -9;
    CK(MPI_Bcast(out, 3, at8, 0, MPI_COMM_WORLD));
    for (i = 0; i < 5; ++i) {
        int want = i < 2 ? (rank == 0 ? 40 + i : -9) : 40 + i;
        EXPECT(out[i] == want, "bcast at +8: out[%d] = %d, want %d", i, out[i], want);
    }
    CK(MPI_Type_free(&at8));
}

/* A user operation on a struct type with a gap. */
static void user_op_gap(int rank, int size, MPI_Datatype item_t)
{
    int i, r;
    item in[3], out[3];
    MPI_Op op;
    CK(MPI_Op_create(item_combine, 1, &op));
    for (i = 0; i < 3; ++i) {
        in[i].key = (rank * 7 + i) % size;
        in[i].weight = 0.5 * rank;
        out[i].key = -1;
        out[i].weight = -1;
    }
    CK(MPI_Allreduce(in, out, 3, item_t, op, MPI_COMM_WORLD));
    for (i = 0; i < 3; ++i) {
        int maxkey = 0;
        for (r = 0; r < size; ++r) {
            int k = (r * 7 + i) % size;
            if (k > maxkey) maxkey = k;
        }
        EXPECT(out[i].key == maxkey, "item %d key %d, want %d", i, out[i].key, maxkey);
        EXPECT(out[i].weight == 0.25 * size * (size - 1), "item %d weight %g", i, out[i].weight);
    }
    CK(MPI_Op_free(&op));
}

/* A non-commutative user operation on data 8 bytes into each element. */
static void user_op_shifted(int rank, int size, MPI_Datatype shifted_t)
{
    int i, r;
    char in[2 * 16], out[2 * 16];
    MPI_Op op;
    int v, want;
    CK(MPI_Op_create(shifted_op, 0, &op));
    memset(in, 0x55, sizeof in);
    memset(out, 0x66, sizeof out);
    for (i = 0; i < 2; ++i) {
        int pd[2];
        pd[0] = 10;
        pd[1] = (rank + i) % 10;
        memcpy(in + 16 * i + 8, pd, sizeof pd);
    }
    CK(MPI_Reduce(in, out, 2, shifted_t, op, 0, MPI_COMM_WORLD));
    if (rank == 0 && size <= 8) {
        for (i = 0; i < 2; ++i) {
            /* a0 op a1 op ... op a(p-1): the digits in rank order, a0 first */
            want = 0;
            for (r = 0; r < size; ++r) want = want * 10 + (r + i) % 10;
            memcpy(&v, out + 16 * i + 12, sizeof v);
            EXPECT(v == want, "element %d: %d, want %d", i, v, want);
            EXPECT((unsigned char)out[16 * i] == 0x66 && (unsigned char)out[16 * i + 7] == 0x66,
                   "bytes outside the data of element %d were written", i);
        }
    }
    CK(MPI_Scan(in, out, 2, shifted_t, op, MPI_COMM_WORLD));
    for (i = 0; i < 2; ++i) {
        want = 0;
        for (r = 0; r <= rank; ++r) want = want * 10 + (r + i) % 10;
        memcpy(&v, out + 16 * i + 12, sizeof v);
        EXPECT(v == want, "scan element %d: %d, want %d", i, v, want);
    }
    CK(MPI_Op_free(&op));
}

/* Broadcast of a strided type: the gaps keep what each rank had. */
static void bcast_strided(int rank, int size, MPI_Datatype every_other)
{
    int i, r;
    for (r = 0; r < size; ++r) {
        int buf[2 * N];
        for (i = 0; i < 2 * N; ++i) buf[i] = rank == r ? (i % 2 == 0 ? 100 * r + i : -1) : -7;
        CK(MPI_Bcast(buf, 1, every_other, r, MPI_COMM_WORLD));
        for (i = 0; i < 2 * N; ++i) {
            int want = i % 2 == 0 ? 100 * r + i : (rank == r ? -1 : -7);
            EXPECT(buf[i] == want, "root %d: buf[%d] = %d, want %d", r, i, buf[i], want);
        }
    }
}

/* The struct type of `item`. */
static MPI_Datatype item_type(void)
{
    MPI_Datatype item_t;
    int bl[2] = {1, 1};
    MPI_Aint disp[2];
    MPI_Datatype types[2] = {MPI_INT, MPI_DOUBLE};
    item probe = {0, 0.0};  /* only its addresses are read; initialized so that no build warns */
    MPI_Aint base;
    CK(MPI_Address(&probe, &base));
    CK(MPI_Address(&probe.key, &disp[0]));
    CK(MPI_Address(&probe.weight, &disp[1]));
    disp[0] -= base;
    disp[1] -= base;
    CK(MPI_Type_struct(2, bl, disp, types, &item_t));
    CK(MPI_Type_commit(&item_t));
    return item_t;
}

/* The element type of the non-commutative user op. */
static MPI_Datatype shifted_type(void)
{
    MPI_Datatype shifted_t;
    /* two ints at byte 8 of a 16-byte element: lb 0 (marker), true lb 8 */
    int bl[3] = {1, 2, 1};
    MPI_Aint disp[3] = {0, 8, 16};
    MPI_Datatype types[3] = {MPI_LB, MPI_INT, MPI_UB};
    MPI_Aint ext;
    CK(MPI_Type_struct(3, bl, disp, types, &shifted_t));
    CK(MPI_Type_commit(&shifted_t));
    CK(MPI_Type_extent(shifted_t, &ext));
    EXPECT(ext == 16, "shifted type extent %ld", (long)ext);
    return shifted_t;
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "coll_derived");
    int size = pt_size;
    MPI_Datatype every_other, pair_t, item_t, shifted_t, quad;

    CK(MPI_Type_vector(N, 1, 2, MPI_INT, &every_other));
    CK(MPI_Type_commit(&every_other));
    CK(MPI_Type_contiguous(2, MPI_INT, &pair_t));
    CK(MPI_Type_commit(&pair_t));
    CK(MPI_Type_contiguous(4, MPI_INT, &quad));
    CK(MPI_Type_commit(&quad));
    item_t = item_type();
    shifted_t = shifted_type();

    pt_set_phase("bcast of a strided type");
    bcast_strided(rank, size, every_other);

    pt_set_phase("gather: pairs in, strided out");
    gather_strided(rank, size, pair_t);

    pt_set_phase("predefined op on a type of one basic type");
    predefined_op(rank, size, quad);

    pt_set_phase("contiguous data that starts 8 bytes after the buffer address");
    contiguous_at8(rank, size);

    pt_set_phase("user op on a struct with a gap");
    user_op_gap(rank, size, item_t);

    pt_set_phase("non-commutative user op on data 8 bytes into each element");
    user_op_shifted(rank, size, shifted_t);

    CK(MPI_Type_free(&every_other));
    CK(MPI_Type_free(&pair_t));
    CK(MPI_Type_free(&quad));
    CK(MPI_Type_free(&item_t));
    CK(MPI_Type_free(&shifted_t));
    return pt_finish();
}
