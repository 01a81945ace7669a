// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats: per-task accounting records over generic netlink.
 *
 * The model. A record is a struct taskstats describing one task (AGGR_PID)
 * or one thread group (AGGR_TGID). Three collectors fill it: basic and
 * extended accounting (tsacct.c) and delay accounting (delayacct.c). A
 * record reaches user space in two ways:
 *
 *  - on request: TASKSTATS_CMD_GET with a PID or TGID attribute is answered
 *    with one TASKSTATS_CMD_NEW message holding one record;
 *  - on exit: a task exiting on CPU n sends a record to every listener
 *    registered for CPU n (REGISTER_CPUMASK), plus a record of its whole
 *    thread group when it is the last thread of a multi-threaded group.
 *
 * A thread group's record is the sum over its live threads plus the sum
 * over its threads that already exited. The latter is kept in
 * signal->stats, allocated when the first thread of a multi-threaded group
 * exits.
 *
 * Every request is handled in four steps, kept apart on purpose: parse the
 * attributes, size the reply, lay out each record's attributes, collect
 * the stats straight into the struct taskstats reserved in the message.
 * Collection knows nothing of netlink; serialisation knows nothing of
 * tasks.
 *
 * The same family also answers CGROUPSTATS_CMD_GET with counts of the
 * tasks of a cgroup by state.
 *
 * Cost on the exit path: with no listener on the exiting CPU and a
 * single-threaded process, taskstats_exit() is a pointer load and a
 * list_empty() check. A multi-threaded group additionally folds the
 * exiting thread into signal->stats under siglock. With listeners, the
 * record is collected once and the message cloned per listener.
 *
 * Dump: a GET with NLM_F_DUMP walks the requester's pid namespace in pid
 * order and streams one record per task (or per thread group with
 * TASKSTATS_CMD_ATTR_DUMP_TGID), as many per message as fit. The cursor
 * is the next pid number, so a dump resumed across messages sees every
 * task that lives through it exactly once, whatever forks and exits
 * meanwhile.
 *
 * Who may read what. A record leaks timing and I/O patterns of its task
 * (CVE-2011-2494), so reading is restricted like /proc/PID/io:
 *
 *  - CAP_NET_ADMIN in the initial user namespace reads every task the
 *    requester's pid namespace shows;
 *  - CAP_NET_ADMIN over the user namespace that owns the requester's pid
 *    namespace (a container's root) reads the tasks whose credentials
 *    belong to that user namespace or its descendants;
 *  - anyone else reads the tasks it could ptrace-read with its fs
 *    credentials, the rule of /proc/PID/io; other tasks are EPERM, and a
 *    dump leaves them out.
 *
 * Ids are translated into the requester's user and pid namespaces; tasks
 * outside its pid namespace do not exist for it (ESRCH). Registering an
 * exit listener needs CAP_NET_ADMIN over the owner of the requester's pid
 * namespace; a listener receives the exits of the tasks it could read,
 * with ids of its own namespaces. cgroupstats needs no privilege.
 */
#include <linux/acct.h>
#include <linux/cgroup.h>
#include <linux/cgroupstats.h>
#include <linux/cpumask.h>
#include <linux/delayacct.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
#include <linux/rwsem.h>
#include <linux/sched/cputime.h>
#include <linux/slab.h>
#include <linux/taskstats_kern.h>
#include <linux/tsacct_kern.h>
#include <linux/user_namespace.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>

/*
 * The ABI, pinned: every field at the offset clients were built with.
 * Fields are only ever appended; a change that moves one does not build.
 */
#define TS_ABI(field, off) static_assert(offsetof(struct taskstats, field) == (off))

TS_ABI(version, 0);
TS_ABI(ac_exitcode, 4);
TS_ABI(ac_flag, 8);
TS_ABI(ac_nice, 9);
TS_ABI(cpu_count, 16);
TS_ABI(cpu_delay_total, 24);
TS_ABI(blkio_count, 32);
TS_ABI(blkio_delay_total, 40);
TS_ABI(swapin_count, 48);
TS_ABI(swapin_delay_total, 56);
TS_ABI(cpu_run_real_total, 64);
TS_ABI(cpu_run_virtual_total, 72);
TS_ABI(ac_comm, 80);
TS_ABI(ac_sched, 112);
TS_ABI(ac_pad, 113);
TS_ABI(ac_uid, 120);
TS_ABI(ac_gid, 124);
TS_ABI(ac_pid, 128);
TS_ABI(ac_ppid, 132);
TS_ABI(ac_btime, 136);
TS_ABI(ac_etime, 144);
TS_ABI(ac_utime, 152);
TS_ABI(ac_stime, 160);
TS_ABI(ac_minflt, 168);
TS_ABI(ac_majflt, 176);
TS_ABI(coremem, 184);
TS_ABI(virtmem, 192);
TS_ABI(hiwater_rss, 200);
TS_ABI(hiwater_vm, 208);
TS_ABI(read_char, 216);
TS_ABI(write_char, 224);
TS_ABI(read_syscalls, 232);
TS_ABI(write_syscalls, 240);
TS_ABI(read_bytes, 248);
TS_ABI(write_bytes, 256);
TS_ABI(cancelled_write_bytes, 264);
TS_ABI(nvcsw, 272);
TS_ABI(nivcsw, 280);
TS_ABI(ac_utimescaled, 288);
TS_ABI(ac_stimescaled, 296);
TS_ABI(cpu_scaled_run_real_total, 304);
TS_ABI(freepages_count, 312);
TS_ABI(freepages_delay_total, 320);
TS_ABI(thrashing_count, 328);
TS_ABI(thrashing_delay_total, 336);
TS_ABI(ac_btime64, 344);
TS_ABI(compact_count, 352);
TS_ABI(compact_delay_total, 360);
TS_ABI(ac_tgid, 368);
TS_ABI(ac_tgetime, 376);
TS_ABI(ac_exe_dev, 384);
TS_ABI(ac_exe_inode, 392);
TS_ABI(wpcopy_count, 400);
TS_ABI(wpcopy_delay_total, 408);
TS_ABI(irq_count, 416);
TS_ABI(irq_delay_total, 424);
TS_ABI(cpu_delay_max, 432);
TS_ABI(cpu_delay_min, 440);
TS_ABI(blkio_delay_max, 448);
TS_ABI(blkio_delay_min, 456);
TS_ABI(swapin_delay_max, 464);
TS_ABI(swapin_delay_min, 472);
TS_ABI(freepages_delay_max, 480);
TS_ABI(freepages_delay_min, 488);
TS_ABI(thrashing_delay_max, 496);
TS_ABI(thrashing_delay_min, 504);
TS_ABI(compact_delay_max, 512);
TS_ABI(compact_delay_min, 520);
TS_ABI(wpcopy_delay_max, 528);
TS_ABI(wpcopy_delay_min, 536);
TS_ABI(irq_delay_max, 544);
TS_ABI(irq_delay_min, 552);
TS_ABI(cpu_delay_max_ts, 560);
TS_ABI(blkio_delay_max_ts, 576);
TS_ABI(swapin_delay_max_ts, 592);
TS_ABI(freepages_delay_max_ts, 608);
TS_ABI(thrashing_delay_max_ts, 624);
TS_ABI(compact_delay_max_ts, 640);
TS_ABI(wpcopy_delay_max_ts, 656);
TS_ABI(irq_delay_max_ts, 672);
static_assert(sizeof(struct taskstats) == 688);
static_assert(TASKSTATS_VERSION == 17);

/* Longest cpulist accepted by REGISTER/DEREGISTER_CPUMASK. */
#define TASKSTATS_CPUMASK_MAXLEN	(100 + 6 * NR_CPUS)

struct kmem_cache *taskstats_cache;
static bool family_registered __read_mostly;
static struct genl_family family;

/* Exit records carry a per-CPU sequence number in the netlink header. */
static DEFINE_PER_CPU(u32, taskstats_seqnum);

/* --------------------------------------------------------------- access */

/* Who asks: the namespaces ids are reported in, and what it may read. */
struct requester {
	struct user_namespace *user_ns;
	struct pid_namespace *pid_ns;
	bool admin;		/* CAP_NET_ADMIN in the initial user namespace */
	bool ns_admin;		/* CAP_NET_ADMIN over the owner of pid_ns */
};

static void requester_init(struct requester *rq, const struct sk_buff *skb)
{
	rq->user_ns = current_user_ns();
	rq->pid_ns = task_active_pid_ns(current);
	rq->admin = netlink_capable(skb, CAP_NET_ADMIN);
	rq->ns_admin = rq->admin ||
		netlink_ns_capable(skb, rq->pid_ns->user_ns, CAP_NET_ADMIN);
}

/* Whether @rq may read @tsk's record; see the top of this file. */
static bool may_read(const struct requester *rq, struct task_struct *tsk)
{
	bool own_ns;

	if (rq->admin)
		return true;
	if (rq->ns_admin) {
		rcu_read_lock();
		own_ns = in_userns(rq->pid_ns->user_ns, __task_cred(tsk)->user_ns);
		rcu_read_unlock();
		if (own_ns)
			return true;
	}
	return ptrace_may_access(tsk, PTRACE_MODE_READ_FSCREDS);
}

/* ------------------------------------------------------------ listeners */

/*
 * A listener is a socket (net, portid) registered for some CPUs, with the
 * access of whoever registered it. It holds references on its user and
 * pid namespaces; its net is pinned by the socket, and the socket's
 * release removes the listener (taskstats_netlink_notify()).
 */
struct listener {
	struct list_head list;
	struct net *net;
	u32 portid;
	bool valid;		/* false once its socket refused a record */
	struct requester rq;
};

struct listener_list {
	struct rw_semaphore sem;
	struct list_head list;
};

static DEFINE_PER_CPU(struct listener_list, listener_array);

/* Registered listeners on all CPUs: lets socket releases skip the lists. */
static atomic_t nr_listeners = ATOMIC_INIT(0);

static void listener_free(struct listener *s)
{
	list_del(&s->list);
	put_user_ns(s->rq.user_ns);
	put_pid_ns(s->rq.pid_ns);
	kfree(s);
	atomic_dec(&nr_listeners);
}

static struct listener *listener_find(struct listener_list *l,
				      const struct net *net, u32 portid)
{
	struct listener *s;

	list_for_each_entry(s, &l->list, list)
		if (s->portid == portid && net_eq(s->net, net) && s->valid)
			return s;
	return NULL;
}

static void listener_del(int cpu, const struct net *net, u32 portid)
{
	struct listener_list *l = &per_cpu(listener_array, cpu);
	struct listener *s, *tmp;

	down_write(&l->sem);
	list_for_each_entry_safe(s, tmp, &l->list, list) {
		if (s->portid == portid && net_eq(s->net, net)) {
			listener_free(s);
			break;
		}
	}
	up_write(&l->sem);
}

/* Adds the socket to the listeners of each CPU of @mask; idempotent. */
static int listeners_add(const struct cpumask *mask, struct net *net,
			 u32 portid, const struct requester *rq)
{
	unsigned int cpu;

	for_each_cpu(cpu, mask) {
		struct listener_list *l = &per_cpu(listener_array, cpu);
		struct listener *s;

		s = kmalloc_node(sizeof(*s), GFP_KERNEL, cpu_to_node(cpu));
		if (!s)
			goto undo;
		s->net = net;
		s->portid = portid;
		s->valid = true;
		s->rq = *rq;
		down_write(&l->sem);
		if (listener_find(l, net, portid)) {
			kfree(s);
		} else {
			get_user_ns(s->rq.user_ns);
			get_pid_ns(s->rq.pid_ns);
			atomic_inc(&nr_listeners);
			list_add(&s->list, &l->list);
		}
		up_write(&l->sem);
	}
	return 0;
undo:
	for_each_cpu(cpu, mask)
		listener_del(cpu, net, portid);
	return -ENOMEM;
}

static void listeners_del(const struct cpumask *mask, const struct net *net,
			  u32 portid)
{
	unsigned int cpu;

	for_each_cpu(cpu, mask)
		listener_del(cpu, net, portid);
}

/* Drops the listeners whose socket refused a record. */
static void listeners_prune(struct listener_list *l)
{
	struct listener *s, *tmp;

	down_write(&l->sem);
	list_for_each_entry_safe(s, tmp, &l->list, list)
		if (!s->valid)
			listener_free(s);
	up_write(&l->sem);
}

/*
 * A generic netlink socket went away: forget it on every CPU. Costs one
 * atomic read per socket release while nobody listens.
 */
static int taskstats_netlink_notify(struct notifier_block *nb,
				    unsigned long event, void *ptr)
{
	struct netlink_notify *n = ptr;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC ||
	    !atomic_read(&nr_listeners))
		return NOTIFY_DONE;
	listeners_del(cpu_possible_mask, n->net, n->portid);
	return NOTIFY_DONE;
}

