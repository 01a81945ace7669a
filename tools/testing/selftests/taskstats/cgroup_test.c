// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup v2: CGROUPSTATS_CMD_GET on a v2 directory, and the dump of one
 * cgroup (TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, with DUMP_TGID and
 * DUMP_SUBTREE).
 *
 * Every test makes a fresh cgroup under the cgroup2 root, puts tasks of its
 * own there (each joins by writing its pid to cgroup.procs, then makes its
 * threads), waits in /proc/PID/stat for the state each must be in, and
 * compares what the kernel says with what it did: every field of struct
 * cgroupstats, the exact set of ids of a dump.
 *
 * Cleaning up: the teardown kills the tasks and removes the cgroups. A
 * test that dies before it (a timeout, a failed setup) leaves that to its
 * janitor (janitor.h), a process in a session of its own that waits for
 * the test's death on a pidfd, then thaws what the test froze, empties
 * (cgroup.kill) and removes what the test created, as recorded in memory
 * they share.
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
 * directory with EINVAL (cgroupstats_build() knows only v1), answers one
 * whose fd is not open with nothing, and cannot dump: on a kernel whose
 * family has no dump, tests of what only a kernel with the dump does
 * skip, saying so. One test expects either answer, depending on the
 * kernel it runs on, and says which:
 *
 *	cgroupstats_of_a_v2_cgroup_counts_its_tasks_or_is_einval
 *
 * The v1 counts of tasks both rules count alike, and the errors both
 * implementations share, are checked on every kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <linux/magic.h>

#include "../kselftest_harness.h"
#include "counts.h"
#include "agent.h"
#include "disks.h"
#include "janitor.h"
#include "tsnl.h"

#define PATH_BUF	256

/* The root of the cgroup2 hierarchy, wherever it is mounted. */
static char cgroup_root[PATH_BUF - 48];

#define MAX_KIDS	192
#define MAX_TIDS	TS_KID_TIDS	/* a kid's leader and its threads */
#define MAX_IDS		192
#define MAX_RECS	256
#define MANY		150	/* tasks: more records than one part of a dump holds */
#define NEWCOMERS	8
#define WAIT_MS		10000	/* for a state, an answer, a cgroup to empty */

#define SKIP_COUNTS	TS_NO_DUMP "EINVAL for cgroup v2 (cgroupstats_of_a_v2_" \
			"cgroup_counts_its_tasks_or_is_einval checks it)"
#define SKIP_DUMP	"this kernel cannot dump (no GENL_CMD_CAP_DUMP), let alone one cgroup"

/* The memory a test shares with its janitor and its churner or mover. */
struct shared {
	struct ts_mess mess;	/* what it made that must be undone */
	unsigned long forks;	/* the churner's, so far */
	unsigned long moves;	/* the mover's, so far */
};

enum kind {
	SLEEPER,	/* every thread blocks reading a pipe: TASK_INTERRUPTIBLE */
	BUSY,		/* the leader spins: TASK_RUNNING */
	WRITER,		/* told to, write(2)s to a file: D if its fs is frozen */
	VFORKER,	/* vfork(2)s a child that sleeps: TASK_KILLABLE */
	READER,		/* reads a slow disk's uncached page: killable I/O wait */
};

/* A task to make: see spawn(). */
struct spec {
	const char *cgroup;	/* the directory it joins */
	enum kind kind;
	int threads;		/* besides the leader, each asleep on the pipe */
	uid_t uid;		/* if not 0: becomes that user after joining */
	const char *name;	/* its command name */
	int fd;			/* WRITER: the file it writes to; READER: the disk */
};

/* A task made: its threads' ids, leader first. */
struct kid {
	pid_t pid;
	int n;
	pid_t tid[MAX_TIDS];
	pid_t vchild;		/* VFORKER: the child it waits for */
	int go;			/* WRITER: a byte here makes it write */
};

/* What the kid says once it is in its cgroup with all its threads. */
/* Everything a test of this file works with. */
struct world {
	int nl;
	uint16_t family;
	bool series;		/* this series' kernel, not the reference */
	struct shared *shared;
	struct ts_mess *mess;	/* &shared->mess; the disks are there too */
	char dir[PATH_BUF];	/* the test's cgroup */
	int dirfd;
	int hold[2];		/* the pipe every sleeping thread reads */
	struct kid kids[MAX_KIDS];
	int nkids;
	pid_t churner;		/* or the mover */
};

/* ---------------------------------------------------------------- kids */

/* The kid's side; only its own copies of these are ever set. */
static int kid_hold = -1, kid_ready = -1;
static pid_t kid_tids[MAX_TIDS];

static void sleep_on_hold(void)
{
	char c;

	/* EOF when the test closes the pipe, or dies. */
	while (read(kid_hold, &c, 1) > 0)
		;
	_exit(0);
}

static void *sleeper_thread(void *arg)
{
	__atomic_store_n(&kid_tids[(long)arg], gettid(), __ATOMIC_RELEASE);
	sleep_on_hold();
	return NULL;
}

