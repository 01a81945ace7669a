/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of taskstats_fuzz share: its limits and paths, what a
 * phase counts, what a message must get, the state of a phase (struct
 * fuzz), and each part's entry points, listed by the file defining them.
 *
 * Each phase is one process and single-threaded as far as any of this
 * goes (its other threads only sleep), so nothing here is locked.
 */
#ifndef FUZZ_H
#define FUZZ_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <linux/types.h>

#include "../kselftest.h"
#include "tsnl.h"	/* and issue 48's attributes, for an older uapi header */

/* The highest TASKSTATS_CMD_GET attribute any kernel we know has. */
#define GET_MAXATTR	TASKSTATS_CMD_ATTR_CGROUP_ID

#define MAX_BATCH	64		/* messages in one datagram */
#define MSG_ROOM	8192		/* the most an ordinary message takes */
#define BIG_LIST	65000		/* longest cpulist: nla_len is 16 bits */
#define V1_DIR		"/tmp/ts-fuzz-v1"
#define V1_CHILD	"/tmp/ts-fuzz-v1/fuzz"
#define V2_ROOT		"/sys/fs/cgroup"
#define V2_CHILD	V2_ROOT "/ts-fuzz"
#define V2_SUB		V2_CHILD "/sub"
#define V2_GONE		V2_ROOT "/ts-fuzz-gone"
#define NR_WATCH	4
#define NR_KTHREAD	16
#define NR_EXITING	64
#define NR_BAD_FAMILY	4
#define IO_CACHE	256
#define ERRNO_SLOTS	560		/* up to the kernel's internal 5xx */
#define SHOW_VIOLATIONS	20
#define REQ_ACK		(NLM_F_REQUEST | NLM_F_ACK)

enum phase { PH_ROOT, PH_USER, PH_CONTAINER, PH_NR };

/* What a phase reports to the parent through a pipe. */
struct counts {
	__u64 messages;
	__u64 datagrams;
	__u64 replies;
	__u64 records;
	__u64 expected;		/* messages that must be answered */
	__u64 missing;
	__u64 violations;
	__u64 events;		/* exit records heard by a listener */
	__u64 strays;		/* upstream's: records sent to a reused port id */
	__u64 overruns;		/* ENOBUFS from recvmmsg() */
	__u64 dump_nobufs;	/* a dump started on a full socket */
	__u64 send_errors;
	__u64 io_errors;	/* /proc/PID/io failed for another reason */
	__u64 cg_dumps;		/* dumps of one cgroup that ended with 0 */
	__u64 cg_checked;	/* of those, checked for every task due */
	__u64 err[ERRNO_SLOTS];	/* [0]: values out of range */
	int skipped;
};

/*
 * What a message must get, as predicted from its final bytes the way
 * netlink_rcv_skb(), genetlink and the family's policy will see them.
 */
enum expect {
	EXP_NONE,	/* nothing: its nlmsg_len lies */
	EXP_ACK,	/* only an ACK of 0: not a request, or a control type */
	EXP_ERR,	/* only an error: no such op, attributes fail the policy */
	EXP_LISTEN,	/* REGISTER/DEREGISTER_CPUMASK: ACK or error, no record */
	EXP_GET,	/* one record of ->id then ACK 0, or an error alone */
	EXP_CG,		/* cgroupstats: ->cg tells whether a record may come */
	EXP_DUMP,	/* records in NLM_F_MULTI messages then NLMSG_DONE */
};

enum cg_expect {
	CGX_NONE,	/* no cgroup directory the kernel answers for */
	CGX_REPLY,	/* a cgroup directory: ACK 0 comes after a record */
	CGX_ANY,	/* not known (a dry run) */
};

/*
 * What an fd is to a cgroup request (CGROUPSTATS_CMD_ATTR_FD or
 * TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD), as the fuzzer sees it.
 */
enum fd_class {
	FDC_ANY,	/* not known (a dry run, or fstat failed) */
	FDC_CLOSED,	/* not open (or beyond any fd table) */
	FDC_OPATH,	/* opened with O_PATH */
	FDC_OTHER,	/* open, and no cgroup directory */
	FDC_V1,		/* a directory of a cgroup v1 hierarchy */
	FDC_V2,		/* a directory of the cgroup v2 hierarchy */
	FDC_GONE,	/* a cgroup v2 directory removed since it was opened */
};

/* Where a watched task is in the cgroup v2 hierarchy. */
enum node {
	NODE_UNKNOWN,	/* not known: never checked */
	NODE_OUT,	/* in a cgroup other than these three */
	NODE_ROOT,	/* in the root cgroup */
	NODE_CHILD,	/* in ts-fuzz */
	NODE_SUB,	/* in ts-fuzz/sub */
	NODE_NR
};

