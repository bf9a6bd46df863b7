// Collective entry points that move data: argument checks and dense views
// here, algorithms in collectives/. Reductions are in coll_reduce.cpp; on an
// intercommunicator every entry point continues in coll_inter.cpp.
#include <optional>
#include <vector>

#include "collectives/collectives.hpp"
#include "mpi/coll_inter.hpp"
#include "mpi/coll_support.hpp"
#include "mpi/errors.hpp"
#include "mpi/entry.hpp"

using namespace strata;
using namespace strata::mpi;

namespace strata::mpi::body {

int Barrier(const Call& call, Comm& comm) {
    CollChecks ck(call, comm);
    if (ck.inter()) return inter_barrier(ck);
    if (!ck.ok()) return ck.raise();
    return coll_finish(call.comm, call.fn, coll::barrier(group_of(ck.comm())), ck.form());
}

int Bcast(const Call& call, void* buffer, int count, MPI_Datatype datatype, int root, Comm& comm) {
    const Datatype* t = nullptr;
    CollChecks ck(call, comm);
    if (ck.inter()) return inter_bcast(ck, buffer, count, datatype, root);
    ck.count(count, "count").type(datatype, t).buffer(buffer, count, t, "buffer").not_in_place(buffer, "buffer");
    ck.root(root);
    if (!ck.ok()) return ck.raise();
    const bool is_root = ck.is_root(root);
    DenseOut d(*t, buffer, count, ck.form(), is_root);
    const adi::Error e = coll::bcast(group_of(ck.comm()), d.data(), d.bytes(), root);
    if (!is_root) d.finish();
    return coll_finish(call.comm, call.fn, e, ck.form());
}

int Gather(const Call& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
           MPI_Datatype recvtype, int root, Comm& comm) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    CollChecks ck(call, comm);
    if (ck.inter()) return inter_gather(ck, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
    ck.root(root);
    const bool is_root = ck.ok() && ck.is_root(root);
    // The root's MPI_IN_PLACE: its block is already in recvbuf.
    const bool here = is_root && in_place(sendbuf);
    if (!here) {
        ck.not_in_place(sendbuf, "sendbuf except at the root").count(sendcount, "sendcount").type(sendtype, st);
        ck.buffer(sendbuf, sendcount, st, "sendbuf");
    }
    if (is_root) {
        ck.count(recvcount, "recvcount").type(recvtype, rtp).buffer(recvbuf, recvcount, rtp, "recvbuf");
        ck.not_in_place(recvbuf, "recvbuf").distinct(sendbuf, recvbuf, sendcount);
    }
    if (!ck.ok()) return ck.raise();
    const DenseIn s =
        here ? DenseIn(*rtp, element_at(recvbuf, *rtp, 1LL * root * recvcount), recvcount, ck.form(), true)
             : DenseIn(*st, sendbuf, sendcount, ck.form());
    std::optional<DenseOut> r;
    if (is_root) r.emplace(*rtp, recvbuf, recvcount * ck.comm().size(), ck.form());
    const adi::Error e = coll::gather(group_of(ck.comm()), s.data(), s.bytes(), r ? r->data() : nullptr,
                                      r ? bytes_of(*rtp, recvcount, ck.form()) : 0, root);
    if (r) r->finish();
    return coll_finish(call.comm, call.fn, e, ck.form());
}

int Gatherv(const Call& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
            const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, Comm& comm) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    CollChecks ck(call, comm);
    if (ck.inter())
        return inter_gatherv(ck, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root);
    ck.root(root);
    const bool is_root = ck.ok() && ck.is_root(root);
    const bool here = is_root && in_place(sendbuf);
    if (!here) {
        ck.not_in_place(sendbuf, "sendbuf except at the root").count(sendcount, "sendcount").type(sendtype, st);
        ck.buffer(sendbuf, sendcount, st, "sendbuf");
    }
    if (is_root) {
        ck.counts(recvcounts, "recvcounts").displs(displs, "displs").type(recvtype, rtp);
        ck.buffer_any(recvbuf, recvcounts, rtp, "recvbuf").not_in_place(recvbuf, "recvbuf");
        ck.distinct(sendbuf, recvbuf, sendcount);
    }
    if (!ck.ok()) return ck.raise();
    const DenseIn s =
        here ? DenseIn(*rtp, element_at(recvbuf, *rtp, displs[root]), recvcounts[root], ck.form(), true)
             : DenseIn(*st, sendbuf, sendcount, ck.form());
    DenseBlocks r(rtp, recvbuf, recvcounts, displs, ck.comm().size(), is_root, ck.form());
    const adi::Error e =
        coll::gatherv(group_of(ck.comm()), s.data(), s.bytes(), r.data(), r.counts(), r.displs(), root);
    if (is_root) r.unpack_to_user();
    return coll_finish(call.comm, call.fn, e, ck.form());
}

