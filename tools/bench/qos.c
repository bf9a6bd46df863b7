/* qos: MPICH-GQ's experiment: several flows from one site to another, all
 * crossing one wide-area link and all trying to fill it; one "foreground"
 * flow may reserve a share of the link with the MPIX_QOS attribute (premium
 * service), the others stay best effort. What each flow then receives.
 *
 *   mpirun -jobfile JOB qos [--qos MBIT] [--size BYTES] [--window N]
 *                           [--warmup SECONDS] [--time SECONDS] [--impl NAME] [--no-header]
 *
 * The last rank receives; every other rank sends it one flow, on a
 * communicator of their own (the two of them): flow 0, from rank 0, is the
 * foreground flow, the others are bulk. Lay the senders out at one site and
 * the receiver at another (tools/bench/qos does, on an emulated link). With
 * --qos MBIT rank 0 sets MPIX_QOS {MPIX_QOS_PREMIUM, MBIT} on its flow's
 * communicator before anything is sent (a refusal ends the job, saying why);
 * without it every flow is best effort.
 *
 * After a barrier every sender keeps --window (4) MPI_Isend of --size bytes
 * (256 KiB: rendezvous on every device) in flight, so that round trips do not
 * limit it, and the receiver keeps as many receives posted per flow. The
 * receiver measures on its own clock from --warmup seconds (2) after the
 * barrier for --time seconds (3), then tells each sender to stop; a sender
 * completes its sends in flight and sends --window end markers carrying the
 * number of messages it sent, and every flow is received to its end.
 *
 * Every message carries its kind, flow, number and size, then a pattern
 * derived from flow and number: the receiver checks every byte, the order of
 * every flow and its count, and ends the job (MPI_Abort, exit status 1) at the
 * first difference. A watchdog ends a rank that hangs (exit status 3).
 *
 * Output, from the receiver, one CSV line per flow:
 *   impl,mode,reserved_mbit,flow,kind,messages,seconds,mbit
 * mode: qos or best-effort; reserved_mbit: --qos's figure (0 without);
 * kind: foreground or bulk; messages: those completed in the measured
 * interval; seconds: its length (--time); mbit: their bytes over it (Mbit/s,
 * 10^6 bit/s). A flow's messages arrive in bursts (each round trip its window
 * of them), so a figure is good to about one message: a few percent over 3 s
 * at 11 Mbit/s with 256 KiB messages; a longer --time narrows it.
 *
 * Plain C99 + POSIX + MPI-1; MPIX_QOS is Strata's extension: built with
 * another MPI, --qos is refused. */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <mpi.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { TAG_DATA = 1, TAG_STOP = 2 };
enum { KIND_DATA = 0x51D47A01, KIND_END = 0x51D47A02 };
enum { HDR_BYTES = 16 };

struct qos_opts {
    const char *impl;
    int qos_mbit; /* 0: best effort */
    long size;
    int window;
    double warmup, time;
    int header;
};

static int g_rank = -1;

static void fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "qos: rank %d: ", g_rank);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static void watchdog(int sig)
{
    static const char text[] = "qos: watchdog expired: a flow hung\n";
    (void)sig;
    if (write(2, text, sizeof text - 1) < 0) {
        /* nothing more to do */
    }
    _exit(3);
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= 0xbf58476d1ce4e5b9ULL;
    x ^= x >> 27;
    x *= 0x94d049bb133111ebULL;
    x ^= x >> 31;
    return x;
}

/* The header, then 8 bytes at a time of the flow's and number's pattern. */
static void message_fill(unsigned char *p, long size, uint32_t kind, int flow, long number)
{
    uint32_t h[4];
    uint64_t s = mix64(((uint64_t)(uint32_t)flow << 32) | (uint64_t)(uint32_t)number), w = 0;
    long i;
    h[0] = kind;
    h[1] = (uint32_t)flow;
    h[2] = (uint32_t)number;
    h[3] = (uint32_t)size;
    memcpy(p, h, sizeof h);
    for (i = HDR_BYTES; i < size; i += 8) {
        s += 0x9e3779b97f4a7c15ULL;
        w = mix64(s);
        memcpy(p + i, &w, (size_t)(size - i < 8 ? size - i : 8));
    }
}

