// SPDX-License-Identifier: GPL-2.0
/*
 * Delay accounting, one class per test, each provoked by a workload that
 * must cause it. Delay accounting is switched on (kernel.task_delayacct)
 * before the measured child is forked, because a task only gets its delay
 * record at fork (delayacct_tsk_init()) when accounting is on. For every
 * class: count > 0 and total > 0, the total within the task's life; from
 * version 16 on, count * min <= total <= count * max (min only bounds the
 * cpu class's waits of time) and the maximum within the test's window;
 * from version 17 on, the time of the maximum lies inside the test's own
 * CLOCK_REALTIME window. Each test bounds its count by what the workload
 * did or by the kernel's own counters of the events a delay needs
 * (/proc/vmstat, memory.events, /proc/stat), so a class counted twice
 * fails. Accounting switched off: nodelay_test.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "delay_work.h"
#include "disks.h"
#include "tsnl.h"

FIXTURE(delay) {
	int fd;
	uint16_t family;
	char cpus[256];
	char old_delayacct[16];
	char cgroup[400];		/* created memory cgroup, if any */
	char subtree[480];		/* subtree_control we added +memory to */
	struct ts_disk swap;		/* swap we made and switched on */
	struct ts_disk scratch;		/* a file system of our own */
	char file[256];			/* the file we made there */
	uint64_t t0;			/* CLOCK_REALTIME before the workload */
	char buf[TSNL_BUF_SIZE];
};

FIXTURE_SETUP(delay)
{
	const char *why;
	int err;

	why = listen_with_delayacct(&self->fd, &self->family, self->cpus,
				    sizeof(self->cpus), self->old_delayacct,
				    sizeof(self->old_delayacct), "1", &err);
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, err);
	self->t0 = now_ns(CLOCK_REALTIME);
}

FIXTURE_TEARDOWN(delay)
{
	if (self->old_delayacct[0])
		ts_write_file(DELAYACCT, self->old_delayacct);
	ts_disk_drop(&self->swap);
	if (self->cgroup[0])
		rmdir(self->cgroup);
	if (self->subtree[0])
		ts_write_file(self->subtree, "-memory");
	if (self->file[0])
		unlink(self->file);
	ts_disk_drop(&self->scratch);
	close(self->fd);
}

/* Checks class @cls of the struct taskstats named ts in the caller. */
#define CHECK_CLASS(cls) check_class(_metadata, self, #cls, &ts,		\
	ts.cls##_count, ts.cls##_delay_total, ts.cls##_delay_min,		\
	ts.cls##_delay_max, &ts.cls##_delay_max_ts)

/*
 * How far a total of delays, measured with local_clock(), may run past
 * the task's elapsed time, measured with ktime_get_ns() and reported in
 * microseconds.
 */
#define CLOCK_SLACK_NS	10000000ULL

static void check_class(struct __test_metadata *_metadata, struct _test_data_delay *self,
			const char *cls, const struct taskstats *rec, uint64_t count,
			uint64_t total, uint64_t min, uint64_t max,
			const struct __kernel_timespec *ts)
{
	uint64_t t1 = now_ns(CLOCK_REALTIME), at;
	/*
	 * The cpu class counts waits of no time: a task put on a CPU in the
	 * runqueue clock's tick it was queued in (a wakeup that preempts)
	 * waited 0 ns. The others record only delays of at least 1 ns (the
	 * IRQ class, upstream, counts empty updates too: version < 16).
	 */
	bool zero_waits = !strcmp(cls, "cpu");

	TH_LOG("%s: count %llu total %llu min %llu max %llu (version %d)", cls,
	       (unsigned long long)count, (unsigned long long)total,
	       (unsigned long long)min, (unsigned long long)max, rec->version);
	EXPECT_LT(0ULL, count);
	EXPECT_LT(0ULL, total);
	/* A task waits for one thing of a class at a time, within its life. */
	EXPECT_GE(rec->ac_etime * 1000 + CLOCK_SLACK_NS, total);
	if (rec->version < 16 || !count)
		return;
	/*
	 * The minimum is of the waits that took time, the count of all: in
	 * the cpu class zero waits lower the average below the minimum, so
	 * the minimum is only bounded by the maximum; but a non-zero total
	 * has a non-zero wait among its parts.
	 */
	EXPECT_LT(0ULL, min);
	EXPECT_LE(min, max);
	EXPECT_GE(count * max, total);
	if (!zero_waits)
		EXPECT_LE(count * min, total);
	EXPECT_LE(max, total);
	EXPECT_GE(t1 - self->t0, max);
	if (rec->version < 17)
		return;
	at = ts->tv_sec * 1000000000ULL + ts->tv_nsec;
	EXPECT_LE(self->t0, at);
	EXPECT_GE(t1, at);
}

