#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of `make bench`: runs every workload of taskstats_bench once
# and appends its RESULT lines (and '#' diagnostics) to the output file.
#
#   guest-bench.sh BENCH_BINARY OUTPUT_FILE quick|full [BOOT]
#
# The workloads come in four blocks (delays, GETs, collecting, exits). Boot
# BOOT (1, 2, ...; make bench numbers its boots) starts at block BOOT and
# wraps around, so each block follows a different one in each boot. Under
# -icount identical boots replay identically: without the rotation the
# boots of a kernel are one sample, and a row's spread is zero however much
# it depends on what ran before it (pipe round trips move by 0.35 % with it).
#
# A step that fails, times out or prints no result is recorded as
# "RESULT <name> error -" and the next step runs; a step the kernel cannot
# do at all (delay accounting missing) as "RESULT <name> unsupported -".
# Uses RIG_SCRATCH_DEV (the scratch block device) for the O_DIRECT reads.
set -u

bench=${1:?usage: guest-bench.sh BENCH_BINARY OUTPUT_FILE quick|full}
out=${2:?usage: guest-bench.sh BENCH_BINARY OUTPUT_FILE quick|full}
mode=${3:-full}
boot=${4:-1}
dev=${RIG_SCRATCH_DEV:-}

[[ $boot =~ ^[1-9][0-9]*$ ]] || { echo "guest-bench.sh: BOOT must be 1, 2, ..., not $boot" >&2; exit 2; }

case $mode in
quick) q=(-q) limit=60 ;;
full) q=() limit=300 ;;
*) echo "guest-bench.sh: mode must be quick or full, not $mode" >&2; exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

log() { echo "# $*" >>"$out"; }

# step NAME COMMAND...: runs one workload; NAME is what an error is filed as.
step() {
	local name=$1 rc t0 t1
	shift
	# make bench shows these lines while it waits (scripts/rig,
	# cmd_boot); a check's quick run has its TAP to show.
	[[ ${RIG_MODE:-} != bench ]] || echo "rig-guest: bench: $name" >/dev/console 2>/dev/null
	t0=$(date +%s.%N)
	timeout -k 5 "$limit" "$@" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	t1=$(date +%s.%N)
	grep -E '^(RESULT|#) ' "$tmp/stdout" >>"$out"
	sed 's/^/# stderr: /' "$tmp/stderr" >>"$out"
	log "step $name: exit $rc after $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s"
	if [[ $rc != 0 ]] || ! grep -q '^RESULT ' "$tmp/stdout"; then
		[[ $rc == 124 || $rc == 137 ]] && log "step $name: timed out after ${limit}s"
		echo "RESULT $name error -" >>"$out"
	fi
	return 0
}

log "taskstats bench: kernel $(uname -r) ($(uname -v)), mode $mode, $(nproc) CPUs"
log "$(grep MemTotal /proc/meminfo)"
if [[ ! -x $bench ]]; then
	log "no benchmark binary at $bench"
	for name in pingpong directio get_pid get_tgid_64 collect collect_cgroup exit_l0 exit_l1 \
		exit_l4 exit_ns0 exit_ns1000 exit_cg0 exit_cg1 exit_cg100; do
		echo "RESULT $name error -" >>"$out"
	done
	exit 1
fi

delayacct_prev=$(cat /proc/sys/kernel/task_delayacct 2>/dev/null || echo none)
log "kernel.task_delayacct was $delayacct_prev"

