// SPDX-License-Identifier: GPL-2.0
/*
 * Who may read what: a requester reads a task's record if and only if it
 * could read the task's /proc/PID/io, the initial namespace's admin aside.
 *
 * The matrix: each variant is a requester and a target made by an
 * "agent", a process with an identity (a user, a user with some
 * capabilities, root, a container's root, a host root process that
 * entered the container) that obeys commands
 * sent over a socket pair. The requester's agent opens /proc/PID/io (its
 * own /proc: a container mounts one for its pid namespace) and then asks
 * taskstats by pid, by tgid, by dump and by exit listener; every answer
 * must be the /proc answer, and the /proc answer the one the variant
 * documents. Targets are named by a pidfd, which each agent turns into
 * its own pid number (0: not in its pid namespace), and recognised in
 * records by their command name.
 *
 * Then what the matrix cannot show: a socket handed from a user to root
 * (the reader's or writer's credentials must not decide), a setuid exec
 * racing a GET, and a TGID GET naming a thread whose credentials differ
 * from its leader's.
 *
 * A kernel without the dump (the reference) skips the tests: there only
 * CAP_NET_ADMIN reads at all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>

#include "../kselftest_harness.h"
#include "agent.h"
#include "tsnl.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL
#endif

#define CAP(c)		(1u << (c))

/* ---------------------------------------------------------------- matrix */

FIXTURE(access) {
	struct agent requester, maker, container;
	int target;		/* pidfd */
	char name[16];
};

FIXTURE_VARIANT(access) {
	enum who requester;
	unsigned int caps;	/* HOST_B's only capabilities, if any */
	enum who maker;
	int spawn;		/* SPAWN_* */
	bool readable;		/* what /proc/PID/io must answer */
};

FIXTURE_VARIANT_ADD(access, same_user) {
	.requester = HOST_A, .maker = HOST_A, .readable = true,
};

FIXTURE_VARIANT_ADD(access, another_user) {
	.requester = HOST_B, .maker = HOST_A, .readable = false,
};

/*
 * A capability alone is half of /proc's rule: CAP_SYS_PTRACE passes the
 * read's ptrace check but not the open of a file mode 0400, and
 * CAP_DAC_READ_SEARCH the open but not the check.
 */
FIXTURE_VARIANT_ADD(access, user_with_sys_ptrace_alone_and_another_users_process) {
	.requester = HOST_B, .caps = CAP(CAP_SYS_PTRACE), .maker = HOST_A,
	.readable = false,
};

FIXTURE_VARIANT_ADD(access, user_with_dac_read_search_alone_and_another_users_process) {
	.requester = HOST_B, .caps = CAP(CAP_DAC_READ_SEARCH), .maker = HOST_A,
	.readable = false,
};

FIXTURE_VARIANT_ADD(access, user_with_dac_read_search_and_sys_ptrace_and_another_users_process) {
	.requester = HOST_B, .caps = CAP(CAP_DAC_READ_SEARCH) | CAP(CAP_SYS_PTRACE),
	.maker = HOST_A, .readable = true,
};

FIXTURE_VARIANT_ADD(access, user_with_dac_override_and_sys_ptrace_and_an_undumpable_process) {
	.requester = HOST_B, .caps = CAP(CAP_DAC_OVERRIDE) | CAP(CAP_SYS_PTRACE),
	.maker = HOST_A, .spawn = SPAWN_UNDUMPABLE, .readable = true,
};

FIXTURE_VARIANT_ADD(access, user_with_dac_read_search_and_sys_ptrace_and_a_zombie) {
	.requester = HOST_B, .caps = CAP(CAP_DAC_READ_SEARCH) | CAP(CAP_SYS_PTRACE),
	.maker = HOST_A, .spawn = SPAWN_ZOMBIE, .readable = true,
};

