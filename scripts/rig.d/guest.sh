# SPDX-License-Identifier: GPL-2.0
#
# Sourced by scripts/rig: the QEMU guest and the checks that boot it (make check, check-bisect, check-plain, run, fuzz).
# shellcheck shell=bash disable=SC2154,SC2153

# ---------------------------------------------------------------- guest
# Boots KERNEL and runs scripts/guest-init in MODE (check or run); leaves
# run/KERNEL/out/{rc,tap,console...}. Returns 0 when the guest finished
# and reported, 1 when it panicked or hung.
cmd_boot() {
	local k=$1 mode=$2 obj run out img rc=0 accel mem=1536
	obj=$(obj_of "$k")
	run=$(run_of "$k")
	out=$run/out
	img=${IMAGE:-$obj/arch/x86/boot/bzImage}
	[[ -f $img ]] || die "$img missing: run 'make kernel KERNEL=$k'"
	rm -rf "$run"
	mkdir -p "$out"
	# The benchmark and the sample workload read a disk of the host's
	# with O_DIRECT; the tests make the disks they need themselves.
	truncate -s 512M "$run/scratch.img"
	mkfs.ext4 -q -F -L rig-scratch "$run/scratch.img"
	accel=$ACCEL
	[[ $accel == kvm ]] && accel="kvm -cpu host"
	local cmdline="console=ttyS0 root=rigroot rootfstype=9p"
	cmdline+=" rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose ro"
	cmdline+=" init=$RIG/scripts/guest-init panic=-1 loglevel=4 quiet"
	# The guest reads the whole run's log at its end; the config's 128 KiB
	# wrapped in a check-debug run and lost the KUnit results with it.
	[[ -n ${RIG_BENCH:-} ]] || cmdline+=" log_buf_len=16M"
	cmdline+=" RIG_MODE=$mode RIG_DIR=$RIG RIG_BUILD=$BUILD RIG_KERNEL=$k"
	[[ -n $TESTS ]] && cmdline+=" RIG_TESTS=$TESTS"
	[[ -n ${RIG_BENCH:-} ]] && cmdline+=" RIG_BENCH_BIN=${RIG_BENCH% *} RIG_BENCH_MODE=${RIG_BENCH#* }"
	[[ -n ${RIG_BENCH_BOOT:-} ]] && cmdline+=" RIG_BENCH_BOOT=$RIG_BENCH_BOOT"
	# KASAN's shadow and kmemleak's pool want room of their own. ACPI's
	# interpreter is so slow on a debug kernel under TCG that the i440fx
	# _PRT method (a loop) times out (AE_AML_LOOP_TIMEOUT) and the virtio
	# interrupts go astray; q35 describes its routing as plain data.
	local machine=
	[[ $FLAVOUR == debug ]] && cmdline+=" RIG_DEBUG=1" mem=2048 machine="-machine q35"
	[[ -n ${FUZZ_SEED:-} ]] && cmdline+=" RIG_FUZZ_SEED=$FUZZ_SEED"
	cmdline+=" $KERNEL_ARGS"
	echo "$cmdline" >"$run/cmdline"
	say "booting the $k kernel (accel $ACCEL, timeout ${TIMEOUT}s)"
	# shellcheck disable=SC2206 # $accel, $machine and $QEMU_ARGS are word lists
	local qemu=(qemu-system-x86_64
		-accel $accel $machine -smp 2 -m $mem -nographic -no-reboot
		-monitor none -serial stdio -nic none
		-kernel "$img" -append "$cmdline"
		-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap
		-device virtio-9p-pci,fsdev=root,mount_tag=rigroot
		-fsdev local,id=out,path="$out",security_model=none,multidevs=remap
		-device virtio-9p-pci,fsdev=out,mount_tag=rigout
		-fsdev local,id=src,path="$RIG",security_model=none,readonly=on,multidevs=remap
		-device virtio-9p-pci,fsdev=src,mount_tag=rigsrc
		-fsdev local,id=bld,path="$BUILD",security_model=none,readonly=on,multidevs=remap
		-device virtio-9p-pci,fsdev=bld,mount_tag=rigbuild
		-drive file="$run/scratch.img",format=raw,if=virtio,cache=none
		$QEMU_ARGS)
	# The exact command line, for the record (make bench keeps it).
	printf '%q ' "${qemu[@]}" >"$run/qemu.cmd"
	echo >>"$run/qemu.cmd"
	set +e
	# A check shows the guest's TAP as it comes; other modes show only
	# the guest's progress lines ("rig-guest: ..."), so that a waiting
	# user sees which step runs.
	timeout -k 10 "$TIMEOUT" "${qemu[@]}" </dev/null 2>&1 | tee "$run/console.log" | {
		if [[ $mode == check ]]; then
			cat
		else
			tr -d '\r' | sed -nu 's/^rig-guest: \(.*\)/rig: guest: \1/p' >&2
		fi
	}
	rc=${PIPESTATUS[0]}
	set -e
	if [[ $rc == 124 || $rc == 137 ]]; then
		echo "not ok - guest: $k kernel hung and was killed after ${TIMEOUT}s" >>"$out/host.tap"
		return 1
	fi
	if grep -q 'Kernel panic' "$run/console.log"; then
		echo "not ok - guest: $k kernel panicked: $(grep -m1 'Kernel panic' "$run/console.log")" >>"$out/host.tap"
		return 1
	fi
	if [[ ! -f $out/rc ]]; then
		echo "not ok - guest: $k guest stopped without reporting (qemu exit $rc)" >>"$out/host.tap"
		return 1
	fi
	return 0
}

