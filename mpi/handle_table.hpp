// Integer handles for MPI objects: (kind << 26) | index into one table per
// kind. A handle of the wrong kind, out of range or already freed looks up to
// nullptr, which the entry points turn into the matching error class.
#pragma once

#include <memory>
#include <vector>

namespace strata::mpi {

enum HandleKind : int { kComm = 1, kDatatype = 2, kGroup = 3, kRequest = 4, kOp = 5, kErrhandler = 6, kKeyval = 7 };

inline constexpr int handle_make(int kind, int index) { return (kind << 26) | index; }

template <class T>
class HandleTable {
public:
    explicit HandleTable(int kind) : kind_(kind) {}

    // Places an object at a fixed index (predefined handles).
    int put(int index, std::unique_ptr<T> obj) {
        if (static_cast<std::size_t>(index) >= slots_.size()) slots_.resize(static_cast<std::size_t>(index) + 1);
        slots_[static_cast<std::size_t>(index)] = std::move(obj);
        return handle_make(kind_, index);
    }

    int add(std::unique_ptr<T> obj) {
        if (!free_.empty()) {
            int index = free_.back();
            free_.pop_back();
            return put(index, std::move(obj));
        }
        return put(static_cast<int>(slots_.size()), std::move(obj));
    }

    T* get(int handle) const {
        if ((handle >> 26) != kind_) return nullptr;
        const auto index = static_cast<std::size_t>(handle & ((1 << 26) - 1));
        return index < slots_.size() ? slots_[index].get() : nullptr;
    }

    void remove(int handle) {
        if (get(handle) == nullptr) return;
        const int index = handle & ((1 << 26) - 1);
        slots_[static_cast<std::size_t>(index)].reset();
        free_.push_back(index);
    }

    // A new handle naming an empty object (as T{} leaves it), which the
    // caller fills in place through `obj`: one that recycle() kept when there
    // is one. Request handles come and go with every nonblocking call, and an
    // allocation (or a value built aside and moved in) each time cost more
    // than the rest of the handle's work.
    [[gnu::always_inline]] int add_empty(T*& obj) {
        std::unique_ptr<T> kept;
        if (spare_.empty()) [[unlikely]] {
            kept = std::make_unique<T>();
        } else {
            kept = std::move(spare_.back());
            spare_.pop_back();
        }
        obj = kept.get();
        return add(std::move(kept));
    }
    // remove(), keeping the object (emptied: `*obj = T{}` releases what it
    // holds) for add_empty().
    [[gnu::always_inline]] void recycle(int handle) {
        T* obj = get(handle);
        if (obj == nullptr) return;
        const int index = handle & ((1 << 26) - 1);
        *obj = T{};
        if (spare_.size() < kSpares) {
            spare_.push_back(std::move(slots_[static_cast<std::size_t>(index)]));
        } else {
            slots_[static_cast<std::size_t>(index)].reset();
        }
        free_.push_back(index);
    }
    // Keeps indexes below `n` out of the free list (room for predefined objects).
    void reserve_predefined(int n) {
        if (slots_.size() < static_cast<std::size_t>(n)) slots_.resize(static_cast<std::size_t>(n));
    }

private:
    static constexpr std::size_t kSpares = 64;
    int kind_;
    std::vector<std::unique_ptr<T>> slots_;
    std::vector<int> free_;
    std::vector<std::unique_ptr<T>> spare_;  // objects recycle() kept
};

}  // namespace strata::mpi
