/* pt2pt_persistent: persistent communication requests (MPI-1.3 3.9).
 *
 * Ranks are paired (0-1, 2-3, ...; an odd last rank idles); "A" is the lower.
 *   1. MPI_Send_init / MPI_Recv_init started and completed 40 times (small)
 *      and 4 times (1 MiB); each start sends the buffer's content at that
 *      time; the handles stay valid after MPI_Wait.
 *   2. MPI_Bsend_init with an attached buffer, 10 starts.
 *   3. MPI_Ssend_init: each start stays incomplete (MPI_Test false) until the
 *      receiver, released by a separate "go" message, starts its receive.
 *   4. MPI_Rsend_init: the receiver starts its receive, then signals "ready".
 *   5. MPI_Startall over two sends and two receives per side (both
 *      directions), completed with MPI_Waitall, 20 rounds.
 *   6. A persistent MPI_ANY_SOURCE/MPI_ANY_TAG receive alternately matched by
 *      two persistent sends with different tags: status per round.
 *   7. Inactive requests (never started, and completed): MPI_Wait and MPI_Test
 *      return at once with an empty status and leave the handle; MPI_Waitall
 *      sets empty statuses; MPI_Waitany gives MPI_UNDEFINED; MPI_Testsome
 *      gives outcount MPI_UNDEFINED; MPI_Waitany with one started request
 *      returns it and leaves it allocated (inactive); MPI_Request_free of an
 *      inactive persistent request sets the handle to MPI_REQUEST_NULL.
 */
#include "pt2pt_common.h"

#define BIG (1024 * 1024)

static int partner;
static int is_a;

static void go_send(int tag)
{
    int v = tag;
    CK(MPI_Send(&v, 1, MPI_INT, partner, tag, MPI_COMM_WORLD));
}

static void go_recv(int tag)
{
    int v = -1;
    MPI_Status st;
    CK(MPI_Recv(&v, 1, MPI_INT, partner, tag, MPI_COMM_WORLD, &st));
    EXPECT(v == tag, "handshake message %d holds %d", tag, v);
}

static void free_req(MPI_Request *rq, const char *what)
{
    CK(MPI_Request_free(rq));
    EXPECT(*rq == MPI_REQUEST_NULL, "%s: MPI_Request_free did not set the handle to MPI_REQUEST_NULL", what);
}

static void send_recv_init(unsigned char *buf)
{
    int pass;
    for (pass = 0; pass < 2; pass++) {
        int n = pass == 0 ? 400 : BIG;
        int rounds = pass == 0 ? 40 : 4;
        int tag = 10 + pass;
        int r;
        MPI_Request rq;
        MPI_Request first;
        MPI_Status st;
        char what[100];
        pt_set_phase(pass == 0 ? "Send_init/Recv_init small" : "Send_init/Recv_init 1 MiB");
        if (is_a) {
            CK(MPI_Send_init(buf, n, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &rq));
        } else {
            CK(MPI_Recv_init(buf, n + 8, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &rq));
        }
        EXPECT(rq != MPI_REQUEST_NULL, "persistent init returned MPI_REQUEST_NULL");
        first = rq;
        for (r = 0; r < rounds; r++) {
            snprintf(what, sizeof what, "persistent %d-byte message, round %d", n, r);
            if (is_a) {
                pt_fill(buf, (size_t)n, pt_seed(pt_rank, partner, tag, r));
                CK(MPI_Start(&rq));
                CK(MPI_Wait(&rq, &st));
            } else {
                memset(buf, 0xA5, (size_t)n + 8);
                CK(MPI_Start(&rq));
                pt_status_junk(&st);
                CK(MPI_Wait(&rq, &st));
                pt_expect_status(&st, partner, tag, MPI_BYTE, n, what);
                pt_verify(buf, (size_t)n, pt_seed(partner, pt_rank, tag, r), what);
                pt_verify_const(buf + n, 8, 0xA5, what);
            }
            EXPECT(rq == first, "%s: MPI_Wait changed the persistent request handle", what);
        }
        free_req(&rq, "after Send_init/Recv_init rounds");
    }
}

