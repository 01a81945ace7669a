// SPDX-License-Identifier: GPL-2.0
/*
 * How records relate: a thread group's GET is the sum of its threads, live
 * and exited; exit records go once per task to the listeners of the CPU the
 * task exits on, and not to anybody else.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "tsnl.h"

#define MAX_PIDS	16

/* What a listener saw of a set of pids. */
struct tally {
	pid_t pids[MAX_PIDS];
	int n;
	int pid_records[MAX_PIDS];
	int tgid_records;
	pid_t tgid;
	uint64_t exited_nvcsw;
};

static void count(const struct tsnl_exit *e, void *arg)
{
	struct tally *t = arg;

	for (int i = 0; i < t->n; i++) {
		if (e->have_pid && e->pid == (uint32_t)t->pids[i]) {
			t->pid_records[i]++;
			t->exited_nvcsw += e->pid_ts.nvcsw;
		}
	}
	if (e->have_tgid && t->tgid && e->tgid == (uint32_t)t->tgid)
		t->tgid_records++;
}

FIXTURE(sem) {
	int fd;
	uint16_t family;
	char cpus[256];
	char buf[TSNL_BUF_SIZE];
};

FIXTURE_SETUP(sem)
{
	self->fd = tsnl_open();
	ASSERT_LE(0, self->fd);
	if (tsnl_family(self->fd, TASKSTATS_GENL_NAME, &self->family))
		SKIP(return, "no TASKSTATS family");
	ts_possible_cpus(self->cpus, sizeof(self->cpus));
}

FIXTURE_TEARDOWN(sem)
{
	tsnl_cpumask(self->fd, self->family, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
		     self->cpus);
	close(self->fd);
}

/* Registers @fd as exit listener for every possible CPU. */
static int listen_all(struct _test_data_sem *self, int fd)
{
	return ts_register_all(fd, self->family, self->cpus, sizeof(self->cpus));
}

static int tid_pipe[2];
static int quit_pipe[2];

/* Reports its tid, then exits at once if @arg, or blocks for good. */
static void *thread_main(void *arg)
{
	/* The tid, negated for a thread that is going to exit. */
	pid_t tid = arg ? -syscall(SYS_gettid) : syscall(SYS_gettid);
	char c;

	/* A few voluntary switches of its own, for the sums to mean something. */
	for (int i = 0; i < 5; i++)
		usleep(1000);
	if (write(tid_pipe[1], &tid, sizeof(tid)) != sizeof(tid))
		_exit(2);
	if (arg) {
		/* Wait to be told, so the parent has registered first. */
		if (read(quit_pipe[0], &c, 1) != 1)
			_exit(3);
		return NULL;
	}
	for (;;)
		pause();
	return NULL;
}

/*
 * A child with @live blocked threads and @dying threads that exit on cue;
 * @tids gets the live ones first, then the dying ones.
 */
static pid_t spawn_group(int live, int dying, pid_t *tids)
{
	int nlive = 0, ndying = 0;
	pid_t pid, tid;

	if (pipe(tid_pipe) || pipe(quit_pipe))
		return -1;
	pid = fork();
	if (pid == 0) {
		pthread_t t;

		for (int i = 0; i < live + dying; i++)
			if (pthread_create(&t, NULL, thread_main, (void *)(long)(i >= live)))
				_exit(1);
		for (;;)
			pause();
	}
	for (int i = 0; i < live + dying; i++) {
		if (read(tid_pipe[0], &tid, sizeof(tid)) != sizeof(tid))
			return -1;
		if (tid > 0)
			tids[nlive++] = tid;
		else
			tids[live + ndying++] = -tid;
	}
	return pid;
}

static int wait_gone(pid_t tid)
{
	for (int i = 0; i < 10000; i++) {
		if (ts_proc_state(tid) < 0)
			return 0;
		usleep(1000);
	}
	return -1;
}

TEST_F(sem, tgid_get_is_the_sum_of_live_and_exited_threads)
{
	struct tally t = { .n = 2 };
	struct taskstats group, one;
	struct tsnl_reply r;
	pid_t tids[4], pid, live[3];
	uint64_t sum;
	char c = 'q';

	ASSERT_EQ(0, listen_all(self, self->fd));
	pid = spawn_group(2, 2, tids);
	ASSERT_LT(0, pid);
	t.pids[0] = tids[2];
	t.pids[1] = tids[3];
	ASSERT_EQ(1, write(quit_pipe[1], &c, 1));
	ASSERT_EQ(1, write(quit_pipe[1], &c, 1));
	ASSERT_EQ(0, wait_gone(tids[2]));
	ASSERT_EQ(0, wait_gone(tids[3]));
	ASSERT_EQ(0, ts_wait_sleeping(pid));
	ASSERT_EQ(0, ts_wait_sleeping(tids[0]));
	ASSERT_EQ(0, ts_wait_sleeping(tids[1]));
	tsnl_drain(self->fd, count, &t);
	ASSERT_EQ(1, t.pid_records[0]);
	ASSERT_EQ(1, t.pid_records[1]);

	sum = t.exited_nvcsw;
	live[0] = pid;
	live[1] = tids[0];
	live[2] = tids[1];
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_PID,
				      live[i], &one, &r, self->buf));
		sum += one.nvcsw;
	}
	ASSERT_EQ(0, tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_TGID, pid,
			      &group, &r, self->buf));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	TH_LOG("group nvcsw %llu, sum of threads %llu", (unsigned long long)group.nvcsw,
	       (unsigned long long)sum);
	/*
	 * fill_stats_for_tgid() sums nvcsw of live threads onto what exited
	 * threads left in signal->stats; an exiting thread's record is filled
	 * just after its share was added, so it may be one switch ahead.
	 */
	EXPECT_GE(sum, group.nvcsw);
	EXPECT_LE(sum, group.nvcsw + 2);
	EXPECT_LE(20ULL, group.nvcsw);
}

