#include "mpi/op.hpp"

#include <climits>
#include <vector>

#include "mpi/coll_support.hpp"
#include "mpi/hetero/convert.hpp"
#include "mpi/hetero/foreign.hpp"
#include "mpi/datatypes/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/entry.hpp"
#include "mpi/op_kernels.hpp"
#include "mpi/runtime.hpp"

namespace strata::mpi {

namespace {

constexpr MPI_Op kPredefined[] = {MPI_MAX, MPI_MIN,  MPI_SUM, MPI_PROD, MPI_LAND,   MPI_BAND,
                                  MPI_LOR, MPI_BOR, MPI_LXOR, MPI_BXOR, MPI_MAXLOC, MPI_MINLOC};

class PredefinedReduce final : public coll::ReduceOp {
public:
    explicit PredefinedReduce(OpKernel k) : ReduceOp(k.element_bytes, true), kernel_(k) {}
    void apply(const void* in, void* inout, std::size_t count) const override { kernel_.fn(in, inout, count); }

private:
    OpKernel kernel_;
};

// A user function sees its elements in the datatype's own layout: dense
// elements are used in place when that layout is dense, otherwise they are
// spread into a typed buffer for the call and gathered back after it.
class UserReduce final : public coll::ReduceOp {
public:
    UserReduce(const Operation& op, MPI_Datatype handle, const Datatype& type)
        : ReduceOp(static_cast<std::size_t>(type.size), op.commutative), fn_(op.fn), handle_(handle), type_(type) {}

    void apply(const void* in, void* inout, std::size_t count) const override {
        const bool dense = dense_layout(type_);
        const std::size_t per_call = INT_MAX;
        for (std::size_t done = 0; done < count;) {
            const std::size_t n = std::min(per_call, count - done);
            const std::size_t off = done * element_bytes();
            void* a = const_cast<std::byte*>(static_cast<const std::byte*>(in) + off);
            void* b = static_cast<std::byte*>(inout) + off;
            int len = static_cast<int>(n);
            MPI_Datatype dt = handle_;
            if (dense) {
                fn_(a, b, &len, &dt);
            } else {
                // The typed copies span every byte the elements touch, which may
                // start before the origin (true_lb < 0) or end past n * extent.
                const MPI_Aint last = static_cast<MPI_Aint>(n - 1) * type_.extent;
                const MPI_Aint lo = std::min(type_.map->true_lb, last + type_.map->true_lb);
                const MPI_Aint hi = std::max(type_.map->true_ub, last + type_.map->true_ub);
                std::vector<std::byte> ta(static_cast<std::size_t>(hi - lo)), tb(ta.size());
                std::byte* origin_a = byte_address(ta.data(), -lo);
                std::byte* origin_b = byte_address(tb.data(), -lo);
                datatype_unpack(type_, a, len, origin_a);
                datatype_unpack(type_, b, len, origin_b);
                fn_(origin_a, origin_b, &len, &dt);
                datatype_pack(type_, origin_b, len, b);
            }
            done += n;
        }
    }

private:
    MPI_User_function* fn_;
    MPI_Datatype handle_;
    const Datatype& type_;
};

// An operation whose operands travel in a collective's common form
// (coll_support.hpp Form): converted into this process's form to be combined
// by the operation itself, and the result back. A user function therefore
// sees its data as this process stores it.
class FormReduce final : public coll::ReduceOp {
public:
    FormReduce(std::unique_ptr<coll::ReduceOp> inner, TypemapPtr element, const Form& form)
        : ReduceOp(static_cast<std::size_t>(form_size(*element, *form.rep)), inner->commutative()),
          inner_(std::move(inner)),
          element_(std::move(element)),
          form_(form) {}

    void apply(const void* in, void* inout, std::size_t count) const override {
        const Representation& mine = Representation::native();
        const std::size_t bytes = count * element_bytes();
        const std::size_t native = count * inner_->element_bytes();
        const auto n = static_cast<MPI_Aint>(count);
        StageBuffer a(native), b(native);
        auto* io = static_cast<std::byte*>(inout);
        form_.fits &= convert(*element_, n, static_cast<const std::byte*>(in), bytes, *form_.rep, a.data(), mine).fits;
        form_.fits &= convert(*element_, n, io, bytes, *form_.rep, b.data(), mine).fits;
        inner_->apply(a.data(), b.data(), count);
        form_.fits &= convert(*element_, n, b.data(), native, mine, io, *form_.rep).fits;
    }

private:
    std::unique_ptr<coll::ReduceOp> inner_;
    TypemapPtr element_;
    const Form& form_;
};

// `inner` on elements `element`, converting when `form` does.
std::unique_ptr<coll::ReduceOp> in_form(std::unique_ptr<coll::ReduceOp> inner, const Datatype& element,
                                        const Form& form) {
    if (!form.converts(element)) return inner;
    return std::make_unique<FormReduce>(std::move(inner), element.map, form);
}

}  // namespace

void ops_setup(Runtime& r) {
    r.ops.reserve_predefined(16);
    for (MPI_Op h : kPredefined) {
        auto op = std::make_unique<Operation>();
        op->predefined = h;
        r.ops.put(h & ((1 << 26) - 1), std::move(op));
    }
}

int reduce_op_make(MPI_Op handle, MPI_Datatype type_handle, const Datatype& type, const Form& form,
                   std::unique_ptr<coll::ReduceOp>& out) {
    const Operation* op = rt().ops.get(handle);
    if (op == nullptr) return MPI_ERR_OP;
    if (op->predefined == MPI_OP_NULL) {
        out = in_form(std::make_unique<UserReduce>(*op, type_handle, type), type, form);
        return MPI_SUCCESS;
    }
    // Predefined operations work element by element of the basic type, so a
    // derived type of one basic type is as good as the basic type itself. The
    // pair types of MAXLOC/MINLOC mix a value and an int, so their datatype
    // objects may describe themselves as mixed: the handle names them.
    MPI_Datatype basic_handle = type.basic;
    for (MPI_Datatype pair : {MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT, MPI_LONG_DOUBLE_INT,
                              MPI_2INTEGER, MPI_2REAL, MPI_2DOUBLE_PRECISION}) {
        if (type_handle == pair) basic_handle = pair;
    }
    const Datatype* basic = rt().datatypes.get(basic_handle);
    if (basic == nullptr || basic->size <= 0) return MPI_ERR_OP;
    auto kernel = op_kernel(op->predefined, basic_handle, static_cast<std::size_t>(basic->size));
    if (!kernel || type.size % basic->size != 0) return MPI_ERR_OP;
    out = in_form(std::make_unique<PredefinedReduce>(*kernel), *basic, form);
    return MPI_SUCCESS;
}

}  // namespace strata::mpi

using namespace strata::mpi;

namespace strata::mpi::body {

int Op_create(const Call&, MPI_User_function* function, int commute, MPI_Op& op) {
    auto o = std::make_unique<Operation>();
    o->fn = function;
    o->commutative = commute != 0;
    op = rt().ops.add(std::move(o));
    return MPI_SUCCESS;
}

int Op_commutative(const Call&, Operation& op, int& commute) {
    commute = op.commutative ? 1 : 0;
    return MPI_SUCCESS;
}

int Op_free(const Call& call, MPI_Op& op) {
    Operation* o = nullptr;
    if (int e = check::op(call, op, o)) return e;
    if (o->predefined != MPI_OP_NULL) return call.raise(MPI_ERR_OP, "predefined operations cannot be freed");
    rt().ops.remove(op);
    op = MPI_OP_NULL;
    return MPI_SUCCESS;
}

}  // namespace strata::mpi::body

#include "op.inc"
