// adi::Segment: message data that is not one contiguous byte range.
//
// The engine moves messages as a stream of packed bytes. When the user's
// layout is not contiguous, the layer above (mpi/, which owns datatypes) hands
// the engine a Segment, and the engine asks it for pieces of the stream by
// offset: a sender packs one bounded chunk at a time into a staging buffer
// just before it goes out, and a receiver unpacks each chunk as it lands. A
// message of any size therefore moves in memory bounded by a few chunks.
//
// Calls come from the progress engine only, with offset + n never beyond
// size(); pieces of one message are asked for in increasing order, but a
// Segment must not depend on that.
#pragma once

#include <cstddef>

namespace strata::adi {

class Segment {
public:
    virtual ~Segment() = default;
    // Packed bytes of the whole message.
    virtual std::size_t size() const = 0;
    // Copies packed bytes [offset, offset + n) to `out`.
    virtual void pack(std::size_t offset, std::size_t n, std::byte* out) const = 0;
    // Stores packed bytes [offset, offset + n) from `in` into the user's layout.
    virtual void unpack(std::size_t offset, std::size_t n, const std::byte* in) = 0;
};

}  // namespace strata::adi
