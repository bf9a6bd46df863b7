/* collectives: mpptest-style timing of MPI_Bcast, MPI_Allreduce and
 * MPI_Alltoall over all ranks of MPI_COMM_WORLD.
 *
 * Plain C99 + MPI-1, so it builds with any mpicc:
 *
 *   mpicc -O2 collectives.c -o coll && mpirun -np 4 ./coll --impl mine
 *
 * What "size" means, per collective (bytes, K = 1024):
 *   bcast      the message the root broadcasts (size MPI_BYTEs).
 *   allreduce  the vector each rank contributes and gets back: size / 8
 *              MPI_DOUBLEs summed with MPI_SUM (sizes are rounded down to a
 *              multiple of 8; 8 B is one double; sizes under 8 B are skipped:
 *              no call, no line, so a list from 1 B times Bcast at every size
 *              and Allreduce from one double up).
 *   alltoall   the block each rank sends to each rank (itself included):
 *              every rank sends and receives nprocs * size bytes per call.
 *
 * How it is timed. Rank 0 drives: for each (collective, size) it first runs
 * one checked call (every rank verifies the bytes it got and reports to rank
 * 0, which aborts the job on any error before a number is printed), then the
 * scheme of bench_common.h: warm-up, calibration of the repetition count,
 * --trials timed trials. Before each trial rank 0 tells every rank (by
 * point-to-point messages, outside the timed region) how many calls to make;
 * the ranks meet in a point-to-point barrier, each times its own calls, and
 * the trial's time is the longest of all ranks' times. The reported time is
 * that divided by the number of calls: the time per operation, min and
 * median over the trials.
 *
 * Bcast is timed as mpptest does: call after call the root moves to the next
 * rank (each size gives every rank its turn), and each MPI_Bcast is followed
 * by an acknowledgement barrier written with point-to-point messages (every
 * other rank sends the root an empty message, the root then sends each of
 * them an empty release), so a broadcast cannot overlap the next one the way
 * pipelined broadcasts could. The barrier's time is included in the reported
 * time: nothing is subtracted. Allreduce and Alltoall are simply called back
 * to back; each call cannot complete anywhere before every rank has
 * contributed to it.
 *
 * --ops LIST picks and orders the collectives (default bcast,allreduce,alltoall).
 *
 * Output: impl,test,size,us_min,us_median,mbps with test = bcast, allreduce
 * or alltoall, us_* = microseconds per operation and mbps = size / us_min
 * (bytes of "size" per microsecond, not a bus bandwidth).
 */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <mpi.h>

#include "bench_common.h"

enum { TAG_CONTROL = 31, TAG_SYNC = 32, TAG_TIME = 33, TAG_ACK = 34, TAG_VERDICT = 35 };

enum coll_kind { COLL_BCAST, COLL_ALLREDUCE, COLL_ALLTOALL, COLL_NKINDS };
static const char *const coll_names[COLL_NKINDS] = {"bcast", "allreduce", "alltoall"};

/* Control words rank 0 sends to every rank before each step. */
enum { CTL_RUN = 1, CTL_VERIFY = 2, CTL_STOP = 3 };

struct coll_ctx {
    int rank, nprocs;
    enum coll_kind kind;
    unsigned char *sbuf; /* nprocs * maxsize bytes */
    unsigned char *rbuf;
    int next_root;       /* bcast root rotation, identical on every rank */
};

static void coll_check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "collectives: %s failed with error %d\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* Linear barrier of empty point-to-point messages through `root`: it returns
 * on the root after every rank has arrived, elsewhere after the root knew so. */
