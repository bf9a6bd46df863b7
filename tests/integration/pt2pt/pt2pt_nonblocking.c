/* pt2pt_nonblocking: nonblocking operations and every completion call.
 *
 * Ranks are paired (0-1, 2-3, ...; an odd last rank idles); in each pair the
 * lower rank is "A" and the higher "B". Receives that must stay incomplete
 * for a while are satisfied by B only after A sends it a separate "go"
 * message, so every "not yet complete" check is deterministic.
 *
 * Covered:
 *   - MPI_Isend, MPI_Ibsend, MPI_Issend, MPI_Irsend (with a handshake) to a
 *     posted MPI_Irecv, small and 1 MiB, completed with MPI_Wait;
 *   - MPI_Irecv for a message that arrived first (unexpected);
 *   - MPI_Test polling; MPI_Test/MPI_Wait on MPI_REQUEST_NULL (flag true,
 *     empty status);
 *   - MPI_Waitall with MPI_REQUEST_NULL entries (their statuses empty, all
 *     handles MPI_REQUEST_NULL afterwards) and with count 0;
 *   - MPI_Waitany: each completion once, its handle nulled, its status right,
 *     then index MPI_UNDEFINED and an empty status when none is active
 *     (including count 0);
 *   - MPI_Waitsome: distinct indices, matching statuses, then outcount
 *     MPI_UNDEFINED when none is active;
 *   - MPI_Testall: false while one request cannot complete, with no request
 *     modified; true afterwards with statuses set;
 *   - MPI_Testany: flag false and index MPI_UNDEFINED while nothing is
 *     complete, the right index once one is; index MPI_UNDEFINED when none is
 *     active (MPI-1.1 said flag false there, later texts flag true: either is
 *     accepted, but a true flag must come with an empty status);
 *   - MPI_Testsome: outcount 0 while nothing is complete, MPI_UNDEFINED when
 *     none is active;
 *   - MPI_Test_cancelled false on the status of completed sends.
 */
#include "pt2pt_common.h"

#define BIG (1024 * 1024)
#define TAG_GO 9000

static int partner;
static int is_a;

static void send_go(int k)
{
    CK(MPI_Send(&k, 1, MPI_INT, partner, TAG_GO + k, MPI_COMM_WORLD));
}

static void recv_go(int k)
{
    int v = -1;
    MPI_Status st;
    CK(MPI_Recv(&v, 1, MPI_INT, partner, TAG_GO + k, MPI_COMM_WORLD, &st));
    EXPECT(v == k, "go message %d holds %d", k, v);
}

static void expect_not_cancelled(const MPI_Status *st, const char *what)
{
    int flag = -1;
    CK(MPI_Test_cancelled(st, &flag));
    EXPECT(flag == 0, "%s: MPI_Test_cancelled is true for a completed operation", what);
}

