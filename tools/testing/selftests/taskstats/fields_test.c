// SPDX-License-Identifier: GPL-2.0
/*
 * Basic accounting fields of struct taskstats, each compared with what the
 * test made its child do or with an independent source (wait(2) status,
 * getrusage(2), /proc).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/acct.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "tsnl.h"

#define PAGE	4096

static uint64_t now_us(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return t.tv_sec * 1000000ULL + t.tv_nsec / 1000;
}

FIXTURE(fields) {
	int fd;
	uint16_t family;
	char cpus[256];
	char buf[TSNL_BUF_SIZE];
};

FIXTURE_SETUP(fields)
{
	int err;

	err = ts_listener_open(&self->fd, &self->family, self->cpus, sizeof(self->cpus));
	ASSERT_LE(0, self->fd);
	if (!self->family && err == -ENOENT)
		SKIP(return, "no TASKSTATS family");
	ASSERT_EQ(0, err);
}

FIXTURE_TEARDOWN(fields)
{
	tsnl_cpumask(self->fd, self->family, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
		     self->cpus);
	close(self->fd);
}

static void idle(void *arg)
{
}

static int exit_with(void *arg)
{
	return (long)arg;
}

static int kill_self(void *arg)
{
	signal((long)arg, SIG_DFL);
	raise((long)arg);
	return 99;
}

static int exec_true(void *arg)
{
	execl("/bin/true", "true", NULL);
	return 127;
}

static int renice(void *arg)
{
	if (setpriority(PRIO_PROCESS, 0, (long)arg))
		return 1;
	return 0;
}

static int set_name(void *arg)
{
	return prctl(PR_SET_NAME, arg) ? 1 : 0;
}

static int set_ids(void *arg)
{
	if (setresgid(2345, 2345, 2345) || setresuid(1234, 1234, 1234))
		return 1;
	return 0;
}

TEST_F(fields, exit_n_is_reported_as_its_wait_status)
{
	struct taskstats ts;
	int status = ts_run_child(self->fd, exit_with, (void *)42L, &ts, NULL);

	ASSERT_LE(0, status);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(42U << 8, ts.ac_exitcode);
	EXPECT_EQ((uint32_t)status, ts.ac_exitcode);
	EXPECT_EQ(0, ts.ac_flag & (AXSIG | ACORE));
}

TEST_F(fields, death_by_a_signal_is_reported_with_axsig)
{
	struct taskstats ts;
	int status = ts_run_child(self->fd, kill_self, (void *)(long)SIGUSR1, &ts, NULL);

	ASSERT_LE(0, status);
	ASSERT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ((uint32_t)SIGUSR1, ts.ac_exitcode);
	EXPECT_EQ((uint32_t)status, ts.ac_exitcode);
	EXPECT_EQ(AXSIG, ts.ac_flag & (AXSIG | ACORE));
}

TEST_F(fields, fork_without_exec_sets_afork)
{
	struct taskstats ts;

	ASSERT_EQ(0, ts_run_child(self->fd, exit_with, (void *)0L, &ts, NULL));
	EXPECT_EQ(AFORK, ts.ac_flag & AFORK);
}

TEST_F(fields, exec_clears_afork_and_renames_the_task)
{
	struct taskstats ts;

	if (access("/bin/true", X_OK))
		SKIP(return, "no /bin/true to exec");
	ASSERT_EQ(0, ts_run_child(self->fd, exec_true, NULL, &ts, NULL));
	EXPECT_EQ(0, ts.ac_flag & AFORK);
	EXPECT_STREQ("true", ts.ac_comm);
}

/* PF_SUPERPRIV: a capable() check that succeeded, here CAP_SYS_NICE. */
TEST_F(fields, using_a_capability_sets_asu)
{
	struct taskstats ts;

	ASSERT_EQ(0, ts_run_child(self->fd, renice, (void *)-5L, &ts, NULL));
	EXPECT_EQ(ASU, ts.ac_flag & ASU);
}

TEST_F(fields, a_child_that_uses_no_capability_has_no_asu)
{
	struct taskstats ts;

	ASSERT_EQ(0, ts_run_child(self->fd, exit_with, (void *)0L, &ts, NULL));
	EXPECT_EQ(0, ts.ac_flag & ASU);
}

