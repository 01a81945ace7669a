// SPDX-License-Identifier: GPL-2.0
/*
 * The world of a cgroup test: its kids, its background process, its
 * teardown, and the counts and dumps it asks of a cgroup. See
 * cgroup_world.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "agent.h"
#include "cgroup_world.h"
#include "janitor.h"
#include "tsnl.h"

/* The root of the cgroup2 hierarchy, wherever it is mounted. */
char cgroup_root[PATH_BUF - 48];

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
int spawn(struct world *w, const struct spec *s, struct kid **out)
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
int sleeper(struct world *w, const char *cgroup, int threads,
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
int churn_start(struct world *w)
{
	pid_t pid = background_fork(w);

	if (pid == 0)
		fork_exit_forever(&w->shared->forks);
	return pid < 0 ? pid : 0;
}

/* Waits at most WAIT_MS for the churner's or the mover's count @c to start. */
int wait_started(const unsigned long *c)
{
	for (int ms = 0; !__atomic_load_n(c, __ATOMIC_RELAXED); ms++) {
		if (ms == WAIT_MS)
			return -ETIMEDOUT;
		usleep(1000);
	}
	return 0;
}

/*
 * Moves the @n processes of @pids from cgroup @a to @b and back, one at a
 * time, until killed.
 */
int mover_start(struct world *w, const pid_t *pids, int n,
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

/* Thaws, kills and reaps what the test made, removes its cgroups. */
void world_teardown(struct world *w)
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

/* Kills and reaps every kid; the teardown has none left to kill. */
void reap_kids(struct world *w)
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

/* -------------------------------------------------------------- counts */

/* The counts of the cgroup whose directory @fd is open on; 1 if answered. */
int counts(struct world *w, int fd, struct cgroupstats *cs)
{
	memset(cs, 0xff, sizeof(*cs));
	return tsnl_cgroupstats(w->nl, w->family, fd, cs);
}

/* --------------------------------------------------------------- dumps */

/* The records of the last dump a test made. */
struct recs got;

void keep(uint32_t id, int aggr, const struct taskstats *ts, void *arg)
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
int dump(struct world *w, int fd, int flags, struct recs *g)
{
	g->n = 0;
	g->dropped = 0;
	return tsnl_dump_cgroup(w->nl, w->family, fd, flags, keep, g);
}
