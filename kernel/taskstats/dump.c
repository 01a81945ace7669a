// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats: GET with NLM_F_DUMP, one message per task or thread
 * group, of the requester's pid namespace or of one cgroup.
 *
 * Dump: a GET with NLM_F_DUMP walks the requester's pid namespace in pid
 * order and streams one message per task (or per thread group with
 * TASKSTATS_CMD_ATTR_DUMP_TGID), each with one record, as many messages
 * per skb as fit. The cursor is the next pid number, so a dump resumed
 * across skbs sees every task that lives through it exactly once,
 * whatever forks and exits meanwhile. A dump of one cgroup
 * (DUMP_CGROUP_FD, DUMP_SUBTREE) lists that cgroup's tasks when it starts
 * instead: it costs what the cgroup holds, not what the system does.
 */
#include <linux/netlink.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include "internal.h"

/*
 * The next task of the dump at or after pid number @nr, with a reference,
 * or NULL at the end; *@nr is set to its pid number. A thread group dump
 * only stops at group leaders: the threads of one process may be
 * thousands of pids in a row, so the skipping leaves the RCU read side
 * and yields the CPU every 256 of them.
 */
static struct task_struct *pid_walk_next(struct pid_namespace *ns, int *nr,
					 bool tgid)
{
	struct task_struct *tsk = NULL;
	struct pid *pid;
	unsigned int n;

	for (;;) {
		rcu_read_lock();
		for (n = 0; n < 256 && (pid = find_ge_pid(*nr, ns)); n++) {
			*nr = pid_nr_ns(pid, ns);
			tsk = pid_task(pid, tgid ? PIDTYPE_TGID : PIDTYPE_PID);
			if (tsk) {
				get_task_struct(tsk);
				break;
			}
			(*nr)++;
		}
		rcu_read_unlock();
		if (tsk || !pid)
			return tsk;
		cond_resched();
	}
}

/**
 * ts_walk_pause() - yield in a long walk, and stop it on a fatal signal
 * @steps: the walk's step counter, incremented
 *
 * A break in a long walk, every 256 steps. A dump's first part is made in
 * the sender's sendmsg(), under genetlink's cb_lock, and its walk may skip
 * every task of the namespace as unreadable, or list every task of a
 * subtree of cgroups; a fatal signal ends it.
 *
 * Return: 0, or -EINTR on a fatal signal.
 */
int ts_walk_pause(unsigned int *steps)
{
	if (++*steps % 256)
		return 0;
	cond_resched();
	return fatal_signal_pending(current) ? -EINTR : 0;
}

/*
 * A dump in progress, in cb->ctx. The requester is the dump's starter,
 * captured at its start: later parts of the dump are built in
 * netlink_recvmsg(), by whoever reads the socket.
 */
struct dump_ctx {
	struct requester *rq;
	struct cgroup_list *cg;	/* a dump of one cgroup, or NULL */
	int next;		/* the pid walk: pid number to resume from */
	bool tgid;		/* one record per thread group */
	bool later;		/* past the first part: made from recvmsg() */
	bool stalled;		/* an exec outlasted EXEC_WAIT: wait no more */
	unsigned int mid_exec;	/* tasks left out mid-exec */
};

/* The next task of the dump, with a reference; *@nr its id. */
static struct task_struct *dump_next(struct dump_ctx *ctx, int *nr)
{
	if (ctx->cg)
		return ts_cgroup_list_next(ctx->cg, ctx->rq->pid_ns, nr);
	return pid_walk_next(ctx->rq->pid_ns, nr, ctx->tgid);
}

/*
 * Steps a cgroup's dump back one task, which the next dump_next() looks
 * up again; false for the pid walk, which goes on from a pid number.
 */
static bool dump_back(struct dump_ctx *ctx)
{
	if (ctx->cg) {
		ts_cgroup_list_back(ctx->cg);
		return true;
	}
	return false;
}

static struct dump_ctx *dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct dump_ctx) > sizeof(cb->ctx));
	return (struct dump_ctx *)cb->ctx;
}

/**
 * taskstats_dump_start() - start a dump (the .start of TASKSTATS_CMD_GET)
 * @cb: the dump's callback
 *
 * Runs in the sender's context: the cgroup fd, if any, is the sender's.
 * No id attribute is looked at, as always; DUMP_SUBTREE alone is EINVAL.
 * With CGROUP_ID every record carries its task's cgroup id.
 *
 * Return: 0 or a negative errno.
 */
int taskstats_dump_start(struct netlink_callback *cb)
{
	struct nlattr **attrs = genl_dumpit_info(cb)->info.attrs;
	struct dump_ctx *ctx = dump_ctx(cb);
	struct nlattr *cg_fd = NULL;
	bool subtree = false;
	int ret;

	if (attrs) {
		ctx->tgid = nla_get_flag(attrs[TASKSTATS_CMD_ATTR_DUMP_TGID]);
		cg_fd = attrs[TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD];
		subtree = nla_get_flag(attrs[TASKSTATS_CMD_ATTR_DUMP_SUBTREE]);
	}
	if (subtree && !cg_fd)
		return -EINVAL;
	ctx->rq = kmalloc(sizeof(*ctx->rq), GFP_KERNEL_ACCOUNT);
	if (!ctx->rq)
		return -ENOMEM;
	ret = ts_requester_init(ctx->rq, cb->skb, cb->extack);
	if (!ret && attrs)
		ret = ts_requester_opts(ctx->rq, attrs, cb->extack);
	if (ret) {
		kfree(ctx->rq);
		return ret;
	}
	if (cg_fd) {
		struct cgroup_list *l = ts_cgroup_list_start(nla_get_u32(cg_fd),
							     subtree, ctx->tgid,
							     ctx->rq);

		if (IS_ERR(l)) {
			kfree(ctx->rq);
			return PTR_ERR(l);
		}
		ctx->cg = l;
	}
	ts_requester_get(ctx->rq);
	ctx->next = 0;
	return 0;
}

