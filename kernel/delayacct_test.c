// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of delay accounting's arithmetic: what waiting 584 years
 * would show, with preset counters. Included by kernel/delayacct.c so
 * that the static helpers are in reach.
 */
#include <kunit/test.h>

/* A total that would overflow wraps to zero; the count goes on. */
static void delayacct_total_wraps_to_zero_and_count_goes_on(struct kunit *test)
{
	struct task_delay_info d = {};

	raw_spin_lock_init(&d.lock);
	d.total[DELAYACCT_BLKIO] = U64_MAX - 10;
	d.count[DELAYACCT_BLKIO] = 7;
	delayacct_record(&d, DELAYACCT_BLKIO, 11);
	KUNIT_EXPECT_EQ(test, d.total[DELAYACCT_BLKIO], 0ULL);
	KUNIT_EXPECT_EQ(test, d.count[DELAYACCT_BLKIO], 8U);
	delayacct_record(&d, DELAYACCT_BLKIO, 5);
	KUNIT_EXPECT_EQ(test, d.total[DELAYACCT_BLKIO], 5ULL);
	KUNIT_EXPECT_EQ(test, d.count[DELAYACCT_BLKIO], 9U);
}

/* Up to the last nanosecond the total is exact. */
static void delayacct_total_is_exact_up_to_the_limit(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, delayacct_add_wrap(U64_MAX - 10, 10), U64_MAX);
	KUNIT_EXPECT_EQ(test, delayacct_add_wrap(U64_MAX - 10, 11), 0ULL);
	KUNIT_EXPECT_EQ(test, delayacct_add_wrap(0, 0), 0ULL);
}

/* Max, min and the time of the max follow the delays recorded. */
static void delayacct_extremes_follow_the_delays(struct kunit *test)
{
	struct task_delay_info d = {};
	u64 before;

	raw_spin_lock_init(&d.lock);
	before = ktime_get_real_ns();
	delayacct_record(&d, DELAYACCT_SWAPIN, 300);
	delayacct_record(&d, DELAYACCT_SWAPIN, 100);
	delayacct_record(&d, DELAYACCT_SWAPIN, 200);
	KUNIT_EXPECT_EQ(test, d.max[DELAYACCT_SWAPIN], 300ULL);
	KUNIT_EXPECT_EQ(test, d.min[DELAYACCT_SWAPIN], 100ULL);
	KUNIT_EXPECT_GE(test, d.max_ts[DELAYACCT_SWAPIN], before);
	KUNIT_EXPECT_LE(test, d.max_ts[DELAYACCT_SWAPIN], ktime_get_real_ns());
	/* Other classes are untouched, and readers will skip them. */
	KUNIT_EXPECT_EQ(test, d.classes, (u32)BIT(DELAYACCT_SWAPIN));
	KUNIT_EXPECT_EQ(test, d.count[DELAYACCT_BLKIO], 0U);
	KUNIT_EXPECT_EQ(test, d.min[DELAYACCT_BLKIO], 0ULL);
}

/*
 * Merging records the way a thread group is summed: totals wrap, counts
 * add, the larger max wins with its time, the smaller non-zero min wins.
 */
static void delayacct_merge_sums_a_group(struct kunit *test)
{
	const struct delayacct_fields *f = &delayacct_uapi[DELAYACCT_WPCOPY];
	struct taskstats *ts;

	ts = kunit_kzalloc(test, sizeof(*ts), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ts);
	delayacct_merge(ts, f, 2, U64_MAX - 1, 50, 20, 3ULL * NSEC_PER_SEC + 7);
	delayacct_merge(ts, f, 3, 5, 40, 0, 9ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, ts->wpcopy_count, 5ULL);
	KUNIT_EXPECT_EQ(test, ts->wpcopy_delay_total, 0ULL);
	KUNIT_EXPECT_EQ(test, ts->wpcopy_delay_max, 50ULL);
	KUNIT_EXPECT_EQ(test, ts->wpcopy_delay_min, 20ULL);
	KUNIT_EXPECT_EQ(test, ts->wpcopy_delay_max_ts.tv_sec, 3LL);
	KUNIT_EXPECT_EQ(test, ts->wpcopy_delay_max_ts.tv_nsec, 7LL);
	delayacct_merge(ts, f, 1, 1, 60, 10, 11ULL * NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, ts->wpcopy_delay_total, 1ULL);
	KUNIT_EXPECT_EQ(test, ts->wpcopy_delay_max, 60ULL);
	KUNIT_EXPECT_EQ(test, ts->wpcopy_delay_min, 10ULL);
	KUNIT_EXPECT_EQ(test, ts->wpcopy_delay_max_ts.tv_sec, 11LL);
}

/*
 * A task of the test's own: no hook of a real task, on this CPU or
 * another, reaches its delays, and they outlive the test's frame.
 */
