// SPDX-License-Identifier: GPL-2.0
/*
 * The set-up, workloads and counters of the delay accounting tests: see
 * delay_work.h. A workload runs in a child (run_child()) and exits
 * non-zero on a failure of its own.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "delay_work.h"

uint64_t now_ns(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/*
 * See ts_listener_open(). Without a socket, *@fd < 0, the caller fails;
 * with one but no TASKSTATS family, it skips.
 */
const char *listen_with_delayacct(int *fd, uint16_t *family, char *cpus,
				  int cpus_size, char *old, int old_size,
				  const char *on, int *err)
{
	*err = ts_listener_open(fd, family, cpus, cpus_size);
	if (*fd >= 0 && !*family)
		return "no TASKSTATS family";
	if (*err)
		return NULL;
	if (ts_read_file(DELAYACCT, old, old_size) < 0)
		return "no " DELAYACCT ": kernel without CONFIG_TASK_DELAY_ACCT";
	*err = ts_write_file(DELAYACCT, on);
	return NULL;
}

struct void_job {
	void (*fn)(void *arg);
	void *arg;
};

static int run_void(void *arg)
{
	struct void_job *j = arg;

	j->fn(j->arg);
	return 0;
}

int run_child(int nl, void (*fn)(void *), void *arg, struct taskstats *ts)
{
	struct void_job j = { fn, arg };

	return ts_run_child(nl, run_void, &j, ts, NULL) ? -1 : 0;
}

void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

void spin(void *arg)
{
	uint64_t end = now_ns(CLOCK_MONOTONIC) + (long)arg * 1000000ULL;

	pin(0);
	while (now_ns(CLOCK_MONOTONIC) < end)
		;
}

void direct_reads(void *arg)
{
	const char *path = arg;
	void *buf;
	int fd = open(path, O_RDONLY | O_DIRECT);

	if (fd < 0 || posix_memalign(&buf, PAGE, PAGE))
		_exit(5);
	for (int i = 0; i < DIRECT_READS; i++)
		if (pread(fd, buf, PAGE, (off_t)i * PAGE * 3) != PAGE)
			_exit(6);
	close(fd);
}

void cow_after_fork(void *arg)
{
	char *p = mmap(NULL, COW_PAGES * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	pid_t holder;

	if (p == MAP_FAILED)
		_exit(5);
	madvise(p, COW_PAGES * PAGE, MADV_NOHUGEPAGE);
	memset(p, 1, COW_PAGES * PAGE);
	holder = fork();
	if (holder == 0) {
		pause();
		_exit(0);
	}
	for (int i = 0; i < COW_PAGES; i++)
		p[i * PAGE] = 2;
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
}

/*
 * CPU @cpu's time in hard interrupts in *@hard and in soft ones in *@soft
 * (/proc/stat), in clock ticks. Return: 0, or -1 if there is no such CPU.
 */
int cpu_irq_ticks(int cpu, int64_t *hard, int64_t *soft)
{
	static char buf[16384];
	char name[16], *line, *save = NULL;

	snprintf(name, sizeof(name), "cpu%d", cpu);
	if (ts_read_file("/proc/stat", buf, sizeof(buf)) < 0)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long v[7];
		char key[16];

		/* cpuN user nice system idle iowait irq softirq ... */
		if (sscanf(line, "%15s %llu %llu %llu %llu %llu %llu %llu", key, &v[0],
			   &v[1], &v[2], &v[3], &v[4], &v[5], &v[6]) == 8 &&
		    !strcmp(key, name)) {
			*hard = v[5];
			*soft = v[6];
			return 0;
		}
	}
	return -1;
}

