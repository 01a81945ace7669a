// SPDX-License-Identifier: GPL-2.0
/*
 * Block devices of the tests' own: see disks.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/dm-ioctl.h>
#include <linux/loop.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "disks.h"

/* <linux/fs.h> has it, but clashes with <sys/mount.h> in older C libraries. */
#ifndef FITHAW
#define FITHAW	_IOWR('X', 120, int)
#endif

/* Records why @d cannot be made here; the test skips with it. */
static int cannot(struct ts_disk *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(d->why, sizeof(d->why), fmt, ap);
	va_end(ap);
	return TS_DISK_CANNOT;
}

/* A memfd of @bytes: the file behind a loop device, in no mount of ours. */
static int backing_file(uint64_t bytes)
{
	int fd = memfd_create("ts_disk", MFD_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)bytes)) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/*
 * Binds a free loop device to @file, clearing itself on its last close.
 * Another process may bind the device we were given first: then the next.
 */
static int loop_attach(struct ts_disk *d, int file)
{
	struct loop_config cfg = {
		.fd = file,
		.info.lo_flags = LO_FLAGS_AUTOCLEAR,
	};
	int ctl, fd, n, err = -EBUSY;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0) {
		if (errno == EACCES || errno == EPERM)
			return cannot(d, "/dev/loop-control: %s: the disk tests need root",
				      strerror(errno));
		return cannot(d, "no /dev/loop-control (%s): no BLK_DEV_LOOP, or no devtmpfs",
			      strerror(errno));
	}
	for (int tries = 0; tries < 32 && err == -EBUSY; tries++) {
		n = ioctl(ctl, LOOP_CTL_GET_FREE);
		if (n < 0) {
			err = -errno;
			break;
		}
		snprintf(d->loop, sizeof(d->loop), "/dev/loop%d", n);
		fd = open(d->loop, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			err = -errno;
			break;
		}
		if (!ioctl(fd, LOOP_CONFIGURE, &cfg)) {
			d->loop_fd = fd;
			snprintf(d->dev, sizeof(d->dev), "%s", d->loop);
			err = 0;
			break;
		}
		err = -errno;
		close(fd);
	}
	close(ctl);
	if (err)
		d->loop[0] = '\0';
	return err;
}

static void disk_init(struct ts_disk *d)
{
	memset(d, 0, sizeof(*d));
	d->loop_fd = -1;
}

/* Called with a fresh @d: a loop device over a memfd of @bytes, filled by @fill. */
static int make_loop(struct ts_disk *d, uint64_t bytes,
		     int (*fill)(int fd, uint64_t bytes))
{
	int file, err;

	if (geteuid())
		return cannot(d, "the disk tests need root (loop devices)");
	file = backing_file(bytes);
	if (file < 0)
		return file;
	err = fill ? fill(file, bytes) : 0;
	if (!err)
		err = loop_attach(d, file);
	close(file);
	return err;
}

/**
 * ts_disk_loop() - a loop device of @bytes over a memfd.
 * @d: where the device is described; ts_disk_drop() releases it
 * @bytes: its size
 *
 * Return: 0, TS_DISK_CANNOT with the reason in @d->why, or -errno.
 */
int ts_disk_loop(struct ts_disk *d, uint64_t bytes)
{
	disk_init(d);
	return make_loop(d, bytes, NULL);
}

/*
 * Makes an ext4 on @dev with mkfs.ext4, found on a PATH with the sbin
 * directories whatever the caller's, its output discarded. A memfd reads
 * as zeros: mkfs need not zero the inode tables and journal (which shmem
 * could not do with WRITE_ZEROES), and the mount tells ext4 not to either.
 * Returns mkfs's exit status, 127 if it could not be run, or -errno.
 */
