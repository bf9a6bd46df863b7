// MPI_Bcast algorithms: `bytes` of `buf` at `root` reach every process.
#pragma once

#include "collectives/collective.hpp"
#include "collectives/registry.hpp"

namespace strata::coll {

// Binomial tree rooted at `root`: ceil(log2 p) rounds, the whole message on
// every edge. Any p, any size; best for short messages.
adi::Error bcast_binomial(const Group& g, void* buf, std::size_t bytes, int root);

// Linear: the root sends the whole message to every other process at once,
// one round. On one host, where every receiver copies from the root's buffer
// in parallel (single copy), it beats the tree's dependent rounds up to a few
// processes. Any p, any size.
adi::Error bcast_linear(const Group& g, void* buf, std::size_t bytes, int root);

// Segmented: MagPIe's wide-area broadcast. The P-LogP model of STRATA_PLOGP
// (collectives/plogp) picks the tree shape and the segment size; every
// segment is forwarded down the tree as soon as it has arrived. Without a link
// in the file between two of the group's sites it runs binomial. Needs
// parameters.
adi::Error bcast_segmented(const Group& g, void* buf, std::size_t bytes, int root);

// Van de Geijn: binomial scatter of p pieces, then a ring allgather of the
// pieces. Moves about 2x the message per process instead of log2(p)x; for long
// messages. Any p, any size (pieces may be empty).
adi::Error bcast_scatter_allgather(const Group& g, void* buf, std::size_t bytes, int root);

// The signature every bcast algorithm has.
using BcastFn = adi::Error(const Group& g, void* buf, std::size_t bytes, int root);

// Multilevel: stage by stage from the root's clusters down, each stage's
// group broadcasting with its own flat algorithm; the message enters each
// remote site and each remote machine once.
// `shape` picks the hierarchy (hierarchy.hpp); every stage's group chooses
// its own flat algorithm.
adi::Error bcast_multilevel(const Group& g, Shape shape, void* buf, std::size_t bytes, int root);

extern const Registry<BcastFn> bcast_algorithms;

}  // namespace strata::coll
