// Handle and status conversions between C and Fortran (mpi.h, mpi/f2c.hpp).
#include "mpi/f2c.hpp"

#include "mpi/errors.hpp"
#include "mpi/pmpi_alias.hpp"

using namespace strata::mpi;

namespace {

int status_check(const char* fn, const void* status, const char* what) {
    if (status == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, std::string(what) + " is a null pointer");
    if (status == MPI_STATUS_IGNORE)
        return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, std::string(what) + " is MPI_STATUS_IGNORE, not a status");
    return MPI_SUCCESS;
}

}  // namespace

// Handles are the same integers in both languages.
#define STRATA_HANDLE_F2C(Kind, CType)                                 \
    STRATA_PMPI_ALIAS(MPI_##Kind##_f2c);                               \
    CType PMPI_##Kind##_f2c(MPI_Fint h) { return static_cast<CType>(h); } \
    STRATA_PMPI_ALIAS(MPI_##Kind##_c2f);                               \
    MPI_Fint PMPI_##Kind##_c2f(CType h) { return static_cast<MPI_Fint>(h); }

STRATA_HANDLE_F2C(Comm, MPI_Comm)
STRATA_HANDLE_F2C(Type, MPI_Datatype)
STRATA_HANDLE_F2C(Group, MPI_Group)
STRATA_HANDLE_F2C(Request, MPI_Request)
STRATA_HANDLE_F2C(Op, MPI_Op)
STRATA_HANDLE_F2C(Errhandler, MPI_Errhandler)
STRATA_HANDLE_F2C(Info, MPI_Info)

STRATA_PMPI_ALIAS(MPI_Status_f2c);
int PMPI_Status_f2c(const MPI_Fint* f_status, MPI_Status* c_status) {
    return api("MPI_Status_f2c", [&] {
        if (f_status == nullptr) return status_check("MPI_Status_f2c", f_status, "f_status");
        if (const int rc = status_check("MPI_Status_f2c", c_status, "c_status")) return rc;
        status_f2c(f_status, c_status);
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Status_c2f);
int PMPI_Status_c2f(const MPI_Status* c_status, MPI_Fint* f_status) {
    return api("MPI_Status_c2f", [&] {
        if (const int rc = status_check("MPI_Status_c2f", c_status, "c_status")) return rc;
        if (f_status == nullptr) return status_check("MPI_Status_c2f", f_status, "f_status");
        status_c2f(c_status, f_status);
        return MPI_SUCCESS;
    });
}
