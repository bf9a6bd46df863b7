/* pt2pt_request_free: MPI_Request_free on active send requests (MPI-1.3
 * 3.7.3: the handle becomes MPI_REQUEST_NULL at once, the communication still
 * completes, the request is deallocated afterwards).
 *
 * Ranks are paired (0-1, 2-3, ...; an odd last rank idles); each side takes
 * the sending role once. The sender frees each request right after starting
 * it, never touching the send buffers until the receiver acknowledges (the
 * only way to know the sends completed):
 *   - 100 MPI_Isends of 0 bytes to 1 MiB, received in order and verified;
 *   - MPI_Issend freed before the receiver has posted its receive (the
 *     receiver waits for a "go" sent after the free);
 *   - MPI_Ibsend freed, then the buffer detached (detach waits for it);
 *   - MPI_Irsend freed, with the receive posted first (handshake);
 *   - a started persistent MPI_Send_init request freed while active;
 *   - a completed-but-not-waited MPI_Isend freed after the acknowledgement;
 *   - a final freed MPI_Isend right before MPI_Finalize.
 */
#include "pt2pt_common.h"

#define NMSG 100
#define TAG_ACK 900
#define TAG_GO 901

static int partner;

static int msg_size(int i)
{
    if (i % 17 == 3) {
        return 1024 * 1024;
    }
    if (i % 5 == 0) {
        return 0;
    }
    return 1 + i * 37;
}

static void ack_send(int v)
{
    CK(MPI_Send(&v, 1, MPI_INT, partner, TAG_ACK, MPI_COMM_WORLD));
}

static void ack_recv(int v)
{
    int got = -1;
    MPI_Status st;
    CK(MPI_Recv(&got, 1, MPI_INT, partner, TAG_ACK, MPI_COMM_WORLD, &st));
    EXPECT(got == v, "acknowledgement holds %d, expected %d", got, v);
}

static void go_send(int v)
{
    CK(MPI_Send(&v, 1, MPI_INT, partner, TAG_GO, MPI_COMM_WORLD));
}

static void go_recv(int v)
{
    int got = -1;
    MPI_Status st;
    CK(MPI_Recv(&got, 1, MPI_INT, partner, TAG_GO, MPI_COMM_WORLD, &st));
    EXPECT(got == v, "go message holds %d, expected %d", got, v);
}

static void freed(MPI_Request *rq, const char *what)
{
    EXPECT(*rq != MPI_REQUEST_NULL, "%s returned MPI_REQUEST_NULL", what);
    CK(MPI_Request_free(rq));
    EXPECT(*rq == MPI_REQUEST_NULL, "MPI_Request_free of %s did not set the handle to MPI_REQUEST_NULL", what);
}

static void receive_check(int tag, int n, int extra, const char *what)
{
    unsigned char *buf = (unsigned char *)pt_malloc((size_t)n + 8);
    MPI_Status st;
    memset(buf, 0xA5, (size_t)n + 8);
    CK(MPI_Recv(buf, n + 8, MPI_BYTE, partner, tag, MPI_COMM_WORLD, &st));
    pt_expect_status(&st, partner, tag, MPI_BYTE, n, what);
    pt_verify(buf, (size_t)n, pt_seed(partner, pt_rank, tag, extra), what);
    pt_verify_const(buf + n, 8, 0xA5, what);
    free(buf);
}

