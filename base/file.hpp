// Reading a whole (small) file: job descriptions, machine files, the
// gatekeeper's configuration and grid-mapfile; and walking the lines of a
// file of words (collective rules, P-LogP parameters).
#pragma once

#include "base/result.hpp"

#include <functional>
#include <string>
#include <vector>

namespace strata::base {

// The contents of `path`; fails with "cannot read WHAT 'PATH': <strerror>"
// (e.g. "No such file or directory", "Is a directory").
Result<std::string> file_read(const std::string& path, const std::string& what);

// Calls `each` with the number and the words of every line of `text` that has
// any ('#' to the end of a line is a comment). The first failure of `each`
// stops the walk and is returned with the prefix "WHERE:LINE: ".
using LineFn = std::function<Status(int line, const std::vector<std::string>& words)>;
Status lines_of_words(const std::string& text, const std::string& where, const LineFn& each);

}  // namespace strata::base
