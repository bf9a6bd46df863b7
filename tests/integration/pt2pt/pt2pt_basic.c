/* pt2pt_basic: blocking MPI_Send/MPI_Recv of every basic datatype.
 *
 * Ranks are paired (0-1, 2-3, ...; an odd last rank idles). For every basic
 * datatype and for element counts giving 0, 1, 7, 100 and 4096 bytes,
 * 64 KiB - 1, 64 KiB and 64 KiB + 1 bytes, 1 MiB and 8 MiB (rounded down and up
 * to whole elements), each side of a pair sends to the other. The receiver
 * posts a buffer 3 elements longer than the message and checks:
 *   - every element against a pattern that depends on sender, receiver,
 *     datatype, count, index and the job size;
 *   - that the 3 extra elements were not modified (MPI-1.3 3.2.4: only the
 *     locations of a shorter message are modified);
 *   - status.MPI_SOURCE, status.MPI_TAG and MPI_Get_count.
 * MPI_Type_size of every basic datatype must equal the size of its C type.
 *
 * MPI_Get_count returning MPI_UNDEFINED: a 7-byte (and 6-byte, 12-byte)
 * message received as MPI_BYTE is queried with larger datatypes. MPI-1.3 asks
 * that the datatype passed to MPI_Get_count match the receive; with basic
 * datatypes a non-integral count cannot arise otherwise, so this relies on
 * the (universal) behaviour of computing bytes / size.
 */
#include "pt2pt_common.h"

enum kind { K_BYTES, K_FLOAT, K_DOUBLE, K_LDOUBLE };

struct dtype {
    MPI_Datatype dt;
    const char *name;
    size_t csize;
    enum kind kind;
};

struct two_int {
    int a;
    int b;
};

#define NTYPES 15

static struct dtype types[NTYPES];

