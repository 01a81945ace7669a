// SPDX-License-Identifier: GPL-2.0
/*
 * exit: what exit listeners (TASKSTATS_CMD_ATTR_REGISTER_CPUMASK) cost
 * fork+exit+wait, with listener threads of this process or registered
 * from inside containers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* --------------------------------------------------------------------- exit */

struct listener {
	pthread_t thread;
	__u16 family;
	int ready;		/* 1 registered, -errno failed; atomic */
	long records;		/* atomic */
	long messages;		/* atomic */
	long drops;		/* ENOBUFS: the kernel dropped records; atomic */
};

static int listeners_stop;	/* atomic */
static char cpu_possible[256];

/* Registers @nl for the exit records of every possible CPU: 0 or -errno. */
static int register_listener(struct nl *nl, char *buf)
{
	struct nlmsghdr *h;
	ssize_t n;

	if (nl_send(nl, nl->family, NLM_F_ACK, TASKSTATS_CMD_GET,
		    TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpu_possible, strlen(cpu_possible) + 1))
		return -errno;
	for (;;) {
		n = nl_recv(nl, buf, RXBUF_SIZE);
		if (n < 0)
			return -errno;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_ERROR && h->nlmsg_seq == nl->seq)
				return nl_error(h);
		}
	}
}

/* One exit listener: registers, then counts what it hears until told to stop. */
static void *listener_thread(void *arg)
{
	struct listener *l = arg;
	struct timeval tv = { 0, 50000 };
	struct nlmsghdr *h;
	struct nl nl;
	ssize_t n;
	char *buf;
	int r;

	buf = malloc(RXBUF_SIZE);
	if (!buf || nl_open(&nl, 16 << 20)) {
		__atomic_store_n(&l->ready, -ENOMEM, __ATOMIC_RELEASE);
		free(buf);
		return NULL;
	}
	nl.family = l->family;
	setsockopt(nl.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	r = register_listener(&nl, buf);
	__atomic_store_n(&l->ready, r ? r : 1, __ATOMIC_RELEASE);
	while (!r && !__atomic_load_n(&listeners_stop, __ATOMIC_ACQUIRE)) {
		n = nl_recv(&nl, buf, RXBUF_SIZE);
		if (n < 0) {
			if (errno == ENOBUFS)
				__atomic_add_fetch(&l->drops, 1, __ATOMIC_RELAXED);
			continue;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type != nl.family)
				continue;
			__atomic_add_fetch(&l->messages, 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&l->records, count_records(h), __ATOMIC_RELAXED);
		}
	}
	if (!r)
		nl_send(&nl, nl.family, 0, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
			cpu_possible, strlen(cpu_possible) + 1);
	close(nl.fd);
	free(buf);
	return NULL;
}

/* The records the first @n listeners have heard so far. */
static long total_records(struct listener *ls, long n)
{
	long i, sum = 0;

	for (i = 0; i < n; i++)
		sum += __atomic_load_n(&ls[i].records, __ATOMIC_RELAXED);
	return sum;
}

/*
 * A container of @n exit listeners: root of new user, pid and net
 * namespaces, whose pid 1 registers @n sockets on every possible CPU and
 * waits to be killed. They hear nothing of the host's tasks: what they
 * cost the host's exits is what "exit -c" measures. Writes 0 or -errno to
 * @ready; pid 1 dies with the returned process.
 */
