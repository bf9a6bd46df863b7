// The conversions of fortran/convert.hpp that are not one line.
#include "fortran/convert.hpp"

#include <algorithm>
#include <climits>
#include <cstring>

#include "mpi/errors.hpp"

namespace strata::fortran {

StatusesOut::StatusesOut(MPI_Fint* f, MPI_Fint size, const MPI_Fint* copied)
    : f_(is_common(f, &Commons::statuses_ignore) || is_common(f, &Commons::status_ignore) ? nullptr : f),
      copied_(copied),
      size_(std::max<MPI_Fint>(size, 0)),
      data_(small_.data()) {
    if (f_ != nullptr && static_cast<std::size_t>(size_) > small_.size()) {
        large_.resize(static_cast<std::size_t>(size_));
        data_ = large_.data();
    }
}

StatusesOut::~StatusesOut() {
    if (f_ == nullptr) return;
    const MPI_Fint n = std::min(*copied_, size_);
    for (MPI_Fint i = 0; i < n; ++i) mpi::status_c2f(&data_[i], f_ + static_cast<std::ptrdiff_t>(i) * mpi::kFortranStatusSize);
}

StringIn::StringIn(const char* f, std::size_t len, Blanks strip) {
    while (len > 0 && f[len - 1] == ' ') --len;
    std::size_t start = 0;
    if (strip == Blanks::both) {
        while (start < len && f[start] == ' ') ++start;
    }
    s_.assign(f + start, len - start);
}

void string_to_fortran(const char* c, char* f, std::size_t len) {
    const std::size_t n = std::min(std::strlen(c), len);
    std::memcpy(f, c, n);
    std::memset(f + n, ' ', len - n);
}

int aint_to_fortran(MPI_Aint value, MPI_Fint* f, const char* fn) {
    if (value < INT_MIN || value > INT_MAX) {
        return mpi::error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                                "the value " + std::to_string(value) +
                                    " does not fit in a default INTEGER; the MPI-2 routine with "
                                    "INTEGER(KIND=MPI_ADDRESS_KIND) arguments gives it whole");
    }
    *f = static_cast<MPI_Fint>(value);
    return MPI_SUCCESS;
}

// Never empty, so that C always sees an array even for a count of 0.
AintsIn::AintsIn(const MPI_Fint* f, MPI_Fint n) : c_(static_cast<std::size_t>(std::max<MPI_Fint>(n, 1))) {
    for (MPI_Fint i = 0; i < n; ++i) c_[static_cast<std::size_t>(i)] = f[i];
}

}  // namespace strata::fortran
