// SPDX-License-Identifier: GPL-2.0
/*
 * exit: what exit listeners (TASKSTATS_CMD_ATTR_REGISTER_CPUMASK) cost
 * fork+exit+wait, with listener threads of this process, registered from
 * inside containers, or registered for another cgroup than the forking
 * one's (-G).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
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

/* Waits for the answer to the last request on @nl: 0 or -errno. */
static int wait_ack(struct nl *nl, char *buf)
{
	struct nlmsghdr *h;
	ssize_t n;

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

/* Registers @nl for the exit records of every possible CPU: 0 or -errno. */
static int register_listener(struct nl *nl, char *buf)
{
	if (nl_send(nl, nl->family, NLM_F_ACK, TASKSTATS_CMD_GET,
		    TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpu_possible, strlen(cpu_possible) + 1))
		return -errno;
	return wait_ack(nl, buf);
}

/*
 * Registers @nl for the exits, on every possible CPU, of the tasks of the
 * cgroup v2 directory @cgfd is open on (TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD
 * beside REGISTER_CPUMASK): 0 or -errno. Only for a kernel that has
 * cgroup listeners: another ignores the fd and hears every exit.
 */
static int register_cgroup_listener(struct nl *nl, char *buf, int cgfd)
{
	__u32 fd = cgfd;
	struct nl_attr attrs[] = {
		{ TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpu_possible, strlen(cpu_possible) + 1 },
		{ TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, &fd, sizeof(fd) },
	};

	if (nl_send_attrs(nl, nl->family, NLM_F_ACK, TASKSTATS_CMD_GET, attrs, 2))
		return -errno;
	return wait_ack(nl, buf);
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

/* Reads the possible CPUs, the cpulist every listener registers: 0, or 1 after a message. */
static int read_cpu_possible(void)
{
	int fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
	char *end;

	if (fd < 0 || read(fd, cpu_possible, sizeof(cpu_possible) - 1) <= 0)
		return fail("/sys/devices/system/cpu/possible");
	close(fd);
	end = strchr(cpu_possible, '\n');
	if (end)
		*end = '\0';
	return 0;
}

/* -------------------------------------------------------- exit -G: cgroups */

/*
 * The cgroup the forking process and its children run in, and the one
 * its listeners are registered for: siblings, fresh and empty, removed at
 * the end.
 */
#define EXIT_CGROUP_RUN		CGROUP2_ROOT "/taskstats_bench_exit"
#define EXIT_CGROUP_OTHER	CGROUP2_ROOT "/taskstats_bench_other"

/* Removes cgroup directory @path once the tasks that left it are gone. */
static void exit_cgroup_rmdir(const char *path)
{
	int i;

	for (i = 0; rmdir(path); i++) {
		if (errno == ENOENT)
			return;
		if (errno != EBUSY || i == 100) {
			note("exit: could not remove %s: %s", path, strerror(errno));
			return;
		}
		sleep_ms(10);
	}
}

/* Moves this (single-threaded) process into the cgroup v2 directory @dir. */
static int move_self(const char *dir)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (write_file(path, "0"))
		return fail(path);
	return 0;
}

/* The directory of this process's cgroup v2, from /proc/self/cgroup ("0::/path"). */
static int own_cgroup(char *dir, size_t size)
{
	char line[4000], *nl_pos;
	FILE *f = fopen("/proc/self/cgroup", "re");
	int found = 0;

	if (!f)
		return fail("/proc/self/cgroup");
	while (!found && fgets(line, sizeof(line), f)) {
		if (strncmp(line, "0::", 3))
			continue;
		nl_pos = strchr(line, '\n');
		if (nl_pos)
			*nl_pos = '\0';
		snprintf(dir, size, "%s%s", CGROUP2_ROOT, strcmp(line + 3, "/") ? line + 3 : "");
		found = 1;
	}
	fclose(f);
	return found ? 0 : failx("exit: no cgroup v2 line in /proc/self/cgroup");
}

/*
 * Whether the kernel has cgroup listeners: the TASKSTATS GET op's policy
 * lists TASKSTATS_CMD_ATTR_CGROUP_ID (CTRL_CMD_GETPOLICY). 1 yes, 0 no
 * (after a note), -1 after an error message. A kernel without them (the
 * reference, Linux 6.12's own taskstats) validates liberally and ignores
 * DUMP_CGROUP_FD on a registration: its "listener of another cgroup"
 * would hear every exit, so it is not measured at all.
 */
static int have_cgroup_listeners(void)
{
	struct nl nl;
	int r;

	if (nl_open(&nl, 0)) {
		fail("netlink socket");
		return -1;
	}
	r = nl_policy_has(&nl, TASKSTATS_GENL_NAME, TASKSTATS_CMD_GET,
			  TASKSTATS_CMD_ATTR_CGROUP_ID);
	close(nl.fd);
	if (r == 1)
		return 1;
	if (r == 0) {
		note("exit: the TASKSTATS GET policy has no attribute %d (CGROUP_ID): "
		     "no cgroup listeners; a registration would ignore DUMP_CGROUP_FD",
		     TASKSTATS_CMD_ATTR_CGROUP_ID);
		return 0;
	}
	if (r == -ENOENT) {
		note("exit: no TASKSTATS family (CTRL_CMD_GETPOLICY: %s)", strerror(-r));
		return 0;
	}
	errno = -r;
	fail("CTRL_CMD_GETPOLICY of TASKSTATS");
	return -1;
}

/* What exit -G's holder of listeners says: first the registrations', then what they heard. */
struct holder_report {
	int err;		/* 0, an errno, or -1: reported already */
	long heard, msgs, drops;
};

/* Counts what @n listeners heard into @rep, without waiting. */
static void holder_drain(struct nl *socks, long n, char *buf, struct holder_report *rep)
{
	struct nlmsghdr *h;
	ssize_t got;
	long i;

	for (i = 0; i < n; i++) {
		while ((got = recv(socks[i].fd, buf, RXBUF_SIZE, MSG_DONTWAIT)) != 0) {
			if (got < 0 && errno == ENOBUFS) {
				rep->drops++;
				continue;
			}
			if (got < 0)
				break;
			for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, got); h = NLMSG_NEXT(h, got)) {
				if (h->nlmsg_type != socks[i].family)
					continue;
				rep->msgs++;
				rep->heard += count_records(h);
			}
		}
	}
}

