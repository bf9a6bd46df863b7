/* reduce_local: the cost of a predefined reduction's kernel, without any
 * message.
 *
 * Each iteration is one MPI_Reduce_local of 4096 elements (2048 pairs for
 * MPI_MAXLOC on MPI_2INT: 4096 ints) of one (operation, datatype) pair into
 * the same inout buffer, which therefore holds the running result: after the
 * first call every call sees the same kind of data. Meant for instruction
 * counts under callgrind (see `instructions reduce` in this folder), where
 * runs of N and 2N iterations cancel start-up; run natively it prints ns per
 * call too.
 *
 * The Fortran datatypes are used through their C handles (MPI-1 4.9.2 lets a
 * C program reduce them); a pair whose handle this mpi.h does not define, or
 * that the library refuses, prints `n/a` and exits with status 3, so the
 * same file builds against any MPI and any version of Strata.
 *
 * usage: reduce_local PAIR [ITERATIONS] (default 1000)
 *        reduce_local list   (the pairs, one a line)
 * PAIR: sum:double max:int maxloc:2int prod:double sum:double_precision
 *       sum:complex lxor:logical sum:integer8 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ELEMENTS 4096

enum kind { K_DOUBLE, K_INT, K_2INT, K_COMPLEX, K_LOGICAL, K_INT64 };

struct pair {
    const char *name;
    int defined;     /* whether this mpi.h has the datatype */
    MPI_Op op;
    MPI_Datatype type;
    enum kind kind;
    int count;       /* in elements of the datatype */
};

/* The Fortran types are macros in Strata's, MPICH's and Open MPI's mpi.h;
 * Strata before the Fortran types has none of them. */
#ifdef MPI_DOUBLE_PRECISION
#define HAVE_DP 1
#define T_DP MPI_DOUBLE_PRECISION
#else
#define HAVE_DP 0
#define T_DP MPI_DATATYPE_NULL
#endif
#ifdef MPI_COMPLEX
#define HAVE_COMPLEX 1
#define T_COMPLEX MPI_COMPLEX
#else
#define HAVE_COMPLEX 0
#define T_COMPLEX MPI_DATATYPE_NULL
#endif
#ifdef MPI_LOGICAL
#define HAVE_LOGICAL 1
#define T_LOGICAL MPI_LOGICAL
#else
#define HAVE_LOGICAL 0
#define T_LOGICAL MPI_DATATYPE_NULL
#endif
#ifdef MPI_INTEGER8
#define HAVE_INTEGER8 1
#define T_INTEGER8 MPI_INTEGER8
#else
#define HAVE_INTEGER8 0
#define T_INTEGER8 MPI_DATATYPE_NULL
#endif

/* Handles are not constant expressions in every MPI (Open MPI's are
 * addresses), so the table is filled at run time. */
static int fill(struct pair *p)
{
    const struct pair pairs[] = {
        {"sum:double", 1, MPI_SUM, MPI_DOUBLE, K_DOUBLE, ELEMENTS},
        {"max:int", 1, MPI_MAX, MPI_INT, K_INT, ELEMENTS},
        {"maxloc:2int", 1, MPI_MAXLOC, MPI_2INT, K_2INT, ELEMENTS / 2},
        {"prod:double", 1, MPI_PROD, MPI_DOUBLE, K_DOUBLE, ELEMENTS},
        {"sum:double_precision", HAVE_DP, MPI_SUM, T_DP, K_DOUBLE, ELEMENTS},
        {"sum:complex", HAVE_COMPLEX, MPI_SUM, T_COMPLEX, K_COMPLEX, ELEMENTS},
        {"lxor:logical", HAVE_LOGICAL, MPI_LXOR, T_LOGICAL, K_LOGICAL, ELEMENTS},
        {"sum:integer8", HAVE_INTEGER8, MPI_SUM, T_INTEGER8, K_INT64, ELEMENTS},
    };
    const int n = (int)(sizeof pairs / sizeof pairs[0]);
    for (int i = 0; i < n; i++)
        p[i] = pairs[i];
    return n;
}

