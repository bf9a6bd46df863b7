#include "mpi/comm.hpp"

#include "mpi/errors.hpp"
#include "mpi/setup.hpp"

namespace strata::mpi {

void comms_setup(Runtime& r) {
    r.comms.reserve_predefined(16);
    auto world = std::make_unique<Comm>();
    world->context = 0;
    world->rank = r.world_rank;
    world->world.resize(static_cast<std::size_t>(r.world_size));
    for (int i = 0; i < r.world_size; ++i) world->world[static_cast<std::size_t>(i)] = i;
    world->name = "MPI_COMM_WORLD";
    r.comms.put(MPI_COMM_WORLD & ((1 << 26) - 1), std::move(world));

    auto self = std::make_unique<Comm>();
    self->context = 2;
    self->rank = 0;
    self->world = {r.world_rank};
    self->name = "MPI_COMM_SELF";
    r.comms.put(MPI_COMM_SELF & ((1 << 26) - 1), std::move(self));
}

void setup_predefined(Runtime& r) {
    errhandlers_setup(r);
    datatypes_setup(r);
    comms_setup(r);
    ops_setup(r);
}

}  // namespace strata::mpi

using namespace strata::mpi;

extern "C" {

#pragma weak MPI_Comm_size = PMPI_Comm_size
int PMPI_Comm_size(MPI_Comm comm, int* size) {
    return api("MPI_Comm_size", [&] {
        Comm* c = comm_get(comm);
        if (c == nullptr) return error_raise(comm, MPI_ERR_COMM, "MPI_Comm_size", "");
        if (size == nullptr) return error_raise(comm, MPI_ERR_ARG, "MPI_Comm_size", "size is NULL");
        *size = c->size();
        return MPI_SUCCESS;
    });
}

#pragma weak MPI_Comm_rank = PMPI_Comm_rank
int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
    return api("MPI_Comm_rank", [&] {
        Comm* c = comm_get(comm);
        if (c == nullptr) return error_raise(comm, MPI_ERR_COMM, "MPI_Comm_rank", "");
        if (rank == nullptr) return error_raise(comm, MPI_ERR_ARG, "MPI_Comm_rank", "rank is NULL");
        *rank = c->rank;
        return MPI_SUCCESS;
    });
}

}  // extern "C"
