// SPDX-License-Identifier: GPL-2.0
/*
 * A thread group's record, asked for with a TGID GET while some of its
 * threads live or sent with its last exit: it sums its threads, live and
 * exited, holds their delay extremes and nothing else.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "semantics.h"
#include "tsnl.h"

/* Waits up to 10 s for @tid to be reaped: its exit record is queued by then. */
static int wait_gone(pid_t tid)
{
	for (int i = 0; i < 10000; i++) {
		if (ts_proc_state(tid) < 0)
			return 0;
		usleep(1000);
	}
	return -1;
}

/*
 * A thread group whose threads each do work of their own, different for
 * every thread, then block on a pipe, so that their records stand still
 * while the group's is read. Thread 0 is the leader.
 */
#define GROUP_THREADS	6
#define GROUP_EXITING	2	/* the last ones, which exit before a GET */
#define GROUP_LIVE	(GROUP_THREADS - GROUP_EXITING)

/*
 * Thread i's work: 1 ms sleeps (voluntary switches), CPU time spun, and
 * writes to pages it shares with the test (copy-on-write: wpcopy delays,
 * with kernel.task_delayacct on, which the group fixture turns on).
 */
#define GROUP_SLEEPS(i)		(2 * ((i) + 1))
#define GROUP_SPIN_NS(i)	(4000000ULL * ((i) + 1))
#define GROUP_COW(i)		((i) + 1)
#define GROUP_COW_PAGES		(GROUP_THREADS * (GROUP_THREADS + 1) / 2)

struct group {
	pid_t pid;			/* the tgid */
	pid_t tid[GROUP_THREADS];	/* tid[0] == pid */
	int cmd[GROUP_THREADS];		/* a byte written there ends thread i */
};

/* Pages the test wrote before forking the group: each write there copies. */
static char *group_cow;
static long page_size;

/* The first of thread @i's pages: after those of threads 0 to @i - 1. */
static int group_cow_first(int i)
{
	return i * (i + 1) / 2;
}

/* The group's ends of the pipes. */
static int group_ready_fd;
static int group_cmd_fd[GROUP_THREADS];

struct group_hello {
	int i;
	pid_t tid;
};

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/* Thread i: its work, then it says so and blocks until told to end. */
static void member_main(int i)
{
	struct group_hello h = { .i = i, .tid = syscall(SYS_gettid) };
	struct timespec ms = { .tv_nsec = 1000000 };
	unsigned long spin = 0;
	char c;

	for (int k = 0; k < GROUP_COW(i); k++)
		group_cow[(group_cow_first(i) + k) * page_size] = 2;
	for (int k = 0; k < GROUP_SLEEPS(i); k++)
		nanosleep(&ms, NULL);
	/* Reading the clock is a system call: spin in user mode in between. */
	while (thread_cpu_ns() < GROUP_SPIN_NS(i))
		for (int k = 0; k < 100000; k++)
			__asm__ __volatile__("" : "+r" (spin));
	if (write(group_ready_fd, &h, sizeof(h)) != sizeof(h))
		_exit(1);
	/* A byte, or EOF if the test is gone. */
	if (read(group_cmd_fd[i], &c, 1) < 0)
		_exit(2);
}

static void *group_thread(void *arg)
{
	member_main((int)(long)arg);
	return NULL;		/* this thread alone exits */
}