FIXTURE_VARIANT_ADD(access, root_and_an_undumpable_process) {
	.requester = HOST_ROOT, .maker = HOST_A, .spawn = SPAWN_UNDUMPABLE,
	.readable = true,
};

FIXTURE_VARIANT_ADD(access, user_and_its_setuid_program) {
	.requester = HOST_A, .maker = HOST_A, .spawn = SPAWN_SETUID,
	.readable = false,
};

FIXTURE_VARIANT_ADD(access, user_and_its_undumpable_process) {
	.requester = HOST_A, .maker = HOST_A, .spawn = SPAWN_UNDUMPABLE,
	.readable = false,
};

/* A zombie's /proc files are root's: its final record is the admin's. */
FIXTURE_VARIANT_ADD(access, user_and_its_zombie) {
	.requester = HOST_A, .maker = HOST_A, .spawn = SPAWN_ZOMBIE,
	.readable = false,
};

FIXTURE_VARIANT_ADD(access, root_and_a_zombie) {
	.requester = HOST_ROOT, .maker = HOST_A, .spawn = SPAWN_ZOMBIE,
	.readable = true,
};

FIXTURE_VARIANT_ADD(access, container_root_and_its_own_task) {
	.requester = CONTAINER, .maker = CONTAINER, .readable = true,
};

FIXTURE_VARIANT_ADD(access, container_root_and_an_undumpable_host_process_that_entered) {
	.requester = CONTAINER, .maker = ENTERED, .spawn = SPAWN_UNDUMPABLE,
	.readable = false,
};

FIXTURE_VARIANT_ADD(access, container_root_and_a_dumpable_host_root_process_that_entered) {
	.requester = CONTAINER, .maker = ENTERED, .readable = false,
};

FIXTURE_VARIANT_ADD(access, container_root_and_a_host_task_of_its_own_uid) {
	.requester = CONTAINER, .maker = HOST_A, .readable = false,
};

FIXTURE_VARIANT_ADD(access, root_and_a_container_task) {
	.requester = HOST_ROOT, .maker = CONTAINER, .readable = true,
};

FIXTURE_SETUP(access)
{
	bool need_container = variant->requester == CONTAINER ||
			      variant->maker == CONTAINER || variant->maker == ENTERED;
	struct agent *r = &self->requester, *m = &self->maker;
	pid_t init = 0;
	int ret;

	memset(self, 0, sizeof(*self));
	self->target = -1;
	if (!ts_kernel_dumps())
		SKIP(return, "this kernel has no access rules beyond CAP_NET_ADMIN (no dump)");
	if (variant->spawn & SPAWN_SETUID)
		ASSERT_EQ(0, copy_self(SUID_PATH, true));
	if (need_container) {
		ret = agent_start(&self->container, CONTAINER, &init);
		if (ret == 4)
			SKIP(return, "cannot create a user namespace");
		ASSERT_EQ(0, ret);
	}
	if (variant->requester == CONTAINER)
		r = &self->container;
	else	/* B with capabilities starts as root */
		ASSERT_EQ(0, agent_start(r, variant->caps ? HOST_ROOT : variant->requester,
					 &init));
	if (variant->caps)
		ASSERT_EQ(0, ask(r, OP_BECOME_B_WITH, variant->caps, "", -1, NULL));
	if (variant->maker == CONTAINER)
		m = &self->container;
	else
		ASSERT_EQ(0, agent_start(m, variant->maker, &init));
	snprintf(self->name, sizeof(self->name), "%s",
		 variant->spawn & SPAWN_SETUID ? "ts_suid" : "ts_target");
	ASSERT_EQ(0, ask(m, OP_SPAWN, variant->spawn, self->name, -1, &self->target));
	ASSERT_LE(0, self->target);
	/* The oracle, and the case the variant is about. */
	ASSERT_EQ(variant->readable, ask(r, OP_PROC_IO, 0, self->name, self->target, NULL));
}

