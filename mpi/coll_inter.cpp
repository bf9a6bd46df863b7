#include "mpi/coll_inter.hpp"

#include <climits>
#include <string>

#include "collectives/inter/inter.hpp"
#include "mpi/errors.hpp"

namespace strata::mpi {

namespace {

using coll::inter::Root;
using Role = Root::Role;

// `root` as the algorithms take it (checked by CollChecks::root before use).
Root root_of(int root) {
    if (root == MPI_ROOT) return {Role::self, 0};
    if (root == MPI_PROC_NULL) return {Role::idle, 0};
    return {Role::remote, root};
}

// MPI_IN_PLACE as `what`: no in-place option between two groups.
void refuse_in_place(CollChecks& ck, const void* buf, const char* what) {
    if (!in_place(buf)) return;
    std::string where(what);
    where.append(" on an intercommunicator");
    ck.not_in_place(buf, where.c_str());
}

// A send buffer: `n` elements of `type`, not MPI_IN_PLACE.
void send_check(CollChecks& ck, const void* buf, int n, MPI_Datatype type, const Datatype*& t, const char* what,
                const char* count) {
    refuse_in_place(ck, buf, what);
    ck.count(n, count).type(type, t).buffer(buf, n, t, what);
}

// A receive buffer: `n` elements of `type`, not MPI_IN_PLACE.
void recv_check(CollChecks& ck, void* buf, int n, MPI_Datatype type, const Datatype*& t, const char* what,
                const char* count) {
    ck.count(n, count).type(type, t).buffer(buf, n, t, what);
    refuse_in_place(ck, buf, what);
}

// Blocks per remote process: counts, displacements, `type`, not MPI_IN_PLACE.
void blocks_check(CollChecks& ck, const void* buf, const int* counts, const int* displs, MPI_Datatype type,
                  const Datatype*& t, const char* what, const char* counts_what, const char* displs_what) {
    ck.counts(counts, counts_what).displs(displs, displs_what).type(type, t).buffer_any(buf, counts, t, what);
    refuse_in_place(ck, buf, what);
}

}  // namespace

int inter_barrier(CollChecks& ck) { return ck.finish(coll::inter::barrier(groups_of(ck.comm()))); }

int inter_bcast(CollChecks& ck, void* buffer, int count, MPI_Datatype datatype, int root) {
    const Datatype* t = nullptr;
    const Root r = root_of(root);
    ck.root(root);
    if (r.role != Role::idle) recv_check(ck, buffer, count, datatype, t, "buffer", "count");
    if (!ck.ok()) return ck.raise();
    if (r.role == Role::idle) return MPI_SUCCESS;
    DenseOut d(*t, buffer, count, ck.form(), r.role == Role::self);
    const adi::Error e = coll::inter::bcast(groups_of(ck.comm()), d.data(), d.bytes(), r);
    if (r.role == Role::remote) d.finish();
    return ck.finish(e);
}

int inter_gather(CollChecks& ck, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, int root) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    const Root r = root_of(root);
    ck.root(root);
    if (r.role == Role::self) recv_check(ck, recvbuf, recvcount, recvtype, rtp, "recvbuf", "recvcount");
    if (r.role == Role::remote) send_check(ck, sendbuf, sendcount, sendtype, st, "sendbuf", "sendcount");
    if (!ck.ok()) return ck.raise();
    const coll::inter::Groups g = groups_of(ck.comm());
    adi::Error e = adi::Error::none;
    if (r.role == Role::self) {
        DenseOut d(*rtp, recvbuf, recvcount * ck.comm().peers(), ck.form());
        e = coll::inter::gather(g, nullptr, 0, d.data(), bytes_of(*rtp, recvcount, ck.form()), r);
        d.finish();
    } else if (r.role == Role::remote) {
        const DenseIn s(*st, sendbuf, sendcount, ck.form());
        e = coll::inter::gather(g, s.data(), s.bytes(), nullptr, 0, r);
    }
    return ck.finish(e);
}

int inter_gatherv(CollChecks& ck, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    const Root r = root_of(root);
    ck.root(root);
    if (r.role == Role::self)
        blocks_check(ck, recvbuf, recvcounts, displs, recvtype, rtp, "recvbuf", "recvcounts", "displs");
    if (r.role == Role::remote) send_check(ck, sendbuf, sendcount, sendtype, st, "sendbuf", "sendcount");
    if (!ck.ok()) return ck.raise();
    const coll::inter::Groups g = groups_of(ck.comm());
    adi::Error e = adi::Error::none;
    if (r.role == Role::self) {
        DenseBlocks d(rtp, recvbuf, recvcounts, displs, ck.comm().peers(), true, ck.form());
        e = coll::inter::gatherv(g, nullptr, 0, d.data(), d.counts(), d.displs(), r);
        d.unpack_to_user();
    } else if (r.role == Role::remote) {
        const DenseIn s(*st, sendbuf, sendcount, ck.form());
        e = coll::inter::gatherv(g, s.data(), s.bytes(), nullptr, {}, {}, r);
    }
    return ck.finish(e);
}

