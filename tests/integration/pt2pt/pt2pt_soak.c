/* pt2pt_soak: many messages of mixed sizes between changing pairs.
 *
 * 100,000 messages in all (PT2PT_SOAK_MESSAGES=<n> to change it), split evenly
 * over the ranks. Round r uses the distance k = 1 + r % (size - 1): every rank
 * sends B(r) messages to (rank + k) % size and receives B(r) from
 * (rank - k) % size, all nonblocking, completed by one MPI_Waitall; even rounds
 * post the receives first, odd rounds the sends first (unexpected messages,
 * rendezvous included). The tag is the round (modulo 30000), so every seventh receive can use
 * MPI_ANY_SOURCE and still match only its round's sender, whose rank the
 * status must report.
 *
 * Sizes are drawn from (source, destination, sequence number of the pair):
 * most messages up to 1 KiB, some up to 16 KiB, some above the shared-memory
 * eager limit (16 KiB) up to 64 KiB and a few up to 256 KiB, so eager,
 * rendezvous and single-copy paths all run. About one message in 40 is
 * non-contiguous: a vector of 64 blocks of 3 ints with stride 5, sent from a
 * strided buffer and received either as plain ints or into a strided buffer
 * whose gaps must stay untouched. Every payload is a pattern of (source,
 * destination, sequence) checked on arrival, as are the status fields.
 */
#include "pt2pt_common.h"

#define NMSG_DEFAULT 100000
#define VEC_BLOCKS 64
#define VEC_BLEN 3
#define VEC_STRIDE 5
#define VEC_INTS (VEC_BLOCKS * VEC_BLEN)                             /* data ints per element */
#define VEC_EXTENT_INTS ((VEC_BLOCKS - 1) * VEC_STRIDE + VEC_BLEN) /* ints spanned per element */
#define MAX_BYTES (256 * 1024)
#define MAX_VEC 300 /* elements: 300 x 768 = 230,400 data bytes */
#define MAX_PER_ROUND 45
#define SLACK 64 /* a receive buffer is sometimes larger than the message */
#define GAP 0xC3

/* What message number seq from src to dst looks like. */
struct msg_desc {
    int vec;     /* 0: bytes, 1: vector datatype */
    int count;   /* bytes, or vector elements */
    size_t data; /* bytes of data */
};

static struct msg_desc describe(int src, int dst, int seq)
{
    struct msg_desc d;
    uint32_t h = pt_mix(pt_seed(src, dst, 0x50a4, seq));
    uint32_t pick = h % 1000;
    uint32_t r = pt_mix(h ^ 0x9e3779b9U);
    d.vec = 0;
    if (pick < 25) {
        d.vec = 1;
        d.count = 1 + (int)(r % MAX_VEC);
        d.data = (size_t)d.count * VEC_INTS * sizeof(int);
        return d;
    }
    if (pick < 30) {
        d.count = 0;
    } else if (pick < 830) {
        d.count = (int)(r % 1025);
    } else if (pick < 930) {
        d.count = 1025 + (int)(r % (16384 - 1025 + 1));
    } else if (pick < 990) {
        d.count = 16385 + (int)(r % (65536 - 16385 + 1));
    } else {
        d.count = 65537 + (int)(r % (MAX_BYTES - 65537 + 1));
    }
    d.data = (size_t)d.count;
    return d;
}

/* The ints of a vector message are laid out in a strided buffer. */
static size_t vec_index(size_t i)
{
    size_t elem = i / VEC_INTS;
    size_t in = i % VEC_INTS;
    return elem * VEC_EXTENT_INTS + (in / VEC_BLEN) * VEC_STRIDE + in % VEC_BLEN;
}

static int messages_in_round(int round)
{
    return 5 + (round * 7) % (MAX_PER_ROUND - 4); /* 5..45, 25 on average */
}

struct slot {
    unsigned char *buf;
    int peer;
    int seq;
    int any;
    int as_vec; /* received into a strided buffer */
    struct msg_desc d;
};

static MPI_Datatype vec_type;

