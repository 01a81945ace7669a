// SPDX-License-Identifier: GPL-2.0
/*
 * Malformed and unauthorised requests, one variant per case, each with the
 * errno the upstream kernel returns and the place that returns it
 * (line numbers of Linux 6.12). Where 6.12's answer is a bug that the
 * head of this series fixes (as mainline does), the variant expects the
 * fixed answer and says why 6.12's own kernel skips (ts_kernel_unfixed()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "tsnl.h"

enum how {
	GET_NONE,	/* TASKSTATS_CMD_GET without attribute */
	GET_U32,	/* @attr carrying @value (@self_pid: our own pid) */
	GET_RAW,	/* @attr with @len bytes of our pid (little-endian) */
	GET_BOTH,	/* PID and TGID attributes in one request; the last GET */
	MASK_STR,	/* @attr carrying the string @str */
	MASK_EMPTY,	/* @attr with an empty payload */
	MASK_LONG,	/* @attr with a string longer than any CPUMASK_MAXLEN */
	CG_NONE,	/* CGROUPSTATS_CMD_GET without attribute */
	CG_CLOSED,	/* ... with a closed fd */
	CG_FILE,	/* ... with a regular file's fd */
	CG_DIR,		/* ... with a non-cgroup directory's fd */
};

FIXTURE(bad) {
	int fd;
	uint16_t family;
	char buf[TSNL_BUF_SIZE];
};

FIXTURE_VARIANT(bad) {
	enum how how;
	int attr;
	uint32_t value;
	bool self_pid;
	int len;
	const char *str;
	int err;		/* expected -errno, 0 for an acknowledgment */
	const char *upstream;	/* where upstream 6.12 decides */
	const char *fixed;	/* 6.12's bug, fixed here: why 6.12 skips */
};

FIXTURE_VARIANT_ADD(bad, get_without_attribute) {
	.how = GET_NONE, .err = -EINVAL,
	.upstream = "kernel/taskstats.c:571 taskstats_user_cmd()",
};

FIXTURE_VARIANT_ADD(bad, get_pid_zero) {
	.how = GET_U32, .attr = TASKSTATS_CMD_ATTR_PID, .value = 0, .err = -ESRCH,
	.upstream = "kernel/taskstats.c:207 fill_stats_for_pid()",
};

FIXTURE_VARIANT_ADD(bad, get_tgid_zero) {
	.how = GET_U32, .attr = TASKSTATS_CMD_ATTR_TGID, .value = 0, .err = -ESRCH,
	.upstream = "kernel/taskstats.c:244 fill_stats_for_tgid()",
};

FIXTURE_VARIANT_ADD(bad, get_pid_that_does_not_exist) {
	.how = GET_U32, .attr = TASKSTATS_CMD_ATTR_PID, .value = 4194304, .err = -ESRCH,
	.upstream = "kernel/taskstats.c:207 (above PID_MAX_LIMIT)",
};

FIXTURE_VARIANT_ADD(bad, get_negative_pid) {
	.how = GET_U32, .attr = TASKSTATS_CMD_ATTR_PID, .value = (uint32_t)-1,
	.err = -ESRCH, .upstream = "kernel/taskstats.c:207",
};

FIXTURE_VARIANT_ADD(bad, get_huge_pid) {
	.how = GET_U32, .attr = TASKSTATS_CMD_ATTR_PID, .value = 0x7fffffff,
	.err = -ESRCH, .upstream = "kernel/taskstats.c:207",
};

FIXTURE_VARIANT_ADD(bad, get_negative_tgid) {
	.how = GET_U32, .attr = TASKSTATS_CMD_ATTR_TGID, .value = (uint32_t)-1,
	.err = -ESRCH, .upstream = "kernel/taskstats.c:244",
};

FIXTURE_VARIANT_ADD(bad, get_truncated_pid_attribute) {
	.how = GET_RAW, .attr = TASKSTATS_CMD_ATTR_PID, .len = 2, .err = -ERANGE,
	.upstream = "lib/nlattr.c:565 validate_nla() minimum length",
};

FIXTURE_VARIANT_ADD(bad, get_truncated_tgid_attribute) {
	.how = GET_RAW, .attr = TASKSTATS_CMD_ATTR_TGID, .len = 3, .err = -ERANGE,
	.upstream = "lib/nlattr.c:565",
};

