// SPDX-License-Identifier: GPL-2.0
/*
 * What an exit record the kernel could not allocate costs its listeners:
 * the one it was for gets ENOBUFS, as for a record its full queue
 * dropped, and the others still get theirs; a thread folded into its
 * group at its exit is never lost from the group's sums; a group record
 * that cannot be summed is ENOBUFS for each of its listeners; a group
 * that no listener may hear of allocates nothing at its end.
 *
 * A record the kernel could not allocate: failslab (./config enables it)
 * fails the first slab allocation made under
 * taskstats_exit() by one exiting child, which has set its make-it-fail.
 * A kernel without these rules (the reference: it cannot dump) skips the
 * tests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "agent.h"
#include "tsnl.h"

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
	int done;	/* write end: a struct folded_said, then the leader's 'J' */
};

/*
 * What the thread says before it exits: its tid, and its voluntary
 * switches so far by getrusage(), which its exit record must not count
 * fewer of. A nap whose timer expires before the thread schedules is
 * no switch: the count of naps is no bound.
 */
struct folded_said {
	pid_t tid;
	long nvcsw;
};

static void *folded_thread(void *arg)
{
	const struct folded *f = arg;
	struct timespec nap = { .tv_nsec = 100 * 1000 };
	struct folded_said said = { .tid = gettid() };
	struct rusage ru;
	char c;

	if (ts_write_file("/proc/thread-self/make-it-fail", "1"))
		return (void *)1;
	for (int i = 0; i < f->sleeps; i++)
		nanosleep(&nap, NULL);
	if (getrusage(RUSAGE_THREAD, &ru))
		return (void *)2;
	said.nvcsw = ru.ru_nvcsw;
	if (write(f->done, &said, sizeof(said)) != sizeof(said))
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
	struct folded_said said;
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
	ASSERT_EQ((ssize_t)sizeof(said), read(done[0], &said, sizeof(said)));
	tid = said.tid;
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

	TH_LOG("nvcsw: exited thread %llu (getrusage %ld), leader %llu, group %llu",
	       (unsigned long long)t1.nvcsw, said.nvcsw,
	       (unsigned long long)leader.nvcsw, (unsigned long long)group.nvcsw);
	EXPECT_LT(0, said.nvcsw);
	EXPECT_LE((uint64_t)said.nvcsw, t1.nvcsw);
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

TEST_HARNESS_MAIN
