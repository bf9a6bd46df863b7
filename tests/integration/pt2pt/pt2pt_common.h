/* Shared helpers for the Strata point-to-point conformance tests.
 *
 * Every test is a C99 program that uses only what Strata's <mpi.h> declares.
 * On any failure a test prints one line to stderr naming the program, the
 * rank, the phase and what differed, then calls MPI_Abort so that the whole
 * job ends with a non-zero status. A watchdog (SIGALRM, 100 s by default,
 * PT2PT_WATCHDOG=<seconds> to change it, 0 to disable) reports the phase a
 * hung rank was in.
 *
 * The tests are also built against other MPI libraries (MPICH) to validate
 * them; the few compatibility declarations below exist only for that.
 */
#ifndef PT2PT_COMMON_H
#define PT2PT_COMMON_H

#if !defined(_GNU_SOURCE) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include <mpi.h>

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* MPI-3 libraries dropped the MPI-1 error handler calls from their headers
 * although they still export them (as aliases of the MPI-2 names). Strata's
 * header declares them. */
#if !defined(STRATA_VERSION) && MPI_VERSION >= 3
int MPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler);
int MPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler);
int MPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler);
#endif

/* PT_STRICT: the few checks where the reference library used to validate
 * these tests (MPICH 4.0) deviates from MPI-1.3 are strict when building
 * against Strata (or with -DPT2PT_STRICT) and lenient otherwise. Each use
 * names the deviation. */
#if defined(STRATA_VERSION) || defined(PT2PT_STRICT)
#define PT_STRICT 1
#else
#define PT_STRICT 0
#endif

/* ------------------------------------------------------------------------ */
/* Reporting                                                                 */

static const char *pt_test_name = "pt2pt";
static int pt_rank = -1;
static int pt_size = 0;
static const char *volatile pt_phase = "init";

static inline void pt_set_phase(const char *phase) { pt_phase = phase; }

static inline void pt_fail(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: rank %d/%d: FAIL in phase '%s': %s\n", pt_test_name, pt_rank, pt_size,
            pt_phase, msg);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}

static inline void pt_check_rc(int rc, const char *call, int line)
{
    if (rc != MPI_SUCCESS) {
        char str[MPI_MAX_ERROR_STRING + 1];
        int len = 0;
        int cls = -1;
        memset(str, 0, sizeof str);
        MPI_Error_string(rc, str, &len);
        MPI_Error_class(rc, &cls);
        pt_fail("line %d: %s returned %d (class %d: %s)", line, call, rc, cls, str);
    }
}

/* Check that an MPI call succeeded. */
#define CK(call) pt_check_rc((call), #call, __LINE__)

/* Check a condition that must hold. */
#define EXPECT(cond, ...)                                                   \
    do {                                                                    \
        if (!(cond)) {                                                      \
            pt_fail(__VA_ARGS__);                                           \
        }                                                                   \
    } while (0)

static void pt_watchdog(int sig)
{
    /* Only async-signal-safe calls here: build the line by hand. */
    char buf[512];
    char num[16];
    const char *parts[6];
    int n = 0;
    int i;
    int r = pt_rank;
    int nd = 0;
    (void)sig;
    if (r < 0) {
        num[nd++] = '?';
    } else {
        char tmp[16];
        int t = 0;
        do {
            tmp[t++] = (char)('0' + r % 10);
            r /= 10;
        } while (r > 0 && t < 15);
        while (t > 0) {
            num[nd++] = tmp[--t];
        }
    }
    num[nd] = '\0';
    parts[0] = pt_test_name;
    parts[1] = ": rank ";
    parts[2] = num;
    parts[3] = ": watchdog expired (test hung) in phase '";
    parts[4] = pt_phase;
    parts[5] = "'\n";
    for (i = 0; i < 6; i++) {
        size_t l = strlen(parts[i]);
        if (n + (int)l >= (int)sizeof buf) {
            break;
        }
        memcpy(buf + n, parts[i], l);
        n += (int)l;
    }
    if (write(2, buf, (size_t)n) < 0) {
        /* nothing more can be done */
    }
    _exit(3);
}

/* Initialise MPI and the test harness. Returns the rank in MPI_COMM_WORLD. */
static inline int pt_init(int *argc, char ***argv, const char *name)
{
    const char *wd = getenv("PT2PT_WATCHDOG");
    int secs = 100;
    pt_test_name = name;
    if (wd != NULL) {
        secs = atoi(wd);
    }
    if (secs > 0) {
        signal(SIGALRM, pt_watchdog);
        alarm((unsigned)secs);
    }
    CK(MPI_Init(argc, argv));
    CK(MPI_Comm_rank(MPI_COMM_WORLD, &pt_rank));
    CK(MPI_Comm_size(MPI_COMM_WORLD, &pt_size));
    return pt_rank;
}

/* Require at least min ranks; with fewer, report and fail. */
static inline void pt_require_size(int min)
{
    if (pt_size < min) {
        pt_fail("needs at least %d processes, got %d", min, pt_size);
    }
}

/* Final synchronisation, success line, MPI_Finalize. */
static inline int pt_finish(void)
{
    pt_set_phase("finish");
    CK(MPI_Barrier(MPI_COMM_WORLD));
    if (pt_rank == 0) {
        printf("%s: ok (%d processes)\n", pt_test_name, pt_size);
        fflush(stdout);
    }
    CK(MPI_Finalize());
    return 0;
}

static inline void pt_sleep_ms(int ms)
{
    struct timespec ts;
    ts.tv_sec = ms / 1000;
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0) {
    }
}

static inline void *pt_malloc(size_t n)
{
    void *p = malloc(n == 0 ? 1 : n);
    if (p == NULL) {
        pt_fail("out of memory allocating %lu bytes", (unsigned long)n);
    }
    return p;
}