/* Forks a child that exits at once. */
static pid_t exit_now(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	return pid;
}

TEST_F(sem, every_exiting_task_produces_exactly_one_record)
{
	struct tally t = { .n = 5 };

	ASSERT_EQ(0, listen_all(self, self->fd));
	for (int i = 0; i < t.n; i++) {
		t.pids[i] = exit_now();
		ASSERT_LE(0, t.pids[i]);
	}
	for (int i = 0; i < t.n; i++)
		ASSERT_EQ(t.pids[i], waitpid(t.pids[i], NULL, 0));
	tsnl_drain(self->fd, count, &t);
	for (int i = 0; i < t.n; i++)
		EXPECT_EQ(1, t.pid_records[i]);
	/* Single-threaded processes carry no group record. */
	EXPECT_EQ(0, t.tgid_records);
}

TEST_F(sem, a_dying_thread_group_adds_one_aggr_tgid_record)
{
	struct tally t = { .n = 4 };
	pid_t tids[3], pid;

	ASSERT_EQ(0, listen_all(self, self->fd));
	pid = spawn_group(3, 0, tids);
	ASSERT_LT(0, pid);
	t.pids[0] = pid;
	memcpy(&t.pids[1], tids, sizeof(tids));
	t.tgid = pid;
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	tsnl_drain(self->fd, count, &t);
	for (int i = 0; i < t.n; i++)
		EXPECT_EQ(1, t.pid_records[i]);
	EXPECT_EQ(1, t.tgid_records);
}

static pid_t exit_on_cpu(int cpu)
{
	pid_t pid = fork();

	if (pid == 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			_exit(1);
		sched_yield();
		_exit(0);
	}
	return pid;
}

TEST_F(sem, a_cpu_not_in_the_mask_reports_nothing)
{
	struct tally t = { .n = 2 };
	int status;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two online CPUs");
	ASSERT_EQ(0, tsnl_cpumask(self->fd, self->family,
				  TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0"));
	t.pids[0] = exit_on_cpu(1);
	ASSERT_EQ(t.pids[0], waitpid(t.pids[0], &status, 0));
	ASSERT_EQ(0, status);
	t.pids[1] = exit_on_cpu(0);
	ASSERT_EQ(t.pids[1], waitpid(t.pids[1], &status, 0));
	ASSERT_EQ(0, status);
	tsnl_drain(self->fd, count, &t);
	EXPECT_EQ(0, t.pid_records[0]);
	EXPECT_EQ(1, t.pid_records[1]);
}

TEST_F(sem, deregistering_one_cpu_keeps_the_others)
{
	struct tally t = { .n = 2 };

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two online CPUs");
	ASSERT_EQ(0, tsnl_cpumask(self->fd, self->family,
				  TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0-1"));
	ASSERT_EQ(0, tsnl_cpumask(self->fd, self->family,
				  TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, "1"));
	t.pids[0] = exit_on_cpu(1);
	ASSERT_EQ(t.pids[0], waitpid(t.pids[0], NULL, 0));
	t.pids[1] = exit_on_cpu(0);
	ASSERT_EQ(t.pids[1], waitpid(t.pids[1], NULL, 0));
	tsnl_drain(self->fd, count, &t);
	EXPECT_EQ(0, t.pid_records[0]);
	EXPECT_EQ(1, t.pid_records[1]);
}

TEST_F(sem, a_listener_closed_without_deregistering_does_not_block_others)
{
	struct tally t = { .n = 2 };
	int gone;

	gone = tsnl_open();
	ASSERT_LE(0, gone);
	ASSERT_EQ(0, listen_all(self, gone));
	close(gone);
	ASSERT_EQ(0, listen_all(self, self->fd));
	for (int i = 0; i < t.n; i++) {
		t.pids[i] = exit_now();
		ASSERT_LE(0, t.pids[i]);
		ASSERT_EQ(t.pids[i], waitpid(t.pids[i], NULL, 0));
	}
	tsnl_drain(self->fd, count, &t);
	EXPECT_EQ(1, t.pid_records[0]);
	EXPECT_EQ(1, t.pid_records[1]);
}

TEST_HARNESS_MAIN
