/* Shared by the Strata benchmarks (pingpong, collectives, socket_pingpong,
 * memcpy_bw).
 *
 * Header-only and plain C99 + POSIX so each benchmark stays one file that any
 * MPI wrapper (our mpicc, mpicc.mpich, mpicc.openmpi) or a plain cc can build.
 *
 * The measuring scheme is mpptest's: for each message size, warm up, calibrate
 * a repetition count so a trial lasts target/trials seconds, run several
 * trials, and report the minimum and the median over the trials of the time
 * per operation. Output is one CSV line per size:
 *
 *   impl,test,size,oneway_us_min,oneway_us_median,mbps
 *
 * where mbps = size / oneway_us_min (bytes per microsecond = MB/s, MB = 1e6).
 * A benchmark whose operation is not a one-way message (collectives) names the
 * time columns us_min,us_median instead; the column order is the same.
 */
#ifndef STRATA_BENCH_COMMON_H
#define STRATA_BENCH_COMMON_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BENCH_MAX_SIZES 64
#define BENCH_MAX_TRIALS 101

struct bench_options {
    const char *impl;      /* label in the first CSV column */
    const char *test;      /* label in the second CSV column */
    long sizes[BENCH_MAX_SIZES];
    int nsizes;
    int trials;            /* timed trials per size; min and median are over these */
    double target_s;       /* wall time budget per size, all trials together */
    long max_reps;         /* cap on repetitions per trial */
    long min_reps;         /* floor on repetitions per trial */
    int header;            /* print the CSV header line first */
    const char *columns;   /* the CSV header line */
};

/* What a benchmark uses when no option says otherwise. */
struct bench_defaults {
    const long *sizes;     /* --sizes default */
    int nsizes;
    const long *quick_sizes; /* sizes of --quick */
    int nquick;
    const char *sizes_text;  /* both lists as the usage text shows them */
    const char *quick_text;
    const char *columns;   /* CSV header line */
};

/* A program's own options, beside the common ones. `parse` is called for each
 * argument the common parser does not know, with the next argument (or NULL)
 * as `val`. It returns how many arguments it used (1 for a flag, 2 for an
 * option with its value), 0 when `arg` is not one of its options, or -1 for a
 * bad value (after saying why, if `talk`). `usage` is printed under the
 * common options' help, one line per option, each ending in a newline. */
typedef int (*bench_extra_fn)(void *ctx, const char *arg, const char *val, int talk);
struct bench_extra {
    bench_extra_fn parse;
    void *ctx;
    const char *usage;
};

/* One run of `reps` operations of `size` bytes; returns elapsed seconds. */
typedef double (*bench_run_fn)(void *ctx, long size, long reps);

static inline double bench_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* "64", "4K", "4k", "1M", "2G" -> bytes; -1 when malformed. */
static inline long bench_parse_size(const char *s)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || v < 0)
        return -1;
    switch (*end) {
    case '\0': return v;
    case 'k': case 'K': v *= 1024L; end++; break;
    case 'm': case 'M': v *= 1024L * 1024L; end++; break;
    case 'g': case 'G': v *= 1024L * 1024L * 1024L; end++; break;
    default: return -1;
    }
    if (*end == 'B' || *end == 'b')
        end++;
    return *end == '\0' ? v : -1;
}

/* Comma-separated list of sizes; returns the count or -1. */
static inline int bench_parse_size_list(const char *list, long *out, int max)
{
    char buf[1024];
    int n = 0;
    if (strlen(list) >= sizeof buf)
        return -1;
    strcpy(buf, list);
    for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ",")) {
        long v = bench_parse_size(tok);
        if (v < 0 || n >= max)
            return -1;
        out[n++] = v;
    }
    return n > 0 ? n : -1;
}

static inline void bench_usage(FILE *f, const char *prog, const char *what,
                               const struct bench_defaults *d, const struct bench_extra *x)
{
    fprintf(f,
            "usage: %s [options]\n"
            "  %s\n"
            "options:\n"
            "  --impl NAME       label for the impl column (default: $BENCH_IMPL, else the built-in name)\n"
            "  --sizes LIST      comma-separated sizes, K/M suffixes allowed\n"
            "                    (default %s)\n"
            "  --trials N        timed trials per size (default 5)\n"
            "  --time SECONDS    time budget per size, all trials together (default 0.3)\n"
            "  --max-reps N      cap on repetitions per trial (default 100000)\n"
            "  --quick           smoke run: sizes %s, 2 trials, 0.01 s per size\n"
            "  --no-header       do not print the CSV header line\n"
            "  --help            this text\n"
            "%s"
            "output: CSV lines %s\n",
            prog, what, d->sizes_text, d->quick_text,
            (x != NULL && x->usage != NULL) ? x->usage : "", d->columns);
}