static struct task_struct *delayacct_fake_task(struct kunit *test)
{
	struct task_struct *t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, t);
	t->delays = kunit_kzalloc(test, sizeof(*t->delays), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->delays);
	raw_spin_lock_init(&t->delays->lock);
	return t;
}

/*
 * Ends @t's wait in @class once this CPU's clock is past its start, so
 * that it lasted at least a nanosecond whatever the clock's resolution
 * and whichever CPU it began on.
 */
static void delayacct_end_later(struct task_struct *t, enum delayacct_class class)
{
	u64 start = t->delays->start[class];

	preempt_disable();
	while (local_clock() <= start)
		cpu_relax();
	__delayacct_end(t, class);
	preempt_enable();
}

/* An end without a start is not a delay since boot. */
static void delayacct_end_without_start_is_ignored(struct kunit *test)
{
	struct task_struct *t = delayacct_fake_task(test);

	__delayacct_end(t, DELAYACCT_COMPACT);
	KUNIT_EXPECT_EQ(test, t->delays->count[DELAYACCT_COMPACT], 0U);
	__delayacct_start(t, DELAYACCT_COMPACT);
	delayacct_end_later(t, DELAYACCT_COMPACT);
	KUNIT_EXPECT_EQ(test, t->delays->count[DELAYACCT_COMPACT], 1U);
	KUNIT_EXPECT_EQ(test, t->delays->start[DELAYACCT_COMPACT], 0ULL);
}

/* A start stamped before the last switch-on does not pair with an end. */
static void delayacct_start_before_switch_on_is_discarded(struct kunit *test)
{
	struct task_struct *t = delayacct_fake_task(test);
	u64 saved_since = delayacct_on_since;

	__delayacct_start(t, DELAYACCT_SWAPIN);
	WRITE_ONCE(delayacct_on_since, local_clock() + 1);
	__delayacct_end(t, DELAYACCT_SWAPIN);
	KUNIT_EXPECT_EQ(test, t->delays->count[DELAYACCT_SWAPIN], 0U);
	KUNIT_EXPECT_EQ(test, t->delays->start[DELAYACCT_SWAPIN], 0ULL);
	WRITE_ONCE(delayacct_on_since, saved_since);
	__delayacct_start(t, DELAYACCT_SWAPIN);
	delayacct_end_later(t, DELAYACCT_SWAPIN);
	KUNIT_EXPECT_EQ(test, t->delays->count[DELAYACCT_SWAPIN], 1U);
}

/*
 * Switching accounting on while it is on is no switch: a wait in flight
 * across it is still recorded. (Switched on here if it was off, for a
 * moment, for the whole system.)
 */
static void delayacct_switching_on_again_keeps_waits_in_flight(struct kunit *test)
{
	bool was_on = static_key_enabled(&delayacct_key);
	struct task_struct *t = delayacct_fake_task(test);
	u64 start;

	set_delayacct(true);
	__delayacct_start(t, DELAYACCT_SWAPIN);
	start = t->delays->start[DELAYACCT_SWAPIN];
	/* Past the start: a switch-on now would discard the wait. */
	while (local_clock() <= start)
		cpu_relax();
	set_delayacct(true);
	delayacct_end_later(t, DELAYACCT_SWAPIN);
	KUNIT_EXPECT_EQ(test, t->delays->count[DELAYACCT_SWAPIN], 1U);
	set_delayacct(was_on);
}

/* A runqueue wait: its part on runqueues the task left, then its end. */
struct cpu_wait_step {
	u64 moved, wait;	/* what the scheduler reports */
	u64 max, min;		/* the extremes expected after it */
};

/*
 * Feeds @steps to a task's sched_info in order and checks the extremes
 * after each, that the time of the maximum changes exactly when the
 * maximum does, and that a reader gets the two as a pair.
 */
static void cpu_wait_steps(struct kunit *test,
			   const struct cpu_wait_step *steps, int n)
{
	struct task_struct *t;
	u64 ts = 0, max, min, max_ts;
	int i;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < n; i++) {
		bool new_max = steps[i].max != t->sched_info.max_run_delay;

		if (steps[i].moved)
			delayacct_cpu_wait_moved(t, steps[i].moved);
		delayacct_cpu_delay(t, steps[i].wait);
		KUNIT_EXPECT_EQ_MSG(test, t->sched_info.max_run_delay,
				    steps[i].max, "step %d", i);
		KUNIT_EXPECT_EQ_MSG(test, t->sched_info.min_run_delay,
				    steps[i].min, "step %d", i);
		KUNIT_EXPECT_EQ_MSG(test, t->sched_info.moved_run_delay, 0ULL,
				    "step %d", i);
		if (new_max) {
			KUNIT_EXPECT_NE_MSG(test, t->sched_info.max_run_delay_ts,
					    ts, "step %d", i);
			ts = t->sched_info.max_run_delay_ts;
		}
		KUNIT_EXPECT_EQ_MSG(test, t->sched_info.max_run_delay_ts, ts,
				    "step %d", i);
		/* A mark left behind would hold the reader forever. */
		KUNIT_ASSERT_NE_MSG(test, t->sched_info.max_run_delay_ts,
				    DELAYACCT_TS_WRITING, "step %d", i);
		delayacct_cpu_extremes(&t->sched_info, &max, &min, &max_ts);
		KUNIT_EXPECT_EQ_MSG(test, max, steps[i].max, "step %d", i);
		KUNIT_EXPECT_EQ_MSG(test, min, steps[i].min, "step %d", i);
		KUNIT_EXPECT_EQ_MSG(test, max_ts, ts, "step %d", i);
	}
}