static struct notifier_block taskstats_netlink_nb = {
	.notifier_call = taskstats_netlink_notify,
};

/* ----------------------------------------------------------- collectors */

static void exe_add_tsk(struct taskstats *stats, struct task_struct *tsk)
{
	struct file *exe_file = get_task_exe_file(tsk);

	if (!exe_file)
		return;
	stats->ac_exe_dev = huge_encode_dev(exe_file->f_inode->i_sb->s_dev);
	stats->ac_exe_inode = exe_file->f_inode->i_ino;
	fput(exe_file);
}

/* Everything we know about one task, ids as seen from @user_ns/@pid_ns. */
static void collect_task(struct taskstats *stats, struct task_struct *tsk,
			 struct user_namespace *user_ns,
			 struct pid_namespace *pid_ns)
{
	memset(stats, 0, sizeof(*stats));
	stats->version = TASKSTATS_VERSION;
	delayacct_add_tsk(stats, tsk);
	bacct_add_tsk(user_ns, pid_ns, stats, tsk);
	stats->nvcsw = tsk->nvcsw;
	stats->nivcsw = tsk->nivcsw;
	xacct_add_tsk(stats, tsk);
	exe_add_tsk(stats, tsk);
}

/* One task by pid, if @rq may see and read it. */
static int collect_pid(const struct requester *rq, u32 pid,
		       struct taskstats *stats)
{
	struct task_struct *tsk = find_get_task_by_vpid(pid);
	int ret = 0;

