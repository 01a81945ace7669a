// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats_stress: generic netlink for the other parts: sockets,
 * requests, reading datagrams and answers, resolving the TASKSTATS family,
 * and taking TASKSTATS_CMD_NEW messages apart into records. Nothing here
 * keeps state: the caller owns the socket and the buffer.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "stress.h"

/*
 * Opens a generic netlink socket. A big @rcvbuf is forced past rmem_max
 * (we are root) so that steady readers rarely overflow; the kernel
 * doubles whatever it is given.
 */
int nl_open(int rcvbuf)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	int fd, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	if (rcvbuf > 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	/* We poll before every read; this only bounds a read gone wrong. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

void req_init(struct nl_req *r, __u16 type, __u8 cmd, __u16 flags,
	      __u32 seq)
{
	struct genlmsghdr *g;

	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	r->nlh.nlmsg_seq = seq;
	g = NLMSG_DATA(&r->nlh);
	g->cmd = cmd;
	g->version = TASKSTATS_GENL_VERSION;
}

void req_put(struct nl_req *r, __u16 type, const void *data, int len)
{
	struct nlattr *na = (struct nlattr *)(r->buf + NLMSG_ALIGN(r->nlh.nlmsg_len));

	if (NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_HDRLEN + len > sizeof(r->buf))
		return;
	na->nla_type = type;
	na->nla_len = NLA_HDRLEN + len;
	if (len > 0)
		memcpy((char *)na + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len = NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_ALIGN(na->nla_len);
}

/* Sends to the kernel by address: the sender alone vouches for it. */
int nl_send(int fd, struct nl_req *r)
{
	struct sockaddr_nl dst = { .nl_family = AF_NETLINK };

	if (sendto(fd, r->buf, r->nlh.nlmsg_len, 0, (struct sockaddr *)&dst,
		   sizeof(dst)) < 0)
		return -errno;
	return 0;
}

/* One datagram, or -errno; a truncated one is -EMSGSIZE. */
int nl_recv(int fd, char *buf, int size, int flags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n = recvmsg(fd, &mh, flags);

	if (n < 0)
		return -errno;
	if (mh.msg_flags & MSG_TRUNC)
		return -EMSGSIZE;
	return n;
}

/*
 * Waits for the answer to request @seq, skipping what answers older
 * requests. Returns its length (the message is at *@out), -ETIMEDOUT
 * past @until, or the -errno of a read.
 */
int nl_answer(int fd, __u32 seq, char *buf, double until,
	      struct nlmsghdr **out)
{
	for (;;) {
		struct nlmsghdr *h;
		int n;

		if (now() >= until)
			return -ETIMEDOUT;
		wait_in(fd, (until - now()) * 1000);
		n = nl_recv(fd, buf, BUF_SIZE, MSG_DONTWAIT);
		if (n == -EAGAIN || n == -EINTR)
			continue;
		if (n < 0)
			return n;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq == seq) {
				*out = h;
				return h->nlmsg_len;
			}
		}
	}
}

/* The error of an NLMSG_ERROR message, or -EBADMSG if it is too short. */
int nl_error(const struct nlmsghdr *h)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
		return -EBADMSG;
	return e->error;
}

struct attr_iter {
	const char *p;
	int rem;
};

static const void *attr_data(const struct nlattr *na)
{
	return (const char *)na + NLA_HDRLEN;
}

static struct attr_iter msg_attrs(const struct nlmsghdr *h)
{
	return (struct attr_iter){
		.p = (const char *)NLMSG_DATA(h) + GENL_HDRLEN,
		.rem = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN),
	};
}

/*
 * The next attribute, or NULL at the end; it.rem is then 0 if and only
 * if the attributes walked exactly to the end of their container.
 */
static const struct nlattr *attr_next(struct attr_iter *it)
{
	const struct nlattr *na = (const struct nlattr *)it->p;
	int step;

	if (it->rem < NLA_HDRLEN || na->nla_len < NLA_HDRLEN ||
	    na->nla_len > it->rem)
		return NULL;
	step = NLA_ALIGN(na->nla_len);
	if (step > it->rem)
		step = it->rem;
	it->p += step;
	it->rem -= step;
	return na;
}

int resolve_family(int fd, __u16 *id)
{
	struct nlmsghdr *h;
	struct attr_iter it;
	const struct nlattr *na;
	struct nl_req req;
	char *buf = malloc(BUF_SIZE);
	int n;

	if (!buf)
		return -ENOMEM;
	req_init(&req, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0, 1);
	req_put(&req, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
		sizeof(TASKSTATS_GENL_NAME));
	n = nl_send(fd, &req);
	if (!n)
		n = nl_answer(fd, 1, buf, now() + 5, &h);
	if (n > 0 && h->nlmsg_type == NLMSG_ERROR)
		n = nl_error(h) ? nl_error(h) : -EBADMSG;
	if (n > 0 && h->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN)) {
		it = msg_attrs(h);
		n = -EBADMSG;
		while ((na = attr_next(&it))) {
			if (na->nla_type == CTRL_ATTR_FAMILY_ID &&
			    na->nla_len >= NLA_HDRLEN + sizeof(*id)) {
				memcpy(id, attr_data(na), sizeof(*id));
				n = 0;
			}
		}
	}
	free(buf);
	return n > 0 ? -EBADMSG : n;
}

