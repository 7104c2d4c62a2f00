#!/bin/bash
# A real one-node Slurm cluster for tests, everything under one directory:
# munged, slurmctld and slurmd from Debian (slurmctld, slurmd, slurm-client,
# munge; ./bazelw installs them), run as root without systemd.
#
#   slurm/testing/one_node_cluster.sh start DIR   # prints SLURM_CONF=DIR/slurm.conf
#   export SLURM_CONF=DIR/slurm.conf; sbatch ...; squeue ...
#   slurm/testing/one_node_cluster.sh stop DIR    # kills the daemons by their pids
#
# Why each setting: ProctrackType=proctrack/linuxproc and TaskPlugin=task/none
# need no cgroups or systemd; the ports are free ones picked at start, so
# clusters of concurrent tests do not meet; MinJobAge keeps finished jobs
# visible to `scontrol show job` for the length of a test; munged gets its
# own key and socket in DIR, so a machine's own munge (if any) is untouched.
set -euo pipefail

usage() { echo "usage: $0 start|stop DIR" >&2; exit 2; }
[[ $# -eq 2 ]] || usage
action=$1
dir=$(realpath -m "$2")

stop() {
  local name pid
  for name in slurmd slurmctld munged; do
    [[ -f "$dir/$name.pid" ]] || continue
    pid=$(cat "$dir/$name.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/$name.pid"
  done
}

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

start() {
  local missing=()
  local tool
  for tool in munged mungekey slurmctld slurmd sbatch; do
    command -v "$tool" >/dev/null || [[ -x "/usr/sbin/$tool" ]] || missing+=("$tool")
  done
  if [[ ${#missing[@]} -gt 0 ]]; then
    echo "$0: not installed: ${missing[*]} (install Debian's munge slurmctld slurmd slurm-client, e.g. by running ./bazelw)" >&2
    exit 1
  fi
  if [[ $(id -u) -ne 0 ]]; then
    echo "$0: a one-node cluster is started as root (slurmd runs jobs as their users)" >&2
    exit 1
  fi
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
  chmod 700 "$dir/munge"
  /usr/sbin/mungekey --create --keyfile="$dir/munge/munge.key" --force
  /usr/sbin/munged --force --key-file="$dir/munge/munge.key" --socket="$dir/munge/socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/seed"
  local host cpus memory
  host=$(hostname -s)
  cpus=$(nproc --all)
  memory=$(awk '/MemTotal/ {print int($2 / 1024 * 0.9)}' /proc/meminfo)
  cat > "$dir/slurm.conf" <<CONF
ClusterName=icount-test
SlurmctldHost=$host
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
SchedulerType=sched/backfill
MpiDefault=none
ReturnToService=2
MinJobAge=3600
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SlurmdTimeout=300
NodeName=$host CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF="$dir/slurm.conf"
  /usr/sbin/slurmctld -f "$SLURM_CONF"
  /usr/sbin/slurmd -f "$SLURM_CONF"
  # The node registers within a second or two on an idle machine; the
  # deadline is for one that makes no progress at all.
  local deadline=$((SECONDS + 120))
  while ((SECONDS < deadline)); do
    if sinfo -h -o '%T' 2>/dev/null | grep -qx idle; then
      echo "SLURM_CONF=$SLURM_CONF"
      return 0
    fi
    sleep 0.2
  done
  echo "$0: the node did not become idle in 120 s; sinfo says: $(sinfo -h 2>&1 || true)" >&2
  tail -n 20 "$dir/slurmctld.log" "$dir/slurmd.log" >&2 || true
  stop
  exit 1
}

case "$action" in
  start) start ;;
  stop) stop ;;
  *) usage ;;
esac
