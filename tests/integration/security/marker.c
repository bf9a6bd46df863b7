/* marker: rank 0 sends every other rank a buffer full of a text that names
 * the receiver ("strata-wire-marker-to-RANK;" repeated, 4 KiB), and each
 * sends it back. grid_security_test.py listens on the loopback interface and
 * looks for those texts on the wire: with TLS on a link they must not be
 * there. Both ends check the bytes, so the run also proves the data arrived
 * intact. Extra arguments are ignored (the test's marker). */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#define BYTES 4096

static void fill(char *buf, int to)
{
    char unit[64];
    int n = snprintf(unit, sizeof unit, "strata-wire-marker-to-%d;", to), at;
    for (at = 0; at + n <= BYTES; at += n) memcpy(buf + at, unit, (size_t)n);
    memset(buf + at, '.', (size_t)(BYTES - at));
}

int main(int argc, char **argv)
{
    static char out[BYTES], in[BYTES];
    int rank, size, peer;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (rank == 0) {
        for (peer = 1; peer < size; ++peer) {
            fill(out, peer);
            MPI_Send(out, BYTES, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
            MPI_Recv(in, BYTES, MPI_CHAR, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (memcmp(in, out, BYTES) != 0) {
                fprintf(stderr, "marker: rank %d sent back other bytes\n", peer);
                MPI_Abort(MPI_COMM_WORLD, 1);
            }
        }
    } else {
        fill(out, rank);
        MPI_Recv(in, BYTES, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (memcmp(in, out, BYTES) != 0) {
            fprintf(stderr, "marker: rank %d received other bytes\n", rank);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        MPI_Send(in, BYTES, MPI_CHAR, 0, 2, MPI_COMM_WORLD);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    printf("marker ok %d\n", rank);
    MPI_Finalize();
    return 0;
}
