// Integer handles for MPI objects: (kind << 26) | index into one table per
// kind. A handle of the wrong kind, out of range or already freed looks up to
// nullptr, which the entry points turn into the matching error class.
#pragma once

#include <memory>
#include <type_traits>
#include <vector>

namespace strata::mpi {

enum HandleKind : int {
    kComm = 1,
    kDatatype = 2,
    kGroup = 3,
    kRequest = 4,
    kOp = 5,
    kErrhandler = 6,
    kKeyval = 7,
    kInfo = 8,
};

inline constexpr int handle_make(int kind, int index) { return (kind << 26) | index; }

template <class T>
class HandleTable {
public:
    explicit HandleTable(int kind) : kind_(kind) {}

    // Places an object at a fixed index (predefined handles).
    int put(int index, std::unique_ptr<T> obj) {
        const auto i = static_cast<std::size_t>(index);
        if (i >= slots_.size()) resize(i + 1);
        live_[i] = obj.get();
        slots_[i] = std::move(obj);
        return handle_make(kind_, index);
    }

    int add(std::unique_ptr<T> obj) { return put(index_take(), std::move(obj)); }

    T* get(int handle) const {
        if ((handle >> 26) != kind_) return nullptr;
        const auto index = static_cast<std::size_t>(handle & ((1 << 26) - 1));
        return index < live_.size() ? live_[index] : nullptr;
    }

    void remove(int handle) {
        if (get(handle) == nullptr) return;
        const int index = handle & ((1 << 26) - 1);
        live_[static_cast<std::size_t>(index)] = nullptr;
        slots_[static_cast<std::size_t>(index)].reset();
        free_.push_back(index);
    }

    // A new handle naming an empty object (as T{} leaves it), which the
    // caller fills in place through `obj`: the object a recycled handle left
    // at its index when there is one. Request handles come and go with every
    // nonblocking call, and an allocation (or a value built aside and moved
    // in) each time cost more than the rest of the handle's work.
    [[gnu::always_inline]] int add_empty(T*& obj) {
        const int index = index_take();
        std::unique_ptr<T>& kept = slots_[static_cast<std::size_t>(index)];
        if (!kept) [[unlikely]] kept = std::make_unique<T>();
        obj = live_[static_cast<std::size_t>(index)] = kept.get();
        return handle_make(kind_, index);
    }
    // remove(), keeping the object at its index (emptied: destroyed and
    // built again as T{}, which releases what it held) for add_empty().
    // Objects so kept are at most as many as the handles that were ever live
    // at once.
    [[gnu::always_inline]] void recycle(int handle) {
        if (T* obj = get(handle)) recycle(handle, *obj);
    }
    // The same for a handle the caller has just looked up: `obj` is
    // get(handle), not looked up again (the request of every completed
    // nonblocking call goes this way).
    [[gnu::always_inline]] void recycle(int handle, T& obj) {
        static_assert(std::is_nothrow_default_constructible_v<T>, "an object between two lives must not throw");
        const int index = handle & ((1 << 26) - 1);
        std::destroy_at(&obj);
        std::construct_at(&obj);
        live_[static_cast<std::size_t>(index)] = nullptr;
        free_.push_back(index);
    }
    // Calls f(object) for every live object.
    template <class F>
    void each(F&& f) const {
        for (T* obj : live_)
            if (obj != nullptr) f(*obj);
    }
    // Keeps indexes below `n` out of the free list (room for predefined objects).
    void reserve_predefined(int n) {
        if (slots_.size() < static_cast<std::size_t>(n)) resize(static_cast<std::size_t>(n));
    }

private:
    // A free index: one a removed or recycled handle left, or a new one.
    int index_take() {
        if (free_.empty()) [[unlikely]] {
            resize(slots_.size() + 1);
            return static_cast<int>(slots_.size() - 1);
        }
        const int index = free_.back();
        free_.pop_back();
        return index;
    }
    void resize(std::size_t n) {
        slots_.resize(n);
        live_.resize(n, nullptr);
    }

    int kind_;
    std::vector<std::unique_ptr<T>> slots_;  // by index: the object, live or kept by recycle()
    std::vector<T*> live_;                   // by index: the object a live handle names, else nullptr
    std::vector<int> free_;
};

}  // namespace strata::mpi
