// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats_stress: races and storms against taskstats exit listeners,
 * dumps and GETs. The kernel must stay healthy (the rig scans dmesg for
 * KASAN, lockdep and WARNING reports) and keep the invariants below.
 *
 * What runs, all at the same time:
 *
 *  - The exit storm. Per CPU, two worker processes pinned to it: one
 *    forks children that exit at once, the other creates threads that
 *    return at once, until --tasks short-lived tasks have exited in all.
 *    Each task first names itself "S" and 8 hex digits of an id handed
 *    out by a counter the workers share, so that an exit record (ac_comm)
 *    names exactly one task; it also writes its pid next to its id. Every
 *    eighth child first runs and joins a thread of its own, so that it
 *    dies as the last thread of a multi-threaded group and its exit
 *    message carries the group's aggregate (AGGR_TGID) too. Tasks inherit
 *    their worker's CPU; each checks with sched_getcpu() that it exits
 *    there.
 *
 *  - Exit listeners, --listeners sockets at a time. Two "steady" ones are
 *    registered for every possible CPU before the storm and read by a
 *    thread each until it is over. A "silent" one is registered the same
 *    way and never read: it must overflow. The rest are "chaotic": a
 *    thread each, pinned to a CPU, that opens a socket, registers random
 *    CPUs, reads for a while or not at all, deregisters and registers
 *    other CPUs, flips CPUs off and on, makes a burst of exits and closes
 *    the socket at once while their records are on their way, over and
 *    over. A CPU taken off a socket and put back while an exit walks that
 *    CPU's listeners must not make the socket hear that exit twice.
 *
 *  - A thread that dumps (plain and by thread group, in turn), each dump
 *    read to its NLMSG_DONE; a process whose threads other than the
 *    leader keep re-executing /proc/self/exe (de_thread() hands the
 *    leader's pid to the exec'ing thread), and a process that keeps
 *    switching between its own and new net and UTS namespaces, with
 *    setns(); a thread GETs these two by pid and tgid, each thread of the
 *    first, and the youngest tasks of the storm while they exit. The exec
 *    loop is this program, told by TASKSTATS_STRESS_EXEC to be a
 *    generation of that loop instead of a run.
 *
 * Every child is in one process group, killed as a whole at the end; each
 * also dies with us (parent-death signal) and at the deadline (alarm()).
 *
 * What is checked; each failure is a violation, printed as
 * "# violation: ..." and counted:
 *
 *  - At most once: no listener socket receives two records of the same
 *    storm id, nor one of an id never handed to a task, nor one whose
 *    pid is not that of the task that held the id.
 *  - Accounting, for each steady listener (registered everywhere during
 *    the whole storm): storm records received plus the socket's Drops
 *    column of /proc/net/netlink cover every storm task that exited, and
 *    the records alone never exceed them. The silent listener must have
 *    dropped records and have ENOBUFS pending.
 *  - Every message parses: aggregates walk exactly to the end of their
 *    message, ids and STATS (at least 4 bytes, version 1 to 17) are where
 *    they belong, ac_pid matches the pid attribute, an exit message's
 *    group is the group of its task. Every dump lists its ids in
 *    increasing order, lists the dumping thread (or this process, by
 *    thread group) and the setns child, and ends with NLMSG_DONE and
 *    error 0. Every GET is answered with the record asked for or with
 *    ESRCH, EPERM or ENOMEM. Registrations are acknowledged with 0 (an
 *    acknowledgment lost to an overflowing socket is not held against
 *    the kernel).
 *  - Nothing hangs: each request has a timeout, and the whole run has
 *    --time seconds; a storm that cannot finish in time fails the run.
 *    With --quick, a storm whose workers stop by themselves at its
 *    deadline is complete with the tasks that exited: a smoke run
 *    checks what a slow host managed, as a full run would.
 *
 * Exit status: 0 if all held, 1 otherwise, 4 if the TASKSTATS family is
 * missing or exit listeners cannot be registered (not root).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#define EXEC_ENV	"TASKSTATS_STRESS_EXEC"	/* set in the exec loop */
#define EXIT_SKIP	4		/* kselftest's KSFT_SKIP */
#define BUF_SIZE	65536		/* a dump message is at most 32 KiB */
#define REQ_SIZE	4096
#define MIN_LISTENERS	8
#define MAX_LISTENERS	256
#define STEADY		2		/* steady listeners that read */
#define MAX_TASKS	10000000UL
#define MAX_PRINTED	40		/* violations printed in full */
#define BURST		8		/* threads of a chaotic listener's burst */
#define THREADED_EVERY	8		/* one storm child in 8 runs a thread */
#define EXEC_THREADS	2		/* threads of the exec loop that wait */
#define STACK_SIZE	(64 * 1024)
#define LONG_BITS	(8 * sizeof(unsigned long))
#define NO_ID		(~0UL)

/* Exit codes of a storm task, read by its worker. */
#define TASK_OK		0
#define TASK_WRONG_CPU	1
#define TASK_UNNAMED	2

/* listener_cpumask(): the acknowledgment was dropped with the overflow. */
#define ACK_LOST	1

static struct {
	unsigned long tasks;
	unsigned long time;
	int listeners;
	unsigned long seed;
	unsigned long pace;	/* multiplies the side workloads' pauses */
	bool quick;		/* a storm stopped at its deadline is complete */
	bool verbose;
} opt = {
	.tasks = 100000,
	.time = 600,
	.listeners = MIN_LISTENERS,
	.pace = 1,
};

/* Everything the storm's processes share with us, in a shared mapping. */
struct shared {
	unsigned long next_id;		/* the next storm id to hand out */
	unsigned long exited;		/* storm tasks reaped */
	unsigned long procs;		/* ... of which processes */
	unsigned long threads;		/* ... and threads */
	unsigned long wrong_cpu;	/* exited on another CPU than expected */
	unsigned long unnamed;		/* could not take their name */
	unsigned long killed;		/* ended by a signal */
	unsigned long retries;		/* fork() or pthread_create() failed */
	unsigned long setns_loops;	/* round trips of the setns child */
	unsigned long setns_made;	/* namespace pairs it created */
	int setns_err;			/* its errno, if it failed */
	int setns_skip;			/* errno: no namespace to switch to */
	int stop;			/* workers: the deadline, stop now */
	unsigned long cpu_exits[CPU_SETSIZE];
};

/* One record: an AGGR_PID or AGGR_TGID attribute, taken apart. */
struct record {
	int aggr;
	__u32 id;
	int stats_len;
	__u16 version;
	__u32 ac_pid;
	__u32 ac_tgid;
	char comm[TS_COMM_LEN + 1];
	bool has_pid;			/* STATS long enough for ac_pid */
	bool has_tgid;
	bool has_comm;
};

/* An exit listener socket and the thread that owns it. */
struct listener {
	char name[16];
	int fd;
	ino_t ino;
	int cpu;			/* chaotic: the CPU its thread runs on */
	char *buf;
	unsigned long *seen;		/* storm ids received on this socket */
	__u32 seq;
	bool ack_wait;			/* a request of ours is unanswered */
	int ack_err;
	bool overrun;			/* ENOBUFS since the last drain */
	__u32 last_tgid;		/* ac_tgid of the message's AGGR_PID */
	__u64 rng;
	pthread_t thread;
	bool started;
	unsigned long records;		/* AGGR_PID records */
	unsigned long storm_records;	/* ... of storm tasks, each once */
	unsigned long group_records;	/* AGGR_TGID records */
	unsigned long enobufs;
	unsigned long stale_acks;
	unsigned long lost_acks;
	unsigned long enomem;
	unsigned long sockets;		/* chaotic: sockets opened */
	unsigned long registrations;
	unsigned long bursts;
	unsigned long unread_closes;	/* closed with records queued */
	bool drain_cut;			/* steady: the final drain ran out */
};

/* The dump thread. */
struct dumper {
	int fd;
	__u32 seq;
	char *buf;
	__u64 rng;
	pthread_t thread;
	bool started;
	unsigned long dumps;
	unsigned long records;
	unsigned long setns_missing;	/* dumps without the setns child */
	unsigned long exec_missing;	/* ... without the exec loop */
};

/* What a dump walk checks as it goes. */
struct dump_walk {
	struct dumper *d;
	int aggr;
	__u32 prev;
	unsigned long records;
	__u32 self;
	bool saw_self;
	bool saw_setns;
	bool saw_exec;
};

/* The GET thread. */
struct getter {
	int fd;
	__u32 seq;
	char *buf;
	__u64 rng;
	pthread_t thread;
	bool started;
	unsigned long gets;
	unsigned long records;
	unsigned long esrch;
	unsigned long eperm;
	unsigned long enomem;
	unsigned long reaped;		/* upstream's ac_pid 0 records */
};

/* What a GET asked for, to check its answer. */
struct get_walk {
	int aggr;
	__u32 id;
	unsigned long records;
	bool bad;
	bool reaped;
};

struct worker {
	pid_t pid;
	int cpu;
	bool threads;
	bool done;
	bool killed;		/* once stopping: its exits not all counted */
};

static __u16 family;
static double t_start, t_hard;		/* CLOCK_MONOTONIC seconds */
static double op_timeout;		/* for one request and its answer */
static double drain_until;		/* steady readers: last read */
static int aux_stop;			/* chaotic, dump, GET threads: end */
static int storm_over;			/* steady readers: drain and end */
static unsigned long violations;
static bool hung;			/* a thread did not end in time */
static pid_t pgrp;			/* the process group of our children */
static pid_t main_pid;
static int cpus[CPU_SETSIZE], ncpus;	/* CPUs we may run on */
static int possible[CPU_SETSIZE], npossible;
static char possible_str[1024];
static struct shared *sh;
static unsigned long *created;		/* storm ids handed to a task */
static __u32 *pids;			/* the pid each storm task reported */
static size_t map_bytes;		/* of a bitmap of all storm ids */
static pid_t setns_pid, exec_pid;
static int exec_count_fd = -1;
static unsigned long execs;		/* generations of the exec loop */
static bool dumps_ok = true;
static pthread_attr_t small_stack;

