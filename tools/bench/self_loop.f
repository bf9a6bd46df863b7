! self_loop.f: the Fortran 77 twin of self_loop.c, the per-message cost of
! an MPI library without any wire, through its Fortran binding.
!
! Each iteration is MPI_ISEND to self, MPI_RECV of it and MPI_WAIT, the same
! calls with the same arguments as self_loop.c (0 MPI_BYTE, tag 1,
! MPI_COMM_WORLD, MPI_STATUS_IGNORE), so the difference of the two programs'
! instruction counts under callgrind is what the Fortran entry points add
! (see `instructions` in this folder). Run natively it prints ns per
! iteration too.
!
! usage: self_loop_f [ITERATIONS] (default 1000000; like atol, an argument
! that is not a number counts as 0)
      PROGRAM SELFLOOP
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER*8 N, I
      INTEGER RANK, REQ, IERR, IOS
      CHARACTER*32 ARG
      CHARACTER*8 BUF
      DOUBLE PRECISION T0, T1, NS
      CALL MPI_INIT(IERR)
      RANK = 0
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      N = 1000000
      IF (COMMAND_ARGUMENT_COUNT() .GE. 1) THEN
         CALL GET_COMMAND_ARGUMENT(1, ARG)
         READ (ARG, *, IOSTAT=IOS) N
         IF (IOS .NE. 0) N = 0
      END IF
      BUF = ' '
      T0 = MPI_WTIME()
      DO 10 I = 1, N
         CALL MPI_ISEND(BUF, 0, MPI_BYTE, RANK, 1, MPI_COMM_WORLD,
     &        REQ, IERR)
         CALL MPI_RECV(BUF, 0, MPI_BYTE, RANK, 1, MPI_COMM_WORLD,
     &        MPI_STATUS_IGNORE, IERR)
         CALL MPI_WAIT(REQ, MPI_STATUS_IGNORE, IERR)
   10 CONTINUE
      T1 = MPI_WTIME()
      IF (RANK .EQ. 0) THEN
         NS = 0.0D0
         IF (N .GT. 0) NS = (T1 - T0) / DBLE(N) * 1.0D9
         WRITE (*, '(A, I0, A, F0.1, A)') 'self_loop: ', N,
     &        ' iterations, ', NS, ' ns each'
      END IF
      CALL MPI_FINALIZE(IERR)
      END
