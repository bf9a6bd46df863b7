/* Info objects (MPI-2 4.10), each process on its own:
 *   MPI_Info_create / set / get / get_valuelen / delete / get_nkeys /
 *     get_nthkey / dup / free: keys numbered in the order they were first
 *     set (a new value keeps the key's place; a deleted key set again comes
 *     last), C strings kept as given (blanks included), MPI_Info_get copying
 *     at most valuelen characters and the NUL and leaving value alone for a
 *     missing key, MPI_Info_get_valuelen likewise, the longest key and value
 *     (MPI_MAX_INFO_KEY - 1 and MPI_MAX_INFO_VAL - 1 characters) whole, a
 *     duplicate independent of its original in both directions, MPI_Info_free
 *     setting the handle to MPI_INFO_NULL;
 *   the errors, with MPI_ERRORS_RETURN on MPI_COMM_WORLD and through a user
 *     handler there (MPI_COMM_SELF's is never called): MPI_ERR_INFO_KEY,
 *     MPI_ERR_INFO_VALUE, MPI_ERR_INFO_NOKEY, and, where the standard leaves
 *     the class to the implementation, Strata's: MPI_ERR_INFO for
 *     MPI_INFO_NULL, a made-up or a freed handle, MPI_ERR_ARG for a key number
 *     out of range, a negative valuelen or a null pointer; a failed call
 *     changes nothing;
 *   info handles through MPI_Info_c2f / MPI_Info_f2c, an info given to
 *     MPI_Alloc_mem, and the texts and classes of the new error classes. */
#include "pt2pt_common.h"

static void expect_class(int rc, int cls, const char *what)
{
    EXPECT(rc != MPI_SUCCESS, "%s succeeded, expected error class %d", what, cls);
    EXPECT(pt_error_class(rc) == cls, "%s gave class %d, expected %d", what, pt_error_class(rc), cls);
}

/* Only Strata's classes where the standard names none. */
static void expect_strata_class(int rc, int cls, const char *what)
{
    EXPECT(rc != MPI_SUCCESS, "%s succeeded, expected an error", what);
    if (PT_STRICT) expect_class(rc, cls, what);
}

static void expect_nkeys(MPI_Info info, int n, const char *what)
{
    int got = -1;
    CK(MPI_Info_get_nkeys(info, &got));
    EXPECT(got == n, "%s: %d keys, expected %d", what, got, n);
}

/* The keys of info are exactly keys[0..n-1], in that order. */
static void expect_keys(MPI_Info info, const char *const keys[], int n, const char *what)
{
    char key[MPI_MAX_INFO_KEY];
    int i;
    expect_nkeys(info, n, what);
    for (i = 0; i < n; ++i) {
        memset(key, 'x', sizeof key);
        CK(MPI_Info_get_nthkey(info, i, key));
        EXPECT(strcmp(key, keys[i]) == 0, "%s: key %d is '%s', expected '%s'", what, i, key, keys[i]);
    }
}

static void expect_value(MPI_Info info, const char *key, const char *value, const char *what)
{
    char got[64];
    int flag = -1, len = -1;
    memset(got, 'x', sizeof got);
    CK(MPI_Info_get(info, key, (int)sizeof got - 1, got, &flag));
    EXPECT(flag, "%s: key '%s' not found", what, key);
    EXPECT(strcmp(got, value) == 0, "%s: key '%s' is '%s', expected '%s'", what, key, got, value);
    CK(MPI_Info_get_valuelen(info, key, &len, &flag));
    EXPECT(flag && len == (int)strlen(value), "%s: valuelen of '%s' is %d (flag %d), expected %d", what, key, len,
           flag, (int)strlen(value));
}

static void expect_missing(MPI_Info info, const char *key, const char *what)
{
    char got[8] = "keep";
    int flag = -1, len = 1234;
    CK(MPI_Info_get(info, key, (int)sizeof got - 1, got, &flag));
    EXPECT(flag == 0, "%s: MPI_Info_get found '%s' (flag %d)", what, key, flag);
    EXPECT(strcmp(got, "keep") == 0, "%s: MPI_Info_get of missing '%s' wrote '%s'", what, key, got);
    flag = -1;
    CK(MPI_Info_get_valuelen(info, key, &len, &flag));
    EXPECT(flag == 0 && len == 1234, "%s: MPI_Info_get_valuelen of missing '%s': flag %d, valuelen %d", what, key,
           flag, len);
}

