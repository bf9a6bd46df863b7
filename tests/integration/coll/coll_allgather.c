/* MPI_Allgather, MPI_Allgatherv, MPI_Alltoall, MPI_Alltoallv: blocks of 0
 * bytes to 150 KB (over 1 MB gathered on 8 processes), uneven and zero counts,
 * scattered displacements whose gaps must stay untouched. */
#include "coll_common.h"

static const size_t gather_blocks[] = {0, 1, 13, 1000, 10239, 20000, 150000};
static const size_t a2a_blocks[] = {0, 1, 8, 256, 257, 4096, 131072};

static void allgather(int rank)
{
    size_t b;
    int i;
    pt_set_phase("allgather");
    for (b = 0; b < sizeof gather_blocks / sizeof gather_blocks[0]; b++) {
        size_t n = gather_blocks[b];
        size_t all = n * (size_t)pt_size;
        unsigned char *mine = (unsigned char *)pt_malloc(n);
        unsigned char *whole = (unsigned char *)coll_sentinel_alloc(all);
        pt_fill(mine, n, pt_seed(rank, 0, (int)b, 4));
        CK(MPI_Allgather(mine, (int)n, MPI_BYTE, whole, (int)n, MPI_BYTE, MPI_COMM_WORLD));
        for (i = 0; i < pt_size; i++) {
            pt_verify(whole + (size_t)i * n, n, pt_seed(i, 0, (int)b, 4), "MPI_Allgather block");
        }
        coll_check_tail(whole, all, "MPI_Allgather: after the buffer");
        free(mine);
        free(whole);
    }
}

static void fill_ints(int *p, int n, int a, int b, int c)
{
    int k;
    for (k = 0; k < n; k++) {
        p[k] = (int)pt_word(pt_seed(a, b, c, 5), (size_t)k);
    }
}

static void check_ints(const int *p, int n, int a, int b, int c, const char *what)
{
    int k;
    for (k = 0; k < n; k++) {
        EXPECT(p[k] == (int)pt_word(pt_seed(a, b, c, 5), (size_t)k), "%s: element %d of %d differs (from %d to %d)",
               what, k, n, a, b);
    }
}

/* Blocks in reverse order with gaps of 2 ints; returns the total in ints. */
static int reverse_layout(const int *counts, int *displs)
{
    int i, at = 1;
    for (i = pt_size - 1; i >= 0; i--) {
        displs[i] = at;
        at += counts[i] + 2;
    }
    return at;
}

static void check_gaps(const int *buf, const int *counts, const int *displs, int total, const char *what)
{
    unsigned char *used = (unsigned char *)pt_malloc((size_t)total);
    int i, k;
    memset(used, 0, (size_t)total);
    for (i = 0; i < pt_size; i++) {
        memset(used + displs[i], 1, (size_t)counts[i]);
    }
    for (k = 0; k < total; k++) {
        if (!used[k]) {
            pt_verify_const(buf + k, sizeof(int), COLL_SENTINEL, what);
        }
    }
    free(used);
}

static void allgatherv(int rank)
{
    static const int units[] = {1, 100, 40000};
    int u, i;
    int *counts = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    int *displs = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    pt_set_phase("allgatherv");
    for (u = 0; u < 3; u++) {
        int total;
        int *mine, *all;
        for (i = 0; i < pt_size; i++) {
            counts[i] = ((i * 5 + u) % 3) * units[u];
        }
        total = reverse_layout(counts, displs);
        mine = (int *)pt_malloc(sizeof(int) * (size_t)(counts[rank] + 1));
        all = (int *)coll_sentinel_alloc(sizeof(int) * (size_t)total);
        fill_ints(mine, counts[rank], rank, 0, u);
        CK(MPI_Allgatherv(mine, counts[rank], MPI_INT, all, counts, displs, MPI_INT, MPI_COMM_WORLD));
        for (i = 0; i < pt_size; i++) {
            check_ints(all + displs[i], counts[i], i, 0, u, "MPI_Allgatherv block");
        }
        check_gaps(all, counts, displs, total, "MPI_Allgatherv: gap");
        coll_check_tail(all, sizeof(int) * (size_t)total, "MPI_Allgatherv: after the buffer");
        free(mine);
        free(all);
    }
    free(counts);
    free(displs);
}