/* Liberal validation (GENL_DONT_VALIDATE_STRICT) only warns: first 4 bytes. */
FIXTURE_VARIANT_ADD(bad, get_overlong_pid_attribute_is_accepted) {
	.how = GET_RAW, .attr = TASKSTATS_CMD_ATTR_PID, .len = 8, .err = 0,
	.upstream = "lib/nlattr.c:213 warns only without NL_VALIDATE_STRICT_ATTRS",
};

/* Not an error upstream: the PID attribute is looked at first. */
FIXTURE_VARIANT_ADD(bad, get_pid_and_tgid_answers_for_the_pid) {
	.how = GET_BOTH, .err = 0,
	.upstream = "kernel/taskstats.c:563 taskstats_user_cmd() order",
};

/* An empty list parses to an empty mask: nothing registered, no error. */
FIXTURE_VARIANT_ADD(bad, register_empty_cpulist_is_a_noop) {
	.how = MASK_STR, .attr = TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, .str = "",
	.err = 0, .upstream = "lib/bitmap-str.c:379 bitmap_parselist()",
};

FIXTURE_VARIANT_ADD(bad, register_empty_payload) {
	.how = MASK_EMPTY, .attr = TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, .err = -ERANGE,
	.upstream = "lib/nlattr.c:484 validate_nla() NLA_STRING",
};

FIXTURE_VARIANT_ADD(bad, register_letter) {
	.how = MASK_STR, .attr = TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, .str = "a",
	.err = -EINVAL, .upstream = "lib/bitmap-str.c:251 bitmap_getnum()",
};

FIXTURE_VARIANT_ADD(bad, register_open_range) {
	.how = MASK_STR, .attr = TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, .str = "0-",
	.err = -EINVAL, .upstream = "lib/bitmap-str.c:251 bitmap_getnum()",
};

FIXTURE_VARIANT_ADD(bad, register_reversed_range) {
	.how = MASK_STR, .attr = TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, .str = "5-1",
	.err = -EINVAL, .upstream = "lib/bitmap-str.c:231 bitmap_check_region()",
};

FIXTURE_VARIANT_ADD(bad, register_cpus_beyond_nr_cpu_ids) {
	.how = MASK_STR, .attr = TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, .str = "0-99999",
	.err = -ERANGE, .upstream = "lib/bitmap-str.c:234 bitmap_check_region()",
};

FIXTURE_VARIANT_ADD(bad, register_cpu_number_beyond_32_bits) {
	.how = MASK_STR, .attr = TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, .str = "4294967296",
	.err = -EOVERFLOW, .upstream = "lib/bitmap-str.c:253 bitmap_getnum()",
};

FIXTURE_VARIANT_ADD(bad, register_overlong_string) {
	.how = MASK_LONG, .attr = TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, .err = -E2BIG,
	.upstream = "kernel/taskstats.c:368 parse() TASKSTATS_CPUMASK_MAXLEN",
};

FIXTURE_VARIANT_ADD(bad, deregister_letter) {
	.how = MASK_STR, .attr = TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, .str = "a",
	.err = -EINVAL, .upstream = "lib/bitmap-str.c:251",
};

FIXTURE_VARIANT_ADD(bad, deregister_overlong_string) {
	.how = MASK_LONG, .attr = TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, .err = -E2BIG,
	.upstream = "kernel/taskstats.c:368",
};

/* Deregistering what was never registered finds nothing to remove. */
FIXTURE_VARIANT_ADD(bad, deregister_without_register_is_a_noop) {
	.how = MASK_STR, .attr = TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, .str = "0",
	.err = 0, .upstream = "kernel/taskstats.c:338 add_del_listener()",
};

FIXTURE_VARIANT_ADD(bad, cgroupstats_without_fd) {
	.how = CG_NONE, .err = -EINVAL,
	.upstream = "kernel/taskstats.c:421 cgroupstats_user_cmd()",
};

/* 6.12 answers a closed fd with nothing at all; patch 0002 with EBADF. */
FIXTURE_VARIANT_ADD(bad, cgroupstats_closed_fd_is_ebadf) {
	.how = CG_CLOSED, .err = -EBADF,
	.upstream = "kernel/taskstats.c:426 cgroupstats_user_cmd(), returning 0",
	.fixed = TS_UNFIXED "a closed fd answered with nothing",
};

