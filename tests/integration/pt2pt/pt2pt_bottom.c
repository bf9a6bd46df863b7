/* MPI_BOTTOM in every point-to-point call: buffers given as MPI_BOTTOM with
 * datatypes of absolute addresses (see bottom_common.h) on the send side, the
 * receive side, and both, in each send mode (blocking, nonblocking and
 * persistent), each receive, MPI_Sendrecv, MPI_Sendrecv_replace, and
 * MPI_Pack/MPI_Unpack. Each process sends to the next rank and receives from
 * the previous one (itself when alone); every byte of both areas is checked
 * after each exchange: the data where it belongs, the gaps untouched.
 *
 * Last, a NULL buffer whose datatype's data starts at its origin (MPI_INT, a
 * contiguous type) is still MPI_ERR_BUFFER. */
#include "bottom_common.h"

#define N 3 /* elements per message */

static int me, np, next, prev;
static bt_area S, R;
static bt_region *want_s, *want_r;
static char what[200];

static const int kind_pairs[][2] = {{BT_SPREAD, BT_SPREAD}, {BT_BLOCK, BT_BLOCK}, {BT_MIXED, BT_MIXED},
                                    {BT_SPREAD, BT_BLOCK},  {BT_BLOCK, BT_SPREAD}};
static const int bottom_sides[][2] = {{1, 0}, {0, 1}, {1, 1}};

enum { V_SEND, V_BSEND, V_SSEND, V_RSEND, V_ISEND, V_IBSEND, V_ISSEND, V_IRSEND, V_SEND_INIT, V_BSEND_INIT,
       V_SSEND_INIT, V_RSEND_INIT, V_SENDS };
static const char *const send_name[V_SENDS] = {
    "MPI_Send",  "MPI_Bsend",  "MPI_Ssend",  "MPI_Rsend",     "MPI_Isend",      "MPI_Ibsend",
    "MPI_Issend", "MPI_Irsend", "MPI_Send_init", "MPI_Bsend_init", "MPI_Ssend_init", "MPI_Rsend_init"};

static void name(const char *call, int sk, int rk, int sa, int ra)
{
    snprintf(what, sizeof what, "%s, send %s%s, receive %s%s", call, bt_kind_name[sk], sa ? " at MPI_BOTTOM" : "",
             bt_kind_name[rk], ra ? " at MPI_BOTTOM" : "");
    pt_set_phase(what);
}

static uint32_t seed(int src, int dst, int tag) { return pt_seed(src, dst, tag, 0); }

/* Clears both areas, puts this process's message in S and says what the
 * areas must hold after the exchange. */
static void begin(int sk, int rk, int tag)
{
    bt_clear(S.mem);
    bt_clear(R.mem);
    bt_clear(want_s);
    bt_clear(want_r);
    bt_fill(S.mem, sk, 0, N, seed(me, next, tag), 0);
    bt_fill(want_s, sk, 0, N, seed(me, next, tag), 0);
    bt_fill(want_r, rk, 0, N, seed(prev, me, tag), 0);
}

