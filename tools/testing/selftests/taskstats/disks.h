/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Block devices the tests make for themselves, so that they need nothing
 * of the machine they run on but the kernel options of ./config:
 *
 *  - a loop device over a memfd (a file of the kernel's internal tmpfs),
 *  - a scratch file system: ext4 made on such a loop device and mounted
 *    on a directory of /tmp (mkfs.ext4 is the one program it runs),
 *  - a swap device: a loop device with a swap header, switched on,
 *  - a slow disk: a dm-delay target over a loop device, whose every
 *    request the device mapper holds for a given time.
 *
 * Each lives as long as the struct ts_disk that holds it: ts_disk_drop()
 * undoes what was made, in reverse order. A loop device is set to clear
 * itself when its last user closes it, and a device-mapper device that is
 * still open when dropped is removed when it is closed, so that a test
 * killed midway leaves at most a mount behind.
 *
 * The makers return 0, or TS_DISK_CANNOT with the reason in @why when the
 * kernel or the machine cannot make one (no loop devices, no dm-delay,
 * no mkfs.ext4, not root): the test skips with that reason. Anything else
 * is -errno, a failure.
 */
#ifndef TS_DISKS_H
#define TS_DISKS_H

#include <stdbool.h>
#include <stdint.h>

#define TS_DISK_CANNOT	1

struct ts_disk {
	int loop_fd;		/* the open loop device, -1 if none */
	char loop[32];		/* its path, /dev/loopN */
	char dm[32];		/* the device-mapper device's name, or "" */
	char dev[32];		/* the device to use: the loop or dm device */
	char dir[64];		/* the mounted scratch file system, or "" */
	bool swap_on;		/* dev is in use as swap */
	char why[160];		/* why it could not be made */
};

int ts_disk_loop(struct ts_disk *d, uint64_t bytes);
int ts_disk_scratch(struct ts_disk *d, uint64_t bytes);
int ts_disk_swap(struct ts_disk *d, uint64_t bytes);
int ts_disk_slow(struct ts_disk *d, uint64_t bytes, unsigned int delay_ms);
void ts_disk_drop(struct ts_disk *d);

#endif
