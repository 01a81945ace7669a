// SPDX-License-Identifier: GPL-2.0
/*
 * Taskstats netlink interface: the family, GET by pid and tgid, exit
 * listeners and cgroupstats, checked against what the test itself did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "tsnl.h"

/* A child that sits blocked until released, so its stats can be queried. */
struct held_child {
	pid_t pid;
	int release_fd;		/* closing it lets the child exit */
};

static void *block_forever(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

/*
 * Forks a child named @comm with @threads threads in all (the main one
 * included) that waits for release and then exits with @status.
 * Returns once every thread of the child exists.
 */
static int hold_child(struct held_child *c, const char *comm, int threads,
		      int status)
{
	int ready[2], release[2];
	char b;

	if (pipe(ready) || pipe(release))
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0) {
		close(ready[0]);
		close(release[1]);
		prctl(PR_SET_NAME, comm);
		for (int i = 1; i < threads; i++) {
			pthread_t t;

			if (pthread_create(&t, NULL, block_forever, NULL))
				_exit(100);
		}
		if (write(ready[1], "r", 1) != 1)
			_exit(101);
		while (read(release[0], &b, 1) > 0)
			;
		_exit(status);
	}
	close(ready[1]);
	close(release[0]);
	c->release_fd = release[1];
	if (read(ready[0], &b, 1) != 1)
		return -EIO;
	close(ready[0]);
	return 0;
}

/* Releases the child and reaps it; returns its wait status. */
static int release_child(struct held_child *c)
{
	int status = -1;

	close(c->release_fd);
	waitpid(c->pid, &status, 0);
	return status;
}

/*
 * Reads everything already queued on a listener socket and reports how
 * many AGGR_PID records for @pid were among it (the last copied to @out)
 * and how many messages there were in all.
 */
static int drain_for_pid(int fd, pid_t pid, struct taskstats *out,
			 int *messages)
{
	static char buf[TSNL_BUF_SIZE];
	int found = 0;
	int n;

	*messages = 0;
	while ((n = tsnl_recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		struct nlmsghdr *h;

		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			struct tsnl_reply r;

			(*messages)++;
			if (tsnl_parse(h, h->nlmsg_len, &r) || !r.stats)
				continue;
			if (r.aggr_type != TASKSTATS_TYPE_AGGR_PID ||
			    r.id != (uint32_t)pid)
				continue;
			memset(out, 0, sizeof(*out));
			memcpy(out, r.stats, r.stats_len < (int)sizeof(*out) ?
			       r.stats_len : (int)sizeof(*out));
			found++;
		}
	}
	return found;
}

/*
 * Forks a child named @comm that exits with @code, and reaps it: its pid,
 * or -1. Its record is queued in do_exit(), before the parent can reap.
 */
static pid_t reaped_child(const char *comm, int code)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		prctl(PR_SET_NAME, comm);
		_exit(code);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != code)
		return -1;
	return pid;
}

FIXTURE(taskstats) {
	int fd;
	uint16_t family;
	char buf[TSNL_BUF_SIZE];
};

FIXTURE_SETUP(taskstats)
{
	int err;

	self->fd = tsnl_open();
	ASSERT_LE(0, self->fd);
	err = tsnl_family(self->fd, TASKSTATS_GENL_NAME, &self->family);
	if (err == -ENOENT)
		SKIP(return, "no TASKSTATS family: kernel built without CONFIG_TASKSTATS");
	ASSERT_EQ(0, err);
}

FIXTURE_TEARDOWN(taskstats)
{
	close(self->fd);
}

/* (De)registers the listener of the fixture's socket for @cpus. */
static int listen_on(struct _test_data_taskstats *self, bool on,
		     const char *cpus)
{
	return tsnl_cpumask(self->fd, self->family,
			    on ? TASKSTATS_CMD_ATTR_REGISTER_CPUMASK :
				 TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, cpus);
}

/*
 * Ids up to GENL_ID_PMCRAID are the controller's and the two static
 * families'; the TASKSTATS family gets a dynamic one, and a request to
 * it is answered by a TASKSTATS_CMD_NEW message of that id.
 */
