/* Process topologies: Dims_create, Cartesian grids (periodic and not),
 * shifts, ranks and coordinates, sub-grids, maps; graphs; Topo_test; and
 * the error classes of bad arguments. */
#include "comm_common.h"

static void expect_dims(int nnodes, int ndims, const int *in, const int *want)
{
    int d[8], i;
    for (i = 0; i < ndims; ++i) d[i] = in[i];
    CK(MPI_Dims_create(nnodes, ndims, d));
    for (i = 0; i < ndims; ++i)
        EXPECT(d[i] == want[i], "Dims_create(%d, %d): dims[%d] = %d, want %d", nnodes, ndims, i, d[i], want[i]);
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "comm_topology");
    int size = pt_size, i, st, src, dst;
    MPI_Comm cart, line, sub, graph;

    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    pt_set_phase("dims_create");
    { int in[2] = {0, 0}, want[2] = {3, 2}; expect_dims(6, 2, in, want); }
    { int in[3] = {0, 0, 0}, want[3] = {2, 2, 2}; expect_dims(8, 3, in, want); }
    { int in[2] = {0, 3}, want[2] = {2, 3}; expect_dims(6, 2, in, want); }
    { int in[3] = {0, 0, 0}, want[3] = {7, 1, 1}; expect_dims(7, 3, in, want); }
    { int in[2] = {0, 0}, want[2] = {4, 4}; expect_dims(16, 2, in, want); }
    { int in[3] = {0, 0, 0}, want[3] = {5, 4, 3}; expect_dims(60, 3, in, want); }
    { int in[2] = {0, 0}, want[2] = {1, 1}; expect_dims(1, 2, in, want); }
    { int in[2] = {4, 0}; EXPECT_CLASS(MPI_Dims_create(6, 2, in), MPI_ERR_DIMS, "fixed dims do not divide"); }
    { int in[1] = {-1}; EXPECT_CLASS(MPI_Dims_create(6, 1, in), MPI_ERR_DIMS, "negative dims entry"); }

    pt_set_phase("cart 2d");
    {
        int dims[2] = {0, 0}, periods[2] = {1, 0}, coords[2], d2[2], p2[2], c2[2], r;
        CK(MPI_Dims_create(size, 2, dims));
        CK(MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart));
        CK(MPI_Topo_test(cart, &st));
        EXPECT(st == MPI_CART, "topo_test: %d", st);
        CK(MPI_Cartdim_get(cart, &i));
        EXPECT(i == 2, "cartdim %d", i);
        CK(MPI_Cart_get(cart, 2, d2, p2, c2));
        EXPECT(d2[0] == dims[0] && d2[1] == dims[1] && p2[0] == 1 && p2[1] == 0, "cart_get dims/periods");
        EXPECT(c2[0] == rank / dims[1] && c2[1] == rank % dims[1], "cart_get coords (%d,%d)", c2[0], c2[1]);
        for (r = 0; r < size; ++r) {
            int back;
            CK(MPI_Cart_coords(cart, r, 2, coords));
            EXPECT(coords[0] == r / dims[1] && coords[1] == r % dims[1], "coords of %d", r);
            CK(MPI_Cart_rank(cart, coords, &back));
            EXPECT(back == r, "rank of coords of %d is %d", r, back);
        }
        /* periodic dimension 0 wraps */
        coords[0] = -1; coords[1] = 0;
        CK(MPI_Cart_rank(cart, coords, &r));
        EXPECT(r == (dims[0] - 1) * dims[1], "wrapped rank %d", r);
        /* non-periodic dimension 1 does not */
        coords[0] = 0; coords[1] = dims[1];
        EXPECT_CLASS(MPI_Cart_rank(cart, coords, &r), MPI_ERR_ARG, "coordinate outside a non-periodic dimension");
        CK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
        EXPECT(dst == ((c2[0] + 1) % dims[0]) * dims[1] + c2[1], "shift dim 0 dest %d", dst);
        EXPECT(src == ((c2[0] - 1 + dims[0]) % dims[0]) * dims[1] + c2[1], "shift dim 0 source %d", src);
        CK(MPI_Cart_shift(cart, 1, 1, &src, &dst));
        EXPECT(dst == (c2[1] + 1 < dims[1] ? rank + 1 : MPI_PROC_NULL), "shift dim 1 dest %d", dst);
        EXPECT(src == (c2[1] > 0 ? rank - 1 : MPI_PROC_NULL), "shift dim 1 source %d", src);
        /* a halo exchange along the shift proves the neighbours talk */
        {
            int out = rank, in = -7;
            CK(MPI_Sendrecv(&out, 1, MPI_INT, dst, 1, &in, 1, MPI_INT, src, 1, cart, MPI_STATUS_IGNORE));
            EXPECT(in == (src == MPI_PROC_NULL ? -7 : src), "halo from %d brought %d", src, in);
        }
        EXPECT_CLASS(MPI_Cart_shift(cart, 2, 1, &src, &dst), MPI_ERR_ARG, "shift along a missing dimension");

        pt_set_phase("cart_sub");
        {
            int keep[2] = {0, 1}, n, sr, sd[1], sp[1], sc[1];
            CK(MPI_Cart_sub(cart, keep, &sub));
            CK(MPI_Comm_size(sub, &n));
            CK(MPI_Comm_rank(sub, &sr));
            EXPECT(n == dims[1] && sr == c2[1], "row sub-grid: size %d rank %d", n, sr);
            CK(MPI_Cart_get(sub, 1, sd, sp, sc));
            EXPECT(sd[0] == dims[1] && sp[0] == 0 && sc[0] == c2[1], "row sub-grid topology");
            {
                int ident[64];
                for (i = 0; i < n; ++i) ident[i] = c2[0] * dims[1] + i;
                cm_check_ranks(sub, ident, rank, "row sub-grid");
            }
            CK(MPI_Comm_free(&sub));
            keep[0] = 0; keep[1] = 0;
            CK(MPI_Cart_sub(cart, keep, &sub));
            /* MPI-2.2 7.5.7: every process gets a zero-dimensional grid of its own
             * (MPICH 4.0 gives MPI_COMM_NULL to all but one) */
            if (PT_STRICT || sub != MPI_COMM_NULL) {
                CK(MPI_Comm_size(sub, &n));
                EXPECT(n == 1, "sub-grid of no dimensions has %d processes", n);
                CK(MPI_Comm_free(&sub));
            }
        }
        CK(MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, &r));
        EXPECT(r == rank, "cart_map %d", r);
        CK(MPI_Comm_free(&cart));
    }

    pt_set_phase("cart smaller than the communicator");
    {
        int dims[1], periods[1] = {0};
        dims[0] = size > 1 ? size - 1 : 1;
        CK(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 1, &line));
        if (rank < dims[0]) {
            EXPECT(line != MPI_COMM_NULL, "member of the grid got MPI_COMM_NULL");
            CK(MPI_Comm_free(&line));
        } else {
            EXPECT(line == MPI_COMM_NULL, "process outside the grid got a communicator");
        }
        CK(MPI_Cart_map(MPI_COMM_WORLD, 1, dims, periods, &i));
        EXPECT(i == (rank < dims[0] ? rank : MPI_UNDEFINED), "cart_map outside the grid: %d", i);
        dims[0] = size + 1;
        EXPECT_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line), MPI_ERR_ARG, "grid too large");
        dims[0] = 0;
        /* MPI-1.3 6.5.1: dims must be positive (MPICH 4.0 accepts 0) */
        if (PT_STRICT)
            EXPECT_CLASS(MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &line), MPI_ERR_DIMS, "zero dimension");
    }

    pt_set_phase("graph");
    {
        /* a ring: node i talks to i-1 and i+1 (one neighbour each way; with 1 node, to itself twice) */
        int index[64], edges[128], n = size, nn, ne, nb[4], cnt, gi[64], ge[128];
        for (i = 0; i < n; ++i) {
            index[i] = 2 * (i + 1);
            edges[2 * i] = (i - 1 + n) % n;
            edges[2 * i + 1] = (i + 1) % n;
        }
        CK(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &graph));
        CK(MPI_Topo_test(graph, &st));
        EXPECT(st == MPI_GRAPH, "topo_test graph: %d", st);
        CK(MPI_Graphdims_get(graph, &nn, &ne));
        EXPECT(nn == n && ne == 2 * n, "graphdims %d %d", nn, ne);
        CK(MPI_Graph_get(graph, n, 2 * n, gi, ge));
        for (i = 0; i < n; ++i) EXPECT(gi[i] == index[i], "graph_get index[%d]", i);
        for (i = 0; i < 2 * n; ++i) EXPECT(ge[i] == edges[i], "graph_get edges[%d]", i);
        CK(MPI_Graph_neighbors_count(graph, rank, &cnt));
        EXPECT(cnt == 2, "neighbours count %d", cnt);
        CK(MPI_Graph_neighbors(graph, rank, 4, nb));
        EXPECT(nb[0] == (rank - 1 + n) % n && nb[1] == (rank + 1) % n, "neighbours %d %d", nb[0], nb[1]);
        CK(MPI_Graph_map(MPI_COMM_WORLD, n, index, edges, &i));
        EXPECT(i == rank, "graph_map %d", i);
        EXPECT_CLASS(MPI_Cartdim_get(graph, &i), MPI_ERR_TOPOLOGY, "cartdim of a graph");
        EXPECT_CLASS(MPI_Graph_neighbors_count(graph, n, &cnt), MPI_ERR_RANK, "neighbours of a missing node");
        {
            /* dup keeps the topology */
            MPI_Comm g2;
            CK(MPI_Comm_dup(graph, &g2));
            CK(MPI_Topo_test(g2, &st));
            EXPECT(st == MPI_GRAPH, "dup lost the graph");
            CK(MPI_Comm_free(&g2));
        }
        CK(MPI_Comm_free(&graph));
        edges[0] = n;
        /* MPI-1.3 6.5.3: edges name nodes 0..nnodes-1 (MPICH 4.0 does not check) */
        if (PT_STRICT)
            EXPECT_CLASS(MPI_Graph_create(MPI_COMM_WORLD, n, index, edges, 0, &graph), MPI_ERR_ARG,
                         "edge to a missing node");
    }

    pt_set_phase("no topology");
    CK(MPI_Topo_test(MPI_COMM_WORLD, &st));
    EXPECT(st == MPI_UNDEFINED, "world has a topology: %d", st);
    EXPECT_CLASS(MPI_Cart_shift(MPI_COMM_WORLD, 0, 1, &src, &dst), MPI_ERR_TOPOLOGY, "shift without topology");
    EXPECT_CLASS(MPI_Graphdims_get(MPI_COMM_WORLD, &src, &dst), MPI_ERR_TOPOLOGY, "graphdims without topology");
    return pt_finish();
}
