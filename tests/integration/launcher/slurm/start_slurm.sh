#!/bin/sh
# Starts a private Slurm (slurmctld + slurmd, and munged if it is not
# running) in a fresh temporary directory, and prints that directory. One
# node named after this host; with STRATA_TEST_SLURM_NODES=N (N > 1), N nodes
# n1..nN, each its own slurmd on this host (slurmd -N), so that a job gets
# several nodes as on a cluster.
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

# Tests run side by side: from here until the daemons listen, one start at a
# time (munged once; the ports below). The daemons do not inherit the lock (9>&-).
exec 9>"${TMPDIR:-/tmp}/strata-slurm-start.lock"
flock 9
if ! pgrep -x munged >/dev/null 2>&1; then
    mkdir -p /run/munge
    chown munge:munge /run/munge
    su -s /bin/sh munge -c /usr/sbin/munged 9>&-
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/strata-slurm.XXXXXX")
chmod 755 "$dir"
mkdir "$dir/state"
host=$(hostname -s)
nodes=${STRATA_TEST_SLURM_NODES:-1}
case "$nodes" in
    [1-9]) ;;
    *) echo "start_slurm.sh: STRATA_TEST_SLURM_NODES='$nodes': expected 1 to 9" >&2; exit 2 ;;
esac
# Ports: slurmctld's, then one per slurmd, away from Slurm's default
# 6817/6818 so that a site Slurm on this machine is left alone: from 16817 up,
# the first run of free ones (this network namespace's listeners, ss), under
# the lock. STRATA_TEST_SLURM_PORT fixes the first port instead.
port=${STRATA_TEST_SLURM_PORT:-}
if [ -z "$port" ]; then
    port=16817
    while ss -Htln | awk -v lo="$port" -v hi="$((port + nodes))" \
        '{ n = $4; sub(/.*:/, "", n); if (n >= lo && n <= hi) found = 1 } END { exit !found }'; do
        port=$((port + 10))
        [ "$port" -lt 17817 ] || { echo "start_slurm.sh: no free ports from 16817 to 17817" >&2; exit 1; }
    done
fi
# STRATA_TEST_SLURM_ADDR: the address the daemons use (a cluster namespace's own, which a
# login node in another namespace reaches); default: the host name's.
addr=${STRATA_TEST_SLURM_ADDR:-}
ctld=$host
[ -z "$addr" ] || ctld="$host($addr)"
cat >"$dir/slurm.conf" <<CONF
ClusterName=strata-test
SlurmctldHost=$ctld
SlurmctldPort=$port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool-%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MpiDefault=none
ReturnToService=2
MinJobAge=300
KillWait=2
CONF
if [ "$nodes" -eq 1 ]; then
    names=$host
    echo "SlurmdPort=$((port + 1))" >>"$dir/slurm.conf"
    echo "NodeName=$host ${addr:+NodeAddr=$addr }CPUs=2 RealMemory=4000 State=UNKNOWN" >>"$dir/slurm.conf"
else
    names=$(seq -f 'n%g' 1 "$nodes")
    echo "NodeName=n[1-$nodes] NodeHostname=$host NodeAddr=127.0.0.1 Port=[$((port + 1))-$((port + nodes))]" \
        "CPUs=2 RealMemory=1000 State=UNKNOWN" >>"$dir/slurm.conf"
fi
list=$(echo $names | tr ' ' ',')
echo "PartitionName=debug Nodes=$list Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:8" >>"$dir/slurm.conf"
for n in $names; do mkdir "$dir/spool-$n"; done
# Inside a network namespace (ip netns exec remounts /sys) slurmd needs a cgroup.conf.
if [ -n "$(ip netns identify $$ 2>/dev/null)" ]; then
    printf 'CgroupPlugin=cgroup/v1\nCgroupAutomount=no\n' >"$dir/cgroup.conf"
fi
export SLURM_CONF="$dir/slurm.conf"

fail() {
    echo "start_slurm.sh: $*" >&2
    for log in "$dir"/slurmctld.log "$dir"/slurmd-*.log; do
        [ -f "$log" ] && { echo "--- $(basename "$log") (end)" >&2; tail -n 15 "$log" >&2; }
    done
    "$(dirname "$0")/stop_slurm.sh" "$dir" || true
    exit 1
}

slurmctld -f "$SLURM_CONF" 9>&- || fail "slurmctld did not start"
for n in $names; do
    if [ "$nodes" -eq 1 ]; then
        slurmd -f "$SLURM_CONF" 9>&- || fail "slurmd did not start"
    else
        slurmd -f "$SLURM_CONF" -N "$n" 9>&- || fail "slurmd for node $n did not start"
    fi
done

# Bounded wait (30 s) for every node to be idle.
i=0
while :; do
    states=$(sinfo -h -N -n "$list" -o %T 2>/dev/null | sort -u | tr '\n' ' ' || true)
    [ "$states" = "idle " ] && break
    i=$((i + 1))
    [ "$i" -le 150 ] || fail "nodes $list not idle after 30 s (sinfo says '${states:-nothing}')"
    sleep 0.2
done
flock -u 9
echo "$dir"
