// SPDX-License-Identifier: GPL-2.0
/*
 * What this implementation adds to the interface: the whole-system dump,
 * unprivileged self-query and container-aware access. A kernel without
 * them (it cannot dump) skips these tests. The checks run as nobody or in
 * a container are ext_access.c's; a dump that meets a task stuck in exec
 * is stuck_exec_test.c's.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <linux/sock_diag.h>

#include "../kselftest_harness.h"
#include "agent.h"
#include "dump_seen.h"
#include "ext_access.h"
#include "tsnl.h"

#define NCHILD		32
#define NCROWD		300	/* more than the pid walk's 256 between pauses */

/*
 * Children that pause until killed: the tasks alive through a dump. They
 * die with the test too, should the harness kill it on a timeout.
 */
struct herd {
	int n;
	pid_t pid[NCROWD];
};

static int herd_start(struct herd *h, int n)
{
	pid_t parent = getpid();

	h->n = 0;
	while (h->n < n) {
		pid_t pid = fork();

		if (pid < 0)
			return -errno;
		if (pid == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(0);
			for (;;)
				pause();
		}
		h->pid[h->n++] = pid;
	}
	return 0;
}

static void herd_stop(struct herd *h)
{
	for (int i = 0; i < h->n; i++) {
		kill(h->pid[i], SIGKILL);
		waitpid(h->pid[i], NULL, 0);
	}
	h->n = 0;
}

static int max_count(const struct seen *s)
{
	return s->most;
}

FIXTURE(ext) {
	int fd;
	uint16_t family;
	struct herd herd;
	struct seen seen;
};

FIXTURE_SETUP(ext)
{
	struct seen probe = { 0 };
	int n;

	self->herd.n = 0;
	self->fd = tsnl_open();
	ASSERT_LE(0, self->fd);
	if (tsnl_family(self->fd, TASKSTATS_GENL_NAME, &self->family))
		SKIP(return, "no TASKSTATS family");
	n = dump_into(self->fd, self->family, false, &probe);
	if (n == -EOPNOTSUPP && !ts_kernel_dumps())
		SKIP(return, "this kernel cannot dump: it has none of these extensions");
	ASSERT_LT(0, n);
}

FIXTURE_TEARDOWN(ext)
{
	herd_stop(&self->herd);
	close(self->fd);
}

TEST_F(ext, dump_lists_every_task_exactly_once)
{
	ASSERT_EQ(0, herd_start(&self->herd, NCHILD));
	ASSERT_LT(NCHILD, dump_into(self->fd, self->family, false, &self->seen));
	EXPECT_EQ(0, self->seen.wrong_aggr);
	EXPECT_EQ(0, self->seen.not_its_own);
	for (int i = 0; i < NCHILD; i++)
		EXPECT_EQ(1, self->seen.count[self->herd.pid[i]]);
	EXPECT_EQ(1, self->seen.count[getpid()]);
	EXPECT_EQ(1, max_count(&self->seen));
}

/*
 * As every netlink dump does: one object per message, so that a client
 * reading one record per message (pyroute2, libnl, ynl) misses none, and
 * many messages per read, so that the system calls stay few.
 */
TEST_F(ext, dump_sends_one_record_per_message_and_many_messages_per_read)
{
	int records;

	ASSERT_EQ(0, herd_start(&self->herd, NCHILD));
	records = dump_into(self->fd, self->family, false, &self->seen);
	ASSERT_LT(NCHILD, records);
	EXPECT_EQ(records, self->seen.records);
	EXPECT_EQ(records, self->seen.arrived.messages);
	EXPECT_EQ(1, self->seen.arrived.most);
	/* The messages of one read: more than ten of 724 bytes in 32 KiB. */
	EXPECT_LE(self->seen.arrived.reads * 10, records)
		TH_LOG("%d records in %d reads", records, self->seen.arrived.reads);
}

/* The messages dropped on @fd so far, as SO_MEMINFO counts them. */
static uint32_t drops(int fd)
{
	uint32_t mem[SK_MEMINFO_VARS] = { 0 };
	socklen_t len = sizeof(mem);

	getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len);
	return mem[SK_MEMINFO_DROPS];
}

/*
 * A dump asked for on a socket that exit records have filled finds no
 * room for its first part. It is put off, not cut: the request's answer
 * is dropped too (recv(2) reports ENOBUFS, SO_MEMINFO one more drop), and
 * once reading has emptied half the buffer the dump runs from its start,
 * every task once, up to its NLMSG_DONE.
 */
