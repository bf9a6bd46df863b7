/* init_finalize: the smallest MPI job, for timing a launcher's start and end
 * (tools/bench/startup). */
#include <mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Finalize();
    return 0;
}
