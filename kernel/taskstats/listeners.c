// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats: exit listeners, registered per socket and kept per
 * pid namespace and CPU.
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
 * A listener is a socket registered for the exits on some CPUs, with the
 * requester that registered it and, if it named one, the cgroup whose
 * exits alone it hears (struct ts_cgroup_filter, which pins nothing). It
 * belongs to the socket (its generic netlink private data), holds a
 * reference on it and sends records to it, never to its port id: a
 * closed socket's port id can be bound again at once by anyone. The
 * socket's release removes it.
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
#include <linux/cpumask.h>
#include <linux/filter.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/pid_namespace.h>
#include <linux/slab.h>
#include <linux/srcu.h>
#include <linux/user_namespace.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include "internal.h"

DEFINE_SRCU(ts_listeners_srcu);
static DEFINE_MUTEX(listeners_mutex);
atomic_t ts_nr_nsl = ATOMIC_INIT(0);	/* namespaces but the initial one */
static DEFINE_PER_CPU(struct cpu_listeners, init_listener_list);
struct taskstats_listeners ts_init_listeners = {
	.pid_ns	= &init_pid_ns,
	.cpu	= &init_listener_list,
};

/**
 * ts_nsl_find() - the listeners of a pid namespace
 * @ns: the pid namespace
 *
 * Return: the listeners, or NULL if it has none.
 */
struct taskstats_listeners *ts_nsl_find(struct pid_namespace *ns)
{
	if (ns == &init_pid_ns)
		return &ts_init_listeners;
	return srcu_dereference_check(ns->taskstats_listeners, &ts_listeners_srcu,
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
	struct taskstats_listeners *nsl = ts_nsl_find(ns);

	if (nsl || !*spare)
		return nsl;
	nsl = *spare;
	*spare = NULL;
	nsl->pid_ns = get_pid_ns(ns);
	rcu_assign_pointer(ns->taskstats_listeners, nsl);
	atomic_inc(&ts_nr_nsl);
	return nsl;
}

/* @nsl lost a listener. listeners_mutex held. */
static void nsl_put(struct taskstats_listeners *nsl)
{
	if (--nsl->nr || nsl == &ts_init_listeners)
		return;
	RCU_INIT_POINTER(nsl->pid_ns->taskstats_listeners, NULL);
	atomic_dec(&ts_nr_nsl);
	call_srcu(&ts_listeners_srcu, &nsl->rcu, nsl_free_rcu);
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
	ts_requester_put(&l->rq);
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
	a->ls = genl_sk_priv_get(&ts_family, sk);
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
				     const struct ts_cgroup_filter *cg,
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
	ts_requester_get(&l->rq);
	l->cg = *cg;
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
	call_srcu(&ts_listeners_srcu, &l->rcu, listener_free_rcu);
}

/*
 * A socket listens with one identity and one cgroup, those of its first
 * registration; another may only add CPUs if it would hear the same
 * exits, with the same ids, in the same records.
 */
static bool same_listener(const struct listener *l, const struct requester *b,
			  const struct ts_cgroup_filter *cg)
{
	const struct requester *a = &l->rq;

	if (a->admin != b->admin || a->io_exact != b->io_exact ||
	    a->cgroup_id != b->cgroup_id || a->pid_ns != b->pid_ns ||
	    a->cred->user_ns != b->cred->user_ns || l->cg.id != cg->id ||
	    l->cg.level != cg->level || l->cg.subtree != cg->subtree)
		return false;
	return a->admin || (a->cred == b->cred && a->opener == b->opener);
}

/**
 * ts_listener_add() - register a socket for the exits on some CPUs
 * @rq: the registrant
 * @sk: the socket
 * @mask: the CPUs
 * @cg: the cgroup whose exits it hears, zeroed for every cgroup
 *
 * Adds the CPUs of @mask to the listener of @sk, creating it. Either every
 * CPU of @mask is added or, on error, nothing changes. A socket that
 * listens already only adds CPUs with the same registrant and @cg
 * (-EBUSY otherwise).
 *
 * Return: 0 or a negative errno; on error nothing changes.
 */
int ts_listener_add(const struct requester *rq, struct sock *sk,
		    const struct cpumask *mask, const struct ts_cgroup_filter *cg)
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
	if (l && !same_listener(l, rq, cg)) {
		ret = -EBUSY;
		goto out;
	}
	if (!l) {
		l = listener_new(rq, cg, sk, &a);
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

/**
 * ts_listener_del() - deregister a socket from the exits on some CPUs
 * @sk: the socket
 * @mask: the CPUs
 *
 * Removes the CPUs of @mask from the listener of @sk, if it has one.
 *
 * Return: 0, or -EINTR on a fatal signal.
 */
int ts_listener_del(struct sock *sk, const struct cpumask *mask)
{
	struct listener_link *link, *tmp;
	struct listener_sock *ls;
	struct listener *l;
	int ret;

	ret = mutex_lock_killable(&listeners_mutex);
	if (ret)
		return ret;
	ls = __genl_sk_priv_get(&ts_family, sk);
	if (IS_ERR_OR_NULL(ls) || !ls->l)
		goto out;
	l = ls->l;
	list_for_each_entry_safe(link, tmp, &l->links, sibling) {
		if (!cpumask_test_cpu(link->cpu, mask))
			continue;
		list_del_rcu(&link->node);
		list_del(&link->sibling);
		call_srcu(&ts_listeners_srcu, &link->rcu, link_free_rcu);
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

/**
 * ts_listener_sock_destroy() - remove a released socket's listener
 * @priv: the socket's generic netlink private data
 *
 * The socket is being released (sock_priv_destroy).
 */
void ts_listener_sock_destroy(void *priv)
{
	struct listener_sock *ls = priv;

	mutex_lock(&listeners_mutex);
	if (ls->l)
		listener_drop(ls->l);
	ls->l = NULL;
	mutex_unlock(&listeners_mutex);
}

/**
 * ts_listener_send() - queue an exit message on a listener's socket
 * @sk: the listener's socket
 * @skb: the message, consumed
 *
 * Queues @skb on the listener's own socket, as netlink_unicast() would
 * on the socket its port id names. A full socket drops it and reports
 * ENOBUFS to its reader (netlink_attachskb() with no wait).
 */
void ts_listener_send(struct sock *sk, struct sk_buff *skb)
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

/**
 * ts_listener_lost() - tell a listener of a message it could not get
 * @sk: the listener's socket
 *
 * @sk's listener misses a record that could not be allocated. It learns
 * so as it would of a record its full queue dropped: ENOBUFS (unless it
 * set NETLINK_NO_ENOBUFS) and one more drop. The exiting task allocates
 * with GFP_KERNEL, which can fail for the OOM killer's victim once the
 * reserves are gone; its exit would otherwise vanish without a trace.
 */
void ts_listener_lost(struct sock *sk)
{
	if (!sock_flag(sk, SOCK_DEAD))
		netlink_overrun(sk);
}
