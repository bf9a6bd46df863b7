/* Quality of service between sites (MPIX_QOS, MPICH-GQ style), seen from a
 * program. The even ranks are at site A, the odd ones at site B (the job
 * file lays them out so, qos_test.py).
 *
 *     qos setget|refuse|capacity80|unlimited|idle [ANYTHING...]
 *     qos traffic MBIT [ANYTHING...]
 *
 * setget: the attribute's reads, replacement, deletion and refused arguments
 * (MPI_ERR_ARG), on a communicator spanning both sites and on an
 * intercommunicator between them.
 * refuse (4 processes, links of 100 Mbit/s: a premium capacity of 50 per
 * ordered pair of sites): reservations beyond what a link has left are
 * refused with MPIX_ERR_QOS through the communicator's error handler and
 * change nothing; a replacement counts only once; the capacity is the
 * site's, shared by its processes, and each direction has its own; freeing a
 * communicator or deleting the attribute gives the reservation back.
 * capacity80 (4 processes, premium_mbit=80): two reservations of 40 fit, a
 * third of 1 does not.
 * unlimited: links without a bandwidth take any reservation.
 * idle: a reservation at one site on a communicator that carries nothing,
 * then MPI_Finalize (the job must end).
 * traffic (an even number of processes, each reserving MBIT on its link to
 * the other site, three rounds): messages of 0 B to 1 MiB on one
 * communicator with the same tag, sent before the attribute is set, while it
 * is set and after it is deleted (or set to best effort), all in flight
 * together, arrive in
 * MPI's order with every byte intact, while bulk traffic runs on
 * MPI_COMM_WORLD and collectives run on the premium communicator. The site
 * B processes post their receives before anything is sent, the site A
 * processes receive after everything was sent.
 *
 * Any difference ends the job through MPI_Abort (pt2pt_common.h); rank 0
 * prints "qos: ok (N processes)" at the end. */
#include "pt2pt_common.h"

static int g_rank, g_size;

static MPIX_Qos qos_get(MPI_Comm comm)
{
    MPIX_Qos *value = NULL;
    int flag = 0;
    CK(MPI_Comm_get_attr(comm, MPIX_QOS, &value, &flag));
    EXPECT(flag == 1 && value != NULL, "MPIX_QOS is always there (flag %d)", flag);
    return *value;
}

static void expect_qos(MPI_Comm comm, int service, int mbit, const char *what)
{
    const MPIX_Qos q = qos_get(comm);
    EXPECT(q.service == service && q.mbit == mbit, "%s: MPIX_QOS reads service %d, %d Mbit/s; want %d, %d", what,
           q.service, q.mbit, service, mbit);
}

static int qos_set(MPI_Comm comm, int service, int mbit)
{
    MPIX_Qos q;
    q.service = service;
    q.mbit = mbit;
    return MPI_Comm_set_attr(comm, MPIX_QOS, &q);
}

static void premium(MPI_Comm comm, int mbit, const char *what)
{
    const int rc = qos_set(comm, MPIX_QOS_PREMIUM, mbit);
    EXPECT(rc == MPI_SUCCESS, "%s: premium %d Mbit/s refused (class %d)", what, mbit, pt_error_class(rc));
    expect_qos(comm, MPIX_QOS_PREMIUM, mbit, what);
}

/* The error handler of the communicators a refusal is expected on: it
 * records what it was called with and returns. */
static int g_handled;
static int g_handled_class;
static MPI_Comm g_handled_comm;

static void record_error(MPI_Comm *comm, int *code, ...)
{
    ++g_handled;
    g_handled_comm = *comm;
    MPI_Error_class(*code, &g_handled_class);
}

/* premium `mbit` on comm is refused with MPIX_ERR_QOS, through comm's error
 * handler, and comm's attribute reads as before. */
static void refused(MPI_Comm comm, int mbit, const char *what)
{
    const MPIX_Qos before = qos_get(comm);
    int rc;
    g_handled = 0;
    rc = qos_set(comm, MPIX_QOS_PREMIUM, mbit);
    EXPECT(pt_error_class(rc) == MPIX_ERR_QOS, "%s: premium %d Mbit/s gave class %d, want MPIX_ERR_QOS (%d)", what,
           mbit, pt_error_class(rc), MPIX_ERR_QOS);
    EXPECT(g_handled == 1 && g_handled_class == MPIX_ERR_QOS && g_handled_comm == comm,
           "%s: the communicator's error handler ran %d times (class %d)", what, g_handled, g_handled_class);
    expect_qos(comm, before.service, before.mbit, what);
}

