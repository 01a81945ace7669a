// SPDX-License-Identifier: GPL-2.0
/*
 * Extended accounting: memory integrals and high-water marks, and the I/O
 * counters, measured as deltas between two GETs around a controlled burst
 * of work in a held child and compared with /proc/PID/io. Version 17
 * reports the counters exactly; older versions round them down to a
 * multiple of 1024 (upstream's KB_MASK in xacct_add_tsk()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "../kselftest_harness.h"
#include "tsnl.h"

#define PAGE		4096

FIXTURE(xacct) {
	int fd;
	uint16_t family;
	char path[256];
	char buf[TSNL_BUF_SIZE];
};

FIXTURE_SETUP(xacct)
{
	self->fd = tsnl_open();
	ASSERT_LE(0, self->fd);
	if (tsnl_family(self->fd, TASKSTATS_GENL_NAME, &self->family))
		SKIP(return, "no TASKSTATS family");
}

FIXTURE_TEARDOWN(xacct)
{
	if (self->path[0])
		unlink(self->path);
	close(self->fd);
}

static int get(struct _test_data_xacct *self, pid_t pid, struct taskstats *ts)
{
	struct tsnl_reply r;

	return tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_PID, pid, ts, &r,
			self->buf);
}

/* What a kernel of @version reports for a counter of @v. */
static uint64_t rounded(uint64_t v, int version)
{
	return version >= 17 ? v : v & ~1023ULL;
}

/* The I/O counters of taskstats next to those of /proc/PID/io. */
struct io_view {
	struct taskstats ts;
	uint64_t rchar, wchar, syscr, syscw, read_bytes, write_bytes, cancelled;
};

static int snapshot(struct _test_data_xacct *self, pid_t pid, struct io_view *v)
{
	if (get(self, pid, &v->ts) ||
	    ts_proc_io(pid, "rchar", &v->rchar) || ts_proc_io(pid, "wchar", &v->wchar) ||
	    ts_proc_io(pid, "syscr", &v->syscr) || ts_proc_io(pid, "syscw", &v->syscw) ||
	    ts_proc_io(pid, "read_bytes", &v->read_bytes) ||
	    ts_proc_io(pid, "write_bytes", &v->write_bytes) ||
	    ts_proc_io(pid, "cancelled_write_bytes", &v->cancelled))
		return -1;
	return 0;
}

/* Every counter equals /proc/PID/io (rounded as the version demands). */
static void check_against_proc(struct __test_metadata *_metadata, const struct io_view *v)
{
	int ver = v->ts.version;

	EXPECT_EQ(rounded(v->rchar, ver), v->ts.read_char);
	EXPECT_EQ(rounded(v->wchar, ver), v->ts.write_char);
	EXPECT_EQ(rounded(v->syscr, ver), v->ts.read_syscalls);
	EXPECT_EQ(rounded(v->syscw, ver), v->ts.write_syscalls);
	EXPECT_EQ(rounded(v->read_bytes, ver), v->ts.read_bytes);
	EXPECT_EQ(rounded(v->write_bytes, ver), v->ts.write_bytes);
	EXPECT_EQ(rounded(v->cancelled, ver), v->ts.cancelled_write_bytes);
}

/* The view of a worker before (@a) and after (@b) one run of @fn. */
static void around_one_run(struct __test_metadata *_metadata,
			   struct _test_data_xacct *self, void (*fn)(void *arg),
			   void *arg, struct io_view *a, struct io_view *b)
{
	struct ts_worker w = { 0 };

	ASSERT_EQ(0, ts_worker_start(&w, fn, arg));
	ASSERT_EQ(0, snapshot(self, w.pid, a));
	ASSERT_EQ(0, ts_worker_run(&w));
	ASSERT_EQ(0, snapshot(self, w.pid, b));
	ts_worker_stop(&w);
}

struct rw_job {
	const char *path;
	int reads, read_size, writes, write_size;
};

