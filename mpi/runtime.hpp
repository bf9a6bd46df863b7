// The process-wide state behind the C API: one Runtime exists between
// MPI_Init and MPI_Finalize. Everything in mpi/ reaches it through rt().
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <variant>
#include <string>
#include <unordered_set>
#include <vector>

#include "adi/engine.hpp"
#include "collectives/hierarchy.hpp"
#include "wireup/protocol.hpp"
#include "mpi.h"
#include "mpi/bsend_buffer.hpp"
#include "mpi/context_pool.hpp"
#include "mpi/handle_table.hpp"
#include "mpi/typemap.hpp"
#include "mpi/op.hpp"

namespace strata::mpi {

struct Errhandler {
    MPI_Handler_function* fn = nullptr;  // null for the predefined ones
    bool fatal = false;
    int refs = 1;
};

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
    // Made on the first request for the grid topology attributes (mpi/attr.cpp);
    // freed with the communicator.
    std::unique_ptr<GridAttributes> grid;
    // How the group splits along the topology, for the multilevel collectives:
    // made on the first collective (coll_support.cpp), freed with the communicator.
    std::unique_ptr<coll::Levels> levels;
    // MPIX_PARALLEL_STREAMS as MPI_Attr_get last gave it (a pointer to it).
    int streams = 1;
    int size() const { return static_cast<int>(inter ? local.size() : world.size()); }
    // How many ranks point-to-point can address (the remote group's size on an intercommunicator).
    int peers() const { return static_cast<int>(world.size()); }
    // World ranks of this process's own group.
    const std::vector<int>& group() const { return inter ? local : world; }
};

struct Group {
    std::vector<int> world;  // group rank -> world rank
};

// An attribute key (MPI_Keyval_create). It lives while its handle is not
// freed or attributes still use it.
struct Keyval {
    MPI_Copy_function* copy = nullptr;
    MPI_Delete_function* del = nullptr;
    void* extra = nullptr;
    int refs = 1;
    bool predefined = false;
};

struct Datatype {
    int size = 0;       // bytes of data in one element
    MPI_Aint extent = 0;
    // count elements are one block of count * size bytes at origin + lb
    // (see Typemap::contiguous): sends and receives go straight from the buffer.
    bool contiguous = true;
    // The one basic type every element is made of (what predefined reduction
    // operations dispatch on; a pair type for MPI_DOUBLE_INT and friends), or
    // MPI_DATATYPE_NULL when the type mixes several.
    MPI_Datatype basic = MPI_DATATYPE_NULL;
    std::string name;
    // The layout, shared with the derived types built on it and with pending
    // communications, so MPI_Type_free never pulls it from under them.
    TypemapPtr map;
    bool predefined = false;
    bool committed = false;  // derived types must be committed before communication
};

// What an MPI request handle refers to.
struct RequestSlot {
    adi::Request* req = nullptr;
    MPI_Comm comm = MPI_COMM_NULL;
    bool persistent = false;
    bool active = false;  // persistent: started and not yet collected
    // Persistent arguments, replayed by MPI_Start.
    enum class Op { send, bsend, ssend, rsend, recv } op = Op::send;
    const void* buf = nullptr;
    int count = 0;
    // The datatype's layout rather than its handle. A blocking call holds its
    // datatype for its whole length, so the plain pointer is enough there; a
    // slot that outlives its call (a request handle) keeps the layout in
    // `hold` too, because MPI_Type_free may release the handle meanwhile.
    const Typemap* type = nullptr;
    TypemapPtr hold;
    int peer = 0;
    int tag = 0;
};

enum class State { fresh, running, finalized };

struct NamedComms;  // mpi/named.hpp

struct Runtime {
    std::optional<wireup::Client> client;
    std::unique_ptr<adi::Engine> engine;
    int world_rank = 0;
    int world_size = 1;
    adi::World world;  // every process's card and the topology, from the startup barrier
    std::chrono::steady_clock::time_point start;

    HandleTable<Comm> comms{kComm};
    HandleTable<Datatype> datatypes{kDatatype};
    HandleTable<RequestSlot> requests{kRequest};
    HandleTable<Errhandler> errhandlers{kErrhandler};
    HandleTable<Group> groups{kGroup};
    HandleTable<Keyval> keyvals{kKeyval};
    ContextPool contexts;
    HandleTable<Operation> ops{kOp};
    BsendBuffer bsend;
    std::unordered_set<void*> allocations;  // MPI_Alloc_mem's, until MPI_Free_mem
    std::shared_ptr<NamedComms> named;      // the communicator file, if the job has one
};

State state();
namespace detail {
extern Runtime* g_runtime;
}
// Only between MPI_Init and MPI_Finalize. Inline: every entry point asks.
inline Runtime& rt() { return *detail::g_runtime; }

// The name of a communicator or datatype into `out` (MPI_MAX_OBJECT_NAME
// bytes), as MPI_Comm_get_name and MPI_Type_get_name return it.
inline void object_name_copy(const std::string& name, char* out, int* resultlen) {
    const std::size_t n = name.size() < MPI_MAX_OBJECT_NAME ? name.size() : MPI_MAX_OBJECT_NAME - 1;
    name.copy(out, n);
    out[n] = '\0';
    *resultlen = static_cast<int>(n);
}

}  // namespace strata::mpi
