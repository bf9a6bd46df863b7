/* Memory and datatypes for the MPI_BOTTOM tests (pt2pt_bottom, coll_bottom).
 *
 * MPI-1 lets any communication call take buffer MPI_BOTTOM with a datatype
 * whose displacements are absolute addresses (from MPI_Address), which is how
 * programs send variables scattered over memory in one message. An area here
 * is such memory: a few separate arrays with gaps between them, and gaps
 * between the pieces of one element inside each array, which a call must
 * leave untouched. An area holds BT_SLOTS elements of one of three kinds:
 *
 *   BT_SPREAD  4 ints in three arrays: e[4k], a[4k..4k+1], b[4k+3], typemap
 *              order not address order (MPI_Type_create_hindexed, resized
 *              to a 16-byte extent); one basic type, so it can be reduced.
 *   BT_BLOCK   4 ints in one block e[4k..4k+3] (MPI_Type_hindexed of one
 *              block): contiguous with a true lb far from 0, the one-block
 *              fast paths of an implementation.
 *   BT_MIXED   3 chars c[16k+1..16k+3], a double d[2k+1] and an int b[4k+1]
 *              (MPI_Type_struct with MPI_LB/MPI_UB markers, MPI-1 style).
 *
 * Element k of every kind is 16 bytes after element k-1, and the BT_SPREAD
 * and BT_BLOCK signatures are the same (4 ints), so either can receive what
 * the other sends. Every kind exists twice: absolute (bt_abs, used with
 * MPI_BOTTOM) and relative to the area's start (bt_rel, used with the area's
 * address); both have the same signature.
 *
 * Checking: the test builds the contents it expects in a second region
 * (sentinel bytes, then the elements it should hold) and compares every byte.
 */
#ifndef BOTTOM_COMMON_H
#define BOTTOM_COMMON_H

#include "pt2pt_common.h"

#define BT_SLOTS 64
#define BT_KINDS 3
#define BT_SPREAD 0
#define BT_BLOCK 1
#define BT_MIXED 2
#define BT_MAX_PIECES 5
#define BT_SENTINEL 0xA7

/* Separate arrays with gaps: the layout of a program's variables. */
typedef struct {
    int a[4 * BT_SLOTS];
    char gap1[40];
    int b[4 * BT_SLOTS];
    double d[2 * BT_SLOTS];
    char gap2[24];
    int e[4 * BT_SLOTS];
    char c[16 * BT_SLOTS];
    char gap3[32];
} bt_region;

typedef struct {
    bt_region *mem;
    MPI_Datatype abs[BT_KINDS];  /* absolute addresses into mem */
} bt_area;

static MPI_Datatype bt_rel[BT_KINDS];  /* the same, relative to an area's start */
static const char *const bt_kind_name[BT_KINDS] = {"spread", "block", "mixed"};

static inline int bt_pieces(int kind) { return kind == BT_MIXED ? 5 : 4; }

/* Piece j of element k; *basic: 0 int, 1 double, 2 char. */
static inline void *bt_piece(bt_region *r, int kind, int k, int j, int *basic)
{
    *basic = 0;
    if (kind == BT_SPREAD) {
        if (j == 0) return &r->e[4 * k];
        if (j == 3) return &r->b[4 * k + 3];
        return &r->a[4 * k + j - 1];
    }
    if (kind == BT_BLOCK) return &r->e[4 * k + j];
    if (j < 3) {
        *basic = 2;
        return &r->c[16 * k + 1 + j];
    }
    if (j == 3) {
        *basic = 1;
        return &r->d[2 * k + 1];
    }
    return &r->b[4 * k + 1];
}

