/* One line on what a named communicator is at this process:
 *   world W: LABEL: rank R of S; members M...; sum T
 *   world W: LABEL: rank R of S; members M...; remote M...; peer P
 *   world W: LABEL: none
 * members are world ranks in rank order. On an intracommunicator, sum is an
 * Allreduce of the members' world ranks (the communicator works); on an
 * intercommunicator, the two rank-0 processes swap world ranks (peer), the
 * others print -1. Collective over the communicator. */
#ifndef NAMED_REPORT_H
#define NAMED_REPORT_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int named_world_rank(void) {
    int w;
    PMPI_Comm_rank(MPI_COMM_WORLD, &w);
    return w;
}

/* The world ranks of `g`, appended to `out` as " W W W". */
static void named_members(MPI_Group g, char *out, size_t room) {
    MPI_Group world;
    int n, i;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_size(g, &n);
    int *in = malloc(sizeof(int) * (size_t)n), *ranks = malloc(sizeof(int) * (size_t)n);
    for (i = 0; i < n; ++i) in[i] = i;
    MPI_Group_translate_ranks(g, n, in, world, ranks);
    for (i = 0; i < n; ++i) snprintf(out + strlen(out), room - strlen(out), " %d", ranks[i]);
    free(in);
    free(ranks);
    MPI_Group_free(&world);
}

static void named_report(const char *label, MPI_Comm c) {
    char line[1024];
    int me = named_world_rank();
    if (c == MPI_COMM_NULL) {
        printf("world %d: %s: none\n", me, label);
        fflush(stdout);
        return;
    }
    int rank, size, inter;
    MPI_Group g;
    PMPI_Comm_rank(c, &rank);
    PMPI_Comm_size(c, &size);
    MPI_Comm_test_inter(c, &inter);
    snprintf(line, sizeof line, "world %d: %s: rank %d of %d; members", me, label, rank, size);
    MPI_Comm_group(c, &g);
    named_members(g, line, sizeof line);
    MPI_Group_free(&g);
    if (!inter) {
        int sum = 0;
        MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c);
        snprintf(line + strlen(line), sizeof line - strlen(line), "; sum %d", sum);
    } else {
        int peer = -1;
        snprintf(line + strlen(line), sizeof line - strlen(line), "; remote");
        MPI_Comm_remote_group(c, &g);
        named_members(g, line, sizeof line);
        MPI_Group_free(&g);
        if (rank == 0) MPI_Sendrecv(&me, 1, MPI_INT, 0, 7, &peer, 1, MPI_INT, 0, 7, c, MPI_STATUS_IGNORE);
        snprintf(line + strlen(line), sizeof line - strlen(line), "; peer %d", peer);
    }
    printf("%s\n", line);
    fflush(stdout);
}

/* The transparent mode's answers for variable X: "world W: X: transparent rank R size S", or
 * "transparent error classes C D" where the calls fail (a process outside X, with
 * MPI_ERRORS_RETURN set). */
#define NAMED_SHOW(X)                                                                                \
    do {                                                                                             \
        int r_ = -1, s_ = -1, cr_ = 0, cs_ = 0;                                                      \
        const int er_ = MPI_Comm_rank(X, &r_);                                                       \
        const int es_ = MPI_Comm_size(X, &s_);                                                       \
        MPI_Error_class(er_, &cr_);                                                                  \
        MPI_Error_class(es_, &cs_);                                                                  \
        if (er_ == MPI_SUCCESS && es_ == MPI_SUCCESS)                                                \
            printf("world %d: %s: transparent rank %d size %d\n", named_world_rank(), #X, r_, s_);  \
        else                                                                                         \
            printf("world %d: %s: transparent error classes %d %d\n", named_world_rank(), #X, cr_,  \
                   cs_);                                                                             \
        fflush(stdout);                                                                              \
    } while (0)

#endif
