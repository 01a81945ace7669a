// SPDX-License-Identifier: GPL-2.0
/*
 * taskstat - generic netlink through libmnl, and errors a user can act on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/magic.h>
#include <linux/netlink.h>

#include "taskstat.h"

/*
 * The extack message of the last answer (an error's, or a dump's
 * NLMSG_DONE: how many tasks it skipped), or "": report() and
 * nl_kernel_msg() show it.
 */
static char kernel_msg[256];

/* report()'s hints too long for their line of its chain. */
static const char hint_cpulist[] =
	"the cpulist must name possible CPUs (older kernels also want the initial namespaces)";
static const char hint_eperm[] =
	"needs CAP_NET_ADMIN (or, for your own tasks, a kernel with unprivileged self-query)";

/* Prints what failed and, where there is one, what to do about it; returns 1. */
int report(enum ctx ctx, const char *what, int err)
{
	const char *hint = NULL;

	fprintf(stderr, "taskstat: %s: %s\n", what, strerror(err));
	if (kernel_msg[0] && ctx != CTX_SOCKET)
		fprintf(stderr, "taskstat: the kernel said: %s\n", kernel_msg);
	if (err == ENOENT && ctx == CTX_FAMILY)
		hint = "the kernel has no TASKSTATS family: enable CONFIG_TASKSTATS";
	else if (err == ESRCH && ctx == CTX_TASK)
		hint = "no such task (in this pid namespace)";
	else if (err == EAGAIN && ctx == CTX_TASK)
		hint = "the task stayed in the middle of an exec: try again";
	else if ((err == ERANGE || err == E2BIG) && ctx == CTX_LISTEN)
		hint = "the cpulist names CPUs beyond the kernel's limit";
	else if (err == EINVAL && ctx == CTX_LISTEN)
		hint = hint_cpulist;
	/* The kernel's own words say why better than a guess. */
	else if (err == EPERM && ctx == CTX_LISTEN && !kernel_msg[0])
		hint = "listen needs CAP_NET_ADMIN over the owner of this pid namespace";
	else if (err == EPERM && ctx != CTX_CGROUP && !kernel_msg[0])
		hint = hint_eperm;
	if (hint)
		fprintf(stderr, "taskstat: %s\n", hint);
	return 1;
}

/* 2 if @fd is open on a directory of cgroup v2, 1 of cgroup v1, else 0. */
int cgroup_version(int fd)
{
	struct statfs sfs;

	if (fstatfs(fd, &sfs))
		return 0;
	if (sfs.f_type == CGROUP2_SUPER_MAGIC)
		return 2;
	return sfs.f_type == CGROUP_SUPER_MAGIC;
}

/*
 * report() for a request about the cgroup directory @path, open as @fd:
 * CGROUPSTATS_CMD_GET (CTX_CGROUP), a dump of that cgroup (CTX_DUMP) or
 * a listener for it (CTX_LISTEN). The kernel's EINVAL means "not a cgroup
 * directory", except from a kernel whose CGROUPSTATS knows only cgroup v1
 * (upstream's) asked about a v2 one, or for a listener, whose EINVAL for
 * a v2 directory is its cpulist's: the file's type and file system tell
 * which. A listener's EOPNOTSUPP is a v1 directory's, or a kernel's
 * without CONFIG_CGROUPS; its EBUSY, a socket that listens already.
 */