TEST_F_TIMEOUT(ext, dump_asked_on_a_full_socket_waits_for_room_and_lists_every_task, 60)
{
	struct timeval timeout = { .tv_sec = 10 };
	int fd, n, bytes = 16384, enobufs = 0, records = 0;
	uint32_t dropped;
	struct tsnl_msg m;
	bool done = false;
	char cpus[256];

	ASSERT_EQ(0, herd_start(&self->herd, NCHILD));
	fd = tsnl_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)));
	ASSERT_EQ(0, setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)));
	ASSERT_EQ(0, ts_register_all(fd, self->family, cpus, sizeof(cpus)));
	/* 64 exit records of over 2 KiB each: four times what 32 KiB holds. */
	ASSERT_EQ(64, fork_exits(64));
	/* No more records; unacknowledged, as an ack would not fit. */
	tsnl_msg_init(&m, self->family, TASKSTATS_CMD_GET, 0);
	tsnl_put_str(&m, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, cpus);
	ASSERT_EQ(0, tsnl_send(fd, &m));
	dropped = drops(fd);
	ASSERT_LT(0U, dropped);
	tsnl_msg_init(&m, self->family, TASKSTATS_CMD_GET, NLM_F_DUMP);
	ASSERT_EQ(0, tsnl_send(fd, &m));
	EXPECT_EQ(dropped + 1, drops(fd));

	seen_reset(&self->seen, false);
	while (!done) {
		n = tsnl_dump_part(fd, m.nlh.nlmsg_seq, count_record,
				   &self->seen, NULL, &done);
		if (n == -ENOBUFS) {
			enobufs++;
			done = false;
			continue;
		}
		ASSERT_LE(0, n);
		records += n;
	}
	close(fd);
	EXPECT_LE(1, enobufs);
	ASSERT_LT(NCHILD, records);
	EXPECT_EQ(records, self->seen.records);
	for (int i = 0; i < NCHILD; i++)
		EXPECT_EQ(1, self->seen.count[self->herd.pid[i]]);
	EXPECT_EQ(1, self->seen.count[getpid()]);
	EXPECT_EQ(1, max_count(&self->seen));
}

/*
 * A socket runs one dump at a time: a second request before the first
 * has ended is refused with EBUSY, and the first goes on to list every
 * task once, up to its NLMSG_DONE.
 */
TEST_F(ext, a_second_dump_before_the_first_ends_is_ebusy_and_the_first_goes_on)
{
	static char buf[TSNL_BUF_SIZE];
	int n, busy = 1, end = 1;
	struct tsnl_msg a, b;
	struct nlmsghdr *h;

	ASSERT_EQ(0, herd_start(&self->herd, NCHILD));
	seen_reset(&self->seen, false);
	tsnl_msg_init(&a, self->family, TASKSTATS_CMD_GET, NLM_F_DUMP);
	ASSERT_EQ(0, tsnl_send(self->fd, &a));
	tsnl_msg_init(&b, self->family, TASKSTATS_CMD_GET, NLM_F_DUMP);
	ASSERT_EQ(0, tsnl_send(self->fd, &b));
	while (end == 1) {
		n = tsnl_recv(self->fd, buf, sizeof(buf), 0);
		ASSERT_LT(0, n);
		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (tsnl_answers(h, b.nlh.nlmsg_seq))
				busy = h->nlmsg_type == NLMSG_ERROR ?
				       ((struct nlmsgerr *)NLMSG_DATA(h))->error : 2;
			else if (!tsnl_answers(h, a.nlh.nlmsg_seq))
				continue;
			else if (h->nlmsg_type == NLMSG_DONE)
				end = *(int *)NLMSG_DATA(h);
			else if (h->nlmsg_type == NLMSG_ERROR)
				end = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			else
				ASSERT_EQ(1, tsnl_dump_records(h, count_record, &self->seen));
		}
	}
	EXPECT_EQ(-EBUSY, busy);
	EXPECT_EQ(0, end);
	for (int i = 0; i < NCHILD; i++)
		EXPECT_EQ(1, self->seen.count[self->herd.pid[i]]);
	EXPECT_EQ(1, self->seen.count[getpid()]);
	EXPECT_EQ(1, max_count(&self->seen));
}

