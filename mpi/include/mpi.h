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
    int strata_flags;        /* internal: bit 0 cancelled; above, the sender's form (see status_store) */
    long long strata_bytes;  /* internal: bytes received, read by MPI_Get_count */
} MPI_Status;

typedef void MPI_Handler_function(MPI_Comm *, int *, ...);
typedef void MPI_User_function(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype);
typedef int MPI_Copy_function(MPI_Comm oldcomm, int keyval, void *extra_state, void *attribute_val_in,
                              void *attribute_val_out, int *flag);
typedef int MPI_Delete_function(MPI_Comm comm, int keyval, void *attribute_val, void *extra_state);

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
#define MPI_FLOAT_INT ((MPI_Datatype)STRATA_HANDLE(2, 16))
#define MPI_DOUBLE_INT ((MPI_Datatype)STRATA_HANDLE(2, 17))
#define MPI_LONG_INT ((MPI_Datatype)STRATA_HANDLE(2, 18))
#define MPI_SHORT_INT ((MPI_Datatype)STRATA_HANDLE(2, 19))
#define MPI_LONG_DOUBLE_INT ((MPI_Datatype)STRATA_HANDLE(2, 20))
#define MPI_LB ((MPI_Datatype)STRATA_HANDLE(2, 21))
#define MPI_UB ((MPI_Datatype)STRATA_HANDLE(2, 22))
/* Basic types MPI-2 added */
#define MPI_SIGNED_CHAR ((MPI_Datatype)STRATA_HANDLE(2, 23))
#define MPI_UNSIGNED_LONG_LONG ((MPI_Datatype)STRATA_HANDLE(2, 24))
#define MPI_WCHAR ((MPI_Datatype)STRATA_HANDLE(2, 25))
/* The Fortran basic types (MPI-1.3 3.2.2) and pair types (4.9.3), offered to C
 * as MPICH's mpi.h does, laid out as gfortran does by default on x86-64:
 * INTEGER and LOGICAL are 4 bytes (LOGICAL .TRUE. is 1, .FALSE. 0), REAL a
 * float, DOUBLE PRECISION a double, COMPLEX two floats (real part first),
 * DOUBLE COMPLEX two doubles, CHARACTER one byte. The pair types are a value
 * and an index, both of the value's type. */
#define MPI_INTEGER ((MPI_Datatype)STRATA_HANDLE(2, 26))
#define MPI_REAL ((MPI_Datatype)STRATA_HANDLE(2, 27))
#define MPI_DOUBLE_PRECISION ((MPI_Datatype)STRATA_HANDLE(2, 28))
#define MPI_COMPLEX ((MPI_Datatype)STRATA_HANDLE(2, 29))
#define MPI_DOUBLE_COMPLEX ((MPI_Datatype)STRATA_HANDLE(2, 30))
#define MPI_LOGICAL ((MPI_Datatype)STRATA_HANDLE(2, 31))
#define MPI_CHARACTER ((MPI_Datatype)STRATA_HANDLE(2, 32))
#define MPI_2INTEGER ((MPI_Datatype)STRATA_HANDLE(2, 33))
#define MPI_2REAL ((MPI_Datatype)STRATA_HANDLE(2, 34))
#define MPI_2DOUBLE_PRECISION ((MPI_Datatype)STRATA_HANDLE(2, 35))
/* The optional Fortran types of MPI-1.3 3.2.2 a gfortran program can declare
 * (INTEGER*1 ... INTEGER*8, REAL*4, REAL*8; MPI-2 added MPI_INTEGER8), each
 * an integer or floating-point type of its size for reductions. gfortran has
 * no 2-byte REAL, so there is no MPI_REAL2. */
#define MPI_INTEGER1 ((MPI_Datatype)STRATA_HANDLE(2, 36))
#define MPI_INTEGER2 ((MPI_Datatype)STRATA_HANDLE(2, 37))
#define MPI_INTEGER4 ((MPI_Datatype)STRATA_HANDLE(2, 38))
#define MPI_INTEGER8 ((MPI_Datatype)STRATA_HANDLE(2, 39))
#define MPI_REAL4 ((MPI_Datatype)STRATA_HANDLE(2, 40))
#define MPI_REAL8 ((MPI_Datatype)STRATA_HANDLE(2, 41))