static void check_basics(void)
{
    static const char *const set3[] = {"alpha", "beta", " gamma "};
    static const char *const deleted[] = {"beta", " gamma "};
    static const char *const again[] = {"beta", " gamma ", "alpha"};
    MPI_Info info = MPI_INFO_NULL;

    pt_set_phase("create, set, get, nthkey order");
    CK(MPI_Info_create(&info));
    EXPECT(info != MPI_INFO_NULL, "MPI_Info_create gave MPI_INFO_NULL");
    expect_nkeys(info, 0, "a new info");
    expect_missing(info, "alpha", "a new info");
    CK(MPI_Info_set(info, "alpha", "1"));
    CK(MPI_Info_set(info, "beta", "two"));
    CK(MPI_Info_set(info, " gamma ", "  spaced  "));
    expect_keys(info, set3, 3, "three keys");
    expect_value(info, "alpha", "1", "three keys");
    expect_value(info, "beta", "two", "three keys");
    /* C strings are taken as they are: blanks belong to keys and values. */
    expect_value(info, " gamma ", "  spaced  ", "three keys");
    expect_missing(info, "gamma", "a key set with blanks");
    /* Keys are case sensitive. */
    expect_missing(info, "ALPHA", "three keys");

    pt_set_phase("a new value keeps the key's place");
    CK(MPI_Info_set(info, "beta", "2"));
    expect_keys(info, set3, 3, "beta set again");
    expect_value(info, "beta", "2", "beta set again");
    CK(MPI_Info_set(info, "beta", ""));
    expect_value(info, "beta", "", "an empty value");

    pt_set_phase("delete");
    CK(MPI_Info_delete(info, "alpha"));
    expect_keys(info, deleted, 2, "alpha deleted");
    expect_missing(info, "alpha", "alpha deleted");
    CK(MPI_Info_set(info, "alpha", "back"));
    expect_keys(info, again, 3, "alpha set again");
    expect_value(info, "alpha", "back", "alpha set again");

    pt_set_phase("free");
    CK(MPI_Info_free(&info));
    EXPECT(info == MPI_INFO_NULL, "MPI_Info_free left the handle %d", (int)info);
}

/* MPI-2 4.10: a valuelen shorter than the value truncates it (MPICH 4.0
 * refuses instead: "Value is too long"). info holds "k" = "abcdefgh". */
static void check_truncation(MPI_Info info)
{
    char small[8];
    int flag = 0;

    if (!PT_STRICT) return;
    memset(small, 'x', sizeof small);
    CK(MPI_Info_get(info, "k", 3, small, &flag));
    EXPECT(flag && strcmp(small, "abc") == 0 && small[4] == 'x', "valuelen 3 gave '%s' (flag %d, byte 4 '%c')",
           small, flag, small[4]);
    memset(small, 'x', sizeof small);
    CK(MPI_Info_get(info, "k", 0, small, &flag));
    EXPECT(flag && small[0] == '\0' && small[1] == 'x', "valuelen 0 gave '%s' (flag %d)", small, flag);
    memset(small, 'x', sizeof small);
    CK(MPI_Info_get(info, "k", 7, small, &flag));
    EXPECT(flag && strncmp(small, "abcdefg", 7) == 0 && small[7] == '\0', "valuelen 7 gave '%.8s'", small);
}

static void check_lengths(void)
{
    char key[MPI_MAX_INFO_KEY];
    char value[MPI_MAX_INFO_VAL];
    char got[MPI_MAX_INFO_VAL];
    int flag = 0, len = 0;
    MPI_Info info;

    pt_set_phase("truncation by MPI_Info_get");
    CK(MPI_Info_create(&info));
    CK(MPI_Info_set(info, "k", "abcdefgh"));
    memset(got, 'x', sizeof got);
    CK(MPI_Info_get(info, "k", MPI_MAX_INFO_VAL - 1, got, &flag));
    EXPECT(flag && strcmp(got, "abcdefgh") == 0 && got[9] == 'x', "a large valuelen gave '%s'", got);
    check_truncation(info);

    pt_set_phase("the longest key and value");
    memset(key, 'K', sizeof key);
    key[MPI_MAX_INFO_KEY - 1] = '\0';
    memset(value, 'V', sizeof value);
    value[MPI_MAX_INFO_VAL - 1] = '\0';
    CK(MPI_Info_set(info, key, value));
    memset(got, 0, sizeof got);
    CK(MPI_Info_get(info, key, MPI_MAX_INFO_VAL - 1, got, &flag));
    EXPECT(flag && strcmp(got, value) == 0, "the longest value came back as %d characters",
           (int)strnlen(got, sizeof got));
    CK(MPI_Info_get_valuelen(info, key, &len, &flag));
    EXPECT(flag && len == MPI_MAX_INFO_VAL - 1, "valuelen of the longest value is %d", len);
    memset(got, 0, sizeof got);
    CK(MPI_Info_get_nthkey(info, 1, got));
    EXPECT(strcmp(got, key) == 0, "the longest key came back as %d characters", (int)strnlen(got, sizeof got));
    CK(MPI_Info_free(&info));
}