/* The vfork child: shares the vforker's memory, not its stack. */
static int vfork_child(void *arg)
{
	struct ts_ready r = { .n = 1, .tid = { getpid() } };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (write(kid_ready, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	sleep_on_hold();
	return 0;
}

static void kid_fail(struct ts_ready *r, int err)
{
	r->n = err;
	if (write(kid_ready, r, sizeof(*r)) != sizeof(*r))
		_exit(2);
	_exit(1);
}

static void kid_main(const struct spec *s, pid_t parent, int go)
{
	struct ts_ready r = { 0 };
	char path[PATH_BUF + 16], pid[16];
	pthread_t t;
	int err;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	snprintf(path, sizeof(path), "%s/cgroup.procs", s->cgroup);
	snprintf(pid, sizeof(pid), "%d", getpid());
	err = ts_write_file(path, pid);
	if (err)
		kid_fail(&r, err);
	prctl(PR_SET_NAME, s->name ? s->name : "ts_cg_kid");
	if (s->uid) {
		become(s->uid);		/* which clears the death signal */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
	}
	kid_tids[0] = getpid();
	for (long i = 1; i <= s->threads; i++)
		if (pthread_create(&t, NULL, sleeper_thread, (void *)i))
			kid_fail(&r, -EAGAIN);
	for (int i = 1; i <= s->threads; i++)
		for (int ms = 0; !__atomic_load_n(&kid_tids[i], __ATOMIC_ACQUIRE); ms++) {
			if (ms == WAIT_MS)
				kid_fail(&r, -ETIMEDOUT);
			usleep(1000);
		}
	r.n = 1 + s->threads;
	memcpy(r.tid, kid_tids, sizeof(r.tid));
	if (write(kid_ready, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	switch (s->kind) {
	case SLEEPER:
		break;
	case BUSY:
		setpriority(PRIO_PROCESS, 0, 19);	/* spin, but politely */
		for (;;)
			;
	case WRITER: {
		char c;

		if (read(go, &c, 1) == 1 && pwrite(s->fd, "x", 1, 0) != 1)
			_exit(1);
		break;
	}
	case READER: {
		char buf[4096];

		/* Each read waits for the disk: its pages are dropped first. */
		for (;;) {
			posix_fadvise(s->fd, 0, 0, POSIX_FADV_DONTNEED);
			if (pread(s->fd, buf, sizeof(buf), 0) != sizeof(buf))
				_exit(1);
		}
	}
	case VFORKER: {
		static long stack[8192];
		pid_t child = clone(vfork_child, (char *)stack + sizeof(stack),
				    CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);

		if (child > 0)
			waitpid(child, NULL, 0);
		break;
	}
	}
	sleep_on_hold();
}

/*
 * Makes a task as @s says, in its cgroup with its threads, and waits
 * until it is in the state its kind leads to: R for the leader of a BUSY
 * kid, D for a VFORKER's or a READER's leader, S for all other threads
 * (a WRITER's leader too: it waits to be told to write).
 *
 * Return: 0 with the kid in *@out, or -errno.
 */
static int spawn(struct world *w, const struct spec *s, struct kid **out)
{
	int ready[2], go[2] = { -1, -1 }, err;
	struct kid *k;
	struct ts_ready r;
	pid_t parent = getpid();

	*out = NULL;
	if (w->nkids == MAX_KIDS || s->threads >= MAX_TIDS)
		return -ENOSPC;
	if (pipe2(ready, O_CLOEXEC))
		return -errno;
	if (s->kind == WRITER && pipe2(go, O_CLOEXEC))
		return -errno;
	k = &w->kids[w->nkids];
	memset(k, 0, sizeof(*k));
	k->go = -1;
	k->pid = fork();
	if (k->pid < 0)
		return -errno;
	if (k->pid == 0) {
		close(ready[0]);
		close(w->hold[1]);
		if (go[1] >= 0)
			close(go[1]);
		kid_hold = w->hold[0];
		kid_ready = ready[1];
		kid_main(s, parent, go[0]);
	}
	w->nkids++;
	close(ready[1]);
	if (go[0] >= 0)
		close(go[0]);
	k->go = go[1];
	err = ts_read_ready(ready[0], &r, WAIT_MS);
	if (!err) {
		k->n = r.n;
		memcpy(k->tid, r.tid, sizeof(k->tid));
	}
	if (!err && s->kind == VFORKER) {
		err = ts_read_ready(ready[0], &r, WAIT_MS);
		k->vchild = r.tid[0];
	}
	close(ready[0]);
	for (int i = 0; !err && i < k->n; i++)
		err = ts_wait_state(k->tid[i], i ? 'S' : s->kind == BUSY ? 'R' :
				    s->kind == VFORKER || s->kind == READER ? 'D' : 'S', WAIT_MS);
	if (!err && k->vchild)
		err = ts_wait_state(k->vchild, 'S', WAIT_MS);
	*out = k;
	return err;
}

/* A sleeper in @cgroup with @threads threads. */
static int sleeper(struct world *w, const char *cgroup, int threads,
		   struct kid **out)
{
	return spawn(w, &(struct spec){ .cgroup = cgroup, .threads = threads }, out);
}

/*
 * Forks the test's background process (the churner or the mover), which
 * the teardown kills: 0 in it, its pid in the test, or -errno.
 */
static pid_t background_fork(struct world *w)
{
	w->churner = fork();
	if (w->churner < 0)
		return -errno;
	if (w->churner == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(w->hold[1]);
	}
	return w->churner;
}

/* Forks and reaps children outside every cgroup of the test, until killed. */
static int churn_start(struct world *w)
{
	pid_t pid = background_fork(w);

	if (pid == 0)
		fork_exit_forever(&w->shared->forks);
	return pid < 0 ? pid : 0;
}

/* Waits at most WAIT_MS for the churner's or the mover's count @c to start. */
static int wait_started(const unsigned long *c)
{
	for (int ms = 0; !__atomic_load_n(c, __ATOMIC_RELAXED); ms++) {
		if (ms == WAIT_MS)
			return -ETIMEDOUT;
		usleep(1000);
	}
	return 0;
}

/*
 * Whether a test that dumps in a loop since @t0 dumps again: 20 times at
 * least, then while under @most dumps and @secs seconds.
 */
static bool dump_more(int dumps, int most, int secs, const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return dumps < 20 || (dumps < most && t.tv_sec - t0->tv_sec < secs);
}

/*
 * Moves the @n processes of @pids from cgroup @a to @b and back, one at a
 * time, until killed.
 */
static int mover_start(struct world *w, const pid_t *pids, int n,
		       const char *a, const char *b)
{
	char path[2][PATH_BUF + 24], pid[16];	/* a and b: up to PATH_BUF + 8 */
	pid_t mover;

	snprintf(path[0], sizeof(path[0]), "%s/cgroup.procs", a);
	snprintf(path[1], sizeof(path[1]), "%s/cgroup.procs", b);
	mover = background_fork(w);
	if (mover)
		return mover < 0 ? mover : 0;
	for (unsigned long round = 0;; round++) {
		for (int i = 0; i < n; i++) {
			snprintf(pid, sizeof(pid), "%d", pids[i]);
			if (ts_write_file(path[round % 2], pid))
				_exit(1);
			__atomic_add_fetch(&w->shared->moves, 1, __ATOMIC_RELAXED);
		}
	}
}

/* ------------------------------------------------------------- fixture */

static bool world_setup(struct __test_metadata *_metadata, struct world *w)
{
	struct timeval tv = { .tv_sec = WAIT_MS / 1000 };
	int err;

	w->nl = -1;
	w->dirfd = -1;
	w->hold[0] = -1;
	w->hold[1] = -1;
	if (geteuid())
		SKIP(return false, "needs root: it makes cgroups and moves tasks into them");
	err = ts_cgroup2_root(cgroup_root, sizeof(cgroup_root));
	if (err)
		SKIP(return false, "no cgroup2 hierarchy to mount: %s", strerror(-err));
	w->shared = mmap(NULL, sizeof(*w->shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, w->shared);
	w->mess = &w->shared->mess;
	ASSERT_EQ(0, ts_janitor_start(w->mess));
	w->nl = tsnl_open();
	ASSERT_LE(0, w->nl);
	/* An answer that never comes fails the test rather than hang it. */
	ASSERT_EQ(0, setsockopt(w->nl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	if (tsnl_family(w->nl, TASKSTATS_GENL_NAME, &w->family))
		SKIP(return false, "no TASKSTATS family");
	w->series = ts_kernel_dumps();
	ASSERT_EQ(0, pipe2(w->hold, O_CLOEXEC));
	snprintf(w->dir, sizeof(w->dir), "%s/ts_cgroup_test.%d", cgroup_root, getpid());
	ASSERT_EQ(0, ts_mess_cgroup(w->mess, w->dir));
	w->dirfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, w->dirfd);
	return true;
}

static void world_teardown(struct world *w)
{
	if (!w->mess)
		return;
	ts_mess_thaw(w->mess);	/* first: a task in D takes no signal */
	if (w->churner > 0) {
		kill(w->churner, SIGKILL);
		waitpid(w->churner, NULL, 0);
	}
	for (int i = 0; i < w->nkids; i++) {
		if (w->kids[i].vchild > 0)
			kill(w->kids[i].vchild, SIGKILL);
		kill(w->kids[i].pid, SIGKILL);
	}
	for (int i = 0; i < w->nkids; i++)
		waitpid(w->kids[i].pid, NULL, 0);
	for (int i = 0; i < w->nkids; i++)
		if (w->kids[i].go >= 0)
			close(w->kids[i].go);
	if (w->dirfd >= 0)
		close(w->dirfd);
	ts_mess_cleanup(w->mess);
	close(w->hold[0]);
	close(w->hold[1]);
	close(w->nl);
}

FIXTURE(cgroup) {
	struct world w;
};

FIXTURE_SETUP(cgroup)
{
	world_setup(_metadata, &self->w);
}

FIXTURE_TEARDOWN(cgroup)
{
	world_teardown(&self->w);
}

/* -------------------------------------------------------------- counts */

/* The counts of the cgroup whose directory @fd is open on; 1 if answered. */
static int counts(struct world *w, int fd, struct cgroupstats *cs)
{
	memset(cs, 0xff, sizeof(*cs));
	return tsnl_cgroupstats(w->nl, w->family, fd, cs);
}

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
	char opts[64], sub[PATH_BUF + 8];
	struct ts_mess *m = self->w.mess;
	struct kid *k;
	int fd;

	snprintf(m->v1, sizeof(m->v1), "/tmp/ts_cgroup_v1.%d", getpid());
	ASSERT_EQ(0, mkdir(m->v1, 0755));
	snprintf(opts, sizeof(opts), "none,name=ts_cgroup_test.%d", getpid());
	if (mount("cgroup", m->v1, "cgroup", 0, opts)) {
		int err = errno;

		rmdir(m->v1);
		m->v1[0] = '\0';
		SKIP(return, "cannot mount a named cgroup v1 hierarchy: %s", strerror(err));
	}
	snprintf(sub, sizeof(sub), "%s/ts", m->v1);
	ASSERT_EQ(0, ts_mess_cgroup(self->w.mess, sub));
	ASSERT_EQ(0, sleeper(&self->w, sub, 1, &k));
	ASSERT_EQ(0, spawn(&self->w, &(struct spec){ .cgroup = sub, .kind = BUSY }, &k));
	fd = open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, counts(&self->w, fd, &cs));
	close(fd);
	ts_expect_counts(_metadata, &want, &cs);
}

/* --------------------------------------------------------------- dumps */

struct rec {
	uint32_t id;
	int aggr;
	struct taskstats ts;
};

struct recs {
	int n;
	int dropped;		/* beyond MAX_RECS */
	struct rec rec[MAX_RECS];
};

static void keep(uint32_t id, int aggr, const struct taskstats *ts, void *arg)
{
	struct recs *g = arg;

	if (g->n == MAX_RECS) {
		g->dropped++;
		return;
	}
	g->rec[g->n].id = id;
	g->rec[g->n].aggr = aggr;
	g->rec[g->n].ts = *ts;
	g->n++;
}

/* A dump of the cgroup @fd into @g: its number of records or -errno. */
static int dump(struct world *w, int fd, int flags, struct recs *g)
{
	g->n = 0;
	g->dropped = 0;
	return tsnl_dump_cgroup(w->nl, w->family, fd, flags, keep, g);
}

/* A set of ids, as the test expects them. */
struct ids {
	int n;
	uint32_t id[MAX_IDS];
};

static void add_id(struct ids *s, pid_t id)
{
	if (s->n < MAX_IDS)
		s->id[s->n++] = id;
}

static void add_tids(struct ids *s, const struct kid *k)
{
	for (int i = 0; i < k->n; i++)
		add_id(s, k->tid[i]);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void log_ids(const char *what, const uint32_t *id, int n)
{
	char line[1024];
	int len = 0;

	for (int i = 0; i < n && len < (int)sizeof(line) - 16; i++)
		len += snprintf(line + len, sizeof(line) - len, " %u", id[i]);
	line[len] = '\0';
	fprintf(stderr, "# %s:%s\n", what, n ? line : " none");
}

/*
 * Whether @g holds exactly @want's ids, each once, all of aggregate type
 * @aggr; if not and @log, says what differs.
 */
static bool same_ids(const struct recs *g, const struct ids *want, int aggr, bool log)
{
	uint32_t got[MAX_RECS], exp[MAX_IDS];
	bool same = !g->dropped && g->n == want->n;

	for (int i = 0; i < g->n; i++) {
		got[i] = g->rec[i].id;
		same &= g->rec[i].aggr == aggr;
	}
	memcpy(exp, want->id, want->n * sizeof(exp[0]));
	qsort(got, g->n, sizeof(got[0]), cmp_u32);
	qsort(exp, want->n, sizeof(exp[0]), cmp_u32);
	same = same && !memcmp(got, exp, g->n * sizeof(got[0]));
	if (!same && log) {
		log_ids("expected", exp, want->n);
		log_ids("dumped", got, g->n);
		for (int i = 0; i < g->n; i++)
			if (g->rec[i].aggr != aggr)
				fprintf(stderr, "# %u came as aggregate %d, not %d\n",
					g->rec[i].id, g->rec[i].aggr, aggr);
	}
	return same;
}

static struct recs got;

TEST_F(cgroup, an_empty_cgroup_dumps_no_record)
{
	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	EXPECT_EQ(0, dump(&self->w, self->w.dirfd, 0, &got));
	EXPECT_EQ(0, dump(&self->w, self->w.dirfd, TSNL_DUMP_TGID, &got));
	EXPECT_EQ(0, dump(&self->w, self->w.dirfd, TSNL_DUMP_SUBTREE, &got));
}

TEST_F_TIMEOUT(cgroup, cgroup_dump_lists_exactly_its_tasks_while_others_fork_and_exit_outside, 60)
{
	static const int threads[] = { 0, 2, 3 };
	struct spec busy = { .cgroup = self->w.dir, .kind = BUSY, .threads = 1 };
	struct ids want = { 0 };
	int dumps = 0, wrong = 0, failed = 0, n;
	unsigned long forks;
	struct timespec t0;
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, sleeper(&self->w, self->w.dir, threads[i], &k));
		add_tids(&want, k);
	}
	ASSERT_EQ(0, spawn(&self->w, &busy, &k));
	add_tids(&want, k);
	ASSERT_EQ(0, churn_start(&self->w));
	ASSERT_EQ(0, wait_started(&self->w.shared->forks)) TH_LOG("the churner never forked");
	forks = self->w.shared->forks;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = dump(&self->w, self->w.dirfd, 0, &got);
		if (n < 0) {
			if (!failed++)
				TH_LOG("a dump failed: %s", strerror(-n));
		} else if (n != got.n || !same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, !wrong)) {
			wrong++;
		}
	} while (dump_more(++dumps, 500, 3, &t0));
	forks = self->w.shared->forks - forks;
	TH_LOG("%d dumps while %lu tasks forked and exited outside the cgroup", dumps, forks);
	EXPECT_EQ(0, failed);
	EXPECT_EQ(0, wrong) TH_LOG("%d of %d dumps were not the cgroup's tasks", wrong, dumps);
	EXPECT_LT(0UL, forks);
}

TEST_F(cgroup, cgroup_dump_by_tgid_lists_each_process_once_by_its_tgid)
{
	struct spec busy = { .cgroup = self->w.dir, .kind = BUSY, .threads = 2 };
	struct ids want = { 0 };
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 3, &k));
	add_id(&want, k->pid);
	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 0, &k));
	add_id(&want, k->pid);
	ASSERT_EQ(0, spawn(&self->w, &busy, &k));
	add_id(&want, k->pid);
	ASSERT_EQ(3, dump(&self->w, self->w.dirfd, TSNL_DUMP_TGID, &got));
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_TGID, true));
}

