/* Error classes of the datatype calls with MPI_ERRORS_RETURN: bad counts,
 * bad or null types, NULL outputs, freeing predefined types, communication
 * with uncommitted types, Pack/Unpack overflows, truncated receives of a
 * derived type (with the status still right), and that a failed call leaves
 * its outputs alone. Also checks that errors go through the communicator's
 * handler: a user handler on MPI_COMM_WORLD sees MPI_Pack's error. */
#include "dt_common.h"

static int handler_calls = 0;
static int handler_class = 0;

static void counting_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    MPI_Error_class(*code, &handler_class);
}

int main(int argc, char **argv)
{
    MPI_Datatype t = MPI_DATATYPE_NULL, vec, uncommitted, freed;
    MPI_Datatype pre = MPI_INT;
    MPI_Aint a = 0;
    MPI_Status st;
    MPI_Errhandler eh;
    int x = 0, pos = 0, i;
    int bl[2] = {1, -1};
    int disp[2] = {0, 4};
    MPI_Aint hdisp[2] = {0, 4};
    MPI_Datatype types[2] = {MPI_INT, MPI_DATATYPE_NULL};
    int buf[64];
    unsigned char packed[64];
    int next, prev;

    pt_init(&argc, &argv, "dt_errors");
    pt_require_size(2);
    next = (pt_rank + 1) % pt_size;
    prev = (pt_rank + pt_size - 1) % pt_size;
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    pt_set_phase("constructors");
    DT_EXPECT_CLASS(MPI_Type_contiguous(-1, MPI_INT, &t), MPI_ERR_COUNT);
    DT_EXPECT_CLASS(MPI_Type_contiguous(2, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    DT_EXPECT_CLASS(MPI_Type_contiguous(2, (MPI_Datatype)12345, &t), MPI_ERR_TYPE);
    DT_EXPECT_CLASS(MPI_Type_contiguous(2, MPI_INT, NULL), MPI_ERR_ARG);
    DT_EXPECT_CLASS(MPI_Type_vector(-3, 1, 2, MPI_INT, &t), MPI_ERR_COUNT);
    DT_EXPECT_CLASS(MPI_Type_vector(3, -1, 2, MPI_INT, &t), MPI_ERR_ARG);
    DT_EXPECT_CLASS(MPI_Type_hvector(-1, 1, 8, MPI_INT, &t), MPI_ERR_COUNT);
    DT_EXPECT_CLASS(MPI_Type_hvector(1, 1, 8, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    DT_EXPECT_CLASS(MPI_Type_indexed(-1, bl, disp, MPI_INT, &t), MPI_ERR_COUNT);
    DT_EXPECT_CLASS(MPI_Type_indexed(2, bl, disp, MPI_INT, &t), MPI_ERR_ARG); /* block length -1 */
    DT_EXPECT_CLASS(MPI_Type_indexed(1, bl, disp, MPI_DATATYPE_NULL, &t), MPI_ERR_TYPE);
    DT_EXPECT_CLASS(MPI_Type_hindexed(2, bl, hdisp, MPI_INT, &t), MPI_ERR_ARG);
    DT_EXPECT_CLASS(MPI_Type_hindexed(1, bl, hdisp, MPI_INT, NULL), MPI_ERR_ARG);
    DT_EXPECT_CLASS(MPI_Type_struct(-1, bl, hdisp, types, &t), MPI_ERR_COUNT);
    bl[1] = 1;
    DT_EXPECT_CLASS(MPI_Type_struct(2, bl, hdisp, types, &t), MPI_ERR_TYPE); /* MPI_DATATYPE_NULL member */
    EXPECT(t == MPI_DATATYPE_NULL, "a failed constructor wrote the new type handle");

    pt_set_phase("queries");
    DT_EXPECT_CLASS(MPI_Type_extent(MPI_DATATYPE_NULL, &a), MPI_ERR_TYPE);
    DT_EXPECT_CLASS(MPI_Type_extent(MPI_INT, NULL), MPI_ERR_ARG);
    DT_EXPECT_CLASS(MPI_Type_size(MPI_DATATYPE_NULL, &x), MPI_ERR_TYPE);
    DT_EXPECT_CLASS(MPI_Type_size(MPI_INT, NULL), MPI_ERR_ARG);
    DT_EXPECT_CLASS(MPI_Type_lb(MPI_DATATYPE_NULL, &a), MPI_ERR_TYPE);
    DT_EXPECT_CLASS(MPI_Type_ub(MPI_INT, NULL), MPI_ERR_ARG);
    DT_EXPECT_CLASS(MPI_Address(buf, NULL), MPI_ERR_ARG);
    DT_EXPECT_CLASS(MPI_Type_commit(NULL), MPI_ERR_ARG);
    t = MPI_DATATYPE_NULL;
    DT_EXPECT_CLASS(MPI_Type_commit(&t), MPI_ERR_TYPE);

    pt_set_phase("free");
    DT_EXPECT_CLASS(MPI_Type_free(&pre), MPI_ERR_TYPE);
    EXPECT(pre == MPI_INT, "a failed MPI_Type_free changed the handle");
    pre = MPI_DOUBLE_INT;
    DT_EXPECT_CLASS(MPI_Type_free(&pre), MPI_ERR_TYPE);
    pre = MPI_LB;
    DT_EXPECT_CLASS(MPI_Type_free(&pre), MPI_ERR_TYPE);
    DT_EXPECT_CLASS(MPI_Type_free(NULL), MPI_ERR_ARG);
    CK(MPI_Type_contiguous(2, MPI_INT, &freed));
    t = freed;
    CK(MPI_Type_free(&freed));
    DT_EXPECT_CLASS(MPI_Type_free(&t), MPI_ERR_TYPE); /* freed twice */
    DT_EXPECT_CLASS(MPI_Type_size(t, &x), MPI_ERR_TYPE);

    pt_set_phase("uncommitted");
    CK(MPI_Type_vector(4, 1, 2, MPI_INT, &uncommitted));
    {
        MPI_Request rq = MPI_REQUEST_NULL;
        int sz = -1;
        DT_EXPECT_CLASS(MPI_Send(buf, 1, uncommitted, next, 1, MPI_COMM_WORLD), MPI_ERR_TYPE);
        DT_EXPECT_CLASS(MPI_Recv(buf, 1, uncommitted, prev, 1, MPI_COMM_WORLD, &st), MPI_ERR_TYPE);
        DT_EXPECT_CLASS(MPI_Isend(buf, 1, uncommitted, next, 1, MPI_COMM_WORLD, &rq), MPI_ERR_TYPE);
        EXPECT(rq == MPI_REQUEST_NULL, "a failed MPI_Isend returned a request");
        DT_EXPECT_CLASS(MPI_Send_init(buf, 1, uncommitted, next, 1, MPI_COMM_WORLD, &rq), MPI_ERR_TYPE);
        pos = 0;
        DT_EXPECT_CLASS(MPI_Pack(buf, 1, uncommitted, packed, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
        /* Queries and MPI_Pack_size do not need a commit. */
        CK(MPI_Type_size(uncommitted, &sz));
        EXPECT(sz == 16, "size of an uncommitted vector is %d", sz);
        CK(MPI_Pack_size(3, uncommitted, MPI_COMM_WORLD, &sz));
        EXPECT(sz >= 48, "Pack_size of 3 uncommitted vectors is %d", sz);
        /* A type built on an uncommitted one is fine once committed itself. */
        CK(MPI_Type_contiguous(2, uncommitted, &vec));
        CK(MPI_Type_commit(&vec));
        CK(MPI_Type_free(&uncommitted));
    }

    pt_set_phase("pack and unpack");
    for (i = 0; i < 64; i++) buf[i] = i;
    pos = 0;
    DT_EXPECT_CLASS(MPI_Pack(buf, -1, MPI_INT, packed, 64, &pos, MPI_COMM_WORLD), MPI_ERR_COUNT);
    DT_EXPECT_CLASS(MPI_Pack(buf, 1, MPI_DATATYPE_NULL, packed, 64, &pos, MPI_COMM_WORLD), MPI_ERR_TYPE);
    DT_EXPECT_CLASS(MPI_Pack(buf, 1, MPI_INT, packed, 64, NULL, MPI_COMM_WORLD), MPI_ERR_ARG);
    DT_EXPECT_CLASS(MPI_Pack(buf, 1, MPI_INT, packed, 64, &pos, MPI_COMM_NULL), MPI_ERR_COMM);
    DT_EXPECT_CLASS(MPI_Pack(buf, 1, vec, packed, 31, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    EXPECT(pos == 0, "failed MPI_Pack moved the position to %d", pos);
    CK(MPI_Pack(buf, 1, vec, packed, 32, &pos, MPI_COMM_WORLD));
    EXPECT(pos == 32, "position after packing 32 bytes is %d", pos);
    DT_EXPECT_CLASS(MPI_Pack(buf, 1, MPI_INT, packed, 32, &pos, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    pos = 0;
    DT_EXPECT_CLASS(MPI_Unpack(packed, 32, &pos, buf, 2, vec, MPI_COMM_WORLD), MPI_ERR_TRUNCATE);
    DT_EXPECT_CLASS(MPI_Unpack(packed, 32, &pos, buf, -2, vec, MPI_COMM_WORLD), MPI_ERR_COUNT);
    DT_EXPECT_CLASS(MPI_Unpack(packed, 32, NULL, buf, 1, vec, MPI_COMM_WORLD), MPI_ERR_ARG);
    DT_EXPECT_CLASS(MPI_Pack_size(-1, MPI_INT, MPI_COMM_WORLD, &x), MPI_ERR_COUNT);
    DT_EXPECT_CLASS(MPI_Pack_size(1, MPI_DATATYPE_NULL, MPI_COMM_WORLD, &x), MPI_ERR_TYPE);
    DT_EXPECT_CLASS(MPI_Pack_size(1, MPI_INT, MPI_COMM_WORLD, NULL), MPI_ERR_ARG);
    DT_EXPECT_CLASS(MPI_Get_elements(NULL, MPI_INT, &x), MPI_ERR_ARG);
    DT_EXPECT_CLASS(MPI_Get_elements(&st, MPI_DATATYPE_NULL, &x), MPI_ERR_TYPE);
    DT_EXPECT_CLASS(MPI_Get_count(&st, MPI_INT, NULL), MPI_ERR_ARG);
    /* Negative count in communication with a derived type. */
    DT_EXPECT_CLASS(MPI_Send(buf, -1, vec, next, 1, MPI_COMM_WORLD), MPI_ERR_COUNT);

    pt_set_phase("truncated receive of a derived type");
    {
        /* 12 ints sent; the receive of one vec (8 ints) takes 8. */
        int out[12], in[16];
        int e = -1, c = -1;
        for (i = 0; i < 12; i++) out[i] = pt_rank * 100 + i;
        for (i = 0; i < 16; i++) in[i] = -1;
        {
            MPI_Request rq;
            CK(MPI_Irecv(in, 1, vec, prev, 2, MPI_COMM_WORLD, &rq));
            CK(MPI_Send(out, 12, MPI_INT, next, 2, MPI_COMM_WORLD));
            DT_EXPECT_CLASS(MPI_Wait(&rq, &st), MPI_ERR_TRUNCATE);
        }
        {
            /* vec is two vector(4,1,2) an extent (7 ints) apart. */
            const int at[8] = {0, 2, 4, 6, 7, 9, 11, 13};
            int k, want[16];
            for (i = 0; i < 16; i++) want[i] = -1;
            for (k = 0; k < 8; k++) want[at[k]] = prev * 100 + k;
            for (i = 0; i < 16; i++) {
                EXPECT(in[i] == want[i], "truncated receive: int %d is %d, expected %d", i, in[i], want[i]);
            }
        }
        CK(MPI_Get_elements(&st, vec, &e));
        CK(MPI_Get_count(&st, vec, &c));
        EXPECT(e == 8 && c == 1, "truncated receive: %d elements, count %d", e, c);
    }

    pt_set_phase("errors go through the communicator's handler");
    CK(MPI_Errhandler_create(counting_handler, &eh));
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, eh));
    pos = 0;
    (void)MPI_Pack(buf, 1, vec, packed, 8, &pos, MPI_COMM_WORLD);
    EXPECT(handler_calls == 1 && handler_class == MPI_ERR_TRUNCATE, "handler called %d times, class %d",
           handler_calls, handler_class);
    (void)MPI_Type_contiguous(-5, MPI_INT, &t);
    EXPECT(handler_calls == 2 && handler_class == MPI_ERR_COUNT, "handler called %d times, class %d", handler_calls,
           handler_class);
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CK(MPI_Errhandler_free(&eh));

    CK(MPI_Type_free(&vec));
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    return pt_finish();
}