TEST_F_TIMEOUT(delay, two_spinners_on_one_cpu_wait_for_it_half_the_time, 60)
{
	struct taskstats ts;
	pid_t rival;
	uint64_t wall;

	rival = fork();
	ASSERT_LE(0, rival);
	if (rival == 0) {
		spin((void *)600L);
		_exit(0);
	}
	ASSERT_EQ(0, run_child(self->fd, spin, (void *)400L, &ts));
	kill(rival, SIGKILL);
	waitpid(rival, NULL, 0);
	wall = ts.ac_etime * 1000;
	TH_LOG("etime %llu ns, cpu delay %llu ns", (unsigned long long)wall,
	       (unsigned long long)ts.cpu_delay_total);
	CHECK_CLASS(cpu);
	/* Sharing one CPU fairly: about half the life spent runnable-waiting. */
	EXPECT_LE(wall / 5, ts.cpu_delay_total);
	EXPECT_GE(wall * 4 / 5, ts.cpu_delay_total);
	EXPECT_LT(0ULL, ts.cpu_run_virtual_total);
}

/*
 * Writes a file of @size on a scratch file system of the test's own and
 * drops its pages from the cache: reading it waits for the disk.
 * Returns 0, TS_DISK_CANNOT (the reason in self->scratch.why) or -errno.
 */