static int mkfs_ext4(const char *dev)
{
	int status, null;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		null = open("/dev/null", O_RDWR);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
			dup2(null, 2);
		}
		setenv("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", 1);
		execlp("mkfs.ext4", "mkfs.ext4", "-q", "-F", "-E",
		       "lazy_itable_init=1,lazy_journal_init=1,nodiscard", dev, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* Trades the loop device's open for writing for a read-only one. */
static int hold_read_only(struct ts_disk *d)
{
	int fd = open(d->loop, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	close(d->loop_fd);	/* not the last: autoclear waits for fd */
	d->loop_fd = fd;
	return 0;
}

/**
 * ts_disk_scratch() - an ext4 file system of @bytes of its own, mounted.
 * @d: @d->dir is where it is mounted (a new directory of /tmp)
 * @bytes: the size of the loop device it is made on
 *
 * Return: 0, TS_DISK_CANNOT with the reason in @d->why, or -errno.
 */
int ts_disk_scratch(struct ts_disk *d, uint64_t bytes)
{
	int err = ts_disk_loop(d, bytes);

	if (err)
		return err;
	err = mkfs_ext4(d->dev);
	if (err == 127)
		err = cannot(d, "mkfs.ext4 not found: no scratch file system (install e2fsprogs)");
	else if (err)
		err = err < 0 ? err : -EIO;
	if (err)
		goto fail;
	snprintf(d->dir, sizeof(d->dir), "/tmp/ts_scratch.XXXXXX");
	if (!mkdtemp(d->dir)) {
		err = -errno;
		d->dir[0] = '\0';
		goto fail;
	}
	/*
	 * A kernel without CONFIG_BLK_DEV_WRITE_MOUNTED mounts no device
	 * open for writing: hold it read-only from here on.
	 */
	err = hold_read_only(d);
	if (err)
		goto fail;
	if (mount(d->dev, d->dir, "ext4", 0, "noinit_itable")) {
		err = errno == ENODEV ?
		      cannot(d, "the kernel has no ext4 (CONFIG_EXT4_FS): no scratch file system") :
		      -errno;
		rmdir(d->dir);
		d->dir[0] = '\0';
		goto fail;
	}
	return 0;
fail:
	ts_disk_drop(d);
	return err;
}

/* The swap header of version 1, as mkswap writes it, for @bytes of swap. */
static int write_swap_header(int fd, uint64_t bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	struct {
		char bootbits[1024];
		uint32_t version;
		uint32_t last_page;
		uint32_t nr_badpages;
		unsigned char uuid[16];
		char volume[16];
	} h = { .version = 1, .last_page = (uint32_t)(bytes / page - 1) };
	static const char magic[10] = "SWAPSPACE2";

	if (pwrite(fd, &h, sizeof(h), 0) != sizeof(h) ||
	    pwrite(fd, magic, sizeof(magic), page - sizeof(magic)) != sizeof(magic))
		return -EIO;
	return 0;
}

/**
 * ts_disk_swap() - @bytes of swap of its own, switched on.
 * @d: @d->dev is the swap device; ts_disk_drop() switches it off
 * @bytes: its size
 *
 * Return: 0, TS_DISK_CANNOT with the reason in @d->why, or -errno.
 */
int ts_disk_swap(struct ts_disk *d, uint64_t bytes)
{
	int err;

	disk_init(d);
	if (access("/proc/swaps", F_OK))
		return cannot(d, "the kernel has no swap (CONFIG_SWAP): no /proc/swaps");
	err = make_loop(d, bytes, write_swap_header);
	if (err)
		return err;
	if (swapon(d->dev, 0)) {
		err = -errno;
		ts_disk_drop(d);
		return err;
	}
	d->swap_on = true;
	return 0;
}

/* A device-mapper request and room for one target and its arguments. */
struct dm_request {
	struct dm_ioctl io;
	struct dm_target_spec target;
	char args[128];
};

static int dm_call(unsigned long cmd, const char *name, struct dm_request *r,
		   uint32_t flags)
{
	int ctl, err = 0;

	r->io.version[0] = DM_VERSION_MAJOR;
	r->io.version[1] = 0;
	r->io.version[2] = 0;
	r->io.data_size = sizeof(*r);
	r->io.data_start = sizeof(r->io);
	r->io.flags = flags;
	snprintf(r->io.name, sizeof(r->io.name), "%s", name);
	ctl = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		return -errno;
	if (ioctl(ctl, cmd, r))
		err = -errno;
	close(ctl);
	return err;
}

/* Removes the device-mapper device @d->dm, at its last close if it is open. */
static void dm_remove(struct ts_disk *d)
{
	struct dm_request r = {};

	if (dm_call(DM_DEV_REMOVE, d->dm, &r, 0) == -EBUSY) {
		memset(&r, 0, sizeof(r));
		dm_call(DM_DEV_REMOVE, d->dm, &r, DM_DEFERRED_REMOVE);
	}
	d->dm[0] = '\0';
}

/**
 * ts_disk_slow() - a disk of @bytes that serves every request @delay_ms late.
 * @d: @d->dev is the dm-delay device over a loop device
 * @bytes: its size
 * @delay_ms: how long the device mapper holds each read, write and flush
 *
 * Requests are held side by side, not one after the other: twelve reads
 * submitted together all complete some @delay_ms later.
 *
 * Return: 0, TS_DISK_CANNOT with the reason in @d->why, or -errno.
 */
int ts_disk_slow(struct ts_disk *d, uint64_t bytes, unsigned int delay_ms)
{
	struct dm_request r = {};
	struct stat st;
	int err = ts_disk_loop(d, bytes);

	if (err)
		return err;
	if (fstat(d->loop_fd, &st)) {
		err = -errno;
		goto fail;
	}
	snprintf(d->dm, sizeof(d->dm), "ts_slow_%d", getpid());
	err = dm_call(DM_DEV_CREATE, d->dm, &r, 0);
	if (err) {
		d->dm[0] = '\0';
		if (err == -ENOENT || err == -ENODEV)
			err = cannot(d, "no device mapper (/dev/mapper/control: %s): no BLK_DEV_DM",
				     strerror(-err));
		goto fail;
	}
	snprintf(d->dev, sizeof(d->dev), "/dev/dm-%u", minor(r.io.dev));
	memset(&r, 0, sizeof(r));
	r.io.target_count = 1;
	r.target.length = bytes >> 9;
	snprintf(r.target.target_type, sizeof(r.target.target_type), "delay");
	snprintf(r.args, sizeof(r.args), "%u:%u 0 %u",
		 major(st.st_rdev), minor(st.st_rdev), delay_ms);
	err = dm_call(DM_TABLE_LOAD, d->dm, &r, 0);
	if (err == -EINVAL) {
		err = cannot(d, "the device mapper has no delay target (CONFIG_DM_DELAY)");
		goto fail;
	}
	memset(&r, 0, sizeof(r));
	if (!err)
		err = dm_call(DM_DEV_SUSPEND, d->dm, &r, 0);	/* resumes */
	if (!err)
		return 0;
fail:
	ts_disk_drop(d);
	return err;
}

/**
 * ts_disk_drop() - undo what a ts_disk_*() maker made of @d.
 * @d: a disk made by one of them, or zeroed; made empty again
 *
 * A scratch file system frozen by its test is thawed first.
 */
void ts_disk_drop(struct ts_disk *d)
{
	if (d->swap_on)
		swapoff(d->dev);
	if (d->dir[0]) {
		int fd = open(d->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

		if (fd >= 0) {
			ioctl(fd, FITHAW, 0);
			close(fd);
		}
		if (umount2(d->dir, 0))
			umount2(d->dir, MNT_DETACH);
		rmdir(d->dir);
	}
	if (d->dm[0])
		dm_remove(d);
	if (d->loop[0] && d->loop_fd >= 0)
		close(d->loop_fd);
	disk_init(d);
}