/* Offset of the first byte that differs from message_fill's, or -1. */
static long message_differs(const unsigned char *p, long size, int flow, long number)
{
    uint64_t s = mix64(((uint64_t)(uint32_t)flow << 32) | (uint64_t)(uint32_t)number), w;
    long i, k;
    for (i = HDR_BYTES; i < size; i += 8) {
        const long n = size - i < 8 ? size - i : 8;
        s += 0x9e3779b97f4a7c15ULL;
        w = mix64(s);
        if (memcmp(p + i, &w, (size_t)n) != 0) {
            for (k = 0; k < n && p[i + k] == ((const unsigned char *)&w)[k]; ++k) {
            }
            return i + k;
        }
    }
    return -1;
}

static void usage(void)
{
    fprintf(stderr, "usage: qos [--qos MBIT] [--size BYTES (262144)] [--window N (4)] [--warmup SECONDS (2)]\n"
                    "           [--time SECONDS (3)] [--impl NAME] [--no-header]\n");
}

static int parse(int argc, char **argv, struct qos_opts *o)
{
    int i;
    o->impl = getenv("BENCH_IMPL") ? getenv("BENCH_IMPL") : "mpi";
    o->qos_mbit = 0;
    o->size = 262144;
    o->window = 4;
    o->warmup = 2.0;
    o->time = 3.0;
    o->header = 1;
    for (i = 1; i < argc; ++i) {
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(argv[i], "--no-header") == 0) {
            o->header = 0;
            continue;
        }
        if (v == NULL) {
            usage();
            return -1;
        }
        if (strcmp(argv[i], "--impl") == 0) {
            o->impl = v;
        } else if (strcmp(argv[i], "--qos") == 0) {
            o->qos_mbit = atoi(v);
            if (o->qos_mbit < 1) {
                fprintf(stderr, "qos: --qos takes a reservation of 1 Mbit/s or more, not '%s'\n", v);
                return -1;
            }
        } else if (strcmp(argv[i], "--size") == 0) {
            o->size = atol(v);
        } else if (strcmp(argv[i], "--window") == 0) {
            o->window = atoi(v);
        } else if (strcmp(argv[i], "--warmup") == 0) {
            o->warmup = atof(v);
        } else if (strcmp(argv[i], "--time") == 0) {
            o->time = atof(v);
        } else {
            usage();
            return -1;
        }
        ++i;
    }
    if (o->size < 64 || o->size > (1L << 30) || o->window < 1 || o->window > 64 || !(o->warmup >= 0) ||
        !(o->time > 0)) {
        fprintf(stderr, "qos: --size 64 B..1 GiB, --window 1..64, --warmup >= 0, --time > 0\n");
        return -1;
    }
    return 0;
}

/* Rank 0's reservation on the foreground flow's communicator, read back. */
static void reserve(MPI_Comm comm, int mbit)
{
#ifdef MPIX_QOS
    MPIX_Qos want, *got = NULL;
    int rc, flag = 0, cls = 0, len = 0;
    char text[MPI_MAX_ERROR_STRING];
    want.service = MPIX_QOS_PREMIUM;
    want.mbit = mbit;
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    rc = MPI_Comm_set_attr(comm, MPIX_QOS, &want);
    if (rc != MPI_SUCCESS) {
        MPI_Error_class(rc, &cls);
        MPI_Error_string(rc, text, &len);
        if (cls == MPIX_ERR_QOS) fail("the link cannot take a reservation of %d Mbit/s: %s", mbit, text);
        fail("MPIX_QOS premium %d Mbit/s failed: %s (error class %d)", mbit, text, cls);
    }
    rc = MPI_Comm_get_attr(comm, MPIX_QOS, &got, &flag);
    if (rc != MPI_SUCCESS || !flag || got == NULL || got->service != MPIX_QOS_PREMIUM || got->mbit != mbit)
        fail("MPIX_QOS reads back service %d, %d Mbit/s after premium %d", got ? got->service : -1,
             got ? got->mbit : -1, mbit);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL);
#else
    (void)comm;
    (void)mbit;
    fail("--qos needs MPIX_QOS, which this MPI's mpi.h does not define");
#endif
}

