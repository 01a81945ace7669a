// SPDX-License-Identifier: GPL-2.0
/*
 * How records relate: exit records go once per task to the listeners of
 * the CPU the task exits on, and not to anybody else; a thread group's
 * record counts each of its threads once, one in the middle of its exit
 * or one that exited at its memory cgroup's limit too. What each field of
 * a group's record holds: group_record_test.c.
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
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/acct.h>

#include "../kselftest_harness.h"
#include "semantics.h"
#include "tsnl.h"

#define MAX_PIDS	16

/* What a listener saw of a set of pids. */
struct tally {
	pid_t pids[MAX_PIDS];
	int n;
	int pid_records[MAX_PIDS];
	int agroup[MAX_PIDS];	/* of those, with AGROUP: the group's last */
	int tgid_records;
	pid_t tgid;
};

static void count(const struct tsnl_exit *e, void *arg)
{
	struct tally *t = arg;

	for (int i = 0; i < t->n; i++) {
		if (e->have_pid && e->pid == (uint32_t)t->pids[i]) {
			t->pid_records[i]++;
			t->agroup[i] += !!(e->pid_ts.ac_flag & AGROUP);
		}
	}
	if (e->have_tgid && t->tgid && e->tgid == (uint32_t)t->tgid)
		t->tgid_records++;
}

FIXTURE(sem) {
	struct sem_sock sem;
};

FIXTURE_SETUP(sem)
{
	int err = sem_sock_open(&self->sem);

	ASSERT_LE(0, self->sem.fd);
	if (err)
		SKIP(return, "no TASKSTATS family");
}

FIXTURE_TEARDOWN(sem)
{
	sem_sock_close(&self->sem);
}

static int tid_pipe[2];

/* Reports its tid, then blocks for good. */
static void *thread_main(void *arg)
{
	pid_t tid = syscall(SYS_gettid);

	if (write(tid_pipe[1], &tid, sizeof(tid)) != sizeof(tid))
		_exit(2);
	for (;;)
		pause();
	return NULL;
}

/* A child with @threads blocked threads besides its main one, in @tids. */
static pid_t spawn_group(int threads, pid_t *tids)
{
	pid_t pid;

	if (pipe(tid_pipe))
		return -1;
	pid = fork();
	if (pid == 0) {
		pthread_t t;

		for (int i = 0; i < threads; i++)
			if (pthread_create(&t, NULL, thread_main, NULL))
				_exit(1);
		for (;;)
			pause();
	}
	for (int i = 0; i < threads; i++)
		if (read(tid_pipe[0], &tids[i], sizeof(tids[i])) != sizeof(tids[i]))
			return -1;
	return pid;
}

#define FOLD_FDS	262144

/* The thread of a_thread_is_counted_once_in_its_group_while_it_exits. */
struct fold_thread {
	pid_t tid;
	int err;	/* errno of its setup, or 0 */
	int exiting;	/* set when it is about to exit */
};

/*
 * Sleeps 200 times (200 voluntary switches), then gives itself a file
 * table of its own holding FOLD_FDS descriptors and exits: it closes
 * them in exit_files(), after taskstats_exit() and before it leaves the
 * thread list, which keeps it a while between the two.
 */
