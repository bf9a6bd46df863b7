#include "mpi/datatypes/typemap.hpp"

#include <algorithm>
#include <cstring>

#include "mpi/hetero/convert.hpp"

namespace strata::mpi {

namespace {

// A type that is nothing but an MPI_LB or MPI_UB marker: its other bound is
// not a bound at all and must not pull the new type's natural bounds.
bool marker_only(const Typemap& t) { return t.size == 0 && t.parts.empty() && (t.lb_marked || t.ub_marked); }

void normalize(Run& r) {
    if (r.count > 1 && r.stride == r.len) {
        r.len *= r.count;
        r.count = 1;
    }
    if (r.count == 1 && r.outer_count > 1) {  // single-block rows: the rows are the blocks
        r.count = r.outer_count;
        r.stride = r.outer_stride;
        r.outer_count = 1;
        if (r.stride == r.len) {
            r.len *= r.count;
            r.count = 1;
        }
    }
    if (r.outer_count > 1 && r.outer_stride == r.count * r.stride) {  // rows continue each other
        r.count *= r.outer_count;
        r.outer_count = 1;
    }
    if (r.count == 1) r.stride = 0;
    if (r.outer_count == 1) r.outer_stride = 0;
}

bool same_row(const Run& a, const Run& b) { return a.len == b.len && a.count == b.count && a.stride == b.stride; }

// Appends a run in typemap order, merging it into the last one when the two
// describe one block, one arithmetic sequence of equal blocks, or one
// sequence of equal rows.
void runs_append(std::vector<Run>& runs, Run r) {
    if (r.len == 0 || r.count == 0 || r.outer_count == 0) return;
    normalize(r);
    if (runs.empty()) {
        runs.push_back(r);
        return;
    }
    Run& last = runs.back();
    const bool flat = last.outer_count == 1 && r.outer_count == 1;
    if (flat && last.count == 1 && r.count == 1 && last.offset + last.len == r.offset) {
        last.len += r.len;
        return;
    }
    if (flat && last.len == r.len) {
        if (last.count == 1 && r.count == 1) {
            last.stride = r.offset - last.offset;
            last.count = 2;
            return;
        }
        if (last.count > 1 && r.offset == last.offset + last.count * last.stride &&
            (r.count == 1 || r.stride == last.stride)) {
            last.count += r.count;
            return;
        }
        if (last.count == 1 && r.count > 1 && r.offset - last.offset == r.stride) {
            last.count = r.count + 1;
            last.stride = r.stride;
            return;
        }
    }
    if (same_row(last, r) && last.count > 1) {
        if (last.outer_count == 1 && r.outer_count == 1) {
            last.outer_count = 2;
            last.outer_stride = r.offset - last.offset;
            normalize(last);
            return;
        }
        if (last.outer_count > 1 && r.offset == last.offset + last.outer_count * last.outer_stride &&
            (r.outer_count == 1 || r.outer_stride == last.outer_stride)) {
            last.outer_count += r.outer_count;
            return;
        }
    }
    runs.push_back(r);
}

void starts_compute(Typemap& t) {
    t.run_start.clear();
    MPI_Aint at = 0;
    for (const Run& r : t.runs) {
        t.run_start.push_back(at);
        at += r.bytes();
    }
}

}  // namespace


TypemapPtr typemap_basic(MPI_Datatype handle, MPI_Aint size, MPI_Aint align) {
    auto t = std::make_shared<Typemap>();
    t->size = size;
    t->ub = size;
    t->true_ub = size;
    t->align = align;
    t->basic = handle;
    t->bytes_only = basic_is_bytes(handle);
    t->elements = 1;
    runs_append(t->runs, Run{0, size, 1, 0});
    starts_compute(*t);
    return t;
}

TypemapPtr typemap_marker(bool upper) {
    auto t = std::make_shared<Typemap>();
    (upper ? t->ub_marked : t->lb_marked) = true;
    return t;
}

TypemapPtr typemap_pair(MPI_Datatype handle, const TypemapPtr& first, const TypemapPtr& second,
                        MPI_Aint second_offset, MPI_Aint extent, MPI_Aint align) {
    auto t = std::make_shared<Typemap>();
    t->size = first->size + second->size;
    t->ub = extent;
    t->true_ub = second_offset + second->size;
    t->align = align;
    t->basic = handle;  // reductions (MAXLOC, MINLOC) see the pair as one unit
    t->elements = 2;
    t->bytes_only = first->bytes_only && second->bytes_only;
    runs_append(t->runs, Run{0, first->size, 1, 0});
    runs_append(t->runs, Run{second_offset, second->size, 1, 0});
    starts_compute(*t);
    t->parts = {{first, 1}, {second, 1}};
    return t;
}

TypemapPtr typemap_resized(const TypemapPtr& old, MPI_Aint lb, MPI_Aint extent) {
    auto t = std::make_shared<Typemap>(*typemap_build({Block{old, 1, 0}}, false));
    t->lb = lb;
    t->ub = lb + extent;
    t->lb_marked = true;
    t->ub_marked = true;
    return t;
}

namespace {

// typemap_build's state while it adds the blocks one by one. Its steps are
// forced inline so the build stays one function, as fast as before the split.
class Builder {
public:
    explicit Builder(Typemap& t) : t_(t) {}