/* @reads reads of @read_size bytes from a file, @writes to /dev/null. */
static void read_and_write(void *arg)
{
	struct rw_job *j = arg;
	static char buf[65536];
	int in = open(j->path, O_RDONLY), out = open("/dev/null", O_WRONLY);

	for (int i = 0; i < j->reads; i++)
		if (pread(in, buf, j->read_size, 0) != j->read_size)
			_exit(5);
	for (int i = 0; i < j->writes; i++)
		if (write(out, buf, j->write_size) != j->write_size)
			_exit(6);
	close(in);
	close(out);
}

TEST_F(xacct, char_and_syscall_counters_count_exactly_what_the_child_did)
{
	struct rw_job job = { .reads = 7, .read_size = 3000, .writes = 5,
			      .write_size = 777 };
	struct io_view a, b;
	int fd;

	snprintf(self->path, sizeof(self->path), "/tmp/ts-xacct.XXXXXX");
	fd = mkstemp(self->path);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 8192));
	close(fd);
	job.path = self->path;
	around_one_run(_metadata, self, read_and_write, &job, &a, &b);
	/* Ground truth first: the child's work plus its 1-byte pipe I/O. */
	ASSERT_EQ(a.rchar + 7 * 3000 + 1, b.rchar);
	ASSERT_EQ(a.syscr + 7 + 1, b.syscr);
	ASSERT_EQ(a.wchar + 5 * 777 + 1, b.wchar);
	ASSERT_EQ(a.syscw + 5 + 1, b.syscw);
	check_against_proc(_metadata, &a);
	check_against_proc(_metadata, &b);
	if (b.ts.version < 17)
		return;
	EXPECT_EQ(a.ts.read_char + 21001, b.ts.read_char);
	EXPECT_EQ(a.ts.read_syscalls + 8, b.ts.read_syscalls);
	EXPECT_EQ(a.ts.write_char + 3886, b.ts.write_char);
	EXPECT_EQ(a.ts.write_syscalls + 6, b.ts.write_syscalls);
}

#define DIO_SIZE	(1024 * 1024)

static void direct_read(void *arg)
{
	const char *path = arg;
	void *buf;
	int fd = open(path, O_RDONLY | O_DIRECT);

	if (fd < 0 || posix_memalign(&buf, PAGE, DIO_SIZE))
		_exit(5);
	if (pread(fd, buf, DIO_SIZE, 0) != DIO_SIZE)
		_exit(6);
	free(buf);
	close(fd);
}

static void buffered_write_fsync(void *arg)
{
	const char *path = arg;
	static char buf[DIO_SIZE];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	memset(buf, 0x33, sizeof(buf));
	if (fd < 0 || write(fd, buf, DIO_SIZE) != DIO_SIZE || fsync(fd))
		_exit(5);
	close(fd);
}

static void dirty_then_truncate(void *arg)
{
	const char *path = arg;
	static char buf[DIO_SIZE];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd < 0 || write(fd, buf, DIO_SIZE) != DIO_SIZE || ftruncate(fd, 0))
		_exit(5);
	close(fd);
}

static int scratch_file(struct _test_data_xacct *self, const char *name)
{
	const char *dir = getenv("RIG_SCRATCH");

	if (!dir)
		return -1;
	snprintf(self->path, sizeof(self->path), "%s/%s", dir, name);
	return 0;
}

TEST_F(xacct, direct_reads_count_their_bytes_as_read_bytes)
{
	struct io_view a, b;
	int fd;

	if (scratch_file(self, "ts-dio"))
		SKIP(return, "RIG_SCRATCH not set: no scratch file system");
	fd = open(self->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 0));
	for (int i = 0; i < DIO_SIZE / PAGE; i++)
		ASSERT_EQ(PAGE, write(fd, self->buf, PAGE));
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	around_one_run(_metadata, self, direct_read, self->path, &a, &b);
	if (b.read_bytes == a.read_bytes)
		SKIP(return, "O_DIRECT unsupported on the scratch file system");
	EXPECT_LE(a.read_bytes + DIO_SIZE, b.read_bytes);
	check_against_proc(_metadata, &a);
	check_against_proc(_metadata, &b);
	EXPECT_LE(a.ts.read_bytes + DIO_SIZE, b.ts.read_bytes);
}

