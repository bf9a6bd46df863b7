/* Intercommunicators: Intercomm_create between the even and the odd world
 * ranks (peer communicator MPI_COMM_WORLD, a user tag), point-to-point
 * across, remote size and group, dup, compare, and Intercomm_merge with
 * every combination of `high`; a collective across and the errors (the
 * collectives themselves are mpi2_intercoll's). (MPICH 4.0.2's ch4 device fails an internal
 * assertion in MPI_Intercomm_merge, so run_with_mpich.sh cannot validate the
 * merge phase against it.) */
#include "comm_common.h"

/* The remote group of inter is the other parity's world ranks, in order. */
static void remote_group_check(MPI_Comm inter, int remote_n, int mine)
{
    MPI_Group rg, wg;
    int i, in[64], out[64];
    CK(MPI_Comm_remote_group(inter, &rg));
    CK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (i = 0; i < remote_n; ++i) in[i] = i;
    CK(MPI_Group_translate_ranks(rg, remote_n, in, wg, out));
    for (i = 0; i < remote_n; ++i) EXPECT(out[i] == 2 * i + (1 - mine), "remote rank %d is world %d", i, out[i]);
    CK(MPI_Group_free(&wg));
    CK(MPI_Group_free(&rg));
}

/* Every process sends its world rank to every remote rank and receives from
 * each; r is the rank in inter. */
static void across_check(MPI_Comm inter, int rank, int r, int local_n, int remote_n, int mine)
{
    int i, got;
    MPI_Request reqs[128];
    int vals[64];
    for (i = 0; i < remote_n; ++i) CK(MPI_Irecv(&vals[i], 1, MPI_INT, i, 3, inter, &reqs[i]));
    for (i = 0; i < remote_n; ++i) CK(MPI_Isend(&rank, 1, MPI_INT, i, 3, inter, &reqs[remote_n + i]));
    CK(MPI_Waitall(2 * remote_n, reqs, MPI_STATUSES_IGNORE));
    for (i = 0; i < remote_n; ++i) EXPECT(vals[i] == 2 * i + (1 - mine), "from remote rank %d came %d", i, vals[i]);
    /* ANY_SOURCE reports the sender's rank in the remote group */
    if (r == 0) CK(MPI_Send(&rank, 1, MPI_INT, remote_n - 1, 4, inter));
    if (r == local_n - 1) {
        MPI_Status st;
        CK(MPI_Recv(&got, 1, MPI_INT, MPI_ANY_SOURCE, 4, inter, &st));
        EXPECT(st.MPI_SOURCE == 0 && got == 1 - mine, "ANY_SOURCE across: source %d value %d", st.MPI_SOURCE, got);
    }
}

/* The world ranks in the order merge `order` (see merge_check) gives them. */
static void merge_order(MPI_Comm merged, int order, int rank, int size, int *ident)
{
    int first_is_even = order == 0 || (order == 2);
    int i, k = 0, g;
    for (g = 0; g < 2; ++g) {
        int par = (g == 0) == first_is_even ? 0 : 1;
        for (i = par; i < size; i += 2) ident[k++] = i;
    }
    if (order == 2) {
        /* tie: any consistent order is allowed; learn it from rank 0's view */
        int first = -1;
        int mr;
        CK(MPI_Comm_rank(merged, &mr));
        if (mr == 0) {
            first = rank;
            for (g = 1; g < size; ++g) CK(MPI_Send(&first, 1, MPI_INT, g, 6, merged));
        } else {
            CK(MPI_Recv(&first, 1, MPI_INT, 0, 6, merged, MPI_STATUS_IGNORE));
        }
        k = 0;
        for (g = 0; g < 2; ++g) {
            int par = g == 0 ? first % 2 : 1 - first % 2;
            for (i = par; i < size; i += 2) ident[k++] = i;
        }
    }
}

