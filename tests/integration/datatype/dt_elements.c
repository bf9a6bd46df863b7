/* MPI_Get_elements and MPI_Get_count on partial receives of derived types:
 * a receive of (count, type) that gets fewer bytes reports the basic elements
 * that arrived whole; MPI_Get_count is MPI_UNDEFINED unless a whole number of
 * elements arrived; MPI_Get_elements is MPI_UNDEFINED only when the message
 * ends inside a basic element. The data of a partial receive lands where the
 * type map says and nothing else is written. Runs around a ring. */
#include "dt_common.h"

static int next_rank, prev_rank;

/* Sends `bytes` of a byte stream (value i at byte i, plus the rank) to the
 * next rank, receives (count, type) from the previous one into `buf`. */
static void partial(void *buf, int count, MPI_Datatype type, int bytes, int tag, MPI_Status *st)
{
    unsigned char *stream = pt_malloc((size_t)bytes);
    int i;
    for (i = 0; i < bytes; i++) stream[i] = (unsigned char)(i * 13 + pt_rank);
    CK(MPI_Sendrecv(stream, bytes, MPI_BYTE, next_rank, tag, buf, count, type, prev_rank, tag, MPI_COMM_WORLD, st));
    free(stream);
}

static unsigned char stream_byte(int i) { return (unsigned char)(i * 13 + prev_rank); }

static void expect_counts(const MPI_Status *st, MPI_Datatype t, int count, int elements, const char *what)
{
    int c = -5, e = -5;
    CK(MPI_Get_count(st, t, &c));
    CK(MPI_Get_elements(st, t, &e));
    EXPECT(c == count, "%s: MPI_Get_count %d, expected %d", what, c, count);
    EXPECT(e == elements, "%s: MPI_Get_elements %d, expected %d", what, e, elements);
}