TEST_F(fields, nice_is_what_setpriority_set)
{
	struct taskstats ts;

	ASSERT_EQ(0, ts_run_child(self->fd, renice, (void *)13L, &ts, NULL));
	EXPECT_EQ(13, ts.ac_nice);
	ASSERT_EQ(0, ts_run_child(self->fd, renice, (void *)-7L, &ts, NULL));
	EXPECT_EQ((uint8_t)-7, ts.ac_nice);
}

TEST_F(fields, comm_is_what_pr_set_name_set)
{
	struct taskstats ts;

	ASSERT_EQ(0, ts_run_child(self->fd, set_name, "ts-fifteen-char", &ts, NULL));
	EXPECT_STREQ("ts-fifteen-char", ts.ac_comm);
	/* TASK_COMM_LEN is 16: longer names are cut to 15 characters. */
	ASSERT_EQ(0, ts_run_child(self->fd, set_name, "ts-a-much-longer-name", &ts, NULL));
	EXPECT_STREQ("ts-a-much-longe", ts.ac_comm);
}

TEST_F(fields, uid_and_gid_are_the_ones_the_child_switched_to)
{
	struct taskstats ts;

	ASSERT_EQ(0, ts_run_child(self->fd, set_ids, NULL, &ts, NULL));
	EXPECT_EQ(1234U, ts.ac_uid);
	EXPECT_EQ(2345U, ts.ac_gid);
}

TEST_F(fields, pid_ppid_and_tgid_name_the_child)
{
	struct taskstats ts;
	pid_t pid;

	ASSERT_EQ(0, ts_run_child(self->fd, exit_with, (void *)0L, &ts, &pid));
	EXPECT_EQ((uint32_t)pid, ts.ac_pid);
	EXPECT_EQ((uint32_t)getpid(), ts.ac_ppid);
	EXPECT_EQ((uint32_t)pid, ts.ac_tgid);
}

static int tid_pipe[2];

static void *report_tid(void *arg)
{
	pid_t tid = syscall(SYS_gettid);

	if (write(tid_pipe[1], &tid, sizeof(tid)) != sizeof(tid))
		_exit(2);
	for (;;)
		pause();
	return NULL;
}

TEST_F(fields, a_thread_has_its_own_pid_and_its_group_tgid)
{
	struct tsnl_reply r;
	struct taskstats ts;
	pthread_t t;
	pid_t pid, tid;
	int status;

	ASSERT_EQ(0, pipe(tid_pipe));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		if (pthread_create(&t, NULL, report_tid, NULL))
			_exit(1);
		for (;;)
			pause();
	}
	ASSERT_EQ((ssize_t)sizeof(tid), read(tid_pipe[0], &tid, sizeof(tid)));
	ASSERT_EQ(0, tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_PID, tid,
			      &ts, &r, self->buf));
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	EXPECT_NE(pid, tid);
	EXPECT_EQ((uint32_t)tid, ts.ac_pid);
	EXPECT_EQ((uint32_t)pid, ts.ac_tgid);
	EXPECT_EQ((uint32_t)getpid(), ts.ac_ppid);
}

struct sched_case {
	int policy;
	int prio;
};

FIXTURE(policy) {
	int fd;
	uint16_t family;
	char buf[TSNL_BUF_SIZE];
};

FIXTURE_VARIANT(policy) {
	int policy;
	int prio;
};

FIXTURE_VARIANT_ADD(policy, batch) { .policy = SCHED_BATCH };
FIXTURE_VARIANT_ADD(policy, idle) { .policy = SCHED_IDLE };
FIXTURE_VARIANT_ADD(policy, fifo) { .policy = SCHED_FIFO, .prio = 1 };
FIXTURE_VARIANT_ADD(policy, rr) { .policy = SCHED_RR, .prio = 1 };

FIXTURE_SETUP(policy)
{
	self->fd = tsnl_open();
	ASSERT_LE(0, self->fd);
	if (tsnl_family(self->fd, TASKSTATS_GENL_NAME, &self->family))
		SKIP(return, "no TASKSTATS family");
}

FIXTURE_TEARDOWN(policy)
{
	close(self->fd);
}

TEST_F(policy, sched_is_the_policy_the_child_chose)
{
	struct ts_worker w = { 0 };
	struct sched_param sp = { .sched_priority = variant->prio };
	struct tsnl_reply r;
	struct taskstats ts;
	int err;

	ASSERT_EQ(0, ts_worker_start(&w, idle, NULL));
	err = sched_setscheduler(w.pid, variant->policy, &sp) ? errno : 0;
	if (err == EPERM && variant->prio) {
		ts_worker_stop(&w);
		SKIP(return, "real-time policies refused (RT throttling or no RT bandwidth)");
	}
	ASSERT_EQ(0, err);
	ASSERT_EQ(0, tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_PID, w.pid,
			      &ts, &r, self->buf));
	ts_worker_stop(&w);
	EXPECT_EQ(variant->policy, ts.ac_sched);
}

