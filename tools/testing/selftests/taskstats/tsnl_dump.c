// SPDX-License-Identifier: GPL-2.0
/*
 * Dumps of TASKSTATS_CMD_GET (NLM_F_DUMP): the requests, the dump read
 * whole or one part (one datagram) at a time, and the records of each of
 * its messages.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>

#include "tsnl.h"
#include "tsnl_internal.h"

/* The record tsnl_dump_records() is calling its callback for. */
static const struct tsnl_reply *tsnl_dump_current;

const struct tsnl_reply *tsnl_dump_record(void)
{
	return tsnl_dump_current;
}

/**
 * tsnl_dump_records() - walk the records of one dump message.
 * @h: the message
 * @fn: called for every record, in order (the kernel sends one per
 *	message, but a client takes as many as a message holds); may be NULL;
 *	what it is not passed (the cgroup id) it finds in tsnl_dump_record()
 * @arg: passed to @fn
 *
 * Return: the number of records, or -EBADMSG for a message without a
 * well-formed record.
 */
int tsnl_dump_records(const struct nlmsghdr *h, tsnl_dump_fn fn, void *arg)
{
	struct tsnl_iter it;
	struct nlattr *na;
	int records = 0;

	if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return -EBADMSG;
	it = tsnl_genl_attrs(h, h->nlmsg_len);
	while ((na = tsnl_next(&it))) {
		struct tsnl_reply r = { .aggr_type = na->nla_type };
		struct taskstats ts;

		if (na->nla_type != TASKSTATS_TYPE_AGGR_PID &&
		    na->nla_type != TASKSTATS_TYPE_AGGR_TGID)
			continue;
		tsnl_parse_aggr(na, &r);
		if (!r.have_id || !r.stats)
			return -EBADMSG;
		tsnl_stats_copy(&ts, &r);
		tsnl_dump_current = &r;
		if (fn)
			fn(r.id, r.aggr_type, &ts, arg);
		tsnl_dump_current = NULL;
		records++;
	}
	/* A truncated last attribute stops the walk early: count it bad. */
	return records && it.rem <= 0 ? records : -EBADMSG;
}

