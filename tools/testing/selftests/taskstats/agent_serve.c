// SPDX-License-Identifier: GPL-2.0
/*
 * Agents for the access tests, the agent's side: see agent.h. Each obeys
 * commands until its socket closes (serve()), answering with an int, a
 * second int and maybe a file descriptor; targets it spawns are named by
 * a pidfd, which every agent turns into a pid number of its own pid
 * namespace. The state below belongs to the one agent process.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <linux/capability.h>
#include <pthread.h>

#include "../kselftest.h"
#include "agent.h"
#include "agent_internal.h"
#include "tsnl.h"

static int proc_io_readable(pid_t pid)
{
	char path[64], buf[512];

	if (pid <= 0)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/io", pid);
	return ts_read_file(path, buf, sizeof(buf)) > 0;
}

/* The agent's own taskstats socket and listener, and one it shares. */
static int nl = -1, listener = -1, held = -1;
static int more[64];
static unsigned int nr_more;
static uint32_t held_seq;
static uint16_t family;

/*
 * 1 if a GET of @pid returns the record of the target named @name, 0 if
 * it is refused with EPERM. A target with no pid here (@pid 0) is asked for by the
 * number it has where the test runs, @theirs: that must not exist here,
 * ESRCH, or name a task of ours, never the target nor refuse it (EPERM
 * would tell that the number is someone's).
 */
static int get_reads(int attr, pid_t pid, const char *name, pid_t theirs)
{
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_reply r;
	struct taskstats ts;
	int err;

	if (pid <= 0) {
		if (theirs <= 0)
			return -EINVAL;
		err = tsnl_get(nl, family, attr, theirs, &ts, &r, buf);
		if (err == -ESRCH)
			return 0;
		if (err)
			return err;
		if (attr == TASKSTATS_CMD_ATTR_PID && !strcmp(ts.ac_comm, name))
			return -EEXIST;
		return 0;
	}
	err = tsnl_get(nl, family, attr, pid, &ts, &r, buf);
	/* Visible here, so refused as /proc/PID/io refuses: EPERM only. */
	if (err == -EPERM)
		return 0;
	if (err)
		return err;
	if (r.id != (uint32_t)pid)
		return -EBADMSG;
	/* A PID record names its task; a TGID record has no name. */
	if (attr == TASKSTATS_CMD_ATTR_PID && strcmp(ts.ac_comm, name))
		return -EBADMSG;
	return 1;
}

struct find {
	const char *name;
	pid_t pid;
	bool found;
	struct tsnl_exit exit;	/* the exit heard, for heard() */
};

static void find_record(uint32_t id, int aggr, const struct taskstats *ts,
			void *arg)
{
	struct find *f = arg;

	if (aggr == TASKSTATS_TYPE_AGGR_TGID)
		f->found |= f->pid > 0 && id == (uint32_t)f->pid;
	else
		f->found |= !strcmp(ts->ac_comm, f->name);
}

static int dump_lists(bool tgid, pid_t pid, const char *name)
{
	struct find f = { .name = name, .pid = pid };
	int n = tsnl_dump(nl, family, tgid, find_record, &f, NULL);

	return n < 0 ? n : f.found;
}

static void heard_exit(const struct tsnl_exit *e, void *arg)
{
	struct find *f = arg;

	if (!f->found && e->have_pid && !strcmp(e->pid_ts.ac_comm, f->name)) {
		f->found = true;
		f->exit = *e;
	}
}

/* The last exit heard: OP_HEARD_IDS reads its ids. */
static struct find last_heard;

/*
 * Whether the listener heard the exit of the task named @name, once the
 * process @pidfd names has exited; *@aux is what @what (HEARD_*) asks of
 * it. taskstats_exit() queues the record before exit_notify() makes the
 * pidfd readable: by then it is there, or it never will be. A timer
 * instead would decide "not heard" of an exit that had not happened yet.
 */
