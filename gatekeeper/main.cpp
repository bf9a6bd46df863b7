// strata-gatekeeper -c CONFIG [--port-file FILE]
// strata-gatekeeper --stdio
// strata-gatekeeper --relay [--listen ADDR] [--port-range LOW:HIGH] [--wireup ADDR:PORT]
//
// Runs a site's gatekeeper in the foreground until SIGTERM or SIGINT: then
// every connected mpirun hears its subjob FAILED ("site shutting down"), every
// subjob is killed, and it exits once the connections are closed. SIGHUP
// re-reads CONFIG, the grid-mapfile and the trusted-CA directory for new
// connections (Gatekeeper::reload); running subjobs are not touched, and a
// file that does not load leaves the previous settings in place. The log goes
// to standard error, a line per event, each with the time and the
// connection's peer and subject.
//
// With --stdio it is a user-level gatekeeper that mpirun started over ssh:
// it serves that one session on its stdin and stdout (Gatekeeper::serve_stdio)
// and exits when it is over; SIGTERM, SIGINT or SIGHUP (sshd's hangup) ends
// the subjob first. Its log goes to standard error, which ssh carries back
// to mpirun. Nothing else may reach standard output: the protocol moves to
// descriptors of its own, and standard output becomes standard error.
//
// With --relay it is a private site's relay instead (relay/process.hpp).
#include "gatekeeper/gatekeeper.hpp"

#include <boost/asio/signal_set.hpp>

#include "gram/gram.hpp"
#include "relay/process.hpp"
#include "wireup/environment.hpp"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace {

const char* const kUsage =
    "usage: strata-gatekeeper -c CONFIG [--port-file FILE]\n"
    "       strata-gatekeeper --stdio\n"
    "       strata-gatekeeper --relay [--listen ADDR] [--port-range LOW:HIGH] [--wireup ADDR:PORT]\n"
    "  -c, --config FILE   the gatekeeper's YAML configuration (see README, \"Run across sites\")\n"
    "  --port-file FILE    write the port it listens on to FILE once it listens\n"
    "  --stdio             serve the one mpirun on stdin and stdout (mpirun starts it so over ssh)\n"
    "  --relay             run the site's relay instead (docs/RELAYS.md; --relay --help)\n"
    "  --version           print the version and exit\n"
    "SIGHUP re-reads CONFIG, the grid-mapfile and the trusted-CA directory for new connections;\n"
    "SIGTERM or SIGINT ends every subjob (mpirun hears \"site shutting down\") and stops.\n";

void log_line(const std::string& line) {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    ::gmtime_r(&now, &tm);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
    std::fprintf(stderr, "%s strata-gatekeeper: %s\n", stamp, line.c_str());
    std::fflush(stderr);
}

// --stdio: the session's descriptors, then the ssh session's one subjob until it ends.
int serve_stdio() {
    using namespace strata::gatekeeper;
    const int in = ::fcntl(0, F_DUPFD_CLOEXEC, 3);
    const int out = ::fcntl(1, F_DUPFD_CLOEXEC, 3);
    const int null = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (in < 0 || out < 0 || null < 0 || ::dup2(null, 0) < 0 || ::dup2(2, 1) < 0) {
        std::fprintf(stderr, "strata-gatekeeper: cannot set up the session's descriptors: %s\n", std::strerror(errno));
        return 1;
    }
    ::close(null);
    ::signal(SIGPIPE, SIG_IGN);
    boost::asio::io_context io;
    boost::asio::signal_set signals(io, SIGTERM, SIGINT, SIGHUP);
    Gatekeeper gk(io, Config::for_login(), GridMap{}, log_line);
    bool over = false;
    auto ended = [&] {
        over = true;
        boost::system::error_code ignored;
        signals.cancel(ignored);
    };
    if (strata::base::Status s = gk.serve_stdio(in, out, ended); !s) {
        std::fprintf(stderr, "strata-gatekeeper: %s\n", s.error().c_str());
        return 1;
    }
    signals.async_wait([&](const boost::system::error_code& ec, int sig) {
        if (ec || over) return;
        log_line("signal " + std::to_string(sig) + ": ending the subjob");
        gk.shutdown(ended);
    });
    io.run();
    return 0;
}