static void bsend_init(unsigned char *buf)
{
    int n = 3000;
    int rounds = 10;
    int r;
    MPI_Request rq;
    MPI_Status st;
    char what[80];
    pt_set_phase("Bsend_init");
    if (is_a) {
        int bsize = rounds * (n + MPI_BSEND_OVERHEAD);
        void *b = pt_malloc((size_t)bsize);
        void *addr;
        int size;
        CK(MPI_Buffer_attach(b, bsize));
        CK(MPI_Bsend_init(buf, n, MPI_BYTE, partner, 20, MPI_COMM_WORLD, &rq));
        for (r = 0; r < rounds; r++) {
            pt_fill(buf, (size_t)n, pt_seed(pt_rank, partner, 20, r));
            CK(MPI_Start(&rq));
            CK(MPI_Wait(&rq, &st)); /* local: the receiver waits for the note */
        }
        go_send(21);
        free_req(&rq, "Bsend_init");
        CK(MPI_Buffer_detach(&addr, &size));
        EXPECT(addr == b && size == bsize, "MPI_Buffer_detach returned %p/%d, attached %p/%d", addr, size, b, bsize);
        free(b);
    } else {
        go_recv(21);
        CK(MPI_Recv_init(buf, n, MPI_BYTE, partner, 20, MPI_COMM_WORLD, &rq));
        for (r = 0; r < rounds; r++) {
            snprintf(what, sizeof what, "Bsend_init round %d", r);
            CK(MPI_Start(&rq));
            CK(MPI_Wait(&rq, &st));
            pt_expect_status(&st, partner, 20, MPI_BYTE, n, what);
            pt_verify(buf, (size_t)n, pt_seed(partner, pt_rank, 20, r), what);
        }
        free_req(&rq, "Recv_init for Bsend_init");
    }
}

static void ssend_init(unsigned char *buf)
{
    int r;
    int k;
    MPI_Request rq;
    MPI_Status st;
    char what[80];
    pt_set_phase("Ssend_init");
    if (is_a) {
        CK(MPI_Ssend_init(buf, 500, MPI_BYTE, partner, 30, MPI_COMM_WORLD, &rq));
    } else {
        CK(MPI_Recv_init(buf, 500, MPI_BYTE, partner, 30, MPI_COMM_WORLD, &rq));
    }
    for (r = 0; r < 3; r++) {
        snprintf(what, sizeof what, "Ssend_init round %d", r);
        if (is_a) {
            int flag = 0;
            pt_fill(buf, 500, pt_seed(pt_rank, partner, 30, r));
            CK(MPI_Start(&rq));
            for (k = 0; k < 50; k++) {
                CK(MPI_Test(&rq, &flag, &st));
                EXPECT(flag == 0, "%s: synchronous send complete before the receive was started", what);
                pt_sleep_ms(1);
            }
            go_send(31 + r);
            CK(MPI_Wait(&rq, &st));
        } else {
            go_recv(31 + r);
            CK(MPI_Start(&rq));
            CK(MPI_Wait(&rq, &st));
            pt_expect_status(&st, partner, 30, MPI_BYTE, 500, what);
            pt_verify(buf, 500, pt_seed(partner, pt_rank, 30, r), what);
        }
    }
    free_req(&rq, "Ssend_init");
}

static void rsend_init(unsigned char *buf)
{
    int r;
    MPI_Request rq;
    MPI_Status st;
    char what[80];
    pt_set_phase("Rsend_init");
    if (is_a) {
        CK(MPI_Rsend_init(buf, 2000, MPI_BYTE, partner, 40, MPI_COMM_WORLD, &rq));
    } else {
        CK(MPI_Recv_init(buf, 2000, MPI_BYTE, partner, 40, MPI_COMM_WORLD, &rq));
    }
    for (r = 0; r < 10; r++) {
        snprintf(what, sizeof what, "Rsend_init round %d", r);
        if (is_a) {
            go_recv(41);
            pt_fill(buf, 2000, pt_seed(pt_rank, partner, 40, r));
            CK(MPI_Start(&rq));
            CK(MPI_Wait(&rq, &st));
        } else {
            CK(MPI_Start(&rq));
            go_send(41);
            CK(MPI_Wait(&rq, &st));
            pt_expect_status(&st, partner, 40, MPI_BYTE, 2000, what);
            pt_verify(buf, 2000, pt_seed(partner, pt_rank, 40, r), what);
        }
    }
    free_req(&rq, "Rsend_init");
}

