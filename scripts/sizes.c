// SPDX-License-Identifier: GPL-2.0
/*
 * Compiled to assembly inside a kernel tree by `make memory`: emits the
 * sizes of the per-task accounting state, the way asm-offsets does.
 */
#include <linux/kbuild.h>
#include <linux/sched.h>	/* before delayacct.h: upstream's needs it */
#include <linux/delayacct.h>
#include <linux/taskstats.h>

void rig_sizes(void);
void rig_sizes(void)
{
#ifdef CONFIG_TASK_DELAY_ACCT
	DEFINE(RIG_TASK_DELAY_INFO, sizeof(struct task_delay_info));
#endif
	DEFINE(RIG_SCHED_INFO, sizeof(struct sched_info));
	DEFINE(RIG_TASK_STRUCT, sizeof(struct task_struct));
	DEFINE(RIG_TASKSTATS, sizeof(struct taskstats));
	DEFINE(RIG_RAW_SPINLOCK, sizeof(raw_spinlock_t));
}