/**
 * taskstats_dump_done() - end a dump (its .done)
 * @cb: the dump's callback
 *
 * Return: 0.
 */
int taskstats_dump_done(struct netlink_callback *cb)
{
	struct dump_ctx *ctx = dump_ctx(cb);

	if (ctx->cg)
		ts_cgroup_list_free(ctx->cg);
	ts_requester_put(ctx->rq);
	kfree(ctx->rq);
	return 0;
}

/*
 * The dump has no task left: NLMSG_DONE follows, and says in its extack how
 * many tasks were skipped mid-exec. If this skb has no room for both, they
 * go in the next.
 */
static int dump_end(struct sk_buff *skb, struct netlink_callback *cb,
		    const struct dump_ctx *ctx)
{
	size_t room;

	if (!ctx->mid_exec || !cb->extack)
		return 0;
	NL_SET_ERR_MSG_FMT(cb->extack, "tasks skipped mid-exec: %u",
			   ctx->mid_exec);
	room = nlmsg_total_size(sizeof(int)) +
	       nla_total_size(strlen(cb->extack->_msg) + 1);
	return skb->len && skb_tailroom(skb) < room ? skb->len : 0;
}

/**
 * taskstats_dumpit() - fill an skb with a dump's next records (its .dumpit)
 * @skb: the skb to fill
 * @cb: the dump's callback
 *
 * GET with NLM_F_DUMP: one TASKSTATS_CMD_NEW message per record, as every
 * netlink dump sends one object per message, and as many messages per
 * call as the skb holds. A task whose message has no room left opens the
 * next skb.
 *
 * Only the starter's credentials continue a dump: a read by any other
 * (another process the socket was passed to, or the starter after an
 * exec or a change of its ids) ends it with EPERM. Judging the reader
 * instead would let a privileged reader fill an unprivileged socket;
 * judging the starter's credentials in the reader's context would let the
 * reader's own tasks pass unjudged.
 *
 * A task in an exec that holds its exec_update_lock (see exec_lock_read())
 * is skipped, not the end of the dump: otherwise one user's stuck exec
 * would cut every other user's dump short at that task, for as long as it
 * likes. A first part cannot wait; after a record, it ends there and the
 * next part waits EXEC_WAIT for the task. A wait in vain is the last of
 * the dump: later tasks mid-exec are skipped at once, so that a thousand
 * stuck execs cost one wait, not a thousand.
 *
 * Return: the length of @skb while the dump goes on, 0 at its end, or a
 * negative errno.
 */
int taskstats_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct dump_ctx *ctx = dump_ctx(cb);
	int id_type = ctx->tgid ? TASKSTATS_TYPE_TGID : TASKSTATS_TYPE_PID;
	const struct requester *rq = ctx->rq;
	int records = 0, retried = -1;
	struct task_struct *tsk;
	struct taskstats *stats;
	int nr = ctx->next;
	bool full = false, first, may_wait;
	struct ts_msg msg;
	unsigned int skipped = 0;
	int ret, err = 0;

	if (current_cred() != rq->cred)
		return -EPERM;
	first = !ctx->later;
	may_wait = !first && !ctx->stalled;
	ctx->later = true;
	for (; (tsk = dump_next(ctx, &nr)); nr++) {
		stats = ts_msg_open(skb, NETLINK_CB(cb->skb).portid,
				    cb->nlh->nlmsg_seq, NLM_F_MULTI, id_type, nr,
				    &msg);
		if (!stats) {		/* full: this task opens the next skb */
			put_task_struct(tsk);
			dump_back(ctx);	/* or the pid walk resumes at nr */
			full = true;
			break;
		}
		ret = ts_read_record(rq, tsk, nr, ctx->tgid,
				     PTRACE_MODE_READ_FSCREDS | PTRACE_MODE_NOAUDIT,
				     may_wait, stats);
		if (!ret && rq->cgroup_id)
			ret = ts_record_put_cgroup_id(skb, &msg, tsk);
		put_task_struct(tsk);
		if (ret) {
			nlmsg_cancel(skb, msg.nlh);
			/*
			 * The id did not fit: as above. Mid-exec after
			 * records: the next part waits a moment.
			 */
			if (ret == -EMSGSIZE || (ret == -EAGAIN && first && records)) {
				dump_back(ctx);
				full = true;
				break;
			}
			if (ret == -EAGAIN) {	/* mid-exec still: left out */
				if (may_wait) {	/* the dump's last wait */
					ctx->stalled = true;
					may_wait = false;
				}
				ctx->mid_exec++;
			}
			/* Left out: not the requester's to read, or mid-exec. */
			if (ret == -EPERM || ret == -EAGAIN) {
				ret = ts_walk_pause(&skipped);
				if (!ret)
					continue;
			}
			if (ret != -ESRCH) {	/* a fatal signal, an exec */
				err = ret;
				break;
			}
			/*
			 * Reaped, or renumbered by an exec; for a group, the
			 * leader was released: the group died, or another
			 * thread's exec made that thread the leader of @nr.
			 * Look @nr up once more to find the new one.
			 */
			if (nr != retried) {
				retried = nr;
				if (!dump_back(ctx))
					nr--;	/* the loop's nr++ returns to it */
			}
			continue;
		}
		records++;
	}
	ctx->next = nr;
	if (err)
		return err;	/* ends the dump, after the records so far */
	if (!full)
		return dump_end(skb, cb, ctx);
	/* A record that fits in no skb at all would loop forever. */
	return records ? skb->len : -EMSGSIZE;
}
