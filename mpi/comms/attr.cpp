// Attribute caching (MPI-1.3 section 5.7).
#include "mpi/comms/attr.hpp"

#include <algorithm>
#include <climits>
#include <map>

#include "mpi/comms/comm.hpp"
#include "mpi/errors.hpp"
#include "mpi/port.hpp"
#include "mpi/entry.hpp"
#include "mpi/setup.hpp"
#include "wireup/emulation.hpp"

namespace strata::mpi {

namespace {

// The predefined attributes of MPI_COMM_WORLD: their values live in the
// Runtime (Attr_get hands out pointers to them, as MPI-1 specifies for C).
struct Predefined {
    int keyval;
    int WorldAttributes::*value;
};
const Predefined kPredefined[] = {
    {MPI_TAG_UB, &WorldAttributes::tag_ub},
    {MPI_HOST, &WorldAttributes::host},
    {MPI_IO, &WorldAttributes::io},
    {MPI_WTIME_IS_GLOBAL, &WorldAttributes::wtime_is_global},
};

// The keys whose values are made per communicator on request.
constexpr int kGridKeys[] = {MPICHX_TOPOLOGY_DEPTHS, MPICHX_TOPOLOGY_COLORS, MPIX_PARALLEL_STREAMS, MPIX_QOS};

// The world ranks `c` addresses that are at another site than this process.
std::vector<int> other_sites(const Comm& c) {
    const wireup::Topology& topo = topology_all();
    const int me = rt().world_rank;
    std::vector<int> out;
    if (topo.depth(me) <= wireup::kLan) return out;
    for (const int w : c.world) {
        if (w != me && topo.depth(w) > wireup::kLan && topo.color(w, wireup::kLan) != topo.color(me, wireup::kLan))
            out.push_back(w);
    }
    return out;
}

// MPI_Attr_put of MPIX_PARALLEL_STREAMS (mpi.h): the streams to the members of `comm` at other sites.
int streams_put(const Call& call, const Comm& c, const void* value) {
    if (value == nullptr)
        return call.raise(MPI_ERR_ARG, "MPIX_PARALLEL_STREAMS takes a pointer to an int, not NULL");
    const int n = *static_cast<const int*>(value);
    if (n < 1 || n > wireup::kStreamsMax)
        return call.raise(MPI_ERR_ARG, "MPIX_PARALLEL_STREAMS must be 1 to " + std::to_string(wireup::kStreamsMax) +
                               " streams, not " + std::to_string(n));
    for (const int w : other_sites(c)) rt().engine->streams_set(w, n);
    return MPI_SUCCESS;
}

// MPI_Attr_get of MPIX_PARALLEL_STREAMS: the most streams to a member of `c` at another site.
int* streams_get(Comm& c) {
    c.streams = 1;
    for (const int w : other_sites(c)) c.streams = std::max(c.streams, rt().engine->streams(w));
    return &c.streams;
}

// A reservation for `q` (premium) of `c`'s traffic to its members at other
// sites, on its point-to-point and collective contexts; the engine's handle.
base::Result<std::uint64_t> qos_reserve(const Comm& c, const MPIX_Qos& q) {
    const std::vector<int> peers = other_sites(c);
    const int contexts[] = {c.context, c.context + 1};
    const auto bytes_per_s = static_cast<std::uint64_t>(q.mbit) * 1000000 / 8;
    return rt().engine->qos_reserve(peers, contexts, bytes_per_s);
}

// MPI_Attr_put of MPIX_QOS (mpi.h): premium service for `c`, or best effort.
int qos_put(const Call& call, Comm& c, const void* value) {
    if (value == nullptr) return call.raise(MPI_ERR_ARG, "MPIX_QOS takes a pointer to an MPIX_Qos, not NULL");
    const MPIX_Qos q = *static_cast<const MPIX_Qos*>(value);
    if (q.service != MPIX_QOS_BEST_EFFORT && q.service != MPIX_QOS_PREMIUM)
        return call.raise(MPI_ERR_ARG,
                          "MPIX_QOS service must be MPIX_QOS_BEST_EFFORT (0) or MPIX_QOS_PREMIUM (1), not " +
                              std::to_string(q.service));
    if (q.service == MPIX_QOS_PREMIUM && q.mbit < 1)
        return call.raise(MPI_ERR_ARG,
                          "premium service needs a rate of at least 1 Mbit/s, not " + std::to_string(q.mbit));
    const MPIX_Qos before = c.qos;
    qos_release(c);
    if (q.service == MPIX_QOS_BEST_EFFORT) return MPI_SUCCESS;
    base::Result<std::uint64_t> held = qos_reserve(c, q);
    if (held) {
        c.qos = q;
        c.qos_handle = *held;
        return MPI_SUCCESS;
    }
    std::string why = "premium service of " + std::to_string(q.mbit) + " Mbit/s refused: " + held.error();
    if (before.service == MPIX_QOS_PREMIUM) {
        // The earlier reservation stays, unless another process took its place meanwhile.
        if (base::Result<std::uint64_t> again = qos_reserve(c, before); again) {
            c.qos = before;
            c.qos_handle = *again;
        } else {
            why += "; the communicator's earlier " + std::to_string(before.mbit) +
                   " Mbit/s were taken meanwhile, so it is best effort now";
        }
    }
    return call.raise(MPIX_ERR_QOS, why);
}

// The grid topology attributes of `c`, made on first use from the world's
// topology: its group's rows, colours renumbered per level by first
// appearance in the communicator's rank order.
GridAttributes& grid_attributes(Comm& c) {
    if (c.cache.grid) return *c.cache.grid;
    const wireup::Topology& topo = topology_all();
    auto g = std::make_unique<GridAttributes>();
    const std::vector<int>& members = c.group();
    std::vector<std::map<int, int>> renumber(wireup::kLevels);
    for (const int w : members) {
        const int depth = topo.depth(w);
        g->depths.push_back(depth);
        std::vector<int> row;
        for (int level = 0; level < depth; ++level) {
            auto& seen = renumber[static_cast<std::size_t>(level)];
            row.push_back(seen.try_emplace(topo.color(w, level), static_cast<int>(seen.size())).first->second);
        }
        g->rows.push_back(std::move(row));
    }
    for (auto& row : g->rows) g->colors.push_back(row.data());
    c.cache.grid = std::move(g);
    return *c.cache.grid;
}

void keyval_release(int handle) {
    Keyval* k = rt().keyvals.get(handle);
    if (k != nullptr && --k->refs == 0) rt().keyvals.remove(handle);
}

// Runs the delete callback of one attribute; the attribute stays in place.
int attr_run_delete(MPI_Comm comm, int keyval, void* value) {
    Keyval* k = rt().keyvals.get(keyval);
    if (k == nullptr || k->del == nullptr) return MPI_SUCCESS;
    return k->del(comm, keyval, value, k->extra);
}

// A callback's failure as an error class (callbacks may return any code).
int callback_class(int code) { return error_class_text(code) != nullptr ? code : MPI_ERR_OTHER; }

}  // namespace

void qos_release(Comm& c) {
    if (c.qos_handle != 0) rt().engine->qos_release(c.qos_handle);
    c.qos_handle = 0;
    c.qos = MPIX_Qos{MPIX_QOS_BEST_EFFORT, 0};
}

void keyvals_setup(Runtime& r) {
    r.keyvals.reserve_predefined(9);  // indexes 1 .. 8 (mpi.h)
    Comm* world = r.comms.get(MPI_COMM_WORLD);
    for (const Predefined& p : kPredefined) {
        auto k = std::make_unique<Keyval>();
        k->predefined = true;
        r.keyvals.put(p.keyval & ((1 << 26) - 1), std::move(k));
        world->attrs[p.keyval] = &(r.world_attributes.*p.value);
    }
    for (const int key : kGridKeys) {
        auto k = std::make_unique<Keyval>();
        k->predefined = true;
        r.keyvals.put(key & ((1 << 26) - 1), std::move(k));
    }
}

int attrs_copy(MPI_Comm old_handle, const Comm& from, Comm& to) {
    for (const auto& [keyval, value] : from.attrs) {
        Keyval* k = rt().keyvals.get(keyval);
        if (k == nullptr || k->predefined || k->copy == nullptr) continue;
        void* out = nullptr;
        int flag = 0;
        const int rc = k->copy(old_handle, keyval, k->extra, value, &out, &flag);
        if (rc != MPI_SUCCESS) return callback_class(rc);
        if (flag) {
            to.attrs[keyval] = out;
            ++k->refs;
        }
    }
    return MPI_SUCCESS;
}

int attrs_delete_all(MPI_Comm handle, Comm& c) {
    int first = MPI_SUCCESS;
    for (const auto& [keyval, value] : c.attrs) {
        Keyval* k = rt().keyvals.get(keyval);
        if (k == nullptr || k->predefined) continue;
        const int rc = attr_run_delete(handle, keyval, value);
        if (rc != MPI_SUCCESS && first == MPI_SUCCESS) first = callback_class(rc);
        keyval_release(keyval);
    }
    c.attrs.clear();
    return first;
}

}  // namespace strata::mpi