FIXTURE_VARIANT_ADD(bad, cgroupstats_regular_file) {
	.how = CG_FILE, .err = -EINVAL,
	.upstream = "kernel/cgroup/cgroup-v1.c:714 cgroupstats_build()",
};

FIXTURE_VARIANT_ADD(bad, cgroupstats_plain_directory) {
	.how = CG_DIR, .err = -EINVAL,
	.upstream = "kernel/cgroup/cgroup-v1.c:714 cgroupstats_build()",
};

FIXTURE_SETUP(bad)
{
	self->fd = tsnl_open();
	ASSERT_LE(0, self->fd);
	if (tsnl_family(self->fd, TASKSTATS_GENL_NAME, &self->family))
		SKIP(return, "no TASKSTATS family");
}

FIXTURE_TEARDOWN(bad)
{
	char cpus[256];

	ts_possible_cpus(cpus, sizeof(cpus));
	tsnl_cpumask(self->fd, self->family, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, cpus);
	close(self->fd);
}

/* Room for a cpulist longer than 100 + 6 * NR_CPUS with NR_CPUS = 8192. */
#define LONG_MASK	(100 + 6 * 8192 + 64)

static union {
	struct tsnl_msg m;
	char raw[LONG_MASK + 4096];
} big;

TEST_F(bad, request_is_refused_with_the_documented_errno)
{
	struct tsnl_msg *m = &big.m;
	uint32_t pid = getpid();
	uint64_t wide = pid;
	struct tsnl_reply r;
	int cfd = -1, n;
	char *s;

	if (variant->fixed && ts_kernel_unfixed())
		SKIP(return, "%s", variant->fixed);
	TH_LOG("expecting %d (%s) from %s", variant->err, strerror(-variant->err),
	       variant->upstream);
	switch (variant->how) {
	case GET_NONE:
		tsnl_msg_init(m, self->family, TASKSTATS_CMD_GET, NLM_F_ACK);
		break;
	case GET_U32:
		tsnl_msg_init(m, self->family, TASKSTATS_CMD_GET, NLM_F_ACK);
		tsnl_put_u32(m, variant->attr, variant->self_pid ? pid : variant->value);
		break;
	case GET_RAW:
		tsnl_msg_init(m, self->family, TASKSTATS_CMD_GET, NLM_F_ACK);
		tsnl_put(m, variant->attr, &wide, variant->len);
		break;
	case GET_BOTH:
		tsnl_msg_init(m, self->family, TASKSTATS_CMD_GET, NLM_F_ACK);
		tsnl_put_u32(m, TASKSTATS_CMD_ATTR_TGID, 1);
		tsnl_put_u32(m, TASKSTATS_CMD_ATTR_PID, pid);
		break;
	case MASK_STR:
		tsnl_msg_init(m, self->family, TASKSTATS_CMD_GET, NLM_F_ACK);
		tsnl_put_str(m, variant->attr, variant->str);
		break;
	case MASK_EMPTY:
		tsnl_msg_init(m, self->family, TASKSTATS_CMD_GET, NLM_F_ACK);
		tsnl_put(m, variant->attr, NULL, 0);
		break;
	case MASK_LONG:
		s = malloc(LONG_MASK + 1);
		ASSERT_NE(NULL, s);
		for (int i = 0; i < LONG_MASK; i += 2)
			memcpy(s + i, "0,", 2);
		s[LONG_MASK - 1] = '0';
		s[LONG_MASK] = '\0';
		tsnl_msg_init(m, self->family, TASKSTATS_CMD_GET, NLM_F_ACK);
		tsnl_put_str(m, variant->attr, s);
		free(s);
		break;
	case CG_NONE:
		tsnl_msg_init(m, self->family, CGROUPSTATS_CMD_GET, NLM_F_ACK);
		break;
	case CG_CLOSED:
		cfd = open("/", O_RDONLY | O_DIRECTORY);
		ASSERT_LE(0, cfd);
		close(cfd);
		tsnl_msg_init(m, self->family, CGROUPSTATS_CMD_GET, NLM_F_ACK);
		tsnl_put_u32(m, CGROUPSTATS_CMD_ATTR_FD, cfd);
		cfd = -1;
		break;
	case CG_FILE:
	case CG_DIR:
		cfd = open(variant->how == CG_FILE ? "/proc/self/status" : "/", O_RDONLY);
		ASSERT_LE(0, cfd);
		tsnl_msg_init(m, self->family, CGROUPSTATS_CMD_GET, NLM_F_ACK);
		tsnl_put_u32(m, CGROUPSTATS_CMD_ATTR_FD, cfd);
		break;
	}
	n = tsnl_transact(self->fd, m, self->buf, sizeof(self->buf));
	if (cfd >= 0)
		close(cfd);
	/* Anything but a successful GET is answered by its acknowledgment. */
	if (variant->err || variant->how > GET_BOTH) {
		EXPECT_EQ(variant->err, n);
		return;
	}
	/* A successful GET answers for our pid before acknowledging. */
	ASSERT_LT(0, n);
	ASSERT_EQ(0, tsnl_parse(self->buf, n, &r));
	EXPECT_EQ(TASKSTATS_TYPE_AGGR_PID, r.aggr_type);
	EXPECT_EQ(pid, r.id);
}

