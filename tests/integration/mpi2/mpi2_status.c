/* MPI_STATUS_IGNORE and MPI_STATUSES_IGNORE wherever a status is returned:
 * MPI_Recv, MPI_Sendrecv, MPI_Sendrecv_replace, MPI_Probe, MPI_Iprobe,
 * MPI_Wait, MPI_Test, MPI_Waitany, MPI_Testany, MPI_Waitall, MPI_Testall,
 * MPI_Waitsome, MPI_Testsome, and for persistent requests. Rank 0 and rank 1
 * exchange; data is checked each time. */
#include "pt2pt_common.h"

enum { N = 4 };

static void expect_values(const int *v, int n, int base, const char *what)
{
    int i;
    for (i = 0; i < n; ++i) EXPECT(v[i] == base + i, "%s: element %d is %d, expected %d", what, i, v[i], base + i);
}

int main(int argc, char **argv)
{
    int peer, i, flag, index, outcount, indices[N];
    int out[N][N], in[N][N];
    MPI_Request rq[N];
    pt_init(&argc, &argv, "mpi2_status");
    pt_require_size(2);
    if (pt_rank > 1) return pt_finish();
    peer = 1 - pt_rank;
    for (i = 0; i < N; ++i) {
        int j;
        for (j = 0; j < N; ++j) out[i][j] = 100 * i + j;
    }

    pt_set_phase("MPI_Recv, MPI_Sendrecv, MPI_Sendrecv_replace");
    if (pt_rank == 0) CK(MPI_Send(out[0], N, MPI_INT, peer, 1, MPI_COMM_WORLD));
    if (pt_rank == 1) {
        CK(MPI_Recv(in[0], N, MPI_INT, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        expect_values(in[0], N, 0, "MPI_Recv");
    }
    CK(MPI_Sendrecv(out[1], N, MPI_INT, peer, 2, in[1], N, MPI_INT, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect_values(in[1], N, 100, "MPI_Sendrecv");
    memcpy(in[2], out[2], sizeof in[2]);
    CK(MPI_Sendrecv_replace(in[2], N, MPI_INT, peer, 3, peer, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    expect_values(in[2], N, 200, "MPI_Sendrecv_replace");

    pt_set_phase("MPI_Probe, MPI_Iprobe");
    if (pt_rank == 0) {
        CK(MPI_Send(out[3], N, MPI_INT, peer, 4, MPI_COMM_WORLD));
        CK(MPI_Send(out[3], N, MPI_INT, peer, 5, MPI_COMM_WORLD));
    } else {
        CK(MPI_Probe(peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CK(MPI_Recv(in[3], N, MPI_INT, peer, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        do {
            CK(MPI_Iprobe(peer, 5, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        } while (!flag);
        CK(MPI_Recv(in[3], N, MPI_INT, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        expect_values(in[3], N, 300, "after MPI_Iprobe");
    }

    pt_set_phase("MPI_Wait, MPI_Test");
    memset(in, 0, sizeof in);
    CK(MPI_Irecv(in[0], N, MPI_INT, peer, 6, MPI_COMM_WORLD, &rq[0]));
    CK(MPI_Isend(out[0], N, MPI_INT, peer, 6, MPI_COMM_WORLD, &rq[1]));
    CK(MPI_Wait(&rq[0], MPI_STATUS_IGNORE));
    EXPECT(rq[0] == MPI_REQUEST_NULL, "MPI_Wait left the request");
    do {
        CK(MPI_Test(&rq[1], &flag, MPI_STATUS_IGNORE));
    } while (!flag);
    expect_values(in[0], N, 0, "MPI_Wait");

    pt_set_phase("MPI_Waitany, MPI_Testany");
    for (i = 0; i < 2; ++i) CK(MPI_Irecv(in[i], N, MPI_INT, peer, 7 + i, MPI_COMM_WORLD, &rq[i]));
    for (i = 0; i < 2; ++i) CK(MPI_Send(out[i], N, MPI_INT, peer, 7 + i, MPI_COMM_WORLD));
    CK(MPI_Waitany(2, rq, &index, MPI_STATUS_IGNORE));
    EXPECT(index == 0 || index == 1, "MPI_Waitany index %d", index);
    do {
        CK(MPI_Testany(2, rq, &index, &flag, MPI_STATUS_IGNORE));
    } while (!flag);
    expect_values(in[0], N, 0, "MPI_Waitany");
    expect_values(in[1], N, 100, "MPI_Testany");

    pt_set_phase("MPI_Waitall, MPI_Testall");
    for (i = 0; i < N; ++i) CK(MPI_Irecv(in[i], N, MPI_INT, peer, 10 + i, MPI_COMM_WORLD, &rq[i]));
    for (i = 0; i < N; ++i) CK(MPI_Send(out[i], N, MPI_INT, peer, 10 + i, MPI_COMM_WORLD));
    CK(MPI_Waitall(N, rq, MPI_STATUSES_IGNORE));
    for (i = 0; i < N; ++i) expect_values(in[i], N, 100 * i, "MPI_Waitall");
    for (i = 0; i < N; ++i) CK(MPI_Irecv(in[i], N, MPI_INT, peer, 20 + i, MPI_COMM_WORLD, &rq[i]));
    for (i = 0; i < N; ++i) CK(MPI_Send(out[i], N, MPI_INT, peer, 20 + i, MPI_COMM_WORLD));
    do {
        CK(MPI_Testall(N, rq, &flag, MPI_STATUSES_IGNORE));
    } while (!flag);
    for (i = 0; i < N; ++i) expect_values(in[i], N, 100 * i, "MPI_Testall");

    pt_set_phase("MPI_Waitsome, MPI_Testsome");
    for (i = 0; i < N; ++i) CK(MPI_Irecv(in[i], N, MPI_INT, peer, 30 + i, MPI_COMM_WORLD, &rq[i]));
    for (i = 0; i < N; ++i) CK(MPI_Send(out[i], N, MPI_INT, peer, 30 + i, MPI_COMM_WORLD));
    {
        int done = 0, use_test = 0;
        while (done < N) {
            if (use_test) {
                CK(MPI_Testsome(N, rq, &outcount, indices, MPI_STATUSES_IGNORE));
            } else {
                CK(MPI_Waitsome(N, rq, &outcount, indices, MPI_STATUSES_IGNORE));
            }
            EXPECT(outcount != MPI_UNDEFINED, "outcount MPI_UNDEFINED with %d requests left", N - done);
            done += outcount;
            use_test = !use_test;
        }
    }
    for (i = 0; i < N; ++i) expect_values(in[i], N, 100 * i, "MPI_Waitsome");

    pt_set_phase("persistent requests");
    {
        MPI_Request p[2];
        CK(MPI_Recv_init(in[0], N, MPI_INT, peer, 40, MPI_COMM_WORLD, &p[0]));
        CK(MPI_Send_init(out[2], N, MPI_INT, peer, 40, MPI_COMM_WORLD, &p[1]));
        for (i = 0; i < 3; ++i) {
            memset(in[0], 0, sizeof in[0]);
            CK(MPI_Startall(2, p));
            CK(MPI_Waitall(2, p, MPI_STATUSES_IGNORE));
            expect_values(in[0], N, 200, "persistent");
        }
        CK(MPI_Request_free(&p[0]));
        CK(MPI_Request_free(&p[1]));
    }
    return pt_finish();
}
