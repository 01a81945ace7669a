// SPDX-License-Identifier: GPL-2.0
/*
 * What a test made, and its janitor: see janitor.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "janitor.h"
#include "tsnl.h"

/* <linux/fs.h>'s, which does not mix with <sys/mount.h> on every libc. */
#ifndef FIFREEZE
#define FIFREEZE	_IOWR('X', 119, int)
#define FITHAW		_IOWR('X', 120, int)
#endif

#define EMPTY_MS	10000	/* for a cgroup to empty, its tasks killed */

/**
 * ts_mess_cgroup() - create the cgroup (or any directory) @path, recorded.
 * @m: the record; room for TS_MESS_CGROUPS
 * @path: the directory
 *
 * Recorded before it is made: a test that dies in between leaves the
 * janitor an rmdir(2) that fails, not a cgroup nobody removes. Cgroups
 * are removed in the reverse order, a child before its parent.
 *
 * Return: 0, -ENOSPC if the record is full, -ENAMETOOLONG if @path does
 * not fit in it, or the -errno of mkdir(2).
 */
int ts_mess_cgroup(struct ts_mess *m, const char *path)
{
	if (m->ncgroups == TS_MESS_CGROUPS)
		return -ENOSPC;
	if (strlen(path) >= TS_MESS_PATH)
		return -ENAMETOOLONG;
	snprintf(m->cgroup[m->ncgroups++], TS_MESS_PATH, "%s", path);
	return mkdir(path, 0755) ? -errno : 0;
}

/**
 * ts_mess_freeze() - freeze the file system of the directory @dir (FIFREEZE).
 * @m: the record, which holds @dir while it is frozen
 * @dir: a directory of the file system, which must be the test's own
 *
 * Recorded before the freeze, so that the janitor thaws it if the test
 * dies in between; a thaw of a file system that is not frozen is EINVAL.
 *
 * Return: 0, or -errno (-EOPNOTSUPP: the file system cannot be frozen).
 */
int ts_mess_freeze(struct ts_mess *m, const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	snprintf(m->frozen, sizeof(m->frozen), "%s", dir);
	if (ioctl(fd, FIFREEZE, 0)) {
		err = -errno;
		m->frozen[0] = '\0';
	}
	close(fd);
	return err;
}

/**
 * ts_mess_frozen_file() - a file open for writing on a frozen file system
 * @m: the record, which holds the scratch disk and the freeze
 * @fd: set to the open file (unlinked), on success
 * @why: set to the reason when this kernel cannot have one, else NULL
 *
 * Makes the scratch ext4 (32 MiB) if it is not there, opens and unlinks
 * a file on it, and freezes it: a write to *@fd then blocks in D until
 * ts_mess_thaw(). The caller closes *@fd.
 *
 * Return: 0 with *@fd open, 0 with *@why set (nothing open, nothing
 * frozen), or -errno.
 */
int ts_mess_frozen_file(struct ts_mess *m, int *fd, const char **why)
{
	struct ts_disk *d = &m->scratch;
	char path[sizeof(d->dir) + 32];
	int err;

	*why = NULL;
	err = ts_disk_scratch(d, 32 << 20);
	if (err == TS_DISK_CANNOT) {
		*why = d->why;
		return 0;
	}
	if (err)
		return err;
	snprintf(path, sizeof(path), "%s/frozen.%d", d->dir, getpid());
	*fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (*fd < 0)
		return -errno;
	unlink(path);		/* while it is not frozen; the fd stays */
	err = ts_mess_freeze(m, d->dir);
	if (!err)
		return 0;
	close(*fd);
	if (err != -EOPNOTSUPP)
		return err;
	*why = "the scratch file system cannot be frozen: no task blocked by a freeze";
	return 0;
}

/**
 * ts_read_ready() - read the one message a kid sends once it is ready
 * @fd: the read end of the kid's pipe
 * @r: what it says
 * @ms: how long to wait for it
 *
 * Return: 0, the kid's own -errno, -E2BIG for more threads than fit, or
 * the error of the read (-ETIMEDOUT when nothing came in time).
 */
