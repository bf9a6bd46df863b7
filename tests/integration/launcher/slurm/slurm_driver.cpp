// Runs one subjob through a SlurmAdapter and prints every event as a line,
// for slurm_test.py:
//
//   STATE <PENDING|ACTIVE|DONE|FAILED> <detail>
//   STARTED <rank> <pid>
//   START_FAILED <rank> <reason>
//   OUT <rank> <line> / ERR <rank> <line>   (one per line of output)
//   CLOSED <rank> <out|err>
//   EXITED <rank> <code|signal> <n>
//   WORKDIR <dir>                           (once the job is submitted)
//   END <idle|running|done>                 (the adapter's state at the end)
//
// Usage: slurm_driver [--count N] [--first-rank R] [--subjob S] [--dir D]
//          [--env NAME=VALUE]... [--cancel-when-started terminate|kill]
//          [--cancel-when-pending terminate|kill] [--give-up-after-s S]
//          -- program [args...]
// --give-up-after-s destroys the adapter while its job still runs (its
// destructor must scancel the job); the driver then exits with 3.
#include "adapters/slurm_adapter.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <optional>
#include <string>

using namespace strata::adapters;
using strata::job::Subjob;

namespace {

class Printer final : public ProcessEvents {
public:
    void on_started(int rank, long pid) override {
        ++started;
        std::printf("STARTED %d %ld\n", rank, pid);
    }
    void on_start_failed(int rank, const std::string& reason) override {
        std::printf("START_FAILED %d %s\n", rank, reason.c_str());
    }
    void on_output(int rank, Stream stream, std::string_view bytes) override {
        std::string& buf = partial[{rank, stream}];
        buf.append(bytes);
        std::size_t nl = 0;
        while ((nl = buf.find('\n')) != std::string::npos) {
            line(rank, stream, buf.substr(0, nl));
            buf.erase(0, nl + 1);
        }
    }
    void on_output_closed(int rank, Stream stream) override {
        std::string& buf = partial[{rank, stream}];
        if (!buf.empty()) line(rank, stream, buf);
        buf.clear();
        std::printf("CLOSED %d %s\n", rank, stream == Stream::out ? "out" : "err");
    }
    void on_exited(int rank, long, ProcessExit how) override {
        std::printf("EXITED %d %s %d\n", rank, how.signaled ? "signal" : "code", how.value);
    }
    void on_subjob_state(int, JobState state, const std::string& detail) override {
        std::printf("STATE %s %s\n", job_state_name(state), detail.c_str());
    }

    int started = 0;

private:
    void line(int rank, Stream stream, const std::string& text) {
        std::printf("%s %d %s\n", stream == Stream::out ? "OUT" : "ERR", rank, text.c_str());
    }
    std::map<std::pair<int, Stream>, std::string> partial;
};

[[noreturn]] void usage() {
    std::fprintf(stderr,
                 "usage: slurm_driver [--count N] [--first-rank R] [--subjob S] [--dir D] [--stdin F] [--stdout F] "
                 "[--stderr F] [--env NAME=VALUE]... "
                 "[--cancel-when-started terminate|kill] [--cancel-when-pending terminate|kill] "
                 "[--give-up-after-s S] -- program [args...]\n");
    std::exit(2);
}

// The command line.
struct Args {
    Subjob subjob;
    LaunchSpec spec;
    std::optional<CancelMode> cancel_mode;
    bool cancel_when_pending = false;
    int give_up_s = 0;
};

Args args_parse(int argc, char** argv) {
    Args out;
    out.subjob.count = 1;
    int i = 1;
    for (; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--") {
            ++i;
            break;
        }
        if (i + 1 >= argc) usage();
        const std::string v = argv[++i];
        if (a == "--count")
            out.subjob.count = std::atoi(v.c_str());
        else if (a == "--first-rank")
            out.subjob.first_rank = std::atoi(v.c_str());
        else if (a == "--subjob")
            out.subjob.index = std::atoi(v.c_str());
        else if (a == "--dir")
            out.spec.command.directory = v;
        else if (a == "--stdin")
            out.spec.command.stdin_file = v;
        else if (a == "--stdout")
            out.spec.command.stdout_file = v;
        else if (a == "--stderr")
            out.spec.command.stderr_file = v;
        else if (a == "--env" && v.find('=') != std::string::npos)
            out.spec.command.env.emplace_back(v.substr(0, v.find('=')), v.substr(v.find('=') + 1));
        else if ((a == "--cancel-when-started" || a == "--cancel-when-pending") && (v == "terminate" || v == "kill")) {
            out.cancel_mode = v == "kill" ? CancelMode::kill : CancelMode::terminate;
            out.cancel_when_pending = a == "--cancel-when-pending";
        } else if (a == "--give-up-after-s")
            out.give_up_s = std::atoi(v.c_str());
        else
            usage();
    }
    if (i >= argc) usage();
    out.spec.command.program = argv[i];
    for (++i; i < argc; ++i) out.spec.command.args.emplace_back(argv[i]);
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    const Args args = args_parse(argc, argv);
    const Subjob& subjob = args.subjob;
    const LaunchSpec& spec = args.spec;
    const std::optional<CancelMode>& cancel_mode = args.cancel_mode;
    const bool cancel_when_pending = args.cancel_when_pending;
    const int give_up_s = args.give_up_s;

    boost::asio::io_context io;
    Printer printer;
    bool gave_up = false;
    std::optional<SubjobState> end_state;
    {
        SlurmAdapter adapter(io, {});
        adapter.start(subjob, spec, printer);
        bool cancelled = false;
        bool workdir_printed = false;
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(give_up_s > 0 ? give_up_s : 90);
        boost::asio::steady_timer check(io);
        std::function<void()> watch = [&] {
            if (!workdir_printed && adapter.job_id() >= 0) {
                workdir_printed = true;
                std::printf("WORKDIR %s\n", adapter.work_dir().c_str());
            }
            const bool due = cancel_when_pending ? adapter.job_id() >= 0 : printer.started == subjob.count;
            if (cancel_mode && !cancelled && due) {
                cancelled = true;
                adapter.cancel(*cancel_mode);
            }
            if (adapter.state() != SubjobState::running) return io.stop();
            if (std::chrono::steady_clock::now() > deadline) {
                gave_up = true;
                return io.stop();
            }
            check.expires_after(std::chrono::milliseconds(20));
            check.async_wait([&](const boost::system::error_code& ec) {
                if (!ec) watch();
            });
        };
        watch();
        io.run();
        end_state = adapter.state();
    }
    static const char* const kNames[] = {"idle", "running", "done"};
    std::printf("END %s\n", kNames[static_cast<int>(*end_state)]);
    return gave_up ? 3 : 0;
}
