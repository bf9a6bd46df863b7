#include "base/fields.hpp"

namespace strata::base {

std::string Position::text() const { return std::to_string(line) + ":" + std::to_string(column); }

}  // namespace strata::base
