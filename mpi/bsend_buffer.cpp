#include "mpi/bsend_buffer.hpp"

#include "mpi.h"

namespace strata::mpi {

void BsendBuffer::attach(void* base, std::size_t size) {
    base_ = static_cast<std::byte*>(base);
    size_ = size;
    used_.clear();
}

void BsendBuffer::detach(void** base, std::size_t* size) {
    *base = base_;
    *size = size_;
    base_ = nullptr;
    size_ = 0;
    used_.clear();
}

std::optional<std::size_t> BsendBuffer::reserve(std::size_t bytes) {
    const std::size_t need = bytes + MPI_BSEND_OVERHEAD;
    std::size_t cursor = 0;
    for (const auto& [off, len] : used_) {
        if (off - cursor >= need) break;
        cursor = off + len;
    }
    if (cursor > size_ || size_ - cursor < need) return std::nullopt;
    used_.emplace(cursor, need);
    return cursor;
}

void BsendBuffer::release(std::size_t offset) { used_.erase(offset); }

}  // namespace strata::mpi
