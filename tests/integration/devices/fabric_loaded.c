/* fabric_loaded: whether libfabric is in this process after MPI_Init.
 *
 * usage: fabric_loaded absent|present
 * The ofi method loads libfabric only when STRATA_OFI_PROVIDER asks for it
 * (devices/ofi/fabric_library.hpp): linking it made every process load its
 * providers, one of which sleeps about 0.2 s in its constructor. Every rank
 * reads /proc/self/maps and fails when libfabric's presence is not the
 * expected one.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static int mapped(const char *name)
{
    char line[4096];
    int found = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    if (f == NULL) return -1;
    while (!found && fgets(line, sizeof line, f) != NULL) found = strstr(line, name) != NULL;
    fclose(f);
    return found;
}

int main(int argc, char **argv)
{
    int rank, want, have;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    want = argc > 1 && strcmp(argv[1], "present") == 0;
    have = mapped("libfabric.so");
    if (have != want) {
        fprintf(stderr, "fabric_loaded: rank %d: libfabric is %s, expected %s\n", rank,
                have < 0 ? "unknown (no /proc/self/maps)" : have ? "loaded" : "not loaded",
                want ? "loaded" : "not loaded");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Finalize();
    return 0;
}
