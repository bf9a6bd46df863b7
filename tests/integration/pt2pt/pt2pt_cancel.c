/* pt2pt_cancel: MPI_Cancel and MPI_Test_cancelled (MPI-1.3 3.8).
 *
 * Ranks 0 and 1 take part; other ranks only join the barriers.
 *
 * Receives:
 *   - a posted MPI_Irecv that cannot match (nothing is sent with its tag, or
 *     nothing at all is in flight for MPI_ANY_SOURCE/MPI_ANY_TAG) is
 *     cancelled: MPI_Wait (or MPI_Test polling) returns, the request becomes
 *     MPI_REQUEST_NULL, MPI_Test_cancelled is true, the buffer is untouched;
 *   - a message sent later with the cancelled receive's tag is not lost: a new
 *     receive gets it intact;
 *   - a persistent receive (MPI_Recv_init) started and cancelled stays
 *     allocated and inactive, and can be started again and complete normally;
 *   - cancelling a receive already matched by a completed MPI_Ssend fails:
 *     the receive completes with the data and Test_cancelled is false.
 * Sends (MPI_Isend small and 2 MiB, MPI_Issend small and 2 MiB, MPI_Ibsend,
 * persistent MPI_Send_init): rank 0 starts a send rank 1 has not yet tried to
 * receive, cancels it and waits for it. It then sends, with the same tag, a
 * marker saying whether Test_cancelled reported the send as cancelled. Rank 1
 * receives with that tag only after a separate "go" message: if the send was
 * cancelled it must get the marker first (no part of the message arrives);
 * if not it must get the complete message and then the marker (never both,
 * never neither).
 *
 * MPI-1.3 3.8 makes MPI_Wait on a cancelled request local ("guaranteed to
 * return, irrespective of the activities of other processes"). With PT_STRICT
 * (building against Strata, or -DPT2PT_STRICT) rank 0 therefore waits for the
 * cancelled send BEFORE sending "go", so a send that is neither cancelled nor
 * completable without the receiver hangs the test. Other libraries (MPICH
 * 4.0 ch4:ucx cannot cancel an unmatched rendezvous send and its MPI_Wait
 * then blocks until the receive is posted) get "go" before the MPI_Wait.
 */
#include "pt2pt_common.h"

#define BIG (2 * 1024 * 1024)

#define STRICT_LOCAL_WAIT PT_STRICT
#define MARK 0x43414e43

static void expect_cancelled(const MPI_Status *st, int want, const char *what)
{
    int flag = -1;
    CK(MPI_Test_cancelled(st, &flag));
    EXPECT((flag != 0) == (want != 0), "%s: MPI_Test_cancelled gives %d, expected %s", what, flag,
           want ? "true" : "false");
}

