/* Helpers shared by the group, communicator, attribute and topology tests;
 * built on the point-to-point tests' harness (pt2pt_common.h). */
#ifndef COMM_COMMON_H
#define COMM_COMMON_H

#include "pt2pt_common.h"

/* Check that `rc` failed with error class `cls` (MPI_ERRORS_RETURN must be set). */
#define EXPECT_CLASS(rc, cls, what)                                                             \
    do {                                                                                        \
        int rc_ = (rc);                                                                         \
        EXPECT(rc_ != MPI_SUCCESS && pt_error_class(rc_) == (cls), "%s: got %d (class %d), want class %d", \
               (what), rc_, rc_ == MPI_SUCCESS ? 0 : pt_error_class(rc_), (cls));               \
    } while (0)

/* As EXPECT_CLASS, but MPI-1 names no class for this error: `cls` is what
 * Strata raises (checked strictly against Strata), any failure passes elsewhere. */
#define EXPECT_FAIL_CLASS(rc, cls, what)                                                        \
    do {                                                                                        \
        int rcf_ = (rc);                                                                        \
        if (PT_STRICT) {                                                                        \
            EXPECT_CLASS(rcf_, cls, what);                                                      \
        } else {                                                                                \
            EXPECT(rcf_ != MPI_SUCCESS, "%s: succeeded", (what));                               \
        }                                                                                       \
    } while (0)

/* Sends one int from every rank of `comm` to every other rank and checks
 * what arrives: proves the communicator's ranks address the right processes.
 * `ident[r]` is the identity (e.g. world rank) rank r must report. */
static inline void cm_check_ranks(MPI_Comm comm, const int *ident, int me_ident, const char *what)
{
    int size = 0, rank = 0, r;
    CK(MPI_Comm_size(comm, &size));
    CK(MPI_Comm_rank(comm, &rank));
    EXPECT(ident[rank] == me_ident, "%s: rank %d should be process %d, is %d", what, rank, ident[rank], me_ident);
    for (r = 0; r < size; ++r) {
        int got = -1;
        if (r == rank) continue;
        CK(MPI_Sendrecv(&me_ident, 1, MPI_INT, r, 77, &got, 1, MPI_INT, r, 77, comm, MPI_STATUS_IGNORE));
        EXPECT(got == ident[r], "%s: rank %d answered %d, expected %d", what, r, got, ident[r]);
    }
}

#endif