int main(int argc, char **argv)
{
    MPI_Datatype id_t, svec, big;
    MPI_Status st;
    unsigned char buf[256];
    int tag = 0;
    int i;

    pt_init(&argc, &argv, "dt_elements");
    pt_require_size(2);
    next_rank = (pt_rank + 1) % pt_size;
    prev_rank = (pt_rank + pt_size - 1) % pt_size;

    /* struct {int at 0; double at 8}: size 12, extent 16, two basic elements. */
    {
        int bl[2] = {1, 1};
        MPI_Aint disp[2] = {0, 8};
        MPI_Datatype ty[2] = {MPI_INT, MPI_DOUBLE};
        CK(MPI_Type_struct(2, bl, disp, ty, &id_t));
        CK(MPI_Type_commit(&id_t));
    }

    pt_set_phase("whole elements");
    partial(buf, 3, id_t, 36, ++tag, &st);
    expect_counts(&st, id_t, 3, 6, "36 of 36 bytes");

    pt_set_phase("int, double, int");
    memset(buf, 0xEE, sizeof buf);
    partial(buf, 3, id_t, 16, ++tag, &st);
    expect_counts(&st, id_t, MPI_UNDEFINED, 3, "16 of 36 bytes");
    /* int at 0, double at 8, next int at 16; the padding and the rest untouched. */
    for (i = 0; i < 4; i++) EXPECT(buf[i] == stream_byte(i), "16 bytes: byte %d", i);
    for (i = 4; i < 8; i++) EXPECT(buf[i] == 0xEE, "16 bytes: padding byte %d written", i);
    for (i = 8; i < 20; i++) EXPECT(buf[i] == stream_byte(i - 4), "16 bytes: byte %d", i);
    for (i = 20; i < 64; i++) EXPECT(buf[i] == 0xEE, "16 bytes: byte %d beyond the message written", i);

    pt_set_phase("ends inside a basic element");
    partial(buf, 3, id_t, 14, ++tag, &st);
    expect_counts(&st, id_t, MPI_UNDEFINED, MPI_UNDEFINED, "14 of 36 bytes");
    partial(buf, 3, id_t, 8, ++tag, &st);
    expect_counts(&st, id_t, MPI_UNDEFINED, MPI_UNDEFINED, "8 of 36 bytes");
    partial(buf, 3, id_t, 4, ++tag, &st);
    expect_counts(&st, id_t, MPI_UNDEFINED, 1, "4 of 36 bytes");

    pt_set_phase("empty message");
    partial(buf, 3, id_t, 0, ++tag, &st);
    expect_counts(&st, id_t, 0, 0, "0 of 36 bytes");

    pt_set_phase("typed send, larger typed receive");
    {
        unsigned char out[64];
        memset(out, 1, sizeof out);
        ++tag;
        CK(MPI_Sendrecv(out, 2, id_t, next_rank, tag, buf, 3, id_t, prev_rank, tag, MPI_COMM_WORLD, &st));
        expect_counts(&st, id_t, 2, 4, "2 of 3 elements");
    }

    /* vector(4, 2, 3, short): 5 shorts of 8. */
    pt_set_phase("vector of shorts");
    CK(MPI_Type_vector(4, 2, 3, MPI_SHORT, &svec));
    CK(MPI_Type_commit(&svec));
    memset(buf, 0xEE, sizeof buf);
    partial(buf, 1, svec, 10, ++tag, &st);
    expect_counts(&st, svec, MPI_UNDEFINED, 5, "10 of 16 bytes");
    for (i = 0; i < 4; i++) EXPECT(buf[i] == stream_byte(i), "vector: byte %d", i);
    for (i = 4; i < 6; i++) EXPECT(buf[i] == 0xEE, "vector: gap byte %d written", i);
    for (i = 6; i < 10; i++) EXPECT(buf[i] == stream_byte(i - 2), "vector: byte %d", i);
    for (i = 12; i < 14; i++) EXPECT(buf[i] == stream_byte(i - 4), "vector: byte %d", i);
    for (i = 14; i < 32; i++) EXPECT(buf[i] == 0xEE, "vector: byte %d beyond the message written", i);
    partial(buf, 1, svec, 11, ++tag, &st);
    expect_counts(&st, svec, MPI_UNDEFINED, MPI_UNDEFINED, "11 of 16 bytes");

    /* The status of MPI_Probe answers the same questions before the receive. */
    pt_set_phase("probe");
    {
        unsigned char stream[16];
        MPI_Request rq;
        int c = -5, e = -5;
        memset(stream, 3, sizeof stream);
        ++tag;
        CK(MPI_Isend(stream, 16, MPI_BYTE, next_rank, tag, MPI_COMM_WORLD, &rq));
        CK(MPI_Probe(prev_rank, tag, MPI_COMM_WORLD, &st));
        CK(MPI_Get_count(&st, id_t, &c));
        CK(MPI_Get_elements(&st, id_t, &e));
        EXPECT(c == MPI_UNDEFINED && e == 3, "probe: count %d, elements %d", c, e);
        CK(MPI_Recv(buf, 3, id_t, prev_rank, tag, MPI_COMM_WORLD, &st));
        expect_counts(&st, id_t, MPI_UNDEFINED, 3, "received after probe");
        CK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    }

    /* A pair type counts two basic elements per pair. */
    pt_set_phase("MPI_DOUBLE_INT");
    partial(buf, 2, MPI_DOUBLE_INT, 20, ++tag, &st);
    expect_counts(&st, MPI_DOUBLE_INT, MPI_UNDEFINED, 3, "20 of 24 bytes");
    partial(buf, 2, MPI_DOUBLE_INT, 24, ++tag, &st);
    expect_counts(&st, MPI_DOUBLE_INT, 2, 4, "24 of 24 bytes");
    /* The same bytes seen as MPI_INT: 6 ints; as MPI_DOUBLE: not whole. */
    partial(buf, 6, MPI_INT, 24, ++tag, &st);
    expect_counts(&st, MPI_INT, 6, 6, "24 bytes as int");

    /* Large partial receive through rendezvous: 70001 of 100000 ints, every other one. */
    pt_set_phase("large partial");
    {
        const int n = 100000, sent = 70001;
        int *out = pt_malloc(sizeof(int) * (size_t)sent);
        int *in = pt_malloc(sizeof(int) * (size_t)(2 * n));
        CK(MPI_Type_vector(n, 1, 2, MPI_INT, &big));
        CK(MPI_Type_commit(&big));
        for (i = 0; i < sent; i++) out[i] = pt_rank * 1000000 + i;
        for (i = 0; i < 2 * n; i++) in[i] = -1;
        ++tag;
        CK(MPI_Sendrecv(out, sent, MPI_INT, next_rank, tag, in, 1, big, prev_rank, tag, MPI_COMM_WORLD, &st));
        expect_counts(&st, big, MPI_UNDEFINED, sent, "70001 ints into vector(100000)");
        for (i = 0; i < n; i++) {
            int want = i < sent ? prev_rank * 1000000 + i : -1;
            EXPECT(in[2 * i] == want, "large partial: element %d is %d, expected %d", i, in[2 * i], want);
            EXPECT(in[2 * i + 1] == -1, "large partial: gap %d written", i);
        }
        free(out);
        free(in);
        CK(MPI_Type_free(&big));
    }

    CK(MPI_Type_free(&id_t));
    CK(MPI_Type_free(&svec));
    return pt_finish();
}
