/* Point-to-point between processes of different data representations.
 *
 * Run with 4 processes, ranks 2-3 in another representation (the test
 * setting STRATA_REPRESENTATION_TEST=MODE, or a machine of another kind).
 * Every rank exchanges with rank ^ 2 (unlike) and then with rank ^ 1 (alike),
 * both directions at once: every basic datatype, the MINLOC/MAXLOC pairs,
 * a vector of structs with padding inside bounds set by MPI_LB/MPI_UB, a
 * partial receive read by MPI_Get_count and MPI_Get_elements, MPI_ANY_SOURCE,
 * a persistent receive, MPI_Sendrecv_replace, MPI_Bsend, MPI_Probe (its
 * status counts the receiver's elements), MPI_Pack on the sending side with a
 * typed receive, packed data received as MPI_PACKED and read by MPI_Unpack
 * (packed by MPI_Pack, or sent typed), and a truncated receive.
 *
 * Argument: MODE, what ranks 2-3 are: 1, the test setting that announces the
 * other byte order; 2, the test setting that also announces a 32-bit
 * machine's long and an 8-byte long double (the values sent fit that, and a
 * long that does not fit 4 bytes must fail to leave rank 2 with
 * MPI_ERR_TRUNCATE); 3, processes of a real machine of another kind (values
 * as for 2, without that check).
 */
#include <wchar.h>

#include "hetero_common.h"

#define N 5

static int me = 0;

static MPI_Status st;

static void count_check(MPI_Datatype t, int want, const char *what) {
    int n = -1;
    CK(MPI_Get_count(&st, t, &n));
    EXPECT(n == want, "%s: MPI_Get_count says %d, want %d", what, n, want);
}

