// SPDX-License-Identifier: GPL-2.0
/*
 * The record of a task that dumped core: ACORE and AXSIG in ac_flag, and
 * the wait status with its 0x80 in ac_exitcode. The fixture points
 * kernel.core_pattern at a directory of its own for the test, and puts
 * the old pattern back.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <linux/acct.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "tsnl.h"

FIXTURE(core) {
	int fd;
	uint16_t family;
	char cpus[256];
	char dir[64];
	char old_pattern[512];
	bool saved;
};

FIXTURE_SETUP(core)
{
	char pattern[128];
	int err;

	err = ts_listener_open(&self->fd, &self->family, self->cpus, sizeof(self->cpus));
	ASSERT_LE(0, self->fd);
	if (!self->family)
		SKIP(return, "no TASKSTATS family");
	ASSERT_EQ(0, err);
	err = ts_read_file("/proc/sys/kernel/core_pattern", self->old_pattern,
			   sizeof(self->old_pattern));
	if (err == -ENOENT)
		SKIP(return, "the kernel has no core dumps (CONFIG_COREDUMP)");
	ASSERT_LT(0, err);
	self->saved = true;
	snprintf(self->dir, sizeof(self->dir), "/tmp/ts-core.XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(pattern, sizeof(pattern), "%s/core", self->dir);
	ASSERT_EQ(0, ts_write_file("/proc/sys/kernel/core_pattern", pattern));
}

FIXTURE_TEARDOWN(core)
{
	char path[128];

	if (self->saved)
		ts_write_file("/proc/sys/kernel/core_pattern", self->old_pattern);
	if (self->dir[0]) {
		snprintf(path, sizeof(path), "%s/core", self->dir);
		unlink(path);
		rmdir(self->dir);
	}
	close(self->fd);
}

static int dump_core(void *arg)
{
	struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

	if (setrlimit(RLIMIT_CORE, &rl))
		return 1;
	prctl(PR_SET_DUMPABLE, 1);
	signal(SIGQUIT, SIG_DFL);
	raise(SIGQUIT);
	return 2;
}

TEST_F(core, a_core_dump_is_reported_with_acore_and_0x80)
{
	struct taskstats ts;
	int status;

	status = ts_run_child(self->fd, dump_core, NULL, &ts, NULL);
	tsnl_cpumask(self->fd, self->family, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
		     self->cpus);
	ASSERT_NE(-1, status);
	ASSERT_TRUE(WIFSIGNALED(status));
	if (!WCOREDUMP(status))
		SKIP(return, "the kernel wrote no core file (core dumps unavailable)");
	EXPECT_EQ((uint32_t)(SIGQUIT | 0x80), ts.ac_exitcode);
	EXPECT_EQ((uint32_t)status, ts.ac_exitcode);
	EXPECT_EQ(ACORE | AXSIG, ts.ac_flag & (ACORE | AXSIG));
}

TEST_HARNESS_MAIN
