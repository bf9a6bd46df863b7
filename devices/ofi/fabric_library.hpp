// libfabric, loaded when the ofi method is asked for (STRATA_OFI_PROVIDER)
// instead of linked into libstrata. Linking it made every process load its
// providers' libraries at start-up, whether or not the job used ofi, and on
// Debian that includes libinfinipath, whose constructor sleeps about 0.2 s
// probing for InfiniPath hardware: most of a small job's start-up time.
//
// The method calls libfabric's few exported functions through this table;
// everything else it uses (fi_domain, fi_endpoint, fi_cq_read, ...) is an
// inline call through the objects' operation tables, which the library fills
// once loaded.
#pragma once

#include <rdma/fabric.h>

#include "base/result.hpp"

namespace strata::dev::ofi {

struct FabricLibrary {
    decltype(&::fi_getinfo) getinfo = nullptr;
    decltype(&::fi_freeinfo) freeinfo = nullptr;
    decltype(&::fi_dupinfo) dupinfo = nullptr;
    decltype(&::fi_fabric) fabric = nullptr;
    decltype(&::fi_strerror) strerror = nullptr;
};

// The library, loaded (dlopen of libfabric.so.1) on the first call and kept;
// fails naming what is missing (and every later call says the same).
base::Result<const FabricLibrary*> fabric_library();

}  // namespace strata::dev::ofi
