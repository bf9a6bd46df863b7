/* The rooted and reducing collectives from every root on communicators whose
 * ranks follow the grid's clusters and on ones that do not: the world, a
 * reversed split, an interleaving split, a dup, and the world without its
 * last process. Each result is checked against what the calling process
 * computes itself, so the multilevel algorithms (chosen wherever a
 * communicator spans clusters) and the flat ones must agree. With 2 or more
 * processes also the merge of an intercommunicator between the even and the
 * odd ranks (odd ones first). A non-commutative reduction (composition of
 * affine maps, in rank order) checks that rank order survives. */
#include "coll_common.h"

#include <stdint.h>

/* x -> a x + b modulo 2^32; compose(f, g) = g after f, i.e. apply f first. */
typedef struct {
    uint32_t a, b;
} affine;

static void compose(void *in, void *inout, int *len, MPI_Datatype *dt)
{
    const affine *f = (const affine *)in;
    affine *g = (affine *)inout;
    int i;
    (void)dt;
    for (i = 0; i < *len; i++) {
        affine r;
        r.a = g[i].a * f[i].a;
        r.b = g[i].a * f[i].b + g[i].b;
        g[i] = r;
    }
}

static affine affine_of(int rank, int i)
{
    affine f;
    f.a = 2u * (uint32_t)(rank * 7 + i) + 3u;
    f.b = (uint32_t)(rank * 131 + i * 17 + 1);
    return f;
}

