// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats_stress: the options, and what a run finds out before its
 * first child: the CPUs, the shared mappings, the TASKSTATS family, the
 * right to register exit listeners and whether the kernel dumps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <linux/taskstats.h>

#include "tsnl.h"
#include "stress.h"

#define EXIT_SKIP	4		/* kselftest's KSFT_SKIP */
#define MIN_LISTENERS	8
#define MAX_LISTENERS	256
#define MAX_TASKS	10000000UL

struct options opt = {
	.tasks = 100000,
	.time = 600,
	.listeners = MIN_LISTENERS,
	.pace = 1,
};

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
int parse_options(int argc, char **argv)
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
void find_cpus(void)
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

void *map_shared(size_t size)
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
int preflight(struct dumper *d)
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
	cgids_ok = ts_kernel_cgroup_ids();
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

/*
 * With a kernel that has cgroup listeners: a cgroup v2 of our own, which
 * half the storm workers move into, and its id. Without, cg_path stays
 * "" and every listener listens as before.
 */
void cg_setup(void)
{
	char root[256];

	if (!cgids_ok) {
		printf("# this kernel has no cgroup ids nor cgroup listeners\n");
		return;
	}
	if (ts_cgroup2_root(root, sizeof(root))) {
		printf("# no cgroup v2 hierarchy: no cgroup listeners\n");
		return;
	}
	snprintf(cg_path, sizeof(cg_path), "%s/ts-stress-%d", root, (int)getpid());
	if (mkdir(cg_path, 0755) && errno != EEXIST) {
		printf("# mkdir %s: %s: no cgroup listeners\n", cg_path, strerror(errno));
		cg_path[0] = '\0';
		return;
	}
	cg_dir = open(cg_path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	cg_id = cg_dir >= 0 ? ts_cgroup_id_at(cg_dir, "") : 0;
	if (!cg_id) {
		printf("# %s: no id: no cgroup listeners\n", cg_path);
		if (cg_dir >= 0)
			close(cg_dir);
		cg_dir = -1;
		rmdir(cg_path);
		cg_path[0] = '\0';
		return;
	}
	home_id = ts_task_cgroup_id(root, 0);
	printf("# cgroup listeners: %s (id %llu); the other workers stay in cgroup %llu\n",
	       cg_path, (unsigned long long)cg_id, (unsigned long long)home_id);
}

/* Removes cg_path once its tasks are reaped (their last exits take a moment). */
void cg_cleanup(void)
{
	int i;

	if (!cg_path[0])
		return;
	for (i = 0; i < 100 && rmdir(cg_path) && errno == EBUSY; i++)
		sleep_ms(20);
	if (i == 100)
		printf("# rmdir %s: still busy\n", cg_path);
}
