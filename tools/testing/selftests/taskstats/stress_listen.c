// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats_stress: the exit listeners. Registering a socket for CPUs and
 * waiting for the acknowledgment behind queued records; the checks of each
 * exit record (at most once per socket, a storm id handed out, the pid of
 * the task that held it); the steady readers, and the chaotic threads
 * that open, register, flip CPUs, burst exits and close over and over.
 * Each struct listener is used by one thread at a time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "stress.h"

#define BURST		8		/* threads of a chaotic listener's burst */

/* A record of a storm task: at most once per socket, and a real task. */
static void storm_record(struct listener *l, const struct record *r)
{
	__u32 pid;
	long id;

	if (!r->has_comm) {
		violation("%s: an exit record of %d bytes, too short to name its task",
			  l->name, r->stats_len);
		return;
	}
	id = storm_id(r->comm);
	if (id < 0)
		return;
	if ((unsigned long)id >= opt.tasks || !bit_shared(created, id)) {
		violation("%s: a record of %s (pid %u), an id never handed out",
			  l->name, r->comm, r->id);
		return;
	}
	pid = __atomic_load_n(&pids[id], __ATOMIC_ACQUIRE);
	if (r->id != pid) {
		violation("%s: the record of %s has pid %u, the task was %u",
			  l->name, r->comm, r->id, pid);
		return;
	}
	if (bit_test_set(l->seen, id)) {
		violation("%s: two records of %s (pid %u)", l->name, r->comm, r->id);
		return;
	}
	l->storm_records++;
	/* Its worker's cgroup, where it exited: in_cg says which. */
	if (l->cg_fd >= 0 && !bit_shared(in_cg, id))
		violation("%s: listens to %s, and hears %s (pid %u), which exited elsewhere",
			  l->name, cg_path, r->comm, r->id);
	else if (l->cgid && r->has_cgid && l->cg_fd < 0 &&
		 (bit_shared(in_cg, id) ? cg_id : home_id) &&
		 r->cgid != (bit_shared(in_cg, id) ? cg_id : home_id))
		violation("%s: the record of %s (pid %u) says cgroup %llu, not %llu",
			  l->name, r->comm, r->id, (unsigned long long)r->cgid,
			  (unsigned long long)(bit_shared(in_cg, id) ? cg_id : home_id));
}

/*
 * A record carries CGROUP_ID if and only if its listener asked, and a
 * listener of one cgroup hears of no other: every record it gets (the
 * group's too: a group's leader is in its tasks' cgroup here) is of it.
 */
static void check_cgid(struct listener *l, const struct record *r)
{
	if (!l->cgid) {
		if (r->has_cgid)
			violation("%s: the exit record of %u carries a CGROUP_ID not asked for",
				  l->name, r->id);
		return;
	}
	if (!r->has_cgid) {
		violation("%s: the exit record of %u has no CGROUP_ID; it was asked for",
			  l->name, r->id);
		return;
	}
	l->cgid_records++;
	if (!r->cgid)
		violation("%s: the exit record of %u says cgroup 0", l->name, r->id);
	else if (l->cg_fd >= 0 && cg_id && r->cgid != cg_id)
		violation("%s: listens to cgroup %llu and hears %u of cgroup %llu",
			  l->name, (unsigned long long)cg_id, r->id,
			  (unsigned long long)r->cgid);
}

/* An exit message: the task's AGGR_PID, then maybe its group's AGGR_TGID. */
static void exit_record(const struct record *r, int i, void *arg)
{
	struct listener *l = arg;
	int want = i ? TASKSTATS_TYPE_AGGR_TGID : TASKSTATS_TYPE_AGGR_PID;

	if (i > 1 || r->aggr != want) {
		violation("%s: exit message with aggregate %d at place %d",
			  l->name, r->aggr, i);
		return;
	}
	check_cgid(l, r);
	if (r->aggr == TASKSTATS_TYPE_AGGR_TGID) {
		l->group_records++;
		if (l->last_tgid && r->id != l->last_tgid)
			violation("%s: exit message of a task of group %u carries group %u",
				  l->name, l->last_tgid, r->id);
		return;
	}
	l->records++;
	l->last_tgid = r->has_tgid ? r->ac_tgid : 0;
	if (r->has_pid && r->ac_pid != r->id)
		violation("%s: exit record of pid %u says ac_pid %u",
			  l->name, r->id, r->ac_pid);
	storm_record(l, r);
}

static void listener_message(struct listener *l, const struct nlmsghdr *h)
{
	const char *why = NULL;

	if (h->nlmsg_type == NLMSG_ERROR) {
		int err = nl_error(h);

		if (l->ack_wait && h->nlmsg_seq == l->seq) {
			l->ack_wait = false;
			l->ack_err = err;
		} else if (err != -EBADMSG && h->nlmsg_seq && h->nlmsg_seq <= l->seq) {
			l->stale_acks++;
		} else {
			violation("%s: an error message (%d, seq %u) that answers nothing",
				  l->name, err, h->nlmsg_seq);
		}
		return;
	}
	if (h->nlmsg_type != family) {
		violation("%s: a message of type %u on a listener", l->name,
			  h->nlmsg_type);
		return;
	}
	if (parse_message(h, exit_record, l, &why) < 0)
		violation("%s: malformed exit message: %s", l->name, why);
}

