#include "devices/tcp/reader.hpp"

#include <cstring>

#include "wireup/emulation.hpp"

namespace strata::dev::tcp {

void Reader::landing_advance(int peer, adi::Upcalls& up) {
    if (land_at_ == land_.capacity && land_.capacity > 0 && pay_done_ < cur_.length) {
        land_ = up.on_landing_full(peer, cur_, land_);
        land_at_ = 0;
    }
}

void Reader::land(int peer, adi::Upcalls& up, const std::byte* src, std::size_t n) {
    std::size_t done = 0;
    while (done < n && land_at_ < land_.capacity && land_.dest != nullptr) {
        const std::size_t copy = std::min(land_.capacity - land_at_, n - done);
        std::memcpy(land_.dest + land_at_, src + done, copy);
        land_at_ += copy;
        done += copy;
        pay_done_ += copy;
        landing_advance(peer, up);
    }
    // Whatever no landing takes is discarded (truncation).
    pay_done_ += n - done;
}

iovec Reader::room(std::uint64_t most) const {
    if (land_.dest == nullptr || land_at_ >= land_.capacity) return iovec{nullptr, 0};
    return iovec{land_.dest + land_at_, static_cast<std::size_t>(std::min<std::uint64_t>(most, land_.capacity - land_at_))};
}

void Reader::landed(int peer, std::size_t n, adi::Upcalls& up) {
    land_at_ += n;
    pay_done_ += n;
    if (n > 0) landing_advance(peer, up);
}

void Reader::payload_end(int peer, adi::Upcalls& up) {
    striped_ = false;
    in_payload_ = false;
    up.on_payload(peer, cur_, land_);
}

Reader::Parsed Reader::plan_take(Staging& rx, int peer, adi::Upcalls& up) {
    StripeRecord plan{};
    std::memcpy(&plan, rx.buf.data() + rx.begin, sizeof plan);
    from_wire(plan);
    std::memcpy(&cur_, rx.buf.data() + rx.begin + sizeof plan, sizeof cur_);
    adi::from_wire(cur_);
    rx.begin += 2 * sizeof(adi::Header);
    if (plan.type != kRecordPlan || plan.streams == 0 || plan.streams > wireup::kStreamsMax || plan.unit == 0 ||
        plan.total != adi::wire_payload(cur_)) {
        return Parsed::bad_plan;
    }
    land_ = up.on_header(peer, cur_);
    land_at_ = 0;
    pay_done_ = 0;
    in_payload_ = true;
    striped_ = true;
    plan_ = plan;
    return Parsed::plan;
}

Reader::Parsed Reader::parse(Connection& c, int peer, adi::Upcalls& up) {
    Staging& rx = c.rx;
    Parsed met = Parsed::done;
    while (c.state == Connection::State::connected) {
        if (in_payload_) {
            if (striped_) break;  // its bytes come as stripes
            const std::uint64_t left = cur_.length - pay_done_;
            const std::size_t take = static_cast<std::size_t>(std::min<std::uint64_t>(left, rx.end - rx.begin));
            land(peer, up, rx.buf.data() + rx.begin, take);
            rx.begin += take;
            if (pay_done_ < cur_.length) break;  // need more from the socket
            in_payload_ = false;
            up.on_payload(peer, cur_, land_);
            continue;
        }
        if (rx.end - rx.begin < sizeof(adi::Header)) break;
        if (const auto type = static_cast<std::uint8_t>(rx.buf[rx.begin]); type == kRecordFence || type == kRecordWait) {
            StripeRecord r{};
            std::memcpy(&r, rx.buf.data() + rx.begin, sizeof r);
            from_wire(r);
            rx.begin += sizeof r;
            mark_ = r.seq;
            met = type == kRecordFence ? Parsed::fence : Parsed::wait;
            break;
        }
        if (static_cast<std::uint8_t>(rx.buf[rx.begin]) >= adi::kMethodRecordFirst) {
            // A striped packet: its plan, then its header (stripes.hpp).
            if (rx.end - rx.begin < 2 * sizeof(adi::Header)) break;
            met = plan_take(rx, peer, up);
            if (met == Parsed::bad_plan) return met;
            break;
        }
        std::memcpy(&cur_, rx.buf.data() + rx.begin, sizeof(adi::Header));
        adi::from_wire(cur_);
        rx.begin += sizeof(adi::Header);
        if (const std::uint64_t pay = adi::wire_payload(cur_); rx.end - rx.begin >= pay) {
            // All of it is here: delivered in one step.
            const std::size_t at = rx.begin;
            rx.begin += pay;
            up.on_packet(peer, cur_, rx.buf.data() + at);
            continue;
        }
        const adi::Landing landing = up.on_header(peer, cur_);
        if (adi::carries_payload(cur_.type)) {
            in_payload_ = true;
            land_ = landing;
            land_at_ = 0;
            pay_done_ = 0;
        }
    }
    if (rx.begin == rx.end) {
        rx.begin = 0;
        rx.end = 0;
    } else if (rx.begin > 0 && !in_payload_) {
        // Keep a partial header at the front so the next read completes it.
        std::memmove(rx.buf.data(), rx.buf.data() + rx.begin, rx.end - rx.begin);
        rx.end -= rx.begin;
        rx.begin = 0;
    }
    return met;
}

}  // namespace strata::dev::tcp
