/* The MetaMPICH paper's idiom for externally defined communicators (its
 * section 3.3), its two fragments as printed, inside a main and compiled with
 * `-include mpi_named.h`, nothing else named. The only change is the
 * parenthesis the paper's second fragment lacks. Each process prints whether
 * it is in MPI_COMM_RED (its rank and size there) and whether it has the
 * intercommunicator MPI_COMM_INTER (its remote size). */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int rank, flag, world, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    {

MPI_Comm MPI_COMM_RED
    = MPI_COMM_NULL;

MPI_Errhandler_set(MPI_COMM_WORLD,
                  MPI_ERRORS_RETURN);

if(MPI_Comm_rank(MPI_COMM_RED, &rank)
    == MPI_SUCCESS)
{
    /* I am part of MPI_COMM_RED! */
    MPI_Comm_size(MPI_COMM_RED, &size);
    printf("world %d: in MPI_COMM_RED: rank %d of %d\n", world, rank, size);
}
else
{
    /* I am NOT in MPI_COMM_RED! */
    printf("world %d: not in MPI_COMM_RED\n", world);
}

    }
    MPI_Comm MPI_COMM_INTER = MPI_COMM_NULL;

if((MPI_Comm_test_inter(MPI_COMM_INTER,
                      &flag) == MPI_SUCCESS) && (flag))
{
    /* inter-communicator created! */
    MPI_Comm_remote_size(MPI_COMM_INTER, &size);
    printf("world %d: MPI_COMM_INTER: remote size %d\n", world, size);
}
else
{
    printf("world %d: no MPI_COMM_INTER\n", world);
}

    MPI_Finalize();
    return 0;
}
