/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of taskstats share: the requester, the listeners'
 * lists, the record's framing, and the functions one file offers the
 * others. Nothing here is for use outside kernel/taskstats/.
 */
#ifndef _KERNEL_TASKSTATS_INTERNAL_H
#define _KERNEL_TASKSTATS_INTERNAL_H

#include <linux/cgroup.h>
#include <linux/cpumask.h>
#include <linux/list.h>
#include <linux/pid_namespace.h>
#include <linux/sched/task.h>
#include <linux/srcu.h>
#include <linux/taskstats.h>
#include <linux/types.h>
#include <net/genetlink.h>

struct cgroup_list;

/*
 * Listeners a user may register, the initial user namespace's default of
 * user.max_taskstats_listeners. A new user namespace starts unlimited and
 * is bounded by its ancestors' counts. The initial namespace's admin is
 * not counted.
 */
#define TASKSTATS_LISTENERS_MAX	1024

/*
 * Who asks, and with which credentials reads are judged: a GET's sender,
 * a dump's starter or a listener's registrant, captured once. @cred is
 * the caller's; @opener, when it is another's, is the socket opener's,
 * which must allow every read too: whoever reads the socket sees the
 * answers. Ids are reported in @cred's user namespace and @pid_ns.
 */
struct requester {
	const struct cred *cred;
	const struct cred *opener;	/* NULL: the same as @cred */
	struct pid_namespace *pid_ns;
	bool admin;		/* CAP_NET_ADMIN in the initial user namespace */
	bool io_exact;		/* gets the I/O counters unrounded */
	bool cgroup_id;		/* its records carry their cgroup v2 id */
};

/*
 * The cgroup v2 a listener hears the exits of (or of its subtree): its id
 * and level, not a reference, so that a listener pins nothing and its
 * cgroup may be removed; no task exits in it after that, and an id is
 * never given to another cgroup. id 0: every cgroup.
 */
struct ts_cgroup_filter {
	u64 id;
	int level;
	bool subtree;
};

/*
 * The listeners of one CPU in one pid namespace. An exit walks the list
 * while links come and go; each link carries the value of @seq when it
 * was added, and the walk skips links added after it started. Otherwise
 * a CPU deregistered and registered again by a socket during the walk
 * would be met twice, old link and new, and the exit sent twice.
 */
struct cpu_listeners {
	struct list_head list;		/* struct listener_link.node */
	atomic64_t seq;			/* of the last link added */
	atomic_t seqnum;		/* of the next exit message */
};

struct taskstats_listeners {
	struct pid_namespace *pid_ns;	/* whose taskstats_listeners we are */
	unsigned int nr;		/* listeners */
	struct cpu_listeners __percpu *cpu;
	struct rcu_head rcu;
};

struct listener {
	struct sock *sk;
	struct requester rq;
	struct ucounts *ucounts;	/* charged, unless rq.admin */
	struct ts_cgroup_filter cg;
	struct taskstats_listeners *nsl;
	struct list_head links;		/* struct listener_link.sibling */
	struct rcu_head rcu;
};

/* A listener on one CPU. */
struct listener_link {
	struct list_head node;		/* in a CPU's list of nsl */
	struct list_head sibling;	/* in listener->links */
	struct listener *l;
	unsigned int cpu;
	u64 seq;			/* see struct cpu_listeners */
	struct rcu_head rcu;
};

/* The generic netlink private data of a socket: its listener, if any. */
struct listener_sock {
	struct listener *l;
};

/*
 * The elapsed and CPU times of the threads being summed, in ns: converted
 * to the record's microseconds once for the group rather than three
 * divisions per thread, the part of a TGID GET that grows with the
 * group.
 */
struct group_times {
	u64 etime, utime, stime;
};

/* A TASKSTATS_CMD_NEW message being written. */
struct ts_msg {
	struct nlmsghdr *nlh;
};

/* A record's bytes before its pad: the AGGR nest's header, PID or TGID. */
#define TS_RECORD_HEAD	(NLA_HDRLEN + NLA_ALIGN(NLA_HDRLEN + sizeof(u32)))

