// SPDX-License-Identifier: GPL-2.0
/*
 * The lifetime and the limits of exit listeners, against a hostile user:
 * a listener belongs to its socket, never to a port id that anyone can
 * bind again once the socket is closed; any user can make the user and
 * pid namespaces that allow listening, so listeners are counted per user
 * and user namespace (user.max_taskstats_listeners) and refused with
 * ENOSPC beyond; a socket listens with the identity of its first
 * registration. Then what a container's listener hears, and what it may
 * not learn from it: that the exiting task used a capability (the
 * listener's, used on its behalf), a group whose leader it could not
 * read, the number of exits other namespaces heard; and how much it may
 * leave unread. What a listener's memory is charged to, and what a record
 * the kernel could not allocate for one listener costs the others
 * (nothing: that one gets ENOBUFS). A kernel without
 * these rules (the reference: it cannot dump) skips the tests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/acct.h>
#include <linux/sock_diag.h>

#include "../kselftest_harness.h"
#include "agent.h"
#include "tsnl.h"

#define LIMIT		"/proc/sys/user/max_taskstats_listeners"
#define FILLERS		100	/* listeners that slow every exit down */
#define ROUNDS		30

/* A socket bound to port id @portid, or -errno. */
static int bind_portid(uint32_t portid)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_pid = portid };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Forks children that exit at once, until killed. */
static pid_t exit_storm(void)
{
	pid_t pid = fork();

	if (pid == 0)
		fork_exit_forever(NULL);
	return pid;
}

/*
 * The attacker, as user A: for each port id it reads from @cmd, binds a
 * socket to it as soon as it is free, reads what arrives for 100 ms and
 * writes the number of messages to @res (-1: the port never came free).
 */
static void attacker(int cmd, int res)
{
	static char buf[TSNL_BUF_SIZE];
	uint32_t portid;

	become(UID_A);
	while (read(cmd, &portid, sizeof(portid)) == sizeof(portid)) {
		struct timespec t0, t;
		int fd, got = 0;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			fd = bind_portid(portid);
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while (fd < 0 && t.tv_sec - t0.tv_sec < 2);
		if (fd >= 0) {
			usleep(100000);
			while (tsnl_recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
				got++;
			close(fd);
		} else {
			got = -1;
		}
		if (write(res, &got, sizeof(got)) != sizeof(got))
			break;
	}
	_exit(0);
}

FIXTURE(lifetime) {
	int fillers[FILLERS];
	int nr_fillers;
	pid_t storm, storm2, attacker;
	int cmd, res;
	uint16_t family;
};

FIXTURE_SETUP(lifetime)
{
	int to[2], from[2], fd;

	memset(self, 0, sizeof(*self));
	if (!ts_kernel_dumps())
		SKIP(return, "this kernel has no listener rules of its own (no dump)");
	fd = tsnl_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tsnl_family(fd, TASKSTATS_GENL_NAME, &self->family));
	close(fd);
	ASSERT_EQ(0, pipe(to));
	ASSERT_EQ(0, pipe(from));
	self->attacker = fork();
	ASSERT_LE(0, self->attacker);
	if (self->attacker == 0) {
		close(to[1]);
		close(from[0]);
		attacker(to[0], from[1]);
	}
	close(to[0]);
	close(from[1]);
	self->cmd = to[1];
	self->res = from[0];
	self->storm = exit_storm();
	ASSERT_LT(0, self->storm);
	self->storm2 = exit_storm();
	ASSERT_LT(0, self->storm2);
}

/*
 * Listeners that never read, registered after the victim: an exit sends
 * to each of them and, in an implementation that keeps its listeners
 * newest first, to the victim last, long after its walk began.
 */
static void fillers_open(struct _test_data_lifetime *self)
{
	char cpus[256];

	for (int i = 0; i < FILLERS; i++) {
		int fd = tsnl_open();

		if (fd < 0)
			break;
		self->fillers[self->nr_fillers++] = fd;
		ts_register_all(fd, self->family, cpus, sizeof(cpus));
	}
}

static void fillers_close(struct _test_data_lifetime *self)
{
	while (self->nr_fillers)
		close(self->fillers[--self->nr_fillers]);
}

FIXTURE_TEARDOWN(lifetime)
{
	if (self->storm > 0) {
		kill(self->storm, SIGKILL);
		waitpid(self->storm, NULL, 0);
	}
	if (self->storm2 > 0) {
		kill(self->storm2, SIGKILL);
		waitpid(self->storm2, NULL, 0);
	}
	if (self->attacker > 0) {
		close(self->cmd);
		kill(self->attacker, SIGKILL);
		waitpid(self->attacker, NULL, 0);
		close(self->res);
	}
	fillers_close(self);
}

/*
 * Root's listener is closed while tasks exit and their records are on
 * their way to it; user A binds the port id at once. A listener's records
 * go to its socket, not to its port id: A receives nothing, ever.
 */
TEST_F_TIMEOUT(lifetime, a_closed_listeners_port_id_bound_again_receives_nothing, 120)
{
	int received = 0, bound = 0;
	char cpus[256];

	for (int round = 0; round < ROUNDS; round++) {
		uint32_t portid = 0x7a5c0000 + round;
		int fd = bind_portid(portid), got;

		ASSERT_LE(0, fd);
		ASSERT_EQ(0, ts_register_all(fd, self->family, cpus, sizeof(cpus)));
		fillers_open(self);
		/* The attacker spins on bind() from now on. */
		ASSERT_EQ((ssize_t)sizeof(portid), write(self->cmd, &portid, sizeof(portid)));
		usleep(20000);
		close(fd);
		ASSERT_EQ((ssize_t)sizeof(got), read(self->res, &got, sizeof(got)));
		fillers_close(self);
		if (got >= 0) {
			bound++;
			received += got;
		}
	}
	TH_LOG("the attacker bound %d of %d port ids and received %d messages",
	       bound, ROUNDS, received);
	EXPECT_LT(0, bound);
	EXPECT_EQ(0, received);
}

/* ------------------------------------------------------------------ limits */

FIXTURE(limits) {
	struct agent c1, c2;
	char old_limit[32];
};

