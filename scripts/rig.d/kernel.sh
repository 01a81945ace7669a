# SPDX-License-Identifier: GPL-2.0
#
# Sourced by scripts/rig: kernel configs and builds, the userspace build, KUnit and the config matrix (make config, kernel, userspace, kunit, check-configs).
# shellcheck shell=bash disable=SC2154,SC2153

# ---------------------------------------------------------------- kernel
# nostats is the series tree with every accounting option off (benchmarks).
# Where KERNEL is built: obj/KERNEL, or obj/bench-KERNEL for make bench.
FLAVOUR=
obj_of() {
	echo "$BUILD/obj/${FLAVOUR:+$FLAVOUR-}$1"
}

# Where KERNEL boots: run/KERNEL, or run/FLAVOUR-KERNEL.
run_of() {
	echo "$BUILD/run/${FLAVOUR:+$FLAVOUR-}$1"
}

tree_of() {
	case $1 in
	reference) echo "$SRC/linux" ;;
	series | nostats) echo "$SRC/series" ;;
	bisect) echo "$SRC/bisect" ;;
	*) die "KERNEL=$1: use KERNEL=series or KERNEL=reference" ;;
	esac
}

# The config fragment: guest basics, then the selftests' own fragment.
# The bench flavour leaves out the debugging the tests want (lockdep, RCU
# proving, atomic-sleep checks, KUnit): they cost more than what is measured.
# It patches static branches in place (JUMP_LABEL), as distribution kernels
# do: without it every switched-off hook of either kernel is a load and a
# test, a cost no user's kernel pays.
BENCH_DROP="DEBUG_KERNEL|PROVE_LOCKING|DEBUG_ATOMIC_SLEEP|KUNIT|KUNIT_DEFAULT_ENABLED|TASK_DELAY_ACCT_KUNIT_TEST"
BENCH_DROP+="|DEBUG_FS|FAULT_INJECTION|FAILSLAB|FAULT_INJECTION_DEBUG_FS|FAULT_INJECTION_STACKTRACE_FILTER|PSI"
SELFTESTS_CONFIG=tools/testing/selftests/taskstats/config
# The debug flavour adds scripts/debug.config (KASAN, UBSAN, lockdep...).
# An option both fragments set is set once: kconfig warns of a symbol
# assigned twice.
config_fragment() {
	cat "$RIG/scripts/guest.config" "$RIG/scripts/check.config" "$RIG/$SELFTESTS_CONFIG" |
		awk '!/^CONFIG_/ || !seen[$0]++' |
		if [[ $FLAVOUR == bench ]]; then
			grep -vE "^CONFIG_($BENCH_DROP)="
			echo "# CONFIG_DEBUG_KERNEL is not set"
			echo "CONFIG_JUMP_LABEL=y"
		else
			cat
		fi
	[[ $FLAVOUR != debug ]] || cat "$RIG/scripts/debug.config"
	if [[ -n $EXTRA_CONFIG ]]; then
		tr ' ' '\n' <<<"$EXTRA_CONFIG"
	fi
}

