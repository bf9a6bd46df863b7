/* pt2pt_wildcards: MPI_ANY_SOURCE / MPI_ANY_TAG receives and the status they
 * return (MPI_SOURCE, MPI_TAG, MPI_Get_count must describe the actual
 * message, whose content names its sender and tag).
 *
 *   1. many to one, MPI_ANY_SOURCE + MPI_ANY_TAG: each sender exactly once,
 *      per-sender tag and count (0-length messages included);
 *   2. specific source + MPI_ANY_TAG: tags in send order;
 *   3. MPI_ANY_SOURCE + specific tag: the later-sent tag is selected first;
 *   4. preposted MPI_Irecv(MPI_ANY_SOURCE, MPI_ANY_TAG): each status matches
 *      the data in its own buffer;
 *   5. tag 0 and tag 32767 (the smallest MPI_TAG_UB allowed) through
 *      MPI_ANY_TAG;
 *   6. message to self received with MPI_ANY_SOURCE;
 *   7. all to all: every rank receives from every other with wildcards;
 *   8. the counterpart: with every other rank sending the same tag, receives
 *      naming a specific source (preposted MPI_Irecv, then blocking MPI_Recv,
 *      both in reverse rank order) each get that source's message only.
 * Phases are separated by barriers, so a wildcard receive can only match
 * messages of its own phase.
 */
#include "pt2pt_common.h"

#define MAXN 64

static void fill_ints(int *buf, int n, int src, int tag)
{
    int i;
    for (i = 0; i < n; i++) {
        buf[i] = (i == 0) ? src : (i == 1) ? tag : (int)(pt_word(pt_seed(src, 0, tag, n), (size_t)i) & 0x7fffffff);
    }
}

/* Check an int message against the status that came with it. */
static void check_ints(const int *buf, const MPI_Status *st, int expect_n, const char *how)
{
    int n = pt_count(st, MPI_INT);
    int i;
    EXPECT(n == expect_n, "%s: MPI_Get_count gives %d ints, sender %d sent %d", how, n, st->MPI_SOURCE, expect_n);
    if (n >= 1) {
        EXPECT(buf[0] == st->MPI_SOURCE, "%s: status.MPI_SOURCE %d but the message came from rank %d", how,
               st->MPI_SOURCE, buf[0]);
    }
    if (n >= 2) {
        EXPECT(buf[1] == st->MPI_TAG, "%s: status.MPI_TAG %d but the message was sent with tag %d", how,
               st->MPI_TAG, buf[1]);
    }
    for (i = 2; i < n; i++) {
        int e = (int)(pt_word(pt_seed(buf[0], 0, buf[1], n), (size_t)i) & 0x7fffffff);
        EXPECT(buf[i] == e, "%s: element %d of the message from %d is %d, expected %d", how, i, buf[0], buf[i], e);
    }
}

static int count_of(int src)
{
    /* rank 1 sends a 0-length message; the others 2 + rank ints */
    return src == 1 ? 0 : 2 + src;
}

