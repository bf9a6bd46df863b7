// Process topologies (MPI-1.3 chapter 6). Ranks are never reordered: the
// standard allows keeping the old ranks, and on a grid the placement that
// matters (which site, which host) is handled by the topology-aware layer.
#include <algorithm>
#include <climits>
#include <span>
#include <string>

#include "mpi/comms/agreement.hpp"
#include "mpi/comms/comm.hpp"
#include "mpi/comms/dims.hpp"
#include "mpi/errors.hpp"
#include "mpi/pmpi_alias.hpp"

namespace strata::mpi {

namespace {

int cart_check(const char* fn, MPI_Comm comm, Comm*& c, CartTopology*& t) {
    if (int e = comm_check(fn, comm, c)) return e;
    t = std::get_if<CartTopology>(&c->topology);
    if (t != nullptr) return MPI_SUCCESS;
    return error_raise(comm, MPI_ERR_TOPOLOGY, fn, "the communicator has no Cartesian topology");
}

int graph_check(const char* fn, MPI_Comm comm, Comm*& c, GraphTopology*& t) {
    if (int e = comm_check(fn, comm, c)) return e;
    t = std::get_if<GraphTopology>(&c->topology);
    if (t != nullptr) return MPI_SUCCESS;
    return error_raise(comm, MPI_ERR_TOPOLOGY, fn, "the communicator has no graph topology");
}

// Checks ndims and dims and returns the number of grid points in `points`.
int dims_check(const char* fn, MPI_Comm comm, int ndims, const int dims[], long long& points) {
    if (ndims < 0) return error_raise(comm, MPI_ERR_DIMS, fn, "ndims " + std::to_string(ndims) + " is negative");
    if (ndims > 0 && dims == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "dims is NULL");
    points = 1;
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] <= 0)
            return error_raise(comm, MPI_ERR_DIMS, fn,
                               "dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]) + " is not positive");
        points *= dims[i];
        if (points > INT_MAX) return error_raise(comm, MPI_ERR_DIMS, fn, "the grid has more than INT_MAX points");
    }
    return MPI_SUCCESS;
}

int graph_args_check(const char* fn, MPI_Comm comm, int nnodes, const int index[], const int edges[]) {
    if (nnodes < 0) return error_raise(comm, MPI_ERR_ARG, fn, "nnodes " + std::to_string(nnodes) + " is negative");
    if (nnodes > 0 && index == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "index is NULL");
    int prev = 0;
    for (int i = 0; i < nnodes; ++i) {
        if (index[i] < prev)
            return error_raise(comm, MPI_ERR_ARG, fn,
                               "index[" + std::to_string(i) + "] = " + std::to_string(index[i]) +
                                   " is smaller than the entry before it");
        prev = index[i];
    }
    if (prev > 0 && edges == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "edges is NULL");
    for (int j = 0; j < prev; ++j) {
        if (edges[j] < 0 || edges[j] >= nnodes)
            return error_raise(comm, MPI_ERR_ARG, fn,
                               "edges[" + std::to_string(j) + "] = " + std::to_string(edges[j]) +
                                   " is not a node of a graph of " + std::to_string(nnodes));
    }
    return MPI_SUCCESS;
}

// Row-major rank of `coords` in `t` (coordinates already in range).
int cart_rank_of(const CartTopology& t, const std::vector<int>& coords) {
    int rank = 0;
    for (std::size_t i = 0; i < t.dims.size(); ++i) rank = rank * t.dims[i] + coords[i];
    return rank;
}

std::vector<int> cart_coords_of(const CartTopology& t, int rank) {
    std::vector<int> coords(t.dims.size());
    for (std::size_t i = t.dims.size(); i-- > 0;) {
        coords[i] = rank % t.dims[i];
        rank /= t.dims[i];
    }
    return coords;
}

