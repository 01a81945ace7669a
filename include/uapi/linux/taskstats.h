/* SPDX-License-Identifier: LGPL-2.1 WITH Linux-syscall-note */
/*
 * taskstats.h - per-task accounting records served over generic netlink
 *
 * A record is a struct taskstats. The kernel sends it in answer to
 * TASKSTATS_CMD_GET for one task or one thread group, and unsolicited to
 * the exit listeners of a CPU when a task exits there.
 *
 * Compatibility rules, which every change to this file must keep:
 *
 *  - Fields are only ever appended at the end, and TASKSTATS_VERSION is
 *    raised with every append. A field never moves, shrinks or changes its
 *    unit. Clients read the version and the attribute length of a record
 *    and must ignore anything beyond the struct they were built with.
 *  - Version 15 is never used: a version 15 of this struct was published
 *    with fields inserted in the middle, and no layout may claim to be it.
 *  - Command, attribute and type numbers are never renumbered; new ones go
 *    at the end of their enum, before its __*_MAX sentinel.
 *
 * Units: times of day are seconds since the epoch; CPU times are
 * microseconds; delays and run times are nanoseconds; memory integrals are
 * MB-microseconds; high-water marks are KiB. A *_delay_total wraps to zero
 * on overflow while the matching *_count keeps counting.
 */

#ifndef _UAPI_LINUX_TASKSTATS_H
#define _UAPI_LINUX_TASKSTATS_H

#include <linux/types.h>
#include <linux/time_types.h>

#define TASKSTATS_VERSION	17
#define TS_COMM_LEN		32	/* at least TASK_COMM_LEN */

struct taskstats {
	/* Always TASKSTATS_VERSION of the kernel that filled the record. */
	__u16	version;
	/* Exit status as wait(2) reports it; 0 for a live task. */
	__u32	ac_exitcode;
	/* AFORK, ASU, ACOMPAT, ACORE, AXSIG, AGROUP of <linux/acct.h>. */
	__u8	ac_flag;
	/* task_nice() of the task. */
	__u8	ac_nice;

	/*
	 * Delay accounting, CONFIG_TASK_DELAY_ACCT (version 1). The cpu
	 * class and the run times come from the scheduler and are always
	 * filled; the other classes only for tasks forked while delay
	 * accounting was switched on, zero otherwise.
	 * xxx_count: number of delays recorded; xxx_delay_total: their sum
	 * in ns, which wraps to 0 on overflow while the count goes on.
	 */

	/* Runnable but waiting for a CPU. Read from sched_info without a lock. */
	__u64	cpu_count __attribute__((aligned(8)));
	__u64	cpu_delay_total;

	/* Waiting for synchronous block I/O to complete (not submission). */
	__u64	blkio_count;
	__u64	blkio_delay_total;

	/* Waiting for a page to be read back from swap. */
	__u64	swapin_count;
	__u64	swapin_delay_total;

	/*
	 * Time on a CPU in ns, without a count, wrapping silently. The real
	 * total may be adjusted for time stolen by a hypervisor; the virtual
	 * total is what the scheduler itself measured.
	 */
	__u64	cpu_run_real_total;
	__u64	cpu_run_virtual_total;
	/* end of delay accounting; end of version 1 */

	/* Basic accounting, CONFIG_TASKSTATS. */
	char	ac_comm[TS_COMM_LEN];	/* command name */

	/* Scheduling policy (SCHED_NORMAL, SCHED_FIFO, ...). */
	__u8	ac_sched __attribute__((aligned(8)));
	__u8	ac_pad[3];
	__u32	ac_uid __attribute__((aligned(8)));	/* in the reader's user ns */
	__u32	ac_gid;
	__u32	ac_pid;			/* in the reader's pid ns */
	__u32	ac_ppid;
	__u32	ac_btime;		/* start, s since the epoch (to 2106) */

	/* Elapsed time since the task started, us. */
	__u64	ac_etime __attribute__((aligned(8)));
	__u64	ac_utime;		/* user CPU, us */
	__u64	ac_stime;		/* system CPU, us */
	__u64	ac_minflt;		/* minor page faults */
	__u64	ac_majflt;		/* major page faults */

	/* Extended accounting, CONFIG_TASK_XACCT. */
	/*
	 * RSS and VM integrals over CPU time, in MB-us: as CPU time (user
	 * and system) is charged, the current size times that time is
	 * added, so coremem / (ac_utime + ac_stime) is the average RSS.
	 */
	__u64	coremem;
	__u64	virtmem;
	__u64	hiwater_rss;		/* peak RSS, KiB */
	__u64	hiwater_vm;		/* peak VM size, KiB */
	/* read(2)/write(2) family traffic, exact in this implementation */
	__u64	read_char;		/* bytes read */
	__u64	write_char;		/* bytes written */
	__u64	read_syscalls;
	__u64	write_syscalls;

#define TASKSTATS_HAS_IO_ACCOUNTING
	/* Storage I/O, CONFIG_TASK_IO_ACCOUNTING, exact in bytes. */
	__u64	read_bytes;		/* fetched from storage */
	__u64	write_bytes;		/* caused to be written to storage */
	__u64	cancelled_write_bytes;	/* dirty page cache truncated away */

	__u64	nvcsw;			/* voluntary context switches */
	__u64	nivcsw;			/* involuntary context switches */

	/* CPU times scaled for frequency (equal to the plain ones on x86). */
	__u64	ac_utimescaled;		/* us */
	__u64	ac_stimescaled;		/* us */
	__u64	cpu_scaled_run_real_total;	/* ns */

	/* Delay: direct memory reclaim. */
	__u64	freepages_count;
	__u64	freepages_delay_total;