/*
 * Reads the rest of the dump numbered @seq, whose first part was read:
 * 0 if it ended with EPERM in its NLMSG_DONE, as a dump read with other
 * credentials than those that started it must.
 */
static int rest_ends_with_eperm(int fd, uint32_t seq)
{
	struct seen s = { 0 };
	bool done = false;
	int n = 0;

	seen_reset(&s, false);
	while (!done && n >= 0)
		n = tsnl_dump_part(fd, seq, count_record, &s, NULL, &done);
	return n == -EPERM ? 0 : 1;
}

/* Starts a dump long enough for several parts and reads its first. */
static void dump_first_part(struct __test_metadata *_metadata,
			    struct _test_data_ext *self, struct tsnl_msg *m)
{
	bool done;

	ASSERT_EQ(0, herd_start(&self->herd, NCROWD));
	seen_reset(&self->seen, false);
	tsnl_msg_init(m, self->family, TASKSTATS_CMD_GET, NLM_F_DUMP);
	ASSERT_EQ(0, tsnl_send(self->fd, m));
	ASSERT_LT(0, tsnl_dump_part(self->fd, m->nlh.nlmsg_seq, count_record,
				    &self->seen, NULL, &done));
	ASSERT_FALSE(done);
}

/*
 * A child forked since the dump started has credentials of its own, if
 * equal ones: the dump's parts it makes by reading end the dump.
 */
TEST_F(ext, a_dump_read_on_by_a_child_forked_since_ends_with_eperm)
{
	struct tsnl_msg m;
	int status;
	pid_t pid;

	dump_first_part(_metadata, self, &m);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(rest_ends_with_eperm(self->fd, m.nlh.nlmsg_seq));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* setuid(getuid()) changes no id but commits new credentials. */
TEST_F(ext, a_dump_read_on_after_setuid_to_the_same_uid_ends_with_eperm)
{
	struct tsnl_msg m;

	dump_first_part(_metadata, self, &m);
	ASSERT_EQ(0, setuid(getuid()));
	EXPECT_EQ(0, rest_ends_with_eperm(self->fd, m.nlh.nlmsg_seq));
}

static void *park(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

TEST_F(ext, dump_by_tgid_lists_each_thread_group_once)
{
	struct dirent *de;
	pthread_t t[3];
	int found = 0;
	pid_t tid[3];
	DIR *dir;

	for (int i = 0; i < 3; i++)
		ASSERT_EQ(0, pthread_create(&t[i], NULL, park, NULL));
	/* Our threads' ids: the entries of /proc/self/task but our own. */
	dir = opendir("/proc/self/task");
	ASSERT_NE(NULL, dir);
	while (found < 3 && (de = readdir(dir))) {
		int id = atoi(de->d_name);

		if (id > 0 && id != getpid())
			tid[found++] = id;
	}
	closedir(dir);
	ASSERT_EQ(3, found);
	ASSERT_LT(3, dump_into(self->fd, self->family, true, &self->seen));
	EXPECT_EQ(0, self->seen.wrong_aggr);
	EXPECT_EQ(0, self->seen.not_its_own);
	EXPECT_EQ(1, self->seen.count[getpid()]);
	for (int i = 0; i < 3; i++)
		EXPECT_EQ(0, self->seen.count[tid[i]]);
	EXPECT_EQ(1, max_count(&self->seen));
}

#define GROUP_NAPS	5	/* each thread's sleeps before it parks */

/* A thread of the group below: its voluntary switches, then it parks. */
static void *nap_then_park(void *arg)
{
	struct timespec ms = { .tv_nsec = 1000000 };

	for (int i = 0; i < GROUP_NAPS; i++)
		nanosleep(&ms, NULL);
	for (;;)
		pause();
	return NULL;
}

/* The record a dump by tgid sent for one group. */
struct group_record {
	uint32_t tgid;
	int records;
	struct taskstats ts;
};

static void keep_group(uint32_t id, int aggr, const struct taskstats *ts, void *arg)
{
	struct group_record *g = arg;

	if (id == g->tgid) {
		g->records++;
		g->ts = *ts;
	}
}

/*
 * A dump's group record is the group's, not its leader's: it sums the
 * switches of all four threads, as /proc counts them thread by thread,
 * and equals a TGID GET of the same group, all of it parked.
 */
TEST_F(ext, dump_by_tgid_sends_the_groups_sums_as_a_tgid_get_does)
{
	static char buf[TSNL_BUF_SIZE];
	struct group_record g = { 0 };
	struct tsnl_reply r;
	struct taskstats get;
	uint64_t voluntary;
	int threads = 0;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		pthread_t t;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (int i = 0; i < 3; i++)
			if (pthread_create(&t, NULL, nap_then_park, NULL))
				_exit(1);
		nap_then_park(NULL);
	}
	self->herd.pid[self->herd.n++] = pid;
	for (int tries = 0; tries < 1000 && threads < 4; tries++) {
		voluntary = ts_threads_sum(pid, "voluntary_ctxt_switches", &threads);
		if (voluntary < 4 * GROUP_NAPS)
			threads = 0;
		usleep(10000);
	}
	ASSERT_EQ(4, threads);
	/* Parked: every thread asleep in pause(), its counts still. */
	usleep(100000);
	voluntary = ts_threads_sum(pid, "voluntary_ctxt_switches", &threads);
	g.tgid = pid;
	ASSERT_LT(0, tsnl_dump(self->fd, self->family, true, keep_group, &g, NULL));
	ASSERT_EQ(0, tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_TGID, pid,
			      &get, &r, buf));
	ASSERT_EQ(1, g.records);
	TH_LOG("dump: nvcsw %llu; get: %llu; /proc's threads: %llu",
	       (unsigned long long)g.ts.nvcsw, (unsigned long long)get.nvcsw,
	       (unsigned long long)voluntary);
	EXPECT_EQ(voluntary, g.ts.nvcsw);
	EXPECT_EQ(get.nvcsw, g.ts.nvcsw);
	EXPECT_EQ(get.nivcsw, g.ts.nivcsw);
	EXPECT_EQ(get.cpu_count, g.ts.cpu_count);
	EXPECT_EQ(get.cpu_run_virtual_total, g.ts.cpu_run_virtual_total);
	EXPECT_EQ(get.version, g.ts.version);
}

