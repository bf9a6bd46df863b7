// Communicators: what one is, its lookups and the life cycle every
// constructor shares.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "adi/request.hpp"
#include "collectives/hierarchy.hpp"
#include "mpi.h"
#include "mpi/errors.hpp"
#include "mpi/runtime.hpp"

namespace strata::mpi {

// A process topology attached to a communicator (MPI_Cart_create, MPI_Graph_create).
struct CartTopology {
    std::vector<int> dims;
    std::vector<int> periods;  // 0 or 1 per dimension
};
struct GraphTopology {
    std::vector<int> index;  // cumulative neighbour counts, as MPI_Graph_create takes them
    std::vector<int> edges;
};

// MPICHX_TOPOLOGY_DEPTHS and MPICHX_TOPOLOGY_COLORS of one communicator: for
// each rank of its (local) group, its depth and its colour at each level,
// colours renumbered by first appearance in the communicator's rank order.
struct GridAttributes {
    std::vector<int> depths;
    std::vector<std::vector<int>> rows;  // rows[rank]: depths[rank] colours
    std::vector<int*> colors;            // rows' data: the int** a program gets
};

// What a communicator works out about its members once, on first use, and
// keeps: each is made by the code that needs it, and freed with the
// communicator.
struct CommCaches {
    // The engine's methods that reach `world` (adi::Engine::methods_reaching),
    // what a receive from MPI_ANY_SOURCE polls (pt2pt.hpp from_methods): 0
    // until first asked.
    std::uint32_t any_methods = 0;
    // Whether its processes store data in more than one way (mpi/hetero/foreign.hpp
    // comm_spans): -1 until first asked.
    signed char spans = -1;
    // How the group splits along the topology, for the multilevel collectives
    // (coll_support.cpp group_of).
    std::unique_ptr<coll::Levels> levels;
    // MPICHX_TOPOLOGY_DEPTHS and MPICHX_TOPOLOGY_COLORS (mpi/comms/attr.cpp).
    std::unique_ptr<GridAttributes> grid;
};

struct Comm {
    int context = 0;          // point-to-point context; context + 1 is for collectives
    int rank = 0;             // this process's rank in its (local) group
    // Rank -> world rank of the processes point-to-point addresses: the group,
    // or on an intercommunicator the remote group.
    std::vector<int> world;
    bool inter = false;       // intercommunicator: `local` holds the local group
    std::vector<int> local;
    MPI_Errhandler errhandler = MPI_ERRORS_ARE_FATAL;
    std::string name;
    std::map<int, void*> attrs;  // keyval -> attribute value
    std::variant<std::monostate, CartTopology, GraphTopology> topology;
    // MPIX_PARALLEL_STREAMS as MPI_Attr_get last gave it (a pointer to it).
    int streams = 1;
    // MPIX_QOS as last put (MPI_Attr_get gives a pointer to it), and the
    // engine's handle of its reservation (0: none).
    MPIX_Qos qos{MPIX_QOS_BEST_EFFORT, 0};
    std::uint64_t qos_handle = 0;
    // What is computed from the communicator's members on first use and kept
    // with it (never copied to a communicator made from it).
    mutable CommCaches cache;
    // The other job's processes it holds, if made from a communicator that
    // MPI_Comm_accept or MPI_Comm_connect returned (mpi/port.hpp): their set's
    // id, 0 for none.
    std::uint64_t peer_set = 0;
    // On an intercommunicator MPI_Comm_accept made (and what is made from
    // it): the certificate subject the client proved, or empty.
    std::string peer_subject;
    int size() const { return static_cast<int>(inter ? local.size() : world.size()); }
    // How many ranks point-to-point can address (the remote group's size on an intercommunicator).
    int peers() const { return static_cast<int>(world.size()); }
    // World ranks of this process's own group.
    const std::vector<int>& group() const { return inter ? local : world; }
};

inline Comm* comm_get(MPI_Comm c) { return rt().comms.get(c); }

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
// communicator of this process, or null for MPI_UNDEFINED.
MpiError comm_split_into(const Comm& parent, int color, int key, std::unique_ptr<Comm>& out);

// A context pair free at every member of intracommunicator `c` (collective
// over it), for communicators made of its processes.
MpiError comm_pair_agree(const Comm& c, int& pair);

// The error when no context pair is free at every member.
MpiError no_context();
// The error of a failed internal agreement.
MpiError agreement_failed(adi::Error e);

}  // namespace strata::mpi
