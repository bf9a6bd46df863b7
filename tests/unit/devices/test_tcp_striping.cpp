// The TCP method's striping (devices/tcp/striping.hpp) alone: stripes queued
// on a link's connections as stripes.hpp lays them out, and read back in
// order by a StripeReader and the stream-0 Reader over socketpairs, without
// a TcpMethod (test_tcp_streams.cpp runs the same through the whole method).
#include <catch2/catch.hpp>

#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>
#include <optional>
#include <vector>

#include "conformance.hpp"
#include "devices/tcp/connection.hpp"
#include "devices/tcp/reader.hpp"
#include "devices/tcp/striping.hpp"

using namespace strata;
using namespace strata::dev::tcp;
using namespace strata::dev::testing;

namespace {

constexpr int kSender = 1;

// The bytes a queued packet will write, in order.
std::vector<std::byte> bytes_of(const OutPacket& p) {
    std::vector<std::byte> out;
    for (const iovec& v : p.iov) {
        const auto* b = static_cast<const std::byte*>(v.iov_base);
        out.insert(out.end(), b, b + v.iov_len);
    }
    return out;
}

StripeRecord record_of(const std::vector<std::byte>& bytes) {
    StripeRecord r{};
    std::memcpy(&r, bytes.data(), sizeof r);
    from_wire(r);
    return r;
}

// A link's n streams over socketpairs: the sender's connection k writes
// what the receiver's connection k reads. All of them established, plain.
struct Link {
    int ep = epoll_create1(EPOLL_CLOEXEC);
    std::vector<std::unique_ptr<Connection>> out;  // the sender's stream k at k
    Connection zero;                               // the receiver's stream 0
    std::vector<std::unique_ptr<Connection>> recvs;  // the receiver's stream k at k - 1
    Remote sender{kSender, "host-a", "10.0.0.1", 4000};

    explicit Link(int n) {
        for (int k = 0; k < n; ++k) {
            int fd[2];
            REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fd) == 0);
            out.push_back(std::make_unique<Connection>());
            Connection& in = k == 0 ? zero : *recvs.emplace_back(std::make_unique<Connection>());
            const auto stream = static_cast<std::uint32_t>(k);
            open(*out.back(), fd[0], stream, 100 + stream, false);
            open(in, fd[1], stream, 200 + stream, true);
        }
    }
    ~Link() {
        out.clear();
        recvs.clear();
        zero.close();
        ::close(ep);
    }
    void open(Connection& c, int fd, std::uint32_t stream, std::uint64_t key, bool server) const {
        c.epfd = ep;
        c.key = key;
        c.stream = stream;
        c.fd = fd;
        c.watch(true);
        REQUIRE(c.establish(server, std::nullopt, server ? kSender : 0).ok());
    }
    std::vector<Connection*> conns() const {
        std::vector<Connection*> v;
        for (const auto& c : out) v.push_back(c.get());
        return v;
    }
};

// The receiving side: stream 0 read as TcpMethod::read_peer() reads it, and
// the stripes of a striped payload as its stripes_go() does.
struct Receiver {
    Reader reader;
    StripeReader stripes;
    Recorder up;
    std::string failure;

    void parse(Connection& zero) {
        const Reader::Parsed met = reader.parse(zero, kSender, up);
        REQUIRE(met != Reader::Parsed::bad_plan);
        if (met == Reader::Parsed::plan) stripes.begin();
    }
    // One round: what stream 0 has, then stripes; false once a read failed.
    bool step(Link& link) {
        while (reader.striped()) {
            const base::Result<bool> done = stripes.read(link.sender, reader, link.zero, link.recvs, up);
            if (!done) {
                failure = done.error();
                return false;
            }
            if (!*done) return true;
            parse(link.zero);
        }
        iovec iov[2];
        int n_iov = 0;
        const std::size_t direct = reader.read_iov(link.zero.rx, iov, n_iov);
        const ssize_t n = link.zero.read(iov, n_iov);
        if (n <= 0) return true;
        std::size_t got = static_cast<std::size_t>(n);
        if (direct > 0) {
            const std::size_t into = std::min(got, direct);
            got -= into;
            reader.direct_landed(kSender, into, up);
        }
        link.zero.rx.end += got;
        parse(link.zero);
        return true;
    }
};

// Writes what the sender queued and reads it at the receiver until `landed`
// payloads arrived or a read failed.
void pump(Link& link, Receiver& rx, std::size_t landed, std::vector<std::uint64_t>& completed) {
    for (int i = 0; i < 1'000'000 && rx.up.landed < landed; ++i) {
        for (auto& c : link.out) REQUIRE(c->flush(nullptr, completed).ok());
        if (!rx.step(link)) return;
    }
}

}  // namespace