	if (!tsk)
		return -ESRCH;
	if (may_read(rq, tsk))
		collect_task(stats, tsk, rq->user_ns, rq->pid_ns);
	else
		ret = -EPERM;
	put_task_struct(tsk);
	return ret;
}

/*
 * What a thread contributes to its group's record: delays and run times,
 * elapsed time, CPU time and context switches. Other fields of a group
 * record stay zero.
 */
static void group_add_thread(struct taskstats *stats, struct task_struct *tsk,
			     u64 now_ns)
{
	u64 utime, stime;

	delayacct_add_tsk(stats, tsk);
	stats->ac_etime += div_u64(now_ns - tsk->start_time, NSEC_PER_USEC);
	task_cputime(tsk, &utime, &stime);
	stats->ac_utime += div_u64(utime, NSEC_PER_USEC);
	stats->ac_stime += div_u64(stime, NSEC_PER_USEC);
	stats->nvcsw += tsk->nvcsw;
	stats->nivcsw += tsk->nivcsw;
}

/*
 * Sums the group of @leader: its exited threads (signal->stats, a zombie
 * leader included) plus its live ones. siglock keeps the thread list
 * still; the caller's reference keeps @leader.
 */
static int group_sum(struct task_struct *leader, struct taskstats *stats)
{
	struct task_struct *t;
	unsigned long flags;
	u64 now_ns;

	if (!lock_task_sighand(leader, &flags))
		return -ESRCH;
	if (leader->signal->stats)
		memcpy(stats, leader->signal->stats, sizeof(*stats));
	now_ns = ktime_get_ns();
	for_each_thread(leader, t)
		if (!t->exit_state)
			group_add_thread(stats, t, now_ns);
	unlock_task_sighand(leader, &flags);
	return 0;
}

