! userop: MPI_OP_CREATE with Fortran user functions
! SUBROUTINE F(INVEC, INOUTVEC, LEN, DATATYPE): a commutative sum of
! DOUBLE PRECISION written by hand, a non-commutative 2x2 INTEGER matrix
! product on a contiguous type of 4 INTEGERs (checked in rank order with
! REDUCE, ALLREDUCE and SCAN), a commutative op on MPI_TYPE_CONTIGUOUS
! of 2 INTEGERs; the DATATYPE each function receives; MPI_OP_FREE; the
! MPI-2 MPI_REDUCE_LOCAL and MPI_OP_COMMUTATIVE. Runs with 1 to 5
! processes (ranks.txt).
      PROGRAM USEROP
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      CHARACTER*(*) P
      PARAMETER (P = 'userop')
      INTEGER NCALL(3), NBAD(3), EXPT(3), LASTT(3)
      COMMON /UREC/ NCALL, NBAD, EXPT, LASTT
      EXTERNAL DSUM, MATMUL2, PAIROP
      INTEGER IERR, RANK, NP, OPS, OPM, OPP, MATT, PAIRT, I, K, R
      INTEGER TOTAL, ROOT, N, NCOLL
      DOUBLE PRECISION DS(3), DX(3)
      INTEGER IP(2, 3), IX(2, 3), A(2, 2), B(2, 2)
      LOGICAL COMMUTE

      CALL MPI_INIT(IERR)
      CALL CHECKRC(IERR, P, 'MPI_INIT')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK')
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SIZE')
      CALL CHECK(NP .LE. 64, P, 'too many processes')
      DO I = 1, 3
         NCALL(I) = 0
         NBAD(I) = 0
      END DO

