/* pt2pt_modes: the buffered, synchronous and ready send modes.
 *
 * Ranks 0 and 1 take part; other ranks only join the final barrier.
 *
 * Buffered (MPI_Bsend, MPI_Ibsend, MPI_Buffer_attach/detach):
 *   - A buffer sized exactly as MPI-1.3 3.6.1 prescribes (for each message its
 *     packed size plus MPI_BSEND_OVERHEAD) holds all the messages at once.
 *   - MPI_Bsend and MPI_Ibsend+MPI_Wait complete locally: rank 0 finishes all of
 *     them before rank 1 posts any matching receive (rank 1 first waits for a
 *     note sent after them).
 *   - MPI_Buffer_detach returns the address and size attached and blocks until
 *     the buffered messages have left the buffer: rank 0 overwrites the buffer
 *     as soon as detach returns, and rank 1 still receives intact data.
 * Synchronous (MPI_Ssend, MPI_Issend):
 *   - An MPI_Issend is not complete before a matching receive is posted: rank 0
 *     tests it repeatedly (it must stay incomplete) while rank 1 waits for a
 *     separate "go" message, which rank 0 sends only afterwards. Sizes 0 bytes,
 *     1000 bytes and 1 MiB.
 * Ready (MPI_Rsend, MPI_Irsend):
 *   - The receive is posted before the send starts, guaranteed by a handshake
 *     (rank 1 posts MPI_Irecv, then tells rank 0 it is ready).
 */
#include "pt2pt_common.h"

#define NBS 7
static const int bsizes[NBS] = {0, 1, 100, 4000, 65537, 300000, 1048576};

