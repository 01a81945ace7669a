/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of cgroup_dump_test.c compare and collect: sets of ids
 * and the records of a dump, dumps read part by part, the count of a
 * cgroup's dying descendants, and what user A and a container's pid 1
 * see when they dump the test's cgroup, sent back on a pipe.
 */
#ifndef TS_CGROUP_DUMPS_H
#define TS_CGROUP_DUMPS_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <sys/types.h>

#include "cgroup_world.h"

#define MAX_IDS		192

/* A set of ids, as the test expects them. */
struct ids {
	int n;
	uint32_t id[MAX_IDS];
};

/* Adds @id to @s, if it has room. */
void add_id(struct ids *s, pid_t id);

/* Adds every thread of @k to @s. */
void add_tids(struct ids *s, const struct kid *k);

/* Whether @s holds @id. */
bool has_id(const struct ids *s, uint32_t id);

/*
 * Whether @g holds exactly @want's ids, each once, all of aggregate type
 * @aggr; if not and @log, says what differs.
 */
bool same_ids(const struct recs *g, const struct ids *want, int aggr, bool log);

/* Whether @g holds a record of @id. */
bool has_rec(const struct recs *g, uint32_t id);

/* The ids another process dumped, as records of type @aggr. */
void as_recs(struct recs *g, const uint32_t *id, int n, int aggr);

/* The kid of @kids whose thread @tid is, or NULL. */
const struct kid *kid_of(struct kid *const *kids, int n, uint32_t tid);

/*
 * Whether a test that dumps in a loop since @t0 dumps again: 20 times at
 * least, then while under @most dumps and @secs seconds.
 */
bool dump_more(int dumps, int most, int secs, const struct timespec *t0);

/* A socket for one dump, read part by part, that fails rather than hang. */
int dump_socket(void);

/* Sends the request of a dump of the cgroup @fd on @nl, numbered *@seq. */
int dump_start(struct world *w, int nl, int fd, uint32_t *seq);

/* Reads the dump @seq on @nl to its end into @g: how many came, or -errno. */
int dump_rest(int nl, uint32_t seq, struct recs *g);

/* @n sleepers without threads in @cgroup, their pids added to @ids. */
int sleepers(struct world *w, const char *cgroup, int n, struct ids *ids);

/* The nr_dying_descendants of the cgroup @dir, or -errno. */
int dying_descendants(const char *dir);

/* Removes the empty cgroup @dir, waiting at most WAIT_MS for it to empty. */
int remove_empty(const char *dir);

/* What user A, dumping the test's cgroup, saw; sent back on a pipe. */
struct seen_by_a {
	int open_err;		/* opening the cgroup as A */
	int n, tgid_n;		/* the dumps' results */
	uint32_t id[MAX_IDS], tgid[MAX_IDS];
	int own_io, root_io;	/* the oracle: /proc/PID/io readable */
};

/*
 * In a child of the test: becomes user A and dumps the test's cgroup, by
 * pid and by tgid, and checks /proc/PID/io of its own kid @own and of
 * root's @roots; writes what it saw to @out and exits.
 */
void dump_as_a(struct world *w, pid_t own, pid_t roots, int out);

/* What a container's pid 1 saw of the cgroup: see dump_in_a_container(). */
struct seen_in_container {
	int err;		/* making the container, or 0 */
	int n, tgid_n;		/* the dumps' results */
	uint32_t id[MAX_IDS], tgid[MAX_IDS];
	struct ids threads, procs;	/* the cgroup's files, read inside */
	int hidden_threads, hidden_procs;	/* their zeros: tasks outside */
};

/*
 * In a child of the test: dumps the test's cgroup as pid 1 of a
 * container, writes what pid 1 saw to @out and exits.
 */
void dump_in_a_container(struct world *w, int out);

#endif
