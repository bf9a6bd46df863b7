/* Every MPI-1 type constructor, nested ones, negative strides and
 * displacements, LB/UB markers, zero-count blocks and the predefined pair
 * types: bounds from MPI_Type_size/extent/lb/ub against values worked out by
 * hand, and data moved around a ring of processes three ways (typed to typed,
 * typed to bytes, bytes to typed), small (eager) and large (rendezvous,
 * packed in chunks). Each receive is checked byte by byte against the
 * sender's pattern, and bytes outside the type map must stay untouched. */
#include "dt_common.h"

#define MAX_CASES 40

static dt_layout cases[MAX_CASES];
static int n_cases = 0;

static dt_layout *add_case(const char *name, MPI_Datatype t, MPI_Aint lb, MPI_Aint ub)
{
    dt_layout *l = &cases[n_cases++];
    memset(l, 0, sizeof *l);
    l->name = name;
    l->type = t;
    l->lb = lb;
    l->ub = ub;
    return l;
}

static void finish_case(dt_layout *l)
{
    int i;
    l->size = 0;
    for (i = 0; i < l->n; i++) {
        l->size += l->len[i];
    }
}

static unsigned char *arena_sent;
static unsigned char *arena_mine;
static unsigned char *arena_got;
static unsigned char *stream_want;
static unsigned char *stream_got;

static void fill_arena(unsigned char *a, uint32_t seed)
{
    pt_fill(a, (size_t)DT_ARENA, seed);
}

/* Moves `count` elements of case l from each rank to the next around the ring. */
static void ring_case(const dt_layout *l, int count, int round)
{
    const int next = (pt_rank + 1) % pt_size;
    const int prev = (pt_rank + pt_size - 1) % pt_size;
    const int tag = 100 + round;
    const size_t bytes = (size_t)count * (size_t)l->size;
    unsigned char *origin_mine = arena_mine + DT_ORIGIN;
    unsigned char *origin_got = arena_got + DT_ORIGIN;
    MPI_Status st;
    int c = -1;
    /* MPI: the count of a type without data is 0. */
    const int want = l->size == 0 ? 0 : count;
    char what[128];

    fill_arena(arena_mine, pt_seed(pt_rank, next, tag, count));
    fill_arena(arena_sent, pt_seed(prev, pt_rank, tag, count));
    dt_packed(l, arena_sent + DT_ORIGIN, count, stream_want);

    /* typed -> typed */
    snprintf(what, sizeof what, "typed to typed, count %d", count);
    pt_set_phase(what);
    memset(arena_got, 0xA5, (size_t)DT_ARENA);
    CK(MPI_Sendrecv(origin_mine, count, l->type, next, tag, origin_got, count, l->type, prev, tag, MPI_COMM_WORLD,
                    &st));
    c = pt_count(&st, l->type);
    EXPECT(c == want, "%s (%s): MPI_Get_count %d, expected %d", what, l->name, c, want);
    dt_verify_arena(l, arena_got, arena_sent, count, bytes, 0xA5, what);

    /* typed -> MPI_BYTE: the stream is the data in typemap order */
    snprintf(what, sizeof what, "typed to bytes, count %d", count);
    pt_set_phase(what);
    memset(stream_got, 0x5A, bytes + 16);
    CK(MPI_Sendrecv(origin_mine, count, l->type, next, tag, stream_got, (int)bytes + 16, MPI_BYTE, prev, tag,
                    MPI_COMM_WORLD, &st));
    c = pt_count(&st, MPI_BYTE);
    EXPECT(c == (int)bytes, "%s (%s): %d bytes arrived, expected %lu", what, l->name, c, (unsigned long)bytes);
    if (memcmp(stream_got, stream_want, bytes) != 0) {
        size_t i = 0;
        while (stream_got[i] == stream_want[i]) i++;
        pt_fail("%s (%s): packed stream differs first at byte %lu", what, l->name, (unsigned long)i);
    }
    pt_verify_const(stream_got + bytes, 16, 0x5A, what);

    /* MPI_BYTE -> typed */
    snprintf(what, sizeof what, "bytes to typed, count %d", count);
    pt_set_phase(what);
    dt_packed(l, origin_mine, count, stream_got);
    memset(arena_got, 0xA5, (size_t)DT_ARENA);
    CK(MPI_Sendrecv(stream_got, (int)bytes, MPI_BYTE, next, tag, origin_got, count, l->type, prev, tag,
                    MPI_COMM_WORLD, &st));
    c = pt_count(&st, l->type);
    EXPECT(c == want, "%s (%s): MPI_Get_count %d, expected %d", what, l->name, c, want);
    dt_verify_arena(l, arena_got, arena_sent, count, bytes, 0xA5, what);
}