/* mpptest's ladder: 0 and 8 B for latency, then x8 steps up to 4 MB. */
static const long bench_default_sizes[] = {
    0, 8, 64, 512, 4096, 32768, 262144, 1048576, 4194304,
};
static const long bench_default_quick_sizes[] = {0, 8, 4096, 262144, 1048576};

/* The defaults of the one-way benchmarks (ping-pongs, memcpy). */
static const struct bench_defaults bench_oneway_defaults = {
    bench_default_sizes, (int)(sizeof bench_default_sizes / sizeof bench_default_sizes[0]),
    bench_default_quick_sizes,
    (int)(sizeof bench_default_quick_sizes / sizeof bench_default_quick_sizes[0]),
    "0,8,64,512,4K,32K,256K,1M,4M", "0,8,4K,256K,1M",
    "impl,test,size,oneway_us_min,oneway_us_median,mbps",
};

/* The defaults before any argument: `d`'s sizes, 5 trials of 0.3 s. */
static inline void bench_defaults_set(struct bench_options *o, const char *default_impl,
                                      const char *test, const struct bench_defaults *d)
{
    const char *env = getenv("BENCH_IMPL");
    o->impl = (env != NULL && env[0] != '\0') ? env : default_impl;
    o->test = test;
    o->nsizes = d->nsizes;
    memcpy(o->sizes, d->sizes, (size_t)d->nsizes * sizeof d->sizes[0]);
    o->columns = d->columns;
    o->trials = 5;
    o->target_s = 0.3;
    o->max_reps = 100000;
    o->min_reps = 2;
    o->header = 1;
}

/* --quick only changes defaults, so explicit options win wherever they are. */
static inline void bench_quick_set(int argc, char **argv, struct bench_options *o,
                                   const struct bench_defaults *d)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            o->nsizes = d->nquick;
            memcpy(o->sizes, d->quick_sizes, (size_t)d->nquick * sizeof d->quick_sizes[0]);
            o->trials = 2;
            o->target_s = 0.01;
            o->max_reps = 1000;
            o->min_reps = 1;
        }
    }
}

/* One option that takes a value: 1 when `a` is one and `val` was taken,
 * 0 when `a` is not such an option, -1 when `val` is refused (said when
 * `talk`). */
static inline int bench_value_option(struct bench_options *o, const char *prog, const char *a,
                                     const char *val, int talk)
{
    const char *refusal = NULL;
    if (strcmp(a, "--impl") == 0) {
        o->impl = val;
    } else if (strcmp(a, "--sizes") == 0) {
        o->nsizes = bench_parse_size_list(val, o->sizes, BENCH_MAX_SIZES);
        if (o->nsizes < 0) {
            if (talk)
                fprintf(stderr, "%s: bad size list '%s' (example: 0,8,4K,1M)\n", prog, val);
            return -1;
        }
    } else if (strcmp(a, "--trials") == 0) {
        o->trials = atoi(val);
        if (o->trials < 1 || o->trials > BENCH_MAX_TRIALS) {
            if (talk)
                fprintf(stderr, "%s: --trials must be 1..%d\n", prog, BENCH_MAX_TRIALS);
            return -1;
        }
    } else if (strcmp(a, "--time") == 0) {
        o->target_s = atof(val);
        if (!(o->target_s > 0.0))
            refusal = "--time must be > 0";
    } else if (strcmp(a, "--max-reps") == 0) {
        o->max_reps = atol(val);
        if (o->max_reps < 1)
            refusal = "--max-reps must be >= 1";
    } else {
        return 0;
    }
    if (refusal != NULL) {
        if (talk)
            fprintf(stderr, "%s: %s\n", prog, refusal);
        return -1;
    }
    return 1;
}

static inline void bench_unknown_say(const char *prog, const char *a, int last, const char *what,
                                     const struct bench_defaults *d, const struct bench_extra *x)
{
    if (last)
        fprintf(stderr, "%s: unknown option or missing value: %s\n", prog, a);
    else
        fprintf(stderr, "%s: unknown option %s\n", prog, a);
    bench_usage(stderr, prog, what, d, x);
}

/* Parses argv into *o, handing arguments it does not know to `x` (may be
 * NULL). Returns 0 to go on, 1 after --help, -1 on error. Messages are
 * printed only when `talk` is non-zero (one MPI rank speaks). Unknown
 * arguments are errors. */
