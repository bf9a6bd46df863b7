// The reduction operation as algorithms see it: a function on dense elements.
// The MPI layer builds one per call from (MPI_Op, datatype); algorithms only
// combine, split vectors on element boundaries, and respect commutativity.
#pragma once

#include <cstddef>

namespace strata::coll {

class ReduceOp {
public:
    ReduceOp(std::size_t element_bytes, bool commutative) : element_bytes_(element_bytes), commutative_(commutative) {}
    virtual ~ReduceOp() = default;

    // inout[i] = in[i] op inout[i] for `count` dense elements. The operand from
    // the lower ranks must be `in` when the operation is not commutative.
    virtual void apply(const void* in, void* inout, std::size_t count) const = 0;

    // Bytes of one dense element: vectors are split only at multiples of it.
    std::size_t element_bytes() const { return element_bytes_; }
    bool commutative() const { return commutative_; }

private:
    std::size_t element_bytes_;
    bool commutative_;
};

}  // namespace strata::coll
