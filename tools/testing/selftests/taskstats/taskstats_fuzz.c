// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats_fuzz - a seeded, replayable fuzzer for the TASKSTATS genl family
 *
 * What it sends. TASKSTATS_CMD_GET and CGROUPSTATS_CMD_GET requests built by
 * a PRNG: well-formed ones naming interesting tasks (pid 0, init, kernel
 * threads, itself, its own thread, a zombie, children exiting at that very
 * moment, pids beyond pid_max), listener (de)registrations with cpulists
 * malformed every way, dumps with every attribute combination (the whole
 * system, or one cgroup by DUMP_CGROUP_FD with or without DUMP_SUBTREE),
 * cgroupstats and cgroup dumps of every kind of fd (cgroup v2 and v1
 * directories, a removed cgroup's, O_PATH, closed, a file, another file
 * system's directory), every other command number, garbage and nested
 * attributes, attributes of the wrong size or running past the message,
 * wrong family ids, and nlmsg_len values that lie.
 *
 * What it checks, on every answer:
 *  - an NLMSG_ERROR carries 0 or a documented errno, echoes the header of
 *    the request it answers (and its payload unless NETLINK_CAP_ACK) and
 *    walks exactly to its end; a dump's NLMSG_DONE carries 0 or such errno;
 *  - a TASKSTATS_CMD_NEW parses: its attributes walk exactly to the end of
 *    the message, each aggregate holds one PID or TGID and one STATS of
 *    version 1..17, a GET's record names the id asked, a dump's ids grow
 *    (a cgroup's dump walks the cgroup's tasks, in no pid order);
 *  - on this series' kernel, the exact errno of each cgroup request: a
 *    dump of one cgroup starts, or fails with EBADF (a closed or O_PATH
 *    fd), EINVAL (no cgroup directory, or DUMP_SUBTREE alone) or ENOENT
 *    (a removed cgroup); cgroupstats answers a record for a v2 or v1
 *    cgroup, EBADF (a closed or O_PATH fd), EINVAL or ENOENT otherwise
 *    (EBUSY is a dump's answer while an earlier dump of the datagram
 *    runs, ENOMEM always possible); on upstream's, only the old checks;
 *  - a cgroup's dump lists the fuzzer's own tasks of known cgroup exactly
 *    as their cgroups say: never a task of another cgroup (or, without
 *    DUMP_SUBTREE, of a descendant), and when it ends cleanly every one
 *    it may read that is in it (as root: a sleeping task of root's in
 *    ts-fuzz/sub, the spawner in ts-fuzz); cgroupstats of ts-fuzz/sub
 *    counts that one sleeping task;
 *  - nothing answers what must get no answer (a lying nlmsg_len) and no
 *    record answers a request that fails the policy; a GET acknowledged
 *    with 0 got exactly one record first;
 *  - no record describes a task the requester may not read: as nobody, and
 *    as root of a user namespace, a record of a task whose /proc/PID/io
 *    the fuzzer itself cannot open and read is a leak; in the namespace, a
 *    record of a pid the namespace never had is one too.
 *
 * Two errnos beyond the documented ones are accepted where the kernel has
 * a reason for them: EOVERFLOW for a listener request (cpulist_parse() of
 * a number beyond 32 bits) and ENOBUFS for a dump whose first part found
 * the socket full (the dump goes on and still ends with NLMSG_DONE). An
 * answer that never comes is counted as missing. Only an overrun of the
 * socket (ENOBUFS from a read while waiting for it) can lose one: an
 * answer missing with none is a violation, and so is more than 1% of the
 * answers missing in all.
 *
 * Cgroups (as root, before the phases): a named cgroup v1 hierarchy with
 * a child, and under the cgroup v2 root ts-fuzz and ts-fuzz/sub, the
 * latter holding one sleeping task of root's, and the fd of a cgroup
 * removed after it was opened, which every phase inherits.
 *
 * Phases (--as all). The message budget is split over three phases, each
 * in a child process with helpers of its own (a zombie, a thread, and a
 * process forking short-lived children whose pids it passes on; as root
 * that one lives in ts-fuzz and in the v1 child): as root;
 * as nobody (uid 65534, no groups, dumpable); and as root of fresh user,
 * pid, net and mount namespaces made by nobody, as pid 1 of the new pid
 * namespace with a /proc of its own.
 *
 * Speed. The kernel handles the messages of one datagram in turn, within
 * sendmsg(), and queues all their answers before sendmsg() returns; only
 * a dump goes on as its answers are read. So up to 64 messages go in one
 * datagram, each with NLM_F_ACK and its own sequence number, and the
 * answers are read with recvmmsg() until every message is accounted for:
 * no waiting, except for an answer that went missing (DRAIN_MS at most).
 *
 * Replaying. The first line printed is "# taskstats_fuzz: seed N". Each
 * phase draws every choice from a splitmix64 stream seeded from N and the
 * phase, in an order that depends on nothing the kernel answers, so
 *
 *	taskstats_fuzz --seed N [--count C] [--as PHASE]
 *
 * sends the same messages in the same datagrams again (with the same
 * --count and --as); only values looked up at run time (pids, fds, the
 * possible CPU list) differ. "--dry-run M" prints the first M messages of
 * a seed in hex and what is expected of each, without opening a socket.
 * --verbose prints every violation with the request and the answer.
 * --every-phase makes a phase that cannot run (no user namespaces, not
 * root) a violation rather than a note: the rig's guest can run all.
 *
 * Output. Lines starting with '#' are notes, then one summary line
 *
 *	fuzz: M messages in S s (R/s), A replies, B records, C missing, V violations
 *
 * and "fuzz: errno NAME COUNT" for each errno the kernel answered. The
 * exit status is 0 without a violation, 1 with one, and KSFT_SKIP (4) if
 * there is no TASKSTATS family.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/cgroupstats.h>
#include <linux/genetlink.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "../kselftest.h"
#include "tsnl.h"

#define NOBODY		65534
#define MAX_BATCH	64		/* messages in one datagram */
#define MSG_ROOM	8192		/* the most an ordinary message takes */
#define BIG_LIST	65000		/* longest cpulist: nla_len is 16 bits */
#define TX_SIZE		((MAX_BATCH + 2) * MSG_ROOM + BIG_LIST + 1024)
#define RX_SLOTS	16		/* datagrams per recvmmsg() */
#define RX_SLOT		(96 * 1024)	/* > a dump part, > an echoed BIG_LIST */
#define DRAIN_MS	2000
#define RCVBUF		(4 * 1024 * 1024)
#define SNDBUF		(1024 * 1024)
#define V1_DIR		"/tmp/ts-fuzz-v1"
#define V1_CHILD	"/tmp/ts-fuzz-v1/fuzz"
#define V2_ROOT		"/sys/fs/cgroup"
#define V2_CHILD	V2_ROOT "/ts-fuzz"
#define V2_SUB		V2_CHILD "/sub"
#define V2_GONE		V2_ROOT "/ts-fuzz-gone"
#define NR_WATCH	4
#define KTHREAD_FLAG	0x00200000UL	/* PF_KTHREAD, field 9 of stat */
#define NR_KTHREAD	16
#define NR_EXITING	64
#define NR_BAD_FAMILY	4
#define IO_CACHE	256
#define IO_CACHE_NS	500000000ULL
#define ERRNO_SLOTS	560		/* up to the kernel's internal 5xx */
#define SHOW_VIOLATIONS	20
#define HEX_MAX		512
#define REQ_ACK		(NLM_F_REQUEST | NLM_F_ACK)

enum phase { PH_ROOT, PH_USER, PH_CONTAINER, PH_NR };

static const char * const phase_name[PH_NR] = { "root", "user", "container" };

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

static const char * const exp_name[] = {
	"none", "ack", "error", "listen", "get", "cgroupstats", "dump",
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
};

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
	bool done;
	bool replied;
	bool seen_id;
};

enum cg_kind {
	CG_CLOSED, CG_OPATH, CG_FILE, CG_TMP, CG_V2, CG_V2CHILD, CG_V2SUB,
	CG_V2GONE, CG_V1ROOT, CG_V1CHILD,
	CG_NR, CG_NONE = CG_NR
};

