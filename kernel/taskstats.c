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
 * exits. An exiting thread moves from the first sum to the second when
 * taskstats_exit() folds it in, although it stays in the thread list until
 * exit_notify(): it counts once, whenever the group is read. The fold
 * writes signal->stats_lock. A reader walks the group once without a
 * lock and, if a fold or a release overlapped that walk, once more
 * holding the lock (group_sum()).
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
 * Cost on the exit path: with no listener on the exiting CPU and a
 * single-threaded process, taskstats_exit() is two loads (the family's
 * flag, signal->stats) and a list_empty() check; a task of a child pid
 * namespace adds an atomic read and, once any such namespace has a
 * listener, an SRCU read section over a walk up its namespaces. A
 * multi-threaded group additionally folds the exiting thread into
 * signal->stats under signal->stats_lock. With listeners, the record is
 * collected once per run of listeners that share a view and the message
 * cloned per listener; the last thread of a group also sums the group,
 * once, if one of them may read its leader.
 *
 * Dump: a GET with NLM_F_DUMP walks the requester's pid namespace in pid
 * order and streams one message per task (or per thread group with
 * TASKSTATS_CMD_ATTR_DUMP_TGID), each with one record, as many messages
 * per skb as fit. The cursor is the next pid number, so a dump resumed
 * across skbs sees every task that lives through it exactly once,
 * whatever forks and exits meanwhile. A dump of one cgroup
 * (DUMP_CGROUP_FD, DUMP_SUBTREE) lists that cgroup's tasks when it starts
 * instead: it costs what the cgroup holds, not what the system does.
 *
 * Who may read what. A record leaks timing and I/O patterns of its task
 * (CVE-2011-2494), so a requester reads a task's record if and only if it
 * could read the task's /proc/PID/io, the privileged admin aside:
 *
 *  - CAP_NET_ADMIN in the initial user namespace reads every task the
 *    requester's pid namespace shows, with the I/O counters rounded down
 *    to KiB, unless it also has CAP_SYS_PTRACE;
 *  - anyone else, a container's root included, reads the tasks whose io
 *    file it could open (own it, or CAP_DAC_OVERRIDE or
 *    CAP_DAC_READ_SEARCH with the owner mapped in its user namespace; the
 *    files of an undumpable task or a zombie belong to root) and
 *    ptrace-read with its fs credentials (ptrace_may_access() with
 *    PTRACE_MODE_READ_FSCREDS: same ids or CAP_SYS_PTRACE over the task's
 *    user namespace, the task dumpable or CAP_SYS_PTRACE over its mm's
 *    user namespace, and the LSMs' consent through their ptrace hook).
 *    The check and the collection run under the task's exec_update_lock,
 *    as /proc's do, so an exec cannot turn the task into a setuid program
 *    in between; a requester that could not even open the file takes no
 *    lock of the task. A GET of another task is EPERM; a dump leaves it
 *    out, its capability checks unaudited. A TGID GET judges the group's
 *    leader, and so does an exit listener for the group's record. A
 *    zombie leader's group is thus root's, as in /proc.
 *
 * Whose credentials: the requester is both the process that opened the
 * socket and the one that sends on it (the CVE-2014-0181 lesson): each
 * must allow every read, since whoever holds the socket reads the
 * answers. As for netlink_capable(), a sender that addresses its message
 * (sendto(2)) vouches for it alone; one that write(2)s it does not. A
 * dump is judged with the credentials that started it, and only those
 * may continue it: its later parts are built in recvmsg(), by the reader,
 * and a read with other credentials ends it with EPERM. Whoever owns the
 * socket's network namespace can watch it (nlmon): a request is refused
 * (EPERM) unless the sender's or the opener's user namespace is that
 * owner or descends from it.
 * Credentials other than current's are judged with PTRACE_MODE_NOSELF,
 * so that current's own process is not waved through for them, and
 * current is not marked as having used their capabilities. LSMs consent
 * through their ptrace hook: those that read the credentials in place
 * (commoncap, SELinux, AppArmor) judge the borrowed ones; those that read
 * the tracer task's own (Smack, Landlock) judge current's, which for a
 * listener is the exiting task itself. They cannot restrict what a
 * listener hears, nor what an opener other than the sender reads: the
 * kernel has no ptrace hook that takes the credentials to judge.
 *
 * Listeners. Registering an exit listener needs CAP_NET_ADMIN over the
 * owner of the requester's pid namespace, for opener and sender. The
 * listener belongs to its socket and receives, on that socket and never
 * on a port id, the exits of the tasks its registrant could read at the
 * moment they exit, with ids of the registrant's namespaces; it is
 * removed when the socket is released. A record that cannot be allocated
 * for a listener is reported to it as a dropped one is (ENOBUFS), and
 * the listeners after it still get theirs. Listeners are kept per pid
 * namespace, so that an exit costs only the listeners that see it: a
 * container's listeners cost the host's exits nothing. The exit messages
 * are numbered per CPU and pid namespace, so that their numbers tell
 * nothing of the exits other namespaces hear. A user's
 * listeners are charged to its memory cgroup and counted per user
 * namespace (user.max_taskstats_listeners, 1024 by default; ENOSPC
 * beyond), except those of the initial namespace's admin.
 *
 * Ids are translated into the requester's user and pid namespaces; tasks
 * outside its pid namespace do not exist for it (ESRCH). cgroupstats
 * needs no privilege.
 */
#include <linux/acct.h>
#include <linux/cgroup.h>
#include <linux/cgroupstats.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/delayacct.h>
#include <linux/file.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
#include <linux/security.h>
#include <linux/rwsem.h>
#include <linux/sched/coredump.h>
#include <linux/sched/cputime.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/srcu.h>
#include <linux/taskstats_kern.h>
#include <linux/tsacct_kern.h>
#include <linux/user_namespace.h>
#include <net/genetlink.h>
#include <net/net_namespace.h>
#include <net/sock.h>

/*
 * The ABI: fields are only ever appended. The selftests' abi_test pins
 * every field's offset and size; a change of the record's size does not
 * build.
 */
static_assert(sizeof(struct taskstats) == 688);
static_assert(TASKSTATS_VERSION == 17);

/* Longest cpulist accepted by REGISTER/DEREGISTER_CPUMASK. */
#define TASKSTATS_CPUMASK_MAXLEN	(100 + 6 * NR_CPUS)

struct kmem_cache *taskstats_cache;
static bool family_registered __read_mostly;
static struct genl_family family;

/* --------------------------------------------------------------- access */

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
};

/* The credentials of whoever opened the socket @skb was sent on. */
static const struct cred *opener_cred(const struct sk_buff *skb)
{
	struct socket *sock = NETLINK_CB(skb).sk->sk_socket;

	return sock && sock->file ? sock->file->f_cred : current_cred();
}

/*
 * netlink_capable(@skb, @cap), unaudited: a requester without the
 * capability is refused nothing here, only judged task by task or given
 * less, so its lack is no denial for an LSM to log. A use is still marked
 * (PF_SUPERPRIV), as GENL_ADMIN_PERM would mark it.
 */