FIXTURE_SETUP(limits)
{
	pid_t init;
	int ret;

	memset(self, 0, sizeof(*self));
	if (!ts_kernel_dumps())
		SKIP(return, "this kernel has no listener rules of its own (no dump)");
	ASSERT_LT(0, ts_read_file(LIMIT, self->old_limit, sizeof(self->old_limit)))
		TH_LOG("no %s", LIMIT);
	ASSERT_EQ(0, ts_write_file(LIMIT, "3"));
	ret = agent_start(&self->c1, CONTAINER, &init);
	if (ret == 4)
		SKIP(return, "cannot create a user namespace");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, agent_start(&self->c2, CONTAINER, &init));
}

FIXTURE_TEARDOWN(limits)
{
	agent_stop(&self->c1);
	agent_stop(&self->c2);
	if (self->old_limit[0])
		ts_write_file(LIMIT, self->old_limit);
}

static int more(struct agent *a)
{
	return ask(a, OP_LISTEN_MORE, 0, "", -1, NULL);
}

TEST_F(limits, a_users_listeners_beyond_its_limit_are_enospc)
{
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, more(&self->c1));
	EXPECT_EQ(-ENOSPC, more(&self->c1));
	/* Closing a listener gives its place back, and only its place. */
	ASSERT_EQ(0, ask(&self->c1, OP_LISTEN_LESS, 0, "", -1, NULL));
	EXPECT_EQ(0, more(&self->c1));
	EXPECT_EQ(-ENOSPC, more(&self->c1));
}

/* A refused registration takes no place: none is left over after many. */
TEST_F(limits, refused_registrations_leave_the_count_as_it_was)
{
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, more(&self->c1));
	for (int i = 0; i < 20; i++)
		ASSERT_EQ(-ENOSPC, more(&self->c1));
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, ask(&self->c1, OP_LISTEN_LESS, 0, "", -1, NULL));
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(0, more(&self->c1));
	EXPECT_EQ(-ENOSPC, more(&self->c1));
}

/*
 * Two threads registering one new socket at once, at the user's last
 * place, both succeed: the place is the socket's, taken once, and the
 * thread that finds the other's listener needs none.
 */
TEST_F(limits, two_threads_registering_one_socket_at_the_last_place_both_succeed)
{
	ASSERT_EQ(0, more(&self->c1));
	ASSERT_EQ(0, more(&self->c1));
	EXPECT_EQ(0, ask(&self->c1, OP_LISTEN_RACE, 200, "", -1, NULL));
	/* Each of those sockets was closed: the last place is free again. */
	EXPECT_EQ(0, more(&self->c1));
	EXPECT_EQ(-ENOSPC, more(&self->c1));
}

/* The limit counts listeners, not CPUs: a listener at it may add CPUs. */
TEST_F(limits, a_listener_at_its_users_limit_may_still_add_cpus)
{
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, more(&self->c1));
	EXPECT_EQ(0, ask(&self->c1, OP_LISTEN_WIDER, 0, "", -1, NULL));
	EXPECT_EQ(-ENOSPC, more(&self->c1));
}

/* More namespaces do not make more room: the user is counted in each ancestor. */
TEST_F(limits, a_users_listeners_count_across_its_namespaces)
{
	ASSERT_EQ(0, more(&self->c1));
	ASSERT_EQ(0, more(&self->c1));
	ASSERT_EQ(0, more(&self->c2));
	EXPECT_EQ(-ENOSPC, more(&self->c2));
	EXPECT_EQ(-ENOSPC, more(&self->c1));
}

/* A container's root may lower the limit of its own namespace. */
TEST_F(limits, a_containers_own_limit_binds_inside_it)
{
	ASSERT_EQ(0, ask(&self->c1, OP_SET_LIMIT, 1, "", -1, NULL));
	ASSERT_EQ(0, more(&self->c1));
	EXPECT_EQ(-ENOSPC, more(&self->c1));
	EXPECT_EQ(0, more(&self->c2));
}