TEST_CASE("tcp striping: a striped packet is queued as its plan says, stripe i on stream i mod n") {
    Connection c0, c1, c2;
    Connection* conns[] = {&c0, &c1, &c2};
    const auto data = pattern(2500, 1);
    // Two pieces, so stripes cut across the caller's buffers.
    const iovec list[2] = {{const_cast<std::byte*>(data.data()), 1234},
                           {const_cast<std::byte*>(data.data()) + 1234, data.size() - 1234}};
    const adi::Header h = header(adi::Packet::rndv_data, 6, data.size());
    const StripeRecord plan = stripe_plan(3, 700, 9, data.size());
    auto group = std::make_shared<SendGroup>();
    CHECK(stripes_queue(conns, plan, h, list, group, nullptr) == 4);
    CHECK(group->left == 5);  // the plan and 4 stripes
    REQUIRE(c0.out.size() == 3);
    REQUIRE(c1.out.size() == 1);
    REQUIRE(c2.out.size() == 1);
    // Stream 0 first: the plan record, then the header.
    const auto head = bytes_of(*c0.out[0]);
    REQUIRE(head.size() == 2 * sizeof(adi::Header));
    const StripeRecord got_plan = record_of(head);
    CHECK(got_plan.type == kRecordPlan);
    CHECK(got_plan.streams == 3);
    CHECK(got_plan.unit == 700);
    CHECK(got_plan.seq == 9);
    CHECK(got_plan.total == 2500);
    adi::Header got_header{};
    std::memcpy(&got_header, head.data() + sizeof(StripeRecord), sizeof got_header);
    adi::from_wire(got_header);
    CHECK(same_header(got_header, h));
    // Each stripe: its record, then its bytes of the payload.
    const OutPacket* stripes[] = {c0.out[1].get(), c1.out[0].get(), c2.out[0].get(), c0.out[2].get()};
    for (std::uint64_t i = 0; i < 4; ++i) {
        INFO("stripe " << i);
        const auto bytes = bytes_of(*stripes[i]);
        const StripeRecord r = record_of(bytes);
        CHECK(r.type == kRecordStripe);
        CHECK(r.seq == 9);
        CHECK(r.offset == 700 * i);
        CHECK(r.length == (i < 3 ? 700u : 400u));
        CHECK(r.total == 2500);
        CHECK(std::vector<std::byte>(bytes.begin() + sizeof r, bytes.end()) ==
              std::vector<std::byte>(data.begin() + static_cast<std::ptrdiff_t>(r.offset),
                                     data.begin() + static_cast<std::ptrdiff_t>(r.offset + r.length)));
        CHECK(stripes[i]->group == group);
        CHECK(stripes[i]->due == 0);  // not shaped: no stamp
    }
}

TEST_CASE("tcp striping: payloads read back whole and in order over socketpairs") {
    struct Case {
        int streams;
        std::size_t unit;
        std::size_t window;  // the receiver's landings (0: one)
    };
    for (const Case k : {Case{1, 1000, 0}, Case{2, 1000, 0}, Case{3, 4096, 777}, Case{4, 65536, 0},
                         Case{5, 65536, 10007}}) {
        INFO(k.streams << " streams, unit " << k.unit << ", landings of " << k.window);
        Link link(k.streams);
        Receiver rx;
        rx.up.limits.window = k.window;
        std::vector<std::vector<std::byte>> sent;
        std::vector<std::uint64_t> completed;
        std::uint64_t stripes = 0;
        const std::size_t sizes[] = {k.unit + 1, 3 * k.unit, 10 * k.unit + 5, 1 << 20, 5 * k.unit - 1};
        for (std::size_t i = 0; i < std::size(sizes); ++i) {
            sent.push_back(pattern(sizes[i], static_cast<unsigned>(i)));
            const iovec v{sent.back().data(), sent.back().size()};
            auto group = std::make_shared<SendGroup>();
            group->token = 100 + i;
            const auto plan = stripe_plan(k.streams, k.unit, i, sizes[i]);
            stripes += stripes_queue(link.conns(), plan, header(adi::Packet::eager, static_cast<int>(i), sizes[i]),
                                     std::span<const iovec>(&v, 1), group, nullptr);
        }
        pump(link, rx, sent.size(), completed);
        INFO(rx.failure);
        check_in_order(rx.up, sent);
        CHECK(rx.stripes.received() == stripes);
        CHECK_FALSE(rx.reader.striped());
        // Each send completed once, when its last packet left.
        std::sort(completed.begin(), completed.end());
        CHECK(completed == std::vector<std::uint64_t>{100, 101, 102, 103, 104});
    }
}

TEST_CASE("tcp striping: a stripe out of order or a stream closed mid-payload fails the read, saying so") {
    for (const bool swap : {true, false}) {
        Link link(2);
        Receiver rx;
        std::vector<std::uint64_t> completed;
        const auto data = pattern(2000, 3);
        const iovec v{const_cast<std::byte*>(data.data()), data.size()};
        for (std::uint64_t seq = 0; seq < 2; ++seq) {
            stripes_queue(link.conns(), stripe_plan(2, 1000, seq, data.size()),
                          header(adi::Packet::eager, static_cast<int>(seq), data.size()), std::span<const iovec>(&v, 1),
                          std::make_shared<SendGroup>(), nullptr);
        }
        if (swap) {
            // Stream 1 carries stripe 1 of packet 0, then of packet 1: reversed.
            std::swap(link.out[1]->out[0], link.out[1]->out[1]);
        } else {
            link.recvs[0]->state = Connection::State::closed;
        }
        pump(link, rx, 2, completed);
        CHECK(rx.up.landed == 0);
        CHECK(rx.failure == (swap ? "rank 1 sent a stripe out of order"
                                  : "rank 1 closed stream 1 of its link in the middle of a message"));
    }
}
