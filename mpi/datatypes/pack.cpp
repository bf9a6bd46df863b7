// MPI_Pack, MPI_Unpack, MPI_Pack_size.
//
// The packed form of (count, type) is exactly the bytes a message of that
// type carries on the wire: the data in typemap order, nothing added, in the
// form this process sends in (its own representation; the announced one in
// the test setting STRATA_REPRESENTATION_TEST, mpi/hetero/foreign.hpp). So a buffer
// packed here and sent as MPI_PACKED can be received as the typed data, and
// the other way round. On a communicator whose processes store data in more
// than one way (comm_spans), the packed buffer starts with a header naming
// the packer's representation (kPackedHeader bytes, written by the MPI_Pack
// at position 0), so that MPI_Unpack on any of them can convert it, and a
// receive into MPI_PACKED of typed data writes the sender's. MPI_Pack_size
// counts that header and the largest form any process of the job has.

#include <algorithm>
#include <climits>

#include "mpi/comms/comm.hpp"
#include "mpi/datatypes/datatype.hpp"
#include "mpi/errors.hpp"
#include "mpi/hetero/foreign.hpp"
#include "mpi/pmpi_alias.hpp"

using namespace strata::mpi;

namespace {

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

// Whether packed data on `comm` (a valid communicator) starts with a header.
bool labelled(MPI_Comm comm) { return rt().heterogeneous && comm_spans(*comm_get(comm)); }

// Checks the packed-buffer side of Pack/Unpack, which takes `need` bytes
// from *position on.
int span_check(const char* fn, MPI_Comm comm, const void* packed, int packed_size, const int* position,
               long long need) {
    if (position == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "position is NULL");
    if (packed_size < 0)
        return error_raise(comm, MPI_ERR_ARG, fn, "buffer size " + std::to_string(packed_size) + " is negative");
    if (*position < 0 || *position > packed_size)
        return error_raise(comm, MPI_ERR_ARG, fn,
                           "position " + std::to_string(*position) + " is outside the buffer of " +
                               std::to_string(packed_size) + " bytes");
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
        if (position == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "position is NULL");
        const Representation& form = send_form();
        const long long header = labelled(comm) && *position == 0 ? static_cast<long long>(kPackedHeader) : 0;
        const long long need = header + static_cast<long long>(form_bytes(*t->map, incount, form));
        if (int e = span_check(fn, comm, outbuf, outsize, position, need)) return e;
        if (buffer_null(inbuf, incount, *t->map))
            return error_raise(comm, MPI_ERR_BUFFER, fn,
                               "inbuf is NULL (MPI_BOTTOM needs a datatype of absolute addresses)");
        std::byte* out = static_cast<std::byte*>(outbuf) + *position;
        if (header > 0) packed_header_write(out, form);
        if (need > header && form == Representation::native()) {
            datatype_pack(*t, inbuf, incount, out + header);
        } else if (need > header && !form_write(*t->map, inbuf, incount, out + header, form)) {
            return error_raise(comm, MPI_ERR_TRUNCATE, fn, kSendFormUnfit);
        }
        *position += static_cast<int>(need);
        return MPI_SUCCESS;
    });
}

namespace {

// The representation of the packed data in `inbuf` for MPI_Unpack on `comm`:
// its header's on a communicator whose packed data has one.
int unpack_form(const char* fn, MPI_Comm comm, const void* inbuf, int insize, Representation& form) {
    form = send_form();
    if (!labelled(comm)) return MPI_SUCCESS;
    if (inbuf == nullptr || insize < 0) return error_raise(comm, MPI_ERR_BUFFER, fn, "packed buffer is NULL");
    strata::base::Result<Representation> named =
        packed_header_read(static_cast<const std::byte*>(inbuf), static_cast<std::size_t>(insize));
    if (!named) return error_raise(comm, MPI_ERR_ARG, fn, named.error());
    form = *named;
    return MPI_SUCCESS;
}

}  // namespace

STRATA_PMPI_ALIAS(MPI_Unpack);
int PMPI_Unpack(const void* inbuf, int insize, int* position, void* outbuf, int outcount, MPI_Datatype datatype,
                MPI_Comm comm) {
    static const char* fn = "MPI_Unpack";
    return api(fn, [&] {
        if (int e = comm_check(fn, comm)) return e;
        if (int e = count_check(fn, comm, outcount)) return e;
        Datatype* t = nullptr;
        if (int e = type_check(fn, comm, datatype, true, t)) return e;
        if (position == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "position is NULL");
        Representation form;
        if (int e = unpack_form(fn, comm, inbuf, insize, form)) return e;
        const long long header = labelled(comm) && *position == 0 ? static_cast<long long>(kPackedHeader) : 0;
        const long long need = header + static_cast<long long>(form_bytes(*t->map, outcount, form));
        if (int e = span_check(fn, comm, inbuf, insize, position, need)) return e;
        if (buffer_null(outbuf, outcount, *t->map))
            return error_raise(comm, MPI_ERR_BUFFER, fn,
                               "outbuf is NULL (MPI_BOTTOM needs a datatype of absolute addresses)");
        const std::byte* in = static_cast<const std::byte*>(inbuf) + *position + header;
        if (need > header && form == Representation::native()) {
            datatype_unpack(*t, in, outcount, outbuf);
        } else if (need > header &&
                   !form_read(*t->map, in, static_cast<std::size_t>(need - header), outcount, outbuf, form).fits) {
            return error_raise(comm, MPI_ERR_TRUNCATE, fn, "a packed value does not fit its datatype here");
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
        long long need = static_cast<long long>(form_bytes(*t->map, incount, send_form()));
        if (labelled(comm)) {
            // Room for a header and for the data as packed by any process of the job.
            for (const Representation& form : rt().forms)
                need = std::max(need, static_cast<long long>(form_bytes(*t->map, incount, form)));
            need += static_cast<long long>(kPackedHeader);
        }
        if (need > INT_MAX)
            return error_raise(comm, MPI_ERR_COUNT, fn, std::to_string(need) + " packed bytes do not fit in an int");
        *size = static_cast<int>(need);
        return MPI_SUCCESS;
    });
}

}  // extern "C"