/*
 * The holder of exit -G's listeners, a child forked before the loop: it
 * registers @n listeners for the cgroup @cgfd is open on, says how that
 * went on @ready, waits until @stop is closed, then reports on @ready
 * what they heard. The forking process holds none of their sockets: the
 * children it forks would inherit them, and copy and close @n more files
 * at each fork and exit, a cost of the fd table and not of the listeners.
 */
static void __attribute__((noreturn)) holder(long n, int cgfd, int ready, int stop)
{
	struct rlimit nofile = { n + 64, n + 64 };
	struct nl *socks = calloc(n + 1, sizeof(*socks));
	struct holder_report rep = { 0 };
	char *buf = malloc(RXBUF_SIZE);
	long i, opened = 0;
	char c;
	int r;

	if (!socks || !buf)
		rep.err = ENOMEM;
	else if (n + 64 > 1024 && setrlimit(RLIMIT_NOFILE, &nofile))
		rep.err = errno;
	for (i = 0; !rep.err && i < n; i++) {
		if (nl_taskstats(&socks[i], 0)) {
			rep.err = -1;
			break;
		}
		opened++;
		r = register_cgroup_listener(&socks[i], buf, cgfd);
		if (r)
			rep.err = -r;
	}
	if (write(ready, &rep, sizeof(rep)) != sizeof(rep) || rep.err)
		_exit(1);
	while (read(stop, &c, 1) > 0)
		;
	holder_drain(socks, opened, buf, &rep);
	_exit(write(ready, &rep, sizeof(rep)) != sizeof(rep));
}

/* Reads a holder's report from @fd: 0, or 1 after a message. */
static int holder_read(int fd, struct holder_report *rep)
{
	if (read(fd, rep, sizeof(*rep)) != sizeof(*rep))
		return failx("exit: the holder of the listeners died");
	if (rep->err > 0) {
		errno = rep->err;
		return fail("registering an exit listener for " EXIT_CGROUP_OTHER);
	}
	return rep->err < 0;
}