FIXTURE_TEARDOWN(access)
{
	target_kill(&self->target);
	agent_stop(&self->requester);
	agent_stop(&self->maker);
	agent_stop(&self->container);
	unlink(SUID_PATH);
}

static struct agent *requester_of(struct _test_data_access *self,
				  const struct _fixture_variant_access *variant)
{
	return variant->requester == CONTAINER ? &self->container : &self->requester;
}

TEST_F(access, get_by_pid_answers_as_proc_pid_io_does)
{
	EXPECT_EQ(variant->readable, ask(requester_of(self, variant), OP_GET_PID,
					 pidfd_local(self->target), self->name,
					 self->target, NULL));
}

TEST_F(access, get_by_tgid_answers_as_proc_pid_io_does)
{
	EXPECT_EQ(variant->readable, ask(requester_of(self, variant), OP_GET_TGID,
					 pidfd_local(self->target), self->name,
					 self->target, NULL));
}

TEST_F(access, dump_lists_the_task_iff_proc_pid_io_is_readable)
{
	EXPECT_EQ(variant->readable, ask(requester_of(self, variant), OP_DUMP, 0,
					 self->name, self->target, NULL));
}

TEST_F(access, dump_by_tgid_lists_the_group_iff_proc_pid_io_is_readable)
{
	EXPECT_EQ(variant->readable, ask(requester_of(self, variant), OP_DUMP_TGID, 0,
					 self->name, self->target, NULL));
}

/*
 * Only CAP_NET_ADMIN over the owner of one's pid namespace may listen at
 * all (root, a container's root); the others are refused and hear nothing.
 */
TEST_F(access, exit_listener_hears_the_exit_iff_proc_pid_io_is_readable)
{
	struct agent *r = requester_of(self, variant);
	int ret = ask(r, OP_LISTEN, 0, self->name, -1, NULL);

	if (variant->requester == HOST_A || variant->requester == HOST_B) {
		EXPECT_EQ(-EPERM, ret);
		return;
	}
	ASSERT_EQ(0, ret);
	if (variant->spawn & SPAWN_ZOMBIE)
		SKIP(return, "a zombie has exited already: there is no exit left to hear");
	ASSERT_EQ(0, syscall(SYS_pidfd_send_signal, self->target, SIGKILL, NULL, 0));
	EXPECT_EQ(variant->readable, ask(r, OP_HEARD, 0, self->name, self->target, NULL));
}

/* -------------------------------------------------------------- the admin */

/*
 * CAP_NET_ADMIN in the initial user namespace reads every task, whatever
 * /proc says: upstream's rule for a GET (GENL_ADMIN_PERM), kept, so these
 * run on the reference too. The admin is user B with that capability
 * alone, and the target a process of user A's that is not dumpable.
 */
FIXTURE(admin) {
	struct agent requester, maker;
	int target;		/* pidfd */
};

FIXTURE_SETUP(admin)
{
	pid_t init = 0;

	memset(self, 0, sizeof(*self));
	self->target = -1;
	ASSERT_EQ(0, agent_start(&self->maker, HOST_A, &init));
	ASSERT_EQ(0, ask(&self->maker, OP_SPAWN, SPAWN_UNDUMPABLE, "ts_target", -1,
			 &self->target));
	ASSERT_LE(0, self->target);
	ASSERT_EQ(0, agent_start(&self->requester, HOST_ROOT, &init));
	ASSERT_EQ(0, ask(&self->requester, OP_BECOME_B_WITH, CAP(CAP_NET_ADMIN), "", -1,
			 NULL));
	/* The case: /proc hides the target from the requester. */
	ASSERT_EQ(0, ask(&self->requester, OP_PROC_IO, 0, "ts_target", self->target, NULL));
}

FIXTURE_TEARDOWN(admin)
{
	target_kill(&self->target);
	agent_stop(&self->requester);
	agent_stop(&self->maker);
}

