#include "devices/self/self_method.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

namespace strata::dev::self {

namespace {

// A delivered slot keeps payload storage up to this size for the next packet;
// larger storage is freed, so one big message to oneself does not stay held.
constexpr std::size_t kKeepPayload = 64 * 1024;

}  // namespace

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

[[gnu::always_inline]] inline void SelfMethod::push(const adi::Header& h, std::span<const iovec> data) {
    if (tail_ == queue_.size()) [[unlikely]] queue_.push_back(std::make_unique<Packet>());
    Packet& p = *queue_[tail_++];
    p.header = h;
    std::size_t total = 0;
    for (const iovec& v : data) total += v.iov_len;
    p.payload.resize(total);
    std::size_t at = 0;
    for (const iovec& v : data) {
        if (v.iov_len > 0) std::memcpy(p.payload.data() + at, v.iov_base, v.iov_len);
        at += v.iov_len;
    }
}

adi::SendStatus SelfMethod::send(int /*peer*/, const adi::Header& h, std::span<const iovec> data,
                                 std::uint64_t /*token*/) {
    push(h, data);
    return adi::SendStatus::done;
}

bool SelfMethod::send_now(int /*peer*/, const adi::Header& h, const std::byte* data, std::size_t n) {
    const iovec v{const_cast<std::byte*>(data), n};
    push(h, std::span<const iovec>(&v, 1));
    return true;
}

[[gnu::always_inline]] inline int SelfMethod::deliver(adi::Upcalls& up) {
    if (head_ == tail_) return 0;  // the usual case: polled on every pass of the engine
    // Handling a packet may queue new ones (e.g. a sync_ack) behind tail_;
    // they wait for the next pass.
    const std::size_t end = tail_;
    const auto events = static_cast<int>(end - head_);
    for (; head_ < end; ++head_) {
        Packet& p = *queue_[head_];
        up.on_packet(me_, p.header, p.payload.data());
        if (p.payload.capacity() > kKeepPayload) [[unlikely]] std::vector<std::byte>().swap(p.payload);
    }
    if (head_ == tail_) {
        head_ = tail_ = 0;
    } else {
        // Packets queued during this pass: move them to the front, the
        // delivered slots (and their storage) behind them.
        std::rotate(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(head_),
                    queue_.begin() + static_cast<std::ptrdiff_t>(tail_));
        tail_ -= head_;
        head_ = 0;
    }
    return events;
}

int SelfMethod::poll(adi::Upcalls& up) { return deliver(up); }

int SelfMethod::poll_peer(int /*peer*/, adi::Upcalls& up) { return deliver(up); }

std::unique_ptr<adi::Method> create(const adi::MethodContext& /*ctx*/) { return std::make_unique<SelfMethod>(); }

}  // namespace strata::dev::self