#define MPI_REQUEST_NULL ((MPI_Request)0)
#define MPI_OP_NULL ((MPI_Op)0)
#define MPI_MAX ((MPI_Op)STRATA_HANDLE(5, 1))
#define MPI_MIN ((MPI_Op)STRATA_HANDLE(5, 2))
#define MPI_SUM ((MPI_Op)STRATA_HANDLE(5, 3))
#define MPI_PROD ((MPI_Op)STRATA_HANDLE(5, 4))
#define MPI_LAND ((MPI_Op)STRATA_HANDLE(5, 5))
#define MPI_BAND ((MPI_Op)STRATA_HANDLE(5, 6))
#define MPI_LOR ((MPI_Op)STRATA_HANDLE(5, 7))
#define MPI_BOR ((MPI_Op)STRATA_HANDLE(5, 8))
#define MPI_LXOR ((MPI_Op)STRATA_HANDLE(5, 9))
#define MPI_BXOR ((MPI_Op)STRATA_HANDLE(5, 10))
#define MPI_MAXLOC ((MPI_Op)STRATA_HANDLE(5, 11))
#define MPI_MINLOC ((MPI_Op)STRATA_HANDLE(5, 12))

#define MPI_GROUP_NULL ((MPI_Group)0)
#define MPI_GROUP_EMPTY ((MPI_Group)STRATA_HANDLE(3, 1))

/* Attribute keys (kind 7). The predefined ones are set on MPI_COMM_WORLD. */
#define MPI_KEYVAL_INVALID 0
#define MPI_TAG_UB STRATA_HANDLE(7, 1)
#define MPI_HOST STRATA_HANDLE(7, 2)
#define MPI_IO STRATA_HANDLE(7, 3)
#define MPI_WTIME_IS_GLOBAL STRATA_HANDLE(7, 4)
/* The grid's topology, as MPICH-G2 defined it, on every communicator: the
 * value of MPICHX_TOPOLOGY_DEPTHS is an int * (depths[rank], the number of
 * levels of each rank), that of MPICHX_TOPOLOGY_COLORS an int **
 * (colors[rank][level], equal for two ranks exactly when they can talk at that
 * level). Levels: 0 wide area, 1 local area, 2 system area (a machine: the
 * subjob's machine label, else the subjob), 3 vendor (ranks linked by shared
 * memory or a vendor fabric), then from 4 on, each where it applies: the node
 * (where a vendor level spans hosts) and, with STRATA_TOPOLOGY_HWLOC=1, the
 * processor package and the NUMA node. A rank has at most
 * MPIX_TOPOLOGY_MAX_LEVELS levels. Read-only; valid until the communicator is
 * freed. */
#define MPIX_TOPOLOGY_MAX_LEVELS 7
#define MPICHX_TOPOLOGY_DEPTHS STRATA_HANDLE(7, 5)
#define MPICHX_TOPOLOGY_COLORS STRATA_HANDLE(7, 6)
#define MPIX_TOPOLOGY_DEPTHS MPICHX_TOPOLOGY_DEPTHS
#define MPIX_TOPOLOGY_COLORS MPICHX_TOPOLOGY_COLORS
/* Parallel TCP streams between sites, as MPICH-G2's parallel sockets
 * (MPICHX_PARALLELSOCKETS_PARAMETERS) gave them. The value is an int *.
 * MPI_Attr_put(comm, MPIX_PARALLEL_STREAMS, &n) (or MPI_Comm_set_attr), with
 * 1 <= n <= 16, sets how many TCP connections ("streams") this process uses
 * to send to each process comm addresses (its group, on an intercommunicator
 * the remote group) that is at another site (another colour at level 1 of
 * MPICHX_TOPOLOGY_COLORS) and reached over TCP; others are left as they are.
 * Payloads larger than STRATA_TCP_STRIPE_UNIT (64 KiB) to those processes
 * are then cut in stripes of that size, sent round robin over the n streams;
 * headers and smaller messages keep the first connection. The call is local:
 * the count is per sending process and per peer (the receiver follows each
 * sender's choice), a later put on any communicator that reaches the same
 * peer replaces it, and n is read during the call (the pointer may go). It
 * applies to what is handed to the network from then on: a message already
 * sent keeps its layout, and a rendezvous message's data, which leaves when
 * its receiver is ready, may take the new count. MPI's order between two
 * processes holds whatever the counts and their changes. MPI_Attr_get gives
 * a pointer to the largest count this process uses to such a member of comm
 * (1 when it has none), valid until the communicator is freed or the next
 * get on it. A null pointer or a count outside 1..16 is MPI_ERR_ARG, through
 * comm's error handler. It cannot be deleted. Before any put, every peer at
 * another site gets STRATA_TCP_STREAMS (1 unless set; a job file's
 * network: {streams: N} sets it). */
