// What a gatekeeper needs to clean up after a subjob it can no longer watch.
//
// A record is written (root-only, in the configuration's state_dir) when a
// subjob is accepted, rewritten as it changes (its directories, its Slurm
// job, its processes), and removed when its session ends. A gatekeeper that
// died without cleaning up (SIGKILL, a crash, a reboot) leaves its records
// behind; the next one to start reclaims each of those subjobs before it
// accepts anything: it ends the Slurm job, kills the processes that are still
// the ones recorded (pid and start time), removes the directories (never
// through a link: base::DirFd), logs every step and removes the record. The
// mpirun of such a subjob is gone, or lost its connection with the old
// gatekeeper, so none of it can be of use any more.
#pragma once

#include "base/result.hpp"

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata::gatekeeper {

struct SubjobRecord {
    struct Process {
        long pid = 0;
        unsigned long long start = 0;  // clock ticks after boot (/proc/PID/stat): tells a reused pid apart
        bool operator==(const Process&) const = default;
    };
    std::string subject;   // the grid identity, for the log
    std::string account;   // the local account it runs as
    std::string adapter;   // its name (job/adapter_table.hpp)
    std::string job_dir;   // the job directory (staged files, the proxy); empty: none
    std::string work_dir;  // the slurm adapter's work directory; empty: none
    long slurm_job = -1;   // -1: none
    std::vector<Process> processes;  // processes started on this machine (an adapter that records local pids)

    bool operator==(const SubjobRecord&) const = default;
};

// "name value" lines, one per field ("process PID START" once per process).
std::string record_encode(const SubjobRecord& r);
// Fails naming the line and what is wrong.
base::Result<SubjobRecord> record_decode(std::string_view text);

// The start time of process `pid`, or nullopt when there is none.
std::optional<unsigned long long> process_start_time(long pid);

class RecordStore {
public:
    // Opens DIR, making it (mode 0700) if missing. It must belong to this
    // process's account and be writable by no one else: records decide
    // what root kills and removes.
    static base::Result<RecordStore> open(const std::string& dir);

    // Writes record NAME (temporary file and rename).
    base::Status write(const std::string& name, const SubjobRecord& r) const;
    void remove(const std::string& name) const;
    // Every record left in the store: its name and its text.
    std::vector<std::pair<std::string, std::string>> list() const;
    const std::string& dir() const { return dir_; }

private:
    std::string dir_;
};

// Reclaims every record of `store` as described above, with directories
// under `scratch`; one log line per step.
void records_reclaim(const RecordStore& store, const std::string& scratch,
                     const std::function<void(const std::string&)>& log);

}  // namespace strata::gatekeeper
