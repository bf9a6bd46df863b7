// Reduction operations: MPI_Op objects and the coll::ReduceOp a collective
// runs for one (operation, datatype) pair.
#pragma once

#include <memory>

#include "collectives/reduce_op.hpp"
#include "mpi.h"

namespace strata::mpi {

struct Runtime;
struct Datatype;

struct Operation {
    MPI_User_function* fn = nullptr;  // user operations
    bool commutative = true;
    MPI_Op predefined = MPI_OP_NULL;  // the handle of a predefined operation
};

// Creates MPI_MAX .. MPI_MINLOC at their fixed handles.
void ops_setup(Runtime& r);

struct Form;  // mpi/coll_support.hpp

// The reduction of `op` on elements of `type` (handle `handle`), whose
// operands travel in `form`, or the MPI error class why not: MPI_ERR_OP for an
// invalid handle or a predefined operation MPI-1 does not define on the type.
int reduce_op_make(MPI_Op op, MPI_Datatype handle, const Datatype& type, const Form& form,
                   std::unique_ptr<coll::ReduceOp>& out);

}  // namespace strata::mpi
