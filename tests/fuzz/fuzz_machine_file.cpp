// Machine files and gatekeeper contacts.
#include "job/contact.hpp"
#include "job/machine_file.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    (void)strata::job::MachineFile::parse(text, "fuzz.machines");
    (void)strata::job::contact_parse(text);
    return 0;
}
