/* soak: many ranks, irregular traffic, receives from MPI_ANY_SOURCE, polled
 * completion: what an application that overlaps communication does, and what
 * collapses first when more ranks run than there are cores.
 *
 * Plain C99 + MPI-1, so it builds with any mpicc:
 *
 *   mpicc -O2 soak.c -o soak && mpirun -np 4 ./soak --impl mine
 *
 * Every rank sends --messages messages (default 20000), each to a
 * pseudo-random other rank, of a pseudo-random size from 16 B (the payload's
 * own header) to --max-size (default 64 KiB; sizes spread evenly over the
 * powers of two, so half the messages are under 1 KiB and the largest go by
 * rendezvous). It keeps a window of
 * --window receives (default 16) posted from MPI_ANY_SOURCE with
 * MPI_ANY_TAG, and while its one send in flight completes it polls: MPI_Test
 * on the send, MPI_Testany on the window, reposting each receive that
 * completes. Every payload carries its sender, its number and a checksum
 * that the receiver checks; each rank knows (from every rank's generator)
 * how many messages it will get, so the run ends without a termination
 * protocol. No data may be lost, duplicated or corrupted: the program exits
 * non-zero on any mismatch.
 *
 * Output, one CSV line from rank 0:
 *   impl,soak,nprocs,seconds,messages,errors
 * seconds: from a barrier before the first send to the last rank's last
 * receive (the longest of all ranks' times); messages: all ranks' sends.
 */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct soak_opts {
    const char *impl;
    long messages;
    long max_size;
    int window;
};

/* One rank's generator: the same sequence on every rank for a given sender. */
static uint64_t next(uint64_t *s)
{
    *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
    return *s >> 33;
}

static uint64_t seed_of(int rank) { return 0x9e3779b97f4a7c15ULL * (uint64_t)(rank + 1); }

/* The destination and size of a sender's next message. */
static void draw(uint64_t *s, int me, int nprocs, long max_size, int *dest, long *size)
{
    int d = (int)(next(s) % (uint64_t)(nprocs - 1));
    int lg_max = 4, lg;
    long bytes;
    while ((1L << (lg_max + 1)) <= max_size) ++lg_max;
    *dest = d >= me ? d + 1 : d;
    lg = 4 + (int)(next(s) % (uint64_t)(lg_max - 3));
    bytes = (1L << lg) + (long)(next(s) % (uint64_t)(1L << lg));
    *size = bytes > max_size ? max_size : bytes;
}

/* Header words of a payload: sender, number, size, checksum of the rest. */
enum { HDR = 4, HDR_BYTES = HDR * 4 };

/* A checksum of the bytes after the header, a 64-bit word at a time (a
 * byte-at-a-time one would cost more than the MPI under test). */
static uint32_t sum_of(const unsigned char *p, long n)
{
    uint64_t h = 1469598103934665603ULL, x;
    long i;
    for (i = 0; i + 8 <= n; i += 8) {
        memcpy(&x, p + i, 8);
        h = (h ^ x) * 1099511628211ULL;
    }
    for (; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
    return (uint32_t)(h ^ (h >> 32));
}

static void fill(unsigned char *buf, int me, long number, long size)
{
    uint32_t w[HDR];
    uint64_t x = seed_of(me) ^ ((uint64_t)number << 20);
    long i;
    for (i = HDR_BYTES; i + 8 <= size; i += 8) {
        x += 0x9e3779b97f4a7c15ULL;
        memcpy(buf + i, &x, 8);
    }
    for (; i < size; ++i) buf[i] = (unsigned char)(x >> (i % 8 * 8));
    w[0] = (uint32_t)me;
    w[1] = (uint32_t)number;
    w[2] = (uint32_t)size;
    w[3] = sum_of(buf + HDR_BYTES, size - HDR_BYTES);
    memcpy(buf, w, sizeof w);
}

static int check(const unsigned char *buf, int count, const MPI_Status *st)
{
    uint32_t w[HDR];
    if (count < HDR_BYTES) return 0;
    memcpy(w, buf, sizeof w);
    return (int)w[0] == st->MPI_SOURCE && (long)w[2] == count && w[3] == sum_of(buf + HDR_BYTES, count - HDR_BYTES);
}

static int parse(int argc, char **argv, struct soak_opts *o)
{
    int i;
    o->impl = getenv("BENCH_IMPL") ? getenv("BENCH_IMPL") : "mpi";
    o->messages = 20000;
    o->max_size = 65536;
    o->window = 16;
    for (i = 1; i < argc; ++i) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--impl") == 0 && v) {
            o->impl = v;
        } else if (strcmp(argv[i], "--messages") == 0 && v) {
            o->messages = atol(v);
        } else if (strcmp(argv[i], "--max-size") == 0 && v) {
            o->max_size = atol(v);
        } else if (strcmp(argv[i], "--window") == 0 && v) {
            o->window = atoi(v);
        } else if (strcmp(argv[i], "--quick") == 0) {
            o->messages = 500;
            continue;
        } else {
            fprintf(stderr,
                    "usage: soak [--impl NAME] [--messages N (20000)] [--max-size BYTES (65536)] "
                    "[--window N (16)] [--quick]\n");
            return -1;
        }
        ++i;
    }
    if (o->messages < 1 || o->max_size < HDR_BYTES * 2 || o->window < 1 || o->window > 1024) {
        fprintf(stderr, "soak: --messages >= 1, --max-size >= 32, --window 1..1024\n");
        return -1;
    }
    return 0;
}

