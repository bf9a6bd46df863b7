/* Environment additions: MPI_Init_thread (the level Strata provides, at most
 * MPI_THREAD_FUNNELED), MPI_Query_thread, MPI_Is_thread_main from the main
 * thread and from another one, MPI_Finalized before and after MPI_Finalize,
 * MPI_Alloc_mem and MPI_Free_mem with their error cases. */
#include <pthread.h>

#include "pt2pt_common.h"

static void *other_thread(void *arg)
{
    /* MPI_Is_thread_main is the one call a thread that is not the main one
     * may make under MPI_THREAD_FUNNELED: it is how a thread finds out. */
    int *flag = (int *)arg;
    MPI_Is_thread_main(flag);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided = -1, level = -1, flag = -1, rc;
    pt_test_name = "mpi2_env";
    CK(MPI_Finalized(&flag));
    EXPECT(flag == 0, "MPI_Finalized before MPI_Init says %d", flag);
    CK(MPI_Initialized(&flag));
    EXPECT(flag == 0, "MPI_Initialized before MPI_Init says %d", flag);
    CK(MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided));
    CK(MPI_Comm_rank(MPI_COMM_WORLD, &pt_rank));
    CK(MPI_Comm_size(MPI_COMM_WORLD, &pt_size));

    pt_set_phase("thread level");
#ifdef STRATA_VERSION
    EXPECT(provided == MPI_THREAD_FUNNELED, "asked MPI_THREAD_MULTIPLE, provided %d, expected FUNNELED", provided);
#endif
    EXPECT(provided >= MPI_THREAD_SINGLE && provided <= MPI_THREAD_MULTIPLE, "provided %d", provided);
    CK(MPI_Query_thread(&level));
    EXPECT(level == provided, "MPI_Query_thread says %d, MPI_Init_thread provided %d", level, provided);
    CK(MPI_Is_thread_main(&flag));
    EXPECT(flag == 1, "MPI_Is_thread_main in the main thread says %d", flag);
    {
        pthread_t t;
        int other = -1;
        EXPECT(pthread_create(&t, NULL, other_thread, &other) == 0, "pthread_create failed");
        pthread_join(t, NULL);
        EXPECT(other == 0, "MPI_Is_thread_main in another thread says %d", other);
    }
    CK(MPI_Finalized(&flag));
    EXPECT(flag == 0, "MPI_Finalized while running says %d", flag);

    pt_set_phase("MPI_Alloc_mem");
    {
        double *d = NULL;
        int *none = NULL;
        char *huge = NULL;
        int i;
        CK(MPI_Alloc_mem((MPI_Aint)(1000 * sizeof(double)), MPI_INFO_NULL, &d));
        EXPECT(d != NULL, "MPI_Alloc_mem returned NULL");
        for (i = 0; i < 1000; ++i) d[i] = i * 0.5;
        /* The memory works as a communication buffer. */
        if (pt_size > 1) {
            if (pt_rank == 0) CK(MPI_Send(d, 1000, MPI_DOUBLE, 1, 3, MPI_COMM_WORLD));
            if (pt_rank == 1) {
                for (i = 0; i < 1000; ++i) d[i] = -1;
                CK(MPI_Recv(d, 1000, MPI_DOUBLE, 0, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                for (i = 0; i < 1000; ++i) EXPECT(d[i] == i * 0.5, "element %d is %g", i, d[i]);
            }
        }
        CK(MPI_Free_mem(d));
        CK(MPI_Alloc_mem(0, MPI_INFO_NULL, &none));
        CK(MPI_Free_mem(none));

        CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
        rc = MPI_Alloc_mem(-1, MPI_INFO_NULL, &huge);
        EXPECT(pt_error_class(rc) == MPI_ERR_ARG, "a negative size gave class %d", pt_error_class(rc));
#ifdef STRATA_VERSION
        /* More than any machine has: the MPI-2 class for it. */
        rc = MPI_Alloc_mem((MPI_Aint)1 << 62, MPI_INFO_NULL, &huge);
        EXPECT(pt_error_class(rc) == MPI_ERR_NO_MEM, "2^62 bytes gave class %d, expected MPI_ERR_NO_MEM",
               pt_error_class(rc));
        rc = MPI_Alloc_mem(16, (MPI_Info)12345, &huge);
        EXPECT(pt_error_class(rc) == MPI_ERR_INFO, "an invalid info handle gave class %d", pt_error_class(rc));
        {
            int local = 0;
            rc = MPI_Free_mem(&local);
            EXPECT(pt_error_class(rc) == MPI_ERR_ARG, "freeing memory MPI did not allocate gave class %d",
                   pt_error_class(rc));
        }
#endif
        CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
    }

    pt_set_phase("finish");
    CK(MPI_Barrier(MPI_COMM_WORLD));
    if (pt_rank == 0) printf("%s: ok (%d processes)\n", pt_test_name, pt_size);
    fflush(stdout);
    CK(MPI_Finalize());
    if (MPI_Finalized(&flag) != MPI_SUCCESS || flag != 1) {
        fprintf(stderr, "mpi2_env: rank %d: MPI_Finalized after MPI_Finalize says %d\n", pt_rank, flag);
        return 1;
    }
    return 0;
}
