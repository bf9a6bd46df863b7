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
#include "mpi/entry.hpp"

namespace strata::mpi {
namespace {

// Whether packed data on `comm` starts with a header.
bool labelled(const Comm& comm) { return rt().heterogeneous && comm_spans(comm); }

// Checks the packed-buffer side of Pack/Unpack, which takes `need` bytes
// from `position` on.
int span_check(const Call& call, const void* packed, int packed_size, int position, long long need) {
    if (packed_size < 0)
        return call.raise(MPI_ERR_ARG, "buffer size " + std::to_string(packed_size) + " is negative");
    if (position < 0 || position > packed_size)
        return call.raise(MPI_ERR_ARG, "position " + std::to_string(position) + " is outside the buffer of " +
                                           std::to_string(packed_size) + " bytes");
    if (need > packed_size - position) {
        return call.raise(MPI_ERR_TRUNCATE, std::to_string(need) + " bytes do not fit in the " +
                                                std::to_string(packed_size - position) + " bytes left after position " +
                                                std::to_string(position));
    }
    // The packed side is plain bytes from its address.
    if (buffer_null(packed, need, *datatype_bytes())) return call.raise(MPI_ERR_BUFFER, "packed buffer is NULL");
    return MPI_SUCCESS;
}

// The representation of the packed data in `inbuf` for MPI_Unpack on `comm`:
// its header's on a communicator whose packed data has one.
int unpack_form(const Call& call, const Comm& comm, const void* inbuf, int insize, Representation& form) {
    form = send_form();
    if (!labelled(comm)) return MPI_SUCCESS;
    if (inbuf == nullptr || insize < 0) return call.raise(MPI_ERR_BUFFER, "packed buffer is NULL");
    strata::base::Result<Representation> named =
        packed_header_read(static_cast<const std::byte*>(inbuf), static_cast<std::size_t>(insize));
    if (!named) return call.raise(MPI_ERR_ARG, named.error());
    form = *named;
    return MPI_SUCCESS;
}

}  // namespace

namespace body {

int Pack(const Call& call, const void* inbuf, int incount, Datatype& datatype, void* outbuf, int outsize,
         int& position, Comm& comm) {
    const Representation& form = send_form();
    const long long header = labelled(comm) && position == 0 ? static_cast<long long>(kPackedHeader) : 0;
    const long long need = header + static_cast<long long>(form_bytes(*datatype.map, incount, form));
    if (int e = span_check(call, outbuf, outsize, position, need)) return e;
    std::byte* out = static_cast<std::byte*>(outbuf) + position;
    if (header > 0) packed_header_write(out, form);
    if (need > header && form == Representation::native()) {
        datatype_pack(datatype, inbuf, incount, out + header);
    } else if (need > header && !form_write(*datatype.map, inbuf, incount, out + header, form)) {
        return call.raise(MPI_ERR_TRUNCATE, kSendFormUnfit);
    }
    position += static_cast<int>(need);
    return MPI_SUCCESS;
}

int Unpack(const Call& call, const void* inbuf, int insize, int& position, void* outbuf, int outcount,
           Datatype& datatype, Comm& comm) {
    Representation form;
    if (int e = unpack_form(call, comm, inbuf, insize, form)) return e;
    const long long header = labelled(comm) && position == 0 ? static_cast<long long>(kPackedHeader) : 0;
    const long long need = header + static_cast<long long>(form_bytes(*datatype.map, outcount, form));
    if (int e = span_check(call, inbuf, insize, position, need)) return e;
    const std::byte* in = static_cast<const std::byte*>(inbuf) + position + header;
    if (need > header && form == Representation::native()) {
        datatype_unpack(datatype, in, outcount, outbuf);
    } else if (need > header &&
               !form_read(*datatype.map, in, static_cast<std::size_t>(need - header), outcount, outbuf, form).fits) {
        return call.raise(MPI_ERR_TRUNCATE, "a packed value does not fit its datatype here");
    }
    position += static_cast<int>(need);
    return MPI_SUCCESS;
}

int Pack_size(const Call& call, int incount, Datatype& datatype, Comm& comm, int& size) {
    long long need = static_cast<long long>(form_bytes(*datatype.map, incount, send_form()));
    if (labelled(comm)) {
        // Room for a header and for the data as packed by any process of the job.
        for (const Representation& form : rt().forms)
            need = std::max(need, static_cast<long long>(form_bytes(*datatype.map, incount, form)));
        need += static_cast<long long>(kPackedHeader);
    }
    if (need > INT_MAX) return call.raise(MPI_ERR_COUNT, std::to_string(need) + " packed bytes do not fit in an int");
    size = static_cast<int>(need);
    return MPI_SUCCESS;
}

}  // namespace body
}  // namespace strata::mpi

#include "pack.inc"