# Pipe round trips and O_DIRECT reads with delay accounting off, then on.
block_delays() {
	local state
	for state in off on; do
		if "$bench" delayacct "$state" >"$tmp/delayacct" 2>&1; then
			sed 's/^/# /' "$tmp/delayacct" >>"$out"
			step "pingpong_delayacct_$state" "$bench" "${q[@]}" -T "delayacct_$state" pingpong
			if [[ -b $dev || -f $dev ]]; then
				step "directio_delayacct_$state" "$bench" "${q[@]}" -T "delayacct_$state" \
					directio -f "$dev"
			else
				log "RIG_SCRATCH_DEV '$dev' is neither a block device nor a file"
				echo "RESULT directio_delayacct_$state error -" >>"$out"
			fi
		else
			sed 's/^/# /' "$tmp/delayacct" >>"$out"
			log "cannot switch delay accounting $state"
			echo "RESULT pingpong_delayacct_$state unsupported -" >>"$out"
			echo "RESULT directio_delayacct_$state unsupported -" >>"$out"
		fi
	done
	if [[ $delayacct_prev == [01] ]]; then
		echo "$delayacct_prev" >/proc/sys/kernel/task_delayacct
	fi
}

# GET latency: one task, then thread groups of 2 and 64 (what a thread
# costs is the difference), the latter again with every thread's delays
# accounted (threads created after switching it on). Then a group of 4097
# threads, and what its TGID GETs cost its other threads: how often one of
# them can take its siglock meanwhile.
block_gets() {
	local big=4096
	[[ $mode == quick ]] && big=32
	step get_pid "$bench" "${q[@]}" get
	step get_tgid_1 "$bench" "${q[@]}" tgid -t 1
	step get_tgid_64 "$bench" "${q[@]}" tgid -t 64
	step "get_tgid_${big}_siglock_rate" "$bench" "${q[@]}" siglock -t "$big"
	if "$bench" delayacct on >/dev/null 2>&1; then
		step get_tgid_64_delayacct_on "$bench" "${q[@]}" -T delayacct_on tgid -t 64
		echo "${delayacct_prev/none/0}" >/proc/sys/kernel/task_delayacct
	else
		echo "RESULT get_tgid_64_delayacct_on unsupported -" >>"$out"
	fi
}

# Collecting every task: GET per /proc entry against the dump, and the
# /proc walk of top, htop and atop (stat, io and schedstat of every
# thread) against both. Then one
# cgroup's tasks among many: the dump of a fresh cgroup v2 directory under
# /sys/fs/cgroup holding some of them against the whole-system dump.
block_collect() {
	if [[ $mode == quick ]]; then
		step collect_100 "$bench" "${q[@]}" collect -N 100
		step collect_cgroup_10_of_100 "$bench" "${q[@]}" cgroup -N 100 -g 10
	else
		step collect_1000 "$bench" collect -N 1000
		step collect_10000 "$bench" collect -N 10000
		step collect_cgroup_100_of_10000 "$bench" cgroup -N 10000 -g 100
	fi
}

# fork+exit+wait with 0, 1 and 4 exit listeners on all CPUs. Then the same
# with 1000 listeners registered from 4 containers: they see none of these
# exits, and must cost them nothing. Its control is the same 4 containers
# without a listener (exit_ns0): creating them (user, pid and network
# namespaces) costs the host's exits something of its own, which is not
# the listeners'. Last, fork+exit+wait in a fresh cgroup with 0, 1 and 100
# listeners registered for another cgroup (DUMP_CGROUP_FD beside
# REGISTER_CPUMASK): each exit costs them a test that it is not theirs.
# Their control is the same cgroups without a listener (exit_cg0). A kernel
# without cgroup listeners (the GET policy has no CGROUP_ID, attribute 8)
# would take them for listeners of every exit: "unsupported" there.
block_exits() {
	local l
	for l in 0 1 4; do
		step "exit_l$l" "$bench" "${q[@]}" exit -l "$l"
	done
	step exit_ns0 "$bench" "${q[@]}" exit -l 0 -c 4
	step exit_ns1000 "$bench" "${q[@]}" exit -l 1000 -c 4
	for l in 0 1 100; do
		step "exit_cg$l" "$bench" "${q[@]}" exit -G -l "$l"
	done
}

blocks=(delays gets collect exits)
for ((i = 0; i < ${#blocks[@]}; i++)); do
	block=${blocks[(boot - 1 + i) % ${#blocks[@]}]}
	log "block $block"
	"block_$block"
done
log "taskstats bench: done"
exit 0