// The new communicator over the first `points` ranks of `c`, or MPI_COMM_NULL.
int topology_comm_create(const char* fn, MPI_Comm comm, const Comm& c, int points,
                         std::variant<std::monostate, CartTopology, GraphTopology> topo, MPI_Comm* out) {
    Agreement a;
    if (adi::Error e = agree_intra(c, {}, a); e != adi::Error::none) return error_raise(comm, agreement_failed(e), fn);
    if (a.pair < 0) return error_raise(comm, no_context(), fn);
    if (c.rank >= points) {
        *out = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    std::vector<int> world(c.world.begin(), c.world.begin() + points);
    auto made = comm_make(c, a.pair, std::move(world), c.rank);
    made->topology = std::move(topo);
    *out = comm_register(std::move(made));
    return MPI_SUCCESS;
}

}  // namespace

}  // namespace strata::mpi

using namespace strata::mpi;

extern "C" {

STRATA_PMPI_ALIAS(MPI_Cart_create);
int PMPI_Cart_create(MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                     MPI_Comm* comm_cart) {
    static const char* fn = "MPI_Cart_create";
    (void)reorder;
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check_intra(fn, comm_old, c)) return e;
        long long points = 0;
        if (int e = dims_check(fn, comm_old, ndims, dims, points)) return e;
        if (ndims > 0 && periods == nullptr) return error_raise(comm_old, MPI_ERR_ARG, fn, "periods is NULL");
        if (comm_cart == nullptr) return error_raise(comm_old, MPI_ERR_ARG, fn, "comm_cart is NULL");
        if (points > c->size())
            return error_raise(comm_old, MPI_ERR_ARG, fn,
                               "the grid has " + std::to_string(points) + " points but the communicator only " +
                                   std::to_string(c->size()) + " processes");
        CartTopology t;
        t.dims.assign(dims, dims + ndims);
        for (int i = 0; i < ndims; ++i) t.periods.push_back(periods[i] ? 1 : 0);
        return topology_comm_create(fn, comm_old, *c, static_cast<int>(points), std::move(t), comm_cart);
    });
}

STRATA_PMPI_ALIAS(MPI_Graph_create);
int PMPI_Graph_create(MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                      MPI_Comm* comm_graph) {
    static const char* fn = "MPI_Graph_create";
    (void)reorder;
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check_intra(fn, comm_old, c)) return e;
        if (int e = graph_args_check(fn, comm_old, nnodes, index, edges)) return e;
        if (comm_graph == nullptr) return error_raise(comm_old, MPI_ERR_ARG, fn, "comm_graph is NULL");
        if (nnodes > c->size())
            return error_raise(comm_old, MPI_ERR_ARG, fn,
                               "the graph has " + std::to_string(nnodes) + " nodes but the communicator only " +
                                   std::to_string(c->size()) + " processes");
        GraphTopology t;
        t.index.assign(index, index + nnodes);
        if (nnodes > 0) t.edges.assign(edges, edges + index[nnodes - 1]);
        return topology_comm_create(fn, comm_old, *c, nnodes, std::move(t), comm_graph);
    });
}

STRATA_PMPI_ALIAS(MPI_Dims_create);
int PMPI_Dims_create(int nnodes, int ndims, int dims[]) {
    static const char* fn = "MPI_Dims_create";
    return api(fn, [&] {
        if (nnodes <= 0)
            return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn,
                               "nnodes " + std::to_string(nnodes) + " is not positive");
        if (ndims < 0)
            return error_raise(MPI_COMM_WORLD, MPI_ERR_DIMS, fn, "ndims " + std::to_string(ndims) + " is negative");
        if (ndims > 0 && dims == nullptr) return error_raise(MPI_COMM_WORLD, MPI_ERR_ARG, fn, "dims is NULL");
        switch (dims_fill(nnodes, std::span<int>(dims, static_cast<std::size_t>(ndims)))) {
            case DimsError::none:
                return MPI_SUCCESS;
            case DimsError::negative_entry: {
                const int i = static_cast<int>(std::find_if(dims, dims + ndims, [](int d) { return d < 0; }) - dims);
                return error_raise(MPI_COMM_WORLD, MPI_ERR_DIMS, fn,
                                   "dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]) + " is negative");
            }
            case DimsError::indivisible:
                break;
        }
        const std::string n = std::to_string(nnodes);
        return error_raise(MPI_COMM_WORLD, MPI_ERR_DIMS, fn,
                           "the non-zero entries of dims must multiply to a divisor of nnodes " + n + " (to " + n +
                               " itself when no entry is 0)");
    });
}

