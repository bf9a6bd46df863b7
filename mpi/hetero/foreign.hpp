// Point-to-point data between processes of different representations
// (receiver makes right, mpi/hetero/convert.hpp).
//
// A send always leaves in its sender's form. A receive that may match a
// message from a foreign process (one whose representation differs from this
// process's, or any source while the job has one) lands the message as it
// came, in a staging Segment, and converts it into the user's buffer when the
// request completes: the sender's representation is known only then (for
// MPI_ANY_SOURCE), and a message of a machine whose types are larger or
// smaller has another length than the receiver's packed form. After the
// conversion the status counts the receiver's bytes, so MPI_Get_count and
// MPI_Get_elements read it as for any receive; a value that does not fit the
// receiver's type makes the receive fail with MPI_ERR_TRUNCATE.
//
// Between processes of one representation nothing of this runs: the check is
// Runtime::heterogeneous, false unless the job has a foreign process.
#pragma once

#include <string>

#include "adi/engine.hpp"
#include "collectives/collective.hpp"
#include "mpi/comms/comm.hpp"
#include "mpi/hetero/convert.hpp"
#include "mpi/runtime.hpp"
#include "mpi/datatypes/typemap.hpp"

namespace strata::mpi {

// Staging bytes for data on its way between representations, uninitialized
// and taken from a pool that keeps a few for the next message: a fresh large
// buffer costs its pages' faults every time (the allocator maps and unmaps
// it), more than converting its data. Given back when it goes.
class StageBuffer {
public:
    StageBuffer() = default;
    explicit StageBuffer(std::size_t n);
    ~StageBuffer();
    StageBuffer(StageBuffer&& other) noexcept : bytes_(std::move(other.bytes_)) {}
    StageBuffer& operator=(StageBuffer&& other) noexcept;
    StageBuffer(const StageBuffer&) = delete;
    StageBuffer& operator=(const StageBuffer&) = delete;
    void resize(std::size_t n);  // keeps the first min(n, size()) bytes
    std::byte* data() { return bytes_.data(); }
    const std::byte* data() const { return bytes_.data(); }
    std::size_t size() const { return bytes_.size(); }
    bool empty() const { return bytes_.empty(); }

private:
    coll::Bytes bytes_;
};

// Whether the processes of `c` (both groups of an intercommunicator) store
// data in more than one way. Cached in the communicator.
bool comm_spans(const Comm& c);

// Packed data on such a communicator describes itself: MPI_Pack starts the
// packed buffer (at position 0) with kPackedHeader bytes naming the packer's
// representation, MPI_Unpack reads it, and a receive into MPI_PACKED from a
// sender of typed data writes one for the sender before the data. A send of
// MPI_PACKED data on such a communicator carries kFlagPacked in its
// envelope, so that a typed receive reads the header instead of data.
inline constexpr std::size_t kPackedHeader = 24;
inline constexpr std::uint8_t kFlagPacked = 2;
void packed_header_write(std::byte* out, const Representation& rep);
base::Result<Representation> packed_header_read(const std::byte* in, std::size_t n);

// Whether MPI_PACKED data of `t` on `c` carries a header.
inline bool packed_labelled(const Runtime& r, const Comm& c, const Typemap& t) {
    return r.heterogeneous && t.basic == MPI_PACKED && comm_spans(c);
}

// Whether a receive of `t` data on `c` from `world_source` (adi::kAnySource:
// any) must land aside, to be converted or to have its packed header read
// or written.
inline bool receive_converts(const Runtime& r, const Comm& c, int world_source, const Typemap& t) {
    if (!r.heterogeneous) return false;
    if (comm_spans(c)) return !t.bytes_only || t.basic == MPI_PACKED;
    return !t.bytes_only && (world_source == adi::kAnySource || r.foreign[static_cast<std::size_t>(world_source)] != 0);
}

// The receive of `count` elements of `t` at `buf` (or, with `packed`, the
// packed form of them at `buf`) on `c` from `world_source`: a staging
// Segment, and the conversion installed as the request's completion.
adi::Buffer foreign_receive(adi::Request& q, const Comm& c, const Typemap& t, void* buf, int count, bool packed,
                            int world_source);

// Whether a send of `t` data leaves converted (the test setting only: this
// process announces another representation than its own).
inline bool send_converts(const Runtime& r, const Typemap& t) { return r.sends_foreign && !t.bytes_only; }

// Why a send (or MPI_Pack) that converts failed (MPI_ERR_TRUNCATE).
inline constexpr const char* kSendFormUnfit =
    "a value does not fit the representation this process announces (STRATA_REPRESENTATION_TEST)";

// The form collectives move data in on a communicator of the processes
// `world` (world ranks) that store data in several ways: the first process's
// byte order, each integer type at the largest size any of them has, and the
// long double format of the most digits among them. Every process computes
// the same from the same cards.
Representation collective_form(const std::vector<int>& world);

// The representation this process sends (and packs) in: the one it announced.
const Representation& send_form();

// Bytes `count` elements of `t` take, packed, in representation `form`
// (without a walk of the type for this process's own, or for bytes).
std::size_t form_bytes(const Typemap& t, int count, const Representation& form);

// Writes `count` elements of `t` from `buf` (this process's memory) into
// `out` (form_bytes of room), packed in representation `form`; false when a
// value does not fit that form (it is written clamped).
bool form_write(const Typemap& t, const void* buf, int count, std::byte* out, const Representation& form);

// The reverse: the `in_bytes` bytes at `in`, up to `count` elements of `t`
// packed in `form`, into this process's layout at `buf`; what was read and
// written, and whether every value fit.
Converted form_read(const Typemap& t, const std::byte* in, std::size_t in_bytes, int count, void* buf,
                    const Representation& form);

// The data of a send that leaves converted: a copy the request holds until it
// completes. Fails saying why when a value does not fit.
base::Result<adi::Buffer> foreign_send(adi::Request& q, const Typemap& t, const void* buf, int count);

}  // namespace strata::mpi