TEST_F(admin, a_user_with_cap_net_admin_alone_gets_a_process_proc_hides_from_it)
{
	EXPECT_EQ(1, ask(&self->requester, OP_GET_PID, pidfd_local(self->target),
			 "ts_target", self->target, NULL));
	EXPECT_EQ(1, ask(&self->requester, OP_GET_TGID, pidfd_local(self->target),
			 "ts_target", self->target, NULL));
}

TEST_F(admin, a_user_with_cap_net_admin_alone_dumps_a_process_proc_hides_from_it)
{
	if (!ts_kernel_dumps())
		SKIP(return, "this kernel cannot dump");
	EXPECT_EQ(1, ask(&self->requester, OP_DUMP, 0, "ts_target", self->target, NULL));
	EXPECT_EQ(1, ask(&self->requester, OP_DUMP_TGID, 0, "ts_target", self->target, NULL));
}

/*
 * Exact I/O counters of another user's task are the side channel that
 * /proc closes with ptrace access (CVE-2011-2494). The admin reads past
 * /proc, so without CAP_SYS_PTRACE it gets them rounded down to KiB, as
 * mainline gives them to every admin (so these run on the reference
 * too). The target wrote its pid into a pipe: counts below a KiB, which
 * rounding turns into 0, and /proc (read here, as root) has them exactly.
 */
static void io_truth(struct __test_metadata *_metadata, int pidfd,
		     uint64_t *wchar, uint64_t *syscw)
{
	pid_t pid = pidfd_local(pidfd);

	ASSERT_EQ(0, ts_proc_io(pid, "wchar", wchar));
	ASSERT_EQ(0, ts_proc_io(pid, "syscw", syscw));
	/* What rounding changes, or the tests below could not fail. */
	ASSERT_NE(0ULL, *wchar % 1024);
	ASSERT_NE(0ULL, *syscw % 1024);
}

TEST_F(admin, a_user_with_cap_net_admin_alone_gets_io_counters_rounded_to_kib)
{
	uint64_t wchar, syscw;

	io_truth(_metadata, self->target, &wchar, &syscw);
	EXPECT_EQ((int)(wchar & ~1023ULL), ask(&self->requester, OP_IDS, IDS_WCHAR,
					       "", self->target, NULL));
	EXPECT_EQ((int)(syscw & ~1023ULL), ask(&self->requester, OP_IDS, IDS_SYSCW,
					       "", self->target, NULL));
}

TEST_F(admin, a_user_with_cap_net_admin_alone_hears_io_counters_rounded_to_kib)
{
	uint64_t wchar, syscw;

	io_truth(_metadata, self->target, &wchar, &syscw);
	ASSERT_EQ(0, ask(&self->requester, OP_LISTEN, 0, "", -1, NULL));
	ASSERT_EQ(0, syscall(SYS_pidfd_send_signal, self->target, SIGKILL, NULL, 0));
	ASSERT_EQ(1, ask(&self->requester, OP_HEARD, 0, "ts_target", self->target, NULL));
	EXPECT_EQ((int)(wchar & ~1023ULL), ask(&self->requester, OP_HEARD_IDS, IDS_WCHAR,
					       "", -1, NULL));
	EXPECT_EQ((int)(syscw & ~1023ULL), ask(&self->requester, OP_HEARD_IDS, IDS_SYSCW,
					       "", -1, NULL));
}

/* A GET of @pid by this process, root. */
static int get_as_root(pid_t pid, struct taskstats *ts)
{
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_reply r;
	uint16_t family;
	int fd = tsnl_open(), err;

	if (fd < 0)
		return fd;
	err = tsnl_family(fd, TASKSTATS_GENL_NAME, &family);
	if (!err)
		err = tsnl_get(fd, family, TASKSTATS_CMD_ATTR_PID, pid, ts, &r, buf);
	close(fd);
	return err;
}

