#!/bin/sh
# methods_mix.sh PROGRAM [ARGS...]: runs PROGRAM with a communication method
# excluded on some ranks, so that one job mixes methods: even ranks keep every
# method, odd ranks exclude shared memory. Pairs of even ranks then talk over
# shm, every other pair over TCP (the method a pair uses is the fastest both
# ends offer).
case $((STRATA_RANK % 2)) in
    1) STRATA_EXCLUDE_METHODS=shm; export STRATA_EXCLUDE_METHODS ;;
esac
exec "$@"
