// Reduction entry points: MPI_Reduce, MPI_Allreduce, MPI_Reduce_scatter,
// MPI_Scan; on an intercommunicator they continue in coll_inter.cpp, but for
// MPI_Scan, which MPI-2 leaves undefined there. The algorithms count
// elements of the reduction operation, which for predefined operations are
// the datatype's basic elements.
#include <climits>
#include <optional>

#include "collectives/collectives.hpp"
#include "mpi/coll_inter.hpp"
#include "mpi/coll_support.hpp"
#include "mpi/errors.hpp"
#include "mpi/entry.hpp"

using namespace strata;
using namespace strata::mpi;

namespace {

using Everyone = adi::Error (*)(const coll::Group&, const void*, void*, std::size_t, const coll::ReduceOp&);

// MPI_Allreduce and MPI_Scan on an intracommunicator: every process gives
// `count` elements and gets `count` back.
int reduce_everyone(CollChecks& ck, Everyone run, const void* sendbuf, void* recvbuf, int count,
                    MPI_Datatype datatype, MPI_Op op) {
    const Datatype* t = nullptr;
    std::unique_ptr<coll::ReduceOp> rop;
    // MPI_IN_PLACE: the input is in recvbuf, which the result replaces.
    const bool here = in_place(sendbuf);
    ck.count(count, "count").type(datatype, t).buffer(sendbuf, count, t, "sendbuf");
    ck.buffer(recvbuf, count, t, "recvbuf").not_in_place(recvbuf, "recvbuf").distinct(sendbuf, recvbuf, count);
    ck.op(op, datatype, t, rop);
    if (!ck.ok()) return ck.raise();
    const DenseIn s = here ? DenseIn(*t, recvbuf, count, ck.form(), true) : DenseIn(*t, sendbuf, count, ck.form());
    DenseOut r(*t, recvbuf, count, ck.form());
    const adi::Error e = run(group_of(ck.comm()), s.data(), r.data(), op_elements(*t, count, *rop, ck.form()), *rop);
    r.finish();
    return ck.finish(e);
}

}  // namespace

namespace strata::mpi::body {

int Reduce(const Call& call, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op, int root,
           Comm& comm) {
    const Datatype* t = nullptr;
    std::unique_ptr<coll::ReduceOp> rop;
    CollChecks ck(call, comm);
    if (ck.inter()) return inter_reduce(ck, sendbuf, recvbuf, count, datatype, op, root);
    ck.root(root).count(count, "count").type(datatype, t).buffer(sendbuf, count, t, "sendbuf");
    const bool is_root = ck.ok() && ck.is_root(root);
    // The root's MPI_IN_PLACE: its input is in recvbuf.
    const bool here = is_root && in_place(sendbuf);
    if (is_root) {
        ck.buffer(recvbuf, count, t, "recvbuf").not_in_place(recvbuf, "recvbuf").distinct(sendbuf, recvbuf, count);
    } else {
        ck.not_in_place(sendbuf, "sendbuf except at the root");
    }
    ck.op(op, datatype, t, rop);
    if (!ck.ok()) return ck.raise();
    const DenseIn s = here ? DenseIn(*t, recvbuf, count, ck.form(), true) : DenseIn(*t, sendbuf, count, ck.form());
    std::optional<DenseOut> r;
    if (is_root) r.emplace(*t, recvbuf, count, ck.form());
    const adi::Error e = coll::reduce(group_of(ck.comm()), s.data(), r ? r->data() : nullptr,
                                      op_elements(*t, count, *rop, ck.form()), *rop, root);
    if (r) r->finish();
    return coll_finish(call.comm, call.fn, e, ck.form());
}

int Allreduce(const Call& call, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
              Comm& comm) {
    CollChecks ck(call, comm);
    if (ck.inter()) return inter_allreduce(ck, sendbuf, recvbuf, count, datatype, op);
    return reduce_everyone(ck, coll::allreduce, sendbuf, recvbuf, count, datatype, op);
}

int Reduce_scatter(const Call& call, const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype datatype,
                   MPI_Op op, Comm& comm) {
    const Datatype* t = nullptr;
    std::unique_ptr<coll::ReduceOp> rop;
    CollChecks ck(call, comm);
    if (ck.inter()) return inter_reduce_scatter(ck, sendbuf, recvbuf, recvcounts, datatype, op);
    ck.counts(recvcounts, "recvcounts").type(datatype, t);
    long long total = 0;
    int mine = 0;
    if (ck.ok()) {
        for (int i = 0; i < ck.comm().size(); ++i) total += recvcounts[i];
        mine = recvcounts[ck.comm().rank];
        if (total > INT_MAX) return call.raise(MPI_ERR_COUNT, "the counts add up to more than INT_MAX");
    }
    // MPI_IN_PLACE: the input (all the counts' worth) is in recvbuf, whose
    // start the result replaces.
    const bool here = in_place(sendbuf);
    ck.buffer(sendbuf, static_cast<int>(total), t, "sendbuf");
    ck.buffer(recvbuf, here ? static_cast<int>(total) : mine, t, "recvbuf").not_in_place(recvbuf, "recvbuf");
    ck.distinct(sendbuf, recvbuf, static_cast<int>(total)).op(op, datatype, t, rop);
    if (!ck.ok()) return ck.raise();
    std::vector<std::size_t> counts(static_cast<std::size_t>(ck.comm().size()));
    for (std::size_t i = 0; i < counts.size(); ++i) counts[i] = op_elements(*t, recvcounts[i], *rop, ck.form());
    const DenseIn s = here ? DenseIn(*t, recvbuf, static_cast<int>(total), ck.form(), true)
                           : DenseIn(*t, sendbuf, static_cast<int>(total), ck.form());
    DenseOut r(*t, recvbuf, mine, ck.form());
    const adi::Error e = coll::reduce_scatter(group_of(ck.comm()), s.data(), r.data(), counts, *rop);
    r.finish();
    return coll_finish(call.comm, call.fn, e, ck.form());
}

int Scan(const Call& call, const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
         Comm& comm) {
    CollChecks ck(call, comm);
    ck.intra();
    return reduce_everyone(ck, coll::scan, sendbuf, recvbuf, count, datatype, op);
}

int Reduce_local(const Call& call, const void* inbuf, void* inoutbuf, int count, MPI_Datatype datatype, MPI_Op op) {
    // No communicator: errors go to MPI_COMM_WORLD's handler.
    const Datatype* t = nullptr;
    std::unique_ptr<coll::ReduceOp> rop;
    CollChecks ck(call, *comm_get(MPI_COMM_WORLD), true);
    ck.count(count, "count").type(datatype, t).buffer(inbuf, count, t, "inbuf");
    ck.buffer(inoutbuf, count, t, "inoutbuf");
    ck.op(op, datatype, t, rop);
    if (!ck.ok()) return ck.raise();
    // inoutbuf = inbuf op inoutbuf, inbuf the left operand.
    DenseIn in(*t, inbuf, count, ck.form());
    DenseOut inout(*t, inoutbuf, count, ck.form(), true);
    rop->apply(in.data(), inout.data(), op_elements(*t, count, *rop, ck.form()));
    inout.finish();
    return MPI_SUCCESS;
}

}  // namespace strata::mpi::body

#include "coll_reduce.inc"
