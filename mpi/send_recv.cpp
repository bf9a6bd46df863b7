// Entry points that start point-to-point operations.
#include <climits>
#include <utility>
#include <vector>

#include "mpi/comms/comm.hpp"
#include "mpi/datatypes/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/pmpi_alias.hpp"
#include "mpi/pt2pt.hpp"
#include "mpi/request.hpp"

using namespace strata;
using namespace strata::mpi;

namespace {

template <RequestSlot::Op op>
[[gnu::always_inline]] inline int blocking(const void* buf, int count, MPI_Datatype datatype, int peer, int tag,
                                           MPI_Comm comm, MPI_Status* status) {
    return api(call_name(op, true), [&] { return blocking_run<op>(buf, count, datatype, peer, tag, comm, status); });
}

// Both inlined into each entry point with api(), whose body is then one call:
// the arguments go on in registers, not through a closure of references.
template <RequestSlot::Op op>
[[gnu::always_inline]] inline int nonblocking(const void* buf, int count, MPI_Datatype datatype, int peer, int tag,
                                              MPI_Comm comm, MPI_Request* request) {
    return api(call_name(op, false),
               [&] { return nonblocking_run<op>(buf, count, datatype, peer, tag, comm, request); });
}

int persistent(const char* fn, RequestSlot::Op op, const void* buf, int count, MPI_Datatype datatype, int peer,
               int tag, MPI_Comm comm, MPI_Request* request) {
    return api(fn, [&] {
        RequestSlot s;
        if (int e = slot_prepare(fn, op, buf, count, datatype, peer, tag, comm, s)) return e;
        if (request == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "request is NULL");
        RequestSlot* slot = nullptr;
        const int handle = rt().requests.add_empty(slot);
        *slot = std::move(s);
        slot->persistent = true;
        slot->active = false;
        slot->req = rt().engine->request_create(op == RequestSlot::Op::recv ? adi::Kind::recv : adi::Kind::send);
        slot_hold(*slot, *datatype_get(datatype));
        *request = handle;
        return MPI_SUCCESS;
    });
}

// Runs a receive and a send together (MPI_Sendrecv and friends).
int pair_run(const char* fn, RequestSlot& s, RequestSlot& rv, MPI_Comm comm, MPI_Status* status, adi::Status& got) {
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
    return e.ok() ? MPI_SUCCESS : error_raise(comm, e, fn);
}

using Op = RequestSlot::Op;

}  // namespace

extern "C" {

STRATA_PMPI_ALIAS(MPI_Send);
int PMPI_Send(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    return blocking<Op::send>(buf, count, datatype, dest, tag, comm, MPI_STATUS_IGNORE);
}

STRATA_PMPI_ALIAS(MPI_Bsend);
int PMPI_Bsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    return blocking<Op::bsend>(buf, count, datatype, dest, tag, comm, MPI_STATUS_IGNORE);
}

STRATA_PMPI_ALIAS(MPI_Ssend);
int PMPI_Ssend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    return blocking<Op::ssend>(buf, count, datatype, dest, tag, comm, MPI_STATUS_IGNORE);
}

STRATA_PMPI_ALIAS(MPI_Rsend);
int PMPI_Rsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm) {
    return blocking<Op::rsend>(buf, count, datatype, dest, tag, comm, MPI_STATUS_IGNORE);
}

STRATA_PMPI_ALIAS(MPI_Recv);
int PMPI_Recv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status* status) {
    return blocking<Op::recv>(buf, count, datatype, source, tag, comm, status);
}

STRATA_PMPI_ALIAS(MPI_Isend);
int PMPI_Isend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
               MPI_Request* request) {
    return nonblocking<Op::send>(buf, count, datatype, dest, tag, comm, request);
}

STRATA_PMPI_ALIAS(MPI_Ibsend);
int PMPI_Ibsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
    return nonblocking<Op::bsend>(buf, count, datatype, dest, tag, comm, request);
}

STRATA_PMPI_ALIAS(MPI_Issend);
int PMPI_Issend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
    return nonblocking<Op::ssend>(buf, count, datatype, dest, tag, comm, request);
}

STRATA_PMPI_ALIAS(MPI_Irsend);
int PMPI_Irsend(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                MPI_Request* request) {
    return nonblocking<Op::rsend>(buf, count, datatype, dest, tag, comm, request);
}

STRATA_PMPI_ALIAS(MPI_Irecv);
int PMPI_Irecv(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
               MPI_Request* request) {
    return nonblocking<Op::recv>(buf, count, datatype, source, tag, comm, request);
}

STRATA_PMPI_ALIAS(MPI_Send_init);
int PMPI_Send_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                   MPI_Request* request) {
    return persistent("MPI_Send_init", Op::send, buf, count, datatype, dest, tag, comm, request);
}

STRATA_PMPI_ALIAS(MPI_Bsend_init);
int PMPI_Bsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
    return persistent("MPI_Bsend_init", Op::bsend, buf, count, datatype, dest, tag, comm, request);
}