#define MPIX_PARALLEL_STREAMS STRATA_HANDLE(7, 7)
/* Quality of service between sites, as MPICH-GQ gave it through attributes.
 * MPIX_Qos q = {MPIX_QOS_PREMIUM, 30}; MPI_Comm_set_attr(comm, MPIX_QOS, &q)
 * (or MPI_Attr_put) reserves 30 Mbit/s (10^6 bit/s) for what this process
 * sends on comm to comm's members (on an intercommunicator the remote group)
 * at other sites (another colour at level 1 of MPICHX_TOPOLOGY_COLORS),
 * point-to-point and collective, on each wide-area link from its site to
 * theirs. That traffic then leaves on a TCP connection of its own per peer,
 * marked DSCP EF (expedited forwarding) so that networks can honour it, and
 * ahead of the other traffic to the same peer; under wide-area emulation
 * (STRATA_EMULATION, a job file's network:) it gets a share of the emulated
 * link reserved for it, which bulk traffic cannot take (it shares the
 * bandwidth the reservations leave), and is paced at the rate reserved. A
 * link's premium capacity, what all reservations on it may add up to, is
 * its premium_mbit figure (by default half its bandwidth); on links that are
 * not emulated it is not known and every request is admitted. The call is
 * local and the value is read during it. A request that does not fit on
 * some link is refused with MPIX_ERR_QOS, through comm's error handler,
 * and reserves nothing; a put that replaces an earlier one gives that back
 * first (and keeps it if the new one is refused). {MPIX_QOS_BEST_EFFORT, 0}
 * and MPI_Comm_delete_attr give the reservation back, as MPI_Comm_free does;
 * MPI_Comm_dup does not copy it. A service other than the two, premium with
 * less than 1 Mbit/s, or a NULL pointer is MPI_ERR_ARG. MPI_Comm_get_attr
 * gives a pointer to the communicator's MPIX_Qos, valid until it is freed
 * (flag 1; best effort until a put). Messages already handed to the network
 * keep their connection; MPI's order per communicator holds across the
 * change. Traffic inside a site, and over methods other than TCP, is left
 * as it is. In Fortran the value is an INTEGER: the premium rate in Mbit/s,
 * 0 for best effort. */
typedef struct {
    int service; /* MPIX_QOS_BEST_EFFORT or MPIX_QOS_PREMIUM */
    int mbit;    /* premium: the rate reserved, Mbit/s */
} MPIX_Qos;
#define MPIX_QOS_BEST_EFFORT 0
#define MPIX_QOS_PREMIUM 1
#define MPIX_QOS STRATA_HANDLE(7, 8)

/* Results of MPI_Comm_compare and MPI_Group_compare */
#define MPI_IDENT 0
#define MPI_CONGRUENT 1
#define MPI_SIMILAR 2
#define MPI_UNEQUAL 3

/* Results of MPI_Topo_test */
#define MPI_GRAPH 1
#define MPI_CART 2

#define MPI_ERRHANDLER_NULL ((MPI_Errhandler)0)
#define MPI_ERRORS_ARE_FATAL ((MPI_Errhandler)STRATA_HANDLE(6, 1))
#define MPI_ERRORS_RETURN ((MPI_Errhandler)STRATA_HANDLE(6, 2))

#define MPI_ANY_SOURCE (-2)
#define MPI_PROC_NULL (-1)
/* The root of a rooted collective on an intercommunicator (MPI-2): passed by
 * the root itself; the other processes of its group pass MPI_PROC_NULL. */
#define MPI_ROOT (-3)
#define MPI_ANY_TAG (-1)
#define MPI_UNDEFINED (-32766)
#define MPI_BOTTOM ((void *)0)
/* The "ignore" statuses point at a real object of the library (of unknown
 * size) rather than at a made-up address, so compilers that check array
 * arguments (GCC's -Wstringop-overflow) accept them. Nothing is ever written there. */
extern __attribute__((visibility("default"))) MPI_Status STRATA_status_ignore[];
#define MPI_STATUS_IGNORE (&STRATA_status_ignore[0])
#define MPI_STATUSES_IGNORE (&STRATA_status_ignore[0])
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
#define MPI_ERR_NO_MEM 20 /* MPI-2: MPI_Alloc_mem found no memory */
/* MPI-2: info objects, and the names and ports of MPI_Open_port,
 * MPI_Comm_accept, MPI_Comm_connect and MPI_Publish_name */
#define MPI_ERR_INFO 21       /* an invalid info handle */
#define MPI_ERR_INFO_KEY 22   /* an empty key, or one longer than MPI_MAX_INFO_KEY - 1 */
#define MPI_ERR_INFO_VALUE 23 /* a value longer than MPI_MAX_INFO_VAL - 1 */
#define MPI_ERR_INFO_NOKEY 24 /* MPI_Info_delete of a key that is not set */
#define MPI_ERR_PORT 25    /* MPI-2: a port name that names no open port, or a refused connect */
#define MPI_ERR_NAME 26    /* MPI-2: MPI_Lookup_name found nothing under the name */
#define MPI_ERR_SERVICE 27 /* MPI-2: MPI_Publish_name or MPI_Unpublish_name refused */
#define MPIX_ERR_QOS 28    /* premium service (MPIX_QOS) refused: a link has not that much premium capacity left */
#define MPI_ERR_LASTCODE 28