/* Reads at most @max datagrams that are queued; returns how many. */
static int listener_read(struct listener *l, int max)
{
	int i;

	for (i = 0; i < max; i++) {
		struct nlmsghdr *h;
		int n = nl_recv(l->fd, l->buf, BUF_SIZE, MSG_DONTWAIT);

		if (n == -EAGAIN)
			break;
		if (n == -EINTR)
			continue;
		if (n == -ENOBUFS) {
			/* Records were dropped; the queue still holds others. */
			l->enobufs++;
			l->overrun = true;
			continue;
		}
		if (n < 0) {
			violation("%s: recv: %s", l->name, strerror(-n));
			break;
		}
		for (h = (struct nlmsghdr *)l->buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n))
			listener_message(l, h);
		if (n > 0)
			violation("%s: %d stray bytes after the messages of a datagram",
				  l->name, n);
	}
	return i;
}

static const char *cpumask_op(int attr)
{
	return attr == TASKSTATS_CMD_ATTR_REGISTER_CPUMASK ? "register" : "deregister";
}

/*
 * Sends REGISTER_CPUMASK or DEREGISTER_CPUMASK on the listener's socket
 * and waits for the acknowledgment, handling the exit records queued in
 * front of it. The kernel queues the acknowledgment before sendto()
 * returns, or drops it like a record if the socket is full (and then
 * reports ENOBUFS): so we drain the socket first, and an answer that is
 * not there once the queue is empty again after an overrun was dropped.
 *
 * Returns the acknowledged error, ACK_LOST, or -ETIMEDOUT.
 */
int listener_cpumask(struct listener *l, int attr, const char *mask)
{
	double until = now() + op_timeout;
	struct nl_req req;
	int n, err;

	l->overrun = false;
	while (listener_read(l, 64) == 64 && now() < until)
		;
	/* A socket still full after the drain may drop the answer silently. */
	l->overrun = now() >= until;
	req_init(&req, family, TASKSTATS_CMD_GET, NLM_F_ACK, ++l->seq);
	req_put(&req, attr, mask, strlen(mask) + 1);
	/* A registration says its cgroup and flag each time: EBUSY otherwise. */
	if (attr == TASKSTATS_CMD_ATTR_REGISTER_CPUMASK && l->cg_fd >= 0) {
		__u32 fd = l->cg_fd;

		req_put(&req, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, &fd, sizeof(fd));
	}
	if (attr == TASKSTATS_CMD_ATTR_REGISTER_CPUMASK && l->cgid)
		req_put(&req, TASKSTATS_CMD_ATTR_CGROUP_ID, NULL, 0);
	l->ack_wait = true;
	err = nl_send(l->fd, &req);
	if (err) {
		l->ack_wait = false;
		return err;
	}
	until = now() + op_timeout;
	while (l->ack_wait) {
		n = listener_read(l, 64);
		if (!l->ack_wait)
			break;
		if (n < 64 && l->overrun) {
			l->ack_wait = false;
			l->lost_acks++;
			return ACK_LOST;
		}
		if (now() >= until) {
			l->ack_wait = false;
			return -ETIMEDOUT;
		}
		if (n < 64)
			wait_in(l->fd, 50);
	}
	return l->ack_err;
}

int listener_init(struct listener *l, const char *name, int index)
{
	snprintf(l->name, sizeof(l->name), "%s%d", name, index);
	l->fd = -1;
	l->cg_fd = -1;
	l->buf = malloc(BUF_SIZE);
	l->seen = calloc(1, map_bytes);
	l->rng = rng_seed(100 + index);
	return l->buf && l->seen ? 0 : -ENOMEM;
}

/* Opens @l's socket and registers it for every possible CPU. */
int listener_open_all(struct listener *l, int rcvbuf)
{
	struct stat st;
	int err;

	l->fd = nl_open(rcvbuf);
	if (l->fd < 0)
		return l->fd;
	if (!fstat(l->fd, &st))
		l->ino = st.st_ino;
	err = listener_cpumask(l, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, possible_str);
	return err == ACK_LOST ? -ENOBUFS : err;
}

/*
 * A steady reader: reads everything until the storm is over, then what
 * is left, all of which was queued before the workers reaped the tasks.
 */
void *steady_main(void *arg)
{
	struct listener *l = arg;

	while (!flag_get(&storm_over)) {
		wait_in(l->fd, 100);
		listener_read(l, 256);
	}
	while (listener_read(l, 256) == 256) {
		if (now() >= drain_until) {
			l->drain_cut = true;
			break;
		}
	}
	return NULL;
}