static void init_types(void)
{
    struct dtype t[NTYPES] = {
        {MPI_CHAR, "MPI_CHAR", sizeof(char), K_BYTES},
        {MPI_SHORT, "MPI_SHORT", sizeof(short), K_BYTES},
        {MPI_INT, "MPI_INT", sizeof(int), K_BYTES},
        {MPI_LONG, "MPI_LONG", sizeof(long), K_BYTES},
        {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", sizeof(unsigned char), K_BYTES},
        {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", sizeof(unsigned short), K_BYTES},
        {MPI_UNSIGNED, "MPI_UNSIGNED", sizeof(unsigned), K_BYTES},
        {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", sizeof(unsigned long), K_BYTES},
        {MPI_FLOAT, "MPI_FLOAT", sizeof(float), K_FLOAT},
        {MPI_DOUBLE, "MPI_DOUBLE", sizeof(double), K_DOUBLE},
        {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double), K_LDOUBLE},
        {MPI_BYTE, "MPI_BYTE", 1, K_BYTES},
        {MPI_PACKED, "MPI_PACKED", 1, K_BYTES},
        {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", sizeof(long long), K_BYTES},
        {MPI_2INT, "MPI_2INT", sizeof(struct two_int), K_BYTES},
    };
    memcpy(types, t, sizeof t);
}

/* Exactly representable values for the floating types. */
static float fval(uint32_t seed, size_t i)
{
    return (float)(int32_t)(pt_word(seed, i) & 0x3FFFFFU) / 4.0f - 100000.0f;
}

static double dval(uint32_t seed, size_t i)
{
    return (double)(int32_t)pt_word(seed, i) / 8.0;
}

static long double ldval(uint32_t seed, size_t i)
{
    return (long double)(int32_t)pt_word(seed, i) / 16.0L + (long double)(i & 0xFF) * 1024.0L * 1024.0L *
                                                                 1024.0L * 1024.0L;
}

static void fill_typed(void *buf, const struct dtype *t, int count, uint32_t seed)
{
    size_t i;
    size_t n = (size_t)count;
    switch (t->kind) {
    case K_BYTES:
        pt_fill(buf, n * t->csize, seed);
        break;
    case K_FLOAT:
        for (i = 0; i < n; i++) {
            ((float *)buf)[i] = fval(seed, i);
        }
        break;
    case K_DOUBLE:
        for (i = 0; i < n; i++) {
            ((double *)buf)[i] = dval(seed, i);
        }
        break;
    case K_LDOUBLE:
        for (i = 0; i < n; i++) {
            ((long double *)buf)[i] = ldval(seed, i);
        }
        break;
    }
}

static void verify_typed(const void *buf, const struct dtype *t, int count, uint32_t seed, const char *what)
{
    size_t i;
    size_t n = (size_t)count;
    switch (t->kind) {
    case K_BYTES:
        pt_verify(buf, n * t->csize, seed, what);
        break;
    case K_FLOAT:
        for (i = 0; i < n; i++) {
            float e = fval(seed, i);
            float g = ((const float *)buf)[i];
            EXPECT(g == e, "%s: element %lu of %d is %.9g, expected %.9g", what, (unsigned long)i, count,
                   (double)g, (double)e);
        }
        break;
    case K_DOUBLE:
        for (i = 0; i < n; i++) {
            double e = dval(seed, i);
            double g = ((const double *)buf)[i];
            EXPECT(g == e, "%s: element %lu of %d is %.17g, expected %.17g", what, (unsigned long)i, count,
                   g, e);
        }
        break;
    case K_LDOUBLE:
        for (i = 0; i < n; i++) {
            long double e = ldval(seed, i);
            long double g = ((const long double *)buf)[i];
            EXPECT(g == e, "%s: element %lu of %d is %.21Lg, expected %.21Lg", what, (unsigned long)i,
                   count, g, e);
        }
        break;
    }
}

#define GUARD 3
#define NBYTE_TARGETS 10

static const size_t byte_targets[NBYTE_TARGETS] = {
    0, 1, 7, 100, 4096, 65535, 65536, 65537, 1024 * 1024, 8 * 1024 * 1024};

/* Element counts for datatype t: each byte target rounded down and up, plus
 * 1 and 7 elements; sorted, without repeats. */
static int counts_for(const struct dtype *t, int *out)
{
    int cand[2 * NBYTE_TARGETS + 2];
    int nc = 0;
    int n = 0;
    int i;
    int j;
    for (i = 0; i < NBYTE_TARGETS; i++) {
        cand[nc++] = (int)(byte_targets[i] / t->csize);
        cand[nc++] = (int)((byte_targets[i] + t->csize - 1) / t->csize);
    }
    cand[nc++] = 1;
    cand[nc++] = 7;
    for (i = 1; i < nc; i++) {
        int v = cand[i];
        for (j = i; j > 0 && cand[j - 1] > v; j--) {
            cand[j] = cand[j - 1];
        }
        cand[j] = v;
    }
    for (i = 0; i < nc; i++) {
        if (n == 0 || out[n - 1] != cand[i]) {
            out[n++] = cand[i];
        }
    }
    return n;
}

static void exchange_all(int rank, int partner, unsigned char *sbuf, unsigned char *rbuf)
{
    int ti;
    char what[200];
    for (ti = 0; ti < NTYPES; ti++) {
        const struct dtype *t = &types[ti];
        int counts[2 * NBYTE_TARGETS + 4];
        int nc = counts_for(t, counts);
        int ci;
        for (ci = 0; ci < nc; ci++) {
            int count = counts[ci];
            int tag = ti * 100 + ci;
            int side;
            snprintf(what, sizeof what, "%s count %d tag %d", t->name, count, tag);
            pt_set_phase(what);
            /* The lower rank of a pair sends first, the higher receives first. */
            for (side = 0; side < 2; side++) {
                int sending = (side == 0) == (rank < partner);
                if (sending) {
                    fill_typed(sbuf, t, count, pt_seed(rank, partner, tag, count));
                    CK(MPI_Send(sbuf, count, t->dt, partner, tag, MPI_COMM_WORLD));
                } else {
                    MPI_Status st;
                    size_t cap = ((size_t)count + GUARD) * t->csize;
                    char rwhat[260];
                    memset(rbuf, 0xA5, cap);
                    pt_status_junk(&st);
                    CK(MPI_Recv(rbuf, count + GUARD, t->dt, partner, tag, MPI_COMM_WORLD, &st));
                    snprintf(rwhat, sizeof rwhat, "%s from rank %d", what, partner);
                    pt_expect_status(&st, partner, tag, t->dt, count, rwhat);
                    verify_typed(rbuf, t, count, pt_seed(partner, rank, tag, count), rwhat);
                    snprintf(rwhat, sizeof rwhat, "%s from rank %d: bytes past the message", what, partner);
                    pt_verify_const(rbuf + (size_t)count * t->csize, GUARD * t->csize, 0xA5, rwhat);
                }
            }
        }
    }
}

static void check_type_sizes(void)
{
    int ti;
    pt_set_phase("Type_size");
    for (ti = 0; ti < NTYPES; ti++) {
        int sz = -1;
        CK(MPI_Type_size(types[ti].dt, &sz));
        EXPECT(sz == (int)types[ti].csize, "MPI_Type_size(%s) = %d, C type size is %d", types[ti].name, sz,
               (int)types[ti].csize);
    }
}

/* MPI_Get_count for byte counts that are / are not multiples of the size. */
static void check_get_count_undefined(int rank, int partner, int i_send)
{
    static const int nbytes[4] = {7, 6, 12, 0};
    unsigned char buf[64];
    int k;
    pt_set_phase("Get_count MPI_UNDEFINED");
    for (k = 0; k < 4; k++) {
        int n = nbytes[k];
        int low_sends = i_send ? (rank < partner) : (partner < rank);
        int tag = 5000 + 10 * low_sends + k;
        if (i_send) {
            pt_fill(buf, (size_t)n, pt_seed(rank, partner, tag, n));
            CK(MPI_Send(buf, n, MPI_BYTE, partner, tag, MPI_COMM_WORLD));
        } else {
            MPI_Status st;
            int ti;
            memset(buf, 0xA5, sizeof buf);
            CK(MPI_Recv(buf, (int)sizeof buf, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &st));
            pt_expect_status(&st, partner, tag, MPI_BYTE, n, "byte message for Get_count");
            pt_verify(buf, (size_t)n, pt_seed(partner, rank, tag, n), "byte message for Get_count");
            for (ti = 0; ti < NTYPES; ti++) {
                int c = pt_count(&st, types[ti].dt);
                int e = (n % (int)types[ti].csize == 0) ? n / (int)types[ti].csize : MPI_UNDEFINED;
                EXPECT(c == e, "MPI_Get_count(%d-byte message, %s) = %d, expected %d%s", n, types[ti].name,
                       c, e, e == MPI_UNDEFINED ? " (MPI_UNDEFINED)" : "");
            }
        }
    }
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "pt2pt_basic");
    int partner = rank ^ 1;
    size_t cap = 8 * 1024 * 1024 + 64 * GUARD + 64;
    unsigned char *sbuf;
    unsigned char *rbuf;

    pt_require_size(2);
    init_types();
    check_type_sizes();

    if (partner < pt_size) {
        sbuf = (unsigned char *)pt_malloc(cap);
        rbuf = (unsigned char *)pt_malloc(cap);
        exchange_all(rank, partner, sbuf, rbuf);
        check_get_count_undefined(rank, partner, rank < partner);
        check_get_count_undefined(rank, partner, rank > partner);
        free(sbuf);
        free(rbuf);
    }
    return pt_finish();
}
