#include "collectives/multilevel.hpp"

#include <numeric>

#include "collectives/collectives.hpp"
#include "base/little_endian.hpp"

namespace strata::coll {

Layout Layout::uniform(int n, std::size_t block) {
    Layout l;
    for (int r = 0; r < n; ++r) {
        l.sizes.push_back(block);
        l.displs.push_back(static_cast<std::size_t>(r) * block);
    }
    return l;
}

Layout Layout::of(std::span<const std::size_t> sizes, std::span<const std::size_t> displs) {
    return Layout{{sizes.begin(), sizes.end()}, {displs.begin(), displs.end()}};
}

bool Layout::packed() const {
    std::size_t at = 0;
    for (std::size_t r = 0; r < sizes.size(); ++r) {
        if (displs[r] != at) return false;
        at += sizes[r];
    }
    return true;
}

Bundles stage_bundles(const Hierarchy& h, const Stage& s, const std::vector<std::size_t>& sizes) {
    Bundles b;
    for (int cluster : s.clusters) {
        std::size_t bytes = 0;
        for (int r : h.members(s.index + 1, cluster)) bytes += sizes[static_cast<std::size_t>(r)];
        b.counts.push_back(bytes);
        b.displs.push_back(b.total);
        b.total += bytes;
    }
    return b;
}

Bytes counts_to_wire(const std::vector<std::size_t>& counts) {
    Bytes out(counts.size() * kCountBytes);
    for (std::size_t i = 0; i < counts.size(); ++i) base::store(std::uint64_t{counts[i]}, out.data() + i * kCountBytes);
    return out;
}

std::vector<std::size_t> counts_from_wire(std::span<const std::byte> bytes) {
    std::vector<std::size_t> counts(bytes.size() / kCountBytes);
    for (std::size_t i = 0; i < counts.size(); ++i)
        counts[i] = static_cast<std::size_t>(base::load<std::uint64_t>(bytes.data() + i * kCountBytes));
    return counts;
}

Bundles data_bundles(const Bundles& slots, const std::vector<std::size_t>& counts) {
    Bundles b;
    for (std::size_t m = 0; m < slots.counts.size(); ++m) {
        const auto first = counts.begin() + static_cast<std::ptrdiff_t>(slots.displs[m] / kCountBytes);
        const std::size_t bytes =
            std::accumulate(first, first + static_cast<std::ptrdiff_t>(slots.counts[m] / kCountBytes), std::size_t{0});
        b.counts.push_back(bytes);
        b.displs.push_back(b.total);
        b.total += bytes;
    }
    return b;
}

bool gather_up(const Group& g, Outcome& out, const Hierarchy& h, const std::vector<Stage>& stages, int stop,
               const std::vector<std::size_t>& sizes, Carry& carry, void* into) {
    for (auto s = stages.rbegin(); s != stages.rend() && s->index > stop; ++s) {
        const StageGroup sg(g, *s);
        const Bundles b = stage_bundles(h, *s, sizes);
        if (s->me != s->root)
            return out.add(gatherv(sg.group(), carry.data, carry.bytes, nullptr, b.counts, b.displs, s->root));
        const bool last = s + 1 == stages.rend() || (s + 1)->index <= stop;
        Bytes next(last && into != nullptr ? 0 : b.total);
        void* dst = last && into != nullptr ? into : next.data();
        if (!out.add(gatherv(sg.group(), carry.data, carry.bytes, dst, b.counts, b.displs, s->root))) return false;
        carry.storage = std::move(next);
        carry.data = dst;
        carry.bytes = b.total;
    }
    return true;
}

bool scatter_down(const Group& g, Outcome& out, const Hierarchy& h, const std::vector<Stage>& stages, int first,
                  const std::vector<std::size_t>& sizes, Carry& carry, void* recv, std::size_t rbytes) {
    bool moved = false;
    for (const Stage& s : stages) {
        if (s.index < first) continue;
        moved = true;
        const StageGroup sg(g, s);
        const Bundles b = stage_bundles(h, s, sizes);
        const bool last = &s == &stages.back();
        Bytes next(last ? 0 : b.counts[static_cast<std::size_t>(s.me)]);
        void* dst = last ? recv : next.data();
        if (!out.add(scatterv(sg.group(), carry.data, b.counts, b.displs, dst, last ? rbytes : next.size(), s.root)))
            return false;
        carry.storage = std::move(next);
        carry.data = dst;
        carry.bytes = last ? rbytes : carry.storage.size();
    }
    // A cluster of one: the bundle is this process's own block.
    return moved || out.add(self_copy(recv, rbytes, carry.data, carry.bytes));
}

bool gather_counted_up(const Group& g, Outcome& out, const Hierarchy& h, const std::vector<Stage>& stages, int stop,
                       std::size_t per, Counted& c) {
    const std::vector<std::size_t> slots(static_cast<std::size_t>(g.size()), per * kCountBytes);
    for (auto s = stages.rbegin(); s != stages.rend() && s->index > stop; ++s) {
        const StageGroup sg(g, *s);
        const Bundles cb = stage_bundles(h, *s, slots);
        const Bytes mine = counts_to_wire(c.counts);
        if (s->me != s->root)
            return out.add(gatherv(sg.group(), mine.data(), mine.size(), nullptr, cb.counts, cb.displs, s->root)) &&
                   out.add(gatherv(sg.group(), c.data.data, c.data.bytes, nullptr, {}, {}, s->root));
        Bytes theirs(cb.total);
        if (!out.add(gatherv(sg.group(), mine.data(), mine.size(), theirs.data(), cb.counts, cb.displs, s->root)))
            return false;
        std::vector<std::size_t> all = counts_from_wire(theirs);
        const Bundles db = data_bundles(cb, all);
        Bytes next(db.total);
        if (!out.add(gatherv(sg.group(), c.data.data, c.data.bytes, next.data(), db.counts, db.displs, s->root)))
            return false;
        c.counts.swap(all);
        c.data.storage = std::move(next);
        c.data.data = c.data.storage.data();
        c.data.bytes = c.data.storage.size();
    }
    return true;
}

bool scatter_counted_down(const Group& g, Outcome& out, const Hierarchy& h, const std::vector<Stage>& stages, int first,
                          std::size_t per, Counted& c) {
    const std::vector<std::size_t> slots(static_cast<std::size_t>(g.size()), per * kCountBytes);
    for (const Stage& s : stages) {
        if (s.index < first) continue;
        const StageGroup sg(g, s);
        const Bundles cb = stage_bundles(h, s, slots);
        const Bytes all = s.me == s.root ? counts_to_wire(c.counts) : Bytes{};
        Bytes theirs(cb.counts[static_cast<std::size_t>(s.me)]);
        if (!out.add(scatterv(sg.group(), all.data(), cb.counts, cb.displs, theirs.data(), theirs.size(), s.root)))
            return false;
        std::vector<std::size_t> mine = counts_from_wire(theirs);
        const Bundles db = s.me == s.root ? data_bundles(cb, c.counts) : Bundles{};
        Bytes next(std::accumulate(mine.begin(), mine.end(), std::size_t{0}));
        if (!out.add(scatterv(sg.group(), c.data.data, db.counts, db.displs, next.data(), next.size(), s.root)))
            return false;
        c.counts.swap(mine);
        c.data.storage = std::move(next);
        c.data.data = c.data.storage.data();
        c.data.bytes = c.data.storage.size();
    }
    return true;
}

bool reduce_up(const Group& g, Outcome& out, const std::vector<Stage>& stages, int stop, std::size_t count,
               const ReduceOp& op, const void*& in, Bytes (&partial)[2], void* into) {
    int next = 0;
    for (auto s = stages.rbegin(); s != stages.rend() && s->index > stop; ++s) {
        const StageGroup sg(g, *s);
        if (s->me != s->root) return out.add(reduce(sg.group(), in, nullptr, count, op, s->root));
        const bool last = s + 1 == stages.rend() || (s + 1)->index <= stop;
        void* result = into;
        if (!last || into == nullptr) {
            partial[next].resize(count * op.element_bytes());
            result = partial[next].data();
            next ^= 1;
        }
        if (!out.add(reduce(sg.group(), in, result, count, op, s->root))) return false;
        in = result;
    }
    return true;
}

namespace {

// Calls copy(travel offset, rank) for each rank in travel order.
template <class F>
void each_in_travel_order(const Hierarchy& h, const Layout& layout, F copy) {
    std::size_t offset = 0;
    for (int r : h.members(0, 0)) {
        copy(offset, static_cast<std::size_t>(r));
        offset += layout.sizes[static_cast<std::size_t>(r)];
    }
}

}  // namespace

void bundle_to_ranks(const Hierarchy& h, const void* bundle, void* ranks, const Layout& layout) {
    each_in_travel_order(h, layout, [&](std::size_t offset, std::size_t r) {
        bytes_copy(at(ranks, layout.displs[r]), at(bundle, offset), layout.sizes[r]);
    });
}

void ranks_to_bundle(const Hierarchy& h, const void* ranks, void* bundle, const Layout& layout) {
    each_in_travel_order(h, layout, [&](std::size_t offset, std::size_t r) {
        bytes_copy(at(bundle, offset), at(ranks, layout.displs[r]), layout.sizes[r]);
    });
}

}  // namespace strata::coll
