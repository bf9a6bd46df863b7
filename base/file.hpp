// Reading a whole (small) file: job descriptions, machine files, the
// gatekeeper's configuration and grid-mapfile.
#pragma once

#include <optional>
#include <string>

namespace strata::base {

// The contents of `path`, or nullopt with `error` set to
// "cannot read WHAT 'PATH': <strerror>" (e.g. "No such file or directory",
// "Is a directory").
std::optional<std::string> file_read(const std::string& path, const std::string& what, std::string& error);

}  // namespace strata::base
