#include "collectives/collective.hpp"

#include <array>

namespace strata::coll {

StageGroup::StageGroup(const Group& parent, const Stage& s)
    : group_{parent.engine,
             parent.context,
             s.me,
             direct(parent, s) ? s.world : world_,
             nullptr,
             s.level,
             parent.tag_shift + stage_tag_shift(s.index),
             direct(parent, s) ? &s.members : &envelope_} {
    if (direct(parent, s)) return;
    world_.resize(s.members.size());
    envelope_.resize(s.members.size());
    for (std::size_t i = 0; i < s.members.size(); ++i) {
        world_[i] = parent.world[static_cast<std::size_t>(s.members[i])];
        envelope_[i] = parent.envelope_rank(s.members[i]);
    }
}

adi::Request* send_start(const Group& g, int dest, int tag, const void* buf, std::size_t bytes) {
    adi::Request* r = g.engine.request_create(adi::Kind::send);
    g.engine.isend(*r, {.world_peer = g.world[static_cast<std::size_t>(dest)],
                        .mode = adi::SendMode::standard,
                        .context = g.context,
                        .rank = g.envelope_rank(g.rank),
                        .tag = tag + g.tag_shift,
                        .data = {static_cast<std::byte*>(const_cast<void*>(buf)), bytes}});
    return r;
}

adi::Request* recv_start(const Group& g, int source, int tag, void* buf, std::size_t bytes) {
    adi::Request* r = g.engine.request_create(adi::Kind::recv);
    const bool any = source == adi::kAnySource;
    g.engine.irecv(*r, {.world_source = any ? adi::kAnySource : g.world[static_cast<std::size_t>(source)],
                        .context = g.context,
                        .rank = any ? adi::kAnySource : g.envelope_rank(source),
                        .tag = tag + g.tag_shift,
                        .data = {static_cast<std::byte*>(buf), bytes},
                        .from_methods = any ? g.engine.methods_reaching(g.world) : 0});
    return r;
}

adi::Error wait_all(const Group& g, std::vector<adi::Request*>& reqs) {
    const adi::Error e = wait_all(g, std::span<adi::Request* const>(reqs));
    reqs.clear();
    return e;
}

adi::Error wait_all(const Group& g, std::span<adi::Request* const> reqs) {
    g.engine.wait([&] {
        for (const adi::Request* r : reqs) {
            if (!r->complete()) return false;
        }
        return true;
    });
    adi::Error first = adi::Error::none;
    for (adi::Request* r : reqs) {
        if (first == adi::Error::none) first = r->status.error;
        g.engine.request_destroy(r);
    }
    return first;
}

bool exchange(const Group& g, Outcome& out, int tag, int dest, const void* sbuf, std::size_t sbytes, int source,
              void* rbuf, std::size_t rbytes) {
    std::array<adi::Request*, 2> reqs{recv_start(g, source, tag, rbuf, rbytes), nullptr};
    if (dest >= 0) reqs[1] = send_start(g, dest, tag, sbuf, sbytes);
    return out.add(wait_all(g, std::span<adi::Request* const>(reqs.data(), dest >= 0 ? 2 : 1)));
}

}  // namespace strata::coll
