// Communicator lookups and the life cycle every constructor shares.
#pragma once

#include <memory>
#include <vector>

#include "mpi/runtime.hpp"

namespace strata::mpi {

inline Comm* comm_get(MPI_Comm c) { return rt().comms.get(c); }

// The communicator behind `comm`, or the MPI_ERR_COMM raised on it.
int comm_check(const char* fn, MPI_Comm comm, Comm*& c);
// As comm_check, and MPI_ERR_COMM for an intercommunicator.
int comm_check_intra(const char* fn, MPI_Comm comm, Comm*& c);

// A new communicator on context pair `pair` over `world` (rank -> world
// rank), where this process is `rank`; it inherits `parent`'s error handler.
std::unique_ptr<Comm> comm_make(const Comm& parent, int pair, std::vector<int> world, int rank);
// Takes the context pair and hands out a handle.
MPI_Comm comm_register(std::unique_ptr<Comm> c);
// Runs the attribute delete callbacks, then releases the handle, its
// context pair and its error handler. Returns an MPI error class.
int comm_destroy(MPI_Comm handle);

// How two ordered lists of world ranks relate: MPI_IDENT, MPI_SIMILAR or MPI_UNEQUAL.
int compare_members(const std::vector<int>& a, const std::vector<int>& b);

// Position of world rank `w` in `world`, or -1.
int rank_of(const std::vector<int>& world, int w);

// MPI_Comm_split's work for `parent` (collective over it): the new
// communicator of this process, or null for MPI_UNDEFINED. Returns an MPI
// error class and a detail.
int comm_split_into(const Comm& parent, int color, int key, std::unique_ptr<Comm>& out, std::string& detail);

// A context pair free at every member of intracommunicator `c` (collective
// over it), for communicators made of its processes. Returns an MPI error
// class and a detail.
int comm_pair_agree(const Comm& c, int& pair, std::string& detail);

// Error class (and detail) when no context pair is free at every member.
int no_context(std::string& detail);
// Error class for a failed internal agreement.
int agreement_failed(adi::Error e, std::string& detail);

}  // namespace strata::mpi