static void check_dup(void)
{
    static const char *const order[] = {"z", "a", "m"};
    static const char *const orig_after[] = {"z", "m", "new"};
    MPI_Info info, dup, dup2;

    pt_set_phase("dup");
    CK(MPI_Info_create(&info));
    CK(MPI_Info_set(info, "z", "26"));
    CK(MPI_Info_set(info, "a", "1"));
    CK(MPI_Info_set(info, "m", "13"));
    CK(MPI_Info_dup(info, &dup));
    EXPECT(dup != info && dup != MPI_INFO_NULL, "MPI_Info_dup gave handle %d for %d", (int)dup, (int)info);
    expect_keys(dup, order, 3, "the duplicate");
    expect_value(dup, "a", "1", "the duplicate");

    /* Changes to the original leave the duplicate as it was... */
    CK(MPI_Info_delete(info, "a"));
    CK(MPI_Info_set(info, "m", "changed"));
    CK(MPI_Info_set(info, "new", "x"));
    expect_keys(info, orig_after, 3, "the original after changes");
    expect_keys(dup, order, 3, "the duplicate after the original changed");
    expect_value(dup, "m", "13", "the duplicate after the original changed");
    expect_missing(dup, "new", "the duplicate after the original changed");

    /* ...and the other way round. */
    CK(MPI_Info_set(dup, "only_dup", "y"));
    CK(MPI_Info_delete(dup, "z"));
    expect_missing(info, "only_dup", "the original after the duplicate changed");
    expect_value(info, "z", "26", "the original after the duplicate changed");

    /* Freeing one leaves the other. */
    CK(MPI_Info_free(&info));
    expect_value(dup, "a", "1", "the duplicate after the original was freed");

    /* A duplicate of an empty info is empty. */
    CK(MPI_Info_create(&info));
    CK(MPI_Info_dup(info, &dup2));
    expect_nkeys(dup2, 0, "the duplicate of an empty info");
    CK(MPI_Info_free(&dup2));
    CK(MPI_Info_free(&info));
    CK(MPI_Info_free(&dup));
}

static void check_many(void)
{
    enum { N = 100 };
    MPI_Info infos[N];
    char key[16], value[16];
    int i, j;

    pt_set_phase("many infos");
    for (i = 0; i < N; ++i) {
        CK(MPI_Info_create(&infos[i]));
        snprintf(key, sizeof key, "key%d", i);
        snprintf(value, sizeof value, "%d", i * 7);
        CK(MPI_Info_set(infos[i], key, value));
        for (j = 0; j < i; ++j) EXPECT(infos[j] != infos[i], "infos %d and %d share handle %d", j, i, (int)infos[i]);
    }
    for (i = 0; i < N; ++i) {
        snprintf(key, sizeof key, "key%d", i);
        snprintf(value, sizeof value, "%d", i * 7);
        expect_value(infos[i], key, value, "one of many infos");
        expect_nkeys(infos[i], 1, "one of many infos");
    }
    for (i = 0; i < N; ++i) CK(MPI_Info_free(&infos[i]));
}

