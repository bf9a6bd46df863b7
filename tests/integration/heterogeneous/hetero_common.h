/* What the heterogeneous test programs share: values that differ per rank
 * and element and fit what ranks 2-3 announce (MODE, see hetero_pt2pt.c),
 * and a struct with padding inside, its datatype, and how to fill and
 * compare it. */
#ifndef HETERO_COMMON_H
#define HETERO_COMMON_H

#include <float.h>

#include "pt2pt_common.h"

static int mode = 1;

/* Values that differ per rank and element, using every byte of their type
 * where the announced representation allows. */
static inline long long small(int rank, int i) { return (rank * 1000 + i * 77 - 150) * (i % 2 ? -1 : 1); }
static inline long long wide(int rank, int i) { return (long long)0x0102030405060708LL * (rank + 1) - i * 3; }
static inline long narrow(int rank, int i) { return 0x01020304L * (rank + 1) * (i % 2 ? -1 : 1) - i; }
static inline double real(int rank, int i) { return (rank + 1) * 1.0e300 / (i + 1) * (i % 2 ? -1 : 1); }
static inline long double ldouble(int rank, int i) {
    long double x = (long double)((rank + 1) * 1.25e-300 * (i + 1));
    /* The other byte order alone keeps long double's precision: use it. */
    if (mode == 1) x = x * (1.0L + LDBL_EPSILON * (i + 1));
    return x;
}

#define CHARS(rank, i) ('a' + (rank)*5 + (i))

struct rec {
    char c;
    double d;
    long l[2];
    short s;
    long double x;
};
#define REC_ELEMENTS 6 /* c, d, l, l, s, x */

static inline void rec_fill(struct rec *r, int rank, int k) {
    memset(r, 0, sizeof *r);
    r->c = (char)CHARS(rank, k);
    r->d = real(rank, k);
    r->l[0] = narrow(rank, k);
    r->l[1] = -narrow(rank, k + 1);
    r->s = (short)small(rank, k);
    r->x = ldouble(rank, k);
}

static inline int rec_same(const struct rec *a, const struct rec *b) {
    return a->c == b->c && a->d == b->d && a->l[0] == b->l[0] && a->l[1] == b->l[1] && a->s == b->s && a->x == b->x;
}

/* The struct, its padding skipped by the typemap. */
static inline MPI_Datatype rec_type(int blocks) {
    struct rec r;
    memset(&r, 0, sizeof r);
    int len[5] = {1, 1, 2, 1, 1};
    MPI_Aint disp[5];
    MPI_Datatype types[5] = {MPI_CHAR, MPI_DOUBLE, MPI_LONG, MPI_SHORT, MPI_LONG_DOUBLE};
    MPI_Aint base;
    MPI_Datatype t;
    CK(MPI_Address(&r, &base));
    CK(MPI_Address(&r.c, &disp[0]));
    CK(MPI_Address(&r.d, &disp[1]));
    CK(MPI_Address(&r.l, &disp[2]));
    CK(MPI_Address(&r.s, &disp[3]));
    CK(MPI_Address(&r.x, &disp[4]));
    for (int i = 0; i < 5; ++i) disp[i] -= base;
    /* A prefix of the signature when blocks < 5 (the third block then holds one long). */
    if (blocks < 5) len[blocks - 1] = 1;
    CK(MPI_Type_struct(blocks, len, disp, types, &t));
    return t;
}

#endif
