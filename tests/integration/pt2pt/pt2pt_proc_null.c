/* pt2pt_proc_null: every point-to-point call with MPI_PROC_NULL (MPI-1.3 3.11).
 *
 * A send to MPI_PROC_NULL succeeds at once and has no effect; a receive from
 * it succeeds at once without touching the buffer and returns a status with
 * source MPI_PROC_NULL, tag MPI_ANY_TAG and count 0. Every rank runs every
 * case on its own (nobody else sends anything), so any call that waited for
 * another process would hang (the watchdog reports where).
 *
 * Calls: MPI_Send, MPI_Bsend (with no buffer attached: nothing needs to be
 * buffered), MPI_Ssend, MPI_Rsend, MPI_Recv; MPI_Isend, MPI_Ibsend,
 * MPI_Issend, MPI_Irsend, MPI_Irecv completed with MPI_Wait, MPI_Test,
 * MPI_Waitall, MPI_Waitany, MPI_Waitsome, MPI_Testall, MPI_Testany,
 * MPI_Testsome; MPI_Sendrecv and MPI_Sendrecv_replace; MPI_Probe and
 * MPI_Iprobe (flag true, same status as a receive; MPI-1.3 allows
 * MPI_PROC_NULL wherever a source is required, later standards state the
 * probe result explicitly); persistent MPI_Send_init, MPI_Bsend_init,
 * MPI_Ssend_init, MPI_Rsend_init, MPI_Recv_init with MPI_Start/MPI_Startall;
 * on MPI_COMM_WORLD and MPI_COMM_SELF; counts 0, 10 and 8 MiB.
 */
#include "pt2pt_common.h"

#define BIG (8 * 1024 * 1024)

static unsigned char *buf;  /* receive side: must stay untouched */
static unsigned char *sbuf; /* send side */

static void expect_null_status(const MPI_Status *st, const char *what)
{
    int flag = -1;
    EXPECT(st->MPI_SOURCE == MPI_PROC_NULL, "%s: status.MPI_SOURCE is %d, expected MPI_PROC_NULL (%d)", what,
           st->MPI_SOURCE, MPI_PROC_NULL);
    EXPECT(st->MPI_TAG == MPI_ANY_TAG, "%s: status.MPI_TAG is %d, expected MPI_ANY_TAG (%d)", what, st->MPI_TAG,
           MPI_ANY_TAG);
    EXPECT(pt_count(st, MPI_BYTE) == 0, "%s: MPI_Get_count(MPI_BYTE) is %d, expected 0", what,
           pt_count(st, MPI_BYTE));
    EXPECT(pt_count(st, MPI_DOUBLE) == 0, "%s: MPI_Get_count(MPI_DOUBLE) is %d, expected 0", what,
           pt_count(st, MPI_DOUBLE));
    CK(MPI_Test_cancelled(st, &flag));
    EXPECT(flag == 0, "%s: MPI_Test_cancelled true", what);
}

/* Status of a started persistent receive from MPI_PROC_NULL. MPI-1.3 3.11
 * gives it the MPI_PROC_NULL status like any receive from MPI_PROC_NULL;
 * MPICH 4.0 returns an empty status (source MPI_ANY_SOURCE) instead, which is
 * accepted only without PT_STRICT. */
static void expect_null_status_persistent(const MPI_Status *st, const char *what)
{
    if (!PT_STRICT && st->MPI_SOURCE == MPI_ANY_SOURCE) {
        pt_expect_empty(st, what);
        return;
    }
    expect_null_status(st, what);
}

static void expect_untouched(const char *what)
{
    pt_verify_const(buf, BIG, 0xA5, what);
}

static void blocking(MPI_Comm comm, int count, const char *cname)
{
    MPI_Status st;
    char what[120];
    snprintf(what, sizeof what, "blocking calls on %s, count %d", cname, count);
    pt_set_phase(what);
    CK(MPI_Send(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 1, comm));
    CK(MPI_Bsend(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 2, comm));
    CK(MPI_Ssend(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 3, comm));
    CK(MPI_Rsend(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 4, comm));
    pt_status_junk(&st);
    CK(MPI_Recv(buf, count, MPI_BYTE, MPI_PROC_NULL, 5, comm, &st));
    expect_null_status(&st, "MPI_Recv from MPI_PROC_NULL");
    pt_status_junk(&st);
    CK(MPI_Recv(buf, count / (int)sizeof(int), MPI_INT, MPI_PROC_NULL, MPI_ANY_TAG, comm, &st));
    expect_null_status(&st, "MPI_Recv(MPI_ANY_TAG) from MPI_PROC_NULL");
    expect_untouched("buffer after receives from MPI_PROC_NULL");

    pt_status_junk(&st);
    CK(MPI_Sendrecv(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 6, buf, count, MPI_BYTE, MPI_PROC_NULL, 6, comm, &st));
    expect_null_status(&st, "MPI_Sendrecv with MPI_PROC_NULL");
    pt_status_junk(&st);
    CK(MPI_Sendrecv_replace(buf, count, MPI_BYTE, MPI_PROC_NULL, 7, MPI_PROC_NULL, 7, comm, &st));
    expect_null_status(&st, "MPI_Sendrecv_replace with MPI_PROC_NULL");
    expect_untouched("buffer after MPI_Sendrecv(_replace) with MPI_PROC_NULL");

    pt_status_junk(&st);
    CK(MPI_Probe(MPI_PROC_NULL, 8, comm, &st));
    expect_null_status(&st, "MPI_Probe(MPI_PROC_NULL)");
    {
        int flag = 0;
        pt_status_junk(&st);
        CK(MPI_Iprobe(MPI_PROC_NULL, MPI_ANY_TAG, comm, &flag, &st));
        EXPECT(flag != 0, "MPI_Iprobe(MPI_PROC_NULL) gave flag false");
        expect_null_status(&st, "MPI_Iprobe(MPI_PROC_NULL)");
    }
}