static bool count_violation(void)
{
	unsigned long n = __atomic_add_fetch(&violations, 1, __ATOMIC_RELAXED);

	if (n == MAX_PRINTED + 1)
		printf("# violation: more violations follow, not printed\n");
	return n <= MAX_PRINTED;
}

/* Counts a violation and prints it, the first MAX_PRINTED in full. */
#define violation(fmt, ...)						\
	do {								\
		if (count_violation())					\
			printf("# violation: " fmt "\n", ##__VA_ARGS__); \
	} while (0)

static int flag_get(int *flag)
{
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

static void flag_set(int *flag)
{
	__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
}

static void shared_add(unsigned long *counter, unsigned long n)
{
	__atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
}

static unsigned long shared_get(unsigned long *counter)
{
	return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void sleep_ms(double ms)
{
	long ns = (long)(ms * 1e6);
	struct timespec ts = {
		.tv_sec = ns / 1000000000L,
		.tv_nsec = ns % 1000000000L,
	};

	nanosleep(&ts, NULL);
}

/* Waits up to @ms for @fd to be readable. */
static int wait_in(int fd, double ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (ms < 0)
		ms = 0;
	return poll(&p, 1, (int)ms);
}

/* Seconds left before the hard deadline, for a child's alarm(). */
static unsigned int secs_left(void)
{
	double left = t_hard - now();

	return left > 0 ? (unsigned int)left + 1 : 1;
}

/* @secs from now, but never later than 1.5 s before the hard deadline. */
static double budget(double secs)
{
	double until = now() + secs;

	return until < t_hard - 1.5 ? until : t_hard - 1.5;
}

static pid_t thread_id(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* xorshift64*: reproducible from --seed, one state per thread. */
static __u64 rng_next(__u64 *s)
{
	__u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

static unsigned int rng_below(__u64 *s, unsigned int n)
{
	return n ? rng_next(s) % n : 0;
}

static __u64 rng_seed(unsigned int stream)
{
	return ((__u64)opt.seed + 1) * 0x9E3779B97F4A7C15ULL +
	       (__u64)(stream + 1) * 0xBF58476D1CE4E5B9ULL + 1;
}

/* Bitmaps of storm ids: private ones per listener, shared ones atomic. */
static bool bit_test_set(unsigned long *map, unsigned long bit)
{
	unsigned long mask = 1UL << (bit % LONG_BITS);
	bool was = map[bit / LONG_BITS] & mask;

	map[bit / LONG_BITS] |= mask;
	return was;
}

static void bit_set_shared(unsigned long *map, unsigned long bit)
{
	__atomic_fetch_or(&map[bit / LONG_BITS], 1UL << (bit % LONG_BITS),
			  __ATOMIC_SEQ_CST);
}

static void bit_clear_shared(unsigned long *map, unsigned long bit)
{
	__atomic_fetch_and(&map[bit / LONG_BITS], ~(1UL << (bit % LONG_BITS)),
			   __ATOMIC_SEQ_CST);
}

static bool bit_shared(unsigned long *map, unsigned long bit)
{
	return __atomic_load_n(&map[bit / LONG_BITS], __ATOMIC_ACQUIRE) &
	       (1UL << (bit % LONG_BITS));
}

/* The name of storm task @id, and back; -1 for any other name. */
static void storm_name(char name[16], unsigned long id)
{
	snprintf(name, 16, "S%08x", (unsigned int)id);
}

static long storm_id(const char *comm)
{
	unsigned long id = 0;
	int i;

	if (comm[0] != 'S' || comm[9] != '\0')
		return -1;
	for (i = 1; i < 9; i++) {
		char c = comm[i];

		if (c >= '0' && c <= '9')
			id = id * 16 + (c - '0');
		else if (c >= 'a' && c <= 'f')
			id = id * 16 + (c - 'a' + 10);
		else
			return -1;
	}
	return id;
}

/* ------------------------------------------------------------ netlink */

struct nl_req {
	union {
		struct nlmsghdr nlh;
		char buf[REQ_SIZE];
	};
};

/*
 * Opens a generic netlink socket. A big @rcvbuf is forced past rmem_max
 * (we are root) so that steady readers rarely overflow; the kernel
 * doubles whatever it is given.
 */
static int nl_open(int rcvbuf)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	struct timeval tv = { .tv_sec = 2 };
	int fd, err;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	if (rcvbuf > 0 &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
	/* We poll before every read; this only bounds a read gone wrong. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

static void req_init(struct nl_req *r, __u16 type, __u8 cmd, __u16 flags,
		     __u32 seq)
{
	struct genlmsghdr *g;

	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | flags;
	r->nlh.nlmsg_seq = seq;
	g = NLMSG_DATA(&r->nlh);
	g->cmd = cmd;
	g->version = TASKSTATS_GENL_VERSION;
}

static void req_put(struct nl_req *r, __u16 type, const void *data, int len)
{
	struct nlattr *na = (struct nlattr *)(r->buf + NLMSG_ALIGN(r->nlh.nlmsg_len));

	if (NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_HDRLEN + len > sizeof(r->buf))
		return;
	na->nla_type = type;
	na->nla_len = NLA_HDRLEN + len;
	if (len > 0)
		memcpy((char *)na + NLA_HDRLEN, data, len);
	r->nlh.nlmsg_len = NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_ALIGN(na->nla_len);
}

/* Sends to the kernel by address: the sender alone vouches for it. */
static int nl_send(int fd, struct nl_req *r)
{
	struct sockaddr_nl dst = { .nl_family = AF_NETLINK };

	if (sendto(fd, r->buf, r->nlh.nlmsg_len, 0, (struct sockaddr *)&dst,
		   sizeof(dst)) < 0)
		return -errno;
	return 0;
}

/* One datagram, or -errno; a truncated one is -EMSGSIZE. */
static int nl_recv(int fd, char *buf, int size, int flags)
{
	struct iovec iov = { .iov_base = buf, .iov_len = size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n = recvmsg(fd, &mh, flags);

	if (n < 0)
		return -errno;
	if (mh.msg_flags & MSG_TRUNC)
		return -EMSGSIZE;
	return n;
}

/*
 * Waits for the answer to request @seq, skipping what answers older
 * requests. Returns its length (the message is at *@out), -ETIMEDOUT
 * past @until, or the -errno of a read.
 */
static int nl_answer(int fd, __u32 seq, char *buf, double until,
		     struct nlmsghdr **out)
{
	for (;;) {
		struct nlmsghdr *h;
		int n;

		if (now() >= until)
			return -ETIMEDOUT;
		wait_in(fd, (until - now()) * 1000);
		n = nl_recv(fd, buf, BUF_SIZE, MSG_DONTWAIT);
		if (n == -EAGAIN || n == -EINTR)
			continue;
		if (n < 0)
			return n;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq == seq) {
				*out = h;
				return h->nlmsg_len;
			}
		}
	}
}

/* The error of an NLMSG_ERROR message, or -EBADMSG if it is too short. */
static int nl_error(const struct nlmsghdr *h)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
		return -EBADMSG;
	return e->error;
}

struct attr_iter {
	const char *p;
	int rem;
};

static const void *attr_data(const struct nlattr *na)
{
	return (const char *)na + NLA_HDRLEN;
}

static struct attr_iter msg_attrs(const struct nlmsghdr *h)
{
	return (struct attr_iter){
		.p = (const char *)NLMSG_DATA(h) + GENL_HDRLEN,
		.rem = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN),
	};
}

/*
 * The next attribute, or NULL at the end; it.rem is then 0 if and only
 * if the attributes walked exactly to the end of their container.
 */
static const struct nlattr *attr_next(struct attr_iter *it)
{
	const struct nlattr *na = (const struct nlattr *)it->p;
	int step;

	if (it->rem < NLA_HDRLEN || na->nla_len < NLA_HDRLEN ||
	    na->nla_len > it->rem)
		return NULL;
	step = NLA_ALIGN(na->nla_len);
	if (step > it->rem)
		step = it->rem;
	it->p += step;
	it->rem -= step;
	return na;
}

static int resolve_family(int fd, __u16 *id)
{
	struct nlmsghdr *h;
	struct attr_iter it;
	const struct nlattr *na;
	struct nl_req req;
	char *buf = malloc(BUF_SIZE);
	int n;

	if (!buf)
		return -ENOMEM;
	req_init(&req, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0, 1);
	req_put(&req, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
		sizeof(TASKSTATS_GENL_NAME));
	n = nl_send(fd, &req);
	if (!n)
		n = nl_answer(fd, 1, buf, now() + 5, &h);
	if (n > 0 && h->nlmsg_type == NLMSG_ERROR)
		n = nl_error(h) ? nl_error(h) : -EBADMSG;
	if (n > 0 && h->nlmsg_len >= NLMSG_LENGTH(GENL_HDRLEN)) {
		it = msg_attrs(h);
		n = -EBADMSG;
		while ((na = attr_next(&it))) {
			if (na->nla_type == CTRL_ATTR_FAMILY_ID &&
			    na->nla_len >= NLA_HDRLEN + sizeof(*id)) {
				memcpy(id, attr_data(na), sizeof(*id));
				n = 0;
			}
		}
	}
	free(buf);
	return n > 0 ? -EBADMSG : n;
}

/* ------------------------------------------------------------ parsing */

static bool covers(int len, size_t off, size_t size)
{
	return len >= 0 && (size_t)len >= off + size;
}

/*
 * Takes an aggregate apart: its id attribute (PID in AGGR_PID, TGID in
 * AGGR_TGID), the optional NULL pad and STATS, nothing else, walking
 * exactly to its end.
 */
static int parse_aggr(const struct nlattr *aggr, struct record *r,
		      const char **why)
{
	int type = aggr->nla_type & NLA_TYPE_MASK;
	int id_type = type == TASKSTATS_TYPE_AGGR_PID ? TASKSTATS_TYPE_PID :
							 TASKSTATS_TYPE_TGID;
	struct attr_iter it = {
		.p = attr_data(aggr),
		.rem = aggr->nla_len - NLA_HDRLEN,
	};
	const struct nlattr *na;
	const char *stats = NULL;
	bool have_id = false;

	memset(r, 0, sizeof(*r));
	r->aggr = type;
	while ((na = attr_next(&it))) {
		int len = na->nla_len - NLA_HDRLEN;
		int t = na->nla_type & NLA_TYPE_MASK;

		if (t == id_type && len == sizeof(__u32) && !have_id) {
			memcpy(&r->id, attr_data(na), sizeof(r->id));
			have_id = true;
		} else if (t == TASKSTATS_TYPE_NULL && len == 0 && !stats) {
			continue;
		} else if (t == TASKSTATS_TYPE_STATS && !stats) {
			stats = attr_data(na);
			r->stats_len = len;
		} else {
			*why = "an unexpected attribute in an aggregate";
			return -1;
		}
	}
	if (it.rem) {
		*why = "an aggregate that does not walk to its end";
		return -1;
	}
	if (!have_id || !stats) {
		*why = have_id ? "an aggregate without STATS" : "an aggregate without its id";
		return -1;
	}
	if (r->stats_len < 4) {
		*why = "STATS shorter than 4 bytes";
		return -1;
	}
	memcpy(&r->version, stats, sizeof(r->version));
	if (r->version < 1 || r->version > TASKSTATS_VERSION) {
		*why = "a STATS version out of 1..17";
		return -1;
	}
	if (covers(r->stats_len, offsetof(struct taskstats, ac_comm), TS_COMM_LEN)) {
		memcpy(r->comm, stats + offsetof(struct taskstats, ac_comm), TS_COMM_LEN);
		r->has_comm = true;
	}
	if (covers(r->stats_len, offsetof(struct taskstats, ac_pid), sizeof(__u32))) {
		memcpy(&r->ac_pid, stats + offsetof(struct taskstats, ac_pid),
		       sizeof(__u32));
		r->has_pid = true;
	}
	if (covers(r->stats_len, offsetof(struct taskstats, ac_tgid), sizeof(__u32))) {
		memcpy(&r->ac_tgid, stats + offsetof(struct taskstats, ac_tgid),
		       sizeof(__u32));
		r->has_tgid = true;
	}
	return 0;
}

/*
 * Takes a TASKSTATS_CMD_NEW message apart and hands each of its records,
 * in order, to @fn (which reports what it finds wrong itself). Returns
 * the number of records, or -1 with the reason in *@why.
 */
static int parse_message(const struct nlmsghdr *h,
			 void (*fn)(const struct record *r, int i, void *arg),
			 void *arg, const char **why)
{
	const struct genlmsghdr *g = NLMSG_DATA(h);
	const struct nlattr *na;
	struct attr_iter it;
	struct record r;
	int n = 0;

	if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN)) {
		*why = "a message shorter than its genl header";
		return -1;
	}
	if (g->cmd != TASKSTATS_CMD_NEW) {
		*why = "a command other than TASKSTATS_CMD_NEW";
		return -1;
	}
	it = msg_attrs(h);
	while ((na = attr_next(&it))) {
		int type = na->nla_type & NLA_TYPE_MASK;

		if (type != TASKSTATS_TYPE_AGGR_PID &&
		    type != TASKSTATS_TYPE_AGGR_TGID) {
			*why = "a top-level attribute that is no aggregate";
			return -1;
		}
		if (parse_aggr(na, &r, why))
			return -1;
		if (fn)
			fn(&r, n, arg);
		n++;
	}
	if (it.rem) {
		*why = "aggregates that do not walk to the end of the message";
		return -1;
	}
	if (!n) {
		*why = "a message without any record";
		return -1;
	}
	return n;
}

/* ---------------------------------------------------------- listeners */

/* A record of a storm task: at most once per socket, and a real task. */
static void storm_record(struct listener *l, const struct record *r)
{
	__u32 pid;
	long id;

	if (!r->has_comm) {
		violation("%s: an exit record of %d bytes, too short to name its task",
			  l->name, r->stats_len);
		return;
	}
	id = storm_id(r->comm);
	if (id < 0)
		return;
	if ((unsigned long)id >= opt.tasks || !bit_shared(created, id)) {
		violation("%s: a record of %s (pid %u), an id never handed out",
			  l->name, r->comm, r->id);
		return;
	}
	pid = __atomic_load_n(&pids[id], __ATOMIC_ACQUIRE);
	if (r->id != pid) {
		violation("%s: the record of %s has pid %u, the task was %u",
			  l->name, r->comm, r->id, pid);
		return;
	}
	if (bit_test_set(l->seen, id)) {
		violation("%s: two records of %s (pid %u)", l->name, r->comm, r->id);
		return;
	}
	l->storm_records++;
}

/* An exit message: the task's AGGR_PID, then maybe its group's AGGR_TGID. */
static void exit_record(const struct record *r, int i, void *arg)
{
	struct listener *l = arg;
	int want = i ? TASKSTATS_TYPE_AGGR_TGID : TASKSTATS_TYPE_AGGR_PID;

	if (i > 1 || r->aggr != want) {
		violation("%s: exit message with aggregate %d at place %d",
			  l->name, r->aggr, i);
		return;
	}
	if (r->aggr == TASKSTATS_TYPE_AGGR_TGID) {
		l->group_records++;
		if (l->last_tgid && r->id != l->last_tgid)
			violation("%s: exit message of a task of group %u carries group %u",
				  l->name, l->last_tgid, r->id);
		return;
	}
	l->records++;
	l->last_tgid = r->has_tgid ? r->ac_tgid : 0;
	if (r->has_pid && r->ac_pid != r->id)
		violation("%s: exit record of pid %u says ac_pid %u",
			  l->name, r->id, r->ac_pid);
	storm_record(l, r);
}

static void listener_message(struct listener *l, const struct nlmsghdr *h)
{
	const char *why = NULL;

	if (h->nlmsg_type == NLMSG_ERROR) {
		int err = nl_error(h);

		if (l->ack_wait && h->nlmsg_seq == l->seq) {
			l->ack_wait = false;
			l->ack_err = err;
		} else if (err != -EBADMSG && h->nlmsg_seq && h->nlmsg_seq <= l->seq) {
			l->stale_acks++;
		} else {
			violation("%s: an error message (%d, seq %u) that answers nothing",
				  l->name, err, h->nlmsg_seq);
		}
		return;
	}
	if (h->nlmsg_type != family) {
		violation("%s: a message of type %u on a listener", l->name,
			  h->nlmsg_type);
		return;
	}
	if (parse_message(h, exit_record, l, &why) < 0)
		violation("%s: malformed exit message: %s", l->name, why);
}

/* Reads at most @max datagrams that are queued; returns how many. */
static int listener_read(struct listener *l, int max)
{
	int i;

	for (i = 0; i < max; i++) {
		struct nlmsghdr *h;
		int n = nl_recv(l->fd, l->buf, BUF_SIZE, MSG_DONTWAIT);

		if (n == -EAGAIN)
			break;
		if (n == -EINTR)
			continue;
		if (n == -ENOBUFS) {
			/* Records were dropped; the queue still holds others. */
			l->enobufs++;
			l->overrun = true;
			continue;
		}
		if (n < 0) {
			violation("%s: recv: %s", l->name, strerror(-n));
			break;
		}
		for (h = (struct nlmsghdr *)l->buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n))
			listener_message(l, h);
		if (n > 0)
			violation("%s: %d stray bytes after the messages of a datagram",
				  l->name, n);
	}
	return i;
}