/* The cgroups of the subtree tests: the test's, then in pre-order. */
enum { TOP, B, B_C, D, NR_TREE };

static const char * const tree_name[NR_TREE] = { "", "/b", "/b/c", "/d" };

/*
 * One process of two threads in each cgroup of the tree, made in
 * pre-order, or with @reverse from the last cgroup to the first: then
 * the later a cgroup comes in pre-order, the lower its tasks' ids.
 */
static void make_tree(struct __test_metadata *_metadata, struct world *w,
		      char path[NR_TREE][PATH_BUF + 8], struct kid *kid[NR_TREE],
		      bool reverse)
{
	for (int i = 0; i < NR_TREE; i++) {
		snprintf(path[i], PATH_BUF + 8, "%s%s", w->dir, tree_name[i]);
		if (i)
			ASSERT_EQ(0, ts_mess_cgroup(w->mess, path[i]));
	}
	for (int i = 0; i < NR_TREE; i++) {
		int cg = reverse ? NR_TREE - 1 - i : i;

		ASSERT_EQ(0, sleeper(w, path[cg], 1, &kid[cg]));
	}
}

TEST_F(cgroup, cgroup_dump_leaves_out_child_cgroups_without_the_subtree_flag)
{
	char path[NR_TREE][PATH_BUF + 8];
	struct kid *kid[NR_TREE];
	struct ids want = { 0 };

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	make_tree(_metadata, &self->w, path, kid, false);
	add_tids(&want, kid[TOP]);
	ASSERT_EQ(want.n, dump(&self->w, self->w.dirfd, 0, &got));
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
}