/* One flow, sent until the receiver says stop. */
static void send_flow(MPI_Comm comm, const struct qos_opts *o, int flow)
{
    const int w = o->window;
    unsigned char **buf = malloc(sizeof *buf * (size_t)w);
    MPI_Request *req = malloc(sizeof *req * (size_t)(w + 1));
    unsigned char end[HDR_BYTES];
    long number = 0;
    int stop = 0, i, index;
    if (buf == NULL || req == NULL) fail("out of memory");
    MPI_Irecv(&stop, 1, MPI_INT, 1, TAG_STOP, comm, &req[w]);
    MPI_Barrier(MPI_COMM_WORLD);
    for (i = 0; i < w; ++i) {
        buf[i] = malloc((size_t)o->size);
        if (buf[i] == NULL) fail("out of memory");
        message_fill(buf[i], o->size, KIND_DATA, flow, number++);
        MPI_Isend(buf[i], (int)o->size, MPI_BYTE, 1, TAG_DATA, comm, &req[i]);
    }
    for (;;) {
        MPI_Waitany(w + 1, req, &index, MPI_STATUS_IGNORE);
        if (index == w) break;
        message_fill(buf[index], o->size, KIND_DATA, flow, number++);
        MPI_Isend(buf[index], (int)o->size, MPI_BYTE, 1, TAG_DATA, comm, &req[index]);
    }
    MPI_Waitall(w, req, MPI_STATUSES_IGNORE);
    /* One marker per receive the receiver keeps posted: they are matched in
     * order after the last message, so none is left waiting. */
    message_fill(end, HDR_BYTES, KIND_END, flow, number);
    for (i = 0; i < w; ++i) MPI_Send(end, HDR_BYTES, MPI_BYTE, 1, TAG_DATA, comm);
    for (i = 0; i < w; ++i) free(buf[i]);
    free(buf);
    free(req);
}

struct flow_stats {
    long posted;   /* receives posted so far */
    long data;     /* messages received */
    long total;    /* what the end markers say was sent (-1: none yet) */
    int ends;      /* end markers received */
    long messages; /* completed in the measured interval */
};

