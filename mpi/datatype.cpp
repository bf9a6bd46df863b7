#include "mpi/datatype.hpp"

#include <cstring>
#include <stdexcept>

#include "mpi/errors.hpp"
#include "mpi/setup.hpp"

namespace strata::mpi {

namespace {

struct Basic {
    MPI_Datatype handle;
    int size;
    const char* name;
};

struct TwoInt {
    int a;
    int b;
};

const Basic kBasic[] = {
    {MPI_CHAR, sizeof(char), "MPI_CHAR"},
    {MPI_SHORT, sizeof(short), "MPI_SHORT"},
    {MPI_INT, sizeof(int), "MPI_INT"},
    {MPI_LONG, sizeof(long), "MPI_LONG"},
    {MPI_UNSIGNED_CHAR, sizeof(unsigned char), "MPI_UNSIGNED_CHAR"},
    {MPI_UNSIGNED_SHORT, sizeof(unsigned short), "MPI_UNSIGNED_SHORT"},
    {MPI_UNSIGNED, sizeof(unsigned), "MPI_UNSIGNED"},
    {MPI_UNSIGNED_LONG, sizeof(unsigned long), "MPI_UNSIGNED_LONG"},
    {MPI_FLOAT, sizeof(float), "MPI_FLOAT"},
    {MPI_DOUBLE, sizeof(double), "MPI_DOUBLE"},
    {MPI_LONG_DOUBLE, sizeof(long double), "MPI_LONG_DOUBLE"},
    {MPI_BYTE, 1, "MPI_BYTE"},
    {MPI_PACKED, 1, "MPI_PACKED"},
    {MPI_LONG_LONG_INT, sizeof(long long), "MPI_LONG_LONG_INT"},
    {MPI_2INT, sizeof(TwoInt), "MPI_2INT"},
};

}  // namespace

void datatypes_setup(Runtime& r) {
    r.datatypes.reserve_predefined(64);
    for (const Basic& b : kBasic) {
        auto t = std::make_unique<Datatype>();
        t->size = b.size;
        t->extent = b.size;
        t->contiguous = true;
        t->basic = b.handle;
        t->name = b.name;
        r.datatypes.put(b.handle & ((1 << 26) - 1), std::move(t));
    }
}

void datatype_pack(const Datatype& t, const void* buf, int count, void* out) {
    if (!t.contiguous) throw std::logic_error("datatype_pack: non-contiguous layout not supported");
    if (count > 0) std::memcpy(out, buf, static_cast<std::size_t>(count) * static_cast<std::size_t>(t.size));
}

void datatype_unpack(const Datatype& t, const void* in, int count, void* buf) {
    if (!t.contiguous) throw std::logic_error("datatype_unpack: non-contiguous layout not supported");
    if (count > 0) std::memcpy(buf, in, static_cast<std::size_t>(count) * static_cast<std::size_t>(t.size));
}

}  // namespace strata::mpi

using namespace strata::mpi;

extern "C" {

#pragma weak MPI_Type_size = PMPI_Type_size
int PMPI_Type_size(MPI_Datatype datatype, int* size) {
    return api("MPI_Type_size", [&] {
        Datatype* t = datatype_get(datatype);
        if (t == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Type_size", "");
        if (size == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Type_size", "size is NULL");
        *size = t->size;
        return MPI_SUCCESS;
    });
}

#pragma weak MPI_Get_count = PMPI_Get_count
int PMPI_Get_count(const MPI_Status* status, MPI_Datatype datatype, int* count) {
    return api("MPI_Get_count", [&] {
        Datatype* t = datatype_get(datatype);
        if (t == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_TYPE, "MPI_Get_count", "");
        if (status == nullptr || count == nullptr)
            return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_count", "status or count is NULL");
        if (t->size == 0) {
            *count = 0;
        } else if (status->strata_bytes % t->size != 0) {
            *count = MPI_UNDEFINED;
        } else {
            *count = static_cast<int>(status->strata_bytes / t->size);
        }
        return MPI_SUCCESS;
    });
}

}  // extern "C"
