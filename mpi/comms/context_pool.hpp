// Context ids. Every communicator owns a pair of engine contexts: 2k for its
// point-to-point traffic and 2k+1 for its collectives. Which pairs are free
// differs between processes (each frees communicators on its own schedule),
// so a new communicator takes the lowest pair that is free at every member:
// the members AND their masks and all pick the same lowest bit.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <vector>

#include "base/little_endian.hpp"

namespace strata::mpi {

class ContextPool {
public:
    static constexpr int kPairs = 8192;
    using Mask = std::array<std::uint64_t, kPairs / 64>;

    // Pairs 0 (MPI_COMM_WORLD) and 1 (MPI_COMM_SELF) are never free.
    ContextPool() {
        free_.fill(~std::uint64_t{0});
        take(0);
        take(1);
    }

    const Mask& mask() const { return free_; }

    // The lowest pair set in `agreed`, or -1 when none is.
    static int lowest(const Mask& agreed) {
        for (std::size_t w = 0; w < agreed.size(); ++w) {
            if (agreed[w] != 0) return static_cast<int>(w * 64) + std::countr_zero(agreed[w]);
        }
        return -1;
    }

    // The mask as it travels between processes: every word little-endian, so
    // pair p is bit p % 8 of byte p / 8 whatever a process's byte order.
    static Mask to_wire(const Mask& m) {
        Mask w{};
        for (std::size_t i = 0; i < m.size(); ++i) w[i] = base::to_little(m[i]);
        return w;
    }
    static Mask from_wire(const Mask& w) { return to_wire(w); }  // a byte swap is its own inverse

    // The wire mask as a byte string (a field of a control message), and
    // back: nullopt unless the bytes are a whole mask.
    static std::vector<std::uint8_t> bytes_of(const Mask& m) {
        const Mask w = to_wire(m);
        std::vector<std::uint8_t> out(sizeof w);
        std::memcpy(out.data(), w.data(), sizeof w);
        return out;
    }
    static std::optional<Mask> mask_of(std::span<const std::uint8_t> bytes) {
        if (bytes.size() != sizeof(Mask)) return std::nullopt;
        Mask w{};
        std::memcpy(w.data(), bytes.data(), sizeof w);
        return from_wire(w);
    }

    void take(int pair) { free_[word(pair)] &= ~bit(pair); }
    void release(int pair) { free_[word(pair)] |= bit(pair); }

    static int context_of(int pair) { return 2 * pair; }
    static int pair_of(int context) { return context / 2; }

private:
    static std::size_t word(int pair) { return static_cast<std::size_t>(pair) / 64; }
    static std::uint64_t bit(int pair) { return std::uint64_t{1} << (static_cast<unsigned>(pair) % 64); }

    Mask free_{};
};

}  // namespace strata::mpi
