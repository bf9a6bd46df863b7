/* pt2pt_large_exchange: large nonblocking exchanges that are only safe because
 * nonblocking operations make progress while waiting in MPI_Waitall.
 *
 *   1. Pairs (0-1, 2-3, ...): both sides MPI_Isend two 8 MiB messages to
 *      each other, then MPI_Irecv both, then MPI_Waitall on all four; a second
 *      round posts the receives in the opposite tag order; a third uses
 *      MPI_Issend for the sends.
 *   2. All to all: every rank MPI_Isends 1 MiB to every other rank and
 *      MPI_Irecvs 1 MiB from each, completed by one MPI_Waitall; once with
 *      the sends started first, once with the receives posted first, once
 *      completed with MPI_Waitany/MPI_Waitsome.
 * Every byte is checked against a pattern of (sender, receiver, tag).
 */
#include "pt2pt_common.h"

#define BIG (8 * 1024 * 1024)
#define A2A (1024 * 1024)

static void pair_exchange(void)
{
    int partner = pt_rank ^ 1;
    unsigned char *sb[2];
    unsigned char *rb[2];
    int round;
    int k;
    if (partner >= pt_size) {
        return;
    }
    for (k = 0; k < 2; k++) {
        sb[k] = (unsigned char *)pt_malloc(BIG);
        rb[k] = (unsigned char *)pt_malloc(BIG + 16);
    }
    for (round = 0; round < 3; round++) {
        MPI_Request rq[4];
        MPI_Status st[4];
        int tags[2] = {10 * round + 1, 10 * round + 2};
        char what[120];
        snprintf(what, sizeof what, "pair exchange round %d: %s 2 x 8 MiB, then Irecv 2, then Waitall", round,
                 round == 2 ? "Issend" : "Isend");
        pt_set_phase(what);
        for (k = 0; k < 2; k++) {
            pt_fill(sb[k], BIG, pt_seed(pt_rank, partner, tags[k], round));
            memset(rb[k], 0xA5, BIG + 16);
            if (round == 2) {
                CK(MPI_Issend(sb[k], BIG, MPI_BYTE, partner, tags[k], MPI_COMM_WORLD, &rq[k]));
            } else {
                CK(MPI_Isend(sb[k], BIG, MPI_BYTE, partner, tags[k], MPI_COMM_WORLD, &rq[k]));
            }
        }
        for (k = 0; k < 2; k++) {
            /* round 1 posts the receive for the second tag first */
            int t = round == 1 ? 1 - k : k;
            CK(MPI_Irecv(rb[t], BIG + 16, MPI_BYTE, partner, tags[t], MPI_COMM_WORLD, &rq[2 + t]));
        }
        CK(MPI_Waitall(4, rq, st));
        for (k = 0; k < 2; k++) {
            char w2[160];
            snprintf(w2, sizeof w2, "%s: message tag %d", what, tags[k]);
            pt_expect_status(&st[2 + k], partner, tags[k], MPI_BYTE, BIG, w2);
            pt_verify(rb[k], BIG, pt_seed(partner, pt_rank, tags[k], round), w2);
            pt_verify_const(rb[k] + BIG, 16, 0xA5, w2);
        }
    }
    for (k = 0; k < 2; k++) {
        free(sb[k]);
        free(rb[k]);
    }
}

/* One all-to-all round's buffers and requests. */
typedef struct {
    unsigned char *sb, *rb;
    MPI_Request *rq;
    MPI_Status *st;
    int *idx, *done;
    int *src_of; /* per request: the rank it receives from, -1: a send */
    int nreq;
    int tag;
    const char *what;
} a2a_round;

/* A receive from every other rank. */
static void a2a_post_receives(a2a_round *x)
{
    int i;
    for (i = 0; i < pt_size; i++) {
        if (i != pt_rank) {
            x->src_of[x->nreq] = i;
            CK(MPI_Irecv(x->rb + (size_t)i * A2A, A2A, MPI_BYTE, i, x->tag, MPI_COMM_WORLD, &x->rq[x->nreq++]));
        }
    }
}

/* The status of a completed request k, a receive's. */
static void a2a_status_check(const a2a_round *x, int k, MPI_Status *st)
{
    if (x->src_of[k] >= 0) {
        pt_expect_status(st, x->src_of[k], x->tag, MPI_BYTE, A2A, x->what);
    }
}

static void a2a_wait_all(a2a_round *x)
{
    int k;
    CK(MPI_Waitall(x->nreq, x->rq, x->st));
    for (k = 0; k < x->nreq; k++) a2a_status_check(x, k, &x->st[k]);
}

