// SPDX-License-Identifier: GPL-2.0
/*
 * CGROUPSTATS_CMD_GET counts each thread of a cgroup (of the cgroup
 * itself, not of its descendants) by the state letter /proc/TID/stat
 * shows for it: R as running, S as sleeping, T and t as stopped, D as
 * waiting for I/O if the thread sleeps in io_schedule() and as
 * uninterruptible otherwise, any other letter (Z, X, I, P) nowhere.
 *
 * Each test puts tasks of some kinds in a fresh cgroup, of cgroup v2 or of
 * a named v1 hierarchy it mounts itself, and waits in /proc until every
 * thread is in the state its kind leads to. Then it tallies the threads
 * the cgroup lists (cgroup.threads; tasks on v1) by /proc, asks for the
 * counts and tallies again, until both tallies agree, and compares the
 * counts with the tally and the tally with what it made. /proc does not
 * show I/O wait: the tally counts a D thread as waiting for I/O exactly
 * when it is a reader of the test's slow disk.
 *
 * The kinds, and the state each waits in on 6.12:
 *
 *  - nanosleep(2), a futex wait: TASK_INTERRUPTIBLE | TASK_FREEZABLE (S)
 *  - read(2) of a pipe, epoll_wait(2), select(2), open(2) of a FIFO that
 *    nobody opens for writing: TASK_INTERRUPTIBLE (S)
 *  - stopped by SIGSTOP: TASK_STOPPED (T); by its tracer: TASK_TRACED (t)
 *  - a vfork(2) parent: TASK_KILLABLE | TASK_FREEZABLE (D)
 *  - a write(2) to a frozen file system: TASK_UNINTERRUPTIBLE (D)
 *  - a read of a page of a slow disk: TASK_KILLABLE in io_schedule() (D)
 *  - a zombie (Z): left out of cgroup.threads and of the counts alike
 *  - a busy loop: TASK_RUNNING (R)
 *
 * Linux 6.1 to 6.12 compare __state with the four base states exactly, and
 * count the freezable, killable and traced ones nowhere; 6.12's own
 * implementation answers EINVAL for a v2 cgroup besides: on a kernel
 * without the dump every test skips.
 *
 * Cleaning up: the teardown thaws what the test froze, kills and reaps its
 * tasks, removes the cgroup and unmounts the v1 hierarchy. A test that
 * dies first leaves that to its janitor (janitor.h), a process in a
 * session of its own that waits on a pidfd for the test's death and
 * undoes what the memory they share records; the tasks die with the test
 * (PDEATHSIG).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/futex.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "counts.h"
#include "disks.h"
#include "janitor.h"
#include "tsnl.h"

#define PATH_BUF	256
#define MAX_KIDS	16
#define MAX_TIDS	TS_KID_TIDS	/* a futex server's leader and its workers */
#define WORKERS		(MAX_TIDS - 1)
#define WAIT_MS		10000	/* for a state, for a kid to say it is ready */
#define TRIES		20	/* requests, until the threads hold still across one */
#define RETRY_MS	50

/* How a kid waits: see block(). */
enum kind {
	NANOSLEEPER, FUTEX_SERVER, PIPE_READER, EPOLLER, SELECTER, FIFO_OPENER,
	PAUSER, VFORKER, WRITER, READER, PARENT, BUSY, NR_KINDS,
};

/*
 * Each kind's command name, the state /proc shows for its threads once it
 * waits, and for the process it made (the vfork child, the zombie).
 */
static const struct {
	const char *name;
	char state;
	char other;
} kinds[NR_KINDS] = {
	[NANOSLEEPER]	= { .name = "ts_nanosleep", .state = 'S' },
	[FUTEX_SERVER]	= { .name = "ts_futex", .state = 'S' },
	[PIPE_READER]	= { .name = "ts_pipe", .state = 'S' },
	[EPOLLER]	= { .name = "ts_epoll", .state = 'S' },
	[SELECTER]	= { .name = "ts_select", .state = 'S' },
	[FIFO_OPENER]	= { .name = "ts_fifo", .state = 'S' },
	[PAUSER]	= { .name = "ts_pause", .state = 'S' },
	[VFORKER]	= { .name = "ts_vfork", .state = 'D', .other = 'S' },
	[WRITER]	= { .name = "ts_writer", .state = 'D' },
	[READER]	= { .name = "ts_reader", .state = 'D' },
	[PARENT]	= { .name = "ts_parent", .state = 'S', .other = 'Z' },
	[BUSY]		= { .name = "ts_busy", .state = 'R' },
};

