// SPDX-License-Identifier: GPL-2.0
/*
 * collect: reading every task's record, (a) with one GET per /proc entry
 * and (b) with one dump, by pid and by tgid; and (c) what top, htop and
 * atop read of every task instead, from /proc; the time, counted syscalls
 * and records of each. The dump here also serves cgroup.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

/* ------------------------------------------------------------------ collect */

/* Starts a measurement: clears @m's counts; returns the start time. */
static unsigned long long method_start(struct method *m)
{
	nr_syscalls = 0;
	m->records = 0;
	m->errors = 0;
	m->err = 0;
	return now_ns();
}

/* Ends a measurement started at @t0: its time and syscalls. */
static void method_end(struct method *m, unsigned long long t0)
{
	m->ns = now_ns() - t0;
	m->syscalls = nr_syscalls;
}

/* What each_pid() calls for an entry @name, the pid @id, of @dirfd. */
typedef int (*pid_fn)(int dirfd, const char *name, __u32 id, void *arg);

/*
 * Calls @fn for each numeric entry of the directory open at @dirfd, as
 * getdents64(2) lists them. Return: 0, -1 (errno set) if a read failed,
 * or the first nonzero that @fn returned.
 */
static int each_pid(int dirfd, pid_fn fn, void *arg)
{
	char dents[32768];
	struct dirent64 *d;
	long n, off;
	char *end;
	__u32 id;
	int r;

	while ((n = c_getdents64(dirfd, dents, sizeof(dents))) > 0) {
		for (off = 0; off < n; off += d->d_reclen) {
			d = (struct dirent64 *)(dents + off);
			id = strtoul(d->d_name, &end, 10);
			if (d->d_name[0] < '0' || d->d_name[0] > '9' || *end)
				continue;
			r = fn(dirfd, d->d_name, id, arg);
			if (r)
				return r;
		}
	}
	return n < 0 ? -1 : 0;
}

/*
 * A measurement of @m: @fn for each numeric /proc entry. Return: 0, or 1
 * once it said why it failed.
 */
static int scan_proc(struct method *m, pid_fn fn, void *arg)
{
	unsigned long long t0 = method_start(m);
	int fd, r;

	fd = c_open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fail("/proc");
	r = each_pid(fd, fn, arg);
	if (r < 0)
		r = fail("getdents64 /proc");
	c_close(fd);
	method_end(m, t0);
	return r;
}

/* What collect_by_get() asks of each pid. */
struct get_scan {
	struct nl *nl;
	__u16 attr;
	struct method *m;
};

static int get_pid(int dirfd, const char *name, __u32 id, void *arg)
{
	static char buf[RXBUF_SIZE];
	struct get_scan *g = arg;
	int r = get_one(g->nl, g->attr, id, buf);

	if (r > 0)
		g->m->records += r;
	else if (r == -ESRCH)
		g->m->errors++;
	else
		return failx("GET of %u: %s", id, strerror(-r));
	return 0;
}

/* (a) One GET of @attr per numeric /proc entry. */
static int collect_by_get(struct nl *nl, __u16 attr, struct method *m)
{
	struct get_scan g = { nl, attr, m };

	return scan_proc(m, get_pid, &g);
}

/* The files of a task that a /proc walk reads: what top, htop and atop read. */
static const char *const proc_files[] = { "stat", "io", "schedstat" };

/* The files of proc_files[] of the task @tid of the task directory @taskfd. */
static int proc_task(int taskfd, const char *tid, __u32 id, void *arg)
{
	static char text[4096];
	struct method *m = arg;
	char path[64];
	unsigned int f;
	int whole = 1;
	int ffd;

	for (f = 0; f < sizeof(proc_files) / sizeof(proc_files[0]); f++) {
		snprintf(path, sizeof(path), "%s/%s", tid, proc_files[f]);
		ffd = c_openat(taskfd, path, O_RDONLY | O_CLOEXEC);
		if (ffd < 0) {
			if (errno != ENOENT && errno != ESRCH)
				return fail("opening /proc/PID/task/TID/*");
			whole = 0;
			continue;
		}
		if (c_read(ffd, text, sizeof(text)) <= 0)
			whole = 0;
		c_close(ffd);
	}
	if (whole)
		m->records++;
	else
		m->errors++;
	return 0;
}