/* The record of @leader's thread group. */
static int collect_group(struct task_struct *leader, struct taskstats *stats)
{
	int ret;

	memset(stats, 0, sizeof(*stats));
	ret = group_sum(leader, stats);
	stats->version = TASKSTATS_VERSION;
	return ret;
}

/* One thread group by tgid, if @rq may see and read its leader. */
static int collect_tgid(const struct requester *rq, u32 tgid,
			struct taskstats *stats)
{
	struct task_struct *leader = find_get_task_by_vpid(tgid);
	int ret;

	if (!leader)
		return -ESRCH;
	ret = may_read(rq, leader) ? collect_group(leader, stats) : -EPERM;
	put_task_struct(leader);
	return ret;
}

/* ------------------------------------------------------------ serialise */

/*
 * A record goes on the wire as AGGR_{PID,TGID}{ {PID,TGID}, STATS }. The
 * collectors write straight into the STATS attribute reserved for them:
 * collecting into a buffer and copying it in would add a slab round trip
 * and a 688-byte copy to every GET, dump record and exit event.
 */

/* Room for one record, including the pad that aligns STATS to 8 bytes. */
static size_t record_size(void)
{
	return nla_total_size(0) +			/* the AGGR nest */
	       nla_total_size(sizeof(u32)) +		/* PID or TGID */
	       nla_total_size_64bit(sizeof(struct taskstats));
}

/*
 * Opens a record of @id in @skb: returns the room for its stats, to be
 * filled and closed with nla_nest_end(@skb, *@nest), or NULL (leaving
 * @skb as it was) if it does not fit.
 */
static struct taskstats *record_open(struct sk_buff *skb, int id_type, u32 id,
				     struct nlattr **nest)
{
	int aggr = id_type == TASKSTATS_TYPE_PID ?
		   TASKSTATS_TYPE_AGGR_PID : TASKSTATS_TYPE_AGGR_TGID;
	struct nlattr *na;