/* What a kid says once it is in the cgroup, with its threads. */
/* A task the test made. */
struct kid {
	enum kind kind;
	pid_t pid;
	char state;		/* of its leader: its kind's, or T or t */
	struct ts_ready r;
};

struct lab {
	bool v1;
	int nl;
	uint16_t family;
	int dirfd;		/* the test's cgroup */
	/*
	 * What it made, shared with its janitor: the cgroup (cgroup[0]); its
	 * directory of /tmp (tmp), the FIFO there (file) and the v1 hierarchy
	 * mounted there (v1); the scratch and the slow disk.
	 */
	struct ts_mess *mess;
	struct kid kids[MAX_KIDS];
	int nkids;
};

/* ------------------------------------------------------------ cleaning */

/* Waits for @pid to end, past the stops its tracer is told of. */
static void reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, __WALL) == pid && !WIFEXITED(status) &&
	       !WIFSIGNALED(status))
		;
}

/* ---------------------------------------------------------------- kids */

/* The kid's side: only its own copies of these are ever set. */
static int kid_ready = -1;
static pid_t kid_tids[MAX_TIDS];
static int futex_word;		/* stays 0: nobody wakes the server */
static long vfork_stack[8192];

/* Returns only if a wait on futex_word fails other than by a signal. */
static void futex_wait_forever(void)
{
	while (!syscall(SYS_futex, &futex_word, FUTEX_WAIT_PRIVATE, 0, NULL, NULL, 0) ||
	       errno == EINTR)
		;
}

static void *worker(void *arg)
{
	__atomic_store_n(&kid_tids[(long)arg], gettid(), __ATOMIC_RELEASE);
	futex_wait_forever();
	_exit(1);
}

/* Starts @n workers and waits until each has said its tid in @r. */
static int start_workers(int n, struct ts_ready *r)
{
	pthread_t t;

	for (long i = 1; i <= n; i++)
		if (pthread_create(&t, NULL, worker, (void *)i))
			return -EAGAIN;
	for (int i = 1; i <= n; i++)
		for (int ms = 0; !(r->tid[i] = __atomic_load_n(&kid_tids[i], __ATOMIC_ACQUIRE));
		     ms++) {
			if (ms == WAIT_MS)
				return -ETIMEDOUT;
			usleep(1000);
		}
	r->n = 1 + n;
	return 0;
}

static void rest(void)
{
	for (;;)
		pause();
}

