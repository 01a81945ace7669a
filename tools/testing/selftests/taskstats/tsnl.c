// SPDX-License-Identifier: GPL-2.0
/*
 * Minimal generic netlink client for the taskstats selftests: requests
 * built and sent, the answers to them read and parsed (taskstats and
 * cgroupstats replies, acknowledgments), exit records. Dumps are in
 * tsnl_dump.c, family introspection in tsnl_family.c; the attribute
 * walking they share with this file is declared in tsnl_internal.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "tsnl.h"
#include "tsnl_internal.h"

static uint32_t tsnl_seq;

/**
 * tsnl_open() - open a generic netlink socket with a receive buffer large
 * enough to hold a burst of exit records.
 *
 * Return: the socket, or -errno.
 */
int tsnl_open(void)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	int rcvbuf = 1 << 20;
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

void tsnl_msg_init(struct tsnl_msg *m, uint16_t family, uint8_t cmd,
		   uint16_t flags)
{
	struct genlmsghdr *g;

	memset(m, 0, sizeof(*m));
	m->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m->nlh.nlmsg_type = family;
	m->nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	m->nlh.nlmsg_seq = ++tsnl_seq;
	g = NLMSG_DATA(&m->nlh);
	g->cmd = cmd;
	g->version = TASKSTATS_GENL_VERSION;
}

/* Appends an attribute; len may be anything, including "wrong", on purpose. */
void tsnl_put(struct tsnl_msg *m, uint16_t type, const void *data, int len)
{
	struct nlattr *na = (struct nlattr *)(m->buf + NLMSG_ALIGN(m->nlh.nlmsg_len));

	na->nla_type = type;
	na->nla_len = NLA_HDRLEN + len;
	if (len > 0)
		memcpy(NLA_DATA(na), data, len);
	m->nlh.nlmsg_len = NLMSG_ALIGN(m->nlh.nlmsg_len) + NLA_ALIGN(na->nla_len);
}

void tsnl_put_u32(struct tsnl_msg *m, uint16_t type, uint32_t v)
{
	tsnl_put(m, type, &v, sizeof(v));
}

void tsnl_put_str(struct tsnl_msg *m, uint16_t type, const char *s)
{
	tsnl_put(m, type, s, strlen(s) + 1);
}

int tsnl_send(int fd, struct tsnl_msg *m)
{
	struct sockaddr_nl dst = { .nl_family = AF_NETLINK };

	if (sendto(fd, m->buf, m->nlh.nlmsg_len, 0, (struct sockaddr *)&dst,
		   sizeof(dst)) < 0)
		return -errno;
	return 0;
}

/* One datagram; -errno on failure (-EAGAIN with MSG_DONTWAIT and nothing queued). */
int tsnl_recv(int fd, void *buf, int size, int flags)
{
	int n = recv(fd, buf, size, flags);

	return n < 0 ? -errno : n;
}

/**
 * tsnl_answers() - whether @h answers our request numbered @seq.
 *
 * The kernel addresses its answers (replies, dump parts, acknowledgments)
 * to the asking socket's port id, never 0, and sends exit records with
 * port id 0 and a per-CPU sequence number that may equal any request's:
 * a listener that asks must look at both.
 */
bool tsnl_answers(const struct nlmsghdr *h, uint32_t seq)
{
	return h->nlmsg_seq == seq && h->nlmsg_pid != 0;
}

/**
 * tsnl_transact() - send @m and wait for the answer to it.
 *
 * Messages that are not answers to @m (exit records multicast to a listener
 * on the same socket) are skipped.
 *
 * Return: the length of the reply message copied to the start of @buf,
 * 0 for a bare acknowledgment, or the negative errno the kernel returned.
 */
int tsnl_transact(int fd, struct tsnl_msg *m, void *buf, int size)
{
	uint32_t seq = m->nlh.nlmsg_seq;
	int err = tsnl_send(fd, m);

	if (err)
		return err;
	for (;;) {
		int n = tsnl_recv(fd, buf, size, 0);
		struct nlmsghdr *h;

		if (n < 0)
			return n;
		for (h = buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (!tsnl_answers(h, seq))
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error;
			}
			memmove(buf, h, h->nlmsg_len);
			return h->nlmsg_len;
		}
	}
}

struct tsnl_iter tsnl_attrs(const void *start, int len)
{
	return (struct tsnl_iter){ .p = start, .rem = len };
}