static const char * const cg_name[CG_NR + 1] = {
	"a closed fd", "an O_PATH fd", "a file", "/tmp", V2_ROOT, V2_CHILD,
	V2_SUB, "a removed cgroup", V1_DIR, V1_CHILD, "an fd",
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
	int get_maxattr;	/* TASKSTATS_CMD_GET's policy: the kernel's */
	struct targets t;
	int sock;
	__u32 portid;
	bool ext_ack;
	bool cap_ack;
	bool reg_tried;		/* a registration was sent on this socket */
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

static __u64 tx_words[TX_SIZE / 8];
static __u64 rx_words[RX_SLOTS][RX_SLOT / 8];
static char list_buf[BIG_LIST + 16];

/* Made by the parent as root (v2_setup()), inherited by every phase. */
static bool v2_made;		/* V2_CHILD and V2_SUB are there */
static int v2_gone_fd = -1;	/* a cgroup v2 directory since removed */
static pid_t resident;		/* the sleeping task alone in V2_SUB */
static bool v2_sub_one;		/* and it is alone there */
static bool v2_paths_ok;	/* /proc/PID/cgroup paths are V2_ROOT's */

/* ----------------------------------------------------------------- PRNG */

static __u64 rng_state;

/* splitmix64: cheap, and its whole state is the seed. */
static __u64 rnd(void)
{
	__u64 z;

	rng_state += 0x9e3779b97f4a7c15ULL;
	z = rng_state;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number below @n, from the top 32 bits of one draw. */
static __u32 below(__u32 n)
{
	return (__u32)(((rnd() >> 32) * n) >> 32);
}

/* True @per_mille times in a thousand. */
static bool chance(__u32 per_mille)
{
	return below(1000) < per_mille;
}

static void fill_rand(void *p, int len)
{
	unsigned char *b = p;
	__u64 r = 0;
	int i;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			r = rnd();
		b[i] = r;
		r >>= 8;
	}
}

/* ---------------------------------------------------------------- utils */

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Reads a small file into @buf as a string; returns its length or -1. */
static int read_file(const char *path, char *buf, int size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

static ssize_t read_full(int fd, void *buf, size_t len)
{
	size_t got = 0;

	while (got < len) {
		ssize_t n = read(fd, (char *)buf + got, len - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	return got;
}

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
	{ EINTR, "EINTR" }, { EIO, "EIO" }, { E2BIG, "E2BIG" },
	{ EBADF, "EBADF" }, { EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" },
	{ EACCES, "EACCES" }, { EFAULT, "EFAULT" }, { EBUSY, "EBUSY" },
	{ EEXIST, "EEXIST" }, { ENODEV, "ENODEV" }, { ENOTDIR, "ENOTDIR" },
	{ EINVAL, "EINVAL" }, { ENOSPC, "ENOSPC" }, { ERANGE, "ERANGE" },
	{ EPROTO, "EPROTO" }, { EBADMSG, "EBADMSG" },
	{ EOVERFLOW, "EOVERFLOW" }, { EMSGSIZE, "EMSGSIZE" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { ENOBUFS, "ENOBUFS" },
	{ ECONNREFUSED, "ECONNREFUSED" }, { ETIMEDOUT, "ETIMEDOUT" },
	{ 524, "ENOTSUPP" },	/* the kernel's own, never meant for users */
};

static const char *errno_name(int err)
{
	static char buf[24];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	snprintf(buf, sizeof(buf), "ERRNO_%d", err);
	return buf;
}

/* ------------------------------------------------------------ reporting */

static void print_hex(const char *what, const void *buf, int len)
{
	const unsigned char *b = buf;
	int i, n = len < HEX_MAX ? len : HEX_MAX;

	printf("#   %s:", what);
	for (i = 0; i < n; i++)
		printf("%s%02x", i % 4 ? "" : " ", b[i]);
	if (n < len)
		printf(" ... (%d bytes)", len);
	printf("\n");
}

static const struct nlmsghdr *req_hdr(const struct fuzz *f, const struct req *r)
{
	return (const struct nlmsghdr *)(f->tx + r->off);
}

/*
 * Counts a violation. The first few are printed; with --verbose all are,
 * with the request (@r) and the answer (@h) that show it.
 */
static __printf(4, 5) void violation(struct fuzz *f, const struct req *r,
				     const struct nlmsghdr *h,
				     const char *fmt, ...)
{
	va_list ap;

	f->c.violations++;
	if (!f->verbose && f->c.violations > SHOW_VIOLATIONS)
		return;
	printf("# violation (%s", phase_name[f->phase]);
	if (r)
		printf(", seq %u, expected %s", r->seq, exp_name[r->exp]);
	printf("): ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!f->verbose)
		return;
	if (r)
		print_hex("request", req_hdr(f, r), r->size);
	if (h)
		print_hex("answer", h, h->nlmsg_len);
}

static void count_errno(struct fuzz *f, int err)
{
	f->c.err[err > 0 && err < ERRNO_SLOTS ? err : 0]++;
}

/* ------------------------------------------------------ message builder */

/* A message being laid out at @base. */
struct msg {
	char *base;
	int len;
};

static struct nlmsghdr *msg_hdr(const struct msg *m)
{
	return (struct nlmsghdr *)m->base;
}

static struct genlmsghdr *msg_genl(const struct msg *m)
{
	return NLMSG_DATA(msg_hdr(m));
}

static void msg_begin(struct msg *m, char *at, __u16 type, __u16 flags,
		      __u8 cmd)
{
	struct nlmsghdr *h = (struct nlmsghdr *)at;
	struct genlmsghdr *g = NLMSG_DATA(h);

	m->base = at;
	m->len = NLMSG_LENGTH(GENL_HDRLEN);
	memset(at, 0, m->len);
	h->nlmsg_len = m->len;
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	g->cmd = cmd;
	g->version = TASKSTATS_GENL_VERSION;
}

/*
 * Appends an attribute whose header claims @nla_len and which takes
 * @len payload bytes (padded); returns the payload for the caller to fill.
 */
static void *put_raw(struct msg *m, __u16 type, __u16 nla_len, int len)
{
	struct nlattr *na = (struct nlattr *)(m->base + m->len);
	int pad = NLA_ALIGN(len) - len;

	na->nla_type = type;
	na->nla_len = nla_len;
	memset((char *)(na + 1) + len, 0, pad);
	m->len += NLA_HDRLEN + len + pad;
	msg_hdr(m)->nlmsg_len = m->len;
	return na + 1;
}

static void put(struct msg *m, __u16 type, const void *data, int len)
{
	memcpy(put_raw(m, type, NLA_HDRLEN + len, len), data, len);
}

static void put_u32(struct msg *m, __u16 type, __u32 v)
{
	put(m, type, &v, sizeof(v));
}

static void put_flag(struct msg *m, __u16 type)
{
	put_raw(m, type, NLA_HDRLEN, 0);
}

static void put_rand(struct msg *m, __u16 type, int len)
{
	fill_rand(put_raw(m, type, NLA_HDRLEN + len, len), len);
}

/* ------------------------------------------------------- what to name */

/* A pid or tgid: each draw takes the same two numbers from the stream. */
static __u32 pick_id(struct fuzz *f)
{
	const struct targets *t = &f->t;
	__u32 kind = below(20);
	__u64 r = rnd();
	unsigned int n;

	switch (kind) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return 2;		/* kthreadd */
	case 3:
		return t->nr_kthread ? t->kthread[r % t->nr_kthread] : 2;
	case 4:
	case 5:
		return t->self;
	case 6:
		return t->thread;
	case 7:
		return (__u32)-1;
	case 8:
		return t->pid_max + 1;
	case 9:
		return t->pid_max - (r & 1);
	case 10:
		return (__u32)r;
	case 11:
		return t->zombie;
	case 12:
	case 13:
	case 14:
		/* The newest first: the likeliest to be exiting now. */
		n = t->nr_exiting < 8 ? t->nr_exiting : 8;
		if (!n)
			return t->self;
		return t->exiting[(t->exit_head - 1 - r % n) % NR_EXITING];
	case 15:
		return t->spawner;
	case 16:
		return t->parent;
	case 17:
		return 1 + r % t->pid_max;
	case 18:
		return r & 1 ? INT_MAX : 0x80000000u;
	default:
		return t->self + r % 4;
	}
}

/* A cgroup directory's fd: small cgroups more often than the roots. */
static __u32 pick_cgroup_dir(struct fuzz *f, __u64 r)
{
	static const __u8 dirs[] = {
		CG_V2CHILD, CG_V2CHILD, CG_V2SUB, CG_V2SUB, CG_V2, CG_V1CHILD,
		CG_V1ROOT,
	};

	return f->t.cg_fd[dirs[r % ARRAY_SIZE(dirs)]];
}

/* An fd number for CGROUPSTATS_CMD_ATTR_FD (or DUMP_CGROUP_FD). */
static __u32 pick_fd(struct fuzz *f)
{
	static const __u32 huge[] = { (__u32)-1, INT_MAX, 0x80000000u, 1048576 };
	__u32 kind = below(CG_NR + 5);
	__u64 r = rnd();

	if (kind < CG_NR)
		return f->t.cg_fd[kind];
	switch (kind) {
	case CG_NR:
		return f->sock >= 0 ? f->sock : f->t.cg_fd[CG_CLOSED];
	case CG_NR + 1:
		return f->t.spawn_fd >= 0 ? f->t.spawn_fd : f->t.cg_fd[CG_CLOSED];
	case CG_NR + 2:
		return r % 3;		/* stdin, stdout, stderr: whatever */
	case CG_NR + 3:
		return huge[r % ARRAY_SIZE(huge)];
	default:
		return pick_cgroup_dir(f, r);
	}
}

/* An fd for DUMP_CGROUP_FD: mostly a cgroup's, whose tasks come back. */
static __u32 pick_dump_fd(struct fuzz *f)
{
	__u64 r = rnd();

	return r & 3 ? pick_cgroup_dir(f, r >> 2) : pick_fd(f);
}

static int copy_str(char *out, const char *s)
{
	int n = strlen(s);

	memcpy(out, s, n);
	return n;
}

/*
 * A cpulist payload written to @out; returns its length, NUL included if
 * it has one. Lists longer than 256 bytes only come with @allow_big; those
 * longer than 1 KiB set *@big, which ends the datagram.
 */
static int gen_cpulist(struct fuzz *f, char *out, bool allow_big, bool *big)
{
	static const char * const lists[] = {
		"", "0", "1", "0-1", "0,1", "1-1", "0-0", "all", "N", "0-N",
		"0-1:1/2", "0-3:1/2", "0-3:0/2", "0-3:3/2", "0-3:1/0", "0-",
		"-1", "-", "3-1", "1-0", ",", ",,,,", " ", "\n", "0 1", " 0 ",
		"0,,1", "4294967295", "4294967296", "99999999999999999999",
		"0-99999", "0-4294967295", "a", "0x1", "+1", "0-1-2", "0:1",
		"1/2", "0-1:/", "0-1:1/", "2147483648", "\t0", "0\n1", "0-1,",
		"N-0", "all:1/2", "ALL", "0-1:2/1",
	};
	static const int long_lens[] = {
		125, 126, 164, 700, 1636, 3172, 6244, 49252, BIG_LIST,
	};
	static const __u32 nums[] = {
		0, 1, 2, 3, 4, 7, 63, 64, 255, 4095, 4096, 65535, INT_MAX,
		0xffffffffu,
	};
	static const char soup[] = "0123456789-,:/ N\nax";
	__u32 kind = below(14);
	__u32 end = below(20);
	__u64 r = rnd();
	int n = 0, len, i;

	switch (kind) {
	case 0:
	case 1:
	case 2:
	case 3:
		n = copy_str(out, lists[r % ARRAY_SIZE(lists)]);
		break;
	case 4:
		n = copy_str(out, f->t.possible);
		break;
	case 5:
		n = sprintf(out, "%u", (unsigned int)(r % 8));
		break;
	case 6:
		len = 1 + r % 40;
		for (i = 0; i < len; i++)
			n += sprintf(out + n, "%u,",
				     (unsigned int)((r >> (8 + i % 32)) & 1));
		break;
	case 7:
		len = long_lens[r % ARRAY_SIZE(long_lens)];
		if (!allow_big && len > 256)
			len = 125 + (r >> 8) % 100;
		for (n = 0; n < len; n++)
			out[n] = n & 1 ? ',' : (r & 256 ? '0' : '1');
		*big = len > 1024;
		break;
	case 8:
		n = r % 65;
		fill_rand(out, n);
		break;
	case 9:
		n = 1 + r % 24;
		for (i = 0; i < n; i++)
			out[i] = soup[below(sizeof(soup) - 1)];
		break;
	case 10:
		n = sprintf(out, "%u-%u", nums[r % ARRAY_SIZE(nums)],
			    nums[(r >> 8) % ARRAY_SIZE(nums)]);
		break;
	case 11:
		n = sprintf(out, "%u-%u:%u/%u", nums[r % ARRAY_SIZE(nums)],
			    nums[(r >> 8) % ARRAY_SIZE(nums)],
			    nums[(r >> 16) % ARRAY_SIZE(nums)],
			    nums[(r >> 24) % ARRAY_SIZE(nums)]);
		break;
	case 12:
		return 0;		/* an empty payload: fails the policy */
	default:
		if (allow_big && !((r >> 40) % 4)) {
			for (n = 0; n < BIG_LIST; n++)
				out[n] = n & 1 ? ',' : '0';
			*big = true;
		} else {
			n = copy_str(out, lists[r % ARRAY_SIZE(lists)]);
		}
		break;
	}
	if (end < 15) {
		out[n++] = '\0';
	} else if (end >= 18) {		/* something after the NUL */
		out[n++] = '\0';
		out[n++] = '0';
		if (end == 19)
			out[n++] = '-';
	}
	return n;
}

/* An attribute type: mostly small, sometimes any, sometimes flagged. */
static __u16 rand_type(void)
{
	__u32 k = below(10);
	__u16 t = below(11);
	__u16 any = rnd();

	if (k < 6)
		return t;
	if (k < 8)
		return any;
	return t | (any & 1 ? NLA_F_NESTED : NLA_F_NET_BYTEORDER);
}

/* Garbage: random types and lengths, short headers, nests of garbage. */
static void put_garbage(struct msg *m, int depth)
{
	static const int bad_sizes[] = { 0, 1, 2, 3, 5, 8 };
	__u32 k = below(10);
	int off, n, i;

	if (k == 0 && depth < 2) {
		off = m->len;
		put_flag(m, rand_type() | NLA_F_NESTED);
		n = 1 + below(3);
		for (i = 0; i < n; i++)
			put_garbage(m, depth + 1);
		((struct nlattr *)(m->base + off))->nla_len = m->len - off;
	} else if (k == 1) {
		/* nla_len 0..3: the parse stops here. */
		put_raw(m, rand_type(), below(NLA_HDRLEN), 0);
	} else if (k == 2) {
		put_rand(m, 1 + below(TASKSTATS_CMD_ATTR_MAX),
			 bad_sizes[below(ARRAY_SIZE(bad_sizes))]);
	} else {
		put_rand(m, rand_type(), below(65));
	}
}

/* A PID or TGID attribute of a size other than 4. */
static void put_badsize(struct fuzz *f, struct msg *m, __u16 type)
{
	static const int sizes[] = { 0, 1, 2, 3, 5, 8 };
	int len = sizes[below(ARRAY_SIZE(sizes))];
	__u32 id = pick_id(f);
	char *p = put_raw(m, type, NLA_HDRLEN + len, len);

	fill_rand(p, len);
	if (len >= 4)
		memcpy(p, &id, sizeof(id));
}

static void put_cpulist(struct fuzz *f, struct msg *m, __u16 type)
{
	bool big = false;
	int n = gen_cpulist(f, list_buf, false, &big);

	put(m, type, list_buf, n);
}

/* One of the attributes of a dump, well formed. */
static void put_dump_attr(struct fuzz *f, struct msg *m)
{
	switch (below(3)) {
	case 0:
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
		break;
	case 1:
		put_u32(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, pick_dump_fd(f));
		break;
	default:
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_SUBTREE);
		break;
	}
}

/* One attribute a TASKSTATS_CMD_GET may carry, good or bad. */
static void put_action(struct fuzz *f, struct msg *m)
{
	switch (below(10)) {
	case 0:
	case 1:
		put_u32(m, TASKSTATS_CMD_ATTR_PID, pick_id(f));
		break;
	case 2:
		put_u32(m, TASKSTATS_CMD_ATTR_TGID, pick_id(f));
		break;
	case 3:
		put_cpulist(f, m, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK);
		break;
	case 4:
		put_cpulist(f, m, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK);
		break;
	case 5:
		put_dump_attr(f, m);
		break;
	case 6:
		put_badsize(f, m, chance(500) ? TASKSTATS_CMD_ATTR_PID :
						TASKSTATS_CMD_ATTR_TGID);
		break;
	case 7:
		put_u32(m, TASKSTATS_CMD_ATTR_PID |
			(chance(500) ? NLA_F_NESTED : NLA_F_NET_BYTEORDER),
			pick_id(f));
		break;
	case 8:
		put_rand(m, TASKSTATS_CMD_ATTR_MAX + 1 + below(5), below(9));
		break;
	default:
		put_garbage(m, 0);
		break;
	}
}

/* ----------------------------------------------------------- generators */

/*
 * Each generator lays one message out at @at and returns whether it is
 * big enough to end the datagram.
 */
static bool gen_get(struct fuzz *f, struct msg *m, char *at)
{
	__u16 type = chance(550) ? TASKSTATS_CMD_ATTR_PID :
				   TASKSTATS_CMD_ATTR_TGID;

	msg_begin(m, at, f->family, REQ_ACK, TASKSTATS_CMD_GET);
	put_u32(m, type, pick_id(f));
	return false;
}

/* Several action attributes, duplicates, flags: the first action wins. */
static bool gen_multi(struct fuzz *f, struct msg *m, char *at)
{
	int i, n = 2 + below(5);

	msg_begin(m, at, f->family, REQ_ACK, TASKSTATS_CMD_GET);
	for (i = 0; i < n; i++)
		put_action(f, m);
	return false;
}

static bool gen_badsize(struct fuzz *f, struct msg *m, char *at)
{
	msg_begin(m, at, f->family, REQ_ACK, TASKSTATS_CMD_GET);
	put_badsize(f, m, chance(500) ? TASKSTATS_CMD_ATTR_PID :
					TASKSTATS_CMD_ATTR_TGID);
	if (chance(300))
		put_u32(m, TASKSTATS_CMD_ATTR_PID, pick_id(f));
	return false;
}

static bool gen_listener(struct fuzz *f, struct msg *m, char *at,
			 bool allow_big)
{
	__u16 type = chance(600) ? TASKSTATS_CMD_ATTR_REGISTER_CPUMASK :
				   TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK;
	bool big = false;
	int n;

	msg_begin(m, at, f->family, REQ_ACK, TASKSTATS_CMD_GET);
	n = gen_cpulist(f, list_buf, allow_big, &big);
	if (chance(100))
		put_u32(m, TASKSTATS_CMD_ATTR_PID, pick_id(f));
	put(m, type, list_buf, n);
	if (chance(100))
		put_u32(m, TASKSTATS_CMD_ATTR_TGID, pick_id(f));
	return big;
}

/*
 * A dump of one cgroup: DUMP_CGROUP_FD good or of a bad size, duplicated,
 * DUMP_SUBTREE with it, alone or with a payload, and DUMP_TGID or not.
 */
static void put_cgroup_dump(struct fuzz *f, struct msg *m)
{
	static const int sizes[] = { 0, 1, 2, 3, 5, 8 };
	__u32 v = below(8), tgid = below(4);	/* 1: before, 2: after */
	bool subtree = chance(500);
	__u32 fd = pick_dump_fd(f);
	int len;
	char *p;

	if (tgid == 1)
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
	switch (v) {
	case 0:
	case 1:
	case 2:
		put_u32(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, fd);
		break;
	case 3:
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_SUBTREE);
		put_u32(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, fd);
		subtree = false;
		break;
	case 4:
		subtree = true;		/* DUMP_SUBTREE alone */
		break;
	case 5:
		len = sizes[below(ARRAY_SIZE(sizes))];
		p = put_raw(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, NLA_HDRLEN + len, len);
		fill_rand(p, len);
		if (len >= 4)
			memcpy(p, &fd, sizeof(fd));
		break;
	case 6:
		put_u32(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, fd);
		put_rand(m, TASKSTATS_CMD_ATTR_DUMP_SUBTREE, 1 + below(4));
		break;
	default:
		/* The last of a type counts: a bad fd, then a good one. */
		put_u32(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, pick_fd(f));
		if (chance(300))
			put_u32(m, TASKSTATS_CMD_ATTR_PID, pick_id(f));
		put_u32(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, fd);
		break;
	}
	if (subtree)
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_SUBTREE);
	if (tgid == 2)
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
}

static bool gen_dump(struct fuzz *f, struct msg *m, char *at)
{
	__u32 v = below(14);
	__u8 cmd = TASKSTATS_CMD_GET;
	int i, n;

	if (chance(100))
		cmd = chance(500) ? CGROUPSTATS_CMD_GET : below(256);
	msg_begin(m, at, f->family, REQ_ACK | NLM_F_DUMP, cmd);
	switch (v) {
	case 0:
		break;
	case 1:
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
		break;
	case 2:
		put_rand(m, TASKSTATS_CMD_ATTR_DUMP_TGID, 1 + below(4));
		break;
	case 3:
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
		put_u32(m, TASKSTATS_CMD_ATTR_PID, pick_id(f));
		break;
	case 4:
		put_u32(m, TASKSTATS_CMD_ATTR_TGID, pick_id(f));
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
		put_cpulist(f, m, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK);
		break;
	case 5:
		put_u32(m, TASKSTATS_CMD_ATTR_PID, pick_id(f));
		break;
	case 6:
		n = 1 + below(4);
		for (i = 0; i < n; i++)
			put_garbage(m, 0);
		if (chance(500))
			put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
		break;
	case 7:
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID | NLA_F_NESTED);
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
		break;
	default:
		put_cgroup_dump(f, m);
		break;
	}
	return false;
}

static bool gen_cgroup(struct fuzz *f, struct msg *m, char *at)
{
	__u32 v = below(10);
	__u32 fd = pick_fd(f);
	int len;
	char *p;

	msg_begin(m, at, f->family, REQ_ACK, CGROUPSTATS_CMD_GET);
	switch (v) {
	case 0:
		break;			/* no fd at all */
	case 1:
		put_rand(m, CGROUPSTATS_CMD_ATTR_FD, below(4));
		break;
	case 2:
		len = chance(500) ? 5 : 8;
		p = put_raw(m, CGROUPSTATS_CMD_ATTR_FD, NLA_HDRLEN + len, len);
		fill_rand(p, len);
		memcpy(p, &fd, sizeof(fd));
		break;
	case 3:
		put_u32(m, CGROUPSTATS_CMD_ATTR_FD, pick_fd(f));
		put_u32(m, CGROUPSTATS_CMD_ATTR_FD, fd);
		break;
	default:
		put_u32(m, CGROUPSTATS_CMD_ATTR_FD, fd);
		break;
	}
	if (chance(100))
		put_garbage(m, 0);
	return false;
}

/* Any command number of the family, with or without NLM_F_DUMP. */
static bool gen_anycmd(struct fuzz *f, struct msg *m, char *at)
{
	__u8 cmd = below(256);
	__u16 flags = REQ_ACK | (chance(200) ? NLM_F_DUMP : 0);
	int i, n = below(4);

	msg_begin(m, at, f->family, flags, cmd);
	for (i = 0; i < n; i++) {
		if (chance(500))
			put_action(f, m);
		else
			put_garbage(m, 0);
	}
	return false;
}

static bool gen_garbage(struct fuzz *f, struct msg *m, char *at)
{
	__u8 cmd = chance(700) ? TASKSTATS_CMD_GET : CGROUPSTATS_CMD_GET;
	int i, n = 1 + below(6);

	msg_begin(m, at, f->family, REQ_ACK, cmd);
	for (i = 0; i < n; i++)
		put_garbage(m, 0);
	return false;
}

/* A last attribute whose nla_len runs past the end of the message. */
static bool gen_truncated(struct fuzz *f, struct msg *m, char *at)
{
	__u16 type;
	int have, claim;

	if (chance(700))
		gen_get(f, m, at);
	else
		gen_cgroup(f, m, at);
	type = chance(500) ? rand_type() : 1 + below(TASKSTATS_CMD_ATTR_MAX);
	have = below(17);
	claim = have + 1 + below(200);
	fill_rand(put_raw(m, type, NLA_HDRLEN + claim, have), have);
	return false;
}

/* Not this family, not a request, a control type, another genl version. */
static bool gen_elsewhere(struct fuzz *f, struct msg *m, char *at)
{
	__u32 v = below(4);
	__u64 r = rnd();
	struct nlmsghdr *h;

	gen_get(f, m, at);
	h = msg_hdr(m);
	switch (v) {
	case 0:
		h->nlmsg_type = f->t.nr_bad_family ?
			f->t.bad_family[r % f->t.nr_bad_family] : NLMSG_NOOP;
		break;
	case 1:
		h->nlmsg_type = r % NLMSG_MIN_TYPE;
		break;
	case 2:
		h->nlmsg_flags &= ~NLM_F_REQUEST;
		break;
	default:
		msg_genl(m)->version = r;
		break;
	}
	return false;
}

/* An nlmsg_len too short for the genl header. */
static bool gen_shorthdr(struct fuzz *f, struct msg *m, char *at)
{
	msg_begin(m, at, f->family, REQ_ACK, TASKSTATS_CMD_GET);
	fill_rand(at + NLMSG_HDRLEN, GENL_HDRLEN);
	m->len = NLMSG_HDRLEN + below(GENL_HDRLEN);
	msg_hdr(m)->nlmsg_len = m->len;
	return false;
}

/* A good message with a few bits or bytes changed after its nlmsghdr. */
static bool gen_mutant(struct fuzz *f, struct msg *m, char *at)
{
	int i, n, off;
	__u64 v;

	switch (below(4)) {
	case 0:
		gen_get(f, m, at);
		break;
	case 1:
		gen_listener(f, m, at, false);
		break;
	case 2:
		gen_cgroup(f, m, at);
		break;
	default:
		gen_dump(f, m, at);
		break;
	}
	n = 1 + below(4);
	for (i = 0; i < n; i++) {
		off = NLMSG_HDRLEN + below(m->len - NLMSG_HDRLEN);
		v = rnd();
		if (v & 1)
			at[off] ^= 1 << ((v >> 1) & 7);
		else
			at[off] = v >> 8;
	}
	return false;
}

static bool gen_msg(struct fuzz *f, struct msg *m, char *at)
{
	__u32 k = below(100);

	if (k < 22)
		return gen_get(f, m, at);
	if (k < 30)
		return gen_multi(f, m, at);
	if (k < 36)
		return gen_badsize(f, m, at);
	if (k < 48)
		return gen_listener(f, m, at, true);
	if (k < 53)
		return gen_dump(f, m, at);
	if (k < 63)
		return gen_cgroup(f, m, at);
	if (k < 71)
		return gen_anycmd(f, m, at);
	if (k < 81)
		return gen_garbage(f, m, at);
	if (k < 85)
		return gen_truncated(f, m, at);
	if (k < 89)
		return gen_elsewhere(f, m, at);
	if (k < 92)
		return gen_shorthdr(f, m, at);
	return gen_mutant(f, m, at);
}

/* Header fields the kernel should not care about, and odd lengths. */
static void fuzz_header(struct msg *m)
{
	static const __u16 extra[] = {
		NLM_F_ECHO, NLM_F_ROOT, NLM_F_MATCH, NLM_F_ATOMIC, NLM_F_DUMP,
		NLM_F_MULTI, NLM_F_EXCL | NLM_F_CREATE, NLM_F_APPEND,
		NLM_F_DUMP_INTR, 0x8000,
	};
	struct nlmsghdr *h = msg_hdr(m);
	struct genlmsghdr *g = msg_genl(m);
	bool version = chance(60), reserved = chance(30), flags = chance(60);
	bool pid = chance(20), trim = chance(30);
	__u64 r = rnd();
	__u16 flag = extra[below(ARRAY_SIZE(extra))];

	if (version)
		g->version = r;
	if (reserved)
		g->reserved = r >> 8;
	if (flags)
		h->nlmsg_flags |= flag;
	if (pid)
		h->nlmsg_pid = r >> 24;
	/* An odd nlmsg_len cuts the last attribute; the next starts aligned. */
	if (trim && h->nlmsg_len > NLMSG_LENGTH(GENL_HDRLEN) + NLA_HDRLEN)
		h->nlmsg_len -= 1 + (r >> 56) % 3;
}

/* A message whose nlmsg_len lies: netlink_rcv_skb() drops it silently. */
static void gen_lying(struct fuzz *f, struct msg *m, char *at)
{
	__u32 v = below(4);
	__u64 r = rnd();
	struct nlmsghdr *h;

	gen_get(f, m, at);
	h = msg_hdr(m);
	switch (v) {
	case 0:
		h->nlmsg_len = m->len + 1 + r % 64;
		break;
	case 1:
		h->nlmsg_len = 0xffffffff;
		break;
	case 2:
		h->nlmsg_len = r % NLMSG_HDRLEN;
		break;
	default:
		h->nlmsg_len = m->len + 65536;
		break;
	}
}

/* ------------------------------------------------------------ predictor */

/* Whether an attribute passes the family's (liberal) policy. */
static bool attr_valid(bool cg, int type, int len)
{
	if (cg)
		return len >= 4;			/* NLA_U32 */
	switch (type) {
	case TASKSTATS_CMD_ATTR_PID:
	case TASKSTATS_CMD_ATTR_TGID:
	case TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD:
		return len >= 4;			/* NLA_U32 */
	case TASKSTATS_CMD_ATTR_REGISTER_CPUMASK:
	case TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK:
		return len >= 1;			/* NLA_STRING */
	default:
		return len == 0;			/* NLA_FLAG */
	}
}

/*
 * The attributes as the kernel's liberal parse sees them: the walk stops
 * at the first one that does not fit, types beyond @maxattr are ignored,
 * the last of a type wins. Returns false if one fails the policy.
 */
static bool parse_req(const struct nlmsghdr *h, int maxattr, bool cg,
		      const struct nlattr **tb)
{
	const char *p = (const char *)h + NLMSG_LENGTH(GENL_HDRLEN);
	int rem = (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

	memset(tb, 0, sizeof(*tb) * (maxattr + 1));
	while (rem >= NLA_HDRLEN) {
		const struct nlattr *na = (const struct nlattr *)p;
		int type = na->nla_type & NLA_TYPE_MASK;

		if (na->nla_len < NLA_HDRLEN || na->nla_len > rem)
			break;
		if (type >= 1 && type <= maxattr) {
			if (!attr_valid(cg, type, na->nla_len - NLA_HDRLEN))
				return false;
			tb[type] = na;
		}
		p += NLA_ALIGN(na->nla_len);
		rem -= NLA_ALIGN(na->nla_len);
	}
	return true;
}

static __u32 attr_u32(const struct nlattr *na)
{
	__u32 v;

	memcpy(&v, na + 1, sizeof(v));
	return v;
}

/*
 * Whether cgroupstats of fd @v may answer with a record on upstream's
 * kernel: only a directory of a cgroup v1 hierarchy can (fdget() skips
 * O_PATH files, a closed fd is answered with nothing, anything else with
 * EINVAL).
 */
static __u8 cg_classify(const struct fuzz *f, __u32 v)
{
	struct statfs sfs;
	struct stat st;
	int fl;

	if (f->dry)
		return CGX_ANY;
	if (v > INT_MAX)
		return CGX_NONE;
	fl = fcntl((int)v, F_GETFL);
	if (fl < 0 || (fl & O_PATH))
		return CGX_NONE;
	if (fstatfs((int)v, &sfs) || fstat((int)v, &st))
		return CGX_ANY;
	if (sfs.f_type == CGROUP_SUPER_MAGIC && S_ISDIR(st.st_mode))
		return CGX_REPLY;
	return CGX_NONE;
}

/* What fd @v is, found out with the fuzzer's own syscalls. */
static __u8 fd_probe(__u32 v)
{
	struct statfs sfs;
	struct stat st;
	int fl;

	if (v > INT_MAX)
		return FDC_CLOSED;	/* beyond any fd table */
	fl = fcntl((int)v, F_GETFL);
	if (fl < 0)
		return errno == EBADF ? FDC_CLOSED : FDC_ANY;
	if (fl & O_PATH)
		return FDC_OPATH;
	if (fstatfs((int)v, &sfs) || fstat((int)v, &st))
		return FDC_ANY;
	if (!S_ISDIR(st.st_mode))
		return FDC_OTHER;
	if (sfs.f_type == CGROUP2_SUPER_MAGIC)
		return FDC_V2;
	if (sfs.f_type == CGROUP_SUPER_MAGIC)
		return FDC_V1;
	return FDC_OTHER;
}

/*
 * What fd @v is, and *@kind which of the targets' cg_fd it is (CG_NONE
 * for another): those were classified once, when opened; only they can
 * be a removed cgroup.
 */
static __u8 fd_class(const struct fuzz *f, __u32 v, __u8 *kind)
{
	int i;

	*kind = CG_NONE;
	if (f->dry)
		return FDC_ANY;
	for (i = 0; i < CG_NR && v <= INT_MAX; i++) {
		if (f->t.cg_fd[i] == (int)v) {
			*kind = i;
			return f->t.cg_class[i];
		}
	}
	return fd_probe(v);
}

/*
 * The -errno an fd of class @c gets at the start of a cgroup's dump, and
 * from cgroupstats (this series' kernel): 0 for one that works.
 */
static int fd_errno(__u8 c)
{
	switch (c) {
	case FDC_CLOSED:
	case FDC_OPATH:
		return -EBADF;
	case FDC_OTHER:
		return -EINVAL;
	case FDC_GONE:
		return -ENOENT;
	default:
		return 0;
	}
}

/* Whether a task in cgroup @task is in a dump of cgroup @dump. */
static bool node_in(__u8 task, __u8 dump, bool subtree)
{
	if (task == dump)
		return true;
	if (!subtree)
		return false;
	return dump == NODE_ROOT || (dump == NODE_CHILD && task == NODE_SUB);
}

/*
 * Which of the watched tasks a dump of the cgroup of kind @kind must list
 * (if it ends cleanly) and which it must not.
 */
static void predict_watch(const struct fuzz *f, __u8 kind, bool tgid,
			  struct req *r)
{
	__u8 dump = kind == CG_V2 ? NODE_ROOT : kind == CG_V2CHILD ? NODE_CHILD :
		    kind == CG_V2SUB ? NODE_SUB : NODE_UNKNOWN;
	int i;

	if (dump == NODE_UNKNOWN)
		return;
	for (i = 0; i < f->t.nr_watch; i++) {
		const struct watch *w = &f->t.watch[i];

		if (w->node == NODE_UNKNOWN || (tgid && w->thread))
			continue;
		if (!node_in(w->node, dump, r->subtree))
			r->forbid |= 1 << i;
		else if (w->must)
			r->must |= 1 << i;
	}
}

/* A dump (NLM_F_DUMP) of TASKSTATS_CMD_GET that passes the policy. */
static void predict_dump(const struct fuzz *f, const struct nlattr **tb,
			 struct req *r)
{
	const struct nlattr *fd = tb[TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD];
	bool tgid = tb[TASKSTATS_CMD_ATTR_DUMP_TGID];
	__u8 c;

	r->exp = EXP_DUMP;
	r->aggr = tgid ? TASKSTATS_TYPE_AGGR_TGID : TASKSTATS_TYPE_AGGR_PID;
	/* Upstream has no dump; its policy ignores these attributes. */
	if (!f->series)
		return;
	r->exact = !f->dry;
	r->subtree = tb[TASKSTATS_CMD_ATTR_DUMP_SUBTREE];
	if (r->subtree && !fd) {
		r->exp = EXP_ERR;
		r->want = EINVAL;
		return;
	}
	if (!fd)
		return;
	r->cgdump = true;
	c = fd_class(f, attr_u32(fd), &r->cg_kind);
	if (c == FDC_ANY) {
		r->exact = false;
		return;
	}
	r->want = -fd_errno(c);
	if (r->want)
		r->exp = EXP_ERR;
	else
		predict_watch(f, r->cg_kind, tgid, r);
}

/* CGROUPSTATS_CMD_GET of fd @v. */
static void predict_cgroupstats(const struct fuzz *f, __u32 v, struct req *r)
{
	__u8 c;

	r->exp = EXP_CG;
	if (!f->series) {
		r->cg = cg_classify(f, v);
		return;
	}
	c = fd_class(f, v, &r->cg_kind);
	if (c == FDC_ANY) {
		r->cg = CGX_ANY;
		return;
	}
	r->exact = true;
	r->want = -fd_errno(c);
	r->cg = c == FDC_V1 || c == FDC_V2 ? CGX_REPLY : CGX_NONE;
	r->cg_one = r->cg == CGX_REPLY && r->cg_kind == CG_V2SUB && f->t.sub_one;
}

static void predict(const struct fuzz *f, const struct nlmsghdr *h, bool lying,
		    struct req *r)
{
	const struct genlmsghdr *g = NLMSG_DATA(h);
	bool dump = (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	const struct nlattr *tb[TASKSTATS_CMD_ATTR_MAX + 1] = { NULL };

	if (lying) {
		r->exp = EXP_NONE;
		return;
	}
	if (!(h->nlmsg_flags & NLM_F_REQUEST) ||
	    h->nlmsg_type < NLMSG_MIN_TYPE) {
		r->exp = EXP_ACK;
		return;
	}
	r->exp = EXP_ERR;
	if (h->nlmsg_type != f->family ||
	    h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return;
	if (g->cmd == TASKSTATS_CMD_GET) {
		if (!parse_req(h, f->get_maxattr, false, tb))
			return;
		if (dump) {
			predict_dump(f, tb, r);
		} else if (tb[TASKSTATS_CMD_ATTR_REGISTER_CPUMASK]) {
			r->exp = EXP_LISTEN;
			r->reg = true;
		} else if (tb[TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK]) {
			r->exp = EXP_LISTEN;
		} else if (tb[TASKSTATS_CMD_ATTR_PID]) {
			r->exp = EXP_GET;
			r->aggr = TASKSTATS_TYPE_AGGR_PID;
			r->id = attr_u32(tb[TASKSTATS_CMD_ATTR_PID]);
		} else if (tb[TASKSTATS_CMD_ATTR_TGID]) {
			r->exp = EXP_GET;
			r->aggr = TASKSTATS_TYPE_AGGR_TGID;
			r->id = attr_u32(tb[TASKSTATS_CMD_ATTR_TGID]);
		}
		return;
	}
	if (g->cmd != CGROUPSTATS_CMD_GET || dump)
		return;
	if (!parse_req(h, CGROUPSTATS_CMD_ATTR_MAX, true, tb) ||
	    !tb[CGROUPSTATS_CMD_ATTR_FD])
		return;
	predict_cgroupstats(f, attr_u32(tb[CGROUPSTATS_CMD_ATTR_FD]), r);
}

/* ------------------------------------------------------------- datagram */

/* Gives the message just laid out its seq and expectation. */
static void finish(struct fuzz *f, struct msg *m, bool lying)
{
	struct req *r = &f->req[f->nreq++];
	struct nlmsghdr *h = msg_hdr(m);

	memset(r, 0, sizeof(*r));
	h->nlmsg_seq = ++f->seq;
	r->seq = h->nlmsg_seq;
	r->off = f->txlen;
	r->size = lying ? m->len : (int)NLMSG_ALIGN(h->nlmsg_len);
	r->cg_kind = CG_NONE;
	predict(f, h, lying, r);
	/*
	 * A socket runs one dump at a time: while an earlier one of the
	 * datagram still runs, a dump is refused with EBUSY.
	 */
	if (!lying && (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP)
		r->busy_ok = f->dumps > 0;
	if (r->exp == EXP_DUMP)
		f->dumps++;
	f->txlen += r->size;
}

/*
 * Lays a datagram out: 1 to 64 messages, a big one last, a lying one
 * last or alone, sometimes a few stray bytes after the last (fewer than
 * a header: ignored).
 */
static void build_datagram(struct fuzz *f)
{
	__u32 want = chance(250) ? 1 : 2 + below(MAX_BATCH - 1);
	bool lie, junk;
	struct msg m;

	f->use_sendto = chance(700);
	f->txlen = 0;
	f->nreq = 0;
	f->dumps = 0;
	f->seq_base = f->seq + 1;
	while ((__u32)f->nreq < want && f->c.messages + f->nreq < f->budget) {
		bool big = gen_msg(f, &m, f->tx + f->txlen);

		fuzz_header(&m);
		if (!big && m.len > MSG_ROOM) {
			fprintf(stderr, "taskstats_fuzz: message of %d bytes\n",
				m.len);
			exit(2);
		}
		finish(f, &m, false);
		if (big)
			break;
	}
	lie = chance(40);
	junk = chance(20);
	if (lie && f->c.messages + f->nreq < f->budget) {
		gen_lying(f, &m, f->tx + f->txlen);
		finish(f, &m, true);
	} else if (junk) {
		int n = 1 + below(NLMSG_HDRLEN - 1);

		fill_rand(f->tx + f->txlen, n);
		f->txlen += n;
	}
}

static void print_datagram(const struct fuzz *f)
{
	char what[64];
	int i;

	printf("# datagram %llu: %d messages, %d bytes, %s\n",
	       (unsigned long long)f->c.datagrams + 1, f->nreq, f->txlen,
	       f->use_sendto ? "sendto" : "send");
	for (i = 0; i < f->nreq; i++) {
		const struct req *r = &f->req[i];

		snprintf(what, sizeof(what), "seq %u %s", r->seq,
			 exp_name[r->exp]);
		print_hex(what, req_hdr(f, r), r->size);
	}
}

/* ---------------------------------------------------------------- socket */

static int nl_socket(int *portid)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	socklen_t alen = sizeof(addr);
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(fd, (struct sockaddr *)&addr, &alen)) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (portid)
		*portid = addr.nl_pid;
	return fd;
}

/*
 * Asks the genl controller about one family, by name or by id. Returns
 * its id, or -errno.
 */
static int ctrl_family(int fd, __u16 attr, const void *data, int len)
{
	struct sockaddr_nl dst = { .nl_family = AF_NETLINK };
	static __u64 words[4096];
	char *buf = (char *)words;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int id = -ENOENT;
	char req[256];
	struct msg m;

	msg_begin(&m, req, GENL_ID_CTRL, REQ_ACK, CTRL_CMD_GETFAMILY);
	put(&m, attr, data, len);
	msg_hdr(&m)->nlmsg_seq = 1;
	if (sendto(fd, req, m.len, 0, (struct sockaddr *)&dst, sizeof(dst)) < 0)
		return -errno;
	for (;;) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		ssize_t n;
		int rem;

		if (poll(&p, 1, 5000) <= 0)
			return -ETIMEDOUT;
		n = recv(fd, buf, sizeof(words), 0);
		if (n < 0)
			return -errno;
		for (rem = n; rem >= NLMSG_HDRLEN && h->nlmsg_len >= NLMSG_HDRLEN &&
		     (int)h->nlmsg_len <= rem;
		     rem -= NLMSG_ALIGN(h->nlmsg_len),
		     h = (const void *)((const char *)h + NLMSG_ALIGN(h->nlmsg_len))) {
			const struct nlattr *na;
			int arem;

			if (h->nlmsg_seq != 1)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error ? e->error : id;
			}
			na = (const void *)((const char *)h + NLMSG_LENGTH(GENL_HDRLEN));
			arem = (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
			while (arem >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
			       na->nla_len <= arem) {
				if (na->nla_type == CTRL_ATTR_FAMILY_ID) {
					__u16 v;

					memcpy(&v, na + 1, sizeof(v));
					id = v;
				}
				arem -= NLA_ALIGN(na->nla_len);
				na = (const void *)((const char *)na +
						    NLA_ALIGN(na->nla_len));
			}
		}
	}
}

static int resolve_family(void)
{
	int fd = nl_socket(NULL);
	int id;

	if (fd < 0)
		return fd;
	id = ctrl_family(fd, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
			 sizeof(TASKSTATS_GENL_NAME));
	close(fd);
	return id;
}

/* Family ids the controller does not know: their requests get ENOENT. */
static void probe_bad_families(struct targets *t)
{
	static const __u16 cand[NR_BAD_FAMILY] = { 0x7ffe, 0xfffe, 0x1ffe, 0x3ffe };
	int fd = nl_socket(NULL);
	int i;

	if (fd < 0)
		return;
	for (i = 0; i < NR_BAD_FAMILY; i++)
		if (ctrl_family(fd, CTRL_ATTR_FAMILY_ID, &cand[i],
				sizeof(cand[i])) == -ENOENT)
			t->bad_family[t->nr_bad_family++] = cand[i];
	close(fd);
}

/* The run-time half of opening the fuzzing socket, with f's options. */
static void sock_reopen(struct fuzz *f)
{
	int ext = f->ext_ack, cap = f->cap_ack;
	int rcv = RCVBUF, snd = SNDBUF;
	int portid = 0;

	if (f->sock >= 0)
		close(f->sock);
	f->reg_tried = false;
	f->sock = nl_socket(&portid);
	if (f->sock < 0) {
		violation(f, NULL, NULL, "netlink socket: %s",
			  strerror(-f->sock));
		return;
	}
	f->portid = portid;
	if (setsockopt(f->sock, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv)))
		setsockopt(f->sock, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (setsockopt(f->sock, SOL_SOCKET, SO_SNDBUFFORCE, &snd, sizeof(snd)))
		setsockopt(f->sock, SOL_SOCKET, SO_SNDBUF, &snd, sizeof(snd));
	setsockopt(f->sock, SOL_NETLINK, NETLINK_EXT_ACK, &ext, sizeof(ext));
	setsockopt(f->sock, SOL_NETLINK, NETLINK_CAP_ACK, &cap, sizeof(cap));
}

/*
 * A fresh socket now and then drops its listener, so that registrations
 * do not pile up; when is drawn from the stream, as are its options.
 */
static void sock_open(struct fuzz *f)
{
	f->ext_ack = chance(500);
	f->cap_ack = chance(300);
	f->reopen_at = 100 + below(500);
	f->on_sock = 0;
	if (!f->dry)
		sock_reopen(f);
}

/* ---------------------------------------------------------- the checks */

static bool errno_documented(int err)
{
	switch (err) {
	case EINVAL:
	case EPERM:
	case ESRCH:
	case E2BIG:
	case ERANGE:
	case ENOMEM:
	case EOPNOTSUPP:
	case ENOENT:
	case ENOSPC:
	case EBUSY:
	case EINTR:
	case EAGAIN:
	case EMSGSIZE:
		return true;
	default:
		return false;
	}
}

/*
 * EOVERFLOW is cpulist_parse()'s answer to a number beyond 32 bits
 * ("4294967296"): legitimate for a listener request, and only there.
 * EBADF is this series' answer to a cgroup request naming a closed or
 * O_PATH fd, and only to those.
 */
static bool errno_ok(const struct req *r, int err)
{
	return errno_documented(err) || (err == EOVERFLOW && r->exp == EXP_LISTEN) ||
	       (err == EBADF && r->exact && r->want == EBADF);
}

/*
 * Whether error @err answers @r as predicted: exactly its errno, or EBUSY
 * for a dump while another runs, or ENOMEM, which any allocation allows.
 */
static bool errno_due(const struct req *r, int err)
{
	return !r->exact || err == r->want || err == ENOMEM ||
	       (err == EBUSY && r->busy_ok);
}

/* A cursor over attributes that insists on the kernel's own layout. */
struct walk {
	const char *p;
	int rem;
	bool bad;
};

static struct walk walk_start(const void *p, int len)
{
	struct walk w = { .p = p, .rem = len, .bad = len < 0 };

	return w;
}

static const struct nlattr *walk_next(struct walk *w)
{
	const struct nlattr *na = (const struct nlattr *)w->p;
	int step;

	if (w->bad || w->rem == 0)
		return NULL;
	if (w->rem < NLA_HDRLEN || na->nla_len < NLA_HDRLEN ||
	    na->nla_len > w->rem) {
		w->bad = true;
		return NULL;
	}
	step = NLA_ALIGN(na->nla_len);
	if (step > w->rem) {
		w->bad = true;
		return NULL;
	}
	w->p += step;
	w->rem -= step;
	return na;
}

enum { IO_OK, IO_GONE, IO_DENIED, IO_OTHER };

static int io_errno(int err)
{
	if (err == ENOENT || err == ESRCH)
		return IO_GONE;
	if (err == EACCES || err == EPERM)
		return IO_DENIED;
	return IO_OTHER;
}

/*
 * Whether task @id is exiting, a zombie, dead or gone, by /proc/@id/stat:
 * its state, and PF_EXITING in its flags (the ninth field). Once its
 * memory is released, its /proc files are root's.
 */
static bool exited(__u32 id)
{
	unsigned long flags = 0;
	char path[32], buf[512], *p;
	char state;

	snprintf(path, sizeof(path), "/proc/%u/stat", id);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return true;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
		return true;
	return state == 'Z' || state == 'X' || (flags & 0x4);	/* PF_EXITING */
}

/*
 * Whether this process can open and read /proc/@id/io, the kernel's own
 * rule for a record. Successes are cached briefly: a refusal is always
 * checked afresh, so a reused pid cannot turn into a false leak.
 */
static int io_verdict(struct fuzz *f, __u32 id)
{
	struct io_entry *e = &f->io[id % IO_CACHE];
	__u64 now = now_ns();
	char path[32], buf[512];
	ssize_t n;
	int fd, err;

	if (e->id == id && now < e->until)
		return IO_OK;
	snprintf(path, sizeof(path), "/proc/%u/io", id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	err = errno;
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf));
		err = errno;
		close(fd);
		if (n >= 0)
			err = 0;
	}
	/*
	 * A task that exited since its record was built is root's in /proc
	 * (a zombie's files are): too late to judge, as if it were gone.
	 */
	if (io_errno(err) == IO_DENIED && exited(id))
		return IO_GONE;
	if (err)
		return io_errno(err);
	e->id = id;
	e->until = now + IO_CACHE_NS;
	return IO_OK;
}

