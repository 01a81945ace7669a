// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink for the TASKSTATS family: requests and their attributes,
 * replies, attribute walks, one TASKSTATS_CMD_GET and the policy of an op.
 * Every sendmsg(2) and recvmsg(2) is counted in nr_syscalls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/genetlink.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"

static size_t nla_total(size_t payload)
{
	return NLA_ALIGN(NLA_HDRLEN + payload);
}

/*
 * Sends one generic netlink request with the @n attributes of @attrs, in
 * that order: 0, or -1 with errno.
 */
int nl_send_attrs(struct nl *nl, __u16 type, __u16 flags, __u8 cmd,
		  const struct nl_attr *attrs, int n)
{
	union {
		struct nlmsghdr h;
		char buf[1024];
	} req;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct iovec iov;
	struct msghdr msg = { 0 };
	struct genlmsghdr *g;
	struct nlattr *na;
	size_t size = NLMSG_HDRLEN + GENL_HDRLEN;
	int i;

	memset(&req, 0, size);
	for (i = 0; i < n; i++) {
		if (size + nla_total(attrs[i].len) > sizeof(req)) {
			errno = EMSGSIZE;
			return -1;
		}
		na = (struct nlattr *)(req.buf + size);
		memset(na, 0, nla_total(attrs[i].len));
		na->nla_type = attrs[i].type;
		na->nla_len = NLA_HDRLEN + attrs[i].len;
		if (attrs[i].len)
			memcpy(req.buf + size + NLA_HDRLEN, attrs[i].data, attrs[i].len);
		size += nla_total(attrs[i].len);
	}
	req.h.nlmsg_type = type;
	req.h.nlmsg_flags = NLM_F_REQUEST | flags;
	req.h.nlmsg_seq = ++nl->seq;
	req.h.nlmsg_len = size;
	g = (struct genlmsghdr *)(req.buf + NLMSG_HDRLEN);
	g->cmd = cmd;
	g->version = 1;
	iov.iov_base = req.buf;
	iov.iov_len = size;
	msg.msg_name = &to;
	msg.msg_namelen = sizeof(to);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	return c_sendmsg(nl->fd, &msg) == (ssize_t)size ? 0 : -1;
}

/*
 * Sends one generic netlink request with at most one attribute (@atype 0:
 * none). A NLA_FLAG attribute is one with @data NULL and @len 0.
 */
int nl_send(struct nl *nl, __u16 type, __u16 flags, __u8 cmd, __u16 atype,
	    const void *data, size_t len)
{
	struct nl_attr a = { atype, data, len };

	return nl_send_attrs(nl, type, flags, cmd, &a, atype ? 1 : 0);
}

/* Receives one datagram; a truncated one is an error (EMSGSIZE). */
ssize_t nl_recv(struct nl *nl, void *buf, size_t size)
{
	struct iovec iov = { buf, size };
	struct msghdr msg = { 0 };
	ssize_t n;

	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	n = c_recvmsg(nl->fd, &msg);
	if (n >= 0 && (msg.msg_flags & MSG_TRUNC)) {
		errno = EMSGSIZE;
		return -1;
	}
	return n;
}

/* The attributes of a generic netlink message. */
static struct nlattr *genl_attrs(const struct nlmsghdr *h, int *len)
{
	*len = (int)h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	return (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
}

static int nla_ok(const struct nlattr *na, int len)
{
	return len >= (int)NLA_HDRLEN && na->nla_len >= NLA_HDRLEN && na->nla_len <= len;
}

static struct nlattr *nla_next(const struct nlattr *na, int *len)
{
	*len -= NLA_ALIGN(na->nla_len);
	return (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len));
}

/* Records (AGGR_PID or AGGR_TGID nests) in one TASKSTATS_CMD_NEW message. */
int count_records(const struct nlmsghdr *h)
{
	struct nlattr *na;
	int len, n = 0, type;

	for (na = genl_attrs(h, &len); nla_ok(na, len); na = nla_next(na, &len)) {
		type = na->nla_type & NLA_TYPE_MASK;
		if (type == TASKSTATS_TYPE_AGGR_PID || type == TASKSTATS_TYPE_AGGR_TGID)
			n++;
	}
	return n;
}

/* 0 for an ack, -errno for an error message. */
int nl_error(const struct nlmsghdr *h)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
		return -EPROTO;
	return e->error;
}

/*
 * Opens a generic netlink socket, its family not yet resolved; @rcvbuf, if
 * not 0, sizes its receive buffer. 0, or -1 with errno.
 */
int nl_open(struct nl *nl, int rcvbuf)
{
	nl->seq = 0;
	nl->family = 0;
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -1;
	if (rcvbuf &&
	    setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) &&
	    setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf))) {
		close(nl->fd);
		return -1;
	}
	return 0;
}

/* Resolves the TASKSTATS family with CTRL_CMD_GETFAMILY. */
static int nl_family(struct nl *nl)
{
	static char buf[RXBUF_SIZE];
	struct nlmsghdr *h;
	struct nlattr *na;
	ssize_t n;
	int len;

	if (nl_send(nl, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		    TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME)))
		return -1;
	n = nl_recv(nl, buf, sizeof(buf));
	if (n < 0)
		return -1;
	for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
		if (h->nlmsg_type == NLMSG_ERROR) {
			errno = -nl_error(h);
			return -1;
		}
		for (na = genl_attrs(h, &len); nla_ok(na, len); na = nla_next(na, &len)) {
			if (na->nla_type == CTRL_ATTR_FAMILY_ID) {
				memcpy(&nl->family, (char *)na + NLA_HDRLEN, sizeof(nl->family));
				return 0;
			}
		}
	}
	errno = ENOENT;
	return -1;
}

