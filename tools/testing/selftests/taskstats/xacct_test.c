// SPDX-License-Identifier: GPL-2.0
/*
 * Extended accounting: memory integrals and high-water marks, and the I/O
 * counters, measured as deltas between two GETs around a controlled burst
 * of work in a held child, against what the child did and compared with
 * /proc/PID/io, /proc/PID/status and /proc/PID/schedstat. This series
 * reports the I/O counters exactly to root; upstream rounds them down to
 * a multiple of 1024 (KB_MASK in xacct_add_tsk()) at every version, so
 * the version cannot tell which to expect, and reading the counters to
 * find out would make the test its own oracle: ts_kernel_dumps()
 * decides. (The series' steps that dump but still round, before its
 * patch "report the I/O counters exactly", are not booted by
 * make check-bisect.)
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
#include <sys/sysmacros.h>
#include <time.h>

#include "../kselftest_harness.h"
#include "disks.h"
#include "tsnl.h"

#define PAGE		4096

FIXTURE(xacct) {
	int fd;
	uint16_t family;
	bool exact;		/* the kernel reports the I/O counters exactly */
	char path[256];
	struct ts_disk scratch;	/* a file system of the test's own */
	char buf[TSNL_BUF_SIZE];
};

FIXTURE_SETUP(xacct)
{
	self->fd = tsnl_open();
	ASSERT_LE(0, self->fd);
	if (tsnl_family(self->fd, TASKSTATS_GENL_NAME, &self->family))
		SKIP(return, "no TASKSTATS family");
	self->exact = ts_kernel_dumps();
}

FIXTURE_TEARDOWN(xacct)
{
	if (self->path[0])
		unlink(self->path);
	ts_disk_drop(&self->scratch);
	close(self->fd);
}

static int get(struct _test_data_xacct *self, pid_t pid, struct taskstats *ts)
{
	struct tsnl_reply r;

	return tsnl_get(self->fd, self->family, TASKSTATS_CMD_ATTR_PID, pid, ts, &r,
			self->buf);
}

