// SPDX-License-Identifier: GPL-2.0
/*
 * Processes for agents and tests: identities (become()), containers
 * (container_enter(), container_pid1()) and children that only exit
 * (fork_exits(), fork_exit_forever()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "agent.h"
#include "tsnl.h"

/* @n children that exit at once, each reaped before the next: how many. */
int fork_exits(int n)
{
	/* Not ignored, so that waitpid() waits for the one child. */
	sighandler_t was = signal(SIGCHLD, SIG_DFL);
	int done = 0;

	while (done < n) {
		pid_t c = fork();

		if (c == 0)
			_exit(0);
		if (c < 0 || waitpid(c, NULL, 0) != c)
			break;
		done++;
	}
	signal(SIGCHLD, was);
	return done;
}

/*
 * Forks children that exit at once and reaps them, as fast as it can,
 * until killed; counts each in *@forks (shared memory, or NULL).
 */
void fork_exit_forever(unsigned long *forks)
{
	for (;;) {
		pid_t c = fork();

		if (c == 0)
			_exit(0);
		if (c > 0)
			waitpid(c, NULL, 0);
		if (forks)
			__atomic_add_fetch(forks, 1, __ATOMIC_RELAXED);
	}
}

/* Becomes @uid with no capabilities, dumpable like a login's processes. */
void become(uid_t uid)
{
	if (setgroups(0, NULL) || setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		_exit(3);
	prctl(PR_SET_DUMPABLE, 1);
}

static int write_map(const char *file, const char *map)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	return ts_write_file(path, map);
}

/*
 * Becomes user A making a container: new user namespace with root mapped
 * to A, new pid, net and mount namespaces; the next child is the
 * container's pid 1. Returns 0, 4 if user namespaces are unavailable (a
 * test skips), or another non-zero value on failure.
 */
int container_enter(void)
{
	become(UID_A);
	if (unshare(CLONE_NEWUSER))
		return 4;
	if (write_map("setgroups", "deny") || write_map("uid_map", "0 65534 1") ||
	    write_map("gid_map", "0 65534 1"))
		return 5;
	if (unshare(CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWNS))
		return 6;
	return 0;
}

/*
 * Joins the cgroup directory @cgroup and makes a container
 * (container_enter()), whose pid 1 is a child. Returns 0 in pid 1, or
 * -errno or container_enter()'s code in the caller if that failed; the
 * caller itself never returns once pid 1 runs: it waits for it, then
 * exits.
 */
int container_pid1(const char *cgroup)
{
	char procs[320], pid[16];
	pid_t init;
	int err;

	snprintf(procs, sizeof(procs), "%s/cgroup.procs", cgroup);
	snprintf(pid, sizeof(pid), "%d", getpid());
	err = ts_write_file(procs, pid) ?: container_enter();
	if (err)
		return err;
	init = fork();
	if (init < 0)
		return -errno;
	if (init > 0) {
		waitpid(init, NULL, 0);
		_exit(0);
	}
	return 0;
}
