#include "collectives/allreduce/allreduce.hpp"

#include <cstddef>
#include <utility>

namespace strata::coll {

adi::Error allreduce_recursive_doubling(const Group& g, const void* send, void* recv, std::size_t count,
                                        const ReduceOp& op) {
    const int p = g.size();
    const int r = g.rank;
    const std::size_t bytes = count * op.element_bytes();
    const int pof2 = pof2_floor(p);
    const int rem = p - pof2;
    Outcome out;
    std::vector<adi::Request*> reqs;

    // The running result starts in `recv` and moves between it and one
    // staging vector (on the stack when short) as the operand order requires.
    alignas(std::max_align_t) std::byte local[256];
    Bytes staging(bytes <= sizeof local ? 0 : bytes);
    std::byte* acc = static_cast<std::byte*>(recv);
    std::byte* other = bytes <= sizeof local ? local : staging.data();
    if (send != recv) bytes_copy(acc, send, bytes);

    // Fold the first 2*rem ranks in pairs (2i, 2i+1) into the odd one, so the
    // core's rank order is still the original rank order.
    int core = -1;  // rank in the power-of-two core, or -1 when folded away
    if (r < 2 * rem) {
        if (r % 2 == 0) {
            reqs.push_back(send_start(g, r + 1, kTagAllreduce, acc, bytes));
            if (!out.wait(g, reqs)) return out.error();
        } else {
            reqs.push_back(recv_start(g, r - 1, kTagAllreduce, other, bytes));
            if (!out.wait(g, reqs)) return out.error();
            op.apply(other, acc, count);
            core = r / 2;
        }
    } else {
        core = r - rem;
    }

    if (core >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            const int pc = core ^ mask;
            const int peer = pc < rem ? pc * 2 + 1 : pc + rem;
            if (!exchange(g, out, kTagAllreduce, peer, acc, bytes, peer, other, bytes)) return out.error();
            if (peer < r) {
                op.apply(other, acc, count);  // acc = theirs op ours
            } else {
                op.apply(acc, other, count);  // other = ours op theirs
                std::swap(acc, other);
            }
        }
    }

    if (r < 2 * rem) {
        if (r % 2 == 1) {
            reqs.push_back(send_start(g, r - 1, kTagAllreduce, acc, bytes));
        } else {
            reqs.push_back(recv_start(g, r + 1, kTagAllreduce, acc, bytes));
        }
        if (!out.wait(g, reqs)) return out.error();
    }
    if (acc != recv) bytes_copy(recv, acc, bytes);
    return out.error();
}

}  // namespace strata::coll