static int heard(const char *name, int what, int *aux, int pidfd)
{
	if (pidfd < 0)
		return -EBADF;
	if (!wait_exited(pidfd))
		return -ETIMEDOUT;
	memset(&last_heard, 0, sizeof(last_heard));
	last_heard.name = name;
	tsnl_drain(listener, heard_exit, &last_heard);
	if (!last_heard.found)
		return 0;
	if (what == HEARD_TGID)
		*aux = last_heard.exit.have_tgid;
	else if (what == HEARD_SEQ)
		*aux = last_heard.exit.seq;
	else if (what == HEARD_FLAG)
		*aux = last_heard.exit.pid_ts.ac_flag;
	return 1;
}

/* A counter as a reply: -EOVERFLOW where an int cannot hold it. */
static int counter_reply(uint64_t v)
{
	return v > INT_MAX ? -EOVERFLOW : (int)v;
}

/*
 * The cgroup id of the last exit heard: -ENODATA if its record carried
 * none, -EOVERFLOW if an int cannot hold it.
 */
static int heard_cgroup_id(void)
{
	const struct tsnl_exit_more *more = &last_heard.exit.pid_more;

	return more->have_cgroup_id ? counter_reply(more->cgroup_id) : -ENODATA;
}

/* The field @which (IDS_*) of record @ts; -EINVAL for another @which. */
static int record_id(const struct taskstats *ts, int which)
{
	switch (which) {
	case IDS_UID:
		return ts->ac_uid;
	case IDS_GID:
		return ts->ac_gid;
	case IDS_PID:
		return ts->ac_pid;
	case IDS_PPID:
		return ts->ac_ppid;
	case IDS_WCHAR:
		return counter_reply(ts->write_char);
	case IDS_SYSCW:
		return counter_reply(ts->write_syscalls);
	}
	return -EINVAL;
}

/*
 * A new listener on every CPU for the exits of the cgroup @cgroup_fd
 * names, with the TSNL_* @flags.
 */
static int listen_cgroup(int cgroup_fd, int flags)
{
	char cpus[256];

	listener = tsnl_open();
	if (listener < 0)
		return listener;
	ts_possible_cpus(cpus, sizeof(cpus));
	return tsnl_register(listener, family, cpus, cgroup_fd, flags);
}

/* The id @which of the record a GET of @pid returns, or the GET's errno. */
static int get_id(pid_t pid, int which)
{
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_reply r;
	struct taskstats ts;
	int err;

	err = tsnl_get(nl, family, TASKSTATS_CMD_ATTR_PID, pid, &ts, &r, buf);
	return err ? err : record_id(&ts, which);
}

/*
 * Registers the listener with CAP_SYS_ADMIN out of the effective set,
 * then puts it back: the listener keeps the credentials it registered
 * with, which no longer hold every capability a task of the namespace
 * may have, so that reading such a task takes CAP_SYS_PTRACE.
 */
static int listen_with_fewer_caps(char *cpus, int size)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct all[2], fewer[2];
	int err;

	if (syscall(SYS_capget, &h, all))
		return -errno;
	memcpy(fewer, all, sizeof(all));
	fewer[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective &= ~CAP_TO_MASK(CAP_SYS_ADMIN);
	if (syscall(SYS_capset, &h, fewer))
		return -errno;
	err = ts_register_all(listener, family, cpus, size);
	if (syscall(SYS_capset, &h, all) && !err)
		err = -errno;
	return err;
}

static void *park_thread(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

/* Whether @pid is a zombie, by its /proc/PID/stat. */
static bool zombie(pid_t pid)
{
	char path[64], buf[512], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (ts_read_file(path, buf, sizeof(buf)) < 0)
		return false;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] == 'Z';
}

/*
 * A target: named, maybe undumpable, a setuid program or a zombie (the
 * child of the spawned process), or one that read its own record, parked.
 */
