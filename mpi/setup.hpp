// Predefined objects, created by MPI_Init once the world is known.
#pragma once

#include "mpi/runtime.hpp"

namespace strata::mpi {

void setup_predefined(Runtime& r);
void comms_setup(Runtime& r);
void datatypes_setup(Runtime& r);
void errhandlers_setup(Runtime& r);
void groups_setup(Runtime& r);
void keyvals_setup(Runtime& r);
// Appends the representation of the process of `card` (named `who` in
// errors) to r.representations, r.foreign and r.forms: how it stores data,
// whether that differs from this process (its data is converted on receipt,
// mpi/hetero/foreign.hpp), and whether it can be converted at all.
base::Status representation_add(Runtime& r, const wireup::BusinessCard& card, const std::string& who);

}  // namespace strata::mpi
