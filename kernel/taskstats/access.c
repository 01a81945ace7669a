// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats: who may read a task's record, and with whose
 * credentials.
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
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/fs.h>
#include <linux/netlink.h>
#include <linux/pid_namespace.h>
#include <linux/ptrace.h>
#include <linux/proc_fs.h>
#include <linux/sched/signal.h>
#include <linux/security.h>
#include <linux/user_namespace.h>
#include <net/net_namespace.h>
#include <net/sock.h>

#include "internal.h"

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
 * it may not read itself.
 */
static bool requester_net_ok(const struct requester *rq,
			     const struct sk_buff *skb)
{
	const struct user_namespace *owner = sock_net(NETLINK_CB(skb).sk)->user_ns;

	return in_userns(owner, rq->cred->user_ns) ||
	       (rq->opener && in_userns(owner, rq->opener->user_ns));
}

/**
 * ts_requester_init() - capture the requester of a request
 * @rq: filled in
 * @skb: the request
 * @extack: for the reason of a refusal
 *
 * The sender of @skb, current. As netlink_capable() and
 * netlink_ns_capable() do for capabilities, the opener's credentials are
 * judged too unless the sender addressed the message itself (sendto(2),
 * sendmsg(2) with a name: NETLINK_SKB_DST), a deliberate act. A write(2)
 * on a socket received from someone else is not.
 *
 * -EPERM, before any capability is asked, if the socket's network
 * namespace would show the answers to less privileged users
 * (requester_net_ok()).
 *
 * Return: 0, or -EPERM if the answers would reach users who may not read
 * them.
 */
int ts_requester_init(struct requester *rq, const struct sk_buff *skb,
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
	rq->cgroup_id = false;
	return 0;
}

/**
 * ts_requester_get() - keep a requester beyond its request
 * @rq: the requester
 *
 * For a requester that outlives its request: a dump or a listener.
 */
void ts_requester_get(struct requester *rq)
{
	get_cred(rq->cred);
	if (rq->opener)
		get_cred(rq->opener);
	get_pid_ns(rq->pid_ns);
}

/**
 * ts_requester_put() - release what ts_requester_get() kept
 * @rq: the requester
 */
void ts_requester_put(struct requester *rq)
{
	put_cred(rq->cred);
	if (rq->opener)
		put_cred(rq->opener);
	put_pid_ns(rq->pid_ns);
}

/*
 * The owner /proc gives @tsk's io file (mode 0400): the task's effective
 * ids, or root of its mm's user namespace once it is not dumpable; root
 * for kernel threads and for a task without memory (a zombie). Without
 * /proc nobody could open the file: root owns it here too.
 */
static void io_owner(struct task_struct *tsk, kuid_t *uid, kgid_t *gid)
{
	if (IS_ENABLED(CONFIG_PROC_FS)) {
		task_dump_owner(tsk, S_IFREG | 0400, uid, gid);
		return;
	}
	*uid = GLOBAL_ROOT_UID;
	*gid = GLOBAL_ROOT_GID;
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
	 * Unaudited: where a read is audited (a GET), ts_may_open() judged the
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

/**
 * __ts_may_open() - whether a requester but the admin could open an io file
 * @rq: the requester, not the initial namespace's admin
 * @tsk: the task
 * @mode: PTRACE_MODE_* of the check
 *
 * Whether @rq could open @tsk's io file: ts_may_open() for any requester
 * but the admin, whom ts_may_open() answers inline.
 *
 * Return: true if it could.
 */
bool __ts_may_open(const struct requester *rq, struct task_struct *tsk,
		   unsigned int mode)
{
	return cred_may_open_io(rq->cred, tsk, mode) &&
	       (!rq->opener || cred_may_open_io(rq->opener, tsk, mode));
}

/**
 * ts_may_read() - whether a requester may read a task's record
 * @rq: the requester
 * @tsk: the task
 * @mode: PTRACE_MODE_* of the check
 *
 * Whether @rq may read @tsk's record; see the top of this file.
 *
 * Return: true if it may.
 */
bool ts_may_read(const struct requester *rq, struct task_struct *tsk,
		 unsigned int mode)
{
	if (rq->admin)
		return true;
	if (!cred_may_read(rq->cred, tsk, mode))
		return false;
	return !rq->opener || cred_may_read(rq->opener, tsk, mode);
}
