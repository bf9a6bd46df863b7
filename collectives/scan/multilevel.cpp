#include <vector>

#include "collectives/collectives.hpp"
#include "collectives/scan/scan.hpp"

namespace strata::coll {

adi::Error scan_multilevel(const Group& g, Shape shape, const void* send, void* recv, std::size_t count,
                           const ReduceOp& op) {
    // Clusters are runs of consecutive ranks and every cluster's
    // representative is its lowest rank, the first member of its stages.
    const std::vector<Stage>& stages = hierarchy(g, shape).plan(g.rank, 0);
    const std::size_t bytes = count * op.element_bytes();
    Outcome out;
    // Up: each stage root gathers its members' cluster totals, in rank order,
    // keeps them, and passes their reduction up.
    Bytes total(static_cast<const std::byte*>(send), static_cast<const std::byte*>(send) + bytes);
    std::vector<Bytes> kept(stages.size());
    for (std::size_t i = stages.size(); i-- > 0;) {
        const Stage& s = stages[i];
        const StageGroup sg(g, s);
        if (s.me != s.root) {
            if (!out.add(gather(sg.group(), total.data(), bytes, nullptr, 0, s.root))) return out.error();
            break;
        }
        Bytes& all = kept[i];
        all.resize(bytes * s.members.size());
        if (!out.add(gather(sg.group(), total.data(), bytes, all.data(), bytes, s.root))) return out.error();
        Bytes acc(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(bytes));
        for (std::size_t m = 1; m < s.members.size(); ++m) {
            Bytes next(all.begin() + static_cast<std::ptrdiff_t>(m * bytes),
                                        all.begin() + static_cast<std::ptrdiff_t>((m + 1) * bytes));
            op.apply(acc.data(), next.data(), count);
            acc.swap(next);
        }
        total.swap(acc);
    }
    // Down: each stage root sends every member the reduction of everything
    // before that member's cluster. Rank 0 has nothing before it.
    Bytes before;
    bool anything_before = false;
    for (std::size_t i = 0; i < stages.size(); ++i) {
        const Stage& s = stages[i];
        const StageGroup sg(g, s);
        Bytes mine(bytes);
        if (s.me != s.root) {
            if (!out.add(scatter(sg.group(), nullptr, 0, mine.data(), bytes, s.root))) return out.error();
            before.swap(mine);
            anything_before = true;
            continue;
        }
        Bytes prefixes(bytes * s.members.size());
        Bytes running = before;
        bool anything_running = anything_before;
        for (std::size_t m = 0; m < s.members.size(); ++m) {
            const std::byte* cluster = kept[i].data() + m * bytes;
            Bytes next(cluster, cluster + bytes);
            if (anything_running) {
                bytes_copy(prefixes.data() + m * bytes, running.data(), bytes);
                op.apply(running.data(), next.data(), count);
            }
            running.swap(next);
            anything_running = true;
        }
        if (!out.add(scatter(sg.group(), prefixes.data(), bytes, mine.data(), bytes, s.root))) return out.error();
    }
    bytes_copy(recv, send, bytes);
    if (anything_before) op.apply(before.data(), recv, count);
    return out.error();
}

}  // namespace strata::coll