/* Forks children that exit at once, as fast as it can, until killed. */
static pid_t churn(void)
{
	pid_t pid = fork();

	if (pid == 0)
		fork_exit_forever(NULL);
	return pid;
}

/*
 * Dumps @rounds times; 0 if every task of the herd appeared exactly once
 * in each and no id appeared twice.
 */
static int dumps_see_herd_once(struct _test_data_ext *self, int rounds)
{
	for (int round = 0; round < rounds; round++) {
		if (dump_into(self->fd, self->family, false, &self->seen) <= NCHILD)
			return 1;
		for (int i = 0; i < NCHILD; i++)
			if (self->seen.count[self->herd.pid[i]] != 1)
				return 2;
		if (max_count(&self->seen) != 1)
			return 3;
	}
	return 0;
}

TEST_F(ext, dump_racing_forks_and_exits_keeps_each_survivor_once)
{
	pid_t churner[2];
	int ret;

	ASSERT_EQ(0, herd_start(&self->herd, NCHILD));
	churner[0] = churn();
	churner[1] = churn();
	ret = dumps_see_herd_once(self, 10);
	for (int i = 0; i < 2; i++) {
		kill(churner[i], SIGKILL);
		waitpid(churner[i], NULL, 0);
	}
	EXPECT_EQ(0, ret);
}

/*
 * Started with TS_EXEC_CHURN=<fd>, this program is a thread group whose
 * leader keeps being replaced: a second thread execs the program again,
 * which makes that thread the leader under the same tgid (de_thread()),
 * and so on. Each generation writes a byte to <fd>.
 */
static void *exec_again(void *arg)
{
	execl("/proc/self/exe", "ext_test", (char *)NULL);
	_exit(1);
}

__attribute__((constructor)) static void exec_churn(void)
{
	const char *fd = getenv("TS_EXEC_CHURN");
	pthread_t t;

	if (!fd)
		return;
	if (write(atoi(fd), "x", 1) != 1 ||
	    pthread_create(&t, NULL, exec_again, NULL))
		_exit(1);
	for (;;)
		pause();
}

/*
 * Starts the exec churner of exec_churn(); returns its pid and the read
 * end of its pipe in *@fd (a byte per generation), or -1.
 */
static pid_t start_churner(int *fd)
{
	int pipefd[2];
	char arg[16];
	pid_t churner;

	if (pipe2(pipefd, O_NONBLOCK))
		return -1;
	churner = fork();
	if (churner == 0) {
		snprintf(arg, sizeof(arg), "%d", pipefd[1]);
		setenv("TS_EXEC_CHURN", arg, 1);
		execl("/proc/self/exe", "ext_test", (char *)NULL);
		_exit(1);
	}
	close(pipefd[1]);
	*fd = pipefd[0];
	return churner;
}

