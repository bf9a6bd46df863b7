// Completion, cancellation and persistent requests.
#include <vector>

#include "mpi/errors.hpp"
#include "mpi/pmpi_alias.hpp"
#include "mpi/pt2pt.hpp"
#include "mpi/request.hpp"

using namespace strata;
using namespace strata::mpi;

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

// Checks every handle of an array; MPI_ERR_REQUEST names the first bad one.
int check_handles(const char* fn, int count, const MPI_Request* reqs) {
    if (count < 0) return error_raise(MPI_COMM_WORLD, MPI_ERR_COUNT, fn, "count is negative");
    if (count > 0 && reqs == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "request array is NULL");
    for (int i = 0; i < count; ++i) {
        if (reqs[i] != MPI_REQUEST_NULL && rt().requests.get(reqs[i]) == nullptr)
            return error_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn,
                               "entry " + std::to_string(i) + " is not a valid request handle");
    }
    return MPI_SUCCESS;
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
        r.requests.recycle(*h);
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
int collect_some(const char* fn, int count, MPI_Request* reqs, int* outcount, int* indices, MPI_Status* statuses) {
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
    *outcount = n;
    return any_failed ? raise_in_status(fn, failed) : MPI_SUCCESS;
}

int raise_collected(const char* fn, const Collected& c) {
    if (c.error == adi::Error::none) [[likely]] return MPI_SUCCESS;
    return raise_failed(fn, c);
}

}  // namespace