/* Expect an MPI call to fail with error class cls (MPI_ERRORS_RETURN). */
#define EXPECT_CLASS(call, cls)                                                                                  \
    do {                                                                                                         \
        int rc_ = (call);                                                                                        \
        EXPECT(rc_ != MPI_SUCCESS, "line %d: %s succeeded, expected class %d", __LINE__, #call, (cls));        \
        EXPECT(pt_error_class(rc_) == (cls), "line %d: %s gave class %d, expected %d", __LINE__, #call,         \
               pt_error_class(rc_), (cls));                                                                      \
    } while (0)

static void compare(void) { bt_compare_areas(S.mem, want_s, R.mem, want_r, what); }

/* The received message's status, then both areas. */
static void end(const MPI_Status *st, MPI_Datatype rtype, int tag)
{
    pt_expect_status(st, prev, tag, rtype, N, what);
    compare();
}

/* One send call of variant v to `next`, complete when it returns. */
static void send_variant(int v, const void *buf, MPI_Datatype type, int tag)
{
    MPI_Request rq;
    switch (v) {
    case V_SEND: CK(MPI_Send(buf, N, type, next, tag, MPI_COMM_WORLD)); return;
    case V_BSEND: CK(MPI_Bsend(buf, N, type, next, tag, MPI_COMM_WORLD)); return;
    case V_SSEND: CK(MPI_Ssend(buf, N, type, next, tag, MPI_COMM_WORLD)); return;
    case V_RSEND: CK(MPI_Rsend(buf, N, type, next, tag, MPI_COMM_WORLD)); return;
    case V_ISEND: CK(MPI_Isend(buf, N, type, next, tag, MPI_COMM_WORLD, &rq)); break;
    case V_IBSEND: CK(MPI_Ibsend(buf, N, type, next, tag, MPI_COMM_WORLD, &rq)); break;
    case V_ISSEND: CK(MPI_Issend(buf, N, type, next, tag, MPI_COMM_WORLD, &rq)); break;
    case V_IRSEND: CK(MPI_Irsend(buf, N, type, next, tag, MPI_COMM_WORLD, &rq)); break;
    case V_SEND_INIT: CK(MPI_Send_init(buf, N, type, next, tag, MPI_COMM_WORLD, &rq)); break;
    case V_BSEND_INIT: CK(MPI_Bsend_init(buf, N, type, next, tag, MPI_COMM_WORLD, &rq)); break;
    case V_SSEND_INIT: CK(MPI_Ssend_init(buf, N, type, next, tag, MPI_COMM_WORLD, &rq)); break;
    default: CK(MPI_Rsend_init(buf, N, type, next, tag, MPI_COMM_WORLD, &rq)); break;
    }
    if (v >= V_SEND_INIT) CK(MPI_Start(&rq));
    CK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    if (v >= V_SEND_INIT) CK(MPI_Request_free(&rq));
}

/* Each send call against a receive posted before it (MPI_Irecv; the barrier
 * makes it so for the ready modes). */
static void sends(int sk, int rk, int sa, int ra)
{
    int v;
    for (v = 0; v < V_SENDS; v++) {
        const int tag = 10 + v;
        MPI_Request rq;
        MPI_Status st;
        name(send_name[v], sk, rk, sa, ra);
        begin(sk, rk, tag);
        CK(MPI_Irecv(bt_buf(&R, ra), N, bt_dt(&R, rk, ra), prev, tag, MPI_COMM_WORLD, &rq));
        CK(MPI_Barrier(MPI_COMM_WORLD));
        send_variant(v, bt_buf(&S, sa), bt_dt(&S, sk, sa), tag);
        CK(MPI_Wait(&rq, &st));
        end(&st, bt_dt(&R, rk, ra), tag);
        /* The next exchange reuses the areas: all must be done with them. */
        CK(MPI_Barrier(MPI_COMM_WORLD));
    }
}

/* Each receive call against an MPI_Isend. */
static void receives(int sk, int rk, int sa, int ra)
{
    MPI_Request sq, rq;
    MPI_Status st;
    int round;

    name("MPI_Recv", sk, rk, sa, ra);
    begin(sk, rk, 30);
    CK(MPI_Isend(bt_buf(&S, sa), N, bt_dt(&S, sk, sa), next, 30, MPI_COMM_WORLD, &sq));
    CK(MPI_Recv(bt_buf(&R, ra), N, bt_dt(&R, rk, ra), prev, 30, MPI_COMM_WORLD, &st));
    CK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
    end(&st, bt_dt(&R, rk, ra), 30);
    CK(MPI_Barrier(MPI_COMM_WORLD));

    name("MPI_Recv_init + MPI_Start (twice)", sk, rk, sa, ra);
    CK(MPI_Recv_init(bt_buf(&R, ra), N, bt_dt(&R, rk, ra), prev, 31, MPI_COMM_WORLD, &rq));
    for (round = 0; round < 2; round++) {
        begin(sk, rk, 31);
        CK(MPI_Start(&rq));
        CK(MPI_Isend(bt_buf(&S, sa), N, bt_dt(&S, sk, sa), next, 31, MPI_COMM_WORLD, &sq));
        CK(MPI_Wait(&rq, &st));
        CK(MPI_Wait(&sq, MPI_STATUS_IGNORE));
        end(&st, bt_dt(&R, rk, ra), 31);
        CK(MPI_Barrier(MPI_COMM_WORLD));
    }
    CK(MPI_Request_free(&rq));

    name("MPI_Sendrecv", sk, rk, sa, ra);
    begin(sk, rk, 32);
    CK(MPI_Sendrecv(bt_buf(&S, sa), N, bt_dt(&S, sk, sa), next, 32, bt_buf(&R, ra), N, bt_dt(&R, rk, ra), prev, 32,
                    MPI_COMM_WORLD, &st));
    end(&st, bt_dt(&R, rk, ra), 32);
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

/* MPI_Sendrecv_replace: one buffer, so one datatype, both sides MPI_BOTTOM. */
static void replace(int kind)
{
    MPI_Status st;
    name("MPI_Sendrecv_replace", kind, kind, 1, 1);
    begin(kind, kind, 33);
    bt_clear(want_s);
    bt_fill(want_s, kind, 0, N, seed(prev, me, 33), 0);
    bt_clear(want_r);
    CK(MPI_Sendrecv_replace(MPI_BOTTOM, N, S.abs[kind], next, 33, prev, 33, MPI_COMM_WORLD, &st));
    end(&st, S.abs[kind], 33);
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

/* MPI_Pack from, and MPI_Unpack into, MPI_BOTTOM; the packed bytes cross to
 * the next process as MPI_PACKED. */
static void pack(int sk, int rk, int sa, int ra)
{
    char out[256], in[256], ref[256];
    int size = 0, pos = 0, ref_pos = 0, packed;
    MPI_Status st;
    name("MPI_Pack/MPI_Unpack", sk, rk, sa, ra);
    begin(sk, rk, 34);
    CK(MPI_Pack_size(N, bt_dt(&S, sk, sa), MPI_COMM_WORLD, &size));
    EXPECT(size > 0 && size <= (int)sizeof out, "%s: MPI_Pack_size gives %d", what, size);
    CK(MPI_Pack(bt_buf(&S, sa), N, bt_dt(&S, sk, sa), out, (int)sizeof out, &pos, MPI_COMM_WORLD));
    /* The same elements through the other type pack the same bytes. */
    CK(MPI_Pack(bt_buf(&S, !sa), N, bt_dt(&S, sk, !sa), ref, (int)sizeof ref, &ref_pos, MPI_COMM_WORLD));
    EXPECT(pos == ref_pos && memcmp(out, ref, (size_t)pos) == 0,
           "%s: packing from MPI_BOTTOM and from the area differ (%d and %d bytes)", what, pos, ref_pos);
    CK(MPI_Sendrecv(out, pos, MPI_PACKED, next, 34, in, (int)sizeof in, MPI_PACKED, prev, 34, MPI_COMM_WORLD, &st));
    pt_expect_status(&st, prev, 34, MPI_PACKED, pos, what);
    packed = pos;
    pos = 0;
    CK(MPI_Unpack(in, (int)sizeof in, &pos, bt_buf(&R, ra), N, bt_dt(&R, rk, ra), MPI_COMM_WORLD));
    EXPECT(pos == packed, "%s: MPI_Unpack used %d of the %d packed bytes", what, pos, packed);
    compare();
    CK(MPI_Barrier(MPI_COMM_WORLD));
}

static void errors(void)
{
    int a[4] = {1, 2, 3, 4}, pos = 0;
    char packed[64];
    MPI_Datatype pair;
    MPI_Request rq;
    MPI_Status st;
    pt_set_phase("NULL buffers are still MPI_ERR_BUFFER");
    CK(MPI_Type_contiguous(2, MPI_INT, &pair));
    CK(MPI_Type_commit(&pair));
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT_CLASS(MPI_Send(NULL, 1, MPI_INT, next, 40, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    /* A derived type whose data starts at its origin (true lb 0) is no
     * datatype of absolute addresses either. */
    EXPECT_CLASS(MPI_Send(NULL, 1, pair, next, 40, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Ssend(NULL, 2, MPI_INT, next, 40, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Bsend(NULL, 2, MPI_INT, next, 40, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Rsend(NULL, 2, MPI_INT, next, 40, MPI_COMM_WORLD), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Isend(NULL, 1, MPI_INT, next, 40, MPI_COMM_WORLD, &rq), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Send_init(NULL, 1, pair, next, 40, MPI_COMM_WORLD, &rq), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Recv(NULL, 1, MPI_INT, prev, 40, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Irecv(NULL, 1, pair, prev, 40, MPI_COMM_WORLD, &rq), MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Sendrecv(a, 1, MPI_INT, next, 40, NULL, 1, MPI_INT, prev, 40, MPI_COMM_WORLD, &st),
                 MPI_ERR_BUFFER);
    EXPECT_CLASS(MPI_Sendrecv_replace(NULL, 1, MPI_INT, next, 40, prev, 40, MPI_COMM_WORLD, &st), MPI_ERR_BUFFER);
    /* MPICH 4.0 refuses any NULL inbuf/outbuf of MPI_Pack/MPI_Unpack as
     * MPI_ERR_ARG (MPI_BOTTOM included, see main). */
    {
        int rc = MPI_Pack(NULL, 1, MPI_INT, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD);
        int cls = rc == MPI_SUCCESS ? MPI_SUCCESS : pt_error_class(rc);
        EXPECT(cls == MPI_ERR_BUFFER || (!PT_STRICT && cls == MPI_ERR_ARG), "MPI_Pack from NULL gave class %d", cls);
        pos = 0;
        CK(MPI_Pack(a, 1, MPI_INT, packed, (int)sizeof packed, &pos, MPI_COMM_WORLD));
        pos = 0;
        rc = MPI_Unpack(packed, (int)sizeof packed, &pos, NULL, 1, pair, MPI_COMM_WORLD);
        cls = rc == MPI_SUCCESS ? MPI_SUCCESS : pt_error_class(rc);
        EXPECT(cls == MPI_ERR_BUFFER || (!PT_STRICT && cls == MPI_ERR_ARG), "MPI_Unpack into NULL gave class %d", cls);
    }
    /* No data, no buffer needed. */
    CK(MPI_Sendrecv(NULL, 0, MPI_INT, next, 41, NULL, 0, MPI_INT, prev, 41, MPI_COMM_WORLD, &st));
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CK(MPI_Type_free(&pair));
}

int main(int argc, char **argv)
{
    int p, s, k, attached_size;
    void *attached;
    me = pt_init(&argc, &argv, "pt2pt_bottom");
    np = pt_size;
    next = (me + 1) % np;
    prev = (me + np - 1) % np;
    bt_area_make(&S);
    bt_area_make(&R);
    bt_setup(&S);
    want_s = (bt_region *)pt_malloc(sizeof(bt_region));
    want_r = (bt_region *)pt_malloc(sizeof(bt_region));
    attached_size = 1 << 16;
    attached = pt_malloc((size_t)attached_size);
    CK(MPI_Buffer_attach(attached, attached_size));

    for (p = 0; p < (int)(sizeof kind_pairs / sizeof kind_pairs[0]); p++) {
        const int sk = kind_pairs[p][0], rk = kind_pairs[p][1];
        for (s = 0; s < (int)(sizeof bottom_sides / sizeof bottom_sides[0]); s++) {
            const int sa = bottom_sides[s][0], ra = bottom_sides[s][1];
            sends(sk, rk, sa, ra);
            receives(sk, rk, sa, ra);
            /* MPICH 4.0 refuses MPI_BOTTOM as MPI_Pack's inbuf and MPI_Unpack's
             * outbuf (MPI_ERR_ARG, "Null pointer in parameter inbuf"), which
             * MPI-1 allows like any other buffer. */
            if (PT_STRICT) pack(sk, rk, sa, ra);
        }
    }
    for (k = 0; k < BT_KINDS; k++) replace(k);

    errors();

    CK(MPI_Buffer_detach(&attached, &attached_size));
    free(attached);
    free(want_s);
    free(want_r);
    bt_teardown();
    bt_area_free(&S);
    bt_area_free(&R);
    return pt_finish();
}