/* The vfork child, on its own stack: it says ready for both, then pauses. */
static int vfork_child(void *arg)
{
	struct ts_ready r = { .n = 1, .tid = { getppid() }, .other = getpid() };

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (write(kid_ready, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	rest();
	return 0;
}

/*
 * Waits as @kind does, for good. A wait that may end (the writer's, at
 * the thaw) rests after; one that may not exits, so that the test sees it.
 */
static void block(enum kind kind, int fd, const char *fifo)
{
	struct timespec hour = { .tv_sec = 3600 };
	struct epoll_event ev;
	char buf[4096];
	fd_set set;
	int p[2];

	switch (kind) {
	case NANOSLEEPER:
		while (!nanosleep(&hour, NULL) || errno == EINTR)
			;
		break;
	case FUTEX_SERVER:
		futex_wait_forever();
		break;
	case PIPE_READER:
	case PARENT:
		/* It holds the write end itself: no byte comes, and no EOF. */
		if (!pipe(p))
			while (read(p[0], buf, 1) < 0 && errno == EINTR)
				;
		break;
	case EPOLLER:
		fd = epoll_create1(EPOLL_CLOEXEC);
		while (fd >= 0 && epoll_wait(fd, &ev, 1, -1) < 0 && errno == EINTR)
			;
		break;
	case SELECTER:
		if (pipe(p))
			break;
		do {
			FD_ZERO(&set);
			FD_SET(p[0], &set);
		} while (select(p[0] + 1, &set, NULL, NULL, NULL) < 0 && errno == EINTR);
		break;
	case FIFO_OPENER:
		while (open(fifo, O_RDONLY | O_CLOEXEC) < 0 && errno == EINTR)
			;
		break;
	case PAUSER:
	case VFORKER:
		rest();
		break;
	case WRITER:
		if (pwrite(fd, "x", 1, 0) == 1)
			rest();
		break;
	case READER:
		/* Each read waits for the disk: its page is dropped first. */
		do {
			posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		} while (pread(fd, buf, sizeof(buf), 0) == sizeof(buf));
		break;
	case BUSY:
		setpriority(PRIO_PROCESS, 0, 19);	/* spin, but politely */
		for (;;)
			;
	case NR_KINDS:
		break;
	}
	_exit(1);
}

static void kid_main(struct lab *l, enum kind what, int arg, pid_t parent)
{
	struct ts_ready r = { .n = 1, .tid = { getpid() } };
	char path[PATH_BUF + 16], pid[16];
	int err;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)	/* the test died before that */
		_exit(1);
	snprintf(path, sizeof(path), "%s/cgroup.procs", l->mess->cgroup[0]);
	snprintf(pid, sizeof(pid), "%d", getpid());
	err = ts_write_file(path, pid);
	prctl(PR_SET_NAME, kinds[what].name);
	if (!err && what == FUTEX_SERVER)
		err = start_workers(arg, &r);
	if (!err && what == PARENT) {
		r.other = fork();
		if (r.other == 0)
			_exit(0);
		if (r.other < 0)
			err = -errno;
	}
	if (!err && what == VFORKER) {
		/* The child says ready; the parent waits in clone() while it lives. */
		if (clone(vfork_child, (char *)vfork_stack + sizeof(vfork_stack),
			  CLONE_VM | CLONE_VFORK | SIGCHLD, NULL) > 0)
			rest();
		err = -errno;
	}
	if (err)
		r.n = err;
	if (write(kid_ready, &r, sizeof(r)) != sizeof(r) || err)
		_exit(1);
	block(what, arg, l->mess->file);
}

/*
 * Makes a task of kind @what in the test's cgroup and waits until /proc shows
 * each of its threads, and the process it made, in the state of its kind.
 * @arg: the file a WRITER writes to or a READER reads; for a FUTEX_SERVER,
 *	its workers besides its leader
 *
 * Return: 0 with the kid in *@out, or -errno.
 */
static int spawn(struct lab *l, enum kind what, int arg, struct kid **out)
{
	pid_t parent = getpid();
	int ready[2], err;
	struct kid *k;

	if (l->nkids == MAX_KIDS || (what == FUTEX_SERVER && arg >= MAX_TIDS))
		return -ENOSPC;
	if (pipe2(ready, O_CLOEXEC))
		return -errno;
	k = &l->kids[l->nkids];
	memset(k, 0, sizeof(*k));
	k->kind = what;
	k->state = kinds[what].state;
	k->pid = fork();
	if (k->pid < 0) {
		err = -errno;
		close(ready[0]);
		close(ready[1]);
		return err;
	}
	if (k->pid == 0) {
		close(ready[0]);
		kid_ready = ready[1];
		kid_main(l, what, arg, parent);
	}
	l->nkids++;
	*out = k;
	close(ready[1]);
	err = ts_read_ready(ready[0], &k->r, WAIT_MS);
	close(ready[0]);
	if (err)
		memset(&k->r, 0, sizeof(k->r));
	for (int i = 0; !err && i < k->r.n; i++)
		err = ts_wait_state(k->r.tid[i], k->state, WAIT_MS);
	if (!err && kinds[what].other)
		err = ts_wait_state(k->r.other, kinds[what].other, WAIT_MS);
	return err;
}

/* A pauser stopped by SIGSTOP: T. */
static int stopped(struct lab *l, struct kid **out)
{
	int err = spawn(l, PAUSER, 0, out);

	if (!err && kill((*out)->pid, SIGSTOP))
		err = -errno;
	if (!err)
		err = ts_wait_state((*out)->pid, 'T', WAIT_MS);
	if (!err)
		(*out)->state = 'T';
	return err;
}

/*
 * Attaches to the pauser @k with ptrace, from the test (outside the
 * cgroup): the SIGSTOP that PTRACE_ATTACH sends stops it for its tracer,
 * in TASK_TRACED: t. Return: 0, -EPERM if ptrace is not allowed, or -errno.
 */
static int trace(struct kid *k)
{
	pid_t got = 0;
	int status;

	if (ptrace(PTRACE_ATTACH, k->pid, NULL, NULL))
		return -errno;
	for (int ms = 0; !got && ms < WAIT_MS; ms++) {
		got = waitpid(k->pid, &status, WNOHANG | __WALL);
		if (!got)
			usleep(1000);
	}
	if (got != k->pid)
		return got < 0 ? -errno : -ETIMEDOUT;
	if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP)
		return -ECHILD;
	k->state = 't';
	return ts_wait_state(k->pid, 't', WAIT_MS);
}

