// SPDX-License-Identifier: GPL-2.0
/*
 * cgroup: the dump of one cgroup v2 directory
 * (TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD) against the whole-system dump; owns
 * the benchmark's cgroup directory, created fresh and removed at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include "bench.h"

/* Where the guest mounts the cgroup v2 hierarchy; cgroup makes a directory there. */
#ifndef CGROUP2_ROOT
#define CGROUP2_ROOT	"/sys/fs/cgroup"
#endif
#define BENCH_CGROUP	CGROUP2_ROOT "/taskstats_bench"

/* ------------------------------------------------------------------- cgroup */

/* qsort() order of unsigned long long. */
static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values (sorts them). */
static unsigned long long median(unsigned long long *v, long n)
{
	qsort(v, n, sizeof(*v), cmp_ull);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * A fresh, empty cgroup v2 directory for the benchmark: one left by a
 * killed run is removed first (its tasks died with it). Returns an fd of
 * it, or -1 after a message.
 */
static int cgroup_create(void)
{
	struct statfs sfs;
	int fd;

	if (statfs(CGROUP2_ROOT, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		failx("cgroup: %s is not a cgroup v2 mount", CGROUP2_ROOT);
		return -1;
	}
	if (rmdir(BENCH_CGROUP) && errno != ENOENT)
		note("cgroup: a stale %s stays: %s", BENCH_CGROUP, strerror(errno));
	if (mkdir(BENCH_CGROUP, 0755)) {
		fail("mkdir " BENCH_CGROUP);
		return -1;
	}
	fd = open(BENCH_CGROUP, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fail(BENCH_CGROUP);
		rmdir(BENCH_CGROUP);
	}
	return fd;
}

/* Removes the cgroup once its last tasks have left it (they were reaped). */
static void cgroup_remove(int fd)
{
	int i;

	close(fd);
	for (i = 0; rmdir(BENCH_CGROUP); i++) {
		if (errno != EBUSY || i == 100) {
			note("cgroup: could not remove %s: %s", BENCH_CGROUP, strerror(errno));
			return;
		}
		sleep_ms(10);
	}
}

/* Moves @n of the @s's processes, spread over their pids, into the cgroup. */
static int cgroup_fill(const struct sleepers *s, long n)
{
	int fd = open(BENCH_CGROUP "/cgroup.procs", O_WRONLY | O_CLOEXEC);
	char buf[32];
	long i;
	int len;

	if (fd < 0)
		return fail(BENCH_CGROUP "/cgroup.procs");
	for (i = 0; i < n; i++) {
		/* One pid per write(2), as cgroup.procs takes them. */
		len = snprintf(buf, sizeof(buf), "%d", s->pids[i * s->started / n]);
		if (write(fd, buf, len) != len) {
			close(fd);
			return fail("writing a pid to " BENCH_CGROUP "/cgroup.procs");
		}
	}
	close(fd);
	return 0;
}

/* One dump: of the cgroup whose directory @fd is, or (-1) of every task. */
static int cgroup_dump(struct nl *nl, int fd, struct method *m)
{
	__u32 v = fd;

	if (fd < 0)
		return collect_by_dump(nl, 0, NULL, 0, m);
	return collect_by_dump(nl, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, &v, sizeof(v), m);
}

/*
 * The dump of one cgroup of @members processes among @tasks against the
 * whole-system dump, taken alternately (after one untimed pair), so both
 * see the same system: the median time of each, their syscalls and
 * records. The cgroup's dump walks its tasks, not the pid space: the goal
 * is that it costs at most 1/20 of the whole dump at 100 of 10 000.
 */
static int run_cgroup(const char *name, int cgfd, long members, long reps)
{
	unsigned long long *ns[2];
	struct method m[2], last[2];
	int i, k, r = 0;
	struct nl nl;
	long rep;

	if (nl_taskstats(&nl, 4 << 20))
		return 1;
	ns[0] = calloc(reps, sizeof(*ns[0]));
	ns[1] = calloc(reps, sizeof(*ns[1]));
	if (!ns[0] || !ns[1])
		r = failx("cgroup: out of memory");
	for (rep = -1; rep < reps && !r; rep++) {
		/* [0] the cgroup, [1] every task; which goes first alternates. */
		for (k = 0; k < 2 && !r; k++) {
			i = (rep & 1) ? 1 - k : k;
			r = cgroup_dump(&nl, i ? -1 : cgfd, &m[i]);
			if (!r && m[i].err) {
				errno = -m[i].err;
				r = fail(i ? "the whole-system dump" : "the cgroup's dump");
			}
		}
		if (!r && rep >= 0) {
			ns[0][rep] = m[0].ns;
			ns[1][rep] = m[1].ns;
			last[0] = m[0];
			last[1] = m[1];
		}
	}
	close(nl.fd);
	if (r) {
		status("error", "%s", name);
	} else {
		for (i = 0; i < 2; i++) {
			const char *w = i ? "_whole" : "";

			resultf(median(ns[i], reps), "ns", "%s%s_time", name, w);
			resultf(last[i].syscalls, "syscalls", "%s%s_syscalls", name, w);
			resultf(last[i].records, "records", "%s%s_records", name, w);
		}
		if (last[0].records != members)
			note("cgroup: its dump had %ld records for the %ld tasks in it",
			     last[0].records, members);
	}
	free(ns[0]);
	free(ns[1]);
	return r;
}

/* cgroup: the dump of a cgroup of MEMBERS of TASKS sleepers against the whole dump. */
int cmd_cgroup(const struct opts *o)
{
	long tasks = pick(o->tasks, 10000, 100, o), reps = pick(o->reps, 7, 3, o);
	long members = pick(o->members, 100, 10, o);
	struct sleepers s;
	struct method m;
	char name[96];
	struct nl nl;
	int fd, ret;

	snprintf(name, sizeof(name), "collect_cgroup_%ld_of_%ld", members, tasks);
	if (members > tasks)
		return failx("cgroup: -g %ld is more than -N %ld", members, tasks);
	fd = cgroup_create();
	if (fd < 0)
		return 1;
	/*
	 * The dump of the empty cgroup first: a kernel without it (the
	 * reference has no dump at all) is told before any task is started.
	 */
	ret = nl_taskstats(&nl, 0);
	if (!ret) {
		ret = cgroup_dump(&nl, fd, &m);
		close(nl.fd);
	}
	if (ret || m.err) {
		if (!ret)
			note("cgroup: the dump of an empty cgroup failed: %s", strerror(-m.err));
		if (!ret && (m.err == -EOPNOTSUPP || m.err == -EINVAL)) {
			status("unsupported", "%s", name);
		} else {
			status("error", "%s", name);
			ret = 1;
		}
		cgroup_remove(fd);
		return ret;
	}
	if (m.records) {
		/* A kernel that ignores the attribute dumps every task. */
		note("cgroup: the dump of an empty cgroup had %ld records", m.records);
		status("unsupported", "%s", name);
		cgroup_remove(fd);
		return 0;
	}
	ret = sleepers_start(&s, tasks, "cgroup");
	if (!ret)
		ret = cgroup_fill(&s, members);
	if (!ret) {
		note("cgroup: %ld of them in %s", members, BENCH_CGROUP);
		ret = run_cgroup(name, fd, members, reps);
	}
	sleepers_stop(&s, "cgroup");
	cgroup_remove(fd);
	return ret;
}