/* What the kernel reports for a counter of @v. */
static uint64_t rounded(uint64_t v, bool exact)
{
	return exact ? v : v & ~1023ULL;
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

/* Every counter equals /proc/PID/io (rounded unless @exact). */
static void check_against_proc(struct __test_metadata *_metadata, const struct io_view *v,
			       bool exact)
{
	EXPECT_EQ(rounded(v->rchar, exact), v->ts.read_char);
	EXPECT_EQ(rounded(v->wchar, exact), v->ts.write_char);
	EXPECT_EQ(rounded(v->syscr, exact), v->ts.read_syscalls);
	EXPECT_EQ(rounded(v->syscw, exact), v->ts.write_syscalls);
	EXPECT_EQ(rounded(v->read_bytes, exact), v->ts.read_bytes);
	EXPECT_EQ(rounded(v->write_bytes, exact), v->ts.write_bytes);
	EXPECT_EQ(rounded(v->cancelled, exact), v->ts.cancelled_write_bytes);
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
	check_against_proc(_metadata, &a, self->exact);
	check_against_proc(_metadata, &b, self->exact);
	if (!self->exact)
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

/*
 * Names @name on a scratch file system of the test's own: ext4 on a loop
 * device, whose reads and writeback are block I/O, unlike those of tmpfs
 * (which takes O_DIRECT and dirty pages without any). Returns 0,
 * TS_DISK_CANNOT (the reason in self->scratch.why) or -errno.
 */
static int scratch_file(struct _test_data_xacct *self, const char *name)
{
	int err = ts_disk_scratch(&self->scratch, 64 << 20);

	if (!err)
		snprintf(self->path, sizeof(self->path), "%s/%s", self->scratch.dir, name);
	return err;
}

/*
 * A direct read goes to the disk whatever the page cache holds, and
 * submit_bio() charges each read bio's size to read_bytes of the task
 * that submits it: exactly DIO_SIZE. The file was written and synced by
 * the test a moment before, so its inode and extents (in the inode, for
 * one megabyte written at once) are cached and no metadata is read.
 */
TEST_F(xacct, direct_reads_count_their_bytes_as_read_bytes)
{
	struct io_view a, b;
	int fd, err;

	err = scratch_file(self, "ts-dio");
	if (err == TS_DISK_CANNOT)
		SKIP(return, "%s", self->scratch.why);
	ASSERT_EQ(0, err);
	fd = open(self->path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ftruncate(fd, 0));
	for (int i = 0; i < DIO_SIZE / PAGE; i++)
		ASSERT_EQ(PAGE, write(fd, self->buf, PAGE));
	ASSERT_EQ(0, fsync(fd));
	close(fd);
	around_one_run(_metadata, self, direct_read, self->path, &a, &b);
	TH_LOG("read_bytes %llu -> %llu", (unsigned long long)a.read_bytes,
	       (unsigned long long)b.read_bytes);
	EXPECT_EQ(a.read_bytes + DIO_SIZE, b.read_bytes);
	check_against_proc(_metadata, &a, self->exact);
	check_against_proc(_metadata, &b, self->exact);
	/* DIO_SIZE is a multiple of 1024: exact either way. */
	EXPECT_EQ(a.ts.read_bytes + DIO_SIZE, b.ts.read_bytes);
}

/*
 * What a write of DIO_SIZE new bytes and an fsync() may add to write_bytes
 * besides the data: a file system that dirties its metadata buffers in
 * the writer's context (inode table, block and inode bitmaps, group
 * descriptor, superblock, directory and extent blocks: a handful of
 * blocks) charges them too. Journaled ext4 (the scratch file system)
 * dirties them through its journal, from jbd2, and adds nothing.
 */
#define METADATA_SLACK	(16 * PAGE)

/*
 * Dirtying a page charges PAGE bytes to write_bytes (folio_account_dirtied()),
 * once: writeback and the fsync() charge nothing more. A new file of
 * DIO_SIZE bytes: DIO_SIZE, plus at most METADATA_SLACK.
 */
TEST_F(xacct, dirtying_pages_counts_them_as_write_bytes)
{
	struct io_view a, b;
	int err;

	err = scratch_file(self, "ts-wb");
	if (err == TS_DISK_CANNOT)
		SKIP(return, "%s", self->scratch.why);
	ASSERT_EQ(0, err);
	around_one_run(_metadata, self, buffered_write_fsync, self->path, &a, &b);
	TH_LOG("write_bytes %llu -> %llu", (unsigned long long)a.write_bytes,
	       (unsigned long long)b.write_bytes);
	EXPECT_LE(a.write_bytes + DIO_SIZE, b.write_bytes);
	EXPECT_GE(a.write_bytes + DIO_SIZE + METADATA_SLACK, b.write_bytes);
	check_against_proc(_metadata, &a, self->exact);
	check_against_proc(_metadata, &b, self->exact);
	EXPECT_LE(a.ts.write_bytes + DIO_SIZE, b.ts.write_bytes);
	EXPECT_GE(a.ts.write_bytes + DIO_SIZE + METADATA_SLACK, b.ts.write_bytes);
}

TEST_F(xacct, truncating_dirty_pages_counts_cancelled_write_bytes)
{
	struct io_view a, b;
	int err;

	err = scratch_file(self, "ts-cancel");
	if (err == TS_DISK_CANNOT)
		SKIP(return, "%s", self->scratch.why);
	ASSERT_EQ(0, err);
	around_one_run(_metadata, self, dirty_then_truncate, self->path, &a, &b);
	TH_LOG("cancelled %llu -> %llu", (unsigned long long)a.cancelled,
	       (unsigned long long)b.cancelled);
	EXPECT_EQ(a.cancelled + DIO_SIZE, b.cancelled);
	check_against_proc(_metadata, &a, self->exact);
	check_against_proc(_metadata, &b, self->exact);
	EXPECT_EQ(a.ts.cancelled_write_bytes + DIO_SIZE, b.ts.cancelled_write_bytes);
}

#define BIG		(32 * 1024 * 1024)
#define BURN_NS		400000000ULL	/* the child's CPU time in the measured run */

static uint64_t thread_cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

/* Burns @ns of this thread's CPU time, half in the kernel, half outside. */
static void burn(uint64_t ns)
{
	uint64_t end = thread_cpu_ns() + ns;

	while (thread_cpu_ns() < end) {
		for (int i = 0; i < 200; i++)
			getppid();
		for (int i = 0; i < 20000; i++)
			__asm__ __volatile__("" : : : "memory");
	}
}

/*
 * First run: maps and touches BIG bytes, and burns a little CPU so that
 * every page the burning touches is in already. Later runs: burn BURN_NS
 * of CPU time and change nothing in memory.
 */
static void grow_then_burn(void *arg)
{
	static char *p;

	if (p) {
		burn(BURN_NS);
		return;
	}
	p = mmap(NULL, BIG, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(5);
	memset(p, 1, BIG);
	burn(1000000);
}

/* A field of /proc/PID/status in kB ("VmRSS" and so on), or -1. */
static int64_t status_kb(pid_t pid, const char *key)
{
	char path[64], buf[4096], *p;
	int n = strlen(key);

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (ts_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

/* The task's CPU time so far (se.sum_exec_runtime), in ns, or 0. */
static uint64_t exec_ns(pid_t pid)
{
	char path[64], buf[128];

	snprintf(path, sizeof(path), "/proc/%d/schedstat", pid);
	if (ts_read_file(path, buf, sizeof(buf)) < 0)
		return 0;
	return strtoull(buf, NULL, 10);
}

/* A paused task's memory in /proc/PID/status around a GET of it, in kB. */
struct mem_view {
	struct taskstats ts;
	int64_t rss, vm, hwm, peak;	/* VmRSS, VmSize, VmHWM, VmPeak */
	uint64_t exec;			/* /proc/PID/schedstat: CPU time, ns */
};

/*
 * Reads /proc/PID/status before and after the GET: the same values twice
 * (asserted) are what the task had when the record was filled.
 */
static void mem_snapshot(struct __test_metadata *_metadata,
			 struct _test_data_xacct *self, pid_t pid, struct mem_view *v)
{
	static const char *const keys[] = { "VmRSS", "VmSize", "VmHWM", "VmPeak" };
	int64_t *vals[] = { &v->rss, &v->vm, &v->hwm, &v->peak };

	for (int i = 0; i < 4; i++)
		*vals[i] = status_kb(pid, keys[i]);
	ASSERT_EQ(0, get(self, pid, &v->ts));
	for (int i = 0; i < 4; i++) {
		ASSERT_LT(0, *vals[i]) {
			TH_LOG("no %s in /proc/%d/status", keys[i], pid);
		}
		ASSERT_EQ(*vals[i], status_kb(pid, keys[i])) {
			TH_LOG("%s of the paused child changed around the GET", keys[i]);
		}
	}
	v->exec = exec_ns(pid);
	ASSERT_LT(0ULL, v->exec);
}

/*
 * How far the RSS the kernel reads in its fast paths (get_mm_rss(): the
 * per-CPU counters' global parts) may lie from /proc's VmRSS and VmHWM
 * (their exact sums), in kB: for each of the three RSS counters, less
 * than one batch (percpu_counter_batch, max(32, 2 * CPUs)) per CPU.
 */
static int64_t rss_slop_kb(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	long batch = cpus * 2 > 32 ? cpus * 2 : 32;

	return 3 * batch * cpus * (PAGE / 1024);
}

/*
 * The memory integrals (kernel/tsacct.c) advance at each tick charged to
 * the task, by the CPU time since the last advance times the RSS (coremem)
 * or total_vm (virtmem) at that tick, skipping ticks until a whole
 * TICK_NSEC has accumulated; reported in MB-usec (pages * ns / 1024 *
 * PAGE_SIZE / (1024 * 1000)). With the memory unchanged through the run,
 * the growth is size (MiB) times the CPU time the record's ac_utime and
 * ac_stime gained (us), give or take one tick at each end. @lo and @hi
 * (kB) bound the size.
 */
static void check_integral(struct __test_metadata *_metadata, const char *name,
			   uint64_t grown, int64_t lo, int64_t hi, uint64_t cpu_us)
{
	int64_t least = lo * ((int64_t)cpu_us - (int64_t)TS_MAX_TICK_US) / 1024 - 2;
	int64_t most = hi * (int64_t)(cpu_us + TS_MAX_TICK_US) / 1024 + 2;

	TH_LOG("%s grew by %llu MB-us: %lld..%lld kB for %llu us gives %lld..%lld",
	       name, (unsigned long long)grown, (long long)lo, (long long)hi,
	       (unsigned long long)cpu_us, (long long)least, (long long)most);
	EXPECT_LE(least, (int64_t)grown);
	EXPECT_GE(most, (int64_t)grown);
}

/*
 * A child that has touched BIG bytes burns BURN_NS of CPU time, paused
 * before and after: its high-water marks are /proc's VmHWM and VmPeak (in
 * kB, as both define them), and its integrals grow by its size times the
 * CPU time charged to it. That CPU time is checked against the
 * scheduler's own (se.sum_exec_runtime, /proc/PID/schedstat): ticks
 * sample it, so it may come out high by a tick each time the child went
 * on a CPU; low when ticks are lost (a TCG guest whose host lags), but
 * never by three quarters.
 */
TEST_F_TIMEOUT(xacct, memory_integrals_grow_by_size_times_cpu_time_and_marks_match_proc, 90)
{
	struct ts_worker w = { 0 };
	int64_t slop = rss_slop_kb();
	uint64_t cpu_us, exec_us, switches;
	struct mem_view a, b;

	ASSERT_EQ(0, ts_worker_start(&w, grow_then_burn, NULL));
	ASSERT_EQ(0, ts_worker_run(&w));
	mem_snapshot(_metadata, self, w.pid, &a);
	ASSERT_EQ(0, ts_worker_run(&w));
	mem_snapshot(_metadata, self, w.pid, &b);
	ts_worker_stop(&w);
	TH_LOG("VmRSS %lld -> %lld kB, VmSize %lld -> %lld kB, hiwater_rss %llu kB, VmHWM %lld kB",
	       (long long)a.rss, (long long)b.rss, (long long)a.vm, (long long)b.vm,
	       (unsigned long long)b.ts.hiwater_rss, (long long)b.hwm);

	/* The marks, at both pauses. */
	EXPECT_LE((int64_t)BIG / 1024, a.hwm);
	EXPECT_LE((int64_t)BIG / 1024, a.peak);
	EXPECT_EQ((uint64_t)a.peak, a.ts.hiwater_vm);
	EXPECT_EQ((uint64_t)b.peak, b.ts.hiwater_vm);
	EXPECT_GE(slop, llabs((int64_t)a.ts.hiwater_rss - a.hwm));
	EXPECT_GE(slop, llabs((int64_t)b.ts.hiwater_rss - b.hwm));

	/* The CPU time the integrals are of. */
	cpu_us = b.ts.ac_utime + b.ts.ac_stime - a.ts.ac_utime - a.ts.ac_stime;
	exec_us = (b.exec - a.exec) / 1000;
	switches = b.ts.nvcsw + b.ts.nivcsw - a.ts.nvcsw - a.ts.nivcsw;
	TH_LOG("CPU time: %llu us charged, %llu us run, %llu switches",
	       (unsigned long long)cpu_us, (unsigned long long)exec_us,
	       (unsigned long long)switches);
	ASSERT_LE(BURN_NS / 1000, exec_us);
	EXPECT_LE(exec_us / 4, cpu_us);
	EXPECT_GE(exec_us + (switches + 1) * TS_MAX_TICK_US, cpu_us);

	/* The integrals: RSS (VmRSS, read exactly, give or take the slop) and VM. */
	check_integral(_metadata, "coremem", b.ts.coremem - a.ts.coremem,
		       (a.rss < b.rss ? a.rss : b.rss) - slop,
		       (a.rss > b.rss ? a.rss : b.rss) + slop, cpu_us);
	check_integral(_metadata, "virtmem", b.ts.virtmem - a.ts.virtmem,
		       a.vm < b.vm ? a.vm : b.vm, a.vm > b.vm ? a.vm : b.vm, cpu_us);
	/* RSS <= VM at every sample, so the integrals keep that order. */
	EXPECT_LE(b.ts.coremem, b.ts.virtmem);
}

TEST_HARNESS_MAIN
