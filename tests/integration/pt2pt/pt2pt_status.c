/* pt2pt_status: the status object returned by every call that returns one.
 *
 * Ranks are paired (0-1, 2-3, ...; an odd last rank idles); each side takes
 * the receiving role once. The sender starts 15 messages, each with its own
 * tag, datatype and count (0 included); the receiver completes them through
 * MPI_Recv (with MPI_ANY_SOURCE/MPI_ANY_TAG), MPI_Wait, MPI_Test, MPI_Waitany,
 * MPI_Testany, MPI_Waitall, MPI_Testall, MPI_Waitsome, MPI_Testsome,
 * MPI_Probe + MPI_Recv and MPI_Iprobe + MPI_Recv. Then both sides call
 * MPI_Sendrecv and MPI_Sendrecv_replace. For every status:
 *   - MPI_SOURCE and MPI_TAG are the sender's rank and tag;
 *   - MPI_Get_count with the receive datatype is the count sent;
 *   - MPI_Test_cancelled is false;
 *   - MPI_ERROR: MPI-1.3 sets it only when a multiple-completion call returns
 *     MPI_ERR_IN_STATUS, so after success it must be either untouched or
 *     MPI_SUCCESS (never garbage);
 *   - a copy of the status (plain struct assignment) answers MPI_Get_count
 *     and MPI_Test_cancelled the same.
 * Statuses of send requests are checked with MPI_Test_cancelled only.
 */
#include "pt2pt_common.h"

#define NMSG 15

struct two_int {
    int a;
    int b;
};

struct msgdef {
    MPI_Datatype dt;
    const char *name;
    int size;
    int count;
};

static struct msgdef msgs[NMSG];
static int partner;

static void init_msgs(void)
{
    struct msgdef m[NMSG] = {
        {MPI_INT, "MPI_INT", sizeof(int), 17},
        {MPI_DOUBLE, "MPI_DOUBLE", sizeof(double), 5},
        {MPI_CHAR, "MPI_CHAR", 1, 0},
        {MPI_SHORT, "MPI_SHORT", sizeof(short), 33},
        {MPI_LONG, "MPI_LONG", sizeof(long), 2},
        {MPI_UNSIGNED, "MPI_UNSIGNED", sizeof(unsigned), 1},
        {MPI_2INT, "MPI_2INT", sizeof(struct two_int), 3},
        {MPI_FLOAT, "MPI_FLOAT", sizeof(float), 9},
        {MPI_BYTE, "MPI_BYTE", 1, 1000},
        {MPI_LONG_LONG_INT, "MPI_LONG_LONG_INT", sizeof(long long), 4},
        {MPI_UNSIGNED_SHORT, "MPI_UNSIGNED_SHORT", sizeof(unsigned short), 6},
        {MPI_UNSIGNED_LONG, "MPI_UNSIGNED_LONG", sizeof(unsigned long), 8},
        {MPI_LONG_DOUBLE, "MPI_LONG_DOUBLE", sizeof(long double), 3},
        {MPI_UNSIGNED_CHAR, "MPI_UNSIGNED_CHAR", 1, 70000},
        {MPI_INT, "MPI_INT", sizeof(int), 1},
    };
    memcpy(msgs, m, sizeof m);
}

static int tag_of(int k)
{
    return 10 + 3 * k;
}

/* Full status check of message k received from partner. */
static void check_status(const MPI_Status *st, int k, const char *how)
{
    char what[160];
    MPI_Status copy;
    int flag = -1;
    snprintf(what, sizeof what, "%s: message %d (%d x %s, tag %d)", how, k, msgs[k].count, msgs[k].name, tag_of(k));
    pt_expect_status(st, partner, tag_of(k), msgs[k].dt, msgs[k].count, what);
    EXPECT(st->MPI_ERROR == -77 || st->MPI_ERROR == MPI_SUCCESS,
           "%s: status.MPI_ERROR is %d after success (neither untouched nor MPI_SUCCESS)", what, st->MPI_ERROR);
    CK(MPI_Test_cancelled(st, &flag));
    EXPECT(flag == 0, "%s: MPI_Test_cancelled true", what);
    copy = *st;
    EXPECT(pt_count(&copy, msgs[k].dt) == msgs[k].count, "%s: a copied status gives a different count", what);
    CK(MPI_Test_cancelled(&copy, &flag));
    EXPECT(flag == 0, "%s: a copied status reports cancelled", what);
    if (msgs[k].dt == MPI_BYTE || msgs[k].dt == MPI_CHAR || msgs[k].dt == MPI_UNSIGNED_CHAR) {
        EXPECT(pt_count(st, MPI_BYTE) == msgs[k].count, "%s: MPI_Get_count(MPI_BYTE) = %d", what,
               pt_count(st, MPI_BYTE));
    }
}

