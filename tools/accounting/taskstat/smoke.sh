#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Smoke test of taskstat against the running kernel: runs each subcommand
# and checks its exit status and output. Prints TAP; exits 0 only if every
# test passed. Run as root:  smoke.sh /path/to/taskstat
#
# The kernel's TASKSTATS family says which behaviour to expect (the
# tree's ynl asks CTRL_CMD_GETFAMILY for its commands and their flags):
# a GET that can dump is this
# implementation's, which answers CGROUPSTATS on cgroup v2, dumps one
# cgroup and refuses a socket of a foreign network namespace; a GET
# without is Linux 6.12's own, which answers EINVAL on v2 and cannot
# dump, so that taskstat falls back. Without ynl (outside a kernel tree,
# or no python3-yaml), either behaviour passes and the test says which
# it saw.
#
# Cgroup ids and listeners for one cgroup are there if the policy of the
# family's GET lists TASKSTATS_CMD_ATTR_CGROUP_ID (8), as CTRL_CMD_GETPOLICY
# tells ynl and taskstat alike; 6.12's own has no such attribute, and
# taskstat must refuse listen --cgroup there rather than hear every exit.
#
# SMOKE_ONLY="names io tui" runs only those groups of tests (the part_*
# functions below). hostile.py and tui_drive.py, beside this script, run
# tasks with hostile names and drive top in a terminal (python3's pty;
# tmux for what the screen shows, where it is installed).
set -u

ts=${1:?usage: smoke.sh /path/to/taskstat}
tmp=$(mktemp -d /tmp/tsmoke.XXXXXX) || exit 1
n=0
failed=0
cgdir=
cg=
kids=()
slow= slow_loop= slow_dm=
kernel=
tree=$(cd "$(dirname "$0")/../../.." && pwd)
# nlctrl ARGS...: the tree's ynl, asking the genl controller.
nlctrl() {
	python3 "$tree/tools/net/ynl/cli.py" --output-json \
		--spec "$tree/Documentation/netlink/specs/nlctrl.yaml" "$@"
}
if nlctrl --do getfamily --json '{"family-name": "TASKSTATS"}' >"$tmp/family" 2>&1; then
	kernel=nodump
	grep -q '"id": 1, [^}]*cmd-cap-dump\|cmd-cap-dump[^}]*"id": 1' "$tmp/family" && kernel=dump
fi
cgids=
if nlctrl --dump getpolicy --json '{"family-name": "TASKSTATS", "op": 1}' >"$tmp/policy" 2>&1; then
	cgids=$(python3 -c '
import json, sys
msgs = json.load(open(sys.argv[1]))
do = [m["op-policy"].get("do") for m in msgs
      if m.get("op-policy", {}).get("op-id") == 1]
print("yes" if any(m.get("policy", {}).get("policy-id") in do and
                   m["policy"].get("attr-id") == 8 for m in msgs) else "no")' \
		"$tmp/policy" 2>/dev/null)
fi

# The tasks of the cgroup v2 tests, then their cgroups, deepest first.
cg_cleanup() {
	local d
	if ((${#kids[@]})); then
		kill -KILL "${kids[@]}" 2>/dev/null
		wait "${kids[@]}" 2>/dev/null
	fi
	kids=()
	[[ -n $cg ]] || return 0
	for d in "$cg/gone" "$cg/sub" "$cg/a/sub" "$cg/a" "$cg/b" "$cg"; do
		[[ -d $d ]] || continue
		for _ in $(seq 50); do
			rmdir "$d" 2>/dev/null && break
			sleep 0.1
		done
	done
	cg=
}

# A disk of our own that serves every read 8 s late (dm-delay over a loop
# device), in $slow.
slow_disk() {
	command -v losetup >/dev/null && command -v dmsetup >/dev/null || return 1
	truncate -s 1M "$tmp/slow.img" &&
		slow_loop=$(losetup -f --show "$tmp/slow.img") || return 1
	slow_dm=ts_smoke_slow_$$
	echo "0 2048 delay $slow_loop 0 8000" | dmsetup create "$slow_dm" ||
		{ slow_dm=; return 1; }
	# devtmpfs's node: /dev/mapper's is udev's to make.
	slow=/dev/dm-$(dmsetup info -c --noheadings -o minor "$slow_dm" | tr -d ' ')
	[[ -b $slow ]]
}
slow_disk_drop() {
	[[ -n ${slow_dm:-} ]] && dmsetup remove --retry "$slow_dm" >/dev/null 2>&1
	[[ -n ${slow_loop:-} ]] && losetup -d "$slow_loop" 2>/dev/null
	slow_dm= slow_loop=
}

devpts=
cleanup() {
	cg_cleanup
	[[ -n $devpts ]] && umount "$devpts" 2>/dev/null
	slow_disk_drop
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
# as_nobody ARGS...: run, as user nobody (needs setpriv)
as_nobody() {
	timeout 30 setpriv --reuid=65534 --regid=65534 --clear-groups "$ts" "$@" \
		>"$tmp/out" 2>"$tmp/err"
	rc=$?
}
has() { grep -q -- "$1" "$tmp/${2:-out}"; }
# wait_said PID PATTERN [err]: until $tmp/out (or $tmp/err) has PATTERN,
# for at most 10 s, or until the background command PID has ended.
wait_said() {
	local pid=$1
	shift
	for _ in $(seq 200); do
		has "$@" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}
# Each line of $tmp/out is one JSON object; $1 is a Python expression over
# the list of them, `objs`, that must be true.
json_ok() {
	python3 -c '
import json, sys
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
sys.exit(0 if objs and ('"$1"') else 1)' "$tmp/out" 2>>"$tmp/err"
}

# The state letter of task $1 in /proc/PID/stat.
task_state() {
	local s
	s=$(<"/proc/$1/stat") || return 1
	s=${s##*) }
	echo "${s%% *}"
}
# wait_state PID LETTER: until task PID is in that state, for at most 10 s.
wait_state() {
	for _ in $(seq 200); do
		[[ $(task_state "$1" 2>/dev/null) == "$2" ]] && return 0
		sleep 0.05
	done
	return 1
}

# --- issue 49: values right or marked, safe text, argument errors, top's
# terminal UI. Each part_* function is a group of tests; SMOKE_ONLY="names
# nice" (a list of part names) runs only those groups.
here=$(cd "$(dirname "$0")" && pwd)
parts="names nice absent io args json table top_active top_exited top_procs tui"

# Tasks that name themselves hostilely (control characters, invalid UTF-8,
# UTF-8, 15 and 16 bytes), then each output against /proc/PID/comm.
part_names() {
	local m what
	for m in get get-json listen listen-json top top-json; do
		case $m in
		get) what="get -p: names escaped (\\x1b, \\x0a, \\xNN), UTF-8 as is"
			what+=", one line each" ;;
		get-json) what="get --json: names decode to the task's bytes"
			what+=" (surrogateescape), é as é" ;;
		listen) what="listen: exits of hostile names, one line each, escaped,"
			what+=" with their exit codes" ;;
		listen-json)
			what="listen --json: names as the bytes, exit codes, a timestamp each" ;;
		top) what="top -b -n 1: hostile names escaped, no control byte" ;;
		top-json) what="top --once --json: names decode to the task's bytes" ;;
		esac
		timeout 90 python3 "$here/hostile.py" "$ts" "$m" >"$tmp/hostile" 2>&1
		rc=$?
		if [[ $rc == 0 ]]; then
			ok "$what"
		else
			fail "$what"
			head -20 "$tmp/hostile" | sed '/^# /!s/^/# /'
		fi
	done
}

