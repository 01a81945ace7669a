// SPDX-License-Identifier: GPL-2.0
/*
 * taskstat - generic netlink through libmnl, and errors a user can act on.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
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
 * CGROUPSTATS_CMD_GET (CTX_CGROUP) or a dump of that cgroup (CTX_DUMP).
 * The kernel's EINVAL means "not a cgroup directory", except from a
 * kernel whose CGROUPSTATS knows only cgroup v1 (upstream's) asked about
 * a v2 one: the file system's magic tells which.
 */
int report_cgroup(enum ctx ctx, const char *what, const char *path, int fd, int err)
{
	int v = cgroup_version(fd);

	switch (err) {
	case EINVAL:
		fprintf(stderr, "taskstat: %s: %s\n", what, strerror(err));
		if (!v)
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
		err = nl_talk(nl, h, cb, data);
		if (err != -EAGAIN || tries == 8)
			return err;
		usleep(1000 << tries);
	}
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
