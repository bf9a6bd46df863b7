// devices/self: a rank talking to itself. Packets are copied into a local
// queue at send time (so every send completes at once) and delivered by poll().
#pragma once

#include <memory>
#include <vector>

#include "adi/method.hpp"

namespace strata::dev::self {

class SelfMethod final : public adi::Method {
public:
    SelfMethod();
    const adi::Capabilities& caps() const override { return caps_; }
    base::Status publish(wireup::BusinessCard& card) override;
    base::Status connect_world(const adi::World& world) override;
    bool reaches(int peer) const override { return peer == me_; }
    adi::SendStatus send(int peer, const adi::Header& h, std::span<const iovec> data, std::uint64_t token) override;
    bool send_now(int peer, const adi::Header& h, const std::byte* data, std::size_t n) override;
    int poll(adi::Upcalls& up) override;
    // The only peer is this process: the same as poll().
    int poll_peer(int peer, adi::Upcalls& up) override;
    bool busy() const override { return head_ != tail_; }

private:
    struct Packet {
        adi::Header header;
        std::vector<std::byte> payload;
    };
    // Appends a packet (its payload copied from `data`) behind the waiting ones.
    void push(const adi::Header& h, std::span<const iovec> data);
    // Delivers the packets waiting when it is called (poll and poll_peer).
    int deliver(adi::Upcalls& up);
    adi::Capabilities caps_;
    int me_ = -1;
    // Packets waiting for poll() are queue_[head_, tail_), oldest first. The
    // queue's delivered slots are used again, payload storage and all: a
    // message to oneself allocates nothing once the queue has grown to the
    // number of messages in flight (a deque allocated and freed a payload,
    // and moved each packet out, per message). Each packet has a place of
    // its own, which a push during delivery (an answer such as a sync_ack)
    // leaves where it is, however the queue grows.
    std::vector<std::unique_ptr<Packet>> queue_;
    std::size_t head_ = 0;
    std::size_t tail_ = 0;
};

std::unique_ptr<adi::Method> create(const adi::MethodContext& ctx);

}  // namespace strata::dev::self
