#include "mpi/comm.hpp"
#include "mpi/errors.hpp"
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

#pragma weak MPI_Errhandler_create = PMPI_Errhandler_create
int PMPI_Errhandler_create(MPI_Handler_function* function, MPI_Errhandler* errhandler) {
    return api("MPI_Errhandler_create", [&] {
        if (function == nullptr || errhandler == nullptr)
            return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Errhandler_create", "NULL argument");
        auto eh = std::make_unique<Errhandler>();
        eh->fn = function;
        *errhandler = rt().errhandlers.add(std::move(eh));
        return MPI_SUCCESS;
    });
}

#pragma weak MPI_Errhandler_set = PMPI_Errhandler_set
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler) {
    return api("MPI_Errhandler_set", [&] {
        Comm* c = comm_get(comm);
        if (c == nullptr) return error_raise(comm, MPI_ERR_COMM, "MPI_Errhandler_set", "");
        Errhandler* eh = rt().errhandlers.get(errhandler);
        if (eh == nullptr) return error_raise(comm, MPI_ERR_ARG, "MPI_Errhandler_set", "invalid error handler");
        const MPI_Errhandler old_handle = c->errhandler;
        Errhandler* old = rt().errhandlers.get(old_handle);
        ++eh->refs;
        c->errhandler = errhandler;
        if (old != nullptr && --old->refs == 0 && !predefined(old_handle)) rt().errhandlers.remove(old_handle);
        return MPI_SUCCESS;
    });
}

#pragma weak MPI_Errhandler_get = PMPI_Errhandler_get
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler* errhandler) {
    return api("MPI_Errhandler_get", [&] {
        Comm* c = comm_get(comm);
        if (c == nullptr) return error_raise(comm, MPI_ERR_COMM, "MPI_Errhandler_get", "");
        if (errhandler == nullptr) return error_raise(comm, MPI_ERR_ARG, "MPI_Errhandler_get", "NULL argument");
        // The returned handle is a new reference, released by MPI_Errhandler_free.
        ++rt().errhandlers.get(c->errhandler)->refs;
        *errhandler = c->errhandler;
        return MPI_SUCCESS;
    });
}

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
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