/* 1. Every send variant to a posted MPI_Irecv. */
static void send_variants(unsigned char *buf)
{
    static const int sizes[2] = {100, BIG};
    static const char *names[4] = {"Isend", "Ibsend", "Issend", "Irsend"};
    int v;
    int si;
    unsigned char *bsbuf = NULL;
    int bssize = BIG + 100 + 2 * MPI_BSEND_OVERHEAD;
    char what[100];

    if (is_a) {
        bsbuf = (unsigned char *)pt_malloc((size_t)bssize);
        CK(MPI_Buffer_attach(bsbuf, bssize));
    }
    for (v = 0; v < 4; v++) {
        for (si = 0; si < 2; si++) {
            int n = sizes[si];
            int tag = 100 + 10 * v + si;
            MPI_Request rq;
            MPI_Status st;
            snprintf(what, sizeof what, "%s of %d bytes to a posted MPI_Irecv", names[v], n);
            pt_set_phase(what);
            if (is_a) {
                if (v == 3) {
                    recv_go(tag); /* B has posted its receive */
                }
                pt_fill(buf, (size_t)n, pt_seed(pt_rank, partner, tag, n));
                switch (v) {
                case 0:
                    CK(MPI_Isend(buf, n, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &rq));
                    break;
                case 1:
                    CK(MPI_Ibsend(buf, n, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &rq));
                    break;
                case 2:
                    CK(MPI_Issend(buf, n, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &rq));
                    break;
                default:
                    CK(MPI_Irsend(buf, n, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &rq));
                    break;
                }
                EXPECT(rq != MPI_REQUEST_NULL, "%s returned MPI_REQUEST_NULL", names[v]);
                CK(MPI_Wait(&rq, &st));
                EXPECT(rq == MPI_REQUEST_NULL, "%s: MPI_Wait did not set the request to MPI_REQUEST_NULL",
                       what);
                expect_not_cancelled(&st, what);
            } else {
                memset(buf, 0xA5, (size_t)n + 8);
                CK(MPI_Irecv(buf, n + 8, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &rq));
                EXPECT(rq != MPI_REQUEST_NULL, "MPI_Irecv returned MPI_REQUEST_NULL");
                if (v == 3) {
                    send_go(tag);
                }
                pt_status_junk(&st);
                CK(MPI_Wait(&rq, &st));
                EXPECT(rq == MPI_REQUEST_NULL, "%s: MPI_Wait did not set the request to MPI_REQUEST_NULL",
                       what);
                pt_expect_status(&st, partner, tag, MPI_BYTE, n, what);
                expect_not_cancelled(&st, what);
                pt_verify(buf, (size_t)n, pt_seed(partner, pt_rank, tag, n), what);
                pt_verify_const(buf + n, 8, 0xA5, what);
            }
        }
    }
    if (is_a) {
        void *addr;
        int size;
        CK(MPI_Buffer_detach(&addr, &size));
        free(bsbuf);
    }
}

/* 2. MPI_Irecv of a message that is already there; MPI_Test polling. */
static void unexpected_and_test(unsigned char *buf)
{
    MPI_Request rq;
    MPI_Status st;
    int flag = 0;
    pt_set_phase("Irecv of an unexpected message");
    if (is_a) {
        recv_go(1); /* B's message has been sent (it may still be in flight) */
        pt_sleep_ms(20);
        CK(MPI_Irecv(buf, 64, MPI_BYTE, partner, 200, MPI_COMM_WORLD, &rq));
        CK(MPI_Wait(&rq, &st));
        pt_expect_status(&st, partner, 200, MPI_BYTE, 64, "unexpected message");
        pt_verify(buf, 64, pt_seed(partner, pt_rank, 200, 64), "unexpected message");

        pt_set_phase("Test polling");
        CK(MPI_Irecv(buf, BIG, MPI_BYTE, partner, 201, MPI_COMM_WORLD, &rq));
        CK(MPI_Test(&rq, &flag, &st));
        EXPECT(flag == 0, "MPI_Test true for a receive whose message is not yet sent");
        EXPECT(rq != MPI_REQUEST_NULL, "MPI_Test false but the request was freed");
        send_go(2);
        while (!flag) {
            pt_status_junk(&st);
            CK(MPI_Test(&rq, &flag, &st));
        }
        EXPECT(rq == MPI_REQUEST_NULL, "MPI_Test true but the request is not MPI_REQUEST_NULL");
        pt_expect_status(&st, partner, 201, MPI_BYTE, BIG, "Test-polled receive");
        pt_verify(buf, BIG, pt_seed(partner, pt_rank, 201, BIG), "Test-polled receive");
    } else {
        MPI_Request sq;
        pt_fill(buf, 64, pt_seed(pt_rank, partner, 200, 64));
        CK(MPI_Isend(buf, 64, MPI_BYTE, partner, 200, MPI_COMM_WORLD, &sq));
        send_go(1);
        CK(MPI_Wait(&sq, &st));
        recv_go(2);
        pt_fill(buf, BIG, pt_seed(pt_rank, partner, 201, BIG));
        CK(MPI_Send(buf, BIG, MPI_BYTE, partner, 201, MPI_COMM_WORLD));
    }

    pt_set_phase("Wait/Test on MPI_REQUEST_NULL");
    rq = MPI_REQUEST_NULL;
    pt_status_junk(&st);
    CK(MPI_Wait(&rq, &st));
    pt_expect_empty(&st, "MPI_Wait(MPI_REQUEST_NULL)");
    EXPECT(rq == MPI_REQUEST_NULL, "MPI_Wait changed MPI_REQUEST_NULL");
    flag = 0;
    pt_status_junk(&st);
    CK(MPI_Test(&rq, &flag, &st));
    EXPECT(flag != 0, "MPI_Test(MPI_REQUEST_NULL) gave flag false");
    pt_expect_empty(&st, "MPI_Test(MPI_REQUEST_NULL)");
}

