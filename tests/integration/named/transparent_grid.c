/* grid.xml's communicators in the transparent mode (compiled with
 * `-include mpi_named.h`): each process gets its own row and column. */
#include <mpi.h>

#include "named_report.h"

static MPI_Comm HORIZONTAL = MPI_COMM_NULL;
static MPI_Comm VERTICAL = MPI_COMM_NULL;
static MPI_Comm EDGES = MPI_COMM_NULL;

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    /* A process outside a communicator learns it from an error (MPI_ERR_COMM). */
    MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    NAMED_SHOW(HORIZONTAL);
    NAMED_SHOW(VERTICAL);
    NAMED_SHOW(EDGES);
    named_report("HORIZONTAL/mine", HORIZONTAL);
    named_report("VERTICAL/mine", VERTICAL);
    named_report("EDGES/mine", EDGES);
    MPI_Finalize();
    return 0;
}
