! Shared checks of the Fortran conformance programs (linked into each).
! On a failure a program prints one line to standard error naming itself,
! its rank and what differed, then ends the job through MPI_ABORT, so the
! test fails with a non-zero status.
      SUBROUTINE CHECK(OK, PROG, WHAT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      LOGICAL OK
      CHARACTER*(*) PROG, WHAT
      INTEGER RANK, IERR
      IF (.NOT. OK) THEN
         CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
         WRITE (0, '(A, A, I0, A, A)') PROG, ': rank ', RANK, ': ', WHAT
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      END

! CHECKRC: the call named WHAT returned IERR, which must be MPI_SUCCESS.
      SUBROUTINE CHECKRC(IERR, PROG, WHAT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR
      CHARACTER*(*) PROG, WHAT
      INTEGER RANK, IGN
      IF (IERR .NE. MPI_SUCCESS) THEN
         CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IGN)
         WRITE (0, '(A, A, I0, A, A, A, I0)') PROG, ': rank ', RANK,
     &        ': ', WHAT, ' returned ', IERR
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IGN)
      END IF
      END