/*
 * Whether pid @id was ever handed out in the container's pid namespace:
 * pids grow until they wrap at pid_max.
 */
static bool ns_had_pid(struct fuzz *f, __u32 id)
{
	char buf[32];
	__u32 last;

	if (read_file("/proc/sys/kernel/ns_last_pid", buf, sizeof(buf)) < 0)
		return true;
	last = strtoul(buf, NULL, 10);
	if (last < f->last_pid)
		f->pid_wrapped = true;
	f->last_pid = last;
	return f->pid_wrapped || (id >= 1 && id <= last);
}

/*
 * Who the task of a leaked record is: its status lines that decide access
 * (name, state, ids), for the first violations.
 */
static void show_task(struct fuzz *f, __u32 id)
{
	static const char * const keys[] = { "Name:", "State:", "Tgid:", "Uid:", "Gid:" };
	char path[32], buf[2048], *line, *save = NULL;

	if (!f->verbose && f->c.violations > SHOW_VIOLATIONS)
		return;
	snprintf(path, sizeof(path), "/proc/%u/status", id);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			if (!strncmp(line, keys[i], strlen(keys[i])))
				printf("#   %s\n", line);
	snprintf(path, sizeof(path), "/proc/%u/stat", id);
	if (read_file(path, buf, sizeof(buf)) >= 0)
		printf("#   stat: %.120s\n", buf);
}

