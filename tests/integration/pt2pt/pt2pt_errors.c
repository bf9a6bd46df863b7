/* pt2pt_errors: error classes returned under MPI_ERRORS_RETURN, user error
 * handlers, and error strings (MPI-1.3 chapter 7).
 *
 *   - MPI_COMM_WORLD and MPI_COMM_SELF start with MPI_ERRORS_ARE_FATAL;
 *     after MPI_Errhandler_set(MPI_ERRORS_RETURN) on MPI_COMM_WORLD,
 *     MPI_Errhandler_get returns it there while MPI_COMM_SELF keeps its own
 *     handler; then both are set to MPI_ERRORS_RETURN.
 *   - Exact classes (MPI_Error_class of the returned code):
 *       MPI_ERR_RANK     dest = size, dest = -5, source = size (send, receive,
 *                        nonblocking, persistent, probe, sendrecv);
 *       MPI_ERR_TAG      negative tag on a send, MPI_ANY_TAG on a send, a
 *                        negative tag other than MPI_ANY_TAG on a receive;
 *       MPI_ERR_COUNT    count -1;
 *       MPI_ERR_TYPE     MPI_DATATYPE_NULL;
 *       MPI_ERR_COMM     MPI_COMM_NULL (errors with no valid communicator go
 *                        to MPI_COMM_WORLD's handler, here ERRORS_RETURN);
 *       MPI_ERR_REQUEST  MPI_Start(MPI_REQUEST_NULL) (MPI-1.3 3.9: the argument
 *                        must be a persistent request handle);
 *       MPI_ERR_TRUNCATE a message longer than the receive buffer: from
 *                        MPI_Recv, from MPI_Wait, and inside
 *                        status.MPI_ERROR of MPI_Waitall / MPI_Waitsome, which
 *                        return MPI_ERR_IN_STATUS; the bytes after the
 *                        receive buffer are never written;
 *       MPI_ERR_BUFFER   MPI_Bsend with no buffer, or more than the buffer.
 *     A nonblocking call may report its error when started or at completion;
 *     both are accepted. After all these errors, communication still works.
 *   - A user handler (MPI_Errhandler_create) is called once per error with
 *     the communicator and the code the call returns; a handler on
 *     MPI_COMM_SELF is used for errors on MPI_COMM_SELF only; a freed handler
 *     stays in force on the communicator it is attached to.
 *   - MPI_Error_string gives a non-empty string, and MPI_Error_class maps each
 *     class to itself, for every class 0..MPI_ERR_LASTCODE (for libraries
 *     whose MPI_ERR_LASTCODE is a huge bound rather than the last class, for
 *     every MPI-1 class name).
 */
#include "pt2pt_common.h"

static int partner;

static void expect_class(int rc, int cls, const char *what)
{
    char str[MPI_MAX_ERROR_STRING + 1];
    int len = -1;
    int got;
    EXPECT(rc != MPI_SUCCESS, "%s succeeded, expected error class %d", what, cls);
    got = pt_error_class(rc);
    EXPECT(got == cls, "%s: error class %d, expected %d", what, got, cls);
    memset(str, 0, sizeof str);
    CK(MPI_Error_string(rc, str, &len));
    EXPECT(len > 0 && len < MPI_MAX_ERROR_STRING && str[0] != '\0',
           "%s: MPI_Error_string of the returned code is empty (length %d)", what, len);
}

/* For a nonblocking start: the error may come from the call or at MPI_Wait. */
static int nb(int rc, MPI_Request *rq)
{
    MPI_Status st;
    if (rc != MPI_SUCCESS) {
        return rc;
    }
    return MPI_Wait(rq, &st);
}

