// The buffer of MPI_Buffer_attach and the space management of buffered sends.
//
// Each buffered message occupies its packed size plus MPI_BSEND_OVERHEAD bytes
// of the user's buffer, first fit, for as long as its internal send is in
// flight; the standard's sizing rule (sum of Pack_size + MPI_BSEND_OVERHEAD)
// is therefore exactly what a user must provide.
#pragma once

#include <cstddef>
#include <map>
#include <optional>

namespace strata::mpi {

class BsendBuffer {
public:
    bool attached() const { return base_ != nullptr; }
    void attach(void* base, std::size_t size);
    // Forgets the buffer; the caller has waited until in_use() == 0.
    void detach(void** base, std::size_t* size);

    // Offset of a free region able to hold `bytes` of data, reserved until release().
    std::optional<std::size_t> reserve(std::size_t bytes);
    void release(std::size_t offset);
    std::byte* at(std::size_t offset) const { return base_ + offset; }
    std::size_t in_use() const { return used_.size(); }

private:
    std::byte* base_ = nullptr;
    std::size_t size_ = 0;
    std::map<std::size_t, std::size_t> used_;  // offset -> length (data + overhead)
};

}  // namespace strata::mpi
