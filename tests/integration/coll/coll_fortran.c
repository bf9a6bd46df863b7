/* The Fortran basic types as C sees them (MPI_INTEGER, MPI_REAL,
 * MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_DOUBLE_COMPLEX, MPI_LOGICAL,
 * MPI_CHARACTER and the pair types MPI_2INTEGER, MPI_2REAL,
 * MPI_2DOUBLE_PRECISION), laid out as gfortran does on x86-64: their sizes,
 * bounds and names; point-to-point alone, inside a vector and inside a
 * struct, with MPI_Get_count/MPI_Get_elements and MPI_Pack/MPI_Unpack; every
 * data collective; every predefined reduction MPI-1 4.9.2 allows on them
 * through MPI_Reduce (every root), MPI_Allreduce, MPI_Reduce_scatter and
 * MPI_Scan, checked exactly against a fold computed here in rank order; and
 * MPI_ERR_OP for every other (operation, type) pair. */
#include "coll_common.h"

#include <limits.h>

/* The C type of one component of an element. */
enum { K_INT, K_FLOAT, K_DOUBLE, K_CHAR };
/* MPI-1 4.9.2's categories (the pair types are MAXLOC/MINLOC's). */
enum { CAT_INTEGER, CAT_FLOAT, CAT_LOGICAL, CAT_COMPLEX, CAT_PAIR, CAT_CHARACTER };

typedef struct {
    MPI_Datatype type;
    const char *name;
    int kind;
    int parts;    /* components per element: real and imaginary part, or value and index */
    int category;
    int size;     /* bytes of one element, also its extent */
    int elements; /* MPI_Get_elements of one element: a pair is two */
} ftype;

