// Groups: ordered sets of processes, kept as lists of world ranks.
#include <algorithm>
#include <set>

#include "mpi/comms/comm.hpp"
#include "mpi/errors.hpp"
#include "mpi/comms/group.hpp"
#include "mpi/pmpi_alias.hpp"
#include "mpi/setup.hpp"

namespace strata::mpi {

void groups_setup(Runtime& r) {
    r.groups.reserve_predefined(4);
    r.groups.put(MPI_GROUP_EMPTY & ((1 << 26) - 1), std::make_unique<Group>());
}

namespace {

// Groups raise on MPI_COMM_WORLD's handler: they belong to no communicator.
int raise(int cls, const char* fn, const std::string& detail) {
    return error_raise(MPI_COMM_WORLD, cls, fn, detail);
}

int group_check(const char* fn, MPI_Group h, Group*& g) {
    g = rt().groups.get(h);
    if (g != nullptr) return MPI_SUCCESS;
    return raise(MPI_ERR_GROUP, fn, h == MPI_GROUP_NULL ? "MPI_GROUP_NULL is not a group" : "not a group handle");
}

// Hands out a handle for `world`; an empty group is MPI_GROUP_EMPTY.
MPI_Group group_register(std::vector<int> world) {
    if (world.empty()) return MPI_GROUP_EMPTY;
    auto g = std::make_unique<Group>();
    g->world = std::move(world);
    return rt().groups.add(std::move(g));
}

int out_check(const char* fn, const void* out) {
    return out == nullptr ? raise(MPI_ERR_ARG, fn, "output argument is NULL") : MPI_SUCCESS;
}

// Checks that `ranks` are valid and distinct ranks of a group of `size`.
int ranks_check(const char* fn, const std::vector<int>& ranks, int size) {
    std::vector<bool> seen(static_cast<std::size_t>(size), false);
    for (int r : ranks) {
        if (r < 0 || r >= size)
            return raise(MPI_ERR_RANK, fn,
                         "rank " + std::to_string(r) + " is not in a group of size " + std::to_string(size));
        if (seen[static_cast<std::size_t>(r)])
            return raise(MPI_ERR_RANK, fn, "rank " + std::to_string(r) + " appears twice");
        seen[static_cast<std::size_t>(r)] = true;
    }
    return MPI_SUCCESS;
}

// Expands MPI_Group_range_incl/excl triplets into ranks.
int ranges_expand(const char* fn, int n, int ranges[][3], int size, std::vector<int>& out) {
    if (n < 0) return raise(MPI_ERR_ARG, fn, "n " + std::to_string(n) + " is negative");
    if (n > 0 && ranges == nullptr) return raise(MPI_ERR_ARG, fn, "ranges is NULL");
    for (int i = 0; i < n; ++i) {
        const int first = ranges[i][0];
        const int last = ranges[i][1];
        const int stride = ranges[i][2];
        const std::string which = "range " + std::to_string(i) + " (" + std::to_string(first) + ", " +
                                  std::to_string(last) + ", " + std::to_string(stride) + ")";
        if (stride == 0) return raise(MPI_ERR_ARG, fn, which + " has stride 0");
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            return raise(MPI_ERR_ARG, fn, which + ": the stride does not lead from first to last");
        if (first < 0 || first >= size || last < 0 || last >= size)
            return raise(MPI_ERR_RANK, fn, which + " leaves a group of size " + std::to_string(size));
        for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) out.push_back(static_cast<int>(r));
    }
    return ranks_check(fn, out, size);
}

int make_incl(const Group& g, const std::vector<int>& ranks, MPI_Group* newgroup) {
    std::vector<int> world;
    world.reserve(ranks.size());
    for (int r : ranks) world.push_back(g.world[static_cast<std::size_t>(r)]);
    *newgroup = group_register(std::move(world));
    return MPI_SUCCESS;
}

int make_excl(const Group& g, const std::vector<int>& ranks, MPI_Group* newgroup) {
    std::vector<bool> drop(g.world.size(), false);
    for (int r : ranks) drop[static_cast<std::size_t>(r)] = true;
    std::vector<int> world;
    for (std::size_t i = 0; i < g.world.size(); ++i) {
        if (!drop[i]) world.push_back(g.world[i]);
    }
    *newgroup = group_register(std::move(world));
    return MPI_SUCCESS;
}

// MPI_Group_incl / excl and their range forms: the ranks picked from
// `group` by a list or by triplets, kept (incl) or left out (excl).
enum class Pick { incl, excl };

int pick(const char* fn, MPI_Group group, const std::vector<int>* list, int n, int (*ranges)[3], Pick how,
         MPI_Group* newgroup) {
    Group* g = nullptr;
    if (int e = group_check(fn, group, g)) return e;
    if (int e = out_check(fn, newgroup)) return e;
    const int size = static_cast<int>(g->world.size());
    std::vector<int> ranks;
    if (list != nullptr) {
        ranks = *list;
        if (int e = ranks_check(fn, ranks, size)) return e;
    } else if (int e = ranges_expand(fn, n, ranges, size, ranks)) {
        return e;
    }
    return how == Pick::incl ? make_incl(*g, ranks, newgroup) : make_excl(*g, ranks, newgroup);
}

// The explicit rank list of MPI_Group_incl / excl.
int pick_list(const char* fn, MPI_Group group, int n, const int ranks[], Pick how, MPI_Group* newgroup) {
    if (n < 0) return raise(MPI_ERR_ARG, fn, "n " + std::to_string(n) + " is negative");
    if (n > 0 && ranks == nullptr) return raise(MPI_ERR_ARG, fn, "ranks is NULL");
    const std::vector<int> list(ranks, ranks + n);
    return pick(fn, group, &list, n, nullptr, how, newgroup);
}

// Set operations keep the order of the first group, then of the second.
template <class Keep>
int set_op(const char* fn, MPI_Group group1, MPI_Group group2, MPI_Group* newgroup, bool append_second, Keep keep) {
    Group* a = nullptr;
    Group* b = nullptr;
    if (int e = group_check(fn, group1, a)) return e;
    if (int e = group_check(fn, group2, b)) return e;
    if (int e = out_check(fn, newgroup)) return e;
    const std::set<int> in_b(b->world.begin(), b->world.end());
    std::vector<int> world;
    for (int w : a->world) {
        if (keep(in_b.count(w) > 0)) world.push_back(w);
    }
    if (append_second) {
        const std::set<int> in_a(a->world.begin(), a->world.end());
        for (int w : b->world) {
            if (in_a.count(w) == 0) world.push_back(w);
        }
    }
    *newgroup = group_register(std::move(world));
    return MPI_SUCCESS;
}

}  // namespace

}  // namespace strata::mpi

