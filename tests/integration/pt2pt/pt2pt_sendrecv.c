/* pt2pt_sendrecv: MPI_Sendrecv and MPI_Sendrecv_replace.
 *
 *   - Ring shift to the right and to the left with MPI_Sendrecv, message
 *     sizes 0, 1, 1000, 64 KiB + 1, 1 MiB and 8 MiB bytes; the receive buffer
 *     is larger than the message and its tail must stay untouched.
 *   - Receive side with MPI_ANY_SOURCE/MPI_ANY_TAG; in pairs, one call whose
 *     send and receive have different datatypes, counts and tags.
 *   - MPI_Sendrecv_replace in both ring directions, same sizes, as MPI_BYTE
 *     and as MPI_DOUBLE.
 *   - Non-periodic shift: the first rank receives from MPI_PROC_NULL, the
 *     last sends to MPI_PROC_NULL.
 *   - Exchange with oneself on MPI_COMM_WORLD and MPI_COMM_SELF (both calls).
 */
#include "pt2pt_common.h"

#define NSZ 6
static const int sizes[NSZ] = {0, 1, 1000, 65537, 1048576, 8 * 1048576};
#define CAP (8 * 1048576 + 64)

static void ring(unsigned char *sb, unsigned char *rb, int dir)
{
    int dest = (pt_rank + dir + pt_size) % pt_size;
    int src = (pt_rank - dir + pt_size) % pt_size;
    int k;
    for (k = 0; k < NSZ; k++) {
        int n = sizes[k];
        int stag = 10 * k + (dir > 0 ? 1 : 2);
        MPI_Status st;
        char what[120];
        snprintf(what, sizeof what, "Sendrecv ring %s, %d bytes from rank %d", dir > 0 ? "right" : "left", n, src);
        pt_set_phase(what);
        pt_fill(sb, (size_t)n, pt_seed(pt_rank, dest, stag, n));
        memset(rb, 0xA5, (size_t)n + 64);
        pt_status_junk(&st);
        CK(MPI_Sendrecv(sb, n, MPI_BYTE, dest, stag, rb, n + 64, MPI_BYTE, src, stag, MPI_COMM_WORLD, &st));
        pt_expect_status(&st, src, stag, MPI_BYTE, n, what);
        pt_verify(rb, (size_t)n, pt_seed(src, pt_rank, stag, n), what);
        pt_verify_const(rb + n, 64, 0xA5, what);
        pt_verify(sb, (size_t)n, pt_seed(pt_rank, dest, stag, n), "send buffer after MPI_Sendrecv");
    }
}