/* The initial namespace's admin is not counted. */
TEST_F(limits, the_initial_namespaces_admin_is_not_limited)
{
	int fd[5];

	for (int i = 0; i < 5; i++) {
		uint16_t family;

		fd[i] = tsnl_open();
		ASSERT_LE(0, fd[i]);
		ASSERT_EQ(0, tsnl_family(fd[i], TASKSTATS_GENL_NAME, &family));
		EXPECT_EQ(0, tsnl_cpumask(fd[i], family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0"));
	}
	for (int i = 0; i < 5; i++)
		close(fd[i]);
}

/*
 * Root's listening socket handed to a container's root: the container may
 * not add CPUs under root's identity (which hears the host's exits), nor
 * turn the socket into a second listener of its own.
 */
TEST_F(limits, a_socket_listens_with_the_identity_of_its_first_registration)
{
	uint16_t family;
	int fd = tsnl_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tsnl_family(fd, TASKSTATS_GENL_NAME, &family));
	ASSERT_EQ(0, tsnl_cpumask(fd, family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0"));
	EXPECT_EQ(-EBUSY, ask(&self->c1, OP_REGISTER_ON, 0, "", fd, NULL));
	close(fd);
}

/* Whether @fd hears the exit of a child of ours that exits on CPU 0. */
static bool hears_an_exit_on_cpu0(int fd)
{
	struct taskstats ts;
	cpu_set_t cpu0;
	pid_t pid;

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0))
		return true;	/* unknown: the caller expects false */
	pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		return true;
	return !ts_exit_record(fd, pid, &ts);
}

/*
 * Only registering is bound to the socket's identity: another holder of
 * the socket, here a container's root, may take CPUs off it, after which
 * it hears no exit there.
 */
TEST_F(limits, anyone_holding_a_listening_socket_may_deregister_it)
{
	uint16_t family;
	int fd = tsnl_open();

	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tsnl_family(fd, TASKSTATS_GENL_NAME, &family));
	ASSERT_EQ(0, tsnl_cpumask(fd, family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0"));
	ASSERT_TRUE(hears_an_exit_on_cpu0(fd));
	EXPECT_EQ(0, ask(&self->c1, OP_DEREGISTER_ON, 0, "", fd, NULL));
	EXPECT_FALSE(hears_an_exit_on_cpu0(fd));
	close(fd);
}

/* ----------------------------------------------------------------- charges */

#define CHARGED		1000	/* a container's listeners, under its limit of 1024 */

/* What the container's pid 1 measured: see charge_listeners(). */
struct charged {
	int err;		/* making the container, or a socket, or registering */
	int cpus;		/* each listener registered */
	int64_t before, after;	/* the cgroup's slab, in bytes */
};

/*
 * The cgroup's slab_unreclaimable once the statistics settled: the
 * kernel folds every CPU's updates into them at least every 2 s.
 */
static int64_t settled_slab(int cgroup)
{
	char buf[8192];
	int fd;
	ssize_t n;

	sleep(3);
	fd = openat(cgroup, "memory.stat", O_RDONLY | O_CLOEXEC);
	n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
	if (fd >= 0)
		close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return ts_keyed_value(buf, "slab_unreclaimable");
}

/* How many CPUs the cpulist @s ("0-3,8") names. */
static int cpulist_count(const char *s)
{
	char *end;
	int n = 0;

	for (const char *p = s; *p; p = *end ? end + 1 : end) {
		long first = strtol(p, &end, 10), last = first;

		if (*end == '-')
			last = strtol(end + 1, &end, 10);
		n += last - first + 1;
	}
	return n;
}

/*
 * Joins the memory cgroup @memcg and makes a container (user A's user and
 * pid namespaces), whose pid 1 opens CHARGED sockets, then registers each
 * on every CPU, and measures the cgroup's slab before and after the
 * registrations. Writes what it measured to @out.
 */
static void charge_listeners(const char *memcg, int out)
{
	static int fds[CHARGED];
	static struct charged c;
	uint16_t family = 0;
	char cpus[256];
	int cgroup;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	cgroup = open(memcg, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cgroup < 0 ||
	    setrlimit(RLIMIT_NOFILE, &(struct rlimit){ 2 * CHARGED, 2 * CHARGED }))
		c.err = -errno;
	else
		c.err = container_pid1(memcg);
	for (int i = 0; !c.err && i < CHARGED; i++) {	/* pid 1 */
		fds[i] = tsnl_open();
		if (fds[i] < 0)
			c.err = fds[i];
		else if (!i)
			c.err = tsnl_family(fds[0], TASKSTATS_GENL_NAME, &family);
	}
	if (!c.err)
		c.before = settled_slab(cgroup);
	for (int i = 0; !c.err && i < CHARGED; i++)
		c.err = ts_register_all(fds[i], family, cpus, sizeof(cpus));
	if (!c.err) {
		c.after = settled_slab(cgroup);
		c.cpus = cpulist_count(cpus);
	}
	_exit(write(out, &c, sizeof(c)) == sizeof(c) ? 0 : 1);
}

FIXTURE(charge) {
	char memcg[300];
	char subtree[300];	/* to undo, if we enabled the controller */
};

FIXTURE_SETUP(charge)
{
	char name[32];
	int err;

	memset(self, 0, sizeof(*self));
	if (!ts_kernel_dumps())
		SKIP(return, "this kernel has no listener rules of its own (no dump)");
	snprintf(name, sizeof(name), "ts-charge-%d", getpid());
	err = ts_memcg_make(name, self->memcg, sizeof(self->memcg),
			    self->subtree, sizeof(self->subtree));
	if (err == -ENOENT)
		SKIP(return, "no cgroup2 memory controller");
	ASSERT_EQ(0, err);
}

FIXTURE_TEARDOWN(charge)
{
	if (self->memcg[0])
		rmdir(self->memcg);
	if (self->subtree[0])
		ts_write_file(self->subtree, "-memory");
}

/*
 * What bounds a container's listeners besides their number is its memory
 * cgroup: a listener and its link to each CPU are charged there. The
 * container's thousand registrations must raise the cgroup's slab by at
 * least 64 bytes per listener and per link over what the same sockets
 * cost unregistered (the objects are larger: 64 is a floor).
 */
TEST_F_TIMEOUT(charge, a_containers_listeners_are_charged_to_its_memory_cgroup, 60)
{
	static struct charged c;
	struct pollfd p;
	int pipefd[2];
	pid_t maker;

	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	maker = fork();
	ASSERT_LE(0, maker);
	if (maker == 0)
		charge_listeners(self->memcg, pipefd[1]);
	close(pipefd[1]);
	p = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	ASSERT_EQ(1, poll(&p, 1, 30000));
	ASSERT_EQ((ssize_t)sizeof(c), read(pipefd[0], &c, sizeof(c)));
	close(pipefd[0]);
	waitpid(maker, NULL, 0);
	if (c.err == 4)
		SKIP(return, "cannot create a user namespace");
	ASSERT_EQ(0, c.err);
	TH_LOG("%d listeners on %d CPUs: slab %lld -> %lld bytes", CHARGED, c.cpus,
	       (long long)c.before, (long long)c.after);
	ASSERT_LE(0, c.before);
	EXPECT_LE(c.before + (int64_t)CHARGED * (1 + c.cpus) * 64, c.after);
}

/* -------------------------------------------------------------------- lost */

/*
 * A record the kernel could not allocate: failslab (./config enables it)
 * fails the first slab allocation made under
 * taskstats_exit() by one exiting child, which has set its make-it-fail.
 */
#define FAILSLAB	"/sys/kernel/debug/failslab"

static const char * const knob[] = {
	"probability", "times", "task-filter", "ignore-gfp-wait", "verbose",
	"stacktrace-depth", "require-start", "require-end",
};

/* Where the function @name begins and the next symbol does, or -1. */
static int symbol_range(const char *name, unsigned long long *start,
			unsigned long long *end)
{
	unsigned long long addr, found = 0, next = ~0ULL;
	char line[512], sym[256], type;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %255s", &addr, &type, sym) == 3 &&
		    !strcmp(sym, name))
			found = addr;
	rewind(f);
	while (found && fgets(line, sizeof(line), f)) {
		addr = strtoull(line, NULL, 16);
		if (addr > found && addr < next)
			next = addr;
	}
	fclose(f);
	if (!found || next == ~0ULL)
		return -1;
	*start = found;
	*end = next;
	return 0;
}

FIXTURE(lost) {
	char saved[ARRAY_SIZE(knob)][32];
	int l[2];		/* two listeners of CPU 0 */
	uint16_t family;
};

FIXTURE_SETUP(lost)
{
	char path[128];

	memset(self, 0, sizeof(*self));
	self->l[0] = -1;
	self->l[1] = -1;
	if (!ts_kernel_dumps())
		SKIP(return, "this kernel has no listener rules of its own (no dump)");
	if (access(FAILSLAB, F_OK))
		mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL);
	snprintf(path, sizeof(path), "%s/require-start", FAILSLAB);
	if (access(path, F_OK))
		SKIP(return, "no failslab with a stack filter (FAULT_INJECTION_STACKTRACE_FILTER)");
	for (size_t i = 0; i < ARRAY_SIZE(knob); i++) {
		snprintf(path, sizeof(path), "%s/%s", FAILSLAB, knob[i]);
		ASSERT_LT(0, ts_read_file(path, self->saved[i], sizeof(self->saved[i])));
		self->saved[i][strcspn(self->saved[i], "\n")] = '\0';
	}
	for (int i = 0; i < 2; i++) {
		self->l[i] = tsnl_open();
		ASSERT_LE(0, self->l[i]);
		if (!i)
			ASSERT_EQ(0, tsnl_family(self->l[0], TASKSTATS_GENL_NAME, &self->family));
		ASSERT_EQ(0, tsnl_cpumask(self->l[i], self->family,
					  TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0"));
	}
}

FIXTURE_TEARDOWN(lost)
{
	char path[128];

	/* Probability first: nothing fails while the rest is put back. */
	for (size_t i = 0; i < ARRAY_SIZE(knob); i++) {
		if (!self->saved[i][0])
			continue;
		snprintf(path, sizeof(path), "%s/%s", FAILSLAB, knob[i]);
		ts_write_file(path, self->saved[i]);
	}
	for (int i = 0; i < 2; i++)
		if (self->l[i] >= 0)
			close(self->l[i]);
}

/* Arms failslab for one failure under the function @fn. */
static int arm_failslab(const char *fn)
{
	unsigned long long start, end;
	char v[2][32], path[128];
	const char *val[ARRAY_SIZE(knob)] = {
		"100", "1", "Y", "N", "0", "32", v[0], v[1],
	};
	int err = 0;

	if (symbol_range(fn, &start, &end))
		return -ENOENT;
	snprintf(v[0], sizeof(v[0]), "%llu", start);
	snprintf(v[1], sizeof(v[1]), "%llu", end);
	/* The filters before the probability that lets it fail. */
	for (size_t i = ARRAY_SIZE(knob); !err && i-- > 0;) {
		snprintf(path, sizeof(path), "%s/%s", FAILSLAB, knob[i]);
		err = ts_write_file(path, val[i]);
	}
	return err;
}

/*
 * Arms failslab under taskstats_exit(), lets @child exit (EOF on @go) and
 * reaps it: one allocation of its exit must have failed.
 */
static void exit_under_failslab(struct __test_metadata *_metadata, int go,
				pid_t child)
{
	char times[32];
	int status;

	ASSERT_EQ(0, arm_failslab("taskstats_exit"));
	close(go);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);
	ASSERT_LT(0, ts_read_file(FAILSLAB "/times", times, sizeof(times)));
	ASSERT_EQ(0, atoi(times)) TH_LOG("no allocation failed: the test proves nothing");
}

/*
 * Drains @fd: whether @pid's record came (into @rec, unless NULL), and
 * whether ENOBUFS did.
 */
static void drain_for(int fd, pid_t pid, bool *heard, bool *lost,
		      struct taskstats *rec)
{
	static char buf[TSNL_BUF_SIZE];
	static struct tsnl_exit e;
	int n;

	*heard = *lost = false;
	while ((n = tsnl_recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) != -EAGAIN) {
		struct nlmsghdr *h;

		if (n == -ENOBUFS) {
			*lost = true;
			continue;
		}
		if (n < 0)
			break;
		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n))
			if (!tsnl_parse_exit(h, h->nlmsg_len, &e) && e.have_pid &&
			    e.pid == (uint32_t)pid) {
				*heard = true;
				if (rec)
					*rec = e.pid_ts;
			}
	}
}