int report_cgroup(enum ctx ctx, const char *what, const char *path, int fd, int err)
{
	int v = cgroup_version(fd);
	struct stat st;
	bool dir = !fstat(fd, &st) && S_ISDIR(st.st_mode);

	switch (err) {
	case EINVAL:
		/* A listener's EINVAL for a v2 directory is its cpulist's. */
		if (dir && v == 2 && ctx == CTX_LISTEN)
			break;
		fprintf(stderr, "taskstat: %s: %s\n", what, strerror(err));
		if (!v || !dir)
			fprintf(stderr,
				"taskstat: %s is not a cgroup directory (of a cgroup v2 or v1 hierarchy)\n",
				path);
		else if (v == 2 && ctx == CTX_CGROUP)
			fprintf(stderr,
				"taskstat: this kernel's CGROUPSTATS understands only cgroup v1 directories (the upstream behaviour), and %s is on cgroup v2; 'taskstat top --cgroup %s' lists its tasks\n",
				path, path);
		else
			fprintf(stderr,
				"taskstat: the kernel refused %s as a cgroup v%d directory\n",
				path, v);
		return 1;
	case EBADF:
		fprintf(stderr, "taskstat: %s: %s\n", what, strerror(err));
		fprintf(stderr,
			"taskstat: the kernel could not use the file descriptor of %s: closed, or opened with O_PATH\n",
			path);
		return 1;
	case ENOENT:
		fprintf(stderr, "taskstat: %s: %s\n", what, strerror(err));
		fprintf(stderr, "taskstat: the cgroup %s has been removed\n", path);
		return 1;
	case EOPNOTSUPP:
		if (ctx != CTX_LISTEN)
			break;
		fprintf(stderr, "taskstat: %s: %s\n", what, strerror(err));
		if (v == 1)
			fprintf(stderr,
				"taskstat: %s is a cgroup v1 directory: a listener for one cgroup needs a cgroup v2 one\n",
				path);
		else
			fprintf(stderr,
				"taskstat: the kernel has no cgroup ids (built without CONFIG_CGROUPS), so no listener for %s\n",
				path);
		return 1;
	case EBUSY:
		if (ctx != CTX_LISTEN)
			break;
		fprintf(stderr, "taskstat: %s: %s\n", what, strerror(err));
		fprintf(stderr,
			"taskstat: this socket already listens with another cgroup, --subtree or cgroup-id choice than for %s\n",
			path);
		return 1;
	}
	return report(ctx, what, err);
}

struct nlmsghdr *nl_request(struct nl *nl, uint16_t type, uint8_t cmd, uint16_t flags)
{
	struct nlmsghdr *h = mnl_nlmsg_put_header(nl->buf);
	struct genlmsghdr *g;

	h->nlmsg_type = type;
	h->nlmsg_flags = NLM_F_REQUEST | flags;
	h->nlmsg_seq = ++nl->seq;
	g = mnl_nlmsg_put_extra_header(h, sizeof(*g));
	g->cmd = cmd;
	g->version = TASKSTATS_GENL_VERSION;
	return h;
}

static int kernel_msg_cb(const struct nlattr *a, void *data)
{
	if (mnl_attr_get_type(a) == NLMSGERR_ATTR_MSG &&
	    !mnl_attr_validate(a, MNL_TYPE_NUL_STRING))
		snprintf(kernel_msg, sizeof(kernel_msg), "%s", mnl_attr_get_str(a));
	return MNL_CB_OK;
}

/* The extack attributes that start @off bytes into @h's payload. */
static void read_kernel_msg(const struct nlmsghdr *h, size_t off)
{
	if ((h->nlmsg_flags & NLM_F_ACK_TLVS) && h->nlmsg_len >= mnl_nlmsg_size(off))
		mnl_attr_parse(h, off, kernel_msg_cb, NULL);
}

/* libmnl's handling of NLMSG_ERROR, plus its extack message. */
static int error_cb(const struct nlmsghdr *h, void *data)
{
	const struct nlmsgerr *e = mnl_nlmsg_get_payload(h);

	if (h->nlmsg_len < mnl_nlmsg_size(sizeof(*e))) {
		errno = EBADMSG;
		return MNL_CB_ERROR;
	}
	/* After the request: its header alone if capped, else all of it. */
	read_kernel_msg(h, h->nlmsg_flags & NLM_F_CAPPED ? sizeof(*e) :
			sizeof(e->error) + MNL_ALIGN(e->msg.nlmsg_len));
	errno = e->error < 0 ? -e->error : e->error;
	return e->error ? MNL_CB_ERROR : MNL_CB_STOP;
}

