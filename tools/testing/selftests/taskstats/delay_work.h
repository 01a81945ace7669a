/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of delay accounting share (delay_test.c, accounting on,
 * and nodelay_test.c, off): their set-up, the workloads a child runs to
 * wait in one class or another, the kernel's own counters of the events
 * those waits need, and the bounds those counters set.
 */
#ifndef TS_DELAY_WORK_H
#define TS_DELAY_WORK_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "tsnl.h"

#define PAGE		4096
#define DELAYACCT	"/proc/sys/kernel/task_delayacct"

#define DIRECT_READS	64	/* the reads of direct_reads() */
#define COW_PAGES	256	/* the pages cow_after_fork() copies */

/* Clock @clk in nanoseconds. */
uint64_t now_ns(clockid_t clk);

/*
 * The set-up of both fixtures: an exit listener on every possible CPU,
 * which it writes to @cpus, and kernel.task_delayacct saved in @old and
 * set to @on. Return: why the test is to skip, or NULL with *@err 0 or
 * the negative errno of the step that failed.
 */
const char *listen_with_delayacct(int *fd, uint16_t *family, char *cpus,
				  int cpus_size, char *old, int old_size,
				  const char *on, int *err);

/* Runs @fn in a child, returns 0 with its exit record if it exited 0. */
int run_child(int nl, void (*fn)(void *), void *arg, struct taskstats *ts);

/* Pins the caller to CPU @cpu. */
void pin(int cpu);

/* Spins on CPU 0 for @arg (a long) milliseconds. */
void spin(void *arg);

/* DIRECT_READS page reads with O_DIRECT from the file at @arg. */
void direct_reads(void *arg);

/* Touches pages, forks a holder of them, then writes: one COW copy each. */
void cow_after_fork(void *arg);

/* CPU @cpu's clock ticks in hard and soft interrupts (/proc/stat). */
int cpu_irq_ticks(int cpu, int64_t *hard, int64_t *soft);

/* The @event count of the memory cgroup @cgroup (memory.events), or -1. */
int64_t memcg_event(const char *cgroup, const char *event);

/* The oom_kill count of the memory cgroup @cgroup, or -1. */
int memcg_oom_kills(const char *cgroup);

/*
 * The events a wait of a memory class needs, counted by the kernel apart
 * from delay accounting; as counters, or the growth over a window.
 */
struct mm_events {
	int64_t pswpin;		/* pages read from swap devices */
	int64_t zswpin;		/* pages loaded from zswap (none without it) */
	int64_t restore;	/* refaults of working-set pages, anon and file */
	int64_t memcg_restore;	/* the same, of the test cgroup's pages */
	int64_t allocstall;	/* direct reclaims outside cgroups, all zones */
	int64_t memcg_max;	/* the test cgroup's reclaims at its memory.max */
};

/* @e becomes its growth since @before. */
void mm_events_since(struct mm_events *e, const struct mm_events *before);

/* The direct reclaims of @e, a freepages wait each. */
int64_t reclaims(const struct mm_events *e);

/* How many thrashing waits @restores refaults of working-set pages allow. */
int64_t thrashing_bound(int64_t restores);

/* Moves the caller into the cgroup @cgroup, or exits 7. */
void join(const char *cgroup);

/* A memory workload of a child in a cgroup. */
struct mem_job {
	const char *cgroup;
	const char *file;
	size_t size;
	int passes;
};

/* Reads a file @passes times inside the cgroup, through the page cache. */
void read_file_in_memcg(void *arg);

/* Touches @size bytes of anonymous memory inside the cgroup, @passes times. */
void touch_anon_in_memcg(void *arg);

/*
 * Switches kernel.task_delayacct off and on every millisecond until
 * *@stop: waits that start while it is on and end while it is off.
 */
struct toggler {
	pthread_t thread;
	bool stop;		/* atomic */
};

/* The thread of a struct toggler, @arg. */
void *toggle(void *arg);

/* A child thrashing in two phases, each reported on @done, the 2nd on @go. */
void thrash_twice(struct mem_job *j, int done, int go);

/* What a run of thrash_twice() showed. */
struct two_phases {
	uint64_t phase1, phase2;	/* the thrashing count after each phase */
	struct mm_events ev1, ev;	/* the memory events of phase 1, of phase 2 */
};

/* The first phase of @run that refaulted no working-set page, or 0. */
int phase_without_working_set(const struct two_phases *run);

/* O_DIRECT reads of @arg's file, each after 2 ms of CPU on CPU 0. */
void spin_then_read(void *arg);

/* The migration test's victim: waits behind a spinner, says so on @ready. */
void wait_behind_spinner(int ready);

#endif
