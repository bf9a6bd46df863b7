// Intercommunicators (MPI-1.3 section 5.6).
#include "mpi/comms/agreement.hpp"
#include "mpi/comms/comm.hpp"
#include "mpi/errors.hpp"
#include "mpi/entry.hpp"

namespace strata::mpi::body {

int Intercomm_create(const Call& call, Comm& local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                     int tag, MPI_Comm& newintercomm) {
    const Comm& local = local_comm;
    if (local_leader < 0 || local_leader >= local.size())
        return call.raise(MPI_ERR_RANK, "local_leader " + std::to_string(local_leader) +
                                            " is not in local_comm of size " + std::to_string(local.size()));
    // Only the local leader uses peer_comm (MPI-1.3: it is significant there only).
    Comm* peer = nullptr;
    if (local.rank == local_leader) {
        if (int e = check::comm(call, peer_comm, peer)) return e;
        if (remote_leader < 0 || remote_leader >= static_cast<int>(peer->world.size()))
            return call.raise(MPI_ERR_RANK, "remote_leader " + std::to_string(remote_leader) +
                                                " is not in peer_comm of size " + std::to_string(peer->world.size()));
        if (peer->world[static_cast<std::size_t>(remote_leader)] == rt().world_rank)
            return call.raise(MPI_ERR_RANK, "remote_leader is the local leader itself");
    }
    // The leaders talk on peer_comm with the user's tag, as the standard
    // says, but on its collective context: user messages in flight on
    // peer_comm with the same tag are never taken for the leaders' exchange.
    const Comm& via = peer != nullptr ? *peer : local;
    const coll::Group leaders{*rt().engine, via.context + 1, via.rank, via.world};
    int pair = -1;
    Bytes theirs;
    adi::Error e = agree_inter(group_local(local), local_leader, leaders, remote_leader, tag,
                               base::wire::payload(local.world), pair, theirs);
    if (e != adi::Error::none) return call.raise(agreement_failed(e));
    if (pair < 0) return call.raise(no_context());
    base::Result<std::vector<int>> remote = group_list_decode(theirs, rt().world_size);
    if (!remote) return call.raise(MPI_ERR_INTERN, "malformed group list from the remote leader: " + remote.error());
    for (int wr : *remote) {
        if (rank_of(local.world, wr) >= 0) return call.raise(MPI_ERR_ARG, "the local and remote groups overlap");
    }
    auto ic = comm_make(local, pair, std::move(*remote), local.rank);
    ic->inter = true;
    ic->local = local.world;
    newintercomm = comm_register(std::move(ic));
    return MPI_SUCCESS;
}

int Intercomm_merge(const Call& call, Comm& intercomm, int high, MPI_Comm& newintracomm) {
    const Comm& c = intercomm;
    // Every member of a group passes the same `high`; the leader's is the group's.
    int pair = -1;
    Bytes theirs;
    adi::Error e = agree_inter(group_local(c), 0, group_remote(c), 0, kTagAgreeLeaders,
                               base::wire::payload(high != 0), pair, theirs);
    if (e != adi::Error::none) return call.raise(agreement_failed(e));
    if (pair < 0) return call.raise(no_context());
    const base::Result<bool> remote_high = base::wire::decode<bool>(theirs);
    if (!remote_high) return call.raise(MPI_ERR_INTERN, "malformed answer");
    // The low group comes first; on a tie, the group whose first process
    // has the lower world rank (both sides decide alike).
    bool local_first;
    if ((high != 0) != *remote_high) {
        local_first = !high;
    } else {
        local_first = c.local.front() < c.world.front();
    }
    std::vector<int> world = local_first ? c.local : c.world;
    const std::vector<int>& second = local_first ? c.world : c.local;
    world.insert(world.end(), second.begin(), second.end());
    const int rank = rank_of(world, rt().world_rank);
    auto m = comm_make(c, pair, std::move(world), rank);
    newintracomm = comm_register(std::move(m));
    return MPI_SUCCESS;
}

}  // namespace strata::mpi::body

#include "intercomm.inc"
