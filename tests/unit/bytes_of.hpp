// For tests that spell out the exact bytes of a wire form: bytes_of({0x01, 0xFF}).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <vector>

namespace strata::test {

inline std::vector<std::byte> bytes_of(std::initializer_list<unsigned> v) {
    std::vector<std::byte> out;
    for (unsigned b : v) out.push_back(static_cast<std::byte>(b));
    return out;
}

}  // namespace strata::test