static void check_data(const unsigned char *buf, int k, const char *how)
{
    char what[160];
    snprintf(what, sizeof what, "%s: message %d data", how, k);
    if (msgs[k].dt == MPI_LONG_DOUBLE) {
        int i;
        for (i = 0; i < msgs[k].count; i++) {
            long double v;
            memcpy(&v, buf + (size_t)i * sizeof(long double), sizeof v);
            EXPECT(v == (long double)(partner * 100 + i) + 0.5L, "%s: element %d wrong", what, i);
        }
    } else if (msgs[k].dt == MPI_FLOAT || msgs[k].dt == MPI_DOUBLE) {
        int i;
        for (i = 0; i < msgs[k].count; i++) {
            if (msgs[k].dt == MPI_FLOAT) {
                float v;
                memcpy(&v, buf + (size_t)i * sizeof v, sizeof v);
                EXPECT(v == (float)(partner * 100 + i) + 0.25f, "%s: element %d wrong", what, i);
            } else {
                double v;
                memcpy(&v, buf + (size_t)i * sizeof v, sizeof v);
                EXPECT(v == (double)(partner * 100 + i) + 0.125, "%s: element %d wrong", what, i);
            }
        }
    } else {
        pt_verify(buf, (size_t)msgs[k].count * (size_t)msgs[k].size, pt_seed(partner, pt_rank, tag_of(k), 0), what);
    }
}

static void fill_data(unsigned char *buf, int k)
{
    int i;
    if (msgs[k].dt == MPI_LONG_DOUBLE) {
        for (i = 0; i < msgs[k].count; i++) {
            long double v = (long double)(pt_rank * 100 + i) + 0.5L;
            memcpy(buf + (size_t)i * sizeof v, &v, sizeof v);
        }
    } else if (msgs[k].dt == MPI_FLOAT) {
        for (i = 0; i < msgs[k].count; i++) {
            float v = (float)(pt_rank * 100 + i) + 0.25f;
            memcpy(buf + (size_t)i * sizeof v, &v, sizeof v);
        }
    } else if (msgs[k].dt == MPI_DOUBLE) {
        for (i = 0; i < msgs[k].count; i++) {
            double v = (double)(pt_rank * 100 + i) + 0.125;
            memcpy(buf + (size_t)i * sizeof v, &v, sizeof v);
        }
    } else {
        pt_fill(buf, (size_t)msgs[k].count * (size_t)msgs[k].size, pt_seed(pt_rank, partner, tag_of(k), 0));
    }
}

static unsigned char *bufs[NMSG];

static void sender(void)
{
    MPI_Request rq[NMSG];
    MPI_Status st[NMSG];
    int k;
    pt_set_phase("sender");
    for (k = 0; k < NMSG; k++) {
        fill_data(bufs[k], k);
        CK(MPI_Isend(bufs[k], msgs[k].count, msgs[k].dt, partner, tag_of(k), MPI_COMM_WORLD, &rq[k]));
    }
    for (k = 0; k < NMSG; k++) {
        pt_status_junk(&st[k]);
    }
    CK(MPI_Waitall(NMSG, rq, st));
    for (k = 0; k < NMSG; k++) {
        int flag = -1;
        CK(MPI_Test_cancelled(&st[k], &flag));
        EXPECT(flag == 0, "status of send %d: MPI_Test_cancelled true", k);
    }
}

static void post(int k, MPI_Request *rq)
{
    CK(MPI_Irecv(bufs[k], msgs[k].count + 2, msgs[k].dt, partner, tag_of(k), MPI_COMM_WORLD, rq));
}

