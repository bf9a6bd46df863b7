! comms: groups, communicators, intercommunicators and communicator
! names from Fortran (MPI-1.3 chapter 5, MPI-2 COMM_SET_NAME/GET_NAME).
! Runs with any number of processes; the intercommunicator part needs 2.
      PROGRAM COMMS
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      CHARACTER*(*) P
      PARAMETER (P = 'comms')
      INTEGER MAXP
      PARAMETER (MAXP = 64)
      INTEGER IERR, RANK, NP, I, N, R, RES, V
      INTEGER WGRP, GREV, GID, GEXC, GEVEN, GODD, GRNG, GTMP, GEMPTY
      INTEGER RANKS(MAXP), OUT(MAXP), RANGES(3, 4)
      INTEGER DUP, REV, ODDC, SPL, COLOR, KEY, EXPSZ, EXPRK
      LOGICAL FLAG

      CALL MPI_INIT(IERR)
      CALL CHECKRC(IERR, P, 'MPI_INIT')
      CALL MPI_COMM_RANK(MPI_COMM_WORLD, RANK, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK')
      CALL MPI_COMM_SIZE(MPI_COMM_WORLD, NP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SIZE')
      CALL CHECK(NP .LE. MAXP, P, 'too many processes')

! ---- Groups -------------------------------------------------------------
      CALL MPI_COMM_GROUP(MPI_COMM_WORLD, WGRP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_GROUP')
      CALL MPI_GROUP_SIZE(WGRP, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_SIZE')
      CALL CHECK(N .EQ. NP, P, 'GROUP_SIZE of the world group')
      CALL MPI_GROUP_RANK(WGRP, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_RANK')
      CALL CHECK(R .EQ. RANK, P, 'GROUP_RANK of the world group')
      CALL MPI_GROUP_COMPARE(WGRP, WGRP, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_COMPARE')
      CALL CHECK(RES .EQ. MPI_IDENT, P, 'GROUP_COMPARE self')

! The empty group
      CALL MPI_GROUP_SIZE(MPI_GROUP_EMPTY, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_SIZE empty')
      CALL CHECK(N .EQ. 0, P, 'GROUP_SIZE of MPI_GROUP_EMPTY')
      CALL MPI_GROUP_RANK(MPI_GROUP_EMPTY, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_RANK empty')
      CALL CHECK(R .EQ. MPI_UNDEFINED, P, 'GROUP_RANK of empty')

! INCL in reverse order: similar (ident with one process)
      DO I = 1, NP
         RANKS(I) = NP - I
      END DO
      CALL MPI_GROUP_INCL(WGRP, NP, RANKS, GREV, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_INCL reversed')
      CALL MPI_GROUP_RANK(GREV, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_RANK reversed')
      CALL CHECK(R .EQ. NP - 1 - RANK, P, 'rank in reversed group')
      CALL MPI_GROUP_COMPARE(WGRP, GREV, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_COMPARE reversed')
      IF (NP .EQ. 1) THEN
         CALL CHECK(RES .EQ. MPI_IDENT, P, 'compare reversed (np 1)')
      ELSE
         CALL CHECK(RES .EQ. MPI_SIMILAR, P, 'compare reversed group')
      END IF
! INCL in the same order: identical
      DO I = 1, NP
         RANKS(I) = I - 1
      END DO
      CALL MPI_GROUP_INCL(WGRP, NP, RANKS, GID, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_INCL same order')
      CALL MPI_GROUP_COMPARE(GID, WGRP, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_COMPARE same order')
      CALL CHECK(RES .EQ. MPI_IDENT, P, 'compare same-order group')
! TRANSLATE_RANKS world -> reversed
      CALL MPI_GROUP_TRANSLATE_RANKS(WGRP, NP, RANKS, GREV, OUT, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_TRANSLATE_RANKS')
      DO I = 1, NP
         CALL CHECK(OUT(I) .EQ. NP - I, P, 'translate to reversed')
      END DO

! EXCL of rank 0
      RANKS(1) = 0
      CALL MPI_GROUP_EXCL(WGRP, 1, RANKS, GEXC, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_EXCL')
      CALL MPI_GROUP_SIZE(GEXC, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_SIZE excl')
      CALL CHECK(N .EQ. NP - 1, P, 'GROUP_EXCL size')
      CALL MPI_GROUP_RANK(GEXC, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_RANK excl')
      IF (RANK .EQ. 0) THEN
         CALL CHECK(R .EQ. MPI_UNDEFINED, P, 'excluded rank 0')
      ELSE
         CALL CHECK(R .EQ. RANK - 1, P, 'rank after GROUP_EXCL')
      END IF
      CALL MPI_GROUP_COMPARE(GEXC, WGRP, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_COMPARE excl')
      CALL CHECK(RES .EQ. MPI_UNEQUAL, P, 'compare excl group')

! RANGE_INCL: the even ranks, then the odd ones from the top down
      RANGES(1, 1) = 0
      RANGES(2, 1) = NP - 1
      RANGES(3, 1) = 2
      CALL MPI_GROUP_RANGE_INCL(WGRP, 1, RANGES, GEVEN, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_RANGE_INCL even')
      CALL MPI_GROUP_SIZE(GEVEN, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_SIZE even')
      CALL CHECK(N .EQ. (NP + 1) / 2, P, 'RANGE_INCL even size')
      CALL MPI_GROUP_RANK(GEVEN, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_RANK even')
      IF (MOD(RANK, 2) .EQ. 0) THEN
         CALL CHECK(R .EQ. RANK / 2, P, 'rank in even group')
      ELSE
         CALL CHECK(R .EQ. MPI_UNDEFINED, P, 'odd rank in even group')
      END IF
      IF (NP .GE. 2) THEN
! two triplets: evens up, odds down (last odd to 1 by -2)
         RANGES(1, 2) = NP - 1 - MOD(NP, 2)
         RANGES(2, 2) = 1
         RANGES(3, 2) = -2
         CALL MPI_GROUP_RANGE_INCL(WGRP, 2, RANGES, GRNG, IERR)
         CALL CHECKRC(IERR, P, 'MPI_GROUP_RANGE_INCL two')
         CALL MPI_GROUP_SIZE(GRNG, N, IERR)
         CALL CHECKRC(IERR, P, 'MPI_GROUP_SIZE range two')
         CALL CHECK(N .EQ. NP, P, 'RANGE_INCL two triplets size')
         DO I = 1, NP
            RANKS(I) = I - 1
         END DO
         CALL MPI_GROUP_TRANSLATE_RANKS(GRNG, NP, RANKS, WGRP, OUT,
     &        IERR)
         CALL CHECKRC(IERR, P, 'MPI_GROUP_TRANSLATE_RANKS range')
         N = (NP + 1) / 2
         DO I = 1, N
            CALL CHECK(OUT(I) .EQ. 2 * (I - 1), P,
     &           'RANGE_INCL first triplet order')
         END DO
         DO I = N + 1, NP
            CALL CHECK(OUT(I) .EQ. RANGES(1, 2) - 2 * (I - N - 1), P,
     &           'RANGE_INCL negative stride order')
         END DO
         CALL MPI_GROUP_COMPARE(GRNG, WGRP, RES, IERR)
         CALL CHECKRC(IERR, P, 'MPI_GROUP_COMPARE range')
         IF (NP .EQ. 2) THEN
            CALL CHECK(RES .EQ. MPI_IDENT, P, 'compare range (np 2)')
         ELSE
            CALL CHECK(RES .EQ. MPI_SIMILAR, P, 'compare range group')
         END IF
         CALL MPI_GROUP_FREE(GRNG, IERR)
         CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE range')
      END IF
! RANGE_EXCL of the evens: the odd ranks
      CALL MPI_GROUP_RANGE_EXCL(WGRP, 1, RANGES, GODD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_RANGE_EXCL')
      CALL MPI_GROUP_SIZE(GODD, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_SIZE odd')
      CALL CHECK(N .EQ. NP / 2, P, 'RANGE_EXCL size')
      CALL MPI_GROUP_RANK(GODD, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_RANK odd')
      IF (MOD(RANK, 2) .EQ. 1) THEN
         CALL CHECK(R .EQ. RANK / 2, P, 'rank in odd group')
      ELSE
         CALL CHECK(R .EQ. MPI_UNDEFINED, P, 'even rank in odd group')
      END IF
! TRANSLATE_RANKS world -> evens: undefined for the odd ones
      DO I = 1, NP
         RANKS(I) = I - 1
      END DO
      CALL MPI_GROUP_TRANSLATE_RANKS(WGRP, NP, RANKS, GEVEN, OUT, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_TRANSLATE_RANKS even')
      DO I = 1, NP
         IF (MOD(I - 1, 2) .EQ. 0) THEN
            CALL CHECK(OUT(I) .EQ. (I - 1) / 2, P, 'translate even')
         ELSE
            CALL CHECK(OUT(I) .EQ. MPI_UNDEFINED, P,
     &           'translate odd to even group')
         END IF
      END DO

! UNION(even, odd): evens then odds
      CALL MPI_GROUP_UNION(GEVEN, GODD, GTMP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_UNION')
      CALL MPI_GROUP_SIZE(GTMP, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_SIZE union')
      CALL CHECK(N .EQ. NP, P, 'GROUP_UNION size')
      CALL MPI_GROUP_RANK(GTMP, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_RANK union')
      IF (MOD(RANK, 2) .EQ. 0) THEN
         CALL CHECK(R .EQ. RANK / 2, P, 'union rank of an even')
      ELSE
         CALL CHECK(R .EQ. (NP + 1) / 2 + RANK / 2, P,
     &        'union rank of an odd')
      END IF
      CALL MPI_GROUP_COMPARE(GTMP, WGRP, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_COMPARE union')
      IF (NP .LE. 2) THEN
         CALL CHECK(RES .EQ. MPI_IDENT, P, 'compare union (np<=2)')
      ELSE
         CALL CHECK(RES .EQ. MPI_SIMILAR, P, 'compare union')
      END IF
      CALL MPI_GROUP_FREE(GTMP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE union')
      CALL CHECK(GTMP .EQ. MPI_GROUP_NULL, P,
     &     'GROUP_FREE sets MPI_GROUP_NULL')
! UNION(reversed, even) keeps the reversed order
      CALL MPI_GROUP_UNION(GREV, GEVEN, GTMP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_UNION rev')
      CALL MPI_GROUP_COMPARE(GTMP, GREV, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_COMPARE union rev')
      CALL CHECK(RES .EQ. MPI_IDENT, P, 'union with a subset')
      CALL MPI_GROUP_FREE(GTMP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE union rev')
! INTERSECTION(reversed, even): evens in reversed order
      CALL MPI_GROUP_INTERSECTION(GREV, GEVEN, GTMP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_INTERSECTION')
      CALL MPI_GROUP_SIZE(GTMP, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_SIZE intersection')
      CALL CHECK(N .EQ. (NP + 1) / 2, P, 'GROUP_INTERSECTION size')
      CALL MPI_GROUP_RANK(GTMP, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_RANK intersection')
      IF (MOD(RANK, 2) .EQ. 0) THEN
         CALL CHECK(R .EQ. (NP + 1) / 2 - 1 - RANK / 2, P,
     &        'intersection keeps the first group order')
      ELSE
         CALL CHECK(R .EQ. MPI_UNDEFINED, P, 'odd in intersection')
      END IF
      CALL MPI_GROUP_COMPARE(GTMP, GEVEN, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_COMPARE intersection')
      IF (NP .LE. 2) THEN
         CALL CHECK(RES .EQ. MPI_IDENT, P, 'compare intersection 1')
      ELSE
         CALL CHECK(RES .EQ. MPI_SIMILAR, P, 'compare intersection')
      END IF
      CALL MPI_GROUP_FREE(GTMP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE intersection')
! INTERSECTION(even, odd) is empty
      CALL MPI_GROUP_INTERSECTION(GEVEN, GODD, GEMPTY, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_INTERSECTION empty')
      CALL MPI_GROUP_SIZE(GEMPTY, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_SIZE empty intersection')
      CALL CHECK(N .EQ. 0, P, 'disjoint intersection is empty')
      CALL MPI_GROUP_RANK(GEMPTY, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_RANK empty intersection')
      CALL CHECK(R .EQ. MPI_UNDEFINED, P, 'rank in empty group')
      CALL MPI_GROUP_COMPARE(GEMPTY, MPI_GROUP_EMPTY, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_COMPARE empty')
      CALL CHECK(RES .EQ. MPI_IDENT, P, 'empty vs MPI_GROUP_EMPTY')
      IF (GEMPTY .NE. MPI_GROUP_EMPTY) THEN
         CALL MPI_GROUP_FREE(GEMPTY, IERR)
         CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE empty')
      END IF
! DIFFERENCE(world, even) = odd, in world order
      CALL MPI_GROUP_DIFFERENCE(WGRP, GEVEN, GTMP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_DIFFERENCE')
      CALL MPI_GROUP_COMPARE(GTMP, GODD, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_COMPARE difference')
      CALL CHECK(RES .EQ. MPI_IDENT, P, 'world minus evens is odds')
      CALL MPI_GROUP_FREE(GTMP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE difference')
! DIFFERENCE(reversed, odd) = evens reversed
      CALL MPI_GROUP_DIFFERENCE(GREV, GODD, GTMP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_DIFFERENCE rev')
      CALL MPI_GROUP_RANK(GTMP, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_RANK difference rev')
      IF (MOD(RANK, 2) .EQ. 0) THEN
         CALL CHECK(R .EQ. (NP + 1) / 2 - 1 - RANK / 2, P,
     &        'difference keeps the first group order')
      ELSE
         CALL CHECK(R .EQ. MPI_UNDEFINED, P, 'odd in difference')
      END IF
      CALL MPI_GROUP_FREE(GTMP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE difference rev')
! DIFFERENCE(world, world) is empty
      CALL MPI_GROUP_DIFFERENCE(WGRP, WGRP, GTMP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_DIFFERENCE self')
      CALL MPI_GROUP_SIZE(GTMP, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_SIZE difference self')
      CALL CHECK(N .EQ. 0, P, 'world minus world is empty')
      IF (GTMP .NE. MPI_GROUP_EMPTY) THEN
         CALL MPI_GROUP_FREE(GTMP, IERR)
         CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE difference self')
      END IF

! ---- Communicators ------------------------------------------------------
      CALL MPI_COMM_COMPARE(MPI_COMM_WORLD, MPI_COMM_WORLD, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_COMPARE')
      CALL CHECK(RES .EQ. MPI_IDENT, P, 'COMM_COMPARE self')
      CALL MPI_COMM_TEST_INTER(MPI_COMM_WORLD, FLAG, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_TEST_INTER')
      CALL CHECK(.NOT. FLAG, P, 'world is not an intercommunicator')
      CALL CHECK(TRANSFER(FLAG, 0) .EQ. TRANSFER(.FALSE., 0), P,
     &     'COMM_TEST_INTER gives exactly .FALSE.')

      CALL MPI_COMM_DUP(MPI_COMM_WORLD, DUP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_DUP')
      CALL MPI_COMM_COMPARE(MPI_COMM_WORLD, DUP, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_COMPARE dup')
      CALL CHECK(RES .EQ. MPI_CONGRUENT, P, 'COMM_COMPARE of a dup')
      CALL MPI_COMM_RANK(DUP, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK dup')
      CALL CHECK(R .EQ. RANK, P, 'rank in the dup')
! traffic on the dup: a ring
      CALL MPI_SENDRECV(RANK, 1, MPI_INTEGER, MOD(RANK + 1, NP), 3,
     &     V, 1, MPI_INTEGER, MOD(RANK + NP - 1, NP), 3, DUP,
     &     MPI_STATUS_IGNORE, IERR)
      CALL CHECKRC(IERR, P, 'MPI_SENDRECV on dup')
      CALL CHECK(V .EQ. MOD(RANK + NP - 1, NP), P, 'ring on the dup')

! COMM_CREATE with the reversed group
      CALL MPI_COMM_CREATE(MPI_COMM_WORLD, GREV, REV, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_CREATE reversed')
      CALL CHECK(REV .NE. MPI_COMM_NULL, P, 'COMM_CREATE gave null')
      CALL MPI_COMM_RANK(REV, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK reversed')
      CALL CHECK(R .EQ. NP - 1 - RANK, P, 'rank in reversed comm')
      CALL MPI_COMM_COMPARE(REV, MPI_COMM_WORLD, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_COMPARE reversed')
      IF (NP .EQ. 1) THEN
         CALL CHECK(RES .EQ. MPI_CONGRUENT, P, 'compare rev comm 1')
      ELSE
         CALL CHECK(RES .EQ. MPI_SIMILAR, P, 'compare reversed comm')
      END IF
      CALL MPI_ALLREDUCE(RANK, V, 1, MPI_INTEGER, MPI_SUM, REV, IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE reversed')
      CALL CHECK(V .EQ. NP * (NP - 1) / 2, P, 'allreduce on rev comm')
      CALL MPI_COMM_FREE(REV, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE reversed')
      CALL CHECK(REV .EQ. MPI_COMM_NULL, P, 'COMM_FREE sets null')

! COMM_CREATE with the odd group: null on the even ranks
      CALL MPI_COMM_CREATE(DUP, GODD, ODDC, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_CREATE odd')
      IF (MOD(RANK, 2) .EQ. 0) THEN
         CALL CHECK(ODDC .EQ. MPI_COMM_NULL, P,
     &        'COMM_CREATE outside the group')
      ELSE
         CALL CHECK(ODDC .NE. MPI_COMM_NULL, P,
     &        'COMM_CREATE inside the group')
         CALL MPI_COMM_SIZE(ODDC, N, IERR)
         CALL CHECKRC(IERR, P, 'MPI_COMM_SIZE odd')
         CALL CHECK(N .EQ. NP / 2, P, 'odd comm size')
         CALL MPI_COMM_RANK(ODDC, R, IERR)
         CALL CHECKRC(IERR, P, 'MPI_COMM_RANK odd')
         CALL CHECK(R .EQ. RANK / 2, P, 'odd comm rank')
         CALL MPI_ALLREDUCE(RANK, V, 1, MPI_INTEGER, MPI_MAX, ODDC,
     &        IERR)
         CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE odd')
         CALL CHECK(V .EQ. NP - 1 - MOD(NP, 2), P, 'max on odd comm')
         CALL MPI_COMM_COMPARE(ODDC, DUP, RES, IERR)
         CALL CHECKRC(IERR, P, 'MPI_COMM_COMPARE odd')
         CALL CHECK(RES .EQ. MPI_UNEQUAL, P, 'odd comm vs world')
         CALL MPI_COMM_FREE(ODDC, IERR)
         CALL CHECKRC(IERR, P, 'MPI_COMM_FREE odd')
      END IF

! COMM_SPLIT by parity, keys reversing the order, the last rank out
      COLOR = MOD(RANK, 2)
      IF (RANK .EQ. NP - 1) COLOR = MPI_UNDEFINED
      KEY = NP - RANK
      CALL MPI_COMM_SPLIT(DUP, COLOR, KEY, SPL, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SPLIT')
      IF (COLOR .EQ. MPI_UNDEFINED) THEN
         CALL CHECK(SPL .EQ. MPI_COMM_NULL, P,
     &        'MPI_UNDEFINED colour gives MPI_COMM_NULL')
      ELSE
         EXPSZ = 0
         EXPRK = 0
         DO I = 0, NP - 2
            IF (MOD(I, 2) .EQ. COLOR) THEN
               EXPSZ = EXPSZ + 1
               IF (I .GT. RANK) EXPRK = EXPRK + 1
            END IF
         END DO
         CALL MPI_COMM_SIZE(SPL, N, IERR)
         CALL CHECKRC(IERR, P, 'MPI_COMM_SIZE split')
         CALL CHECK(N .EQ. EXPSZ, P, 'COMM_SPLIT size')
         CALL MPI_COMM_RANK(SPL, R, IERR)
         CALL CHECKRC(IERR, P, 'MPI_COMM_RANK split')
         CALL CHECK(R .EQ. EXPRK, P, 'COMM_SPLIT rank by key')
         CALL MPI_ALLREDUCE(RANK, V, 1, MPI_INTEGER, MPI_MIN, SPL,
     &        IERR)
         CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE split')
         CALL CHECK(V .EQ. COLOR, P, 'min on split comm')
         CALL MPI_COMM_COMPARE(SPL, MPI_COMM_WORLD, RES, IERR)
         CALL CHECKRC(IERR, P, 'MPI_COMM_COMPARE split')
         CALL CHECK(RES .EQ. MPI_UNEQUAL, P, 'split vs world')
         CALL MPI_COMM_TEST_INTER(SPL, FLAG, IERR)
         CALL CHECKRC(IERR, P, 'MPI_COMM_TEST_INTER split')
         CALL CHECK(.NOT. FLAG, P, 'split is an intracommunicator')
         CALL MPI_COMM_FREE(SPL, IERR)
         CALL CHECKRC(IERR, P, 'MPI_COMM_FREE split')
         CALL CHECK(SPL .EQ. MPI_COMM_NULL, P, 'free split sets null')
      END IF

! ---- Intercommunicators -------------------------------------------------
      IF (NP .GE. 2) CALL INTERT(NP, RANK, WGRP)

! ---- Names --------------------------------------------------------------
      CALL NAMES(DUP)

      CALL MPI_GROUP_FREE(GREV, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE reversed')
      CALL MPI_GROUP_FREE(GID, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE same order')
      CALL MPI_GROUP_FREE(GEXC, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE excl')
      CALL MPI_GROUP_FREE(GEVEN, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE even')
      CALL MPI_GROUP_FREE(GODD, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE odd')
      CALL MPI_GROUP_FREE(WGRP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE world')
      CALL MPI_COMM_FREE(DUP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE dup')
      CALL CHECK(DUP .EQ. MPI_COMM_NULL, P, 'free dup sets null')
      CALL MPI_FINALIZE(IERR)
      CALL CHECKRC(IERR, P, 'MPI_FINALIZE')
      END

! The world cut into a low half (ranks 0..NP/2-1) and a high half,
! joined by INTERCOMM_CREATE, used, merged both ways and freed.
      SUBROUTINE INTERT(NP, RANK, WGRP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER NP, RANK, WGRP
      CHARACTER*(*) P
      PARAMETER (P = 'comms')
      INTEGER IERR, LOW, COLOR, LOCAL, INTER, MERGED, RLEAD
      INTEGER LSIZE, RSIZE, N, R, I, V, RES, RGRP, LGRP
      INTEGER RANKS(64), OUT(64), STATUS(MPI_STATUS_SIZE)
      LOGICAL FLAG, HIGH

      LOW = NP / 2
      IF (RANK .LT. LOW) THEN
         COLOR = 0
         RLEAD = LOW
         LSIZE = LOW
         RSIZE = NP - LOW
      ELSE
         COLOR = 1
         RLEAD = 0
         LSIZE = NP - LOW
         RSIZE = LOW
      END IF
      CALL MPI_COMM_SPLIT(MPI_COMM_WORLD, COLOR, RANK, LOCAL, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SPLIT halves')
      CALL MPI_INTERCOMM_CREATE(LOCAL, 0, MPI_COMM_WORLD, RLEAD, 17,
     &     INTER, IERR)
      CALL CHECKRC(IERR, P, 'MPI_INTERCOMM_CREATE')
      CALL MPI_COMM_TEST_INTER(INTER, FLAG, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_TEST_INTER inter')
      CALL CHECK(FLAG, P, 'COMM_TEST_INTER of an intercommunicator')
      CALL CHECK(TRANSFER(FLAG, 0) .EQ. TRANSFER(.TRUE., 0), P,
     &     'COMM_TEST_INTER gives exactly .TRUE.')
      CALL MPI_COMM_SIZE(INTER, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SIZE inter')
      CALL CHECK(N .EQ. LSIZE, P, 'local size of the intercomm')
      CALL MPI_COMM_RANK(INTER, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK inter')
      CALL CHECK(R .EQ. RANK - COLOR * LOW, P, 'rank in the intercomm')
      CALL MPI_COMM_REMOTE_SIZE(INTER, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_REMOTE_SIZE')
      CALL CHECK(N .EQ. RSIZE, P, 'COMM_REMOTE_SIZE')
      CALL MPI_COMM_COMPARE(INTER, INTER, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_COMPARE inter')
      CALL CHECK(RES .EQ. MPI_IDENT, P, 'compare intercomm itself')

! the remote group, translated to world ranks
      CALL MPI_COMM_REMOTE_GROUP(INTER, RGRP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_REMOTE_GROUP')
      CALL MPI_GROUP_SIZE(RGRP, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_SIZE remote')
      CALL CHECK(N .EQ. RSIZE, P, 'remote group size')
      CALL MPI_GROUP_RANK(RGRP, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_RANK remote')
      CALL CHECK(R .EQ. MPI_UNDEFINED, P, 'not in the remote group')
      DO I = 1, RSIZE
         RANKS(I) = I - 1
      END DO
      CALL MPI_GROUP_TRANSLATE_RANKS(RGRP, RSIZE, RANKS, WGRP, OUT,
     &     IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_TRANSLATE_RANKS remote')
      DO I = 1, RSIZE
         CALL CHECK(OUT(I) .EQ. I - 1 + (1 - COLOR) * LOW, P,
     &        'remote group members')
      END DO
      CALL MPI_COMM_GROUP(INTER, LGRP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_GROUP inter')
      CALL MPI_GROUP_SIZE(LGRP, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_SIZE local')
      CALL CHECK(N .EQ. LSIZE, P, 'COMM_GROUP of an intercomm')
      CALL MPI_GROUP_FREE(LGRP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE local')
      CALL MPI_GROUP_FREE(RGRP, IERR)
      CALL CHECKRC(IERR, P, 'MPI_GROUP_FREE remote')

! point to point across: local rank i pairs with remote rank i
      R = RANK - COLOR * LOW
      IF (R .LT. LOW) THEN
         CALL MPI_SENDRECV(RANK, 1, MPI_INTEGER, R, 5, V, 1,
     &        MPI_INTEGER, R, 5, INTER, STATUS, IERR)
         CALL CHECKRC(IERR, P, 'MPI_SENDRECV inter')
         CALL CHECK(V .EQ. R + (1 - COLOR) * LOW, P,
     &        'value across the intercomm')
         CALL CHECK(STATUS(MPI_SOURCE) .EQ. R, P,
     &        'MPI_SOURCE is the remote rank')
      END IF
! the high extras (odd counts) hear from remote rank 0
      IF (COLOR .EQ. 0 .AND. R .EQ. 0) THEN
         DO I = LOW, NP - LOW - 1
            CALL MPI_SEND(100 + I, 1, MPI_INTEGER, I, 6, INTER, IERR)
            CALL CHECKRC(IERR, P, 'MPI_SEND inter extra')
         END DO
      ELSE IF (COLOR .EQ. 1 .AND. R .GE. LOW) THEN
         CALL MPI_RECV(V, 1, MPI_INTEGER, MPI_ANY_SOURCE, 6, INTER,
     &        STATUS, IERR)
         CALL CHECKRC(IERR, P, 'MPI_RECV inter extra')
         CALL CHECK(V .EQ. 100 + R, P, 'extra value across')
         CALL CHECK(STATUS(MPI_SOURCE) .EQ. 0, P, 'extra source')
      END IF

! MERGE with the low half low: world order
      HIGH = COLOR .EQ. 1
      CALL MPI_INTERCOMM_MERGE(INTER, HIGH, MERGED, IERR)
      CALL CHECKRC(IERR, P, 'MPI_INTERCOMM_MERGE')
      CALL MPI_COMM_SIZE(MERGED, N, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SIZE merged')
      CALL CHECK(N .EQ. NP, P, 'merged size')
      CALL MPI_COMM_RANK(MERGED, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK merged')
      CALL CHECK(R .EQ. RANK, P, 'merged rank, low half first')
      CALL MPI_COMM_COMPARE(MERGED, MPI_COMM_WORLD, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_COMPARE merged')
      CALL CHECK(RES .EQ. MPI_CONGRUENT, P, 'merged vs world')
      CALL MPI_COMM_TEST_INTER(MERGED, FLAG, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_TEST_INTER merged')
      CALL CHECK(.NOT. FLAG, P, 'merged is an intracommunicator')
      CALL MPI_ALLREDUCE(RANK, V, 1, MPI_INTEGER, MPI_SUM, MERGED,
     &     IERR)
      CALL CHECKRC(IERR, P, 'MPI_ALLREDUCE merged')
      CALL CHECK(V .EQ. NP * (NP - 1) / 2, P, 'sum on merged')
      CALL MPI_COMM_FREE(MERGED, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE merged')

! MERGE with the high half low: the high half first
      HIGH = COLOR .EQ. 0
      CALL MPI_INTERCOMM_MERGE(INTER, HIGH, MERGED, IERR)
      CALL CHECKRC(IERR, P, 'MPI_INTERCOMM_MERGE swapped')
      CALL MPI_COMM_RANK(MERGED, R, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_RANK merged swapped')
      IF (COLOR .EQ. 1) THEN
         CALL CHECK(R .EQ. RANK - LOW, P, 'swapped merge, high half')
      ELSE
         CALL CHECK(R .EQ. NP - LOW + RANK, P,
     &        'swapped merge, low half')
      END IF
      CALL MPI_COMM_COMPARE(MERGED, MPI_COMM_WORLD, RES, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_COMPARE merged swapped')
      CALL CHECK(RES .EQ. MPI_SIMILAR, P, 'swapped merge vs world')
      CALL MPI_COMM_FREE(MERGED, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE merged swapped')

      CALL MPI_COMM_FREE(INTER, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE inter')
      CALL CHECK(INTER .EQ. MPI_COMM_NULL, P, 'free inter sets null')
      CALL MPI_COMM_FREE(LOCAL, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE halves')
      END

! COMM_SET_NAME / COMM_GET_NAME: the trailing blanks of the name given
! are not part of it; the name comes back padded with blanks.
      SUBROUTINE NAMES(DUP)
      IMPLICIT NONE
      INCLUDE 'mpif.h'
      INTEGER DUP
      CHARACTER*(*) P
      PARAMETER (P = 'comms')
      CHARACTER*(MPI_MAX_OBJECT_NAME) NAME
      CHARACTER*10 SHORT
      CHARACTER*200 LONG
      INTEGER IERR, LEN, DUP2

      NAME = REPEAT('X', MPI_MAX_OBJECT_NAME)
      CALL MPI_COMM_GET_NAME(MPI_COMM_WORLD, NAME, LEN, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_GET_NAME world')
      CALL CHECK(LEN .EQ. 14, P, 'length of the world name')
      CALL CHECK(NAME .EQ. 'MPI_COMM_WORLD', P, 'world name')
      CALL CHECK(NAME(15:) .EQ. ' ', P, 'world name padded')
      CALL MPI_COMM_GET_NAME(MPI_COMM_SELF, NAME, LEN, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_GET_NAME self')
      CALL CHECK(LEN .EQ. 13, P, 'length of the self name')
      CALL CHECK(NAME .EQ. 'MPI_COMM_SELF', P, 'self name')

      NAME = REPEAT('X', MPI_MAX_OBJECT_NAME)
      CALL MPI_COMM_SET_NAME(DUP, 'a dup name   ', IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SET_NAME')
      CALL MPI_COMM_GET_NAME(DUP, NAME, LEN, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_GET_NAME dup')
      CALL CHECK(LEN .EQ. 10, P, 'trailing blanks not in the name')
      CALL CHECK(NAME(1:10) .EQ. 'a dup name', P, 'name as set')
      CALL CHECK(NAME(11:) .EQ. ' ', P, 'name padded with blanks')
! a variable holding the name, longer than it
      SHORT = 'renamed'
      CALL MPI_COMM_SET_NAME(DUP, SHORT, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SET_NAME again')
      NAME = REPEAT('X', MPI_MAX_OBJECT_NAME)
      CALL MPI_COMM_GET_NAME(DUP, NAME, LEN, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_GET_NAME renamed')
      CALL CHECK(LEN .EQ. 7, P, 'length of the new name')
      CALL CHECK(NAME .EQ. 'renamed', P, 'new name')
! a name longer than the limit is cut, not refused
      NAME = REPEAT('X', MPI_MAX_OBJECT_NAME)
      LONG = REPEAT('abcdefghij', 20)
      CALL MPI_COMM_SET_NAME(DUP, LONG, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SET_NAME long')
      CALL MPI_COMM_GET_NAME(DUP, NAME, LEN, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_GET_NAME long')
      CALL CHECK(LEN .GE. MPI_MAX_OBJECT_NAME - 1 .AND.
     &     LEN .LE. MPI_MAX_OBJECT_NAME, P, 'a long name is truncated')
      CALL CHECK(NAME(1:LEN) .EQ. LONG(1:LEN), P,
     &     'the truncated name is the start of the long one')
      CALL CHECK(NAME(LEN + 1:) .EQ. ' ', P, 'truncated name padded')
! a name of blanks only is the empty name
      CALL MPI_COMM_SET_NAME(DUP, '    ', IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SET_NAME blanks')
      NAME = REPEAT('X', MPI_MAX_OBJECT_NAME)
      CALL MPI_COMM_GET_NAME(DUP, NAME, LEN, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_GET_NAME blanks')
      CALL CHECK(LEN .EQ. 0 .AND. NAME .EQ. ' ', P,
     &     'a name of blanks is empty')
      CALL MPI_COMM_SET_NAME(DUP, SHORT, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_SET_NAME restore')
! COMM_DUP does not copy the name
      CALL MPI_COMM_DUP(DUP, DUP2, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_DUP named')
      NAME = REPEAT('X', MPI_MAX_OBJECT_NAME)
      CALL MPI_COMM_GET_NAME(DUP2, NAME, LEN, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_GET_NAME unnamed')
      CALL CHECK(LEN .EQ. 0, P, 'an unnamed communicator')
      CALL CHECK(NAME .EQ. ' ', P, 'unnamed: all blanks')
      CALL MPI_COMM_FREE(DUP2, IERR)
      CALL CHECKRC(IERR, P, 'MPI_COMM_FREE named dup')
      END
