! coll: every MPI-1 collective with Fortran datatypes, and the
! predefined reductions of MPI-1.3 4.9.2 on them: INTEGER, REAL, DOUBLE
! PRECISION, COMPLEX, DOUBLE COMPLEX, LOGICAL, the pair types with
! MAXLOC/MINLOC, MPI_CHARACTER; MPI_IN_PLACE for REDUCE at the root,
! ALLREDUCE and GATHER at the root; several roots. Every value is a small
! integer or a short binary fraction, so any order of evaluation gives
! the exact result. Runs with 1 to 5 processes (ranks.txt).
      PROGRAM COLL
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      CHARACTER*(*) P
      PARAMETER (P = 'coll')
      INTEGER IERR, RANK, NP

      CALL MPI_INIT(IERR)
      CALL CHECKRC(IERR, P, 'MPI_INIT')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK')
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SIZE')
      CALL CHECK(NP .LE. 64, P, 'too many processes')

      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_BARRIER')
      CALL TBCAST(RANK, NP)
      CALL TGATH(RANK, NP)
      CALL TSCAT(RANK, NP)
      CALL TALL(RANK, NP)
      CALL TREDI(RANK, NP)
      CALL TREDR(RANK, NP)
      CALL TREDC(RANK, NP)
      CALL TREDL(RANK, NP)
      CALL TLOC(RANK, NP)
      CALL TRSCAN(RANK, NP)
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_BARRIER last')

      CALL MPI_FINALIZE(IERR)
      CALL CHECKRC(IERR, P, 'MPI_FINALIZE')
      END