static void handler_install(MPI_Comm comm)
{
    MPI_Errhandler h;
    CK(MPI_Comm_create_errhandler(record_error, &h));
    CK(MPI_Comm_set_errhandler(comm, h));
    CK(MPI_Errhandler_free(&h));
}

static void set_get(void)
{
    MPI_Comm both, site, inter;
    int rc, len = 0, cls = -1;
    char text[MPI_MAX_ERROR_STRING];
    MPIX_Qos bad;

    pt_set_phase("the error class");
    EXPECT(MPIX_ERR_QOS > MPI_ERR_SERVICE && MPIX_ERR_QOS <= MPI_ERR_LASTCODE, "MPIX_ERR_QOS %d, MPI_ERR_LASTCODE %d",
           MPIX_ERR_QOS, MPI_ERR_LASTCODE);
    CK(MPI_Error_class(MPIX_ERR_QOS, &cls));
    EXPECT(cls == MPIX_ERR_QOS, "MPI_Error_class(MPIX_ERR_QOS) gives %d", cls);
    CK(MPI_Error_string(MPIX_ERR_QOS, text, &len));
    EXPECT(len > 0 && (size_t)len == strlen(text), "MPIX_ERR_QOS has a message (length %d)", len);

    pt_set_phase("reads before any set");
    CK(MPI_Comm_dup(MPI_COMM_WORLD, &both));
    expect_qos(MPI_COMM_WORLD, MPIX_QOS_BEST_EFFORT, 0, "the world, never set");
    expect_qos(both, MPIX_QOS_BEST_EFFORT, 0, "a duplicate, never set");
    {
        MPIX_Qos *value = NULL;
        int flag = 0;
        CK(MPI_Attr_get(both, MPIX_QOS, &value, &flag));
        EXPECT(flag == 1 && value != NULL && value->service == MPIX_QOS_BEST_EFFORT && value->mbit == 0,
               "MPI_Attr_get reads the same (flag %d)", flag);
    }

    pt_set_phase("set, replace, delete");
    premium(both, 20, "premium 20");
    expect_qos(MPI_COMM_WORLD, MPIX_QOS_BEST_EFFORT, 0, "the world, after a set on a duplicate");
    {
        MPIX_Qos q;
        q.service = MPIX_QOS_PREMIUM;
        q.mbit = 30;
        CK(MPI_Attr_put(both, MPIX_QOS, &q));
        expect_qos(both, MPIX_QOS_PREMIUM, 30, "MPI_Attr_put of premium 30 replaces 20");
    }
    CK(MPI_Comm_delete_attr(both, MPIX_QOS));
    expect_qos(both, MPIX_QOS_BEST_EFFORT, 0, "after MPI_Comm_delete_attr");
    premium(both, 20, "premium 20 again");
    CK(qos_set(both, MPIX_QOS_BEST_EFFORT, 0));
    expect_qos(both, MPIX_QOS_BEST_EFFORT, 0, "best effort set");
    premium(both, 20, "premium 20 once more");

    pt_set_phase("refused arguments");
    CK(MPI_Comm_set_errhandler(both, MPI_ERRORS_RETURN));
    rc = qos_set(both, 7, 20);
    EXPECT(pt_error_class(rc) == MPI_ERR_ARG, "service 7: class %d, want MPI_ERR_ARG", pt_error_class(rc));
    rc = qos_set(both, MPIX_QOS_PREMIUM, 0);
    EXPECT(pt_error_class(rc) == MPI_ERR_ARG, "premium 0 Mbit/s: class %d, want MPI_ERR_ARG", pt_error_class(rc));
    rc = qos_set(both, MPIX_QOS_PREMIUM, -3);
    EXPECT(pt_error_class(rc) == MPI_ERR_ARG, "premium -3 Mbit/s: class %d, want MPI_ERR_ARG", pt_error_class(rc));
    rc = MPI_Comm_set_attr(both, MPIX_QOS, NULL);
    EXPECT(pt_error_class(rc) == MPI_ERR_ARG, "a NULL value: class %d, want MPI_ERR_ARG", pt_error_class(rc));
    bad.service = -1;
    bad.mbit = 5;
    rc = MPI_Attr_put(both, MPIX_QOS, &bad);
    EXPECT(pt_error_class(rc) == MPI_ERR_ARG, "service -1: class %d, want MPI_ERR_ARG", pt_error_class(rc));
    expect_qos(both, MPIX_QOS_PREMIUM, 20, "refused arguments changed nothing");
    CK(MPI_Comm_free(&both));

    pt_set_phase("an intercommunicator between the sites");
    CK(MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, g_rank, &site));
    CK(MPI_Intercomm_create(site, 0, MPI_COMM_WORLD, g_rank % 2 == 0 ? 1 : 0, 77, &inter));
    expect_qos(inter, MPIX_QOS_BEST_EFFORT, 0, "an intercommunicator, never set");
    premium(inter, 20, "premium 20 on an intercommunicator");
    {
        /* It carries traffic: each process swaps a number with the process
         * of the same local rank at the other site. */
        int out = 1000 + g_rank, in = -1, local = 0, remote = 0;
        CK(MPI_Comm_rank(inter, &local));
        CK(MPI_Comm_remote_size(inter, &remote));
        if (local < remote) {
            CK(MPI_Sendrecv(&out, 1, MPI_INT, local, 5, &in, 1, MPI_INT, local, 5, inter, MPI_STATUS_IGNORE));
            EXPECT(in == 1000 + 2 * local + 1 - g_rank % 2, "over the intercommunicator: %d", in);
        }
    }
    CK(MPI_Attr_delete(inter, MPIX_QOS));
    expect_qos(inter, MPIX_QOS_BEST_EFFORT, 0, "after MPI_Attr_delete on the intercommunicator");
    CK(MPI_Comm_free(&inter));
    CK(MPI_Comm_free(&site));
}

