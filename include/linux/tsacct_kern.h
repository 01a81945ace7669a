/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Basic and extended accounting collectors for taskstats.
 *
 * bacct_add_tsk() fills who a task is and the CPU time and faults it used;
 * xacct_add_tsk() fills its memory integrals, high-water marks and I/O
 * counters. The memory integrals are advanced from the cputime paths by
 * acct_account_cputime() and at exec and exit by acct_update_integrals():
 * a comparison and, once per tick of CPU time, two multiply-adds.
 */
#ifndef _LINUX_TSACCT_KERN_H
#define _LINUX_TSACCT_KERN_H

#include <linux/taskstats.h>

struct pid_namespace;
struct task_struct;
struct user_namespace;

#ifdef CONFIG_TASKSTATS
void bacct_add_tsk(struct user_namespace *user_ns,
		   struct pid_namespace *pid_ns,
		   struct taskstats *stats, struct task_struct *tsk);
#else
static inline void bacct_add_tsk(struct user_namespace *user_ns,
				 struct pid_namespace *pid_ns,
				 struct taskstats *stats, struct task_struct *tsk)
{}
#endif /* CONFIG_TASKSTATS */

#ifdef CONFIG_TASK_XACCT
void xacct_add_tsk(struct taskstats *stats, struct task_struct *p);
void acct_update_integrals(struct task_struct *tsk);
void acct_account_cputime(struct task_struct *tsk);
void acct_clear_integrals(struct task_struct *tsk);
#else
static inline void xacct_add_tsk(struct taskstats *stats, struct task_struct *p)
{}
static inline void acct_update_integrals(struct task_struct *tsk)
{}
static inline void acct_account_cputime(struct task_struct *tsk)
{}
static inline void acct_clear_integrals(struct task_struct *tsk)
{}
#endif /* CONFIG_TASK_XACCT */

#endif /* _LINUX_TSACCT_KERN_H */