/* How many messages `me` gets: every sender's sequence, replayed. */
static long expected_for(int me, int nprocs, const struct soak_opts *o)
{
    long n = 0, i;
    int r, dest;
    long size;
    for (r = 0; r < nprocs; ++r) {
        uint64_t s = seed_of(r);
        if (r == me) continue;
        for (i = 0; i < o->messages; ++i) {
            draw(&s, r, nprocs, o->max_size, &dest, &size);
            if (dest == me) ++n;
        }
    }
    return n;
}

struct window {
    MPI_Request *req;
    unsigned char **buf;
    int n;
    long posted, got, errors;
};

static void post(struct window *w, int i, long expected, long max_size)
{
    if (w->posted >= expected) {
        w->req[i] = MPI_REQUEST_NULL;
        return;
    }
    MPI_Irecv(w->buf[i], (int)max_size, MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &w->req[i]);
    ++w->posted;
}

/* Completes what arrived in the window; returns 1 when something did. */
static int receive(struct window *w, long expected, long max_size)
{
    int index = MPI_UNDEFINED, flag = 0, count = 0;
    MPI_Status st;
    if (w->got >= expected) return 0;
    MPI_Testany(w->n, w->req, &index, &flag, &st);
    if (!flag || index == MPI_UNDEFINED) return 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    if (!check(w->buf[index], count, &st)) ++w->errors;
    ++w->got;
    post(w, index, expected, max_size);
    return 1;
}

int main(int argc, char **argv)
{
    struct soak_opts o;
    struct window w;
    int me, nprocs, i, flag, dest;
    long sent = 0, expected, size, errors_all = 0, msgs_all = 0;
    double t0, t, tmax = 0;
    unsigned char *out;
    uint64_t s;
    MPI_Request sreq = MPI_REQUEST_NULL;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (parse(argc, argv, &o) != 0 || nprocs < 2) {
        if (me == 0 && nprocs < 2) fprintf(stderr, "soak: needs 2 or more ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    expected = expected_for(me, nprocs, &o);
    w.n = o.window;
    w.req = malloc(sizeof(MPI_Request) * (size_t)w.n);
    w.buf = malloc(sizeof(unsigned char *) * (size_t)w.n);
    out = malloc((size_t)o.max_size);
    if (!w.req || !w.buf || !out) MPI_Abort(MPI_COMM_WORLD, 3);
    w.posted = w.got = w.errors = 0;
    for (i = 0; i < w.n; ++i) {
        w.buf[i] = malloc((size_t)o.max_size);
        if (!w.buf[i]) MPI_Abort(MPI_COMM_WORLD, 3);
        post(&w, i, expected, o.max_size);
    }
    s = seed_of(me);
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    while (sent < o.messages || sreq != MPI_REQUEST_NULL || w.got < expected) {
        if (sreq == MPI_REQUEST_NULL && sent < o.messages) {
            draw(&s, me, nprocs, o.max_size, &dest, &size);
            fill(out, me, sent, size);
            MPI_Isend(out, (int)size, MPI_BYTE, dest, (int)(sent % 32768), MPI_COMM_WORLD, &sreq);
            ++sent;
        }
        if (sreq != MPI_REQUEST_NULL) MPI_Test(&sreq, &flag, MPI_STATUS_IGNORE);
        while (receive(&w, expected, o.max_size)) {
        }
    }
    t = MPI_Wtime() - t0;
    MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&w.errors, &errors_all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&sent, &msgs_all, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (me == 0) {
        printf("%s,soak,%d,%.4f,%ld,%ld\n", o.impl, nprocs, tmax, msgs_all, errors_all);
        fflush(stdout);
    }
    for (i = 0; i < w.n; ++i) free(w.buf[i]);
    free(w.buf);
    free(w.req);
    free(out);
    MPI_Finalize();
    return errors_all == 0 ? 0 : 1;
}
