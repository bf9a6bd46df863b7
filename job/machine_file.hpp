// The machine file (-machinefile F / -f F): where the ranks go.
//
//   # comment                 blank lines and everything after '#' are ignored
//   node1                     one process slot on node1
//   node2 4                   four slots on node2
//   node3:2                   two slots on node3
//   [::1]:2  /  ::1           IPv6 literals: bracketed to take a ":N" count
//   anl.example.org:2119/fork 8   a gatekeeper contact (any word with a '/',
//                             see contact.hpp) and its process count
//
// Parsing is pure (no name resolution); whether a host is this machine is
// decided by JobPlan with LocalHost.
#pragma once

#include "base/result.hpp"
#include "job/contact.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace strata::job {

struct MachineEntry {
    std::string host;
    int slots = 1;
    int line = 0;  // 1-based line in the file, for messages
    std::optional<Contact> contact;  // a contact line; `host` is then the contact's host
};

class MachineFile {
public:
    static constexpr int kMaxSlots = 1000000;

    // `path` only names the file in messages. A failure is "PATH:LINE: what
    // is wrong; what was expected" (with ":COLUMN" after LINE for a malformed
    // contact).
    static base::Result<MachineFile> parse(const std::string& text, const std::string& path);
    static base::Result<MachineFile> load(const std::string& path);
    // Entries that come from elsewhere (a Slurm allocation); `path` names
    // their source in messages. At least one entry, each with slots >= 1.
    static MachineFile of(std::string path, std::vector<MachineEntry> entries);

    const std::string& path() const { return path_; }
    const std::vector<MachineEntry>& entries() const { return entries_; }
    int slots_total() const;

    // np ranks placed on the slots in file order, cycling: (entry index,
    // consecutive ranks) runs, in rank order. np must be >= 1.
    std::vector<std::pair<std::size_t, int>> distribute(int np) const;

private:
    std::string path_;
    std::vector<MachineEntry> entries_;
};

}  // namespace strata::job