/* The attributes after the genl header of message @h, @len bytes long. */
struct tsnl_iter tsnl_genl_attrs(const void *h, int len)
{
	return tsnl_attrs((const char *)NLMSG_DATA(h) + GENL_HDRLEN,
			  len - NLMSG_LENGTH(GENL_HDRLEN));
}

struct nlattr *tsnl_next(struct tsnl_iter *it)
{
	struct nlattr *na = (struct nlattr *)it->p;
	int step;

	if (it->rem < NLA_HDRLEN || na->nla_len < NLA_HDRLEN ||
	    na->nla_len > it->rem)
		return NULL;
	step = NLA_ALIGN(na->nla_len);
	it->p += step;
	it->rem -= step;
	return na;
}

/* The u64 of a CGROUP_ID attribute, which may be only 4-byte aligned. */
static void tsnl_cgroup_id(const struct nlattr *na, struct tsnl_reply *r)
{
	r->have_cgroup_id = true;
	if (na->nla_len - NLA_HDRLEN >= (int)sizeof(r->cgroup_id))
		memcpy(&r->cgroup_id, NLA_DATA(na), sizeof(r->cgroup_id));
}

void tsnl_parse_aggr(const struct nlattr *aggr, struct tsnl_reply *r)
{
	struct tsnl_iter it = tsnl_attrs(NLA_DATA(aggr), aggr->nla_len - NLA_HDRLEN);
	struct nlattr *na;
	bool null_seen = false;

	r->shape.len = aggr->nla_len;
	while ((na = tsnl_next(&it))) {
		if (r->shape.n < TSNL_NEST_MAX)
			r->shape.type[r->shape.n] = na->nla_type;
		r->shape.n++;
		switch (na->nla_type) {
		case TASKSTATS_TYPE_PID:
		case TASKSTATS_TYPE_TGID:
			memcpy(&r->id, NLA_DATA(na), sizeof(r->id));
			r->have_id = true;
			break;
		case TASKSTATS_TYPE_NULL:
			null_seen = true;
			break;
		case TASKSTATS_TYPE_STATS:
			r->stats = NLA_DATA(na);
			r->stats_len = na->nla_len - NLA_HDRLEN;
			r->saw_null_pad = null_seen;
			break;
		case TASKSTATS_TYPE_CGROUP_ID:
			tsnl_cgroup_id(na, r);
			break;
		}
	}
}

/**
 * tsnl_parse() - find the aggregate, id and stats of a taskstats or
 * cgroupstats reply message at the start of @buf.
 *
 * Return: 0, or -EBADMSG if the message is not a well-formed genl message.
 */