/* Completes the requests by MPI_Waitany and MPI_Waitsome in turn. */
static void a2a_wait_any_some(a2a_round *x)
{
    const int nreq = x->nreq;
    int left = nreq;
    int k;
    for (k = 0; k < nreq; k++) {
        x->done[k] = 0;
    }
    while (left > 0) {
        int outcount = 0;
        if (left % 2 == 0) {
            int one = -1;
            CK(MPI_Waitany(nreq, x->rq, &one, &x->st[0]));
            EXPECT(one >= 0 && one < nreq && !x->done[one], "MPI_Waitany returned bad index %d", one);
            x->done[one] = 1;
            outcount = 1;
            a2a_status_check(x, one, &x->st[0]);
        } else {
            CK(MPI_Waitsome(nreq, x->rq, &outcount, x->idx, x->st));
            EXPECT(outcount >= 1 && outcount <= left, "MPI_Waitsome outcount %d with %d left", outcount, left);
            for (k = 0; k < outcount; k++) {
                EXPECT(x->idx[k] >= 0 && x->idx[k] < nreq && !x->done[x->idx[k]], "MPI_Waitsome bad index %d",
                       x->idx[k]);
                x->done[x->idx[k]] = 1;
                a2a_status_check(x, x->idx[k], &x->st[k]);
            }
        }
        left -= outcount;
    }
    for (k = 0; k < nreq; k++) {
        EXPECT(x->rq[k] == MPI_REQUEST_NULL, "request %d not completed", k);
    }
}

static void a2a_round_run(a2a_round *x, int round)
{
    int n = pt_size;
    int i;
    for (i = 0; i < n; i++) {
        if (i != pt_rank) {
            pt_fill(x->sb + (size_t)i * A2A, A2A, pt_seed(pt_rank, i, x->tag, 0));
        }
    }
    memset(x->rb, 0, (size_t)A2A * (size_t)n);
    x->nreq = 0;
    if (round == 1) a2a_post_receives(x);
    /* Start at a rank-dependent peer so not everybody sends to 0 first. */
    for (i = 1; i < n; i++) {
        int peer = (pt_rank + i) % n;
        x->src_of[x->nreq] = -1;
        CK(MPI_Isend(x->sb + (size_t)peer * A2A, A2A, MPI_BYTE, peer, x->tag, MPI_COMM_WORLD, &x->rq[x->nreq++]));
    }
    if (round != 1) a2a_post_receives(x);
    if (round < 2) {
        a2a_wait_all(x);
    } else {
        a2a_wait_any_some(x);
    }
    for (i = 0; i < n; i++) {
        if (i != pt_rank) {
            char w2[160];
            snprintf(w2, sizeof w2, "%s: 1 MiB from rank %d", x->what, i);
            pt_verify(x->rb + (size_t)i * A2A, A2A, pt_seed(i, pt_rank, x->tag, 0), w2);
        }
    }
}

static void all_to_all(void)
{
    int n = pt_size;
    a2a_round x;
    int round;
    x.sb = (unsigned char *)pt_malloc((size_t)A2A * (size_t)n);
    x.rb = (unsigned char *)pt_malloc((size_t)A2A * (size_t)n);
    x.rq = (MPI_Request *)pt_malloc(sizeof(MPI_Request) * 2 * (size_t)n);
    x.st = (MPI_Status *)pt_malloc(sizeof(MPI_Status) * 2 * (size_t)n);
    x.idx = (int *)pt_malloc(sizeof(int) * 2 * (size_t)n);
    x.done = (int *)pt_malloc(sizeof(int) * 2 * (size_t)n);
    x.src_of = (int *)pt_malloc(sizeof(int) * 2 * (size_t)n);
    for (round = 0; round < 3; round++) {
        char what[120];
        snprintf(what, sizeof what, "all to all round %d (%s)", round,
                 round == 0 ? "sends first, Waitall" : round == 1 ? "receives first, Waitall" : "Waitany/Waitsome");
        pt_set_phase(what);
        x.tag = 100 + round;
        x.what = what;
        a2a_round_run(&x, round);
    }
    free(x.sb);
    free(x.rb);
    free(x.rq);
    free(x.st);
    free(x.idx);
    free(x.done);
    free(x.src_of);
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv, "pt2pt_large_exchange");
    pt_require_size(2);
    pair_exchange();
    CK(MPI_Barrier(MPI_COMM_WORLD));
    all_to_all();
    return pt_finish();
}
