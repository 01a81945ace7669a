// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats: a task's or a thread group's record, collected for a
 * requester, and its place in a message.
 *
 * A thread group's record is the sum over its live threads plus the sum
 * over its threads that already exited. The latter is kept in
 * signal->stats, allocated when the first thread of a multi-threaded group
 * exits. An exiting thread moves from the first sum to the second when
 * taskstats_exit() folds it in, although it stays in the thread list until
 * exit_notify(): it counts once, whenever the group is read. The fold
 * writes signal->stats_lock. A reader walks the group once without a
 * lock and, if a fold or a release overlapped that walk, once more
 * holding the lock (ts_group_sum()).
 */
#include <linux/delayacct.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/jiffies.h>
#include <linux/rwsem.h>
#include <linux/sched/cputime.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/taskstats_kern.h>
#include <linux/tsacct_kern.h>
#include <net/genetlink.h>

#include "internal.h"

static void exe_add_tsk(struct taskstats *stats, struct task_struct *tsk)
{
	struct file *exe_file = get_task_exe_file(tsk);

	if (!exe_file)
		return;
	stats->ac_exe_dev = huge_encode_dev(exe_file->f_inode->i_sb->s_dev);
	stats->ac_exe_inode = exe_file->f_inode->i_ino;
	fput(exe_file);
}

/* The I/O counters as a requester without exact access gets them: in KiB. */
static void round_io(struct taskstats *stats)
{
	stats->read_char = round_down(stats->read_char, 1024);
	stats->write_char = round_down(stats->write_char, 1024);
	stats->read_syscalls = round_down(stats->read_syscalls, 1024);
	stats->write_syscalls = round_down(stats->write_syscalls, 1024);
	stats->read_bytes = round_down(stats->read_bytes, 1024);
	stats->write_bytes = round_down(stats->write_bytes, 1024);
	stats->cancelled_write_bytes =
		round_down(stats->cancelled_write_bytes, 1024);
}

/**
 * ts_collect_task() - collect the record of one task
 * @stats: the record, overwritten
 * @tsk: the task
 * @rq: whose view of ids and I/O counters the record takes
 *
 * Everything @rq may know about one task, ids as @rq sees them.
 */
void ts_collect_task(struct taskstats *stats, struct task_struct *tsk,
		     const struct requester *rq)
{
	memset(stats, 0, sizeof(*stats));
	stats->version = TASKSTATS_VERSION;
	delayacct_add_tsk(stats, tsk);
	bacct_add_tsk(rq->cred->user_ns, rq->pid_ns, stats, tsk);
	stats->nvcsw = tsk->nvcsw;
	stats->nivcsw = tsk->nivcsw;
	xacct_add_tsk(stats, tsk);
	if (!rq->io_exact)
		round_io(stats);
	exe_add_tsk(stats, tsk);
}

/**
 * ts_group_add_thread() - add one thread to a thread group's sum
 * @stats: the group's record
 * @times: the group's times, in ns
 * @tsk: the thread
 * @now_ns: the time of the sum (ktime_get_ns())
 *
 * What a thread contributes to its group's record: delays and run times,
 * elapsed time, CPU time (into @times) and context switches. Other fields
 * of a group record stay zero.
 */
void ts_group_add_thread(struct taskstats *stats, struct group_times *times,
			 struct task_struct *tsk, u64 now_ns)
{
	u64 utime, stime;

	delayacct_add_tsk(stats, tsk);
	task_cputime(tsk, &utime, &stime);
	times->etime += now_ns - tsk->start_time;
	times->utime += utime;
	times->stime += stime;
	stats->nvcsw += tsk->nvcsw;
	stats->nivcsw += tsk->nivcsw;
}

/**
 * ts_group_add_times() - add the summed times to a group's record
 * @stats: the group's record
 * @times: the times ts_group_add_thread() summed
 */
void ts_group_add_times(struct taskstats *stats,
			const struct group_times *times)
{
	stats->ac_etime += div_u64(times->etime, NSEC_PER_USEC);
	stats->ac_utime += div_u64(times->utime, NSEC_PER_USEC);
	stats->ac_stime += div_u64(times->stime, NSEC_PER_USEC);
}

/*
 * One walk of a group for ts_group_sum(): the exited threads' record, then
 * the live threads not yet folded into it, into @stats and @times.
 */