static const char *cpumask_op(int attr)
{
	return attr == TASKSTATS_CMD_ATTR_REGISTER_CPUMASK ? "register" : "deregister";
}

/*
 * Sends REGISTER_CPUMASK or DEREGISTER_CPUMASK on the listener's socket
 * and waits for the acknowledgment, handling the exit records queued in
 * front of it. The kernel queues the acknowledgment before sendto()
 * returns, or drops it like a record if the socket is full (and then
 * reports ENOBUFS): so we drain the socket first, and an answer that is
 * not there once the queue is empty again after an overrun was dropped.
 *
 * Returns the acknowledged error, ACK_LOST, or -ETIMEDOUT.
 */
static int listener_cpumask(struct listener *l, int attr, const char *mask)
{
	double until = now() + op_timeout;
	struct nl_req req;
	int n, err;

	l->overrun = false;
	while (listener_read(l, 64) == 64 && now() < until)
		;
	/* A socket still full after the drain may drop the answer silently. */
	l->overrun = now() >= until;
	req_init(&req, family, TASKSTATS_CMD_GET, NLM_F_ACK, ++l->seq);
	req_put(&req, attr, mask, strlen(mask) + 1);
	l->ack_wait = true;
	err = nl_send(l->fd, &req);
	if (err) {
		l->ack_wait = false;
		return err;
	}
	until = now() + op_timeout;
	while (l->ack_wait) {
		n = listener_read(l, 64);
		if (!l->ack_wait)
			break;
		if (n < 64 && l->overrun) {
			l->ack_wait = false;
			l->lost_acks++;
			return ACK_LOST;
		}
		if (now() >= until) {
			l->ack_wait = false;
			return -ETIMEDOUT;
		}
		if (n < 64)
			wait_in(l->fd, 50);
	}
	return l->ack_err;
}

static int listener_init(struct listener *l, const char *name, int index)
{
	snprintf(l->name, sizeof(l->name), "%s%d", name, index);
	l->fd = -1;
	l->buf = malloc(BUF_SIZE);
	l->seen = calloc(1, map_bytes);
	l->rng = rng_seed(100 + index);
	return l->buf && l->seen ? 0 : -ENOMEM;
}

/* Opens @l's socket and registers it for every possible CPU. */
static int listener_open_all(struct listener *l, int rcvbuf)
{
	struct stat st;
	int err;

	l->fd = nl_open(rcvbuf);
	if (l->fd < 0)
		return l->fd;
	if (!fstat(l->fd, &st))
		l->ino = st.st_ino;
	err = listener_cpumask(l, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, possible_str);
	return err == ACK_LOST ? -ENOBUFS : err;
}

/*
 * A steady reader: reads everything until the storm is over, then what
 * is left, all of which was queued before the workers reaped the tasks.
 */
