// MPI_Pack, MPI_Unpack, MPI_Pack_size.
//
// The packed form of (count, type) is exactly the bytes a message of that
// type carries on the wire: the data in typemap order, nothing added, in the
// form this process sends in (its own representation; the announced one in
// the test setting STRATA_REPRESENTATION_TEST, mpi/foreign.hpp). So a buffer
// packed here and sent as MPI_PACKED can be received as the typed data, by a
// process of any representation, and the other way round between processes
// of one representation; MPI_Pack_size is exact.
#include <climits>

#include "mpi/comm.hpp"
#include "mpi/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/foreign.hpp"
#include "mpi/pmpi_alias.hpp"

using namespace strata::mpi;

namespace {

long long packed_bytes(const Datatype& t, int count) {
    if (send_converts(rt(), *t.map)) return static_cast<long long>(form_bytes(*t.map, count, send_form()));
    return static_cast<long long>(count) * t.size;
}

int comm_check(const char* fn, MPI_Comm comm) {
    if (comm_get(comm) != nullptr) return MPI_SUCCESS;
    return error_raise(comm, MPI_ERR_COMM, fn,
                       comm == MPI_COMM_NULL ? "MPI_COMM_NULL is not a communicator" : "not a communicator handle");
}

int type_check(const char* fn, MPI_Comm comm, MPI_Datatype h, bool need_commit, Datatype*& t) {
    t = datatype_get(h);
    if (t == nullptr) {
        return error_raise(comm, MPI_ERR_TYPE, fn,
                           h == MPI_DATATYPE_NULL ? "MPI_DATATYPE_NULL is not a datatype" : "not a datatype handle");
    }
    if (need_commit && !t->committed)
        return error_raise(comm, MPI_ERR_TYPE, fn, "the datatype is not committed; call MPI_Type_commit first");
    return MPI_SUCCESS;
}

int count_check(const char* fn, MPI_Comm comm, int count) {
    if (count >= 0) return MPI_SUCCESS;
    return error_raise(comm, MPI_ERR_COUNT, fn, "count " + std::to_string(count) + " is negative");
}

// Checks the packed-buffer side of Pack/Unpack: returns the bytes (count, t) takes.
int span_check(const char* fn, MPI_Comm comm, const void* packed, int packed_size, const int* position,
               const Datatype& t, int count, long long& need) {
    if (position == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "position is NULL");
    if (packed_size < 0)
        return error_raise(comm, MPI_ERR_ARG, fn, "buffer size " + std::to_string(packed_size) + " is negative");
    if (*position < 0 || *position > packed_size)
        return error_raise(comm, MPI_ERR_ARG, fn,
                           "position " + std::to_string(*position) + " is outside the buffer of " +
                               std::to_string(packed_size) + " bytes");
    need = packed_bytes(t, count);
    if (need > packed_size - *position) {
        return error_raise(comm, MPI_ERR_TRUNCATE, fn,
                           std::to_string(need) + " bytes do not fit in the " +
                               std::to_string(packed_size - *position) + " bytes left after position " +
                               std::to_string(*position));
    }
    // The packed side is plain bytes from its address.
    if (buffer_null(packed, need, *datatype_bytes()))
        return error_raise(comm, MPI_ERR_BUFFER, fn, "packed buffer is NULL");
    return MPI_SUCCESS;
}

}  // namespace

extern "C" {

STRATA_PMPI_ALIAS(MPI_Pack);
int PMPI_Pack(const void* inbuf, int incount, MPI_Datatype datatype, void* outbuf, int outsize, int* position,
              MPI_Comm comm) {
    static const char* fn = "MPI_Pack";
    return api(fn, [&] {
        if (int e = comm_check(fn, comm)) return e;
        if (int e = count_check(fn, comm, incount)) return e;
        Datatype* t = nullptr;
        if (int e = type_check(fn, comm, datatype, true, t)) return e;
        long long need = 0;
        if (int e = span_check(fn, comm, outbuf, outsize, position, *t, incount, need)) return e;
        if (buffer_null(inbuf, incount, *t->map))
            return error_raise(comm, MPI_ERR_BUFFER, fn,
                               "inbuf is NULL (MPI_BOTTOM needs a datatype of absolute addresses)");
        std::byte* out = static_cast<std::byte*>(outbuf) + *position;
        if (need > 0 && send_converts(rt(), *t->map)) {
            if (!form_write(*t->map, inbuf, incount, out, send_form()))
                return error_raise(comm, MPI_ERR_TRUNCATE, fn, kSendFormUnfit);
        } else if (need > 0) {
            datatype_pack(*t, inbuf, incount, out);
        }
        *position += static_cast<int>(need);
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Unpack);
int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype datatype,
                MPI_Comm comm) {
    static const char* fn = "MPI_Unpack";
    return api(fn, [&] {
        if (int e = comm_check(fn, comm)) return e;
        if (int e = count_check(fn, comm, outcount)) return e;
        Datatype* t = nullptr;
        if (int e = type_check(fn, comm, datatype, true, t)) return e;
        long long need = 0;
        if (int e = span_check(fn, comm, inbuf, insize, position, *t, outcount, need)) return e;
        if (buffer_null(outbuf, outcount, *t->map))
            return error_raise(comm, MPI_ERR_BUFFER, fn,
                               "outbuf is NULL (MPI_BOTTOM needs a datatype of absolute addresses)");
        const std::byte* in = static_cast<const std::byte*>(inbuf) + *position;
        if (need > 0 && send_converts(rt(), *t->map)) {
            if (!form_read(*t->map, in, outcount, outbuf, send_form()))
                return error_raise(comm, MPI_ERR_TRUNCATE, fn, "a packed value does not fit its datatype here");
        } else if (need > 0) {
            datatype_unpack(*t, in, outcount, outbuf);
        }
        *position += static_cast<int>(need);
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Pack_size);
int PMPI_Pack_size(int incount, MPI_Datatype datatype, MPI_Comm comm, int* size) {
    static const char* fn = "MPI_Pack_size";
    return api(fn, [&] {
        if (int e = comm_check(fn, comm)) return e;
        if (int e = count_check(fn, comm, incount)) return e;
        Datatype* t = nullptr;
        if (int e = type_check(fn, comm, datatype, false, t)) return e;
        if (size == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "size is NULL");
        const long long need = packed_bytes(*t, incount);
        if (need > INT_MAX)
            return error_raise(comm, MPI_ERR_COUNT, fn, std::to_string(need) + " packed bytes do not fit in an int");
        *size = static_cast<int>(need);
        return MPI_SUCCESS;
    });
}

}  // extern "C"