static void buffered(int rank)
{
    int i;
    if (rank == 0) {
        unsigned char *msgs[NBS];
        int total = 0;
        unsigned char *buffer;
        void *addr = NULL;
        int size = -1;
        int note = 1;

        pt_set_phase("Bsend into an exactly sized buffer");
        for (i = 0; i < NBS; i++) {
            total += bsizes[i] + MPI_BSEND_OVERHEAD;
        }
        /* One more message, sent as MPI_INT with MPI_Ibsend. */
        total += 1000 * (int)sizeof(int) + MPI_BSEND_OVERHEAD;
        buffer = (unsigned char *)pt_malloc((size_t)total);
        CK(MPI_Buffer_attach(buffer, total));
        for (i = 0; i < NBS; i++) {
            msgs[i] = (unsigned char *)pt_malloc((size_t)bsizes[i]);
            pt_fill(msgs[i], (size_t)bsizes[i], pt_seed(0, 1, 100 + i, bsizes[i]));
            CK(MPI_Bsend(msgs[i], bsizes[i], MPI_BYTE, 1, 100 + i, MPI_COMM_WORLD));
            /* The message was copied: the user buffer may change at once. */
            memset(msgs[i], 0xEE, (size_t)bsizes[i]);
        }
        {
            int ints[1000];
            MPI_Request rq;
            MPI_Status st;
            pt_set_phase("Ibsend completes locally");
            for (i = 0; i < 1000; i++) {
                ints[i] = i * 7 - 3000;
            }
            CK(MPI_Ibsend(ints, 1000, MPI_INT, 1, 150, MPI_COMM_WORLD, &rq));
            CK(MPI_Wait(&rq, &st));
            EXPECT(rq == MPI_REQUEST_NULL, "Ibsend request not freed by MPI_Wait");
            memset(ints, 0, sizeof ints);
        }
        pt_set_phase("Bsend: note to receiver");
        /* Rank 1 has not posted any receive for the buffered messages yet: it
         * is waiting for this note. */
        CK(MPI_Send(&note, 1, MPI_INT, 1, 1, MPI_COMM_WORLD));

        pt_set_phase("Buffer_detach");
        CK(MPI_Buffer_detach(&addr, &size));
        EXPECT(addr == (void *)buffer, "MPI_Buffer_detach returned address %p, attached %p", addr,
               (void *)buffer);
        EXPECT(size == total, "MPI_Buffer_detach returned size %d, attached %d", size, total);
        /* Detach has waited for the messages to leave the buffer: scribble. */
        memset(buffer, 0xDB, (size_t)total);
        free(buffer);
        for (i = 0; i < NBS; i++) {
            free(msgs[i]);
        }

        pt_set_phase("Bsend after re-attaching");
        {
            int sz = 3 * (4096 + MPI_BSEND_OVERHEAD);
            unsigned char *b2 = (unsigned char *)pt_malloc((size_t)sz);
            unsigned char m[4096];
            CK(MPI_Buffer_attach(b2, sz));
            for (i = 0; i < 3; i++) {
                pt_fill(m, sizeof m, pt_seed(0, 1, 160 + i, 4096));
                CK(MPI_Bsend(m, 4096, MPI_BYTE, 1, 160 + i, MPI_COMM_WORLD));
            }
            CK(MPI_Buffer_detach(&addr, &size));
            EXPECT(addr == (void *)b2 && size == sz, "second detach returned %p/%d, attached %p/%d", addr,
                   size, (void *)b2, sz);
            memset(b2, 0xDB, (size_t)sz);
            free(b2);
        }
    } else if (rank == 1) {
        int note = 0;
        MPI_Status st;
        unsigned char *rb = (unsigned char *)pt_malloc(1048576 + 16);
        char what[100];

        pt_set_phase("Bsend: receiver waits for note");
        CK(MPI_Recv(&note, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, &st));
        EXPECT(note == 1, "note message holds %d", note);
        /* Give rank 0 time to be inside (or past) MPI_Buffer_detach. */
        pt_sleep_ms(200);
        pt_set_phase("Bsend: receive buffered messages");
        {
            int ints[1001];
            for (i = 0; i < 1001; i++) {
                ints[i] = -1;
            }
            CK(MPI_Recv(ints, 1001, MPI_INT, 0, 150, MPI_COMM_WORLD, &st));
            pt_expect_status(&st, 0, 150, MPI_INT, 1000, "Ibsend message");
            for (i = 0; i < 1000; i++) {
                EXPECT(ints[i] == i * 7 - 3000, "Ibsend message element %d is %d", i, ints[i]);
            }
        }
        for (i = NBS - 1; i >= 0; i--) {
            snprintf(what, sizeof what, "Bsend message %d (%d bytes)", i, bsizes[i]);
            memset(rb, 0xA5, (size_t)bsizes[i] + 16);
            CK(MPI_Recv(rb, bsizes[i] + 16, MPI_BYTE, 0, 100 + i, MPI_COMM_WORLD, &st));
            pt_expect_status(&st, 0, 100 + i, MPI_BYTE, bsizes[i], what);
            pt_verify(rb, (size_t)bsizes[i], pt_seed(0, 1, 100 + i, bsizes[i]), what);
            pt_verify_const(rb + bsizes[i], 16, 0xA5, what);
        }
        pt_set_phase("Bsend after re-attaching: receive");
        for (i = 0; i < 3; i++) {
            CK(MPI_Recv(rb, 4096, MPI_BYTE, 0, 160 + i, MPI_COMM_WORLD, &st));
            pt_expect_status(&st, 0, 160 + i, MPI_BYTE, 4096, "re-attached Bsend");
            pt_verify(rb, 4096, pt_seed(0, 1, 160 + i, 4096), "re-attached Bsend");
        }
        free(rb);
    }
}

#define NSS 3
static const int ssizes[NSS] = {0, 1000, 1048576};