/*
 * exit -G: fork+exit+wait per second in a fresh cgroup, with @n exit
 * listeners on every possible CPU registered for another, empty cgroup
 * (TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD): each exit is in none of their
 * cgroups, so all they may cost it is the test that says so. @n 0 is the
 * control: the same cgroups and holder, without a listener. The
 * listeners are sockets of the holder that nobody reads: they must hear
 * nothing, which is checked (and noted) after the loop.
 */
static int exit_cgroup(long count, long n)
{
	int ready[2] = { -1, -1 }, stop[2] = { -1, -1 };
	struct holder_report rep = { 0 };
	unsigned long long ns = 0;
	int ret = 0, moved = 0, cgfd = -1, r;
	pid_t pid = -1;
	struct statfs sfs;
	char home[4096];

	if (n) {
		r = have_cgroup_listeners();
		if (r <= 0) {
			if (r == 0)
				status("unsupported", "exit_cg%ld", n);
			return r < 0;
		}
	}
	if (statfs(CGROUP2_ROOT, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC)
		return failx("exit: %s is not a cgroup v2 mount", CGROUP2_ROOT);
	if (own_cgroup(home, sizeof(home)))
		return 1;
	/* Left by a killed run: its tasks died with it. */
	exit_cgroup_rmdir(EXIT_CGROUP_RUN);
	exit_cgroup_rmdir(EXIT_CGROUP_OTHER);
	if (mkdir(EXIT_CGROUP_RUN, 0755))
		return fail("mkdir " EXIT_CGROUP_RUN);
	if (mkdir(EXIT_CGROUP_OTHER, 0755)) {
		ret = fail("mkdir " EXIT_CGROUP_OTHER);
		goto out;
	}
	cgfd = open(EXIT_CGROUP_OTHER, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cgfd < 0 || pipe2(ready, O_CLOEXEC) || pipe2(stop, O_CLOEXEC)) {
		ret = fail(cgfd < 0 ? EXIT_CGROUP_OTHER : "pipe");
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		ret = fail("fork");
		goto out;
	}
	if (!pid) {
		close(ready[0]);
		close(stop[1]);
		holder(n, cgfd, ready[1], stop[0]);
	}
	close(ready[1]);
	close(stop[0]);
	close(cgfd);
	ready[1] = stop[0] = cgfd = -1;
	ret = holder_read(ready[0], &rep);
	if (ret)
		goto out;
	ret = move_self(EXIT_CGROUP_RUN);
	if (ret)
		goto out;
	moved = 1;
	/* As exit -l: parent and children on CPU 0. */
	if (pin_cpu(0)) {
		ret = fail("pinning to CPU 0");
		goto out;
	}
	ret = fork_exit_loop(count, &ns);
	/* What the listeners heard: nothing, if the kernel filters by cgroup. */
	close(stop[1]);
	stop[1] = -1;
	if (!ret)
		ret = holder_read(ready[0], &rep);
	if (!ret && n)
		note("exit: %ld listeners of %s (cpus %s) heard %ld records in %ld messages, "
		     "%ld ENOBUFS%s", n, EXIT_CGROUP_OTHER, cpu_possible, rep.heard, rep.msgs,
		     rep.drops, rep.heard || rep.drops ? ": exits of another cgroup reached them" : "");
out:
	if (moved && move_self(home))
		ret = 1;
	for (r = 0; r < 2; r++) {
		if (ready[r] >= 0)
			close(ready[r]);
		if (stop[r] >= 0)
			close(stop[r]);
	}
	if (cgfd >= 0)
		close(cgfd);
	if (pid > 0)
		waitpid(pid, NULL, 0);
	exit_cgroup_rmdir(EXIT_CGROUP_RUN);
	exit_cgroup_rmdir(EXIT_CGROUP_OTHER);
	if (ret)
		return ret;
	note("exit: %ld fork+exit+wait in %s with %ld listeners for %s in %.3f s", count,
	     EXIT_CGROUP_RUN, n, EXIT_CGROUP_OTHER, ns / 1e9);
	resultf(count / (ns / 1e9), "forks/s", "exit_cg%ld", n);
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
	int ret = 0, r;
	struct nl nl;

	if (n < 0)
		n = 0;
	if (read_cpu_possible())
		return 1;
	if (o->cgroup)
		return exit_cgroup(count, n);
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