/* Receives every flow to its end; measures [t_start, t_end) on this clock. */
static void receive_flows(MPI_Comm *comm, int flows, const struct qos_opts *o, struct flow_stats *fs)
{
    const int w = o->window, n = flows * w;
    unsigned char **buf = malloc(sizeof *buf * (size_t)n);
    MPI_Request *req = malloc(sizeof *req * (size_t)n), *stops = malloc(sizeof *stops * (size_t)flows);
    MPI_Status *st = malloc(sizeof *st * (size_t)n);
    int *done = malloc(sizeof *done * (size_t)n);
    long *number = malloc(sizeof *number * (size_t)n); /* what each posted receive must get */
    int i, k, count, open = flows, stopped = 0, zero = 0;
    double t0, t_start, t_end;
    if (buf == NULL || req == NULL || stops == NULL || st == NULL || done == NULL || number == NULL)
        fail("out of memory");
    memset(fs, 0, sizeof *fs * (size_t)flows);
    for (i = 0; i < flows; ++i) fs[i].total = -1;
    for (i = 0; i < n; ++i) {
        buf[i] = malloc((size_t)o->size);
        if (buf[i] == NULL) fail("out of memory");
        number[i] = fs[i / w].posted++;
        MPI_Irecv(buf[i], (int)o->size, MPI_BYTE, 0, TAG_DATA, comm[i / w], &req[i]);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    t_start = t0 + o->warmup;
    t_end = t_start + o->time;
    while (open > 0) {
        int got = 0;
        double now;
        MPI_Waitsome(n, req, &got, done, st);
        if (got == MPI_UNDEFINED) fail("%d flows open, no receive posted", open);
        now = MPI_Wtime();
        for (k = 0; k < got; ++k) {
            const int r = done[k], f = r / w;
            uint32_t h[4];
            MPI_Get_count(&st[k], MPI_BYTE, &count);
            if (count < HDR_BYTES) fail("flow %d: a message of %d bytes", f, count);
            memcpy(h, buf[r], sizeof h);
            if ((int)h[1] != f || (long)h[3] != count)
                fail("flow %d: a message saying flow %lu, %lu bytes, came with %d bytes", f, (unsigned long)h[1],
                     (unsigned long)h[3], count);
            /* Receives match in the order they were posted (Waitsome
             * reports them in another), so the k-th posted for a flow must
             * hold its message k, or an end marker once the flow is over. */
            if (h[0] == KIND_END) {
                if ((fs[f].total >= 0 && (long)h[2] != fs[f].total) || (long)h[2] > number[r])
                    fail("flow %d: an end marker saying %lu messages in receive %ld", f, (unsigned long)h[2],
                         number[r]);
                fs[f].total = (long)h[2];
                if (++fs[f].ends == w) --open;
                continue;
            }
            if (h[0] != KIND_DATA || count != o->size || (fs[f].total >= 0 && number[r] >= fs[f].total))
                fail("flow %d: a message (%d bytes) that is no data, or data after the end", f, count);
            if ((long)h[2] != number[r])
                fail("flow %d: message %lu arrived in the receive posted for message %ld", f, (unsigned long)h[2],
                     number[r]);
            {
                const long bad = message_differs(buf[r], count, f, number[r]);
                if (bad >= 0) fail("flow %d: message %ld differs from byte %ld on", f, number[r], bad);
            }
            ++fs[f].data;
            if (now >= t_start && now < t_end) ++fs[f].messages;
            number[r] = fs[f].posted++;
            MPI_Irecv(buf[r], (int)o->size, MPI_BYTE, 0, TAG_DATA, comm[f], &req[r]);
        }
        if (!stopped && now >= t_end) {
            for (i = 0; i < flows; ++i) MPI_Isend(&zero, 1, MPI_INT, 0, TAG_STOP, comm[i], &stops[i]);
            stopped = 1;
        }
    }
    for (i = 0; i < flows; ++i)
        if (fs[i].data != fs[i].total) fail("flow %d: %ld messages sent, %ld received", i, fs[i].total, fs[i].data);
    MPI_Waitall(flows, stops, MPI_STATUSES_IGNORE);
    for (i = 0; i < n; ++i) free(buf[i]);
    free(buf);
    free(req);
    free(stops);
    free(st);
    free(done);
    free(number);
}

int main(int argc, char **argv)
{
    struct qos_opts o;
    int nprocs, flows, f;
    MPI_Comm *comm;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    if (parse(argc, argv, &o) != 0) MPI_Abort(MPI_COMM_WORLD, 2);
    if (nprocs < 2) fail("needs 2 or more ranks: senders, then the receiver");
    signal(SIGALRM, watchdog);
    alarm((unsigned)(o.warmup + o.time) + 120);
    flows = nprocs - 1;
    comm = malloc(sizeof *comm * (size_t)flows);
    if (comm == NULL) fail("out of memory");
    /* Flow f's communicator: rank f (its rank 0) and the receiver (1). */
    for (f = 0; f < flows; ++f) {
        const int in = g_rank == f || g_rank == flows;
        MPI_Comm_split(MPI_COMM_WORLD, in ? 0 : MPI_UNDEFINED, g_rank == flows, &comm[f]);
    }
    if (g_rank == 0 && o.qos_mbit > 0) reserve(comm[0], o.qos_mbit);

    if (g_rank < flows) {
        send_flow(comm[g_rank], &o, g_rank);
    } else {
        struct flow_stats *fs = malloc(sizeof *fs * (size_t)flows);
        if (fs == NULL) fail("out of memory");
        receive_flows(comm, flows, &o, fs);
        if (o.header) printf("impl,mode,reserved_mbit,flow,kind,messages,seconds,mbit\n");
        for (f = 0; f < flows; ++f)
            printf("%s,%s,%d,%d,%s,%ld,%g,%.3f\n", o.impl, o.qos_mbit ? "qos" : "best-effort", o.qos_mbit, f,
                   f == 0 ? "foreground" : "bulk", fs[f].messages, o.time,
                   (double)fs[f].messages * (double)o.size * 8 / o.time / 1e6);
        fflush(stdout);
        free(fs);
    }
    for (f = 0; f < flows; ++f)
        if (comm[f] != MPI_COMM_NULL) MPI_Comm_free(&comm[f]);
    free(comm);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Finalize();
    return 0;
}
