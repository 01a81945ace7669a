// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats_stress: our child processes other than the storm's tasks.
 * Forking them into one process group that dies with us and at the
 * deadline; the anchor that founds the group; the exec loop, whose
 * threads other than the leader re-execute this program, and the child
 * that switches between namespaces with setns(); reaping them all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "stress.h"

#define EXEC_THREADS	2		/* threads of the exec loop that wait */

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
int exec_generation(const char *spec)
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

/*
 * Forks a child into the process group of our children (the first child
 * founds it): killed with us (parent-death signal) and by its own alarm
 * at the deadline, with the default SIGALRM and SIGPIPE.
 */
pid_t spawn(void)
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

pid_t start_anchor(void)
{
	pid_t pid = spawn();

	if (!pid) {
		prctl(PR_SET_NAME, "tss_anchor");
		for (;;)
			pause();
	}
	return pid;
}

pid_t start_setns(void)
{
	pid_t pid = spawn();

	if (!pid)
		setns_child();
	return pid;
}

pid_t start_exec_loop(void)
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
int reap_workers(struct worker *w, int n, bool stopping)
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
int reap_by(pid_t pid, double until)
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
