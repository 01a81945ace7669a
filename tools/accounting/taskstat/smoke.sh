#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke test of taskstat against the running kernel: runs each subcommand
# and checks its exit status and output. Prints TAP; exits 0 only if every
# test passed. Run as root:  smoke.sh /path/to/taskstat
set -u

ts=${1:?usage: smoke.sh /path/to/taskstat}
tmp=$(mktemp -d /tmp/tsmoke.XXXXXX) || exit 1
n=0
failed=0
cgdir=

cleanup() {
	[[ -n $cgdir ]] && { umount "$cgdir" 2>/dev/null; rmdir "$cgdir" 2>/dev/null; }
	rm -rf "$tmp"
}
trap cleanup EXIT

ok() { n=$((n + 1)); echo "ok $n - taskstat: $1"; }
fail() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - taskstat: $1"; }
skip() { n=$((n + 1)); echo "ok $n - taskstat: $1 # SKIP $2"; }
# check NAME CONDITION-COMMAND...
check() {
	local name=$1
	shift
	if "$@"; then
		ok "$name"
	else
		fail "$name"
		sed 's/^/# /' "$tmp/out" "$tmp/err" 2>/dev/null | cut -c1-200 | head -20
	fi
}
# run ARGS...: runs taskstat, output in $tmp/out and $tmp/err, status in $rc
run() {
	timeout 30 "$ts" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
}
has() { grep -q -- "$1" "$tmp/${2:-out}"; }
# Each line of $tmp/out is one JSON object; $1 is a Python expression over
# the list of them, `objs`, that must be true.
json_ok() {
	python3 -c '
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
sys.exit(0 if objs and ('"$1"') else 1)' "$tmp/out" 2>>"$tmp/err"
}

echo "TAP version 13"

# --- help and usage
run --help
check "--help exits 0 and names every command" \
	eval '[[ $rc == 0 ]] && has "taskstat get" && has "taskstat top" &&
		has listen && has cgroup'
for c in get top listen cgroup; do
	run "$c" --help
	check "$c --help exits 0" eval '[[ $rc == 0 ]] && has "usage: taskstat $c"'
done
run get
check "get without a task is a usage error (2)" eval '[[ $rc == 2 ]]'
run top -s no-such-key
check "top with an unknown sort key is a usage error (2)" eval '[[ $rc == 2 ]]'

# --- get
run get -p $$
check "get -p shows every field with its unit" \
	eval '[[ $rc == 0 ]] && has "^version " && has "pid $$" &&
		has "^ac_utime  *ms" && has "^read_char  *bytes"'
run get -t $$
check "get -t shows the thread group record" eval '[[ $rc == 0 ]] && has "tgid $$"'
run get --json -p $$
check "get --json is one object with the task's id and version" \
	json_ok "len(objs) == 1 and objs[0]['ac_pid'] == $$ and objs[0]['version'] > 0"
run get -p 2147483647
check "get of a missing task fails (1) with a hint" \
	eval '[[ $rc == 1 ]] && has "no such task" err'
if [[ $(cat /proc/sys/kernel/task_delayacct 2>/dev/null) == 0 ]]; then
	run get --json -p $$
	classes="('blkio', 'swapin', 'freepages', 'thrashing', 'compact', 'wpcopy', 'irq')"
	if json_ok "all(objs[0].get(c + '_count', 0) == 0 for c in $classes)"; then
		check "get hints at kernel.task_delayacct when delays are off" \
			has task_delayacct err
	else
		skip "delay accounting hint" "this shell has delays recorded"
	fi
else
	skip "delay accounting hint" "kernel.task_delayacct is on"
fi
if command -v setpriv >/dev/null; then
	timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$ts" get -p $$ >"$tmp/out" 2>"$tmp/err"
	rc=$?
	check "get without CAP_NET_ADMIN fails (1) naming the capability" \
		eval '[[ $rc == 1 ]] && has CAP_NET_ADMIN err'
else
	skip "get without CAP_NET_ADMIN" "no setpriv"
fi

# --- top
run top --once -v
check "top --once lists tasks and says how it collected them" \
	eval '[[ $rc == 0 ]] && has "^taskstat top" && has "CPUDLY" && has " $$ " &&
		has "collecting with the TASKSTATS dump\|no TASKSTATS dump" err'