static void errhandlers_initial(void)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    pt_set_phase("initial error handler");
    CK(MPI_Errhandler_get(MPI_COMM_WORLD, &eh));
    EXPECT(eh == MPI_ERRORS_ARE_FATAL, "MPI_COMM_WORLD does not start with MPI_ERRORS_ARE_FATAL");
    CK(MPI_Errhandler_get(MPI_COMM_SELF, &eh));
    EXPECT(eh == MPI_ERRORS_ARE_FATAL, "MPI_COMM_SELF does not start with MPI_ERRORS_ARE_FATAL");
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CK(MPI_Errhandler_get(MPI_COMM_WORLD, &eh));
    EXPECT(eh == MPI_ERRORS_RETURN, "MPI_Errhandler_get does not return the MPI_ERRORS_RETURN just set");
    /* Each communicator has its own handler: MPI_COMM_SELF is still fatal. */
    CK(MPI_Errhandler_get(MPI_COMM_SELF, &eh));
    EXPECT(eh == MPI_ERRORS_ARE_FATAL, "setting MPI_COMM_WORLD's error handler changed MPI_COMM_SELF's");
    CK(MPI_Errhandler_set(MPI_COMM_SELF, MPI_ERRORS_RETURN));
}

static void local_errors(void)
{
    int buf[16];
    MPI_Request rq;
    MPI_Status st;
    int flag;
    int size = pt_size;

    pt_set_phase("MPI_ERR_RANK");
    expect_class(MPI_Send(buf, 1, MPI_INT, size, 1, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send to rank size");
    expect_class(MPI_Send(buf, 1, MPI_INT, -5, 1, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Send to rank -5");
    expect_class(MPI_Ssend(buf, 1, MPI_INT, size + 3, 1, MPI_COMM_WORLD), MPI_ERR_RANK, "MPI_Ssend to rank size+3");
    expect_class(MPI_Recv(buf, 1, MPI_INT, size, 1, MPI_COMM_WORLD, &st), MPI_ERR_RANK, "MPI_Recv from rank size");
    expect_class(MPI_Send(buf, 1, MPI_INT, 1, 1, MPI_COMM_SELF), MPI_ERR_RANK, "MPI_Send to rank 1 on MPI_COMM_SELF");
    rq = MPI_REQUEST_NULL;
    expect_class(nb(MPI_Isend(buf, 1, MPI_INT, size, 1, MPI_COMM_WORLD, &rq), &rq), MPI_ERR_RANK,
                 "MPI_Isend to rank size");
    rq = MPI_REQUEST_NULL;
    expect_class(nb(MPI_Irecv(buf, 1, MPI_INT, size, 1, MPI_COMM_WORLD, &rq), &rq), MPI_ERR_RANK,
                 "MPI_Irecv from rank size");
    expect_class(MPI_Probe(size, 1, MPI_COMM_WORLD, &st), MPI_ERR_RANK, "MPI_Probe of rank size");
    expect_class(MPI_Iprobe(-5, 1, MPI_COMM_WORLD, &flag, &st), MPI_ERR_RANK, "MPI_Iprobe of rank -5");
    expect_class(MPI_Sendrecv(buf, 1, MPI_INT, size, 1, buf + 8, 1, MPI_INT, MPI_PROC_NULL, 1, MPI_COMM_WORLD, &st),
                 MPI_ERR_RANK, "MPI_Sendrecv to rank size");
    {
        int rc;
        rq = MPI_REQUEST_NULL;
        rc = MPI_Send_init(buf, 1, MPI_INT, size, 1, MPI_COMM_WORLD, &rq);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Start(&rq);
            if (rc == MPI_SUCCESS) {
                rc = MPI_Wait(&rq, &st);
            }
        }
        expect_class(rc, MPI_ERR_RANK, "MPI_Send_init to rank size");
    }

    pt_set_phase("MPI_ERR_TAG");
    expect_class(MPI_Send(buf, 1, MPI_INT, partner, -7, MPI_COMM_WORLD), MPI_ERR_TAG, "MPI_Send with tag -7");
    expect_class(MPI_Send(buf, 1, MPI_INT, partner, MPI_ANY_TAG, MPI_COMM_WORLD), MPI_ERR_TAG,
                 "MPI_Send with tag MPI_ANY_TAG");
    expect_class(MPI_Recv(buf, 1, MPI_INT, partner, -7, MPI_COMM_WORLD, &st), MPI_ERR_TAG, "MPI_Recv with tag -7");
    rq = MPI_REQUEST_NULL;
    expect_class(nb(MPI_Isend(buf, 1, MPI_INT, partner, -100, MPI_COMM_WORLD, &rq), &rq), MPI_ERR_TAG,
                 "MPI_Isend with tag -100");

    pt_set_phase("MPI_ERR_COUNT");
    expect_class(MPI_Send(buf, -1, MPI_INT, partner, 1, MPI_COMM_WORLD), MPI_ERR_COUNT, "MPI_Send with count -1");
    expect_class(MPI_Recv(buf, -1, MPI_INT, partner, 1, MPI_COMM_WORLD, &st), MPI_ERR_COUNT, "MPI_Recv with count -1");
    rq = MPI_REQUEST_NULL;
    expect_class(nb(MPI_Isend(buf, -1, MPI_INT, partner, 1, MPI_COMM_WORLD, &rq), &rq), MPI_ERR_COUNT,
                 "MPI_Isend with count -1");

    pt_set_phase("MPI_ERR_TYPE");
    expect_class(MPI_Send(buf, 1, MPI_DATATYPE_NULL, partner, 1, MPI_COMM_WORLD), MPI_ERR_TYPE,
                 "MPI_Send with MPI_DATATYPE_NULL");
    expect_class(MPI_Recv(buf, 1, MPI_DATATYPE_NULL, partner, 1, MPI_COMM_WORLD, &st), MPI_ERR_TYPE,
                 "MPI_Recv with MPI_DATATYPE_NULL");
    rq = MPI_REQUEST_NULL;
    expect_class(nb(MPI_Irecv(buf, 1, MPI_DATATYPE_NULL, partner, 1, MPI_COMM_WORLD, &rq), &rq), MPI_ERR_TYPE,
                 "MPI_Irecv with MPI_DATATYPE_NULL");

    pt_set_phase("MPI_ERR_COMM");
    expect_class(MPI_Send(buf, 1, MPI_INT, 0, 1, MPI_COMM_NULL), MPI_ERR_COMM, "MPI_Send on MPI_COMM_NULL");
    expect_class(MPI_Recv(buf, 1, MPI_INT, 0, 1, MPI_COMM_NULL, &st), MPI_ERR_COMM, "MPI_Recv on MPI_COMM_NULL");
    rq = MPI_REQUEST_NULL;
    expect_class(nb(MPI_Isend(buf, 1, MPI_INT, 0, 1, MPI_COMM_NULL, &rq), &rq), MPI_ERR_COMM,
                 "MPI_Isend on MPI_COMM_NULL");
    expect_class(MPI_Probe(0, 1, MPI_COMM_NULL, &st), MPI_ERR_COMM, "MPI_Probe on MPI_COMM_NULL");
    {
        int v;
        expect_class(MPI_Comm_size(MPI_COMM_NULL, &v), MPI_ERR_COMM, "MPI_Comm_size(MPI_COMM_NULL)");
        expect_class(MPI_Comm_rank(MPI_COMM_NULL, &v), MPI_ERR_COMM, "MPI_Comm_rank(MPI_COMM_NULL)");
    }

    pt_set_phase("MPI_ERR_REQUEST");
    rq = MPI_REQUEST_NULL;
    expect_class(MPI_Start(&rq), MPI_ERR_REQUEST, "MPI_Start(MPI_REQUEST_NULL)");

    pt_set_phase("MPI_ERR_BUFFER");
    expect_class(MPI_Bsend(buf, 4, MPI_INT, partner, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                 "MPI_Bsend with no buffer attached");
    {
        int bsize = 64 + MPI_BSEND_OVERHEAD;
        void *b = pt_malloc((size_t)bsize);
        unsigned char *big = (unsigned char *)pt_malloc((size_t)bsize + 1);
        void *addr;
        int sz;
        CK(MPI_Buffer_attach(b, bsize));
        expect_class(MPI_Bsend(big, bsize + 1, MPI_BYTE, partner, 1, MPI_COMM_WORLD), MPI_ERR_BUFFER,
                     "MPI_Bsend larger than the attached buffer");
        CK(MPI_Buffer_detach(&addr, &sz));
        free(b);
        free(big);
    }
}

/* Receives larger messages than their buffers. Rank 0 receives, 1 sends. */
static void truncation(void)
{
    int rank = pt_rank;
    int out[200];
    int in[200];
    MPI_Status st;
    MPI_Status sts[3];
    MPI_Request rq[3];
    int i;
    int rc;
    for (i = 0; i < 200; i++) {
        out[i] = 1000 + i;
    }
    pt_set_phase("MPI_ERR_TRUNCATE");
    if (rank == 1) {
        CK(MPI_Send(out, 100, MPI_INT, 0, 1, MPI_COMM_WORLD));  /* into 50 */
        CK(MPI_Send(out, 100, MPI_INT, 0, 2, MPI_COMM_WORLD));  /* Irecv of 50 */
        CK(MPI_Send(out, 20, MPI_INT, 0, 3, MPI_COMM_WORLD));   /* Waitall: into 10 */
        CK(MPI_Send(out, 30, MPI_INT, 0, 4, MPI_COMM_WORLD));   /* Waitall: fits */
        CK(MPI_Send(out, 40, MPI_INT, 0, 5, MPI_COMM_WORLD));   /* Waitsome: fits */
        CK(MPI_Send(out, 200, MPI_INT, 0, 6, MPI_COMM_WORLD));  /* Waitsome: into 100 */
        CK(MPI_Send(out, 7, MPI_INT, 0, 7, MPI_COMM_WORLD));    /* probe, then into 6 */
        CK(MPI_Send(out, 5, MPI_INT, 0, 8, MPI_COMM_WORLD));    /* fits: still works */
    } else if (rank == 0) {
        memset(in, 0xA5, sizeof in);
        rc = MPI_Recv(in, 50, MPI_INT, 1, 1, MPI_COMM_WORLD, &st);
        expect_class(rc, MPI_ERR_TRUNCATE, "MPI_Recv of 100 ints into 50");
        pt_verify_const(in + 50, sizeof in - 50 * sizeof(int), 0xA5, "memory after a truncated MPI_Recv buffer");

        memset(in, 0xA5, sizeof in);
        CK(MPI_Irecv(in, 50, MPI_INT, 1, 2, MPI_COMM_WORLD, &rq[0]));
        rc = MPI_Wait(&rq[0], &st);
        expect_class(rc, MPI_ERR_TRUNCATE, "MPI_Wait on an Irecv of 100 ints into 50");
        pt_verify_const(in + 50, sizeof in - 50 * sizeof(int), 0xA5, "memory after a truncated MPI_Irecv buffer");

        pt_set_phase("MPI_ERR_IN_STATUS from MPI_Waitall");
        memset(in, 0xA5, sizeof in);
        CK(MPI_Irecv(in, 10, MPI_INT, 1, 3, MPI_COMM_WORLD, &rq[0]));
        CK(MPI_Irecv(in + 100, 50, MPI_INT, 1, 4, MPI_COMM_WORLD, &rq[1]));
        rq[2] = MPI_REQUEST_NULL;
        for (i = 0; i < 3; i++) {
            pt_status_junk(&sts[i]);
        }
        rc = MPI_Waitall(3, rq, sts);
        expect_class(rc, MPI_ERR_IN_STATUS, "MPI_Waitall with a truncated receive");
        EXPECT(sts[0].MPI_ERROR != MPI_SUCCESS && pt_error_class(sts[0].MPI_ERROR) == MPI_ERR_TRUNCATE,
               "MPI_Waitall: status.MPI_ERROR of the truncated receive is %d (class %d), expected MPI_ERR_TRUNCATE",
               sts[0].MPI_ERROR, sts[0].MPI_ERROR == MPI_SUCCESS ? 0 : pt_error_class(sts[0].MPI_ERROR));
        if (sts[1].MPI_ERROR == MPI_SUCCESS) {
            EXPECT(rq[1] == MPI_REQUEST_NULL, "MPI_Waitall: a completed request was not freed");
            pt_expect_status(&sts[1], 1, 4, MPI_INT, 30, "MPI_Waitall: the receive that fits");
        } else {
            EXPECT(pt_error_class(sts[1].MPI_ERROR) == MPI_ERR_PENDING,
                   "MPI_Waitall: status.MPI_ERROR of the receive that fits is class %d, expected MPI_SUCCESS or "
                   "MPI_ERR_PENDING", pt_error_class(sts[1].MPI_ERROR));
            CK(MPI_Wait(&rq[1], &sts[1]));
            pt_expect_status(&sts[1], 1, 4, MPI_INT, 30, "MPI_Waitall: the receive that fits (after PENDING)");
        }
        for (i = 0; i < 30; i++) {
            EXPECT(in[100 + i] == 1000 + i, "receive that fits, element %d is %d", i, in[100 + i]);
        }
        pt_verify_const(in + 10, 90 * sizeof(int), 0xA5, "memory after the truncated MPI_Waitall receive buffer");

        pt_set_phase("MPI_ERR_IN_STATUS from MPI_Waitsome");
        memset(in, 0xA5, sizeof in);
        CK(MPI_Irecv(in, 50, MPI_INT, 1, 5, MPI_COMM_WORLD, &rq[0]));
        CK(MPI_Irecv(in + 50, 100, MPI_INT, 1, 6, MPI_COMM_WORLD, &rq[1]));
        {
            int done = 0;
            int seen_trunc = 0;
            while (done < 2) {
                int outcount = -1;
                int idx[2];
                int k;
                for (k = 0; k < 2; k++) {
                    pt_status_junk(&sts[k]);
                }
                rc = MPI_Waitsome(2, rq, &outcount, idx, sts);
                EXPECT(outcount >= 1 && outcount <= 2 - done, "MPI_Waitsome outcount %d", outcount);
                for (k = 0; k < outcount; k++) {
                    if (idx[k] == 1) {
                        EXPECT(rc != MPI_SUCCESS && pt_error_class(rc) == MPI_ERR_IN_STATUS,
                               "MPI_Waitsome completing a truncated receive returned %d, expected "
                               "MPI_ERR_IN_STATUS", rc);
                        EXPECT(sts[k].MPI_ERROR != MPI_SUCCESS && pt_error_class(sts[k].MPI_ERROR) == MPI_ERR_TRUNCATE,
                               "MPI_Waitsome: status.MPI_ERROR of the truncated receive is not MPI_ERR_TRUNCATE");
                        seen_trunc = 1;
                    } else {
                        EXPECT(idx[k] == 0, "MPI_Waitsome returned index %d", idx[k]);
                        EXPECT(rc == MPI_SUCCESS || sts[k].MPI_ERROR == MPI_SUCCESS,
                               "MPI_Waitsome: status.MPI_ERROR of the receive that fits is %d", sts[k].MPI_ERROR);
                        pt_expect_status(&sts[k], 1, 5, MPI_INT, 40, "MPI_Waitsome: the receive that fits");
                    }
                }
                done += outcount;
            }
            EXPECT(seen_trunc, "MPI_Waitsome never reported the truncated receive");
        }
        pt_verify_const(in + 150, 50 * sizeof(int), 0xA5, "memory after the truncated MPI_Waitsome receive buffer");

        pt_set_phase("MPI_ERR_TRUNCATE after MPI_Probe");
        CK(MPI_Probe(1, 7, MPI_COMM_WORLD, &st));
        pt_expect_status(&st, 1, 7, MPI_INT, 7, "probe of a 7-int message");
        memset(in, 0xA5, sizeof in);
        rc = MPI_Recv(in, 6, MPI_INT, 1, 7, MPI_COMM_WORLD, &st);
        expect_class(rc, MPI_ERR_TRUNCATE, "MPI_Recv of 7 ints into 6 after MPI_Probe");
        pt_verify_const(in + 6, sizeof in - 6 * sizeof(int), 0xA5, "memory after a truncated receive after probe");

        pt_set_phase("receive after errors");
        CK(MPI_Recv(in, 200, MPI_INT, 1, 8, MPI_COMM_WORLD, &st));
        pt_expect_status(&st, 1, 8, MPI_INT, 5, "receive after errors");
        for (i = 0; i < 5; i++) {
            EXPECT(in[i] == 1000 + i, "receive after errors: element %d is %d", i, in[i]);
        }
    }
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

/* User error handlers. */
static int h_calls;
static MPI_Comm h_comm;
static int h_code;

static void handler(MPI_Comm *comm, int *code, ...)
{
    h_calls++;
    h_comm = *comm;
    h_code = *code;
}

static void reset_handler_record(void)
{
    h_calls = 0;
    h_comm = MPI_COMM_NULL;
    h_code = MPI_SUCCESS;
}

static void expect_handled(int rc, MPI_Comm comm, const char *cname, int cls, const char *what)
{
    EXPECT(h_calls == 1, "%s: user error handler called %d times, expected once", what, h_calls);
    EXPECT(h_comm == comm, "%s: user error handler got a communicator other than %s", what, cname);
    EXPECT(h_code != MPI_SUCCESS && pt_error_class(h_code) == cls,
           "%s: handler got code %d (class %d), expected class %d", what, h_code,
           h_code == MPI_SUCCESS ? 0 : pt_error_class(h_code), cls);
    EXPECT(rc == h_code, "%s: the call returned %d, the handler was given %d", what, rc, h_code);
    reset_handler_record();
}

static void user_handlers(void)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    MPI_Errhandler eh2 = MPI_ERRHANDLER_NULL;
    MPI_Errhandler got = MPI_ERRHANDLER_NULL;
    int buf[8];
    int rc;
    MPI_Status st;

    pt_set_phase("user error handler on MPI_COMM_WORLD");
    reset_handler_record();
    CK(MPI_Errhandler_create(handler, &eh));
    EXPECT(eh != MPI_ERRHANDLER_NULL, "MPI_Errhandler_create returned MPI_ERRHANDLER_NULL");
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, eh));
    CK(MPI_Errhandler_get(MPI_COMM_WORLD, &got));
    EXPECT(got == eh, "MPI_Errhandler_get does not return the user handler just set");
    EXPECT(h_calls == 0, "user handler called without an error");

    rc = MPI_Send(buf, 1, MPI_INT, pt_size, 1, MPI_COMM_WORLD);
    expect_handled(rc, MPI_COMM_WORLD, "MPI_COMM_WORLD", MPI_ERR_RANK, "MPI_Send to rank size");
    rc = MPI_Send(buf, 1, MPI_INT, partner, -3, MPI_COMM_WORLD);
    expect_handled(rc, MPI_COMM_WORLD, "MPI_COMM_WORLD", MPI_ERR_TAG, "MPI_Send with tag -3");
    rc = MPI_Recv(buf, -2, MPI_INT, partner, 1, MPI_COMM_WORLD, &st);
    expect_handled(rc, MPI_COMM_WORLD, "MPI_COMM_WORLD", MPI_ERR_COUNT, "MPI_Recv with count -2");
    if (pt_rank == 0) {
        rc = MPI_Recv(buf, 2, MPI_INT, 1, 20, MPI_COMM_WORLD, &st);
        expect_handled(rc, MPI_COMM_WORLD, "MPI_COMM_WORLD", MPI_ERR_TRUNCATE, "MPI_Recv of 8 ints into 2");
    } else if (pt_rank == 1) {
        CK(MPI_Send(buf, 8, MPI_INT, 0, 20, MPI_COMM_WORLD));
    }
    {
        int v = 0;
        /* no error: the handler is not called */
        CK(MPI_Comm_size(MPI_COMM_WORLD, &v));
        EXPECT(h_calls == 0, "user handler called after a successful call");
    }

    pt_set_phase("user error handler on MPI_COMM_SELF");
    CK(MPI_Errhandler_create(handler, &eh2));
    CK(MPI_Errhandler_set(MPI_COMM_SELF, eh2));
    rc = MPI_Send(buf, 1, MPI_INT, 1, 1, MPI_COMM_SELF);
    expect_handled(rc, MPI_COMM_SELF, "MPI_COMM_SELF", MPI_ERR_RANK, "MPI_Send to rank 1 on MPI_COMM_SELF");

    pt_set_phase("freed handler stays attached");
    CK(MPI_Errhandler_free(&eh2));
    EXPECT(eh2 == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not set the handle to MPI_ERRHANDLER_NULL");
    rc = MPI_Send(buf, 1, MPI_INT, 0, -9, MPI_COMM_SELF);
    expect_handled(rc, MPI_COMM_SELF, "MPI_COMM_SELF", MPI_ERR_TAG,
                   "MPI_Send with tag -9 on MPI_COMM_SELF (freed handler)");
    CK(MPI_Errhandler_set(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    pt_set_phase("restore MPI_ERRORS_RETURN and free the user handler");
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CK(MPI_Errhandler_free(&eh));
    EXPECT(eh == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not set the handle to MPI_ERRHANDLER_NULL");
    rc = MPI_Send(buf, 1, MPI_INT, pt_size, 1, MPI_COMM_WORLD);
    expect_class(rc, MPI_ERR_RANK, "MPI_Send to rank size after restoring MPI_ERRORS_RETURN");
    EXPECT(h_calls == 0, "user handler called after MPI_ERRORS_RETURN was restored");
    rc = MPI_Send(buf, 1, MPI_INT, 2, 1, MPI_COMM_SELF);
    expect_class(rc, MPI_ERR_RANK, "MPI_Send to rank 2 on MPI_COMM_SELF after restoring MPI_ERRORS_RETURN");
    EXPECT(h_calls == 0, "freed user handler called after MPI_ERRORS_RETURN was set on MPI_COMM_SELF");
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

static void error_strings(void)
{
    static const int classes[] = {MPI_SUCCESS,      MPI_ERR_BUFFER,  MPI_ERR_COUNT,    MPI_ERR_TYPE,
                                  MPI_ERR_TAG,      MPI_ERR_COMM,    MPI_ERR_RANK,     MPI_ERR_REQUEST,
                                  MPI_ERR_ROOT,     MPI_ERR_GROUP,   MPI_ERR_OP,       MPI_ERR_TOPOLOGY,
                                  MPI_ERR_DIMS,     MPI_ERR_ARG,     MPI_ERR_UNKNOWN,  MPI_ERR_TRUNCATE,
                                  MPI_ERR_OTHER,    MPI_ERR_INTERN,  MPI_ERR_IN_STATUS, MPI_ERR_PENDING,
                                  MPI_ERR_LASTCODE};
    int ncls = (int)(sizeof classes / sizeof classes[0]);
    int i;
    int c;
    int last;
    pt_set_phase("Error_string / Error_class of every class");
    for (i = 0; i < ncls; i++) {
        EXPECT(classes[i] >= 0 && classes[i] <= MPI_ERR_LASTCODE, "error class %d outside 0..MPI_ERR_LASTCODE (%d)",
               classes[i], MPI_ERR_LASTCODE);
        if (i > 0) {
            EXPECT(classes[i] != MPI_SUCCESS, "an error class equals MPI_SUCCESS");
        }
    }
    /* MPI-1.3 7.4: 0 = MPI_SUCCESS < MPI_ERR_... <= MPI_ERR_LASTCODE. Where
     * MPI_ERR_LASTCODE is a bound far above the classes (MPICH), check the
     * named classes; otherwise every value up to it. */
    last = MPI_ERR_LASTCODE <= 4096 ? MPI_ERR_LASTCODE : -1;
    for (i = 0; i < (last >= 0 ? last + 1 : ncls - 1); i++) {
        char str[MPI_MAX_ERROR_STRING + 1];
        int len = -1;
        int cls = -1;
        c = last >= 0 ? i : classes[i];
        memset(str, 0, sizeof str);
        CK(MPI_Error_string(c, str, &len));
        EXPECT(len > 0 && len < MPI_MAX_ERROR_STRING, "MPI_Error_string(%d) length %d", c, len);
        EXPECT(str[0] != '\0' && (int)strlen(str) == len, "MPI_Error_string(%d) gives '%s' with length %d", c, str,
               len);
        CK(MPI_Error_class(c, &cls));
        EXPECT(cls == c, "MPI_Error_class(%d) = %d: an error class must be its own class", c, cls);
    }
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "pt2pt_errors");
    pt_require_size(2);
    partner = rank == 0 ? 1 : 0;
    errhandlers_initial();
    local_errors();
    CK(MPI_Barrier(MPI_COMM_WORLD));
    truncation();
    user_handlers();
    error_strings();
    return pt_finish();
}