/* Why ptrace was not allowed: for the skip. */
static const char *no_ptrace(void)
{
	char scope[16];

	if (ts_read_file("/proc/sys/kernel/yama/ptrace_scope", scope, sizeof(scope)) > 0 &&
	    scope[0] == '3')
		return "kernel.yama.ptrace_scope is 3: no process may ptrace, root neither";
	return "PTRACE_ATTACH to our own child is EPERM: an LSM forbids it";
}

/*
 * A writer blocked in sb_start_write() of the scratch file system, which
 * this freezes: in 6.12 percpu_rwsem_wait() sleeps TASK_UNINTERRUPTIBLE
 * until the thaw, D, not in I/O wait. The file system is the test's own,
 * so that freezing it stops nobody else.
 *
 * Return: 0, with the reason in *@why if no such task can be made here
 * (and none was), or -errno.
 */
static int frozen_writer(struct lab *l, struct kid **out, const char **why)
{
	int fd, err;

	err = ts_mess_frozen_file(l->mess, &fd, why);
	if (err || *why)
		return err;
	err = spawn(l, WRITER, fd, out);
	close(fd);
	return err;
}

/*
 * A reader of a disk that serves every request a second late (dm-delay):
 * its read waits for the page TASK_KILLABLE in io_schedule(), D, in I/O
 * wait, but for some microseconds a second between two reads.
 *
 * Return: as frozen_writer().
 */