/*
 * The record of an exit the kernel could not allocate for one listener
 * is lost for that one only: it gets ENOBUFS, as for a record its full
 * queue dropped, and the other listener still gets the record. Upstream
 * stops at the first failure: every listener after it loses the record
 * without a word.
 */
TEST_F(lost, a_record_not_allocated_for_one_listener_is_enobufs_and_the_next_gets_it)
{
	bool heard[2], lost[2];
	int go[2];
	cpu_set_t cpu0;
	pid_t child;

	for (int i = 0; i < 2; i++)
		drain_for(self->l[i], 0, &heard[i], &lost[i], NULL);
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		char c;

		CPU_ZERO(&cpu0);
		CPU_SET(0, &cpu0);
		if (sched_setaffinity(0, sizeof(cpu0), &cpu0) ||
		    ts_write_file("/proc/self/make-it-fail", "1"))
			_exit(1);
		close(go[1]);
		_exit(read(go[0], &c, 1) == 0 ? 0 : 2);
	}
	close(go[0]);
	exit_under_failslab(_metadata, go[1], child);
	for (int i = 0; i < 2; i++)
		drain_for(self->l[i], child, &heard[i], &lost[i], NULL);
	TH_LOG("listener 0: heard %d, ENOBUFS %d; listener 1: heard %d, ENOBUFS %d",
	       heard[0], lost[0], heard[1], lost[1]);
	EXPECT_EQ(1, heard[0] + heard[1]);
	EXPECT_EQ(1, lost[0] + lost[1]);
	EXPECT_NE(heard[0], lost[0]);
}