static void nonblocking(MPI_Comm comm, int count, const char *cname)
{
    MPI_Request rq[6];
    MPI_Status st[6];
    int i;
    int flag;
    int idx;
    int outcount;
    int indices[6];
    char what[120];

    snprintf(what, sizeof what, "nonblocking calls on %s, count %d, MPI_Wait", cname, count);
    pt_set_phase(what);
    CK(MPI_Isend(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 1, comm, &rq[0]));
    CK(MPI_Ibsend(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 2, comm, &rq[1]));
    CK(MPI_Issend(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 3, comm, &rq[2]));
    CK(MPI_Irsend(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 4, comm, &rq[3]));
    CK(MPI_Irecv(buf, count, MPI_BYTE, MPI_PROC_NULL, 5, comm, &rq[4]));
    CK(MPI_Irecv(buf, count, MPI_BYTE, MPI_PROC_NULL, MPI_ANY_TAG, comm, &rq[5]));
    for (i = 0; i < 6; i++) {
        pt_status_junk(&st[i]);
        CK(MPI_Wait(&rq[i], &st[i]));
        EXPECT(rq[i] == MPI_REQUEST_NULL, "MPI_Wait did not free PROC_NULL request %d", i);
    }
    expect_null_status(&st[4], "MPI_Irecv from MPI_PROC_NULL + MPI_Wait");
    expect_null_status(&st[5], "MPI_Irecv(MPI_ANY_TAG) from MPI_PROC_NULL + MPI_Wait");

    snprintf(what, sizeof what, "nonblocking calls on %s, count %d, MPI_Test", cname, count);
    pt_set_phase(what);
    CK(MPI_Isend(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 1, comm, &rq[0]));
    CK(MPI_Irecv(buf, count, MPI_BYTE, MPI_PROC_NULL, 5, comm, &rq[1]));
    for (i = 0; i < 2; i++) {
        flag = 0;
        while (!flag) {
            pt_status_junk(&st[i]);
            CK(MPI_Test(&rq[i], &flag, &st[i]));
        }
        EXPECT(rq[i] == MPI_REQUEST_NULL, "MPI_Test did not free PROC_NULL request %d", i);
    }
    expect_null_status(&st[1], "MPI_Irecv from MPI_PROC_NULL + MPI_Test");

    snprintf(what, sizeof what, "nonblocking calls on %s, count %d, MPI_Waitall/Testall", cname, count);
    pt_set_phase(what);
    CK(MPI_Irecv(buf, count, MPI_BYTE, MPI_PROC_NULL, 5, comm, &rq[0]));
    CK(MPI_Issend(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 3, comm, &rq[1]));
    rq[2] = MPI_REQUEST_NULL;
    CK(MPI_Waitall(3, rq, st));
    expect_null_status(&st[0], "MPI_Waitall status of a PROC_NULL receive");
    pt_expect_empty(&st[2], "MPI_Waitall status of a null request");
    CK(MPI_Irecv(buf, count, MPI_BYTE, MPI_PROC_NULL, 5, comm, &rq[0]));
    CK(MPI_Isend(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 3, comm, &rq[1]));
    flag = 0;
    while (!flag) {
        CK(MPI_Testall(2, rq, &flag, st));
    }
    expect_null_status(&st[0], "MPI_Testall status of a PROC_NULL receive");

    snprintf(what, sizeof what, "nonblocking calls on %s, count %d, MPI_Waitany/Testany", cname, count);
    pt_set_phase(what);
    rq[0] = MPI_REQUEST_NULL;
    CK(MPI_Irecv(buf, count, MPI_BYTE, MPI_PROC_NULL, 5, comm, &rq[1]));
    idx = -1;
    CK(MPI_Waitany(2, rq, &idx, &st[0]));
    EXPECT(idx == 1, "MPI_Waitany returned index %d for the PROC_NULL receive at 1", idx);
    expect_null_status(&st[0], "MPI_Waitany status of a PROC_NULL receive");
    CK(MPI_Irecv(buf, count, MPI_BYTE, MPI_PROC_NULL, 5, comm, &rq[0]));
    flag = 0;
    while (!flag) {
        CK(MPI_Testany(2, rq, &idx, &flag, &st[0]));
    }
    EXPECT(idx == 0, "MPI_Testany returned index %d for the PROC_NULL receive at 0", idx);
    expect_null_status(&st[0], "MPI_Testany status of a PROC_NULL receive");

    snprintf(what, sizeof what, "nonblocking calls on %s, count %d, MPI_Waitsome/Testsome", cname, count);
    pt_set_phase(what);
    CK(MPI_Irecv(buf, count, MPI_BYTE, MPI_PROC_NULL, 5, comm, &rq[0]));
    CK(MPI_Irecv(buf, count, MPI_BYTE, MPI_PROC_NULL, 6, comm, &rq[1]));
    {
        int total = 0;
        while (total < 2) {
            CK(MPI_Waitsome(2, rq, &outcount, indices, st));
            EXPECT(outcount >= 1 && outcount <= 2 - total, "MPI_Waitsome outcount %d", outcount);
            for (i = 0; i < outcount; i++) {
                expect_null_status(&st[i], "MPI_Waitsome status of a PROC_NULL receive");
            }
            total += outcount;
        }
        CK(MPI_Irecv(buf, count, MPI_BYTE, MPI_PROC_NULL, 5, comm, &rq[0]));
        CK(MPI_Isend(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 6, comm, &rq[1]));
        total = 0;
        while (total < 2) {
            CK(MPI_Testsome(2, rq, &outcount, indices, st));
            EXPECT(outcount >= 0 && outcount <= 2 - total, "MPI_Testsome outcount %d", outcount);
            for (i = 0; i < outcount; i++) {
                if (indices[i] == 0) {
                    expect_null_status(&st[i], "MPI_Testsome status of a PROC_NULL receive");
                }
            }
            total += outcount;
        }
    }
    expect_untouched("buffer after nonblocking receives from MPI_PROC_NULL");
}

