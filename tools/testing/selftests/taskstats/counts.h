/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of cgroupstats share: the comparison of two sets of
 * counts, field by field, so that a failure names the field.
 */
#ifndef TS_COUNTS_H
#define TS_COUNTS_H

#include <linux/cgroupstats.h>

#include "../kselftest_harness.h"

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
