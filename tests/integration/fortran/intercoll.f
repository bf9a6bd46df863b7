! intercoll: collectives on an intercommunicator from Fortran 77. The
! world is cut into a low half (ranks 0..NP/2-1) and a high half, joined
! by MPI_INTERCOMM_CREATE. MPI_BCAST from every rank of each group in
! turn: the root passes MPI_ROOT, the rest of its group MPI_PROC_NULL
! (their buffers stay as they were), the other group the root's rank.
! MPI_ALLREDUCE: each group gets the reduction of the other group's
! vectors (INTEGER SUM, DOUBLE PRECISION MAX). Runs with 2 to 5
! processes (ranks.txt).
      PROGRAM INTERC
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      CHARACTER*(*) P
      PARAMETER (P = 'intercoll')
      INTEGER IERR, RANK, NP, LOW, COLOR, RLEAD, LSIZE, RSIZE, R
      INTEGER LOCAL, INTER, OLO, OHI

      CALL MPI_INIT(IERR)
      CALL CHECKRC(IERR, P, 'MPI_INIT')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK')
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SIZE')
      CALL CHECK(NP .GE. 2, P, 'needs 2 processes or more')
      CALL CHECK(MPI_ROOT .NE. MPI_PROC_NULL .AND.
     &     MPI_ROOT .NE. MPI_ANY_SOURCE .AND. MPI_ROOT .LT. 0, P,
     &     'MPI_ROOT is a negative value of its own')

      LOW = NP / 2
      IF (RANK .LT. LOW) THEN
         COLOR = 0
         RLEAD = LOW
         LSIZE = LOW
         RSIZE = NP - LOW
         OLO = LOW
         OHI = NP - 1
      ELSE
         COLOR = 1
         RLEAD = 0
         LSIZE = NP - LOW
         RSIZE = LOW
         OLO = 0
         OHI = LOW - 1
      END IF
      R = RANK - COLOR * LOW
      CALL MPI_COMM_SPLIT(MPI_COMM_WORLD, COLOR, RANK, LOCAL, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SPLIT halves')
      CALL MPI_INTERCOMM_CREATE(LOCAL, 0, MPI_COMM_WORLD, RLEAD, 23,
     &     INTER, IERR)
      CALL CHECKRC(IERR, P, 'MPI_INTERCOMM_CREATE')

      CALL TBCAST(INTER, COLOR, R, LSIZE, RSIZE)
      CALL TALLRD(INTER, RANK, OLO, OHI)

      CALL MPI_COMM_FREE(INTER, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE inter')
      CALL MPI_COMM_FREE(LOCAL, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE local')
      CALL MPI_FINALIZE(IERR)
      CALL CHECKRC(IERR, P, 'MPI_FINALIZE')
      END

! ---- BCAST from every rank of each group ---------------------------------
      SUBROUTINE TBCAST(INTER, COLOR, R, LSIZE, RSIZE)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER INTER, COLOR, R, LSIZE, RSIZE
      CHARACTER*(*) P
      PARAMETER (P = 'intercoll')
      INTEGER IERR, G, GSIZE, ROOT, ARG, I, IB(3), WANT
      DOUBLE PRECISION DB(2)

      DO G = 0, 1
         GSIZE = RSIZE
         IF (G .EQ. COLOR) GSIZE = LSIZE
         DO ROOT = 0, GSIZE - 1
            ARG = ROOT
            IF (G .EQ. COLOR) THEN
               ARG = MPI_PROC_NULL
               IF (R .EQ. ROOT) ARG = MPI_ROOT
            END IF
            DO I = 1, 3
               IB(I) = -1
               IF (ARG .EQ. MPI_ROOT) IB(I) = 100 * G + 10 * ROOT + I
            END DO
            DB(1) = -1.0D0
            DB(2) = -1.0D0
            IF (ARG .EQ. MPI_ROOT) THEN
               DB(1) = 0.5D0 + ROOT
               DB(2) = 0.25D0 + G
            END IF
            CALL MPI_BCAST(IB, 3, MPI_INTEGER, ARG, INTER, IERR)
            CALL CHECKRC(IERR, P, 'MPI_BCAST integer')
            CALL MPI_BCAST(DB, 2, MPI_DOUBLE_PRECISION, ARG, INTER,
     &           IERR)
            CALL CHECKRC(IERR, P, 'MPI_BCAST double precision')
            DO I = 1, 3
               WANT = 100 * G + 10 * ROOT + I
               IF (ARG .EQ. MPI_PROC_NULL) WANT = -1
               CALL CHECK(IB(I) .EQ. WANT, P, 'BCAST integer value')
            END DO
            IF (ARG .EQ. MPI_PROC_NULL) THEN
               CALL CHECK(DB(1) .EQ. -1.0D0 .AND. DB(2) .EQ. -1.0D0,
     &              P, 'BCAST left MPI_PROC_NULL alone')
            ELSE
               CALL CHECK(DB(1) .EQ. 0.5D0 + ROOT .AND.
     &              DB(2) .EQ. 0.25D0 + G, P, 'BCAST double value')
            END IF
         END DO
      END DO
      END

! ---- ALLREDUCE: the other group's world ranks OLO..OHI -------------------
      SUBROUTINE TALLRD(INTER, RANK, OLO, OHI)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER INTER, RANK, OLO, OHI
      CHARACTER*(*) P
      PARAMETER (P = 'intercoll')
      INTEGER IERR, I, W, IS(4), IR(4), WANT
      DOUBLE PRECISION DS(2), DR(2)

      DO I = 1, 4
         IS(I) = 10 * RANK + I
         IR(I) = -1
      END DO
      DS(1) = 0.5D0 * (RANK + 1)
      DS(2) = -0.5D0 * (RANK + 1)
      CALL MPI_ALLREDUCE(IS, IR, 4, MPI_INTEGER, MPI_SUM, INTER, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE integer')
      CALL MPI_ALLREDUCE(DS, DR, 2, MPI_DOUBLE_PRECISION, MPI_MAX,
     &     INTER, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE double precision')
      DO I = 1, 4
         WANT = 0
         DO W = OLO, OHI
            WANT = WANT + 10 * W + I
         END DO
         CALL CHECK(IR(I) .EQ. WANT, P,
     &        'ALLREDUCE gives the other group''s sum')
      END DO
      CALL CHECK(DR(1) .EQ. 0.5D0 * (OHI + 1), P,
     &     'ALLREDUCE MAX over the other group')
      CALL CHECK(DR(2) .EQ. -0.5D0 * (OLO + 1), P,
     &     'ALLREDUCE MAX of negatives over the other group')
      END