/* 4 processes, links of 100 Mbit/s: premium capacity 50 each way. Ranks 0
 * and 2 are at site A, 1 and 3 at site B. */
static void refuse(void)
{
    MPI_Comm c[4];
    int i;
    pt_require_size(4);
    for (i = 0; i < 4; ++i) {
        CK(MPI_Comm_dup(MPI_COMM_WORLD, &c[i]));
        handler_install(c[i]);
    }

    pt_set_phase("one sender, two communicators");
    if (g_rank == 0) {
        premium(c[0], 40, "premium 40");
        refused(c[1], 20, "premium 20 beside 40, of 50");
        expect_qos(c[0], MPIX_QOS_PREMIUM, 40, "the first reservation stays");
        premium(c[1], 10, "premium 10 beside 40: exactly what is left");
        refused(c[1], 11, "premium 11 instead of 10 beside 40");
        CK(qos_set(c[1], MPIX_QOS_BEST_EFFORT, 0));
        expect_qos(c[1], MPIX_QOS_BEST_EFFORT, 0, "best effort instead of premium 10");
        premium(c[0], 50, "premium 50 instead of 40: a replacement counts once");
        refused(c[0], 51, "premium 51 instead of 50");
        premium(c[0], 40, "premium 40 instead of 50");
    }
    CK(MPI_Barrier(MPI_COMM_WORLD));

    pt_set_phase("another process of the same site");
    if (g_rank == 2) {
        refused(c[1], 20, "premium 20 from site A's other process, beside rank 0's 40");
        premium(c[1], 10, "premium 10 from site A's other process");
    }
    CK(MPI_Barrier(MPI_COMM_WORLD));

    pt_set_phase("the other direction");
    if (g_rank == 1) premium(c[0], 50, "premium 50 from site B: a link of its own");
    CK(MPI_Barrier(MPI_COMM_WORLD));
    if (g_rank == 3) refused(c[1], 1, "premium 1 from site B's other process, beside 50");
    if (g_rank == 0) refused(c[1], 1, "premium 1 from site A, beside 40 and 10");
    CK(MPI_Barrier(MPI_COMM_WORLD));
    if (g_rank == 2) CK(qos_set(c[1], MPIX_QOS_BEST_EFFORT, 0));
    CK(MPI_Barrier(MPI_COMM_WORLD));

    pt_set_phase("released by MPI_Comm_free");
    if (g_rank == 0) refused(c[2], 20, "premium 20 beside 40");
    CK(MPI_Comm_free(&c[0]));
    CK(MPI_Barrier(MPI_COMM_WORLD)); /* every process has freed it */
    if (g_rank == 0) premium(c[2], 20, "premium 20 once the 40's communicator is freed");

    pt_set_phase("released by deleting the attribute");
    if (g_rank == 0) {
        refused(c[3], 40, "premium 40 beside 20");
        CK(MPI_Comm_delete_attr(c[2], MPIX_QOS));
        expect_qos(c[2], MPIX_QOS_BEST_EFFORT, 0, "after MPI_Comm_delete_attr");
        premium(c[3], 40, "premium 40 once the 20 is deleted");
        CK(MPI_Attr_delete(c[3], MPIX_QOS));
        premium(c[2], 50, "premium 50 once the 40 is deleted (MPI_Attr_delete)");
    }
    if (g_rank == 3) premium(c[2], 50, "premium 50 from site B once rank 1's communicator is freed");
    for (i = 1; i < 4; ++i) CK(MPI_Comm_free(&c[i]));
}

