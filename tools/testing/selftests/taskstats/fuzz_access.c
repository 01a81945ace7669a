// SPDX-License-Identifier: GPL-2.0
/*
 * Whether a record leaks a task: the requester's own access to its
 * /proc/PID/io decides, and in the container a record of a pid the
 * namespace never had is a leak too.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

#define IO_CACHE_NS	500000000ULL

enum { IO_OK, IO_GONE, IO_DENIED, IO_OTHER };

static int io_errno(int err)
{
	if (err == ENOENT || err == ESRCH)
		return IO_GONE;
	if (err == EACCES || err == EPERM)
		return IO_DENIED;
	return IO_OTHER;
}

/*
 * Whether task @id is exiting, a zombie, dead or gone, by /proc/@id/stat:
 * its state, and PF_EXITING in its flags (the ninth field). Once its
 * memory is released, its /proc files are root's.
 */
static bool exited(__u32 id)
{
	unsigned long flags = 0;
	char path[32], buf[512], *p;
	char state;

	snprintf(path, sizeof(path), "/proc/%u/stat", id);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return true;
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %lu", &state, &flags) != 2)
		return true;
	return state == 'Z' || state == 'X' || (flags & 0x4);	/* PF_EXITING */
}

/*
 * Whether this process can open and read /proc/@id/io, the kernel's own
 * rule for a record. Successes are cached briefly: a refusal is always
 * checked afresh, so a reused pid cannot turn into a false leak.
 */
static int io_verdict(struct fuzz *f, __u32 id)
{
	struct io_entry *e = &f->io[id % IO_CACHE];
	__u64 now = now_ns();
	char path[32], buf[512];
	ssize_t n;
	int fd, err;

	if (e->id == id && now < e->until)
		return IO_OK;
	snprintf(path, sizeof(path), "/proc/%u/io", id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	err = errno;
	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf));
		err = errno;
		close(fd);
		if (n >= 0)
			err = 0;
	}
	/*
	 * A task that exited since its record was built is root's in /proc
	 * (a zombie's files are): too late to judge, as if it were gone.
	 */
	if (io_errno(err) == IO_DENIED && exited(id))
		return IO_GONE;
	if (err)
		return io_errno(err);
	e->id = id;
	e->until = now + IO_CACHE_NS;
	return IO_OK;
}

/*
 * Whether pid @id was ever handed out in the container's pid namespace:
 * pids grow until they wrap at pid_max.
 */
static bool ns_had_pid(struct fuzz *f, __u32 id)
{
	char buf[32];
	__u32 last;

	if (read_file("/proc/sys/kernel/ns_last_pid", buf, sizeof(buf)) < 0)
		return true;
	last = strtoul(buf, NULL, 10);
	if (last < f->last_pid)
		f->pid_wrapped = true;
	f->last_pid = last;
	return f->pid_wrapped || (id >= 1 && id <= last);
}

/*
 * Who the task of a leaked record is: its status lines that decide access
 * (name, state, ids), for the first violations.
 */
static void show_task(struct fuzz *f, __u32 id)
{
	static const char * const keys[] = { "Name:", "State:", "Tgid:", "Uid:", "Gid:" };
	char path[32], buf[2048], *line, *save = NULL;

	if (!f->verbose && f->c.violations > SHOW_VIOLATIONS)
		return;
	snprintf(path, sizeof(path), "/proc/%u/status", id);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return;
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			if (!strncmp(line, keys[i], strlen(keys[i])))
				printf("#   %s\n", line);
	snprintf(path, sizeof(path), "/proc/%u/stat", id);
	if (read_file(path, buf, sizeof(buf)) >= 0)
		printf("#   stat: %.120s\n", buf);
}

/* No record of a task the sender may not read; see taskstats_fuzz.c. */
void check_record(struct fuzz *f, const struct req *r,
		  const struct nlmsghdr *h, __u32 id)
{
	int v;

	f->c.records++;
	if (f->phase == PH_ROOT)
		return;
	v = io_verdict(f, id);
	if (v == IO_DENIED) {
		violation(f, r, h, "record of task %u, whose /proc/%u/io the %s phase cannot read",
			  id, id, phase_name[f->phase]);
		show_task(f, id);
	} else if (v == IO_GONE && f->phase == PH_CONTAINER && !ns_had_pid(f, id)) {
		violation(f, r, h, "record of %u, never a pid of this container", id);
	} else if (v == IO_OTHER) {
		f->c.io_errors++;
	}
}