/* Each function is declared twice: MPI_name and its profiling twin PMPI_name. */
#define STRATA_API(ret, name, args) \
    __attribute__((visibility("default"))) ret MPI_##name args; \
    __attribute__((visibility("default"))) ret PMPI_##name args;

/* The predefined attribute copy and delete functions. */
__attribute__((visibility("default"))) int STRATA_Null_copy_fn(MPI_Comm, int, void *, void *, void *, int *);
__attribute__((visibility("default"))) int STRATA_Dup_fn(MPI_Comm, int, void *, void *, void *, int *);
__attribute__((visibility("default"))) int STRATA_Null_delete_fn(MPI_Comm, int, void *, void *);
#define MPI_NULL_COPY_FN STRATA_Null_copy_fn
#define MPI_DUP_FN STRATA_Dup_fn
#define MPI_NULL_DELETE_FN STRATA_Null_delete_fn

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
STRATA_API(int, Pcontrol, (const int level, ...))

/* Groups */
STRATA_API(int, Group_size, (MPI_Group group, int *size))
STRATA_API(int, Group_rank, (MPI_Group group, int *rank))
STRATA_API(int, Group_translate_ranks, (MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]))
STRATA_API(int, Group_compare, (MPI_Group group1, MPI_Group group2, int *result))
STRATA_API(int, Comm_group, (MPI_Comm comm, MPI_Group *group))
STRATA_API(int, Group_union, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
STRATA_API(int, Group_intersection, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
STRATA_API(int, Group_difference, (MPI_Group group1, MPI_Group group2, MPI_Group *newgroup))
STRATA_API(int, Group_incl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
STRATA_API(int, Group_excl, (MPI_Group group, int n, const int ranks[], MPI_Group *newgroup))
STRATA_API(int, Group_range_incl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
STRATA_API(int, Group_range_excl, (MPI_Group group, int n, int ranges[][3], MPI_Group *newgroup))
STRATA_API(int, Group_free, (MPI_Group *group))

/* Communicators */
STRATA_API(int, Comm_size, (MPI_Comm comm, int *size))
STRATA_API(int, Comm_rank, (MPI_Comm comm, int *rank))
STRATA_API(int, Comm_compare, (MPI_Comm comm1, MPI_Comm comm2, int *result))
STRATA_API(int, Comm_dup, (MPI_Comm comm, MPI_Comm *newcomm))
STRATA_API(int, Comm_create, (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm))
STRATA_API(int, Comm_split, (MPI_Comm comm, int color, int key, MPI_Comm *newcomm))
STRATA_API(int, Comm_free, (MPI_Comm *comm))
STRATA_API(int, Comm_test_inter, (MPI_Comm comm, int *flag))
STRATA_API(int, Comm_remote_size, (MPI_Comm comm, int *size))
STRATA_API(int, Comm_remote_group, (MPI_Comm comm, MPI_Group *group))
STRATA_API(int, Intercomm_create, (MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader,
                                   int tag, MPI_Comm *newintercomm))
STRATA_API(int, Intercomm_merge, (MPI_Comm intercomm, int high, MPI_Comm *newintracomm))

/* Attribute caching */
STRATA_API(int, Keyval_create, (MPI_Copy_function *copy_fn, MPI_Delete_function *delete_fn, int *keyval,
                                void *extra_state))
STRATA_API(int, Keyval_free, (int *keyval))
STRATA_API(int, Attr_put, (MPI_Comm comm, int keyval, void *attribute_val))
STRATA_API(int, Attr_get, (MPI_Comm comm, int keyval, void *attribute_val, int *flag))
STRATA_API(int, Attr_delete, (MPI_Comm comm, int keyval))

/* Process topologies */
STRATA_API(int, Cart_create, (MPI_Comm comm_old, int ndims, const int dims[], const int periods[], int reorder,
                              MPI_Comm *comm_cart))
STRATA_API(int, Dims_create, (int nnodes, int ndims, int dims[]))
STRATA_API(int, Graph_create, (MPI_Comm comm_old, int nnodes, const int index[], const int edges[], int reorder,
                               MPI_Comm *comm_graph))
STRATA_API(int, Topo_test, (MPI_Comm comm, int *status))
STRATA_API(int, Graphdims_get, (MPI_Comm comm, int *nnodes, int *nedges))
STRATA_API(int, Graph_get, (MPI_Comm comm, int maxindex, int maxedges, int index[], int edges[]))
STRATA_API(int, Cartdim_get, (MPI_Comm comm, int *ndims))
STRATA_API(int, Cart_get, (MPI_Comm comm, int maxdims, int dims[], int periods[], int coords[]))
STRATA_API(int, Cart_rank, (MPI_Comm comm, const int coords[], int *rank))
STRATA_API(int, Cart_coords, (MPI_Comm comm, int rank, int maxdims, int coords[]))
STRATA_API(int, Graph_neighbors_count, (MPI_Comm comm, int rank, int *nneighbors))
STRATA_API(int, Graph_neighbors, (MPI_Comm comm, int rank, int maxneighbors, int neighbors[]))
STRATA_API(int, Cart_shift, (MPI_Comm comm, int direction, int disp, int *rank_source, int *rank_dest))
STRATA_API(int, Cart_sub, (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm))
STRATA_API(int, Cart_map, (MPI_Comm comm, int ndims, const int dims[], const int periods[], int *newrank))
STRATA_API(int, Graph_map, (MPI_Comm comm, int nnodes, const int index[], const int edges[], int *newrank))

/* Error handlers */
STRATA_API(int, Errhandler_create, (MPI_Handler_function *function, MPI_Errhandler *errhandler))
STRATA_API(int, Errhandler_set, (MPI_Comm comm, MPI_Errhandler errhandler))
STRATA_API(int, Errhandler_get, (MPI_Comm comm, MPI_Errhandler *errhandler))
STRATA_API(int, Errhandler_free, (MPI_Errhandler *errhandler))

/* Datatypes */
STRATA_API(int, Type_size, (MPI_Datatype datatype, int *size))
STRATA_API(int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))
STRATA_API(int, Get_elements, (const MPI_Status *status, MPI_Datatype datatype, int *count))
STRATA_API(int, Type_contiguous, (int count, MPI_Datatype oldtype, MPI_Datatype *newtype))
STRATA_API(int, Type_vector, (int count, int blocklength, int stride, MPI_Datatype oldtype, MPI_Datatype *newtype))
STRATA_API(int, Type_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                               MPI_Datatype *newtype))
STRATA_API(int, Type_indexed, (int count, const int array_of_blocklengths[], const int array_of_displacements[],
                               MPI_Datatype oldtype, MPI_Datatype *newtype))
STRATA_API(int, Type_hindexed, (int count, const int array_of_blocklengths[],
                                const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                MPI_Datatype *newtype))
STRATA_API(int, Type_struct, (int count, const int array_of_blocklengths[], const MPI_Aint array_of_displacements[],
                              const MPI_Datatype array_of_types[], MPI_Datatype *newtype))
STRATA_API(int, Address, (const void *location, MPI_Aint *address))
STRATA_API(int, Type_extent, (MPI_Datatype datatype, MPI_Aint *extent))
STRATA_API(int, Type_lb, (MPI_Datatype datatype, MPI_Aint *displacement))
STRATA_API(int, Type_ub, (MPI_Datatype datatype, MPI_Aint *displacement))
STRATA_API(int, Type_commit, (MPI_Datatype *datatype))
STRATA_API(int, Type_free, (MPI_Datatype *datatype))
STRATA_API(int, Pack, (const void *inbuf, int incount, MPI_Datatype datatype, void *outbuf, int outsize,
                       int *position, MPI_Comm comm))
STRATA_API(int, Unpack, (const void *inbuf, int insize, int *position, void *outbuf, int outcount,
                         MPI_Datatype datatype, MPI_Comm comm))
STRATA_API(int, Pack_size, (int incount, MPI_Datatype datatype, MPI_Comm comm, int *size))

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

/* Collectives */
STRATA_API(int, Barrier, (MPI_Comm comm))
STRATA_API(int, Bcast, (void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm))
STRATA_API(int, Gather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                         MPI_Datatype recvtype, int root, MPI_Comm comm))
STRATA_API(int, Gatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                          const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                          MPI_Comm comm))
STRATA_API(int, Scatter, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf, int recvcount,
                          MPI_Datatype recvtype, int root, MPI_Comm comm))
