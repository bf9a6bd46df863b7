/* Builds every communicator the job's file defines through the API: each
 * colour of each name with MPI_COMM_WORLD as the parent, then each name with
 * MPIX_NAMED_MINE, and reports them (named_report.h). With the argument
 * "errors", first checks what the API refuses, with MPI_ERRORS_RETURN. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "named_report.h"

static int failures = 0;

static void expect(int got, int want, MPI_Comm made, const char *what) {
    if (got != want || made != MPI_COMM_NULL) {
        printf("world %d: FAILED %s: error %d (want %d), communicator %s\n", named_world_rank(), what, got, want,
               made == MPI_COMM_NULL ? "null" : "made");
        ++failures;
    }
}

static void errors_check(const char *first_name) {
    MPI_Comm c = MPI_COMM_WORLD;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    int rc = MPIX_Comm_create_named(MPI_COMM_WORLD, "NO_SUCH_NAME", MPIX_NAMED_MINE, &c);
    expect(rc, MPI_ERR_ARG, c, "an undefined name");
    c = MPI_COMM_WORLD;
    rc = MPIX_Comm_create_named(MPI_COMM_WORLD, first_name, 99, &c);
    expect(rc, MPI_ERR_ARG, c, "a color out of range");
    c = MPI_COMM_WORLD;
    rc = MPIX_Comm_create_named(MPI_COMM_SELF, first_name, 0, &c);
    expect(rc, MPI_ERR_COMM, c, "a parent without the definition's processes");
    c = MPI_COMM_WORLD;
    rc = MPIX_Comm_create_named(MPI_COMM_NULL, first_name, 0, &c);
    expect(rc, MPI_ERR_COMM, c, "MPI_COMM_NULL as the parent");
    char name[MPI_MAX_OBJECT_NAME];
    int colors, inter;
    rc = MPIX_Comm_named_nth(1000, name, &colors, &inter);
    if (rc != MPI_ERR_ARG) {
        printf("world %d: FAILED MPIX_Comm_named_nth(1000) gave %d\n", named_world_rank(), rc);
        ++failures;
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    if (failures == 0) printf("world %d: errors: ok\n", named_world_rank());
}

int main(int argc, char **argv) {
    int count, n, color;
    MPI_Init(&argc, &argv);
    MPIX_Comm_named_count(&count);
    for (n = 0; n < count; ++n) {
        char name[MPI_MAX_OBJECT_NAME], label[MPI_MAX_OBJECT_NAME + 16], got[MPI_MAX_OBJECT_NAME];
        int colors, inter, len;
        MPIX_Comm_named_nth(n, name, &colors, &inter);
        if (n == 0 && argc > 1 && strcmp(argv[1], "errors") == 0) errors_check(name);
        if (named_world_rank() == 0) printf("name %s: %d color(s)%s\n", name, colors, inter ? ", intercomm" : "");
        for (color = 0; color <= colors; ++color) {
            MPI_Comm c;
            const int which = color < colors ? color : MPIX_NAMED_MINE;
            MPIX_Comm_create_named(MPI_COMM_WORLD, name, which, &c);
            if (which == MPIX_NAMED_MINE) {
                snprintf(label, sizeof label, "%s/mine", name);
            } else {
                snprintf(label, sizeof label, "%s/%d", name, color);
            }
            if (c != MPI_COMM_NULL) {
                MPI_Comm_get_name(c, got, &len);
                if (strcmp(got, name) != 0) printf("world %d: FAILED the name is '%s'\n", named_world_rank(), got);
            }
            named_report(label, c);
            if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
        }
    }
    MPI_Finalize();
    return 0;
}