static int sleep_then_exit(void *arg)
{
	usleep((long)arg);
	return 0;
}

TEST_F(fields, etime_lies_within_the_parents_view_of_the_childs_life)
{
	struct taskstats ts;
	uint64_t t0, t1;

	t0 = now_us(CLOCK_MONOTONIC);
	ASSERT_EQ(0, ts_run_child(self->fd, sleep_then_exit, (void *)200000L, &ts, NULL));
	t1 = now_us(CLOCK_MONOTONIC);
	TH_LOG("etime %llu us, parent saw %llu us", (unsigned long long)ts.ac_etime,
	       (unsigned long long)(t1 - t0));
	EXPECT_LE(200000ULL, ts.ac_etime);
	EXPECT_GE(t1 - t0, ts.ac_etime);
}

/* Start time = boot time (/proc/stat btime) + starttime of /proc/PID/stat. */
static int proc_start(pid_t pid, uint64_t *start)
{
	char path[64], buf[4096], *p;
	unsigned long long ticks, btime = 0;

	if (ts_read_file("/proc/stat", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "\nbtime ");
	if (!p)
		return -1;
	btime = strtoull(p + 7, NULL, 10);
	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (ts_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	p = strrchr(buf, ')');
	/* starttime is field 22; field 3 follows ") ". */
	for (int field = 2; p && field < 22; field++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", &ticks) != 1)
		return -1;
	*start = btime + ticks / sysconf(_SC_CLK_TCK);
	return 0;
}

TEST_F(fields, btime_agrees_with_proc_starttime_within_two_seconds)
{
	struct ts_worker w = { 0 };
	struct tsnl_reply r;
	struct taskstats ts;
	uint64_t start;

	ASSERT_EQ(0, ts_worker_start(&w, idle, NULL));
	ASSERT_EQ(0, proc_start(w.pid, &start));
	ASSERT_EQ(0, tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_PID, w.pid,
			      &ts, &r, self->buf));
	ts_worker_stop(&w);
	TH_LOG("btime %u btime64 %llu proc %llu", ts.ac_btime,
	       (unsigned long long)ts.ac_btime64, (unsigned long long)start);
	/* Both sides truncate to whole seconds, each losing up to one. */
	EXPECT_GE(start + 2, ts.ac_btime64);
	EXPECT_LE(start, ts.ac_btime64 + 2);
	EXPECT_EQ(ts.ac_btime64, ts.ac_btime);
}

static int burn(void *arg)
{
	uint64_t end = now_us(CLOCK_MONOTONIC) + (long)arg;
	int fd = open("/dev/null", O_WRONLY);
	char c = 0;

	while (now_us(CLOCK_MONOTONIC) < end) {
		/* Half in the kernel, half in user space. */
		for (int i = 0; i < 200; i++)
			if (write(fd, &c, 1) != 1)
				return 1;
		/* vDSO clock reads run in user space. */
		for (int i = 0; i < 2000; i++)
			now_us(CLOCK_MONOTONIC);
	}
	return 0;
}

TEST_F(fields, cpu_times_agree_with_getrusage_of_the_reaped_child)
{
	struct rusage before, after;
	struct taskstats ts;
	uint64_t ru, acct, tol;

	ASSERT_EQ(0, getrusage(RUSAGE_CHILDREN, &before));
	ASSERT_EQ(0, ts_run_child(self->fd, burn, (void *)300000L, &ts, NULL));
	ASSERT_EQ(0, getrusage(RUSAGE_CHILDREN, &after));
	ru = (after.ru_utime.tv_sec - before.ru_utime.tv_sec) * 1000000ULL +
	     after.ru_utime.tv_usec - before.ru_utime.tv_usec +
	     (after.ru_stime.tv_sec - before.ru_stime.tv_sec) * 1000000ULL +
	     after.ru_stime.tv_usec - before.ru_stime.tv_usec;
	acct = ts.ac_utime + ts.ac_stime;
	TH_LOG("taskstats utime %llu stime %llu, samples %llu of runtime %llu, rusage %llu us",
	       (unsigned long long)ts.ac_utime, (unsigned long long)ts.ac_stime,
	       (unsigned long long)ts.cpu_run_real_total / 1000,
	       (unsigned long long)ts.cpu_run_virtual_total / 1000,
	       (unsigned long long)ru);
	/* Asserted: the SKIP below must not hide a failure of these. */
	ASSERT_LT(0ULL, ts.ac_utime);
	ASSERT_LT(0ULL, ts.ac_stime);
	ASSERT_EQ(ts.ac_utime, ts.ac_utimescaled);
	ASSERT_EQ(ts.ac_stime, ts.ac_stimescaled);
	/*
	 * Delay accounting (if built in: its run times are not zero) reports
	 * the same tick samples of task_cputime() in ns, read just before in
	 * the exit path, so a tick may land in between. That holds however
	 * many ticks were lost, and catches a unit off.
	 */
	if (ts.cpu_run_virtual_total) {
		ASSERT_GE(ts.cpu_run_real_total / 1000 + 10000, acct);
		ASSERT_LE(ts.cpu_run_real_total / 1000, acct + 10000);
	}
	/*
	 * Both come from the same samples, but rusage is scaled to the
	 * precise runtime: allow 10% and 20 ms (a few ticks) of difference.
	 */
	tol = ru / 10 + 20000;
	ASSERT_GE(ru + tol, acct);
	/*
	 * Samples only fall short of the runtime: when the host deschedules
	 * the vCPU, the tick lands late, once for all the periods missed,
	 * while the runtime follows the clock. A loaded host may take most
	 * of them, but not nine in ten: a unit off is a factor of 1000.
	 */
	if (acct + tol < ru) {
		ASSERT_LE(ru, acct * 10);
		SKIP(return, "ticks lost to host preemption: %llu of %llu us sampled",
		     (unsigned long long)acct, (unsigned long long)ru);
	}
}

#define TOUCH_PAGES	1024

static void touch_new_pages(void *arg)
{
	char *p = mmap(NULL, TOUCH_PAGES * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(3);
	madvise(p, TOUCH_PAGES * PAGE, MADV_NOHUGEPAGE);
	for (int i = 0; i < TOUCH_PAGES; i++)
		p[i * PAGE] = 1;
}

/* The record of a worker before (@a) and after (@b) one run of @fn. */
static void around_one_run(struct __test_metadata *_metadata,
			   struct _test_data_fields *self, void (*fn)(void *arg),
			   void *arg, struct taskstats *a, struct taskstats *b)
{
	struct ts_worker w = { 0 };
	struct tsnl_reply r;

	ASSERT_EQ(0, ts_worker_start(&w, fn, arg));
	ASSERT_EQ(0, tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_PID, w.pid,
			      a, &r, self->buf));
	ASSERT_EQ(0, ts_worker_run(&w));
	ASSERT_EQ(0, tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_PID, w.pid,
			      b, &r, self->buf));
	ts_worker_stop(&w);
}

TEST_F(fields, touching_new_pages_counts_a_minor_fault_each)
{
	struct taskstats a, b;

	around_one_run(_metadata, self, touch_new_pages, NULL, &a, &b);
	TH_LOG("minflt %llu -> %llu", (unsigned long long)a.ac_minflt,
	       (unsigned long long)b.ac_minflt);
	EXPECT_LE(a.ac_minflt + TOUCH_PAGES, b.ac_minflt);
	/* Anonymous zero-fill is never a major fault. */
	EXPECT_EQ(a.ac_majflt, b.ac_majflt);
}

static unsigned char cold_sum;

struct cold_file {
	char path[256];
	size_t size;
};

static void touch_cold_file(void *arg)
{
	struct cold_file *cf = arg;
	int fd = open(cf->path, O_RDONLY);
	char *p;

	if (fd < 0)
		_exit(3);
	p = mmap(NULL, cf->size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		_exit(4);
	madvise(p, cf->size, MADV_RANDOM);
	for (size_t i = 0; i < cf->size; i += PAGE)
		cold_sum += p[i];
	munmap(p, cf->size);
	close(fd);
}

TEST_F(fields, faulting_in_a_cold_file_counts_major_faults)
{
	struct cold_file cf = { .size = 4 << 20 };
	const char *dir = getenv("RIG_SCRATCH");
	struct taskstats a, b;
	char *data;
	int fd;

	if (!dir)
		SKIP(return, "RIG_SCRATCH not set: no scratch file system");
	snprintf(cf.path, sizeof(cf.path), "%s/ts-majflt", dir);
	fd = open(cf.path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd);
	data = malloc(cf.size);
	ASSERT_NE(NULL, data);
	memset(data, 0x5a, cf.size);
	ASSERT_EQ((ssize_t)cf.size, write(fd, data, cf.size));
	free(data);
	ASSERT_EQ(0, fsync(fd));
	ASSERT_EQ(0, posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED));
	close(fd);
	around_one_run(_metadata, self, touch_cold_file, &cf, &a, &b);
	unlink(cf.path);
	TH_LOG("majflt %llu -> %llu", (unsigned long long)a.ac_majflt,
	       (unsigned long long)b.ac_majflt);
	EXPECT_LT(a.ac_majflt, b.ac_majflt);
}

static int sleep_often(void *arg)
{
	for (long i = 0; i < (long)arg; i++)
		usleep(1000);
	return 0;
}

TEST_F(fields, context_switches_agree_with_getrusage)
{
	struct rusage before, after;
	struct taskstats ts;
	long nv, niv;

	ASSERT_EQ(0, getrusage(RUSAGE_CHILDREN, &before));
	/*
	 * A sleep whose timer fires before the child reaches schedule() (its
	 * vCPU descheduled by the host) does not switch: 60 for at least 50.
	 */
	ASSERT_EQ(0, ts_run_child(self->fd, sleep_often, (void *)60L, &ts, NULL));
	ASSERT_EQ(0, getrusage(RUSAGE_CHILDREN, &after));
	nv = after.ru_nvcsw - before.ru_nvcsw;
	niv = after.ru_nivcsw - before.ru_nivcsw;
	TH_LOG("taskstats %llu/%llu, rusage %ld/%ld", (unsigned long long)ts.nvcsw,
	       (unsigned long long)ts.nivcsw, nv, niv);
	EXPECT_LE(50ULL, ts.nvcsw);
	/* The record is taken in do_exit(); the final switches come after. */
	EXPECT_GE((uint64_t)nv, ts.nvcsw);
	EXPECT_LE((uint64_t)nv, ts.nvcsw + 3);
	EXPECT_GE((uint64_t)niv, ts.nivcsw);
}

FIXTURE(core) {
	int fd;
	uint16_t family;
	char cpus[256];
	char dir[64];
	char old_pattern[512];
	bool saved;
};

FIXTURE_SETUP(core)
{
	char pattern[128];
	int err;

	err = ts_listener_open(&self->fd, &self->family, self->cpus, sizeof(self->cpus));
	ASSERT_LE(0, self->fd);
	if (!self->family)
		SKIP(return, "no TASKSTATS family");
	ASSERT_EQ(0, err);
	snprintf(self->dir, sizeof(self->dir), "/tmp/ts-core.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	ASSERT_LT(0, ts_read_file("/proc/sys/kernel/core_pattern", self->old_pattern,
				  sizeof(self->old_pattern)));
	self->saved = true;
	snprintf(pattern, sizeof(pattern), "%s/core", self->dir);
	ASSERT_EQ(0, ts_write_file("/proc/sys/kernel/core_pattern", pattern));
}

