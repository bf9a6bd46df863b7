#!/bin/sh
# Stops the Slurm that start_slurm.sh started in <dir>: kills slurmd and
# slurmctld by their pid files, waits for them to go (bounded), and removes
# <dir>. munged is left running (other users of this machine may need it).
set -u
dir=${1:?usage: stop_slurm.sh <dir printed by start_slurm.sh>}
case "$dir" in
    */strata-slurm.*) ;;
    *) echo "stop_slurm.sh: '$dir' is not a directory of start_slurm.sh" >&2; exit 2 ;;
esac
status=0
# Jobs still there (a failed test) are ended first: with the daemons gone,
# their slurmstepd and task processes would stay behind.
if [ -s "$dir/slurmctld.pid" ] && kill -0 "$(cat "$dir/slurmctld.pid")" 2>/dev/null; then
    export SLURM_CONF="$dir/slurm.conf"
    jobs=$(squeue -h -o %i 2>/dev/null || true)
    if [ -n "$jobs" ]; then
        echo "stop_slurm.sh: cancelling jobs left behind:" $jobs >&2
        # shellcheck disable=SC2086
        scancel --signal=KILL $jobs 2>/dev/null
        # shellcheck disable=SC2086
        scancel $jobs 2>/dev/null
        i=0
        while [ -n "$(squeue -h -o %i 2>/dev/null)" ] && [ "$i" -lt 100 ]; do
            i=$((i + 1))
            sleep 0.1
        done
    fi
fi
for f in "$dir"/slurmd*.pid "$dir/slurmctld.pid"; do
    d=$(basename "$f" .pid)
    [ -s "$f" ] || continue
    pid=$(cat "$f")
    kill -TERM "$pid" 2>/dev/null || continue
    i=0
    while kill -0 "$pid" 2>/dev/null; do
        i=$((i + 1))
        if [ "$i" -gt 50 ]; then
            kill -KILL "$pid" 2>/dev/null
            sleep 0.2
            kill -0 "$pid" 2>/dev/null && { echo "stop_slurm.sh: $d ($pid) does not die" >&2; status=1; }
            break
        fi
        sleep 0.1
    done
done
rm -rf "$dir"
exit $status
