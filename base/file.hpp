// Reading a whole (small) file: job descriptions, machine files, the
// gatekeeper's configuration and grid-mapfile; and walking the lines of a
// file of words (collective rules, P-LogP parameters).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace strata::base {

// The contents of `path`, or nullopt with `error` set to
// "cannot read WHAT 'PATH': <strerror>" (e.g. "No such file or directory",
// "Is a directory").
std::optional<std::string> file_read(const std::string& path, const std::string& what, std::string& error);

// Calls `each` with the number and the words of every line of `text` that has
// any ('#' to the end of a line is a comment). `each` returns false with
// `error` set to stop; the error then gets the prefix "WHERE:LINE: ".
using LineFn = std::function<bool(int line, const std::vector<std::string>& words, std::string& error)>;
bool lines_of_words(const std::string& text, const std::string& where, const LineFn& each, std::string& error);

}  // namespace strata::base
