// SPDX-License-Identifier: GPL-2.0
/*
 * taskstat top - every task, or those of one cgroup, with what each did
 * over the last interval: CPU %, each delay as % of the interval, I/O
 * per second; on a terminal an ncurses screen that takes keys, else
 * plain text frames (batch) or JSON Lines.
 *
 * Records come from a TASKSTATS_CMD_GET dump (NLM_F_DUMP) where the kernel
 * has one, else from one GET per task found in /proc. With --cgroup, from
 * a dump of that cgroup (TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD), else from one
 * GET per task its directory lists (cgroup.threads; on cgroup v1 tasks).
 * They are always PID records, one per thread: a thread group's row (-P)
 * sums its threads', since a TGID record carries no I/O counters.
 *
 * A frame needs two samples: the first is taken, then after a short wait
 * (the interval, at most 1 s) the second, so that even the first frame
 * shows rates. An exit listener (every CPU, or the cgroup's) hears the
 * tasks that exit between samples; each is shown once, with what it did
 * since the last sample, and counted in the totals.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <locale.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <curses.h>
#include <linux/cgroupstats.h>
#include <linux/genetlink.h>

#include "top.h"

static const char usage_top[] =
	"usage: taskstat top [-d SECONDS] [-n ITERATIONS] [-s KEY] [-P] [-o] [-b] [-l N]\n"
	"                    [--once] [--cgroup PATH [--subtree]] [--json] [-v]\n"
	"\n"
	"Shows every task, or those of one cgroup, with what it did over the last\n"
	"interval: CPU % (of one CPU), each delay as % of the interval, I/O per\n"
	"second. On a terminal a screen that takes keys (h for help); otherwise, or\n"
	"with -b, plain text frames separated by a blank line.\n"
	"  -d, --delay SECONDS     interval between frames (default 2); the first\n"
	"                          frame comes after min(SECONDS, 1)\n"
	"  -n, --iterations N      stop after N frames (default: until q or SIGINT)\n"
	"  -s, --sort KEY          sort by KEY, largest first (default: cpu-delay):\n"
	"                          cpu cpu-delay blkio swapin freepages thrashing\n"
	"                          compact memory wpcopy irq io read write\n"
	"  -P, --processes         one row per thread group: its threads summed\n"
	"  -o, --active            only tasks with CPU time, a delay or I/O\n"
	"  -b, --batch             plain text even on a terminal\n"
	"  -l, --limit N           at most N rows per frame\n"
	"      --once              one frame in batch mode: same as -b -n 1\n"
	"      --cgroup PATH       only the tasks in the cgroup whose directory is\n"
	"                          PATH (v2 or v1), from one dump of that cgroup;\n"
	"                          on a kernel without it, one GET per task listed\n"
	"                          in PATH/cgroup.threads (v1: tasks)\n"
	"      --subtree           with --cgroup: and those of its descendants\n"
	"      --json              JSON Lines: one object per task and frame\n"
	"  -v, --verbose           say how the records were collected\n"
	"Tasks that exited during an interval are shown once, marked X, and\n"
	"counted in the totals (needs CAP_NET_ADMIN for the exit listener).\n";

static const char help_keys[] =
	"taskstat top - keys (any key returns)\n"
	"\n"
	"  q            quit\n"
	"  h ?          this help\n"
	"  c d b m i    sort by CPU, cpu delay, blkio delay, memory delays\n"
	"               (swapin+freepages+thrashing+compact), I/O (read+write)\n"
	"  < > s        sort by the previous / next key (s: next)\n"
	"  r            reverse the order (smallest first)\n"
	"  p            one row per task (thread)\n"
	"  P            one row per thread group (process), or back per task\n"
	"  o            only tasks active in the interval, or all\n"
	"  Up Down      scroll a row      PgUp PgDn   scroll a page\n"
	"  Home End     first / last rows\n"
	"  + -          double / halve the interval (0.1 to 3600 s)\n"
	"  space        take a sample now\n"
	"\n"
	"Columns: CPU% of one CPU; delays (CPUDLY BLKIO SWAPIN FREEPG THRASH\n"
	"COMPACT MEMDLY WPCOPY IRQ) as % of the interval; READ/s WRITE/s storage\n"
	"I/O, RCHAR/s WCHAR/s read(2)/write(2) bytes; CSW/s context switches,\n"
	"IOW/s block I/O waits, MAJFL/s major faults; X: exited in the interval;\n"
	"THR: threads of a thread group. '*' marks the sort column; wider screens\n"
	"show more columns.\n";

void snap_add(struct snap *s, const struct record *r)
{
	s->recs = grow_array(s->recs, s->n, &s->cap, sizeof(*s->recs), 256);
	s->recs[s->n++] = *r;
}

static int cmp_id(const void *a, const void *b)
{
	const struct record *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The record of @r's id in @s (sorted by id), or NULL; @s may be NULL. */