/* A socket that speaks TASKSTATS (@rcvbuf as nl_open()): 0, or 1 after a message. */
int nl_taskstats(struct nl *nl, int rcvbuf)
{
	if (nl_open(nl, rcvbuf))
		return fail("netlink socket");
	if (nl_family(nl)) {
		close(nl->fd);
		return fail("resolving the TASKSTATS generic netlink family");
	}
	return 0;
}

/*
 * One TASKSTATS_CMD_GET of @attr (PID or TGID) @id: the number of records
 * in the answer (1), or -errno.
 */
int get_one(struct nl *nl, __u16 attr, __u32 id, char *buf)
{
	struct nlmsghdr *h;
	int records = 0;
	ssize_t n;

	if (nl_send(nl, nl->family, 0, TASKSTATS_CMD_GET, attr, &id, sizeof(id)))
		return -errno;
	n = nl_recv(nl, buf, RXBUF_SIZE);
	if (n < 0)
		return -errno;
	for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
		if (h->nlmsg_type == NLMSG_ERROR)
			return nl_error(h) ? nl_error(h) : -EPROTO;
		if (h->nlmsg_type == nl->family)
			records += count_records(h);
	}
	return records ? records : -EPROTO;
}

/* The first attribute inside the nest @na, and the length of its contents. */
static struct nlattr *nla_inner(const struct nlattr *na, int *len)
{
	*len = (int)na->nla_len - NLA_HDRLEN;
	return (struct nlattr *)((char *)na + NLA_HDRLEN);
}

static __u32 nla_u32(const struct nlattr *na)
{
	__u32 v = 0;

	if (na->nla_len >= NLA_HDRLEN + sizeof(v))
		memcpy(&v, (char *)na + NLA_HDRLEN, sizeof(v));
	return v;
}

/* Up to this many policies of one op are remembered by nl_policy_has(). */
#define POLICY_SLOTS	64

/*
 * Whether the policy of operation @op of the generic netlink family
 * @family (its do policy, else its dump policy) lists attribute @attr, as
 * the kernel reports it (CTRL_CMD_GETPOLICY with CTRL_ATTR_OP): 1 or 0,
 * or -errno (-ENOENT: no such family; -EOPNOTSUPP or -EINVAL: a
 * controller too old to report one op's policy). @nl is any generic
 * netlink socket.
 */
int nl_policy_has(struct nl *nl, const char *family, __u8 op, __u16 attr)
{
	static char buf[RXBUF_SIZE];
	__u32 opid = op, want = (__u32)-1, dump = (__u32)-1;
	struct nl_attr req[] = {
		{ CTRL_ATTR_FAMILY_NAME, family, strlen(family) + 1 },
		{ CTRL_ATTR_OP, &opid, sizeof(opid) },
	};
	/* Which attributes each policy index lists; only @attr matters. */
	unsigned char has[POLICY_SLOTS] = { 0 };
	struct nlattr *na, *p, *q, *r;
	int len, plen, qlen, rlen, err = 0, done = 0;
	struct nlmsghdr *h;
	ssize_t n;
	__u32 idx;

	if (nl_send_attrs(nl, GENL_ID_CTRL, NLM_F_DUMP, CTRL_CMD_GETPOLICY, req, 2))
		return -errno;
	while (!done) {
		n = nl_recv(nl, buf, sizeof(buf));
		if (n < 0)
			return -errno;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != nl->seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				err = nl_error(h);
				if (err) {
					done = 1;
					break;
				}
				continue;
			}
			for (na = genl_attrs(h, &len); nla_ok(na, len); na = nla_next(na, &len)) {
				int type = na->nla_type & NLA_TYPE_MASK;

				if (type == CTRL_ATTR_OP_POLICY) {
					/*
					 * { op: { POLICY_DO: idx, POLICY_DUMP: idx } },
					 * of the one op asked for (a dump-only op is
					 * nested as op 0 by some kernels: not checked).
					 */
					for (p = nla_inner(na, &plen); nla_ok(p, plen);
					     p = nla_next(p, &plen)) {
						for (q = nla_inner(p, &qlen); nla_ok(q, qlen);
						     q = nla_next(q, &qlen)) {
							if ((q->nla_type & NLA_TYPE_MASK) ==
							    CTRL_ATTR_POLICY_DO)
								want = nla_u32(q);
							else if ((q->nla_type & NLA_TYPE_MASK) ==
								 CTRL_ATTR_POLICY_DUMP)
								dump = nla_u32(q);
						}
					}
				} else if (type == CTRL_ATTR_POLICY) {
					/* { policy index: { attribute: { its type, ... } } } */
					for (p = nla_inner(na, &plen); nla_ok(p, plen);
					     p = nla_next(p, &plen)) {
						idx = p->nla_type & NLA_TYPE_MASK;
						for (q = nla_inner(p, &qlen); nla_ok(q, qlen);
						     q = nla_next(q, &qlen)) {
							if ((q->nla_type & NLA_TYPE_MASK) != attr ||
							    idx >= POLICY_SLOTS)
								continue;
							/* A listed attribute has a type. */
							for (r = nla_inner(q, &rlen); nla_ok(r, rlen);
							     r = nla_next(r, &rlen))
								if ((r->nla_type & NLA_TYPE_MASK) ==
								    NL_POLICY_TYPE_ATTR_TYPE)
									has[idx] = 1;
						}
					}
				}
			}
		}
	}
	if (err)
		return err;
	if (want == (__u32)-1)
		want = dump;
	if (want == (__u32)-1)
		return 0;	/* the op has no policy: it takes no attribute */
	return want < POLICY_SLOTS && has[want];
}