/* The thread of the test below that exits first: see folded_main(). */
struct folded {
	int sleeps;
	int go;		/* read end: EOF lets the thread exit */
	int done;	/* write end: the thread's tid, then the leader's 'J' */
};

static void *folded_thread(void *arg)
{
	const struct folded *f = arg;
	struct timespec nap = { .tv_nsec = 100 * 1000 };
	pid_t tid = gettid();
	char c;

	if (ts_write_file("/proc/thread-self/make-it-fail", "1"))
		return (void *)1;
	for (int i = 0; i < f->sleeps; i++)
		nanosleep(&nap, NULL);
	if (write(f->done, &tid, sizeof(tid)) != sizeof(tid))
		return (void *)2;
	return (void *)(long)read(f->go, &c, 1);	/* 0 at EOF */
}

/*
 * The process whose first thread exits under failslab: pinned to CPU 0,
 * where the listeners are, it starts the thread, joins it, says so and
 * waits for the end of the test (EOF on @end).
 */
static int folded_main(struct folded *f, int end)
{
	cpu_set_t cpu0;
	pthread_t t;
	void *ret;
	char c = 'J';

	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	if (sched_setaffinity(0, sizeof(cpu0), &cpu0) ||
	    pthread_create(&t, NULL, folded_thread, f) ||
	    pthread_join(t, &ret) || ret)
		return 1;
	if (write(f->done, &c, 1) != 1)
		return 2;
	return read(end, &c, 1) == 0 ? 0 : 3;
}

/*
 * A thread that exits before the rest of its group is folded into the
 * group's record of exited threads, allocated by its exit. That
 * allocation must not fail: the thread would be missing from every later
 * record of the group, and a memory cgroup at its limit fails a dying
 * task's charge by design, so that any user could arrange it. Here
 * failslab fails the first allocation the thread's exit may fail: the
 * group's record is not one of them, the record for one listener is
 * (which proves failslab was armed for that exit). Upstream loses the
 * thread.
 */
static void thread_exit_under_failslab(struct __test_metadata *_metadata,
				       const int *l, uint16_t family)
{
	struct taskstats t1 = {}, leader, group;
	struct folded f = { .sleeps = 100 };
	bool heard[2], lost[2];
	int go[2], done[2], end[2], nl, status;
	/* Static: a frame this large makes gcc 12 see a -Wclobbered in the harness. */
	static char buf[TSNL_BUF_SIZE];
	char times[32], c;
	struct tsnl_reply r;
	pid_t child, tid;

	for (int i = 0; i < 2; i++)
		drain_for(l[i], 0, &heard[i], &lost[i], NULL);
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(done, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(end, O_CLOEXEC));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		close(go[1]);
		close(done[0]);
		close(end[1]);
		f.go = go[0];
		f.done = done[1];
		_exit(folded_main(&f, end[0]));
	}
	close(go[0]);
	close(done[1]);
	close(end[0]);
	ASSERT_EQ((ssize_t)sizeof(tid), read(done[0], &tid, sizeof(tid)));
	ASSERT_EQ(0, arm_failslab("taskstats_exit"));
	close(go[1]);
	ASSERT_EQ(1, read(done[0], &c, 1));
	ASSERT_LT(0, ts_read_file(FAILSLAB "/times", times, sizeof(times)));
	ASSERT_EQ(0, atoi(times)) TH_LOG("no allocation failed: the test proves nothing");
	/* The thread's own record, from whichever listener heard it. */
	drain_for(l[0], tid, &heard[0], &lost[0], &t1);
	drain_for(l[1], tid, &heard[1], &lost[1], heard[0] ? NULL : &t1);
	ASSERT_TRUE(heard[0] || heard[1]) TH_LOG("no listener heard the thread's exit");

	nl = tsnl_open();
	ASSERT_LE(0, nl);
	ASSERT_EQ(0, tsnl_get(nl, family, TASKSTATS_CMD_ATTR_PID, child, &leader, &r, buf));
	ASSERT_EQ(0, tsnl_get(nl, family, TASKSTATS_CMD_ATTR_TGID, child, &group, &r, buf));
	close(nl);
	close(end[1]);
	close(done[0]);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_EQ(0, status);

	TH_LOG("nvcsw: exited thread %llu, leader %llu, group %llu",
	       (unsigned long long)t1.nvcsw, (unsigned long long)leader.nvcsw,
	       (unsigned long long)group.nvcsw);
	EXPECT_LE((uint64_t)f.sleeps, t1.nvcsw);
	EXPECT_LE(t1.nvcsw + leader.nvcsw, group.nvcsw);
	/*
	 * The thread's exit folds its CPU time into the group, then fills
	 * its own record: a tick between the two counts in the latter only.
	 */
	EXPECT_LE(t1.ac_utime + t1.ac_stime + leader.ac_utime + leader.ac_stime,
		  group.ac_utime + group.ac_stime + TS_MAX_TICK_US);
}

TEST_F(lost, a_thread_exiting_under_failing_allocations_still_counts_in_its_group)
{
	thread_exit_under_failslab(_metadata, self->l, self->family);
}

static void *return_at_once(void *arg)
{
	return arg;
}

/*
 * In a child: a second thread, gone, so that the caller is the last of
 * two; then make-it-fail for failslab, and a byte on @ready. 0 or -1.
 */
static int last_of_two_failing(int ready)
{
	pthread_t t;
	void *ret;

	if (pthread_create(&t, NULL, return_at_once, NULL) ||
	    pthread_join(t, &ret) ||
	    ts_write_file("/proc/self/make-it-fail", "1") ||
	    write(ready, "R", 1) != 1)
		return -1;
	return 0;
}

/*
 * A group's last thread sums the group for its exit message into a
 * buffer of its own. If that cannot be allocated, every listener that
 * was to hear of the group gets ENOBUFS instead of the message: none gets
 * a group record missing threads, or the task's record without the
 * group's. Here both listeners are root's, which may read the leader.
 */
