// SPDX-License-Identifier: GPL-2.0
/*
 * Minimal generic netlink client for the taskstats selftests.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tsnl.h"

#define NLA_DATA(na)	((void *)((char *)(na) + NLA_HDRLEN))

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

/* A cursor over a run of attributes; tsnl_next() yields each valid one. */
struct tsnl_iter {
	const char *p;
	int rem;
};

static struct tsnl_iter tsnl_attrs(const void *start, int len)
{
	return (struct tsnl_iter){ .p = start, .rem = len };
}

/* The attributes after the genl header of message @h, @len bytes long. */
static struct tsnl_iter tsnl_genl_attrs(const void *h, int len)
{
	return tsnl_attrs((const char *)NLMSG_DATA(h) + GENL_HDRLEN,
			  len - NLMSG_LENGTH(GENL_HDRLEN));
}

static struct nlattr *tsnl_next(struct tsnl_iter *it)
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

static void tsnl_parse_aggr(const struct nlattr *aggr, struct tsnl_reply *r)
{
	struct tsnl_iter it = tsnl_attrs(NLA_DATA(aggr), aggr->nla_len - NLA_HDRLEN);
	struct nlattr *na;
	bool null_seen = false;

	while ((na = tsnl_next(&it))) {
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
 * tsnl_get() - TASKSTATS_CMD_GET for one pid or tgid.
 * @attr: TASKSTATS_CMD_ATTR_PID or TASKSTATS_CMD_ATTR_TGID
 * @ts: zeroed, then filled with as much of the reply's struct as fits
 * @buf: TSNL_BUF_SIZE bytes that @r points into afterwards
 *
 * Return: 0 or the negative errno of the request.
 */
int tsnl_get(int fd, uint16_t family, int attr, uint32_t id,
	     struct taskstats *ts, struct tsnl_reply *r, void *buf)
{
	struct tsnl_msg m;
	int n, len;

	tsnl_msg_init(&m, family, TASKSTATS_CMD_GET, 0);
	tsnl_put_u32(&m, attr, id);
	n = tsnl_transact(fd, &m, buf, TSNL_BUF_SIZE);
	if (n < 0)
		return n;
	if (n == 0 || tsnl_parse(buf, n, r) || !r->stats)
		return -EBADMSG;
	memset(ts, 0, sizeof(*ts));
	len = r->stats_len < (int)sizeof(*ts) ? r->stats_len : (int)sizeof(*ts);
	memcpy(ts, r->stats, len);
	return 0;
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

/* Resolves a genl family; fills @ops_out (CTRL_ATTR_OPS payload) if asked. */
static int tsnl_family_query(int fd, const char *name, uint16_t *id,
			     char *buf)
{
	struct tsnl_msg m;
	struct tsnl_iter it;
	struct nlattr *na;
	int n;

	tsnl_msg_init(&m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	((struct genlmsghdr *)NLMSG_DATA(&m.nlh))->version = 1;
	tsnl_put_str(&m, CTRL_ATTR_FAMILY_NAME, name);
	n = tsnl_transact(fd, &m, buf, TSNL_BUF_SIZE);
	if (n <= 0)
		return n ? n : -EBADMSG;
	it = tsnl_genl_attrs(buf, n);
	while ((na = tsnl_next(&it))) {
		if (na->nla_type == CTRL_ATTR_FAMILY_ID) {
			memcpy(id, NLA_DATA(na), sizeof(*id));
			return n;
		}
	}
	return -EBADMSG;
}

/**
 * tsnl_family() - resolve a generic netlink family name to its id.
 *
 * Return: 0, or the negative errno (-ENOENT when the family is absent).
 */
int tsnl_family(int fd, const char *name, uint16_t *id)
{
	static char buf[TSNL_BUF_SIZE];
	int n = tsnl_family_query(fd, name, id, buf);

	return n < 0 ? n : 0;
}

/**
 * tsnl_family_op_flags() - the flags of command @op of the family @name.
 * @fd: a generic netlink socket
 * @name: the family's name
 * @op: the command
 *
 * Return: its GENL_CMD_CAP_* and GENL_*_PERM flags, -ENOENT if the family
 * has no such command, or another negative errno.
 */
int tsnl_family_op_flags(int fd, const char *name, int op)
{
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_iter it, ops, one;
	struct nlattr *na, *op_na, *f;
	uint16_t id;
	int n = tsnl_family_query(fd, name, &id, buf);

	if (n < 0)
		return n;
	it = tsnl_genl_attrs(buf, n);
	while ((na = tsnl_next(&it))) {
		if (na->nla_type != CTRL_ATTR_OPS)
			continue;
		ops = tsnl_attrs(NLA_DATA(na), na->nla_len - NLA_HDRLEN);
		while ((op_na = tsnl_next(&ops))) {
			uint32_t v, id = 0, flags = 0;

			one = tsnl_attrs(NLA_DATA(op_na), op_na->nla_len - NLA_HDRLEN);
			while ((f = tsnl_next(&one))) {
				memcpy(&v, NLA_DATA(f), sizeof(v));
				if (f->nla_type == CTRL_ATTR_OP_ID)
					id = v;
				else if (f->nla_type == CTRL_ATTR_OP_FLAGS)
					flags = v;
			}
			if ((int)id == op)
				return (int)(flags & 0x7fffffff);
		}
	}
	return -ENOENT;
}

/**
 * tsnl_family_has_op() - does the family @name implement command @op?
 * @fd: a generic netlink socket
 * @name: the family's name
 * @op: the command
 *
 * Return: 1 if it does, 0 if not, or a negative errno.
 */
int tsnl_family_has_op(int fd, const char *name, int op)
{
	int flags = tsnl_family_op_flags(fd, name, op);

	if (flags == -ENOENT)
		return 0;
	return flags < 0 ? flags : 1;
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
			   struct taskstats *ts, int *len)
{
	struct tsnl_iter it = tsnl_attrs(NLA_DATA(aggr), aggr->nla_len - NLA_HDRLEN);
	struct nlattr *na;

	memset(ts, 0, sizeof(*ts));
	*len = 0;
	while ((na = tsnl_next(&it))) {
		int n = na->nla_len - NLA_HDRLEN;

		if (na->nla_type == TASKSTATS_TYPE_PID ||
		    na->nla_type == TASKSTATS_TYPE_TGID) {
			memcpy(id, NLA_DATA(na), sizeof(*id));
		} else if (na->nla_type == TASKSTATS_TYPE_STATS) {
			*len = n;
			memcpy(ts, NLA_DATA(na), n < (int)sizeof(*ts) ? n : (int)sizeof(*ts));
		}
	}
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
			tsnl_exit_part(na, &e->pid, &e->pid_ts, &e->pid_len);
		} else if (na->nla_type == TASKSTATS_TYPE_AGGR_TGID) {
			e->have_tgid = true;
			tsnl_exit_part(na, &e->tgid, &e->tgid_ts, &e->tgid_len);
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
 * ts_read_within() - read @size bytes from @fd, waiting at most @ms for them.
 * @fd: a pipe or socket
 * @buf: where they go
 * @size: how many, in one read(2)
 * @ms: how long to wait for them to come
 *
 * Return: 0, -ETIMEDOUT if nothing came in time, -EPIPE for a short read.
 */
int ts_read_within(int fd, void *buf, size_t size, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return -ETIMEDOUT;
	if (read(fd, buf, size) != (ssize_t)size)
		return -EPIPE;
	return 0;
}

/* Reads a small file into @buf, NUL-terminated; returns its length or -errno. */
int ts_read_file(const char *path, char *buf, int size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

/* Writes @s to @path in one write(2); returns 0 or -errno. */
int ts_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* The state letter of /proc/PID/stat, or -errno. */
int ts_proc_state(pid_t pid)
{
	char path[64], buf[1024], *p;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	n = ts_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : -EBADMSG;
}

/*
 * Reads the /proc file @path into @buf and finds the line "@key: value":
 * returns the value, cut at its line's end, or NULL (errno set) if the
 * file cannot be read or has no such line.
 */
static char *proc_value(const char *path, const char *key, char *buf, int size)
{
	int n = strlen(key);
	char *p, *end;

	if (ts_read_file(path, buf, size) < 0)
		return NULL;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		if (strncmp(p, key, n) || p[n] != ':')
			continue;
		end = strchr(p, '\n');
		if (end)
			*end = '\0';
		return p + n + 1;
	}
	errno = ENOENT;
	return NULL;
}

/**
 * ts_proc_field() - the number after "@key:" in the /proc file @path.
 *
 * Return: 0, or -errno (-ENOENT for no such line).
 */
int ts_proc_field(const char *path, const char *key, uint64_t *val)
{
	char buf[4096], *v = proc_value(path, key, buf, sizeof(buf));

	if (!v)
		return -errno;
	*val = strtoull(v, NULL, 10);
	return 0;
}

/*
 * The value of the line "@key N" of @buf, a flat-keyed file's text (such
 * as memory.stat); with @key ending in '_', the sum of every line whose
 * key begins with it. Return: -1 if there is no such line.
 */
int64_t ts_keyed_value(const char *buf, const char *key)
{
	size_t n = strlen(key);
	bool prefix = key[n - 1] == '_';
	int64_t sum = -1;

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, n) || (!prefix && p[n] != ' '))
			continue;
		sum = (sum < 0 ? 0 : sum) + strtoll(strchr(p, ' ') ?: p, NULL, 10);
		if (!prefix)
			break;
	}
	return sum;
}

/* Where the tests mount cgroup2 when nobody has. */
#define OWN_CGROUP2	"/tmp/ts_cgroup2"

/**
 * ts_cgroup2_root() - the root of a cgroup2 mount, mounting one if need be.
 * @root: gets its path, @size bytes
 * @size: the size of @root
 *
 * The first cgroup2 mount of /proc/self/mounts; on a machine that has
 * none, a mount of the tests' own at OWN_CGROUP2, left for the next test.
 * Every mount of cgroup2 shows the one v2 hierarchy.
 *
 * Return: 0, or -errno (-ENODEV: a kernel without cgroups).
 */
int ts_cgroup2_root(char *root, int size)
{
	char buf[16384], *line, *save = NULL;
	int n = ts_read_file("/proc/self/mounts", buf, sizeof(buf));

	if (n < 0)
		return n;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char dev[64], dir[256], type[32];

		if (sscanf(line, "%63s %255s %31s", dev, dir, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			snprintf(root, size, "%s", dir);
			return 0;
		}
	}
	if (mkdir(OWN_CGROUP2, 0755) && errno != EEXIST)
		return -errno;
	if (mount("cgroup2", OWN_CGROUP2, "cgroup2", 0, NULL))
		return -errno;
	snprintf(root, size, "%s", OWN_CGROUP2);
	return 0;
}

/* Finds the cgroup2 root, if it offers the memory controller. */
static int memcg_root(char *root, int size)
{
	char path[300], ctl[256];

	if (ts_cgroup2_root(root, size))
		return -1;
	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	if (ts_read_file(path, ctl, sizeof(ctl)) < 0 || !strstr(ctl, "memory"))
		return -1;
	return 0;
}

/**
 * ts_memcg_make() - make the memory cgroup @name under the root of the
 * cgroup2 mount that offers the memory controller, enabling it there.
 * @path: gets the new cgroup's path, @size bytes ("" if none was made)
 * @subtree: gets the cgroup.subtree_control that "+memory" was written
 *	to, @subsize bytes, or "": write "-memory" there when done
 *
 * Return: 0, -ENOENT if there is no memory controller to have, or -errno.
 */
int ts_memcg_make(const char *name, char *path, int size, char *subtree, int subsize)
{
	char root[256], ctl_path[300], ctl[256];

	path[0] = '\0';
	subtree[0] = '\0';
	if (memcg_root(root, sizeof(root)))
		return -ENOENT;
	snprintf(ctl_path, sizeof(ctl_path), "%s/cgroup.subtree_control", root);
	if (ts_read_file(ctl_path, ctl, sizeof(ctl)) < 0)
		return -EIO;
	if (!strstr(ctl, "memory")) {
		if (ts_write_file(ctl_path, "+memory"))
			return -ENOENT;
		snprintf(subtree, subsize, "%s", ctl_path);
	}
	snprintf(path, size, "%s/%s", root, name);
	if (mkdir(path, 0755)) {
		path[0] = '\0';
		return -errno;
	}
	return 0;
}

/*
 * The sum of @key over the threads of @pid, from /proc/PID/task/x/status;
 * their number in *@threads.
 */
uint64_t ts_threads_sum(pid_t pid, const char *key, int *threads)
{
	char path[320];
	struct dirent *de;
	uint64_t sum = 0, val;
	DIR *dir;

	*threads = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/status", pid, de->d_name);
		if (ts_proc_field(path, key, &val))
			continue;
		sum += val;
		++*threads;
	}
	if (dir)
		closedir(dir);
	return sum;
}

/*
 * The pid of @pid in the innermost pid namespace it belongs to: the last
 * number of the NSpid line of /proc/PID/status. Or -errno.
 */
pid_t ts_pid_inside(pid_t pid)
{
	char path[64], buf[4096], *v;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	v = proc_value(path, "NSpid", buf, sizeof(buf));
	if (!v)
		return -errno;
	v = strrchr(v, '\t');
	return v ? atoi(v + 1) : -EBADMSG;
}

/**
 * ts_wait_state() - wait for /proc/@tid/stat to show the state @want.
 * @tid: the thread (or process)
 * @want: the state letter: R, S, D, T, t, Z...
 * @ms: how long to wait at most, in milliseconds
 *
 * /proc is read every millisecond: a task may pass through other states
 * on its way (R, between two waits) and settles in its own late on a busy
 * machine. One that never does is said on stderr, as a TAP comment, with
 * the state it was in.
 *
 * Return: 0, -ETIMEDOUT, or the -errno of reading /proc (-ENOENT: gone).
 */
int ts_wait_state(pid_t tid, int want, int ms)
{
	int s = 0;

	for (int i = 0; i < ms; i++) {
		s = ts_proc_state(tid);
		if (s == want)
			return 0;
		if (s < 0)
			return s;
		usleep(1000);
	}
	fprintf(stderr, "# %d is in state %c, not %c\n", tid, s, want);
	return -ETIMEDOUT;
}

/*
 * Waits up to 10 s for @pid to sleep interruptibly, which for the tests'
 * children means it has finished its work and blocked on its command pipe.
 */
int ts_wait_sleeping(pid_t pid)
{
	return ts_wait_state(pid, 'S', 10000);
}

/* One counter of /proc/PID/io such as "rchar". */
int ts_proc_io(pid_t pid, const char *key, uint64_t *val)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/io", pid);
	return ts_proc_field(path, key, val);
}

