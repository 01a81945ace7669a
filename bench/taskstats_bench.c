// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats_bench - the guest side of `make bench`.
 *
 * Each subcommand runs one workload and prints one line per measurement:
 *
 *	RESULT <name> <value> <unit>
 *
 * plus diagnostic lines starting with '#'. The work amounts are fixed by
 * options (never by elapsed time), so every kernel does the same work.
 *
 *   pingpong [-n ROUNDS]           pipe round trips per second, two
 *                                  processes pinned to CPU 0
 *   directio -f FILE [-n COUNT]    4 KiB O_DIRECT random reads per second
 *                                  over the first 256 MiB of FILE
 *   get [-n COUNT]                 mean ns of a TASKSTATS_CMD_GET (PID)
 *   tgid [-t THREADS] [-n COUNT]   mean ns of a TGID GET of a process
 *                                  with THREADS blocked threads
 *   siglock [-t THREADS] [-n COUNT]
 *                                  the same GET on CPU 1 (THREADS 4096),
 *                                  alone, then beside a thread of the
 *                                  group on CPU 0 that takes its siglock
 *                                  without pause: that thread's calls/s
 *   collect -N TASKS [-r REPS]     every task's record with one GET per
 *                                  /proc entry and with a dump, by pid and
 *                                  by tgid: time, syscalls, records
 *   cgroup -N TASKS [-g MEMBERS] [-r REPS]
 *                                  MEMBERS of TASKS sleeping processes in a
 *                                  fresh cgroup v2 directory: the dump of
 *                                  that cgroup against the whole-system
 *                                  dump, taken alternately
 *   exit [-l LISTENERS] [-c CONTAINERS] [-n COUNT]
 *                                  fork+exit+wait per second with that many
 *                                  exit listeners on all possible CPUs; with
 *                                  -c, registered from that many containers
 *                                  (user, pid and net namespaces) instead
 *   delayacct on|off               set kernel.task_delayacct
 *
 * Common options: -q/--quick (a CI smoke: every subcommand in about a
 * second), -T/--tag TAG (append _TAG to every result name).
 * Build: gcc -O2 -Wall -Wextra -isystem include/uapi taskstats_bench.c -lpthread
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/fs.h>
#include <linux/genetlink.h>
#include <linux/magic.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The dump of the series: a NLA_FLAG asking for per-tgid records. */
#ifndef TASKSTATS_CMD_ATTR_DUMP_TGID
#define TASKSTATS_CMD_ATTR_DUMP_TGID	5
#endif
/* And its dump of one cgroup: a u32 fd of the cgroup's directory. */
#ifndef TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD
#define TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD	6
#endif

/* Where the guest mounts the cgroup v2 hierarchy; cgroup makes a directory there. */
#ifndef CGROUP2_ROOT
#define CGROUP2_ROOT	"/sys/fs/cgroup"
#endif
#define BENCH_CGROUP	CGROUP2_ROOT "/taskstats_bench"

#define RXBUF_SIZE	(64 * 1024)
#define SPAN_MAX	(256ULL << 20)
#define IO_SIZE		4096
#define CHILD_STACK	4096

struct opts {
	long count;		/* -n: work amount; 0 = the default */
	long tasks;		/* -N */
	long threads;		/* -t */
	long listeners;		/* -l */
	long containers;	/* -c */
	long reps;		/* -r */
	long members;		/* -g */
	const char *file;	/* -f */
	int quick;		/* -q */
};

static const char *tag;

/* Syscalls issued by this thread through the counting wrappers below. */
static __thread unsigned long nr_syscalls;

/* One line "RESULT <name>[_<tag>] <value> <unit>", the name formatted from @fmt. */
static void vresult(const char *value, const char *unit, const char *fmt, va_list ap)
{
	char name[128];

	vsnprintf(name, sizeof(name), fmt, ap);
	printf("RESULT %s%s%s %s %s\n", name, tag ? "_" : "", tag ? tag : "", value, unit);
	fflush(stdout);
}

static void resultf(double value, const char *unit, const char *fmt, ...)
{
	int prec = value >= 100 || value == (long long)value ? 0 : 3;
	char v[512];
	va_list ap;

	snprintf(v, sizeof(v), "%.*f", prec, value);
	va_start(ap, fmt);
	vresult(v, unit, fmt, ap);
	va_end(ap);
}

static void result(const char *name, double value, const char *unit)
{
	resultf(value, unit, "%s", name);
}

/* A measurement that has no value: "unsupported" or "error". */
static void status(const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vresult(what, "-", fmt, ap);
	va_end(ap);
}

static void note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

static int failx(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "taskstats_bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return 1;
}

static int fail(const char *what)
{
	return failx("%s: %s", what, strerror(errno));
}