static void phase_many_to_one(void)
{
    int buf[MAXN];
    int i;
    MPI_Status st;
    pt_set_phase("1: many to one, ANY_SOURCE + ANY_TAG");
    if (pt_rank != 0) {
        int tag = 100 + 3 * pt_rank;
        fill_ints(buf, count_of(pt_rank), pt_rank, tag);
        CK(MPI_Send(buf, count_of(pt_rank), MPI_INT, 0, tag, MPI_COMM_WORLD));
    } else {
        char *seen = (char *)pt_malloc((size_t)pt_size);
        memset(seen, 0, (size_t)pt_size);
        for (i = 1; i < pt_size; i++) {
            int src;
            memset(buf, 0xFF, sizeof buf);
            pt_status_junk(&st);
            CK(MPI_Recv(buf, MAXN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            src = st.MPI_SOURCE;
            EXPECT(src >= 1 && src < pt_size, "ANY_SOURCE receive reports source %d", src);
            EXPECT(!seen[src], "ANY_SOURCE receive reports source %d a second time", src);
            seen[src] = 1;
            EXPECT(st.MPI_TAG == 100 + 3 * src, "message from %d has status.MPI_TAG %d, sent with %d", src, st.MPI_TAG,
                   100 + 3 * src);
            check_ints(buf, &st, count_of(src), "phase 1");
            if (count_of(src) == 0) {
                EXPECT(buf[0] == -1, "0-length message from %d modified the receive buffer", src);
            }
        }
        free(seen);
    }
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

static void phase_source_anytag(void)
{
    static const int tags[3] = {7, 32000, 3};
    int buf[MAXN];
    int i;
    int k;
    MPI_Status st;
    pt_set_phase("2: specific source + ANY_TAG");
    if (pt_rank != 0) {
        MPI_Request rq[3];
        int out[3][8];
        MPI_Status sts[3];
        for (k = 0; k < 3; k++) {
            fill_ints(out[k], 8, pt_rank, tags[k]);
            CK(MPI_Isend(out[k], 8, MPI_INT, 0, tags[k], MPI_COMM_WORLD, &rq[k]));
        }
        CK(MPI_Waitall(3, rq, sts));
    } else {
        for (i = pt_size - 1; i >= 1; i--) {
            for (k = 0; k < 3; k++) {
                CK(MPI_Recv(buf, MAXN, MPI_INT, i, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
                EXPECT(st.MPI_SOURCE == i, "receive from %d reports source %d", i, st.MPI_SOURCE);
                EXPECT(st.MPI_TAG == tags[k], "message %d from %d: status.MPI_TAG %d, expected %d (send order)", k, i,
                       st.MPI_TAG, tags[k]);
                check_ints(buf, &st, 8, "phase 2");
            }
        }
    }
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

static void phase_anysource_tag(void)
{
    int buf[MAXN];
    int i;
    int pass;
    MPI_Status st;
    pt_set_phase("3: ANY_SOURCE + specific tag");
    if (pt_rank != 0) {
        MPI_Request rq[2];
        MPI_Status sts[2];
        int a[5];
        int b[6];
        fill_ints(a, 5, pt_rank, 41);
        fill_ints(b, 6, pt_rank, 42);
        CK(MPI_Isend(a, 5, MPI_INT, 0, 41, MPI_COMM_WORLD, &rq[0]));
        CK(MPI_Isend(b, 6, MPI_INT, 0, 42, MPI_COMM_WORLD, &rq[1]));
        CK(MPI_Waitall(2, rq, sts));
    } else {
        for (pass = 0; pass < 2; pass++) {
            int tag = pass == 0 ? 42 : 41;
            char *seen = (char *)pt_malloc((size_t)pt_size);
            memset(seen, 0, (size_t)pt_size);
            for (i = 1; i < pt_size; i++) {
                CK(MPI_Recv(buf, MAXN, MPI_INT, MPI_ANY_SOURCE, tag, MPI_COMM_WORLD, &st));
                EXPECT(st.MPI_TAG == tag, "receive for tag %d reports tag %d", tag, st.MPI_TAG);
                EXPECT(st.MPI_SOURCE >= 1 && st.MPI_SOURCE < pt_size && !seen[st.MPI_SOURCE],
                       "tag %d: bad or repeated source %d", tag, st.MPI_SOURCE);
                seen[st.MPI_SOURCE] = 1;
                check_ints(buf, &st, tag == 42 ? 6 : 5, "phase 3");
            }
            free(seen);
        }
    }
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

static void phase_preposted(void)
{
    int i;
    pt_set_phase("4: preposted Irecv with wildcards");
    if (pt_rank == 0) {
        int n = pt_size - 1;
        int(*bufs)[MAXN] = (int(*)[MAXN])pt_malloc(sizeof(int) * MAXN * (size_t)n);
        MPI_Request *rq = (MPI_Request *)pt_malloc(sizeof(MPI_Request) * (size_t)n);
        MPI_Status *st = (MPI_Status *)pt_malloc(sizeof(MPI_Status) * (size_t)n);
        char *seen = (char *)pt_malloc((size_t)pt_size);
        memset(seen, 0, (size_t)pt_size);
        for (i = 0; i < n; i++) {
            CK(MPI_Irecv(bufs[i], MAXN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &rq[i]));
        }
        CK(MPI_Barrier(MPI_COMM_WORLD));
        CK(MPI_Waitall(n, rq, st));
        for (i = 0; i < n; i++) {
            int src = st[i].MPI_SOURCE;
            EXPECT(src >= 1 && src < pt_size && !seen[src], "preposted receive %d: bad or repeated source %d", i, src);
            seen[src] = 1;
            EXPECT(st[i].MPI_TAG == 500 + src, "preposted receive %d: tag %d from %d", i, st[i].MPI_TAG, src);
            check_ints(bufs[i], &st[i], 3 + src, "phase 4");
        }
        free(bufs);
        free(rq);
        free(st);
        free(seen);
    } else {
        int buf[MAXN];
        CK(MPI_Barrier(MPI_COMM_WORLD));
        fill_ints(buf, 3 + pt_rank, pt_rank, 500 + pt_rank);
        CK(MPI_Send(buf, 3 + pt_rank, MPI_INT, 0, 500 + pt_rank, MPI_COMM_WORLD));
    }
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

static void phase_tag_extremes(void)
{
    int buf[MAXN];
    MPI_Status st;
    pt_set_phase("5: tags 0 and 32767 with ANY_TAG");
    if (pt_rank == 1) {
        fill_ints(buf, 4, 1, 32767);
        CK(MPI_Send(buf, 4, MPI_INT, 0, 32767, MPI_COMM_WORLD));
        fill_ints(buf, 4, 1, 0);
        CK(MPI_Send(buf, 4, MPI_INT, 0, 0, MPI_COMM_WORLD));
    } else if (pt_rank == 0) {
        CK(MPI_Recv(buf, MAXN, MPI_INT, 1, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        EXPECT(st.MPI_TAG == 32767, "first message has tag %d, expected 32767", st.MPI_TAG);
        check_ints(buf, &st, 4, "tag 32767");
        CK(MPI_Recv(buf, MAXN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        EXPECT(st.MPI_TAG == 0 && st.MPI_SOURCE == 1, "second message has tag %d source %d, expected 0 and 1",
               st.MPI_TAG, st.MPI_SOURCE);
        check_ints(buf, &st, 4, "tag 0");
    }
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

static void phase_self(void)
{
    int out[6];
    int in[MAXN];
    MPI_Request rq;
    MPI_Status st;
    pt_set_phase("6: self message with ANY_SOURCE");
    fill_ints(out, 6, pt_rank, 600);
    CK(MPI_Isend(out, 6, MPI_INT, pt_rank, 600, MPI_COMM_WORLD, &rq));
    CK(MPI_Recv(in, MAXN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    EXPECT(st.MPI_SOURCE == pt_rank, "self message: status.MPI_SOURCE %d", st.MPI_SOURCE);
    check_ints(in, &st, 6, "self message");
    CK(MPI_Wait(&rq, &st));
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

static void phase_all_to_all(void)
{
    int n = pt_size - 1;
    int(*out)[8] = (int(*)[8])pt_malloc(sizeof(int) * 8 * (size_t)pt_size);
    MPI_Request *rq = (MPI_Request *)pt_malloc(sizeof(MPI_Request) * (size_t)pt_size);
    MPI_Status *sts = (MPI_Status *)pt_malloc(sizeof(MPI_Status) * (size_t)pt_size);
    char *seen = (char *)pt_malloc((size_t)pt_size);
    int in[MAXN];
    int i;
    int k = 0;
    pt_set_phase("7: all to all with wildcards");
    memset(seen, 0, (size_t)pt_size);
    for (i = 0; i < pt_size; i++) {
        if (i != pt_rank) {
            fill_ints(out[i], 2 + i % 5, pt_rank, 700 + i);
            CK(MPI_Isend(out[i], 2 + i % 5, MPI_INT, i, 700 + i, MPI_COMM_WORLD, &rq[k++]));
        }
    }
    for (i = 0; i < n; i++) {
        MPI_Status st;
        CK(MPI_Recv(in, MAXN, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
        EXPECT(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < pt_size && st.MPI_SOURCE != pt_rank && !seen[st.MPI_SOURCE],
               "all to all: bad or repeated source %d", st.MPI_SOURCE);
        seen[st.MPI_SOURCE] = 1;
        EXPECT(st.MPI_TAG == 700 + pt_rank, "all to all: tag %d, expected %d", st.MPI_TAG, 700 + pt_rank);
        check_ints(in, &st, 2 + pt_rank % 5, "all to all");
    }
    CK(MPI_Waitall(k, rq, sts));
    free(out);
    free(rq);
    free(sts);
    free(seen);
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

static void phase_specific_sources(void)
{
    int i;
    int round;
    pt_set_phase("8: specific sources among several senders");
    for (round = 0; round < 2; round++) {
        int tag = 800 + round;
        if (pt_rank == 0) {
            int n = pt_size - 1;
            int(*bufs)[MAXN] = (int(*)[MAXN])pt_malloc(sizeof(int) * MAXN * (size_t)pt_size);
            MPI_Request *rq = (MPI_Request *)pt_malloc(sizeof(MPI_Request) * (size_t)pt_size);
            MPI_Status *st = (MPI_Status *)pt_malloc(sizeof(MPI_Status) * (size_t)pt_size);
            if (round == 0) {
                /* preposted, highest rank first */
                for (i = 0; i < n; i++) {
                    int src = pt_size - 1 - i;
                    CK(MPI_Irecv(bufs[i], MAXN, MPI_INT, src, tag, MPI_COMM_WORLD, &rq[i]));
                }
                CK(MPI_Barrier(MPI_COMM_WORLD));
                CK(MPI_Waitall(n, rq, st));
            } else {
                /* everything has arrived (or is on its way); pick by source */
                CK(MPI_Barrier(MPI_COMM_WORLD));
                for (i = 0; i < n; i++) {
                    CK(MPI_Recv(bufs[i], MAXN, MPI_INT, pt_size - 1 - i, tag, MPI_COMM_WORLD, &st[i]));
                }
            }
            for (i = 0; i < n; i++) {
                int src = pt_size - 1 - i;
                EXPECT(st[i].MPI_SOURCE == src, "receive for source %d got a message from %d", src, st[i].MPI_SOURCE);
                check_ints(bufs[i], &st[i], 4 + src % 3, "specific source");
            }
            free(bufs);
            free(rq);
            free(st);
        } else {
            int buf[MAXN];
            MPI_Request rq;
            MPI_Status st;
            fill_ints(buf, 4 + pt_rank % 3, pt_rank, tag);
            if (round == 0) {
                CK(MPI_Barrier(MPI_COMM_WORLD));
                CK(MPI_Send(buf, 4 + pt_rank % 3, MPI_INT, 0, tag, MPI_COMM_WORLD));
            } else {
                CK(MPI_Isend(buf, 4 + pt_rank % 3, MPI_INT, 0, tag, MPI_COMM_WORLD, &rq));
                CK(MPI_Barrier(MPI_COMM_WORLD));
                CK(MPI_Wait(&rq, &st));
            }
        }
        CK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv, "pt2pt_wildcards");
    pt_require_size(2);
    EXPECT(pt_size + 3 <= MAXN, "too many processes for this test (%d)", pt_size);
    phase_many_to_one();
    phase_source_anytag();
    phase_anysource_tag();
    phase_preposted();
    phase_tag_extremes();
    phase_self();
    phase_all_to_all();
    phase_specific_sources();
    return pt_finish();
}