STRATA_API(int, Scatterv, (const void *sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm))
STRATA_API(int, Allgather, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                            int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
STRATA_API(int, Allgatherv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                             const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm))
STRATA_API(int, Alltoall, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                           int recvcount, MPI_Datatype recvtype, MPI_Comm comm))
STRATA_API(int, Alltoallv, (const void *sendbuf, const int sendcounts[], const int sdispls[],
                            MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                            MPI_Datatype recvtype, MPI_Comm comm))
STRATA_API(int, Reduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                         int root, MPI_Comm comm))
STRATA_API(int, Op_create, (MPI_User_function *function, int commute, MPI_Op *op))
STRATA_API(int, Op_free, (MPI_Op *op))
STRATA_API(int, Allreduce, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                            MPI_Comm comm))
STRATA_API(int, Reduce_scatter, (const void *sendbuf, void *recvbuf, const int recvcounts[],
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm))
STRATA_API(int, Scan, (const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                       MPI_Comm comm))

/* ---- Beyond MPI-1 ----------------------------------------------------------
 * The MPI-2 conveniences that programs written for MPI-1 commonly use, each as
 * the later standard specifies (docs/COMPATIBILITY.md lists what exists and
 * what does not). MPI_VERSION stays 1: Strata implements MPI-1.3. */