/* Root has CAP_SYS_PTRACE: the counters as /proc has them. */
TEST_F(admin, root_gets_io_counters_exactly)
{
	static struct taskstats ts;
	uint64_t wchar, syscw;

	if (!ts_kernel_dumps())
		SKIP(return, TS_NO_DUMP "I/O counters rounded down to KiB for all");
	io_truth(_metadata, self->target, &wchar, &syscw);
	ASSERT_EQ(0, get_as_root(pidfd_local(self->target), &ts));
	EXPECT_EQ(wchar, ts.write_char);
	EXPECT_EQ(syscw, ts.write_syscalls);
}

/* ------------------------------------------------------ exec and threads */

FIXTURE(alone) {
	struct agent user;
	pid_t target;
	int pidfd;
};

FIXTURE_SETUP(alone)
{
	pid_t init = 0;

	memset(self, 0, sizeof(*self));
	self->pidfd = -1;
	if (!ts_kernel_dumps())
		SKIP(return, "this kernel has no access rules beyond CAP_NET_ADMIN (no dump)");
	ASSERT_EQ(0, agent_start(&self->user, HOST_A, &init));
}

FIXTURE_TEARDOWN(alone)
{
	if (self->target > 0) {
		kill(self->target, SIGKILL);
		waitpid(self->target, NULL, 0);
	}
	if (self->pidfd >= 0)
		close(self->pidfd);
	agent_stop(&self->user);
	unlink(SUID_PATH);
	unlink(PLAIN_PATH);
}

/*
 * A process of user A execs a setuid-root program, which drops its
 * privileges and execs a plain one, and so on. A's GETs of it must never
 * return the setuid program's record: the check and the collection are
 * one step for an exec (exec_update_lock), as for /proc/PID/io.
 */
TEST_F_TIMEOUT(alone, a_get_racing_a_setuid_exec_never_returns_the_setuid_program, 60)
{
	int got = 0;

	ASSERT_EQ(0, copy_self(SUID_PATH, true));
	ASSERT_EQ(0, copy_self(PLAIN_PATH, false));
	self->target = fork();
	ASSERT_LE(0, self->target);
	if (self->target == 0) {
		become(UID_A);
		setenv("TS_FLIP", "1", 1);
		execl(PLAIN_PATH, "ts_plain", (char *)NULL);
		_exit(1);
	}
	self->pidfd = syscall(SYS_pidfd_open, self->target, 0);
	ASSERT_LE(0, self->pidfd);
	EXPECT_EQ(0, ask2(&self->user, OP_RACE, 5000, "", self->pidfd, NULL, &got));
	TH_LOG("%d GETs of the plain program succeeded", got);
	EXPECT_LT(0, got);
}

static void *become_a_alone(void *arg)
{
	int *tid = arg;

	/* The raw calls change this thread's credentials only. */
	if (syscall(SYS_setresgid, UID_A, UID_A, UID_A) ||
	    syscall(SYS_setresuid, UID_A, UID_A, UID_A))
		return NULL;
	prctl(PR_SET_DUMPABLE, 1);
	*tid = gettid();
	for (;;)
		pause();
	return NULL;
}

/*
 * Root's process with one thread running as user A: A may read that
 * thread's own record, but a TGID GET naming it sums the group, which is
 * judged on its leader (root's), as /proc/TGID/io is.
 */