static void synchronous(int rank)
{
    int k;
    int i;
    unsigned char *buf = (unsigned char *)pt_malloc(1048576);
    for (k = 0; k < NSS; k++) {
        int n = ssizes[k];
        char what[100];
        snprintf(what, sizeof what, "Issend of %d bytes", n);
        pt_set_phase(what);
        if (rank == 0) {
            MPI_Request rq;
            MPI_Status st;
            int go = k;
            pt_fill(buf, (size_t)n, pt_seed(0, 1, 200 + k, n));
            CK(MPI_Issend(buf, n, MPI_BYTE, 1, 200 + k, MPI_COMM_WORLD, &rq));
            for (i = 0; i < 150; i++) {
                int flag = -1;
                CK(MPI_Test(&rq, &flag, &st));
                EXPECT(flag == 0, "%s completed (MPI_Test try %d) before the receiver posted a receive",
                       what, i);
                EXPECT(rq != MPI_REQUEST_NULL, "%s: MPI_Test returned false but freed the request", what);
                pt_sleep_ms(1);
            }
            /* Only now may rank 1 post its receive. */
            CK(MPI_Send(&go, 1, MPI_INT, 1, 300 + k, MPI_COMM_WORLD));
            CK(MPI_Wait(&rq, &st));
            EXPECT(rq == MPI_REQUEST_NULL, "%s: request not freed by MPI_Wait", what);
        } else if (rank == 1) {
            int go = -1;
            MPI_Status st;
            CK(MPI_Recv(&go, 1, MPI_INT, 0, 300 + k, MPI_COMM_WORLD, &st));
            EXPECT(go == k, "go message holds %d, expected %d", go, k);
            memset(buf, 0, (size_t)n);
            CK(MPI_Recv(buf, n, MPI_BYTE, 0, 200 + k, MPI_COMM_WORLD, &st));
            pt_expect_status(&st, 0, 200 + k, MPI_BYTE, n, what);
            pt_verify(buf, (size_t)n, pt_seed(0, 1, 200 + k, n), what);
        }
    }

    /* Blocking MPI_Ssend, both with the receive already posted and not. */
    for (k = 0; k < NSS; k++) {
        int n = ssizes[k];
        char what[100];
        snprintf(what, sizeof what, "Ssend of %d bytes", n);
        pt_set_phase(what);
        if (rank == 0) {
            pt_fill(buf, (size_t)n, pt_seed(0, 1, 250 + k, n));
            CK(MPI_Ssend(buf, n, MPI_BYTE, 1, 250 + k, MPI_COMM_WORLD));
        } else if (rank == 1) {
            MPI_Status st;
            if (k == 1) {
                pt_sleep_ms(50); /* let the Ssend start first */
            }
            memset(buf, 0, (size_t)n);
            CK(MPI_Recv(buf, n, MPI_BYTE, 0, 250 + k, MPI_COMM_WORLD, &st));
            pt_expect_status(&st, 0, 250 + k, MPI_BYTE, n, what);
            pt_verify(buf, (size_t)n, pt_seed(0, 1, 250 + k, n), what);
        }
    }
    free(buf);
}

#define NRS 4
static const int rsizes[NRS] = {0, 1, 5000, 1048576};

static void ready(int rank)
{
    int k;
    unsigned char *buf = (unsigned char *)pt_malloc(1048576 + 16);
    for (k = 0; k < 2 * NRS; k++) {
        int n = rsizes[k % NRS];
        int nonblocking = k >= NRS;
        int tag = 600 + k;
        char what[100];
        snprintf(what, sizeof what, "%s of %d bytes", nonblocking ? "Irsend" : "Rsend", n);
        pt_set_phase(what);
        if (rank == 0) {
            int ready_msg = -1;
            MPI_Status st;
            CK(MPI_Recv(&ready_msg, 1, MPI_INT, 1, 700 + k, MPI_COMM_WORLD, &st));
            EXPECT(ready_msg == k, "ready message holds %d, expected %d", ready_msg, k);
            pt_fill(buf, (size_t)n, pt_seed(0, 1, tag, n));
            if (nonblocking) {
                MPI_Request rq;
                CK(MPI_Irsend(buf, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq));
                CK(MPI_Wait(&rq, &st));
            } else {
                CK(MPI_Rsend(buf, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD));
            }
        } else if (rank == 1) {
            MPI_Request rq;
            MPI_Status st;
            memset(buf, 0xA5, (size_t)n + 16);
            CK(MPI_Irecv(buf, n + 16, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &rq));
            CK(MPI_Send(&k, 1, MPI_INT, 0, 700 + k, MPI_COMM_WORLD));
            CK(MPI_Wait(&rq, &st));
            pt_expect_status(&st, 0, tag, MPI_BYTE, n, what);
            pt_verify(buf, (size_t)n, pt_seed(0, 1, tag, n), what);
            pt_verify_const(buf + n, 16, 0xA5, what);
        }
    }
    free(buf);
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "pt2pt_modes");
    pt_require_size(2);
    buffered(rank);
    synchronous(rank);
    ready(rank);
    return pt_finish();
}
