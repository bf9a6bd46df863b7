// MPI_Scatter algorithms. The root holds p blocks of `sblock` bytes in rank
// order in `send`; every process receives its block into `recv` (room for
// `rbytes`). Non-roots ignore `send` and `sblock`.
#pragma once

#include "collectives/collective.hpp"
#include "collectives/registry.hpp"

namespace strata::coll {

// The root sends every block directly. Any p, any size; for large blocks.
adi::Error scatter_linear(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rbytes,
                          int root);

// Binomial tree: each process receives its subtree's blocks in one message and
// passes on the halves, log2(p) rounds. Any p; for small blocks. Blocks must
// be the same size everywhere (the root's sblock == rbytes).
adi::Error scatter_binomial(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rbytes,
                            int root);

// The signature every scatter algorithm has.
using ScatterFn = adi::Error(const Group& g, const void* send, std::size_t sblock, void* recv, std::size_t rbytes,
                             int root);

// Multilevel: gather_multilevel reversed: each stage's root hands every
// member its cluster's blocks, coarsest stage first.
// `shape` picks the hierarchy (hierarchy.hpp); every stage's group chooses
// its own flat algorithm.
adi::Error scatter_multilevel(const Group& g, Shape shape, const void* send, std::size_t sblock, void* recv,
                              std::size_t rbytes, int root);

extern const Registry<ScatterFn> scatter_algorithms;

}  // namespace strata::coll