TEST_F(alone, a_tgid_get_naming_a_thread_judges_the_groups_leader)
{
	int ready[2], tid = 0, thread;

	ASSERT_EQ(0, pipe(ready));
	self->target = fork();
	ASSERT_LE(0, self->target);
	if (self->target == 0) {
		static int t;
		pthread_t th;

		if (pthread_create(&th, NULL, become_a_alone, &t))
			_exit(1);
		while (!__atomic_load_n(&t, __ATOMIC_ACQUIRE))
			usleep(1000);
		if (write(ready[1], &t, sizeof(t)) != sizeof(t))
			_exit(1);
		for (;;)
			pause();
	}
	ASSERT_EQ((ssize_t)sizeof(tid), read(ready[0], &tid, sizeof(tid)));
	thread = syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	ASSERT_LE(0, thread);
	self->pidfd = syscall(SYS_pidfd_open, self->target, 0);
	ASSERT_LE(0, self->pidfd);
	/* The oracle: the leader's io is root's, the thread's own is A's. */
	EXPECT_EQ(0, ask(&self->user, OP_PROC_IO, 0, "", self->pidfd, NULL));
	EXPECT_EQ(0, ask(&self->user, OP_GET_TGID, 0, "", thread, NULL));
	EXPECT_EQ(0, ask(&self->user, OP_GET_TGID, 0, "", self->pidfd, NULL));
	EXPECT_EQ(1, ask(&self->user, OP_GET_PID, 0, "access_test", thread, NULL));
	close(thread);
}

/* ------------------------------------------------- sockets changing hands */

#define HERD	60

/* Tasks of root and of user A with interleaved pids, and A's agent. */
FIXTURE(handover) {
	struct agent user;
	pid_t herd[HERD];
	int n;
	int sock;		/* our duplicate of the user's socket */
	uint16_t family;
};

FIXTURE_SETUP(handover)
{
	pid_t init = 0;
	int fd, pidfd;

	memset(self, 0, sizeof(*self));
	self->sock = -1;
	if (!ts_kernel_dumps())
		SKIP(return, "this kernel has no access rules beyond CAP_NET_ADMIN (no dump)");
	fd = tsnl_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tsnl_family(fd, TASKSTATS_GENL_NAME, &self->family));
	close(fd);
	ASSERT_EQ(0, agent_start(&self->user, HOST_A, &init));
	for (int i = 0; i < HERD; i++) {
		pid_t pid = fork();

		if (pid == 0) {
			for (;;)
				pause();
		}
		ASSERT_LT(0, pid);
		self->herd[self->n++] = pid;
		ASSERT_EQ(0, ask(&self->user, OP_SPAWN, 0, "ts_herd", -1, &pidfd));
		close(pidfd);
	}
	ASSERT_EQ(0, ask(&self->user, OP_HELD_OPEN, 0, "", -1, &self->sock));
	ASSERT_LE(0, self->sock);
}

FIXTURE_TEARDOWN(handover)
{
	for (int i = 0; i < self->n; i++) {
		kill(self->herd[i], SIGKILL);
		waitpid(self->herd[i], NULL, 0);
	}
	if (self->sock >= 0)
		close(self->sock);
	agent_stop(&self->user);
}

/*
 * The user starts a dump and hands its socket to root (in life: the
 * stdin of a setuid program), which reads once; the rest of the dump is
 * the user's again. Root's read must not build records with root's
 * credentials: the dump ends there, with EPERM, and no record of root's
 * tasks ever reaches the user's socket.
 */
TEST_F_TIMEOUT(handover, a_dump_read_once_by_root_ends_without_a_record_of_roots, 60)
{
	static char buf[TSNL_BUF_SIZE];
	int roots, end = 0;

	ASSERT_EQ(0, ask(&self->user, OP_HELD_DUMP, 0, "", -1, NULL));
	ASSERT_LT(0, tsnl_recv(self->sock, buf, sizeof(buf), 0));
	roots = ask2(&self->user, OP_HELD_REST, 0, "", -1, NULL, &end);
	TH_LOG("the user received %d records of root's tasks; the dump ended with %d",
	       roots, end);
	EXPECT_EQ(0, roots);
	EXPECT_EQ(-EPERM, end);
}

/*
 * Root write(2)s a GET of @pid on the user's socket, as a setuid program
 * writes to its stdout; the user reads the answer. With @named, root
 * sendto(2)s it to the kernel's address instead: naming the destination
 * is the sender's deliberate act, and like netlink_capable(), taskstats
 * then judges the sender alone. A record counts only if it is @pid's.
 */