/*
 * A dump's end: the dump's status, then the extack message. A dump that
 * fails after its first part says so here, not in an NLMSG_ERROR, and
 * libmnl's own handling would take it for success.
 */
static int done_cb(const struct nlmsghdr *h, void *data)
{
	int status = 0;

	if (h->nlmsg_len >= mnl_nlmsg_size(sizeof(status)))
		memcpy(&status, mnl_nlmsg_get_payload(h), sizeof(status));
	read_kernel_msg(h, sizeof(status));
	if (status < 0) {
		errno = -status;
		return MNL_CB_ERROR;
	}
	return MNL_CB_STOP;
}

static mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
	[NLMSG_ERROR] = error_cb,
	[NLMSG_DONE] = done_cb,
};

/*
 * Sends the request and runs @cb on the answers until the kernel is done:
 * an acknowledgment, NLMSG_DONE of a dump, or an error (returned as -errno).
 * What the kernel said about it, if anything, is then nl_kernel_msg().
 */
int nl_talk(struct nl *nl, struct nlmsghdr *h, mnl_cb_t cb, void *data)
{
	unsigned int seq = h->nlmsg_seq;
	int n;

	kernel_msg[0] = '\0';
	if (mnl_socket_sendto(nl->sock, h, h->nlmsg_len) < 0)
		return -errno;
	do {
		n = mnl_socket_recvfrom(nl->sock, nl->buf, sizeof(nl->buf));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		n = mnl_cb_run2(nl->buf, n, seq, nl->portid, cb, data, ctl_cbs,
				ARRAY_SIZE(ctl_cbs));
	} while (n > MNL_CB_STOP);
	return n < 0 ? -errno : 0;
}

const char *nl_kernel_msg(void)
{
	return kernel_msg;
}

/* One TASKSTATS_CMD_GET of task or thread group @id (@attr _PID or _TGID). */
int nl_get(struct nl *nl, int attr, uint32_t id, mnl_cb_t cb, void *data)
{
	int err, tries;

	/*
	 * A kernel that lets users read their own tasks answers EAGAIN for
	 * a task in the middle of an exec rather than wait under a global
	 * lock: ask again, for up to about a quarter of a second.
	 */
	for (tries = 0; ; tries++) {
		struct nlmsghdr *h = nl_request(nl, nl->family, TASKSTATS_CMD_GET,
						NLM_F_ACK);

		mnl_attr_put_u32(h, attr, id);
		nl_put_ids(nl, h);
		err = nl_talk(nl, h, cb, data);
		if (err != -EAGAIN || tries == 8)
			return err;
		usleep(1000 << tries);
	}
}

/* What CTRL_CMD_GETPOLICY of one op of a family says about one attribute. */
struct policy_probe {
	uint32_t op, attr;
	int64_t do_policy;	/* the op's policy for a do, -1 until told */
	uint64_t listed;	/* a bit per policy (below 64) listing @attr */
};

static void policy_op(struct policy_probe *p, const struct nlattr *a)
{
	struct nlattr *op, *in;

	mnl_attr_for_each_nested(op, a) {
		if (mnl_attr_get_type(op) != p->op)
			continue;
		mnl_attr_for_each_nested(in, op)
			if (mnl_attr_get_type(in) == CTRL_ATTR_POLICY_DO &&
			    !mnl_attr_validate(in, MNL_TYPE_U32))
				p->do_policy = mnl_attr_get_u32(in);
	}
}

/* CTRL_ATTR_POLICY: { policy index: { attribute: { its type, limits } } }. */
static void policy_attrs(struct policy_probe *p, const struct nlattr *a)
{
	struct nlattr *pol, *attr;

	mnl_attr_for_each_nested(pol, a) {
		if (mnl_attr_get_type(pol) >= 64)
			continue;
		mnl_attr_for_each_nested(attr, pol)
			if (mnl_attr_get_type(attr) == p->attr)
				p->listed |= 1ULL << mnl_attr_get_type(pol);
	}
}

