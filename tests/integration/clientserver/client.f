! client.f: the client of client_server.c's "fortran" mode, in Fortran 77.
! Reads the port name from the file named by its first argument,
! MPI_COMM_CONNECT, then: every rank swaps an INTEGER with every server
! rank (the server sends 1000 + 10 * its rank + ours, we answer
! 2000 + 10 * our rank + its), MPI_INTERCOMM_MERGE (high: after the
! server's ranks) with MPI_ALLREDUCE of the merged ranks, MPI_BCAST over
! the intercommunicator from the server's rank 0, MPI_COMM_DISCONNECT.
! Prints "client RANK: ok fortran" per rank.
      PROGRAM CLIENT
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      CHARACTER*(MPI_MAX_PORT_NAME) PORT
      CHARACTER*1024 FILE
      INTEGER IERR, RANK, INTER, MERGED, RSIZE, MSIZE, MRANK, SUMR
      INTEGER I, VAL, TOKEN, STATUS(MPI_STATUS_SIZE)
      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      PORT = ' '
      IF (RANK .EQ. 0) THEN
         CALL GETARG(1, FILE)
         OPEN(UNIT=10, FILE=FILE, STATUS='OLD')
         READ(10, '(A)') PORT
         CLOSE(10)
      END IF
      CALL MPI_COMM_CONNECT(PORT, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
     &                      INTER, IERR)
      CALL CHECKRC(IERR, 'client', 'MPI_COMM_CONNECT')
      CALL MPI_COMM_REMOTE_SIZE(INTER, RSIZE, IERR)
      DO 10 I = 0, RSIZE - 1
         CALL MPI_RECV(VAL, 1, MPI_INTEGER, I, 7, INTER, STATUS, IERR)
         CALL CHECKRC(IERR, 'client', 'MPI_RECV')
         IF (VAL .NE. 1000 + 10 * I + RANK) THEN
            PRINT *, 'FAIL client', RANK, ': from', I, 'got', VAL
            CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
         END IF
         VAL = 2000 + 10 * RANK + I
         CALL MPI_SEND(VAL, 1, MPI_INTEGER, I, 7, INTER, IERR)
         CALL CHECKRC(IERR, 'client', 'MPI_SEND')
   10 CONTINUE
      CALL MPI_INTERCOMM_MERGE(INTER, .TRUE., MERGED, IERR)
      CALL CHECKRC(IERR, 'client', 'MPI_INTERCOMM_MERGE')
      CALL MPI_COMM_SIZE(MERGED, MSIZE, IERR)
      CALL MPI_COMM_RANK(MERGED, MRANK, IERR)
      CALL MPI_ALLREDUCE(MRANK, SUMR, 1, MPI_INTEGER, MPI_SUM, MERGED,
     &                   IERR)
      IF (SUMR .NE. MSIZE * (MSIZE - 1) / 2) THEN
         PRINT *, 'FAIL client', RANK, ': allreduce', SUMR
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      CALL MPI_COMM_FREE(MERGED, IERR)
      TOKEN = -1
      CALL MPI_BCAST(TOKEN, 1, MPI_INTEGER, 0, INTER, IERR)
      CALL CHECKRC(IERR, 'client', 'MPI_BCAST')
      IF (TOKEN .NE. 4242) THEN
         PRINT *, 'FAIL client', RANK, ': bcast', TOKEN
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      CALL MPI_COMM_DISCONNECT(INTER, IERR)
      CALL CHECKRC(IERR, 'client', 'MPI_COMM_DISCONNECT')
      IF (INTER .NE. MPI_COMM_NULL) THEN
         PRINT *, 'FAIL client', RANK, ': not MPI_COMM_NULL'
         CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      END IF
      WRITE(*, '(A, I0, A)') 'client ', RANK, ': ok fortran'
      CALL MPI_FINALIZE(IERR)
      END