static void run(MPI_Comm comm, const char *name, MPI_Datatype affine_type, MPI_Op op_compose)
{
    int me, n, root, i, r;
    const int block = 3, count = 5;
    CK(MPI_Comm_rank(comm, &me));
    CK(MPI_Comm_size(comm, &n));
    int *mine = (int *)pt_malloc(sizeof(int) * block);
    int *all = (int *)pt_malloc(sizeof(int) * (size_t)(block * n));
    int *got = (int *)pt_malloc(sizeof(int) * (size_t)(block * n));
    long *sum = (long *)pt_malloc(sizeof(long) * count);
    long *sums = (long *)pt_malloc(sizeof(long) * count);
    affine *maps = (affine *)pt_malloc(sizeof(affine) * count);
    affine *composed = (affine *)pt_malloc(sizeof(affine) * count);
    for (i = 0; i < block; i++) mine[i] = 1000 * me + i;
    for (r = 0; r < n; r++)
        for (i = 0; i < block; i++) all[r * block + i] = 1000 * r + i;

    pt_set_phase(name);
    for (root = 0; root < n; root++) {
        long v = me == root ? 77 + root : -1;
        CK(MPI_Bcast(&v, 1, MPI_LONG, root, comm));
        EXPECT(v == 77 + root, "%s: bcast from %d gave %ld", name, root, v);

        memset(got, 0, sizeof(int) * (size_t)(block * n));
        CK(MPI_Gather(mine, block, MPI_INT, got, block, MPI_INT, root, comm));
        if (me == root)
            for (i = 0; i < block * n; i++)
                EXPECT(got[i] == all[i], "%s: gather to %d: element %d is %d, want %d", name, root, i, got[i], all[i]);

        int part[3] = {-1, -1, -1};
        CK(MPI_Scatter(all, block, MPI_INT, part, block, MPI_INT, root, comm));
        for (i = 0; i < block; i++)
            EXPECT(part[i] == mine[i], "%s: scatter from %d: element %d is %d, want %d", name, root, i, part[i], mine[i]);

        for (i = 0; i < count; i++) sum[i] = (long)(me + 1) * (i + 1) + root;
        CK(MPI_Reduce(sum, sums, count, MPI_LONG, MPI_SUM, root, comm));
        if (me == root)
            for (i = 0; i < count; i++) {
                long want = (long)n * (n + 1) / 2 * (i + 1) + (long)n * root;
                EXPECT(sums[i] == want, "%s: reduce to %d: element %d is %ld, want %ld", name, root, i, sums[i], want);
            }

        for (i = 0; i < count; i++) maps[i] = affine_of(me, i + root);
        CK(MPI_Reduce(maps, composed, count, affine_type, op_compose, root, comm));
        if (me == root)
            for (i = 0; i < count; i++) {
                affine want = affine_of(0, i + root);
                int len = 1;
                for (r = 1; r < n; r++) {
                    affine f = affine_of(r, i + root);
                    compose(&want, &f, &len, NULL);
                    want = f;
                }
                EXPECT(composed[i].a == want.a && composed[i].b == want.b,
                       "%s: ordered reduce to %d: element %d out of rank order", name, root, i);
            }
    }

    memset(got, 0, sizeof(int) * (size_t)(block * n));
    CK(MPI_Allgather(mine, block, MPI_INT, got, block, MPI_INT, comm));
    for (i = 0; i < block * n; i++)
        EXPECT(got[i] == all[i], "%s: allgather: element %d is %d, want %d", name, i, got[i], all[i]);

    for (i = 0; i < count; i++) sum[i] = (long)(me + 1) * (i + 1);
    CK(MPI_Allreduce(sum, sums, count, MPI_LONG, MPI_SUM, comm));
    for (i = 0; i < count; i++)
        EXPECT(sums[i] == (long)n * (n + 1) / 2 * (i + 1), "%s: allreduce: element %d is %ld", name, i, sums[i]);
    for (i = 0; i < count; i++) maps[i] = affine_of(me, i);
    CK(MPI_Allreduce(maps, composed, count, affine_type, op_compose, comm));
    for (i = 0; i < count; i++) {
        affine want = affine_of(0, i);
        int len = 1;
        for (r = 1; r < n; r++) {
            affine f = affine_of(r, i);
            compose(&want, &f, &len, NULL);
            want = f;
        }
        EXPECT(composed[i].a == want.a && composed[i].b == want.b, "%s: ordered allreduce: element %d out of rank order",
               name, i);
    }
    CK(MPI_Barrier(comm));
    free(mine);
    free(all);
    free(got);
    free(sum);
    free(sums);
    free(maps);
    free(composed);
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "coll_levels");
    MPI_Datatype affine_type;
    MPI_Op op_compose;
    MPI_Comm c;
    CK(MPI_Type_contiguous(2, MPI_UNSIGNED, &affine_type));
    CK(MPI_Type_commit(&affine_type));
    CK(MPI_Op_create(compose, 0, &op_compose));

    run(MPI_COMM_WORLD, "world", affine_type, op_compose);
    CK(MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &c));
    run(c, "reversed", affine_type, op_compose);
    CK(MPI_Comm_free(&c));
    CK(MPI_Comm_split(MPI_COMM_WORLD, 0, (rank % 2) * pt_size + rank, &c));
    run(c, "interleaved", affine_type, op_compose);
    CK(MPI_Comm_free(&c));
    CK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    run(c, "dup", affine_type, op_compose);
    CK(MPI_Comm_free(&c));
    if (pt_size >= 2) {
        MPI_Comm half, inter;
        CK(MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half));
        CK(MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, rank % 2 ? 0 : 1, 7, &inter));
        CK(MPI_Intercomm_merge(inter, rank % 2 == 0, &c));
        run(c, "merged", affine_type, op_compose);
        CK(MPI_Comm_free(&c));
        CK(MPI_Comm_free(&inter));
        CK(MPI_Comm_free(&half));
    }
    CK(MPI_Comm_split(MPI_COMM_WORLD, rank == pt_size - 1 ? MPI_UNDEFINED : 0, rank, &c));
    if (c != MPI_COMM_NULL) {
        run(c, "all but the last", affine_type, op_compose);
        CK(MPI_Comm_free(&c));
    }
    CK(MPI_Op_free(&op_compose));
    CK(MPI_Type_free(&affine_type));
    return pt_finish();
}
