// SPDX-License-Identifier: GPL-2.0
/*
 * What every workload uses: the RESULT, note and error lines, the clocks,
 * work amounts, CPU pinning, the syscall wrappers counted in nr_syscalls,
 * and reading and writing small files under /proc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* -T: appended as _TAG to every result name; NULL for none. */
const char *tag;

/* Syscalls issued by this thread through the counting wrappers below. */
__thread unsigned long nr_syscalls;

/* One line "RESULT <name>[_<tag>] <value> <unit>", the name formatted from @fmt. */
static void vresult(const char *value, const char *unit, const char *fmt, va_list ap)
{
	char name[128];

	vsnprintf(name, sizeof(name), fmt, ap);
	printf("RESULT %s%s%s %s %s\n", name, tag ? "_" : "", tag ? tag : "", value, unit);
	fflush(stdout);
}

/* One RESULT line of @value: 3 decimals unless it is whole or >= 100. */
void resultf(double value, const char *unit, const char *fmt, ...)
{
	int prec = value >= 100 || value == (long long)value ? 0 : 3;
	char v[512];
	va_list ap;

	snprintf(v, sizeof(v), "%.*f", prec, value);
	va_start(ap, fmt);
	vresult(v, unit, fmt, ap);
	va_end(ap);
}

/* resultf() of a plain @name. */
void result(const char *name, double value, const char *unit)
{
	resultf(value, unit, "%s", name);
}

/* A measurement that has no value: "unsupported" or "error". */
void status(const char *what, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vresult(what, "-", fmt, ap);
	va_end(ap);
}

/* One diagnostic line on stdout: "# " and the formatted text. */
void note(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* One error message on stderr; returns 1, the exit code of a failure. */
int failx(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "taskstats_bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return 1;
}

/* failx() of "@what: " and strerror(errno). */
int fail(const char *what)
{
	return failx("%s: %s", what, strerror(errno));
}

static unsigned long long clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* CLOCK_MONOTONIC, ns. */
unsigned long long now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

/* CPU time of this process (all threads), ns. */
unsigned long long cpu_ns(void)
{
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

/* Sleeps @ms milliseconds, the whole time even across signals. */
void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
}

/* A work amount: @given if set (> 0), else @quick under -q, else @full. */
long pick(long given, long full, long quick, const struct opts *o)
{
	if (given > 0)
		return given;
	return o->quick ? quick : full;
}

/* Binds the calling thread to CPU @cpu; 0, or -1 with errno. */
int pin_cpu(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* ------------------------------------------------------- counted syscalls */

/* open(2), counted in nr_syscalls. */
int c_open(const char *path, int flags)
{
	nr_syscalls++;
	return open(path, flags);
}

/* openat(2), counted. */
int c_openat(int dirfd, const char *path, int flags)
{
	nr_syscalls++;
	return openat(dirfd, path, flags);
}

/* read(2), counted. */
ssize_t c_read(int fd, void *buf, size_t len)
{
	nr_syscalls++;
	return read(fd, buf, len);
}

/* close(2), counted. */
int c_close(int fd)
{
	nr_syscalls++;
	return close(fd);
}

/* getdents64(2), counted: struct dirent64 records in @buf. */
long c_getdents64(int fd, void *buf, size_t len)
{
	nr_syscalls++;
	return syscall(SYS_getdents64, fd, buf, len);
}

/* sendmsg(2), counted. */
ssize_t c_sendmsg(int fd, const struct msghdr *msg)
{
	nr_syscalls++;
	return sendmsg(fd, msg, 0);
}

/* recvmsg(2), counted. */
ssize_t c_recvmsg(int fd, struct msghdr *msg)
{
	nr_syscalls++;
	return recvmsg(fd, msg, 0);
}

/* ------------------------------------------------------------- /proc files */

/* The number at the start of file @path, or -1 if it cannot be read. */
long sysctl_read(const char *path)
{
	char buf[32] = "";
	long v = -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, buf, sizeof(buf) - 1) > 0)
			v = strtol(buf, NULL, 10);
		close(fd);
	}
	return v;
}

/* Writes @text to @path in one write(2); -1 with errno on failure. */
int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ok;
	size_t len = strlen(text);

	if (fd < 0)
		return -1;
	ok = write(fd, text, len) == (ssize_t)len;
	close(fd);
	return ok ? 0 : -1;
}

/* Writes @v and a newline to @path; -1 with errno on failure. */
int sysctl_write(const char *path, long v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%ld\n", v);
	return write_file(path, buf);
}
