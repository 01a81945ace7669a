// SPDX-License-Identifier: GPL-2.0
/*
 * The lifetime and the limits of exit listeners, against a hostile user:
 * a listener belongs to its socket, never to a port id that anyone can
 * bind again once the socket is closed; any user can make the user and
 * pid namespaces that allow listening, so listeners are counted per user
 * and user namespace (user.max_taskstats_listeners) and refused with
 * ENOSPC beyond; a socket listens with the identity of its first
 * registration. And what a listener's memory is charged to. A kernel
 * without these rules (the reference: it cannot dump) skips the tests.
 *
 * What a record the kernel could not allocate costs the listeners is
 * listener_lost_test.c's; what a container's listener hears is
 * listener_heard_test.c's, how much it may leave unread
 * listener_queue_test.c's.
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
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

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

TEST_HARNESS_MAIN