static const ftype types[] = {
    {MPI_INTEGER, "MPI_INTEGER", K_INT, 1, CAT_INTEGER, (int)sizeof(int), 1},
    {MPI_REAL, "MPI_REAL", K_FLOAT, 1, CAT_FLOAT, (int)sizeof(float), 1},
    {MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION", K_DOUBLE, 1, CAT_FLOAT, (int)sizeof(double), 1},
    {MPI_COMPLEX, "MPI_COMPLEX", K_FLOAT, 2, CAT_COMPLEX, 2 * (int)sizeof(float), 1},
    {MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX", K_DOUBLE, 2, CAT_COMPLEX, 2 * (int)sizeof(double), 1},
    {MPI_LOGICAL, "MPI_LOGICAL", K_INT, 1, CAT_LOGICAL, (int)sizeof(int), 1},
    {MPI_CHARACTER, "MPI_CHARACTER", K_CHAR, 1, CAT_CHARACTER, 1, 1},
    {MPI_2INTEGER, "MPI_2INTEGER", K_INT, 2, CAT_PAIR, 2 * (int)sizeof(int), 2},
    {MPI_2REAL, "MPI_2REAL", K_FLOAT, 2, CAT_PAIR, 2 * (int)sizeof(float), 2},
    {MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", K_DOUBLE, 2, CAT_PAIR, 2 * (int)sizeof(double), 2},
};
#define NTYPES ((int)(sizeof types / sizeof types[0]))

enum { O_MAX, O_MIN, O_SUM, O_PROD, O_LAND, O_LOR, O_LXOR, O_BAND, O_BOR, O_BXOR, O_MAXLOC, O_MINLOC, NOPS };
static const char *op_names[NOPS] = {"MAX", "MIN", "SUM", "PROD", "LAND", "LOR",
                                     "LXOR", "BAND", "BOR", "BXOR", "MAXLOC", "MINLOC"};
static MPI_Op op_handle(int o)
{
    static const MPI_Op h[NOPS] = {MPI_MAX, MPI_MIN, MPI_SUM, MPI_PROD, MPI_LAND, MPI_LOR,
                                   MPI_LXOR, MPI_BAND, MPI_BOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC};
    return h[o];
}

/* MPI-1 4.9.2's table for the Fortran categories. */
static int op_allowed(int category, int o)
{
    switch (category) {
    case CAT_INTEGER: return o == O_MAX || o == O_MIN || o == O_SUM || o == O_PROD || o == O_BAND || o == O_BOR ||
                             o == O_BXOR;
    case CAT_FLOAT: return o == O_MAX || o == O_MIN || o == O_SUM || o == O_PROD;
    case CAT_LOGICAL: return o == O_LAND || o == O_LOR || o == O_LXOR;
    case CAT_COMPLEX: return o == O_SUM || o == O_PROD;
    case CAT_PAIR: return o == O_MAXLOC || o == O_MINLOC;
    default: return 0;
    }
}

/* ------------------------------------------------------------------------ */
/* Element access                                                            */

static unsigned char *component(const ftype *t, const void *base, int e, int part)
{
    size_t width = t->kind == K_INT ? sizeof(int) : t->kind == K_FLOAT ? sizeof(float)
                 : t->kind == K_DOUBLE ? sizeof(double) : 1;
    return (unsigned char *)base + (size_t)e * (size_t)t->size + (size_t)part * width;
}

static void put(const ftype *t, void *base, int e, int part, long long v)
{
    unsigned char *p = component(t, base, e, part);
    if (t->kind == K_INT) {
        int x = (int)v;
        memcpy(p, &x, sizeof x);
    } else if (t->kind == K_FLOAT) {
        float x = (float)v;
        memcpy(p, &x, sizeof x);
    } else if (t->kind == K_DOUBLE) {
        double x = (double)v;
        memcpy(p, &x, sizeof x);
    } else {
        *p = (unsigned char)v;
    }
}

static double get(const ftype *t, const void *base, int e, int part)
{
    const unsigned char *p = component(t, base, e, part);
    if (t->kind == K_INT) {
        int x;
        memcpy(&x, p, sizeof x);
        return x;
    }
    if (t->kind == K_FLOAT) {
        float x;
        memcpy(&x, p, sizeof x);
        return x;
    }
    if (t->kind == K_DOUBLE) {
        double x;
        memcpy(&x, p, sizeof x);
        return x;
    }
    return *p;
}

/* ------------------------------------------------------------------------ */
/* Sizes, bounds, names                                                      */

static void check_properties(void)
{
    int i, j;
    for (i = 0; i < NTYPES; i++) {
        const ftype *t = &types[i];
        char name[MPI_MAX_OBJECT_NAME];
        int size = -1, len = -1;
        MPI_Aint extent = -1, lb = -1, ub = -1, tlb = -1, textent = -1;
        CK(MPI_Type_size(t->type, &size));
        CK(MPI_Type_extent(t->type, &extent));
        CK(MPI_Type_lb(t->type, &lb));
        CK(MPI_Type_ub(t->type, &ub));
        CK(MPI_Type_get_true_extent(t->type, &tlb, &textent));
        EXPECT(size == t->size, "%s: MPI_Type_size %d, expected %d", t->name, size, t->size);
        EXPECT(extent == t->size && lb == 0 && ub == t->size && tlb == 0 && textent == t->size,
               "%s: extent %ld, lb %ld, ub %ld, true lb %ld, true extent %ld; expected %d, 0, %d, 0, %d", t->name,
               (long)extent, (long)lb, (long)ub, (long)tlb, (long)textent, t->size, t->size, t->size);
        CK(MPI_Type_get_name(t->type, name, &len));
        EXPECT(strcmp(name, t->name) == 0 && len == (int)strlen(t->name), "%s is named '%s' (length %d)", t->name,
               name, len);
        /* Distinct handles: not an alias of another Fortran type, nor of a C type. */
        for (j = 0; j < i; j++) {
            EXPECT(types[j].type != t->type, "%s and %s are the same handle", types[j].name, t->name);
        }
        {
            const MPI_Datatype c_types[] = {MPI_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_UNSIGNED_CHAR, MPI_UNSIGNED,
                                            MPI_FLOAT, MPI_DOUBLE, MPI_BYTE, MPI_PACKED, MPI_2INT, MPI_FLOAT_INT,
                                            MPI_DOUBLE_INT, MPI_LONG_LONG_INT, MPI_SIGNED_CHAR,
                                            MPI_UNSIGNED_LONG_LONG, MPI_WCHAR};
            for (j = 0; j < (int)(sizeof c_types / sizeof c_types[0]); j++) {
                EXPECT(c_types[j] != t->type, "%s is the handle of a C type", t->name);
            }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Point-to-point                                                            */

#define P2P_N 37
#define SLACK 5

static int right(void) { return (pt_rank + 1) % pt_size; }
static int left(void) { return (pt_rank + pt_size - 1) % pt_size; }

/* Each type alone: MPI_Sendrecv of P2P_N elements into room for more. */
static void p2p_basic(int ti)
{
    const ftype *t = &types[ti];
    const size_t bytes = (size_t)P2P_N * (size_t)t->size;
    unsigned char *s = pt_malloc(bytes);
    unsigned char *r = coll_sentinel_alloc((size_t)(P2P_N + SLACK) * (size_t)t->size);
    MPI_Status st;
    int count = -1, elements = -1;
    pt_fill(s, bytes, pt_seed(pt_rank, right(), 10, ti));
    CK(MPI_Sendrecv(s, P2P_N, t->type, right(), 10, r, P2P_N + SLACK, t->type, left(), 10, MPI_COMM_WORLD, &st));
    pt_verify(r, bytes, pt_seed(left(), pt_rank, 10, ti), t->name);
    coll_check_tail(r, bytes, "MPI_Sendrecv: after the message");
    CK(MPI_Get_count(&st, t->type, &count));
    CK(MPI_Get_elements(&st, t->type, &elements));
    EXPECT(count == P2P_N, "%s: MPI_Get_count %d, expected %d", t->name, count, P2P_N);
    EXPECT(elements == P2P_N * t->elements, "%s: MPI_Get_elements %d, expected %d", t->name, elements,
           P2P_N * t->elements);
    free(s);
    free(r);
}

/* A vector of the type: 4 blocks of 2, stride 3. Sent as two vectors,
 * received once as two vectors (the gaps stay untouched) and once as 16
 * plain elements. */
static void p2p_vector(int ti)
{
    const ftype *t = &types[ti];
    const size_t ext = (size_t)t->size, span = 2 * 11 * ext;
    unsigned char *s = pt_malloc(span), *expect = pt_malloc(span);
    unsigned char *r = coll_sentinel_alloc(span), *dense = coll_sentinel_alloc(16 * ext);
    MPI_Datatype vec;
    MPI_Request req[2];
    MPI_Status st[2];
    int size = -1, count = -1, elements = -1, v, b, k, at = 0;
    MPI_Aint extent = -1;
    CK(MPI_Type_vector(4, 2, 3, t->type, &vec));
    CK(MPI_Type_commit(&vec));
    CK(MPI_Type_size(vec, &size));
    CK(MPI_Type_extent(vec, &extent));
    EXPECT(size == 8 * t->size && extent == (MPI_Aint)(11 * ext), "vector of %s: size %d, extent %ld", t->name, size,
           (long)extent);

    pt_fill(s, span, pt_seed(pt_rank, right(), 11, ti));
    CK(MPI_Irecv(r, 2, vec, left(), 11, MPI_COMM_WORLD, &req[0]));
    CK(MPI_Isend(s, 2, vec, right(), 11, MPI_COMM_WORLD, &req[1]));
    CK(MPI_Waitall(2, req, st));
    CK(MPI_Get_count(&st[0], vec, &count));
    CK(MPI_Get_elements(&st[0], vec, &elements));
    EXPECT(count == 2 && elements == 16 * t->elements, "vector of %s: count %d, elements %d", t->name, count,
           elements);
    CK(MPI_Get_count(&st[0], t->type, &count));
    EXPECT(count == 16, "vector of %s: MPI_Get_count in the basic type %d, expected 16", t->name, count);
    /* The sender's blocks, and the sentinel in every gap. */
    pt_fill(expect, span, pt_seed(left(), pt_rank, 11, ti));
    for (v = 0; v < 2; v++) {
        for (b = 0; b < 11; b++) {
            const size_t off = (size_t)(v * 11 + b) * ext;
            const int inside = b % 3 < 2;
            for (k = 0; k < (int)ext; k++) {
                EXPECT(r[off + (size_t)k] == (inside ? expect[off + (size_t)k] : COLL_SENTINEL),
                       "vector of %s: byte %d of element %d of vector %d is 0x%02x", t->name, k, b, v,
                       r[off + (size_t)k]);
            }
        }
    }
    coll_check_tail(r, span, "vector receive: after the buffer");

    /* The same message received as plain elements. */
    CK(MPI_Irecv(dense, 16, t->type, left(), 12, MPI_COMM_WORLD, &req[0]));
    CK(MPI_Send(s, 2, vec, right(), 12, MPI_COMM_WORLD));
    CK(MPI_Wait(&req[0], &st[0]));
    for (v = 0; v < 2; v++) {
        for (b = 0; b < 11; b++) {
            if (b % 3 == 2) continue;
            EXPECT(memcmp(dense + (size_t)at * ext, expect + (size_t)(v * 11 + b) * ext, ext) == 0,
                   "vector of %s received as %d elements: element %d differs", t->name, 16, at);
            at++;
        }
    }
    coll_check_tail(dense, 16 * ext, "vector received dense: after the buffer");
    CK(MPI_Type_free(&vec));
    free(s);
    free(expect);
    free(r);
    free(dense);
}

/* A record holding every Fortran type, as a C program declares it. */
typedef struct {
    int integer;
    double precision;
    float complexes[2][2];
    int logical;
    char character[5];
    float real;
    double double_complex[2];
    int integer2[2];
    float real2[2];
    double precision2[2];
} record;
#define RECORDS 3
#define RECORD_SIZE (4 + 8 + 16 + 4 + 5 + 4 + 16 + 8 + 8 + 16)
#define RECORD_ELEMENTS (1 + 1 + 2 + 1 + 5 + 1 + 1 + 2 + 2 + 2)

static MPI_Datatype record_type(void)
{
    int lengths[10] = {1, 1, 2, 1, 5, 1, 1, 1, 1, 1};
    MPI_Aint displacements[10] = {offsetof(record, integer),   offsetof(record, precision),
                                  offsetof(record, complexes), offsetof(record, logical),
                                  offsetof(record, character), offsetof(record, real),
                                  offsetof(record, double_complex), offsetof(record, integer2),
                                  offsetof(record, real2),     offsetof(record, precision2)};
    MPI_Datatype members[10] = {MPI_INTEGER, MPI_DOUBLE_PRECISION, MPI_COMPLEX, MPI_LOGICAL, MPI_CHARACTER,
                                MPI_REAL,    MPI_DOUBLE_COMPLEX,   MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION};
    MPI_Datatype t;
    int size = -1;
    MPI_Aint extent = -1;
    CK(MPI_Type_struct(10, lengths, displacements, members, &t));
    CK(MPI_Type_commit(&t));
    CK(MPI_Type_size(t, &size));
    CK(MPI_Type_extent(t, &extent));
    /* The struct rule pads the extent to the strictest alignment inside, as C does. */
    EXPECT(size == RECORD_SIZE && extent == (MPI_Aint)sizeof(record), "record: size %d, extent %ld; expected %d, %lu",
           size, (long)extent, RECORD_SIZE, (unsigned long)sizeof(record));
    return t;
}

/* Records as rank `from` fills them; padding holds the sentinel. */
static void records_fill(record *r, int from)
{
    int k, j;
    memset(r, COLL_SENTINEL, sizeof(record) * RECORDS);
    for (k = 0; k < RECORDS; k++) {
        const int base = 100 * from + 10 * k;
        r[k].integer = -base - 1;
        r[k].precision = base + 0.5;
        for (j = 0; j < 2; j++) {
            r[k].complexes[j][0] = (float)(base + j) + 0.25f;
            r[k].complexes[j][1] = -(float)(base + j);
        }
        r[k].logical = k % 2;
        memcpy(r[k].character, from % 2 ? "ABCDE" : "vwxyz", 5);
        r[k].character[k] = (char)('0' + from % 10);
        r[k].real = (float)base * 2.0f;
        r[k].double_complex[0] = base * 1e10;
        r[k].double_complex[1] = -0.125;
        r[k].integer2[0] = base;
        r[k].integer2[1] = k;
        r[k].real2[0] = (float)-base;
        r[k].real2[1] = (float)k;
        r[k].precision2[0] = base / 4.0;
        r[k].precision2[1] = k + 1;
    }
}

static void p2p_struct(void)
{
    MPI_Datatype t = record_type();
    record s[RECORDS], r[RECORDS], expect[RECORDS];
    MPI_Request req;
    MPI_Status st;
    int count = -1, elements = -1, pack_size = -1, position = 0, k;
    unsigned char *packed;

    records_fill(s, pt_rank);
    records_fill(expect, left());
    memset(r, COLL_SENTINEL, sizeof r);
    CK(MPI_Isend(s, RECORDS, t, right(), 13, MPI_COMM_WORLD, &req));
    CK(MPI_Recv(r, RECORDS, t, left(), 13, MPI_COMM_WORLD, &st));
    CK(MPI_Wait(&req, MPI_STATUS_IGNORE));
    for (k = 0; k < RECORDS; k++) {
        EXPECT(memcmp(&r[k], &expect[k], sizeof(record)) == 0, "record %d differs from what rank %d sent", k, left());
    }
    CK(MPI_Get_count(&st, t, &count));
    CK(MPI_Get_elements(&st, t, &elements));
    EXPECT(count == RECORDS && elements == RECORDS * RECORD_ELEMENTS, "records: count %d, elements %d (expected %d)",
           count, elements, RECORDS * RECORD_ELEMENTS);

    /* Packed here, sent as MPI_PACKED, unpacked by the neighbour. */
    CK(MPI_Pack_size(RECORDS, t, MPI_COMM_WORLD, &pack_size));
    EXPECT(pack_size >= RECORDS * RECORD_SIZE, "MPI_Pack_size %d for %d records", pack_size, RECORDS);
    packed = pt_malloc((size_t)pack_size);
    CK(MPI_Pack(s, RECORDS, t, packed, pack_size, &position, MPI_COMM_WORLD));
    EXPECT(position >= RECORDS * RECORD_SIZE && position <= pack_size, "MPI_Pack position %d", position);
    CK(MPI_Sendrecv_replace(packed, pack_size, MPI_PACKED, right(), 14, left(), 14, MPI_COMM_WORLD, &st));
    memset(r, COLL_SENTINEL, sizeof r);
    position = 0;
    CK(MPI_Unpack(packed, pack_size, &position, r, RECORDS, t, MPI_COMM_WORLD));
    for (k = 0; k < RECORDS; k++) {
        EXPECT(memcmp(&r[k], &expect[k], sizeof(record)) == 0, "unpacked record %d differs from rank %d's", k,
               left());
    }
    free(packed);

    /* Plain Fortran arrays packed one after the other. */
    {
        double z[6] = {1, -2, 3.5, -4.5, 1e300, -1e-300}, z2[6];
        char c[3] = {'f', '7', 'x'}, c2[3];
        int l[2] = {1, 0}, l2[2];
        unsigned char buf[256];
        position = 0;
        CK(MPI_Pack(z, 3, MPI_DOUBLE_COMPLEX, buf, (int)sizeof buf, &position, MPI_COMM_WORLD));
        CK(MPI_Pack(c, 3, MPI_CHARACTER, buf, (int)sizeof buf, &position, MPI_COMM_WORLD));
        CK(MPI_Pack(l, 2, MPI_LOGICAL, buf, (int)sizeof buf, &position, MPI_COMM_WORLD));
        EXPECT(position == 48 + 3 + 8, "packing 3 DOUBLE COMPLEX, 3 CHARACTER, 2 LOGICAL took %d bytes", position);
        position = 0;
        CK(MPI_Unpack(buf, (int)sizeof buf, &position, z2, 3, MPI_DOUBLE_COMPLEX, MPI_COMM_WORLD));
        CK(MPI_Unpack(buf, (int)sizeof buf, &position, c2, 3, MPI_CHARACTER, MPI_COMM_WORLD));
        CK(MPI_Unpack(buf, (int)sizeof buf, &position, l2, 2, MPI_LOGICAL, MPI_COMM_WORLD));
        EXPECT(memcmp(z, z2, sizeof z) == 0 && memcmp(c, c2, sizeof c) == 0 && memcmp(l, l2, sizeof l) == 0,
               "unpacked Fortran arrays differ");
    }
    CK(MPI_Type_free(&t));
}

/* ------------------------------------------------------------------------ */
/* Data collectives: bytes of rank r's block for rank d, tag naming the call */

static uint32_t block_seed(int r, int d, int call, int ti) { return pt_seed(r, d, call, ti); }

static void data_collectives(int ti)
{
    const ftype *t = &types[ti];
    const int n = pt_size, root = ti % n, me = pt_rank;
    const size_t e = (size_t)t->size;
    /* Up to 3 elements per (sender, receiver) plus a gap of one between
     * blocks, and room for MPI_Bcast's 5. */
    const size_t cap = (4 * (size_t)n + 4) * e;
    unsigned char *s = pt_malloc(cap), *r = coll_sentinel_alloc(cap);
    int *scounts = pt_malloc(sizeof(int) * (size_t)n), *sdispls = pt_malloc(sizeof(int) * (size_t)n);
    int *rcounts = pt_malloc(sizeof(int) * (size_t)n), *rdispls = pt_malloc(sizeof(int) * (size_t)n);
    int i;

    pt_set_phase("data collectives: MPI_Bcast");
    if (me == root) pt_fill(r, 5 * e, block_seed(root, 0, 1, ti));
    CK(MPI_Bcast(r, 5, t->type, root, MPI_COMM_WORLD));
    pt_verify(r, 5 * e, block_seed(root, 0, 1, ti), t->name);

    pt_set_phase("data collectives: MPI_Gather, MPI_Allgather");
    pt_fill(s, 3 * e, block_seed(me, 0, 2, ti));
    memset(r, COLL_SENTINEL, cap);
    CK(MPI_Gather(s, 3, t->type, r, 3, t->type, root, MPI_COMM_WORLD));
    if (me == root) {
        for (i = 0; i < n; i++) pt_verify(r + (size_t)i * 3 * e, 3 * e, block_seed(i, 0, 2, ti), t->name);
    }
    memset(r, COLL_SENTINEL, cap);
    CK(MPI_Allgather(s, 3, t->type, r, 3, t->type, MPI_COMM_WORLD));
    for (i = 0; i < n; i++) pt_verify(r + (size_t)i * 3 * e, 3 * e, block_seed(i, 0, 2, ti), t->name);
    coll_check_tail(r, 3 * e * (size_t)n, "MPI_Allgather: after the buffer");

    pt_set_phase("data collectives: MPI_Gatherv, MPI_Allgatherv");
    for (i = 0; i < n; i++) {
        rcounts[i] = i % 3 + 1;
        rdispls[i] = 4 * i + 1;
    }
    memset(r, COLL_SENTINEL, cap);
    CK(MPI_Gatherv(s, me % 3 + 1, t->type, r, rcounts, rdispls, t->type, root, MPI_COMM_WORLD));
    if (me == root) {
        for (i = 0; i < n; i++) {
            pt_verify(r + (size_t)rdispls[i] * e, (size_t)rcounts[i] * e, block_seed(i, 0, 2, ti), t->name);
            pt_verify_const(r + (size_t)i * 4 * e, e, COLL_SENTINEL, "MPI_Gatherv: the gap before a block");
        }
    }
    memset(r, COLL_SENTINEL, cap);
    CK(MPI_Allgatherv(s, me % 3 + 1, t->type, r, rcounts, rdispls, t->type, MPI_COMM_WORLD));
    /* The reference MPICH 4.0, on one process, puts the block at displacement 0. */
    for (i = 0; i < (PT_STRICT || n > 1 ? n : 0); i++) {
        pt_verify(r + (size_t)rdispls[i] * e, (size_t)rcounts[i] * e, block_seed(i, 0, 2, ti), t->name);
        pt_verify_const(r + (size_t)i * 4 * e, e, COLL_SENTINEL, "MPI_Allgatherv: the gap before a block");
    }

    pt_set_phase("data collectives: MPI_Scatter, MPI_Scatterv");
    if (me == root) {
        for (i = 0; i < n; i++) pt_fill(s + (size_t)i * 2 * e, 2 * e, block_seed(root, i, 3, ti));
    }
    memset(r, COLL_SENTINEL, cap);
    CK(MPI_Scatter(s, 2, t->type, r, 2, t->type, root, MPI_COMM_WORLD));
    pt_verify(r, 2 * e, block_seed(root, me, 3, ti), t->name);
    coll_check_tail(r, 2 * e, "MPI_Scatter: after my block");
    if (me == root) {
        for (i = 0; i < n; i++) pt_fill(s + (size_t)rdispls[i] * e, (size_t)rcounts[i] * e, block_seed(root, i, 4, ti));
    }
    memset(r, COLL_SENTINEL, cap);
    CK(MPI_Scatterv(s, rcounts, rdispls, t->type, r, me % 3 + 1, t->type, root, MPI_COMM_WORLD));
    pt_verify(r, (size_t)(me % 3 + 1) * e, block_seed(root, me, 4, ti), t->name);
    coll_check_tail(r, (size_t)(me % 3 + 1) * e, "MPI_Scatterv: after my block");

    pt_set_phase("data collectives: MPI_Alltoall, MPI_Alltoallv");
    for (i = 0; i < n; i++) pt_fill(s + (size_t)i * 2 * e, 2 * e, block_seed(me, i, 5, ti));
    memset(r, COLL_SENTINEL, cap);
    CK(MPI_Alltoall(s, 2, t->type, r, 2, t->type, MPI_COMM_WORLD));
    for (i = 0; i < n; i++) pt_verify(r + (size_t)i * 2 * e, 2 * e, block_seed(i, me, 5, ti), t->name);
    coll_check_tail(r, 2 * e * (size_t)n, "MPI_Alltoall: after the buffer");
    for (i = 0; i < n; i++) {
        scounts[i] = (me + i) % 3 + 1;
        sdispls[i] = 3 * i;
        pt_fill(s + (size_t)sdispls[i] * e, (size_t)scounts[i] * e, block_seed(me, i, 6, ti));
        rcounts[i] = (i + me) % 3 + 1;
        rdispls[i] = 4 * i + 1;
    }
    memset(r, COLL_SENTINEL, cap);
    CK(MPI_Alltoallv(s, scounts, sdispls, t->type, r, rcounts, rdispls, t->type, MPI_COMM_WORLD));
    for (i = 0; i < n; i++) {
        pt_verify(r + (size_t)rdispls[i] * e, (size_t)rcounts[i] * e, block_seed(i, me, 6, ti), t->name);
        pt_verify_const(r + (size_t)i * 4 * e, e, COLL_SENTINEL, "MPI_Alltoallv: the gap before a block");
    }
    free(s);
    free(r);
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
}

/* ------------------------------------------------------------------------ */
/* Reductions                                                                */

/* One element: a value, and the imaginary part of a complex or the index of
 * a pair. Every input is a small integer, so every result is exact in every
 * type and independent of the order the algorithm combines in. */
typedef struct {
    long long a, b;
} val;

static val gen(int category, int o, int r, int i)
{
    /* Logical true in many forms (gfortran writes 1, C and TRANSFER anything). */
    static const long long truths[5] = {2, -1, 1, 256, INT_MIN};
    /* Gaussian integers whose products stay small: 1, i, -1, -i, 1+i, 1-i, 2, -1+i. */
    static const long long units[8][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}, {1, 1}, {1, -1}, {2, 0}, {-1, 1}};
    val v = {0, 0};
    switch (o) {
    case O_MAX:
    case O_MIN:
        v.a = (r * 131 + i * 71) % 201 - 100;
        break;
    case O_SUM:
        v.a = (long long)(r + 1) * (i % 13 - 6);
        v.b = (long long)(r + 2) * (i % 7 - 3);
        break;
    case O_PROD:
        if (category == CAT_COMPLEX) {
            v.a = units[(r * 3 + i) % 8][0];
            v.b = units[(r * 3 + i) % 8][1];
        } else {
            v.a = (r + i) % 3 == 0 ? 2 : (r + i) % 5 == 0 ? -1 : 1;
        }
        break;
    case O_LAND:
    case O_LOR:
    case O_LXOR:
        /* Element 1 is true everywhere, element 0 false everywhere, the rest mixed. */
        v.a = i % (r + 2) != 0 ? truths[(r + i) % 5] : 0;
        break;
    case O_MAXLOC:
    case O_MINLOC:
        /* Ranks tie in twos (0 and 1, 2 and 3, ...) and more; indexes fall
         * with the rank, so the lowest is not simply rank 0's, and are
         * negative on the higher ranks (REAL indexes compared as the bits of
         * ints would order those backwards). */
        v.a = (r / 2 + i) % 3;
        v.b = 10 * (pt_size - r) + i - 40;
        break;
    default:
        v.a = (long long)(pt_mix((uint32_t)(i * 7919 + r * 104729)) & 0x7FFF);
        break;
    }
    return v;
}

static val combine(int category, int o, val x, val y)
{
    val z = x;
    switch (o) {
    case O_MAX: z.a = x.a > y.a ? x.a : y.a; break;
    case O_MIN: z.a = x.a < y.a ? x.a : y.a; break;
    case O_SUM:
        z.a = x.a + y.a;
        z.b = x.b + y.b;
        break;
    case O_PROD:
        if (category == CAT_COMPLEX) {
            z.a = x.a * y.a - x.b * y.b;
            z.b = x.a * y.b + x.b * y.a;
        } else {
            z.a = x.a * y.a;
        }
        break;
    case O_LAND: z.a = x.a != 0 && y.a != 0; break;
    case O_LOR: z.a = x.a != 0 || y.a != 0; break;
    case O_LXOR: z.a = (x.a != 0) != (y.a != 0); break;
    case O_BAND: z.a = x.a & y.a; break;
    case O_BOR: z.a = x.a | y.a; break;
    case O_BXOR: z.a = x.a ^ y.a; break;
    default: /* MAXLOC, MINLOC: ties keep the lower index */
        if (o == O_MAXLOC ? y.a > x.a : y.a < x.a) {
            z = y;
        } else if (y.a == x.a && y.b < x.b) {
            z.b = y.b;
        }
        break;
    }
    return z;
}

/* Element i folded over ranks 0..upto in rank order. */
static val expect_fold(int category, int o, int upto, int i)
{
    val acc = gen(category, o, 0, i);
    int r;
    for (r = 1; r <= upto; r++) acc = combine(category, o, acc, gen(category, o, r, i));
    return acc;
}

static void check_result(const ftype *t, int o, const void *out, int upto, int first, int n, const char *call,
                         int root)
{
    int i;
    for (i = 0; i < n; i++) {
        const val want = expect_fold(t->category, o, upto, first + i);
        const double a = get(t, out, i, 0), b = t->parts == 2 ? get(t, out, i, 1) : 0;
        EXPECT(a == (double)want.a && (t->parts == 1 || b == (double)want.b),
               "%s %s on %s (root %d): element %d is (%g, %g), expected (%lld, %lld)", call, op_names[o], t->name,
               root, first + i, a, b, want.a, t->parts == 2 ? want.b : 0);
    }
}

static void reduce_all(const ftype *t, int o, int count, int all_roots)
{
    const size_t e = (size_t)t->size, bytes = (size_t)count * e;
    unsigned char *in = pt_malloc(bytes), *out = coll_sentinel_alloc(bytes);
    int *counts = pt_malloc(sizeof(int) * (size_t)pt_size);
    int i, root, first = 0;
    for (i = 0; i < count; i++) {
        const val v = gen(t->category, o, pt_rank, i);
        put(t, in, i, 0, v.a);
        if (t->parts == 2) put(t, in, i, 1, v.b);
    }
    for (root = 0; root < pt_size; root++) {
        if (!all_roots && root != count % pt_size) continue;
        memset(out, COLL_SENTINEL, bytes);
        CK(MPI_Reduce(in, out, count, t->type, op_handle(o), root, MPI_COMM_WORLD));
        if (pt_rank == root) check_result(t, o, out, pt_size - 1, 0, count, "MPI_Reduce", root);
        coll_check_tail(out, bytes, "MPI_Reduce: after the buffer");
    }
    memset(out, COLL_SENTINEL, bytes);
    CK(MPI_Allreduce(in, out, count, t->type, op_handle(o), MPI_COMM_WORLD));
    check_result(t, o, out, pt_size - 1, 0, count, "MPI_Allreduce", -1);
    coll_check_tail(out, bytes, "MPI_Allreduce: after the buffer");
    memset(out, COLL_SENTINEL, bytes);
    CK(MPI_Scan(in, out, count, t->type, op_handle(o), MPI_COMM_WORLD));
    check_result(t, o, out, pt_rank, 0, count, "MPI_Scan", -1);
    coll_check_tail(out, bytes, "MPI_Scan: after the buffer");
    /* Uneven pieces: rank 0 takes rank 1's share too, rank 1 gets none. */
    for (i = 0; i < pt_size; i++) counts[i] = count / pt_size + (i < count % pt_size ? 1 : 0);
    if (pt_size > 1) {
        counts[0] += counts[1];
        counts[1] = 0;
    }
    for (i = 0; i < pt_rank; i++) first += counts[i];
    memset(out, COLL_SENTINEL, bytes);
    CK(MPI_Reduce_scatter(in, out, counts, t->type, op_handle(o), MPI_COMM_WORLD));
    check_result(t, o, out, pt_size - 1, first, counts[pt_rank], "MPI_Reduce_scatter", -1);
    coll_check_tail(out, (size_t)counts[pt_rank] * e, "MPI_Reduce_scatter: after my piece");
    free(in);
    free(out);
    free(counts);
}

static void reductions(int count, int all_roots)
{
    int ti, o;
    for (ti = 0; ti < NTYPES; ti++) {
        for (o = 0; o < NOPS; o++) {
            if (op_allowed(types[ti].category, o)) reduce_all(&types[ti], o, count, all_roots);
        }
    }
}

/* A derived type of one Fortran type reduces as that type does. */
static void derived_reductions(void)
{
    int ti;
    for (ti = 0; ti < NTYPES; ti++) {
        const ftype *t = &types[ti];
        const int o = t->category == CAT_PAIR ? O_MINLOC : t->category == CAT_LOGICAL ? O_LXOR : O_PROD;
        const size_t e = (size_t)t->size;
        unsigned char in[6 * 16], out[6 * 16];
        MPI_Datatype triple;
        int i;
        if (t->category == CAT_CHARACTER) continue;
        for (i = 0; i < 6; i++) {
            const val v = gen(t->category, o, pt_rank, i);
            put(t, in, i, 0, v.a);
            if (t->parts == 2) put(t, in, i, 1, v.b);
        }
        CK(MPI_Type_contiguous(3, t->type, &triple));
        CK(MPI_Type_commit(&triple));
        memset(out, COLL_SENTINEL, sizeof out);
        CK(MPI_Allreduce(in, out, 2, triple, op_handle(o), MPI_COMM_WORLD));
        check_result(t, o, out, pt_size - 1, 0, 6, "MPI_Allreduce on 3 contiguous", -1);
        pt_verify_const(out + 6 * e, sizeof out - 6 * e, COLL_SENTINEL, "MPI_Allreduce on 3 contiguous: after");
        CK(MPI_Type_free(&triple));
    }
}

/* The pairs the reference MPICH 4.0 takes although 4.9.2 does not define
 * them: the logical operations on Fortran integers and floating point, and
 * the arithmetic and bitwise ones on MPI_CHARACTER. */
static int mpich_takes(int category, int o)
{
    if (category == CAT_INTEGER || category == CAT_FLOAT) return o == O_LAND || o == O_LOR || o == O_LXOR;
    return category == CAT_CHARACTER && o < O_MAXLOC;
}

/* Every pair 4.9.2 does not define is MPI_ERR_OP, in every reduction. */
static void refused(void)
{
    unsigned char in[64 * 16], out[64 * 16];
    int ones[64], ti, o, i;
    MPI_Datatype mixed;
    for (i = 0; i < 64; i++) ones[i] = 1;
    memset(in, 0, sizeof in);
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (ti = 0; ti < NTYPES; ti++) {
        const MPI_Datatype t = types[ti].type;
        for (o = 0; o < NOPS; o++) {
            const MPI_Op op = op_handle(o);
            if (op_allowed(types[ti].category, o) || (!PT_STRICT && mpich_takes(types[ti].category, o))) continue;
            EXPECT_CLASS(MPI_Allreduce(in, out, 2, t, op, MPI_COMM_WORLD), MPI_ERR_OP);
            EXPECT_CLASS(MPI_Reduce(in, out, 2, t, op, 0, MPI_COMM_WORLD), MPI_ERR_OP);
            EXPECT_CLASS(MPI_Scan(in, out, 2, t, op, MPI_COMM_WORLD), MPI_ERR_OP);
            if (pt_size <= 64) EXPECT_CLASS(MPI_Reduce_scatter(in, out, ones, t, op, MPI_COMM_WORLD), MPI_ERR_OP);
        }
    }
    /* A struct of INTEGER and REAL has no one basic type. */
    {
        int lengths[2] = {1, 1};
        MPI_Aint displacements[2] = {0, 4};
        MPI_Datatype members[2] = {MPI_INTEGER, MPI_REAL};
        CK(MPI_Type_struct(2, lengths, displacements, members, &mixed));
        CK(MPI_Type_commit(&mixed));
        EXPECT_CLASS(MPI_Allreduce(in, out, 2, mixed, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
        CK(MPI_Type_free(&mixed));
    }
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    int ti;
    pt_init(&argc, &argv, "coll_fortran");
    pt_set_phase("sizes, bounds and names");
    check_properties();
    for (ti = 0; ti < NTYPES; ti++) {
        pt_set_phase("point-to-point");
        p2p_basic(ti);
        pt_set_phase("point-to-point in a vector");
        p2p_vector(ti);
        data_collectives(ti);
    }
    pt_set_phase("point-to-point in a struct, MPI_Pack, MPI_Unpack");
    p2p_struct();
    pt_set_phase("reductions, 7 elements, every root");
    reductions(7, 1);
    pt_set_phase("reductions, 1 element");
    reductions(1, 0);
    pt_set_phase("reductions, 1000 elements");
    reductions(1000, 0);
    /* Strata reduces a derived type made of one basic type as that type; the
     * reference MPICH 4.0 refuses every derived type with a predefined
     * operation (MPI_ERR_OP). */
    if (PT_STRICT) {
        pt_set_phase("reductions on derived types");
        derived_reductions();
    }
    pt_set_phase("refused operations");
    refused();
    return pt_finish();
}
