/* Prints, after MPI_Init, the CPUs this rank may run on (sched_getaffinity)
 * and its depth and colours in MPI_COMM_WORLD's topology, one line per rank:
 *   rank 1: cpus 1; depth 6 colours 0 0 0 0 1 1
 * binding_test.py compares the CPUs with the affinity mpirun started with. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>
#include <sched.h>
#include <stdio.h>

int main(int argc, char *argv[])
{
    int me, flag, level, at = 0;
    int *depths;
    int **colors;
    char line[1024];
    cpu_set_t set;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    if (sched_getaffinity(0, sizeof set, &set) != 0) {
        perror("sched_getaffinity");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    at += snprintf(line + at, sizeof line - at, "rank %d: cpus", me);
    for (int cpu = 0, first = 1; cpu < CPU_SETSIZE && at < (int)sizeof line - 16; ++cpu) {
        if (!CPU_ISSET(cpu, &set)) continue;
        at += snprintf(line + at, sizeof line - at, "%s%d", first ? " " : ",", cpu);
        first = 0;
    }
    MPI_Attr_get(MPI_COMM_WORLD, MPICHX_TOPOLOGY_DEPTHS, &depths, &flag);
    if (!flag) MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Attr_get(MPI_COMM_WORLD, MPICHX_TOPOLOGY_COLORS, &colors, &flag);
    if (!flag) MPI_Abort(MPI_COMM_WORLD, 3);
    at += snprintf(line + at, sizeof line - at, "; depth %d colours", depths[me]);
    for (level = 0; level < depths[me] && at < (int)sizeof line - 16; ++level)
        at += snprintf(line + at, sizeof line - at, " %d", colors[me][level]);
    printf("%s\n", line);
    MPI_Finalize();
    return 0;
}
