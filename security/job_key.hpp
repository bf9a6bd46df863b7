// Per-job secrets.
//
// mpirun creates one key per job and hands it to every process it starts
// (STRATA_JOB_KEY). A process proves membership of the job by presenting the
// key when it checks in; later the same key authenticates rank-to-rank links.
// Keys are compared only with job_key_equal, so a stranger probing the
// control port learns nothing from response timing.
#pragma once

#include <string>

namespace strata::security {

// 32 bytes from the OpenSSL CSPRNG, as 64 lowercase hex digits. Returns an
// empty string if the generator is not seeded (callers must refuse to run).
std::string job_key_create();

// Constant-time comparison (for equal lengths; the length is not secret).
bool job_key_equal(const std::string& a, const std::string& b);

}  // namespace strata::security
