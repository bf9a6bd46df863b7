C     The topology example of mpichg2_example.c in Fortran 77, which
C     cannot hold the attributes' pointers: MPIX_TOPOLOGY_GET fills
C     arrays the program owns, DEPTHS(P) and COLORS(LEVEL, P) for world
C     rank P-1 and level LEVEL-1. Split MPI_COMM_WORLD by the local-area
C     colour and by the vendor colour (-1 for ranks without a vendor
C     level, as the C example), and print the line the C example prints.
      PROGRAM G2EXAMPLE
      INCLUDE 'mpif.h'
      INTEGER MAXLEV, MAXP, LANLEV, VMPILEV
      PARAMETER (MAXLEV=MPIX_TOPOLOGY_MAX_LEVELS, MAXP=256, LANLEV=1,
     &           VMPILEV=3)
      INTEGER DEPTHS(MAXP), COLORS(MAXLEV, MAXP)
      INTEGER ME, NPROCS, IERR, IERR2, L, AT, VCOLOR
      INTEGER LANCOMM, VCOMM, LANR, LANS, VR, VS
      CHARACTER*256 LINE

      CALL MPI_INIT(IERR)
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, ME, IERR)
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NPROCS, IERR)
      IF (NPROCS .GT. MAXP) CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
      CALL MPIX_TOPOLOGY_GET(MPI_COMM_WORLD, DEPTHS, COLORS, MAXLEV,
     &                       IERR)
      IF (IERR .NE. MPI_SUCCESS) CALL MPI_ABORT(MPI_COMM_WORLD, 1, IERR)
C     Arrays too small for the deepest process: MPI_ERR_ARG, nothing cut.
      CALL MPI_ERRHANDLER_SET(MPI_COMM_WORLD, MPI_ERRORS_RETURN, IERR)
      CALL MPIX_TOPOLOGY_GET(MPI_COMM_WORLD, DEPTHS, COLORS, 1, IERR)
      CALL MPI_ERROR_CLASS(IERR, L, IERR2)
      IF (L .NE. MPI_ERR_ARG) CALL MPI_ABORT(MPI_COMM_WORLD, 2, IERR)

      CALL MPI_COMM_SPLIT(MPI_COMM_WORLD, COLORS(LANLEV+1, ME+1), ME,
     &                    LANCOMM, IERR)
      VCOLOR = -1
      IF (DEPTHS(ME+1) .GT. VMPILEV) VCOLOR = COLORS(VMPILEV+1, ME+1)
      CALL MPI_COMM_SPLIT(MPI_COMM_WORLD, VCOLOR, ME, VCOMM, IERR)
      CALL MPI_COMM_RANK(LANCOMM, LANR, IERR)
      CALL MPI_COMM_SIZE(LANCOMM, LANS, IERR)
      CALL MPI_COMM_RANK(VCOMM, VR, IERR)
      CALL MPI_COMM_SIZE(VCOMM, VS, IERR)

      LINE = ' '
      WRITE(LINE, '(A,I0,A,I0,A)') 'rank ', ME, ': depth ',
     &      DEPTHS(ME+1), ' colours'
      AT = LEN_TRIM(LINE)
      DO 10 L = 1, DEPTHS(ME+1)
         WRITE(LINE(AT+1:), '(1X,I0)') COLORS(L, ME+1)
         AT = LEN_TRIM(LINE)
   10 CONTINUE
      WRITE(LINE(AT+1:), '(A,I0,A,I0,A,I0,A,I0)') '; LAN ', LANR,
     &      ' of ', LANS, '; vendor ', VR, ' of ', VS
      WRITE(*, '(A)') LINE(1:LEN_TRIM(LINE))

      CALL MPI_COMM_FREE(LANCOMM, IERR)
      CALL MPI_COMM_FREE(VCOMM, IERR)
      CALL MPI_FINALIZE(IERR)
      END
