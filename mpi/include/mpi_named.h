/* Strata: the transparent mode of externally defined communicators.
 *
 * With this header (included after or instead of mpi.h, or given to the
 * compiler as `mpicc -include mpi_named.h`), MPI_Comm_rank(X, &r),
 * MPI_Comm_size(X, &s) and MPI_Comm_test_inter(X, &flag) on a communicator
 * variable X that holds MPI_COMM_NULL first make X the communicator the job's
 * communicator file defines under the variable's own name, if it defines
 * one: a program written for named communicators runs unmodified. The first
 * such call for a name is collective over the communicator of the name's
 * parents (MPI_COMM_WORLD for a top-level one), built first in the same way.
 * A process in none of that name keeps MPI_COMM_NULL and gets MPI_ERR_COMM,
 * raised through the parent's error handler, as MPI_Comm_rank(MPI_COMM_NULL)
 * gives without the file: with MPI_ERRORS_RETURN, "== MPI_SUCCESS" tells a
 * process whether it is in the communicator. Each name is built once; a
 * variable of a name not in the file is left alone, and the calls behave as
 * MPI's.
 *
 * The first argument must be a variable (or an array element, a member):
 * something whose address can be taken. MPI_COMM_WORLD, MPI_COMM_SELF and
 * MPI_COMM_NULL become constant variables here so that they qualify. */
#ifndef STRATA_MPI_NAMED_H
#define STRATA_MPI_NAMED_H

#include <mpi.h>

static const MPI_Comm STRATA_named_world __attribute__((unused)) = MPI_COMM_WORLD;
static const MPI_Comm STRATA_named_self __attribute__((unused)) = MPI_COMM_SELF;
static const MPI_Comm STRATA_named_null __attribute__((unused)) = MPI_COMM_NULL;
#undef MPI_COMM_WORLD
#undef MPI_COMM_SELF
#undef MPI_COMM_NULL
#define MPI_COMM_WORLD STRATA_named_world
#define MPI_COMM_SELF STRATA_named_self
#define MPI_COMM_NULL STRATA_named_null

#define MPI_Comm_rank(comm, rank) MPIX_Comm_rank_named((MPI_Comm *)&(comm), #comm, (rank))
#define MPI_Comm_size(comm, size) MPIX_Comm_size_named((MPI_Comm *)&(comm), #comm, (size))
#define MPI_Comm_test_inter(comm, flag) MPIX_Comm_test_inter_named((MPI_Comm *)&(comm), #comm, (flag))

#endif /* STRATA_MPI_NAMED_H */
