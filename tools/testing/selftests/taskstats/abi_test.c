// SPDX-License-Identifier: GPL-2.0
/*
 * The binary layout of struct taskstats, version by version, and the shape
 * of the records the kernel sends: a record is exactly as long as the
 * struct of the version it claims, and its payload is 8-byte aligned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest_harness.h"
#include "tsnl.h"

/* One field: where the header puts it, where the ABI says it is, since when. */
struct abi_field {
	const char *name;
	size_t off, size;		/* from the header being compiled */
	size_t abi_off, abi_size;	/* the published ABI */
	int version;			/* TASKSTATS_VERSION that appended it */
};

/*
 * Version history: 1 delay accounting; 2 basic and extended accounting;
 * 3 storage I/O; 4 context switches; 6 frequency-scaled times (5 changed
 * no field); 7 reclaim delay; 8 changed no field (records gained the NULL
 * pad); 9 thrashing; 10 btime64; 11 compaction; 12 tgid, tgetime, exe;
 * 13 wpcopy; 14 irq; 15 is never used; 16 delay max/min; 17 max times.
 */
static struct abi_field fields[] = {
#define FIELD(f, o, s, v) { .name = #f, .off = offsetof(struct taskstats, f), \
			    .abi_off = (o), .abi_size = (s), .version = (v) },
#include "abi_fields.h"
#undef FIELD
};

/* Sizes per the header being compiled, in the order of fields[]. */
static const struct taskstats ts0;
static const size_t header_size[] = {
#define FIELD(f, ...) sizeof(ts0.f),
#include "abi_fields.h"
#undef FIELD
};

static void __attribute__((constructor)) fill_header_sizes(void)
{
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		fields[i].size = header_size[i];
}

/* sizeof(struct taskstats) as each version's kernel declares it; 0: unused. */
static const size_t version_size[] = {
	[1] = 80, [2] = 248, [3] = 272, [4] = 288, [5] = 288, [6] = 312,
	[7] = 328, [8] = 328, [9] = 344, [10] = 352, [11] = 368, [12] = 400,
	[13] = 416, [14] = 432, [15] = 0, [16] = 560, [17] = 688,
};

#define NR_VERSIONS ((int)ARRAY_SIZE(version_size))

/* The size a version's struct has according to the field table. */
static size_t table_size(int version)
{
	size_t end = 0;

	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		if (fields[i].version <= version && fields[i].abi_off + fields[i].abi_size > end)
			end = fields[i].abi_off + fields[i].abi_size;
	return (end + 7) & ~(size_t)7;
}

TEST(every_field_sits_at_its_abi_offset_with_its_abi_size)
{
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		TH_LOG("%s", fields[i].name);
		EXPECT_EQ(fields[i].abi_off, fields[i].off);
		EXPECT_EQ(fields[i].abi_size, fields[i].size);
	}
}

TEST(fields_only_ever_append_in_version_order)
{
	for (size_t i = 1; i < ARRAY_SIZE(fields); i++) {
		const struct abi_field *a = &fields[i - 1], *b = &fields[i];

		TH_LOG("%s after %s", b->name, a->name);
		EXPECT_LE(a->off + a->size, b->off);
		EXPECT_LE(a->version, b->version);
		EXPECT_NE(15, b->version);
	}
}

TEST(every_field_of_the_header_is_in_the_table)
{
	size_t covered = 0;

	for (size_t i = 0; i < ARRAY_SIZE(fields); i++)
		covered += fields[i].size;
	/* The rest is alignment padding after version, ac_nice, ac_pad, ac_btime, ac_tgid. */
	EXPECT_EQ(sizeof(struct taskstats) - 2 - 6 - 4 - 4 - 4, covered);
}

TEST(struct_size_of_each_version_matches_its_fields)
{
	for (int v = 1; v < NR_VERSIONS; v++) {
		if (!version_size[v])
			continue;
		TH_LOG("version %d", v);
		EXPECT_EQ(version_size[v], table_size(v));
	}
	EXPECT_EQ(0UL, version_size[15]);
}

TEST(header_is_version_17_and_as_large_as_its_last_field)
{
	EXPECT_EQ(17, TASKSTATS_VERSION);
	EXPECT_EQ(version_size[TASKSTATS_VERSION], sizeof(struct taskstats));
	EXPECT_EQ(0UL, sizeof(struct taskstats) % 8);
}

