/* MPI-2 names of MPI-1 functionality, and object names:
 *   error handlers: MPI_Comm_create_errhandler / set / get, and
 *     MPI_Comm_call_errhandler (a user handler sees the code; with
 *     MPI_ERRORS_RETURN the call succeeds);
 *   attributes: MPI_Comm_create_keyval with MPI_COMM_DUP_FN,
 *     MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN and user callbacks,
 *     MPI_Comm_set_attr / get / delete, MPI_Comm_free_keyval, mixed with
 *     their MPI-1 twins on the same keys;
 *   names: MPI_Comm_set_name / get_name (predefined names, empty names of
 *     new communicators, truncation), MPI_Type_set_name / get_name. */
#include "pt2pt_common.h"

static int handler_calls = 0;
static int handler_code = 0;
static MPI_Comm handler_comm = MPI_COMM_NULL;

static void handler(MPI_Comm *comm, int *code, ...)
{
    ++handler_calls;
    handler_code = *code;
    handler_comm = *comm;
}

static int deleted = 0;
static void *deleted_value = NULL;

static int count_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm, (void)keyval;
    ++deleted;
    deleted_value = value;
    EXPECT(extra == (void *)&deleted, "delete callback got extra_state %p", extra);
    return MPI_SUCCESS;
}

static void check_errhandlers(void)
{
    MPI_Errhandler eh, got;
    MPI_Comm dup;
    int rc, flag = 0;
    pt_set_phase("error handlers");
    CK(MPI_Comm_create_errhandler(handler, &eh));
    CK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CK(MPI_Comm_set_errhandler(dup, eh));
    CK(MPI_Comm_get_errhandler(dup, &got));
    EXPECT(got == eh, "MPI_Comm_get_errhandler returned another handler");
    CK(MPI_Errhandler_free(&got));
    /* The MPI-1 and MPI-2 names see the same handler. */
    CK(MPI_Errhandler_get(dup, &got));
    EXPECT(got == eh, "MPI_Errhandler_get disagrees with MPI_Comm_set_errhandler");
    CK(MPI_Errhandler_free(&got));

    /* A real error reaches the handler with its class. */
    rc = MPI_Send(&flag, 1, MPI_INT, pt_size, 0, dup);
    EXPECT(pt_error_class(rc) == MPI_ERR_RANK, "send to rank %d gave class %d", pt_size, pt_error_class(rc));
    EXPECT(handler_calls == 1 && pt_error_class(handler_code) == MPI_ERR_RANK && handler_comm == dup,
           "after a bad send: %d handler calls, code %d", handler_calls, handler_code);
    /* MPI_Comm_call_errhandler: the program's own code, and success. */
    rc = MPI_Comm_call_errhandler(dup, MPI_ERR_OTHER);
    EXPECT(rc == MPI_SUCCESS, "MPI_Comm_call_errhandler returned %d", rc);
    EXPECT(handler_calls == 2 && handler_code == MPI_ERR_OTHER, "MPI_Comm_call_errhandler: %d calls, code %d",
           handler_calls, handler_code);
    CK(MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN));
    rc = MPI_Comm_call_errhandler(dup, MPI_ERR_ARG);
    EXPECT(rc == MPI_SUCCESS && handler_calls == 2, "with MPI_ERRORS_RETURN: rc %d, %d handler calls", rc,
           handler_calls);
    CK(MPI_Errhandler_free(&eh));
    EXPECT(eh == MPI_ERRHANDLER_NULL, "MPI_Errhandler_free did not reset the handle");
    /* Errors in these calls go to the communicator's handler too (MPICH 4.0
     * treats a bad handler handle as fatal whatever the handler). */
    if (PT_STRICT) {
        rc = MPI_Comm_set_errhandler(dup, (MPI_Errhandler)12345);
        EXPECT(pt_error_class(rc) == MPI_ERR_ARG, "setting a bad handler gave class %d", pt_error_class(rc));
    }
    CK(MPI_Comm_free(&dup));
}

