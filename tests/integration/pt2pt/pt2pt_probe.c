/* pt2pt_probe: MPI_Probe and MPI_Iprobe.
 *
 *   1. MPI_Iprobe finds nothing (flag false) while nothing has been sent
 *      (senders wait for a "go" message).
 *   2. Every other rank sends rank 0 messages of 0, 1, 1000, 64 KiB + 1,
 *      1 MiB and 4 MiB bytes. Rank 0 alternates MPI_Probe and MPI_Iprobe
 *      polling with wildcards, sizes its buffer from MPI_Get_count on the
 *      probe status, probes again with the returned source and tag (same
 *      message), then receives with that source and tag into a buffer of
 *      exactly that size: it must get exactly the probed message (source,
 *      tag, count, content), and each sender's messages come in send order.
 *   3. A probe with a specific tag skips an earlier message with another tag.
 *   4. Probing does not consume: repeated probes report the same message.
 *   5. A message sent on MPI_COMM_SELF is invisible to MPI_Iprobe on
 *      MPI_COMM_WORLD and visible on MPI_COMM_SELF.
 */
#include "pt2pt_common.h"

#define NSZ 6
static const int sizes[NSZ] = {0, 1, 1000, 65537, 1048576, 4 * 1048576};
#define TAG_GO 1
#define TAG_BASE 100

static int tag_of(int k)
{
    return TAG_BASE + 7 * k;
}

static void sender_part2(void)
{
    int go = -1;
    int k;
    MPI_Status st;
    MPI_Request rq[NSZ];
    MPI_Status sts[NSZ];
    unsigned char *bufs[NSZ];
    CK(MPI_Recv(&go, 1, MPI_INT, 0, TAG_GO, MPI_COMM_WORLD, &st));
    EXPECT(go == 1, "go message holds %d", go);
    for (k = 0; k < NSZ; k++) {
        bufs[k] = (unsigned char *)pt_malloc((size_t)sizes[k]);
        pt_fill(bufs[k], (size_t)sizes[k], pt_seed(pt_rank, 0, tag_of(k), sizes[k]));
        CK(MPI_Isend(bufs[k], sizes[k], MPI_BYTE, 0, tag_of(k), MPI_COMM_WORLD, &rq[k]));
    }
    CK(MPI_Waitall(NSZ, rq, sts));
    for (k = 0; k < NSZ; k++) {
        free(bufs[k]);
    }
}