! ---- A commutative sum of DOUBLE PRECISION -------------------------
      EXPT(1) = MPI_DOUBLE_PRECISION
      CALL MPI_OP_CREATE(DSUM, .TRUE., OPS, IERR)
      CALL CHECKRC(IERR, P, 'MPI_OP_CREATE DSUM')
      CALL CHECK(OPS .NE. MPI_OP_NULL, P, 'OP_CREATE gave MPI_OP_NULL')
      CALL MPI_OP_COMMUTATIVE(OPS, COMMUTE, IERR)
      CALL CHECKRC(IERR, P, 'MPI_OP_COMMUTATIVE DSUM')
      CALL CHECK(COMMUTE, P, 'OP_COMMUTATIVE of a commutative op')
      CALL CHECK(TRANSFER(COMMUTE, 0) .EQ. TRANSFER(.TRUE., 0), P,
     &     'OP_COMMUTATIVE gives exactly .TRUE.')
      DO K = 1, 3
         DS(K) = (RANK + 1) * 0.25D0 + K * 1024
      END DO
      DO ROOT = 0, NP - 1
         DO K = 1, 3
            DX(K) = -1D0
         END DO
         CALL MPI_REDUCE(DS, DX, 3, MPI_DOUBLE_PRECISION, OPS, ROOT,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, P, 'MPI_REDUCE DSUM')
         IF (RANK .EQ. ROOT) THEN
            DO K = 1, 3
               CALL CHECK(DX(K) .EQ. NP * (NP + 1) * 0.125D0
     &              + NP * K * 1024, P, 'REDUCE with DSUM')
            END DO
         END IF
      END DO
      CALL MPI_ALLREDUCE(DS, DX, 3, MPI_DOUBLE_PRECISION, OPS,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE DSUM')
      DO K = 1, 3
         CALL CHECK(DX(K) .EQ. NP * (NP + 1) * 0.125D0 + NP * K * 1024,
     &        P, 'ALLREDUCE with DSUM')
      END DO
      CALL MPI_SCAN(DS, DX, 3, MPI_DOUBLE_PRECISION, OPS,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_SCAN DSUM')
      DO K = 1, 3
         CALL CHECK(DX(K) .EQ. (RANK + 1) * (RANK + 2) * 0.125D0
     &        + (RANK + 1) * K * 1024, P, 'SCAN with DSUM')
      END DO
! REDUCE_LOCAL: INOUT = IN op INOUT, here on this process alone
      NCOLL = NCALL(1)
      N = NCALL(1)
      DX(1) = 0.5D0
      DX(2) = 1.5D0
      DX(3) = -2D0
      CALL MPI_REDUCE_LOCAL(DS, DX, 3, MPI_DOUBLE_PRECISION, OPS, IERR)
      CALL CHECKRC(IERR, P, 'MPI_REDUCE_LOCAL DSUM')
      CALL CHECK(DX(1) .EQ. DS(1) + 0.5D0 .AND.
     &     DX(2) .EQ. DS(2) + 1.5D0 .AND. DX(3) .EQ. DS(3) - 2D0, P,
     &     'REDUCE_LOCAL with DSUM')
      CALL CHECK(NCALL(1) .GE. N + 1, P,
     &     'REDUCE_LOCAL calls the user function')
      CALL CHECK(LASTT(1) .EQ. MPI_DOUBLE_PRECISION, P,
     &     'DSUM receives MPI_DOUBLE_PRECISION')
      CALL MPI_OP_FREE(OPS, IERR)
      CALL CHECKRC(IERR, P, 'MPI_OP_FREE DSUM')
      CALL CHECK(OPS .EQ. MPI_OP_NULL, P, 'OP_FREE sets MPI_OP_NULL')

! ---- A non-commutative 2x2 matrix product ----------------------------
      CALL MPI_TYPE_CONTIGUOUS(4, MPI_INTEGER, MATT, IERR)
      CALL CHECKRC(IERR, P, 'MPI_TYPE_CONTIGUOUS 4')
      CALL MPI_TYPE_COMMIT(MATT, IERR)
      CALL CHECKRC(IERR, P, 'MPI_TYPE_COMMIT 4')
      EXPT(2) = MATT
      CALL MPI_OP_CREATE(MATMUL2, .FALSE., OPM, IERR)
      CALL CHECKRC(IERR, P, 'MPI_OP_CREATE MATMUL2')
      CALL MPI_OP_COMMUTATIVE(OPM, COMMUTE, IERR)
      CALL CHECKRC(IERR, P, 'MPI_OP_COMMUTATIVE MATMUL2')
      CALL CHECK(.NOT. COMMUTE, P,
     &     'OP_COMMUTATIVE of a non-commutative op')
      CALL CHECK(TRANSFER(COMMUTE, 0) .EQ. TRANSFER(.FALSE., 0), P,
     &     'OP_COMMUTATIVE gives exactly .FALSE.')
      CALL TMAT(RANK, NP, OPM, MATT, 2)
      CALL TMAT(RANK, NP, OPM, MATT, 300)
! REDUCE_LOCAL: B = A * B
      A(1, 1) = 1
      A(2, 1) = 2
      A(1, 2) = 3
      A(2, 2) = 4
      B(1, 1) = 5
      B(2, 1) = 6
      B(1, 2) = 7
      B(2, 2) = 8
      CALL MPI_REDUCE_LOCAL(A, B, 1, MATT, OPM, IERR)
      CALL CHECKRC(IERR, P, 'MPI_REDUCE_LOCAL MATMUL2')
      CALL CHECK(B(1, 1) .EQ. 23 .AND. B(2, 1) .EQ. 34 .AND.
     &     B(1, 2) .EQ. 31 .AND. B(2, 2) .EQ. 46, P,
     &     'REDUCE_LOCAL: INOUTVEC = INVEC op INOUTVEC')
      CALL CHECK(LASTT(2) .EQ. MATT, P,
     &     'MATMUL2 receives the derived datatype')
      CALL MPI_OP_FREE(OPM, IERR)
      CALL CHECKRC(IERR, P, 'MPI_OP_FREE MATMUL2')
      CALL CHECK(OPM .EQ. MPI_OP_NULL, P, 'OP_FREE sets null (2)')
      CALL MPI_TYPE_FREE(MATT, IERR)
      CALL CHECKRC(IERR, P, 'MPI_TYPE_FREE 4')

! ---- A commutative op on MPI_TYPE_CONTIGUOUS of 2 INTEGERs -----------
      CALL MPI_TYPE_CONTIGUOUS(2, MPI_INTEGER, PAIRT, IERR)
      CALL CHECKRC(IERR, P, 'MPI_TYPE_CONTIGUOUS 2')
      CALL MPI_TYPE_COMMIT(PAIRT, IERR)
      CALL CHECKRC(IERR, P, 'MPI_TYPE_COMMIT 2')
      EXPT(3) = PAIRT
      CALL MPI_OP_CREATE(PAIROP, .TRUE., OPP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_OP_CREATE PAIROP')
      DO K = 1, 3
         IP(1, K) = (RANK + 1) * K
         IP(2, K) = MOD(RANK * 7 + K, 5)
      END DO
      CALL MPI_ALLREDUCE(IP, IX, 3, PAIRT, OPP, MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE PAIROP')
      DO K = 1, 3
         I = -1
         DO R = 0, NP - 1
            I = MAX(I, MOD(R * 7 + K, 5))
         END DO
         CALL CHECK(IX(1, K) .EQ. K * NP * (NP + 1) / 2 .AND.
     &        IX(2, K) .EQ. I, P, 'ALLREDUCE on the pair type')
      END DO
      ROOT = NP - 1
      CALL MPI_REDUCE(IP, IX, 3, PAIRT, OPP, ROOT, MPI_COMM_WORLD,
     &     IERR)
      CALL CHECKRC(IERR, P, 'MPI_REDUCE PAIROP')
      IF (RANK .EQ. ROOT) THEN
         DO K = 1, 3
            CALL CHECK(IX(1, K) .EQ. K * NP * (NP + 1) / 2, P,
     &           'REDUCE on the pair type')
         END DO
      END IF
      IX(1, 1) = 10
      IX(2, 1) = 99
      CALL MPI_REDUCE_LOCAL(IP, IX, 1, PAIRT, OPP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_REDUCE_LOCAL PAIROP')
      CALL CHECK(IX(1, 1) .EQ. IP(1, 1) + 10 .AND. IX(2, 1) .EQ. 99,
     &     P, 'REDUCE_LOCAL on the pair type')
      CALL CHECK(LASTT(3) .EQ. PAIRT, P,
     &     'PAIROP receives the contiguous type')
      CALL MPI_OP_FREE(OPP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_OP_FREE PAIROP')
      CALL MPI_TYPE_FREE(PAIRT, IERR)
      CALL CHECKRC(IERR, P, 'MPI_TYPE_FREE 2')

! ---- Predefined operations through the MPI-2 calls -----------------
      CALL MPI_OP_COMMUTATIVE(MPI_SUM, COMMUTE, IERR)
      CALL CHECKRC(IERR, P, 'MPI_OP_COMMUTATIVE MPI_SUM')
      CALL CHECK(COMMUTE, P, 'MPI_SUM is commutative')
      IX(1, 1) = 5
      IX(2, 1) = 6
      IP(1, 1) = 1
      IP(2, 1) = 2
      CALL MPI_REDUCE_LOCAL(IP, IX, 2, MPI_INTEGER, MPI_SUM, IERR)
      CALL CHECKRC(IERR, P, 'MPI_REDUCE_LOCAL MPI_SUM')
      CALL CHECK(IX(1, 1) .EQ. 6 .AND. IX(2, 1) .EQ. 8, P,
     &     'REDUCE_LOCAL with MPI_SUM')

! Every call of every function got the datatype it was given, and with
! more than one process the collectives called them somewhere.
      DO I = 1, 3
         CALL CHECK(NBAD(I) .EQ. 0, P,
     &        'a user function received another DATATYPE')
      END DO
      CALL MPI_ALLREDUCE(NCOLL, TOTAL, 1, MPI_INTEGER, MPI_SUM,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE call count')
      IF (NP .GT. 1) CALL CHECK(TOTAL .GE. 1, P,
     &     'the collectives called DSUM')

      CALL MPI_FINALIZE(IERR)
      CALL CHECKRC(IERR, P, 'MPI_FINALIZE')
      END

! The matrix of rank R at position I (of COUNT): [[R+1, c], [1, 0]] for
! odd I and [[1, R+2], [c, 1]] for even I, c = MOD(I, 3); no two of
! them commute in general, so only the rank-order product matches.
      SUBROUTINE MATOF(R, I, M)
      IMPLICIT NONE
      INTEGER R, I, M(2, 2)
      IF (MOD(I, 2) .EQ. 1) THEN
         M(1, 1) = R + 1
         M(1, 2) = MOD(I, 3) + 1
         M(2, 1) = 1
         M(2, 2) = 0
      ELSE
         M(1, 1) = 1
         M(1, 2) = R + 2
         M(2, 1) = MOD(I, 3)
         M(2, 2) = 1
      END IF
      END

! C = A * B
      SUBROUTINE MUL2(A, B, C)
      IMPLICIT NONE
      INTEGER A(2, 2), B(2, 2), C(2, 2), T(2, 2), I, J
      DO J = 1, 2
         DO I = 1, 2
            T(I, J) = A(I, 1) * B(1, J) + A(I, 2) * B(2, J)
         END DO
      END DO
      DO J = 1, 2
         DO I = 1, 2
            C(I, J) = T(I, J)
         END DO
      END DO
      END

! REDUCE at every root, ALLREDUCE (also in place) and SCAN of COUNT
! matrices with the non-commutative OP.
      SUBROUTINE TMAT(RANK, NP, OP, MATT, COUNT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER RANK, NP, OP, MATT, COUNT
      CHARACTER*(*) P
      PARAMETER (P = 'userop')
      INTEGER MAXC
      PARAMETER (MAXC = 300)
      INTEGER S(2, 2, MAXC), X(2, 2, MAXC), E(2, 2, MAXC)
      INTEGER F(2, 2, MAXC), M(2, 2)
      INTEGER I, R, ROOT, IERR, CNT(64)
      LOGICAL SAME

      CALL CHECK(COUNT .LE. MAXC, P, 'TMAT count')
      DO I = 1, COUNT
         CALL MATOF(RANK, I, S(1, 1, I))
! E: the product over all ranks; F: over ranks 0..RANK
         CALL MATOF(0, I, E(1, 1, I))
         CALL MATOF(0, I, F(1, 1, I))
         DO R = 1, NP - 1
            CALL MATOF(R, I, M)
            CALL MUL2(E(1, 1, I), M, E(1, 1, I))
            IF (R .LE. RANK) CALL MUL2(F(1, 1, I), M, F(1, 1, I))
         END DO
      END DO
      DO ROOT = 0, NP - 1
         DO I = 1, COUNT
            X(1, 1, I) = -1
         END DO
         CALL MPI_REDUCE(S, X, COUNT, MATT, OP, ROOT, MPI_COMM_WORLD,
     &        IERR)
         CALL CHECKRC(IERR, P, 'MPI_REDUCE MATMUL2')
         IF (RANK .EQ. ROOT) THEN
            CALL SAME4(X, E, COUNT, SAME)
            CALL CHECK(SAME, P, 'REDUCE: the product in rank order')
         END IF
      END DO
! in place at the root
      ROOT = MOD(COUNT, NP)
      DO I = 1, COUNT
         X(1, 1, I) = S(1, 1, I)
         X(2, 1, I) = S(2, 1, I)
         X(1, 2, I) = S(1, 2, I)
         X(2, 2, I) = S(2, 2, I)
      END DO
      IF (RANK .EQ. ROOT) THEN
         CALL MPI_REDUCE(MPI_IN_PLACE, X, COUNT, MATT, OP, ROOT,
     &        MPI_COMM_WORLD, IERR)
      ELSE
         CALL MPI_REDUCE(S, X, COUNT, MATT, OP, ROOT, MPI_COMM_WORLD,
     &        IERR)
      END IF
      CALL CHECKRC(IERR, P, 'MPI_REDUCE MATMUL2 in place')
      IF (RANK .EQ. ROOT) THEN
         CALL SAME4(X, E, COUNT, SAME)
         CALL CHECK(SAME, P, 'REDUCE in place: rank order')
      END IF
! REDUCE_SCATTER: rank r gets r + 1 of the products
      IF (COUNT .GE. NP * (NP + 1) / 2) THEN
         DO I = 1, NP
            CNT(I) = I
         END DO
         DO I = 1, RANK + 2
            X(1, 1, I) = -1
         END DO
         CALL MPI_REDUCE_SCATTER(S, X, CNT, MATT, OP, MPI_COMM_WORLD,
     &        IERR)
         CALL CHECKRC(IERR, P, 'MPI_REDUCE_SCATTER MATMUL2')
         CALL SAME4(X, E(1, 1, RANK * (RANK + 1) / 2 + 1), RANK + 1,
     &        SAME)
         CALL CHECK(SAME, P, 'REDUCE_SCATTER: rank order')
         CALL CHECK(X(1, 1, RANK + 2) .EQ. -1, P,
     &        'REDUCE_SCATTER past the count')
      END IF
      CALL MPI_ALLREDUCE(S, X, COUNT, MATT, OP, MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE MATMUL2')
      CALL SAME4(X, E, COUNT, SAME)
      CALL CHECK(SAME, P, 'ALLREDUCE: the product in rank order')
      DO I = 1, COUNT
         X(1, 1, I) = S(1, 1, I)
         X(2, 1, I) = S(2, 1, I)
         X(1, 2, I) = S(1, 2, I)
         X(2, 2, I) = S(2, 2, I)
      END DO
      CALL MPI_ALLREDUCE(MPI_IN_PLACE, X, COUNT, MATT, OP,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE MATMUL2 in place')
      CALL SAME4(X, E, COUNT, SAME)
      CALL CHECK(SAME, P, 'ALLREDUCE in place: rank order')
      CALL MPI_SCAN(S, X, COUNT, MATT, OP, MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_SCAN MATMUL2')
      CALL SAME4(X, F, COUNT, SAME)
      CALL CHECK(SAME, P, 'SCAN: the prefix product in rank order')
      END

      SUBROUTINE SAME4(X, E, COUNT, SAME)
      IMPLICIT NONE
      INTEGER COUNT, X(4, COUNT), E(4, COUNT), I, J
      LOGICAL SAME
      SAME = .TRUE.
      DO I = 1, COUNT
         DO J = 1, 4
            IF (X(J, I) .NE. E(J, I)) SAME = .FALSE.
         END DO
      END DO
      END

! ---- The user functions -------------------------------------------------
! Each counts its calls and the calls whose DATATYPE was not the one
! the program passed (EXPT), and keeps the last DATATYPE.
      SUBROUTINE DSUM(IN, INOUT, LEN, DTYPE)
      IMPLICIT NONE
      INTEGER LEN, DTYPE
      DOUBLE PRECISION IN(LEN), INOUT(LEN)
      INTEGER NCALL(3), NBAD(3), EXPT(3), LASTT(3)
      COMMON /UREC/ NCALL, NBAD, EXPT, LASTT
      INTEGER I
      NCALL(1) = NCALL(1) + 1
      LASTT(1) = DTYPE
      IF (DTYPE .NE. EXPT(1)) NBAD(1) = NBAD(1) + 1
      DO I = 1, LEN
         INOUT(I) = IN(I) + INOUT(I)
      END DO
      END

! INOUT(i) = IN(i) * INOUT(i): IN holds the lower ranks' product
      SUBROUTINE MATMUL2(IN, INOUT, LEN, DTYPE)
      IMPLICIT NONE
      INTEGER LEN, DTYPE
      INTEGER IN(2, 2, LEN), INOUT(2, 2, LEN)
      INTEGER NCALL(3), NBAD(3), EXPT(3), LASTT(3)
      COMMON /UREC/ NCALL, NBAD, EXPT, LASTT
      INTEGER I
      NCALL(2) = NCALL(2) + 1
      LASTT(2) = DTYPE
      IF (DTYPE .NE. EXPT(2)) NBAD(2) = NBAD(2) + 1
      DO I = 1, LEN
         CALL MUL2(IN(1, 1, I), INOUT(1, 1, I), INOUT(1, 1, I))
      END DO
      END

! (a, b) op (c, d) = (a + c, max(b, d))
      SUBROUTINE PAIROP(IN, INOUT, LEN, DTYPE)
      IMPLICIT NONE
      INTEGER LEN, DTYPE
      INTEGER IN(2, LEN), INOUT(2, LEN)
      INTEGER NCALL(3), NBAD(3), EXPT(3), LASTT(3)
      COMMON /UREC/ NCALL, NBAD, EXPT, LASTT
      INTEGER I
      NCALL(3) = NCALL(3) + 1
      LASTT(3) = DTYPE
      IF (DTYPE .NE. EXPT(3)) NBAD(3) = NBAD(3) + 1
      DO I = 1, LEN
         INOUT(1, I) = IN(1, I) + INOUT(1, I)
         INOUT(2, I) = MAX(IN(2, I), INOUT(2, I))
      END DO
      END
