// mpirun's options are one table (kOptions below): each row gives an
// option's spellings, the kind of value it takes, what it expects when it
// refuses a value, and its lines of the --help text, which is made from the
// table.
//
// Boost.Program_options does not fit MPICH's command line: it does not stop
// at the program's first word (in `mpirun -np 2 prog -v` it takes -v for
// mpirun), a single-dash long option (allow_long_disguise) comes only with
// its `--np` spelling, which mpirun refuses, and it words its own refusals
// ("the required argument for option '--np' is missing") where mpirun's
// messages are fixed.
#include "launcher/options.hpp"

#include "base/numbers.hpp"
#include "job/job_request.hpp"

#include <algorithm>
#include <array>
#include <string_view>

namespace strata::launcher {

namespace {

constexpr int kMaxProcesses = 1000000;  // the -np row below says it in words

bool parse_positive(const std::string& text, int max, int& out) {
    const base::ParsedInt<int> v = base::parse_int<int>(text, 1, max);
    if (v) out = *v;
    return v.ok();
}

enum class Kind {
    flag,   // no value
    value,  // the next word is its value
    help,   // show the help; the rest of the line is not read
    end,    // end of options: the next word is the program
};

// A row either says everything itself or names the setting (wireup/settings.hpp)
// the option sets, which gives its value name, what it expects, the check
// of its value and its help; such a row stores the setting for the
// processes' environment unless it has a `set` of its own.
struct Row {
    std::array<const char*, 2> spellings;  // as the help lists them (the second may be null)
    Kind kind = Kind::flag;
    const char* value_name = nullptr;  // the value in the help ("N"), for Kind::value
    // Stores a flag, or checks a value and stores it; false refuses the value.
    bool (*set)(const std::string& value, Options& o) = nullptr;
    // A refused value: "option SPELLING expects " + expects, then ", not 'VALUE'" if quote_value.
    const char* expects = nullptr;
    bool quote_value = true;
    const char* help = "";        // the help's text; its further lines are indented by options_usage
    const char* alias = nullptr;  // one more spelling the help does not list
    const wireup::Setting* setting = nullptr;
};

Kind kind_of(const Row& row) {
    if (row.setting == nullptr) return row.kind;
    return row.setting->value_name != nullptr ? Kind::value : Kind::flag;
}
const char* value_name_of(const Row& row) { return row.setting != nullptr ? row.setting->value_name : row.value_name; }
const char* expects_of(const Row& row) { return row.setting != nullptr ? row.setting->expects : row.expects; }

// The help's text; a setting's ends with its variable.
std::string help_of(const Row& row) {
    if (row.setting == nullptr) return row.help;
    std::string text = row.setting->help;
    text.append(" (").append(row.setting->variable);
    if (row.setting->flag_value != nullptr) text.append("=").append(row.setting->flag_value);
    return text + ")";
}

void setting_store(Options& o, const wireup::Setting& s, std::string value) {
    std::erase_if(o.settings, [&](const auto& entry) { return entry.first == &s; });
    o.settings.emplace_back(&s, std::move(value));
}

// Checks and stores one option's value (a flag's is empty); false refuses it.
bool row_apply(const Row& row, const std::string& value, Options& o) {
    const wireup::Setting* s = row.setting;
    if (s != nullptr && s->value_name != nullptr && !wireup::setting_valid(*s, value)) return false;
    if (row.set != nullptr) return row.set(value, o);
    setting_store(o, *s, s->value_name != nullptr ? value : s->flag_value);
    return true;
}

bool file_name_set(const std::string& v, std::string& out) {
    out = v;
    return !v.empty();
}

bool exports_add(const std::string& v, Options& o) {
    const std::size_t eq = v.find('=');
    const std::string name = v.substr(0, eq);
    if (!job::env_name_valid(name)) return false;
    if (eq == std::string::npos)
        o.exports.emplace_back(name, std::nullopt);
    else
        o.exports.emplace_back(name, v.substr(eq + 1));
    return true;
}

// In the order of the help.
const Row kOptions[] = {
    {.spellings = {"-np", "-n"},
     .kind = Kind::value,
     .value_name = "N",
     .set = [](const std::string& v, Options& o) { return parse_positive(v, kMaxProcesses, o.np); },
     .expects = "a number of processes from 1 to 1000000",
     .help = "start N processes (default: the machine file's slot count, the Slurm\n"
             "allocation's task count, or 1)"},
    {.spellings = {"-machinefile", "-f"},
     .kind = Kind::value,
     .value_name = "F",
     .set = [](const std::string& v, Options& o) { return file_name_set(v, o.machinefile); },
     .expects = "a file name",
     .quote_value = false,
     .help = "place ranks on the hosts listed in F ('host', 'host N' or 'host:N'\n"
             "per line, '#' comments, or a contact 'host[:port]/fork N'); slots are filled\n"
             "in order, cycling; hosts other than this one are started with -launcher"},
    {.spellings = {"-launcher", nullptr},
     .kind = Kind::value,
     .value_name = "HOW",
     .set =
         [](const std::string& v, Options& o) {
             o.launcher = v;
             return v == "fork" || v == "srun" || v == "ssh";
         },
     .expects = "fork, srun or ssh",
     .help = "how ranks reach other hosts: srun (the default inside a Slurm allocation,\n"
             "where without -machinefile every node of it gets its tasks), ssh (the\n"
             "default elsewhere, for a machine file's hosts) or fork (this machine only)"},
    {.spellings = {"-l", nullptr},
     .set = [](const std::string&, Options& o) { return o.label = true; },
     .help = "prefix every output line with '[rank] '"},
    {.spellings = {"-net", nullptr}, .setting = &wireup::kNetwork},
    {.spellings = {"-port-range", nullptr}, .setting = &wireup::kPortRange},
    {.spellings = {"-exclude", nullptr}, .setting = &wireup::kExcludeMethods},
    {.spellings = {"-bind-to", nullptr}, .alias = "--bind-to", .setting = &wireup::kBindTo},
    {.spellings = {"-x", nullptr},
     .kind = Kind::value,
     .value_name = "NAME[=VALUE]",
     .set = exports_add,
     .expects = "NAME or NAME=VALUE with NAME an environment variable name",
     .help = "pass environment variable NAME (with VALUE, or mpirun's value)"},
    {.spellings = {"-startup-timeout", nullptr},
     .kind = Kind::value,
     .value_name = "S",
     .set = [](const std::string& v, Options& o) { return parse_positive(v, 86400, o.startup_timeout_s); },
     .expects = "seconds from 1 to 86400",
     .help = "end the job if a subjob's processes have not all called MPI_Init S\n"
             "seconds after they started (default 300, STRATA_STARTUP_TIMEOUT_S)"},
    {.spellings = {"-v", nullptr},
     .set =
         [](const std::string&, Options& o) {
             setting_store(o, wireup::kVerbose, wireup::kVerbose.flag_value);
             return o.verbose = true;
         },
     .setting = &wireup::kVerbose},
    {.spellings = {"-jobfile", "-globusrsl"},
     .kind = Kind::value,
     .value_name = "F",
     .set = [](const std::string& v, Options& o) { return file_name_set(v, o.jobfile); },
     .expects = "a file name",
     .quote_value = false,
     .help = "run the job described in F, a YAML job file or a Globus RSL request\n"
             "(see README, \"Job descriptions\"); instead of -np, -machinefile and program\n"
             "(-globusrsl: MPICH-G2's name for it)"},
    {.spellings = {"-dumprsl", nullptr},
     .set = [](const std::string&, Options& o) { return o.dumprsl = true; },
     .help = "print the job (from -np/-machinefile/program or -jobfile) as an RSL\n"
             "multi-request and exit without starting anything"},
    // mpirun reads the file and hands its text to every process (at other
    // sites too), so the option sets no variable.
    {.spellings = {"-commfile", nullptr},
     .set = [](const std::string& v, Options& o) { return file_name_set(v, o.commfile); },
     .quote_value = false,
     .setting = &wireup::kCommFile},
    {.spellings = {"-gencomm", nullptr},
     .set = [](const std::string&, Options& o) { return o.gencomm = true; },
     .help = "give every process a communicator file written from the job: a comm\n"
             "per site and per machine, an intercomm between every two sites"},
    {.spellings = {"-h", "--help"}, .kind = Kind::help, .help = "show this help", .alias = "-help"},
    {.spellings = {"--", nullptr}, .kind = Kind::end, .help = "end of options: the next word is the program"},
};

const Row* option_find(const std::string& word) {
    for (const Row& row : kOptions) {
        for (const char* s : row.spellings)
            if (s != nullptr && word == s) return &row;
        if (row.alias != nullptr && word == row.alias) return &row;
    }
    return nullptr;
}

base::Error value_refused(const Row& row, const std::string& spelling, const std::string& value) {
    std::string text = "option ";
    text += spelling;
    text += " expects ";
    text += expects_of(row);
    if (row.quote_value) {
        text += ", not '";
        text += value;
        text += "'";
    }
    return base::Error{text};
}

// The rules across options, once they are read; `program` is the index of
// the program's word in `args`.
base::Result<Options> options_finish(Options o, const std::vector<std::string>& args, std::size_t program) {
    for (const auto& [name, value] : o.exports) {
        if (!value) continue;
        if (std::string fault = wireup::setting_fault(name, *value); !fault.empty()) return base::Error{fault};
    }
    if (o.gencomm && !o.commfile.empty())
        return base::Error{"options -commfile and -gencomm both give the communicator file; choose one"};
    if (!o.jobfile.empty()) {
        if (o.np > 0 || !o.machinefile.empty())
            return base::Error{"option -jobfile describes the whole job; do not combine it with -np or -machinefile"};
        if (program < args.size())
            return base::Error{"option -jobfile names the program; unexpected '" + args[program] +
                               "' on the command line"};
        return o;
    }
    if (program >= args.size()) return base::Error{"no program to run"};
    o.program = args[program];
    o.args.assign(args.begin() + static_cast<std::ptrdiff_t>(program) + 1, args.end());
    return o;
}

}  // namespace

base::Result<Options> Options::parse(const std::vector<std::string>& args) {
    Options o;
    std::size_t i = 0;
    for (; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a.empty() || a[0] != '-' || a == "-") break;
        const Row* row = option_find(a);
        if (row == nullptr) return base::Error{"unknown option '" + a + "'"};
        const Kind kind = kind_of(*row);
        if (kind == Kind::end) {
            ++i;
            break;
        }
        if (kind == Kind::help) {
            o.help = true;
            return o;
        }
        std::string value;
        if (kind == Kind::value) {
            if (i + 1 >= args.size()) return base::Error{"option " + a + " needs a value"};
            value = args[++i];
        }
        if (!row_apply(*row, value, o)) return value_refused(*row, a, value);
    }
    return options_finish(std::move(o), args, i);
}

