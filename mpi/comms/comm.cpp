#include "mpi/comms/comm.hpp"
#include "mpi/port.hpp"

#include <algorithm>

#include "mpi/comms/agreement.hpp"
#include "mpi/comms/attr.hpp"
#include "mpi/errhandler.hpp"
#include "mpi/errors.hpp"
#include "mpi/comms/group.hpp"
#include "mpi/object_name.hpp"
#include "mpi/entry.hpp"
#include "mpi/setup.hpp"

namespace strata::mpi {

void comms_setup(Runtime& r) {
    r.comms.reserve_predefined(16);
    auto world = std::make_unique<Comm>();
    world->context = ContextPool::context_of(0);
    world->rank = r.world_rank;
    world->world.resize(static_cast<std::size_t>(r.world_size));
    for (int i = 0; i < r.world_size; ++i) world->world[static_cast<std::size_t>(i)] = i;
    world->name = "MPI_COMM_WORLD";
    r.comms.put(MPI_COMM_WORLD & ((1 << 26) - 1), std::move(world));

    auto self = std::make_unique<Comm>();
    self->context = ContextPool::context_of(1);
    self->rank = 0;
    self->world = {r.world_rank};
    self->name = "MPI_COMM_SELF";
    r.comms.put(MPI_COMM_SELF & ((1 << 26) - 1), std::move(self));
}

void setup_predefined(Runtime& r) {
    errhandlers_setup(r);
    datatypes_setup(r);
    comms_setup(r);
    groups_setup(r);
    keyvals_setup(r);
    ops_setup(r);
}

int rank_of(const std::vector<int>& world, int w) {
    const auto it = std::find(world.begin(), world.end(), w);
    return it == world.end() ? -1 : static_cast<int>(it - world.begin());
}

std::unique_ptr<Comm> comm_make(const Comm& parent, int pair, std::vector<int> world, int rank) {
    auto c = std::make_unique<Comm>();
    c->context = ContextPool::context_of(pair);
    c->world = std::move(world);
    c->rank = rank;
    c->errhandler = parent.errhandler;
    ++rt().errhandlers.get(c->errhandler)->refs;
    c->peer_set = parent.peer_set;
    c->peer_subject = parent.peer_subject;
    return c;
}

MPI_Comm comm_register(std::unique_ptr<Comm> c) {
    rt().contexts.take(ContextPool::pair_of(c->context));
    if (c->peer_set != 0) peer_set_hold(c->peer_set);
    return rt().comms.add(std::move(c));
}

int comm_destroy(MPI_Comm handle) {
    Runtime& r = rt();
    Comm* c = r.comms.get(handle);
    int e = attrs_delete_all(handle, *c);
    qos_release(*c);
    Errhandler* eh = r.errhandlers.get(c->errhandler);
    if (eh != nullptr && --eh->refs == 0 && c->errhandler != MPI_ERRORS_ARE_FATAL &&
        c->errhandler != MPI_ERRORS_RETURN) {
        r.errhandlers.remove(c->errhandler);
    }
    r.contexts.release(ContextPool::pair_of(c->context));
    if (c->peer_set != 0) peer_set_drop(c->peer_set);
    r.comms.remove(handle);
    return e;
}

MpiError agreement_failed(adi::Error e) {
    return {error_class_of(e), "a member failed while the communicator was being built: " + rt().engine->last_error()};
}

MpiError no_context() {
    return {MPI_ERR_OTHER, "no context id is free at every member (" + std::to_string(ContextPool::kPairs) +
                               " communicators exist); free communicators that are no longer used"};
}

MpiError comm_split_into(const Comm& parent, int color, int key, std::unique_ptr<Comm>& out) {
    Agreement a;
    if (adi::Error e = agree_intra(parent, base::wire::payload(SplitEntry{color, key}), a); e != adi::Error::none)
        return agreement_failed(e);
    if (a.pair < 0) return no_context();
    out.reset();
    if (color == MPI_UNDEFINED) return {};
    std::vector<std::pair<SplitEntry, int>> members;  // (entry, old rank)
    for (int i = 0; i < parent.size(); ++i) {
        // Every contribution has a SplitEntry's length: the allgather took them whole.
        const base::Result<SplitEntry> s = base::wire::decode<SplitEntry>(a.all[static_cast<std::size_t>(i)]);
        if (s && s->color == color) members.emplace_back(*s, i);
    }
    // Key order, ties broken by the rank in the parent.
    std::stable_sort(members.begin(), members.end(),
                     [](const auto& x, const auto& y) { return x.first.key < y.first.key; });
    std::vector<int> world;
    int rank = -1;
    for (const auto& [s, old] : members) {
        if (old == parent.rank) rank = static_cast<int>(world.size());
        world.push_back(parent.world[static_cast<std::size_t>(old)]);
    }
    out = comm_make(parent, a.pair, std::move(world), rank);
    return {};
}

int compare_members(const std::vector<int>& a, const std::vector<int>& b) {
    if (a == b) return MPI_IDENT;
    if (a.size() != b.size()) return MPI_UNEQUAL;
    std::vector<int> sa = a;
    std::vector<int> sb = b;
    std::sort(sa.begin(), sa.end());
    std::sort(sb.begin(), sb.end());
    return sa == sb ? MPI_SIMILAR : MPI_UNEQUAL;
}

MpiError comm_pair_agree(const Comm& c, int& pair) {
    Agreement a;
    if (adi::Error e = agree_intra(c, {}, a); e != adi::Error::none) return agreement_failed(e);
    if (a.pair < 0) return no_context();
    pair = a.pair;
    return {};
}

namespace {

MpiError dup_inter(const Comm& c, int& pair) {
    Bytes theirs;
    adi::Error e = agree_inter(group_local(c), 0, group_remote(c), 0, kTagAgreeLeaders, {}, pair, theirs);
    if (e != adi::Error::none) return agreement_failed(e);
    if (pair < 0) return no_context();
    return {};
}

}  // namespace

namespace body {

int Comm_size(const Call&, Comm& comm, int& size) {
    size = comm.size();
    return MPI_SUCCESS;
}

int Comm_rank(const Call&, Comm& comm, int& rank) {
    rank = comm.rank;
    return MPI_SUCCESS;
}

int Comm_set_name(const Call&, Comm& comm, const char* comm_name) {
    object_name_set(comm.name, comm_name);
    return MPI_SUCCESS;
}

int Comm_get_name(const Call&, Comm& comm, char* comm_name, int& resultlen) {
    object_name_copy(comm.name, comm_name, &resultlen);
    return MPI_SUCCESS;
}

int Comm_compare(const Call&, Comm& comm1, Comm& comm2, int& result) {
    if (&comm1 == &comm2) {
        result = MPI_IDENT;
    } else if (comm1.inter != comm2.inter) {
        result = MPI_UNEQUAL;
    } else {
        int r = compare_members(comm1.group(), comm2.group());
        if (comm1.inter) r = std::max(r, compare_members(comm1.world, comm2.world));
        // Same members in the same order but another context: congruent.
        result = r == MPI_IDENT ? MPI_CONGRUENT : r;
    }
    return MPI_SUCCESS;
}

int Comm_dup(const Call& call, Comm& comm, MPI_Comm& newcomm) {
    int pair = -1;
    if (const MpiError e = comm.inter ? dup_inter(comm, pair) : comm_pair_agree(comm, pair); !e.ok())
        return call.raise(e);
    auto d = comm_make(comm, pair, comm.world, comm.rank);
    d->inter = comm.inter;
    d->local = comm.local;
    d->topology = comm.topology;
    const MPI_Comm handle = comm_register(std::move(d));
    if (int ce = attrs_copy(call.comm, comm, *comm_get(handle))) {
        comm_destroy(handle);
        return call.raise(ce, "an attribute copy callback failed");
    }
    newcomm = handle;
    return MPI_SUCCESS;
}

int Comm_create(const Call& call, Comm& comm, ProcessGroup& group, MPI_Comm& newcomm) {
    for (int w : group.world) {
        if (rank_of(comm.world, w) < 0)
            return call.raise(MPI_ERR_GROUP, "the group is not a subset of the communicator's group");
    }
    int pair = -1;
    if (const MpiError e = comm_pair_agree(comm, pair); !e.ok()) return call.raise(e);
    const int rank = rank_of(group.world, rt().world_rank);
    newcomm = rank < 0 ? MPI_COMM_NULL : comm_register(comm_make(comm, pair, group.world, rank));
    return MPI_SUCCESS;
}

int Comm_split(const Call& call, Comm& comm, int color, int key, MPI_Comm& newcomm) {
    // Any colour but MPI_UNDEFINED names a group, negative ones too: MPI-1
    // asks for non-negative colours, but MPICH accepts every colour and
    // MPICH-G2's topology example splits with -1 for "the others".
    std::unique_ptr<Comm> made;
    if (const MpiError e = comm_split_into(comm, color, key, made); !e.ok()) return call.raise(e);
    newcomm = made ? comm_register(std::move(made)) : MPI_COMM_NULL;
    return MPI_SUCCESS;
}

int Comm_free(const Call& call, MPI_Comm& comm) {
    Comm* c = nullptr;
    if (int e = check::made_comm(call, comm, c, "freed")) return e;
    const int e = comm_destroy(comm);
    comm = MPI_COMM_NULL;
    return e == MPI_SUCCESS ? MPI_SUCCESS : call.raise(e, "an attribute delete callback failed");
}

int Comm_test_inter(const Call&, Comm& comm, int& flag) {
    flag = comm.inter ? 1 : 0;
    return MPI_SUCCESS;
}

int Comm_remote_size(const Call&, Comm& comm, int& size) {
    size = static_cast<int>(comm.world.size());
    return MPI_SUCCESS;
}

}  // namespace body
}  // namespace strata::mpi

#include "comm.inc"
