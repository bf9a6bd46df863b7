// The TCP method's reader (devices/tcp/reader.hpp) alone, without a socket:
// a stream's bytes are handed to it as reads would bring them, cut at every
// point and in every chunking tried here, and what it delivers through the
// Recorder (conformance.hpp) must be the packets sent, whole and in order.
// A "read" goes where the reader says (read_iov: the landing first when a
// payload is arriving and nothing is staged, then the staging buffer) and
// takes no more than it asks, as readv() would.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <deque>
#include <random>
#include <string>
#include <vector>

#include "conformance.hpp"
#include "devices/tcp/connection.hpp"
#include "devices/tcp/reader.hpp"
#include "devices/tcp/stripes.hpp"

using namespace strata;
using namespace strata::dev::tcp;
using namespace strata::dev::testing;

namespace {

constexpr int kPeer = 5;

// A packet as the sender put it on the wire: header, then its payload.
struct Sent {
    adi::Header header;
    std::vector<std::byte> payload;
};

void append_wire(std::vector<std::byte>& wire, const Sent& p) {
    adi::Header h = p.header;
    adi::to_wire(h);
    const auto* bytes = reinterpret_cast<const std::byte*>(&h);
    wire.insert(wire.end(), bytes, bytes + sizeof h);
    wire.insert(wire.end(), p.payload.begin(), p.payload.end());
}

// The stream of `packets`, a payload of each size in `sizes` (with headers
// without payload between them: an rts and a sync_ack).
std::vector<Sent> packets_of(const std::vector<std::size_t>& sizes) {
    std::vector<Sent> out;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        const auto tag = static_cast<int>(i);
        out.push_back(Sent{header(i % 2 == 0 ? adi::Packet::eager : adi::Packet::rndv_data, tag, sizes[i]),
                           pattern(sizes[i], static_cast<unsigned>(i))});
        if (i % 3 == 1) out.push_back(Sent{header(adi::Packet::rts, 1000 + tag, 1 << 20), {}});
        if (i % 3 == 2) out.push_back(Sent{header(adi::Packet::sync_ack, 2000 + tag, 0), {}});
    }
    return out;
}

std::vector<std::byte> wire_of(const std::vector<Sent>& packets) {
    std::vector<std::byte> wire;
    for (const Sent& p : packets) append_wire(wire, p);
    return wire;
}

// A connected connection without a socket, and its reader.
struct Stream {
    Connection c;
    Reader reader;
    Recorder up;
    Stream() {
        c.state = Connection::State::connected;
        c.rx.buf.resize(kStaging);
    }

    // One read of at most `most` bytes from `bytes` at `at`, as read_peer()
    // makes it; returns how many it took.
    std::size_t read_once(const std::vector<std::byte>& bytes, std::size_t at, std::size_t most) {
        iovec iov[2];
        int n_iov = 0;
        const std::size_t direct = reader.read_iov(c.rx, iov, n_iov);
        std::size_t n = std::min({most, bytes.size() - at, direct + iov[n_iov - 1].iov_len});
        std::size_t done = 0;
        for (int i = 0; i < n_iov && done < n; ++i) {
            const std::size_t take = std::min(n - done, iov[i].iov_len);
            std::memcpy(iov[i].iov_base, bytes.data() + at + done, take);
            done += take;
        }
        std::size_t got = n;
        if (direct > 0) {
            const std::size_t into = std::min(got, direct);
            got -= into;
            reader.direct_landed(kPeer, into, up);
        }
        c.rx.end += got;
        parse_checked();
        return n;
    }
    void parse_checked() { REQUIRE(reader.parse(c, kPeer, up) == Reader::Parsed::done); }

    // Hands over `bytes` in chunks of the sizes in `cuts` (one socket's worth
    // each, taken by as many reads as the reader's buffers need), the rest in
    // one.
    void feed(const std::vector<std::byte>& bytes, const std::vector<std::size_t>& cuts) {
        std::size_t at = 0;
        for (std::size_t i = 0; i <= cuts.size() && at < bytes.size(); ++i) {
            const std::size_t end = i < cuts.size() ? std::min(bytes.size(), at + cuts[i]) : bytes.size();
            while (at < end) at += read_once(bytes, at, end - at);
        }
    }
};

