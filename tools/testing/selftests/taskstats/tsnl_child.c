// SPDX-License-Identifier: GPL-2.0
/*
 * Shared ts_* helpers that set up exit listeners and run the children
 * whose exit records, or requests, the tests examine.
 */
#define _GNU_SOURCE
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "tsnl.h"

/**
 * ts_register_all() - register @fd as exit listener for every possible CPU.
 * @cpus: gets the cpulist registered, @size bytes, to deregister it later
 *
 * Return: 0 or the negative errno of the request.
 */
int ts_register_all(int fd, uint16_t family, char *cpus, int size)
{
	ts_possible_cpus(cpus, size);
	return tsnl_cpumask(fd, family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, cpus);
}

/**
 * ts_listener_open() - open a socket, resolve the TASKSTATS family on it
 * and register it as exit listener for every possible CPU.
 * @fd: the socket, or the negative errno of opening it
 * @family: the family id, or 0 if it was not resolved
 * @cpus: the cpulist registered, @size bytes
 *
 * Return: 0, or the negative errno of the step that failed; @fd and
 * @family tell which step that was.
 */
int ts_listener_open(int *fd, uint16_t *family, char *cpus, int size)
{
	uint16_t id;
	int err;

	*family = 0;
	*fd = tsnl_open();
	if (*fd < 0)
		return *fd;
	err = tsnl_family(*fd, TASKSTATS_GENL_NAME, &id);
	if (err)
		return err;
	*family = id;
	return ts_register_all(*fd, id, cpus, size);
}

struct ts_found {
	pid_t pid;
	bool seen;
	struct taskstats ts;
};

static void ts_match_pid(const struct tsnl_exit *e, void *arg)
{
	struct ts_found *f = arg;

	if (e->have_pid && e->pid == (uint32_t)f->pid) {
		f->seen = true;
		f->ts = e->pid_ts;
	}
}

/**
 * ts_run_child() - run @fn in a child and fetch the child's exit record.
 * @nl: a socket registered as exit listener for every CPU
 * @fn: what the child does; its return value is the child's exit status
 * @arg: passed to @fn
 * @ts: the exit record
 * @pidp: if not NULL, the child's pid
 *
 * Return: the wait status, or -1 if the child could not run or no record
 * of it arrived (records are queued before the parent can reap).
 */
int ts_run_child(int nl, int (*fn)(void *), void *arg, struct taskstats *ts,
		 pid_t *pidp)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	if (waitpid(pid, &status, 0) != pid || ts_exit_record(nl, pid, ts))
		return -1;
	if (pidp)
		*pidp = pid;
	return status;
}

/**
 * ts_exit_record() - the exit record of @pid, already reaped, from the
 * listener socket @nl (every record queued there is consumed).
 *
 * Return: 0, or -1 if it was not there.
 */
int ts_exit_record(int nl, pid_t pid, struct taskstats *ts)
{
	struct ts_found f = { .pid = pid };

	tsnl_drain(nl, ts_match_pid, &f);
	if (!f.seen)
		return -1;
	*ts = f.ts;
	return 0;
}

/**
 * ts_as_nobody() - run @fn in a child as uid and gid 65534, no capabilities.
 * @fn: gets a generic netlink socket opened as that user, @family, @other
 * @family: the TASKSTATS family id
 * @other: passed to @fn
 *
 * Return: the child's exit code, or -1 if it did not exit normally.
 */
int ts_as_nobody(int (*fn)(int fd, uint16_t family, pid_t other),
		 uint16_t family, pid_t other)
{
	int status, fd;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(100);
		/* Changing ids made us undumpable; our own tasks stay readable. */
		prctl(PR_SET_DUMPABLE, 1);
		fd = tsnl_open();
		if (fd < 0)
			_exit(101);
		_exit(fn(fd, family, other));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}