int inter_scatter(CollChecks& ck, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int root) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    const Root r = root_of(root);
    ck.root(root);
    if (r.role == Role::self) send_check(ck, sendbuf, sendcount, sendtype, st, "sendbuf", "sendcount");
    if (r.role == Role::remote) recv_check(ck, recvbuf, recvcount, recvtype, rtp, "recvbuf", "recvcount");
    if (!ck.ok()) return ck.raise();
    const coll::inter::Groups g = groups_of(ck.comm());
    adi::Error e = adi::Error::none;
    if (r.role == Role::self) {
        const DenseIn s(*st, sendbuf, sendcount * ck.comm().peers(), ck.form());
        e = coll::inter::scatter(g, s.data(), bytes_of(*st, sendcount, ck.form()), nullptr, 0, r);
    } else if (r.role == Role::remote) {
        DenseOut d(*rtp, recvbuf, recvcount, ck.form());
        e = coll::inter::scatter(g, nullptr, 0, d.data(), d.bytes(), r);
        d.finish();
    }
    return ck.finish(e);
}

int inter_scatterv(CollChecks& ck, const void* sendbuf, const int sendcounts[], const int displs[],
                   MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    const Root r = root_of(root);
    ck.root(root);
    if (r.role == Role::self)
        blocks_check(ck, sendbuf, sendcounts, displs, sendtype, st, "sendbuf", "sendcounts", "displs");
    if (r.role == Role::remote) recv_check(ck, recvbuf, recvcount, recvtype, rtp, "recvbuf", "recvcount");
    if (!ck.ok()) return ck.raise();
    const coll::inter::Groups g = groups_of(ck.comm());
    adi::Error e = adi::Error::none;
    if (r.role == Role::self) {
        DenseBlocks s(st, sendbuf, sendcounts, displs, ck.comm().peers(), true, ck.form());
        s.pack_from_user();
        e = coll::inter::scatterv(g, s.data(), s.counts(), s.displs(), nullptr, 0, r);
    } else if (r.role == Role::remote) {
        DenseOut d(*rtp, recvbuf, recvcount, ck.form());
        e = coll::inter::scatterv(g, nullptr, {}, {}, d.data(), d.bytes(), r);
        d.finish();
    }
    return ck.finish(e);
}

int inter_allgather(CollChecks& ck, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                    int recvcount, MPI_Datatype recvtype) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    send_check(ck, sendbuf, sendcount, sendtype, st, "sendbuf", "sendcount");
    recv_check(ck, recvbuf, recvcount, recvtype, rtp, "recvbuf", "recvcount");
    ck.distinct(sendbuf, recvbuf, sendcount);
    if (!ck.ok()) return ck.raise();
    const DenseIn s(*st, sendbuf, sendcount, ck.form());
    DenseOut d(*rtp, recvbuf, recvcount * ck.comm().peers(), ck.form());
    const adi::Error e = coll::inter::allgather(groups_of(ck.comm()), s.data(), s.bytes(), d.data(),
                                                bytes_of(*rtp, recvcount, ck.form()));
    d.finish();
    return ck.finish(e);
}

int inter_allgatherv(CollChecks& ck, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                     const int recvcounts[], const int displs[], MPI_Datatype recvtype) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    send_check(ck, sendbuf, sendcount, sendtype, st, "sendbuf", "sendcount");
    blocks_check(ck, recvbuf, recvcounts, displs, recvtype, rtp, "recvbuf", "recvcounts", "displs");
    ck.distinct(sendbuf, recvbuf, sendcount);
    if (!ck.ok()) return ck.raise();
    const DenseIn s(*st, sendbuf, sendcount, ck.form());
    DenseBlocks d(rtp, recvbuf, recvcounts, displs, ck.comm().peers(), true, ck.form());
    const adi::Error e =
        coll::inter::allgatherv(groups_of(ck.comm()), s.data(), s.bytes(), d.data(), d.counts(), d.displs());
    d.unpack_to_user();
    return ck.finish(e);
}

int inter_alltoall(CollChecks& ck, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   int recvcount, MPI_Datatype recvtype) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    send_check(ck, sendbuf, sendcount, sendtype, st, "sendbuf", "sendcount");
    recv_check(ck, recvbuf, recvcount, recvtype, rtp, "recvbuf", "recvcount");
    ck.distinct(sendbuf, recvbuf, sendcount);
    if (!ck.ok()) return ck.raise();
    const int p = ck.comm().peers();
    const DenseIn s(*st, sendbuf, sendcount * p, ck.form());
    DenseOut d(*rtp, recvbuf, recvcount * p, ck.form());
    const adi::Error e = coll::inter::alltoall(groups_of(ck.comm()), s.data(), bytes_of(*st, sendcount, ck.form()),
                                               d.data(), bytes_of(*rtp, recvcount, ck.form()));
    d.finish();
    return ck.finish(e);
}