# cmd_config KERNEL [OBJDIR [FRAGMENT-COMMAND...]]
cmd_config() {
	local k=$1 obj=${2:-$(obj_of "$1")} src frag line sym
	shift $(($# < 2 ? $# : 2))
	src=$(tree_of "$k")
	mkdir -p "$obj"
	frag=$obj/rig.config
	if [[ $k == nostats && $# == 0 ]]; then
		ON="" matrix_fragment >"$frag.new"
	else
		"${@:-config_fragment}" >"$frag.new"
	fi
	if [[ -f $obj/.config && -f $frag ]] && cmp -s "$frag" "$frag.new"; then
		rm -f "$frag.new"
		return 0
	fi
	mv "$frag.new" "$frag"
	make -s -C "$src" O="$obj" KCONFIG_ALLCONFIG="$frag" allnoconfig >/dev/null
	while read -r line; do
		[[ $line == CONFIG_* ]] || continue
		grep -qxF "$line" "$obj/.config" && continue
		# Options this tree does not define (ours, on the reference).
		sym=${line%%=*}
		grep -rqx --include='Kconfig*' "config ${sym#CONFIG_}" "$src" || continue
		rm -f "$frag"
		die "$k: $line did not stick in .config (a dependency is missing in scripts/guest.config, scripts/check.config or $SELFTESTS_CONFIG)"
	done <"$frag"
}

# Waits for the kernel build PID in OBJ, telling a waiting user where it
# is: objects compiled so far against the objects of the last complete
# build of OBJ (or of a typical test config, the first time), and the time
# elapsed; one updating line on a terminal, a line a minute otherwise.
# Returns the build's exit status.
build_progress() {
	local k=$1 obj=$2 pid=$3 t0=$4 total built now last=0 line rc=0
	total=$(cat "$obj/.rig-objects" 2>/dev/null || echo 1300)
	while kill -0 "$pid" 2>/dev/null; do
		sleep 5
		now=$(date +%s)
		built=$(find "$obj" -name '*.o' -newer "$obj/.rig-build-start" 2>/dev/null | wc -l)
		line=$(printf 'rig: building the %s kernel: %d of ~%d objects compiled, %d:%02d' \
			"$k" "$built" "$total" $(((now - t0) / 60)) $(((now - t0) % 60)))
		if [[ -t 2 ]]; then
			printf '\r%s\033[K' "$line" >&2
		elif ((now - last >= 60)); then
			echo "$line" >&2
			last=$now
		fi
	done
	[[ -t 2 ]] && printf '\r\033[K' >&2
	wait "$pid" || rc=$?
	return "$rc"
}

cmd_kernel() {
	local k=${1:-$KERNEL} src obj t0 t1
	src=$(tree_of "$k")
	obj=$(obj_of "$k")
	cmd_config "$k"
	say "building the $k kernel in $obj"
	t0=$(date +%s)
	export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1
	export KBUILD_BUILD_TIMESTAMP="$(git_base log -1 --format=%cd --date=rfc base)"
	export KBUILD_BUILD_USER=rig KBUILD_BUILD_HOST=rig
	touch "$obj/.rig-build-start"
	make -s -C "$src" O="$obj" CC="ccache gcc" -j"$JOBS" bzImage headers \
		>"$obj/build.log" 2>&1 &
	if ! build_progress "$k" "$obj" $! "$t0"; then
		tail -30 "$obj/build.log" >&2
		die "$k kernel build failed: full log in $obj/build.log"
	fi
	t1=$(date +%s)
	find "$obj" -name '*.o' | wc -l >"$obj/.rig-objects"
	say "$k kernel built in $((t1 - t0)) s"
	grep -E '(warning|error):' "$obj/build.log" >&2 || true
}

# The selftests and tools come from the series tree and its uapi headers:
# the very same binaries then run on either kernel.
cmd_userspace() {
	local src=$SRC/series obj=$BUILD/obj/series
	# A debug-only run has not configured the plain series kernel.
	[[ -f $obj/.config ]] || FLAVOUR= cmd_config series "$obj"
	[[ -f $obj/usr/include/linux/taskstats.h ]] ||
		make -s -C "$src" O="$obj" headers >/dev/null
	# Built and installed as kselftest does it: the guest runs them
	# with run_kselftest.sh from obj/series/kselftest/kselftest_install.
	make -s -C "$src/tools/testing/selftests" TARGETS=taskstats O="$obj" install \
		>"$obj/selftests.log" 2>&1 || {
		cat "$obj/selftests.log" >&2
		die "building the taskstats selftests failed"
	}
	grep -E '(warning|error):' "$obj/selftests.log" >&2 || true
	# Existing clients from the base tree, against the series' header,
	# and against 6.12's own (taken from the base tree, in a directory
	# searched first): a client built before the series.
	mkdir -p "$obj/accounting" "$obj/accounting-612/include/linux"
	git_base show base:include/uapi/linux/taskstats.h \
		>"$obj/accounting-612/include/linux/taskstats.h"
	for f in getdelays procacct; do
		gcc -O2 -isystem "$obj/usr/include" -o "$obj/accounting/$f" \
			"$src/tools/accounting/$f.c" 2>"$obj/accounting/$f.log" ||
			die "building tools/accounting/$f.c failed: $obj/accounting/$f.log"
		gcc -O2 -isystem "$obj/accounting-612/include" -isystem "$obj/usr/include" \
			-o "$obj/accounting-612/$f" "$src/tools/accounting/$f.c" \
			2>"$obj/accounting-612/$f.log" ||
			die "building tools/accounting/$f.c with 6.12's header failed: $obj/accounting-612/$f.log"
	done
	# The benchmark program, for the guest's bench smoke and make bench.
	mkdir -p "$obj/bench"
	# -flto: the workloads inline the counted syscalls and clocks of
	# bench_util.c as they would within one file.
	gcc -O2 -flto -Wall -isystem "$obj/usr/include" -o "$obj/bench/taskstats_bench" \
		"$RIG/bench/taskstats_bench.c" "$RIG"/bench/bench_*.c -lpthread ||
		die "building bench/taskstats_bench.c failed"
	if [[ -d $src/tools/accounting/taskstat ]]; then
		make -s -C "$src/tools/accounting/taskstat" O="$obj/taskstat" \
			KHDR_INCLUDES="-isystem $obj/usr/include" >/dev/null ||
			die "building tools/accounting/taskstat failed"
		# And against 6.12's own header, which lacks every field after
		# irq_delay_total: the tool reads records by the ABI's offsets,
		# and guest-clients checks it reads what the build above reads.
		make -s -C "$src/tools/accounting/taskstat" O="$obj/accounting-612/taskstat" \
			KHDR_INCLUDES="-isystem $obj/accounting-612/include -isystem $obj/usr/include" \
			>/dev/null || die "building tools/accounting/taskstat with 6.12's header failed"
	fi
}

# ------------------------------------------------------- config matrix
ACCT_OPTS="TASKSTATS TASK_DELAY_ACCT TASK_XACCT TASK_IO_ACCOUNTING"
CONFIG_MATRIX="none:
taskstats:TASKSTATS
delay:TASKSTATS TASK_DELAY_ACCT
xacct:TASKSTATS TASK_XACCT
io:TASKSTATS TASK_XACCT TASK_IO_ACCOUNTING
all:TASKSTATS TASK_DELAY_ACCT TASK_XACCT TASK_IO_ACCOUNTING
i386:TASKSTATS TASK_DELAY_ACCT TASK_XACCT TASK_IO_ACCOUNTING"

# The guest config with exactly the accounting options in $ON enabled.
matrix_fragment() {
	local o
	config_fragment | grep -vE "^CONFIG_(${ACCT_OPTS// /|})(_KUNIT_TEST)?="
	for o in $ACCT_OPTS; do
		if [[ " $ON " == *" $o "* ]]; then
			echo "CONFIG_$o=y"
		else
			echo "# CONFIG_$o is not set"
		fi
	done
	[[ " $ON " != *" TASK_DELAY_ACCT "* || $FLAVOUR == bench ]] ||
		echo "CONFIG_TASK_DELAY_ACCT_KUNIT_TEST=y"
}

# The same on a 32-bit x86 kernel: what a 64-bit build accepts and i386
# or arm32 refuse (an acquire or release of a u64, a u64 division) fails
# here. Never the debug flavour's additions: KASAN is 64-bit only.
matrix_fragment_32() {
	FLAVOUR= matrix_fragment | sed 's/^CONFIG_64BIT=y$/# CONFIG_64BIT is not set/'
}

# Delay accounting's KUnit suites the way KUnit runs them: kunit.py run
# builds a kernel of their .kunitconfig for ARCH (x86_64, or i386, where a
# u64 is two stores and the cpu extremes' reader takes a path of its own)
# in obj/kunit-ARCH and boots it under QEMU. One TAP line.
KUNITCONFIG=kernel/delayacct.kunitconfig
kunit_run() {
	local arch=$1 dir=$BUILD/obj/kunit-$1 log rc=0 line
	mkdir -p "$dir"
	log=$dir/kunit.log
	(cd "$SRC/series" && CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1 \
		timeout -k 10 3600 python3 tools/testing/kunit/kunit.py run --arch="$arch" \
		--kunitconfig="$KUNITCONFIG" --build_dir="$dir" --jobs="$JOBS" \
		--make_options="CC=ccache gcc" --timeout=600) >"$log" 2>&1 || rc=$?
	line=$(grep -o 'Testing complete\..*' "$log" | tail -1 | sed 's/\x1b\[[0-9;]*m//g')
	if [[ $rc == 0 ]]; then
		echo "ok - kunit.py run --arch=$arch --kunitconfig=$KUNITCONFIG: ${line:-passed}"
	else
		echo "not ok - kunit.py run --arch=$arch --kunitconfig=$KUNITCONFIG: exit $rc${line:+, $line} ($log)"
	fi
	return $rc
}

cmd_kunit() {
	local bad=0
	kunit_run x86_64 || bad=1
	kunit_run i386 || bad=1
	return $bad
}

# Builds the series kernel in every meaningful combination of our options
# (one build directory, so each step rebuilds only what the change
# touches; another for the 32-bit one), then our objects with W=1 and
# sparse. Any warning fails. The 32-bit kernel also boots its KUnit
# suites.
cmd_check_configs() {
	local obj src=$SRC/series entry name objs bad=0 log frag
	export CCACHE_BASEDIR=$BUILD CCACHE_NOHASHDIR=1
	while read -r entry; do
		name=${entry%%:*} ON=${entry#*:}
		obj=$BUILD/obj/configs frag=matrix_fragment
		[[ $name != i386 ]] || obj=$BUILD/obj/configs-i386 frag=matrix_fragment_32
		log=$obj/build-$name.log
		cmd_config series "$obj" "$frag"
		# An ARCH=x86_64 in the environment would make it 64-bit.
		if [[ $name == i386 ]] && ! grep -qx '# CONFIG_64BIT is not set' "$obj/.config"; then
			echo "not ok - config i386: $obj/.config is not 32-bit (ARCH=${ARCH:-unset})"
			bad=1
			continue
		fi
		say "config $name (${ON:-no accounting}): building"
		if ! make -s -C "$src" O="$obj" CC="ccache gcc" -j"$JOBS" vmlinux >"$log" 2>&1; then
			tail -20 "$log" >&2
			echo "not ok - config $name: build failed ($log)"
			bad=1
			continue
		fi
		objs=""
		[[ " $ON " == *" TASKSTATS "* ]] && objs="kernel/taskstats/ kernel/tsacct.o"
		[[ " $ON " == *" TASK_DELAY_ACCT "* ]] && objs="$objs kernel/delayacct.o"
		[[ -n $objs ]] && make -s -C "$src" O="$obj" CC="ccache gcc" W=1 C=2 $objs >>"$log" 2>&1
		if grep -E '(warning|error):' "$log" | grep -E 'kernel/(taskstats/[a-z]+\.[ch]|(tsacct|delayacct|delayacct_test)\.c)|include/linux/(delayacct|taskstats_kern|tsacct_kern)\.h|uapi/linux/taskstats\.h|kernel/sched/stats\.h|linux/sched\.h'; then
			echo "not ok - config $name: warnings in our files ($log)"
			bad=1
		elif grep -E '(warning|error):' "$log" | grep -v "^$src/include/linux/sched/signal.h" | head -5 | grep .; then
			echo "not ok - config $name: build warnings ($log)"
			bad=1
		else
			echo "ok - config $name: builds without warnings; W=1 and sparse clean on our objects"
		fi
		[[ $name != i386 ]] || kunit_run i386 || bad=1
	done <<<"$CONFIG_MATRIX"
	return $bad
}
