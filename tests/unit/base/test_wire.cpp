#include "base/wire.hpp"

#include <catch2/catch.hpp>

namespace wire = strata::base::wire;

namespace sample {

enum class Kind : std::uint32_t { first = 1, second = 2, third = 3 };

struct Inner {
    std::string name;
    std::int32_t level = -1;
    bool operator==(const Inner&) const = default;
};
constexpr auto wire_fields(std::type_identity<Inner>) {
    return std::tuple{wire::field("name", &Inner::name), wire::field("level", &Inner::level)};
}

struct Message {
    std::uint32_t rank = 0;
    std::uint64_t id = 0;
    bool flag = false;
    std::uint16_t port = 0;
    Kind kind = Kind::first;
    int count = 0;
    std::array<std::uint8_t, 4> nonce{};
    std::vector<std::uint8_t> mask;
    std::vector<std::string> words;
    std::vector<std::pair<std::string, std::string>> env;
    std::vector<Inner> inners;
    Inner one;
    bool operator==(const Message&) const = default;
};
constexpr auto wire_fields(std::type_identity<Message>) {
    return std::tuple{wire::field("rank", &Message::rank),
                      wire::field("id", &Message::id),
                      wire::field("flag", &Message::flag),
                      wire::field("port", &Message::port),
                      wire::within("kind", &Message::kind, Kind::first, Kind::third),
                      wire::within("count", &Message::count, 0, 100),
                      wire::field("nonce", &Message::nonce),
                      wire::field("mask", &Message::mask),
                      wire::field("words", &Message::words),
                      wire::field("env", &Message::env),
                      wire::field("inners", &Message::inners),
                      wire::field("one", &Message::one)};
}
std::string wire_check(const Message& m) { return m.words.size() > 3 ? "more than 3 words" : ""; }

Message full() {
    return {7,
            0x0102030405060708ull,
            true,
            65535,
            Kind::third,
            100,
            {1, 2, 3, 4},
            {9, 8},
            {"a", "", "ccc"},
            {{"K", "v"}},
            {{"x", 3}, {"y", -2}},
            {"z", 0}};
}

}  // namespace sample

using sample::Message;

namespace {

std::vector<std::uint8_t> payload_of(const std::vector<std::uint8_t>& frame) {
    return {frame.begin() + static_cast<std::ptrdiff_t>(wire::kHeaderBytes), frame.end()};
}

}  // namespace

TEST_CASE("wire: a message travels whole, little-endian, in its frame", "[wire]") {
    const Message m = sample::full();
    const std::vector<std::uint8_t> f = wire::frame(42, m);
    REQUIRE(f.size() > wire::kHeaderBytes);
    CHECK(f[4] == 42);
    const std::uint32_t length = f[0] | f[1] << 8 | f[2] << 16 | static_cast<std::uint32_t>(f[3]) << 24;
    CHECK(length == f.size() - wire::kHeaderBytes);
    const std::vector<std::uint8_t> p = payload_of(f);
    CHECK(p == wire::payload(m));
    // rank, then id's low word first.
    CHECK(std::vector<std::uint8_t>(p.begin(), p.begin() + 12) ==
          std::vector<std::uint8_t>{7, 0, 0, 0, 8, 7, 6, 5, 4, 3, 2, 1});
    const strata::base::Result<Message> back = wire::decode<Message>(p);
    REQUIRE(back.ok());
    CHECK(*back == m);
    CHECK(wire::decode<Message>(wire::payload(Message{})).value() == Message{});
    CHECK(wire::frame_empty(5) == std::vector<std::uint8_t>{0, 0, 0, 0, 5});
}