typedef MPI_Handler_function MPI_Comm_errhandler_function;
typedef MPI_Comm_errhandler_function MPI_Comm_errhandler_fn; /* the MPI-2.0 spelling */
typedef MPI_Copy_function MPI_Comm_copy_attr_function;
typedef MPI_Delete_function MPI_Comm_delete_attr_function;
#define MPI_COMM_NULL_COPY_FN STRATA_Null_copy_fn
#define MPI_COMM_DUP_FN STRATA_Dup_fn
#define MPI_COMM_NULL_DELETE_FN STRATA_Null_delete_fn

/* Info objects (MPI-2 4.10, handles of kind 8): ordered (key, value) pairs
 * of strings. A key has 1 to MPI_MAX_INFO_KEY - 1 characters and a value at
 * most MPI_MAX_INFO_VAL - 1, so that each fits its MPI_MAX_ buffer with the
 * NUL; C strings are taken as they are (Fortran strips leading and trailing
 * blanks). MPI_Info_get_nthkey numbers the keys in the order they were first
 * set. Errors go to MPI_COMM_WORLD's handler: MPI_ERR_INFO for MPI_INFO_NULL
 * or a handle of no live info, MPI_ERR_INFO_KEY, MPI_ERR_INFO_VALUE,
 * MPI_ERR_INFO_NOKEY as the standard says, MPI_ERR_ARG for a null pointer, a
 * negative valuelen or a key number outside 0..nkeys-1. */
typedef int MPI_Info;
#define MPI_INFO_NULL ((MPI_Info)0)
#define MPI_MAX_INFO_KEY 255
#define MPI_MAX_INFO_VAL 1024

#define MPI_MAX_OBJECT_NAME 128

/* MPI_IN_PLACE points at an object of the library, so it can never be a
 * buffer of the program's. */
extern __attribute__((visibility("default"))) char STRATA_in_place[];
#define MPI_IN_PLACE ((void *)STRATA_in_place)

/* Thread levels. Strata provides MPI_THREAD_FUNNELED at most: only the
 * thread that called MPI_Init(_thread) may make MPI calls. */
#define MPI_THREAD_SINGLE 0
#define MPI_THREAD_FUNNELED 1
#define MPI_THREAD_SERIALIZED 2
#define MPI_THREAD_MULTIPLE 3

STRATA_API(int, Comm_create_errhandler, (MPI_Comm_errhandler_function *function, MPI_Errhandler *errhandler))
STRATA_API(int, Comm_set_errhandler, (MPI_Comm comm, MPI_Errhandler errhandler))
STRATA_API(int, Comm_get_errhandler, (MPI_Comm comm, MPI_Errhandler *errhandler))
STRATA_API(int, Comm_call_errhandler, (MPI_Comm comm, int errorcode))

STRATA_API(int, Type_create_struct, (int count, const int array_of_blocklengths[],
                                     const MPI_Aint array_of_displacements[], const MPI_Datatype array_of_types[],
                                     MPI_Datatype *newtype))
STRATA_API(int, Type_create_hvector, (int count, int blocklength, MPI_Aint stride, MPI_Datatype oldtype,
                                      MPI_Datatype *newtype))
STRATA_API(int, Type_create_hindexed, (int count, const int array_of_blocklengths[],
                                       const MPI_Aint array_of_displacements[], MPI_Datatype oldtype,
                                       MPI_Datatype *newtype))
STRATA_API(int, Type_create_indexed_block, (int count, int blocklength, const int array_of_displacements[],
                                            MPI_Datatype oldtype, MPI_Datatype *newtype))
STRATA_API(int, Type_create_resized, (MPI_Datatype oldtype, MPI_Aint lb, MPI_Aint extent, MPI_Datatype *newtype))
STRATA_API(int, Type_get_extent, (MPI_Datatype datatype, MPI_Aint *lb, MPI_Aint *extent))
STRATA_API(int, Type_get_true_extent, (MPI_Datatype datatype, MPI_Aint *true_lb, MPI_Aint *true_extent))
STRATA_API(int, Get_address, (const void *location, MPI_Aint *address))

STRATA_API(int, Comm_create_keyval, (MPI_Comm_copy_attr_function *comm_copy_attr_fn,
                                     MPI_Comm_delete_attr_function *comm_delete_attr_fn, int *comm_keyval,
                                     void *extra_state))
STRATA_API(int, Comm_free_keyval, (int *comm_keyval))
STRATA_API(int, Comm_set_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val))
STRATA_API(int, Comm_get_attr, (MPI_Comm comm, int comm_keyval, void *attribute_val, int *flag))
STRATA_API(int, Comm_delete_attr, (MPI_Comm comm, int comm_keyval))