TEST_F(cgroup, subtree_dump_lists_every_task_of_every_descendant_once)
{
	char path[NR_TREE][PATH_BUF + 8];
	struct kid *kid[NR_TREE];
	struct ids want = { 0 };

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	make_tree(_metadata, &self->w, path, kid, false);
	for (int i = 0; i < NR_TREE; i++)
		add_tids(&want, kid[i]);
	ASSERT_EQ(want.n, dump(&self->w, self->w.dirfd, TSNL_DUMP_SUBTREE, &got));
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
}

/*
 * Pid order, as a dump of every task, whatever the order of the cgroups:
 * the tree's tasks are made from its last cgroup to its first, so that
 * pre-order would send them in decreasing order.
 */
TEST_F(cgroup, subtree_dump_lists_its_tasks_in_pid_order)
{
	char path[NR_TREE][PATH_BUF + 8];
	struct kid *kid[NR_TREE];
	struct ids want = { 0 };

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	make_tree(_metadata, &self->w, path, kid, true);
	for (int i = 0; i < NR_TREE; i++)
		add_tids(&want, kid[i]);
	ASSERT_EQ(want.n, dump(&self->w, self->w.dirfd, TSNL_DUMP_SUBTREE, &got));
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
	for (int i = 1; i < got.n; i++) {
		EXPECT_LT(got.rec[i - 1].id, got.rec[i].id)
			TH_LOG("record %d, of %u, came after one of %u", i,
			       got.rec[i].id, got.rec[i - 1].id);
	}
}

/* Whether @s holds @id. */
static bool has_id(const struct ids *s, uint32_t id)
{
	for (int i = 0; i < s->n; i++)
		if (s->id[i] == id)
			return true;
	return false;
}

/*
 * Tasks moving between two cgroups of a subtree while it is dumped: each
 * dump sends each task once at most, in pid order. A task that moves
 * behind the walk may be missed; that is counted, not judged.
 */
TEST_F_TIMEOUT(cgroup, subtree_dump_sends_a_task_once_while_tasks_move_between_its_cgroups, 60)
{
	char b[PATH_BUF + 8], d[PATH_BUF + 8];
	int dumps = 0, bad = 0, failed = 0, short_dumps = 0, n;
	struct timespec t0;
	pid_t pids[24];
	struct ids want = { 0 };
	unsigned long moves;
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	snprintf(b, sizeof(b), "%s/b", self->w.dir);
	snprintf(d, sizeof(d), "%s/d", self->w.dir);
	ASSERT_EQ(0, ts_mess_cgroup(self->w.mess, b));
	ASSERT_EQ(0, ts_mess_cgroup(self->w.mess, d));
	for (int i = 0; i < (int)ARRAY_SIZE(pids); i++) {
		ASSERT_EQ(0, sleeper(&self->w, b, 0, &k));
		pids[i] = k->pid;
		add_id(&want, k->pid);
	}
	ASSERT_EQ(0, mover_start(&self->w, pids, ARRAY_SIZE(pids), d, b));
	ASSERT_EQ(0, wait_started(&self->w.shared->moves)) TH_LOG("the mover never moved a task");
	moves = self->w.shared->moves;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = dump(&self->w, self->w.dirfd, TSNL_DUMP_SUBTREE, &got);
		if (n < 0 && !failed++)
			TH_LOG("a dump failed: %s", strerror(-n));
		for (int i = 0; n >= 0 && i < got.n; i++) {
			if (has_id(&want, got.rec[i].id) &&
			    (!i || got.rec[i - 1].id < got.rec[i].id))
				continue;
			if (!bad++)
				TH_LOG("dump %d: record %d is of %u, after %u", dumps, i,
				       got.rec[i].id, i ? got.rec[i - 1].id : 0);
			break;
		}
		short_dumps += n >= 0 && got.n < want.n;
	} while (dump_more(++dumps, 300, 5, &t0));
	moves = self->w.shared->moves - moves;
	TH_LOG("%d dumps while %lu moves; %d missed a task that moved", dumps, moves,
	       short_dumps);
	EXPECT_EQ(0, failed);
	EXPECT_EQ(0, bad) TH_LOG("%d of %d dumps sent a task twice, out of order or not ours",
				 bad, dumps);
	EXPECT_LT(0UL, moves);
}

TEST_F(cgroup, subtree_dump_of_a_child_cgroup_leaves_out_its_parent_and_sibling)
{
	char path[NR_TREE][PATH_BUF + 8];
	struct kid *kid[NR_TREE];
	struct ids want = { 0 };
	int fd;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	make_tree(_metadata, &self->w, path, kid, false);
	add_tids(&want, kid[B]);
	add_tids(&want, kid[B_C]);
	fd = open(path[B], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(want.n, dump(&self->w, fd, TSNL_DUMP_SUBTREE, &got));
	close(fd);
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
}

TEST_F(cgroup, subtree_dump_by_tgid_lists_each_process_of_the_subtree_once)
{
	char path[NR_TREE][PATH_BUF + 8];
	struct kid *kid[NR_TREE];
	struct ids want = { 0 };

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	make_tree(_metadata, &self->w, path, kid, false);
	for (int i = 0; i < NR_TREE; i++)
		add_id(&want, kid[i]->pid);
	ASSERT_EQ(NR_TREE, dump(&self->w, self->w.dirfd,
				TSNL_DUMP_SUBTREE | TSNL_DUMP_TGID, &got));
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_TGID, true));
}

/* The kid of @kids whose thread @tid is, or NULL. */
static const struct kid *kid_of(struct kid *const *kids, int n, uint32_t tid)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < kids[i]->n; j++)
			if ((uint32_t)kids[i]->tid[j] == tid)
				return kids[i];
	return NULL;
}

/*
 * A threaded tree: the test's cgroup becomes a threaded domain with a
 * threaded child, "t", into which the last two of a sleeper's four
 * threads move (cgroup.threads); its leader and first thread stay. The
 * child's path is written to @child, an fd of it returned.
 */
static int split_by_a_threaded_cgroup(struct __test_metadata *_metadata,
				      struct world *w, struct kid **k, char *child)
{
	char file[PATH_BUF + 32], tid[16];
	int fd;