TEST_CASE("wire: every shorter payload fails, naming the field", "[wire]") {
    const std::vector<std::uint8_t> p = wire::payload(sample::full());
    for (std::size_t n = 0; n < p.size(); ++n) {
        const auto r = wire::decode<Message>(std::span(p).first(n));
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().starts_with("'"));
        CHECK(r.error().find("cut short at byte") != std::string::npos);
    }
    CHECK(wire::decode<Message>(std::span(p).first(0)).error() ==
          "'rank': cut short at byte 0: a 4-byte integer needs 4, 0 left");
    std::vector<std::uint8_t> longer = p;
    longer.push_back(0);
    CHECK(wire::decode<Message>(longer).error() == "1 bytes left over after the message");
}

TEST_CASE("wire: values outside a field's range or type are refused", "[wire]") {
    const auto refused = [](Message m) { return wire::decode<Message>(wire::payload(m)).error(); };
    Message m = sample::full();
    m.kind = static_cast<sample::Kind>(0);
    CHECK(refused(m) == "'kind': out of range");
    m.kind = static_cast<sample::Kind>(4);
    CHECK(refused(m) == "'kind': out of range");
    m = sample::full();
    m.count = -1;
    CHECK(refused(m) == "'count': out of range");
    m.count = 101;
    CHECK(refused(m) == "'count': out of range");
    m = sample::full();
    m.words.push_back("d");
    CHECK(refused(m) == "more than 3 words");

    // A bool is 0 or 1; a u16 what it holds; an array exactly its size.
    std::vector<std::uint8_t> p = wire::payload(sample::full());
    const std::size_t flag_at = 12;
    p[flag_at] = 2;
    CHECK(wire::decode<Message>(p).error() == "'flag': 2 does not fit");
    p = wire::payload(sample::full());
    p[flag_at + 6] = 1;  // the port's third byte
    CHECK(wire::decode<Message>(p).error() == "'port': 131071 does not fit");
    p = wire::payload(sample::full());
    const std::size_t nonce_at = flag_at + 4 + 4 + 4 + 4;
    p[nonce_at] = 3;  // a 3-byte nonce, then the rest shifted
    CHECK(wire::decode<Message>(p).error() == "'nonce': 3 bytes where 4 belong");
}

TEST_CASE("wire: a hostile count costs nothing before it fails", "[wire]") {
    wire::Writer w;
    w.u32(0xffffffffu);  // a list of 2^32 - 1 strings, none there
    const auto r = wire::decode<std::vector<std::string>>(w.out());
    REQUIRE_FALSE(r.ok());
    CHECK(r.error() == "cut short at byte 4: a 4-byte integer needs 4, 0 left");
}

TEST_CASE("wire: frames split from a stream, refusing oversized and unknown ones at the header", "[wire]") {
    wire::FrameSplitter split(1, 3, 64);
    std::vector<std::uint8_t> stream = wire::frame(1, std::string("ab"));
    const std::vector<std::uint8_t> second = wire::frame_empty(3);
    stream.insert(stream.end(), second.begin(), second.end());
    bool bad = false;
    for (std::size_t i = 0; i < stream.size(); ++i) {
        split.feed(&stream[i], 1);
        if (i + 1 < 11) CHECK_FALSE(split.next(bad));
        CHECK_FALSE(bad);
        if (i + 1 == 11) {
            const auto f = split.next(bad);
            REQUIRE(f);
            CHECK(f->type == 1);
            CHECK(wire::decode<std::string>(f->payload).value() == "ab");
        }
    }
    const auto last = split.next(bad);
    REQUIRE(last);
    CHECK((last->type == 3 && last->payload.empty()));
    wire::FrameSplitter strict(1, 3, 64);
    const std::vector<std::uint8_t> unknown = wire::frame_empty(4);
    strict.feed(unknown.data(), unknown.size());
    CHECK_FALSE(strict.next(bad));
    CHECK(bad);
    wire::FrameSplitter small(1, 3, 1);
    const std::vector<std::uint8_t> big = wire::frame(1, std::string("ab"));
    small.feed(big.data(), wire::kHeaderBytes);
    CHECK_FALSE(small.next(bad));
    CHECK(bad);
}
