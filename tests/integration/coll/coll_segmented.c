/* The model-driven collectives: with a P-LogP parameter file (STRATA_PLOGP)
 * broadcasts and commutative reductions across sites go in the segments and
 * down (or up) the tree the model chooses. Every root, sizes that no segment
 * size divides, counts of 0 and 1, derived datatypes, elements of 12 and 16
 * bytes (segments must not split them) and a user operation must give the
 * right result, with or without parameters. With COLL_SEGMENTED_SEGMENTS set
 * (parameters of slow links, on a job that spans sites), a long broadcast and
 * a long allreduce must cross the wide area in more messages than there are
 * remote sites (they were segmented). With COLL_SEGMENTED_LAYERED set too
 * (the parameters cover the links inside sites), the broadcast runs on a
 * two-layer tree over the whole job, so the links inside the sites carry
 * segments too: more messages than there are ranks outside the sites'
 * coordinators. With COLL_SEGMENTED_MACHINES set (a job at one site whose
 * parameters have the site's own links), a long broadcast crosses the links
 * between the machines in more messages than there are other machines.
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

/* MPI_SUM of longs, (rank + 1) * (i % 1000 + 1) from each rank, to every
 * root and to all. */
static void sum_longs(MPI_Comm comm, int count)
{
    int me, size, root, i;
    long *in = (long *)pt_malloc(sizeof(long) * (size_t)(count + 1));
    long *out = (long *)pt_malloc(sizeof(long) * (size_t)(count + 1));
    CK(MPI_Comm_rank(comm, &me));
    CK(MPI_Comm_size(comm, &size));
    for (i = 0; i < count; i++) in[i] = (long)(me + 1) * (i % 1000 + 1);
    for (root = -1; root < size; root++) {
        for (i = 0; i <= count; i++) out[i] = -7;
        if (root < 0) {
            CK(MPI_Allreduce(in, out, count, MPI_LONG, MPI_SUM, comm));
        } else {
            CK(MPI_Reduce(in, out, count, MPI_LONG, MPI_SUM, root, comm));
        }
        if (root >= 0 && me != root) continue;
        for (i = 0; i <= count; i++) {
            const long want = i < count ? (long)size * (size + 1) / 2 * (i % 1000 + 1) : -7;
            EXPECT(out[i] == want, "sum of %d longs at root %d: element %d is %ld, want %ld", count, root, i, out[i],
                   want);
            if (out[i] != want) break;
        }
    }
    free(in);
    free(out);
}

/* MPI_MAXLOC on MPI_DOUBLE_INT (16-byte elements with padding): the largest
 * (i * 7 + rank * 3) % size, at the lowest rank that has it. */
static void maxloc_pairs(MPI_Comm comm, int count)
{
    struct pair {
        double value;
        int rank;
    } *in, *out;
    int me, size, i, r;
    in = (struct pair *)pt_malloc(sizeof *in * (size_t)(count + 1));
    out = (struct pair *)pt_malloc(sizeof *out * (size_t)(count + 1));
    CK(MPI_Comm_rank(comm, &me));
    CK(MPI_Comm_size(comm, &size));
    for (i = 0; i < count; i++) {
        in[i].value = (double)((i * 7 + me * 3) % size);
        in[i].rank = me;
    }
    CK(MPI_Allreduce(in, out, count, MPI_DOUBLE_INT, MPI_MAXLOC, comm));
    for (i = 0; i < count; i++) {
        int best = 0;
        for (r = 1; r < size; r++) {
            if ((i * 7 + r * 3) % size > (i * 7 + best * 3) % size) best = r;
        }
        EXPECT(out[i].value == (double)((i * 7 + best * 3) % size) && out[i].rank == best,
               "maxloc of %d pairs: element %d is (%g, %d), want rank %d", count, i, out[i].value, out[i].rank, best);
        if (out[i].rank != best) break;
    }
    free(in);
    free(out);
}

/* A commutative user operation on a derived type of three ints (12-byte
 * elements): element-wise sums. */
static void add_triples(void *in, void *inout, int *len, MPI_Datatype *type)
{
    int i;
    (void)type;
    for (i = 0; i < 3 * *len; i++) ((int *)inout)[i] += ((int *)in)[i];
}

static void user_triples(MPI_Comm comm, int count)
{
    int me, size, i, r;
    MPI_Datatype triple;
    MPI_Op add;
    int *in = (int *)pt_malloc(sizeof(int) * 3 * (size_t)(count + 1));
    int *out = (int *)pt_malloc(sizeof(int) * 3 * (size_t)(count + 1));
    CK(MPI_Comm_rank(comm, &me));
    CK(MPI_Comm_size(comm, &size));
    CK(MPI_Type_contiguous(3, MPI_INT, &triple));
    CK(MPI_Type_commit(&triple));
    CK(MPI_Op_create(add_triples, 1, &add));
    for (i = 0; i < 3 * count; i++) in[i] = (me + 1) * (i % 97 + 1);
    for (r = 0; r < 2; r++) {
        const int root = r == 0 ? 0 : size - 1; /* the first and the last */
        for (i = 0; i < 3 * count; i++) out[i] = -1;
        CK(MPI_Reduce(in, out, count, triple, add, root, comm));
        if (me != root) continue;
        for (i = 0; i < 3 * count; i++) {
            const int want = size * (size + 1) / 2 * (i % 97 + 1);
            EXPECT(out[i] == want, "user sum of %d triples at root %d: int %d is %d, want %d", count, root, i,
                   out[i], want);
            if (out[i] != want) break;
        }
    }
    CK(MPI_Op_free(&add));
    CK(MPI_Type_free(&triple));
    free(in);
    free(out);
}

