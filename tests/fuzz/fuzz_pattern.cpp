// Processor-name patterns (commfile/pattern.hpp): the input's first line is
// compiled, and each later line is matched against it. Whatever the input,
// compiling ends with a program or an error, and a match visits each state at
// most once per character of the name: the bound that keeps a communicator
// file from hanging every process.
#include "commfile/pattern.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    const std::size_t eol = text.find('\n');
    auto pattern = strata::commfile::Pattern::compile(text.substr(0, eol));
    if (!pattern || eol == std::string_view::npos) return 0;
    if (pattern->size() > strata::commfile::Pattern::max_program) std::abort();
    std::string_view rest = text.substr(eol + 1);
    for (;;) {
        const std::size_t end = rest.find('\n');
        const std::string_view name = rest.substr(0, end);
        std::size_t steps = 0;
        pattern->match(name, &steps);
        if (steps > (name.size() + 1) * pattern->size()) std::abort();
        if (end == std::string_view::npos) break;
        rest = rest.substr(end + 1);
    }
    return 0;
}