using namespace strata::mpi;

extern "C" {

STRATA_PMPI_ALIAS(MPI_Group_size);
int PMPI_Group_size(MPI_Group group, int* size) {
    static const char* fn = "MPI_Group_size";
    return api(fn, [&] {
        Group* g = nullptr;
        if (int e = group_check(fn, group, g)) return e;
        if (int e = out_check(fn, size)) return e;
        *size = static_cast<int>(g->world.size());
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Group_rank);
int PMPI_Group_rank(MPI_Group group, int* rank) {
    static const char* fn = "MPI_Group_rank";
    return api(fn, [&] {
        Group* g = nullptr;
        if (int e = group_check(fn, group, g)) return e;
        if (int e = out_check(fn, rank)) return e;
        const int r = rank_of(g->world, rt().world_rank);
        *rank = r < 0 ? MPI_UNDEFINED : r;
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Group_translate_ranks);
int PMPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
    static const char* fn = "MPI_Group_translate_ranks";
    return api(fn, [&] {
        Group* a = nullptr;
        Group* b = nullptr;
        if (int e = group_check(fn, group1, a)) return e;
        if (int e = group_check(fn, group2, b)) return e;
        if (n < 0) return raise(MPI_ERR_ARG, fn, "n " + std::to_string(n) + " is negative");
        if (n > 0 && (ranks1 == nullptr || ranks2 == nullptr)) return raise(MPI_ERR_ARG, fn, "ranks array is NULL");
        const int size1 = static_cast<int>(a->world.size());
        for (int i = 0; i < n; ++i) {
            const int r = ranks1[i];
            if (r != MPI_PROC_NULL && (r < 0 || r >= size1))
                return raise(MPI_ERR_RANK, fn,
                             "rank " + std::to_string(r) + " is not in group1 of size " + std::to_string(size1));
        }
        for (int i = 0; i < n; ++i) {
            if (ranks1[i] == MPI_PROC_NULL) {
                ranks2[i] = MPI_PROC_NULL;
                continue;
            }
            const int r = rank_of(b->world, a->world[static_cast<std::size_t>(ranks1[i])]);
            ranks2[i] = r < 0 ? MPI_UNDEFINED : r;
        }
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Group_compare);
int PMPI_Group_compare(MPI_Group group1, MPI_Group group2, int* result) {
    static const char* fn = "MPI_Group_compare";
    return api(fn, [&] {
        Group* a = nullptr;
        Group* b = nullptr;
        if (int e = group_check(fn, group1, a)) return e;
        if (int e = group_check(fn, group2, b)) return e;
        if (int e = out_check(fn, result)) return e;
        *result = compare_members(a->world, b->world);
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Comm_group);
int PMPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
    static const char* fn = "MPI_Comm_group";
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check(fn, comm, c)) return e;
        if (group == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "group is NULL");
        *group = group_register(c->group());
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Comm_remote_group);
int PMPI_Comm_remote_group(MPI_Comm comm, MPI_Group* group) {
    static const char* fn = "MPI_Comm_remote_group";
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check(fn, comm, c)) return e;
        if (!c->inter) return error_raise(comm, MPI_ERR_COMM, fn, "not an intercommunicator");
        if (group == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "group is NULL");
        *group = group_register(c->world);
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Group_union);
int PMPI_Group_union(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
    return api("MPI_Group_union", [&] {
        return set_op("MPI_Group_union", group1, group2, newgroup, true, [](bool) { return true; });
    });
}

STRATA_PMPI_ALIAS(MPI_Group_intersection);
int PMPI_Group_intersection(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
    return api("MPI_Group_intersection", [&] {
        return set_op("MPI_Group_intersection", group1, group2, newgroup, false, [](bool in_b) { return in_b; });
    });
}

STRATA_PMPI_ALIAS(MPI_Group_difference);
int PMPI_Group_difference(MPI_Group group1, MPI_Group group2, MPI_Group* newgroup) {
    return api("MPI_Group_difference", [&] {
        return set_op("MPI_Group_difference", group1, group2, newgroup, false, [](bool in_b) { return !in_b; });
    });
}

STRATA_PMPI_ALIAS(MPI_Group_incl);
int PMPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
    return api("MPI_Group_incl", [&] { return pick_list("MPI_Group_incl", group, n, ranks, Pick::incl, newgroup); });
}

STRATA_PMPI_ALIAS(MPI_Group_excl);
int PMPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
    return api("MPI_Group_excl", [&] { return pick_list("MPI_Group_excl", group, n, ranks, Pick::excl, newgroup); });
}

STRATA_PMPI_ALIAS(MPI_Group_range_incl);
int PMPI_Group_range_incl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
    return api("MPI_Group_range_incl",
               [&] { return pick("MPI_Group_range_incl", group, nullptr, n, ranges, Pick::incl, newgroup); });
}

STRATA_PMPI_ALIAS(MPI_Group_range_excl);
int PMPI_Group_range_excl(MPI_Group group, int n, int ranges[][3], MPI_Group* newgroup) {
    return api("MPI_Group_range_excl",
               [&] { return pick("MPI_Group_range_excl", group, nullptr, n, ranges, Pick::excl, newgroup); });
}

STRATA_PMPI_ALIAS(MPI_Group_free);
int PMPI_Group_free(MPI_Group* group) {
    static const char* fn = "MPI_Group_free";
    return api(fn, [&] {
        if (group == nullptr) return raise(MPI_ERR_ARG, fn, "group is NULL");
        Group* g = nullptr;
        if (int e = group_check(fn, *group, g)) return e;
        // MPI_GROUP_EMPTY stays valid: it is predefined, and handed out for every empty result.
        if (*group != MPI_GROUP_EMPTY) rt().groups.remove(*group);
        *group = MPI_GROUP_NULL;
        return MPI_SUCCESS;
    });
}

}  // extern "C"
