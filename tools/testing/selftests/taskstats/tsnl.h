/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal generic netlink client for the taskstats selftests.
 *
 * The tests talk to the kernel with raw AF_NETLINK sockets rather than a
 * library so that they build anywhere kselftests build and so that they can
 * send deliberately malformed requests.
 */
#ifndef TSNL_H
#define TSNL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>
#include <linux/taskstats.h>
#include <linux/cgroupstats.h>

/*
 * Issue 48's attributes, for a uapi header that predates them. The header
 * declares them as enum members, which #ifndef cannot see: the macros
 * then shadow them, with the same values.
 */
#ifndef TASKSTATS_TYPE_CGROUP_ID
#define TASKSTATS_TYPE_CGROUP_ID	7	/* u64, in an AGGR nest after STATS */
#endif
#ifndef TASKSTATS_CMD_ATTR_CGROUP_ID
#define TASKSTATS_CMD_ATTR_CGROUP_ID	8	/* flag: records carry CGROUP_ID */
#endif

#define TSNL_BUF_SIZE	65536

/* A kernel tick at HZ=100, the longest a tick may be, in microseconds. */
#define TS_MAX_TICK_US	10000

/* A request under construction: header, genl header, then attributes. */
struct tsnl_msg {
	union {
		struct nlmsghdr nlh;
		char buf[4096];
	};
};

/* The shape of an AGGR nest: its length and its attributes' types, in order. */
#define TSNL_NEST_MAX	8
struct tsnl_shape {
	int len;			/* nla_len of the nest */
	int n;				/* attributes, of which type[] keeps the first 8 */
	uint16_t type[TSNL_NEST_MAX];
};

/* Where the parsed pieces of a taskstats reply live inside the reply buffer. */
struct tsnl_reply {
	int cmd;			/* genl command of the reply */
	int aggr_type;			/* TASKSTATS_TYPE_AGGR_PID/TGID, 0 if none */
	uint32_t id;			/* the PID or TGID attribute */
	bool have_id;
	const void *stats;		/* payload of TASKSTATS_TYPE_STATS */
	int stats_len;
	const void *cgstats;		/* payload of CGROUPSTATS_TYPE_CGROUP_STATS */
	int cgstats_len;
	bool saw_null_pad;		/* a TASKSTATS_TYPE_NULL preceded STATS */
	struct tsnl_shape shape;	/* of the AGGR nest */
	bool have_cgroup_id;		/* a TASKSTATS_TYPE_CGROUP_ID came */
	uint64_t cgroup_id;
};

int tsnl_open(void);
int tsnl_family(int fd, const char *name, uint16_t *id);
int tsnl_family_has_op(int fd, const char *name, int op);
int tsnl_family_op_flags(int fd, const char *name, int op);

void tsnl_msg_init(struct tsnl_msg *m, uint16_t family, uint8_t cmd,
		   uint16_t flags);
void tsnl_put(struct tsnl_msg *m, uint16_t type, const void *data, int len);
void tsnl_put_u32(struct tsnl_msg *m, uint16_t type, uint32_t v);
void tsnl_put_str(struct tsnl_msg *m, uint16_t type, const char *s);
int tsnl_send(int fd, struct tsnl_msg *m);

int tsnl_recv(int fd, void *buf, int size, int flags);
bool tsnl_answers(const struct nlmsghdr *h, uint32_t seq);
int tsnl_transact(int fd, struct tsnl_msg *m, void *buf, int size);
int tsnl_parse(const void *buf, int len, struct tsnl_reply *r);

/*
 * Flags of the requests that take them (tsnl_get_flags(), tsnl_register(),
 * tsnl_dump_cgroup()): the flag attributes they add to the request.
 */
#define TSNL_DUMP_TGID		1	/* TASKSTATS_CMD_ATTR_DUMP_TGID */
#define TSNL_DUMP_SUBTREE	2	/* TASKSTATS_CMD_ATTR_DUMP_SUBTREE */
#define TSNL_CGROUP_ID		4	/* TASKSTATS_CMD_ATTR_CGROUP_ID */

int tsnl_get(int fd, uint16_t family, int attr, uint32_t id,
	     struct taskstats *ts, struct tsnl_reply *r, void *buf);
int tsnl_get_flags(int fd, uint16_t family, int attr, uint32_t id, int flags,
		   struct taskstats *ts, struct tsnl_reply *r, void *buf);
int tsnl_cpumask(int fd, uint16_t family, int attr, const char *mask);
int tsnl_register(int fd, uint16_t family, const char *mask, int cgroup_fd,
		  int flags);

/* What an exit message's record holds besides its id and stats. */
struct tsnl_exit_more {
	struct tsnl_shape shape;	/* of its AGGR nest */
	bool have_cgroup_id;		/* a TASKSTATS_TYPE_CGROUP_ID came */
	uint64_t cgroup_id;
};

/* Both records an exit message may carry: the task's and its group's. */
struct tsnl_exit {
	uint32_t seq;			/* nlmsg_seq: the exit message's number */
	bool have_pid;
	bool have_tgid;
	uint32_t pid;
	uint32_t tgid;
	int pid_len;			/* STATS attribute lengths */
	int tgid_len;
	struct taskstats pid_ts;
	struct taskstats tgid_ts;
	struct tsnl_exit_more pid_more;
	struct tsnl_exit_more tgid_more;
};