/* 3. MPI_Waitall with null entries and count 0. */
static void waitall(unsigned char *buf)
{
    MPI_Request rq[6];
    MPI_Status st[6];
    int i;
    pt_set_phase("Waitall with null entries");
    if (is_a) {
        unsigned char *out = buf + 2 * BIG;
        for (i = 0; i < 6; i++) {
            pt_status_junk(&st[i]);
        }
        memset(buf, 0, 2 * BIG);
        rq[0] = MPI_REQUEST_NULL;
        CK(MPI_Irecv(buf, 1000, MPI_BYTE, partner, 301, MPI_COMM_WORLD, &rq[1]));
        rq[2] = MPI_REQUEST_NULL;
        CK(MPI_Irecv(buf + BIG, BIG, MPI_BYTE, partner, 302, MPI_COMM_WORLD, &rq[3]));
        pt_fill(out, 5000, pt_seed(pt_rank, partner, 303, 5000));
        CK(MPI_Isend(out, 5000, MPI_BYTE, partner, 303, MPI_COMM_WORLD, &rq[4]));
        rq[5] = MPI_REQUEST_NULL;
        CK(MPI_Waitall(6, rq, st));
        for (i = 0; i < 6; i++) {
            EXPECT(rq[i] == MPI_REQUEST_NULL, "MPI_Waitall left request %d not MPI_REQUEST_NULL", i);
        }
        pt_expect_empty(&st[0], "Waitall status of null entry 0");
        pt_expect_empty(&st[2], "Waitall status of null entry 2");
        pt_expect_empty(&st[5], "Waitall status of null entry 5");
        pt_expect_status(&st[1], partner, 301, MPI_BYTE, 700, "Waitall receive 1");
        pt_expect_status(&st[3], partner, 302, MPI_BYTE, BIG, "Waitall receive 3");
        expect_not_cancelled(&st[4], "Waitall send 4");
        pt_verify(buf, 700, pt_seed(partner, pt_rank, 301, 700), "Waitall receive 1");
        pt_verify(buf + BIG, BIG, pt_seed(partner, pt_rank, 302, BIG), "Waitall receive 3");
    } else {
        pt_fill(buf, BIG, pt_seed(pt_rank, partner, 302, BIG));
        CK(MPI_Send(buf, BIG, MPI_BYTE, partner, 302, MPI_COMM_WORLD));
        CK(MPI_Recv(buf, 5000, MPI_BYTE, partner, 303, MPI_COMM_WORLD, &st[0]));
        pt_expect_status(&st[0], partner, 303, MPI_BYTE, 5000, "Waitall peer receive");
        pt_verify(buf, 5000, pt_seed(partner, pt_rank, 303, 5000), "Waitall peer receive");
        pt_fill(buf, 700, pt_seed(pt_rank, partner, 301, 700));
        CK(MPI_Send(buf, 700, MPI_BYTE, partner, 301, MPI_COMM_WORLD));
    }
    pt_set_phase("Waitall with count 0 and all-null");
    CK(MPI_Waitall(0, rq, st));
    for (i = 0; i < 3; i++) {
        rq[i] = MPI_REQUEST_NULL;
        pt_status_junk(&st[i]);
    }
    CK(MPI_Waitall(3, rq, st));
    for (i = 0; i < 3; i++) {
        pt_expect_empty(&st[i], "Waitall on all-null array");
    }
}

