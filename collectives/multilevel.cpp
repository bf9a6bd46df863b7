#include "collectives/multilevel.hpp"

#include "collectives/collectives.hpp"

namespace strata::coll {

Bundles stage_bundles(const Hierarchy& h, const Stage& s, std::size_t block) {
    Bundles b;
    for (int cluster : s.clusters) {
        const std::size_t bytes = h.members(s.index + 1, cluster).size() * block;
        b.counts.push_back(bytes);
        b.displs.push_back(b.total);
        b.total += bytes;
    }
    return b;
}

bool gather_up(const Group& g, Outcome& out, const Hierarchy& h, const std::vector<Stage>& stages, int stop,
               std::size_t block, Carry& carry, void* into) {
    for (auto s = stages.rbegin(); s != stages.rend() && s->index > stop; ++s) {
        const StageGroup sg(g, *s);
        const Bundles b = stage_bundles(h, *s, block);
        if (s->me != s->root) return out.add(gatherv(sg.group(), carry.data, carry.bytes, nullptr, b.counts, b.displs, s->root));
        const bool last = s + 1 == stages.rend() || (s + 1)->index <= stop;
        std::vector<std::byte> next(last && into != nullptr ? 0 : b.total);
        void* dst = last && into != nullptr ? into : next.data();
        if (!out.add(gatherv(sg.group(), carry.data, carry.bytes, dst, b.counts, b.displs, s->root))) return false;
        carry.storage = std::move(next);
        carry.data = dst;
        carry.bytes = b.total;
    }
    return true;
}

bool reduce_up(const Group& g, Outcome& out, const std::vector<Stage>& stages, int stop, std::size_t count,
               const ReduceOp& op, const void*& in, std::vector<std::byte> (&partial)[2], void* into) {
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


void bundle_to_ranks(const Hierarchy& h, const void* bundle, void* ranks, std::size_t block) {
    const std::vector<int>& order = h.members(0, 0);
    for (std::size_t i = 0; i < order.size(); ++i)
        bytes_copy(at(ranks, static_cast<std::size_t>(order[i]) * block), at(bundle, i * block), block);
}

void ranks_to_bundle(const Hierarchy& h, const void* ranks, void* bundle, std::size_t block) {
    const std::vector<int>& order = h.members(0, 0);
    for (std::size_t i = 0; i < order.size(); ++i)
        bytes_copy(at(bundle, i * block), at(ranks, static_cast<std::size_t>(order[i]) * block), block);
}

}  // namespace strata::coll
