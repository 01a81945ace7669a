// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup v2: CGROUPSTATS_CMD_GET on a v2 directory, the counts of a
 * cgroup's tasks by state. The dump of one cgroup is cgroup_dump_test.c's,
 * the errors of both cgroup_error_test.c's.
 *
 * Every test makes a fresh cgroup under the cgroup2 root, puts tasks of its
 * own there (each joins by writing its pid to cgroup.procs, then makes its
 * threads), waits in /proc/PID/stat for the state each must be in, and
 * compares every field of struct cgroupstats with what it did. The world
 * it does so in, and how it is cleaned up, are cgroup_world.h's.
 *
 * A thread counts by the state letter /proc/PID/stat shows for it: R as
 * running, S as sleeping, T and t as stopped, D as waiting for I/O if it
 * sleeps in io_schedule() and as uninterruptible otherwise, any other
 * letter nowhere. Linux 6.1 to 6.12 compare __state with the four base
 * states exactly instead, and count a freezable sleep (nanosleep, a futex
 * wait), a killable wait (a vfork parent) and a ptrace stop nowhere.
 * counts_test.c checks the rule for every kind of task, on v1 and v2.
 *
 * Linux 6.12's own implementation answers CGROUPSTATS_CMD_GET on a v2
 * directory with EINVAL (cgroupstats_build() knows only v1): on a kernel
 * whose family has no dump, the tests of a v2 cgroup's counts skip,
 * saying so. One test expects either answer, depending on the kernel it
 * runs on, and says which:
 *
 *	cgroupstats_of_a_v2_cgroup_counts_its_tasks_or_is_einval
 *
 * The v1 counts of tasks both rules count alike are checked on every
 * kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "agent.h"
#include "cgroup_fixture.h"
#include "cgroup_world.h"
#include "counts.h"
#include "disks.h"
#include "janitor.h"
#include "tsnl.h"

#define SKIP_COUNTS	TS_NO_DUMP "EINVAL for cgroup v2 (cgroupstats_of_a_v2_" \
			"cgroup_counts_its_tasks_or_is_einval checks it)"

CGROUP_WORLD_FIXTURE;

/* -------------------------------------------------------------- counts */

/* Asks for the counts of the cgroup open at @fd and compares every field. */
static void expect_cgroup(struct __test_metadata *_metadata, struct world *w,
			  int fd, const struct cgroupstats *want)
{
	struct cgroupstats cs;

	ASSERT_EQ(1, counts(w, fd, &cs));
	ts_expect_counts(_metadata, want, &cs);
}

/* A sleeper stopped by SIGSTOP. */
static int stopped(struct world *w, const char *cgroup, struct kid **out)
{
	int err = sleeper(w, cgroup, 0, out);

	if (err)
		return err;
	if (kill((*out)->pid, SIGSTOP))
		return -errno;
	return ts_wait_state((*out)->pid, 'T', WAIT_MS);
}

/*
 * A WRITER in @cgroup blocked in sb_start_write() of the scratch file
 * system, which this freezes: in 6.12 percpu_rwsem_wait() sleeps in
 * TASK_UNINTERRUPTIBLE, exactly, until the thaw: D, not in I/O wait. (Later
 * kernels add TASK_FREEZABLE there: still D, but nowhere by exact
 * __state.) The file system is the test's own, so that freezing it stops
 * nobody else.
 *
 * Return: 0, with the reason in *@why if no such task could be made (and
 * none was), or -errno for a failure.
 */
static int uninterruptible(struct world *w, const char *cgroup, struct kid **out,
			   const char **why)
{
	int fd, err;

	err = ts_mess_frozen_file(w->mess, &fd, why);
	if (err || *why)
		return err;
	err = spawn(w, &(struct spec){ .cgroup = cgroup, .kind = WRITER, .fd = fd }, out);
	close(fd);
	if (err)
		return err;
	if (write((*out)->go, "w", 1) != 1)
		return -EPIPE;
	return ts_wait_state((*out)->pid, 'D', WAIT_MS);
}

/*
 * The test whose expectation depends on the kernel: upstream's
 * cgroupstats_build() rejects every file system but cgroup v1 with
 * EINVAL; this series counts the tasks of a v2 cgroup.
 */
TEST_F(cgroup, cgroupstats_of_a_v2_cgroup_counts_its_tasks_or_is_einval)
{
	struct cgroupstats cs, want = { .nr_sleeping = 1 };
	struct kid *k;
	int n;

	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 0, &k));
	n = counts(&self->w, self->w.dirfd, &cs);
	if (!self->w.series) {
		TH_LOG("the reference kernel: cgroupstats on cgroup v2 must be EINVAL");
		EXPECT_EQ(-EINVAL, n);
		return;
	}
	TH_LOG("this series: cgroupstats on cgroup v2 must count the sleeper");
	ASSERT_EQ(1, n);
	ts_expect_counts(_metadata, &want, &cs);
}