# Signed nice: get's text and JSON against ps and /proc/PID/stat's field 19.
part_nice() {
	local want p st f19 ni
	for want in 5 -10; do
		if ((want < 0)) && [[ $(id -u) != 0 ]]; then
			skip "get shows a negative nice" "not root"
			continue
		fi
		nice -n "$want" sleep 60 &
		p=$!
		for _ in $(seq 100); do
			[[ $(cat "/proc/$p/comm" 2>/dev/null) == sleep ]] && break
			sleep 0.05
		done
		st=$(<"/proc/$p/stat")
		st=${st##*) }
		# Field 19; the words after the name start at field 3.
		f19=$(echo "$st" | cut -d' ' -f17)
		ni=$(ps -o ni= -p "$p" 2>/dev/null | tr -d ' ')
		run get -p "$p"
		cp "$tmp/out" "$tmp/nice.txt"
		run get --json -p "$p"
		check "get -p shows ac_nice $want signed, as ps (${ni:-no ps}) and stat ($f19)" \
			eval '[[ $f19 == "$want" ]] && [[ -z $ni || $ni == "$want" ]] &&
				grep -q "^ac_nice  *$want\$" "$tmp/nice.txt" &&
				json_ok "objs[0][\"ac_nice\"] == $want"'
		kill "$p"
		wait "$p" 2>/dev/null
	done
}

# listen_do N SCRIPT ARGS...: a workload ($wl) waits on $tmp/go, then
# runs SCRIPT (bash), while `listen --ppid $wl --count N ARGS...` records
# the exits of its children; output in $tmp/out and $tmp/err, status in $rc.
listen_do() {
	local count=$1 script=$2 pid
	shift 2
	[[ -p $tmp/go ]] || mkfifo "$tmp/go"
	# Its stderr: bash reports the task it saw killed.
	# shellcheck disable=SC2016
	bash -c 'read -r _ <"$1"; eval "$2"; :' _ "$tmp/go" "$script" 2>/dev/null &
	wl=$!
	: >"$tmp/out"
	: >"$tmp/err"
	timeout 30 "$ts" listen --ppid "$wl" --count "$count" "$@" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	wait_said $pid listening err
	echo go >"$tmp/go"
	wait $wl
	wait $pid
	rc=$?
}

# Fields a record does not carry: '-' in text, null in JSON.
part_absent() {
	local comm
	comm=$(<"/proc/$$/comm")
	run get -t $$
	check "get -t: a TGID record: '-' for ac_btime, ac_comm, ac_uid, ac_exitcode" \
		eval '[[ $rc == 0 ]] && has "^ac_btime  *-$" && has "^ac_comm  *-$" &&
			has "^ac_uid  *-$" && has "^ac_exitcode  *-$" &&
			has "^ac_utime  *ms  *[0-9]"'
	run get --json -t $$
	check "get --json -t: null for ac_btime, ac_comm, ac_uid, ac_exitcode" \
		json_ok "all(objs[0][k] is None for k in ('ac_btime', 'ac_comm', 'ac_uid',
			'ac_exitcode')) and isinstance(objs[0]['ac_utime'], int)"
	run get -p $$
	check "get -p of a live task: ac_exitcode '-', ac_comm $comm" \
		eval '[[ $rc == 0 ]] && has "^ac_exitcode  *-$" && has "^ac_comm  *$comm$"'
	run get --json -p $$
	check "get --json -p of a live task: ac_exitcode null" \
		json_ok "objs[0]['ac_exitcode'] is None and objs[0]['ac_comm'] == '$comm'"
	listen_do 2 "sh -c 'exit 3'; sh -c 'kill -9 \$\$'"
	check "listen shows the exit record's status: exit 3, signal 9" \
		eval '[[ $rc == 0 ]] && grep -q "^pid .* sh  *exit 3 " "$tmp/out" &&
			grep -q "^pid .* sh  *signal 9 " "$tmp/out"'
	listen_do 2 "sh -c 'exit 3'; sh -c 'kill -9 \$\$'" --json
	check "listen --json: ac_exitcode 768 (exit 3) and 9 (SIGKILL)" \
		json_ok "sorted(o['ac_exitcode'] for o in objs) == [9, 768]"
}

