! datatypes.f: derived datatypes through the Fortran 77 bindings.
! MPI_TYPE_CONTIGUOUS, MPI_TYPE_VECTOR (a row and whole columns of a 2-D
! array), MPI_TYPE_HVECTOR (byte stride as a default INTEGER),
! MPI_TYPE_INDEXED, MPI_TYPE_HINDEXED, MPI_TYPE_STRUCT with MPI_LB and
! MPI_UB markers, with the values of MPI_TYPE_EXTENT/SIZE/LB/UB;
! MPI_TYPE_COMMIT/FREE; MPI_PACK/MPI_UNPACK/MPI_PACK_SIZE, packed data
! received as typed and typed data received packed; the MPI-2
! MPI_TYPE_CREATE_RESIZED, MPI_TYPE_GET_EXTENT,
! MPI_TYPE_GET_TRUE_EXTENT, MPI_TYPE_CREATE_INDEXED_BLOCK and
! MPI_TYPE_SET_NAME/MPI_TYPE_GET_NAME; an extent too large for
! MPI_TYPE_EXTENT's INTEGER. Each rank sends to the next
! around the ring. Runs on 1 to 4 processes.
      PROGRAM DTYPES
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, ME, NP, RIGHT, LEFT
      CALL MPI_INIT(IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_INIT')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_COMM_RANK')
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_COMM_SIZE')
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME + NP - 1, NP)
      CALL TCONTG(ME, RIGHT, LEFT)
      CALL TVECT(ME, RIGHT, LEFT)
      CALL THVEC(ME, RIGHT, LEFT)
      CALL TINDEX(ME, RIGHT, LEFT)
      CALL TSTRUC(ME, RIGHT, LEFT)
      CALL TPACK(ME, RIGHT, LEFT)
      CALL TMPI2(ME, RIGHT, LEFT)
      CALL TNAMES
      CALL TBIG
      CALL MPI_FINALIZE(IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_FINALIZE')
      END

! Checks the MPI-1 bounds of TYPE: size, extent, lower and upper bound.
      SUBROUTINE BOUNDS(TYPE, SIZE, EXTENT, LB, UB, WHAT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER TYPE, SIZE, EXTENT, LB, UB
      CHARACTER*(*) WHAT
      INTEGER IERR, V
      CALL MPI_TYPE_SIZE(TYPE, V, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_SIZE')
      CALL CHECK(V .EQ. SIZE, 'datatypes', WHAT // ': MPI_TYPE_SIZE')
      CALL MPI_TYPE_EXTENT(TYPE, V, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_EXTENT')
      CALL CHECK(V .EQ. EXTENT, 'datatypes',
     &     WHAT // ': MPI_TYPE_EXTENT')
      CALL MPI_TYPE_LB(TYPE, V, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_LB')
      CALL CHECK(V .EQ. LB, 'datatypes', WHAT // ': MPI_TYPE_LB')
      CALL MPI_TYPE_UB(TYPE, V, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_UB')
      CALL CHECK(V .EQ. UB, 'datatypes', WHAT // ': MPI_TYPE_UB')
      END

! MPI_TYPE_CONTIGUOUS of 3 DOUBLE PRECISION; two of them sent, received
! as 6 DOUBLE PRECISION. A type built on it survives its MPI_TYPE_FREE.
      SUBROUTINE TCONTG(ME, RIGHT, LEFT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, RIGHT, LEFT
      INTEGER IERR, I, T3, T6, N, STATUS(MPI_STATUS_SIZE)
      DOUBLE PRECISION S(6), R(6)
      CALL MPI_TYPE_CONTIGUOUS(3, MPI_DOUBLE_PRECISION, T3, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_CONTIGUOUS')
      CALL MPI_TYPE_COMMIT(T3, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_COMMIT')
      CALL BOUNDS(T3, 24, 24, 0, 24, 'contiguous')
      CALL BOUNDS(MPI_DOUBLE_PRECISION, 8, 8, 0, 8,
     &     'MPI_DOUBLE_PRECISION')
      CALL BOUNDS(MPI_INTEGER, 4, 4, 0, 4, 'MPI_INTEGER')
      CALL BOUNDS(MPI_COMPLEX, 8, 8, 0, 8, 'MPI_COMPLEX')
      CALL BOUNDS(MPI_DOUBLE_COMPLEX, 16, 16, 0, 16,
     &     'MPI_DOUBLE_COMPLEX')
      CALL BOUNDS(MPI_LOGICAL, 4, 4, 0, 4, 'MPI_LOGICAL')
      CALL BOUNDS(MPI_CHARACTER, 1, 1, 0, 1, 'MPI_CHARACTER')
      DO I = 1, 6
         S(I) = ME + I / 8.0D0
         R(I) = -1.0D0
      END DO
      CALL MPI_SENDRECV(S, 2, T3, RIGHT, 1, R, 6, MPI_DOUBLE_PRECISION,
     &     LEFT, 1, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_SENDRECV contiguous')
      DO I = 1, 6
         CALL CHECK(R(I) .EQ. LEFT + I / 8.0D0, 'datatypes',
     &        'contiguous: data')
      END DO
      CALL MPI_GET_COUNT(STATUS, T3, N, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_GET_COUNT')
      CALL CHECK(N .EQ. 2, 'datatypes',
     &     'MPI_GET_COUNT of 6 doubles as contiguous(3) not 2')
!     T6 = contiguous(2, T3); T3 freed before T6 is used.
      CALL MPI_TYPE_CONTIGUOUS(2, T3, T6, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_CONTIGUOUS nested')
      CALL MPI_TYPE_FREE(T3, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_FREE')
      CALL CHECK(T3 .EQ. MPI_DATATYPE_NULL, 'datatypes',
     &     'MPI_TYPE_FREE did not set MPI_DATATYPE_NULL')
      CALL MPI_TYPE_COMMIT(T6, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_COMMIT nested')
      CALL BOUNDS(T6, 48, 48, 0, 48, 'contiguous of contiguous')
      DO I = 1, 6
         R(I) = -1.0D0
      END DO
      CALL MPI_SENDRECV(S, 1, T6, RIGHT, 2, R, 1, T6, LEFT, 2,
     &     MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_SENDRECV nested')
      DO I = 1, 6
         CALL CHECK(R(I) .EQ. LEFT + I / 8.0D0, 'datatypes',
     &        'contiguous of a freed contiguous: data')
      END DO
      CALL MPI_TYPE_FREE(T6, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_FREE')
      END

! MPI_TYPE_VECTOR over A(5,4): a row (4 blocks of 1, stride 5) and
! columns 1 and 3 (2 blocks of 5, stride 10); the row received into a
! column of B and the columns into columns 2 and 4 of B.
      SUBROUTINE TVECT(ME, RIGHT, LEFT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, RIGHT, LEFT
      INTEGER IERR, I, J, ROW, COLS, N, A(5, 4), B(5, 4)
      INTEGER STATUS(MPI_STATUS_SIZE)
      CALL MPI_TYPE_VECTOR(4, 1, 5, MPI_INTEGER, ROW, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_VECTOR row')
      CALL MPI_TYPE_COMMIT(ROW, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_COMMIT')
      CALL BOUNDS(ROW, 16, 64, 0, 64, 'vector row')
      CALL MPI_TYPE_VECTOR(2, 5, 10, MPI_INTEGER, COLS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_VECTOR columns')
      CALL MPI_TYPE_COMMIT(COLS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_COMMIT')
      CALL BOUNDS(COLS, 40, 60, 0, 60, 'vector columns')
      DO J = 1, 4
         DO I = 1, 5
            A(I, J) = 1000 * ME + 10 * I + J
            B(I, J) = -1
         END DO
      END DO
!     Row 3 of A into column 1 of B (rows 1..4).
      CALL MPI_SENDRECV(A(3, 1), 1, ROW, RIGHT, 3, B(1, 1), 4,
     &     MPI_INTEGER, LEFT, 3, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_SENDRECV row')
      DO J = 1, 4
         CALL CHECK(B(J, 1) .EQ. 1000 * LEFT + 30 + J, 'datatypes',
     &        'vector row: data')
      END DO
      CALL CHECK(B(5, 1) .EQ. -1, 'datatypes',
     &     'vector row: wrote beyond the message')
!     Columns 1 and 3 of A into columns 2 and 4 of B.
      CALL MPI_SENDRECV(A, 1, COLS, RIGHT, 4, B(1, 2), 1, COLS, LEFT,
     &     4, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_SENDRECV columns')
      DO I = 1, 5
         CALL CHECK(B(I, 2) .EQ. 1000 * LEFT + 10 * I + 1 .AND.
     &        B(I, 4) .EQ. 1000 * LEFT + 10 * I + 3, 'datatypes',
     &        'vector columns: data')
         CALL CHECK(B(I, 3) .EQ. -1, 'datatypes',
     &        'vector columns: the gap was written')
      END DO
      CALL MPI_GET_ELEMENTS(STATUS, COLS, N, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_GET_ELEMENTS')
      CALL CHECK(N .EQ. 10, 'datatypes',
     &     'vector columns: MPI_GET_ELEMENTS not 10')
      CALL MPI_TYPE_FREE(ROW, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_FREE')
      CALL MPI_TYPE_FREE(COLS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_FREE')
      END

! MPI_TYPE_HVECTOR with a byte stride: rows 1..2 of each column of a
! DOUBLE PRECISION D(6,3) (3 blocks of 2, stride 48 bytes).
      SUBROUTINE THVEC(ME, RIGHT, LEFT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, RIGHT, LEFT
      INTEGER IERR, I, J, HV, STRIDE, EXT
      DOUBLE PRECISION D(6, 3), R(6)
      INTEGER STATUS(MPI_STATUS_SIZE)
      CALL MPI_TYPE_EXTENT(MPI_DOUBLE_PRECISION, EXT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_EXTENT')
      STRIDE = 6 * EXT
      CALL MPI_TYPE_HVECTOR(3, 2, STRIDE, MPI_DOUBLE_PRECISION, HV,
     &     IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_HVECTOR')
      CALL MPI_TYPE_COMMIT(HV, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_COMMIT')
      CALL BOUNDS(HV, 48, 2 * 48 + 16, 0, 2 * 48 + 16, 'hvector')
      DO J = 1, 3
         DO I = 1, 6
            D(I, J) = ME * 100.0D0 + I + J / 4.0D0
         END DO
      END DO
      DO I = 1, 6
         R(I) = -1.0D0
      END DO
      CALL MPI_SENDRECV(D, 1, HV, RIGHT, 5, R, 6,
     &     MPI_DOUBLE_PRECISION, LEFT, 5, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_SENDRECV hvector')
      DO J = 1, 3
         DO I = 1, 2
            CALL CHECK(R(2 * (J - 1) + I) .EQ.
     &           LEFT * 100.0D0 + I + J / 4.0D0, 'datatypes',
     &           'hvector: data')
         END DO
      END DO
      CALL MPI_TYPE_FREE(HV, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_FREE')
      END

! MPI_TYPE_INDEXED (blocks 2,1,3 at element 5,0,9: the type map keeps
! that order) and MPI_TYPE_HINDEXED (REALs at bytes 16 and 0).
      SUBROUTINE TINDEX(ME, RIGHT, LEFT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, RIGHT, LEFT
      INTEGER IERR, I, IT, HT, S(12), R(12), EXPECT(6)
      INTEGER BLENS(3), DISPS(3), HBLENS(2), HDISPS(2)
      REAL RS(6), RR(6)
      INTEGER STATUS(MPI_STATUS_SIZE)
      DATA BLENS /2, 1, 3/, DISPS /5, 0, 9/
      DATA HBLENS /1, 2/, HDISPS /16, 0/
      DATA EXPECT /6, 7, 1, 10, 11, 12/
      CALL MPI_TYPE_INDEXED(3, BLENS, DISPS, MPI_INTEGER, IT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_INDEXED')
      CALL MPI_TYPE_COMMIT(IT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_COMMIT')
      CALL BOUNDS(IT, 24, 48, 0, 48, 'indexed')
      DO I = 1, 12
         S(I) = 100 * ME + I
         R(I) = -1
      END DO
      CALL MPI_SENDRECV(S, 1, IT, RIGHT, 6, R, 12, MPI_INTEGER, LEFT,
     &     6, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_SENDRECV indexed')
      DO I = 1, 6
         CALL CHECK(R(I) .EQ. 100 * LEFT + EXPECT(I), 'datatypes',
     &        'indexed: data or order')
      END DO
      CALL CHECK(R(7) .EQ. -1, 'datatypes',
     &     'indexed: wrote beyond the message')
!     Received with the indexed type: only its elements change.
      DO I = 1, 12
         R(I) = -1
      END DO
      CALL MPI_SENDRECV(S, 1, IT, RIGHT, 7, R, 1, IT, LEFT, 7,
     &     MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_SENDRECV indexed both')
      DO I = 1, 12
         IF (I .EQ. 1 .OR. (I .GE. 6 .AND. I .LE. 7) .OR. I .GE. 10)
     &        THEN
            CALL CHECK(R(I) .EQ. 100 * LEFT + I, 'datatypes',
     &           'indexed into indexed: data')
         ELSE
            CALL CHECK(R(I) .EQ. -1, 'datatypes',
     &           'indexed into indexed: a gap written')
         END IF
      END DO
      CALL MPI_TYPE_FREE(IT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_FREE')
      CALL MPI_TYPE_HINDEXED(2, HBLENS, HDISPS, MPI_REAL, HT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_HINDEXED')
      CALL MPI_TYPE_COMMIT(HT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_COMMIT')
      CALL BOUNDS(HT, 12, 20, 0, 20, 'hindexed')
      DO I = 1, 6
         RS(I) = ME + I * 0.5
         RR(I) = -1.0
      END DO
      CALL MPI_SENDRECV(RS, 1, HT, RIGHT, 8, RR, 3, MPI_REAL, LEFT, 8,
     &     MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_SENDRECV hindexed')
      CALL CHECK(RR(1) .EQ. LEFT + 2.5 .AND. RR(2) .EQ. LEFT + 0.5
     &     .AND. RR(3) .EQ. LEFT + 1.0, 'datatypes', 'hindexed: data')
      CALL MPI_TYPE_FREE(HT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_FREE')
      END

! MPI_TYPE_STRUCT with markers: MPI_LB at byte -4, 2 INTEGERs at byte 4,
! MPI_UB at byte 20: lb -4, ub 20, extent 24, size 8. Three of them
! from S(1) take S(2..3), S(8..9), S(14..15).
      SUBROUTINE TSTRUC(ME, RIGHT, LEFT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, RIGHT, LEFT
      INTEGER IERR, I, K, ST, S(18), R(18)
      INTEGER BLENS(3), DISPS(3), TYPES(3)
      INTEGER(KIND=MPI_ADDRESS_KIND) LB, EXTENT
      INTEGER STATUS(MPI_STATUS_SIZE)
      DATA BLENS /1, 2, 1/, DISPS /-4, 4, 20/
      TYPES(1) = MPI_LB
      TYPES(2) = MPI_INTEGER
      TYPES(3) = MPI_UB
      CALL MPI_TYPE_STRUCT(3, BLENS, DISPS, TYPES, ST, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_STRUCT')
      CALL MPI_TYPE_COMMIT(ST, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_COMMIT')
      CALL BOUNDS(ST, 8, 24, -4, 20, 'struct with MPI_LB/MPI_UB')
      CALL MPI_TYPE_GET_EXTENT(ST, LB, EXTENT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_GET_EXTENT')
      CALL CHECK(LB .EQ. -4 .AND. EXTENT .EQ. 24, 'datatypes',
     &     'struct: MPI_TYPE_GET_EXTENT')
      CALL MPI_TYPE_GET_TRUE_EXTENT(ST, LB, EXTENT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_GET_TRUE_EXTENT')
      CALL CHECK(LB .EQ. 4 .AND. EXTENT .EQ. 8, 'datatypes',
     &     'struct: MPI_TYPE_GET_TRUE_EXTENT')
      DO I = 1, 18
         S(I) = 100 * ME + I
         R(I) = -1
      END DO
      CALL MPI_SENDRECV(S, 3, ST, RIGHT, 9, R, 6, MPI_INTEGER, LEFT, 9,
     &     MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_SENDRECV struct')
      DO K = 0, 2
         CALL CHECK(R(2 * K + 1) .EQ. 100 * LEFT + 6 * K + 2 .AND.
     &        R(2 * K + 2) .EQ. 100 * LEFT + 6 * K + 3, 'datatypes',
     &        'struct with MPI_LB/MPI_UB: data')
      END DO
      CALL MPI_TYPE_FREE(ST, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_FREE')
      END

! MPI_PACK of 3 INTEGERs, 2 DOUBLE PRECISION, a CHARACTER*4 and a row of
! a 2-D array; MPI_UNPACK gives them back. Packed INTEGERs and DOUBLE
! PRECISION sent as MPI_PACKED are received with a struct type, and the
! struct sent typed is received as MPI_PACKED and unpacked.
      SUBROUTINE TPACK(ME, RIGHT, LEFT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, RIGHT, LEFT
      INTEGER IERR, I, POS, POS2, SZ, SZ1, TOTAL, ROW, ST, N
      INTEGER IV(3), IV2(3), A(3, 2), A2(2)
      DOUBLE PRECISION DV(2), DV2(2)
      CHARACTER*4 CV, CV2
      CHARACTER*200 PBUF, PBUF2
      INTEGER IR(3)
      DOUBLE PRECISION DR(2)
      COMMON /RECVD/ DR, IR
      INTEGER BLENS(2), DISPS(2), TYPES(2)
      INTEGER(KIND=MPI_ADDRESS_KIND) A1, A0
      INTEGER STATUS(MPI_STATUS_SIZE)
      DATA BLENS /3, 2/
      IV(1) = ME
      IV(2) = -ME - 1
      IV(3) = 77
      DV(1) = ME / 3.0D0
      DV(2) = -1.0D10
      CV = 'pk' // CHAR(ICHAR('a') + ME) // '.'
      DO I = 1, 3
         A(I, 1) = 10 * I + 1
         A(I, 2) = 10 * I + 2
      END DO
      CALL MPI_TYPE_VECTOR(2, 1, 3, MPI_INTEGER, ROW, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_VECTOR')
      CALL MPI_TYPE_COMMIT(ROW, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_COMMIT')
!     MPI_PACK_SIZE gives upper bounds; the packed size is their sum
!     at most.
      TOTAL = 0
      CALL MPI_PACK_SIZE(3, MPI_INTEGER, MPI_COMM_WORLD, SZ, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_PACK_SIZE')
      CALL CHECK(SZ .GE. 12, 'datatypes', 'MPI_PACK_SIZE INTEGER')
      TOTAL = TOTAL + SZ
      SZ1 = SZ
      CALL MPI_PACK_SIZE(2, MPI_DOUBLE_PRECISION, MPI_COMM_WORLD, SZ,
     &     IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_PACK_SIZE')
      CALL CHECK(SZ .GE. 16, 'datatypes', 'MPI_PACK_SIZE DOUBLE')
      TOTAL = TOTAL + SZ
      SZ1 = SZ1 + SZ
      CALL MPI_PACK_SIZE(4, MPI_CHARACTER, MPI_COMM_WORLD, SZ, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_PACK_SIZE')
      CALL CHECK(SZ .GE. 4, 'datatypes', 'MPI_PACK_SIZE CHARACTER')
      TOTAL = TOTAL + SZ
      CALL MPI_PACK_SIZE(1, ROW, MPI_COMM_WORLD, SZ, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_PACK_SIZE')
      CALL CHECK(SZ .GE. 8, 'datatypes', 'MPI_PACK_SIZE vector')
      TOTAL = TOTAL + SZ
      CALL CHECK(TOTAL .LE. 200, 'datatypes', 'pack buffer too small')
      POS = 0
      CALL MPI_PACK(IV, 3, MPI_INTEGER, PBUF, 200, POS,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_PACK INTEGER')
      CALL MPI_PACK(DV, 2, MPI_DOUBLE_PRECISION, PBUF, 200, POS,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_PACK DOUBLE')
      POS2 = POS
      CALL CHECK(POS .GE. 28 .AND. POS .LE. SZ1, 'datatypes',
     &     'MPI_PACK position after INTEGERs and DOUBLEs')
      CALL MPI_PACK(CV, 4, MPI_CHARACTER, PBUF, 200, POS,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_PACK CHARACTER')
      CALL MPI_PACK(A(1, 1), 1, ROW, PBUF, 200, POS, MPI_COMM_WORLD,
     &     IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_PACK vector')
      CALL CHECK(POS .GE. 40 .AND. POS .LE. TOTAL, 'datatypes',
     &     'MPI_PACK final position')
!     Round trip.
      SZ = POS
      POS = 0
      CALL MPI_UNPACK(PBUF, SZ, POS, IV2, 3, MPI_INTEGER,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_UNPACK INTEGER')
      CALL MPI_UNPACK(PBUF, SZ, POS, DV2, 2, MPI_DOUBLE_PRECISION,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_UNPACK DOUBLE')
      CALL MPI_UNPACK(PBUF, SZ, POS, CV2, 4, MPI_CHARACTER,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_UNPACK CHARACTER')
      CALL MPI_UNPACK(PBUF, SZ, POS, A2, 2, MPI_INTEGER,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_UNPACK vector')
      CALL CHECK(POS .EQ. SZ, 'datatypes',
     &     'MPI_UNPACK did not end where MPI_PACK did')
      DO I = 1, 3
         CALL CHECK(IV2(I) .EQ. IV(I), 'datatypes',
     &        'pack round trip: INTEGER')
      END DO
      CALL CHECK(DV2(1) .EQ. DV(1) .AND. DV2(2) .EQ. DV(2),
     &     'datatypes', 'pack round trip: DOUBLE PRECISION')
      CALL CHECK(CV2 .EQ. CV, 'datatypes',
     &     'pack round trip: CHARACTER')
      CALL CHECK(A2(1) .EQ. 11 .AND. A2(2) .EQ. 12, 'datatypes',
     &     'pack round trip: vector row')
!     The first POS2 bytes (3 INTEGERs, 2 DOUBLEs) sent as MPI_PACKED,
!     received with a struct over /RECVD/ (relative displacements).
      CALL MPI_GET_ADDRESS(IR, A1, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_GET_ADDRESS')
      CALL MPI_GET_ADDRESS(DR, A0, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_GET_ADDRESS')
      DISPS(1) = INT(A1 - A0)
      CALL CHECK(DISPS(1) .EQ. 16, 'datatypes',
     &     'MPI_GET_ADDRESS: IR not 16 bytes after DR')
      DISPS(2) = 0
      TYPES(1) = MPI_INTEGER
      TYPES(2) = MPI_DOUBLE_PRECISION
      CALL MPI_TYPE_STRUCT(2, BLENS, DISPS, TYPES, ST, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_STRUCT')
      CALL MPI_TYPE_COMMIT(ST, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_COMMIT')
      DO I = 1, 3
         IR(I) = -1
      END DO
      DR(1) = -1.0D0
      DR(2) = -1.0D0
      CALL MPI_SENDRECV(PBUF, POS2, MPI_PACKED, RIGHT, 10, DR, 1, ST,
     &     LEFT, 10, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_SENDRECV packed to typed')
      CALL CHECK(IR(1) .EQ. LEFT .AND. IR(2) .EQ. -LEFT - 1 .AND.
     &     IR(3) .EQ. 77, 'datatypes', 'packed to typed: INTEGERs')
      CALL CHECK(DR(1) .EQ. LEFT / 3.0D0 .AND. DR(2) .EQ. -1.0D10,
     &     'datatypes', 'packed to typed: DOUBLE PRECISION')
      CALL MPI_GET_ELEMENTS(STATUS, ST, N, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_GET_ELEMENTS')
      CALL CHECK(N .EQ. 5, 'datatypes',
     &     'packed to typed: MPI_GET_ELEMENTS not 5')
!     Typed (the struct over /RECVD/, now the left neighbour's values)
!     to MPI_PACKED, then unpacked.
      CALL MPI_SENDRECV(DR, 1, ST, RIGHT, 11, PBUF2, 200, MPI_PACKED,
     &     LEFT, 11, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_SENDRECV typed to packed')
      CALL MPI_GET_COUNT(STATUS, MPI_PACKED, SZ, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_GET_COUNT MPI_PACKED')
      CALL CHECK(SZ .GE. 28, 'datatypes',
     &     'typed to packed: MPI_GET_COUNT in bytes')
      POS = 0
      CALL MPI_UNPACK(PBUF2, SZ, POS, IV2, 3, MPI_INTEGER,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_UNPACK INTEGER 2')
      CALL MPI_UNPACK(PBUF2, SZ, POS, DV2, 2, MPI_DOUBLE_PRECISION,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_UNPACK DOUBLE 2')
!     They are the values of the rank two to the left.
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, N, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_COMM_SIZE')
      N = MOD(LEFT + N - 1, N)
      CALL CHECK(IV2(1) .EQ. N .AND. IV2(2) .EQ. -N - 1 .AND.
     &     IV2(3) .EQ. 77, 'datatypes', 'typed to packed: INTEGERs')
      CALL CHECK(DV2(1) .EQ. N / 3.0D0 .AND. DV2(2) .EQ. -1.0D10,
     &     'datatypes', 'typed to packed: DOUBLE PRECISION')
      CALL MPI_TYPE_FREE(ST, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_FREE')
      CALL MPI_TYPE_FREE(ROW, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_FREE')
      END

! MPI-2: MPI_TYPE_CREATE_RESIZED (an INTEGER with extent 12 picks every
! third), MPI_TYPE_GET_EXTENT and MPI_TYPE_GET_TRUE_EXTENT, and
! MPI_TYPE_CREATE_INDEXED_BLOCK.
      SUBROUTINE TMPI2(ME, RIGHT, LEFT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, RIGHT, LEFT
      INTEGER IERR, I, RT, IBT, S(12), R(12), DISPS(3), EXPECT(6)
      INTEGER(KIND=MPI_ADDRESS_KIND) LB, EXTENT, NEWLB, NEWEXT
      INTEGER STATUS(MPI_STATUS_SIZE)
      DATA DISPS /0, 4, 7/
      DATA EXPECT /1, 2, 5, 6, 8, 9/
      NEWLB = 0
      NEWEXT = 12
      CALL MPI_TYPE_CREATE_RESIZED(MPI_INTEGER, NEWLB, NEWEXT, RT,
     &     IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_CREATE_RESIZED')
      CALL MPI_TYPE_COMMIT(RT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_COMMIT')
      CALL MPI_TYPE_GET_EXTENT(RT, LB, EXTENT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_GET_EXTENT')
      CALL CHECK(LB .EQ. 0 .AND. EXTENT .EQ. 12, 'datatypes',
     &     'resized: MPI_TYPE_GET_EXTENT')
      CALL MPI_TYPE_GET_TRUE_EXTENT(RT, LB, EXTENT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_GET_TRUE_EXTENT')
      CALL CHECK(LB .EQ. 0 .AND. EXTENT .EQ. 4, 'datatypes',
     &     'resized: MPI_TYPE_GET_TRUE_EXTENT')
      CALL MPI_TYPE_GET_EXTENT(MPI_DOUBLE_COMPLEX, LB, EXTENT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_GET_EXTENT')
      CALL CHECK(LB .EQ. 0 .AND. EXTENT .EQ. 16, 'datatypes',
     &     'MPI_DOUBLE_COMPLEX: MPI_TYPE_GET_EXTENT')
      DO I = 1, 12
         S(I) = 100 * ME + I
         R(I) = -1
      END DO
      CALL MPI_SENDRECV(S, 4, RT, RIGHT, 12, R, 4, MPI_INTEGER, LEFT,
     &     12, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_SENDRECV resized')
      DO I = 1, 4
         CALL CHECK(R(I) .EQ. 100 * LEFT + 3 * I - 2, 'datatypes',
     &        'resized: data')
      END DO
      CALL MPI_TYPE_FREE(RT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_FREE')
      CALL MPI_TYPE_CREATE_INDEXED_BLOCK(3, 2, DISPS, MPI_INTEGER,
     &     IBT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_CREATE_INDEXED_BLOCK')
      CALL MPI_TYPE_COMMIT(IBT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_COMMIT')
      CALL BOUNDS(IBT, 24, 36, 0, 36, 'indexed_block')
      DO I = 1, 12
         R(I) = -1
      END DO
      CALL MPI_SENDRECV(S, 1, IBT, RIGHT, 13, R, 6, MPI_INTEGER, LEFT,
     &     13, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_SENDRECV indexed_block')
      DO I = 1, 6
         CALL CHECK(R(I) .EQ. 100 * LEFT + EXPECT(I), 'datatypes',
     &        'indexed_block: data')
      END DO
      CALL MPI_TYPE_FREE(IBT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_FREE')
      END

! MPI_TYPE_SET_NAME and MPI_TYPE_GET_NAME: trailing blanks of the name
! given are not part of it, leading ones are; the name comes back
! blank-padded with RESULTLEN its length; a substring passes its own
! length; a type never named has an empty name; MPI_INTEGER's name is
! 'MPI_INTEGER'.
      SUBROUTINE TNAMES
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, T, LEN
      CHARACTER*(MPI_MAX_OBJECT_NAME) NAME
      CHARACTER*20 SHORT
      CHARACTER*30 SRC
      CALL MPI_TYPE_CONTIGUOUS(2, MPI_REAL, T, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_CONTIGUOUS')
      NAME = 'garbage'
      LEN = -1
      CALL MPI_TYPE_GET_NAME(T, NAME, LEN, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_GET_NAME unnamed')
      CALL CHECK(LEN .EQ. 0, 'datatypes',
     &     'MPI_TYPE_GET_NAME of an unnamed type: RESULTLEN not 0')
      CALL CHECK(NAME .EQ. ' ', 'datatypes',
     &     'MPI_TYPE_GET_NAME of an unnamed type: not all blanks')
      CALL MPI_TYPE_SET_NAME(T, 'pair of reals     ', IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_SET_NAME')
      NAME = 'x'
      CALL MPI_TYPE_GET_NAME(T, NAME, LEN, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_GET_NAME')
      CALL CHECK(LEN .EQ. 13, 'datatypes',
     &     'MPI_TYPE_GET_NAME: RESULTLEN not 13 (trailing blanks)')
      CALL CHECK(NAME .EQ. 'pair of reals', 'datatypes',
     &     'MPI_TYPE_GET_NAME: name')
      CALL CHECK(NAME(14:) .EQ. ' ', 'datatypes',
     &     'MPI_TYPE_GET_NAME: not blank after RESULTLEN')
!     Into a CHARACTER*20 filled with X: blanks after the name.
      SHORT = 'XXXXXXXXXXXXXXXXXXXX'
      CALL MPI_TYPE_GET_NAME(T, SHORT, LEN, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_GET_NAME short')
      CALL CHECK(LEN .EQ. 13, 'datatypes',
     &     'MPI_TYPE_GET_NAME CHARACTER*20: RESULTLEN')
      CALL CHECK(SHORT(1:13) .EQ. 'pair of reals' .AND.
     &     SHORT(14:20) .EQ. '       ', 'datatypes',
     &     'MPI_TYPE_GET_NAME CHARACTER*20: not blank-padded')
!     Leading blanks are kept.
      CALL MPI_TYPE_SET_NAME(T, '  lead', IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_SET_NAME lead')
      CALL MPI_TYPE_GET_NAME(T, NAME, LEN, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_GET_NAME lead')
      CALL CHECK(LEN .EQ. 6 .AND. NAME .EQ. '  lead', 'datatypes',
     &     'MPI_TYPE_SET_NAME: leading blanks not kept')
!     A substring: only its characters are the name.
      SRC = 'abcdefghij'
      CALL MPI_TYPE_SET_NAME(T, SRC(3:7), IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_SET_NAME substring')
      CALL MPI_TYPE_GET_NAME(T, NAME, LEN, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_GET_NAME substring')
      CALL CHECK(LEN .EQ. 5 .AND. NAME .EQ. 'cdefg', 'datatypes',
     &     'MPI_TYPE_SET_NAME of a substring')
!     A whole variable with trailing blanks.
      CALL MPI_TYPE_SET_NAME(T, SRC, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_SET_NAME variable')
      CALL MPI_TYPE_GET_NAME(T, NAME, LEN, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_GET_NAME variable')
      CALL CHECK(LEN .EQ. 10 .AND. NAME .EQ. 'abcdefghij',
     &     'datatypes', 'MPI_TYPE_SET_NAME of a padded variable')
      CALL MPI_TYPE_FREE(T, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_FREE')
      NAME = 'x'
      CALL MPI_TYPE_GET_NAME(MPI_INTEGER, NAME, LEN, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_GET_NAME MPI_INTEGER')
      CALL CHECK(LEN .EQ. 11, 'datatypes',
     &     'MPI_TYPE_GET_NAME of MPI_INTEGER: RESULTLEN not 11')
      CALL CHECK(NAME .EQ. 'MPI_INTEGER', 'datatypes',
     &     'MPI_TYPE_GET_NAME of MPI_INTEGER: not MPI_INTEGER')
      NAME = 'x'
      CALL MPI_TYPE_GET_NAME(MPI_DOUBLE_PRECISION, NAME, LEN, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_GET_NAME MPI_DOUBLE')
      CALL CHECK(NAME .EQ. 'MPI_DOUBLE_PRECISION' .AND. LEN .EQ. 20,
     &     'datatypes', 'MPI_TYPE_GET_NAME of MPI_DOUBLE_PRECISION')
      END

! An extent beyond a default INTEGER (Strata: MPI-1 routines that
! return an address or extent in a default INTEGER give MPI_ERR_ARG
! rather than a cut value): MPI_BYTE resized to an extent of 3 GiB;
! MPI_TYPE_EXTENT and MPI_TYPE_UB fail with class MPI_ERR_ARG under
! MPI_ERRORS_RETURN, MPI_TYPE_LB and MPI_TYPE_SIZE (which fit) work,
! and MPI_TYPE_GET_EXTENT gives the whole value.
      SUBROUTINE TBIG
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, RC, BT, V, CLASS
      INTEGER(KIND=MPI_ADDRESS_KIND) NEWLB, NEWEXT, LB, EXTENT
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_ERRHANDLER_SET')
      NEWLB = 0
      NEWEXT = 3_MPI_ADDRESS_KIND * 1073741824_MPI_ADDRESS_KIND
      CALL MPI_TYPE_CREATE_RESIZED(MPI_BYTE, NEWLB, NEWEXT, BT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_CREATE_RESIZED 3 GiB')
      CALL MPI_TYPE_GET_EXTENT(BT, LB, EXTENT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_GET_EXTENT 3 GiB')
      CALL CHECK(LB .EQ. 0 .AND. EXTENT .EQ. NEWEXT, 'datatypes',
     &     'MPI_TYPE_GET_EXTENT of an extent of 3 GiB')
      CALL MPI_TYPE_EXTENT(BT, V, RC)
      CALL CHECK(RC .NE. MPI_SUCCESS, 'datatypes',
     &     'MPI_TYPE_EXTENT of 3 GiB returned MPI_SUCCESS')
      CALL MPI_ERROR_CLASS(RC, CLASS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_ERROR_CLASS')
      CALL CHECK(CLASS .EQ. MPI_ERR_ARG, 'datatypes',
     &     'MPI_TYPE_EXTENT of 3 GiB: class not MPI_ERR_ARG')
      CALL MPI_TYPE_UB(BT, V, RC)
      CALL CHECK(RC .NE. MPI_SUCCESS, 'datatypes',
     &     'MPI_TYPE_UB of 3 GiB returned MPI_SUCCESS')
      CALL MPI_ERROR_CLASS(RC, CLASS, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_ERROR_CLASS')
      CALL CHECK(CLASS .EQ. MPI_ERR_ARG, 'datatypes',
     &     'MPI_TYPE_UB of 3 GiB: class not MPI_ERR_ARG')
      V = -1
      CALL MPI_TYPE_LB(BT, V, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_LB 3 GiB')
      CALL CHECK(V .EQ. 0, 'datatypes', 'MPI_TYPE_LB of 3 GiB not 0')
      CALL MPI_TYPE_SIZE(BT, V, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_SIZE 3 GiB')
      CALL CHECK(V .EQ. 1, 'datatypes', 'MPI_TYPE_SIZE of 3 GiB not 1')
      CALL MPI_TYPE_FREE(BT, IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_TYPE_FREE')
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL,
     &     IERR)
      CALL CHECKRC(IERR, 'datatypes', 'MPI_ERRHANDLER_SET fatal')
      END