	snprintf(child, PATH_BUF + 8, "%s/t", w->dir);
	ASSERT_EQ(0, ts_mess_cgroup(w->mess, child));
	snprintf(file, sizeof(file), "%s/cgroup.type", child);
	ASSERT_EQ(0, ts_write_file(file, "threaded"));
	ASSERT_EQ(0, sleeper(w, w->dir, 3, k));
	ASSERT_EQ(4, (*k)->n);
	snprintf(file, sizeof(file), "%s/cgroup.threads", child);
	for (int i = 2; i < 4; i++) {
		snprintf(tid, sizeof(tid), "%d", (*k)->tid[i]);
		ASSERT_EQ(0, ts_write_file(file, tid));
	}
	fd = open(child, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	return fd;
}

TEST_F(cgroup, a_threaded_cgroup_dumps_the_threads_it_holds_and_its_domain_the_others)
{
	struct ids in_domain = { 0 }, in_child = { 0 };
	char child[PATH_BUF + 8];
	struct kid *k;
	int fd;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	fd = split_by_a_threaded_cgroup(_metadata, &self->w, &k, child);
	for (int i = 0; i < 4; i++)
		add_id(i < 2 ? &in_domain : &in_child, k->tid[i]);
	EXPECT_EQ(2, dump(&self->w, self->w.dirfd, 0, &got));
	EXPECT_TRUE(same_ids(&got, &in_domain, TASKSTATS_TYPE_AGGR_PID, true));
	EXPECT_EQ(2, dump(&self->w, fd, 0, &got));
	EXPECT_TRUE(same_ids(&got, &in_child, TASKSTATS_TYPE_AGGR_PID, true));
	close(fd);
}

/*
 * By tgid, a process comes from its leader's cgroup, once, with or
 * without the subtree, and its record holds every thread: its voluntary
 * switches are the sum /proc gives of all four, wherever each sits. The
 * threaded cgroup, which holds no leader, lists no group.
 */
TEST_F(cgroup, a_process_split_by_a_threaded_cgroup_is_dumped_by_tgid_once_from_its_leaders)
{
	struct ids want = { 0 };
	char child[PATH_BUF + 8];
	uint64_t before, after;
	int fd, threads;
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	fd = split_by_a_threaded_cgroup(_metadata, &self->w, &k, child);
	add_id(&want, k->pid);
	EXPECT_EQ(0, dump(&self->w, fd, TSNL_DUMP_TGID, &got));
	close(fd);
	EXPECT_EQ(1, dump(&self->w, self->w.dirfd, TSNL_DUMP_TGID | TSNL_DUMP_SUBTREE, &got));
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_TGID, true));
	/* The sleepers are parked: their switches hold still across the dump. */
	before = ts_threads_sum(k->pid, "voluntary_ctxt_switches", &threads);
	ASSERT_EQ(4, threads);
	ASSERT_EQ(1, dump(&self->w, self->w.dirfd, TSNL_DUMP_TGID, &got));
	after = ts_threads_sum(k->pid, "voluntary_ctxt_switches", &threads);
	ASSERT_EQ(before, after);
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_TGID, true));
	EXPECT_EQ(before, got.rec[0].ts.nvcsw);
}

/* Root's process of three threads and one of user A, two threads. */
TEST_F(cgroup, cgroup_dump_records_name_their_task_its_group_parent_and_owner)
{
	static const char * const name[2] = { "ts_cg_root", "ts_cg_user" };
	static const uid_t uid[2] = { 0, UID_A };
	struct kid *kids[2];
	struct ids want = { 0 };

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, spawn(&self->w, &(struct spec){ .cgroup = self->w.dir,
				   .threads = 2 - i, .uid = uid[i], .name = name[i] },
				   &kids[i]));
		add_tids(&want, kids[i]);
	}
	ASSERT_EQ(want.n, dump(&self->w, self->w.dirfd, 0, &got));
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
	for (int i = 0; i < got.n; i++) {
		const struct taskstats *ts = &got.rec[i].ts;
		const struct kid *k = kid_of(kids, 2, got.rec[i].id);
		int who = k == kids[1];

		ASSERT_NE(NULL, k);
		EXPECT_EQ(TASKSTATS_VERSION, ts->version);
		EXPECT_EQ(got.rec[i].id, ts->ac_pid);
		EXPECT_EQ((uint32_t)k->pid, ts->ac_tgid);
		EXPECT_EQ((uint32_t)getpid(), ts->ac_ppid);
		EXPECT_EQ(uid[who], ts->ac_uid);
		EXPECT_EQ(uid[who], ts->ac_gid);
		EXPECT_STREQ(name[who], ts->ac_comm);
	}
}

/* ------------------------------------------------------- dumps in parts */

/*
 * Netlink builds a dump one part, one skb, at a time: the first in the
 * sendmsg() of the request, each next one at the end of the recvmsg()
 * that reads the one before, as long as the socket has room. A part of
 * ours holds about 10 records on a socket never read (8 KiB) and 44 once
 * it has been read with a large buffer (32 KiB), so MANY tasks take
 * several parts. What the requester does between two reads happens
 * before the part after next is built.
 */

