#!/bin/sh
# Starts a private single-node Slurm (slurmctld + slurmd, and munged if it is
# not running) in a fresh temporary directory, and prints that directory.
# Its slurm.conf is <dir>/slurm.conf: point SLURM_CONF at it. Stop it with
# stop_slurm.sh <dir>. Exits 77 (meson's "skipped") when it cannot run here:
# not root, or slurm-wlm/munge not installed.
set -eu

skip() {
    echo "skipped: $*" >&2
    exit 77
}

[ "$(id -u)" -eq 0 ] || skip "starting slurmctld/slurmd needs root"
for cmd in slurmctld slurmd sbatch squeue scancel sinfo munged; do
    command -v "$cmd" >/dev/null 2>&1 || [ -x "/usr/sbin/$cmd" ] ||
        skip "$cmd not found; install slurm-wlm and munge (scripts/install-deps)"
done
[ -r /etc/munge/munge.key ] || skip "/etc/munge/munge.key missing; reinstall munge"
PATH="$PATH:/usr/sbin"

if ! pgrep -x munged >/dev/null 2>&1; then
    mkdir -p /run/munge
    chown munge:munge /run/munge
    su -s /bin/sh munge -c /usr/sbin/munged
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/strata-slurm.XXXXXX")
chmod 755 "$dir"
mkdir "$dir/state" "$dir/spool"
host=$(hostname -s)
# Ports: a pair away from Slurm's default 6817/6818, so a site Slurm on this
# machine is left alone; STRATA_TEST_SLURM_PORT moves it.
port=${STRATA_TEST_SLURM_PORT:-16817}
cat >"$dir/slurm.conf" <<CONF
ClusterName=strata-test
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MinJobAge=300
KillWait=2
NodeName=$host CPUs=2 RealMemory=4000 State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8
CONF
export SLURM_CONF="$dir/slurm.conf"

fail() {
    echo "start_slurm.sh: $*" >&2
    for log in slurmctld.log slurmd.log; do
        [ -f "$dir/$log" ] && { echo "--- $log (end)" >&2; tail -n 15 "$dir/$log" >&2; }
    done
    "$(dirname "$0")/stop_slurm.sh" "$dir" || true
    exit 1
}

slurmctld -f "$SLURM_CONF" || fail "slurmctld did not start"
slurmd -f "$SLURM_CONF" || fail "slurmd did not start"

# Bounded wait (30 s) for the node to be idle.
i=0
while :; do
    state=$(sinfo -h -N -n "$host" -o %T 2>/dev/null || true)
    [ "$state" = idle ] && break
    i=$((i + 1))
    [ "$i" -le 150 ] || fail "node $host not idle after 30 s (sinfo says '${state:-nothing}')"
    sleep 0.2
done
echo "$dir"
