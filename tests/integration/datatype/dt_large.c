/* Multi-megabyte non-contiguous messages between pairs of ranks (0-1, 2-3):
 * 8 MB of doubles taken every other element (a vector of stride 2) sent to
 * a contiguous receive, the reverse, vector to vector with another stride,
 * and a simultaneous nonblocking exchange. Every element is checked, and
 * every gap must stay untouched. The library must move such messages in
 * bounded memory: the peak resident size may not grow by anything near the
 * message size while one is in flight. */
#include "dt_common.h"

#define N (1024 * 1024) /* doubles: 8 MB of data */

static double value(int rank, int round, int i) { return (double)rank * 1e7 + round * 1e6 + (double)i * 0.5; }

/* Peak resident set size in kB (VmHWM), or -1 when unknown. */
static long peak_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    if (f == NULL) return -1;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, "VmHWM:", 6) == 0) kb = atol(line + 6);
    }
    fclose(f);
    return kb;
}

static void fill_strided(double *buf, int stride, int rank, int round)
{
    long i;
    for (i = 0; i < (long)N * stride; i++) buf[i] = -1.0;
    for (i = 0; i < N; i++) buf[i * stride] = value(rank, round, (int)i);
}

static void check_strided(const double *buf, int stride, int from, int round, const char *what)
{
    long i;
    int k;
    for (i = 0; i < N; i++) {
        if (buf[i * stride] != value(from, round, (int)i)) {
            pt_fail("%s: element %ld is %.1f, expected %.1f", what, i, buf[i * stride], value(from, round, (int)i));
        }
        for (k = 1; k < stride; k++) {
            if (buf[i * stride + k] != -1.0) pt_fail("%s: gap after element %ld was written", what, i);
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Datatype v2, v3;
    MPI_Status st;
    double *a, *b, *c;
    int partner, round = 0, i;
    int sender;
    long before, after;

    pt_init(&argc, &argv, "dt_large");
    pt_require_size(2);
    if (pt_size % 2 != 0) pt_fail("needs an even number of processes");
    partner = pt_rank ^ 1;
    sender = pt_rank % 2 == 0;

    CK(MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &v2));
    CK(MPI_Type_vector(N, 1, 3, MPI_DOUBLE, &v3));
    CK(MPI_Type_commit(&v2));
    CK(MPI_Type_commit(&v3));
    a = pt_malloc(sizeof(double) * 2 * N);
    b = pt_malloc(sizeof(double) * N);
    c = pt_malloc(sizeof(double) * 3 * N);

    pt_set_phase("vector to vector, bounded memory");
    round++;
    /* First, before anything else raised the peak: touch every buffer, so
     * only what the library allocates can raise it further. */
    for (i = 0; i < N; i++) b[i] = 0.0;
    fill_strided(a, 2, pt_rank, round);
    fill_strided(c, 3, 0, 0);
    for (i = 0; i < N; i++) c[3 * i] = -1.0;
    CK(MPI_Barrier(MPI_COMM_WORLD));
    before = peak_kb();
    if (sender) {
        CK(MPI_Send(a, 1, v2, partner, round, MPI_COMM_WORLD));
    } else {
        CK(MPI_Recv(c, 1, v3, partner, round, MPI_COMM_WORLD, &st));
    }
    after = peak_kb();
    if (!sender) check_strided(c, 3, partner, round, "vector to vector");
    if (before > 0 && after > 0) {
        EXPECT(after - before < 4096, "the peak resident size grew by %ld kB while moving an 8 MB message",
               after - before);
    }

    pt_set_phase("vector to contiguous");
    round++;
    if (sender) {
        fill_strided(a, 2, pt_rank, round);
        CK(MPI_Send(a, 1, v2, partner, round, MPI_COMM_WORLD));
    } else {
        for (i = 0; i < N; i++) b[i] = -2.0;
        CK(MPI_Recv(b, N, MPI_DOUBLE, partner, round, MPI_COMM_WORLD, &st));
        EXPECT(pt_count(&st, MPI_DOUBLE) == N, "vector to contiguous: count %d", pt_count(&st, MPI_DOUBLE));
        for (i = 0; i < N; i++) {
            if (b[i] != value(partner, round, i)) pt_fail("vector to contiguous: element %d is %.1f", i, b[i]);
        }
    }

    pt_set_phase("contiguous to vector");
    round++;
    if (!sender) {
        for (i = 0; i < N; i++) b[i] = value(pt_rank, round, i);
        CK(MPI_Send(b, N, MPI_DOUBLE, partner, round, MPI_COMM_WORLD));
    } else {
        fill_strided(a, 2, 0, 0);
        for (i = 0; i < N; i++) a[2 * i] = -1.0;
        CK(MPI_Recv(a, 1, v2, partner, round, MPI_COMM_WORLD, &st));
        EXPECT(pt_count(&st, v2) == 1, "contiguous to vector: count %d", pt_count(&st, v2));
        check_strided(a, 2, partner, round, "contiguous to vector");
    }

    pt_set_phase("nonblocking exchange of vectors");
    round++;
    {
        MPI_Request rq[2];
        MPI_Status sts[2];
        fill_strided(a, 2, pt_rank, round);
        fill_strided(c, 3, 0, 0);
        for (i = 0; i < N; i++) c[3 * i] = -1.0;
        CK(MPI_Irecv(c, 1, v3, partner, round, MPI_COMM_WORLD, &rq[0]));
        CK(MPI_Isend(a, 1, v2, partner, round, MPI_COMM_WORLD, &rq[1]));
        CK(MPI_Waitall(2, rq, sts));
        check_strided(c, 3, partner, round, "nonblocking exchange");
        EXPECT(pt_count(&sts[0], v3) == 1, "nonblocking exchange: count %d", pt_count(&sts[0], v3));
    }

    CK(MPI_Type_free(&v2));
    CK(MPI_Type_free(&v3));
    free(a);
    free(b);
    free(c);
    return pt_finish();
}
