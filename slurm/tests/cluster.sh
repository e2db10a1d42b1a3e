#!/bin/bash
# A single-node SLURM cluster on localhost for tests, with its own munge key
# and socket and every file in one directory: source this file, then
#   cluster_start DIR    starts munged, slurmctld and slurmd; exports
#                        SLURM_CONF; returns non-zero (with a reason on
#                        stderr) where the daemons cannot start
#   cluster_stop         stops the daemons cluster_start started
# Uses Debian's slurm-wlm and munge; must run as root (SlurmUser root).

cluster_dir=""

# A TCP port on 127.0.0.1 that nothing listens on (nothing answers it).
free_port() {
  local p
  for _ in $(seq 1 50); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

cluster_start() {
  cluster_dir=$1
  local d=$cluster_dir host cpus mem
  for tool in munged slurmctld slurmd sbatch squeue scontrol scancel; do
    command -v "$tool" >/dev/null || {
      echo "$tool not found (Debian packages slurm-wlm and munge)" >&2
      return 1
    }
  done
  [ "$(id -u)" = 0 ] || {
    echo "a test cluster needs root (SlurmUser root)" >&2
    return 1
  }
  mkdir -p "$d/munge" "$d/sock" "$d/state" "$d/spool" "$d/log" "$d/tmp"
  chmod 700 "$d/munge"
  chmod 755 "$d" "$d/sock"
  head -c 1024 /dev/urandom >"$d/munge/munge.key"
  chmod 400 "$d/munge/munge.key"
  munged --socket="$d/sock/munge.sock" --key-file="$d/munge/munge.key" \
    --pid-file="$d/munge/munged.pid" --log-file="$d/log/munged.log" \
    --seed-file="$d/munge/munged.seed" || {
    echo "munged did not start: $(tail -n 1 "$d/log/munged.log" 2>/dev/null)" >&2
    return 1
  }

  host=$(hostname -s)
  cpus=$(nproc)
  mem=$(($(awk '/MemTotal/ { print $2 }' /proc/meminfo) / 1024 / 2))
  cat >"$d/slurm.conf" <<CONF
ClusterName=quarrytest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/sock/munge.sock
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
# PMIx makes a directory per step under TmpFS, named by job and step id
# only; a killed step can leave one behind, and every test cluster counts
# job ids from 1, so under a shared /tmp a later step would fail to launch.
TmpFS=$d/tmp
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=pmix
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
EnforcePartLimits=ALL
MinJobAge=3600
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
  export SLURM_CONF=$d/slurm.conf
  slurmctld -f "$SLURM_CONF" && slurmd -f "$SLURM_CONF" || {
    echo "slurmctld or slurmd did not start (logs in $d/log)" >&2
    return 1
  }
  # The node registers within seconds; until then jobs would only queue.
  for _ in $(seq 1 60); do
    if sinfo -h -o '%t' 2>/dev/null | grep -qx idle; then
      return 0
    fi
    sleep 0.5
  done
  echo "the node did not come up: $(tail -n 2 "$d/log/slurmd.log" 2>/dev/null | tr '\n' ' ')" >&2
  return 1
}

cluster_stop() {
  [ -n "$cluster_dir" ] || return 0
  local f pid
  for f in slurmd.pid slurmctld.pid munge/munged.pid; do
    pid=$(cat "$cluster_dir/$f" 2>/dev/null) || continue
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -9 "$pid" 2>/dev/null || true
  done
  cluster_dir=""
}