/* Inputs that keep every kind bounded and every branch of a kernel in use:
 * products of +-1 stay +-1, sums of doubles stay finite over any run,
 * integer sums wrap (as MPI's do), LXOR flips half of the flags each call,
 * and MAXLOC meets greater, smaller and equal values. */
static void init(enum kind kind, void *in, void *inout)
{
    for (int i = 0; i < ELEMENTS; i++) {
        switch (kind) {
        case K_DOUBLE:
            ((double *)in)[i] = (i % 3 == 0) ? -1.0 : 1.0;
            ((double *)inout)[i] = (i % 5 == 0) ? -1.0 : 1.0;
            break;
        case K_INT:
        case K_2INT: /* value, index, value, index... */
            if (kind == K_2INT && i % 2 == 1) {
                ((int *)in)[i] = i / 2;
                ((int *)inout)[i] = ELEMENTS - i / 2;
            } else {
                ((int *)in)[i] = (i * 7) % 13;
                ((int *)inout)[i] = (i * 5) % 11;
            }
            break;
        case K_COMPLEX: /* re, im pairs of floats: 2 * ELEMENTS of them */
            ((float *)in)[2 * i] = 1.0f;
            ((float *)in)[2 * i + 1] = -1.0f;
            ((float *)inout)[2 * i] = (float)(i % 9);
            ((float *)inout)[2 * i + 1] = 0.5f;
            break;
        case K_LOGICAL: /* Fortran LOGICAL: a default INTEGER, .TRUE. 1 */
            ((int *)in)[i] = i % 2;
            ((int *)inout)[i] = (i / 2) % 2;
            break;
        case K_INT64:
            ((int64_t *)in)[i] = (int64_t)i * 1000003;
            ((int64_t *)inout)[i] = -(int64_t)i;
            break;
        }
    }
}

int main(int argc, char **argv)
{
    struct pair pairs[16];
    const int npairs = fill(pairs);
    if (argc < 2) {
        fprintf(stderr, "usage: reduce_local PAIR [ITERATIONS] | reduce_local list\n");
        return 2;
    }
    if (strcmp(argv[1], "list") == 0) {
        for (int i = 0; i < npairs; i++)
            printf("%s\n", pairs[i].name);
        return 0;
    }
    const struct pair *p = NULL;
    for (int i = 0; i < npairs; i++)
        if (strcmp(argv[1], pairs[i].name) == 0)
            p = &pairs[i];
    if (p == NULL) {
        fprintf(stderr, "reduce_local: unknown pair %s (reduce_local list)\n", argv[1]);
        return 2;
    }
    const long n = argc > 2 ? atol(argv[2]) : 1000;

    MPI_Init(&argc, &argv);
    if (!p->defined) {
        printf("reduce_local: %s: n/a (not in this mpi.h)\n", p->name);
        MPI_Finalize();
        return 3;
    }
    /* Errors outside a communicator are raised on MPI_COMM_WORLD. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);

    /* 16 bytes per element covers the largest kind (8) with room to spare;
     * doubles keep the buffers aligned for every kind. */
    double *in = malloc(ELEMENTS * 16);
    double *inout = malloc(ELEMENTS * 16);
    if (in == NULL || inout == NULL) {
        fprintf(stderr, "reduce_local: out of memory\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    init(p->kind, in, inout);

    const double t0 = MPI_Wtime();
    for (long i = 0; i < n; i++) {
        const int rc = MPI_Reduce_local(in, inout, p->count, p->type, p->op);
        if (rc != MPI_SUCCESS) {
            char msg[MPI_MAX_ERROR_STRING];
            int len = 0;
            MPI_Error_string(rc, msg, &len);
            printf("reduce_local: %s: n/a (MPI_Reduce_local: %s)\n", p->name, msg);
            MPI_Finalize();
            return 3;
        }
    }
    const double t1 = MPI_Wtime();
    printf("reduce_local: %s, %d elements, %ld iterations, %.1f ns each\n", p->name, p->count, n,
           n > 0 ? (t1 - t0) / (double)n * 1e9 : 0.0);
    free(in);
    free(inout);
    MPI_Finalize();
    return 0;
}
