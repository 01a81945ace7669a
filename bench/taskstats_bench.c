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
 *   exit [-l LISTENERS] [-c CONTAINERS | -G] [-n COUNT]
 *                                  fork+exit+wait per second with that many
 *                                  exit listeners on all possible CPUs; with
 *                                  -c, registered from that many containers
 *                                  (user, pid and net namespaces) instead;
 *                                  with -G, forking in a fresh cgroup v2
 *                                  with listeners registered for another
 *                                  (DUMP_CGROUP_FD; a kernel without cgroup
 *                                  listeners, by CTRL_CMD_GETPOLICY: the
 *                                  result is "unsupported")
 *   delayacct on|off               set kernel.task_delayacct
 *
 * Common options: -q/--quick (a CI smoke: every subcommand in about a
 * second), -T/--tag TAG (append _TAG to every result name).
 *
 * This file owns the command line and delayacct; each bench_*.c file owns
 * one concern, named at its top, and bench.h is what they share.
 * Build: gcc -O2 -Wall -Wextra -isystem include/uapi \
 *	taskstats_bench.c bench_*.c -lpthread
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

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
		"  exit [-l LISTENERS] [-c CONTAINERS | -G] [-n COUNT]\n"
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
		c = getopt_long(argc, argv, "+qT:n:N:t:l:c:r:f:g:G", longopts, NULL);
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
		case 'G':
			o.cgroup = 1;
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
