#include "job/slurm_allocation.hpp"

#include <cctype>
#include <cstdint>

namespace strata::job {

namespace {

using base::Error;
using base::Result;

// Far beyond any node's cores, and small enough that no sum over kMaxNodes overflows an int.
constexpr std::uint64_t kMaxTasksPerNode = 10000;

// 'text', built by appending: GCC 12 at -O3 warns falsely (-Wrestrict) on "literal" + std::string.
std::string quoted(const std::string& text) {
    std::string q;
    q.reserve(text.size() + 2);
    return q.append(1, '\'').append(text).append(1, '\'');
}

// The decimal number at `i` (digits only, at most 9 of them); `i` moves past it.
bool number_read(const std::string& t, std::size_t& i, std::uint64_t& value, std::size_t& width) {
    const std::size_t begin = i;
    value = 0;
    while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])) && i - begin < 9)
        value = value * 10 + static_cast<std::uint64_t>(t[i++] - '0');
    width = i - begin;
    return width > 0 && (i >= t.size() || !std::isdigit(static_cast<unsigned char>(t[i])));
}

std::string padded(std::uint64_t v, std::size_t width) {
    std::string s = std::to_string(v);
    return s.size() < width ? std::string(width - s.size(), '0') + s : s;
}

// The numbers of one bracket group, "01-03,7" (from after '[' to before ']').
Result<std::vector<std::string>> group_expand(const std::string& text, const std::string& whole) {
    std::vector<std::string> out;
    std::size_t i = 0;
    for (;;) {
        std::uint64_t lo = 0;
        std::uint64_t hi = 0;
        std::size_t width = 0;
        std::size_t ignored = 0;
        if (!number_read(text, i, lo, width)) return Error{quoted(whole) + ": expected a number inside '[...]'"};
        hi = lo;
        if (i < text.size() && text[i] == '-') {
            ++i;
            if (!number_read(text, i, hi, ignored) || hi < lo)
                return Error{quoted(whole) + ": expected a range N-M with M >= N inside '[...]'"};
        }
        if (hi - lo >= SlurmAllocation::kMaxNodes || out.size() + (hi - lo) >= SlurmAllocation::kMaxNodes)
            return Error{quoted(whole) + " names more than " + std::to_string(SlurmAllocation::kMaxNodes) + " nodes"};
        for (std::uint64_t v = lo; v <= hi; ++v) out.push_back(padded(v, width));
        if (i == text.size()) return out;
        if (text[i] != ',') return Error{quoted(whole) + ": unexpected '" + std::string(1, text[i]) + "' inside '[...]'"};
        ++i;
    }
}

// One name with its bracket groups, "rack[1-2]-n[01-04]".
Result<std::vector<std::string>> name_expand(const std::string& item, std::size_t budget) {
    std::vector<std::string> names{""};
    std::size_t i = 0;
    std::size_t literal_length = 0;  // bounds every name's length before anything is copied
    while (i < item.size()) {
        const std::size_t open = item.find('[', i);
        const std::string literal = item.substr(i, open == std::string::npos ? std::string::npos : open - i);
        if (literal.find(']') != std::string::npos) return Error{quoted(item) + ": ']' without '['"};
        literal_length += literal.size();
        if (literal_length > 253) return Error{quoted(item.substr(0, 64) + "...") + " is not a valid host name (too long)"};
        for (std::string& n : names) n += literal;
        if (open == std::string::npos) break;
        const std::size_t close = item.find(']', open);
        if (close == std::string::npos) return Error{quoted(item) + ": '[' without ']'"};
        Result<std::vector<std::string>> numbers = group_expand(item.substr(open + 1, close - open - 1), item);
        if (!numbers) return numbers.failure();
        if (names.size() * numbers->size() > budget)
            return Error{quoted(item) + " names more than " + std::to_string(SlurmAllocation::kMaxNodes) + " nodes"};
        std::vector<std::string> product;
        for (const std::string& n : names)
            for (const std::string& v : *numbers) product.push_back(n + v);
        names = std::move(product);
        i = close + 1;
    }
    return names;
}

}  // namespace

int SlurmAllocation::tasks() const {
    int n = 0;
    for (const auto& [name, count] : nodes) n += count;
    return n;
}

