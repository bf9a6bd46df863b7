/* Strata: a grid-enabled implementation of MPI-1 (MPI 1.3, C bindings).
 *
 * Handles are integers. Each kind of object owns a handle range so a handle of
 * the wrong kind is detected and reported with the right error class. Every
 * MPI_ function is also reachable as PMPI_ for profiling interposers.
 */
#ifndef STRATA_MPI_H
#define STRATA_MPI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MPI_VERSION 1
#define MPI_SUBVERSION 3
#define STRATA_VERSION "0.1.0"

typedef int MPI_Comm;
typedef int MPI_Datatype;
typedef int MPI_Request;
typedef int MPI_Op;
typedef int MPI_Group;
typedef int MPI_Errhandler;
typedef long MPI_Aint;

typedef struct MPI_Status {
    int MPI_SOURCE;
    int MPI_TAG;
    int MPI_ERROR;
    int strata_cancelled;    /* internal: set when the request was cancelled */
    long long strata_bytes;  /* internal: bytes received, read by MPI_Get_count */
} MPI_Status;

typedef void MPI_Handler_function(MPI_Comm *, int *, ...);

/* Handle ranges: (kind << 26) | index. Null handles are 0 for every kind. */
#define STRATA_HANDLE(kind, index) ((int)(((kind) << 26) | (index)))

#define MPI_COMM_NULL ((MPI_Comm)0)
#define MPI_COMM_WORLD ((MPI_Comm)STRATA_HANDLE(1, 0))
#define MPI_COMM_SELF ((MPI_Comm)STRATA_HANDLE(1, 1))

#define MPI_DATATYPE_NULL ((MPI_Datatype)0)
#define MPI_CHAR ((MPI_Datatype)STRATA_HANDLE(2, 1))
#define MPI_SHORT ((MPI_Datatype)STRATA_HANDLE(2, 2))
#define MPI_INT ((MPI_Datatype)STRATA_HANDLE(2, 3))
#define MPI_LONG ((MPI_Datatype)STRATA_HANDLE(2, 4))
#define MPI_UNSIGNED_CHAR ((MPI_Datatype)STRATA_HANDLE(2, 5))
#define MPI_UNSIGNED_SHORT ((MPI_Datatype)STRATA_HANDLE(2, 6))
#define MPI_UNSIGNED ((MPI_Datatype)STRATA_HANDLE(2, 7))
#define MPI_UNSIGNED_LONG ((MPI_Datatype)STRATA_HANDLE(2, 8))
#define MPI_FLOAT ((MPI_Datatype)STRATA_HANDLE(2, 9))
#define MPI_DOUBLE ((MPI_Datatype)STRATA_HANDLE(2, 10))
#define MPI_LONG_DOUBLE ((MPI_Datatype)STRATA_HANDLE(2, 11))
#define MPI_BYTE ((MPI_Datatype)STRATA_HANDLE(2, 12))
#define MPI_PACKED ((MPI_Datatype)STRATA_HANDLE(2, 13))
#define MPI_LONG_LONG_INT ((MPI_Datatype)STRATA_HANDLE(2, 14))
#define MPI_LONG_LONG MPI_LONG_LONG_INT
#define MPI_2INT ((MPI_Datatype)STRATA_HANDLE(2, 15))

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_GROUP_NULL ((MPI_Group)0)

#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)STRATA_HANDLE(6, 1))
#define MPI_ERRORS_RETURN ((MPI_Errhandler)STRATA_HANDLE(6, 2))

#define MPI_ANY_SOURCE (-2)
#define MPI_PROC_NULL (-1)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_BOTTOM ((void *)0)
#define MPI_STATUS_IGNORE ((MPI_Status *)1)
#define MPI_STATUSES_IGNORE ((MPI_Status *)1)
#define MPI_BSEND_OVERHEAD 64
#define MPI_MAX_PROCESSOR_NAME 256
#define MPI_MAX_ERROR_STRING 512