FIXTURE(reply) {
	int fd;
	uint16_t family;
	uint64_t buf[TSNL_BUF_SIZE / 8];	/* 8-byte aligned */
};

FIXTURE_SETUP(reply)
{
	int err;

	self->fd = tsnl_open();
	ASSERT_LE(0, self->fd);
	err = tsnl_family(self->fd, TASKSTATS_GENL_NAME, &self->family);
	if (err == -ENOENT)
		SKIP(return, "no TASKSTATS family");
	ASSERT_EQ(0, err);
}

FIXTURE_TEARDOWN(reply)
{
	close(self->fd);
}

/* The machines whose kernels have HAVE_EFFICIENT_UNALIGNED_ACCESS, of those we run on. */
static bool unaligned_access_is_cheap(void)
{
	static const char *const cheap[] = { "x86_64", "i386", "i486", "i586", "i686", "aarch64" };
	struct utsname u;

	if (uname(&u))
		return false;
	for (size_t i = 0; i < ARRAY_SIZE(cheap); i++)
		if (!strcmp(u.machine, cheap[i]))
			return true;
	return false;
}

/* Checks a parsed record: known version, matching length, aligned payload. */
static void check_record(struct __test_metadata *_metadata, const char *buf,
			 const struct tsnl_reply *r)
{
	struct taskstats ts;

	ASSERT_NE(NULL, r->stats);
	tsnl_stats_copy(&ts, r);
	TH_LOG("version %u, STATS length %d", ts.version, r->stats_len);
	ASSERT_LE(14, ts.version);
	ASSERT_GT(NR_VERSIONS, ts.version);
	EXPECT_NE(15, ts.version);
	EXPECT_EQ((int)version_size[ts.version], r->stats_len);
	/*
	 * nla_reserve_64bit() puts a TASKSTATS_TYPE_NULL pad before STATS
	 * exactly when that aligns the payload to 8 bytes, and never where
	 * unaligned access is cheap (x86, arm64...): pad if and only if the
	 * payload is aligned. The framing before STATS is fixed, so that
	 * alone holds for any kernel: on those architectures there must be
	 * no pad at all.
	 */
	EXPECT_EQ(r->saw_null_pad, ((const char *)r->stats - buf) % 8 == 0);
	if (unaligned_access_is_cheap())
		EXPECT_FALSE(r->saw_null_pad);
}

TEST_F(reply, get_by_pid_is_as_long_as_the_struct_of_its_version)
{
	struct tsnl_reply r;
	struct taskstats ts;

	ASSERT_EQ(0, tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_PID,
			      getpid(), &ts, &r, self->buf));
	check_record(_metadata, (const char *)self->buf, &r);
	EXPECT_EQ(TASKSTATS_TYPE_AGGR_PID, r.aggr_type);
}

TEST_F(reply, get_by_tgid_is_as_long_as_the_struct_of_its_version)
{
	struct tsnl_reply r;
	struct taskstats ts;

	ASSERT_EQ(0, tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_TGID,
			      getpid(), &ts, &r, self->buf));
	check_record(_metadata, (const char *)self->buf, &r);
	EXPECT_EQ(TASKSTATS_TYPE_AGGR_TGID, r.aggr_type);
}

TEST_F(reply, exit_record_is_as_long_as_the_struct_of_its_version)
{
	struct tsnl_reply r;
	char cpus[256];
	int n, status;
	pid_t pid;

	ASSERT_EQ(0, ts_register_all(self->fd, self->family, cpus, sizeof(cpus)));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	for (;;) {
		n = tsnl_recv(self->fd, self->buf, sizeof(self->buf), MSG_DONTWAIT);
		ASSERT_LT(0, n);
		ASSERT_EQ(0, tsnl_parse(self->buf, n, &r));
		if (r.aggr_type == TASKSTATS_TYPE_AGGR_PID && r.id == (uint32_t)pid)
			break;
	}
	check_record(_metadata, (const char *)self->buf, &r);
	tsnl_cpumask(self->fd, self->family, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK, cpus);
}

TEST_HARNESS_MAIN