TEST_F(lost, a_group_record_not_summed_at_the_last_exit_is_enobufs_for_its_listeners)
{
	bool heard[2], lost[2];
	int go[2], ready[2];
	char c;
	pid_t child;

	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		cpu_set_t cpu0;

		close(go[1]);
		close(ready[0]);
		CPU_ZERO(&cpu0);
		CPU_SET(0, &cpu0);
		if (sched_setaffinity(0, sizeof(cpu0), &cpu0) || last_of_two_failing(ready[1]))
			_exit(1);
		_exit(read(go[0], &c, 1) == 0 ? 0 : 2);
	}
	close(go[0]);
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	close(ready[0]);
	for (int i = 0; i < 2; i++)
		drain_for(self->l[i], 0, &heard[i], &lost[i], NULL);
	exit_under_failslab(_metadata, go[1], child);
	for (int i = 0; i < 2; i++) {
		drain_for(self->l[i], child, &heard[i], &lost[i], NULL);
		EXPECT_FALSE(heard[i]) TH_LOG("listener %d heard the leader", i);
		EXPECT_TRUE(lost[i]) TH_LOG("listener %d was not told of a loss", i);
	}
}

/*
 * A group that nobody may hear of costs its end no sum. Here the only
 * listener is a container's, and the group ends in a pid namespace of
 * its own, beside the container's: the kernel has to look for listeners
 * above it (one exists below the initial namespace), but none is there,
 * so nothing is allocated under taskstats_exit(), where failslab waits
 * to fail the first allocation.
 */
TEST_F(lost, a_group_ending_where_no_listener_hears_it_allocates_nothing)
{
	struct agent c = { .pid = -1 };
	int go[2], ready[2], status;
	char ch, times[32];
	pid_t child, init;
	int ret;

	for (int i = 0; i < 2; i++) {
		close(self->l[i]);
		self->l[i] = -1;
	}
	ret = agent_start(&c, CONTAINER, &init);
	if (ret == 4)
		SKIP(return, "cannot create a user namespace");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, ask(&c, OP_LISTEN, 0, "", -1, NULL));
	ASSERT_EQ(0, pipe2(go, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(ready, O_CLOEXEC));
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		pid_t group;

		close(go[1]);
		close(ready[0]);
		if (unshare(CLONE_NEWPID))
			_exit(1);
		group = fork();
		if (group == 0) {
			if (last_of_two_failing(ready[1]))
				_exit(1);
			_exit(read(go[0], &ch, 1) == 0 ? 0 : 2);
		}
		close(ready[1]);
		if (group < 0 || waitpid(group, &status, 0) != group)
			_exit(3);
		_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 4);
	}
	close(go[0]);
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &ch, 1));
	close(ready[0]);
	ASSERT_EQ(0, arm_failslab("taskstats_exit"));
	close(go[1]);
	ASSERT_EQ(child, waitpid(child, &status, 0));
	agent_stop(&c);
	ASSERT_EQ(0, status);
	ASSERT_LT(0, ts_read_file(FAILSLAB "/times", times, sizeof(times)));
	EXPECT_EQ(1, atoi(times))
		TH_LOG("the group's end allocated for listeners that cannot hear of it");
}

/* ------------------------------------------------------------------- heard */

/*
 * A container's root listening, next to the host's admin. Everything runs
 * on CPU 0, the container included, so that every exit of the test is
 * numbered by the same CPU.
 */
struct heard_by_host {
	const char *name;
	struct tsnl_exit exit;
	bool found;
};

FIXTURE(heard) {
	struct agent c;
	int host;		/* the host admin's listener */
	uint16_t family;
	int target;		/* pidfd of the container's target */
	pid_t init;		/* the container's pid 1, as the host sees it */
	struct heard_by_host h;	/* what the host's listener heard */
};

FIXTURE_SETUP(heard)
{
	cpu_set_t cpu0;
	char cpus[256];
	int ret;

	memset(self, 0, sizeof(*self));
	self->host = -1;
	self->target = -1;
	if (!ts_kernel_dumps())
		SKIP(return, "this kernel has no listeners in containers (no dump)");
	CPU_ZERO(&cpu0);
	CPU_SET(0, &cpu0);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpu0), &cpu0));
	ASSERT_EQ(0, ts_listener_open(&self->host, &self->family, cpus, sizeof(cpus)));
	ret = agent_start(&self->c, CONTAINER, &self->init);
	if (ret == 4)
		SKIP(return, "cannot create a user namespace");
	ASSERT_EQ(0, ret);
}

FIXTURE_TEARDOWN(heard)
{
	target_kill(&self->target);
	agent_stop(&self->c);
	if (self->host >= 0)
		close(self->host);
}

static void host_exit(const struct tsnl_exit *e, void *arg)
{
	struct heard_by_host *h = arg;

	if (!h->found && e->have_pid && !strcmp(e->pid_ts.ac_comm, h->name)) {
		h->exit = *e;
		h->found = true;
	}
}

/*
 * Whether the host's listener heard @name exit, once the target exited:
 * its record is queued before its pidfd turns readable (see heard() in
 * agent_serve.c).
 */
static bool host_heard(struct _test_data_heard *self, const char *name)
{
	struct heard_by_host *h = &self->h;

	memset(h, 0, sizeof(*h));
	h->name = name;
	if (!wait_exited(self->target))
		return false;
	tsnl_drain(self->host, host_exit, h);
	return h->found;
}

/* The container's root makes a target named @name and kills it. */
static void spawn_and_kill(struct __test_metadata *_metadata,
			   struct _test_data_heard *self, int spawn, const char *name)
{
	if (self->target >= 0)
		close(self->target);
	ASSERT_EQ(0, ask(&self->c, OP_SPAWN, spawn, name, -1, &self->target));
	ASSERT_LE(0, self->target);
	ASSERT_EQ(0, syscall(SYS_pidfd_send_signal, self->target, SIGKILL, NULL, 0));
}

/*
 * The container's root registered without CAP_SYS_ADMIN in its effective
 * set, so it reads its own tasks (which hold every capability of the
 * namespace) only through CAP_SYS_PTRACE: that it hears the exit at all
 * shows the capability was used. It was used with the listener's
 * credentials, on the exiting task's behalf: the task itself used none,
 * and neither record, the container's nor the host admin's, may say it
 * did (ASU).
 */