static void sender(void)
{
    unsigned char *bufs[NMSG];
    MPI_Request rq;
    int i;

    pt_set_phase("freed Isends (sender)");
    for (i = 0; i < NMSG; i++) {
        bufs[i] = (unsigned char *)pt_malloc((size_t)msg_size(i));
        pt_fill(bufs[i], (size_t)msg_size(i), pt_seed(pt_rank, partner, 10, i));
        CK(MPI_Isend(bufs[i], msg_size(i), MPI_BYTE, partner, 10, MPI_COMM_WORLD, &rq));
        freed(&rq, "MPI_Isend");
    }
    ack_recv(1);
    for (i = 0; i < NMSG; i++) {
        free(bufs[i]);
    }

    pt_set_phase("freed Issend (sender)");
    bufs[0] = (unsigned char *)pt_malloc(70000);
    pt_fill(bufs[0], 70000, pt_seed(pt_rank, partner, 20, 0));
    CK(MPI_Issend(bufs[0], 70000, MPI_BYTE, partner, 20, MPI_COMM_WORLD, &rq));
    freed(&rq, "MPI_Issend");
    go_send(2);
    ack_recv(2);
    free(bufs[0]);

    pt_set_phase("freed Ibsend (sender)");
    {
        int bsize = 5000 + MPI_BSEND_OVERHEAD;
        void *b = pt_malloc((size_t)bsize);
        void *addr;
        int size;
        unsigned char m[5000];
        CK(MPI_Buffer_attach(b, bsize));
        pt_fill(m, 5000, pt_seed(pt_rank, partner, 30, 0));
        CK(MPI_Ibsend(m, 5000, MPI_BYTE, partner, 30, MPI_COMM_WORLD, &rq));
        freed(&rq, "MPI_Ibsend");
        go_send(3);
        CK(MPI_Buffer_detach(&addr, &size));
        memset(b, 0xDB, (size_t)bsize);
        free(b);
        ack_recv(3);
    }

    pt_set_phase("freed Irsend (sender)");
    bufs[0] = (unsigned char *)pt_malloc(300000);
    go_recv(4); /* receiver has posted */
    pt_fill(bufs[0], 300000, pt_seed(pt_rank, partner, 40, 0));
    CK(MPI_Irsend(bufs[0], 300000, MPI_BYTE, partner, 40, MPI_COMM_WORLD, &rq));
    freed(&rq, "MPI_Irsend");
    ack_recv(4);
    free(bufs[0]);

    pt_set_phase("freed active persistent send (sender)");
    bufs[0] = (unsigned char *)pt_malloc(200000);
    pt_fill(bufs[0], 200000, pt_seed(pt_rank, partner, 50, 0));
    CK(MPI_Send_init(bufs[0], 200000, MPI_BYTE, partner, 50, MPI_COMM_WORLD, &rq));
    CK(MPI_Start(&rq));
    freed(&rq, "an active MPI_Send_init request");
    go_send(5);
    ack_recv(5);
    free(bufs[0]);

    pt_set_phase("freed completed Isend (sender)");
    {
        unsigned char m[100];
        pt_fill(m, 100, pt_seed(pt_rank, partner, 60, 0));
        CK(MPI_Isend(m, 100, MPI_BYTE, partner, 60, MPI_COMM_WORLD, &rq));
        ack_recv(6); /* received, so complete at the receiver */
        freed(&rq, "a completed MPI_Isend");
    }
}

static void receiver(void)
{
    int i;
    char what[80];
    pt_set_phase("freed Isends (receiver)");
    for (i = 0; i < NMSG; i++) {
        snprintf(what, sizeof what, "freed Isend %d (%d bytes)", i, msg_size(i));
        receive_check(10, msg_size(i), i, what);
    }
    ack_send(1);

    pt_set_phase("freed Issend (receiver)");
    go_recv(2);
    receive_check(20, 70000, 0, "freed Issend");
    ack_send(2);

    pt_set_phase("freed Ibsend (receiver)");
    go_recv(3);
    receive_check(30, 5000, 0, "freed Ibsend");
    ack_send(3);

    pt_set_phase("freed Irsend (receiver)");
    {
        unsigned char *buf = (unsigned char *)pt_malloc(300000);
        MPI_Request rq;
        MPI_Status st;
        CK(MPI_Irecv(buf, 300000, MPI_BYTE, partner, 40, MPI_COMM_WORLD, &rq));
        go_send(4);
        CK(MPI_Wait(&rq, &st));
        pt_expect_status(&st, partner, 40, MPI_BYTE, 300000, "freed Irsend");
        pt_verify(buf, 300000, pt_seed(partner, pt_rank, 40, 0), "freed Irsend");
        free(buf);
    }
    ack_send(4);

    pt_set_phase("freed active persistent send (receiver)");
    go_recv(5);
    receive_check(50, 200000, 0, "freed active persistent send");
    ack_send(5);

    pt_set_phase("freed completed Isend (receiver)");
    receive_check(60, 100, 0, "completed Isend freed afterwards");
    ack_send(6);
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "pt2pt_request_free");
    int role;
    pt_require_size(2);
    partner = rank ^ 1;
    if (partner < pt_size) {
        for (role = 0; role < 2; role++) {
            int i_send = (rank < partner) == (role == 0);
            if (i_send) {
                sender();
            } else {
                receiver();
            }
        }
        /* A freed send right before MPI_Finalize: the receiver gets it before
         * the final barrier; the sender never waits for it. */
        pt_set_phase("freed Isend before MPI_Finalize");
        {
            static unsigned char m[4096];
            MPI_Request rq;
            pt_fill(m, sizeof m, pt_seed(rank, partner, 70, 0));
            CK(MPI_Isend(m, (int)sizeof m, MPI_BYTE, partner, 70, MPI_COMM_WORLD, &rq));
            freed(&rq, "MPI_Isend before MPI_Finalize");
            receive_check(70, (int)sizeof m, 0, "freed Isend before MPI_Finalize");
        }
    }
    return pt_finish();
}
