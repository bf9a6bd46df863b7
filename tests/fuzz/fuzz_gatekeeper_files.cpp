// A site's grid-mapfile and gatekeeper configuration.
#include "gatekeeper/config.hpp"
#include "gatekeeper/gridmap.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    (void)strata::gatekeeper::GridMap::parse(text, "fuzz.gridmap");
    (void)strata::gatekeeper::Config::parse(text, "fuzz.yaml");
    return 0;
}
