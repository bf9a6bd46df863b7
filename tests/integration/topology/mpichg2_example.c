/* The topology example as MPICH-G2 applications were written: read the depths
 * and colours of MPI_COMM_WORLD, split it into one communicator per local-area
 * network and into the vendor-level groups (ranks without a vendor level pass
 * colour -1 and form a group of their own), and print what each rank got. It
 * uses only what an MPICH-G2 program had: the MPICHX_ attribute names,
 * MPI_Attr_get and MPI_Comm_split. */
#include <mpi.h>
#include <stdio.h>

#define LAN_LEVEL 1
#define VMPI_LEVEL 3

int main(int argc, char *argv[])
{
    int me, nprocs, flag, level;
    int *depths;
    int **colors;
    int lan_rank, lan_size, vmpi_rank, vmpi_size;
    MPI_Comm LANcomm, vMPIcomm;
    char line[256];
    int at;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);

    MPI_Attr_get(MPI_COMM_WORLD, MPICHX_TOPOLOGY_DEPTHS, &depths, &flag);
    if (!flag) {
        fprintf(stderr, "rank %d: no MPICHX_TOPOLOGY_DEPTHS\n", me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Attr_get(MPI_COMM_WORLD, MPICHX_TOPOLOGY_COLORS, &colors, &flag);
    if (!flag) {
        fprintf(stderr, "rank %d: no MPICHX_TOPOLOGY_COLORS\n", me);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }

    MPI_Comm_split(MPI_COMM_WORLD, colors[me][LAN_LEVEL], me, &LANcomm);
    MPI_Comm_split(MPI_COMM_WORLD, depths[me] > VMPI_LEVEL ? colors[me][VMPI_LEVEL] : -1, me, &vMPIcomm);
    MPI_Comm_rank(LANcomm, &lan_rank);
    MPI_Comm_size(LANcomm, &lan_size);
    MPI_Comm_rank(vMPIcomm, &vmpi_rank);
    MPI_Comm_size(vMPIcomm, &vmpi_size);

    at = snprintf(line, sizeof line, "rank %d: depth %d colours", me, depths[me]);
    for (level = 0; level < depths[me]; level++) at += snprintf(line + at, sizeof line - at, " %d", colors[me][level]);
    snprintf(line + at, sizeof line - at, "; LAN %d of %d; vendor %d of %d", lan_rank, lan_size, vmpi_rank, vmpi_size);
    printf("%s\n", line);

    MPI_Comm_free(&LANcomm);
    MPI_Comm_free(&vMPIcomm);
    MPI_Finalize();
    return 0;
}
