// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats: per-task accounting records over generic netlink.
 *
 * This file holds the family, its requests and cgroupstats; the other files
 * of kernel/taskstats/ hold who may read what (access.c), collecting a
 * record and laying it out in a message (record.c), the exit listeners
 * (listeners.c), dumps (dump.c), the task lists of cgroup dumps and the
 * cgroups of listeners (cgroup.c) and the exit path (exit.c).
 *
 * The model. A record is a struct taskstats describing one task (AGGR_PID)
 * or one thread group (AGGR_TGID). Three collectors fill it: basic and
 * extended accounting (tsacct.c) and delay accounting (delayacct.c). A
 * record reaches user space in two ways:
 *
 *  - on request: TASKSTATS_CMD_GET with a PID or TGID attribute is answered
 *    with one TASKSTATS_CMD_NEW message holding one record;
 *  - on exit: a task exiting on CPU n sends a record to every listener
 *    registered for CPU n (REGISTER_CPUMASK), of every cgroup or of the
 *    task's, plus a record of its whole thread group when it is the last
 *    thread of a multi-threaded group.
 *
 * Asked for (TASKSTATS_CMD_ATTR_CGROUP_ID), a record also carries the
 * cgroup v2 id of its task, after its stats; the others keep the layout
 * clients have always parsed.
 *
 * Every request is handled in four steps, kept apart on purpose: parse the
 * attributes, size the reply, lay out each record's attributes, collect
 * the stats straight into the struct taskstats reserved in the message.
 * Collection knows nothing of netlink; serialisation knows nothing of
 * tasks.
 *
 * The same family also answers CGROUPSTATS_CMD_GET with counts of the
 * tasks of a cgroup by state, on cgroup v2 as on v1.
 *
 * Ids are translated into the requester's user and pid namespaces; tasks
 * outside its pid namespace do not exist for it (ESRCH). cgroupstats
 * needs no privilege.
 */
#include <linux/cgroup.h>
#include <linux/cgroupstats.h>
#include <linux/cpumask.h>
#include <linux/file.h>
#include <linux/kernel.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/ptrace.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/taskstats_kern.h>
#include <linux/user_namespace.h>
#include <net/genetlink.h>

#include "internal.h"

/*
 * The ABI: fields are only ever appended. The selftests' abi_test pins
 * every field's offset and size; a change of the record's size does not
 * build.
 */
static_assert(sizeof(struct taskstats) == 688);
static_assert(TASKSTATS_VERSION == 17);

/* Longest cpulist accepted by REGISTER/DEREGISTER_CPUMASK. */
#define TASKSTATS_CPUMASK_MAXLEN	(100 + 6 * NR_CPUS)

bool ts_family_registered __read_mostly;

/*
 * The task with pid @nr in the caller's pid namespace, or with @group the
 * leader of its thread group (a thread's id names its group, as it always
 * did); with a reference. While the task is hashed its leader is too.
 */
static struct task_struct *find_get_task(u32 nr, bool group)
{
	struct task_struct *tsk;

	rcu_read_lock();
	tsk = find_task_by_vpid(nr);
	if (tsk && group)
		tsk = pid_alive(tsk) ? READ_ONCE(tsk->group_leader) : NULL;
	if (tsk)
		get_task_struct(tsk);
	rcu_read_unlock();
	return tsk;
}

