#include "launcher/options.hpp"

#include <arpa/inet.h>

#include <cctype>
#include <cstdlib>

namespace strata::launcher {

namespace {

constexpr int kMaxProcesses = 1000000;

bool parse_positive(const std::string& text, int max, int& out) {
    if (text.empty() || text.size() > 9) return false;
    for (unsigned char c : text)
        if (!std::isdigit(c)) return false;
    const long v = std::strtol(text.c_str(), nullptr, 10);
    if (v < 1 || v > max) return false;
    out = static_cast<int>(v);
    return true;
}

bool env_name_valid(const std::string& n) {
    if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
    for (unsigned char c : n)
        if (!(std::isalnum(c) || c == '_')) return false;
    return true;
}

// IFACE, ADDRESS or ADDRESS/PREFIX.
bool network_valid(const std::string& t) {
    const std::size_t slash = t.find('/');
    const std::string addr = t.substr(0, slash);
    unsigned char buf[sizeof(in6_addr)];
    const bool v4 = ::inet_pton(AF_INET, addr.c_str(), buf) == 1;
    const bool v6 = !v4 && ::inet_pton(AF_INET6, addr.c_str(), buf) == 1;
    if (slash != std::string::npos) {
        int prefix = 0;
        const std::string p = t.substr(slash + 1);
        if (p == "0") return v4 || v6;
        return (v4 || v6) && parse_positive(p, v4 ? 32 : 128, prefix);
    }
    if (v4 || v6) return true;
    // An interface name (Linux allows up to 15 characters).
    if (t.empty() || t.size() > 15) return false;
    for (unsigned char c : t)
        if (!(std::isalnum(c) || c == '_' || c == '-' || c == '.' || c == ':')) return false;
    return true;
}

bool port_range_valid(const std::string& t) {
    const std::size_t colon = t.find(':');
    if (colon == std::string::npos) return false;
    int lo = 0;
    int hi = 0;
    return parse_positive(t.substr(0, colon), 65535, lo) && parse_positive(t.substr(colon + 1), 65535, hi) && lo <= hi;
}

// NAME[,NAME...]; the library checks that each name is a method.
bool method_list_valid(const std::string& t) {
    if (t.empty() || t.front() == ',' || t.back() == ',' || t.find(",,") != std::string::npos) return false;
    for (unsigned char c : t)
        if (!(std::islower(c) || c == ',')) return false;
    return true;
}

}  // namespace

std::optional<Options> Options::parse(const std::vector<std::string>& args, std::string& error) {
    Options o;
    std::size_t i = 0;
    auto value = [&](const std::string& opt, std::string& out) {
        if (i + 1 >= args.size()) {
            error = "option " + opt + " needs a value";
            return false;
        }
        out = args[++i];
        return true;
    };
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        std::string v;
        if (a == "--") {
            ++i;
            break;
        }
        if (a.empty() || a[0] != '-' || a == "-") break;
        if (a == "-np" || a == "-n") {
            if (!value(a, v)) return std::nullopt;
            if (!parse_positive(v, kMaxProcesses, o.np)) {
                error = "option " + a + " expects a number of processes from 1 to " + std::to_string(kMaxProcesses) +
                        ", not '" + v + "'";
                return std::nullopt;
            }
        } else if (a == "-startup-timeout") {
            if (!value(a, v)) return std::nullopt;
            if (!parse_positive(v, 86400, o.startup_timeout_s)) {
                error = "option -startup-timeout expects seconds from 1 to 86400, not '" + v + "'";
                return std::nullopt;
            }
        } else if (a == "-machinefile" || a == "-f") {
            if (!value(a, o.machinefile)) return std::nullopt;
            if (o.machinefile.empty()) {
                error = "option " + a + " expects a file name";
                return std::nullopt;
            }
        } else if (a == "-jobfile") {
            if (!value(a, o.jobfile)) return std::nullopt;
            if (o.jobfile.empty()) {
                error = "option -jobfile expects a file name";
                return std::nullopt;
            }
        } else if (a == "-dumprsl") {
            o.dumprsl = true;
        } else if (a == "-commfile") {
            if (!value(a, o.commfile)) return std::nullopt;
            if (o.commfile.empty()) {
                error = "option -commfile expects a file name";
                return std::nullopt;
            }
        } else if (a == "-gencomm") {
            o.gencomm = true;
        } else if (a == "-l") {
            o.label = true;
        } else if (a == "-net") {
            if (!value(a, o.network)) return std::nullopt;
            if (!network_valid(o.network)) {
                error =
                    "option -net expects an interface name (e.g. eth0) or a network in CIDR form (e.g. "
                    "10.1.0.0/16), not '" +
                    o.network + "'";
                return std::nullopt;
            }
        } else if (a == "-port-range") {
            if (!value(a, o.port_range)) return std::nullopt;
            if (!port_range_valid(o.port_range)) {
                error = "option -port-range expects LO:HI with 1 <= LO <= HI <= 65535, not '" + o.port_range + "'";
                return std::nullopt;
            }
        } else if (a == "-exclude") {
            if (!value(a, o.exclude)) return std::nullopt;
            if (!method_list_valid(o.exclude)) {
                error = "option -exclude expects method names separated by commas (e.g. shm,ofi), not '" +
                        o.exclude + "'";
                return std::nullopt;
            }
        } else if (a == "-x") {
            if (!value(a, v)) return std::nullopt;
            const std::size_t eq = v.find('=');
            const std::string name = v.substr(0, eq);
            if (!env_name_valid(name)) {
                error = "option -x expects NAME or NAME=VALUE with NAME an environment variable name, not '" + v + "'";
                return std::nullopt;
            }
            if (eq == std::string::npos)
                o.exports.emplace_back(name, std::nullopt);
            else
                o.exports.emplace_back(name, v.substr(eq + 1));
        } else if (a == "-v") {
            o.verbose = true;
        } else if (a == "-h" || a == "--help" || a == "-help") {
            o.help = true;
            return o;
        } else {
            error = "unknown option '" + a + "'";
            return std::nullopt;
        }
    }
    if (o.gencomm && !o.commfile.empty()) {
        error = "options -commfile and -gencomm both give the communicator file; choose one";
        return std::nullopt;
    }
    if (!o.jobfile.empty()) {
        if (o.np > 0 || !o.machinefile.empty()) {
            error = "option -jobfile describes the whole job; do not combine it with -np or -machinefile";
            return std::nullopt;
        }
        if (i < args.size()) {
            error = "option -jobfile names the program; unexpected '" + args[i] + "' on the command line";
            return std::nullopt;
        }
        return o;
    }
    if (i >= args.size()) {
        error = "no program to run";
        return std::nullopt;
    }
    o.program = args[i];
    o.args.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
    return o;
}

