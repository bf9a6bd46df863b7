#include "gatekeeper/subjob_record.hpp"

#include "adapters/slurm_adapter.hpp"
#include "base/dir_fd.hpp"
#include "base/file.hpp"
#include "base/numbers.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>

namespace strata::gatekeeper {

namespace {

// The text fields, in the order they are written.
struct TextField {
    const char* name;
    std::string SubjobRecord::*member;
};
constexpr TextField kTextFields[] = {
    {"subject", &SubjobRecord::subject}, {"account", &SubjobRecord::account}, {"adapter", &SubjobRecord::adapter},
    {"job_dir", &SubjobRecord::job_dir}, {"work_dir", &SubjobRecord::work_dir},
};

// A whole decimal number of out's type (base::parse_int).
template <typename T>
bool number_parse(std::string_view s, T& out) {
    const base::ParsedInt<T> n = base::parse_int<T>(s);
    if (n) out = *n;
    return n.ok();
}

constexpr const char* kSuffix = ".record";

}  // namespace

std::string record_encode(const SubjobRecord& r) {
    std::string out;
    for (const TextField& f : kTextFields) {
        std::string v = r.*f.member;
        std::replace(v.begin(), v.end(), '\n', ' ');  // one line per field, whatever a DN holds
        out += std::string(f.name) + " " + v + "\n";
    }
    out += "slurm_job " + std::to_string(r.slurm_job) + "\n";
    for (const SubjobRecord::Process& p : r.processes)
        out += "process " + std::to_string(p.pid) + " " + std::to_string(p.start) + "\n";
    return out;
}

base::Result<SubjobRecord> record_decode(std::string_view text) {
    SubjobRecord r;
    int line_no = 0;
    while (!text.empty()) {
        ++line_no;
        const std::size_t nl = text.find('\n');
        const std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        const std::size_t sp = line.find(' ');
        const std::string_view name = line.substr(0, sp);
        const std::string_view value = sp == std::string_view::npos ? std::string_view() : line.substr(sp + 1);
        auto fail = [&](const std::string& what) {
            std::string where = "line ";
            where += std::to_string(line_no);
            where += ": ";
            return base::Error{where + what};
        };
        const auto text_field = std::find_if(std::begin(kTextFields), std::end(kTextFields),
                                             [&](const TextField& f) { return name == f.name; });
        if (text_field != std::end(kTextFields)) {
            r.*text_field->member = std::string(value);
        } else if (name == "slurm_job") {
            if (!number_parse(value, r.slurm_job)) return fail("slurm_job is not a number");
        } else if (name == "process") {
            const std::size_t sp2 = value.find(' ');
            SubjobRecord::Process p;
            if (sp2 == std::string_view::npos || !number_parse(value.substr(0, sp2), p.pid) ||
                !number_parse(value.substr(sp2 + 1), p.start) || p.pid <= 1)
                return fail("expected 'process PID START'");
            r.processes.push_back(p);
        } else if (!name.empty()) {
            return fail("unknown field '" + std::string(name) + "'");
        }
    }
    return r;
}

std::optional<unsigned long long> process_start_time(long pid) {
    const auto stat = base::file_read("/proc/" + std::to_string(pid) + "/stat", "process status");
    if (!stat) return std::nullopt;
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    const std::size_t close = stat->rfind(')');
    if (close == std::string::npos) return std::nullopt;
    std::istringstream rest(stat->substr(close + 1));
    std::string field;
    for (int i = 3; i <= 22 && rest >> field; ++i) {
        if (i == 22) {
            unsigned long long start = 0;
            if (number_parse(std::string_view(field), start)) return start;
        }
    }
    return std::nullopt;
}

base::Result<RecordStore> RecordStore::open(const std::string& dir) {
    if (::mkdir(dir.c_str(), 0700) != 0 && errno != EEXIST)
        return base::Error{"cannot make the state directory '" + dir + "': " + std::strerror(errno)};
    struct stat st;
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 0022) != 0)
        return base::Error{"the state directory '" + dir +
                           "' must be a directory of this account that no one else can write"};
    RecordStore s;
    s.dir_ = dir;
    return s;
}

base::Status RecordStore::write(const std::string& name, const SubjobRecord& r) const {
    const std::string path = dir_ + "/" + name + kSuffix;
    const std::string tmp = path + ".tmp";
    const std::string text = record_encode(r);
    base::UniqueFd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600));
    bool ok = static_cast<bool>(fd) && ::write(fd.get(), text.data(), text.size()) == static_cast<ssize_t>(text.size());
    fd.reset();
    ok = ok && ::rename(tmp.c_str(), path.c_str()) == 0;
    if (!ok) return base::Error{"cannot write the subjob record '" + path + "': " + std::strerror(errno)};
    return {};
}

void RecordStore::remove(const std::string& name) const { ::unlink((dir_ + "/" + name + kSuffix).c_str()); }

std::vector<std::pair<std::string, std::string>> RecordStore::list() const {
    std::vector<std::pair<std::string, std::string>> out;
    DIR* d = ::opendir(dir_.c_str());
    if (d == nullptr) return out;
    while (const dirent* e = ::readdir(d)) {
        const std::string file = e->d_name;
        const std::size_t n = std::strlen(kSuffix);
        if (file.size() <= n || file.compare(file.size() - n, n, kSuffix) != 0) continue;
        if (auto text = base::file_read(dir_ + "/" + file, "subjob record"))
            out.emplace_back(file.substr(0, file.size() - n), std::move(*text));
    }
    ::closedir(d);
    std::sort(out.begin(), out.end());
    return out;
}

void records_reclaim(const RecordStore& store, const std::string& scratch,
                     const std::function<void(const std::string&)>& log) {
    for (const auto& [name, text] : store.list()) {
        const base::Result<SubjobRecord> r = record_decode(text);
        if (!r) {
            log("orphan " + name + ": cannot read its record (" + r.error() + "); left in " + store.dir());
            continue;
        }
        const std::string who = "orphan " + name + " (\"" + r->subject + "\" as '" + r->account + "' via " +
                                r->adapter + ")";
        log(who + ": left by an earlier run; reclaiming it");
        if (r->slurm_job >= 0) {
            adapters::SlurmAdapter::job_end_sync(r->slurm_job);
            log(who + ": ended slurm job " + std::to_string(r->slurm_job));
        }
        for (const SubjobRecord::Process& p : r->processes) {
            if (process_start_time(p.pid) != p.start) continue;  // gone, or the pid is another process's now
            ::killpg(static_cast<pid_t>(p.pid), SIGKILL);
            ::kill(static_cast<pid_t>(p.pid), SIGKILL);
            log(who + ": killed process " + std::to_string(p.pid));
        }
        bool all_removed = true;
        for (const std::string* dir : {&r->job_dir, &r->work_dir}) {
            if (dir->empty()) continue;
            const std::size_t slash = dir->rfind('/');
            if (slash == std::string::npos || dir->substr(0, slash) != scratch) {
                log(who + ": left the directory " + *dir + ", which is not in the scratch directory " + scratch);
                continue;
            }
            base::Result<base::DirFd> d = base::DirFd::open(scratch, dir->substr(slash + 1));
            if (!d) {
                all_removed = false;
                log(who + ": " + d.error());
                continue;
            }
            if (!d->is_open()) continue;  // gone already
            if (base::Status removed = adapters::SlurmAdapter::work_remove(*d)) {
                log(who + ": removed the directory " + *dir);
            } else {
                all_removed = false;
                log(who + ": " + removed.error());
            }
        }
        if (all_removed) store.remove(name);
    }
}

}  // namespace strata::gatekeeper
