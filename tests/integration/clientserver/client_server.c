/* Client/server between two separately started jobs (MPI-2 5.4), run by
 * clientserver_test.py as two mpiruns:
 *
 *   client_server server FILE [MODE]   opens a port, writes its name to FILE,
 *                                      accepts, checks, disconnects
 *   client_server client FILE [MODE]   reads the name from FILE, connects,
 *                                      checks, disconnects
 *
 * MODE (default "full"): "full" checks point-to-point both ways (every pair,
 * a rendezvous-sized message, MPI_ANY_SOURCE), MPI_Intercomm_merge and
 * collectives on the merged communicator; "badsecret" (client) connects with
 * the name's secret changed and expects MPI_ERR_PORT, then connects with the
 * right one; "closed" (server) closes its port after writing the name, then
 * opens a second one in FILE.2 and accepts there; (client) expects MPI_ERR_PORT
 * from the first name, then connects to the second; "names": the server
 * publishes its port as the service "ocean" (a second publication is
 * MPI_ERR_SERVICE), the client looks it up (an unknown service is
 * MPI_ERR_NAME) instead of reading FILE, and the server unpublishes it after
 * the disconnect (twice is MPI_ERR_SERVICE); "vanish" (server): the client
 * (the test itself) leaves after proving the secret: the accept fails with
 * MPI_ERR_OTHER at every rank; "timeout": the server accepts only once
 * FILE.go exists, which the client makes after its MPI_Comm_connect with the
 * info key timeout=1 failed (MPI_ERR_PORT), before it connects again;
 * "fortran" (server): the checks client.f makes, the other side of them;
 * "peerdies": the client's rank 0 ends without MPI_Finalize once connected
 * (its mpirun ends its job), while every server rank waits in MPI_Recv from
 * it: the receive fails with MPI_ERR_OTHER instead of waiting for ever;
 * "lineend": both roots pass the port name with a line's end after it, as
 * fgets leaves a name read back from a file (MPICH's testconnect does so).
 * Each rank prints "ROLE RANK: ok ..." lines; any failure prints "FAIL ..."
 * and aborts the job. */
#define _POSIX_C_SOURCE 200809L
#include <mpi.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *role;
static int wrank;

#define CHECK(cond, ...)                                         \
    do {                                                         \
        if (!(cond)) {                                           \
            fprintf(stderr, "FAIL %s %d: ", role, wrank);        \
            fprintf(stderr, __VA_ARGS__);                        \
            fprintf(stderr, " (line %d)\n", __LINE__);           \
            MPI_Abort(MPI_COMM_WORLD, 1);                        \
        }                                                        \
    } while (0)

/* The text of error code `rc`, for the failure messages. */
static const char *rc_text(int rc) {
    static char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    return text;
}

static void name_write(const char *file, const char *name) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    FILE *f = fopen(tmp, "w");
    CHECK(f != NULL, "cannot write %s", tmp);
    fprintf(f, "%s\n", name);
    fclose(f);
    CHECK(rename(tmp, file) == 0, "cannot rename %s", tmp);
}

static void name_read(const char *file, char *name) {
    FILE *f = NULL;
    for (int i = 0; i < 6000 && f == NULL; ++i) {
        f = fopen(file, "r");
        if (f == NULL) {
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
        }
    }
    CHECK(f != NULL, "no port name in %s", file);
    CHECK(fgets(name, MPI_MAX_PORT_NAME, f) != NULL, "empty %s", file);
    fclose(f);
    name[strcspn(name, "\n")] = '\0';
}

/* Every local rank sends to every remote rank and receives from each. */
static void pairs_check(MPI_Comm inter, int server) {
    int rank, size, rsize;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &size);
    MPI_Comm_remote_size(inter, &rsize);
    int *in = calloc((size_t)rsize, sizeof(int));
    int *out = calloc((size_t)rsize, sizeof(int));
    MPI_Request *reqs = calloc(2 * (size_t)rsize, sizeof(MPI_Request));
    for (int r = 0; r < rsize; ++r) {
        out[r] = (server ? 1000 : 2000) + rank * 10 + r;
        MPI_Irecv(&in[r], 1, MPI_INT, r, 7, inter, &reqs[r]);
        MPI_Isend(&out[r], 1, MPI_INT, r, 7, inter, &reqs[rsize + r]);
    }
    CHECK(MPI_Waitall(2 * rsize, reqs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "waitall");
    for (int r = 0; r < rsize; ++r)
        CHECK(in[r] == (server ? 2000 : 1000) + r * 10 + rank, "from remote %d got %d", r, in[r]);
    free(in);
    free(out);
    free(reqs);
}