/*
 * Room for one record in a message, including the pad that aligns STATS
 * to 8 bytes (see record.c) and, if asked for, its cgroup id; a constant
 * for each.
 */
static inline size_t ts_record_size(bool cgroup_id)
{
	return TS_RECORD_HEAD + nla_total_size_64bit(sizeof(struct taskstats)) +
	       (cgroup_id ? nla_total_size_64bit(sizeof(u64)) : 0);
}

/*
 * The cgroup v2 id of @tsk, which the caller keeps from being freed: its
 * css_set, and with it the cgroup, lives as long as the task struct.
 */
static inline u64 ts_task_cgroup_id(struct task_struct *tsk)
{
#ifdef CONFIG_CGROUPS
	u64 id;

	rcu_read_lock();
	id = cgroup_id(task_dfl_cgroup(tsk));
	rcu_read_unlock();
	return id;
#else
	return 0;
#endif
}

/* family.c */
extern bool ts_family_registered;
extern struct genl_family ts_family;

/* access.c */
int ts_requester_init(struct requester *rq, const struct sk_buff *skb,
		      struct netlink_ext_ack *extack);
void ts_requester_get(struct requester *rq);
void ts_requester_put(struct requester *rq);
bool __ts_may_open(const struct requester *rq, struct task_struct *tsk,
		   unsigned int mode);

/*
 * Whether @rq could at least open @tsk's io file: what a read checks
 * before it takes the task's exec_update_lock, so that nobody takes the
 * lock of a task it could never read. Inline for the admin's answer: a
 * cgroup dump asks it of every task it lists.
 */
static inline bool ts_may_open(const struct requester *rq,
			       struct task_struct *tsk, unsigned int mode)
{
	return rq->admin || __ts_may_open(rq, tsk, mode);
}

bool ts_may_read(const struct requester *rq, struct task_struct *tsk,
		 unsigned int mode);

/*
 * What a request asks of its records beyond the record: the cgroup id
 * (TASKSTATS_CMD_ATTR_CGROUP_ID), which a kernel without cgroups has not.
 */
static inline int ts_requester_opts(struct requester *rq, struct nlattr **attrs,
				    struct netlink_ext_ack *extack)
{
	struct nlattr *cgroup_id = attrs[TASKSTATS_CMD_ATTR_CGROUP_ID];