static void merge_check(MPI_Comm inter, int rank, int size, int mine)
{
    int hi, order, n, flag;
    int ident[64];
    MPI_Comm merged;
    for (order = 0; order < 3; ++order) {
        /* 0: evens low; 1: odds low; 2: both the same (tie) */
        if (order == 0)
            hi = mine;
        else if (order == 1)
            hi = 1 - mine;
        else
            hi = 1;
        CK(MPI_Intercomm_merge(inter, hi, &merged));
        CK(MPI_Comm_size(merged, &n));
        EXPECT(n == size, "merged size %d", n);
        CK(MPI_Comm_test_inter(merged, &flag));
        EXPECT(flag == 0, "merged is an intercommunicator");
        merge_order(merged, order, rank, size, ident);
        cm_check_ranks(merged, ident, rank, "merged");
        CK(MPI_Comm_free(&merged));
    }
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "comm_intercomm");
    int size = pt_size, n, r, flag, cmp;
    int mine = rank % 2;
    int local_n, remote_n;
    MPI_Comm local, inter, inter2, merged;

    pt_require_size(2);
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    pt_set_phase("create");
    CK(MPI_Comm_split(MPI_COMM_WORLD, mine, rank, &local));
    /* Local leaders are local rank 0 (world 0 and world 1); some user traffic
     * with the same tag is in flight on the peer communicator to prove the
     * leaders' exchange does not steal it. */
    if (rank == 0) {
        int x = 4242;
        CK(MPI_Send(&x, 1, MPI_INT, 1, 99, MPI_COMM_WORLD));
    }
    CK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, 1 - mine, 99, &inter));
    if (rank == 1) {
        int x = 0;
        CK(MPI_Recv(&x, 1, MPI_INT, 0, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        EXPECT(x == 4242, "user message on the peer communicator was %d", x);
    }
    CK(MPI_Comm_test_inter(inter, &flag));
    EXPECT(flag == 1, "test_inter: %d", flag);
    local_n = mine == 0 ? (size + 1) / 2 : size / 2;
    remote_n = size - local_n;
    CK(MPI_Comm_size(inter, &n));
    EXPECT(n == local_n, "local size %d, want %d", n, local_n);
    CK(MPI_Comm_remote_size(inter, &n));
    EXPECT(n == remote_n, "remote size %d, want %d", n, remote_n);
    CK(MPI_Comm_rank(inter, &r));
    EXPECT(r == rank / 2, "rank in the intercommunicator %d", r);

    pt_set_phase("remote group");
    remote_group_check(inter, remote_n, mine);

    pt_set_phase("point-to-point across");
    across_check(inter, rank, r, local_n, remote_n, mine);

    pt_set_phase("dup");
    CK(MPI_Comm_dup(inter, &inter2));
    CK(MPI_Comm_compare(inter, inter2, &cmp));
    EXPECT(cmp == MPI_CONGRUENT, "compare inter/dup: %d", cmp);
    {
        int v = -1;
        if (r == 0) {
            CK(MPI_Send(&rank, 1, MPI_INT, 0, 8, inter2));
            CK(MPI_Recv(&v, 1, MPI_INT, 0, 8, inter2, MPI_STATUS_IGNORE));
            EXPECT(v == 1 - mine, "leader on dup heard %d", v);
        }
    }

    pt_set_phase("merge");
    merge_check(inter, rank, size, mine);

    pt_set_phase("errors");
    EXPECT_CLASS(MPI_Intercomm_merge(local, 0, &merged), MPI_ERR_COMM, "merge of an intracommunicator");
    EXPECT_CLASS(MPI_Comm_split(inter, 0, 0, &merged), MPI_ERR_COMM, "split of an intercommunicator");
    EXPECT_CLASS(MPI_Intercomm_create(local, local_n, MPI_COMM_WORLD, 0, 1, &merged), MPI_ERR_RANK,
                 "local leader out of range");
    {
        int x = 0, y = 0;
        EXPECT_CLASS(MPI_Send(&x, 1, MPI_INT, remote_n, 0, inter), MPI_ERR_RANK, "send beyond the remote group");
        int i, want = 0;
        /* MPI-2 defines the collectives on intercommunicators (mpi2_intercoll
         * tests them all), but for MPI_Scan; a root must be MPI_ROOT,
         * MPI_PROC_NULL or a rank of the remote group */
        EXPECT_CLASS(MPI_Scan(&x, &y, 1, MPI_INT, MPI_SUM, inter), MPI_ERR_COMM, "scan on an intercommunicator");
        EXPECT_CLASS(MPI_Bcast(&x, 1, MPI_INT, remote_n, inter), MPI_ERR_ROOT, "bcast from beyond the remote group");
        CK(MPI_Barrier(inter));
        x = rank;
        CK(MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, inter));
        for (i = 1 - mine; i < size; i += 2) want += i;
        EXPECT(y == want, "allreduce on an intercommunicator gave %d, the other group's sum is %d", y, want);
    }
    CK(MPI_Comm_free(&inter2));
    CK(MPI_Comm_free(&inter));
    CK(MPI_Comm_free(&local));
    return pt_finish();
}
