/* pt2pt_bsend_exhaust: MPI_Bsend when the attached buffer cannot hold the
 * message, with MPI_ERRORS_RETURN on MPI_COMM_WORLD.
 *
 * Rank 0 sends, rank 1 receives; other ranks only join the final barrier.
 * Deterministic cases (the buffer is empty, so the outcome is fixed):
 *   - no buffer attached: MPI_Bsend of 10 bytes fails with MPI_ERR_BUFFER;
 *   - buffer of MPI_BSEND_OVERHEAD bytes: an MPI_Bsend of more bytes than the
 *     whole buffer fails with MPI_ERR_BUFFER, a 0-byte one then succeeds;
 *   - buffer of B bytes: a message of B + 1 bytes fails with MPI_ERR_BUFFER
 *     (also through MPI_Ibsend, at the call or at MPI_Wait), one of exactly
 *     B - MPI_BSEND_OVERHEAD bytes succeeds.
 *   MPI_BSEND_OVERHEAD is an upper bound on the per-message overhead, so a
 *   message of B - MPI_BSEND_OVERHEAD + 1 bytes may still fit; only a message
 *   larger than the whole buffer is certain not to (MPI-1.3 3.4: with no
 *   matching receive posted MPI must buffer the message, and an error occurs
 *   if the space is insufficient).
 * Filling the buffer: with the receiver not receiving, rank 0 issues many
 * more MPI_Bsends than the buffer holds. When buffer space is reclaimed is up
 * to the implementation (a message may leave the buffer before it is
 * received), so each call may succeed or fail, but a failure must be exactly
 * MPI_ERR_BUFFER. Every message whose MPI_Bsend succeeded - before and after
 * the failures - must then arrive intact and in order, and no message whose
 * MPI_Bsend failed may arrive. Rank 0 tells rank 1 which sends succeeded.
 */
#include "pt2pt_common.h"

#define S 65536
#define NFILL 24
#define TAG_DATA 1000
#define TAG_MANIFEST 1
#define TAG_END 2

static int bsend_class(const void *buf, int n, int tag)
{
    int rc = MPI_Bsend(buf, n, MPI_BYTE, 1, tag, MPI_COMM_WORLD);
    return rc == MPI_SUCCESS ? MPI_SUCCESS : pt_error_class(rc);
}

static void detach(void *expect_addr, int expect_size)
{
    void *addr = NULL;
    int size = -1;
    CK(MPI_Buffer_detach(&addr, &size));
    EXPECT(addr == expect_addr && size == expect_size, "MPI_Buffer_detach returned %p/%d, attached %p/%d",
           addr, size, expect_addr, expect_size);
}