! ---- BCAST of each type, from different roots --------------------------
      SUBROUTINE TBCAST(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      CHARACTER*(*) P
      PARAMETER (P = 'coll')
      INTEGER IERR, I, IB(5), ROOT
      DOUBLE PRECISION DB(3)
      REAL RB(2)
      CHARACTER*16 S
      LOGICAL LB(3)
      COMPLEX CB(2)
      DOUBLE COMPLEX ZB

      ROOT = NP - 1
      DO I = 1, 5
         IB(I) = -1
         IF (RANK .EQ. ROOT) IB(I) = 10 * I + 3
      END DO
      CALL MPI_BCAST(IB, 5, MPI_INTEGER, ROOT, MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_BCAST INTEGER')
      DO I = 1, 5
         CALL CHECK(IB(I) .EQ. 10 * I + 3, P, 'BCAST INTEGER')
      END DO

      ROOT = 0
      DO I = 1, 3
         DB(I) = 0D0
         IF (RANK .EQ. ROOT) DB(I) = I * 0.125D0 + 1D10
      END DO
      CALL MPI_BCAST(DB, 3, MPI_DOUBLE_PRECISION, ROOT,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_BCAST DOUBLE PRECISION')
      DO I = 1, 3
         CALL CHECK(DB(I) .EQ. I * 0.125D0 + 1D10, P,
     &        'BCAST DOUBLE PRECISION')
      END DO

      ROOT = MOD(1, NP)
      RB(1) = 0
      RB(2) = 0
      IF (RANK .EQ. ROOT) THEN
         RB(1) = 1.5
         RB(2) = -0.75
      END IF
      CALL MPI_BCAST(RB, 2, MPI_REAL, ROOT, MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_BCAST REAL')
      CALL CHECK(RB(1) .EQ. 1.5 .AND. RB(2) .EQ. -0.75, P,
     &     'BCAST REAL')

      ROOT = MOD(2, NP)
      S = ' '
      IF (RANK .EQ. ROOT) S = 'Hello, Fortran!'
      CALL MPI_BCAST(S, 16, MPI_CHARACTER, ROOT, MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_BCAST CHARACTER')
      CALL CHECK(S .EQ. 'Hello, Fortran!', P, 'BCAST CHARACTER')

      ROOT = MOD(3, NP)
      LB(1) = .FALSE.
      LB(2) = .TRUE.
      LB(3) = .FALSE.
      IF (RANK .EQ. ROOT) THEN
         LB(1) = .TRUE.
         LB(2) = .FALSE.
         LB(3) = .TRUE.
      END IF
      CALL MPI_BCAST(LB, 3, MPI_LOGICAL, ROOT, MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_BCAST LOGICAL')
      CALL CHECK(LB(1) .AND. .NOT. LB(2) .AND. LB(3), P,
     &     'BCAST LOGICAL')

      ROOT = MOD(4, NP)
      CB(1) = (0.0, 0.0)
      CB(2) = (0.0, 0.0)
      ZB = (0D0, 0D0)
      IF (RANK .EQ. ROOT) THEN
         CB(1) = (1.25, -2.5)
         CB(2) = (-3.0, 0.5)
         ZB = (1D20, -0.125D0)
      END IF
      CALL MPI_BCAST(CB, 2, MPI_COMPLEX, ROOT, MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_BCAST COMPLEX')
      CALL CHECK(CB(1) .EQ. (1.25, -2.5) .AND. CB(2) .EQ. (-3.0, 0.5),
     &     P, 'BCAST COMPLEX')
      CALL MPI_BCAST(ZB, 1, MPI_DOUBLE_COMPLEX, ROOT, MPI_COMM_WORLD,
     &     IERR)
      CALL CHECKRC(IERR, P, 'MPI_BCAST DOUBLE COMPLEX')
      CALL CHECK(ZB .EQ. (1D20, -0.125D0), P, 'BCAST DOUBLE COMPLEX')
      END

! ---- GATHER (every root), GATHER in place, CHARACTER, GATHERV -------
      SUBROUTINE TGATH(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      CHARACTER*(*) P
      PARAMETER (P = 'coll')
      INTEGER IERR, I, J, ROOT, SB(2), RB(2, 64), CNT(64), DSP(64)
      CHARACTER*3 CS, CR(64)
      REAL RS(64), RR(64 * 66)

      DO ROOT = 0, NP - 1
         SB(1) = 10 * RANK + 1
         SB(2) = 10 * RANK + 2
         DO I = 1, NP
            RB(1, I) = -1
            RB(2, I) = -1
         END DO
         CALL MPI_GATHER(SB, 2, MPI_INTEGER, RB, 2, MPI_INTEGER, ROOT,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_GATHER')
         DO I = 1, NP
            IF (RANK .EQ. ROOT) THEN
               CALL CHECK(RB(1, I) .EQ. 10 * (I - 1) + 1 .AND.
     &              RB(2, I) .EQ. 10 * (I - 1) + 2, P, 'GATHER')
            ELSE
               CALL CHECK(RB(1, I) .EQ. -1, P,
     &              'GATHER wrote outside the root')
            END IF
         END DO
! the same, the root's part already in place
         DO I = 1, NP
            RB(1, I) = -1
            RB(2, I) = -1
         END DO
         IF (RANK .EQ. ROOT) THEN
            RB(1, RANK + 1) = 10 * RANK + 1
            RB(2, RANK + 1) = 10 * RANK + 2
            CALL MPI_GATHER(MPI_IN_PLACE, 0, MPI_INTEGER, RB, 2,
     &           MPI_INTEGER, ROOT, MPI_COMM_WORLD, IERR)
         ELSE
            CALL MPI_GATHER(SB, 2, MPI_INTEGER, RB, 2, MPI_INTEGER,
     &           ROOT, MPI_COMM_WORLD, IERR)
         END IF
         CALL CHECKRC(IERR, P, 'MPI_GATHER in place')
         IF (RANK .EQ. ROOT) THEN
            DO I = 1, NP
               CALL CHECK(RB(1, I) .EQ. 10 * (I - 1) + 1 .AND.
     &              RB(2, I) .EQ. 10 * (I - 1) + 2, P,
     &              'GATHER with MPI_IN_PLACE')
            END DO
         END IF
      END DO

! CHARACTER: 'r' and the rank in two digits
      ROOT = NP / 2
      WRITE (CS, '(A, I2.2)') 'r', RANK
      DO I = 1, NP
         CR(I) = '???'
      END DO
      CALL MPI_GATHER(CS, 3, MPI_CHARACTER, CR, 3, MPI_CHARACTER, ROOT,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GATHER CHARACTER')
      IF (RANK .EQ. ROOT) THEN
         DO I = 1, NP
            WRITE (CS, '(A, I2.2)') 'r', I - 1
            CALL CHECK(CR(I) .EQ. CS, P, 'GATHER CHARACTER')
         END DO
      END IF

! GATHERV: rank r gives r + 1 REALs, placed with one-element gaps
      ROOT = NP - 1
      DO J = 1, RANK + 1
         RS(J) = (10 * RANK + J) * 0.5
      END DO
      DSP(1) = 1
      DO I = 1, NP
         CNT(I) = I
         IF (I .GT. 1) DSP(I) = DSP(I - 1) + CNT(I - 1) + 1
      END DO
      DO I = 1, DSP(NP) + CNT(NP) + 1
         RR(I) = -1.0
      END DO
      CALL MPI_GATHERV(RS, RANK + 1, MPI_REAL, RR, CNT, DSP, MPI_REAL,
     &     ROOT, MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GATHERV')
      IF (RANK .EQ. ROOT) THEN
         CALL CHECK(RR(1) .EQ. -1.0, P, 'GATHERV before the first')
         DO I = 1, NP
            DO J = 1, CNT(I)
               CALL CHECK(RR(DSP(I) + J) .EQ. (10 * (I - 1) + J) * 0.5,
     &              P, 'GATHERV value')
            END DO
            CALL CHECK(RR(DSP(I) + CNT(I) + 1) .EQ. -1.0, P,
     &           'GATHERV gap untouched')
         END DO
      END IF
      END

! ---- SCATTER, SCATTERV --------------------------------------------------
      SUBROUTINE TSCAT(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      CHARACTER*(*) P
      PARAMETER (P = 'coll')
      INTEGER IERR, I, J, ROOT, CNT(64), DSP(64), IS(64 * 64), IR(65)
      DOUBLE PRECISION DS(2, 64), DR(2)

      DO ROOT = 0, NP - 1
         DO I = 1, NP
            DS(1, I) = 0D0
            DS(2, I) = 0D0
            IF (RANK .EQ. ROOT) THEN
               DS(1, I) = (I - 1) + 0.5D0 + ROOT
               DS(2, I) = -(I - 1) - 0.25D0
            END IF
         END DO
         DR(1) = 99D0
         DR(2) = 99D0
         CALL MPI_SCATTER(DS, 2, MPI_DOUBLE_PRECISION, DR, 2,
     &        MPI_DOUBLE_PRECISION, ROOT, MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_SCATTER')
         CALL CHECK(DR(1) .EQ. RANK + 0.5D0 + ROOT .AND.
     &        DR(2) .EQ. -RANK - 0.25D0, P, 'SCATTER')
      END DO

! SCATTERV: rank r gets NP - r INTEGERs, blocks in reverse rank order
      ROOT = MOD(1, NP)
      DO I = 1, NP
         CNT(I) = NP - I + 1
         DSP(I) = (NP - I) * NP
      END DO
      DO I = 1, NP * NP
         IS(I) = -7
         IF (RANK .EQ. ROOT) IS(I) = I
      END DO
      DO J = 1, NP + 1
         IR(J) = -3
      END DO
      CALL MPI_SCATTERV(IS, CNT, DSP, MPI_INTEGER, IR, NP - RANK,
     &     MPI_INTEGER, ROOT, MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_SCATTERV')
      DO J = 1, NP - RANK
         CALL CHECK(IR(J) .EQ. DSP(RANK + 1) + J, P, 'SCATTERV value')
      END DO
      CALL CHECK(IR(NP - RANK + 1) .EQ. -3, P,
     &     'SCATTERV past the count')
      END

! ---- ALLGATHER, ALLGATHERV, ALLTOALL, ALLTOALLV --------------------------
      SUBROUTINE TALL(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      CHARACTER*(*) P
      PARAMETER (P = 'coll')
      INTEGER IERR, I, J, K, TOT
      INTEGER SB(2), RB(2, 64), CNT(64), DSP(64), SCNT(64), SDSP(64)
      INTEGER A2(2, 64), B2(2, 64), AV(64 * 65), BV(64 * 66)
      DOUBLE PRECISION DS(64), DR(64 * 65)

      SB(1) = RANK
      SB(2) = -RANK - 100
      CALL MPI_ALLGATHER(SB, 2, MPI_INTEGER, RB, 2, MPI_INTEGER,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLGATHER')
      DO I = 1, NP
         CALL CHECK(RB(1, I) .EQ. I - 1 .AND. RB(2, I) .EQ. -I - 99,
     &        P, 'ALLGATHER')
      END DO

! ALLGATHERV: rank r gives r + 1 values; blocks stored last rank first
      TOT = NP * (NP + 1) / 2
      K = TOT
      DO I = 1, NP
         CNT(I) = I
         K = K - I
         DSP(I) = K
      END DO
      DO J = 1, RANK + 1
         DS(J) = RANK * 8 + J * 0.125D0
      END DO
      DO J = 1, TOT
         DR(J) = -1D0
      END DO
      CALL MPI_ALLGATHERV(DS, RANK + 1, MPI_DOUBLE_PRECISION, DR, CNT,
     &     DSP, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLGATHERV')
      DO I = 1, NP
         DO J = 1, CNT(I)
            CALL CHECK(DR(DSP(I) + J) .EQ. (I - 1) * 8 + J * 0.125D0,
     &           P, 'ALLGATHERV')
         END DO
      END DO

! ALLTOALL: two INTEGERs from each to each
      DO J = 1, NP
         A2(1, J) = 100 * RANK + J - 1
         A2(2, J) = -(100 * RANK + J - 1)
      END DO
      CALL MPI_ALLTOALL(A2, 2, MPI_INTEGER, B2, 2, MPI_INTEGER,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLTOALL')
      DO J = 1, NP
         CALL CHECK(B2(1, J) .EQ. 100 * (J - 1) + RANK .AND.
     &        B2(2, J) .EQ. -(100 * (J - 1) + RANK), P, 'ALLTOALL')
      END DO

! ALLTOALLV: rank i sends j + 1 values to rank j; received blocks of
! i + 1 values with a one-element gap after each
      K = 0
      DO J = 1, NP
         SCNT(J) = J
         SDSP(J) = K
         DO I = 1, J
            AV(K + I) = 1000 * RANK + 10 * (J - 1) + I
         END DO
         K = K + J
         CNT(J) = RANK + 1
         DSP(J) = (J - 1) * (RANK + 2)
      END DO
      DO I = 1, NP * (RANK + 2)
         BV(I) = -1
      END DO
      CALL MPI_ALLTOALLV(AV, SCNT, SDSP, MPI_INTEGER, BV, CNT, DSP,
     &     MPI_INTEGER, MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLTOALLV')
      DO J = 1, NP
         DO I = 1, RANK + 1
            CALL CHECK(BV(DSP(J) + I) .EQ. 1000 * (J - 1) + 10 * RANK
     &           + I, P, 'ALLTOALLV value')
         END DO
         CALL CHECK(BV(DSP(J) + RANK + 2) .EQ. -1, P,
     &        'ALLTOALLV gap untouched')
      END DO
      END

! ---- INTEGER reductions ---------------------------------------------------
! The value rank R contributes at position K.
      INTEGER FUNCTION IVAL(R, K)
      IMPLICIT NONE
      INTEGER R, K
      IF (K .EQ. 1) THEN
         IVAL = R + 1
      ELSE IF (K .EQ. 2) THEN
         IVAL = 2 ** R + 256
         IF (MOD(R, 2) .EQ. 0) IVAL = IVAL + 512
      ELSE
         IVAL = (R + 2) * (1 - 2 * MOD(R, 2))
      END IF
      END

! Sums and products wrap around as the library's do (two's complement),
! computed in INTEGER*8 so that the reference itself never overflows.
      INTEGER FUNCTION ICOMB(OP, A, B)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER OP, A, B
      INTEGER*8 WIDE, TWO31, TWO32
      PARAMETER (TWO31 = 2147483648_8, TWO32 = 4294967296_8)
      IF (OP .EQ. MPI_SUM .OR. OP .EQ. MPI_PROD) THEN
         IF (OP .EQ. MPI_SUM) THEN
            WIDE = INT(A, 8) + INT(B, 8)
         ELSE
            WIDE = INT(A, 8) * INT(B, 8)
         END IF
         ICOMB = INT(MODULO(WIDE + TWO31, TWO32) - TWO31, 4)
      ELSE IF (OP .EQ. MPI_MAX) THEN
         ICOMB = MAX(A, B)
      ELSE IF (OP .EQ. MPI_MIN) THEN
         ICOMB = MIN(A, B)
      ELSE IF (OP .EQ. MPI_BAND) THEN
         ICOMB = IAND(A, B)
      ELSE IF (OP .EQ. MPI_BOR) THEN
         ICOMB = IOR(A, B)
      ELSE
         ICOMB = IEOR(A, B)
      END IF
      END

      SUBROUTINE TREDI(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      CHARACTER*(*) P
      PARAMETER (P = 'coll')
      INTEGER IVAL, ICOMB
      INTEGER OPS(7), IOP, OP, ROOT, IERR, K, R
      INTEGER S(3), X(3), E(3)
      CHARACTER*5 NAMES(7)
      DATA OPS /MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN, MPI_BAND,
     &     MPI_BOR, MPI_BXOR/
      DATA NAMES /'SUM', 'PROD', 'MAX', 'MIN', 'BAND', 'BOR', 'BXOR'/

      DO IOP = 1, 7
         OP = OPS(IOP)
         DO K = 1, 3
            S(K) = IVAL(RANK, K)
            E(K) = IVAL(0, K)
            DO R = 1, NP - 1
               E(K) = ICOMB(OP, E(K), IVAL(R, K))
            END DO
         END DO
         ROOT = MOD(IOP, NP)
         DO K = 1, 3
            X(K) = -12345
         END DO
         CALL MPI_REDUCE(S, X, 3, MPI_INTEGER, OP, ROOT,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_REDUCE INTEGER ' // NAMES(IOP))
         DO K = 1, 3
            IF (RANK .EQ. ROOT) THEN
               CALL CHECK(X(K) .EQ. E(K), P,
     &              'REDUCE INTEGER ' // NAMES(IOP))
            ELSE
               CALL CHECK(X(K) .EQ. -12345, P,
     &              'REDUCE wrote outside the root')
            END IF
         END DO
! in place at another root
         ROOT = MOD(IOP + 1, NP)
         IF (RANK .EQ. ROOT) THEN
            DO K = 1, 3
               X(K) = S(K)
            END DO
            CALL MPI_REDUCE(MPI_IN_PLACE, X, 3, MPI_INTEGER, OP, ROOT,
     &           MPI_COMM_WORLD, IERR)
         ELSE
            CALL MPI_REDUCE(S, X, 3, MPI_INTEGER, OP, ROOT,
     &           MPI_COMM_WORLD, IERR)
         END IF
         CALL CHECKRC(IERR, P, 'MPI_REDUCE in place ' // NAMES(IOP))
         IF (RANK .EQ. ROOT) THEN
            DO K = 1, 3
               CALL CHECK(X(K) .EQ. E(K), P,
     &              'REDUCE MPI_IN_PLACE INTEGER ' // NAMES(IOP))
            END DO
         END IF
         CALL MPI_ALLREDUCE(S, X, 3, MPI_INTEGER, OP, MPI_COMM_WORLD,
     &        IERR)
         CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE INTEGER ' // NAMES(IOP))
         DO K = 1, 3
            CALL CHECK(X(K) .EQ. E(K), P,
     &           'ALLREDUCE INTEGER ' // NAMES(IOP))
         END DO
         DO K = 1, 3
            X(K) = S(K)
         END DO
         CALL MPI_ALLREDUCE(MPI_IN_PLACE, X, 3, MPI_INTEGER, OP,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE in place ' // NAMES(IOP))
         DO K = 1, 3
            CALL CHECK(X(K) .EQ. E(K), P,
     &           'ALLREDUCE MPI_IN_PLACE INTEGER ' // NAMES(IOP))
         END DO
      END DO
      END

! ---- REAL and DOUBLE PRECISION reductions -----------------------------------
      DOUBLE PRECISION FUNCTION DVAL(R, K)
      IMPLICIT NONE
      INTEGER R, K
      IF (K .EQ. 1) THEN
         DVAL = (R + 1) * 0.5D0
      ELSE IF (K .EQ. 2) THEN
         DVAL = 3D0 - R * 0.25D0
      ELSE
         DVAL = 2D0 ** (R - 2) * (1 - 2 * MOD(R, 2))
      END IF
      END

      DOUBLE PRECISION FUNCTION DCOMB(OP, A, B)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER OP
      DOUBLE PRECISION A, B
      IF (OP .EQ. MPI_SUM) THEN
         DCOMB = A + B
      ELSE IF (OP .EQ. MPI_PROD) THEN
         DCOMB = A * B
      ELSE IF (OP .EQ. MPI_MAX) THEN
         DCOMB = MAX(A, B)
      ELSE
         DCOMB = MIN(A, B)
      END IF
      END

      SUBROUTINE TREDR(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      CHARACTER*(*) P
      PARAMETER (P = 'coll')
      DOUBLE PRECISION DVAL, DCOMB
      INTEGER OPS(4), IOP, OP, ROOT, IERR, K, R
      DOUBLE PRECISION DS(3), DX(3), E(3)
      REAL RS(3), RX(3)
      CHARACTER*4 NAMES(4)
      DATA OPS /MPI_SUM, MPI_PROD, MPI_MAX, MPI_MIN/
      DATA NAMES /'SUM', 'PROD', 'MAX', 'MIN'/

      DO IOP = 1, 4
         OP = OPS(IOP)
         DO K = 1, 3
            DS(K) = DVAL(RANK, K)
            RS(K) = REAL(DS(K))
            E(K) = DVAL(0, K)
            DO R = 1, NP - 1
               E(K) = DCOMB(OP, E(K), DVAL(R, K))
            END DO
         END DO
         ROOT = MOD(IOP + 2, NP)
         CALL MPI_REDUCE(RS, RX, 3, MPI_REAL, OP, ROOT, MPI_COMM_WORLD,
     &        IERR)
         CALL CHECKRC(IERR, P, 'MPI_REDUCE REAL ' // NAMES(IOP))
         IF (RANK .EQ. ROOT) THEN
            DO K = 1, 3
               CALL CHECK(DBLE(RX(K)) .EQ. E(K), P,
     &              'REDUCE REAL ' // NAMES(IOP))
            END DO
         END IF
         CALL MPI_ALLREDUCE(RS, RX, 3, MPI_REAL, OP, MPI_COMM_WORLD,
     &        IERR)
         CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE REAL ' // NAMES(IOP))
         DO K = 1, 3
            CALL CHECK(DBLE(RX(K)) .EQ. E(K), P,
     &           'ALLREDUCE REAL ' // NAMES(IOP))
         END DO
         ROOT = MOD(IOP, NP)
         CALL MPI_REDUCE(DS, DX, 3, MPI_DOUBLE_PRECISION, OP, ROOT,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_REDUCE DOUBLE ' // NAMES(IOP))
         IF (RANK .EQ. ROOT) THEN
            DO K = 1, 3
               CALL CHECK(DX(K) .EQ. E(K), P,
     &              'REDUCE DOUBLE PRECISION ' // NAMES(IOP))
            END DO
         END IF
         DO K = 1, 3
            DX(K) = DS(K)
         END DO
         CALL MPI_ALLREDUCE(MPI_IN_PLACE, DX, 3, MPI_DOUBLE_PRECISION,
     &        OP, MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE DOUBLE ' // NAMES(IOP))
         DO K = 1, 3
            CALL CHECK(DX(K) .EQ. E(K), P,
     &           'ALLREDUCE DOUBLE PRECISION ' // NAMES(IOP))
         END DO
      END DO
      END

! ---- COMPLEX and DOUBLE COMPLEX: SUM and PROD ----------------------------
      DOUBLE COMPLEX FUNCTION ZVAL(R, K)
      IMPLICIT NONE
      INTEGER R, K
      IF (K .EQ. 1) THEN
         ZVAL = DCMPLX(DBLE(R + 1), DBLE(1 - R))
      ELSE
         ZVAL = DCMPLX(-0.5D0 * R, 1D0 + 0.5D0 * MOD(R, 3))
      END IF
      END

      SUBROUTINE TREDC(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      CHARACTER*(*) P
      PARAMETER (P = 'coll')
      DOUBLE COMPLEX ZVAL
      INTEGER ROOT, IERR, K, R, IOP, OP
      DOUBLE COMPLEX ZS(2), ZX(2), E(2)
      COMPLEX CS(2), CX(2)
      DOUBLE PRECISION ER, EI
      CHARACTER*4 NAME

      DO IOP = 1, 2
         IF (IOP .EQ. 1) THEN
            OP = MPI_SUM
            NAME = 'SUM'
         ELSE
            OP = MPI_PROD
            NAME = 'PROD'
         END IF
         DO K = 1, 2
            ZS(K) = ZVAL(RANK, K)
            CS(K) = CMPLX(ZS(K))
            E(K) = ZVAL(0, K)
            DO R = 1, NP - 1
               IF (OP .EQ. MPI_SUM) THEN
                  E(K) = E(K) + ZVAL(R, K)
               ELSE
! (a+bi)(c+di) written out, to check the library's product
                  ER = DBLE(E(K)) * DBLE(ZVAL(R, K))
     &                 - DIMAG(E(K)) * DIMAG(ZVAL(R, K))
                  EI = DBLE(E(K)) * DIMAG(ZVAL(R, K))
     &                 + DIMAG(E(K)) * DBLE(ZVAL(R, K))
                  E(K) = DCMPLX(ER, EI)
               END IF
            END DO
         END DO
         ROOT = MOD(IOP + 1, NP)
         CALL MPI_REDUCE(CS, CX, 2, MPI_COMPLEX, OP, ROOT,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_REDUCE COMPLEX ' // NAME)
         IF (RANK .EQ. ROOT) THEN
            DO K = 1, 2
               CALL CHECK(DBLE(REAL(CX(K))) .EQ. DBLE(E(K)) .AND.
     &              DBLE(AIMAG(CX(K))) .EQ. DIMAG(E(K)), P,
     &              'REDUCE COMPLEX ' // NAME)
            END DO
         END IF
         CALL MPI_ALLREDUCE(CS, CX, 2, MPI_COMPLEX, OP, MPI_COMM_WORLD,
     &        IERR)
         CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE COMPLEX ' // NAME)
         DO K = 1, 2
            CALL CHECK(DBLE(REAL(CX(K))) .EQ. DBLE(E(K)) .AND.
     &           DBLE(AIMAG(CX(K))) .EQ. DIMAG(E(K)), P,
     &           'ALLREDUCE COMPLEX ' // NAME)
         END DO
         ROOT = MOD(IOP, NP)
         CALL MPI_REDUCE(ZS, ZX, 2, MPI_DOUBLE_COMPLEX, OP, ROOT,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_REDUCE DOUBLE COMPLEX ' // NAME)
         IF (RANK .EQ. ROOT) THEN
            DO K = 1, 2
               CALL CHECK(ZX(K) .EQ. E(K), P,
     &              'REDUCE DOUBLE COMPLEX ' // NAME)
            END DO
         END IF
         CALL MPI_ALLREDUCE(ZS, ZX, 2, MPI_DOUBLE_COMPLEX, OP,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE DOUBLE COMPLEX ' // NAME)
         DO K = 1, 2
            CALL CHECK(ZX(K) .EQ. E(K), P,
     &           'ALLREDUCE DOUBLE COMPLEX ' // NAME)
         END DO
      END DO
! one product written out: (1+i)(2+0i)(3-i)(4-2i)(5-3i) in rank order
      IF (NP .EQ. 5) THEN
         CALL CHECK(E(1) .EQ. (200D0, -120D0), P,
     &        'the complex product itself')
      END IF
      END

! ---- LOGICAL: LAND, LOR, LXOR ---------------------------------------------
      LOGICAL FUNCTION LVAL(R, K)
      IMPLICIT NONE
      INTEGER R, K
      IF (K .EQ. 1) THEN
         LVAL = .TRUE.
      ELSE IF (K .EQ. 2) THEN
         LVAL = R .EQ. 0
      ELSE IF (K .EQ. 3) THEN
         LVAL = MOD(R, 2) .EQ. 0
      ELSE
         LVAL = .FALSE.
      END IF
      END

      SUBROUTINE TREDL(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      CHARACTER*(*) P
      PARAMETER (P = 'coll')
      LOGICAL LVAL
      INTEGER OPS(3), IOP, OP, ROOT, IERR, K, R, BITS
      LOGICAL LS(4), LX(4), E(4)
      CHARACTER*4 NAMES(3)
      DATA OPS /MPI_LAND, MPI_LOR, MPI_LXOR/
      DATA NAMES /'LAND', 'LOR', 'LXOR'/

      DO IOP = 1, 3
         OP = OPS(IOP)
         DO K = 1, 4
            LS(K) = LVAL(RANK, K)
            E(K) = LVAL(0, K)
            DO R = 1, NP - 1
               IF (OP .EQ. MPI_LAND) THEN
                  E(K) = E(K) .AND. LVAL(R, K)
               ELSE IF (OP .EQ. MPI_LOR) THEN
                  E(K) = E(K) .OR. LVAL(R, K)
               ELSE
                  E(K) = E(K) .NEQV. LVAL(R, K)
               END IF
            END DO
         END DO
         ROOT = MOD(IOP, NP)
         CALL MPI_REDUCE(LS, LX, 4, MPI_LOGICAL, OP, ROOT,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_REDUCE LOGICAL ' // NAMES(IOP))
         IF (RANK .EQ. ROOT) THEN
            DO K = 1, 4
               CALL CHECK(LX(K) .EQV. E(K), P,
     &              'REDUCE LOGICAL ' // NAMES(IOP))
            END DO
         END IF
         CALL MPI_ALLREDUCE(LS, LX, 4, MPI_LOGICAL, OP,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE LOGICAL ' // NAMES(IOP))
         DO K = 1, 4
            CALL CHECK(LX(K) .EQV. E(K), P,
     &           'ALLREDUCE LOGICAL ' // NAMES(IOP))
! the result is exactly .TRUE. or .FALSE. (1 or 0)
            BITS = TRANSFER(LX(K), BITS)
            IF (E(K)) THEN
               CALL CHECK(BITS .EQ. TRANSFER(.TRUE., BITS), P,
     &              'LOGICAL result is .TRUE. ' // NAMES(IOP))
            ELSE
               CALL CHECK(BITS .EQ. TRANSFER(.FALSE., BITS), P,
     &              'LOGICAL result is .FALSE. ' // NAMES(IOP))
            END IF
         END DO
      END DO
      END

! ---- MAXLOC and MINLOC on the pair types -----------------------------------
! Pair K of rank R: a value with ties, and an index; the indices of
! pair 2 fall as the rank rises, so a tie goes to the highest rank.
      INTEGER FUNCTION LOCV(R, K)
      IMPLICIT NONE
      INTEGER R, K
      IF (K .EQ. 1) THEN
         LOCV = MOD(R, 2)
      ELSE IF (K .EQ. 2) THEN
         LOCV = R * R - 3 * R
      ELSE
         LOCV = 7
      END IF
      END

      INTEGER FUNCTION LOCI(R, K)
      IMPLICIT NONE
      INTEGER R, K
      IF (K .EQ. 2) THEN
         LOCI = 100 - R
      ELSE
         LOCI = R
      END IF
      END

! The expected pair: MAXLOC if MX, else MINLOC; ties to the lowest index.
      SUBROUTINE LOCEXP(NP, K, MX, V, I)
      IMPLICIT NONE
      INTEGER NP, K, V, I
      LOGICAL MX
      INTEGER LOCV, LOCI, R, W, J
      V = LOCV(0, K)
      I = LOCI(0, K)
      DO R = 1, NP - 1
         W = LOCV(R, K)
         J = LOCI(R, K)
         IF ((MX .AND. W .GT. V) .OR. (.NOT. MX .AND. W .LT. V) .OR.
     &        (W .EQ. V .AND. J .LT. I)) THEN
            V = W
            I = J
         END IF
      END DO
      END

      SUBROUTINE TLOC(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      CHARACTER*(*) P
      PARAMETER (P = 'coll')
      INTEGER LOCV, LOCI
      INTEGER IP(2, 3), IX(2, 3), K, EV, EI, IOP, OP, ROOT, IERR
      REAL RP(2, 3), RX(2, 3)
      DOUBLE PRECISION DP(2, 3), DX(2, 3)
      LOGICAL MX
      CHARACTER*6 NAME

      DO IOP = 1, 2
         MX = IOP .EQ. 1
         IF (MX) THEN
            OP = MPI_MAXLOC
            NAME = 'MAXLOC'
         ELSE
            OP = MPI_MINLOC
            NAME = 'MINLOC'
         END IF
         DO K = 1, 3
            IP(1, K) = LOCV(RANK, K)
            IP(2, K) = LOCI(RANK, K)
            RP(1, K) = REAL(IP(1, K))
            RP(2, K) = REAL(IP(2, K))
            DP(1, K) = DBLE(IP(1, K))
            DP(2, K) = DBLE(IP(2, K))
         END DO
         ROOT = MOD(IOP + 2, NP)
         CALL MPI_REDUCE(IP, IX, 3, MPI_2INTEGER, OP, ROOT,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_REDUCE 2INTEGER ' // NAME)
         IF (RANK .EQ. ROOT) THEN
            DO K = 1, 3
               CALL LOCEXP(NP, K, MX, EV, EI)
               CALL CHECK(IX(1, K) .EQ. EV .AND. IX(2, K) .EQ. EI, P,
     &              'REDUCE MPI_2INTEGER ' // NAME)
            END DO
         END IF
         CALL MPI_ALLREDUCE(IP, IX, 3, MPI_2INTEGER, OP,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE 2INTEGER ' // NAME)
         CALL MPI_ALLREDUCE(RP, RX, 3, MPI_2REAL, OP,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE 2REAL ' // NAME)
         CALL MPI_ALLREDUCE(DP, DX, 3, MPI_2DOUBLE_PRECISION, OP,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE 2DOUBLE ' // NAME)
         DO K = 1, 3
            CALL LOCEXP(NP, K, MX, EV, EI)
            CALL CHECK(IX(1, K) .EQ. EV .AND. IX(2, K) .EQ. EI, P,
     &           'ALLREDUCE MPI_2INTEGER ' // NAME)
            CALL CHECK(RX(1, K) .EQ. REAL(EV) .AND.
     &           RX(2, K) .EQ. REAL(EI), P,
     &           'ALLREDUCE MPI_2REAL ' // NAME)
            CALL CHECK(DX(1, K) .EQ. DBLE(EV) .AND.
     &           DX(2, K) .EQ. DBLE(EI), P,
     &           'ALLREDUCE MPI_2DOUBLE_PRECISION ' // NAME)
         END DO
         ROOT = MOD(IOP, NP)
         CALL MPI_REDUCE(DP, DX, 3, MPI_2DOUBLE_PRECISION, OP, ROOT,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_REDUCE 2DOUBLE ' // NAME)
         CALL MPI_REDUCE(RP, RX, 3, MPI_2REAL, OP, ROOT,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_REDUCE 2REAL ' // NAME)
         IF (RANK .EQ. ROOT) THEN
            DO K = 1, 3
               CALL LOCEXP(NP, K, MX, EV, EI)
               CALL CHECK(DX(1, K) .EQ. DBLE(EV) .AND.
     &              DX(2, K) .EQ. DBLE(EI), P,
     &              'REDUCE MPI_2DOUBLE_PRECISION ' // NAME)
               CALL CHECK(RX(1, K) .EQ. REAL(EV) .AND.
     &              RX(2, K) .EQ. REAL(EI), P,
     &              'REDUCE MPI_2REAL ' // NAME)
            END DO
         END IF
      END DO
      END

! ---- REDUCE_SCATTER and SCAN ------------------------------------------------
      SUBROUTINE TRSCAN(RANK, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP
      CHARACTER*(*) P
      PARAMETER (P = 'coll')
      INTEGER LOCV, LOCI
      INTEGER IERR, I, J, K, TOT, OFF, CNT(64), S(64 * 65 / 2), X(65)
      INTEGER IP(2, 3), IX(2, 3), EV, EI
      DOUBLE PRECISION DS(64 * 65 / 2), DX(65), D, E
      LOGICAL L, LX

! REDUCE_SCATTER: rank r receives r + 1 elements
      TOT = NP * (NP + 1) / 2
      DO I = 1, NP
         CNT(I) = I
      END DO
      DO J = 1, TOT
         S(J) = J * (RANK + 1)
         DS(J) = J * 0.5D0 - RANK
      END DO
      DO J = 1, RANK + 2
         X(J) = -1
      END DO
      CALL MPI_REDUCE_SCATTER(S, X, CNT, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_REDUCE_SCATTER INTEGER')
      OFF = RANK * (RANK + 1) / 2
      DO J = 1, RANK + 1
         CALL CHECK(X(J) .EQ. (OFF + J) * TOT, P,
     &        'REDUCE_SCATTER INTEGER SUM')
      END DO
      CALL CHECK(X(RANK + 2) .EQ. -1, P, 'REDUCE_SCATTER past count')
      CALL MPI_REDUCE_SCATTER(DS, DX, CNT, MPI_DOUBLE_PRECISION,
     &     MPI_MIN, MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_REDUCE_SCATTER DOUBLE')
      DO J = 1, RANK + 1
         CALL CHECK(DX(J) .EQ. (OFF + J) * 0.5D0 - (NP - 1), P,
     &        'REDUCE_SCATTER DOUBLE PRECISION MIN')
      END DO

! SCAN: INTEGER SUM, DOUBLE PRECISION PROD, LOGICAL LOR, 2INTEGER MAXLOC
      CALL MPI_SCAN(RANK + 1, X, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_SCAN INTEGER')
      CALL CHECK(X(1) .EQ. (RANK + 1) * (RANK + 2) / 2, P,
     &     'SCAN INTEGER SUM')
      D = (RANK + 1) * 0.5D0
      CALL MPI_SCAN(D, DX, 1, MPI_DOUBLE_PRECISION, MPI_PROD,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_SCAN DOUBLE')
      E = 1D0
      DO I = 0, RANK
         E = E * (I + 1) * 0.5D0
      END DO
      CALL CHECK(DX(1) .EQ. E, P, 'SCAN DOUBLE PRECISION PROD')
      L = RANK .EQ. 1
      CALL MPI_SCAN(L, LX, 1, MPI_LOGICAL, MPI_LOR, MPI_COMM_WORLD,
     &     IERR)
      CALL CHECKRC(IERR, P, 'MPI_SCAN LOGICAL')
      CALL CHECK(LX .EQV. (RANK .GE. 1), P, 'SCAN LOGICAL LOR')
      DO K = 1, 3
         IP(1, K) = LOCV(RANK, K)
         IP(2, K) = LOCI(RANK, K)
      END DO
      CALL MPI_SCAN(IP, IX, 3, MPI_2INTEGER, MPI_MAXLOC,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_SCAN 2INTEGER')
      DO K = 1, 3
         CALL LOCEXP(RANK + 1, K, .TRUE., EV, EI)
         CALL CHECK(IX(1, K) .EQ. EV .AND. IX(2, K) .EQ. EI, P,
     &        'SCAN MPI_2INTEGER MAXLOC')
      END DO
      END