/* A message above the eager limits from local 0 to remote 0 and back. */
static void large_check(MPI_Comm inter, int server) {
    int rank;
    MPI_Comm_rank(inter, &rank);
    if (rank != 0) return;
    const int n = 1 << 18; /* 1 MiB of ints */
    int *buf = malloc((size_t)n * sizeof(int));
    if (server) {
        for (int i = 0; i < n; ++i) buf[i] = i ^ 0x5a5a;
        MPI_Send(buf, n, MPI_INT, 0, 8, inter);
        MPI_Recv(buf, n, MPI_INT, 0, 9, inter, MPI_STATUS_IGNORE);
        for (int i = 0; i < n; ++i) CHECK(buf[i] == i + 1, "large reply[%d] = %d", i, buf[i]);
    } else {
        MPI_Status st;
        MPI_Recv(buf, n, MPI_INT, MPI_ANY_SOURCE, 8, inter, &st);
        CHECK(st.MPI_SOURCE == 0, "large from %d", st.MPI_SOURCE);
        for (int i = 0; i < n; ++i) CHECK(buf[i] == (i ^ 0x5a5a), "large[%d] = %d", i, buf[i]);
        for (int i = 0; i < n; ++i) buf[i] = i + 1;
        MPI_Send(buf, n, MPI_INT, 0, 9, inter);
    }
    free(buf);
}

/* The merged communicator: the server's ranks first. */
static void merged_check(MPI_Comm inter, int server) {
    int lsize, rsize, rank;
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Comm_rank(inter, &rank);
    MPI_Comm merged;
    CHECK(MPI_Intercomm_merge(inter, server ? 0 : 1, &merged) == MPI_SUCCESS, "merge");
    int mrank, msize;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    const int ssize = server ? lsize : rsize;
    CHECK(msize == lsize + rsize, "merged size %d", msize);
    CHECK(mrank == (server ? rank : ssize + rank), "merged rank %d", mrank);
    int sum = 0;
    MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == msize * (msize - 1) / 2, "allreduce sum %d", sum);
    int token = mrank == msize - 1 ? 4242 : -1;
    MPI_Bcast(&token, 1, MPI_INT, msize - 1, merged);
    CHECK(token == 4242, "bcast got %d", token);
    int *all = malloc((size_t)msize * sizeof(int));
    MPI_Allgather(&mrank, 1, MPI_INT, all, 1, MPI_INT, merged);
    for (int i = 0; i < msize; ++i) CHECK(all[i] == i, "allgather[%d] = %d", i, all[i]);
    free(all);
    MPI_Barrier(merged);
    printf("%s %d: ok merged size %d rank %d sum %d\n", role, wrank, msize, mrank, sum);
    MPI_Comm_free(&merged);
}

/* Collectives over the intercommunicator itself (MPI-2 7.3): each group
 * roots in turn, the other receives. */
static void inter_collectives_check(MPI_Comm inter, int server) {
    int rank, lsize, rsize;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_size(inter, &lsize);
    MPI_Comm_remote_size(inter, &rsize);
    MPI_Barrier(inter);
    for (int rooted = 0; rooted < 2; ++rooted) {
        const int mine = rooted == server; /* this group holds the root */
        int v = mine ? 77 + rooted : -1;
        const int root = mine ? (rank == 0 ? MPI_ROOT : MPI_PROC_NULL) : 0;
        MPI_Bcast(&v, 1, MPI_INT, root, inter);
        if (!mine) CHECK(v == 77 + rooted, "inter bcast got %d", v);
        int *all = calloc((size_t)rsize + 1, sizeof(int));
        int x = 100 * server + rank;
        MPI_Gather(&x, 1, MPI_INT, all, 1, MPI_INT, root, inter);
        if (mine && rank == 0)
            for (int i = 0; i < rsize; ++i) CHECK(all[i] == 100 * !server + i, "inter gather[%d] = %d", i, all[i]);
        free(all);
    }
    int x = server ? 1 : 1000, sum = 0;
    MPI_Allreduce(&x, &sum, 1, MPI_INT, MPI_SUM, inter);
    CHECK(sum == (server ? 1000 * rsize : rsize), "inter allreduce %d", sum);
    int *out = malloc((size_t)rsize * sizeof(int)), *in = malloc((size_t)rsize * sizeof(int));
    for (int i = 0; i < rsize; ++i) out[i] = 10000 * server + 100 * rank + i;
    MPI_Alltoall(out, 1, MPI_INT, in, 1, MPI_INT, inter);
    for (int i = 0; i < rsize; ++i)
        CHECK(in[i] == 10000 * !server + 100 * i + rank, "inter alltoall[%d] = %d", i, in[i]);
    MPI_Allgather(&rank, 1, MPI_INT, in, 1, MPI_INT, inter);
    for (int i = 0; i < rsize; ++i) CHECK(in[i] == i, "inter allgather[%d] = %d", i, in[i]);
    free(out);
    free(in);
    printf("%s %d: ok inter collectives (local %d, remote %d)\n", role, wrank, lsize, rsize);
}

