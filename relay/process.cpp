#include "relay/process.hpp"

#include <arpa/inet.h>
#include <signal.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "base/numbers.hpp"
#include "base/unique_fd.hpp"
#include "relay/relay.hpp"

namespace strata::relay {

namespace {

const char* const kUsage =
    "usage: strata-gatekeeper --relay [--listen ADDR] [--port-range LOW:HIGH] [--wireup ADDR:PORT]\n"
    "                                 [--hub ADDR:PORT --advertise ADDR]\n"
    "  --listen ADDR          the IPv4 address to listen on (default: every address)\n"
    "  --port-range LOW:HIGH  the ports it may listen on (default: any)\n"
    "  --wireup ADDR:PORT     mpirun's wire-up listener, where the site's ranks' control\n"
    "                         connections go (default: none, they are refused)\n"
    "  --hub ADDR:PORT        mpirun's hub, through which links go that cannot be dialled\n"
    "                         directly (default: none, such links fail)\n"
    "  --advertise ADDR       this relay's address as its ranks know it (needed with --hub)\n"
    "The job key comes from the environment, where the gatekeeper puts it (STRATA_JOB_KEY).\n"
    "Prints the port on standard output, then serves until standard input reads EOF or\n"
    "SIGTERM, SIGINT or SIGHUP; later lines on standard output report what the job cannot\n"
    "survive (a link to another relay lost while streams were on it).\n";

std::optional<std::uint32_t> address_parse(const std::string& text) {
    in_addr a{};
    if (::inet_pton(AF_INET, text.c_str(), &a) != 1) return std::nullopt;
    return ntohl(a.s_addr);
}

// "LOW:HIGH" with 0 < LOW <= HIGH < 65536, or "0".
bool range_parse(const std::string& text, Options& o) {
    if (text == "0") return true;
    const std::optional<std::pair<int, int>> range = base::parse_port_range(text);
    if (!range) return false;
    o.port_low = range->first;
    o.port_high = range->second;
    return true;
}

std::optional<Options> refused(const std::string& why) {
    std::fprintf(stderr, "strata-relay: %s\n%s", why.c_str(), kUsage);
    return std::nullopt;
}

// The options from the command line, or nullopt after printing why not.
std::optional<Options> options_parse(const std::vector<std::string>& args) {
    Options o;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        const bool has_value = i + 1 < args.size();
        if (a == "--relay") continue;
        if (a == "--listen" && has_value) {
            const auto address = address_parse(args[++i]);
            if (!address) return refused("--listen " + args[i] + ": expected an IPv4 address");
            o.listen_address = *address;
        } else if (a == "--wireup" && has_value) {
            o.wireup = endpoint_parse(args[++i]);
            if (!o.wireup) return refused("--wireup " + args[i] + ": expected an IPv4 address and port, a.b.c.d:port");
        } else if (a == "--hub" && has_value) {
            o.hub = endpoint_parse(args[++i]);
            if (!o.hub) return refused("--hub " + args[i] + ": expected an IPv4 address and port, a.b.c.d:port");
        } else if (a == "--advertise" && has_value) {
            const auto address = address_parse(args[++i]);
            if (!address) return refused("--advertise " + args[i] + ": expected an IPv4 address");
            o.advertise = *address;
        } else if (a == "--port-range" && has_value) {
            if (!range_parse(args[++i], o))
                return refused("--port-range " + args[i] + ": expected LOW:HIGH, 0 < LOW <= HIGH < 65536");
        } else {
            return refused("unexpected argument '" + a + "'");
        }
    }
    if (o.hub && o.advertise == 0) return refused("--hub needs --advertise: the hub finds a relay by its address");
    return o;
}

// SIGTERM, SIGINT and SIGHUP, blocked, as a descriptor the relay waits on.
base::UniqueFd signals_open() {
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    if (sigprocmask(SIG_BLOCK, &set, nullptr) != 0) return base::UniqueFd();
    return base::UniqueFd(signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC));
}

// The port, as one line on standard output; what the relay reports comes
// after it, a line each (Options::report), for its gatekeeper.
bool port_announce(int port) { return std::printf("%d\n", port) >= 0 && std::fflush(stdout) == 0; }

void report_write(const std::string& line) {
    const std::string whole = line + "\n";
    // A gatekeeper that is gone reads nothing: the lifeline stops the relay.
    [[maybe_unused]] const ssize_t n = ::write(1, whole.data(), whole.size());
}

}  // namespace

int relay_process_main(int argc, char** argv, const char* key_variable) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (std::find(args.begin(), args.end(), "--help") != args.end()) {
        std::fputs(kUsage, stdout);
        return 0;
    }
    std::optional<Options> options = options_parse(args);
    if (!options) return 2;
    const char* key = std::getenv(key_variable);
    if (key == nullptr || *key == '\0') {
        std::fprintf(stderr, "strata-relay: %s is not set: the relay needs the job's key to prove every connection; "
                             "its gatekeeper sets it\n", key_variable);
        return 2;
    }
    options->job_key = key;
    ::signal(SIGPIPE, SIG_IGN);
    const base::UniqueFd signals = signals_open();
    if (!signals) {
        std::perror("strata-relay: cannot wait for signals");
        return 1;
    }
    options->stop_fd = signals.get();
    options->lifeline_fd = 0;
    options->report = report_write;
    base::Result<std::unique_ptr<Relay>> relay = Relay::open(std::move(*options));
    if (!relay) {
        std::fprintf(stderr, "strata-relay: %s\n", relay.error().c_str());
        return 1;
    }
    std::fprintf(stderr, "strata-relay: listening on port %d\n", (*relay)->port());
    if (!port_announce((*relay)->port())) {
        std::perror("strata-relay: cannot write the port on standard output");
        return 1;
    }
    if (base::Status ran = (*relay)->run(); !ran) {
        std::fprintf(stderr, "strata-relay: %s\n", ran.error().c_str());
        return 1;
    }
    return 0;
}

}  // namespace strata::relay
