/* pingpong: mpptest-style MPI ping-pong between ranks 0 and 1.
 *
 * Rank 0 sends `size` bytes to rank 1 with MPI_Send, rank 1 receives them and
 * sends the same bytes back; one-way time is half the round trip. Other ranks
 * only wait. Plain C99 + MPI-1, so it builds with any mpicc:
 *
 *   mpicc -O2 pingpong.c -o pingpong && mpirun -np 2 ./pingpong --impl mine
 *
 * Before each timed run rank 0 sends rank 1 a control message (size, reps),
 * outside the timed region; a negative rep count ends the loop. The echoed
 * data is checked after every run, so a broken transport cannot produce a
 * fast number.
 */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <mpi.h>

#include "bench_common.h"

enum { TAG_CONTROL = 17, TAG_DATA = 18 };

struct pp_ctx {
    unsigned char *sbuf;
    unsigned char *rbuf;
};

static void pp_check(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "pingpong: %s failed with error %d\n", what, rc);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* Rank 0: tell rank 1 what to do, then time `reps` round trips. */
static double pp_run(void *vctx, long size, long reps)
{
    struct pp_ctx *c = vctx;
    long ctl[2] = {size, reps};
    MPI_Status st;
    memset(c->rbuf, 0, (size_t)size);
    pp_check(MPI_Send(ctl, 2, MPI_LONG, 1, TAG_CONTROL, MPI_COMM_WORLD), "MPI_Send(control)");

    double t0 = MPI_Wtime();
    for (long r = 0; r < reps; r++) {
        MPI_Send(c->sbuf, (int)size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD);
        MPI_Recv(c->rbuf, (int)size, MPI_BYTE, 1, TAG_DATA, MPI_COMM_WORLD, &st);
    }
    double t1 = MPI_Wtime();

    if (reps > 0) {
        int count = -1;
        MPI_Get_count(&st, MPI_BYTE, &count);
        if (count != (int)size || memcmp(c->sbuf, c->rbuf, (size_t)size) != 0) {
            fprintf(stderr, "pingpong: echoed data of size %ld is wrong (count %d)\n", size, count);
            MPI_Abort(MPI_COMM_WORLD, 3);
        }
    }
    return t1 - t0;
}

/* Rank 1: echo until told to stop. */
static void pp_echo(unsigned char *buf)
{
    for (;;) {
        long ctl[2];
        MPI_Status st;
        pp_check(MPI_Recv(ctl, 2, MPI_LONG, 0, TAG_CONTROL, MPI_COMM_WORLD, &st),
                 "MPI_Recv(control)");
        if (ctl[1] < 0)
            return;
        int size = (int)ctl[0];
        for (long r = 0; r < ctl[1]; r++) {
            MPI_Recv(buf, size, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, &st);
            MPI_Send(buf, size, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD);
        }
    }
}

int main(int argc, char **argv)
{
    int rank = 0, nprocs = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    struct bench_options opt;
    int prc = bench_parse_args(argc, argv, &opt, "mpi", "pingpong",
                               "MPI ping-pong between ranks 0 and 1 (run with 2 or more ranks)",
                               rank == 0);
    if (prc != 0) {
        MPI_Finalize();
        return prc < 0 ? 1 : 0;
    }
    if (nprocs < 2) {
        if (rank == 0)
            fprintf(stderr, "pingpong: needs at least 2 ranks (got %d); try mpirun -np 2\n", nprocs);
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

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
        struct pp_ctx ctx = {sbuf, rbuf};
        bench_print_header(&opt);
        for (int i = 0; i < opt.nsizes; i++)
            bench_measure(&opt, opt.sizes[i], 2.0, pp_run, &ctx);
        long stop[2] = {0, -1};
        pp_check(MPI_Send(stop, 2, MPI_LONG, 1, TAG_CONTROL, MPI_COMM_WORLD), "MPI_Send(stop)");
    } else if (rank == 1) {
        pp_echo(rbuf);
    }
    MPI_Barrier(MPI_COMM_WORLD);

    free(sbuf);
    free(rbuf);
    MPI_Finalize();
    return 0;
}