TEST_F(heard, a_task_heard_through_a_listeners_capability_is_not_marked_as_using_one)
{
	int flag = -1;

	ASSERT_EQ(0, ask(&self->c, OP_LISTEN, LISTEN_FEWER_CAPS, "", -1, NULL));
	spawn_and_kill(_metadata, self, 0, "ts_nocaps");
	ASSERT_EQ(1, ask2(&self->c, OP_HEARD, HEARD_FLAG, "ts_nocaps", self->target, NULL,
			  &flag));
	EXPECT_EQ(0, flag & ASU);
	EXPECT_EQ(AXSIG, flag & AXSIG);
	ASSERT_TRUE(host_heard(self, "ts_nocaps"));
	EXPECT_EQ(0, self->h.exit.pid_ts.ac_flag & ASU);
}

/*
 * Reading one's own record needs no capability, and uses none: a
 * container's root holds CAP_NET_ADMIN over its namespace, which only
 * registering a listener asks of it. A GET must not mark it as having
 * used a capability (ASU), any more than it marks a user on the host.
 */
TEST_F(heard, a_containers_root_reading_its_own_record_uses_no_capability)
{
	spawn_and_kill(_metadata, self, SPAWN_GETS_ITSELF, "ts_getself");
	ASSERT_TRUE(host_heard(self, "ts_getself"));
	EXPECT_EQ(0, self->h.exit.pid_ts.ac_flag & ASU);
	EXPECT_EQ(AXSIG, self->h.exit.pid_ts.ac_flag & AXSIG);
}

/*
 * A group's record is judged on its leader, as a TGID GET and
 * /proc/TGID/io judge it. A leader that exits first leaves a zombie,
 * whose files are root's: the container's root cannot read
 * /proc/TGID/io, so when the last thread exits it hears the thread's
 * record but not the group's. The host's admin hears both.
 */
TEST_F(heard, a_groups_record_is_heard_only_by_who_could_read_its_leader)
{
	int tgid = -1;

	ASSERT_EQ(0, ask(&self->c, OP_LISTEN, 0, "", -1, NULL));
	ASSERT_EQ(0, ask(&self->c, OP_SPAWN, SPAWN_LEADER_EXITS, "ts_lastthread", -1,
			 &self->target));
	ASSERT_LE(0, self->target);
	/* The oracle: the zombie leader's io file is closed to the container. */
	ASSERT_EQ(0, ask(&self->c, OP_PROC_IO, 0, "", self->target, NULL));
	ASSERT_EQ(0, syscall(SYS_pidfd_send_signal, self->target, SIGKILL, NULL, 0));
	ASSERT_EQ(1, ask2(&self->c, OP_HEARD, HEARD_TGID, "ts_lastthread", self->target,
			  NULL, &tgid));
	EXPECT_EQ(0, tgid);
	ASSERT_TRUE(host_heard(self, "ts_lastthread"));
	EXPECT_TRUE(self->h.exit.have_tgid);
	EXPECT_EQ(AGROUP, self->h.exit.pid_ts.ac_flag & AGROUP);
}

/*
 * An exit record is built for each listener's namespaces: the container
 * maps its root to UID_A and numbers its tasks from 1, so the same exit
 * reads uid 0, the task's pid inside and parent 1 there, and UID_A, the
 * host pid and the container's init here. (Upstream built one record,
 * in the initial namespaces, for every listener.)
 */
TEST_F(heard, each_listener_hears_an_exit_in_the_ids_of_its_own_namespaces)
{
	pid_t pid, inside;

	ASSERT_EQ(0, ask(&self->c, OP_LISTEN, 0, "", -1, NULL));
	ASSERT_EQ(0, ask(&self->c, OP_SPAWN, 0, "ts_ids", -1, &self->target));
	ASSERT_LE(0, self->target);
	pid = pidfd_local(self->target);
	inside = ts_pid_inside(pid);
	ASSERT_LT(1, inside);
	ASSERT_NE(pid, inside);
	ASSERT_EQ(0, syscall(SYS_pidfd_send_signal, self->target, SIGKILL, NULL, 0));
	ASSERT_EQ(1, ask(&self->c, OP_HEARD, 0, "ts_ids", self->target, NULL));
	EXPECT_EQ(0, ask(&self->c, OP_HEARD_IDS, IDS_UID, "", -1, NULL));
	EXPECT_EQ(0, ask(&self->c, OP_HEARD_IDS, IDS_GID, "", -1, NULL));
	EXPECT_EQ(inside, ask(&self->c, OP_HEARD_IDS, IDS_PID, "", -1, NULL));
	EXPECT_EQ(1, ask(&self->c, OP_HEARD_IDS, IDS_PPID, "", -1, NULL));
	ASSERT_TRUE(host_heard(self, "ts_ids"));
	EXPECT_EQ((uint32_t)UID_A, self->h.exit.pid_ts.ac_uid);
	EXPECT_EQ((uint32_t)UID_A, self->h.exit.pid_ts.ac_gid);
	EXPECT_EQ((uint32_t)pid, self->h.exit.pid_ts.ac_pid);
	EXPECT_EQ((uint32_t)self->init, self->h.exit.pid_ts.ac_ppid);
}

#define HOST_EXITS	50

/*
 * Exit messages are numbered per CPU and pid namespace. Between two exits
 * of the container's own, the host's admin hears fifty host exits on the
 * same CPU: the container's listener sees the two numbers follow each
 * other. One number per CPU for everyone would have told the container
 * how many exits the host had.
 */