static int root_sends(struct _test_data_handover *self, struct tsnl_msg *m,
		      bool named, pid_t pid)
{
	if (named) {
		if (tsnl_send(self->sock, m))
			return -EIO;
	} else if (write(self->sock, m->buf, m->nlh.nlmsg_len) != (ssize_t)m->nlh.nlmsg_len) {
		return -EIO;
	}
	return ask(&self->user, OP_HELD_ANSWER, pid, "", -1, NULL);
}

static int root_sends_for_the_user(struct _test_data_handover *self, pid_t pid,
				   bool named)
{
	struct tsnl_msg m;

	tsnl_msg_init(&m, self->family, TASKSTATS_CMD_GET, 0);
	tsnl_put_u32(&m, TASKSTATS_CMD_ATTR_PID, pid);
	return root_sends(self, &m, named, pid);
}

static int root_gets_for_the_user(struct _test_data_handover *self, pid_t pid)
{
	return root_sends_for_the_user(self, pid, false);
}

TEST_F(handover, a_get_root_writes_on_a_users_socket_is_eperm)
{
	EXPECT_EQ(-EPERM, root_gets_for_the_user(self, 1));
}

/* Root's own process passes root's check, not the opener's. */
TEST_F(handover, a_get_of_roots_own_process_on_a_users_socket_is_eperm)
{
	EXPECT_EQ(-EPERM, root_gets_for_the_user(self, getpid()));
}

/* The user's own tasks stay readable through its socket, whoever writes. */
TEST_F(handover, a_get_of_the_users_task_root_writes_on_its_socket_succeeds)
{
	EXPECT_EQ(1, root_gets_for_the_user(self, self->user.pid));
}

TEST_F(handover, a_get_root_sends_to_the_kernels_address_on_a_users_socket_is_roots)
{
	EXPECT_EQ(1, root_sends_for_the_user(self, 1, true));
}

/*
 * Registering asks CAP_NET_ADMIN of the socket's opener too: root cannot
 * make the user's socket a listener by writing on it, which would let
 * the user read every exit through root's rights.
 */
static int root_registers_the_users_socket(struct _test_data_handover *self)
{
	struct tsnl_msg m;

	tsnl_msg_init(&m, self->family, TASKSTATS_CMD_GET, NLM_F_ACK);
	tsnl_put_str(&m, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0");
	return root_sends(self, &m, false, 0);
}

TEST_F(handover, a_registration_root_writes_on_a_users_socket_is_eperm)
{
	EXPECT_EQ(-EPERM, root_registers_the_users_socket(self));
}

/* ------------------------------------------------------------------ ids */

/*
 * A record names users, groups and tasks as the requester's namespaces
 * do. The container maps its root to UID_A and numbers its tasks from 1:
 * the task it spawned is uid 0 with a small pid and parent 1 there, and
 * UID_A with its host pid and the container's init as parent here.
 */
FIXTURE(ids) {
	struct agent container, entered;
	pid_t init;		/* the container's pid 1, as we see it */
	int target;		/* pidfd of the container's task */
	pid_t pid, inside;	/* its pid here and in the container */
	uint16_t family;
	int fd;
	struct taskstats ts;	/* our record of one of them */
};

FIXTURE_SETUP(ids)
{
	int ret;

	memset(self, 0, sizeof(*self));
	self->target = -1;
	self->fd = -1;
	if (!ts_kernel_dumps())
		SKIP(return, "this kernel has no GET without CAP_NET_ADMIN (no dump)");
	self->fd = tsnl_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, tsnl_family(self->fd, TASKSTATS_GENL_NAME, &self->family));
	ret = agent_start(&self->container, CONTAINER, &self->init);
	if (ret == 4)
		SKIP(return, "cannot create a user namespace");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, ask(&self->container, OP_SPAWN, 0, "ts_ids", -1, &self->target));
	ASSERT_LE(0, self->target);
	self->pid = pidfd_local(self->target);
	self->inside = ts_pid_inside(self->pid);
	ASSERT_LT(1, self->inside);
	ASSERT_NE(self->pid, self->inside);
}