# A task that made a known number of read(2)s, stopped: its counters
# against /proc/PID/task/PID/io. Rounded to KiB on 6.12's own and
# upstream's kernels, exact on this series' for root.
part_io() {
	local p syscr rchar rsys rch want
	# shellcheck disable=SC2016
	python3 -c '
import os, signal
fd = os.open("/dev/zero", os.O_RDONLY)
def syscr():
    with open("/proc/thread-self/io") as f:
        return int([l for l in f if l.startswith("syscr")][0].split()[1])
for _ in range(1500):
    os.read(fd, 1)
# Away from a multiple of 1024, where rounding would not show.
while not 100 < syscr() % 1024 < 900:
    for _ in range(150):
        os.read(fd, 1)
os.kill(os.getpid(), signal.SIGSTOP)' &
	p=$!
	if ! wait_state $p T; then
		fail "I/O counters: the reader $p never stopped"
		kill -KILL $p
		wait $p 2>/dev/null
		return
	fi
	syscr=$(awk '$1 == "syscr:" { print $2 }' "/proc/$p/task/$p/io")
	rchar=$(awk '$1 == "rchar:" { print $2 }' "/proc/$p/task/$p/io")
	run get -p $p
	cp "$tmp/out" "$tmp/io.txt"
	run get --json -p $p
	# shellcheck disable=SC2034 # read in the eval'd conditions
	rsys=$((syscr / 1024 * 1024)) rch=$((rchar / 1024 * 1024))
	want=$kernel
	if [[ -z $want ]]; then
		# No ynl: which one the values are.
		want=dump
		json_ok "objs[0]['read_syscalls'] == $rsys" && want=nodump
	fi
	if [[ $want == dump && $(id -u) != 0 ]]; then
		skip "I/O counters exact" "not root: this kernel rounds for others"
	elif [[ $want == dump ]]; then
		check "get: I/O exact ($syscr reads, $rchar bytes as in /proc), not rounded" \
			eval 'grep -q "^read_syscalls  *$syscr\$" "$tmp/io.txt" &&
				grep -q "^read_char  *bytes  *$rchar\$" "$tmp/io.txt" &&
				! grep -q "rounded" "$tmp/io.txt" &&
				json_ok "objs[0][\"io_rounded\"] is False and
					objs[0][\"read_syscalls\"] == $syscr and
					objs[0][\"read_char\"] == $rchar"'
	else
		check "get: I/O rounded to KiB marked '~' ($rsys~ of $syscr reads), rounded" \
			eval 'grep -q "^read_syscalls  *$rsys~\$" "$tmp/io.txt" &&
				grep -q "^read_char  *bytes  *$rch~\$" "$tmp/io.txt" &&
				grep -q "^write_syscalls  *[0-9]*~\$" "$tmp/io.txt" &&
				grep -q "^~ .*rounded" "$tmp/io.txt" &&
				json_ok "objs[0][\"io_rounded\"] is True and
					objs[0][\"read_syscalls\"] == $rsys and
					objs[0][\"read_char\"] == $rch"'
	fi
	kill -KILL $p
	wait $p 2>/dev/null
}

# Argument errors name the bad argument and exit 2.
part_args() {
	run get -p 1 -t 1
	check "get -p 1 -t 1 is a usage error (2) naming -p and -t" \
		eval '[[ $rc == 2 ]] && has "-p" err && has "-t" err && [[ ! -s $tmp/out ]]'
	run get -p 1 extra
	check "get -p 1 extra is a usage error (2) naming 'extra'" \
		eval '[[ $rc == 2 ]] && has "extra" err'
	run listen -c abc --count 1
	check "listen -c abc is a usage error (2) naming 'abc'" \
		eval '[[ $rc == 2 ]] && has "abc" err'
	run top --once -n 3
	check "top --once -n 3 is a usage error (2) naming the conflict" \
		eval '[[ $rc == 2 ]] && has "--once" err && has "-n" err && [[ ! -s $tmp/out ]]'
	run top -d abc -n 1 -b
	check "top -d abc is a usage error (2) naming 'abc'" \
		eval '[[ $rc == 2 ]] && has "abc" err'
}

# JSON of top: -l honoured, a timestamp per frame.
part_json() {
	local t0 t1
	run top --json -l 2 -n 1
	check "top --json -l 2 -n 1 prints 1 or 2 task objects" \
		json_ok "$rc == 0 and 1 <= len(objs) <= 2"
	# shellcheck disable=SC2034 # read in the eval'd conditions
	t0=$(date +%s)
	run top --json -l 3 -n 2 -d 0.5
	# shellcheck disable=SC2034
	t1=$(date +%s)
	check "top --json: each object has an RFC 3339 UTC timestamp, one per frame; -l 3" \
		eval '[[ $rc == 0 ]] && json_stamps $t0 $t1'
}
# The Python function json_ok's expressions may call: every object has
# "timestamp" (RFC 3339, UTC, within [t0 - 2, t1 + 2]) and "frame"; one
# timestamp per frame, a later one for a later frame; at most 3 a frame.
stamps_py='
import calendar, re, time
def stamps_ok(objs, t0, t1):
    frames = {}
    for o in objs:
        s = o.get("timestamp")
        if not isinstance(s, str) or not re.match(
                r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$", s):
            print("bad timestamp", s, file=sys.stderr)
            return False
        t = calendar.timegm(time.strptime(s[:19], "%Y-%m-%dT%H:%M:%S"))
        if not t0 - 2 <= t <= t1 + 2:
            print("timestamp", s, "not of the run", file=sys.stderr)
            return False
        frames.setdefault(o.get("frame"), set()).add(s)
    per = {f: sum(o.get("frame") == f for o in objs) for f in frames}
    if sorted(frames) != [1, 2] or any(len(v) != 1 for v in frames.values()) or \
            max(per.values()) > 3 or frames[1] == frames[2]:
        print("frames", frames, "objects", per, file=sys.stderr)
        return False
    return True
'
# json_stamps T0 T1: $tmp/out's objects pass stamps_ok.
json_stamps() {
	python3 -c "import json, sys$stamps_py
objs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
sys.exit(0 if objs and stamps_ok(objs, $1, $2) else 1)" "$tmp/out" 2>>"$tmp/err"
}

# listen --table: 19-character dates in their own columns.
part_table() {
	listen_do 2 "/bin/true; sh -c 'exit 3'" --table
	check "listen --table: every row as wide as the header, a space before every column" \
		eval '[[ $rc == 0 ]] && python3 -c "$table_py" "$tmp/out" 2>>"$tmp/err"'
}
# shellcheck disable=SC2034 # read in part_table's eval'd condition
table_py='
import re, sys
lines = open(sys.argv[1]).read().splitlines()
head = next(i for i, l in enumerate(lines) if l.startswith("field "))
hdr = lines[head]
labels = hdr.split()[2:]
ends, pos = [], 0
for lab in labels:
    pos = hdr.index(lab, pos) + len(lab)
    ends.append(pos)
width = ends[1] - ends[0] - 1
starts = [e - width for e in ends]
rows = [l for l in lines[head + 1:] if not l.startswith("~ ")]
bad = [l for l in rows if len(l) != len(hdr) or any(l[s - 1] != " " for s in starts)]
dates = [l for l in rows if l.startswith("ac_btime ")]
ok = len(labels) == 2 and not bad and dates and all(
    re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", dates[0][s:e].strip())
    for s, e in zip(starts, ends))
if not ok:
    print("misaligned:", bad[:3], dates, file=sys.stderr)
sys.exit(0 if ok else 1)
'

# top -o: a spinner in the last frame, a sleeper not.
part_top_active() {
	local spin sleeper
	bash -c 'while :; do :; done' &
	spin=$!
	sleep 300 &
	sleeper=$!
	run top -b -n 2 -d 0.5 -o
	sed -n '/^taskstat top/h; /^taskstat top/!H; ${x;p}' "$tmp/out" >"$tmp/last"
	check "top -b -o: the last frame lists a spinning task ($spin), not a sleeper" \
		eval '[[ $rc == 0 ]] && grep -q "^ *$spin " "$tmp/last" &&
			! grep -q "^ *$sleeper " "$tmp/last"'
	kill -KILL $spin $sleeper
	wait $spin $sleeper 2>/dev/null
}

# A task that runs and exits between two frames of top: its own row,
# marked X, with its CPU time, which an exit listener heard.
part_top_exited() {
	local top_pid gone
	: >"$tmp/out"
	timeout 30 "$ts" top -b -n 2 -d 4 >"$tmp/out" 2>"$tmp/err" &
	top_pid=$!
	wait_said $top_pid "^taskstat top"
	# Busy for 0.3 s of wall time, however fast the guest's CPU.
	# shellcheck disable=SC2016
	bash -c 'end=$((${EPOCHREALTIME/./} + 300000))
		while ((${EPOCHREALTIME/./} < end)); do :; done' &
	gone=$!
	wait $gone
	wait $top_pid
	rc=$?
	# Batch rows: TGID TID COMM X CPU% ...
	check "top -b: a task that ran and exited between frames ($gone): its row, X, CPU time" \
		eval '[[ $rc == 0 ]] && awk -v p="$gone" '\''$1 == p && $2 == p && $4 == "X" &&
			$5 + 0 > 0 { f = 1 } END { exit !f }'\'' "$tmp/out"'
}

# -P sums the PID records of a process's threads, I/O included: a TGID
# record carries no I/O counters, and a reader's row read 0 bytes.
part_top_procs() {
	local rd
	dd if=/dev/zero of=/dev/null bs=64k 2>/dev/null &
	rd=$!
	run top --json -P -n 1 -d 0.5
	check "top -P --json: a process reading /dev/zero ($rd) read bytes in the interval" \
		json_ok "any(o['id'] == $rd and o['type'] == 'tgid' and
			(o.get('read_char') or 0) > 0 and (o.get('rchar_bps') or 0) > 0
			for o in objs)"
	kill $rd
	wait $rd 2>/dev/null
}

# top in a terminal: python's pty (always), tmux (the screen, if there),
# and batch output without escape codes.
part_tui() {
	# shellcheck disable=SC2034 # read in the eval'd conditions
	local name esc=$'\x1b'
	run top -b -n 1
	check "top -b -n 1: no escape code" \
		eval '[[ $rc == 0 ]] && has "taskstat top" && ! has "$esc"'
	timeout 30 "$ts" top -n 1 2>"$tmp/err" | cat >"$tmp/out"
	check "top -n 1 | cat: no escape code" \
		eval 'has "taskstat top" && ! has "$esc"'
	# A guest without devpts has no pseudo-terminal: one of our own.
	if ! mountpoint -q /dev/pts 2>/dev/null && [[ $(id -u) == 0 ]]; then
		mkdir -p /dev/pts && mount -t devpts -o ptmxmode=0666 devpts /dev/pts &&
			devpts=/dev/pts
	fi
	if ! python3 -c 'import os; os.close(os.openpty()[0])' 2>"$tmp/err"; then
		skip "top in a pseudo-terminal" "no pseudo-terminal: $(tail -1 "$tmp/err")"
		return
	fi
	for m in pty pipe tmux; do
		timeout 120 python3 "$here/tui_drive.py" "$ts" "$m" >"$tmp/tui" 2>&1
		if ! grep -q '^RESULT ' "$tmp/tui"; then
			fail "tui_drive.py $m reported nothing"
			head -20 "$tmp/tui" | sed 's/^/# /'
			continue
		fi
		while IFS= read -r line; do
			case $line in
			'RESULT ok '*) ok "${line#RESULT ok }" ;;
			'RESULT fail '*) fail "${line#RESULT fail }" ;;
			'RESULT skip '*)
				name=${line#RESULT skip }
				skip "${name%% # *}" "${name#* # }" ;;
			'# '*) echo "$line" ;;
			esac
		done <"$tmp/tui"
	done
}

# The plan and the summary; exits 0 only if every test passed.
finish() {
	echo "1..$n"
	echo "smoke: $((n - failed)) passed, $failed failed"
	[[ $failed == 0 ]]
	exit
}

echo "TAP version 13"
if [[ -n ${SMOKE_ONLY:-} ]]; then
	for part in $SMOKE_ONLY; do
		"part_$part"
	done
	finish
fi

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
	as_nobody get -p $$
	check "get without CAP_NET_ADMIN fails (1) naming the capability" \
		eval '[[ $rc == 1 ]] && has CAP_NET_ADMIN err'
	# Self-query lets nobody read its own tasks, never listen.
	as_nobody listen --count 1
	check "listen without CAP_NET_ADMIN fails (1) naming the capability only" \
		eval '[[ $rc == 1 ]] && has "listen needs CAP_NET_ADMIN" err &&
			! has self-query err'
else
	skip "get and listen without CAP_NET_ADMIN" "no setpriv"
fi

# A socket opened in a network namespace that another user namespace owns
# (a container's): a kernel with the dump refuses, and taskstat quotes
# its reason; 6.12's own answers root there, as anywhere.
if command -v unshare >/dev/null && command -v nsenter >/dev/null; then
	unshare -U -n sleep 60 &
	holder=$!
	for _ in $(seq 100); do
		[[ $(readlink /proc/$holder/ns/net) != $(readlink /proc/self/ns/net) ]] && break
		sleep 0.05
	done
	timeout 30 nsenter -t "$holder" -n "$ts" get -p $$ >"$tmp/out" 2>"$tmp/err"
	rc=$?
	kill "$holder"
	wait "$holder" 2>/dev/null
	refused() {
		[[ $rc == 1 ]] && has "Operation not permitted" err &&
			has "the kernel said: socket's network namespace is owned outside" err &&
			! has CAP_NET_ADMIN err
	}
	answered() { [[ $rc == 0 ]] && has "pid $$"; }
	what="get on a socket in a container's network namespace"
	case $kernel in
	dump) check "$what fails (1) quoting the kernel" refused ;;
	nodump) check "$what is answered by a kernel without the dump" answered ;;
	*) check "$what is refused or answered" eval 'refused || answered' ;;
	esac
