#include "gram/gram.hpp"

namespace strata::gram {

const char* version() { return STRATA_VERSION; }

std::string wire_check(const StagedFile& f) {
    if (!staged_name_valid(f.name)) return "'" + f.name + "' cannot be a staged file's name";
    return f.sha256.size() == 64 ? "" : "a SHA-256 that is not 64 hexadecimal digits";
}

std::string wire_check(const Submit& m) {
    if (m.count == 0) return "no processes";
    for (std::size_t i = 0; i < m.stage.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j)
            if (m.stage[j].name == m.stage[i].name) return "'" + m.stage[i].name + "' staged twice";
    }
    if (m.stage_program && m.stage.empty()) return "a staged program without staged files";
    if (m.delegation != "none" && m.delegation != "limited" && m.delegation != "full")
        return "delegation '" + m.delegation + "' is none of none, limited and full";
    if (static_cast<std::uint32_t>(m.batch.host_count) > m.count) return "more hosts than processes";
    return {};
}

bool staged_name_valid(const std::string& name) {
    return !name.empty() && name.size() <= 255 && name != "." && name != ".." && name.find('/') == std::string::npos &&
           name.find('\0') == std::string::npos;
}

}  // namespace strata::gram