STRATA_PMPI_ALIAS(MPI_Ssend_init);
int PMPI_Ssend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
    return persistent("MPI_Ssend_init", Op::ssend, buf, count, datatype, dest, tag, comm, request);
}

STRATA_PMPI_ALIAS(MPI_Rsend_init);
int PMPI_Rsend_init(const void* buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
    return persistent("MPI_Rsend_init", Op::rsend, buf, count, datatype, dest, tag, comm, request);
}

STRATA_PMPI_ALIAS(MPI_Recv_init);
int PMPI_Recv_init(void* buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                   MPI_Request* request) {
    return persistent("MPI_Recv_init", Op::recv, buf, count, datatype, source, tag, comm, request);
}

STRATA_PMPI_ALIAS(MPI_Sendrecv);
int PMPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, int source, int recvtag, MPI_Comm comm, MPI_Status* status) {
    static const char* fn = "MPI_Sendrecv";
    return api(fn, [&] {
        RequestSlot s;
        RequestSlot rv;
        if (int e = slot_prepare(fn, Op::send, sendbuf, sendcount, sendtype, dest, sendtag, comm, s)) return e;
        if (int e = slot_prepare(fn, Op::recv, recvbuf, recvcount, recvtype, source, recvtag, comm, rv)) return e;
        adi::Status got;
        return pair_run(fn, s, rv, comm, status, got);
    });
}

STRATA_PMPI_ALIAS(MPI_Sendrecv_replace);
int PMPI_Sendrecv_replace(void* buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                          int recvtag, MPI_Comm comm, MPI_Status* status) {
    static const char* fn = "MPI_Sendrecv_replace";
    return api(fn, [&] {
        RequestSlot s;
        if (int e = slot_prepare(fn, Op::send, buf, count, datatype, dest, sendtag, comm, s)) return e;
        RequestSlot rv;
        if (int e = slot_prepare(fn, Op::recv, buf, count, datatype, source, recvtag, comm, rv)) return e;
        // The message may arrive before ours has left: receive it packed
        // aside, then unpack what arrived over the buffer.
        const std::size_t bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(s.type->size);
        if (bytes > INT_MAX)
            return error_raise(comm, MPI_ERR_COUNT, fn, "the message is larger than INT_MAX bytes");
        std::vector<std::byte> scratch(bytes);
        rv.buf = scratch.data();
        if (rt().heterogeneous) {
            rv.packed_target = true;  // the packed form of the user's type, converted (mpi/hetero/foreign.hpp)
        } else {
            rv.count = static_cast<int>(bytes);
            rv.type = datatype_bytes().get();  // MPI_BYTE's layout lives as long as the library
        }
        adi::Status got;
        int e = pair_run(fn, s, rv, comm, status, got);
        if (e == MPI_SUCCESS && got.bytes > 0) typemap_unpack(*s.type, buf, 0, got.bytes, scratch.data());
        return e;
    });
}

STRATA_PMPI_ALIAS(MPI_Iprobe);
int PMPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
    static const char* fn = "MPI_Iprobe";
    return api(fn, [&] {
        Comm* c = comm_get(comm);
        if (c == nullptr) return error_raise(comm, MPI_ERR_COMM, fn, "");
        if (int e = check_source(fn, comm, *c, source)) return e;
        if (int e = check_recv_tag(fn, comm, tag)) return e;
        if (flag == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "flag is NULL");
        adi::Status st;
        if (source == MPI_PROC_NULL) {
            st.source = MPI_PROC_NULL;
            st.tag = MPI_ANY_TAG;
            *flag = 1;
            status_store(status, st);
            return MPI_SUCCESS;
        }
        {
            adi::Engine::Interest probing(*rt().engine, world_source(*c, source), from_methods(*c, source));
            rt().engine->progress_test();
        }
        *flag = rt().engine->iprobe(c->context, source, tag, st) ? 1 : 0;
        if (*flag) status_store(status, st);
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Probe);
int PMPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
    static const char* fn = "MPI_Probe";
    return api(fn, [&] {
        Comm* c = comm_get(comm);
        if (c == nullptr) return error_raise(comm, MPI_ERR_COMM, fn, "");
        if (int e = check_source(fn, comm, *c, source)) return e;
        if (int e = check_recv_tag(fn, comm, tag)) return e;
        adi::Status st;
        if (source == MPI_PROC_NULL) {
            st.source = MPI_PROC_NULL;
            st.tag = MPI_ANY_TAG;
        } else {
            adi::Engine& eng = *rt().engine;
            adi::Engine::Interest probing(eng, world_source(*c, source), from_methods(*c, source));
            eng.wait([&] { return eng.iprobe(c->context, source, tag, st); });
        }
        status_store(status, st);
        return MPI_SUCCESS;
    });
}

}  // extern "C"
