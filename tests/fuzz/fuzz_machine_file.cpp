// Machine files and gatekeeper contacts.
#include "launcher/contact.hpp"
#include "launcher/machine_file.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    std::string error;
    (void)strata::launcher::MachineFile::parse(text, "fuzz.machines", error);
    std::size_t offset = 0;
    (void)strata::launcher::contact_parse(text, error, offset);
    return 0;
}