static void *steady_main(void *arg)
{
	struct listener *l = arg;

	while (!flag_get(&storm_over)) {
		wait_in(l->fd, 100);
		listener_read(l, 256);
	}
	while (listener_read(l, 256) == 256) {
		if (now() >= drain_until) {
			l->drain_cut = true;
			break;
		}
	}
	return NULL;
}

static void *idle_thread(void *arg)
{
	return NULL;
}

/* A burst of exits on the chaotic thread's CPU: threads that return. */
static void burst(struct listener *l)
{
	pthread_t t[BURST];
	int i, n = 0;

	for (i = 0; i < BURST; i++)
		if (!pthread_create(&t[n], &small_stack, idle_thread, NULL))
			n++;
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	l->bursts++;
}

/* A random cpulist of possible CPUs; now and then all, or none at all. */
static void random_mask(__u64 *rng, char *buf, size_t size)
{
	size_t pos = 0;
	int i;

	buf[0] = '\0';
	if (!rng_below(rng, 4)) {
		snprintf(buf, size, "%s", possible_str);
		return;
	}
	for (i = 0; i < npossible && pos + 16 < size; i++) {
		if (rng_below(rng, 2))
			continue;
		pos += snprintf(buf + pos, size - pos, "%s%d", pos ? "," : "",
				possible[i]);
	}
	/* An empty cpulist is valid and registers nothing. */
	if (!pos && rng_below(rng, 8))
		snprintf(buf, size, "%d", possible[rng_below(rng, npossible)]);
}

static void chaotic_cpumask(struct listener *l, int attr, const char *mask)
{
	int err = listener_cpumask(l, attr, mask);

	if (err == ACK_LOST)
		return;
	if (err == -ENOMEM) {
		l->enomem++;
		return;
	}
	if (err == -ETIMEDOUT)
		violation("%s: no answer to %s \"%s\" within %.0f s", l->name,
			  cpumask_op(attr), mask, op_timeout);
	else if (err)
		violation("%s: %s \"%s\" failed: %s", l->name, cpumask_op(attr),
			  mask, strerror(-err));
	else if (attr == TASKSTATS_CMD_ATTR_REGISTER_CPUMASK)
		l->registrations++;
}

static void chaotic_read_for(struct listener *l, double ms)
{
	double until = now() + ms / 1000;

	while (!flag_get(&aux_stop) && now() < until) {
		wait_in(l->fd, (until - now()) * 1000 < 100 ? (until - now()) * 1000 : 100);
		listener_read(l, 64);
	}
}

/*
 * One socket's life: registered for random CPUs, then a few random steps,
 * then closed, often with records queued or on their way.
 */
static void chaotic_round(struct listener *l)
{
	int rcvbuf = 4096 << rng_below(&l->rng, 9);
	char mask[sizeof(possible_str)], other[sizeof(possible_str)];
	bool close_now = false;
	int steps, i, j;

	l->fd = nl_open(rcvbuf);
	if (l->fd < 0) {
		violation("%s: socket: %s", l->name, strerror(-l->fd));
		sleep_ms(100);
		return;
	}
	memset(l->seen, 0, map_bytes);
	l->sockets++;
	l->last_tgid = 0;
	random_mask(&l->rng, mask, sizeof(mask));
	chaotic_cpumask(l, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask);
	steps = 1 + rng_below(&l->rng, 6);
	for (i = 0; i < steps && !close_now && !flag_get(&aux_stop); i++) {
		switch (rng_below(&l->rng, 6)) {
		case 0:		/* read for a while */
			chaotic_read_for(l, 10 + rng_below(&l->rng, 300));
			break;
		case 1:		/* let records pile up, maybe overflow */
			sleep_ms(10 + rng_below(&l->rng, 300));
			break;
		case 2:		/* move to other CPUs */
			random_mask(&l->rng, other, sizeof(other));
			chaotic_cpumask(l, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, other);
			random_mask(&l->rng, mask, sizeof(mask));
			chaotic_cpumask(l, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask);
			break;
		case 3:		/* CPUs off and on: at most once still holds */
			random_mask(&l->rng, other, sizeof(other));
			for (j = 0; j < 8 && !flag_get(&aux_stop); j++) {
				chaotic_cpumask(l, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
						other);
				chaotic_cpumask(l, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK,
						other);
			}
			break;
		case 4:		/* exits here, and maybe close while they arrive */
			burst(l);
			close_now = rng_below(&l->rng, 2);
			break;
		default:	/* no CPU at all, the socket stays: then again */
			chaotic_cpumask(l, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
					possible_str);
			chaotic_read_for(l, rng_below(&l->rng, 50));
			random_mask(&l->rng, mask, sizeof(mask));
			chaotic_cpumask(l, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, mask);
			break;
		}
	}
	if (wait_in(l->fd, 0) > 0)
		l->unread_closes++;
	close(l->fd);
	l->fd = -1;
}

static void pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static void *chaotic_main(void *arg)
{
	struct listener *l = arg;
	char name[16];

	snprintf(name, sizeof(name), "tss_%.11s", l->name);
	prctl(PR_SET_NAME, name);
	pin_to(l->cpu);
	while (!flag_get(&aux_stop))
		chaotic_round(l);
	return NULL;
}

/* -------------------------------------------------------------- dumps */

static void dump_record(const struct record *r, int i, void *arg)
{
	struct dump_walk *w = arg;

	if (r->aggr != w->aggr) {
		violation("dump: aggregate %d in a dump of %d", r->aggr, w->aggr);
		return;
	}
	if (w->records && r->id <= w->prev)
		violation("dump: id %u after %u: not in increasing order", r->id, w->prev);
	w->prev = r->id;
	w->records++;
	if (r->aggr == TASKSTATS_TYPE_AGGR_PID && r->has_pid && r->ac_pid != r->id)
		violation("dump: the record of pid %u says ac_pid %u", r->id, r->ac_pid);
	if (r->id == w->self)
		w->saw_self = true;
	if (r->id == (__u32)setns_pid)
		w->saw_setns = true;
	if (r->id == (__u32)exec_pid)
		w->saw_exec = true;
}

static void dumper_reopen(struct dumper *d)
{
	close(d->fd);
	d->fd = nl_open(1 << 20);
}

/* What is wrong with the end of a complete dump, if anything. */
static void dump_end(struct dumper *d, struct dump_walk *w, bool tgid)
{
	if (!w->saw_self)
		violation("dump%s: %u is alive throughout but was not listed",
			  tgid ? " by tgid" : "", w->self);
	if (setns_pid > 0 && !w->saw_setns)
		d->setns_missing++;
	if (exec_pid > 0 && !w->saw_exec)
		d->exec_missing++;
	d->dumps++;
	d->records += w->records;
}

/*
 * One dump, read to its NLMSG_DONE. Returns 0, the error the dump ended
 * with, or -ETIMEDOUT; a probe reports nothing.
 */
static int dump_once(struct dumper *d, bool tgid, bool probe)
{
	struct dump_walk w = {
		.d = d,
		.aggr = tgid ? TASKSTATS_TYPE_AGGR_TGID : TASKSTATS_TYPE_AGGR_PID,
		.self = tgid ? (__u32)getpid() : (__u32)thread_id(),
	};
	double until = now() + op_timeout;
	const char *how = tgid ? " by tgid" : "";
	struct nl_req req;
	int err;

	if (d->fd < 0)
		return -EBADF;
	req_init(&req, family, TASKSTATS_CMD_GET, NLM_F_DUMP, ++d->seq);
	if (tgid)
		req_put(&req, TASKSTATS_CMD_ATTR_DUMP_TGID, NULL, 0);
	err = nl_send(d->fd, &req);
	if (err) {
		if (!probe)
			violation("dump%s: send: %s", how, strerror(-err));
		return err;
	}
	for (;;) {
		struct nlmsghdr *h;
		const char *why;
		int n;

		if (now() >= until) {
			if (!probe)
				violation("dump%s: no NLMSG_DONE within %.0f s", how,
					  op_timeout);
			dumper_reopen(d);
			return -ETIMEDOUT;
		}
		wait_in(d->fd, (until - now()) * 1000);
		n = nl_recv(d->fd, d->buf, BUF_SIZE, MSG_DONTWAIT);
		if (n == -EAGAIN || n == -EINTR)
			continue;
		if (n < 0) {
			if (!probe)
				violation("dump%s: recv: %s", how, strerror(-n));
			dumper_reopen(d);
			return n;
		}
		for (h = (struct nlmsghdr *)d->buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != d->seq) {
				violation("dump%s: a message of request %u in request %u",
					  how, h->nlmsg_seq, d->seq);
				continue;
			}
			if (h->nlmsg_type == NLMSG_DONE) {
				if (h->nlmsg_len < NLMSG_LENGTH(sizeof(int))) {
					violation("dump%s: NLMSG_DONE without its error", how);
					return -EBADMSG;
				}
				memcpy(&err, NLMSG_DATA(h), sizeof(err));
				if (err && !probe)
					violation("dump%s: ended with error %d (%s)", how,
						  err, strerror(-err));
				if (!err && !probe)
					dump_end(d, &w, tgid);
				return err;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				err = nl_error(h);
				if (!probe)
					violation("dump%s: refused with %d (%s)", how, err,
						  strerror(-err));
				return err ? err : -EBADMSG;
			}
			if (h->nlmsg_type != family || !(h->nlmsg_flags & NLM_F_MULTI)) {
				violation("dump%s: a message of type %u, flags %#x", how,
					  h->nlmsg_type, h->nlmsg_flags);
				continue;
			}
			if (parse_message(h, dump_record, &w, &why) < 0)
				violation("dump%s: malformed message: %s", how, why);
		}
		if (n > 0)
			violation("dump%s: %d stray bytes after the messages of a datagram",
				  how, n);
	}
}