TEST_F(cgroup, an_empty_cgroup_counts_no_task)
{
	struct cgroupstats want = { 0 };

	if (!self->w.series)
		SKIP(return, SKIP_COUNTS);
	expect_cgroup(_metadata, &self->w, self->w.dirfd, &want);
}

TEST_F(cgroup, a_task_blocked_reading_a_pipe_counts_as_sleeping)
{
	struct cgroupstats want = { .nr_sleeping = 1 };
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_COUNTS);
	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 0, &k));
	expect_cgroup(_metadata, &self->w, self->w.dirfd, &want);
}

TEST_F(cgroup, a_busy_task_counts_as_running)
{
	struct cgroupstats want = { .nr_running = 1 };
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_COUNTS);
	ASSERT_EQ(0, spawn(&self->w, &(struct spec){ .cgroup = self->w.dir, .kind = BUSY }, &k));
	expect_cgroup(_metadata, &self->w, self->w.dirfd, &want);
}

TEST_F(cgroup, a_task_stopped_by_sigstop_counts_as_stopped)
{
	struct cgroupstats want = { .nr_stopped = 1 };
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_COUNTS);
	ASSERT_EQ(0, stopped(&self->w, self->w.dir, &k));
	expect_cgroup(_metadata, &self->w, self->w.dirfd, &want);
}

TEST_F(cgroup, a_writer_blocked_by_a_frozen_file_system_counts_as_uninterruptible)
{
	struct cgroupstats cs, want = { .nr_uninterruptible = 1 };
	const char *why;
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_COUNTS);
	ASSERT_EQ(0, uninterruptible(&self->w, self->w.dir, &k, &why));
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(1, counts(&self->w, self->w.dirfd, &cs));
	ts_mess_thaw(self->w.mess);
	ts_expect_counts(_metadata, &want, &cs);
}

/* What nobody_counts() opens, and the counts it must get there. */
static const char *nobody_dir;
static struct cgroupstats nobody_want;

/* Exit code: 0 if the counts of nobody_dir are nobody_want exactly. */
static int nobody_counts(int fd, uint16_t family, pid_t other)
{
	struct cgroupstats cs;
	int dfd = open(nobody_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd < 0)
		return 2;
	memset(&cs, 0xff, sizeof(cs));
	if (tsnl_cgroupstats(fd, family, dfd, &cs) != 1)
		return 3;
	return memcmp(&cs, &nobody_want, sizeof(cs)) ? 4 : 0;
}

/*
 * Counts need no capability: anyone who can open a cgroup's directory
 * gets the same counts as root, other users' tasks included, as its
 * cgroup.threads already shows them.
 */
TEST_F(cgroup, a_user_who_can_open_a_cgroup_counts_roots_tasks_there_as_root_does)
{
	struct cgroupstats want = { .nr_sleeping = 1, .nr_stopped = 1 };
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_COUNTS);
	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 0, &k));
	ASSERT_EQ(0, stopped(&self->w, self->w.dir, &k));
	expect_cgroup(_metadata, &self->w, self->w.dirfd, &want);
	nobody_dir = self->w.dir;
	nobody_want = want;
	EXPECT_EQ(0, ts_as_nobody(nobody_counts, self->w.family, 0));
}

/*
 * A vfork(2) parent waits TASK_KILLABLE | TASK_FREEZABLE: D in
 * /proc/PID/stat and not in I/O wait, so it counts as uninterruptible
 * (6.12, comparing __state exactly, counts it nowhere). Its child sleeps
 * on the pipe.
 */
TEST_F(cgroup, a_killable_wait_counts_as_uninterruptible)
{
	struct cgroupstats want = { .nr_sleeping = 1, .nr_uninterruptible = 1 };
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_COUNTS);
	ASSERT_EQ(0, spawn(&self->w, &(struct spec){ .cgroup = self->w.dir, .kind = VFORKER }, &k));
	ASSERT_EQ('D', ts_proc_state(k->pid));
	expect_cgroup(_metadata, &self->w, self->w.dirfd, &want);
}

/*
 * A read that waits for its page from a disk that serves every request a
 * second late (dm-delay) waits TASK_KILLABLE in io_schedule(): D in
 * /proc/PID/stat, in I/O wait, and by v1's rules counted there only.
 * The reader spends some microseconds a second out of that wait: the
 * counts are asked again, up to 5 times, while it was caught between two.
 */
