! Where Fortran 77 cannot hold what C gives, and the attributes whose C
! values are pointers: an extent or an address beyond a default INTEGER is
! MPI_ERR_ARG (never a cut value), while the ADDRESS_KIND routines give it
! whole; MPI_ATTR_GET of the predefined keys gives their values; the
! topology attributes (arrays of pointers) are MPI_ERR_ARG;
! MPIX_PARALLEL_STREAMS is set and read as an INTEGER.
! A RECURSIVE routine keeps its local variables on the stack.
      RECURSIVE SUBROUTINE ONSTACK(IERR, WHERE)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, IA
      INTEGER(KIND=MPI_ADDRESS_KIND) WHERE
      INTEGER LOCAL(4)
      LOCAL(1) = 0
      CALL MPI_ADDRESS(LOCAL, IA, IERR)
      CALL MPI_GET_ADDRESS(LOCAL, WHERE, IA)
      CALL CHECKRC(IA, 'limits', 'MPI_GET_ADDRESS of a stack array')
      END

      PROGRAM LIMITS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, BIG, IEXT, CLS, VAL, NSTREAMS, IA, IB
      INTEGER(KIND=MPI_ADDRESS_KIND) LB, EXTENT, WHERE
      LOGICAL FLAG
      INTEGER DATA(4)
      COMMON /LIMDAT/ DATA

      CALL MPI_INIT(IERR)
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, IERR)

! An extent of 8 GiB: MPI-1's INTEGER form fails, MPI-2's gives it.
      LB = 0
      EXTENT = 8589934592_MPI_ADDRESS_KIND
      CALL MPI_TYPE_CREATE_RESIZED(MPI_INTEGER, LB, EXTENT, BIG, IERR)
      CALL CHECKRC(IERR, 'limits', 'MPI_TYPE_CREATE_RESIZED')
      EXTENT = 0
      IEXT = -1
      CALL MPI_TYPE_EXTENT(BIG, IEXT, IERR)
      CALL MPI_ERROR_CLASS(IERR, CLS, VAL)
      CALL CHECK(CLS .EQ. MPI_ERR_ARG, 'limits',
     &     'MPI_TYPE_EXTENT of 8 GiB is not MPI_ERR_ARG')
      CALL CHECK(IEXT .EQ. -1, 'limits',
     &     'MPI_TYPE_EXTENT wrote a cut value')
      CALL MPI_TYPE_GET_EXTENT(BIG, LB, EXTENT, IERR)
      CALL CHECKRC(IERR, 'limits', 'MPI_TYPE_GET_EXTENT')
      CALL CHECK(EXTENT .EQ. 8589934592_MPI_ADDRESS_KIND, 'limits',
     &     'MPI_TYPE_GET_EXTENT is not 8 GiB')
      CALL MPI_TYPE_FREE(BIG, IERR)

! Addresses: static data fits an INTEGER, counted from MPI_BOTTOM; the
! stack does not, and MPI_GET_ADDRESS still gives it.
      CALL MPI_ADDRESS(DATA(1), IA, IERR)
      CALL CHECKRC(IERR, 'limits', 'MPI_ADDRESS of a COMMON block')
      CALL MPI_ADDRESS(DATA(3), IB, IERR)
      CALL CHECK(IB - IA .EQ. 8, 'limits',
     &     'MPI_ADDRESS of DATA(3) is not 8 bytes after DATA(1)')
      CALL MPI_ADDRESS(MPI_BOTTOM, IA, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS .AND. IA .EQ. 0, 'limits',
     &     'MPI_ADDRESS(MPI_BOTTOM) is not 0')
      CALL ONSTACK(IERR, WHERE)
      CALL MPI_ERROR_CLASS(IERR, CLS, VAL)
      CALL CHECK(CLS .EQ. MPI_ERR_ARG, 'limits',
     &     'MPI_ADDRESS of a stack array is not MPI_ERR_ARG')
      CALL CHECK(WHERE .GT. 2147483647_MPI_ADDRESS_KIND .OR.
     &     WHERE .LT. -2147483647_MPI_ADDRESS_KIND, 'limits',
     &     'the stack array fits an INTEGER after all')

! Predefined attributes as values; the topology ones cannot be read.
      CALL MPI_ATTR_GET(MPI_COMM_WORLD, MPI_TAG_UB, VAL, FLAG, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS .AND. FLAG .AND.
     &     VAL .GE. 32767, 'limits', 'MPI_TAG_UB')
      CALL MPI_ATTR_GET(MPI_COMM_WORLD, MPI_HOST, VAL, FLAG, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS .AND. FLAG .AND.
     &     VAL .EQ. MPI_PROC_NULL, 'limits', 'MPI_HOST')
      CALL MPI_ATTR_GET(MPI_COMM_WORLD, MPI_IO, VAL, FLAG, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS .AND. FLAG .AND.
     &     VAL .EQ. MPI_ANY_SOURCE, 'limits', 'MPI_IO')
      CALL MPI_ATTR_GET(MPI_COMM_WORLD, MPI_WTIME_IS_GLOBAL, VAL, FLAG,
     &     IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS .AND. FLAG .AND. VAL .EQ. 0,
     &     'limits', 'MPI_WTIME_IS_GLOBAL')
! MPICHX_TOPOLOGY_DEPTHS is not in mpif.h; its value is mpi.h's.
      CALL MPI_ATTR_GET(MPI_COMM_WORLD, MPI_HOST + 3, VAL, FLAG, IERR)
      CALL MPI_ERROR_CLASS(IERR, CLS, VAL)
      CALL CHECK(CLS .EQ. MPI_ERR_ARG, 'limits',
     &     'the topology depths attribute is not MPI_ERR_ARG')

      CALL MPI_ATTR_PUT(MPI_COMM_WORLD, MPIX_PARALLEL_STREAMS, 3, IERR)
      CALL CHECKRC(IERR, 'limits', 'put MPIX_PARALLEL_STREAMS')
      CALL MPI_ATTR_GET(MPI_COMM_WORLD, MPIX_PARALLEL_STREAMS, NSTREAMS,
     &     FLAG, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS .AND. FLAG .AND.
     &     NSTREAMS .GE. 1, 'limits', 'get MPIX_PARALLEL_STREAMS')
      CALL MPI_ATTR_PUT(MPI_COMM_WORLD, MPIX_PARALLEL_STREAMS, 99, IERR)
      CALL MPI_ERROR_CLASS(IERR, CLS, VAL)
      CALL CHECK(CLS .EQ. MPI_ERR_ARG, 'limits',
     &     'MPIX_PARALLEL_STREAMS of 99 is not MPI_ERR_ARG')

      CALL MPI_FINALIZE(IERR)
      END