int tsnl_parse(const void *buf, int len, struct tsnl_reply *r)
{
	const struct nlmsghdr *h = buf;
	const struct genlmsghdr *g;
	struct tsnl_iter it;
	struct nlattr *na;

	memset(r, 0, sizeof(*r));
	if (!NLMSG_OK(h, len) || h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return -EBADMSG;
	g = NLMSG_DATA(h);
	r->cmd = g->cmd;
	it = tsnl_genl_attrs(h, h->nlmsg_len);
	while ((na = tsnl_next(&it))) {
		switch (na->nla_type) {
		case TASKSTATS_TYPE_AGGR_PID:
		case TASKSTATS_TYPE_AGGR_TGID:
			/* CGROUPSTATS_TYPE_CGROUP_STATS shares number 1 with
			 * TASKSTATS_TYPE_PID, which never stands at top level.
			 */
			r->aggr_type = na->nla_type;
			tsnl_parse_aggr(na, r);
			break;
		case CGROUPSTATS_TYPE_CGROUP_STATS:
			r->cgstats = NLA_DATA(na);
			r->cgstats_len = na->nla_len - NLA_HDRLEN;
			break;
		}
	}
	return 0;
}

/**
 * tsnl_get_flags() - TASKSTATS_CMD_GET for one pid or tgid.
 * @attr: TASKSTATS_CMD_ATTR_PID or TASKSTATS_CMD_ATTR_TGID
 * @flags: TSNL_CGROUP_ID, or 0
 * @ts: zeroed, then filled with as much of the reply's struct as fits
 * @buf: TSNL_BUF_SIZE bytes that @r points into afterwards
 *
 * Return: 0 or the negative errno of the request.
 */
int tsnl_get_flags(int fd, uint16_t family, int attr, uint32_t id, int flags,
		   struct taskstats *ts, struct tsnl_reply *r, void *buf)
{
	struct tsnl_msg m;
	int n;

	tsnl_msg_init(&m, family, TASKSTATS_CMD_GET, 0);
	tsnl_put_u32(&m, attr, id);
	if (flags & TSNL_CGROUP_ID)
		tsnl_put(&m, TASKSTATS_CMD_ATTR_CGROUP_ID, NULL, 0);
	n = tsnl_transact(fd, &m, buf, TSNL_BUF_SIZE);
	if (n < 0)
		return n;
	if (n == 0 || tsnl_parse(buf, n, r) || !r->stats)
		return -EBADMSG;
	tsnl_stats_copy(ts, r);
	return 0;
}

/* tsnl_get_flags() without flags: the request every kernel knows. */
int tsnl_get(int fd, uint16_t family, int attr, uint32_t id,
	     struct taskstats *ts, struct tsnl_reply *r, void *buf)
{
	return tsnl_get_flags(fd, family, attr, id, 0, ts, r, buf);
}

/**
 * tsnl_cpumask() - register or deregister this socket as exit listener.
 * @attr: TASKSTATS_CMD_ATTR_REGISTER_CPUMASK or _DEREGISTER_CPUMASK
 * @mask: cpulist string such as "0-3"
 *
 * Return: 0 or the negative errno of the request.
 */
int tsnl_cpumask(int fd, uint16_t family, int attr, const char *mask)
{
	char buf[TSNL_BUF_SIZE];
	struct tsnl_msg m;

	tsnl_msg_init(&m, family, TASKSTATS_CMD_GET, NLM_F_ACK);
	tsnl_put_str(&m, attr, mask);
	return tsnl_transact(fd, &m, buf, sizeof(buf));
}

/**
 * tsnl_register() - register this socket as exit listener with a filter.
 * @mask: cpulist string such as "0-3"
 * @cgroup_fd: sent as TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD (a cgroup listener);
 *	no attribute if negative
 * @flags: TSNL_DUMP_SUBTREE, TSNL_CGROUP_ID
 *
 * Return: 0 or the negative errno of the request.
 */
int tsnl_register(int fd, uint16_t family, const char *mask, int cgroup_fd,
		  int flags)
{
	char buf[TSNL_BUF_SIZE];
	struct tsnl_msg m;

	tsnl_msg_init(&m, family, TASKSTATS_CMD_GET, NLM_F_ACK);
	tsnl_put_str(&m, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask);
	if (cgroup_fd >= 0)
		tsnl_put_u32(&m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, cgroup_fd);
	if (flags & TSNL_DUMP_SUBTREE)
		tsnl_put(&m, TASKSTATS_CMD_ATTR_DUMP_SUBTREE, NULL, 0);
	if (flags & TSNL_CGROUP_ID)
		tsnl_put(&m, TASKSTATS_CMD_ATTR_CGROUP_ID, NULL, 0);
	return tsnl_transact(fd, &m, buf, sizeof(buf));
}

/* Copies as much of the reply's struct as fits into @ts, zeroing the rest. */
void tsnl_stats_copy(struct taskstats *ts, const struct tsnl_reply *r)
{
	int len = r->stats_len < (int)sizeof(*ts) ? r->stats_len : (int)sizeof(*ts);

	memset(ts, 0, sizeof(*ts));
	if (r->stats && len > 0)
		memcpy(ts, r->stats, len);
}

static void tsnl_exit_part(const struct nlattr *aggr, uint32_t *id,
			   struct taskstats *ts, int *len,
			   struct tsnl_exit_more *more)
{
	struct tsnl_reply r = { 0 };

	tsnl_parse_aggr(aggr, &r);
	*id = r.id;
	*len = r.stats_len;
	tsnl_stats_copy(ts, &r);
	more->shape = r.shape;
	more->have_cgroup_id = r.have_cgroup_id;
	more->cgroup_id = r.cgroup_id;
}

/**
 * tsnl_parse_exit() - split an exit message into its AGGR_PID and AGGR_TGID
 * parts; a message of a dying multi-threaded group carries both.
 *
 * Return: 0, or -EBADMSG if @msg is not a taskstats record.
 */
int tsnl_parse_exit(const void *msg, int len, struct tsnl_exit *e)
{
	const struct nlmsghdr *h = msg;
	struct tsnl_iter it;
	struct nlattr *na;

	memset(e, 0, sizeof(*e));
	if (!NLMSG_OK(h, len) || h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
	    h->nlmsg_type == NLMSG_ERROR)
		return -EBADMSG;
	e->seq = h->nlmsg_seq;
	it = tsnl_genl_attrs(h, h->nlmsg_len);
	while ((na = tsnl_next(&it))) {
		if (na->nla_type == TASKSTATS_TYPE_AGGR_PID) {
			e->have_pid = true;
			tsnl_exit_part(na, &e->pid, &e->pid_ts, &e->pid_len,
				       &e->pid_more);
		} else if (na->nla_type == TASKSTATS_TYPE_AGGR_TGID) {
			e->have_tgid = true;
			tsnl_exit_part(na, &e->tgid, &e->tgid_ts, &e->tgid_len,
				       &e->tgid_more);
		}
	}
	return e->have_pid || e->have_tgid ? 0 : -EBADMSG;
}

/**
 * tsnl_drain() - hand every record already queued on @fd to @fn.
 *
 * Return: the number of netlink messages read.
 */
int tsnl_drain(int fd, tsnl_exit_fn fn, void *arg)
{
	static char buf[TSNL_BUF_SIZE];
	static struct tsnl_exit e;
	int n, messages = 0;

	while ((n = tsnl_recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		struct nlmsghdr *h;

		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			messages++;
			if (!tsnl_parse_exit(h, h->nlmsg_len, &e) && fn)
				fn(&e, arg);
		}
	}
	return messages;
}

/**
 * tsnl_cgroupstats_flags() - CGROUPSTATS_CMD_GET with @flags besides
 * NLM_F_REQUEST, as a client that may or may not ask for an acknowledgment.
 * @fd: a generic netlink socket
 * @family: the TASKSTATS family id
 * @cgroup_fd: sent as CGROUPSTATS_CMD_ATTR_FD; no attribute if negative
 * @flags: NLM_F_ACK, or 0
 * @cs: gets the counts of the answer
 *
 * With NLM_F_ACK the request ends with its acknowledgment or error, which
 * the kernel always sends: a receive timeout is a failure. Without, it
 * ends with the first message that answers it, counts or error; a request
 * the kernel answers with nothing would wait for ever, so on a socket with
 * SO_RCVTIMEO the timeout ends it as no answer.
 *
 * Return: 1 for an answer (in @cs); 0 for none: an acknowledgment alone
 * (NLM_F_ACK), or nothing within the socket's receive timeout (without
 * it); or the negative errno of the request (-EBADMSG for an answer that
 * is not a CGROUPSTATS_CMD_NEW with a whole struct).
 */
int tsnl_cgroupstats_flags(int fd, uint16_t family, int cgroup_fd, uint16_t flags,
			   struct cgroupstats *cs)
{
	static char buf[TSNL_BUF_SIZE];
	bool ack = flags & NLM_F_ACK, answered = false;
	struct tsnl_msg m;
	int n, err;

	tsnl_msg_init(&m, family, CGROUPSTATS_CMD_GET, flags);
	if (cgroup_fd >= 0)
		tsnl_put_u32(&m, CGROUPSTATS_CMD_ATTR_FD, cgroup_fd);
	err = tsnl_send(fd, &m);
	if (err)
		return err;
	for (;;) {
		struct nlmsghdr *h;

		n = tsnl_recv(fd, buf, sizeof(buf), 0);
		if (n == -EAGAIN && !ack)
			return 0;
		if (n < 0)
			return n;
		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			struct tsnl_reply r;

			if (h->nlmsg_seq != m.nlh.nlmsg_seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				err = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
				return err ? err : answered;
			}
			if (tsnl_parse(h, h->nlmsg_len, &r) ||
			    r.cmd != CGROUPSTATS_CMD_NEW ||
			    r.cgstats_len < (int)sizeof(*cs))
				return -EBADMSG;
			memcpy(cs, r.cgstats, sizeof(*cs));
			answered = true;
			if (!ack)
				return 1;
		}
	}
}

/**
 * tsnl_cgroupstats() - CGROUPSTATS_CMD_GET, with NLM_F_ACK so that a
 * request the kernel answers with nothing still ends.
 * @cgroup_fd: sent as CGROUPSTATS_CMD_ATTR_FD; no attribute if negative
 * @cs: gets the counts of the answer
 *
 * Return: 1 for an answer (in @cs), 0 for an acknowledgment that came
 * without one, or the negative errno of the request (-EBADMSG for an
 * answer that is not a CGROUPSTATS_CMD_NEW with a whole struct).
 */
int tsnl_cgroupstats(int fd, uint16_t family, int cgroup_fd,
		     struct cgroupstats *cs)
{
	return tsnl_cgroupstats_flags(fd, family, cgroup_fd, NLM_F_ACK, cs);
}
