#include "devices/methods.hpp"

#include <algorithm>

#include "base/knob.hpp"
#include "wireup/settings.hpp"
#include "devices/self/self_method.hpp"
#include "devices/shm/shm_method.hpp"
#include "devices/tcp/tcp_method.hpp"
#if STRATA_HAVE_OFI
#include "devices/ofi/ofi_method.hpp"
#endif

namespace strata::dev {

namespace {

const base::KnobString exclude_methods{
    wireup::kExcludeMethods.variable, "",
    "comma-separated methods this process must not use (e.g. 'shm,ofi' forces TCP between local ranks); "
    "'self' cannot be excluded"};

// In order of preference: each peer is reached by the first method that reaches it.
const MethodEntry kTable[] = {
    {"self", &self::create, true, nullptr},
    // Shared memory also alone: it carries the links to other jobs' processes
    // on this host.
    {"shm", &shm::create, true, &shm::ShmMethod::links},
#if STRATA_HAVE_OFI  // built only where libfabric is (meson option 'ofi')
    {"ofi", &ofi::create, false, &ofi::OfiMethod::links},
#endif
    // TCP also in a job of one process: it carries the links to other jobs'
    // processes (MPI_Comm_accept, MPI_Comm_connect).
    {"tcp", &tcp::create, true, nullptr},
};

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    std::size_t at = 0;
    while (at <= text.size()) {
        const std::size_t comma = std::min(text.find(',', at), text.size());
        if (comma > at) out.push_back(text.substr(at, comma - at));
        at = comma + 1;
    }
    return out;
}

// The methods STRATA_EXCLUDE_METHODS names; fails when it names one that does
// not exist or cannot be excluded.
base::Result<std::vector<std::string>> methods_excluded() {
    const std::string& text = exclude_methods.get();
    if (std::string fault = wireup::setting_fault(exclude_methods.name(), text); !fault.empty())
        return base::Error{std::move(fault)};
    std::vector<std::string> names = split_list(text);
    for (const std::string& n : names) {
        const bool known = std::any_of(std::begin(kTable), std::end(kTable),
                                       [&](const MethodEntry& e) { return n == e.name; });
        if (!known || n == "self") {
            std::string list;
            for (const MethodEntry& e : kTable) {
                if (std::string(e.name) != "self") list += std::string(list.empty() ? "" : ", ") + e.name;
            }
            return base::Error{std::string(exclude_methods.name()) + "='" + exclude_methods.get() +
                               "': " + (n == "self" ? "'self' cannot be excluded" : "no method is called '" + n + "'") +
                               "; the methods that can be excluded are " + list};
        }
    }
    return names;
}

}  // namespace

std::span<const MethodEntry> method_table() { return kTable; }

bool fast_link(const wireup::BusinessCard& a, const wireup::BusinessCard& b) {
    return std::any_of(std::begin(kTable), std::end(kTable),
                       [&](const MethodEntry& e) { return e.links != nullptr && e.links(a, b); });
}

base::Result<std::vector<std::unique_ptr<adi::Method>>> methods_create(const adi::MethodContext& ctx) {
    const base::Result<std::vector<std::string>> excluded = methods_excluded();
    if (!excluded) return excluded.failure();
    std::vector<std::unique_ptr<adi::Method>> out;
    for (const MethodEntry& e : kTable) {
        if (std::find(excluded->begin(), excluded->end(), e.name) != excluded->end()) continue;
        if (ctx.size > 1 || e.needed_alone) out.push_back(e.create(ctx));
    }
    return out;
}

}  // namespace strata::dev