FIXTURE_TEARDOWN(core)
{
	char path[128];

	if (self->saved)
		ts_write_file("/proc/sys/kernel/core_pattern", self->old_pattern);
	snprintf(path, sizeof(path), "%s/core", self->dir);
	unlink(path);
	rmdir(self->dir);
	close(self->fd);
}

static int dump_core(void *arg)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

	if (setrlimit(RLIMIT_CORE, &rl))
		return 1;
	prctl(PR_SET_DUMPABLE, 1);
	signal(SIGQUIT, SIG_DFL);
	raise(SIGQUIT);
	return 2;
}

TEST_F(core, a_core_dump_is_reported_with_acore_and_0x80)
{
	struct taskstats ts;
	int status;

	status = ts_run_child(self->fd, dump_core, NULL, &ts, NULL);
	tsnl_cpumask(self->fd, self->family, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
		     self->cpus);
	ASSERT_NE(-1, status);
	ASSERT_TRUE(WIFSIGNALED(status));
	if (!WCOREDUMP(status))
		SKIP(return, "the kernel wrote no core file (core dumps unavailable)");
	EXPECT_EQ((uint32_t)(SIGQUIT | 0x80), ts.ac_exitcode);
	EXPECT_EQ((uint32_t)status, ts.ac_exitcode);
	EXPECT_EQ(ACORE | AXSIG, ts.ac_flag & (ACORE | AXSIG));
}

TEST_HARNESS_MAIN
