// SPDX-License-Identifier: GPL-2.0
/*
 * Basic and extended accounting for taskstats.
 *
 * Basic accounting describes a task: its ids (translated for whoever
 * asks), its start and elapsed time, the CPU time it used and its page
 * faults. Extended accounting adds memory and I/O: integrals of RSS and VM
 * size over the task's CPU time, their high-water marks, and the task's
 * I/O counters, reported exactly.
 *
 * The integrals are the only part with a hot path. They advance when CPU
 * time is charged, from the tick or the context-switch cputime code, but
 * at most once per TICK_NSEC of CPU time: the usual cost is one subtraction
 * and comparison.
 */
#include <linux/acct.h>
#include <linux/cred.h>
#include <linux/jiffies.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/pid_namespace.h>
#include <linux/sched/cputime.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/string.h>
#include <linux/tsacct_kern.h>
#include <linux/user_namespace.h>

/* ac_flag bits that mirror task flags. */
static u8 bacct_flags(struct task_struct *tsk)
{
	u8 flag = 0;

	if (thread_group_leader(tsk) && (tsk->flags & PF_FORKNOEXEC))
		flag |= AFORK;
	if (tsk->flags & PF_SUPERPRIV)
		flag |= ASU;
	if (tsk->flags & PF_DUMPCORE)
		flag |= ACORE;
	if (tsk->flags & PF_SIGNALED)
		flag |= AXSIG;
	return flag;
}

/*
 * When @tsk's thread group started, or 0 if that can no longer be known.
 * The caller's reference pins @tsk, not its leader: once @tsk is released
 * (it exited, or another thread's exec replaced its leader) the leader
 * may be freed. While @tsk is still hashed its leader is not released,
 * and RCU keeps it from being freed under us.
 */
static u64 group_start_time(struct task_struct *tsk)
{
	u64 start = 0;

	if (thread_group_leader(tsk))
		return tsk->start_time;
	rcu_read_lock();
	if (pid_alive(tsk))
		start = READ_ONCE(tsk->group_leader)->start_time;
	rcu_read_unlock();
	return start;
}

/* Start and elapsed times; the begin time is derived from the elapsed one. */
static void bacct_times(struct taskstats *stats, struct task_struct *tsk)
{
	u64 now = ktime_get_ns();
	u64 utime, stime, utimescaled, stimescaled;
	u64 group_start = group_start_time(tsk);
	time64_t btime;

	if (group_start)
		stats->ac_tgetime = div_u64(now - group_start, NSEC_PER_USEC);
	stats->ac_etime = div_u64(now - tsk->start_time, NSEC_PER_USEC);
	btime = ktime_get_real_seconds() - div_u64(stats->ac_etime, USEC_PER_SEC);
	stats->ac_btime64 = btime;
	/* The 32-bit field runs out in 2106: it saturates rather than wraps. */
	stats->ac_btime = clamp_t(time64_t, btime, 0, U32_MAX);

	task_cputime(tsk, &utime, &stime);
	stats->ac_utime = div_u64(utime, NSEC_PER_USEC);
	stats->ac_stime = div_u64(stime, NSEC_PER_USEC);
	task_cputime_scaled(tsk, &utimescaled, &stimescaled);
	stats->ac_utimescaled = div_u64(utimescaled, NSEC_PER_USEC);
	stats->ac_stimescaled = div_u64(stimescaled, NSEC_PER_USEC);
}

/**
 * bacct_add_tsk() - fill the basic accounting fields of @stats.
 * @user_ns: user namespace the uid and gid are reported in
 * @pid_ns: pid namespace the pid, tgid and ppid are reported in
 * @stats: the record, zeroed
 * @tsk: the task
 */
void bacct_add_tsk(struct user_namespace *user_ns,
		   struct pid_namespace *pid_ns,
		   struct taskstats *stats, struct task_struct *tsk)
{
	const struct cred *tcred;

	BUILD_BUG_ON(TS_COMM_LEN < TASK_COMM_LEN);

	bacct_times(stats, tsk);
	if (tsk->flags & PF_EXITING)
		stats->ac_exitcode = tsk->exit_code;
	stats->ac_flag = bacct_flags(tsk);
	stats->ac_nice = task_nice(tsk);
	stats->ac_sched = tsk->policy;
	stats->ac_pid = task_pid_nr_ns(tsk, pid_ns);
	stats->ac_tgid = task_tgid_nr_ns(tsk, pid_ns);

	rcu_read_lock();
	tcred = __task_cred(tsk);
	/*
	 * The initial namespace maps every valid id to itself: skipping the
	 * map lookups saves about a tenth of a dumped record.
	 */
	if (user_ns == &init_user_ns && uid_valid(tcred->uid) &&
	    gid_valid(tcred->gid)) {
		stats->ac_uid = __kuid_val(tcred->uid);
		stats->ac_gid = __kgid_val(tcred->gid);
	} else {
		stats->ac_uid = from_kuid_munged(user_ns, tcred->uid);
		stats->ac_gid = from_kgid_munged(user_ns, tcred->gid);
	}
	/* An exited task's parent link may be stale: report no parent. */
	stats->ac_ppid = pid_alive(tsk) ?
		task_tgid_nr_ns(rcu_dereference(tsk->real_parent), pid_ns) : 0;
	rcu_read_unlock();