static inline int bench_parse_args_ext(int argc, char **argv, struct bench_options *o,
                                       const char *default_impl, const char *test,
                                       const char *what, int talk,
                                       const struct bench_defaults *d,
                                       const struct bench_extra *x)
{
    const char *prog = argc > 0 ? argv[0] : "bench";
    bench_defaults_set(o, default_impl, test, d);
    bench_quick_set(argc, argv, o, d);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *val = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            if (talk)
                bench_usage(stdout, prog, what, d, x);
            return 1;
        }
        if (strcmp(a, "--quick") == 0)
            continue; /* applied before the loop */
        if (strcmp(a, "--no-header") == 0) {
            o->header = 0;
            continue;
        }
        int used = (x != NULL && x->parse != NULL) ? x->parse(x->ctx, a, val, talk) : 0;
        if (used == 0 && val != NULL) {
            used = bench_value_option(o, prog, a, val, talk);
            if (used > 0)
                used = 2;
        }
        if (used < 0)
            return -1;
        if (used == 0) {
            if (talk)
                bench_unknown_say(prog, a, val == NULL, what, d, x);
            return -1;
        }
        i += used - 1;
    }
    if (o->min_reps > o->max_reps)
        o->min_reps = o->max_reps;
    return 0;
}

static inline int bench_parse_args_with(int argc, char **argv, struct bench_options *o,
                                        const char *default_impl, const char *test,
                                        const char *what, int talk,
                                        const struct bench_defaults *d)
{
    return bench_parse_args_ext(argc, argv, o, default_impl, test, what, talk, d, NULL);
}

/* "a,b,c" -> calls `each(ctx, word)` per word; returns -1 as soon as one does. */
static inline int bench_for_each_word(const char *list, int (*each)(void *ctx, const char *word),
                                      void *ctx)
{
    char buf[256];
    if (strlen(list) >= sizeof buf)
        return -1;
    strcpy(buf, list);
    int n = 0;
    for (char *tok = strtok(buf, ","); tok != NULL; tok = strtok(NULL, ","), n++)
        if (each(ctx, tok) < 0)
            return -1;
    return n > 0 ? n : -1;
}

/* The one-way benchmarks' defaults: pingpong, socket_pingpong, memcpy_bw. */
static inline int bench_parse_args(int argc, char **argv, struct bench_options *o,
                                   const char *default_impl, const char *test,
                                   const char *what, int talk)
{
    return bench_parse_args_with(argc, argv, o, default_impl, test, what, talk,
                                 &bench_oneway_defaults);
}

static inline long bench_max_size(const struct bench_options *o)
{
    long m = 0;
    for (int i = 0; i < o->nsizes; i++)
        if (o->sizes[i] > m)
            m = o->sizes[i];
    return m;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static inline void bench_print_header(const struct bench_options *o)
{
    if (o->header)
        printf("%s\n", o->columns);
    fflush(stdout);
}

/* Measures one size: warm-up and calibration, then o->trials timed trials.
 * `div` converts elapsed time per repetition into the reported unit of one
 * operation (2 for a round trip reported as one-way time, 1 for memcpy).
 * Prints the CSV line. */
static inline void bench_measure(const struct bench_options *o, long size, double div,
                                 bench_run_fn run, void *ctx)
{
    /* Calibration: grow the repetition count until one run lasts long
     * enough to be timed well, then scale to the per-trial budget. */
    const double per_trial = o->target_s / o->trials;
    const double calib_floor = per_trial < 0.005 ? per_trial : 0.005;
    /* The very first operations pay for lazy connection set-up, page faults
     * and cold caches: run a few and throw their time away. */
    (void)run(ctx, size, o->max_reps < 4 ? o->max_reps : 4);
    long reps = 1;
    double t = run(ctx, size, reps);
    while (t < calib_floor && reps < o->max_reps) {
        reps *= 2;
        if (reps > o->max_reps)
            reps = o->max_reps;
        t = run(ctx, size, reps);
    }
    double per_rep = t / (double)reps;
    long trial_reps = per_rep > 0.0 ? (long)(per_trial / per_rep) : o->max_reps;
    if (trial_reps > o->max_reps)
        trial_reps = o->max_reps;
    if (trial_reps < o->min_reps)
        trial_reps = o->min_reps;

    double samples[BENCH_MAX_TRIALS];
    for (int k = 0; k < o->trials; k++)
        samples[k] = run(ctx, size, trial_reps) / (double)trial_reps / div * 1e6;
    qsort(samples, (size_t)o->trials, sizeof samples[0], bench_cmp_double);
    double tmin = samples[0];
    double tmed = (o->trials % 2) ? samples[o->trials / 2]
                                  : 0.5 * (samples[o->trials / 2 - 1] + samples[o->trials / 2]);
    double mbps = (size > 0 && tmin > 0.0) ? (double)size / tmin : 0.0;
    printf("%s,%s,%ld,%.3f,%.3f,%.2f\n", o->impl, o->test, size, tmin, tmed, mbps);
    fflush(stdout);
}

#endif /* STRATA_BENCH_COMMON_H */
