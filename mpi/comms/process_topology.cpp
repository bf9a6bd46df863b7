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
#include "mpi/entry.hpp"

namespace strata::mpi {

namespace {

// Checks ndims and dims and returns the number of grid points in `points`.
int dims_check(const Call& call, int ndims, const int dims[], long long& points) {
    if (ndims < 0) return call.raise(MPI_ERR_DIMS, "ndims " + std::to_string(ndims) + " is negative");
    if (ndims > 0 && dims == nullptr) return call.raise(MPI_ERR_ARG, "dims is NULL");
    points = 1;
    for (int i = 0; i < ndims; ++i) {
        if (dims[i] <= 0)
            return call.raise(MPI_ERR_DIMS,
                              "dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]) + " is not positive");
        points *= dims[i];
        if (points > INT_MAX) return call.raise(MPI_ERR_DIMS, "the grid has more than INT_MAX points");
    }
    return MPI_SUCCESS;
}

int graph_args_check(const Call& call, int nnodes, const int index[], const int edges[]) {
    if (nnodes < 0) return call.raise(MPI_ERR_ARG, "nnodes " + std::to_string(nnodes) + " is negative");
    if (nnodes > 0 && index == nullptr) return call.raise(MPI_ERR_ARG, "index is NULL");
    int prev = 0;
    for (int i = 0; i < nnodes; ++i) {
        if (index[i] < prev)
            return call.raise(MPI_ERR_ARG, "index[" + std::to_string(i) + "] = " + std::to_string(index[i]) +
                                               " is smaller than the entry before it");
        prev = index[i];
    }
    if (prev > 0 && edges == nullptr) return call.raise(MPI_ERR_ARG, "edges is NULL");
    for (int j = 0; j < prev; ++j) {
        if (edges[j] < 0 || edges[j] >= nnodes)
            return call.raise(MPI_ERR_ARG, "edges[" + std::to_string(j) + "] = " + std::to_string(edges[j]) +
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
int topology_comm_create(const Call& call, const Comm& c, int points,
                         std::variant<std::monostate, CartTopology, GraphTopology> topo, MPI_Comm& out) {
    Agreement a;
    if (adi::Error e = agree_intra(c, {}, a); e != adi::Error::none) return call.raise(agreement_failed(e));
    if (a.pair < 0) return call.raise(no_context());
    if (c.rank >= points) {
        out = MPI_COMM_NULL;
        return MPI_SUCCESS;
    }
    std::vector<int> world(c.world.begin(), c.world.begin() + points);
    auto made = comm_make(c, a.pair, std::move(world), c.rank);
    made->topology = std::move(topo);
    out = comm_register(std::move(made));
    return MPI_SUCCESS;
}

// The topology of a communicator the entry point checked has one (kinds cart, graph).
const CartTopology& cart_of(const Comm& c) { return std::get<CartTopology>(c.topology); }
const GraphTopology& graph_of(const Comm& c) { return std::get<GraphTopology>(c.topology); }

int graph_node_check(const Call& call, const GraphTopology& t, int rank) {
    if (rank >= 0 && rank < static_cast<int>(t.index.size())) return MPI_SUCCESS;
    return call.raise(MPI_ERR_RANK, "rank " + std::to_string(rank) + " is not a node of the graph");
}

}  // namespace

namespace body {

int Cart_create(const Call& call, Comm& comm_old, int ndims, const int dims[], const int periods[], int,
                MPI_Comm& comm_cart) {
    long long points = 0;
    if (int e = dims_check(call, ndims, dims, points)) return e;
    if (ndims > 0 && periods == nullptr) return call.raise(MPI_ERR_ARG, "periods is NULL");
    if (points > comm_old.size())
        return call.raise(MPI_ERR_ARG, "the grid has " + std::to_string(points) + " points but the communicator only " +
                                           std::to_string(comm_old.size()) + " processes");
    CartTopology t;
    t.dims.assign(dims, dims + ndims);
    for (int i = 0; i < ndims; ++i) t.periods.push_back(periods[i] ? 1 : 0);
    return topology_comm_create(call, comm_old, static_cast<int>(points), std::move(t), comm_cart);
}

int Graph_create(const Call& call, Comm& comm_old, int nnodes, const int index[], const int edges[], int,
                 MPI_Comm& comm_graph) {
    if (int e = graph_args_check(call, nnodes, index, edges)) return e;
    if (nnodes > comm_old.size())
        return call.raise(MPI_ERR_ARG, "the graph has " + std::to_string(nnodes) + " nodes but the communicator only " +
                                           std::to_string(comm_old.size()) + " processes");
    GraphTopology t;
    t.index.assign(index, index + nnodes);
    if (nnodes > 0) t.edges.assign(edges, edges + index[nnodes - 1]);
    return topology_comm_create(call, comm_old, nnodes, std::move(t), comm_graph);
}

int Dims_create(const Call& call, int nnodes, int ndims, int dims[]) {
    if (nnodes <= 0) return call.raise(MPI_ERR_ARG, "nnodes " + std::to_string(nnodes) + " is not positive");
    if (ndims < 0) return call.raise(MPI_ERR_DIMS, "ndims " + std::to_string(ndims) + " is negative");
    if (ndims > 0 && dims == nullptr) return call.raise(MPI_ERR_ARG, "dims is NULL");
    switch (dims_fill(nnodes, std::span<int>(dims, static_cast<std::size_t>(ndims)))) {
        case DimsError::none:
            return MPI_SUCCESS;
        case DimsError::negative_entry: {
            const int i = static_cast<int>(std::find_if(dims, dims + ndims, [](int d) { return d < 0; }) - dims);
            return call.raise(MPI_ERR_DIMS,
                              "dims[" + std::to_string(i) + "] = " + std::to_string(dims[i]) + " is negative");
        }
        case DimsError::indivisible:
            break;
    }
    const std::string n = std::to_string(nnodes);
    return call.raise(MPI_ERR_DIMS, "the non-zero entries of dims must multiply to a divisor of nnodes " + n + " (to " +
                                        n + " itself when no entry is 0)");
}

int Topo_test(const Call&, Comm& comm, int& status) {
    if (std::holds_alternative<CartTopology>(comm.topology)) {
        status = MPI_CART;
    } else if (std::holds_alternative<GraphTopology>(comm.topology)) {
        status = MPI_GRAPH;
    } else {
        status = MPI_UNDEFINED;
    }
    return MPI_SUCCESS;
}

int Graphdims_get(const Call&, Comm& comm, int& nnodes, int& nedges) {
    const GraphTopology& t = graph_of(comm);
    nnodes = static_cast<int>(t.index.size());
    nedges = static_cast<int>(t.edges.size());
    return MPI_SUCCESS;
}

int Graph_get(const Call&, Comm& comm, int maxindex, int maxedges, int index[], int edges[]) {
    const GraphTopology& t = graph_of(comm);
    for (int i = 0; i < maxindex && i < static_cast<int>(t.index.size()); ++i)
        index[i] = t.index[static_cast<std::size_t>(i)];
    for (int i = 0; i < maxedges && i < static_cast<int>(t.edges.size()); ++i)
        edges[i] = t.edges[static_cast<std::size_t>(i)];
    return MPI_SUCCESS;
}

int Cartdim_get(const Call&, Comm& comm, int& ndims) {
    ndims = static_cast<int>(cart_of(comm).dims.size());
    return MPI_SUCCESS;
}

int Cart_get(const Call& call, Comm& comm, int maxdims, int dims[], int periods[], int coords[]) {
    const CartTopology& t = cart_of(comm);
    const int n = static_cast<int>(t.dims.size());
    if (maxdims < n)
        return call.raise(MPI_ERR_ARG, "maxdims " + std::to_string(maxdims) + " is smaller than the " +
                                           std::to_string(n) + " dimensions");
    if (n > 0 && (dims == nullptr || periods == nullptr || coords == nullptr))
        return call.raise(MPI_ERR_ARG, "NULL output array");
    const std::vector<int> mine = cart_coords_of(t, comm.rank);
    for (int i = 0; i < n; ++i) {
        dims[i] = t.dims[static_cast<std::size_t>(i)];
        periods[i] = t.periods[static_cast<std::size_t>(i)];
        coords[i] = mine[static_cast<std::size_t>(i)];
    }
    return MPI_SUCCESS;
}

int Cart_rank(const Call& call, Comm& comm, const int coords[], int& rank) {
    const CartTopology& t = cart_of(comm);
    if (!t.dims.empty() && coords == nullptr) return call.raise(MPI_ERR_ARG, "coords is NULL");
    std::vector<int> in(t.dims.size());
    for (std::size_t i = 0; i < t.dims.size(); ++i) {
        int x = coords[i];
        const int d = t.dims[i];
        if (t.periods[i]) {
            x = ((x % d) + d) % d;
        } else if (x < 0 || x >= d) {
            return call.raise(MPI_ERR_ARG, "coordinate " + std::to_string(x) + " of non-periodic dimension " +
                                               std::to_string(i) + " is outside 0.." + std::to_string(d - 1));
        }
        in[i] = x;
    }
    rank = cart_rank_of(t, in);
    return MPI_SUCCESS;
}

int Cart_coords(const Call& call, Comm& comm, int rank, int maxdims, int coords[]) {
    const CartTopology& t = cart_of(comm);
    if (rank < 0 || rank >= comm.size())
        return call.raise(MPI_ERR_RANK, "rank " + std::to_string(rank) + " is not in a communicator of size " +
                                            std::to_string(comm.size()));
    const int n = static_cast<int>(t.dims.size());
    if (maxdims < n) return call.raise(MPI_ERR_ARG, "maxdims is smaller than the number of dimensions");
    if (n > 0 && coords == nullptr) return call.raise(MPI_ERR_ARG, "coords is NULL");
    const std::vector<int> out = cart_coords_of(t, rank);
    for (int i = 0; i < n; ++i) coords[i] = out[static_cast<std::size_t>(i)];
    return MPI_SUCCESS;
}

int Cart_shift(const Call& call, Comm& comm, int direction, int disp, int& rank_source, int& rank_dest) {
    const CartTopology& t = cart_of(comm);
    if (direction < 0 || direction >= static_cast<int>(t.dims.size()))
        return call.raise(MPI_ERR_ARG, "direction " + std::to_string(direction) + " is not one of the " +
                                           std::to_string(t.dims.size()) + " dimensions");
    const auto dir = static_cast<std::size_t>(direction);
    const std::vector<int> mine = cart_coords_of(t, comm.rank);
    auto neighbour = [&](long long offset) {
        std::vector<int> at = mine;
        long long x = at[dir] + offset;
        const int d = t.dims[dir];
        if (t.periods[dir]) {
            x = ((x % d) + d) % d;
        } else if (x < 0 || x >= d) {
            return MPI_PROC_NULL;
        }
        at[dir] = static_cast<int>(x);
        return cart_rank_of(t, at);
    };
    rank_dest = neighbour(disp);
    rank_source = neighbour(-static_cast<long long>(disp));
    return MPI_SUCCESS;
}

int Cart_sub(const Call& call, Comm& comm, const int remain_dims[], MPI_Comm& newcomm) {
    const CartTopology& t = cart_of(comm);
    if (!t.dims.empty() && remain_dims == nullptr) return call.raise(MPI_ERR_ARG, "remain_dims is NULL");
    const std::vector<int> mine = cart_coords_of(t, comm.rank);
    // Processes that agree on every dropped coordinate form one sub-grid;
    // inside it they keep their row-major order.
    int color = 0;
    int key = 0;
    CartTopology sub;
    for (std::size_t i = 0; i < t.dims.size(); ++i) {
        if (remain_dims[i]) {
            key = key * t.dims[i] + mine[i];
            sub.dims.push_back(t.dims[i]);
            sub.periods.push_back(t.periods[i]);
        } else {
            color = color * t.dims[i] + mine[i];
        }
    }
    std::unique_ptr<Comm> made;
    if (const MpiError e = comm_split_into(comm, color, key, made); !e.ok()) return call.raise(e);
    made->topology = std::move(sub);
    newcomm = comm_register(std::move(made));
    return MPI_SUCCESS;
}

int Cart_map(const Call& call, Comm& comm, int ndims, const int dims[], const int[], int& newrank) {
    long long points = 0;
    if (int e = dims_check(call, ndims, dims, points)) return e;
    if (points > comm.size())
        return call.raise(MPI_ERR_ARG, "the grid has more points than the communicator has processes");
    newrank = comm.rank < points ? comm.rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int Graph_map(const Call& call, Comm& comm, int nnodes, const int index[], const int edges[], int& newrank) {
    if (int e = graph_args_check(call, nnodes, index, edges)) return e;
    if (nnodes > comm.size())
        return call.raise(MPI_ERR_ARG, "the graph has more nodes than the communicator has processes");
    newrank = comm.rank < nnodes ? comm.rank : MPI_UNDEFINED;
    return MPI_SUCCESS;
}

int Graph_neighbors_count(const Call& call, Comm& comm, int rank, int& nneighbors) {
    const GraphTopology& t = graph_of(comm);
    if (int e = graph_node_check(call, t, rank)) return e;
    const auto r = static_cast<std::size_t>(rank);
    nneighbors = t.index[r] - (r == 0 ? 0 : t.index[r - 1]);
    return MPI_SUCCESS;
}

int Graph_neighbors(const Call& call, Comm& comm, int rank, int maxneighbors, int neighbors[]) {
    const GraphTopology& t = graph_of(comm);
    if (int e = graph_node_check(call, t, rank)) return e;
    const auto r = static_cast<std::size_t>(rank);
    const int first = r == 0 ? 0 : t.index[r - 1];
    for (int j = first, k = 0; j < t.index[r] && k < maxneighbors; ++j, ++k)
        neighbors[k] = t.edges[static_cast<std::size_t>(j)];
    return MPI_SUCCESS;
}

}  // namespace body
}  // namespace strata::mpi

#include "process_topology.inc"
