// Info objects (MPI-2 4.10) and the MPI_Info_* functions. No info belongs to
// a communicator, so every error goes to MPI_COMM_WORLD's handler.
#include "mpi/info.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>

#include "mpi/errors.hpp"
#include "mpi/entry.hpp"
#include "mpi/runtime.hpp"

namespace strata::mpi {

std::size_t Info::index_of(std::string_view key) const {
    std::size_t n = 0;
    while (n < entries_.size() && entries_[n].first != key) ++n;
    return n;
}

bool Info::set(std::string_view key, std::string_view value) {
    if (!info_key_fits(key) || !info_value_fits(value)) return false;
    const std::size_t n = index_of(key);
    if (n == entries_.size()) {
        entries_.emplace_back(key, value);
    } else {
        entries_[n].second = value;
    }
    return true;
}

std::optional<std::string> Info::get(std::string_view key) const {
    const std::size_t n = index_of(key);
    if (n == entries_.size()) return std::nullopt;
    return entries_[n].second;
}

bool Info::erase(std::string_view key) {
    const std::size_t n = index_of(key);
    if (n == entries_.size()) return false;
    entries_.erase(entries_.begin() + static_cast<std::ptrdiff_t>(n));
    return true;
}

std::optional<const Info*> info_lookup(MPI_Info handle) {
    if (handle == MPI_INFO_NULL) return nullptr;
    const Info* info = rt().infos.get(handle);
    if (info == nullptr) return std::nullopt;
    return info;
}

MPI_Info info_create(Info info) { return rt().infos.add(std::make_unique<Info>(std::move(info))); }

}  // namespace strata::mpi

namespace strata::mpi {
namespace {

// `s`, cut to `max` characters, into `out` as a C string (with its NUL).
void string_copy(const std::string& s, std::size_t max, char* out) {
    const std::size_t n = std::min(s.size(), max);
    s.copy(out, n);
    out[n] = '\0';
}

}  // namespace

namespace body {

int Info_create(const Call&, MPI_Info& info) {
    info = info_create(Info{});
    return MPI_SUCCESS;
}

int Info_set(const Call&, Info& info, std::string_view key, std::string_view value) {
    (void)info.set(key, value);  // both fit: checked by the entry point
    return MPI_SUCCESS;
}

int Info_get(const Call&, Info& info, std::string_view key, int valuelen, char* value, int& flag) {
    // valuelen characters and the NUL; value is left alone without the key.
    const std::optional<std::string> v = info.get(key);
    if (v) string_copy(*v, static_cast<std::size_t>(valuelen), value);
    flag = v ? 1 : 0;
    return MPI_SUCCESS;
}

int Info_get_valuelen(const Call&, Info& info, std::string_view key, int& valuelen, int& flag) {
    // Without the key, valuelen is left alone.
    const std::optional<std::string> v = info.get(key);
    if (v) valuelen = static_cast<int>(v->size());
    flag = v ? 1 : 0;
    return MPI_SUCCESS;
}

int Info_delete(const Call& call, Info& info, std::string_view key) {
    if (info.erase(key)) return MPI_SUCCESS;
    std::string detail = "the key '";
    detail += key;
    detail += "' is not set";
    return call.raise(MPI_ERR_INFO_NOKEY, detail);
}

int Info_get_nkeys(const Call&, Info& info, int& nkeys) {
    nkeys = static_cast<int>(info.size());
    return MPI_SUCCESS;
}

int Info_get_nthkey(const Call& call, Info& info, int n, char* key) {
    if (n < 0 || static_cast<std::size_t>(n) >= info.size()) {
        std::string detail = "n is ";
        detail += std::to_string(n);
        detail += "; the info has ";
        detail += std::to_string(info.size());
        detail += " keys, numbered from 0 (MPI_Info_get_nkeys)";
        return call.raise(MPI_ERR_ARG, detail);
    }
    string_copy(info.key_nth(static_cast<std::size_t>(n)), kInfoKeyMax, key);
    return MPI_SUCCESS;
}

int Info_dup(const Call&, Info& info, MPI_Info& newinfo) {
    newinfo = info_create(info);
    return MPI_SUCCESS;
}

int Info_free(const Call& call, MPI_Info& info) {
    Info* i = nullptr;
    if (int e = check::info(call, info, i)) return e;
    rt().infos.remove(info);
    info = MPI_INFO_NULL;
    return MPI_SUCCESS;
}

}  // namespace body
}  // namespace strata::mpi

#include "info.inc"
