// SPDX-License-Identifier: GPL-2.0
/*
 * Per-task delay accounting: recording delays and reporting them.
 *
 * The model, the classes and the cost of each hook are described at the
 * top of include/linux/delayacct.h. This file holds the one generic
 * recording path all classes share, the copy of a task's delays into a
 * struct taskstats, and the switches (boot parameter and sysctl).
 */
#include <linux/bitops.h>
#include <linux/delayacct.h>
#include <linux/init.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/sched/cputime.h>
#include <linux/sched/task.h>
#include <linux/seqlock.h>
#include <linux/slab.h>
#include <linux/sysctl.h>
#include <linux/taskstats.h>
#include <linux/timekeeping.h>

DEFINE_STATIC_KEY_FALSE(delayacct_key);
int delayacct_on __read_mostly;
struct kmem_cache *delayacct_cache;

/*
 * local_clock() when accounting was last switched on. A start older than
 * that was stamped before a switch-off whose end was never run: paired
 * with a later end, it would record the whole time accounting was off.
 */
static u64 delayacct_on_since __read_mostly;

/*
 * Where each class lands in struct taskstats. Offsets rather than code per
 * class: filling a reply is one loop over this table.
 */
struct delayacct_fields {
	u16 count, total, max, min, max_ts;
};

#define DELAYACCT_FIELDS(name) {					\
	.count	= offsetof(struct taskstats, name##_count),		\
	.total	= offsetof(struct taskstats, name##_delay_total),	\
	.max	= offsetof(struct taskstats, name##_delay_max),		\
	.min	= offsetof(struct taskstats, name##_delay_min),		\
	.max_ts	= offsetof(struct taskstats, name##_delay_max_ts),	\
}

static const struct delayacct_fields delayacct_uapi[DELAYACCT_NR_CLASSES] = {
	[DELAYACCT_BLKIO]	= DELAYACCT_FIELDS(blkio),
	[DELAYACCT_SWAPIN]	= DELAYACCT_FIELDS(swapin),
	[DELAYACCT_FREEPAGES]	= DELAYACCT_FIELDS(freepages),
	[DELAYACCT_THRASHING]	= DELAYACCT_FIELDS(thrashing),
	[DELAYACCT_COMPACT]	= DELAYACCT_FIELDS(compact),
	[DELAYACCT_WPCOPY]	= DELAYACCT_FIELDS(wpcopy),
	[DELAYACCT_IRQ]		= DELAYACCT_FIELDS(irq),
};

static const struct delayacct_fields delayacct_uapi_cpu = DELAYACCT_FIELDS(cpu);

/*
 * Serialises switches: the static key and delayacct_on are set apart, and
 * two writers interleaved could leave the key off with delayacct_on set
 * (tasks forked meanwhile allocate delays nobody records).
 */
static DEFINE_MUTEX(delayacct_switch);

static void set_delayacct(bool enabled)
{
	guard(mutex)(&delayacct_switch);
	/*
	 * Only a change is a switch: switched on again, accounting would
	 * discard every wait in flight (see delayacct_on_since).
	 */
	if (enabled == static_key_enabled(&delayacct_key))
		return;
	if (enabled) {
		WRITE_ONCE(delayacct_on_since, local_clock());
		static_branch_enable(&delayacct_key);
		delayacct_on = 1;
	} else {
		delayacct_on = 0;
		static_branch_disable(&delayacct_key);
	}
}

static int __init delayacct_setup_enable(char *str)
{
	delayacct_on = 1;
	return 1;
}
__setup("delayacct", delayacct_setup_enable);

/**
 * delayacct_init() - create the cache of task_delay_info and apply the
 * boot-time switch.
 */
void __init delayacct_init(void)
{
	delayacct_cache = KMEM_CACHE(task_delay_info, SLAB_PANIC | SLAB_ACCOUNT);
	delayacct_tsk_init(&init_task);
	set_delayacct(delayacct_on);
}

#ifdef CONFIG_PROC_SYSCTL
static int sysctl_delayacct(const struct ctl_table *table, int write,
			    void *buffer, size_t *lenp, loff_t *ppos)
{
	int state = delayacct_on;
	struct ctl_table t;
	int err;

	if (write && !capable(CAP_SYS_ADMIN))
		return -EPERM;

	t = *table;
	t.data = &state;
	err = proc_dointvec_minmax(&t, write, buffer, lenp, ppos);
	if (err < 0)
		return err;
	if (write)
		set_delayacct(state);
	return err;
}

static struct ctl_table delayacct_sysctls[] = {
	{
		.procname	= "task_delayacct",
		.maxlen		= sizeof(unsigned int),
		.mode		= 0644,
		.proc_handler	= sysctl_delayacct,
		.extra1		= SYSCTL_ZERO,
		.extra2		= SYSCTL_ONE,
	},
};

static __init int delayacct_sysctls_init(void)
{
	register_sysctl_init("kernel", delayacct_sysctls);
	return 0;
}
late_initcall(delayacct_sysctls_init);
#endif

/**
 * __delayacct_tsk_init() - give a new task its delay counters.
 * @tsk: the task being forked
 *
 * A failed allocation leaves the task unaccounted; it does not fail fork.
 */
void __delayacct_tsk_init(struct task_struct *tsk)
{
	tsk->delays = kmem_cache_zalloc(delayacct_cache, GFP_KERNEL);
	if (tsk->delays)
		raw_spin_lock_init(&tsk->delays->lock);
}

/**
 * delayacct_add_wrap() - add to a delay total the way the ABI defines it.
 * @total: the running total
 * @delta: what to add
 *
 * Return: the sum, or 0 if it overflowed: totals wrap to zero while their
 * counts go on, so a zero total with a non-zero count tells an overflow.
 */
u64 delayacct_add_wrap(u64 total, u64 delta)
{
	u64 sum = total + delta;

	return sum < total ? 0 : sum;
}

/* Records one delay of @ns in @class: the only writer of the totals. */
static void delayacct_record(struct task_delay_info *d,
			     enum delayacct_class class, u64 ns)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&d->lock, flags);
	d->total[class] = delayacct_add_wrap(d->total[class], ns);
	d->count[class]++;
	WRITE_ONCE(d->classes, d->classes | BIT(class));
	if (ns > d->max[class]) {
		d->max[class] = ns;
		d->max_ts[class] = ktime_get_real_ns();
	}
	if (!d->min[class] || ns < d->min[class])
		d->min[class] = ns;
	raw_spin_unlock_irqrestore(&d->lock, flags);
}

/**
 * __delayacct_start() - @tsk starts to wait for @class.
 * @tsk: the waiting task
 * @class: a class with start and end hooks
 */
void __delayacct_start(struct task_struct *tsk, enum delayacct_class class)
{
	tsk->delays->start[class] = local_clock();
}

/**
 * __delayacct_end() - @tsk stopped waiting for @class.
 * @tsk: the task, current or (for block I/O) the one being woken
 * @class: a class with start and end hooks
 *
 * An end without a start (accounting was switched on in between) is
 * ignored rather than recorded as a delay since boot, and so is an end
 * whose start predates the last switch-on.
 */
void __delayacct_end(struct task_struct *tsk, enum delayacct_class class)
{
	struct task_delay_info *d = tsk->delays;
	u64 start = d->start[class];
	s64 ns;

	if (!start)
		return;
	d->start[class] = 0;
	if (start < READ_ONCE(delayacct_on_since))
		return;
	ns = local_clock() - start;
	if (ns > 0)
		delayacct_record(d, class, ns);
}

/**
 * __delayacct_thrashing_start() - current waits for a refaulting page.
 * @in_thrashing: set to whether an outer thrashing wait is already running
 */
void __delayacct_thrashing_start(bool *in_thrashing)
{
	*in_thrashing = !!current->in_thrashing;
	if (*in_thrashing)
		return;
	current->in_thrashing = 1;
	__delayacct_start(current, DELAYACCT_THRASHING);
}

/**
 * __delayacct_thrashing_end() - end of the outermost thrashing wait.
 *
 * Runs whether or not accounting is still on, so that the task's flag
 * never outlives its wait.
 */
void __delayacct_thrashing_end(void)
{
	current->in_thrashing = 0;
	if (delayacct_active(current))
		__delayacct_end(current, DELAYACCT_THRASHING);
}

/**
 * __delayacct_irq() - charge IRQ time taken from @task.
 * @task: the task that was running
 * @delta: ns spent in hard and soft interrupts
 */
void __delayacct_irq(struct task_struct *task, u32 delta)
{
	delayacct_record(task->delays, DELAYACCT_IRQ, delta);
}

/* max_run_delay_ts while its maximum changes: no CLOCK_REALTIME time. */
#define DELAYACCT_TS_WRITING	U64_MAX

/*
 * A 32-bit kernel writes a u64 in two stores. A reader stalled between
 * the two halves of the mark would see the same half mark twice, and
 * take it for a time; it could also see half a new minimum. There a
 * sequence count guards the extremes: two increments on the out-of-line
 * path, and nothing on 64-bit kernels, where the mark alone suffices.
 * Raw, because fork zeroes sched_info rather than initialising a lockdep
 * map, and the writers are serialised by the runqueue lock.
 */
#ifdef CONFIG_64BIT
static inline void cpu_extremes_write_begin(struct sched_info *si)
{
}

static inline void cpu_extremes_write_end(struct sched_info *si)
{
}

static inline unsigned int cpu_extremes_read_begin(const struct sched_info *si)
{
	return 0;
}

static inline bool cpu_extremes_read_retry(const struct sched_info *si,
					   unsigned int seq)
{
	return false;
}
#else
static inline void cpu_extremes_write_begin(struct sched_info *si)
{
	raw_write_seqcount_begin(&si->run_delay_seq);
}

static inline void cpu_extremes_write_end(struct sched_info *si)
{
	raw_write_seqcount_end(&si->run_delay_seq);
}

/* Does not wait for an odd count: the retry then fails. */
static inline unsigned int cpu_extremes_read_begin(const struct sched_info *si)
{
	return raw_seqcount_begin(&si->run_delay_seq);
}

static inline bool cpu_extremes_read_retry(const struct sched_info *si,
					   unsigned int seq)
{
	return read_seqcount_retry(&si->run_delay_seq, seq);
}
#endif

/**
 * __delayacct_cpu_delay() - a runqueue wait outside the range seen so far.
 * @t: the task that waited
 * @above_min: the wait (its part on this runqueue) minus the minimum so far,
 *	wrapped if below it
 *
 * Also a task's first waits and the end of a wait that began on another
 * runqueue, even if its part here took no time. Out of line because it
 * reads CLOCK_REALTIME for a new maximum, and because after a task's
 * first waits most waits are inside the range. Runs under the runqueue
 * lock, which serialises all updates of @si; readers take no lock (see
 * cpu_extremes_read()).
 */
void __delayacct_cpu_delay(struct task_struct *t, u64 above_min)
{
	struct sched_info *si = &t->sched_info;
	u64 wait = above_min + si->min_run_delay + si->moved_run_delay;

	si->moved_run_delay = 0;
	cpu_extremes_write_begin(si);
	if (wait > si->max_run_delay) {
		/* Pairs with the smp_rmb()s of cpu_extremes_read(). */
		WRITE_ONCE(si->max_run_delay_ts, DELAYACCT_TS_WRITING);
		smp_wmb();	/* the mark, then the maximum */
		WRITE_ONCE(si->max_run_delay, wait);
		smp_wmb();	/* the maximum, then its time */
		WRITE_ONCE(si->max_run_delay_ts, ktime_get_real_ns());
	}
	if (wait && (!si->min_run_delay || wait < si->min_run_delay))
		WRITE_ONCE(si->min_run_delay, wait);
	cpu_extremes_write_end(si);
	if (si->min_run_delay)
		si->run_delay_span = si->max_run_delay - si->min_run_delay + 1;
}

/*
 * One read of the cpu class's extremes; false if it raced the writer.
 * The maximum and its time are a pair written together: a reader that
 * raced a new maximum would pair it with the old one's time. The writer
 * marks the time while it writes, and the time differs from one maximum
 * to the next, so it doubles as a sequence count. That costs nothing on
 * the scheduler's path, where __delayacct_cpu_delay() is out of line
 * and rare, and a few loads per thread on a read.
 */
static inline bool cpu_extremes_read(const struct sched_info *si, u64 *max,
				     u64 *min, u64 *ts)
{
	unsigned int seq = cpu_extremes_read_begin(si);

	*ts = READ_ONCE(si->max_run_delay_ts);
	/* A maximum written after this time was is seen marked below. */
	smp_rmb();
	*max = READ_ONCE(si->max_run_delay);
	*min = READ_ONCE(si->min_run_delay);
	/* A time read after a new maximum is that maximum's, or a mark. */
	smp_rmb();
	return *ts != DELAYACCT_TS_WRITING &&
	       READ_ONCE(si->max_run_delay_ts) == *ts &&
	       !cpu_extremes_read_retry(si, seq);
}

static void delayacct_cpu_extremes(const struct sched_info *si, u64 *max,
				   u64 *min, u64 *ts)
{
	while (!cpu_extremes_read(si, max, min, ts))
		cpu_relax();
}

static u64 *ts_u64(struct taskstats *d, u16 offset)
{
	return (u64 *)((char *)d + offset);
}

/*
 * Merges one class into @d: counts add, totals add and wrap, the maximum
 * (with its time) and the non-zero minimum win. Merging into a zeroed @d
 * copies; merging thread after thread sums a thread group. Inlined, so
 * that for the cpu class, whose @f is a constant, the offsets fold into
 * plain field accesses: a TGID GET merges it once per thread.
 */
static __always_inline void delayacct_merge(struct taskstats *d,
					    const struct delayacct_fields *f,
					    u64 count, u64 total, u64 max,
					    u64 min, u64 max_ts)
{
	u64 *dmin = ts_u64(d, f->min);

	*ts_u64(d, f->count) += count;
	*ts_u64(d, f->total) = delayacct_add_wrap(*ts_u64(d, f->total), total);
	if (max > *ts_u64(d, f->max)) {
		struct __kernel_timespec *ts = (void *)((char *)d + f->max_ts);
		u32 nsec;

		*ts_u64(d, f->max) = max;
		ts->tv_sec = div_u64_rem(max_ts, NSEC_PER_SEC, &nsec);
		ts->tv_nsec = nsec;
	}
	if (min && (!*dmin || min < *dmin))
		*dmin = min;
}

/* Run times: nanosecond totals without a count, wrapping to zero. */
static void delayacct_add_run_times(struct taskstats *d, struct task_struct *tsk)
{
	u64 utime, stime, utimescaled, stimescaled;

	task_cputime(tsk, &utime, &stime);
	d->cpu_run_real_total = delayacct_add_wrap(d->cpu_run_real_total,
						   utime + stime);
	task_cputime_scaled(tsk, &utimescaled, &stimescaled);
	d->cpu_scaled_run_real_total =
		delayacct_add_wrap(d->cpu_scaled_run_real_total,
				   utimescaled + stimescaled);
	d->cpu_run_virtual_total =
		delayacct_add_wrap(d->cpu_run_virtual_total,
				   tsk->se.sum_exec_runtime);
}

/**
 * delayacct_add_tsk() - add @tsk's delays and run times to @d.
 * @d: a zeroed record, or the running sum of a thread group
 * @tsk: the task
 *
 * The cpu class comes from sched_info, which the scheduler keeps for every
 * task; the other classes only exist for tasks forked while accounting
 * was on. sched_info is read without the runqueue lock, so the cpu values
 * of a running task are a snapshot that may mix adjacent updates; only
 * the maximum and its time are read as a pair, and no extreme half
 * written.
 *
 * Return: 0.
 */
int delayacct_add_tsk(struct taskstats *d, struct task_struct *tsk)
{
	struct task_delay_info *di = tsk->delays;
	struct sched_info *si = &tsk->sched_info;
	unsigned long flags, classes;
	u64 max, min, max_ts;
	int c;

	delayacct_add_run_times(d, tsk);
	delayacct_cpu_extremes(si, &max, &min, &max_ts);
	delayacct_merge(d, &delayacct_uapi_cpu, READ_ONCE(si->pcount),
			READ_ONCE(si->run_delay), max, min, max_ts);
	/*
	 * Most tasks never wait in most classes, and merging nothing changes
	 * nothing: a task that never waited costs no lock, and one that did
	 * costs only its classes. A class that starts recording meanwhile is
	 * as if read a moment earlier.
	 */
	if (!di || !READ_ONCE(di->classes))
		return 0;

	raw_spin_lock_irqsave(&di->lock, flags);
	classes = di->classes;
	for_each_set_bit(c, &classes, DELAYACCT_NR_CLASSES)
		delayacct_merge(d, &delayacct_uapi[c], di->count[c],
				di->total[c], di->max[c], di->min[c],
				di->max_ts[c]);
	raw_spin_unlock_irqrestore(&di->lock, flags);
	return 0;
}

/**
 * __delayacct_blkio_ticks() - block I/O delay of @tsk in clock ticks.
 * @tsk: a task with delay counters
 *
 * Return: the total, for the delayacct_blkio_ticks field of /proc/PID/stat.
 */
__u64 __delayacct_blkio_ticks(struct task_struct *tsk)
{
	unsigned long flags;
	u64 ns;

	raw_spin_lock_irqsave(&tsk->delays->lock, flags);
	ns = tsk->delays->total[DELAYACCT_BLKIO];
	raw_spin_unlock_irqrestore(&tsk->delays->lock, flags);
	return nsec_to_clock_t(ns);
}

#ifdef CONFIG_TASK_DELAY_ACCT_KUNIT_TEST
#include "delayacct_test.c"
#endif