static bool requester_capable(const struct sk_buff *skb,
			      const struct cred *opener, int cap)
{
	if (!(NETLINK_CB(skb).flags & NETLINK_SKB_DST) &&
	    security_capable(opener, &init_user_ns, cap, CAP_OPT_NOAUDIT))
		return false;
	return ns_capable_noaudit(&init_user_ns, cap);
}

/*
 * Whether @rq may be answered on its socket. Every message a socket
 * receives also passes the netlink taps (nlmon) of its network namespace,
 * which CAP_NET_ADMIN over that namespace's owner may open. What @rq reads
 * is what both its sender and the socket's opener may read, so answering
 * is safe when either's user namespace is that owner or descends from
 * it: whoever can watch the socket then holds CAP_NET_ADMIN over that
 * user namespace, as a container's root does over its container.
 * Otherwise, as for the host's admin with a socket made in a rootless
 * container's network namespace, that container's root would see records
 * it may not read itself. Upstream answers there: its family is in every
 * network namespace too, and asks only for CAP_NET_ADMIN in the initial
 * user namespace.
 */
static bool requester_net_ok(const struct requester *rq,
			     const struct sk_buff *skb)
{
	const struct user_namespace *owner = sock_net(NETLINK_CB(skb).sk)->user_ns;

	return in_userns(owner, rq->cred->user_ns) ||
	       (rq->opener && in_userns(owner, rq->opener->user_ns));
}

/*
 * The sender of @skb, current. As netlink_capable() and
 * netlink_ns_capable() do for capabilities, the opener's credentials are
 * judged too unless the sender addressed the message itself (sendto(2),
 * sendmsg(2) with a name: NETLINK_SKB_DST), a deliberate act. A write(2)
 * on a socket received from someone else is not.
 *
 * -EPERM, before any capability is asked, if the socket's network
 * namespace would show the answers to less privileged users
 * (requester_net_ok()).
 */
static int requester_init(struct requester *rq, const struct sk_buff *skb,
			  struct netlink_ext_ack *extack)
{
	const struct cred *opener = opener_cred(skb);

	rq->cred = current_cred();
	rq->opener = opener == rq->cred ||
		     (NETLINK_CB(skb).flags & NETLINK_SKB_DST) ? NULL : opener;
	if (!requester_net_ok(rq, skb)) {
		NL_SET_ERR_MSG(extack,
			       "socket's network namespace is owned outside the requester's user namespaces");
		return -EPERM;
	}
	rq->pid_ns = task_active_pid_ns(current);
	rq->admin = requester_capable(skb, opener, CAP_NET_ADMIN);
	/*
	 * Exact I/O counters of another user's task are a side channel
	 * (CVE-2011-2494: keystrokes through wchar): /proc/PID/io closes it
	 * with ptrace read access, and rounding every counter down to KiB
	 * blurs it. Anyone else reads only what /proc would show it; the
	 * admin reads every task, so it gets the counters exactly only with
	 * CAP_SYS_PTRACE, with which it could ptrace any task anyway, and
	 * rounded without it.
	 */
	rq->io_exact = !rq->admin ||
		       requester_capable(skb, opener, CAP_SYS_PTRACE);
	return 0;
}

/* For a requester that outlives its request: a dump or a listener. */
static void requester_get(struct requester *rq)
{
	get_cred(rq->cred);
	if (rq->opener)
		get_cred(rq->opener);
	get_pid_ns(rq->pid_ns);
}

static void requester_put(struct requester *rq)
{
	put_cred(rq->cred);
	if (rq->opener)
		put_cred(rq->opener);
	put_pid_ns(rq->pid_ns);
}

/*
 * The owner /proc gives @tsk's io file (mode 0400), as task_dump_owner()
 * computes it: the task's effective ids, or root of its mm's user
 * namespace once it is not dumpable; root for kernel threads and for a
 * task without memory (a zombie).
 */
static void io_owner(struct task_struct *tsk, kuid_t *uid, kgid_t *gid)
{
	const struct cred *tcred;
	struct mm_struct *mm;

	*uid = GLOBAL_ROOT_UID;
	*gid = GLOBAL_ROOT_GID;
	if (tsk->flags & PF_KTHREAD)
		return;
	rcu_read_lock();
	tcred = __task_cred(tsk);
	*uid = tcred->euid;
	*gid = tcred->egid;
	rcu_read_unlock();
	task_lock(tsk);
	mm = tsk->mm;
	if (!mm) {
		*uid = GLOBAL_ROOT_UID;
		*gid = GLOBAL_ROOT_GID;
	} else if (get_dumpable(mm) != SUID_DUMP_USER) {
		*uid = make_kuid(mm->user_ns, 0);
		if (!uid_valid(*uid))
			*uid = GLOBAL_ROOT_UID;
		*gid = make_kgid(mm->user_ns, 0);
		if (!gid_valid(*gid))
			*gid = GLOBAL_ROOT_GID;
	}
	task_unlock(tsk);
}

/*
 * Whether @cred could open @tsk's io file: be its owner, or override or
 * bypass read permission (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH) in its
 * own user namespace with the owner's ids mapped there, as
 * generic_permission() allows.
 */
static bool cred_may_open_io(const struct cred *cred, struct task_struct *tsk,
			     unsigned int mode)
{
	unsigned int opts = mode & PTRACE_MODE_NOAUDIT ? CAP_OPT_NOAUDIT : CAP_OPT_NONE;
	kuid_t uid;
	kgid_t gid;

	io_owner(tsk, &uid, &gid);
	if (uid_eq(cred->fsuid, uid))
		return true;
	if (!kuid_has_mapping(cred->user_ns, uid) ||
	    !kgid_has_mapping(cred->user_ns, gid))
		return false;
	/*
	 * Bypassing read permission first, as generic_permission() asks for
	 * a read: asking for the override first would have an LSM log a
	 * denial of it that opening the file never causes.
	 */
	return !security_capable(cred, cred->user_ns, CAP_DAC_READ_SEARCH, opts) ||
	       !security_capable(cred, cred->user_ns, CAP_DAC_OVERRIDE, opts);
}

/*
 * Whether @cred could read @tsk's /proc/PID/io: open the file, then pass
 * the ptrace-read check of its read(), with fs credentials.
 * ptrace_may_access() judges current, and passes current's own thread
 * group unjudged; credentials other than current's are put in place for
 * the check and judged on every task, current's group included
 * (PTRACE_MODE_NOSELF). That costs two atomics on @cred per check, paid
 * only when the socket changed hands and by non-admin listeners.
 *
 * A capability used with borrowed credentials is not current's: the
 * PF_SUPERPRIV it sets is undone, or an exiting task judged for a
 * container's listener would go on record as having used one (ASU).
 */