STRATA_PMPI_ALIAS(MPI_Topo_test);
int PMPI_Topo_test(MPI_Comm comm, int* status) {
    static const char* fn = "MPI_Topo_test";
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check(fn, comm, c)) return e;
        if (status == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "status is NULL");
        if (std::holds_alternative<CartTopology>(c->topology)) {
            *status = MPI_CART;
        } else if (std::holds_alternative<GraphTopology>(c->topology)) {
            *status = MPI_GRAPH;
        } else {
            *status = MPI_UNDEFINED;
        }
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Graphdims_get);
int PMPI_Graphdims_get(MPI_Comm comm, int* nnodes, int* nedges) {
    static const char* fn = "MPI_Graphdims_get";
    return api(fn, [&] {
        Comm* c = nullptr;
        GraphTopology* t = nullptr;
        if (int e = graph_check(fn, comm, c, t)) return e;
        if (nnodes == nullptr || nedges == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "NULL output");
        *nnodes = static_cast<int>(t->index.size());
        *nedges = static_cast<int>(t->edges.size());
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Graph_get);
int PMPI_Graph_get(MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]) {
    static const char* fn = "MPI_Graph_get";
    return api(fn, [&] {
        Comm* c = nullptr;
        GraphTopology* t = nullptr;
        if (int e = graph_check(fn, comm, c, t)) return e;
        if (maxindex < 0 || maxedges < 0) return error_raise(comm, MPI_ERR_ARG, fn, "negative maxindex or maxedges");
        if ((maxindex > 0 && index == nullptr) || (maxedges > 0 && edges == nullptr))
            return error_raise(comm, MPI_ERR_ARG, fn, "NULL output array");
        for (int i = 0; i < maxindex && i < static_cast<int>(t->index.size()); ++i) index[i] = t->index[static_cast<std::size_t>(i)];
        for (int i = 0; i < maxedges && i < static_cast<int>(t->edges.size()); ++i) edges[i] = t->edges[static_cast<std::size_t>(i)];
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Cartdim_get);
int PMPI_Cartdim_get(MPI_Comm comm, int* ndims) {
    static const char* fn = "MPI_Cartdim_get";
    return api(fn, [&] {
        Comm* c = nullptr;
        CartTopology* t = nullptr;
        if (int e = cart_check(fn, comm, c, t)) return e;
        if (ndims == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "ndims is NULL");
        *ndims = static_cast<int>(t->dims.size());
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Cart_get);
int PMPI_Cart_get(MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]) {
    static const char* fn = "MPI_Cart_get";
    return api(fn, [&] {
        Comm* c = nullptr;
        CartTopology* t = nullptr;
        if (int e = cart_check(fn, comm, c, t)) return e;
        const int n = static_cast<int>(t->dims.size());
        if (maxdims < n)
            return error_raise(comm, MPI_ERR_ARG, fn,
                               "maxdims " + std::to_string(maxdims) + " is smaller than the " + std::to_string(n) +
                                   " dimensions");
        if (n > 0 && (dims == nullptr || periods == nullptr || coords == nullptr))
            return error_raise(comm, MPI_ERR_ARG, fn, "NULL output array");
        const std::vector<int> mine = cart_coords_of(*t, c->rank);
        for (int i = 0; i < n; ++i) {
            dims[i] = t->dims[static_cast<std::size_t>(i)];
            periods[i] = t->periods[static_cast<std::size_t>(i)];
            coords[i] = mine[static_cast<std::size_t>(i)];
        }
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Cart_rank);
int PMPI_Cart_rank(MPI_Comm comm, const int coords[], int* rank) {
    static const char* fn = "MPI_Cart_rank";
    return api(fn, [&] {
        Comm* c = nullptr;
        CartTopology* t = nullptr;
        if (int e = cart_check(fn, comm, c, t)) return e;
        if (rank == nullptr || (!t->dims.empty() && coords == nullptr))
            return error_raise(comm, MPI_ERR_ARG, fn, "NULL argument");
        std::vector<int> in(t->dims.size());
        for (std::size_t i = 0; i < t->dims.size(); ++i) {
            int x = coords[i];
            const int d = t->dims[i];
            if (t->periods[i]) {
                x = ((x % d) + d) % d;
            } else if (x < 0 || x >= d) {
                return error_raise(comm, MPI_ERR_ARG, fn,
                                   "coordinate " + std::to_string(x) + " of non-periodic dimension " +
                                       std::to_string(i) + " is outside 0.." + std::to_string(d - 1));
            }
            in[i] = x;
        }
        *rank = cart_rank_of(*t, in);
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Cart_coords);
int PMPI_Cart_coords(MPI_Comm comm, int rank, int maxdims, int coords[]) {
    static const char* fn = "MPI_Cart_coords";
    return api(fn, [&] {
        Comm* c = nullptr;
        CartTopology* t = nullptr;
        if (int e = cart_check(fn, comm, c, t)) return e;
        if (rank < 0 || rank >= c->size())
            return error_raise(comm, MPI_ERR_RANK, fn,
                               "rank " + std::to_string(rank) + " is not in a communicator of size " +
                                   std::to_string(c->size()));
        const int n = static_cast<int>(t->dims.size());
        if (maxdims < n) return error_raise(comm, MPI_ERR_ARG, fn, "maxdims is smaller than the number of dimensions");
        if (n > 0 && coords == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "coords is NULL");
        const std::vector<int> out = cart_coords_of(*t, rank);
        for (int i = 0; i < n; ++i) coords[i] = out[static_cast<std::size_t>(i)];
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Cart_shift);
int PMPI_Cart_shift(MPI_Comm comm, int direction, int disp, int* rank_source, int* rank_dest) {
    static const char* fn = "MPI_Cart_shift";
    return api(fn, [&] {
        Comm* c = nullptr;
        CartTopology* t = nullptr;
        if (int e = cart_check(fn, comm, c, t)) return e;
        if (rank_source == nullptr || rank_dest == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "NULL output");
        if (direction < 0 || direction >= static_cast<int>(t->dims.size()))
            return error_raise(comm, MPI_ERR_ARG, fn,
                               "direction " + std::to_string(direction) + " is not one of the " +
                                   std::to_string(t->dims.size()) + " dimensions");
        const auto dir = static_cast<std::size_t>(direction);
        const std::vector<int> mine = cart_coords_of(*t, c->rank);
        auto neighbour = [&](long long offset) {
            std::vector<int> at = mine;
            long long x = at[dir] + offset;
            const int d = t->dims[dir];
            if (t->periods[dir]) {
                x = ((x % d) + d) % d;
            } else if (x < 0 || x >= d) {
                return MPI_PROC_NULL;
            }
            at[dir] = static_cast<int>(x);
            return cart_rank_of(*t, at);
        };
        *rank_dest = neighbour(disp);
        *rank_source = neighbour(-static_cast<long long>(disp));
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Cart_sub);
int PMPI_Cart_sub(MPI_Comm comm, const int remain_dims[], MPI_Comm* newcomm) {
    static const char* fn = "MPI_Cart_sub";
    return api(fn, [&] {
        Comm* c = nullptr;
        CartTopology* t = nullptr;
        if (int e = cart_check(fn, comm, c, t)) return e;
        if (newcomm == nullptr || (!t->dims.empty() && remain_dims == nullptr))
            return error_raise(comm, MPI_ERR_ARG, fn, "NULL argument");
        const std::vector<int> mine = cart_coords_of(*t, c->rank);
        // Processes that agree on every dropped coordinate form one sub-grid;
        // inside it they keep their row-major order.
        int color = 0;
        int key = 0;
        CartTopology sub;
        for (std::size_t i = 0; i < t->dims.size(); ++i) {
            if (remain_dims[i]) {
                key = key * t->dims[i] + mine[i];
                sub.dims.push_back(t->dims[i]);
                sub.periods.push_back(t->periods[i]);
            } else {
                color = color * t->dims[i] + mine[i];
            }
        }
        std::unique_ptr<Comm> made;
        if (const MpiError e = comm_split_into(*c, color, key, made); !e.ok()) return error_raise(comm, e, fn);
        made->topology = std::move(sub);
        *newcomm = comm_register(std::move(made));
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Cart_map);
int PMPI_Cart_map(MPI_Comm comm, int ndims, const int dims[], const int periods[], int* newrank) {
    static const char* fn = "MPI_Cart_map";
    (void)periods;
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check_intra(fn, comm, c)) return e;
        long long points = 0;
        if (int e = dims_check(fn, comm, ndims, dims, points)) return e;
        if (newrank == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "newrank is NULL");
        if (points > c->size())
            return error_raise(comm, MPI_ERR_ARG, fn, "the grid has more points than the communicator has processes");
        *newrank = c->rank < points ? c->rank : MPI_UNDEFINED;
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Graph_map);
int PMPI_Graph_map(MPI_Comm comm, int nnodes, const int index[], const int edges[], int* newrank) {
    static const char* fn = "MPI_Graph_map";
    return api(fn, [&] {
        Comm* c = nullptr;
        if (int e = comm_check_intra(fn, comm, c)) return e;
        if (int e = graph_args_check(fn, comm, nnodes, index, edges)) return e;
        if (newrank == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "newrank is NULL");
        if (nnodes > c->size())
            return error_raise(comm, MPI_ERR_ARG, fn, "the graph has more nodes than the communicator has processes");
        *newrank = c->rank < nnodes ? c->rank : MPI_UNDEFINED;
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Graph_neighbors_count);
int PMPI_Graph_neighbors_count(MPI_Comm comm, int rank, int* nneighbors) {
    static const char* fn = "MPI_Graph_neighbors_count";
    return api(fn, [&] {
        Comm* c = nullptr;
        GraphTopology* t = nullptr;
        if (int e = graph_check(fn, comm, c, t)) return e;
        if (rank < 0 || rank >= static_cast<int>(t->index.size()))
            return error_raise(comm, MPI_ERR_RANK, fn, "rank " + std::to_string(rank) + " is not a node of the graph");
        if (nneighbors == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "nneighbors is NULL");
        const auto r = static_cast<std::size_t>(rank);
        *nneighbors = t->index[r] - (r == 0 ? 0 : t->index[r - 1]);
        return MPI_SUCCESS;
    });
}

STRATA_PMPI_ALIAS(MPI_Graph_neighbors);
int PMPI_Graph_neighbors(MPI_Comm comm, int rank, int maxneighbors, int neighbors[]) {
    static const char* fn = "MPI_Graph_neighbors";
    return api(fn, [&] {
        Comm* c = nullptr;
        GraphTopology* t = nullptr;
        if (int e = graph_check(fn, comm, c, t)) return e;
        if (rank < 0 || rank >= static_cast<int>(t->index.size()))
            return error_raise(comm, MPI_ERR_RANK, fn, "rank " + std::to_string(rank) + " is not a node of the graph");
        if (maxneighbors < 0) return error_raise(comm, MPI_ERR_ARG, fn, "maxneighbors is negative");
        if (maxneighbors > 0 && neighbors == nullptr) return error_raise(comm, MPI_ERR_ARG, fn, "neighbors is NULL");
        const auto r = static_cast<std::size_t>(rank);
        const int first = r == 0 ? 0 : t->index[r - 1];
        for (int j = first, k = 0; j < t->index[r] && k < maxneighbors; ++j, ++k)
            neighbors[k] = t->edges[static_cast<std::size_t>(j)];
        return MPI_SUCCESS;
    });
}

}  // extern "C"
