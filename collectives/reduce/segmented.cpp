#include "collectives/plogp/wide_area.hpp"
#include "collectives/reduce/reduce.hpp"

namespace strata::coll {

namespace {

// One segmented reduction as this process takes part in it: its place in the
// model's tree, and the segments it combines and passes on.
class Segmented {
public:
    Segmented(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op, int root,
              bool to_all)
        : g_(g),
          send_(send),
          recv_(recv),
          op_(op),
          unit_(op.element_bytes()),
          bytes_(count * unit_),
          plan_(plogp::WideArea::get()->plan(g.world, root, bytes_, unit_)),
          me_(plan_.node[static_cast<std::size_t>(g.rank)]),
          parent_(plan_.parent[static_cast<std::size_t>(me_)]),
          children_(plan_.tree.children[static_cast<std::size_t>(me_)]),
          seg_(plan_.choice.segment),
          k_(plan_.segments(bytes_)),
          tag_(to_all ? kTagAllreduce : kTagReduce),
          to_all_(to_all),
          root_here_(parent_ < 0),
          partials_(children_.size() * bytes_) {}

    adi::Error run() {
        accumulator_set();
        receives_post();
        std::size_t up = 0;                                  // the next segment to combine and pass up
        std::size_t down = to_all_ && !root_here_ ? 0 : k_;  // the next result segment to pass down
        while (up < k_ || down < k_) {
            g_.engine.wait([&] { return up_ready(up) || down_ready(down); });
            if (up_ready(up)) {
                if (!combine(up)) break;
                ++up;
            }
            if (down_ready(down)) {
                if (!forward(down)) break;
                ++down;
            }
        }
        return finish();
    }

private:
    std::size_t length(std::size_t i) const { return std::min(seg_, bytes_ - i * seg_); }
    int member(int node) const { return plan_.member[static_cast<std::size_t>(node)]; }
    bool up_ready(std::size_t up) const { return up < k_ && segment_in(up); }
    bool down_ready(std::size_t down) const { return down < k_ && downs_[down]->complete(); }

    // What this process combines into: the result at the root, its own
    // buffer where nothing is combined (a leaf sends `send` as it is).
    void accumulator_set() {
        if (root_here_) {
            acc_ = static_cast<std::byte*>(recv_);
        } else if (!children_.empty()) {
            acc_store_.resize(bytes_);
            acc_ = acc_store_.data();
        }
    }

    // Every receive is posted at once: the children's partial segments
    // (request c * k + i), then, for an allreduce, the result's from the parent.
    void receives_post() {
        for (std::size_t c = 0; c < children_.size(); ++c) {
            for (std::size_t i = 0; i < k_; ++i) {
                ups_.push_back(recv_start(g_, member(children_[c].child), tag_,
                                          partials_.data() + c * bytes_ + i * seg_, length(i)));
            }
        }
        if (to_all_ && !root_here_) {
            for (std::size_t i = 0; i < k_; ++i)
                downs_.push_back(recv_start(g_, member(parent_), tag_, at(recv_, i * seg_), length(i)));
        }
    }

    bool segment_in(std::size_t i) const {
        for (std::size_t c = 0; c < children_.size(); ++c) {
            if (!ups_[c * k_ + i]->complete()) return false;
        }
        return true;
    }

    void send_down(std::size_t i) {
        for (const plogp::Tree::Edge& e : children_) {
            sends_.push_back(send_start(g_, member(e.child), tag_, at(recv_, i * seg_), length(i)));
        }
    }

    // Segment `up` has arrived from every child: combines it with this
    // process's own and passes it on. False when a child failed.
    bool combine(std::size_t up) {
        for (std::size_t c = 0; c < children_.size(); ++c) {
            adi::Request*& r = ups_[c * k_ + up];
            const bool ok = out_.add(wait_all(g_, std::span<adi::Request* const>(&r, 1)));
            r = nullptr;
            if (!ok) return false;
        }
        const std::size_t n = length(up) / unit_;
        if (acc_ != nullptr) {
            bytes_copy(acc_ + up * seg_, at(send_, up * seg_), length(up));
            for (std::size_t c = 0; c < children_.size(); ++c) {
                op_.apply(partials_.data() + c * bytes_ + up * seg_, acc_ + up * seg_, n);
            }
        }
        if (!root_here_) {
            const void* from = acc_ != nullptr ? static_cast<const void*>(acc_ + up * seg_) : at(send_, up * seg_);
            sends_.push_back(send_start(g_, member(parent_), tag_, from, length(up)));
        } else if (to_all_) {
            send_down(up);
        }
        return true;
    }

    // Result segment `down` has arrived from the parent: passes it down.
    // False when the parent failed.
    bool forward(std::size_t down) {
        const bool ok = out_.add(wait_all(g_, std::span<adi::Request* const>(&downs_[down], 1)));
        downs_[down] = nullptr;
        if (!ok) return false;
        send_down(down);
        return true;
    }

    // After a failure, whatever is still posted ends before its buffers go.
    adi::Error finish() {
        std::vector<adi::Request*> rest;
        for (adi::Request* r : ups_) {
            if (r != nullptr) rest.push_back(r);
        }
        for (adi::Request* r : downs_) {
            if (r != nullptr) rest.push_back(r);
        }
        wait_all(g_, rest);
        out_.wait(g_, sends_);
        return out_.error();
    }

    const Group& g_;
    const void* send_;
    void* recv_;
    const ReduceOp& op_;
    const std::size_t unit_;
    const std::size_t bytes_;
    const plogp::Plan& plan_;
    const int me_;
    const int parent_;
    const std::vector<plogp::Tree::Edge>& children_;
    const std::size_t seg_;
    const std::size_t k_;
    const int tag_;
    const bool to_all_;
    const bool root_here_;
    Bytes acc_store_;
    Bytes partials_;
    std::byte* acc_ = nullptr;
    std::vector<adi::Request*> ups_, downs_, sends_;
    Outcome out_;
};

}  // namespace

adi::Error reduction_segmented(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op,
                               int root, bool to_all) {
    return Segmented(g, send, recv, count, op, root, to_all).run();
}

adi::Error reduce_segmented(const Group& g, const void* send, void* recv, std::size_t count, const ReduceOp& op,
                            int root) {
    return reduction_segmented(g, send, recv, count, op, root, false);
}

}  // namespace strata::coll
