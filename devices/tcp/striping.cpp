#include "devices/tcp/striping.hpp"

#include <algorithm>
#include <cstring>
#include <string>

#include "base/little_endian.hpp"

namespace strata::dev::tcp {

StripeRecord stripe_plan(int streams, std::size_t unit, std::uint64_t seq, std::uint64_t total) {
    StripeRecord plan{};
    plan.type = kRecordPlan;
    plan.streams = static_cast<std::uint8_t>(streams);
    plan.unit = static_cast<std::uint32_t>(unit);
    plan.seq = seq;
    plan.total = total;
    return plan;
}

std::uint64_t stripes_queue(std::span<Connection* const> conns, const StripeRecord& plan, const adi::Header& h,
                            std::span<const iovec> data, const std::shared_ptr<SendGroup>& group,
                            ShapedLink* shaping) {
    auto first = std::make_unique<OutPacket>();
    first->record = plan;
    first->header = h;
    to_wire(first->record);
    adi::to_wire(first->header);
    first->group = group;
    if (shaping != nullptr) first->stamp(base::to_little(shaping->stamp(0, 2 * sizeof(adi::Header))));
    first->iov.push_back(iovec{&first->record, sizeof first->record});
    first->iov.push_back(iovec{&first->header, sizeof first->header});
    ++group->left;
    conns[0]->out.push_back(std::move(first));
    const std::uint64_t count = stripe_count(plan.total, plan.unit);
    for (std::uint64_t i = 0; i < count; ++i) {
        const auto k = static_cast<std::size_t>(i % conns.size());
        auto pkt = std::make_unique<OutPacket>();
        pkt->record.type = kRecordStripe;
        pkt->record.seq = plan.seq;
        pkt->record.offset = stripe_offset(plan, i);
        pkt->record.length = stripe_length(plan, i);
        pkt->record.total = plan.total;
        pkt->group = group;
        if (shaping != nullptr) {
            pkt->stamp(base::to_little(shaping->stamp(
                static_cast<int>(k), sizeof pkt->record + static_cast<std::size_t>(pkt->record.length))));
        }
        pkt->iov.push_back(iovec{&pkt->record, sizeof pkt->record});
        iov_slice(data, static_cast<std::size_t>(pkt->record.offset), static_cast<std::size_t>(pkt->record.length),
                  pkt->iov);
        to_wire(pkt->record);
        ++group->left;
        conns[k]->out.push_back(std::move(pkt));
    }
    return count;
}

base::Result<Connection*> StripeReader::conn_next(const Remote& remote, const Reader& reader, Connection& zero,
                                                  std::span<const std::unique_ptr<Connection>> recvs) const {
    const std::uint32_t k = stream_next(reader);
    Connection* c = k == 0 ? &zero : k <= recvs.size() ? recvs[k - 1].get() : nullptr;
    if (c == nullptr || c->state == Connection::State::tls_handshake) return nullptr;  // its handshake ends in conn_ready()
    if (c->state != Connection::State::connected) {
        std::string why = "rank " + std::to_string(remote.rank);
        why += " closed stream ";
        why += std::to_string(k);
        why += " of its link in the middle of a message";
        return base::Error{why};
    }
    return c;
}

[[gnu::always_inline]] inline base::Status StripeReader::head_next(const Remote& remote, const Reader& reader,
                                                                   Connection& c, ssize_t& n, std::size_t& asked) {
    Staging& rx = c.rx;
    if (rx.end - rx.begin < sizeof(StripeRecord)) {
        // Complete the record: the rest of it and what follows.
        if (rx.begin > 0) {
            std::memmove(rx.buf.data(), rx.buf.data() + rx.begin, rx.end - rx.begin);
            rx.end -= rx.begin;
            rx.begin = 0;
        }
        asked = rx.buf.size() - rx.end;
        n = c.recv(rx.buf.data() + rx.end, asked);
        if (n > 0) rx.end += static_cast<std::size_t>(n);
        return {};
    }
    StripeRecord rec{};
    std::memcpy(&rec, rx.buf.data() + rx.begin, sizeof rec);
    from_wire(rec);
    rx.begin += sizeof rec;
    const StripeRecord& plan = reader.plan();
    if (rec.type != kRecordStripe || rec.seq != plan.seq || rec.offset != stripe_offset(plan, stripe_) ||
        rec.length != stripe_length(plan, stripe_)) {
        return base::Error{"rank " + std::to_string(remote.rank) + " sent a stripe out of order"};
    }
    head_ = true;
    left_ = rec.length;
    return {};
}

[[gnu::always_inline]] inline ssize_t StripeReader::read_direct(int peer, Reader& reader, Connection& c,
                                                                adi::Upcalls& up, std::size_t& asked) {
    // Straight into the landing, and what follows on this stream into its
    // staging buffer.
    c.rx.begin = c.rx.end = 0;
    iovec iov[2];
    int n_iov = 0;
    std::size_t direct = 0;
    if (const iovec room = reader.room(left_); room.iov_base != nullptr) {
        direct = room.iov_len;
        iov[n_iov++] = room;
    }
    iov[n_iov++] = iovec{c.rx.buf.data(), c.rx.buf.size()};
    asked = direct + c.rx.buf.size();
    const ssize_t n = c.read(iov, n_iov);
    if (n > 0) {
        const std::size_t into = std::min(static_cast<std::size_t>(n), direct);
        left_ -= into;
        c.rx.end = static_cast<std::size_t>(n) - into;
        reader.landed(peer, into, up);
    }
    return n;
}

[[gnu::always_inline]] inline bool StripeReader::stripe_done(int peer, Reader& reader, Connection& zero,
                                                             std::uint64_t count, adi::Upcalls& up) {
    head_ = false;
    ++received_;
    if (++stripe_ != count) return false;
    zero.set_want_in(true);
    reader.payload_end(peer, up);
    return true;
}

base::Result<bool> StripeReader::read(const Remote& remote, Reader& reader, Connection& zero,
                                      std::span<const std::unique_ptr<Connection>> recvs, adi::Upcalls& up) {
    const int peer = remote.rank;
    const std::uint64_t count = stripe_count(reader.plan().total, reader.plan().unit);
    while (zero.state == Connection::State::connected) {
        base::Result<Connection*> next = conn_next(remote, reader, zero, recvs);
        if (!next) return next.failure();
        if (*next == nullptr) return false;
        Connection& c = **next;
        c.set_want_in(true);
        std::size_t asked = 0;
        ssize_t n = 0;
        if (!head_) {
            if (base::Status head = head_next(remote, reader, c, n, asked); !head) return head.failure();
        } else if (c.rx.begin < c.rx.end) {
            const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(left_, c.rx.end - c.rx.begin));
            reader.land(peer, up, c.rx.buf.data() + c.rx.begin, take);
            c.rx.begin += take;
            left_ -= take;
        } else {
            n = read_direct(peer, reader, c, up, asked);
        }
        if (n < 0 || (asked > 0 && n == 0)) {
            const Connection::ReadEnd end = Connection::read_end(n);
            if (end == Connection::ReadEnd::retry) continue;
            if (end == Connection::ReadEnd::failed) return base::Error{c.read_failure(remote, n)};
            return false;
        }
        if (c.rx.begin == c.rx.end) c.rx.begin = c.rx.end = 0;
        if (head_ && left_ == 0) {
            if (stripe_done(peer, reader, zero, count, up)) return true;
            continue;
        }
        // A short read emptied the socket: wait for it to say more has come.
        if (!c.tls && asked > 0 && static_cast<std::size_t>(n) < asked && c.rx.begin == c.rx.end) return false;
    }
    return false;
}

}  // namespace strata::dev::tcp
