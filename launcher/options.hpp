// mpirun's command line: mpirun [options] program [args...]
//
// Options come first; the first word that is not an option (or everything
// after "--") is the program and its arguments, passed through untouched.
// Parsing is pure: no file is read and nothing is started, so a bad command
// line fails before anything happens. With -jobfile there is no program on
// the command line: the file names it.
#pragma once

#include "base/result.hpp"
#include "wireup/settings.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata::launcher {

struct Options {
    int np = 0;               // 0: not given (machine file total, or 1)
    std::string machinefile;  // empty: every rank on this machine (or the Slurm allocation's nodes)
    // -launcher fork|srun|ssh: how hosts other than this one are reached; empty:
    // srun inside a Slurm allocation, ssh outside.
    std::string launcher;
    bool label = false;       // -l: prefix output lines with "[rank] "
    // What the options of wireup/settings.hpp's rows set (-net, -port-range,
    // -exclude, -bind-to, -v), in the order given, each setting once (the
    // last value given wins): every process gets them in its environment.
    std::vector<std::pair<const wireup::Setting*, std::string>> settings;
    // -x NAME[=VALUE]; no value: pass mpirun's own value of NAME.
    std::vector<std::pair<std::string, std::optional<std::string>>> exports;
    bool verbose = false;  // -v -> STRATA_VERBOSE=1, and mpirun narrates
    std::string jobfile;   // -jobfile F: a YAML or RSL job description instead of -np/-machinefile/program
    bool dumprsl = false;  // -dumprsl: print the job as an RSL multi-request and exit
    std::string commfile;  // -commfile F: the communicator file every process receives
    bool gencomm = false;  // -gencomm: mpirun writes the communicator file from the job
    int startup_timeout_s = 0;  // -startup-timeout S; 0: STRATA_STARTUP_TIMEOUT_S
    bool help = false;
    std::string program;
    std::vector<std::string> args;

    // `args` excludes argv[0]. A failure is a one-line reason (without the
    // "mpirun: " prefix).
    static base::Result<Options> parse(const std::vector<std::string>& args);

    // The value an option gave `s`, "" when none did.
    std::string setting(const wireup::Setting& s) const;
};

// The --help text, made from the table of options.
std::string options_usage();

}  // namespace strata::launcher
