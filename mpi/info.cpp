// Info objects (MPI-2 4.10) and the MPI_Info_* functions. No info belongs to
// a communicator, so every error goes to MPI_COMM_WORLD's handler.
#include "mpi/info.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <memory>

#include "mpi/errors.hpp"
#include "mpi/pmpi_alias.hpp"
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

using namespace strata::mpi;

namespace {

int raise(int cls, const char* fn, const std::string& detail) { return error_raise(MPI_COMM_WORLD, cls, fn, detail); }

// The checks of the arguments: MPI_SUCCESS, or the class raised.
int info_check(const char* fn, MPI_Info handle, Info*& info) {
    info = rt().infos.get(handle);
    if (info != nullptr) return MPI_SUCCESS;
    if (handle == MPI_INFO_NULL) return raise(MPI_ERR_INFO, fn, "info is MPI_INFO_NULL; make one with MPI_Info_create");
    return raise(MPI_ERR_INFO, fn, "info names no info object (never created, or freed)");
}

int pointer_check(const char* fn, const void* p, const char* what) {
    if (p != nullptr) return MPI_SUCCESS;
    std::string detail = what;
    detail += " is NULL";
    return raise(MPI_ERR_ARG, fn, detail);
}

// The key as a view; at most kInfoKeyMax + 1 characters are read.
int key_check(const char* fn, const char* key, std::string_view& out) {
    if (const int rc = pointer_check(fn, key, "key")) return rc;
    out = std::string_view(key, strnlen(key, kInfoKeyMax + 1));
    if (info_key_fits(out)) return MPI_SUCCESS;
    if (out.empty()) return raise(MPI_ERR_INFO_KEY, fn, "the key is empty");
    std::string detail = "the key is longer than ";
    detail += std::to_string(kInfoKeyMax);
    detail += " characters (MPI_MAX_INFO_KEY - 1, room for the NUL)";
    return raise(MPI_ERR_INFO_KEY, fn, detail);
}

int value_check(const char* fn, const char* value, std::string_view& out) {
    if (const int rc = pointer_check(fn, value, "value")) return rc;
    out = std::string_view(value, strnlen(value, kInfoValueMax + 1));
    if (info_value_fits(out)) return MPI_SUCCESS;
    std::string detail = "the value is longer than ";
    detail += std::to_string(kInfoValueMax);
    detail += " characters (MPI_MAX_INFO_VAL - 1, room for the NUL)";
    return raise(MPI_ERR_INFO_VALUE, fn, detail);
}

// `s`, cut to `max` characters, into `out` as a C string (with its NUL).
void string_copy(const std::string& s, std::size_t max, char* out) {
    const std::size_t n = std::min(s.size(), max);
    s.copy(out, n);
    out[n] = '\0';
}

}  // namespace

