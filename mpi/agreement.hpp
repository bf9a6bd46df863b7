// What the members of a communicator exchange while they build a new one:
// their contributions (split colours and keys, group lists) and the context
// pair the new communicator will use. Runs the collectives of collectives/ on
// the parent's collective context: building a communicator is collective
// over its parent, in the same order as every other collective there.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "collectives/collective.hpp"
#include "mpi/comm.hpp"

namespace strata::mpi {

// The tag on which the leaders of two groups talk on an intercommunicator's
// collective context: negative, so it never meets a user tag (>= 0), a
// collective algorithm's tag (the intracommunicator ones are positive, those
// between an intercommunicator's groups from -200 up, InterTag in
// collectives/inter/inter.hpp), or MPI_ANY_TAG (-1).
inline constexpr int kTagAgreeLeaders = -103;

// The collective view of intracommunicator `c` (or of the local group of an
// intercommunicator).
coll::Group group_local(const Comm& c);
// The view of an intercommunicator's remote group: sends go to remote ranks,
// our envelopes carry our local rank.
coll::Group group_remote(const Comm& c);

// The pieces of the agreements below, for other exchanges while a
// communicator is built (mpi/port.cpp): `buf` of `root` reaches every member
// of `g` (its length too); the leaders of two groups swap byte strings of any
// length, `peer` being the other leader's rank in `g`; the context pairs free
// at every member of `g`.
adi::Error agree_bcast(const coll::Group& g, std::vector<std::byte>& buf, int root);
adi::Error agree_swap(const coll::Group& g, int peer, int tag, const std::vector<std::byte>& out,
                      std::vector<std::byte>& in);
adi::Error mask_agree(const coll::Group& g, ContextPool::Mask& agreed);

// Members of intracommunicator `c` agree on a free context pair and see each
// other's contributions. `pair` is -1 when no pair is free everywhere.
struct Agreement {
    int pair = -1;
    std::vector<std::byte> all;  // size() * contribution bytes, in rank order
};
adi::Error agree_intra(const Comm& c, std::span<const std::byte> mine, Agreement& out);

// Two groups agree on a pair free at every member of both: the members of
// the local group (view `local`) and of a remote group whose leader our
// leader `local_leader` reaches through `leaders` as rank `remote_leader`
// with tag `tag`. The leaders also swap `payload` (read at our leader only);
// every member gets the pair and the remote leader's payload.
adi::Error agree_inter(const coll::Group& local, int local_leader, const coll::Group& leaders, int remote_leader,
                       int tag, const std::vector<std::byte>& payload, int& pair,
                       std::vector<std::byte>& remote_payload);

// Appends / reads byte strings in the wire form every process reads alike
// (base/little_endian.hpp): an int as a little-endian int32, an int vector as
// its count and then its ints; put/get copy bytes as they are.
class ByteWriter {
public:
    static constexpr std::size_t kIntBytes = 4;
    void put(const void* p, std::size_t n);
    void put_int(int v);
    void put_ints(const std::vector<int>& v);
    std::vector<std::byte> bytes;
};
class ByteReader {
public:
    explicit ByteReader(std::span<const std::byte> b) : b_(b) {}
    bool get(void* p, std::size_t n);
    bool get_int(int& v);
    bool get_ints(std::vector<int>& v);
    // As get_ints, and false unless every int is a rank of a group of `size`.
    bool get_ranks(std::vector<int>& v, int size);
    // What is left to read.
    std::span<const std::byte> rest() const { return b_.subspan(at_); }

private:
    std::span<const std::byte> b_;
    std::size_t at_ = 0;
};

// A member's contribution to MPI_Comm_split: on the wire its colour, then
// its key, as put_int writes them.
struct SplitEntry {
    static constexpr std::size_t kBytes = 2 * ByteWriter::kIntBytes;
    int color = 0;
    int key = 0;
    void write(ByteWriter& w) const {
        w.put_int(color);
        w.put_int(key);
    }
    bool read(ByteReader& r) { return r.get_int(color) && r.get_int(key); }
};

}  // namespace strata::mpi
