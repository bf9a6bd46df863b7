#include "launcher/stdio_channel.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>

#include <catch2/catch.hpp>

#include <unistd.h>

#include <cstdlib>

#include <string>
#include <vector>

using namespace strata::launcher;
using strata::job::contact_parse;

namespace {

strata::job::Contact contact(const std::string& text) {
    auto c = contact_parse(text);
    REQUIRE(c);
    return *c;
}

}  // namespace

TEST_CASE("ssh_command: batch mode, the contact's port and user, the remote gatekeeper", "[ssh]") {
    using V = std::vector<std::string>;
    ::unsetenv("STRATA_PEER_TIMEOUT_S");  // 30 s: a probe every 10 s
    CHECK(ssh_command({"ssh"}, contact("login/ssh"), "") ==
          V{"ssh", "-o", "BatchMode=yes", "-T", "-o", "ServerAliveInterval=10", "-o", "ServerAliveCountMax=3", "--",
            "login", "exec strata-gatekeeper --stdio"});
    CHECK(ssh_command({"ssh", "-F", "cfg"}, contact("jane@login:2222/ssh+slurm"), "/opt/strata") ==
          V{"ssh", "-F", "cfg", "-o", "BatchMode=yes", "-T", "-o", "ServerAliveInterval=10", "-o",
            "ServerAliveCountMax=3", "-p", "2222", "-l", "jane", "--", "login",
            "exec '/opt/strata/bin/strata-gatekeeper' --stdio"});
    // The prefix is one word for the remote shell, whatever it holds.
    CHECK(ssh_command({"ssh"}, contact("h/ssh"), "/opt/it's here/").back() ==
          "exec '/opt/it'\\''s here/bin/strata-gatekeeper' --stdio");
}

TEST_CASE("channel_failure: ssh's own words, and what the status means", "[ssh]") {
    CHECK(channel_failure("ssh", "h", {255, 0}, "Warning: x\r\nPermission denied (publickey).\r\n", false) ==
          "ssh to h failed: Warning: x | Permission denied (publickey).");
    CHECK(channel_failure("ssh", "h", {127, 0}, "sh: 1: exec: strata-gatekeeper: not found\n", false) ==
          "no Strata at h (sh: 1: exec: strata-gatekeeper: not found): put strata-gatekeeper on the login's PATH "
          "there, or name Strata's prefix there with the subjob key 'strata'");
    CHECK(channel_failure("ssh", "h", {0, 9}, "", false) == "ssh to h was killed by signal 9 (no message)");
    CHECK(channel_failure("ssh", "h", {3, 0}, "a\nb\nc\nd\n", false) == "the gatekeeper at h ended (exit status 3): b | c | d");
    // Once the gatekeeper ran, its log lines are not the reason.
    const std::string log = "2026-12-05T04:16:18Z strata-gatekeeper: [1 ssh] subjob ACTIVE\n";
    CHECK(channel_failure("ssh", "h", {255, 0}, log, true) ==
          "lost the ssh session to h before its gatekeeper reported the subjob's end (ssh exit status 255)");
    CHECK(channel_failure("ssh", "h", {255, 0}, log + "Connection to h closed by remote host.\r\n", true) ==
          "lost the ssh session to h before its gatekeeper reported the subjob's end (ssh exit status 255: "
          "Connection to h closed by remote host.)");
    CHECK(channel_failure("ssh", "h", {0, 9}, log, true) ==
          "lost the ssh session to h before its gatekeeper reported the subjob's end (ssh killed by signal 9)");
}

TEST_CASE("StdioChannel: pipes both ways, stderr lines and the exit status", "[ssh]") {
    boost::asio::io_context io;
    int from = -1;
    int to = -1;
    std::vector<std::string> lines;
    auto c = StdioChannel::start(io, {"sh", "-c", "read x; echo \"got $x\"; echo oops >&2; echo last >&2; exit 255"},
                               from, to, [&](const std::string& l) { lines.push_back(l); });
    REQUIRE(c);
    REQUIRE(::write(to, "hi\n", 3) == 3);
    ::close(to);
    char buf[16] = {};
    std::size_t n = 0;
    for (ssize_t r; n < 7 && (r = ::read(from, buf + n, sizeof buf - n)) > 0;) n += static_cast<std::size_t>(r);
    ::close(from);
    CHECK(std::string(buf, n) == "got hi\n");
    ChannelExit how{-1, -1};
    (*c)->when_exited([&](const ChannelExit& e) { how = e; });
    io.run();
    CHECK(how.status == 255);
    CHECK(how.signal == 0);
    CHECK(lines == std::vector<std::string>{"oops", "last"});
    CHECK((*c)->stderr_tail() == "oops\nlast\n");
}

TEST_CASE("StdioChannel: a client that does not exist is named", "[ssh]") {
    boost::asio::io_context io;
    int from = -1;
    int to = -1;
    auto c = StdioChannel::start(io, {"/nonexistent/ssh"}, from, to, nullptr);
    REQUIRE_FALSE(c);
    CHECK(c.error() == "cannot run '/nonexistent/ssh': No such file or directory (install OpenSSH's client, or name "
                       "another with STRATA_SSH)");
}

TEST_CASE("StdioChannel: the destructor ends a client that does not end", "[ssh]") {
    boost::asio::io_context io;
    int from = -1;
    int to = -1;
    auto c = StdioChannel::start(io, {"sleep", "600"}, from, to, nullptr);
    REQUIRE(c);
    const pid_t pid = (*c)->pid();
    ::close(from);
    ::close(to);
    c->reset();
    CHECK(::kill(pid, 0) != 0);  // reaped: no such process
}

TEST_CASE("srun_command: one task on the node, the whole node, stdio unbuffered", "[ssh]") {
    using V = std::vector<std::string>;
    CHECK(srun_command(contact("n2/srun"), "42", "/opt/strata/bin/strata-gatekeeper") ==
          V{"srun", "--jobid=42", "--nodes=1", "--ntasks=1", "--nodelist=n2", "--overlap", "--whole", "--unbuffered",
            "--kill-on-bad-exit=1", "--quiet", "--", "/opt/strata/bin/strata-gatekeeper", "--stdio"});
    CHECK(channel_failure("srun", "n2", {1, 0}, "srun: error: Unable to create step\n", false) ==
          "srun to n2 failed (exit status 1): srun: error: Unable to create step");
    // The build tree's gatekeeper, found beside this test's own directory or not at all.
    const std::string g = gatekeeper_beside_mpirun();
    CHECK((g == "strata-gatekeeper" || g.find("/strata-gatekeeper") != std::string::npos));
}