static int make_file(struct _test_data_delay *self, const char *name, size_t size)
{
	int fd, err;

	err = ts_disk_scratch(&self->scratch, size + (64 << 20));
	if (err)
		return err;
	snprintf(self->file, sizeof(self->file), "%s/%s", self->scratch.dir, name);
	fd = open(self->file, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return -errno;
	memset(self->buf, 0x77, sizeof(self->buf));
	for (size_t done = 0; done < size && !err; done += sizeof(self->buf))
		if (write(fd, self->buf, sizeof(self->buf)) != sizeof(self->buf))
			err = -EIO;
	if (!err && fsync(fd))
		err = -errno;
	posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
	close(fd);
	return err;
}

TEST_F_TIMEOUT(delay, direct_reads_from_disk_wait_in_blkio, 60)
{
	struct taskstats ts;
	int err;

	/*
	 * The loop device's worker runs beside the reader: the reader is
	 * often dequeued late, after its read was queued, and 6.12 stamps
	 * such a wait on the wrong task (see the test below).
	 */
	if (ts_kernel_unfixed())
		SKIP(return, TS_UNFIXED "late dequeues lose their waits");
	err = make_file(self, "ts-blkio", 1 << 20);
	if (err == TS_DISK_CANNOT)
		SKIP(return, "%s", self->scratch.why);
	ASSERT_EQ(0, err);
	self->t0 = now_ns(CLOCK_REALTIME);
	ASSERT_EQ(0, run_child(self->fd, direct_reads, self->file, &ts));
	CHECK_CLASS(blkio);
	/*
	 * A block I/O wait is a sleep in io_schedule(): one per read that
	 * did not complete at once, and a voluntary switch each. A few more
	 * may come from the child's own page faults waiting for a page being
	 * read (folio_wait_bit_common() sleeps in io_schedule() too).
	 */
	TH_LOG("%d reads: blkio count %llu, voluntary switches %llu", DIRECT_READS,
	       (unsigned long long)ts.blkio_count, (unsigned long long)ts.nvcsw);
	EXPECT_GE(DIRECT_READS + 8ULL, ts.blkio_count);
	EXPECT_GE(ts.nvcsw, ts.blkio_count);
}

TEST_F(delay, writing_pages_shared_with_a_fork_waits_in_wpcopy)
{
	struct taskstats ts;

	ASSERT_EQ(0, run_child(self->fd, cow_after_fork, NULL, &ts));
	CHECK_CLASS(wpcopy);
	/*
	 * One copy per page written, and a few of the child's own (stack and
	 * data pages it shares with the test, then with the holder). Each
	 * copy is a write fault, counted once in min_flt or maj_flt.
	 */
	EXPECT_LE((uint64_t)COW_PAGES, ts.wpcopy_count);
	EXPECT_GE(COW_PAGES + 64ULL, ts.wpcopy_count);
	EXPECT_GE(ts.ac_minflt + ts.ac_majflt, ts.wpcopy_count);
}

/*
 * IRQ time is charged at each update of a runqueue's clock to the task
 * then running there: the time the CPU spent in hard and soft interrupts
 * (ksoftirqd's excepted) since the previous update, as IRQ time
 * accounting measured it. It measures, and /proc/stat shows, hard-IRQ
 * time only when on: sampled by the tick instead, an interrupt is hard-IRQ
 * time only if the tick interrupted it, which on x86 it cannot.
 *
 * A child born on CPU 0 and pinned there spins through 125 timer ticks:
 * each tick's interrupt is measured as it ends and charged to the child
 * at the next tick's clock update, so some IRQ time must be. It can only
 * be CPU 0's, which /proc/stat counts (with ksoftirqd's time on top): at
 * most CPU 0's growth over the test, plus a clock tick for the truncation
 * of both ends to clock ticks and one for IRQ time from before the test
 * that no clock update had charged yet.
 */
TEST_F(delay, a_running_task_loses_time_to_interrupts_in_irq)
{
	uint64_t tick_ns = 1000000000ULL / sysconf(_SC_CLK_TCK);
	int64_t hard0, soft0, hard1, soft1, grown;
	struct taskstats ts;

	pin(0);		/* the child is born on CPU 0 */
	ASSERT_EQ(0, cpu_irq_ticks(0, &hard0, &soft0));
	if (!hard0)
		SKIP(return, "CPU 0 shows no hard-IRQ time: IRQ time accounting is off");
	self->t0 = now_ns(CLOCK_REALTIME);
	ASSERT_EQ(0, run_child(self->fd, spin, (void *)500L, &ts));
	ASSERT_EQ(0, cpu_irq_ticks(0, &hard1, &soft1));
	grown = hard1 + soft1 - hard0 - soft0;
	TH_LOG("CPU 0 in interrupts: %lld ticks of %llu ns; irq count %llu total %llu",
	       (long long)grown, (unsigned long long)tick_ns,
	       (unsigned long long)ts.irq_count, (unsigned long long)ts.irq_delay_total);
	ASSERT_LE(0, grown);
	CHECK_CLASS(irq);
	EXPECT_GE((grown + 2) * tick_ns, ts.irq_delay_total);
}

/* Creates a memory cgroup limited to @max bytes; the child joins it. */
static int make_memcg(struct _test_data_delay *self, const char *max)
{
	char name[32], path[sizeof(self->cgroup) + 16];
	int err;

	snprintf(name, sizeof(name), "ts-delay-%d", getpid());
	err = ts_memcg_make(name, self->cgroup, sizeof(self->cgroup),
			    self->subtree, sizeof(self->subtree));
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/memory.max", self->cgroup);
	return ts_write_file(path, max);
}

/*
 * Reads the counters: /proc/vmstat, its per-CPU parts folded first
 * (vm.stat_refresh) so that none is missing, and the test cgroup's
 * memory.events (exact: atomic counters) and memory.stat (flushed only
 * once enough changed: maybe behind, never ahead).
 */
static void mm_events_read(struct __test_metadata *_metadata,
			   struct _test_data_delay *self, struct mm_events *e)
{
	char path[sizeof(self->cgroup) + 32];
	static char buf[32768];
	int64_t anon, file;

	ASSERT_EQ(0, ts_write_file("/proc/sys/vm/stat_refresh", "1"));
	ASSERT_LT(0, ts_read_file("/proc/vmstat", buf, sizeof(buf)));
	e->pswpin = ts_keyed_value(buf, "pswpin");
	e->zswpin = ts_keyed_value(buf, "zswpin");
	if (e->zswpin < 0)
		e->zswpin = 0;
	anon = ts_keyed_value(buf, "workingset_restore_anon");
	file = ts_keyed_value(buf, "workingset_restore_file");
	e->restore = anon < 0 || file < 0 ? -1 : anon + file;
	e->allocstall = ts_keyed_value(buf, "allocstall_");
	e->memcg_max = memcg_event(self->cgroup, "max");
	snprintf(path, sizeof(path), "%s/memory.stat", self->cgroup);
	ASSERT_LT(0, ts_read_file(path, buf, sizeof(buf)));
	anon = ts_keyed_value(buf, "workingset_restore_anon");
	file = ts_keyed_value(buf, "workingset_restore_file");
	e->memcg_restore = anon < 0 || file < 0 ? -1 : anon + file;
	ASSERT_LE(0, e->pswpin);
	ASSERT_LE(0, e->restore);
	ASSERT_LE(0, e->allocstall);
	ASSERT_LE(0, e->memcg_max);
	ASSERT_LE(0, e->memcg_restore);
}

/* The growth of the memory events over a run of @fn(@job) in a child. */
static int run_counted(struct __test_metadata *_metadata,
		       struct _test_data_delay *self, void (*fn)(void *),
		       void *job, struct taskstats *ts, struct mm_events *e)
{
	struct mm_events before;
	int err;

	mm_events_read(_metadata, self, &before);
	err = run_child(self->fd, fn, job, ts);
	mm_events_read(_metadata, self, e);
	mm_events_since(e, &before);
	TH_LOG("pswpin %lld zswpin %lld restores %lld (cgroup %lld) reclaims max %lld global %lld",
	       (long long)e->pswpin, (long long)e->zswpin, (long long)e->restore,
	       (long long)e->memcg_restore, (long long)e->memcg_max,
	       (long long)e->allocstall);
	return err;
}

/*
 * Whether the cgroup OOM-killed a memory job since *@kills was read, which
 * it updates: reclaim sometimes falls behind a TCG guest's slow swap
 * device, and such a run proves nothing either way. Logs that run @run is
 * to be repeated.
 */
static bool oom_killed_since(struct __test_metadata *_metadata,
			     struct _test_data_delay *self, int *kills, int run)
{
	int now = memcg_oom_kills(self->cgroup);

	if (now <= *kills)
		return false;
	*kills = now;
	TH_LOG("run %d: the child was OOM-killed; running it again", run);
	return true;
}

#define FILE_SIZE	(48 << 20)

TEST_F_TIMEOUT(delay, reading_a_file_larger_than_its_memcg_waits_in_freepages, 180)
{
	struct mem_job job = { .size = FILE_SIZE, .passes = 1 };
	struct mm_events ev;
	struct taskstats ts;
	int err;

	err = make_file(self, "ts-reclaim", FILE_SIZE);
	if (err == TS_DISK_CANNOT)
		SKIP(return, "%s", self->scratch.why);
	ASSERT_EQ(0, err);
	err = make_memcg(self, "16M");
	if (err == -ENOENT)
		SKIP(return, "no cgroup2 memory controller");
	ASSERT_EQ(0, err);
	job.cgroup = self->cgroup;
	job.file = self->file;
	self->t0 = now_ns(CLOCK_REALTIME);
	ASSERT_EQ(0, run_counted(_metadata, self, read_file_in_memcg, &job, &ts, &ev));
	CHECK_CLASS(freepages);
	/*
	 * A wait per reclaim (see reclaims()), and a reclaim that frees
	 * nothing among clean page cache a rare one: a quarter of them
	 * repeated thrice, and a few more, is more than the kernel does,
	 * and less than every wait counted twice.
	 */
	EXPECT_GE(reclaims(&ev) + reclaims(&ev) / 4 + 4, (int64_t)ts.freepages_count);
}

#define SWAP_SIZE	(256 << 20)

/*
 * Turns swap of the test's own on and makes a memory cgroup of @max, both
 * undone by the teardown. Returns why the machine cannot (the test
 * skips), or NULL with *err the result of making them.
 */
static const char *swap_and_memcg(struct _test_data_delay *self,
				  const char *max, int *err)
{
	*err = ts_disk_swap(&self->swap, SWAP_SIZE);
	if (*err == TS_DISK_CANNOT)
		return self->swap.why;
	if (*err)
		return NULL;
	*err = make_memcg(self, max);
	if (*err == -ENOENT)
		return "no cgroup2 memory controller";
	return NULL;
}

/*
 * Runs touch_anon_in_memcg() with @job in a memory cgroup of @max with swap
 * on, the delay test's clock started. Returns why it cannot (the test
 * skips), or NULL with *err the child's result, its exit record in @ts
 * and the memory events of its run in @ev.
 */
static const char *anon_through_swap(struct __test_metadata *_metadata,
				     struct _test_data_delay *self,
				     const char *max, struct mem_job *job,
				     struct taskstats *ts, struct mm_events *ev, int *err)
{
	const char *why = swap_and_memcg(self, max, err);

	if (why || *err)
		return why;
	job->cgroup = self->cgroup;
	self->t0 = now_ns(CLOCK_REALTIME);
	*err = run_counted(_metadata, self, touch_anon_in_memcg, job, ts, ev);
	return NULL;
}

/*
 * Thrashing is a refault of a page that was part of the working set when
 * it was evicted: it had been activated, then deactivated, then swapped
 * out, and it comes back within a working set's distance. Anonymous
 * memory cycled through swap, 4 MiB more than the cgroup holds, does
 * that within a few passes: pass 2 refaults and activates what pass 1
 * pushed out, later passes refault pages that were in the working set.
 * A little more, and not too little a cgroup: refaulted pages are
 * protected as working set, and in a cgroup tight for the child's own
 * binary and libraries reclaim gave up and OOM-killed it.
 */
TEST_F_TIMEOUT(delay, cycling_memory_through_swap_waits_in_thrashing, 300)
{
	struct mem_job job = { .size = 24 << 20, .passes = 8 };
	int err, tries, kills = 0;
	struct mm_events ev;
	struct taskstats ts;
	const char *why;

	why = anon_through_swap(_metadata, self, "20M", &job, &ts, &ev, &err);
	if (why)
		SKIP(return, "%s", why);
	/*
	 * Two kinds of run prove nothing either way, and are run again, twice at
	 * most: one the cgroup OOM-killed; and one in which no refault of
	 * the child's was of the working set (the cgroup's
	 * workingset_restore_*: reclaim's estimate by the refault distance
	 * against the active lists), as now and then no refault of a whole
	 * run is. A refault of the working set is read with a thrashing wait:
	 * one such, and the child must have counted thrashing.
	 */
	for (tries = 1; tries < 3; tries++) {
		if (err) {
			if (!oom_killed_since(_metadata, self, &kills, tries))
				break;
		} else if (!ev.memcg_restore) {
			TH_LOG("run %d: no refault was of the working set; running it again",
			       tries);
		} else {
			break;
		}
		err = run_counted(_metadata, self, touch_anon_in_memcg, &job, &ts, &ev);
	}
	if (err && memcg_oom_kills(self->cgroup) > kills)
		SKIP(return, "the child was OOM-killed: nothing to judge");
	ASSERT_EQ(0, err);
	if (!ev.memcg_restore)
		SKIP(return, "in %d runs no refault was of the working set: nothing to judge",
		     tries);
	CHECK_CLASS(thrashing);
	EXPECT_GE(thrashing_bound(ev.restore), (int64_t)ts.thrashing_count);
}

/*
 * A swap-in wait is one page's read (swap_read_folio()), the fault's or
 * read-ahead's: one more page in pswpin (or zswpin) each. But for pages
 * that were all zeros when swapped out, which come back with no read: the
 * child's touches leave none of its job's pages so, and only a few pages
 * of its own (stack, data) may be.
 */
#define ZERO_PAGES_SLACK	64

TEST_F_TIMEOUT(delay, touching_swapped_out_memory_waits_in_swapin, 180)
{
	struct mem_job job = { .size = 40 << 20, .passes = 2 };
	int err, tries, kills = 0;
	struct mm_events ev;
	struct taskstats ts;
	const char *why;

	why = anon_through_swap(_metadata, self, "16M", &job, &ts, &ev, &err);
	if (why)
		SKIP(return, "%s", why);
	/* An OOM-killed run is run again, twice at most. */
	for (tries = 1; err && tries < 3 &&
	     oom_killed_since(_metadata, self, &kills, tries); tries++)
		err = run_counted(_metadata, self, touch_anon_in_memcg, &job, &ts, &ev);
	if (err && memcg_oom_kills(self->cgroup) > kills)
		SKIP(return, "the child was OOM-killed: nothing to judge");
	ASSERT_EQ(0, err);
	CHECK_CLASS(swapin);
	EXPECT_GE(ev.pswpin + ev.zswpin + ZERO_PAGES_SLACK, (int64_t)ts.swapin_count);
	/* Anonymous pages beyond memory.max are reclaimed directly, too. */
	EXPECT_LT(0ULL, ts.freepages_count);
	/* At most four waits a reclaim: see reclaims(). */
	EXPECT_GE(4 * reclaims(&ev), (int64_t)ts.freepages_count);
}

/* GETs @pid's record, for its thrashing count in *@count. */
static int thrashing_of(struct _test_data_delay *self, pid_t pid, uint64_t *count)
{
	struct tsnl_reply r;
	struct taskstats ts;
	int err;

	err = tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_PID, pid, &ts, &r,
		       self->buf);
	if (!err)
		*count = ts.thrashing_count;
	return err;
}

