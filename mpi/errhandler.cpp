#include "mpi/comms/comm.hpp"
#include "mpi/errhandler.hpp"
#include "mpi/errors.hpp"
#include "mpi/pmpi_alias.hpp"
#include "mpi/setup.hpp"

namespace strata::mpi {

void errhandlers_setup(Runtime& r) {
    r.errhandlers.reserve_predefined(8);
    auto fatal_eh = std::make_unique<Errhandler>();
    fatal_eh->fatal = true;
    r.errhandlers.put(MPI_ERRORS_ARE_FATAL & ((1 << 26) - 1), std::move(fatal_eh));
    r.errhandlers.put(MPI_ERRORS_RETURN & ((1 << 26) - 1), std::make_unique<Errhandler>());
}

namespace {
bool predefined(MPI_Errhandler e) { return e == MPI_ERRORS_ARE_FATAL || e == MPI_ERRORS_RETURN; }
}  // namespace

}  // namespace strata::mpi

using namespace strata::mpi;

extern "C" {

namespace {

// MPI_Errhandler_create and MPI_Comm_create_errhandler, and so on: one
// implementation, errors reported under the name called.
int errhandler_create(const char* fn, MPI_Handler_function* function, MPI_Errhandler* errhandler) {
    return api(fn, [&] {
        if (function == nullptr || errhandler == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "NULL argument");
        auto eh = std::make_unique<Errhandler>();
        eh->fn = function;
        *errhandler = rt().errhandlers.add(std::move(eh));
        return MPI_SUCCESS;
    });
}

int errhandler_set(const char* fn, MPI_Comm comm, MPI_Errhandler errhandler) {
    return api(fn, [&] {
        Comm* c = comm_get(comm);
        if (c == nullptr) return error_raise(comm, MPI_ERR_COMM, fn, "");
        Errhandler* eh = rt().errhandlers.get(errhandler);
        if (eh == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "invalid error handler");
        const MPI_Errhandler old_handle = c->errhandler;
        Errhandler* old = rt().errhandlers.get(old_handle);
        ++eh->refs;
        c->errhandler = errhandler;
        if (old != nullptr && --old->refs == 0 && !predefined(old_handle)) rt().errhandlers.remove(old_handle);
        return MPI_SUCCESS;
    });
}

int errhandler_get(const char* fn, MPI_Comm comm, MPI_Errhandler* errhandler) {
    return api(fn, [&] {
        Comm* c = comm_get(comm);
        if (c == nullptr) return error_raise(comm, MPI_ERR_COMM, fn, "");
        if (errhandler == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "NULL argument");
        // The returned handle is a new reference, released by MPI_Errhandler_free.
        ++rt().errhandlers.get(c->errhandler)->refs;
        *errhandler = c->errhandler;
        return MPI_SUCCESS;
    });
}

}  // namespace

STRATA_PMPI_ALIAS(MPI_Errhandler_create);
int PMPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler) {
    return errhandler_create("MPI_Errhandler_create", function, errhandler);
}

STRATA_PMPI_ALIAS(MPI_Comm_create_errhandler);
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function* function, MPI_Errhandler* errhandler) {
    return errhandler_create("MPI_Comm_create_errhandler", function, errhandler);
}

STRATA_PMPI_ALIAS(MPI_Errhandler_set);
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
    return errhandler_set("MPI_Errhandler_set", comm, errhandler);
}

STRATA_PMPI_ALIAS(MPI_Comm_set_errhandler);
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler) {
    return errhandler_set("MPI_Comm_set_errhandler", comm, errhandler);
}

STRATA_PMPI_ALIAS(MPI_Errhandler_get);
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
    return errhandler_get("MPI_Errhandler_get", comm, errhandler);
}

STRATA_PMPI_ALIAS(MPI_Comm_get_errhandler);
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler* errhandler) {
    return errhandler_get("MPI_Comm_get_errhandler", comm, errhandler);
}

STRATA_PMPI_ALIAS(MPI_Comm_call_errhandler);
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode) {
    static const char* fn = "MPI_Comm_call_errhandler";
    return api(fn, [&] {
        if (comm_get(comm) == nullptr) return error_raise(comm, MPI_ERR_COMM, fn, "");
        // The communicator's handler runs with the caller's code (MPI_ERRORS_ARE_FATAL
        // ends the job); once it returns, the call succeeded.
        error_raise(comm, errorcode, fn, "raised by the program");
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Errhandler_free);
int PMPI_Errhandler_free(MPI_Errhandler* errhandler) {
    return api("MPI_Errhandler_free", [&] {
        if (errhandler == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Errhandler_free", "NULL argument");
        Errhandler* eh = rt().errhandlers.get(*errhandler);
        if (eh == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Errhandler_free", "invalid error handler");
        if (--eh->refs == 0 && !predefined(*errhandler)) rt().errhandlers.remove(*errhandler);
        *errhandler = MPI_ERRHANDLER_NULL;
        return MPI_SUCCESS;
    });
}

}  // extern "C"
