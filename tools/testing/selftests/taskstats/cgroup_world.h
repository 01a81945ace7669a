/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The world of a test of cgroup_test.c, cgroup_dump_test.c and
 * cgroup_error_test.c: a fresh
 * cgroup under the cgroup2 root, the tasks of its own the test puts there
 * (its kids: each joins by writing its pid to cgroup.procs, then makes
 * its threads, and waits in the state its kind leads to), a background
 * process that forks or moves tasks, a netlink socket, and the counts
 * and the dumps of a cgroup asked on it.
 *
 * Cleaning up: the teardown kills the tasks and removes the cgroups. A
 * test that dies before it (a timeout, a failed setup) leaves that to its
 * janitor (janitor.h), a process in a session of its own that waits for
 * the test's death on a pidfd, then thaws what the test froze, empties
 * (cgroup.kill) and removes what the test created, as recorded in memory
 * they share.
 *
 * The setup, which asserts, is world_setup() in cgroup_fixture.h.
 */
#ifndef TS_CGROUP_WORLD_H
#define TS_CGROUP_WORLD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/cgroupstats.h>
#include <linux/taskstats.h>

#include "janitor.h"

#define PATH_BUF	256

/* The root of the cgroup2 hierarchy, wherever it is mounted. */
extern char cgroup_root[PATH_BUF - 48];

#define MAX_KIDS	192
#define MAX_TIDS	TS_KID_TIDS	/* a kid's leader and its threads */
#define MAX_RECS	256
#define WAIT_MS		10000	/* for a state, an answer, a cgroup to empty */

#define SKIP_DUMP	"this kernel cannot dump (no GENL_CMD_CAP_DUMP), let alone one cgroup"

/* The memory a test shares with its janitor and its churner or mover. */
struct shared {
	struct ts_mess mess;	/* what it made that must be undone */
	unsigned long forks;	/* the churner's, so far */
	unsigned long moves;	/* the mover's, so far */
};

enum kind {
	SLEEPER,	/* every thread blocks reading a pipe: TASK_INTERRUPTIBLE */
	BUSY,		/* the leader spins: TASK_RUNNING */
	WRITER,		/* told to, write(2)s to a file: D if its fs is frozen */
	VFORKER,	/* vfork(2)s a child that sleeps: TASK_KILLABLE */
	READER,		/* reads a slow disk's uncached page: killable I/O wait */
};

/* A task to make: see spawn(). */
struct spec {
	const char *cgroup;	/* the directory it joins */
	enum kind kind;
	int threads;		/* besides the leader, each asleep on the pipe */
	uid_t uid;		/* if not 0: becomes that user after joining */
	const char *name;	/* its command name */
	int fd;			/* WRITER: the file it writes to; READER: the disk */
};

/* A task made: its threads' ids, leader first. */
struct kid {
	pid_t pid;
	int n;
	pid_t tid[MAX_TIDS];
	pid_t vchild;		/* VFORKER: the child it waits for */
	int go;			/* WRITER: a byte here makes it write */
};

/* Everything a test of the cgroup tests works with. */
struct world {
	int nl;
	uint16_t family;
	bool series;		/* this series' kernel, not the reference */
	struct shared *shared;
	struct ts_mess *mess;	/* &shared->mess; the disks are there too */
	char dir[PATH_BUF];	/* the test's cgroup */
	int dirfd;
	int hold[2];		/* the pipe every sleeping thread reads */
	struct kid kids[MAX_KIDS];
	int nkids;
	pid_t churner;		/* or the mover */
};

/* A record of a dump, as keep() keeps it. */
struct rec {
	uint32_t id;
	int aggr;
	struct taskstats ts;
};

/* The records of one dump, as many as fit. */
struct recs {
	int n;
	int dropped;		/* beyond MAX_RECS */
	struct rec rec[MAX_RECS];
};

/* The records of the last dump a test made. */
extern struct recs got;

/* Makes a task as @s says, in its state: 0 with the kid in *@out, or -errno. */
int spawn(struct world *w, const struct spec *s, struct kid **out);

/* A sleeper in @cgroup with @threads threads. */
int sleeper(struct world *w, const char *cgroup, int threads, struct kid **out);

/* Kills and reaps every kid; the teardown has none left to kill. */
void reap_kids(struct world *w);

/* Forks and reaps children outside every cgroup of the test, until killed. */
int churn_start(struct world *w);

/* Moves the @n processes of @pids from cgroup @a to @b and back, until killed. */
int mover_start(struct world *w, const pid_t *pids, int n,
		const char *a, const char *b);

/* Waits at most WAIT_MS for the churner's or the mover's count @c to start. */
int wait_started(const unsigned long *c);

/* Kills what the test made, removes its cgroups, closes its files. */
void world_teardown(struct world *w);

/* The counts of the cgroup whose directory @fd is open on; 1 if answered. */
int counts(struct world *w, int fd, struct cgroupstats *cs);

/* A tsnl_dump_fn that keeps each record in the struct recs @arg. */
void keep(uint32_t id, int aggr, const struct taskstats *ts, void *arg);

/* A dump of the cgroup @fd into @g: its number of records or -errno. */
int dump(struct world *w, int fd, int flags, struct recs *g);

#endif