static void p2p_barrier(const struct coll_ctx *c, int root, int tag)
{
    char token = 0;
    if (c->rank == root) {
        for (int i = 0; i < c->nprocs; i++)
            if (i != root)
                coll_check(MPI_Recv(&token, 0, MPI_BYTE, i, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                           "MPI_Recv(barrier arrival)");
        for (int i = 0; i < c->nprocs; i++)
            if (i != root)
                coll_check(MPI_Send(&token, 0, MPI_BYTE, i, tag, MPI_COMM_WORLD),
                           "MPI_Send(barrier release)");
    } else {
        coll_check(MPI_Send(&token, 0, MPI_BYTE, root, tag, MPI_COMM_WORLD),
                   "MPI_Send(barrier arrival)");
        coll_check(MPI_Recv(&token, 0, MPI_BYTE, root, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                   "MPI_Recv(barrier release)");
    }
}

static int doubles_of(long size) { return (int)(size / (long)sizeof(double)); }

/* One call of the collective; bcast also moves the root and acknowledges. */
static void coll_once(struct coll_ctx *c, long size)
{
    switch (c->kind) {
    case COLL_BCAST: {
        int root = c->next_root;
        c->next_root = (root + 1) % c->nprocs;
        unsigned char *buf = c->rank == root ? c->sbuf : c->rbuf;
        MPI_Bcast(buf, (int)size, MPI_BYTE, root, MPI_COMM_WORLD);
        p2p_barrier(c, root, TAG_ACK);
        break;
    }
    case COLL_ALLREDUCE:
        MPI_Allreduce(c->sbuf, c->rbuf, doubles_of(size), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
        break;
    case COLL_ALLTOALL:
        MPI_Alltoall(c->sbuf, (int)size, MPI_BYTE, c->rbuf, (int)size, MPI_BYTE, MPI_COMM_WORLD);
        break;
    default:
        break;
    }
}

/* Byte k of what `from` contributes for `to` in a checked call. */
static unsigned char pattern(int from, int to, long k, long size)
{
    return (unsigned char)((unsigned long)(k * 7 + from * 31 + to * 17 + size) % 251 + 1);
}

/* One checked call on this rank; returns the number of wrong elements. */
static long coll_verify_local(struct coll_ctx *c, long size)
{
    long bad = 0;
    switch (c->kind) {
    case COLL_BCAST:
        /* every rank is root once, as in the timed calls */
        for (int root = 0; root < c->nprocs; root++) {
            unsigned char *buf = c->rank == root ? c->sbuf : c->rbuf;
            for (long k = 0; k < size; k++)
                buf[k] = c->rank == root ? pattern(root, 0, k, size) : 0;
            coll_check(MPI_Bcast(buf, (int)size, MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
            for (long k = 0; k < size; k++)
                bad += buf[k] != pattern(root, 0, k, size);
            p2p_barrier(c, root, TAG_ACK);
        }
        break;
    case COLL_ALLREDUCE: {
        /* small integers: the sum is exact in any order of evaluation */
        int n = doubles_of(size);
        double *in = (double *)(void *)c->sbuf, *out = (double *)(void *)c->rbuf;
        for (int k = 0; k < n; k++) {
            in[k] = (double)((c->rank + 1) * (k % 1000 + 1));
            out[k] = -1.0;
        }
        coll_check(MPI_Allreduce(in, out, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
        double ranks_sum = (double)c->nprocs * (double)(c->nprocs + 1) / 2.0;
        for (int k = 0; k < n; k++)
            bad += out[k] != ranks_sum * (double)(k % 1000 + 1);
        break;
    }
    case COLL_ALLTOALL:
        for (int to = 0; to < c->nprocs; to++)
            for (long k = 0; k < size; k++)
                c->sbuf[(long)to * size + k] = pattern(c->rank, to, k, size);
        memset(c->rbuf, 0, (size_t)(c->nprocs * size));
        coll_check(MPI_Alltoall(c->sbuf, (int)size, MPI_BYTE, c->rbuf, (int)size, MPI_BYTE,
                                MPI_COMM_WORLD),
                   "MPI_Alltoall");
        for (int from = 0; from < c->nprocs; from++)
            for (long k = 0; k < size; k++)
                bad += c->rbuf[(long)from * size + k] != pattern(from, c->rank, k, size);
        break;
    default:
        break;
    }
    return bad;
}

/* Every rank: time `reps` calls after a common start; returns own seconds. */
static double coll_time_local(struct coll_ctx *c, long size, long reps)
{
    p2p_barrier(c, 0, TAG_SYNC);
    double t0 = MPI_Wtime();
    for (long r = 0; r < reps; r++)
        coll_once(c, size);
    return MPI_Wtime() - t0;
}

static void send_control(const struct coll_ctx *c, long what, long size, long reps)
{
    long ctl[4] = {what, (long)c->kind, size, reps};
    for (int i = 1; i < c->nprocs; i++)
        coll_check(MPI_Send(ctl, 4, MPI_LONG, i, TAG_CONTROL, MPI_COMM_WORLD), "MPI_Send(control)");
}

/* Rank 0, through bench_measure: one trial; the slowest rank's time. */
static double coll_run(void *vctx, long size, long reps)
{
    struct coll_ctx *c = vctx;
    send_control(c, CTL_RUN, size, reps);
    double worst = coll_time_local(c, size, reps);
    for (int i = 1; i < c->nprocs; i++) {
        double t = 0.0;
        coll_check(MPI_Recv(&t, 1, MPI_DOUBLE, i, TAG_TIME, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                   "MPI_Recv(time)");
        if (t > worst)
            worst = t;
    }
    return worst;
}

/* Rank 0: one checked call everywhere; aborts the job if any rank saw wrong data. */
static void coll_verify(struct coll_ctx *c, long size)
{
    send_control(c, CTL_VERIFY, size, 1);
    long bad = coll_verify_local(c, size);
    if (bad != 0)
        fprintf(stderr, "collectives: %s of %ld bytes: rank 0 received %ld wrong elements\n",
                coll_names[c->kind], size, bad);
    long total = bad;
    for (int i = 1; i < c->nprocs; i++) {
        long b = 0;
        coll_check(MPI_Recv(&b, 1, MPI_LONG, i, TAG_VERDICT, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                   "MPI_Recv(verdict)");
        if (b != 0)
            fprintf(stderr, "collectives: %s of %ld bytes: rank %d received %ld wrong elements\n",
                    coll_names[c->kind], size, i, b);
        total += b;
    }
    if (total != 0) {
        fprintf(stderr, "collectives: %s returned wrong data; no time is reported\n",
                coll_names[c->kind]);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* Ranks other than 0: do what rank 0 says until it says stop. */
static void coll_follow(struct coll_ctx *c)
{
    for (;;) {
        long ctl[4];
        coll_check(MPI_Recv(ctl, 4, MPI_LONG, 0, TAG_CONTROL, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                   "MPI_Recv(control)");
        if (ctl[0] == CTL_STOP)
            return;
        c->kind = (enum coll_kind)ctl[1];
        if (ctl[0] == CTL_VERIFY) {
            long bad = coll_verify_local(c, ctl[2]);
            coll_check(MPI_Send(&bad, 1, MPI_LONG, 0, TAG_VERDICT, MPI_COMM_WORLD), "MPI_Send(verdict)");
        } else {
            double t = coll_time_local(c, ctl[2], ctl[3]);
            coll_check(MPI_Send(&t, 1, MPI_DOUBLE, 0, TAG_TIME, MPI_COMM_WORLD), "MPI_Send(time)");
        }
    }
}

struct coll_ops {
    enum coll_kind kinds[COLL_NKINDS * 2];
    int n;
};

static int coll_add_op(void *vops, const char *word)
{
    struct coll_ops *ops = vops;
    for (int k = 0; k < COLL_NKINDS; k++) {
        if (strcmp(word, coll_names[k]) == 0) {
            if (ops->n >= (int)(sizeof ops->kinds / sizeof ops->kinds[0]))
                return -1;
            ops->kinds[ops->n++] = (enum coll_kind)k;
            return 0;
        }
    }
    return -1;
}

static int coll_parse_option(void *vops, const char *arg, const char *val, int talk)
{
    struct coll_ops *ops = vops;
    if (strcmp(arg, "--ops") != 0)
        return 0;
    ops->n = 0;
    if (val == NULL || bench_for_each_word(val, coll_add_op, ops) < 0) {
        if (talk)
            fprintf(stderr, "collectives: --ops needs a list of bcast, allreduce, alltoall\n");
        return -1;
    }
    return 2;
}

static const long coll_sizes[] = {8, 64, 512, 4096, 32768, 262144, 1048576};
static const long coll_quick_sizes[] = {8, 4096, 262144};
static const struct bench_defaults coll_defaults = {
    coll_sizes, (int)(sizeof coll_sizes / sizeof coll_sizes[0]),
    coll_quick_sizes, (int)(sizeof coll_quick_sizes / sizeof coll_quick_sizes[0]),
    "8,64,512,4K,32K,256K,1M", "8,4K,256K",
    "impl,test,size,us_min,us_median,mbps",
};

int main(int argc, char **argv)
{
    int rank = 0, nprocs = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    struct coll_ops ops = {{COLL_BCAST, COLL_ALLREDUCE, COLL_ALLTOALL}, COLL_NKINDS};
    struct bench_extra extra = {coll_parse_option, &ops,
                                "  --ops LIST        collectives to time, in this order "
                                "(default bcast,allreduce,alltoall)\n"};
    struct bench_options opt;
    int prc = bench_parse_args_ext(argc, argv, &opt, "mpi", "collectives",
                                    "MPI_Bcast (root rotating, acknowledged), MPI_Allreduce "
                                    "(MPI_SUM of size/8 doubles) and MPI_Alltoall (size bytes "
                                    "per pair) over all ranks",
                                    rank == 0, &coll_defaults, &extra);
    if (prc != 0) {
        MPI_Finalize();
        return prc < 0 ? 1 : 0;
    }
    if (nprocs < 2) {
        if (rank == 0)
            fprintf(stderr, "collectives: needs at least 2 ranks (got %d); try mpirun -np 4\n", nprocs);
        MPI_Finalize();
        return 1;
    }

    long maxsize = bench_max_size(&opt);
    if (maxsize > 2147483647L / nprocs) {
        if (rank == 0)
            fprintf(stderr, "collectives: nprocs x size must fit an MPI int count\n");
        MPI_Finalize();
        return 1;
    }
    size_t bytes = (size_t)nprocs * (size_t)(maxsize > 0 ? maxsize : 1);
    /* doubles live in these buffers: malloc's alignment suits them */
    unsigned char *sbuf = malloc(bytes);
    unsigned char *rbuf = malloc(bytes);
    if (sbuf == NULL || rbuf == NULL) {
        fprintf(stderr, "collectives: cannot allocate 2 x %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    for (size_t i = 0; i < bytes; i++)
        sbuf[i] = (unsigned char)(i % 251 + 1);
    memset(rbuf, 0, bytes);

    struct coll_ctx ctx = {rank, nprocs, COLL_BCAST, sbuf, rbuf, 0};
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        const long min_reps = opt.min_reps;
        bench_print_header(&opt);
        for (int k = 0; k < ops.n; k++) {
            ctx.kind = ops.kinds[k];
            opt.test = coll_names[ctx.kind];
            /* a bcast trial gives every rank its turn as root */
            opt.min_reps = ctx.kind == COLL_BCAST ? (nprocs < opt.max_reps ? nprocs : opt.max_reps)
                                                  : min_reps;
            for (int i = 0; i < opt.nsizes; i++) {
                long size = opt.sizes[i];
                if (ctx.kind == COLL_ALLREDUCE) {
                    if (size < (long)sizeof(double))
                        continue; /* less than one double: nothing to reduce */
                    size = (long)doubles_of(size) * (long)sizeof(double);
                }
                coll_verify(&ctx, size);
                bench_measure(&opt, size, 1.0, coll_run, &ctx);
            }
        }
        send_control(&ctx, CTL_STOP, 0, 0);
    } else {
        coll_follow(&ctx);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