int inter_alltoallv(CollChecks& ck, const void* sendbuf, const int sendcounts[], const int sdispls[],
                    MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
                    MPI_Datatype recvtype) {
    const Datatype* st = nullptr;
    const Datatype* rtp = nullptr;
    blocks_check(ck, sendbuf, sendcounts, sdispls, sendtype, st, "sendbuf", "sendcounts", "sdispls");
    blocks_check(ck, recvbuf, recvcounts, rdispls, recvtype, rtp, "recvbuf", "recvcounts", "rdispls");
    const int p = ck.comm().peers();
    if (ck.ok()) {
        int any = 0;
        for (int i = 0; i < p; ++i) any += sendcounts[i] > 0 ? 1 : 0;
        ck.distinct(sendbuf, recvbuf, any);
    }
    if (!ck.ok()) return ck.raise();
    DenseBlocks s(st, sendbuf, sendcounts, sdispls, p, true, ck.form());
    s.pack_from_user();
    DenseBlocks d(rtp, recvbuf, recvcounts, rdispls, p, true, ck.form());
    const adi::Error e = coll::inter::alltoallv(groups_of(ck.comm()), s.data(), s.counts(), s.displs(), d.data(),
                                                d.counts(), d.displs());
    d.unpack_to_user();
    return ck.finish(e);
}

int inter_reduce(CollChecks& ck, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                 int root) {
    const Datatype* t = nullptr;
    std::unique_ptr<coll::ReduceOp> rop;
    const Root r = root_of(root);
    ck.root(root);
    if (r.role == Role::self) recv_check(ck, recvbuf, count, datatype, t, "recvbuf", "count");
    if (r.role == Role::remote) send_check(ck, sendbuf, count, datatype, t, "sendbuf", "count");
    if (r.role != Role::idle) ck.op(op, datatype, t, rop);
    if (!ck.ok()) return ck.raise();
    if (r.role == Role::idle) return MPI_SUCCESS;
    const std::size_t n = op_elements(*t, count, *rop, ck.form());
    const coll::inter::Groups g = groups_of(ck.comm());
    adi::Error e = adi::Error::none;
    if (r.role == Role::self) {
        DenseOut d(*t, recvbuf, count, ck.form());
        e = coll::inter::reduce(g, nullptr, d.data(), n, *rop, r);
        d.finish();
    } else {
        const DenseIn s(*t, sendbuf, count, ck.form());
        e = coll::inter::reduce(g, s.data(), nullptr, n, *rop, r);
    }
    return ck.finish(e);
}

int inter_allreduce(CollChecks& ck, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype,
                    MPI_Op op) {
    const Datatype* t = nullptr;
    std::unique_ptr<coll::ReduceOp> rop;
    send_check(ck, sendbuf, count, datatype, t, "sendbuf", "count");
    ck.buffer(recvbuf, count, t, "recvbuf");
    refuse_in_place(ck, recvbuf, "recvbuf");
    ck.distinct(sendbuf, recvbuf, count).op(op, datatype, t, rop);
    if (!ck.ok()) return ck.raise();
    const DenseIn s(*t, sendbuf, count, ck.form());
    DenseOut d(*t, recvbuf, count, ck.form());
    const adi::Error e = coll::inter::allreduce(groups_of(ck.comm()), s.data(), d.data(),
                                                op_elements(*t, count, *rop, ck.form()), *rop);
    d.finish();
    return ck.finish(e);
}

int inter_reduce_scatter(CollChecks& ck, const void* sendbuf, void* recvbuf, const int recvcounts[],
                         MPI_Datatype datatype, MPI_Op op) {
    const Datatype* t = nullptr;
    std::unique_ptr<coll::ReduceOp> rop;
    // One count per process of this group (MPI-2 7.3.1); the other group's
    // counts add up to as many elements.
    const int n = ck.comm().size();
    ck.counts(recvcounts, "recvcounts", n).type(datatype, t);
    long long total = 0;
    for (int i = 0; ck.ok() && i < n; ++i) total += recvcounts[i];
    if (total > INT_MAX)
        return error_raise(ck.handle(), MPI_ERR_COUNT, ck.fn(), "the counts add up to more than INT_MAX");
    const int mine = ck.ok() ? recvcounts[ck.comm().rank] : 0;
    refuse_in_place(ck, sendbuf, "sendbuf");
    ck.buffer(sendbuf, static_cast<int>(total), t, "sendbuf").buffer(recvbuf, mine, t, "recvbuf");
    refuse_in_place(ck, recvbuf, "recvbuf");
    ck.distinct(sendbuf, recvbuf, static_cast<int>(total)).op(op, datatype, t, rop);
    if (!ck.ok()) return ck.raise();
    std::vector<std::size_t> counts(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = op_elements(*t, recvcounts[i], *rop, ck.form());
    const DenseIn s(*t, sendbuf, static_cast<int>(total), ck.form());
    DenseOut d(*t, recvbuf, mine, ck.form());
    const adi::Error e = coll::inter::reduce_scatter(groups_of(ck.comm()), s.data(), d.data(), counts, *rop);
    d.finish();
    return ck.finish(e);
}

}  // namespace strata::mpi
