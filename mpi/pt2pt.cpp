#include "mpi/pt2pt.hpp"

#include <climits>
#include <utility>

#include "mpi/comms/comm.hpp"
#include "mpi/hetero/convert.hpp"
#include "mpi/datatypes/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/hetero/foreign.hpp"
#include "mpi/entry.hpp"
#include "mpi/request.hpp"

namespace strata::mpi {

void slot_fill(RequestSlot::Op op, const void* buf, int count, const Datatype& t, int peer, int tag, MPI_Comm comm,
               RequestSlot& s) {
    s.comm = comm;
    s.op = op;
    s.buf = buf;
    s.count = count;
    s.type = t.map.get();
    s.peer = peer;
    s.tag = tag;
}

namespace {

// Whether the data of `s` is one block of bytes, and where it starts.
bool one_block(const RequestSlot& s) { return s.type->contiguous() || (s.count == 1 && s.type->single_block()); }
std::byte* block_start(const RequestSlot& s) { return byte_address(s.buf, s.type->true_lb); }
std::size_t data_bytes(const RequestSlot& s) {
    return static_cast<std::size_t>(s.count) * static_cast<std::size_t>(s.type->size);
}

adi::SendMode mode_of(RequestSlot::Op op) {
    switch (op) {
        case RequestSlot::Op::ssend: return adi::SendMode::synchronous;
        case RequestSlot::Op::rsend: return adi::SendMode::ready;
        case RequestSlot::Op::bsend: return adi::SendMode::buffered;
        default: return adi::SendMode::standard;
    }
}

// MPI_Bsend semantics: pack into the attached buffer, send from there, and
// complete the user's request at once.
MpiError bsend_start(Runtime& r, const RequestSlot& s, const Comm& c, adi::Request& user) {
    user.status = adi::Status{};
    if (!r.bsend.attached()) return {MPI_ERR_BUFFER, "no buffer is attached; call MPI_Buffer_attach first"};
    const bool converts = send_converts(r, *s.type);
    const std::size_t bytes = converts ? form_bytes(*s.type, s.count, send_form()) : data_bytes(s);
    auto off = r.bsend.reserve(bytes);
    if (!off) {
        // Sends that finished since the last pass give their space back.
        r.engine->progress();
        off = r.bsend.reserve(bytes);
    }
    if (!off) {
        return {MPI_ERR_BUFFER, "the attached buffer has no room for " + std::to_string(bytes) +
                                    " bytes + MPI_BSEND_OVERHEAD; attach a larger buffer"};
    }
    std::byte* copy = r.bsend.at(*off);
    if (converts && !form_write(*s.type, s.buf, s.count, copy, send_form())) {
        r.bsend.release(*off);
        return {MPI_ERR_TRUNCATE, kSendFormUnfit};
    }
    if (!converts && bytes > 0) typemap_pack(*s.type, s.buf, 0, bytes, copy);
    adi::Request* inner = r.engine->request_create(adi::Kind::send);
    inner->released = true;
    const std::size_t at = *off;
    inner->on_complete = [&r, at] { r.bsend.release(at); };
    r.engine->isend(*inner, {.world_peer = c.world[static_cast<std::size_t>(s.peer)],
                             .mode = adi::SendMode::standard,
                             .context = c.context,
                             .rank = c.rank,
                             .tag = s.tag,
                             .data = {copy, bytes},
                             .flags = packed_labelled(r, c, *s.type) ? kFlagPacked : std::uint8_t{0}});
    user.pending = 0;
    return {};
}

// The user's data for the engine: straight the buffer when the elements form
// one block, a packing Segment otherwise. Always inline: op_start's common
// path, where a call and a Buffer returned through memory cost more than the
// rest of it.
[[gnu::always_inline]] inline adi::Buffer data_of(const RequestSlot& s) {
    const std::size_t bytes = data_bytes(s);
    if (bytes == 0) return {};
    if (one_block(s)) return {block_start(s), bytes};
    return adi::Buffer(datatype_segment(s.type->shared_from_this(), const_cast<void*>(s.buf), s.count));
}

// The data of a receive that may need converting, or of a send that leaves
// converted (mpi/hetero/foreign.hpp); data_of(s) otherwise.
base::Result<adi::Buffer> foreign_data_of(const RequestSlot& s, const Comm& c, int world_peer) {
    Runtime& r = rt();
    adi::Request& q = *s.req;
    if (s.op == RequestSlot::Op::recv) {
        if (receive_converts(r, c, world_peer, *s.type))
            return foreign_receive(q, c, *s.type, const_cast<void*>(s.buf), s.count, s.packed_target, world_peer);
        if (s.packed_target && data_bytes(s) > 0)
            return adi::Buffer{static_cast<std::byte*>(const_cast<void*>(s.buf)), data_bytes(s)};
    } else if (send_converts(r, *s.type)) {
        return foreign_send(q, *s.type, s.buf, s.count);
    }
    return data_of(s);
}

}  // namespace

namespace {

// Hands `s`, whose data is `data`, to the engine: a receive from, or a send
// to, world rank `world_peer`, its envelope flagged with `flags`.
[[gnu::always_inline]] inline void op_post(Runtime& r, RequestSlot& s, const Comm& c, int world_peer, adi::Buffer data,
                                           std::uint8_t flags) {
    adi::Request& q = *s.req;
    if (s.op == RequestSlot::Op::recv) {
        r.engine->irecv(q, {.world_source = world_peer,
                            .context = c.context,
                            .rank = s.peer,
                            .tag = s.tag,
                            .data = std::move(data),
                            .from_methods = from_methods(c, s.peer)});
        return;
    }
    r.engine->isend(q, {.world_peer = world_peer,
                        .mode = mode_of(s.op),
                        .context = c.context,
                        .rank = c.rank,
                        .tag = s.tag,
                        .data = std::move(data),
                        .flags = flags});
}

int world_peer_of(const RequestSlot& s, const Comm& c) {
    return s.op == RequestSlot::Op::recv ? world_source(c, s.peer) : c.world[static_cast<std::size_t>(s.peer)];
}

// op_start in a job of processes of several representations: the data may
// be converted or land aside (mpi/hetero/foreign.hpp).
[[gnu::noinline]] MpiError op_start_unlike(Runtime& r, RequestSlot& s, const Comm& c) {
    const int world_peer = world_peer_of(s, c);
    base::Result<adi::Buffer> data = foreign_data_of(s, c, world_peer);
    if (!data) return {MPI_ERR_TRUNCATE, data.error()};
    const std::uint8_t flags = packed_labelled(r, c, *s.type) ? kFlagPacked : 0;
    op_post(r, s, c, world_peer, std::move(*data), flags);
    return {};
}

}  // namespace

namespace {

// op_start once the communicator of `s` is known to be `c`.
MpiError op_start_on(Runtime& r, RequestSlot& s, const Comm& c) {
    adi::Request& q = *s.req;
    if (s.peer == MPI_PROC_NULL) {
        q.status = adi::Status{};
        q.pending = 0;
        if (s.op == RequestSlot::Op::recv) {
            q.status.source = MPI_PROC_NULL;
            q.status.tag = MPI_ANY_TAG;
        }
        return {};
    }
    // A buffered send packs into the attached buffer itself.
    if (s.op == RequestSlot::Op::bsend) return bsend_start(r, s, c, q);
    if (r.heterogeneous) [[unlikely]]
        return op_start_unlike(r, s, c);
    op_post(r, s, c, world_peer_of(s, c), data_of(s), 0);
    return {};
}

}  // namespace

MpiError op_start(RequestSlot& s) {
    Comm* c = comm_get(s.comm);
    if (c == nullptr || s.type == nullptr) return {MPI_ERR_REQUEST, "the communicator of this request was freed"};
    return op_start_on(rt(), s, *c);
}

namespace {

// nonblocking's start of `s` on its request, beyond the common case: a
// datatype that is not direct (not one block, or a job of processes of
// several representations), an MPI_PROC_NULL peer, a buffered send. On
// failure the request and its handle go again.
[[gnu::noinline]] int handle_start_other(const char* fn, Runtime& r, RequestSlot& s, const Comm& c, int handle) {
    const MpiError e = op_start_on(r, s, c);
    if (e.ok()) return MPI_SUCCESS;
    const MPI_Comm comm = s.comm;
    r.engine->request_destroy(s.req);
    r.requests.recycle(handle, s);
    return error_raise(comm, e, fn);
}

// A nonblocking send or receive (MPI_Isend, MPI_Irecv and the other modes)
// of checked arguments: starts it on a fresh engine request and names it by a
// new request handle in `request`, whose slot is filled in place. Inlined
// into each entry point: what depends on `op` is decided when compiling.
template <RequestSlot::Op op>
[[gnu::always_inline]] inline int nonblocking(const Call& call, const void* buf, int count, const Datatype& t,
                                              int peer, int tag, const Comm& c, MPI_Request& request) {
    Runtime& r = rt();
    RequestSlot* s = nullptr;
    const int handle = r.requests.add_empty(s);
    slot_fill(op, buf, count, t, peer, tag, call.comm, *s);
    s->req = r.engine->request_create(op == RequestSlot::Op::recv ? adi::Kind::recv : adi::Kind::send);
    // The common case inline (what op_start_on comes to for it): a real
    // peer, no buffered send, a direct datatype (one block, a job of alike
    // processes).
    if (t.direct && peer != MPI_PROC_NULL && op != RequestSlot::Op::bsend) [[likely]] {
        const std::size_t bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(t.size);
        op_post(r, *s, c, world_peer_of(*s, c), {byte_address(buf, t.map->true_lb), bytes}, 0);
    } else if (int e = handle_start_other(call.fn, r, *s, c, handle)) {
        return e;
    }
    slot_hold(*s, t);
    request = handle;
    return MPI_SUCCESS;
}

// Raises what a blocking operation's request ended with.
[[gnu::noinline]] int blocking_failed(const char* fn, MPI_Comm comm, adi::Error error) {
    return error_raise(comm, error_class_of(error), fn,
                       error == adi::Error::peer_failed ? rt().engine->last_error() : std::string());
}

// Waits for a blocking operation's request, stores its status, destroys it
// and raises its error, if any.
[[gnu::always_inline]] inline int blocking_finish(const char* fn, MPI_Comm comm, adi::Request* q, int world_peer,
                                                  MPI_Status* status) {
    Runtime& r = rt();
    r.engine->wait_one(*q, world_peer);
    status_store(status, q->status);
    const adi::Error error = q->status.error;
    r.engine->request_destroy(q);
    if (error == adi::Error::none) [[likely]] return MPI_SUCCESS;
    return blocking_failed(fn, comm, error);
}

// What blocking passes to blocking_general: one pointer, so that the hot
// function makes no call with arguments on the stack (which costs it its
// frame pointer register).
struct BlockingArgs {
    RequestSlot::Op op;
    const void* buf;
    int count;
    const Datatype* t;
    int peer;
    int tag;
    const Comm* c;
    MPI_Status* status;
};

// blocking beyond its common cases, through a slot and op_start.
[[gnu::noinline]] int blocking_general(Call call, const BlockingArgs& a) {
    Runtime& r = rt();
    RequestSlot s;
    slot_fill(a.op, a.buf, a.count, *a.t, a.peer, a.tag, call.comm, s);
    s.req = r.engine->request_create(a.op == RequestSlot::Op::recv ? adi::Kind::recv : adi::Kind::send);
    if (const MpiError e = op_start(s); !e.ok()) {
        r.engine->request_destroy(s.req);
        return call.raise(e);
    }
    // After the checks, c is the communicator and peer one of its ranks,
    // MPI_PROC_NULL (the request is complete) or MPI_ANY_SOURCE.
    return blocking_finish(call.fn, call.comm, s.req,
                           a.peer >= 0 ? a.c->world[static_cast<std::size_t>(a.peer)] : adi::kAnySource, a.status);
}

// A blocking send or receive (MPI_Send, MPI_Recv and the other modes) of
// checked arguments. Inlined into each entry point, as nonblocking.
template <RequestSlot::Op op>
[[gnu::always_inline]] inline int blocking(const Call& call, const void* buf, int count, const Datatype& t, int peer,
                                           int tag, const Comm& c, MPI_Status* status) {
    Runtime& r = rt();
    // The common case first, without a slot: a real peer and a datatype whose
    // elements form one block. A small standard send then usually leaves at
    // once (no request, no wait; the engine says when it cannot), and a
    // receive goes straight to the engine.
    // (In a job of processes of several representations no type is direct:
    // the general path converts, mpi/hetero/foreign.hpp.)
    if (t.direct && peer != MPI_PROC_NULL) [[likely]] {
        std::byte* start = byte_address(buf, t.map->true_lb);
        const std::size_t bytes = static_cast<std::size_t>(count) * static_cast<std::size_t>(t.size);
        if constexpr (op == RequestSlot::Op::send) {
            if (r.engine->send_now(c.world[static_cast<std::size_t>(peer)], c.context, c.rank, tag, start, bytes)) {
                return MPI_SUCCESS;
            }
        } else if constexpr (op == RequestSlot::Op::recv) {
            adi::Request* q = r.engine->request_create(adi::Kind::recv);
            const int world_peer = world_source(c, peer);
            r.engine->irecv(*q, {.world_source = world_peer,
                                 .context = c.context,
                                 .rank = peer,
                                 .tag = tag,
                                 .data = {start, bytes},
                                 .from_methods = from_methods(c, peer)});
            return blocking_finish(call.fn, call.comm, q, world_peer, status);
        }
    }
    return blocking_general(call, {op, buf, count, &t, peer, tag, &c, status});
}

using Op = RequestSlot::Op;

}  // namespace

namespace body {

// Inlined into their entry points (pt2pt.inc): the hot path of every program.

[[gnu::always_inline]] inline int Send(const Call& call, const void* buf, int count, Datatype& datatype, int dest,
                                       int tag, Comm& comm) {
    return blocking<Op::send>(call, buf, count, datatype, dest, tag, comm, MPI_STATUS_IGNORE);
}
[[gnu::always_inline]] inline int Bsend(const Call& call, const void* buf, int count, Datatype& datatype, int dest,
                                        int tag, Comm& comm) {
    return blocking<Op::bsend>(call, buf, count, datatype, dest, tag, comm, MPI_STATUS_IGNORE);
}
[[gnu::always_inline]] inline int Ssend(const Call& call, const void* buf, int count, Datatype& datatype, int dest,
                                        int tag, Comm& comm) {
    return blocking<Op::ssend>(call, buf, count, datatype, dest, tag, comm, MPI_STATUS_IGNORE);
}
[[gnu::always_inline]] inline int Rsend(const Call& call, const void* buf, int count, Datatype& datatype, int dest,
                                        int tag, Comm& comm) {
    return blocking<Op::rsend>(call, buf, count, datatype, dest, tag, comm, MPI_STATUS_IGNORE);
}
[[gnu::always_inline]] inline int Recv(const Call& call, void* buf, int count, Datatype& datatype, int source, int tag,
                                       Comm& comm, MPI_Status* status) {
    return blocking<Op::recv>(call, buf, count, datatype, source, tag, comm, status);
}
[[gnu::always_inline]] inline int Isend(const Call& call, const void* buf, int count, Datatype& datatype, int dest,
                                        int tag, Comm& comm, MPI_Request& request) {
    return nonblocking<Op::send>(call, buf, count, datatype, dest, tag, comm, request);
}
[[gnu::always_inline]] inline int Ibsend(const Call& call, const void* buf, int count, Datatype& datatype, int dest,
                                         int tag, Comm& comm, MPI_Request& request) {
    return nonblocking<Op::bsend>(call, buf, count, datatype, dest, tag, comm, request);
}
[[gnu::always_inline]] inline int Issend(const Call& call, const void* buf, int count, Datatype& datatype, int dest,
                                         int tag, Comm& comm, MPI_Request& request) {
    return nonblocking<Op::ssend>(call, buf, count, datatype, dest, tag, comm, request);
}
[[gnu::always_inline]] inline int Irsend(const Call& call, const void* buf, int count, Datatype& datatype, int dest,
                                         int tag, Comm& comm, MPI_Request& request) {
    return nonblocking<Op::rsend>(call, buf, count, datatype, dest, tag, comm, request);
}
[[gnu::always_inline]] inline int Irecv(const Call& call, void* buf, int count, Datatype& datatype, int source, int tag,
                                        Comm& comm, MPI_Request& request) {
    return nonblocking<Op::recv>(call, buf, count, datatype, source, tag, comm, request);
}

}  // namespace body

std::uint32_t any_methods_of(const Comm& c) {
    c.cache.any_methods = rt().engine->methods_reaching(c.world);
    return c.cache.any_methods;
}

long long status_bytes(const MPI_Status& status, const Typemap& t) {
    const int peer = (status.strata_flags >> kStatusFormShift) - 1;
    const Runtime& r = rt();
    if (peer < 0 || static_cast<std::size_t>(peer) >= r.representations.size()) return status.strata_bytes;
    const auto bytes = static_cast<std::size_t>(status.strata_bytes);
    const Converted c =
        convert_size(t, bytes, r.representations[static_cast<std::size_t>(peer)], Representation::native());
    return c.in == bytes ? static_cast<long long>(c.out) : -1;
}

namespace {

// A probe's status: when the message is a foreign process's, its bytes are in
// the sender's form, which MPI_Get_count and MPI_Get_elements turn into this
// process's.
[[gnu::noinline]] void status_form(MPI_Status* out, int probed_peer) {
    const Runtime& r = rt();
    if (r.heterogeneous && r.foreign[static_cast<std::size_t>(probed_peer)] != 0) {
        out->strata_flags |= (probed_peer + 1) << kStatusFormShift;
    }
}

}  // namespace

void status_fill(MPI_Status* out, const adi::Status& st) {
    out->MPI_SOURCE = st.source;
    out->MPI_TAG = st.tag;
    out->strata_bytes = static_cast<long long>(st.bytes);
    out->strata_flags = st.cancelled ? kStatusCancelled : 0;
    if (st.probed_peer >= 0) [[unlikely]]
        status_form(out, st.probed_peer);
}

void status_empty(MPI_Status* out) {
    if (out == nullptr || out == MPI_STATUS_IGNORE) return;
    out->MPI_SOURCE = MPI_ANY_SOURCE;
    out->MPI_TAG = MPI_ANY_TAG;
    out->MPI_ERROR = MPI_SUCCESS;
    out->strata_bytes = 0;
    out->strata_flags = 0;
}

}  // namespace strata::mpi

#include "pt2pt.inc"