TEST_F(heard, a_containers_exit_numbers_tell_nothing_of_the_hosts_exits)
{
	int first = -1, second = -1, host_messages;

	ASSERT_EQ(0, ask(&self->c, OP_LISTEN, 0, "", -1, NULL));
	spawn_and_kill(_metadata, self, 0, "ts_first");
	ASSERT_EQ(1, ask2(&self->c, OP_HEARD, HEARD_SEQ, "ts_first", self->target, NULL,
			  &first));
	tsnl_drain(self->host, NULL, NULL);
	for (int i = 0; i < HOST_EXITS; i++) {
		pid_t pid = fork();

		ASSERT_LE(0, pid);
		if (pid == 0)
			_exit(0);
		ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	}
	host_messages = tsnl_drain(self->host, NULL, NULL);
	/* They were heard, and numbered, in the host's namespace. */
	ASSERT_LE(HOST_EXITS, host_messages);
	spawn_and_kill(_metadata, self, 0, "ts_second");
	ASSERT_EQ(1, ask2(&self->c, OP_HEARD, HEARD_SEQ, "ts_second", self->target, NULL,
			  &second));
	EXPECT_EQ(first + 1, second);
}

/*
 * An unread listener's queue, asking BIG_BUF of buffer: EXITS exits, one
 * at a time, make some 2.3 KiB of buffer each, three times what twice the
 * default net.core.rmem_max (212992) holds.
 */
#define BIG_BUF		(16 << 20)
#define EXITS		600

struct queue_state {
	uint64_t cap;		/* twice net.core.rmem_max */
	uint32_t rmem;		/* bytes queued */
	uint32_t drops;		/* messages dropped */
};

static void queue_state(struct __test_metadata *_metadata, int fd,
			struct queue_state *q)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);
	char buf[32];

	ASSERT_LT(0, ts_read_file("/proc/sys/net/core/rmem_max", buf, sizeof(buf)));
	q->cap = 2 * strtoull(buf, NULL, 10);
	ASSERT_EQ(0, getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len));
	ASSERT_LE(SK_MEMINFO_DROPS + 1, (int)(len / sizeof(mem[0])));
	q->rmem = mem[SK_MEMINFO_RMEM_ALLOC];
	q->drops = mem[SK_MEMINFO_DROPS];
}

/* The socket's buffer as SO_RCVBUF reads it back: twice what was set. */
static uint64_t rcvbuf(int fd)
{
	socklen_t len = sizeof(int);
	int val = 0;

	getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &val, &len);
	return val;
}

/* Messages queued on @fd, read until none is left. */
static int read_all(int fd)
{
	static char buf[TSNL_BUF_SIZE];
	int n = 0;

	while (tsnl_recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		n++;
	return n;
}

FIXTURE(queue) {
	struct agent c;
	int fd;			/* the container's listener */
};

FIXTURE_SETUP(queue)
{
	pid_t init;
	int ret;

	memset(self, 0, sizeof(*self));
	self->fd = -1;
	if (!ts_kernel_dumps())
		SKIP(return, "this kernel has no listeners in containers (no dump)");
	ret = agent_start(&self->c, CONTAINER, &init);
	if (ret == 4)
		SKIP(return, "cannot create a user namespace");
	ASSERT_EQ(0, ret);
}

FIXTURE_TEARDOWN(queue)
{
	agent_stop(&self->c);
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * Anyone can be that container's root, and the records its listener
 * leaves unread are charged to no memory cgroup. What bounds them is the
 * socket's buffer, which it cannot force (SO_RCVBUFFORCE asks for
 * CAP_NET_ADMIN in the initial user namespace, even in a network
 * namespace of its own): they stop at what SO_RCVBUF grants any socket,
 * and each one past that is counted as lost, not kept.
 */
TEST_F_TIMEOUT(queue, a_containers_unread_listener_holds_no_more_than_rmem_max_allows, 120)
{
	struct queue_state q;
	int first, read;

	ASSERT_EQ(0, ask(&self->c, OP_LISTEN_BIG, BIG_BUF, "", -1, &self->fd));
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(EXITS, ask(&self->c, OP_EXITS, EXITS, "", -1, NULL));
	queue_state(_metadata, self->fd, &q);
	ASSERT_EQ(q.cap, rcvbuf(self->fd));
	first = tsnl_recv(self->fd, NULL, 0, MSG_DONTWAIT | MSG_PEEK);
	read = read_all(self->fd);
	TH_LOG("%u bytes queued in %d records (buffer %llu), %u dropped",
	       q.rmem, read, (unsigned long long)q.cap, q.drops);
	EXPECT_LE(q.rmem, q.cap);
	ASSERT_LT(0, read);
	/* Filled up to the buffer, not short of it: one more would not fit. */
	EXPECT_LT(q.cap, q.rmem + q.rmem / read);
	EXPECT_EQ(-ENOBUFS, first);
	/* Each of its exits either waits in the queue or counts as dropped. */
	EXPECT_EQ(EXITS, read + (int)q.drops);
}

/*
 * The initial namespace's admin may force a buffer that holds them all,
 * as upstream's listeners (all of them the admin's) could: the bound
 * above is the container's buffer, not something every listener meets.
 * A fixture for the time limit too: 600 forks of this program take
 * longer than the default 30 s on the debug kernel under TCG.
 */
FIXTURE(forced) {
	int fd;			/* the admin's listener, its buffer forced */
};

FIXTURE_SETUP(forced)
{
	int bytes = BIG_BUF;
	uint16_t family;
	char cpus[256];

	self->fd = tsnl_open();
	ASSERT_LE(0, self->fd);
	if (tsnl_family(self->fd, TASKSTATS_GENL_NAME, &family))
		SKIP(return, "no TASKSTATS family");
	ASSERT_EQ(0, setsockopt(self->fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)));
	ASSERT_EQ(0, ts_register_all(self->fd, family, cpus, sizeof(cpus)));
}

FIXTURE_TEARDOWN(forced)
{
	close(self->fd);
}

TEST_F_TIMEOUT(forced, an_admins_forced_buffer_holds_every_record, 120)
{
	struct queue_state q;
	int read;

	ASSERT_EQ(EXITS, fork_exits(EXITS));
	queue_state(_metadata, self->fd, &q);
	read = read_all(self->fd);
	TH_LOG("%u bytes queued in %d records (twice rmem_max: %llu)",
	       q.rmem, read, (unsigned long long)q.cap);
	EXPECT_LT(q.cap, q.rmem);
	EXPECT_EQ(0U, q.drops);
	/* Every exit of ours at least; other tasks of the guest may end too. */
	EXPECT_LE(EXITS, read);
}

TEST_HARNESS_MAIN
