/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The record of what a test made outside itself (cgroups, a frozen file
 * system, a mounted cgroup v1 hierarchy, disks, files of /tmp), and its
 * janitor: a process that outlives the test and undoes what the record
 * holds, for a test that dies before its teardown runs (a timeout, a
 * failed setup).
 *
 * The record lives in memory the test shares with its janitor
 * (MAP_SHARED | MAP_ANONYMOUS): the test writes each thing down as it
 * makes it, before where it can, and clears it once undone, so that
 * whoever cleans up last, the teardown or the janitor, finds what is left.
 */
#ifndef TS_JANITOR_H
#define TS_JANITOR_H

#include <sys/types.h>

#include "disks.h"

#define TS_MESS_CGROUPS	8
#define TS_MESS_PATH	256

/* What a test has made that must be undone: shared with its janitor. */
struct ts_mess {
	char cgroup[TS_MESS_CGROUPS][TS_MESS_PATH];	/* made, in this order */
	int ncgroups;
	char frozen[TS_MESS_PATH];	/* a directory of a file system we froze */
	char v1[96];			/* where we mounted a cgroup v1 hierarchy */
	struct ts_disk scratch;		/* a file system to freeze, for a writer */
	struct ts_disk slow;		/* a slow disk, for a reader */
	char file[96];			/* a file of ours (a FIFO) to unlink */
	char tmp[64];			/* a directory of /tmp, removed last */
};

/* What a kid a test made tells it once it is ready. */
#define TS_KID_TIDS	8
struct ts_ready {
	int n;			/* of tids, or -errno */
	pid_t tid[TS_KID_TIDS];	/* leader first */
	pid_t other;		/* a vfork child or zombie it made, or 0 */
};

int ts_read_ready(int fd, struct ts_ready *r, int ms);
int ts_janitor_start(struct ts_mess *m);
int ts_mess_cgroup(struct ts_mess *m, const char *path);
int ts_mess_freeze(struct ts_mess *m, const char *dir);
int ts_mess_frozen_file(struct ts_mess *m, int *fd, const char **why);
void ts_mess_thaw(struct ts_mess *m);
void ts_mess_cleanup(struct ts_mess *m);

#endif