#define BASIC(TYPE, CTYPE, VALUE)                                                              \
    do {                                                                                       \
        CTYPE s[N], r[N], e[N];                                                                \
        memset(s, 0, sizeof s);                                                                \
        memset(r, 0, sizeof r);                                                                \
        memset(e, 0, sizeof e);                                                                \
        for (int i = 0; i < N; ++i) {                                                          \
            s[i] = (CTYPE)(VALUE(me, i));                                                      \
            e[i] = (CTYPE)(VALUE(partner, i));                                                 \
        }                                                                                      \
        pt_set_phase(#TYPE);                                                                   \
        CK(MPI_Sendrecv(s, N, TYPE, partner, 1, r, N, TYPE, partner, 1, MPI_COMM_WORLD, &st)); \
        for (int i = 0; i < N; ++i) EXPECT(r[i] == e[i], "%s element %d differs", #TYPE, i);   \
        count_check(TYPE, N, #TYPE);                                                           \
    } while (0)

#define PAIR(TYPE, VTYPE, ITYPE, VALUE)                                                          \
    do {                                                                                         \
        struct {                                                                                 \
            VTYPE v;                                                                             \
            ITYPE i;                                                                             \
        } s[N], r[N];                                                                            \
        memset(s, 0, sizeof s);                                                                  \
        memset(r, 0, sizeof r);                                                                  \
        for (int i = 0; i < N; ++i) {                                                            \
            s[i].v = (VTYPE)(VALUE(me, i));                                                      \
            s[i].i = (ITYPE)(small(me, i));                                                      \
        }                                                                                        \
        pt_set_phase(#TYPE);                                                                     \
        CK(MPI_Sendrecv(s, N, TYPE, partner, 1, r, N, TYPE, partner, 1, MPI_COMM_WORLD, &st));   \
        for (int i = 0; i < N; ++i) {                                                            \
            EXPECT(r[i].v == (VTYPE)(VALUE(partner, i)) && r[i].i == (ITYPE)(small(partner, i)), \
                   "%s element %d differs", #TYPE, i);                                           \
        }                                                                                        \
    } while (0)

#define WCHARS(rank, i) (0x10400 + (rank)*100 + (i))
#define UNSIGNED_LONG_VALUE(rank, i) (0x81020304UL + (unsigned long)(rank)*7 + (unsigned long)(i))
/* Exact in float: a machine that evaluates float expressions in double
 * (FLT_EVAL_METHOD 1, s390x) rounds a quotient differently. */
#define FLOAT_VALUE(rank, i) ((float)(((rank) + 1) * 8 + (i)) * ((i) % 2 ? -0.25f : 4096.0f))

static void basics(int partner) {
    BASIC(MPI_CHAR, char, CHARS);
    BASIC(MPI_SIGNED_CHAR, signed char, small);
    BASIC(MPI_UNSIGNED_CHAR, unsigned char, CHARS);
    BASIC(MPI_BYTE, unsigned char, CHARS);
    BASIC(MPI_SHORT, short, small);
    BASIC(MPI_UNSIGNED_SHORT, unsigned short, small);
    BASIC(MPI_INT, int, narrow);
    BASIC(MPI_UNSIGNED, unsigned, UNSIGNED_LONG_VALUE);
    BASIC(MPI_LONG, long, narrow);
    BASIC(MPI_UNSIGNED_LONG, unsigned long, UNSIGNED_LONG_VALUE);
    BASIC(MPI_LONG_LONG_INT, long long, wide);
    BASIC(MPI_UNSIGNED_LONG_LONG, unsigned long long, wide);
    BASIC(MPI_WCHAR, wchar_t, WCHARS);
    BASIC(MPI_FLOAT, float, FLOAT_VALUE);
    BASIC(MPI_DOUBLE, double, real);
    BASIC(MPI_LONG_DOUBLE, long double, ldouble);
    BASIC(MPI_INTEGER, int, narrow);
    BASIC(MPI_LOGICAL, int, small);
    BASIC(MPI_REAL, float, FLOAT_VALUE);
    BASIC(MPI_DOUBLE_PRECISION, double, real);
    BASIC(MPI_CHARACTER, char, CHARS);
    BASIC(MPI_INTEGER1, signed char, small);
    BASIC(MPI_INTEGER2, short, small);
    BASIC(MPI_INTEGER4, int, narrow);
    BASIC(MPI_INTEGER8, long long, wide);
    BASIC(MPI_REAL4, float, FLOAT_VALUE);
    BASIC(MPI_REAL8, double, real);
    PAIR(MPI_2INT, int, int, narrow);
    PAIR(MPI_FLOAT_INT, float, int, FLOAT_VALUE);
    PAIR(MPI_DOUBLE_INT, double, int, real);
    PAIR(MPI_LONG_INT, long, int, narrow);
    PAIR(MPI_SHORT_INT, short, int, small);
    PAIR(MPI_LONG_DOUBLE_INT, long double, int, ldouble);
    PAIR(MPI_2INTEGER, int, int, narrow);
    PAIR(MPI_2REAL, float, float, FLOAT_VALUE);
    PAIR(MPI_2DOUBLE_PRECISION, double, double, real);
    PAIR(MPI_COMPLEX, float, float, FLOAT_VALUE);
    PAIR(MPI_DOUBLE_COMPLEX, double, double, real);
}

/* ------------------------------------------------------------------------ */
/* Derived types                                                             */

/* Every other rec of 3, inside an element whose bounds MPI_LB/MPI_UB set
 * to 7 recs. */
static MPI_Datatype bounded_type(MPI_Datatype rec) {
    MPI_Datatype vec, bounded;
    CK(MPI_Type_vector(3, 1, 2, rec, &vec));
    int len[3] = {1, 1, 1};
    MPI_Aint disp[3] = {0, 0, (MPI_Aint)(7 * sizeof(struct rec))};
    MPI_Datatype types[3] = {MPI_LB, vec, MPI_UB};
    CK(MPI_Type_struct(3, len, disp, types, &bounded));
    CK(MPI_Type_commit(&bounded));
    CK(MPI_Type_free(&vec));
    return bounded;
}

static void derived(int partner) {
    MPI_Datatype rec = rec_type(5);
    CK(MPI_Type_commit(&rec));
    MPI_Datatype bounded = bounded_type(rec);
    struct rec s[14], r[14], e[14];
    for (int k = 0; k < 14; ++k) {
        rec_fill(&s[k], me, k);
        memset(&r[k], 0, sizeof r[k]);
        const int in = (k % 7) % 2 == 0 && k % 7 < 6;
        if (in) {
            rec_fill(&e[k], partner, k);
        } else {
            memset(&e[k], 0, sizeof e[k]);
        }
    }
    pt_set_phase("vector of structs within MPI_LB/MPI_UB");
    CK(MPI_Sendrecv(s, 2, bounded, partner, 2, r, 2, bounded, partner, 2, MPI_COMM_WORLD, &st));
    for (int k = 0; k < 14; ++k) EXPECT(rec_same(&r[k], &e[k]), "rec %d differs", k);
    count_check(bounded, 2, "bounded");

    /* Two whole recs and the first three basic elements of a third. */
    pt_set_phase("partial receive");
    MPI_Datatype prefix = rec_type(3);
    MPI_Datatype msg;
    int len[2] = {2, 1};
    MPI_Aint disp[2] = {0, (MPI_Aint)(2 * sizeof(struct rec))};
    MPI_Datatype types[2] = {rec, prefix};
    CK(MPI_Type_struct(2, len, disp, types, &msg));
    CK(MPI_Type_commit(&msg));
    for (int k = 0; k < 3; ++k) memset(&r[k], 0, sizeof r[k]);
    CK(MPI_Sendrecv(s, 1, msg, partner, 3, r, 3, rec, partner, 3, MPI_COMM_WORLD, &st));
    int n = 0;
    CK(MPI_Get_count(&st, rec, &n));
    EXPECT(n == MPI_UNDEFINED, "MPI_Get_count of 2 recs and a part says %d", n);
    CK(MPI_Get_elements(&st, rec, &n));
    EXPECT(n == 2 * REC_ELEMENTS + 3, "MPI_Get_elements says %d, want %d", n, 2 * REC_ELEMENTS + 3);
    struct rec part;
    rec_fill(&e[0], partner, 0);
    rec_fill(&e[1], partner, 1);
    rec_fill(&part, partner, 2);
    EXPECT(rec_same(&r[0], &e[0]) && rec_same(&r[1], &e[1]), "the two whole recs differ");
    EXPECT(r[2].c == part.c && r[2].d == part.d && r[2].l[0] == part.l[0] && r[2].l[1] == 0 && r[2].s == 0,
           "the partial rec differs");

    pt_set_phase("MPI_ANY_SOURCE");
    MPI_Request q;
    CK(MPI_Irecv(r, 3, rec, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &q));
    CK(MPI_Send(s, 3, rec, partner, 4, MPI_COMM_WORLD));
    CK(MPI_Wait(&q, &st));
    EXPECT(st.MPI_SOURCE == partner, "the message came from %d", st.MPI_SOURCE);
    for (int k = 0; k < 3; ++k) {
        rec_fill(&e[k], partner, k);
        EXPECT(rec_same(&r[k], &e[k]), "rec %d from MPI_ANY_SOURCE differs", k);
    }

    pt_set_phase("persistent receive");
    CK(MPI_Recv_init(r, 3, rec, partner, 5, MPI_COMM_WORLD, &q));
    for (int round = 0; round < 2; ++round) {
        memset(r, 0, 3 * sizeof r[0]);
        CK(MPI_Start(&q));
        CK(MPI_Send(s + round, 3, rec, partner, 5, MPI_COMM_WORLD));
        CK(MPI_Wait(&q, &st));
        for (int k = 0; k < 3; ++k) {
            rec_fill(&e[k], partner, k + round);
            EXPECT(rec_same(&r[k], &e[k]), "round %d: rec %d differs", round, k);
        }
    }
    CK(MPI_Request_free(&q));

    pt_set_phase("MPI_Sendrecv_replace");
    for (int k = 0; k < 14; ++k) rec_fill(&r[k], me, k);
    CK(MPI_Sendrecv_replace(r, 2, bounded, partner, 6, partner, 6, MPI_COMM_WORLD, &st));
    for (int k = 0; k < 14; ++k) {
        const int in = (k % 7) % 2 == 0 && k % 7 < 6;
        rec_fill(&e[k], in ? partner : me, k);
        EXPECT(rec_same(&r[k], &e[k]), "rec %d after MPI_Sendrecv_replace differs", k);
    }

    CK(MPI_Type_free(&msg));
    CK(MPI_Type_free(&prefix));
    CK(MPI_Type_free(&bounded));
    CK(MPI_Type_free(&rec));
}

/* MPI_Bsend, MPI_Pack sent as MPI_PACKED to a typed receive, a truncated receive. */
static void others(int partner) {
    long s[N], r[N] = {0};
    for (int i = 0; i < N; ++i) s[i] = narrow(me, i);
    pt_set_phase("MPI_Bsend");
    static char attached[4096];
    CK(MPI_Buffer_attach(attached, sizeof attached));
    MPI_Request q;
    CK(MPI_Irecv(r, N, MPI_LONG, partner, 7, MPI_COMM_WORLD, &q));
    CK(MPI_Bsend(s, N, MPI_LONG, partner, 7, MPI_COMM_WORLD));
    CK(MPI_Wait(&q, &st));
    for (int i = 0; i < N; ++i) EXPECT(r[i] == narrow(partner, i), "Bsend element %d differs", i);
    void *detached;
    int size;
    CK(MPI_Buffer_detach(&detached, &size));

    pt_set_phase("MPI_Probe");
    CK(MPI_Isend(s, N, MPI_LONG, partner, 11, MPI_COMM_WORLD, &q));
    CK(MPI_Probe(partner, 11, MPI_COMM_WORLD, &st));
    count_check(MPI_LONG, N, "probed longs");
    int elements = -1;
    CK(MPI_Get_elements(&st, MPI_LONG, &elements));
    EXPECT(elements == N, "MPI_Get_elements of the probed longs says %d", elements);
    CK(MPI_Recv(r, N, MPI_LONG, partner, 11, MPI_COMM_WORLD, &st));
    CK(MPI_Wait(&q, MPI_STATUS_IGNORE));
    for (int i = 0; i < N; ++i) EXPECT(r[i] == narrow(partner, i), "probed element %d differs", i);

    pt_set_phase("MPI_Pack to a typed receive");
    double d[3] = {real(me, 0), real(me, 1), real(me, 2)};
    char packed[256];
    int position = 0;
    CK(MPI_Pack(d, 3, MPI_DOUBLE, packed, sizeof packed, &position, MPI_COMM_WORLD));
    CK(MPI_Pack(s, 2, MPI_LONG, packed, sizeof packed, &position, MPI_COMM_WORLD));
    struct doubles_longs {
        double d[3];
        long l[2];
    } got;
    int len[2] = {3, 2};
    MPI_Aint disp[2] = {0, (MPI_Aint)offsetof(struct doubles_longs, l)};
    MPI_Datatype types[2] = {MPI_DOUBLE, MPI_LONG}, t;
    CK(MPI_Type_struct(2, len, disp, types, &t));
    CK(MPI_Type_commit(&t));
    CK(MPI_Sendrecv(packed, position, MPI_PACKED, partner, 8, &got, 1, t, partner, 8, MPI_COMM_WORLD, &st));
    for (int i = 0; i < 3; ++i) EXPECT(got.d[i] == real(partner, i), "packed double %d differs", i);
    for (int i = 0; i < 2; ++i) EXPECT(got.l[i] == narrow(partner, i), "packed long %d differs", i);
    int room = 0, part = 0;
    CK(MPI_Pack_size(3, MPI_DOUBLE, MPI_COMM_WORLD, &room));
    CK(MPI_Pack_size(2, MPI_LONG, MPI_COMM_WORLD, &part));
    EXPECT(room + part >= position, "MPI_Pack_size says %d + %d, MPI_Pack wrote %d", room, part, position);

    pt_set_phase("MPI_Pack to MPI_PACKED to MPI_Unpack");
    char in[256];
    CK(MPI_Sendrecv(packed, position, MPI_PACKED, partner, 12, in, sizeof in, MPI_PACKED, partner, 12, MPI_COMM_WORLD,
                    &st));
    int insize = 0, at = 0;
    CK(MPI_Get_count(&st, MPI_PACKED, &insize));
    memset(&got, 0, sizeof got);
    CK(MPI_Unpack(in, insize, &at, got.d, 3, MPI_DOUBLE, MPI_COMM_WORLD));
    CK(MPI_Unpack(in, insize, &at, got.l, 2, MPI_LONG, MPI_COMM_WORLD));
    EXPECT(at == insize, "MPI_Unpack read %d of %d bytes", at, insize);
    for (int i = 0; i < 3; ++i) EXPECT(got.d[i] == real(partner, i), "unpacked double %d differs", i);
    for (int i = 0; i < 2; ++i) EXPECT(got.l[i] == narrow(partner, i), "unpacked long %d differs", i);

    pt_set_phase("typed data to MPI_PACKED to MPI_Unpack");
    CK(MPI_Sendrecv(&got, 1, t, partner, 13, in, sizeof in, MPI_PACKED, partner, 13, MPI_COMM_WORLD, &st));
    CK(MPI_Get_count(&st, MPI_PACKED, &insize));
    struct doubles_longs again;
    at = 0;
    CK(MPI_Unpack(in, insize, &at, &again, 1, t, MPI_COMM_WORLD));
    EXPECT(at == insize, "MPI_Unpack read %d of %d bytes", at, insize);
    for (int i = 0; i < 3; ++i) EXPECT(again.d[i] == real(me, i), "double %d back from MPI_PACKED differs", i);
    for (int i = 0; i < 2; ++i) EXPECT(again.l[i] == narrow(me, i), "long %d back from MPI_PACKED differs", i);
    CK(MPI_Type_free(&t));

    pt_set_phase("truncated receive");
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Sendrecv(s, N, MPI_LONG, partner, 9, r, N - 1, MPI_LONG, partner, 9, MPI_COMM_WORLD, &st);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    EXPECT(cls == MPI_ERR_TRUNCATE, "a receive of %d longs of %d: error class %d", N - 1, N, cls);
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Mode 2: rank 2 announces a 4-byte long; one that does not fit cannot leave. */
static void unfit(void) {
    if (mode != 2 || me != 2) return;
    pt_set_phase("a long that does not fit");
    long big = 1L << 40;
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    int rc = MPI_Send(&big, 1, MPI_LONG, 0, 10, MPI_COMM_WORLD);
    int cls = -1;
    MPI_Error_class(rc, &cls);
    EXPECT(cls == MPI_ERR_TRUNCATE, "MPI_Send of 2^40 as a 4-byte long: error class %d", cls);
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv) {
    me = pt_init(&argc, &argv, "hetero_pt2pt");
    pt_require_size(4);
    if (argc > 1) mode = atoi(argv[1]);
    if (me < 4) {
        const int partners[2] = {me ^ 2, me ^ 1};
        for (int p = 0; p < 2; ++p) {
            basics(partners[p]);
            derived(partners[p]);
            others(partners[p]);
        }
    }
    unfit();
    return pt_finish();
}