static pid_t container_listeners(long n, int ready)
{
	struct rlimit nofile = { n + 64, n + 64 };
	pid_t pid = fork(), init;
	int r = 0;
	char *buf;
	long i;

	if (pid)
		return pid;
	if (unshare(CLONE_NEWUSER) ||
	    write_file("/proc/self/uid_map", "0 0 1") ||
	    write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/gid_map", "0 0 1") ||
	    unshare(CLONE_NEWPID | CLONE_NEWNET))
		r = -errno;
	init = r ? -1 : fork();
	if (init == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		buf = malloc(RXBUF_SIZE);
		if (!buf || setrlimit(RLIMIT_NOFILE, &nofile))
			r = -ENOMEM;
		for (i = 0; i < n && !r; i++) {
			struct nl nl;

			r = nl_taskstats(&nl, 0) ? -EIO : register_listener(&nl, buf);
		}
		if (write(ready, &r, sizeof(r)) != sizeof(r))
			_exit(1);
		for (;;)
			pause();
	}
	if (init < 0 && write(ready, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	if (init > 0)
		waitpid(init, NULL, 0);
	_exit(0);
}

/* @count fork+exit+wait after a twentieth as many untimed: their ns in @ns. */
static int fork_exit_loop(long count, unsigned long long *ns)
{
	long warm = count / 20 + 1, i;
	unsigned long long t0 = 0;
	int status;
	pid_t pid;

	for (i = -warm; i < count; i++) {
		if (i == 0)
			t0 = now_ns();
		pid = fork();
		if (pid < 0)
			return fail("fork");
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			return fail("waitpid");
	}
	*ns = now_ns() - t0;
	return 0;
}

/* exit: fork+exit+wait per second with LISTENERS exit listeners (-c: in containers). */
int cmd_exit(const struct opts *o)
{
	long count = pick(o->count, 10000, 200, o), n = o->listeners, i, started = 0, prev, cur;
	long nc = o->containers > 0 ? o->containers : 0;
	pid_t containers[64];
	int ready[2] = { -1, -1 };
	struct listener *ls;
	unsigned long long ns = 0;
	__u16 family = 0;
	char *nl_pos;
	int fd, ret = 0, r;
	struct nl nl;

	if (n < 0)
		n = 0;
	fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, cpu_possible, sizeof(cpu_possible) - 1) <= 0)
		return fail("/sys/devices/system/cpu/possible");
	close(fd);
	nl_pos = strchr(cpu_possible, '\n');
	if (nl_pos)
		*nl_pos = '\0';
	ls = calloc(n + 1, sizeof(*ls));
	if (!ls)
		return failx("exit: out of memory");
	if (n) {
		if (nl_taskstats(&nl, 0)) {
			free(ls);
			return 1;
		}
		family = nl.family;
		close(nl.fd);
	}
	if (nc > 64)
		nc = 64;
	if (nc) {
		if (pipe(ready))
			return fail("pipe");
		for (i = 0; i < nc; i++) {
			containers[i] = container_listeners(n / nc + (i < n % nc), ready[1]);
			if (containers[i] < 0) {
				nc = i;
				ret = fail("fork");
				break;
			}
		}
		close(ready[1]);
		for (i = 0; i < nc && !ret; i++) {
			if (read(ready[0], &r, sizeof(r)) != sizeof(r))
				r = -EIO;
			if (r == -EPERM) {
				/* Upstream: only the initial namespace's admin listens. */
				printf("RESULT exit_ns%ld unsupported -\n", n);
				ret = -1;
			} else if (r < 0) {
				errno = -r;
				ret = fail("registering exit listeners in a container");
			}
		}
	}
	for (i = 0; i < n && !nc; i++) {
		ls[i].family = family;
		errno = pthread_create(&ls[i].thread, NULL, listener_thread, &ls[i]);
		if (errno) {
			ret = fail("pthread_create");
			break;
		}
		started++;
	}
	for (i = 0; i < started && !ret; i++) {
		while (!(r = __atomic_load_n(&ls[i].ready, __ATOMIC_ACQUIRE)))
			sleep_ms(1);
		if (r < 0) {
			errno = -r;
			ret = fail("registering an exit listener");
		}
	}
	/*
	 * Parent and children share CPU 0 (listeners keep the affinity they
	 * were created with): a child woken on the other CPU would leave both
	 * idle at times, and under -icount idle time follows the host's clock.
	 */
	if (!ret && pin_cpu(0))
		ret = fail("pinning to CPU 0");
	if (!ret)
		ret = fork_exit_loop(count, &ns);
	/* Let the listeners drain what is queued before stopping them. */
	cur = total_records(ls, started);
	for (i = 0; i < 20; i++) {
		prev = cur;
		sleep_ms(100);
		cur = total_records(ls, started);
		if (cur == prev)
			break;
	}
	__atomic_store_n(&listeners_stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < started; i++) {
		pthread_join(ls[i].thread, NULL);
		note("exit: listener %ld (cpus %s) got %ld records in %ld messages, %ld ENOBUFS",
		     i, cpu_possible, ls[i].records, ls[i].messages, ls[i].drops);
	}
	for (i = 0; i < nc; i++) {
		kill(containers[i], SIGKILL);
		waitpid(containers[i], NULL, 0);
	}
	if (ready[0] >= 0)
		close(ready[0]);
	free(ls);
	if (ret)
		return ret < 0 ? 0 : ret;
	note("exit: %ld fork+exit+wait with %ld listeners%s in %.3f s", count, n,
	     nc ? " in containers" : "", ns / 1e9);
	resultf(count / (ns / 1e9), "forks/s", nc ? "exit_ns%ld" : "exit_l%ld", n);
	return 0;
}
