// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink for the TASKSTATS family: requests of at most one
 * attribute, replies, attribute walks, and one TASKSTATS_CMD_GET. Every
 * sendmsg(2) and recvmsg(2) is counted in nr_syscalls.
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
 * Sends one generic netlink request with at most one attribute (@atype 0:
 * none). A NLA_FLAG attribute is one with @data NULL and @len 0.
 */
int nl_send(struct nl *nl, __u16 type, __u16 flags, __u8 cmd, __u16 atype,
	    const void *data, size_t len)
{
	union {
		struct nlmsghdr h;
		char buf[512];
	} req;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct iovec iov;
	struct msghdr msg = { 0 };
	struct genlmsghdr *g;
	struct nlattr *na;
	size_t size = NLMSG_HDRLEN + GENL_HDRLEN;

	if (len > sizeof(req) - size - NLA_HDRLEN - NLA_ALIGNTO) {
		errno = EMSGSIZE;
		return -1;
	}
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_type = type;
	req.h.nlmsg_flags = NLM_F_REQUEST | flags;
	req.h.nlmsg_seq = ++nl->seq;
	g = (struct genlmsghdr *)(req.buf + NLMSG_HDRLEN);
	g->cmd = cmd;
	g->version = 1;
	if (atype) {
		na = (struct nlattr *)(req.buf + size);
		na->nla_type = atype;
		na->nla_len = NLA_HDRLEN + len;
		if (len)
			memcpy(req.buf + size + NLA_HDRLEN, data, len);
		size += nla_total(len);
	}
	req.h.nlmsg_len = size;
	iov.iov_base = req.buf;
	iov.iov_len = size;
	msg.msg_name = &to;
	msg.msg_namelen = sizeof(to);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	return c_sendmsg(nl->fd, &msg) == (ssize_t)size ? 0 : -1;
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