static void check_fortran_handles(void)
{
    MPI_Info info, back;
    MPI_Fint f;

    pt_set_phase("MPI_Info_c2f / MPI_Info_f2c");
    CK(MPI_Info_create(&info));
    CK(MPI_Info_set(info, "lang", "C"));
    f = MPI_Info_c2f(info);
    back = MPI_Info_f2c(f);
    EXPECT(back == info, "MPI_Info_f2c(MPI_Info_c2f(%d)) is %d", (int)info, (int)back);
    CK(MPI_Info_set(back, "lang", "Fortran"));
    expect_value(info, "lang", "Fortran", "an info through its Fortran handle");
    EXPECT(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL, "MPI_INFO_NULL round trip");
    CK(MPI_Info_free(&back));
    EXPECT(back == MPI_INFO_NULL, "MPI_Info_free of the converted handle left %d", (int)back);
}

static void check_alloc_mem(void)
{
    MPI_Info info;
    double *d = NULL;
    int i;

    pt_set_phase("an info given to MPI_Alloc_mem");
    CK(MPI_Info_create(&info));
    CK(MPI_Info_set(info, "no_such_hint", "true"));
    CK(MPI_Alloc_mem((MPI_Aint)(16 * sizeof(double)), info, &d));
    EXPECT(d != NULL, "MPI_Alloc_mem with an info returned NULL");
    for (i = 0; i < 16; ++i) d[i] = i;
    CK(MPI_Free_mem(d));
    CK(MPI_Info_free(&info));
}

static int handler_calls = 0;
static int handler_code = 0;
static MPI_Comm handler_comm = MPI_COMM_NULL;

static void handler(MPI_Comm *comm, int *code, ...)
{
    ++handler_calls;
    handler_code = *code;
    handler_comm = *comm;
}

static int self_calls = 0;
static void self_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm, (void)code;
    ++self_calls;
}

static void check_key_value_errors(MPI_Info info)
{
    char longkey[MPI_MAX_INFO_KEY + 50];
    char longvalue[MPI_MAX_INFO_VAL + 50];
    char got[16];
    int flag = 0, len = 0;

    pt_set_phase("key and value errors");
    memset(longkey, 'k', sizeof longkey);
    longkey[sizeof longkey - 1] = '\0';
    memset(longvalue, 'v', sizeof longvalue);
    longvalue[sizeof longvalue - 1] = '\0';
    expect_class(MPI_Info_set(info, longkey, "v"), MPI_ERR_INFO_KEY, "MPI_Info_set of a key too long");
    expect_class(MPI_Info_set(info, "k", longvalue), MPI_ERR_INFO_VALUE, "MPI_Info_set of a value too long");
    expect_class(MPI_Info_get(info, longkey, 4, got, &flag), MPI_ERR_INFO_KEY, "MPI_Info_get of a key too long");
    expect_class(MPI_Info_get_valuelen(info, longkey, &len, &flag), MPI_ERR_INFO_KEY,
                 "MPI_Info_get_valuelen of a key too long");
    expect_class(MPI_Info_delete(info, longkey), MPI_ERR_INFO_KEY, "MPI_Info_delete of a key too long");
    expect_class(MPI_Info_delete(info, "never_set"), MPI_ERR_INFO_NOKEY, "MPI_Info_delete of a missing key");
    /* Strata's limits (MPICH takes a key of MPI_MAX_INFO_KEY characters): a
     * key and a value must fit MPI_MAX_INFO_KEY and MPI_MAX_INFO_VAL bytes
     * with their NUL, and a key is never empty. */
    if (PT_STRICT) {
        longkey[MPI_MAX_INFO_KEY] = '\0';
        longvalue[MPI_MAX_INFO_VAL] = '\0';
        expect_class(MPI_Info_set(info, longkey, "v"), MPI_ERR_INFO_KEY, "a key of MPI_MAX_INFO_KEY characters");
        expect_class(MPI_Info_set(info, "k", longvalue), MPI_ERR_INFO_VALUE, "a value of MPI_MAX_INFO_VAL characters");
        expect_class(MPI_Info_set(info, "", "v"), MPI_ERR_INFO_KEY, "MPI_Info_set of an empty key");
        expect_class(MPI_Info_get(info, "k", -1, got, &flag), MPI_ERR_ARG, "MPI_Info_get with valuelen -1");
    }
    /* n outside 0..nkeys-1 (one key is set). */
    expect_strata_class(MPI_Info_get_nthkey(info, 1, got), MPI_ERR_ARG, "MPI_Info_get_nthkey(1) of one key");
    expect_strata_class(MPI_Info_get_nthkey(info, -1, got), MPI_ERR_ARG, "MPI_Info_get_nthkey(-1)");
}

