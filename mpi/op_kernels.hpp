// The predefined reduction operations as functions on dense elements, for
// exactly the (operation, basic type) pairs MPI-1 allows.
#pragma once

#include <cstddef>
#include <optional>

#include "mpi.h"

namespace strata::mpi {

// inout[i] = in[i] op inout[i] for `count` dense elements.
using OpKernelFn = void (*)(const void* in, void* inout, std::size_t count);

struct OpKernel {
    OpKernelFn fn;
    std::size_t element_bytes;
};

// The kernel of predefined `op` (MPI_MAX .. MPI_MINLOC) on elements of
// `basic`, whose dense element is `basic_bytes` long; nullopt when MPI-1 does
// not define the pair (the caller raises MPI_ERR_OP). The pair types of
// MAXLOC/MINLOC are accepted both in their C struct layout ({double v; int i;}
// with padding) and packed (value then index, no padding), told apart by
// `basic_bytes`, so the kernels do not depend on how the datatype packs them;
// Fortran's (MPI_2REAL: value and index both REAL) have no padding either way.
std::optional<OpKernel> op_kernel(MPI_Op op, MPI_Datatype basic, std::size_t basic_bytes);

}  // namespace strata::mpi