TEST_F(taskstats, family_resolves_to_a_dynamic_id_that_answers)
{
	struct tsnl_reply r;
	struct taskstats ts;

	EXPECT_LT(GENL_ID_PMCRAID, self->family);
	ASSERT_EQ(0, tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_PID, getpid(),
			      &ts, &r, self->buf));
	EXPECT_EQ(self->family, ((struct nlmsghdr *)self->buf)->nlmsg_type);
	EXPECT_EQ(TASKSTATS_CMD_NEW, r.cmd);
}

TEST_F(taskstats, family_serves_taskstats_and_cgroupstats_get)
{
	EXPECT_EQ(1, tsnl_family_has_op(self->fd, TASKSTATS_GENL_NAME,
					TASKSTATS_CMD_GET));
	EXPECT_EQ(1, tsnl_family_has_op(self->fd, TASKSTATS_GENL_NAME,
					CGROUPSTATS_CMD_GET));
}

/*
 * GETs the record of @pid by @attr and checks that the reply is the
 * aggregate @attr asks for, names @pid and is of a known version.
 */
static void get_named(struct __test_metadata *_metadata,
		      struct _test_data_taskstats *self, int attr, pid_t pid,
		      struct taskstats *ts, struct tsnl_reply *r)
{
	ASSERT_EQ(0, tsnl_get(self->fd, self->family, attr, pid, ts, r, self->buf));
	EXPECT_EQ(attr == TASKSTATS_CMD_ATTR_PID ? TASKSTATS_TYPE_AGGR_PID :
		  TASKSTATS_TYPE_AGGR_TGID, r->aggr_type);
	EXPECT_TRUE(r->have_id);
	EXPECT_EQ((uint32_t)pid, r->id);
	EXPECT_LE(14, ts->version);
}

TEST_F(taskstats, get_by_pid_describes_the_child)
{
	struct held_child c;
	struct tsnl_reply r;
	struct taskstats ts;

	ASSERT_EQ(0, hold_child(&c, "ts-held", 1, 0));
	get_named(_metadata, self, TASKSTATS_CMD_ATTR_PID, c.pid, &ts, &r);
	EXPECT_EQ(TASKSTATS_CMD_NEW, r.cmd);
	EXPECT_EQ((uint32_t)c.pid, ts.ac_pid);
	EXPECT_EQ((uint32_t)getpid(), ts.ac_ppid);
	EXPECT_STREQ("ts-held", ts.ac_comm);
	EXPECT_EQ(0, release_child(&c));
}

/* The AGGR_PID and AGGR_TGID attributes of the message at @buf. */
static int count_records(const void *buf)
{
	const struct nlmsghdr *h = buf;
	const char *p = (const char *)NLMSG_DATA(h) + GENL_HDRLEN;
	int rem = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN), n = 0;

	while (rem >= NLA_HDRLEN) {
		const struct nlattr *na = (const void *)p;

		if (na->nla_len < NLA_HDRLEN || na->nla_len > rem)
			break;
		if (na->nla_type == TASKSTATS_TYPE_AGGR_PID ||
		    na->nla_type == TASKSTATS_TYPE_AGGR_TGID)
			n++;
		p += NLA_ALIGN(na->nla_len);
		rem -= NLA_ALIGN(na->nla_len);
	}
	return n;
}

/*
 * The framing of a group's answer: one AGGR_TGID record named by the
 * tgid, not one per thread. What it holds is semantics_test's.
 */
TEST_F(taskstats, get_by_tgid_answers_with_one_record_naming_the_group)
{
	struct held_child c;
	struct tsnl_reply r;
	struct taskstats ts;

	ASSERT_EQ(0, hold_child(&c, "ts-threads", 4, 0));
	get_named(_metadata, self, TASKSTATS_CMD_ATTR_TGID, c.pid, &ts, &r);
	EXPECT_EQ(TASKSTATS_CMD_NEW, r.cmd);
	/* tsnl_get() left the answer at the start of the buffer. */
	EXPECT_EQ(1, count_records(self->buf));
	kill(c.pid, SIGKILL);
	release_child(&c);
}

