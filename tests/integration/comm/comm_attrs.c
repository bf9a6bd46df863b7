/* Attribute caching: keyvals, put/get/delete, the copy callbacks run by
 * MPI_Comm_dup (MPI_DUP_FN, MPI_NULL_COPY_FN, a user function, one that
 * fails), the delete callbacks run by put (replacing), delete and free, a
 * freed keyval that lives on while attributes use it, and the predefined
 * attributes of MPI_COMM_WORLD. */
#include "comm_common.h"

static int deletes = 0;
static int copies = 0;
static int last_deleted = -1;

static int count_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm; (void)keyval;
    EXPECT(*(int *)extra == 31, "delete callback got the wrong extra_state");
    ++deletes;
    last_deleted = (int)(intptr_t)val;
    return MPI_SUCCESS;
}

/* Copies value + 1000 so the copy is recognisable. */
static int plus_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm; (void)keyval; (void)extra;
    ++copies;
    *(void **)out = (void *)((intptr_t)in + 1000);
    *flag = 1;
    return MPI_SUCCESS;
}

static int failing_copy(MPI_Comm comm, int keyval, void *extra, void *in, void *out, int *flag)
{
    (void)comm; (void)keyval; (void)extra; (void)in; (void)out;
    *flag = 0;
    return MPI_ERR_OTHER;
}

static int failing_delete(MPI_Comm comm, int keyval, void *val, void *extra)
{
    (void)comm; (void)keyval; (void)val; (void)extra;
    return MPI_ERR_OTHER;
}

int main(int argc, char **argv)
{
    int extra = 31;
    int k_dup, k_null, k_plus, k_fail, flag;
    void *val;
    MPI_Comm d, d2;

    pt_init(&argc, &argv, "comm_attrs");
    CK(MPI_Errhandler_set(MPI_COMM_WORLD, MPI_ERRORS_RETURN));

    pt_set_phase("predefined");
    CK(MPI_Attr_get(MPI_COMM_WORLD, MPI_TAG_UB, &val, &flag));
    EXPECT(flag && *(int *)val >= 32767, "MPI_TAG_UB missing or too small");
    {
        /* the largest tag works */
        int tag_ub = *(int *)val, x = 5, y = 0;
        CK(MPI_Sendrecv(&x, 1, MPI_INT, 0, tag_ub, &y, 1, MPI_INT, 0, tag_ub, MPI_COMM_SELF, MPI_STATUS_IGNORE));
        EXPECT(y == 5, "message with tag MPI_TAG_UB");
    }
    CK(MPI_Attr_get(MPI_COMM_WORLD, MPI_HOST, &val, &flag));
    EXPECT(flag && (*(int *)val == MPI_PROC_NULL || (*(int *)val >= 0 && *(int *)val < pt_size)), "MPI_HOST");
    CK(MPI_Attr_get(MPI_COMM_WORLD, MPI_IO, &val, &flag));
    EXPECT(flag && (*(int *)val == MPI_ANY_SOURCE || *(int *)val == MPI_PROC_NULL ||
                    (*(int *)val >= 0 && *(int *)val < pt_size)), "MPI_IO");
    CK(MPI_Attr_get(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, &val, &flag));
    EXPECT(!flag || *(int *)val == 0 || *(int *)val == 1, "MPI_WTIME_IS_GLOBAL");
    EXPECT_FAIL_CLASS(MPI_Attr_put(MPI_COMM_WORLD, MPI_TAG_UB, NULL), MPI_ERR_ARG, "put on MPI_TAG_UB");
    {
        int k = MPI_TAG_UB;
        EXPECT_FAIL_CLASS(MPI_Keyval_free(&k), MPI_ERR_ARG, "free of MPI_TAG_UB");
    }

    pt_set_phase("put/get/delete");
    CK(MPI_Keyval_create(MPI_DUP_FN, count_delete, &k_dup, &extra));
    CK(MPI_Keyval_create(MPI_NULL_COPY_FN, MPI_NULL_DELETE_FN, &k_null, NULL));
    CK(MPI_Keyval_create(plus_copy, count_delete, &k_plus, &extra));
    CK(MPI_Keyval_create(failing_copy, failing_delete, &k_fail, NULL));
    CK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CK(MPI_Attr_get(d, k_dup, &val, &flag));
    EXPECT(flag == 0, "attribute present before put");
    CK(MPI_Attr_put(d, k_dup, (void *)(intptr_t)7));
    CK(MPI_Attr_get(d, k_dup, &val, &flag));
    EXPECT(flag == 1 && (intptr_t)val == 7, "get after put");
    CK(MPI_Attr_put(d, k_dup, (void *)(intptr_t)8));
    EXPECT(deletes == 1 && last_deleted == 7, "replacing did not delete the old value (%d, %d)", deletes, last_deleted);
    CK(MPI_Attr_delete(d, k_dup));
    EXPECT(deletes == 2 && last_deleted == 8, "delete did not run the callback");
    CK(MPI_Attr_get(d, k_dup, &val, &flag));
    EXPECT(flag == 0, "attribute present after delete");

    pt_set_phase("dup callbacks");
    CK(MPI_Attr_put(d, k_dup, (void *)(intptr_t)11));
    CK(MPI_Attr_put(d, k_null, (void *)(intptr_t)12));
    CK(MPI_Attr_put(d, k_plus, (void *)(intptr_t)13));
    CK(MPI_Comm_dup(d, &d2));
    EXPECT(copies == 1, "user copy function ran %d times", copies);
    CK(MPI_Attr_get(d2, k_dup, &val, &flag));
    EXPECT(flag && (intptr_t)val == 11, "MPI_DUP_FN did not copy");
    CK(MPI_Attr_get(d2, k_null, &val, &flag));
    EXPECT(flag == 0, "MPI_NULL_COPY_FN copied");
    CK(MPI_Attr_get(d2, k_plus, &val, &flag));
    EXPECT(flag && (intptr_t)val == 1013, "user copy gave %ld", (long)(intptr_t)val);

    pt_set_phase("free runs delete callbacks; freed keyval lives on");
    CK(MPI_Keyval_free(&k_plus));
    EXPECT(k_plus == MPI_KEYVAL_INVALID, "Keyval_free did not reset the key");
    deletes = 0;
    CK(MPI_Comm_free(&d2));
    EXPECT(deletes == 2, "free of the dup ran %d delete callbacks, want 2", deletes);
    deletes = 0;
    CK(MPI_Comm_free(&d));
    EXPECT(deletes == 2, "free ran %d delete callbacks, want 2", deletes);

    pt_set_phase("failing callbacks");
    CK(MPI_Comm_dup(MPI_COMM_WORLD, &d));
    CK(MPI_Attr_put(d, k_fail, (void *)(intptr_t)1));
    d2 = MPI_COMM_NULL;
    EXPECT(MPI_Comm_dup(d, &d2) != MPI_SUCCESS, "dup succeeded although a copy callback failed");
    EXPECT(MPI_Attr_delete(d, k_fail) != MPI_SUCCESS, "delete succeeded although the callback failed");

    pt_set_phase("errors");
    EXPECT_FAIL_CLASS(MPI_Attr_get(MPI_COMM_WORLD, 12345, &val, &flag), MPI_ERR_ARG, "get with a bad key");
    EXPECT_CLASS(MPI_Attr_put(MPI_COMM_NULL, k_dup, NULL), MPI_ERR_COMM, "put on MPI_COMM_NULL");
    CK(MPI_Keyval_free(&k_dup));
    CK(MPI_Keyval_free(&k_null));
    return pt_finish();
}
