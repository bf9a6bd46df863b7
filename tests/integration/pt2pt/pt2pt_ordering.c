/* pt2pt_ordering: the non-overtaking rule (MPI-1.3 3.5, extended to
 * nonblocking operations in 3.7.4).
 *
 * Every message carries a header (phase, sequence number, sender) and a
 * payload pattern; tags cycle through 4 values and sizes mix small (eager)
 * messages with 32 KiB, 256 KiB and 1 MiB ones. Sends are a mix of MPI_Isend,
 * MPI_Issend and MPI_Ibsend (or, in phase 6, blocking MPI_Send, MPI_Ssend,
 * MPI_Bsend and MPI_Rsend), issued in sequence order. Phases are separated by
 * a barrier.
 *
 * Ring phases (each rank sends to rank+1, receives from rank-1):
 *   1. receive everything with MPI_ANY_TAG: exact send order;
 *   2. receive the tag-2 messages first (MPI_ANY_SOURCE, tag 2), then the
 *      tag-0 ones (specific source and tag), then the rest with MPI_ANY_TAG:
 *      send order within each selection;
 *   3. all receives posted (MPI_Irecv, some MPI_ANY_TAG, some with the
 *      message's tag) before the sender starts: receive i gets message i;
 *   6. like 3 but with blocking sends of every mode (MPI_Rsend is legal as the
 *      receives are known to be posted).
 * Many-to-one phases (every other rank sends to rank 0):
 *   4. MPI_ANY_SOURCE + MPI_ANY_TAG: per-sender order kept, nothing lost;
 *   5. MPI_ANY_SOURCE + tag 1 first, then MPI_ANY_SOURCE + MPI_ANY_TAG:
 *      per-sender order within each selection.
 */
#include "pt2pt_common.h"

#define MAGIC 0x4f524452
#define NRING 240
#define NMANY 150
#define MAXMSG (1024 * 1024)

static int left;
static int right;

static int msg_tag(int seq)
{
    return (seq * 7 + seq / 5) % 4;
}

static int msg_size(int phase, int seq)
{
    if (phase != 4 && phase != 5 && seq % 37 == 7) {
        return MAXMSG;
    }
    if (seq % 11 == 5) {
        return 256 * 1024 + seq;
    }
    if (seq % 13 == 0) {
        return 32 * 1024 + seq;
    }
    return 16 + (seq % 50) * 4;
}

/* Send mode for a nonblocking phase: 0 Isend, 1 Issend, 2 Ibsend. */
static int msg_mode(int seq, int size)
{
    if (seq % 5 == 1) {
        return 1;
    }
    if (seq % 5 == 3 && size < 1024) {
        return 2;
    }
    return 0;
}

static void fill_msg(unsigned char *buf, int phase, int seq, int src, int dst)
{
    int n = msg_size(phase, seq);
    int hdr[4];
    hdr[0] = MAGIC;
    hdr[1] = phase;
    hdr[2] = seq;
    hdr[3] = src;
    memcpy(buf, hdr, sizeof hdr);
    pt_fill(buf + sizeof hdr, (size_t)n - sizeof hdr, pt_seed(src, dst, phase, seq));
}

/* Check a received message; returns its sequence number. */
static int check_msg(const unsigned char *buf, const MPI_Status *st, int phase, int src_expect, int seq_expect,
                     const char *how)
{
    int hdr[4];
    int seq;
    int src;
    char what[200];
    memcpy(hdr, buf, sizeof hdr);
    EXPECT(hdr[0] == MAGIC, "%s: received message has no valid header (0x%x)", how, hdr[0]);
    EXPECT(hdr[1] == phase, "%s: received a message of phase %d in phase %d", how, hdr[1], phase);
    seq = hdr[2];
    src = hdr[3];
    EXPECT(src == st->MPI_SOURCE, "%s: message from rank %d reports status.MPI_SOURCE %d", how, src,
           st->MPI_SOURCE);
    if (src_expect >= 0) {
        EXPECT(src == src_expect, "%s: message from rank %d, expected rank %d", how, src, src_expect);
    }
    snprintf(what, sizeof what, "%s: message seq %d from rank %d", how, seq, src);
    EXPECT(seq == seq_expect, "%s: ORDER VIOLATED: received seq %d, expected seq %d (tag %d)", what, seq,
           seq_expect, st->MPI_TAG);
    pt_expect_status(st, src, msg_tag(seq), MPI_BYTE, msg_size(phase, seq), what);
    pt_verify(buf + 16, (size_t)msg_size(phase, seq) - 16, pt_seed(src, pt_rank, phase, seq), what);
    return seq;
}

struct stream {
    unsigned char **bufs;
    MPI_Request *reqs;
    int n;
};

static void *bsend_buffer;
static int bsend_size;

static void attach_for(int phase, int n)
{
    int i;
    bsend_size = 0;
    for (i = 0; i < n; i++) {
        int sz = msg_size(phase, i);
        if (msg_mode(i, sz) == 2) {
            bsend_size += sz + MPI_BSEND_OVERHEAD;
        }
    }
    bsend_size += 4 * MPI_BSEND_OVERHEAD + 1024;
    bsend_buffer = pt_malloc((size_t)bsend_size);
    CK(MPI_Buffer_attach(bsend_buffer, bsend_size));
}

