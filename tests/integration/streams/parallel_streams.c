/* Parallel TCP streams between sites, seen from a program: every process
 * exchanges messages with every process at the other site (the even ranks
 * are at one site, the odd ones at the other), and every byte must arrive
 * intact and in MPI's order, whatever the number of streams and however
 * stripes fall: sizes around and between stripe units, empty messages,
 * derived datatypes on both ends, many large and small messages in flight at
 * once on one tag, and the stream count changed (MPIX_PARALLEL_STREAMS)
 * while messages are in flight.
 *
 *     parallel_streams STREAMS plain|attribute [ANYTHING...]
 *     parallel_streams STREAMS window LATENCY_MS WINDOW_KIB [ANYTHING...]
 *
 * STREAMS is what MPIX_PARALLEL_STREAMS must read on MPI_COMM_WORLD at the
 * start (the job's STRATA_TCP_STREAMS); `attribute` adds the phases that
 * change it (up to 6 streams); `window` only checks that an emulated link's
 * window slows a transfer as it should. Whether the streams were really opened is for
 * the caller to see (STRATA_STATS=1 prints them). */
#include "pt2pt_common.h"

static int g_rank, g_size;

/* The processes at the other site. */
static int other_site(int r) { return (r % 2) != (g_rank % 2); }

static int streams_get(MPI_Comm comm)
{
    int *value = NULL;
    int flag = 0;
    CK(MPI_Attr_get(comm, MPIX_PARALLEL_STREAMS, &value, &flag));
    EXPECT(flag == 1 && value != NULL, "MPIX_PARALLEL_STREAMS is always there (flag %d)", flag);
    return *value;
}

static void streams_put(MPI_Comm comm, int n)
{
    CK(MPI_Attr_put(comm, MPIX_PARALLEL_STREAMS, &n));
}

/* Every process sends `n` bytes to every process at the other site and
 * receives as much from each, all at once. */
static void exchange(size_t n, int tag)
{
    unsigned char **out = pt_malloc((size_t)g_size * sizeof *out);
    unsigned char **in = pt_malloc((size_t)g_size * sizeof *in);
    MPI_Request *reqs = pt_malloc(2 * (size_t)g_size * sizeof *reqs);
    int k = 0, r;
    for (r = 0; r < g_size; ++r) {
        if (!other_site(r)) continue;
        out[r] = pt_malloc(n);
        in[r] = pt_malloc(n);
        pt_fill(out[r], n, pt_seed(g_rank, r, tag, (int)n));
        memset(in[r], 0xee, n);
        CK(MPI_Irecv(in[r], (int)n, MPI_BYTE, r, tag, MPI_COMM_WORLD, &reqs[k++]));
        CK(MPI_Isend(out[r], (int)n, MPI_BYTE, r, tag, MPI_COMM_WORLD, &reqs[k++]));
    }
    CK(MPI_Waitall(k, reqs, MPI_STATUSES_IGNORE));
    for (r = 0; r < g_size; ++r) {
        if (!other_site(r)) continue;
        pt_verify(in[r], n, pt_seed(r, g_rank, tag, (int)n), "a message from the other site");
        free(out[r]);
        free(in[r]);
    }
    free(out);
    free(in);
    free(reqs);
}

/* Non-contiguous on both ends: the sender's vector of ints (3 of every 5),
 * the receiver's vector of pairs of ints (2 of every 7), the same count of
 * ints in all. The pieces go packed in chunks, land in chunks. */
static void derived(int ints, int tag)
{
    MPI_Datatype send_type, recv_type;
    const int send_blocks = ints / 3, recv_blocks = ints / 2;
    int *send = pt_malloc((size_t)send_blocks * 5 * sizeof(int));
    int *recv = pt_malloc((size_t)recv_blocks * 7 * sizeof(int));
    int i, b, r;
    if (ints % 6 != 0) pt_fail("derived(): %d ints is not a multiple of 6", ints);
    CK(MPI_Type_vector(send_blocks, 3, 5, MPI_INT, &send_type));
    CK(MPI_Type_vector(recv_blocks, 2, 7, MPI_INT, &recv_type));
    CK(MPI_Type_commit(&send_type));
    CK(MPI_Type_commit(&recv_type));
    for (r = 0; r < g_size; ++r) {
        MPI_Request reqs[2];
        MPI_Status st;
        int count = 0;
        if (!other_site(r)) continue;
        for (b = 0; b < send_blocks; ++b)
            for (i = 0; i < 5; ++i) send[b * 5 + i] = i < 3 ? (int)pt_word(pt_seed(g_rank, r, tag, ints), (size_t)(b * 3 + i)) : -1;
        for (i = 0; i < recv_blocks * 7; ++i) recv[i] = -7;
        CK(MPI_Irecv(recv, 1, recv_type, r, tag, MPI_COMM_WORLD, &reqs[0]));
        CK(MPI_Isend(send, 1, send_type, r, tag, MPI_COMM_WORLD, &reqs[1]));
        CK(MPI_Wait(&reqs[0], &st));
        CK(MPI_Wait(&reqs[1], MPI_STATUS_IGNORE));
        CK(MPI_Get_count(&st, MPI_INT, &count));
        EXPECT(count == ints, "received %d ints, want %d", count, ints);
        for (b = 0; b < recv_blocks; ++b) {
            for (i = 0; i < 7; ++i) {
                const int got = recv[b * 7 + i];
                const int want = i < 2 ? (int)pt_word(pt_seed(r, g_rank, tag, ints), (size_t)(b * 2 + i)) : -7;
                EXPECT(got == want, "int %d of block %d of %d ints: %d, want %d", i, b, ints, got, want);
            }
        }
    }
    CK(MPI_Type_free(&send_type));
    CK(MPI_Type_free(&recv_type));
    free(send);
    free(recv);
}

