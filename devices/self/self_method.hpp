// devices/self: a rank talking to itself. Packets are copied into a local
// queue at send time (so every send completes at once) and delivered by poll().
#pragma once

#include <deque>
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
    bool busy() const override { return !queue_.empty(); }

private:
    struct Packet {
        adi::Header header;
        std::vector<std::byte> payload;
    };
    adi::Capabilities caps_;
    int me_ = -1;
    std::deque<Packet> queue_;
};

std::unique_ptr<adi::Method> create(const adi::MethodContext& ctx);

}  // namespace strata::dev::self
