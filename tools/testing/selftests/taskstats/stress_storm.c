// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats_stress: the exit storm. A worker process per CPU and kind,
 * pinned, that hands out storm ids from the shared counter and makes one
 * short-lived task of each (a child process, or a thread), which names
 * itself after its id, reports its pid and checks its CPU; the worker
 * reaps it and counts it in the shared mapping. An id is marked in
 * created before its task exists, and its pid stored before it exits.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "stress.h"

#define THREADED_EVERY	8		/* one storm child in 8 runs a thread */
#define NO_ID		(~0UL)

/* Exit codes of a storm task, read by its worker. */
#define TASK_OK		0
#define TASK_WRONG_CPU	1
#define TASK_UNNAMED	2

/* This worker moved itself into cg_path: its tasks are there. */
static bool in_cgroup;

static unsigned long next_storm_id(void)
{
	unsigned long id;

	if (flag_get(&sh->stop))
		return NO_ID;
	id = __atomic_fetch_add(&sh->next_id, 1, __ATOMIC_RELAXED);
	return id < opt.tasks ? id : NO_ID;
}

/* A storm task has been reaped: @code is its TASK_* code, or -1. */
static void storm_exited(int cpu, bool thread, int code)
{
	shared_add(&sh->exited, 1);
	if (in_cgroup)
		shared_add(&sh->exited_cg, 1);
	if (in_cgroup && code == TASK_UNNAMED)
		shared_add(&sh->unnamed_cg, 1);
	shared_add(thread ? &sh->threads : &sh->procs, 1);
	shared_add(&sh->cpu_exits[cpu], 1);
	if (code == TASK_WRONG_CPU)
		shared_add(&sh->wrong_cpu, 1);
	else if (code == TASK_UNNAMED)
		shared_add(&sh->unnamed, 1);
	else if (code < 0)
		shared_add(&sh->killed, 1);
}

/* A storm child: names itself, reports its pid and CPU, exits. */
static void storm_child(unsigned long id, int cpu)
{
	char name[16];

	if (id % THREADED_EVERY == THREADED_EVERY - 1) {
		pthread_t t;

		/* Our exit then ends a multi-threaded group: AGGR_TGID too. */
		if (!pthread_create(&t, &small_stack, idle_thread, NULL))
			pthread_join(t, NULL);
	}
	storm_name(name, id);
	if (prctl(PR_SET_NAME, name))
		_exit(TASK_UNNAMED);
	__atomic_store_n(&pids[id], getpid(), __ATOMIC_RELEASE);
	_exit(sched_getcpu() == cpu ? TASK_OK : TASK_WRONG_CPU);
}

static void fork_worker(int cpu)
{
	unsigned long id, n = 0;
	int status;
	pid_t pid;

	while ((id = next_storm_id()) != NO_ID) {
		/* Handed out before the task exists: its record cannot precede it. */
		if (in_cgroup)
			bit_set_shared(in_cg, id);
		bit_set_shared(created, id);
		while ((pid = fork()) < 0) {
			if (flag_get(&sh->stop)) {
				bit_clear_shared(created, id);
				_exit(0);
			}
			shared_add(&sh->retries, 1);
			sleep_ms(1);
		}
		if (!pid)
			storm_child(id, cpu);
		/* Our alarm() bounds this wait. */
		if (waitpid(pid, &status, 0) != pid)
			_exit(3);
		storm_exited(cpu, false, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		if (!(++n % 16))
			sched_yield();
	}
	_exit(0);
}

struct storm_thread {
	unsigned long id;
	int cpu;
	int code;
};

static void *storm_thread_main(void *arg)
{
	struct storm_thread *st = arg;
	char name[16];

	storm_name(name, st->id);
	if (prctl(PR_SET_NAME, name)) {
		st->code = TASK_UNNAMED;
		return NULL;
	}
	__atomic_store_n(&pids[st->id], thread_id(), __ATOMIC_RELEASE);
	st->code = sched_getcpu() == st->cpu ? TASK_OK : TASK_WRONG_CPU;
	return NULL;
}

static void thread_worker(int cpu)
{
	struct storm_thread st;
	unsigned long n = 0;
	pthread_t t;

	while ((st.id = next_storm_id()) != NO_ID) {
		st.cpu = cpu;
		st.code = TASK_OK;
		if (in_cgroup)
			bit_set_shared(in_cg, st.id);
		bit_set_shared(created, st.id);
		while (pthread_create(&t, &small_stack, storm_thread_main, &st)) {
			if (flag_get(&sh->stop)) {
				bit_clear_shared(created, st.id);
				_exit(0);
			}
			shared_add(&sh->retries, 1);
			sleep_ms(1);
		}
		/* Returns once the kernel cleared the tid: after the exit record. */
		pthread_join(t, NULL);
		storm_exited(cpu, true, st.code);
		if (!(++n % 16))
			sched_yield();
	}
	_exit(0);
}

/* A storm worker: pinned, waits for the start (EOF on @start), runs. */
void storm_worker(int cpu, bool threads, bool in_cgroup_too, int start)
{
	struct pollfd p = { .fd = start, .events = POLLIN };
	cpu_set_t set;
	int fd;

	/* Before the start: no task of ours is made outside it. */
	if (in_cgroup_too && cg_path[0]) {
		fd = openat(cg_dir, "cgroup.procs", O_WRONLY | O_CLOEXEC);
		in_cgroup = fd >= 0 && write(fd, "0", 1) == 1;
		if (fd >= 0)
			close(fd);
		if (in_cgroup)
			shared_add(&sh->cg_workers, 1);
	}

	prctl(PR_SET_NAME, threads ? "tss_threads" : "tss_forks");
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		_exit(5);
	if (poll(&p, 1, secs_left() * 1000) != 1)
		_exit(6);
	close(start);
	if (threads)
		thread_worker(cpu);
	fork_worker(cpu);
}
