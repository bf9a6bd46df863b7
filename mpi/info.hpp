// Info objects (MPI-2 4.10): ordered (key, value) pairs behind MPI_Info
// handles. mpi/info.cpp holds the MPI_Info_* functions; other parts of the
// library use this interface:
//  - a call that takes an info reads it through info_lookup(), which tells
//    MPI_INFO_NULL (no object) from a handle naming no live info (the call
//    then raises MPI_ERR_INFO on MPI_COMM_WORLD's handler);
//  - a call that gives the program an info fills an Info and turns it into a
//    handle with info_create(); the program owns it and frees it with
//    MPI_Info_free.
// Everything runs between MPI_Init and MPI_Finalize, on the MPI thread; a
// pointer from info_lookup() is valid until the program next calls MPI.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mpi.h"

namespace strata::mpi {

// The longest key and value, in characters: with its NUL, a key always fits
// the MPI_MAX_INFO_KEY bytes and a value the MPI_MAX_INFO_VAL bytes that C
// programs are told to provide. A key is never empty.
inline constexpr std::size_t kInfoKeyMax = MPI_MAX_INFO_KEY - 1;
inline constexpr std::size_t kInfoValueMax = MPI_MAX_INFO_VAL - 1;

inline bool info_key_fits(std::string_view key) { return !key.empty() && key.size() <= kInfoKeyMax; }
inline bool info_value_fits(std::string_view value) { return value.size() <= kInfoValueMax; }

class Info {
public:
    // Sets key to value, replacing an earlier value (the key keeps its
    // place) or adding the key last. Stores nothing and returns false when
    // the key or the value does not fit (info_key_fits, info_value_fits).
    [[nodiscard]] bool set(std::string_view key, std::string_view value);
    std::optional<std::string> get(std::string_view key) const;
    // Removes key; false when it is not set.
    bool erase(std::string_view key);
    // The keys, numbered 0..size()-1 in the order they were set first.
    std::size_t size() const { return entries_.size(); }
    const std::string& key_nth(std::size_t n) const { return entries_.at(n).first; }

private:
    // The index of key in entries_, size() when it is not set.
    std::size_t index_of(std::string_view key) const;

    std::vector<std::pair<std::string, std::string>> entries_;
};

// The info a handle names: nullptr for MPI_INFO_NULL, std::nullopt when the
// handle names no live info.
std::optional<const Info*> info_lookup(MPI_Info handle);

// A new handle for `info`, which the program frees with MPI_Info_free.
MPI_Info info_create(Info info);

}  // namespace strata::mpi
