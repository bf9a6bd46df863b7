/* Writes MPICH's MPI_Dims_create answers for test_dims.cpp to compare with:
 * every nnodes up to 6000 over 3 dimensions and up to 3000 over 2, 4 and 5,
 * all entries free. Regenerate dims_mpich.txt with the system MPICH:
 *   mpicc.mpich dims_mpich.c -o dims_mpich && ./dims_mpich > dims_mpich.txt
 */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char **argv) {
    int version, subversion, len, dims[5];
    char library[MPI_MAX_LIBRARY_VERSION_STRING];
    MPI_Init(&argc, &argv);
    MPI_Get_version(&version, &subversion);
    MPI_Get_library_version(library, &len);
    for (int i = 0; i < len; ++i) {
        if (library[i] == '\n') library[i] = ' ';
    }
    printf("# nnodes ndims dims..., from MPI_Dims_create of: %.60s\n", library);
    for (int ndims = 2; ndims <= 5; ++ndims) {
        const int last = ndims == 3 ? 6000 : 3000;
        for (int nodes = 1; nodes <= last; ++nodes) {
            for (int i = 0; i < ndims; ++i) dims[i] = 0;
            MPI_Dims_create(nodes, ndims, dims);
            printf("%d %d", nodes, ndims);
            for (int i = 0; i < ndims; ++i) printf(" %d", dims[i]);
            printf("\n");
        }
    }
    MPI_Finalize();
    return 0;
}
