! qos.f: the MPIX_QOS attribute from Fortran 77. MPI_ATTR_PUT takes an
! INTEGER rate (above 0: premium at that many Mbit/s, 0: best effort),
! MPI_ATTR_GET gives the rate (0: best effort), MPI_ATTR_DELETE gives the
! reservation back; a message each way crosses the premium communicator.
! Even ranks are at one site, odd ranks at the other (qos_test.py); run
! with an even number of processes. Prints "qos_fortran: ok" from rank 0.
      PROGRAM QOSF
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      CHARACTER*(*) P
      PARAMETER (P = 'qos_fortran')
      INTEGER IERR, RANK, NP, C, V, RATE, PEER, I
      INTEGER OUT(1000), IN(1000), STATUS(MPI_STATUS_SIZE)
      LOGICAL FLAG

      CALL MPI_INIT(IERR)
      CALL CHECKRC(IERR, P, 'MPI_INIT')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECK(MOD(NP, 2) .EQ. 0, P, 'an even number of processes')
      PEER = RANK + 1 - 2 * MOD(RANK, 2)
      CALL MPI_COMM_DUP(MPI_COMM_WORLD, C, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_DUP')

      V = -1
      FLAG = .FALSE.
      CALL MPI_ATTR_GET(C, MPIX_QOS, V, FLAG, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ATTR_GET before any put')
      CALL CHECK(FLAG, P, 'MPIX_QOS is always there')
      CALL CHECK(V .EQ. 0, P, 'best effort before any put')

      RATE = 20
      CALL MPI_ATTR_PUT(C, MPIX_QOS, RATE, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ATTR_PUT 20')
      V = -1
      CALL MPI_ATTR_GET(C, MPIX_QOS, V, FLAG, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ATTR_GET after a put of 20')
      CALL CHECK(FLAG .AND. V .EQ. 20, P, 'premium 20 reads 20')

! A message each way while premium
      DO 10 I = 1, 1000
         OUT(I) = RANK * 100000 + I
         IN(I) = -1
   10 CONTINUE
      CALL MPI_SENDRECV(OUT, 1000, MPI_INTEGER, PEER, 3, IN, 1000,
     &     MPI_INTEGER, PEER, 3, C, STATUS, IERR)
      CALL CHECKRC(IERR, P, 'MPI_SENDRECV while premium')
      DO 20 I = 1, 1000
         CALL CHECK(IN(I) .EQ. PEER * 100000 + I, P,
     &        'the message from the other site')
   20 CONTINUE

      RATE = 0
      CALL MPI_ATTR_PUT(C, MPIX_QOS, RATE, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ATTR_PUT 0')
      CALL MPI_ATTR_GET(C, MPIX_QOS, V, FLAG, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ATTR_GET after a put of 0')
      CALL CHECK(FLAG .AND. V .EQ. 0, P, 'best effort reads 0')

      RATE = 25
      CALL MPI_ATTR_PUT(C, MPIX_QOS, RATE, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ATTR_PUT 25')
      CALL MPI_ATTR_GET(C, MPIX_QOS, V, FLAG, IERR)
      CALL CHECK(FLAG .AND. V .EQ. 25, P, 'premium 25 reads 25')
      CALL MPI_ATTR_DELETE(C, MPIX_QOS, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ATTR_DELETE')
      V = -1
      CALL MPI_ATTR_GET(C, MPIX_QOS, V, FLAG, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ATTR_GET after MPI_ATTR_DELETE')
      CALL CHECK(FLAG .AND. V .EQ. 0, P, 'best effort after a delete')

      CALL MPI_COMM_FREE(C, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE')
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      IF (RANK .EQ. 0) WRITE (*, '(A)') 'qos_fortran: ok'
      CALL MPI_FINALIZE(IERR)
      END