static void group_walk(struct signal_struct *sig, struct taskstats *stats,
		       struct group_times *times)
{
	const struct taskstats *exited;
	struct task_struct *t;
	u64 now_ns;

	/* Pairs with group_stats()' smp_store_release(). */
	exited = smp_load_acquire(&sig->stats);
	if (exited)
		memcpy(stats, exited, sizeof(*stats));
	else
		memset(stats, 0, sizeof(*stats));
	memset(times, 0, sizeof(*times));
	now_ns = ktime_get_ns();
	__for_each_thread(sig, t) {
		/* data_race(): the thread writes the other bits of the word. */
		if (!t->exit_state && data_race(!t->taskstats_folded))
			ts_group_add_thread(stats, times, t, now_ns);
	}
}

/**
 * ts_group_sum() - sum a thread group, its exited threads included
 * @tsk: a thread of the group, referenced by the caller
 * @stats: the sum, overwritten
 *
 * Sums the group of @tsk: its exited threads (signal->stats, a zombie
 * leader included) plus its live ones, those not folded into the former
 * yet. Any user may ask for the sum of its own groups, so the walk holds
 * no lock: under siglock, with interrupts off for as long as the largest
 * group takes to sum, each release of one of its threads (which takes
 * siglock under tasklist_lock) would have held up every fork and exit of
 * the system meanwhile. A walk that overlapped a fold or a release (both
 * write signal->stats_lock) is made again under that lock, as getrusage()
 * and /proc/PID/io make theirs: its cost is then theirs, a lock held over
 * the group, which only a group exiting threads as it is read pays.
 * Returns 0, or -ESRCH if the group was reaped; the caller's reference
 * keeps @tsk.
 *
 * Return: 0, or -ESRCH if the group was reaped.
 */
int ts_group_sum(struct task_struct *tsk, struct taskstats *stats)
{
	struct signal_struct *sig = tsk->signal;
	struct group_times times;
	unsigned long flags;
	unsigned int seq;

	rcu_read_lock();
	if (!pid_alive(tsk)) {
		rcu_read_unlock();
		return -ESRCH;
	}
	seq = read_seqbegin(&sig->stats_lock);
	group_walk(sig, stats, &times);
	if (read_seqretry(&sig->stats_lock, seq)) {
		read_seqlock_excl_irqsave(&sig->stats_lock, flags);
		group_walk(sig, stats, &times);
		read_sequnlock_excl_irqrestore(&sig->stats_lock, flags);
	}
	rcu_read_unlock();
	ts_group_add_times(stats, &times);
	return 0;
}

/* The record of @leader's thread group. */
static int collect_group(struct task_struct *leader, struct taskstats *stats)
{
	int ret;

	ret = ts_group_sum(leader, stats);
	stats->version = TASKSTATS_VERSION;
	return ret;
}

/*
 * How long a dump's later part waits for an exec to release a task's
 * exec_update_lock: an ordinary exec holds it for far less.
 */
#define EXEC_WAIT	(HZ / 10)

/*
 * Takes @lock, a task's exec_update_lock, for reading. No request waits
 * for an exec as long as it holds the lock, which is as long as its old
 * mm's pending AIO takes (mmput() waits for it, on a FUSE file as long as
 * its server likes). A GET, and a dump's first part, run under
 * genetlink's cb_lock, which every family's registration takes for
 * writing, and the requests of every family queue behind that writer: an
 * exec gives them -EAGAIN at once (unless @may_wait). A dump's later
 * parts run from recvmsg(), outside cb_lock but under the socket's dump
 * mutex, which a new request on that socket takes under cb_lock, without
 * a timeout: the same stall, one lock removed. They wait EXEC_WAIT, then
 * give -EAGAIN too; -EINTR on a fatal signal. A dump skips the task.
 */
static int exec_lock_read(struct rw_semaphore *lock, bool may_wait)
{
	unsigned long give_up = jiffies + EXEC_WAIT;

	while (!down_read_trylock(lock)) {
		if (!may_wait || time_after(jiffies, give_up))
			return -EAGAIN;
		schedule_timeout_killable(1);
		if (fatal_signal_pending(current))
			return -EINTR;
	}
	return 0;
}