static void check_pointer_errors(MPI_Info info)
{
    char got[16];
    int flag = 0, len = 0;

    pt_set_phase("null pointers");
    if (!PT_STRICT) return;
    expect_class(MPI_Info_create(NULL), MPI_ERR_ARG, "MPI_Info_create(NULL)");
    expect_class(MPI_Info_set(info, NULL, "v"), MPI_ERR_ARG, "MPI_Info_set of a NULL key");
    expect_class(MPI_Info_set(info, "k", NULL), MPI_ERR_ARG, "MPI_Info_set of a NULL value");
    expect_class(MPI_Info_get(info, "k", 4, NULL, &flag), MPI_ERR_ARG, "MPI_Info_get into NULL");
    expect_class(MPI_Info_get(info, "k", 4, got, NULL), MPI_ERR_ARG, "MPI_Info_get with a NULL flag");
    expect_class(MPI_Info_get_valuelen(info, "k", NULL, &flag), MPI_ERR_ARG, "MPI_Info_get_valuelen into NULL");
    expect_class(MPI_Info_get_valuelen(info, "k", &len, NULL), MPI_ERR_ARG, "MPI_Info_get_valuelen, NULL flag");
    expect_class(MPI_Info_get_nkeys(info, NULL), MPI_ERR_ARG, "MPI_Info_get_nkeys into NULL");
    expect_class(MPI_Info_get_nthkey(info, 0, NULL), MPI_ERR_ARG, "MPI_Info_get_nthkey into NULL");
    expect_class(MPI_Info_dup(info, NULL), MPI_ERR_ARG, "MPI_Info_dup into NULL");
    expect_class(MPI_Info_free(NULL), MPI_ERR_ARG, "MPI_Info_free(NULL)");
}

/* Every function refuses `bad` (MPI_INFO_NULL, a made-up or a freed handle). */
static void check_handle_errors(MPI_Info bad, const char *what)
{
    char got[16], msg[128];
    int flag = 0, len = 0, n = 0;
    MPI_Info dup = MPI_INFO_NULL, copy = bad;
    void *mem = NULL;

    pt_set_phase(what);
    if (!PT_STRICT) return;
#define BAD(call, name)                                                          \
    do {                                                                         \
        snprintf(msg, sizeof msg, "%s of %s", name, what);                       \
        expect_class((call), MPI_ERR_INFO, msg);                                 \
    } while (0)
    BAD(MPI_Info_set(bad, "k", "v"), "MPI_Info_set");
    BAD(MPI_Info_get(bad, "k", 4, got, &flag), "MPI_Info_get");
    BAD(MPI_Info_get_valuelen(bad, "k", &len, &flag), "MPI_Info_get_valuelen");
    BAD(MPI_Info_delete(bad, "k"), "MPI_Info_delete");
    BAD(MPI_Info_get_nkeys(bad, &n), "MPI_Info_get_nkeys");
    BAD(MPI_Info_get_nthkey(bad, 0, got), "MPI_Info_get_nthkey");
    BAD(MPI_Info_dup(bad, &dup), "MPI_Info_dup");
    BAD(MPI_Info_free(&copy), "MPI_Info_free");
    EXPECT(copy == bad, "a failed MPI_Info_free changed the handle to %d", (int)copy);
    if (bad != MPI_INFO_NULL) BAD(MPI_Alloc_mem(16, bad, &mem), "MPI_Alloc_mem");
#undef BAD
}