    [[gnu::always_inline]] void add(const Block& b) {
        const Typemap& o = *b.type;
        if (b.count > 0) t_.align = std::max(t_.align, o.align);
        if (!marker_only(o)) basic_add(o, b.count > 0 && o.size > 0);
        if (b.count <= 0) return;
        const MPI_Aint ext = o.extent();
        const MPI_Aint span = (b.count - 1) * ext;
        const MPI_Aint lo = b.displacement + std::min<MPI_Aint>(0, span);
        const MPI_Aint hi = b.displacement + std::max<MPI_Aint>(0, span);
        bounds_add(o, lo, hi);
        if (o.size == 0) return;
        data_add(b, lo, hi);
    }

    // The bounds, the struct rule's padding (`pad`) and the runs' starts.
    [[gnu::always_inline]] void finish(bool pad) {
        t_.lb = t_.lb_marked ? mlb_ : (have_lb_ ? lb_ : 0);
        t_.ub = t_.ub_marked ? mub_ : (have_ub_ ? ub_ : 0);
        if (pad && !t_.ub_marked && t_.align > 1) {
            const MPI_Aint ext = t_.ub - t_.lb;
            if (ext > 0 && ext % t_.align != 0) t_.ub += t_.align - ext % t_.align;
        }
        starts_compute(t_);
    }

private:
    // Zero-count blocks do not decide the basic type unless nothing has data.
    [[gnu::always_inline]] void basic_add(const Typemap& o, bool data) {
        if (!basic_set_ || (data && !basic_from_data_)) {
            t_.basic = o.basic;
            basic_set_ = true;
            basic_from_data_ = data;
        } else if ((data || !basic_from_data_) && t_.basic != o.basic) {
            t_.basic = MPI_DATATYPE_NULL;
        }
    }

    // The block spans [lo, hi] of element origins: its markers and natural bounds.
    [[gnu::always_inline]] void bounds_add(const Typemap& o, MPI_Aint lo, MPI_Aint hi) {
        if (o.lb_marked) {
            mlb_ = t_.lb_marked ? std::min(mlb_, o.lb + lo) : o.lb + lo;
            t_.lb_marked = true;
        } else if (!marker_only(o)) {
            lb_ = have_lb_ ? std::min(lb_, o.lb + lo) : o.lb + lo;
            have_lb_ = true;
        }
        if (o.ub_marked) {
            mub_ = t_.ub_marked ? std::max(mub_, o.ub + hi) : o.ub + hi;
            t_.ub_marked = true;
        } else if (!marker_only(o)) {
            ub_ = have_ub_ ? std::max(ub_, o.ub + hi) : o.ub + hi;
            have_ub_ = true;
        }
    }

    // A block with data: its size, elements, true bounds, parts and runs.
    [[gnu::always_inline]] void data_add(const Block& b, MPI_Aint lo, MPI_Aint hi) {
        const Typemap& o = *b.type;
        t_.size += o.size * b.count;
        t_.elements += o.elements * b.count;
        t_.bytes_only = t_.bytes_only && o.bytes_only;
        if (!have_true_) {
            t_.true_lb = o.true_lb + lo;
            t_.true_ub = o.true_ub + hi;
            have_true_ = true;
        } else {
            t_.true_lb = std::min(t_.true_lb, o.true_lb + lo);
            t_.true_ub = std::max(t_.true_ub, o.true_ub + hi);
        }
        if (!t_.parts.empty() && t_.parts.back().type == b.type) {
            t_.parts.back().count += b.count;
        } else {
            t_.parts.push_back({b.type, b.count});
        }
        if (o.contiguous()) {
            runs_append(t_.runs, Run{b.displacement + o.true_lb, o.size * b.count, 1, 0});
            return;
        }
        const MPI_Aint ext = o.extent();
        for (MPI_Aint k = 0; k < b.count; ++k) {
            for (Run r : o.runs) {
                r.offset += b.displacement + k * ext;
                runs_append(t_.runs, r);
            }
        }
    }

