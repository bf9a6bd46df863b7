/* pt2pt_flood: many small unexpected messages.
 *
 * Every rank except 0 starts 10,000 small MPI_Isends (8 to 44 bytes) to rank 0
 * (2,500 in rounds 2 and 3, to bound the run time when oversubscribed),
 * all with the same tag, followed on that same tag by an END message, and
 * then sends rank 0 a "posted" signal on a separate tag. Rank 0 posts no
 * data receive until it has the "posted" signal of every sender (and then
 * pauses briefly), so the implementation has to hold (or flow-control) a
 * flood of unexpected messages. The "posted" signal, on another tag, may
 * overtake the data (the standard allows that), so rank 0 does not use it
 * to decide that data has arrived: it receives until it has each sender's
 * END, which, being sent last on the data tag, cannot overtake any data
 * message of its sender (non-overtaking rule). When END arrives the count of
 * data messages from that sender must be exactly what it sent, in order, each one
 * intact.
 *
 * Round 1 receives with MPI_ANY_SOURCE; round 2 drains one sender at a time
 * (specific source, MPI_ANY_TAG), last rank first; round 3 is like round 1
 * but every other data message is sent with MPI_Issend, which cannot
 * complete before rank 0 receives it.
 */
#include "pt2pt_common.h"

#define NFLOOD 10000 /* messages per sender in round 1 */
#define NFLOOD_SMALL 2500 /* in rounds 2 and 3 */
#define TAG_DATA 5
#define TAG_POSTED 6
#define END_SEQ (-1)
#define MAXW 11 /* ints per message at most */

static int nflood(int round)
{
    return round == 1 ? NFLOOD : NFLOOD_SMALL;
}

static int msg_words(int seq)
{
    return 2 + seq % (MAXW - 1); /* 2..11 ints: 8..44 bytes */
}

static void fill_msg(int *m, int seq, int src, int round)
{
    int n = msg_words(seq);
    int i;
    m[0] = seq;
    m[1] = src;
    for (i = 2; i < n; i++) {
        m[i] = (int)pt_word(pt_seed(src, 0, round, seq), (size_t)i);
    }
}

static void sender(int round)
{
    int nf = nflood(round);
    int *bufs = (int *)pt_malloc(sizeof(int) * MAXW * ((size_t)nf + 1));
    MPI_Request *rq = (MPI_Request *)pt_malloc(sizeof(MPI_Request) * ((size_t)nf + 2));
    MPI_Status *st = (MPI_Status *)pt_malloc(sizeof(MPI_Status) * ((size_t)nf + 2));
    int posted = round;
    int i;
    for (i = 0; i < nf; i++) {
        int *m = bufs + (size_t)i * MAXW;
        fill_msg(m, i, pt_rank, round);
        if (round == 3 && i % 2 == 1) {
            CK(MPI_Issend(m, msg_words(i), MPI_INT, 0, TAG_DATA, MPI_COMM_WORLD, &rq[i]));
        } else {
            CK(MPI_Isend(m, msg_words(i), MPI_INT, 0, TAG_DATA, MPI_COMM_WORLD, &rq[i]));
        }
    }
    {
        int *m = bufs + (size_t)nf * MAXW;
        m[0] = END_SEQ;
        m[1] = pt_rank;
        m[2] = nf;
        CK(MPI_Isend(m, 3, MPI_INT, 0, TAG_DATA, MPI_COMM_WORLD, &rq[nf]));
    }
    CK(MPI_Isend(&posted, 1, MPI_INT, 0, TAG_POSTED, MPI_COMM_WORLD, &rq[nf + 1]));
    CK(MPI_Waitall(nf + 2, rq, st));
    free(bufs);
    free(rq);
    free(st);
}

/* Check one received message; returns 1 for END. */
static int check_one(const int *m, const MPI_Status *st, int *next, int round)
{
    int src = st->MPI_SOURCE;
    int n = pt_count(st, MPI_INT);
    int seq;
    int i;
    EXPECT(src >= 1 && src < pt_size, "round %d: message from source %d", round, src);
    EXPECT(st->MPI_TAG == TAG_DATA, "round %d: message from %d with tag %d", round, src, st->MPI_TAG);
    EXPECT(n >= 2, "round %d: %d-int message from %d", round, n, src);
    EXPECT(m[1] == src, "round %d: message says sender %d, status says %d", round, m[1], src);
    seq = m[0];
    if (seq == END_SEQ) {
        EXPECT(next[src] == nflood(round), "round %d: END from rank %d after only %d of %d messages (messages lost "
               "or END overtook them)", round, src, next[src], nflood(round));
        EXPECT(n == 3 && m[2] == nflood(round), "round %d: malformed END from %d", round, src);
        return 1;
    }
    EXPECT(seq == next[src], "round %d: from rank %d got message %d, expected %d (order violated or lost)", round, src,
           seq, next[src]);
    EXPECT(n == msg_words(seq), "round %d: message %d from %d has %d ints, expected %d", round, seq, src, n,
           msg_words(seq));
    for (i = 2; i < n; i++) {
        int e = (int)pt_word(pt_seed(src, 0, round, seq), (size_t)i);
        EXPECT(m[i] == e, "round %d: message %d from %d: word %d is 0x%x, expected 0x%x", round, seq, src, i, m[i], e);
    }
    next[src]++;
    return 0;
}

static void receiver(int round)
{
    int *next = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    int m[MAXW];
    int s;
    int ends = 0;
    MPI_Status st;
    char phase[80];
    snprintf(phase, sizeof phase, "round %d: waiting for the senders' signals", round);
    pt_set_phase(phase);
    for (s = 1; s < pt_size; s++) {
        int posted = -1;
        next[s] = 0;
        CK(MPI_Recv(&posted, 1, MPI_INT, s, TAG_POSTED, MPI_COMM_WORLD, &st));
        EXPECT(posted == round, "signal from %d holds %d", s, posted);
    }
    pt_sleep_ms(100);
    snprintf(phase, sizeof phase, "round %d: receiving the flood", round);
    pt_set_phase(phase);
    if (round == 2) {
        for (s = pt_size - 1; s >= 1; s--) {
            int end = 0;
            while (!end) {
                CK(MPI_Recv(m, MAXW, MPI_INT, s, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                EXPECT(st.MPI_SOURCE == s, "receive from %d reports source %d", s, st.MPI_SOURCE);
                end = check_one(m, &st, next, round);
            }
            ends++;
        }
    } else {
        while (ends < pt_size - 1) {
            CK(MPI_Recv(m, MAXW, MPI_INT, MPI_ANY_SOURCE, TAG_DATA, MPI_COMM_WORLD, &st));
            ends += check_one(m, &st, next, round);
        }
    }
    {
        int flag = 1;
        CK(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st));
        EXPECT(flag == 0, "round %d: a message (source %d, tag %d) is left over after every END", round, st.MPI_SOURCE,
               st.MPI_TAG);
    }
    free(next);
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "pt2pt_flood");
    int round;
    pt_require_size(2);
    for (round = 1; round <= 3; round++) {
        if (rank == 0) {
            receiver(round);
        } else {
            char phase[60];
            snprintf(phase, sizeof phase, "round %d: sending", round);
            pt_set_phase(phase);
            sender(round);
        }
        CK(MPI_Barrier(MPI_COMM_WORLD));
    }
    return pt_finish();
}