/* No record of a task the sender may not read; see the top of the file. */
static void check_record(struct fuzz *f, const struct req *r,
			 const struct nlmsghdr *h, __u32 id)
{
	int v;

	f->c.records++;
	if (f->phase == PH_ROOT)
		return;
	v = io_verdict(f, id);
	if (v == IO_DENIED) {
		violation(f, r, h, "record of task %u, whose /proc/%u/io the %s phase cannot read",
			  id, id, phase_name[f->phase]);
		show_task(f, id);
	} else if (v == IO_GONE && f->phase == PH_CONTAINER && !ns_had_pid(f, id)) {
		violation(f, r, h, "record of %u, never a pid of this container", id);
	} else if (v == IO_OTHER) {
		f->c.io_errors++;
	}
}

/*
 * Checks one TASKSTATS_TYPE_AGGR_* nest: one id of its kind, one STATS of
 * a known version, nothing else but NULL pads. Returns NULL or why not.
 */
static const char *parse_aggr(const struct nlattr *aggr, __u32 *id)
{
	int id_type = aggr->nla_type == TASKSTATS_TYPE_AGGR_PID ?
		      TASKSTATS_TYPE_PID : TASKSTATS_TYPE_TGID;
	struct walk w = walk_start(aggr + 1, aggr->nla_len - NLA_HDRLEN);
	const struct nlattr *na;
	int ids = 0, stats = 0;
	__u16 version;

	while ((na = walk_next(&w))) {
		int len = na->nla_len - NLA_HDRLEN;

		if (na->nla_type == id_type) {
			if (len != sizeof(__u32))
				return "id of the wrong size";
			*id = attr_u32(na);
			ids++;
		} else if (na->nla_type == TASKSTATS_TYPE_NULL) {
			if (len)
				return "a NULL pad with a payload";
		} else if (na->nla_type == TASKSTATS_TYPE_STATS) {
			if (len < 4)
				return "STATS shorter than 4 bytes";
			memcpy(&version, na + 1, sizeof(version));
			if (version < 1 || version > TASKSTATS_VERSION)
				return "STATS of an unknown version";
			stats++;
		} else {
			return "an unexpected attribute";
		}
	}
	if (w.bad)
		return "attributes run past the aggregate";
	if (ids != 1 || stats != 1)
		return "not one id and one STATS";
	return NULL;
}

