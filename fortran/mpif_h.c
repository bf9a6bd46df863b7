/* Prints mpif.h from mpi.h, so that the two can never disagree: the build runs
 * it (fortran/meson.build). The header is valid in fixed and in free form:
 * statements start in column 7 and end before column 73, comments start with
 * '!' in column 1, and nothing is continued (a common block is declared by
 * several COMMON statements instead). */
#include <stdio.h>
#include <stdlib.h>

#include "mpi.h"

struct constant {
    const char *name;
    long long value;
};

#define C(name) {#name, (long long)(name)}
#define SECTION(title) {title, 0}

/* A null name ends the table; a section's title is a name starting with '!'. */
static const struct constant constants[] = {
    SECTION("! Version"),
    C(MPI_VERSION), C(MPI_SUBVERSION),
    SECTION("! Error classes (MPI-1.3 7.4, and MPI-2's from MPI_ERR_NO_MEM on)"),
    C(MPI_SUCCESS), C(MPI_ERR_BUFFER), C(MPI_ERR_COUNT), C(MPI_ERR_TYPE), C(MPI_ERR_TAG), C(MPI_ERR_COMM),
    C(MPI_ERR_RANK), C(MPI_ERR_REQUEST), C(MPI_ERR_ROOT), C(MPI_ERR_GROUP), C(MPI_ERR_OP), C(MPI_ERR_TOPOLOGY),
    C(MPI_ERR_DIMS), C(MPI_ERR_ARG), C(MPI_ERR_UNKNOWN), C(MPI_ERR_TRUNCATE), C(MPI_ERR_OTHER), C(MPI_ERR_INTERN),
    C(MPI_ERR_IN_STATUS), C(MPI_ERR_PENDING), C(MPI_ERR_NO_MEM), C(MPI_ERR_INFO), C(MPI_ERR_INFO_KEY),
    C(MPI_ERR_INFO_VALUE), C(MPI_ERR_INFO_NOKEY), C(MPI_ERR_PORT), C(MPI_ERR_NAME), C(MPI_ERR_SERVICE), C(MPIX_ERR_QOS),
    C(MPI_ERR_LASTCODE),
    SECTION("! Communicators, groups and comparisons"),
    C(MPI_COMM_NULL), C(MPI_COMM_WORLD), C(MPI_COMM_SELF), C(MPI_GROUP_NULL), C(MPI_GROUP_EMPTY),
    C(MPI_IDENT), C(MPI_CONGRUENT), C(MPI_SIMILAR), C(MPI_UNEQUAL), C(MPI_GRAPH), C(MPI_CART),
    SECTION("! Datatypes: Fortran's, MPI's own, and C's for mixed-language programs"),
    C(MPI_DATATYPE_NULL), C(MPI_INTEGER), C(MPI_REAL), C(MPI_DOUBLE_PRECISION), C(MPI_COMPLEX),
    C(MPI_DOUBLE_COMPLEX), C(MPI_LOGICAL), C(MPI_CHARACTER), C(MPI_2INTEGER), C(MPI_2REAL),
    C(MPI_2DOUBLE_PRECISION), C(MPI_INTEGER1), C(MPI_INTEGER2), C(MPI_INTEGER4), C(MPI_INTEGER8),
    C(MPI_REAL4), C(MPI_REAL8), C(MPI_BYTE), C(MPI_PACKED), C(MPI_LB), C(MPI_UB),
    C(MPI_CHAR), C(MPI_SHORT), C(MPI_INT), C(MPI_LONG), C(MPI_UNSIGNED_CHAR), C(MPI_UNSIGNED_SHORT),
    C(MPI_UNSIGNED), C(MPI_UNSIGNED_LONG), C(MPI_FLOAT), C(MPI_DOUBLE), C(MPI_LONG_DOUBLE),
    C(MPI_LONG_LONG_INT), C(MPI_LONG_LONG), C(MPI_SIGNED_CHAR), C(MPI_UNSIGNED_LONG_LONG), C(MPI_WCHAR),
    C(MPI_2INT), C(MPI_FLOAT_INT), C(MPI_DOUBLE_INT), C(MPI_LONG_INT), C(MPI_SHORT_INT),
    C(MPI_LONG_DOUBLE_INT),
    SECTION("! Reduction operations"),
    C(MPI_OP_NULL), C(MPI_MAX), C(MPI_MIN), C(MPI_SUM), C(MPI_PROD), C(MPI_LAND), C(MPI_BAND), C(MPI_LOR),
    C(MPI_BOR), C(MPI_LXOR), C(MPI_BXOR), C(MPI_MAXLOC), C(MPI_MINLOC),
    SECTION("! Requests, error handlers, info"),
    C(MPI_REQUEST_NULL), C(MPI_ERRHANDLER_NULL), C(MPI_ERRORS_ARE_FATAL), C(MPI_ERRORS_RETURN),
    C(MPI_INFO_NULL),
    SECTION("! Attribute keys (MPICHX_TOPOLOGY_* hold pointers: C only)"),
    C(MPI_KEYVAL_INVALID), C(MPI_TAG_UB), C(MPI_HOST), C(MPI_IO), C(MPI_WTIME_IS_GLOBAL),
    C(MPIX_PARALLEL_STREAMS),
    C(MPIX_QOS),
    SECTION("! Special values and limits"),
    C(MPIX_TOPOLOGY_MAX_LEVELS),
    C(MPI_ANY_SOURCE), C(MPI_PROC_NULL), C(MPI_ROOT), C(MPI_ANY_TAG), C(MPI_UNDEFINED), C(MPI_BSEND_OVERHEAD),
    C(MPI_MAX_PROCESSOR_NAME), C(MPI_MAX_ERROR_STRING), C(MPI_MAX_OBJECT_NAME), C(MPI_MAX_INFO_KEY),
    C(MPI_MAX_INFO_VAL), C(MPI_MAX_PORT_NAME),
    C(MPI_THREAD_SINGLE), C(MPI_THREAD_FUNNELED), C(MPI_THREAD_SERIALIZED), C(MPI_THREAD_MULTIPLE),
    SECTION("! Status: an INTEGER array; MPI_SOURCE, MPI_TAG, MPI_ERROR index it"),
    {"MPI_STATUS_SIZE", (long long)(sizeof(MPI_Status) / sizeof(MPI_Fint))},
    {"MPI_SOURCE", (long long)(offsetof(MPI_Status, MPI_SOURCE) / sizeof(MPI_Fint) + 1)},
    {"MPI_TAG", (long long)(offsetof(MPI_Status, MPI_TAG) / sizeof(MPI_Fint) + 1)},
    {"MPI_ERROR", (long long)(offsetof(MPI_Status, MPI_ERROR) / sizeof(MPI_Fint) + 1)},
    SECTION("! The kind of INTEGER that holds an address (MPI-2 routines)"),
    {"MPI_ADDRESS_KIND", (long long)sizeof(MPI_Aint)},
    {NULL, 0},
};