/* Messages this process has sent inside its site (every topology level from 1). */
static long long messages_inside_sites(void)
{
    long long total = 0, messages, bytes;
    int level;
    for (level = 1; level < MPIX_TOPOLOGY_MAX_LEVELS; level++) {
        CK(MPIX_Traffic_level(level, &messages, &bytes));
        total += messages;
    }
    return total;
}

/* The messages every process together sent at topology level `level` for a
 * 1 MB broadcast of `buf` from rank 0 (collective). */
static long long bcast_messages_at(int level, unsigned char *buf)
{
    long long before, after, bytes, mine, total;
    CK(MPI_Barrier(MPI_COMM_WORLD));
    CK(MPIX_Traffic_level(level, &before, &bytes));
    CK(MPI_Bcast(buf, 1 << 20, MPI_BYTE, 0, MPI_COMM_WORLD));
    CK(MPIX_Traffic_level(level, &after, &bytes));
    mine = after - before;
    CK(MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG_INT, MPI_SUM, MPI_COMM_WORLD));
    return total;
}

int main(int argc, char **argv)
{
    static const size_t sizes[] = {0, 1, 1000, 100003, (1u << 20) + 17};
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
    pt_set_phase("reductions");
    {
        static const int counts[] = {0, 1, 7, 1001, 100003};
        size_t c;
        for (c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            sum_longs(MPI_COMM_WORLD, counts[c]);
            maxloc_pairs(MPI_COMM_WORLD, counts[c]);
            user_triples(MPI_COMM_WORLD, counts[c]);
        }
    }
    if (getenv("COLL_SEGMENTED_SEGMENTS") != NULL && coll_clusters(MPI_COMM_WORLD, 1) > 1) {
        const long long remote = coll_clusters(MPI_COMM_WORLD, 1) - 1;
        long long before, after, bytes, mine, total;
        unsigned char *buf = (unsigned char *)pt_malloc(1u << 20);
        pt_set_phase("segments");
        memset(buf, 0, 1u << 20);
        total = bcast_messages_at(0, buf);
        EXPECT(total > remote, "a 1 MB broadcast crossed the wide area in %lld messages, %lld remote sites", total,
               remote);
        if (getenv("COLL_SEGMENTED_LAYERED") != NULL) {
            CK(MPI_Barrier(MPI_COMM_WORLD));
            before = messages_inside_sites();
            CK(MPI_Bcast(buf, 1 << 20, MPI_BYTE, 0, MPI_COMM_WORLD));
            mine = messages_inside_sites() - before;
            CK(MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG_INT, MPI_SUM, MPI_COMM_WORLD));
            EXPECT(total > size - coll_clusters(MPI_COMM_WORLD, 1),
                   "a 1 MB broadcast crossed the links inside sites in %lld messages, %d ranks are no coordinators",
                   total, size - coll_clusters(MPI_COMM_WORLD, 1));
        }
        {
            double *v = (double *)buf, *r = (double *)pt_malloc(1u << 20);
            int i;
            for (i = 0; i < (1 << 17); i++) v[i] = i;
            CK(MPIX_Traffic_level(0, &before, &bytes));
            CK(MPI_Allreduce(v, r, 1 << 17, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
            CK(MPIX_Traffic_level(0, &after, &bytes));
            mine = after - before;
            CK(MPI_Allreduce(&mine, &total, 1, MPI_LONG_LONG_INT, MPI_SUM, MPI_COMM_WORLD));
            EXPECT(total > 2 * remote, "a 1 MB allreduce crossed the wide area in %lld messages, %lld remote sites",
                   total, remote);
            for (i = 0; i < (1 << 17); i++) {
                EXPECT(r[i] == (double)i * size, "1 MB allreduce: element %d is %g, want %g", i, r[i],
                       (double)i * size);
                if (r[i] != (double)i * size) break;
            }
            free(r);
        }
        free(buf);
    }
    if (getenv("COLL_SEGMENTED_MACHINES") != NULL && coll_clusters(MPI_COMM_WORLD, 1) == 1) {
        /* One site of several machines whose links the parameters have: the
         * broadcast's stage between the machines is segmented too. */
        const long long others = coll_clusters(MPI_COMM_WORLD, 2) - 1;
        unsigned char *buf = (unsigned char *)pt_malloc(1u << 20);
        long long total;
        pt_set_phase("segments between machines");
        memset(buf, 0, 1u << 20);
        total = bcast_messages_at(1, buf);
        EXPECT(total > others, "a 1 MB broadcast crossed the site's local area in %lld messages, %lld other machines",
               total, others);
        free(buf);
    }
    return pt_finish();
}