/* 4 processes, premium_mbit=80. */
static void capacity80(void)
{
    MPI_Comm c[3];
    int i;
    pt_require_size(4);
    for (i = 0; i < 3; ++i) {
        CK(MPI_Comm_dup(MPI_COMM_WORLD, &c[i]));
        handler_install(c[i]);
    }
    pt_set_phase("premium capacity 80");
    if (g_rank == 0) {
        premium(c[0], 40, "premium 40 of 80");
        premium(c[1], 40, "a second premium 40 of 80");
        refused(c[2], 1, "premium 1 beside 40 and 40");
    }
    CK(MPI_Barrier(MPI_COMM_WORLD));
    if (g_rank == 2) refused(c[0], 1, "premium 1 from site A's other process, beside 80");
    if (g_rank == 1) premium(c[0], 80, "premium 80 from site B");
    /* MPI_Comm_free need not wait for the others: rank 0 keeps its 80 until
     * rank 2 has tried. */
    CK(MPI_Barrier(MPI_COMM_WORLD));
    for (i = 0; i < 3; ++i) CK(MPI_Comm_free(&c[i]));
}

/* A reservation at site B only, on a communicator that never carries
 * anything: kept to MPI_Finalize by ranks 1, 5, ..., freed first by ranks
 * 3, 7, .... */
static void idle(void)
{
    MPI_Comm c;
    pt_set_phase("a premium communicator that carries nothing");
    CK(MPI_Comm_dup(MPI_COMM_WORLD, &c));
    if (g_rank % 2 == 1) premium(c, 10, "premium 10, never used");
    if (g_rank % 4 == 3) CK(MPI_Comm_free(&c));
}

/* Links without a bandwidth: no limit. */
static void unlimited(void)
{
    MPI_Comm c[2];
    int i;
    for (i = 0; i < 2; ++i) CK(MPI_Comm_dup(MPI_COMM_WORLD, &c[i]));
    pt_set_phase("no limit");
    premium(c[0], 1000, "premium 1000");
    premium(c[1], 100000, "premium 100000 beside 1000");
    for (i = 0; i < 2; ++i) CK(MPI_Comm_free(&c[i]));
}

/* ------------------------------------------------------------------------ */
/* Traffic                                                                   */

enum { TAG = 40, BULK_TAG = 41, BULK = 4, BULK_BYTES = 1 << 20 };
static const size_t k_sizes[] = {0, 1, 8, 100, 1000, 4096, 65535, 65536, 65537, 100000, 262144, 300007, 1 << 20};
#define NSIZES (sizeof k_sizes / sizeof k_sizes[0])
#define PHASES 3 /* before the set, while set, after the delete */
#define BCAST_BYTES (1 << 20)
#define ROOM 64 /* a receive takes this much more than its message: a larger one shows */

/* Message i of phase p from `src`: k_sizes[i] bytes of a pattern of
 * (src, p, i); the first 4 bytes, when there is room, are p * NSIZES + i. */
static void fill(unsigned char *buf, int src, int p, int i)
{
    const int number = p * (int)NSIZES + i;
    pt_fill(buf, k_sizes[i], pt_seed(src, p, TAG, i));
    if (k_sizes[i] >= sizeof number) memcpy(buf, &number, sizeof number);
}