# Counts TAP results: "ok" without SKIP passes, "not ok" fails.
tally() {
	awk '
		/^[ \t]*not ok / { f++; next }
		/^[ \t]*ok / { if ($0 ~ /# *SKIP/) s++; else p++ }
		END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit (f > 0) }
	' "$@"
}

# Our kernel files: sparse on the objects as built, kernel-doc on the
# sources. Prints TAP lines. (W=1 is in make check-configs: it changes the
# objects' flags and so would rebuild them at every check.) The files of
# kernel/taskstats/ are the overlay's, so that a new one is linted too.
OUR_C="$(cd "$RIG" && echo kernel/taskstats/*.c) kernel/tsacct.c kernel/delayacct.c"
OUR_H="$(cd "$RIG" && echo kernel/taskstats/*.h) include/linux/delayacct.h include/linux/tsacct_kern.h include/linux/taskstats_kern.h include/uapi/linux/taskstats.h"
lint_series() {
	local src=$SRC/series obj=$BUILD/obj/series log
	log=$obj/sparse.log
	# shellcheck disable=SC2086
	make -s -C "$src" O="$obj" CC="ccache gcc" C=2 ${OUR_C//.c/.o} >"$log" 2>&1
	if grep -E "^$src/(${OUR_C// /|}|${OUR_H// /|}):[0-9]+:[0-9]+: (warning|error)" "$log" >&2; then
		echo "not ok - host: sparse warns about our files ($log)"
	else
		echo "ok - host: sparse is clean on our kernel files"
	fi
	# shellcheck disable=SC2086
	if (cd "$src" && perl scripts/kernel-doc -none -Wall $OUR_C $OUR_H) 2>&1 | grep . >&2; then
		echo "not ok - host: kernel-doc -Wall warns about our files"
	else
		echo "ok - host: kernel-doc -Wall is clean on our kernel files"
	fi
}

# The KUnit suites built into a kernel ran at its boot: their results,
# read from the boot's kernel log by kunit.py parse, as one TAP line per
# case in OUT/kunit.tap. A kernel built with delay accounting's two
# suites (every kernel but the reference and the bisect steps before the
# class table) must have them report.
kunit_tap() {
	local k=$1 out=$2 want=no
	if [[ $k == series ]] ||
		grep -qx 'CONFIG_TASK_DELAY_ACCT_KUNIT_TEST=y' "$(obj_of "$k")/.config" 2>/dev/null; then
		want=yes
	fi
	rm -f "$out/kunit.json"
	python3 "$SRC/series/tools/testing/kunit/kunit.py" parse --json="$out/kunit.json" \
		"$out/dmesg" >"$out/kunit.txt" 2>&1 || true
	python3 - "$out/kunit.json" "$want" >"$out/kunit.tap" <<'PY'
import json, sys
path, want = sys.argv[1:]
try:
    top = json.load(open(path))
except (OSError, ValueError):
    top = {}
suites = set()

def walk(group):
    for sub in group.get('sub_groups', []):
        suites.add(sub['name'])
        walk(sub)
    for case in group.get('test_cases', []):
        status = case['status']
        if status == 'PASS':
            print(f"ok - kunit: {case['name']}")
        elif status == 'SKIP':
            print(f"ok - kunit: {case['name']} # SKIP")
        else:
            print(f"not ok - kunit: {case['name']} ({status})")

walk(top)
if want == 'yes':
    for suite in ('delayacct', 'delayacct_report'):
        if suite not in suites:
            print(f'not ok - kunit: the {suite} suite did not report')
PY
}

# A case the series kernel skips for want of what only a kernel with the
# dump does (a reason that starts "this kernel", see ts_kernel_dumps() in
# the selftests) is a failure there: the series has it.
series_skips() {
	grep -E '^ok .*# SKIP +this kernel' "$1" | sed 's/^ok [0-9]* /not ok - series kernel skipped /' || true
}

# The run time of each kselftest binary, against the timeout of the suite's
# settings file.
ksft_times() {
	local times=$1 limit
	[[ -s $times ]] || return 0
	limit=$(sed -n 's/^timeout=//p' "$RIG/tools/testing/selftests/taskstats/settings")
	echo "# kselftest run times (timeout ${limit:-45} s each): $(awk '{ printf "%s%s %d s", sep, $1, $2; sep = ", " }' "$times")"
}

# make check; with DEBUG=1 (make check-debug) the debug flavour of the
# kernel, whose guest also runs the full fuzzer and stress and scans for
# leaks (scripts/guest-init).
cmd_check() {
	local k=$KERNEL host=$BUILD/host.tap out
	cmd_tree
	: >"$host"
	echo "ok - host: the series applies with git am to the base and yields the built tree" >>"$host"
	if cmd_checkpatch; then
		echo "ok - host: every patch of the series is checkpatch --strict clean" >>"$host"
	else
		echo "not ok - host: checkpatch --strict reports problems (see above)" >>"$host"
	fi
	cmd_kernel "$k"
	[[ $k == series && -z $DEBUG ]] && lint_series >>"$host"
	cmd_userspace
	out=$(run_of "$k")/out
	cmd_boot "$k" check || true
	touch "$out/host.tap" "$out/tap" "$out/dmesg"
	kunit_tap "$k" "$out"
	[[ $k != series ]] || series_skips "$out/tap" >>"$out/host.tap"
	echo
	echo "# results: $k kernel (guest TAP above, in $out/tap; kselftest's runner's own in $out/ksft.tap)"
	ksft_times "$out/ksft.times"
	cat "$out/kunit.tap" "$host" "$out/host.tap"
	grep '^[[:space:]]*not ok' "$out/tap" || true
	tally "$host" "$out/host.tap" "$out/kunit.tap" "$out/tap"
}

# make check-bisect: the series applied one patch at a time to the base
# (the commits git am made in build/src/verify), each step built with the
# test config in one build directory (obj/bisect: each step rebuilds what
# it changes; ccache), and the steps whose patches/NNNN-*/ has a "boot"
# file (the last of each kernel-side group) booted with the suite, whose
# binaries are the whole series' (as on the reference). A line per
# patch; any build error or warning, or a failed suite, fails it.
cmd_check_bisect() {
	local dirs commits n i c name obj log t0 rc=0 tap=$BUILD/bisect.tap line
	cmd_tree
	mapfile -t dirs < <(patch_dirs)
	mapfile -t commits < <(git -C "$SRC/verify" rev-list --reverse base..HEAD)
	n=${#dirs[@]}
	[[ ${#commits[@]} == "$n" ]] || die "check-bisect: $n patch directories but ${#commits[@]} commits"
	worktree bisect
	obj=$(obj_of bisect)
	cmd_userspace
	: >"$tap"
	for ((i = 0; i < n; i++)); do
		c=${commits[i]} name=${dirs[i]##*/}
		# BISECT_FROM=0024: the steps before it are as last checked.
		[[ ${name%%-*} < ${BISECT_FROM:-0000} ]] && continue
		git -C "$SRC/bisect" checkout -q -f --detach "$c"
		t0=$(date +%s)
		say "bisect: step $((i + 1)) of $n, $name"
		if ! (cmd_kernel bisect); then
			line="not ok $((i + 1)) - bisect: $name does not build: $(grep -m1 -E 'error' "$obj/build.log" || true)"
			rc=1
		elif log=$(grep -E '(warning|error):' "$obj/build.log"); then
			line="not ok $((i + 1)) - bisect: $name builds with warnings: $(head -1 <<<"$log")"
			rc=1
		else
			line="ok $((i + 1)) - bisect: $name builds ($(($(date +%s) - t0)) s)"
		fi
		echo "$line" | tee -a "$tap"
		[[ -f ${dirs[i]}/boot && $line == ok* ]] || continue
		if cmd_boot bisect check; then
			touch "$(run_of bisect)/out/tap" "$(run_of bisect)/out/host.tap" "$(run_of bisect)/out/dmesg"
			kunit_tap bisect "$(run_of bisect)/out"
			line=$(tally "$(run_of bisect)/out/host.tap" "$(run_of bisect)/out/kunit.tap" \
				"$(run_of bisect)/out/tap" || true)
			if [[ $line == *" 0 failed"* ]]; then
				echo "ok - bisect: $name boots and passes the suite: $line" | tee -a "$tap"
			else
				echo "not ok - bisect: $name boots, the suite fails: $line" | tee -a "$tap"
				grep '^[[:space:]]*not ok' "$(run_of bisect)/out/tap" | sed 's/^/  /' >&2 || true
				rc=1
			fi
			cp -r "$(run_of bisect)/out" "$BUILD/bisect-$name.out"
		else
			echo "not ok - bisect: $name does not boot: $(cat "$(run_of bisect)/out/host.tap")" | tee -a "$tap"
			rc=1
		fi
	done
	tally "$tap" || true
	return $rc
}

# make check-plain: the suite the way a kernel developer or a CI runs it,
# with nothing of the rig in the guest. The tree is the pristine base with
# the series applied by git am (build/src/verify); the kernel is
# tinyconfig merged by the kernel's merge_config.sh with the virtio/9p
# guest fragment (scripts/guest.config) and the selftests' fragment, plus
# overlayfs for the in-tree run; the suite is installed by kselftest's
# Makefile. The guest (scripts/plain-init) runs run_kselftest.sh from the
# install, then make run_tests in the tree. Each runner's totals, the
# time of each binary and a dmesg scan are the result.
cmd_check_plain() {
	local src=$SRC/verify obj=$BUILD/obj/plain run=$BUILD/run/plain out t0 rc=0 bad
	cmd_tree
	mkdir -p "$obj"
	echo CONFIG_OVERLAY_FS=y >"$obj/in-tree.config"
	make -s -C "$src" O="$obj" tinyconfig >/dev/null
	(cd "$src" && scripts/kconfig/merge_config.sh -O "$obj" "$obj/.config" \
		"$RIG/scripts/guest.config" "$src/$SELFTESTS_CONFIG" "$obj/in-tree.config") \
		>"$obj/merge.log" 2>&1 || die "check-plain: merge_config.sh failed ($obj/merge.log)"
	# Only the fragments' own options: tinyconfig's are those of a 32-bit
	# kernel until the guest fragment asks for 64BIT.
	sed -n 's/^\(# \)\{0,1\}\(CONFIG_[A-Za-z0-9_]*\)[= ].*/\2/p' "$RIG/scripts/guest.config" \
		"$src/$SELFTESTS_CONFIG" "$obj/in-tree.config" | sort -u >"$obj/fragments.syms"
	if sed -n 's/^Value requested for \(CONFIG_[A-Za-z0-9_]*\) not in final .config$/\1/p' \
		"$obj/merge.log" | grep -xF -f "$obj/fragments.syms" >&2; then
		die "check-plain: options of the fragments did not stick in tinyconfig ($obj/merge.log)"
	fi
	say "check-plain: building the tinyconfig kernel in $obj"
	export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1
	t0=$(date +%s)
	touch "$obj/.rig-build-start"
	make -s -C "$src" O="$obj" CC="ccache gcc" -j"$JOBS" bzImage headers >"$obj/build.log" 2>&1 &
	build_progress plain "$obj" $! "$t0" || { tail -30 "$obj/build.log" >&2; die "check-plain: kernel build failed"; }
	make -s -C "$src/tools/testing/selftests" TARGETS=taskstats O="$obj" install \
		>"$obj/selftests.log" 2>&1 || die "check-plain: kselftest install failed ($obj/selftests.log)"
	rm -rf "$run"
	out=$run/out
	mkdir -p "$out"
	say "check-plain: booting (accel $ACCEL, timeout ${TIMEOUT}s)"
	set +e
	# shellcheck disable=SC2086
	timeout -k 10 "$TIMEOUT" qemu-system-x86_64 -accel $ACCEL -smp 2 -m 1536 \
		-nographic -no-reboot -monitor none -serial stdio -nic none \
		-kernel "$obj/arch/x86/boot/bzImage" \
		-append "console=ttyS0 root=plainroot rootfstype=9p rootflags=trans=virtio,version=9p2000.L,msize=512000,cache=loose ro init=$RIG/scripts/plain-init panic=-1 PLAIN_KSFT=$obj/kselftest/kselftest_install PLAIN_TREE=$src PLAIN_HDR=$obj/usr/include" \
		-fsdev local,id=root,path=/,security_model=none,readonly=on,multidevs=remap \
		-device virtio-9p-pci,fsdev=root,mount_tag=plainroot \
		-fsdev local,id=out,path="$out",security_model=none,multidevs=remap \
		-device virtio-9p-pci,fsdev=out,mount_tag=plainout \
		$QEMU_ARGS </dev/null >"$run/console.log" 2>&1
	rc=$?
	set -e
	[[ -f $out/done ]] || die "check-plain: the guest did not finish (qemu exit $rc; $run/console.log)"
	bad=$(sed -n "s/^BAD_DMESG+\{0,1\}='\(.*\)'\$/\1/p" "$RIG/scripts/guest-init" | tr -d '\n')
	python3 - "$out" "$RIG/tools/testing/selftests/taskstats/settings" <<'PY' || rc=1
import re, sys
out, settings = sys.argv[1:]
limit = 45
for line in open(settings):
    if line.startswith('timeout='):
        limit = int(line.split('=', 1)[1])
bad = 0
for runner in ('run_kselftest', 'run_tests'):
    text = open(f'{out}/{runner}.tap', errors='replace').read().splitlines()
    p = f = s = 0
    for line in text:
        m = re.match(r'# (not )?ok \d+ ', line)
        if m:
            if m.group(1):
                f += 1
            elif '# SKIP' in line:
                s += 1
            else:
                p += 1
    binaries = [l for l in text if re.match(r'(not )?ok \d+ selftests: taskstats: ', l)]
    failed = [l for l in binaries if l.startswith('not ok')]
    rc = open(f'{out}/{runner}.rc').read().strip()
    verdict = 'ok' if binaries and not failed and not f else 'not ok'
    bad |= verdict != 'ok'
    print(f'{verdict} - plain: {runner}: {p} passed, {f} failed, {s} skipped in '
          f'{len(binaries)} binaries, {len(failed)} of them failed (timeout {limit} s, exit {rc})')
    for l in failed:
        print(f'#   {l}')
    times, start = [], {}
    try:
        for line in open(f'{out}/{runner}.times'):
            t, _, rest = line.rstrip('\n').partition(' ')
            m = re.match(r'# selftests: taskstats: (\S+)', rest)
            if m:
                start = (m.group(1), int(t))
            elif start and re.match(r'(not )?ok \d+ selftests: taskstats: ', rest):
                times.append(f'{start[0]} {int(t) - start[1]} s')
                start = {}
    except OSError:
        pass
    print(f'#   times: {", ".join(times)}')
sys.exit(bad)
PY
	if grep -E "$bad" "$out/dmesg" | head -20 | grep .; then
		echo "not ok - plain: the kernel logged a warning, bug or lockdep report"
		rc=1
	else
		echo "ok - plain: dmesg clean"
	fi
	return $rc
}

# make fuzz: the fuzzer alone, a million messages, on the normal kernel.
cmd_fuzz() {
	local k=$KERNEL out
	cmd_tree
	cmd_kernel "$k"
	cmd_userspace
	out=$(run_of "$k")/out
	cmd_boot "$k" fuzz || true
	touch "$out/host.tap" "$out/tap"
	cat "$out/host.tap" "$out/tap"
	tally "$out/host.tap" "$out/tap"
}

cmd_run() {
	local k=$KERNEL out
	cmd_tree
	cmd_kernel "$k"
	cmd_userspace
	out=$(run_of "$k")/out
	cmd_boot "$k" run || { cat "$out/host.tap" >&2; die "the guest did not finish"; }
	cat "$out/run.txt"
	[[ $(cat "$out/rc") == 0 ]] || die "the workload failed in the guest (rc $(cat "$out/rc"))"
}