static unsigned long long clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static unsigned long long now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* CPU time of this process (all threads), ns. */
static unsigned long long cpu_ns(void)
{
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static long pick(long given, long full, long quick, const struct opts *o)
{
	if (given > 0)
		return given;
	return o->quick ? quick : full;
}

/* ------------------------------------------------------- counted syscalls */

static int c_open(const char *path, int flags)
{
	nr_syscalls++;
	return open(path, flags);
}

static int c_close(int fd)
{
	nr_syscalls++;
	return close(fd);
}

struct dirent64 {
	__u64		d_ino;
	__s64		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

static long c_getdents64(int fd, void *buf, size_t len)
{
	nr_syscalls++;
	return syscall(SYS_getdents64, fd, buf, len);
}

static ssize_t c_sendmsg(int fd, const struct msghdr *msg)
{
	nr_syscalls++;
	return sendmsg(fd, msg, 0);
}

static ssize_t c_recvmsg(int fd, struct msghdr *msg)
{
	nr_syscalls++;
	return recvmsg(fd, msg, 0);
}

/* ---------------------------------------------------------------- netlink */

struct nl {
	int fd;
	__u16 family;
	__u32 seq;
};

static size_t nla_total(size_t payload)
{
	return NLA_ALIGN(NLA_HDRLEN + payload);
}

/*
 * Sends one generic netlink request with at most one attribute (@atype 0:
 * none). A NLA_FLAG attribute is one with @data NULL and @len 0.
 */
static int nl_send(struct nl *nl, __u16 type, __u16 flags, __u8 cmd, __u16 atype,
		   const void *data, size_t len)
{
	union {
		struct nlmsghdr h;
		char buf[512];
	} req;
	struct sockaddr_nl to = { .nl_family = AF_NETLINK };
	struct iovec iov;
	struct msghdr msg = { 0 };
	struct genlmsghdr *g;
	struct nlattr *na;
	size_t size = NLMSG_HDRLEN + GENL_HDRLEN;

	if (len > sizeof(req) - size - NLA_HDRLEN - NLA_ALIGNTO) {
		errno = EMSGSIZE;
		return -1;
	}
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_type = type;
	req.h.nlmsg_flags = NLM_F_REQUEST | flags;
	req.h.nlmsg_seq = ++nl->seq;
	g = (struct genlmsghdr *)(req.buf + NLMSG_HDRLEN);
	g->cmd = cmd;
	g->version = 1;
	if (atype) {
		na = (struct nlattr *)(req.buf + size);
		na->nla_type = atype;
		na->nla_len = NLA_HDRLEN + len;
		if (len)
			memcpy(req.buf + size + NLA_HDRLEN, data, len);
		size += nla_total(len);
	}
	req.h.nlmsg_len = size;
	iov.iov_base = req.buf;
	iov.iov_len = size;
	msg.msg_name = &to;
	msg.msg_namelen = sizeof(to);
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	return c_sendmsg(nl->fd, &msg) == (ssize_t)size ? 0 : -1;
}

/* Receives one datagram; a truncated one is an error (EMSGSIZE). */
static ssize_t nl_recv(struct nl *nl, void *buf, size_t size)
{
	struct iovec iov = { buf, size };
	struct msghdr msg = { 0 };
	ssize_t n;

	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	n = c_recvmsg(nl->fd, &msg);
	if (n >= 0 && (msg.msg_flags & MSG_TRUNC)) {
		errno = EMSGSIZE;
		return -1;
	}
	return n;
}

/* The attributes of a generic netlink message. */
static struct nlattr *genl_attrs(const struct nlmsghdr *h, int *len)
{
	*len = (int)h->nlmsg_len - NLMSG_HDRLEN - GENL_HDRLEN;
	return (struct nlattr *)((char *)NLMSG_DATA(h) + GENL_HDRLEN);
}

static int nla_ok(const struct nlattr *na, int len)
{
	return len >= (int)NLA_HDRLEN && na->nla_len >= NLA_HDRLEN && na->nla_len <= len;
}

static struct nlattr *nla_next(const struct nlattr *na, int *len)
{
	*len -= NLA_ALIGN(na->nla_len);
	return (struct nlattr *)((char *)na + NLA_ALIGN(na->nla_len));
}

/* Records (AGGR_PID or AGGR_TGID nests) in one TASKSTATS_CMD_NEW message. */
static int count_records(const struct nlmsghdr *h)
{
	struct nlattr *na;
	int len, n = 0, type;

	for (na = genl_attrs(h, &len); nla_ok(na, len); na = nla_next(na, &len)) {
		type = na->nla_type & NLA_TYPE_MASK;
		if (type == TASKSTATS_TYPE_AGGR_PID || type == TASKSTATS_TYPE_AGGR_TGID)
			n++;
	}
	return n;
}

/* 0 for an ack, -errno for an error message. */
static int nl_error(const struct nlmsghdr *h)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e)))
		return -EPROTO;
	return e->error;
}

static int nl_open(struct nl *nl, int rcvbuf)
{
	nl->seq = 0;
	nl->family = 0;
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -1;
	if (rcvbuf &&
	    setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf, sizeof(rcvbuf)) &&
	    setsockopt(nl->fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf))) {
		close(nl->fd);
		return -1;
	}
	return 0;
}

/* Resolves the TASKSTATS family with CTRL_CMD_GETFAMILY. */
static int nl_family(struct nl *nl)
{
	static char buf[RXBUF_SIZE];
	struct nlmsghdr *h;
	struct nlattr *na;
	ssize_t n;
	int len;

	if (nl_send(nl, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, CTRL_ATTR_FAMILY_NAME,
		    TASKSTATS_GENL_NAME, sizeof(TASKSTATS_GENL_NAME)))
		return -1;
	n = nl_recv(nl, buf, sizeof(buf));
	if (n < 0)
		return -1;
	for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
		if (h->nlmsg_type == NLMSG_ERROR) {
			errno = -nl_error(h);
			return -1;
		}
		for (na = genl_attrs(h, &len); nla_ok(na, len); na = nla_next(na, &len)) {
			if (na->nla_type == CTRL_ATTR_FAMILY_ID) {
				memcpy(&nl->family, (char *)na + NLA_HDRLEN, sizeof(nl->family));
				return 0;
			}
		}
	}
	errno = ENOENT;
	return -1;
}

static int nl_taskstats(struct nl *nl, int rcvbuf)
{
	if (nl_open(nl, rcvbuf))
		return fail("netlink socket");
	if (nl_family(nl)) {
		close(nl->fd);
		return fail("resolving the TASKSTATS generic netlink family");
	}
	return 0;
}

/*
 * One TASKSTATS_CMD_GET of @attr (PID or TGID) @id: the number of records
 * in the answer (1), or -errno.
 */
static int get_one(struct nl *nl, __u16 attr, __u32 id, char *buf)
{
	struct nlmsghdr *h;
	int records = 0;
	ssize_t n;

	if (nl_send(nl, nl->family, 0, TASKSTATS_CMD_GET, attr, &id, sizeof(id)))
		return -errno;
	n = nl_recv(nl, buf, RXBUF_SIZE);
	if (n < 0)
		return -errno;
	for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
		if (h->nlmsg_type == NLMSG_ERROR)
			return nl_error(h) ? nl_error(h) : -EPROTO;
		if (h->nlmsg_type == nl->family)
			records += count_records(h);
	}
	return records ? records : -EPROTO;
}

/* ----------------------------------------------------------------- pingpong */

