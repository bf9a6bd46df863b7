// What a subjob's processes run. One value travels from the job file (or
// mpirun's command line) through the plan and the gatekeeper protocol to the
// adapter that starts the processes, copied whole at every hop; each hop adds
// to it (the gatekeeper a login's variables, mpirun the job's settings) but
// never spells its fields out again.
#pragma once

#include "base/wire.hpp"

#include <initializer_list>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace strata::job {

using Environment = std::vector<std::pair<std::string, std::string>>;  // NAME, value; later entries win

struct Command {
    std::string program;            // as written: a path, or a name the starting side's PATH finds
    std::vector<std::string> args;  // argv[1..]
    Environment env;                // set on top of the starting side's environment, in order
    std::string directory;          // where the processes start; empty: the starting side's default
    // Files at the starting side (a relative name from `directory`) for every
    // process's standard input, output and error instead of mpirun's (RSL's
    // stdin, stdout, stderr): output is appended to a file the subjob's first
    // process empties, input read from its start by each process. Empty:
    // mpirun's (input to rank 0 only, output forwarded).
    std::string stdin_file{};
    std::string stdout_file{};
    std::string stderr_file{};

    bool operator==(const Command&) const = default;
};
// As the gatekeeper protocol carries it (base/wire.hpp).
constexpr auto wire_fields(std::type_identity<Command>) {
    namespace w = base::wire;
    return std::tuple{w::field("program", &Command::program),         w::field("args", &Command::args),
                      w::field("env", &Command::env),                 w::field("directory", &Command::directory),
                      w::field("stdin_file", &Command::stdin_file),   w::field("stdout_file", &Command::stdout_file),
                      w::field("stderr_file", &Command::stderr_file)};
}
// A command with a program, and no NUL in the names of its files.
inline std::string wire_check(const Command& c) {
    for (const std::string* f : {&c.stdin_file, &c.stdout_file, &c.stderr_file})
        if (f->find('\0') != std::string::npos) return "a file name with a NUL byte";
    return c.program.empty() ? "no program" : "";
}

// What a batch scheduler is asked for besides the command: RSL's queue,
// project, maxWallTime, hostCount and maxMemory (or minMemory) (YAML: queue,
// project, max_wall_time, host_count, max_memory, min_memory). It travels
// beside the Command; the slurm adapter makes it sbatch's --partition,
// --account, --time, --nodes and --mem-per-cpu, the fork adapter ends
// processes at the wall time (a fork subjob runs on one host, and memory is
// the slurm adapter's alone).
struct Batch {
    std::string queue;
    std::string project;
    int max_wall_time_min = 0;  // 0: no limit of the job's own
    int host_count = 0;         // nodes to spread the processes over; 0: the scheduler's choice
    int memory_mb = 0;          // per process: maxMemory, else minMemory; 0: the scheduler's default

    bool operator==(const Batch&) const = default;
};

// The minutes RSL's maxWallTime and YAML's max_wall_time give: 1 to 525600 (a year).
inline constexpr int kMaxWallTimeMin = 525600;
// The megabytes per process RSL's maxMemory/minMemory give: 1 to 2^30 (a petabyte).
inline constexpr int kMaxMemoryMb = 1 << 30;
// As the gatekeeper protocol carries it (base/wire.hpp).
constexpr auto wire_fields(std::type_identity<Batch>) {
    namespace w = base::wire;
    return std::tuple{w::field("queue", &Batch::queue), w::field("project", &Batch::project),
                      w::within("max_wall_time_min", &Batch::max_wall_time_min, 0, kMaxWallTimeMin),
                      w::within("host_count", &Batch::host_count, 0, std::numeric_limits<int>::max()),
                      w::within("memory_mb", &Batch::memory_mb, 0, kMaxMemoryMb)};
}

}  // namespace strata::job
