! info.f: info objects through the Fortran 77 bindings.
! MPI_INFO_CREATE, MPI_INFO_SET (leading and trailing blanks of keys and
! values are not part of them), MPI_INFO_GET_NKEYS, MPI_INFO_GET_NTHKEY
! (keys numbered from 0 in the order they were first set),
! MPI_INFO_DELETE, MPI_INFO_FREE (the handle becomes MPI_INFO_NULL);
! MPI_INFO_GET (at most VALUELEN characters, cut to LEN(VALUE), padded
! with blanks; VALUE kept and FLAG .FALSE. for a missing key) and
! MPI_INFO_GET_VALUELEN; MPI_INFO_DUP (an independent copy); and under
! MPI_ERRORS_RETURN the classes MPI_ERR_INFO_NOKEY, MPI_ERR_INFO_KEY,
! MPI_ERR_INFO_VALUE, MPI_ERR_INFO and MPI_ERR_ARG. Runs on 1 or 2
! processes (info objects are local).
      PROGRAM INFOS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR
      CALL MPI_INIT(IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INIT')
      CALL TBASIC
      CALL TGET
      CALL TDUP
      CALL TERRS
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_BARRIER')
      CALL MPI_FINALIZE(IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_FINALIZE')
      END

! The N-th key of INFO must be WANT.
      SUBROUTINE NTHIS(INFO, N, WANT, WHAT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER INFO, N
      CHARACTER*(*) WANT, WHAT
      CHARACTER*(MPI_MAX_INFO_KEY) KEY
      INTEGER IERR
      KEY = '?'
      CALL MPI_INFO_GET_NTHKEY(INFO, N, KEY, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_GET_NTHKEY')
      CALL CHECK(KEY .EQ. WANT, 'info', WHAT // ': wrong key')
      END

! INFO holds N keys.
      SUBROUTINE NKEYS(INFO, N, WHAT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER INFO, N
      CHARACTER*(*) WHAT
      INTEGER IERR, GOT
      GOT = -1
      CALL MPI_INFO_GET_NKEYS(INFO, GOT, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_GET_NKEYS')
      CALL CHECK(GOT .EQ. N, 'info', WHAT // ': wrong number of keys')
      END

! CODE is an error of class CLASS.
      SUBROUTINE INCLAS(CODE, CLASS, WHAT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER CODE, CLASS
      CHARACTER*(*) WHAT
      INTEGER IERR, C
      CALL CHECK(CODE .NE. MPI_SUCCESS, 'info',
     &     WHAT // ': returned MPI_SUCCESS')
      C = -1
      CALL MPI_ERROR_CLASS(CODE, C, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_ERROR_CLASS')
      CALL CHECK(C .EQ. CLASS, 'info', WHAT // ': wrong error class')
      END

! Set, the order of the keys, a new value, delete, free.
      SUBROUTINE TBASIC
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER INFO, IERR, VLEN
      LOGICAL FLAG
      CALL MPI_INFO_CREATE(INFO, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_CREATE')
      CALL CHECK(INFO .NE. MPI_INFO_NULL, 'info',
     &     'MPI_INFO_CREATE gave MPI_INFO_NULL')
      CALL NKEYS(INFO, 0, 'a new info')
      CALL MPI_INFO_SET(INFO, '  color  ', '  blue  ', IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_SET color')
      CALL MPI_INFO_SET(INFO, 'shape', 'round', IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_SET shape')
      CALL MPI_INFO_SET(INFO, 'size', 'large', IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_SET size')
      CALL NKEYS(INFO, 3, 'three keys')
      CALL NTHIS(INFO, 0, 'color', 'key 0 of three')
      CALL NTHIS(INFO, 1, 'shape', 'key 1 of three')
      CALL NTHIS(INFO, 2, 'size', 'key 2 of three')
!     The blanks around ' blue ' are gone: 4 characters.
      VLEN = -1
      CALL MPI_INFO_GET_VALUELEN(INFO, 'color', VLEN, FLAG, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_GET_VALUELEN color')
      CALL CHECK(FLAG .AND. VLEN .EQ. 4, 'info',
     &     'the value of color is not blue without blanks')
!     A new value keeps the key's place.
      CALL MPI_INFO_SET(INFO, 'shape', 'square', IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_SET shape again')
      CALL NTHIS(INFO, 1, 'shape', 'shape set again')
      VLEN = -1
      CALL MPI_INFO_GET_VALUELEN(INFO, ' shape ', VLEN, FLAG, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_GET_VALUELEN shape')
      CALL CHECK(FLAG .AND. VLEN .EQ. 6, 'info',
     &     'the value of shape is not square')
      CALL MPI_INFO_DELETE(INFO, 'color', IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_DELETE color')
      CALL NKEYS(INFO, 2, 'color deleted')
      CALL NTHIS(INFO, 0, 'shape', 'key 0 after the delete')
      CALL NTHIS(INFO, 1, 'size', 'key 1 after the delete')
      CALL MPI_INFO_FREE(INFO, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_FREE')
      CALL CHECK(INFO .EQ. MPI_INFO_NULL, 'info',
     &     'MPI_INFO_FREE did not set MPI_INFO_NULL')
      END

! MPI_INFO_GET: VALUELEN, LEN(VALUE), a missing key; the longest key.
      SUBROUTINE TGET
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER INFO, IERR, VLEN
      LOGICAL FLAG
      CHARACTER*(MPI_MAX_INFO_VAL) VAL
      CHARACTER*4 SHORT
      CALL MPI_INFO_CREATE(INFO, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_CREATE')
      CALL MPI_INFO_SET(INFO, 'k', 'abcdefgh', IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_SET k')
      VAL = 'unchanged'
      FLAG = .FALSE.
      CALL MPI_INFO_GET(INFO, 'k', MPI_MAX_INFO_VAL, VAL, FLAG, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_GET k')
      CALL CHECK(FLAG .AND. VAL .EQ. 'abcdefgh', 'info',
     &     'MPI_INFO_GET k: not abcdefgh')
      VAL = 'unchanged'
      FLAG = .FALSE.
      CALL MPI_INFO_GET(INFO, 'k', 3, VAL, FLAG, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_GET k, VALUELEN 3')
      CALL CHECK(FLAG .AND. VAL .EQ. 'abc', 'info',
     &     'MPI_INFO_GET with VALUELEN 3: not abc')
      SHORT = 'xxxx'
      CALL MPI_INFO_GET(INFO, 'k', 100, SHORT, FLAG, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_GET k into CHARACTER*4')
      CALL CHECK(FLAG .AND. SHORT .EQ. 'abcd', 'info',
     &     'MPI_INFO_GET into CHARACTER*4: not abcd')
!     A missing key: FLAG .FALSE., VALUE and VALUELEN kept.
      VAL = 'unchanged'
      FLAG = .TRUE.
      CALL MPI_INFO_GET(INFO, 'nokey', 10, VAL, FLAG, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_GET nokey')
      CALL CHECK(.NOT. FLAG, 'info', 'MPI_INFO_GET found nokey')
      CALL CHECK(VAL .EQ. 'unchanged', 'info',
     &     'MPI_INFO_GET of a missing key changed VALUE')
      VLEN = -5
      FLAG = .TRUE.
      CALL MPI_INFO_GET_VALUELEN(INFO, 'nokey', VLEN, FLAG, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_GET_VALUELEN nokey')
      CALL CHECK(.NOT. FLAG .AND. VLEN .EQ. -5, 'info',
     &     'MPI_INFO_GET_VALUELEN of a missing key')
!     The longest key, MPI_MAX_INFO_KEY - 1 characters.
      CALL MPI_INFO_SET(INFO, REPEAT('K', MPI_MAX_INFO_KEY - 1),
     &     'long', IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_SET of the longest key')
      CALL NTHIS(INFO, 1, REPEAT('K', MPI_MAX_INFO_KEY - 1),
     &     'the longest key')
      CALL MPI_INFO_FREE(INFO, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_FREE')
      END

! MPI_INFO_DUP: the same keys in the same order, changed separately.
      SUBROUTINE TDUP
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER INFO, NEW, IERR
      LOGICAL FLAG
      CHARACTER*8 VAL
      CALL MPI_INFO_CREATE(INFO, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_CREATE')
      CALL MPI_INFO_SET(INFO, 'b', '2', IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_SET b')
      CALL MPI_INFO_SET(INFO, 'a', '1', IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_SET a')
      CALL MPI_INFO_DUP(INFO, NEW, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_DUP')
      CALL CHECK(NEW .NE. INFO .AND. NEW .NE. MPI_INFO_NULL, 'info',
     &     'MPI_INFO_DUP gave no new handle')
      CALL MPI_INFO_DELETE(INFO, 'a', IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_DELETE a')
      CALL MPI_INFO_SET(INFO, 'c', '3', IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_SET c')
      CALL NKEYS(NEW, 2, 'the duplicate')
      CALL NTHIS(NEW, 0, 'b', 'key 0 of the duplicate')
      CALL NTHIS(NEW, 1, 'a', 'key 1 of the duplicate')
      VAL = ' '
      CALL MPI_INFO_GET(NEW, 'a', 8, VAL, FLAG, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_GET a of the duplicate')
      CALL CHECK(FLAG .AND. VAL .EQ. '1', 'info',
     &     'the duplicate lost a')
      CALL MPI_INFO_GET(NEW, 'c', 8, VAL, FLAG, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_GET c of the duplicate')
      CALL CHECK(.NOT. FLAG, 'info', 'the duplicate got c')
      CALL MPI_INFO_FREE(INFO, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_FREE')
      CALL NKEYS(NEW, 2, 'the duplicate of a freed info')
      CALL MPI_INFO_FREE(NEW, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_FREE of the duplicate')
      END

! The error classes, with MPI_ERRORS_RETURN.
      SUBROUTINE TERRS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER INFO, IERR, N
      CHARACTER*(MPI_MAX_INFO_KEY) KEY
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD, MPI_ERRORS_RETURN,
     &     IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_COMM_SET_ERRHANDLER')
      CALL MPI_INFO_CREATE(INFO, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_CREATE')
      CALL MPI_INFO_SET(INFO, 'k', 'v', IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_SET k')
      CALL MPI_INFO_DELETE(INFO, 'nokey', IERR)
      CALL INCLAS(IERR, MPI_ERR_INFO_NOKEY,
     &     'MPI_INFO_DELETE of a missing key')
      CALL MPI_INFO_SET(INFO, REPEAT('K', MPI_MAX_INFO_KEY + 10), 'v',
     &     IERR)
      CALL INCLAS(IERR, MPI_ERR_INFO_KEY, 'MPI_INFO_SET of a long key')
      CALL MPI_INFO_SET(INFO, 'k', REPEAT('V', MPI_MAX_INFO_VAL + 10),
     &     IERR)
      CALL INCLAS(IERR, MPI_ERR_INFO_VALUE,
     &     'MPI_INFO_SET of a long value')
      CALL MPI_INFO_SET(INFO, '    ', 'v', IERR)
      CALL INCLAS(IERR, MPI_ERR_INFO_KEY, 'MPI_INFO_SET of a blank key')
      CALL MPI_INFO_GET_NTHKEY(INFO, 1, KEY, IERR)
      CALL INCLAS(IERR, MPI_ERR_ARG, 'MPI_INFO_GET_NTHKEY(1) of 1 key')
      CALL NKEYS(INFO, 1, 'the info after the errors')
      CALL MPI_INFO_FREE(INFO, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_INFO_FREE')
      CALL MPI_INFO_GET_NKEYS(INFO, N, IERR)
      CALL INCLAS(IERR, MPI_ERR_INFO,
     &     'MPI_INFO_GET_NKEYS of MPI_INFO_NULL')
      CALL MPI_INFO_FREE(INFO, IERR)
      CALL INCLAS(IERR, MPI_ERR_INFO, 'MPI_INFO_FREE of MPI_INFO_NULL')
      CALL MPI_COMM_SET_ERRHANDLER(MPI_COMM_WORLD,
     &     MPI_ERRORS_ARE_FATAL, IERR)
      CALL CHECKRC(IERR, 'info', 'MPI_COMM_SET_ERRHANDLER')
      END
