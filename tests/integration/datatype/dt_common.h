/* Shared helpers for the derived datatype tests: the reporting, watchdog and
 * data patterns of the point-to-point tests, plus an "arena" in which a
 * (count, datatype) buffer is laid out around an origin in the middle (so
 * negative displacements stay inside), and an explicit description of a
 * type's basic elements to check layouts against. */
#ifndef DT_COMMON_H
#define DT_COMMON_H

#include "../pt2pt/pt2pt_common.h"

#define DT_ARENA (4L << 20)
#define DT_ORIGIN (2L << 20)
#define DT_MAX_ELEMS 64

/* The basic elements of one element of a type, in typemap order. */
typedef struct {
    const char *name;
    MPI_Datatype type;
    int n;
    long off[DT_MAX_ELEMS];
    int len[DT_MAX_ELEMS];
    int size;
    MPI_Aint lb, ub;
} dt_layout;

static inline void dt_layout_add(dt_layout *l, long off, int len)
{
    if (l->n >= DT_MAX_ELEMS) {
        pt_fail("layout %s has too many elements", l->name);
    }
    l->off[l->n] = off;
    l->len[l->n] = len;
    l->n++;
}

/* Checks MPI_Type_size/extent/lb/ub against the layout's expectations. */
static inline void dt_check_bounds(const dt_layout *l)
{
    int size = -1;
    MPI_Aint extent = -1, lb = -1, ub = -1;
    int total = 0;
    int i;
    for (i = 0; i < l->n; i++) {
        total += l->len[i];
    }
    CK(MPI_Type_size(l->type, &size));
    CK(MPI_Type_extent(l->type, &extent));
    CK(MPI_Type_lb(l->type, &lb));
    CK(MPI_Type_ub(l->type, &ub));
    EXPECT(size == total && size == l->size, "%s: MPI_Type_size %d, expected %d", l->name, size, l->size);
    EXPECT(lb == l->lb, "%s: MPI_Type_lb %ld, expected %ld", l->name, (long)lb, (long)l->lb);
    EXPECT(ub == l->ub, "%s: MPI_Type_ub %ld, expected %ld", l->name, (long)ub, (long)l->ub);
    EXPECT(extent == l->ub - l->lb, "%s: MPI_Type_extent %ld, expected %ld", l->name, (long)extent,
           (long)(l->ub - l->lb));
}

/* Packed bytes of count elements of l laid out from origin, in typemap order. */
static inline size_t dt_packed(const dt_layout *l, const unsigned char *origin, int count, unsigned char *out)
{
    size_t at = 0;
    int e, i;
    for (e = 0; e < count; e++) {
        for (i = 0; i < l->n; i++) {
            memcpy(out + at, origin + (long)e * (l->ub - l->lb) + l->off[i], (size_t)l->len[i]);
            at += (size_t)l->len[i];
        }
    }
    return at;
}

/* After a typed receive into an arena that held `blank` everywhere: exactly
 * the bytes of the layout equal the sender's arena (same pattern, same
 * positions), every other byte is still blank. Only the first `bytes` packed
 * bytes were delivered. */
static inline void dt_verify_arena(const dt_layout *l, const unsigned char *got, const unsigned char *sent, int count,
                                   size_t bytes, unsigned char blank, const char *what)
{
    static unsigned char covered[DT_ARENA];
    size_t at = 0;
    long k, lo = DT_ORIGIN, hi = DT_ORIGIN;
    int e, i;
    /* Every element's extent, plus a margin, is scanned for stray writes. */
    for (e = 0; e < count; e++) {
        long first = DT_ORIGIN + (long)e * (l->ub - l->lb);
        for (i = 0; i < l->n; i++) {
            if (first + l->off[i] < lo) lo = first + l->off[i];
            if (first + l->off[i] + l->len[i] > hi) hi = first + l->off[i] + l->len[i];
        }
        if (first + l->lb < lo) lo = first + l->lb;
        if (first + l->ub > hi) hi = first + l->ub;
    }
    lo = lo - 4096 < 0 ? 0 : lo - 4096;
    hi = hi + 4096 > DT_ARENA ? DT_ARENA : hi + 4096;
    memset(covered + lo, 0, (size_t)(hi - lo));
    for (e = 0; e < count; e++) {
        for (i = 0; i < l->n; i++) {
            long base = DT_ORIGIN + (long)e * (l->ub - l->lb) + l->off[i];
            int j;
            for (j = 0; j < l->len[i] && at < bytes; j++, at++) {
                covered[base + j] = 1;
            }
        }
    }
    for (k = lo; k < hi; k++) {
        if (covered[k] && got[k] != sent[k]) {
            pt_fail("%s (%s): byte at origin%+ld is 0x%02x, sender had 0x%02x", what, l->name, k - DT_ORIGIN, got[k],
                    sent[k]);
        }
        if (!covered[k] && got[k] != blank) {
            pt_fail("%s (%s): byte at origin%+ld outside the type map was written (0x%02x)", what, l->name,
                    k - DT_ORIGIN, got[k]);
        }
    }
}

static inline int dt_class_of(int rc)
{
    int cls = -1;
    MPI_Error_class(rc, &cls);
    return cls;
}

/* Expect a call to fail with an error class (MPI_ERRORS_RETURN must be set). */
#define DT_EXPECT_CLASS(call, cls)                                                                     \
    do {                                                                                               \
        int dt_rc_ = (call);                                                                           \
        EXPECT(dt_rc_ != MPI_SUCCESS && dt_class_of(dt_rc_) == (cls), "line %d: %s gave class %d, expected %d", \
               __LINE__, #call, dt_rc_ == MPI_SUCCESS ? 0 : dt_class_of(dt_rc_), (cls));               \
    } while (0)

#endif /* DT_COMMON_H */
