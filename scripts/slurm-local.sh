#!/usr/bin/env bash
# A single-node SLURM cluster on this machine, for tests and trying `citebench slurm` (docs/cluster.md):
# munged + slurmctld + slurmd in the background (ProctrackType=proctrack/linuxproc, no cgroups, no systemd),
# state, logs and slurm.conf under one folder. Needs root and Debian's slurm-wlm + munge (scripts/setup.sh).
#
#   scripts/slurm-local.sh start DIR [MAX_SECONDS]   start (idempotent); prints `export SLURM_CONF=DIR/slurm.conf`;
#                                                    a watchdog stops everything after MAX_SECONDS (default 600)
#   scripts/slurm-local.sh stop DIR                  cancel every job, wait for the queue to drain, stop the daemons
#
# Every client (sbatch, squeue, scancel) must see SLURM_CONF=DIR/slurm.conf.
set -euo pipefail
cmd=${1:?usage: slurm-local.sh start|stop DIR [MAX_SECONDS]}
dir=$(mkdir -p "${2:?give a state folder}" && cd "$2" && pwd)
export SLURM_CONF="$dir/slurm.conf"

pid_alive() { [ -f "$1" ] && kill -0 "$(cat "$1")" 2>/dev/null; }

stop() {
  if pid_alive "$dir/slurmctld.pid"; then
    scancel --full --quiet --user="$(id -un)" 2>/dev/null || true
    for _ in $(seq 1 50); do
      [ -z "$(squeue -h -o %i 2>/dev/null)" ] && break
      sleep 0.2
    done
    scontrol shutdown >/dev/null 2>&1 || true
  fi
  # Daemons that outlive `scontrol shutdown`, then job steps (slurmstepd) and munged: by their own pids.
  for f in slurmctld slurmd; do
    for _ in $(seq 1 50); do pid_alive "$dir/$f.pid" || break; sleep 0.1; done
    if pid_alive "$dir/$f.pid"; then kill -9 "$(cat "$dir/$f.pid")" 2>/dev/null || true; fi
  done
  for p in $(pgrep -f "slurmstepd.*" 2>/dev/null || true); do
    # only steps of this cluster: their spool folder is ours
    if tr '\0' '\n' < "/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_CONF=$SLURM_CONF"; then kill -9 "$p" 2>/dev/null || true; fi
  done
  if pid_alive "$dir/watchdog.pid"; then kill "$(cat "$dir/watchdog.pid")" 2>/dev/null || true; fi
  if pid_alive "$dir/munged.pid"; then kill "$(cat "$dir/munged.pid")" 2>/dev/null || true; fi
  rm -f "$dir"/*.pid
}

if [ "$cmd" = stop ]; then stop; exit 0; fi
[ "$cmd" = start ] || { echo "usage: slurm-local.sh start|stop DIR [MAX_SECONDS]" >&2; exit 2; }
for b in munged slurmctld slurmd sbatch; do
  command -v "$b" >/dev/null || [ -x "/usr/sbin/$b" ] || { echo "slurm-local: $b not installed (apt-get install slurm-wlm munge; scripts/setup.sh)" >&2; exit 3; }
done
[ "$(id -u)" = 0 ] || { echo "slurm-local: needs root (slurmd runs jobs as their users)" >&2; exit 3; }
max=${3:-600}
host=$(hostname -s)
mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
if ! pid_alive "$dir/munged.pid"; then
  # munged with its own socket and pid file: never disturbs a munged the machine may already run.
  [ -f /etc/munge/munge.key ] || /usr/sbin/mungekey --create >/dev/null 2>&1 || /usr/sbin/create-munge-key >/dev/null 2>&1 || true
  chown munge:munge "$dir/munge"
  /usr/sbin/munged --force --socket="$dir/munge/munge.socket.2" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" 2>/dev/null
  for _ in $(seq 1 50); do [ -f "$dir/munge/munged.pid" ] && break; sleep 0.1; done
  cp "$dir/munge/munged.pid" "$dir/munged.pid"
fi
# Two ports (slurmctld, slurmd) free on this machine: another test's cluster may be running beside this one.
in_use() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
port=${SLURM_LOCAL_PORT:-$(( 20000 + (RANDOM % 2000) * 2 ))}
if [ -f "$SLURM_CONF" ] && pid_alive "$dir/slurmctld.pid"; then
  port=$(sed -n 's/^SlurmctldPort=//p' "$SLURM_CONF")
else
  for _ in $(seq 1 50); do
    in_use "$port" || in_use $((port + 1)) || break
    port=$((port + 2))
  done
fi
cat > "$SLURM_CONF" <<CONF
ClusterName=citebench-local
SlurmctldHost=$host
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge/munge.socket.2
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ReturnToService=2
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
SchedulerParameters=sched_interval=1
MinJobAge=600
NodeName=$host CPUs=$(nproc) RealMemory=${SLURM_LOCAL_MEMORY_MB:-8000} State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
pid_alive "$dir/slurmctld.pid" || { slurmctld -D -i > "$dir/slurmctld.out" 2>&1 & }
pid_alive "$dir/slurmd.pid" || { slurmd -D > "$dir/slurmd.out" 2>&1 & }
for _ in $(seq 1 300); do # up to 60 s: a loaded machine starts slowly
  sinfo -h -o %T 2>/dev/null | grep -qx idle && break
  sleep 0.2
done
sinfo -h -o %T 2>/dev/null | grep -qx idle || { echo "slurm-local: the node did not come up; see $dir/*.log" >&2; stop; exit 1; }
if ! pid_alive "$dir/watchdog.pid"; then
  # The time limit: whatever happens to the caller, nothing outlives MAX_SECONDS.
  ( sleep "$max"; "$0" stop "$dir" ) > /dev/null 2>&1 < /dev/null &
  echo $! > "$dir/watchdog.pid"
fi
echo "export SLURM_CONF=$SLURM_CONF"
