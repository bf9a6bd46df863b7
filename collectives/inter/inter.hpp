// Collectives on intercommunicators (MPI-2 section 7.3): two disjoint groups,
// and every operation moves data from one group to the other.
//
// One algorithm per operation, each in collectives/inter/<op>.cpp: the
// leader-based schemes MPICH uses. Each group works through its leader (its
// rank 0) and runs the flat part of the work, a local reduce, gather,
// broadcast or scatter, with the intracommunicator collectives of
// collectives.hpp on its own group, whose registries choose the algorithm as
// for any communicator. The leaders, or in gatherv, scatterv, allgatherv and
// alltoall(v) every process, then talk across with point-to-point on the
// intercommunicator only. There is no registry: nothing is left to choose
// between the groups, and the choices inside each group are the registries'.
//
// Nothing here assumes that the two groups share a job: the remote group is
// reached only through `Groups::remote`, and nothing of the remote group's
// topology is read. Both groups run on the intercommunicator's collective
// context; the traffic between them carries tags of its own (InterTag), below
// every tag of the intracommunicator algorithms, so a message between the
// groups never matches a local stage's receive, although envelopes on both
// carry local ranks.
//
// Buffers are dense bytes as in collectives.hpp; counts of reductions are
// elements of the operation. The caller has checked the arguments.
#pragma once

#include "collectives/collectives.hpp"

namespace strata::coll::inter {

// Both groups as one process of an intercommunicator sees them.
struct Groups {
    Group local;   // its own group, as a communicator's (with its levels)
    Group remote;  // the other group: its ranks are the destinations and sources; our envelopes carry our local rank
};

// The root of a rooted operation as each process sees it: in the root's group
// the root passes MPI_ROOT (`self`) and every other process MPI_PROC_NULL
// (`idle`: it takes no part); in the other group every process names the
// root's rank in the remote group (`remote`, `rank`).
struct Root {
    enum class Role { self, idle, remote };
    Role role = Role::idle;
    int rank = 0;
};

// The tags of the traffic between the groups: negative, so below every
// intracommunicator algorithm's tag (stages included), and clear of
// MPI_ANY_TAG and of the communicator agreement's kTagAgreeLeaders (-103).
enum InterTag : int {
    kTagInterBarrier = -200,
    kTagInterBcast,
    kTagInterGather,
    kTagInterScatter,
    kTagInterAllgather,
    kTagInterAlltoall,
    kTagInterReduce,
    kTagInterAllreduce,
    kTagInterReduceScatter,
};

// No process leaves before every process of both groups has entered: a local
// barrier, the leaders' exchange, a local broadcast of the leader's word.
adi::Error barrier(const Groups& g);

// `bytes` of the root's `buf` reach every process of the other group: the root
// sends to the remote leader, which broadcasts in its group.
adi::Error bcast(const Groups& g, void* buf, std::size_t bytes, Root root);

// The other group's blocks of `sbytes`, in rank order, reach the root's `recv`
// (`rblock` per remote process): a local gather to the leader, which sends
// them in one message.
adi::Error gather(const Groups& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock, Root root);

// As gather, with the root's byte counts and displacements per remote
// process: every process sends straight to the root (only the root knows the
// counts).
adi::Error gatherv(const Groups& g, const void* send, std::size_t sbytes, void* recv, Sizes rcounts, Sizes rdispls,
                   Root root);

// The root's `sblock` blocks, one per remote process in rank order, reach the
// other group's processes (`rbytes` each): sent in one message to the remote
// leader, which scatters them in its group.
adi::Error scatter(const Groups& g, const void* send, std::size_t sblock, void* recv, std::size_t rbytes, Root root);

// As scatter, with the root's byte counts and displacements: the root sends
// to every remote process itself.
adi::Error scatterv(const Groups& g, const void* send, Sizes scounts, Sizes sdispls, void* recv, std::size_t rbytes,
                    Root root);

// Every process gets the other group's blocks in rank order (`rblock` per
// remote process): a local gather to the leader, the leaders swap their
// groups' blocks, a local broadcast.
adi::Error allgather(const Groups& g, const void* send, std::size_t sbytes, void* recv, std::size_t rblock);

// As allgather, with byte counts and displacements per remote process: every
// process sends its block to the remote leader, which knows the counts, and
// the leader broadcasts the blocks, packed, in its group.
adi::Error allgatherv(const Groups& g, const void* send, std::size_t sbytes, void* recv, Sizes rcounts,
                      Sizes rdispls);

// Block j of every process goes to remote process j: pairwise exchanges over
// max(local, remote) steps, the remote ranks beyond a group's size skipped.
adi::Error alltoall(const Groups& g, const void* send, std::size_t sblock, void* recv, std::size_t rblock);
adi::Error alltoallv(const Groups& g, const void* send, Sizes scounts, Sizes sdispls, void* recv, Sizes rcounts,
                     Sizes rdispls);

// The root gets the reduction of the other group's vectors in that group's
// rank order: a local reduce to the remote leader, which sends the result.
adi::Error reduce(const Groups& g, const void* send, void* recv, std::size_t count, const ReduceOp& op, Root root);

// Every process gets the reduction of the other group's vectors: local
// reduces to the leaders, the leaders swap the results, local broadcasts.
adi::Error allreduce(const Groups& g, const void* send, void* recv, std::size_t count, const ReduceOp& op);

// The reduction of the other group's vectors (each the sum of `counts`
// elements long, the same in both groups), scattered by `counts` (this
// group's, one per local process): local reduces to the leaders, the leaders
// swap the results, local scatters.
adi::Error reduce_scatter(const Groups& g, const void* send, void* recv, Sizes counts, const ReduceOp& op);

}  // namespace strata::coll::inter