static int policy_cb(const struct nlmsghdr *h, void *data)
{
	struct nlattr *a;

	mnl_attr_for_each(a, h, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_OP_POLICY)
			policy_op(data, a);
		else if (mnl_attr_get_type(a) == CTRL_ATTR_POLICY)
			policy_attrs(data, a);
	}
	return MNL_CB_OK;
}

/*
 * Whether the TASKSTATS family knows cgroup ids and listeners for one
 * cgroup: 1 if the policy of its GET lists TASKSTATS_CMD_ATTR_CGROUP_ID,
 * 0 if not, -errno if the kernel could not say (CTRL_CMD_GETPOLICY is
 * 5.10's). Asked of nlctrl, not tried: a kernel without the feature
 * ignores unknown attributes, and would register a listener for every
 * exit where one cgroup's was asked for. Asked once per socket.
 */
int nl_cgroup_ids(struct nl *nl)
{
	struct policy_probe p = {
		.op = TASKSTATS_CMD_GET,
		.attr = TASKSTATS_CMD_ATTR_CGROUP_ID,
		.do_policy = -1,
	};
	struct nlmsghdr *h;
	int err;

	if (nl->cgids)
		return nl->cgids - 2;
	h = nl_request(nl, GENL_ID_CTRL, CTRL_CMD_GETPOLICY, NLM_F_DUMP);
	mnl_attr_put_strz(h, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME);
	mnl_attr_put_u32(h, CTRL_ATTR_OP, p.op);
	err = nl_talk(nl, h, policy_cb, &p);
	if (!err)
		err = p.do_policy >= 0 && p.do_policy < 64 && (p.listed >> p.do_policy & 1);
	if (opt_verbose)
		fprintf(stderr, "taskstat: cgroup ids and cgroup listeners: %s\n",
			err > 0 ? "supported" : !err ? "not supported" : strerror(-err));
	nl->cgids = err + 2;
	return err;
}

/* Records asked for on @nl from now on carry cgroup ids, if the kernel can: whether it can. */
bool nl_ask_ids(struct nl *nl)
{
	nl->ids = nl_cgroup_ids(nl) > 0;
	return nl->ids;
}

/* The flag asking for cgroup ids, in a request of a socket that wants them. */
void nl_put_ids(struct nl *nl, struct nlmsghdr *h)
{
	if (nl->ids)
		mnl_attr_put(h, TASKSTATS_CMD_ATTR_CGROUP_ID, 0, NULL);
}

/*
 * The error of @what (such as "listen --cgroup PATH"), which needs cgroup
 * ids, where nl_cgroup_ids() answered @probe (0 or -errno); returns 1.
 */
int report_no_cgroup_ids(const char *what, int probe)
{
	fprintf(stderr, "taskstat: %s: not supported by this kernel\n", what);
	if (probe)
		fprintf(stderr,
			"taskstat: the kernel cannot list the TASKSTATS policy (CTRL_CMD_GETPOLICY: %s; Linux 5.10 or later), so it cannot be known to have cgroup listeners\n",
			strerror(-probe));
	else
		fprintf(stderr,
			"taskstat: its TASKSTATS family has no cgroup ids or cgroup listeners (no TASKSTATS_CMD_ATTR_CGROUP_ID in the policy of TASKSTATS_CMD_GET, as in Linux 6.12's own): it would ignore the cgroup and report every exit\n");
	return 1;
}

