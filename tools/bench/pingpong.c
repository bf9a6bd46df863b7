/* pingpong: mpptest-style MPI ping-pong between ranks 0 and 1.
 *
 * Rank 0 sends `size` bytes to rank 1 with MPI_Send, rank 1 receives them and
 * sends the same bytes back; one-way time is half the round trip. Plain C99 +
 * MPI-1, so it builds with any mpicc:
 *
 *   mpicc -O2 pingpong.c -o pingpong && mpirun -np 2 ./pingpong --impl mine
 *
 * The receive categories of mpptest (--recv, a list, each measured over all
 * sizes in turn; the CSV `test` column names the category):
 *   specified  (test "pingpong") MPI_Recv from the peer, nothing else posted.
 *   pending    (test "pingpong-pending") the same, while both ping-pong ranks
 *              keep --pending N (default 4) receives with other tags posted
 *              (MPI_Irecv) from the pending source: the peer, or rank R with
 *              --pending-from R. They must be searched past on every match,
 *              and when R is reached by a slower method than the peer, that
 *              method must be polled too (Strata's skip-poll sweep runs this
 *              with 3 ranks, R = 2 reachable over TCP only).
 *   anysource  (test "pingpong-anysource") MPI_Recv from MPI_ANY_SOURCE.
 * --datatype byte|int|double sends the sizes as that many bytes of MPI_BYTE
 * (default), MPI_INT or MPI_DOUBLE (a size not a multiple of the type's is
 * cut down to one): between processes of different data representations
 * (STRATA_REPRESENTATION_TEST=1 on one rank) typed data is converted, so the
 * difference to byte is what conversion costs.
 *
 * The pending receives are posted when the category starts (outside any timed
 * region) and completed when it ends: their source sends the matching empty
 * messages, so every rank finishes cleanly on any MPI.
 *
 * Rank 0 drives with control messages (tag TAG_CONTROL) outside the timed
 * region: before each timed run it tells rank 1 the size and repetition
 * count. Ranks other than 0, 1 and the pending source only wait. The echoed
 * data is checked after every run, so a broken transport cannot produce a
 * fast number.
 */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <mpi.h>

#include "bench_common.h"

enum { TAG_CONTROL = 17, TAG_DATA = 18, TAG_PENDING = 1000 };

/* Control commands rank 0 sends (ctl[0]); ctl[1], ctl[2] are arguments. */
enum { CMD_RUN = 1, CMD_BEGIN = 2, CMD_END = 3, CMD_STOP = 4 };

enum pp_category { CAT_SPECIFIED, CAT_PENDING, CAT_ANYSOURCE, CAT_N };
static const char *const cat_names[CAT_N] = {"specified", "pending", "anysource"};
static const char *const cat_tests[CAT_N] = {"pingpong", "pingpong-pending", "pingpong-anysource"};

#define PP_MAX_PENDING 64

struct pp_config {
    enum pp_category cats[CAT_N * 4];
    int ncats;
    int npending;       /* receives kept posted in the pending category */
    int pending_from;   /* -1: the peer */
    MPI_Datatype type;  /* what the data is sent as (--datatype) */
    int type_size;
};

struct pp_ctx {
    int rank;
    unsigned char *sbuf;
    unsigned char *rbuf;
    enum pp_category cat;
    const struct pp_config *cfg;
    MPI_Request pending[PP_MAX_PENDING];
    char pending_buf[PP_MAX_PENDING];
};

static void pp_check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "pingpong: %s failed with error %d\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

static void pp_control(long cmd, long a, long b, int to)
{
    long ctl[3] = {cmd, a, b};
    pp_check(MPI_Send(ctl, 3, MPI_LONG, to, TAG_CONTROL, MPI_COMM_WORLD), "MPI_Send(control)");
}

/* Whose pending receives a ping-pong rank posts. */
static int pp_pending_source(const struct pp_ctx *c)
{
    return c->cfg->pending_from < 0 ? 1 - c->rank : c->cfg->pending_from;
}

static int pp_recv_source(const struct pp_ctx *c)
{
    return c->cat == CAT_ANYSOURCE ? MPI_ANY_SOURCE : 1 - c->rank;
}

/* Ranks 0 and 1 at the start of a category. */
static void pp_begin(struct pp_ctx *c)
{
    if (c->cat != CAT_PENDING)
        return;
    int src = pp_pending_source(c);
    for (int k = 0; k < c->cfg->npending; k++)
        pp_check(MPI_Irecv(&c->pending_buf[k], 1, MPI_BYTE, src, TAG_PENDING + k, MPI_COMM_WORLD,
                           &c->pending[k]),
                 "MPI_Irecv(pending)");
}

/* Ranks 0 and 1 at the end of a category: when the peer is the pending
 * source, each sends the other what its pending receives wait for. */