const struct record *snap_find(const struct snap *s, const struct record *r)
{
	if (!s || !s->n)
		return NULL;
	return bsearch(r, s->recs, s->n, sizeof(*r), cmp_id);
}

/* Without libm: the Makefile does not link it. */
static double dmin(double a, double b)
{
	return a < b ? a : b;
}

static double dmax(double a, double b)
{
	return a > b ? a : b;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

struct collect {
	struct snap *snap;
	int cgfd;		/* --cgroup: its directory, else -1 */
	int cgver;		/* and the cgroup version of its file system, or 0 */
	const char *cgpath;
	bool subtree;
	const char *list;	/* the file of PATH listing the tasks, for GETs */
	enum ctx ctx;		/* what failed, for report() */
	char what[PATH_MAX + 64];
	char said[256];		/* the dump's NLMSG_DONE message: tasks it skipped */
};

static void collect_record(const struct record *r, void *data)
{
	struct collect *col = data;

	if (r->aggr == TASKSTATS_TYPE_AGGR_PID && r->len)
		snap_add(col->snap, r);
}

/* Every record of a message: a dump's and a GET's hold one each. */
static int dump_cb(const struct nlmsghdr *h, void *data)
{
	walk_records(h, collect_record, data);
	return MNL_CB_OK;
}

static int collect_dump(struct nl *nl, struct collect *col)
{
	struct nlmsghdr *h = nl_request(nl, nl->family, TASKSTATS_CMD_GET, NLM_F_DUMP);
	int err;

	nl_put_ids(nl, h);
	if (col->cgfd >= 0) {
		mnl_attr_put_u32(h, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, col->cgfd);
		if (col->subtree)
			mnl_attr_put(h, TASKSTATS_CMD_ATTR_DUMP_SUBTREE, 0, NULL);
		snprintf(col->what, sizeof(col->what), "TASKSTATS dump of cgroup %s",
			 col->cgpath);
	} else {
		snprintf(col->what, sizeof(col->what), "TASKSTATS dump");
	}
	col->ctx = CTX_DUMP;
	err = nl_talk(nl, h, dump_cb, col);
	snprintf(col->said, sizeof(col->said), "%s", err ? "" : nl_kernel_msg());
	return err;
}

/* One GET of a task; one that is gone by now is skipped. */
static int get_one(struct nl *nl, struct collect *col, unsigned int id)
{
	int err = nl_get(nl, TASKSTATS_CMD_ATTR_PID, id, dump_cb, col);

	if (err && err != -ESRCH) {
		col->ctx = CTX_TASK;
		snprintf(col->what, sizeof(col->what), "GET pid %u", id);
		return err;
	}
	return 0;
}

static bool numeric(const char *s, unsigned int *id)
{
	unsigned long long v;

	if (!parse_uint(s, UINT32_MAX, &v))
		return false;
	*id = v;
	return true;
}

/* The fallback: every thread of every process in /proc. */
static int collect_get(struct nl *nl, struct collect *col)
{
	DIR *proc = opendir("/proc"), *task;
	struct dirent *p, *t;
	char path[64];
	unsigned int pid, tid;
	int err = 0;

	col->ctx = CTX_TASK;
	snprintf(col->what, sizeof(col->what), "reading /proc");
	if (!proc)
		return -errno;
	while (!err && (p = readdir(proc))) {
		if (!numeric(p->d_name, &pid))
			continue;
		snprintf(path, sizeof(path), "/proc/%u/task", pid);
		task = opendir(path);
		if (!task)
			continue;
		while (!err && (t = readdir(task)))
			if (numeric(t->d_name, &tid))
				err = get_one(nl, col, tid);
		closedir(task);
	}
	closedir(proc);
	return err;
}

struct ids {
	unsigned int *v;
	size_t n, cap;
};

static void ids_add(struct ids *ids, unsigned int id)
{
	ids->v = grow_array(ids->v, ids->n, &ids->cap, sizeof(*ids->v), 64);
	ids->v[ids->n++] = id;
}

/*
 * The ids in the file @name of the cgroup directory @dirfd.
 */
static int read_ids(int dirfd, const char *name, struct ids *ids)
{
	int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC), err = 0;
	unsigned int id;
	FILE *f;

	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f) {
		err = -errno;
		close(fd);
		return err;
	}
	errno = 0;
	while (fscanf(f, "%u", &id) == 1)
		if (id)
			ids_add(ids, id);
	if (ferror(f))
		err = errno ? -errno : -EIO;
	fclose(f);
	return err;
}