/* A socket for one dump, read part by part, that fails rather than hang. */
static int dump_socket(void)
{
	struct timeval tv = { .tv_sec = WAIT_MS / 1000 };
	int fd = tsnl_open(), err;

	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Sends the request of a dump of the cgroup @fd on @nl, numbered *@seq. */
static int dump_start(struct world *w, int nl, int fd, uint32_t *seq)
{
	struct tsnl_msg m;

	tsnl_msg_init(&m, w->family, TASKSTATS_CMD_GET, NLM_F_DUMP);
	tsnl_put_u32(&m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, fd);
	*seq = m.nlh.nlmsg_seq;
	return tsnl_send(nl, &m);
}

/*
 * Reads the dump of request @seq on @nl to its end, keeping its records
 * in @g: how many came, or the dump's -errno.
 */
static int dump_rest(int nl, uint32_t seq, struct recs *g)
{
	int n, records = 0;
	bool done = false;

	while (!done) {
		n = tsnl_dump_part(nl, seq, keep, g, NULL, &done);
		if (n < 0)
			return n;
		records += n;
	}
	return records;
}

/* Whether @g holds a record of @id. */
static bool has_rec(const struct recs *g, uint32_t id)
{
	for (int i = 0; i < g->n; i++)
		if (g->rec[i].id == id)
			return true;
	return false;
}

/* @n sleepers without threads in @cgroup, their pids added to @ids. */
static int sleepers(struct world *w, const char *cgroup, int n, struct ids *ids)
{
	struct kid *k;
	int err;

	for (int i = 0; i < n; i++) {
		err = sleeper(w, cgroup, 0, &k);
		if (err)
			return err;
		add_tids(ids, k);
	}
	return 0;
}

/* Kills and reaps every kid; the teardown has none left to kill. */
static void reap_kids(struct world *w)
{
	for (int i = 0; i < w->nkids; i++) {
		if (w->kids[i].vchild > 0)
			kill(w->kids[i].vchild, SIGKILL);
		kill(w->kids[i].pid, SIGKILL);
	}
	for (int i = 0; i < w->nkids; i++) {
		waitpid(w->kids[i].pid, NULL, 0);
		if (w->kids[i].go >= 0)
			close(w->kids[i].go);
	}
	w->nkids = 0;
}

/*
 * The dump of a cgroup of MANY tasks. Once its first part is read, the
 * tasks that part did not send move to another cgroup and NEWCOMERS
 * join: the dump still sends the tasks of its start, the moved ones
 * too, each once, and no newcomer. The parts read third and later, at
 * least, are built after the moves.
 */
TEST_F_TIMEOUT(cgroup,
	       cgroup_dump_sends_the_tasks_it_started_with_even_moved_out_and_no_newcomer,
	       120)
{
	char a[PATH_BUF + 8], b[PATH_BUF + 8], procs[PATH_BUF + 24], pid[16];
	struct ids want = { 0 }, newcomers = { 0 };
	int nl, fd, first, second, rest, moved = 0;
	uint32_t seq;
	bool done;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	snprintf(a, sizeof(a), "%s/a", self->w.dir);
	snprintf(b, sizeof(b), "%s/b", self->w.dir);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", b);
	ASSERT_EQ(0, ts_mess_cgroup(self->w.mess, a));
	ASSERT_EQ(0, ts_mess_cgroup(self->w.mess, b));
	ASSERT_EQ(0, sleepers(&self->w, a, MANY, &want));
	fd = open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	nl = dump_socket();
	ASSERT_LE(0, nl);
	got.n = 0;
	got.dropped = 0;
	ASSERT_EQ(0, dump_start(&self->w, nl, fd, &seq));
	close(fd);
	first = tsnl_dump_part(nl, seq, keep, &got, NULL, &done);
	ASSERT_LE(0, first) TH_LOG("the dump failed: %s", strerror(-first));
	ASSERT_FALSE(done) TH_LOG("the first part ended the dump: no task left to move");
	for (int i = 0; i < want.n; i++) {
		if (has_rec(&got, want.id[i]))
			continue;
		snprintf(pid, sizeof(pid), "%u", want.id[i]);
		ASSERT_EQ(0, ts_write_file(procs, pid));
		moved++;
	}
	ASSERT_EQ(0, sleepers(&self->w, a, NEWCOMERS, &newcomers));
	second = tsnl_dump_part(nl, seq, keep, &got, NULL, &done);
	ASSERT_LE(0, second) TH_LOG("the dump failed: %s", strerror(-second));
	ASSERT_FALSE(done) TH_LOG("the second part ended the dump: none built after the moves");
	rest = dump_rest(nl, seq, &got);
	close(nl);
	ASSERT_LE(0, rest) TH_LOG("the dump failed: %s", strerror(-rest));
	TH_LOG("records: %d in the first part, %d in the second, %d after; %d tasks moved",
	       first, second, rest, moved);
	EXPECT_LT(0, rest) TH_LOG("no record in a part built after the moves");
	for (int i = 0; i < newcomers.n; i++) {
		EXPECT_FALSE(has_rec(&got, newcomers.id[i]))
			TH_LOG("%u, a newcomer, was sent", newcomers.id[i]);
	}
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
}

/* The nr_dying_descendants of the cgroup @dir, or -errno. */
static int dying_descendants(const char *dir)
{
	static const char key[] = "nr_dying_descendants ";
	char path[PATH_BUF + 16], buf[4096], *p;
	int n;

	snprintf(path, sizeof(path), "%s/cgroup.stat", dir);
	n = ts_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	p = strstr(buf, key);
	return p ? atoi(p + strlen(key)) : -ENOENT;
}

/* Removes the empty cgroup @dir, waiting at most WAIT_MS for it to empty. */
static int remove_empty(const char *dir)
{
	for (int ms = 0; ms < WAIT_MS; ms++) {
		if (!rmdir(dir))
			return 0;
		if (errno != EBUSY)
			return -errno;
		usleep(1000);
	}
	return -EBUSY;
}

/*
 * A dump of a cgroup of MANY tasks is left after its first part, its
 * socket open and unread; the tasks are killed and reaped and the cgroup
 * removed. The cgroup, dying, is freed all the same, within WAIT_MS: the
 * dump holds no task, css_set or cgroup between its parts. The count is
 * the test cgroup's own, which nothing else touches; the cgroup may be
 * dying still or already freed when it is first read.
 */
TEST_F_TIMEOUT(cgroup, cgroup_dump_left_unread_keeps_no_removed_cgroup_alive, 120)
{
	int nl, fd, first, before, removed, now, ms;
	char c[PATH_BUF + 8];
	struct ids want = { 0 };
	uint32_t seq;
	bool done;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	snprintf(c, sizeof(c), "%s/c", self->w.dir);
	before = dying_descendants(self->w.dir);
	ASSERT_LE(0, before) TH_LOG("%s/cgroup.stat: %s", self->w.dir, strerror(-before));
	ASSERT_EQ(0, ts_mess_cgroup(self->w.mess, c));
	ASSERT_EQ(0, sleepers(&self->w, c, MANY, &want));
	fd = open(c, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	nl = dump_socket();
	ASSERT_LE(0, nl);
	got.n = 0;
	got.dropped = 0;
	ASSERT_EQ(0, dump_start(&self->w, nl, fd, &seq));
	close(fd);
	first = tsnl_dump_part(nl, seq, keep, &got, NULL, &done);
	ASSERT_LE(0, first) TH_LOG("the dump failed: %s", strerror(-first));
	ASSERT_FALSE(done) TH_LOG("the first part ended the dump: it holds nothing");
	reap_kids(&self->w);
	ASSERT_EQ(0, remove_empty(c));
	removed = dying_descendants(self->w.dir);
	now = removed;
	for (ms = 0; now > before && ms < WAIT_MS; ms += 10) {
		usleep(10000);
		now = dying_descendants(self->w.dir);
	}
	TH_LOG("dying descendants of the test cgroup: %d before, %d after rmdir, %d %d ms later",
	       before, removed, now, ms);
	close(nl);
	EXPECT_LE(0, now);
	EXPECT_LE(now, before) TH_LOG("the dump left unread keeps the removed cgroup");
}

/*
 * The request of a dump of a cgroup of MANY tasks is sent, then the tasks
 * are killed and reaped before the first read. That first part may have
 * been built in the send, before the exits, with tasks still alive then;
 * every later part is built after them: none of those has a record, and
 * the dump ends with NLMSG_DONE 0.
 */
TEST_F_TIMEOUT(cgroup, cgroup_dump_leaves_out_the_tasks_that_exit_before_their_turn, 120)
{
	struct ids want = { 0 };
	int nl, first, later;
	uint32_t seq;
	bool done;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	ASSERT_EQ(0, sleepers(&self->w, self->w.dir, MANY, &want));
	nl = dump_socket();
	ASSERT_LE(0, nl);
	got.n = 0;
	got.dropped = 0;
	ASSERT_EQ(0, dump_start(&self->w, nl, self->w.dirfd, &seq));
	reap_kids(&self->w);
	first = tsnl_dump_part(nl, seq, keep, &got, NULL, &done);
	ASSERT_LE(0, first) TH_LOG("the dump failed: %s", strerror(-first));
	later = done ? 0 : dump_rest(nl, seq, &got);
	close(nl);
	TH_LOG("%d records in the first part, %d in the later ones, of %d tasks",
	       first, later, MANY);
	ASSERT_LT(first, MANY) TH_LOG("the first part sent every task: none had to be looked up");
	EXPECT_EQ(0, later) TH_LOG("the dump ended with %s", later < 0 ?
				   strerror(-later) : "records of tasks reaped");
	for (int i = 0; i < got.n; i++) {
		EXPECT_TRUE(has_id(&want, got.rec[i].id))
			TH_LOG("%u is not of the cgroup's tasks", got.rec[i].id);
	}
}

/* ---------------------------------------------------------------- access */

/* What user A, dumping the test's cgroup, saw; sent back on a pipe. */
struct seen_by_a {
	int open_err;		/* opening the cgroup as A */
	int n, tgid_n;		/* the dumps' results */
	uint32_t id[MAX_IDS], tgid[MAX_IDS];
	int own_io, root_io;	/* the oracle: /proc/PID/io readable */
};

static bool proc_io_readable(pid_t pid)
{
	char path[64], buf[512];

	snprintf(path, sizeof(path), "/proc/%d/io", pid);
	return ts_read_file(path, buf, sizeof(buf)) > 0;
}

/*
 * For a test's child that reports through a pipe: dumps the cgroup @fd by
 * pid and by tgid, the results in *@n and *@tgid_n, the ids in @id and
 * @tgid (MAX_IDS each).
 */
static void dump_both(int nl, uint16_t family, int fd, int *n, uint32_t *id,
		      int *tgid_n, uint32_t *tgid)
{
	*n = tsnl_dump_cgroup(nl, family, fd, 0, keep, &got);
	for (int i = 0; i < got.n && i < MAX_IDS; i++)
		id[i] = got.rec[i].id;
	got.n = 0;
	*tgid_n = tsnl_dump_cgroup(nl, family, fd, TSNL_DUMP_TGID, keep, &got);
	for (int i = 0; i < got.n && i < MAX_IDS; i++)
		tgid[i] = got.rec[i].id;
}

static void dump_as_a(struct world *w, pid_t own, pid_t roots, int out)
{
	static struct seen_by_a s;
	uint16_t family;
	int fd, nl;

	close(w->hold[1]);
	become(UID_A);
	s.own_io = proc_io_readable(own);
	s.root_io = proc_io_readable(roots);
	fd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s.open_err = fd < 0 ? -errno : 0;
	nl = tsnl_open();
	if (fd < 0 || nl < 0 || tsnl_family(nl, TASKSTATS_GENL_NAME, &family)) {
		s.n = -EIO;
		s.tgid_n = -EIO;
	} else {
		dump_both(nl, family, fd, &s.n, s.id, &s.tgid_n, s.tgid);
	}
	_exit(write(out, &s, sizeof(s)) == sizeof(s) ? 0 : 1);
}

/* The ids another process dumped, as records of type @aggr. */
static void as_recs(struct recs *g, const uint32_t *id, int n, int aggr)
{
	memset(g, 0, sizeof(*g));
	for (int i = 0; i < n && i < MAX_IDS; i++) {
		g->rec[i].id = id[i];
		g->rec[i].aggr = aggr;
		g->n++;
	}
}

/*
 * A cgroup holding a process of root's and one of user A's, both with a
 * thread; A dumps it: its own process's records only, the others left
 * out in silence, as /proc/PID/io tells A.
 */
TEST_F(cgroup, unprivileged_cgroup_dump_lists_only_the_users_own_tasks)
{
	struct ids want = { 0 }, want_tgid = { 0 };
	static struct seen_by_a s;
	struct kid *roots, *own;
	struct pollfd p;
	int pipefd[2];
	pid_t dumper;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 1, &roots));
	ASSERT_EQ(0, spawn(&self->w, &(struct spec){ .cgroup = self->w.dir,
			   .threads = 1, .uid = UID_A }, &own));
	add_tids(&want, own);
	add_id(&want_tgid, own->pid);
	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	dumper = fork();
	ASSERT_LE(0, dumper);
	if (dumper == 0)
		dump_as_a(&self->w, own->pid, roots->pid, pipefd[1]);
	close(pipefd[1]);
	p = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	ASSERT_EQ(1, poll(&p, 1, WAIT_MS));
	ASSERT_EQ((ssize_t)sizeof(s), read(pipefd[0], &s, sizeof(s)));
	close(pipefd[0]);
	waitpid(dumper, NULL, 0);
	/* The oracle first: the case is the one the test means. */
	ASSERT_TRUE(s.own_io);
	ASSERT_FALSE(s.root_io);
	ASSERT_EQ(0, s.open_err);
	ASSERT_EQ(want.n, s.n);
	ASSERT_EQ(want_tgid.n, s.tgid_n);
	as_recs(&got, s.id, s.n, TASKSTATS_TYPE_AGGR_PID);
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
	as_recs(&got, s.tgid, s.tgid_n, TASKSTATS_TYPE_AGGR_TGID);
	EXPECT_TRUE(same_ids(&got, &want_tgid, TASKSTATS_TYPE_AGGR_TGID, true));
}