/* A cgroup's dump: a record of a watched task says where it is. */
static void check_watch(struct fuzz *f, struct req *r, const struct nlmsghdr *h,
			__u32 id)
{
	int i;

	for (i = 0; i < f->t.nr_watch; i++) {
		if (f->t.watch[i].id != id)
			continue;
		if (r->forbid & (1 << i))
			violation(f, r, h, "a dump of %s%s lists task %u, which is not in it",
				  cg_name[r->cg_kind], r->subtree ? " with its subtree" : "",
				  id);
		r->seen |= 1 << i;
	}
}

/* The aggregates of a TASKSTATS_CMD_NEW answering @r. */
static void parse_records(struct fuzz *f, struct req *r,
			  const struct nlmsghdr *h)
{
	struct walk w = walk_start((const char *)h + NLMSG_LENGTH(GENL_HDRLEN),
				   h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
	const struct nlattr *na;
	const char *why;
	int n = 0;
	__u32 id = 0;

	while ((na = walk_next(&w))) {
		if (na->nla_type != r->aggr) {
			violation(f, r, h, "attribute %u where aggregate %u belongs",
				  na->nla_type, r->aggr);
			return;
		}
		why = parse_aggr(na, &id);
		if (why) {
			violation(f, r, h, "malformed record: %s", why);
			return;
		}
		n++;
		if (r->exp == EXP_GET && id != r->id)
			violation(f, r, h, "record of %u answers a GET of %u", id, r->id);
		if (r->exp == EXP_DUMP && r->cgdump) {
			if (r->must | r->forbid)
				check_watch(f, r, h, id);
		} else if (r->exp == EXP_DUMP) {
			if (r->seen_id && id <= r->id)
				violation(f, r, h, "dump record %u after %u: not in pid order",
					  id, r->id);
			r->id = id;
			r->seen_id = true;
		}
		check_record(f, r, h, id);
	}
	if (w.bad)
		violation(f, r, h, "attributes do not walk to the end of the message");
	else if (!n || (r->exp == EXP_GET && n != 1))
		violation(f, r, h, "%d records in one message", n);
}

/* The extended ACK attributes that may follow an error or a DONE. */
static void check_tlvs(struct fuzz *f, const struct req *r,
		       const struct nlmsghdr *h, __u32 off)
{
	const struct nlmsghdr *q = req_hdr(f, r);
	const struct nlattr *na;
	struct walk w;
	__u32 v;

	if (h->nlmsg_len < off) {
		violation(f, r, h, "answer of %u bytes, shorter than %u",
			  h->nlmsg_len, off);
		return;
	}
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS)) {
		if (h->nlmsg_len != off)
			violation(f, r, h, "%u stray bytes after the answer",
				  h->nlmsg_len - off);
		return;
	}
	if (!f->ext_ack)
		violation(f, r, h, "extended ACK without NETLINK_EXT_ACK");
	w = walk_start((const char *)h + off, h->nlmsg_len - off);
	while ((na = walk_next(&w))) {
		int len = na->nla_len - NLA_HDRLEN;

		if (na->nla_type == NLMSGERR_ATTR_OFFS) {
			if (len != sizeof(v)) {
				violation(f, r, h, "NLMSGERR_ATTR_OFFS of %d bytes", len);
				continue;
			}
			v = attr_u32(na);
			if (v < NLMSG_HDRLEN || v >= q->nlmsg_len)
				violation(f, r, h, "NLMSGERR_ATTR_OFFS %u outside the request",
					  v);
		} else if (na->nla_type == NLMSGERR_ATTR_MSG) {
			if (!len || !memchr(na + 1, '\0', len))
				violation(f, r, h, "NLMSGERR_ATTR_MSG without NUL");
		}
	}
	if (w.bad)
		violation(f, r, h, "extended ACK attributes do not walk to the end");
}

static void complete(struct fuzz *f, struct req *r)
{
	r->done = true;
	f->outstanding--;
}

/* The header, and unless capped the payload, of the request it answers. */
static void check_echo(struct fuzz *f, const struct req *r,
		       const struct nlmsghdr *h, int err)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	const struct nlmsghdr *q = req_hdr(f, r);
	bool capped = h->nlmsg_flags & NLM_F_CAPPED;
	__u32 off = NLMSG_LENGTH(sizeof(*e));
	__u32 echo = q->nlmsg_len - NLMSG_HDRLEN;

	if (memcmp(&e->msg, q, sizeof(*q)))
		violation(f, r, h, "the error does not echo the request's header");
	if (capped != (!err || f->cap_ack))
		violation(f, r, h, "NLM_F_CAPPED is %s for error %d with NETLINK_CAP_ACK %s",
			  capped ? "set" : "clear", err, f->cap_ack ? "on" : "off");
	if (!capped) {
		if (h->nlmsg_len < off + echo) {
			violation(f, r, h, "the echoed request is cut short");
			return;
		}
		if (memcmp(e + 1, (const char *)q + NLMSG_HDRLEN, echo))
			violation(f, r, h, "the echoed request is not the one sent");
		off += NLMSG_ALIGN(echo);
	}
	check_tlvs(f, r, h, off);
}

static void on_error(struct fuzz *f, struct req *r, const struct nlmsghdr *h)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	int err;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e))) {
		violation(f, r, h, "NLMSG_ERROR of %u bytes", h->nlmsg_len);
		if (!r->done && r->exp != EXP_NONE)
			complete(f, r);
		return;
	}
	err = -e->error;
	if (err)
		count_errno(f, err);
	if (err < 0 || err > 4095)
		violation(f, r, h, "error %d is no errno", e->error);
	check_echo(f, r, h, err);
	if (r->done) {
		violation(f, r, h, "a second answer (%s)", errno_name(err));
		return;
	}
	switch (r->exp) {
	case EXP_NONE:
		violation(f, r, h, "an answer (%s) to a message with a lying nlmsg_len",
			  errno_name(err));
		return;
	case EXP_ACK:
		if (err)
			violation(f, r, h, "%s for a message the kernel only acknowledges",
				  errno_name(err));
		break;
	case EXP_ERR:
		if (!err)
			violation(f, r, h, "a request that must fail was acknowledged");
		else if (!errno_due(r, err))
			violation(f, r, h, "%s where %s was due (a dump of %s)", errno_name(err),
				  errno_name(r->want), r->cgdump ? cg_name[r->cg_kind] :
				  "DUMP_SUBTREE without DUMP_CGROUP_FD");
		break;
	case EXP_LISTEN:
		if (f->phase == PH_USER && err != EPERM)
			violation(f, r, h, "an unprivileged listener request got %s, not EPERM",
				  err ? errno_name(err) : "0");
		break;
	case EXP_GET:
		if (!err && !r->replied)
			violation(f, r, h, "a GET acknowledged without its record");
		break;
	case EXP_CG:
		if (!err && !r->replied && r->cg == CGX_REPLY)
			violation(f, r, h,
				  "cgroupstats of a cgroup acknowledged without a record");
		if (!errno_due(r, err))
			violation(f, r, h, "cgroupstats of %s answered %s, not %s",
				  cg_name[r->cg_kind], err ? errno_name(err) : "0",
				  r->want ? errno_name(r->want) : "0");
		break;
	case EXP_DUMP:
		/*
		 * The dump started on a full socket: its first part did not
		 * fit, the rest comes as we read, then NLMSG_DONE.
		 */
		if (err == ENOBUFS) {
			f->c.dump_nobufs++;
			r->nobufs = true;
			return;
		}
		if (!err)
			violation(f, r, h, "a dump acknowledged: it must end with NLMSG_DONE");
		else if (!errno_due(r, err))
			violation(f, r, h, "a dump of %s failed to start: %s",
				  r->cgdump ? cg_name[r->cg_kind] : "every task",
				  errno_name(err));
		break;
	}
	if (err && r->replied)
		violation(f, r, h, "a record and then %s", errno_name(err));
	if (err && !errno_ok(r, err))
		violation(f, r, h, "undocumented errno %s", errno_name(err));
	complete(f, r);
}

