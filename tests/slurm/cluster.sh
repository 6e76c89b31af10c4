#!/bin/bash
# A throwaway one-node Slurm cluster on this machine, for the tests: munged,
# slurmctld and slurmd from Debian's packages, run from a temporary directory
# with no systemd and no files outside it, as the calling user (SlurmUser and
# SlurmdUser: root only when run as root; the jobs are that user's own).
#
#   eval "$(tests/slurm/cluster.sh start)"   # exports SLURM_CONF, HMPT_SLURM_DIR
#   ... srun / sbatch / hmpt-tune --slurm ...
#   tests/slurm/cluster.sh stop               # stops every daemon, removes the dir
#
# HMPT_SLURM_NODES=N (default 1) starts N nodes, n1..nN, each its own slurmd
# on this machine (its own port and spool; Slurm's -N picks the node), so
# that jobs spread over nodes as on a cluster; with 1 the node is named as
# the machine.
#
# start exits 77 with the reason on standard error when Slurm is not
# installed, so that a test can skip; 1 when it is installed but does not
# come up (a failure: installed daemons must run here).
set -u

node=$(hostname -s)
nnodes=${HMPT_SLURM_NODES:-1}

die_skip() {
	echo "$*" >&2
	exit 77
}
die() {
	echo "$*" >&2
	exit 1
}

alive() { kill -0 "$1" 2>/dev/null && [[ $(ps -o stat= -p "$1" 2>/dev/null) != Z* ]]; }

# the node lines must say what slurmd finds, or a node is marked invalid;
# several nodes on this machine each listen on a port of their own
node_lines() { # FIRST-PORT
	local n i=0
	for n in $(node_names); do
		slurmd -C | awk -v n="$n" -v h="$node" -v port=$(($1 + i)) -v many=$((nnodes > 1)) '/^NodeName/ {
			for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
			printf "NodeName=%s NodeAddr=127.0.0.1 %sCPUs=%s Sockets=%s CoresPerSocket=%s ThreadsPerCore=%s RealMemory=%s State=UNKNOWN\n",
				n, many ? "NodeHostname=" h " Port=" port " " : "", v["CPUs"], v["SocketsPerBoard"],
				v["CoresPerSocket"], v["ThreadsPerCore"], v["RealMemory"] }'
		i=$((i + 1))
	done
}

# the nodes' names, as Slurm knows them
node_names() {
	local i
	if ((nnodes > 1)); then for ((i = 1; i <= nnodes; i++)); do echo "n$i"; done; else echo "$node"; fi
}

