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
 *  - Cgroup listeners, on a kernel that has them (CTRL_CMD_GETPOLICY lists
 *    TASKSTATS_CMD_ATTR_CGROUP_ID): half the storm workers move into a
 *    cgroup v2 of our own, ts-stress-PID, before the storm. One more
 *    steady listener registers for that cgroup with CGROUP_ID, so does
 *    every other chaotic one, and the second steady listener asks for
 *    CGROUP_ID alone.
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
 *    dropped records and have ENOBUFS pending. A cgroup listener hears
 *    only tasks of its cgroup (each record's CGROUP_ID is the cgroup's,
 *    and each storm task it hears was made there), and the same balance
 *    holds on the storm tasks of its cgroup; a listener asking for
 *    CGROUP_ID alone gets the cgroup of each storm task's worker.
 *  - Every message parses: aggregates walk exactly to the end of their
 *    message, ids and STATS (at least 4 bytes, version 1 to 17) are where
 *    they belong, ac_pid matches the pid attribute, CGROUP_ID is in the
 *    records of the listeners that asked for it and in no other (dumps
 *    and GETs never ask), an exit message's
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
 *
 * This file holds the state of a run and main(), which sets the run up,
 * starts everything, drives the storm to its end, stops the rest and
 * reports. The parts it starts are in stress_*.c; stress.h says what
 * they share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "stress.h"

#define STEADY		2		/* steady listeners that read */
#define STACK_SIZE	(64 * 1024)

__u16 family;
static double t_start;			/* CLOCK_MONOTONIC seconds */
double t_hard;				/* CLOCK_MONOTONIC seconds */
double op_timeout;			/* for one request and its answer */
double drain_until;			/* steady readers: last read */
int aux_stop;				/* chaotic, dump, GET threads: end */
int storm_over;				/* steady readers: drain and end */
unsigned long violations;
static bool hung;			/* a thread did not end in time */
pid_t pgrp;				/* the process group of our children */
pid_t main_pid;
int cpus[CPU_SETSIZE], ncpus;		/* CPUs we may run on */
int possible[CPU_SETSIZE], npossible;
char possible_str[1024];
struct shared *sh;
unsigned long *created;			/* storm ids handed to a task */
__u32 *pids;				/* the pid each storm task reported */
size_t map_bytes;			/* of a bitmap of all storm ids */
pid_t setns_pid, exec_pid;
int exec_count_fd = -1;
unsigned long execs;			/* generations of the exec loop */
bool dumps_ok = true;
pthread_attr_t small_stack;
bool cgids_ok;
char cg_path[512];
int cg_dir = -1;
__u64 cg_id, home_id;
unsigned long *in_cg;

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
	struct listener *ls, *silent = NULL, cgl = { .fd = -1 };
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
	in_cg = map_shared(map_bytes);
	ls = calloc(opt.listeners, sizeof(*ls));
	workers = calloc(2 * ncpus, sizeof(*workers));
	dumper.buf = malloc(BUF_SIZE);
	getter.buf = malloc(BUF_SIZE);
	if (!sh || !created || !pids || !in_cg || !ls || !workers || !dumper.buf || !getter.buf) {
		printf("# out of memory\n");
		return 1;
	}
	dumper.rng = rng_seed(1);
	getter.rng = rng_seed(2);

	ret = preflight(&dumper);
	if (ret >= 0)
		return ret;
	cg_setup();

	/* Children first, while we are single-threaded and hold no socket. */
	pgrp = start_anchor();
	if (pgrp < 0) {
		printf("# fork: %s\n", strerror(-pgrp));
		cg_cleanup();
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
			storm_worker(w->cpu, w->threads, !(i % 2), start[0]);
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
		/*
		 * With cgroup listeners: the second steady one asks for
		 * CGROUP_ID, and every other chaotic one listens to cg_path
		 * with it.
		 */
		if (cg_path[0] && (i == 1 || (chaotic && i % 2))) {
			ls[i].cgid = true;
			if (chaotic)
				ls[i].cg_fd = cg_dir;
		}
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
	/* One more steady listener: of cg_path alone, with CGROUP_ID. */
	if (cg_path[0]) {
		if (listener_init(&cgl, "cgroup", 0)) {
			printf("# out of memory\n");
			goto out_kill;
		}
		cgl.cg_fd = cg_dir;
		cgl.cgid = true;
		ret = listener_open_all(&cgl, 4 << 20);
		if (ret) {
			violation("%s: cannot register for %s and %s: %s", cgl.name,
				  possible_str, cg_path, strerror(-ret));
			goto out_kill;
		}
		ret = pthread_create(&cgl.thread, NULL, steady_main, &cgl);
		if (ret) {
			violation("cannot start the thread of %s: %s", cgl.name,
				  strerror(ret));
			goto out_kill;
		}
		cgl.started = true;
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
	cg_cleanup();
	if (!storm_start)
		goto out_report;

	/* The steady readers read the rest, then the checks. */
	drain_until = budget(5) - 0.5;
	flag_set(&storm_over);
	for (i = 0; i < STEADY; i++)
		if (ls[i].started)
			join_by(ls[i].thread, drain_until + 0.5, ls[i].name);
	if (cgl.started)
		join_by(cgl.thread, drain_until + 0.5, cgl.name);
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
	if (cgl.started) {
		/* Its cgroup's storm tasks alone, every one of them. */
		drops = check_steady(&cgl, shared_get(&sh->exited_cg) -
				     shared_get(&sh->unnamed_cg), storm_done);
		drops_known &= drops >= 0;
		total_drops += drops > 0 ? drops : 0;
		records += cgl.records;
		printf("# %s: %s, %lu workers in it, %lu of its storm tasks exited\n",
		       cgl.name, cg_path, shared_get(&sh->cg_workers),
		       shared_get(&sh->exited_cg));
		printf("# %s: %lu records with CGROUP_ID checked\n", cgl.name, cgl.cgid_records);
		if (!shared_get(&sh->cg_workers))
			violation("no storm worker could move into %s", cg_path);
	}
	if (cgl.fd >= 0)
		close(cgl.fd);
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
