#include "collectives/plogp/wide_area.hpp"
#include "collectives/reduce/reduce.hpp"

namespace strata::coll {

adi::Error reduction_segmented(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op,
                               int root, bool to_all) {
    const std::size_t unit = op.element_bytes();
    const std::size_t bytes = count * unit;
    const plogp::Plan& plan = plogp::WideArea::get()->plan(g.world, root, bytes, unit);
    const int me = plan.node[static_cast<std::size_t>(g.rank)];
    const int parent = plan.parent[static_cast<std::size_t>(me)];
    const std::vector<plogp::Tree::Edge>& children = plan.tree.children[static_cast<std::size_t>(me)];
    const std::size_t seg = plan.choice.segment;
    const std::size_t k = plan.segments(bytes);
    const auto length = [&](std::size_t i) { return std::min(seg, bytes - i * seg); };
    const auto member = [&](int node) { return plan.member[static_cast<std::size_t>(node)]; };
    const int tag = to_all ? kTagAllreduce : kTagReduce;

    // What this process combines into: the result at the root, its own
    // buffer where nothing is combined (a leaf sends `send` as it is).
    Bytes acc_store, partials(children.size() * bytes);
    const bool root_here = parent < 0;
    std::byte* acc = nullptr;
    if (root_here) {
        acc = static_cast<std::byte*>(recv);
    } else if (!children.empty()) {
        acc_store.resize(bytes);
        acc = acc_store.data();
    }

    // Every receive is posted at once: the children's partial segments
    // (request c * k + i), then, for an allreduce, the result's from the parent.
    std::vector<adi::Request*> ups, downs, sends;
    for (std::size_t c = 0; c < children.size(); ++c) {
        for (std::size_t i = 0; i < k; ++i) {
            ups.push_back(
                recv_start(g, member(children[c].child), tag, partials.data() + c * bytes + i * seg, length(i)));
        }
    }
    if (to_all && !root_here) {
        for (std::size_t i = 0; i < k; ++i)
            downs.push_back(recv_start(g, member(parent), tag, at(recv, i * seg), length(i)));
    }
    const auto segment_in = [&](std::size_t i) {
        for (std::size_t c = 0; c < children.size(); ++c) {
            if (!ups[c * k + i]->complete()) return false;
        }
        return true;
    };
    const auto send_down = [&](std::size_t i) {
        for (const plogp::Tree::Edge& e : children) {
            sends.push_back(send_start(g, member(e.child), tag, at(recv, i * seg), length(i)));
        }
    };

    Outcome out;
    std::size_t up = 0;                               // the next segment to combine and pass up
    std::size_t down = to_all && !root_here ? 0 : k;  // the next result segment to pass down
    bool failed = false;
    while (!failed && (up < k || down < k)) {
        g.engine.wait([&] { return (up < k && segment_in(up)) || (down < k && downs[down]->complete()); });
        if (up < k && segment_in(up)) {
            for (std::size_t c = 0; c < children.size() && !failed; ++c) {
                adi::Request*& r = ups[c * k + up];
                failed = !out.add(wait_all(g, std::span<adi::Request* const>(&r, 1)));
                r = nullptr;
            }
            if (failed) break;
            const std::size_t n = length(up) / unit;
            if (acc != nullptr) {
                bytes_copy(acc + up * seg, at(send, up * seg), length(up));
                for (std::size_t c = 0; c < children.size(); ++c) {
                    op.apply(partials.data() + c * bytes + up * seg, acc + up * seg, n);
                }
            }
            if (!root_here) {
                const void* from = acc != nullptr ? static_cast<const void*>(acc + up * seg) : at(send, up * seg);
                sends.push_back(send_start(g, member(parent), tag, from, length(up)));
            } else if (to_all) {
                send_down(up);
            }
            ++up;
        }
        if (down < k && downs[down]->complete()) {
            failed = !out.add(wait_all(g, std::span<adi::Request* const>(&downs[down], 1)));
            downs[down] = nullptr;
            if (failed) break;
            send_down(down);
            ++down;
        }
    }
    // After a failure, whatever is still posted ends before its buffers go.
    std::vector<adi::Request*> rest;
    for (adi::Request* r : ups) {
        if (r != nullptr) rest.push_back(r);
    }
    for (adi::Request* r : downs) {
        if (r != nullptr) rest.push_back(r);
    }
    wait_all(g, rest);
    out.wait(g, sends);
    return out.error();
}

adi::Error reduce_segmented(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op,
                            int root) {
    return reduction_segmented(g, send, recv, count, op, root, false);
}

}  // namespace strata::coll