/* The NLMSGERR_ATTR_MSG of @done, an NLMSG_DONE, in @msg; "" if none. */
static void tsnl_done_msg(const struct nlmsghdr *done, char *msg, size_t size)
{
	struct tsnl_iter it = tsnl_attrs((const char *)NLMSG_DATA(done) +
					 NLMSG_ALIGN(sizeof(int)),
					 done->nlmsg_len -
					 NLMSG_LENGTH(NLMSG_ALIGN(sizeof(int))));
	struct nlattr *na;

	msg[0] = 0;
	if (!(done->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	while ((na = tsnl_next(&it)))
		if (na->nla_type == NLMSGERR_ATTR_MSG) {
			snprintf(msg, size, "%.*s", (int)(na->nla_len - NLA_HDRLEN),
				 (const char *)NLA_DATA(na));
			return;
		}
}

/**
 * tsnl_dump_part() - read one part of a dump: one datagram, as the
 * kernel builds one skb of the dump per read of the socket.
 * @seq: the number of the request that started the dump; messages of
 *	other requests (exit records multicast to a listener) are skipped
 * @fn: called for every record, in the order the kernel sent them
 * @count: if not NULL, adds how the records came (see tsnl.h)
 * @done: set once the dump has ended, by its NLMSG_DONE or an NLMSG_ERROR
 *
 * Return: the number of records of the part, or the negative errno of the
 * read or of the dump, be it its first message (an NLMSG_ERROR: the dump
 * did not start) or the code of its NLMSG_DONE.
 */
int tsnl_dump_part(int fd, uint32_t seq, tsnl_dump_fn fn, void *arg,
		   struct tsnl_dump_count *count, bool *done)
{
	static char buf[TSNL_BUF_SIZE];
	int n, records = 0, err;
	struct nlmsghdr *h;

	*done = false;
	n = tsnl_recv(fd, buf, sizeof(buf), 0);
	if (n < 0)
		return n;
	if (count)
		count->reads++;
	for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
		if (!tsnl_answers(h, seq))
			continue;
		if (h->nlmsg_type == NLMSG_DONE) {
			*done = true;
			if (count)
				tsnl_done_msg(h, count->done_msg,
					      sizeof(count->done_msg));
			err = *(int *)NLMSG_DATA(h);
			return err < 0 ? err : records;
		}
		if (h->nlmsg_type == NLMSG_ERROR) {
			*done = true;
			return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
		}
		err = tsnl_dump_records(h, fn, arg);
		if (err < 0)
			return err;
		records += err;
		if (count) {
			count->messages++;
			if (err > count->most)
				count->most = err;
		}
	}
	return records;
}

/**
 * tsnl_dump_msg() - send the dump request @m and read the dump it starts.
 * @m: a TASKSTATS_CMD_GET with NLM_F_DUMP and whatever attributes
 * @fn: called for every record, in the order the kernel sent them
 * @count: if not NULL, gets how the records came (see tsnl.h)
 *
 * Return: the number of records, or the negative errno of the dump, be it
 * its first message (an NLMSG_ERROR: the dump did not start) or the code
 * of its NLMSG_DONE.
 */
int tsnl_dump_msg(int fd, struct tsnl_msg *m, tsnl_dump_fn fn, void *arg,
		  struct tsnl_dump_count *count)
{
	struct tsnl_dump_count c = { 0 };
	int n, records = 0, err;
	bool done = false;

	err = tsnl_send(fd, m);
	if (err)
		return err;
	while (!done) {
		n = tsnl_dump_part(fd, m->nlh.nlmsg_seq, fn, arg, &c, &done);
		if (n < 0)
			return n;
		records += n;
	}
	if (count)
		*count = c;
	return records;
}

/* A dump request: of one cgroup if @cgroup_fd is not negative. */
static void tsnl_dump_request(struct tsnl_msg *m, uint16_t family,
			      int cgroup_fd, int flags)
{
	tsnl_msg_init(m, family, TASKSTATS_CMD_GET, NLM_F_DUMP);
	if (cgroup_fd >= 0)
		tsnl_put_u32(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, cgroup_fd);
	if (flags & TSNL_DUMP_TGID)
		tsnl_put(m, TASKSTATS_CMD_ATTR_DUMP_TGID, NULL, 0);
	if (flags & TSNL_DUMP_SUBTREE)
		tsnl_put(m, TASKSTATS_CMD_ATTR_DUMP_SUBTREE, NULL, 0);
	if (flags & TSNL_CGROUP_ID)
		tsnl_put(m, TASKSTATS_CMD_ATTR_CGROUP_ID, NULL, 0);
}

/**
 * tsnl_dump() - TASKSTATS_CMD_GET with NLM_F_DUMP.
 * @tgid: ask for one record per thread group (TASKSTATS_CMD_ATTR_DUMP_TGID)
 * @fn: called for every record, in the order the kernel sent them
 * @count: if not NULL, gets how the records came (see tsnl.h)
 *
 * Return: the number of records, or the negative errno of the dump
 * (-EOPNOTSUPP from a kernel that cannot dump).
 */
int tsnl_dump(int fd, uint16_t family, bool tgid, tsnl_dump_fn fn, void *arg,
	      struct tsnl_dump_count *count)
{
	struct tsnl_msg m;

	tsnl_dump_request(&m, family, -1, tgid ? TSNL_DUMP_TGID : 0);
	return tsnl_dump_msg(fd, &m, fn, arg, count);
}

/**
 * tsnl_dump_cgroup() - a dump of one cgroup's tasks, or of every task.
 * @cgroup_fd: sent as TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD; none if negative
 * @flags: TSNL_DUMP_TGID, TSNL_DUMP_SUBTREE, TSNL_CGROUP_ID
 * @fn: called for every record, in the order the kernel sent them
 *
 * Return: the number of records, or the negative errno of the dump.
 */
int tsnl_dump_cgroup(int fd, uint16_t family, int cgroup_fd, int flags,
		     tsnl_dump_fn fn, void *arg)
{
	struct tsnl_msg m;

	tsnl_dump_request(&m, family, cgroup_fd, flags);
	return tsnl_dump_msg(fd, &m, fn, arg, NULL);
}