/*
 * A cgroup's dump ended with 0: every watched task due in it was listed,
 * unless answers may have been lost (the dump started on a full socket,
 * or the socket overran during this datagram).
 */
static void check_cgroup_dump(struct fuzz *f, struct req *r,
			      const struct nlmsghdr *h)
{
	__u8 missed = r->must & ~r->seen;
	int i;

	f->c.cg_dumps++;
	if (!r->must || r->nobufs || f->c.overruns != f->overruns_at)
		return;
	f->c.cg_checked++;
	for (i = 0; i < f->t.nr_watch && missed; i++)
		if (missed & (1 << i))
			violation(f, r, h, "a dump of %s%s%s left out task %u, which is in it",
				  cg_name[r->cg_kind], r->subtree ? " with its subtree" : "",
				  r->aggr == TASKSTATS_TYPE_AGGR_TGID ? " by tgid" : "",
				  f->t.watch[i].id);
}

static void on_done(struct fuzz *f, struct req *r, const struct nlmsghdr *h)
{
	int err = 0, v;

	if (r->exp != EXP_DUMP)
		violation(f, r, h, "NLMSG_DONE answers a request that is no dump");
	if (!(h->nlmsg_flags & NLM_F_MULTI))
		violation(f, r, h, "NLMSG_DONE without NLM_F_MULTI");
	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(int))) {
		violation(f, r, h, "NLMSG_DONE of %u bytes", h->nlmsg_len);
	} else {
		memcpy(&v, NLMSG_DATA(h), sizeof(v));
		err = -v;
		if (err)
			count_errno(f, err);
		if (err < 0 || (err && !errno_ok(r, err)))
			violation(f, r, h, "dump ended with %s", errno_name(err));
		check_tlvs(f, r, h, NLMSG_LENGTH(sizeof(int)));
	}
	if (r->done) {
		violation(f, r, h, "a second NLMSG_DONE");
		return;
	}
	if (r->exp == EXP_DUMP && r->cgdump && !err)
		check_cgroup_dump(f, r, h);
	if (r->exp != EXP_NONE)
		complete(f, r);
}

/* The counts of V2_SUB, which holds one task, sleeping in pause(). */
static void check_one_sleeper(struct fuzz *f, const struct req *r,
			      const struct nlmsghdr *h, const struct nlattr *na)
{
	struct cgroupstats cs;

	memcpy(&cs, na + 1, sizeof(cs));
	if (cs.nr_sleeping != 1 || cs.nr_running || cs.nr_stopped ||
	    cs.nr_uninterruptible || cs.nr_io_wait)
		violation(f, r, h, "%s (one sleeper): %llu S, %llu R, %llu T, %llu D, %llu io",
			  V2_SUB, (unsigned long long)cs.nr_sleeping,
			  (unsigned long long)cs.nr_running,
			  (unsigned long long)cs.nr_stopped,
			  (unsigned long long)cs.nr_uninterruptible,
			  (unsigned long long)cs.nr_io_wait);
}

static void on_cgroupstats(struct fuzz *f, struct req *r,
			   const struct nlmsghdr *h)
{
	struct walk w = walk_start((const char *)h + NLMSG_LENGTH(GENL_HDRLEN),
				   h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
	const struct nlattr *na;
	int n = 0;

	if (r->exp != EXP_CG || r->cg == CGX_NONE)
		violation(f, r, h, "a cgroupstats record answers a request for none");
	if (r->replied)
		violation(f, r, h, "a second cgroupstats record");
	r->replied = true;
	if (h->nlmsg_flags & NLM_F_MULTI)
		violation(f, r, h, "cgroupstats record with NLM_F_MULTI");
	while ((na = walk_next(&w))) {
		if (na->nla_type != CGROUPSTATS_TYPE_CGROUP_STATS ||
		    na->nla_len - NLA_HDRLEN < (int)sizeof(struct cgroupstats))
			violation(f, r, h, "cgroupstats attribute %u of %u bytes",
				  na->nla_type, na->nla_len);
		else if (r->cg_one)
			check_one_sleeper(f, r, h, na);
		n++;
	}
	if (w.bad || n != 1)
		violation(f, r, h, "malformed cgroupstats record (%d attributes)", n);
}

/* A TASKSTATS_CMD_NEW or CGROUPSTATS_CMD_NEW answering @r. */
static void on_new(struct fuzz *f, struct req *r, const struct nlmsghdr *h)
{
	const struct genlmsghdr *g = NLMSG_DATA(h);
	bool multi = h->nlmsg_flags & NLM_F_MULTI;

	if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN)) {
		violation(f, r, h, "a family message of %u bytes", h->nlmsg_len);
		return;
	}
	if (r->done)
		violation(f, r, h, "a record after the request was answered");
	if (g->version != TASKSTATS_GENL_VERSION || g->reserved)
		violation(f, r, h, "genl header version %u reserved %u",
			  g->version, g->reserved);
	if (g->cmd == CGROUPSTATS_CMD_NEW) {
		on_cgroupstats(f, r, h);
		return;
	}
	if (g->cmd != TASKSTATS_CMD_NEW) {
		violation(f, r, h, "an answer with command %u", g->cmd);
		return;
	}
	if (r->exp == EXP_GET) {
		if (multi)
			violation(f, r, h, "a GET's record with NLM_F_MULTI");
		if (r->replied)
			violation(f, r, h, "a second record for one GET");
		r->replied = true;
	} else if (r->exp == EXP_DUMP) {
		if (!multi)
			violation(f, r, h, "a dump's records without NLM_F_MULTI");
	} else {
		violation(f, r, h, "a taskstats record answers a request for none");
		return;
	}
	parse_records(f, r, h);
}

/* An exit record heard by a listener: port id 0, a seq of its CPU. */
static void on_event(struct fuzz *f, const struct nlmsghdr *h)
{
	const struct genlmsghdr *g = NLMSG_DATA(h);
	struct walk w = walk_start((const char *)h + NLMSG_LENGTH(GENL_HDRLEN),
				   h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
	const struct nlattr *na;
	const char *why;
	int n = 0;
	__u32 id = 0;

	f->c.events++;
	/*
	 * Upstream sends exit records to a listener's port id, and keeps a
	 * closed listener until a send to it fails: a new socket bound to
	 * the same port id gets them. Its known weakness, not a finding of
	 * ours; this series sends to the registered socket only.
	 */
	if (!f->series && (!f->reg_tried || f->phase == PH_USER))
		f->c.strays++;
	else if (!f->reg_tried || f->phase == PH_USER)
		violation(f, NULL, h, "an exit record on a socket that %s",
			  f->reg_tried ? "may not listen" : "never registered");
	if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
	    g->cmd != TASKSTATS_CMD_NEW || (h->nlmsg_flags & NLM_F_MULTI)) {
		violation(f, NULL, h, "a malformed exit message");
		return;
	}
	while ((na = walk_next(&w))) {
		int want = n ? TASKSTATS_TYPE_AGGR_TGID : TASKSTATS_TYPE_AGGR_PID;

		if (na->nla_type != want || n == 2) {
			violation(f, NULL, h, "exit record: attribute %u", na->nla_type);
			return;
		}
		why = parse_aggr(na, &id);
		if (why) {
			violation(f, NULL, h, "malformed exit record: %s", why);
			return;
		}
		n++;
		check_record(f, NULL, h, id);
	}
	if (w.bad || !n)
		violation(f, NULL, h, "exit message does not walk to its end");
}

static void on_message(struct fuzz *f, const struct nlmsghdr *h)
{
	__u32 idx = h->nlmsg_seq - f->seq_base;
	struct req *r;

	f->c.replies++;
	if (h->nlmsg_pid == 0 && h->nlmsg_type == f->family) {
		on_event(f, h);
		return;
	}
	if (h->nlmsg_pid != f->portid) {
		violation(f, NULL, h, "an answer for port %u on port %u",
			  h->nlmsg_pid, f->portid);
		return;
	}
	if (idx >= (__u32)f->nreq) {
		violation(f, NULL, h, "an answer to seq %u, not in flight",
			  h->nlmsg_seq);
		return;
	}
	r = &f->req[idx];
	if (h->nlmsg_type == NLMSG_ERROR)
		on_error(f, r, h);
	else if (h->nlmsg_type == NLMSG_DONE)
		on_done(f, r, h);
	else if (h->nlmsg_type == f->family)
		on_new(f, r, h);
	else
		violation(f, r, h, "an answer of type %u", h->nlmsg_type);
}

static void on_datagram(struct fuzz *f, const char *buf, int len)
{
	int rem = len;

	while (rem >= NLMSG_HDRLEN) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;

		if (h->nlmsg_len < NLMSG_HDRLEN || (int)h->nlmsg_len > rem) {
			violation(f, NULL, NULL, "a message of %u bytes in %d",
				  h->nlmsg_len, rem);
			return;
		}
		on_message(f, h);
		rem -= NLMSG_ALIGN(h->nlmsg_len);
		buf += NLMSG_ALIGN(h->nlmsg_len);
	}
	if (rem)
		violation(f, NULL, NULL, "%d stray bytes at the end of a datagram", rem);
}

/* -------------------------------------------------------- send and read */

static void send_datagram(struct fuzz *f)
{
	struct sockaddr_nl dst = { .nl_family = AF_NETLINK };
	ssize_t n;
	int i;

	f->outstanding = 0;
	if (f->sock < 0)
		return;
	for (i = 0; i < f->nreq; i++) {
		struct req *r = &f->req[i];

		if (r->exp == EXP_NONE)
			r->done = true;
		else
			f->outstanding++;
		if (r->exp == EXP_LISTEN && r->reg)
			f->reg_tried = true;
	}
	do {
		if (f->use_sendto)
			n = sendto(f->sock, f->tx, f->txlen, 0,
				   (struct sockaddr *)&dst, sizeof(dst));
		else
			n = send(f->sock, f->tx, f->txlen, 0);
	} while (n < 0 && errno == EINTR);
	if (n != f->txlen) {
		if (f->c.send_errors++ < 5)
			printf("# %s: sendmsg of %d bytes: %s\n",
			       phase_name[f->phase], f->txlen,
			       n < 0 ? strerror(errno) : "short");
		f->outstanding = 0;
		return;
	}
	f->c.expected += f->outstanding;
}

/* Messages read that answer a request: every one but the exit records. */
static __u64 answers_read(const struct fuzz *f)
{
	return f->c.replies - f->c.events;
}

/*
 * Reads answers until every message of the datagram is accounted for.
 * They are queued already; only a dump is continued by our reads. A
 * message still unanswered after DRAIN_MS without an answer (exit
 * records do not count) is missing, and the socket is replaced so that
 * nothing late lingers on it.
 */
static void drain(struct fuzz *f)
{
	static struct mmsghdr mm[RX_SLOTS];
	static struct iovec iov[RX_SLOTS];
	struct pollfd p = { .fd = f->sock, .events = POLLIN };
	__u64 answers = answers_read(f), now;
	__u64 quiet_until = now_ns() + DRAIN_MS * 1000000ULL;
	int i, n;

	f->overruns_at = f->c.overruns;
	for (i = 0; i < RX_SLOTS; i++) {
		iov[i].iov_base = rx_words[i];
		iov[i].iov_len = RX_SLOT;
		memset(&mm[i].msg_hdr, 0, sizeof(mm[i].msg_hdr));
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	while (f->outstanding > 0) {
		n = recvmmsg(f->sock, mm, RX_SLOTS, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				f->c.overruns++;
				continue;
			}
			if (errno != EAGAIN) {
				violation(f, NULL, NULL, "recvmmsg: %s", strerror(errno));
				break;
			}
			/*
			 * Silence is of answers: the exits a listener hears
			 * never stop in a phase whose tasks keep exiting.
			 */
			now = now_ns();
			if (now >= quiet_until)
				break;
			n = poll(&p, 1, (quiet_until - now) / 1000000 + 1);
			if (n > 0 || (n < 0 && errno == EINTR))
				continue;
			break;
		}
		for (i = 0; i < n; i++) {
			if (mm[i].msg_hdr.msg_flags & MSG_TRUNC)
				violation(f, NULL, NULL, "an answer longer than %d bytes",
					  RX_SLOT);
			else
				on_datagram(f, (const char *)rx_words[i], mm[i].msg_len);
		}
		if (answers_read(f) != answers) {
			answers = answers_read(f);
			quiet_until = now_ns() + DRAIN_MS * 1000000ULL;
		}
	}
	if (f->outstanding <= 0)
		return;
	f->c.missing += f->outstanding;
	if (f->c.overruns == f->overruns_at)
		violation(f, NULL, NULL, "%d answers missing, no overrun lost them",
			  f->outstanding);
	for (i = 0; i < f->nreq && f->verbose; i++) {
		const struct req *r = &f->req[i];

		if (r->done)
			continue;
		printf("# %s: no answer to seq %u (expected %s)\n",
		       phase_name[f->phase], r->seq, exp_name[r->exp]);
		print_hex("request", req_hdr(f, r), r->size);
	}
	sock_reopen(f);
}

/* -------------------------------------------------------------- helpers */

static void *idle_thread(void *arg)
{
	int *fds = arg;
	__u32 tid = syscall(SYS_gettid);

	if (write(fds[1], &tid, sizeof(tid)) != sizeof(tid))
		return NULL;
	for (;;)
		pause();
	return NULL;
}

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

/* A short-lived child of the spawner: sometimes with a second thread. */
static void ephemeral(__u64 r)
{
	pthread_t t;

	if (!(r & 3))
		pthread_create(&t, NULL, sleeper, NULL);
	usleep((r >> 8) % 3000);
	_exit(0);
}

