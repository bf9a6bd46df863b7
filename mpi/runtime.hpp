// The process-wide state behind the C API: one Runtime exists between
// MPI_Init and MPI_Finalize. Everything in mpi/ reaches it through rt().
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "adi/engine.hpp"
#include "launcher/wireup.hpp"
#include "mpi.h"
#include "mpi/bsend_buffer.hpp"
#include "mpi/handle_table.hpp"
#include "mpi/op.hpp"

namespace strata::mpi {

struct Errhandler {
    MPI_Handler_function* fn = nullptr;  // null for the predefined ones
    bool fatal = false;
    int refs = 1;
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
    int size() const { return static_cast<int>(world.size()); }
};

struct Datatype {
    int size = 0;       // bytes of data in one element
    MPI_Aint extent = 0;
    bool contiguous = true;
    // The one basic type every element is made of (what predefined reduction
    // operations dispatch on), or MPI_DATATYPE_NULL when the type mixes several.
    MPI_Datatype basic = MPI_DATATYPE_NULL;
    std::string name;
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
    MPI_Datatype datatype = MPI_DATATYPE_NULL;
    int peer = 0;
    int tag = 0;
};

enum class State { fresh, running, finalized };

struct Runtime {
    std::optional<wireup::Client> client;
    std::unique_ptr<adi::Engine> engine;
    int world_rank = 0;
    int world_size = 1;
    std::string hostname;
    std::chrono::steady_clock::time_point start;

    HandleTable<Comm> comms{kComm};
    HandleTable<Datatype> datatypes{kDatatype};
    HandleTable<RequestSlot> requests{kRequest};
    HandleTable<Errhandler> errhandlers{kErrhandler};
    HandleTable<Operation> ops{kOp};
    BsendBuffer bsend;
};

State state();
Runtime& rt();  // only between MPI_Init and MPI_Finalize

}  // namespace strata::mpi
