/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-task delay accounting: how long a task waited, and for what.
 *
 * A delay class is one reason to wait: block I/O, swap-in, direct reclaim,
 * thrashing, compaction, write-protect copy, time lost to IRQs. Each class
 * keeps a count, a wrapping total, the longest and shortest single delay
 * and the wall-clock time of the longest, in struct task_delay_info, one
 * array per quantity indexed by enum delayacct_class. Waiting for a CPU is
 * the cpu class; the scheduler already measures it in struct sched_info,
 * which is where its maximum and minimum are kept too.
 *
 * Call sites keep their historical names (delayacct_blkio_start() and so
 * on); each is a thin wrapper around one generic start/end pair.
 *
 * Cost: with CONFIG_TASK_DELAY_ACCT=n every hook is an empty inline. With
 * it built in but switched off (the default; boot with "delayacct" or set
 * kernel.task_delayacct=1) a hook is one patched-out static branch, except
 * the cpu class's extremes, which the scheduler keeps next to its count
 * and total at every context switch (three instructions, one for a wait of
 * zero: see delayacct_cpu_delay()).
 * Switched on, a start is one local_clock() read and store (block I/O
 * takes the scheduler's clock, already read); an end is one
 * local_clock() read and a short critical section on the task's raw
 * spinlock, plus a CLOCK_REALTIME read when the delay is a new maximum.
 * Tasks forked while accounting is off have no task_delay_info and are not
 * accounted (except the cpu class) until they exit.
 *
 * Across a switch: a wait is counted only if it both began and ended
 * while accounting was on (a start left from before the last switch-on is
 * discarded by its end); the cpu class counts every wait, on or off.
 */
#ifndef _LINUX_DELAYACCT_H
#define _LINUX_DELAYACCT_H

#include <linux/spinlock_types.h>
#include <linux/types.h>
#include <uapi/linux/taskstats.h>

/* Delay classes kept in struct task_delay_info, in uapi order. */
enum delayacct_class {
	DELAYACCT_BLKIO,
	DELAYACCT_SWAPIN,
	DELAYACCT_FREEPAGES,
	DELAYACCT_THRASHING,
	DELAYACCT_COMPACT,
	DELAYACCT_WPCOPY,
	DELAYACCT_IRQ,		/* arrives as a measured delta, no start */
	DELAYACCT_NR_CLASSES,
};

/* Classes measured between a start and an end hook. */
#define DELAYACCT_NR_TIMED	DELAYACCT_IRQ

#ifdef CONFIG_TASK_DELAY_ACCT
/*
 * One array per quantity rather than one struct per class: no padding
 * between classes, and the generic code indexes by class.
 */
struct task_delay_info {
	raw_spinlock_t	lock;			/* guards everything below but start */
	/*
	 * Bit c set once class c recorded a delay: a reader skips the lock
	 * and the classes of a task that never waited, most of a TGID GET.
	 */
	u32		classes;
	u32		count[DELAYACCT_NR_CLASSES];
	u64		start[DELAYACCT_NR_TIMED];	/* local_clock(), 0 = none */
	u64		total[DELAYACCT_NR_CLASSES];	/* ns, wraps to 0 */
	u64		max[DELAYACCT_NR_CLASSES];	/* ns */
	u64		min[DELAYACCT_NR_CLASSES];	/* ns, 0 = no delay yet */
	u64		max_ts[DELAYACCT_NR_CLASSES];	/* CLOCK_REALTIME ns */
};
#endif

#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/jump_label.h>

#ifdef CONFIG_TASK_DELAY_ACCT
DECLARE_STATIC_KEY_FALSE(delayacct_key);
extern int delayacct_on;
extern struct kmem_cache *delayacct_cache;

void delayacct_init(void);
void __delayacct_tsk_init(struct task_struct *tsk);
void __delayacct_start(struct task_struct *tsk, enum delayacct_class class);
void __delayacct_end(struct task_struct *tsk, enum delayacct_class class);
void __delayacct_thrashing_start(bool *in_thrashing);
void __delayacct_thrashing_end(void);
void __delayacct_irq(struct task_struct *task, u32 delta);
void __delayacct_cpu_delay(struct task_struct *t, u64 above_min);
int delayacct_add_tsk(struct taskstats *d, struct task_struct *tsk);
__u64 __delayacct_blkio_ticks(struct task_struct *tsk);
u64 delayacct_add_wrap(u64 total, u64 delta);

/* Whether @tsk's delays are being accounted right now. */
static __always_inline bool delayacct_active(struct task_struct *tsk)
{
	return static_branch_unlikely(&delayacct_key) && tsk->delays;
}

static inline void delayacct_tsk_init(struct task_struct *tsk)
{
	/* dup_task_struct() copied the parent's pointer */
	tsk->delays = NULL;
	if (delayacct_on)
		__delayacct_tsk_init(tsk);
}

/* From failed forks and __put_task_struct(): nobody else can see @tsk. */
static inline void delayacct_tsk_free(struct task_struct *tsk)
{
	if (tsk->delays)
		kmem_cache_free(delayacct_cache, tsk->delays);
	tsk->delays = NULL;
}

static __always_inline void delayacct_start(struct task_struct *tsk,
					    enum delayacct_class class)
{
	if (delayacct_active(tsk))
		__delayacct_start(tsk, class);
}

static __always_inline void delayacct_end(struct task_struct *tsk,
					  enum delayacct_class class)
{
	if (delayacct_active(tsk))
		__delayacct_end(tsk, class);
}

/*
 * A block I/O wait begins as the task blocks, in __schedule(), not where
 * the scheduler dequeues it: __block_task() dequeues @p as it blocks, or
 * later, from another task's pick, when DELAY_DEQUEUE kept @p queued, or
 * never, when @p is woken while still queued (ttwu_runnable() then ends
 * the wait with delayacct_blkio_end_queued()).
 *
 * __schedule() asks delayacct_blkio_blocks() first, so that the rq clock
 * it has just updated is read only for an I/O wait being accounted; that
 * clock is local_clock()'s, and the stamp costs no clock read. With
 * accounting off, the test is one patched-out branch per block; with it
 * on, a sleep that is not an I/O wait (the common case) stops at
 * in_iowait. No stamp is taken where the wait is declared, in
 * io_schedule_prepare(): a clock read there would cost
 * every I/O wait a second clock read, which this stamp spares it.
 */
static __always_inline bool delayacct_blkio_blocks(struct task_struct *p)
{
	return static_branch_unlikely(&delayacct_key) && p->in_iowait &&
	       p->delays;
}

static __always_inline void delayacct_blkio_start(struct task_struct *p,
						  u64 now)
{
	p->delays->start[DELAYACCT_BLKIO] = now;
}

static inline void delayacct_blkio_end_queued(struct task_struct *p)
{
	if (delayacct_active(p) && p->in_iowait)
		__delayacct_end(p, DELAYACCT_BLKIO);
}

/* Called by the waker: @p is not current yet. */
static inline void delayacct_blkio_end(struct task_struct *p)
{
	delayacct_end(p, DELAYACCT_BLKIO);
}

static inline void delayacct_swapin_start(void)
{
	delayacct_start(current, DELAYACCT_SWAPIN);
}

static inline void delayacct_swapin_end(void)
{
	delayacct_end(current, DELAYACCT_SWAPIN);
}

static inline void delayacct_freepages_start(void)
{
	delayacct_start(current, DELAYACCT_FREEPAGES);
}

static inline void delayacct_freepages_end(void)
{
	delayacct_end(current, DELAYACCT_FREEPAGES);
}

static inline void delayacct_compact_start(void)
{
	delayacct_start(current, DELAYACCT_COMPACT);
}

static inline void delayacct_compact_end(void)
{
	delayacct_end(current, DELAYACCT_COMPACT);
}

static inline void delayacct_wpcopy_start(void)
{
	delayacct_start(current, DELAYACCT_WPCOPY);
}

static inline void delayacct_wpcopy_end(void)
{
	delayacct_end(current, DELAYACCT_WPCOPY);
}

/*
 * Thrashing waits nest (a refault inside a refault wait): only the
 * outermost one counts. *in_thrashing says whether this caller must leave
 * the matching end alone; it is always set, so the end is safe to call
 * even if accounting was switched on in between. The end clears the
 * task's flag even if accounting was switched off in between: a flag left
 * set would make every later wait of the task look nested, never counted.
 */
static inline void delayacct_thrashing_start(bool *in_thrashing)
{
	*in_thrashing = true;
	if (delayacct_active(current))
		__delayacct_thrashing_start(in_thrashing);
}

static inline void delayacct_thrashing_end(bool *in_thrashing)
{
	if (!*in_thrashing)
		__delayacct_thrashing_end();
}

/*
 * IRQ and softirq time taken from @task while it ran, from a runqueue
 * clock update that found some; rq lock held. Updates that found none are
 * not delays: update_rq_clock_task() does not call this for them, inside
 * the test it makes anyway, so that with accounting off most clock
 * updates do not even pass the patched-out branch.
 */
static inline void delayacct_irq(struct task_struct *task, u32 delta)
{
	if (delayacct_active(task))
		__delayacct_irq(task, delta);
}

/*
 * The cpu class's extremes, kept by the scheduler like its count and total
 * (sched_info), whether delay accounting is switched on or not: its
 * maximum is then always at least its average. rq lock held.
 *
 * Most waits fall between the shortest and the longest so far and change
 * neither. How far a wait lies above the minimum, compared with the
 * range's width (run_delay_span), tells them apart in one unsigned
 * compare: a wait below the minimum wraps above any width. A wait of zero
 * (a task put on a CPU the instant it was queued did not wait) is tested
 * first: it is frequent, since a wakeup that preempts skips the runqueue
 * clock's next update. sched_info_arrive() tests it already, to skip
 * adding it to the total, and the compiler branches on the flags of the
 * subtraction that measured the wait. Per context switch that is three
 * instructions on x86-64 (the branch, a subtraction, a
 * compare and a branch, less a copy of the clock it does not need), one
 * for a zero wait (which looks for a moved part). The rest take the
 * out-of-line path: a new extreme, a task's first waits (the width is 0
 * until one is known) and the end of a moved wait. The task, not its
 * sched_info, is what that path takes: the address of the sched_info
 * would be computed on the fast path too.
 *
 * A wait can span CPUs: a task moved while it waits leaves part of the
 * wait on the old runqueue (delayacct_cpu_wait_moved(), from
 * sched_info_dequeue()) and ends it on the new one (delayacct_cpu_delay(),
 * from sched_info_arrive()); the extremes are of whole waits, as the count
 * counts whole waits. The moved part zeroes the width, so that the end
 * takes the out-of-line path, which adds the part back.
 */
static inline void delayacct_cpu_wait_moved(struct task_struct *t, u64 delta)
{
	t->sched_info.moved_run_delay += delta;
	t->sched_info.run_delay_span = 0;
}

static inline void delayacct_cpu_delay(struct task_struct *t, u64 delta)
{
	struct sched_info *si = &t->sched_info;

	if (delta) {
		if (unlikely(delta - si->min_run_delay >= si->run_delay_span))
			__delayacct_cpu_delay(t, delta - si->min_run_delay);
	} else if (unlikely(si->moved_run_delay)) {
		/* A zero wait is no wait, unless it ends a moved one. */
		__delayacct_cpu_delay(t, -si->min_run_delay);
	}
}

/* Block I/O delay in clock ticks, for /proc/PID/stat. */
static inline __u64 delayacct_blkio_ticks(struct task_struct *tsk)
{
	if (tsk->delays)
		return __delayacct_blkio_ticks(tsk);
	return 0;
}

#else /* !CONFIG_TASK_DELAY_ACCT */
static inline void delayacct_init(void)
{}
static inline void delayacct_tsk_init(struct task_struct *tsk)
{}
static inline void delayacct_tsk_free(struct task_struct *tsk)
{}
static inline bool delayacct_blkio_blocks(struct task_struct *p)
{
	return false;
}

static inline void delayacct_blkio_start(struct task_struct *p, u64 now)
{}
static inline void delayacct_blkio_end_queued(struct task_struct *p)
{}
static inline void delayacct_blkio_end(struct task_struct *p)
{}
static inline void delayacct_swapin_start(void)
{}
static inline void delayacct_swapin_end(void)
{}
static inline void delayacct_freepages_start(void)
{}
static inline void delayacct_freepages_end(void)
{}
static inline void delayacct_compact_start(void)
{}
static inline void delayacct_compact_end(void)
{}
static inline void delayacct_wpcopy_start(void)
{}
static inline void delayacct_wpcopy_end(void)
{}
static inline void delayacct_thrashing_start(bool *in_thrashing)
{}
static inline void delayacct_thrashing_end(bool *in_thrashing)
{}
static inline void delayacct_irq(struct task_struct *task, u32 delta)
{}
static inline void delayacct_cpu_wait_moved(struct task_struct *t, u64 delta)
{}
static inline void delayacct_cpu_delay(struct task_struct *t, u64 delta)
{}
static inline int delayacct_add_tsk(struct taskstats *d, struct task_struct *tsk)
{ return 0; }
static inline __u64 delayacct_blkio_ticks(struct task_struct *tsk)
{ return 0; }
#endif /* CONFIG_TASK_DELAY_ACCT */

#endif /* _LINUX_DELAYACCT_H */
