// SPDX-License-Identifier: GPL-2.0
/*
 * The access checks of ext_test.c that run in other credentials and
 * namespaces: see ext_access.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "agent.h"
#include "dump_seen.h"
#include "ext_access.h"
#include "tsnl.h"

int get_own_task(int fd, uint16_t family, pid_t other)
{
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_reply r;
	struct taskstats ts;

	if (tsnl_get(fd, family, TASKSTATS_CMD_ATTR_PID, getpid(), &ts, &r, buf))
		return 11;
	if (ts.ac_pid != (uint32_t)getpid() || ts.ac_uid != 65534)
		return 12;
	return 0;
}

int get_roots_task(int fd, uint16_t family, pid_t other)
{
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_reply r;
	struct taskstats ts;

	return tsnl_get(fd, family, TASKSTATS_CMD_ATTR_PID, other, &ts, &r, buf) == -EPERM ?
	       0 : 11;
}

int dump_own_tasks(int fd, uint16_t family, pid_t other)
{
	static struct seen s;

	s.check_uid = true;
	s.uid = 65534;
	if (dump_into(fd, family, false, &s) < 1)
		return 11;
	if (s.other_uid || s.count[other] || s.count[getpid()] != 1)
		return 12;
	return 0;
}

int register_listener(int fd, uint16_t family, pid_t other)
{
	return tsnl_cpumask(fd, family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0") == -EPERM ?
	       0 : 11;
}

/*
 * Container checks, run as pid 1 of new user, pid and net namespaces
 * created by an unprivileged user. @host_pid is a task of the host.
 */
static int in_container(uint16_t family, pid_t host_pid)
{
	static char buf[TSNL_BUF_SIZE];
	static struct seen s;
	struct tsnl_reply r;
	struct taskstats ts;
	int fd, n, status;
	struct tsnl_exit e;
	pid_t child;

	fd = tsnl_open();
	if (fd < 0)
		return 20;
	if (tsnl_family(fd, TASKSTATS_GENL_NAME, &family))
		return 21;
	/* Ourselves, with ids of our namespaces. */
	if (tsnl_get(fd, family, TASKSTATS_CMD_ATTR_PID, 1, &ts, &r, buf))
		return 22;
	if (ts.ac_pid != 1 || ts.ac_uid != 0 || ts.ac_ppid != 0)
		return 23;
	if (tsnl_get(fd, family, TASKSTATS_CMD_ATTR_TGID, 1, &ts, &r, buf))
		return 24;
	/* A host task does not exist here. */
	if (tsnl_get(fd, family, TASKSTATS_CMD_ATTR_PID, host_pid, &ts, &r, buf) != -ESRCH)
		return 25;
	/* The dump is this namespace: only pid 1. */
	n = dump_into(fd, family, false, &s);
	if (n != 1 || s.count[1] != 1)
		return 26;
	/* A listener here hears this namespace's exits, with its ids. */
	if (tsnl_cpumask(fd, family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0-1") &&
	    tsnl_cpumask(fd, family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0"))
		return 27;
	child = fork();
	if (child == 0)
		_exit(3);
	waitpid(child, &status, 0);
	/* The host parent makes a task exit too; it must not arrive here. */
	if (write(3, "x", 1) != 1 || read(4, buf, 1) != 1)
		return 28;
	n = 0;
	while (tsnl_recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0) {
		struct nlmsghdr *h = (void *)buf;

		if (tsnl_parse_exit(h, h->nlmsg_len, &e) || !e.have_pid)
			return 29;
		if (e.pid != (uint32_t)child || e.pid_ts.ac_ppid != 1)
			return 30;
		n++;
	}
	return n == 1 ? 0 : 31;
}

static int write_map(const char *file, const char *map)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	return ts_write_file(path, map);
}

/*
 * As nobody: unshare user, pid and net namespaces, run in_container(),
 * which opens its socket in the new network namespace (not @fd).
 */
int container(int fd, uint16_t family, pid_t host_pid)
{
	int status;
	pid_t pid;

	if (unshare(CLONE_NEWUSER))
		return 4;	/* user namespaces unavailable: skip */
	if (write_map("setgroups", "deny") || write_map("uid_map", "0 65534 1") ||
	    write_map("gid_map", "0 65534 1"))
		return 40;
	if (unshare(CLONE_NEWPID | CLONE_NEWNET))
		return 41;
	pid = fork();
	if (pid == 0)
		_exit(in_container(family, host_pid));
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 42;
	return WEXITSTATUS(status);
}

/*
 * What a socket opened in the current network namespace is answered: a
 * GET of pid 1, a dump and a listener registration each succeed (@err 0)
 * or each fail with @err. Root asks, in the initial user namespace.
 */
int asked_from_this_netns(int err)
{
	static struct seen s;
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_reply r;
	struct taskstats ts;
	uint16_t family;
	int fd = tsnl_open(), n;

	if (fd < 0 || tsnl_family(fd, TASKSTATS_GENL_NAME, &family))
		return 50;
	if (tsnl_get(fd, family, TASKSTATS_CMD_ATTR_PID, 1, &ts, &r, buf) != err)
		return 51;
	n = dump_into(fd, family, false, &s);
	if (err ? n != err : n < 1 || s.count[1] != 1)
		return 52;
	if (tsnl_cpumask(fd, family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0") != err)
		return 53;
	return 0;
}

/*
 * A child of nobody's that made a rootless container's namespaces, opened
 * a netlink socket in its network namespace, sent it in *@sock and waits;
 * 0 if it could not.
 */
pid_t container_holder(int *sock)
{
	int sv[2];
	pid_t pid;
	char c;

	*sock = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return 0;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		if (container_enter() || send_fd(sv[1], "y", 1, tsnl_open()))
			_exit(1);
		pause();
		_exit(0);
	}
	close(sv[1]);
	if (pid > 0 && (recv_fd(sv[0], &c, 1, sock) != 1 || *sock < 0)) {
		waitpid(pid, NULL, 0);
		pid = 0;
	}
	close(sv[0]);
	return pid < 0 ? 0 : pid;
}

void holder_stop(pid_t holder, int sock)
{
	close(sock);
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
}

/* A GET of @pid write(2)n on @sock: 0 if its record came, or -errno. */
int written_get(int sock, uint16_t family, pid_t pid)
{
	static char buf[TSNL_BUF_SIZE];
	struct nlmsghdr *h = (void *)buf;
	struct tsnl_reply r;
	struct tsnl_msg m;
	int n;

	tsnl_msg_init(&m, family, TASKSTATS_CMD_GET, 0);
	tsnl_put_u32(&m, TASKSTATS_CMD_ATTR_PID, pid);
	if (write(sock, m.buf, m.nlh.nlmsg_len) != (ssize_t)m.nlh.nlmsg_len)
		return -errno;
	n = tsnl_recv(sock, buf, sizeof(buf), 0);
	if (n < 0)
		return n;
	if (h->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
	if (tsnl_parse(buf, n, &r) || !r.stats || r.id != (uint32_t)pid)
		return -EBADMSG;
	return 0;
}
