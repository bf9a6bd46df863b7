/* memcpy_bw: memcpy bandwidth, the reference for single-copy shared memory.
 *
 * Times memcpy of each size between two private buffers, with the same sizes,
 * measuring scheme and CSV as pingpong.c. Here the time columns are the time
 * of one memcpy (not half a round trip) and mbps is size / that time.
 *
 *   cc -O2 memcpy_bw.c -o memcpy_bw && ./memcpy_bw
 */
#if !defined(_POSIX_C_SOURCE) && !defined(_GNU_SOURCE)
#define _POSIX_C_SOURCE 200809L
#endif

#include "bench_common.h"

struct mc_ctx {
    unsigned char *src;
    unsigned char *dst;
};

static double mc_run(void *vctx, long size, long reps)
{
    struct mc_ctx *c = vctx;
    double t0 = bench_now();
    for (long r = 0; r < reps; r++) {
        memcpy(c->dst, c->src, (size_t)size);
        /* Keep the compiler from merging or dropping the copies. */
        __asm__ __volatile__("" : : "r"(c->dst), "r"(c->src) : "memory");
    }
    double t1 = bench_now();
    if (size > 0 && memcmp(c->dst, c->src, (size_t)size) != 0) {
        fprintf(stderr, "memcpy_bw: copy of size %ld is wrong\n", size);
        exit(3);
    }
    return t1 - t0;
}

int main(int argc, char **argv)
{
    struct bench_options opt;
    int prc = bench_parse_args(argc, argv, &opt, "memcpy", "memcpy",
                               "memcpy bandwidth between two buffers", 1);
    if (prc != 0)
        return prc < 0 ? 1 : 0;

    long maxsize = bench_max_size(&opt);
    size_t bytes = (size_t)(maxsize > 0 ? maxsize : 1);
    unsigned char *src = malloc(bytes);
    unsigned char *dst = malloc(bytes);
    if (src == NULL || dst == NULL) {
        fprintf(stderr, "memcpy_bw: cannot allocate 2 x %zu bytes\n", bytes);
        return 1;
    }
    for (size_t i = 0; i < bytes; i++)
        src[i] = (unsigned char)(i % 251 + 1);
    memset(dst, 0, bytes);

    struct mc_ctx ctx = {src, dst};
    bench_print_header(&opt);
    for (int i = 0; i < opt.nsizes; i++)
        bench_measure(&opt, opt.sizes[i], 1.0, mc_run, &ctx);
    free(src);
    free(dst);
    return 0;
}
