/* sites.xml's communicators in the transparent mode (compiled with
 * `-include mpi_named.h`): the intercommunicator first, then the sites. */
#include <mpi.h>

#include "named_report.h"

MPI_Comm P4, PD, P4_PD;

int main(int argc, char **argv) {
    int world;
    MPI_Init(&argc, &argv);
    /* A process outside a communicator learns it from an error (MPI_ERR_COMM). */
    MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &world); /* MPI_COMM_WORLD still works under the header */
    NAMED_SHOW(P4_PD);
    NAMED_SHOW(P4);
    NAMED_SHOW(PD);
    named_report("P4_PD/mine", P4_PD);
    named_report("P4/mine", P4);
    named_report("PD/mine", PD);
    MPI_Finalize();
    return world < 0;
}