void tsnl_stats_copy(struct taskstats *ts, const struct tsnl_reply *r);
int tsnl_parse_exit(const void *msg, int len, struct tsnl_exit *e);
typedef void (*tsnl_exit_fn)(const struct tsnl_exit *e, void *arg);
int tsnl_drain(int fd, tsnl_exit_fn fn, void *arg);

/* One record of a dump: its id, AGGR_PID or AGGR_TGID, and its stats. */
typedef void (*tsnl_dump_fn)(uint32_t id, int aggr, const struct taskstats *ts,
			     void *arg);
/*
 * How a dump arrived: its messages, the reads they took, the most records
 * in one, and the extack message of its NLMSG_DONE (with NETLINK_EXT_ACK).
 */
struct tsnl_dump_count {
	int messages;
	int reads;
	int most;
	char done_msg[80];
};

int tsnl_dump(int fd, uint16_t family, bool tgid, tsnl_dump_fn fn, void *arg,
	      struct tsnl_dump_count *count);
int tsnl_dump_msg(int fd, struct tsnl_msg *m, tsnl_dump_fn fn, void *arg,
		  struct tsnl_dump_count *count);
/* One part of the dump tsnl_send() started with request number @seq. */
int tsnl_dump_part(int fd, uint32_t seq, tsnl_dump_fn fn, void *arg,
		   struct tsnl_dump_count *count, bool *done);

int tsnl_dump_cgroup(int fd, uint16_t family, int cgroup_fd, int flags,
		     tsnl_dump_fn fn, void *arg);
int tsnl_cgroupstats(int fd, uint16_t family, int cgroup_fd,
		     struct cgroupstats *cs);
int tsnl_cgroupstats_flags(int fd, uint16_t family, int cgroup_fd, uint16_t flags,
			   struct cgroupstats *cs);
int tsnl_dump_records(const struct nlmsghdr *h, tsnl_dump_fn fn, void *arg);
/* The record a tsnl_dump_fn is called for, whole: valid during the call. */
const struct tsnl_reply *tsnl_dump_record(void);

/* Registers @fd for exits on every possible CPU, which it writes to @cpus. */
int ts_register_all(int fd, uint16_t family, char *cpus, int size);

/*
 * Opens a socket registered for exits on every possible CPU. On failure
 * @fd < 0 if no socket was opened, @family == 0 if the TASKSTATS family
 * was not resolved, and otherwise the registration failed.
 */
int ts_listener_open(int *fd, uint16_t *family, char *cpus, int size);

/*
 * Forks a child that runs @fn and exits with its return value, reaps it
 * and fetches its exit record from the listener socket @nl.
 */
int ts_run_child(int nl, int (*fn)(void *), void *arg, struct taskstats *ts,
		 pid_t *pidp);

int ts_exit_record(int nl, pid_t pid, struct taskstats *ts);

/* Runs @fn in a child as uid and gid 65534 without capabilities. */
int ts_as_nobody(int (*fn)(int fd, uint16_t family, pid_t other),
		 uint16_t family, pid_t other);

/*
 * Why a test of what only a kernel with the dump does skips on one
 * without (Linux 6.12's own implementation): see ts_kernel_dumps().
 */
#define TS_NO_DUMP	"this kernel has no dump (6.12's own): "

/*
 * Why a test of a bug mended by the fixes at the head of the series skips
 * on a kernel declared to lack them: see ts_kernel_unfixed().
 */
#define TS_UNFIXED	"this kernel lacks the series' fixes (TASKSTATS_UNFIXED): "

/*
 * Why a test of cgroup ids on records and of cgroup listeners skips on a
 * kernel without them (6.12's own, and the series before them): see
 * ts_kernel_cgroup_ids().
 */
#define TS_NO_CGROUP_IDS "this kernel has no cgroup ids nor cgroup listeners: "

/* Small helpers shared by the tests. */
bool ts_kernel_dumps(void);
bool ts_kernel_unfixed(void);
int ts_policy_has_attr(int fd, const char *family, int op, int attr);
bool ts_kernel_cgroup_ids(void);
int ts_read_within(int fd, void *buf, size_t size, int ms);
int ts_read_file(const char *path, char *buf, int size);
int ts_write_file(const char *path, const char *s);
int ts_proc_state(pid_t pid);
pid_t ts_pid_inside(pid_t pid);
int ts_wait_state(pid_t tid, int want, int ms);
int ts_wait_sleeping(pid_t pid);
int ts_proc_io(pid_t pid, const char *key, uint64_t *val);
int ts_proc_field(const char *path, const char *key, uint64_t *val);
uint64_t ts_threads_sum(pid_t pid, const char *key, int *threads);
int64_t ts_keyed_value(const char *buf, const char *key);
int ts_cgroup2_root(char *root, int size);
uint64_t ts_cgroup_id_at(int dirfd, const char *path);
uint64_t ts_cgroup_id_of(const char *path);
uint64_t ts_task_cgroup_id(const char *root, pid_t tid);
int ts_memcg_make(const char *name, char *path, int size, char *subtree, int subsize);
void ts_possible_cpus(char *buf, int size);

/*
 * A child that runs @fn once per ts_worker_run() and otherwise sleeps on a
 * pipe, so that its counters can be read between two runs. Each run adds one
 * 1-byte read(2) and one 1-byte write(2) of its own to @fn's I/O.
 */
struct ts_worker {
	pid_t pid;
	int go_fd;
	int done_fd;
};

int ts_worker_start(struct ts_worker *w, void (*fn)(void *arg), void *arg);
int ts_worker_run(struct ts_worker *w);
int ts_worker_stop(struct ts_worker *w);

#endif