	/* Delay: refaulting recently evicted page cache (thrashing). */
	__u64	thrashing_count;
	__u64	thrashing_delay_total;

	/* Version 10: start time that does not wrap, s since the epoch. */
	__u64	ac_btime64;

	/* Version 11, delay: memory compaction. */
	__u64	compact_count;
	__u64	compact_delay_total;

	/* Version 12. */
	__u32	ac_tgid;		/* thread group id, reader's pid ns */
	/*
	 * Elapsed time of the thread group, us: from the group leader's start
	 * to now (or to this thread's exit).
	 */
	__u64	ac_tgetime __attribute__((aligned(8)));
	/* Device and inode of the executable, to tell programs apart. */
	__u64	ac_exe_dev;
	__u64	ac_exe_inode;

	/* Version 13, delay: copying a page on write to a write-protected one. */
	__u64	wpcopy_count;
	__u64	wpcopy_delay_total;

	/* Version 14, delay: time taken from the task by hard and soft IRQs. */
	__u64	irq_count;
	__u64	irq_delay_total;

	/*
	 * Version 16: longest and shortest single delay of each class, ns.
	 * 0 until the class recorded a delay.
	 */
	__u64	cpu_delay_max;
	__u64	cpu_delay_min;
	__u64	blkio_delay_max;
	__u64	blkio_delay_min;
	__u64	swapin_delay_max;
	__u64	swapin_delay_min;
	__u64	freepages_delay_max;
	__u64	freepages_delay_min;
	__u64	thrashing_delay_max;
	__u64	thrashing_delay_min;
	__u64	compact_delay_max;
	__u64	compact_delay_min;
	__u64	wpcopy_delay_max;
	__u64	wpcopy_delay_min;
	__u64	irq_delay_max;
	__u64	irq_delay_min;

	/* Version 17: wall-clock (CLOCK_REALTIME) time of each maximum. */
	struct __kernel_timespec cpu_delay_max_ts;
	struct __kernel_timespec blkio_delay_max_ts;
	struct __kernel_timespec swapin_delay_max_ts;
	struct __kernel_timespec freepages_delay_max_ts;
	struct __kernel_timespec thrashing_delay_max_ts;
	struct __kernel_timespec compact_delay_max_ts;
	struct __kernel_timespec wpcopy_delay_max_ts;
	struct __kernel_timespec irq_delay_max_ts;
};

/* Commands of the TASKSTATS family. */
enum {
	TASKSTATS_CMD_UNSPEC = 0,
	TASKSTATS_CMD_GET,		/* user asks, kernel answers with NEW */
	TASKSTATS_CMD_NEW,		/* a record, answer or exit event */
	__TASKSTATS_CMD_MAX,
};

#define TASKSTATS_CMD_MAX (__TASKSTATS_CMD_MAX - 1)

/* Attributes of a TASKSTATS_CMD_NEW message. */
enum {
	TASKSTATS_TYPE_UNSPEC = 0,
	TASKSTATS_TYPE_PID,		/* u32 */
	TASKSTATS_TYPE_TGID,		/* u32 */
	TASKSTATS_TYPE_STATS,		/* struct taskstats */
	TASKSTATS_TYPE_AGGR_PID,	/* nest: PID, STATS[, CGROUP_ID] */
	TASKSTATS_TYPE_AGGR_TGID,	/* nest: TGID, STATS[, CGROUP_ID] */
	TASKSTATS_TYPE_NULL,		/* empty, keeps STATS 8-byte aligned */
	TASKSTATS_TYPE_CGROUP_ID,	/* u64: cgroup v2 id, if asked for */
	__TASKSTATS_TYPE_MAX,
};

#define TASKSTATS_TYPE_MAX (__TASKSTATS_TYPE_MAX - 1)

/*
 * Attributes of a TASKSTATS_CMD_GET request; one per request. A GET with
 * NLM_F_DUMP takes no id: it streams one AGGR_PID record per task of the
 * requester's pid namespace, or one AGGR_TGID record per thread group
 * when DUMP_TGID is present; with DUMP_CGROUP_FD only those of the tasks
 * in that cgroup (and, with DUMP_SUBTREE, in its descendants).
 * REGISTER_CPUMASK takes DUMP_CGROUP_FD and DUMP_SUBTREE too: the listener
 * then hears only the exits of the tasks in that cgroup v2 (subtree).
 * CGROUP_ID, with an id, a dump or REGISTER_CPUMASK, asks that every
 * record carry the cgroup v2 id of its task (of a group's leader) as
 * TASKSTATS_TYPE_CGROUP_ID; without it records carry none.
 */
enum {
	TASKSTATS_CMD_ATTR_UNSPEC = 0,
	TASKSTATS_CMD_ATTR_PID,			/* u32: one task */
	TASKSTATS_CMD_ATTR_TGID,		/* u32: one thread group */
	TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,	/* cpulist string */
	TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,	/* cpulist string */
	TASKSTATS_CMD_ATTR_DUMP_TGID,		/* flag, dump only */
	TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD,	/* u32: a cgroup dir fd */
	TASKSTATS_CMD_ATTR_DUMP_SUBTREE,	/* flag: and its descendants */
	TASKSTATS_CMD_ATTR_CGROUP_ID,		/* flag: records carry it */
	__TASKSTATS_CMD_ATTR_MAX,
};

#define TASKSTATS_CMD_ATTR_MAX (__TASKSTATS_CMD_ATTR_MAX - 1)

#define TASKSTATS_GENL_NAME	"TASKSTATS"
#define TASKSTATS_GENL_VERSION	0x1

#endif /* _UAPI_LINUX_TASKSTATS_H */