/* 4. MPI_Waitany. */
static void waitany(unsigned char *buf)
{
    /* entries 0..7; active receives at 1,2,4,5,7 with tags 400 + entry */
    static const int active[5] = {1, 2, 4, 5, 7};
    static const int send_order[5] = {7, 4, 1, 5, 2};
    MPI_Request rq[8];
    MPI_Status st;
    int done[8];
    int i;
    int idx;
    pt_set_phase("Waitany");
    if (is_a) {
        for (i = 0; i < 8; i++) {
            rq[i] = MPI_REQUEST_NULL;
            done[i] = 0;
        }
        for (i = 0; i < 5; i++) {
            int e = active[i];
            CK(MPI_Irecv(buf + (size_t)e * 256, 256, MPI_BYTE, partner, 400 + e, MPI_COMM_WORLD, &rq[e]));
        }
        for (i = 0; i < 5; i++) {
            char what[80];
            idx = -1;
            pt_status_junk(&st);
            CK(MPI_Waitany(8, rq, &idx, &st));
            EXPECT(idx >= 0 && idx < 8, "MPI_Waitany returned index %d with active requests left", idx);
            snprintf(what, sizeof what, "Waitany completion %d (index %d)", i, idx);
            EXPECT(!done[idx], "%s: index returned twice", what);
            EXPECT(idx == 1 || idx == 2 || idx == 4 || idx == 5 || idx == 7, "%s: index of a null entry", what);
            EXPECT(rq[idx] == MPI_REQUEST_NULL, "%s: the completed request was not set to MPI_REQUEST_NULL",
                   what);
            done[idx] = 1;
            pt_expect_status(&st, partner, 400 + idx, MPI_BYTE, 10 + idx, what);
            pt_verify(buf + (size_t)idx * 256, (size_t)(10 + idx), pt_seed(partner, pt_rank, 400 + idx, 0),
                      what);
        }
        idx = -1;
        pt_status_junk(&st);
        CK(MPI_Waitany(8, rq, &idx, &st));
        EXPECT(idx == MPI_UNDEFINED, "MPI_Waitany on all-null array returned index %d, expected MPI_UNDEFINED",
               idx);
        pt_expect_empty(&st, "MPI_Waitany on all-null array");
        idx = -1;
        pt_status_junk(&st);
        CK(MPI_Waitany(0, rq, &idx, &st));
        EXPECT(idx == MPI_UNDEFINED, "MPI_Waitany with count 0 returned index %d", idx);
        pt_expect_empty(&st, "MPI_Waitany with count 0");
    } else {
        for (i = 0; i < 5; i++) {
            int e = send_order[i];
            pt_fill(buf, (size_t)(10 + e), pt_seed(pt_rank, partner, 400 + e, 0));
            CK(MPI_Send(buf, 10 + e, MPI_BYTE, partner, 400 + e, MPI_COMM_WORLD));
        }
    }
}