/*
 * Runs thrash_twice() with @job in a child, accounting flipping on and off
 * through phase 1 and on through phase 2, and GETs its record after each
 * phase, while it waits for the next: alive, so both GETs must succeed.
 * Return: 0, or -EIO if the child died before its end (the cgroup
 * OOM-killed it, say).
 */
static int thrash_across_flips(struct __test_metadata *_metadata,
			       struct _test_data_delay *self, struct mem_job *job,
			       struct two_phases *run)
{
	int done[2], go[2], status, err;
	struct toggler t = { 0 };
	struct mm_events start, before;
	pid_t child;
	char c;

	*run = (struct two_phases){ 0 };
	mm_events_read(_metadata, self, &start);
	ASSERT_EQ(0, pipe(done));
	ASSERT_EQ(0, pipe(go));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0)
		thrash_twice(job, done[1], go[0]);
	close(done[1]);
	close(go[0]);
	ASSERT_EQ(0, pthread_create(&t.thread, NULL, toggle, &t));
	err = read(done[0], &c, 1) == 1 ? 0 : -EIO;
	__atomic_store_n(&t.stop, true, __ATOMIC_RELEASE);
	pthread_join(t.thread, NULL);
	ASSERT_EQ(0, ts_write_file(DELAYACCT, "1"));
	if (!err) {
		ASSERT_EQ(0, thrashing_of(self, child, &run->phase1));
		mm_events_read(_metadata, self, &before);
		run->ev1 = before;
		mm_events_since(&run->ev1, &start);
		err = write(go[1], "x", 1) == 1 && read(done[0], &c, 1) == 1 ? 0 : -EIO;
	}
	if (!err) {
		ASSERT_EQ(0, thrashing_of(self, child, &run->phase2));
		mm_events_read(_metadata, self, &run->ev);
		mm_events_since(&run->ev, &before);
		err = write(go[1], "x", 1) == 1 ? 0 : -EIO;
	}
	close(done[0]);
	close(go[1]);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	if (!err && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
		err = -EIO;
	return err;
}