int ts_read_ready(int fd, struct ts_ready *r, int ms)
{
	int err = ts_read_within(fd, r, sizeof(*r), ms);

	if (err)
		return err;
	if (r->n < 0)
		return r->n;
	return r->n > TS_KID_TIDS ? -E2BIG : 0;
}

/**
 * ts_mess_thaw() - thaw the file system ts_mess_freeze() froze, if any.
 * @m: the record
 *
 * A teardown thaws first: a task blocked by the freeze (D) takes no
 * signal, so that it could be neither killed nor reaped before.
 */
void ts_mess_thaw(struct ts_mess *m)
{
	int fd;

	if (!m->frozen[0])
		return;
	fd = open(m->frozen, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		ioctl(fd, FITHAW, 0);
		close(fd);
	}
	m->frozen[0] = '\0';
}

/* Kills what is left in the cgroup @dir, of either version, and removes it. */
static void remove_cgroup(const char *dir)
{
	char path[TS_MESS_PATH + 16], buf[4096], *p, *end;
	long pid;

	for (int ms = 0; ms < EMPTY_MS; ms++) {
		if (!rmdir(dir) || errno != EBUSY)
			return;
		snprintf(path, sizeof(path), "%s/cgroup.kill", dir);
		if (ts_write_file(path, "1")) {		/* v1 has none */
			snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
			if (ts_read_file(path, buf, sizeof(buf)) < 0)
				buf[0] = '\0';
			/* Never kill(0): that is our own process group. */
			for (p = buf; (pid = strtol(p, &end, 10)) > 0; p = end)
				kill(pid, SIGKILL);
		}
		usleep(1000);
	}
}

/**
 * ts_mess_cleanup() - undo what @m records, and clear it.
 * @m: the record; empty afterwards
 *
 * In an order that cannot block: the thaw first, for a task in D takes no
 * signal; the cgroups, their tasks killed, children first; the disks once
 * their users are gone; the v1 hierarchy once its cgroups are; the
 * directory of /tmp last, once empty. The tasks the test made itself are
 * its teardown's to kill and reap before, or die with it (PDEATHSIG).
 */
void ts_mess_cleanup(struct ts_mess *m)
{
	ts_mess_thaw(m);
	while (m->ncgroups > 0)
		remove_cgroup(m->cgroup[--m->ncgroups]);
	ts_disk_drop(&m->scratch);
	ts_disk_drop(&m->slow);
	if (m->v1[0]) {
		umount2(m->v1, MNT_DETACH);
		rmdir(m->v1);
		m->v1[0] = '\0';
	}
	if (m->file[0])
		unlink(m->file);
	m->file[0] = '\0';
	if (m->tmp[0])
		rmdir(m->tmp);
	m->tmp[0] = '\0';
}

/**
 * ts_janitor_start() - fork the janitor of this process and of @m.
 * @m: the record, in memory shared with the janitor (MAP_SHARED)
 *
 * The janitor leaves our session, for a timeout kills the test's process
 * group, and holds none of our files (a loop device, a mount point, the
 * pipe the TAP output goes to, whose reader would wait for it); it waits
 * on a pidfd for this process to end, then undoes what @m still records.
 * A test whose teardown ran leaves it nothing to do.
 *
 * Return: 0, or -errno.
 */
int ts_janitor_start(struct ts_mess *m)
{
	int pidfd = syscall(SYS_pidfd_open, getpid(), 0);
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	pid_t pid;
	int err;

	if (pidfd < 0)
		return -errno;
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_RDWR);

		setsid();
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		for (int fd = 3; fd < 1024; fd++)
			if (fd != pidfd)
				close(fd);
		while (poll(&p, 1, -1) < 0 && errno == EINTR)
			;
		/* The test's, closed at its death: not ours to close. */
		m->scratch.loop_fd = -1;
		m->slow.loop_fd = -1;
		ts_mess_cleanup(m);
		_exit(0);
	}
	err = pid < 0 ? -errno : 0;
	close(pidfd);
	return err;
}
