// The point-to-point calls beyond MPI_Send, MPI_Recv and their modes
// (mpi/pt2pt.cpp): persistent requests, MPI_Sendrecv and probes.
#include <climits>
#include <utility>
#include <vector>

#include "mpi/comms/comm.hpp"
#include "mpi/datatypes/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/entry.hpp"
#include "mpi/pt2pt.hpp"
#include "mpi/request.hpp"

namespace strata::mpi {
namespace {

using Op = RequestSlot::Op;

int persistent(const Call& call, Op op, const void* buf, int count, const Datatype& t, int peer, int tag,
               MPI_Request& request) {
    RequestSlot* slot = nullptr;
    const int handle = rt().requests.add_empty(slot);
    slot_fill(op, buf, count, t, peer, tag, call.comm, *slot);
    slot->persistent = true;
    slot->active = false;
    slot->req = rt().engine->request_create(op == Op::recv ? adi::Kind::recv : adi::Kind::send);
    slot_hold(*slot, t);
    request = handle;
    return MPI_SUCCESS;
}

// Runs a receive and a send together (MPI_Sendrecv and friends).
int pair_run(const Call& call, RequestSlot& s, RequestSlot& rv, MPI_Status* status, adi::Status& got) {
    Runtime& r = rt();
    rv.req = r.engine->request_create(adi::Kind::recv);
    s.req = r.engine->request_create(adi::Kind::send);
    MpiError e = op_start(rv);
    if (e.ok()) e = op_start(s);
    if (e.ok()) {
        adi::Request* a = rv.req;
        adi::Request* b = s.req;
        r.engine->wait([a, b] { return a->complete() && b->complete(); });
        got = a->status;
        status_store(status, a->status);
        e.cls = error_class_of(a->status.error);
        if (e.ok()) e.cls = error_class_of(b->status.error);
        if (e.cls == MPI_ERR_OTHER) e.detail = r.engine->last_error();
    }
    r.engine->request_destroy(rv.req);
    r.engine->request_destroy(s.req);
    return e.ok() ? MPI_SUCCESS : call.raise(e);
}

}  // namespace

namespace body {

int Send_init(const Call& call, const void* buf, int count, Datatype& datatype, int dest, int tag, Comm&,
              MPI_Request& request) {
    return persistent(call, Op::send, buf, count, datatype, dest, tag, request);
}
int Bsend_init(const Call& call, const void* buf, int count, Datatype& datatype, int dest, int tag, Comm&,
               MPI_Request& request) {
    return persistent(call, Op::bsend, buf, count, datatype, dest, tag, request);
}
int Ssend_init(const Call& call, const void* buf, int count, Datatype& datatype, int dest, int tag, Comm&,
               MPI_Request& request) {
    return persistent(call, Op::ssend, buf, count, datatype, dest, tag, request);
}
int Rsend_init(const Call& call, const void* buf, int count, Datatype& datatype, int dest, int tag, Comm&,
               MPI_Request& request) {
    return persistent(call, Op::rsend, buf, count, datatype, dest, tag, request);
}
int Recv_init(const Call& call, void* buf, int count, Datatype& datatype, int source, int tag, Comm&,
              MPI_Request& request) {
    return persistent(call, Op::recv, buf, count, datatype, source, tag, request);
}

int Sendrecv(const Call& call, const void* sendbuf, int sendcount, Datatype& sendtype, int dest, int sendtag,
             void* recvbuf, int recvcount, Datatype& recvtype, int source, int recvtag, Comm&, MPI_Status* status) {
    RequestSlot s;
    RequestSlot rv;
    slot_fill(Op::send, sendbuf, sendcount, sendtype, dest, sendtag, call.comm, s);
    slot_fill(Op::recv, recvbuf, recvcount, recvtype, source, recvtag, call.comm, rv);
    adi::Status got;
    return pair_run(call, s, rv, status, got);
}

int Sendrecv_replace(const Call& call, void* buf, int count, Datatype& datatype, int dest, int sendtag, int source,
                     int recvtag, Comm&, MPI_Status* status) {
    RequestSlot s;
    RequestSlot rv;
    slot_fill(Op::send, buf, count, datatype, dest, sendtag, call.comm, s);
    slot_fill(Op::recv, buf, count, datatype, source, recvtag, call.comm, rv);
    // The message may arrive before ours has left: receive it packed
    // aside, then unpack what arrived over the buffer.
    const std::size_t bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(datatype.size);
    if (bytes > INT_MAX) return call.raise(MPI_ERR_COUNT, "the message is larger than INT_MAX bytes");
    std::vector<std::byte> scratch(bytes);
    rv.buf = scratch.data();
    if (rt().heterogeneous) {
        rv.packed_target = true;  // the packed form of the user's type, converted (mpi/hetero/foreign.hpp)
    } else {
        rv.count = static_cast<int>(bytes);
        rv.type = datatype_bytes().get();  // MPI_BYTE's layout lives as long as the library
    }
    adi::Status got;
    const int e = pair_run(call, s, rv, status, got);
    if (e == MPI_SUCCESS && got.bytes > 0) typemap_unpack(*s.type, buf, 0, got.bytes, scratch.data());
    return e;
}

int Iprobe(const Call&, int source, int tag, Comm& comm, int& flag, MPI_Status* status) {
    adi::Status st;
    if (source == MPI_PROC_NULL) {
        st.source = MPI_PROC_NULL;
        st.tag = MPI_ANY_TAG;
        flag = 1;
        status_store(status, st);
        return MPI_SUCCESS;
    }
    {
        adi::Engine::Interest probing(*rt().engine, world_source(comm, source), from_methods(comm, source));
        rt().engine->progress_test();
    }
    flag = rt().engine->iprobe(comm.context, source, tag, st) ? 1 : 0;
    if (flag) status_store(status, st);
    return MPI_SUCCESS;
}

int Probe(const Call&, int source, int tag, Comm& comm, MPI_Status* status) {
    adi::Status st;
    if (source == MPI_PROC_NULL) {
        st.source = MPI_PROC_NULL;
        st.tag = MPI_ANY_TAG;
    } else {
        adi::Engine& eng = *rt().engine;
        adi::Engine::Interest probing(eng, world_source(comm, source), from_methods(comm, source));
        eng.wait([&] { return eng.iprobe(comm.context, source, tag, st); });
    }
    status_store(status, st);
    return MPI_SUCCESS;
}

}  // namespace body
}  // namespace strata::mpi

#include "send_recv.inc"