	rq->cgroup_id = cgroup_id;
	if (cgroup_id && !IS_ENABLED(CONFIG_CGROUPS)) {
		NL_SET_ERR_MSG_ATTR(extack, cgroup_id, "a kernel without cgroups");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* record.c */
void ts_collect_task(struct taskstats *stats, struct task_struct *tsk,
		     const struct requester *rq);
void ts_group_add_thread(struct taskstats *stats, struct group_times *times,
			 struct task_struct *tsk, u64 now_ns);
void ts_group_add_times(struct taskstats *stats,
			const struct group_times *times);
int ts_group_sum(struct task_struct *tsk, struct taskstats *stats);
int ts_read_record(const struct requester *rq, struct task_struct *tsk,
		   u32 nr, bool group, unsigned int mode, bool may_wait,
		   struct taskstats *stats);
struct taskstats *ts_record_open(struct sk_buff *skb, struct ts_msg *msg,
				 int id_type, u32 id);
struct taskstats *ts_msg_open(struct sk_buff *skb, u32 portid, u32 seq,
			      int flags, int id_type, u32 id,
			      struct ts_msg *msg);
int ts_record_put_cgroup_id(struct sk_buff *skb, struct ts_msg *msg,
			    struct task_struct *tsk);

/* listeners.c */
extern struct srcu_struct ts_listeners_srcu;
extern atomic_t ts_nr_nsl;
extern struct taskstats_listeners ts_init_listeners;
struct taskstats_listeners *ts_nsl_find(struct pid_namespace *ns);
int ts_listener_add(const struct requester *rq, struct sock *sk,
		    const struct cpumask *mask, const struct ts_cgroup_filter *cg);
int ts_listener_del(struct sock *sk, const struct cpumask *mask);
void ts_listener_sock_destroy(void *priv);
void ts_listener_send(struct sock *sk, struct sk_buff *skb);
void ts_listener_lost(struct sock *sk);

/* dump.c */
int ts_walk_pause(unsigned int *steps);
int taskstats_dump_start(struct netlink_callback *cb);
int taskstats_dump_done(struct netlink_callback *cb);
int taskstats_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

#ifdef CONFIG_CGROUPS
/* cgroup.c: the tasks of a cgroup dump, listed as cgroup.c explains. */
struct cgroup_entry {
	u64 start_time;
	pid_t nr;
};

struct cgroup_list {
	struct cgroup_entry *tasks;
	unsigned int len, size;
	unsigned int next;		/* the next entry to send */
	unsigned int steps;		/* of the walk that makes the list */
	bool tgid;			/* entries are thread groups */
};

void ts_cgroup_list_free(struct cgroup_list *l);
struct cgroup_list *ts_cgroup_list_start(u32 fd, bool subtree, bool tgid,
					 const struct requester *rq);
int ts_cgroup_filter_init(struct ts_cgroup_filter *f, u32 fd, bool subtree);

/*
 * Whether @f lets a listener hear of a task that exits in @cgrp: a load
 * or two and a compare, before any check of the listener's rights.
 */
static inline bool ts_cgroup_filter_match(const struct ts_cgroup_filter *f,
					  struct cgroup *cgrp)
{
	if (!f->id)
		return true;
	if (f->subtree)
		cgrp = cgroup_ancestor(cgrp, f->level);
	return cgrp && cgroup_id(cgrp) == f->id;
}

/* The cgroup v2 of current, exiting: it stays put (PF_EXITING). */
static inline struct cgroup *ts_exit_cgroup(struct task_struct *tsk)
{
	return task_dfl_cgroup(tsk);
}

/*
 * The next task of @l still alive and still the one listed, with a
 * reference, or NULL at the end; *@nr is set to its id in @ns. Inline:
 * a cgroup dump asks it once a record.
 */
static inline struct task_struct *
ts_cgroup_list_next(struct cgroup_list *l, struct pid_namespace *ns, int *nr)
{
	enum pid_type type = l->tgid ? PIDTYPE_TGID : PIDTYPE_PID;
	struct task_struct *tsk;
	struct cgroup_entry *e;

	while (l->next < l->len) {
		e = &l->tasks[l->next++];
		if (!(l->next % 256))
			cond_resched();
		rcu_read_lock();
		tsk = pid_task(find_pid_ns(e->nr, ns), type);
		/* de_thread() hands a new leader its predecessor's start. */
		if (tsk && READ_ONCE(tsk->start_time) == e->start_time)
			get_task_struct(tsk);
		else
			tsk = NULL;
		rcu_read_unlock();
		if (tsk) {
			*nr = e->nr;
			return tsk;
		}
	}
	return NULL;
}

/* Steps @l back one task: the next ts_cgroup_list_next() looks it up again. */
static inline void ts_cgroup_list_back(struct cgroup_list *l)
{
	l->next--;
}
#else
static inline void ts_cgroup_list_back(struct cgroup_list *l)
{
}

static inline struct task_struct *ts_cgroup_list_next(struct cgroup_list *l,
						      struct pid_namespace *ns, int *nr)
{
	return NULL;
}

static inline struct cgroup_list *ts_cgroup_list_start(u32 fd, bool subtree, bool tgid,
						       const struct requester *rq)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static inline void ts_cgroup_list_free(struct cgroup_list *l)
{
}

static inline int ts_cgroup_filter_init(struct ts_cgroup_filter *f, u32 fd,
					bool subtree)
{
	return -EOPNOTSUPP;
}

static inline bool ts_cgroup_filter_match(const struct ts_cgroup_filter *f,
					  struct cgroup *cgrp)
{
	return true;
}

static inline struct cgroup *ts_exit_cgroup(struct task_struct *tsk)
{
	return NULL;
}
#endif

#endif /* _KERNEL_TASKSTATS_INTERNAL_H */
