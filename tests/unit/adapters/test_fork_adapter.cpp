#include "adapters/fork_adapter.hpp"

#include <boost/asio/post.hpp>
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

using namespace strata::adapters;
using namespace strata::job;

namespace {

struct Recorder : ProcessEvents {
    std::vector<long> started;
    int exits = 0;
    int other = 0;
    void on_started(int, long pid) override { started.push_back(pid); }
    void on_start_failed(int, const std::string&) override { ++other; }
    void on_output(int, Stream, std::string_view) override { ++other; }
    void on_output_closed(int, Stream) override { ++other; }
    void on_exited(int, long, ProcessExit) override { ++exits; }
    void on_subjob_state(int, JobState, const std::string&) override { ++other; }
};

// A gatekeeper destroys a subjob's adapter (from a posted handler, once the
// subjob is done) while its io_context serves other subjobs. A completion
// already queued then (here a SIGCHLD from another child of this process)
// still runs, with success: it must not touch the dead adapter.
void destroy_while_queued() {
    boost::asio::io_context io;
    std::unique_ptr<ForkAdapter> adapter = std::make_unique<ForkAdapter>(io);
    pid_t other = -1;
    struct Ending final : Recorder {
        std::function<void()> at_done;
        void on_subjob_state(int, JobState state, const std::string&) override {
            if (state == JobState::done) at_done();
        }
    } events;
    events.at_done = [&] {
        // Another child exits: its SIGCHLD may reach the reactor before the
        // posted destruction runs.
        other = ::fork();
        if (other == 0) ::_exit(0);
        siginfo_t info{};
        ::waitid(P_PID, static_cast<id_t>(other), &info, WEXITED | WNOWAIT);
        boost::asio::post(io, [&] { adapter.reset(); });
    };
    Subjob subjob;
    subjob.count = 2;
    LaunchSpec spec;
    spec.command.program = "/bin/true";
    adapter->start(subjob, spec, events);
    REQUIRE(events.started.size() == 2);
    io.run_for(std::chrono::seconds(5));
    CHECK_FALSE(adapter);
    CHECK(events.exits == 2);
    REQUIRE(other > 0);
    int status = 0;
    CHECK(::waitpid(other, &status, 0) == other);
}

}  // namespace

TEST_CASE("fork adapter: completions queued when it is destroyed find it gone", "[fork]") {
    // Whether the SIGCHLD completion is queued before the destruction runs
    // depends on where the reactor's turn falls; many rounds make it certain
    // that some do.
    for (int round = 0; round < 100; ++round) {
        INFO("round " << round);
        destroy_while_queued();
    }
}
