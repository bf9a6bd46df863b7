! bottom.f: MPI_BOTTOM and addresses through the Fortran 77 bindings.
! Struct datatypes over variables of five types in COMMON blocks, built
! from absolute addresses (MPI_ADDRESS with MPI_TYPE_STRUCT, and
! MPI_GET_ADDRESS with MPI_TYPE_CREATE_STRUCT) and used with buffer
! MPI_BOTTOM; the same displacements made relative (address differences)
! with an ordinary buffer; MPI_TYPE_HINDEXED and
! MPI_TYPE_CREATE_HINDEXED at MPI_BOTTOM, SAVEd variables at MPI_BOTTOM,
! and MPI_PACK/MPI_UNPACK at MPI_BOTTOM. Every rank sends its send block
! to the next rank around the ring. Runs on 1 to 4 processes.
!
! Strata counts MPI_ADDRESS and MPI_GET_ADDRESS from the program's
! MPI_BOTTOM, so both give the same values, and MPI_ADDRESS of a
! variable in a COMMON block or SAVEd fits a default INTEGER.
      PROGRAM BOTTOM
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, ME, NP
      CALL MPI_INIT(IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_INIT')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_COMM_RANK')
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_COMM_SIZE')
      CALL TADDR
      CALL TSTRUC(ME, NP)
      CALL TCREAT(ME, NP)
      CALL TRELAT(ME, NP)
      CALL THIDX(ME, NP)
      CALL TSAVED(ME, NP)
      CALL TPACK(ME)
      CALL MPI_FINALIZE(IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_FINALIZE')
      END

! The send block (filled with values that depend on the rank) and the
! receive block, of the same layout; characters cannot share a COMMON
! block with numbers, so they have their own.
      SUBROUTINE FILL(ME)
      IMPLICIT NONE
      INTEGER ME
      DOUBLE PRECISION DS(2), DR(2)
      INTEGER IS(3), IR(3)
      REAL RS(2), RR(2)
      LOGICAL LS, LR
      CHARACTER*5 CS, CR
      COMMON /SBLK/ DS, IS, RS, LS
      COMMON /RBLK/ DR, IR, RR, LR
      COMMON /SCHR/ CS
      COMMON /RCHR/ CR
      DS(1) = 0.5D0 + ME
      DS(2) = -1.0D0 / (ME + 3)
      IS(1) = 100 * ME + 1
      IS(2) = 100 * ME + 2
      IS(3) = -(100 * ME + 3)
      RS(1) = 2.5 * ME
      RS(2) = -0.75
      LS = MOD(ME, 2) .EQ. 0
      CS = 'rk' // CHAR(ICHAR('0') + ME) // '!?'
      DR(1) = -9.0D0
      DR(2) = -9.0D0
      IR(1) = -9
      IR(2) = -9
      IR(3) = -9
      RR(1) = -9.0
      RR(2) = -9.0
      LR = MOD(ME, 2) .NE. 0
      CR = '#####'
      END

! The receive block must hold what FILL put in the send block of rank
! FROM.
      SUBROUTINE VERIFY(FROM, WHAT)
      IMPLICIT NONE
      INTEGER FROM
      CHARACTER*(*) WHAT
      DOUBLE PRECISION DR(2)
      INTEGER IR(3)
      REAL RR(2)
      LOGICAL LR
      CHARACTER*5 CR
      COMMON /RBLK/ DR, IR, RR, LR
      COMMON /RCHR/ CR
      CALL CHECK(DR(1) .EQ. 0.5D0 + FROM .AND.
     &     DR(2) .EQ. -1.0D0 / (FROM + 3), 'bottom',
     &     WHAT // ': DOUBLE PRECISION part')
      CALL CHECK(IR(1) .EQ. 100 * FROM + 1 .AND.
     &     IR(2) .EQ. 100 * FROM + 2 .AND.
     &     IR(3) .EQ. -(100 * FROM + 3), 'bottom',
     &     WHAT // ': INTEGER part')
      CALL CHECK(RR(1) .EQ. 2.5 * FROM .AND. RR(2) .EQ. -0.75,
     &     'bottom', WHAT // ': REAL part')
      CALL CHECK(LR .EQV. (MOD(FROM, 2) .EQ. 0), 'bottom',
     &     WHAT // ': LOGICAL part')
      CALL CHECK(CR .EQ. 'rk' // CHAR(ICHAR('0') + FROM) // '!?',
     &     'bottom', WHAT // ': CHARACTER part')
      END

! MPI_ADDRESS and MPI_GET_ADDRESS: MPI_BOTTOM is at 0, addresses in a
! COMMON block follow its storage sequence, and (Strata) both routines
! give the same value.
      SUBROUTINE TADDR
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      DOUBLE PRECISION DS(2)
      INTEGER IS(3)
      REAL RS(2)
      LOGICAL LS
      COMMON /SBLK/ DS, IS, RS, LS
      INTEGER IERR, A0, A1, A2, A3, A4
      INTEGER(KIND=MPI_ADDRESS_KIND) B0, B1, B2, B3, B4
      CALL MPI_ADDRESS(MPI_BOTTOM, A0, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS(MPI_BOTTOM)')
      CALL CHECK(A0 .EQ. 0, 'bottom', 'MPI_ADDRESS(MPI_BOTTOM) not 0')
      CALL MPI_GET_ADDRESS(MPI_BOTTOM, B0, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS(MPI_BOTTOM)')
      CALL CHECK(B0 .EQ. 0, 'bottom',
     &     'MPI_GET_ADDRESS(MPI_BOTTOM) not 0')
      CALL MPI_ADDRESS(DS, A1, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS(DS)')
      CALL MPI_ADDRESS(IS(1), A2, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS(IS(1))')
      CALL MPI_ADDRESS(IS(3), A3, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS(IS(3))')
      CALL MPI_ADDRESS(LS, A4, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS(LS)')
      CALL CHECK(A2 - A1 .EQ. 16 .AND. A3 - A2 .EQ. 8 .AND.
     &     A4 - A1 .EQ. 36, 'bottom',
     &     'MPI_ADDRESS differences do not follow the COMMON block')
      CALL MPI_GET_ADDRESS(DS, B1, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS(DS)')
      CALL MPI_GET_ADDRESS(IS(1), B2, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS(IS(1))')
      CALL MPI_GET_ADDRESS(IS(3), B3, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS(IS(3))')
      CALL MPI_GET_ADDRESS(LS, B4, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS(LS)')
      CALL CHECK(B2 - B1 .EQ. 16 .AND. B3 - B2 .EQ. 8 .AND.
     &     B4 - B1 .EQ. 36, 'bottom',
     &     'MPI_GET_ADDRESS differences do not follow the COMMON block')
!     Strata: the two routines count from the same origin.
      CALL CHECK(B1 .EQ. A1 .AND. B4 .EQ. A4, 'bottom',
     &     'MPI_GET_ADDRESS and MPI_ADDRESS differ')
      END

! ADDRS: MPI_ADDRESS of the five send and the five receive variables.
      SUBROUTINE ADDRS(SDISP, RDISP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER SDISP(5), RDISP(5)
      DOUBLE PRECISION DS(2), DR(2)
      INTEGER IS(3), IR(3)
      REAL RS(2), RR(2)
      LOGICAL LS, LR
      CHARACTER*5 CS, CR
      COMMON /SBLK/ DS, IS, RS, LS
      COMMON /RBLK/ DR, IR, RR, LR
      COMMON /SCHR/ CS
      COMMON /RCHR/ CR
      INTEGER IERR
      CALL MPI_ADDRESS(DS, SDISP(1), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS DS')
      CALL MPI_ADDRESS(IS, SDISP(2), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS IS')
      CALL MPI_ADDRESS(RS, SDISP(3), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS RS')
      CALL MPI_ADDRESS(LS, SDISP(4), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS LS')
      CALL MPI_ADDRESS(CS, SDISP(5), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS CS')
      CALL MPI_ADDRESS(DR, RDISP(1), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS DR')
      CALL MPI_ADDRESS(IR, RDISP(2), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS IR')
      CALL MPI_ADDRESS(RR, RDISP(3), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS RR')
      CALL MPI_ADDRESS(LR, RDISP(4), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS LR')
      CALL MPI_ADDRESS(CR, RDISP(5), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS CR')
      END

! Absolute addresses from MPI_ADDRESS in MPI_TYPE_STRUCT; MPI_SENDRECV
! with MPI_BOTTOM for both buffers around the ring; then the same
! datatypes with MPI_ISEND/MPI_IRECV.
      SUBROUTINE TSTRUC(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      DOUBLE PRECISION DS(2), DR(2)
      INTEGER IS(3), IR(3)
      REAL RS(2), RR(2)
      LOGICAL LS, LR
      CHARACTER*5 CS, CR
      COMMON /SBLK/ DS, IS, RS, LS
      COMMON /RBLK/ DR, IR, RR, LR
      COMMON /SCHR/ CS
      COMMON /RCHR/ CR
      INTEGER IERR, RIGHT, LEFT, STYPE, RTYPE, N, REQS(2)
      INTEGER BLENS(5), TYPES(5), SDISP(5), RDISP(5)
      INTEGER STATUS(MPI_STATUS_SIZE)
      DATA BLENS /2, 3, 2, 1, 5/
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME + NP - 1, NP)
      TYPES(1) = MPI_DOUBLE_PRECISION
      TYPES(2) = MPI_INTEGER
      TYPES(3) = MPI_REAL
      TYPES(4) = MPI_LOGICAL
      TYPES(5) = MPI_CHARACTER
      CALL ADDRS(SDISP, RDISP)
      CALL MPI_TYPE_STRUCT(5, BLENS, SDISP, TYPES, STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_STRUCT send')
      CALL MPI_TYPE_COMMIT(STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_COMMIT send')
      CALL MPI_TYPE_STRUCT(5, BLENS, RDISP, TYPES, RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_STRUCT recv')
      CALL MPI_TYPE_COMMIT(RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_COMMIT recv')
      CALL MPI_TYPE_SIZE(STYPE, N, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_SIZE')
      CALL CHECK(N .EQ. 16 + 12 + 8 + 4 + 5, 'bottom',
     &     'MPI_TYPE_SIZE of the struct not 45')
      CALL FILL(ME)
      CALL MPI_SENDRECV(MPI_BOTTOM, 1, STYPE, RIGHT, 1, MPI_BOTTOM, 1,
     &     RTYPE, LEFT, 1, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_SENDRECV MPI_BOTTOM')
      CALL VERIFY(LEFT, 'MPI_TYPE_STRUCT at MPI_BOTTOM')
      CALL MPI_GET_COUNT(STATUS, RTYPE, N, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_COUNT')
      CALL CHECK(N .EQ. 1, 'bottom', 'MPI_GET_COUNT of the struct')
      CALL MPI_GET_ELEMENTS(STATUS, RTYPE, N, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ELEMENTS')
      CALL CHECK(N .EQ. 13, 'bottom',
     &     'MPI_GET_ELEMENTS of the struct not 13')
!     Non-blocking, with the receive posted first.
      CALL FILL(ME + 1)
      CALL MPI_IRECV(MPI_BOTTOM, 1, RTYPE, LEFT, 2, MPI_COMM_WORLD,
     &     REQS(1), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_IRECV MPI_BOTTOM')
      CALL MPI_ISEND(MPI_BOTTOM, 1, STYPE, RIGHT, 2, MPI_COMM_WORLD,
     &     REQS(2), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ISEND MPI_BOTTOM')
      CALL MPI_WAITALL(2, REQS, MPI_STATUSES_IGNORE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_WAITALL MPI_BOTTOM')
      CALL VERIFY(LEFT + 1, 'MPI_ISEND/MPI_IRECV at MPI_BOTTOM')
      CALL MPI_TYPE_FREE(STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_FREE send')
      CALL MPI_TYPE_FREE(RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_FREE recv')
      END

! The same with MPI_GET_ADDRESS and MPI_TYPE_CREATE_STRUCT
! (INTEGER(KIND=MPI_ADDRESS_KIND) displacements).
      SUBROUTINE TCREAT(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      DOUBLE PRECISION DS(2), DR(2)
      INTEGER IS(3), IR(3)
      REAL RS(2), RR(2)
      LOGICAL LS, LR
      CHARACTER*5 CS, CR
      COMMON /SBLK/ DS, IS, RS, LS
      COMMON /RBLK/ DR, IR, RR, LR
      COMMON /SCHR/ CS
      COMMON /RCHR/ CR
      INTEGER IERR, RIGHT, LEFT, STYPE, RTYPE, N
      INTEGER BLENS(5), TYPES(5)
      INTEGER(KIND=MPI_ADDRESS_KIND) SDISP(5), RDISP(5), LB, EXTENT
      INTEGER(KIND=MPI_ADDRESS_KIND) LOW, HIGH
      INTEGER STATUS(MPI_STATUS_SIZE)
      DATA BLENS /2, 3, 2, 1, 5/
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME + NP - 1, NP)
      TYPES(1) = MPI_DOUBLE_PRECISION
      TYPES(2) = MPI_INTEGER
      TYPES(3) = MPI_REAL
      TYPES(4) = MPI_LOGICAL
      TYPES(5) = MPI_CHARACTER
      CALL MPI_GET_ADDRESS(DS, SDISP(1), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS DS')
      CALL MPI_GET_ADDRESS(IS, SDISP(2), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS IS')
      CALL MPI_GET_ADDRESS(RS, SDISP(3), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS RS')
      CALL MPI_GET_ADDRESS(LS, SDISP(4), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS LS')
      CALL MPI_GET_ADDRESS(CS, SDISP(5), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS CS')
      CALL MPI_GET_ADDRESS(DR, RDISP(1), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS DR')
      CALL MPI_GET_ADDRESS(IR, RDISP(2), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS IR')
      CALL MPI_GET_ADDRESS(RR, RDISP(3), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS RR')
      CALL MPI_GET_ADDRESS(LR, RDISP(4), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS LR')
      CALL MPI_GET_ADDRESS(CR, RDISP(5), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS CR')
      CALL MPI_TYPE_CREATE_STRUCT(5, BLENS, SDISP, TYPES, STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_CREATE_STRUCT send')
      CALL MPI_TYPE_COMMIT(STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_COMMIT send')
      CALL MPI_TYPE_CREATE_STRUCT(5, BLENS, RDISP, TYPES, RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_CREATE_STRUCT recv')
      CALL MPI_TYPE_COMMIT(RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_COMMIT recv')
!     The true bounds are those of the lowest and highest variables
!     (CS is in another COMMON block, anywhere relative to /SBLK/).
      CALL MPI_TYPE_GET_TRUE_EXTENT(STYPE, LB, EXTENT, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_GET_TRUE_EXTENT')
      LOW = MIN(SDISP(1), SDISP(5))
      HIGH = MAX(SDISP(4) + 4, SDISP(5) + 5)
      CALL CHECK(LB .EQ. LOW, 'bottom',
     &     'true lower bound of the struct not its lowest address')
      CALL CHECK(EXTENT .EQ. HIGH - LOW, 'bottom',
     &     'true extent of the struct not its span')
      CALL FILL(ME + 2)
      CALL MPI_SENDRECV(MPI_BOTTOM, 1, STYPE, RIGHT, 3, MPI_BOTTOM, 1,
     &     RTYPE, LEFT, 3, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_SENDRECV create_struct')
      CALL VERIFY(LEFT + 2, 'MPI_TYPE_CREATE_STRUCT at MPI_BOTTOM')
      CALL MPI_GET_ELEMENTS(STATUS, RTYPE, N, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ELEMENTS create')
      CALL CHECK(N .EQ. 13, 'bottom',
     &     'MPI_GET_ELEMENTS of the struct not 13')
      CALL MPI_TYPE_FREE(STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_FREE send')
      CALL MPI_TYPE_FREE(RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_FREE recv')
      END

! Relative displacements (differences of MPI_ADDRESS values, and of
! MPI_GET_ADDRESS values) with the first variable as the buffer.
      SUBROUTINE TRELAT(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      DOUBLE PRECISION DS(2), DR(2)
      INTEGER IS(3), IR(3)
      REAL RS(2), RR(2)
      LOGICAL LS, LR
      CHARACTER*5 CS, CR
      COMMON /SBLK/ DS, IS, RS, LS
      COMMON /RBLK/ DR, IR, RR, LR
      COMMON /SCHR/ CS
      COMMON /RCHR/ CR
      INTEGER IERR, I, RIGHT, LEFT, STYPE, RTYPE
      INTEGER BLENS(5), TYPES(5), SDISP(5), RDISP(5)
      INTEGER(KIND=MPI_ADDRESS_KIND) SD8(5), RD8(5), BASE
      INTEGER STATUS(MPI_STATUS_SIZE)
      DATA BLENS /2, 3, 2, 1, 5/
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME + NP - 1, NP)
      TYPES(1) = MPI_DOUBLE_PRECISION
      TYPES(2) = MPI_INTEGER
      TYPES(3) = MPI_REAL
      TYPES(4) = MPI_LOGICAL
      TYPES(5) = MPI_CHARACTER
      CALL ADDRS(SDISP, RDISP)
      DO I = 5, 1, -1
         SDISP(I) = SDISP(I) - SDISP(1)
         RDISP(I) = RDISP(I) - RDISP(1)
      END DO
      CALL MPI_TYPE_STRUCT(5, BLENS, SDISP, TYPES, STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_STRUCT relative send')
      CALL MPI_TYPE_COMMIT(STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_COMMIT')
      CALL MPI_TYPE_STRUCT(5, BLENS, RDISP, TYPES, RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_STRUCT relative recv')
      CALL MPI_TYPE_COMMIT(RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_COMMIT')
      CALL FILL(ME + 3)
      CALL MPI_SENDRECV(DS, 1, STYPE, RIGHT, 4, DR, 1, RTYPE, LEFT, 4,
     &     MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_SENDRECV relative')
      CALL VERIFY(LEFT + 3, 'relative MPI_TYPE_STRUCT')
      CALL MPI_TYPE_FREE(STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_FREE')
      CALL MPI_TYPE_FREE(RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_FREE')
!     Differences of MPI_GET_ADDRESS values, MPI_TYPE_CREATE_STRUCT.
      CALL MPI_GET_ADDRESS(DS, SD8(1), IERR)
      CALL MPI_GET_ADDRESS(IS, SD8(2), IERR)
      CALL MPI_GET_ADDRESS(RS, SD8(3), IERR)
      CALL MPI_GET_ADDRESS(LS, SD8(4), IERR)
      CALL MPI_GET_ADDRESS(CS, SD8(5), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS')
      CALL MPI_GET_ADDRESS(DR, RD8(1), IERR)
      CALL MPI_GET_ADDRESS(IR, RD8(2), IERR)
      CALL MPI_GET_ADDRESS(RR, RD8(3), IERR)
      CALL MPI_GET_ADDRESS(LR, RD8(4), IERR)
      CALL MPI_GET_ADDRESS(CR, RD8(5), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS')
      BASE = SD8(1)
      DO I = 1, 5
         SD8(I) = SD8(I) - BASE
      END DO
      BASE = RD8(1)
      DO I = 1, 5
         RD8(I) = RD8(I) - BASE
      END DO
      CALL MPI_TYPE_CREATE_STRUCT(5, BLENS, SD8, TYPES, STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_CREATE_STRUCT relative')
      CALL MPI_TYPE_COMMIT(STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_COMMIT')
      CALL MPI_TYPE_CREATE_STRUCT(5, BLENS, RD8, TYPES, RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_CREATE_STRUCT relative')
      CALL MPI_TYPE_COMMIT(RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_COMMIT')
      CALL FILL(ME + 4)
      CALL MPI_SENDRECV(DS, 1, STYPE, RIGHT, 5, DR, 1, RTYPE, LEFT, 5,
     &     MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_SENDRECV relative 8')
      CALL VERIFY(LEFT + 4, 'relative MPI_TYPE_CREATE_STRUCT')
      CALL MPI_TYPE_FREE(STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_FREE')
      CALL MPI_TYPE_FREE(RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_FREE')
      END

! MPI_TYPE_HINDEXED of INTEGERs at absolute addresses in two COMMON
! blocks, out of address order: sent from MPI_BOTTOM and received into
! a plain array, then sent from a plain array and received at
! MPI_BOTTOM; the same with MPI_TYPE_CREATE_HINDEXED.
      SUBROUTINE THIDX(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      DOUBLE PRECISION DS(2)
      INTEGER IS(3)
      REAL RS(2)
      LOGICAL LS
      INTEGER NS(4), FLAT(6)
      COMMON /SBLK/ DS, IS, RS, LS
      COMMON /NBLK/ NS
      COMMON /FBLK/ FLAT
      INTEGER IERR, I, RIGHT, LEFT, HTYPE, H8TYPE, N, EXPECT(6)
      INTEGER BLENS(3), DISP(3)
      INTEGER(KIND=MPI_ADDRESS_KIND) DISP8(3)
      INTEGER STATUS(MPI_STATUS_SIZE)
      DATA BLENS /1, 4, 1/
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME + NP - 1, NP)
      CALL MPI_ADDRESS(IS(3), DISP(1), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS IS(3)')
      CALL MPI_ADDRESS(NS, DISP(2), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS NS')
      CALL MPI_ADDRESS(IS(1), DISP(3), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS IS(1)')
      CALL MPI_TYPE_HINDEXED(3, BLENS, DISP, MPI_INTEGER, HTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_HINDEXED')
      CALL MPI_TYPE_COMMIT(HTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_COMMIT')
      CALL MPI_GET_ADDRESS(IS(3), DISP8(1), IERR)
      CALL MPI_GET_ADDRESS(NS, DISP8(2), IERR)
      CALL MPI_GET_ADDRESS(IS(1), DISP8(3), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS')
      CALL MPI_TYPE_CREATE_HINDEXED(3, BLENS, DISP8, MPI_INTEGER,
     &     H8TYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_CREATE_HINDEXED')
      CALL MPI_TYPE_COMMIT(H8TYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_COMMIT')
      CALL MPI_TYPE_SIZE(HTYPE, N, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_SIZE hindexed')
      CALL CHECK(N .EQ. 24, 'bottom', 'MPI_TYPE_SIZE hindexed not 24')
!     Out of MPI_BOTTOM, into a plain array: IS(3), NS(1..4), IS(1).
      CALL FILL(ME)
      DO I = 1, 4
         NS(I) = 1000 * ME + 10 * I
      END DO
      DO I = 1, 6
         FLAT(I) = -1
      END DO
      CALL MPI_SENDRECV(MPI_BOTTOM, 1, HTYPE, RIGHT, 6, FLAT, 6,
     &     MPI_INTEGER, LEFT, 6, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_SENDRECV hindexed out')
      EXPECT(1) = -(100 * LEFT + 3)
      DO I = 1, 4
         EXPECT(I + 1) = 1000 * LEFT + 10 * I
      END DO
      EXPECT(6) = 100 * LEFT + 1
      DO I = 1, 6
         CALL CHECK(FLAT(I) .EQ. EXPECT(I), 'bottom',
     &        'MPI_TYPE_HINDEXED from MPI_BOTTOM: data')
      END DO
!     From a plain array into MPI_BOTTOM (MPI_TYPE_CREATE_HINDEXED).
      DO I = 1, 6
         FLAT(I) = 50 * ME + I
      END DO
      DO I = 1, 4
         NS(I) = -1
      END DO
      IS(1) = -1
      IS(2) = -2
      IS(3) = -1
      CALL MPI_SENDRECV(FLAT, 6, MPI_INTEGER, RIGHT, 8, MPI_BOTTOM, 1,
     &     H8TYPE, LEFT, 8, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_SENDRECV hindexed in')
      CALL CHECK(IS(3) .EQ. 50 * LEFT + 1, 'bottom',
     &     'MPI_TYPE_CREATE_HINDEXED into MPI_BOTTOM: IS(3)')
      DO I = 1, 4
         CALL CHECK(NS(I) .EQ. 50 * LEFT + I + 1, 'bottom',
     &        'MPI_TYPE_CREATE_HINDEXED into MPI_BOTTOM: NS')
      END DO
      CALL CHECK(IS(1) .EQ. 50 * LEFT + 6, 'bottom',
     &     'MPI_TYPE_CREATE_HINDEXED into MPI_BOTTOM: IS(1)')
      CALL CHECK(IS(2) .EQ. -2, 'bottom',
     &     'MPI_TYPE_CREATE_HINDEXED into MPI_BOTTOM: IS(2) changed')
      CALL MPI_TYPE_FREE(HTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_FREE')
      CALL MPI_TYPE_FREE(H8TYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_FREE')
      END

! SAVEd local variables: MPI_ADDRESS of them fits, and a type over
! them (MPI_TYPE_HINDEXED, two blocks) is used at MPI_BOTTOM with
! MPI_ISEND and MPI_RECV.
      SUBROUTINE TSAVED(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      INTEGER XS(4), XR(4), YS, YR
      SAVE XS, XR, YS, YR
      INTEGER IERR, I, RIGHT, LEFT, ST, RT, REQ
      INTEGER BLENS(2), DISP(2)
      DATA BLENS /4, 1/
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME + NP - 1, NP)
      CALL MPI_ADDRESS(XS, DISP(1), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS of a SAVEd array')
      CALL MPI_ADDRESS(YS, DISP(2), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS of a SAVEd INTEGER')
      CALL MPI_TYPE_HINDEXED(2, BLENS, DISP, MPI_INTEGER, ST, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_HINDEXED saved')
      CALL MPI_TYPE_COMMIT(ST, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_COMMIT')
      CALL MPI_ADDRESS(XR, DISP(1), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS of a SAVEd array')
      CALL MPI_ADDRESS(YR, DISP(2), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ADDRESS of a SAVEd INTEGER')
      CALL MPI_TYPE_HINDEXED(2, BLENS, DISP, MPI_INTEGER, RT, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_HINDEXED saved')
      CALL MPI_TYPE_COMMIT(RT, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_COMMIT')
      DO I = 1, 4
         XS(I) = 10 * ME + I
         XR(I) = -1
      END DO
      YS = -ME
      YR = 99
      CALL MPI_ISEND(MPI_BOTTOM, 1, ST, RIGHT, 9, MPI_COMM_WORLD, REQ,
     &     IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_ISEND saved')
      CALL MPI_RECV(MPI_BOTTOM, 1, RT, LEFT, 9, MPI_COMM_WORLD,
     &     MPI_STATUS_IGNORE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_RECV saved')
      CALL MPI_WAIT(REQ, MPI_STATUS_IGNORE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_WAIT saved')
      DO I = 1, 4
         CALL CHECK(XR(I) .EQ. 10 * LEFT + I, 'bottom',
     &        'SAVEd array at MPI_BOTTOM: data')
      END DO
      CALL CHECK(YR .EQ. -LEFT, 'bottom',
     &     'SAVEd INTEGER at MPI_BOTTOM: data')
      CALL MPI_TYPE_FREE(ST, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_FREE')
      CALL MPI_TYPE_FREE(RT, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_FREE')
      END

! MPI_PACK from MPI_BOTTOM with the absolute struct type of the send
! block, MPI_UNPACK to MPI_BOTTOM with that of the receive block.
      SUBROUTINE TPACK(ME)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME
      DOUBLE PRECISION DS(2), DR(2)
      INTEGER IS(3), IR(3)
      REAL RS(2), RR(2)
      LOGICAL LS, LR
      CHARACTER*5 CS, CR
      COMMON /SBLK/ DS, IS, RS, LS
      COMMON /RBLK/ DR, IR, RR, LR
      COMMON /SCHR/ CS
      COMMON /RCHR/ CR
      INTEGER IERR, STYPE, RTYPE, POS, SZ
      INTEGER BLENS(5), TYPES(5)
      INTEGER(KIND=MPI_ADDRESS_KIND) SDISP(5), RDISP(5)
      INTEGER PACKED(64)
      DATA BLENS /2, 3, 2, 1, 5/
      TYPES(1) = MPI_DOUBLE_PRECISION
      TYPES(2) = MPI_INTEGER
      TYPES(3) = MPI_REAL
      TYPES(4) = MPI_LOGICAL
      TYPES(5) = MPI_CHARACTER
      CALL MPI_GET_ADDRESS(DS, SDISP(1), IERR)
      CALL MPI_GET_ADDRESS(IS, SDISP(2), IERR)
      CALL MPI_GET_ADDRESS(RS, SDISP(3), IERR)
      CALL MPI_GET_ADDRESS(LS, SDISP(4), IERR)
      CALL MPI_GET_ADDRESS(CS, SDISP(5), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS')
      CALL MPI_GET_ADDRESS(DR, RDISP(1), IERR)
      CALL MPI_GET_ADDRESS(IR, RDISP(2), IERR)
      CALL MPI_GET_ADDRESS(RR, RDISP(3), IERR)
      CALL MPI_GET_ADDRESS(LR, RDISP(4), IERR)
      CALL MPI_GET_ADDRESS(CR, RDISP(5), IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_GET_ADDRESS')
      CALL MPI_TYPE_CREATE_STRUCT(5, BLENS, SDISP, TYPES, STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_CREATE_STRUCT')
      CALL MPI_TYPE_COMMIT(STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_COMMIT')
      CALL MPI_TYPE_CREATE_STRUCT(5, BLENS, RDISP, TYPES, RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_CREATE_STRUCT')
      CALL MPI_TYPE_COMMIT(RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_COMMIT')
      CALL MPI_PACK_SIZE(1, STYPE, MPI_COMM_WORLD, SZ, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_PACK_SIZE')
      CALL CHECK(SZ .GE. 45 .AND. SZ .LE. 256, 'bottom',
     &     'MPI_PACK_SIZE of the struct')
      CALL FILL(ME + 5)
      POS = 0
      CALL MPI_PACK(MPI_BOTTOM, 1, STYPE, PACKED, 256, POS,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_PACK from MPI_BOTTOM')
      CALL CHECK(POS .GE. 45 .AND. POS .LE. SZ, 'bottom',
     &     'MPI_PACK position')
      SZ = POS
      POS = 0
      CALL MPI_UNPACK(PACKED, SZ, POS, MPI_BOTTOM, 1, RTYPE,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_UNPACK to MPI_BOTTOM')
      CALL CHECK(POS .EQ. SZ, 'bottom', 'MPI_UNPACK position')
      CALL VERIFY(ME + 5, 'MPI_PACK/MPI_UNPACK at MPI_BOTTOM')
      CALL MPI_TYPE_FREE(STYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_FREE')
      CALL MPI_TYPE_FREE(RTYPE, IERR)
      CALL CHECKRC(IERR, 'bottom', 'MPI_TYPE_FREE')
      END
