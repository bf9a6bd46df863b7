// Communicator files as mpirun and every process read them (XML or YAML, by
// content), resolved against a small job; and what mpirun writes for
// -gencomm, from places made of the input, must read back.
#include "commfile/comm_file.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    if (auto file = strata::commfile::parse(text, "fuzz.xml")) {
        strata::commfile::resolve(*file, {"p4-01", "p4-01", "p4-02", "pd-01", "pd-02", "a", "", std::string(40, '4').insert(0, "p") + "x"});
    }
    // Lines of the input as "site machine processor" places.
    std::vector<strata::commfile::Place> places;
    std::size_t at = 0;
    while (at < text.size() && places.size() < 64) {
        const std::size_t end = std::min(text.find('\n', at), text.size());
        const std::string line = text.substr(at, end - at);
        at = end + 1;
        const std::size_t a = line.find(' ');
        const std::size_t b = a == std::string::npos ? a : line.find(' ', a + 1);
        if (b == std::string::npos) continue;
        places.push_back({line.substr(0, a), line.substr(a + 1, b - a - 1), line.substr(b + 1)});
    }
    if (auto written = strata::commfile::generate(places)) {
        if (!strata::commfile::parse(*written, "gencomm")) std::abort();  // what we write, we read
    }
    return 0;
}