/*
 * Forks short-lived children for as long as @parent lives and writes
 * their pids to @wfd (non-blocking: when nobody reads, pids are lost).
 */
static void spawner(int wfd, pid_t parent, __u64 seed)
{
	int live = 0;

	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	fcntl(wfd, F_SETFL, O_NONBLOCK);
	rng_state = seed;
	while (getppid() == parent) {
		__u64 r = rnd();
		pid_t pid;

		while (waitpid(-1, NULL, WNOHANG) > 0)
			live--;
		pid = live < 4 ? fork() : -1;
		if (pid == 0)
			ephemeral(r);
		if (pid > 0) {
			__u32 v = pid;

			live++;
			if (write(wfd, &v, sizeof(v)) != sizeof(v))
				v = 0;
		}
		usleep(2000 + (r >> 16) % 8000);
	}
	_exit(0);
}

static void refill_exiting(struct fuzz *f)
{
	struct targets *t = &f->t;
	__u32 pids[NR_EXITING];
	ssize_t n;
	int i;

	if (t->spawn_fd < 0)
		return;
	n = read(t->spawn_fd, pids, sizeof(pids));
	for (i = 0; i < n / (ssize_t)sizeof(pids[0]); i++) {
		t->exiting[t->exit_head++ % NR_EXITING] = pids[i];
		if (t->nr_exiting < NR_EXITING)
			t->nr_exiting++;
	}
}

/* A few kernel threads, by PF_KTHREAD in field 9 of /proc/PID/stat. */
static void find_kthreads(struct targets *t)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int scanned = 0;

	if (!d)
		return;
	while ((e = readdir(d)) && t->nr_kthread < NR_KTHREAD && scanned < 4096) {
		char path[300], buf[1024];
		unsigned long flags;
		char *p;
		int i;

		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		scanned++;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (read_file(path, buf, sizeof(buf)) < 0)
			continue;
		p = strrchr(buf, ')');
		/* after ") ": state ppid pgrp session tty_nr tpgid flags */
		for (i = 0; p && i < 7; i++)
			p = strchr(p + 1, ' ');
		if (!p)
			continue;
		flags = strtoul(p + 1, NULL, 10);
		if (flags & KTHREAD_FLAG)
			t->kthread[t->nr_kthread++] = strtoul(e->d_name, NULL, 10);
	}
	closedir(d);
}

/* An fd number surely closed: high, and this process opens few files. */
static int closed_fd(void)
{
	int fd;

	for (fd = 900; fd < 1000; fd++)
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
			return fd;
	return INT_MAX;
}

static void open_cgroup_fds(struct targets *t)
{
	int i;

	t->cg_fd[CG_CLOSED] = closed_fd();
	t->cg_fd[CG_OPATH] = open(V2_ROOT, O_PATH | O_CLOEXEC);
	t->cg_fd[CG_FILE] = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
	if (t->cg_fd[CG_FILE] < 0)
		t->cg_fd[CG_FILE] = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	t->cg_fd[CG_TMP] = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t->cg_fd[CG_V2] = open(V2_ROOT, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t->cg_fd[CG_V2CHILD] = open(V2_CHILD, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t->cg_fd[CG_V2SUB] = open(V2_SUB, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t->cg_fd[CG_V2GONE] = v2_gone_fd;	/* the parent's, inherited */
	t->cg_fd[CG_V1ROOT] = open(V1_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	t->cg_fd[CG_V1CHILD] = open(V1_CHILD, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; i < CG_NR; i++) {
		if (t->cg_fd[i] < 0)
			t->cg_fd[i] = t->cg_fd[CG_CLOSED];
		t->cg_class[i] = fd_probe(t->cg_fd[i]);
	}
	/* Only the parent knows it is removed: to fstat() it is a cgroup's. */
	if (t->cg_fd[CG_V2GONE] != t->cg_fd[CG_CLOSED] &&
	    t->cg_class[CG_V2GONE] == FDC_V2)
		t->cg_class[CG_V2GONE] = FDC_GONE;
	t->sub_one = v2_sub_one && t->cg_class[CG_V2SUB] == FDC_V2;
}

/* Where task @id is in the cgroup v2 hierarchy, by /proc/@id/cgroup. */
static __u8 task_node(__u32 id)
{
	char path[40], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%u/cgroup", id);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return NODE_UNKNOWN;
	/* The v2 line is "0::PATH", the first or after v1's "N:...:PATH". */
	p = !strncmp(buf, "0::", 3) ? buf : strstr(buf, "\n0::");
	if (!p)
		return NODE_UNKNOWN;
	p += *p == '\n' ? 4 : 3;
	p[strcspn(p, "\n")] = '\0';
	if (!strcmp(p, "/"))
		return NODE_ROOT;
	if (!strcmp(p, V2_CHILD + strlen(V2_ROOT)))
		return NODE_CHILD;
	if (!strcmp(p, V2_SUB + strlen(V2_ROOT)))
		return NODE_SUB;
	if (!strncmp(p, V2_CHILD + strlen(V2_ROOT), strlen(V2_CHILD) - strlen(V2_ROOT)))
		return NODE_UNKNOWN;	/* ts-fuzz*: another run's */
	return NODE_OUT;
}

/*
 * Watches task @id in cgroup dumps: it must be listed where it is, if
 * @must (it is readable there), and nowhere else. Only a task that
 * stays in one cgroup through the phase, as every one watched does.
 */
static void watch_task(struct targets *t, __u32 id, bool thread, bool must)
{
	struct watch *w = &t->watch[t->nr_watch];

	if (!id || t->nr_watch == NR_WATCH || t->cg_class[CG_V2] != FDC_V2 ||
	    !v2_paths_ok)
		return;
	w->id = id;
	w->node = task_node(id);
	w->thread = thread;
	w->must = must;
	if (w->node != NODE_UNKNOWN)
		t->nr_watch++;
}

/* Values a dry run names instead of looking them up. */
static void dry_targets(struct fuzz *f)
{
	struct targets *t = &f->t;
	int i;

	t->self = 100;
	t->thread = 101;
	t->parent = 1;
	t->zombie = 102;
	t->spawner = 103;
	t->pid_max = 32768;
	for (i = 0; i < 4; i++)
		t->kthread[i] = 2 + i;
	t->nr_kthread = 4;
	t->spawn_fd = -1;
	for (i = 0; i < CG_NR; i++) {
		t->cg_fd[i] = 3 + i;
		t->cg_class[i] = FDC_ANY;
	}
	t->cg_fd[CG_CLOSED] = 900;
	t->bad_family[0] = 0x7ffe;
	t->nr_bad_family = 1;
	snprintf(t->possible, sizeof(t->possible), "0-1");
	f->family = 0x15;
	f->get_maxattr = TASKSTATS_CMD_ATTR_MAX;
	printf("# dry run: family id 0x%x and pids are placeholders\n", f->family);
}

/*
 * Everything a phase names: looked up here, before the first draw, so
 * that they change values but never the stream.
 */
static int setup_targets(struct fuzz *f, const struct opts *o, pid_t *spawn)
{
	struct targets *t = &f->t;
	int fds[2], id, len;
	pthread_t th;
	char buf[64];
	pid_t pid;

	t->self = getpid();
	t->parent = getppid();
	t->spawn_fd = -1;
	t->pid_max = 32768;
	if (read_file("/proc/sys/kernel/pid_max", buf, sizeof(buf)) > 0)
		t->pid_max = strtoul(buf, NULL, 10);
	len = read_file("/sys/devices/system/cpu/possible", t->possible,
			sizeof(t->possible));
	if (len <= 0)
		snprintf(t->possible, sizeof(t->possible), "0");
	else
		t->possible[strcspn(t->possible, "\n")] = '\0';
	find_kthreads(t);
	open_cgroup_fds(t);

	id = resolve_family();
	if (id < 0) {
		violation(f, NULL, NULL, "the %s phase cannot resolve TASKSTATS: %s",
			  phase_name[f->phase], strerror(-id));
		return -1;
	}
	f->family = id;
	/*
	 * Upstream's policy ends before TASKSTATS_CMD_ATTR_DUMP_TGID: there
	 * the attribute is ignored, whatever its size, like any unknown one.
	 */
	f->series = ts_kernel_dumps();
	f->get_maxattr = f->series ? TASKSTATS_CMD_ATTR_MAX :
			 TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK;
	if (id != o->family)
		printf("# %s: family id %d here, %d in the parent\n",
		       phase_name[f->phase], id, o->family);
	probe_bad_families(t);

	/* A zombie: a child that exited and is never reaped. */
	fflush(stdout);
	pid = fork();
	if (pid == 0)
		_exit(0);
	t->zombie = pid > 0 ? pid : 0;

	if (pipe(fds) == 0) {
		*spawn = fork();
		if (*spawn == 0) {
			close(fds[0]);
			spawner(fds[1], t->self, rng_state ^ 0x5bd1e995);
		}
		close(fds[1]);
		fcntl(fds[0], F_SETFL, O_NONBLOCK);
		t->spawn_fd = fds[0];
		t->spawner = *spawn > 0 ? *spawn : 0;
		if (f->phase == PH_ROOT && *spawn > 0) {
			snprintf(buf, sizeof(buf), "%d", *spawn);
			write_file(V1_CHILD "/cgroup.procs", buf);
			write_file(V2_CHILD "/cgroup.procs", buf);
		}
	}

	/* A thread of our own, forked nothing after it. */
	if (pipe(fds) == 0 && !pthread_create(&th, NULL, idle_thread, fds) &&
	    read_full(fds[0], &t->thread, sizeof(t->thread)) != sizeof(t->thread))
		t->thread = t->self;
	if (!t->thread)
		t->thread = t->self;

	/*
	 * Tasks whose cgroup a cgroup's dump must respect: ourselves, which
	 * we may always read, and as root the spawner and the resident (in
	 * the container, the resident has no pid; as nobody it is not ours
	 * to read, and the spawner stays where we are).
	 */
	watch_task(t, t->self, false, true);
	if (t->thread != t->self)
		watch_task(t, t->thread, true, true);
	watch_task(t, t->spawner, false, f->phase == PH_ROOT);
	if (f->phase != PH_CONTAINER)
		watch_task(t, resident, false, f->phase == PH_ROOT);
	return 0;
}

/* ----------------------------------------------------------------- phase */

static void fuzz_phase(struct fuzz *f, const struct opts *o, enum phase ph,
		       __u64 budget, __u64 deadline)
{
	__u64 seed = o->seed;
	pid_t spawn = -1;
	int i;

	memset(f, 0, sizeof(*f));
	f->phase = ph;
	f->dry = o->dry_run != 0;
	f->verbose = o->verbose;
	f->budget = budget;
	f->deadline = deadline;
	f->sock = -1;
	f->tx = (char *)tx_words;
	printf("# phase %s: %llu messages\n", phase_name[ph],
	       (unsigned long long)budget);
	if (f->dry)
		dry_targets(f);
	else if (setup_targets(f, o, &spawn))
		return;

	/* The stream: nothing above drew from it. */
	rng_state = seed ^ (0x9e3779b97f4a7c15ULL * (ph + 1));
	rnd();
	sock_open(f);
	while (f->c.messages < f->budget) {
		if (f->deadline && now_ns() >= f->deadline)
			break;
		if (f->on_sock >= f->reopen_at)
			sock_open(f);
		if (!f->dry && f->sock < 0)
			break;
		if (!f->dry)
			refill_exiting(f);
		build_datagram(f);
		if (f->dry) {
			print_datagram(f);
		} else {
			send_datagram(f);
			drain(f);
		}
		f->c.messages += f->nreq;
		f->c.datagrams++;
		f->on_sock += f->nreq;
	}
	if (f->sock >= 0)
		close(f->sock);
	if (spawn > 0) {
		kill(spawn, SIGKILL);
		waitpid(spawn, NULL, 0);
	}
	if (f->t.zombie)
		waitpid(f->t.zombie, NULL, 0);
	if (f->c.missing * 100 > f->c.expected)
		violation(f, NULL, NULL, "%llu of %llu answers missing",
			  (unsigned long long)f->c.missing,
			  (unsigned long long)f->c.expected);
	printf("# phase %s: %llu messages in %llu datagrams, %llu replies, ",
	       phase_name[ph], (unsigned long long)f->c.messages,
	       (unsigned long long)f->c.datagrams,
	       (unsigned long long)f->c.replies);
	printf("%llu records, %llu exit records, %llu missing, %llu violations\n",
	       (unsigned long long)f->c.records,
	       (unsigned long long)f->c.events,
	       (unsigned long long)f->c.missing,
	       (unsigned long long)f->c.violations);
	if (!f->dry) {
		printf("# phase %s: %llu overruns, %llu dumps started on a full socket, ",
		       phase_name[ph], (unsigned long long)f->c.overruns,
		       (unsigned long long)f->c.dump_nobufs);
		printf("%llu send errors, %llu /proc/PID/io errors\n",
		       (unsigned long long)f->c.send_errors,
		       (unsigned long long)f->c.io_errors);
		printf("# phase %s: %llu dumps of one cgroup, %llu checked for their tasks; "
		       "%d tasks watched\n", phase_name[ph],
		       (unsigned long long)f->c.cg_dumps,
		       (unsigned long long)f->c.cg_checked, f->t.nr_watch);
	}
	if (f->c.strays)
		printf("# phase %s: %llu stray exit records (upstream sends to a reused port id)\n",
		       phase_name[ph], (unsigned long long)f->c.strays);
	for (i = 0; i < CG_NR && !f->dry; i++)
		if (f->t.cg_fd[i] >= 0 && f->t.cg_fd[i] != f->t.cg_fd[CG_CLOSED] &&
		    i != CG_V2GONE)
			close(f->t.cg_fd[i]);
}

/* ------------------------------------------------------------ identities */

static int drop_to_nobody(void)
{
	if (geteuid() != 0)
		return 0;	/* unprivileged already */
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return -errno;
	/* A change of ids made us undumpable: our /proc files root's. */
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
}

/* New user (mapping 0 to ourselves), pid, net and mount namespaces. */
static int enter_namespaces(const char **step)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();
	int err;

	*step = "unshare(CLONE_NEWUSER)";
	if (unshare(CLONE_NEWUSER))
		return -errno;
	*step = "setgroups deny";
	err = write_file("/proc/self/setgroups", "deny");
	if (err && err != -ENOENT)
		return err;
	*step = "uid_map";
	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)uid);
	err = write_file("/proc/self/uid_map", map);
	if (err)
		return err;
	*step = "gid_map";
	snprintf(map, sizeof(map), "0 %u 1", (unsigned int)gid);
	err = write_file("/proc/self/gid_map", map);
	if (err)
		return err;
	*step = "unshare(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS)";
	if (unshare(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS))
		return -errno;
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
}

/* As pid 1 of the new pid namespace: a /proc that shows it. */
static int mount_proc(const char **step)
{
	*step = "make / private";
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -errno;
	*step = "mount proc";
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL))
		return -errno;
	prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
	return 0;
}