// What `up` got is `packets`: every header in order, every payload whole
// (or its first `accept` bytes).
void check_delivered(const Recorder& up, const std::vector<Sent>& packets, std::size_t accept = SIZE_MAX) {
    REQUIRE(up.headers.size() == packets.size());
    std::size_t m = 0;
    for (std::size_t i = 0; i < packets.size(); ++i) {
        INFO("packet " << i);
        CHECK(same_header(up.headers[i], packets[i].header));
        CHECK(up.peers[i] == kPeer);
        if (!adi::carries_payload(packets[i].header.type)) continue;
        REQUIRE(m < up.msgs.size());
        const Msg& got = up.msgs[m++];
        CHECK(got.done);
        CHECK(diff(got.data, prefix(packets[i].payload, std::min(accept, packets[i].payload.size()))) == "");
    }
    CHECK(m == up.msgs.size());
    CHECK(up.landed == m);
}

}  // namespace

TEST_CASE("tcp reader: a stream cut at every point delivers the same packets") {
    // Small payloads (whole in staging), an empty one, and one larger than
    // a read's room once headers precede it.
    const auto packets = packets_of({8, 0, 300, 1, 2000, 40});
    const auto wire = wire_of(packets);
    for (std::size_t cut = 0; cut <= wire.size(); ++cut) {
        INFO("cut at byte " << cut << " of " << wire.size());
        Stream s;
        s.feed(wire, {cut});
        check_delivered(s.up, packets);
        CHECK_FALSE(s.reader.in_payload());
    }
}

TEST_CASE("tcp reader: every pair of cuts, a byte at a time, and landings in windows") {
    const auto packets = packets_of({5, 0, 70, 3});
    const auto wire = wire_of(packets);
    for (std::size_t a = 0; a <= wire.size(); ++a) {
        for (std::size_t b = a; b <= wire.size(); b += 3) {
            INFO("cuts at " << a << " and " << b);
            Stream s;
            s.up.limits.window = 7;  // landings that fill inside payloads and across reads
            s.feed(wire, {a, b - a});
            check_delivered(s.up, packets);
        }
    }
    for (const std::size_t window : {std::size_t{0}, std::size_t{1}}) {
        INFO("a byte at a time, landings of " << window);
        Stream bytewise;
        bytewise.up.limits.window = window;
        bytewise.feed(wire, std::vector<std::size_t>(wire.size(), 1));
        check_delivered(bytewise.up, packets);
    }
}

TEST_CASE("tcp reader: payloads larger than the staging buffer land straight, in any chunking") {
    const auto packets = packets_of({200000, 12, kStaging, kStaging - sizeof(adi::Header), 100000, 0, 3 * kStaging + 5});
    const auto wire = wire_of(packets);
    std::mt19937 random(7);
    for (int round = 0; round < 60; ++round) {
        std::vector<std::size_t> cuts;
        const std::size_t most = round % 3 == 0 ? 100 : round % 3 == 1 ? 5000 : 300000;
        for (std::size_t at = 0; at < wire.size();) {
            cuts.push_back(1 + random() % most);
            at += cuts.back();
        }
        INFO("round " << round << ": " << cuts.size() << " chunks");
        Stream s;
        if (round % 2 == 1) s.up.limits.window = 10007;
        s.feed(wire, cuts);
        check_delivered(s.up, packets);
    }
}

TEST_CASE("tcp reader: what a landing cannot take is dropped and the next packet is intact") {
    const auto packets = packets_of({100000, 50, 3000, 70000});
    const auto wire = wire_of(packets);
    for (const std::size_t chunk : {std::size_t{1000}, std::size_t{65536}, wire.size()}) {
        INFO("chunks of " << chunk);
        Stream s;
        s.up.limits = Limits{2500, 1000};
        s.feed(wire, std::vector<std::size_t>(wire.size() / chunk + 1, chunk));
        check_delivered(s.up, packets, 2500);
    }
}

