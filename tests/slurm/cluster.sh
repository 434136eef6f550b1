#!/usr/bin/env bash
# A one-node Slurm cluster with accounting, on 127.0.0.1, under one folder: MariaDB, munge,
# slurmdbd, slurmctld and slurmd from Debian's packages, eight GPUs as gres/gpu backed by device
# nodes made here. Used by tests/integration/slurm_live.rs.
#
#   cluster.sh up DIR      start everything; prints `export SLURM_CONF=...` lines on success
#   cluster.sh down DIR    stop everything it started (by the pid files under DIR)
#
# Every daemon runs as the calling user (root in CI) and writes only under DIR.
set -euo pipefail

command_="${1:?up|down}"
dir="${2:?folder}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

wait_for() { # seconds, description, command...
  local seconds="$1" what="$2"; shift 2
  local deadline=$((SECONDS + seconds))
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      echo "cluster.sh: $what did not come up within ${seconds}s" >&2
      for log in "$dir"/log/*.log; do echo "--- $log" >&2; tail -n 20 "$log" >&2 || true; done
      return 1
    fi
    sleep 0.2
  done
}

down() {
  # Jobs first, while the controller can still end them; then the daemons; then anything left
  # working in this folder (job steps, their processes: the test runs jobs with --chdir here).
  if [[ -f "$dir/etc/slurm.conf" && -f "$dir/run/slurmctld.pid" ]]; then
    SLURM_CONF="$dir/etc/slurm.conf" timeout 10 scancel --full --user="$(id -un)" >/dev/null 2>&1 || true
    for _ in $(seq 1 50); do
      [[ -z "$(SLURM_CONF="$dir/etc/slurm.conf" timeout 5 squeue -h -o %i 2>/dev/null)" ]] && break
      sleep 0.2
    done
  fi
  for name in slurmd slurmctld slurmdbd munged mariadbd; do
    local pidfile="$dir/run/$name.pid"
    [[ -f "$pidfile" ]] || continue
    local pid; pid="$(cat "$pidfile" 2>/dev/null || true)"
    [[ -n "$pid" ]] || continue
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$pidfile"
  done
  for proc in /proc/[0-9]*; do
    local cwd; cwd="$(readlink "$proc/cwd" 2>/dev/null || true)"
    local pid="${proc#/proc/}"
    [[ "$pid" == "$$" || "$pid" == "$PPID" ]] && continue
    if [[ "$cwd" == "$dir" || "$cwd" == "$dir"/* ]]; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

up() {
  for tool in mariadbd mariadb-install-db munged mungekey slurmdbd slurmctld slurmd sacct sacctmgr sbatch; do
    command -v "$tool" >/dev/null || { echo "cluster.sh: $tool is not installed" >&2; exit 3; }
  done
  mkdir -p "$dir"/{db,run,log,etc,spool,state,dev,munge,jobs}
  chmod 700 "$dir/munge"
  local user; user="$(id -un)"
  local host; host="$(hostname -s)"
  local db_port dbd_port ctld_port slurmd_port
  db_port="$(free_port)"; dbd_port="$(free_port)"; ctld_port="$(free_port)"; slurmd_port="$(free_port)"

  # MariaDB on a free port, grants off: only this folder's slurmdbd talks to it.
  mariadb-install-db --no-defaults --datadir="$dir/db" --user="$user" --auth-root-authentication-method=normal \
    >"$dir/log/mariadb-install.log" 2>&1
  mariadbd --no-defaults --datadir="$dir/db" --user="$user" --bind-address=127.0.0.1 --port="$db_port" \
    --socket="$dir/run/mysql.sock" --pid-file="$dir/run/mariadbd.pid" --skip-grant-tables \
    --log-error="$dir/log/mariadb.log" &
  wait_for 60 "MariaDB" test -S "$dir/run/mysql.sock"

  # munge with its own key and socket.
  mungekey --create --keyfile="$dir/munge/munge.key" --force
  munged --key-file="$dir/munge/munge.key" --socket="$dir/run/munge.sock" --pid-file="$dir/run/munged.pid" \
    --log-file="$dir/log/munged.log" --seed-file="$dir/munge/seed" --force
  wait_for 20 "munged" test -S "$dir/run/munge.sock"

  # Eight GPUs: device nodes with NVIDIA's major number, which slurmd only looks at.
  for i in $(seq 0 7); do
    [[ -e "$dir/dev/nvidia$i" ]] || mknod "$dir/dev/nvidia$i" c 195 "$i" 2>/dev/null || touch "$dir/dev/nvidia$i"
  done

  cat >"$dir/etc/slurmdbd.conf" <<CONF
AuthType=auth/munge
AuthInfo=socket=$dir/run/munge.sock
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=$user
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=root
StorageLoc=slurm_acct_db
PidFile=$dir/run/slurmdbd.pid
LogFile=$dir/log/slurmdbd.log
DebugLevel=info
CONF
  chmod 600 "$dir/etc/slurmdbd.conf"

  cat >"$dir/etc/slurm.conf" <<CONF
ClusterName=gpt
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=$user
SlurmdUser=$user
AuthType=auth/munge
AuthInfo=socket=$dir/run/munge.sock,cred_expire=5
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/run/slurmctld.pid
SlurmdPidFile=$dir/run/slurmd.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
AccountingStoragePass=$dir/run/munge.sock
AccountingStorageTRES=gres/gpu,gres/gpu:a100
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=1
JobCompType=jobcomp/none
ReturnToService=2
SlurmdParameters=config_overrides
MinJobAge=2
SchedulerParameters=sched_interval=1
KillWait=2
Waittime=0
NodeName=$host NodeAddr=127.0.0.1 CPUs=8 Boards=1 SocketsPerBoard=1 CoresPerSocket=8 ThreadsPerCore=1 RealMemory=4096 Gres=gpu:a100:8 State=UNKNOWN
PartitionName=gpu Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=NO
CONF
  cat >"$dir/etc/gres.conf" <<CONF
NodeName=$host Name=gpu Type=a100 File=$dir/dev/nvidia[0-7]
CONF
  cat >"$dir/env" <<CONF
export SLURM_CONF=$dir/etc/slurm.conf
CONF
  export SLURM_CONF="$dir/etc/slurm.conf"

  slurmdbd
  wait_for 60 "slurmdbd" sacctmgr -n list cluster
  sacctmgr -i add cluster gpt >/dev/null
  slurmctld
  wait_for 60 "slurmctld" scontrol ping
  slurmd
  wait_for 60 "slurmd" bash -c "sinfo -h -o %T | grep -Eq '^(idle|mixed|allocated)'"
  cat "$dir/env"
}

case "$command_" in
  up) up ;;
  down) down ;;
  *) echo "cluster.sh: up DIR or down DIR" >&2; exit 2 ;;
esac
