// STRATA_BIND_TO, the setting that says what each rank binds to in MPI_Init
// (kBindTo in wireup/settings.hpp; `mpirun -bind-to` and a job file's
// `bind_to:` key set it): core, socket or none; unset is the default rule.
// The binding itself is placement/binding.hpp's.
#pragma once

#include <string>

#include "base/result.hpp"
#include "wireup/settings.hpp"

namespace strata::wireup {

enum class BindTo { automatic, core, socket, none };

// "core", "socket", "none"; fails naming the allowed values (kBindTo.expects).
base::Result<BindTo> bind_to_parse(const std::string& text);
// This process's setting: automatic when unset; fails on a bad value.
base::Result<BindTo> bind_to_setting();

}  // namespace strata::wireup
