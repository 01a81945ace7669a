// SPDX-License-Identifier: GPL-2.0
/*
 * What a phase names in its requests, looked up before the first draw:
 * its helper tasks (a zombie, an idle thread, a spawner of short-lived
 * children), kernel threads, cgroup fds, and the tasks whose cgroup a
 * cgroup's dump must respect.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/taskstats.h>

#include "tsnl.h"
#include "fuzz.h"

#define KTHREAD_FLAG	0x00200000UL	/* PF_KTHREAD, field 9 of stat */

static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	return got;
}

/* -------------------------------------------------------------- helpers */

static void *idle_thread(void *arg)
{
	int *fds = arg;
	__u32 tid = syscall(SYS_gettid);

	if (write(fds[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	for (;;)
		pause();
	return NULL;
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

/* A short-lived child of the spawner: sometimes with a second thread. */
static void ephemeral(__u64 r)
{
	pthread_t t;

	if (!(r & 3))
		pthread_create(&t, NULL, sleeper, NULL);
	usleep((r >> 8) % 3000);
	_exit(0);
}

/*
 * Forks short-lived children for as long as @parent lives and writes
 * their pids to @wfd (non-blocking: when nobody reads, pids are lost).
 */
static void spawner(int wfd, pid_t parent, __u64 seed)
{
	int live = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	fcntl(wfd, F_SETFL, O_NONBLOCK);
	rng_state = seed;
	while (getppid() == parent) {
		__u64 r = rnd();
		pid_t pid;

		while (waitpid(-1, NULL, WNOHANG) > 0)
			live--;
		pid = live < 4 ? fork() : -1;
		if (pid == 0)
			ephemeral(r);
		if (pid > 0) {
			__u32 v = pid;

			live++;
			if (write(wfd, &v, sizeof(v)) != sizeof(v))
				v = 0;
		}
		usleep(2000 + (r >> 16) % 8000);
	}
	_exit(0);
}

/* Takes the pids the spawner passed on into the ring of exiting tasks. */
void refill_exiting(struct fuzz *f)
{
	struct targets *t = &f->t;
	__u32 pids[NR_EXITING];
	ssize_t n;
	int i;

	if (t->spawn_fd < 0)
		return;
	n = read(t->spawn_fd, pids, sizeof(pids));
	for (i = 0; i < n / (ssize_t)sizeof(pids[0]); i++) {
		t->exiting[t->exit_head++ % NR_EXITING] = pids[i];
		if (t->nr_exiting < NR_EXITING)
			t->nr_exiting++;
	}
}

/* A few kernel threads, by PF_KTHREAD in field 9 of /proc/PID/stat. */
static void find_kthreads(struct targets *t)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int scanned = 0;

	if (!d)
		return;
	while ((e = readdir(d)) && t->nr_kthread < NR_KTHREAD && scanned < 4096) {
		char path[300], buf[1024];
		unsigned long flags;
		char *p;
		int i;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		scanned++;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (read_file(path, buf, sizeof(buf)) < 0)
			continue;
		p = strrchr(buf, ')');
		/* after ") ": state ppid pgrp session tty_nr tpgid flags */
		for (i = 0; p && i < 7; i++)
			p = strchr(p + 1, ' ');
		if (!p)
			continue;
		flags = strtoul(p + 1, NULL, 10);
		if (flags & KTHREAD_FLAG)
			t->kthread[t->nr_kthread++] = strtoul(e->d_name, NULL, 10);
	}
	closedir(d);
}

/* An fd number surely closed: high, and this process opens few files. */
static int closed_fd(void)
{
	int fd;

	for (fd = 900; fd < 1000; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
			return fd;
	return INT_MAX;
}

static void open_cgroup_fds(struct targets *t)
{
	int i;

	t->cg_fd[CG_CLOSED] = closed_fd();
	t->cg_fd[CG_OPATH] = open(V2_ROOT, O_PATH | O_CLOEXEC);
	t->cg_fd[CG_FILE] = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
	if (t->cg_fd[CG_FILE] < 0)
		t->cg_fd[CG_FILE] = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	t->cg_fd[CG_TMP] = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t->cg_fd[CG_V2] = open(V2_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t->cg_fd[CG_V2CHILD] = open(V2_CHILD, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t->cg_fd[CG_V2SUB] = open(V2_SUB, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t->cg_fd[CG_V2GONE] = v2_gone_fd;	/* the parent's, inherited */
	t->cg_fd[CG_V1ROOT] = open(V1_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t->cg_fd[CG_V1CHILD] = open(V1_CHILD, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; i < CG_NR; i++) {
		if (t->cg_fd[i] < 0)
			t->cg_fd[i] = t->cg_fd[CG_CLOSED];
		t->cg_class[i] = fd_probe(t->cg_fd[i]);
	}
	/* Only the parent knows it is removed: to fstat() it is a cgroup's. */
	if (t->cg_fd[CG_V2GONE] != t->cg_fd[CG_CLOSED] &&
	    t->cg_class[CG_V2GONE] == FDC_V2)
		t->cg_class[CG_V2GONE] = FDC_GONE;
	t->sub_one = v2_sub_one && t->cg_class[CG_V2SUB] == FDC_V2;
	/* The ids records name them by, and the nodes of watched tasks. */
	for (i = CG_V2; i <= CG_V2SUB; i++)
		if (t->cg_class[i] == FDC_V2)
			t->cg_id[i] = ts_cgroup_id_at(t->cg_fd[i], "");
	t->node_id[NODE_ROOT] = t->cg_id[CG_V2];
	t->node_id[NODE_CHILD] = t->cg_id[CG_V2CHILD];
	t->node_id[NODE_SUB] = t->cg_id[CG_V2SUB];
}

/* Where task @id is in the cgroup v2 hierarchy, by /proc/@id/cgroup. */
static __u8 task_node(__u32 id)
{
	char path[40], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%u/cgroup", id);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return NODE_UNKNOWN;
	/* The v2 line is "0::PATH", the first or after v1's "N:...:PATH". */
	p = !strncmp(buf, "0::", 3) ? buf : strstr(buf, "\n0::");
	if (!p)
		return NODE_UNKNOWN;
	p += *p == '\n' ? 4 : 3;
	p[strcspn(p, "\n")] = '\0';
	if (!strcmp(p, "/"))
		return NODE_ROOT;
	if (!strcmp(p, V2_CHILD + strlen(V2_ROOT)))
		return NODE_CHILD;
	if (!strcmp(p, V2_SUB + strlen(V2_ROOT)))
		return NODE_SUB;
	if (!strncmp(p, V2_CHILD + strlen(V2_ROOT), strlen(V2_CHILD) - strlen(V2_ROOT)))
		return NODE_UNKNOWN;	/* ts-fuzz*: another run's */
	return NODE_OUT;
}

/*
 * Watches task @id in cgroup dumps: it must be listed where it is, if
 * @must (it is readable there), and nowhere else. Only a task that
 * stays in one cgroup through the phase, as every one watched does.
 */
static void watch_task(struct targets *t, __u32 id, bool thread, bool must)
{
	struct watch *w = &t->watch[t->nr_watch];

	if (!id || t->nr_watch == NR_WATCH || t->cg_class[CG_V2] != FDC_V2 ||
	    !v2_paths_ok)
		return;
	w->id = id;
	w->node = task_node(id);
	w->thread = thread;
	w->must = must;
	if (w->node != NODE_UNKNOWN)
		t->nr_watch++;
}

/* Values a dry run names instead of looking them up. */
void dry_targets(struct fuzz *f)
{
	struct targets *t = &f->t;
	int i;

	t->self = 100;
	t->thread = 101;
	t->parent = 1;
	t->zombie = 102;
	t->spawner = 103;
	t->pid_max = 32768;
	for (i = 0; i < 4; i++)
		t->kthread[i] = 2 + i;
	t->nr_kthread = 4;
	t->spawn_fd = -1;
	for (i = 0; i < CG_NR; i++) {
		t->cg_fd[i] = 3 + i;
		t->cg_class[i] = FDC_ANY;
	}
	t->cg_fd[CG_CLOSED] = 900;
	t->bad_family[0] = 0x7ffe;
	t->nr_bad_family = 1;
	snprintf(t->possible, sizeof(t->possible), "0-1");
	f->family = 0x15;
	/* The series' latest kernel: every branch of the predictor. */
	f->series = true;
	f->cgids = true;
	f->get_maxattr = GET_MAXATTR;
	printf("# dry run: family id 0x%x and pids are placeholders\n", f->family);
}

/*
 * Everything a phase names: looked up here, before the first draw, so
 * that they change values but never the stream.
 */
int setup_targets(struct fuzz *f, const struct opts *o, pid_t *spawn)
{
	struct targets *t = &f->t;
	int fds[2], id, len;
	pthread_t th;
	char buf[64];
	pid_t pid;

	t->self = getpid();
	t->parent = getppid();
	t->spawn_fd = -1;
	t->pid_max = 32768;
	if (read_file("/proc/sys/kernel/pid_max", buf, sizeof(buf)) > 0)
		t->pid_max = strtoul(buf, NULL, 10);
	len = read_file("/sys/devices/system/cpu/possible", t->possible,
			sizeof(t->possible));
	if (len <= 0)
		snprintf(t->possible, sizeof(t->possible), "0");
	else
		t->possible[strcspn(t->possible, "\n")] = '\0';
	find_kthreads(t);
	open_cgroup_fds(t);

	id = resolve_family();
	if (id < 0) {
		violation(f, NULL, NULL, "the %s phase cannot resolve TASKSTATS: %s",
			  phase_name[f->phase], strerror(-id));
		return -1;
	}
	f->family = id;
	/*
	 * Upstream's policy ends before TASKSTATS_CMD_ATTR_DUMP_TGID: there
	 * the attribute is ignored, whatever its size, like any unknown one.
	 * The series' policy ends at DUMP_SUBTREE before issue 48, at
	 * CGROUP_ID since: the GET op's policy says which (CTRL_CMD_GETPOLICY).
	 */
	f->series = ts_kernel_dumps();
	f->unfixed = ts_kernel_unfixed();
	f->cgids = f->series && ts_kernel_cgroup_ids();
	f->get_maxattr = !f->series ? TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK :
			 f->cgids ? TASKSTATS_CMD_ATTR_CGROUP_ID :
			 TASKSTATS_CMD_ATTR_DUMP_SUBTREE;
	printf("# %s: %s kernel%s\n", phase_name[f->phase],
	       f->series ? "the series'" : "upstream's",
	       f->series ? f->cgids ? ", with cgroup ids and cgroup listeners" :
	       ", without cgroup ids (before issue 48)" : "");
	if (id != o->family)
		printf("# %s: family id %d here, %d in the parent\n",
		       phase_name[f->phase], id, o->family);
	probe_bad_families(t);

	/* A zombie: a child that exited and is never reaped. */
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(0);
	t->zombie = pid > 0 ? pid : 0;

	if (pipe(fds) == 0) {
		*spawn = fork();
		if (*spawn == 0) {
			close(fds[0]);
			spawner(fds[1], t->self, rng_state ^ 0x5bd1e995);
		}
		close(fds[1]);
		fcntl(fds[0], F_SETFL, O_NONBLOCK);
		t->spawn_fd = fds[0];
		t->spawner = *spawn > 0 ? *spawn : 0;
		if (f->phase == PH_ROOT && *spawn > 0) {
			snprintf(buf, sizeof(buf), "%d", *spawn);
			write_file(V1_CHILD "/cgroup.procs", buf);
			write_file(V2_CHILD "/cgroup.procs", buf);
		}
	}

	/* A thread of our own, forked nothing after it. */
	if (pipe(fds) == 0 && !pthread_create(&th, NULL, idle_thread, fds) &&
	    read_full(fds[0], &t->thread, sizeof(t->thread)) != sizeof(t->thread))
		t->thread = t->self;
	if (!t->thread)
		t->thread = t->self;

	/*
	 * Tasks whose cgroup a cgroup's dump must respect: ourselves, which
	 * we may always read, and as root the spawner and the resident (in
	 * the container, the resident has no pid; as nobody it is not ours
	 * to read, and the spawner stays where we are).
	 */
	watch_task(t, t->self, false, true);
	if (t->thread != t->self)
		watch_task(t, t->thread, true, true);
	watch_task(t, t->spawner, false, f->phase == PH_ROOT);
	if (f->phase != PH_CONTAINER)
		watch_task(t, resident, false, f->phase == PH_ROOT);
	return 0;
}