/* ------------------------------------------------------------ parsing */

static bool covers(int len, size_t off, size_t size)
{
	return len >= 0 && (size_t)len >= off + size;
}

/*
 * Takes an aggregate apart: its id attribute (PID in AGGR_PID, TGID in
 * AGGR_TGID), the optional NULL pad and STATS, and, if the request asked
 * for it, the optional NULL pad and CGROUP_ID (8 bytes); nothing else,
 * walking exactly to its end. Whoever asked checks r->has_cgid.
 */
static int parse_aggr(const struct nlattr *aggr, struct record *r,
		      const char **why)
{
	int type = aggr->nla_type & NLA_TYPE_MASK;
	int id_type = type == TASKSTATS_TYPE_AGGR_PID ? TASKSTATS_TYPE_PID :
							 TASKSTATS_TYPE_TGID;
	struct attr_iter it = {
		.p = attr_data(aggr),
		.rem = aggr->nla_len - NLA_HDRLEN,
	};
	const struct nlattr *na;
	const char *stats = NULL;
	bool have_id = false;

	memset(r, 0, sizeof(*r));
	r->aggr = type;
	while ((na = attr_next(&it))) {
		int len = na->nla_len - NLA_HDRLEN;
		int t = na->nla_type & NLA_TYPE_MASK;

		if (t == id_type && len == sizeof(__u32) && !have_id) {
			memcpy(&r->id, attr_data(na), sizeof(r->id));
			have_id = true;
		} else if (t == TASKSTATS_TYPE_NULL && len == 0 && !r->has_cgid) {
			continue;
		} else if (t == TASKSTATS_TYPE_STATS && !stats) {
			stats = attr_data(na);
			r->stats_len = len;
		} else if (t == TASKSTATS_TYPE_CGROUP_ID && stats && !r->has_cgid &&
			   len == sizeof(__u64)) {
			memcpy(&r->cgid, attr_data(na), sizeof(r->cgid));
			r->has_cgid = true;
		} else {
			*why = "an unexpected attribute in an aggregate";
			return -1;
		}
	}
	if (it.rem) {
		*why = "an aggregate that does not walk to its end";
		return -1;
	}
	if (!have_id || !stats) {
		*why = have_id ? "an aggregate without STATS" : "an aggregate without its id";
		return -1;
	}
	if (r->stats_len < 4) {
		*why = "STATS shorter than 4 bytes";
		return -1;
	}
	memcpy(&r->version, stats, sizeof(r->version));
	if (r->version < 1 || r->version > TASKSTATS_VERSION) {
		*why = "a STATS version out of 1..17";
		return -1;
	}
	if (covers(r->stats_len, offsetof(struct taskstats, ac_comm), TS_COMM_LEN)) {
		memcpy(r->comm, stats + offsetof(struct taskstats, ac_comm), TS_COMM_LEN);
		r->has_comm = true;
	}
	if (covers(r->stats_len, offsetof(struct taskstats, ac_pid), sizeof(__u32))) {
		memcpy(&r->ac_pid, stats + offsetof(struct taskstats, ac_pid),
		       sizeof(__u32));
		r->has_pid = true;
	}
	if (covers(r->stats_len, offsetof(struct taskstats, ac_tgid), sizeof(__u32))) {
		memcpy(&r->ac_tgid, stats + offsetof(struct taskstats, ac_tgid),
		       sizeof(__u32));
		r->has_tgid = true;
	}
	return 0;
}

/*
 * Takes a TASKSTATS_CMD_NEW message apart and hands each of its records,
 * in order, to @fn (which reports what it finds wrong itself). Returns
 * the number of records, or -1 with the reason in *@why.
 */
int parse_message(const struct nlmsghdr *h,
		  void (*fn)(const struct record *r, int i, void *arg),
		  void *arg, const char **why)
{
	const struct genlmsghdr *g = NLMSG_DATA(h);
	const struct nlattr *na;
	struct attr_iter it;
	struct record r;
	int n = 0;

	if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN)) {
		*why = "a message shorter than its genl header";
		return -1;
	}
	if (g->cmd != TASKSTATS_CMD_NEW) {
		*why = "a command other than TASKSTATS_CMD_NEW";
		return -1;
	}
	it = msg_attrs(h);
	while ((na = attr_next(&it))) {
		int type = na->nla_type & NLA_TYPE_MASK;

		if (type != TASKSTATS_TYPE_AGGR_PID &&
		    type != TASKSTATS_TYPE_AGGR_TGID) {
			*why = "a top-level attribute that is no aggregate";
			return -1;
		}
		if (parse_aggr(na, &r, why))
			return -1;
		if (fn)
			fn(&r, n, arg);
		n++;
	}
	if (it.rem) {
		*why = "aggregates that do not walk to the end of the message";
		return -1;
	}
	if (!n) {
		*why = "a message without any record";
		return -1;
	}
	return n;
}