static void line(const char *text) {
    printf("%s\n", text);
}

int main(void) {
    line("! mpif.h: Strata's MPI-1 for Fortran 77 (and later Fortran through");
    line("! INCLUDE 'mpif.h'). Generated from mpi.h by fortran/mpif_h.c when");
    line("! Strata is built: do not edit. Valid in fixed and free form.");
    for (const struct constant *c = constants; c->name != NULL; ++c) {
        if (c->name[0] == '!') {
            printf("!\n%s\n", c->name);
            continue;
        }
        if (c->value < -2147483647LL - 1 || c->value > 2147483647LL) {
            fprintf(stderr, "mpif_h: %s = %lld does not fit in a default INTEGER\n", c->name, c->value);
            return EXIT_FAILURE;
        }
        printf("      INTEGER %s\n      PARAMETER (%s=%lld)\n", c->name, c->name, c->value);
    }
    line("!");
    line("! Addresses that mean MPI_BOTTOM, MPI_IN_PLACE and the ignored statuses");
    line("! to the library (the names are its own; never assign them)");
    line("      INTEGER MPI_BOTTOM, MPI_IN_PLACE");
    line("      INTEGER MPI_STATUS_IGNORE(MPI_STATUS_SIZE)");
    line("      INTEGER MPI_STATUSES_IGNORE(MPI_STATUS_SIZE,1)");
    line("      COMMON /STRATAF/ MPI_BOTTOM, MPI_IN_PLACE");
    line("      COMMON /STRATAF/ MPI_STATUS_IGNORE, MPI_STATUSES_IGNORE");
    line("      SAVE /STRATAF/");
    line("!");
    line("! Functions, and the procedures to pass as attribute callbacks");
    line("      DOUBLE PRECISION MPI_WTIME, MPI_WTICK");
    line("      DOUBLE PRECISION PMPI_WTIME, PMPI_WTICK");
    line("      EXTERNAL MPI_WTIME, MPI_WTICK, PMPI_WTIME, PMPI_WTICK");
    line("      INTEGER(KIND=MPI_ADDRESS_KIND) MPI_AINT_ADD, MPI_AINT_DIFF");
    line("      INTEGER(KIND=MPI_ADDRESS_KIND) PMPI_AINT_ADD, PMPI_AINT_DIFF");
    line("      EXTERNAL MPI_AINT_ADD, MPI_AINT_DIFF");
    line("      EXTERNAL PMPI_AINT_ADD, PMPI_AINT_DIFF");
    line("      EXTERNAL MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, MPI_DUP_FN");
    line("      EXTERNAL MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN");
    line("      EXTERNAL MPI_COMM_DUP_FN");
    return EXIT_SUCCESS;
}
