#include "devices/ofi/fabric_library.hpp"

#include <dlfcn.h>

#include <string>

namespace strata::dev::ofi {

namespace {

// The soname of the libfabric ABI the headers describe (1.x).
constexpr const char* kSoname = "libfabric.so.1";

template <class F>
bool resolve(void* handle, const char* name, F& out, std::string& missing) {
    out = reinterpret_cast<F>(::dlsym(handle, name));
    if (out == nullptr) missing += std::string(missing.empty() ? "" : ", ") + name;
    return out != nullptr;
}

base::Result<FabricLibrary> load() {
    void* handle = ::dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        const char* why = ::dlerror();
        return base::Error{std::string("cannot load ") + kSoname + ": " + (why != nullptr ? why : "unknown error") +
                           "; install libfabric (Debian: libfabric1) or leave STRATA_OFI_PROVIDER unset"};
    }
    FabricLibrary lib;
    std::string missing;
    resolve(handle, "fi_getinfo", lib.getinfo, missing);
    resolve(handle, "fi_freeinfo", lib.freeinfo, missing);
    resolve(handle, "fi_dupinfo", lib.dupinfo, missing);
    resolve(handle, "fi_fabric", lib.fabric, missing);
    resolve(handle, "fi_strerror", lib.strerror, missing);
    if (!missing.empty()) {
        ::dlclose(handle);
        return base::Error{std::string(kSoname) + " lacks " + missing};
    }
    return lib;  // the handle stays open for the life of the process
}

}  // namespace

base::Result<const FabricLibrary*> fabric_library() {
    static const base::Result<FabricLibrary> loaded = load();
    if (!loaded) return loaded.failure();
    return &*loaded;
}

}  // namespace strata::dev::ofi
