// The settings mpirun or a job file passes to every process, declared once.
//
// Each row names the environment variable the process reads (a knob of the
// library, base/knob.hpp), the mpirun option and the job-file key that set
// it, and the library's own judgement of a value: mpirun refuses a bad
// option value with it before anything starts, the job readers refuse a bad
// key with it, and the process refuses a bad variable with it in MPI_Init
// (what only the process can judge, such as whether an interface exists on
// its host, is left to the process), all in the same words:
// "STRATA_DATA_TLS='tls': expected off, wan or all". `mpirun --help` and `strata-info
// --settings` print the option <-> key <-> variable mapping from the table,
// as Open MPI lists its MCA parameters.
//
// The mpirun rows come first, in mpirun's help order.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace strata::wireup {

struct Setting {
    const char* variable;          // the environment variable, "STRATA_NETWORK"
    const char* flag = nullptr;    // mpirun's option that sets it, or null
    const char* value_name = nullptr;  // the option's value in the help ("IFACE|CIDR"); null: the option takes none
    const char* flag_value = nullptr;  // for an option without a value: what it sets the variable to
    const char* job_key = nullptr;     // the YAML job file's key that sets it, or null
    const char* job_value = nullptr;   // what the key sets the variable to, when not the key's own value
    // The valid values in words, for refusals: "option -net expects " + expects.
    const char* expects = nullptr;
    // The library's judgement of a value: "" when valid, else the reason
    // ("expected " + expects, or the parser's own account); null: any text.
    std::string (*fault)(std::string_view text) = nullptr;
    const char* help = "";  // the option's help text, lines after the first indented by the help
};

// Parallel TCP streams between sites: STRATA_TCP_STREAMS's largest value.
inline constexpr int kStreamsMax = 16;

// STRATA_NETWORK's value: IFACE (a Linux interface name: up to 15 of
// [A-Za-z0-9_.:-]) or an IPv4 subnet a.b.c.d/N with N from 0 to 32.
struct NetworkSpec {
    std::string interface;     // empty for a subnet
    std::uint32_t subnet = 0;  // host order, the address as written
    int bits = 0;              // the prefix length
};
std::optional<NetworkSpec> network_parse(std::string_view text);

// The rows' judgements of a value (Setting::fault).
namespace fault {
std::string network(std::string_view text);     // network_parse
std::string port_range(std::string_view text);  // base::parse_port_range
// NAME[,NAME...], names of lower-case letters; the library checks that each
// names a method it has.
std::string method_list(std::string_view text);
std::string bind_to(std::string_view text);    // wireup/binding.hpp
std::string integer(std::string_view text);    // base::parse_int
std::string emulation(std::string_view text);  // wireup/emulation.hpp, its own account
std::string streams(std::string_view text);    // 1 to kStreamsMax
std::string data_tls(std::string_view text);   // off, wan or all
}  // namespace fault

inline constexpr Setting kNetwork{
    .variable = "STRATA_NETWORK",
    .flag = "-net",
    .value_name = "IFACE|CIDR",
    .expects = "an interface name (e.g. eth0) or an IPv4 subnet in CIDR form (e.g. 10.1.0.0/16)",
    .fault = fault::network,
    .help = "network the processes use to reach each other",
};
inline constexpr Setting kPortRange{
    .variable = "STRATA_PORT_RANGE",
    .flag = "-port-range",
    .value_name = "LO:HI",
    .expects = "LO:HI with 1 <= LO <= HI <= 65535 (e.g. 50000:50100)",
    .fault = fault::port_range,
    .help = "ports the processes may listen on",
};
inline constexpr Setting kExcludeMethods{
    .variable = "STRATA_EXCLUDE_METHODS",
    .flag = "-exclude",
    .value_name = "M[,M...]",
    .expects = "method names separated by commas (e.g. shm,ofi)",
    .fault = fault::method_list,
    .help = "do not use these communication methods (shm, ofi, tcp), e.g. -exclude shm\n"
            "forces TCP between ranks on one host",
};
inline constexpr Setting kBindTo{
    .variable = "STRATA_BIND_TO",
    .flag = "-bind-to",
    .value_name = "WHAT",
    .job_key = "bind_to",
    .expects = "core, socket or none",
    .fault = fault::bind_to,
    .help = "bind each rank to a core (core), a processor package (socket) or\n"
            "nothing (none); also --bind-to. Default: a core when the ranks on a\n"
            "host fit the cores they may use, else no binding",
};
inline constexpr Setting kVerbose{
    .variable = "STRATA_VERBOSE",
    .flag = "-v",
    .flag_value = "1",
    .expects = "an integer",
    .fault = fault::integer,
    .help = "narrate the job's progress on stderr, and have every rank print\n"
            "its CPU binding and which method reaches each peer",
};
inline constexpr Setting kCommFile{
    .variable = "STRATA_COMM_FILE",
    .flag = "-commfile",
    .value_name = "F",
    .expects = "a file name",
    .help = "give every process the communicator file F (XML or YAML; README,\n"
            "\"Named communicators\"), which names communicators by processor name",
};
inline constexpr Setting kEmulation{
    .variable = "STRATA_EMULATION",
    .job_key = "network",
    .expects = "LEVEL:FIGURE=VALUE[,...][;...] (e.g. wan:latency_ms=10,bandwidth_mbit=100)",
    .fault = fault::emulation,
};
inline constexpr Setting kTcpStreams{
    .variable = "STRATA_TCP_STREAMS",
    .job_key = "network: {streams: N}",
    .expects = "1 to 16 connections per link between sites",
    .fault = fault::streams,
};
inline constexpr Setting kDataTls{
    .variable = "STRATA_DATA_TLS",
    .job_key = "security: {data: tls}",
    .job_value = "wan",
    .expects = "off, wan or all",
    .fault = fault::data_tls,
};

// Every row above, in that order.
std::span<const Setting* const> settings_all();

// The row of `variable`, or null.
const Setting* setting_find(std::string_view variable);

// Whether `text` is a valid value of `s` (true when the row judges nothing).
bool setting_valid(const Setting& s, std::string_view text);

// What is wrong with `s` set to `value`, in the words of every refusal
// (mpirun's -x, the job readers, the process's MPI_Init):
// "STRATA_DATA_TLS='tls': expected off, wan or all"; "" when valid.
std::string setting_fault(const Setting& s, std::string_view value);
// The same for VARIABLE=VALUE given directly (mpirun -x, a job file's
// environment): "" too when VARIABLE is no setting of the table or VALUE is
// empty (unset).
std::string setting_fault(std::string_view variable, std::string_view value);

// The mapping as a table: "mpirun option", "job file key", "variable"
// columns, one line per row, each starting with `indent`.
std::string settings_table(std::string_view indent);

}  // namespace strata::wireup