static void check_errors(void)
{
    static const char *const one[] = {"k"};
    MPI_Errhandler eh, self_eh;
    MPI_Info info, freed;
    int calls;

    pt_set_phase("errors");
    CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    CK(MPI_Info_create(&info));
    CK(MPI_Info_set(info, "k", "v"));
    check_key_value_errors(info);
    check_pointer_errors(info);
    /* A failed call changed nothing. */
    expect_keys(info, one, 1, "the info after the failed calls");
    expect_value(info, "k", "v", "the info after the failed calls");

    check_handle_errors(MPI_INFO_NULL, "MPI_INFO_NULL");
    check_handle_errors((MPI_Info)12345, "a made-up handle");
    CK(MPI_Info_create(&freed));
    {
        MPI_Info copy = freed;
        CK(MPI_Info_free(&copy));
    }
    check_handle_errors(freed, "a freed handle");

    pt_set_phase("errors reach MPI_COMM_WORLD's handler");
    CK(MPI_Comm_create_errhandler(handler, &eh));
    CK(MPI_Comm_create_errhandler(self_handler, &self_eh));
    CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh));
    CK(MPI_Comm_set_errhandler(MPI_COMM_SELF, self_eh));
    calls = handler_calls;
    expect_class(MPI_Info_delete(info, "missing"), MPI_ERR_INFO_NOKEY, "MPI_Info_delete under a user handler");
    EXPECT(handler_calls == calls + 1, "the handler of MPI_COMM_WORLD ran %d times", handler_calls - calls);
    EXPECT(pt_error_class(handler_code) == MPI_ERR_INFO_NOKEY, "the handler saw class %d",
           pt_error_class(handler_code));
    EXPECT(handler_comm == MPI_COMM_WORLD, "the handler ran for another communicator");
    EXPECT(self_calls == 0, "MPI_COMM_SELF's handler ran %d times", self_calls);
    CK(MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_ARE_FATAL));
    CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    CK(MPI_Errhandler_free(&eh));
    CK(MPI_Errhandler_free(&self_eh));
    CK(MPI_Info_free(&info));
}

static void check_error_classes(void)
{
    static const int classes[] = {MPI_ERR_INFO, MPI_ERR_INFO_KEY, MPI_ERR_INFO_VALUE, MPI_ERR_INFO_NOKEY,
                                  MPI_ERR_PORT, MPI_ERR_NAME,     MPI_ERR_SERVICE};
    static const char *const names[] = {"MPI_ERR_INFO", "MPI_ERR_INFO_KEY", "MPI_ERR_INFO_VALUE",
                                        "MPI_ERR_INFO_NOKEY", "MPI_ERR_PORT", "MPI_ERR_NAME",
                                        "MPI_ERR_SERVICE"};
    int i, j;

    pt_set_phase("the MPI-2 error classes");
    for (i = 0; i < (int)(sizeof classes / sizeof classes[0]); ++i) {
        char str[MPI_MAX_ERROR_STRING + 1];
        char paren[64];
        int len = -1, cls = -1;
        EXPECT(classes[i] > MPI_SUCCESS && classes[i] <= MPI_ERR_LASTCODE, "%s (%d) is beyond MPI_ERR_LASTCODE",
               names[i], classes[i]);
        for (j = 0; j < i; ++j) EXPECT(classes[j] != classes[i], "%s equals %s", names[i], names[j]);
        memset(str, 0, sizeof str);
        CK(MPI_Error_string(classes[i], str, &len));
        EXPECT(len > 0 && (int)strlen(str) == len, "MPI_Error_string(%s) gives '%s' (length %d)", names[i], str, len);
        CK(MPI_Error_class(classes[i], &cls));
        EXPECT(cls == classes[i], "MPI_Error_class(%s) is %d", names[i], cls);
        if (!PT_STRICT) continue;
        /* Strata's texts end with the class's name. */
        snprintf(paren, sizeof paren, "(%s)", names[i]);
        EXPECT(strstr(str, paren) != NULL, "the text of %s does not name it: '%s'", names[i], str);
    }
    if (PT_STRICT) {
        /* Then Strata's own MPIX_ERR_QOS (28), within MPI_ERR_LASTCODE. */
        EXPECT(MPI_ERR_INFO == 21 && MPI_ERR_SERVICE == 27 && MPI_ERR_LASTCODE == 28,
               "the classes are numbered %d..%d, MPI_ERR_LASTCODE %d", MPI_ERR_INFO, MPI_ERR_SERVICE,
               MPI_ERR_LASTCODE);
        EXPECT(MPI_MAX_INFO_KEY == 255 && MPI_MAX_INFO_VAL == 1024 && MPI_MAX_PORT_NAME == 1024,
               "MPI_MAX_INFO_KEY %d, MPI_MAX_INFO_VAL %d, MPI_MAX_PORT_NAME %d", MPI_MAX_INFO_KEY,
               MPI_MAX_INFO_VAL, MPI_MAX_PORT_NAME);
    }
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv, "mpi2_info");
    check_basics();
    check_lengths();
    check_dup();
    check_many();
    check_fortran_handles();
    check_alloc_mem();
    check_errors();
    check_error_classes();
    return pt_finish();
}