static void *dump_main(void *arg)
{
	struct dumper *d = arg;
	bool tgid = false;

	prctl(PR_SET_NAME, "tss_dump");
	while (!flag_get(&aux_stop)) {
		if (d->fd < 0) {
			dumper_reopen(d);
			if (d->fd < 0) {
				violation("dump: socket: %s", strerror(-d->fd));
				sleep_ms(100);
				continue;
			}
		}
		dump_once(d, tgid, false);
		tgid = !tgid;
		sleep_ms((5 + rng_below(&d->rng, 45)) * opt.pace);
	}
	return NULL;
}

/* --------------------------------------------------------------- GETs */

static void get_record(const struct record *r, int i, void *arg)
{
	struct get_walk *w = arg;

	w->records++;
	if (i || r->aggr != w->aggr || r->id != w->id) {
		violation("GET %u: record %d is aggregate %d of %u", w->id, i,
			  r->aggr, r->id);
		w->bad = true;
	} else if (r->aggr == TASKSTATS_TYPE_AGGR_PID && r->has_pid &&
		   r->ac_pid != r->id) {
		/*
		 * Upstream's GET fills the record of a task reaped after the
		 * lookup, and the pid it no longer has reads 0; the series
		 * answers ESRCH. A kernel without the dump has upstream's
		 * netlink code (the reference, an early step of the series).
		 * Between the two, the exec loop's thread that execs swaps
		 * pids with its leader (de_thread()): a task of that group
		 * looked up before the swap reads the other's pid.
		 */
		if (!dumps_ok && (!r->ac_pid || (r->has_tgid &&
						 r->ac_tgid == (__u32)exec_pid))) {
			w->reaped = true;
			return;
		}
		violation("GET %u: the record says ac_pid %u", w->id, r->ac_pid);
		w->bad = true;
	}
}

/* One GET by pid or tgid: a record of it, or ESRCH, EPERM, ENOMEM. */
static void do_get(struct getter *g, int attr, __u32 id)
{
	struct get_walk w = {
		.aggr = attr == TASKSTATS_CMD_ATTR_PID ? TASKSTATS_TYPE_AGGR_PID :
							 TASKSTATS_TYPE_AGGR_TGID,
		.id = id,
	};
	const char *how = attr == TASKSTATS_CMD_ATTR_PID ? "pid" : "tgid";
	struct nlmsghdr *h;
	struct nl_req req;
	const char *why;
	int n;

	if (g->fd < 0)
		return;
	req_init(&req, family, TASKSTATS_CMD_GET, 0, ++g->seq);
	req_put(&req, attr, &id, sizeof(id));
	n = nl_send(g->fd, &req);
	if (!n)
		n = nl_answer(g->fd, g->seq, g->buf, now() + op_timeout, &h);
	if (n < 0) {
		violation("GET %s %u: %s", how, id,
			  n == -ETIMEDOUT ? "no answer in time" : strerror(-n));
		close(g->fd);
		g->fd = nl_open(1 << 20);
		return;
	}
	g->gets++;
	if (h->nlmsg_type == NLMSG_ERROR) {
		n = nl_error(h);
		if (n == -ESRCH)
			g->esrch++;
		else if (n == -EPERM)
			g->eperm++;
		else if (n == -ENOMEM)
			g->enomem++;
		else
			violation("GET %s %u: answered %d (%s)", how, id, n,
				  n ? strerror(-n) : "an acknowledgment, no record");
		return;
	}
	if (h->nlmsg_type != family) {
		violation("GET %s %u: answered with a message of type %u", how, id,
			  h->nlmsg_type);
		return;
	}
	if (parse_message(h, get_record, &w, &why) < 0)
		violation("GET %s %u: malformed answer: %s", how, id, why);
	else if (w.reaped)
		g->reaped++;
	else if (!w.bad)
		g->records++;
}

/* Up to @max thread ids of process @tgid. */
static int task_ids(pid_t tgid, __u32 *ids, int max)
{
	struct dirent *e;
	char path[64];
	int n = 0;
	DIR *dir;

	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	dir = opendir(path);
	if (!dir)
		return 0;
	while (n < max && (e = readdir(dir)))
		if (e->d_name[0] != '.')
			ids[n++] = strtoul(e->d_name, NULL, 10);
	closedir(dir);
	return n;
}

static int random_attr(struct getter *g)
{
	return rng_below(&g->rng, 2) ? TASKSTATS_CMD_ATTR_PID : TASKSTATS_CMD_ATTR_TGID;
}

static void *get_main(void *arg)
{
	struct getter *g = arg;
	__u32 ids[16];
	char sink[256];
	int i, n;

	prctl(PR_SET_NAME, "tss_get");
	while (!flag_get(&aux_stop)) {
		unsigned long next, id;
		ssize_t got;

		if (g->fd < 0) {
			g->fd = nl_open(1 << 20);
			if (g->fd < 0) {
				violation("GET: socket: %s", strerror(-g->fd));
				sleep_ms(100);
				continue;
			}
		}
		got = read(exec_count_fd, sink, sizeof(sink));
		if (got > 0)
			__atomic_add_fetch(&execs, got, __ATOMIC_RELAXED);
		switch (rng_below(&g->rng, 4)) {
		case 0:		/* the exec loop, as a whole */
			do_get(g, TASKSTATS_CMD_ATTR_TGID, exec_pid);
			do_get(g, TASKSTATS_CMD_ATTR_PID, exec_pid);
			break;
		case 1:		/* each of its threads, exec'ing or dying */
			n = task_ids(exec_pid, ids, 16);
			for (i = 0; i < n && !flag_get(&aux_stop); i++)
				do_get(g, random_attr(g), ids[i]);
			break;
		case 2:		/* the setns child */
			do_get(g, random_attr(g), setns_pid);
			break;
		default:	/* the storm's youngest, as they exit */
			next = shared_get(&sh->next_id);
			if (next > opt.tasks)
				next = opt.tasks;
			for (i = 0; i < 4 && next; i++) {
				id = next - 1 - rng_below(&g->rng, next < 64 ? next : 64);
				n = __atomic_load_n(&pids[id], __ATOMIC_ACQUIRE);
				if (n)
					do_get(g, random_attr(g), n);
			}
			break;
		}
		sleep_ms(opt.pace);
	}
	return NULL;
}

/* ------------------------------------------------------------ storm */

static unsigned long next_storm_id(void)
{
	unsigned long id;

	if (flag_get(&sh->stop))
		return NO_ID;
	id = __atomic_fetch_add(&sh->next_id, 1, __ATOMIC_RELAXED);
	return id < opt.tasks ? id : NO_ID;
}

/* A storm task has been reaped: @code is its TASK_* code, or -1. */
static void storm_exited(int cpu, bool thread, int code)
{
	shared_add(&sh->exited, 1);
	shared_add(thread ? &sh->threads : &sh->procs, 1);
	shared_add(&sh->cpu_exits[cpu], 1);
	if (code == TASK_WRONG_CPU)
		shared_add(&sh->wrong_cpu, 1);
	else if (code == TASK_UNNAMED)
		shared_add(&sh->unnamed, 1);
	else if (code < 0)
		shared_add(&sh->killed, 1);
}

/* A storm child: names itself, reports its pid and CPU, exits. */
static void storm_child(unsigned long id, int cpu)
{
	char name[16];

	if (id % THREADED_EVERY == THREADED_EVERY - 1) {
		pthread_t t;

		/* Our exit then ends a multi-threaded group: AGGR_TGID too. */
		if (!pthread_create(&t, &small_stack, idle_thread, NULL))
			pthread_join(t, NULL);
	}
	storm_name(name, id);
	if (prctl(PR_SET_NAME, name))
		_exit(TASK_UNNAMED);
	__atomic_store_n(&pids[id], getpid(), __ATOMIC_RELEASE);
	_exit(sched_getcpu() == cpu ? TASK_OK : TASK_WRONG_CPU);
}

