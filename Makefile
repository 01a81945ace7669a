# SPDX-License-Identifier: GPL-2.0
#
# The taskstats rig. `make run` and `make check` are the two commands a user
# needs; everything they depend on (packages, the base tree, the kernels) is
# set up on the way. See README.md for the knobs.
#
#   KERNEL=series|reference   which kernel to build, boot and test
#   KSRC=/path/to/linux       use this v6.12.y tree as the base
#   BUILD=dir                 build output (default ./build)
#   TESTS=bin[:test],...      run only these selftests
#   QEMU_ARGS=..., KERNEL_ARGS=..., ACCEL=kvm, TIMEOUT=seconds, JOBS=n
#   DEBUG=1                   make check on the debug kernel (= make check-debug)
#   IMAGE=bzImage             boot this kernel image instead of the one built
#   BISECT_FROM=0024          check-bisect: start at this patch

RIG := scripts/rig
export KERNEL KSRC BUILD TESTS QEMU_ARGS KERNEL_ARGS ACCEL TIMEOUT JOBS EXTRA_CONFIG BENCH_RUNS BENCH_MODE BISECT_FROM DEBUG IMAGE FUZZ_SEED

.PHONY: help deps tree import check-bisect series checkpatch config kernel userspace run check check-debug check-plain fuzz check-configs kunit memory bench clean distclean

help:
	@sed -n 's/^#   //p; s/^## //p' Makefile

## run         build, boot and print the taskstats of a sample workload
run:
	@$(RIG) run

## check       build, boot, run the kselftests; ends with "N passed, N failed"
check:
	@start=$$(date +%s); $(RIG) check; rc=$$?; \
	 echo "rig: check took $$(( $$(date +%s) - start )) s"; exit $$rc

## check-debug  check on a KASAN/UBSAN/lockdep/kmemleak kernel, with the full fuzzer and stress
check-debug:
	@start=$$(date +%s); DEBUG=1 $(RIG) check; rc=$$?; \
	 echo "rig: check-debug took $$(( $$(date +%s) - start )) s"; exit $$rc

## check-bisect  apply the series patch by patch: build every step, boot the last of each kernel-side group
check-bisect:
	@start=$$(date +%s); $(RIG) check-bisect; rc=$$?; \
	 echo "rig: check-bisect took $$(( $$(date +%s) - start )) s"; exit $$rc

## fuzz        the netlink fuzzer alone, a million messages (FUZZ_SEED=N replays a seed)
fuzz:
	@$(RIG) fuzz

## check-configs  build every combination of the accounting options (and i386), W=1 + sparse; KUnit on i386
check-configs:
	@$(RIG) check-configs

## kunit       the delayacct KUnit suites with kunit.py run, on x86_64 and i386
kunit:
	@$(RIG) kunit

## check-plain  the suite as a kernel CI runs it: tinyconfig + fragments, run_kselftest.sh and run_tests, no rig
check-plain:
	@start=$$(date +%s); $(RIG) check-plain; rc=$$?; \
	 echo "rig: check-plain took $$(( $$(date +%s) - start )) s"; exit $$rc

## memory      bytes of accounting state per task, series against reference
memory:
	@$(RIG) memory

## bench       benchmarks against the reference (BENCH_RUNS=5, BENCH_MODE=full|quick)
bench:
	@$(RIG) bench

## deps        install what is missing with apt-get
deps:
	@$(RIG) deps

## tree        prepare the base tree and the series tree
tree:
	@$(RIG) tree

## import      write edits of the series' commits in build/src/stage back to the overlay and patches/
import:
	@$(RIG) import

## series      write the git format-patch series to build/series
series:
	@$(RIG) series

## checkpatch  run checkpatch --strict on every patch of the series
checkpatch:
	@$(RIG) checkpatch

## kernel      build the kernel (KERNEL=series or reference)
kernel:
	@$(RIG) kernel

## userspace   build the selftests and the taskstat tool
userspace:
	@$(RIG) userspace

## clean       remove boot results and kernel objects (keeps the base tree)
clean:
	rm -rf $(or $(BUILD),build)/run $(or $(BUILD),build)/obj $(or $(BUILD),build)/series

## distclean   remove everything the rig made
distclean:
	rm -rf $(or $(BUILD),build)
