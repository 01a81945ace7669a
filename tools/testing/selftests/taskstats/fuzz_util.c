// SPDX-License-Identifier: GPL-2.0
/*
 * The stream every choice of a phase is drawn from, small file and clock
 * helpers, errno names, and the reporting of violations.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

#define HEX_MAX		512

const char * const phase_name[PH_NR] = { "root", "user", "container" };

const char * const exp_name[] = {
	"none", "ack", "error", "listen", "get", "cgroupstats", "dump",
};

/* ----------------------------------------------------------------- PRNG */

__u64 rng_state;

/* splitmix64: cheap, and its whole state is the seed. */
__u64 rnd(void)
{
	__u64 z;

	rng_state += 0x9e3779b97f4a7c15ULL;
	z = rng_state;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A number below @n, from the top 32 bits of one draw. */
__u32 below(__u32 n)
{
	return (__u32)(((rnd() >> 32) * n) >> 32);
}

/* True @per_mille times in a thousand. */
bool chance(__u32 per_mille)
{
	return below(1000) < per_mille;
}

/* Fills @len bytes at @p from the stream. */
void fill_rand(void *p, int len)
{
	unsigned char *b = p;
	__u64 r = 0;
	int i;

	for (i = 0; i < len; i++) {
		if (!(i & 7))
			r = rnd();
		b[i] = r;
		r >>= 8;
	}
}

/* ---------------------------------------------------------------- utils */

/* CLOCK_MONOTONIC, in nanoseconds. */
__u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Reads a small file into @buf as a string; returns its length or -1. */
int read_file(const char *path, char *buf, int size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return n;
}

/* Writes string @s to the file @path; returns 0 or -errno. */
int write_file(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, s, strlen(s));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

static const struct {
	int err;
	const char *name;
} errno_names[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { ESRCH, "ESRCH" },
	{ EINTR, "EINTR" }, { EIO, "EIO" }, { E2BIG, "E2BIG" },
	{ EBADF, "EBADF" }, { EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" },
	{ EACCES, "EACCES" }, { EFAULT, "EFAULT" }, { EBUSY, "EBUSY" },
	{ EEXIST, "EEXIST" }, { ENODEV, "ENODEV" }, { ENOTDIR, "ENOTDIR" },
	{ EINVAL, "EINVAL" }, { ENOSPC, "ENOSPC" }, { ERANGE, "ERANGE" },
	{ EPROTO, "EPROTO" }, { EBADMSG, "EBADMSG" },
	{ EOVERFLOW, "EOVERFLOW" }, { EMSGSIZE, "EMSGSIZE" },
	{ EOPNOTSUPP, "EOPNOTSUPP" }, { ENOBUFS, "ENOBUFS" },
	{ ECONNREFUSED, "ECONNREFUSED" }, { ETIMEDOUT, "ETIMEDOUT" },
	{ 524, "ENOTSUPP" },	/* the kernel's own, never meant for users */
};

/* The name of errno @err, or "ERRNO_<err>"; valid until the next call. */
const char *errno_name(int err)
{
	static char buf[24];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(errno_names); i++)
		if (errno_names[i].err == err)
			return errno_names[i].name;
	snprintf(buf, sizeof(buf), "ERRNO_%d", err);
	return buf;
}

/* ------------------------------------------------------------ reporting */

/* A note of up to HEX_MAX bytes of @buf in hex, labelled @what. */
void print_hex(const char *what, const void *buf, int len)
{
	const unsigned char *b = buf;
	int i, n = len < HEX_MAX ? len : HEX_MAX;

	printf("#   %s:", what);
	for (i = 0; i < n; i++)
		printf("%s%02x", i % 4 ? "" : " ", b[i]);
	if (n < len)
		printf(" ... (%d bytes)", len);
	printf("\n");
}

/* Where request @r starts in the datagram laid out. */
const struct nlmsghdr *req_hdr(const struct fuzz *f, const struct req *r)
{
	return (const struct nlmsghdr *)(f->tx + r->off);
}

/*
 * Counts a violation. The first few are printed; with --verbose all are,
 * with the request (@r) and the answer (@h) that show it.
 */
__printf(4, 5) void violation(struct fuzz *f, const struct req *r,
			      const struct nlmsghdr *h,
			      const char *fmt, ...)
{
	va_list ap;

	f->c.violations++;
	if (!f->verbose && f->c.violations > SHOW_VIOLATIONS)
		return;
	printf("# violation (%s", phase_name[f->phase]);
	if (r)
		printf(", seq %u, expected %s", r->seq, exp_name[r->exp]);
	printf("): ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!f->verbose)
		return;
	if (r)
		print_hex("request", req_hdr(f, r), r->size);
	if (h)
		print_hex("answer", h, h->nlmsg_len);
}