/* 5. MPI_Waitsome. */
static void waitsome(unsigned char *buf)
{
    MPI_Request rq[10];
    MPI_Status st[10];
    int indices[10];
    int done[10];
    int i;
    int total = 0;
    int outcount;
    pt_set_phase("Waitsome");
    if (is_a) {
        for (i = 0; i < 10; i++) {
            done[i] = 0;
            rq[i] = MPI_REQUEST_NULL;
            if (i % 3 != 0) { /* 6 active entries: 1,2,4,5,7,8 */
                CK(MPI_Irecv(buf + (size_t)i * 128, 128, MPI_BYTE, partner, 500 + i, MPI_COMM_WORLD, &rq[i]));
            }
        }
        for (;;) {
            int k;
            outcount = -1;
            for (k = 0; k < 10; k++) {
                indices[k] = -1;
                pt_status_junk(&st[k]);
            }
            CK(MPI_Waitsome(10, rq, &outcount, indices, st));
            if (outcount == MPI_UNDEFINED) {
                break;
            }
            EXPECT(outcount >= 1 && outcount <= 6 - total, "MPI_Waitsome outcount %d with %d active",
                   outcount, 6 - total);
            for (k = 0; k < outcount; k++) {
                int e = indices[k];
                char what[80];
                snprintf(what, sizeof what, "Waitsome completion of entry %d", e);
                EXPECT(e >= 0 && e < 10 && e % 3 != 0, "MPI_Waitsome returned bad index %d", e);
                EXPECT(!done[e], "MPI_Waitsome returned index %d twice", e);
                EXPECT(rq[e] == MPI_REQUEST_NULL, "%s: request not set to MPI_REQUEST_NULL", what);
                done[e] = 1;
                total++;
                pt_expect_status(&st[k], partner, 500 + e, MPI_BYTE, 20 + e, what);
                pt_verify(buf + (size_t)e * 128, (size_t)(20 + e), pt_seed(partner, pt_rank, 500 + e, 0), what);
            }
        }
        EXPECT(total == 6, "MPI_Waitsome returned MPI_UNDEFINED after %d of 6 completions", total);
        outcount = -1;
        CK(MPI_Waitsome(0, rq, &outcount, indices, st));
        EXPECT(outcount == MPI_UNDEFINED, "MPI_Waitsome with count 0 gave outcount %d", outcount);
    } else {
        static const int order[6] = {5, 1, 8, 2, 7, 4};
        for (i = 0; i < 6; i++) {
            int e = order[i];
            pt_fill(buf, (size_t)(20 + e), pt_seed(pt_rank, partner, 500 + e, 0));
            CK(MPI_Send(buf, 20 + e, MPI_BYTE, partner, 500 + e, MPI_COMM_WORLD));
        }
    }
}

/* 6. MPI_Testall. */
static void testall(unsigned char *buf)
{
    MPI_Request rq[3];
    MPI_Request saved[3];
    MPI_Status st[3];
    int flag = 0;
    int i;
    int k;
    pt_set_phase("Testall");
    if (is_a) {
        CK(MPI_Irecv(buf, 100, MPI_BYTE, partner, 600, MPI_COMM_WORLD, &rq[0]));
        rq[1] = MPI_REQUEST_NULL;
        CK(MPI_Irecv(buf + 100, 100, MPI_BYTE, partner, 601, MPI_COMM_WORLD, &rq[2]));
        memcpy(saved, rq, sizeof rq);
        /* B sends 600 at once, 601 only after go 6. */
        for (k = 0; k < 50; k++) {
            CK(MPI_Testall(3, rq, &flag, st));
            EXPECT(flag == 0, "MPI_Testall true while a request cannot have completed (try %d)", k);
            for (i = 0; i < 3; i++) {
                EXPECT(rq[i] == saved[i], "MPI_Testall returned false but modified request %d", i);
            }
            pt_sleep_ms(1);
        }
        send_go(6);
        flag = 0;
        while (!flag) {
            for (i = 0; i < 3; i++) {
                pt_status_junk(&st[i]);
            }
            CK(MPI_Testall(3, rq, &flag, st));
        }
        for (i = 0; i < 3; i++) {
            EXPECT(rq[i] == MPI_REQUEST_NULL, "MPI_Testall true but request %d not MPI_REQUEST_NULL", i);
        }
        pt_expect_status(&st[0], partner, 600, MPI_BYTE, 30, "Testall receive 0");
        pt_expect_empty(&st[1], "Testall null entry 1");
        pt_expect_status(&st[2], partner, 601, MPI_BYTE, 31, "Testall receive 2");
        pt_verify(buf, 30, pt_seed(partner, pt_rank, 600, 0), "Testall receive 0");
        pt_verify(buf + 100, 31, pt_seed(partner, pt_rank, 601, 0), "Testall receive 2");
        flag = 0;
        CK(MPI_Testall(3, rq, &flag, st));
        EXPECT(flag != 0, "MPI_Testall on an all-null array gave flag false");
        for (i = 0; i < 3; i++) {
            pt_expect_empty(&st[i], "Testall on all-null array");
        }
    } else {
        pt_fill(buf, 30, pt_seed(pt_rank, partner, 600, 0));
        CK(MPI_Send(buf, 30, MPI_BYTE, partner, 600, MPI_COMM_WORLD));
        recv_go(6);
        pt_fill(buf, 31, pt_seed(pt_rank, partner, 601, 0));
        CK(MPI_Send(buf, 31, MPI_BYTE, partner, 601, MPI_COMM_WORLD));
    }
}

