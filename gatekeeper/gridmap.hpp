// The grid-mapfile: which certificate subjects may use this site, and as
// which local accounts (Globus format).
//
//   # comment
//   "/O=Strata Grid/OU=Users/CN=Jane Doe" jane
//   "/O=Strata Grid/OU=Users/CN=Bob Q. Public" bob,guest
//   /O=Strata/CN=nospaces alice
//
// A DN is quoted (inside, \" and \\ are a quote and a backslash) or a single
// word; then one or more account names separated by commas. The first
// account is the default. A subject listed twice is an error, as is anything
// else that is not a comment, a blank line or an entry.
#pragma once

#include "base/result.hpp"

#include <string>
#include <vector>

namespace strata::gatekeeper {

class GridMap {
public:
    // `path` only names the file in messages ("PATH:LINE: what is wrong").
    static base::Result<GridMap> parse(const std::string& text, const std::string& path);
    static base::Result<GridMap> load(const std::string& path);

    // The accounts `subject` maps to (first = default), or nullptr.
    const std::vector<std::string>* accounts(const std::string& subject) const;
    std::size_t size() const { return entries_.size(); }

private:
    std::vector<std::pair<std::string, std::vector<std::string>>> entries_;
};

}  // namespace strata::gatekeeper