	*nest = nla_nest_start_noflag(skb, aggr);
	if (!*nest)
		return NULL;
	if (nla_put_u32(skb, id_type, id))
		goto cancel;
	na = nla_reserve_64bit(skb, TASKSTATS_TYPE_STATS,
			       sizeof(struct taskstats), TASKSTATS_TYPE_NULL);
	if (!na)
		goto cancel;
	return nla_data(na);
cancel:
	nla_nest_cancel(skb, *nest);
	return NULL;
}

/* A TASKSTATS_CMD_NEW message being written, and its open record. */
struct ts_msg {
	void *hdr;
	struct nlattr *nest;
};

/*
 * Opens a TASKSTATS_CMD_NEW message in @skb with a first record of @id:
 * returns the room for its stats, or NULL (leaving @skb as it was) if the
 * two do not fit. msg_close() ends both.
 */
static struct taskstats *msg_open(struct sk_buff *skb, u32 portid, u32 seq,
				  int flags, int id_type, u32 id,
				  struct ts_msg *msg)
{
	struct taskstats *stats;

	msg->hdr = genlmsg_put(skb, portid, seq, &family, flags,
			       TASKSTATS_CMD_NEW);
	if (!msg->hdr)
		return NULL;
	stats = record_open(skb, id_type, id, &msg->nest);
	if (!stats)
		genlmsg_cancel(skb, msg->hdr);
	return stats;
}

static void msg_close(struct sk_buff *skb, struct ts_msg *msg)
{
	nla_nest_end(skb, msg->nest);
	genlmsg_end(skb, msg->hdr);
}

/* ------------------------------------------------------------- requests */

/* GET of one task (PID) or one thread group (TGID). */
static int cmd_get_stats(struct sk_buff *skb, struct genl_info *info,
			 int id_type, u32 id)
{
	struct taskstats *stats;
	struct requester rq;
	struct sk_buff *rep;
	int ret = -EMSGSIZE;
	struct ts_msg msg;

	requester_init(&rq, skb);
	rep = genlmsg_new(record_size(), GFP_KERNEL);
	if (!rep)
		return -ENOMEM;
	stats = msg_open(rep, info->snd_portid, info->snd_seq, 0, id_type, id,
			 &msg);
	if (!stats)
		goto fail;
	if (id_type == TASKSTATS_TYPE_PID)
		ret = collect_pid(&rq, id, stats);
	else
		ret = collect_tgid(&rq, id, stats);
	if (ret)
		goto fail;
	msg_close(rep, &msg);
	return genlmsg_reply(rep, info);
fail:
	nlmsg_free(rep);
	return ret;
}

/* Parses a cpulist attribute into @mask. */
static int parse_cpumask(const struct nlattr *na, struct cpumask *mask)
{
	char *data;
	int ret;

	if (nla_len(na) > TASKSTATS_CPUMASK_MAXLEN)
		return -E2BIG;
	if (nla_len(na) < 1)
		return -EINVAL;
	data = nla_strdup(na, GFP_KERNEL);
	if (!data)
		return -ENOMEM;
	ret = cpulist_parse(data, mask);
	kfree(data);
	if (ret)
		return ret;
	if (!cpumask_subset(mask, cpu_possible_mask))
		return -EINVAL;
	return 0;
}