/*
 * The identity a registration gives a listener, which the kernel compares
 * (EBUSY) and by which it lays out and filters exit records: whether the
 * records carry CGROUP_ID, the cgroup named (LF_*) and DUMP_SUBTREE; a
 * number below LID_NONE. A socket's possible identities are a bitmask of
 * those and of LID_NONE, for "no listener".
 */
enum lid_filter {
	LF_ALL,		/* no cgroup: every exit */
	LF_ROOT,	/* V2_ROOT */
	LF_CHILD,	/* V2_CHILD */
	LF_SUB,		/* V2_SUB */
	LF_OTHER,	/* another cgroup v2 directory: its id is not known */
};

#define LID(cgid, filter, subtree)	((cgid) | (filter) << 1 | (subtree) << 4)
#define LID_CGID(lid)			((lid) & 1)
#define LID_FILTER(lid)			(((lid) >> 1) & 7)
#define LID_SUBTREE(lid)		(((lid) >> 4) & 1)
#define LID_NONE			31
#define LID_ANY				0xffffffffu

/* One message of the datagram in flight. */
struct req {
	int off;		/* where it starts in the datagram */
	int size;		/* bytes it takes there */
	__u32 seq;
	__u32 id;		/* EXP_GET: id asked; EXP_DUMP: last id seen */
	__u8 exp;
	__u8 aggr;		/* TASKSTATS_TYPE_AGGR_PID or _TGID */
	__u8 cg;
	__u8 cg_kind;		/* the fd named, if one of targets' cg_fd */
	__u8 must;		/* watched tasks a cgroup's dump must list */
	__u8 forbid;		/* and those it must not */
	__u8 seen;		/* the watched tasks it listed */
	__u16 want;		/* with @exact: the errno due, 0 for none */
	bool exact;		/* the answer's errno is predicted exactly */
	bool busy_ok;		/* a dump after another dump of the datagram */
	bool cgdump;		/* a dump of one cgroup */
	bool subtree;		/* with DUMP_SUBTREE */
	bool nobufs;		/* it started on a full socket */
	bool cg_one;		/* cgroupstats of ts-fuzz/sub: one sleeper */
	bool reg;		/* EXP_LISTEN with REGISTER_CPUMASK */
	bool cgid;		/* its records must carry CGROUP_ID */
	bool lid_known;		/* reg: @lid and @want are predicted */
	__u8 lid;		/* reg: the identity it asks for */
	bool done;
	bool replied;
	bool seen_id;
};

enum cg_kind {
	CG_CLOSED, CG_OPATH, CG_FILE, CG_TMP, CG_V2, CG_V2CHILD, CG_V2SUB,
	CG_V2GONE, CG_V1ROOT, CG_V1CHILD,
	CG_NR, CG_NONE = CG_NR
};

/* A task of the fuzzer's whose cgroup v2 is known, and how to check it. */
struct watch {
	__u32 id;
	__u8 node;
	bool thread;		/* not a thread group leader: no TGID record */
	bool must;		/* readable: due in every dump it is in */
};

/* Things worth naming in a request, looked up at run time. */
struct targets {
	__u32 self;
	__u32 thread;
	__u32 parent;
	__u32 zombie;
	__u32 spawner;
	__u32 pid_max;
	__u32 kthread[NR_KTHREAD];
	int nr_kthread;
	__u32 exiting[NR_EXITING];	/* ring of pids of short-lived tasks */
	unsigned int exit_head;
	unsigned int nr_exiting;
	int spawn_fd;			/* read end of the spawner's pid pipe */
	int cg_fd[CG_NR];
	__u8 cg_class[CG_NR];		/* each one's fd_class */
	__u64 cg_id[CG_NR];		/* cgroup v2 ids of CG_V2*, 0: unknown */
	__u64 node_id[NODE_NR];		/* the same, by node */
	bool sub_one;			/* ts-fuzz/sub holds one sleeping task */
	struct watch watch[NR_WATCH];
	int nr_watch;
	__u16 bad_family[NR_BAD_FAMILY];
	int nr_bad_family;
	char possible[128];
};

struct io_entry {
	__u32 id;
	__u64 until;
};

struct fuzz {
	enum phase phase;
	bool dry;
	bool verbose;
	__u64 budget;
	__u64 deadline;
	__u16 family;
	bool series;		/* this series' kernel, not upstream's */
	bool unfixed;		/* upstream's, declared without the fixes */
	int get_maxattr;	/* TASKSTATS_CMD_GET's policy: the kernel's */
	bool cgids;		/* it has CGROUP_ID and cgroup listeners */
	struct targets t;
	int sock;
	__u32 portid;
	bool ext_ack;
	bool cap_ack;
	bool reg_tried;		/* a registration was sent on this socket */
	__u32 lst_may;		/* the identities its listener may have */
	__u32 lst_stale;	/* and those of listeners it may have dropped */
	/* how registrations on this socket mostly ask */
	__u32 style_fd;		/* DUMP_CGROUP_FD, if style_has_fd */
	bool style_has_fd;
	bool style_subtree;
	bool style_cgid;
	__u32 on_sock;		/* messages sent on it */
	__u32 reopen_at;
	__u32 seq;
	/* the datagram in flight */
	char *tx;
	int txlen;
	bool use_sendto;
	struct req req[MAX_BATCH + 1];
	int nreq;
	int dumps;		/* of them, dumps that may start */
	__u64 overruns_at;	/* c.overruns when its drain began */
	__u32 seq_base;
	int outstanding;
	/* the container's view of its pids */
	__u32 last_pid;
	bool pid_wrapped;
	struct io_entry io[IO_CACHE];
	struct counts c;
};