extern "C" {

STRATA_PMPI_ALIAS(MPI_Info_create);
int PMPI_Info_create(MPI_Info* info) {
    static const char* fn = "MPI_Info_create";
    return api(fn, [&] {
        if (const int rc = pointer_check(fn, info, "info")) return rc;
        *info = info_create(Info{});
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Info_set);
int PMPI_Info_set(MPI_Info info, const char* key, const char* value) {
    static const char* fn = "MPI_Info_set";
    return api(fn, [&] {
        Info* i = nullptr;
        std::string_view k;
        std::string_view v;
        if (const int rc = info_check(fn, info, i)) return rc;
        if (const int rc = key_check(fn, key, k)) return rc;
        if (const int rc = value_check(fn, value, v)) return rc;
        (void)i->set(k, v);  // both fit: checked above
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Info_get);
int PMPI_Info_get(MPI_Info info, const char* key, int valuelen, char* value, int* flag) {
    static const char* fn = "MPI_Info_get";
    return api(fn, [&] {
        Info* i = nullptr;
        std::string_view k;
        if (const int rc = info_check(fn, info, i)) return rc;
        if (const int rc = key_check(fn, key, k)) return rc;
        if (valuelen < 0) {
            return raise(MPI_ERR_ARG, fn, std::string("valuelen is negative: ") + std::to_string(valuelen));
        }
        if (const int rc = pointer_check(fn, value, "value")) return rc;
        if (const int rc = pointer_check(fn, flag, "flag")) return rc;
        // valuelen characters and the NUL; value is left alone without the key.
        const std::optional<std::string> v = i->get(k);
        if (v) string_copy(*v, static_cast<std::size_t>(valuelen), value);
        *flag = v ? 1 : 0;
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Info_get_valuelen);
int PMPI_Info_get_valuelen(MPI_Info info, const char* key, int* valuelen, int* flag) {
    static const char* fn = "MPI_Info_get_valuelen";
    return api(fn, [&] {
        Info* i = nullptr;
        std::string_view k;
        if (const int rc = info_check(fn, info, i)) return rc;
        if (const int rc = key_check(fn, key, k)) return rc;
        if (const int rc = pointer_check(fn, valuelen, "valuelen")) return rc;
        if (const int rc = pointer_check(fn, flag, "flag")) return rc;
        // Without the key, valuelen is left alone.
        const std::optional<std::string> v = i->get(k);
        if (v) *valuelen = static_cast<int>(v->size());
        *flag = v ? 1 : 0;
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Info_delete);
int PMPI_Info_delete(MPI_Info info, const char* key) {
    static const char* fn = "MPI_Info_delete";
    return api(fn, [&] {
        Info* i = nullptr;
        std::string_view k;
        if (const int rc = info_check(fn, info, i)) return rc;
        if (const int rc = key_check(fn, key, k)) return rc;
        if (!i->erase(k)) {
            std::string detail = "the key '";
            detail += k;
            detail += "' is not set";
            return raise(MPI_ERR_INFO_NOKEY, fn, detail);
        }
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Info_get_nkeys);
int PMPI_Info_get_nkeys(MPI_Info info, int* nkeys) {
    static const char* fn = "MPI_Info_get_nkeys";
    return api(fn, [&] {
        Info* i = nullptr;
        if (const int rc = info_check(fn, info, i)) return rc;
        if (const int rc = pointer_check(fn, nkeys, "nkeys")) return rc;
        *nkeys = static_cast<int>(i->size());
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Info_get_nthkey);
int PMPI_Info_get_nthkey(MPI_Info info, int n, char* key) {
    static const char* fn = "MPI_Info_get_nthkey";
    return api(fn, [&] {
        Info* i = nullptr;
        if (const int rc = info_check(fn, info, i)) return rc;
        if (n < 0 || static_cast<std::size_t>(n) >= i->size()) {
            std::string detail = "n is ";
            detail += std::to_string(n);
            detail += "; the info has ";
            detail += std::to_string(i->size());
            detail += " keys, numbered from 0 (MPI_Info_get_nkeys)";
            return raise(MPI_ERR_ARG, fn, detail);
        }
        if (const int rc = pointer_check(fn, key, "key")) return rc;
        string_copy(i->key_nth(static_cast<std::size_t>(n)), kInfoKeyMax, key);
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Info_dup);
int PMPI_Info_dup(MPI_Info info, MPI_Info* newinfo) {
    static const char* fn = "MPI_Info_dup";
    return api(fn, [&] {
        Info* i = nullptr;
        if (const int rc = info_check(fn, info, i)) return rc;
        if (const int rc = pointer_check(fn, newinfo, "newinfo")) return rc;
        *newinfo = info_create(*i);
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Info_free);
int PMPI_Info_free(MPI_Info* info) {
    static const char* fn = "MPI_Info_free";
    return api(fn, [&] {
        Info* i = nullptr;
        if (const int rc = pointer_check(fn, info, "info")) return rc;
        if (const int rc = info_check(fn, *info, i)) return rc;
        rt().infos.remove(*info);
        *info = MPI_INFO_NULL;
        return MPI_SUCCESS;
    });
}

}  // extern "C"