using namespace strata::mpi;

extern "C" {

int STRATA_Null_copy_fn(MPI_Comm, int, void*, void*, void*, int* flag) {
    if (flag != nullptr) *flag = 0;
    return MPI_SUCCESS;
}

int STRATA_Dup_fn(MPI_Comm, int, void*, void* attribute_val_in, void* attribute_val_out, int* flag) {
    *static_cast<void**>(attribute_val_out) = attribute_val_in;
    *flag = 1;
    return MPI_SUCCESS;
}

int STRATA_Null_delete_fn(MPI_Comm, int, void*, void*) { return MPI_SUCCESS; }

}  // extern "C"

namespace strata::mpi {
namespace {

// The MPI-1 and MPI-2 names share these; errors name the function called.
int keyval_create(MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int& keyval, void* extra_state) {
    auto k = std::make_unique<Keyval>();
    k->copy = copy_fn;
    k->del = delete_fn;
    k->extra = extra_state;
    keyval = rt().keyvals.add(std::move(k));
    return MPI_SUCCESS;
}

int keyval_free(const Call& call, int& keyval) {
    if (int e = check::keyval(call, keyval)) return e;
    if (rt().keyvals.get(keyval)->predefined) return call.raise(MPI_ERR_ARG, "a predefined key cannot be freed");
    // Attributes that still use the key keep it alive until they are deleted.
    keyval_release(keyval);
    keyval = MPI_KEYVAL_INVALID;
    return MPI_SUCCESS;
}

int attr_put(const Call& call, Comm& c, int keyval, void* attribute_val) {
    Keyval& k = *rt().keyvals.get(keyval);
    if (keyval == MPIX_PARALLEL_STREAMS) return streams_put(call, c, attribute_val);
    if (keyval == MPIX_QOS) return qos_put(call, c, attribute_val);
    if (k.predefined) return call.raise(MPI_ERR_ARG, "predefined attributes cannot be changed");
    auto it = c.attrs.find(keyval);
    if (it != c.attrs.end()) {
        if (int rc = attr_run_delete(call.comm, keyval, it->second))
            return call.raise(callback_class(rc), "the attribute's delete callback failed");
        it->second = attribute_val;
    } else {
        c.attrs[keyval] = attribute_val;
        ++k.refs;
    }
    return MPI_SUCCESS;
}

int attr_get(Comm& c, int keyval, void* attribute_val, int& flag) {
    if (keyval == MPICHX_TOPOLOGY_DEPTHS || keyval == MPICHX_TOPOLOGY_COLORS) {
        GridAttributes& g = grid_attributes(c);
        *static_cast<void**>(attribute_val) = keyval == MPICHX_TOPOLOGY_DEPTHS ? static_cast<void*>(g.depths.data())
                                                                               : static_cast<void*>(g.colors.data());
        flag = 1;
        return MPI_SUCCESS;
    }
    if (keyval == MPIX_PARALLEL_STREAMS || keyval == MPIX_QOS) {
        *static_cast<void**>(attribute_val) =
            keyval == MPIX_QOS ? static_cast<void*>(&c.qos) : static_cast<void*>(streams_get(c));
        flag = 1;
        return MPI_SUCCESS;
    }
    const auto it = c.attrs.find(keyval);
    flag = it != c.attrs.end() ? 1 : 0;
    if (flag) *static_cast<void**>(attribute_val) = it->second;
    return MPI_SUCCESS;
}

int attr_delete(const Call& call, Comm& c, int keyval) {
    if (keyval == MPIX_QOS) {
        qos_release(c);
        return MPI_SUCCESS;
    }
    if (rt().keyvals.get(keyval)->predefined)
        return call.raise(MPI_ERR_ARG, "predefined attributes cannot be deleted");
    auto it = c.attrs.find(keyval);
    if (it == c.attrs.end()) return MPI_SUCCESS;
    if (int rc = attr_run_delete(call.comm, keyval, it->second))
        return call.raise(callback_class(rc), "the attribute's delete callback failed");
    c.attrs.erase(it);
    keyval_release(keyval);
    return MPI_SUCCESS;
}

}  // namespace

namespace body {

int Keyval_create(const Call&, MPI_Copy_function* copy_fn, MPI_Delete_function* delete_fn, int& keyval,
                  void* extra_state) {
    return keyval_create(copy_fn, delete_fn, keyval, extra_state);
}

int Comm_create_keyval(const Call&, MPI_Comm_copy_attr_function* comm_copy_attr_fn,
                       MPI_Comm_delete_attr_function* comm_delete_attr_fn, int& comm_keyval, void* extra_state) {
    return keyval_create(comm_copy_attr_fn, comm_delete_attr_fn, comm_keyval, extra_state);
}

int Keyval_free(const Call& call, int& keyval) { return keyval_free(call, keyval); }

int Comm_free_keyval(const Call& call, int& comm_keyval) { return keyval_free(call, comm_keyval); }

int Attr_put(const Call& call, Comm& comm, int keyval, void* attribute_val) {
    return attr_put(call, comm, keyval, attribute_val);
}

int Comm_set_attr(const Call& call, Comm& comm, int comm_keyval, void* attribute_val) {
    return attr_put(call, comm, comm_keyval, attribute_val);
}

int Attr_get(const Call&, Comm& comm, int keyval, void* attribute_val, int& flag) {
    return attr_get(comm, keyval, attribute_val, flag);
}

int Comm_get_attr(const Call&, Comm& comm, int comm_keyval, void* attribute_val, int& flag) {
    return attr_get(comm, comm_keyval, attribute_val, flag);
}

int Attr_delete(const Call& call, Comm& comm, int keyval) { return attr_delete(call, comm, keyval); }

int Comm_delete_attr(const Call& call, Comm& comm, int comm_keyval) { return attr_delete(call, comm, comm_keyval); }

int MPIX_Topology_get(const Call& call, Comm& comm, int depths[], int colors[], int maxlevels) {
    const GridAttributes& g = grid_attributes(comm);
    const int deepest = g.depths.empty() ? 0 : *std::max_element(g.depths.begin(), g.depths.end());
    if (maxlevels < deepest) {
        return call.raise(MPI_ERR_ARG, "maxlevels " + std::to_string(maxlevels) +
                                           " is less than the deepest process's " + std::to_string(deepest) +
                                           " levels");
    }
    for (std::size_t r = 0; r < g.depths.size(); ++r) {
        depths[r] = g.depths[r];
        for (int l = 0; l < maxlevels; ++l) {
            colors[r * static_cast<std::size_t>(maxlevels) + static_cast<std::size_t>(l)] =
                l < g.depths[r] ? g.rows[r][static_cast<std::size_t>(l)] : -1;
        }
    }
    return MPI_SUCCESS;
}

}  // namespace body
}  // namespace strata::mpi

#include "attr.inc"