static int churned(int fd)
{
	char buf[64];
	int n, execs = 0;

	while ((n = read(fd, buf, sizeof(buf))) > 0)
		execs += n;
	return execs;
}

static void stop_churner(pid_t churner, int fd)
{
	kill(churner, SIGKILL);
	waitpid(churner, NULL, 0);
	close(fd);
}

/*
 * The churner's 20 execs outlasted 20 s on the debug kernel while the host
 * was busy (14 in one run): the deadline only bounds a stuck churner.
 */
#define CHURN_SECONDS 150

TEST_F_TIMEOUT(ext, dump_by_tgid_keeps_a_group_whose_threads_exec, CHURN_SECONDS + 30)
{
	int dumps = 0, failed = 0, missing = 0, twice = 0, execs = 0, fd;
	time_t deadline = time(NULL) + CHURN_SECONDS;
	pid_t churner = start_churner(&fd);

	ASSERT_LT(0, churner);
	/* Dump while the group's leader is replaced 20 times. */
	while (execs < 20 && time(NULL) < deadline) {
		if (dump_into(self->fd, self->family, true, &self->seen) <= 0)
			failed++;
		dumps++;
		missing += self->seen.count[churner] != 1;
		twice += max_count(&self->seen) > 1;
		execs += churned(fd);
	}
	stop_churner(churner, fd);
	ASSERT_LE(20, execs) TH_LOG("the churner exec'd %d times in %d s", execs, CHURN_SECONDS);
	EXPECT_EQ(0, failed);
	EXPECT_EQ(0, missing) TH_LOG("the group was missing from %d of %d dumps", missing, dumps);
	EXPECT_EQ(0, twice);
}

/*
 * Records of threads whose group execs: the exec releases the old leader
 * while the dump or the GET may hold one of its threads, whose record
 * names the leader's start time. Reading a freed leader is what KASAN
 * (make check-debug) reports; here every dump must also succeed.
 */
TEST_F_TIMEOUT(ext, records_of_threads_racing_their_groups_exec_read_no_freed_leader,
	       CHURN_SECONDS + 30)
{
	static char buf[TSNL_BUF_SIZE];
	time_t deadline = time(NULL) + CHURN_SECONDS;
	int failed = 0, execs = 0, gets = 0, wrong = 0, fd;
	pid_t churner = start_churner(&fd);
	struct tsnl_reply r;
	struct taskstats ts;
	char dir[64];

	ASSERT_LT(0, churner);
	snprintf(dir, sizeof(dir), "/proc/%d/task", churner);
	while (execs < 20 && time(NULL) < deadline) {
		struct dirent *de;
		DIR *d;

		if (dump_into(self->fd, self->family, false, &self->seen) <= 0)
			failed++;
		d = opendir(dir);
		while (d && (de = readdir(d))) {
			int tid = atoi(de->d_name), ret;

			if (tid <= 0)
				continue;
			/* Gone, or renumbered by the exec: ESRCH. */
			ret = tsnl_get(self->fd, self->family,
				       TASKSTATS_CMD_ATTR_PID, tid, &ts, &r, buf);
			if (ret == -ESRCH)
				continue;
			gets++;
			if (ret || ts.ac_pid != (uint32_t)tid ||
			    ts.ac_tgid != (uint32_t)churner)
				wrong++;
		}
		if (d)
			closedir(d);
		execs += churned(fd);
	}
	stop_churner(churner, fd);
	ASSERT_LE(20, execs) TH_LOG("the churner exec'd %d times in %d s", execs, CHURN_SECONDS);
	EXPECT_EQ(0, failed);
	/* Each answer is the record of the churner's thread asked for. */
	EXPECT_LT(0, gets);
	EXPECT_EQ(0, wrong);
}

TEST_F(ext, unprivileged_get_of_ones_own_task_succeeds)
{
	EXPECT_EQ(0, ts_as_nobody(get_own_task, self->family, 0));
}

TEST_F(ext, unprivileged_get_of_roots_task_is_eperm)
{
	EXPECT_EQ(0, ts_as_nobody(get_roots_task, self->family, getpid()));
}

