/* colors.xml's communicators in the transparent mode (compiled with
 * `-include mpi_named.h`, nothing else named): PINK is asked for first, which
 * builds RED, its parent, on the way. */
#include <mpi.h>

#include "named_report.h"

MPI_Comm RED = MPI_COMM_NULL, PINK = MPI_COMM_NULL, BLACK = MPI_COMM_NULL;

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    /* A process outside a communicator learns it from an error (MPI_ERR_COMM). */
    MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    NAMED_SHOW(PINK);
    NAMED_SHOW(RED);
    NAMED_SHOW(BLACK);
    named_report("RED/mine", RED);
    named_report("PINK/mine", PINK);
    named_report("BLACK/mine", BLACK);
    MPI_Finalize();
    return 0;
}