static void fork_worker(int cpu)
{
	unsigned long id, n = 0;
	int status;
	pid_t pid;

	while ((id = next_storm_id()) != NO_ID) {
		/* Handed out before the task exists: its record cannot precede it. */
		bit_set_shared(created, id);
		while ((pid = fork()) < 0) {
			if (flag_get(&sh->stop)) {
				bit_clear_shared(created, id);
				_exit(0);
			}
			shared_add(&sh->retries, 1);
			sleep_ms(1);
		}
		if (!pid)
			storm_child(id, cpu);
		/* Our alarm() bounds this wait. */
		if (waitpid(pid, &status, 0) != pid)
			_exit(3);
		storm_exited(cpu, false, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		if (!(++n % 16))
			sched_yield();
	}
	_exit(0);
}

struct storm_thread {
	unsigned long id;
	int cpu;
	int code;
};

static void *storm_thread_main(void *arg)
{
	struct storm_thread *st = arg;
	char name[16];

	storm_name(name, st->id);
	if (prctl(PR_SET_NAME, name)) {
		st->code = TASK_UNNAMED;
		return NULL;
	}
	__atomic_store_n(&pids[st->id], thread_id(), __ATOMIC_RELEASE);
	st->code = sched_getcpu() == st->cpu ? TASK_OK : TASK_WRONG_CPU;
	return NULL;
}

static void thread_worker(int cpu)
{
	struct storm_thread st;
	unsigned long n = 0;
	pthread_t t;

	while ((st.id = next_storm_id()) != NO_ID) {
		st.cpu = cpu;
		st.code = TASK_OK;
		bit_set_shared(created, st.id);
		while (pthread_create(&t, &small_stack, storm_thread_main, &st)) {
			if (flag_get(&sh->stop)) {
				bit_clear_shared(created, st.id);
				_exit(0);
			}
			shared_add(&sh->retries, 1);
			sleep_ms(1);
		}
		/* Returns once the kernel cleared the tid: after the exit record. */
		pthread_join(t, NULL);
		storm_exited(cpu, true, st.code);
		if (!(++n % 16))
			sched_yield();
	}
	_exit(0);
}

/* A storm worker: pinned, waits for the start (EOF on @start), runs. */
static void storm_worker(int cpu, bool threads, int start)
{
	struct pollfd p = { .fd = start, .events = POLLIN };
	cpu_set_t set;

	prctl(PR_SET_NAME, threads ? "tss_threads" : "tss_forks");
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(5);
	if (poll(&p, 1, secs_left() * 1000) != 1)
		_exit(6);
	close(start);
	if (threads)
		thread_worker(cpu);
	fork_worker(cpu);
}

/* ------------------------------------------------- exec loop and setns */

static void *sleeper(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

static void *execer(void *arg)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	sleep_ms(1 + ts.tv_nsec % 20);
	execl("/proc/self/exe", "taskstats_stress", (char *)NULL);
	_exit(3);
}

/*
 * A generation of the exec loop (EXEC_ENV is "fd:parent:deadline"):
 * counts itself on the pipe, starts threads, and one of them, not the
 * leader, executes us again.
 */
static int exec_generation(const char *spec)
{
	long parent, until;
	pthread_t t;
	ssize_t ret;
	int fd, i;

	if (sscanf(spec, "%d:%ld:%ld", &fd, &parent, &until) != 3)
		return 1;
	/* Whoever execs was not the leader: its parent-death signal is gone. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent || now() >= until)
		return 0;
	alarm((unsigned int)(until - now()) + 1);
	/* A full pipe only costs the count one generation. */
	ret = write(fd, "x", 1);
	(void)ret;
	for (i = 0; i < EXEC_THREADS; i++)
		pthread_create(&t, NULL, sleeper, NULL);
	if (pthread_create(&t, NULL, execer, NULL))
		return 2;
	for (;;)
		pause();
}

static int switch_ns(int net, int uts)
{
	if (net >= 0 && setns(net, CLONE_NEWNET))
		return -errno;
	if (setns(uts, CLONE_NEWUTS))
		return -errno;
	return 0;
}

/*
 * Makes new namespaces (net and UTS, or UTS alone without net
 * namespaces), keeps them open in *@net and *@uts and goes back to
 * @net0 and @uts0.
 */
static int new_namespaces(int *flags, int *net, int *uts, int net0, int uts0)
{
	int nfd = -1, ufd;

	while (unshare(*flags)) {
		if (errno != EINVAL || !(*flags & CLONE_NEWNET))
			return -errno;
		*flags = CLONE_NEWUTS;
	}
	sethostname("tss-setns", 9);
	if (*flags & CLONE_NEWNET)
		nfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	ufd = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
	if (ufd < 0 || ((*flags & CLONE_NEWNET) && nfd < 0))
		return -errno;
	if (*net >= 0)
		close(*net);
	if (*uts >= 0)
		close(*uts);
	*net = nfd;
	*uts = ufd;
	shared_add(&sh->setns_made, 1);
	return switch_ns(net0, uts0);
}

/*
 * The setns child: back and forth between its namespaces and new ones,
 * replaced every 2 s (a new net namespace is costly: not more often).
 */
static void setns_child(void)
{
	int flags = CLONE_NEWNET | CLONE_NEWUTS;
	int net0, uts0, net = -1, uts = -1;
	double renew = 0;
	unsigned long i;
	int err;

	prctl(PR_SET_NAME, "tss_setns");
	net0 = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
	uts0 = open("/proc/self/ns/uts", O_RDONLY | O_CLOEXEC);
	if (net0 < 0 || uts0 < 0) {
		sh->setns_skip = errno;
		_exit(0);
	}
	for (i = 0;; i++) {
		if (now() >= renew) {
			err = new_namespaces(&flags, &net, &uts, net0, uts0);
			if (err && uts < 0) {
				sh->setns_skip = -err;
				_exit(0);
			}
			if (err)
				break;
			renew = now() + 2;
		}
		err = switch_ns(net, uts);
		if (!err)
			err = switch_ns(net0, uts0);
		if (err)
			break;
		shared_add(&sh->setns_loops, 1);
		if (i % 8 && opt.pace == 1)
			sched_yield();
		else
			sleep_ms(opt.pace);
	}
	sh->setns_err = -err;
	_exit(2);
}

/* ----------------------------------------------------------- children */

/*
 * Forks a child into the process group of our children (the first child
 * founds it): killed with us (parent-death signal) and by its own alarm
 * at the deadline, with the default SIGALRM and SIGPIPE.
 */
static pid_t spawn(void)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid) {
		setpgid(pid, pgrp ? pgrp : pid);
		return pid;
	}
	setpgid(0, pgrp);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != main_pid)
		_exit(0);
	signal(SIGALRM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	alarm(secs_left() + 5);
	return 0;
}

static pid_t start_anchor(void)
{
	pid_t pid = spawn();

	if (!pid) {
		prctl(PR_SET_NAME, "tss_anchor");
		for (;;)
			pause();
	}
	return pid;
}

static pid_t start_setns(void)
{
	pid_t pid = spawn();

	if (!pid)
		setns_child();
	return pid;
}

static pid_t start_exec_loop(void)
{
	char spec[64];
	int p[2], fd;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC | O_NONBLOCK))
		return -errno;
	pid = spawn();
	if (!pid) {
		/* Kept across exec, unlike the pipe itself. */
		fd = dup(p[1]);
		snprintf(spec, sizeof(spec), "%d:%d:%ld", fd, (int)main_pid,
			 (long)t_hard + 5);
		setenv(EXEC_ENV, spec, 1);
		_exit(exec_generation(spec));
	}
	close(p[1]);
	exec_count_fd = p[0];
	return pid;
}

/*
 * Reaps what exited; returns how many of @w are left. Once @stopping, a
 * worker we killed is part of the timeout already reported: marked so.
 */
static int reap_workers(struct worker *w, int n, bool stopping)
{
	int i, status, left = 0;

	for (i = 0; i < n; i++) {
		if (w[i].done)
			continue;
		if (waitpid(w[i].pid, &status, WNOHANG) != w[i].pid) {
			left++;
			continue;
		}
		w[i].done = true;
		if (stopping && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) {
			w[i].killed = true;
			continue;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			violation("storm worker %d (%s, CPU %d) ended with status %#x",
				  w[i].pid, w[i].threads ? "threads" : "forks",
				  w[i].cpu, status);
	}
	return left;
}

/* Waits for @pid until @until; returns its status, or -1. */
static int reap_by(pid_t pid, double until)
{
	int status;

	if (pid <= 0)
		return -1;
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		if (r < 0 || now() >= until)
			return -1;
		sleep_ms(10);
	}
}

/* ------------------------------------------------------------- checks */

/*
 * The Drops column of /proc/net/netlink for the socket with inode @ino,
 * or -1. Columns are found by their header, not by position.
 */
static long netlink_drops(ino_t ino)
{
	int drops_col = -1, inode_col = -1, col;
	char line[512], *tok, *save;
	long drops = -1;
	FILE *f;

	f = fopen("/proc/net/netlink", "re");
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f)) {
		col = 0;
		for (tok = strtok_r(line, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save), col++) {
			if (!strcmp(tok, "Drops"))
				drops_col = col;
			else if (!strcmp(tok, "Inode"))
				inode_col = col;
		}
	}
	while (drops_col >= 0 && inode_col >= 0 && fgets(line, sizeof(line), f)) {
		long d = -1;
		bool match = false;

		col = 0;
		for (tok = strtok_r(line, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save), col++) {
			if (col == drops_col)
				d = strtol(tok, NULL, 10);
			else if (col == inode_col)
				match = strtoull(tok, NULL, 10) == (unsigned long long)ino;
		}
		if (match) {
			drops = d;
			break;
		}
	}
	fclose(f);
	return drops;
}

/*
 * A steady listener heard every storm exit, as a record or as a drop.
 * Drops count other tasks' exits too: an inequality.
 */
static long check_steady(struct listener *l, unsigned long expected, bool complete)
{
	long drops = netlink_drops(l->ino);

	printf("# %s: %lu records (%lu of storm tasks, %lu groups), %ld drops, %lu ENOBUFS%s\n",
	       l->name, l->records, l->storm_records, l->group_records, drops,
	       l->enobufs, l->drain_cut ? ", final drain cut short" : "");
	/* Workers killed at a deadline leave exits uncounted: no balance. */
	if (!complete)
		return drops;
	if (l->storm_records > expected)
		violation("%s: %lu storm records for %lu storm tasks", l->name,
			  l->storm_records, expected);
	if (drops < 0 && l->storm_records < expected)
		violation("%s: %lu of %lu storm records, and no Drops in /proc/net/netlink",
			  l->name, l->storm_records, expected);
	else if (drops >= 0 && l->storm_records + drops < expected)
		violation("%s: %lu storm records + %ld drops < %lu storm exits",
			  l->name, l->storm_records, drops, expected);
	return drops;
}

/* The silent listener must have overflowed and have ENOBUFS pending. */
static long check_silent(struct listener *l, unsigned long exits)
{
	long drops = netlink_drops(l->ino);
	socklen_t len = sizeof(int);
	int err = 0;

	getsockopt(l->fd, SOL_SOCKET, SO_ERROR, &err, &len);
	printf("# %s: never read, %ld drops, pending error %d (%s)\n", l->name,
	       drops, err, err ? strerror(err) : "none");
	if (drops < 0) {
		printf("# %s: no Drops in /proc/net/netlink, overflow not checked\n",
		       l->name);
	} else if (!drops) {
		/* Its queue holds a few records: fewer exits may all fit. */
		if (exits >= 100)
			violation("%s: %lu exits and not one dropped", l->name, exits);
		else
			printf("# %s: only %lu storm exits, which may all fit\n",
			       l->name, exits);
	} else if (err != ENOBUFS) {
		violation("%s: %ld drops but pending error %d, not ENOBUFS",
			  l->name, drops, err);
	}
	return drops;
}

/* ------------------------------------------------------------- setup */

static void print_help(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [--tasks N] [--time S] [--listeners N] [--seed N] [--pace N]\n"
		"          [--quick] [--verbose]\n"
		"  --tasks N      short-lived tasks of the exit storm (default 100000)\n"
		"  --time S       hard deadline of the whole run, seconds (default 600)\n"
		"  --listeners N  listener sockets, at least 8 (default 8)\n"
		"  --seed N       seed of the random choices (default: from the clock)\n"
		"  --pace N       pause the dumps, GETs and namespace switches N times\n"
		"                 longer (default 1), leaving the storm the CPU on a\n"
		"                 slow (debug) kernel\n"
		"  --quick        a smoke run: 20000 tasks within 60 s, or those that\n"
		"                 exited by the storm's deadline\n"
		"  --verbose      progress and per-thread counters\n"
		"Exit status: 0 pass, 1 violation or timeout, 4 no TASKSTATS family or not root.\n",
		prog);
}