/* Exit code: 0 if the kernel said EPERM, 1 otherwise. */
static int get_other(int fd, uint16_t family, pid_t other)
{
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_reply r;
	struct taskstats ts;

	return tsnl_get(fd, family, TASKSTATS_CMD_ATTR_PID, other, &ts, &r, buf) != -EPERM;
}

static int get_self(int fd, uint16_t family, pid_t other)
{
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_reply r;
	struct taskstats ts;

	return tsnl_get(fd, family, TASKSTATS_CMD_ATTR_TGID, getpid(), &ts, &r, buf) != -EPERM;
}

static int register_all(int fd, uint16_t family, pid_t other)
{
	return tsnl_cpumask(fd, family, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK, "0") != -EPERM;
}

static int deregister_all(int fd, uint16_t family, pid_t other)
{
	return tsnl_cpumask(fd, family, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, "0") != -EPERM;
}

/* cgroupstats has no GENL_ADMIN_PERM: a bad fd gets EINVAL, not EPERM. */
static int cgroupstats_plain_dir(int fd, uint16_t family, pid_t other)
{
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_msg m;
	int dfd = open("/", O_RDONLY | O_DIRECTORY);

	tsnl_msg_init(&m, family, CGROUPSTATS_CMD_GET, 0);
	tsnl_put_u32(&m, CGROUPSTATS_CMD_ATTR_FD, dfd);
	return tsnl_transact(fd, &m, buf, sizeof(buf)) != -EINVAL;
}

FIXTURE(unpriv) {
	int fd;
	uint16_t family;
	bool self_query;	/* the kernel lets anyone read its own tasks */
};

FIXTURE_SETUP(unpriv)
{
	self->fd = tsnl_open();
	ASSERT_LE(0, self->fd);
	if (tsnl_family(self->fd, TASKSTATS_GENL_NAME, &self->family))
		SKIP(return, "no TASKSTATS family");
	/* Kernels that can dump also serve unprivileged self-queries. */
	self->self_query = ts_kernel_dumps();
}

FIXTURE_TEARDOWN(unpriv)
{
	close(self->fd);
}

/*
 * TASKSTATS_CMD_GET carries GENL_ADMIN_PERM: every use of it needs
 * CAP_NET_ADMIN (net/netlink/genetlink.c:1183), whatever the target.
 */
TEST_F(unpriv, without_cap_net_admin_get_of_another_users_task_is_eperm)
{
	ASSERT_EQ(0, ts_as_nobody(get_other, self->family, getpid()));
}

TEST_F(unpriv, without_cap_net_admin_get_of_ones_own_group_is_eperm)
{
	if (self->self_query)
		SKIP(return, "its own group needs no CAP_NET_ADMIN here: ext_test checks it");
	ASSERT_EQ(0, ts_as_nobody(get_self, self->family, 0));
}

TEST_F(unpriv, without_cap_net_admin_register_is_eperm)
{
	ASSERT_EQ(0, ts_as_nobody(register_all, self->family, 0));
}

TEST_F(unpriv, without_cap_net_admin_deregister_is_eperm)
{
	ASSERT_EQ(0, ts_as_nobody(deregister_all, self->family, 0));
}

TEST_F(unpriv, without_cap_net_admin_cgroupstats_is_still_served)
{
	ASSERT_EQ(0, ts_as_nobody(cgroupstats_plain_dir, self->family, 0));
}

TEST_HARNESS_MAIN
