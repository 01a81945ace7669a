// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats: the exit path: a thread folded into its group's record,
 * and the record sent to the listeners that may hear of it.
 *
 * Cost on the exit path: with no listener on the exiting CPU and a
 * single-threaded process, taskstats_exit() is two loads (the family's
 * flag, signal->stats) and a list_empty() check; a task of a child pid
 * namespace adds an atomic read and, once any such namespace has a
 * listener, an SRCU read section over a walk up its namespaces. A
 * multi-threaded group additionally folds the exiting thread into
 * signal->stats under signal->stats_lock. With listeners, the record is
 * collected once per run of listeners that share a view and the message
 * cloned per listener; the last thread of a group also sums the group,
 * once, if one of them may read its leader. A listener of one cgroup
 * costs the exits of other cgroups a compare of ids (two loads, three
 * for a subtree), made before anything else is checked.
 */
#include <linux/acct.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/taskstats_kern.h>
#include <net/genetlink.h>

#include "internal.h"

struct kmem_cache *taskstats_cache;

/*
 * signal->stats of a multi-threaded group, allocated on first use; NULL
 * for a single-threaded one.
 *
 * The allocation must not fail: the exiting thread's counts have nowhere
 * else to go, and every later record of the group, GET, dump or exit,
 * would silently lack them. It is charged to the group's memory cgroup,
 * where a dying task's charge fails by design at the limit
 * (try_charge_memcg()), so any user could make a group drop its threads.
 * __GFP_NOFAIL forces the charge instead: at most one record per group
 * over the limit.
 */
static struct taskstats *group_stats(struct task_struct *tsk)
{
	struct signal_struct *sig = tsk->signal;
	struct taskstats *stats, *new;
	unsigned long flags;

	/* Pairs with smp_store_release() below. */
	stats = smp_load_acquire(&sig->stats);
	if (stats || thread_group_empty(tsk))
		return stats;

	new = kmem_cache_zalloc(taskstats_cache, GFP_KERNEL | __GFP_NOFAIL);
	/* Publishing a zeroed record changes no sum: no sequence bump. */
	read_seqlock_excl_irqsave(&sig->stats_lock, flags);
	stats = sig->stats;
	if (!stats) {
		/* Publishes the zeroed record to lockless readers. */
		smp_store_release(&sig->stats, new);
		stats = new;
		new = NULL;
	}
	read_sequnlock_excl_irqrestore(&sig->stats_lock, flags);
	if (new)
		kmem_cache_free(taskstats_cache, new);
	return stats;
}

/*
 * Folds the exiting thread into its group's record of exited threads and
 * marks it so, in one write section of signal->stats_lock, which tells
 * ts_group_sum() to walk again. The thread then closes its files and more
 * before it leaves the thread list (a file's flush can hold it there at
 * will); without the mark ts_group_sum() would count it twice meanwhile.
 * The mark is set once, by the thread itself in do_exit(), after which it
 * never forks: no child inherits it.
 */
static void group_fold_exit(struct task_struct *tsk, struct taskstats *group)
{
	struct signal_struct *sig = tsk->signal;
	struct group_times times = {};
	unsigned long flags;

	write_seqlock_irqsave(&sig->stats_lock, flags);
	ts_group_add_thread(group, &times, tsk, ktime_get_ns());
	ts_group_add_times(group, &times);
	tsk->taskstats_folded = 1;
	write_sequnlock_irqrestore(&sig->stats_lock, flags);
}

/*
 * The record of the group whose last live thread @tsk is, for its exit
 * message: summed as for a GET, so that a thread that left the group's
 * live count before @tsk, but has not folded itself in yet, counts too.
 * ERR_PTR(-ENOMEM) if there is no room for it: the listeners that were
 * to hear of the group are told of a lost message. Not charged to the
 * group's memory cgroup, where a dying task's charge may fail: it is
 * freed before taskstats_exit() returns.
 */
static struct taskstats *group_exit_sum(struct task_struct *tsk)
{
	struct taskstats *sum = kmalloc(sizeof(*sum), GFP_KERNEL);

	if (!sum)
		return ERR_PTR(-ENOMEM);
	ts_group_sum(tsk, sum);	/* 0: @tsk is current */
	return sum;
}

/*
 * The exit message number @seqnum of @tsk with the ids of @rq's
 * namespaces, with the record of its group @group unless that is NULL;
 * none if @group is an error. With the cgroup ids @rq asked for: the
 * cgroup @tsk exits in, its leader's for the group.
 */
static struct sk_buff *exit_msg(struct task_struct *tsk, int group_dead,
				const struct taskstats *group,
				const struct requester *rq, u32 seqnum)
{
	struct taskstats *stats;
	struct sk_buff *skb;
	struct ts_msg msg;

	if (IS_ERR(group))
		return NULL;
	skb = genlmsg_new((group ? 2 : 1) * ts_record_size(rq->cgroup_id),
			  GFP_KERNEL);
	if (!skb)
		return NULL;
	stats = ts_msg_open(skb, 0, seqnum, 0, TASKSTATS_TYPE_PID,
			    task_pid_nr_ns(tsk, rq->pid_ns), &msg);
	if (!stats)
		goto fail;
	ts_collect_task(stats, tsk, rq);
	if (group_dead)
		stats->ac_flag |= AGROUP;
	if (rq->cgroup_id && ts_record_put_cgroup_id(skb, &msg, tsk))
		goto fail;
	if (group) {
		stats = ts_record_open(skb, &msg, TASKSTATS_TYPE_TGID,
				       task_tgid_nr_ns(tsk, rq->pid_ns));
		if (!stats)
			goto fail;
		memcpy(stats, group, sizeof(*stats));
		stats->version = TASKSTATS_VERSION;
		if (rq->cgroup_id &&
		    ts_record_put_cgroup_id(skb, &msg, tsk->group_leader))
			goto fail;
	}
	return skb;
fail:
	nlmsg_free(skb);
	return NULL;
}