/* The tasks of the process @pid, read by proc_task(). */
static int proc_pid(int procfd, const char *pid, __u32 id, void *arg)
{
	struct method *m = arg;
	char path[64];
	int tfd, r;

	snprintf(path, sizeof(path), "%s/task", pid);
	tfd = c_openat(procfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (tfd < 0) {
		if (errno != ENOENT && errno != ESRCH)
			return fail("opening /proc/PID/task");
		m->errors++;
		return 0;
	}
	r = each_pid(tfd, proc_task, m);
	c_close(tfd);
	/* A read of a task directory that fails ends its walk: it went away. */
	return r > 0 ? r : 0;
}

/*
 * (c) The /proc walk of top, htop and atop, threads included: for each
 * numeric /proc entry its task directory, and of each task in it
 * (/proc/PID/task/TID/) the files of proc_files[], each opened relative to
 * the task directory, read once into a buffer larger than the file, and
 * closed. Nothing is parsed, as nothing of a dump's record is. A task read
 * whole is a record; one that went away meanwhile (or a file the kernel
 * lacks) is counted in m->errors.
 */
static int collect_by_proc(struct method *m)
{
	return scan_proc(m, proc_pid, m);
}

/*
 * (b) One dump request with at most one attribute (@attr 0: none, as
 * nl_send() takes them); m->err says why it failed.
 */
int collect_by_dump(struct nl *nl, __u16 attr, const void *data, size_t len,
		    struct method *m)
{
	static char buf[RXBUF_SIZE];
	unsigned long long t0 = method_start(m);
	__u16 flags = NLM_F_DUMP;
	struct nlmsghdr *h;
	int intr = 0, done = 0;
	ssize_t n;

	if (nl_send(nl, nl->family, flags, TASKSTATS_CMD_GET, attr, data, len))
		return fail("sending the dump request");
	while (!done) {
		n = nl_recv(nl, buf, sizeof(buf));
		if (n < 0)
			return fail("receiving the dump");
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				intr = 1;
			if (h->nlmsg_type == NLMSG_DONE) {
				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					memcpy(&m->err, NLMSG_DATA(h), sizeof(int));
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				m->err = nl_error(h);
				if (m->err) {
					done = 1;
					break;
				}
			} else if (h->nlmsg_type == nl->family) {
				m->records += count_records(h);
			}
		}
	}
	method_end(m, t0);
	if (intr)
		note("dump: NLM_F_DUMP_INTR set (the task list changed during the dump)");
	return 0;
}

/* The RESULT lines of one method, named collect_<method>_<tasks>_*. */
static void report_method(const char *method, long tasks, const struct method *m)
{
	resultf(m->ns, "ns", "collect_%s_%ld_time", method, tasks);
	resultf(m->syscalls, "syscalls", "collect_%s_%ld_syscalls", method, tasks);
	resultf(m->records, "records", "collect_%s_%ld_records", method, tasks);
	if (m->errors)
		note("collect %s: %ld tasks went away during the scan", method, m->errors);
}

/*
 * Every method @reps times, after one untimed GET scan: the mean time, the
 * syscalls and records of the last; @tasks names the results.
 */
static int run_collect(long tasks, long reps)
{
	enum { GET, DUMP, PROC };
	static const struct {
		const char *name;
		int kind;
		__u16 attr;
	} methods[] = {
		{ "pid", GET, TASKSTATS_CMD_ATTR_PID },
		{ "dump", DUMP, 0 },
		{ "tgid", GET, TASKSTATS_CMD_ATTR_TGID },
		{ "dumptgid", DUMP, TASKSTATS_CMD_ATTR_DUMP_TGID },
		{ "proc", PROC, 0 },
		{ NULL },
	};
	struct method m, sum;
	int i, r = 0, ret = 0;
	struct nl nl;
	long rep;

	if (nl_taskstats(&nl, 4 << 20))
		return 1;
	/* Warm the /proc dentries so the first method pays no extra. */
	if (collect_by_get(&nl, TASKSTATS_CMD_ATTR_PID, &m)) {
		close(nl.fd);
		return 1;
	}
	for (i = 0; methods[i].name; i++) {
		memset(&sum, 0, sizeof(sum));
		/*
		 * A /proc walk reads directories and files the GET scan did
		 * not: one untimed walk first, as a top that keeps running
		 * finds them cached.
		 */
		r = methods[i].kind == PROC ? collect_by_proc(&m) : 0;
		for (rep = 0; rep < reps && !r; rep++) {
			if (methods[i].kind == PROC)
				r = collect_by_proc(&m);
			else if (methods[i].kind == DUMP)
				r = collect_by_dump(&nl, methods[i].attr, NULL, 0, &m);
			else
				r = collect_by_get(&nl, methods[i].attr, &m);
			if (r || m.err)
				break;
			sum.ns += m.ns;
		}
		if (r) {
			ret = 1;
			status("error", "collect_%s_%ld", methods[i].name, tasks);
			continue;
		}
		if (m.err) {
			note("collect %s: the dump failed: %s", methods[i].name, strerror(-m.err));
			if (m.err == -EINVAL || m.err == -EOPNOTSUPP) {
				status("unsupported", "collect_%s_%ld", methods[i].name, tasks);
			} else {
				status("error", "collect_%s_%ld", methods[i].name, tasks);
				ret = 1;
			}
			continue;
		}
		m.ns = sum.ns / reps;
		report_method(methods[i].name, tasks, &m);
	}
	close(nl.fd);
	return ret;
}

/* collect: every task's record by GETs and by dumps, with TASKS more processes. */
int cmd_collect(const struct opts *o)
{
	long tasks = pick(o->tasks, 1000, 100, o), reps = pick(o->reps, 3, 1, o);
	struct sleepers s;
	int ret;

	ret = sleepers_start(&s, tasks, "collect");
	if (!ret)
		ret = run_collect(tasks, reps);
	sleepers_stop(&s, "collect");
	return ret;
}