static bool cred_may_read(const struct cred *cred, struct task_struct *tsk,
			  unsigned int mode)
{
	unsigned int superpriv = current->flags & PF_SUPERPRIV;
	const struct cred *old;
	bool ok;

	/*
	 * Unaudited: where a read is audited (a GET), may_open() judged the
	 * open, audited, before the exec lock; this catches an exec since.
	 */
	if (!cred_may_open_io(cred, tsk, mode | PTRACE_MODE_NOAUDIT))
		return false;
	if (cred == current_cred())
		return ptrace_may_access(tsk, mode);
	old = override_creds(cred);
	ok = ptrace_may_access(tsk, mode | PTRACE_MODE_NOSELF);
	revert_creds(old);
	current->flags = (current->flags & ~PF_SUPERPRIV) | superpriv;
	return ok;
}

/*
 * Whether @rq could at least open @tsk's io file: what a read checks
 * before it takes the task's exec_update_lock, so that nobody takes the
 * lock of a task it could never read.
 */
static bool may_open(const struct requester *rq, struct task_struct *tsk,
		     unsigned int mode)
{
	if (rq->admin)
		return true;
	return cred_may_open_io(rq->cred, tsk, mode) &&
	       (!rq->opener || cred_may_open_io(rq->opener, tsk, mode));
}

/* Whether @rq may read @tsk's record; see the top of this file. */
static bool may_read(const struct requester *rq, struct task_struct *tsk,
		     unsigned int mode)
{
	if (rq->admin)
		return true;
	if (!cred_may_read(rq->cred, tsk, mode))
		return false;
	return !rq->opener || cred_may_read(rq->opener, tsk, mode);
}

/* ------------------------------------------------------------ listeners */

/*
 * A listener is a socket registered for the exits on some CPUs, with the
 * requester that registered it. It belongs to the socket (its generic
 * netlink private data), holds a reference on it and sends records to it,
 * never to its port id: a closed socket's port id can be bound again at
 * once by anyone. The socket's release removes it.
 *
 * Listeners are kept per pid namespace (struct taskstats_listeners,
 * which the namespace points to), and in it per CPU, as links: an exit on
 * CPU n walks the CPU n list of its own pid namespace and of each
 * ancestor, the only namespaces that see it, one pointer away each. A
 * container's listeners thus cost the host's exits nothing, and other
 * containers' exits nothing but a pointer load per level. Exits walk the
 * lists under SRCU (building a message may sleep); changes are made
 * under listeners_mutex and freed after an SRCU grace period, so closing
 * a listener never waits for exits in flight. A registration allocates
 * what it may need before it takes the mutex (struct listener_alloc):
 * every socket's release waits for it.
 */
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
 * Listeners a user may register, the initial user namespace's default of
 * user.max_taskstats_listeners. A new user namespace starts unlimited and
 * is bounded by its ancestors' counts. The initial namespace's admin is
 * not counted.
 */
#define TASKSTATS_LISTENERS_MAX	1024

DEFINE_STATIC_SRCU(listeners_srcu);
static DEFINE_MUTEX(listeners_mutex);
static atomic_t nr_nsl = ATOMIC_INIT(0);	/* namespaces but the initial one */
static DEFINE_PER_CPU(struct cpu_listeners, init_listener_list);
static struct taskstats_listeners init_listeners = {
	.pid_ns	= &init_pid_ns,
	.cpu	= &init_listener_list,
};

static struct taskstats_listeners *nsl_find(struct pid_namespace *ns)
{
	if (ns == &init_pid_ns)
		return &init_listeners;
	return srcu_dereference_check(ns->taskstats_listeners, &listeners_srcu,
				      lockdep_is_held(&listeners_mutex));
}

static void nsl_free(struct taskstats_listeners *nsl)
{
	if (nsl)
		free_percpu(nsl->cpu);
	kfree(nsl);
}

static void nsl_free_rcu(struct rcu_head *rcu)
{
	struct taskstats_listeners *nsl = container_of(rcu, struct taskstats_listeners, rcu);

	put_pid_ns(nsl->pid_ns);
	nsl_free(nsl);
}

/* Lists for a pid namespace's listeners, not yet its. */
static struct taskstats_listeners *nsl_alloc(void)
{
	struct taskstats_listeners *nsl;
	unsigned int cpu;

	nsl = kzalloc(sizeof(*nsl), GFP_KERNEL_ACCOUNT);
	if (!nsl)
		return NULL;
	nsl->cpu = alloc_percpu_gfp(struct cpu_listeners, GFP_KERNEL_ACCOUNT);
	if (!nsl->cpu) {
		nsl_free(nsl);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		INIT_LIST_HEAD(&per_cpu_ptr(nsl->cpu, cpu)->list);
	return nsl;
}

/*
 * The listeners of @ns; its first listener brings them in *@spare. NULL
 * if it brought none, because they went away after it looked.
 * listeners_mutex held.
 */
static struct taskstats_listeners *nsl_get(struct pid_namespace *ns,
					   struct taskstats_listeners **spare)
{
	struct taskstats_listeners *nsl = nsl_find(ns);

	if (nsl || !*spare)
		return nsl;
	nsl = *spare;
	*spare = NULL;
	nsl->pid_ns = get_pid_ns(ns);
	rcu_assign_pointer(ns->taskstats_listeners, nsl);
	atomic_inc(&nr_nsl);
	return nsl;
}

/* @nsl lost a listener. listeners_mutex held. */
static void nsl_put(struct taskstats_listeners *nsl)
{
	if (--nsl->nr || nsl == &init_listeners)
		return;
	RCU_INIT_POINTER(nsl->pid_ns->taskstats_listeners, NULL);
	atomic_dec(&nr_nsl);
	call_srcu(&listeners_srcu, &nsl->rcu, nsl_free_rcu);
}

static void link_free_rcu(struct rcu_head *rcu)
{
	kfree(container_of(rcu, struct listener_link, rcu));
}

static void listener_free_rcu(struct rcu_head *rcu)
{
	struct listener *l = container_of(rcu, struct listener, rcu);
	struct listener_link *link, *tmp;

	list_for_each_entry_safe(link, tmp, &l->links, sibling)
		kfree(link);
	requester_put(&l->rq);
	sock_put(l->sk);
	kfree(l);
}

/*
 * What a registration may need, allocated before it takes listeners_mutex
 * and freed after it if unused: an allocation may reclaim, and the
 * release of every listening socket waits for the mutex, so nobody (a
 * container's root near its memory cgroup's limit, say) may hold it while
 * allocating. A registration of CPUs the socket already has pays one
 * link per CPU, allocated and freed. The user's counters are held too,
 * so that charging the user under the mutex finds them and allocates
 * nothing; the charge itself is decided there, where the socket is
 * known to have no listener yet.
 */
struct listener_alloc {
	struct listener_sock *ls;		/* kept until the socket's release */
	struct listener *l;			/* if the socket has none */
	struct ucounts *held;			/* for l, unless rq->admin */
	struct taskstats_listeners *nsl;	/* if the namespace has none */
	struct list_head links;			/* one per CPU asked for */
	cpumask_var_t has;			/* CPUs the listener has */
};

static int listener_alloc(struct listener_alloc *a, const struct requester *rq,
			  struct sock *sk, const struct cpumask *mask)
{
	struct pid_namespace *ns = rq->pid_ns;
	struct listener_link *link;
	unsigned int cpu;

