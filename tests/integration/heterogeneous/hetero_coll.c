/* Collectives on communicators whose processes store data differently.
 *
 * Run with 4 processes, ranks 2-3 in another representation (the test
 * setting STRATA_REPRESENTATION_TEST=MODE, or a machine of another kind);
 * the argument is MODE (see hetero_pt2pt.c). Every collective runs twice: on
 * MPI_COMM_WORLD, whose rank 0 is a native process, and on the same processes
 * in reverse order, whose rank 0 is one of the others; a collective's common
 * form takes its byte order from its rank 0, so one of the two has every
 * native process convert. Checked: reductions (SUM, MAX, MIN on every
 * numeric type; MINLOC/MAXLOC on every pair; bitwise and logical operations;
 * a user-defined operation on a struct, which must see this process's form)
 * through MPI_Reduce, MPI_Allreduce, MPI_Scan and MPI_Reduce_scatter, and
 * every data-moving collective on a struct with padding and on MPI_LONG.
 * Then across two intercommunicators (MPI-2 7.3), one whose groups differ
 * from each other and one whose groups are mixed: MPI_Bcast and
 * MPI_Allgather of the struct, MPI_Allreduce of MPI_LONG and MPI_DOUBLE.
 */
#include "hetero_common.h"

#define N 4

static int me = 0;

/* The world rank of each rank of the communicator under test. */
static int world_of[64];
static int crank, csize;

static void comm_use(MPI_Comm comm) {
    MPI_Group g, wg;
    int ranks[64];
    CK(MPI_Comm_rank(comm, &crank));
    CK(MPI_Comm_size(comm, &csize));
    CK(MPI_Comm_group(comm, &g));
    CK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
    for (int i = 0; i < csize; ++i) ranks[i] = i;
    CK(MPI_Group_translate_ranks(g, csize, ranks, wg, world_of));
    CK(MPI_Group_free(&g));
    CK(MPI_Group_free(&wg));
}

/* Value i of world rank w: small whole numbers, exact in every type. */
#define VAL(w, i) ((w)*3 + (i) + 1)