static int spawn(const struct cmd *c, int *pidfd)
{
	int ready[2], err = 0;
	pid_t pid, target;

	if (pipe2(ready, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* Dies with the agent, unless it execs a setuid program. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_NAME, c->name);
		if (c->arg & SPAWN_UNDUMPABLE)
			prctl(PR_SET_DUMPABLE, 0);
		if (c->arg & SPAWN_SETUID) {
			/* The pipe closes at the exec: the agent then replies. */
			setenv("TS_PARK", "1", 1);
			execl(SUID_PATH, c->name, (char *)NULL);
			_exit(1);
		}
		target = getpid();
		if (c->arg & SPAWN_GETS_ITSELF) {
			static char buf[TSNL_BUF_SIZE];
			struct tsnl_reply r;
			struct taskstats ts;

			/* The agent waits for us: its socket is ours a while. */
			err = tsnl_get(nl, family, TASKSTATS_CMD_ATTR_PID, target,
				       &ts, &r, buf);
			if (!err && ts.ac_pid != (uint32_t)target)
				err = -EBADMSG;
			if (err)
				target = err;
		}
		if (c->arg & SPAWN_LEADER_EXITS) {
			pthread_t t;

			/* The thread is born with the target's name. */
			if (pthread_create(&t, NULL, park_thread, NULL))
				_exit(1);
			prctl(PR_SET_NAME, "ts_zleader");
			if (write(ready[1], &target, sizeof(target)) != sizeof(target))
				_exit(1);
			pthread_exit(NULL);
		}
		if (c->arg & SPAWN_ZOMBIE) {
			/* A child of ours that exits and is never reaped. */
			signal(SIGCHLD, SIG_DFL);
			target = fork();
			if (target == 0)
				_exit(0);
			/* Only the zombie answers to the target's name. */
			prctl(PR_SET_NAME, "ts_zparent");
			while (target > 0 && !zombie(target))
				usleep(1000);
		}
		if (write(ready[1], &target, sizeof(target)) != sizeof(target))
			_exit(1);
		for (;;)
			pause();
	}
	close(ready[1]);
	target = pid;
	if (read(ready[0], &target, sizeof(target)) < 0)
		err = -errno;
	close(ready[0]);
	if (!err && target < 0) {
		/* The target's own GET failed: that is the answer. */
		kill(pid, SIGKILL);
		return target;
	}
	while (!err && (c->arg & SPAWN_LEADER_EXITS) && !zombie(target))
		usleep(1000);
	*pidfd = syscall(SYS_pidfd_open, target, 0);
	if (*pidfd < 0)
		err = -errno;
	return err;
}

static int held_dump(void)
{
	struct tsnl_msg m;

	tsnl_msg_init(&m, family, TASKSTATS_CMD_GET, NLM_F_DUMP);
	held_seq = m.nlh.nlmsg_seq;
	return tsnl_send(held, &m);
}

static void count_root(uint32_t id, int aggr, const struct taskstats *ts,
		       void *arg)
{
	*(int *)arg += ts->ac_uid == 0;
}

/*
 * The rest of the dump on the shared socket: returns how many records of
 * root's tasks it held, and its end code in *@end.
 */
static int held_rest(int *end)
{
	static char buf[TSNL_BUF_SIZE];
	struct nlmsghdr *h;
	int n, roots = 0;

	for (;;) {
		n = tsnl_recv(held, buf, sizeof(buf), 0);
		if (n < 0) {
			*end = n;
			return roots;
		}
		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != held_seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE) {
				*end = *(int *)NLMSG_DATA(h);
				return roots;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				*end = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
				return roots;
			}
			tsnl_dump_records(h, count_root, &roots);
		}
	}
}

/*
 * One answer on the shared socket: 1 for the record of @pid (by its PID
 * attribute and its ac_pid), -EBADMSG for any other record, else the
 * error.
 */
static int held_answer(pid_t pid)
{
	static char buf[TSNL_BUF_SIZE];
	struct nlmsghdr *h = (void *)buf;
	int n = tsnl_recv(held, buf, sizeof(buf), 0);
	struct tsnl_reply r;
	struct taskstats ts;

	if (n < (int)NLMSG_HDRLEN)
		return n < 0 ? n : -EBADMSG;
	if (h->nlmsg_type == NLMSG_ERROR)
		return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
	if (tsnl_parse(buf, n, &r) || !r.have_id || r.id != (uint32_t)pid)
		return -EBADMSG;
	tsnl_stats_copy(&ts, &r);
	return ts.ac_pid == (uint32_t)pid ? 1 : -EBADMSG;
}

/*
 * GETs @pid for @ms milliseconds while it execs back and forth between a
 * plain and a setuid program: returns how many records were of the setuid
 * program (none may be), and in *@got how many records came back.
 */