static void detach(void)
{
    void *a;
    int s;
    CK(MPI_Buffer_detach(&a, &s));
    free(bsend_buffer);
}

/* Start n nonblocking sends of phase to dst in sequence order. */
static void start_stream(struct stream *s, int phase, int dst, int n)
{
    int i;
    s->n = n;
    s->bufs = (unsigned char **)pt_malloc(sizeof(unsigned char *) * (size_t)n);
    s->reqs = (MPI_Request *)pt_malloc(sizeof(MPI_Request) * (size_t)n);
    for (i = 0; i < n; i++) {
        int sz = msg_size(phase, i);
        s->bufs[i] = (unsigned char *)pt_malloc((size_t)sz);
        fill_msg(s->bufs[i], phase, i, pt_rank, dst);
        switch (msg_mode(i, sz)) {
        case 1:
            CK(MPI_Issend(s->bufs[i], sz, MPI_BYTE, dst, msg_tag(i), MPI_COMM_WORLD, &s->reqs[i]));
            break;
        case 2:
            CK(MPI_Ibsend(s->bufs[i], sz, MPI_BYTE, dst, msg_tag(i), MPI_COMM_WORLD, &s->reqs[i]));
            break;
        default:
            CK(MPI_Isend(s->bufs[i], sz, MPI_BYTE, dst, msg_tag(i), MPI_COMM_WORLD, &s->reqs[i]));
            break;
        }
    }
}

static void finish_stream(struct stream *s)
{
    int i;
    MPI_Status *st = (MPI_Status *)pt_malloc(sizeof(MPI_Status) * (size_t)s->n);
    CK(MPI_Waitall(s->n, s->reqs, st));
    for (i = 0; i < s->n; i++) {
        free(s->bufs[i]);
    }
    free(s->bufs);
    free(s->reqs);
    free(st);
}

