// What a gatekeeper reads of its relay's reports (gatekeeper/relay_spawn.hpp,
// report_lines): whole lines only, each bounded, a bounded read per call,
// and the end of the relay noticed. The relay runs as the user: its output is
// input to the gatekeeper, which may be root.
#include <catch2/catch.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <string>

#include "gatekeeper/relay_spawn.hpp"

using strata::gatekeeper::kReportMax;
using strata::gatekeeper::report_lines;

namespace {

struct Pipe {
    int r = -1;
    int w = -1;
    Pipe() {
        int fds[2];
        REQUIRE(::pipe2(fds, O_NONBLOCK | O_CLOEXEC) == 0);
        r = fds[0];
        w = fds[1];
    }
    ~Pipe() {
        if (r >= 0) ::close(r);
        if (w >= 0) ::close(w);
    }
    void put(const std::string& s) const { REQUIRE(::write(w, s.data(), s.size()) == static_cast<ssize_t>(s.size())); }
};

}  // namespace

TEST_CASE("relay reports: whole lines, a partial one kept, the end noticed", "[gatekeeper][relay]") {
    Pipe p;
    std::string partial;
    CHECK(report_lines(p.r, partial).empty());  // nothing yet: no block, no end
    CHECK(p.r >= 0);
    p.put("lost its link to relay 10.0.0.2:4001: timed out (2 streams reset)\nlost its");
    auto lines = report_lines(p.r, partial);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] == "lost its link to relay 10.0.0.2:4001: timed out (2 streams reset)");
    CHECK(partial == "lost its");
    p.put(" link\n");
    lines = report_lines(p.r, partial);
    REQUIRE(lines.size() == 1);
    CHECK(lines[0] == "lost its link");
    ::close(p.w);
    p.w = -1;
    CHECK(report_lines(p.r, partial).empty());
    CHECK(p.r == -1);  // closed at the relay's end
    CHECK(report_lines(p.r, partial).empty());
}

TEST_CASE("relay reports: a relay that writes endlessly gets bounded lines and bounded reads", "[gatekeeper][relay]") {
    Pipe p;
    std::string partial;
    // 60 KiB without a newline: cut into lines of at most kReportMax.
    p.put(std::string(60 * 1024, 'x'));
    std::size_t got = 0;
    for (int call = 0; call < 8; ++call) {
        for (const std::string& line : report_lines(p.r, partial)) {
            CHECK(line.size() <= kReportMax);
            ++got;
        }
        CHECK(partial.size() <= kReportMax);
    }
    CHECK(got >= 1);
    // One call reads at most 16 KiB: what it leaves waits for the next.
    p.put(std::string(32 * 1024, '\n'));
    const auto first = report_lines(p.r, partial);
    CHECK(first.size() <= 16 * 1024);
    CHECK(!report_lines(p.r, partial).empty());
}
