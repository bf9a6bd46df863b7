/* Derived datatypes in every kind of point-to-point call, around a ring:
 * Isend/Irecv (with the types freed while the operations are pending),
 * persistent requests started several times (the type freed after
 * MPI_Send_init), MPI_Sendrecv_replace, MPI_Bsend with a buffer of exactly
 * MPI_Pack_size + MPI_BSEND_OVERHEAD (the user buffer is reused at once),
 * MPI_Ssend and MPI_Rsend, messages to oneself, and absolute addresses from
 * MPI_BOTTOM; small (eager) and large (rendezvous) messages.
 * Data is checked element by element and gaps must stay untouched. */
#include "dt_common.h"

#define SMALL 10     /* vector(SMALL, 2, 3, int): 80 bytes */
#define LARGE 100000 /* vector(LARGE, 1, 3, int): 400 kB */

static int next_rank, prev_rank;

static int val(int rank, int round, int i) { return rank * 10000000 + round * 100000 + i; }

/* Fills the data ints of a (blocks, blocklen, stride) layout, -1 in the gaps. */
static void fill(int *buf, int blocks, int bl, int stride, int rank, int round)
{
    int b, k, n = 0;
    for (b = 0; b < blocks * stride; b++) buf[b] = -1;
    for (b = 0; b < blocks; b++)
        for (k = 0; k < bl; k++) buf[b * stride + k] = val(rank, round, n++);
}

static void check(const int *buf, int blocks, int bl, int stride, int rank, int round, const char *what)
{
    int b, k, n = 0;
    for (b = 0; b < blocks; b++) {
        for (k = 0; k < stride; k++) {
            int want = k < bl ? val(rank, round, n) : -1;
            if (buf[b * stride + k] != want) {
                pt_fail("%s: int %d (block %d) is %d, expected %d", what, b * stride + k, b, buf[b * stride + k], want);
            }
            if (k < bl) n++;
        }
    }
}

