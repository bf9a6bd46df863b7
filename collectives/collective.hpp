// What a collective algorithm sees of a communicator: the engine's
// point-to-point API on the communicator's collective context, so collective
// traffic never matches user messages.
//
// Algorithms work on dense bytes (the MPI layer packs and unpacks user
// datatypes) and know nothing of MPI handles. Every process of the group must
// call the same algorithm with consistent sizes; the registries guarantee the
// first by deciding only on values every process knows.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>
#include <span>
#include <vector>

#include "adi/engine.hpp"
#include "collectives/hierarchy.hpp"

namespace strata::coll {

// Bytes an algorithm stages data in. Growing one leaves the new bytes
// uninitialized, as a receive or a copy overwrites them next: zeroing a
// 4 MB vector costs as much as sending it between two processes of a host.
template <class T>
struct UninitializedAllocator : std::allocator<T> {
    template <class U>
    struct rebind {
        using other = UninitializedAllocator<U>;
    };
    UninitializedAllocator() = default;
    template <class U>
    explicit UninitializedAllocator(const UninitializedAllocator<U>& /*other*/) {}
    template <class U>
    void construct(U* p) {
        ::new (static_cast<void*>(p)) U;
    }
    template <class U, class... Args>
    void construct(U* p, Args&&... args) {
        ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
    }
};
using Bytes = std::vector<std::byte, UninitializedAllocator<std::byte>>;

struct Group {
    adi::Engine& engine;
    int context;                    // the communicator's collective context
    int rank;
    const std::vector<int>& world;  // group rank -> world rank
    // How the communicator splits along the topology; null for a group that
    // is one cluster as far as the algorithms know (a stage's group, an
    // agreement's).
    const Levels* levels = nullptr;
    int level = -1;     // the slowest link inside the group (Situation::level)
    int tag_shift = 0;  // added to every tag: a stage's own range (stage_tag_shift)
    // Group rank -> the rank that envelopes carry and receives match on; null:
    // the group rank itself. A stage's group numbers its members afresh in
    // every call (the root decides who represents a cluster), so its envelopes
    // carry communicator ranks: the same sender always matches as the same
    // source, and point-to-point order between two processes keeps the
    // stages of successive collectives apart.
    const std::vector<int>* envelope = nullptr;
    int size() const { return static_cast<int>(world.size()); }
    int envelope_rank(int r) const { return envelope == nullptr ? r : (*envelope)[static_cast<std::size_t>(r)]; }
};

// The group of one stage of a multilevel collective: the stage's members on
// the parent's context, with the stage's tags. Lives while the stage runs.
// On a communicator's own group (whose hierarchy knows its world ranks) it
// points into the stage and copies nothing; under another stage's group it
// maps the members through it.
class StageGroup {
public:
    StageGroup(const Group& parent, const Stage& s);
    StageGroup(const StageGroup&) = delete;
    StageGroup& operator=(const StageGroup&) = delete;
    const Group& group() const { return group_; }

private:
    // Whether `s` can serve as is: `parent` is a communicator's group.
    static bool direct(const Group& parent, const Stage& s) {
        return parent.levels != nullptr && parent.envelope == nullptr && s.world.size() == s.members.size();
    }
    std::vector<int> world_;
    std::vector<int> envelope_;
    Group group_;
};

// The hierarchy of `g`'s communicator by `shape` (the algorithms that use one
// run only where the registry found that it spans).
inline const Hierarchy& hierarchy(const Group& g, Shape shape) { return g.levels->of(shape); }

// One tag per collective: collectives on one communicator run in the same order
// everywhere and point-to-point is non-overtaking, so tags only make a stray
// message from a broken algorithm fail loudly instead of matching silently.
enum Tag : int {
    kTagBarrier = 0,  // the barrier uses its round number, below kTagBcast
    kTagBcast = 100,
    kTagGather,
    kTagScatter,
    kTagAllgather,
    kTagAlltoall,
    kTagReduce,
    kTagAllreduce,
    kTagReduceScatter,
    kTagScan,
    kTagMeasure,  // plogp::measure, between the pairs it measures
};

// Point-to-point on the collective context; each returns an engine request
// the caller waits for with wait_all().
adi::Request* send_start(const Group& g, int dest, int tag, const void* buf, std::size_t bytes);
adi::Request* recv_start(const Group& g, int source, int tag, void* buf, std::size_t bytes);
// Waits for and destroys the requests; returns the first error. The vector
// is left empty.
adi::Error wait_all(const Group& g, std::vector<adi::Request*>& reqs);
adi::Error wait_all(const Group& g, std::span<adi::Request* const> reqs);

// The first error of a collective's steps. A truncated message does not stop
// an algorithm: every other process still expects its messages and would hang
// otherwise. A failed peer does stop it.
class Outcome {
public:
    // Records `e`; false when the algorithm must stop.
    bool add(adi::Error e) {
        if (error_ == adi::Error::none) error_ = e;
        return e != adi::Error::peer_failed;
    }
    // Waits for `reqs` and records their first error; false to stop.
    bool wait(const Group& g, std::vector<adi::Request*>& reqs) { return add(wait_all(g, reqs)); }
    adi::Error error() const { return error_; }

private:
    adi::Error error_ = adi::Error::none;
};

// Sends and receives at once (both may name the same peer; a negative `dest`
// only receives); false to stop.
bool exchange(const Group& g, Outcome& out, int tag, int dest, const void* sbuf, std::size_t sbytes, int source,
              void* rbuf, std::size_t rbytes);

// memcpy that accepts empty ranges with null pointers.
inline void bytes_copy(void* to, const void* from, std::size_t n) {
    if (n > 0) std::memcpy(to, from, n);
}

// Copies a block a process sends to itself: `have` bytes into room for `room`;
// truncation is an error like on the wire.
inline adi::Error self_copy(void* to, std::size_t room, const void* from, std::size_t have) {
    bytes_copy(to, from, have < room ? have : room);
    return have > room ? adi::Error::truncated : adi::Error::none;
}

inline std::byte* at(void* base, std::size_t offset) { return static_cast<std::byte*>(base) + offset; }
inline const std::byte* at(const void* base, std::size_t offset) {
    return static_cast<const std::byte*>(base) + offset;
}

// The binomial tree every binomial algorithm walks, over a group of p
// processes rooted at `root`. Ranks are relative: vr = (rank - root) mod p.
// The subtree of vr is [vr, vr + span) clipped to p, span the lowest set bit
// of vr (at the root, the least power of two not below p); its parent is
// vr - span, its children vr + m for the powers of two m below span with
// vr + m < p, the child at m the root of [vr + m, vr + 2m).
struct BinomialTree {
    BinomialTree(int rank, int root_rank, int procs) : p(procs), root(root_rank), vr((rank - root_rank + procs) % procs) {
        while (span < p && (vr & span) == 0) span <<= 1;
    }
    int p, root, vr;
    int span = 1;

    bool is_root() const { return vr == 0; }
    int subtree() const { return std::min(span, p - vr); }  // processes in vr's subtree
    int rank_of(int relative) const { return (relative + root) % p; }
    int parent() const { return rank_of(vr - span); }     // not at the root
    bool has_child(int m) const { return m < span && vr + m < p; }
    int child(int m) const { return rank_of(vr + m); }
};

// Largest power of two not above n (n >= 1).
inline int pof2_floor(int n) {
    int p = 1;
    while (p * 2 <= n) p *= 2;
    return p;
}

}  // namespace strata::coll
