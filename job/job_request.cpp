#include "job/job_request.hpp"

#include <cctype>
#include <cerrno>

#include "base/file.hpp"
#include "base/numbers.hpp"

namespace strata::job {

namespace {

// RSL quoting: every value in double quotes, a '"' inside doubled.
std::string rsl_quote(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

}  // namespace

int JobRequest::size() const {
    int total = 0;
    for (const SubjobRequest& s : subjobs) total += s.count;
    return total;
}

bool env_name_valid(const std::string& n) {
    if (n.empty() || std::isdigit(static_cast<unsigned char>(n[0]))) return false;
    for (unsigned char c : n)
        if (!(std::isalnum(c) || c == '_')) return false;
    return true;
}

base::Result<int> subjob_count_parse(const std::string& text) {
    const base::ParsedInt<unsigned> n = base::parse_int<unsigned>(text, 1, MachineFile::kMaxSlots);
    if (n.fault == base::IntFault::above)
        return base::Error{"'count' " + text + " is too large; at most " + std::to_string(MachineFile::kMaxSlots)};
    if (!n) return base::Error{"'count' must be a positive integer, got '" + text + "'"};
    return static_cast<int>(*n);
}

base::Result<int> wall_time_parse(const std::string& text, const std::string& key) {
    const base::ParsedInt<int> minutes = base::parse_int<int>(text, 1, kMaxWallTimeMin);
    if (!minutes)
        return base::Error{"'" + key + "' must be minutes from 1 to " + std::to_string(kMaxWallTimeMin) + ", got '" +
                           text + "'"};
    return *minutes;
}

base::Result<int> host_count_parse(const std::string& text, int count, const std::string& key) {
    const base::ParsedInt<int> n = base::parse_int<int>(text, 1, count > 0 ? count : 1);
    if (!n)
        return base::Error{"'" + key + "' must be a number of hosts from 1 to the subjob's count (" +
                           std::to_string(count) + "), got '" + text + "'"};
    return *n;
}

base::Result<int> memory_parse(const std::string& text, const std::string& key) {
    const base::ParsedInt<int> n = base::parse_int<int>(text, 1, kMaxMemoryMb);
    if (!n)
        return base::Error{"'" + key + "' must be megabytes per process from 1 to " + std::to_string(kMaxMemoryMb) +
                           ", got '" + text + "'"};
    return *n;
}

MemoryOutcome memory_choose(int most_mb, int least_mb, AdapterKind adapter, int& asked_mb) {
    asked_mb = 0;
    if (most_mb > 0 && least_mb > most_mb) return MemoryOutcome::least_above_most;
    if ((most_mb > 0 || least_mb > 0) && adapter == AdapterKind::fork) return MemoryOutcome::ignored;
    asked_mb = most_mb > 0 ? most_mb : least_mb;
    return MemoryOutcome::asked;
}

base::Status job_type_check(const std::string& text, const std::string& key) {
    std::string lower = text;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "mpi" || lower == "multiple") return {};
    if (lower == "single")
        return base::Error{"'" + key + "=single' starts one process, not an MPI job; Strata starts 'count' processes "
                           "as ranks of one MPI_COMM_WORLD (jobType mpi or multiple)"};
    if (lower == "condor")
        return base::Error{"'" + key + "=condor' needs Condor; Strata starts processes with its fork or slurm "
                           "adapter (jobType mpi or multiple)"};
    return base::Error{"'" + key + "' must be mpi or multiple (single and condor are not MPI jobs), got '" + text + "'"};
}

JobRequest job_request_from_machine_file(const MachineFile& file, int np, const std::string& program,
                                         const std::vector<std::string>& args, const LocalHost& local,
                                         Transport remote) {
    JobRequest request;
    for (const auto& [index, count] : file.distribute(np)) {
        const MachineEntry& e = file.entries()[index];
        Contact contact;
        if (e.contact) {
            contact = *e.contact;
        } else {
            contact.host = e.host;
            if (!local.is_local(e.host)) {  // another machine: over ssh (Hydra's default) or srun
                contact.transport = remote;
                contact.port = 0;
            }
        }
        if (!request.subjobs.empty() && request.subjobs.back().contact == contact) {
            request.subjobs.back().count += count;
            continue;
        }
        SubjobRequest s;
        s.contact = contact;
        s.count = count;
        s.command.program = program;
        s.command.args = args;
        request.subjobs.push_back(std::move(s));
    }
    return request;
}

JobRequest job_request_local(int np, const std::string& program, const std::vector<std::string>& args) {
    SubjobRequest s;
    s.contact.host = "localhost";
    s.count = np;
    s.command.program = program;
    s.command.args = args;
    JobRequest request;
    request.subjobs.push_back(std::move(s));
    return request;
}

namespace {

// "   (NAME=V1 V2 ...)\n", each value quoted; nothing for no values.
std::string rsl_relation(const char* name, const std::vector<std::string>& values) {
    if (values.empty()) return {};
    std::string out = "   (";
    out.append(name).append("=");
    for (std::size_t v = 0; v < values.size(); ++v) out.append(v > 0 ? " " : "").append(rsl_quote(values[v]));
    return out.append(")\n");
}

// The relation of a one-value attribute, when the value is given.
std::string rsl_optional(const char* name, const std::string& value) {
    return value.empty() ? std::string() : rsl_relation(name, {value});
}

}  // namespace

std::string job_request_rsl(const JobRequest& request) {
    std::string out = "+\n";
    for (std::size_t i = 0; i < request.subjobs.size(); ++i) {
        const SubjobRequest& s = request.subjobs[i];
        out += "( &(resourceManagerContact=" + rsl_quote(s.contact.text()) + ")\n";
        out += "   (count=" + std::to_string(s.count) + ")\n";
        out += rsl_relation("label", {"subjob " + std::to_string(i)});
        std::string env;
        if (!s.site.empty()) env += "(GLOBUS_LAN_ID " + rsl_quote(s.site) + ")";
        for (const auto& [name, value] : s.command.env) env += '(' + name + " " + rsl_quote(value) + ")";
        if (!env.empty()) out += "   (environment=" + env + ")\n";
        out += rsl_optional("directory", s.command.directory) + rsl_optional("stdin", s.command.stdin_file) +
               rsl_optional("stdout", s.command.stdout_file) + rsl_optional("stderr", s.command.stderr_file) +
               rsl_optional("account", s.account) +
               rsl_optional("strata", s.strata) + rsl_optional("queue", s.batch.queue) +
               rsl_optional("project", s.batch.project);
        if (s.batch.max_wall_time_min > 0) out += "   (maxWallTime=" + std::to_string(s.batch.max_wall_time_min) + ")\n";
        if (s.batch.host_count > 0) out += "   (hostCount=" + std::to_string(s.batch.host_count) + ")\n";
        if (s.batch.memory_mb > 0) out += "   (maxMemory=" + std::to_string(s.batch.memory_mb) + ")\n";
        out += rsl_relation("executable", {s.command.program}) + rsl_relation("arguments", s.command.args);
        if (s.stage) out += "   (stage=yes)\n";
        out += rsl_relation("stageFiles", s.stage_files) + rsl_optional("machine", s.machine) +
               rsl_optional("host", s.host) + rsl_optional("processorName", s.processor_name);
        if (s.network_private) out += "   (network=private)\n";
        out += ")\n";
    }
    return out;
}

base::Result<bool> network_parse(const std::string& text) {
    if (text == "private" || text == "public") return text == "private";
    return base::Error{"'network' is '" + text + "'; expected private (no other site can connect to its "
                       "processes: a relay carries their traffic) or public"};
}

std::string subjob_site(const SubjobRequest& s) { return s.site.empty() ? s.contact.host : s.site; }

base::Result<JobRequest> parse_job_file(const std::string& text, const std::string& path) {
    std::size_t i = 0;
    while (i < text.size()) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (std::isspace(c)) {
            ++i;
        } else if (text.compare(i, 2, "(*") == 0) {
            return parse_job_rsl(text, path);
        } else {
            break;
        }
    }
    if (i < text.size() && (text[i] == '+' || text[i] == '&' || text[i] == '(')) return parse_job_rsl(text, path);
    return parse_job_yaml(text, path);
}

base::Result<JobRequest> load_job_file(const std::string& path) {
    const base::Result<std::string> text = base::file_read(path, "job file");
    if (!text) return text.failure();
    return parse_job_file(*text, path);
}

}  // namespace strata::job