TEST_F(taskstats, exit_listener_receives_the_exit_code)
{
	struct taskstats ts;
	char cpus[256];
	int messages;
	pid_t pid;

	ASSERT_EQ(0, ts_register_all(self->fd, self->family, cpus, sizeof(cpus)));
	pid = reaped_child("ts-exit7", 7);
	ASSERT_LT(0, pid);
	ASSERT_TRUE(drain_for_pid(self->fd, pid, &ts, &messages));
	EXPECT_EQ(7U << 8, ts.ac_exitcode);
	EXPECT_EQ((uint32_t)pid, ts.ac_pid);
	EXPECT_EQ((uint32_t)getpid(), ts.ac_ppid);
	EXPECT_STREQ("ts-exit7", ts.ac_comm);
	EXPECT_EQ(0, listen_on(self, false, cpus));
}

/*
 * A socket registered again for CPUs it listens on, all of them and one
 * of them, still hears each exit once.
 */
TEST_F(taskstats, registering_cpus_again_hears_each_exit_once)
{
	struct taskstats ts;
	char cpus[256];
	int messages;
	pid_t pid;

	ASSERT_EQ(0, ts_register_all(self->fd, self->family, cpus, sizeof(cpus)));
	ASSERT_EQ(0, listen_on(self, true, cpus));
	ASSERT_EQ(0, listen_on(self, true, "0"));
	pid = reaped_child("ts-exit3", 3);
	ASSERT_LT(0, pid);
	EXPECT_EQ(1, drain_for_pid(self->fd, pid, &ts, &messages));
	EXPECT_EQ(3U << 8, ts.ac_exitcode);
	EXPECT_EQ(0, listen_on(self, false, cpus));
}

TEST_F(taskstats, deregistered_listener_receives_nothing)
{
	struct taskstats ts;
	char cpus[256];
	int messages;
	pid_t pid;

	ASSERT_EQ(0, ts_register_all(self->fd, self->family, cpus, sizeof(cpus)));
	/* Records queued before the ack of this request are consumed by it. */
	ASSERT_EQ(0, listen_on(self, false, cpus));
	pid = reaped_child("ts-exit7", 7);
	ASSERT_LT(0, pid);
	EXPECT_FALSE(drain_for_pid(self->fd, pid, &ts, &messages));
	EXPECT_EQ(0, messages);
}

/* An empty cpulist parses as no CPU: acknowledged, and nothing is heard. */
TEST_F(taskstats, an_empty_cpulist_registers_no_cpu)
{
	struct taskstats ts;
	int messages;
	pid_t pid;

	ASSERT_EQ(0, listen_on(self, true, ""));
	pid = reaped_child("ts-exit9", 9);
	ASSERT_LT(0, pid);
	EXPECT_FALSE(drain_for_pid(self->fd, pid, &ts, &messages));
	EXPECT_EQ(0, messages);
}

/*
 * Sends @m with NLM_F_ACK and reads up to its acknowledgment: its error,
 * and in *@replies how many other answers came first. Exit records, which
 * a listening socket may hold in between, are no answers (port id 0).
 */
static int ack_after(int fd, struct tsnl_msg *m, char *buf, int *replies)
{
	uint32_t seq = m->nlh.nlmsg_seq;
	int n, err;

	*replies = 0;
	err = tsnl_send(fd, m);
	if (err)
		return err;
	while ((n = tsnl_recv(fd, buf, TSNL_BUF_SIZE, 0)) > 0) {
		struct nlmsghdr *h;

		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (!tsnl_answers(h, seq))
				continue;
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			(*replies)++;
		}
	}
	return n;
}

/* A request of one action, carrying the attributes of the others too. */
TEST_F(taskstats, register_wins_over_deregister_and_pid_in_one_request)
{
	struct taskstats ts;
	struct tsnl_msg m;
	char cpus[256];
	int messages, replies;
	pid_t pid;

	ts_possible_cpus(cpus, sizeof(cpus));
	tsnl_msg_init(&m, self->family, TASKSTATS_CMD_GET, NLM_F_ACK);
	tsnl_put_u32(&m, TASKSTATS_CMD_ATTR_PID, getpid());
	tsnl_put_str(&m, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, cpus);
	tsnl_put_str(&m, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpus);
	ASSERT_EQ(0, ack_after(self->fd, &m, self->buf, &replies));
	/* No record for the pid: the registration was the one action. */
	EXPECT_EQ(0, replies);
	pid = reaped_child("ts-exit5", 5);
	ASSERT_LT(0, pid);
	EXPECT_EQ(1, drain_for_pid(self->fd, pid, &ts, &messages));
	EXPECT_EQ(0, listen_on(self, false, cpus));
}

