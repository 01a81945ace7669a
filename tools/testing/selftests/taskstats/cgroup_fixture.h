/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The setup every fixture of cgroup_test.c, cgroup_dump_test.c and
 * cgroup_error_test.c shares. It asserts, and so needs the harness: static
 * inline, as the harness may be in one file of a program only;
 * cgroup_world.h holds the rest of a test's world.
 */
#ifndef TS_CGROUP_FIXTURE_H
#define TS_CGROUP_FIXTURE_H

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
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