static void alltoall(int rank)
{
    size_t b;
    int i;
    pt_set_phase("alltoall");
    for (b = 0; b < sizeof a2a_blocks / sizeof a2a_blocks[0]; b++) {
        size_t n = a2a_blocks[b];
        size_t all = n * (size_t)pt_size;
        unsigned char *out = (unsigned char *)pt_malloc(all);
        unsigned char *in = (unsigned char *)coll_sentinel_alloc(all);
        for (i = 0; i < pt_size; i++) {
            pt_fill(out + (size_t)i * n, n, pt_seed(rank, i, (int)b, 6));
        }
        CK(MPI_Alltoall(out, (int)n, MPI_BYTE, in, (int)n, MPI_BYTE, MPI_COMM_WORLD));
        for (i = 0; i < pt_size; i++) {
            pt_verify(in + (size_t)i * n, n, pt_seed(i, rank, (int)b, 6), "MPI_Alltoall block");
        }
        coll_check_tail(in, all, "MPI_Alltoall: after the buffer");
        free(out);
        free(in);
    }
    {
        /* Typed: two doubles per pair. */
        double *out = (double *)pt_malloc(sizeof(double) * 2 * (size_t)pt_size);
        double *in = (double *)pt_malloc(sizeof(double) * 2 * (size_t)pt_size);
        for (i = 0; i < pt_size; i++) {
            out[2 * i] = rank * 100.0 + i;
            out[2 * i + 1] = -(rank * 100.0 + i);
        }
        CK(MPI_Alltoall(out, 2, MPI_DOUBLE, in, 2, MPI_DOUBLE, MPI_COMM_WORLD));
        for (i = 0; i < pt_size; i++) {
            EXPECT(in[2 * i] == i * 100.0 + rank && in[2 * i + 1] == -(i * 100.0 + rank),
                   "MPI_Alltoall doubles from %d: %g %g", i, in[2 * i], in[2 * i + 1]);
        }
        free(out);
        free(in);
    }
}

static void alltoallv(int rank)
{
    static const int units[] = {1, 50, 20000};
    int u, i;
    int *scounts = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    int *sdispls = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    int *rcounts = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    int *rdispls = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    pt_set_phase("alltoallv");
    for (u = 0; u < 3; u++) {
        int stotal, rtotal;
        int *out, *in;
        /* rank a sends ((a + 2b + u) % 3) * unit ints to rank b: zeros included. */
        for (i = 0; i < pt_size; i++) {
            scounts[i] = ((rank + 2 * i + u) % 3) * units[u];
            rcounts[i] = ((i + 2 * rank + u) % 3) * units[u];
        }
        stotal = reverse_layout(scounts, sdispls);
        rtotal = reverse_layout(rcounts, rdispls);
        out = (int *)pt_malloc(sizeof(int) * (size_t)stotal);
        in = (int *)coll_sentinel_alloc(sizeof(int) * (size_t)rtotal);
        for (i = 0; i < pt_size; i++) {
            fill_ints(out + sdispls[i], scounts[i], rank, i, 10 + u);
        }
        CK(MPI_Alltoallv(out, scounts, sdispls, MPI_INT, in, rcounts, rdispls, MPI_INT, MPI_COMM_WORLD));
        for (i = 0; i < pt_size; i++) {
            check_ints(in + rdispls[i], rcounts[i], i, rank, 10 + u, "MPI_Alltoallv block");
        }
        check_gaps(in, rcounts, rdispls, rtotal, "MPI_Alltoallv: gap");
        coll_check_tail(in, sizeof(int) * (size_t)rtotal, "MPI_Alltoallv: after the buffer");
        free(out);
        free(in);
    }
    free(scounts);
    free(sdispls);
    free(rcounts);
    free(rdispls);
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "coll_allgather");
    allgather(rank);
    allgatherv(rank);
    alltoall(rank);
    alltoallv(rank);
    return pt_finish();
}
