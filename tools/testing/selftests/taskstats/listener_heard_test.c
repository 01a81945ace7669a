// SPDX-License-Identifier: GPL-2.0
/*
 * What a container's listener hears, and what it may not learn from it:
 * that the exiting task used a capability (the listener's, used on its
 * behalf), a group whose leader it could not read, the ids of the exit in
 * namespaces other than its own, the number of exits other namespaces
 * heard. A kernel without listeners in containers (the reference: it
 * cannot dump) skips the tests.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/acct.h>

#include "../kselftest_harness.h"
#include "agent.h"
#include "tsnl.h"

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

TEST_HARNESS_MAIN
