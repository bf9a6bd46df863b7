// A job description, validated, before anything is started: what every
// subjob runs, where, and with which labels.
//
// Three inputs produce the same request (see README "Job descriptions"):
//   - the command line with -np and an optional machine file, whose lines may
//     name gatekeeper contacts ("anl.example.org:2119/fork 8");
//   - a YAML job file (parse_job_yaml);
//   - a classic Globus RSL request or multi-request as MPICH-G2 users wrote
//     them (parse_job_rsl).
// Every malformed description is reported as "FILE:LINE:COLUMN: what is
// wrong" (an unreadable file as "cannot read job file ..."). job_request_rsl
// prints a request back as an RSL multi-request that parse_job_rsl reads back
// to the same request (what `mpirun -dumprsl` shows).
#pragma once

#include "base/result.hpp"
#include "job/command.hpp"
#include "job/contact.hpp"
#include "job/local_host.hpp"
#include "job/machine_file.hpp"

#include <optional>
#include <string>
#include <vector>

namespace strata::job {

struct SubjobRequest {
    Contact contact;  // omitted in a job file: localhost, fork adapter
    int count = 0;
    Command command;                       // environment in order; directory empty: the adapter's default
    std::string account;                   // at a gatekeeper: which mapped account; empty: the grid-mapfile's first
    std::string strata;                    // at an ssh site: Strata's prefix there; empty: its login PATH
    Batch batch;                           // queue, project, wall time
    bool stage = false;                    // copy the executable to the site first
    std::vector<std::string> stage_files;  // more files to copy; non-empty implies stage
    std::string site;                      // topology labels; RSL carries site as GLOBUS_LAN_ID
    std::string machine;
    std::string host;            // emulated host identity (see Subjob)
    std::string processor_name;  // what MPI_Get_processor_name reports
    // `network: private` (RSL: (network=private)): no other site can connect
    // to the subjob's processes; its gatekeeper starts a relay for them.
    bool network_private = false;

    bool operator==(const SubjobRequest&) const = default;
};

struct JobRequest {
    std::vector<SubjobRequest> subjobs;
    // What the file said that Strata accepts and does not apply, one line
    // each ("LINE:COLUMN: 'gramMyjob': obsolete in GRAM itself"), for mpirun
    // to say once on stderr. Not part of the job: requests compare without it.
    std::vector<std::string> ignored{};

    int size() const;
    bool operator==(const JobRequest& o) const { return subjobs == o.subjobs; }
};

// `network`'s value, private or public (true: private); fails naming both.
base::Result<bool> network_parse(const std::string& text);

// A process count per host that RSL's hostCount and YAML's host_count allow:
// 1 to the subjob's count; `key` names the attribute in the message.
base::Result<int> host_count_parse(const std::string& text, int count, const std::string& key);
// Megabytes per process as RSL's maxMemory/minMemory and YAML's
// max_memory/min_memory take them: 1 to kMaxMemoryMb.
base::Result<int> memory_parse(const std::string& text, const std::string& key);

// The rules both readers apply to those figures against the subjob's
// contact; each reader says where, in its own syntax.
// More than one host: the fork adapter runs every process on this one, so
// only an emulated host identity (`host`) can be spread over nodes
// (Subjob::host_nodes).
inline constexpr const char* kForkOneHost =
    "the fork adapter runs every process on this host; to spread the subjob over emulated nodes, give it a host "
    "identity ('host')";
inline bool host_count_allowed(int hosts, AdapterKind adapter, const std::string& host) {
    return hosts <= 1 || adapter != AdapterKind::fork || !host.empty();
}
// Memory per process (MB; 0: not given): what Slurm is asked for (the most,
// else the least, which Slurm reserves), nothing at a fork contact (which
// has no scheduler: the reader says so on stderr, kMemoryIgnored), or a
// refusal when the least is above the most.
enum class MemoryOutcome { asked, ignored, least_above_most };
inline constexpr const char* kMemoryIgnored = "memory is asked of Slurm; the fork adapter sets no limit";
MemoryOutcome memory_choose(int most_mb, int least_mb, AdapterKind adapter, int& asked_mb);
// GRAM's jobType as Strata reads it: "mpi" and "multiple" start `count`
// ranks (what Strata does); "single" and "condor" are refused with the reason.
base::Status job_type_check(const std::string& text, const std::string& key);

// A wall time in minutes as `key` ("maxWallTime", "max_wall_time") takes it.
base::Result<int> wall_time_parse(const std::string& text, const std::string& key);

// `path` only names the file in messages; an error is "PATH:LINE:COLUMN: ...".
base::Result<JobRequest> parse_job_rsl(const std::string& text, const std::string& path);
base::Result<JobRequest> parse_job_yaml(const std::string& text, const std::string& path);
// RSL if the first thing that is not blank or an RSL comment is '+', '&' or '(';
// YAML otherwise.
base::Result<JobRequest> parse_job_file(const std::string& text, const std::string& path);
base::Result<JobRequest> load_job_file(const std::string& path);

// The -np/-machinefile form: ranks fill the file's slots in order, cycling
// when np exceeds them, and consecutive ranks through one contact form one
// subjob; a plain host line is this machine's fork adapter when `local` says
// it is this machine, else reached by `remote` ("host/ssh+fork" or
// "host/srun"). np must be >= 1.
JobRequest job_request_from_machine_file(const MachineFile& file, int np, const std::string& program,
                                         const std::vector<std::string>& args, const LocalHost& local,
                                         Transport remote = Transport::ssh);
// Without a machine file: np ranks on localhost.
JobRequest job_request_local(int np, const std::string& program, const std::vector<std::string>& args);

// The request as an RSL multi-request, one attribute per line, ending in '\n'.
std::string job_request_rsl(const JobRequest& request);

// The subjob's site label: its `site`, else its contact's host.
std::string subjob_site(const SubjobRequest& s);

// A subjob's process count (1 to MachineFile::kMaxSlots).
base::Result<int> subjob_count_parse(const std::string& text);

// Whether NAME is a valid environment variable name.
bool env_name_valid(const std::string& name);

}  // namespace strata::job
