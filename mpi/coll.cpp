// Collective entry points: argument checks here, algorithms in collectives/.
#include "collectives/barrier/dissemination.hpp"
#include "mpi/comm.hpp"
#include "mpi/errors.hpp"

using namespace strata;
using namespace strata::mpi;

extern "C" {

#pragma weak MPI_Barrier = PMPI_Barrier
int PMPI_Barrier(MPI_Comm comm) {
    static const char* fn = "MPI_Barrier";
    return api(fn, [&] {
        Comm* c = comm_get(comm);
        if (c == nullptr) return error_raise(comm, MPI_ERR_COMM, fn, "");
        coll::Group g{*rt().engine, c->context + 1, c->rank, c->world};
        adi::Error e = coll::barrier_dissemination(g);
        return e == adi::Error::none ? MPI_SUCCESS : error_raise(comm, error_class_of(e), fn, rt().engine->last_error());
    });
}

}  // extern "C"