int main(int argc, char **argv)
{
    MPI_Datatype sv, lv;
    MPI_Status st, sts[4];
    int *s_out, *s_in, *l_out, *l_in;
    int round = 0, r;

    pt_init(&argc, &argv, "dt_modes");
    pt_require_size(2);
    next_rank = (pt_rank + 1) % pt_size;
    prev_rank = (pt_rank + pt_size - 1) % pt_size;
    s_out = pt_malloc(sizeof(int) * SMALL * 3);
    s_in = pt_malloc(sizeof(int) * SMALL * 3);
    l_out = pt_malloc(sizeof(int) * LARGE * 3);
    l_in = pt_malloc(sizeof(int) * LARGE * 3);

    pt_set_phase("isend/irecv, types freed while pending");
    round++;
    {
        MPI_Request rq[4];
        CK(MPI_Type_vector(SMALL, 2, 3, MPI_INT, &sv));
        CK(MPI_Type_vector(LARGE, 1, 3, MPI_INT, &lv));
        CK(MPI_Type_commit(&sv));
        CK(MPI_Type_commit(&lv));
        fill(s_out, SMALL, 2, 3, pt_rank, round);
        fill(l_out, LARGE, 1, 3, pt_rank, round);
        fill(s_in, SMALL, 0, 3, 0, 0);
        fill(l_in, LARGE, 0, 3, 0, 0);
        CK(MPI_Irecv(l_in, 1, lv, prev_rank, 2, MPI_COMM_WORLD, &rq[0]));
        CK(MPI_Irecv(s_in, 1, sv, prev_rank, 1, MPI_COMM_WORLD, &rq[1]));
        CK(MPI_Isend(s_out, 1, sv, next_rank, 1, MPI_COMM_WORLD, &rq[2]));
        CK(MPI_Isend(l_out, 1, lv, next_rank, 2, MPI_COMM_WORLD, &rq[3]));
        CK(MPI_Type_free(&sv));
        CK(MPI_Type_free(&lv));
        CK(MPI_Waitall(4, rq, sts));
        check(s_in, SMALL, 2, 3, prev_rank, round, "irecv small");
        check(l_in, LARGE, 1, 3, prev_rank, round, "irecv large");
        EXPECT(sts[0].MPI_SOURCE == prev_rank && sts[0].MPI_TAG == 2, "irecv large: status source %d tag %d",
               sts[0].MPI_SOURCE, sts[0].MPI_TAG);
        {
            int c = -1;
            CK(MPI_Get_count(&sts[0], MPI_INT, &c));
            EXPECT(c == LARGE, "irecv large: %d ints arrived", c);
        }
    }

    CK(MPI_Type_vector(SMALL, 2, 3, MPI_INT, &sv));
    CK(MPI_Type_vector(LARGE, 1, 3, MPI_INT, &lv));
    CK(MPI_Type_commit(&sv));
    CK(MPI_Type_commit(&lv));

    pt_set_phase("persistent requests");
    {
        MPI_Request rq[4];
        MPI_Datatype ps, pl;
        CK(MPI_Type_vector(SMALL, 2, 3, MPI_INT, &ps));
        CK(MPI_Type_vector(LARGE, 1, 3, MPI_INT, &pl));
        CK(MPI_Type_commit(&ps));
        CK(MPI_Type_commit(&pl));
        CK(MPI_Recv_init(s_in, 1, ps, prev_rank, 3, MPI_COMM_WORLD, &rq[0]));
        CK(MPI_Recv_init(l_in, 1, pl, prev_rank, 4, MPI_COMM_WORLD, &rq[1]));
        CK(MPI_Send_init(s_out, 1, ps, next_rank, 3, MPI_COMM_WORLD, &rq[2]));
        CK(MPI_Send_init(l_out, 1, pl, next_rank, 4, MPI_COMM_WORLD, &rq[3]));
        CK(MPI_Type_free(&ps));
        CK(MPI_Type_free(&pl));
        for (r = 0; r < 3; r++) {
            round++;
            fill(s_out, SMALL, 2, 3, pt_rank, round);
            fill(l_out, LARGE, 1, 3, pt_rank, round);
            fill(s_in, SMALL, 0, 3, 0, 0);
            fill(l_in, LARGE, 0, 3, 0, 0);
            CK(MPI_Startall(4, rq));
            CK(MPI_Waitall(4, rq, sts));
            check(s_in, SMALL, 2, 3, prev_rank, round, "persistent small");
            check(l_in, LARGE, 1, 3, prev_rank, round, "persistent large");
        }
        for (r = 0; r < 4; r++) CK(MPI_Request_free(&rq[r]));
    }

    pt_set_phase("sendrecv_replace");
    round++;
    fill(l_out, LARGE, 1, 3, pt_rank, round);
    CK(MPI_Sendrecv_replace(l_out, 1, lv, next_rank, 5, prev_rank, 5, MPI_COMM_WORLD, &st));
    check(l_out, LARGE, 1, 3, prev_rank, round, "sendrecv_replace large");
    round++;
    fill(s_out, SMALL, 2, 3, pt_rank, round);
    CK(MPI_Sendrecv_replace(s_out, 1, sv, next_rank, 6, prev_rank, 6, MPI_COMM_WORLD, &st));
    check(s_out, SMALL, 2, 3, prev_rank, round, "sendrecv_replace small");
    EXPECT(st.MPI_SOURCE == prev_rank, "sendrecv_replace: source %d", st.MPI_SOURCE);

    pt_set_phase("bsend");
    {
        int sz_s = 0, sz_l = 0, size = 0;
        void *attached, *back;
        MPI_Request rq[2];
        round++;
        CK(MPI_Pack_size(1, sv, MPI_COMM_WORLD, &sz_s));
        CK(MPI_Pack_size(1, lv, MPI_COMM_WORLD, &sz_l));
        size = sz_s + sz_l + 2 * MPI_BSEND_OVERHEAD;
        attached = pt_malloc((size_t)size);
        CK(MPI_Buffer_attach(attached, size));
        fill(s_out, SMALL, 2, 3, pt_rank, round);
        fill(l_out, LARGE, 1, 3, pt_rank, round);
        fill(s_in, SMALL, 0, 3, 0, 0);
        fill(l_in, LARGE, 0, 3, 0, 0);
        CK(MPI_Irecv(s_in, 1, sv, prev_rank, 7, MPI_COMM_WORLD, &rq[0]));
        CK(MPI_Irecv(l_in, 1, lv, prev_rank, 8, MPI_COMM_WORLD, &rq[1]));
        CK(MPI_Bsend(s_out, 1, sv, next_rank, 7, MPI_COMM_WORLD));
        CK(MPI_Bsend(l_out, 1, lv, next_rank, 8, MPI_COMM_WORLD));
        /* The data was copied: the user buffers are free at once. */
        fill(s_out, SMALL, 2, 3, 99, 99);
        fill(l_out, LARGE, 1, 3, 99, 99);
        CK(MPI_Waitall(2, rq, sts));
        check(s_in, SMALL, 2, 3, prev_rank, round, "bsend small");
        check(l_in, LARGE, 1, 3, prev_rank, round, "bsend large");
        CK(MPI_Buffer_detach(&back, &size));
        EXPECT(back == attached, "detach returned another buffer");
        free(attached);
    }

    pt_set_phase("ssend and rsend");
    {
        MPI_Request rq[2];
        round++;
        fill(l_out, LARGE, 1, 3, pt_rank, round);
        fill(s_out, SMALL, 2, 3, pt_rank, round);
        fill(l_in, LARGE, 0, 3, 0, 0);
        fill(s_in, SMALL, 0, 3, 0, 0);
        CK(MPI_Irecv(l_in, 1, lv, prev_rank, 9, MPI_COMM_WORLD, &rq[0]));
        CK(MPI_Irecv(s_in, 1, sv, prev_rank, 10, MPI_COMM_WORLD, &rq[1]));
        /* Every receive is posted before anyone sends in ready mode. */
        CK(MPI_Barrier(MPI_COMM_WORLD));
        CK(MPI_Rsend(s_out, 1, sv, next_rank, 10, MPI_COMM_WORLD));
        CK(MPI_Ssend(l_out, 1, lv, next_rank, 9, MPI_COMM_WORLD));
        CK(MPI_Waitall(2, rq, sts));
        check(l_in, LARGE, 1, 3, prev_rank, round, "ssend large");
        check(s_in, SMALL, 2, 3, prev_rank, round, "rsend small");
    }

    /* An unmatched large send of a derived type can be cancelled. */
    pt_set_phase("cancel");
    {
        MPI_Request rq;
        int flag = 0;
        fill(l_out, LARGE, 1, 3, pt_rank, 0);
        CK(MPI_Isend(l_out, 1, lv, next_rank, 99, MPI_COMM_WORLD, &rq));
        CK(MPI_Cancel(&rq));
        CK(MPI_Wait(&rq, &st));
        CK(MPI_Test_cancelled(&st, &flag));
        EXPECT(flag, "an unmatched send of a derived type was not cancelled");
        /* The receiver must not find it any more. */
        CK(MPI_Barrier(MPI_COMM_WORLD));
        CK(MPI_Iprobe(prev_rank, 99, MPI_COMM_WORLD, &flag, &st));
        EXPECT(!flag, "a cancelled message is still there to be received");
    }

    /* A rank sending to itself: the self path packs and unpacks in chunks too. */
    pt_set_phase("to self");
    {
        MPI_Request rq[2];
        round++;
        fill(l_out, LARGE, 1, 3, pt_rank, round);
        fill(s_out, SMALL, 2, 3, pt_rank, round);
        fill(l_in, LARGE, 0, 3, 0, 0);
        fill(s_in, SMALL, 0, 3, 0, 0);
        CK(MPI_Isend(l_out, 1, lv, pt_rank, 11, MPI_COMM_WORLD, &rq[0]));
        CK(MPI_Isend(s_out, 1, sv, pt_rank, 12, MPI_COMM_WORLD, &rq[1]));
        CK(MPI_Recv(s_in, 1, sv, pt_rank, 12, MPI_COMM_WORLD, &st));
        CK(MPI_Recv(l_in, 1, lv, pt_rank, 11, MPI_COMM_WORLD, &st));
        CK(MPI_Waitall(2, rq, sts));
        check(l_in, LARGE, 1, 3, pt_rank, round, "self large");
        check(s_in, SMALL, 2, 3, pt_rank, round, "self small");
    }

    /* Absolute addresses from MPI_Address, sent from and received at MPI_BOTTOM. */
    pt_set_phase("MPI_BOTTOM");
    {
        int one = pt_rank * 3 + 1, one_in = -1;
        double two[3] = {pt_rank + 0.5, pt_rank + 1.5, pt_rank + 2.5}, two_in[3] = {-1, -1, -1};
        int bl[2] = {1, 2};
        MPI_Aint disp[2];
        MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE}, abs_out, abs_in;
        CK(MPI_Address(&one, &disp[0]));
        CK(MPI_Address(&two[1], &disp[1]));
        CK(MPI_Type_struct(2, bl, disp, ty, &abs_out));
        CK(MPI_Type_commit(&abs_out));
        CK(MPI_Address(&one_in, &disp[0]));
        CK(MPI_Address(&two_in[0], &disp[1]));
        CK(MPI_Type_struct(2, bl, disp, ty, &abs_in));
        CK(MPI_Type_commit(&abs_in));
        CK(MPI_Sendrecv(MPI_BOTTOM, 1, abs_out, next_rank, 13, MPI_BOTTOM, 1, abs_in, prev_rank, 13, MPI_COMM_WORLD,
                        &st));
        EXPECT(one_in == prev_rank * 3 + 1, "MPI_BOTTOM: int is %d", one_in);
        EXPECT(two_in[0] == prev_rank + 1.5 && two_in[1] == prev_rank + 2.5 && two_in[2] == -1,
               "MPI_BOTTOM: doubles are %g %g %g", two_in[0], two_in[1], two_in[2]);
        CK(MPI_Type_free(&abs_out));
        CK(MPI_Type_free(&abs_in));
    }

    CK(MPI_Type_free(&sv));
    CK(MPI_Type_free(&lv));
    free(s_out);
    free(s_in);
    free(l_out);
    free(l_in);
    return pt_finish();
}
