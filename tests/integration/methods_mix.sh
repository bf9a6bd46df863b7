#!/bin/sh
# methods_mix.sh PROGRAM [ARGS...]: runs PROGRAM with communication methods
# excluded on some ranks, so that one job mixes methods. Ranks 3k keep every
# method, ranks 3k+1 exclude shared memory, ranks 3k+2 exclude shared memory
# and (with METHODS_MIX_OFI=1, when the ofi method is built and
# STRATA_OFI_PROVIDER set) ofi. A pair uses the fastest method both ends
# offer: shm between ranks 3k, ofi (or TCP) between ranks 3k and 3k+1, TCP
# with ranks 3k+2.
case $((STRATA_RANK % 3)) in
    1) STRATA_EXCLUDE_METHODS=shm; export STRATA_EXCLUDE_METHODS ;;
    2) if [ "${METHODS_MIX_OFI:-0}" = 1 ]; then STRATA_EXCLUDE_METHODS=shm,ofi; else STRATA_EXCLUDE_METHODS=shm; fi
       export STRATA_EXCLUDE_METHODS ;;
esac
exec "$@"
