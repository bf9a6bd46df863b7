// What a collective algorithm sees of a communicator: the engine's
// point-to-point API on the communicator's collective context, so collective
// traffic never matches user messages.
#pragma once

#include <cstddef>
#include <vector>

#include "adi/engine.hpp"

namespace strata::coll {

struct Group {
    adi::Engine& engine;
    int context;                    // the communicator's collective context
    int rank;
    const std::vector<int>& world;  // group rank -> world rank
    int size() const { return static_cast<int>(world.size()); }
};

// Point-to-point on the collective context; each returns an engine request
// the caller waits for with wait_all().
adi::Request* send_start(const Group& g, int dest, int tag, const void* buf, std::size_t bytes);
adi::Request* recv_start(const Group& g, int source, int tag, void* buf, std::size_t bytes);
// Waits for and destroys the requests; returns the first error.
adi::Error wait_all(const Group& g, std::vector<adi::Request*>& reqs);

}  // namespace strata::coll