/* ------------------------------------------------------------------------ */
/* Data patterns                                                             */

static inline uint32_t pt_mix(uint32_t x)
{
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

/* A seed naming one message: sender, receiver, tag and a free value. */
static inline uint32_t pt_seed(int src, int dst, int tag, int extra)
{
    uint32_t s = pt_mix((uint32_t)src * 0x9E3779B1U + 0x1234567U);
    s = pt_mix(s ^ ((uint32_t)dst * 0x85EBCA77U + 0x2545F491U));
    s = pt_mix(s ^ ((uint32_t)tag * 0xC2B2AE3DU + 0x68E31DA4U));
    s = pt_mix(s ^ ((uint32_t)extra * 0x27D4EB2FU + 0xB5297A4DU));
    s = pt_mix(s ^ ((uint32_t)pt_size * 0x165667B1U));
    return s;
}

/* Word i of the pattern of seed. */
static inline uint32_t pt_word(uint32_t seed, size_t i)
{
    return pt_mix(seed ^ pt_mix((uint32_t)i + 0x3C6EF372U));
}

/* Byte i of the pattern of seed. */
static inline unsigned char pt_byte(uint32_t seed, size_t i)
{
    return (unsigned char)(pt_word(seed, i >> 2) >> (8 * (i & 3)));
}

static inline void pt_fill(void *buf, size_t n, uint32_t seed)
{
    unsigned char *p = (unsigned char *)buf;
    size_t words = n / 4;
    size_t i;
    for (i = 0; i < words; i++) {
        uint32_t w = pt_word(seed, i);
        p[4 * i] = (unsigned char)w;
        p[4 * i + 1] = (unsigned char)(w >> 8);
        p[4 * i + 2] = (unsigned char)(w >> 16);
        p[4 * i + 3] = (unsigned char)(w >> 24);
    }
    for (i = words * 4; i < n; i++) {
        p[i] = pt_byte(seed, i);
    }
}

/* Verify n bytes against the pattern; on a difference fail naming what. */
static inline void pt_verify(const void *buf, size_t n, uint32_t seed, const char *what)
{
    const unsigned char *p = (const unsigned char *)buf;
    size_t words = n / 4;
    size_t i;
    size_t first = n;
    for (i = 0; i < words; i++) {
        uint32_t w = pt_word(seed, i);
        if (p[4 * i] != (unsigned char)w || p[4 * i + 1] != (unsigned char)(w >> 8) ||
            p[4 * i + 2] != (unsigned char)(w >> 16) || p[4 * i + 3] != (unsigned char)(w >> 24)) {
            first = 4 * i;
            break;
        }
    }
    if (first == n) {
        for (i = words * 4; i < n; i++) {
            if (p[i] != pt_byte(seed, i)) {
                first = i;
                break;
            }
        }
    }
    if (first < n) {
        size_t bad = 0;
        size_t j;
        while (p[first] == pt_byte(seed, first)) {
            first++;
        }
        for (j = first; j < n; j++) {
            if (p[j] != pt_byte(seed, j)) {
                bad++;
            }
        }
        pt_fail("%s: %lu-byte message differs first at byte %lu (expected 0x%02x, got 0x%02x); "
                "%lu bytes differ",
                what, (unsigned long)n, (unsigned long)first, pt_byte(seed, first), p[first],
                (unsigned long)bad);
    }
}

/* Verify that n bytes all hold value v (a sentinel that must be untouched). */
static inline void pt_verify_const(const void *buf, size_t n, unsigned char v, const char *what)
{
    const unsigned char *p = (const unsigned char *)buf;
    size_t i;
    for (i = 0; i < n; i++) {
        if (p[i] != v) {
            pt_fail("%s: byte %lu of %lu was modified (expected untouched 0x%02x, got 0x%02x)", what,
                    (unsigned long)i, (unsigned long)n, v, p[i]);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Status helpers                                                            */

/* Count of a status in datatype, failing on an MPI error. */
static inline int pt_count(const MPI_Status *st, MPI_Datatype dt)
{
    int c = -12345;
    CK(MPI_Get_count(st, dt, &c));
    return c;
}

/* Check a status describes a received message (source, tag, count). */
static inline void pt_expect_status(const MPI_Status *st, int src, int tag, MPI_Datatype dt, int count,
                                    const char *what)
{
    int c = pt_count(st, dt);
    EXPECT(st->MPI_SOURCE == src, "%s: status.MPI_SOURCE is %d, expected %d", what, st->MPI_SOURCE, src);
    EXPECT(st->MPI_TAG == tag, "%s: status.MPI_TAG is %d, expected %d", what, st->MPI_TAG, tag);
    EXPECT(c == count, "%s: MPI_Get_count gives %d, expected %d", what, c, count);
}

/* Check an empty status: source MPI_ANY_SOURCE, tag MPI_ANY_TAG, count 0,
 * not cancelled. (MPI-1.3 does not define the MPI_ERROR field of an empty
 * status, so it is not checked.) */
static inline void pt_expect_empty(const MPI_Status *st, const char *what)
{
    int flag = -1;
    pt_expect_status(st, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_BYTE, 0, what);
    CK(MPI_Test_cancelled(st, &flag));
    EXPECT(flag == 0, "%s: empty status reports cancelled", what);
}

/* A status with every public field set to a recognisable junk value. */
static inline void pt_status_junk(MPI_Status *st)
{
    memset(st, 0x5A, sizeof *st);
    st->MPI_SOURCE = -77;
    st->MPI_TAG = -77;
    st->MPI_ERROR = -77;
}

static inline int pt_error_class(int rc)
{
    int cls = -1;
    CK(MPI_Error_class(rc, &cls));
    return cls;
}

#endif /* PT2PT_COMMON_H */
