#include "wireup/framed_connection.hpp"

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/local/connect_pair.hpp>
#include <boost/asio/local/stream_protocol.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

namespace asio = boost::asio;
using namespace strata::codec;
using strata::base::wire::FrameSplitter;
using strata::base::wire::RawFrame;

namespace {

std::vector<std::uint8_t> frame(std::uint8_t type, const std::string& payload) {
    strata::base::wire::Writer w;
    w.u32(static_cast<std::uint32_t>(4 * payload.size()));
    w.out().push_back(type);
    for (char c : payload) w.u32(static_cast<std::uint8_t>(c));
    return std::move(w.out());
}

std::string payload_text(const std::vector<std::uint8_t>& p) {
    std::string s;
    for (std::size_t i = 0; i < p.size(); i += 4) s += static_cast<char>(p[i]);
    return s;
}

// What the handlers saw: the frames' payloads ("type:text") and the ends.
struct Seen {
    std::vector<std::string> frames;
    std::vector<FrameEnd> ends;
    int drained = 0;
};

template <class Stream>
typename FramedConnection<Stream>::Handlers recorder(Seen& seen) {
    typename FramedConnection<Stream>::Handlers h;
    h.frame = [&seen](const RawFrame& f) {
        seen.frames.push_back(std::to_string(f.type) + ":" + payload_text(f.payload));
    };
    h.ended = [&seen](const FrameEnd& e) { seen.ends.push_back(e); };
    h.drained = [&seen] { ++seen.drained; };
    return h;
}

FrameSplitter splitter(std::uint32_t max_payload = 1024) { return FrameSplitter(1, 3, max_payload); }

using Local = asio::local::stream_protocol::socket;
using Tcp = asio::ip::tcp::socket;

void connect(asio::io_context&, Local& a, Local& b) { asio::local::connect_pair(a, b); }

// On 127.0.0.1.
void connect(asio::io_context& io, Tcp& a, Tcp& b) {
    asio::ip::tcp::acceptor acceptor(io, asio::ip::tcp::endpoint(asio::ip::make_address_v4("127.0.0.1"), 0));
    a.connect(acceptor.local_endpoint());
    acceptor.accept(b);
}

// A started connection over one end of a socket pair; `peer` is the other.
template <class Stream>
struct Pair {
    explicit Pair(std::uint32_t max_payload = 1024, std::function<void(const RawFrame&)> on_frame = {}) {
        Stream end(io);
        connect(io, peer, end);
        auto h = recorder<Stream>(seen);
        if (on_frame) h.frame = std::move(on_frame);
        conn = FramedConnection<Stream>::make(splitter(max_payload), std::move(h), std::move(end));
        conn->start();
    }
    ~Pair() { conn->close(); }
    asio::io_context io;
    Stream peer{io};
    Seen seen;
    std::shared_ptr<FramedConnection<Stream>> conn;
};
using LocalPair = Pair<Local>;
using TcpPair = Pair<Tcp>;

template <class Pred>
void run_until(asio::io_context& io, Pred done) {
    while (!done()) {
        io.restart();
        REQUIRE(io.run_one() == 1);
    }
}

// The frames a raw peer reads until the end of the stream.
std::vector<std::string> read_to_end(Tcp& peer) {
    std::vector<std::uint8_t> all;
    boost::system::error_code ec;
    asio::read(peer, asio::dynamic_buffer(all), ec);
    REQUIRE(ec == asio::error::eof);
    FrameSplitter s = splitter();
    s.feed(all.data(), all.size());
    std::vector<std::string> out;
    bool bad = false;
    while (auto f = s.next(bad)) out.push_back(std::to_string(f->type) + ":" + payload_text(f->payload));
    REQUIRE_FALSE(bad);
    return out;
}

}  // namespace

TEST_CASE("FramedConnection assembles a frame split across reads", "[wireup]") {
    LocalPair p;
    auto& a = p.peer;
    auto& seen = p.seen;
    auto& conn = p.conn;
    const std::vector<std::uint8_t> f = frame(2, "hello");
    // The header's first three bytes, then the rest: two reads, one frame.
    asio::write(a, asio::buffer(f.data(), 3));
    REQUIRE(conn->read_available() == FramedConnection<Local>::Read::data);
    CHECK(conn->heard());
    CHECK(seen.frames.empty());
    asio::write(a, asio::buffer(f.data() + 3, f.size() - 3));
    REQUIRE(conn->read_available() == FramedConnection<Local>::Read::data);
    CHECK(seen.frames == std::vector<std::string>{"2:hello"});
    CHECK(conn->read_available() == FramedConnection<Local>::Read::empty);
}

