#include "mpi/comms/comm.hpp"
#include "mpi/errhandler.hpp"
#include "mpi/errors.hpp"
#include "mpi/entry.hpp"
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

// MPI_Errhandler_create and MPI_Comm_create_errhandler, and so on: one
// body each, under the name called.
int errhandler_create(MPI_Handler_function* function, MPI_Errhandler& errhandler) {
    auto eh = std::make_unique<Errhandler>();
    eh->fn = function;
    errhandler = rt().errhandlers.add(std::move(eh));
    return MPI_SUCCESS;
}

int errhandler_set(Comm& comm, MPI_Errhandler errhandler) {
    const MPI_Errhandler old_handle = comm.errhandler;
    Errhandler* old = rt().errhandlers.get(old_handle);
    ++rt().errhandlers.get(errhandler)->refs;
    comm.errhandler = errhandler;
    if (old != nullptr && --old->refs == 0 && !predefined(old_handle)) rt().errhandlers.remove(old_handle);
    return MPI_SUCCESS;
}

int errhandler_get(const Comm& comm, MPI_Errhandler& errhandler) {
    // The returned handle is a new reference, released by MPI_Errhandler_free.
    ++rt().errhandlers.get(comm.errhandler)->refs;
    errhandler = comm.errhandler;
    return MPI_SUCCESS;
}

}  // namespace

namespace body {

int Errhandler_create(const Call&, MPI_Handler_function* function, MPI_Errhandler& errhandler) {
    return errhandler_create(function, errhandler);
}

int Comm_create_errhandler(const Call&, MPI_Comm_errhandler_function* function, MPI_Errhandler& errhandler) {
    return errhandler_create(function, errhandler);
}

int Errhandler_set(const Call&, Comm& comm, MPI_Errhandler errhandler) { return errhandler_set(comm, errhandler); }

int Comm_set_errhandler(const Call&, Comm& comm, MPI_Errhandler errhandler) {
    return errhandler_set(comm, errhandler);
}

int Errhandler_get(const Call&, Comm& comm, MPI_Errhandler& errhandler) { return errhandler_get(comm, errhandler); }

int Comm_get_errhandler(const Call&, Comm& comm, MPI_Errhandler& errhandler) {
    return errhandler_get(comm, errhandler);
}

int Comm_call_errhandler(const Call& call, Comm&, int errorcode) {
    // The communicator's handler runs with the caller's code (MPI_ERRORS_ARE_FATAL
    // ends the job); once it returns, the call succeeded.
    call.raise(errorcode, "raised by the program");
    return MPI_SUCCESS;
}

int Errhandler_free(const Call& call, MPI_Errhandler& errhandler) {
    if (int e = check::errhandler(call, errhandler)) return e;
    Errhandler* eh = rt().errhandlers.get(errhandler);
    if (--eh->refs == 0 && !predefined(errhandler)) rt().errhandlers.remove(errhandler);
    errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

}  // namespace body
}  // namespace strata::mpi

#include "errhandler.inc"
