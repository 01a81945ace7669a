// SPDX-License-Identifier: GPL-2.0
/*
 * Agents for the access tests, the test's side: see agent.h. An agent is
 * started in its role, asked commands and stopped; commands and replies,
 * with a file descriptor, pass over a socket pair. Targets are named by a
 * pidfd. Also the copies of this program that setuid tests run, which the
 * constructor park() keeps waiting, or flipping between setuid and plain.
 * The agent's side is agent_serve.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "agent.h"
#include "agent_internal.h"
#include "tsnl.h"

/* Started as a copy of this program with TS_PARK set: wait to be killed. */
__attribute__((constructor)) static void park(void)
{
	const char *flip = getenv("TS_FLIP");

	if (flip) {
		/*
		 * The setuid race: ts_suid drops its privileges and execs
		 * ts_plain, which execs ts_suid again, for ever.
		 */
		if (geteuid() == 0) {
			if (setresuid(UID_A, UID_A, UID_A))
				_exit(1);
			execl(PLAIN_PATH, "ts_plain", (char *)NULL);
		} else {
			execl(SUID_PATH, "ts_suid", (char *)NULL);
		}
		_exit(1);
	}
	if (!getenv("TS_PARK"))
		return;
	for (;;)
		pause();
}

/* Sends @len bytes of @buf, and @fd if >= 0. */
int send_fd(int sock, const void *buf, size_t len, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)buf, len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &mh, 0) == (ssize_t)len ? 0 : -1;
}

/* Receives up to @len bytes into @buf and a file descriptor into *@fd. */
int recv_fd(int sock, void *buf, size_t len, int *fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { buf, len };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;
	ssize_t n;

	*fd = -1;
	n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	if (n <= 0)
		return -1;
	c = CMSG_FIRSTHDR(&mh);
	if (c && c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	return n;
}

/* The pid number of @pidfd in our /proc's pid namespace; 0 if none. */
pid_t pidfd_local(int pidfd)
{
	char path[64], buf[256], *p;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	if (ts_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "Pid:");
	return p ? atoi(p + 4) : -1;
}

/*
 * Waits for the process @pidfd names to have exited. A killed task's
 * exit may take long on a vCPU the host starves, but not this long: the
 * bound stays under the harness's 30 s per test, for a failure that says
 * what did not happen.
 */
bool wait_exited(int pidfd)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	return poll(&p, 1, 20000) == 1;
}

/*
 * The container agent: its pid 1 mounts a /proc of its own and serves.
 * The first message on the socket is pid 1's pid in our namespace.
 */
static void container_agent(int sock)
{
	int status, err = container_enter();
	pid_t init;

	if (err)
		_exit(err);
	init = fork();
	if (init == 0) {
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
		    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
			_exit(7);
		serve(sock);
	}
	if (init < 0 || send(sock, &init, sizeof(init), 0) != sizeof(init))
		_exit(8);
	waitpid(init, &status, 0);
	_exit(0);
}

/* Host root joins @init's user, pid and mount namespaces, as runc exec does. */
static void entered_agent(int sock, pid_t init)
{
	static const char * const ns[] = { "user", "pid", "mnt" };
	char path[64];
	pid_t child;
	int fd;

	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", init, ns[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, 0))
			_exit(9);
		close(fd);
	}
	child = fork();		/* only children enter the pid namespace */
	if (child == 0)
		serve(sock);
	waitpid(child, NULL, 0);
	_exit(0);
}

/*
 * Starts an agent. @init is the container's pid 1 for ENTERED, and is set
 * for CONTAINER. Returns 0, 4 if user namespaces are unavailable, or
 * another non-zero value on failure.
 */
int agent_start(struct agent *a, enum who role, pid_t *init)
{
	int sv[2], status;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return 1;
	a->pid = fork();
	if (a->pid < 0)
		return 1;
	if (a->pid == 0) {
		close(sv[0]);
		switch (role) {
		case HOST_A:
			become(UID_A);
			break;
		case HOST_B:
			become(UID_B);
			break;
		case HOST_ROOT:
			break;
		case CONTAINER:
			container_agent(sv[1]);
			break;
		case ENTERED:
			entered_agent(sv[1], *init);
			break;
		}
		serve(sv[1]);
	}
	close(sv[1]);
	a->sock = sv[0];
	if (role == CONTAINER &&
	    recv(a->sock, init, sizeof(*init), 0) != sizeof(*init)) {
		waitpid(a->pid, &status, 0);
		close(a->sock);
		a->pid = 0;
		return WIFEXITED(status) && WEXITSTATUS(status) == 4 ? 4 : 1;
	}
	return 0;
}

/* Kills the target *@pidfd names, if any, and closes the pidfd. */
void target_kill(int *pidfd)
{
	if (*pidfd < 0)
		return;
	syscall(SYS_pidfd_send_signal, *pidfd, SIGKILL, NULL, 0);
	close(*pidfd);
	*pidfd = -1;
}

void agent_stop(struct agent *a)
{
	if (a->pid <= 0)
		return;
	close(a->sock);
	kill(a->pid, SIGKILL);
	waitpid(a->pid, NULL, 0);
	a->pid = 0;
}

/*
 * Sends a command about the target @pidfd; returns the agent's answer,
 * with a second value in *@aux and a file descriptor in *@reply_fd.
 */
int ask2(struct agent *a, int op, int arg, const char *name, int pidfd,
	 int *reply_fd, int *aux)
{
	struct cmd c = { .op = op, .arg = arg };
	int ret[2], fd;

	snprintf(c.name, sizeof(c.name), "%s", name);
	if (send_fd(a->sock, &c, sizeof(c), pidfd))
		return -EPIPE;
	if (recv_fd(a->sock, ret, sizeof(ret), &fd) != sizeof(ret))
		return -EPIPE;
	if (reply_fd)
		*reply_fd = fd;
	else if (fd >= 0)
		close(fd);
	if (aux)
		*aux = ret[1];
	return ret[0];
}

int ask(struct agent *a, int op, int arg, const char *name, int pidfd,
	int *reply_fd)
{
	return ask2(a, op, arg, name, pidfd, reply_fd, NULL);
}

/* Makes a copy of this program at @path, setuid root if @suid. */
int copy_self(const char *path, bool suid)
{
	char buf[65536];
	int in, out, err = 0;
	ssize_t n;

	in = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (in < 0 || out < 0)
		return -errno;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, n) != n)
			err = -EIO;
	if (n < 0 || fchown(out, 0, 0) || fchmod(out, suid ? 04755 : 0755))
		err = -errno;
	close(in);
	close(out);
	return err;
}
