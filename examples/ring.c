/* Passes a token around all ranks several times, then a large message
 * around the ring with MPI_Sendrecv, checking every byte. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    int rank, size, lap, token = 0, n = 1 << 20, i, bad = 0;
    char name[MPI_MAX_PROCESSOR_NAME];
    int len;
    unsigned char *out, *in;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Get_processor_name(name, &len);
    printf("rank %d of %d on %s\n", rank, size, name);

    for (lap = 0; lap < 3; ++lap) {
        if (rank == 0) {
            token = lap * 1000;
            MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
            MPI_Recv(&token, 1, MPI_INT, size - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            printf("lap %d: token came back as %d (expected %d)\n", lap, token, lap * 1000 + size - 1);
            if (token != lap * 1000 + size - 1) bad = 1;
        } else {
            MPI_Recv(&token, 1, MPI_INT, rank - 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            ++token;
            MPI_Send(&token, 1, MPI_INT, (rank + 1) % size, 0, MPI_COMM_WORLD);
        }
    }

    out = malloc((size_t)n);
    in = malloc((size_t)n);
    for (i = 0; i < n; ++i) out[i] = (unsigned char)(rank * 7 + i);
    MPI_Sendrecv(out, n, MPI_BYTE, (rank + 1) % size, 1, in, n, MPI_BYTE, (rank + size - 1) % size, 1,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (i = 0; i < n; ++i) {
        if (in[i] != (unsigned char)(((rank + size - 1) % size) * 7 + i)) {
            fprintf(stderr, "rank %d: byte %d of the 1 MB ring message is wrong\n", rank, i);
            bad = 1;
            break;
        }
    }
    free(out);
    free(in);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0 && !bad) printf("ring: 1 MB message passed around %d ranks intact\n", size);
    MPI_Finalize();
    return bad;
}