    Typemap& t_;
    bool have_lb_ = false;
    bool have_ub_ = false;
    bool have_true_ = false;
    MPI_Aint lb_ = 0;
    MPI_Aint ub_ = 0;
    MPI_Aint mlb_ = 0;
    MPI_Aint mub_ = 0;
    bool basic_set_ = false;
    bool basic_from_data_ = false;
};

}  // namespace

TypemapPtr typemap_build(const std::vector<Block>& blocks, bool pad) {
    auto t = std::make_shared<Typemap>();
    Builder build(*t);
    for (const Block& b : blocks) build.add(b);
    build.finish(pad);
    return t;
}

MPI_Aint typemap_elements(const Typemap& t, MPI_Aint bytes) {
    if (t.size == 0) return 0;
    const MPI_Aint full = bytes / t.size;
    MPI_Aint rem = bytes % t.size;
    MPI_Aint n = full * t.elements;
    if (rem == 0) return n;
    if (t.parts.empty()) return -1;  // a basic type cut in the middle
    for (const Typemap::Part& p : t.parts) {
        const MPI_Aint whole = p.type->size * p.count;
        if (rem >= whole) {
            n += p.type->elements * p.count;
            rem -= whole;
            continue;
        }
        n += rem / p.type->size * p.type->elements;
        const MPI_Aint sub = typemap_elements(*p.type, rem % p.type->size);
        if (sub < 0) return -1;
        return n + sub;
    }
    return n;
}

namespace {

template <bool Pack>
void walk(const Typemap& t, std::byte* buf, std::size_t offset, std::size_t n, std::byte* io) {
    if (n == 0) return;
    if (t.contiguous()) {
        std::byte* at = byte_address(buf, t.true_lb + static_cast<MPI_Aint>(offset));
        if (Pack) {
            std::memcpy(io, at, n);
        } else {
            std::memcpy(at, io, n);
        }
        return;
    }
    const MPI_Aint ext = t.extent();
    MPI_Aint e = static_cast<MPI_Aint>(offset) / t.size;
    const MPI_Aint in = static_cast<MPI_Aint>(offset) % t.size;
    auto ri = static_cast<std::size_t>(std::upper_bound(t.run_start.begin(), t.run_start.end(), in) -
                                       t.run_start.begin()) - 1;
    // Position inside the run: row o, block k, byte b.
    const MPI_Aint rin = in - t.run_start[ri];
    const MPI_Aint row = t.runs[ri].len * t.runs[ri].count;
    MPI_Aint o = rin / row;
    MPI_Aint k = rin % row / t.runs[ri].len;
    MPI_Aint b = rin % row % t.runs[ri].len;
    auto left = static_cast<MPI_Aint>(n);
    while (left > 0) {
        const Run& r = t.runs[ri];
        std::byte* at = byte_address(buf, e * ext + r.offset + o * r.outer_stride + k * r.stride + b);
        const MPI_Aint take = std::min(left, r.len - b);
        if (Pack) {
            std::memcpy(io, at, static_cast<std::size_t>(take));
        } else {
            std::memcpy(at, io, static_cast<std::size_t>(take));
        }
        io += take;
        left -= take;
        b += take;
        if (b < r.len) continue;
        b = 0;
        if (++k < r.count) continue;
        k = 0;
        if (++o < r.outer_count) continue;
        o = 0;
        if (++ri < t.runs.size()) continue;
        ri = 0;
        ++e;
    }
}

}  // namespace

void typemap_pack(const Typemap& t, const void* buf, std::size_t offset, std::size_t n, void* out) {
    walk<true>(t, static_cast<std::byte*>(const_cast<void*>(buf)), offset, n, static_cast<std::byte*>(out));
}

void typemap_unpack(const Typemap& t, void* buf, std::size_t offset, std::size_t n, const void* in) {
    walk<false>(t, static_cast<std::byte*>(buf), offset, n, static_cast<std::byte*>(const_cast<void*>(in)));
}

}  // namespace strata::mpi