static void verify(const unsigned char *buf, int count, int src, int p, int i)
{
    const int number = p * (int)NSIZES + i;
    unsigned char *want = pt_malloc(k_sizes[i]);
    int got = -1;
    EXPECT((size_t)count == k_sizes[i], "phase %d, message %d from rank %d: %d bytes, want %lu (overtaken?)", p, i,
           src, count, (unsigned long)k_sizes[i]);
    if (k_sizes[i] >= sizeof number) {
        memcpy(&got, buf, sizeof got);
        EXPECT(got == number, "from rank %d, message %d came as number %d: overtaken", src, number, got);
    }
    fill(want, src, p, i);
    EXPECT(memcmp(want, buf, k_sizes[i]) == 0, "phase %d, message %d (%lu bytes) from rank %d differs", p, i,
           (unsigned long)k_sizes[i], src);
    free(want);
}

/* Collectives on the premium communicator: MPI_Bcast of 1 MiB from every
 * root, MPI_Allreduce of 100003 doubles. */
static void collectives(MPI_Comm comm, int round)
{
    const int n = 100003;
    unsigned char *b = pt_malloc(BCAST_BYTES);
    double *x = pt_malloc(sizeof(double) * (size_t)n), *y = pt_malloc(sizeof(double) * (size_t)n);
    int root, i;
    for (root = 0; root < g_size; ++root) {
        if (g_rank == root)
            pt_fill(b, BCAST_BYTES, pt_seed(root, round, 500, 0));
        else
            memset(b, 0xee, BCAST_BYTES);
        CK(MPI_Bcast(b, BCAST_BYTES, MPI_BYTE, root, comm));
        pt_verify(b, BCAST_BYTES, pt_seed(root, round, 500, 0), "a broadcast on the premium communicator");
    }
    for (i = 0; i < n; ++i) x[i] = (double)((i + g_rank * 7 + round) % 1000);
    CK(MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, comm));
    for (i = 0; i < n; ++i) {
        double want = 0;
        int r;
        for (r = 0; r < g_size; ++r) want += (double)((i + r * 7 + round) % 1000);
        EXPECT(y[i] == want, "allreduce element %d: %g, want %g", i, y[i], want);
    }
    free(b);
    free(x);
    free(y);
}

/* The buffers of one traffic run: three phases of messages on the premium
 * communicator and the bulk stream on MPI_COMM_WORLD. */
struct traffic_buffers {
    unsigned char *out[PHASES][NSIZES], *in[PHASES][NSIZES];
    unsigned char *bulk_out[BULK], *bulk_in[BULK];
};

static void buffers_make(struct traffic_buffers *b, int peer)
{
    int p, i, k;
    for (p = 0; p < PHASES; ++p)
        for (i = 0; i < (int)NSIZES; ++i) {
            b->out[p][i] = pt_malloc(k_sizes[i]);
            b->in[p][i] = pt_malloc(k_sizes[i] + ROOM);
            fill(b->out[p][i], g_rank, p, i);
        }
    for (k = 0; k < BULK; ++k) {
        b->bulk_out[k] = pt_malloc(BULK_BYTES);
        b->bulk_in[k] = pt_malloc(BULK_BYTES);
        pt_fill(b->bulk_out[k], BULK_BYTES, pt_seed(g_rank, peer, BULK_TAG, k));
    }
}

static void buffers_free(struct traffic_buffers *b)
{
    int p, i, k;
    for (p = 0; p < PHASES; ++p)
        for (i = 0; i < (int)NSIZES; ++i) {
            free(b->out[p][i]);
            free(b->in[p][i]);
        }
    for (k = 0; k < BULK; ++k) {
        free(b->bulk_out[k]);
        free(b->bulk_in[k]);
    }
}

/* Site B posted its receives before the barrier: wait for them all; site A
 * receives one by one, some with MPI_ANY_TAG. Either way in sending order. */
static void receive_in_order(struct traffic_buffers *b, MPI_Comm comm, int peer, int early, MPI_Request *recvs)
{
    MPI_Status st[PHASES * NSIZES];
    int p, i;
    if (early) CK(MPI_Waitall(PHASES * (int)NSIZES, recvs, st));
    for (p = 0; p < PHASES; ++p)
        for (i = 0; i < (int)NSIZES; ++i) {
            MPI_Status s;
            if (early)
                s = st[p * NSIZES + i];
            else
                CK(MPI_Recv(b->in[p][i], (int)k_sizes[i] + ROOM, MPI_BYTE, peer, i % 3 == 1 ? MPI_ANY_TAG : TAG,
                            comm, &s));
            verify(b->in[p][i], pt_count(&s, MPI_BYTE), peer, p, i);
        }
}