TEST_F(cgroup, a_task_waiting_for_a_page_from_disk_counts_as_io_wait_only)
{
	struct cgroupstats cs, want = { .nr_io_wait = 1 };
	struct ts_disk *slow = &self->w.mess->slow;
	struct spec reader = { .kind = READER };
	struct kid *k;
	int err;

	if (!self->w.series)
		SKIP(return, SKIP_COUNTS);
	err = ts_disk_slow(slow, 1 << 20, 1000);
	if (err == TS_DISK_CANNOT)
		SKIP(return, "%s", slow->why);
	ASSERT_EQ(0, err);
	reader.cgroup = self->w.dir;
	reader.fd = open(slow->dev, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, reader.fd);
	ASSERT_EQ(0, spawn(&self->w, &reader, &k));
	close(reader.fd);
	for (int i = 0; i < 5; i++) {
		ASSERT_EQ(0, ts_wait_state(k->pid, 'D', WAIT_MS));
		ASSERT_EQ(1, counts(&self->w, self->w.dirfd, &cs));
		if (cs.nr_io_wait == 1)
			break;
	}
	ts_expect_counts(_metadata, &want, &cs);
}

TEST_F(cgroup, every_thread_of_a_process_counts_on_its_own)
{
	struct cgroupstats want = { .nr_sleeping = 4 };
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_COUNTS);
	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 3, &k));
	expect_cgroup(_metadata, &self->w, self->w.dirfd, &want);
}

/*
 * The vfork parent and the writer blocked by the frozen file system are
 * both D and not in I/O wait: both uninterruptible, the parent's killable
 * wait too.
 */
TEST_F(cgroup, one_task_of_each_state_counts_once_in_its_own_field)
{
	struct cgroupstats cs, want = {
		.nr_sleeping = 2,	/* the sleeper, the vfork child */
		.nr_running = 1,
		.nr_stopped = 1,
		.nr_uninterruptible = 2,	/* the vfork parent, the writer */
	};
	const char *why;
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_COUNTS);
	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 0, &k));
	ASSERT_EQ(0, spawn(&self->w, &(struct spec){ .cgroup = self->w.dir, .kind = BUSY }, &k));
	ASSERT_EQ(0, stopped(&self->w, self->w.dir, &k));
	ASSERT_EQ(0, spawn(&self->w, &(struct spec){ .cgroup = self->w.dir, .kind = VFORKER }, &k));
	ASSERT_EQ(0, uninterruptible(&self->w, self->w.dir, &k, &why));
	if (why) {
		TH_LOG("without a writer blocked by a frozen file system: %s", why);
		want.nr_uninterruptible = 1;
	}
	ASSERT_EQ(1, counts(&self->w, self->w.dirfd, &cs));
	ts_mess_thaw(self->w.mess);
	ts_expect_counts(_metadata, &want, &cs);
}

TEST_F(cgroup, counts_leave_out_the_tasks_of_child_cgroups)
{
	struct cgroupstats cs, want = { .nr_sleeping = 1 };
	struct cgroupstats cs_child, want_child = { .nr_sleeping = 2, .nr_running = 1 };
	char child[PATH_BUF + 8];
	struct kid *k;
	int fd;

	if (!self->w.series)
		SKIP(return, SKIP_COUNTS);
	snprintf(child, sizeof(child), "%s/child", self->w.dir);
	ASSERT_EQ(0, ts_mess_cgroup(self->w.mess, child));
	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 0, &k));
	ASSERT_EQ(0, sleeper(&self->w, child, 1, &k));
	ASSERT_EQ(0, spawn(&self->w, &(struct spec){ .cgroup = child, .kind = BUSY }, &k));
	fd = open(child, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, counts(&self->w, self->w.dirfd, &cs));
	ASSERT_EQ(1, counts(&self->w, fd, &cs_child));
	close(fd);
	ts_expect_counts(_metadata, &want, &cs);
	ts_expect_counts(_metadata, &want_child, &cs_child);
}

/*
 * The case 6.12 already counted, on every kernel: a named v1 hierarchy,
 * two threads reading a pipe (TASK_INTERRUPTIBLE exactly) and a busy one,
 * counted alike by the /proc letter and by exact __state.
 */
TEST_F(cgroup, cgroupstats_of_a_v1_cgroup_counts_as_it_always_did)
{
	struct cgroupstats cs, want = { .nr_sleeping = 2, .nr_running = 1 };
	char sub[PATH_BUF + 8];
	struct kid *k;
	int fd;

	if (!v1_cgroup(_metadata, &self->w, sub, sizeof(sub)))
		return;
	ASSERT_EQ(0, sleeper(&self->w, sub, 1, &k));
	ASSERT_EQ(0, spawn(&self->w, &(struct spec){ .cgroup = sub, .kind = BUSY }, &k));
	fd = open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, counts(&self->w, fd, &cs));
	close(fd);
	ts_expect_counts(_metadata, &want, &cs);
}

TEST_HARNESS_MAIN