TEST_CASE("tcp reader: a striped packet's plan stops the reader with its header delivered") {
    const auto payload = pattern(300000, 3);
    const adi::Header h = header(adi::Packet::rndv_data, 9, payload.size());
    const Sent before{header(adi::Packet::eager, 8, 4), pattern(4, 8)};
    StripeRecord plan{};
    plan.type = kRecordPlan;
    plan.streams = 3;
    plan.unit = 65536;
    plan.seq = 4;
    plan.total = payload.size();
    std::vector<std::byte> wire;
    append_wire(wire, before);
    StripeRecord rec = plan;
    to_wire(rec);
    wire.insert(wire.end(), reinterpret_cast<const std::byte*>(&rec), reinterpret_cast<const std::byte*>(&rec) + sizeof rec);
    append_wire(wire, Sent{h, {}});  // the header alone: the payload comes as stripes
    const std::size_t plan_end = wire.size();
    append_wire(wire, Sent{header(adi::Packet::sync_ack, 10, 0), {}});  // what follows the payload on stream 0
    for (std::size_t cut = 0; cut < plan_end; ++cut) {
        INFO("cut at " << cut);
        Stream s;
        std::memcpy(s.c.rx.buf.data(), wire.data(), cut);
        s.c.rx.end = cut;
        s.parse_checked();
        CHECK_FALSE(s.reader.striped());
        std::memcpy(s.c.rx.buf.data() + s.c.rx.end, wire.data() + cut, wire.size() - cut);
        s.c.rx.end += wire.size() - cut;
        REQUIRE(s.reader.parse(s.c, kPeer, s.up) == Reader::Parsed::plan);
        CHECK(s.reader.striped());
        CHECK(s.reader.in_payload());
        CHECK(s.reader.plan().seq == 4);
        CHECK(s.reader.plan().streams == 3);
        REQUIRE(s.up.headers.size() == 2);
        CHECK(same_header(s.up.headers[1], h));
        // The stripes land through the reader; then stream 0 goes on.
        s.reader.land(kPeer, s.up, payload.data(), 1000);
        const iovec room = s.reader.room(5000);
        REQUIRE(room.iov_len == 5000);
        std::memcpy(room.iov_base, payload.data() + 1000, 5000);
        s.reader.landed(kPeer, 5000, s.up);
        s.reader.land(kPeer, s.up, payload.data() + 6000, payload.size() - 6000);
        s.reader.payload_end(kPeer, s.up);
        CHECK_FALSE(s.reader.striped());
        REQUIRE(s.up.landed == 2);
        CHECK(diff(s.up.msgs[1].data, payload) == "");
        s.parse_checked();
        REQUIRE(s.up.headers.size() == 3);
        CHECK(s.up.headers[2].tag == 10);
    }
}

TEST_CASE("tcp reader: a malformed plan is refused") {
    const adi::Header h = header(adi::Packet::rndv_data, 9, 5000);
    for (int flaw = 0; flaw < 4; ++flaw) {
        StripeRecord plan{};
        plan.type = flaw == 0 ? kRecordStripe : kRecordPlan;
        plan.streams = flaw == 1 ? 0 : 2;
        plan.unit = flaw == 2 ? 0 : 1000;
        plan.total = flaw == 3 ? 4999 : 5000;
        std::vector<std::byte> wire(sizeof plan);
        to_wire(plan);
        std::memcpy(wire.data(), &plan, sizeof plan);
        append_wire(wire, Sent{h, {}});
        Stream s;
        std::memcpy(s.c.rx.buf.data(), wire.data(), wire.size());
        s.c.rx.end = wire.size();
        INFO("flaw " << flaw);
        CHECK(s.reader.parse(s.c, kPeer, s.up) == Reader::Parsed::bad_plan);
        CHECK(s.up.headers.empty());
    }
}