/*
 * A thrashing wait that started while accounting was on and ended while
 * it was off must not leave the task flagged as "in a thrashing wait":
 * upstream's flag stayed set and the task never counted thrashing again.
 * Phase 1 thrashes while accounting flips on and off; phase 2, with it
 * on, must count, if any refault of the child's in it was of the working
 * set (the cgroup's workingset_restore_*), and no more than those
 * refaults allow (thrashing_bound()). A run the cgroup OOM-killed proves
 * nothing, and nor does one in which either phase refaulted no working
 * set: phase 1 without such a refault had no thrashing wait for a flip
 * to cut, and would pass upstream too. Such a run is run again, four
 * times at most, and if the last run is such too, the test skips. Under
 * TCG the cgroup OOM-kills this child in about two runs of five, often
 * in a row, charging a swap read-ahead page; the OOM report shows the
 * whole cgroup active anon in the swap cache, none inactive. Neither
 * memory.high, nor reads instead of writes, nor page-cluster 0 (which
 * also ends the working-set refaults) helped.
 */
TEST_F_TIMEOUT(delay, thrashing_counts_again_after_accounting_flipped_mid_wait, 480)
{
	struct mem_job job = { .size = 24 << 20 };
	struct two_phases run = { 0 };
	int err, tries, kills = 0;
	const char *why;

	if (ts_kernel_unfixed())
		SKIP(return, TS_UNFIXED "in_thrashing left set");
	why = swap_and_memcg(self, "20M", &err);
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, err);
	job.cgroup = self->cgroup;
	/* A child that died makes a write to it fail, not kill the test. */
	signal(SIGPIPE, SIG_IGN);
	for (tries = 1; ; tries++) {
		err = thrash_across_flips(_metadata, self, &job, &run);
		TH_LOG("run %d: phases 1, 2: thrashing %llu, %llu; working-set refaults %lld, %lld",
		       tries, (unsigned long long)run.phase1,
		       (unsigned long long)run.phase2,
		       (long long)run.ev1.memcg_restore,
		       (long long)run.ev.memcg_restore);
		if (tries == 5)
			break;
		if (err) {
			if (!oom_killed_since(_metadata, self, &kills, tries))
				break;
		} else if (phase_without_working_set(&run)) {
			TH_LOG("run %d: phase %d refaulted no working-set page; again",
			       tries, phase_without_working_set(&run));
		} else {
			break;
		}
	}
	if (err && memcg_oom_kills(self->cgroup) > kills)
		SKIP(return, "the cgroup OOM-killed the child in run %d: nothing to judge",
		     tries);
	ASSERT_EQ(0, err) {
		TH_LOG("the child died in run %d; the cgroup OOM-killed %d",
		       tries, memcg_oom_kills(self->cgroup));
	}
	if (phase_without_working_set(&run))
		SKIP(return, "in %d runs a phase refaulted no working-set page: nothing to judge",
		     tries);
	EXPECT_LT(run.phase1, run.phase2);
	EXPECT_GE(thrashing_bound(run.ev.restore), (int64_t)(run.phase2 - run.phase1));
}

