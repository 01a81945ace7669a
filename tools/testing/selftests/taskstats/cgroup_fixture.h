/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The setup every fixture of cgroup_test.c, cgroup_dump_test.c,
 * cgroup_error_test.c and cgroup_listener_test.c shares, a cgroup v1 to
 * try, and the bad targets the last two name by an fd. It asserts, and so
 * needs the harness: static inline, as the harness may be in one file of
 * a program only; cgroup_world.h holds the rest of a test's world.
 */
#ifndef TS_CGROUP_FIXTURE_H
#define TS_CGROUP_FIXTURE_H

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "../kselftest_harness.h"
#include "cgroup_world.h"
#include "janitor.h"
#include "tsnl.h"

/*
 * Makes the test's world: its janitor, its netlink socket, its cgroup.
 * False if the test is skipped or failed.
 */
static inline bool world_setup(struct __test_metadata *_metadata,
			       struct world *w)
{
	struct timeval tv = { .tv_sec = WAIT_MS / 1000 };
	int err;

	w->nl = -1;
	w->dirfd = -1;
	w->hold[0] = -1;
	w->hold[1] = -1;
	if (geteuid())
		SKIP(return false, "needs root: it makes cgroups and moves tasks into them");
	err = ts_cgroup2_root(cgroup_root, sizeof(cgroup_root));
	if (err)
		SKIP(return false, "no cgroup2 hierarchy to mount: %s", strerror(-err));
	w->shared = mmap(NULL, sizeof(*w->shared), PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, w->shared);
	w->mess = &w->shared->mess;
	ASSERT_EQ(0, ts_janitor_start(w->mess));
	w->nl = tsnl_open();
	ASSERT_LE(0, w->nl);
	/* An answer that never comes fails the test rather than hang it. */
	ASSERT_EQ(0, setsockopt(w->nl, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)));
	if (tsnl_family(w->nl, TASKSTATS_GENL_NAME, &w->family))
		SKIP(return false, "no TASKSTATS family");
	w->series = ts_kernel_dumps();
	ASSERT_EQ(0, pipe2(w->hold, O_CLOEXEC));
	snprintf(w->dir, sizeof(w->dir), "%s/ts_cgroup_test.%d", cgroup_root, getpid());
	ASSERT_EQ(0, ts_mess_cgroup(w->mess, w->dir));
	w->dirfd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, w->dirfd);
	return true;
}

/*
 * Mounts a named cgroup v1 hierarchy (no controller) and makes the cgroup
 * @sub (@size bytes) in it, both undone by the teardown. False if the
 * test is skipped (a kernel or a machine that allows no such mount) or
 * failed.
 */
static inline bool v1_cgroup(struct __test_metadata *_metadata, struct world *w,
			     char *sub, int size)
{
	struct ts_mess *m = w->mess;
	char opts[64];

	snprintf(m->v1, sizeof(m->v1), "/tmp/ts_cgroup_v1.%d", getpid());
	ASSERT_EQ(0, mkdir(m->v1, 0755));
	snprintf(opts, sizeof(opts), "none,name=ts_cgroup_test.%d", getpid());
	if (mount("cgroup", m->v1, "cgroup", 0, opts)) {
		int err = errno;

		rmdir(m->v1);
		m->v1[0] = '\0';
		SKIP(return false, "cannot mount a named cgroup v1 hierarchy: %s",
		     strerror(err));
	}
	snprintf(sub, size, "%s/ts", m->v1);
	ASSERT_EQ(0, ts_mess_cgroup(w->mess, sub));
	return true;
}

/* What a request names where a cgroup v2 directory's fd belongs. */
enum target {
	NO_FD,		/* no fd attribute at all */
	CLOSED_FD,	/* a number no file is open on */
	O_PATH_FD,	/* the test's cgroup, opened O_PATH */
	REGULAR_FILE,	/* a file on tmpfs */
	OTHER_DIR,	/* /tmp: a directory, not of cgroupfs */
	CONTROL_FILE,	/* the test cgroup's cgroup.procs */
	REMOVED,	/* a cgroup removed while its directory stays open */
	SUBTREE_ALONE,	/* DUMP_SUBTREE without DUMP_CGROUP_FD */
};

/*
 * The fd of @target, -1 for none; *@close_it if the caller must close it:
 * the targets that are no cgroup v2 directory one may name by an fd, of
 * cgroup_error_test.c and cgroup_listener_test.c.
 */
static inline int target_fd(struct __test_metadata *_metadata, struct world *w,
			    enum target target, bool *close_it)
{
	char path[PATH_BUF + 16];
	int fd = -1;

	*close_it = true;
	switch (target) {
	case NO_FD:
	case SUBTREE_ALONE:
		*close_it = false;
		return -1;
	case CLOSED_FD:
		fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ASSERT_LE(0, fd);
		close(fd);
		ASSERT_EQ(-1, fcntl(fd, F_GETFD));
		*close_it = false;
		return fd;
	case O_PATH_FD:
		fd = open(w->dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		break;
	case REGULAR_FILE:
		fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		break;
	case OTHER_DIR:
		fd = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		break;
	case CONTROL_FILE:
		snprintf(path, sizeof(path), "%s/cgroup.procs", w->dir);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		break;
	case REMOVED:
		snprintf(path, sizeof(path), "%s/removed", w->dir);
		ASSERT_EQ(0, ts_mess_cgroup(w->mess, path));
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, rmdir(path));
		break;
	}
	ASSERT_LE(0, fd);
	return fd;
}

/*
 * The cgroup fixture of the tests of cgroup_test.c and cgroup_dump_test.c:
 * a world of its own for each test.
 */
#define CGROUP_WORLD_FIXTURE						\
	FIXTURE(cgroup) {						\
		struct world w;						\
	};								\
	FIXTURE_SETUP(cgroup)						\
	{								\
		world_setup(_metadata, &self->w);			\
	}								\
	FIXTURE_TEARDOWN(cgroup)					\
	{								\
		world_teardown(&self->w);				\
	}								\
	struct cgroup_world_fixture

#endif
