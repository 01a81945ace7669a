/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the files of taskstats_bench share: the options, the output and
 * error helpers, the counted syscalls, the netlink socket, the sleeping
 * processes, one dump, and the subcommands. Internal to the benchmark.
 */
#ifndef TASKSTATS_BENCH_H
#define TASKSTATS_BENCH_H

#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <sys/socket.h>
#include <sys/types.h>

/* The dump of the series: a NLA_FLAG asking for per-tgid records. */
#ifndef TASKSTATS_CMD_ATTR_DUMP_TGID
#define TASKSTATS_CMD_ATTR_DUMP_TGID	5
#endif
/* And its dump of one cgroup: a u32 fd of the cgroup's directory. */
#ifndef TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD
#define TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD	6
#endif
/*
 * A flag asking for the cgroup v2 id of each record; its presence in the
 * GET op's policy (CTRL_CMD_GETPOLICY) is how a client tells that the
 * kernel has cgroup listeners (REGISTER_CPUMASK with DUMP_CGROUP_FD).
 */
#ifndef TASKSTATS_CMD_ATTR_CGROUP_ID
#define TASKSTATS_CMD_ATTR_CGROUP_ID	8
#endif

/* Where the guest mounts the cgroup v2 hierarchy; cgroup and exit -G make directories there. */
#ifndef CGROUP2_ROOT
#define CGROUP2_ROOT	"/sys/fs/cgroup"
#endif

/* The receive buffer of every netlink read, in bytes. */
#define RXBUF_SIZE	(64 * 1024)

struct opts {
	long count;		/* -n: work amount; 0 = the default */
	long tasks;		/* -N */
	long threads;		/* -t */
	long listeners;		/* -l */
	long containers;	/* -c */
	long reps;		/* -r */
	long members;		/* -g */
	int cgroup;		/* -G: exit listeners of another cgroup */
	const char *file;	/* -f */
	int quick;		/* -q */
};

/* ------------------------------------------------------------ bench_util.c */

extern const char *tag;

/* Syscalls issued by this thread through the counting wrappers c_*(). */
extern __thread unsigned long nr_syscalls;

void resultf(double value, const char *unit, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void result(const char *name, double value, const char *unit);
void status(const char *what, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int failx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int fail(const char *what);

unsigned long long now_ns(void);
unsigned long long cpu_ns(void);
void sleep_ms(long ms);
long pick(long given, long full, long quick, const struct opts *o);
int pin_cpu(int cpu);

/* What c_getdents64() fills its buffer with. */
struct dirent64 {
	__u64		d_ino;
	__s64		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

int c_open(const char *path, int flags);
int c_openat(int dirfd, const char *path, int flags);
ssize_t c_read(int fd, void *buf, size_t len);
int c_close(int fd);
long c_getdents64(int fd, void *buf, size_t len);
ssize_t c_sendmsg(int fd, const struct msghdr *msg);
ssize_t c_recvmsg(int fd, struct msghdr *msg);

long sysctl_read(const char *path);
int write_file(const char *path, const char *text);
int sysctl_write(const char *path, long v);

/* --------------------------------------------------------- bench_netlink.c */

struct nl {
	int fd;
	__u16 family;
	__u32 seq;
};

int nl_send(struct nl *nl, __u16 type, __u16 flags, __u8 cmd, __u16 atype,
	    const void *data, size_t len);

/* One attribute of nl_send_attrs(): a flag has @data NULL and @len 0. */
struct nl_attr {
	__u16 type;
	const void *data;
	size_t len;
};

int nl_send_attrs(struct nl *nl, __u16 type, __u16 flags, __u8 cmd,
		  const struct nl_attr *attrs, int n);
int nl_policy_has(struct nl *nl, const char *family, __u8 op, __u16 attr);
ssize_t nl_recv(struct nl *nl, void *buf, size_t size);
int count_records(const struct nlmsghdr *h);
int nl_error(const struct nlmsghdr *h);
int nl_open(struct nl *nl, int rcvbuf);
int nl_taskstats(struct nl *nl, int rcvbuf);
int get_one(struct nl *nl, __u16 attr, __u32 id, char *buf);

/* -------------------------------------------------------- bench_sleepers.c */

/* A sysctl raised for a workload, and what to restore. */
struct sysctl_save {
	const char *path;
	long old;
	int changed;
};

/* @n sleeping processes and the limits raised for them. */
struct sleepers {
	struct sysctl_save threads;
	struct sysctl_save pidmax;
	pid_t *pids;
	char *stacks;
	long n;
	long started;
};

int sleepers_start(struct sleepers *s, long n, const char *what);
void sleepers_stop(struct sleepers *s, const char *what);

/* --------------------------------------------------------- bench_collect.c */

/* One reading of every task's record: its cost and what it got. */
struct method {
	unsigned long long ns;
	unsigned long syscalls;
	long records;
	long errors;		/* GETs of tasks that went away (ESRCH) */
	int err;		/* the dump failed with this -errno */
};

int collect_by_dump(struct nl *nl, __u16 attr, const void *data, size_t len,
		    struct method *m);

/* ------------------------------------------- the subcommands, by their file */

int cmd_pingpong(const struct opts *o);		/* bench_io.c */
int cmd_directio(const struct opts *o);		/* bench_io.c */
int cmd_get(const struct opts *o);		/* bench_get.c */
int cmd_tgid(const struct opts *o);		/* bench_get.c */
int cmd_siglock(const struct opts *o);		/* bench_get.c */
int cmd_collect(const struct opts *o);		/* bench_collect.c */
int cmd_cgroup(const struct opts *o);		/* bench_cgroup.c */
int cmd_exit(const struct opts *o);		/* bench_exit.c */

#endif /* TASKSTATS_BENCH_H */