static void pp_end(struct pp_ctx *c)
{
    if (c->cat != CAT_PENDING)
        return;
    int n = c->cfg->npending;
    MPI_Status st[PP_MAX_PENDING]; /* not MPI_STATUSES_IGNORE: some compilers warn on it */
    if (c->cfg->pending_from < 0) {
        MPI_Request sends[PP_MAX_PENDING];
        char token = 0;
        for (int k = 0; k < n; k++)
            pp_check(MPI_Isend(&token, 0, MPI_BYTE, 1 - c->rank, TAG_PENDING + k, MPI_COMM_WORLD,
                               &sends[k]),
                     "MPI_Isend(pending)");
        pp_check(MPI_Waitall(n, sends, st), "MPI_Waitall(pending sends)");
    }
    pp_check(MPI_Waitall(n, c->pending, st), "MPI_Waitall(pending receives)");
}

/* The pending source when it is a third rank: on each CMD_END, send ranks 0
 * and 1 what their pending receives wait for. */
static void pp_pending_source_loop(int npending)
{
    for (;;) {
        long ctl[3];
        pp_check(MPI_Recv(ctl, 3, MPI_LONG, 0, TAG_CONTROL, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 "MPI_Recv(control)");
        if (ctl[0] == CMD_STOP)
            return;
        char token = 0;
        for (int to = 0; to < 2; to++)
            for (int k = 0; k < npending; k++)
                pp_check(MPI_Send(&token, 0, MPI_BYTE, to, TAG_PENDING + k, MPI_COMM_WORLD),
                         "MPI_Send(pending)");
    }
}

/* Rank 0: tell rank 1 what to do, then time `reps` round trips. */
static double pp_run(void *vctx, long size, long reps)
{
    struct pp_ctx *c = vctx;
    MPI_Status st;
    const int src = pp_recv_source(c);
    const MPI_Datatype type = c->cfg->type;
    const int n = (int)(size / c->cfg->type_size);
    memset(c->rbuf, 0, (size_t)size);
    pp_control(CMD_RUN, size, reps, 1);

    double t0 = MPI_Wtime();
    for (long r = 0; r < reps; r++) {
        MPI_Send(c->sbuf, n, type, 1, TAG_DATA, MPI_COMM_WORLD);
        MPI_Recv(c->rbuf, n, type, src, TAG_DATA, MPI_COMM_WORLD, &st);
    }
    double t1 = MPI_Wtime();

    if (reps > 0) {
        int count = -1;
        MPI_Get_count(&st, type, &count);
        if (count != n || st.MPI_SOURCE != 1 ||
            memcmp(c->sbuf, c->rbuf, (size_t)n * (size_t)c->cfg->type_size) != 0) {
            fprintf(stderr, "pingpong: echoed data of size %ld is wrong (count %d, source %d)\n",
                    size, count, st.MPI_SOURCE);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    return t1 - t0;
}

/* Rank 1: echo until told to stop. */
static void pp_echo(struct pp_ctx *c)
{
    for (;;) {
        long ctl[3];
        MPI_Status st;
        pp_check(MPI_Recv(ctl, 3, MPI_LONG, 0, TAG_CONTROL, MPI_COMM_WORLD, &st),
                 "MPI_Recv(control)");
        if (ctl[0] == CMD_STOP)
            return;
        if (ctl[0] == CMD_BEGIN) {
            c->cat = (enum pp_category)ctl[1];
            pp_begin(c);
            continue;
        }
        if (ctl[0] == CMD_END) {
            pp_end(c);
            continue;
        }
        const int n = (int)(ctl[1] / c->cfg->type_size);
        const int src = pp_recv_source(c);
        for (long r = 0; r < ctl[2]; r++) {
            MPI_Recv(c->rbuf, n, c->cfg->type, src, TAG_DATA, MPI_COMM_WORLD, &st);
            MPI_Send(c->rbuf, n, c->cfg->type, 0, TAG_DATA, MPI_COMM_WORLD);
        }
    }
}

static int pp_add_category(void *vcfg, const char *word)
{
    struct pp_config *cfg = vcfg;
    if (strcmp(word, "all") == 0) {
        for (int k = 0; k < CAT_N; k++)
            if (pp_add_category(cfg, cat_names[k]) < 0)
                return -1;
        return 0;
    }
    for (int k = 0; k < CAT_N; k++) {
        if (strcmp(word, cat_names[k]) == 0) {
            if (cfg->ncats >= (int)(sizeof cfg->cats / sizeof cfg->cats[0]))
                return -1;
            cfg->cats[cfg->ncats++] = (enum pp_category)k;
            return 0;
        }
    }
    return -1;
}

static int pp_parse_option(void *vcfg, const char *arg, const char *val, int talk)
{
    struct pp_config *cfg = vcfg;
    int is_recv = strcmp(arg, "--recv") == 0;
    int is_pending = strcmp(arg, "--pending") == 0;
    int is_from = strcmp(arg, "--pending-from") == 0;
    int is_type = strcmp(arg, "--datatype") == 0;
    if (!is_recv && !is_pending && !is_from && !is_type)
        return 0;
    if (val == NULL) {
        if (talk)
            fprintf(stderr, "pingpong: %s needs a value\n", arg);
        return -1;
    }
    if (is_type) {
        static const char *const names[] = {"byte", "int", "double"};
        const MPI_Datatype types[] = {MPI_BYTE, MPI_INT, MPI_DOUBLE};
        const int sizes[] = {1, (int)sizeof(int), (int)sizeof(double)};
        for (int k = 0; k < 3; k++) {
            if (strcmp(val, names[k]) == 0) {
                cfg->type = types[k];
                cfg->type_size = sizes[k];
                return 2;
            }
        }
        if (talk)
            fprintf(stderr, "pingpong: bad --datatype '%s' (byte, int or double)\n", val);
        return -1;
    }
    if (is_recv) {
        cfg->ncats = 0;
        if (bench_for_each_word(val, pp_add_category, cfg) < 0) {
            if (talk)
                fprintf(stderr, "pingpong: bad --recv '%s' (a list of specified, pending, "
                                "anysource, or all)\n", val);
            return -1;
        }
    } else if (is_pending) {
        cfg->npending = atoi(val);
        if (cfg->npending < 1 || cfg->npending > PP_MAX_PENDING) {
            if (talk)
                fprintf(stderr, "pingpong: --pending must be 1..%d\n", PP_MAX_PENDING);
            return -1;
        }
    } else {
        cfg->pending_from = atoi(val);
        if (cfg->pending_from < 1) {
            if (talk)
                fprintf(stderr, "pingpong: --pending-from must be a rank >= 1 (1 = the peer)\n");
            return -1;
        }
        if (cfg->pending_from == 1)
            cfg->pending_from = -1;
    }
    return 2;
}

static const char pp_usage[] =
    "  --recv LIST       receive categories, each over all sizes: specified, pending,\n"
    "                    anysource, or all (default specified)\n"
    "  --pending N       receives kept posted in the pending category (default 4)\n"
    "  --pending-from R  their source: 1 = the peer (default), or a third rank R\n"
    "  --datatype T      send the data as byte (default), int or double\n";

int main(int argc, char **argv)
{
    int rank = 0, nprocs = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    struct pp_config cfg = {{CAT_SPECIFIED}, 0, 4, -1, MPI_BYTE, 1};
    struct bench_extra extra = {pp_parse_option, &cfg, pp_usage};
    struct bench_options opt;
    int prc = bench_parse_args_ext(argc, argv, &opt, "mpi", "pingpong",
                                   "MPI ping-pong between ranks 0 and 1 (run with 2 or more ranks)",
                                   rank == 0, &bench_oneway_defaults, &extra);
    if (prc != 0) {
        MPI_Finalize();
        return prc < 0 ? 1 : 0;
    }
    if (cfg.ncats == 0)
        cfg.ncats = 1; /* cats[0] is CAT_SPECIFIED */
    if (nprocs < 2 || cfg.pending_from >= nprocs) {
        if (rank == 0)
            fprintf(stderr, "pingpong: needs at least 2 ranks, and more than --pending-from "
                            "(got %d); try mpirun -np 2\n", nprocs);
        MPI_Finalize();
        return 1;
    }

    long maxsize = bench_max_size(&opt);
    if (maxsize > 2147483647L) {
        if (rank == 0)
            fprintf(stderr, "pingpong: sizes above 2 GiB do not fit an MPI int count\n");
        MPI_Finalize();
        return 1;
    }
    size_t bytes = (size_t)(maxsize > 0 ? maxsize : 1);
    unsigned char *sbuf = malloc(bytes);
    unsigned char *rbuf = malloc(bytes);
    if (sbuf == NULL || rbuf == NULL) {
        fprintf(stderr, "pingpong: cannot allocate 2 x %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    for (size_t i = 0; i < bytes; i++)
        sbuf[i] = (unsigned char)(i % 251 + 1);
    memset(rbuf, 0, bytes);

    struct pp_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.rank = rank;
    ctx.sbuf = sbuf;
    ctx.rbuf = rbuf;
    ctx.cfg = &cfg;

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        bench_print_header(&opt);
        for (int k = 0; k < cfg.ncats; k++) {
            ctx.cat = cfg.cats[k];
            opt.test = cat_tests[ctx.cat];
            pp_control(CMD_BEGIN, ctx.cat, 0, 1);
            pp_begin(&ctx);
            for (int i = 0; i < opt.nsizes; i++)
                bench_measure(&opt, opt.sizes[i], 2.0, pp_run, &ctx);
            pp_control(CMD_END, 0, 0, 1);
            if (ctx.cat == CAT_PENDING && cfg.pending_from > 1)
                pp_control(CMD_END, 0, 0, cfg.pending_from);
            pp_end(&ctx);
        }
        pp_control(CMD_STOP, 0, 0, 1);
        if (cfg.pending_from > 1)
            pp_control(CMD_STOP, 0, 0, cfg.pending_from);
    } else if (rank == 1) {
        pp_echo(&ctx);
    } else if (rank == cfg.pending_from) {
        pp_pending_source_loop(cfg.npending);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
