! errors.f: error handling and the environment through the Fortran 77
! bindings. MPI_ERRORS_RETURN on MPI_COMM_WORLD with the codes of an
! invalid rank, count, datatype, tag and communicator;
! MPI_ERROR_CLASS and MPI_ERROR_STRING (blank padding after RESULTLEN);
! error handlers written in Fortran (MPI_ERRHANDLER_CREATE/SET/GET/FREE,
! MPI_COMM_CREATE_ERRHANDLER/MPI_COMM_SET_ERRHANDLER/
! MPI_COMM_GET_ERRHANDLER/MPI_COMM_CALL_ERRHANDLER) and their
! inheritance by MPI_COMM_DUP; MPI_GET_PROCESSOR_NAME, MPI_GET_VERSION,
! MPI_INITIALIZED/MPI_FINALIZED, MPI_WTIME/MPI_WTICK, MPI_PCONTROL,
! MPI_QUERY_THREAD and MPI_IS_THREAD_MAIN. Runs on 1 to 4 processes.
      PROGRAM ERRORS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR
      LOGICAL INIT0, FIN0, INIT1, FIN1
      INIT0 = .TRUE.
      FIN0 = .TRUE.
      CALL MPI_INITIALIZED(INIT0, IERR)
      IF (IERR .NE. MPI_SUCCESS) THEN
         WRITE (0, *) 'errors: MPI_INITIALIZED before MPI_INIT failed'
         STOP 1
      END IF
      CALL MPI_FINALIZED(FIN0, IERR)
      IF (IERR .NE. MPI_SUCCESS) THEN
         WRITE (0, *) 'errors: MPI_FINALIZED before MPI_INIT failed'
         STOP 1
      END IF
      CALL MPI_INIT(IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_INIT')
      CALL CHECK(.NOT. INIT0, 'errors',
     &     'MPI_INITIALIZED before MPI_INIT not .FALSE.')
      CALL CHECK(.NOT. FIN0, 'errors',
     &     'MPI_FINALIZED before MPI_INIT not .FALSE.')
      CALL MPI_INITIALIZED(INIT1, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_INITIALIZED')
      CALL CHECK(INIT1, 'errors',
     &     'MPI_INITIALIZED after MPI_INIT not .TRUE.')
      CALL CHECK(INIT1 .EQV. .TRUE., 'errors',
     &     'MPI_INITIALIZED: flag not .EQV. .TRUE.')
      CALL MPI_FINALIZED(FIN1, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_FINALIZED')
      CALL CHECK(.NOT. FIN1, 'errors',
     &     'MPI_FINALIZED before MPI_FINALIZE not .FALSE.')
      CALL TENV
      CALL TCODES
      CALL TSTRS
      CALL TUSER
      CALL TCOMMH
      CALL MPI_BARRIER(MPI_COMM_WORLD, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_BARRIER')
      CALL MPI_FINALIZE(IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_FINALIZE')
!     After MPI_FINALIZE, CHECK (which calls MPI) cannot report.
      FIN1 = .FALSE.
      CALL MPI_FINALIZED(FIN1, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. .NOT. FIN1) THEN
         WRITE (0, *) 'errors: MPI_FINALIZED after MPI_FINALIZE',
     &        ' not .TRUE.'
         STOP 1
      END IF
      INIT1 = .FALSE.
      CALL MPI_INITIALIZED(INIT1, IERR)
      IF (IERR .NE. MPI_SUCCESS .OR. .NOT. INIT1) THEN
         WRITE (0, *) 'errors: MPI_INITIALIZED after MPI_FINALIZE',
     &        ' not .TRUE.'
         STOP 1
      END IF
      END

! The environment: version, processor name, clocks, MPI_PCONTROL,
! thread level.
      SUBROUTINE TENV
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, V, SV, LEN, I, PROV
      CHARACTER*(MPI_MAX_PROCESSOR_NAME) NAME
      DOUBLE PRECISION T0, T1, TICK
      LOGICAL FLAG
      CALL MPI_GET_VERSION(V, SV, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_GET_VERSION')
      CALL CHECK(V .EQ. MPI_VERSION .AND. SV .EQ. MPI_SUBVERSION,
     &     'errors', 'MPI_GET_VERSION differs from mpif.h')
      CALL CHECK(V .GE. 1, 'errors', 'MPI_GET_VERSION below 1')
      DO I = 1, MPI_MAX_PROCESSOR_NAME
         NAME(I:I) = 'X'
      END DO
      LEN = -1
      CALL MPI_GET_PROCESSOR_NAME(NAME, LEN, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_GET_PROCESSOR_NAME')
      CALL CHECK(LEN .GT. 0 .AND. LEN .LE. MPI_MAX_PROCESSOR_NAME,
     &     'errors', 'MPI_GET_PROCESSOR_NAME: RESULTLEN out of range')
      CALL CHECK(NAME(LEN:LEN) .NE. ' ', 'errors',
     &     'MPI_GET_PROCESSOR_NAME: last character a blank')
      IF (LEN .LT. MPI_MAX_PROCESSOR_NAME) THEN
         CALL CHECK(NAME(LEN + 1:) .EQ. ' ', 'errors',
     &        'MPI_GET_PROCESSOR_NAME: not blank after RESULTLEN')
      END IF
      TICK = MPI_WTICK()
      CALL CHECK(TICK .GT. 0.0D0, 'errors', 'MPI_WTICK not positive')
      T0 = MPI_WTIME()
      DO I = 1, 100
         T1 = MPI_WTIME()
         CALL CHECK(T1 .GE. T0, 'errors', 'MPI_WTIME decreased')
         T0 = T1
      END DO
!     MPI_PCONTROL has no IERROR.
      CALL MPI_PCONTROL(0)
      CALL MPI_PCONTROL(1)
      CALL MPI_PCONTROL(2)
      PROV = -1
      CALL MPI_QUERY_THREAD(PROV, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_QUERY_THREAD')
      CALL CHECK(PROV .EQ. MPI_THREAD_SINGLE .OR.
     &     PROV .EQ. MPI_THREAD_FUNNELED .OR.
     &     PROV .EQ. MPI_THREAD_SERIALIZED .OR.
     &     PROV .EQ. MPI_THREAD_MULTIPLE, 'errors',
     &     'MPI_QUERY_THREAD: not a thread level')
      FLAG = .FALSE.
      CALL MPI_IS_THREAD_MAIN(FLAG, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_IS_THREAD_MAIN')
      CALL CHECK(FLAG, 'errors', 'MPI_IS_THREAD_MAIN not .TRUE.')
      END

! CODE must be an error whose class is CLASS.
      SUBROUTINE ISCLAS(CODE, CLASS, WHAT)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER CODE, CLASS
      CHARACTER*(*) WHAT
      INTEGER IERR, C
      CALL CHECK(CODE .NE. MPI_SUCCESS, 'errors',
     &     WHAT // ': returned MPI_SUCCESS')
      C = -1
      CALL MPI_ERROR_CLASS(CODE, C, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_ERROR_CLASS')
      CALL CHECK(C .EQ. CLASS, 'errors', WHAT // ': wrong error class')
      END

! MPI_ERRORS_ARE_FATAL is MPI_COMM_WORLD's handler at first; with
! MPI_ERRORS_RETURN, erroneous calls return codes of the right class.
      SUBROUTINE TCODES
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, NP, EH, BUF(4), C, I
      INTEGER STATUS(MPI_STATUS_SIZE)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_COMM_SIZE')
      CALL MPI_ERRHANDLER_GET(MPI_COMM_WORLD, EH, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_ERRHANDLER_GET')
      CALL CHECK(EH .EQ. MPI_ERRORS_ARE_FATAL, 'errors',
     &     'MPI_COMM_WORLD''s first handler not MPI_ERRORS_ARE_FATAL')
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_ERRHANDLER_SET')
      CALL MPI_ERRHANDLER_GET(MPI_COMM_WORLD, EH, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_ERRHANDLER_GET')
      CALL CHECK(EH .EQ. MPI_ERRORS_RETURN, 'errors',
     &     'MPI_ERRHANDLER_GET not MPI_ERRORS_RETURN')
      DO I = 1, 4
         BUF(I) = I
      END DO
      CALL MPI_SEND(BUF, 4, MPI_INTEGER, NP, 1, MPI_COMM_WORLD, IERR)
      CALL ISCLAS(IERR, MPI_ERR_RANK, 'MPI_SEND to rank NP')
      CALL MPI_SEND(BUF, 4, MPI_INTEGER, -5, 1, MPI_COMM_WORLD, IERR)
      CALL ISCLAS(IERR, MPI_ERR_RANK, 'MPI_SEND to rank -5')
      CALL MPI_RECV(BUF, 4, MPI_INTEGER, NP + 3, 1, MPI_COMM_WORLD,
     &     STATUS, IERR)
      CALL ISCLAS(IERR, MPI_ERR_RANK, 'MPI_RECV from rank NP+3')
      CALL MPI_SEND(BUF, -1, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, IERR)
      CALL ISCLAS(IERR, MPI_ERR_COUNT, 'MPI_SEND of count -1')
      CALL MPI_SEND(BUF, 4, MPI_DATATYPE_NULL, 0, 1, MPI_COMM_WORLD,
     &     IERR)
      CALL ISCLAS(IERR, MPI_ERR_TYPE, 'MPI_SEND of MPI_DATATYPE_NULL')
      CALL MPI_SEND(BUF, 4, MPI_INTEGER, 0, -7, MPI_COMM_WORLD, IERR)
      CALL ISCLAS(IERR, MPI_ERR_TAG, 'MPI_SEND with tag -7')
      CALL MPI_SEND(BUF, 4, MPI_INTEGER, 0, 1, MPI_COMM_NULL, IERR)
      CALL ISCLAS(IERR, MPI_ERR_COMM, 'MPI_SEND on MPI_COMM_NULL')
      CALL MPI_COMM_RANK(MPI_COMM_NULL, C, IERR)
      CALL ISCLAS(IERR, MPI_ERR_COMM, 'MPI_COMM_RANK of MPI_COMM_NULL')
      CALL MPI_TYPE_SIZE(MPI_DATATYPE_NULL, C, IERR)
      CALL ISCLAS(IERR, MPI_ERR_TYPE,
     &     'MPI_TYPE_SIZE of MPI_DATATYPE_NULL')
!     Nothing was sent: the buffer is as it was.
      DO I = 1, 4
         CALL CHECK(BUF(I) .EQ. I, 'errors',
     &        'an erroneous call changed the buffer')
      END DO
!     The classes are their own classes.
      CALL MPI_ERROR_CLASS(MPI_ERR_TRUNCATE, C, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_ERROR_CLASS')
      CALL CHECK(C .EQ. MPI_ERR_TRUNCATE, 'errors',
     &     'class of MPI_ERR_TRUNCATE')
      CALL MPI_ERROR_CLASS(MPI_SUCCESS, C, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_ERROR_CLASS')
      CALL CHECK(C .EQ. MPI_SUCCESS, 'errors', 'class of MPI_SUCCESS')
      END

! MPI_ERROR_STRING into CHARACTER*(MPI_MAX_ERROR_STRING) filled with
! X: RESULTLEN in range, the text ends at RESULTLEN, blanks after.
      SUBROUTINE ERRSTR(CODE, STR, LEN)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER CODE, LEN
      CHARACTER*(MPI_MAX_ERROR_STRING) STR
      INTEGER IERR, I
      DO I = 1, MPI_MAX_ERROR_STRING
         STR(I:I) = 'X'
      END DO
      LEN = -1
      CALL MPI_ERROR_STRING(CODE, STR, LEN, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_ERROR_STRING')
      CALL CHECK(LEN .GT. 0 .AND. LEN .LE. MPI_MAX_ERROR_STRING,
     &     'errors', 'MPI_ERROR_STRING: RESULTLEN out of range')
      CALL CHECK(STR(LEN:LEN) .NE. ' ', 'errors',
     &     'MPI_ERROR_STRING: a blank at RESULTLEN')
      IF (LEN .LT. MPI_MAX_ERROR_STRING) THEN
         CALL CHECK(STR(LEN + 1:) .EQ. ' ', 'errors',
     &        'MPI_ERROR_STRING: not blank after RESULTLEN')
      END IF
      DO I = 1, LEN
         CALL CHECK(STR(I:I) .NE. CHAR(0), 'errors',
     &        'MPI_ERROR_STRING: a NUL in the text')
      END DO
      END

! Error strings of classes and of a returned code.
      SUBROUTINE TSTRS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER IERR, CODE, NP, L1, L2, L3, BUF
      CHARACTER*(MPI_MAX_ERROR_STRING) S1, S2, S3
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_COMM_SIZE')
      CALL ERRSTR(MPI_ERR_RANK, S1, L1)
      CALL ERRSTR(MPI_ERR_COUNT, S2, L2)
      CALL CHECK(S1 .NE. S2, 'errors',
     &     'MPI_ERR_RANK and MPI_ERR_COUNT have the same string')
      CALL ERRSTR(MPI_SUCCESS, S3, L3)
!     A code returned (MPI_ERRORS_RETURN is still set).
      BUF = 0
      CALL MPI_SEND(BUF, 1, MPI_INTEGER, NP, 1, MPI_COMM_WORLD, CODE)
      CALL ISCLAS(CODE, MPI_ERR_RANK, 'MPI_SEND to rank NP')
      CALL ERRSTR(CODE, S3, L3)
      END

! A Fortran handler set with MPI_ERRHANDLER_SET: called once per error
! with MPI_COMM_WORLD and the code, which the call also returns; still
! in force after MPI_ERRHANDLER_FREE (the communicator holds it).
      SUBROUTINE TUSER
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NCALLS, HCODE, HCOMM
      COMMON /HREC/ NCALLS, HCODE, HCOMM
      EXTERNAL HANDLR
      INTEGER IERR, EH, EH2, NP, BUF, C
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_COMM_SIZE')
      NCALLS = 0
      HCODE = MPI_SUCCESS
      HCOMM = MPI_COMM_NULL
      CALL MPI_ERRHANDLER_CREATE(HANDLR, EH, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_ERRHANDLER_CREATE')
      CALL CHECK(EH .NE. MPI_ERRHANDLER_NULL, 'errors',
     &     'MPI_ERRHANDLER_CREATE gave MPI_ERRHANDLER_NULL')
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, EH, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_ERRHANDLER_SET user')
      CALL MPI_ERRHANDLER_GET(MPI_COMM_WORLD, EH2, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_ERRHANDLER_GET user')
      CALL CHECK(EH2 .EQ. EH, 'errors',
     &     'MPI_ERRHANDLER_GET: not the handler set')
      BUF = 1
      CALL MPI_SEND(BUF, 1, MPI_INTEGER, NP, 1, MPI_COMM_WORLD, IERR)
      CALL CHECK(NCALLS .EQ. 1, 'errors',
     &     'Fortran handler not called once')
      CALL CHECK(HCOMM .EQ. MPI_COMM_WORLD, 'errors',
     &     'Fortran handler: COMM not MPI_COMM_WORLD')
      CALL ISCLAS(HCODE, MPI_ERR_RANK, 'Fortran handler: CODE')
      CALL CHECK(IERR .EQ. HCODE, 'errors',
     &     'the call did not return the handler''s CODE')
!     Freed: the handle is MPI_ERRHANDLER_NULL, the handler stays.
      CALL MPI_ERRHANDLER_FREE(EH, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_ERRHANDLER_FREE')
      CALL CHECK(EH .EQ. MPI_ERRHANDLER_NULL, 'errors',
     &     'MPI_ERRHANDLER_FREE: not MPI_ERRHANDLER_NULL')
      CALL MPI_SEND(BUF, -3, MPI_INTEGER, 0, 1, MPI_COMM_WORLD, IERR)
      CALL CHECK(NCALLS .EQ. 2, 'errors',
     &     'Fortran handler not called after MPI_ERRHANDLER_FREE')
      CALL ISCLAS(HCODE, MPI_ERR_COUNT, 'Fortran handler: CODE 2')
      CALL ISCLAS(IERR, MPI_ERR_COUNT, 'Fortran handler: IERROR 2')
!     A call that succeeds does not call it.
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, C, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_COMM_RANK')
      CALL CHECK(NCALLS .EQ. 2, 'errors',
     &     'Fortran handler called without an error')
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_ERRHANDLER_SET return')
      CALL MPI_SEND(BUF, 1, MPI_INTEGER, NP, 1, MPI_COMM_WORLD, IERR)
      CALL ISCLAS(IERR, MPI_ERR_RANK, 'MPI_ERRORS_RETURN again')
      CALL CHECK(NCALLS .EQ. 2, 'errors',
     &     'Fortran handler called after it was replaced')
      END

! MPI-2 handlers on a duplicate of MPI_COMM_WORLD:
! MPI_COMM_CREATE_ERRHANDLER, MPI_COMM_SET_ERRHANDLER,
! MPI_COMM_GET_ERRHANDLER, MPI_COMM_CALL_ERRHANDLER (the handler gets
! the code given; the call returns MPI_SUCCESS), a real error, and
! MPI_COMM_DUP passing the handler on.
      SUBROUTINE TCOMMH
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NCALLS, HCODE, HCOMM
      COMMON /HREC/ NCALLS, HCODE, HCOMM
      EXTERNAL HANDLR
      INTEGER IERR, EH, EH2, DUPC, DUP2, NP, BUF
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_COMM_SIZE')
      NCALLS = 0
      CALL MPI_COMM_DUP(MPI_COMM_WORLD, DUPC, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_COMM_DUP')
      CALL MPI_COMM_CREATE_ERRHANDLER(HANDLR, EH, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_COMM_CREATE_ERRHANDLER')
      CALL MPI_COMM_SET_ERRHANDLER(DUPC, EH, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_COMM_SET_ERRHANDLER')
      CALL MPI_COMM_GET_ERRHANDLER(DUPC, EH2, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_COMM_GET_ERRHANDLER')
      CALL CHECK(EH2 .EQ. EH, 'errors',
     &     'MPI_COMM_GET_ERRHANDLER: not the handler set')
      CALL MPI_COMM_CALL_ERRHANDLER(DUPC, MPI_ERR_OTHER, IERR)
      CALL CHECK(IERR .EQ. MPI_SUCCESS, 'errors',
     &     'MPI_COMM_CALL_ERRHANDLER: handler returned, not SUCCESS')
      CALL CHECK(NCALLS .EQ. 1, 'errors',
     &     'MPI_COMM_CALL_ERRHANDLER: handler not called once')
      CALL CHECK(HCOMM .EQ. DUPC, 'errors',
     &     'MPI_COMM_CALL_ERRHANDLER: COMM not the duplicate')
      CALL CHECK(HCODE .EQ. MPI_ERR_OTHER, 'errors',
     &     'MPI_COMM_CALL_ERRHANDLER: CODE not the one given')
!     A real error on the duplicate.
      BUF = 0
      CALL MPI_SEND(BUF, 1, MPI_INTEGER, NP, 1, DUPC, IERR)
      CALL CHECK(NCALLS .EQ. 2 .AND. HCOMM .EQ. DUPC, 'errors',
     &     'handler of the duplicate not called with it')
      CALL ISCLAS(HCODE, MPI_ERR_RANK, 'handler of the duplicate')
      CALL ISCLAS(IERR, MPI_ERR_RANK, 'error on the duplicate')
!     MPI_COMM_WORLD keeps its own handler (MPI_ERRORS_RETURN).
      CALL MPI_SEND(BUF, 1, MPI_INTEGER, NP, 1, MPI_COMM_WORLD, IERR)
      CALL ISCLAS(IERR, MPI_ERR_RANK, 'error on MPI_COMM_WORLD')
      CALL CHECK(NCALLS .EQ. 2, 'errors',
     &     'the duplicate''s handler called for MPI_COMM_WORLD')
!     A duplicate of the duplicate inherits the handler.
      CALL MPI_COMM_DUP(DUPC, DUP2, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_COMM_DUP of the duplicate')
      CALL MPI_COMM_GET_ERRHANDLER(DUP2, EH2, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_COMM_GET_ERRHANDLER dup2')
      CALL CHECK(EH2 .EQ. EH, 'errors',
     &     'MPI_COMM_DUP did not pass the error handler on')
      CALL MPI_COMM_CALL_ERRHANDLER(DUP2, MPI_ERR_ARG, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_COMM_CALL_ERRHANDLER dup2')
      CALL CHECK(NCALLS .EQ. 3 .AND. HCOMM .EQ. DUP2 .AND.
     &     HCODE .EQ. MPI_ERR_ARG, 'errors',
     &     'inherited handler not called with the new communicator')
      CALL MPI_ERRHANDLER_FREE(EH, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_ERRHANDLER_FREE')
      CALL MPI_COMM_FREE(DUP2, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_COMM_FREE')
      CALL MPI_COMM_FREE(DUPC, IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_COMM_FREE')
      CALL CHECK(DUPC .EQ. MPI_COMM_NULL, 'errors',
     &     'MPI_COMM_FREE: not MPI_COMM_NULL')
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL,
     &     IERR)
      CALL CHECKRC(IERR, 'errors', 'MPI_ERRHANDLER_SET fatal')
      END

! The error handler, in Fortran: records each call in /HREC/.
      SUBROUTINE HANDLR(COMM, CODE)
      IMPLICIT NONE
      INTEGER COMM, CODE
      INTEGER NCALLS, HCODE, HCOMM
      COMMON /HREC/ NCALLS, HCODE, HCOMM
      NCALLS = NCALLS + 1
      HCODE = CODE
      HCOMM = COMM
      END
