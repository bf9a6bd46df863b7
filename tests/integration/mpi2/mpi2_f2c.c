/* Handles and statuses between C and Fortran (MPI-2 4.12.4): every handle
 * conversion returns its argument (a Fortran handle is the C handle's value,
 * so a handle a Fortran routine made is used from C and back, null handles
 * included), MPI_Status_c2f/f2c copy a real status through MPI_STATUS_SIZE
 * INTEGERs with MPI_SOURCE, MPI_TAG and MPI_ERROR first, and a null pointer
 * or MPI_STATUS_IGNORE is MPI_ERR_ARG through MPI_COMM_WORLD's handler. */
#include "pt2pt_common.h"

static void check_handles(void)
{
    MPI_Comm dup;
    MPI_Datatype vec;
    MPI_Group group;
    MPI_Op op;
    MPI_Errhandler eh;
    MPI_Request rq;
    int value = 7, got = 0;

    pt_set_phase("handle conversions");
    CK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
    CK(MPI_Type_vector(2, 1, 2, MPI_INT, &vec));
    CK(MPI_Comm_group(dup, &group));
    CK(MPI_Comm_get_errhandler(dup, &eh));
    op = MPI_SUM;
    EXPECT(MPI_Comm_f2c(MPI_Comm_c2f(dup)) == dup, "MPI_Comm round trip");
    EXPECT(MPI_Comm_c2f(MPI_COMM_WORLD) == (MPI_Fint)MPI_COMM_WORLD, "MPI_COMM_WORLD in Fortran");
    EXPECT(MPI_Comm_f2c(MPI_Comm_c2f(MPI_COMM_NULL)) == MPI_COMM_NULL, "MPI_COMM_NULL round trip");
    EXPECT(MPI_Type_f2c(MPI_Type_c2f(vec)) == vec, "MPI_Datatype round trip");
    EXPECT(MPI_Group_f2c(MPI_Group_c2f(group)) == group, "MPI_Group round trip");
    EXPECT(MPI_Op_f2c(MPI_Op_c2f(op)) == op, "MPI_Op round trip");
    EXPECT(MPI_Errhandler_f2c(MPI_Errhandler_c2f(eh)) == eh, "MPI_Errhandler round trip");
    EXPECT(MPI_Info_f2c(MPI_Info_c2f(MPI_INFO_NULL)) == MPI_INFO_NULL, "MPI_INFO_NULL round trip");
    EXPECT(MPI_Request_f2c(MPI_Request_c2f(MPI_REQUEST_NULL)) == MPI_REQUEST_NULL, "MPI_REQUEST_NULL round trip");

    /* A converted handle works: a request made here completes through its Fortran value. */
    CK(MPI_Isend(&value, 1, MPI_INT, pt_rank, 5, MPI_Comm_f2c(MPI_Comm_c2f(dup)), &rq));
    CK(MPI_Recv(&got, 1, MPI_INT, pt_rank, 5, dup, MPI_STATUS_IGNORE));
    rq = MPI_Request_f2c(MPI_Request_c2f(rq));
    CK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
    EXPECT(got == 7 && rq == MPI_REQUEST_NULL, "the converted request did not complete (%d)", got);

    CK(MPI_Type_free(&vec));
    CK(MPI_Group_free(&group));
    CK(MPI_Comm_free(&dup));
}

static void check_statuses(void)
{
    MPI_Fint f[6];
    MPI_Status st, back;
    int sent = 42, got = 0, count = -1;

    pt_set_phase("status conversions");
    /* Strata's MPI_STATUS_SIZE is 6 (MPICH's is 5, within f). */
    EXPECT(!PT_STRICT || sizeof(MPI_Status) == sizeof f, "MPI_Status is %d bytes, not 6 INTEGERs",
           (int)sizeof(MPI_Status));
    CK(MPI_Sendrecv(&sent, 1, MPI_INT, pt_rank, 9, &got, 1, MPI_INT, pt_rank, 9, MPI_COMM_WORLD, &st));
    memset(f, 0xff, sizeof f);
    CK(MPI_Status_c2f(&st, f));
    /* Strata's mpif.h: MPI_SOURCE, MPI_TAG, MPI_ERROR are 1, 2, 3 (MPICH's 3, 4, 5). */
    EXPECT(!PT_STRICT || (f[0] == pt_rank && f[1] == 9 && f[2] == st.MPI_ERROR),
           "Fortran status (%d, %d, %d): not MPI_SOURCE, MPI_TAG, MPI_ERROR", f[0], f[1], f[2]);
    memset(&back, 0, sizeof back);
    CK(MPI_Status_f2c(f, &back));
    CK(MPI_Get_count(&back, MPI_INT, &count));
    EXPECT(back.MPI_SOURCE == pt_rank && back.MPI_TAG == 9 && count == 1,
           "status back from Fortran: source %d tag %d count %d", back.MPI_SOURCE, back.MPI_TAG, count);

    /* The error class is the standard's only where it names one (MPICH
     * answers some of these with its own classes). */
    pt_set_phase("status conversion errors");
    if (!PT_STRICT) return;
    CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
    EXPECT(MPI_Status_c2f(NULL, f) == MPI_ERR_ARG, "MPI_Status_c2f(NULL) is not MPI_ERR_ARG");
    EXPECT(MPI_Status_c2f(&st, NULL) == MPI_ERR_ARG, "MPI_Status_c2f to NULL is not MPI_ERR_ARG");
    EXPECT(MPI_Status_c2f(MPI_STATUS_IGNORE, f) == MPI_ERR_ARG, "MPI_Status_c2f(MPI_STATUS_IGNORE)");
    EXPECT(MPI_Status_f2c(NULL, &back) == MPI_ERR_ARG, "MPI_Status_f2c(NULL) is not MPI_ERR_ARG");
    EXPECT(MPI_Status_f2c(f, NULL) == MPI_ERR_ARG, "MPI_Status_f2c to NULL is not MPI_ERR_ARG");
    EXPECT(MPI_Status_f2c(f, MPI_STATUS_IGNORE) == MPI_ERR_ARG, "MPI_Status_f2c to MPI_STATUS_IGNORE");
    CK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

int main(int argc, char **argv)
{
    pt_init(&argc, &argv, "mpi2_f2c");
    check_handles();
    check_statuses();
    return pt_finish();
}