else
	skip "get on a socket in a container's network namespace" "no unshare or nsenter"
fi

# --- top
# A PSI line: a resource, then some and full over 10, 60 and 300 s.
psi_line() { has "^  $1  *some *[0-9.]* *[0-9.]* *[0-9.]*  full *[0-9.]* *[0-9.]* *[0-9.]*$"; }
run top -b -n 1 -l 3
if [[ -e /proc/pressure/cpu ]]; then
	check "top shows the system's pressure lines (some and full of cpu, io, memory)" \
		eval '[[ $rc == 0 ]] && psi_line cpu && psi_line io && psi_line memory &&
			has "^pressure of the system, % of time stalled over 10/60/300 s:$"'
else
	skip "top shows the system's pressure lines" "no /proc/pressure: a kernel without PSI"
fi
run top --once -v
check "top --once lists tasks and says how it collected them" \
	eval '[[ $rc == 0 ]] && has "^taskstat top" && has "CPUDLY" && has " $$ " &&
		has "collecting with the TASKSTATS dump\|no TASKSTATS dump" err'
case $kernel in
dump)
	check "top: a kernel whose family dumps answered the dump" \
		has "collecting with the TASKSTATS dump" err ;;
nodump)
	check "top: on a kernel without the dump top fell back to one GET per task" \
		has "no TASKSTATS dump" err ;;