static int slow_reader(struct lab *l, struct kid **out, const char **why)
{
	struct ts_disk *d = &l->mess->slow;
	int fd, err;

	*why = NULL;
	err = ts_disk_slow(d, 1 << 20, 1000);
	if (err == TS_DISK_CANNOT) {
		*why = d->why;
		return 0;
	}
	if (err)
		return err;
	fd = open(d->dev, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = spawn(l, READER, fd, out);
	close(fd);
	return err;
}

/* -------------------------------------------------------------- counts */

/* The counts of what the test made, in the states it waited for. */
static void made(const struct lab *l, struct cgroupstats *cs)
{
	memset(cs, 0, sizeof(*cs));
	for (int i = 0; i < l->nkids; i++) {
		const struct kid *k = &l->kids[i];

		for (int j = 0; j < k->r.n; j++)
			ts_count_state(cs, j ? kinds[k->kind].state : k->state, k->kind == READER);
		ts_count_state(cs, kinds[k->kind].other, false);
	}
}

static bool is_reader(const struct lab *l, pid_t tid)
{
	for (int i = 0; i < l->nkids; i++)
		if (l->kids[i].kind == READER && l->kids[i].pid == tid)
			return true;
	return false;
}

/*
 * Tallies the threads the cgroup lists by the state /proc shows for each,
 * a D as waiting for I/O if it is a slow-disk reader; "tid:state" of each
 * to @seen if not NULL. Return: 0, or -errno (-ESRCH: a thread was gone
 * by the time /proc was read).
 */
static int tally(const struct lab *l, struct cgroupstats *cs, char *seen, int size)
{
	char path[PATH_BUF + 16], buf[4096], *p, *end;
	int n, s, len = 0;
	long tid;

	memset(cs, 0, sizeof(*cs));
	if (seen)
		seen[0] = '\0';
	snprintf(path, sizeof(path), "%s/%s", l->mess->cgroup[0],
		 l->v1 ? "tasks" : "cgroup.threads");
	n = ts_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	for (p = buf; (tid = strtol(p, &end, 10)) > 0; p = end) {
		s = ts_proc_state(tid);
		if (s < 0)
			return s == -ENOENT ? -ESRCH : s;
		ts_count_state(cs, s, s == 'D' && is_reader(l, tid));
		if (seen && len < size)
			len += snprintf(seen + len, size - len, " %ld:%c", tid, s);
	}
	return 0;
}

/*
 * The check of every test: tallies the cgroup, asks for its counts and
 * tallies it again, until both tallies agree, the counts equal them and
 * they are what the test made (a reader is out of its wait for a moment
 * a second), TRIES times at most; then the counts must equal the tally,
 * and the tally what the test made.
 */
static void expect_tally(struct __test_metadata *_metadata, struct lab *l)
{
	struct cgroupstats want, before = { 0 }, after = { 0 }, cs = { 0 };
	char seen[1024] = "", buf[3][128];
	bool still = false;
	int i, n, err = 0;

	made(l, &want);
	for (i = 1; i <= TRIES; i++) {
		if (i > 1)
			usleep(RETRY_MS * 1000);
		err = tally(l, &before, NULL, 0);
		memset(&cs, 0xff, sizeof(cs));
		n = tsnl_cgroupstats(l->nl, l->family, l->dirfd, &cs);
		ASSERT_EQ(1, n) TH_LOG("no counts: %s", n ? strerror(-n) : "an ack alone");
		if (!err)
			err = tally(l, &after, seen, sizeof(seen));
		still = !err && ts_same_counts(&before, &after);
		if (still && ts_same_counts(&after, &cs) && ts_same_counts(&after, &want))
			break;
	}
	TH_LOG("threads (tid:state):%s", seen[0] ? seen : " none");
	TH_LOG("made:   %s", ts_show_counts(&want, buf[0], sizeof(buf[0])));
	TH_LOG("tally:  %s", ts_show_counts(&after, buf[1], sizeof(buf[1])));
	TH_LOG("counts: %s, at request %d", ts_show_counts(&cs, buf[2], sizeof(buf[2])),
	       i > TRIES ? TRIES : i);
	ASSERT_EQ(0, err) TH_LOG("tallying the cgroup: %s", strerror(-err));
	ASSERT_TRUE(still) TH_LOG("the threads never held still across a request");
	ts_expect_counts(_metadata, &after, &cs);
	ts_expect_counts(_metadata, &want, &after);
}

/* ------------------------------------------------------------- fixture */

FIXTURE(counts) {
	struct lab l;
};

FIXTURE_VARIANT(counts) {
	bool v1;		/* a directory of a named v1 hierarchy, not of v2 */
	const char *skip_why;	/* why a kernel without what it needs skips */
};

FIXTURE_VARIANT_ADD(counts, in_a_v2_cgroup) {
	.skip_why = TS_NO_DUMP "EINVAL for cgroup v2; counts by exact __state since 6.1",
};

/* 6.12 counts by exact __state; the fix at the head of the series by state. */
FIXTURE_VARIANT_ADD(counts, in_a_named_v1_cgroup) {
	.v1 = true,
	.skip_why = TS_UNFIXED "counts by exact __state since 6.1 (f5d39b020809)",
};

FIXTURE_SETUP(counts)
{
	struct timeval tv = { .tv_sec = WAIT_MS / 1000 };
	struct lab *l = &self->l;
	char root[PATH_BUF - 48], dir[PATH_BUF], tmp[] = "/tmp/ts_counts.XXXXXX";
	const char *parent = root;
	struct ts_mess *m;
	int err;

	l->v1 = variant->v1;
	l->nl = -1;
	l->dirfd = -1;
	if (geteuid())
		SKIP(return, "needs root: it makes and mounts cgroups and freezes a file system");
	if (variant->v1 ? ts_kernel_unfixed() : !ts_kernel_dumps())
		SKIP(return, "%s", variant->skip_why);
	l->nl = tsnl_open();
	ASSERT_LE(0, l->nl);
	/* An answer that never comes fails the test rather than hang it. */
	ASSERT_EQ(0, setsockopt(l->nl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	if (tsnl_family(l->nl, TASKSTATS_GENL_NAME, &l->family))
		SKIP(return, "no TASKSTATS family");
	m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, m);
	l->mess = m;
	ASSERT_EQ(0, ts_janitor_start(m));
	ASSERT_NE(NULL, mkdtemp(tmp));
	snprintf(m->tmp, sizeof(m->tmp), "%s", tmp);
	snprintf(m->file, sizeof(m->file), "%s/fifo", m->tmp);
	ASSERT_EQ(0, mkfifo(m->file, 0600));
	if (l->v1) {
		snprintf(m->v1, sizeof(m->v1), "%s/v1", m->tmp);
		ASSERT_EQ(0, mkdir(m->v1, 0755));
		if (mount("cgroup", m->v1, "cgroup", 0, "none,name=ts_counts"))
			SKIP(return, "cannot mount a named cgroup v1 hierarchy: %s",
			     strerror(errno));
		parent = m->v1;
	} else {
		err = ts_cgroup2_root(root, sizeof(root));
		if (err)
			SKIP(return, "no cgroup2 hierarchy to mount: %s", strerror(-err));
	}
	snprintf(dir, sizeof(dir), "%s/ts_counts_test.%d", parent, getpid());
	err = ts_mess_cgroup(m, dir);
	ASSERT_EQ(0, err) TH_LOG("%s: %s", dir, strerror(-err));
	l->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, l->dirfd);
}

FIXTURE_TEARDOWN(counts)
{
	struct lab *l = &self->l;

	if (!l->mess)
		return;
	ts_mess_thaw(l->mess);	/* first: a writer blocked by the freeze takes no signal */
	for (int i = 0; i < l->nkids; i++) {
		if (l->kids[i].kind == VFORKER && l->kids[i].r.other > 0)
			kill(l->kids[i].r.other, SIGKILL);
		kill(l->kids[i].pid, SIGKILL);
	}
	for (int i = 0; i < l->nkids; i++)
		reap(l->kids[i].pid);
	if (l->dirfd >= 0)
		close(l->dirfd);
	ts_mess_cleanup(l->mess);
	close(l->nl);
}

/* --------------------------------------------------------------- tests */

/*
 * nanosleep(2) and a futex wait sleep TASK_INTERRUPTIBLE | TASK_FREEZABLE:
 * S, as a sleep interruptible by a signal is, whatever else it allows.
 */
TEST_F(counts, freezable_sleepers_count_as_sleeping)
{
	struct kid *k;

	ASSERT_EQ(0, spawn(&self->l, NANOSLEEPER, 0, &k));
	ASSERT_EQ(0, spawn(&self->l, FUTEX_SERVER, 0, &k));
	expect_tally(_metadata, &self->l);
}

/* An idle pool: the leader and its seven workers wait on one futex word. */
TEST_F(counts, every_thread_of_a_futex_server_counts_as_sleeping)
{
	struct kid *k;

	ASSERT_EQ(0, spawn(&self->l, FUTEX_SERVER, WORKERS, &k));
	ASSERT_EQ(MAX_TIDS, k->r.n);
	expect_tally(_metadata, &self->l);
}

TEST_F(counts, tasks_waiting_in_read_epoll_select_or_a_fifo_open_count_as_sleeping)
{
	static const enum kind each[] = { PIPE_READER, EPOLLER, SELECTER, FIFO_OPENER };
	struct kid *k;

	for (int i = 0; i < (int)ARRAY_SIZE(each); i++) {
		int err = spawn(&self->l, each[i], 0, &k);

		ASSERT_EQ(0, err) TH_LOG("%s", kinds[each[i]].name);
	}
	expect_tally(_metadata, &self->l);
}

TEST_F(counts, a_task_stopped_by_sigstop_counts_as_stopped)
{
	struct kid *k;

	ASSERT_EQ(0, stopped(&self->l, &k));
	expect_tally(_metadata, &self->l);
}

TEST_F(counts, a_traced_task_counts_as_stopped)
{
	struct kid *k;
	int err;

	ASSERT_EQ(0, spawn(&self->l, PAUSER, 0, &k));
	err = trace(k);
	if (err == -EPERM)
		SKIP(return, "%s", no_ptrace());
	ASSERT_EQ(0, err);
	expect_tally(_metadata, &self->l);
}

/* A vfork(2) parent waits TASK_KILLABLE | TASK_FREEZABLE: D, no I/O wait. */
TEST_F(counts, a_vfork_parent_counts_as_uninterruptible_and_its_child_as_sleeping)
{
	struct kid *k;

	ASSERT_EQ(0, spawn(&self->l, VFORKER, 0, &k));
	expect_tally(_metadata, &self->l);
}

TEST_F_TIMEOUT(counts, a_writer_blocked_by_a_frozen_file_system_counts_as_uninterruptible, 60)
{
	const char *why;
	struct kid *k;

	ASSERT_EQ(0, frozen_writer(&self->l, &k, &why));
	if (why)
		SKIP(return, "%s", why);
	expect_tally(_metadata, &self->l);
}

TEST_F_TIMEOUT(counts, a_reader_waiting_for_a_slow_disk_counts_as_io_wait, 60)
{
	const char *why;
	struct kid *k;

	ASSERT_EQ(0, slow_reader(&self->l, &k, &why));
	if (why)
		SKIP(return, "%s", why);
	expect_tally(_metadata, &self->l);
}

/*
 * The child exited (Z) and its parent, which sleeps, does not reap it:
 * the cgroup no longer lists the zombie, and it counts nowhere.
 */
TEST_F(counts, a_zombie_counts_nowhere_and_its_sleeping_parent_as_sleeping)
{
	struct kid *k;

	ASSERT_EQ(0, spawn(&self->l, PARENT, 0, &k));
	expect_tally(_metadata, &self->l);
	EXPECT_EQ('Z', ts_proc_state(k->r.other)) TH_LOG("the zombie was reaped meanwhile");
}

TEST_F(counts, busy_loops_count_as_running)
{
	struct kid *k;

	ASSERT_EQ(0, spawn(&self->l, BUSY, 0, &k));
	ASSERT_EQ(0, spawn(&self->l, BUSY, 0, &k));
	expect_tally(_metadata, &self->l);
}

/*
 * Every kind at once: a task a field can miss or take twice shows in
 * the sum. Without a slow disk, a file system to freeze or ptrace, it
 * goes on without that task, saying so.
 */
TEST_F_TIMEOUT(counts, counts_equal_the_proc_state_of_every_thread_of_the_cgroup, 90)
{
	static const enum kind each[] = {
		NANOSLEEPER, PIPE_READER, EPOLLER, SELECTER, FIFO_OPENER,
		VFORKER, PARENT, BUSY, BUSY,
	};
	struct lab *l = &self->l;
	const char *why;
	struct kid *k;
	int err;

	ASSERT_EQ(0, frozen_writer(l, &k, &why));
	if (why)
		TH_LOG("without a writer blocked by a frozen file system: %s", why);
	ASSERT_EQ(0, slow_reader(l, &k, &why));
	if (why)
		TH_LOG("without a reader of a slow disk: %s", why);
	ASSERT_EQ(0, spawn(l, FUTEX_SERVER, WORKERS, &k));
	for (int i = 0; i < (int)ARRAY_SIZE(each); i++) {
		err = spawn(l, each[i], 0, &k);
		ASSERT_EQ(0, err) TH_LOG("%s", kinds[each[i]].name);
	}
	ASSERT_EQ(0, stopped(l, &k));
	ASSERT_EQ(0, spawn(l, PAUSER, 0, &k));
	err = trace(k);
	if (err == -EPERM)
		TH_LOG("without a traced task, a sleeping one: %s", no_ptrace());
	ASSERT_TRUE(!err || err == -EPERM) TH_LOG("ptrace: %s", strerror(-err));
	expect_tally(_metadata, l);
}

TEST_HARNESS_MAIN