int Scatter(const Call& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
            MPI_Datatype recvtype, int root, Comm& comm) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    CollChecks ck(call, comm);
    if (ck.inter()) return inter_scatter(ck, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root);
    ck.root(root);
    const bool is_root = ck.ok() && ck.is_root(root);
    // The root's MPI_IN_PLACE: its block stays in sendbuf, nothing is received.
    const bool here = is_root && in_place(recvbuf);
    if (is_root) {
        ck.count(sendcount, "sendcount").type(sendtype, st).buffer(sendbuf, sendcount, st, "sendbuf");
        ck.not_in_place(sendbuf, "sendbuf").distinct(sendbuf, recvbuf, recvcount);
    }
    if (!here) {
        ck.not_in_place(recvbuf, "recvbuf except at the root").count(recvcount, "recvcount").type(recvtype, rtp);
        ck.buffer(recvbuf, recvcount, rtp, "recvbuf");
    }
    if (!ck.ok()) return ck.raise();
    std::optional<DenseIn> s;
    if (is_root) s.emplace(*st, sendbuf, sendcount * ck.comm().size(), ck.form());
    std::vector<std::byte> discard(here ? bytes_of(*st, sendcount, ck.form()) : 0);
    std::optional<DenseOut> r;
    if (!here) r.emplace(*rtp, recvbuf, recvcount, ck.form());
    const adi::Error e =
        coll::scatter(group_of(ck.comm()), s ? s->data() : nullptr, s ? bytes_of(*st, sendcount, ck.form()) : 0,
                      r ? r->data() : discard.data(), r ? r->bytes() : discard.size(), root);
    if (r) r->finish();
    return coll_finish(call.comm, call.fn, e, ck.form());
}

int Scatterv(const Call& call, const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
             void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, Comm& comm) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    CollChecks ck(call, comm);
    if (ck.inter())
        return inter_scatterv(ck, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root);
    ck.root(root);
    const bool is_root = ck.ok() && ck.is_root(root);
    const bool here = is_root && in_place(recvbuf);
    if (is_root) {
        ck.counts(sendcounts, "sendcounts").displs(displs, "displs").type(sendtype, st);
        ck.buffer_any(sendbuf, sendcounts, st, "sendbuf").not_in_place(sendbuf, "sendbuf");
        ck.distinct(sendbuf, recvbuf, recvcount);
    }
    if (!here) {
        ck.not_in_place(recvbuf, "recvbuf except at the root").count(recvcount, "recvcount").type(recvtype, rtp);
        ck.buffer(recvbuf, recvcount, rtp, "recvbuf");
    }
    if (!ck.ok()) return ck.raise();
    DenseBlocks s(st, sendbuf, sendcounts, displs, ck.comm().size(), is_root, ck.form());
    if (is_root) s.pack_from_user();
    std::vector<std::byte> discard(here ? bytes_of(*st, sendcounts[root], ck.form()) : 0);
    std::optional<DenseOut> r;
    if (!here) r.emplace(*rtp, recvbuf, recvcount, ck.form());
    const adi::Error e = coll::scatterv(group_of(ck.comm()), s.data(), s.counts(), s.displs(),
                                        r ? r->data() : discard.data(), r ? r->bytes() : discard.size(), root);
    if (r) r->finish();
    return coll_finish(call.comm, call.fn, e, ck.form());
}

int Allgather(const Call& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
              MPI_Datatype recvtype, Comm& comm) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    CollChecks ck(call, comm);
    if (ck.inter()) return inter_allgather(ck, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    // MPI_IN_PLACE: each process's block is already in its recvbuf.
    const bool here = in_place(sendbuf);
    if (!here) ck.count(sendcount, "sendcount").type(sendtype, st).buffer(sendbuf, sendcount, st, "sendbuf");
    ck.count(recvcount, "recvcount").type(recvtype, rtp).buffer(recvbuf, recvcount, rtp, "recvbuf");
    ck.not_in_place(recvbuf, "recvbuf").distinct(sendbuf, recvbuf, sendcount);
    if (!ck.ok()) return ck.raise();
    const DenseIn s = here ? DenseIn(*rtp, element_at(recvbuf, *rtp, 1LL * ck.comm().rank * recvcount), recvcount,
                                     ck.form(), true)
                           : DenseIn(*st, sendbuf, sendcount, ck.form());
    DenseOut r(*rtp, recvbuf, recvcount * ck.comm().size(), ck.form(), here);
    const adi::Error e =
        coll::allgather(group_of(ck.comm()), s.data(), s.bytes(), r.data(), bytes_of(*rtp, recvcount, ck.form()));
    r.finish();
    return coll_finish(call.comm, call.fn, e, ck.form());
}