/* What a container's pid 1 saw of the cgroup: see dump_in_a_container(). */
struct seen_in_container {
	int err;		/* making the container, or 0 */
	int n, tgid_n;		/* the dumps' results */
	uint32_t id[MAX_IDS], tgid[MAX_IDS];
	struct ids threads, procs;	/* the cgroup's files, read inside */
	int hidden_threads, hidden_procs;	/* their zeros: tasks outside */
};

/*
 * The ids of a cgroup file listing pids, as the reader's pid namespace
 * names them: those of tasks outside it read as 0, counted in *@hidden.
 */
static void read_cgroup_ids(int dirfd, const char *file, struct ids *s, int *hidden)
{
	char buf[4096], *line, *save;
	int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	s->n = 0;
	*hidden = 0;
	if (n < 0) {
		*hidden = -1;
		return;
	}
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (atoi(line))
			add_id(s, atoi(line));
		else
			(*hidden)++;
	}
}

/*
 * Joins the test's cgroup, opens it and makes a container (user A's user
 * and pid namespaces, see container_pid1()) whose pid 1 forks a child,
 * then reads the cgroup's files and dumps it through the fd opened
 * outside. Writes what pid 1 saw to @out.
 */
static void dump_in_a_container(struct world *w, int out)
{
	static struct seen_in_container s;
	uint16_t family = 0;
	int fd, nl = -1;
	pid_t kid;

	close(w->hold[1]);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s.err = fd < 0 ? -errno : container_pid1(w->dir);
	if (!s.err) {		/* pid 1 */
		kid = fork();
		if (kid == 0)
			for (;;)
				pause();
		nl = tsnl_open();
		if (kid < 0 || nl < 0 || tsnl_family(nl, TASKSTATS_GENL_NAME, &family))
			s.err = -EIO;
	}
	if (!s.err) {
		read_cgroup_ids(fd, "cgroup.threads", &s.threads, &s.hidden_threads);
		read_cgroup_ids(fd, "cgroup.procs", &s.procs, &s.hidden_procs);
		dump_both(nl, family, fd, &s.n, s.id, &s.tgid_n, s.tgid);
	}
	/* Pid 1's exit takes its child along. */
	_exit(write(out, &s, sizeof(s)) == sizeof(s) ? 0 : 1);
}

/*
 * A container's root given the fd of a host cgroup that holds root's
 * process, the container's maker and the container's two tasks dumps
 * the container's two tasks only, by the pids its namespace gives them:
 * the cgroup's own files, read inside, name the same ones and show the
 * others as 0.
 */
TEST_F(cgroup, a_containers_cgroup_dump_lists_its_own_tasks_only_by_its_own_pids)
{
	struct ids want = { .n = 2, .id = { 1, 2 } };
	static struct seen_in_container s;
	struct pollfd p;
	int pipefd[2];
	struct kid *k;
	pid_t maker;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 1, &k));
	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	maker = fork();
	ASSERT_LE(0, maker);
	if (maker == 0)
		dump_in_a_container(&self->w, pipefd[1]);
	close(pipefd[1]);
	p = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	ASSERT_EQ(1, poll(&p, 1, WAIT_MS));
	ASSERT_EQ((ssize_t)sizeof(s), read(pipefd[0], &s, sizeof(s)));
	close(pipefd[0]);
	waitpid(maker, NULL, 0);
	if (s.err == 4)
		SKIP(return, "cannot create a user namespace");
	ASSERT_EQ(0, s.err);
	/* The oracle: inside, the cgroup shows pids 1 and 2 and hides the rest. */
	as_recs(&got, s.threads.id, s.threads.n, TASKSTATS_TYPE_AGGR_PID);
	ASSERT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
	as_recs(&got, s.procs.id, s.procs.n, TASKSTATS_TYPE_AGGR_PID);
	ASSERT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
	ASSERT_EQ(3, s.hidden_threads);		/* root's leader and thread, the maker */
	ASSERT_EQ(2, s.hidden_procs);
	ASSERT_EQ(2, s.n);
	ASSERT_EQ(2, s.tgid_n);
	as_recs(&got, s.id, s.n, TASKSTATS_TYPE_AGGR_PID);
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
	as_recs(&got, s.tgid, s.tgid_n, TASKSTATS_TYPE_AGGR_TGID);
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_TGID, true));
}