/*
 * Each of 200 O_DIRECT reads that does not complete at once waits for
 * the disk once: the child's voluntary switches (it only spins and
 * reads) are the ground truth, and each must be a counted block I/O
 * wait. Upstream stamped the start of a late-dequeued wait on the task
 * that dequeued it, and lost the wait.
 */
TEST_F_TIMEOUT(delay, block_io_waits_of_a_task_dequeued_late_are_counted, 120)
{
	struct rusage before, after;
	struct taskstats ts;
	uint64_t nv;
	pid_t rival;
	int err;

	if (ts_kernel_unfixed())
		SKIP(return, TS_UNFIXED "late dequeues lose their waits");
	err = make_file(self, "ts-blkio-late", 2 << 20);
	if (err == TS_DISK_CANNOT)
		SKIP(return, "%s", self->scratch.why);
	ASSERT_EQ(0, err);
	rival = fork();
	ASSERT_LE(0, rival);
	if (rival == 0) {
		spin((void *)60000L);
		_exit(0);
	}
	self->t0 = now_ns(CLOCK_REALTIME);
	/* The child is reaped before the rival: the difference is its own. */
	ASSERT_EQ(0, getrusage(RUSAGE_CHILDREN, &before));
	ASSERT_EQ(0, run_child(self->fd, spin_then_read, self->file, &ts));
	ASSERT_EQ(0, getrusage(RUSAGE_CHILDREN, &after));
	kill(rival, SIGKILL);
	waitpid(rival, NULL, 0);
	nv = after.ru_nvcsw - before.ru_nvcsw;
	TH_LOG("200 reads: blkio count %llu, voluntary switches %llu (getrusage %llu)",
	       (unsigned long long)ts.blkio_count, (unsigned long long)ts.nvcsw,
	       (unsigned long long)nv);
	if (nv < 100)
		SKIP(return, "only %llu of 200 reads blocked: too few to tell",
		     (unsigned long long)nv);
	CHECK_CLASS(blkio);
	/*
	 * The first page faults may switch too, and the exit after its
	 * record was sent: getrusage() counts those, the record does not.
	 */
	EXPECT_LE(nv - 8, ts.blkio_count);
	EXPECT_LE(ts.blkio_count, ts.nvcsw);
	EXPECT_LE(ts.nvcsw, nv);
}