TEST_F(xacct, dirtying_pages_counts_them_as_write_bytes)
{
	struct io_view a, b;

	if (scratch_file(self, "ts-wb"))
		SKIP(return, "RIG_SCRATCH not set: no scratch file system");
	around_one_run(_metadata, self, buffered_write_fsync, self->path, &a, &b);
	EXPECT_LE(a.write_bytes + DIO_SIZE, b.write_bytes);
	check_against_proc(_metadata, &a);
	check_against_proc(_metadata, &b);
	EXPECT_LE(a.ts.write_bytes + DIO_SIZE, b.ts.write_bytes);
}

TEST_F(xacct, truncating_dirty_pages_counts_cancelled_write_bytes)
{
	struct io_view a, b;

	if (scratch_file(self, "ts-cancel"))
		SKIP(return, "RIG_SCRATCH not set: no scratch file system");
	around_one_run(_metadata, self, dirty_then_truncate, self->path, &a, &b);
	TH_LOG("cancelled %llu -> %llu", (unsigned long long)a.cancelled,
	       (unsigned long long)b.cancelled);
	EXPECT_EQ(a.cancelled + DIO_SIZE, b.cancelled);
	check_against_proc(_metadata, &a);
	check_against_proc(_metadata, &b);
	EXPECT_EQ(a.ts.cancelled_write_bytes + DIO_SIZE, b.ts.cancelled_write_bytes);
}

#define BIG	(32 * 1024 * 1024)

/* Maps and touches BIG bytes, then burns system time with them resident. */
static void grow_and_burn(void *arg)
{
	char *p = mmap(NULL, BIG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	int fd = open("/dev/null", O_WRONLY);

	if (p == MAP_FAILED || fd < 0)
		_exit(5);
	memset(p, 1, BIG);
	for (int i = 0; i < 400; i++)
		if (write(fd, p, 1 << 20) < 0)
			_exit(6);
	for (int i = 0; i < 30000; i++)
		getppid();
	close(fd);
}

TEST_F(xacct, a_large_resident_task_grows_its_memory_integrals_and_marks)
{
	struct ts_worker w = { 0 };
	struct taskstats a, b;

	ASSERT_EQ(0, ts_worker_start(&w, grow_and_burn, NULL));
	ASSERT_EQ(0, get(self, w.pid, &a));
	ASSERT_EQ(0, ts_worker_run(&w));
	ASSERT_EQ(0, get(self, w.pid, &b));
	ts_worker_stop(&w);
	TH_LOG("coremem %llu -> %llu, virtmem %llu -> %llu, stime %llu -> %llu",
	       (unsigned long long)a.coremem, (unsigned long long)b.coremem,
	       (unsigned long long)a.virtmem, (unsigned long long)b.virtmem,
	       (unsigned long long)a.ac_stime, (unsigned long long)b.ac_stime);
	EXPECT_LE((uint64_t)BIG / 1024, b.hiwater_rss);
	EXPECT_LE((uint64_t)BIG / 1024, b.hiwater_vm);
	EXPECT_LE(b.hiwater_rss, b.hiwater_vm);
	if (b.ac_stime + b.ac_utime == a.ac_stime + a.ac_utime)
		SKIP(return, "no CPU time was charged to the child");
	EXPECT_LT(a.coremem, b.coremem);
	EXPECT_LT(a.virtmem, b.virtmem);
	/* RSS <= VM at every sample, so the integrals keep that order. */
	EXPECT_LE(b.coremem, b.virtmem);
}

TEST_HARNESS_MAIN