/*
 * The ids listed in @col->list of the cgroup directory @dirfd and, with
 * --subtree, of every cgroup below it. A child removed meanwhile is
 * skipped; the cgroup named itself removed is ENOENT.
 */
static int cgroup_ids(struct collect *col, int dirfd, bool top, struct ids *ids)
{
	int err = read_ids(dirfd, col->list, ids), fd;
	struct dirent *d;
	DIR *dir;

	if (err == -ENOENT && !top)
		return 0;
	if (err || !col->subtree)
		return err;
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	dir = fd < 0 ? NULL : fdopendir(fd);
	if (!dir) {
		err = -errno;
		if (fd >= 0)
			close(fd);
		return top || err != -ENOENT ? err : 0;
	}
	while (!err && (d = readdir(dir))) {
		int child;

		if (d->d_type != DT_DIR || !strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		child = openat(dirfd, d->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (child < 0) {
			if (errno != ENOENT)
				err = -errno;
			continue;
		}
		err = cgroup_ids(col, child, false, ids);
		close(child);
	}
	closedir(dir);
	return err;
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return x < y ? -1 : x > y;
}

/*
 * The fallback of --cgroup: one GET per task the cgroup's directory
 * lists, each once.
 */
static int collect_cgroup_get(struct nl *nl, struct collect *col)
{
	struct ids ids = { 0 };
	int err;

	col->ctx = CTX_DUMP;
	if (!col->cgver) {	/* not a cgroup directory: as the kernel says */
		snprintf(col->what, sizeof(col->what), "%s", col->cgpath);
		return -EINVAL;
	}
	snprintf(col->what, sizeof(col->what), "reading %s/%s", col->cgpath, col->list);
	err = cgroup_ids(col, col->cgfd, true, &ids);
	if (!err && ids.n)
		qsort(ids.v, ids.n, sizeof(*ids.v), cmp_uint);
	for (size_t i = 0; !err && i < ids.n; i++)
		if (!i || ids.v[i] != ids.v[i - 1])
			err = get_one(nl, col, ids.v[i]);
	free(ids.v);
	return err;
}

/*
 * The exit listener: every CPU's, or with --cgroup the cgroup's. Opened
 * before the first sample, so that no exit after it is missed; drained
 * whenever it has records (between frames too, so that its socket
 * buffer rarely overflows), and settled at each frame.
 */
struct exits {
	struct nl nl;
	bool on;		/* else why[] says why not */
	bool lost;		/* records were lost since the last frame */
	char why[160];
	char cpus[1024];
	struct snap pending;	/* heard; their tasks were in the last sample */
	struct snap done;	/* counted in this frame */
};

/*
 * Registers the listener. For a cgroup it needs a kernel with cgroup
 * listeners (one without them would send every exit) and a v2 directory.
 * Without a listener top still shows the rows; a note says why exits are
 * not counted.
 */
static void exits_open(struct exits *ex, const struct collect *col)
{
	struct listener l = { .cpus = ex->cpus, .cgfd = col->cgfd, .subtree = col->subtree };
	int err = 1;

	nl_open(&ex->nl);
	possible_cpus(ex->cpus, sizeof(ex->cpus));
	if (col->cgfd >= 0)
		err = nl_cgroup_ids(&ex->nl);
	if (err <= 0) {
		snprintf(ex->why, sizeof(ex->why), "%s",
			 err ? "the kernel cannot list its TASKSTATS policy" :
			       "this kernel has no cgroup listeners");
	} else if (col->cgfd >= 0 && col->cgver != 2) {
		snprintf(ex->why, sizeof(ex->why), "a listener needs a cgroup v2 directory");
	} else {
		err = nl_register(&ex->nl, &l);
		if (err)
			snprintf(ex->why, sizeof(ex->why), "registering a listener: %s%s",
				 strerror(-err), err == -EPERM ? ", needs CAP_NET_ADMIN" : "");
		/* Drained when poll() says so, never waited for. */
		else if (fcntl(mnl_socket_get_fd(ex->nl.sock), F_SETFL, O_NONBLOCK))
			snprintf(ex->why, sizeof(ex->why), "%s", strerror(errno));
		else
			ex->on = true;
	}
	if (!ex->on) {
		nl_close(&ex->nl);
		if (opt_json || opt_verbose)
			fprintf(stderr, "taskstat: tasks that exit are not counted: %s\n", ex->why);
	} else if (opt_verbose) {
		fprintf(stderr, "taskstat: counting the tasks that exit with a listener on %s\n",
			col->cgfd >= 0 ? col->cgpath : "every CPU");
	}
}

static void exits_close(struct exits *ex)
{
	if (ex->on)
		nl_deregister(&ex->nl, ex->cpus);
	nl_close(&ex->nl);
	free(ex->pending.recs);
	free(ex->done.recs);
}

/* A task's exit record: a row counts tasks, so a group's TGID record is not kept. */
static void exit_record(const struct record *r, void *data)
{
	struct record e = *r;

	if (r->aggr != TASKSTATS_TYPE_AGGR_PID || !r->len)
		return;
	e.exited = true;
	snap_add(data, &e);
}

static int exit_cb(const struct nlmsghdr *h, void *data)
{
	walk_records(h, exit_record, data);
	return MNL_CB_OK;
}

/* Reads every exit record queued; the socket does not block. */
static void exits_drain(struct exits *ex)
{
	if (!ex->on)
		return;
	for (;;) {
		int len = mnl_socket_recvfrom(ex->nl.sock, ex->nl.buf, sizeof(ex->nl.buf));

		if (len > 0)
			/* Exit records are not answers: any sequence, port 0. */
			mnl_cb_run(ex->nl.buf, len, 0, 0, exit_cb, &ex->pending);
		else if (len < 0 && errno == ENOBUFS)
			ex->lost = true;
		else if (len == 0 || errno != EINTR)
			return;		/* EAGAIN: none left */
	}
}

/*
 * Keeps pending the exits heard of tasks still in the sample @s; moves
 * those of tasks gone from it to @gone, or drops them if @gone is NULL.
 */
static void exits_split(struct exits *ex, const struct snap *s, struct snap *gone)
{
	size_t keep = 0;

	exits_drain(ex);
	for (size_t i = 0; i < ex->pending.n; i++) {
		const struct record *e = &ex->pending.recs[i], *live = snap_find(s, e);

		if (live && same_task(live, e))
			ex->pending.recs[keep++] = *e;
		else if (gone)
			snap_add(gone, e);
	}
	ex->pending.n = keep;
}

/*
 * After the first sample: an exit heard so far of a task not in it came
 * before the first interval, and is not counted.
 */
static void exits_forget_unseen(struct exits *ex, const struct snap *first)
{
	exits_split(ex, first, NULL);
	ex->lost = false;
}

/*
 * Adds to the frame each task heard exiting that is gone from the
 * sample @cur, with its change since @prev. One still in @cur (a zombie,
 * or one that exited after the collection read it) waits: its row counts
 * what it did until the sample it is gone from, which counts the rest.
 */
static void exits_settle(struct exits *ex, struct frame *fr, const struct snap *cur,
			 const struct snap *prev)
{
	ex->done.n = 0;
	exits_split(ex, cur, &ex->done);
	/* Only now: frame_add() keeps pointers into done, which snap_add() moves. */
	for (size_t i = 0; i < ex->done.n; i++)
		frame_add(fr, &ex->done.recs[i], prev);
}

/*
 * The pressure stall information of the system, or of the cgroup of
 * --cgroup: the some and full averages over 10, 60 and 300 s of cpu, io,
 * memory and irq. A kernel without PSI (or a v1 cgroup) has none.
 */
static void read_psi(struct frame *fr, int cgfd)
{
	static const char * const res[NPSI] = { "cpu", "io", "memory", "irq" };

	fr->psi_cgroup = cgfd >= 0;
	for (size_t i = 0; i < NPSI; i++) {
		struct psi *p = &fr->psi[i];
		char path[64], buf[256], *line, *save = NULL;
		ssize_t len;
		int fd;

		memset(p, 0, sizeof(*p));
		p->res = res[i];
		if (cgfd >= 0) {
			snprintf(path, sizeof(path), "%s.pressure", res[i]);
			fd = openat(cgfd, path, O_RDONLY | O_CLOEXEC);
		} else {
			snprintf(path, sizeof(path), "/proc/pressure/%s", res[i]);
			fd = open(path, O_RDONLY | O_CLOEXEC);
		}
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char kind[8];
			double a[3];
			int k;

			if (sscanf(line, "%7s avg10=%lf avg60=%lf avg300=%lf", kind, &a[0], &a[1],
				   &a[2]) != 4)
				continue;
			k = !strcmp(kind, "full");
			if (!k && strcmp(kind, "some"))
				continue;
			*(k ? &p->full : &p->some) = true;
			memcpy(p->avg[k], a, sizeof(a));
		}
	}
}

struct top {
	struct nl nl;
	struct exits ex;
	struct collect col;
	struct snap snaps[2];
	int cur;		/* snaps[cur] is the newest sample */
	bool decided, dump;	/* dump or GETs: chosen at the first sample */
	struct view v;
	struct frame fr;
	struct row *rows;
	size_t nrows, total;
	struct text text;
	bool tui, batch, help;
	int width;		/* batch: the width of a line; -1: every column */
	unsigned long long iters;
	char via[PATH_MAX + 320];
	char cgcounts[256];
};

/* Collects one sample; the first time, chooses between dump and GETs. */
static int collect(struct top *t)
{
	struct collect *col = &t->col;
	bool cg = col->cgfd >= 0;
	int err;

	if (!t->decided || t->dump) {
		err = collect_dump(&t->nl, col);
		/*
		 * A kernel without the dump answers EOPNOTSUPP (or EINVAL);
		 * one with it EINVAL for a directory that is not a cgroup's,
		 * which the file system tells apart.
		 */
		if (t->decided || (err != -EOPNOTSUPP && (err != -EINVAL || (cg && !col->cgver)))) {
			if (opt_verbose && !t->decided && !err)
				fprintf(stderr,
					"taskstat: collecting with the TASKSTATS dump%s%s%s\n",
					cg ? " of cgroup " : "", cg ? col->cgpath : "",
					cg && col->subtree ? " and its descendants" : "");
			t->dump = true;
			t->decided = true;
			return err;
		}
		if (opt_verbose && cg)
			fprintf(stderr,
				"taskstat: the kernel has no TASKSTATS dump of one cgroup (%s): one GET per task listed in %s/%s%s\n",
				strerror(-err), col->cgpath, col->list,
				col->subtree ? " and in that of each descendant" : "");
		else if (opt_verbose)
			fprintf(stderr,
				"taskstat: the kernel has no TASKSTATS dump (%s): one GET per task from /proc\n",
				strerror(-err));
		t->decided = true;
		t->dump = false;
		col->snap->n = 0;
	}
	return cg ? collect_cgroup_get(&t->nl, col) : collect_get(&t->nl, col);
}

/* A new sample in snaps[cur], sorted by id; 0 or -errno. */
static int sample(struct top *t)
{
	struct snap *s = &t->snaps[t->cur];
	int err;

	s->n = 0;
	s->t = now_s();
	t->col.snap = s;
	err = collect(t);
	if (!err)
		qsort(s->recs, s->n, sizeof(*s->recs), cmp_id);
	return err;
}

/* What line 1 says of how the records came: "dump", "GET per task" ... */
static void describe_via(struct top *t)
{
	const struct collect *col = &t->col;

	if (t->dump)
		snprintf(t->via, sizeof(t->via), "%s%s%s%s",
			 col->cgfd >= 0 ? "dump of the cgroup" : "dump",
			 col->said[0] ? " (" : "", col->said, col->said[0] ? ")" : "");
	else if (col->cgfd >= 0)
		snprintf(t->via, sizeof(t->via), "GET per task in %s", col->list);
	else
		snprintf(t->via, sizeof(t->via), "GET per task");
}

/* --cgroup: the line of its tasks by state, or why the kernel did not count them. */
static void describe_cgroup(struct top *t)
{
	struct cgroupstats cs;
	int err = cgroup_counts(&t->nl, t->col.cgfd, &cs);

	if (err)
		snprintf(t->cgcounts, sizeof(t->cgcounts),
			 "tasks of the cgroup by state: not counted (CGROUPSTATS: %s)",
			 strerror(-err));
	else
		snprintf(t->cgcounts, sizeof(t->cgcounts),
			 "tasks of the cgroup by state: %llu sleeping, %llu running, %llu stopped, %llu uninterruptible, %llu io_wait",
			 (unsigned long long)cs.nr_sleeping, (unsigned long long)cs.nr_running,
			 (unsigned long long)cs.nr_stopped,
			 (unsigned long long)cs.nr_uninterruptible,
			 (unsigned long long)cs.nr_io_wait);
}

/* The frame of the interval between the two newest samples. */
static void make_frame(struct top *t)
{
	const struct snap *cur = &t->snaps[t->cur], *prev = &t->snaps[!t->cur];
	struct frame *fr = &t->fr;

	fr->no++;
	fr->n = 0;
	for (size_t i = 0; i < cur->n; i++)
		frame_add(fr, &cur->recs[i], prev);
	fr->nlive = fr->n;
	if (t->ex.on)
		exits_settle(&t->ex, fr, cur, prev);
	fr->exits_off = t->ex.on ? NULL : t->ex.why;
	fr->exits_lost = t->ex.lost;
	t->ex.lost = false;
	/* A space typed just after a sample: keep rates finite. */
	fr->interval = dmax(cur->t - prev->t, 0.001);
	fr->when = time(NULL);
	json_timestamp_str(fr->stamp, sizeof(fr->stamp));
	fr->version = cur->n ? rec_version(&cur->recs[0]) : 0;
	describe_via(t);
	fr->via = t->via;
	fr->cgpath = t->col.cgpath;
	fr->subtree = t->col.subtree;
	fr->cgcounts = NULL;
	if (t->col.cgfd >= 0 && !opt_json) {
		describe_cgroup(t);
		fr->cgcounts = t->cgcounts;
	}
	fr->delayacct = delayacct_sysctl();
	read_psi(fr, t->col.cgfd);
}

/* The frame on the screen: rows for the current view, cut to its size. */
static void draw(struct top *t)
{
	int lines, cols;

	if (t->help) {
		tui_help(help_keys);
		return;
	}
	if (!t->fr.no) {
		tui_message("taskstat top - measuring the first interval (q quits, h help)");
		return;
	}
	free(t->rows);
	t->nrows = frame_rows(&t->fr, &t->v, &t->rows, &t->total);
	tui_size(&lines, &cols);
	render_text(&t->text, &t->fr, &t->v, t->rows, t->nrows, t->total, cols, lines >= 40,
		    true);
	tui_draw(&t->text, &t->v.scroll);
}

/* The frame as text or JSON on standard output. */
static void print_frame(struct top *t)
{
	struct frame *fr = &t->fr;

	free(t->rows);
	t->nrows = frame_rows(fr, &t->v, &t->rows, &t->total);
	if (opt_json) {
		/* Not in the objects: a reader of those wants one per task. */
		if (t->dump && t->col.said[0])
			fprintf(stderr, "taskstat: frame %d: the kernel's dump says: %s\n", fr->no,
				t->col.said);
		if (fr->exits_lost)
			fprintf(stderr,
				"taskstat: frame %d: some exits not counted (the listener's socket buffer overflowed)\n",
				fr->no);
		render_json(fr, &t->v, t->rows, t->nrows);
	} else {
		render_text(&t->text, fr, &t->v, t->rows, t->nrows, t->total, t->width, true,
			    false);
		for (size_t i = 0; i < t->text.n; i++)
			printf("%s\n", t->text.v[i].s);
		printf("\n");
	}
	fflush(stdout);
}

enum act { A_NONE, A_REDRAW, A_NOW, A_QUIT };

static enum act sort_by(struct top *t, int k)
{
	t->v.sort = (k + nsort_keys) % nsort_keys;
	return A_REDRAW;
}

/* What key @c does; the view changes at once, the sample stays. */
static enum act on_key(struct top *t, int c)
{
	struct view *v = &t->v;
	int page = LINES - (int)t->text.head;

	if (page < 1)
		page = 1;
	if (t->help) {
		t->help = false;
		return c == 'q' ? A_QUIT : A_REDRAW;
	}
	for (size_t k = 0; k < nsort_keys; k++)
		if (sort_keys[k].letter && c == sort_keys[k].letter)
			return sort_by(t, k);
	switch (c) {
	case 'q':
		return A_QUIT;
	case 'h':
	case '?':
		t->help = true;
		return A_REDRAW;
	case '<':
		return sort_by(t, v->sort - 1);
	case '>':
	case 's':
		return sort_by(t, v->sort + 1);
	case 'r':
		v->reverse = !v->reverse;
		return A_REDRAW;
	case 'p':
	case 'P':
		v->procs = c == 'P' && !v->procs;
		v->scroll = 0;
		return A_REDRAW;
	case 'o':
		v->active = !v->active;
		v->scroll = 0;
		return A_REDRAW;
	case KEY_UP:
		v->scroll -= v->scroll > 0;
		return A_REDRAW;
	case KEY_DOWN:
		v->scroll++;		/* tui_draw() keeps it within the rows */
		return A_REDRAW;
	case KEY_PPAGE:
		v->scroll = v->scroll > (size_t)page ? v->scroll - page : 0;
		return A_REDRAW;
	case KEY_NPAGE:
		v->scroll += page;
		return A_REDRAW;
	case KEY_HOME:
		v->scroll = 0;
		return A_REDRAW;
	case KEY_END:
		v->scroll = SIZE_MAX / 2;
		return A_REDRAW;
	case '+':
		v->delay = dmin(v->delay * 2, 3600);
		return A_REDRAW;
	case '-':
		v->delay = dmax(v->delay / 2, 0.1);
		return A_REDRAW;
	case ' ':
		return A_NOW;
	case KEY_RESIZE:
		return A_REDRAW;
	}
	return A_NONE;
}

/*
 * Waits until the next sample is due: the interval (the first time at
 * most 1 s) after the newest sample started, read anew as + and - change
 * it. Meanwhile drains the exit listener and, on a terminal, takes keys.
 */
static enum act wait_next(struct top *t, bool first)
{
	for (;;) {
		double span = first ? dmin(t->v.delay, 1) : t->v.delay;
		double left = t->snaps[t->cur].t + span - now_s();
		struct pollfd p[2];
		bool redraw = false;
		nfds_t n = 0;
		int c;

		if (stop)
			return A_QUIT;
		if (left <= 0)
			return A_NONE;
		if (t->tui)
			p[n++] = (struct pollfd){ .fd = STDIN_FILENO, .events = POLLIN };
		if (t->ex.on)
			p[n++] = (struct pollfd){ .fd = mnl_socket_get_fd(t->ex.nl.sock),
						  .events = POLLIN };
		/* EINTR: a signal, SIGWINCH among them, which getch() reports. */
		poll(p, n, (int)(left * 1000) + 1);
		exits_drain(&t->ex);
		while (t->tui && (c = tui_key()) != ERR) {
			enum act a = on_key(t, c);

			if (a == A_QUIT || a == A_NOW)
				return a;
			redraw |= a == A_REDRAW;
		}
		if (redraw)
			draw(t);
	}
}

static int top_fail(struct top *t, int err)
{
	struct collect *col = &t->col;

	tui_close();
	if (col->cgfd >= 0 && col->ctx == CTX_DUMP)
		return report_cgroup(CTX_DUMP, col->what, col->cgpath, col->cgfd, -err);
	return report(col->ctx, col->what, -err);
}

/* The width of batch lines: $COLUMNS, else the terminal's, else every column. */
static int batch_width(void)
{
	const char *env = getenv("COLUMNS");
	unsigned long long v;
	struct winsize ws;

	if (env && parse_uint(env, 4096, &v) && v >= 40)
		return v;
	if (!opt_json && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col >= 40)
		return ws.ws_col;
	return -1;
}

static int parse_top(struct top *t, int argc, char **argv)
{
	static const struct option opts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "processes", no_argument, NULL, 'P' },
		{ "active", no_argument, NULL, 'o' },
		{ "batch", no_argument, NULL, 'b' },
		{ "limit", required_argument, NULL, 'l' },
		{ "once", no_argument, NULL, 'O' },
		{ "cgroup", required_argument, NULL, 'C' },
		{ "subtree", no_argument, NULL, 'S' },
		{ "json", no_argument, NULL, 'J' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	bool once = false, iters_set = false;
	unsigned long long v;
	char *end;
	int c;

	while ((c = getopt_long(argc, argv, "d:n:s:Pobl:" COMMON_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			t->v.delay = strtod(optarg, &end);
			if (end == optarg || *end || !(t->v.delay >= 0.1) || t->v.delay > 86400)
				return usage_bad("top", usage_top,
						 "bad interval '-d %s' (seconds, 0.1 to 86400)",
						 optarg);
			break;
		case 'n':
		case 'l':
			if (!parse_uint(optarg, INT32_MAX, &v))
				return usage_bad("top", usage_top, "bad number '-%c %s'", c,
						 optarg);
			if (c == 'n') {
				t->iters = v;
				iters_set = true;
			} else {
				t->v.limit = v;
			}
			break;
		case 's':
			t->v.sort = sort_key_by_name(optarg);
			if (t->v.sort < 0)
				return usage_bad("top", usage_top, "unknown sort key '%s'", optarg);
			break;
		case 'P':
			t->v.procs = true;
			break;
		case 'o':
			t->v.active = true;
			break;
		case 'b':
			t->batch = true;
			break;
		case 'O':
			once = true;
			break;
		case 'C':
			t->col.cgpath = optarg;
			break;
		case 'S':
			t->col.subtree = true;
			break;
		default:
			common_opt(c, usage_top);
		}
	}
	if (optind < argc)
		return usage_bad("top", usage_top, "unexpected argument '%s'", argv[optind]);
	if (once && iters_set)
		return usage_bad("top", usage_top, "--once and -n conflict (--once is -b -n 1)");
	if (t->col.subtree && !t->col.cgpath)
		return usage_bad("top", usage_top, "--subtree needs --cgroup");
	if (once) {
		t->batch = true;
		t->iters = 1;
	}
	return 0;
}

static void top_free(struct top *t)
{
	free(t->rows);
	text_free(&t->text);
	free(t->fr.tasks);
	free(t->snaps[0].recs);
	free(t->snaps[1].recs);
	nl_close(&t->nl);
	exits_close(&t->ex);
	if (t->col.cgfd >= 0)
		close(t->col.cgfd);
}

int cmd_top(int argc, char **argv)
{
	static struct top t = {
		.col.cgfd = -1,
		.v = { .sort = 1, .delay = 2 },
	};
	enum act a;
	int err;

	err = parse_top(&t, argc, argv);
	if (err)
		return err;
	/* Names are UTF-8: their width on screen is the locale's. */
	setlocale(LC_ALL, "");
	t.tui = !t.batch && !opt_json && isatty(STDOUT_FILENO) && isatty(STDIN_FILENO);
	t.width = batch_width();
	if (t.col.cgpath) {
		t.col.cgfd = open(t.col.cgpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (t.col.cgfd < 0)
			return report(CTX_SOCKET, t.col.cgpath, errno);
		t.col.cgver = cgroup_version(t.col.cgfd);
		t.col.list = t.col.cgver == 1 ? "tasks" : "cgroup.threads";
	}
	nl_open(&t.nl);
	/* JSON carries each task's cgroup where the kernel can say it. */
	if (opt_json)
		nl_ask_ids(&t.nl);
	io_rounded(&t.nl);
	/* Before the first sample: no exit after it may be missed. */
	exits_open(&t.ex, &t.col);
	catch_stop();
	err = sample(&t);
	if (err)
		return top_fail(&t, err);
	exits_forget_unseen(&t.ex, &t.snaps[t.cur]);
	if (opt_json) {
		/* Text frames say it in a note. */
		for (size_t i = 0; i < t.snaps[t.cur].n; i++)
			delay_hint(&t.snaps[t.cur].recs[i]);
	} else if (t.tui && !tui_open()) {
		fprintf(stderr, "taskstat: top: cannot use this terminal (TERM=%s): batch mode\n",
			getenv("TERM") ? getenv("TERM") : "");
		t.tui = false;
	} else if (t.tui) {
		draw(&t);
	}
	for (a = wait_next(&t, true); a != A_QUIT && !stop; a = wait_next(&t, false)) {
		t.cur = !t.cur;
		err = sample(&t);
		if (err)
			return top_fail(&t, err);
		make_frame(&t);
		if (t.tui)
			draw(&t);
		else
			print_frame(&t);
		if (t.iters && (unsigned long long)t.fr.no >= t.iters)
			break;
	}
	tui_close();
	top_free(&t);
	return 0;
}