int Allgatherv(const Call& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               const int recvcounts[], const int displs[], MPI_Datatype recvtype, Comm& comm) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    CollChecks ck(call, comm);
    if (ck.inter())
        return inter_allgatherv(ck, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype);
    const bool here = in_place(sendbuf);
    if (!here) ck.count(sendcount, "sendcount").type(sendtype, st).buffer(sendbuf, sendcount, st, "sendbuf");
    ck.counts(recvcounts, "recvcounts").displs(displs, "displs").type(recvtype, rtp);
    ck.buffer_any(recvbuf, recvcounts, rtp, "recvbuf").not_in_place(recvbuf, "recvbuf");
    ck.distinct(sendbuf, recvbuf, sendcount);
    if (!ck.ok()) return ck.raise();
    const int me = ck.comm().rank;
    const DenseIn s = here ? DenseIn(*rtp, element_at(recvbuf, *rtp, displs[me]), recvcounts[me], ck.form(), true)
                           : DenseIn(*st, sendbuf, sendcount, ck.form());
    DenseBlocks r(rtp, recvbuf, recvcounts, displs, ck.comm().size(), true, ck.form());
    const adi::Error e = coll::allgatherv(group_of(ck.comm()), s.data(), s.bytes(), r.data(), r.counts(),
                                          r.displs());
    r.unpack_to_user();
    return coll_finish(call.comm, call.fn, e, ck.form());
}

int Alltoall(const Call& call, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
             MPI_Datatype recvtype, Comm& comm) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    CollChecks ck(call, comm);
    if (ck.inter()) return inter_alltoall(ck, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    // MPI_IN_PLACE (MPI-2.2): the data goes out of recvbuf and is replaced there.
    const bool here = in_place(sendbuf);
    if (!here) ck.count(sendcount, "sendcount").type(sendtype, st).buffer(sendbuf, sendcount, st, "sendbuf");
    ck.count(recvcount, "recvcount").type(recvtype, rtp).buffer(recvbuf, recvcount, rtp, "recvbuf");
    ck.not_in_place(recvbuf, "recvbuf").distinct(sendbuf, recvbuf, sendcount);
    if (!ck.ok()) return ck.raise();
    const int p = ck.comm().size();
    const DenseIn s = here ? DenseIn(*rtp, recvbuf, recvcount * p, ck.form(), true)
                           : DenseIn(*st, sendbuf, sendcount * p, ck.form());
    DenseOut r(*rtp, recvbuf, recvcount * p, ck.form());
    const adi::Error e =
        coll::alltoall(group_of(ck.comm()), s.data(),
                       here ? bytes_of(*rtp, recvcount, ck.form()) : bytes_of(*st, sendcount, ck.form()), r.data(),
                       bytes_of(*rtp, recvcount, ck.form()));
    r.finish();
    return coll_finish(call.comm, call.fn, e, ck.form());
}

int Alltoallv(const Call& call, const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
              void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, Comm& comm) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    CollChecks ck(call, comm);
    if (ck.inter()) {
        return inter_alltoallv(ck, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                               recvtype);
    }
    // MPI_IN_PLACE (MPI-2.2): the data goes out of recvbuf, laid out by
    // recvcounts and rdispls, and is replaced there.
    const bool here = in_place(sendbuf);
    if (!here) {
        ck.counts(sendcounts, "sendcounts").displs(sdispls, "sdispls").type(sendtype, st);
        ck.buffer_any(sendbuf, sendcounts, st, "sendbuf");
    }
    ck.counts(recvcounts, "recvcounts").displs(rdispls, "rdispls").type(recvtype, rtp);
    ck.buffer_any(recvbuf, recvcounts, rtp, "recvbuf").not_in_place(recvbuf, "recvbuf");
    if (ck.ok() && !here) {
        int any = 0;
        for (int i = 0; i < ck.comm().size(); ++i) any += sendcounts[i] > 0 ? 1 : 0;
        ck.distinct(sendbuf, recvbuf, any);
    }
    if (!ck.ok()) return ck.raise();
    const int p = ck.comm().size();
    DenseBlocks s = here ? DenseBlocks(rtp, recvbuf, recvcounts, rdispls, p, true, ck.form(), true)
                         : DenseBlocks(st, sendbuf, sendcounts, sdispls, p, true, ck.form());
    s.pack_from_user();
    DenseBlocks r(rtp, recvbuf, recvcounts, rdispls, p, true, ck.form());
    const adi::Error e = coll::alltoallv(group_of(ck.comm()), s.data(), s.counts(), s.displs(), r.data(),
                                         r.counts(), r.displs());
    r.unpack_to_user();
    return coll_finish(call.comm, call.fn, e, ck.form());
}

}  // namespace strata::mpi::body

#include "coll.inc"
