#include "collectives/collective.hpp"

namespace strata::coll {

adi::Request* send_start(const Group& g, int dest, int tag, const void* buf, std::size_t bytes) {
    adi::Request* r = g.engine.request_create(adi::Kind::send);
    r->context = g.context;
    r->rank = g.rank;
    r->tag = tag;
    r->buf = static_cast<std::byte*>(const_cast<void*>(buf));
    r->bytes = bytes;
    g.engine.isend(*r, g.world[static_cast<std::size_t>(dest)], adi::SendMode::standard);
    return r;
}

adi::Request* recv_start(const Group& g, int source, int tag, void* buf, std::size_t bytes) {
    adi::Request* r = g.engine.request_create(adi::Kind::recv);
    r->context = g.context;
    r->rank = source;
    r->tag = tag;
    r->buf = static_cast<std::byte*>(buf);
    r->bytes = bytes;
    g.engine.irecv(*r, source == adi::kAnySource ? adi::kAnySource : g.world[static_cast<std::size_t>(source)]);
    return r;
}

adi::Error wait_all(const Group& g, std::vector<adi::Request*>& reqs) {
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
    reqs.clear();
    return first;
}

bool exchange(const Group& g, Outcome& out, int tag, int dest, const void* sbuf, std::size_t sbytes, int source,
              void* rbuf, std::size_t rbytes) {
    std::vector<adi::Request*> reqs;
    reqs.push_back(recv_start(g, source, tag, rbuf, rbytes));
    reqs.push_back(send_start(g, dest, tag, sbuf, sbytes));
    return out.wait(g, reqs);
}

}  // namespace strata::coll