static void ring_wild(unsigned char *sb, unsigned char *rb)
{
    int dest = (pt_rank + 1) % pt_size;
    int src = (pt_rank - 1 + pt_size) % pt_size;
    int *ib = (int *)sb;
    double *db = (double *)rb;
    MPI_Status st;
    int i;
    pt_set_phase("Sendrecv with wildcards and mixed datatypes");
    /* Send 1000 ints with tag 100+rank; receive up to 3000 ints with wildcards. */
    pt_fill(sb, 4000, pt_seed(pt_rank, dest, 100 + pt_rank, 0));
    memset(rb, 0, 12000);
    CK(MPI_Sendrecv(sb, 1000, MPI_INT, dest, 100 + pt_rank, rb, 3000, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                    MPI_COMM_WORLD, &st));
    pt_expect_status(&st, src, 100 + src, MPI_INT, 1000, "Sendrecv with ANY_SOURCE/ANY_TAG");
    pt_verify(rb, 4000, pt_seed(src, pt_rank, 100 + src, 0), "Sendrecv with ANY_SOURCE/ANY_TAG");
    /* Nobody may send the next messages while a wildcard receive is pending. */
    CK(MPI_Barrier(MPI_COMM_WORLD));

    /* Pairs (0-1, 2-3, ...): in one call the lower rank sends 300 doubles and
     * receives 77 ints, the higher sends 77 ints and receives 300 doubles. */
    {
        int partner = pt_rank ^ 1;
        if (partner < pt_size) {
            if (pt_rank < partner) {
                for (i = 0; i < 300; i++) {
                    ((double *)sb)[i] = pt_rank * 1000.0 + i * 0.5;
                }
                CK(MPI_Sendrecv(sb, 300, MPI_DOUBLE, partner, 7, ib + 4096, 100, MPI_INT, partner, 8, MPI_COMM_WORLD,
                                &st));
                pt_expect_status(&st, partner, 8, MPI_INT, 77, "Sendrecv doubles out, ints in");
                for (i = 0; i < 77; i++) {
                    EXPECT(ib[4096 + i] == partner * 100 + i, "ints from rank %d: element %d is %d", partner, i,
                           ib[4096 + i]);
                }
            } else {
                for (i = 0; i < 77; i++) {
                    ib[8192 + i] = pt_rank * 100 + i;
                }
                CK(MPI_Sendrecv(ib + 8192, 77, MPI_INT, partner, 8, db, 400, MPI_DOUBLE, partner, 7, MPI_COMM_WORLD,
                                &st));
                pt_expect_status(&st, partner, 7, MPI_DOUBLE, 300, "Sendrecv ints out, doubles in");
                for (i = 0; i < 300; i++) {
                    EXPECT(db[i] == partner * 1000.0 + i * 0.5, "doubles from rank %d: element %d is %g", partner, i,
                           db[i]);
                }
            }
        }
    }
}

static void replace(unsigned char *buf, int dir)
{
    int dest = (pt_rank + dir + pt_size) % pt_size;
    int src = (pt_rank - dir + pt_size) % pt_size;
    int k;
    for (k = 0; k < NSZ; k++) {
        int n = sizes[k];
        int tag = 200 + 10 * k + (dir > 0 ? 1 : 2);
        MPI_Status st;
        char what[120];
        snprintf(what, sizeof what, "Sendrecv_replace ring %s, %d bytes from rank %d", dir > 0 ? "right" : "left",
                 n, src);
        pt_set_phase(what);
        pt_fill(buf, (size_t)n, pt_seed(pt_rank, dest, tag, n));
        memset(buf + n, 0xA5, 64);
        pt_status_junk(&st);
        CK(MPI_Sendrecv_replace(buf, n, MPI_BYTE, dest, tag, src, tag, MPI_COMM_WORLD, &st));
        pt_expect_status(&st, src, tag, MPI_BYTE, n, what);
        pt_verify(buf, (size_t)n, pt_seed(src, pt_rank, tag, n), what);
        pt_verify_const(buf + n, 64, 0xA5, what);
    }
    {
        /* 1 MiB of doubles. */
        int n = 131072;
        double *d = (double *)buf;
        int i;
        MPI_Status st;
        pt_set_phase("Sendrecv_replace MPI_DOUBLE");
        for (i = 0; i < n; i++) {
            d[i] = pt_rank + i * 0.25;
        }
        CK(MPI_Sendrecv_replace(d, n, MPI_DOUBLE, dest, 300, src, 300, MPI_COMM_WORLD, &st));
        pt_expect_status(&st, src, 300, MPI_DOUBLE, n, "Sendrecv_replace MPI_DOUBLE");
        for (i = 0; i < n; i++) {
            EXPECT(d[i] == src + i * 0.25, "Sendrecv_replace MPI_DOUBLE element %d is %g, expected %g", i, d[i],
                   src + i * 0.25);
        }
    }
}

