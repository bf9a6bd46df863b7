/* pt2pt_environment: MPI environment calls as point-to-point relies on them.
 *
 * - MPI_Initialized before (false) and after (true) MPI_Init.
 * - MPI_Get_version matches the header (and is 1.3 for Strata).
 * - MPI_Wtick > 0; MPI_Wtime never goes backwards and advances across a sleep.
 * - MPI_Get_processor_name: a non-empty name of the reported length.
 * - MPI_Comm_size/MPI_Comm_rank on MPI_COMM_WORLD (every rank distinct, all
 *   agree on the size, checked by hand with point-to-point) and on
 *   MPI_COMM_SELF (size 1, rank 0).
 * - Messages to self on MPI_COMM_SELF and on MPI_COMM_WORLD, and that the two
 *   communicators are separate communication contexts.
 */
#include "pt2pt_common.h"

#include <math.h>

static void check_version(void)
{
    int version = -1;
    int subversion = -1;
    pt_set_phase("Get_version");
    CK(MPI_Get_version(&version, &subversion));
    EXPECT(version == MPI_VERSION && subversion == MPI_SUBVERSION,
           "MPI_Get_version gives %d.%d, header says %d.%d", version, subversion, MPI_VERSION,
           MPI_SUBVERSION);
#ifdef STRATA_VERSION
    EXPECT(version == 1 && subversion == 3, "MPI_Get_version gives %d.%d, expected 1.3", version,
           subversion);
#endif
}

static void check_time(void)
{
    double tick;
    double t0;
    double prev;
    double t1;
    int i;
    pt_set_phase("Wtime/Wtick");
    tick = MPI_Wtick();
    EXPECT(tick > 0.0 && tick <= 1.0 && isfinite(tick), "MPI_Wtick() = %g, expected 0 < tick <= 1 s",
           tick);
    t0 = MPI_Wtime();
    EXPECT(isfinite(t0), "MPI_Wtime() is not finite");
    prev = t0;
    for (i = 0; i < 200000; i++) {
        double t = MPI_Wtime();
        EXPECT(t >= prev, "MPI_Wtime went backwards: %.9f after %.9f (call %d)", t, prev, i);
        prev = t;
    }
    t0 = MPI_Wtime();
    pt_sleep_ms(50);
    t1 = MPI_Wtime();
    /* The sleep lasts at least 50 ms; allow for one tick of resolution. */
    EXPECT(t1 - t0 >= 0.050 - tick - 1e-6, "MPI_Wtime advanced %.6f s across a 50 ms sleep", t1 - t0);
}

static void check_processor_name(void)
{
    char name[MPI_MAX_PROCESSOR_NAME + 1];
    char again[MPI_MAX_PROCESSOR_NAME + 1];
    int len = -1;
    int len2 = -1;
    int i;
    pt_set_phase("Get_processor_name");
    memset(name, 0, sizeof name);
    memset(again, 0, sizeof again);
    CK(MPI_Get_processor_name(name, &len));
    EXPECT(len > 0 && len < MPI_MAX_PROCESSOR_NAME, "processor name length %d out of range 1..%d", len,
           MPI_MAX_PROCESSOR_NAME - 1);
    for (i = 0; i < len; i++) {
        EXPECT(name[i] != '\0', "processor name has a NUL at %d, inside its length %d", i, len);
    }
    CK(MPI_Get_processor_name(again, &len2));
    EXPECT(len2 == len && memcmp(name, again, (size_t)len) == 0,
           "processor name differs between two calls ('%s' vs '%s')", name, again);
}

static void check_world(int rank, int size)
{
    int me[2];
    int i;
    pt_set_phase("COMM_WORLD size/rank");
    EXPECT(size >= 2, "MPI_COMM_WORLD size %d, tests are run with at least 2", size);
    EXPECT(rank >= 0 && rank < size, "rank %d outside 0..%d", rank, size - 1);
    me[0] = rank;
    me[1] = size;
    if (rank == 0) {
        /* Gather by hand: every other rank reports (rank, size). */
        char *seen = (char *)pt_malloc((size_t)size);
        memset(seen, 0, (size_t)size);
        seen[0] = 1;
        for (i = 1; i < size; i++) {
            int got[2];
            MPI_Status st;
            CK(MPI_Recv(got, 2, MPI_INT, MPI_ANY_SOURCE, 1, MPI_COMM_WORLD, &st));
            EXPECT(got[0] == st.MPI_SOURCE, "rank %d says its rank is %d", st.MPI_SOURCE, got[0]);
            EXPECT(got[1] == size, "rank %d says the size is %d, rank 0 says %d", got[0], got[1], size);
            EXPECT(got[0] > 0 && got[0] < size && !seen[got[0]], "rank %d reported twice or out of range",
                   got[0]);
            seen[got[0]] = 1;
        }
        free(seen);
    } else {
        CK(MPI_Send(me, 2, MPI_INT, 0, 1, MPI_COMM_WORLD));
    }
}