struct opts {
	unsigned long long seed;
	unsigned long long count;
	unsigned long long time;
	unsigned long long dry_run;
	bool phase[PH_NR];
	bool verbose;
	bool every_phase;	/* a phase that cannot run is a violation */
	__u16 family;
};

/* A message being laid out at @base. */
struct msg {
	char *base;
	int len;
};

/* fuzz_util.c: the stream, small helpers, reporting */
extern const char * const phase_name[PH_NR];
extern const char * const exp_name[];
/*
 * The splitmix64 state. main() draws a seed from it when given none; a
 * phase seeds it afresh once its targets are looked up and then draws
 * every choice from it, in an order that depends on nothing the kernel
 * answers, which is what makes a seed replayable. The spawner, a process
 * of its own, seeds its copy from it.
 */
extern __u64 rng_state;
__u64 rnd(void);
__u32 below(__u32 n);
bool chance(__u32 per_mille);
void fill_rand(void *p, int len);
__u64 now_ns(void);
int read_file(const char *path, char *buf, int size);
int write_file(const char *path, const char *s);
const char *errno_name(int err);
void print_hex(const char *what, const void *buf, int len);
const struct nlmsghdr *req_hdr(const struct fuzz *f, const struct req *r);
__printf(4, 5) void violation(struct fuzz *f, const struct req *r,
			      const struct nlmsghdr *h, const char *fmt, ...);

/* fuzz_msg.c: the message builder and the values it names */
struct nlmsghdr *msg_hdr(const struct msg *m);
struct genlmsghdr *msg_genl(const struct msg *m);
void msg_begin(struct msg *m, char *at, __u16 type, __u16 flags, __u8 cmd);
void *put_raw(struct msg *m, __u16 type, __u16 nla_len, int len);
void put(struct msg *m, __u16 type, const void *data, int len);
void put_u32(struct msg *m, __u16 type, __u32 v);
void put_flag(struct msg *m, __u16 type);
void put_rand(struct msg *m, __u16 type, int len);
__u32 pick_id(struct fuzz *f);
__u32 pick_fd(struct fuzz *f);
__u32 pick_dump_fd(struct fuzz *f);
int gen_cpulist(struct fuzz *f, char *out, bool allow_big, bool *big);

/* fuzz_gen.c: the generators and the datagram in flight */
void build_datagram(struct fuzz *f);
void print_datagram(const struct fuzz *f);

/* fuzz_predict.c: what a message must get */
__u32 attr_u32(const struct nlattr *na);
__u8 fd_probe(__u32 v);
bool lid_matches(const struct fuzz *f, __u8 lid, __u64 cgid);
void predict(const struct fuzz *f, const struct nlmsghdr *h, bool lying,
	     struct req *r);

/* fuzz_check.c: the checks on every answer */
void on_datagram(struct fuzz *f, const char *buf, int len);

/* fuzz_access.c: records of tasks the requester may not read */
void check_record(struct fuzz *f, const struct req *r,
		  const struct nlmsghdr *h, __u32 id);

/* fuzz_io.c: the netlink socket */
int resolve_family(void);
void probe_bad_families(struct targets *t);
void sock_open(struct fuzz *f);
void send_datagram(struct fuzz *f);
void drain(struct fuzz *f);

/* fuzz_targets.c: what a phase names */
void refill_exiting(struct fuzz *f);
void dry_targets(struct fuzz *f);
int setup_targets(struct fuzz *f, const struct opts *o, pid_t *spawn);

/* fuzz_phase.c: one phase, in this process or in a child */
void fuzz_phase(struct fuzz *f, const struct opts *o, enum phase ph,
		__u64 budget, __u64 deadline);
void run_phase(const struct opts *o, enum phase ph, __u64 budget,
	       __u64 deadline, struct counts *sum);

/*
 * taskstats_fuzz.c: made by the parent as root (v2_setup()) before any
 * phase, inherited by every phase, which only reads them.
 */
extern int v2_gone_fd;		/* a cgroup v2 directory since removed */
extern pid_t resident;		/* the sleeping task alone in V2_SUB */
extern bool v2_sub_one;		/* and it is alone there */
extern bool v2_paths_ok;	/* /proc/PID/cgroup paths are V2_ROOT's */

#endif /* FUZZ_H */