STRATA_API(int, Comm_set_name, (MPI_Comm comm, const char *comm_name))
STRATA_API(int, Comm_get_name, (MPI_Comm comm, char *comm_name, int *resultlen))
STRATA_API(int, Type_set_name, (MPI_Datatype datatype, const char *type_name))
STRATA_API(int, Type_get_name, (MPI_Datatype datatype, char *type_name, int *resultlen))

STRATA_API(int, Finalized, (int *flag))
STRATA_API(int, Init_thread, (int *argc, char ***argv, int required, int *provided))
STRATA_API(int, Query_thread, (int *provided))
STRATA_API(int, Is_thread_main, (int *flag))

STRATA_API(int, Reduce_local, (const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype, MPI_Op op))
STRATA_API(int, Op_commutative, (MPI_Op op, int *commute))
STRATA_API(int, Info_create, (MPI_Info *info))
STRATA_API(int, Info_set, (MPI_Info info, const char *key, const char *value))
STRATA_API(int, Info_get, (MPI_Info info, const char *key, int valuelen, char *value, int *flag))
STRATA_API(int, Info_get_valuelen, (MPI_Info info, const char *key, int *valuelen, int *flag))
STRATA_API(int, Info_delete, (MPI_Info info, const char *key))
STRATA_API(int, Info_get_nkeys, (MPI_Info info, int *nkeys))
STRATA_API(int, Info_get_nthkey, (MPI_Info info, int n, char *key))
STRATA_API(int, Info_dup, (MPI_Info info, MPI_Info *newinfo))
STRATA_API(int, Info_free, (MPI_Info *info))
STRATA_API(int, Alloc_mem, (MPI_Aint size, MPI_Info info, void *baseptr))
STRATA_API(int, Free_mem, (void *base))
STRATA_API(MPI_Aint, Aint_add, (MPI_Aint base, MPI_Aint disp))
STRATA_API(MPI_Aint, Aint_diff, (MPI_Aint addr1, MPI_Aint addr2))

/* Client/server between separately started jobs (MPI-2 5.4; README
 * "Client/server"). A port name is a capability: whoever holds it may
 * connect. MPI_Comm_accept and MPI_Comm_connect return an intercommunicator
 * whose remote group is the other job's; errors of the port (no such port,
 * closed, wrong secret, timed out) are MPI_ERR_PORT. MPI_Comm_connect takes
 * the info key "timeout" (whole seconds). */
#define MPI_MAX_PORT_NAME 1024
STRATA_API(int, Open_port, (MPI_Info info, char *port_name))
STRATA_API(int, Close_port, (const char *port_name))
STRATA_API(int, Comm_accept, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm))
STRATA_API(int, Comm_connect, (const char *port_name, MPI_Info info, int root, MPI_Comm comm, MPI_Comm *newcomm))
STRATA_API(int, Comm_disconnect, (MPI_Comm *comm))
/* MPI-3: the hints in use on comm, in a new info the program frees. On an
 * intercommunicator MPI_Comm_accept made, "peer_subject" is the certificate
 * subject the client proved with its grid credential (absent: none);
 * MPI_Comm_accept's info key "allowed_subjects" (subjects separated by ';')
 * makes it take only such clients. */
STRATA_API(int, Comm_get_info, (MPI_Comm comm, MPI_Info *info_used))
/* mpirun's name service: names are shared by the jobs whose mpirun sees the
 * same name directory (README "Client/server"). */
STRATA_API(int, Publish_name, (const char *service_name, MPI_Info info, const char *port_name))
STRATA_API(int, Lookup_name, (const char *service_name, MPI_Info info, char *port_name))
STRATA_API(int, Unpublish_name, (const char *service_name, MPI_Info info, const char *port_name))

/* Handles between C and Fortran (MPI-2 4.12.4). A Fortran handle is a
 * default INTEGER holding the same value as the C handle, so each conversion
 * returns its argument (an invalid handle stays invalid). A Fortran status is
 * MPI_STATUS_SIZE (6) INTEGERs laid out as MPI_Status; the status conversions
 * copy it, and fail with MPI_ERR_ARG on a null pointer. */
