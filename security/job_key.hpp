// Per-job secrets.
//
// mpirun creates one key per job and hands it to every process it starts
// (STRATA_JOB_KEY). The key never travels over the job's own connections: a
// process proves it by the challenge-response of security/challenge.hpp, when
// it checks in and on every rank-to-rank link.
#pragma once

#include "base/result.hpp"

#include <string>

namespace strata::security {

// 32 bytes from the OpenSSL CSPRNG, as 64 lowercase hex digits. Fails if the
// generator is not seeded (callers must refuse to run).
base::Result<std::string> job_key_create();

}  // namespace strata::security
