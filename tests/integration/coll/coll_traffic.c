/* How often each collective crosses the slow links, counted with the
 * per-level traffic counters (MPIX_Traffic_level): on a communicator that
 * spans sites and machines, a broadcast from any root sends exactly one
 * message into each remote site over the wide area and one into each remote
 * machine of a site over the local area; a reduction, a gather and a scatter
 * the same in their direction; an allreduce and a scan each way once; an
 * alltoall one message per pair of sites across the wide area.
 * The sites and machines are counted from the topology attributes (levels 1
 * and 2), so the program holds for any layout; it checks the world and a
 * reversed split of it, at a short and a long message.
 *
 *   coll_traffic            the multilevel algorithms (the default choice)
 */
#include "coll_topology.h"

enum { kWan = 0, kLan = 1, kLevels = 2 };

typedef struct {
    long long messages[kLevels];
} counts;

static counts now(void)
{
    counts c;
    long long bytes;
    int l;
    for (l = 0; l < kLevels; l++) CK(MPIX_Traffic_level(l, &c.messages[l], &bytes));
    return c;
}

/* Total messages the job sent at each level since `before` (collective). */
static counts sent_since(counts before, MPI_Comm comm)
{
    counts after = now(), delta, total;
    int l;
    for (l = 0; l < kLevels; l++) delta.messages[l] = after.messages[l] - before.messages[l];
    CK(MPI_Allreduce(delta.messages, total.messages, kLevels, MPI_LONG_LONG_INT, MPI_SUM, comm));
    return total;
}

static void expect(const char *what, int root, counts got, long long wan, long long lan)
{
    EXPECT(got.messages[kWan] == wan && got.messages[kLan] == lan,
           "%s (root %d): %lld wide-area and %lld local-area messages, want %lld and %lld", what, root,
           got.messages[kWan], got.messages[kLan], wan, lan);
}

static void run(MPI_Comm comm, const char *name, int bytes)
{
    int me, n, root;
    CK(MPI_Comm_rank(comm, &me));
    CK(MPI_Comm_size(comm, &n));
    const long long sites = coll_clusters(comm, 1), machines = coll_clusters(comm, 2);
    const long long wan = sites - 1, lan = machines - sites;
    const int doubles = bytes / 8;
    double *a = (double *)pt_malloc(sizeof(double) * (size_t)doubles * (size_t)n);
    double *b = (double *)pt_malloc(sizeof(double) * (size_t)doubles * (size_t)n);
    counts before;
    memset(a, 0, sizeof(double) * (size_t)doubles * (size_t)n);
    pt_set_phase(name);
    for (root = 0; root < n; root++) {
        CK(MPI_Barrier(comm));
        before = now();
        CK(MPI_Bcast(a, doubles, MPI_DOUBLE, root, comm));
        expect("bcast", root, sent_since(before, comm), wan, lan);

        CK(MPI_Barrier(comm));
        before = now();
        CK(MPI_Reduce(a, b, doubles, MPI_DOUBLE, MPI_SUM, root, comm));
        expect("reduce", root, sent_since(before, comm), wan, lan);

        CK(MPI_Barrier(comm));
        before = now();
        CK(MPI_Gather(a, doubles, MPI_DOUBLE, b, doubles, MPI_DOUBLE, root, comm));
        expect("gather", root, sent_since(before, comm), wan, lan);

        CK(MPI_Barrier(comm));
        before = now();
        CK(MPI_Scatter(a, doubles, MPI_DOUBLE, b, doubles, MPI_DOUBLE, root, comm));
        expect("scatter", root, sent_since(before, comm), wan, lan);
    }
    {
        CK(MPI_Barrier(comm));
        before = now();
        CK(MPI_Allreduce(a, b, doubles, MPI_DOUBLE, MPI_SUM, comm));
        /* Up once and down once; across the wide area the sites' representatives
         * combine their sums (recursive doubling: a fold, the exchanges of the
         * power-of-two core, the fold's return). */
        int pof2 = 1;
        while (pof2 * 2 <= sites) pof2 *= 2;
        long long core = 0, p;
        for (p = 1; p < pof2; p *= 2) core += pof2;
        expect("allreduce", -1, sent_since(before, comm), 2 * (sites - pof2) + core, 2 * lan);
    }
    CK(MPI_Barrier(comm));
    before = now();
    CK(MPI_Scan(a, b, doubles, MPI_DOUBLE, MPI_SUM, comm));
    expect("scan", -1, sent_since(before, comm), 2 * wan, 2 * lan);
    if (bytes <= 1000) { /* n blocks each */
        CK(MPI_Barrier(comm));
        before = now();
        CK(MPI_Alltoall(a, doubles, MPI_DOUBLE, b, doubles, MPI_DOUBLE, comm));
        expect("alltoall", -1, sent_since(before, comm), sites * (sites - 1), 2 * lan);
    }
    free(a);
    free(b);
    (void)me;
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "coll_traffic");
    MPI_Comm c;
    run(MPI_COMM_WORLD, "world, 8 bytes", 8);
    run(MPI_COMM_WORLD, "world, 200 KB", 200000);
    CK(MPI_Comm_split(MPI_COMM_WORLD, 0, -rank, &c));
    run(c, "reversed, 8 bytes", 8);
    CK(MPI_Comm_free(&c));
    return pt_finish();
}
