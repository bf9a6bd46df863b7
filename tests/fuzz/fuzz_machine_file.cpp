// Machine files and gatekeeper contacts.
#include "job/contact.hpp"
#include "job/machine_file.hpp"
#include "job/slurm_allocation.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    (void)strata::job::MachineFile::parse(text, "fuzz.machines");
    // The Slurm allocation's host list and task counts, read from the environment.
    (void)strata::job::slurm_hostlist_expand(text);
    (void)strata::job::slurm_tasks_per_node(text, 64);
    (void)strata::job::contact_parse(text);
    return 0;
}
