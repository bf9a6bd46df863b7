#include "launcher/output_forwarder.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace strata::launcher;
namespace adapters = strata::adapters;
namespace job = strata::job;

namespace {

struct Capture {
    std::string out;
    std::string err;
    std::vector<std::string> writes;  // each sink call, to check atomicity
    bool fail = false;

    OutputForwarder::Sink sink() {
        return [this](adapters::Stream s, std::string_view bytes) {
            if (fail) return false;
            (s == adapters::Stream::out ? out : err).append(bytes);
            writes.emplace_back(bytes);
            return true;
        };
    }
};

}  // namespace

TEST_CASE("forwarder: lines split across chunks come out whole", "[output]") {
    Capture c;
    OutputForwarder f(false, c.sink());
    CHECK(f.write(0, adapters::Stream::out, "hel"));
    CHECK(f.write(1, adapters::Stream::out, "other rank\nand a par"));
    CHECK(f.write(0, adapters::Stream::out, "lo\nwor"));
    CHECK(f.write(0, adapters::Stream::out, "ld\n"));
    CHECK(f.write(1, adapters::Stream::out, "tial\n"));
    CHECK(c.out == "other rank\nhello\nworld\nand a partial\n");
    for (const std::string& w : c.writes) CHECK(w.back() == '\n');
}

TEST_CASE("forwarder: labels prefix every line, per stream", "[output]") {
    Capture c;
    OutputForwarder f(true, c.sink());
    f.write(3, adapters::Stream::out, "a\nb\n\nc");
    f.write(12, adapters::Stream::err, "e1\n");
    f.write(3, adapters::Stream::out, "d\n");
    CHECK(c.out == "[3] a\n[3] b\n[3] \n[3] cd\n");
    CHECK(c.err == "[12] e1\n");
}

TEST_CASE("forwarder: an unfinished last line is flushed with a newline at close", "[output]") {
    Capture c;
    OutputForwarder f(true, c.sink());
    f.write(0, adapters::Stream::out, "done\nno newline");
    CHECK(c.out == "[0] done\n");
    f.close(0, adapters::Stream::out);
    CHECK(c.out == "[0] done\n[0] no newline\n");
    // Closing an empty or unknown stream writes nothing.
    f.close(0, adapters::Stream::err);
    f.close(5, adapters::Stream::out);
    CHECK(c.err.empty());
    CHECK(c.out == "[0] done\n[0] no newline\n");
}

TEST_CASE("forwarder: close_all flushes everything open", "[output]") {
    Capture c;
    OutputForwarder f(false, c.sink());
    f.write(0, adapters::Stream::out, "x");
    f.write(1, adapters::Stream::err, "y");
    f.close_all();
    CHECK(c.out == "x\n");
    CHECK(c.err == "y\n");
}

TEST_CASE("forwarder: a very long line is written in pieces, labelled once", "[output]") {
    Capture c;
    OutputForwarder f(true, c.sink());
    const std::string big(OutputForwarder::kMaxLine, 'x');
    f.write(2, adapters::Stream::out, big);
    CHECK(c.out == "[2] " + big);
    f.write(2, adapters::Stream::out, "yz\nnext\n");
    CHECK(c.out == "[2] " + big + "yz\n[2] next\n");
}

TEST_CASE("forwarder: a failing sink is reported", "[output]") {
    Capture c;
    OutputForwarder f(false, c.sink());
    c.fail = true;
    CHECK_FALSE(f.write(0, adapters::Stream::out, "line\n"));
    CHECK(f.write(0, adapters::Stream::out, "partial only"));  // nothing to write yet
    CHECK_FALSE(f.close(0, adapters::Stream::out));
}
