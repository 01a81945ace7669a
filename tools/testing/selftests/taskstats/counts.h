/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of cgroupstats share: the counting of a thread by the
 * state letter /proc shows for it, and the comparison and the display of
 * two sets of counts, field by field, so that a failure names the field.
 */
#ifndef TS_COUNTS_H
#define TS_COUNTS_H

#include <stdbool.h>
#include <stdio.h>
#include <linux/cgroupstats.h>

#include "../kselftest_harness.h"

/*
 * Counts a thread in state @s into @cs as CGROUPSTATS_CMD_GET should: R
 * as running, S as sleeping, T and t as stopped, D as waiting for I/O if
 * @io and as uninterruptible otherwise, any other letter nowhere.
 */
static inline void ts_count_state(struct cgroupstats *cs, int s, bool io)
{
	switch (s) {
	case 'R':
		cs->nr_running++;
		break;
	case 'S':
		cs->nr_sleeping++;
		break;
	case 'D':
		if (io)
			cs->nr_io_wait++;
		else
			cs->nr_uninterruptible++;
		break;
	case 'T':
	case 't':
		cs->nr_stopped++;
		break;
	}
}

/* Whether every field of @a is @b's. */
static inline bool ts_same_counts(const struct cgroupstats *a,
				  const struct cgroupstats *b)
{
	return a->nr_sleeping == b->nr_sleeping && a->nr_running == b->nr_running &&
	       a->nr_stopped == b->nr_stopped &&
	       a->nr_uninterruptible == b->nr_uninterruptible &&
	       a->nr_io_wait == b->nr_io_wait;
}

/* @cs, field by field, into @buf of @size bytes. Return: @buf. */
static inline const char *ts_show_counts(const struct cgroupstats *cs, char *buf,
					 size_t size)
{
	snprintf(buf, size,
		 "sleeping %llu running %llu stopped %llu uninterruptible %llu io_wait %llu",
		 (unsigned long long)cs->nr_sleeping, (unsigned long long)cs->nr_running,
		 (unsigned long long)cs->nr_stopped,
		 (unsigned long long)cs->nr_uninterruptible,
		 (unsigned long long)cs->nr_io_wait);
	return buf;
}

/* Every field of the counts @got is @want's. */
static inline void ts_expect_counts(struct __test_metadata *_metadata,
				    const struct cgroupstats *want,
				    const struct cgroupstats *got)
{
	EXPECT_EQ(want->nr_sleeping, got->nr_sleeping);
	EXPECT_EQ(want->nr_running, got->nr_running);
	EXPECT_EQ(want->nr_stopped, got->nr_stopped);
	EXPECT_EQ(want->nr_uninterruptible, got->nr_uninterruptible);
	EXPECT_EQ(want->nr_io_wait, got->nr_io_wait);
}

#endif