static void *fold_thread_main(void *arg)
{
	struct timespec nap = { .tv_nsec = 100 * 1000 };
	struct fold_thread *ft = arg;
	int fd;

	ft->tid = syscall(SYS_gettid);
	for (int i = 0; i < 200; i++)
		nanosleep(&nap, NULL);
	fd = unshare(CLONE_FILES) ? -1 : open("/dev/null", O_RDONLY);
	for (int i = fd + 1; fd >= 0 && i < FOLD_FDS; i++)
		if (dup2(fd, i) < 0)
			fd = -1;
	ft->err = fd < 0 ? errno : 0;
	__atomic_store_n(&ft->exiting, 1, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * An exiting thread is folded into its group's record of exited threads
 * when it is accounted, but stays in the thread list until it has
 * closed its files and more; a TGID GET in between must count it once,
 * not as exited and as live. A group's counts only grow: no GET while
 * the thread exits may show more voluntary switches than one after.
 * The thread's exit record, sent once it is folded, tells which GETs
 * fell in between; some must. The reference counts the thread twice in
 * between.
 */
TEST_F_TIMEOUT(sem, a_thread_is_counted_once_in_its_group_while_it_exits, 120)
{
	struct rlimit fds = { FOLD_FDS, FOLD_FDS };
	struct timespec nap = { .tv_nsec = 1000 * 1000 };
	struct fold_thread ft = {};
	unsigned long long most = 0;
	struct taskstats ts, rec;
	int gets = 0, after = 0, lfd;
	struct tsnl_reply r;
	bool folded = false;
	pthread_t t;

	if (ts_kernel_unfixed())
		SKIP(return, TS_UNFIXED "exiting thread counted twice");
	lfd = tsnl_open();
	ASSERT_LE(0, lfd);
	ASSERT_EQ(0, listen_all(&self->sem, lfd));
	ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &fds));
	ASSERT_EQ(0, pthread_create(&t, NULL, fold_thread_main, &ft));
	while (!__atomic_load_n(&ft.exiting, __ATOMIC_ACQUIRE))
		nanosleep(&nap, NULL);
	ASSERT_EQ(0, ft.err);
	/* Until the thread has left the thread list. */
	while (!syscall(SYS_tgkill, getpid(), ft.tid, 0)) {
		/* Its record queued before this GET: folded before it too. */
		folded = folded || !ts_exit_record(lfd, ft.tid, &rec);
		ASSERT_EQ(0, tsnl_get(self->sem.fd, self->sem.family, TASKSTATS_CMD_ATTR_TGID,
				      getpid(), &ts, &r, self->sem.buf));
		if (ts.nvcsw > most)
			most = ts.nvcsw;
		gets++;
		after += folded;
	}
	ASSERT_EQ(ESRCH, errno);
	ASSERT_EQ(0, pthread_join(t, NULL));
	close(lfd);
	ASSERT_EQ(0, tsnl_get(self->sem.fd, self->sem.family, TASKSTATS_CMD_ATTR_TGID,
			      getpid(), &ts, &r, self->sem.buf));
	TH_LOG("nvcsw: at most %llu in %d GETs while the thread exited, %llu after",
	       most, gets, (unsigned long long)ts.nvcsw);
	TH_LOG("%d of those GETs came after its exit record", after);
	ASSERT_LE(200ULL, ts.nvcsw);
	EXPECT_LT(0, after);
	EXPECT_LE(most, ts.nvcsw);
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

	ASSERT_EQ(0, listen_all(&self->sem, self->sem.fd));
	for (int i = 0; i < t.n; i++) {
		t.pids[i] = exit_now();
		ASSERT_LE(0, t.pids[i]);
	}
	for (int i = 0; i < t.n; i++)
		ASSERT_EQ(t.pids[i], waitpid(t.pids[i], NULL, 0));
	tsnl_drain(self->sem.fd, count, &t);
	/* Each is its process's last thread: AGROUP, yet no group record. */
	for (int i = 0; i < t.n; i++) {
		EXPECT_EQ(1, t.pid_records[i]);
		EXPECT_EQ(1, t.agroup[i]);
	}
	EXPECT_EQ(0, t.tgid_records);
}

