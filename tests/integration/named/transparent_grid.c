/* grid.xml's communicators in the transparent mode (compiled with
 * `-include mpi_named.h`): each process gets its own row and column. */
#include <mpi.h>

#include "named_report.h"

static MPI_Comm HORIZONTAL = MPI_COMM_NULL;
static MPI_Comm VERTICAL = MPI_COMM_NULL;
static MPI_Comm EDGES = MPI_COMM_NULL;

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    NAMED_SHOW(HORIZONTAL);
    NAMED_SHOW(VERTICAL);
    NAMED_SHOW(EDGES);
    named_report("HORIZONTAL/mine", HORIZONTAL);
    named_report("VERTICAL/mine", VERTICAL);
    named_report("EDGES/mine", EDGES);
    MPI_Finalize();
    return 0;
}