/**
 * ts_read_record() - collect a task's or a group's record for a requester
 * @rq: the requester
 * @tsk: the task, or the group's leader; referenced by the caller
 * @nr: the pid number @rq named @tsk by
 * @group: the record of @tsk's thread group
 * @mode: PTRACE_MODE_* of the access check
 * @may_wait: whether to wait a moment for an exec in progress
 * @stats: the record, overwritten
 *
 * Collects the record of @tsk, found by pid number @nr, or of its thread
 * group if @group (@tsk is then its leader), if @rq may read it. As for
 * /proc/PID/io, the check and the collection are made under
 * exec_update_lock: an exec between them could make a task readable a
 * moment ago a setuid program. The initial namespace's admin reads
 * everything and takes no lock.
 *
 * See exec_lock_read() for what an exec holding the lock gives.
 *
 * -ESRCH if @tsk was reaped, or if it no longer has the pid @nr: a
 * thread's exec gives it its leader's pid (de_thread()), and a record
 * labelled with one id must not describe a task of another.
 *
 * Return: 0, or a negative errno, as above.
 */
int ts_read_record(const struct requester *rq, struct task_struct *tsk,
		   u32 nr, bool group, unsigned int mode, bool may_wait,
		   struct taskstats *stats)
{
	struct rw_semaphore *exec_lock = &tsk->signal->exec_update_lock;
	int ret = 0;

	if (!rq->admin) {
		if (!ts_may_open(rq, tsk, mode))
			return -EPERM;
		ret = exec_lock_read(exec_lock, may_wait);
		if (ret)
			return ret;
		if (!ts_may_read(rq, tsk, mode)) {
			ret = -EPERM;
			goto out;
		}
	}
	if (group) {
		ret = collect_group(tsk, stats);
	} else {
		ts_collect_task(stats, tsk, rq);
		/* Reaped meanwhile (its ids read as 0), or renumbered. */
		if (!pid_alive(tsk) || stats->ac_pid != nr)
			ret = -ESRCH;
	}
out:
	if (!rq->admin)
		up_read(exec_lock);
	return ret;
}

/*
 * A record goes on the wire as AGGR_{PID,TGID}{ {PID,TGID}, [NULL,]
 * STATS }, the empty NULL attribute only where STATS would otherwise not
 * start 8-byte aligned on an architecture that cares; one asked for with
 * its cgroup id ends with [NULL,] CGROUP_ID (ts_record_put_cgroup_id()).
 * The collectors write straight into the STATS attribute reserved for
 * them: collecting into a buffer and copying it in would add a slab round
 * trip and a 688-byte copy to every GET, dump record and exit event.
 *
 * That layout is fixed, so a record, and the headers of its message, are
 * laid out with one room check and one __skb_put(), headers written in
 * place (genlmsg_hdr_put(), nla_hdr_put()), rather than attribute by
 * attribute: the framing that sending each dumped record in a message of
 * its own adds is one bounds check.
 */

/* The pad a record laid out at @at needs before STATS: 0 or NLA_HDRLEN. */
static size_t record_pad(const void *at)
{
	return nla_pad_64bit_len(at + TS_RECORD_HEAD);
}

static size_t record_len(size_t pad)
{
	return TS_RECORD_HEAD + pad + nla_total_size(sizeof(struct taskstats));
}

/* Writes the headers of a record of @id at @at; returns its stats. */
static struct taskstats *record_lay(void *at, size_t pad, int id_type,
				    u32 id)
{
	int aggr = id_type + TASKSTATS_TYPE_AGGR_PID - TASKSTATS_TYPE_PID;
	struct nlattr *na;

	static_assert(TASKSTATS_TYPE_AGGR_TGID - TASKSTATS_TYPE_TGID ==
		      TASKSTATS_TYPE_AGGR_PID - TASKSTATS_TYPE_PID);

	nla_hdr_put(at, aggr, record_len(pad) - NLA_HDRLEN);
	na = nla_hdr_put(at + NLA_HDRLEN, id_type, sizeof(u32));
	*(u32 *)nla_data(na) = id;
	at += TS_RECORD_HEAD;
	if (pad)
		nla_hdr_put(at, TASKSTATS_TYPE_NULL, 0);
	na = nla_hdr_put(at + pad, TASKSTATS_TYPE_STATS,
			 sizeof(struct taskstats));
	return nla_data(na);
}

