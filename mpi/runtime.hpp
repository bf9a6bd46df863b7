// The process-wide state behind the C API: one Runtime exists between
// MPI_Init and MPI_Finalize. Everything in mpi/ reaches it through rt().
#pragma once

#include <chrono>
#include <climits>
#include <memory>
#include <optional>
#include <thread>
#include <unordered_set>
#include <vector>

#include "adi/engine.hpp"
#include "wireup/protocol.hpp"
#include "mpi/bsend_buffer.hpp"
#include "mpi/comms/context_pool.hpp"
#include "mpi/handle_table.hpp"
#include "mpi/op.hpp"
#include "mpi/hetero/representation.hpp"

namespace strata::mpi {

// The objects behind the handles, each in its own header.
struct Comm;         // mpi/comms/comm.hpp
struct Datatype;     // mpi/datatypes/datatype.hpp
struct RequestSlot;  // mpi/request.hpp
struct Errhandler;   // mpi/errhandler.hpp
struct ProcessGroup;  // mpi/comms/group.hpp
struct Keyval;       // mpi/comms/attr.hpp
class Info;          // mpi/info.hpp
struct NamedComms;   // mpi/comms/named.hpp
struct Port;         // mpi/port.hpp
struct PeerSetUse;   // mpi/port.hpp

enum class State { fresh, running, finalized };

// The values of MPI_COMM_WORLD's predefined attributes (mpi/comms/attr.cpp).
struct WorldAttributes {
    int tag_ub = INT_MAX;         // every non-negative int is a valid tag
    int host = MPI_PROC_NULL;     // no distinguished host
    int io = MPI_ANY_SOURCE;      // every process can do I/O
    int wtime_is_global = 0;      // clocks are per host, not synchronized
};

struct Runtime {
    // Out of line (mpi/init.cpp), where every object type is complete.
    Runtime();
    ~Runtime();

    std::optional<wireup::Client> client;
    std::unique_ptr<adi::Engine> engine;
    int world_rank = 0;
    int world_size = 1;
    adi::World world;  // every process's card and the topology, from the startup barrier
    // Every process's data representation, by world rank, as it announced it,
    // and whether it differs from how this process stores data (its data is
    // converted on receipt, mpi/hetero/foreign.hpp).
    std::vector<Representation> representations;
    std::vector<char> foreign;
    // Some process is foreign: receives that may come from one convert.
    bool heterogeneous = false;
    // The distinct representations of the job (what a receive from
    // MPI_ANY_SOURCE must make room for).
    std::vector<Representation> forms;
    // This process announces a representation other than its own (the test
    // setting STRATA_REPRESENTATION_TEST) and converts what it sends into it.
    bool sends_foreign = false;
    std::chrono::steady_clock::time_point start;
    // The thread level MPI_Init_thread provided (MPI_THREAD_SINGLE after
    // MPI_Init), and the thread that called it.
    int thread_level = MPI_THREAD_SINGLE;
    std::thread::id main_thread;
    WorldAttributes world_attributes;

    HandleTable<Comm> comms;
    HandleTable<Datatype> datatypes;
    HandleTable<RequestSlot> requests;
    HandleTable<Errhandler> errhandlers;
    HandleTable<ProcessGroup> groups;
    HandleTable<Keyval> keyvals;
    HandleTable<Info> infos;
    ContextPool contexts;
    HandleTable<Operation> ops;
    BsendBuffer bsend;
    std::unordered_set<void*> allocations;  // MPI_Alloc_mem's, until MPI_Free_mem
    std::shared_ptr<NamedComms> named;      // the communicator file, if the job has one
    // Client/server (mpi/port.hpp): the ports this process opened, and the
    // other jobs' processes it joined, whose indexes follow the world ranks
    // (their cards by index - world_size; representations and foreign above
    // hold them too).
    std::vector<std::unique_ptr<Port>> ports;
    std::vector<PeerSetUse> peer_sets;
    std::vector<wireup::BusinessCard> peer_cards;
    // The topology of the world and those processes together (built when
    // some join; mpi/port.hpp topology_all() says which to use).
    wireup::Topology joined_topology;
};

State state();
namespace detail {
extern Runtime* g_runtime;
}
// Only between MPI_Init and MPI_Finalize. Inline: every entry point asks.
inline Runtime& rt() { return *detail::g_runtime; }

}  // namespace strata::mpi
