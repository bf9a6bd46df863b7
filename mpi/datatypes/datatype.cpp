#include "mpi/datatypes/datatype.hpp"

#include <algorithm>
#include <climits>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "mpi/errors.hpp"
#include "mpi/object_name.hpp"
#include "mpi/pt2pt.hpp"
#include "mpi/entry.hpp"
#include "mpi/setup.hpp"

namespace strata::mpi {

namespace {

struct Basic {
    MPI_Datatype handle;
    MPI_Aint size;
    MPI_Aint align;
    const char* name;
};

template <class T>
constexpr Basic basic_of(MPI_Datatype h, const char* name) {
    return Basic{h, sizeof(T), alignof(T), name};
}

const Basic kBasic[] = {
    basic_of<char>(MPI_CHAR, "MPI_CHAR"),
    basic_of<short>(MPI_SHORT, "MPI_SHORT"),
    basic_of<int>(MPI_INT, "MPI_INT"),
    basic_of<long>(MPI_LONG, "MPI_LONG"),
    basic_of<unsigned char>(MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR"),
    basic_of<unsigned short>(MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT"),
    basic_of<unsigned>(MPI_UNSIGNED, "MPI_UNSIGNED"),
    basic_of<unsigned long>(MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG"),
    basic_of<float>(MPI_FLOAT, "MPI_FLOAT"),
    basic_of<double>(MPI_DOUBLE, "MPI_DOUBLE"),
    basic_of<long double>(MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE"),
    basic_of<unsigned char>(MPI_BYTE, "MPI_BYTE"),
    basic_of<unsigned char>(MPI_PACKED, "MPI_PACKED"),
    basic_of<long long>(MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT"),
    basic_of<signed char>(MPI_SIGNED_CHAR, "MPI_SIGNED_CHAR"),
    basic_of<unsigned long long>(MPI_UNSIGNED_LONG_LONG, "MPI_UNSIGNED_LONG_LONG"),
    basic_of<wchar_t>(MPI_WCHAR, "MPI_WCHAR"),
    // Fortran's types, as gfortran lays them out (see mpi.h); std::complex<T>
    // is two T, real part first, as a Fortran COMPLEX is.
    basic_of<int>(MPI_INTEGER, "MPI_INTEGER"),
    basic_of<float>(MPI_REAL, "MPI_REAL"),
    basic_of<double>(MPI_DOUBLE_PRECISION, "MPI_DOUBLE_PRECISION"),
    basic_of<std::complex<float>>(MPI_COMPLEX, "MPI_COMPLEX"),
    basic_of<std::complex<double>>(MPI_DOUBLE_COMPLEX, "MPI_DOUBLE_COMPLEX"),
    basic_of<int>(MPI_LOGICAL, "MPI_LOGICAL"),
    basic_of<char>(MPI_CHARACTER, "MPI_CHARACTER"),
    basic_of<signed char>(MPI_INTEGER1, "MPI_INTEGER1"),
    basic_of<short>(MPI_INTEGER2, "MPI_INTEGER2"),
    basic_of<std::int32_t>(MPI_INTEGER4, "MPI_INTEGER4"),
    basic_of<std::int64_t>(MPI_INTEGER8, "MPI_INTEGER8"),
    basic_of<float>(MPI_REAL4, "MPI_REAL4"),
    basic_of<double>(MPI_REAL8, "MPI_REAL8"),
};

// The pair types are the C structs a MINLOC/MAXLOC user declares, padding
// included; a Fortran pair is an array of two elements of the value's type.
template <class A, class I>
struct PairOf {
    A value;
    I index;
};

struct Pair {
    MPI_Datatype handle;
    MPI_Datatype first;
    MPI_Datatype second;
    MPI_Aint second_offset;
    MPI_Aint extent;
    MPI_Aint align;
    const char* name;
};

template <class A, class I>
Pair pair_of(MPI_Datatype h, const char* name, MPI_Datatype first, MPI_Datatype second) {
    using P = PairOf<A, I>;
    return Pair{h, first, second, offsetof(P, index), sizeof(P), alignof(P), name};
}

int index_of(MPI_Datatype h) { return h & ((1 << 26) - 1); }

// `alike`: every process of the job stores data as this one does
// (Runtime::heterogeneous is false), known from MPI_Init on.
void fill(Datatype& t, TypemapPtr map, bool alike) {
    t.size = static_cast<int>(map->size);
    t.extent = map->extent();
    t.contiguous = map->contiguous();
    t.direct = t.contiguous && alike;
    t.basic = map->basic;
    t.map = std::move(map);
}

void predefined_put(Runtime& r, MPI_Datatype h, TypemapPtr map, const char* name) {
    auto t = std::make_unique<Datatype>();
    fill(*t, std::move(map), !r.heterogeneous);
    t->name = name;
    t->predefined = true;
    t->committed = true;
    r.datatypes.put(index_of(h), std::move(t));
}

class TypeSegment final : public adi::Segment {
public:
    TypeSegment(TypemapPtr map, void* buf, int count) : map_(std::move(map)), buf_(buf), count_(count) {}
    std::size_t size() const override {
        return static_cast<std::size_t>(map_->size) * static_cast<std::size_t>(count_);
    }
    void pack(std::size_t offset, std::size_t n, std::byte* out) const override {
        typemap_pack(*map_, buf_, offset, n, out);
    }
    void unpack(std::size_t offset, std::size_t n, const std::byte* in) override {
        typemap_unpack(*map_, buf_, offset, n, in);
    }

private:
    TypemapPtr map_;
    void* buf_;
    int count_;
};

}  // namespace

void datatypes_setup(Runtime& r) {
    r.datatypes.reserve_predefined(64);
    for (const Basic& b : kBasic) predefined_put(r, b.handle, typemap_basic(b.handle, b.size, b.align), b.name);
    const Pair pairs[] = {
        pair_of<int, int>(MPI_2INT, "MPI_2INT", MPI_INT, MPI_INT),
        pair_of<float, int>(MPI_FLOAT_INT, "MPI_FLOAT_INT", MPI_FLOAT, MPI_INT),
        pair_of<double, int>(MPI_DOUBLE_INT, "MPI_DOUBLE_INT", MPI_DOUBLE, MPI_INT),
        pair_of<long, int>(MPI_LONG_INT, "MPI_LONG_INT", MPI_LONG, MPI_INT),
        pair_of<short, int>(MPI_SHORT_INT, "MPI_SHORT_INT", MPI_SHORT, MPI_INT),
        pair_of<long double, int>(MPI_LONG_DOUBLE_INT, "MPI_LONG_DOUBLE_INT", MPI_LONG_DOUBLE, MPI_INT),
        pair_of<int, int>(MPI_2INTEGER, "MPI_2INTEGER", MPI_INTEGER, MPI_INTEGER),
        pair_of<float, float>(MPI_2REAL, "MPI_2REAL", MPI_REAL, MPI_REAL),
        pair_of<double, double>(MPI_2DOUBLE_PRECISION, "MPI_2DOUBLE_PRECISION", MPI_DOUBLE_PRECISION,
                                MPI_DOUBLE_PRECISION),
    };
    for (const Pair& p : pairs) {
        predefined_put(r, p.handle,
                       typemap_pair(p.handle, r.datatypes.get(p.first)->map, r.datatypes.get(p.second)->map,
                                    p.second_offset, p.extent, p.align),
                       p.name);
    }
    predefined_put(r, MPI_LB, typemap_marker(false), "MPI_LB");
    predefined_put(r, MPI_UB, typemap_marker(true), "MPI_UB");
}

TypemapPtr datatype_bytes() { return rt().datatypes.get(MPI_BYTE)->map; }

void datatype_pack(const Datatype& t, const void* buf, int count, void* out) {
    if (count <= 0 || t.size == 0) return;
    typemap_pack(*t.map, buf, 0, static_cast<std::size_t>(count) * static_cast<std::size_t>(t.size), out);
}

void datatype_unpack(const Datatype& t, const void* in, int count, void* buf) {
    if (count <= 0 || t.size == 0) return;
    typemap_unpack(*t.map, buf, 0, static_cast<std::size_t>(count) * static_cast<std::size_t>(t.size), in);
}

std::shared_ptr<adi::Segment> datatype_segment(TypemapPtr map, void* buf, int count) {
    return std::make_shared<TypeSegment>(std::move(map), buf, count);
}

namespace {

// A new (uncommitted) datatype with layout `map`.
int adopt(const Call& call, TypemapPtr map, MPI_Datatype& newtype) {
    if (map->size > INT_MAX) {
        return call.raise(MPI_ERR_ARG,
                          "the new type holds " + std::to_string(map->size) + " bytes, more than an int can count");
    }
    auto t = std::make_unique<Datatype>();
    fill(*t, std::move(map), !rt().heterogeneous);
    newtype = rt().datatypes.add(std::move(t));
    return MPI_SUCCESS;
}

int create(const Call& call, const std::vector<Block>& blocks, bool pad, MPI_Datatype& newtype) {
    return adopt(call, typemap_build(blocks, pad), newtype);
}

int check_blocklength(const Call& call, int len, int i) {
    if (len >= 0) return MPI_SUCCESS;
    return call.raise(MPI_ERR_ARG, "block length " + std::to_string(len) + " at index " + std::to_string(i) +
                                       " is negative");
}

int strided(const Call& call, int count, int blocklength, MPI_Aint stride, bool in_bytes, const Datatype& old,
            MPI_Datatype& newtype) {
    const MPI_Aint step = in_bytes ? stride : stride * old.map->extent();
    std::vector<Block> blocks(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) blocks[static_cast<std::size_t>(i)] = Block{old.map, blocklength, i * step};
    return create(call, blocks, false, newtype);
}

template <class Disp>
int indexed(const Call& call, int count, const int* lengths, const Disp* displacements, bool in_bytes,
            const Datatype& old, MPI_Datatype& newtype) {
    const MPI_Aint unit = in_bytes ? 1 : old.map->extent();
    std::vector<Block> blocks(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        if (int e = check_blocklength(call, lengths[i], i)) return e;
        blocks[static_cast<std::size_t>(i)] =
            Block{old.map, lengths[i], static_cast<MPI_Aint>(displacements[i]) * unit};
    }
    return create(call, blocks, false, newtype);
}

int type_struct(const Call& call, int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                const MPI_Datatype array_of_types[], MPI_Datatype& newtype) {
    std::vector<Block> blocks(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        if (int e = check_blocklength(call, array_of_blocklengths[i], i)) return e;
        Datatype* t = datatype_get(array_of_types[i]);
        if (t == nullptr)
            return call.raise(MPI_ERR_TYPE, "array_of_types[" + std::to_string(i) + "] is not a datatype");
        blocks[static_cast<std::size_t>(i)] = Block{t->map, array_of_blocklengths[i], array_of_displacements[i]};
    }
    return create(call, blocks, true, newtype);
}

// Addresses are plain integers, relative to MPI_BOTTOM (NULL).
int address_of(const void* location, MPI_Aint& address) {
    address = static_cast<MPI_Aint>(reinterpret_cast<std::uintptr_t>(location));
    return MPI_SUCCESS;
}

// The status MPI_Get_count and MPI_Get_elements read: not MPI_STATUS_IGNORE.
int status_check(const Call& call, const MPI_Status& status) {
    if (&status != MPI_STATUS_IGNORE) return MPI_SUCCESS;
    return call.raise(MPI_ERR_ARG, "status is MPI_STATUS_IGNORE");
}

}  // namespace

namespace body {

int Type_contiguous(const Call& call, int count, Datatype& oldtype, MPI_Datatype& newtype) {
    return create(call, {Block{oldtype.map, count, 0}}, false, newtype);
}

int Type_vector(const Call& call, int count, int blocklength, int stride, Datatype& oldtype,
                MPI_Datatype& newtype) {
    return strided(call, count, blocklength, stride, false, oldtype, newtype);
}

int Type_hvector(const Call& call, int count, int blocklength, MPI_Aint stride, Datatype& oldtype,
                 MPI_Datatype& newtype) {
    return strided(call, count, blocklength, stride, true, oldtype, newtype);
}

int Type_create_hvector(const Call& call, int count, int blocklength, MPI_Aint stride, Datatype& oldtype,
                        MPI_Datatype& newtype) {
    return strided(call, count, blocklength, stride, true, oldtype, newtype);
}

int Type_indexed(const Call& call, int count, const int array_of_blocklengths[], const int array_of_displacements[],
                 Datatype& oldtype, MPI_Datatype& newtype) {
    return indexed(call, count, array_of_blocklengths, array_of_displacements, false, oldtype, newtype);
}

int Type_hindexed(const Call& call, int count, const int array_of_blocklengths[],
                  const MPI_Aint array_of_displacements[], Datatype& oldtype, MPI_Datatype& newtype) {
    return indexed(call, count, array_of_blocklengths, array_of_displacements, true, oldtype, newtype);
}

int Type_create_hindexed(const Call& call, int count, const int array_of_blocklengths[],
                         const MPI_Aint array_of_displacements[], Datatype& oldtype, MPI_Datatype& newtype) {
    return indexed(call, count, array_of_blocklengths, array_of_displacements, true, oldtype, newtype);
}

int Type_create_indexed_block(const Call& call, int count, int blocklength, const int array_of_displacements[],
                              Datatype& oldtype, MPI_Datatype& newtype) {
    // MPI_Type_indexed with every block of the same length.
    const std::vector<int> lengths(static_cast<std::size_t>(count), blocklength);
    return indexed(call, count, lengths.data(), array_of_displacements, false, oldtype, newtype);
}

int Type_struct(const Call& call, int count, const int array_of_blocklengths[],
                const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[], MPI_Datatype& newtype) {
    return type_struct(call, count, array_of_blocklengths, array_of_displacements, array_of_types, newtype);
}

int Type_create_struct(const Call& call, int count, const int array_of_blocklengths[],
                       const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                       MPI_Datatype& newtype) {
    return type_struct(call, count, array_of_blocklengths, array_of_displacements, array_of_types, newtype);
}

int Type_create_resized(const Call& call, Datatype& oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype& newtype) {
    return adopt(call, typemap_resized(oldtype.map, lb, extent), newtype);
}

int Type_get_extent(const Call&, Datatype& datatype, MPI_Aint& lb, MPI_Aint& extent) {
    lb = datatype.map->lb;
    extent = datatype.map->extent();
    return MPI_SUCCESS;
}

int Type_get_true_extent(const Call&, Datatype& datatype, MPI_Aint& true_lb, MPI_Aint& true_extent) {
    true_lb = datatype.map->true_lb;
    true_extent = datatype.map->true_ub - datatype.map->true_lb;
    return MPI_SUCCESS;
}

int Type_set_name(const Call&, Datatype& datatype, const char* type_name) {
    object_name_set(datatype.name, type_name);
    return MPI_SUCCESS;
}

int Type_get_name(const Call&, Datatype& datatype, char* type_name, int& resultlen) {
    object_name_copy(datatype.name, type_name, &resultlen);
    return MPI_SUCCESS;
}

int Address(const Call&, const void* location, MPI_Aint& address) { return address_of(location, address); }

int Get_address(const Call&, const void* location, MPI_Aint& address) { return address_of(location, address); }

int Type_extent(const Call&, Datatype& datatype, MPI_Aint& extent) {
    extent = datatype.map->extent();
    return MPI_SUCCESS;
}

int Type_size(const Call&, Datatype& datatype, int& size) {
    size = datatype.size;
    return MPI_SUCCESS;
}

int Type_lb(const Call&, Datatype& datatype, MPI_Aint& displacement) {
    displacement = datatype.map->lb;
    return MPI_SUCCESS;
}

int Type_ub(const Call&, Datatype& datatype, MPI_Aint& displacement) {
    displacement = datatype.map->ub;
    return MPI_SUCCESS;
}

int Type_commit(const Call& call, MPI_Datatype& datatype) {
    Datatype* t = nullptr;
    if (int e = check::type(call, datatype, t)) return e;
    t->committed = true;
    return MPI_SUCCESS;
}

int Type_free(const Call& call, MPI_Datatype& datatype) {
    Datatype* t = nullptr;
    if (int e = check::type(call, datatype, t)) return e;
    if (t->predefined) return call.raise(MPI_ERR_TYPE, t->name + " is predefined and cannot be freed");
    // Types built on it and pending communications hold the layout itself.
    rt().datatypes.remove(datatype);
    datatype = MPI_DATATYPE_NULL;
    return MPI_SUCCESS;
}

int Get_count(const Call& call, const MPI_Status& status, Datatype& datatype, int& count) {
    if (int e = status_check(call, status)) return e;
    const long long bytes = status_bytes(status, *datatype.map);
    if (datatype.size == 0) {
        count = 0;
    } else if (bytes < 0 || bytes % datatype.size != 0 || bytes / datatype.size > INT_MAX) {
        count = MPI_UNDEFINED;
    } else {
        count = static_cast<int>(bytes / datatype.size);
    }
    return MPI_SUCCESS;
}

int Get_elements(const Call& call, const MPI_Status& status, Datatype& datatype, int& count) {
    if (int e = status_check(call, status)) return e;
    // A partial receive counts the basic elements that arrived whole; a
    // message that ends inside a basic element has no such count.
    const long long bytes = status_bytes(status, *datatype.map);
    const MPI_Aint n = bytes < 0 ? -1 : typemap_elements(*datatype.map, static_cast<MPI_Aint>(bytes));
    count = n < 0 || n > INT_MAX ? MPI_UNDEFINED : static_cast<int>(n);
    return MPI_SUCCESS;
}

}  // namespace body
}  // namespace strata::mpi

#include "datatype.inc"

// MPI_Aint_add and MPI_Aint_diff return an address, not an error code: no
// entry point of the table, and callable at any time.
extern "C" {

MPI_Aint PMPI_Aint_add(MPI_Aint base, MPI_Aint disp) {
    return static_cast<MPI_Aint>(static_cast<unsigned long>(base) + static_cast<unsigned long>(disp));
}
STRATA_PMPI_ALIAS(MPI_Aint_add);

MPI_Aint PMPI_Aint_diff(MPI_Aint addr1, MPI_Aint addr2) {
    return static_cast<MPI_Aint>(static_cast<unsigned long>(addr1) - static_cast<unsigned long>(addr2));
}
STRATA_PMPI_ALIAS(MPI_Aint_diff);

}  // extern "C"