static void check_attributes(void)
{
    int kdup, knull, kdel, flag = -1;
    int a = 11, b = 22, c = 33;
    void *v = NULL;
    MPI_Comm dup;
    pt_set_phase("attributes");
    CK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, MPI_COMM_NULL_DELETE_FN, &kdup, NULL));
    CK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &knull, NULL));
    CK(MPI_Comm_create_keyval(MPI_COMM_DUP_FN, count_delete, &kdel, &deleted));
    CK(MPI_Comm_set_attr(MPI_COMM_WORLD, kdup, &a));
    CK(MPI_Comm_set_attr(MPI_COMM_WORLD, knull, &b));
    CK(MPI_Attr_put(MPI_COMM_WORLD, kdel, &c)); /* the MPI-1 name on an MPI-2 key */
    CK(MPI_Comm_get_attr(MPI_COMM_WORLD, kdup, &v, &flag));
    EXPECT(flag == 1 && v == &a, "MPI_Comm_get_attr: flag %d, value %p", flag, v);
    CK(MPI_Attr_get(MPI_COMM_WORLD, knull, &v, &flag));
    EXPECT(flag == 1 && v == &b, "MPI_Attr_get on an MPI-2 key: flag %d", flag);

    CK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CK(MPI_Comm_get_attr(dup, kdup, &v, &flag));
    EXPECT(flag == 1 && v == &a, "MPI_COMM_DUP_FN did not copy the attribute (flag %d)", flag);
    CK(MPI_Comm_get_attr(dup, knull, &v, &flag));
    EXPECT(flag == 0, "MPI_COMM_NULL_COPY_FN copied the attribute");
    CK(MPI_Comm_get_attr(dup, kdel, &v, &flag));
    EXPECT(flag == 1 && v == &c, "the user-deleted key was not copied");
    /* Freeing the copy runs the delete callback once, with the value. */
    CK(MPI_Comm_free(&dup));
    EXPECT(deleted == 1 && deleted_value == &c, "MPI_Comm_free: %d delete calls", deleted);
    /* Replacing a value runs it for the old value; deleting, for the new one. */
    CK(MPI_Comm_set_attr(MPI_COMM_WORLD, kdel, &a));
    EXPECT(deleted == 2 && deleted_value == &c, "replacing: %d delete calls", deleted);
    CK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kdel));
    EXPECT(deleted == 3 && deleted_value == &a, "MPI_Comm_delete_attr: %d delete calls", deleted);
    CK(MPI_Comm_get_attr(MPI_COMM_WORLD, kdel, &v, &flag));
    EXPECT(flag == 0, "the attribute is still there after MPI_Comm_delete_attr");

    /* Predefined attributes read through the MPI-2 name. */
    CK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &v, &flag));
    EXPECT(flag == 1 && *(int *)v >= 32767, "MPI_TAG_UB: flag %d", flag);

    CK(MPI_Comm_delete_attr(MPI_COMM_WORLD, kdup));
    CK(MPI_Comm_delete_attr(MPI_COMM_WORLD, knull));
    CK(MPI_Comm_free_keyval(&kdup));
    CK(MPI_Comm_free_keyval(&knull));
    CK(MPI_Keyval_free(&kdel));
    EXPECT(kdup == MPI_KEYVAL_INVALID && kdel == MPI_KEYVAL_INVALID, "freed keys were not reset");
}

static void check_names(void)
{
    char name[MPI_MAX_OBJECT_NAME];
    char longname[300];
    int len = -1;
    MPI_Comm dup;
    MPI_Datatype t;
    pt_set_phase("names");
    CK(MPI_Comm_get_name(MPI_COMM_WORLD, name, &len));
    EXPECT(strcmp(name, "MPI_COMM_WORLD") == 0 && len == 14, "MPI_COMM_WORLD is named '%s' (%d)", name, len);
    CK(MPI_Comm_get_name(MPI_COMM_SELF, name, &len));
    EXPECT(strcmp(name, "MPI_COMM_SELF") == 0, "MPI_COMM_SELF is named '%s'", name);
    CK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CK(MPI_Comm_get_name(dup, name, &len));
    EXPECT(len == 0 && name[0] == '\0', "a new communicator is named '%s'", name);
    CK(MPI_Comm_set_name(dup, "solver"));
    CK(MPI_Comm_get_name(dup, name, &len));
    EXPECT(strcmp(name, "solver") == 0 && len == 6, "named '%s' (%d)", name, len);
    /* Too long a name is cut to MPI_MAX_OBJECT_NAME - 1 characters. */
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    CK(MPI_Comm_set_name(dup, longname));
    CK(MPI_Comm_get_name(dup, name, &len));
    EXPECT(len == MPI_MAX_OBJECT_NAME - 1 && strlen(name) == (size_t)len, "a long name came back with %d", len);
    CK(MPI_Comm_free(&dup));

    CK(MPI_Type_get_name(MPI_DOUBLE, name, &len));
    EXPECT(strcmp(name, "MPI_DOUBLE") == 0, "MPI_DOUBLE is named '%s'", name);
    CK(MPI_Type_get_name(MPI_UNSIGNED_LONG_LONG, name, &len));
    EXPECT(strcmp(name, "MPI_UNSIGNED_LONG_LONG") == 0, "MPI_UNSIGNED_LONG_LONG is named '%s'", name);
    CK(MPI_Type_contiguous(3, MPI_INT, &t));
    CK(MPI_Type_get_name(t, name, &len));
    EXPECT(len == 0, "a new datatype is named '%s'", name);
    CK(MPI_Type_set_name(t, "triple"));
    CK(MPI_Type_get_name(t, name, &len));
    EXPECT(strcmp(name, "triple") == 0 && len == 6, "named '%s'", name);
    CK(MPI_Type_free(&t));
    {
        int rc;
        CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        rc = MPI_Comm_set_name(MPI_COMM_NULL, "x");
        EXPECT(pt_error_class(rc) == MPI_ERR_COMM, "naming MPI_COMM_NULL gave class %d", pt_error_class(rc));
        rc = MPI_Type_set_name(MPI_DATATYPE_NULL, "x");
        EXPECT(pt_error_class(rc) == MPI_ERR_TYPE, "naming MPI_DATATYPE_NULL gave class %d", pt_error_class(rc));
        CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    }
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv, "mpi2_names");
    check_errhandlers();
    check_attributes();
    check_names();
    return pt_finish();
}