	stats->ac_minflt = tsk->min_flt;
	stats->ac_majflt = tsk->maj_flt;
	/*
	 * comm is always NUL-terminated and zero-padded within
	 * TASK_COMM_LEN (set_task_comm() pads it), and @stats was zeroed:
	 * a plain copy does what strscpy_pad() would, for a fraction of it.
	 */
	memcpy(stats->ac_comm, tsk->comm, TASK_COMM_LEN);
}

#ifdef CONFIG_TASK_XACCT

/*
 * The integrals accumulate pages * ns / 1024 (the shift keeps them from
 * overflowing for centuries of CPU time). The ABI unit is MB-us:
 * pages * PAGE_SIZE * ns / (2^20 * 1000), that is the raw value
 * * (PAGE_SIZE / 1024) / 1000. The product is taken in 96 bits: in 64,
 * a task of 4 GiB would wrap it after 73 minutes of CPU time, and one
 * that maps 100 GiB after 3.
 */
static u64 integral_to_mb_usec(u64 raw)
{
	return mul_u64_u32_div(raw, PAGE_SIZE / 1024, 1000);
}

static u64 pages_to_kb(unsigned long pages)
{
	return (u64)pages * (PAGE_SIZE / 1024);
}

/**
 * xacct_add_tsk() - fill the extended accounting fields of @stats.
 * @stats: the record
 * @p: the task
 *
 * The I/O counters are copied exactly; a requester that may not see
 * them so gets them rounded by taskstats. (The historical implementation
 * rounded each down to a multiple of 1024 for everyone, which turned 150
 * read syscalls into 0.)
 */
void xacct_add_tsk(struct taskstats *stats, struct task_struct *p)
{
	struct mm_struct *mm;

	stats->coremem = integral_to_mb_usec(p->acct_rss_mem1);
	stats->virtmem = integral_to_mb_usec(p->acct_vm_mem1);
	/*
	 * task_lock() keeps p->mm, and the reference p holds on it, in
	 * place: reading two counters needs no mm reference of our own (and
	 * no mmput(), which may sleep and costs two atomics per record).
	 */
	task_lock(p);
	mm = p->mm;
	if (mm && !(p->flags & PF_KTHREAD)) {
		stats->hiwater_rss = pages_to_kb(get_mm_hiwater_rss(mm));
		stats->hiwater_vm = pages_to_kb(get_mm_hiwater_vm(mm));
	}
	task_unlock(p);
	stats->read_char = p->ioac.rchar;
	stats->write_char = p->ioac.wchar;
	stats->read_syscalls = p->ioac.syscr;
	stats->write_syscalls = p->ioac.syscw;
#ifdef CONFIG_TASK_IO_ACCOUNTING
	stats->read_bytes = p->ioac.read_bytes;
	stats->write_bytes = p->ioac.write_bytes;
	stats->cancelled_write_bytes = p->ioac.cancelled_write_bytes;
#endif
}

/*
 * Adds the current RSS and VM size times the CPU time charged since the
 * last update, once at least a tick's worth has accumulated.
 */
static void integrals_advance(struct task_struct *tsk, u64 cputime)
{
	u64 delta;

	if (unlikely(!tsk->mm))
		return;
	delta = cputime - tsk->acct_timexpd;
	if (delta < TICK_NSEC)
		return;
	tsk->acct_timexpd = cputime;
	tsk->acct_rss_mem1 += delta * get_mm_rss(tsk->mm) >> 10;
	tsk->acct_vm_mem1 += delta * READ_ONCE(tsk->mm->total_vm) >> 10;
}

/**
 * acct_update_integrals() - bring @tsk's memory integrals up to date.
 * @tsk: the task, at exec or exit
 */
void acct_update_integrals(struct task_struct *tsk)
{
	unsigned long flags;
	u64 utime, stime;

	/* task_cputime() and the update must not be split by a tick. */
	local_irq_save(flags);
	task_cputime(tsk, &utime, &stime);
	integrals_advance(tsk, utime + stime);
	local_irq_restore(flags);
}

/**
 * acct_account_cputime() - advance the integrals after CPU time was charged.
 * @tsk: the task whose utime or stime just grew
 */
void acct_account_cputime(struct task_struct *tsk)
{
	integrals_advance(tsk, tsk->utime + tsk->stime);
}

/**
 * acct_clear_integrals() - start a new task's integrals from zero.
 * @tsk: the task being forked
 */
void acct_clear_integrals(struct task_struct *tsk)
{
	tsk->acct_timexpd = 0;
	tsk->acct_rss_mem1 = 0;
	tsk->acct_vm_mem1 = 0;
}
#endif /* CONFIG_TASK_XACCT */