static void check_arrival(const struct slot *s, const MPI_Status *st, int round, int tag)
{
    char what[200];
    uint32_t seed = pt_seed(s->peer, pt_rank, 0, s->seq);
    int count = -1;
    snprintf(what, sizeof what,
             "round %d: message %d from rank %d (%s, %lu data bytes%s%s)", round, s->seq, s->peer,
             s->d.vec ? "vector" : "bytes", (unsigned long)s->d.data,
             s->as_vec ? ", received as vector" : (s->d.vec ? ", received as ints" : ""),
             s->any ? ", MPI_ANY_SOURCE" : "");
    EXPECT(st->MPI_SOURCE == s->peer, "%s: status.MPI_SOURCE is %d", what, st->MPI_SOURCE);
    EXPECT(st->MPI_TAG == tag, "%s: status.MPI_TAG is %d", what, st->MPI_TAG);
    if (!s->d.vec) {
        count = pt_count(st, MPI_BYTE);
        EXPECT(count == s->d.count, "%s: MPI_Get_count gives %d bytes", what, count);
        pt_verify(s->buf, s->d.data, seed, what);
        pt_verify_const(s->buf + s->d.data, SLACK, GAP, what);
        return;
    }
    if (!s->as_vec) {
        count = pt_count(st, MPI_INT);
        EXPECT(count == s->d.count * VEC_INTS, "%s: MPI_Get_count gives %d ints", what, count);
        pt_verify(s->buf, s->d.data, seed, what);
        return;
    }
    count = pt_count(st, vec_type);
    EXPECT(count == s->d.count, "%s: MPI_Get_count gives %d vectors", what, count);
    {
        const int *v = (const int *)s->buf;
        size_t n = s->d.data / sizeof(int);
        size_t span = (size_t)s->d.count * VEC_EXTENT_INTS;
        size_t i;
        size_t next = 0;
        for (i = 0; i < n; i++) {
            size_t at = vec_index(i);
            if ((uint32_t)v[at] != pt_word(seed, i)) {
                pt_fail("%s: int %lu (buffer index %lu) is 0x%08x, expected 0x%08x", what, (unsigned long)i,
                        (unsigned long)at, (unsigned)v[at], (unsigned)pt_word(seed, i));
            }
            /* the gap before it must be untouched */
            while (next < at) {
                pt_verify_const(&v[next], sizeof(int), GAP, what);
                next++;
            }
            next = at + 1;
        }
        pt_verify_const(&v[next], (span - next) * sizeof(int), GAP, what);
    }
}

/* Sends message seq to rank `to`. */
static void send_post(struct slot *s, int to, int seq, int tag, MPI_Request *rq)
{
    s->peer = to;
    s->seq = seq;
    s->d = describe(pt_rank, to, s->seq);
    if (s->d.vec) {
        /* The pattern, scattered into the vector's blocks. */
        int *v = (int *)s->buf;
        uint32_t seed = pt_seed(pt_rank, to, 0, s->seq);
        size_t n = s->d.data / sizeof(int);
        size_t j;
        for (j = 0; j < n; j++) {
            v[vec_index(j)] = (int)pt_word(seed, j);
        }
        CK(MPI_Isend(s->buf, s->d.count, vec_type, to, tag, MPI_COMM_WORLD, rq));
    } else {
        pt_fill(s->buf, s->d.data, pt_seed(pt_rank, to, 0, s->seq));
        CK(MPI_Isend(s->buf, s->d.count, MPI_BYTE, to, tag, MPI_COMM_WORLD, rq));
    }
}

/* Posts the receive of message seq from rank `from`. */
static void receive_post(struct slot *s, int from, int seq, int tag, MPI_Request *rq)
{
    int src;
    s->peer = from;
    s->seq = seq;
    s->d = describe(from, pt_rank, s->seq);
    s->any = (s->seq % 7) == 3;
    s->as_vec = s->d.vec && (s->seq % 2) == 0;
    src = s->any ? MPI_ANY_SOURCE : from;
    if (!s->d.vec) {
        memset(s->buf, GAP, s->d.data + SLACK);
        /* Every other receive offers more room than needed. */
        CK(MPI_Irecv(s->buf, s->d.count + (s->seq % 2 ? SLACK : 0), MPI_BYTE, src, tag, MPI_COMM_WORLD, rq));
    } else if (s->as_vec) {
        memset(s->buf, GAP, (size_t)s->d.count * VEC_EXTENT_INTS * sizeof(int));
        CK(MPI_Irecv(s->buf, s->d.count, vec_type, src, tag, MPI_COMM_WORLD, rq));
    } else {
        CK(MPI_Irecv(s->buf, s->d.count * VEC_INTS, MPI_INT, src, tag, MPI_COMM_WORLD, rq));
    }
}

