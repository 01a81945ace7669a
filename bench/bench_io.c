// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads that make no taskstats request: pipe round trips
 * (pingpong: switches and wakeups) and O_DIRECT reads (directio: block I/O
 * waits), the paths where delay accounting hooks in.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fs.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

#define SPAN_MAX	(256ULL << 20)
#define IO_SIZE		4096

/* ----------------------------------------------------------------- pingpong */

/* pingpong: pipe round trips per second between two processes on CPU 0. */
int cmd_pingpong(const struct opts *o)
{
	long rounds = pick(o->count, 100000, 5000, o), warm = rounds / 20 + 1, i;
	int ping[2], pong[2], status;
	unsigned long long t0 = 0, t1;
	char c = 'x';
	pid_t pid;

	if (pin_cpu(0))
		return fail("pinning to CPU 0");
	if (pipe(ping) || pipe(pong))
		return fail("pipe");
	pid = fork();
	if (pid < 0)
		return fail("fork");
	if (pid == 0) {
		close(ping[1]);
		close(pong[0]);
		while (read(ping[0], &c, 1) == 1) {
			if (write(pong[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	close(ping[0]);
	close(pong[1]);
	for (i = -warm; i < rounds; i++) {
		if (i == 0)
			t0 = now_ns();
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
			return fail("pipe round trip");
		}
	}
	t1 = now_ns();
	close(ping[1]);
	close(pong[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return failx("pingpong: the partner process failed");
	note("pingpong: %ld round trips in %.3f s", rounds, (t1 - t0) / 1e9);
	result("pingpong", rounds / ((t1 - t0) / 1e9), "roundtrips/s");
	return 0;
}

/* ----------------------------------------------------------------- directio */

static __u64 xorshift(__u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* directio: 4 KiB O_DIRECT random reads per second, and their CPU time. */
int cmd_directio(const struct opts *o)
{
	long count = pick(o->count, 10000, 500, o), i;
	unsigned long long size, blocks, t0, t1, c0, c1;
	__u64 seed = 0x9e3779b97f4a7c15ULL;
	struct rusage r0, r1;
	struct stat st;
	void *buf;
	int fd;

	if (!o->file)
		return failx("directio: -f FILE_OR_DEVICE is required");
	fd = open(o->file, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		return fail(o->file);
	size = st.st_size;
	if (S_ISBLK(st.st_mode) && ioctl(fd, BLKGETSIZE64, &size))
		return fail("BLKGETSIZE64");
	if (size > SPAN_MAX)
		size = SPAN_MAX;
	blocks = size / IO_SIZE;
	if (!blocks)
		return failx("directio: %s is smaller than %d bytes", o->file, IO_SIZE);
	if (posix_memalign(&buf, IO_SIZE, IO_SIZE))
		return failx("directio: out of memory");
	getrusage(RUSAGE_SELF, &r0);
	c0 = cpu_ns();
	t0 = now_ns();
	for (i = 0; i < count; i++) {
		off_t off = (off_t)(xorshift(&seed) % blocks) * IO_SIZE;

		if (pread(fd, buf, IO_SIZE, off) != IO_SIZE)
			return fail("O_DIRECT pread");
	}
	t1 = now_ns();
	c1 = cpu_ns();
	getrusage(RUSAGE_SELF, &r1);
	close(fd);
	free(buf);
	note("directio: %ld reads of %d bytes over %llu MiB of %s in %.3f s", count, IO_SIZE,
	     blocks * IO_SIZE >> 20, o->file, (t1 - t0) / 1e9);
	/* A read whose completion beat the sleep does not block: its I/O wait costs no switch. */
	note("directio: %.3f voluntary switches per read", (double)(r1.ru_nvcsw - r0.ru_nvcsw) / count);
	result("directio", count / ((t1 - t0) / 1e9), "reads/s");
	/*
	 * The CPU the reads cost, apart from the device's latency: under
	 * -icount the guest clock runs in real time while the vCPU idles
	 * waiting for the host's disk, so reads/s moves with the host.
	 */
	result("directio_cpu", (double)(c1 - c0) / count, "ns");
	return 0;
}
