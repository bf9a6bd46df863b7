// Job descriptions as mpirun reads them (YAML or RSL, by content), and the
// RSL mpirun writes back for an accepted one (which must read back).
#include "job/job_request.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    auto request = strata::job::parse_job_file(text, "fuzz.job");
    if (!request) return 0;
    const std::string rsl = strata::job::job_request_rsl(*request);
    if (!strata::job::parse_job_rsl(rsl, "fuzz.rsl")) std::abort();  // what we write, we read
    return 0;
}