static void cancel_receives(int rank)
{
    unsigned char buf[256];
    MPI_Request rq;
    MPI_Status st;
    int flag;
    int partner = rank == 0 ? 1 : 0;

    pt_set_phase("cancel an Irecv that cannot match, then Wait");
    memset(buf, 0xA5, sizeof buf);
    CK(MPI_Irecv(buf, 100, MPI_BYTE, partner, 999, MPI_COMM_WORLD, &rq));
    CK(MPI_Cancel(&rq));
    pt_status_junk(&st);
    CK(MPI_Wait(&rq, &st));
    EXPECT(rq == MPI_REQUEST_NULL, "MPI_Wait on a cancelled receive did not free the request");
    expect_cancelled(&st, 1, "cancelled Irecv (Wait)");
    pt_verify_const(buf, sizeof buf, 0xA5, "buffer of a cancelled receive");

    pt_set_phase("cancel an ANY_SOURCE/ANY_TAG Irecv, then Test");
    CK(MPI_Irecv(buf, 100, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq));
    CK(MPI_Cancel(&rq));
    flag = 0;
    while (!flag) {
        pt_status_junk(&st);
        CK(MPI_Test(&rq, &flag, &st));
    }
    EXPECT(rq == MPI_REQUEST_NULL, "MPI_Test on a cancelled receive did not free the request");
    expect_cancelled(&st, 1, "cancelled wildcard Irecv (Test)");
    pt_verify_const(buf, sizeof buf, 0xA5, "buffer of a cancelled wildcard receive");

    pt_set_phase("cancel a started persistent receive");
    CK(MPI_Recv_init(buf, 100, MPI_BYTE, partner, 998, MPI_COMM_WORLD, &rq));
    CK(MPI_Start(&rq));
    CK(MPI_Cancel(&rq));
    CK(MPI_Wait(&rq, &st));
    EXPECT(rq != MPI_REQUEST_NULL, "MPI_Wait freed a cancelled persistent request");
    expect_cancelled(&st, 1, "cancelled persistent receive");
    pt_verify_const(buf, sizeof buf, 0xA5, "buffer of a cancelled persistent receive");

    /* Everybody has cancelled; now the messages with those tags are sent. */
    CK(MPI_Barrier(MPI_COMM_WORLD));
    if (rank <= 1) {
        unsigned char out[100];
        MPI_Request sq[2];
        MPI_Status sst[2];
        pt_set_phase("restart the cancelled persistent receive; cancelled tags are not lost");
        CK(MPI_Start(&rq));
        pt_fill(out, 100, pt_seed(rank, partner, 998, 0));
        CK(MPI_Isend(out, 100, MPI_BYTE, partner, 998, MPI_COMM_WORLD, &sq[0]));
        CK(MPI_Isend(out, 77, MPI_BYTE, partner, 999, MPI_COMM_WORLD, &sq[1]));
        CK(MPI_Wait(&rq, &st));
        expect_cancelled(&st, 0, "restarted persistent receive");
        pt_expect_status(&st, partner, 998, MPI_BYTE, 100, "restarted persistent receive");
        pt_verify(buf, 100, pt_seed(partner, rank, 998, 0), "restarted persistent receive");
        CK(MPI_Recv(buf, 100, MPI_BYTE, partner, 999, MPI_COMM_WORLD, &st));
        pt_expect_status(&st, partner, 999, MPI_BYTE, 77, "message with a cancelled receive's tag");
        pt_verify(buf, 77, pt_seed(partner, rank, 998, 0), "message with a cancelled receive's tag");
        CK(MPI_Waitall(2, sq, sst));
    }
    CK(MPI_Request_free(&rq));
    EXPECT(rq == MPI_REQUEST_NULL, "MPI_Request_free did not set the handle to MPI_REQUEST_NULL");
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

static void cancel_matched_receive(int rank)
{
    unsigned char buf[64];
    MPI_Status st;
    pt_set_phase("cancel a receive already matched by a completed Ssend");
    if (rank == 0) {
        MPI_Request rq;
        int done = 0;
        memset(buf, 0, sizeof buf);
        CK(MPI_Irecv(buf, 64, MPI_BYTE, 1, 400, MPI_COMM_WORLD, &rq));
        CK(MPI_Recv(&done, 1, MPI_INT, 1, 401, MPI_COMM_WORLD, &st));
        CK(MPI_Cancel(&rq));
        CK(MPI_Wait(&rq, &st));
        expect_cancelled(&st, 0, "receive matched by a completed MPI_Ssend");
        pt_expect_status(&st, 1, 400, MPI_BYTE, 64, "receive matched by a completed MPI_Ssend");
        pt_verify(buf, 64, pt_seed(1, 0, 400, 0), "receive matched by a completed MPI_Ssend");
    } else if (rank == 1) {
        int done = 1;
        pt_fill(buf, 64, pt_seed(1, 0, 400, 0));
        CK(MPI_Ssend(buf, 64, MPI_BYTE, 0, 400, MPI_COMM_WORLD));
        CK(MPI_Send(&done, 1, MPI_INT, 0, 401, MPI_COMM_WORLD));
    }
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

#define NV 6
static const char *vname[NV] = {"Isend 64 B", "Isend 2 MiB", "Issend 64 B", "Issend 2 MiB", "Ibsend 64 B",
                                "persistent Send_init 64 B"};
static int vsize(int v)
{
    return (v == 1 || v == 3) ? BIG : 64;
}

static void cancel_sends(int rank, unsigned char *buf)
{
    int v;
    int ncancelled = 0;
    for (v = 0; v < NV; v++) {
        int tag = 200 + v;
        int gotag = 300 + v;
        int n = vsize(v);
        char what[120];
        snprintf(what, sizeof what, "cancel %s", vname[v]);
        pt_set_phase(what);
        if (rank == 0) {
            MPI_Request rq;
            MPI_Request mq;
            MPI_Request gq = MPI_REQUEST_NULL;
            MPI_Status st;
            int marker[4];
            int c = -1;
            void *bsbuf = NULL;
            int go = v;
            pt_fill(buf, (size_t)n, pt_seed(0, 1, tag, n));
            switch (v) {
            case 0:
            case 1:
                CK(MPI_Isend(buf, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq));
                break;
            case 2:
            case 3:
                CK(MPI_Issend(buf, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq));
                break;
            case 4:
                bsbuf = pt_malloc((size_t)(n + MPI_BSEND_OVERHEAD));
                CK(MPI_Buffer_attach(bsbuf, n + MPI_BSEND_OVERHEAD));
                CK(MPI_Ibsend(buf, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq));
                break;
            default:
                CK(MPI_Send_init(buf, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD, &rq));
                CK(MPI_Start(&rq));
                break;
            }
            CK(MPI_Cancel(&rq));
            if (!STRICT_LOCAL_WAIT) {
                CK(MPI_Isend(&go, 1, MPI_INT, 1, gotag, MPI_COMM_WORLD, &gq));
            }
            CK(MPI_Wait(&rq, &st));
            CK(MPI_Test_cancelled(&st, &c));
            ncancelled += c != 0;
            if (v == 5) {
                EXPECT(rq != MPI_REQUEST_NULL, "%s: MPI_Wait freed the persistent request", what);
                CK(MPI_Request_free(&rq));
            } else {
                EXPECT(rq == MPI_REQUEST_NULL, "%s: MPI_Wait did not free the request", what);
            }
            if (v == 4) {
                void *a;
                int s;
                CK(MPI_Buffer_detach(&a, &s));
                free(bsbuf);
            }
            marker[0] = MARK;
            marker[1] = c != 0;
            marker[2] = v;
            marker[3] = 0;
            CK(MPI_Isend(marker, 4, MPI_INT, 1, tag, MPI_COMM_WORLD, &mq));
            if (STRICT_LOCAL_WAIT) {
                CK(MPI_Isend(&go, 1, MPI_INT, 1, gotag, MPI_COMM_WORLD, &gq));
            }
            CK(MPI_Wait(&mq, &st));
            CK(MPI_Wait(&gq, &st));
        } else if (rank == 1) {
            MPI_Status st;
            int go = -1;
            int cnt;
            int marker[4];
            CK(MPI_Recv(&go, 1, MPI_INT, 0, gotag, MPI_COMM_WORLD, &st));
            EXPECT(go == v, "go message holds %d, expected %d", go, v);
            memset(buf, 0, 16);
            CK(MPI_Recv(buf, BIG, MPI_BYTE, 0, tag, MPI_COMM_WORLD, &st));
            cnt = pt_count(&st, MPI_BYTE);
            memcpy(marker, buf, sizeof marker);
            if (cnt == 16 && marker[0] == MARK && marker[2] == v) {
                EXPECT(marker[1] == 1, "%s: the send was neither delivered nor reported cancelled "
                       "(MPI_Test_cancelled false, but the marker sent after it arrived first)", what);
            } else {
                pt_expect_status(&st, 0, tag, MPI_BYTE, n, what);
                pt_verify(buf, (size_t)n, pt_seed(0, 1, tag, n), what);
                CK(MPI_Recv(marker, 4, MPI_INT, 0, tag, MPI_COMM_WORLD, &st));
                EXPECT(marker[0] == MARK && marker[2] == v, "%s: second message is not the marker", what);
                EXPECT(marker[1] == 0, "%s: the send was reported cancelled but its message was delivered", what);
            }
        }
    }
    if (rank == 0 && getenv("PT2PT_VERBOSE") != NULL) {
        fprintf(stderr, "pt2pt_cancel: %d of %d send cancellations succeeded\n", ncancelled, NV);
    }
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "pt2pt_cancel");
    unsigned char *buf;
    pt_require_size(2);
    buf = (unsigned char *)pt_malloc(BIG);
    cancel_receives(rank);
    cancel_matched_receive(rank);
    cancel_sends(rank, buf);
    free(buf);
    return pt_finish();
}