static void nonperiodic(unsigned char *sb, unsigned char *rb)
{
    int dest = pt_rank + 1 < pt_size ? pt_rank + 1 : MPI_PROC_NULL;
    int src = pt_rank > 0 ? pt_rank - 1 : MPI_PROC_NULL;
    MPI_Status st;
    pt_set_phase("non-periodic shift with MPI_PROC_NULL ends");
    pt_fill(sb, 5000, pt_seed(pt_rank, dest, 400, 0));
    memset(rb, 0xA5, 5000);
    CK(MPI_Sendrecv(sb, 5000, MPI_BYTE, dest, 400, rb, 5000, MPI_BYTE, src, 400, MPI_COMM_WORLD, &st));
    if (src == MPI_PROC_NULL) {
        pt_expect_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_BYTE, 0, "receive from MPI_PROC_NULL");
        pt_verify_const(rb, 5000, 0xA5, "buffer of a receive from MPI_PROC_NULL");
    } else {
        pt_expect_status(&st, src, 400, MPI_BYTE, 5000, "non-periodic shift");
        pt_verify(rb, 5000, pt_seed(src, pt_rank, 400, 0), "non-periodic shift");
    }
    pt_fill(rb, 3000, pt_seed(pt_rank, dest, 401, 0));
    CK(MPI_Sendrecv_replace(rb, 3000, MPI_BYTE, dest, 401, src, 401, MPI_COMM_WORLD, &st));
    if (src == MPI_PROC_NULL) {
        pt_expect_status(&st, MPI_PROC_NULL, MPI_ANY_TAG, MPI_BYTE, 0, "Sendrecv_replace from MPI_PROC_NULL");
        pt_verify(rb, 3000, pt_seed(pt_rank, dest, 401, 0), "Sendrecv_replace from MPI_PROC_NULL keeps the buffer");
    } else {
        pt_expect_status(&st, src, 401, MPI_BYTE, 3000, "non-periodic Sendrecv_replace");
        pt_verify(rb, 3000, pt_seed(src, pt_rank, 401, 0), "non-periodic Sendrecv_replace");
    }
}

static void self(unsigned char *sb, unsigned char *rb)
{
    MPI_Status st;
    int pass;
    for (pass = 0; pass < 2; pass++) {
        MPI_Comm comm = pass == 0 ? MPI_COMM_WORLD : MPI_COMM_SELF;
        int me = pass == 0 ? pt_rank : 0;
        const char *cname = pass == 0 ? "MPI_COMM_WORLD" : "MPI_COMM_SELF";
        char what[100];
        snprintf(what, sizeof what, "Sendrecv with self on %s", cname);
        pt_set_phase(what);
        pt_fill(sb, 100000, pt_seed(pt_rank, pt_rank, 500 + pass, 0));
        CK(MPI_Sendrecv(sb, 100000, MPI_BYTE, me, 500, rb, 100000, MPI_BYTE, me, 500, comm, &st));
        pt_expect_status(&st, me, 500, MPI_BYTE, 100000, what);
        pt_verify(rb, 100000, pt_seed(pt_rank, pt_rank, 500 + pass, 0), what);
        snprintf(what, sizeof what, "Sendrecv_replace with self on %s", cname);
        pt_set_phase(what);
        CK(MPI_Sendrecv_replace(rb, 100000, MPI_BYTE, me, 501, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
        pt_expect_status(&st, me, 501, MPI_BYTE, 100000, what);
        pt_verify(rb, 100000, pt_seed(pt_rank, pt_rank, 500 + pass, 0), what);
    }
}

int main(int argc, char **argv)
{
    unsigned char *sb;
    unsigned char *rb;
    pt_init(&argc, &argv, "pt2pt_sendrecv");
    pt_require_size(2);
    sb = (unsigned char *)pt_malloc(CAP);
    rb = (unsigned char *)pt_malloc(CAP);
    ring(sb, rb, 1);
    ring(sb, rb, -1);
    ring_wild(sb, rb);
    replace(rb, 1);
    replace(rb, -1);
    nonperiodic(sb, rb);
    self(sb, rb);
    free(sb);
    free(rb);
    return pt_finish();
}