static void end_phase(void)
{
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

static void phase1(unsigned char *rbuf)
{
    struct stream s;
    int i;
    MPI_Status st;
    pt_set_phase("1: ring, MPI_ANY_TAG in order");
    attach_for(1, NRING);
    start_stream(&s, 1, right, NRING);
    for (i = 0; i < NRING; i++) {
        CK(MPI_Recv(rbuf, MAXMSG, MPI_BYTE, left, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        check_msg(rbuf, &st, 1, left, i, "phase 1 (ANY_TAG)");
    }
    finish_stream(&s);
    detach();
    end_phase();
}

static void phase2(unsigned char *rbuf)
{
    struct stream s;
    int i;
    int taken[NRING];
    MPI_Status st;
    pt_set_phase("2: ring, selective tags");
    attach_for(2, NRING);
    start_stream(&s, 2, right, NRING);
    memset(taken, 0, sizeof taken);
    for (i = 0; i < NRING; i++) {
        if (msg_tag(i) == 2) {
            CK(MPI_Recv(rbuf, MAXMSG, MPI_BYTE, MPI_ANY_SOURCE, 2, MPI_COMM_WORLD, &st));
            check_msg(rbuf, &st, 2, left, i, "phase 2 (ANY_SOURCE, tag 2)");
            taken[i] = 1;
        }
    }
    for (i = 0; i < NRING; i++) {
        if (msg_tag(i) == 0) {
            CK(MPI_Recv(rbuf, MAXMSG, MPI_BYTE, left, 0, MPI_COMM_WORLD, &st));
            check_msg(rbuf, &st, 2, left, i, "phase 2 (source, tag 0)");
            taken[i] = 1;
        }
    }
    for (i = 0; i < NRING; i++) {
        if (!taken[i]) {
            CK(MPI_Recv(rbuf, MAXMSG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            check_msg(rbuf, &st, 2, left, i, "phase 2 (ANY_SOURCE, ANY_TAG, rest)");
        }
    }
    finish_stream(&s);
    detach();
    end_phase();
}

/* Post all receives; the barrier then guarantees every rank has posted its
 * receives before anyone sends. (A handshake message would itself be matched
 * by the MPI_ANY_TAG receives when left == right.) */
static void prepost(int phase, unsigned char **rb, MPI_Request *rq, int n)
{
    int i;
    for (i = 0; i < n; i++) {
        int tag = (i % 3 == 0) ? MPI_ANY_TAG : msg_tag(i);
        rb[i] = (unsigned char *)pt_malloc((size_t)msg_size(phase, i));
        CK(MPI_Irecv(rb[i], msg_size(phase, i), MPI_BYTE, left, tag, MPI_COMM_WORLD, &rq[i]));
    }
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

static void check_preposted(int phase, unsigned char **rb, MPI_Request *rq, int n, const char *how)
{
    int i;
    MPI_Status *st = (MPI_Status *)pt_malloc(sizeof(MPI_Status) * (size_t)n);
    CK(MPI_Waitall(n, rq, st));
    for (i = 0; i < n; i++) {
        check_msg(rb[i], &st[i], phase, left, i, how);
        free(rb[i]);
    }
    free(st);
}

static void phase3(void)
{
    unsigned char *rb[NRING];
    MPI_Request rq[NRING];
    struct stream s;
    pt_set_phase("3: ring, receives posted first");
    attach_for(3, NRING);
    prepost(3, rb, rq, NRING);
    start_stream(&s, 3, right, NRING);
    check_preposted(3, rb, rq, NRING, "phase 3 (posted receive i)");
    finish_stream(&s);
    detach();
    end_phase();
}

static void phase6(void)
{
    unsigned char *rb[NRING];
    MPI_Request rq[NRING];
    unsigned char *sb = (unsigned char *)pt_malloc(MAXMSG);
    int i;
    pt_set_phase("6: ring, blocking sends of every mode to posted receives");
    attach_for(6, NRING);
    prepost(6, rb, rq, NRING);
    for (i = 0; i < NRING; i++) {
        int sz = msg_size(6, i);
        fill_msg(sb, 6, i, pt_rank, right);
        switch (i % 4) {
        case 0:
            CK(MPI_Send(sb, sz, MPI_BYTE, right, msg_tag(i), MPI_COMM_WORLD));
            break;
        case 1:
            CK(MPI_Ssend(sb, sz, MPI_BYTE, right, msg_tag(i), MPI_COMM_WORLD));
            break;
        case 2:
            if (msg_mode(i, sz) == 2) {
                CK(MPI_Bsend(sb, sz, MPI_BYTE, right, msg_tag(i), MPI_COMM_WORLD));
            } else {
                CK(MPI_Send(sb, sz, MPI_BYTE, right, msg_tag(i), MPI_COMM_WORLD));
            }
            break;
        default:
            CK(MPI_Rsend(sb, sz, MPI_BYTE, right, msg_tag(i), MPI_COMM_WORLD));
            break;
        }
    }
    check_preposted(6, rb, rq, NRING, "phase 6 (blocking modes, posted receive i)");
    detach();
    free(sb);
    end_phase();
}

static void many_to_one(int phase, unsigned char *rbuf)
{
    if (pt_rank != 0) {
        struct stream s;
        attach_for(phase, NMANY);
        start_stream(&s, phase, 0, NMANY);
        finish_stream(&s);
        detach();
    } else {
        int *next = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
        int total = (pt_size - 1) * NMANY;
        int got = 0;
        int i;
        int src;
        MPI_Status st;
        char how[80];
        for (i = 0; i < pt_size; i++) {
            next[i] = 0;
        }
        if (phase == 5) {
            /* Tag 1 first, from anyone. */
            int ntag1 = 0;
            int *tag1_next = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
            for (i = 0; i < NMANY; i++) {
                ntag1 += msg_tag(i) == 1;
            }
            for (i = 0; i < pt_size; i++) {
                tag1_next[i] = 0;
                while (tag1_next[i] < NMANY && msg_tag(tag1_next[i]) != 1) {
                    tag1_next[i]++;
                }
            }
            for (i = 0; i < ntag1 * (pt_size - 1); i++) {
                CK(MPI_Recv(rbuf, MAXMSG, MPI_BYTE, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st));
                src = st.MPI_SOURCE;
                EXPECT(src > 0 && src < pt_size, "MPI_ANY_SOURCE receive reports source %d", src);
                snprintf(how, sizeof how, "phase 5 (ANY_SOURCE, tag 1) from %d", src);
                check_msg(rbuf, &st, phase, -1, tag1_next[src], how);
                do {
                    tag1_next[src]++;
                } while (tag1_next[src] < NMANY && msg_tag(tag1_next[src]) != 1);
                got++;
            }
            free(tag1_next);
        }
        while (got < total) {
            CK(MPI_Recv(rbuf, MAXMSG, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            src = st.MPI_SOURCE;
            EXPECT(src > 0 && src < pt_size, "MPI_ANY_SOURCE receive reports source %d", src);
            if (phase == 5) {
                while (next[src] < NMANY && msg_tag(next[src]) == 1) {
                    next[src]++;
                }
            }
            EXPECT(next[src] < NMANY, "more than %d messages from rank %d", NMANY, src);
            snprintf(how, sizeof how, "phase %d (ANY_SOURCE, ANY_TAG) from %d", phase, src);
            check_msg(rbuf, &st, phase, -1, next[src], how);
            next[src]++;
            got++;
        }
        free(next);
    }
    end_phase();
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "pt2pt_ordering");
    unsigned char *rbuf;
    pt_require_size(2);
    left = (rank + pt_size - 1) % pt_size;
    right = (rank + 1) % pt_size;
    rbuf = (unsigned char *)pt_malloc(MAXMSG);
    phase1(rbuf);
    phase2(rbuf);
    phase3();
    pt_set_phase("4: many to one, MPI_ANY_SOURCE + MPI_ANY_TAG");
    many_to_one(4, rbuf);
    pt_set_phase("5: many to one, MPI_ANY_SOURCE + tag 1, then the rest");
    many_to_one(5, rbuf);
    phase6();
    free(rbuf);
    return pt_finish();
}