static int race(pid_t pid, int ms, int *got)
{
	static char buf[TSNL_BUF_SIZE];
	struct timespec t0, t;
	struct tsnl_reply r;
	struct taskstats ts;
	int leaks = 0;

	*got = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		if (!tsnl_get(nl, family, TASKSTATS_CMD_ATTR_PID, pid, &ts, &r, buf)) {
			(*got)++;
			leaks += !strcmp(ts.ac_comm, "ts_suid");
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
	return leaks;
}

/* One more socket listening on CPU 0, kept until OP_LISTEN_LESS. */
static int listen_more(void)
{
	int fd, err;

	if (nr_more == ARRAY_SIZE(more))
		return -E2BIG;
	fd = tsnl_open();
	if (fd < 0)
		return fd;
	err = tsnl_cpumask(fd, family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0");
	if (err) {
		close(fd);
		return err;
	}
	more[nr_more++] = fd;
	return 0;
}

/*
 * A new socket listening on every CPU, with as much of @bytes of receive
 * buffer as it can get: forced if it may (SO_RCVBUFFORCE), else what
 * SO_RCVBUF grants. The socket, or -errno.
 */
static int listen_big(int bytes)
{
	char cpus[256];
	int fd, err = 0;

	fd = tsnl_open();
	if (fd < 0)
		return fd;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)) &&
	    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes)))
		err = -errno;
	if (!err)
		err = ts_register_all(fd, family, cpus, sizeof(cpus));
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}

struct register_cpu0 {
	int fd;
	pthread_barrier_t *go;
	int err;
};

/* Sends a registration of CPU 0; the answer is read by the caller. */
static void *send_register_cpu0(void *arg)
{
	struct register_cpu0 *r = arg;
	struct tsnl_msg m;

	tsnl_msg_init(&m, family, TASKSTATS_CMD_GET, NLM_F_ACK);
	tsnl_put_str(&m, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0");
	pthread_barrier_wait(r->go);
	r->err = tsnl_send(r->fd, &m);
	return NULL;
}

/*
 * @rounds new sockets, each registered by two threads at once, which race
 * to create its listener: how many sockets had a registration fail.
 */
static int listen_twice_at_once(int rounds)
{
	char buf[TSNL_BUF_SIZE];
	int failed = 0;

	for (int i = 0; i < rounds; i++) {
		struct register_cpu0 r[2];
		pthread_barrier_t go;
		int fd, acks = 0, bad = 0;
		pthread_t t;

		fd = tsnl_open();
		if (fd < 0)
			return fd;
		pthread_barrier_init(&go, NULL, 2);
		r[0] = (struct register_cpu0){ .fd = fd, .go = &go };
		r[1] = r[0];
		if (pthread_create(&t, NULL, send_register_cpu0, &r[1])) {
			close(fd);
			return -EAGAIN;
		}
		send_register_cpu0(&r[0]);
		pthread_join(t, NULL);
		pthread_barrier_destroy(&go);
		bad = r[0].err || r[1].err;
		while (!bad && acks < 2) {
			int n = tsnl_recv(fd, buf, sizeof(buf), 0);
			struct nlmsghdr *h;

			if (n < 0) {
				bad = 1;
				break;
			}
			for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
				if (h->nlmsg_type != NLMSG_ERROR)
					continue;
				acks++;
				bad |= ((struct nlmsgerr *)NLMSG_DATA(h))->error != 0;
			}
		}
		close(fd);
		failed += bad;
	}
	return failed;
}

/*
 * Root becomes user B with no capabilities but those of @caps (a mask of
 * capabilities below 32), effective and permitted, and opens its socket
 * again as B: a requester with some privilege, but not root's.
 */
static int become_b_with(unsigned int caps)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { .effective = caps, .permitted = caps } };

	if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) ||
	    setresgid(UID_B, UID_B, UID_B) || setresuid(UID_B, UID_B, UID_B) ||
	    syscall(SYS_capset, &h, d))
		return -errno;
	prctl(PR_SET_DUMPABLE, 1);
	close(nl);
	nl = tsnl_open();
	return nl < 0 ? nl : 0;
}

