/* Externally defined communicators: every name of the job's communicator
 * file, built with MPIX_Comm_create_named (each process gets the one of that
 * name it is in), and a sum over each, e.g. with the file mpirun writes from
 * the job:
 *     mpirun -gencomm -jobfile examples/named-job.yaml
 * or with one of your own: mpirun -commfile comms.xml -np 8 build/examples/named */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int world, count, n, len;
    char processor[MPI_MAX_PROCESSOR_NAME];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &world);
    MPI_Get_processor_name(processor, &len);
    MPIX_Comm_named_count(&count);
    if (world == 0) printf("the communicator file defines %d name(s)\n", count);
    for (n = 0; n < count; ++n) {
        char name[MPI_MAX_OBJECT_NAME];
        int colors, inter, rank, size;
        MPI_Comm c;
        MPIX_Comm_named_nth(n, name, &colors, &inter);
        MPIX_Comm_create_named(MPI_COMM_WORLD, name, MPIX_NAMED_MINE, &c);
        if (c == MPI_COMM_NULL) continue;
        MPI_Comm_rank(c, &rank);
        MPI_Comm_size(c, &size);
        if (inter) {
            int remote;
            MPI_Comm_remote_size(c, &remote);
            printf("world rank %d (%s): %s: rank %d of %d, facing %d\n", world, processor, name, rank, size, remote);
        } else {
            int sum;
            MPI_Allreduce(&world, &sum, 1, MPI_INT, MPI_SUM, c);
            printf("world rank %d (%s): %s: rank %d of %d, sum of world ranks %d\n", world, processor, name, rank,
                   size, sum);
        }
        MPI_Comm_free(&c);
    }
    MPI_Finalize();
    return 0;
}