*)
	if has "no TASKSTATS dump" err; then
		how=$(grep -o 'dump ([^)]*)' "$tmp/err" | head -1)
		ok "top: the kernel has no dump, fell back to one GET per task $how"
	else
		ok "top: the kernel answered the dump"
	fi ;;
esac
run top --once --json -s cpu
check "top --once --json: one object per task, this shell among them" \
	json_ok "(any(o['id'] == $$ and o['frame'] == 1 for o in objs) and
		all('cpu_delay_total' in o for o in objs))"
run top --once --json -P
check "top -P --json: thread group records" \
	json_ok "any(o['id'] == $$ and o['type'] == 'tgid' for o in objs)"
run top -b -n 2 -d 0.2 -s blkio
check "top -b -n 2 prints two frames, each of rates over an interval" \
	eval '[[ $rc == 0 ]] && [[ $(grep -c "^taskstat top - " "$tmp/out") == 2 ]] &&
		[[ $(grep -c "^interval 0\.[0-9] s, sorted by blkio" "$tmp/out") == 2 ]]'
for k in cpu cpu-delay swapin freepages thrashing compact wpcopy irq read write; do
	run top --once -l 3 -s "$k"
	[[ $rc == 0 ]] || break
done
check "top --once accepts every sort key" eval '[[ $rc == 0 ]]'

# A dump that meets a task stuck in exec leaves it out and says so. The
# exec holds its exec_update_lock while its old memory's AIO drains, and
# a slow disk of the test's own (dm-delay over a loop device) serves every
# read 8 s late: twelve reads keep it there for some 8 s. It becomes
# nobody first, so that nobody's dump (one of its own tasks, which waits
# on that lock) meets it.
stuck_exec() {
	# exec: the caller's $! is then the exec's pid.
	exec python3 - "$1" <<'PY'
import ctypes, mmap, os, sys

class Iocb(ctypes.Structure):
    _fields_ = [("data", ctypes.c_uint64), ("key", ctypes.c_uint32),
                ("rw_flags", ctypes.c_int32), ("opcode", ctypes.c_uint16),
                ("reqprio", ctypes.c_int16), ("fildes", ctypes.c_uint32),
                ("buf", ctypes.c_uint64), ("nbytes", ctypes.c_uint64),
                ("offset", ctypes.c_int64), ("reserved2", ctypes.c_uint64),
                ("flags", ctypes.c_uint32), ("resfd", ctypes.c_uint32)]

SYS_io_setup, SYS_io_submit, READS = 206, 209, 12
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)
page = mmap.mmap(-1, 4096)
buf = ctypes.addressof(ctypes.c_char.from_buffer(page))
ctx = ctypes.c_ulong(0)
if libc.syscall(SYS_io_setup, READS, ctypes.byref(ctx)):
    sys.exit(1)
# Apart, so that the block layer cannot merge them.
cbs = [Iocb(opcode=0, fildes=fd, buf=buf, nbytes=4096, offset=i * 65536)
       for i in range(READS)]
ptrs = (ctypes.POINTER(Iocb) * READS)(*[ctypes.pointer(c) for c in cbs])
if libc.syscall(SYS_io_submit, ctx, READS, ptrs) != READS:
    sys.exit(2)
os.setresgid(65534, 65534, 65534)
os.setresuid(65534, 65534, 65534)
libc.prctl(4, 1, 0, 0, 0)  # PR_SET_DUMPABLE, so that nobody may read it
os.execv("/bin/sleep", ["sleep", "300"])
PY
}
if [[ $kernel != dump ]]; then
	skip "top skips a task stuck in exec and says so" \
		"this kernel's family cannot dump (no unprivileged dump)"
elif ! command -v setpriv >/dev/null; then
	skip "top skips a task stuck in exec and says so" "no setpriv"
elif ! slow_disk; then
	skip "top skips a task stuck in exec and says so" \
		"no slow disk: needs losetup, dmsetup and CONFIG_DM_DELAY"
	slow_disk_drop
else
	stuck_exec "$slow" &
	stuck=$!
	for _ in $(seq 40); do
		as_nobody get -p "$stuck"
		has "middle of an exec" err && break
		sleep 0.1
	done
	if ! has "middle of an exec" err; then
		fail "top skips a task stuck in exec: never saw the exec (get: rc $rc)"
		sed 's/^/# /' "$tmp/err" | head -5
	else
		as_nobody top --once -b
		top_rc=$rc
		cp "$tmp/out" "$tmp/top"
		as_nobody get -p "$stuck"
		if has "middle of an exec" err; then
			cp "$tmp/top" "$tmp/out"
			check "top skips a task stuck in exec and says so in its first line" \
				eval '[[ $top_rc == 0 ]] &&
					has "via dump (tasks skipped mid-exec: 1)" &&
					! grep -q "^ *$stuck " "$tmp/out"'
		elif grep -q "^ *$stuck .*sleep" "$tmp/top"; then
			# Seen mid-exec before top ran, listed with the new image's
			# name: the dump waited for the exec to end.
			fail "top skips a task stuck in exec: the dump waited for it"
		else
			skip "top skips a task stuck in exec and says so" "the exec ended first"
		fi
	fi
	kill -KILL "$stuck"
	wait "$stuck" 2>/dev/null
	slow_disk_drop
