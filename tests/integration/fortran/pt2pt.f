! pt2pt.f: point-to-point communication through the Fortran 77
! bindings. Blocking sends of every mode (MPI_BSEND through an attached
! buffer, MPI_RSEND to a pre-posted receive), status fields with
! MPI_ANY_SOURCE/MPI_ANY_TAG, MPI_GET_COUNT/MPI_GET_ELEMENTS,
! MPI_STATUS_IGNORE, non-blocking calls with every completion routine
! (1-based indices, MPI_UNDEFINED for all-null lists), probes,
! MPI_SENDRECV(_REPLACE) in a ring, persistent requests, a cancelled
! receive, MPI_PROC_NULL, truncation under MPI_ERRORS_RETURN, and every
! Fortran basic datatype. Runs on 2 to 4 processes.
!
! Buffers of non-blocking calls are in COMMON blocks throughout, so that
! the compiler cannot keep their values in registers across the calls
! that complete them (with locals, gfortran -O2 broke the persistent
! requests' data on MPICH).
      PROGRAM PT2PT
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, ME, NP
      CALL MPI_INIT(IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_INIT')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_COMM_RANK')
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_COMM_SIZE')
      CALL CHECK(NP .GE. 2 .AND. NP .LE. 4, 'pt2pt',
     &     'needs 2 to 4 processes')
      CALL TANY(ME, NP)
      CALL SYNC
      CALL TTYPES(ME)
      CALL SYNC
      CALL TBSEND(ME, NP)
      CALL SYNC
      CALL TSSEND(ME, NP)
      CALL SYNC
      CALL TRSEND(ME, NP)
      CALL SYNC
      CALL TIGNOR(ME, NP)
      CALL SYNC
      CALL TWTEST(ME, NP)
      CALL SYNC
      CALL TWALL(ME, NP)
      CALL SYNC
      CALL TWANY(ME, NP)
      CALL SYNC
      CALL TWSOME(ME, NP)
      CALL SYNC
      CALL TPROBE(ME)
      CALL SYNC
      CALL TMANY(ME, NP)
      CALL SYNC
      CALL TFREE(ME, NP)
      CALL SYNC
      CALL TRING(ME, NP)
      CALL SYNC
      CALL TPERS(ME, NP)
      CALL SYNC
      CALL TCANCL
      CALL SYNC
      CALL TNULL
      CALL SYNC
      CALL TTRUNC(ME)
      CALL SYNC
      CALL MPI_FINALIZE(IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_FINALIZE')
      END

      SUBROUTINE SYNC
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_BARRIER')
      END

! Every rank but 0 sends RANK+1 INTEGERs with tag 10+RANK; rank 0 takes
! them with MPI_ANY_SOURCE and MPI_ANY_TAG and learns the sender, tag
! and length from the status. Then a message of 5 INTEGERs received as a
! contiguous pair type: MPI_GET_COUNT is MPI_UNDEFINED for the pair, 5
! for MPI_INTEGER; MPI_GET_ELEMENTS is 5.
      SUBROUTINE TANY(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      INTEGER IERR, I, K, SRC, N, PAIR
      INTEGER BUF(10), STATUS(MPI_STATUS_SIZE)
      LOGICAL SEEN(0:3)
      IF (ME .NE. 0) THEN
         DO I = 1, ME + 1
            BUF(I) = 1000 * ME + I
         END DO
         CALL MPI_SEND(BUF, ME + 1, MPI_INTEGER, 0, 10 + ME,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND')
      ELSE
         DO I = 0, 3
            SEEN(I) = .FALSE.
         END DO
         DO K = 1, NP - 1
            DO I = 1, 10
               BUF(I) = -1
            END DO
            STATUS(MPI_SOURCE) = -99
            STATUS(MPI_TAG) = -99
            CALL MPI_RECV(BUF, 10, MPI_INTEGER, MPI_ANY_SOURCE,
     &           MPI_ANY_TAG, MPI_COMM_WORLD, STATUS, IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV any')
            SRC = STATUS(MPI_SOURCE)
            CALL CHECK(SRC .GE. 1 .AND. SRC .LT. NP, 'pt2pt',
     &           'ANY_SOURCE: STATUS(MPI_SOURCE) out of range')
            CALL CHECK(.NOT. SEEN(SRC), 'pt2pt',
     &           'ANY_SOURCE: a source seen twice')
            SEEN(SRC) = .TRUE.
            CALL CHECK(STATUS(MPI_TAG) .EQ. 10 + SRC, 'pt2pt',
     &           'ANY_TAG: STATUS(MPI_TAG) wrong')
            CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, N, IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_GET_COUNT')
            CALL CHECK(N .EQ. SRC + 1, 'pt2pt',
     &           'MPI_GET_COUNT wrong')
            CALL MPI_GET_ELEMENTS(STATUS, MPI_INTEGER, N, IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_GET_ELEMENTS')
            CALL CHECK(N .EQ. SRC + 1, 'pt2pt',
     &           'MPI_GET_ELEMENTS wrong')
            DO I = 1, SRC + 1
               CALL CHECK(BUF(I) .EQ. 1000 * SRC + I, 'pt2pt',
     &              'MPI_RECV any: data wrong')
            END DO
            CALL CHECK(BUF(SRC + 2) .EQ. -1, 'pt2pt',
     &           'MPI_RECV wrote beyond the message')
         END DO
      END IF
      CALL MPI_TYPE_CONTIGUOUS(2, MPI_INTEGER, PAIR, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_TYPE_CONTIGUOUS')
      CALL MPI_TYPE_COMMIT(PAIR, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_TYPE_COMMIT')
      IF (ME .EQ. 0) THEN
         DO I = 1, 5
            BUF(I) = 50 + I
         END DO
         CALL MPI_SEND(BUF, 5, MPI_INTEGER, 1, 20, MPI_COMM_WORLD,
     &        IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND 5')
      ELSE IF (ME .EQ. 1) THEN
         CALL MPI_RECV(BUF, 3, PAIR, 0, 20, MPI_COMM_WORLD, STATUS,
     &        IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV pairs')
         CALL CHECK(STATUS(MPI_SOURCE) .EQ. 0 .AND.
     &        STATUS(MPI_TAG) .EQ. 20, 'pt2pt', 'pairs: status')
         CALL MPI_GET_COUNT(STATUS, PAIR, N, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_GET_COUNT pairs')
         CALL CHECK(N .EQ. MPI_UNDEFINED, 'pt2pt',
     &        'MPI_GET_COUNT of 5 INTEGERs as pairs not UNDEFINED')
         CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, N, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_GET_COUNT integers')
         CALL CHECK(N .EQ. 5, 'pt2pt',
     &        'MPI_GET_COUNT of 5 INTEGERs as INTEGER not 5')
         CALL MPI_GET_ELEMENTS(STATUS, PAIR, N, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_GET_ELEMENTS pairs')
         CALL CHECK(N .EQ. 5, 'pt2pt',
     &        'MPI_GET_ELEMENTS of 5 INTEGERs as pairs not 5')
         DO I = 1, 5
            CALL CHECK(BUF(I) .EQ. 50 + I, 'pt2pt',
     &           'pairs: data wrong')
         END DO
      END IF
      CALL MPI_TYPE_FREE(PAIR, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_TYPE_FREE')
      CALL CHECK(PAIR .EQ. MPI_DATATYPE_NULL, 'pt2pt',
     &     'MPI_TYPE_FREE did not set MPI_DATATYPE_NULL')
      END

! Rank 0 sends one message of each Fortran datatype to rank 1.
      SUBROUTINE TTYPES(ME)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME
      INTEGER IERR, I, N
      INTEGER STATUS(MPI_STATUS_SIZE)
      INTEGER IV(3)
      REAL RV(3)
      DOUBLE PRECISION DV(3)
      COMPLEX CV(2)
      DOUBLE COMPLEX ZV(2)
      LOGICAL LV(4)
      CHARACTER*12 S
      CHARACTER*3 TAIL
      IF (ME .EQ. 0) THEN
         IV(1) = -7
         IV(2) = 2147483647
         IV(3) = -2147483647
         RV(1) = 1.5
         RV(2) = -0.25
         RV(3) = 3.0E10
         DV(1) = 1.0D0 / 3.0D0
         DV(2) = -2.5D-200
         DV(3) = 1.0D300
         CV(1) = (1.5, -2.0)
         CV(2) = (-0.5, 4.0)
         ZV(1) = DCMPLX(1.0D0 / 7.0D0, -1.0D100)
         ZV(2) = (-3.0D0, 0.125D0)
         LV(1) = .TRUE.
         LV(2) = .FALSE.
         LV(3) = .FALSE.
         LV(4) = .TRUE.
         S = 'Hello, MPI! '
         TAIL = 'xyz'
         CALL MPI_SEND(IV, 3, MPI_INTEGER, 1, 31, MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND MPI_INTEGER')
         CALL MPI_SEND(RV, 3, MPI_REAL, 1, 32, MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND MPI_REAL')
         CALL MPI_SEND(DV, 3, MPI_DOUBLE_PRECISION, 1, 33,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND MPI_DOUBLE_PRECISION')
         CALL MPI_SEND(CV, 2, MPI_COMPLEX, 1, 34, MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND MPI_COMPLEX')
         CALL MPI_SEND(ZV, 2, MPI_DOUBLE_COMPLEX, 1, 35,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND MPI_DOUBLE_COMPLEX')
         CALL MPI_SEND(LV, 4, MPI_LOGICAL, 1, 36, MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND MPI_LOGICAL')
         CALL MPI_SEND(S, 12, MPI_CHARACTER, 1, 37, MPI_COMM_WORLD,
     &        IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND MPI_CHARACTER')
         CALL MPI_SEND(TAIL, 3, MPI_CHARACTER, 1, 38, MPI_COMM_WORLD,
     &        IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND MPI_CHARACTER 3')
      ELSE IF (ME .EQ. 1) THEN
         DO I = 1, 3
            IV(I) = 0
            RV(I) = 0.0
            DV(I) = 0.0D0
         END DO
         CV(1) = (0.0, 0.0)
         CV(2) = CV(1)
         ZV(1) = (0.0D0, 0.0D0)
         ZV(2) = ZV(1)
         LV(1) = .FALSE.
         LV(2) = .TRUE.
         LV(3) = .TRUE.
         LV(4) = .FALSE.
         S = '------------'
         CALL MPI_RECV(IV, 3, MPI_INTEGER, 0, 31, MPI_COMM_WORLD,
     &        STATUS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV MPI_INTEGER')
         CALL CHECK(IV(1) .EQ. -7 .AND. IV(2) .EQ. 2147483647 .AND.
     &        IV(3) .EQ. -2147483647, 'pt2pt', 'MPI_INTEGER data')
         CALL MPI_RECV(RV, 3, MPI_REAL, 0, 32, MPI_COMM_WORLD,
     &        STATUS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV MPI_REAL')
         CALL CHECK(RV(1) .EQ. 1.5 .AND. RV(2) .EQ. -0.25 .AND.
     &        RV(3) .EQ. 3.0E10, 'pt2pt', 'MPI_REAL data')
         CALL MPI_GET_COUNT(STATUS, MPI_REAL, N, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_GET_COUNT MPI_REAL')
         CALL CHECK(N .EQ. 3, 'pt2pt', 'MPI_GET_COUNT MPI_REAL not 3')
         CALL MPI_RECV(DV, 3, MPI_DOUBLE_PRECISION, 0, 33,
     &        MPI_COMM_WORLD, STATUS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV MPI_DOUBLE_PRECISION')
         CALL CHECK(DV(1) .EQ. 1.0D0 / 3.0D0 .AND.
     &        DV(2) .EQ. -2.5D-200 .AND. DV(3) .EQ. 1.0D300,
     &        'pt2pt', 'MPI_DOUBLE_PRECISION data')
         CALL MPI_RECV(CV, 2, MPI_COMPLEX, 0, 34, MPI_COMM_WORLD,
     &        STATUS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV MPI_COMPLEX')
         CALL CHECK(CV(1) .EQ. (1.5, -2.0) .AND.
     &        CV(2) .EQ. (-0.5, 4.0), 'pt2pt', 'MPI_COMPLEX data')
         CALL MPI_GET_COUNT(STATUS, MPI_COMPLEX, N, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_GET_COUNT MPI_COMPLEX')
         CALL CHECK(N .EQ. 2, 'pt2pt',
     &        'MPI_GET_COUNT MPI_COMPLEX not 2')
         CALL MPI_GET_COUNT(STATUS, MPI_REAL, N, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_GET_COUNT COMPLEX as REAL')
         CALL CHECK(N .EQ. 4, 'pt2pt',
     &        'MPI_GET_COUNT of 2 COMPLEX as MPI_REAL not 4')
         CALL MPI_RECV(ZV, 2, MPI_DOUBLE_COMPLEX, 0, 35,
     &        MPI_COMM_WORLD, STATUS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV MPI_DOUBLE_COMPLEX')
         CALL CHECK(ZV(1) .EQ. DCMPLX(1.0D0 / 7.0D0, -1.0D100) .AND.
     &        ZV(2) .EQ. (-3.0D0, 0.125D0), 'pt2pt',
     &        'MPI_DOUBLE_COMPLEX data')
         CALL MPI_RECV(LV, 4, MPI_LOGICAL, 0, 36, MPI_COMM_WORLD,
     &        STATUS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV MPI_LOGICAL')
         CALL CHECK(LV(1) .AND. .NOT. LV(2) .AND. .NOT. LV(3) .AND.
     &        LV(4), 'pt2pt', 'MPI_LOGICAL data')
         CALL CHECK((LV(1) .EQV. .TRUE.) .AND. (LV(2) .EQV. .FALSE.),
     &        'pt2pt', 'MPI_LOGICAL: .EQV. with .TRUE./.FALSE.')
         CALL MPI_RECV(S, 12, MPI_CHARACTER, 0, 37, MPI_COMM_WORLD,
     &        STATUS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV MPI_CHARACTER')
         CALL CHECK(S .EQ. 'Hello, MPI! ', 'pt2pt',
     &        'MPI_CHARACTER data')
         CALL MPI_GET_COUNT(STATUS, MPI_CHARACTER, N, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_GET_COUNT MPI_CHARACTER')
         CALL CHECK(N .EQ. 12, 'pt2pt',
     &        'MPI_GET_COUNT MPI_CHARACTER not 12')
!        Into the middle of a longer string: only 3 characters change.
         S = 'abcdefghijkl'
         CALL MPI_RECV(S(5:7), 3, MPI_CHARACTER, 0, 38,
     &        MPI_COMM_WORLD, STATUS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV MPI_CHARACTER sub')
         CALL CHECK(S .EQ. 'abcdxyzhijkl', 'pt2pt',
     &        'MPI_CHARACTER into a substring')
      END IF
      END

! MPI_BSEND around the ring through an attached buffer sized with
! MPI_PACK_SIZE and MPI_BSEND_OVERHEAD for the two messages each rank
! sends; MPI_BUFFER_DETACH gives the size back.
      SUBROUTINE TBSEND(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      INTEGER IERR, I, K, SZ, TOTAL, DSIZE, RIGHT, LEFT
      INTEGER BUF(20), RBUF(20), STATUS(MPI_STATUS_SIZE)
      INTEGER SPACE(1000)
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME + NP - 1, NP)
      CALL MPI_PACK_SIZE(20, MPI_INTEGER, MPI_COMM_WORLD, SZ, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_PACK_SIZE')
      CALL CHECK(SZ .GE. 80, 'pt2pt', 'MPI_PACK_SIZE of 20 INTEGERs')
      TOTAL = 2 * (SZ + MPI_BSEND_OVERHEAD)
      CALL CHECK(TOTAL .LE. 4000, 'pt2pt', 'bsend space too small')
      CALL MPI_BUFFER_ATTACH(SPACE, TOTAL, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_BUFFER_ATTACH')
      DO K = 1, 2
         DO I = 1, 20
            BUF(I) = 10000 * K + 100 * ME + I
         END DO
         CALL MPI_BSEND(BUF, 20, MPI_INTEGER, RIGHT, 40 + K,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_BSEND')
!        The data are copied: the buffer may change at once.
         DO I = 1, 20
            BUF(I) = -1
         END DO
      END DO
      DO K = 2, 1, -1
         CALL MPI_RECV(RBUF, 20, MPI_INTEGER, LEFT, 40 + K,
     &        MPI_COMM_WORLD, STATUS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV of a bsend')
         DO I = 1, 20
            CALL CHECK(RBUF(I) .EQ. 10000 * K + 100 * LEFT + I,
     &           'pt2pt', 'MPI_BSEND data')
         END DO
      END DO
      CALL MPI_BUFFER_DETACH(SPACE, DSIZE, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_BUFFER_DETACH')
      CALL CHECK(DSIZE .EQ. TOTAL, 'pt2pt',
     &     'MPI_BUFFER_DETACH size differs from the attached one')
      END

! MPI_SSEND from each even rank to the odd rank after it.
      SUBROUTINE TSSEND(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      INTEGER IERR, I, BUF(4), STATUS(MPI_STATUS_SIZE)
      IF (MOD(ME, 2) .EQ. 0 .AND. ME + 1 .LT. NP) THEN
         DO I = 1, 4
            BUF(I) = ME * 10 + I
         END DO
         CALL MPI_SSEND(BUF, 4, MPI_INTEGER, ME + 1, 50,
     &        MPI_COMM_WORLD, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SSEND')
      ELSE IF (MOD(ME, 2) .EQ. 1) THEN
         CALL MPI_RECV(BUF, 4, MPI_INTEGER, ME - 1, 50,
     &        MPI_COMM_WORLD, STATUS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV of ssend')
         DO I = 1, 4
            CALL CHECK(BUF(I) .EQ. (ME - 1) * 10 + I, 'pt2pt',
     &           'MPI_SSEND data')
         END DO
      END IF
      END

! MPI_RSEND around the ring: every receive is posted before the barrier,
! every ready send starts after it.
      SUBROUTINE TRSEND(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      INTEGER IERR, REQ, RIGHT, LEFT, SBUF(3), RBUF(3), I
      INTEGER STATUS(MPI_STATUS_SIZE)
      COMMON /BRSEND/ SBUF, RBUF
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME + NP - 1, NP)
      CALL MPI_IRECV(RBUF, 3, MPI_INTEGER, LEFT, 60, MPI_COMM_WORLD,
     &     REQ, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_IRECV for rsend')
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_BARRIER')
      DO I = 1, 3
         SBUF(I) = 7 * ME + I
      END DO
      CALL MPI_RSEND(SBUF, 3, MPI_INTEGER, RIGHT, 60, MPI_COMM_WORLD,
     &     IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_RSEND')
      CALL MPI_WAIT(REQ, STATUS, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAIT rsend')
      CALL CHECK(REQ .EQ. MPI_REQUEST_NULL, 'pt2pt',
     &     'MPI_WAIT did not free the request')
      CALL CHECK(STATUS(MPI_SOURCE) .EQ. LEFT .AND.
     &     STATUS(MPI_TAG) .EQ. 60, 'pt2pt', 'rsend: status')
      DO I = 1, 3
         CALL CHECK(RBUF(I) .EQ. 7 * LEFT + I, 'pt2pt',
     &        'MPI_RSEND data')
      END DO
      END

! MPI_STATUS_IGNORE in MPI_RECV and MPI_WAIT; a neighbouring status
! variable stays untouched.
      SUBROUTINE TIGNOR(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      INTEGER IERR, REQ, RIGHT, LEFT, SBUF, RBUF, I
      INTEGER STATUS(MPI_STATUS_SIZE)
      COMMON /BIGNOR/ SBUF, RBUF
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME + NP - 1, NP)
      DO I = 1, MPI_STATUS_SIZE
         STATUS(I) = -77
      END DO
      SBUF = 300 + ME
      RBUF = -1
      CALL MPI_IRECV(RBUF, 1, MPI_INTEGER, LEFT, 70, MPI_COMM_WORLD,
     &     REQ, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_IRECV ignore')
      CALL MPI_SEND(SBUF, 1, MPI_INTEGER, RIGHT, 70, MPI_COMM_WORLD,
     &     IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND ignore')
      CALL MPI_WAIT(REQ, MPI_STATUS_IGNORE, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAIT MPI_STATUS_IGNORE')
      CALL CHECK(RBUF .EQ. 300 + LEFT, 'pt2pt',
     &     'MPI_WAIT MPI_STATUS_IGNORE: data')
      CALL CHECK(REQ .EQ. MPI_REQUEST_NULL, 'pt2pt',
     &     'MPI_WAIT MPI_STATUS_IGNORE: request not freed')
      CALL MPI_SEND(SBUF, 1, MPI_INTEGER, RIGHT, 71, MPI_COMM_WORLD,
     &     IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND ignore 2')
      CALL MPI_RECV(RBUF, 1, MPI_INTEGER, MPI_ANY_SOURCE, 71,
     &     MPI_COMM_WORLD, MPI_STATUS_IGNORE, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV MPI_STATUS_IGNORE')
      CALL CHECK(RBUF .EQ. 300 + LEFT, 'pt2pt',
     &     'MPI_RECV MPI_STATUS_IGNORE: data')
      DO I = 1, MPI_STATUS_SIZE
         CALL CHECK(STATUS(I) .EQ. -77, 'pt2pt',
     &        'MPI_STATUS_IGNORE: an unrelated status changed')
      END DO
      END

! MPI_ISEND/MPI_IRECV around the ring, completed by MPI_WAIT (send) and
! by MPI_TEST until the flag is .TRUE. (receive).
      SUBROUTINE TWTEST(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      INTEGER IERR, SREQ, RREQ, RIGHT, LEFT, I, N
      INTEGER SBUF(8), RBUF(8), STATUS(MPI_STATUS_SIZE)
      LOGICAL FLAG
      COMMON /BWTEST/ SBUF, RBUF
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME + NP - 1, NP)
      DO I = 1, 8
         SBUF(I) = 1000 + 10 * ME + I
         RBUF(I) = 0
      END DO
      CALL MPI_IRECV(RBUF, 8, MPI_INTEGER, MPI_ANY_SOURCE, 80,
     &     MPI_COMM_WORLD, RREQ, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_IRECV')
      CALL MPI_ISEND(SBUF, 8, MPI_INTEGER, RIGHT, 80, MPI_COMM_WORLD,
     &     SREQ, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_ISEND')
      CALL CHECK(SREQ .NE. MPI_REQUEST_NULL .AND.
     &     RREQ .NE. MPI_REQUEST_NULL, 'pt2pt',
     &     'a new request is MPI_REQUEST_NULL')
      CALL MPI_WAIT(SREQ, STATUS, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAIT send')
      CALL CHECK(SREQ .EQ. MPI_REQUEST_NULL, 'pt2pt',
     &     'MPI_WAIT send: request not freed')
      FLAG = .FALSE.
      N = 0
   10 CONTINUE
      CALL MPI_TEST(RREQ, FLAG, STATUS, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_TEST')
      N = N + 1
      IF (.NOT. FLAG) GO TO 10
      CALL CHECK(RREQ .EQ. MPI_REQUEST_NULL, 'pt2pt',
     &     'MPI_TEST: completed request not freed')
      CALL CHECK(STATUS(MPI_SOURCE) .EQ. LEFT, 'pt2pt',
     &     'MPI_TEST: STATUS(MPI_SOURCE)')
      CALL CHECK(STATUS(MPI_TAG) .EQ. 80, 'pt2pt',
     &     'MPI_TEST: STATUS(MPI_TAG)')
      CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, N, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_GET_COUNT test')
      CALL CHECK(N .EQ. 8, 'pt2pt', 'MPI_TEST: count')
      DO I = 1, 8
         CALL CHECK(RBUF(I) .EQ. 1000 + 10 * LEFT + I, 'pt2pt',
     &        'MPI_TEST: data')
      END DO
!     MPI_TEST of MPI_REQUEST_NULL: flag .TRUE. at once.
      FLAG = .FALSE.
      CALL MPI_TEST(RREQ, FLAG, STATUS, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_TEST null')
      CALL CHECK(FLAG, 'pt2pt', 'MPI_TEST of a null request: flag')
      END

! All-to-all exchange with MPI_WAITALL over the receives and sends,
! first with a statuses array, then with MPI_STATUSES_IGNORE, then with
! MPI_TESTALL until its flag is .TRUE.
      SUBROUTINE TWALL(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      INTEGER IERR, I, J, K, ROUND, REQS(6)
      INTEGER STATS(MPI_STATUS_SIZE, 6), SBUF(2), RBUF(2, 3), PEER(3)
      LOGICAL FLAG
      COMMON /BWALL/ SBUF, RBUF
      DO ROUND = 1, 3
         K = 0
         DO I = 0, NP - 1
            IF (I .NE. ME) THEN
               K = K + 1
               PEER(K) = I
               RBUF(1, K) = -1
               RBUF(2, K) = -1
               CALL MPI_IRECV(RBUF(1, K), 2, MPI_INTEGER, I, 90,
     &              MPI_COMM_WORLD, REQS(K), IERR)
               CALL CHECKRC(IERR, 'pt2pt', 'MPI_IRECV waitall')
            END IF
         END DO
         SBUF(1) = ME
         SBUF(2) = ROUND
         DO J = 1, NP - 1
            CALL MPI_ISEND(SBUF, 2, MPI_INTEGER, PEER(J), 90,
     &           MPI_COMM_WORLD, REQS(NP - 1 + J), IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_ISEND waitall')
         END DO
         DO J = 1, 2 * (NP - 1)
            STATS(MPI_SOURCE, J) = -5
            STATS(MPI_TAG, J) = -5
         END DO
         IF (ROUND .EQ. 1) THEN
            CALL MPI_WAITALL(2 * (NP - 1), REQS, STATS, IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAITALL')
            DO J = 1, NP - 1
               CALL CHECK(STATS(MPI_SOURCE, J) .EQ. PEER(J), 'pt2pt',
     &              'MPI_WAITALL: STATUSES(MPI_SOURCE, J)')
               CALL CHECK(STATS(MPI_TAG, J) .EQ. 90, 'pt2pt',
     &              'MPI_WAITALL: STATUSES(MPI_TAG, J)')
            END DO
         ELSE IF (ROUND .EQ. 3) THEN
            FLAG = .FALSE.
   15       CONTINUE
            CALL MPI_TESTALL(2 * (NP - 1), REQS, FLAG, STATS, IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_TESTALL')
            IF (.NOT. FLAG) GO TO 15
            DO J = 1, NP - 1
               CALL CHECK(STATS(MPI_SOURCE, J) .EQ. PEER(J), 'pt2pt',
     &              'MPI_TESTALL: STATUSES(MPI_SOURCE, J)')
               CALL CHECK(STATS(MPI_TAG, J) .EQ. 90, 'pt2pt',
     &              'MPI_TESTALL: STATUSES(MPI_TAG, J)')
            END DO
         ELSE
            CALL MPI_WAITALL(2 * (NP - 1), REQS, MPI_STATUSES_IGNORE,
     &           IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAITALL IGNORE')
            DO J = 1, 2 * (NP - 1)
               CALL CHECK(STATS(MPI_SOURCE, J) .EQ. -5, 'pt2pt',
     &              'MPI_STATUSES_IGNORE: a status array changed')
            END DO
         END IF
         DO J = 1, 2 * (NP - 1)
            CALL CHECK(REQS(J) .EQ. MPI_REQUEST_NULL, 'pt2pt',
     &           'MPI_WAITALL: a request not freed')
         END DO
         DO J = 1, NP - 1
            CALL CHECK(RBUF(1, J) .EQ. PEER(J) .AND.
     &           RBUF(2, J) .EQ. ROUND, 'pt2pt', 'MPI_WAITALL: data')
         END DO
      END DO
      END

! MPI_WAITANY, then MPI_TESTANY, over receives from every other rank:
! each index (1-based) comes once, the status names the sender the
! index belongs to; on a list of null requests the index is
! MPI_UNDEFINED (and MPI_TESTANY's flag .TRUE.).
      SUBROUTINE TWANY(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      INTEGER IERR, I, J, K, ROUND, IDX, RREQ(3), SREQ(3)
      INTEGER STATUS(MPI_STATUS_SIZE), RBUF(3), SBUF, PEER(3)
      LOGICAL DONE(3), FLAG
      COMMON /BWANY/ RBUF, SBUF
      DO ROUND = 1, 2
         K = 0
         DO I = 0, NP - 1
            IF (I .NE. ME) THEN
               K = K + 1
               PEER(K) = I
               DONE(K) = .FALSE.
               RBUF(K) = -1
               CALL MPI_IRECV(RBUF(K), 1, MPI_INTEGER, I, 100 + ROUND,
     &              MPI_COMM_WORLD, RREQ(K), IERR)
               CALL CHECKRC(IERR, 'pt2pt', 'MPI_IRECV any')
            END IF
         END DO
         SBUF = 500 + ME
         DO J = 1, NP - 1
            CALL MPI_ISEND(SBUF, 1, MPI_INTEGER, PEER(J), 100 + ROUND,
     &           MPI_COMM_WORLD, SREQ(J), IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_ISEND any')
         END DO
         DO J = 1, NP - 1
            IDX = -5
            IF (ROUND .EQ. 1) THEN
               CALL MPI_WAITANY(NP - 1, RREQ, IDX, STATUS, IERR)
               CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAITANY')
            ELSE
               FLAG = .FALSE.
   20          CONTINUE
               CALL MPI_TESTANY(NP - 1, RREQ, IDX, FLAG, STATUS, IERR)
               CALL CHECKRC(IERR, 'pt2pt', 'MPI_TESTANY')
               IF (.NOT. FLAG) THEN
                  CALL CHECK(IDX .EQ. MPI_UNDEFINED, 'pt2pt',
     &                 'MPI_TESTANY: index not UNDEFINED, flag false')
                  GO TO 20
               END IF
            END IF
            CALL CHECK(IDX .GE. 1 .AND. IDX .LE. NP - 1, 'pt2pt',
     &           'MPI_WAITANY/TESTANY: index not in 1..COUNT')
            CALL CHECK(.NOT. DONE(IDX), 'pt2pt',
     &           'MPI_WAITANY/TESTANY: an index came twice')
            DONE(IDX) = .TRUE.
            CALL CHECK(RREQ(IDX) .EQ. MPI_REQUEST_NULL, 'pt2pt',
     &           'MPI_WAITANY/TESTANY: request not freed')
            CALL CHECK(STATUS(MPI_SOURCE) .EQ. PEER(IDX), 'pt2pt',
     &           'MPI_WAITANY/TESTANY: source not that of the index')
            CALL CHECK(STATUS(MPI_TAG) .EQ. 100 + ROUND, 'pt2pt',
     &           'MPI_WAITANY/TESTANY: tag')
            CALL CHECK(RBUF(IDX) .EQ. 500 + PEER(IDX), 'pt2pt',
     &           'MPI_WAITANY/TESTANY: data')
         END DO
         IDX = -5
         IF (ROUND .EQ. 1) THEN
            CALL MPI_WAITANY(NP - 1, RREQ, IDX, STATUS, IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAITANY all null')
            CALL CHECK(IDX .EQ. MPI_UNDEFINED, 'pt2pt',
     &           'MPI_WAITANY of null requests: not MPI_UNDEFINED')
         ELSE
            FLAG = .FALSE.
            CALL MPI_TESTANY(NP - 1, RREQ, IDX, FLAG, STATUS, IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_TESTANY all null')
            CALL CHECK(IDX .EQ. MPI_UNDEFINED, 'pt2pt',
     &           'MPI_TESTANY of null requests: not MPI_UNDEFINED')
            CALL CHECK(FLAG, 'pt2pt',
     &           'MPI_TESTANY of null requests: flag not .TRUE.')
         END IF
         CALL MPI_WAITALL(NP - 1, SREQ, MPI_STATUSES_IGNORE, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAITALL sends')
      END DO
      END

! MPI_WAITSOME, then MPI_TESTSOME, until every receive completed: the
! OUTCOUNT indices are 1-based, each comes once, and the I-th status
! belongs to the I-th index; with only null requests OUTCOUNT is
! MPI_UNDEFINED.
      SUBROUTINE TWSOME(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      INTEGER IERR, I, J, K, ROUND, NDONE, OUTCNT, IDX
      INTEGER RREQ(3), SREQ(3), INDICES(3)
      INTEGER STATS(MPI_STATUS_SIZE, 3), RBUF(3), SBUF, PEER(3)
      LOGICAL DONE(3)
      COMMON /BWSOME/ RBUF, SBUF
      DO ROUND = 1, 2
         K = 0
         DO I = 0, NP - 1
            IF (I .NE. ME) THEN
               K = K + 1
               PEER(K) = I
               DONE(K) = .FALSE.
               RBUF(K) = -1
               CALL MPI_IRECV(RBUF(K), 1, MPI_INTEGER, I, 110 + ROUND,
     &              MPI_COMM_WORLD, RREQ(K), IERR)
               CALL CHECKRC(IERR, 'pt2pt', 'MPI_IRECV some')
            END IF
         END DO
         SBUF = 600 + ME
         DO J = 1, NP - 1
            CALL MPI_ISEND(SBUF, 1, MPI_INTEGER, PEER(J), 110 + ROUND,
     &           MPI_COMM_WORLD, SREQ(J), IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_ISEND some')
         END DO
         NDONE = 0
   30    CONTINUE
         OUTCNT = -5
         IF (ROUND .EQ. 1) THEN
            CALL MPI_WAITSOME(NP - 1, RREQ, OUTCNT, INDICES, STATS,
     &           IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAITSOME')
            CALL CHECK(OUTCNT .GE. 1 .AND. OUTCNT .LE. NP - 1,
     &           'pt2pt', 'MPI_WAITSOME: OUTCOUNT out of range')
         ELSE
            CALL MPI_TESTSOME(NP - 1, RREQ, OUTCNT, INDICES, STATS,
     &           IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_TESTSOME')
            CALL CHECK(OUTCNT .GE. 0 .AND. OUTCNT .LE. NP - 1,
     &           'pt2pt', 'MPI_TESTSOME: OUTCOUNT out of range')
         END IF
         DO J = 1, OUTCNT
            IDX = INDICES(J)
            CALL CHECK(IDX .GE. 1 .AND. IDX .LE. NP - 1, 'pt2pt',
     &           'MPI_WAITSOME/TESTSOME: index not in 1..INCOUNT')
            CALL CHECK(.NOT. DONE(IDX), 'pt2pt',
     &           'MPI_WAITSOME/TESTSOME: an index came twice')
            DONE(IDX) = .TRUE.
            CALL CHECK(RREQ(IDX) .EQ. MPI_REQUEST_NULL, 'pt2pt',
     &           'MPI_WAITSOME/TESTSOME: request not freed')
            CALL CHECK(STATS(MPI_SOURCE, J) .EQ. PEER(IDX), 'pt2pt',
     &           'MPI_WAITSOME/TESTSOME: STATUSES(MPI_SOURCE, J)')
            CALL CHECK(STATS(MPI_TAG, J) .EQ. 110 + ROUND, 'pt2pt',
     &           'MPI_WAITSOME/TESTSOME: STATUSES(MPI_TAG, J)')
            CALL CHECK(RBUF(IDX) .EQ. 600 + PEER(IDX), 'pt2pt',
     &           'MPI_WAITSOME/TESTSOME: data')
         END DO
         NDONE = NDONE + OUTCNT
         IF (NDONE .LT. NP - 1) GO TO 30
         OUTCNT = -5
         IF (ROUND .EQ. 1) THEN
            CALL MPI_WAITSOME(NP - 1, RREQ, OUTCNT, INDICES, STATS,
     &           IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAITSOME all null')
            CALL CHECK(OUTCNT .EQ. MPI_UNDEFINED, 'pt2pt',
     &           'MPI_WAITSOME of null requests: not MPI_UNDEFINED')
         ELSE
            CALL MPI_TESTSOME(NP - 1, RREQ, OUTCNT, INDICES, STATS,
     &           IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_TESTSOME all null')
            CALL CHECK(OUTCNT .EQ. MPI_UNDEFINED, 'pt2pt',
     &           'MPI_TESTSOME of null requests: not MPI_UNDEFINED')
         END IF
!        The sends, with MPI_WAITSOME and MPI_STATUSES_IGNORE.
         NDONE = 0
   40    CONTINUE
         CALL MPI_WAITSOME(NP - 1, SREQ, OUTCNT, INDICES,
     &        MPI_STATUSES_IGNORE, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAITSOME sends')
         CALL CHECK(OUTCNT .GE. 1, 'pt2pt',
     &        'MPI_WAITSOME sends: OUTCOUNT')
         NDONE = NDONE + OUTCNT
         IF (NDONE .LT. NP - 1) GO TO 40
      END DO
      END

! Rank 0 sends 7 INTEGERs with tag 120 to rank 1, which finds it with
! MPI_IPROBE (LOGICAL flag) and MPI_PROBE with wildcards before
! receiving it; an MPI_IPROBE for a tag nobody sends gives .FALSE.
      SUBROUTINE TPROBE(ME)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME
      INTEGER IERR, I, N, BUF(7), STATUS(MPI_STATUS_SIZE)
      LOGICAL FLAG
      IF (ME .EQ. 0) THEN
         DO I = 1, 7
            BUF(I) = 70 + I
         END DO
         CALL MPI_SEND(BUF, 7, MPI_INTEGER, 1, 120, MPI_COMM_WORLD,
     &        IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND probe')
      ELSE IF (ME .EQ. 1) THEN
         FLAG = .TRUE.
         CALL MPI_IPROBE(0, 999, MPI_COMM_WORLD, FLAG, STATUS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_IPROBE none')
         CALL CHECK(.NOT. FLAG, 'pt2pt',
     &        'MPI_IPROBE of a tag nobody sends: flag .TRUE.')
         FLAG = .FALSE.
   50    CONTINUE
         CALL MPI_IPROBE(MPI_ANY_SOURCE, 120, MPI_COMM_WORLD, FLAG,
     &        STATUS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_IPROBE')
         IF (.NOT. FLAG) GO TO 50
         CALL CHECK(FLAG .EQV. .TRUE., 'pt2pt',
     &     'MPI_IPROBE: flag not .TRUE.')
         CALL CHECK(STATUS(MPI_SOURCE) .EQ. 0 .AND.
     &        STATUS(MPI_TAG) .EQ. 120, 'pt2pt', 'MPI_IPROBE: status')
         CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, N, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_GET_COUNT iprobe')
         CALL CHECK(N .EQ. 7, 'pt2pt', 'MPI_IPROBE: count')
         CALL MPI_PROBE(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD,
     &        STATUS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_PROBE')
         CALL CHECK(STATUS(MPI_SOURCE) .EQ. 0 .AND.
     &        STATUS(MPI_TAG) .EQ. 120, 'pt2pt', 'MPI_PROBE: status')
         CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, N, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_GET_COUNT probe')
         CALL CHECK(N .EQ. 7, 'pt2pt', 'MPI_PROBE: count')
         CALL MPI_RECV(BUF, N, MPI_INTEGER, STATUS(MPI_SOURCE),
     &        STATUS(MPI_TAG), MPI_COMM_WORLD, STATUS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV probed')
         DO I = 1, 7
            CALL CHECK(BUF(I) .EQ. 70 + I, 'pt2pt', 'probed data')
         END DO
      END IF
      END

! Many requests at once (more than a small fixed array of statuses):
! 20 receives from the left and 20 sends to the right, completed by
! MPI_WAITALL over all 40, then the same completed by MPI_WAITSOME.
      SUBROUTINE TMANY(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      INTEGER IERR, I, J, ROUND, RIGHT, LEFT, NDONE, OUTCNT, IDX
      INTEGER REQS(40), STATS(MPI_STATUS_SIZE, 40), INDICES(40)
      INTEGER SBUF(20), RBUF(20)
      LOGICAL DONE(40)
      COMMON /BMANY/ SBUF, RBUF
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME + NP - 1, NP)
      DO ROUND = 1, 2
         DO I = 1, 20
            SBUF(I) = 1000 * ROUND + 100 * ME + I
            RBUF(I) = -1
            DONE(I) = .FALSE.
            DONE(20 + I) = .FALSE.
            CALL MPI_IRECV(RBUF(I), 1, MPI_INTEGER, LEFT, 200 + I,
     &           MPI_COMM_WORLD, REQS(I), IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_IRECV many')
         END DO
         DO I = 20, 1, -1
            CALL MPI_ISEND(SBUF(I), 1, MPI_INTEGER, RIGHT, 200 + I,
     &           MPI_COMM_WORLD, REQS(20 + I), IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_ISEND many')
         END DO
         IF (ROUND .EQ. 1) THEN
            DO J = 1, 40
               STATS(MPI_SOURCE, J) = -5
               STATS(MPI_TAG, J) = -5
            END DO
            CALL MPI_WAITALL(40, REQS, STATS, IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAITALL many')
            DO J = 1, 20
               CALL CHECK(STATS(MPI_SOURCE, J) .EQ. LEFT .AND.
     &              STATS(MPI_TAG, J) .EQ. 200 + J, 'pt2pt',
     &              'MPI_WAITALL of 40: a receive''s status')
            END DO
         ELSE
            NDONE = 0
   60       CONTINUE
            CALL MPI_WAITSOME(40, REQS, OUTCNT, INDICES, STATS, IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAITSOME many')
            CALL CHECK(OUTCNT .GE. 1 .AND. OUTCNT .LE. 40, 'pt2pt',
     &           'MPI_WAITSOME of 40: OUTCOUNT')
            DO J = 1, OUTCNT
               IDX = INDICES(J)
               CALL CHECK(IDX .GE. 1 .AND. IDX .LE. 40, 'pt2pt',
     &              'MPI_WAITSOME of 40: index out of range')
               CALL CHECK(.NOT. DONE(IDX), 'pt2pt',
     &              'MPI_WAITSOME of 40: an index came twice')
               DONE(IDX) = .TRUE.
               IF (IDX .LE. 20) THEN
                  CALL CHECK(STATS(MPI_SOURCE, J) .EQ. LEFT .AND.
     &                 STATS(MPI_TAG, J) .EQ. 200 + IDX, 'pt2pt',
     &                 'MPI_WAITSOME of 40: a receive''s status')
               END IF
            END DO
            NDONE = NDONE + OUTCNT
            IF (NDONE .LT. 40) GO TO 60
         END IF
         DO I = 1, 20
            CALL CHECK(RBUF(I) .EQ. 1000 * ROUND + 100 * LEFT + I,
     &           'pt2pt', 'many requests: data')
         END DO
         DO J = 1, 40
            CALL CHECK(REQS(J) .EQ. MPI_REQUEST_NULL, 'pt2pt',
     &           'many requests: a request not freed')
         END DO
      END DO
      END

! MPI_REQUEST_FREE of an active send: the message is still delivered.
      SUBROUTINE TFREE(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      INTEGER IERR, REQ, RIGHT, LEFT, SBUF(3), RBUF(3), I
      COMMON /BFREE/ SBUF, RBUF
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME + NP - 1, NP)
      DO I = 1, 3
         SBUF(I) = 40 * ME + I
         RBUF(I) = -1
      END DO
      CALL MPI_ISEND(SBUF, 3, MPI_INTEGER, RIGHT, 180, MPI_COMM_WORLD,
     &     REQ, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_ISEND to free')
      CALL MPI_REQUEST_FREE(REQ, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_REQUEST_FREE active send')
      CALL CHECK(REQ .EQ. MPI_REQUEST_NULL, 'pt2pt',
     &     'MPI_REQUEST_FREE of an active send: not MPI_REQUEST_NULL')
      CALL MPI_RECV(RBUF, 3, MPI_INTEGER, LEFT, 180, MPI_COMM_WORLD,
     &     MPI_STATUS_IGNORE, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV of a freed send')
      DO I = 1, 3
         CALL CHECK(RBUF(I) .EQ. 40 * LEFT + I, 'pt2pt',
     &        'freed send: data')
      END DO
!     The sender may reuse the buffer only once it knows the message
!     arrived: the barrier after the receive says so.
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_BARRIER')
      END

! MPI_SENDRECV and MPI_SENDRECV_REPLACE around the ring.
      SUBROUTINE TRING(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      INTEGER IERR, I, N, RIGHT, LEFT, SBUF(5), RBUF(5)
      INTEGER STATUS(MPI_STATUS_SIZE)
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME + NP - 1, NP)
      DO I = 1, 5
         SBUF(I) = 100 * ME + I
         RBUF(I) = -1
      END DO
      CALL MPI_SENDRECV(SBUF, 5, MPI_INTEGER, RIGHT, 130, RBUF, 5,
     &     MPI_INTEGER, LEFT, 130, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_SENDRECV')
      CALL CHECK(STATUS(MPI_SOURCE) .EQ. LEFT .AND.
     &     STATUS(MPI_TAG) .EQ. 130, 'pt2pt', 'MPI_SENDRECV: status')
      DO I = 1, 5
         CALL CHECK(RBUF(I) .EQ. 100 * LEFT + I, 'pt2pt',
     &        'MPI_SENDRECV: data')
         CALL CHECK(SBUF(I) .EQ. 100 * ME + I, 'pt2pt',
     &        'MPI_SENDRECV: send buffer changed')
      END DO
!     Replace: send tag 131, receive any tag from anyone, 3 of 5.
      CALL MPI_SENDRECV_REPLACE(SBUF, 3, MPI_INTEGER, RIGHT, 131,
     &     MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_SENDRECV_REPLACE')
      CALL CHECK(STATUS(MPI_SOURCE) .EQ. LEFT .AND.
     &     STATUS(MPI_TAG) .EQ. 131, 'pt2pt',
     &     'MPI_SENDRECV_REPLACE: status')
      CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, N, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_GET_COUNT replace')
      CALL CHECK(N .EQ. 3, 'pt2pt', 'MPI_SENDRECV_REPLACE: count')
      DO I = 1, 3
         CALL CHECK(SBUF(I) .EQ. 100 * LEFT + I, 'pt2pt',
     &        'MPI_SENDRECV_REPLACE: data')
      END DO
      DO I = 4, 5
         CALL CHECK(SBUF(I) .EQ. 100 * ME + I, 'pt2pt',
     &        'MPI_SENDRECV_REPLACE: beyond COUNT changed')
      END DO
      END

! Persistent requests around the ring: MPI_SEND_INIT/MPI_RECV_INIT,
! three rounds started by MPI_STARTALL or MPI_START, each completed with
! MPI_WAITALL (the handles stay, inactive), then MPI_REQUEST_FREE.
      SUBROUTINE TPERS(ME, NP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME, NP
      INTEGER IERR, I, ROUND, RIGHT, LEFT, REQS(2), KEEP(2)
      INTEGER SBUF(4), RBUF(4), STATS(MPI_STATUS_SIZE, 2)
      COMMON /BPERS/ SBUF, RBUF
      RIGHT = MOD(ME + 1, NP)
      LEFT = MOD(ME + NP - 1, NP)
      CALL MPI_RECV_INIT(RBUF, 4, MPI_INTEGER, LEFT, 140,
     &     MPI_COMM_WORLD, REQS(1), IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV_INIT')
      CALL MPI_SEND_INIT(SBUF, 4, MPI_INTEGER, RIGHT, 140,
     &     MPI_COMM_WORLD, REQS(2), IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND_INIT')
      KEEP(1) = REQS(1)
      KEEP(2) = REQS(2)
      DO ROUND = 1, 3
         DO I = 1, 4
            SBUF(I) = 1000 * ROUND + 10 * ME + I
            RBUF(I) = -1
         END DO
         IF (ROUND .EQ. 2) THEN
            CALL MPI_START(REQS(1), IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_START recv')
            CALL MPI_START(REQS(2), IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_START send')
         ELSE
            CALL MPI_STARTALL(2, REQS, IERR)
            CALL CHECKRC(IERR, 'pt2pt', 'MPI_STARTALL')
         END IF
         CALL MPI_WAITALL(2, REQS, STATS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAITALL persistent')
         CALL CHECK(REQS(1) .EQ. KEEP(1) .AND. REQS(2) .EQ. KEEP(2),
     &        'pt2pt', 'persistent request changed by MPI_WAITALL')
         CALL CHECK(STATS(MPI_SOURCE, 1) .EQ. LEFT .AND.
     &        STATS(MPI_TAG, 1) .EQ. 140, 'pt2pt',
     &        'persistent receive: status')
         DO I = 1, 4
            CALL CHECK(RBUF(I) .EQ. 1000 * ROUND + 10 * LEFT + I,
     &           'pt2pt', 'persistent: data')
         END DO
      END DO
      CALL MPI_REQUEST_FREE(REQS(1), IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_REQUEST_FREE recv')
      CALL MPI_REQUEST_FREE(REQS(2), IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_REQUEST_FREE send')
      CALL CHECK(REQS(1) .EQ. MPI_REQUEST_NULL .AND.
     &     REQS(2) .EQ. MPI_REQUEST_NULL, 'pt2pt',
     &     'MPI_REQUEST_FREE: not MPI_REQUEST_NULL')
      END

! A receive that nothing matches, cancelled: MPI_WAIT completes it and
! MPI_TEST_CANCELLED gives .TRUE.; a completed receive is not cancelled.
      SUBROUTINE TCANCL
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, REQ, BUF(2), STATUS(MPI_STATUS_SIZE)
      INTEGER ME, NP
      LOGICAL FLAG
      COMMON /BCANCL/ BUF
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL MPI_IRECV(BUF, 2, MPI_INTEGER, MPI_ANY_SOURCE, 12345,
     &     MPI_COMM_WORLD, REQ, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_IRECV to cancel')
      CALL MPI_CANCEL(REQ, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_CANCEL')
      CALL MPI_WAIT(REQ, STATUS, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAIT cancelled')
      CALL CHECK(REQ .EQ. MPI_REQUEST_NULL, 'pt2pt',
     &     'MPI_WAIT cancelled: request not freed')
      FLAG = .FALSE.
      CALL MPI_TEST_CANCELLED(STATUS, FLAG, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_TEST_CANCELLED')
      CALL CHECK(FLAG, 'pt2pt',
     &     'MPI_TEST_CANCELLED of a cancelled receive not .TRUE.')
!     A receive that completes normally is not cancelled.
      BUF(1) = ME
      CALL MPI_SENDRECV(BUF(1), 1, MPI_INTEGER, MOD(ME + 1, NP), 150,
     &     BUF(2), 1, MPI_INTEGER, MOD(ME + NP - 1, NP), 150,
     &     MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_SENDRECV cancel')
      FLAG = .TRUE.
      CALL MPI_TEST_CANCELLED(STATUS, FLAG, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_TEST_CANCELLED done')
      CALL CHECK(.NOT. FLAG, 'pt2pt',
     &     'MPI_TEST_CANCELLED of a completed receive not .FALSE.')
      END

! MPI_PROC_NULL: sends succeed at once, receives complete with source
! MPI_PROC_NULL, tag MPI_ANY_TAG, count 0, and leave the buffer alone.
      SUBROUTINE TNULL
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, N, REQ, BUF(3), STATUS(MPI_STATUS_SIZE)
      INTEGER PREQ(2), STATS(MPI_STATUS_SIZE, 2)
      LOGICAL FLAG
      COMMON /BNULL/ BUF
      BUF(1) = 1
      BUF(2) = 2
      BUF(3) = 3
      CALL MPI_SEND(BUF, 3, MPI_INTEGER, MPI_PROC_NULL, 160,
     &     MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND MPI_PROC_NULL')
      CALL MPI_RECV(BUF, 3, MPI_INTEGER, MPI_PROC_NULL, 160,
     &     MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV MPI_PROC_NULL')
      CALL CHECK(STATUS(MPI_SOURCE) .EQ. MPI_PROC_NULL, 'pt2pt',
     &     'MPI_RECV MPI_PROC_NULL: source')
      CALL CHECK(STATUS(MPI_TAG) .EQ. MPI_ANY_TAG, 'pt2pt',
     &     'MPI_RECV MPI_PROC_NULL: tag')
      CALL MPI_GET_COUNT(STATUS, MPI_INTEGER, N, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_GET_COUNT proc null')
      CALL CHECK(N .EQ. 0, 'pt2pt', 'MPI_RECV MPI_PROC_NULL: count')
      CALL CHECK(BUF(1) .EQ. 1 .AND. BUF(2) .EQ. 2 .AND.
     &     BUF(3) .EQ. 3, 'pt2pt', 'MPI_RECV MPI_PROC_NULL: buffer')
      CALL MPI_IRECV(BUF, 3, MPI_INTEGER, MPI_PROC_NULL, 161,
     &     MPI_COMM_WORLD, REQ, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_IRECV MPI_PROC_NULL')
      CALL MPI_WAIT(REQ, STATUS, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAIT MPI_PROC_NULL')
      CALL CHECK(STATUS(MPI_SOURCE) .EQ. MPI_PROC_NULL, 'pt2pt',
     &     'MPI_IRECV MPI_PROC_NULL: source')
      CALL MPI_SENDRECV(BUF, 1, MPI_INTEGER, MPI_PROC_NULL, 162,
     &     BUF(2), 1, MPI_INTEGER, MPI_PROC_NULL, 162, MPI_COMM_WORLD,
     &     STATUS, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_SENDRECV MPI_PROC_NULL')
      CALL CHECK(BUF(2) .EQ. 2, 'pt2pt',
     &     'MPI_SENDRECV MPI_PROC_NULL: buffer')
!     Probes of MPI_PROC_NULL find an empty message at once.
      FLAG = .FALSE.
      CALL MPI_IPROBE(MPI_PROC_NULL, 163, MPI_COMM_WORLD, FLAG, STATUS,
     &     IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_IPROBE MPI_PROC_NULL')
      CALL CHECK(FLAG .AND. STATUS(MPI_SOURCE) .EQ. MPI_PROC_NULL,
     &     'pt2pt', 'MPI_IPROBE MPI_PROC_NULL: flag or source')
      CALL MPI_PROBE(MPI_PROC_NULL, 163, MPI_COMM_WORLD, STATUS, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_PROBE MPI_PROC_NULL')
      CALL CHECK(STATUS(MPI_SOURCE) .EQ. MPI_PROC_NULL, 'pt2pt',
     &     'MPI_PROBE MPI_PROC_NULL: source')
!     Persistent requests with MPI_PROC_NULL.
      CALL MPI_SEND_INIT(BUF, 3, MPI_INTEGER, MPI_PROC_NULL, 164,
     &     MPI_COMM_WORLD, PREQ(1), IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND_INIT MPI_PROC_NULL')
      CALL MPI_RECV_INIT(BUF, 3, MPI_INTEGER, MPI_PROC_NULL, 164,
     &     MPI_COMM_WORLD, PREQ(2), IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_RECV_INIT MPI_PROC_NULL')
      CALL MPI_STARTALL(2, PREQ, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_STARTALL MPI_PROC_NULL')
      CALL MPI_WAITALL(2, PREQ, STATS, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_WAITALL MPI_PROC_NULL')
      CALL CHECK(STATS(MPI_SOURCE, 2) .EQ. MPI_PROC_NULL .AND.
     &     STATS(MPI_TAG, 2) .EQ. MPI_ANY_TAG, 'pt2pt',
     &     'persistent receive from MPI_PROC_NULL: status')
      CALL MPI_REQUEST_FREE(PREQ(1), IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_REQUEST_FREE')
      CALL MPI_REQUEST_FREE(PREQ(2), IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_REQUEST_FREE')
      CALL CHECK(BUF(1) .EQ. 1 .AND. BUF(2) .EQ. 2 .AND.
     &     BUF(3) .EQ. 3, 'pt2pt', 'MPI_PROC_NULL: buffer changed')
      END

! Truncation with MPI_ERRORS_RETURN on MPI_COMM_WORLD: rank 0 sends 10
! INTEGERs that rank 1 receives into 5, getting an error of class
! MPI_ERR_TRUNCATE; then two receives completed by MPI_WAITALL, one of
! them truncated: MPI_ERR_IN_STATUS, and the MPI_ERROR fields are
! MPI_SUCCESS and a code of class MPI_ERR_TRUNCATE.
      SUBROUTINE TTRUNC(ME)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER ME
      INTEGER IERR, RC, CLASS, I, BUF(10), RBUF(10), REQS(2)
      INTEGER STATUS(MPI_STATUS_SIZE), STATS(MPI_STATUS_SIZE, 2)
      COMMON /BTRUNC/ BUF, RBUF
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_ERRHANDLER_SET')
      IF (ME .EQ. 0) THEN
         DO I = 1, 10
            BUF(I) = I
         END DO
         CALL MPI_SEND(BUF, 10, MPI_INTEGER, 1, 170, MPI_COMM_WORLD,
     &        IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND 10')
         CALL MPI_SEND(BUF, 5, MPI_INTEGER, 1, 171, MPI_COMM_WORLD,
     &        IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND 5')
         CALL MPI_SEND(BUF, 10, MPI_INTEGER, 1, 172, MPI_COMM_WORLD,
     &        IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_SEND 10 again')
      ELSE IF (ME .EQ. 1) THEN
         DO I = 1, 10
            RBUF(I) = -1
         END DO
         CALL MPI_RECV(RBUF, 5, MPI_INTEGER, 0, 170, MPI_COMM_WORLD,
     &        STATUS, IERR)
         CALL CHECK(IERR .NE. MPI_SUCCESS, 'pt2pt',
     &        'truncated MPI_RECV returned MPI_SUCCESS')
         CALL MPI_ERROR_CLASS(IERR, CLASS, RC)
         CALL CHECKRC(RC, 'pt2pt', 'MPI_ERROR_CLASS')
         CALL CHECK(CLASS .EQ. MPI_ERR_TRUNCATE, 'pt2pt',
     &        'truncated MPI_RECV: class not MPI_ERR_TRUNCATE')
         DO I = 6, 10
            CALL CHECK(RBUF(I) .EQ. -1, 'pt2pt',
     &           'truncated MPI_RECV wrote beyond COUNT')
         END DO
         CALL MPI_IRECV(RBUF, 5, MPI_INTEGER, 0, 171, MPI_COMM_WORLD,
     &        REQS(1), IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_IRECV fits')
         CALL MPI_IRECV(BUF, 2, MPI_INTEGER, 0, 172, MPI_COMM_WORLD,
     &        REQS(2), IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_IRECV truncated')
         STATS(MPI_ERROR, 1) = -5
         STATS(MPI_ERROR, 2) = -5
         CALL MPI_WAITALL(2, REQS, STATS, IERR)
         CALL MPI_ERROR_CLASS(IERR, CLASS, RC)
         CALL CHECKRC(RC, 'pt2pt', 'MPI_ERROR_CLASS waitall')
         CALL CHECK(CLASS .EQ. MPI_ERR_IN_STATUS, 'pt2pt',
     &        'MPI_WAITALL with a truncation: not MPI_ERR_IN_STATUS')
         CALL CHECK(STATS(MPI_ERROR, 1) .EQ. MPI_SUCCESS, 'pt2pt',
     &        'MPI_WAITALL: STATUSES(MPI_ERROR, 1) not MPI_SUCCESS')
         CALL MPI_ERROR_CLASS(STATS(MPI_ERROR, 2), CLASS, IERR)
         CALL CHECKRC(IERR, 'pt2pt', 'MPI_ERROR_CLASS 2')
         CALL CHECK(CLASS .EQ. MPI_ERR_TRUNCATE, 'pt2pt',
     &        'MPI_WAITALL: STATUSES(MPI_ERROR, 2) not TRUNCATE')
         CALL CHECK(STATS(MPI_SOURCE, 2) .EQ. 0 .AND.
     &        STATS(MPI_TAG, 2) .EQ. 172, 'pt2pt',
     &        'MPI_WAITALL truncated: source/tag')
         DO I = 1, 5
            CALL CHECK(RBUF(I) .EQ. I, 'pt2pt',
     &           'MPI_WAITALL: data of the receive that fits')
         END DO
      END IF
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL,
     &     IERR)
      CALL CHECKRC(IERR, 'pt2pt', 'MPI_ERRHANDLER_SET fatal')
      END
