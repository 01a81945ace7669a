// SPDX-License-Identifier: GPL-2.0
/*
 * taskstat top - every task, sorted by a delay class, CPU or I/O, with the
 * change of each counter over the last interval.
 *
 * Records come from a TASKSTATS_CMD_GET dump (NLM_F_DUMP) where the kernel
 * has one, else from one GET per task found in /proc. With --cgroup, from
 * a dump of that cgroup (TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD), else from one
 * GET per task its directory lists (cgroup.threads, or cgroup.procs with
 * -P; on cgroup v1 tasks and cgroup.procs). A listener for the cgroup
 * adds what its tasks that exited during the interval consumed.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/cgroupstats.h>
#include <linux/genetlink.h>

#include "taskstat.h"

static const char usage_top[] =
	"usage: taskstat top [-d SECONDS] [-n ITERATIONS] [-s KEY] [-P] [-b] [-l N]\n"
	"                    [--once] [--cgroup PATH [--subtree]] [--json] [-v]\n"
	"\n"
	"Shows every task, or those of one cgroup, refreshed every -d SECONDS\n"
	"(default 2). The first frame shows totals since each task started, later\n"
	"frames the change over the interval.\n"
	"  -d, --delay SECONDS     interval between frames\n"
	"  -n, --iterations N      stop after N frames (default: until SIGINT)\n"
	"  -s, --sort KEY          sort by KEY, largest first (default: cpu-delay):\n"
	"                          cpu cpu-delay blkio swapin freepages thrashing\n"
	"                          compact wpcopy irq read write\n"
	"  -P, --processes         one line per thread group (TGID records, which\n"
	"                          carry no I/O counters) instead of per thread\n"
	"  -b, --batch             no screen clearing; frames follow each other\n"
	"  -l, --limit N           at most N tasks per frame (default: all in batch\n"
	"                          mode, the screen height otherwise)\n"
	"      --once              one frame in batch mode: same as -b -n 1\n"
	"      --cgroup PATH       only the tasks in the cgroup whose directory is\n"
	"                          PATH (v2 or v1), from one dump of that cgroup;\n"
	"                          on a kernel without it, one GET per task listed\n"
	"                          in PATH/cgroup.threads (-P: cgroup.procs)\n"
	"      --subtree           with --cgroup: and those of its descendants\n"
	"                          With --cgroup, a row \"exited\" adds what the tasks\n"
	"                          that exited during the interval consumed (needs a\n"
	"                          kernel with cgroup listeners, and CAP_NET_ADMIN)\n"
	"      --json              one JSON object per task and frame (JSON Lines),\n"
	"                          with its cgroup where the kernel has cgroup ids\n"
	"  -v, --verbose           say how the records were collected\n";

/* The counters top works with, all 64-bit; their changes are the deltas. */
#define D(m) { #m, F_##m }
static const struct {
	const char *name;
	enum fid f;
} dfields[] = {
	D(ac_utime), D(ac_stime),
	D(cpu_count), D(cpu_delay_total),
	D(blkio_count), D(blkio_delay_total),
	D(swapin_count), D(swapin_delay_total),
	D(freepages_count), D(freepages_delay_total),
	D(thrashing_count), D(thrashing_delay_total),
	D(compact_count), D(compact_delay_total),
	D(wpcopy_count), D(wpcopy_delay_total),
	D(irq_count), D(irq_delay_total),
	D(read_bytes), D(write_bytes), D(read_char), D(write_char),
	D(nvcsw), D(nivcsw), D(cpu_run_real_total),
};

#define NDF ARRAY_SIZE(dfields)

/* Sort keys, which are also the columns: dfields[a] (+ dfields[b]). */
static const struct {
	const char *name, *hdr;
	int a, b;
	enum unit unit;
} keys[] = {
	{ "cpu", "CPU", 0, 1, U_US },
	{ "cpu-delay", "CPUDLY", 3, -1, U_NS },
	{ "blkio", "BLKIO", 5, -1, U_NS },
	{ "swapin", "SWAPIN", 7, -1, U_NS },
	{ "freepages", "FREEPG", 9, -1, U_NS },
	{ "thrashing", "THRASH", 11, -1, U_NS },
	{ "compact", "COMPACT", 13, -1, U_NS },
	{ "wpcopy", "WPCOPY", 15, -1, U_NS },
	{ "irq", "IRQ", 17, -1, U_NS },
	{ "read", "READ", 18, -1, U_BYTES },
	{ "write", "WRITE", 19, -1, U_BYTES },
};

