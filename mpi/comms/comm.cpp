#include "mpi/comms/comm.hpp"
#include "mpi/port.hpp"

#include <algorithm>

#include "mpi/comms/agreement.hpp"
#include "mpi/comms/attr.hpp"
#include "mpi/errhandler.hpp"
#include "mpi/errors.hpp"
#include "mpi/comms/group.hpp"
#include "mpi/object_name.hpp"
#include "mpi/pmpi_alias.hpp"
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

int comm_check(const char* fn, MPI_Comm comm, Comm*& c) {
    c = comm_get(comm);
    if (c != nullptr) return MPI_SUCCESS;
    return error_raise(comm, MPI_ERR_COMM, fn,
                       comm == MPI_COMM_NULL ? "MPI_COMM_NULL is not a communicator" : "not a communicator handle");
}

int comm_check_intra(const char* fn, MPI_Comm comm, Comm*& c) {
    if (int e = comm_check(fn, comm, c)) return e;
    if (!c->inter) return MPI_SUCCESS;
    return error_raise(comm, MPI_ERR_COMM, fn, "an intercommunicator is not allowed here");
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

}  // namespace strata::mpi

using namespace strata::mpi;

extern "C" {

STRATA_PMPI_ALIAS(MPI_Comm_size);
int PMPI_Comm_size(MPI_Comm comm, int* size) {
    return api("MPI_Comm_size", [&] {
        Comm* c = nullptr;
        if (int e = comm_check("MPI_Comm_size", comm, c)) return e;
        if (size == nullptr) return error_raise(comm, MPI_ERR_ARG, "MPI_Comm_size", "size is NULL");
        *size = c->size();
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Comm_rank);
int PMPI_Comm_rank(MPI_Comm comm, int* rank) {
    return api("MPI_Comm_rank", [&] {
        Comm* c = nullptr;
        if (int e = comm_check("MPI_Comm_rank", comm, c)) return e;
        if (rank == nullptr) return error_raise(comm, MPI_ERR_ARG, "MPI_Comm_rank", "rank is NULL");
        *rank = c->rank;
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Comm_set_name);
int PMPI_Comm_set_name(MPI_Comm comm, const char* comm_name) {
    static const char* fn = "MPI_Comm_set_name";
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check(fn, comm, c)) return e;
        if (comm_name == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "comm_name is NULL");
        // The name is local to this process; longer ones are cut to MPI_MAX_OBJECT_NAME - 1.
        c->name.assign(comm_name, strnlen(comm_name, MPI_MAX_OBJECT_NAME - 1));
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Comm_get_name);
int PMPI_Comm_get_name(MPI_Comm comm, char* comm_name, int* resultlen) {
    static const char* fn = "MPI_Comm_get_name";
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check(fn, comm, c)) return e;
        if (comm_name == nullptr || resultlen == nullptr)
            return error_raise(comm, MPI_ERR_ARG, fn, "comm_name or resultlen is NULL");
        object_name_copy(c->name, comm_name, resultlen);
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Comm_compare);
int PMPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
    static const char* fn = "MPI_Comm_compare";
    return api(fn, [&] {
        Comm* a = nullptr;
        Comm* b = nullptr;
        if (int e = comm_check(fn, comm1, a)) return e;
        if (int e = comm_check(fn, comm2, b)) return e;
        if (result == nullptr) return error_raise(comm1, MPI_ERR_ARG, fn, "result is NULL");
        if (comm1 == comm2) {
            *result = MPI_IDENT;
        } else if (a->inter != b->inter) {
            *result = MPI_UNEQUAL;
        } else {
            int r = compare_members(a->group(), b->group());
            if (a->inter) r = std::max(r, compare_members(a->world, b->world));
            // Same members in the same order but another context: congruent.
            *result = r == MPI_IDENT ? MPI_CONGRUENT : r;
        }
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Comm_dup);
int PMPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
    static const char* fn = "MPI_Comm_dup";
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check(fn, comm, c)) return e;
        if (newcomm == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "newcomm is NULL");
        int pair = -1;
        if (const MpiError e = c->inter ? dup_inter(*c, pair) : comm_pair_agree(*c, pair); !e.ok())
            return error_raise(comm, e, fn);
        auto d = comm_make(*c, pair, c->world, c->rank);
        d->inter = c->inter;
        d->local = c->local;
        d->topology = c->topology;
        const MPI_Comm handle = comm_register(std::move(d));
        Comm* created = comm_get(handle);
        if (int ce = attrs_copy(comm, *comm_get(comm), *created)) {
            comm_destroy(handle);
            return error_raise(comm, ce, fn, "an attribute copy callback failed");
        }
        *newcomm = handle;
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Comm_create);
int PMPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
    static const char* fn = "MPI_Comm_create";
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check_intra(fn, comm, c)) return e;
        Group* g = rt().groups.get(group);
        if (g == nullptr) return error_raise(comm, MPI_ERR_GROUP, fn, "not a group handle");
        if (newcomm == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "newcomm is NULL");
        for (int w : g->world) {
            if (rank_of(c->world, w) < 0)
                return error_raise(comm, MPI_ERR_GROUP, fn, "the group is not a subset of the communicator's group");
        }
        int pair = -1;
        if (const MpiError e = comm_pair_agree(*c, pair); !e.ok()) return error_raise(comm, e, fn);
        const int rank = rank_of(g->world, rt().world_rank);
        *newcomm = rank < 0 ? MPI_COMM_NULL : comm_register(comm_make(*c, pair, g->world, rank));
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Comm_split);
int PMPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
    static const char* fn = "MPI_Comm_split";
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check_intra(fn, comm, c)) return e;
        if (newcomm == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "newcomm is NULL");
        // Any colour but MPI_UNDEFINED names a group, negative ones too: MPI-1
        // asks for non-negative colours, but MPICH accepts every colour and
        // MPICH-G2's topology example splits with -1 for "the others".
        std::unique_ptr<Comm> made;
        if (const MpiError e = comm_split_into(*c, color, key, made); !e.ok()) return error_raise(comm, e, fn);
        *newcomm = made ? comm_register(std::move(made)) : MPI_COMM_NULL;
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Comm_free);
int PMPI_Comm_free(MPI_Comm* comm) {
    static const char* fn = "MPI_Comm_free";
    return api(fn, [&] {
        if (comm == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "comm is NULL");
        Comm* c = nullptr;
        if (int e = comm_check(fn, *comm, c)) return e;
        if (*comm == MPI_COMM_WORLD || *comm == MPI_COMM_SELF)
            return error_raise(*comm, MPI_ERR_COMM, fn, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed");
        if (int e = comm_destroy(*comm)) {
            *comm = MPI_COMM_NULL;
            return error_raise(MPI_COMM_WORLD, e, fn, "an attribute delete callback failed");
        }
        *comm = MPI_COMM_NULL;
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Comm_test_inter);
int PMPI_Comm_test_inter(MPI_Comm comm, int* flag) {
    static const char* fn = "MPI_Comm_test_inter";
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check(fn, comm, c)) return e;
        if (flag == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "flag is NULL");
        *flag = c->inter ? 1 : 0;
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Comm_remote_size);
int PMPI_Comm_remote_size(MPI_Comm comm, int* size) {
    static const char* fn = "MPI_Comm_remote_size";
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check(fn, comm, c)) return e;
        if (!c->inter) return error_raise(comm, MPI_ERR_COMM, fn, "not an intercommunicator");
        if (size == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "size is NULL");
        *size = static_cast<int>(c->world.size());
        return MPI_SUCCESS;
    });
}

}  // extern "C"
