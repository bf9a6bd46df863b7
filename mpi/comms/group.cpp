// Groups: ordered sets of processes, kept as lists of world ranks.
#include <algorithm>
#include <set>

#include "mpi/comms/comm.hpp"
#include "mpi/errors.hpp"
#include "mpi/comms/group.hpp"
#include "mpi/entry.hpp"
#include "mpi/setup.hpp"

namespace strata::mpi {

void groups_setup(Runtime& r) {
    r.groups.reserve_predefined(4);
    r.groups.put(MPI_GROUP_EMPTY & ((1 << 26) - 1), std::make_unique<ProcessGroup>());
}

namespace {

// Hands out a handle for `world`; an empty group is MPI_GROUP_EMPTY.
MPI_Group group_register(std::vector<int> world) {
    if (world.empty()) return MPI_GROUP_EMPTY;
    auto g = std::make_unique<ProcessGroup>();
    g->world = std::move(world);
    return rt().groups.add(std::move(g));
}

// Checks that `ranks` are valid and distinct ranks of a group of `size`.
int ranks_check(const Call& call, const std::vector<int>& ranks, int size) {
    std::vector<bool> seen(static_cast<std::size_t>(size), false);
    for (int r : ranks) {
        if (r < 0 || r >= size)
            return call.raise(MPI_ERR_RANK,
                              "rank " + std::to_string(r) + " is not in a group of size " + std::to_string(size));
        if (seen[static_cast<std::size_t>(r)])
            return call.raise(MPI_ERR_RANK, "rank " + std::to_string(r) + " appears twice");
        seen[static_cast<std::size_t>(r)] = true;
    }
    return MPI_SUCCESS;
}

// Expands MPI_Group_range_incl/excl triplets into ranks.
int ranges_expand(const Call& call, int n, int ranges[][3], int size, std::vector<int>& out) {
    for (int i = 0; i < n; ++i) {
        const int first = ranges[i][0];
        const int last = ranges[i][1];
        const int stride = ranges[i][2];
        const std::string which = "range " + std::to_string(i) + " (" + std::to_string(first) + ", " +
                                  std::to_string(last) + ", " + std::to_string(stride) + ")";
        if (stride == 0) return call.raise(MPI_ERR_ARG, which + " has stride 0");
        if ((stride > 0 && first > last) || (stride < 0 && first < last))
            return call.raise(MPI_ERR_ARG, which + ": the stride does not lead from first to last");
        if (first < 0 || first >= size || last < 0 || last >= size)
            return call.raise(MPI_ERR_RANK, which + " leaves a group of size " + std::to_string(size));
        for (long long r = first; stride > 0 ? r <= last : r >= last; r += stride) out.push_back(static_cast<int>(r));
    }
    return ranks_check(call, out, size);
}

int make_incl(const ProcessGroup& g, const std::vector<int>& ranks, MPI_Group& newgroup) {
    std::vector<int> world;
    world.reserve(ranks.size());
    for (int r : ranks) world.push_back(g.world[static_cast<std::size_t>(r)]);
    newgroup = group_register(std::move(world));
    return MPI_SUCCESS;
}

int make_excl(const ProcessGroup& g, const std::vector<int>& ranks, MPI_Group& newgroup) {
    std::vector<bool> drop(g.world.size(), false);
    for (int r : ranks) drop[static_cast<std::size_t>(r)] = true;
    std::vector<int> world;
    for (std::size_t i = 0; i < g.world.size(); ++i) {
        if (!drop[i]) world.push_back(g.world[i]);
    }
    newgroup = group_register(std::move(world));
    return MPI_SUCCESS;
}

// MPI_Group_incl / excl and their range forms: the ranks picked from
// `group` by a list or by triplets, kept (incl) or left out (excl).
enum class Pick { incl, excl };

int pick(const Call& call, const ProcessGroup& g, const std::vector<int>* list, int n, int (*ranges)[3], Pick how,
         MPI_Group& newgroup) {
    const int size = static_cast<int>(g.world.size());
    std::vector<int> ranks;
    if (list != nullptr) {
        ranks = *list;
        if (int e = ranks_check(call, ranks, size)) return e;
    } else if (int e = ranges_expand(call, n, ranges, size, ranks)) {
        return e;
    }
    return how == Pick::incl ? make_incl(g, ranks, newgroup) : make_excl(g, ranks, newgroup);
}

// The explicit rank list of MPI_Group_incl / excl.
int pick_list(const Call& call, const ProcessGroup& g, int n, const int ranks[], Pick how, MPI_Group& newgroup) {
    const std::vector<int> list(ranks, ranks + n);
    return pick(call, g, &list, n, nullptr, how, newgroup);
}

// Set operations keep the order of the first group, then of the second.
template <class Keep>
int set_op(const ProcessGroup& a, const ProcessGroup& b, MPI_Group& newgroup, bool append_second, Keep keep) {
    const std::set<int> in_b(b.world.begin(), b.world.end());
    std::vector<int> world;
    for (int w : a.world) {
        if (keep(in_b.count(w) > 0)) world.push_back(w);
    }
    if (append_second) {
        const std::set<int> in_a(a.world.begin(), a.world.end());
        for (int w : b.world) {
            if (in_a.count(w) == 0) world.push_back(w);
        }
    }
    newgroup = group_register(std::move(world));
    return MPI_SUCCESS;
}

}  // namespace

namespace body {

int Group_size(const Call&, ProcessGroup& group, int& size) {
    size = static_cast<int>(group.world.size());
    return MPI_SUCCESS;
}

int Group_rank(const Call&, ProcessGroup& group, int& rank) {
    const int r = rank_of(group.world, rt().world_rank);
    rank = r < 0 ? MPI_UNDEFINED : r;
    return MPI_SUCCESS;
}

int Group_translate_ranks(const Call& call, ProcessGroup& group1, int n, const int ranks1[], ProcessGroup& group2,
                          int ranks2[]) {
    const int size1 = static_cast<int>(group1.world.size());
    for (int i = 0; i < n; ++i) {
        const int r = ranks1[i];
        if (r != MPI_PROC_NULL && (r < 0 || r >= size1))
            return call.raise(MPI_ERR_RANK,
                              "rank " + std::to_string(r) + " is not in group1 of size " + std::to_string(size1));
    }
    for (int i = 0; i < n; ++i) {
        if (ranks1[i] == MPI_PROC_NULL) {
            ranks2[i] = MPI_PROC_NULL;
            continue;
        }
        const int r = rank_of(group2.world, group1.world[static_cast<std::size_t>(ranks1[i])]);
        ranks2[i] = r < 0 ? MPI_UNDEFINED : r;
    }
    return MPI_SUCCESS;
}

int Group_compare(const Call&, ProcessGroup& group1, ProcessGroup& group2, int& result) {
    result = compare_members(group1.world, group2.world);
    return MPI_SUCCESS;
}

int Comm_group(const Call&, Comm& comm, MPI_Group& group) {
    group = group_register(comm.group());
    return MPI_SUCCESS;
}

int Comm_remote_group(const Call&, Comm& comm, MPI_Group& group) {
    group = group_register(comm.world);
    return MPI_SUCCESS;
}

int Group_union(const Call&, ProcessGroup& group1, ProcessGroup& group2, MPI_Group& newgroup) {
    return set_op(group1, group2, newgroup, true, [](bool) { return true; });
}

int Group_intersection(const Call&, ProcessGroup& group1, ProcessGroup& group2, MPI_Group& newgroup) {
    return set_op(group1, group2, newgroup, false, [](bool in_b) { return in_b; });
}

int Group_difference(const Call&, ProcessGroup& group1, ProcessGroup& group2, MPI_Group& newgroup) {
    return set_op(group1, group2, newgroup, false, [](bool in_b) { return !in_b; });
}

int Group_incl(const Call& call, ProcessGroup& group, int n, const int ranks[], MPI_Group& newgroup) {
    return pick_list(call, group, n, ranks, Pick::incl, newgroup);
}

int Group_excl(const Call& call, ProcessGroup& group, int n, const int ranks[], MPI_Group& newgroup) {
    return pick_list(call, group, n, ranks, Pick::excl, newgroup);
}

int Group_range_incl(const Call& call, ProcessGroup& group, int n, int ranges[][3], MPI_Group& newgroup) {
    return pick(call, group, nullptr, n, ranges, Pick::incl, newgroup);
}

int Group_range_excl(const Call& call, ProcessGroup& group, int n, int ranges[][3], MPI_Group& newgroup) {
    return pick(call, group, nullptr, n, ranges, Pick::excl, newgroup);
}

int Group_free(const Call& call, MPI_Group& group) {
    ProcessGroup* g = nullptr;
    if (int e = check::group(call, group, g)) return e;
    // MPI_GROUP_EMPTY stays valid: it is predefined, and handed out for every empty result.
    if (group != MPI_GROUP_EMPTY) rt().groups.remove(group);
    group = MPI_GROUP_NULL;
    return MPI_SUCCESS;
}

}  // namespace body
}  // namespace strata::mpi

#include "group.inc"
