/* completion: how long one MPI_Bcast takes from the moment the root calls it
 * until the last rank has the whole message, the time the P-LogP model
 * predicts (tools/bench/plogp compares the two).
 *
 * Plain C99 + MPI-1:
 *
 *   mpicc -O2 completion.c -o completion && mpirun -np 4 ./completion
 *
 * The clocks of different processes are compared, so every rank must run on
 * one machine (CLOCK_MONOTONIC is shared there), as the wide-area emulation
 * that this is meant for requires anyway.
 *
 * Per size: one checked call (every rank verifies the bytes it got; any
 * error aborts the job before a number is printed), then --trials timed
 * broadcasts of one call each. Before each, the ranks meet in MPI_Barrier and
 * the root waits --settle-ms (default 50) so that every rank has entered
 * MPI_Bcast and posted its receives when the root starts, as the model
 * assumes. The root notes the time it calls MPI_Bcast, every rank the time its
 * call returns; the trial's time is the latest return less the root's start.
 * us_min and us_median are over the trials.
 *
 * Output: impl,test,size,us_min,us_median,mbps (mbps = size / us_min).
 */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <mpi.h>

#include "bench_common.h"

struct completion_options {
    double settle_s;
    int root;
};

static int completion_parse_option(void *vctx, const char *arg, const char *val, int talk)
{
    struct completion_options *c = (struct completion_options *)vctx;
    if (strcmp(arg, "--settle-ms") == 0 && val != NULL) {
        c->settle_s = atof(val) / 1000.0;
        if (!(c->settle_s >= 0.0)) {
            if (talk)
                fprintf(stderr, "completion: --settle-ms takes milliseconds, not negative\n");
            return -1;
        }
        return 2;
    }
    if (strcmp(arg, "--root") == 0 && val != NULL) {
        c->root = atoi(val);
        return 2;
    }
    return 0;
}

static void check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "completion: %s failed with error %d\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void sleep_s(double s)
{
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* One checked broadcast of `size` bytes: every rank compares what it got. */
static void verify(unsigned char *buf, long size, int root, int rank)
{
    long i, bad = 0, total = 0;
    for (i = 0; i < size; i++)
        buf[i] = rank == root ? (unsigned char)(i % 251 + 1) : 0;
    check(MPI_Bcast(buf, (int)size, MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
    for (i = 0; i < size; i++)
        bad += buf[i] != (unsigned char)(i % 251 + 1);
    check(MPI_Allreduce(&bad, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
    if (total != 0) {
        if (rank == root)
            fprintf(stderr, "completion: a broadcast of %ld bytes delivered %ld wrong bytes\n", size, total);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
}

/* Microseconds from the root's call to the last rank's return, on the root. */
static double timed(unsigned char *buf, long size, int root, int rank, int nprocs, double settle_s, double *ends)
{
    double start = 0, end, latest;
    int r;
    check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier");
    if (rank == root) {
        sleep_s(settle_s);
        start = bench_now();
    }
    check(MPI_Bcast(buf, (int)size, MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
    end = bench_now();
    check(MPI_Gather(&end, 1, MPI_DOUBLE, ends, 1, MPI_DOUBLE, root, MPI_COMM_WORLD), "MPI_Gather");
    if (rank != root)
        return 0;
    latest = ends[0];
    for (r = 1; r < nprocs; r++)
        if (ends[r] > latest)
            latest = ends[r];
    return (latest - start) * 1e6;
}

static const long completion_sizes[] = {1024, 4096, 16384, 65536, 262144, 1048576, 4194304};
static const long completion_quick_sizes[] = {0, 1024, 65536};
static const struct bench_defaults completion_defaults = {
    completion_sizes, (int)(sizeof completion_sizes / sizeof completion_sizes[0]),
    completion_quick_sizes, (int)(sizeof completion_quick_sizes / sizeof completion_quick_sizes[0]),
    "1K,4K,16K,64K,256K,1M,4M", "0,1K,64K",
    "impl,test,size,us_min,us_median,mbps",
};

int main(int argc, char **argv)
{
    int rank = 0, nprocs = 0, i, t;
    struct completion_options copt = {0.05, 0};
    struct bench_extra extra = {completion_parse_option, &copt,
                                "  --settle-ms MS    the root's wait after the barrier (default 50)\n"
                                "  --root R          the broadcast's root (default 0)\n"};
    struct bench_options opt;
    double times[BENCH_MAX_TRIALS], *ends;
    unsigned char *buf;
    long maxsize;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    i = bench_parse_args_ext(argc, argv, &opt, "mpi", "bcast_completion",
                             "one MPI_Bcast from the root's call to the last rank's return (one machine)",
                             rank == 0, &completion_defaults, &extra);
    if (i != 0) {
        MPI_Finalize();
        return i < 0 ? 1 : 0;
    }
    if (copt.root < 0 || copt.root >= nprocs) {
        if (rank == 0)
            fprintf(stderr, "completion: --root %d is no rank of %d\n", copt.root, nprocs);
        MPI_Finalize();
        return 1;
    }
    maxsize = bench_max_size(&opt);
    buf = malloc((size_t)(maxsize > 0 ? maxsize : 1));
    ends = malloc(sizeof(double) * (size_t)nprocs);
    if (buf == NULL || ends == NULL) {
        fprintf(stderr, "completion: cannot allocate %ld bytes\n", maxsize);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    if (rank == copt.root && opt.header)
        printf("%s\n", opt.columns);
    for (i = 0; i < opt.nsizes; i++) {
        const long size = opt.sizes[i];
        verify(buf, size, copt.root, rank);
        for (t = 0; t < opt.trials; t++)
            times[t] = timed(buf, size, copt.root, rank, nprocs, copt.settle_s, ends);
        if (rank == copt.root) {
            qsort(times, (size_t)opt.trials, sizeof times[0], bench_cmp_double);
            printf("%s,%s,%ld,%.2f,%.2f,%.2f\n", opt.impl, opt.test, size, times[0], times[opt.trials / 2],
                   times[0] > 0 ? (double)size / times[0] : 0.0);
            fflush(stdout);
        }
    }
    free(buf);
    free(ends);
    MPI_Finalize();
    return 0;
}
