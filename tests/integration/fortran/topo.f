! topo: process topologies from Fortran (MPI-1.3 chapter 6), with
! LOGICAL PERIODS, REORDER and REMAIN_DIMS. Runs with any number of
! processes.
      PROGRAM TOPO
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      CHARACTER*(*) P
      PARAMETER (P = 'topo')
      INTEGER IERR, RANK, NP, I, J, N, R, ST, V
      INTEGER DIMS(3), COORDS(3), C2(3)
      LOGICAL PERIODS(3), REMAIN(3)
      INTEGER CART, SUB, CART3, SHORT, SRC, DST, NDIMS

      CALL MPI_INIT(IERR)
      CALL CHECKRC(IERR, P, 'MPI_INIT')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK')
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SIZE')

! ---- DIMS_CREATE (local) ---------------------------------------------
      DIMS(1) = 0
      DIMS(2) = 0
      DIMS(3) = 0
      CALL MPI_DIMS_CREATE(24, 3, DIMS, IERR)
      CALL CHECKRC(IERR, P, 'MPI_DIMS_CREATE 24')
      CALL CHECK(DIMS(1) .EQ. 4 .AND. DIMS(2) .EQ. 3 .AND.
     &     DIMS(3) .EQ. 2, P, 'DIMS_CREATE(24, 3) = 4 3 2')
      DIMS(1) = 0
      DIMS(2) = 3
      DIMS(3) = 0
      CALL MPI_DIMS_CREATE(12, 3, DIMS, IERR)
      CALL CHECKRC(IERR, P, 'MPI_DIMS_CREATE 12')
      CALL CHECK(DIMS(1) .EQ. 2 .AND. DIMS(2) .EQ. 3 .AND.
     &     DIMS(3) .EQ. 2, P, 'DIMS_CREATE(12, 3) with 0 3 0')
      DIMS(1) = 0
      DIMS(2) = 0
      CALL MPI_DIMS_CREATE(6, 2, DIMS, IERR)
      CALL CHECKRC(IERR, P, 'MPI_DIMS_CREATE 6')
      CALL CHECK(DIMS(1) .EQ. 3 .AND. DIMS(2) .EQ. 2, P,
     &     'DIMS_CREATE(6, 2) = 3 2')
      DIMS(1) = 0
      DIMS(2) = 0
      CALL MPI_DIMS_CREATE(NP, 2, DIMS, IERR)
      CALL CHECKRC(IERR, P, 'MPI_DIMS_CREATE np')
      CALL CHECK(DIMS(1) * DIMS(2) .EQ. NP, P,
     &     'DIMS_CREATE product')
      CALL CHECK(DIMS(1) .GE. DIMS(2) .AND. DIMS(2) .GE. 1, P,
     &     'DIMS_CREATE non-increasing')