/*
 * A runqueue wait that ends because the task is moved to another CPU is
 * one wait, not two: 30 waits of 10 ms behind a FIFO spinner, each ended
 * by a move to an idle CPU, give a maximum of 10 ms, not the microseconds
 * of the last leg. Upstream kept the extremes only at arrival, and its
 * average exceeded its maximum.
 */
TEST_F_TIMEOUT(delay, a_wait_ended_by_a_migration_counts_whole_in_the_maximum, 60)
{
	struct sched_param sp = { .sched_priority = 50 };
	int ready[2], spinning[2], status;
	struct taskstats ts;
	pid_t hog, victim;
	cpu_set_t zero;
	char c;

	if (!ts_kernel_dumps())
		SKIP(return, TS_NO_DUMP "cpu extremes at arrival only");
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two CPUs");
	pin(0);		/* CPU 1 belongs to the spinner */
	ASSERT_EQ(0, pipe(spinning));
	hog = fork();
	ASSERT_LE(0, hog);
	if (hog == 0) {
		uint64_t end = now_ns(CLOCK_MONOTONIC) + 20000000000ULL;

		close(spinning[0]);
		pin(1);
		if (sched_setscheduler(0, SCHED_FIFO, &sp))
			_exit(5);
		if (write(spinning[1], "x", 1) != 1)
			_exit(6);
		while (now_ns(CLOCK_MONOTONIC) < end)
			;
		_exit(0);
	}
	/*
	 * A victim that starts before the spinner owns CPU 1 finds it idle,
	 * never waits, and the test measures nothing: wait for the spinner.
	 */
	close(spinning[1]);
	ASSERT_EQ(1, read(spinning[0], &c, 1)) {
		TH_LOG("the spinner could not become SCHED_FIFO on CPU 1");
	}
	close(spinning[0]);
	ASSERT_EQ(0, pipe(ready));
	CPU_ZERO(&zero);
	CPU_SET(0, &zero);
	victim = fork();
	ASSERT_LE(0, victim);
	if (victim == 0)
		wait_behind_spinner(ready[1]);
	close(ready[1]);
	while (read(ready[0], &c, 1) == 1) {
		usleep(10000);
		sched_setaffinity(victim, sizeof(zero), &zero);
	}
	ASSERT_EQ(victim, waitpid(victim, &status, 0));
	kill(hog, SIGKILL);
	waitpid(hog, NULL, 0);
	ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		TH_LOG("the victim failed at step %d", WEXITSTATUS(status));
	}
	ASSERT_EQ(0, ts_exit_record(self->fd, victim, &ts));
	TH_LOG("cpu: count %llu total %llu max %llu", (unsigned long long)ts.cpu_count,
	       (unsigned long long)ts.cpu_delay_total, (unsigned long long)ts.cpu_delay_max);
	EXPECT_LE(30ULL, ts.cpu_count);
	EXPECT_LE(8000000ULL, ts.cpu_delay_max);
	EXPECT_LE(ts.cpu_delay_total / ts.cpu_count, ts.cpu_delay_max);
	/* Both parts of a moved wait are in the total too; none outlives the task. */
	EXPECT_LE(ts.cpu_delay_max, ts.cpu_delay_total);
	EXPECT_GE(ts.ac_etime * 1000ULL + 1000, ts.cpu_delay_max);
}

TEST_HARNESS_MAIN