static void send_phase(struct traffic_buffers *b, MPI_Comm comm, int peer, int p, MPI_Request *sends)
{
    int i;
    for (i = 0; i < (int)NSIZES; ++i)
        CK(MPI_Isend(b->out[p][i], (int)k_sizes[i], MPI_BYTE, peer, TAG, comm, &sends[p * NSIZES + i]));
}

static void traffic_round(struct traffic_buffers *b, MPI_Comm comm, int mbit, int round)
{
    const int peer = g_rank ^ 1; /* at the other site */
    const int early = g_rank % 2 == 1; /* site B posts its receives first */
    MPI_Request sends[PHASES * NSIZES], recvs[PHASES * NSIZES], bulk[2 * BULK];
    int p, i, k;
    pt_set_phase("bulk traffic on MPI_COMM_WORLD");
    for (k = 0; k < BULK; ++k) {
        CK(MPI_Irecv(b->bulk_in[k], BULK_BYTES, MPI_BYTE, peer, BULK_TAG, MPI_COMM_WORLD, &bulk[k]));
        CK(MPI_Isend(b->bulk_out[k], BULK_BYTES, MPI_BYTE, peer, BULK_TAG, MPI_COMM_WORLD, &bulk[BULK + k]));
    }
    if (early)
        for (p = 0; p < PHASES; ++p)
            for (i = 0; i < (int)NSIZES; ++i)
                CK(MPI_Irecv(b->in[p][i], (int)k_sizes[i] + ROOM, MPI_BYTE, peer, i % 3 == 2 ? MPI_ANY_TAG : TAG,
                             comm, &recvs[p * NSIZES + i]));
    CK(MPI_Barrier(comm));

    pt_set_phase("messages before the set");
    send_phase(b, comm, peer, 0, sends);
    pt_set_phase("messages while premium");
    premium(comm, mbit, "premium on the traffic's communicator");
    send_phase(b, comm, peer, 1, sends);
    pt_set_phase("collectives on the premium communicator");
    collectives(comm, round);
    pt_set_phase("messages after the delete");
    CK(round % 2 == 0 ? MPI_Comm_delete_attr(comm, MPIX_QOS) : qos_set(comm, MPIX_QOS_BEST_EFFORT, 0));
    expect_qos(comm, MPIX_QOS_BEST_EFFORT, 0, "after the delete");
    send_phase(b, comm, peer, 2, sends);

    pt_set_phase("receiving in order");
    receive_in_order(b, comm, peer, early, recvs);
    CK(MPI_Waitall(PHASES * (int)NSIZES, sends, MPI_STATUSES_IGNORE));
    pt_set_phase("bulk traffic's end");
    CK(MPI_Waitall(2 * BULK, bulk, MPI_STATUSES_IGNORE));
    for (k = 0; k < BULK; ++k) pt_verify(b->bulk_in[k], BULK_BYTES, pt_seed(peer, g_rank, BULK_TAG, k), "bulk");
}

static void traffic(int mbit, int rounds)
{
    struct traffic_buffers *b = pt_malloc(sizeof *b);
    MPI_Comm comm;
    int round;
    if (g_size % 2 != 0) pt_fail("traffic needs an even number of processes");
    CK(MPI_Comm_dup(MPI_COMM_WORLD, &comm));
    buffers_make(b, g_rank ^ 1);
    for (round = 0; round < rounds; ++round) traffic_round(b, comm, mbit, round);
    buffers_free(b);
    free(b);
    CK(MPI_Comm_free(&comm));
}

int main(int argc, char **argv)
{
    g_rank = pt_init(&argc, &argv, "qos");
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    pt_require_size(2);
    if (argc < 2) pt_fail("usage: qos setget|refuse|capacity80|unlimited|idle|traffic MBIT [ANYTHING...]");
    if (strcmp(argv[1], "setget") == 0) {
        set_get();
    } else if (strcmp(argv[1], "refuse") == 0) {
        refuse();
    } else if (strcmp(argv[1], "capacity80") == 0) {
        capacity80();
    } else if (strcmp(argv[1], "unlimited") == 0) {
        unlimited();
    } else if (strcmp(argv[1], "idle") == 0) {
        idle();
    } else if (strcmp(argv[1], "traffic") == 0) {
        if (argc < 3) pt_fail("usage: qos traffic MBIT [ANYTHING...]");
        traffic(atoi(argv[2]), 3);
    } else {
        pt_fail("unknown mode '%s'", argv[1]);
    }
    return pt_finish();
}