/* Stores the logical values v[0..pieces) as element k. */
static inline void bt_put(bt_region *r, int kind, int k, const int *v)
{
    int j, basic;
    if (k < 0 || k >= BT_SLOTS) pt_fail("element slot %d outside the area", k);
    for (j = 0; j < bt_pieces(kind); j++) {
        void *p = bt_piece(r, kind, k, j, &basic);
        if (basic == 0) {
            memcpy(p, &v[j], sizeof(int));
        } else if (basic == 1) {
            double x = (double)v[j] + 0.5;
            memcpy(p, &x, sizeof x);
        } else {
            *(char *)p = (char)(v[j] & 0x7f);
        }
    }
}

/* Element g of the message named by seed. */
static inline void bt_values(uint32_t seed, int g, int *v)
{
    int j;
    for (j = 0; j < BT_MAX_PIECES; j++) v[j] = (int)(pt_word(seed, (size_t)g * 8 + (size_t)j) & 0xffffff);
}

/* Elements g0.. of the message named by seed into slots k0.. */
static inline void bt_fill(bt_region *r, int kind, int k0, int n, uint32_t seed, int g0)
{
    int q, v[BT_MAX_PIECES];
    for (q = 0; q < n; q++) {
        bt_values(seed, g0 + q, v);
        bt_put(r, kind, k0 + q, v);
    }
}

/* Copies the pieces (not the gaps) of slots k0.. from one region to another:
 * elements whose contents MPI leaves undefined. */
static inline void bt_copy_pieces(bt_region *to, bt_region *from, int kind, int k0, int n)
{
    int q, j, basic;
    for (q = 0; q < n; q++) {
        for (j = 0; j < bt_pieces(kind); j++) {
            void *dst = bt_piece(to, kind, k0 + q, j, &basic);
            memcpy(dst, bt_piece(from, kind, k0 + q, j, &basic),
                   basic == 0 ? sizeof(int) : basic == 1 ? sizeof(double) : 1);
        }
    }
}

static inline void bt_clear(bt_region *r) { memset(r, BT_SENTINEL, sizeof *r); }

/* Every byte of `got` must equal `want`; names the field of the first difference. */
static inline void bt_compare(const bt_region *got, const bt_region *want, const char *what)
{
    static const struct {
        const char *name;
        size_t at;
    } fields[] = {{"a", offsetof(bt_region, a)},       {"gap1", offsetof(bt_region, gap1)},
                  {"b", offsetof(bt_region, b)},       {"d", offsetof(bt_region, d)},
                  {"gap2", offsetof(bt_region, gap2)}, {"e", offsetof(bt_region, e)},
                  {"c", offsetof(bt_region, c)},       {"gap3", offsetof(bt_region, gap3)}};
    const unsigned char *g = (const unsigned char *)got;
    const unsigned char *w = (const unsigned char *)want;
    size_t i, f = 0;
    for (i = 0; i < sizeof *got; i++) {
        if (g[i] == w[i]) continue;
        while (f + 1 < sizeof fields / sizeof fields[0] && fields[f + 1].at <= i) f++;
        pt_fail("%s: byte %lu (%s + %lu) is 0x%02x, expected 0x%02x%s", what, (unsigned long)i, fields[f].name,
                (unsigned long)(i - fields[f].at), g[i], w[i],
                w[i] == BT_SENTINEL ? " (a gap or an element outside the message)" : "");
    }
}

/* A call's send and receive areas against what they must hold, labelled "WHAT: send area" and
 * "WHAT: receive area". */
static inline void bt_compare_areas(const bt_region *send, const bt_region *want_send, const bt_region *recv,
                                    const bt_region *want_recv, const char *what)
{
    char label[260];
    snprintf(label, sizeof label, "%s: send area", what);
    bt_compare(send, want_send, label);
    snprintf(label, sizeof label, "%s: receive area", what);
    bt_compare(recv, want_recv, label);
}

/* The datatype of one element of `kind` in area r: absolute addresses, or
 * relative to r's start. */