/*
 * A runqueue wait split by a migration is one wait for the extremes, as
 * it is one for the count: 30 + 20 ns then 5 ns give a maximum of 50 and
 * a minimum of 5, never the legs. A leg on the new runqueue inside the
 * range (30) or of no time (0) still ends a wait that may be outside it.
 */
static void delayacct_cpu_extremes_are_of_whole_waits(struct kunit *test)
{
	static const struct cpu_wait_step steps[] = {
		{ 30, 20, 50, 50 }, { 0, 5, 50, 5 }, { 0, 0, 50, 5 },
		{ 40, 30, 70, 5 }, { 80, 0, 80, 5 }, { 1, 3, 80, 4 },
	};

	cpu_wait_steps(test, steps, ARRAY_SIZE(steps));
}

/*
 * Waits inside the range seen so far change nothing, the time of the
 * maximum included; each wait beyond either end moves that end, and the
 * next ones are judged against the new range. A wait of zero is no wait.
 */
static void delayacct_cpu_extremes_follow_the_range(struct kunit *test)
{
	static const struct cpu_wait_step steps[] = {
		{ 0, 0, 0, 0 }, { 0, 50, 50, 50 }, { 0, 50, 50, 50 },
		{ 0, 49, 50, 49 }, { 0, 51, 51, 49 }, { 0, 10, 51, 10 },
		{ 0, 30, 51, 10 }, { 0, 10, 51, 10 }, { 0, 51, 51, 10 },
		{ 0, 9, 51, 9 }, { 0, 0, 51, 9 }, { 0, 1000, 1000, 9 },
		{ 0, 999, 1000, 9 }, { 0, 1, 1000, 1 }, { 0, 1001, 1001, 1 },
	};

	cpu_wait_steps(test, steps, ARRAY_SIZE(steps));
}

/*
 * The time of the maximum as a reader finds it while the writer is
 * between its stores: on 64-bit kernels the mark, on 32-bit ones, where
 * a u64 is two stores, possibly half of it over half of @ts.
 */
static u64 cpu_time_mid_write(u64 ts)
{
	return IS_ENABLED(CONFIG_64BIT) ? DELAYACCT_TS_WRITING :
					  ts | GENMASK_ULL(63, 32);
}

/*
 * A reader that meets the writer between its stores, marking the time
 * or writing the new values, reads again; once the writer is done it
 * gets the new maximum with its own time, and the new minimum.
 */
static void delayacct_cpu_extremes_are_not_read_half_written(struct kunit *test)
{
	struct sched_info *si;
	u64 max, min, ts;

	si = kunit_kzalloc(test, sizeof(*si), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, si);
	si->max_run_delay = 50;
	si->min_run_delay = 20;
	si->max_run_delay_ts = 1000;
	KUNIT_ASSERT_TRUE(test, cpu_extremes_read(si, &max, &min, &ts));

	cpu_extremes_write_begin(si);
	si->max_run_delay_ts = cpu_time_mid_write(1000);
	KUNIT_EXPECT_FALSE(test, cpu_extremes_read(si, &max, &min, &ts));
	si->max_run_delay = 70;
	si->min_run_delay = 10;
	si->max_run_delay_ts = cpu_time_mid_write(2000);
	KUNIT_EXPECT_FALSE(test, cpu_extremes_read(si, &max, &min, &ts));
	si->max_run_delay_ts = 2000;
	cpu_extremes_write_end(si);

	KUNIT_ASSERT_TRUE(test, cpu_extremes_read(si, &max, &min, &ts));
	KUNIT_EXPECT_EQ(test, max, 70ULL);
	KUNIT_EXPECT_EQ(test, min, 10ULL);
	KUNIT_EXPECT_EQ(test, ts, 2000ULL);
}