typedef int MPI_Fint;
STRATA_API(MPI_Comm, Comm_f2c, (MPI_Fint comm))
STRATA_API(MPI_Fint, Comm_c2f, (MPI_Comm comm))
STRATA_API(MPI_Datatype, Type_f2c, (MPI_Fint datatype))
STRATA_API(MPI_Fint, Type_c2f, (MPI_Datatype datatype))
STRATA_API(MPI_Group, Group_f2c, (MPI_Fint group))
STRATA_API(MPI_Fint, Group_c2f, (MPI_Group group))
STRATA_API(MPI_Request, Request_f2c, (MPI_Fint request))
STRATA_API(MPI_Fint, Request_c2f, (MPI_Request request))
STRATA_API(MPI_Op, Op_f2c, (MPI_Fint op))
STRATA_API(MPI_Fint, Op_c2f, (MPI_Op op))
STRATA_API(MPI_Errhandler, Errhandler_f2c, (MPI_Fint errhandler))
STRATA_API(MPI_Fint, Errhandler_c2f, (MPI_Errhandler errhandler))
STRATA_API(MPI_Info, Info_f2c, (MPI_Fint info))
STRATA_API(MPI_Fint, Info_c2f, (MPI_Info info))
STRATA_API(int, Status_f2c, (const MPI_Fint *f_status, MPI_Status *c_status))
STRATA_API(int, Status_c2f, (const MPI_Status *c_status, MPI_Fint *f_status))

#undef STRATA_API

/* Strata's extensions (MPIX_), with PMPIX_ profiling names.
 * What this process has sent since MPI_Init, one count per message (a
 * collective counts the messages it sends): by the topology level of the link
 * each took, the deepest level both ends share (0 between sites, see
 * MPICHX_TOPOLOGY_COLORS), or by communication method ("self", "shm", "ofi",
 * "tcp"). MPI_ERR_ARG for a level outside 0..MPIX_TOPOLOGY_MAX_LEVELS-1 or a method not in use; a
 * level no link has counts nothing. */
#define STRATA_APIX(ret, name, args) \
    __attribute__((visibility("default"))) ret MPIX_##name args; \
    __attribute__((visibility("default"))) ret PMPIX_##name args;
STRATA_APIX(int, Traffic_level, (int level, long long *messages, long long *bytes))
STRATA_APIX(int, Traffic_method, (const char *method, long long *messages, long long *bytes))

/* Externally defined communicators (README "Named communicators"): the job's
 * communicator file (STRATA_COMM_FILE, mpirun -commfile or -gencomm) names
 * groups of processes by processor name.
 * MPIX_Comm_create_named is collective over `parent`, an intracommunicator
 * holding every process of the definition; the processes outside it get
 * MPI_COMM_NULL. `color` picks one of several definitions of the name (0 to
 * n-1 in the order of the file), or with MPIX_NAMED_MINE every process gets
 * the one it is in (those of the name that lie inside parent). Errors, with
 * *newcomm MPI_COMM_NULL: MPI_ERR_ARG for a name the file does not define (or
 * no file) or a color out of range; MPI_ERR_COMM when parent lacks a process
 * of the definition; MPI_ERR_GROUP when this job's processor names cannot
 * make the definition (the detail gives the file's line and why).
 * MPIX_Comm_named_count and MPIX_Comm_named_nth list the names (comms in the
 * order of the file, then intercomms): the name (MPI_MAX_OBJECT_NAME bytes),
 * how many definitions it has, and whether it names intercommunicators.
 * MPIX_Comm_rank_named, MPIX_Comm_size_named and MPIX_Comm_test_inter_named
 * are mpi_named.h's transparent mode: MPI_Comm_rank/size/test_inter on *comm,
 * which, while MPI_COMM_NULL, first becomes the communicator called `name` if
 * the file defines it; a process in none of them gets MPI_ERR_COMM through
 * the error handler of the name's parent communicator. */
#define MPIX_NAMED_MINE (-1)
/* The topology attributes as arrays the caller owns, for Fortran (where no
 * variable holds the attributes' pointers) and for C alike: depths[p] for each
 * process p of comm (its group; an intercommunicator's local group), and
 * colors[p * maxlevels + l] (Fortran's COLORS(MAXLEVELS, *), COLORS(L+1, P+1))
 * its colour at level l, -1 beyond its depth. MPI_ERR_ARG when maxlevels is
 * less than the deepest process's depth (MPIX_TOPOLOGY_MAX_LEVELS is always
 * enough). */
STRATA_APIX(int, Topology_get, (MPI_Comm comm, int depths[], int colors[], int maxlevels))
STRATA_APIX(int, Comm_create_named, (MPI_Comm parent, const char *name, int color, MPI_Comm *newcomm))
STRATA_APIX(int, Comm_named_count, (int *count))
STRATA_APIX(int, Comm_named_nth, (int n, char *name, int *colors, int *inter))
STRATA_APIX(int, Comm_rank_named, (MPI_Comm *comm, const char *name, int *rank))
STRATA_APIX(int, Comm_size_named, (MPI_Comm *comm, const char *name, int *size))
STRATA_APIX(int, Comm_test_inter_named, (MPI_Comm *comm, const char *name, int *flag))
#undef STRATA_APIX

#ifdef __cplusplus
}
#endif

#endif /* STRATA_MPI_H */
