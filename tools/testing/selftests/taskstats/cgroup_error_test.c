// SPDX-License-Identifier: GPL-2.0
/*
 * The errors of CGROUPSTATS_CMD_GET and of the dump of one cgroup
 * (TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD): each target that is no cgroup
 * directory one can ask about (no fd, a closed fd, an O_PATH fd, a
 * regular file, a directory outside cgroupfs, a control file, a removed
 * cgroup, the subtree flag alone) gets its documented errno: the counts
 * asked with NLM_F_ACK or without, the dump before any record.
 *
 * Every test works in a world of cgroup_world.h: a fresh cgroup under the
 * cgroup2 root, the test's netlink socket, and its janitor.
 *
 * Linux 6.12's own implementation answers CGROUPSTATS_CMD_GET on a v2
 * directory with EINVAL and one whose fd is not open with nothing, and
 * cannot dump: on a kernel whose family has no dump, the dump's errors
 * and what only a kernel with the dump answers skip; on one declared to
 * lack the series' fixes (ts_kernel_unfixed()), so does what the fixes
 * answer; each says so. The errors both implementations share are
 * checked on every kernel.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "cgroup_fixture.h"
#include "cgroup_world.h"
#include "janitor.h"
#include "tsnl.h"

FIXTURE(cgroupstats_error) {
	struct world w;
};

FIXTURE_VARIANT(cgroupstats_error) {
	enum target target;
	int err;		/* -errno, or 0: no counts, nor an error */
	bool no_ack;		/* asked without NLM_F_ACK */
	const char *no_dump;	/* what a kernel without the dump answers instead */
	const char *unfixed;	/* what 6.12 without the series' fixes answers */
};

FIXTURE_VARIANT_ADD(cgroupstats_error, without_an_fd) {
	.target = NO_FD, .err = -EINVAL,
};

/*
 * 6.12 answers a descriptor that is not open with nothing at all: with
 * NLM_F_ACK, an acknowledgment alone, as if it had succeeded.
 */
FIXTURE_VARIANT_ADD(cgroupstats_error, of_a_closed_fd) {
	.target = CLOSED_FD, .err = -EBADF,
	.unfixed = "answers a closed fd with nothing",
};

/*
 * Without NLM_F_ACK the error is the only answer: 6.12's nothing leaves
 * such a client waiting for ever (here, for the socket's receive timeout).
 */
FIXTURE_VARIANT_ADD(cgroupstats_error, of_a_closed_fd_without_ack) {
	.target = CLOSED_FD, .err = -EBADF, .no_ack = true,
	.unfixed = "answers a closed fd with nothing",
};

/* 6.12 answers an O_PATH fd as a closed one. */
FIXTURE_VARIANT_ADD(cgroupstats_error, of_an_o_path_fd) {
	.target = O_PATH_FD, .err = -EBADF,
	.unfixed = "answers an O_PATH fd with nothing, as a closed one",
};

FIXTURE_VARIANT_ADD(cgroupstats_error, of_an_o_path_fd_without_ack) {
	.target = O_PATH_FD, .err = -EBADF, .no_ack = true,
	.unfixed = "answers an O_PATH fd with nothing, as a closed one",
};

FIXTURE_VARIANT_ADD(cgroupstats_error, of_a_regular_file) {
	.target = REGULAR_FILE, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(cgroupstats_error, of_a_directory_outside_cgroupfs) {
	.target = OTHER_DIR, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(cgroupstats_error, of_a_cgroup_control_file) {
	.target = CONTROL_FILE, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(cgroupstats_error, of_a_removed_cgroup) {
	.target = REMOVED, .err = -ENOENT,
	.no_dump = "answers EINVAL for every v2 directory",
};

FIXTURE_SETUP(cgroupstats_error)
{
	world_setup(_metadata, &self->w);
}

FIXTURE_TEARDOWN(cgroupstats_error)
{
	world_teardown(&self->w);
}

/*
 * Without NLM_F_ACK, the answer is awaited for the socket's receive
 * timeout at most: none within it reads as 0, no answer.
 */
TEST_F(cgroupstats_error, is_the_documented_errno)
{
	const char *got_what;
	struct cgroupstats cs;
	bool close_it;
	int fd, n;

	if (variant->no_dump && !self->w.series)
		SKIP(return, TS_NO_DUMP "%s", variant->no_dump);
	if (variant->unfixed && ts_kernel_unfixed())
		SKIP(return, TS_UNFIXED "%s", variant->unfixed);
	fd = target_fd(_metadata, &self->w, variant->target, &close_it);
	if (variant->no_ack) {
		memset(&cs, 0xff, sizeof(cs));
		n = tsnl_cgroupstats_flags(self->w.nl, self->w.family, fd, 0, &cs);
	} else {
		n = counts(&self->w, fd, &cs);
	}
	if (close_it)
		close(fd);
	got_what = n > 0 ? "counts" : n ? strerror(-n) :
		   variant->no_ack ? "no answer" : "an acknowledgment alone";
	EXPECT_EQ(variant->err, n) TH_LOG("expected %s, got %s",
					  strerror(-variant->err), got_what);
}

FIXTURE(dump_error) {
	struct world w;
};

FIXTURE_VARIANT(dump_error) {
	enum target target;
	int err;
};

FIXTURE_VARIANT_ADD(dump_error, of_a_closed_fd) {
	.target = CLOSED_FD, .err = -EBADF,
};

FIXTURE_VARIANT_ADD(dump_error, of_an_o_path_fd) {
	.target = O_PATH_FD, .err = -EBADF,
};

FIXTURE_VARIANT_ADD(dump_error, of_a_regular_file) {
	.target = REGULAR_FILE, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(dump_error, of_a_directory_outside_cgroupfs) {
	.target = OTHER_DIR, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(dump_error, of_a_cgroup_control_file) {
	.target = CONTROL_FILE, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(dump_error, of_a_removed_cgroup) {
	.target = REMOVED, .err = -ENOENT,
};

FIXTURE_VARIANT_ADD(dump_error, of_the_subtree_flag_without_a_cgroup) {
	.target = SUBTREE_ALONE, .err = -EINVAL,
};

FIXTURE_SETUP(dump_error)
{
	if (world_setup(_metadata, &self->w) && !self->w.series)
		SKIP(return, SKIP_DUMP);
}

FIXTURE_TEARDOWN(dump_error)
{
	world_teardown(&self->w);
}

/* The dump does not start: its first message is the error, no record. */
TEST_F(dump_error, is_the_documented_errno_before_any_record)
{
	int flags = variant->target == SUBTREE_ALONE ? TSNL_DUMP_SUBTREE : 0;
	bool close_it;
	int fd, n;

	fd = target_fd(_metadata, &self->w, variant->target, &close_it);
	n = dump(&self->w, fd, flags, &got);
	if (close_it)
		close(fd);
	EXPECT_EQ(variant->err, n) TH_LOG("expected %s", strerror(-variant->err));
	EXPECT_EQ(0, got.n);
}

TEST_HARNESS_MAIN