! ---- CART_CREATE: DIMS(1) x DIMS(2), periodic in the first ------------
      PERIODS(1) = .TRUE.
      PERIODS(2) = .FALSE.
      CALL MPI_CART_CREATE(MPI_COMM_WORLD, 2, DIMS, PERIODS, .FALSE.,
     &     CART, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_CREATE')
      CALL CHECK(CART .NE. MPI_COMM_NULL, P, 'CART_CREATE gave null')
      CALL MPI_TOPO_TEST(CART, ST, IERR)
      CALL CHECKRC(IERR, P, 'MPI_TOPO_TEST cart')
      CALL CHECK(ST .EQ. MPI_CART, P, 'TOPO_TEST is MPI_CART')
      CALL MPI_TOPO_TEST(MPI_COMM_WORLD, ST, IERR)
      CALL CHECKRC(IERR, P, 'MPI_TOPO_TEST world')
      CALL CHECK(ST .EQ. MPI_UNDEFINED, P, 'world has no topology')
      CALL MPI_COMM_RANK(CART, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK cart')
      CALL CHECK(R .EQ. RANK, P, 'REORDER .FALSE. keeps the rank')
      CALL MPI_CARTDIM_GET(CART, NDIMS, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CARTDIM_GET')
      CALL CHECK(NDIMS .EQ. 2, P, 'CARTDIM_GET')
      C2(1) = -1
      C2(2) = -1
      PERIODS(1) = .FALSE.
      PERIODS(2) = .TRUE.
      CALL MPI_CART_GET(CART, 2, C2, PERIODS, COORDS, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_GET')
      CALL CHECK(C2(1) .EQ. DIMS(1) .AND. C2(2) .EQ. DIMS(2), P,
     &     'CART_GET dims')
      CALL CHECK(PERIODS(1) .AND. .NOT. PERIODS(2), P,
     &     'CART_GET periods as LOGICAL')
      CALL CHECK(TRANSFER(PERIODS(1), 0) .EQ. TRANSFER(.TRUE., 0) .AND.
     &     TRANSFER(PERIODS(2), 0) .EQ. TRANSFER(.FALSE., 0), P,
     &     'CART_GET periods exactly .TRUE. and .FALSE.')
      CALL CHECK(COORDS(1) .EQ. RANK / DIMS(2) .AND.
     &     COORDS(2) .EQ. MOD(RANK, DIMS(2)), P,
     &     'CART_GET coords, row-major')
      CALL MPI_CART_RANK(CART, COORDS, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_RANK')
      CALL CHECK(R .EQ. RANK, P, 'CART_RANK of own coords')
! a coordinate out of range in the periodic dimension wraps
      C2(1) = COORDS(1) + DIMS(1)
      C2(2) = COORDS(2)
      CALL MPI_CART_RANK(CART, C2, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_RANK wrapped')
      CALL CHECK(R .EQ. RANK, P, 'CART_RANK wraps a periodic dim')
      DO I = 0, NP - 1
         CALL MPI_CART_COORDS(CART, I, 2, C2, IERR)
         CALL CHECKRC(IERR, P, 'MPI_CART_COORDS')
         CALL CHECK(C2(1) .EQ. I / DIMS(2) .AND.
     &        C2(2) .EQ. MOD(I, DIMS(2)), P, 'CART_COORDS')
      END DO

! CART_SHIFT in the periodic dimension: always a neighbour
      CALL MPI_CART_SHIFT(CART, 0, 1, SRC, DST, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_SHIFT 0 1')
      CALL CHECK(DST .EQ. MOD(COORDS(1) + 1, DIMS(1)) * DIMS(2)
     &     + COORDS(2), P, 'periodic shift destination')
      CALL CHECK(SRC .EQ. MOD(COORDS(1) - 1 + DIMS(1), DIMS(1))
     &     * DIMS(2) + COORDS(2), P, 'periodic shift source')
      CALL MPI_SENDRECV(RANK, 1, MPI_INTEGER, DST, 1, V, 1,
     &     MPI_INTEGER, SRC, 1, CART, MPI_STATUS_IGNORE, IERR)
      CALL CHECKRC(IERR, P, 'MPI_SENDRECV periodic')
      CALL CHECK(V .EQ. SRC, P, 'value along the periodic shift')
      CALL MPI_CART_SHIFT(CART, 0, -2, SRC, DST, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_SHIFT 0 -2')
      CALL CHECK(DST .EQ. MOD(COORDS(1) - 2 + 2 * DIMS(1), DIMS(1))
     &     * DIMS(2) + COORDS(2), P, 'periodic shift by -2')
      CALL CHECK(SRC .EQ. MOD(COORDS(1) + 2, DIMS(1)) * DIMS(2)
     &     + COORDS(2), P, 'periodic shift by -2 source')
! in the other: MPI_PROC_NULL past the edges
      CALL MPI_CART_SHIFT(CART, 1, 1, SRC, DST, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_SHIFT 1 1')
      IF (COORDS(2) .EQ. DIMS(2) - 1) THEN
         CALL CHECK(DST .EQ. MPI_PROC_NULL, P, 'no destination at edge')
      ELSE
         CALL CHECK(DST .EQ. RANK + 1, P, 'non-periodic destination')
      END IF
      IF (COORDS(2) .EQ. 0) THEN
         CALL CHECK(SRC .EQ. MPI_PROC_NULL, P, 'no source at edge')
      ELSE
         CALL CHECK(SRC .EQ. RANK - 1, P, 'non-periodic source')
      END IF
      V = -5
      CALL MPI_SENDRECV(RANK, 1, MPI_INTEGER, DST, 2, V, 1,
     &     MPI_INTEGER, SRC, 2, CART, MPI_STATUS_IGNORE, IERR)
      CALL CHECKRC(IERR, P, 'MPI_SENDRECV non-periodic')
      IF (SRC .EQ. MPI_PROC_NULL) THEN
         CALL CHECK(V .EQ. -5, P, 'MPI_PROC_NULL leaves the buffer')
      ELSE
         CALL CHECK(V .EQ. SRC, P, 'value along the shift')
      END IF

! CART_SUB: the rows (second dimension kept) and the columns
      REMAIN(1) = .FALSE.
      REMAIN(2) = .TRUE.
      CALL MPI_CART_SUB(CART, REMAIN, SUB, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_SUB row')
      CALL MPI_COMM_SIZE(SUB, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SIZE row')
      CALL CHECK(N .EQ. DIMS(2), P, 'CART_SUB row size')
      CALL MPI_COMM_RANK(SUB, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK row')
      CALL CHECK(R .EQ. COORDS(2), P, 'CART_SUB row rank')
      CALL MPI_CARTDIM_GET(SUB, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CARTDIM_GET row')
      CALL CHECK(N .EQ. 1, P, 'CART_SUB row has one dimension')
      CALL MPI_CART_GET(SUB, 1, C2, PERIODS, COORDS(3), IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_GET row')
      CALL CHECK(C2(1) .EQ. DIMS(2) .AND. .NOT. PERIODS(1) .AND.
     &     COORDS(3) .EQ. COORDS(2), P, 'CART_GET of the row')
      CALL MPI_ALLREDUCE(RANK, V, 1, MPI_INTEGER, MPI_MIN, SUB, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE row')
      CALL CHECK(V .EQ. COORDS(1) * DIMS(2), P, 'row members')
      CALL MPI_COMM_FREE(SUB, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE row')
      REMAIN(1) = .TRUE.
      REMAIN(2) = .FALSE.
      CALL MPI_CART_SUB(CART, REMAIN, SUB, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_SUB column')
      CALL MPI_COMM_SIZE(SUB, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SIZE column')
      CALL CHECK(N .EQ. DIMS(1), P, 'CART_SUB column size')
      CALL MPI_COMM_RANK(SUB, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK column')
      CALL CHECK(R .EQ. COORDS(1), P, 'CART_SUB column rank')
      PERIODS(1) = .FALSE.
      CALL MPI_CART_GET(SUB, 1, C2, PERIODS, COORDS(3), IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_GET column')
      CALL CHECK(C2(1) .EQ. DIMS(1) .AND. PERIODS(1) .AND.
     &     COORDS(3) .EQ. COORDS(1), P, 'CART_GET of the column')
      CALL MPI_TOPO_TEST(SUB, ST, IERR)
      CALL CHECKRC(IERR, P, 'MPI_TOPO_TEST column')
      CALL CHECK(ST .EQ. MPI_CART, P, 'CART_SUB gives a Cartesian')
      CALL MPI_COMM_FREE(SUB, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE column')
      CALL MPI_COMM_FREE(CART, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE cart')

! ---- Three dimensions, REORDER .TRUE. ---------------------------------
      DIMS(1) = 0
      DIMS(2) = 0
      DIMS(3) = 0
      CALL MPI_DIMS_CREATE(NP, 3, DIMS, IERR)
      CALL CHECKRC(IERR, P, 'MPI_DIMS_CREATE 3')
      PERIODS(1) = .TRUE.
      PERIODS(2) = .TRUE.
      PERIODS(3) = .FALSE.
      CALL MPI_CART_CREATE(MPI_COMM_WORLD, 3, DIMS, PERIODS, .TRUE.,
     &     CART3, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_CREATE 3')
      CALL MPI_COMM_RANK(CART3, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK cart3')
      CALL MPI_CART_COORDS(CART3, R, 3, COORDS, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_COORDS cart3')
      CALL MPI_CART_RANK(CART3, COORDS, J, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_RANK cart3')
      CALL CHECK(J .EQ. R, P, 'CART_RANK(CART_COORDS(r)) = r')
      CALL CHECK(R .EQ. (COORDS(1) * DIMS(2) + COORDS(2)) * DIMS(3)
     &     + COORDS(3), P, 'row-major ranks in 3 dimensions')
      REMAIN(1) = .FALSE.
      REMAIN(2) = .FALSE.
      REMAIN(3) = .FALSE.
      CALL MPI_CART_SUB(CART3, REMAIN, SUB, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_SUB none kept')
      CALL MPI_COMM_SIZE(SUB, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SIZE none kept')
      CALL CHECK(N .EQ. 1, P, 'CART_SUB keeping nothing: size 1')
      CALL MPI_COMM_FREE(SUB, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE none kept')
      CALL MPI_COMM_FREE(CART3, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE cart3')

! ---- A grid smaller than the world: the extra rank gets null ---------
      DIMS(1) = MAX(NP - 1, 1)
      PERIODS(1) = .FALSE.
      CALL MPI_CART_CREATE(MPI_COMM_WORLD, 1, DIMS, PERIODS, .FALSE.,
     &     SHORT, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_CREATE short')
      IF (RANK .GE. DIMS(1)) THEN
         CALL CHECK(SHORT .EQ. MPI_COMM_NULL, P,
     &        'outside the grid: MPI_COMM_NULL')
      ELSE
         CALL MPI_COMM_SIZE(SHORT, N, IERR)
         CALL CHECKRC(IERR, P, 'MPI_COMM_SIZE short')
         CALL CHECK(N .EQ. DIMS(1), P, 'short grid size')
         CALL MPI_COMM_FREE(SHORT, IERR)
         CALL CHECKRC(IERR, P, 'MPI_COMM_FREE short')
      END IF

! ---- CART_MAP --------------------------------------------------------
      DIMS(1) = 0
      DIMS(2) = 0
      CALL MPI_DIMS_CREATE(NP, 2, DIMS, IERR)
      CALL CHECKRC(IERR, P, 'MPI_DIMS_CREATE map')
      PERIODS(1) = .FALSE.
      PERIODS(2) = .TRUE.
      CALL MPI_CART_MAP(MPI_COMM_WORLD, 2, DIMS, PERIODS, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_MAP')
      CALL CHECKMAP(R, NP, 'CART_MAP full')
      DIMS(1) = MAX(NP - 1, 1)
      CALL MPI_CART_MAP(MPI_COMM_WORLD, 1, DIMS, PERIODS, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_CART_MAP short')
      CALL CHECKMAP(R, DIMS(1), 'CART_MAP short')

      CALL GRAPHT(RANK, NP)

      CALL MPI_FINALIZE(IERR)
      CALL CHECKRC(IERR, P, 'MPI_FINALIZE')
      END

! The ranks a *_MAP gave: exactly N of them defined, 0..N-1 each once.
      SUBROUTINE CHECKMAP(NEWRANK, N, WHAT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NEWRANK, N
      CHARACTER*(*) WHAT
      CHARACTER*(*) P
      PARAMETER (P = 'topo')
      INTEGER ALL(64), NP, I, J, CNT, IERR
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECK(NP .LE. 64, P, 'too many processes')
      CALL MPI_ALLGATHER(NEWRANK, 1, MPI_INTEGER, ALL, 1, MPI_INTEGER,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLGATHER map')
      DO J = 0, N - 1
         CNT = 0
         DO I = 1, NP
            IF (ALL(I) .EQ. J) CNT = CNT + 1
         END DO
         CALL CHECK(CNT .EQ. 1, P, WHAT // ': each rank once')
      END DO
      CNT = 0
      DO I = 1, NP
         IF (ALL(I) .EQ. MPI_UNDEFINED) CNT = CNT + 1
      END DO
      CALL CHECK(CNT .EQ. NP - N, P, WHAT // ': MPI_UNDEFINED count')
      END

! A graph: node 0 joined to every other node, and a path 1-2-...-n-1.
      SUBROUTINE GRAPHT(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      CHARACTER*(*) P
      PARAMETER (P = 'topo')
      INTEGER MAXE
      PARAMETER (MAXE = 256)
      INTEGER INDEX(64), EDGES(MAXE), GI(64), GE(MAXE), NB(64)
      INTEGER NNODES, NEDGES, I, J, K, N, R, ST, IERR, GRAPH, SHORT
      INTEGER V(64), REQ(128), CNT
      INTEGER NEIGHBOURS

      NEDGES = 0
      DO I = 0, NP - 1
         NEDGES = NEDGES + NEIGHBOURS(I, NP, EDGES(NEDGES + 1))
         INDEX(I + 1) = NEDGES
      END DO
      CALL MPI_GRAPH_CREATE(MPI_COMM_WORLD, NP, INDEX, EDGES, .FALSE.,
     &     GRAPH, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GRAPH_CREATE')
      CALL MPI_TOPO_TEST(GRAPH, ST, IERR)
      CALL CHECKRC(IERR, P, 'MPI_TOPO_TEST graph')
      CALL CHECK(ST .EQ. MPI_GRAPH, P, 'TOPO_TEST is MPI_GRAPH')
      CALL MPI_COMM_RANK(GRAPH, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK graph')
      CALL CHECK(R .EQ. RANK, P, 'graph rank, no reorder')
      CALL MPI_GRAPHDIMS_GET(GRAPH, NNODES, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GRAPHDIMS_GET')
      CALL CHECK(NNODES .EQ. NP .AND. N .EQ. NEDGES, P,
     &     'GRAPHDIMS_GET')
      CALL MPI_GRAPH_GET(GRAPH, 64, MAXE, GI, GE, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GRAPH_GET')
      DO I = 1, NP
         CALL CHECK(GI(I) .EQ. INDEX(I), P, 'GRAPH_GET index')
      END DO
      DO I = 1, NEDGES
         CALL CHECK(GE(I) .EQ. EDGES(I), P, 'GRAPH_GET edges')
      END DO
      DO I = 0, NP - 1
         CALL MPI_GRAPH_NEIGHBORS_COUNT(GRAPH, I, N, IERR)
         CALL CHECKRC(IERR, P, 'MPI_GRAPH_NEIGHBORS_COUNT')
         J = 0
         IF (I .GT. 0) J = INDEX(I)
         CALL CHECK(N .EQ. INDEX(I + 1) - J, P,
     &        'GRAPH_NEIGHBORS_COUNT')
         CALL MPI_GRAPH_NEIGHBORS(GRAPH, I, 64, NB, IERR)
         CALL CHECKRC(IERR, P, 'MPI_GRAPH_NEIGHBORS')
         DO K = 1, N
            CALL CHECK(NB(K) .EQ. EDGES(J + K), P,
     &           'GRAPH_NEIGHBORS in order')
         END DO
      END DO
! each process sends its rank to every neighbour (the graph is
! symmetric) and hears from each
      CALL MPI_GRAPH_NEIGHBORS_COUNT(GRAPH, RANK, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GRAPH_NEIGHBORS_COUNT own')
      CALL MPI_GRAPH_NEIGHBORS(GRAPH, RANK, 64, NB, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GRAPH_NEIGHBORS own')
      DO K = 1, N
         CALL MPI_IRECV(V(K), 1, MPI_INTEGER, NB(K), 9, GRAPH,
     &        REQ(K), IERR)
         CALL CHECKRC(IERR, P, 'MPI_IRECV graph')
      END DO
      DO K = 1, N
         CALL MPI_ISEND(RANK, 1, MPI_INTEGER, NB(K), 9, GRAPH,
     &        REQ(N + K), IERR)
         CALL CHECKRC(IERR, P, 'MPI_ISEND graph')
      END DO
      CALL MPI_WAITALL(2 * N, REQ, MPI_STATUSES_IGNORE, IERR)
      CALL CHECKRC(IERR, P, 'MPI_WAITALL graph')
      DO K = 1, N
         CALL CHECK(V(K) .EQ. NB(K), P, 'value from a graph neighbour')
      END DO
      CALL MPI_COMM_FREE(GRAPH, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE graph')

! GRAPH_MAP of the whole graph, then of all but the last node
      CALL MPI_GRAPH_MAP(MPI_COMM_WORLD, NP, INDEX, EDGES, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GRAPH_MAP')
      CALL CHECKMAP(R, NP, 'GRAPH_MAP full')
      IF (NP .GE. 2) THEN
         NNODES = NP - 1
         NEDGES = 0
         DO I = 0, NNODES - 1
            NEDGES = NEDGES + NEIGHBOURS(I, NNODES, EDGES(NEDGES + 1))
            INDEX(I + 1) = NEDGES
         END DO
         CALL MPI_GRAPH_MAP(MPI_COMM_WORLD, NNODES, INDEX, EDGES, R,
     &        IERR)
         CALL CHECKRC(IERR, P, 'MPI_GRAPH_MAP short')
         CALL CHECKMAP(R, NNODES, 'GRAPH_MAP short')
! and a graph on those nodes only: the last rank gets MPI_COMM_NULL
         CALL MPI_GRAPH_CREATE(MPI_COMM_WORLD, NNODES, INDEX, EDGES,
     &        .TRUE., SHORT, IERR)
         CALL CHECKRC(IERR, P, 'MPI_GRAPH_CREATE short')
         CNT = 0
         IF (SHORT .EQ. MPI_COMM_NULL) CNT = 1
         CALL MPI_ALLREDUCE(MPI_IN_PLACE, CNT, 1, MPI_INTEGER,
     &        MPI_SUM, MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE short graph')
         CALL CHECK(CNT .EQ. 1, P, 'one process outside the graph')
         IF (SHORT .NE. MPI_COMM_NULL) THEN
            CALL MPI_GRAPHDIMS_GET(SHORT, N, K, IERR)
            CALL CHECKRC(IERR, P, 'MPI_GRAPHDIMS_GET short')
            CALL CHECK(N .EQ. NNODES .AND. K .EQ. NEDGES, P,
     &           'GRAPHDIMS_GET short')
            CALL MPI_COMM_FREE(SHORT, IERR)
            CALL CHECKRC(IERR, P, 'MPI_COMM_FREE short graph')
         END IF
      END IF
      END

! The neighbours of node I of the NP-node graph, into E; their count.
      INTEGER FUNCTION NEIGHBOURS(I, NP, E)
      IMPLICIT NONE
      INTEGER I, NP, E(*)
      INTEGER J, N
      N = 0
      IF (I .EQ. 0) THEN
         DO J = 1, NP - 1
            N = N + 1
            E(N) = J
         END DO
      ELSE
         N = N + 1
         E(N) = 0
         IF (I .GT. 1) THEN
            N = N + 1
            E(N) = I - 1
         END IF
         IF (I .LT. NP - 1) THEN
            N = N + 1
            E(N) = I + 1
         END IF
      END IF
      NEIGHBOURS = N
      END