std::string options_usage() {
    // The option column is this wide; the help's further lines start there too.
    constexpr std::size_t kColumn = 23;
    std::string out = "usage: mpirun [options] program [args...]   (mpiexec is the same program)\n\n";
    for (const Row& row : kOptions) {
        std::string line = "  ";
        for (const char* s : row.spellings) {
            if (s == nullptr) continue;
            if (line.size() > 2) line += ", ";
            line += s;
            if (const char* value = value_name_of(row)) {
                line += ' ';
                line += value;
            }
        }
        line.resize(std::max(kColumn, line.size() + 1), ' ');
        for (const char c : help_of(row)) {
            line += c;
            if (c == '\n') line.append(kColumn, ' ');
        }
        out += line;
        out += '\n';
    }
    out +=
        "\n"
        "Exit status: 0 when every process called MPI_Finalize and exited 0; otherwise the failing\n"
        "rank's exit code (128+N if killed by signal N), the MPI_Abort code, 127 if a program could\n"
        "not be started, 2 for a bad command line or machine file, 1 for a malformed job file, a subjob\n"
        "that failed at its site, or a startup timeout.\n"
        "\n"
        "Settings every process receives, and what sets them (-x NAME=VALUE passes any variable):\n";
    out += wireup::settings_table("  ");
    return out;
}

std::string Options::setting(const wireup::Setting& s) const {
    for (const auto& [which, value] : settings)
        if (which == &s) return value;
    return {};
}

}  // namespace strata::launcher