/* The kernel's possible CPUs, as a cpulist; "0" if it does not say. */
/* syscr of /proc/thread-self/io, or -1. */
static long long own_syscr(void)
{
	FILE *f = fopen("/proc/thread-self/io", "r");
	long long v = -1;
	char line[64];

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "syscr: %lld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/**
 * io_rounded() - whether this kernel rounds the I/O counters for us.
 * @nl: a TASKSTATS socket
 *
 * The historical implementation rounds the seven I/O counters down to a
 * multiple of 1024, this one only for a requester that could not read
 * the task's /proc/PID/io; neither the version nor anything else in a
 * record says which. So ask: the read system calls of this thread, as
 * /proc counts them, bracket what an exact GET of it reports (reading
 * /proc is itself a read, so the first count is never 0); a smaller
 * read_syscalls is rounded. Asked once; sets io_rounding.
 *
 * Return: 1 rounded, 0 exact, -1 unknown (the GET or /proc failed).
 */
int io_rounded(struct nl *nl)
{
	static bool asked;
	struct reply rep = { 0 };
	unsigned long long v;
	long long before;

	if (asked)
		return io_rounding;
	asked = true;
	own_syscr();
	before = own_syscr();
	if (before <= 0 ||
	    nl_get(nl, TASKSTATS_CMD_ATTR_PID, syscall(SYS_gettid), reply_cb, &rep) ||
	    !rep.n || !rec_u64(&rep.rec[0], F_read_syscalls, &v))
		return io_rounding = -1;
	io_rounding = (long long)v < before;
	return io_rounding;
}

void possible_cpus(char *cpus, size_t size)
{
	FILE *f = fopen("/sys/devices/system/cpu/possible", "r");

	if (!f || !fgets(cpus, size, f))
		snprintf(cpus, size, "0");
	if (f)
		fclose(f);
	cpus[strcspn(cpus, "\n")] = '\0';
}

/*
 * Registers @nl as an exit listener (asking for cgroup ids if @nl wants
 * them); returns 0 or -errno. Exit records come unasked and in bursts: a
 * big receive buffer rides them out, as root past rmem_max.
 */
int nl_register(struct nl *nl, const struct listener *l)
{
	int fd = mnl_socket_get_fd(nl->sock), rcvbuf = 4 << 20;
	struct nlmsghdr *h;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	h = nl_request(nl, nl->family, TASKSTATS_CMD_GET, NLM_F_ACK);
	mnl_attr_put_strz(h, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, l->cpus);
	if (l->cgfd >= 0)
		mnl_attr_put_u32(h, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, l->cgfd);
	if (l->subtree)
		mnl_attr_put(h, TASKSTATS_CMD_ATTR_DUMP_SUBTREE, 0, NULL);
	nl_put_ids(nl, h);
	return nl_talk(nl, h, NULL, NULL);
}

/* Deregisters before closing; no acknowledgment: records may be queued. */
void nl_deregister(struct nl *nl, const char *cpus)
{
	struct nlmsghdr *h = nl_request(nl, nl->family, TASKSTATS_CMD_GET, 0);

	mnl_attr_put_strz(h, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, cpus);
	mnl_socket_sendto(nl->sock, h, h->nlmsg_len);
}

static int family_cb(const struct nlmsghdr *h, void *data)
{
	struct nlattr *a;

	mnl_attr_for_each(a, h, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_ID)
			*(uint16_t *)data = mnl_attr_get_u16(a);
	return MNL_CB_OK;
}

/* Opens the socket and resolves the family, or exits with a message. */
void nl_open(struct nl *nl)
{
	struct nlmsghdr *h;
	int err, one = 1;

	nl->sock = mnl_socket_open(NETLINK_GENERIC);
	if (!nl->sock || mnl_socket_bind(nl->sock, 0, MNL_SOCKET_AUTOPID) < 0)
		exit(report(CTX_SOCKET, "netlink socket", errno));
	nl->portid = mnl_socket_get_portid(nl->sock);
	/* Kernels before 4.12 have no extack; they answer without it. */
	mnl_socket_setsockopt(nl->sock, NETLINK_EXT_ACK, &one, sizeof(one));
	h = nl_request(nl, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, NLM_F_ACK);
	mnl_attr_put_strz(h, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME);
	err = nl_talk(nl, h, family_cb, &nl->family);
	if (err)
		exit(report(CTX_FAMILY, "resolving the TASKSTATS family", -err));
	if (opt_verbose)
		fprintf(stderr, "taskstat: TASKSTATS family id %u\n", nl->family);
}

void nl_close(struct nl *nl)
{
	if (nl->sock)
		mnl_socket_close(nl->sock);
	nl->sock = NULL;
}