/* GET of one task (PID) or one thread group (TGID). */
static int cmd_get_stats(struct sk_buff *skb, struct genl_info *info,
			 int id_type, u32 id)
{
	bool group = id_type == TASKSTATS_TYPE_TGID;
	struct task_struct *tsk;
	struct taskstats *stats;
	struct requester rq;
	struct sk_buff *rep;
	struct ts_msg msg;
	int ret;

	ret = ts_requester_init(&rq, skb, info->extack) ?:
	      ts_requester_opts(&rq, info->attrs, info->extack);
	if (ret)
		return ret;
	rep = genlmsg_new(ts_record_size(rq.cgroup_id), GFP_KERNEL);
	if (!rep)
		return -ENOMEM;
	ret = -EMSGSIZE;
	stats = ts_msg_open(rep, info->snd_portid, info->snd_seq, 0, id_type, id,
			    &msg);
	if (!stats)
		goto fail;
	ret = -ESRCH;
	tsk = find_get_task(id, group);
	if (!tsk)
		goto fail;
	ret = ts_read_record(&rq, tsk, id, group, PTRACE_MODE_READ_FSCREDS,
			     false, stats);
	if (!ret && rq.cgroup_id)
		ret = ts_record_put_cgroup_id(rep, &msg, tsk);
	put_task_struct(tsk);
	if (ret)
		goto fail;
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

/*
 * The cgroup a registration names (DUMP_CGROUP_FD, DUMP_SUBTREE), into
 * @cg; none: every cgroup.
 */
static int parse_cgroup_filter(struct nlattr **attrs,
			       struct ts_cgroup_filter *cg,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *fd = attrs[TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD];
	bool subtree = nla_get_flag(attrs[TASKSTATS_CMD_ATTR_DUMP_SUBTREE]);
	int ret;

	memset(cg, 0, sizeof(*cg));
	if (!fd) {
		if (!subtree)
			return 0;
		NL_SET_ERR_MSG_ATTR(extack, attrs[TASKSTATS_CMD_ATTR_DUMP_SUBTREE],
				    "a subtree of no cgroup");
		return -EINVAL;
	}
	ret = ts_cgroup_filter_init(cg, nla_get_u32(fd), subtree);
	if (ret == -EOPNOTSUPP)
		NL_SET_ERR_MSG_ATTR(extack, fd, "listeners follow cgroup v2 only");
	else if (ret)
		NL_SET_ERR_MSG_ATTR(extack, fd, "not an open directory of a live cgroup");
	return ret;
}

/*
 * REGISTER_CPUMASK and DEREGISTER_CPUMASK: CAP_NET_ADMIN over the owner
 * of the requester's pid namespace, for the opener and the sender.
 * Checked here only: a capability check that passes marks the caller as
 * having used it (PF_SUPERPRIV, ASU in its record), which a container's
 * root that only reads its own tasks has not. A registration may name a
 * cgroup, whose exits alone the listener then hears, and ask for the
 * cgroup id in its records; a deregistration only names CPUs.
 */
static int cmd_listener(struct sk_buff *skb, struct genl_info *info,
			const struct nlattr *na, bool add)
{
	struct ts_cgroup_filter cg;
	struct requester rq;
	cpumask_var_t mask;
	int ret;

	ret = ts_requester_init(&rq, skb, info->extack);
	if (ret)
		return ret;
	/* Asked again, audited: here its lack is a refusal. */
	if (!rq.admin &&
	    !netlink_ns_capable(skb, rq.pid_ns->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (!alloc_cpumask_var(&mask, GFP_KERNEL))
		return -ENOMEM;
	ret = parse_cpumask(na, mask);
	if (ret)
		goto out;
	if (add)
		ret = ts_requester_opts(&rq, info->attrs, info->extack) ?:
		      parse_cgroup_filter(info->attrs, &cg, info->extack) ?:
		      ts_listener_add(&rq, NETLINK_CB(skb).sk, mask, &cg);
	else
		ret = ts_listener_del(NETLINK_CB(skb).sk, mask);
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
				    attrs[TASKSTATS_CMD_ATTR_REGISTER_CPUMASK],
				    true);
	if (attrs[TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK])
		return cmd_listener(skb, info,
				    attrs[TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK],
				    false);
	if (attrs[TASKSTATS_CMD_ATTR_PID])
		return cmd_get_stats(skb, info, TASKSTATS_TYPE_PID,
				     nla_get_u32(attrs[TASKSTATS_CMD_ATTR_PID]));
	if (attrs[TASKSTATS_CMD_ATTR_TGID])
		return cmd_get_stats(skb, info, TASKSTATS_TYPE_TGID,
				     nla_get_u32(attrs[TASKSTATS_CMD_ATTR_TGID]));
	return -EINVAL;
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
	/* fdget() does not return an O_PATH file: EBADF as for a closed fd. */
	CLASS(fd, f)(nla_get_u32(na));
	if (fd_empty(f))
		return -EBADF;
	ret = cgroupstats_build(&stats, fd_file(f)->f_path.dentry);
	if (ret < 0)
		return ret;

	rep = genlmsg_new(nla_total_size(sizeof(stats)), GFP_KERNEL);
	if (!rep)
		return -ENOMEM;
	hdr = genlmsg_put_reply(rep, info, &ts_family, 0, CGROUPSTATS_CMD_NEW);
	if (!hdr || nla_put(rep, CGROUPSTATS_TYPE_CGROUP_STATS, sizeof(stats),
			    &stats)) {
		nlmsg_free(rep);
		return -EMSGSIZE;
	}
	genlmsg_end(rep, hdr);
	return genlmsg_reply(rep, info);
}

static const struct nla_policy taskstats_cmd_get_policy[] = {
	[TASKSTATS_CMD_ATTR_PID]		= { .type = NLA_U32 },
	[TASKSTATS_CMD_ATTR_TGID]		= { .type = NLA_U32 },
	[TASKSTATS_CMD_ATTR_REGISTER_CPUMASK]	= { .type = NLA_STRING },
	[TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK]	= { .type = NLA_STRING },
	[TASKSTATS_CMD_ATTR_DUMP_TGID]		= { .type = NLA_FLAG },
	[TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD]	= { .type = NLA_U32 },
	[TASKSTATS_CMD_ATTR_DUMP_SUBTREE]	= { .type = NLA_FLAG },
	[TASKSTATS_CMD_ATTR_CGROUP_ID]		= { .type = NLA_FLAG },
};

static const struct nla_policy cgroupstats_cmd_get_policy[] = {
	[CGROUPSTATS_CMD_ATTR_FD] = { .type = NLA_U32 },
};

/* Liberal validation: existing clients send what strict would refuse. */
static const struct genl_ops taskstats_ops[] = {
	{
		/* Permissions are checked per task: see access.c. */
		.cmd		= TASKSTATS_CMD_GET,
		.validate	= GENL_DONT_VALIDATE_STRICT |
				  GENL_DONT_VALIDATE_DUMP_STRICT,
		.doit		= taskstats_user_cmd,
		.start		= taskstats_dump_start,
		.dumpit		= taskstats_dumpit,
		.done		= taskstats_dump_done,
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

struct genl_family ts_family __ro_after_init = {
	.name		= TASKSTATS_GENL_NAME,
	.version	= TASKSTATS_GENL_VERSION,
	.module		= THIS_MODULE,
	.ops		= taskstats_ops,
	.n_ops		= ARRAY_SIZE(taskstats_ops),
	.resv_start_op	= CGROUPSTATS_CMD_GET + 1,
	.netnsok	= true,
	/*
	 * Every request is answered from per-task state and its own locks:
	 * none needs genl_mutex, and a long dump must not hold it against
	 * other families.
	 */
	.parallel_ops	= true,
	.sock_priv_size	= sizeof(struct listener_sock),
	.sock_priv_destroy = ts_listener_sock_destroy,
};

/**
 * taskstats_init_early() - set up what exits need before initcalls run.
 */
void __init taskstats_init_early(void)
{
	unsigned int cpu;

	taskstats_cache = KMEM_CACHE(taskstats, SLAB_PANIC | SLAB_ACCOUNT);
	for_each_possible_cpu(cpu)
		INIT_LIST_HEAD(&per_cpu_ptr(ts_init_listeners.cpu, cpu)->list);
}

/* Late, so that every collector is ready before the first request. */
static int __init taskstats_init(void)
{
	int ret = genl_register_family(&ts_family);

	if (ret)
		return ret;
	init_user_ns.ucount_max[UCOUNT_TASKSTATS_LISTENERS] =
		TASKSTATS_LISTENERS_MAX;
	ts_family_registered = true;
	pr_info("registered taskstats version %d\n", TASKSTATS_GENL_VERSION);
	return 0;
}
late_initcall(taskstats_init);