static bool parse_ulong(const char *s, unsigned long min, unsigned long max,
			unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return !errno && end != s && !*end && *v >= min && *v <= max;
}

/* Returns -1 to go on, or the exit status. */
static int parse_options(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "tasks", required_argument, NULL, 'n' },
		{ "time", required_argument, NULL, 't' },
		{ "listeners", required_argument, NULL, 'l' },
		{ "seed", required_argument, NULL, 's' },
		{ "pace", required_argument, NULL, 'p' },
		{ "quick", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	bool tasks_set = false, time_set = false, seed_set = false;
	unsigned long v;
	int c;

	while ((c = getopt_long(argc, argv, "n:t:l:s:p:qvh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (!parse_ulong(optarg, 1, MAX_TASKS, &opt.tasks))
				goto bad;
			tasks_set = true;
			break;
		case 't':
			if (!parse_ulong(optarg, 5, 24 * 3600, &opt.time))
				goto bad;
			time_set = true;
			break;
		case 'l':
			if (!parse_ulong(optarg, MIN_LISTENERS, MAX_LISTENERS, &v))
				goto bad;
			opt.listeners = v;
			break;
		case 's':
			if (!parse_ulong(optarg, 0, ~0UL, &opt.seed))
				goto bad;
			seed_set = true;
			break;
		case 'p':
			if (!parse_ulong(optarg, 1, 1000, &opt.pace))
				goto bad;
			break;
		case 'q':
			opt.quick = true;
			break;
		case 'v':
			opt.verbose = true;
			break;
		case 'h':
			print_help(stdout, argv[0]);
			return 0;
		default:
			goto bad;
		}
	}
	if (optind != argc)
		goto bad;
	if (opt.quick && !tasks_set)
		opt.tasks = 20000;
	if (opt.quick && !time_set)
		opt.time = 60;
	if (!seed_set)
		opt.seed = (unsigned long)time(NULL) ^ ((unsigned long)getpid() << 16);
	return -1;
bad:
	fprintf(stderr,
		"%s: bad arguments (--listeners 8 to %d, --tasks 1 to %lu, --time 5 s or more)\n",
		argv[0], MAX_LISTENERS, MAX_TASKS);
	print_help(stderr, argv[0]);
	return 1;
}

/* The CPUs we may run on, and the possible ones (for cpulists). */
static void find_cpus(void)
{
	char buf[sizeof(possible_str)], *p;
	long conf = sysconf(_SC_NPROCESSORS_CONF);
	cpu_set_t set;
	int i;

	if (conf < 1 || conf > CPU_SETSIZE)
		conf = CPU_SETSIZE;
	if (sched_getaffinity(0, sizeof(set), &set))
		CPU_ZERO(&set);
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &set))
			cpus[ncpus++] = i;
	if (!ncpus)
		cpus[ncpus++] = 0;

	possible_str[0] = '\0';
	i = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
	if (i >= 0) {
		ssize_t n = read(i, possible_str, sizeof(possible_str) - 1);

		possible_str[n > 0 ? n : 0] = '\0';
		possible_str[strcspn(possible_str, "\n")] = '\0';
		close(i);
	}
	if (!possible_str[0])
		snprintf(possible_str, sizeof(possible_str), "0-%ld", conf - 1);
	/* "0-3,8-11": ranges and single CPUs. */
	snprintf(buf, sizeof(buf), "%s", possible_str);
	for (p = strtok(buf, ","); p && npossible < CPU_SETSIZE; p = strtok(NULL, ",")) {
		int lo, hi;

		if (sscanf(p, "%d-%d", &lo, &hi) != 2) {
			lo = atoi(p);
			hi = lo;
		}
		for (i = lo; i <= hi && i < CPU_SETSIZE && npossible < CPU_SETSIZE; i++)
			possible[npossible++] = i;
	}
	if (!npossible)
		possible[npossible++] = 0;
	printf("# CPUs: %d to run on (sysconf: %ld configured), possible %s\n",
	       ncpus, conf, possible_str);
}