/* The cpulist of possible CPUs, as the kernel prints it. */
void ts_possible_cpus(char *buf, int size)
{
	if (ts_read_file("/sys/devices/system/cpu/possible", buf, size) <= 0)
		snprintf(buf, size, "0");
	buf[strcspn(buf, "\n")] = '\0';
}

/**
 * ts_worker_start() - fork a worker and wait until it sleeps on its pipe.
 *
 * Return: 0 or -errno.
 */
int ts_worker_start(struct ts_worker *w, void (*fn)(void *arg), void *arg)
{
	int go[2], done[2];
	char c;

	if (pipe(go) || pipe(done))
		return -errno;
	w->pid = fork();
	if (w->pid < 0)
		return -errno;
	if (w->pid == 0) {
		close(go[1]);
		close(done[0]);
		while (read(go[0], &c, 1) == 1) {
			fn(arg);
			if (write(done[1], "d", 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	w->go_fd = go[1];
	w->done_fd = done[0];
	return ts_wait_sleeping(w->pid);
}

/* Lets the worker run its function once; returns when it sleeps again. */
int ts_worker_run(struct ts_worker *w)
{
	char c;

	if (write(w->go_fd, "g", 1) != 1 || read(w->done_fd, &c, 1) != 1)
		return -EIO;
	return ts_wait_sleeping(w->pid);
}

/* Ends the worker; returns its wait status. */
int ts_worker_stop(struct ts_worker *w)
{
	int status = -1;

	close(w->go_fd);
	close(w->done_fd);
	waitpid(w->pid, &status, 0);
	return status;
}

/**
 * tsnl_dump_records() - walk the records of one dump message.
 * @h: the message
 * @fn: called for every record, in order (the kernel sends one per
 *	message, but a client takes as many as a message holds); may be NULL
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
		if (fn)
			fn(r.id, r.aggr_type, &ts, arg);
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
 * tsnl_dump_cgroup() - a dump of one cgroup's tasks.
 * @cgroup_fd: sent as TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD; none if negative
 * @flags: TSNL_DUMP_TGID, TSNL_DUMP_SUBTREE
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

/**
 * ts_register_all() - register @fd as exit listener for every possible CPU.
 * @cpus: gets the cpulist registered, @size bytes, to deregister it later
 *
 * Return: 0 or the negative errno of the request.
 */
int ts_register_all(int fd, uint16_t family, char *cpus, int size)
{
	ts_possible_cpus(cpus, size);
	return tsnl_cpumask(fd, family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpus);
}

/**
 * ts_listener_open() - open a socket, resolve the TASKSTATS family on it
 * and register it as exit listener for every possible CPU.
 * @fd: the socket, or the negative errno of opening it
 * @family: the family id, or 0 if it was not resolved
 * @cpus: the cpulist registered, @size bytes
 *
 * Return: 0, or the negative errno of the step that failed; @fd and
 * @family tell which step that was.
 */
int ts_listener_open(int *fd, uint16_t *family, char *cpus, int size)
{
	uint16_t id;
	int err;

	*family = 0;
	*fd = tsnl_open();
	if (*fd < 0)
		return *fd;
	err = tsnl_family(*fd, TASKSTATS_GENL_NAME, &id);
	if (err)
		return err;
	*family = id;
	return ts_register_all(*fd, id, cpus, size);
}

struct ts_found {
	pid_t pid;
	bool seen;
	struct taskstats ts;
};

static void ts_match_pid(const struct tsnl_exit *e, void *arg)
{
	struct ts_found *f = arg;

	if (e->have_pid && e->pid == (uint32_t)f->pid) {
		f->seen = true;
		f->ts = e->pid_ts;
	}
}

/**
 * ts_run_child() - run @fn in a child and fetch the child's exit record.
 * @nl: a socket registered as exit listener for every CPU
 * @fn: what the child does; its return value is the child's exit status
 * @arg: passed to @fn
 * @ts: the exit record
 * @pidp: if not NULL, the child's pid
 *
 * Return: the wait status, or -1 if the child could not run or no record
 * of it arrived (records are queued before the parent can reap).
 */
int ts_run_child(int nl, int (*fn)(void *), void *arg, struct taskstats *ts,
		 pid_t *pidp)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid || ts_exit_record(nl, pid, ts))
		return -1;
	if (pidp)
		*pidp = pid;
	return status;
}

/**
 * ts_exit_record() - the exit record of @pid, already reaped, from the
 * listener socket @nl (every record queued there is consumed).
 *
 * Return: 0, or -1 if it was not there.
 */
int ts_exit_record(int nl, pid_t pid, struct taskstats *ts)
{
	struct ts_found f = { .pid = pid };

	tsnl_drain(nl, ts_match_pid, &f);
	if (!f.seen)
		return -1;
	*ts = f.ts;
	return 0;
}

/**
 * ts_as_nobody() - run @fn in a child as uid and gid 65534, no capabilities.
 * @fn: gets a generic netlink socket opened as that user, @family, @other
 * @family: the TASKSTATS family id
 * @other: passed to @fn
 *
 * Return: the child's exit code, or -1 if it did not exit normally.
 */
int ts_as_nobody(int (*fn)(int fd, uint16_t family, pid_t other),
		 uint16_t family, pid_t other)
{
	int status, fd;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(100);
		/* Changing ids made us undumpable; our own tasks stay readable. */
		prctl(PR_SET_DUMPABLE, 1);
		fd = tsnl_open();
		if (fd < 0)
			_exit(101);
		_exit(fn(fd, family, other));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/**
 * ts_kernel_dumps() - whether the kernel's TASKSTATS family can dump.
 *
 * The family says so itself: its GET command carries GENL_CMD_CAP_DUMP
 * in CTRL_CMD_GETFAMILY's list of operations. Linux 6.12's own
 * implementation has no dump, and none of what this one builds on it
 * (reads without CAP_NET_ADMIN under the access rule, listener rules,
 * containers, counts of cgroup v2): tests of those skip on a kernel
 * without the dump, with a reason that starts "this kernel". So do the
 * tests of bugs that only this implementation mends.
 *
 * Return: true if TASKSTATS_CMD_GET has a dump.
 */
bool ts_kernel_dumps(void)
{
	int fd = tsnl_open(), flags = -1;

	if (fd >= 0) {
		flags = tsnl_family_op_flags(fd, TASKSTATS_GENL_NAME, TASKSTATS_CMD_GET);
		close(fd);
	}
	return flags > 0 && (flags & GENL_CMD_CAP_DUMP);
}

/**
 * ts_kernel_unfixed() - whether the kernel is declared to lack the fixes.
 *
 * The series opens with fixes of bugs of Linux 6.12's own implementation,
 * for stable kernels. Their tests need nothing else of the series, and on
 * a kernel without the fix they fail, as the test of a bug should. A run
 * on a kernel known to lack them (the rig's reference: 6.12 as released)
 * says so with TASKSTATS_UNFIXED=1 in the environment; those tests then
 * skip, with a reason that starts "this kernel".
 *
 * Return: true if TASKSTATS_UNFIXED is set and is neither "" nor "0".
 */
bool ts_kernel_unfixed(void)
{
	const char *v = getenv("TASKSTATS_UNFIXED");

	return v && *v && strcmp(v, "0");
}