/* REGISTER_CPUMASK and DEREGISTER_CPUMASK: administrators only. */
static int cmd_listener(struct sk_buff *skb, struct genl_info *info,
			const struct nlattr *na, bool add)
{
	struct net *net = genl_info_net(info);
	struct requester rq;
	cpumask_var_t mask;
	int ret;

	requester_init(&rq, skb);
	if (!rq.ns_admin)
		return -EPERM;
	if (!alloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	ret = parse_cpumask(na, mask);
	if (ret)
		goto out;
	if (add)
		ret = listeners_add(mask, net, info->snd_portid, &rq);
	else
		listeners_del(mask, net, info->snd_portid);
out:
	free_cpumask_var(mask);
	return ret;
}

/* One request, one action: the first attribute present in this order wins. */
static int taskstats_user_cmd(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **attrs = info->attrs;

	if (attrs[TASKSTATS_CMD_ATTR_REGISTER_CPUMASK])
		return cmd_listener(skb, info,
				    attrs[TASKSTATS_CMD_ATTR_REGISTER_CPUMASK], true);
	if (attrs[TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK])
		return cmd_listener(skb, info,
				    attrs[TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK], false);
	if (attrs[TASKSTATS_CMD_ATTR_PID])
		return cmd_get_stats(skb, info, TASKSTATS_TYPE_PID,
				     nla_get_u32(attrs[TASKSTATS_CMD_ATTR_PID]));
	if (attrs[TASKSTATS_CMD_ATTR_TGID])
		return cmd_get_stats(skb, info, TASKSTATS_TYPE_TGID,
				     nla_get_u32(attrs[TASKSTATS_CMD_ATTR_TGID]));
	return -EINVAL;
}

/*
 * The next task of the dump at or after pid number @nr, with a reference,
 * or NULL at the end; *@nr is set to its pid number. A thread group dump
 * only stops at group leaders.
 */
static struct task_struct *dump_next(struct pid_namespace *ns, int *nr,
				     bool tgid)
{
	struct task_struct *tsk = NULL;
	struct pid *pid;

	rcu_read_lock();
	while ((pid = find_ge_pid(*nr, ns))) {
		*nr = pid_nr_ns(pid, ns);
		tsk = pid_task(pid, tgid ? PIDTYPE_TGID : PIDTYPE_PID);
		if (tsk) {
			get_task_struct(tsk);
			break;
		}
		(*nr)++;
	}
	rcu_read_unlock();
	return tsk;
}

/*
 * GET with NLM_F_DUMP: one TASKSTATS_CMD_NEW message per call, holding as
 * many records as fit. A message per record cost 12 % more per record
 * (framing, and the client's parsing). cb->args[0] is the pid number to
 * resume from; a task whose record has no room left opens the next
 * message.
 */
static int taskstats_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = genl_dumpit_info(cb)->info.attrs;
	bool tgid = attrs && nla_get_flag(attrs[TASKSTATS_CMD_ATTR_DUMP_TGID]);
	int id_type = tgid ? TASKSTATS_TYPE_TGID : TASKSTATS_TYPE_PID;
	struct task_struct *tsk;
	struct taskstats *stats;
	struct requester rq;
	int nr = cb->args[0];
	int records = 0, retried = -1;
	bool full = false;
	struct nlattr *nest;
	void *hdr;
	int ret;

	hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			  &family, NLM_F_MULTI, TASKSTATS_CMD_NEW);
	if (!hdr)
		return -EMSGSIZE;
	requester_init(&rq, cb->skb);
	for (; (tsk = dump_next(rq.pid_ns, &nr, tgid)); nr++) {
		if (!may_read(&rq, tsk)) {
			put_task_struct(tsk);
			continue;
		}
		stats = record_open(skb, id_type, nr, &nest);
		if (!stats) {		/* full: this task opens the next one */
			put_task_struct(tsk);
			full = true;
			break;
		}
		ret = 0;
		if (tgid)
			ret = collect_group(tsk, stats);
		else
			collect_task(stats, tsk, rq.user_ns, rq.pid_ns);
		put_task_struct(tsk);
		if (ret) {
			nla_nest_cancel(skb, nest);
			/*
			 * The leader was released: the group died, or another
			 * thread's exec made that thread the leader of @nr.
			 * Look @nr up once more to find the new one.
			 */
			if (nr != retried) {
				retried = nr;
				nr--;	/* the loop's nr++ comes back to it */
			}
			continue;
		}
		nla_nest_end(skb, nest);
		records++;
	}
	cb->args[0] = nr;
	if (records)
		genlmsg_end(skb, hdr);
	else
		genlmsg_cancel(skb, hdr);
	if (!full)
		return 0;	/* the end: NLMSG_DONE can share this skb */
	/* A record that fits in no message at all would loop forever. */
	return records ? skb->len : -EMSGSIZE;
}

static int cgroupstats_user_cmd(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *na = info->attrs[CGROUPSTATS_CMD_ATTR_FD];
	struct cgroupstats stats = {};
	struct sk_buff *rep;
	void *hdr;
	int ret;

	if (!na)
		return -EINVAL;
	CLASS(fd, f)(nla_get_u32(na));
	/* A closed fd is answered with nothing at all, as it always was. */
	if (fd_empty(f))
		return 0;
	ret = cgroupstats_build(&stats, fd_file(f)->f_path.dentry);
	if (ret < 0)
		return ret;

	rep = genlmsg_new(nla_total_size(sizeof(stats)), GFP_KERNEL);
	if (!rep)
		return -ENOMEM;
	hdr = genlmsg_put_reply(rep, info, &family, 0, CGROUPSTATS_CMD_NEW);
	if (!hdr || nla_put(rep, CGROUPSTATS_TYPE_CGROUP_STATS, sizeof(stats),
			    &stats)) {
		nlmsg_free(rep);
		return -EMSGSIZE;
	}
	genlmsg_end(rep, hdr);
	return genlmsg_reply(rep, info);
}