static struct kunit_case delayacct_test_cases[] = {
	KUNIT_CASE(delayacct_total_wraps_to_zero_and_count_goes_on),
	KUNIT_CASE(delayacct_total_is_exact_up_to_the_limit),
	KUNIT_CASE(delayacct_extremes_follow_the_delays),
	KUNIT_CASE(delayacct_merge_sums_a_group),
	KUNIT_CASE(delayacct_end_without_start_is_ignored),
	KUNIT_CASE(delayacct_start_before_switch_on_is_discarded),
	KUNIT_CASE(delayacct_switching_on_again_keeps_waits_in_flight),
	KUNIT_CASE(delayacct_cpu_extremes_are_of_whole_waits),
	KUNIT_CASE(delayacct_cpu_extremes_follow_the_range),
	KUNIT_CASE(delayacct_cpu_extremes_are_not_read_half_written),
	{}
};

static struct kunit_suite delayacct_test_suite = {
	.name = "delayacct",
	.test_cases = delayacct_test_cases,
};

kunit_test_suite(delayacct_test_suite);

/* The count and total the copy-out test gives class @c: none alike. */
static u32 delayacct_test_count(int c)
{
	return 101 + c;
}

static u64 delayacct_test_total(int c)
{
	return ((u64)(c + 1) << 32) + 1001 + c;
}

/*
 * Each class reaches userspace in the fields named after it: a task with
 * a distinct count and total in every class, and in the cpu class and
 * run times (sched_info, utime, stime, sum_exec_runtime), fills a record
 * in which each value lands where the uapi names it, and every other
 * byte stays zero. The expected record is written field by field, apart
 * from the kernel's table of offsets.
 */
static void delayacct_each_class_fills_its_own_fields(struct kunit *test)
{
	struct taskstats *got, *want;
	struct task_struct *t;
	u64 utime, stime;
	int c;

	t = kunit_kzalloc(test, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	t->delays = kunit_kzalloc(test, sizeof(*t->delays), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t->delays);
	raw_spin_lock_init(&t->delays->lock);
	got = kunit_kzalloc(test, sizeof(*got), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, got);
	want = kunit_kzalloc(test, sizeof(*want), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, want);

	for (c = 0; c < DELAYACCT_NR_CLASSES; c++) {
		t->delays->count[c] = delayacct_test_count(c);
		t->delays->total[c] = delayacct_test_total(c);
	}
	t->delays->classes = BIT(DELAYACCT_NR_CLASSES) - 1;
	t->sched_info.pcount = 90;
	t->sched_info.run_delay = (9ULL << 32) + 999;
	t->utime = 3;
	t->stime = 5;
	t->se.sum_exec_runtime = 7;

	KUNIT_EXPECT_EQ(test, delayacct_add_tsk(got, t), 0);

#define DELAYACCT_WANT(name, class) do {				\
	int c_ = (class);						\
									\
	want->name##_count = delayacct_test_count(c_);			\
	want->name##_delay_total = delayacct_test_total(c_);		\
	KUNIT_EXPECT_EQ_MSG(test, got->name##_count, want->name##_count,	\
			    #name);						\
	KUNIT_EXPECT_EQ_MSG(test, got->name##_delay_total,		\
			    want->name##_delay_total, #name);		\
} while (0)
	DELAYACCT_WANT(blkio, DELAYACCT_BLKIO);
	DELAYACCT_WANT(swapin, DELAYACCT_SWAPIN);
	DELAYACCT_WANT(freepages, DELAYACCT_FREEPAGES);
	DELAYACCT_WANT(thrashing, DELAYACCT_THRASHING);
	DELAYACCT_WANT(compact, DELAYACCT_COMPACT);
	DELAYACCT_WANT(wpcopy, DELAYACCT_WPCOPY);
	DELAYACCT_WANT(irq, DELAYACCT_IRQ);
#undef DELAYACCT_WANT
	want->cpu_count = 90;
	want->cpu_delay_total = (9ULL << 32) + 999;
	task_cputime(t, &utime, &stime);
	want->cpu_run_real_total = utime + stime;
	task_cputime_scaled(t, &utime, &stime);
	want->cpu_scaled_run_real_total = utime + stime;
	want->cpu_run_virtual_total = 7;
	KUNIT_EXPECT_EQ(test, got->cpu_count, want->cpu_count);
	KUNIT_EXPECT_EQ(test, got->cpu_delay_total, want->cpu_delay_total);
	KUNIT_EXPECT_EQ(test, got->cpu_run_virtual_total, want->cpu_run_virtual_total);
	/* Nothing anywhere else. */
	KUNIT_EXPECT_MEMEQ(test, got, want, sizeof(*got));
}

/* Filling a record from a task: a suite of its own. */
static struct kunit_case delayacct_report_test_cases[] = {
	KUNIT_CASE(delayacct_each_class_fills_its_own_fields),
	{}
};

static struct kunit_suite delayacct_report_test_suite = {
	.name = "delayacct_report",
	.test_cases = delayacct_report_test_cases,
};

kunit_test_suite(delayacct_report_test_suite);
