#include "mpi/agreement.hpp"

#include <algorithm>
#include <cstring>

#include "collectives/collectives.hpp"
#include "base/little_endian.hpp"

namespace strata::mpi {

coll::Group group_local(const Comm& c) {
    return coll::Group{*rt().engine, c.context + 1, c.rank, c.group()};
}

coll::Group group_remote(const Comm& c) {
    return coll::Group{*rt().engine, c.context + 1, c.rank, c.world};
}

namespace {

// Every member contributes `mine` (the same size everywhere); `all` receives
// every contribution in rank order.
adi::Error agree_allgather(const coll::Group& g, std::span<const std::byte> mine, std::vector<std::byte>& all) {
    all.assign(mine.size() * static_cast<std::size_t>(g.size()), std::byte{0});
    return coll::allgather(g, mine.data(), mine.size(), all.data(), mine.size());
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

}  // namespace

// `buf` of `root` reaches every member.
adi::Error agree_bcast(const coll::Group& g, std::vector<std::byte>& buf, int root) {
    // The length travels first: only the root knows it.
    base::U64 len = base::u64(buf.size());
    if (adi::Error e = coll::bcast(g, len.data(), len.size(), root); e != adi::Error::none) return e;
    buf.resize(base::u64_of(len));
    return coll::bcast(g, buf.data(), buf.size(), root);
}

// Leaders of two groups swap byte strings of any length.
adi::Error agree_swap(const coll::Group& g, int peer, int tag, const std::vector<std::byte>& out,
                      std::vector<std::byte>& in) {
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


adi::Error agree_intra(const Comm& c, std::span<const std::byte> mine, Agreement& out) {
    const coll::Group g = group_local(c);
    ContextPool::Mask agreed{};
    if (adi::Error e = mask_agree(g, agreed); e != adi::Error::none) return e;
    out.pair = ContextPool::lowest(agreed);
    out.all.clear();
    if (mine.empty()) return adi::Error::none;
    return agree_allgather(g, mine, out.all);
}

adi::Error agree_inter(const coll::Group& local, int local_leader, const coll::Group& leaders, int remote_leader,
                       int tag, const std::vector<std::byte>& payload, int& pair,
                       std::vector<std::byte>& remote_payload) {
    ContextPool::Mask agreed{};
    if (adi::Error e = mask_agree(local, agreed); e != adi::Error::none) return e;

    std::vector<std::byte> result;
    if (local.rank == local_leader) {
        ByteWriter w;
        const ContextPool::Mask wire = ContextPool::to_wire(agreed);
        w.put(wire.data(), sizeof wire);
        w.put(payload.data(), payload.size());
        std::vector<std::byte> theirs;
        if (adi::Error e = agree_swap(leaders, remote_leader, tag, w.bytes, theirs); e != adi::Error::none) return e;
        ContextPool::Mask remote{};
        ByteReader rd(theirs);
        if (!rd.get(remote.data(), sizeof remote)) return adi::Error::peer_failed;
        remote = ContextPool::from_wire(remote);
        for (std::size_t i = 0; i < agreed.size(); ++i) agreed[i] &= remote[i];
        ByteWriter out;
        out.put_int(ContextPool::lowest(agreed));
        out.put(rd.rest().data(), rd.rest().size());
        result = std::move(out.bytes);
    }
    if (adi::Error e = agree_bcast(local, result, local_leader); e != adi::Error::none) return e;
    ByteReader rd(result);
    if (!rd.get_int(pair)) return adi::Error::peer_failed;
    remote_payload.assign(rd.rest().begin(), rd.rest().end());
    return adi::Error::none;
}

void ByteWriter::put(const void* p, std::size_t n) {
    const auto* b = static_cast<const std::byte*>(p);
    bytes.insert(bytes.end(), b, b + n);
}

void ByteWriter::put_int(int v) {
    const std::size_t at = bytes.size();
    bytes.resize(at + kIntBytes);
    base::store(static_cast<std::int32_t>(v), bytes.data() + at);
}

void ByteWriter::put_ints(const std::vector<int>& v) {
    put_int(static_cast<int>(v.size()));
    for (int x : v) put_int(x);
}

bool ByteReader::get(void* p, std::size_t n) {
    if (b_.size() - at_ < n) return false;
    if (n > 0) std::memcpy(p, b_.data() + at_, n);
    at_ += n;
    return true;
}

bool ByteReader::get_int(int& v) {
    if (b_.size() - at_ < ByteWriter::kIntBytes) return false;
    v = base::load<std::int32_t>(b_.data() + at_);
    at_ += ByteWriter::kIntBytes;
    return true;
}

bool ByteReader::get_ints(std::vector<int>& v) {
    int n = 0;
    // A count the bytes left cannot hold is malformed: never allocate for it.
    if (!get_int(n) || n < 0 || static_cast<std::size_t>(n) > (b_.size() - at_) / ByteWriter::kIntBytes) return false;
    v.resize(static_cast<std::size_t>(n));
    for (int& x : v) {
        if (!get_int(x)) return false;
    }
    return true;
}

bool ByteReader::get_ranks(std::vector<int>& v, int size) {
    return get_ints(v) && std::all_of(v.begin(), v.end(), [size](int r) { return r >= 0 && r < size; });
}

}  // namespace strata::mpi
