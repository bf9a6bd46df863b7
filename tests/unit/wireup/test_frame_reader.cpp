#include "wireup/protocol.hpp"

#include <catch2/catch.hpp>

#include <vector>

using namespace strata::wireup;
using strata::base::wire::decode;

namespace {

std::vector<std::uint8_t> header(std::uint32_t len, std::uint8_t type) {
    return {static_cast<std::uint8_t>(len), static_cast<std::uint8_t>(len >> 8), static_cast<std::uint8_t>(len >> 16),
            static_cast<std::uint8_t>(len >> 24), type};
}

}  // namespace

TEST_CASE("FrameReader assembles frames fed one byte at a time", "[wireup]") {
    Abort a;
    a.code = 9;
    a.message = "split me";
    std::vector<std::uint8_t> stream = encode(a);
    const auto fin = encode_empty(Type::finalize);
    stream.insert(stream.end(), fin.begin(), fin.end());

    FrameReader r;
    std::vector<Frame> got;
    bool bad = false;
    for (std::uint8_t byte : stream) {
        r.feed(&byte, 1);
        while (auto f = r.next(bad)) got.push_back(*f);
        REQUIRE_FALSE(bad);
    }
    REQUIRE(got.size() == 2);
    CHECK(got[0].type == Type::abort);
    auto d = decode<Abort>(got[0].payload);
    REQUIRE(d);
    CHECK(d->message == "split me");
    CHECK(got[1].type == Type::finalize);
    CHECK(got[1].payload.empty());
    CHECK_FALSE(r.next(bad));
    CHECK_FALSE(bad);
}

TEST_CASE("FrameReader returns several frames from one feed, in order", "[wireup]") {
    std::vector<std::uint8_t> stream;
    for (int i = 0; i < 3; ++i) {
        Abort a;
        a.code = i;
        auto f = encode(a);
        stream.insert(stream.end(), f.begin(), f.end());
    }
    // Plus half a frame that must stay buffered.
    const auto tail = encode_empty(Type::finalize_done);
    stream.insert(stream.end(), tail.begin(), tail.begin() + 3);

    FrameReader r;
    r.feed(stream.data(), stream.size());
    bool bad = false;
    for (int i = 0; i < 3; ++i) {
        auto f = r.next(bad);
        REQUIRE(f);
        CHECK(decode<Abort>(f->payload)->code == i);
    }
    CHECK_FALSE(r.next(bad));
    CHECK_FALSE(bad);
    r.feed(tail.data() + 3, tail.size() - 3);
    auto f = r.next(bad);
    REQUIRE(f);
    CHECK(f->type == Type::finalize_done);
}

TEST_CASE("FrameReader refuses an oversized frame as soon as its header arrives", "[wireup]") {
    FrameReader r;
    const auto h = header(kMaxFrame + 1, static_cast<std::uint8_t>(Type::release));
    r.feed(h.data(), h.size());
    bool bad = false;
    CHECK_FALSE(r.next(bad));
    CHECK(bad);
}

TEST_CASE("FrameReader accepts a frame of exactly kMaxFrame (waits for it)", "[wireup]") {
    FrameReader r;
    const auto h = header(kMaxFrame, static_cast<std::uint8_t>(Type::release));
    r.feed(h.data(), h.size());
    bool bad = true;
    CHECK_FALSE(r.next(bad));
    CHECK_FALSE(bad);
}

TEST_CASE("FrameReader refuses unknown frame types", "[wireup]") {
    for (std::uint8_t type : {std::uint8_t{0}, std::uint8_t{10}, std::uint8_t{255}}) {
        FrameReader r;
        const auto h = header(0, type);
        r.feed(h.data(), h.size());
        bool bad = false;
        CHECK_FALSE(r.next(bad));
        CHECK(bad);
    }
}

TEST_CASE("FrameReader waits for a complete header", "[wireup]") {
    FrameReader r;
    const auto h = header(0, static_cast<std::uint8_t>(Type::finalize));
    bool bad = false;
    for (std::size_t i = 0; i < 4; ++i) {
        r.feed(&h[i], 1);
        CHECK_FALSE(r.next(bad));
        CHECK_FALSE(bad);
    }
    r.feed(&h[4], 1);
    auto f = r.next(bad);
    REQUIRE(f);
    CHECK(f->type == Type::finalize);
}