/* 7. MPI_Testany. */
static void testany(unsigned char *buf)
{
    MPI_Request rq[4];
    MPI_Status st;
    int flag;
    int idx;
    int k;
    pt_set_phase("Testany");
    if (is_a) {
        rq[0] = MPI_REQUEST_NULL;
        CK(MPI_Irecv(buf, 100, MPI_BYTE, partner, 700, MPI_COMM_WORLD, &rq[1]));
        rq[2] = MPI_REQUEST_NULL;
        CK(MPI_Irecv(buf + 100, 100, MPI_BYTE, partner, 701, MPI_COMM_WORLD, &rq[3]));
        for (k = 0; k < 20; k++) {
            flag = -1;
            idx = -1;
            CK(MPI_Testany(4, rq, &idx, &flag, &st));
            EXPECT(flag == 0, "MPI_Testany true before any message was sent");
            EXPECT(idx == MPI_UNDEFINED, "MPI_Testany false but index %d (expected MPI_UNDEFINED)", idx);
        }
        send_go(7);
        flag = 0;
        while (!flag) {
            pt_status_junk(&st);
            CK(MPI_Testany(4, rq, &idx, &flag, &st));
        }
        EXPECT(idx == 1, "MPI_Testany completed index %d, only index 1 could", idx);
        EXPECT(rq[1] == MPI_REQUEST_NULL, "MPI_Testany did not null the completed request");
        pt_expect_status(&st, partner, 700, MPI_BYTE, 40, "Testany receive 1");
        pt_verify(buf, 40, pt_seed(partner, pt_rank, 700, 0), "Testany receive 1");
        flag = -1;
        CK(MPI_Testany(4, rq, &idx, &flag, &st));
        EXPECT(flag == 0 && idx == MPI_UNDEFINED, "MPI_Testany gave flag %d index %d while the only active "
               "request cannot complete", flag, idx);
        send_go(8);
        flag = 0;
        while (!flag) {
            CK(MPI_Testany(4, rq, &idx, &flag, &st));
        }
        EXPECT(idx == 3, "MPI_Testany completed index %d, expected 3", idx);
        pt_expect_status(&st, partner, 701, MPI_BYTE, 41, "Testany receive 3");
        pt_verify(buf + 100, 41, pt_seed(partner, pt_rank, 701, 0), "Testany receive 3");
        flag = -1;
        idx = -1;
        pt_status_junk(&st);
        CK(MPI_Testany(4, rq, &idx, &flag, &st));
        EXPECT(idx == MPI_UNDEFINED, "MPI_Testany on an all-null array gave index %d", idx);
        if (flag) {
            pt_expect_empty(&st, "MPI_Testany on an all-null array");
        }
    } else {
        recv_go(7);
        pt_fill(buf, 40, pt_seed(pt_rank, partner, 700, 0));
        CK(MPI_Send(buf, 40, MPI_BYTE, partner, 700, MPI_COMM_WORLD));
        recv_go(8);
        pt_fill(buf, 41, pt_seed(pt_rank, partner, 701, 0));
        CK(MPI_Send(buf, 41, MPI_BYTE, partner, 701, MPI_COMM_WORLD));
    }
}