static void persistent(MPI_Comm comm, int count, const char *cname)
{
    MPI_Request rq[5];
    MPI_Status st[5];
    int round;
    int i;
    char what[120];
    snprintf(what, sizeof what, "persistent requests on %s, count %d", cname, count);
    pt_set_phase(what);
    CK(MPI_Send_init(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 1, comm, &rq[0]));
    CK(MPI_Bsend_init(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 2, comm, &rq[1]));
    CK(MPI_Ssend_init(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 3, comm, &rq[2]));
    CK(MPI_Rsend_init(sbuf, count, MPI_BYTE, MPI_PROC_NULL, 4, comm, &rq[3]));
    CK(MPI_Recv_init(buf, count, MPI_BYTE, MPI_PROC_NULL, 5, comm, &rq[4]));
    for (round = 0; round < 3; round++) {
        for (i = 0; i < 5; i++) {
            CK(MPI_Start(&rq[i]));
            pt_status_junk(&st[i]);
            CK(MPI_Wait(&rq[i], &st[i]));
            EXPECT(rq[i] != MPI_REQUEST_NULL, "MPI_Wait freed persistent PROC_NULL request %d", i);
        }
        expect_null_status_persistent(&st[4], "persistent receive from MPI_PROC_NULL (Start)");
        CK(MPI_Startall(5, rq));
        CK(MPI_Waitall(5, rq, st));
        expect_null_status_persistent(&st[4], "persistent receive from MPI_PROC_NULL (Startall)");
    }
    for (i = 0; i < 5; i++) {
        CK(MPI_Request_free(&rq[i]));
    }
    expect_untouched("buffer after persistent receives from MPI_PROC_NULL");
}

int main(int argc, char **argv)
{
    static const int counts[3] = {0, 10, BIG};
    int c;
    int pass;
    pt_init(&argc, &argv, "pt2pt_proc_null");
    buf = (unsigned char *)pt_malloc(BIG);
    sbuf = (unsigned char *)pt_malloc(BIG);
    memset(buf, 0xA5, BIG);
    memset(sbuf, 0x3C, BIG);
    for (pass = 0; pass < 2; pass++) {
        MPI_Comm comm = pass == 0 ? MPI_COMM_WORLD : MPI_COMM_SELF;
        const char *cname = pass == 0 ? "MPI_COMM_WORLD" : "MPI_COMM_SELF";
        for (c = 0; c < 3; c++) {
            blocking(comm, counts[c], cname);
            nonblocking(comm, counts[c], cname);
            persistent(comm, counts[c], cname);
        }
    }
    pt_verify_const(sbuf, BIG, 0x3C, "send buffer after sends to MPI_PROC_NULL");
    free(buf);
    free(sbuf);
    return pt_finish();
}