/* -------------------------------------------------------------- errors */

enum target {
	NO_FD,		/* no fd attribute at all */
	CLOSED_FD,	/* a number no file is open on */
	O_PATH_FD,	/* the test's cgroup, opened O_PATH */
	REGULAR_FILE,	/* a file on tmpfs */
	OTHER_DIR,	/* /tmp: a directory, not of cgroupfs */
	CONTROL_FILE,	/* the test cgroup's cgroup.procs */
	REMOVED,	/* a cgroup removed while its directory stays open */
	SUBTREE_ALONE,	/* DUMP_SUBTREE without DUMP_CGROUP_FD */
};

/* The fd of @target, -1 for none; *@close_it if the caller must close it. */
static int target_fd(struct __test_metadata *_metadata, struct world *w,
		     enum target target, bool *close_it)
{
	char path[PATH_BUF + 16];
	int fd = -1;

	*close_it = true;
	switch (target) {
	case NO_FD:
	case SUBTREE_ALONE:
		*close_it = false;
		return -1;
	case CLOSED_FD:
		fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ASSERT_LE(0, fd);
		close(fd);
		ASSERT_EQ(-1, fcntl(fd, F_GETFD));
		*close_it = false;
		return fd;
	case O_PATH_FD:
		fd = open(w->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		break;
	case REGULAR_FILE:
		fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		break;
	case OTHER_DIR:
		fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		break;
	case CONTROL_FILE:
		snprintf(path, sizeof(path), "%s/cgroup.procs", w->dir);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		break;
	case REMOVED:
		snprintf(path, sizeof(path), "%s/removed", w->dir);
		ASSERT_EQ(0, ts_mess_cgroup(w->mess, path));
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, rmdir(path));
		break;
	}
	ASSERT_LE(0, fd);
	return fd;
}

FIXTURE(cgroupstats_error) {
	struct world w;
};

FIXTURE_VARIANT(cgroupstats_error) {
	enum target target;
	int err;		/* -errno, or 0: no counts, nor an error */
	bool no_ack;		/* asked without NLM_F_ACK */
	const char *no_dump;	/* what a kernel without the dump answers instead */
	const char *unfixed;	/* what 6.12 without the series' fixes answers */
};

FIXTURE_VARIANT_ADD(cgroupstats_error, without_an_fd) {
	.target = NO_FD, .err = -EINVAL,
};

/*
 * 6.12 answers a descriptor that is not open with nothing at all: with
 * NLM_F_ACK, an acknowledgment alone, as if it had succeeded.
 */
FIXTURE_VARIANT_ADD(cgroupstats_error, of_a_closed_fd) {
	.target = CLOSED_FD, .err = -EBADF,
	.unfixed = "answers a closed fd with nothing",
};

/*
 * Without NLM_F_ACK the error is the only answer: 6.12's nothing leaves
 * such a client waiting for ever (here, for the socket's receive timeout).
 */
FIXTURE_VARIANT_ADD(cgroupstats_error, of_a_closed_fd_without_ack) {
	.target = CLOSED_FD, .err = -EBADF, .no_ack = true,
	.unfixed = "answers a closed fd with nothing",
};

/* 6.12 answers an O_PATH fd as a closed one. */
FIXTURE_VARIANT_ADD(cgroupstats_error, of_an_o_path_fd) {
	.target = O_PATH_FD, .err = -EBADF,
	.unfixed = "answers an O_PATH fd with nothing, as a closed one",
};

FIXTURE_VARIANT_ADD(cgroupstats_error, of_an_o_path_fd_without_ack) {
	.target = O_PATH_FD, .err = -EBADF, .no_ack = true,
	.unfixed = "answers an O_PATH fd with nothing, as a closed one",
};

FIXTURE_VARIANT_ADD(cgroupstats_error, of_a_regular_file) {
	.target = REGULAR_FILE, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(cgroupstats_error, of_a_directory_outside_cgroupfs) {
	.target = OTHER_DIR, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(cgroupstats_error, of_a_cgroup_control_file) {
	.target = CONTROL_FILE, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(cgroupstats_error, of_a_removed_cgroup) {
	.target = REMOVED, .err = -ENOENT,
	.no_dump = "answers EINVAL for every v2 directory",
};

FIXTURE_SETUP(cgroupstats_error)
{
	world_setup(_metadata, &self->w);
}

FIXTURE_TEARDOWN(cgroupstats_error)
{
	world_teardown(&self->w);
}

/*
 * Without NLM_F_ACK, the answer is awaited for the socket's receive
 * timeout at most: none within it reads as 0, no answer.
 */
TEST_F(cgroupstats_error, is_the_documented_errno)
{
	const char *got_what;
	struct cgroupstats cs;
	bool close_it;
	int fd, n;

	if (variant->no_dump && !self->w.series)
		SKIP(return, TS_NO_DUMP "%s", variant->no_dump);
	if (variant->unfixed && ts_kernel_unfixed())
		SKIP(return, TS_UNFIXED "%s", variant->unfixed);
	fd = target_fd(_metadata, &self->w, variant->target, &close_it);
	if (variant->no_ack) {
		memset(&cs, 0xff, sizeof(cs));
		n = tsnl_cgroupstats_flags(self->w.nl, self->w.family, fd, 0, &cs);
	} else {
		n = counts(&self->w, fd, &cs);
	}
	if (close_it)
		close(fd);
	got_what = n > 0 ? "counts" : n ? strerror(-n) :
		   variant->no_ack ? "no answer" : "an acknowledgment alone";
	EXPECT_EQ(variant->err, n) TH_LOG("expected %s, got %s",
					  strerror(-variant->err), got_what);
}

FIXTURE(dump_error) {
	struct world w;
};

FIXTURE_VARIANT(dump_error) {
	enum target target;
	int err;
};

FIXTURE_VARIANT_ADD(dump_error, of_a_closed_fd) {
	.target = CLOSED_FD, .err = -EBADF,
};

FIXTURE_VARIANT_ADD(dump_error, of_an_o_path_fd) {
	.target = O_PATH_FD, .err = -EBADF,
};

FIXTURE_VARIANT_ADD(dump_error, of_a_regular_file) {
	.target = REGULAR_FILE, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(dump_error, of_a_directory_outside_cgroupfs) {
	.target = OTHER_DIR, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(dump_error, of_a_cgroup_control_file) {
	.target = CONTROL_FILE, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(dump_error, of_a_removed_cgroup) {
	.target = REMOVED, .err = -ENOENT,
};

FIXTURE_VARIANT_ADD(dump_error, of_the_subtree_flag_without_a_cgroup) {
	.target = SUBTREE_ALONE, .err = -EINVAL,
};

FIXTURE_SETUP(dump_error)
{
	if (world_setup(_metadata, &self->w) && !self->w.series)
		SKIP(return, SKIP_DUMP);
}

FIXTURE_TEARDOWN(dump_error)
{
	world_teardown(&self->w);
}

/* The dump does not start: its first message is the error, no record. */
TEST_F(dump_error, is_the_documented_errno_before_any_record)
{
	int flags = variant->target == SUBTREE_ALONE ? TSNL_DUMP_SUBTREE : 0;
	bool close_it;
	int fd, n;

	fd = target_fd(_metadata, &self->w, variant->target, &close_it);
	n = dump(&self->w, fd, flags, &got);
	if (close_it)
		close(fd);
	EXPECT_EQ(variant->err, n) TH_LOG("expected %s", strerror(-variant->err));
	EXPECT_EQ(0, got.n);
}

TEST_HARNESS_MAIN