	INIT_LIST_HEAD(&a->links);
	a->l = NULL;
	a->held = NULL;
	a->nsl = NULL;
	if (!zalloc_cpumask_var(&a->has, GFP_KERNEL))
		return -ENOMEM;
	/* Created on first use, even if nothing registers. */
	a->ls = genl_sk_priv_get(&family, sk);
	if (IS_ERR(a->ls))
		return PTR_ERR(a->ls);
	if (!READ_ONCE(a->ls->l)) {
		a->l = kzalloc(sizeof(*a->l), GFP_KERNEL_ACCOUNT);
		if (!a->l)
			return -ENOMEM;
		if (!rq->admin) {
			a->held = alloc_ucounts(rq->cred->user_ns,
						rq->cred->euid);
			if (!a->held)
				return -ENOMEM;
		}
	}
	if (ns != &init_pid_ns && !rcu_access_pointer(ns->taskstats_listeners)) {
		a->nsl = nsl_alloc();
		if (!a->nsl)
			return -ENOMEM;
	}
	for_each_cpu(cpu, mask) {
		link = kmalloc_node(sizeof(*link), GFP_KERNEL_ACCOUNT,
				    cpu_to_node(cpu));
		if (!link)
			return -ENOMEM;
		link->cpu = cpu;
		list_add_tail(&link->sibling, &a->links);
	}
	return 0;
}

/* Frees what the registration did not use, after listeners_mutex. */
static void listener_alloc_free(struct listener_alloc *a)
{
	struct listener_link *link, *tmp;

	list_for_each_entry_safe(link, tmp, &a->links, sibling)
		kfree(link);
	nsl_free(a->nsl);
	if (a->held)
		put_ucounts(a->held);
	kfree(a->l);
	free_cpumask_var(a->has);
}

/*
 * A new listener of @sk for @rq, charged to its user, from @a; -EAGAIN if
 * @a lacks what it needs: the socket's listener, or the namespace's
 * lists, went away after listener_alloc() looked.
 */
static struct listener *listener_new(const struct requester *rq,
				     struct sock *sk, struct listener_alloc *a)
{
	struct ucounts *ucounts = NULL;
	struct taskstats_listeners *nsl;
	struct listener *l;

