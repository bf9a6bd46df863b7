#include "adapters/process_env.hpp"

#include <cstdlib>
#include <map>

extern char** environ;

namespace strata::adapters {

std::string env_lookup(const EnvOverrides& overrides, const std::string& name) {
    for (auto it = overrides.rbegin(); it != overrides.rend(); ++it)
        if (it->first == name) return it->second;
    const char* v = std::getenv(name.c_str());
    return v != nullptr ? v : std::string();
}

std::vector<std::string> environment_merge(const EnvOverrides& overrides,
                                           const std::function<bool(std::string_view name)>& drop, bool inherit) {
    std::map<std::string, std::string> set;
    for (const auto& [k, v] : overrides) set[k] = v;
    std::vector<std::string> out;
    for (char** e = environ; inherit && *e != nullptr; ++e) {
        const std::string_view entry(*e);
        const std::string name(entry.substr(0, entry.find('=')));
        if (set.count(name) != 0 || (drop && drop(name))) continue;
        out.emplace_back(entry);
    }
    for (const auto& [k, v] : set) out.push_back(k + "=" + v);
    return out;
}

std::vector<char*> c_array(std::vector<std::string>& strings) {
    std::vector<char*> out;
    out.reserve(strings.size() + 1);
    for (std::string& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

}  // namespace strata::adapters