MachineFile SlurmAllocation::machine_file() const {
    std::vector<MachineEntry> entries;
    for (const auto& [name, count] : nodes) entries.push_back(MachineEntry{name, count, 0, std::nullopt});
    std::string path = "the Slurm allocation ";
    path.append(job_id);
    return MachineFile::of(std::move(path), std::move(entries));
}

Result<std::vector<std::string>> slurm_hostlist_expand(const std::string& text) {
    std::vector<std::string> out;
    std::size_t begin = 0;
    int depth = 0;
    for (std::size_t i = 0; i <= text.size(); ++i) {
        const char c = i < text.size() ? text[i] : ',';
        if (c == '[') ++depth;
        if (c == ']') --depth;
        if (c != ',' || (depth > 0 && i < text.size())) continue;
        const std::string item = text.substr(begin, i - begin);
        begin = i + 1;
        if (item.empty()) return Error{quoted(text) + ": an empty name"};
        Result<std::vector<std::string>> names = name_expand(item, SlurmAllocation::kMaxNodes - out.size());
        if (!names) return names.failure();
        for (std::string& n : *names) {
            if (!host_name_valid(n)) return Error{quoted(n) + " is not a valid host name"};
            out.push_back(std::move(n));
        }
    }
    return out;
}

Result<std::vector<int>> slurm_tasks_per_node(const std::string& text, std::size_t limit) {
    std::vector<int> out;
    std::size_t i = 0;
    const Error bad{quoted(text) + ": expected counts such as '2(x3),1'"};
    while (i < text.size()) {
        std::uint64_t tasks = 0;
        std::uint64_t repeat = 1;
        std::size_t width = 0;
        if (!number_read(text, i, tasks, width) || tasks == 0 || tasks > kMaxTasksPerNode) return bad;
        if (text.compare(i, 2, "(x") == 0) {
            i += 2;
            if (!number_read(text, i, repeat, width) || repeat == 0 || i >= text.size() || text[i] != ')') return bad;
            ++i;
        }
        if (repeat > limit - out.size())
            return Error{quoted(text) + " counts more nodes than the allocation has (" + std::to_string(limit) + ")"};
        out.insert(out.end(), repeat, static_cast<int>(tasks));
        if (i == text.size()) break;
        if (text[i] != ',' || i + 1 == text.size()) return bad;
        ++i;
    }
    if (out.empty()) return bad;
    return out;
}

Result<SlurmAllocation> slurm_allocation(const std::function<const char*(const char*)>& getenv) {
    const char* id = getenv("SLURM_JOB_ID");
    if (id == nullptr || *id == '\0') return Error{"not inside a Slurm allocation (SLURM_JOB_ID is not set)"};
    SlurmAllocation a;
    a.job_id = id;
    if (const char* cluster = getenv("SLURM_CLUSTER_NAME")) a.cluster = cluster;
    const char* list = getenv("SLURM_JOB_NODELIST");
    if (list == nullptr) list = getenv("SLURM_NODELIST");
    if (list == nullptr) return Error{"SLURM_JOB_ID is set but SLURM_JOB_NODELIST is not"};
    Result<std::vector<std::string>> nodes = slurm_hostlist_expand(list);
    if (!nodes) return nodes.failure().prefixed("SLURM_JOB_NODELIST=");
    const char* per_node = getenv("SLURM_TASKS_PER_NODE");
    std::vector<int> tasks(nodes->size(), 1);
    if (per_node != nullptr) {
        Result<std::vector<int>> t = slurm_tasks_per_node(per_node, nodes->size());
        if (!t) return t.failure().prefixed("SLURM_TASKS_PER_NODE=");
        if (t->size() != nodes->size())
            return Error{std::string("SLURM_TASKS_PER_NODE=").append(quoted(per_node)) + " counts " +
                         std::to_string(t->size()) + " nodes but SLURM_JOB_NODELIST=" + quoted(list) + " names " +
                         std::to_string(nodes->size())};
        tasks = std::move(*t);
    }
    for (std::size_t i = 0; i < nodes->size(); ++i) a.nodes.emplace_back((*nodes)[i], tasks[i]);
    return a;
}

}  // namespace strata::job
