// SPDX-License-Identifier: GPL-2.0
/*
 * Many sleeping processes for collect and cgroup: started cheaply (shared
 * address space, 4 KiB stacks) with the limits raised for them, then killed,
 * reaped and the limits restored.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define CHILD_STACK	4096

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

/* Puts back what sysctl_raise() changed, if it did. */
static void sysctl_restore(struct sysctl_save *s)
{
	if (s->changed)
		sysctl_write(s->path, s->old);
}

/* The body of a sleeping process: pause() until SIGKILL. */
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

/* Kills the @n processes and waits for each. */
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

/*
 * Starts @n sleeping processes, raising RLIMIT_NPROC, kernel.threads-max
 * and kernel.pid_max as needed; @what names the workload in the notes.
 * Returns 0, or 1 after a message; either way sleepers_stop() undoes it.
 */
int sleepers_start(struct sleepers *s, long n, const char *what)
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
void sleepers_stop(struct sleepers *s, const char *what)
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