// -c CONFIG: the site's gatekeeper.
int gatekeeper_main(int argc, char** argv) {
    using namespace strata::gatekeeper;
    std::string config_path;
    std::string port_file;
    bool stdio = false;
    const std::vector<std::string> args(argv + 1, argv + argc);
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if ((a == "-c" || a == "--config" || a == "--port-file") && i + 1 < args.size()) {
            (a == "--port-file" ? port_file : config_path) = args[++i];
        } else if (a == "--stdio") {
            stdio = true;
        } else if (a == "--version") {
            std::printf("strata-gatekeeper (Strata) %s\n", strata::gram::version());
            return 0;
        } else if (a == "-h" || a == "--help") {
            std::fputs(kUsage, stdout);
            return 0;
        } else {
            std::fprintf(stderr, "strata-gatekeeper: unexpected argument '%s'\n%s", a.c_str(), kUsage);
            return 2;
        }
    }
    if (stdio && (!config_path.empty() || !port_file.empty())) {
        std::fprintf(stderr, "strata-gatekeeper: --stdio takes no configuration and no port file\n%s", kUsage);
        return 2;
    }
    if (stdio) return serve_stdio();
    if (config_path.empty()) {
        std::fprintf(stderr, "strata-gatekeeper: no configuration file (-c CONFIG)\n%s", kUsage);
        return 2;
    }
    strata::base::Result<Config> config = Config::load(config_path);
    if (!config) {
        std::fprintf(stderr, "strata-gatekeeper: %s\n", config.error().c_str());
        return 1;
    }
    strata::base::Result<GridMap> gridmap = GridMap::load(config->gridmap);
    if (!gridmap) {
        std::fprintf(stderr, "strata-gatekeeper: %s\n", gridmap.error().c_str());
        return 1;
    }
    // A vanished mpirun must not kill the gatekeeper with SIGPIPE.
    ::signal(SIGPIPE, SIG_IGN);
    boost::asio::io_context io;
    // Caught before the port file says we are up: a SIGHUP sent as soon as it
    // appears must reload, not kill.
    boost::asio::signal_set signals(io, SIGTERM, SIGINT, SIGHUP);
    Gatekeeper gk(io, std::move(*config), std::move(*gridmap), log_line);
    if (strata::base::Status opened = gk.open(); !opened) {
        std::fprintf(stderr, "strata-gatekeeper: %s\n", opened.error().c_str());
        return 1;
    }
    auto summary = [&gk] {
        std::string text = std::to_string(gk.gridmap().size()) + " grid-mapfile entries, adapters:";
        for (const auto& a : gk.config().adapters) text += " " + a;
        return text;
    };
    log_line("listening on port " + std::to_string(gk.port()) + " (" + summary() + ")");
    if (!port_file.empty()) {
        const std::string tmp = port_file + ".tmp";
        std::ofstream(tmp) << gk.port() << "\n";
        if (std::rename(tmp.c_str(), port_file.c_str()) != 0) {
            std::fprintf(stderr, "strata-gatekeeper: cannot write %s\n", port_file.c_str());
            return 1;
        }
    }
    // Waits for signals until every session has ended after a stop (then the
    // wait is cancelled and io.run() returns).
    bool stopping = false;
    std::function<void()> await_signal = [&] {
        signals.async_wait([&](const boost::system::error_code& ec, int sig) {
            if (ec) return;
            const std::string which = "signal " + std::to_string(sig) + ": ";
            if (stopping) {
                log_line(which + "already stopping; waiting for the connections to close");
            } else if (sig == SIGHUP) {
                if (strata::base::Status reloaded = gk.reload(config_path))
                    log_line(which + "reloaded: " + summary());
                else
                    log_line(which + "reload failed: " + reloaded.error() + "; keeping the previous configuration");
            } else {
                stopping = true;
                log_line(which + "stopping; telling every mpirun and killing every subjob");
                gk.shutdown([&signals] {
                    boost::system::error_code ignored;
                    signals.cancel(ignored);
                });
            }
            await_signal();
        });
    };
    await_signal();
    io.run();
    log_line("stopped");
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (std::find(args.begin(), args.end(), "--relay") != args.end())
        return strata::relay::relay_process_main(argc, argv, strata::wireup::env::kJobKey);
    return gatekeeper_main(argc, argv);
}
