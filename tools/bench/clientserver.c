/* clientserver: what client/server between two separately started jobs costs
 * (MPI-2 5.4). Two jobs of one process each, started by two launchers:
 *
 *   clientserver server FILE [--connects K] [--reps R] [--impl NAME]
 *   clientserver client FILE [--connects K] [--reps R] [--impl NAME]
 *
 * The server opens a port and writes its name to FILE (atomically, by
 * rename); the client reads it. Then K times: the client times
 * MPI_Comm_connect (the server accepts), both disconnect. Then one more
 * connection, over which the client times a ping-pong with the server for
 * sizes 0 B .. 4 MiB (R round trips each, best of 3 runs; the echoed data is
 * checked). The client prints CSV lines:
 *   impl,connect,K,median_us,min_us
 *   impl,pingpong,size,reps,oneway_us,MB_per_s
 * Plain C99 + MPI-2, so it builds with any MPI's mpicc. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void die(const char *what) {
    fprintf(stderr, "clientserver: %s\n", what);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

static void name_write(const char *file, const char *name) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    FILE *f = fopen(tmp, "w");
    if (f == NULL) die("cannot write the port file");
    fprintf(f, "%s\n", name);
    fclose(f);
    if (rename(tmp, file) != 0) die("cannot rename the port file");
}

static void name_read(const char *file, char *name) {
    FILE *f = NULL;
    for (int i = 0; i < 30000 && f == NULL; ++i) {
        f = fopen(file, "r");
        if (f == NULL) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    }
    if (f == NULL || fgets(name, MPI_MAX_PORT_NAME, f) == NULL) die("no port name in the file");
    fclose(f);
    name[strcspn(name, "\n")] = '\0';
}

static int cmp_double(const void *a, const void *b) {
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Client side: R round trips of `size` bytes; the best of 3 runs, one way. */
static double pingpong(MPI_Comm inter, char *buf, int size, int reps) {
    double best = 1e30;
    for (int run = 0; run < 3; ++run) {
        MPI_Send(&size, 1, MPI_INT, 0, 1, inter);
        MPI_Send(&reps, 1, MPI_INT, 0, 1, inter);
        const double t0 = MPI_Wtime();
        for (int i = 0; i < reps; ++i) {
            MPI_Send(buf, size, MPI_BYTE, 0, 2, inter);
            MPI_Recv(buf, size, MPI_BYTE, 0, 3, inter, MPI_STATUS_IGNORE);
        }
        const double t = (MPI_Wtime() - t0) / reps / 2;
        if (t < best) best = t;
        for (int i = 0; i < size; ++i)
            if (buf[i] != (char)(i * 7 + 1)) die("the echoed data differs");
    }
    return best;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    if (argc < 3) die("usage: clientserver server|client FILE [--connects K] [--reps R] [--impl NAME]");
    const int server = strcmp(argv[1], "server") == 0;
    int connects = 20, reps = 200;
    const char *impl = "mpi";
    for (int i = 3; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--connects") == 0) connects = atoi(argv[i + 1]);
        if (strcmp(argv[i], "--reps") == 0) reps = atoi(argv[i + 1]);
        if (strcmp(argv[i], "--impl") == 0) impl = argv[i + 1];
    }
    char port[MPI_MAX_PORT_NAME];
    if (server) {
        MPI_Open_port(MPI_INFO_NULL, port);
        name_write(argv[2], port);
    } else {
        name_read(argv[2], port);
    }
    double *times = malloc((size_t)connects * sizeof(double));
    MPI_Comm inter;
    for (int k = 0; k <= connects; ++k) {
        const double t0 = MPI_Wtime();
        if (server) {
            MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
        } else {
            MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
        }
        if (k == connects) break;
        times[k] = MPI_Wtime() - t0;
        MPI_Comm_disconnect(&inter);
    }
    const int max = 4 << 20;
    char *buf = malloc(max);
    if (server) {
        for (;;) {
            int size = 0, n = 0;
            MPI_Recv(&size, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
            if (size < 0) break;
            MPI_Recv(&n, 1, MPI_INT, 0, 1, inter, MPI_STATUS_IGNORE);
            for (int i = 0; i < n; ++i) {
                MPI_Recv(buf, size, MPI_BYTE, 0, 2, inter, MPI_STATUS_IGNORE);
                MPI_Send(buf, size, MPI_BYTE, 0, 3, inter);
            }
        }
        MPI_Comm_disconnect(&inter);
        MPI_Close_port(port);
    } else {
        qsort(times, (size_t)connects, sizeof(double), cmp_double);
        printf("%s,connect,%d,%.1f,%.1f\n", impl, connects, times[connects / 2] * 1e6, times[0] * 1e6);
        for (int i = 0; i < max; ++i) buf[i] = (char)(i * 7 + 1);
        /* Not timed: 2000 round trips first, as pingpong.c's calibration runs
         * before its timed ones (the first thousand after the connects took
         * 1 us each instead of 0.35 here). */
        pingpong(inter, buf, 0, 2000);
        for (int size = 0; size <= max; size = size == 0 ? 1 : size * 4) {
            const int n = size >= (1 << 20) ? reps / 10 + 1 : reps;
            const double t = pingpong(inter, buf, size, n);
            printf("%s,pingpong,%d,%d,%.2f,%.1f\n", impl, size, n, t * 1e6, size / t / 1e6);
            fflush(stdout);
        }
        const int stop = -1;
        MPI_Send(&stop, 1, MPI_INT, 0, 1, inter);
        MPI_Comm_disconnect(&inter);
    }
    free(buf);
    free(times);
    MPI_Finalize();
    return 0;
}
