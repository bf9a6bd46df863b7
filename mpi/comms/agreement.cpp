#include "mpi/comms/agreement.hpp"

#include <cstddef>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>

#include "base/little_endian.hpp"
#include "collectives/collectives.hpp"

namespace strata::mpi {

coll::Group group_local(const Comm& c) {
    return coll::Group{*rt().engine, c.context + 1, c.rank, c.group()};
}

coll::Group group_remote(const Comm& c) {
    return coll::Group{*rt().engine, c.context + 1, c.rank, c.world};
}

namespace {

// Every member contributes `mine` (the same length everywhere); `all`
// receives every contribution in rank order.
adi::Error agree_allgather(const coll::Group& g, const Bytes& mine, std::vector<Bytes>& all) {
    Bytes flat(mine.size() * static_cast<std::size_t>(g.size()));
    if (adi::Error e = coll::allgather(g, mine.data(), mine.size(), flat.data(), mine.size()); e != adi::Error::none)
        return e;
    all.clear();
    for (auto at = flat.begin(); at != flat.end(); at += static_cast<std::ptrdiff_t>(mine.size()))
        all.emplace_back(at, at + static_cast<std::ptrdiff_t>(mine.size()));
    return adi::Error::none;
}

// Bitwise AND of 64-bit words: a context pair is free for a new communicator
// exactly when it is free at every member. The AND of wire masks is the wire
// mask of the AND (it is bytewise), so every process combines them alike.
class MaskAnd final : public coll::ReduceOp {
public:
    MaskAnd() : ReduceOp(sizeof(std::uint64_t), true) {}
    void apply(const void* in, void* inout, std::size_t count) const override {
        const auto* a = static_cast<const std::uint64_t*>(in);
        auto* b = static_cast<std::uint64_t*>(inout);
        for (std::size_t i = 0; i < count; ++i) b[i] &= a[i];
    }
};

// At a leader: swaps offers with the other leader; the result for its group.
adi::Error leaders_agree(const coll::Group& leaders, int remote_leader, int tag, const ContextPool::Mask& agreed,
                         const Bytes& payload, LeaderResult& out) {
    Bytes theirs;
    const Bytes mine = base::wire::payload(LeaderOffer{ContextPool::bytes_of(agreed), payload});
    if (adi::Error e = agree_swap(leaders, remote_leader, tag, mine, theirs); e != adi::Error::none) return e;
    base::Result<LeaderOffer> offer = base::wire::decode<LeaderOffer>(theirs);
    if (!offer) return adi::Error::peer_failed;
    const ContextPool::Mask remote = *ContextPool::mask_of(offer->mask);
    ContextPool::Mask both = agreed;
    for (std::size_t i = 0; i < both.size(); ++i) both[i] &= remote[i];
    out = LeaderResult{ContextPool::lowest(both), std::move(offer->payload)};
    return adi::Error::none;
}

}  // namespace

// `buf` of `root` reaches every member.
adi::Error agree_bcast(const coll::Group& g, Bytes& buf, int root) {
    // The length travels first: only the root knows it.
    base::U64 len = base::u64(buf.size());
    if (adi::Error e = coll::bcast(g, len.data(), len.size(), root); e != adi::Error::none) return e;
    buf.resize(base::u64_of(len));
    return coll::bcast(g, buf.data(), buf.size(), root);
}

// Leaders of two groups swap byte strings of any length.
adi::Error agree_swap(const coll::Group& g, int peer, int tag, const Bytes& out, Bytes& in) {
    const base::U64 out_len = base::u64(out.size());
    base::U64 in_len{};
    std::vector<adi::Request*> reqs;
    reqs.push_back(coll::recv_start(g, peer, tag, in_len.data(), in_len.size()));
    reqs.push_back(coll::send_start(g, peer, tag, out_len.data(), out_len.size()));
    if (adi::Error e = coll::wait_all(g, reqs); e != adi::Error::none) return e;
    in.resize(base::u64_of(in_len));
    reqs.push_back(coll::recv_start(g, peer, tag, in.data(), in.size()));
    reqs.push_back(coll::send_start(g, peer, tag, out.data(), out.size()));
    return coll::wait_all(g, reqs);
}

// The pairs free at every member of `g`.
adi::Error mask_agree(const coll::Group& g, ContextPool::Mask& agreed) {
    const ContextPool::Mask mine = ContextPool::to_wire(rt().contexts.mask());
    const adi::Error e = coll::allreduce(g, mine.data(), agreed.data(), mine.size(), MaskAnd{});
    agreed = ContextPool::from_wire(agreed);
    return e;
}

adi::Error agree_intra(const Comm& c, const Bytes& mine, Agreement& out) {
    const coll::Group g = group_local(c);
    ContextPool::Mask agreed{};
    if (adi::Error e = mask_agree(g, agreed); e != adi::Error::none) return e;
    out.pair = ContextPool::lowest(agreed);
    out.all.clear();
    if (mine.empty()) return adi::Error::none;
    return agree_allgather(g, mine, out.all);
}

adi::Error agree_inter(const coll::Group& local, int local_leader, const coll::Group& leaders, int remote_leader,
                       int tag, const Bytes& payload, int& pair, Bytes& remote_payload) {
    ContextPool::Mask agreed{};
    if (adi::Error e = mask_agree(local, agreed); e != adi::Error::none) return e;
    Bytes result;
    if (local.rank == local_leader) {
        LeaderResult r;
        if (adi::Error e = leaders_agree(leaders, remote_leader, tag, agreed, payload, r); e != adi::Error::none)
            return e;
        result = base::wire::payload(r);
    }
    if (adi::Error e = agree_bcast(local, result, local_leader); e != adi::Error::none) return e;
    base::Result<LeaderResult> r = base::wire::decode<LeaderResult>(result);
    if (!r) return adi::Error::peer_failed;
    pair = r->pair;
    remote_payload = std::move(r->payload);
    return adi::Error::none;
}

base::Result<std::vector<int>> group_list_decode(const Bytes& bytes, int world_size) {
    base::Result<std::vector<int>> ranks = base::wire::decode<std::vector<int>>(bytes);
    if (!ranks) return ranks;
    if (ranks->empty()) return base::Error{"an empty group"};
    for (const int r : *ranks) {
        if (r < 0 || r >= world_size)
            return base::Error{"rank " + std::to_string(r) + " is not in a world of " + std::to_string(world_size)};
    }
    return ranks;
}

}  // namespace strata::mpi
