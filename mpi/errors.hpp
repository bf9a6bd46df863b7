// Errors at the C edge: every MPI_ entry point runs its body through api(),
// which refuses calls outside MPI_Init..MPI_Finalize, keeps exceptions from
// crossing the C ABI, and turns failures into error classes raised on the
// communicator's error handler.
#pragma once

#include <new>
#include <string>

#include "adi/request.hpp"
#include "mpi.h"

namespace strata::mpi {

const char* error_class_text(int cls);

// Raises `cls` through `comm`'s error handler (MPI_COMM_WORLD's when `comm`
// is not a valid communicator). Returns the value the entry point returns.
int error_raise(MPI_Comm comm, int cls, const char* fn, const std::string& detail);

// What a step below an entry point reports when it fails: the error class
// and what to tell the user (error_raise's detail). A default MpiError is
// success.
struct MpiError {
    int cls = MPI_SUCCESS;
    std::string detail;
    bool ok() const { return cls == MPI_SUCCESS; }
};
inline int error_raise(MPI_Comm comm, const MpiError& e, const char* fn) {
    return error_raise(comm, e.cls, fn, e.detail);
}

// One call of an MPI function: its name, which its errors carry, and the
// communicator they are raised on (the call's first communicator argument;
// MPI_COMM_WORLD for calls that have none, as groups and datatypes).
struct Call {
    const char* fn;
    MPI_Comm comm = MPI_COMM_WORLD;

    int raise(int cls, const std::string& detail) const { return error_raise(comm, cls, fn, detail); }
    int raise(const MpiError& e) const { return error_raise(comm, e, fn); }
};

// Ends the whole job after printing `text`; used when no handler applies.
[[noreturn]] void fatal(const char* fn, const std::string& text);

int error_class_of(adi::Error e);

namespace detail {
extern bool g_running;
}
// Between MPI_Init and MPI_Finalize.
inline bool running() { return detail::g_running; }

// Inlined into each entry point, so the body's captures cost nothing.
template <class F>
[[gnu::always_inline]] inline int api(const char* fn, F&& body) noexcept {
    if (!running()) fatal(fn, "called before MPI_Init or after MPI_Finalize");
    try {
        return body();
    } catch (const std::bad_alloc&) {
        return error_raise(MPI_COMM_WORLD, MPI_ERR_INTERN, fn, "out of memory");
    } catch (const std::exception& e) {
        return error_raise(MPI_COMM_WORLD, MPI_ERR_INTERN, fn, e.what());
    } catch (...) {
        return error_raise(MPI_COMM_WORLD, MPI_ERR_INTERN, fn, "internal error");
    }
}

}  // namespace strata::mpi