static void checks(MPI_Comm inter, int server) {
    int flag = 0, rsize = 0;
    MPI_Comm_test_inter(inter, &flag);
    CHECK(flag, "not an intercommunicator");
    MPI_Comm_remote_size(inter, &rsize);
    pairs_check(inter, server);
    large_check(inter, server);
    inter_collectives_check(inter, server);
    merged_check(inter, server);
    printf("%s %d: ok remote size %d\n", role, wrank, rsize);
}

/* The server's side of client.f's checks. */
static void fortran_client_check(MPI_Comm inter) {
    int rank, rsize;
    MPI_Comm_rank(inter, &rank);
    MPI_Comm_remote_size(inter, &rsize);
    for (int r = 0; r < rsize; ++r) {
        const int v = 1000 + 10 * rank + r;
        MPI_Send(&v, 1, MPI_INT, r, 7, inter);
    }
    for (int r = 0; r < rsize; ++r) {
        int v = 0;
        MPI_Recv(&v, 1, MPI_INT, r, 7, inter, MPI_STATUS_IGNORE);
        CHECK(v == 2000 + 10 * r + rank, "from Fortran rank %d got %d", r, v);
    }
    MPI_Comm merged;
    CHECK(MPI_Intercomm_merge(inter, 0, &merged) == MPI_SUCCESS, "merge");
    int mrank, msize, sum = 0;
    MPI_Comm_rank(merged, &mrank);
    MPI_Comm_size(merged, &msize);
    MPI_Allreduce(&mrank, &sum, 1, MPI_INT, MPI_SUM, merged);
    CHECK(sum == msize * (msize - 1) / 2, "allreduce %d", sum);
    MPI_Comm_free(&merged);
    int token = 4242;
    MPI_Bcast(&token, 1, MPI_INT, rank == 0 ? MPI_ROOT : MPI_PROC_NULL, inter);
    printf("%s %d: ok fortran client, remote size %d\n", role, wrank, rsize);
}

