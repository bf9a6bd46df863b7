/* The model-driven broadcast: with a P-LogP parameter file (STRATA_PLOGP) the
 * wide-area stage of a broadcast sends its message in the segments and down
 * the tree the model chooses. Every root, sizes that no segment size divides,
 * counts of 0 and 1, and a derived datatype must arrive intact, with or
 * without parameters; with parameters, on a job that spans sites, a long
 * broadcast must cross the wide area in more messages than there are remote
 * sites (it was segmented).
 *
 *   coll_segmented
 */
#include <stdlib.h>

#include "coll_topology.h"

static unsigned char pattern(size_t i, int root) { return (unsigned char)(i * 7 + (size_t)root * 13 + 1); }

static void bytes_from_every_root(MPI_Comm comm, size_t n)
{
    int me, size, root;
    size_t i;
    unsigned char *buf = (unsigned char *)pt_malloc(n + 1);
    CK(MPI_Comm_rank(comm, &me));
    CK(MPI_Comm_size(comm, &size));
    for (root = 0; root < size; root++) {
        for (i = 0; i < n; i++) buf[i] = me == root ? pattern(i, root) : 0;
        CK(MPI_Bcast(buf, (int)n, MPI_BYTE, root, comm));
        for (i = 0; i < n; i++) {
            EXPECT(buf[i] == pattern(i, root), "%zu bytes from root %d: byte %zu is %d, want %d", n, root, i,
                   buf[i], pattern(i, root));
            if (buf[i] != pattern(i, root)) break;
        }
    }
    free(buf);
}

/* Every other double of a vector of `count` blocks, from root `root`. */
static void vector_from(MPI_Comm comm, int count, int root)
{
    enum { kBlocks = 1001 };
    int me, i;
    MPI_Datatype strided;
    double *buf = (double *)pt_malloc(sizeof(double) * 2 * kBlocks * (size_t)(count + 1));
    CK(MPI_Comm_rank(comm, &me));
    CK(MPI_Type_vector(kBlocks, 1, 2, MPI_DOUBLE, &strided));
    CK(MPI_Type_commit(&strided));
    for (i = 0; i < 2 * kBlocks * count; i++) buf[i] = me == root ? i : -1;
    CK(MPI_Bcast(buf, count, strided, root, comm));
    for (i = 0; i < 2 * kBlocks * count; i++) {
        /* The vector's extent is 2 * kBlocks - 1 doubles: element c starts there. */
        const int c = i / (2 * kBlocks - 1), j = i % (2 * kBlocks - 1);
        const int carried = c < count && j % 2 == 0;
        const double want = carried || me == root ? i : -1;
        EXPECT(buf[i] == want, "vector x%d from root %d: double %d is %g, want %g", count, root, i, buf[i], want);
        if (buf[i] != want) break;
    }
    CK(MPI_Type_free(&strided));
    free(buf);
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {0, 1, 1000, 100003, (1u << 20) + 17};
    const char *params = getenv("STRATA_PLOGP");
    int size, root;
    size_t s;
    pt_init(&argc, &argv, "coll_segmented");
    CK(MPI_Comm_size(MPI_COMM_WORLD, &size));
    pt_set_phase("bytes");
    for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) bytes_from_every_root(MPI_COMM_WORLD, sizes[s]);
    pt_set_phase("vector");
    for (root = 0; root < size; root++) {
        vector_from(MPI_COMM_WORLD, 0, root);
        vector_from(MPI_COMM_WORLD, 1, root);
        vector_from(MPI_COMM_WORLD, 3, root);
    }
    if (params != NULL && params[0] != '\0' && coll_clusters(MPI_COMM_WORLD, 1) > 1) {
        const long long remote = coll_clusters(MPI_COMM_WORLD, 1) - 1;
        long long before, after, bytes, mine, total;
        unsigned char *buf = (unsigned char *)pt_malloc(1u << 20);
        pt_set_phase("segments");
        memset(buf, 0, 1u << 20);
        CK(MPI_Barrier(MPI_COMM_WORLD));
        CK(MPIX_Traffic_level(0, &before, &bytes));
        CK(MPI_Bcast(buf, 1 << 20, MPI_BYTE, 0, MPI_COMM_WORLD));
        CK(MPIX_Traffic_level(0, &after, &bytes));
        mine = after - before;
        CK(MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG_INT, MPI_SUM, MPI_COMM_WORLD));
        EXPECT(total > remote, "a 1 MB broadcast crossed the wide area in %lld messages, %lld remote sites", total,
               remote);
        free(buf);
    }
    return pt_finish();
}