/* 8. MPI_Testsome. */
static void testsome(unsigned char *buf)
{
    MPI_Request rq[5];
    MPI_Status st[5];
    int indices[5];
    int done[5] = {0, 0, 0, 0, 0};
    int outcount;
    int total = 0;
    int i;
    int k;
    pt_set_phase("Testsome");
    if (is_a) {
        for (i = 0; i < 5; i++) {
            rq[i] = MPI_REQUEST_NULL;
            if (i != 2) {
                CK(MPI_Irecv(buf + i * 64, 64, MPI_BYTE, partner, 800 + i, MPI_COMM_WORLD, &rq[i]));
            }
        }
        for (k = 0; k < 20; k++) {
            outcount = -1;
            CK(MPI_Testsome(5, rq, &outcount, indices, st));
            EXPECT(outcount == 0, "MPI_Testsome gave outcount %d before any message was sent", outcount);
        }
        send_go(9);
        while (total < 4) {
            outcount = -1;
            CK(MPI_Testsome(5, rq, &outcount, indices, st));
            EXPECT(outcount >= 0 && outcount <= 4 - total, "MPI_Testsome outcount %d with %d active", outcount,
                   4 - total);
            for (k = 0; k < outcount; k++) {
                int e = indices[k];
                char what[80];
                snprintf(what, sizeof what, "Testsome completion of entry %d", e);
                EXPECT(e >= 0 && e < 5 && e != 2 && !done[e], "MPI_Testsome returned bad or repeated index %d", e);
                EXPECT(rq[e] == MPI_REQUEST_NULL, "%s: request not nulled", what);
                done[e] = 1;
                total++;
                pt_expect_status(&st[k], partner, 800 + e, MPI_BYTE, 50 + e, what);
                pt_verify(buf + e * 64, (size_t)(50 + e), pt_seed(partner, pt_rank, 800 + e, 0), what);
            }
        }
        outcount = -1;
        CK(MPI_Testsome(5, rq, &outcount, indices, st));
        EXPECT(outcount == MPI_UNDEFINED, "MPI_Testsome on an all-null array gave outcount %d", outcount);
    } else {
        recv_go(9);
        for (i = 4; i >= 0; i--) {
            if (i != 2) {
                pt_fill(buf, (size_t)(50 + i), pt_seed(pt_rank, partner, 800 + i, 0));
                CK(MPI_Send(buf, 50 + i, MPI_BYTE, partner, 800 + i, MPI_COMM_WORLD));
            }
        }
    }
}

/* 9. Both directions at once: Isend + Irecv completed by one MPI_Waitall. */
static void exchange(unsigned char *buf)
{
    MPI_Request rq[2];
    MPI_Status st[2];
    unsigned char *out = buf + 2 * BIG;
    pt_set_phase("Isend+Irecv exchange with Waitall");
    pt_fill(out, BIG, pt_seed(pt_rank, partner, 900, BIG));
    memset(buf, 0, BIG);
    CK(MPI_Isend(out, BIG, MPI_BYTE, partner, 900, MPI_COMM_WORLD, &rq[0]));
    CK(MPI_Irecv(buf, BIG, MPI_BYTE, partner, 900, MPI_COMM_WORLD, &rq[1]));
    CK(MPI_Waitall(2, rq, st));
    pt_expect_status(&st[1], partner, 900, MPI_BYTE, BIG, "exchange receive");
    expect_not_cancelled(&st[0], "exchange send");
    pt_verify(buf, BIG, pt_seed(partner, pt_rank, 900, BIG), "exchange receive");
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "pt2pt_nonblocking");
    unsigned char *buf;
    pt_require_size(2);
    partner = rank ^ 1;
    is_a = rank < partner;
    if (partner < pt_size) {
        buf = (unsigned char *)pt_malloc(3 * BIG + 64);
        send_variants(buf);
        unexpected_and_test(buf);
        waitall(buf);
        waitany(buf);
        waitsome(buf);
        testall(buf);
        testany(buf);
        testsome(buf);
        exchange(buf);
        free(buf);
    }
    return pt_finish();
}
