/* What the Strata-only collective programs read of the grid's topology
 * (MPICH-G2's MPICHX_TOPOLOGY_* attributes): kept out of coll_common.h, which
 * the programs that also build against MPICH include (run_with_mpich.sh). */
#ifndef COLL_TOPOLOGY_H
#define COLL_TOPOLOGY_H

#include "coll_common.h"

/* Distinct colours at topology `level` (1: sites, 2: machines) among the
 * communicator's ranks (MPICHX_TOPOLOGY_COLORS). */
static inline int coll_clusters(MPI_Comm comm, int level)
{
    int *depths, **colors, flag, n, r, q, distinct = 0;
    CK(MPI_Attr_get(comm, MPICHX_TOPOLOGY_DEPTHS, &depths, &flag));
    CK(MPI_Attr_get(comm, MPICHX_TOPOLOGY_COLORS, &colors, &flag));
    CK(MPI_Comm_size(comm, &n));
    for (r = 0; r < n; r++) {
        int seen = 0;
        for (q = 0; q < r; q++) seen = seen || colors[q][level] == colors[r][level];
        distinct += !seen;
    }
    return distinct;
}

#endif /* COLL_TOPOLOGY_H */