FIXTURE_TEARDOWN(ids)
{
	target_kill(&self->target);
	agent_stop(&self->entered);
	agent_stop(&self->container);
	if (self->fd >= 0)
		close(self->fd);
}

/* Our record of @pid, in the initial namespaces: 0 or -errno. */
static int host_record(struct _test_data_ids *self, pid_t pid,
		       struct taskstats *ts)
{
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_reply r;

	return tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_PID, pid, ts, &r, buf);
}

TEST_F(ids, a_container_reads_its_tasks_ids_as_its_namespaces_name_them)
{
	struct agent *c = &self->container;
	struct taskstats *ts = &self->ts;

	EXPECT_EQ(0, ask(c, OP_IDS, IDS_UID, "", self->target, NULL));
	EXPECT_EQ(0, ask(c, OP_IDS, IDS_GID, "", self->target, NULL));
	EXPECT_EQ(self->inside, ask(c, OP_IDS, IDS_PID, "", self->target, NULL));
	EXPECT_EQ(1, ask(c, OP_IDS, IDS_PPID, "", self->target, NULL));
	ASSERT_EQ(0, host_record(self, self->pid, ts));
	EXPECT_EQ((uint32_t)UID_A, ts->ac_uid);
	EXPECT_EQ((uint32_t)UID_A, ts->ac_gid);
	EXPECT_EQ((uint32_t)self->pid, ts->ac_pid);
	EXPECT_EQ((uint32_t)self->init, ts->ac_ppid);
}

/* The parent of the container's pid 1 has no pid inside: 0, as in /proc. */
TEST_F(ids, a_containers_init_reads_its_parent_outside_as_0)
{
	struct taskstats *ts = &self->ts;

	EXPECT_EQ(1, ask(&self->container, OP_IDS, IDS_PID, "", -1, NULL));
	EXPECT_EQ(0, ask(&self->container, OP_IDS, IDS_PPID, "", -1, NULL));
	ASSERT_EQ(0, host_record(self, self->init, ts));
	EXPECT_EQ((uint32_t)self->init, ts->ac_pid);
	EXPECT_EQ((uint32_t)self->container.pid, ts->ac_ppid);
}

/*
 * A host root process that entered the container keeps uid 0, which the
 * container does not map: its own record reads the overflow ids there,
 * as its /proc/self/status does.
 */
TEST_F(ids, a_host_root_that_entered_reads_its_unmapped_ids_as_the_overflow_ids)
{
	char buf[32];
	int uid, gid;

	ASSERT_LT(0, ts_read_file("/proc/sys/kernel/overflowuid", buf, sizeof(buf)));
	uid = atoi(buf);
	ASSERT_LT(0, ts_read_file("/proc/sys/kernel/overflowgid", buf, sizeof(buf)));
	gid = atoi(buf);
	ASSERT_EQ(0, agent_start(&self->entered, ENTERED, &self->init));
	EXPECT_EQ(uid, ask(&self->entered, OP_IDS, IDS_UID, "", -1, NULL));
	EXPECT_EQ(gid, ask(&self->entered, OP_IDS, IDS_GID, "", -1, NULL));
	/* Its parent stayed outside: only children enter a pid namespace. */
	EXPECT_EQ(0, ask(&self->entered, OP_IDS, IDS_PPID, "", -1, NULL));
	/* And the container's own task is uid 0 to it, as to the container. */
	EXPECT_EQ(0, ask(&self->entered, OP_IDS, IDS_UID, "", self->target, NULL));
}

TEST_HARNESS_MAIN