void *idle_thread(void *arg)
{
	return NULL;
}

/* A burst of exits on the chaotic thread's CPU: threads that return. */
static void burst(struct listener *l)
{
	pthread_t t[BURST];
	int i, n = 0;

	for (i = 0; i < BURST; i++)
		if (!pthread_create(&t[n], &small_stack, idle_thread, NULL))
			n++;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	l->bursts++;
}

/* A random cpulist of possible CPUs; now and then all, or none at all. */
static void random_mask(__u64 *rng, char *buf, size_t size)
{
	size_t pos = 0;
	int i;

	buf[0] = '\0';
	if (!rng_below(rng, 4)) {
		snprintf(buf, size, "%s", possible_str);
		return;
	}
	for (i = 0; i < npossible && pos + 16 < size; i++) {
		if (rng_below(rng, 2))
			continue;
		pos += snprintf(buf + pos, size - pos, "%s%d", pos ? "," : "",
				possible[i]);
	}
	/* An empty cpulist is valid and registers nothing. */
	if (!pos && rng_below(rng, 8))
		snprintf(buf, size, "%d", possible[rng_below(rng, npossible)]);
}

static void chaotic_cpumask(struct listener *l, int attr, const char *mask)
{
	int err = listener_cpumask(l, attr, mask);

	if (err == ACK_LOST)
		return;
	if (err == -ENOMEM) {
		l->enomem++;
		return;
	}
	if (err == -ETIMEDOUT)
		violation("%s: no answer to %s \"%s\" within %.0f s", l->name,
			  cpumask_op(attr), mask, op_timeout);
	else if (err)
		violation("%s: %s \"%s\" failed: %s", l->name, cpumask_op(attr),
			  mask, strerror(-err));
	else if (attr == TASKSTATS_CMD_ATTR_REGISTER_CPUMASK)
		l->registrations++;
}

static void chaotic_read_for(struct listener *l, double ms)
{
	double until = now() + ms / 1000;

	while (!flag_get(&aux_stop) && now() < until) {
		wait_in(l->fd, (until - now()) * 1000 < 100 ? (until - now()) * 1000 : 100);
		listener_read(l, 64);
	}
}

/*
 * One socket's life: registered for random CPUs, then a few random steps,
 * then closed, often with records queued or on their way.
 */
static void chaotic_round(struct listener *l)
{
	int rcvbuf = 4096 << rng_below(&l->rng, 9);
	char mask[sizeof(possible_str)], other[sizeof(possible_str)];
	bool close_now = false;
	int steps, i, j;

	l->fd = nl_open(rcvbuf);
	if (l->fd < 0) {
		violation("%s: socket: %s", l->name, strerror(-l->fd));
		sleep_ms(100);
		return;
	}
	memset(l->seen, 0, map_bytes);
	l->sockets++;
	l->last_tgid = 0;
	random_mask(&l->rng, mask, sizeof(mask));
	chaotic_cpumask(l, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask);
	steps = 1 + rng_below(&l->rng, 6);
	for (i = 0; i < steps && !close_now && !flag_get(&aux_stop); i++) {
		switch (rng_below(&l->rng, 6)) {
		case 0:		/* read for a while */
			chaotic_read_for(l, 10 + rng_below(&l->rng, 300));
			break;
		case 1:		/* let records pile up, maybe overflow */
			sleep_ms(10 + rng_below(&l->rng, 300));
			break;
		case 2:		/* move to other CPUs */
			random_mask(&l->rng, other, sizeof(other));
			chaotic_cpumask(l, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, other);
			random_mask(&l->rng, mask, sizeof(mask));
			chaotic_cpumask(l, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask);
			break;
		case 3:		/* CPUs off and on: at most once still holds */
			random_mask(&l->rng, other, sizeof(other));
			for (j = 0; j < 8 && !flag_get(&aux_stop); j++) {
				chaotic_cpumask(l, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
						other);
				chaotic_cpumask(l, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
						other);
			}
			break;
		case 4:		/* exits here, and maybe close while they arrive */
			burst(l);
			close_now = rng_below(&l->rng, 2);
			break;
		default:	/* no CPU at all, the socket stays: then again */
			chaotic_cpumask(l, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
					possible_str);
			chaotic_read_for(l, rng_below(&l->rng, 50));
			random_mask(&l->rng, mask, sizeof(mask));
			chaotic_cpumask(l, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask);
			break;
		}
	}
	if (wait_in(l->fd, 0) > 0)
		l->unread_closes++;
	close(l->fd);
	l->fd = -1;
}

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

void *chaotic_main(void *arg)
{
	struct listener *l = arg;
	char name[16];

	snprintf(name, sizeof(name), "tss_%.11s", l->name);
	prctl(PR_SET_NAME, name);
	pin_to(l->cpu);
	while (!flag_get(&aux_stop))
		chaotic_round(l);
	return NULL;
}
