// SPDX-License-Identifier: GPL-2.0
/*
 * Shared ts_* helpers about tasks and the files that show them: /proc,
 * /sys and cgroup2 (mounted at /tmp/ts_cgroup2, and left there, on a
 * machine that has no cgroup2 mount) and its ids, and workers that run a
 * function on command.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "tsnl.h"

/**
 * ts_read_within() - read @size bytes from @fd, waiting at most @ms for them.
 * @fd: a pipe or socket
 * @buf: where they go
 * @size: how many, in one read(2)
 * @ms: how long to wait for them to come
 *
 * Return: 0, -ETIMEDOUT if nothing came in time, -EPIPE for a short read.
 */
int ts_read_within(int fd, void *buf, size_t size, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, ms) != 1)
		return -ETIMEDOUT;
	if (read(fd, buf, size) != (ssize_t)size)
		return -EPIPE;
	return 0;
}

/* Reads a small file into @buf, NUL-terminated; returns its length or -errno. */
int ts_read_file(const char *path, char *buf, int size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, size - 1);
	if (n < 0)
		n = -errno;
	else
		buf[n] = '\0';
	close(fd);
	return n;
}

/* Writes @s to @path in one write(2); returns 0 or -errno. */
int ts_write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) < 0)
		err = -errno;
	close(fd);
	return err;
}

/* The state letter of /proc/PID/stat, or -errno. */
int ts_proc_state(pid_t pid)
{
	char path[64], buf[1024], *p;
	int n;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	n = ts_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	p = strrchr(buf, ')');
	return p && p[1] && p[2] ? p[2] : -EBADMSG;
}

/*
 * Reads the /proc file @path into @buf and finds the line "@key: value":
 * returns the value, cut at its line's end, or NULL (errno set) if the
 * file cannot be read or has no such line.
 */
static char *proc_value(const char *path, const char *key, char *buf, int size)
{
	int n = strlen(key);
	char *p, *end;

	if (ts_read_file(path, buf, size) < 0)
		return NULL;
	for (p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		if (strncmp(p, key, n) || p[n] != ':')
			continue;
		end = strchr(p, '\n');
		if (end)
			*end = '\0';
		return p + n + 1;
	}
	errno = ENOENT;
	return NULL;
}

/**
 * ts_proc_field() - the number after "@key:" in the /proc file @path.
 *
 * Return: 0, or -errno (-ENOENT for no such line).
 */
int ts_proc_field(const char *path, const char *key, uint64_t *val)
{
	char buf[4096], *v = proc_value(path, key, buf, sizeof(buf));

	if (!v)
		return -errno;
	*val = strtoull(v, NULL, 10);
	return 0;
}

/*
 * The value of the line "@key N" of @buf, a flat-keyed file's text (such
 * as memory.stat); with @key ending in '_', the sum of every line whose
 * key begins with it. Return: -1 if there is no such line.
 */
int64_t ts_keyed_value(const char *buf, const char *key)
{
	size_t n = strlen(key);
	bool prefix = key[n - 1] == '_';
	int64_t sum = -1;

	for (const char *p = buf; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, key, n) || (!prefix && p[n] != ' '))
			continue;
		sum = (sum < 0 ? 0 : sum) + strtoll(strchr(p, ' ') ?: p, NULL, 10);
		if (!prefix)
			break;
	}
	return sum;
}

/* Where the tests mount cgroup2 when nobody has. */
#define OWN_CGROUP2	"/tmp/ts_cgroup2"

/**
 * ts_cgroup2_root() - the root of a cgroup2 mount, mounting one if need be.
 * @root: gets its path, @size bytes
 * @size: the size of @root
 *
 * The first cgroup2 mount of /proc/self/mounts; on a machine that has
 * none, a mount of the tests' own at OWN_CGROUP2, left for the next test.
 * Every mount of cgroup2 shows the one v2 hierarchy.
 *
 * Return: 0, or -errno (-ENODEV: a kernel without cgroups).
 */
int ts_cgroup2_root(char *root, int size)
{
	char buf[16384], *line, *save = NULL;
	int n = ts_read_file("/proc/self/mounts", buf, sizeof(buf));

	if (n < 0)
		return n;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char dev[64], dir[256], type[32];

		if (sscanf(line, "%63s %255s %31s", dev, dir, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			snprintf(root, size, "%s", dir);
			return 0;
		}
	}
	if (mkdir(OWN_CGROUP2, 0755) && errno != EEXIST)
		return -errno;
	if (mount("cgroup2", OWN_CGROUP2, "cgroup2", 0, NULL))
		return -errno;
	snprintf(root, size, "%s", OWN_CGROUP2);
	return 0;
}