extern "C" {

STRATA_PMPI_ALIAS(MPI_Wait);
int PMPI_Wait(MPI_Request* request, MPI_Status* status) {
    static const char* fn = "MPI_Wait";
    return api(fn, [&] {
        if (request == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "request is NULL");
        // One lookup: a handle that finds no slot is MPI_REQUEST_NULL or
        // not a request (check_handles says which).
        RequestSlot* s = rt().requests.get(*request);
        if (s == nullptr) [[unlikely]] {
            if (int e = check_handles(fn, 1, request)) return e;
            status_empty(status);
            return MPI_SUCCESS;
        }
        if (s->persistent && !s->active) {
            status_empty(status);
            return MPI_SUCCESS;
        }
        adi::Request* q = s->req;
        if (!q->complete()) rt().engine->wait([q] { return q->complete(); });
        return raise_collected(fn, collect_slot(request, *s, status));
    });
}

STRATA_PMPI_ALIAS(MPI_Test);
int PMPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
    static const char* fn = "MPI_Test";
    return api(fn, [&] {
        if (request == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "request is NULL");
        if (flag == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "flag is NULL");
        if (int e = check_handles(fn, 1, request)) return e;
        if (inactive(*request)) {
            *flag = 1;
            status_empty(status);
            return MPI_SUCCESS;
        }
        if (!done(*request)) rt().engine->progress_test();
        *flag = done(*request) ? 1 : 0;
        return *flag ? raise_collected(fn, collect(request, status)) : MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Waitall);
int PMPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
    static const char* fn = "MPI_Waitall";
    return api(fn, [&] {
        if (int e = check_handles(fn, count, requests)) return e;
        rt().engine->wait([&] {
            for (int i = 0; i < count; ++i) {
                if (!inactive(requests[i]) && !done(requests[i])) return false;
            }
            return true;
        });
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
        return any_failed ? raise_in_status(fn, failed) : MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Testall);
int PMPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
    static const char* fn = "MPI_Testall";
    return api(fn, [&] {
        if (int e = check_handles(fn, count, requests)) return e;
        if (flag == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "flag is NULL");
        auto all_done = [&] {
            for (int i = 0; i < count; ++i) {
                if (!inactive(requests[i]) && !done(requests[i])) return false;
            }
            return true;
        };
        if (!all_done()) rt().engine->progress_test();
        if (!all_done()) {
            *flag = 0;
            return MPI_SUCCESS;
        }
        *flag = 1;
        return PMPI_Waitall(count, requests, statuses);
    });
}

STRATA_PMPI_ALIAS(MPI_Waitany);
int PMPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
    static const char* fn = "MPI_Waitany";
    return api(fn, [&] {
        if (int e = check_handles(fn, count, requests)) return e;
        if (index == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "index is NULL");
        int found = -1;
        bool any_active = false;
        for (int i = 0; i < count; ++i) any_active = any_active || !inactive(requests[i]);
        if (!any_active) {
            *index = MPI_UNDEFINED;
            status_empty(status);
            return MPI_SUCCESS;
        }
        rt().engine->wait([&] {
            for (int i = 0; i < count; ++i) {
                if (!inactive(requests[i]) && done(requests[i])) {
                    found = i;
                    return true;
                }
            }
            return false;
        });
        *index = found;
        return raise_collected(fn, collect(&requests[found], status));
    });
}

STRATA_PMPI_ALIAS(MPI_Testany);
int PMPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
    static const char* fn = "MPI_Testany";
    return api(fn, [&] {
        if (int e = check_handles(fn, count, requests)) return e;
        if (index == nullptr || flag == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
        rt().engine->progress_test();
        bool any_active = false;
        for (int i = 0; i < count; ++i) {
            if (inactive(requests[i])) continue;
            any_active = true;
            if (done(requests[i])) {
                *index = i;
                *flag = 1;
                return raise_collected(fn, collect(&requests[i], status));
            }
        }
        *index = MPI_UNDEFINED;
        *flag = any_active ? 0 : 1;
        if (!any_active) status_empty(status);
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Waitsome);
int PMPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
    static const char* fn = "MPI_Waitsome";
    return api(fn, [&] {
        if (int e = check_handles(fn, incount, requests)) return e;
        if (outcount == nullptr || (incount > 0 && indices == nullptr))
            return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
        bool any_active = false;
        for (int i = 0; i < incount; ++i) any_active = any_active || !inactive(requests[i]);
        if (!any_active) {
            *outcount = MPI_UNDEFINED;
            return MPI_SUCCESS;
        }
        rt().engine->wait([&] {
            for (int i = 0; i < incount; ++i) {
                if (!inactive(requests[i]) && done(requests[i])) return true;
            }
            return false;
        });
        return collect_some(fn, incount, requests, outcount, indices, statuses);
    });
}

STRATA_PMPI_ALIAS(MPI_Testsome);
int PMPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
    static const char* fn = "MPI_Testsome";
    return api(fn, [&] {
        if (int e = check_handles(fn, incount, requests)) return e;
        if (outcount == nullptr || (incount > 0 && indices == nullptr))
            return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
        bool any_active = false;
        for (int i = 0; i < incount; ++i) any_active = any_active || !inactive(requests[i]);
        if (!any_active) {
            *outcount = MPI_UNDEFINED;
            return MPI_SUCCESS;
        }
        rt().engine->progress_test();
        return collect_some(fn, incount, requests, outcount, indices, statuses);
    });
}

STRATA_PMPI_ALIAS(MPI_Request_free);
int PMPI_Request_free(MPI_Request* request) {
    static const char* fn = "MPI_Request_free";
    return api(fn, [&] {
        if (request == nullptr || *request == MPI_REQUEST_NULL)
            return error_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "MPI_REQUEST_NULL cannot be freed");
        if (int e = check_handles(fn, 1, request)) return e;
        Runtime& r = rt();
        RequestSlot* s = r.requests.get(*request);
        const bool running_op = s->req->pending > 0 && (!s->persistent || s->active);
        if (running_op) {
            // It still completes; the engine forgets it then.
            s->req->released = true;
        } else {
            r.engine->request_destroy(s->req);
        }
        r.requests.recycle(*request);
        *request = MPI_REQUEST_NULL;
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Cancel);
int PMPI_Cancel(MPI_Request* request) {
    static const char* fn = "MPI_Cancel";
    return api(fn, [&] {
        if (request == nullptr || *request == MPI_REQUEST_NULL)
            return error_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "MPI_REQUEST_NULL cannot be cancelled");
        if (int e = check_handles(fn, 1, request)) return e;
        RequestSlot* s = rt().requests.get(*request);
        if (s->persistent && !s->active)
            return error_raise(s->comm, MPI_ERR_REQUEST, fn, "the persistent request is not active");
        // Buffered sends and MPI_PROC_NULL operations completed locally: nothing to withdraw.
        if (s->op == RequestSlot::Op::bsend || s->peer == MPI_PROC_NULL) return MPI_SUCCESS;
        rt().engine->cancel(*s->req);
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Test_cancelled);
int PMPI_Test_cancelled(const MPI_Status* status, int* flag) {
    static const char* fn = "MPI_Test_cancelled";
    return api(fn, [&] {
        if (status == nullptr || flag == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
        *flag = (status->strata_flags & kStatusCancelled) != 0;
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Start);
int PMPI_Start(MPI_Request* request) {
    static const char* fn = "MPI_Start";
    return api(fn, [&] {
        if (request == nullptr || *request == MPI_REQUEST_NULL)
            return error_raise(MPI_COMM_WORLD, MPI_ERR_REQUEST, fn, "MPI_REQUEST_NULL cannot be started");
        if (int e = check_handles(fn, 1, request)) return e;
        RequestSlot* s = rt().requests.get(*request);
        if (!s->persistent) return error_raise(s->comm, MPI_ERR_REQUEST, fn, "not a persistent request");
        if (s->active) return error_raise(s->comm, MPI_ERR_REQUEST, fn, "the persistent request is already active");
        if (const MpiError e = op_start(*s); !e.ok()) return error_raise(s->comm, e, fn);
        s->active = true;
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Startall);
int PMPI_Startall(int count, MPI_Request requests[]) {
    static const char* fn = "MPI_Startall";
    return api(fn, [&] {
        if (int e = check_handles(fn, count, requests)) return e;
        for (int i = 0; i < count; ++i) {
            if (int e = PMPI_Start(&requests[i])) return e;
        }
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Buffer_attach);
int PMPI_Buffer_attach(void* buffer, int size) {
    static const char* fn = "MPI_Buffer_attach";
    return api(fn, [&] {
        Runtime& r = rt();
        if (r.bsend.attached())
            return error_raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, fn, "a buffer is already attached; detach it first");
        if (size < 0) return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "size is negative");
        if (buffer == nullptr && size > 0) return error_raise(MPI_COMM_WORLD, MPI_ERR_BUFFER, fn, "buffer is NULL");
        r.bsend.attach(buffer, static_cast<std::size_t>(size));
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Buffer_detach);
int PMPI_Buffer_detach(void* buffer_addr, int* size) {
    static const char* fn = "MPI_Buffer_detach";
    return api(fn, [&] {
        if (buffer_addr == nullptr || size == nullptr)
            return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
        Runtime& r = rt();
        // Detach blocks until every buffered message has been transmitted.
        r.engine->wait([&] { return r.bsend.in_use() == 0; });
        void* base = nullptr;
        std::size_t n = 0;
        r.bsend.detach(&base, &n);
        *static_cast<void**>(buffer_addr) = base;
        *size = static_cast<int>(n);
        return MPI_SUCCESS;
    });
}

}  // extern "C"