fi

# --- listen: a workload whose pid is known before it runs anything
[[ -p $tmp/go ]] || mkfifo "$tmp/go"
# listen_case N ARGS...: a workload ($wl) waits on $tmp/go, then runs
# /bin/true N times, while `listen --ppid $wl --count N ARGS...` records
# their exits; output in $tmp/out and $tmp/err, status in $rc
listen_case() {
	local count=$1
	shift
	listen_do "$count" "for ((i = 0; i < $count; i++)); do /bin/true; done" "$@"
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
check "cgroup on a non-cgroup directory fails (1) saying it is not a cgroup directory" \
	eval '[[ $rc == 1 ]] && has "is not a cgroup directory" err'
cgdir=$(mktemp -d /tmp/tsmoke-cg.XXXXXX)
if mount -t cgroup -o none,name=tsmoke none "$cgdir" 2>"$tmp/err" &&
   mkdir "$cgdir/sub"; then
	# The spinner says when it runs its own loop: until then it may be
	# anything from a forked shell to an exec waiting for the disk.
	# shellcheck disable=SC2016
	bash -c ': >"$1"; while :; do :; done' _ "$tmp/spinning" &
	spin=$!
	echo $spin >"$cgdir/sub/cgroup.procs"
	ready="the spinner $spin never said it runs"
	for _ in $(seq 200); do
		[[ -e $tmp/spinning ]] && { ready=yes; break; }
		sleep 0.05
	done
	[[ $ready == yes ]] && ! wait_state $spin R &&
		ready="the spinner $spin never reached state R"
	if [[ $ready != yes ]]; then
		skip "cgroup prints the task counts" "$ready"
		skip "cgroup --json" "$ready"
	else
		run cgroup "$cgdir/sub"
		check "cgroup prints the task counts" \
			eval '[[ $rc == 0 ]] && has "^running  *1" && has "^sleeping " &&
				has "^io_wait "'
		run cgroup --json "$cgdir/sub"
		check "cgroup --json" \
			json_ok "objs[0]['nr_running'] == 1 and 'nr_io_wait' in objs[0]"
	fi
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

# --- cgroup v2: CGROUPSTATS and top --cgroup on a fresh cgroup of the
# cgroup2 mount (the guest's /sys/fs/cgroup) holding known tasks: two
# readers of a pipe (sleeping), a stopped one and a spinner; and one more
# reader in a child cgroup, for --subtree. (A sleep(1) would not do: a
# task in nanosleep is freezable, a state CGROUPSTATS counts nowhere.)

# spawn_in DIR COMMAND...: starts COMMAND, moves it to the cgroup DIR; its pid in $kid.
spawn_in() {
	local dir=$1
	shift
	"$@" &
	kid=$!
	kids+=("$kid")
	echo "$kid" >"$dir/cgroup.procs"
}
# The ids of top's JSON objects, sorted, as a Python list.
pylist() { printf '[%s]' "$(printf '%s\n' "$@" | sort -n | paste -sd,)"; }

cg2=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
# cg_make NAMES SUBDIR...: makes $cg, a fresh cgroup in $cg2, and its
# SUBDIRs; if it cannot, skips each test that the array NAMES names,
# saying why, and fails.
cg_make() {
	local -n _names=$1
	local t why
	shift
	if [[ -z $cg2 ]]; then
		why="no cgroup2 file system mounted"
	elif cg=$(mktemp -d "$cg2/tsmoke.XXXXXX" 2>"$tmp/err") &&
	     mkdir "${@/#/$cg/}" 2>"$tmp/err"; then
		return 0
	else
		why="cannot make a cgroup in $cg2: $(head -1 "$tmp/err")"
		cg_cleanup
	fi
	for t in "${_names[@]}"; do skip "$t" "$why"; done
	return 1
}
# shellcheck disable=SC2034 # read by cg_make
cg2_names=("cgroup on a v2 directory" "cgroup --json on a v2 directory"
	"top --cgroup --json lists exactly the cgroup's tasks"
	"top --cgroup -P --json lists the cgroup's thread groups"
	"top --cgroup --subtree includes the child cgroup's task"
	"top -b -n 2 --cgroup names the cgroup and the method"
	"top --cgroup counts the cgroup's tasks by state"
	"top --cgroup shows the cgroup's pressure lines"
	"top --cgroup of a removed cgroup fails (1) saying so")
if cg_make cg2_names sub; then
	mkfifo "$tmp/hold"
	# A writer that never writes, so that readers block. (A background
	# command's stdin is /dev/null: the readers open the FIFO anew.)
	exec 7<>"$tmp/hold"
	spawn_in "$cg" cat /proc/self/fd/7
	r1=$kid
	spawn_in "$cg" cat /proc/self/fd/7
	r2=$kid
	spawn_in "$cg" cat /proc/self/fd/7
	stopped=$kid
	spawn_in "$cg" bash -c 'while :; do :; done'
	spin=$kid
	spawn_in "$cg/sub" cat /proc/self/fd/7
	child=$kid
	ready=yes
	for p in "$r1:S" "$r2:S" "$child:S" "$stopped:S" "$spin:R" stop "$stopped:T"; do
		if [[ $p == stop ]]; then
			kill -STOP "$stopped"
			continue
		fi
		if ! wait_state "${p%:*}" "${p#*:}"; then
			ready="task ${p%:*} never reached state ${p#*:}"
			break
		fi
	done
	in_cg=$(pylist "$r1" "$r2" "$stopped" "$spin")
	in_tree=$(pylist "$r1" "$r2" "$stopped" "$spin" "$child")

	# CGROUPSTATS: counts with the dump; 6.12's EINVAL without.
	run cgroup "$cg"
	v2=$kernel
	if [[ -z $v2 ]]; then
		v2=dump
		[[ $rc == 1 ]] && has "understands only cgroup v1" err && v2=nodump
	fi
	if [[ $ready != yes ]]; then
		skip "cgroup on a v2 directory" "$ready"
		skip "cgroup --json on a v2 directory" "$ready"
	elif [[ $v2 == nodump ]]; then
		name="cgroup on a v2 directory fails (1): this kernel's CGROUPSTATS"
		name+=" understands only cgroup v1 (6.12's, documented)"
		check "$name" \
			eval '[[ $rc == 1 ]] && has "understands only cgroup v1 directories" err &&
				has "top --cgroup" err'
		run cgroup --json "$cg"
		check "cgroup --json on a v2 directory fails (1) the same way on this kernel" \
			eval '[[ $rc == 1 ]] && has "understands only cgroup v1 directories" err'
	else
		name="cgroup on a v2 directory prints the counts of its tasks"
		check "$name (2 sleeping, 1 running, 1 stopped)" \
			eval '[[ $rc == 0 ]] && has "^cgroup .* (v2)$" &&
				has "^sleeping  *2$" && has "^running  *1$" &&
				has "^stopped  *1$" && has "^uninterruptible  *0$"'
		run cgroup --json "$cg"
		check "cgroup --json on a v2 directory has the numbers" \
			json_ok "len(objs) == 1 and objs[0]['cgroup_version'] == 2 and
				objs[0]['nr_sleeping'] == 2 and objs[0]['nr_running'] == 1 and
				objs[0]['nr_stopped'] == 1 and
				objs[0]['nr_uninterruptible'] == 0 and
				objs[0]['nr_io_wait'] == 0"
	fi

	# top --cgroup: from one dump of the cgroup, or the fallback where
	# the kernel has no dump (6.12's own: EOPNOTSUPP).
	run top --once --json -v --cgroup "$cg"
	dump=$kernel
	if [[ -z $dump ]]; then
		dump=dump
		has "no TASKSTATS dump of one cgroup" err && dump=nodump
	fi
	if [[ $dump == nodump ]]; then
		how="by one GET per task in cgroup.threads (the kernel has no dump)"
		said="no TASKSTATS dump of one cgroup (Operation not supported):"
		said+=" one GET per task listed in $cg/cgroup.threads"
		frame_how="via GET per task in cgroup.threads"
	else
		how="from one dump of the cgroup"
		said="collecting with the TASKSTATS dump of cgroup $cg"
		frame_how="via dump of the cgroup"
	fi
	saw=no
	has "$said" err && saw=yes
	check "top --cgroup --json lists exactly the cgroup's tasks, $how" \
		json_ok "$rc == 0 and '$saw' == 'yes' and
			sorted(o['id'] for o in objs) == $in_cg and
			all(o['type'] == 'pid' and o['frame'] == 1 for o in objs)"
	run top --once --json -P --cgroup "$cg"
	check "top --cgroup -P --json lists the cgroup's thread groups" \
		json_ok "$rc == 0 and sorted(o['id'] for o in objs) == $in_cg and
			all(o['type'] == 'tgid' for o in objs)"
	run top --once --json --subtree --cgroup "$cg"
	check "top --cgroup --subtree includes the child cgroup's task" \
		json_ok "$rc == 0 and sorted(o['id'] for o in objs) == $in_tree"
	run top -b -n 2 -d 0.2 --subtree --cgroup "$cg" -P -s cpu
	check "top -b -n 2 --cgroup names the cgroup and the method ($frame_how)" \
		eval 'hdr="^taskstat top - .*, 5 thread groups of cgroup $cg and its descendants"
			[[ $rc == 0 ]] &&
			[[ $(grep -c "$hdr, .*, $frame_how," "$tmp/out") == 2 ]] &&
			has " $spin bash "'
	run top -b -n 1 --cgroup "$cg"
	what="top --cgroup counts the cgroup's tasks by state"
	counts="^tasks of the cgroup by state:"
	if [[ $v2 == nodump ]]; then
		check "$what: not on this kernel, saying why" \
			has "$counts not counted (CGROUPSTATS: Invalid argument)$"
	else
		counts+=" 2 sleeping, 1 running, 1 stopped, 0 uninterruptible, 0 io_wait$"
		check "$what (2 sleeping, 1 running, 1 stopped)" \
			eval '[[ $rc == 0 ]] && has "$counts"'
	fi
	what="top --cgroup shows the cgroup's pressure lines"
	if [[ -e $cg/cpu.pressure ]]; then
		check "$what" \
			eval 'has "^pressure of the cgroup, " && psi_line cpu && psi_line memory'
	else
		skip "$what" "no $cg/cpu.pressure: a kernel without PSI"
	fi
	kill -KILL "${kids[@]}" 2>/dev/null
	wait "${kids[@]}" 2>/dev/null
	kids=()
	exec 7>&-

	# A cgroup removed while top shows it: ENOENT from the dump, or from
	# reading cgroup.threads.
	mkdir "$cg/gone"
	: >"$tmp/out"	# the last frame seen must be this one's
	# More frames than the timeout leaves time for: only the removal may
	# end it, however late the rmdir comes.
	timeout 30 "$ts" top -b -n 1000 -d 0.5 --cgroup "$cg/gone" >"$tmp/out" 2>"$tmp/err" &
	top_pid=$!
	wait_said $top_pid "^taskstat top"
	rmdir "$cg/gone"
	wait $top_pid
	rc=$?
	check "top --cgroup of a removed cgroup fails (1) saying so" \
		eval '[[ $rc == 1 ]] && has "has been removed" err'
	cg_cleanup
fi

# --- listen --cgroup and top --cgroup's exited row, on fresh cgroups a,
# its child a/sub and its sibling b. Where the kernel has no cgroup
# listeners, each must fail saying so.
refused_cgids() {
	[[ $rc == 1 ]] && has "not supported by this kernel" err &&
		has "no TASKSTATS_CMD_ATTR_CGROUP_ID" err
}
# cg_expect NAME CONDITION: CONDITION (eval'd) where the kernel has cgroup
# listeners, the refusal where it has not; without ynl, either.
cg_expect() {
	case $cgids in
	yes) check "$1" eval "$2" ;;
	no) check "$1: refused, this kernel has no cgroup listeners" refused_cgids ;;
	*)
		if refused_cgids; then
			ok "$1: refused, the kernel has no cgroup listeners"
		else
			check "$1" eval "$2"
		fi ;;
	esac
}
# cg_listen ARGS...: `listen --count 1 ARGS...` in the background, until
# it listens (or has failed); cg_listen_end waits for it, status in $rc.
cg_listen() {
	: >"$tmp/out"
	: >"$tmp/err"
	timeout 20 "$ts" listen --count 1 "$@" >"$tmp/out" 2>"$tmp/err" &
	lpid=$!
	wait_said $lpid listening err
}
cg_listen_end() {
	wait $lpid
	rc=$?
}
# cg_run DIR...: runs /bin/true in each cgroup DIR in turn, each task
# moving itself there first; their pids in ran[DIR].
declare -A ran
cg_run() {
	local d
	for d; do
		# shellcheck disable=SC2016
		bash -c 'echo $$ >"$1/cgroup.procs" && exec /bin/true' _ "$d" &
		# shellcheck disable=SC2034 # read in cg_expect's conditions
		ran[$d]=$!
		wait $!
	done
}
cg3_names=("listen --cgroup hears its cgroup's task, not its sibling's or child's"
	"listen --cgroup prints the cgroup at the end of each line"
	"listen --cgroup --subtree hears a child cgroup's task"
	"listen --json carries the cgroup id and path of each record"
	"listen --cgroup on a cgroup control file fails (1) saying it is no cgroup directory"
	"top --cgroup -b -n 2 adds the task that exited in the interval")
