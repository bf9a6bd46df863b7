/* MPI_Gather, MPI_Scatter, MPI_Gatherv, MPI_Scatterv: every root, blocks of
 * 0 bytes to 128 KiB (over 1 MB gathered on 8 processes), uneven and zero
 * counts, displacements in reverse rank order with gaps that must stay
 * untouched. */
#include "coll_common.h"

static const size_t blocks[] = {0, 1, 17, 1000, 32767, 32768, 131072};

static void gather_scatter(int rank)
{
    size_t b;
    int root, i;
    for (b = 0; b < sizeof blocks / sizeof blocks[0]; b++) {
        size_t n = blocks[b];
        size_t all = n * (size_t)pt_size;
        unsigned char *mine = (unsigned char *)coll_sentinel_alloc(n);
        unsigned char *whole = (unsigned char *)coll_sentinel_alloc(all);
        for (root = 0; root < pt_size; root++) {
            if (n > 40000 && root != 0 && root != pt_size - 1) {
                continue;
            }
            pt_set_phase("gather");
            pt_fill(mine, n, pt_seed(rank, root, (int)b, 2));
            memset(whole, 0, all);
            CK(MPI_Gather(mine, (int)n, MPI_BYTE, rank == root ? whole : NULL, (int)n, MPI_BYTE, root,
                          MPI_COMM_WORLD));
            if (rank == root) {
                for (i = 0; i < pt_size; i++) {
                    pt_verify(whole + (size_t)i * n, n, pt_seed(i, root, (int)b, 2), "MPI_Gather block");
                }
                coll_check_tail(whole, all, "MPI_Gather: after the receive buffer");
            }

            pt_set_phase("scatter");
            if (rank == root) {
                for (i = 0; i < pt_size; i++) {
                    pt_fill(whole + (size_t)i * n, n, pt_seed(root, i, (int)b, 3));
                }
            }
            memset(mine, 0, n);
            CK(MPI_Scatter(rank == root ? whole : NULL, (int)n, MPI_BYTE, mine, (int)n, MPI_BYTE, root,
                           MPI_COMM_WORLD));
            pt_verify(mine, n, pt_seed(root, rank, (int)b, 3), "MPI_Scatter block");
            coll_check_tail(mine, n, "MPI_Scatter: after the receive buffer");
        }
        free(mine);
        free(whole);
    }

    /* Typed blocks: ints gathered as ints, counts in elements. */
    pt_set_phase("gather ints");
    for (root = 0; root < pt_size; root++) {
        int v[3] = {rank, rank * 10, -rank};
        int *all = (int *)pt_malloc(sizeof(int) * 3 * (size_t)pt_size);
        CK(MPI_Gather(v, 3, MPI_INT, all, 3, MPI_INT, root, MPI_COMM_WORLD));
        if (rank == root) {
            for (i = 0; i < pt_size; i++) {
                EXPECT(all[3 * i] == i && all[3 * i + 1] == 10 * i && all[3 * i + 2] == -i,
                       "gathered ints of rank %d: %d %d %d", i, all[3 * i], all[3 * i + 1], all[3 * i + 2]);
            }
        }
        free(all);
    }
}

/* Uneven counts (in ints) with zeros; blocks laid out in reverse rank order
 * with a gap of `gap` ints before each. */
static void layout(int root, int unit, int *counts, int *displs, int *total)
{
    int i, at = 3;
    const int gap = 5;
    for (i = 0; i < pt_size; i++) {
        counts[i] = ((i * 7 + root * 3 + unit) % 4) * unit;
    }
    for (i = pt_size - 1; i >= 0; i--) {
        displs[i] = at;
        at += counts[i] + gap;
    }
    *total = at;
}

static void fill_ints(int *p, int n, int a, int b)
{
    int k;
    for (k = 0; k < n; k++) {
        p[k] = (int)pt_word(pt_seed(a, b, 9, 0), (size_t)k);
    }
}

static void check_ints(const int *p, int n, int a, int b, const char *what)
{
    int k;
    for (k = 0; k < n; k++) {
        EXPECT(p[k] == (int)pt_word(pt_seed(a, b, 9, 0), (size_t)k), "%s: element %d of %d differs", what, k, n);
    }
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

/* Moves every displacement by delta. */
static void displs_shift(int *displs, int delta)
{
    int i;
    for (i = 0; i < pt_size; i++) displs[i] += delta;
}

/* One gatherv and one scatterv at root with blocks of unit ints; negative:
 * the same layout addressed from its end, by negative displacements. */
static void gatherv_scatterv_at(int rank, int root, int unit, int negative, int *counts, int *displs)
{
    int i, total;
    int *big, *mine;
    layout(root, unit, counts, displs, &total);
    big = (int *)coll_sentinel_alloc(sizeof(int) * (size_t)total);
    mine = (int *)coll_sentinel_alloc(sizeof(int) * (size_t)counts[rank]);

    pt_set_phase("gatherv");
    fill_ints(mine, counts[rank], rank, root);
    if (negative) displs_shift(displs, -total);
    CK(MPI_Gatherv(mine, counts[rank], MPI_INT, rank == root ? big + (negative ? total : 0) : NULL,
                   rank == root ? counts : NULL, rank == root ? displs : NULL, MPI_INT, root, MPI_COMM_WORLD));
    if (negative) displs_shift(displs, total);
    if (rank == root) {
        for (i = 0; i < pt_size; i++) {
            check_ints(big + displs[i], counts[i], i, root, "MPI_Gatherv block");
        }
        check_gaps(big, counts, displs, total, "MPI_Gatherv: gap between blocks");
        coll_check_tail(big, sizeof(int) * (size_t)total, "MPI_Gatherv: after the buffer");
    }

    pt_set_phase("scatterv");
    if (rank == root) {
        for (i = 0; i < pt_size; i++) {
            fill_ints(big + displs[i], counts[i], root + 100, i);
        }
    }
    memset(mine, COLL_SENTINEL, sizeof(int) * (size_t)counts[rank]);
    if (negative) displs_shift(displs, -total);
    CK(MPI_Scatterv(rank == root ? big + (negative ? total : 0) : NULL, rank == root ? counts : NULL,
                    rank == root ? displs : NULL, MPI_INT, mine, counts[rank], MPI_INT, root, MPI_COMM_WORLD));
    if (negative) displs_shift(displs, total);
    check_ints(mine, counts[rank], root + 100, rank, "MPI_Scatterv block");
    coll_check_tail(mine, sizeof(int) * (size_t)counts[rank], "MPI_Scatterv: after the buffer");
    free(big);
    free(mine);
}

static void gatherv_scatterv(int rank)
{
    static const int units[] = {1, 1000, 70000};
    int u, root, k;
    int *counts = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    int *displs = (int *)pt_malloc(sizeof(int) * (size_t)pt_size);
    for (u = 0; u < 3; u++) {
        for (k = 0; k < 2 * pt_size; k++) {
            root = k % pt_size;
            if (units[u] > 1000 && root != 0 && root != pt_size - 1) {
                continue;
            }
            gatherv_scatterv_at(rank, root, units[u], k >= pt_size, counts, displs);
        }
    }
    free(counts);
    free(displs);
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "coll_gather");
    gather_scatter(rank);
    gatherv_scatterv(rank);
    return pt_finish();
}
