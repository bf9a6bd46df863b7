#include "adapters/adapter_make.hpp"

#include "adapters/fork_adapter.hpp"
#include "adapters/slurm_adapter.hpp"

namespace strata::adapters {

std::unique_ptr<SchedulerAdapter> adapter_make(job::AdapterKind kind, boost::asio::io_context& io,
                                               const AdapterSettings& settings) {
    switch (kind) {
        case job::AdapterKind::fork: return std::make_unique<ForkAdapter>(io);
        case job::AdapterKind::slurm:
            return std::make_unique<SlurmAdapter>(io, SlurmAdapter::Options{settings.scratch_dir, ""});
    }
    return nullptr;
}

}  // namespace strata::adapters