static void startall(unsigned char *buf)
{
    MPI_Request rq[4];
    MPI_Status st[4];
    unsigned char *sb0 = buf;
    unsigned char *sb1 = buf + 1000;
    unsigned char *rb0 = buf + 100000;
    unsigned char *rb1 = buf + 200000;
    int r;
    int k;
    char what[80];
    pt_set_phase("Startall");
    /* Requests: 0 send tag 50 (600 B), 1 receive tag 50, 2 send tag 51
     * (70000 B, Ssend), 3 receive tag 51. */
    CK(MPI_Send_init(sb0, 600, MPI_BYTE, partner, 50, MPI_COMM_WORLD, &rq[0]));
    CK(MPI_Recv_init(rb0, 600, MPI_BYTE, partner, 50, MPI_COMM_WORLD, &rq[1]));
    CK(MPI_Ssend_init(sb1, 70000, MPI_BYTE, partner, 51, MPI_COMM_WORLD, &rq[2]));
    CK(MPI_Recv_init(rb1, 70000, MPI_BYTE, partner, 51, MPI_COMM_WORLD, &rq[3]));
    for (r = 0; r < 20; r++) {
        MPI_Request saved[4];
        snprintf(what, sizeof what, "Startall round %d", r);
        pt_fill(sb0, 600, pt_seed(pt_rank, partner, 50, r));
        pt_fill(sb1, 70000, pt_seed(pt_rank, partner, 51, r));
        memcpy(saved, rq, sizeof rq);
        CK(MPI_Startall(4, rq));
        CK(MPI_Waitall(4, rq, st));
        for (k = 0; k < 4; k++) {
            EXPECT(rq[k] == saved[k], "%s: MPI_Waitall changed persistent handle %d", what, k);
        }
        pt_expect_status(&st[1], partner, 50, MPI_BYTE, 600, what);
        pt_expect_status(&st[3], partner, 51, MPI_BYTE, 70000, what);
        pt_verify(rb0, 600, pt_seed(partner, pt_rank, 50, r), what);
        pt_verify(rb1, 70000, pt_seed(partner, pt_rank, 51, r), what);
    }
    for (k = 0; k < 4; k++) {
        free_req(&rq[k], "Startall requests");
    }
}

static void wildcard_recv_init(unsigned char *buf)
{
    int r;
    MPI_Status st;
    char what[80];
    pt_set_phase("persistent wildcard receive");
    if (is_a) {
        MPI_Request sq[2];
        CK(MPI_Send_init(buf, 10, MPI_BYTE, partner, 60, MPI_COMM_WORLD, &sq[0]));
        CK(MPI_Send_init(buf + 100, 20, MPI_BYTE, partner, 61, MPI_COMM_WORLD, &sq[1]));
        for (r = 0; r < 10; r++) {
            int k = r % 2;
            pt_fill(buf + 100 * k, (size_t)(10 + 10 * k), pt_seed(pt_rank, partner, 60 + k, r));
            CK(MPI_Start(&sq[k]));
            CK(MPI_Wait(&sq[k], &st));
        }
        free_req(&sq[0], "wildcard test send 0");
        free_req(&sq[1], "wildcard test send 1");
    } else {
        MPI_Request rq;
        CK(MPI_Recv_init(buf, 100, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq));
        for (r = 0; r < 10; r++) {
            int k = r % 2;
            snprintf(what, sizeof what, "persistent wildcard receive round %d", r);
            CK(MPI_Start(&rq));
            pt_status_junk(&st);
            CK(MPI_Wait(&rq, &st));
            pt_expect_status(&st, partner, 60 + k, MPI_BYTE, 10 + 10 * k, what);
            pt_verify(buf, (size_t)(10 + 10 * k), pt_seed(partner, pt_rank, 60 + k, r), what);
        }
        free_req(&rq, "wildcard persistent receive");
    }
}