TEST_F(taskstats, deregister_wins_over_pid_in_one_request)
{
	struct taskstats ts;
	struct tsnl_msg m;
	char cpus[256];
	int messages, replies;
	pid_t pid;

	ASSERT_EQ(0, ts_register_all(self->fd, self->family, cpus, sizeof(cpus)));
	tsnl_msg_init(&m, self->family, TASKSTATS_CMD_GET, NLM_F_ACK);
	tsnl_put_u32(&m, TASKSTATS_CMD_ATTR_PID, getpid());
	tsnl_put_str(&m, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, cpus);
	ASSERT_EQ(0, ack_after(self->fd, &m, self->buf, &replies));
	EXPECT_EQ(0, replies);
	pid = reaped_child("ts-exit6", 6);
	ASSERT_LT(0, pid);
	EXPECT_EQ(0, drain_for_pid(self->fd, pid, &ts, &messages));
}

/* Threads of the system: the total of /proc/loadavg's fourth field. */
static int count_threads(void)
{
	char buf[128];
	int running, total;

	if (ts_read_file("/proc/loadavg", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%*s %*s %*s %d/%d", &running, &total) != 2)
		return -1;
	return total;
}

/*
 * The root of a new v1 hierarchy holds every thread: this one running, a
 * child blocked on a pipe sleeping, and no more in all states than the
 * system has threads (idle kernel threads are in none).
 */
TEST_F(taskstats, cgroupstats_counts_the_caller_as_running)
{
	char dir[] = "/tmp/ts-cgroup.XXXXXX";
	const struct cgroupstats *cs;
	int cfd, n, pipefd[2], threads;
	struct tsnl_msg m;
	struct tsnl_reply r;
	pid_t sleeper;
	char c;

	ASSERT_EQ(0, pipe(pipefd));
	sleeper = fork();
	ASSERT_LE(0, sleeper);
	if (sleeper == 0) {
		close(pipefd[1]);
		_exit(read(pipefd[0], &c, 1) == 0 ? 0 : 1);
	}
	close(pipefd[0]);
	ASSERT_EQ(0, ts_wait_sleeping(sleeper));

	ASSERT_NE(NULL, mkdtemp(dir));
	/* cgroupstats is served for v1 hierarchies only: mount a named one. */
	if (mount("none", dir, "cgroup", 0, "none,name=tstest")) {
		rmdir(dir);
		SKIP(return, "cannot mount a cgroup v1 hierarchy: %s",
		     strerror(errno));
	}
	cfd = open(dir, O_RDONLY | O_DIRECTORY);
	ASSERT_LE(0, cfd);
	tsnl_msg_init(&m, self->family, CGROUPSTATS_CMD_GET, 0);
	tsnl_put_u32(&m, CGROUPSTATS_CMD_ATTR_FD, cfd);
	n = tsnl_transact(self->fd, &m, self->buf, sizeof(self->buf));
	threads = count_threads();
	close(cfd);
	umount(dir);
	rmdir(dir);
	close(pipefd[1]);
	ASSERT_EQ(sleeper, waitpid(sleeper, NULL, 0));
	ASSERT_LT(0, n);
	ASSERT_EQ(0, tsnl_parse(self->buf, n, &r));
	EXPECT_EQ(CGROUPSTATS_CMD_NEW, r.cmd);
	ASSERT_NE(NULL, r.cgstats);
	ASSERT_EQ((int)sizeof(*cs), r.cgstats_len);
	cs = r.cgstats;
	TH_LOG("running %llu sleeping %llu uninterruptible %llu stopped %llu io_wait %llu",
	       (unsigned long long)cs->nr_running, (unsigned long long)cs->nr_sleeping,
	       (unsigned long long)cs->nr_uninterruptible,
	       (unsigned long long)cs->nr_stopped, (unsigned long long)cs->nr_io_wait);
	TH_LOG("%d threads in the system", threads);
	EXPECT_LE(1ULL, cs->nr_running);
	EXPECT_LE(1ULL, cs->nr_sleeping);
	/* A few threads may have come and gone between the two counts. */
	ASSERT_LT(0, threads);
	EXPECT_GE(threads + 16ULL, cs->nr_running + cs->nr_sleeping +
		  cs->nr_uninterruptible + cs->nr_stopped + cs->nr_io_wait);
}

TEST_HARNESS_MAIN