/* Starts the group; returns once each thread is blocked after its work. */
static int group_start(struct group *g)
{
	int ready[2], cmd[GROUP_THREADS][2];
	struct group_hello h;

	if (!group_cow) {
		page_size = sysconf(_SC_PAGESIZE);
		group_cow = mmap(NULL, GROUP_COW_PAGES * page_size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (group_cow == MAP_FAILED) {
			group_cow = NULL;
			return -errno;
		}
	}
	/* Ours at the fork, so that the group's writes copy them. */
	memset(group_cow, 1, GROUP_COW_PAGES * page_size);
	if (pipe(ready))
		return -errno;
	for (int i = 0; i < GROUP_THREADS; i++)
		if (pipe(cmd[i]))
			return -errno;
	g->pid = fork();
	if (g->pid < 0)
		return -errno;
	if (g->pid == 0) {
		pthread_t t;

		close(ready[0]);
		group_ready_fd = ready[1];
		for (int i = 0; i < GROUP_THREADS; i++) {
			close(cmd[i][1]);
			group_cmd_fd[i] = cmd[i][0];
		}
		for (long i = 1; i < GROUP_THREADS; i++)
			if (pthread_create(&t, NULL, group_thread, (void *)i))
				_exit(3);
		member_main(0);
		_exit(0);	/* the whole group */
	}
	close(ready[1]);
	for (int i = 0; i < GROUP_THREADS; i++) {
		close(cmd[i][0]);
		g->cmd[i] = cmd[i][1];
	}
	for (int n = 0; n < GROUP_THREADS; n++) {
		if (read(ready[0], &h, sizeof(h)) != sizeof(h) ||
		    h.i < 0 || h.i >= GROUP_THREADS) {
			close(ready[0]);
			return -EIO;
		}
		g->tid[h.i] = h.tid;
	}
	close(ready[0]);
	/* After its hello a thread's only sleep is on its command pipe. */
	for (int i = 0; i < GROUP_THREADS; i++)
		if (ts_wait_sleeping(g->tid[i]))
			return -ETIMEDOUT;
	return 0;
}

/* Ends thread @i, not the leader, and waits until it is reaped. */
static int group_end_thread(struct group *g, int i)
{
	if (write(g->cmd[i], "x", 1) != 1)
		return -EIO;
	return wait_gone(g->tid[i]);
}

/* Ends the leader, and so what is left of the group, and reaps it. */
static int group_end(struct group *g)
{
	int status;

	if (write(g->cmd[0], "x", 1) != 1)
		return -EIO;
	if (waitpid(g->pid, &status, 0) != g->pid || status)
		return -ECHILD;
	for (int i = 0; i < GROUP_THREADS; i++)
		close(g->cmd[i]);
	return 0;
}

static void group_kill(struct group *g)
{
	kill(g->pid, SIGKILL);
	waitpid(g->pid, NULL, 0);
	for (int i = 0; i < GROUP_THREADS; i++)
		close(g->cmd[i]);
}

/* The exit records a listener saw of a group. */
struct group_exits {
	const struct group *g;
	int records[GROUP_THREADS];	/* AGGR_PID records of thread i */
	struct taskstats ts[GROUP_THREADS];
	int tgid_records;		/* AGGR_TGID records of the group */
	uint32_t tgid_with;		/* the task whose message carried it */
	int tgid_len;
	struct taskstats tgid_ts;
};

static void group_exit_seen(const struct tsnl_exit *e, void *arg)
{
	struct group_exits *x = arg;

	for (int i = 0; i < GROUP_THREADS; i++) {
		if (e->have_pid && e->pid == (uint32_t)x->g->tid[i]) {
			x->records[i]++;
			x->ts[i] = e->pid_ts;
		}
	}
	if (e->have_tgid && e->tgid == (uint32_t)x->g->pid) {
		x->tgid_records++;
		x->tgid_with = e->have_pid ? e->pid : 0;
		x->tgid_len = e->tgid_len;
		x->tgid_ts = e->tgid_ts;
	}
}

/*
 * A group record and its threads' records: each thread's read before the
 * group's was made and after it. Every summed field of a thread only
 * grows, so the group's value lies between the sums of the two, whatever
 * ticks, switches or delays fell in between: the bounds are readings, and
 * need no tolerance but for rounding (slack_us). The threads being
 * blocked keeps the two close, so that a thread left out or counted twice
 * falls outside.
 */
struct group_view {
	struct taskstats lo[GROUP_THREADS];
	struct taskstats hi[GROUP_THREADS];
	struct taskstats group;
	int group_len;		/* bytes of the group's STATS */
	int slack_us;		/* see GROUP_SUM_US */
	bool final;		/* hi[] are the threads' exit records, all of them */
};

/* The PID record of @tid, on the query socket @q. */
static int get_thread(struct sem_sock *self, int q, pid_t tid,
		      struct taskstats *ts)
{
	struct tsnl_reply r;
	int err = tsnl_get(q, self->family, TASKSTATS_CMD_ATTR_PID, tid, ts, &r,
			   self->buf);

	if (err)
		return err;
	return ts->ac_pid == (uint32_t)tid ? 0 : -EBADMSG;
}

/*
 * A TGID GET of a group of which GROUP_EXITING threads have exited: those
 * are read before they end and in their exit records, which are collected
 * after what they added to signal->stats; the live ones, blocked all along,
 * before and after the GET. The GETs go on a socket of their own, which
 * consumes no exit record.
 */
static void view_tgid_get(struct __test_metadata *_metadata,
			  struct sem_sock *self, struct group_view *v)
{
	struct group_exits x = { 0 };
	struct tsnl_reply r;
	struct group g;
	int q = tsnl_open();

	ASSERT_LE(0, q);
	ASSERT_EQ(0, listen_all(self, self->fd));
	ASSERT_EQ(0, group_start(&g));
	x.g = &g;
	for (int i = 0; i < GROUP_THREADS; i++)
		ASSERT_EQ(0, get_thread(self, q, g.tid[i], &v->lo[i]));
	for (int i = GROUP_LIVE; i < GROUP_THREADS; i++)
		ASSERT_EQ(0, group_end_thread(&g, i));
	tsnl_drain(self->fd, group_exit_seen, &x);
	for (int i = GROUP_LIVE; i < GROUP_THREADS; i++) {
		ASSERT_EQ(1, x.records[i]);
		v->hi[i] = x.ts[i];
	}
	ASSERT_EQ(0, tsnl_get(q, self->family, TASKSTATS_CMD_ATTR_TGID, g.pid,
			      &v->group, &r, self->buf));
	ASSERT_EQ(TASKSTATS_TYPE_AGGR_TGID, r.aggr_type);
	v->group_len = r.stats_len;
	for (int i = 0; i < GROUP_LIVE; i++)
		ASSERT_EQ(0, get_thread(self, q, g.tid[i], &v->hi[i]));
	group_kill(&g);
	close(q);
	/*
	 * The series converts the live threads' nanoseconds to microseconds
	 * once for their sum, upstream once per thread, as the PID records
	 * do: rounding their sum down rather than each thread loses less than
	 * 1 us per live thread, so the series may exceed the sum of the PID
	 * records by GROUP_LIVE - 1 us at most.
	 */
	v->slack_us = GROUP_LIVE - 1;
	v->final = false;
}

/*
 * The group record of the last exit, with each thread read before any
 * thread ends and in its exit record, filled after the thread added
 * itself to signal->stats. With @together the threads end at once: the
 * leader's exit_group() kills the others, blocked where they were; else
 * one at a time, the leader last.
 *
 * A thread decides whether it is the group's last before it adds itself
 * in, so of threads exiting together the last may send the group's
 * record before another has added itself. The reference then leaves
 * that thread out of the record; the series sums the group as a GET does,
 * live threads not yet added included.
 */
static void view_exits(struct __test_metadata *_metadata,
		       struct sem_sock *self, struct group_view *v,
		       bool together)
{
	struct group_exits x = { 0 };
	struct group g;
	bool with_member = false;
	int q = tsnl_open();

	ASSERT_LE(0, q);
	ASSERT_EQ(0, listen_all(self, self->fd));
	ASSERT_EQ(0, group_start(&g));
	x.g = &g;
	for (int i = 0; i < GROUP_THREADS; i++)
		ASSERT_EQ(0, get_thread(self, q, g.tid[i], &v->lo[i]));
	close(q);
	for (int i = GROUP_THREADS - 1; i > 0 && !together; i--)
		ASSERT_EQ(0, group_end_thread(&g, i));
	ASSERT_EQ(0, group_end(&g));
	tsnl_drain(self->fd, group_exit_seen, &x);
	for (int i = 0; i < GROUP_THREADS; i++) {
		ASSERT_EQ(1, x.records[i]);
		v->hi[i] = x.ts[i];
		with_member |= x.tgid_with == (uint32_t)g.tid[i];
	}
	ASSERT_EQ(1, x.tgid_records);
	/* In the message of the group's last task: one at a time, its leader. */
	ASSERT_TRUE(with_member);
	ASSERT_TRUE(together || x.tgid_with == (uint32_t)g.pid);
	v->group = x.tgid_ts;
	v->group_len = x.tgid_len;
	/*
	 * Every thread was rounded to microseconds alone, on both kernels,
	 * except those the series sums at the last exit: as for a GET (see
	 * view_tgid_get()), at most one microsecond each but one.
	 */
	v->slack_us = together ? GROUP_THREADS - 1 : 0;
	v->final = true;
}

static void view_last_exit(struct __test_metadata *_metadata,
			   struct sem_sock *self, struct group_view *v)
{
	view_exits(_metadata, self, v, false);
}

static void view_exit_together(struct __test_metadata *_metadata,
			       struct sem_sock *self, struct group_view *v)
{
	view_exits(_metadata, self, v, true);
}

/* How a group's record relates to its threads' records, field by field. */
enum group_rule {
	GROUP_ZERO,		/* zero, whatever the threads hold */
	GROUP_VERSION,		/* the kernel's, as in every record */
	GROUP_SUM,		/* the threads' values added */
	GROUP_SUM_US,		/* added, in microseconds: v->slack_us */
	GROUP_MAX,		/* the largest of the threads' */
	GROUP_MIN,		/* the smallest non-zero one */
	GROUP_MAX_TS,		/* the time of that largest maximum */
};

struct field {
	const char *name;
	int offset;
	int size;
	int version;	/* the first version with the field */
};

static const struct field fields[] = {
#define FIELD(f, o, s, v) { .name = #f, .offset = (o), .size = (s), .version = (v) },
#include "abi_fields.h"
#undef FIELD
};

/* The counts and totals of every delay class, the run totals, switches. */
static const char *const summed[] = {
	"cpu_count", "cpu_delay_total", "blkio_count", "blkio_delay_total",
	"swapin_count", "swapin_delay_total", "freepages_count",
	"freepages_delay_total", "thrashing_count", "thrashing_delay_total",
	"compact_count", "compact_delay_total", "wpcopy_count",
	"wpcopy_delay_total", "irq_count", "irq_delay_total",
	"cpu_run_real_total", "cpu_run_virtual_total",
	"cpu_scaled_run_real_total", "nvcsw", "nivcsw",
};

static bool ends_with(const char *s, const char *end)
{
	size_t n = strlen(s), m = strlen(end);

	return n >= m && !strcmp(s + n - m, end);
}

/* The rule of Documentation/accounting/taskstats.rst, "Thread group records". */
static enum group_rule group_rule(const struct field *f)
{
	if (!strcmp(f->name, "version"))
		return GROUP_VERSION;
	if (!strcmp(f->name, "ac_etime") || !strcmp(f->name, "ac_utime") ||
	    !strcmp(f->name, "ac_stime"))
		return GROUP_SUM_US;
	for (size_t i = 0; i < ARRAY_SIZE(summed); i++)
		if (!strcmp(f->name, summed[i]))
			return GROUP_SUM;
	if (ends_with(f->name, "_delay_max"))
		return GROUP_MAX;
	if (ends_with(f->name, "_delay_min"))
		return GROUP_MIN;
	if (ends_with(f->name, "_delay_max_ts"))
		return GROUP_MAX_TS;
	return GROUP_ZERO;
}

/* Whether the kernel sent @f: a reference record ends at version 14's. */
static bool field_sent(const struct group_view *v, const struct field *f)
{
	return f->offset + f->size <= v->group_len;
}

static const void *field_at(const struct taskstats *ts, const struct field *f)
{
	return (const char *)ts + f->offset;
}

static uint64_t field_u64(const struct taskstats *ts, const struct field *f)
{
	uint64_t v;

	memcpy(&v, field_at(ts, f), sizeof(v));
	return v;
}

static bool field_zero(const struct taskstats *ts, const struct field *f)
{
	const unsigned char *p = field_at(ts, f);

	for (int i = 0; i < f->size; i++)
		if (p[i])
			return false;
	return true;
}

static const struct field *field_named(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (!strcmp(fields[i].name, name))
			return &fields[i];
	return NULL;
}

/* Counts and totals: between the threads' sums before and after. */
static void expect_sums(struct __test_metadata *_metadata,
			const struct group_view *v)
{
	for (size_t k = 0; k < ARRAY_SIZE(fields); k++) {
		const struct field *f = &fields[k];
		enum group_rule rule = group_rule(f);
		uint64_t lo = 0, hi = 0, g;

		if ((rule != GROUP_SUM && rule != GROUP_SUM_US) || !field_sent(v, f))
			continue;
		for (int i = 0; i < GROUP_THREADS; i++) {
			lo += field_u64(&v->lo[i], f);
			hi += field_u64(&v->hi[i], f);
		}
		if (rule == GROUP_SUM_US)
			hi += v->slack_us;
		g = field_u64(&v->group, f);
		EXPECT_LE(lo, g)
			TH_LOG("%s: below the sum of the threads before it", f->name);
		EXPECT_GE(hi, g)
			TH_LOG("%s: above the sum of the threads after it", f->name);
	}
	EXPECT_EQ(v->lo[0].version, v->group.version);
}

/* The work each thread did, which the group's record must hold. */
static void expect_work(struct __test_metadata *_metadata,
			const struct group_view *v)
{
	uint64_t spun = 0, sleeps = 0;
	char on[8] = "";

	ts_read_file(DELAYACCT, on, sizeof(on));
	for (int i = 0; i < GROUP_THREADS; i++) {
		spun += GROUP_SPIN_NS(i);
		sleeps += GROUP_SLEEPS(i);
		TH_LOG("thread %d: nvcsw %llu, utime %llu us, ran %llu ns, wpcopy %llu", i,
		       (unsigned long long)v->lo[i].nvcsw,
		       (unsigned long long)v->lo[i].ac_utime,
		       (unsigned long long)v->lo[i].cpu_run_virtual_total,
		       (unsigned long long)v->lo[i].wpcopy_count);
		/* Its copies, so that the delay classes' rules check numbers. */
		if (on[0] == '1')
			EXPECT_LE((uint64_t)GROUP_COW(i), v->lo[i].wpcopy_count);
	}
	TH_LOG("group: nvcsw %llu (%llu sleeps), utime %llu us, ran %llu ns",
	       (unsigned long long)v->group.nvcsw, (unsigned long long)sleeps,
	       (unsigned long long)v->group.ac_utime,
	       (unsigned long long)v->group.cpu_run_virtual_total);
	/*
	 * The run time is the scheduler's sum_exec_runtime, which
	 * CLOCK_THREAD_CPUTIME_ID reads: each thread ran at least what it
	 * spun, exactly, and so did the group.
	 */
	EXPECT_LE(spun, v->group.cpu_run_virtual_total);
}

/* The minimum of @f over the threads' records, ignoring zeros; 0 if none. */
static uint64_t min_nonzero(const struct taskstats *ts, const struct field *f)
{
	uint64_t m = 0;

	for (int i = 0; i < GROUP_THREADS; i++) {
		uint64_t x = field_u64(&ts[i], f);

		if (x && (!m || x < m))
			m = x;
	}
	return m;
}

static uint64_t max_of(const struct taskstats *ts, const struct field *f)
{
	uint64_t m = 0;

	for (int i = 0; i < GROUP_THREADS; i++)
		if (field_u64(&ts[i], f) > m)
			m = field_u64(&ts[i], f);
	return m;
}

/*
 * The time of the group's maximum @m is that of a thread holding it.
 * Only a larger maximum moves a thread's time, so a thread read with the
 * group's value before or after it still had that value's time.
 */
static void expect_max_time(struct __test_metadata *_metadata,
			    const struct group_view *v, const struct field *m)
{
	char name[64];
	const struct field *t;
	uint64_t g = field_u64(&v->group, m);
	bool held = false, same = false;

	snprintf(name, sizeof(name), "%s_ts", m->name);
	t = field_named(name);
	if (!t || !field_sent(v, t))
		return;
	if (!g) {
		EXPECT_TRUE(field_zero(&v->group, t))
			TH_LOG("%s: a time without a maximum", t->name);
		return;
	}
	for (int i = 0; i < GROUP_THREADS; i++) {
		const struct taskstats *read[] = { &v->lo[i], &v->hi[i] };

		for (int j = 0; j < 2; j++) {
			if (field_u64(read[j], m) != g)
				continue;
			held = true;
			if (!memcmp(field_at(read[j], t), field_at(&v->group, t),
				    t->size))
				same = true;
		}
	}
	/* Every thread's final record was read: one of them holds it. */
	if (v->final)
		ASSERT_TRUE(held)
			TH_LOG("%s: %llu is no thread's", m->name, (unsigned long long)g);
	if (!held) {
		TH_LOG("%s: no thread was read holding %llu, its time unchecked",
		       m->name, (unsigned long long)g);
		return;
	}
	EXPECT_TRUE(same)
		TH_LOG("%s: not the time of a thread holding the maximum", t->name);
}

/*
 * Maxima and minima: a thread's maximum only grows and its non-zero
 * minimum only shrinks, so the group's lies between the extremes of the
 * threads before and after it.
 */
static void expect_extremes(struct __test_metadata *_metadata,
			    const struct group_view *v)
{
	for (size_t k = 0; k < ARRAY_SIZE(fields); k++) {
		const struct field *f = &fields[k];
		uint64_t g = field_u64(&v->group, f), lo, hi;

		if (!field_sent(v, f))
			continue;
		switch (group_rule(f)) {
		case GROUP_MAX:
			lo = max_of(v->lo, f);
			hi = max_of(v->hi, f);
			EXPECT_LE(lo, g)
				TH_LOG("%s: below a thread's before it", f->name);
			EXPECT_GE(hi, g)
				TH_LOG("%s: above every thread's after it", f->name);
			expect_max_time(_metadata, v, f);
			break;
		case GROUP_MIN:
			lo = min_nonzero(v->lo, f);
			hi = min_nonzero(v->hi, f);
			if (lo) {
				EXPECT_NE(0ULL, g)
					TH_LOG("%s: none, though a thread had one", f->name);
				EXPECT_GE(lo, g)
					TH_LOG("%s: above a thread's before it", f->name);
			}
			if (!hi) {
				EXPECT_EQ(0ULL, g)
					TH_LOG("%s: one, though no thread had one", f->name);
			} else if (g) {
				EXPECT_LE(hi, g)
					TH_LOG("%s: below every thread's after it", f->name);
			}
			break;
		default:
			break;
		}
	}
}

/* Every field the contract does not name is zero, ids and ac_comm too. */
static void expect_zeros(struct __test_metadata *_metadata,
			 const struct group_view *v)
{
	int nonzero_in_threads = 0, checked = 0;

	for (size_t k = 0; k < ARRAY_SIZE(fields); k++) {
		const struct field *f = &fields[k];

		if (group_rule(f) != GROUP_ZERO || !field_sent(v, f))
			continue;
		checked++;
		for (int i = 0; i < GROUP_THREADS; i++) {
			if (!field_zero(&v->hi[i], f)) {
				nonzero_in_threads++;
				break;
			}
		}
		EXPECT_TRUE(field_zero(&v->group, f))
			TH_LOG("%s is not zero", f->name);
	}
	TH_LOG("%d fields zero in the group's record, %d of them set in a thread's",
	       checked, nonzero_in_threads);
	/* ac_comm, ac_pid, ac_tgid and ac_btime at least are set in every PID record. */
	EXPECT_LE(4, nonzero_in_threads);
}

/*
 * The group's record seen two ways, asked for with a TGID GET while some
 * threads live, and sent with the last exit: one set of rules for both.
 */
FIXTURE(group) {
	struct sem_sock sem;
	char delayacct[8];	/* kernel.task_delayacct before, "" if none */
};

FIXTURE_VARIANT(group) {
	void (*view)(struct __test_metadata *_metadata, struct sem_sock *self,
		     struct group_view *v);
	const char *skip_without_dump;	/* why 6.12's implementation is not held to it */
};

FIXTURE_VARIANT_ADD(group, tgid_get) {
	.view = view_tgid_get,
};

FIXTURE_VARIANT_ADD(group, last_exit) {
	.view = view_last_exit,
};

FIXTURE_VARIANT_ADD(group, exit_together) {
	.view = view_exit_together,
	.skip_without_dump = TS_NO_DUMP "may miss a thread exiting with its last",
};

FIXTURE_SETUP(group)
{
	int err;

	self->delayacct[0] = '\0';
	if (variant->skip_without_dump && !ts_kernel_dumps())
		SKIP(return, "%s", variant->skip_without_dump);
	if (ts_read_file(DELAYACCT, self->delayacct, sizeof(self->delayacct)) > 0)
		ASSERT_EQ(0, ts_write_file(DELAYACCT, "1"));
	err = sem_sock_open(&self->sem);
	ASSERT_LE(0, self->sem.fd);
	if (err)
		SKIP(return, "no TASKSTATS family");
}

FIXTURE_TEARDOWN(group)
{
	sem_sock_close(&self->sem);
	if (self->delayacct[0])
		ts_write_file(DELAYACCT, self->delayacct);
}

TEST_F_TIMEOUT(group, record_is_the_sum_of_the_threads_records, 120)
{
	struct group_view v;

	variant->view(_metadata, &self->sem, &v);
	expect_work(_metadata, &v);
	expect_sums(_metadata, &v);
}

TEST_F_TIMEOUT(group, record_holds_the_longest_and_shortest_delay_of_any_thread, 120)
{
	struct group_view v;

	if (!ts_kernel_dumps())
		SKIP(return, TS_NO_DUMP "version 14, no delay extremes");
	variant->view(_metadata, &self->sem, &v);
	ASSERT_LE(16, v.group.version);
	/* Six threads that sleep and spin on two CPUs wait for one. */
	ASSERT_NE(0ULL, max_of(v.hi, field_named("cpu_delay_max")));
	expect_extremes(_metadata, &v);
}

TEST_F_TIMEOUT(group, record_leaves_every_other_field_zero, 120)
{
	struct group_view v;

	variant->view(_metadata, &self->sem, &v);
	expect_zeros(_metadata, &v);
}

TEST_HARNESS_MAIN
