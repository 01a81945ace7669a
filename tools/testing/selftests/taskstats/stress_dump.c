// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats_stress: the dump thread. Dumps by pid and by thread group in
 * turn, each read to its NLMSG_DONE, checking the order of the ids, the
 * records and that the dumping thread, the setns child and the exec loop
 * are listed. The struct dumper belongs to that thread while it runs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "stress.h"

/* What a dump walk checks as it goes. */
struct dump_walk {
	struct dumper *d;
	int aggr;
	__u32 prev;
	unsigned long records;
	__u32 self;
	bool saw_self;
	bool saw_setns;
	bool saw_exec;
};

static void dump_record(const struct record *r, int i, void *arg)
{
	struct dump_walk *w = arg;

	if (r->aggr != w->aggr) {
		violation("dump: aggregate %d in a dump of %d", r->aggr, w->aggr);
		return;
	}
	if (w->records && r->id <= w->prev)
		violation("dump: id %u after %u: not in increasing order", r->id, w->prev);
	w->prev = r->id;
	w->records++;
	if (r->has_cgid)
		violation("dump: the record of %u carries a CGROUP_ID nobody asked for", r->id);
	if (r->aggr == TASKSTATS_TYPE_AGGR_PID && r->has_pid && r->ac_pid != r->id)
		violation("dump: the record of pid %u says ac_pid %u", r->id, r->ac_pid);
	if (r->id == w->self)
		w->saw_self = true;
	if (r->id == (__u32)setns_pid)
		w->saw_setns = true;
	if (r->id == (__u32)exec_pid)
		w->saw_exec = true;
}

static void dumper_reopen(struct dumper *d)
{
	close(d->fd);
	d->fd = nl_open(1 << 20);
}

/* What is wrong with the end of a complete dump, if anything. */
static void dump_end(struct dumper *d, struct dump_walk *w, bool tgid)
{
	if (!w->saw_self)
		violation("dump%s: %u is alive throughout but was not listed",
			  tgid ? " by tgid" : "", w->self);
	if (setns_pid > 0 && !w->saw_setns)
		d->setns_missing++;
	if (exec_pid > 0 && !w->saw_exec)
		d->exec_missing++;
	d->dumps++;
	d->records += w->records;
}

/*
 * One dump, read to its NLMSG_DONE. Returns 0, the error the dump ended
 * with, or -ETIMEDOUT; a probe reports nothing.
 */
int dump_once(struct dumper *d, bool tgid, bool probe)
{
	struct dump_walk w = {
		.d = d,
		.aggr = tgid ? TASKSTATS_TYPE_AGGR_TGID : TASKSTATS_TYPE_AGGR_PID,
		.self = tgid ? (__u32)getpid() : (__u32)thread_id(),
	};
	double until = now() + op_timeout;
	const char *how = tgid ? " by tgid" : "";
	struct nl_req req;
	int err;

	if (d->fd < 0)
		return -EBADF;
	req_init(&req, family, TASKSTATS_CMD_GET, NLM_F_DUMP, ++d->seq);
	if (tgid)
		req_put(&req, TASKSTATS_CMD_ATTR_DUMP_TGID, NULL, 0);
	err = nl_send(d->fd, &req);
	if (err) {
		if (!probe)
			violation("dump%s: send: %s", how, strerror(-err));
		return err;
	}
	for (;;) {
		struct nlmsghdr *h;
		const char *why;
		int n;

		if (now() >= until) {
			if (!probe)
				violation("dump%s: no NLMSG_DONE within %.0f s", how,
					  op_timeout);
			dumper_reopen(d);
			return -ETIMEDOUT;
		}
		wait_in(d->fd, (until - now()) * 1000);
		n = nl_recv(d->fd, d->buf, BUF_SIZE, MSG_DONTWAIT);
		if (n == -EAGAIN || n == -EINTR)
			continue;
		if (n < 0) {
			if (!probe)
				violation("dump%s: recv: %s", how, strerror(-n));
			dumper_reopen(d);
			return n;
		}
		for (h = (struct nlmsghdr *)d->buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != d->seq) {
				violation("dump%s: a message of request %u in request %u",
					  how, h->nlmsg_seq, d->seq);
				continue;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(int))) {
					violation("dump%s: NLMSG_DONE without its error", how);
					return -EBADMSG;
				}
				memcpy(&err, NLMSG_DATA(h), sizeof(err));
				if (err && !probe)
					violation("dump%s: ended with error %d (%s)", how,
						  err, strerror(-err));
				if (!err && !probe)
					dump_end(d, &w, tgid);
				return err;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				err = nl_error(h);
				if (!probe)
					violation("dump%s: refused with %d (%s)", how, err,
						  strerror(-err));
				return err ? err : -EBADMSG;
			}
			if (h->nlmsg_type != family || !(h->nlmsg_flags & NLM_F_MULTI)) {
				violation("dump%s: a message of type %u, flags %#x", how,
					  h->nlmsg_type, h->nlmsg_flags);
				continue;
			}
			if (parse_message(h, dump_record, &w, &why) < 0)
				violation("dump%s: malformed message: %s", how, why);
		}
		if (n > 0)
			violation("dump%s: %d stray bytes after the messages of a datagram",
				  how, n);
	}
}

void *dump_main(void *arg)
{
	struct dumper *d = arg;
	bool tgid = false;

	prctl(PR_SET_NAME, "tss_dump");
	while (!flag_get(&aux_stop)) {
		if (d->fd < 0) {
			dumper_reopen(d);
			if (d->fd < 0) {
				violation("dump: socket: %s", strerror(-d->fd));
				sleep_ms(100);
				continue;
			}
		}
		dump_once(d, tgid, false);
		tgid = !tgid;
		sleep_ms((5 + rng_below(&d->rng, 45)) * opt.pace);
	}
	return NULL;
}
