// Reading a whole (small) file: job descriptions, machine files.
#pragma once

#include <optional>
#include <string>

namespace strata::base {

// The contents of `path`, or nullopt with the errno value in `err`
// (e.g. ENOENT, EACCES, EISDIR).
std::optional<std::string> file_read(const std::string& path, int& err);

}  // namespace strata::base