static inline MPI_Datatype bt_type_make(bt_region *r, int kind, int absolute)
{
    MPI_Aint base, lb;
    MPI_Datatype t;
    CK(MPI_Get_address(r, &base));
    lb = absolute ? base : 0;
    if (kind == BT_SPREAD) {
        int bl[3] = {1, 2, 1};
        MPI_Aint disp[3];
        MPI_Datatype inner;
        CK(MPI_Get_address(&r->e[0], &disp[0]));
        CK(MPI_Get_address(&r->a[0], &disp[1]));
        CK(MPI_Get_address(&r->b[3], &disp[2]));
        if (!absolute) {
            disp[0] -= base;
            disp[1] -= base;
            disp[2] -= base;
        }
        CK(MPI_Type_create_hindexed(3, bl, disp, MPI_INT, &inner));
        CK(MPI_Type_create_resized(inner, lb, 16, &t));
        CK(MPI_Type_free(&inner));
    } else if (kind == BT_BLOCK) {
        int bl = 4;
        MPI_Aint disp;
        CK(MPI_Address(&r->e[0], &disp));
        if (!absolute) disp -= base;
        CK(MPI_Type_hindexed(1, &bl, &disp, MPI_INT, &t));
    } else {
        int bl[5] = {1, 3, 1, 1, 1};
        MPI_Aint disp[5];
        MPI_Datatype types[5] = {MPI_LB, MPI_CHAR, MPI_DOUBLE, MPI_INT, MPI_UB};
        CK(MPI_Address(&r->c[1], &disp[1]));
        CK(MPI_Address(&r->d[1], &disp[2]));
        CK(MPI_Address(&r->b[1], &disp[3]));
        if (!absolute) {
            disp[1] -= base;
            disp[2] -= base;
            disp[3] -= base;
        }
        disp[0] = lb;
        disp[4] = lb + 16;
        CK(MPI_Type_struct(5, bl, disp, types, &t));
    }
    CK(MPI_Type_commit(&t));
    return t;
}

static inline void bt_area_make(bt_area *area)
{
    int k;
    area->mem = (bt_region *)pt_malloc(sizeof(bt_region));
    bt_clear(area->mem);
    for (k = 0; k < BT_KINDS; k++) area->abs[k] = bt_type_make(area->mem, k, 1);
}

static inline void bt_area_free(bt_area *area)
{
    int k;
    for (k = 0; k < BT_KINDS; k++) CK(MPI_Type_free(&area->abs[k]));
    free(area->mem);
}

/* Makes the relative types (any area gives the same ones) and checks that
 * the absolute ones really start far from address 0. */
static inline void bt_setup(bt_area *any)
{
    int k;
    for (k = 0; k < BT_KINDS; k++) {
        MPI_Aint tlb, text;
        bt_rel[k] = bt_type_make(any->mem, k, 0);
        CK(MPI_Type_get_true_extent(any->abs[k], &tlb, &text));
        EXPECT(tlb != 0, "the absolute %s type has true lb 0", bt_kind_name[k]);
    }
}

static inline void bt_teardown(void)
{
    int k;
    for (k = 0; k < BT_KINDS; k++) CK(MPI_Type_free(&bt_rel[k]));
}

/* A buffer argument: MPI_BOTTOM with the absolute type, or the area's address
 * with the relative one. */
static inline void *bt_buf(const bt_area *area, int absolute) { return absolute ? MPI_BOTTOM : (void *)area->mem; }
static inline MPI_Datatype bt_dt(const bt_area *area, int kind, int absolute)
{
    return absolute ? area->abs[kind] : bt_rel[kind];
}

/* The buffer with which the absolute types of `from` address `to` instead:
 * how one datatype of absolute addresses serves both buffers of a reduction
 * (address arithmetic on integers, as MPI's own is). */
static inline void *bt_shifted(const bt_area *to, const bt_area *from)
{
    MPI_Aint t, f;
    CK(MPI_Get_address(to->mem, &t));
    CK(MPI_Get_address(from->mem, &f));
    return (void *)(intptr_t)(t - f);
}

#endif /* BOTTOM_COMMON_H */
