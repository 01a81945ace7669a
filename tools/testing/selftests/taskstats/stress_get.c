// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats_stress: the GET thread. GETs by pid and tgid of the exec loop
 * and each of its threads, of the setns child and of the storm's youngest
 * tasks as they exit; each answer must be the record asked for, ESRCH,
 * EPERM or ENOMEM. The thread also counts the exec loop's generations.
 * The struct getter belongs to that thread while it runs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "stress.h"

/* What a GET asked for, to check its answer. */
struct get_walk {
	int aggr;
	__u32 id;
	unsigned long records;
	bool bad;
	bool reaped;
};

static void get_record(const struct record *r, int i, void *arg)
{
	struct get_walk *w = arg;

	w->records++;
	if (r->has_cgid)
		violation("GET %u: a CGROUP_ID nobody asked for", w->id);
	if (i || r->aggr != w->aggr || r->id != w->id) {
		violation("GET %u: record %d is aggregate %d of %u", w->id, i,
			  r->aggr, r->id);
		w->bad = true;
	} else if (r->aggr == TASKSTATS_TYPE_AGGR_PID && r->has_pid &&
		   r->ac_pid != r->id) {
		/*
		 * Upstream's GET fills the record of a task reaped after the
		 * lookup, and the pid it no longer has reads 0; the series
		 * answers ESRCH. A kernel without the dump has upstream's
		 * netlink code (the reference, an early step of the series).
		 * Between the two, the exec loop's thread that execs swaps
		 * pids with its leader (de_thread()): a task of that group
		 * looked up before the swap reads the other's pid.
		 */
		if (!dumps_ok && (!r->ac_pid || (r->has_tgid &&
						 r->ac_tgid == (__u32)exec_pid))) {
			w->reaped = true;
			return;
		}
		violation("GET %u: the record says ac_pid %u", w->id, r->ac_pid);
		w->bad = true;
	}
}

/* One GET by pid or tgid: a record of it, or ESRCH, EPERM, ENOMEM. */
static void do_get(struct getter *g, int attr, __u32 id)
{
	struct get_walk w = {
		.aggr = attr == TASKSTATS_CMD_ATTR_PID ? TASKSTATS_TYPE_AGGR_PID :
							 TASKSTATS_TYPE_AGGR_TGID,
		.id = id,
	};
	const char *how = attr == TASKSTATS_CMD_ATTR_PID ? "pid" : "tgid";
	struct nlmsghdr *h;
	struct nl_req req;
	const char *why;
	int n;

	if (g->fd < 0)
		return;
	req_init(&req, family, TASKSTATS_CMD_GET, 0, ++g->seq);
	req_put(&req, attr, &id, sizeof(id));
	n = nl_send(g->fd, &req);
	if (!n)
		n = nl_answer(g->fd, g->seq, g->buf, now() + op_timeout, &h);
	if (n < 0) {
		violation("GET %s %u: %s", how, id,
			  n == -ETIMEDOUT ? "no answer in time" : strerror(-n));
		close(g->fd);
		g->fd = nl_open(1 << 20);
		return;
	}
	g->gets++;
	if (h->nlmsg_type == NLMSG_ERROR) {
		n = nl_error(h);
		if (n == -ESRCH)
			g->esrch++;
		else if (n == -EPERM)
			g->eperm++;
		else if (n == -ENOMEM)
			g->enomem++;
		else
			violation("GET %s %u: answered %d (%s)", how, id, n,
				  n ? strerror(-n) : "an acknowledgment, no record");
		return;
	}
	if (h->nlmsg_type != family) {
		violation("GET %s %u: answered with a message of type %u", how, id,
			  h->nlmsg_type);
		return;
	}
	if (parse_message(h, get_record, &w, &why) < 0)
		violation("GET %s %u: malformed answer: %s", how, id, why);
	else if (w.reaped)
		g->reaped++;
	else if (!w.bad)
		g->records++;
}

/* Up to @max thread ids of process @tgid. */
static int task_ids(pid_t tgid, __u32 *ids, int max)
{
	struct dirent *e;
	char path[64];
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (n < max && (e = readdir(dir)))
		if (e->d_name[0] != '.')
			ids[n++] = strtoul(e->d_name, NULL, 10);
	closedir(dir);
	return n;
}

static int random_attr(struct getter *g)
{
	return rng_below(&g->rng, 2) ? TASKSTATS_CMD_ATTR_PID : TASKSTATS_CMD_ATTR_TGID;
}

void *get_main(void *arg)
{
	struct getter *g = arg;
	__u32 ids[16];
	char sink[256];
	int i, n;

	prctl(PR_SET_NAME, "tss_get");
	while (!flag_get(&aux_stop)) {
		unsigned long next, id;
		ssize_t got;

		if (g->fd < 0) {
			g->fd = nl_open(1 << 20);
			if (g->fd < 0) {
				violation("GET: socket: %s", strerror(-g->fd));
				sleep_ms(100);
				continue;
			}
		}
		got = read(exec_count_fd, sink, sizeof(sink));
		if (got > 0)
			__atomic_add_fetch(&execs, got, __ATOMIC_RELAXED);
		switch (rng_below(&g->rng, 4)) {
		case 0:		/* the exec loop, as a whole */
			do_get(g, TASKSTATS_CMD_ATTR_TGID, exec_pid);
			do_get(g, TASKSTATS_CMD_ATTR_PID, exec_pid);
			break;
		case 1:		/* each of its threads, exec'ing or dying */
			n = task_ids(exec_pid, ids, 16);
			for (i = 0; i < n && !flag_get(&aux_stop); i++)
				do_get(g, random_attr(g), ids[i]);
			break;
		case 2:		/* the setns child */
			do_get(g, random_attr(g), setns_pid);
			break;
		default:	/* the storm's youngest, as they exit */
			next = shared_get(&sh->next_id);
			if (next > opt.tasks)
				next = opt.tasks;
			for (i = 0; i < 4 && next; i++) {
				id = next - 1 - rng_below(&g->rng, next < 64 ? next : 64);
				n = __atomic_load_n(&pids[id], __ATOMIC_ACQUIRE);
				if (n)
					do_get(g, random_attr(g), n);
			}
			break;
		}
		sleep_ms(opt.pace);
	}
	return NULL;
}