start() {
	local d port=16917 st="" i
	for c in munged mungekey slurmctld slurmd sbatch squeue sinfo scontrol; do
		command -v $c >/dev/null || die_skip "Slurm is not installed ($c missing)"
	done
	# the controller's port, then one per node
	while ss -Hltn "( sport >= :$port and sport <= :$((port + nnodes)) )" 2>/dev/null |
		grep -q .; do
		port=$((port + nnodes + 1))
	done
	d=$(mktemp -d /tmp/hmpt-slurm.XXXXXX)
	mkdir -p "$d/state" "$d/spool" "$d/tmp"
	cat >"$d/slurm.conf" <<EOF
ClusterName=hmpttest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=$(id -un)
SlurmdUser=$(id -un)
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$d/munge.sock
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool/%n
TmpFS=$d/tmp
SlurmctldPidFile=$d/slurmctld.pidfile
SlurmdPidFile=$d/slurmd.%n.pidfile
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
ReturnToService=2
KillWait=5
MinJobAge=4
InactiveLimit=0
MailProg=/bin/true
SchedulerParameters=batch_sched_delay=0
$(node_lines $((port + 1)))
PartitionName=debug Nodes=$(node_names | paste -sd,) Default=YES MaxTime=INFINITE State=UP
EOF
	export SLURM_CONF=$d/slurm.conf
	mungekey --create --keyfile="$d/munge.key" >/dev/null 2>&1 || die "mungekey failed"
	chmod 400 "$d/munge.key"
	# own sessions: a signal to the test's process group does not reach them
	setsid env HMPT_SLURM_TAG="$d" munged -F --force --socket="$d/munge.sock" \
		--key-file="$d/munge.key" --pid-file="$d/munged.pidfile" --log-file="$d/munged.log" \
		--seed-file="$d/munged.seed" </dev/null >>"$d/daemons.out" 2>&1 &
	echo $! >"$d/munged.pid"
	for i in $(seq 100); do [[ -S $d/munge.sock ]] && break; sleep 0.05; done
	setsid env HMPT_SLURM_TAG="$d" slurmctld -D -c -f "$SLURM_CONF" </dev/null >>"$d/daemons.out" 2>&1 &
	echo $! >"$d/slurmctld.pid"
	for n in $(node_names); do
		setsid env HMPT_SLURM_TAG="$d" slurmd -D -N "$n" -f "$SLURM_CONF" </dev/null \
			>>"$d/daemons.out" 2>&1 &
		echo $! >"$d/slurmd.$n.pid"
	done
	local want
	want=$(node_names | sed 's/$/ idle/' | paste -sd' ')
	for i in $(seq 300); do
		st=$(timeout 5 sinfo -h -N -o '%N %T' 2>/dev/null | sort | paste -sd' ')
		[[ $st == "$want" ]] && break
		alive "$(cat "$d/slurmctld.pid")" || { st="slurmctld exited"; break; }
		for n in $(node_names); do
			alive "$(cat "$d/slurmd.$n.pid")" || st="slurmd $n exited"
		done
		[[ $st == *exited ]] && break
		sleep 0.1
	done
	if [[ $st != "$want" ]]; then
		tail -n 5 "$d/daemons.out" "$d/slurmctld.log" "$d"/slurmd.*.log >&2 2>/dev/null
		HMPT_SLURM_DIR=$d stop >/dev/null 2>&1
		die "the local Slurm nodes never became idle (state: ${st:-none})"
	fi
	echo "export SLURM_CONF=$SLURM_CONF HMPT_SLURM_DIR=$d"
}

stop() {
	local d=${HMPT_SLURM_DIR:?} pid f p
	[[ -d $d ]] || return 0
	export SLURM_CONF=$d/slurm.conf
	if alive "$(cat "$d/slurmctld.pid" 2>/dev/null)"; then
		timeout 5 scancel --quiet --user="$(id -un)" 2>/dev/null
		# let cancelled jobs finish first, or slurmd waits for the controller
		for i in $(seq 50); do
			timeout 2 squeue -h -t PD,CF,R,CG 2>/dev/null | grep -q . || break
			sleep 0.1
		done
		timeout 5 scontrol shutdown >/dev/null 2>&1
	fi
	for f in "$d"/slurmd.*.pid "$d/slurmctld.pid" "$d/munged.pid"; do
		pid=$(cat "$f" 2>/dev/null) || continue
		[[ $f == */munged.pid ]] || for i in $(seq 50); do alive "$pid" || break; sleep 0.1; done
		alive "$pid" && kill -TERM "$pid" 2>/dev/null
		for i in $(seq 50); do alive "$pid" || break; sleep 0.1; done
		alive "$pid" && kill -KILL "$pid" 2>/dev/null
	done
	# anything the daemons started and left behind (slurmstepd, a job's tasks)
	for p in /proc/[0-9]*; do
		grep -qzx "HMPT_SLURM_TAG=$d" "$p/environ" 2>/dev/null && kill -KILL "${p#/proc/}" 2>/dev/null
	done
	rm -rf "$d"
}

case ${1:-} in
start) start ;;
stop) stop ;;
*)
	echo "usage: $0 start|stop" >&2
	exit 2
	;;
esac