#define ARITH(TYPE, CTYPE)                                                                                 \
    do {                                                                                                   \
        CTYPE s[N], r[N], scat[16], one;                                                                   \
        pt_set_phase(#TYPE " reductions");                                                                 \
        for (int i = 0; i < N; ++i) s[i] = (CTYPE)VAL(me, i);                                              \
        CK(MPI_Allreduce(s, r, N, TYPE, MPI_SUM, comm));                                                   \
        for (int i = 0; i < N; ++i) EXPECT(r[i] == (CTYPE)(18 + 4 * (i + 1)), #TYPE " SUM element %d", i); \
        CK(MPI_Allreduce(s, r, N, TYPE, MPI_MAX, comm));                                                   \
        for (int i = 0; i < N; ++i) EXPECT(r[i] == (CTYPE)VAL(3, i), #TYPE " MAX element %d", i);          \
        for (int root = 0; root < csize; root += csize - 1) {                                              \
            memset(r, 0, sizeof r);                                                                        \
            CK(MPI_Reduce(s, r, N, TYPE, MPI_MIN, root, comm));                                            \
            if (crank == root)                                                                             \
                for (int i = 0; i < N; ++i) EXPECT(r[i] == (CTYPE)VAL(0, i), #TYPE " MIN element %d", i);  \
        }                                                                                                  \
        CK(MPI_Scan(s, r, N, TYPE, MPI_SUM, comm));                                                        \
        for (int i = 0; i < N; ++i) {                                                                      \
            long long want = 0;                                                                            \
            for (int k = 0; k <= crank; ++k) want += VAL(world_of[k], i);                                  \
            EXPECT(r[i] == (CTYPE)want, #TYPE " scan element %d", i);                                      \
        }                                                                                                  \
        int counts[16];                                                                                    \
        for (int k = 0; k < csize; ++k) {                                                                  \
            counts[k] = 1;                                                                                 \
            scat[k] = (CTYPE)VAL(me, k);                                                                   \
        }                                                                                                  \
        CK(MPI_Reduce_scatter(scat, &one, counts, TYPE, MPI_SUM, comm));                                   \
        EXPECT(one == (CTYPE)(18 + 4 * (crank + 1)), #TYPE " reduce_scatter");                             \
    } while (0)

#define BITS(TYPE, CTYPE)                                                  \
    do {                                                                   \
        CTYPE s = (CTYPE)((1u << (me + 4)) | 3u), r = 0;                   \
        pt_set_phase(#TYPE " bitwise");                                    \
        CK(MPI_Allreduce(&s, &r, 1, TYPE, MPI_BOR, comm));                 \
        EXPECT(r == (CTYPE)(0xF3u), #TYPE " BOR gave %lld", (long long)r); \
        CK(MPI_Allreduce(&s, &r, 1, TYPE, MPI_BAND, comm));                \
        EXPECT(r == (CTYPE)3, #TYPE " BAND gave %lld", (long long)r);      \
        CK(MPI_Allreduce(&s, &r, 1, TYPE, MPI_BXOR, comm));                \
        EXPECT(r == (CTYPE)0xF0u, #TYPE " BXOR gave %lld", (long long)r);  \
    } while (0)

#define LOC(TYPE, VTYPE)                                                                  \
    do {                                                                                  \
        struct {                                                                          \
            VTYPE v;                                                                      \
            int i;                                                                        \
        } s, r;                                                                           \
        memset(&s, 0, sizeof s);                                                          \
        s.v = (VTYPE)((me * 7) % 5);                                                      \
        s.i = crank;                                                                      \
        pt_set_phase(#TYPE " MINLOC/MAXLOC");                                             \
        CK(MPI_Allreduce(&s, &r, 1, TYPE, MPI_MAXLOC, comm));                             \
        EXPECT(r.v == (VTYPE)4 && world_of[r.i] == 2, #TYPE " MAXLOC gave rank %d", r.i); \
        CK(MPI_Allreduce(&s, &r, 1, TYPE, MPI_MINLOC, comm));                             \
        EXPECT(r.v == (VTYPE)0 && world_of[r.i] == 0, #TYPE " MINLOC gave rank %d", r.i); \
    } while (0)

static void reductions(MPI_Comm comm) {
    ARITH(MPI_SHORT, short);
    ARITH(MPI_UNSIGNED_SHORT, unsigned short);
    ARITH(MPI_INT, int);
    ARITH(MPI_UNSIGNED, unsigned);
    ARITH(MPI_LONG, long);
    ARITH(MPI_UNSIGNED_LONG, unsigned long);
    ARITH(MPI_LONG_LONG_INT, long long);
    ARITH(MPI_FLOAT, float);
    ARITH(MPI_DOUBLE, double);
    ARITH(MPI_LONG_DOUBLE, long double);
    ARITH(MPI_INTEGER, int);
    ARITH(MPI_REAL, float);
    ARITH(MPI_DOUBLE_PRECISION, double);
    ARITH(MPI_UNSIGNED_LONG_LONG, unsigned long long);
    ARITH(MPI_INTEGER2, short);
    ARITH(MPI_INTEGER8, long long);
    ARITH(MPI_REAL4, float);
    ARITH(MPI_REAL8, double);
    BITS(MPI_UNSIGNED, unsigned);
    BITS(MPI_BYTE, unsigned char);
    BITS(MPI_LONG, long);
    BITS(MPI_SHORT, short);
    BITS(MPI_UNSIGNED_LONG, unsigned long);
    LOC(MPI_2INT, int);
    LOC(MPI_FLOAT_INT, float);
    LOC(MPI_DOUBLE_INT, double);
    LOC(MPI_LONG_INT, long);
    LOC(MPI_SHORT_INT, short);
    LOC(MPI_LONG_DOUBLE_INT, long double);

    pt_set_phase("logical");
    int t = me != 1, r = -1;
    CK(MPI_Allreduce(&t, &r, 1, MPI_INT, MPI_LAND, comm));
    EXPECT(r == 0, "LAND gave %d", r);
    CK(MPI_Allreduce(&t, &r, 1, MPI_LOGICAL, MPI_LOR, comm));
    EXPECT(r != 0, "LOR gave %d", r);

    pt_set_phase("MPI_SUM of MPI_COMPLEX");
    float c[2] = {(float)VAL(me, 0), (float)-VAL(me, 1)}, cr[2];
    CK(MPI_Allreduce(c, cr, 1, MPI_COMPLEX, MPI_SUM, comm));
    EXPECT(cr[0] == 22.0f && cr[1] == -26.0f, "complex sum gave %g%+gi", cr[0], cr[1]);
}

/* A user operation on rec: sums d and l[0], keeps the larger x. It runs on
 * this process's form, so every value it sees must be one some rank made. */
static void rec_combine(void *in, void *inout, int *len, MPI_Datatype *type) {
    (void)type;
    struct rec *a = in, *b = inout;
    for (int k = 0; k < *len; ++k) {
        b[k].d += a[k].d;
        b[k].l[0] += a[k].l[0];
        if (a[k].x > b[k].x) b[k].x = a[k].x;
    }
}

static void user_op(MPI_Comm comm, MPI_Datatype rec) {
    pt_set_phase("user-defined operation");
    MPI_Op op;
    CK(MPI_Op_create(rec_combine, 1, &op));
    struct rec s[2], r[2];
    for (int k = 0; k < 2; ++k) {
        memset(&s[k], 0, sizeof s[k]);
        s[k].d = VAL(me, k);
        s[k].l[0] = VAL(me, k) * 1000L;
        s[k].x = (long double)VAL(me, k) / 4;
    }
    memset(r, 0, sizeof r);
    CK(MPI_Allreduce(s, r, 2, rec, op, comm));
    for (int k = 0; k < 2; ++k) {
        const int sum = 18 + 4 * (k + 1);
        EXPECT(r[k].d == sum && r[k].l[0] == sum * 1000L && r[k].x == (long double)VAL(3, k) / 4,
               "user operation element %d: %g %ld %Lg", k, r[k].d, r[k].l[0], r[k].x);
    }
    CK(MPI_Op_free(&op));
}

/* Data movement: recs and longs, blocks of comm rank k from world_of[k]. */
static void moves(MPI_Comm comm, MPI_Datatype rec) {
    struct rec mine[8], all[64], e;
    long lm[8], la[64];
    for (int k = 0; k < 8; ++k) {
        rec_fill(&mine[k], me, k);
        lm[k] = narrow(me, k);
    }
    for (int root = 0; root < csize; ++root) {
        pt_set_phase("MPI_Bcast of recs");
        struct rec b[3];
        for (int k = 0; k < 3; ++k) rec_fill(&b[k], crank == root ? me : 99, k);
        CK(MPI_Bcast(b, 3, rec, root, comm));
        for (int k = 0; k < 3; ++k) {
            rec_fill(&e, world_of[root], k);
            EXPECT(rec_same(&b[k], &e), "broadcast rec %d from root %d", k, root);
        }
    }
    pt_set_phase("MPI_Gather and MPI_Allgather");
    memset(all, 0, sizeof all);
    CK(MPI_Gather(mine, 2, rec, all, 2, rec, csize - 1, comm));
    if (crank == csize - 1) {
        for (int q = 0; q < csize; ++q) {
            for (int k = 0; k < 2; ++k) {
                rec_fill(&e, world_of[q], k);
                EXPECT(rec_same(&all[2 * q + k], &e), "gathered rec %d of rank %d", k, q);
            }
        }
    }
    CK(MPI_Allgather(lm, 3, MPI_LONG, la, 3, MPI_LONG, comm));
    for (int q = 0; q < csize; ++q)
        for (int k = 0; k < 3; ++k) EXPECT(la[3 * q + k] == narrow(world_of[q], k), "allgathered long %d/%d", q, k);

    pt_set_phase("MPI_Scatter and MPI_Alltoall");
    struct rec src[16], got[16];
    for (int q = 0; q < csize; ++q) rec_fill(&src[q], me, q);
    CK(MPI_Scatter(src, 1, rec, got, 1, rec, 0, comm));
    rec_fill(&e, world_of[0], crank);
    EXPECT(rec_same(&got[0], &e), "scattered rec");
    CK(MPI_Alltoall(src, 1, rec, got, 1, rec, comm));
    for (int q = 0; q < csize; ++q) {
        rec_fill(&e, world_of[q], crank);
        EXPECT(rec_same(&got[q], &e), "alltoall rec from %d", q);
    }

    pt_set_phase("the v-variants");
    int counts[16], displs[16], at = 0;
    for (int q = 0; q < csize; ++q) {
        counts[q] = q + 1;
        displs[q] = at;
        at += q + 2; /* a gap between blocks */
    }
    memset(all, 0, sizeof all);
    CK(MPI_Allgatherv(mine, crank + 1, rec, all, counts, displs, rec, comm));
    for (int q = 0; q < csize; ++q) {
        for (int k = 0; k < counts[q]; ++k) {
            rec_fill(&e, world_of[q], k);
            EXPECT(rec_same(&all[displs[q] + k], &e), "allgatherv rec %d of rank %d", k, q);
        }
    }
    memset(la, 0, sizeof la);
    CK(MPI_Gatherv(lm, crank + 1, MPI_LONG, la, counts, displs, MPI_LONG, 0, comm));
    if (crank == 0) {
        for (int q = 0; q < csize; ++q)
            for (int k = 0; k < counts[q]; ++k)
                EXPECT(la[displs[q] + k] == narrow(world_of[q], k), "gatherv long %d/%d", q, k);
    }
    struct rec sv[64];
    for (int k = 0; k < 64; ++k) rec_fill(&sv[k], me, k);
    CK(MPI_Scatterv(sv, counts, displs, rec, got, crank + 1, rec, csize - 1, comm));
    for (int k = 0; k <= crank; ++k) {
        rec_fill(&e, world_of[csize - 1], displs[crank] + k);
        EXPECT(rec_same(&got[k], &e), "scatterv rec %d", k);
    }
    int rc[16], rd[16];
    for (int q = 0; q < csize; ++q) {
        rc[q] = crank + 1; /* what q sends me: its counts[crank] */
        rd[q] = q * 8;
    }
    memset(all, 0, sizeof all);
    CK(MPI_Alltoallv(sv, counts, displs, rec, all, rc, rd, rec, comm));
    for (int q = 0; q < csize; ++q) {
        for (int k = 0; k < rc[q]; ++k) {
            rec_fill(&e, world_of[q], displs[crank] + k);
            EXPECT(rec_same(&all[rd[q] + k], &e), "alltoallv rec %d from %d", k, q);
        }
    }
}

/* Across an intercommunicator whose groups are the world ranks `cut`
 * splits: {0,1} and {2,3} (each group alike, the two unlike), or {0,2} and
 * {1,3} (each group mixed). Both groups must move data in one form. */
static void across(int cut, MPI_Datatype rec) {
    const int side = cut == 0 ? me / 2 : me % 2;
    int remote_world[2], r, nr;
    for (int w = 0, k = 0; w < 4; ++w)
        if ((cut == 0 ? w / 2 : w % 2) != side) remote_world[k++] = w;
    MPI_Comm local, ic;
    CK(MPI_Comm_split(MPI_COMM_WORLD, side, me, &local));
    CK(MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, remote_world[0], 7, &ic));
    CK(MPI_Comm_rank(ic, &r));
    CK(MPI_Comm_remote_size(ic, &nr));
    EXPECT(nr == 2, "remote size %d", nr);
    pt_set_phase("intercommunicator MPI_Bcast of recs");
    for (int rg = 0; rg < 2; ++rg) {
        for (int root = 0; root < 2; ++root) {
            struct rec b[3], e;
            const int arg = rg != side ? root : (r == root ? MPI_ROOT : MPI_PROC_NULL);
            for (int k = 0; k < 3; ++k) rec_fill(&b[k], arg == MPI_ROOT ? me : 99, k);
            CK(MPI_Bcast(b, 3, rec, arg, ic));
            if (arg == MPI_ROOT || arg == MPI_PROC_NULL) continue;
            for (int k = 0; k < 3; ++k) {
                rec_fill(&e, remote_world[root], k);
                EXPECT(rec_same(&b[k], &e), "intercommunicator broadcast rec %d from remote %d", k, root);
            }
        }
    }
    pt_set_phase("intercommunicator MPI_Allgather and MPI_Allreduce");
    struct rec mine[2], all[4], e;
    for (int k = 0; k < 2; ++k) rec_fill(&mine[k], me, k);
    CK(MPI_Allgather(mine, 2, rec, all, 2, rec, ic));
    for (int q = 0; q < 2; ++q) {
        for (int k = 0; k < 2; ++k) {
            rec_fill(&e, remote_world[q], k);
            EXPECT(rec_same(&all[2 * q + k], &e), "intercommunicator allgather rec %d of remote %d", k, q);
        }
    }
    long ls[N], lr[N];
    double ds[N], dr[N];
    for (int i = 0; i < N; ++i) {
        ls[i] = VAL(me, i);
        ds[i] = VAL(me, i) / 2.0;
    }
    CK(MPI_Allreduce(ls, lr, N, MPI_LONG, MPI_SUM, ic));
    CK(MPI_Allreduce(ds, dr, N, MPI_DOUBLE, MPI_MAX, ic));
    for (int i = 0; i < N; ++i) {
        EXPECT(lr[i] == VAL(remote_world[0], i) + VAL(remote_world[1], i), "intercommunicator long SUM %d", i);
        EXPECT(dr[i] == VAL(remote_world[1], i) / 2.0, "intercommunicator double MAX %d", i);
    }
    CK(MPI_Comm_free(&ic));
    CK(MPI_Comm_free(&local));
}

int main(int argc, char **argv) {
    me = pt_init(&argc, &argv, "hetero_coll");
    pt_require_size(4);
    if (argc > 1) mode = atoi(argv[1]);
    MPI_Datatype rec = rec_type(5);
    CK(MPI_Type_commit(&rec));
    MPI_Comm reversed;
    CK(MPI_Comm_split(MPI_COMM_WORLD, 0, pt_size - 1 - me, &reversed));
    MPI_Comm comms[2] = {MPI_COMM_WORLD, reversed};
    for (int c = 0; c < 2; ++c) {
        comm_use(comms[c]);
        reductions(comms[c]);
        user_op(comms[c], rec);
        moves(comms[c], rec);
    }
    CK(MPI_Comm_free(&reversed));
    for (int cut = 0; cut < 2; ++cut) across(cut, rec);
    CK(MPI_Type_free(&rec));
    return pt_finish();
}