if has "no TASKSTATS dump" err; then
	how=$(grep -o 'dump ([^)]*)' "$tmp/err" | head -1)
	ok "top: the kernel has no dump, fell back to one GET per task $how"
else
	ok "top: the kernel answered the dump"
fi
run top --once --json -s cpu
check "top --once --json: one object per task, this shell among them" \
	json_ok "(any(o['id'] == $$ and o['frame'] == 1 for o in objs) and
		all('cpu_delay_total' in o for o in objs))"
run top --once --json -P
check "top -P --json: thread group records" \
	json_ok "any(o['id'] == $$ and o['type'] == 'tgid' for o in objs)"
run top -b -n 2 -d 0.2 -s blkio
check "top -b -n 2 prints a totals frame and a deltas frame" \
	eval '[[ $rc == 0 ]] && has "totals since" && has "changes over the last"'
for k in cpu cpu-delay swapin freepages thrashing compact wpcopy irq read write; do
	run top --once -l 3 -s "$k"
	[[ $rc == 0 ]] || break
done
check "top --once accepts every sort key" eval '[[ $rc == 0 ]]'

# --- listen: a workload whose pid is known before it runs anything
mkfifo "$tmp/go"
# listen_case N ARGS...: a workload ($wl) waits on $tmp/go, then runs
# /bin/true N times, while `listen --ppid $wl --count N ARGS...` records
# their exits; output in $tmp/out and $tmp/err, status in $rc
listen_case() {
	local count=$1 pid
	shift
	# shellcheck disable=SC2016
	bash -c 'read -r _ <"$1"; for ((i = 0; i < $2; i++)); do /bin/true; done; :' \
		_ "$tmp/go" "$count" &
	wl=$!
	timeout 30 "$ts" listen --ppid "$wl" --count "$count" "$@" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	for _ in $(seq 200); do
		has listening err && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.05
	done
	echo go >"$tmp/go"
	wait $wl
	wait $pid
	rc=$?
}
listen_case 3
check "listen prints one line per exiting task" \
	eval '[[ $rc == 0 ]] && [[ $(grep -c "^pid .* true " "$tmp/out") == 3 ]]'

listen_case 2 --json
check "listen --json: one object per record" \
	json_ok "($rc == 0 and len(objs) == 2 and
		all(o['ac_comm'] == 'true' and o['ac_ppid'] == $wl for o in objs))"

listen_case 2 --table
check "listen --table prints a table at the end" \
	eval '[[ $rc == 0 ]] && has "^field " && has "true/" && has "^ac_ppid  *$wl  *$wl"'

# --- cgroup: a named v1 hierarchy without controllers
run cgroup "$tmp"
check "cgroup on a non-cgroup directory fails (1) explaining cgroup v1" \
	eval '[[ $rc == 1 ]] && has "cgroup v1" err'
cgdir=$(mktemp -d /tmp/tsmoke-cg.XXXXXX)
if mount -t cgroup -o none,name=tsmoke none "$cgdir" 2>"$tmp/err" &&
   mkdir "$cgdir/sub"; then
	bash -c 'while :; do :; done' &
	spin=$!
	echo $spin >"$cgdir/sub/cgroup.procs"
	run cgroup "$cgdir/sub"
	check "cgroup prints the task counts" \
		eval '[[ $rc == 0 ]] && has "^running  *1" && has "^sleeping " && has "^io_wait "'
	run cgroup --json "$cgdir/sub"
	check "cgroup --json" \
		json_ok "objs[0]['nr_running'] == 1 and 'nr_io_wait' in objs[0]"
	kill $spin
	wait $spin 2>/dev/null
	rmdir "$cgdir/sub"
	umount "$cgdir"
else
	skip "cgroup" "cannot mount a named cgroup v1 hierarchy: $(head -1 "$tmp/err")"
	skip "cgroup --json" "as above"
fi
rmdir "$cgdir" 2>/dev/null
cgdir=

echo "1..$n"
echo "smoke: $((n - failed)) passed, $failed failed"
[[ $failed == 0 ]]