static void check_self(int wrank)
{
    int size = -1;
    int rank = -1;
    int out[4];
    int in[4];
    MPI_Request rq;
    MPI_Request wq;
    MPI_Status st;
    int flag = -1;
    int i;

    pt_set_phase("COMM_SELF size/rank");
    CK(MPI_Comm_size(MPI_COMM_SELF, &size));
    CK(MPI_Comm_rank(MPI_COMM_SELF, &rank));
    EXPECT(size == 1, "MPI_COMM_SELF size is %d", size);
    EXPECT(rank == 0, "MPI_COMM_SELF rank is %d", rank);

    pt_set_phase("COMM_SELF Isend+Recv to self");
    for (i = 0; i < 4; i++) {
        out[i] = wrank * 100 + i;
        in[i] = -1;
    }
    CK(MPI_Isend(out, 4, MPI_INT, 0, 7, MPI_COMM_SELF, &rq));
    CK(MPI_Recv(in, 4, MPI_INT, 0, 7, MPI_COMM_SELF, &st));
    CK(MPI_Wait(&rq, &st));
    EXPECT(rq == MPI_REQUEST_NULL, "request not MPI_REQUEST_NULL after MPI_Wait");
    for (i = 0; i < 4; i++) {
        EXPECT(in[i] == wrank * 100 + i, "self message on COMM_SELF element %d: got %d", i, in[i]);
    }

    pt_set_phase("COMM_SELF Irecv+Send to self");
    for (i = 0; i < 4; i++) {
        in[i] = -1;
    }
    CK(MPI_Irecv(in, 4, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &rq));
    CK(MPI_Send(out, 3, MPI_INT, 0, 9, MPI_COMM_SELF));
    CK(MPI_Wait(&rq, &st));
    pt_expect_status(&st, 0, 9, MPI_INT, 3, "COMM_SELF receive from self");
    for (i = 0; i < 3; i++) {
        EXPECT(in[i] == out[i], "COMM_SELF Irecv element %d: got %d, expected %d", i, in[i], out[i]);
    }
    EXPECT(in[3] == -1, "COMM_SELF Irecv wrote past the 3-element message");

    pt_set_phase("COMM_SELF and COMM_WORLD are separate contexts");
    /* A receive posted on COMM_WORLD for a message from myself must not be
     * satisfied by a message sent to myself on COMM_SELF with the same tag. */
    for (i = 0; i < 4; i++) {
        in[i] = -1;
    }
    CK(MPI_Irecv(in, 4, MPI_INT, wrank, 11, MPI_COMM_WORLD, &wq));
    {
        int selfbuf[4] = {-2, -2, -2, -2};
        int selfout[4] = {5, 6, 7, 8};
        MPI_Request sq;
        CK(MPI_Isend(selfout, 4, MPI_INT, 0, 11, MPI_COMM_SELF, &sq));
        CK(MPI_Recv(selfbuf, 4, MPI_INT, 0, 11, MPI_COMM_SELF, &st));
        CK(MPI_Wait(&sq, &st));
        EXPECT(selfbuf[0] == 5 && selfbuf[3] == 8, "COMM_SELF message corrupted");
    }
    CK(MPI_Test(&wq, &flag, &st));
    EXPECT(flag == 0, "a COMM_WORLD receive was satisfied by a COMM_SELF message");
    EXPECT(in[0] == -1, "COMM_WORLD receive buffer modified by a COMM_SELF message");

    pt_set_phase("COMM_WORLD Isend to self");
    CK(MPI_Send(out, 4, MPI_INT, wrank, 11, MPI_COMM_WORLD));
    CK(MPI_Wait(&wq, &st));
    pt_expect_status(&st, wrank, 11, MPI_INT, 4, "COMM_WORLD receive from self");
    for (i = 0; i < 4; i++) {
        EXPECT(in[i] == out[i], "COMM_WORLD self message element %d: got %d", i, in[i]);
    }

    pt_set_phase("COMM_SELF Sendrecv with self");
    for (i = 0; i < 4; i++) {
        in[i] = -1;
    }
    CK(MPI_Sendrecv(out, 4, MPI_INT, 0, 3, in, 4, MPI_INT, 0, 3, MPI_COMM_SELF, &st));
    pt_expect_status(&st, 0, 3, MPI_INT, 4, "COMM_SELF Sendrecv");
    for (i = 0; i < 4; i++) {
        EXPECT(in[i] == out[i], "COMM_SELF Sendrecv element %d: got %d", i, in[i]);
    }
}

int main(int argc, char **argv)
{
    int flag = -1;
    int rank;
    int size;

    pt_test_name = "pt2pt_environment";
    CK(MPI_Initialized(&flag));
    EXPECT(flag == 0, "MPI_Initialized reports %d before MPI_Init", flag);

    rank = pt_init(&argc, &argv, "pt2pt_environment");
    size = pt_size;

    pt_set_phase("Initialized after Init");
    flag = -1;
    CK(MPI_Initialized(&flag));
    EXPECT(flag != 0, "MPI_Initialized reports false after MPI_Init");

    check_version();
    check_time();
    check_processor_name();
    check_world(rank, size);
    check_self(rank);

    /* MPI_Initialized stays true until MPI_Finalize (calls after MPI_Finalize
     * are not allowed by MPI-1.3, so that side is not tested). */
    pt_set_phase("Initialized before Finalize");
    flag = -1;
    CK(MPI_Initialized(&flag));
    EXPECT(flag != 0, "MPI_Initialized reports false before MPI_Finalize");
    return pt_finish();
}