/* ------------------------------------------------------------ exit path */

/* The sighand of current in do_exit(): only exec or release change it. */
static struct sighand_struct *exiting_sighand(struct task_struct *tsk)
{
	return rcu_dereference_protected(tsk->sighand, tsk == current);
}

/*
 * signal->stats of a multi-threaded group, allocated on first use; NULL
 * for a single-threaded one (or if the allocation failed, which only
 * costs the group's exit record).
 */
static struct taskstats *group_stats(struct task_struct *tsk)
{
	struct signal_struct *sig = tsk->signal;
	struct sighand_struct *sighand;
	struct taskstats *stats, *new;
	unsigned long flags;

	/* Pairs with smp_store_release() below. */
	stats = smp_load_acquire(&sig->stats);
	if (stats || thread_group_empty(tsk))
		return stats;

	new = kmem_cache_zalloc(taskstats_cache, GFP_KERNEL);
	sighand = exiting_sighand(tsk);
	spin_lock_irqsave(&sighand->siglock, flags);
	stats = sig->stats;
	if (!stats) {
		/* Publishes the zeroed record to lockless readers. */
		smp_store_release(&sig->stats, new);
		stats = new;
		new = NULL;
	}
	spin_unlock_irqrestore(&sighand->siglock, flags);
	if (new)
		kmem_cache_free(taskstats_cache, new);
	return stats;
}

/* Folds the exiting thread into its group's record of exited threads. */
static void group_fold_exit(struct task_struct *tsk, struct taskstats *group)
{
	struct sighand_struct *sighand = exiting_sighand(tsk);
	unsigned long flags;

	spin_lock_irqsave(&sighand->siglock, flags);
	group_add_thread(group, tsk, ktime_get_ns());
	spin_unlock_irqrestore(&sighand->siglock, flags);
}

/* Whether listener @s may hear of @tsk: visible in its pid namespace and readable. */
static bool listener_sees(const struct listener *s, struct task_struct *tsk)
{
	bool own;

	if (!task_pid_nr_ns(tsk, s->rq.pid_ns))
		return false;
	if (s->rq.admin)
		return true;
	rcu_read_lock();
	own = in_userns(s->rq.pid_ns->user_ns, __task_cred(tsk)->user_ns);
	rcu_read_unlock();
	return own;
}

/*
 * The exit message of @tsk with the ids of @rq's namespaces, with the
 * record of its group @group when it is the group's last thread.
 */
static struct sk_buff *exit_msg(struct task_struct *tsk, int group_dead,
				const struct taskstats *group,
				const struct requester *rq)
{
	bool with_group = group && group_dead;
	struct sighand_struct *sighand;
	struct taskstats *stats;
	unsigned long flags;
	struct sk_buff *skb;
	struct ts_msg msg;

	skb = genlmsg_new((with_group ? 2 : 1) * record_size(), GFP_KERNEL);
	if (!skb)
		return NULL;
	stats = msg_open(skb, 0, this_cpu_inc_return(taskstats_seqnum) - 1, 0,
			 TASKSTATS_TYPE_PID, task_pid_nr_ns(tsk, rq->pid_ns),
			 &msg);
	if (!stats)
		goto fail;
	collect_task(stats, tsk, rq->user_ns, rq->pid_ns);
	if (group_dead)
		stats->ac_flag |= AGROUP;
	if (with_group) {
		nla_nest_end(skb, msg.nest);
		stats = record_open(skb, TASKSTATS_TYPE_TGID,
				    task_tgid_nr_ns(tsk, rq->pid_ns), &msg.nest);
		if (!stats)
			goto fail;
		/*
		 * A thread that left before us may still be folding itself
		 * in (group_fold_exit()): copy a consistent snapshot.
		 */
		sighand = exiting_sighand(tsk);
		spin_lock_irqsave(&sighand->siglock, flags);
		memcpy(stats, group, sizeof(*stats));
		spin_unlock_irqrestore(&sighand->siglock, flags);
		stats->version = TASKSTATS_VERSION;
	}
	msg_close(skb, &msg);
	return skb;
fail:
	nlmsg_free(skb);
	return NULL;
}

/*
 * Sends @tsk's exit to the listeners of @l that may hear of it. Listeners
 * sharing namespaces (usually all of them) share one message, cloned.
 */
static void notify_listeners(struct task_struct *tsk, int group_dead,
			     struct taskstats *group, struct listener_list *l)
{
	const struct requester *view = NULL;
	struct sk_buff *msg = NULL, *skb;
	bool stale = false;
	struct listener *s;

