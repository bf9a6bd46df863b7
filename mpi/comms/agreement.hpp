// What the members of a communicator exchange while they build a new one:
// their contributions (split colours and keys, group lists) and the context
// pair the new communicator will use. Runs the collectives of collectives/ on
// the parent's collective context: building a communicator is collective
// over its parent, in the same order as every other collective there.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "base/wire.hpp"
#include "collectives/collective.hpp"
#include "mpi/comms/comm.hpp"

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
// at every member of `g`. The byte strings are base/wire.hpp payloads.
using base::wire::Bytes;
adi::Error agree_bcast(const coll::Group& g, Bytes& buf, int root);
adi::Error agree_swap(const coll::Group& g, int peer, int tag, const Bytes& out, Bytes& in);
adi::Error mask_agree(const coll::Group& g, ContextPool::Mask& agreed);

// Members of intracommunicator `c` agree on a free context pair and see each
// other's contributions. `pair` is -1 when no pair is free everywhere.
struct Agreement {
    int pair = -1;
    std::vector<Bytes> all;  // every member's contribution, in rank order
};
// `mine` has the same length at every member (a payload of fixed-size
// fields); empty when the members only agree on a pair.
adi::Error agree_intra(const Comm& c, const Bytes& mine, Agreement& out);

// Two groups agree on a pair free at every member of both: the members of
// the local group (view `local`) and of a remote group whose leader our
// leader `local_leader` reaches through `leaders` as rank `remote_leader`
// with tag `tag`. The leaders also swap `payload` (read at our leader only);
// every member gets the pair and the remote leader's payload.
adi::Error agree_inter(const coll::Group& local, int local_leader, const coll::Group& leaders, int remote_leader,
                       int tag, const Bytes& payload, int& pair, Bytes& remote_payload);

// What one group's leader sends the other's: the pairs free at every member
// of its group (ContextPool::bytes_of), and its payload.
struct LeaderOffer {
    Bytes mask;
    Bytes payload;
};
constexpr auto wire_fields(std::type_identity<LeaderOffer>) {
    return std::tuple{base::wire::field("mask", &LeaderOffer::mask), base::wire::field("payload", &LeaderOffer::payload)};
}
inline std::string wire_check(const LeaderOffer& o) {
    return o.mask.size() == sizeof(ContextPool::Mask) ? "" : "'mask': not a context mask";
}

// What a leader tells its group: the pair free in both groups (-1: none),
// and the other leader's payload.
struct LeaderResult {
    std::int32_t pair = -1;
    Bytes payload;
};
constexpr auto wire_fields(std::type_identity<LeaderResult>) {
    return std::tuple{base::wire::within("pair", &LeaderResult::pair, -1, ContextPool::kPairs - 1),
                      base::wire::field("payload", &LeaderResult::payload)};
}

// A group's members as world ranks, as one leader sends them to the other
// (MPI_Intercomm_create's payload, base::wire::payload of the list); refused
// when empty or naming a process outside a world of `world_size`.
base::Result<std::vector<int>> group_list_decode(const Bytes& bytes, int world_size);

// A member's contribution to MPI_Comm_split.
struct SplitEntry {
    std::int32_t color = 0;
    std::int32_t key = 0;
};
constexpr auto wire_fields(std::type_identity<SplitEntry>) {
    return std::tuple{base::wire::field("color", &SplitEntry::color), base::wire::field("key", &SplitEntry::key)};
}

}  // namespace strata::mpi
