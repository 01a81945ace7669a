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
 *  - records carry TASKSTATS_TYPE_CGROUP_ID exactly when the request (a
 *    GET, a dump, the registration of the listener hearing them) asked
 *    for it with TASKSTATS_CMD_ATTR_CGROUP_ID, laid out { id, STATS,
 *    CGROUP_ID } (NULL pads only where an architecture needs them), never
 *    0, and the id of the cgroup the fuzzer knows its task is in (its
 *    watched tasks, the tasks a dump of ts-fuzz lists); without the flag
 *    the old layout exactly. A kernel without CGROUP_ID in its GET policy
 *    (CTRL_CMD_GETPOLICY: upstream's, the series before issue 48)
 *    ignores it, and the cgroup of a registration;
 *  - on one with it, a registration naming a cgroup (DUMP_CGROUP_FD,
 *    DUMP_SUBTREE) fails, once its cpulist parsed, with the errno of its
 *    fd (EBADF, EINVAL, ENOENT, EOPNOTSUPP for cgroup v1; DUMP_SUBTREE
 *    alone EINVAL), and with EBUSY exactly when the socket's listener has
 *    another identity (cgroup, subtree, CGROUP_ID), which the fuzzer
 *    tracks; and a cgroup listener hears only exits of its cgroup, with
 *    the layout it asked for;
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
 *
 * Layout. This file is the parent: options, the cgroups made as root and
 * their removal, the phases in turn, and the summary. fuzz_phase.c runs a
 * phase, fuzz_targets.c looks up what it names, fuzz_msg.c and fuzz_gen.c
 * lay its messages out, fuzz_predict.c says what each must get, fuzz_io.c
 * sends them and reads the answers, fuzz_check.c and fuzz_access.c check
 * those, and fuzz_util.c holds the stream and the reporting; fuzz.h is
 * what they share.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <linux/magic.h>

#include "../kselftest.h"
#include "tsnl.h"
#include "fuzz.h"

/* Made by the parent as root (v2_setup()), inherited by every phase. */
static bool v2_made;		/* V2_CHILD and V2_SUB are there */
int v2_gone_fd = -1;		/* a cgroup v2 directory since removed */
pid_t resident;			/* the sleeping task alone in V2_SUB */
bool v2_sub_one;		/* and it is alone there */
bool v2_paths_ok;		/* /proc/PID/cgroup paths are V2_ROOT's */

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