TEST_F(ext, unprivileged_dump_lists_only_ones_own_tasks)
{
	EXPECT_EQ(0, ts_as_nobody(dump_own_tasks, self->family, getpid()));
}

/*
 * Root's tasks forked just before the requester lie between it and the
 * start of the walk: it skips them all in one call, pausing every 256 (a
 * fatal signal would end it there), and goes on to its own. Forking 600
 * outlasted the harness's default 30 s on the debug kernel.
 */
TEST_F_TIMEOUT(ext, unprivileged_dump_walks_past_hundreds_of_unreadable_tasks_to_its_own, 180)
{
	ASSERT_EQ(0, herd_start(&self->herd, NCROWD));
	EXPECT_EQ(0, ts_as_nobody(dump_own_tasks, self->family,
				  self->herd.pid[NCROWD - 1]));
}

TEST_F(ext, unprivileged_listener_registration_stays_eperm)
{
	EXPECT_EQ(0, ts_as_nobody(register_listener, self->family, 0));
}

/*
 * Whatever a socket receives passes the taps (nlmon) of its network
 * namespace, which that namespace's owner may open: the host's admin,
 * with a socket in a rootless container's network namespace, is
 * answered nothing that the container's root could watch.
 */
TEST_F(ext, a_host_socket_in_a_rootless_containers_network_namespace_is_refused)
{
	int status, ns, sock;
	pid_t holder = container_holder(&sock), asker;
	char path[64];

	if (!holder)
		SKIP(return, "cannot create a user namespace");
	snprintf(path, sizeof(path), "/proc/%d/ns/net", holder);
	ns = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ns);
	asker = fork();
	if (asker == 0)
		_exit(setns(ns, CLONE_NEWNET) ? 40 : asked_from_this_netns(-EPERM));
	ASSERT_EQ(asker, waitpid(asker, &status, 0));
	close(ns);
	holder_stop(holder, sock);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * A write(2) is judged for the socket's opener too, and a request reads
 * only what both may read: on the container's own socket, the host's root
 * reads what the container's root could, who owns the taps anyway.
 */
TEST_F(ext, a_containers_own_socket_answers_the_host_root_who_writes_on_it)
{
	int sock;
	pid_t holder = container_holder(&sock);

	if (!holder)
		SKIP(return, "cannot create a user namespace");
	EXPECT_EQ(0, written_get(sock, self->family, holder));
	holder_stop(holder, sock);
}

/* A sendto(2) naming the kernel is judged for the sender alone. */
TEST_F(ext, a_containers_own_socket_refuses_the_host_root_who_names_the_kernel)
{
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_reply r;
	struct taskstats ts;
	int sock;
	pid_t holder = container_holder(&sock);

	if (!holder)
		SKIP(return, "cannot create a user namespace");
	EXPECT_EQ(-EPERM, tsnl_get(sock, self->family, TASKSTATS_CMD_ATTR_PID,
				   holder, &ts, &r, buf));
	holder_stop(holder, sock);
}

/* The control: a network namespace the host's root made is the host's. */
TEST_F(ext, a_host_socket_in_a_network_namespace_of_the_hosts_is_answered)
{
	pid_t asker = fork();
	int status;

	if (asker == 0)
		_exit(unshare(CLONE_NEWNET) ? 40 : asked_from_this_netns(0));
	ASSERT_EQ(asker, waitpid(asker, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

TEST_F_TIMEOUT(ext, a_container_sees_its_own_tasks_and_nothing_of_the_host, 60)
{
	int to_parent[2], to_child[2], status, ret;
	pid_t pid, host;
	char c;

	ASSERT_EQ(0, pipe(to_parent));
	ASSERT_EQ(0, pipe(to_child));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		/* fds 3 and 4 talk to the host side, see in_container(). */
		dup2(to_parent[1], 3);
		dup2(to_child[0], 4);
		_exit(ts_as_nobody(container, self->family, getppid()));
	}
	close(to_parent[1]);
	close(to_child[0]);
	if (read(to_parent[0], &c, 1) == 1) {
		host = fork();
		if (host == 0)
			_exit(0);
		waitpid(host, NULL, 0);
		ASSERT_EQ(1, write(to_child[1], "y", 1));
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ret = WEXITSTATUS(status);
	if (ret == 4)
		SKIP(return, "cannot create a user namespace");
	EXPECT_EQ(0, ret);
}

TEST_HARNESS_MAIN
