/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel side of taskstats: the exit hook and the per-thread-group record.
 */
#ifndef _LINUX_TASKSTATS_KERN_H
#define _LINUX_TASKSTATS_KERN_H

#include <linux/taskstats.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#ifdef CONFIG_TASKSTATS
extern struct kmem_cache *taskstats_cache;

/*
 * signal->stats sums the threads of a group that already exited; it is
 * allocated when the first thread of a multi-threaded group exits.
 */
static inline void taskstats_tgid_free(struct signal_struct *sig)
{
	if (sig->stats)
		kmem_cache_free(taskstats_cache, sig->stats);
}

void taskstats_exit(struct task_struct *tsk, int group_dead);
void taskstats_init_early(void);
#else
static inline void taskstats_exit(struct task_struct *tsk, int group_dead)
{}
static inline void taskstats_tgid_free(struct signal_struct *sig)
{}
static inline void taskstats_init_early(void)
{}
#endif /* CONFIG_TASKSTATS */

#endif /* _LINUX_TASKSTATS_KERN_H */
