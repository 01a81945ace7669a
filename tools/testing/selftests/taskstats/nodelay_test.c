// SPDX-License-Identifier: GPL-2.0
/*
 * Delay accounting switched off (kernel.task_delayacct = 0): a task forked
 * then has no delay record, and every class but cpu stays zero; the cpu
 * class, which the scheduler counts either way, keeps its extremes across
 * a switch; and racing writers of the switch leave accounting as the
 * sysctl reads. Accounting on, class by class: delay_test.c.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/klog.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "delay_work.h"
#include "tsnl.h"

FIXTURE(nodelay) {
	int fd;
	uint16_t family;
	char cpus[256];
	char old_delayacct[16];
};

FIXTURE_SETUP(nodelay)
{
	const char *why;
	int err;

	why = listen_with_delayacct(&self->fd, &self->family, self->cpus,
				    sizeof(self->cpus), self->old_delayacct,
				    sizeof(self->old_delayacct), "0", &err);
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, err);
}

FIXTURE_TEARDOWN(nodelay)
{
	if (self->old_delayacct[0])
		ts_write_file(DELAYACCT, self->old_delayacct);
	close(self->fd);
}

/*
 * With kernel.task_delayacct = 0 at fork the task has no delay record: all
 * classes stay 0. The CPU fields come from sched_info (CONFIG_SCHED_INFO)
 * and are filled before delayacct_add_tsk() looks at tsk->delays, so they
 * still count.
 */
TEST_F_TIMEOUT(nodelay, switched_off_every_class_but_cpu_stays_zero, 60)
{
	struct taskstats ts;
	pid_t rival;

	rival = fork();
	ASSERT_LE(0, rival);
	if (rival == 0) {
		spin((void *)400L);
		_exit(0);
	}
	ASSERT_EQ(0, run_child(self->fd, cow_after_fork, NULL, &ts));
	kill(rival, SIGKILL);
	waitpid(rival, NULL, 0);
	EXPECT_EQ(0ULL, ts.blkio_count + ts.blkio_delay_total);
	EXPECT_EQ(0ULL, ts.swapin_count + ts.swapin_delay_total);
	EXPECT_EQ(0ULL, ts.freepages_count + ts.freepages_delay_total);
	EXPECT_EQ(0ULL, ts.thrashing_count + ts.thrashing_delay_total);
	EXPECT_EQ(0ULL, ts.compact_count + ts.compact_delay_total);
	EXPECT_EQ(0ULL, ts.wpcopy_count + ts.wpcopy_delay_total);
	EXPECT_EQ(0ULL, ts.irq_count + ts.irq_delay_total);
	EXPECT_LT(0ULL, ts.cpu_count);
	EXPECT_LT(0ULL, ts.cpu_run_virtual_total);
	EXPECT_LT(0ULL, ts.ac_minflt);
}

/*
 * The cpu class is counted whether accounting is on or off, and so are
 * its extremes: waits of ~30 ms behind a heavier spinner while it is off,
 * then none once it is on, leave a maximum of ~30 ms and an average below
 * it. Upstream kept the extremes only while on: its maximum was the
 * microseconds after the switch, below the average.
 */