static void serve(const char *file, const char *mode) {
    char port[MPI_MAX_PORT_NAME] = "";
    if (wrank == 0) {
        CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "open port");
        name_write(file, port);
        if (strcmp(mode, "lineend") == 0) strcat(port, "\n");
        if (strcmp(mode, "closed") == 0) {
            CHECK(MPI_Close_port(port) == MPI_SUCCESS, "close port");
            CHECK(MPI_Close_port(port) == MPI_ERR_PORT, "closing twice is not MPI_ERR_PORT");
            char second[4096];
            snprintf(second, sizeof second, "%s.2", file);
            CHECK(MPI_Open_port(MPI_INFO_NULL, port) == MPI_SUCCESS, "open second port");
            name_write(second, port);
        }
    }
    const int names = strcmp(mode, "names") == 0;
    if (names && wrank == 0) {
        CHECK(MPI_Publish_name("ocean", MPI_INFO_NULL, port) == MPI_SUCCESS, "publish");
        int cls = -1;
        MPI_Error_class(MPI_Publish_name("ocean", MPI_INFO_NULL, port), &cls);
        CHECK(cls == MPI_ERR_SERVICE, "a second publication gave class %d", cls);
        printf("%s %d: ok published\n", role, wrank);
    }
    MPI_Comm inter;
    if (strcmp(mode, "vanish") == 0) {
        int cls = -1;
        MPI_Error_class(MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter), &cls);
        CHECK(cls == MPI_ERR_OTHER && inter == MPI_COMM_NULL, "a client that vanished gave class %d", cls);
        printf("%s %d: ok vanished client\n", role, wrank);
        if (wrank == 0) CHECK(MPI_Close_port(port) == MPI_SUCCESS, "close port");
        return;
    }
    if (strcmp(mode, "timeout") == 0 && wrank == 0) {
        char go[4096], text[MPI_MAX_PORT_NAME];
        snprintf(go, sizeof go, "%s.go", file);
        name_read(go, text);
    }
    /* "subject": only the client whose certificate subject the test names. */
    MPI_Info allowed = MPI_INFO_NULL;
    if (strcmp(mode, "subject") == 0) {
        MPI_Info_create(&allowed);
        MPI_Info_set(allowed, "allowed_subjects", getenv("STRATA_TEST_SUBJECT"));
    }
    int rc = MPI_Comm_accept(port, allowed, 0, MPI_COMM_WORLD, &inter);
    CHECK(rc == MPI_SUCCESS, "accept: %s", rc_text(rc));
    if (allowed != MPI_INFO_NULL) MPI_Info_free(&allowed);
    if (strcmp(mode, "subject") == 0) {
        MPI_Info used;
        char subject[MPI_MAX_INFO_VAL + 1] = "";
        int flag = 0;
        CHECK(MPI_Comm_get_info(inter, &used) == MPI_SUCCESS, "get info");
        MPI_Info_get(used, "peer_subject", MPI_MAX_INFO_VAL, subject, &flag);
        CHECK(flag && strcmp(subject, getenv("STRATA_TEST_SUBJECT")) == 0, "peer_subject '%s'", subject);
        MPI_Info_free(&used);
        printf("%s %d: ok peer subject %s\n", role, wrank, subject);
    }
    if (strcmp(mode, "peerdies") == 0) {
        int v = 0, cls = -1;
        MPI_Comm_set_errhandler(inter, MPI_ERRORS_RETURN);
        MPI_Error_class(MPI_Recv(&v, 1, MPI_INT, 0, 5, inter, MPI_STATUS_IGNORE), &cls);
        CHECK(cls == MPI_ERR_OTHER, "a receive from a process that died gave class %d", cls);
        printf("%s %d: ok peer died\n", role, wrank);
        MPI_Comm_free(&inter);
        if (wrank == 0) CHECK(MPI_Close_port(port) == MPI_SUCCESS, "close port");
        return;
    } else if (strcmp(mode, "fortran") == 0) {
        fortran_client_check(inter);
    } else {
        checks(inter, 1);
    }
    CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS && inter == MPI_COMM_NULL, "disconnect");
    if (names && wrank == 0) {
        CHECK(MPI_Unpublish_name("ocean", MPI_INFO_NULL, port) == MPI_SUCCESS, "unpublish");
        int cls = -1;
        MPI_Error_class(MPI_Unpublish_name("ocean", MPI_INFO_NULL, port), &cls);
        CHECK(cls == MPI_ERR_SERVICE, "a second unpublication gave class %d", cls);
        printf("%s %d: ok unpublished\n", role, wrank);
    }
    if (wrank == 0) CHECK(MPI_Close_port(port) == MPI_SUCCESS, "close port");
}

