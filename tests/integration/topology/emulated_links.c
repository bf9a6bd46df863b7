/* Wide-area emulation seen from a program: rank 0 (site A) exchanges messages
 * with rank 1 (site B) over a link emulated at LATENCY_MS one way and
 * BANDWIDTH_MBIT (the arguments). No round trip may be faster than the link
 * allows, and every byte arrives intact and in order; with four processes,
 * two transfers between the two sites share the link. Timing gives lower
 * bounds only: a loaded machine makes round trips slower, never faster. */
#include "pt2pt_common.h"

static void check_at_least(double seconds, double floor_s, const char *what)
{
    EXPECT(seconds >= floor_s, "%s took %.3f ms, less than the emulated link allows (%.3f ms)", what, seconds * 1e3,
           floor_s * 1e3);
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "emulated_links");
    double latency, bytes_per_s;
    const size_t sizes[] = {8, 60000, 1 << 20};
    size_t s;
    pt_require_size(2);
    if (argc < 3) pt_fail("usage: emulated_links LATENCY_MS BANDWIDTH_MBIT [ANYTHING...]");
    latency = atof(argv[1]) / 1e3;
    bytes_per_s = atof(argv[2]) * 1e6 / 8;

    for (s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
        const size_t n = sizes[s];
        unsigned char *buf = pt_malloc(n);
        int round;
        pt_set_phase("round trips");
        for (round = 0; round < 3; ++round) {
            const uint32_t seed = pt_seed(0, 1, (int)n, round);
            if (rank == 0) {
                const double t0 = MPI_Wtime();
                pt_fill(buf, n, seed);
                CK(MPI_Send(buf, (int)n, MPI_BYTE, 1, round, MPI_COMM_WORLD));
                CK(MPI_Recv(buf, (int)n, MPI_BYTE, 1, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                check_at_least(MPI_Wtime() - t0, 2 * (latency + (double)n / bytes_per_s), "a round trip");
                pt_verify(buf, n, seed ^ 1u, "the echo");
            } else if (rank == 1) {
                CK(MPI_Recv(buf, (int)n, MPI_BYTE, 0, round, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                pt_verify(buf, n, seed, "the ping");
                pt_fill(buf, n, seed ^ 1u);
                CK(MPI_Send(buf, (int)n, MPI_BYTE, 0, round, MPI_COMM_WORLD));
            }
        }
        free(buf);
    }

    pt_set_phase("a burst keeps its order and pays for its bytes");
    {
        enum { COUNT = 20, SIZE = 20000 };
        unsigned char *buf = pt_malloc((size_t)COUNT * SIZE);
        MPI_Request reqs[COUNT];
        int i;
        if (rank == 0) {
            const double t0 = MPI_Wtime();
            for (i = 0; i < COUNT; ++i) {
                pt_fill(buf + (size_t)i * SIZE, SIZE, pt_seed(0, 1, 77, i));
                CK(MPI_Isend(buf + (size_t)i * SIZE, SIZE, MPI_BYTE, 1, 77, MPI_COMM_WORLD, &reqs[i]));
            }
            CK(MPI_Waitall(COUNT, reqs, MPI_STATUSES_IGNORE));
            CK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 78, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            check_at_least(MPI_Wtime() - t0, 2 * latency + (double)COUNT * SIZE / bytes_per_s, "the burst");
        } else if (rank == 1) {
            for (i = 0; i < COUNT; ++i) {
                /* Same tag: MPI's order is the order sent. */
                CK(MPI_Recv(buf + (size_t)i * SIZE, SIZE, MPI_BYTE, 0, 77, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                pt_verify(buf + (size_t)i * SIZE, SIZE, pt_seed(0, 1, 77, i), "a burst message");
            }
            CK(MPI_Send(NULL, 0, MPI_BYTE, 0, 78, MPI_COMM_WORLD));
        }
        free(buf);
    }

    /* With four processes (0 and 2 at one site, 1 and 3 at the other), 0 and
     * 2 send to 1 and 3 at once: both cross the one link between the sites,
     * so together they take at least as long as their bytes at its bandwidth.
     * (With 3 at a third site and BANDWIDTH_MBIT the sites' uplink, they
     * cross two links but share their site's uplink: the same bound.)
     * Rank 2 may leave the barrier up to a latency before rank 0 starts its
     * clock; rank 0 hears from both receivers one latency after they got all. */
    if (pt_size >= 4) {
        enum { SIZE = 2 << 20 };
        unsigned char *buf = pt_malloc(SIZE);
        pt_set_phase("processes of a site share its link");
        CK(MPI_Barrier(MPI_COMM_WORLD));
        if (rank == 0 || rank == 2) {
            const double t0 = MPI_Wtime();
            pt_fill(buf, SIZE, pt_seed(rank, rank + 1, 79, 0));
            CK(MPI_Send(buf, SIZE, MPI_BYTE, rank + 1, 79, MPI_COMM_WORLD));
            if (rank == 0) {
                CK(MPI_Recv(NULL, 0, MPI_BYTE, 1, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                CK(MPI_Recv(NULL, 0, MPI_BYTE, 3, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                check_at_least(MPI_Wtime() - t0, latency + 2.0 * SIZE / bytes_per_s, "two transfers over one link");
            }
        } else if (rank == 1 || rank == 3) {
            CK(MPI_Recv(buf, SIZE, MPI_BYTE, rank - 1, 79, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            pt_verify(buf, SIZE, pt_seed(rank - 1, rank, 79, 0), "a shared transfer");
            CK(MPI_Send(NULL, 0, MPI_BYTE, 0, 80, MPI_COMM_WORLD));
        }
        free(buf);
    }
    return pt_finish();
}