static int obey(const struct cmd *c, int pidfd, int *reply_fd, int *aux)
{
	/* The fd some commands are passed is not a pidfd. */
	bool sock = c->op == OP_REGISTER_ON || c->op == OP_DEREGISTER_ON ||
		    c->op == OP_LISTEN_CGROUP;
	pid_t pid = pidfd >= 0 && !sock ? pidfd_local(pidfd) : 0;
	char cpus[256];

	switch (c->op) {
	case OP_SPAWN:
		return spawn(c, reply_fd);
	case OP_PROC_IO:
		return proc_io_readable(pid);
	case OP_GET_PID:
		return get_reads(TASKSTATS_CMD_ATTR_PID, pid, c->name, c->arg);
	case OP_GET_TGID:
		return get_reads(TASKSTATS_CMD_ATTR_TGID, pid, c->name, c->arg);
	case OP_DUMP:
		return dump_lists(false, pid, c->name);
	case OP_DUMP_TGID:
		return dump_lists(true, pid, c->name);
	case OP_LISTEN:
		listener = tsnl_open();
		if (listener < 0)
			return listener;
		if (c->arg & LISTEN_FEWER_CAPS)
			return listen_with_fewer_caps(cpus, sizeof(cpus));
		return ts_register_all(listener, family, cpus, sizeof(cpus));
	case OP_HEARD:
		return heard(c->name, c->arg, aux, pidfd);
	case OP_LISTEN_MORE:
		return listen_more();
	case OP_LISTEN_LESS:
		if (!nr_more)
			return -ENOENT;
		close(more[--nr_more]);
		return 0;
	case OP_LISTEN_RACE:
		return listen_twice_at_once(c->arg);
	case OP_LISTEN_WIDER:
		if (!nr_more)
			return -ENOENT;
		return ts_register_all(more[nr_more - 1], family, cpus, sizeof(cpus));
	case OP_SET_LIMIT:
		snprintf(cpus, sizeof(cpus), "%d", c->arg);
		return ts_write_file("/proc/sys/user/max_taskstats_listeners", cpus);
	case OP_REGISTER_ON:
		return tsnl_cpumask(pidfd, family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0");
	case OP_DEREGISTER_ON:
		return tsnl_cpumask(pidfd, family, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, "0");
	case OP_LISTEN_BIG:
		*reply_fd = listen_big(c->arg);
		return *reply_fd < 0 ? *reply_fd : 0;
	case OP_EXITS:
		return fork_exits(c->arg);
	case OP_IDS:
		return get_id(pid ? pid : getpid(), c->arg);
	case OP_HEARD_IDS:
		if (!last_heard.found)
			return -ENOENT;
		if (c->arg == IDS_CGROUP)
			return heard_cgroup_id();
		return record_id(&last_heard.exit.pid_ts, c->arg);
	case OP_LISTEN_CGROUP:
		return listen_cgroup(pidfd, c->arg);
	case OP_BECOME_B_WITH:
		return become_b_with(c->arg);
	case OP_HELD_OPEN:
		held = tsnl_open();
		if (held >= 0)
			setsockopt(held, SOL_SOCKET, SO_RCVTIMEO,
				   &(struct timeval){ .tv_sec = 10 }, sizeof(struct timeval));
		*reply_fd = held;
		return held < 0 ? held : 0;
	case OP_HELD_DUMP:
		return held_dump();
	case OP_HELD_REST:
		*aux = 0;
		return held_rest(aux);
	case OP_HELD_ANSWER:
		return held_answer(c->arg);
	case OP_RACE:
		return race(pid, c->arg, aux);
	}
	return -EINVAL;
}

void serve(int sock)
{
	struct cmd c;
	int fd, out;

	signal(SIGCHLD, SIG_IGN);	/* targets reap themselves */
	nl = tsnl_open();
	if (nl < 0 || tsnl_family(nl, TASKSTATS_GENL_NAME, &family))
		_exit(2);
	while (recv_fd(sock, &c, sizeof(c), &fd) == sizeof(c)) {
		int ret[2] = { 0, 0 };

		out = -1;
		ret[0] = obey(&c, fd, &out, &ret[1]);
		if (fd >= 0)
			close(fd);
		if (send_fd(sock, ret, sizeof(ret), out))
			break;
		if (out >= 0 && out != held)
			close(out);
	}
	_exit(0);
}