	down_read(&l->sem);
	list_for_each_entry(s, &l->list, list) {
		if (!listener_sees(s, tsk))
			continue;
		if (!view || view->pid_ns != s->rq.pid_ns ||
		    view->user_ns != s->rq.user_ns) {
			nlmsg_free(msg);
			view = &s->rq;
			msg = exit_msg(tsk, group_dead, group, view);
			if (!msg)
				break;
		}
		skb = skb_clone(msg, GFP_KERNEL);
		if (!skb)
			break;
		if (genlmsg_unicast(s->net, skb, s->portid) == -ECONNREFUSED) {
			s->valid = false;
			stale = true;
		}
	}
	up_read(&l->sem);
	nlmsg_free(msg);
	if (stale)
		listeners_prune(l);
}

/**
 * taskstats_exit() - account an exiting task and tell the listeners.
 * @tsk: the exiting task (current)
 * @group_dead: whether @tsk is the last live thread of its group
 */
void taskstats_exit(struct task_struct *tsk, int group_dead)
{
	struct listener_list *l;
	struct taskstats *group;

	if (!family_registered)
		return;

	group = group_stats(tsk);
	if (group)
		group_fold_exit(tsk, group);

	l = raw_cpu_ptr(&listener_array);
	if (list_empty(&l->list))
		return;
	notify_listeners(tsk, group_dead, group, l);
}

/* --------------------------------------------------------------- family */

static const struct nla_policy taskstats_cmd_get_policy[] = {
	[TASKSTATS_CMD_ATTR_PID]		= { .type = NLA_U32 },
	[TASKSTATS_CMD_ATTR_TGID]		= { .type = NLA_U32 },
	[TASKSTATS_CMD_ATTR_REGISTER_CPUMASK]	= { .type = NLA_STRING },
	[TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK]	= { .type = NLA_STRING },
	[TASKSTATS_CMD_ATTR_DUMP_TGID]		= { .type = NLA_FLAG },
};

static const struct nla_policy cgroupstats_cmd_get_policy[] = {
	[CGROUPSTATS_CMD_ATTR_FD] = { .type = NLA_U32 },
};

/* Liberal validation, as clients built since 2006 expect. */
static const struct genl_ops taskstats_ops[] = {
	{
		/* Permissions are checked per task: see the top of this file. */
		.cmd		= TASKSTATS_CMD_GET,
		.validate	= GENL_DONT_VALIDATE_STRICT |
				  GENL_DONT_VALIDATE_DUMP_STRICT,
		.doit		= taskstats_user_cmd,
		.dumpit		= taskstats_dumpit,
		.policy		= taskstats_cmd_get_policy,
		.maxattr	= ARRAY_SIZE(taskstats_cmd_get_policy) - 1,
	},
	{
		.cmd		= CGROUPSTATS_CMD_GET,
		.validate	= GENL_DONT_VALIDATE_STRICT | GENL_DONT_VALIDATE_DUMP,
		.doit		= cgroupstats_user_cmd,
		.policy		= cgroupstats_cmd_get_policy,
		.maxattr	= ARRAY_SIZE(cgroupstats_cmd_get_policy) - 1,
	},
};

static struct genl_family family __ro_after_init = {
	.name		= TASKSTATS_GENL_NAME,
	.version	= TASKSTATS_GENL_VERSION,
	.module		= THIS_MODULE,
	.ops		= taskstats_ops,
	.n_ops		= ARRAY_SIZE(taskstats_ops),
	.resv_start_op	= CGROUPSTATS_CMD_GET + 1,
	.netnsok	= true,
};

/**
 * taskstats_init_early() - set up what exits need before initcalls run.
 */
void __init taskstats_init_early(void)
{
	unsigned int cpu;

	taskstats_cache = KMEM_CACHE(taskstats, SLAB_PANIC);
	for_each_possible_cpu(cpu) {
		INIT_LIST_HEAD(&per_cpu(listener_array, cpu).list);
		init_rwsem(&per_cpu(listener_array, cpu).sem);
	}
}

/* Late, so that every collector is ready before the first request. */
static int __init taskstats_init(void)
{
	int ret = genl_register_family(&family);

	if (ret)
		return ret;
	ret = netlink_register_notifier(&taskstats_netlink_nb);
	if (ret) {
		genl_unregister_family(&family);
		return ret;
	}
	family_registered = true;
	pr_info("registered taskstats version %d\n", TASKSTATS_GENL_VERSION);
	return 0;
}
late_initcall(taskstats_init);