int64_t memcg_event(const char *cgroup, const char *event)
{
	char path[PATH_MAX], buf[512];

	snprintf(path, sizeof(path), "%s/memory.events", cgroup);
	if (ts_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	return ts_keyed_value(buf, event);
}

int memcg_oom_kills(const char *cgroup)
{
	return memcg_event(cgroup, "oom_kill");
}

void mm_events_since(struct mm_events *e, const struct mm_events *before)
{
	e->pswpin -= before->pswpin;
	e->zswpin -= before->zswpin;
	e->restore -= before->restore;
	e->memcg_restore -= before->memcg_restore;
	e->allocstall -= before->allocstall;
	e->memcg_max -= before->memcg_max;
}

/*
 * Memory reclaim by a task, a freepages wait each, is direct reclaim:
 * either at its cgroup's memory.max (try_charge_memcg() raises the
 * cgroup's "max" event before each) or outside cgroups (counted in
 * allocstall, each). One reclaim that frees nothing tries again, up to
 * three more times (do_try_to_free_pages()), within the same "max".
 */
int64_t reclaims(const struct mm_events *e)
{
	return e->memcg_max + e->allocstall;
}

/*
 * How many thrashing waits @restores refaults of working-set pages allow:
 * each such page's read is one (swap_read_folio(), or the read-ahead of
 * a file), and a fault waiting for it to arrive may be another
 * (folio_wait_bit_common()). A few more for pages that reclaim marked as
 * working set while their read was still in flight.
 */
int64_t thrashing_bound(int64_t restores)
{
	return 2 * restores + 16;
}

void join(const char *cgroup)
{
	char path[400];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	if (ts_write_file(path, "0"))
		_exit(7);
}

void read_file_in_memcg(void *arg)
{
	struct mem_job *j = arg;
	static char buf[1 << 16];

	join(j->cgroup);
	for (int pass = 0; pass < j->passes; pass++) {
		int fd = open(j->file, O_RDONLY);

		if (fd < 0)
			_exit(5);
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
}

void touch_anon_in_memcg(void *arg)
{
	struct mem_job *j = arg;
	char *p;

	join(j->cgroup);
	p = mmap(NULL, j->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(5);
	madvise(p, j->size, MADV_NOHUGEPAGE);
	for (int pass = 0; pass < j->passes; pass++)
		for (size_t i = 0; i < j->size; i += PAGE)
			p[i] += 1;
}

void *toggle(void *arg)
{
	struct toggler *t = arg;

	while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE)) {
		ts_write_file(DELAYACCT, "0");
		usleep(200);
		ts_write_file(DELAYACCT, "1");
		usleep(200);
	}
	return NULL;
}

/*
 * The thrashing child of two phases: 8 passes over @size bytes (from the
 * third on, refaults of the working set: thrashing), a report on @done,
 * then 4 more once @go says so.
 */
void thrash_twice(struct mem_job *j, int done, int go)
{
	char *p, c;

	join(j->cgroup);
	p = mmap(NULL, j->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(5);
	madvise(p, j->size, MADV_NOHUGEPAGE);
	for (int phase = 0; phase < 2; phase++) {
		for (int pass = 0; pass < (phase ? 4 : 8); pass++)
			for (size_t i = 0; i < j->size; i += PAGE)
				p[i] += 1;
		if (write(done, "x", 1) != 1 || read(go, &c, 1) != 1)
			_exit(6);
	}
	_exit(0);
}

int phase_without_working_set(const struct two_phases *run)
{
	if (!run->ev1.memcg_restore)
		return 1;
	return run->ev.memcg_restore ? 0 : 2;
}

/*
 * Reads 4 KiB with O_DIRECT from @arg's file after each 2 ms of CPU, on
 * CPU 0 beside a spinner: a task that used its share when it blocks is
 * dequeued late (DELAY_DEQUEUE), by whichever task picks next.
 */
void spin_then_read(void *arg)
{
	const char *path = arg;
	void *buf;
	int fd = open(path, O_RDONLY | O_DIRECT);

	pin(0);
	if (fd < 0 || posix_memalign(&buf, PAGE, PAGE))
		_exit(5);
	for (int i = 0; i < 200; i++) {
		uint64_t end = now_ns(CLOCK_MONOTONIC) + 2000000;

		while (now_ns(CLOCK_MONOTONIC) < end)
			;
		if (pread(fd, buf, PAGE, (off_t)i * PAGE * 2) != PAGE)
			_exit(6);
	}
	close(fd);
}

/*
 * The victim of the migration test: a FIFO task that puts itself behind
 * a FIFO spinner of higher priority on CPU 1 and says so on @ready, 30
 * times; the test moves it to CPU 0 each time, ending the wait.
 */
void wait_behind_spinner(int ready)
{
	struct sched_param sp = { .sched_priority = 10 };
	cpu_set_t one;

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(5);
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	for (int i = 0; i < 30; i++) {
		if (write(ready, "x", 1) != 1)
			_exit(6);
		sched_setaffinity(0, sizeof(one), &one);
	}
	_exit(0);
}