int main(int argc, char **argv)
{
    long total = NMSG_DEFAULT;
    const char *env;
    long per_rank;
    int *sent_seq;
    int *recv_seq;
    struct slot *tx;
    struct slot *rx;
    MPI_Request *rq;
    MPI_Status *st;
    size_t bufbytes = (size_t)MAX_VEC * VEC_EXTENT_INTS * sizeof(int) + SLACK;
    long done = 0;
    int round = 0;
    int i;

    pt_init(&argc, &argv, "pt2pt_soak");
    pt_require_size(2);
    env = getenv("PT2PT_SOAK_MESSAGES");
    if (env != NULL && atol(env) > 0) {
        total = atol(env);
    }
    per_rank = (total + pt_size - 1) / pt_size;
    if (bufbytes < MAX_BYTES + SLACK) {
        bufbytes = MAX_BYTES + SLACK;
    }
    CK(MPI_Type_vector(VEC_BLOCKS, VEC_BLEN, VEC_STRIDE, MPI_INT, &vec_type));
    CK(MPI_Type_commit(&vec_type));

    sent_seq = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    recv_seq = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    memset(sent_seq, 0, sizeof(int) * (size_t)pt_size);
    memset(recv_seq, 0, sizeof(int) * (size_t)pt_size);
    tx = (struct slot *)pt_malloc(sizeof(struct slot) * MAX_PER_ROUND);
    rx = (struct slot *)pt_malloc(sizeof(struct slot) * MAX_PER_ROUND);
    rq = (MPI_Request *)pt_malloc(sizeof(MPI_Request) * 2 * MAX_PER_ROUND);
    st = (MPI_Status *)pt_malloc(sizeof(MPI_Status) * 2 * MAX_PER_ROUND);
    for (i = 0; i < MAX_PER_ROUND; i++) {
        tx[i].buf = (unsigned char *)pt_malloc(bufbytes);
        rx[i].buf = (unsigned char *)pt_malloc(bufbytes);
    }

    /* Every rank runs the same rounds, so all agree on who sends what. */
    while (done < per_rank) {
        int k = 1 + round % (pt_size - 1);
        int to = (pt_rank + k) % pt_size;
        int from = (pt_rank - k + pt_size) % pt_size;
        int nb = messages_in_round(round);
        int sends_first = round % 2;
        int tag = round % 30000;
        int pass;
        char phase[120];
        if (nb > per_rank - done) {
            nb = (int)(per_rank - done);
        }
        snprintf(phase, sizeof phase, "round %d: %d messages to rank %d, from rank %d", round, nb, to, from);
        pt_set_phase(phase);
        for (pass = 0; pass < 2; pass++) {
            if ((pass == 0) == (sends_first != 0)) {
                for (i = 0; i < nb; i++) send_post(&tx[i], to, sent_seq[to]++, tag, &rq[i]);
            } else {
                for (i = 0; i < nb; i++) receive_post(&rx[i], from, recv_seq[from]++, tag, &rq[MAX_PER_ROUND + i]);
            }
        }
        for (i = nb; i < MAX_PER_ROUND; i++) {
            rq[i] = MPI_REQUEST_NULL;
            rq[MAX_PER_ROUND + i] = MPI_REQUEST_NULL;
        }
        CK(MPI_Waitall(2 * MAX_PER_ROUND, rq, st));
        for (i = 0; i < nb; i++) {
            check_arrival(&rx[i], &st[MAX_PER_ROUND + i], round, tag);
        }
        done += nb;
        round++;
    }

    /* Everyone received exactly what was sent to it. */
    pt_set_phase("totals");
    {
        int *expect = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
        CK(MPI_Alltoall(sent_seq, 1, MPI_INT, expect, 1, MPI_INT, MPI_COMM_WORLD));
        for (i = 0; i < pt_size; i++) {
            EXPECT(expect[i] == recv_seq[i], "rank %d sent %d messages here, %d were received", i, expect[i],
                   recv_seq[i]);
        }
        free(expect);
    }
    if (pt_rank == 0) {
        printf("pt2pt_soak: %ld messages in %d rounds\n", per_rank * pt_size, round);
    }

    for (i = 0; i < MAX_PER_ROUND; i++) {
        free(tx[i].buf);
        free(rx[i].buf);
    }
    free(tx);
    free(rx);
    free(rq);
    free(st);
    free(sent_seq);
    free(recv_seq);
    CK(MPI_Type_free(&vec_type));
    return pt_finish();
}