TEST_CASE("FramedConnection delivers several frames from one read, in order", "[wireup]") {
    LocalPair p;
    auto& io = p.io;
    auto& a = p.peer;
    auto& seen = p.seen;
    auto& conn = p.conn;
    std::vector<std::uint8_t> bytes;
    for (const auto& f : {frame(1, "a"), frame(2, "bc"), frame(3, "")}) bytes.insert(bytes.end(), f.begin(), f.end());
    asio::write(a, asio::buffer(bytes));
    REQUIRE(conn->read_available() == FramedConnection<Local>::Read::data);
    CHECK(seen.frames == std::vector<std::string>{"1:a", "2:bc", "3:"});
    // The read loop finds the peer's end.
    a.close();
    run_until(io, [&] { return !seen.ends.empty(); });
    CHECK(seen.ends[0].error == asio::error::eof);
    CHECK_FALSE(seen.ends[0].malformed);
    CHECK(conn->read_available() == FramedConnection<Local>::Read::gone);
}

TEST_CASE("FramedConnection refuses a frame longer than the splitter allows", "[wireup]") {
    LocalPair p(8);
    auto& a = p.peer;
    auto& seen = p.seen;
    auto& conn = p.conn;
    std::vector<std::uint8_t> bytes = frame(1, "ok");       // 8 bytes of payload: allowed
    const std::vector<std::uint8_t> big = frame(1, "abc");  // 12: refused from its header alone
    bytes.insert(bytes.end(), big.begin(), big.begin() + 5);
    asio::write(a, asio::buffer(bytes));
    CHECK(conn->read_available() == FramedConnection<Local>::Read::gone);
    CHECK(seen.frames == std::vector<std::string>{"1:ok"});
    REQUIRE(seen.ends.size() == 1);
    CHECK(seen.ends[0].malformed);
    CHECK_FALSE(seen.ends[0].error);
    // Still open: the owner may answer before it closes.
    CHECK(conn->is_open());
}

TEST_CASE("FramedConnection stops delivering once its owner closes it", "[wireup]") {
    std::vector<std::string> types;
    std::shared_ptr<FramedConnection<Local>>* conn_of = nullptr;
    LocalPair p(1024, [&](const RawFrame& f) {
        types.push_back(std::to_string(f.type));
        (*conn_of)->close();
    });
    auto& io = p.io;
    auto& a = p.peer;
    auto& seen = p.seen;
    auto& conn = p.conn;
    conn_of = &conn;
    std::vector<std::uint8_t> bytes = frame(1, "x");
    const std::vector<std::uint8_t> second = frame(2, "y");
    bytes.insert(bytes.end(), second.begin(), second.end());
    asio::write(a, asio::buffer(bytes));
    CHECK(conn->read_available() == FramedConnection<Local>::Read::gone);
    CHECK(types == std::vector<std::string>{"1"});
    CHECK(seen.ends.empty());
    io.restart();
    io.run();  // the aborted wait runs no handler
    CHECK(seen.ends.empty());
}

TEST_CASE("FramedConnection writes queued frames whole and in order", "[wireup]") {
    TcpPair p;
    auto& io = p.io;
    auto& a = p.peer;
    auto& seen = p.seen;
    auto& conn = p.conn;
    const std::string big(200, 'z');  // 800 bytes of payload: more than one write may take
    conn->send(frame(1, "first"));
    conn->send(std::make_shared<const std::vector<std::uint8_t>>(frame(2, big)));
    conn->send(frame(3, "third"));
    CHECK_FALSE(conn->idle());
    run_until(io, [&] { return conn->idle(); });
    CHECK(seen.drained == 1);
    conn->shutdown_after_drain();
    CHECK(read_to_end(a) == std::vector<std::string>{"1:first", "2:" + big, "3:third"});
}

TEST_CASE("FramedConnection shuts down its sending side after the queue drains", "[wireup]") {
    TcpPair p;
    auto& io = p.io;
    auto& a = p.peer;
    auto& seen = p.seen;
    auto& conn = p.conn;
    conn->send(frame(1, "one"));
    conn->send(frame(2, "two"));
    conn->shutdown_after_drain();  // not yet: two frames wait
    run_until(io, [&] { return seen.drained == 1; });
    // The peer reads both frames, then the end; reading here goes on.
    CHECK(read_to_end(a) == std::vector<std::string>{"1:one", "2:two"});
    CHECK(conn->is_open());
    asio::write(a, asio::buffer(frame(3, "late")));
    a.shutdown(Tcp::shutdown_send);
    run_until(io, [&] { return !seen.ends.empty(); });
    CHECK(seen.frames == std::vector<std::string>{"3:late"});
    CHECK(seen.ends[0].error == asio::error::eof);
    conn->close();
    conn->send(frame(1, "dropped"));  // ignored once closed
    CHECK(conn->idle());
}