/* Error classes (MPI-1.3 section 7.4). Error codes equal their classes. */
#define MPI_SUCCESS 0
#define MPI_ERR_BUFFER 1
#define MPI_ERR_COUNT 2
#define MPI_ERR_TYPE 3
#define MPI_ERR_TAG 4
#define MPI_ERR_COMM 5
#define MPI_ERR_RANK 6
#define MPI_ERR_REQUEST 7
#define MPI_ERR_ROOT 8
#define MPI_ERR_GROUP 9
#define MPI_ERR_OP 10
#define MPI_ERR_TOPOLOGY 11
#define MPI_ERR_DIMS 12
#define MPI_ERR_ARG 13
#define MPI_ERR_UNKNOWN 14
#define MPI_ERR_TRUNCATE 15
#define MPI_ERR_OTHER 16
#define MPI_ERR_INTERN 17
#define MPI_ERR_IN_STATUS 18
#define MPI_ERR_PENDING 19
#define MPI_ERR_LASTCODE 19

/* Each function is declared twice: MPI_name and its profiling twin PMPI_name. */
#define STRATA_API(ret, name, args) \
    __attribute__((visibility("default"))) ret MPI_##name args; \
    __attribute__((visibility("default"))) ret PMPI_##name args;

/* Environment */
STRATA_API(int, Init, (int *argc, char ***argv))
STRATA_API(int, Finalize, (void))
STRATA_API(int, Initialized, (int *flag))
STRATA_API(int, Abort, (MPI_Comm comm, int errorcode))
STRATA_API(double, Wtime, (void))
STRATA_API(double, Wtick, (void))
STRATA_API(int, Get_processor_name, (char *name, int *resultlen))
STRATA_API(int, Get_version, (int *version, int *subversion))
STRATA_API(int, Error_string, (int errorcode, char *string, int *resultlen))
STRATA_API(int, Error_class, (int errorcode, int *errorclass))

/* Communicators (the parts point-to-point needs) */
STRATA_API(int, Comm_size, (MPI_Comm comm, int *size))
STRATA_API(int, Comm_rank, (MPI_Comm comm, int *rank))

/* Error handlers */
STRATA_API(int, Errhandler_create, (MPI_Handler_function *function, MPI_Errhandler *errhandler))
STRATA_API(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
STRATA_API(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler))
STRATA_API(int, Errhandler_free, (MPI_Errhandler *errhandler))

/* Datatypes (basic) */
STRATA_API(int, Type_size, (MPI_Datatype datatype, int *size))
STRATA_API(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))

/* Blocking point-to-point */
STRATA_API(int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
STRATA_API(int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
STRATA_API(int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
STRATA_API(int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
STRATA_API(int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Status *status))
STRATA_API(int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                           MPI_Comm comm, MPI_Status *status))
STRATA_API(int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                                   int source, int recvtag, MPI_Comm comm, MPI_Status *status))
STRATA_API(int, Buffer_attach, (void *buffer, int size))
STRATA_API(int, Buffer_detach, (void *buffer_addr, int *size))

/* Nonblocking point-to-point */
STRATA_API(int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
STRATA_API(int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
STRATA_API(int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
STRATA_API(int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
STRATA_API(int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
STRATA_API(int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
STRATA_API(int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
STRATA_API(int, Cancel, (MPI_Request *request))
STRATA_API(int, Test_cancelled, (const MPI_Status *status, int *flag))
STRATA_API(int, Request_free, (MPI_Request *request))

/* Completion */
STRATA_API(int, Wait, (MPI_Request *request, MPI_Status *status))
STRATA_API(int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
STRATA_API(int, Waitall, (int count, MPI_Request requests[], MPI_Status statuses[]))
STRATA_API(int, Waitany, (int count, MPI_Request requests[], int *index, MPI_Status *status))
STRATA_API(int, Waitsome, (int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]))
STRATA_API(int, Testall, (int count, MPI_Request requests[], int *flag, MPI_Status statuses[]))
STRATA_API(int, Testany, (int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status))
STRATA_API(int, Testsome, (int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]))

/* Persistent requests */
STRATA_API(int, Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
STRATA_API(int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
STRATA_API(int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
STRATA_API(int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, MPI_Request *request))
STRATA_API(int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm, MPI_Request *request))
STRATA_API(int, Start, (MPI_Request *request))
STRATA_API(int, Startall, (int count, MPI_Request requests[]))

/* Collectives available so far */
STRATA_API(int, Barrier, (MPI_Comm comm))

#undef STRATA_API

#ifdef __cplusplus
}
#endif

#endif /* STRATA_MPI_H */