/* Many messages in flight on one tag from every process to every process at
 * the other site, large (rendezvous), small and medium (eager: striped when
 * the stripe unit is small) interleaved: each
 * receiver must get them in the order sent. The first int of each is its
 * number; receives are posted as the messages come, MPI_ANY_TAG half the
 * time, with buffers large enough for any. With `change`, the sender changes
 * its stream count after every few sends. */
static void ordering(int count, int change)
{
    enum { TAG = 900 };
    const size_t big = 300007, most = 600000;
    unsigned char **out = pt_malloc((size_t)count * sizeof *out);
    size_t *len = pt_malloc((size_t)count * sizeof *len);
    MPI_Request *sends = pt_malloc((size_t)count * (size_t)g_size * sizeof *sends);
    unsigned char *in = pt_malloc(most);
    int i, r, k = 0;
    for (i = 0; i < count; ++i) {
        len[i] = i % 3 == 0 ? big + (size_t)i * 4099 : i % 3 == 1 ? (size_t)(i * 13) + 4 : 40001;
        out[i] = pt_malloc(len[i]);
        pt_fill(out[i], len[i], pt_seed(g_rank, 0, TAG, i));
        memcpy(out[i], &i, sizeof i);
    }
    for (i = 0; i < count; ++i) {
        if (change && i % 4 == 0) streams_put(MPI_COMM_WORLD, 1 + (i / 4) % 6);
        for (r = 0; r < g_size; ++r)
            if (other_site(r)) CK(MPI_Isend(out[i], (int)len[i], MPI_BYTE, r, TAG, MPI_COMM_WORLD, &sends[k++]));
    }
    for (r = 0; r < g_size; ++r) {
        if (!other_site(r)) continue;
        for (i = 0; i < count; ++i) {
            MPI_Status st;
            int got = 0, number = -1;
            CK(MPI_Recv(in, (int)most, MPI_BYTE, r, i % 2 ? MPI_ANY_TAG : TAG, MPI_COMM_WORLD, &st));
            CK(MPI_Get_count(&st, MPI_BYTE, &got));
            memcpy(&number, in, sizeof number);
            EXPECT(number == i, "from rank %d, message %d came as number %d: overtaken", r, i, number);
            EXPECT((size_t)got == len[i], "message %d from rank %d: %d bytes, want %lu", i, r, got, (unsigned long)len[i]);
            {
                /* The rest of the bytes, past the number. */
                unsigned char *want = pt_malloc(len[i]);
                pt_fill(want, len[i], pt_seed(r, 0, TAG, i));
                memcpy(want, &i, sizeof i);
                EXPECT(memcmp(want, in, len[i]) == 0, "message %d from rank %d differs", i, r);
                free(want);
            }
        }
    }
    CK(MPI_Waitall(k, sends, MPI_STATUSES_IGNORE));
    for (i = 0; i < count; ++i) free(out[i]);
    free(out);
    free(len);
    free(sends);
    free(in);
}