static void *map_shared(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * Before any child: the family, the right to register listeners, and
 * whether this kernel dumps (the reference implementation cannot).
 * Returns -1 to go on, or the exit status.
 */
static int preflight(struct dumper *d)
{
	struct listener l = { 0 };
	int err;

	if (listener_init(&l, "probe", 0))
		return 1;
	l.fd = nl_open(1 << 20);
	if (l.fd < 0) {
		printf("# no generic netlink socket: %s\n", strerror(-l.fd));
		return EXIT_SKIP;
	}
	err = resolve_family(l.fd, &family);
	if (err) {
		printf("# no TASKSTATS generic netlink family: %s\n", strerror(-err));
		return EXIT_SKIP;
	}
	err = listener_cpumask(&l, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, possible_str);
	if (err) {
		printf("# cannot register an exit listener for %s: %s%s\n",
		       possible_str, err == ACK_LOST ? "no answer" : strerror(-err),
		       err == -EPERM ? " (not root?)" : "");
		return EXIT_SKIP;
	}
	err = listener_cpumask(&l, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, possible_str);
	if (err && err != ACK_LOST)
		violation("probe: deregister \"%s\" failed: %s", possible_str,
			  strerror(-err));
	close(l.fd);
	free(l.buf);
	free(l.seen);

	d->fd = nl_open(1 << 20);
	err = dump_once(d, false, true);
	if (err == -EOPNOTSUPP) {
		printf("# this kernel cannot dump (the reference?): no dumps\n");
		dumps_ok = false;
	} else if (err) {
		violation("probe: a dump ended with %d (%s)", err, strerror(-err));
	}
	close(d->fd);
	d->fd = -1;
	return -1;
}

/* ---------------------------------------------------------------- main */

static void watchdog(int sig)
{
	static const char msg[] = "# violation: the run exceeded --time; everything killed\n";
	pid_t g = __atomic_load_n(&pgrp, __ATOMIC_RELAXED);
	ssize_t ret;

	if (g > 0)
		kill(-g, SIGKILL);
	ret = write(STDOUT_FILENO, msg, sizeof(msg) - 1);
	(void)ret;
	_exit(1);
}

/* Joins @t by @until; a thread that does not end is a hang. */
static void join_by(pthread_t t, double until, const char *name)
{
	struct timespec ts;
	double left = until - now();
	int err;

	if (left < 0.1)
		left = 0.1;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)left;
	ts.tv_nsec += (long)((left - (time_t)left) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	err = pthread_timedjoin_np(t, NULL, &ts);
	if (err) {
		violation("%s did not end in time: %s", name, strerror(err));
		hung = true;
	}
}

static void progress(double storm_start)
{
	fprintf(stdout,
		"# %.0f s: %lu of %lu storm tasks exited (%lu processes, %lu threads), %lu execs, %lu setns loops\n",
		now() - storm_start, shared_get(&sh->exited), opt.tasks,
		shared_get(&sh->procs), shared_get(&sh->threads),
		__atomic_load_n(&execs, __ATOMIC_RELAXED), shared_get(&sh->setns_loops));
}

int main(int argc, char **argv)
{
	const char *spec = getenv(EXEC_ENV);
	struct listener *ls, *silent = NULL;
	struct dumper dumper = { .fd = -1 };
	struct getter getter = { .fd = -1 };
	int nworkers = 0, start[2];
	unsigned long expected, records = 0, dumps = 0;
	double storm_start = 0, storm_end = 0, storm_deadline, margin, stop_at = 0;
	double next_progress, secs, until;
	long drops, total_drops = 0;
	bool storm_done = false, drops_known = true, killed = false, cut = false;
	struct worker *workers;
	int i, ret, status;
	char buf[32];

	/* A generation of the exec loop, not a run. */
	if (spec)
		return exec_generation(spec);
	setvbuf(stdout, NULL, _IOLBF, 0);
	ret = parse_options(argc, argv);
	if (ret >= 0)
		return ret;

	main_pid = getpid();
	t_start = now();
	t_hard = t_start + opt.time;
	/* Time kept after the storm to stop everything and check. */
	margin = opt.time / 6.0;
	margin = margin < 10 ? 10 : margin > 60 ? 60 : margin;
	if (margin > opt.time / 2.0)
		margin = opt.time / 2.0;
	op_timeout = opt.time / 15.0;
	op_timeout = op_timeout < 2 ? 2 : op_timeout > 20 ? 20 : op_timeout;
	storm_deadline = t_hard - margin;
	signal(SIGALRM, watchdog);
	alarm(opt.time);
	signal(SIGPIPE, SIG_IGN);
	pthread_attr_init(&small_stack);
	pthread_attr_setstacksize(&small_stack, STACK_SIZE);

	printf("# taskstats_stress: %lu tasks, %lu s, %d listeners, seed %lu\n",
	       opt.tasks, opt.time, opt.listeners, opt.seed);
	find_cpus();

	map_bytes = (opt.tasks + LONG_BITS - 1) / LONG_BITS * sizeof(unsigned long);
	sh = map_shared(sizeof(*sh));
	created = map_shared(map_bytes);
	pids = map_shared(opt.tasks * sizeof(*pids));
	ls = calloc(opt.listeners, sizeof(*ls));
	workers = calloc(2 * ncpus, sizeof(*workers));
	dumper.buf = malloc(BUF_SIZE);
	getter.buf = malloc(BUF_SIZE);
	if (!sh || !created || !pids || !ls || !workers || !dumper.buf || !getter.buf) {
		printf("# out of memory\n");
		return 1;
	}
	dumper.rng = rng_seed(1);
	getter.rng = rng_seed(2);

	ret = preflight(&dumper);
	if (ret >= 0)
		return ret;

	/* Children first, while we are single-threaded and hold no socket. */
	pgrp = start_anchor();
	if (pgrp < 0) {
		printf("# fork: %s\n", strerror(-pgrp));
		return 1;
	}
	setns_pid = start_setns();
	exec_pid = start_exec_loop();
	if (pipe2(start, O_CLOEXEC) || setns_pid < 0 || exec_pid < 0) {
		violation("cannot start the setns and exec children: %s", strerror(errno));
		goto out_kill;
	}
	for (i = 0; i < 2 * ncpus; i++) {
		struct worker *w = &workers[nworkers];
		pid_t pid;

		w->cpu = cpus[i % ncpus];
		w->threads = i >= ncpus;
		pid = spawn();
		if (!pid) {
			close(start[1]);
			storm_worker(w->cpu, w->threads, start[0]);
		}
		if (pid < 0) {
			violation("cannot fork a storm worker: %s", strerror(-pid));
			goto out_kill;
		}
		w->pid = pid;
		nworkers++;
	}
	close(start[0]);

	/* The steady listeners, registered before the first storm exit. */
	for (i = 0; i < opt.listeners; i++) {
		bool chaotic = i > STEADY;

		if (listener_init(&ls[i], i < STEADY ? "steady" : chaotic ? "chaotic" : "silent",
				  i)) {
			printf("# out of memory\n");
			goto out_kill;
		}
		ls[i].cpu = cpus[i % ncpus];
		if (chaotic)
			continue;
		ret = listener_open_all(&ls[i], i < STEADY ? 4 << 20 : 0);
		if (ret) {
			/* The preflight could: this is no lack of rights. */
			violation("%s: cannot register for %s: %s", ls[i].name,
				  possible_str, strerror(-ret));
			goto out_kill;
		}
	}
	silent = &ls[STEADY];
	/* Overflows after a record or two, from now on. */
	ret = 1;
	setsockopt(silent->fd, SOL_SOCKET, SO_RCVBUF, &ret, sizeof(ret));

	for (i = 0; i < opt.listeners; i++) {
		if (i == STEADY)
			continue;
		ret = pthread_create(&ls[i].thread, NULL,
				     i < STEADY ? steady_main : chaotic_main, &ls[i]);
		if (ret) {
			violation("cannot start the thread of %s: %s", ls[i].name,
				  strerror(ret));
			goto out_stop;
		}
		ls[i].started = true;
	}
	if (dumps_ok) {
		dumper.fd = nl_open(1 << 20);
		ret = pthread_create(&dumper.thread, NULL, dump_main, &dumper);
		if (ret) {
			violation("cannot start the dump thread: %s", strerror(ret));
			goto out_stop;
		}
		dumper.started = true;
	}
	getter.fd = nl_open(1 << 20);
	ret = pthread_create(&getter.thread, NULL, get_main, &getter);
	if (ret) {
		violation("cannot start the GET thread: %s", strerror(ret));
		goto out_stop;
	}
	getter.started = true;

	/* The storm: the workers start when the pipe closes. */
	storm_start = now();
	next_progress = storm_start + 5;
	close(start[1]);
	for (;;) {
		double t = now();

		if (!reap_workers(workers, nworkers, stop_at))
			break;
		if (t >= storm_deadline && !stop_at) {
			flag_set(&sh->stop);
			stop_at = t;
		}
		if (stop_at && t >= stop_at + 3) {
			for (i = 0; i < nworkers; i++)
				if (!workers[i].done)
					kill(workers[i].pid, SIGKILL);
		}
		if (opt.verbose && t >= next_progress) {
			progress(storm_start);
			next_progress += 5;
		}
		sleep_ms(50);
	}
	storm_end = now();
	storm_done = !stop_at && shared_get(&sh->exited) >= opt.tasks;
	for (i = 0; i < nworkers; i++)
		killed |= workers[i].killed;
	/*
	 * A smoke run on a slow host may not reach its count by the deadline.
	 * Workers that stopped there by themselves reaped and counted every
	 * task they handed an id to: the balance holds on those, and every
	 * other check is the same. A worker killed leaves exits uncounted,
	 * and a tenth of the count is the least that still says exits flow
	 * (this machine does all of it in half the time).
	 */
	if (opt.quick && stop_at && !killed &&
	    shared_get(&sh->exited) >= opt.tasks / 10) {
		cut = true;
		storm_done = true;
		fprintf(stdout,
			"# --quick: the storm stopped at its deadline with %lu of %lu tasks exited in %.1f s; checked on those\n",
			shared_get(&sh->exited), opt.tasks, storm_end - storm_start);
	}
	if (!storm_done)
		fprintf(stdout,
			"# timeout: the storm reached %lu of %lu tasks in %.1f s (%s)\n",
			shared_get(&sh->exited), opt.tasks, storm_end - storm_start,
			stop_at ? "stopped at its deadline" : "its workers failed");
	if (opt.verbose)
		progress(storm_start);

out_stop:
	/* Chaotic, dump and GET threads first, while steady ones still read. */
	flag_set(&aux_stop);
	/* The longest step of any: a drain and an answer, op_timeout each. */
	until = budget(2 * op_timeout + 2);
	for (i = STEADY + 1; i < opt.listeners; i++)
		if (ls[i].started)
			join_by(ls[i].thread, until, ls[i].name);
	if (dumper.started)
		join_by(dumper.thread, until, "the dump thread");
	if (getter.started)
		join_by(getter.thread, until, "the GET thread");

	/* Did the setns and exec children live to the end? */
	status = 0;
	if (waitpid(setns_pid, &status, WNOHANG) == setns_pid) {
		if (sh->setns_skip)
			printf("# setns child: no namespaces to switch to: %s\n",
			       strerror(sh->setns_skip));
		else
			violation("the setns child ended early, status %#x, errno %d (%s)",
				  status, sh->setns_err, strerror(sh->setns_err));
		setns_pid = 0;
	} else if (dumper.setns_missing) {
		violation("%lu dumps did not list the setns child %d, alive throughout",
			  dumper.setns_missing, setns_pid);
	}
	if (waitpid(exec_pid, &status, WNOHANG) == exec_pid) {
		violation("the exec loop ended early, status %#x", status);
		exec_pid = 0;
	}
	ret = read(exec_count_fd, buf, sizeof(buf));
	while (ret > 0) {
		execs += ret;
		ret = read(exec_count_fd, buf, sizeof(buf));
	}

out_kill:
	if (pgrp > 0)
		kill(-pgrp, SIGKILL);
	until = budget(3);
	reap_by(pgrp, until);
	reap_by(setns_pid, until);
	reap_by(exec_pid, until);
	for (i = 0; i < nworkers; i++)
		if (!workers[i].done)
			reap_by(workers[i].pid, until);
	if (!storm_start)
		goto out_report;

	/* The steady readers read the rest, then the checks. */
	drain_until = budget(5) - 0.5;
	flag_set(&storm_over);
	for (i = 0; i < STEADY; i++)
		if (ls[i].started)
			join_by(ls[i].thread, drain_until + 0.5, ls[i].name);
	if (hung)
		goto out_report;

	expected = shared_get(&sh->exited) - shared_get(&sh->unnamed);
	for (i = 0; i < STEADY; i++) {
		drops = check_steady(&ls[i], expected, storm_done);
		drops_known &= drops >= 0;
		total_drops += drops > 0 ? drops : 0;
	}
	drops = check_silent(silent, expected);
	total_drops += drops > 0 ? drops : 0;
	for (i = 0; i < opt.listeners; i++) {
		struct listener *l = &ls[i];

		records += l->records;
		if (l->fd >= 0)
			close(l->fd);
		if (i <= STEADY || !opt.verbose)
			continue;
		fprintf(stdout,
			"# %s (CPU %d): %lu sockets, %lu registrations, %lu records (%lu storm, %lu groups), %lu ENOBUFS, %lu lost acks, %lu ENOMEM, %lu bursts, %lu closed unread\n",
			l->name, l->cpu, l->sockets, l->registrations, l->records,
			l->storm_records, l->group_records, l->enobufs, l->lost_acks,
			l->enomem, l->bursts, l->unread_closes);
	}
	if (!drops_known)
		printf("# Drops of a steady listener could not be read\n");
	dumps = dumper.dumps;
	fprintf(stdout,
		"# storm: %lu processes, %lu threads, %lu on another CPU than their worker's, %lu unnamed, %lu killed, %lu retries\n",
		sh->procs, sh->threads, sh->wrong_cpu, sh->unnamed, sh->killed, sh->retries);
	for (i = 0; i < ncpus; i++)
		printf("# storm: CPU %d: %lu exits\n", cpus[i], sh->cpu_exits[cpus[i]]);
	printf("# dumps: %lu (%lu records), %lu without the exec loop (mid-exec)\n",
	       dumper.dumps, dumper.records, dumper.exec_missing);
	printf("# GETs: %lu answered, %lu records, %lu ESRCH, %lu EPERM, %lu ENOMEM\n",
	       getter.gets, getter.records, getter.esrch, getter.eperm, getter.enomem);
	/* The checks above would pass a kernel that refused every GET. */
	if (getter.gets && !getter.records)
		violation("GETs: %lu answered, not one with a record", getter.gets);
	if (getter.reaped)
		printf("# GETs: %lu records with ac_pid 0 %s\n", getter.reaped,
		       "(reaped during the GET: upstream's answer; the series says ESRCH)");
	printf("# exec loop: %lu generations; setns child: %lu round trips, %lu namespace pairs\n",
	       execs, sh->setns_loops, sh->setns_made);

out_report:
	secs = storm_start ? storm_end - storm_start : 0;
	fprintf(stdout,
		"stress: %lu tasks exited in %.2f s (%.0f/s)%s, %d listeners, %lu records, %ld drops, %lu dumps, %lu gets, %lu violations\n",
		shared_get(&sh->exited), secs,
		secs > 0 ? shared_get(&sh->exited) / secs : 0.0,
		cut ? " by the storm's deadline" : "", opt.listeners,
		records, total_drops, dumps, getter.gets, violations);
	if (violations || hung || !storm_start || !storm_done) {
		fflush(stdout);
		_exit(1);
	}
	return 0;
}