static int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int cmd_pingpong(const struct opts *o)
{
	long rounds = pick(o->count, 100000, 5000, o), warm = rounds / 20 + 1, i;
	int ping[2], pong[2], status;
	unsigned long long t0 = 0, t1;
	char c = 'x';
	pid_t pid;

	if (pin_cpu(0))
		return fail("pinning to CPU 0");
	if (pipe(ping) || pipe(pong))
		return fail("pipe");
	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		close(ping[1]);
		close(pong[0]);
		while (read(ping[0], &c, 1) == 1) {
			if (write(pong[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	for (i = -warm; i < rounds; i++) {
		if (i == 0)
			t0 = now_ns();
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return fail("pipe round trip");
		}
	}
	t1 = now_ns();
	close(ping[1]);
	close(pong[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return failx("pingpong: the partner process failed");
	note("pingpong: %ld round trips in %.3f s", rounds, (t1 - t0) / 1e9);
	result("pingpong", rounds / ((t1 - t0) / 1e9), "roundtrips/s");
	return 0;
}

/* ----------------------------------------------------------------- directio */

static __u64 xorshift(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int cmd_directio(const struct opts *o)
{
	long count = pick(o->count, 10000, 500, o), i;
	unsigned long long size, blocks, t0, t1, c0, c1;
	__u64 seed = 0x9e3779b97f4a7c15ULL;
	struct rusage r0, r1;
	struct stat st;
	void *buf;
	int fd;

	if (!o->file)
		return failx("directio: -f FILE_OR_DEVICE is required");
	fd = open(o->file, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		return fail(o->file);
	size = st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &size))
		return fail("BLKGETSIZE64");
	if (size > SPAN_MAX)
		size = SPAN_MAX;
	blocks = size / IO_SIZE;
	if (!blocks)
		return failx("directio: %s is smaller than %d bytes", o->file, IO_SIZE);
	if (posix_memalign(&buf, IO_SIZE, IO_SIZE))
		return failx("directio: out of memory");
	getrusage(RUSAGE_SELF, &r0);
	c0 = cpu_ns();
	t0 = now_ns();
	for (i = 0; i < count; i++) {
		off_t off = (off_t)(xorshift(&seed) % blocks) * IO_SIZE;

		if (pread(fd, buf, IO_SIZE, off) != IO_SIZE)
			return fail("O_DIRECT pread");
	}
	t1 = now_ns();
	c1 = cpu_ns();
	getrusage(RUSAGE_SELF, &r1);
	close(fd);
	free(buf);
	note("directio: %ld reads of %d bytes over %llu MiB of %s in %.3f s", count, IO_SIZE,
	     blocks * IO_SIZE >> 20, o->file, (t1 - t0) / 1e9);
	/* A read whose completion beat the sleep does not block: its I/O wait costs no switch. */
	note("directio: %.3f voluntary switches per read", (double)(r1.ru_nvcsw - r0.ru_nvcsw) / count);
	result("directio", count / ((t1 - t0) / 1e9), "reads/s");
	/*
	 * The CPU the reads cost, apart from the device's latency: under
	 * -icount the guest clock runs in real time while the vCPU idles
	 * waiting for the host's disk, so reads/s moves with the host.
	 */
	result("directio_cpu", (double)(c1 - c0) / count, "ns");
	return 0;
}

/* ---------------------------------------------------------------- get, tgid */

/* @count GETs of @id on @nl, untimed. */
static int gets_on(struct nl *nl, __u16 attr, __u32 id, long count)
{
	static char buf[RXBUF_SIZE];
	int r = 1;

	for (long i = 0; i < count && r == 1; i++)
		r = get_one(nl, attr, id, buf);
	errno = r < 0 ? -r : EPROTO;
	return r == 1 ? 0 : fail("TASKSTATS_CMD_GET");
}

/* @count GETs of @id, after a twentieth as many untimed: their mean. */
static int time_gets(__u16 attr, __u32 id, long count, const char *name)
{
	unsigned long long t0, t1;
	struct nl nl;
	int ret;

	if (nl_taskstats(&nl, 0))
		return 1;
	ret = gets_on(&nl, attr, id, count / 20 + 1);
	t0 = now_ns();
	ret = ret ? ret : gets_on(&nl, attr, id, count);
	t1 = now_ns();
	close(nl.fd);
	if (ret)
		return ret;
	note("%s: %ld GETs in %.3f s", name, count, (t1 - t0) / 1e9);
	result(name, (double)(t1 - t0) / count, "ns");
	return 0;
}

static int cmd_get(const struct opts *o)
{
	return time_gets(TASKSTATS_CMD_ATTR_PID, getpid(), pick(o->count, 100000, 2000, o),
			 "get_pid");
}

static void *blocked_thread(void *arg)
{
	char c;

	/* Returns when the main thread closes the write end. */
	while (read(*(int *)arg, &c, 1) > 0)
		;
	return NULL;
}

/* @count GETs of @id on a socket of their own, untimed. */
static int plain_gets(__u16 attr, __u32 id, long count)
{
	struct nl nl;
	int ret;

	if (nl_taskstats(&nl, 0))
		return 1;
	ret = gets_on(&nl, attr, id, count);
	close(nl.fd);
	return ret;
}

/* Threads blocked in read() until the gate's write end closes. */
struct blocked {
	pthread_t *tids;
	long started;
	int gate[2];
};

/* Starts @n blocked threads; 0, or what failed (reported). */
static int blocked_start(struct blocked *b, long n)
{
	pthread_attr_t attr;

	b->started = 0;
	b->tids = calloc(n, sizeof(*b->tids));
	if (!b->tids || pipe(b->gate)) {
		free(b->tids);
		b->tids = NULL;	/* nothing for blocked_stop() */
		return fail("blocked threads");
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	while (b->started < n) {
		errno = pthread_create(&b->tids[b->started], &attr, blocked_thread,
				       &b->gate[0]);
		if (errno)
			break;
		b->started++;
	}
	pthread_attr_destroy(&attr);
	if (b->started == n)
		return 0;
	return fail("pthread_create");
}

/* Ends what blocked_start() started, even partly: EOF on the gate. */
static void blocked_stop(struct blocked *b)
{
	close(b->gate[1]);
	for (long i = 0; i < b->started; i++)
		pthread_join(b->tids[i], NULL);
	close(b->gate[0]);
	free(b->tids);
}

static int cmd_tgid(const struct opts *o)
{
	long threads = o->threads > 0 ? o->threads : 64;
	long count = pick(o->count, 20000, 500, o);
	struct blocked b;
	char name[64];
	int ret;

	ret = blocked_start(&b, threads);
	if (!b.tids)
		return ret;
	if (!ret) {
		snprintf(name, sizeof(name), "get_tgid_%ld", threads);
		ret = time_gets(TASKSTATS_CMD_ATTR_TGID, getpid(), count, name);
	}
	blocked_stop(&b);
	return ret;
}

/* The thread of cmd_siglock() that takes its siglock, on CPU 0. */
struct siglock_prober {
	int started;
	int stop;
	int err;
	unsigned long long calls, t0, t1;
};

static void *siglock_prober_main(void *arg)
{
	struct siglock_prober *p = arg;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	p->err = pin_cpu(0) ? errno : 0;
	p->t0 = now_ns();
	__atomic_store_n(&p->started, 1, __ATOMIC_RELEASE);
	while (!p->err && !__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		/* Each call changes the mask: one that did not takes no lock. */
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		p->calls += 2;
	}
	p->t1 = now_ns();
	return NULL;
}

/*
 * What a TGID GET of a large group costs the group's other threads. The
 * benchmark, on CPU 1, first reads its own group of THREADS + 1 threads
 * by TGID, back to back (the GET's latency); then as often again while
 * one more thread, on CPU 0, blocks and unblocks a signal without pause,
 * each call taking the process's siglock: how many calls it makes per
 * second meanwhile. A kernel that sums the group under siglock,
 * interrupts off, holds that thread up for most of each GET. Neither its
 * longest call (preemptions of the thread dwarf a GET) nor the GETs'
 * latency beside it (under -icount the two CPUs share one clock) is a
 * measure of that.
 */
static int cmd_siglock(const struct opts *o)
{
	long threads = pick(o->threads, 4096, 32, o);
	long count = pick(o->count, 200, 20, o);
	struct siglock_prober p = {};
	struct blocked b;
	pthread_t prober;
	char name[64];
	int ret;

	if (pin_cpu(1))
		return fail("siglock: CPU 1");
	ret = blocked_start(&b, threads);
	if (!b.tids)
		return ret;
	if (ret)
		goto out;
	snprintf(name, sizeof(name), "get_tgid_%ld", threads);
	ret = time_gets(TASKSTATS_CMD_ATTR_TGID, getpid(), count, name);
	if (ret)
		goto out;
	errno = pthread_create(&prober, NULL, siglock_prober_main, &p);
	if (errno) {
		ret = fail("pthread_create");
		goto out;
	}
	while (!__atomic_load_n(&p.started, __ATOMIC_ACQUIRE))
		sched_yield();
	ret = plain_gets(TASKSTATS_CMD_ATTR_TGID, getpid(), count);
	__atomic_store_n(&p.stop, 1, __ATOMIC_RELEASE);
	pthread_join(prober, NULL);
	errno = p.err;
	if (p.err)
		ret = fail("siglock prober");
	note("siglock: %llu mask changes on CPU 0 in %.3f s", p.calls, (p.t1 - p.t0) / 1e9);
	if (!ret)
		resultf(p.calls * 1e9 / (p.t1 - p.t0), "changes/s",
			"get_tgid_%ld_siglock_rate", threads);
out:
	blocked_stop(&b);
	return ret;
}

/* ------------------------------------------------------------------ collect */

struct sysctl_save {
	const char *path;
	long old;
	int changed;
};

static long sysctl_read(const char *path)
{
	char buf[32] = "";
	long v = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) > 0)
			v = strtol(buf, NULL, 10);
		close(fd);
	}
	return v;
}

/* Writes @text to @path in one write(2); -1 with errno on failure. */
static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;
	size_t len = strlen(text);

	if (fd < 0)
		return -1;
	ok = write(fd, text, len) == (ssize_t)len;
	close(fd);
	return ok ? 0 : -1;
}

static int sysctl_write(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", v);
	return write_file(path, buf);
}

/* Raises a sysctl to at least @min, remembering the old value. */
static void sysctl_raise(struct sysctl_save *s, long min)
{
	s->old = sysctl_read(s->path);
	s->changed = 0;
	if (s->old >= 0 && s->old < min) {
		if (sysctl_write(s->path, min))
			note("could not raise %s from %ld to %ld", s->path, s->old, min);
		else
			s->changed = 1;
	}
}

static void sysctl_restore(struct sysctl_save *s)
{
	if (s->changed)
		sysctl_write(s->path, s->old);
}

static int sleeper(void *arg)
{
	(void)arg;
	/* Dies with the benchmark even when that is killed. */
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	for (;;)
		syscall(SYS_pause);
	return 0;
}

/*
 * Starts @n sleeping processes. They share our address space (CLONE_VM
 * without CLONE_THREAD: each is its own process, with its own /proc entry
 * and tgid) and run on 4 KiB stacks, so 10000 of them cost little more
 * than their kernel stacks and task structs. All signals but SIGKILL stay
 * blocked in them, so they never return from pause().
 */
static long spawn_sleepers(pid_t *pids, long n, char *stacks)
{
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_SYSVSEM | SIGCHLD;
	sigset_t all, old;
	long i, tries = 0;
	pid_t pid;

	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	for (i = 0; i < n; i++) {
		pid = clone(sleeper, stacks + (i + 1) * CHILD_STACK, flags, NULL);
		if (pid < 0 && errno == EAGAIN && tries++ < 100) {
			sleep_ms(10);
			i--;
			continue;
		}
		if (pid < 0)
			break;
		pids[i] = pid;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return i;
}

static void reap_sleepers(pid_t *pids, long n)
{
	long i;

	for (i = 0; i < n; i++)
		kill(pids[i], SIGKILL);
	for (i = 0; i < n; i++) {
		while (waitpid(pids[i], NULL, __WALL) < 0 && errno == EINTR)
			;
	}
}

struct method {
	unsigned long long ns;
	unsigned long syscalls;
	long records;
	long errors;		/* GETs of tasks that went away (ESRCH) */
	int err;		/* the dump failed with this -errno */
};

/* Starts a measurement: clears @m's counts; returns the start time. */
static unsigned long long method_start(struct method *m)
{
	nr_syscalls = 0;
	m->records = 0;
	m->errors = 0;
	m->err = 0;
	return now_ns();
}

/* Ends a measurement started at @t0: its time and syscalls. */
static void method_end(struct method *m, unsigned long long t0)
{
	m->ns = now_ns() - t0;
	m->syscalls = nr_syscalls;
}

/* (a) One GET of @attr per numeric /proc entry. */
static int collect_by_get(struct nl *nl, __u16 attr, struct method *m)
{
	static char buf[RXBUF_SIZE], dents[32768];
	unsigned long long t0 = method_start(m);
	struct dirent64 *d;
	long n, off;
	int fd, r;
	char *end;
	__u32 id;

	fd = c_open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return fail("/proc");
	while ((n = c_getdents64(fd, dents, sizeof(dents))) > 0) {
		for (off = 0; off < n; off += d->d_reclen) {
			d = (struct dirent64 *)(dents + off);
			id = strtoul(d->d_name, &end, 10);
			if (d->d_name[0] < '0' || d->d_name[0] > '9' || *end)
				continue;
			r = get_one(nl, attr, id, buf);
			if (r > 0)
				m->records += r;
			else if (r == -ESRCH)
				m->errors++;
			else
				return failx("GET of %u: %s", id, strerror(-r));
		}
	}
	c_close(fd);
	method_end(m, t0);
	return n < 0 ? fail("getdents64 /proc") : 0;
}

/*
 * (b) One dump request with at most one attribute (@attr 0: none, as
 * nl_send() takes them); m->err says why it failed.
 */
static int collect_by_dump(struct nl *nl, __u16 attr, const void *data, size_t len,
			   struct method *m)
{
	static char buf[RXBUF_SIZE];
	unsigned long long t0 = method_start(m);
	__u16 flags = NLM_F_DUMP;
	struct nlmsghdr *h;
	int intr = 0, done = 0;
	ssize_t n;

	if (nl_send(nl, nl->family, flags, TASKSTATS_CMD_GET, attr, data, len))
		return fail("sending the dump request");
	while (!done) {
		n = nl_recv(nl, buf, sizeof(buf));
		if (n < 0)
			return fail("receiving the dump");
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				intr = 1;
			if (h->nlmsg_type == NLMSG_DONE) {
				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					memcpy(&m->err, NLMSG_DATA(h), sizeof(int));
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				m->err = nl_error(h);
				if (m->err) {
					done = 1;
					break;
				}
			} else if (h->nlmsg_type == nl->family) {
				m->records += count_records(h);
			}
		}
	}
	method_end(m, t0);
	if (intr)
		note("dump: NLM_F_DUMP_INTR set (the task list changed during the dump)");
	return 0;
}

static void report_method(const char *method, long tasks, const struct method *m)
{
	resultf(m->ns, "ns", "collect_%s_%ld_time", method, tasks);
	resultf(m->syscalls, "syscalls", "collect_%s_%ld_syscalls", method, tasks);
	resultf(m->records, "records", "collect_%s_%ld_records", method, tasks);
	if (m->errors)
		note("collect %s: %ld tasks went away during the scan", method, m->errors);
}

static int run_collect(long tasks, long reps)
{
	static const struct {
		const char *name;
		int dump;
		__u16 attr;
	} methods[] = {
		{ "pid", 0, TASKSTATS_CMD_ATTR_PID },
		{ "dump", 1, 0 },
		{ "tgid", 0, TASKSTATS_CMD_ATTR_TGID },
		{ "dumptgid", 1, TASKSTATS_CMD_ATTR_DUMP_TGID },
		{ NULL },
	};
	struct method m, sum;
	int i, r = 0, ret = 0;
	struct nl nl;
	long rep;

	if (nl_taskstats(&nl, 4 << 20))
		return 1;
	/* Warm the /proc dentries so the first method pays no extra. */
	if (collect_by_get(&nl, TASKSTATS_CMD_ATTR_PID, &m)) {
		close(nl.fd);
		return 1;
	}
	for (i = 0; methods[i].name; i++) {
		memset(&sum, 0, sizeof(sum));
		for (rep = 0; rep < reps; rep++) {
			if (methods[i].dump)
				r = collect_by_dump(&nl, methods[i].attr, NULL, 0, &m);
			else
				r = collect_by_get(&nl, methods[i].attr, &m);
			if (r || m.err)
				break;
			sum.ns += m.ns;
		}
		if (r) {
			ret = 1;
			status("error", "collect_%s_%ld", methods[i].name, tasks);
			continue;
		}
		if (m.err) {
			note("collect %s: the dump failed: %s", methods[i].name, strerror(-m.err));
			if (m.err == -EINVAL || m.err == -EOPNOTSUPP) {
				status("unsupported", "collect_%s_%ld", methods[i].name, tasks);
			} else {
				status("error", "collect_%s_%ld", methods[i].name, tasks);
				ret = 1;
			}
			continue;
		}
		m.ns = sum.ns / reps;
		report_method(methods[i].name, tasks, &m);
	}
	close(nl.fd);
	return ret;
}

/* @n sleeping processes and the limits raised for them. */
struct sleepers {
	struct sysctl_save threads;
	struct sysctl_save pidmax;
	pid_t *pids;
	char *stacks;
	long n;
	long started;
};

/*
 * Starts @n sleeping processes, raising RLIMIT_NPROC, kernel.threads-max
 * and kernel.pid_max as needed; @what names the workload in the notes.
 * Returns 0, or 1 after a message; either way sleepers_stop() undoes it.
 */
static int sleepers_start(struct sleepers *s, long n, const char *what)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
	unsigned long long t0, t1;

	memset(s, 0, sizeof(*s));
	s->threads.path = "/proc/sys/kernel/threads-max";
	s->pidmax.path = "/proc/sys/kernel/pid_max";
	s->stacks = MAP_FAILED;
	s->n = n;
	/* Root needs CAP_SYS_RESOURCE for more than the hard limit. */
	if (setrlimit(RLIMIT_NPROC, &rl) && !getrlimit(RLIMIT_NPROC, &rl)) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NPROC, &rl);
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < (rlim_t)n + 1024)
			note("RLIMIT_NPROC stays at %llu", (unsigned long long)rl.rlim_max);
	}
	sysctl_raise(&s->threads, n + 4096);
	sysctl_raise(&s->pidmax, n + 4096);
	s->pids = calloc(n, sizeof(*s->pids));
	s->stacks = mmap(NULL, (size_t)n * CHILD_STACK, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (!s->pids || s->stacks == MAP_FAILED)
		return failx("%s: out of memory for %ld tasks", what, n);
	t0 = now_ns();
	s->started = spawn_sleepers(s->pids, n, s->stacks);
	t1 = now_ns();
	if (s->started < n) {
		fail("clone");
		return failx("%s: started only %ld of %ld tasks", what, s->started, n);
	}
	note("%s: %ld sleeping tasks started in %.3f s", what, n, (t1 - t0) / 1e9);
	return 0;
}