TEST_F(sem, a_dying_thread_group_adds_one_aggr_tgid_record)
{
	struct tally t = { .n = 4 };
	pid_t tids[3], pid;
	int agroups = 0;

	ASSERT_EQ(0, listen_all(&self->sem, self->sem.fd));
	pid = spawn_group(3, tids);
	ASSERT_LT(0, pid);
	t.pids[0] = pid;
	memcpy(&t.pids[1], tids, sizeof(tids));
	t.tgid = pid;
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	tsnl_drain(self->sem.fd, count, &t);
	for (int i = 0; i < t.n; i++) {
		EXPECT_EQ(1, t.pid_records[i]);
		agroups += t.agroup[i];
	}
	EXPECT_EQ(1, t.tgid_records);
	/* Only the last of the four to exit, whichever it was, ends the group. */
	EXPECT_EQ(1, agroups);
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
	ASSERT_EQ(0, tsnl_cpumask(self->sem.fd, self->sem.family,
				  TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0"));
	t.pids[0] = exit_on_cpu(1);
	ASSERT_EQ(t.pids[0], waitpid(t.pids[0], &status, 0));
	ASSERT_EQ(0, status);
	t.pids[1] = exit_on_cpu(0);
	ASSERT_EQ(t.pids[1], waitpid(t.pids[1], &status, 0));
	ASSERT_EQ(0, status);
	tsnl_drain(self->sem.fd, count, &t);
	EXPECT_EQ(0, t.pid_records[0]);
	EXPECT_EQ(1, t.pid_records[1]);
}

#define SEQ_EXITS	20

/* The numbers of the exit messages heard, in the order they came. */
struct seqs {
	uint32_t seq[4096];
	int n;			/* all of them, if below the array's size */
};

static void note_seq(const struct tsnl_exit *e, void *arg)
{
	struct seqs *q = arg;

	if (q->n < (int)ARRAY_SIZE(q->seq))
		q->seq[q->n++] = e->seq;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Exit messages are numbered per CPU, one after another: a listener that
 * hears every exit of a CPU sees no number missing (a gap would be a
 * lost message) and none twice. Their order in the queue may differ from
 * their numbers' if an exiting task was preempted between the two.
 */
TEST_F(sem, exit_messages_of_one_cpu_are_numbered_without_a_gap)
{
	struct seqs q = { 0 };
	int status;

	ASSERT_EQ(0, tsnl_cpumask(self->sem.fd, self->sem.family,
				  TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0"));
	for (int i = 0; i < SEQ_EXITS; i++) {
		pid_t pid = exit_on_cpu(0);

		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		ASSERT_EQ(0, status);
	}
	tsnl_drain(self->sem.fd, note_seq, &q);
	ASSERT_LE(SEQ_EXITS, q.n);
	ASSERT_GT((int)ARRAY_SIZE(q.seq), q.n);
	qsort(q.seq, q.n, sizeof(q.seq[0]), cmp_u32);
	for (int i = 1; i < q.n; i++)
		EXPECT_EQ(q.seq[i - 1] + 1, q.seq[i]);
}

TEST_F(sem, deregistering_one_cpu_keeps_the_others)
{
	struct tally t = { .n = 2 };

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(return, "needs two online CPUs");
	ASSERT_EQ(0, tsnl_cpumask(self->sem.fd, self->sem.family,
				  TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0-1"));
	ASSERT_EQ(0, tsnl_cpumask(self->sem.fd, self->sem.family,
				  TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, "1"));
	t.pids[0] = exit_on_cpu(1);
	ASSERT_EQ(t.pids[0], waitpid(t.pids[0], NULL, 0));
	t.pids[1] = exit_on_cpu(0);
	ASSERT_EQ(t.pids[1], waitpid(t.pids[1], NULL, 0));
	tsnl_drain(self->sem.fd, count, &t);
	EXPECT_EQ(0, t.pid_records[0]);
	EXPECT_EQ(1, t.pid_records[1]);
}

TEST_F(sem, a_listener_closed_without_deregistering_does_not_block_others)
{
	struct tally t = { .n = 2 };
	int gone;

	gone = tsnl_open();
	ASSERT_LE(0, gone);
	ASSERT_EQ(0, listen_all(&self->sem, gone));
	close(gone);
	ASSERT_EQ(0, listen_all(&self->sem, self->sem.fd));
	for (int i = 0; i < t.n; i++) {
		t.pids[i] = exit_now();
		ASSERT_LE(0, t.pids[i]);
		ASSERT_EQ(t.pids[i], waitpid(t.pids[i], NULL, 0));
	}
	tsnl_drain(self->sem.fd, count, &t);
	EXPECT_EQ(1, t.pid_records[0]);
	EXPECT_EQ(1, t.pid_records[1]);
}

/* ------------------------------------------------------------------ limit */

/*
 * A thread group in a memory cgroup at its limit, next to a filler that
 * brought it there: memory shared by the test's processes, polled. (A
 * pipe would not do: its buffer is charged, and fails once the cgroup is
 * full.)
 */
struct limit_shm {
	int stage;		/* LIMIT_*, stored and loaded atomically */
	uint64_t runs;		/* the first thread's runqueue arrivals so far */
	long filled;		/* bytes the filler wrote */
	int fill_errno;		/* why its last write failed */
};

enum { LIMIT_READY = 1, LIMIT_FULL, LIMIT_EXIT, LIMIT_JOINED };

#define LIMIT_MAX	(512L << 20)	/* the filler gives up here */

FIXTURE(limit) {
	int fd;
	uint16_t family;
	char delayacct[8];	/* kernel.task_delayacct before, "" if none */
	char cgroup[256];
	char subtree[300];	/* where ts_memcg_make() enabled memory */
	struct limit_shm *shm;
	pid_t proc, filler;
	char buf[TSNL_BUF_SIZE];
};

FIXTURE_SETUP(limit)
{
	char name[48], path[320];
	int err;

	self->shm = mmap(NULL, sizeof(*self->shm), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->shm);
	self->fd = tsnl_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, tsnl_family(self->fd, TASKSTATS_GENL_NAME, &self->family));
	/* The reference counts a thread's delays only with accounting on. */
	if (ts_read_file(DELAYACCT, self->delayacct, sizeof(self->delayacct)) > 0)
		ASSERT_EQ(0, ts_write_file(DELAYACCT, "1"));
	snprintf(name, sizeof(name), "ts-sem-limit-%d", getpid());
	err = ts_memcg_make(name, self->cgroup, sizeof(self->cgroup),
			    self->subtree, sizeof(self->subtree));
	if (err == -ENOENT)
		SKIP(return, "no memory controller in cgroup v2");
	ASSERT_EQ(0, err);
	snprintf(path, sizeof(path), "%s/memory.swap.max", self->cgroup);
	if (access(path, F_OK))
		SKIP(return, "no memory.swap.max: the filler's pages could be swapped out");
	ASSERT_EQ(0, ts_write_file(path, "0"));
}

FIXTURE_TEARDOWN(limit)
{
	pid_t pids[] = { self->proc, self->filler };

	for (size_t i = 0; i < ARRAY_SIZE(pids); i++) {
		if (pids[i] <= 0)
			continue;
		kill(pids[i], SIGKILL);
		waitpid(pids[i], NULL, 0);
	}
	if (self->cgroup[0])
		rmdir(self->cgroup);
	if (self->subtree[0])
		ts_write_file(self->subtree, "-memory");
	if (self->delayacct[0])
		ts_write_file(DELAYACCT, self->delayacct);
	close(self->fd);
	munmap(self->shm, sizeof(*self->shm));
}

static void limit_set(struct limit_shm *shm, int stage)
{
	__atomic_store_n(&shm->stage, stage, __ATOMIC_RELEASE);
}

/* Waits up to 20 s for @shm to reach @stage. */
static bool limit_reached(struct limit_shm *shm, int stage)
{
	struct timespec nap = { .tv_nsec = 1000 * 1000 };

	for (int i = 0; i < 20000; i++) {
		if (__atomic_load_n(&shm->stage, __ATOMIC_ACQUIRE) >= stage)
			return true;
		nanosleep(&nap, NULL);
	}
	return false;
}

/* Joins @cgroup, where the OOM killer is to find nobody to kill. */
static int limit_join(const char *cgroup)
{
	char path[320], pid[16];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	snprintf(pid, sizeof(pid), "%d", getpid());
	return ts_write_file("/proc/self/oom_score_adj", "-1000") ||
	       ts_write_file(path, pid);
}

/*
 * The thread that exits first: it sleeps 100 times, reads its runqueue
 * arrivals (the cpu class's count, schedstat's third field), and exits
 * when told to, once the cgroup is full. A sleep whose timer fires
 * before the thread has switched out ends without an arrival (seen
 * under TCG), so the count is read, not assumed to be 100.
 */
static void *limit_thread(void *arg)
{
	struct timespec nap = { .tv_nsec = 100 * 1000 };
	unsigned long long run, wait, runs;
	struct limit_shm *shm = arg;
	char buf[128];

	for (int i = 0; i < 100; i++)
		nanosleep(&nap, NULL);
	if (ts_read_file("/proc/thread-self/schedstat", buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%llu %llu %llu", &run, &wait, &runs) != 3)
		return (void *)1;
	shm->runs = runs;
	limit_set(shm, LIMIT_READY);
	while (__atomic_load_n(&shm->stage, __ATOMIC_ACQUIRE) < LIMIT_EXIT)
		nanosleep(&nap, NULL);
	return NULL;
}

static int limit_proc(const char *cgroup, struct limit_shm *shm)
{
	pthread_t t;
	void *ret;

	if (limit_join(cgroup))
		return 1;
	if (pthread_create(&t, NULL, limit_thread, shm) || pthread_join(t, &ret) || ret)
		return 2;
	limit_set(shm, LIMIT_JOINED);
	for (;;)
		pause();
}

/* Writes a memfd (shmem, charged, unswappable here) until it fails. */
static int limit_fill(const char *cgroup, struct limit_shm *shm)
{
	static char chunk[64 << 10];
	ssize_t n;
	int fd;

	memset(chunk, 'x', sizeof(chunk));
	if (limit_join(cgroup))
		return 1;
	fd = memfd_create("ts-sem-limit", MFD_CLOEXEC);
	if (fd < 0)
		return 2;
	do {
		n = write(fd, chunk, sizeof(chunk));
		if (n > 0)
			shm->filled += n;
	} while (n > 0 && shm->filled < LIMIT_MAX);
	shm->fill_errno = n < 0 ? errno : 0;
	limit_set(shm, LIMIT_FULL);
	for (;;)
		pause();
}

/*
 * The first thread of a group to exit allocates the group's record of
 * exited threads, charged to the group's memory cgroup. At the cgroup's
 * limit a dying task's charge fails (after an OOM attempt that finds
 * nobody to kill here), and with it the record: the thread would be
 * missing from every later record of its group. A user can bring its
 * own cgroup there. The group's record must still count the thread's
 * runqueue arrivals. The reference does not charge the record, and
 * passes as well.
 */
TEST_F_TIMEOUT(limit, a_thread_exiting_at_its_memory_cgroups_limit_still_counts_in_its_group, 60)
{
	char path[320], now[32], max[32];
	struct taskstats leader, group;
	struct tsnl_reply r;

	self->proc = fork();
	ASSERT_LE(0, self->proc);
	if (self->proc == 0)
		_exit(limit_proc(self->cgroup, self->shm));
	ASSERT_TRUE(limit_reached(self->shm, LIMIT_READY));

	/* Room for 4 MiB more, which the filler takes. */
	snprintf(path, sizeof(path), "%s/memory.current", self->cgroup);
	ASSERT_LT(0, ts_read_file(path, now, sizeof(now)));
	snprintf(max, sizeof(max), "%lld", atoll(now) + (4LL << 20));
	snprintf(path, sizeof(path), "%s/memory.max", self->cgroup);
	ASSERT_EQ(0, ts_write_file(path, max));
	self->filler = fork();
	ASSERT_LE(0, self->filler);
	if (self->filler == 0)
		_exit(limit_fill(self->cgroup, self->shm));
	ASSERT_TRUE(limit_reached(self->shm, LIMIT_FULL));
	TH_LOG("memory.max %s: the filler wrote %ld bytes, then %s", max,
	       self->shm->filled, strerror(self->shm->fill_errno));
	ASSERT_EQ(ENOMEM, self->shm->fill_errno);

	limit_set(self->shm, LIMIT_EXIT);
	ASSERT_TRUE(limit_reached(self->shm, LIMIT_JOINED));
	ASSERT_EQ(0, tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_PID,
			      self->proc, &leader, &r, self->buf));
	ASSERT_EQ(0, tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_TGID,
			      self->proc, &group, &r, self->buf));
	TH_LOG("cpu_count: exited thread >= %llu, leader %llu, group %llu",
	       (unsigned long long)self->shm->runs,
	       (unsigned long long)leader.cpu_count,
	       (unsigned long long)group.cpu_count);
	/* Enough arrivals that losing the thread shows in the group. */
	ASSERT_LE(50ULL, self->shm->runs);
	EXPECT_LE(self->shm->runs + leader.cpu_count, group.cpu_count);
}

TEST_HARNESS_MAIN
