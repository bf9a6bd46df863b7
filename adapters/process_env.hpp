// The environment and argv of the processes an adapter starts.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace strata::adapters {

using EnvOverrides = std::vector<std::pair<std::string, std::string>>;

// NAME's value: the last entry of `overrides` that sets it, else our own
// environment's, else empty.
std::string env_lookup(const EnvOverrides& overrides, const std::string& name);

// Our environment with `overrides` applied (later entries win), as
// "NAME=value" strings; variables of our own for which `drop` returns true
// are left out, and all of them unless `inherit`.
std::vector<std::string> environment_merge(const EnvOverrides& overrides,
                                           const std::function<bool(std::string_view name)>& drop = {},
                                           bool inherit = true);

// execve's view of `strings`: pointers to them and a final nullptr. The
// strings must outlive the result.
std::vector<char*> c_array(std::vector<std::string>& strings);

}  // namespace strata::adapters