/*
 * Sends @tsk's exit to the listeners of one CPU of one pid namespace that
 * may hear of it: those of every cgroup or of @cgrp, where @tsk exits (or
 * of an ancestor, for a subtree). Of those the initial namespace's admin
 * hears of every task, any other listener of the tasks it could read, and
 * of the group's record (@group, when @tsk is the last of a
 * multi-threaded group) only if it could read the leader, as a TGID GET
 * judges it. Listeners sharing namespaces, that verdict, the I/O
 * counters' precision and the cgroup ids (usually all of them) share one
 * message, cloned.
 *
 * Each CPU of each namespace numbers the exits its listeners hear
 * (nlmsg_seq), with a number of the namespace's own, so that a gap never
 * tells of the exits other namespaces hear. To a listener that may read
 * every task of its namespace a gap is a lost message; to any other it
 * may also be the exit of a task it may not read.
 *
 * @group is NULL unless @tsk ends a multi-threaded group; then *@group is
 * the group's record, summed for the first listener that may read it and
 * kept for the others. Any listener in any container sends every exit
 * in every container this way; only one that hears of the group makes
 * its end pay for the sum (an allocation and a walk of the group).
 */
static void notify_listeners(struct task_struct *tsk, int group_dead,
			     struct taskstats **group, struct cpu_listeners *cl,
			     struct cgroup *cgrp)
{
	const unsigned int mode = PTRACE_MODE_READ_FSCREDS | PTRACE_MODE_NOAUDIT;
	struct task_struct *leader = tsk->group_leader;
	const struct requester *view = NULL;
	struct sk_buff *msg = NULL, *skb;
	struct listener_link *link;
	bool view_group = false, numbered = false;
	u32 seqnum = 0;
	u64 seq;

	/* Pairs with ts_listener_add(): links of a later seq are not ours. */
	seq = atomic64_read_acquire(&cl->seq);

	list_for_each_entry_srcu(link, &cl->list, node,
				 srcu_read_lock_held(&ts_listeners_srcu)) {
		const struct requester *rq = &link->l->rq;
		bool with_group;

		if (link->seq > seq)
			continue;	/* added during this walk */
		if (!ts_cgroup_filter_match(&link->l->cg, cgrp) ||
		    !ts_may_read(rq, tsk, mode))
			continue;
		with_group = group && (leader == tsk || ts_may_read(rq, leader, mode));
		if (with_group && !*group)
			*group = group_exit_sum(tsk);
		if (!numbered) {	/* the first to hear it */
			seqnum = atomic_inc_return(&cl->seqnum) - 1;
			numbered = true;
		}
		/* A message that failed to build is built again for the next. */
		if (!msg || view->pid_ns != rq->pid_ns ||
		    view->cred->user_ns != rq->cred->user_ns ||
		    view->io_exact != rq->io_exact ||
		    view->cgroup_id != rq->cgroup_id ||
		    view_group != with_group) {
			nlmsg_free(msg);
			view = rq;
			view_group = with_group;
			msg = exit_msg(tsk, group_dead, with_group ? *group : NULL,
				       view, seqnum);
		}
		skb = msg ? skb_clone(msg, GFP_KERNEL) : NULL;
		if (skb)
			ts_listener_send(link->l->sk, skb);
		else
			ts_listener_lost(link->l->sk);
	}
	nlmsg_free(msg);
}

/*
 * Whether anyone may listen to @tsk's exit on @cpu. The lists are read
 * without SRCU: a listener registering at this very moment may miss this
 * exit, as it would had it registered a moment later. A task of the
 * initial pid namespace only looks at that namespace's list.
 */
static bool exit_heard(struct task_struct *tsk, unsigned int cpu)
{
	if (!list_empty(&per_cpu_ptr(ts_init_listeners.cpu, cpu)->list))
		return true;
	return task_active_pid_ns(tsk)->level && atomic_read(&ts_nr_nsl);
}

/**
 * taskstats_exit() - account an exiting task and tell the listeners.
 * @tsk: the exiting task (current)
 * @group_dead: whether @tsk is the last live thread of its group
 *
 * The listeners are those of the CPU @tsk exits on, in its pid namespace
 * and each ancestor: those that see it.
 */
void taskstats_exit(struct task_struct *tsk, int group_dead)
{
	unsigned int cpu = raw_smp_processor_id();
	struct taskstats *group, *sum = NULL;
	struct pid_namespace *ns;
	struct cgroup *cgrp;
	int idx;

	if (!ts_family_registered)
		return;

	group = group_stats(tsk);
	if (group)
		group_fold_exit(tsk, group);

	if (!exit_heard(tsk, cpu))
		return;
	cgrp = ts_exit_cgroup(tsk);
	idx = srcu_read_lock(&ts_listeners_srcu);
	for (ns = task_active_pid_ns(tsk); ns; ns = ns->parent) {
		struct taskstats_listeners *nsl = ts_nsl_find(ns);

		if (nsl)
			notify_listeners(tsk, group_dead,
					 group && group_dead ? &sum : NULL,
					 per_cpu_ptr(nsl->cpu, cpu), cgrp);
	}
	srcu_read_unlock(&ts_listeners_srcu, idx);
	if (!IS_ERR(sum))
		kfree(sum);
}
