/* Error classes of the collectives and of MPI_Op_create/MPI_Op_free with
 * MPI_ERRORS_RETURN, a user error handler called for a collective error, and
 * type-signature mismatches reported as MPI_ERR_TRUNCATE. Errors every
 * process makes alike run on MPI_COMM_WORLD; errors in arguments only the
 * root reads run on MPI_COMM_SELF, so no process is left waiting. */
#include "coll_common.h"

static int handler_calls = 0;
static int handler_class = -1;

static void counting_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

static void dummy_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    (void)in;
    (void)inout;
    (void)len;
    (void)type;
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "coll_errors");
    int a[8] = {0}, b[8] = {0}, counts[64], displs[64], i;
    double d[2] = {1, 2}, e[2];
    char c[2] = {1, 2}, c2[2];
    MPI_Op op, sum = MPI_SUM;
    MPI_Errhandler eh;
    MPI_Comm bogus = (MPI_Comm)12345;
    for (i = 0; i < 64; i++) {
        counts[i] = 1;
        displs[i] = i;
    }

    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CK(MPI_Errhandler_set(MPI_COMM_SELF, MPI_ERRORS_RETURN));

    pt_set_phase("communicator");
    EXPECT_CLASS(MPI_Barrier(MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Bcast(a, 1, MPI_INT, 0, MPI_COMM_NULL), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, bogus), MPI_ERR_COMM);
    EXPECT_CLASS(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_NULL), MPI_ERR_COMM);

    pt_set_phase("root");
    EXPECT_CLASS(MPI_Bcast(a, 1, MPI_INT, pt_size, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Bcast(a, 1, MPI_INT, -1, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Reduce(a, b, 1, MPI_INT, MPI_SUM, pt_size + 3, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_INT, -2, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Scatterv(a, counts, displs, MPI_INT, b, 1, MPI_INT, pt_size, MPI_COMM_WORLD), MPI_ERR_ROOT);
    EXPECT_CLASS(MPI_Bcast(a, 1, MPI_INT, 1, MPI_COMM_SELF), MPI_ERR_ROOT);

    pt_set_phase("count");
    EXPECT_CLASS(MPI_Bcast(a, -1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Allreduce(a, b, -5, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Scan(a, b, -1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Allgather(a, -1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD), MPI_ERR_COUNT);
    counts[0] = -1;
    EXPECT_CLASS(MPI_Reduce_scatter(a, b, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Alltoallv(a, counts, displs, MPI_INT, b, counts, displs, MPI_INT, MPI_COMM_WORLD),
                 MPI_ERR_COUNT);
    EXPECT_CLASS(MPI_Gatherv(a, 1, MPI_INT, b, counts, displs, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_COUNT);
    counts[0] = 1;
    EXPECT_CLASS(MPI_Gather(a, 1, MPI_INT, b, -1, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_COUNT);

    pt_set_phase("datatype");
    EXPECT_CLASS(MPI_Bcast(a, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Allreduce(a, b, 1, (MPI_Datatype)777, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Alltoall(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, MPI_COMM_WORLD), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Gather(a, 1, MPI_INT, b, 1, MPI_DATATYPE_NULL, 0, MPI_COMM_SELF), MPI_ERR_TYPE);
    EXPECT_CLASS(MPI_Scatter(a, 1, MPI_DATATYPE_NULL, b, 1, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_TYPE);

    pt_set_phase("buffer");
    EXPECT_CLASS(MPI_Bcast(NULL, 1, MPI_INT, 0, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Allreduce(NULL, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Allreduce(a, a, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Scatter(NULL, 1, MPI_INT, b, 1, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Gatherv(a, 1, MPI_INT, NULL, counts, displs, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Gatherv(a, 1, MPI_INT, b, NULL, displs, MPI_INT, 0, MPI_COMM_SELF), MPI_ERR_ARG);
    /* Zero elements need no buffer. */
    CK(MPI_Bcast(NULL, 0, MPI_INT, 0, MPI_COMM_WORLD));
    CK(MPI_Allreduce(NULL, NULL, 0, MPI_INT, MPI_SUM, MPI_COMM_WORLD));

    pt_set_phase("operation");
    EXPECT_CLASS(MPI_Allreduce(a, b, 1, MPI_INT, MPI_OP_NULL, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(a, b, 1, MPI_INT, (MPI_Op)999, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(c, c2, 2, MPI_BYTE, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(c, c2, 2, MPI_CHAR, MPI_MAX, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(c, c2, 2, MPI_UNSIGNED_CHAR, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(d, e, 2, MPI_DOUBLE, MPI_LAND, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(d, e, 2, MPI_FLOAT, MPI_BXOR, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(a, b, 2, MPI_INT, MPI_MAXLOC, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Allreduce(a, b, 2, MPI_2INT, MPI_SUM, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Reduce(a, b, 2, MPI_INT, MPI_OP_NULL, 0, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Scan(a, b, 2, MPI_PACKED, MPI_BOR, MPI_COMM_WORLD), MPI_ERR_OP);
    EXPECT_CLASS(MPI_Reduce_scatter(a, b, counts, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD), MPI_ERR_OP);

    pt_set_phase("op create/free");
    EXPECT_CLASS(MPI_Op_free(&sum), MPI_ERR_OP);
    EXPECT(sum == MPI_SUM, "a refused MPI_Op_free changed the handle");
    EXPECT_CLASS(MPI_Op_free(NULL), MPI_ERR_ARG);
    EXPECT_CLASS(MPI_Op_create(NULL, 1, &op), MPI_ERR_ARG);
    CK(MPI_Op_create(dummy_op, 1, &op));
    {
        MPI_Op stale = op;
        CK(MPI_Op_free(&op));
        EXPECT(op == MPI_OP_NULL, "MPI_Op_free left the handle set");
        EXPECT_CLASS(MPI_Op_free(&stale), MPI_ERR_OP);
        EXPECT_CLASS(MPI_Allreduce(a, b, 1, MPI_INT, stale, MPI_COMM_WORLD), MPI_ERR_OP);
        EXPECT_CLASS(MPI_Op_free(&op), MPI_ERR_OP);
    }

    pt_set_phase("truncation");
    for (i = 0; i < 8; i++) a[i] = rank;
    {
        int *all = (int *)pt_malloc(sizeof(int) * 2 * (size_t)pt_size);
        int rc = MPI_Gather(a, 2, MPI_INT, all, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (rank == 0) {
            EXPECT(rc != MPI_SUCCESS && pt_error_class(rc) == MPI_ERR_TRUNCATE,
                   "gathering 2 ints into room for 1 gave %d at the root", rc);
        }
        rc = MPI_Allgather(a, 2, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD);
        EXPECT(rc != MPI_SUCCESS && pt_error_class(rc) == MPI_ERR_TRUNCATE,
               "allgathering 2 ints into room for 1 gave %d", rc);
        free(all);
    }

    pt_set_phase("user error handler");
    CK(MPI_Errhandler_create(counting_handler, &eh));
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, eh));
    (void)MPI_Bcast(a, 1, MPI_INT, pt_size, MPI_COMM_WORLD);
    EXPECT(handler_calls == 1 && handler_class == MPI_ERR_ROOT, "handler called %d times, class %d", handler_calls,
           handler_class);
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CK(MPI_Errhandler_free(&eh));

    pt_set_phase("still working");
    a[0] = rank;
    CK(MPI_Allreduce(a, b, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
    EXPECT(b[0] == pt_size * (pt_size - 1) / 2, "allreduce after errors gave %d", b[0]);
    {
        int two[2] = {rank, rank}, all2[2 * 64];
        CK(MPI_Allgather(two, 2, MPI_INT, all2, 2, MPI_INT, MPI_COMM_WORLD));
        for (i = 0; i < pt_size; i++) EXPECT(all2[2 * i] == i, "allgather after errors: %d", all2[2 * i]);
    }
    return pt_finish();
}