namespace {

// Upcalls that land every payload in a buffer larger than it, as a receive
// posted with room to spare: the payload must take only its own bytes.
class Roomy final : public adi::Upcalls {
public:
    static constexpr std::size_t kSpare = 100;
    adi::Landing on_header(int, const adi::Header& h) override {
        if (!adi::carries_payload(h.type)) return {};
        buffers.emplace_back(h.length + kSpare, std::byte{0xee});
        return adi::Landing{buffers.back().data(), buffers.back().size(), nullptr, 0};
    }
    void on_payload(int, const adi::Header& h, const adi::Landing& l) override {
        CHECK(l.dest == buffers.back().data());
        payloads.emplace_back(buffers.back().begin(), buffers.back().begin() + static_cast<std::ptrdiff_t>(h.length));
        CHECK(std::all_of(buffers.back().begin() + static_cast<std::ptrdiff_t>(h.length), buffers.back().end(),
                          [](std::byte b) { return b == std::byte{0xee}; }));
    }
    adi::Landing on_landing_full(int, const adi::Header&, const adi::Landing&) override {
        FAIL("a landing larger than the payload never fills");
        return {};
    }
    void on_sent(std::uint64_t) override {}
    void on_peer_failed(int, const std::string&) override {}
    std::deque<std::vector<std::byte>> buffers;
    std::vector<std::vector<std::byte>> payloads;
};

}  // namespace

TEST_CASE("tcp reader: a landing with room to spare takes only its payload's bytes") {
    const auto packets = packets_of({100000, 7, 70000, 0, 3});
    const auto wire = wire_of(packets);
    for (const std::size_t chunk : {std::size_t{1}, std::size_t{333}, std::size_t{40000}, wire.size()}) {
        INFO("chunks of " << chunk);
        Connection c;
        c.state = Connection::State::connected;
        c.rx.buf.resize(kStaging);
        Reader reader;
        Roomy up;
        std::size_t at = 0;
        while (at < wire.size()) {
            iovec iov[2];
            int n_iov = 0;
            const std::size_t direct = reader.read_iov(c.rx, iov, n_iov);
            const std::size_t n = std::min({chunk, wire.size() - at, direct + iov[n_iov - 1].iov_len});
            std::size_t done = 0;
            for (int i = 0; i < n_iov && done < n; ++i) {
                const std::size_t take = std::min(n - done, iov[i].iov_len);
                std::memcpy(iov[i].iov_base, wire.data() + at + done, take);
                done += take;
            }
            at += n;
            const std::size_t into = std::min(n, direct);
            if (direct > 0) reader.direct_landed(kPeer, into, up);
            c.rx.end += n - into;
            REQUIRE(reader.parse(c, kPeer, up) == Reader::Parsed::done);
        }
        std::vector<std::vector<std::byte>> want;
        for (const Sent& p : packets)
            if (adi::carries_payload(p.header.type)) want.push_back(p.payload);
        CHECK(up.payloads == want);
    }
}

namespace {

// Upcalls whose first packet fails the connection, as a send from inside an
// upcall that finds the link broken does.
class Failing final : public adi::Upcalls {
public:
    explicit Failing(Connection& c) : c_(c) {}
    adi::Landing on_header(int, const adi::Header&) override { return {}; }
    void on_payload(int, const adi::Header&, const adi::Landing&) override {}
    void on_packet(int, const adi::Header&, const std::byte*) override {
        ++packets;
        c_.state = Connection::State::failed;
    }
    adi::Landing on_landing_full(int, const adi::Header&, const adi::Landing&) override { return {}; }
    void on_sent(std::uint64_t) override {}
    void on_peer_failed(int, const std::string&) override {}
    int packets = 0;

private:
    Connection& c_;
};

}  // namespace

TEST_CASE("tcp reader: nothing more is delivered once the connection failed") {
    const auto wire = wire_of(packets_of({8, 8, 8}));
    Stream s;
    Failing up(s.c);
    std::memcpy(s.c.rx.buf.data(), wire.data(), wire.size());
    s.c.rx.end = wire.size();
    CHECK(s.reader.parse(s.c, kPeer, up) == Reader::Parsed::done);
    CHECK(up.packets == 1);
}
