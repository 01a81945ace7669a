// SPDX-License-Identifier: GPL-2.0
/*
 * One phase: the fuzzing loop, and the child that runs it as root, as
 * nobody or in fresh namespaces and reports its counts to the parent
 * through a pipe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "fuzz.h"

#define NOBODY		65534
#define TX_SIZE		((MAX_BATCH + 2) * MSG_ROOM + BIG_LIST + 1024)

/* The datagram being laid out (f->tx), aligned for its headers. */
static __u64 tx_words[TX_SIZE / 8];

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

/* ----------------------------------------------------------------- phase */

/*
 * Runs phase @ph in this process: @budget messages, or as many as fit
 * before @deadline (ns, 0 for none); prints its notes, its counts in f->c.
 */
void fuzz_phase(struct fuzz *f, const struct opts *o, enum phase ph,
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

/*
 * Runs phase @ph in a child and adds its counts to @sum: a phase with no
 * report, or none in time (then killed), is a violation.
 */
void run_phase(const struct opts *o, enum phase ph, __u64 budget,
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