if cg_make cg3_names a a/sub b; then
	rel=${cg#"$cg2"}
	a=$cg/a
	cg_listen --json --cgroup "$a"
	cg_run "$cg/b" "$a/sub" "$a"
	cg_listen_end
	cg_expect "${cg3_names[0]}" 'json_ok "$rc == 0 and len(objs) == 1 and
		objs[0][\"ac_pid\"] == ${ran[$a]} and objs[0][\"cgroup\"] == \"$rel/a\" and
		isinstance(objs[0][\"cgroup_id\"], int)"'
	cg_listen --cgroup "$a"
	cg_run "$a"
	cg_listen_end
	cg_expect "${cg3_names[1]}" '[[ $rc == 0 ]] && has "CGROUP$" &&
		has "^pid  *${ran[$a]} .* true .* $rel/a$"'
	cg_listen --json --cgroup "$a" --subtree
	cg_run "$cg/b" "$a/sub"
	cg_listen_end
	cg_expect "${cg3_names[2]}" 'json_ok "$rc == 0 and len(objs) == 1 and
		objs[0][\"ac_pid\"] == ${ran[$a/sub]} and objs[0][\"cgroup\"] == \"$rel/a/sub\""'

	# Without --cgroup: ids where the kernel has them, else null.
	# shellcheck disable=SC2016
	bash -c 'echo $$ >"$1/cgroup.procs"; read -r _ <"$2"; /bin/true; :' _ "$a" "$tmp/go" &
	wl=$!
	cg_listen --json --ppid "$wl"
	echo go >"$tmp/go"
	wait $wl
	cg_listen_end
	with="objs[0]['cgroup'] == '$rel/a' and isinstance(objs[0]['cgroup_id'], int)"
	without="objs[0]['cgroup'] is None and objs[0]['cgroup_id'] is None"
	case $cgids in
	yes) json_ok "$rc == 0 and $with" && ok "${cg3_names[3]}" || fail "${cg3_names[3]}" ;;
	no) json_ok "$rc == 0 and $without" && ok "${cg3_names[3]}: null on this kernel" ||
		fail "${cg3_names[3]}: null on this kernel" ;;
	*) json_ok "$rc == 0 and (($with) or ($without))" && ok "${cg3_names[3]} (or null)" ||
		fail "${cg3_names[3]} (or null)" ;;
	esac

	run listen --count 1 --cgroup "$a/cgroup.procs"
	cg_expect "${cg3_names[4]}" '[[ $rc == 1 ]] &&
		has "$a/cgroup.procs is not a cgroup directory" err'

	# A task that runs and exits between top's two frames: not in either
	# frame's rows but its own, marked as exited.
	: >"$tmp/out"
	timeout 30 "$ts" top -b -n 2 -d 4 --cgroup "$a" >"$tmp/out" 2>"$tmp/err" &
	top_pid=$!
	wait_said $top_pid "^taskstat top"
	# Busy for 0.3 s of wall time, however fast the guest's CPU.
	# shellcheck disable=SC2016
	bash -c 'echo $$ >"$1/cgroup.procs"; end=$((${EPOCHREALTIME/./} + 300000))
		while ((${EPOCHREALTIME/./} < end)); do :; done' _ "$a" &
	gone=$!
	wait $gone
	wait $top_pid
	rc=$?
	# Its row: TGID TID COMM X CPU% ..., marked X, with CPU time.
	exited() {
		[[ $rc == 0 ]] && has "^interval " &&
			awk -v p="$gone" '$1 == p && $2 == p && $4 == "X" && $5 + 0 > 0 { f = 1 }
				END { exit !f }' "$tmp/out"
	}
	not_counted() {
		[[ $rc == 0 ]] &&
			has "^tasks that exited: not counted (this kernel has no cgroup listeners)$"
	}
	case $cgids in
	yes) check "${cg3_names[5]} (its row marked X, with its CPU time)" exited ;;
	no) check "${cg3_names[5]}: not counted on this kernel, saying why" not_counted ;;
	*) check "${cg3_names[5]} (or says it cannot)" eval 'exited || not_counted' ;;
	esac
	cg_cleanup
fi

# Errors that need no cgroup v2.
run listen --count 1 --cgroup "$tmp"
cg_expect "listen --cgroup on a non-cgroup directory fails (1) saying so" \
	'[[ $rc == 1 ]] && has "$tmp is not a cgroup directory" err'
run listen --subtree
check "listen --subtree without --cgroup is a usage error (2)" \
	eval '[[ $rc == 2 ]] && has "needs --cgroup" err'
run top --once --cgroup "$tmp"
check "top --cgroup on a non-cgroup directory fails (1) saying so" \
	eval '[[ $rc == 1 ]] && has "is not a cgroup directory" err'
run top --once --cgroup "$tmp/none"
check "top --cgroup of a missing directory fails (1)" \
	eval '[[ $rc == 1 ]] && has "No such file or directory" err'
run top --once --subtree
check "top --subtree without --cgroup is a usage error (2)" \
	eval '[[ $rc == 2 ]] && has "needs --cgroup" err'

for part in $parts; do
	"part_$part"
done
finish
