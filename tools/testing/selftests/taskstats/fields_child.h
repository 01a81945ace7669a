/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the children and workers of fields_test.c run (the bodies given to
 * ts_run_child() and ts_worker_start(), a two-threaded child), and the
 * independent readings their records are compared with: /proc, the
 * clocks, the kernel's dev_t encoding.
 */
#ifndef TS_FIELDS_CHILD_H
#define TS_FIELDS_CHILD_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <sys/time.h>
#include <sys/types.h>

#include "tsnl.h"

#define PAGE	4096
#define TOUCH_PAGES	1024	/* the pages touch_new_pages() touches */

/*
 * CLOCK_MONOTONIC readings (us) of a two-threaded child, in a shared
 * mapping. The kernel stamps task start times with ktime_get_ns(), the
 * same clock: the leader started between the parent's fork() and @start,
 * the thread between @before_create and @after_create.
 */
struct tg_clock {
	pid_t tid;
	bool leader_gone;
	uint64_t start;
	uint64_t before_create;
	uint64_t after_create;
	uint64_t thread_end;
};

/* The exit record of the task @pid, once match_exit() has @seen it. */
struct exit_of {
	pid_t pid;
	bool seen;
	struct taskstats ts;
};

/* The file touch_cold_file() maps, of @size bytes. */
struct cold_file {
	char path[256];
	size_t size;
};

/* Clock @clk, in us. */
uint64_t now_us(clockid_t clk);

/* Bodies for ts_run_child(), as @arg says: their return is the exit code. */
int exit_with(void *arg);		/* exits with (long)@arg */
int kill_self(void *arg);		/* dies of signal (long)@arg */
int exec_true(void *arg);		/* execs /bin/true */
int renice(void *arg);			/* sets its nice to (long)@arg */
int set_name(void *arg);		/* PR_SET_NAME @arg */
int set_ids(void *arg);			/* switches to uid 1234, gid 2345 */
int sleep_then_exit(void *arg);		/* sleeps (long)@arg us */
int sleep_often(void *arg);		/* (long)@arg sleeps of 1 ms */
int user_then_system(void *arg);	/* CPU time in user, then system */

/* Bodies for ts_worker_start(). */
void idle(void *arg);			/* nothing */
void touch_new_pages(void *arg);	/* TOUCH_PAGES anonymous pages */
void touch_cold_file(void *arg);	/* every page of struct cold_file @arg */
void spin_for(void *arg);		/* (long)@arg us of CPU time */

/* Field @field (from 1, as in proc(5)) of /proc/@pid/stat. */
int proc_stat_field(pid_t pid, int field, unsigned long long *val);

/* The number after "@key:" in /proc/@pid/status. */
int proc_status_field(pid_t pid, const char *key, uint64_t *val);

/* @pid's start time, in seconds since the epoch, as /proc has it. */
int proc_start(pid_t pid, uint64_t *start);

/*
 * The body of a two-threaded child, its clock readings in @c: the second
 * thread ends first, or outlives the leader if @leader_first. Never
 * returns.
 */
void run_two_threads(struct tg_clock *c, bool leader_first);

/* A tsnl_exit_fn: keeps the record of the struct exit_of @arg's pid. */
void match_exit(const struct tsnl_exit *e, void *arg);

/* @dev in the kernel's huge_encode_dev() encoding. */
uint64_t kernel_dev(dev_t dev);

/* Spins in user space until the thread has used @us more CPU time. */
void spin_user(uint64_t us);

/* The us from @a to @b. */
uint64_t tv_us(struct timeval a, struct timeval b);

/* The first CPU this thread may run on, or -1. */
int first_allowed_cpu(void);

/* Pins @pid to @cpu: 0, or -1 with errno. */
int pin(pid_t pid, int cpu);

#endif