TEST_F_TIMEOUT(nodelay, waits_while_switched_off_still_bound_the_average, 60)
{
	struct taskstats ts;
	pid_t rival, child;
	int stop[2];
	char c;

	if (!ts_kernel_dumps())
		SKIP(return, TS_NO_DUMP "cpu extremes only while on");
	ASSERT_EQ(0, pipe(stop));
	rival = fork();
	ASSERT_LE(0, rival);
	if (rival == 0) {
		spin((void *)60000L);
		_exit(0);
	}
	child = fork();
	ASSERT_LE(0, child);
	if (child == 0) {
		/* A tenth of the rival's weight: it waits ~10 slices at a time. */
		setpriority(PRIO_PROCESS, 0, 10);
		fcntl(stop[0], F_SETFL, O_NONBLOCK);
		pin(0);
		while (read(stop[0], &c, 1) != 1)
			;
		spin((void *)50L);
		_exit(0);
	}
	/* Every long wait ends while accounting is off. */
	usleep(600000);
	kill(rival, SIGKILL);
	waitpid(rival, NULL, 0);
	usleep(50000);
	ASSERT_EQ(0, ts_write_file(DELAYACCT, "1"));
	ASSERT_EQ(1, write(stop[1], "x", 1));
	ASSERT_EQ(child, waitpid(child, NULL, 0));
	ASSERT_EQ(0, ts_exit_record(self->fd, child, &ts));
	TH_LOG("cpu: count %llu total %llu min %llu max %llu",
	       (unsigned long long)ts.cpu_count, (unsigned long long)ts.cpu_delay_total,
	       (unsigned long long)ts.cpu_delay_min, (unsigned long long)ts.cpu_delay_max);
	ASSERT_LT(0ULL, ts.cpu_count);
	EXPECT_LE(ts.cpu_delay_total / ts.cpu_count, ts.cpu_delay_max);
	/* Zero waits count but are no minimum: see delay_test.c's check_class(). */
	EXPECT_LT(0ULL, ts.cpu_delay_min);
	EXPECT_LE(ts.cpu_delay_min, ts.cpu_delay_max);
	EXPECT_LE(10000000ULL, ts.cpu_delay_max);
	/* The scheduler's total counts with accounting off, as the extremes. */
	EXPECT_LE(ts.cpu_delay_max, ts.cpu_delay_total);
	EXPECT_GE(ts.ac_etime * 1000ULL + 1000, ts.cpu_delay_max);
}

/* How many WARNING lines the kernel log holds, or -1. */
static int kernel_warnings(void)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	int n, count = 0;
	char *buf, *p;

	if (size <= 0)
		return -1;
	buf = malloc(size + 1);
	if (!buf)
		return -1;
	n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (n >= 0) {
		buf[n] = '\0';
		for (p = buf; (p = strstr(p, "WARNING:")); p++)
			count++;
	}
	free(buf);
	return n < 0 ? -1 : count;
}

struct switcher {
	pthread_barrier_t *go;
	const char *state;
};

#define SWITCHES	200	/* writes by each writer in a burst */
#define SWITCH_BURSTS	20

static void *switch_delayacct(void *arg)
{
	struct switcher *s = arg;

	pthread_barrier_wait(s->go);
	for (int i = 0; i < SWITCHES; i++)
		ts_write_file(DELAYACCT, s->state);
	return NULL;
}

/*
 * Two writers of kernel.task_delayacct at once, one switching it on over
 * and over and one off. Whichever lands last, accounting ends in the
 * state the sysctl reads: a task forked afterwards is accounted (its
 * copy-on-write faults in wpcopy) if and only if it reads 1, and the
 * kernel has nothing to complain about. Upstream set the flag and the
 * static key apart, with no lock: an off landing inside an on found the
 * key half-enabled (a jump label WARNING), or left the flag set with the
 * key off.
 */
TEST_F_TIMEOUT(nodelay, racing_switches_leave_accounting_as_the_sysctl_reads, 180)
{
	int warnings = kernel_warnings(), on_bursts = 0;
	pthread_barrier_t go;
	pthread_t t[2];

	if (!ts_kernel_dumps())
		SKIP(return, TS_NO_DUMP "two writers tear its switch");
	ASSERT_LE(0, warnings);
	for (int burst = 0; burst < SWITCH_BURSTS; burst++) {
		struct switcher s[2] = { { &go, "1" }, { &go, "0" } };
		struct taskstats ts;
		char state[16];

		ASSERT_EQ(0, pthread_barrier_init(&go, NULL, 2));
		for (int i = 0; i < 2; i++)
			ASSERT_EQ(0, pthread_create(&t[i], NULL, switch_delayacct, &s[i]));
		for (int i = 0; i < 2; i++)
			pthread_join(t[i], NULL);
		pthread_barrier_destroy(&go);
		ASSERT_LT(0, ts_read_file(DELAYACCT, state, sizeof(state)));
		ASSERT_EQ(0, run_child(self->fd, cow_after_fork, NULL, &ts));
		if (atoi(state)) {
			on_bursts++;
			EXPECT_LE((uint64_t)COW_PAGES, ts.wpcopy_count)
				TH_LOG("burst %d: reads 1, not accounted", burst);
		} else {
			EXPECT_EQ(0ULL, ts.wpcopy_count)
				TH_LOG("burst %d: reads 0, accounted", burst);
		}
	}
	TH_LOG("%d of %d bursts ended switched on", on_bursts, SWITCH_BURSTS);
	EXPECT_EQ(warnings, kernel_warnings());
}

TEST_HARNESS_MAIN