#define NKEYS ARRAY_SIZE(keys)

struct snap {
	struct record *recs;
	size_t n, cap;
};

struct row {
	const struct record *r;
	unsigned long long d[NDF];
	bool have[NDF];
};

static int sort_key = 1;

static void snap_add(struct snap *s, const struct record *r)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->recs = realloc(s->recs, s->cap * sizeof(*s->recs));
		if (!s->recs) {
			perror("taskstat");
			exit(1);
		}
	}
	s->recs[s->n++] = *r;
}

struct collect {
	struct snap *snap;
	int aggr;
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

	if (r->aggr == col->aggr && r->len)
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

	if (col->aggr == TASKSTATS_TYPE_AGGR_TGID)
		mnl_attr_put(h, TASKSTATS_CMD_ATTR_DUMP_TGID, 0, NULL);
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

/* One GET; a task that is gone by now is skipped. */
static int get_one(struct nl *nl, struct collect *col, int attr, unsigned int id)
{
	int err = nl_get(nl, attr, id, dump_cb, col);

	if (err && err != -ESRCH) {
		col->ctx = CTX_TASK;
		snprintf(col->what, sizeof(col->what), "GET %s %u",
			 attr == TASKSTATS_CMD_ATTR_PID ? "pid" : "tgid", id);
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

/* The fallback: every process in /proc, or every thread of each. */
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
		if (col->aggr == TASKSTATS_TYPE_AGGR_TGID) {
			err = get_one(nl, col, TASKSTATS_CMD_ATTR_TGID, pid);
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%u/task", pid);
		task = opendir(path);
		if (!task)
			continue;
		while (!err && (t = readdir(task)))
			if (numeric(t->d_name, &tid))
				err = get_one(nl, col, TASKSTATS_CMD_ATTR_PID, tid);
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
	if (ids->n == ids->cap) {
		ids->cap = ids->cap ? 2 * ids->cap : 64;
		ids->v = realloc(ids->v, ids->cap * sizeof(*ids->v));
		if (!ids->v) {
			perror("taskstat");
			exit(1);
		}
	}
	ids->v[ids->n++] = id;
}

/* The thread group of task @tid, from /proc; 0 if it is gone. */
static unsigned int tgid_of(unsigned int tid)
{
	unsigned int tgid = 0;
	char path[64], line[128];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/status", tid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/*
 * The ids in the file @name of the cgroup directory @dirfd; with @tgids,
 * those of the thread groups of the ids read.
 */
static int read_ids(int dirfd, const char *name, bool tgids, struct ids *ids)
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
	while (fscanf(f, "%u", &id) == 1) {
		if (tgids)
			id = tgid_of(id);
		if (id)
			ids_add(ids, id);
	}
	if (ferror(f))
		err = errno ? -errno : -EIO;
	fclose(f);
	return err;
}

/*
 * The ids listed in @col->list of the cgroup directory @dirfd and, with
 * --subtree, of every cgroup below it. A child removed meanwhile is
 * skipped; the cgroup named itself removed is ENOENT. A threaded cgroup
 * of cgroup v2 refuses to list processes (EOPNOTSUPP): its threads'
 * groups are taken instead.
 */
static int cgroup_ids(struct collect *col, int dirfd, bool top, struct ids *ids)
{
	int err = read_ids(dirfd, col->list, false, ids), fd;
	struct dirent *d;
	DIR *dir;

	if (err == -EOPNOTSUPP && col->cgver == 2 && col->aggr == TASKSTATS_TYPE_AGGR_TGID)
		err = read_ids(dirfd, "cgroup.threads", true, ids);
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
 * The fallback of --cgroup: one GET per task (or thread group, -P) the
 * cgroup's directory lists, each once (cgroup.procs may repeat an id).
 */
static int collect_cgroup_get(struct nl *nl, struct collect *col)
{
	int attr = col->aggr == TASKSTATS_TYPE_AGGR_TGID ? TASKSTATS_CMD_ATTR_TGID :
							     TASKSTATS_CMD_ATTR_PID;
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
			err = get_one(nl, col, attr, ids.v[i]);
	free(ids.v);
	return err;
}

static int cmp_id(const void *a, const void *b)
{
	const struct record *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Whether @r, of the same id as the earlier @old, is the same task: a
 * reused id is a new task, which started at another time. The kernel
 * derives the start second from two clocks, so it may move by one.
 */
static bool same_task(const struct record *old, const struct record *r)
{
	unsigned long long a, b;

	rec_u64(old, F_ac_btime64, &a);
	rec_u64(r, F_ac_btime64, &b);
	return a + 1 >= b;
}

/* The change of every counter since @prev, or its total without one. */
static void make_row(struct row *row, const struct record *r, const struct snap *prev)
{
	const struct record *old = NULL;

	row->r = r;
	if (prev && prev->n)
		old = bsearch(r, prev->recs, prev->n, sizeof(*r), cmp_id);
	if (old && !same_task(old, r))
		old = NULL;
	for (size_t i = 0; i < NDF; i++) {
		unsigned long long v, o = 0;

		row->have[i] = rec_u64(r, dfields[i].f, &v);
		if (old)
			rec_u64(old, dfields[i].f, &o);
		row->d[i] = v >= o ? v - o : v;
	}
}

static bool key_value(const struct row *row, int k, unsigned long long *v)
{
	*v = row->d[keys[k].a];
	if (keys[k].b >= 0)
		*v += row->d[keys[k].b];
	return row->have[keys[k].a];
}

static int cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	unsigned long long vx, vy;

	key_value(x, sort_key, &vx);
	key_value(y, sort_key, &vy);
	if (vx != vy)
		return vx < vy ? 1 : -1;
	key_value(x, 0, &vx);
	key_value(y, 0, &vy);
	if (vx != vy)
		return vx < vy ? 1 : -1;
	return x->r->id < y->r->id ? -1 : x->r->id > y->r->id;
}

/* TGID records carry no command name: take it from /proc. */
static void fill_comm(struct record *r)
{
	char path[64], comm[TS_COMM_BYTES];
	FILE *f;

	if (rec_comm(r)[0])
		return;
	snprintf(path, sizeof(path), "/proc/%u/comm", r->id);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(comm, sizeof(comm), f)) {
		comm[strcspn(comm, "\n")] = '\0';
		rec_set_comm(r, comm);
	}
	fclose(f);
}

/*
 * --cgroup: what the cgroup's tasks that exited during the interval
 * consumed, so that with the rows a frame accounts for everything the
 * cgroup spent. A listener for the cgroup, opened before the first
 * frame, is drained after each snapshot; each exit record counts with
 * its change since the last snapshot, as its row would have.
 */
struct exits {
	struct nl nl;
	bool on;		/* else why[] says why not */
	bool lost;		/* records were lost in this frame */
	int aggr;		/* the records a row shows: with -P, processes' */
	char why[128];
	char cpus[1024];
	struct snap pending;	/* drained, not yet counted */
	struct row sum;		/* counted in this frame */
	size_t n;
};

/* Zero tasks that exited, with every counter at zero rather than unknown. */
static void exits_reset(struct exits *ex)
{
	memset(&ex->sum, 0, sizeof(ex->sum));
	for (size_t i = 0; i < NDF; i++)
		ex->sum.have[i] = true;
	ex->n = 0;
	ex->lost = false;
}

/*
 * Registers the listener for the cgroup; on a kernel without cgroup
 * listeners registering would hear every exit, so it is not tried.
 * Without the listener, top still shows the rows.
 */
static void exits_open(struct exits *ex, const struct collect *col)
{
	struct listener l = { .cpus = ex->cpus, .cgfd = col->cgfd, .subtree = col->subtree };
	int err;

	ex->aggr = col->aggr;
	exits_reset(ex);
	nl_open(&ex->nl);
	err = nl_cgroup_ids(&ex->nl);
	if (err <= 0) {
		snprintf(ex->why, sizeof(ex->why), "%s",
			 err ? "the kernel cannot list its TASKSTATS policy" :
			       "this kernel has no cgroup listeners");
	} else if (col->cgver != 2) {
		snprintf(ex->why, sizeof(ex->why), "a listener needs a cgroup v2 directory");
	} else {
		possible_cpus(ex->cpus, sizeof(ex->cpus));
		err = nl_register(&ex->nl, &l);
		if (err)
			snprintf(ex->why, sizeof(ex->why), "registering a listener: %s%s",
				 strerror(-err), err == -EPERM ? ", needs CAP_NET_ADMIN" : "");
		/* Drained every frame, never waited for. */
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
		fprintf(stderr, "taskstat: counting the exits of cgroup %s with a listener\n",
			col->cgpath);
	}
}

/* Keeps the records that end what a row shows: a task's; with -P, a process's. */
static void exit_record(const struct record *r, void *data)
{
	struct exits *ex = data;
	unsigned long long tgid;
	bool leader = rec_u64(r, F_ac_tgid, &tgid) && r->id == tgid;

	if (r->len && (r->aggr == ex->aggr || (ex->aggr == TASKSTATS_TYPE_AGGR_TGID && leader)))
		snap_add(&ex->pending, r);
}

static int exit_cb(const struct nlmsghdr *h, void *data)
{
	walk_records(h, exit_record, data);
	return MNL_CB_OK;
}

/* Reads every exit record queued; the socket does not block. */
static void exits_drain(struct exits *ex)
{
	for (;;) {
		int len = mnl_socket_recvfrom(ex->nl.sock, ex->nl.buf, sizeof(ex->nl.buf));

		if (len > 0)
			/* Exit records are not answers: any sequence, port 0. */
			mnl_cb_run(ex->nl.buf, len, 0, 0, exit_cb, ex);
		else if (len < 0 && errno == ENOBUFS)
			ex->lost = true;
		else if (len == 0 || errno != EINTR)
			return;		/* EAGAIN: none left */
	}
}

/*
 * With -P, a leader's PID record stands for a single-threaded process;
 * a multi-threaded one ends with its group's TGID record, which counts
 * instead.
 */
static void exits_drop_leaders(struct snap *pending)
{
	size_t keep = 0;

	for (size_t i = 0; i < pending->n; i++) {
		const struct record *e = &pending->recs[i];
		bool group = false;

		for (size_t j = 0; e->aggr == TASKSTATS_TYPE_AGGR_PID && j < pending->n; j++)
			group |= pending->recs[j].aggr == TASKSTATS_TYPE_AGGR_TGID &&
				 pending->recs[j].id == e->id;
		if (!group)
			pending->recs[keep++] = *e;
	}
	pending->n = keep;
}

/*
 * Counts each drained record whose task is gone from the snapshot @cur
 * (sorted by id): its change since @prev. One still in @cur, a zombie
 * or with -P a leader whose threads live on, waits: its row counts it
 * until it is gone.
 */
static void exits_settle(struct exits *ex, const struct snap *cur, const struct snap *prev)
{
	size_t keep = 0;

	if (ex->aggr == TASKSTATS_TYPE_AGGR_TGID)
		exits_drop_leaders(&ex->pending);
	for (size_t i = 0; i < ex->pending.n; i++) {
		const struct record *e = &ex->pending.recs[i], *live = NULL;
		struct row row;

		if (cur->n)
			live = bsearch(e, cur->recs, cur->n, sizeof(*e), cmp_id);
		if (live && same_task(e, live)) {
			ex->pending.recs[keep++] = *e;
			continue;
		}
		make_row(&row, e, prev);
		for (size_t k = 0; k < NDF; k++)
			ex->sum.d[k] += row.have[k] ? row.d[k] : 0;
		ex->n++;
	}
	ex->pending.n = keep;
}

struct frame {
	int no;
	double interval;	/* 0 in the first frame: totals */
	bool tgid, batch, dump;
	size_t limit;
	const struct collect *col;
	const struct exits *ex;	/* --cgroup: its tasks that exited */
	struct cgroupstats cs;	/* --cgroup: its tasks by state */
	int cs_err;		/* or why the kernel did not count them */
};

/* A row's counters as JSON members; the object's end. */
static void json_counters(const struct row *row)
{
	for (size_t k = 0; k < NDF; k++)
		if (row->have[k])
			printf(",\"%s\":%llu", dfields[k].name, row->d[k]);
	printf("}\n");
}

/* Whether the frame shows the exited row: an interval, and a listener. */
static bool show_exits(const struct frame *fr)
{
	return fr->no > 1 && fr->ex->on;
}

static void print_json(const struct frame *fr, const struct row *rows, size_t n)
{
	/* Not in the objects: a reader of those wants one per task. */
	if (fr->dump && fr->col->said[0])
		fprintf(stderr, "taskstat: frame %d: the kernel's dump says: %s\n", fr->no,
			fr->col->said);
	for (size_t i = 0; i < n; i++) {
		const struct record *r = rows[i].r;

		printf("{\"frame\":%d,\"interval\":%.3f,\"type\":\"%s\",\"id\":%u,", fr->no,
		       fr->interval, fr->tgid ? "tgid" : "pid", r->id);
		unsigned long long tgid;

		rec_u64(r, F_ac_tgid, &tgid);
		printf("\"tgid\":%llu,\"version\":%u,\"comm\":",
		       fr->tgid ? r->id : tgid, rec_version(r));
		json_string(stdout, rec_comm(r), TS_COMM_BYTES);
		json_cgroup(stdout, r);
		json_counters(&rows[i]);
	}
	if (!show_exits(fr))
		return;
	printf("{\"frame\":%d,\"interval\":%.3f,\"type\":\"exited\",\"tasks\":%zu,\"lost\":%s",
	       fr->no, fr->interval, fr->ex->n, fr->ex->lost ? "true" : "false");
	json_counters(&fr->ex->sum);
}

/*
 * The pressure stall lines of the system, or of the cgroup of --cgroup:
 * the some and full averages over 10, 60 and 300 s of cpu, io, memory
 * and irq, as /proc/pressure and a cgroup v2 directory give them. A
 * kernel without PSI (or a v1 cgroup) has none: no line.
 */
static void print_psi(const struct collect *col)
{
	static const char * const res[] = { "cpu", "io", "memory", "irq" };
	bool head = false;

	for (size_t i = 0; i < ARRAY_SIZE(res); i++) {
		char path[64], buf[256], *line, *save = NULL;
		ssize_t len;
		int fd;

		if (col->cgfd >= 0) {
			snprintf(path, sizeof(path), "%s.pressure", res[i]);
			fd = openat(col->cgfd, path, O_RDONLY | O_CLOEXEC);
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
		if (!head) {
			printf("pressure of %s, %% of time stalled over 10/60/300 s:\n",
			       col->cgfd >= 0 ? "the cgroup" : "the system");
			head = true;
		}
		printf("  %-7s", res[i]);
		for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char kind[8];
			double a10, a60, a300;

			if (sscanf(line, "%7s avg10=%lf avg60=%lf avg300=%lf", kind, &a10, &a60,
				   &a300) == 4)
				printf("  %-4s %6.2f %6.2f %6.2f", kind, a10, a60, a300);
		}
		printf("\n");
	}
}

/* The sort key columns of a row. */
static void print_cells(const struct row *row)
{
	char cell[32];

	for (size_t k = 0; k < NKEYS; k++) {
		unsigned long long v;

		if (key_value(row, k, &v))
			human(cell, sizeof(cell), v, keys[k].unit);
		else
			snprintf(cell, sizeof(cell), "-");
		printf(" %7s ", cell);
	}
	printf("\n");
}

/* The row of the tasks (with -P, processes) that exited during the interval. */
static void print_exited(const struct frame *fr)
{
	const struct exits *ex = fr->ex;
	char what[32];

	snprintf(what, sizeof(what), "%zu %s%s", ex->n, fr->tgid ? "process" : "task",
		 ex->n == 1 ? "" : fr->tgid ? "es" : "s");
	printf("%7s %-15.15s", "exited", what);
	print_cells(&ex->sum);
}

static void print_text(const struct frame *fr, const struct row *rows, size_t n)
{
	char now[16];
	time_t t = time(NULL);
	struct tm tm;
	int da = delayacct_sysctl();
	size_t limit = fr->limit;
	const struct collect *col = fr->col;

	strftime(now, sizeof(now), "%T", localtime_r(&t, &tm));
	if (!fr->batch)
		printf("\033[H\033[2J");
	printf("taskstat top - %s, %zu %s", now, n, fr->tgid ? "thread groups" : "tasks");
	if (col->cgfd >= 0)
		printf(" of cgroup %s%s", col->cgpath, col->subtree ? " and its descendants" : "");
	printf(", record version %u, via ", n ? rec_version(rows[0].r) : 0);
	if (fr->dump)
		printf("%s%s%s%s", col->cgfd >= 0 ? "dump of the cgroup" : "dump",
		       col->said[0] ? " (" : "", col->said, col->said[0] ? ")" : "");
	else if (col->cgfd >= 0)
		printf("GET per task in %s", col->list);
	else
		printf("GET per task");
	printf(", delay accounting %s\n", da < 0 ? "unknown" : da == '1' ? "on" : "off");
	if (col->cgfd >= 0 && fr->cs_err)
		printf("tasks of the cgroup by state: not counted (CGROUPSTATS: %s)\n",
		       strerror(-fr->cs_err));
	else if (col->cgfd >= 0) {
		printf("tasks of the cgroup by state: %llu sleeping, %llu running, %llu stopped, ",
		       (unsigned long long)fr->cs.nr_sleeping,
		       (unsigned long long)fr->cs.nr_running,
		       (unsigned long long)fr->cs.nr_stopped);
		printf("%llu uninterruptible, %llu io_wait\n",
		       (unsigned long long)fr->cs.nr_uninterruptible,
		       (unsigned long long)fr->cs.nr_io_wait);
	}
	if (col->cgfd >= 0 && !fr->ex->on)
		printf("tasks that exited: not counted (%s)\n", fr->ex->why);
	else if (show_exits(fr) && fr->ex->lost)
		printf("%s\n",
		       "tasks that exited: some not counted (the listener's socket buffer overflowed)");
	print_psi(col);
	if (fr->no == 1)
		printf("totals since each task started, sorted by %s\n\n", keys[sort_key].name);
	else
		printf("changes over the last %.1f s, sorted by %s\n\n", fr->interval,
		       keys[sort_key].name);
	printf("%7s %-15s", fr->tgid ? "TGID" : "TID", "COMM");
	for (size_t k = 0; k < NKEYS; k++)
		printf(" %7s%s", keys[k].hdr, (int)k == sort_key ? "*" : " ");
	printf("\n");
	if (show_exits(fr))
		print_exited(fr);
	if (!limit || limit > n)
		limit = n;
	for (size_t i = 0; i < limit; i++) {
		char comm[TS_COMM_BYTES * 4 + 1];

		format_field(comm, sizeof(comm), rows[i].r, F_ac_comm);
		printf("%7u %-15.15s", rows[i].r->id, comm);
		print_cells(&rows[i]);
	}
	if (fr->batch)
		printf("\n");
	fflush(stdout);
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Collects one snapshot; the first time, chooses between dump and GETs. */
static int collect(struct nl *nl, struct collect *col, struct frame *fr, bool *decided)
{
	bool cg = col->cgfd >= 0;
	int err;

	col->snap->n = 0;
	if (!*decided || fr->dump) {
		err = collect_dump(nl, col);
		/*
		 * A kernel without the dump answers EOPNOTSUPP (or EINVAL);
		 * one with it EINVAL for a directory that is not a cgroup's,
		 * which the file system tells apart.
		 */
		if (*decided || (err != -EOPNOTSUPP && (err != -EINVAL || (cg && !col->cgver)))) {
			fr->dump = true;
			*decided = true;
			if (opt_verbose && fr->no == 1 && !err)
				fprintf(stderr,
					"taskstat: collecting with the TASKSTATS dump%s%s%s\n",
					cg ? " of cgroup " : "", cg ? col->cgpath : "",
					cg && col->subtree ? " and its descendants" : "");
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
		*decided = true;
		fr->dump = false;
		col->snap->n = 0;
	}
	return cg ? collect_cgroup_get(nl, col) : collect_get(nl, col);
}

int cmd_top(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "delay", required_argument, NULL, 'd' },
		{ "iterations", required_argument, NULL, 'n' },
		{ "sort", required_argument, NULL, 's' },
		{ "processes", no_argument, NULL, 'P' },
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
	static struct nl nl;
	static struct exits ex;
	struct snap snaps[2] = { 0 };
	struct frame fr = { 0 };
	struct collect col = { .cgfd = -1 };
	unsigned long long iters = 0;
	double delay = 2, last = 0, t;
	bool decided = false, limit_set = false;
	struct row *rows = NULL;
	struct winsize ws;
	char *end;
	int c, err, cur = 0;

	while ((c = getopt_long(argc, argv, "d:n:s:Pbl:" COMMON_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			delay = strtod(optarg, &end);
			if (*end || !(delay > 0) || delay > 86400) {
				fprintf(stderr, "taskstat: bad interval: %s\n", optarg);
				return 2;
			}
			break;
		case 'n':
			iters = opt_uint(optarg, INT32_MAX, "number");
			break;
		case 'l':
			fr.limit = opt_uint(optarg, INT32_MAX, "number");
			limit_set = true;
			break;
		case 's':
			sort_key = -1;
			for (size_t k = 0; k < NKEYS; k++)
				if (!strcmp(optarg, keys[k].name))
					sort_key = k;
			if (sort_key < 0) {
				fprintf(stderr, "taskstat: unknown sort key %s\n", optarg);
				return usage_error(usage_top);
			}
			break;
		case 'P':
			fr.tgid = true;
			break;
		case 'b':
			fr.batch = true;
			break;
		case 'O':
			fr.batch = true;
			iters = 1;
			break;
		case 'C':
			col.cgpath = optarg;
			break;
		case 'S':
			col.subtree = true;
			break;
		default:
			common_opt(c, usage_top);
		}
	}
	if (optind < argc)
		return usage_error(usage_top);
	if (col.subtree && !col.cgpath) {
		fprintf(stderr, "taskstat: --subtree needs --cgroup\n");
		return usage_error(usage_top);
	}
	if (col.cgpath) {
		col.cgfd = open(col.cgpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (col.cgfd < 0)
			return report(CTX_SOCKET, col.cgpath, errno);
		col.cgver = cgroup_version(col.cgfd);
		if (col.cgver == 1)
			col.list = fr.tgid ? "cgroup.procs" : "tasks";
		else
			col.list = fr.tgid ? "cgroup.procs" : "cgroup.threads";
	}
	fr.col = &col;
	fr.ex = &ex;
	if (opt_json)
		fr.batch = true;
	if (!fr.batch && !limit_set && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row > 13)
		fr.limit = ws.ws_row - 12;	/* the header: up to 12 lines */
	col.aggr = fr.tgid ? TASKSTATS_TYPE_AGGR_TGID : TASKSTATS_TYPE_AGGR_PID;
	nl_open(&nl);
	/* JSON carries each task's cgroup where the kernel can say it. */
	if (opt_json)
		nl_ask_ids(&nl);
	/* Before the first snapshot: no exit after it may be missed. */
	if (col.cgfd >= 0)
		exits_open(&ex, &col);
	catch_stop();
	for (fr.no = 1; !stop && (!iters || (unsigned long long)fr.no <= iters); fr.no++) {
		struct snap *snap = &snaps[cur], *prev = fr.no > 1 ? &snaps[!cur] : NULL;

		if (prev) {
			struct timespec ts;

			ts.tv_sec = (time_t)delay;
			ts.tv_nsec = (long)((delay - ts.tv_sec) * 1e9);
			if (nanosleep(&ts, NULL) && errno == EINTR && stop)
				break;
		}
		col.snap = snap;
		err = collect(&nl, &col, &fr, &decided);
		if (err && col.cgfd >= 0 && col.ctx == CTX_DUMP)
			return report_cgroup(CTX_DUMP, col.what, col.cgpath, col.cgfd, -err);
		if (err)
			return report(col.ctx, col.what, -err);
		t = now_s();
		fr.interval = prev ? t - last : 0;
		last = t;
		qsort(snap->recs, snap->n, sizeof(*snap->recs), cmp_id);
		if (ex.on) {
			exits_drain(&ex);
			exits_settle(&ex, snap, prev);
		}
		rows = realloc(rows, (snap->n ? snap->n : 1) * sizeof(*rows));
		if (!rows) {
			perror("taskstat");
			return 1;
		}
		for (size_t i = 0; i < snap->n; i++) {
			if (fr.tgid)
				fill_comm(&snap->recs[i]);
			make_row(&rows[i], &snap->recs[i], prev);
		}
		if (fr.no == 1)
			for (size_t i = 0; i < snap->n; i++)
				delay_hint(&snap->recs[i]);
		qsort(rows, snap->n, sizeof(*rows), cmp_row);
		if (col.cgfd >= 0 && !opt_json)
			fr.cs_err = cgroup_counts(&nl, col.cgfd, &fr.cs);
		if (opt_json)
			print_json(&fr, rows, snap->n);
		else
			print_text(&fr, rows, snap->n);
		exits_reset(&ex);
		cur = !cur;
	}
	free(rows);
	free(snaps[0].recs);
	free(snaps[1].recs);
	nl_close(&nl);
	if (ex.on)
		nl_deregister(&ex.nl, ex.cpus);
	nl_close(&ex.nl);
	free(ex.pending.recs);
	if (col.cgfd >= 0)
		close(col.cgfd);
	return 0;
}