static void commit_all(void)
{
    int i;
    for (i = 0; i < n_cases; i++) {
        MPI_Datatype t = cases[i].type;
        CK(MPI_Type_commit(&t));
        EXPECT(t == cases[i].type, "MPI_Type_commit changed the handle of %s", cases[i].name);
    }
}

int main(int argc, char **argv)
{
    MPI_Datatype contig, vec, negvec, hvec, idx, hidx, st3, marked, nested, contig_marked, st_idx, zero_blk;
    MPI_Datatype vec_of_struct_of_idx, empty;
    MPI_Datatype lbub[2] = {MPI_LB, MPI_UB};
    dt_layout *l;
    int i, e, round = 0;
    (void)lbub;

    pt_init(&argc, &argv, "dt_constructors");
    pt_require_size(2);
    arena_sent = pt_malloc((size_t)DT_ARENA);
    arena_mine = pt_malloc((size_t)DT_ARENA);
    arena_got = pt_malloc((size_t)DT_ARENA);
    stream_want = pt_malloc((size_t)DT_ARENA);
    stream_got = pt_malloc((size_t)DT_ARENA + 16);

    pt_set_phase("construct");
    /* contiguous(3, INT) */
    CK(MPI_Type_contiguous(3, MPI_INT, &contig));
    l = add_case("contiguous(3,int)", contig, 0, 12);
    for (i = 0; i < 3; i++) dt_layout_add(l, 4 * i, 4);

    /* vector(3, 2, 4, INT): blocks of 2 ints every 4 ints */
    CK(MPI_Type_vector(3, 2, 4, MPI_INT, &vec));
    l = add_case("vector(3,2,4,int)", vec, 0, 40);
    for (i = 0; i < 3; i++) {
        dt_layout_add(l, 16 * i, 4);
        dt_layout_add(l, 16 * i + 4, 4);
    }

    /* vector with a negative stride: typemap order runs downwards */
    CK(MPI_Type_vector(3, 1, -2, MPI_DOUBLE, &negvec));
    l = add_case("vector(3,1,-2,double)", negvec, -32, 8);
    for (i = 0; i < 3; i++) dt_layout_add(l, -16 * i, 8);

    /* hvector(2, 1, 20 bytes, SHORT) */
    CK(MPI_Type_hvector(2, 1, 20, MPI_SHORT, &hvec));
    l = add_case("hvector(2,1,20,short)", hvec, 0, 22);
    dt_layout_add(l, 0, 2);
    dt_layout_add(l, 20, 2);

    /* indexed with a zero-length block and a negative displacement */
    {
        int bl[3] = {2, 0, 1};
        int disp[3] = {3, 1, -2};
        CK(MPI_Type_indexed(3, bl, disp, MPI_INT, &idx));
        l = add_case("indexed({2,0,1},{3,1,-2},int)", idx, -8, 20);
        dt_layout_add(l, 12, 4);
        dt_layout_add(l, 16, 4);
        dt_layout_add(l, -8, 4);
    }

    /* hindexed in bytes, negative displacement */
    {
        int bl[2] = {1, 2};
        MPI_Aint disp[2] = {-6, 10};
        CK(MPI_Type_hindexed(2, bl, disp, MPI_CHAR, &hidx));
        l = add_case("hindexed({1,2},{-6,10},char)", hidx, -6, 12);
        dt_layout_add(l, -6, 1);
        dt_layout_add(l, 10, 1);
        dt_layout_add(l, 11, 1);
    }

    /* struct {int; double; char}: extent padded to the double's alignment */
    {
        int bl[3] = {1, 1, 1};
        MPI_Aint disp[3] = {0, 8, 16};
        MPI_Datatype ty[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
        CK(MPI_Type_struct(3, bl, disp, ty, &st3));
        l = add_case("struct{int,double,char}", st3, 0, 24);
        dt_layout_add(l, 0, 4);
        dt_layout_add(l, 8, 8);
        dt_layout_add(l, 16, 1);
    }

    /* LB and UB markers: bounds -8 and 32 whatever the data */
    {
        int bl[4] = {1, 2, 1, 1};
        MPI_Aint disp[4] = {-8, 0, 32, 12};
        MPI_Datatype ty[4] = {MPI_LB, MPI_INT, MPI_UB, MPI_SHORT};
        CK(MPI_Type_struct(4, bl, disp, ty, &marked));
        l = add_case("struct{LB,int*2,UB,short}", marked, -8, 32);
        dt_layout_add(l, 0, 4);
        dt_layout_add(l, 4, 4);
        dt_layout_add(l, 12, 2);
    }

    /* the markers are sticky: contiguous(2, marked) */
    CK(MPI_Type_contiguous(2, marked, &contig_marked));
    l = add_case("contiguous(2,marked)", contig_marked, -8, 72);
    for (e = 0; e < 2; e++) {
        dt_layout_add(l, 40 * e + 0, 4);
        dt_layout_add(l, 40 * e + 4, 4);
        dt_layout_add(l, 40 * e + 12, 2);
    }

    /* vector of a struct */
    CK(MPI_Type_vector(2, 1, 3, st3, &nested));
    l = add_case("vector(2,1,3,struct)", nested, 0, 96);
    for (e = 0; e < 2; e++) {
        dt_layout_add(l, 72 * e + 0, 4);
        dt_layout_add(l, 72 * e + 8, 8);
        dt_layout_add(l, 72 * e + 16, 1);
    }

    /* struct {double at 0; 2 x indexed at 100}: ub 148 padded to 152 */
    {
        int bl[2] = {1, 2};
        MPI_Aint disp[2] = {0, 100};
        MPI_Datatype ty[2] = {MPI_DOUBLE, idx};
        CK(MPI_Type_struct(2, bl, disp, ty, &st_idx));
        l = add_case("struct{double,indexed*2}", st_idx, 0, 152);
        dt_layout_add(l, 0, 8);
        for (e = 0; e < 2; e++) {
            dt_layout_add(l, 100 + 28 * e + 12, 4);
            dt_layout_add(l, 100 + 28 * e + 16, 4);
            dt_layout_add(l, 100 + 28 * e - 8, 4);
        }
    }

    /* vector of struct of indexed, negative stride */
    CK(MPI_Type_vector(2, 2, -3, st_idx, &vec_of_struct_of_idx));
    l = add_case("vector(2,2,-3,struct{double,indexed*2})", vec_of_struct_of_idx, -456, 304);
    {
        long starts[4] = {0, 152, -456, -304};
        int s;
        for (s = 0; s < 4; s++) {
            dt_layout_add(l, starts[s], 8);
            for (e = 0; e < 2; e++) {
                dt_layout_add(l, starts[s] + 100 + 28 * e + 12, 4);
                dt_layout_add(l, starts[s] + 100 + 28 * e + 16, 4);
                dt_layout_add(l, starts[s] + 100 + 28 * e - 8, 4);
            }
        }
    }

    /* a zero-count block adds neither data nor bounds */
    {
        int bl[2] = {0, 1};
        MPI_Aint disp[2] = {200, 0};
        MPI_Datatype ty[2] = {MPI_DOUBLE, MPI_INT};
        CK(MPI_Type_struct(2, bl, disp, ty, &zero_blk));
        l = add_case("struct{double*0 at 200,int}", zero_blk, 0, 4);
        dt_layout_add(l, 0, 4);
    }

    /* an empty type */
    CK(MPI_Type_vector(0, 5, 2, MPI_INT, &empty));
    l = add_case("vector(0,...)", empty, 0, 0);

    /* predefined pair types: the C struct layouts */
    {
        struct fi { float a; int b; };
        struct di { double a; int b; };
        struct li { long a; int b; };
        struct si { short a; int b; };
        struct ldi { long double a; int b; };
        l = add_case("MPI_FLOAT_INT", MPI_FLOAT_INT, 0, sizeof(struct fi));
        dt_layout_add(l, 0, sizeof(float));
        dt_layout_add(l, offsetof(struct fi, b), sizeof(int));
        l = add_case("MPI_DOUBLE_INT", MPI_DOUBLE_INT, 0, sizeof(struct di));
        dt_layout_add(l, 0, sizeof(double));
        dt_layout_add(l, offsetof(struct di, b), sizeof(int));
        l = add_case("MPI_LONG_INT", MPI_LONG_INT, 0, sizeof(struct li));
        dt_layout_add(l, 0, sizeof(long));
        dt_layout_add(l, offsetof(struct li, b), sizeof(int));
        l = add_case("MPI_SHORT_INT", MPI_SHORT_INT, 0, sizeof(struct si));
        dt_layout_add(l, 0, sizeof(short));
        dt_layout_add(l, offsetof(struct si, b), sizeof(int));
        l = add_case("MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE_INT, 0, sizeof(struct ldi));
        dt_layout_add(l, 0, sizeof(long double));
        dt_layout_add(l, offsetof(struct ldi, b), sizeof(int));
        l = add_case("MPI_2INT", MPI_2INT, 0, 2 * sizeof(int));
        dt_layout_add(l, 0, sizeof(int));
        dt_layout_add(l, sizeof(int), sizeof(int));
        l = add_case("MPI_LONG_LONG_INT", MPI_LONG_LONG_INT, 0, sizeof(long long));
        dt_layout_add(l, 0, sizeof(long long));
    }
    EXPECT(sizeof(struct { double a; int b; }) == 16, "this test assumes the usual x86-64 layouts");

    for (i = 0; i < n_cases; i++) finish_case(&cases[i]);
    commit_all();

    pt_set_phase("bounds");
    for (i = 0; i < n_cases; i++) dt_check_bounds(&cases[i]);

    for (i = 0; i < n_cases; i++) {
        const dt_layout *c = &cases[i];
        const long extent = (long)(c->ub - c->lb);
        /* Large: beyond the eager limit and over several packing chunks,
         * as far as the arena allows. */
        int big = c->size == 0 ? 5 : 600000 / c->size;
        if (extent > 0 && (long)big * extent > DT_ORIGIN - 8192) big = (int)((DT_ORIGIN - 8192) / extent);
        ring_case(c, 1, round++);
        ring_case(c, 3, round++);
        ring_case(c, big, round++);
    }

    /* Freeing leaves the types built on them working. */
    pt_set_phase("free");
    CK(MPI_Type_free(&idx));
    CK(MPI_Type_free(&st3));
    EXPECT(idx == MPI_DATATYPE_NULL, "MPI_Type_free did not reset the handle");
    for (i = 0; i < n_cases; i++) {
        if (cases[i].type == vec_of_struct_of_idx || cases[i].type == nested) {
            ring_case(&cases[i], 2, round++);
        }
    }
    CK(MPI_Type_free(&contig));
    CK(MPI_Type_free(&vec));
    CK(MPI_Type_free(&negvec));
    CK(MPI_Type_free(&hvec));
    CK(MPI_Type_free(&hidx));
    CK(MPI_Type_free(&marked));
    CK(MPI_Type_free(&nested));
    CK(MPI_Type_free(&contig_marked));
    CK(MPI_Type_free(&st_idx));
    CK(MPI_Type_free(&zero_blk));
    CK(MPI_Type_free(&vec_of_struct_of_idx));
    CK(MPI_Type_free(&empty));
    return pt_finish();
}
