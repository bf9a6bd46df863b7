/* Shared helpers for the Strata collective conformance tests: the reporting,
 * watchdog and data patterns of the point-to-point tests, plus a few
 * collective-specific checks. */
#ifndef COLL_COMMON_H
#define COLL_COMMON_H

#include "pt2pt_common.h"

/* A byte that marks memory a collective must not touch. */
#define COLL_SENTINEL 0xA7

/* Expect an MPI call to fail with error class cls (the communicator's handler
 * must be MPI_ERRORS_RETURN). */
#define EXPECT_CLASS(call, cls)                                                          \
    do {                                                                                 \
        int rc_ = (call);                                                                \
        EXPECT(rc_ != MPI_SUCCESS, "line %d: %s succeeded, expected class %d", __LINE__, \
               #call, (cls));                                                            \
        EXPECT(pt_error_class(rc_) == (cls), "line %d: %s gave class %d, expected %d",   \
               __LINE__, #call, pt_error_class(rc_), (cls));                             \
    } while (0)

static inline void *coll_sentinel_alloc(size_t n)
{
    unsigned char *p = (unsigned char *)pt_malloc(n + 64);
    memset(p, COLL_SENTINEL, n + 64);
    return p;
}

/* The 64 bytes after n bytes must still hold the sentinel. */
static inline void coll_check_tail(const void *buf, size_t n, const char *what)
{
    pt_verify_const((const unsigned char *)buf + n, 64, COLL_SENTINEL, what);
}

#endif /* COLL_COMMON_H */