/* Kills and reaps the sleepers, restores the limits. */
static void sleepers_stop(struct sleepers *s, const char *what)
{
	unsigned long long t0 = now_ns();

	reap_sleepers(s->pids, s->started);
	if (s->started)
		note("%s: %ld tasks killed and reaped in %.3f s", what, s->started,
		     (now_ns() - t0) / 1e9);
	if (s->stacks != MAP_FAILED)
		munmap(s->stacks, (size_t)s->n * CHILD_STACK);
	free(s->pids);
	sysctl_restore(&s->pidmax);
	sysctl_restore(&s->threads);
}

static int cmd_collect(const struct opts *o)
{
	long tasks = pick(o->tasks, 1000, 100, o), reps = pick(o->reps, 3, 1, o);
	struct sleepers s;
	int ret;

	ret = sleepers_start(&s, tasks, "collect");
	if (!ret)
		ret = run_collect(tasks, reps);
	sleepers_stop(&s, "collect");
	return ret;
}

/* ------------------------------------------------------------------- cgroup */

static int cmp_ull(const void *a, const void *b)
{
	unsigned long long x = *(const unsigned long long *)a;
	unsigned long long y = *(const unsigned long long *)b;

	return x < y ? -1 : x > y;
}

/* The median of @n values (sorts them). */
static unsigned long long median(unsigned long long *v, long n)
{
	qsort(v, n, sizeof(*v), cmp_ull);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/*
 * A fresh, empty cgroup v2 directory for the benchmark: one left by a
 * killed run is removed first (its tasks died with it). Returns an fd of
 * it, or -1 after a message.
 */
static int cgroup_create(void)
{
	struct statfs sfs;
	int fd;

	if (statfs(CGROUP2_ROOT, &sfs) || sfs.f_type != CGROUP2_SUPER_MAGIC) {
		failx("cgroup: %s is not a cgroup v2 mount", CGROUP2_ROOT);
		return -1;
	}
	if (rmdir(BENCH_CGROUP) && errno != ENOENT)
		note("cgroup: a stale %s stays: %s", BENCH_CGROUP, strerror(errno));
	if (mkdir(BENCH_CGROUP, 0755)) {
		fail("mkdir " BENCH_CGROUP);
		return -1;
	}
	fd = open(BENCH_CGROUP, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		fail(BENCH_CGROUP);
		rmdir(BENCH_CGROUP);
	}
	return fd;
}

/* Removes the cgroup once its last tasks have left it (they were reaped). */
static void cgroup_remove(int fd)
{
	int i;

	close(fd);
	for (i = 0; rmdir(BENCH_CGROUP); i++) {
		if (errno != EBUSY || i == 100) {
			note("cgroup: could not remove %s: %s", BENCH_CGROUP, strerror(errno));
			return;
		}
		sleep_ms(10);
	}
}

/* Moves @n of the @s's processes, spread over their pids, into the cgroup. */
static int cgroup_fill(const struct sleepers *s, long n)
{
	int fd = open(BENCH_CGROUP "/cgroup.procs", O_WRONLY | O_CLOEXEC);
	char buf[32];
	long i;
	int len;

	if (fd < 0)
		return fail(BENCH_CGROUP "/cgroup.procs");
	for (i = 0; i < n; i++) {
		/* One pid per write(2), as cgroup.procs takes them. */
		len = snprintf(buf, sizeof(buf), "%d", s->pids[i * s->started / n]);
		if (write(fd, buf, len) != len) {
			close(fd);
			return fail("writing a pid to " BENCH_CGROUP "/cgroup.procs");
		}
	}
	close(fd);
	return 0;
}

/* One dump: of the cgroup whose directory @fd is, or (-1) of every task. */
static int cgroup_dump(struct nl *nl, int fd, struct method *m)
{
	__u32 v = fd;

	if (fd < 0)
		return collect_by_dump(nl, 0, NULL, 0, m);
	return collect_by_dump(nl, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, &v, sizeof(v), m);
}

/*
 * The dump of one cgroup of @members processes among @tasks against the
 * whole-system dump, taken alternately (after one untimed pair), so both
 * see the same system: the median time of each, their syscalls and
 * records. The cgroup's dump walks its tasks, not the pid space: the goal
 * is that it costs at most 1/20 of the whole dump at 100 of 10 000.
 */
static int run_cgroup(const char *name, int cgfd, long members, long reps)
{
	unsigned long long *ns[2];
	struct method m[2], last[2];
	int i, k, r = 0;
	struct nl nl;
	long rep;

	if (nl_taskstats(&nl, 4 << 20))
		return 1;
	ns[0] = calloc(reps, sizeof(*ns[0]));
	ns[1] = calloc(reps, sizeof(*ns[1]));
	if (!ns[0] || !ns[1])
		r = failx("cgroup: out of memory");
	for (rep = -1; rep < reps && !r; rep++) {
		/* [0] the cgroup, [1] every task; which goes first alternates. */
		for (k = 0; k < 2 && !r; k++) {
			i = (rep & 1) ? 1 - k : k;
			r = cgroup_dump(&nl, i ? -1 : cgfd, &m[i]);
			if (!r && m[i].err) {
				errno = -m[i].err;
				r = fail(i ? "the whole-system dump" : "the cgroup's dump");
			}
		}
		if (!r && rep >= 0) {
			ns[0][rep] = m[0].ns;
			ns[1][rep] = m[1].ns;
			last[0] = m[0];
			last[1] = m[1];
		}
	}
	close(nl.fd);
	if (r) {
		status("error", "%s", name);
	} else {
		for (i = 0; i < 2; i++) {
			const char *w = i ? "_whole" : "";

			resultf(median(ns[i], reps), "ns", "%s%s_time", name, w);
			resultf(last[i].syscalls, "syscalls", "%s%s_syscalls", name, w);
			resultf(last[i].records, "records", "%s%s_records", name, w);
		}
		if (last[0].records != members)
			note("cgroup: its dump had %ld records for the %ld tasks in it",
			     last[0].records, members);
	}
	free(ns[0]);
	free(ns[1]);
	return r;
}

static int cmd_cgroup(const struct opts *o)
{
	long tasks = pick(o->tasks, 10000, 100, o), reps = pick(o->reps, 7, 3, o);
	long members = pick(o->members, 100, 10, o);
	struct sleepers s;
	struct method m;
	char name[96];
	struct nl nl;
	int fd, ret;

	snprintf(name, sizeof(name), "collect_cgroup_%ld_of_%ld", members, tasks);
	if (members > tasks)
		return failx("cgroup: -g %ld is more than -N %ld", members, tasks);
	fd = cgroup_create();
	if (fd < 0)
		return 1;
	/*
	 * The dump of the empty cgroup first: a kernel without it (the
	 * reference has no dump at all) is told before any task is started.
	 */
	ret = nl_taskstats(&nl, 0);
	if (!ret) {
		ret = cgroup_dump(&nl, fd, &m);
		close(nl.fd);
	}
	if (ret || m.err) {
		if (!ret)
			note("cgroup: the dump of an empty cgroup failed: %s", strerror(-m.err));
		if (!ret && (m.err == -EOPNOTSUPP || m.err == -EINVAL)) {
			status("unsupported", "%s", name);
		} else {
			status("error", "%s", name);
			ret = 1;
		}
		cgroup_remove(fd);
		return ret;
	}
	if (m.records) {
		/* A kernel that ignores the attribute dumps every task. */
		note("cgroup: the dump of an empty cgroup had %ld records", m.records);
		status("unsupported", "%s", name);
		cgroup_remove(fd);
		return 0;
	}
	ret = sleepers_start(&s, tasks, "cgroup");
	if (!ret)
		ret = cgroup_fill(&s, members);
	if (!ret) {
		note("cgroup: %ld of them in %s", members, BENCH_CGROUP);
		ret = run_cgroup(name, fd, members, reps);
	}
	sleepers_stop(&s, "cgroup");
	cgroup_remove(fd);
	return ret;
}

/* --------------------------------------------------------------------- exit */

struct listener {
	pthread_t thread;
	__u16 family;
	int ready;		/* 1 registered, -errno failed; atomic */
	long records;		/* atomic */
	long messages;		/* atomic */
	long drops;		/* ENOBUFS: the kernel dropped records; atomic */
};

static int listeners_stop;	/* atomic */
static char cpu_possible[256];

static int register_listener(struct nl *nl, char *buf)
{
	struct nlmsghdr *h;
	ssize_t n;

	if (nl_send(nl, nl->family, NLM_F_ACK, TASKSTATS_CMD_GET,
		    TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpu_possible, strlen(cpu_possible) + 1))
		return -errno;
	for (;;) {
		n = nl_recv(nl, buf, RXBUF_SIZE);
		if (n < 0)
			return -errno;
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_ERROR && h->nlmsg_seq == nl->seq)
				return nl_error(h);
		}
	}
}

