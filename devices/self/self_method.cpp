#include "devices/self/self_method.hpp"

#include <cstring>
#include <limits>

namespace strata::dev::self {

SelfMethod::SelfMethod() {
    caps_.name = "self";
    // Sending to oneself always copies once into the queue, so rendezvous
    // would only add a round trip.
    caps_.eager_limit = std::numeric_limits<std::size_t>::max();
    caps_.poll_cost = 1;
}

base::Status SelfMethod::publish(wireup::BusinessCard& /*card*/) { return {}; }

base::Status SelfMethod::connect_world(const adi::World& world) {
    me_ = world.rank;
    return {};
}

adi::SendStatus SelfMethod::send(int /*peer*/, const adi::Header& h, std::span<const iovec> data,
                                 std::uint64_t /*token*/) {
    Packet p{h, {}};
    std::size_t total = 0;
    for (const iovec& v : data) total += v.iov_len;
    p.payload.resize(total);
    std::size_t at = 0;
    for (const iovec& v : data) {
        if (v.iov_len > 0) std::memcpy(p.payload.data() + at, v.iov_base, v.iov_len);
        at += v.iov_len;
    }
    queue_.push_back(std::move(p));
    return adi::SendStatus::done;
}

bool SelfMethod::send_now(int peer, const adi::Header& h, const std::byte* data, std::size_t n) {
    const iovec v{const_cast<std::byte*>(data), n};
    return send(peer, h, std::span<const iovec>(&v, 1), 0) == adi::SendStatus::done;
}

int SelfMethod::poll(adi::Upcalls& up) {
    if (queue_.empty()) return 0;  // the usual case: polled on every pass of the engine
    int events = 0;
    // Handling a packet may queue new ones (e.g. a CTS); they wait for the next pass.
    for (std::size_t n = queue_.size(); n > 0; --n) {
        Packet p = std::move(queue_.front());
        queue_.pop_front();
        up.on_packet(me_, p.header, p.payload.data());
        ++events;
    }
    return events;
}

std::unique_ptr<adi::Method> create(const adi::MethodContext& /*ctx*/) { return std::make_unique<SelfMethod>(); }

}  // namespace strata::dev::self