static void receiver(void)
{
    MPI_Status st;
    MPI_Status sts[3];
    MPI_Request rq[3];
    int k;
    int flag;
    int idx;

    pt_set_phase("status from MPI_Recv with wildcards");
    pt_status_junk(&st);
    CK(MPI_Recv(bufs[0], msgs[0].count + 2, msgs[0].dt, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    check_status(&st, 0, "MPI_Recv(ANY_SOURCE, ANY_TAG)");
    check_data(bufs[0], 0, "MPI_Recv");

    pt_set_phase("status from MPI_Wait");
    post(1, &rq[0]);
    pt_status_junk(&st);
    CK(MPI_Wait(&rq[0], &st));
    check_status(&st, 1, "MPI_Wait");
    check_data(bufs[1], 1, "MPI_Wait");

    pt_set_phase("status from MPI_Test");
    post(2, &rq[0]);
    flag = 0;
    while (!flag) {
        pt_status_junk(&st);
        CK(MPI_Test(&rq[0], &flag, &st));
    }
    check_status(&st, 2, "MPI_Test");

    pt_set_phase("status from MPI_Waitany");
    rq[0] = MPI_REQUEST_NULL;
    post(3, &rq[1]);
    pt_status_junk(&st);
    CK(MPI_Waitany(2, rq, &idx, &st));
    EXPECT(idx == 1, "MPI_Waitany index %d", idx);
    check_status(&st, 3, "MPI_Waitany");
    check_data(bufs[3], 3, "MPI_Waitany");

    pt_set_phase("status from MPI_Testany");
    post(4, &rq[0]);
    rq[1] = MPI_REQUEST_NULL;
    flag = 0;
    while (!flag) {
        pt_status_junk(&st);
        CK(MPI_Testany(2, rq, &idx, &flag, &st));
    }
    EXPECT(idx == 0, "MPI_Testany index %d", idx);
    check_status(&st, 4, "MPI_Testany");
    check_data(bufs[4], 4, "MPI_Testany");

    pt_set_phase("statuses from MPI_Waitall");
    post(5, &rq[0]);
    rq[1] = MPI_REQUEST_NULL;
    post(6, &rq[2]);
    for (k = 0; k < 3; k++) {
        pt_status_junk(&sts[k]);
    }
    CK(MPI_Waitall(3, rq, sts));
    check_status(&sts[0], 5, "MPI_Waitall");
    pt_expect_empty(&sts[1], "MPI_Waitall null entry");
    check_status(&sts[2], 6, "MPI_Waitall");
    check_data(bufs[5], 5, "MPI_Waitall");
    check_data(bufs[6], 6, "MPI_Waitall");

    pt_set_phase("statuses from MPI_Testall");
    post(7, &rq[0]);
    post(8, &rq[1]);
    flag = 0;
    while (!flag) {
        for (k = 0; k < 2; k++) {
            pt_status_junk(&sts[k]);
        }
        CK(MPI_Testall(2, rq, &flag, sts));
    }
    check_status(&sts[0], 7, "MPI_Testall");
    check_status(&sts[1], 8, "MPI_Testall");
    check_data(bufs[7], 7, "MPI_Testall");
    check_data(bufs[8], 8, "MPI_Testall");

    {
        int pass;
        for (pass = 0; pass < 2; pass++) {
            int base = pass == 0 ? 9 : 11;
            const char *fn = pass == 0 ? "MPI_Waitsome" : "MPI_Testsome";
            int done = 0;
            pt_set_phase(pass == 0 ? "statuses from MPI_Waitsome" : "statuses from MPI_Testsome");
            post(base, &rq[0]);
            post(base + 1, &rq[1]);
            while (done < 2) {
                int outcount = -1;
                int indices[2];
                for (k = 0; k < 2; k++) {
                    pt_status_junk(&sts[k]);
                }
                if (pass == 0) {
                    CK(MPI_Waitsome(2, rq, &outcount, indices, sts));
                } else {
                    CK(MPI_Testsome(2, rq, &outcount, indices, sts));
                }
                EXPECT(outcount >= 0 && outcount <= 2 - done, "%s outcount %d", fn, outcount);
                for (k = 0; k < outcount; k++) {
                    EXPECT(indices[k] == 0 || indices[k] == 1, "%s index %d", fn, indices[k]);
                    check_status(&sts[k], base + indices[k], fn);
                    check_data(bufs[base + indices[k]], base + indices[k], fn);
                }
                done += outcount;
            }
        }
    }

    pt_set_phase("status from MPI_Probe");
    pt_status_junk(&st);
    CK(MPI_Probe(partner, MPI_ANY_TAG, MPI_COMM_WORLD, &st));
    check_status(&st, 13, "MPI_Probe");
    CK(MPI_Recv(bufs[13], msgs[13].count, msgs[13].dt, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st));
    check_status(&st, 13, "MPI_Recv after MPI_Probe");
    check_data(bufs[13], 13, "MPI_Recv after MPI_Probe");

    pt_set_phase("status from MPI_Iprobe");
    flag = 0;
    while (!flag) {
        pt_status_junk(&st);
        CK(MPI_Iprobe(MPI_ANY_SOURCE, tag_of(14), MPI_COMM_WORLD, &flag, &st));
    }
    check_status(&st, 14, "MPI_Iprobe");
    CK(MPI_Recv(bufs[14], 1, MPI_INT, partner, tag_of(14), MPI_COMM_WORLD, &st));
    check_status(&st, 14, "MPI_Recv after MPI_Iprobe");
    check_data(bufs[14], 14, "MPI_Recv after MPI_Iprobe");
}

static void sendrecv_status(void)
{
    int out[40];
    int in[50];
    MPI_Status st;
    int i;
    pt_set_phase("status from MPI_Sendrecv");
    for (i = 0; i < 40; i++) {
        out[i] = pt_rank * 1000 + i;
    }
    pt_status_junk(&st);
    /* each side sends 20 + rank ints with tag 500 + rank */
    CK(MPI_Sendrecv(out, 20 + pt_rank, MPI_INT, partner, 500 + pt_rank, in, 50, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
                    MPI_COMM_WORLD, &st));
    pt_expect_status(&st, partner, 500 + partner, MPI_INT, 20 + partner, "MPI_Sendrecv");
    EXPECT(st.MPI_ERROR == -77 || st.MPI_ERROR == MPI_SUCCESS, "MPI_Sendrecv: status.MPI_ERROR %d", st.MPI_ERROR);
    for (i = 0; i < 20 + partner; i++) {
        EXPECT(in[i] == partner * 1000 + i, "MPI_Sendrecv element %d is %d", i, in[i]);
    }
    pt_set_phase("status from MPI_Sendrecv_replace");
    pt_status_junk(&st);
    CK(MPI_Sendrecv_replace(out, 30, MPI_INT, partner, 600 + pt_rank, partner, 600 + partner, MPI_COMM_WORLD, &st));
    pt_expect_status(&st, partner, 600 + partner, MPI_INT, 30, "MPI_Sendrecv_replace");
    for (i = 0; i < 30; i++) {
        EXPECT(out[i] == partner * 1000 + i, "MPI_Sendrecv_replace element %d is %d", i, out[i]);
    }
}

int main(int argc, char **argv)
{
    int rank = pt_init(&argc, &argv, "pt2pt_status");
    int role;
    int k;
    pt_require_size(2);
    init_msgs();
    partner = rank ^ 1;
    for (k = 0; k < NMSG; k++) {
        bufs[k] = (unsigned char *)pt_malloc((size_t)(msgs[k].count + 2) * (size_t)msgs[k].size);
    }
    if (partner < pt_size) {
        for (role = 0; role < 2; role++) {
            if ((rank < partner) == (role == 0)) {
                sender();
            } else {
                receiver();
            }
            CK(MPI_Barrier(MPI_COMM_WORLD));
        }
        sendrecv_status();
    } else {
        CK(MPI_Barrier(MPI_COMM_WORLD));
        CK(MPI_Barrier(MPI_COMM_WORLD));
    }
    for (k = 0; k < NMSG; k++) {
        free(bufs[k]);
    }
    return pt_finish();
}
