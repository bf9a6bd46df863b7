// Collectives on intercommunicators (MPI-2 section 7.3.1): the entry points
// of coll.cpp and coll_reduce.cpp continue here once CollChecks has found an
// intercommunicator, with the checks of their arguments that the process's
// role makes significant, and dense views of the buffers; the algorithms are
// in collectives/inter/.
//
// A rooted operation's root group passes MPI_ROOT at the root and
// MPI_PROC_NULL at its other processes, which take no part and whose other
// arguments are not read; the other group passes the root's rank in the
// remote group. Arguments with one entry per process (counts, displacements)
// have one per remote process, except MPI_Reduce_scatter's recvcounts (one
// per local process). MPI_IN_PLACE has no meaning between two groups
// (MPI-2 7.3.1): it is MPI_ERR_BUFFER in any buffer the process's role reads.
// Each function returns what the entry point returns.
#pragma once

#include "mpi/coll_support.hpp"

namespace strata::mpi {

int inter_barrier(CollChecks& ck);
int inter_bcast(CollChecks& ck, void* buffer, int count, MPI_Datatype datatype, int root);
int inter_gather(CollChecks& ck, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root);
int inter_gatherv(CollChecks& ck, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root);
int inter_scatter(CollChecks& ck, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root);
int inter_scatterv(CollChecks& ck, const void* sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root);
int inter_allgather(CollChecks& ck, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype);
int inter_allgatherv(CollChecks& ck, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype);
int inter_alltoall(CollChecks& ck, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype);
int inter_alltoallv(CollChecks& ck, const void* sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                    MPI_Datatype recvtype);
int inter_reduce(CollChecks& ck, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root);
int inter_allreduce(CollChecks& ck, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op);
int inter_reduce_scatter(CollChecks& ck, const void* sendbuf, void* recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op);

}  // namespace strata::mpi
