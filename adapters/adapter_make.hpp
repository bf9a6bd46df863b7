// Builds the scheduler adapter of a table row (adapter_table.hpp): what a
// gatekeeper runs for an accepted subjob. Kept apart from the table so that
// only its users (the gatekeeper) link every adapter.
#pragma once

#include "job/adapter_table.hpp"
#include "adapters/scheduler_adapter.hpp"

#include <boost/asio/io_context.hpp>

#include <memory>
#include <string>

namespace strata::adapters {

// What an adapter may need of the site running it.
struct AdapterSettings {
    std::string scratch_dir;  // where per-job work directories go (slurm); empty: $TMPDIR, else /tmp
};

std::unique_ptr<SchedulerAdapter> adapter_make(job::AdapterKind kind, boost::asio::io_context& io,
                                               const AdapterSettings& settings);

}  // namespace strata::adapters