	lockdep_assert_held(&listeners_mutex);
	l = a->l;
	if (!l)
		return ERR_PTR(-EAGAIN);
	if (!rq->admin) {
		/* Finds the counters @a holds: allocates nothing. */
		ucounts = inc_ucount(rq->cred->user_ns, rq->cred->euid,
				     UCOUNT_TASKSTATS_LISTENERS);
		if (!ucounts)
			return ERR_PTR(-ENOSPC);
	}
	nsl = nsl_get(rq->pid_ns, &a->nsl);
	if (!nsl) {
		if (ucounts)
			dec_ucount(ucounts, UCOUNT_TASKSTATS_LISTENERS);
		return ERR_PTR(-EAGAIN);
	}
	a->l = NULL;
	nsl->nr++;
	l->nsl = nsl;
	l->ucounts = ucounts;
	l->rq = *rq;
	requester_get(&l->rq);
	sock_hold(sk);
	l->sk = sk;
	INIT_LIST_HEAD(&l->links);
	return l;
}

/* Unlinks @l from every CPU and frees it after the exits in flight. */
static void listener_drop(struct listener *l)
{
	struct listener_link *link;

	lockdep_assert_held(&listeners_mutex);
	list_for_each_entry(link, &l->links, sibling)
		list_del_rcu(&link->node);
	if (l->ucounts)
		dec_ucount(l->ucounts, UCOUNT_TASKSTATS_LISTENERS);
	nsl_put(l->nsl);
	call_srcu(&listeners_srcu, &l->rcu, listener_free_rcu);
}

/*
 * A socket listens with one identity, that of its first registration;
 * another requester may only add CPUs if it would hear the same exits,
 * with the same ids.
 */
static bool same_requester(const struct requester *a, const struct requester *b)
{
	if (a->admin != b->admin || a->io_exact != b->io_exact ||
	    a->pid_ns != b->pid_ns || a->cred->user_ns != b->cred->user_ns)
		return false;
	return a->admin || (a->cred == b->cred && a->opener == b->opener);
}

/*
 * Adds the CPUs of @mask to the listener of @sk, creating it. Either every
 * CPU of @mask is added or, on error, nothing changes.
 */
static int listener_add(const struct requester *rq, struct sock *sk,
			const struct cpumask *mask)
{
	struct listener_link *link, *tmp;
	struct listener_alloc a;
	struct listener *l;
	LIST_HEAD(added);
	int ret;

again:
	ret = listener_alloc(&a, rq, sk, mask);
	if (ret)
		goto free;
	ret = mutex_lock_killable(&listeners_mutex);
	if (ret)
		goto free;
	l = a.ls->l;
	if (l && !same_requester(&l->rq, rq)) {
		ret = -EBUSY;
		goto out;
	}
	if (!l) {
		l = listener_new(rq, sk, &a);
		if (IS_ERR(l)) {
			ret = PTR_ERR(l);
			goto out;
		}
	}
	list_for_each_entry(link, &l->links, sibling)
		__cpumask_set_cpu(link->cpu, a.has);
	list_for_each_entry_safe(link, tmp, &a.links, sibling) {
		if (cpumask_test_cpu(link->cpu, a.has))
			continue;
		link->l = l;
		list_move_tail(&link->sibling, &added);
	}
	list_for_each_entry_safe(link, tmp, &added, sibling) {
		struct cpu_listeners *cl = per_cpu_ptr(l->nsl->cpu, link->cpu);

		list_move_tail(&link->sibling, &l->links);
		link->seq = atomic64_read(&cl->seq) + 1;
		list_add_tail_rcu(&link->node, &cl->list);
		/*
		 * Pairs with notify_listeners(): a walk that sees the new
		 * seq sees the link; one that does not skips it.
		 */
		atomic64_set_release(&cl->seq, link->seq);
	}
	/* An empty cpulist registers nothing. */
	if (list_empty(&l->links)) {
		listener_drop(l);
		l = NULL;
	}
	WRITE_ONCE(a.ls->l, l);
out:
	mutex_unlock(&listeners_mutex);
free:
	listener_alloc_free(&a);
	/*
	 * Only a deregistration racing on the same socket, or the last
	 * listener of the namespace going, gets here: allocate again,
	 * outside the mutex.
	 */
	if (ret == -EAGAIN) {
		if (fatal_signal_pending(current))
			return -EINTR;
		goto again;
	}
	return ret;
}

/* Removes the CPUs of @mask from the listener of @sk, if it has one. */
static int listener_del(struct sock *sk, const struct cpumask *mask)
{
	struct listener_link *link, *tmp;
	struct listener_sock *ls;
	struct listener *l;
	int ret;

	ret = mutex_lock_killable(&listeners_mutex);
	if (ret)
		return ret;
	ls = __genl_sk_priv_get(&family, sk);
	if (IS_ERR_OR_NULL(ls) || !ls->l)
		goto out;
	l = ls->l;
	list_for_each_entry_safe(link, tmp, &l->links, sibling) {
		if (!cpumask_test_cpu(link->cpu, mask))
			continue;
		list_del_rcu(&link->node);
		list_del(&link->sibling);
		call_srcu(&listeners_srcu, &link->rcu, link_free_rcu);
	}
	/* A listener on no CPU is no listener: uncharge it. */
	if (list_empty(&l->links)) {
		listener_drop(l);
		WRITE_ONCE(ls->l, NULL);
	}
out:
	mutex_unlock(&listeners_mutex);
	return 0;
}

/* The socket is being released (sock_priv_destroy). */
static void listener_sock_destroy(void *priv)
{
	struct listener_sock *ls = priv;

	mutex_lock(&listeners_mutex);
	if (ls->l)
		listener_drop(ls->l);
	ls->l = NULL;
	mutex_unlock(&listeners_mutex);
}

/*
 * Queues @skb on the listener's own socket, as netlink_unicast() would
 * on the socket its port id names. A full socket drops it and reports
 * ENOBUFS to its reader (netlink_attachskb() with no wait).
 */
static void listener_send(struct sock *sk, struct sk_buff *skb)
{
	long timeo = 0;

	if (sock_flag(sk, SOCK_DEAD) || sk_filter(sk, skb)) {
		kfree_skb(skb);
		return;
	}
	sock_hold(sk);		/* both calls below consume one reference */
	if (netlink_attachskb(sk, skb, &timeo, NULL))
		return;
	netlink_sendskb(sk, skb);
}

/*
 * @sk's listener misses a record that could not be allocated. It learns
 * so as it would of a record its full queue dropped: ENOBUFS (unless it
 * set NETLINK_NO_ENOBUFS) and one more drop. The exiting task allocates
 * with GFP_KERNEL, which can fail for the OOM killer's victim once the
 * reserves are gone; its exit would otherwise vanish without a trace.
 */
static void listener_lost(struct sock *sk)
{
	if (!sock_flag(sk, SOCK_DEAD))
		netlink_overrun(sk);
}

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

/* Everything @rq may know about one task, ids as @rq sees them. */
static void collect_task(struct taskstats *stats, struct task_struct *tsk,
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

/*
 * The elapsed and CPU times of the threads being summed, in ns: converted
 * to the record's microseconds once for the group rather than three
 * divisions per thread, the part of a TGID GET that grows with the
 * group.
 */
struct group_times {
	u64 etime, utime, stime;
};

/*
 * What a thread contributes to its group's record: delays and run times,
 * elapsed time, CPU time (into @times) and context switches. Other fields
 * of a group record stay zero.
 */
static void group_add_thread(struct taskstats *stats, struct group_times *times,
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

static void group_add_times(struct taskstats *stats,
			    const struct group_times *times)
{
	stats->ac_etime += div_u64(times->etime, NSEC_PER_USEC);
	stats->ac_utime += div_u64(times->utime, NSEC_PER_USEC);
	stats->ac_stime += div_u64(times->stime, NSEC_PER_USEC);
}

/*
 * One walk of a group for group_sum(): the exited threads' record, then
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
			group_add_thread(stats, times, t, now_ns);
	}
}

/*
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
 */
static int group_sum(struct task_struct *tsk, struct taskstats *stats)
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
	group_add_times(stats, &times);
	return 0;
}

/* The record of @leader's thread group. */
static int collect_group(struct task_struct *leader, struct taskstats *stats)
{
	int ret;

	ret = group_sum(leader, stats);
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

/*
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
 */
static int read_record(const struct requester *rq, struct task_struct *tsk,
		       u32 nr, bool group, unsigned int mode, bool may_wait,
		       struct taskstats *stats)
{
	struct rw_semaphore *exec_lock = &tsk->signal->exec_update_lock;
	int ret = 0;

	if (!rq->admin) {
		if (!may_open(rq, tsk, mode))
			return -EPERM;
		ret = exec_lock_read(exec_lock, may_wait);
		if (ret)
			return ret;
		if (!may_read(rq, tsk, mode)) {
			ret = -EPERM;
			goto out;
		}
	}
	if (group) {
		ret = collect_group(tsk, stats);
	} else {
		collect_task(stats, tsk, rq);
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

/* ------------------------------------------------------------ serialise */

/*
 * A record goes on the wire as AGGR_{PID,TGID}{ {PID,TGID}, [NULL,]
 * STATS }, the empty NULL attribute only where STATS would otherwise not
 * start 8-byte aligned on an architecture that cares. The collectors
 * write straight into the STATS attribute reserved for them: collecting
 * into a buffer and copying it in would add a slab round trip and a
 * 688-byte copy to every GET, dump record and exit event.
 *
 * That layout is fixed, so a record, and the headers of its message, are
 * laid out with one room check and one __skb_put(), headers written in
 * place, rather than attribute by attribute through the generic helpers:
 * the framing that sending each dumped record in a message of its own
 * adds is one bounds check.
 */

/* A record's bytes before its pad: the AGGR nest's header, PID or TGID. */
#define RECORD_HEAD	(NLA_HDRLEN + NLA_ALIGN(NLA_HDRLEN + sizeof(u32)))

/* Room for one record, including the pad that aligns STATS to 8 bytes. */
static size_t record_size(void)
{
	return RECORD_HEAD + nla_total_size_64bit(sizeof(struct taskstats));
}

/* The pad a record laid out at @at needs before STATS: 0 or NLA_HDRLEN. */
static size_t record_pad(const void *at)
{
	if (IS_ENABLED(CONFIG_HAVE_EFFICIENT_UNALIGNED_ACCESS) ||
	    IS_ALIGNED((unsigned long)at + RECORD_HEAD + NLA_HDRLEN, 8))
		return 0;
	return NLA_HDRLEN;
}

static size_t record_len(size_t pad)
{
	return RECORD_HEAD + pad + nla_total_size(sizeof(struct taskstats));
}

static struct nlattr *attr_head(void *at, int type, size_t len)
{
	struct nlattr *na = at;

	na->nla_len = len;
	na->nla_type = type;
	return na;
}

/* Writes the headers of a record of @id at @at; returns its stats. */
static struct taskstats *record_lay(void *at, size_t pad, int id_type,
				    u32 id)
{
	int aggr = id_type == TASKSTATS_TYPE_PID ?
		   TASKSTATS_TYPE_AGGR_PID : TASKSTATS_TYPE_AGGR_TGID;
	struct nlattr *na;

	attr_head(at, aggr, record_len(pad));
	na = attr_head(at + NLA_HDRLEN, id_type, nla_attr_size(sizeof(u32)));
	*(u32 *)nla_data(na) = id;
	at += RECORD_HEAD;
	if (pad)
		attr_head(at, TASKSTATS_TYPE_NULL, pad);
	na = attr_head(at + pad, TASKSTATS_TYPE_STATS,
		       nla_attr_size(sizeof(struct taskstats)));
	return nla_data(na);
}

/*
 * Adds a record of @id to the message at the end of @skb: returns the
 * room for its stats, or NULL (leaving @skb as it was) if it does not
 * fit.
 */
static struct taskstats *record_open(struct sk_buff *skb, int id_type, u32 id)
{
	void *at = skb_tail_pointer(skb);
	size_t pad = record_pad(at);

	if (skb_tailroom(skb) < record_len(pad))
		return NULL;
	__skb_put(skb, record_len(pad));
	return record_lay(at, pad, id_type, id);
}

/* A TASKSTATS_CMD_NEW message being written. */
struct ts_msg {
	struct nlmsghdr *nlh;
};

/*
 * Opens a TASKSTATS_CMD_NEW message in @skb with a first record of @id,
 * as genlmsg_put() and record_open() would: returns the room for its
 * stats, or NULL (leaving @skb as it was) if the two do not fit.
 * msg_close() ends the message, nlmsg_cancel(@skb, @msg->nlh) takes it
 * back.
 */
static struct taskstats *msg_open(struct sk_buff *skb, u32 portid, u32 seq,
				  int flags, int id_type, u32 id,
				  struct ts_msg *msg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)skb_tail_pointer(skb);
	void *at = (void *)nlh + NLMSG_HDRLEN + GENL_HDRLEN;
	size_t pad = record_pad(at);
	size_t len = NLMSG_HDRLEN + GENL_HDRLEN + record_len(pad);
	struct genlmsghdr *genl = nlmsg_data(nlh);

	BUILD_BUG_ON(NLMSG_ALIGN(sizeof(*genl)) != GENL_HDRLEN);
	if (skb_tailroom(skb) < len)
		return NULL;
	__skb_put(skb, len);
	nlh->nlmsg_len = len;
	nlh->nlmsg_type = family.id;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = portid;
	genl->cmd = TASKSTATS_CMD_NEW;
	genl->version = TASKSTATS_GENL_VERSION;
	genl->reserved = 0;
	msg->nlh = nlh;
	return record_lay(at, pad, id_type, id);
}

/* Ends the message, with every record added to it. */
static void msg_close(struct sk_buff *skb, struct ts_msg *msg)
{
	nlmsg_end(skb, msg->nlh);
}

/* ------------------------------------------------------------- requests */

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

	ret = requester_init(&rq, skb, info->extack);
	if (ret)
		return ret;
	rep = genlmsg_new(record_size(), GFP_KERNEL);
	if (!rep)
		return -ENOMEM;
	ret = -EMSGSIZE;
	stats = msg_open(rep, info->snd_portid, info->snd_seq, 0, id_type, id,
			 &msg);
	if (!stats)
		goto fail;
	ret = -ESRCH;
	tsk = find_get_task(id, group);
	if (!tsk)
		goto fail;
	ret = read_record(&rq, tsk, id, group, PTRACE_MODE_READ_FSCREDS,
			  false, stats);
	put_task_struct(tsk);
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

/*
 * REGISTER_CPUMASK and DEREGISTER_CPUMASK: CAP_NET_ADMIN over the owner
 * of the requester's pid namespace, for the opener and the sender.
 * Checked here only: a capability check that passes marks the caller as
 * having used it (PF_SUPERPRIV, ASU in its record), which a container's
 * root that only reads its own tasks has not.
 */
static int cmd_listener(struct sk_buff *skb, struct genl_info *info,
			const struct nlattr *na, bool add)
{
	struct requester rq;
	cpumask_var_t mask;
	int ret;

	ret = requester_init(&rq, skb, info->extack);
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
		ret = listener_add(&rq, NETLINK_CB(skb).sk, mask);
	else
		ret = listener_del(NETLINK_CB(skb).sk, mask);
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

/*
 * A break in a long walk, every 256 steps. A dump's first part is made in
 * the sender's sendmsg(), under genetlink's cb_lock, and its walk may skip
 * every task of the namespace as unreadable, or list every task of a
 * subtree of cgroups; a fatal signal ends it.
 */
static int walk_pause(unsigned int *steps)
{
	if (++*steps % 256)
		return 0;
	cond_resched();
	return fatal_signal_pending(current) ? -EINTR : 0;
}

#ifdef CONFIG_CGROUPS
/*
 * The cgroup (of either version) whose directory @dir is, pinned: EINVAL
 * for anything else, ENOENT for a cgroup being removed.
 */
static struct cgroup_subsys_state *cgroup_dir_css(struct dentry *dir)
{
	struct cgroup_subsys_state *css = css_tryget_online_from_dir(dir, NULL);

	if (IS_ERR(css) && PTR_ERR(css) == -EBADF)
		return ERR_PTR(-EINVAL);
	return css;
}

/*
 * A dump of one cgroup (DUMP_CGROUP_FD) sends the tasks that are in that
 * cgroup when it starts, and with DUMP_SUBTREE those of its descendants,
 * in pid order. They are listed then, with the cgroup core's task
 * iterator, whose cost follows the cgroup's tasks and not the pid space,
 * as pid numbers of the requester's namespace with their start times:
 * 16 bytes a task (12 on i386), charged to the requester. Only the tasks
 * whose io file the requester could open are listed, so that the list of
 * a dump left unread, which lives as long as its socket, holds at most
 * what the requester may read: its own tasks, for a user. The dump's
 * parts look each up again and skip the tasks gone, or whose number a
 * new task took. Nothing is held between parts: a task, a css_set or a
 * cgroup pinned by a dump its requester stopped reading would stay
 * allocated after its exit or rmdir, for as long as the socket lived.
 *
 * A task that moves between the subtree's cgroups while they are listed
 * is sent once, not twice, but may be missed, as a directory walk misses
 * a file renamed behind it.
 */
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

static int cgroup_list_add(struct cgroup_list *l, struct task_struct *tsk,
			   const struct requester *rq)
{
	struct pid_namespace *ns = rq->pid_ns;
	struct cgroup_entry *e;
	pid_t nr = l->tgid ? task_tgid_nr_ns(tsk, ns) : task_pid_nr_ns(tsk, ns);

	if (!nr)		/* another namespace's, or reaped */
		return 0;
	/* Unaudited, as a dump's checks are; a group's is its leader's. */
	if (!may_open(rq, tsk, PTRACE_MODE_READ_FSCREDS | PTRACE_MODE_NOAUDIT))
		return 0;
	if (l->len == l->size) {
		unsigned int size = l->size ? 2 * l->size : 64;

		e = kvrealloc(l->tasks, array_size(size, sizeof(*e)),
			      GFP_KERNEL_ACCOUNT);
		if (!e)
			return -ENOMEM;
		l->tasks = e;
		l->size = size;
	}
	e = &l->tasks[l->len++];
	e->nr = nr;
	/* A leader's, for a group. */
	e->start_time = READ_ONCE(tsk->start_time);
	return 0;
}

/* Lists the tasks of @css itself. */
static int cgroup_list_css(struct cgroup_list *l,
			   struct cgroup_subsys_state *css,
			   const struct requester *rq)
{
	struct css_task_iter it;
	struct task_struct *tsk;
	int ret = 0;

	css_task_iter_start(css, l->tgid ? CSS_TASK_ITER_PROCS : 0, &it);
	while (!ret && (tsk = css_task_iter_next(&it)))
		ret = cgroup_list_add(l, tsk, rq) ?: walk_pause(&l->steps);
	css_task_iter_end(&it);
	return ret;
}

/* Lists the tasks of @root, and with @subtree of its descendants. */
static int cgroup_list_fill(struct cgroup_list *l,
			    struct cgroup_subsys_state *root, bool subtree,
			    const struct requester *rq)
{
	struct cgroup_subsys_state *pos = root, *next;
	int ret;

	css_get(pos);
	while (!(ret = cgroup_list_css(l, pos, rq) ?: walk_pause(&l->steps)) &&
	       subtree) {
		rcu_read_lock();
		next = css_next_descendant_pre(pos, root);
		while (next && !css_tryget(next))
			next = css_next_descendant_pre(next, root);
		rcu_read_unlock();
		css_put(pos);
		pos = next;
		if (!pos)
			return 0;
	}
	css_put(pos);
	return ret;
}

static int cgroup_entry_cmp(const void *a, const void *b)
{
	const struct cgroup_entry *x = a, *y = b;

	if (x->nr != y->nr)
		return x->nr < y->nr ? -1 : 1;
	if (x->start_time != y->start_time)
		return x->start_time < y->start_time ? -1 : 1;
	return 0;
}

/*
 * Puts the list in pid order, as the pid walk sends, and each task in it
 * once: one that moved from a cgroup already listed to one listed later
 * was met twice. Then gives back the room it does not use.
 */
static void cgroup_list_sort(struct cgroup_list *l)
{
	struct cgroup_entry *e;
	unsigned int i, n = 0;

	sort(l->tasks, l->len, sizeof(*l->tasks), cgroup_entry_cmp, NULL);
	for (i = 0; i < l->len; i++)
		if (!n || cgroup_entry_cmp(&l->tasks[n - 1], &l->tasks[i]))
			l->tasks[n++] = l->tasks[i];
	l->len = n;
	if (n == l->size)
		return;
	/* A copy: kvrealloc() keeps the room it is given back. */
	e = n ? kvmalloc_array(n, sizeof(*e), GFP_KERNEL_ACCOUNT) : NULL;
	if (n && !e)
		return;		/* the larger array serves */
	if (e)
		memcpy(e, l->tasks, array_size(n, sizeof(*e)));
	kvfree(l->tasks);
	l->tasks = e;
	l->size = n;
}

static void cgroup_list_free(struct cgroup_list *l)
{
	kvfree(l->tasks);
	kfree(l);
}

/* Lists the tasks of the cgroup whose directory @fd is open on. */
static struct cgroup_list *cgroup_list_start(u32 fd, bool subtree, bool tgid,
					     const struct requester *rq)
{
	struct cgroup_subsys_state *css;
	struct cgroup_list *l;
	int ret;

	CLASS(fd, f)(fd);
	if (fd_empty(f))	/* closed, or O_PATH */
		return ERR_PTR(-EBADF);
	css = cgroup_dir_css(fd_file(f)->f_path.dentry);
	if (IS_ERR(css))
		return ERR_CAST(css);
	l = kzalloc(sizeof(*l), GFP_KERNEL_ACCOUNT);
	ret = -ENOMEM;
	if (l) {
		l->tgid = tgid;
		ret = cgroup_list_fill(l, css, subtree, rq);
	}
	css_put(css);
	if (ret) {
		if (l)
			cgroup_list_free(l);
		return ERR_PTR(ret);
	}
	cgroup_list_sort(l);
	return l;
}

/*
 * The next task of the list still alive and still the one listed, with
 * a reference, or NULL at the end; *@nr is set to its id.
 */
static struct task_struct *cgroup_list_next(struct cgroup_list *l,
					    struct pid_namespace *ns, int *nr)
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
#else
struct cgroup_list;

static struct task_struct *cgroup_list_next(struct cgroup_list *l,
					    struct pid_namespace *ns, int *nr)
{
	return NULL;
}

static struct cgroup_list *cgroup_list_start(u32 fd, bool subtree, bool tgid,
					     const struct requester *rq)
{
	return ERR_PTR(-EOPNOTSUPP);
}

static void cgroup_list_free(struct cgroup_list *l)
{
}
#endif

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
		return cgroup_list_next(ctx->cg, ctx->rq->pid_ns, nr);
	return pid_walk_next(ctx->rq->pid_ns, nr, ctx->tgid);
}

/*
 * Steps a cgroup's dump back one task, which the next dump_next() looks
 * up again; false for the pid walk, which goes on from a pid number.
 */
static bool dump_back(struct dump_ctx *ctx)
{
#ifdef CONFIG_CGROUPS
	if (ctx->cg) {
		ctx->cg->next--;
		return true;
	}
#endif
	return false;
}

static struct dump_ctx *dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct dump_ctx) > sizeof(cb->ctx));
	return (struct dump_ctx *)cb->ctx;
}

/*
 * Runs in the sender's context: the cgroup fd, if any, is the sender's.
 * No id attribute is looked at, as always; DUMP_SUBTREE alone is EINVAL.
 */
static int taskstats_dump_start(struct netlink_callback *cb)
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
	ret = requester_init(ctx->rq, cb->skb, cb->extack);
	if (ret) {
		kfree(ctx->rq);
		return ret;
	}
	if (cg_fd) {
		struct cgroup_list *l = cgroup_list_start(nla_get_u32(cg_fd),
							  subtree, ctx->tgid,
							  ctx->rq);

		if (IS_ERR(l)) {
			kfree(ctx->rq);
			return PTR_ERR(l);
		}
		ctx->cg = l;
	}
	requester_get(ctx->rq);
	ctx->next = 0;
	return 0;
}