/* The type of the file handle of a kernfs node: 8 bytes, its id. */
#ifndef FILEID_KERNFS
#define FILEID_KERNFS	0xfe
#endif

/**
 * ts_cgroup_id_at() - the cgroup v2 id of a directory.
 * @dirfd: the directory @path is relative to, or AT_FDCWD
 * @path: the directory; "" for @dirfd itself
 *
 * The id is what name_to_handle_at() gives for the directory: a kernfs
 * handle (FILEID_KERNFS) whose 8 bytes are the id. On a kernel without
 * file handles, the directory's inode number on a 64-bit kernel, which is
 * the same number.
 *
 * Return: the id, or 0 if it cannot be told.
 */
uint64_t ts_cgroup_id_at(int dirfd, const char *path)
{
	union {
		struct file_handle fh;
		char room[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} h = { .fh.handle_bytes = MAX_HANDLE_SZ };
	int mnt, flags = *path ? 0 : AT_EMPTY_PATH;
	uint64_t id = 0;
	struct stat st;

	if (!name_to_handle_at(dirfd, path, &h.fh, &mnt, flags)) {
		if (h.fh.handle_type == FILEID_KERNFS && h.fh.handle_bytes == sizeof(id))
			memcpy(&id, h.fh.f_handle, sizeof(id));
		return id;
	}
	if (sizeof(long) == 8 && !fstatat(dirfd, path, &st, flags))
		id = st.st_ino;
	return id;
}

/* The cgroup v2 id of the directory @path, or 0: see ts_cgroup_id_at(). */
uint64_t ts_cgroup_id_of(const char *path)
{
	return ts_cgroup_id_at(AT_FDCWD, path);
}

/**
 * ts_task_cgroup_id() - the id of the cgroup v2 a task is in.
 * @root: the root of the cgroup2 mount (ts_cgroup2_root())
 * @tid: the task; 0 for the caller
 *
 * The cgroup is the one the "0::" line of /proc/TID/cgroup names.
 *
 * Return: its id, or 0 if the task is gone or its cgroup cannot be told.
 */
uint64_t ts_task_cgroup_id(const char *root, pid_t tid)
{
	char buf[4096], path[4608], *p;

	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/cgroup", tid);
	else
		snprintf(path, sizeof(path), "/proc/self/cgroup");
	if (ts_read_file(path, buf, sizeof(buf)) < 0)
		return 0;
	p = !strncmp(buf, "0::", 3) ? buf : strstr(buf, "\n0::");
	if (!p)
		return 0;
	p += *p == '\n' ? 4 : 3;
	p[strcspn(p, "\n")] = '\0';
	snprintf(path, sizeof(path), "%s%s", root, p);
	return ts_cgroup_id_of(path);
}

/* Finds the cgroup2 root, if it offers the memory controller. */
static int memcg_root(char *root, int size)
{
	char path[300], ctl[256];

	if (ts_cgroup2_root(root, size))
		return -1;
	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	if (ts_read_file(path, ctl, sizeof(ctl)) < 0 || !strstr(ctl, "memory"))
		return -1;
	return 0;
}

/**
 * ts_memcg_make() - make the memory cgroup @name under the root of the
 * cgroup2 mount that offers the memory controller, enabling it there.
 * @path: gets the new cgroup's path, @size bytes ("" if none was made)
 * @subtree: gets the cgroup.subtree_control that "+memory" was written
 *	to, @subsize bytes, or "": write "-memory" there when done
 *
 * Return: 0, -ENOENT if there is no memory controller to have, or -errno.
 */
int ts_memcg_make(const char *name, char *path, int size, char *subtree, int subsize)
{
	char root[256], ctl_path[300], ctl[256];

	path[0] = '\0';
	subtree[0] = '\0';
	if (memcg_root(root, sizeof(root)))
		return -ENOENT;
	snprintf(ctl_path, sizeof(ctl_path), "%s/cgroup.subtree_control", root);
	if (ts_read_file(ctl_path, ctl, sizeof(ctl)) < 0)
		return -EIO;
	if (!strstr(ctl, "memory")) {
		if (ts_write_file(ctl_path, "+memory"))
			return -ENOENT;
		snprintf(subtree, subsize, "%s", ctl_path);
	}
	snprintf(path, size, "%s/%s", root, name);
	if (mkdir(path, 0755)) {
		path[0] = '\0';
		return -errno;
	}
	return 0;
}

/*
 * The sum of @key over the threads of @pid, from /proc/PID/task/x/status;
 * their number in *@threads.
 */
uint64_t ts_threads_sum(pid_t pid, const char *key, int *threads)
{
	char path[320];
	struct dirent *de;
	uint64_t sum = 0, val;
	DIR *dir;

	*threads = 0;
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	dir = opendir(path);
	while (dir && (de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%s/status", pid, de->d_name);
		if (ts_proc_field(path, key, &val))
			continue;
		sum += val;
		++*threads;
	}
	if (dir)
		closedir(dir);
	return sum;
}

/*
 * The pid of @pid in the innermost pid namespace it belongs to: the last
 * number of the NSpid line of /proc/PID/status. Or -errno.
 */
pid_t ts_pid_inside(pid_t pid)
{
	char path[64], buf[4096], *v;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	v = proc_value(path, "NSpid", buf, sizeof(buf));
	if (!v)
		return -errno;
	v = strrchr(v, '\t');
	return v ? atoi(v + 1) : -EBADMSG;
}

/**
 * ts_wait_state() - wait for /proc/@tid/stat to show the state @want.
 * @tid: the thread (or process)
 * @want: the state letter: R, S, D, T, t, Z...
 * @ms: how long to wait at most, in milliseconds
 *
 * /proc is read every millisecond: a task may pass through other states
 * on its way (R, between two waits) and settles in its own late on a busy
 * machine. One that never does is said on stderr, as a TAP comment, with
 * the state it was in.
 *
 * Return: 0, -ETIMEDOUT, or the -errno of reading /proc (-ENOENT: gone).
 */
int ts_wait_state(pid_t tid, int want, int ms)
{
	int s = 0;

	for (int i = 0; i < ms; i++) {
		s = ts_proc_state(tid);
		if (s == want)
			return 0;
		if (s < 0)
			return s;
		usleep(1000);
	}
	fprintf(stderr, "# %d is in state %c, not %c\n", tid, s, want);
	return -ETIMEDOUT;
}

/*
 * Waits up to 10 s for @pid to sleep interruptibly, which for the tests'
 * children means it has finished its work and blocked on its command pipe.
 */
int ts_wait_sleeping(pid_t pid)
{
	return ts_wait_state(pid, 'S', 10000);
}

/* One counter of /proc/PID/io such as "rchar". */
int ts_proc_io(pid_t pid, const char *key, uint64_t *val)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/io", pid);
	return ts_proc_field(path, key, val);
}

/* The cpulist of possible CPUs, as the kernel prints it. */
void ts_possible_cpus(char *buf, int size)
{
	if (ts_read_file("/sys/devices/system/cpu/possible", buf, size) <= 0)
		snprintf(buf, size, "0");
	buf[strcspn(buf, "\n")] = '\0';
}

/**
 * ts_worker_start() - fork a worker and wait until it sleeps on its pipe.
 *
 * Return: 0 or -errno.
 */
int ts_worker_start(struct ts_worker *w, void (*fn)(void *arg), void *arg)
{
	int go[2], done[2];
	char c;

	if (pipe(go) || pipe(done))
		return -errno;
	w->pid = fork();
	if (w->pid < 0)
		return -errno;
	if (w->pid == 0) {
		close(go[1]);
		close(done[0]);
		while (read(go[0], &c, 1) == 1) {
			fn(arg);
			if (write(done[1], "d", 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	w->go_fd = go[1];
	w->done_fd = done[0];
	return ts_wait_sleeping(w->pid);
}

/* Lets the worker run its function once; returns when it sleeps again. */
int ts_worker_run(struct ts_worker *w)
{
	char c;

	if (write(w->go_fd, "g", 1) != 1 || read(w->done_fd, &c, 1) != 1)
		return -EIO;
	return ts_wait_sleeping(w->pid);
}

/* Ends the worker; returns its wait status. */
int ts_worker_stop(struct ts_worker *w)
{
	int status = -1;

	close(w->go_fd);
	close(w->done_fd);
	waitpid(w->pid, &status, 0);
	return status;
}
