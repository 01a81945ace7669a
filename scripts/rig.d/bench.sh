# SPDX-License-Identifier: GPL-2.0
#
# Sourced by scripts/rig: make memory and make bench.
# shellcheck shell=bash disable=SC2154,SC2153

# --------------------------------------------------------------- memory
# Bytes of accounting state per task, series against reference, read from
# the compiler: scripts/sizes.c is built to assembly in each tree.
sizes_of() {
	local k=$1 src obj
	src=$(tree_of "$k")
	obj=$(obj_of "$k")
	cp "$RIG/scripts/sizes.c" "$src/kernel/rig_sizes.c"
	make -s -C "$src" O="$obj" CC="ccache gcc" kernel/rig_sizes.s >/dev/null 2>&1 ||
		{ rm -f "$src/kernel/rig_sizes.c"; die "compiling scripts/sizes.c in the $k tree failed"; }
	rm -f "$src/kernel/rig_sizes.c"
	sed -n 's/.*->\(RIG_[A-Z_]*\) \$\{0,1\}\([0-9]*\).*/\1 \2/p' "$obj/kernel/rig_sizes.s"
}

# The table: one row per struct, reference and series with their delta,
# and nostats (every accounting option off) when that kernel is configured.
cmd_memory() {
	local k tmp
	tmp=$(mktemp -d)
	for k in reference series nostats; do
		[[ $k == nostats && ! -f $(obj_of nostats)/.config ]] && continue
		sizes_of "$k" >"$tmp/$k"
	done
	[[ -f $tmp/nostats ]] || : >"$tmp/nostats"
	awk '
		FNR == 1 { f++ }
		{ v[f, $1] = $2; if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } }
		END {
			printf "%-22s %10s %10s %8s %10s\n", "bytes (x86_64)", "reference", "series", "delta", "nostats"
			for (i = 1; i <= n; i++) {
				s = order[i]
				name = "struct " tolower(substr(s, 5))
				r = ((1, s) in v) ? v[1, s] : "-"; e = ((2, s) in v) ? v[2, s] : "-"
				z = ((3, s) in v) ? v[3, s] : "-"
				d = (r != "-" && e != "-") ? sprintf("%+d", e - r) : "-"
				printf "%-22s %10s %10s %8s %10s\n", name, r, e, d, z
			}
		}' "$tmp/reference" "$tmp/series" "$tmp/nostats"
	rm -rf "$tmp"
}

# ---------------------------------------------------------------- bench
# Boots reference, series and nostats alternately, BENCH_RUNS times each,
# under plain TCG (wall) and TCG with -icount shift=0 (icount), runs
# bench/guest-bench.sh in each boot (boot i starts at its block i, so the
# boots differ in history) and formats the results. The kernels
# are the bench flavour (obj/bench-*): the test config without debugging.
cmd_bench() {
	local runs=${BENCH_RUNS:-5} mode=${BENCH_MODE:-full} run k clock i qa
	local kernels="reference series nostats" bin=$BUILD/obj/series/bench/taskstats_bench
	FLAVOUR=bench
	for k in $kernels; do
		cmd_kernel "$k"
	done
	cmd_userspace
	run=$BUILD/bench/$(date +%Y%m%d-%H%M%S)
	mkdir -p "$run"
	bench_meta "$run" "$runs" "$mode" "$kernels"
	for i in $(seq "$runs"); do
		for clock in wall icount; do
			qa=$QEMU_ARGS
			[[ $clock == icount ]] && qa="$QEMU_ARGS -icount shift=0"
			for k in $kernels; do
				say "bench: run $i/$runs, $clock clock, $k kernel"
				# A boot that failed leaves its console and verdict
				# here: the next boot of $k reuses its run directory.
				if ! QEMU_ARGS=$qa RIG_BENCH="$bin $mode" RIG_BENCH_BOOT=$i \
					cmd_boot "$k" bench; then
					cat "$(run_of "$k")/out/host.tap" >&2
					cp "$(run_of "$k")/out/host.tap" "$run/$k-$clock-$i.failed"
					cp "$(run_of "$k")/console.log" "$run/$k-$clock-$i.console.log"
					continue
				fi
				cp "$(run_of "$k")/out/bench.txt" "$run/$k-$clock-$i.txt"
				cp "$(run_of "$k")/qemu.cmd" "$run/$k-$clock.qemu"
			done
		done
	done
	cmd_memory >"$run/memory.txt"
	python3 "$RIG/bench/report.py" "$run" --md "$RIG/bench/results.md" \
		--png "$RIG/bench/ratios.png" || die "bench/report.py failed"
	cp "$RIG/bench/results.md" "$RIG/bench/ratios.png" "$run"/
	say "bench: results in bench/results.md and bench/ratios.png (raw: $run)"
}

bench_meta() {
	local run=$1 runs=$2 mode=$3 kernels=$4
	python3 - "$run/meta.json" "$runs" "$mode" "$(obj_of "")" $kernels <<'PY'
import json, os, subprocess, sys, datetime
out, runs, mode, objs = sys.argv[1:5]
kernels = {}
for k in sys.argv[5:]:
    obj = objs + k
    rel = open(os.path.join(obj, 'include/config/kernel.release')).read().strip()
    frag = [l.strip() for l in open(os.path.join(obj, '.config'))
            if l.startswith(('CONFIG_TASK', '# CONFIG_TASK', 'CONFIG_PROVE_LOCKING',
                             '# CONFIG_PROVE_LOCKING', 'CONFIG_DEBUG_KERNEL',
                             '# CONFIG_DEBUG_KERNEL'))]
    kernels[k] = {'release': rel, 'tree': 'base' if k == 'reference' else 'series',
                  'config': ' '.join(frag)}
# The QEMU command lines are kept whole in RUN_DIR/<kernel>-<clock>.qemu.
meta = {'date': datetime.datetime.utcnow().strftime('%Y-%m-%dT%H:%M:%SZ'),
        'mode': mode, 'boots': int(runs),
        'host': ' '.join(os.uname()),
        'kernels': kernels}
json.dump(meta, open(out, 'w'), indent=2)
PY
}