static int taskstats_dump_done(struct netlink_callback *cb)
{
	struct dump_ctx *ctx = dump_ctx(cb);

	if (ctx->cg)
		cgroup_list_free(ctx->cg);
	requester_put(ctx->rq);
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

/*
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
 */
static int taskstats_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
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
		stats = msg_open(skb, NETLINK_CB(cb->skb).portid,
				 cb->nlh->nlmsg_seq, NLM_F_MULTI, id_type, nr,
				 &msg);
		if (!stats) {		/* full: this task opens the next skb */
			put_task_struct(tsk);
			dump_back(ctx);	/* or the pid walk resumes at nr */
			full = true;
			break;
		}
		ret = read_record(rq, tsk, nr, ctx->tgid,
				  PTRACE_MODE_READ_FSCREDS | PTRACE_MODE_NOAUDIT,
				  may_wait, stats);
		put_task_struct(tsk);
		if (ret) {
			nlmsg_cancel(skb, msg.nlh);
			if (ret == -EAGAIN && first && records) {
				/* Mid-exec: the next part waits a moment. */
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
				ret = walk_pause(&skipped);
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
		msg_close(skb, &msg);
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
 * group_sum() to walk again. The thread then closes its files and more
 * before it leaves the thread list (a file's flush can hold it there at
 * will); without the mark group_sum() would count it twice meanwhile.
 * The mark is set once, by the thread itself in do_exit(), after which it
 * never forks: no child inherits it.
 */
static void group_fold_exit(struct task_struct *tsk, struct taskstats *group)
{
	struct signal_struct *sig = tsk->signal;
	struct group_times times = {};
	unsigned long flags;

	write_seqlock_irqsave(&sig->stats_lock, flags);
	group_add_thread(group, &times, tsk, ktime_get_ns());
	group_add_times(group, &times);
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
	group_sum(tsk, sum);	/* 0: @tsk is current */
	return sum;
}

/*
 * The exit message number @seqnum of @tsk with the ids of @rq's
 * namespaces, with the record of its group @group unless that is NULL;
 * none if @group is an error.
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
	skb = genlmsg_new((group ? 2 : 1) * record_size(), GFP_KERNEL);
	if (!skb)
		return NULL;
	stats = msg_open(skb, 0, seqnum, 0, TASKSTATS_TYPE_PID,
			 task_pid_nr_ns(tsk, rq->pid_ns), &msg);
	if (!stats)
		goto fail;
	collect_task(stats, tsk, rq);
	if (group_dead)
		stats->ac_flag |= AGROUP;
	if (group) {
		stats = record_open(skb, TASKSTATS_TYPE_TGID,
				    task_tgid_nr_ns(tsk, rq->pid_ns));
		if (!stats)
			goto fail;
		memcpy(stats, group, sizeof(*stats));
		stats->version = TASKSTATS_VERSION;
	}
	msg_close(skb, &msg);
	return skb;
fail:
	nlmsg_free(skb);
	return NULL;
}

/*
 * Sends @tsk's exit to the listeners of one CPU of one pid namespace that
 * may hear of it: the initial namespace's admin hears of every task, any
 * other listener of the tasks it could read, and of the group's record
 * (@group, when @tsk is the last of a multi-threaded group) only if it
 * could read the leader, as a TGID GET judges it. Listeners sharing
 * namespaces, that verdict and the I/O counters' precision (usually all
 * of them) share one message, cloned.
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
			     struct taskstats **group, struct cpu_listeners *cl)
{
	const unsigned int mode = PTRACE_MODE_READ_FSCREDS | PTRACE_MODE_NOAUDIT;
	struct task_struct *leader = tsk->group_leader;
	const struct requester *view = NULL;
	struct sk_buff *msg = NULL, *skb;
	struct listener_link *link;
	bool view_group = false, numbered = false;
	u32 seqnum = 0;
	u64 seq;

	/* Pairs with listener_add(): links of a later seq are not ours. */
	seq = atomic64_read_acquire(&cl->seq);

	list_for_each_entry_srcu(link, &cl->list, node,
				 srcu_read_lock_held(&listeners_srcu)) {
		const struct requester *rq = &link->l->rq;
		bool with_group;

		if (link->seq > seq)
			continue;	/* added during this walk */
		if (!may_read(rq, tsk, mode))
			continue;
		with_group = group && (leader == tsk || may_read(rq, leader, mode));
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
		    view_group != with_group) {
			nlmsg_free(msg);
			view = rq;
			view_group = with_group;
			msg = exit_msg(tsk, group_dead, with_group ? *group : NULL,
				       view, seqnum);
		}
		skb = msg ? skb_clone(msg, GFP_KERNEL) : NULL;
		if (skb)
			listener_send(link->l->sk, skb);
		else
			listener_lost(link->l->sk);
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
	if (!list_empty(&per_cpu_ptr(init_listeners.cpu, cpu)->list))
		return true;
	return task_active_pid_ns(tsk)->level && atomic_read(&nr_nsl);
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
	int idx;

	if (!family_registered)
		return;

	group = group_stats(tsk);
	if (group)
		group_fold_exit(tsk, group);

	if (!exit_heard(tsk, cpu))
		return;
	idx = srcu_read_lock(&listeners_srcu);
	for (ns = task_active_pid_ns(tsk); ns; ns = ns->parent) {
		struct taskstats_listeners *nsl = nsl_find(ns);

		if (nsl)
			notify_listeners(tsk, group_dead,
					 group && group_dead ? &sum : NULL,
					 per_cpu_ptr(nsl->cpu, cpu));
	}
	srcu_read_unlock(&listeners_srcu, idx);
	if (!IS_ERR(sum))
		kfree(sum);
}

/* --------------------------------------------------------------- family */

static const struct nla_policy taskstats_cmd_get_policy[] = {
	[TASKSTATS_CMD_ATTR_PID]		= { .type = NLA_U32 },
	[TASKSTATS_CMD_ATTR_TGID]		= { .type = NLA_U32 },
	[TASKSTATS_CMD_ATTR_REGISTER_CPUMASK]	= { .type = NLA_STRING },
	[TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK]	= { .type = NLA_STRING },
	[TASKSTATS_CMD_ATTR_DUMP_TGID]		= { .type = NLA_FLAG },
	[TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD]	= { .type = NLA_U32 },
	[TASKSTATS_CMD_ATTR_DUMP_SUBTREE]	= { .type = NLA_FLAG },
};

static const struct nla_policy cgroupstats_cmd_get_policy[] = {
	[CGROUPSTATS_CMD_ATTR_FD] = { .type = NLA_U32 },
};

/* Liberal validation: existing clients send what strict would refuse. */
static const struct genl_ops taskstats_ops[] = {
	{
		/* Permissions are checked per task: see the top of this file. */
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

static struct genl_family family __ro_after_init = {
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
	.sock_priv_destroy = listener_sock_destroy,
};

/**
 * taskstats_init_early() - set up what exits need before initcalls run.
 */
void __init taskstats_init_early(void)
{
	unsigned int cpu;

	taskstats_cache = KMEM_CACHE(taskstats, SLAB_PANIC | SLAB_ACCOUNT);
	for_each_possible_cpu(cpu)
		INIT_LIST_HEAD(&per_cpu_ptr(init_listeners.cpu, cpu)->list);
}

/* Late, so that every collector is ready before the first request. */
static int __init taskstats_init(void)
{
	int ret = genl_register_family(&family);

	if (ret)
		return ret;
	init_user_ns.ucount_max[UCOUNT_TASKSTATS_LISTENERS] =
		TASKSTATS_LISTENERS_MAX;
	family_registered = true;
	pr_info("registered taskstats version %d\n", TASKSTATS_GENL_VERSION);
	return 0;
}
late_initcall(taskstats_init);