static void report(int wfd, const struct counts *c)
{
	fflush(stdout);
	if (write_full(wfd, c, sizeof(*c)))
		fprintf(stderr, "taskstats_fuzz: the counts are lost: %s\n",
			strerror(errno));
}

static void skip_phase(int wfd, enum phase ph, const char *step, int err)
{
	struct counts c = { .skipped = 1 };

	printf("# phase %s: skipped: %s: %s\n", phase_name[ph], step, strerror(-err));
	report(wfd, &c);
	_exit(0);
}

/* The child running phase @ph: takes its identity, fuzzes, reports. */
static void phase_child(const struct opts *o, enum phase ph, __u64 budget,
			__u64 deadline, int wfd)
{
	static struct fuzz f;
	const char *step = "drop to nobody";
	int err = 0, status;
	pid_t pid;

	/* The parent's watchdog kills the group: helpers, pid 1 and all. */
	setpgid(0, 0);
	signal(SIGPIPE, SIG_IGN);
	if (ph != PH_ROOT)
		err = drop_to_nobody();
	if (err)
		skip_phase(wfd, ph, step, err);
	if (ph == PH_CONTAINER) {
		err = enter_namespaces(&step);
		if (err)
			skip_phase(wfd, ph, step, err);
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			skip_phase(wfd, ph, "fork", -errno);
		if (pid > 0) {
			/* pid 1 reports; this one only waits for it. */
			close(wfd);
			if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
				_exit(1);
			_exit(WEXITSTATUS(status));
		}
		err = mount_proc(&step);
		if (err)
			skip_phase(wfd, ph, step, err);
	}
	fuzz_phase(&f, o, ph, budget, deadline);
	report(wfd, &f.c);
	_exit(0);
}

static void add_counts(struct counts *sum, const struct counts *c)
{
	const __u64 *src = (const __u64 *)c;
	__u64 *dst = (__u64 *)sum;
	unsigned int i;

	/* Every field up to skipped is a __u64 counter. */
	for (i = 0; i < offsetof(struct counts, skipped) / sizeof(__u64); i++)
		dst[i] += src[i];
}

/*
 * Reads a phase's report, giving up at @until (ns): a phase stuck in the
 * kernel must not hang the whole run. Returns the bytes read.
 */
static size_t read_report(int fd, struct counts *c, __u64 until)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;

	while (got < sizeof(*c)) {
		__u64 now = now_ns();
		ssize_t n;

		if (now >= until)
			break;
		n = poll(&p, 1, (until - now) / 1000000 + 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		n = read(fd, (char *)c + got, sizeof(*c) - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += n;
	}
	return got;
}

static void run_phase(const struct opts *o, enum phase ph, __u64 budget,
		      __u64 deadline, struct counts *sum)
{
	/* With no --time, allow for 50 messages a second, and then some. */
	__u64 until = (deadline ? deadline : now_ns() + budget * 20000000ULL) +
		      600000000000ULL;
	struct counts c;
	int p[2], status = 0;
	size_t n;
	pid_t pid;

	fflush(stdout);
	if (pipe(p)) {
		printf("# phase %s: pipe: %s\n", phase_name[ph], strerror(errno));
		sum->violations++;
		return;
	}
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		phase_child(o, ph, budget, deadline, p[1]);
	}
	close(p[1]);
	if (pid > 0)
		setpgid(pid, pid);
	n = pid > 0 ? read_report(p[0], &c, until) : 0;
	close(p[0]);
	if (pid > 0 && n != sizeof(c) && now_ns() >= until) {
		printf("# phase %s: no report in time: killed\n", phase_name[ph]);
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (n != sizeof(c)) {
		printf("# phase %s: ended without a report (%s %d)\n",
		       phase_name[ph],
		       WIFSIGNALED(status) ? "signal" : "exit status",
		       WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		sum->violations++;
		return;
	}
	add_counts(sum, &c);
	if (c.skipped && o->every_phase) {
		printf("# phase %s: could not run, with --every-phase\n", phase_name[ph]);
		sum->violations++;
	}
}

/* -------------------------------------------------------------- parent */

static bool v1_mounted;

/* A named cgroup v1 hierarchy with no controller, and a child cgroup. */
static void v1_setup(void)
{
	if (geteuid() != 0)
		return;
	if (mkdir(V1_DIR, 0755) && errno != EEXIST)
		return;
	if (mount("cgroup", V1_DIR, "cgroup", 0, "none,name=tsfuzz")) {
		printf("# cgroup v1: not mounted: %s\n", strerror(errno));
		rmdir(V1_DIR);
		return;
	}
	v1_mounted = true;
	if (mkdir(V1_CHILD, 0755) && errno != EEXIST)
		printf("# cgroup v1: %s: %s\n", V1_CHILD, strerror(errno));
}

/*
 * Under the cgroup v2 root: ts-fuzz and ts-fuzz/sub, the latter holding
 * the resident, a task of root's sleeping in pause() until the end; and
 * the fd of ts-fuzz-gone, removed after it was opened.
 */
static void v2_setup(void)
{
	char buf[64], *end, ns[2][64];
	struct statfs sfs;
	pid_t pid;
	ssize_t n;

	if (geteuid() != 0 || statfs(V2_ROOT, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC)
		return;
	/*
	 * /proc/PID/cgroup names cgroups from the reader's cgroup namespace,
	 * as init's mount of V2_ROOT shows them if we share init's.
	 */
	n = readlink("/proc/self/ns/cgroup", ns[0], sizeof(ns[0]) - 1);
	if (n > 0 && readlink("/proc/1/ns/cgroup", ns[1], sizeof(ns[1]) - 1) == n &&
	    !memcmp(ns[0], ns[1], n))
		v2_paths_ok = true;
	rmdir(V2_GONE);		/* a killed run's */
	if (!mkdir(V2_GONE, 0755)) {
		v2_gone_fd = open(V2_GONE, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (rmdir(V2_GONE) && v2_gone_fd >= 0) {
			printf("# cgroup v2: rmdir %s: %s\n", V2_GONE, strerror(errno));
			close(v2_gone_fd);
			v2_gone_fd = -1;
		}
	}
	if ((mkdir(V2_CHILD, 0755) && errno != EEXIST) ||
	    (mkdir(V2_SUB, 0755) && errno != EEXIST)) {
		printf("# cgroup v2: mkdir: %s\n", strerror(errno));
		return;
	}
	v2_made = true;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
		for (;;)
			pause();
	}
	if (pid < 0)
		return;
	resident = pid;
	snprintf(buf, sizeof(buf), "%d", pid);
	if (write_file(V2_SUB "/cgroup.procs", buf)) {
		printf("# cgroup v2: cannot move a task into %s\n", V2_SUB);
		return;
	}
	/* Alone there, asleep: what cgroupstats of it must count. */
	if (ts_wait_sleeping(pid) == 0 &&
	    read_file(V2_SUB "/cgroup.threads", buf, sizeof(buf)) > 0 &&
	    strtol(buf, &end, 10) == pid && !strcmp(end, "\n"))
		v2_sub_one = true;
	printf("# cgroup v2: %s, and %s holding task %d%s; %s fd %d\n", V2_CHILD, V2_SUB,
	       pid, v2_sub_one ? " alone, asleep" : "", V2_GONE, v2_gone_fd);
}

static void v2_cleanup(void)
{
	int i;

	if (resident > 0) {
		kill(resident, SIGKILL);
		waitpid(resident, NULL, 0);
	}
	if (v2_gone_fd >= 0)
		close(v2_gone_fd);
	if (!v2_made)
		return;
	/* The root phase's spawner lived in ts-fuzz; its last tasks go. */
	for (i = 0; i < 100 && rmdir(V2_SUB) && errno == EBUSY; i++)
		usleep(20000);
	for (i = 0; i < 100 && rmdir(V2_CHILD) && errno == EBUSY; i++)
		usleep(20000);
}

static void v1_cleanup(void)
{
	int i;

	if (!v1_mounted)
		return;
	/* The root phase's spawner lived in the child; its last tasks go. */
	for (i = 0; i < 100 && rmdir(V1_CHILD) && errno == EBUSY; i++)
		usleep(20000);
	if (umount2(V1_DIR, MNT_DETACH))
		printf("# cgroup v1: umount: %s\n", strerror(errno));
	rmdir(V1_DIR);
}

static void usage(const char *prog, int status)
{
	printf("Usage: %s [options]\n"
	       "  --seed N      replay the run of seed N (default: from time and pid)\n"
	       "  --count N     messages to send (default 200000), split over phases\n"
	       "  --time S      stop after S seconds even if --count is not reached\n"
	       "  --as WHO      root, user, container or all (default all)\n"
	       "  --verbose     print every violation with its request and answer\n"
	       "  --every-phase a phase that cannot run is a violation\n"
	       "  --dry-run N   print the first N messages of the seed, send nothing\n"
	       "  -h, --help    this text\n", prog);
	exit(status);
}

static unsigned long long number(const char *prog, const char *s)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *end)
		usage(prog, 2);
	return v;
}

static void parse_opts(int argc, char **argv, struct opts *o, bool *seeded)
{
	static const struct option longopts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'c' },
		{ "time", required_argument, NULL, 't' },
		{ "as", required_argument, NULL, 'a' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "dry-run", required_argument, NULL, 'n' },
		{ "every-phase", no_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, i;

	o->count = 200000;
	for (i = 0; i < PH_NR; i++)
		o->phase[i] = true;
	while ((c = getopt_long(argc, argv, "s:c:t:a:vn:Eh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o->seed = number(argv[0], optarg);
			*seeded = true;
			break;
		case 'c':
			o->count = number(argv[0], optarg);
			break;
		case 't':
			o->time = number(argv[0], optarg);
			break;
		case 'a':
			for (i = 0; i < PH_NR; i++)
				o->phase[i] = !strcmp(optarg, "all") ||
					      !strcmp(optarg, phase_name[i]);
			if (!o->phase[PH_ROOT] && !o->phase[PH_USER] &&
			    !o->phase[PH_CONTAINER])
				usage(argv[0], 2);
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'E':
			o->every_phase = true;
			break;
		case 'n':
			o->dry_run = number(argv[0], optarg);
			if (!o->dry_run)
				usage(argv[0], 2);
			break;
		case 'h':
			usage(argv[0], 0);
			break;
		default:
			usage(argv[0], 2);
		}
	}
	if (optind < argc)
		usage(argv[0], 2);
}

int main(int argc, char **argv)
{
	struct counts sum = { 0 };
	struct opts o = { 0 };
	bool seeded = false;
	__u64 t0, total;
	double secs;
	int i, n = 0, k = 0, id;

	setvbuf(stdout, NULL, _IOLBF, 0);
	parse_opts(argc, argv, &o, &seeded);
	if (!seeded) {
		rng_state = ((__u64)time(NULL) << 20) ^ now_ns() ^
			    ((__u64)getpid() << 40);
		o.seed = rnd() >> 1;
	}
	printf("# taskstats_fuzz: seed %llu\n", o.seed);
	for (i = 0; i < PH_NR; i++)
		n += o.phase[i];
	total = o.dry_run ? o.dry_run : o.count;

	if (!o.dry_run) {
		id = resolve_family();
		if (id < 0) {
			printf("# TASKSTATS family not found: %s\n", strerror(-id));
			return KSFT_SKIP;
		}
		o.family = id;
		printf("# TASKSTATS family id %d\n", id);
		v1_setup();
		v2_setup();
	}
	t0 = now_ns();
	for (i = 0; i < PH_NR; i++) {
		__u64 budget, deadline = 0;
		static struct fuzz dry;

		if (!o.phase[i])
			continue;
		budget = total / n + (k == n - 1 ? total % n : 0);
		k++;
		if (o.time)
			deadline = t0 + o.time * 1000000000ULL * k / n;
		if (o.dry_run) {
			fuzz_phase(&dry, &o, i, budget, 0);
			continue;
		}
		if (i == PH_ROOT && geteuid() != 0) {
			printf("# phase root: skipped: not root\n");
			sum.violations += o.every_phase;
			continue;
		}
		run_phase(&o, i, budget, deadline, &sum);
	}
	if (o.dry_run)
		return 0;
	v1_cleanup();
	v2_cleanup();
	if (!sum.messages && !sum.violations) {
		printf("# no phase could run\n");
		return KSFT_SKIP;
	}
	secs = (now_ns() - t0) / 1e9;
	/* One line, which the rig greps. */
	printf("fuzz: %llu messages in %.1f s (%.0f/s), ",
	       (unsigned long long)sum.messages, secs,
	       secs > 0 ? sum.messages / secs : 0.0);
	printf("%llu replies, %llu records, %llu missing, %llu violations\n",
	       (unsigned long long)sum.replies,
	       (unsigned long long)sum.records,
	       (unsigned long long)sum.missing,
	       (unsigned long long)sum.violations);
	for (i = 0; i < ERRNO_SLOTS; i++)
		if (sum.err[i])
			printf("fuzz: errno %s %llu\n",
			       i ? errno_name(i) : "OUT_OF_RANGE",
			       (unsigned long long)sum.err[i]);
	return sum.violations ? 1 : 0;
}