static void *listener_thread(void *arg)
{
	struct listener *l = arg;
	struct timeval tv = { 0, 50000 };
	struct nlmsghdr *h;
	struct nl nl;
	ssize_t n;
	char *buf;
	int r;

	buf = malloc(RXBUF_SIZE);
	if (!buf || nl_open(&nl, 16 << 20)) {
		__atomic_store_n(&l->ready, -ENOMEM, __ATOMIC_RELEASE);
		free(buf);
		return NULL;
	}
	nl.family = l->family;
	setsockopt(nl.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	r = register_listener(&nl, buf);
	__atomic_store_n(&l->ready, r ? r : 1, __ATOMIC_RELEASE);
	while (!r && !__atomic_load_n(&listeners_stop, __ATOMIC_ACQUIRE)) {
		n = nl_recv(&nl, buf, RXBUF_SIZE);
		if (n < 0) {
			if (errno == ENOBUFS)
				__atomic_add_fetch(&l->drops, 1, __ATOMIC_RELAXED);
			continue;
		}
		for (h = (struct nlmsghdr *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type != nl.family)
				continue;
			__atomic_add_fetch(&l->messages, 1, __ATOMIC_RELAXED);
			__atomic_add_fetch(&l->records, count_records(h), __ATOMIC_RELAXED);
		}
	}
	if (!r)
		nl_send(&nl, nl.family, 0, TASKSTATS_CMD_GET, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
			cpu_possible, strlen(cpu_possible) + 1);
	close(nl.fd);
	free(buf);
	return NULL;
}

static long total_records(struct listener *ls, long n)
{
	long i, sum = 0;

	for (i = 0; i < n; i++)
		sum += __atomic_load_n(&ls[i].records, __ATOMIC_RELAXED);
	return sum;
}

/*
 * A container of @n exit listeners: root of new user, pid and net
 * namespaces, whose pid 1 registers @n sockets on every possible CPU and
 * waits to be killed. They hear nothing of the host's tasks: what they
 * cost the host's exits is what "exit -c" measures. Writes 0 or -errno to
 * @ready; pid 1 dies with the returned process.
 */
static pid_t container_listeners(long n, int ready)
{
	struct rlimit nofile = { n + 64, n + 64 };
	pid_t pid = fork(), init;
	int r = 0;
	char *buf;
	long i;

	if (pid)
		return pid;
	if (unshare(CLONE_NEWUSER) ||
	    write_file("/proc/self/uid_map", "0 0 1") ||
	    write_file("/proc/self/setgroups", "deny") ||
	    write_file("/proc/self/gid_map", "0 0 1") ||
	    unshare(CLONE_NEWPID | CLONE_NEWNET))
		r = -errno;
	init = r ? -1 : fork();
	if (init == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		buf = malloc(RXBUF_SIZE);
		if (!buf || setrlimit(RLIMIT_NOFILE, &nofile))
			r = -ENOMEM;
		for (i = 0; i < n && !r; i++) {
			struct nl nl;

			r = nl_taskstats(&nl, 0) ? -EIO : register_listener(&nl, buf);
		}
		if (write(ready, &r, sizeof(r)) != sizeof(r))
			_exit(1);
		for (;;)
			pause();
	}
	if (init < 0 && write(ready, &r, sizeof(r)) != sizeof(r))
		_exit(1);
	if (init > 0)
		waitpid(init, NULL, 0);
	_exit(0);
}

static int fork_exit_loop(long count, unsigned long long *ns)
{
	long warm = count / 20 + 1, i;
	unsigned long long t0 = 0;
	int status;
	pid_t pid;

	for (i = -warm; i < count; i++) {
		if (i == 0)
			t0 = now_ns();
		pid = fork();
		if (pid < 0)
			return fail("fork");
		if (pid == 0)
			_exit(0);
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
			return fail("waitpid");
	}
	*ns = now_ns() - t0;
	return 0;
}

static int cmd_exit(const struct opts *o)
{
	long count = pick(o->count, 10000, 200, o), n = o->listeners, i, started = 0, prev, cur;
	long nc = o->containers > 0 ? o->containers : 0;
	pid_t containers[64];
	int ready[2] = { -1, -1 };
	struct listener *ls;
	unsigned long long ns = 0;
	__u16 family = 0;
	char *nl_pos;
	int fd, ret = 0, r;
	struct nl nl;

	if (n < 0)
		n = 0;
	fd = open("/sys/devices/system/cpu/possible", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || read(fd, cpu_possible, sizeof(cpu_possible) - 1) <= 0)
		return fail("/sys/devices/system/cpu/possible");
	close(fd);
	nl_pos = strchr(cpu_possible, '\n');
	if (nl_pos)
		*nl_pos = '\0';
	ls = calloc(n + 1, sizeof(*ls));
	if (!ls)
		return failx("exit: out of memory");
	if (n) {
		if (nl_taskstats(&nl, 0)) {
			free(ls);
			return 1;
		}
		family = nl.family;
		close(nl.fd);
	}
	if (nc > 64)
		nc = 64;
	if (nc) {
		if (pipe(ready))
			return fail("pipe");
		for (i = 0; i < nc; i++) {
			containers[i] = container_listeners(n / nc + (i < n % nc), ready[1]);
			if (containers[i] < 0) {
				nc = i;
				ret = fail("fork");
				break;
			}
		}
		close(ready[1]);
		for (i = 0; i < nc && !ret; i++) {
			if (read(ready[0], &r, sizeof(r)) != sizeof(r))
				r = -EIO;
			if (r == -EPERM) {
				/* Upstream: only the initial namespace's admin listens. */
				printf("RESULT exit_ns%ld unsupported -\n", n);
				ret = -1;
			} else if (r < 0) {
				errno = -r;
				ret = fail("registering exit listeners in a container");
			}
		}
	}
	for (i = 0; i < n && !nc; i++) {
		ls[i].family = family;
		errno = pthread_create(&ls[i].thread, NULL, listener_thread, &ls[i]);
		if (errno) {
			ret = fail("pthread_create");
			break;
		}
		started++;
	}
	for (i = 0; i < started && !ret; i++) {
		while (!(r = __atomic_load_n(&ls[i].ready, __ATOMIC_ACQUIRE)))
			sleep_ms(1);
		if (r < 0) {
			errno = -r;
			ret = fail("registering an exit listener");
		}
	}
	/*
	 * Parent and children share CPU 0 (listeners keep the affinity they
	 * were created with): a child woken on the other CPU would leave both
	 * idle at times, and under -icount idle time follows the host's clock.
	 */
	if (!ret && pin_cpu(0))
		ret = fail("pinning to CPU 0");
	if (!ret)
		ret = fork_exit_loop(count, &ns);
	/* Let the listeners drain what is queued before stopping them. */
	cur = total_records(ls, started);
	for (i = 0; i < 20; i++) {
		prev = cur;
		sleep_ms(100);
		cur = total_records(ls, started);
		if (cur == prev)
			break;
	}
	__atomic_store_n(&listeners_stop, 1, __ATOMIC_RELEASE);
	for (i = 0; i < started; i++) {
		pthread_join(ls[i].thread, NULL);
		note("exit: listener %ld (cpus %s) got %ld records in %ld messages, %ld ENOBUFS",
		     i, cpu_possible, ls[i].records, ls[i].messages, ls[i].drops);
	}
	for (i = 0; i < nc; i++) {
		kill(containers[i], SIGKILL);
		waitpid(containers[i], NULL, 0);
	}
	if (ready[0] >= 0)
		close(ready[0]);
	free(ls);
	if (ret)
		return ret < 0 ? 0 : ret;
	note("exit: %ld fork+exit+wait with %ld listeners%s in %.3f s", count, n,
	     nc ? " in containers" : "", ns / 1e9);
	resultf(count / (ns / 1e9), "forks/s", nc ? "exit_ns%ld" : "exit_l%ld", n);
	return 0;
}

/* ---------------------------------------------------------------- delayacct */

static int cmd_delayacct(const char *arg)
{
	const char *path = "/proc/sys/kernel/task_delayacct";
	long old = sysctl_read(path), v;

	if (old < 0)
		return fail(path);
	if (!arg) {
		printf("task_delayacct %ld\n", old);
		return 0;
	}
	if (strcmp(arg, "on") && strcmp(arg, "off"))
		return failx("delayacct: say on or off, not %s", arg);
	v = !strcmp(arg, "on");
	if (sysctl_write(path, v))
		return fail(path);
	printf("task_delayacct %ld -> %ld\n", old, v);
	return 0;
}

/* --------------------------------------------------------------------- main */

static void print_usage(void)
{
	fprintf(stderr,
		"usage: taskstats_bench [-q|--quick] [-T|--tag TAG] SUBCOMMAND [OPTIONS]\n"
		"  pingpong [-n ROUNDS]\n"
		"  directio -f FILE_OR_DEVICE [-n COUNT]\n"
		"  get [-n COUNT]\n"
		"  tgid [-t THREADS] [-n COUNT]\n"
		"  siglock [-t THREADS] [-n COUNT]\n"
		"  collect -N TASKS [-r REPS]\n"
		"  cgroup -N TASKS [-g MEMBERS] [-r REPS]\n"
		"  exit [-l LISTENERS] [-c CONTAINERS] [-n COUNT]\n"
		"  delayacct [on|off]\n");
	exit(2);
}

static long parse_count(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < 0) {
		failx("not a number: %s", s);
		print_usage();
	}
	return v;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "tag", required_argument, NULL, 'T' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { 0 };
	const char *cmd = NULL;
	int c;

	o.listeners = -1;
	/* Options may come before or after the subcommand. */
	while (optind < argc) {
		c = getopt_long(argc, argv, "+qT:n:N:t:l:c:r:f:g:", longopts, NULL);
		if (c == -1) {
			if (cmd)
				break;
			cmd = argv[optind++];
			continue;
		}
		switch (c) {
		case 'q':
			o.quick = 1;
			break;
		case 'T':
			tag = optarg;
			break;
		case 'n':
			o.count = parse_count(optarg);
			break;
		case 'N':
			o.tasks = parse_count(optarg);
			break;
		case 't':
			o.threads = parse_count(optarg);
			break;
		case 'l':
			o.listeners = parse_count(optarg);
			break;
		case 'c':
			o.containers = parse_count(optarg);
			break;
		case 'r':
			o.reps = parse_count(optarg);
			break;
		case 'f':
			o.file = optarg;
			break;
		case 'g':
			o.members = parse_count(optarg);
			break;
		default:
			print_usage();
		}
	}
	if (!cmd)
		print_usage();
	if (!strcmp(cmd, "pingpong"))
		return cmd_pingpong(&o);
	if (!strcmp(cmd, "directio"))
		return cmd_directio(&o);
	if (!strcmp(cmd, "get"))
		return cmd_get(&o);
	if (!strcmp(cmd, "tgid"))
		return cmd_tgid(&o);
	if (!strcmp(cmd, "siglock"))
		return cmd_siglock(&o);
	if (!strcmp(cmd, "collect"))
		return cmd_collect(&o);
	if (!strcmp(cmd, "cgroup"))
		return cmd_cgroup(&o);
	if (!strcmp(cmd, "exit"))
		return cmd_exit(&o);
	if (!strcmp(cmd, "delayacct"))
		return cmd_delayacct(optind < argc ? argv[optind] : NULL);
	print_usage();
	return 2;
}