static void receiver_part2(void)
{
    int flag = -1;
    int i;
    int total = (pt_size - 1) * NSZ;
    int *next = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    MPI_Status st;
    MPI_Request *gq = (MPI_Request *)pt_malloc(sizeof(MPI_Request) * (size_t)pt_size);
    MPI_Status *gst = (MPI_Status *)pt_malloc(sizeof(MPI_Status) * (size_t)pt_size);
    int go = 1;

    pt_set_phase("1: Iprobe with nothing sent");
    for (i = 0; i < 100; i++) {
        CK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        EXPECT(flag == 0, "MPI_Iprobe found a message (source %d, tag %d) before anything was sent", st.MPI_SOURCE,
               st.MPI_TAG);
    }
    for (i = 1; i < pt_size; i++) {
        next[i] = 0;
        CK(MPI_Isend(&go, 1, MPI_INT, i, TAG_GO, MPI_COMM_WORLD, &gq[i - 1]));
    }

    pt_set_phase("2: probe, size the buffer, receive the probed message");
    for (i = 0; i < total; i++) {
        int src;
        int tag;
        int n;
        int k;
        unsigned char *buf;
        MPI_Status st2;
        char what[120];
        pt_status_junk(&st);
        if (i % 2 == 0) {
            CK(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        } else {
            flag = 0;
            while (!flag) {
                CK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
            }
        }
        src = st.MPI_SOURCE;
        tag = st.MPI_TAG;
        n = pt_count(&st, MPI_BYTE);
        EXPECT(src >= 1 && src < pt_size, "probe %d reports source %d", i, src);
        EXPECT(next[src] < NSZ, "more than %d messages from rank %d", NSZ, src);
        k = next[src];
        snprintf(what, sizeof what, "probe %d: message %d from rank %d (tag %d, %d bytes)", i, k, src, tag_of(k),
                 sizes[k]);
        EXPECT(tag == tag_of(k), "%s: probe reports tag %d (order violated or wrong tag)", what, tag);
        EXPECT(n == sizes[k], "%s: probe reports %d bytes", what, n);

        pt_status_junk(&st2);
        CK(MPI_Probe(src, tag, MPI_COMM_WORLD, &st2));
        pt_expect_status(&st2, src, tag, MPI_BYTE, n, "second probe of the same message");

        buf = (unsigned char *)pt_malloc((size_t)n + 1);
        buf[n] = 0x5C;
        pt_status_junk(&st2);
        CK(MPI_Recv(buf, n, MPI_BYTE, src, tag, MPI_COMM_WORLD, &st2));
        pt_expect_status(&st2, src, tag, MPI_BYTE, n, what);
        pt_verify(buf, (size_t)n, pt_seed(src, 0, tag, n), what);
        EXPECT(buf[n] == 0x5C, "%s: the receive wrote past its %d-byte buffer", what, n);
        free(buf);
        next[src]++;
    }
    CK(MPI_Waitall(pt_size - 1, gq, gst));
    free(gq);
    free(gst);
    free(next);
}

static void part3_4(void)
{
    MPI_Status st;
    int a[3] = {1, 2, 3};
    int b[5] = {4, 5, 6, 7, 8};
    int in[8];
    int flag = 0;
    int k;
    if (pt_rank == 1) {
        pt_set_phase("3: probe skips another tag (sender)");
        CK(MPI_Send(a, 3, MPI_INT, 0, 31, MPI_COMM_WORLD));
        CK(MPI_Send(b, 5, MPI_INT, 0, 32, MPI_COMM_WORLD));
    } else if (pt_rank == 0) {
        pt_set_phase("3: probe with a specific tag skips an earlier message");
        CK(MPI_Probe(1, 32, MPI_COMM_WORLD, &st));
        pt_expect_status(&st, 1, 32, MPI_INT, 5, "probe for tag 32");
        pt_set_phase("4: probing does not consume");
        for (k = 0; k < 5; k++) {
            CK(MPI_Probe(MPI_ANY_SOURCE, 31, MPI_COMM_WORLD, &st));
            pt_expect_status(&st, 1, 31, MPI_INT, 3, "repeated probe for tag 31");
            flag = 0;
            CK(MPI_Iprobe(1, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
            EXPECT(flag, "MPI_Iprobe does not see a message MPI_Probe just reported");
            pt_expect_status(&st, 1, 31, MPI_INT, 3, "repeated Iprobe with ANY_TAG (first message is tag 31)");
        }
        CK(MPI_Recv(in, 8, MPI_INT, 1, 32, MPI_COMM_WORLD, &st));
        pt_expect_status(&st, 1, 32, MPI_INT, 5, "receive tag 32");
        EXPECT(in[0] == 4 && in[4] == 8, "tag 32 message content wrong");
        CK(MPI_Recv(in, 8, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        pt_expect_status(&st, 1, 31, MPI_INT, 3, "receive tag 31");
        EXPECT(in[0] == 1 && in[2] == 3, "tag 31 message content wrong");
        CK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        EXPECT(flag == 0, "MPI_Iprobe finds a message after all were received (source %d tag %d)", st.MPI_SOURCE,
               st.MPI_TAG);
    }
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

static void part5(void)
{
    int out[2] = {11, 22};
    int in[2] = {0, 0};
    int flag = -1;
    int k;
    MPI_Request rq;
    MPI_Status st;
    pt_set_phase("5: probes see only their own communicator");
    CK(MPI_Isend(out, 2, MPI_INT, 0, 5, MPI_COMM_SELF, &rq));
    for (k = 0; k < 20; k++) {
        CK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        EXPECT(flag == 0, "MPI_Iprobe on MPI_COMM_WORLD sees a message sent on MPI_COMM_SELF");
    }
    flag = 0;
    while (!flag) {
        CK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, &st));
    }
    pt_expect_status(&st, 0, 5, MPI_INT, 2, "Iprobe on MPI_COMM_SELF");
    CK(MPI_Probe(0, 5, MPI_COMM_SELF, &st));
    pt_expect_status(&st, 0, 5, MPI_INT, 2, "Probe on MPI_COMM_SELF");
    CK(MPI_Recv(in, 2, MPI_INT, 0, 5, MPI_COMM_SELF, &st));
    CK(MPI_Wait(&rq, &st));
    EXPECT(in[0] == 11 && in[1] == 22, "self message content wrong");
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "pt2pt_probe");
    pt_require_size(2);
    if (rank == 0) {
        receiver_part2();
    } else {
        pt_set_phase("2: sender");
        sender_part2();
    }
    CK(MPI_Barrier(MPI_COMM_WORLD));
    part3_4();
    part5();
    return pt_finish();
}