static void inactive(unsigned char *buf)
{
    MPI_Request rq[3];
    MPI_Request saved[3];
    MPI_Status st[3];
    int flag;
    int idx;
    int outcount;
    int indices[3];
    int k;
    int round;

    pt_set_phase("inactive persistent requests");
    CK(MPI_Recv_init(buf, 64, MPI_BYTE, partner, 70, MPI_COMM_WORLD, &rq[0]));
    CK(MPI_Send_init(buf + 100, 64, MPI_BYTE, partner, 70, MPI_COMM_WORLD, &rq[1]));
    rq[2] = MPI_REQUEST_NULL;
    memcpy(saved, rq, sizeof rq);

    /* Round 0: never started. Round 1: after one use. */
    for (round = 0; round < 2; round++) {
        const char *when = round == 0 ? "never started" : "completed";
        char what[120];
        for (k = 0; k < 2; k++) {
            snprintf(what, sizeof what, "MPI_Wait on a %s persistent request", when);
            pt_status_junk(&st[0]);
            CK(MPI_Wait(&rq[k], &st[0]));
            pt_expect_empty(&st[0], what);
            EXPECT(rq[k] == saved[k], "%s changed the handle", what);
            snprintf(what, sizeof what, "MPI_Test on a %s persistent request", when);
            flag = 0;
            pt_status_junk(&st[0]);
            CK(MPI_Test(&rq[k], &flag, &st[0]));
            EXPECT(flag != 0, "%s gave flag false", what);
            pt_expect_empty(&st[0], what);
            EXPECT(rq[k] == saved[k], "%s changed the handle", what);
        }
        snprintf(what, sizeof what, "MPI_Waitall on %s persistent requests", when);
        for (k = 0; k < 3; k++) {
            pt_status_junk(&st[k]);
        }
        CK(MPI_Waitall(3, rq, st));
        for (k = 0; k < 3; k++) {
            pt_expect_empty(&st[k], what);
            EXPECT(rq[k] == saved[k], "%s changed handle %d", what, k);
        }
        idx = -1;
        CK(MPI_Waitany(3, rq, &idx, &st[0]));
        EXPECT(idx == MPI_UNDEFINED, "MPI_Waitany on %s persistent requests gave index %d", when, idx);
        pt_expect_empty(&st[0], "MPI_Waitany on inactive requests");
        outcount = -1;
        CK(MPI_Testsome(3, rq, &outcount, indices, st));
        EXPECT(outcount == MPI_UNDEFINED, "MPI_Testsome on %s persistent requests gave outcount %d", when, outcount);
        outcount = -1;
        CK(MPI_Waitsome(3, rq, &outcount, indices, st));
        EXPECT(outcount == MPI_UNDEFINED, "MPI_Waitsome on %s persistent requests gave outcount %d", when, outcount);
        flag = 0;
        CK(MPI_Testall(3, rq, &flag, st));
        EXPECT(flag != 0, "MPI_Testall on %s persistent requests gave flag false", when);

        if (round == 0) {
            /* One use: start only the receive, complete it through Waitany;
             * the peer's send request is started alone likewise. */
            pt_set_phase("Waitany with one started persistent request");
            pt_fill(buf + 100, 64, pt_seed(pt_rank, partner, 70, 0));
            if (is_a) {
                CK(MPI_Start(&rq[0]));
                idx = -1;
                CK(MPI_Waitany(3, rq, &idx, &st[0]));
                EXPECT(idx == 0, "MPI_Waitany returned index %d, only 0 was started", idx);
                EXPECT(rq[0] == saved[0], "MPI_Waitany freed or changed a persistent request");
                pt_expect_status(&st[0], partner, 70, MPI_BYTE, 64, "persistent receive via Waitany");
                pt_verify(buf, 64, pt_seed(partner, pt_rank, 70, 0), "persistent receive via Waitany");
                CK(MPI_Start(&rq[1]));
                CK(MPI_Wait(&rq[1], &st[1]));
            } else {
                CK(MPI_Start(&rq[1]));
                CK(MPI_Wait(&rq[1], &st[1]));
                CK(MPI_Start(&rq[0]));
                idx = -1;
                CK(MPI_Waitany(3, rq, &idx, &st[0]));
                EXPECT(idx == 0, "MPI_Waitany returned index %d, only 0 was started", idx);
                EXPECT(rq[0] == saved[0], "MPI_Waitany freed or changed a persistent request");
                pt_expect_status(&st[0], partner, 70, MPI_BYTE, 64, "persistent receive via Waitany");
                pt_verify(buf, 64, pt_seed(partner, pt_rank, 70, 0), "persistent receive via Waitany");
            }
            pt_set_phase("inactive persistent requests after use");
        }
    }
    free_req(&rq[0], "inactive persistent receive");
    free_req(&rq[1], "inactive persistent send");

    pt_set_phase("Request_free of a never-started persistent request");
    CK(MPI_Send_init(buf, 8, MPI_BYTE, partner, 71, MPI_COMM_WORLD, &rq[0]));
    free_req(&rq[0], "never-started Send_init");
    CK(MPI_Recv_init(buf, 8, MPI_BYTE, MPI_ANY_SOURCE, 71, MPI_COMM_WORLD, &rq[0]));
    free_req(&rq[0], "never-started Recv_init");
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "pt2pt_persistent");
    unsigned char *buf;
    pt_require_size(2);
    partner = rank ^ 1;
    is_a = rank < partner;
    if (partner < pt_size) {
        buf = (unsigned char *)pt_malloc(BIG + 300000);
        send_recv_init(buf);
        bsend_init(buf);
        ssend_init(buf);
        rsend_init(buf);
        startall(buf);
        wildcard_recv_init(buf);
        inactive(buf);
        free(buf);
    }
    return pt_finish();
}