/**
 * ts_record_open() - add a record to the message at the end of an skb
 * @skb: the message's skb
 * @msg: the message, which ts_msg_open() started
 * @id_type: TASKSTATS_TYPE_PID or TASKSTATS_TYPE_TGID
 * @id: the pid or tgid the record is of
 *
 * Adds a record of @id to @msg, the message at the end of @skb, and
 * counts it in the message's length: returns the room for its stats, or
 * NULL (leaving @skb and @msg as they were) if it does not fit.
 *
 * Return: the room for the record's stats, or NULL if it does not fit.
 */
struct taskstats *ts_record_open(struct sk_buff *skb, struct ts_msg *msg,
				 int id_type, u32 id)
{
	void *at = skb_tail_pointer(skb);
	size_t pad = record_pad(at);

	if (skb_tailroom(skb) < record_len(pad))
		return NULL;
	__skb_put(skb, record_len(pad));
	msg->nlh->nlmsg_len += record_len(pad);
	return record_lay(at, pad, id_type, id);
}

/**
 * ts_msg_open() - start a TASKSTATS_CMD_NEW message with its first record
 * @skb: where the message goes
 * @portid: netlink port id of the receiver, 0 for an event
 * @seq: sequence number of the message
 * @flags: netlink message flags
 * @id_type: TASKSTATS_TYPE_PID or TASKSTATS_TYPE_TGID
 * @id: the pid or tgid the first record is of
 * @msg: the message, for ts_record_open() or nlmsg_cancel()
 *
 * Opens a TASKSTATS_CMD_NEW message in @skb with a first record of @id,
 * as genlmsg_put() and ts_record_open() would, with one room check:
 * returns the room for its stats, or NULL (leaving @skb as it was) if
 * the two do not fit. Its length is set: the message is complete, with
 * no genlmsg_end(), as ts_record_open() keeps it when it adds a record.
 * nlmsg_cancel(@skb, @msg->nlh) takes it back.
 *
 * Return: the room for the first record's stats, or NULL if it does not
 * fit.
 */
struct taskstats *ts_msg_open(struct sk_buff *skb, u32 portid, u32 seq,
			      int flags, int id_type, u32 id,
			      struct ts_msg *msg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)skb_tail_pointer(skb);
	void *at = (void *)nlh + NLMSG_HDRLEN + GENL_HDRLEN;
	size_t pad = record_pad(at);
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN + record_len(pad);

	if (skb_tailroom(skb) < len)
		return NULL;
	__skb_put(skb, len);
	genlmsg_hdr_put(nlh, len, portid, seq, &ts_family, flags,
			TASKSTATS_CMD_NEW);
	msg->nlh = nlh;
	return record_lay(at, pad, id_type, id);
}

/*
 * The AGGR nest of the last record of @nlh: the last attribute after the
 * genetlink header, as ts_msg_open() and ts_record_open() count each
 * record in the message's length. A message holds one or two records.
 */
static struct nlattr *last_record(const struct nlmsghdr *nlh)
{
	struct nlattr *pos, *last = NULL;
	int rem;

	nlmsg_for_each_attr(pos, nlh, GENL_HDRLEN, rem)
		last = pos;
	return last;
}

/**
 * ts_record_put_cgroup_id() - add the cgroup id to a message's last record
 * @skb: the message's skb
 * @msg: the message, whose last record is the last thing in @skb
 * @tsk: the task whose cgroup v2 id the record carries, referenced
 *
 * Appends TASKSTATS_TYPE_CGROUP_ID to the AGGR nest of the record
 * ts_msg_open() or ts_record_open() added last, after its STATS, and
 * counts it in the nest's and the message's lengths (a NULL pad before
 * it where a u64 must be aligned). Only a requester that asked for it
 * gets it: every other record keeps the fixed layout existing clients
 * know, and pays only the caller's test of the flag; the nest is found
 * again here, by walking the message's one or two records.
 *
 * Return: 0, or -EMSGSIZE (leaving @skb and @msg as they were) if it
 * does not fit.
 */
int ts_record_put_cgroup_id(struct sk_buff *skb, struct ts_msg *msg,
			    struct task_struct *tsk)
{
	struct nlattr *rec = last_record(msg->nlh);

	if (nla_put_u64_64bit(skb, TASKSTATS_TYPE_CGROUP_ID,
			      ts_task_cgroup_id(tsk), TASKSTATS_TYPE_NULL))
		return -EMSGSIZE;
	nla_nest_end(skb, rec);
	nlmsg_end(skb, msg->nlh);
	return 0;
}
