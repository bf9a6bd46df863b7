// Intercommunicators (MPI-1.3 section 5.6).
#include "mpi/comms/agreement.hpp"
#include "mpi/comms/comm.hpp"
#include "mpi/errors.hpp"
#include "mpi/pmpi_alias.hpp"

using namespace strata;
using namespace strata::mpi;

extern "C" {

STRATA_PMPI_ALIAS(MPI_Intercomm_create);
int PMPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                          MPI_Comm* newintercomm) {
    static const char* fn = "MPI_Intercomm_create";
    return api(fn, [&] {
        Comm* local = nullptr;
        if (int e = comm_check_intra(fn, local_comm, local)) return e;
        if (newintercomm == nullptr) return error_raise(local_comm, MPI_ERR_ARG, fn, "newintercomm is NULL");
        if (local_leader < 0 || local_leader >= local->size())
            return error_raise(local_comm, MPI_ERR_RANK, fn,
                               "local_leader " + std::to_string(local_leader) + " is not in local_comm of size " +
                                   std::to_string(local->size()));
        if (tag < 0) return error_raise(local_comm, MPI_ERR_TAG, fn, "tag " + std::to_string(tag) + " is negative");
        // Only the local leader uses peer_comm (MPI-1.3: it is significant there only).
        Comm* peer = nullptr;
        if (local->rank == local_leader) {
            if (int e = comm_check(fn, peer_comm, peer)) return e;
            if (remote_leader < 0 || remote_leader >= static_cast<int>(peer->world.size()))
                return error_raise(local_comm, MPI_ERR_RANK, fn,
                                   "remote_leader " + std::to_string(remote_leader) +
                                       " is not in peer_comm of size " + std::to_string(peer->world.size()));
            if (peer->world[static_cast<std::size_t>(remote_leader)] == rt().world_rank)
                return error_raise(local_comm, MPI_ERR_RANK, fn, "remote_leader is the local leader itself");
        }
        // The leaders talk on peer_comm with the user's tag, as the standard
        // says, but on its collective context: user messages in flight on
        // peer_comm with the same tag are never taken for the leaders' exchange.
        const Comm& via = peer != nullptr ? *peer : *local;
        const coll::Group leaders{*rt().engine, via.context + 1, via.rank, via.world};
        int pair = -1;
        Bytes theirs;
        adi::Error e = agree_inter(group_local(*local), local_leader, leaders, remote_leader, tag,
                                   base::wire::payload(local->world), pair, theirs);
        if (e != adi::Error::none) return error_raise(local_comm, agreement_failed(e), fn);
        if (pair < 0) return error_raise(local_comm, no_context(), fn);
        base::Result<std::vector<int>> remote = group_list_decode(theirs, rt().world_size);
        if (!remote)
            return error_raise(local_comm, MPI_ERR_INTERN, fn, "malformed group list from the remote leader: " + remote.error());
        for (int wr : *remote) {
            if (rank_of(local->world, wr) >= 0)
                return error_raise(local_comm, MPI_ERR_ARG, fn, "the local and remote groups overlap");
        }
        auto ic = comm_make(*local, pair, std::move(*remote), local->rank);
        ic->inter = true;
        ic->local = local->world;
        *newintercomm = comm_register(std::move(ic));
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Intercomm_merge);
int PMPI_Intercomm_merge(MPI_Comm intercomm, int high, MPI_Comm* newintracomm) {
    static const char* fn = "MPI_Intercomm_merge";
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check(fn, intercomm, c)) return e;
        if (!c->inter) return error_raise(intercomm, MPI_ERR_COMM, fn, "not an intercommunicator");
        if (newintracomm == nullptr) return error_raise(intercomm, MPI_ERR_ARG, fn, "newintracomm is NULL");
        // Every member of a group passes the same `high`; the leader's is the group's.
        int pair = -1;
        Bytes theirs;
        adi::Error e = agree_inter(group_local(*c), 0, group_remote(*c), 0, kTagAgreeLeaders,
                                   base::wire::payload(high != 0), pair, theirs);
        if (e != adi::Error::none) return error_raise(intercomm, agreement_failed(e), fn);
        if (pair < 0) return error_raise(intercomm, no_context(), fn);
        const base::Result<bool> remote_high = base::wire::decode<bool>(theirs);
        if (!remote_high) return error_raise(intercomm, MPI_ERR_INTERN, fn, "malformed answer");
        // The low group comes first; on a tie, the group whose first process
        // has the lower world rank (both sides decide alike).
        bool local_first;
        if ((high != 0) != *remote_high) {
            local_first = !high;
        } else {
            local_first = c->local.front() < c->world.front();
        }
        std::vector<int> world = local_first ? c->local : c->world;
        const std::vector<int>& second = local_first ? c->world : c->local;
        world.insert(world.end(), second.begin(), second.end());
        const int rank = rank_of(world, rt().world_rank);
        auto m = comm_make(*c, pair, std::move(world), rank);
        *newintracomm = comm_register(std::move(m));
        return MPI_SUCCESS;
    });
}

}  // extern "C"