static void client(const char *file, const char *mode) {
    char port[MPI_MAX_PORT_NAME] = "";
    MPI_Comm inter = MPI_COMM_NULL;
    if (strcmp(mode, "names") == 0 && wrank == 0) {
        int cls = -1;
        MPI_Error_class(MPI_Lookup_name("no-such-service", MPI_INFO_NULL, port), &cls);
        CHECK(cls == MPI_ERR_NAME, "an unknown service gave class %d", cls);
        /* The server publishes when it is ready: until then, MPI_ERR_NAME. */
        int rc = MPI_ERR_NAME;
        for (int i = 0; i < 6000 && rc != MPI_SUCCESS; ++i) {
            rc = MPI_Lookup_name("ocean", MPI_INFO_NULL, port);
            if (rc != MPI_SUCCESS) {
                struct timespec ts = {0, 10000000};
                nanosleep(&ts, NULL);
            }
        }
        CHECK(rc == MPI_SUCCESS, "lookup of ocean");
        printf("%s %d: ok looked up\n", role, wrank);
    } else if (wrank == 0) {
        name_read(file, port);
        if (strcmp(mode, "lineend") == 0) strcat(port, "\n");
    }
    if (strcmp(mode, "badsecret") == 0) {
        char bad[MPI_MAX_PORT_NAME];
        strcpy(bad, port);
        if (wrank == 0) {
            char *last = bad + strlen(bad) - 1;
            *last = *last == '0' ? '1' : '0';
        }
        const int rc = MPI_Comm_connect(bad, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_PORT && inter == MPI_COMM_NULL, "wrong secret gave class %d", cls);
        printf("%s %d: ok wrong secret refused\n", role, wrank);
    }
    if (strcmp(mode, "closed") == 0) {
        const int rc = MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
        int cls = -1;
        MPI_Error_class(rc, &cls);
        CHECK(cls == MPI_ERR_PORT && inter == MPI_COMM_NULL, "closed port gave class %d", cls);
        printf("%s %d: ok closed port refused\n", role, wrank);
        char second[4096];
        snprintf(second, sizeof second, "%s.2", file);
        if (wrank == 0) name_read(second, port);
    }
    if (strcmp(mode, "refused") == 0) {
        /* The server takes other subjects only: refused, and it keeps waiting. */
        int cls = -1;
        MPI_Error_class(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter), &cls);
        CHECK(cls == MPI_ERR_PORT && inter == MPI_COMM_NULL, "a refused subject gave class %d", cls);
        printf("%s %d: ok subject refused\n", role, wrank);
        return;
    }
    if (strcmp(mode, "timeout") == 0) {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "timeout", "1");
        const double t0 = MPI_Wtime();
        int cls = -1;
        MPI_Error_class(MPI_Comm_connect(port, info, 0, MPI_COMM_WORLD, &inter), &cls);
        CHECK(cls == MPI_ERR_PORT && inter == MPI_COMM_NULL, "a connect that timed out gave class %d", cls);
        CHECK(MPI_Wtime() - t0 >= 0.9, "timed out after %.3f s", MPI_Wtime() - t0);
        /* Without the key: STRATA_CONNECT_TIMEOUT (the test sets 1 s). */
        MPI_Error_class(MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter), &cls);
        CHECK(cls == MPI_ERR_PORT && inter == MPI_COMM_NULL, "the default time-out gave class %d", cls);
        MPI_Info_set(info, "timeout", "soon");
        MPI_Error_class(MPI_Comm_connect(port, info, 0, MPI_COMM_WORLD, &inter), &cls);
        CHECK(cls == MPI_ERR_ARG, "timeout=soon gave class %d", cls);
        MPI_Info_free(&info);
        printf("%s %d: ok timed out\n", role, wrank);
        char go[4096];
        snprintf(go, sizeof go, "%s.go", file);
        if (wrank == 0) name_write(go, "go");
    }
    /* In "timeout" mode the default limit is 1 s (STRATA_CONNECT_TIMEOUT):
     * the real connect gives itself more, whatever the machine's load. */
    MPI_Info patient = MPI_INFO_NULL;
    if (strcmp(mode, "timeout") == 0) {
        MPI_Info_create(&patient);
        MPI_Info_set(patient, "timeout", "120");
    }
    const int rc = MPI_Comm_connect(port, patient, 0, MPI_COMM_WORLD, &inter);
    CHECK(rc == MPI_SUCCESS, "connect: %s", rc_text(rc));
    if (patient != MPI_INFO_NULL) MPI_Info_free(&patient);
    if (strcmp(mode, "peerdies") == 0) {
        MPI_Barrier(MPI_COMM_WORLD);
        if (wrank == 0) _exit(3);
        pause(); /* until mpirun ends the job */
    }
    if (strcmp(mode, "subject") == 0) {
        /* The client side has no subject of the server: no hint. */
        MPI_Info used;
        int nkeys = -1;
        CHECK(MPI_Comm_get_info(inter, &used) == MPI_SUCCESS, "get info");
        MPI_Info_get_nkeys(used, &nkeys);
        CHECK(nkeys == 0, "the client's intercommunicator has %d hints", nkeys);
        MPI_Info_free(&used);
    }
    checks(inter, 0);
    CHECK(MPI_Comm_disconnect(&inter) == MPI_SUCCESS && inter == MPI_COMM_NULL, "disconnect");
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    role = argc > 1 ? argv[1] : "?";
    CHECK(argc >= 3, "usage: client_server server|client FILE [MODE]");
    const char *mode = argc > 3 ? argv[3] : "full";
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (strcmp(role, "server") == 0) {
        serve(argv[2], mode);
    } else {
        client(argv[2], mode);
    }
    MPI_Finalize();
    return 0;
}