/* The attribute: what it reads, what it refuses, what it leaves alone. */
static void attribute(int initial)
{
    MPI_Comm site;
    int n, rc, bad;
    int *null = NULL;
    CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    for (bad = -1; bad <= 17; bad += 18) {
        rc = MPI_Attr_put(MPI_COMM_WORLD, MPIX_PARALLEL_STREAMS, &bad);
        EXPECT(pt_error_class(rc) == MPI_ERR_ARG, "%d streams: error class %d, want MPI_ERR_ARG", bad, pt_error_class(rc));
    }
    n = 0;
    rc = MPI_Attr_put(MPI_COMM_WORLD, MPIX_PARALLEL_STREAMS, &n);
    EXPECT(pt_error_class(rc) == MPI_ERR_ARG, "0 streams: error class %d", pt_error_class(rc));
    rc = MPI_Attr_put(MPI_COMM_WORLD, MPIX_PARALLEL_STREAMS, null);
    EXPECT(pt_error_class(rc) == MPI_ERR_ARG, "NULL: error class %d", pt_error_class(rc));
    rc = MPI_Attr_delete(MPI_COMM_WORLD, MPIX_PARALLEL_STREAMS);
    EXPECT(pt_error_class(rc) == MPI_ERR_ARG, "delete: error class %d", pt_error_class(rc));
    EXPECT(streams_get(MPI_COMM_WORLD) == initial, "refused puts changed nothing: %d", streams_get(MPI_COMM_WORLD));
    CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));

    /* A communicator of this process's site reaches nobody elsewhere: it
     * reads 1, and a put on it leaves the other site's peers alone. */
    CK(MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &site));
    EXPECT(streams_get(site) == 1, "one site's communicator reads %d", streams_get(site));
    streams_put(site, 7);
    EXPECT(streams_get(MPI_COMM_WORLD) == initial, "a put on one site's communicator changed the world's: %d",
           streams_get(MPI_COMM_WORLD));
    CK(MPI_Comm_free(&site));

    /* A put applies to the world's peers at the other site, on a duplicate
     * too (the count is per peer, not per communicator). */
    {
        MPI_Comm dup;
        CK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
        streams_put(dup, 5);
        EXPECT(streams_get(MPI_COMM_WORLD) == 5, "after a put of 5 on a duplicate: %d", streams_get(MPI_COMM_WORLD));
        streams_put(MPI_COMM_WORLD, 3);
        EXPECT(streams_get(dup) == 3, "after a put of 3 on the world: %d", streams_get(dup));
        CK(MPI_Comm_free(&dup));
    }
    exchange(1 << 20, 801);
    streams_put(MPI_COMM_WORLD, initial);
}

/* One message of 2 MiB from rank 0 to rank 1 over a link emulated at
 * LATENCY_MS one way with a window of WINDOW_KIB per stream: each stream
 * carries its share of the stripes (within one stripe unit) at no more than
 * a window per round trip, so the transfer takes at least that long. Timing
 * gives lower bounds only: a loaded machine is slower, never faster. */
static void window_bound(int streams, double latency_ms, double window_kib)
{
    const size_t n = 2u << 20;
    unsigned char *buf = pt_malloc(n);
    if (g_rank == 0) {
        const double t0 = MPI_Wtime();
        double took, floor_s, share;
        pt_fill(buf, n, 5);
        CK(MPI_Send(buf, (int)n, MPI_BYTE, 1, 700, MPI_COMM_WORLD));
        CK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 701, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        took = MPI_Wtime() - t0;
        share = streams == 1 ? (double)n : (double)n / streams - 65536;
        floor_s = share / (window_kib * 1024) * 2 * latency_ms / 1e3;
        EXPECT(took >= floor_s, "2 MiB over %d streams took %.1f ms, less than their windows allow (%.1f ms)",
               streams, took * 1e3, floor_s * 1e3);
        printf("window: 2 MiB over %d streams in %.1f ms (at least %.1f ms)\n", streams, took * 1e3, floor_s * 1e3);
    } else if (g_rank == 1) {
        CK(MPI_Recv(buf, (int)n, MPI_BYTE, 0, 700, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        pt_verify(buf, n, 5, "the 2 MiB message");
        CK(MPI_Send(NULL, 0, MPI_BYTE, 0, 701, MPI_COMM_WORLD));
    }
    free(buf);
}

int main(int argc, char **argv)
{
    /* Sizes around a 64 KiB stripe unit and the eager limit, and ones that
     * divide nothing. */
    const size_t sizes[] = {0, 1, 8, 1499, 1500, 1501, 65535, 65536, 65537, 100003, 3 * 65536 + 1, 1 << 20, 4000037};
    int initial;
    size_t s;
    g_rank = pt_init(&argc, &argv, "parallel_streams");
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    pt_require_size(2);
    if (argc < 3) pt_fail("usage: parallel_streams STREAMS plain|attribute [ANYTHING...]");
    initial = atoi(argv[1]);

    pt_set_phase("the streams the job set");
    EXPECT(streams_get(MPI_COMM_WORLD) == initial, "MPIX_PARALLEL_STREAMS reads %d, want %d",
           streams_get(MPI_COMM_WORLD), initial);

    if (strcmp(argv[2], "window") == 0) {
        if (argc < 5) pt_fail("usage: parallel_streams STREAMS window LATENCY_MS WINDOW_KIB");
        pt_set_phase("an emulated window");
        window_bound(initial, atof(argv[3]), atof(argv[4]));
        return pt_finish();
    }

    pt_set_phase("sizes");
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) exchange(sizes[s], (int)s);

    pt_set_phase("derived datatypes");
    derived(6 * 11, 100);        /* eager, packed whole */
    derived(6 * 20011, 101);     /* 480 KB: rendezvous, chunks */
    derived(6 * 100003, 102);    /* 2.4 MB */

    pt_set_phase("many in flight, one tag");
    ordering(48, 0);

    if (strcmp(argv[2], "attribute") == 0) {
        pt_set_phase("the attribute");
        attribute(initial);

        pt_set_phase("the count changed while messages are in flight");
        ordering(40, 1);
        streams_put(MPI_COMM_WORLD, initial);
        exchange(1 << 20, 802);
    }
    return pt_finish();
}
