// Completion, cancellation and persistent requests.
#include <vector>

#include "mpi/errors.hpp"
#include "mpi/entry.hpp"
#include "mpi/pt2pt.hpp"
#include "mpi/request.hpp"

namespace strata::mpi {
namespace {

// A handle whose completion functions answer at once with an empty status:
// MPI_REQUEST_NULL or an inactive persistent request.
bool inactive(MPI_Request h) {
    if (h == MPI_REQUEST_NULL) return true;
    RequestSlot* s = rt().requests.get(h);
    return s != nullptr && s->persistent && !s->active;
}

bool done(MPI_Request h) {
    RequestSlot* s = rt().requests.get(h);
    return s != nullptr && s->req->complete();
}

// What a completed request ended with, for raising it on its communicator.
struct Collected {
    adi::Error error = adi::Error::none;
    MPI_Comm comm = MPI_COMM_WORLD;
};

// Finishes the completed request `s` that *h names: stores its status, frees
// a non-persistent request (the handle becomes MPI_REQUEST_NULL),
// deactivates a persistent one.
[[gnu::always_inline]] inline Collected collect_slot(MPI_Request* h, RequestSlot& s, MPI_Status* status) {
    Runtime& r = rt();
    const Collected c{s.req->status.error, s.comm};
    status_store(status, s.req->status);
    if (s.persistent) {
        s.active = false;
    } else {
        r.engine->request_destroy(s.req);
        r.requests.recycle(*h, s);
        *h = MPI_REQUEST_NULL;
    }
    return c;
}

[[gnu::noinline]] Collected collect(MPI_Request* h, MPI_Status* status) {
    return collect_slot(h, *rt().requests.get(*h), status);
}

int error_class(const Collected& c) { return error_class_of(c.error); }

// Raises what `c` ended with (a failed peer: the engine's account of it).
[[gnu::noinline]] int raise_failed(const char* fn, const Collected& c) {
    return error_raise(c.comm, error_class_of(c.error), fn,
                       c.error == adi::Error::peer_failed ? rt().engine->last_error() : std::string());
}

MPI_Status* status_at(MPI_Status* array, int i) {
    return array == MPI_STATUSES_IGNORE || array == nullptr ? MPI_STATUS_IGNORE : &array[i];
}

void status_error(MPI_Status* s, int error) {
    if (s != MPI_STATUS_IGNORE && s != nullptr) s->MPI_ERROR = error;
}

// MPI_ERR_IN_STATUS on the communicator of `failed`, naming what happened.
int raise_in_status(const char* fn, const Collected& failed) {
    return error_raise(failed.comm, MPI_ERR_IN_STATUS, fn,
                       failed.error == adi::Error::peer_failed ? rt().engine->last_error() : std::string());
}

// Collects every completed request of the array into (indices, statuses);
// returns MPI_ERR_IN_STATUS when one of them failed.
int collect_some(const char* fn, int count, MPI_Request* reqs, int& outcount, int* indices, MPI_Status* statuses) {
    int n = 0;
    Collected failed;
    bool any_failed = false;
    for (int i = 0; i < count; ++i) {
        if (inactive(reqs[i]) || !done(reqs[i])) continue;
        MPI_Status* st = status_at(statuses, n);
        Collected c = collect(&reqs[i], st);
        status_error(st, error_class(c));
        if (c.error != adi::Error::none && !any_failed) {
            any_failed = true;
            failed = c;
        }
        indices[n++] = i;
    }
    outcount = n;
    return any_failed ? raise_in_status(fn, failed) : MPI_SUCCESS;
}

int raise_collected(const char* fn, const Collected& c) {
    if (c.error == adi::Error::none) [[likely]] return MPI_SUCCESS;
    return raise_failed(fn, c);
}

// The slot of the request handle `h` that the call must act on: not
// MPI_REQUEST_NULL (which cannot be `verb`), and a request.
int live_slot(const Call& call, MPI_Request h, const char* verb, RequestSlot*& s) {
    s = rt().requests.get(h);
    if (s != nullptr) return MPI_SUCCESS;
    if (h == MPI_REQUEST_NULL) return call.raise(MPI_ERR_REQUEST, std::string("MPI_REQUEST_NULL cannot be ") + verb);
    return call.raise(MPI_ERR_REQUEST, "not a valid request handle");
}

// Starts the persistent request `h` (MPI_Start, each of MPI_Startall's).
int start(const Call& call, MPI_Request h) {
    RequestSlot* s = nullptr;
    if (int e = live_slot(call, h, "started", s)) return e;
    if (!s->persistent) return error_raise(s->comm, MPI_ERR_REQUEST, call.fn, "not a persistent request");
    if (s->active) return error_raise(s->comm, MPI_ERR_REQUEST, call.fn, "the persistent request is already active");
    if (const MpiError e = op_start(*s); !e.ok()) return error_raise(s->comm, e, call.fn);
    s->active = true;
    return MPI_SUCCESS;
}

// Whether every request of the array is complete or inactive.
bool all_done(int count, const MPI_Request* requests) {
    for (int i = 0; i < count; ++i) {
        if (!inactive(requests[i]) && !done(requests[i])) return false;
    }
    return true;
}

bool any_active(int count, const MPI_Request* requests) {
    for (int i = 0; i < count; ++i) {
        if (!inactive(requests[i])) return true;
    }
    return false;
}

}  // namespace

namespace body {

// Inlined into its entry point: with MPI_Isend and MPI_Recv, the hot path.
[[gnu::always_inline]] inline int Wait(const Call& call, MPI_Request& request, MPI_Status* status) {
    // One lookup: a handle that finds no slot is MPI_REQUEST_NULL or not a request.
    RequestSlot* s = rt().requests.get(request);
    if (s == nullptr) [[unlikely]] {
        if (request != MPI_REQUEST_NULL) return call.raise(MPI_ERR_REQUEST, "not a valid request handle");
        status_empty(status);
        return MPI_SUCCESS;
    }
    if (s->persistent && !s->active) {
        status_empty(status);
        return MPI_SUCCESS;
    }
    adi::Request* q = s->req;
    if (!q->complete()) rt().engine->wait([q] { return q->complete(); });
    return raise_collected(call.fn, collect_slot(&request, *s, status));
}

int Test(const Call& call, MPI_Request& request, int& flag, MPI_Status* status) {
    if (int e = check::requests(call, "request", &request, 1)) return e;
    if (inactive(request)) {
        flag = 1;
        status_empty(status);
        return MPI_SUCCESS;
    }
    if (!done(request)) rt().engine->progress_test();
    flag = done(request) ? 1 : 0;
    return flag ? raise_collected(call.fn, collect(&request, status)) : MPI_SUCCESS;
}

int Waitall(const Call& call, int count, MPI_Request requests[], MPI_Status statuses[]) {
    rt().engine->wait([&] { return all_done(count, requests); });
    Collected failed;
    bool any_failed = false;
    for (int i = 0; i < count; ++i) {
        MPI_Status* st = status_at(statuses, i);
        if (inactive(requests[i])) {
            status_empty(st);
            continue;
        }
        Collected c = collect(&requests[i], st);
        status_error(st, error_class(c));
        if (c.error != adi::Error::none && !any_failed) {
            any_failed = true;
            failed = c;
        }
    }
    return any_failed ? raise_in_status(call.fn, failed) : MPI_SUCCESS;
}

int Testall(const Call& call, int count, MPI_Request requests[], int& flag, MPI_Status statuses[]) {
    if (!all_done(count, requests)) rt().engine->progress_test();
    flag = all_done(count, requests) ? 1 : 0;
    return flag ? Waitall(call, count, requests, statuses) : MPI_SUCCESS;
}

int Waitany(const Call& call, int count, MPI_Request requests[], int& index, MPI_Status* status) {
    if (!any_active(count, requests)) {
        index = MPI_UNDEFINED;
        status_empty(status);
        return MPI_SUCCESS;
    }
    int found = -1;
    rt().engine->wait([&] {
        for (int i = 0; i < count; ++i) {
            if (!inactive(requests[i]) && done(requests[i])) {
                found = i;
                return true;
            }
        }
        return false;
    });
    index = found;
    return raise_collected(call.fn, collect(&requests[found], status));
}

int Testany(const Call& call, int count, MPI_Request requests[], int& index, int& flag, MPI_Status* status) {
    rt().engine->progress_test();
    bool active = false;
    for (int i = 0; i < count; ++i) {
        if (inactive(requests[i])) continue;
        active = true;
        if (done(requests[i])) {
            index = i;
            flag = 1;
            return raise_collected(call.fn, collect(&requests[i], status));
        }
    }
    index = MPI_UNDEFINED;
    flag = active ? 0 : 1;
    if (!active) status_empty(status);
    return MPI_SUCCESS;
}

int Waitsome(const Call& call, int incount, MPI_Request requests[], int& outcount, int indices[],
             MPI_Status statuses[]) {
    if (!any_active(incount, requests)) {
        outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    rt().engine->wait([&] {
        for (int i = 0; i < incount; ++i) {
            if (!inactive(requests[i]) && done(requests[i])) return true;
        }
        return false;
    });
    return collect_some(call.fn, incount, requests, outcount, indices, statuses);
}

int Testsome(const Call& call, int incount, MPI_Request requests[], int& outcount, int indices[],
             MPI_Status statuses[]) {
    if (!any_active(incount, requests)) {
        outcount = MPI_UNDEFINED;
        return MPI_SUCCESS;
    }
    rt().engine->progress_test();
    return collect_some(call.fn, incount, requests, outcount, indices, statuses);
}

int Request_free(const Call& call, MPI_Request& request) {
    RequestSlot* s = nullptr;
    if (int e = live_slot(call, request, "freed", s)) return e;
    Runtime& r = rt();
    const bool running_op = s->req->pending > 0 && (!s->persistent || s->active);
    if (running_op) {
        // It still completes; the engine forgets it then.
        s->req->released = true;
    } else {
        r.engine->request_destroy(s->req);
    }
    r.requests.recycle(request, *s);
    request = MPI_REQUEST_NULL;
    return MPI_SUCCESS;
}

int Cancel(const Call& call, MPI_Request& request) {
    RequestSlot* s = nullptr;
    if (int e = live_slot(call, request, "cancelled", s)) return e;
    if (s->persistent && !s->active)
        return error_raise(s->comm, MPI_ERR_REQUEST, call.fn, "the persistent request is not active");
    // Buffered sends and MPI_PROC_NULL operations completed locally: nothing to withdraw.
    if (s->op == RequestSlot::Op::bsend || s->peer == MPI_PROC_NULL) return MPI_SUCCESS;
    rt().engine->cancel(*s->req);
    return MPI_SUCCESS;
}

int Test_cancelled(const Call&, const MPI_Status& status, int& flag) {
    flag = (status.strata_flags & kStatusCancelled) != 0;
    return MPI_SUCCESS;
}

int Start(const Call& call, MPI_Request& request) { return start(call, request); }

int Startall(const Call& call, int count, MPI_Request requests[]) {
    for (int i = 0; i < count; ++i) {
        if (int e = start(call, requests[i])) return e;
    }
    return MPI_SUCCESS;
}

int Buffer_attach(const Call& call, void* buffer, int size) {
    Runtime& r = rt();
    if (r.bsend.attached()) return call.raise(MPI_ERR_BUFFER, "a buffer is already attached; detach it first");
    if (buffer == nullptr && size > 0) return call.raise(MPI_ERR_BUFFER, "buffer is NULL");
    r.bsend.attach(buffer, static_cast<std::size_t>(size));
    return MPI_SUCCESS;
}

int Buffer_detach(const Call&, void* buffer_addr, int& size) {
    Runtime& r = rt();
    // Detach blocks until every buffered message has been transmitted.
    r.engine->wait([&] { return r.bsend.in_use() == 0; });
    void* base = nullptr;
    std::size_t n = 0;
    r.bsend.detach(&base, &n);
    *static_cast<void**>(buffer_addr) = base;
    size = static_cast<int>(n);
    return MPI_SUCCESS;
}

}  // namespace body
}  // namespace strata::mpi

#include "request.inc"