std::string options_usage() {
    return "usage: mpirun [options] program [args...]   (mpiexec is the same program)\n"
           "\n"
           "  -np N, -n N          start N processes (default: the machine file's slot count, or 1)\n"
           "  -machinefile F, -f F place ranks on the hosts listed in F ('host', 'host N' or 'host:N'\n"
           "                       per line, '#' comments, or a contact 'host[:port]/fork N'); slots are filled\n"
           "                       in order, cycling\n"
           "  -l                   prefix every output line with '[rank] '\n"
           "  -net IFACE|CIDR      network the processes use to reach each other (STRATA_NETWORK)\n"
           "  -port-range LO:HI    ports the processes may listen on (STRATA_PORT_RANGE)\n"
           "  -exclude M[,M...]    do not use these communication methods (shm, ofi, tcp), e.g. -exclude shm\n"
           "                       forces TCP between ranks on one host (STRATA_EXCLUDE_METHODS)\n"
           "  -x NAME[=VALUE]      pass environment variable NAME (with VALUE, or mpirun's value)\n"
           "  -startup-timeout S   end the job if a subjob's processes have not all called MPI_Init S\n"
           "                       seconds after they started (default 300, STRATA_STARTUP_TIMEOUT_S)\n"
           "  -v                   narrate the job's progress on stderr, and have every rank print\n"
           "                       which method reaches each peer (STRATA_VERBOSE=1)\n"
           "  -jobfile F           run the job described in F, a YAML job file or a Globus RSL request\n"
           "                       (see README, \"Job descriptions\"); instead of -np, -machinefile and program\n"
           "  -dumprsl             print the job (from -np/-machinefile/program or -jobfile) as an RSL\n"
           "                       multi-request and exit without starting anything\n"
           "  -commfile F          give every process the communicator file F (XML or YAML), which names\n"
           "                       communicators by processor name (see README, \"Named communicators\")\n"
           "  -gencomm             give every process a communicator file written from the job: a comm\n"
           "                       per site and per machine, an intercomm between every two sites\n"
           "  -h, --help           show this help\n"
           "  --                   end of options: the next word is the program\n"
           "\n"
           "Exit status: 0 when every process called MPI_Finalize and exited 0; otherwise the failing\n"
           "rank's exit code (128+N if killed by signal N), the MPI_Abort code, 127 if a program could\n"
           "not be started, 2 for a bad command line or machine file, 1 for a malformed job file, a subjob\n"
           "that failed at its site, or a startup timeout.\n";
}

}  // namespace strata::launcher