static void sender(void)
{
    /* manifest[0] = number of successful sends, then their tags and sizes */
    int manifest[2 + 2 * (NFILL + 8)];
    int nman = 0;
    unsigned char *msg = (unsigned char *)pt_malloc(8 * S);
    unsigned char *buffer;
    int bsize;
    int cls;
    int i;
    int end = 0;

#define RECORD(tag_, n_)                                                                           \
    do {                                                                                           \
        manifest[1 + 2 * nman] = (tag_);                                                           \
        manifest[2 + 2 * nman] = (n_);                                                             \
        nman++;                                                                                    \
    } while (0)

    pt_set_phase("Bsend without an attached buffer");
    pt_fill(msg, 10, pt_seed(0, 1, TAG_DATA, 10));
    cls = bsend_class(msg, 10, TAG_DATA);
    EXPECT(cls == MPI_ERR_BUFFER, "MPI_Bsend with no buffer attached gave class %d, expected MPI_ERR_BUFFER (%d)",
           cls, MPI_ERR_BUFFER);

    pt_set_phase("Bsend into an MPI_BSEND_OVERHEAD-byte buffer");
    bsize = MPI_BSEND_OVERHEAD;
    buffer = (unsigned char *)pt_malloc((size_t)bsize);
    CK(MPI_Buffer_attach(buffer, bsize));
    pt_fill(msg, (size_t)bsize + 1, pt_seed(0, 1, TAG_DATA + 1, 0));
    cls = bsend_class(msg, bsize + 1, TAG_DATA + 1);
    EXPECT(cls == MPI_ERR_BUFFER, "%d-byte MPI_Bsend into a %d-byte buffer gave class %d, expected MPI_ERR_BUFFER",
           bsize + 1, bsize, cls);
    cls = bsend_class(msg, 0, TAG_DATA + 2);
    EXPECT(cls == MPI_SUCCESS, "0-byte MPI_Bsend into a %d-byte buffer gave class %d, expected success", bsize,
           cls);
    RECORD(TAG_DATA + 2, 0);
    detach(buffer, bsize);
    free(buffer);

    pt_set_phase("Bsend of one message too large for the buffer");
    bsize = 4 * (S + MPI_BSEND_OVERHEAD);
    buffer = (unsigned char *)pt_malloc((size_t)bsize);
    CK(MPI_Buffer_attach(buffer, bsize));
    pt_fill(msg, (size_t)bsize + 1, pt_seed(0, 1, TAG_DATA + 3, 0));
    cls = bsend_class(msg, bsize + 1, TAG_DATA + 3);
    EXPECT(cls == MPI_ERR_BUFFER, "MPI_Bsend of %d bytes into an empty %d-byte buffer gave class %d, expected "
           "MPI_ERR_BUFFER (%d)", bsize + 1, bsize, cls, MPI_ERR_BUFFER);

    pt_set_phase("Ibsend of one message too large for the buffer");
    {
        MPI_Request rq = MPI_REQUEST_NULL;
        MPI_Status st;
        int rc = MPI_Ibsend(msg, bsize + 1, MPI_BYTE, 1, TAG_DATA + 4, MPI_COMM_WORLD, &rq);
        if (rc == MPI_SUCCESS) {
            rc = MPI_Wait(&rq, &st);
        }
        EXPECT(rc != MPI_SUCCESS, "oversized MPI_Ibsend succeeded");
        cls = pt_error_class(rc);
        EXPECT(cls == MPI_ERR_BUFFER, "oversized MPI_Ibsend gave class %d, expected MPI_ERR_BUFFER (%d)", cls,
               MPI_ERR_BUFFER);
    }

    pt_set_phase("Bsend of a message exactly filling the buffer");
    pt_fill(msg, (size_t)(bsize - MPI_BSEND_OVERHEAD), pt_seed(0, 1, TAG_DATA + 5, 0));
    cls = bsend_class(msg, bsize - MPI_BSEND_OVERHEAD, TAG_DATA + 5);
    EXPECT(cls == MPI_SUCCESS, "MPI_Bsend of %d bytes into an empty %d-byte buffer gave class %d, expected success",
           bsize - MPI_BSEND_OVERHEAD, bsize, cls);
    RECORD(TAG_DATA + 5, bsize - MPI_BSEND_OVERHEAD);

    pt_set_phase("Bsend filling the buffer");
    for (i = 0; i < NFILL; i++) {
        int tag = TAG_DATA + 10 + i;
        int n = (i % 3 == 2) ? 2 * S : S;
        pt_fill(msg, (size_t)n, pt_seed(0, 1, tag, 0));
        cls = bsend_class(msg, n, tag);
        if (cls == MPI_SUCCESS) {
            RECORD(tag, n);
        } else {
            EXPECT(cls == MPI_ERR_BUFFER, "MPI_Bsend %d (%d bytes) into a full buffer gave class %d, expected "
                   "MPI_ERR_BUFFER (%d)", i, n, cls, MPI_ERR_BUFFER);
        }
    }

    if (getenv("PT2PT_VERBOSE") != NULL) {
        fprintf(stderr, "pt2pt_bsend_exhaust: %d of %d filling MPI_Bsends failed with MPI_ERR_BUFFER\n",
                NFILL - (nman - 2), NFILL);
    }
    pt_set_phase("send manifest");
    manifest[0] = nman;
    CK(MPI_Send(manifest, 1 + 2 * nman, MPI_INT, 1, TAG_MANIFEST, MPI_COMM_WORLD));
    pt_set_phase("detach after filling");
    detach(buffer, bsize);
    memset(buffer, 0xDB, (size_t)bsize);
    free(buffer);
    pt_set_phase("end marker");
    CK(MPI_Send(&end, 1, MPI_INT, 1, TAG_END, MPI_COMM_WORLD));
    free(msg);
#undef RECORD
}

static void receiver(void)
{
    int manifest[2 + 2 * (NFILL + 8)];
    unsigned char *buf = (unsigned char *)pt_malloc(8 * S);
    MPI_Status st;
    int nman;
    int i;
    int end = -1;
    char what[120];

    pt_set_phase("receive manifest");
    CK(MPI_Recv(manifest, 2 + 2 * (NFILL + 8), MPI_INT, 0, TAG_MANIFEST, MPI_COMM_WORLD, &st));
    nman = manifest[0];
    EXPECT(pt_count(&st, MPI_INT) == 1 + 2 * nman, "manifest has %d ints for %d entries", pt_count(&st, MPI_INT),
           nman);
    pt_set_phase("receive buffered messages");
    for (i = 0; i < nman; i++) {
        int tag = manifest[1 + 2 * i];
        int n = manifest[2 + 2 * i];
        snprintf(what, sizeof what, "buffered message %d of %d (tag %d, %d bytes)", i, nman, tag, n);
        CK(MPI_Recv(buf, 8 * S, MPI_BYTE, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        EXPECT(st.MPI_TAG != TAG_END, "%s: got the end marker instead: a successfully buffered message was lost",
               what);
        pt_expect_status(&st, 0, tag, MPI_BYTE, n, what);
        pt_verify(buf, (size_t)n, pt_seed(0, 1, tag, 0), what);
    }
    pt_set_phase("end marker");
    CK(MPI_Recv(&end, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    EXPECT(st.MPI_TAG == TAG_END, "expected the end marker, got a message with tag %d: a failed MPI_Bsend "
           "delivered a message", st.MPI_TAG);
    free(buf);
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "pt2pt_bsend_exhaust");
    pt_require_size(2);
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    if (rank == 0) {
        sender();
    } else if (rank == 1) {
        receiver();
    }
    return pt_finish();
}
