// SPDX-License-Identifier: GPL-2.0
/*
 * What the tests of cgroup_dump_test.c compare and collect: see
 * cgroup_dumps.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>

#include "agent.h"
#include "cgroup_dumps.h"
#include "cgroup_world.h"
#include "tsnl.h"

/* ----------------------------------------------------------------- ids */

void add_id(struct ids *s, pid_t id)
{
	if (s->n < MAX_IDS)
		s->id[s->n++] = id;
}

void add_tids(struct ids *s, const struct kid *k)
{
	for (int i = 0; i < k->n; i++)
		add_id(s, k->tid[i]);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static void log_ids(const char *what, const uint32_t *id, int n)
{
	char line[1024];
	int len = 0;

	for (int i = 0; i < n && len < (int)sizeof(line) - 16; i++)
		len += snprintf(line + len, sizeof(line) - len, " %u", id[i]);
	line[len] = '\0';
	fprintf(stderr, "# %s:%s\n", what, n ? line : " none");
}

/*
 * Whether @g holds exactly @want's ids, each once, all of aggregate type
 * @aggr; if not and @log, says what differs.
 */
bool same_ids(const struct recs *g, const struct ids *want, int aggr, bool log)
{
	uint32_t got[MAX_RECS], exp[MAX_IDS];
	bool same = !g->dropped && g->n == want->n;

	for (int i = 0; i < g->n; i++) {
		got[i] = g->rec[i].id;
		same &= g->rec[i].aggr == aggr;
	}
	memcpy(exp, want->id, want->n * sizeof(exp[0]));
	qsort(got, g->n, sizeof(got[0]), cmp_u32);
	qsort(exp, want->n, sizeof(exp[0]), cmp_u32);
	same = same && !memcmp(got, exp, g->n * sizeof(got[0]));
	if (!same && log) {
		log_ids("expected", exp, want->n);
		log_ids("dumped", got, g->n);
		for (int i = 0; i < g->n; i++)
			if (g->rec[i].aggr != aggr)
				fprintf(stderr, "# %u came as aggregate %d, not %d\n",
					g->rec[i].id, g->rec[i].aggr, aggr);
	}
	return same;
}

/* Whether @s holds @id. */
bool has_id(const struct ids *s, uint32_t id)
{
	for (int i = 0; i < s->n; i++)
		if (s->id[i] == id)
			return true;
	return false;
}

/* Whether @g holds a record of @id. */
bool has_rec(const struct recs *g, uint32_t id)
{
	for (int i = 0; i < g->n; i++)
		if (g->rec[i].id == id)
			return true;
	return false;
}

/* The ids another process dumped, as records of type @aggr. */
void as_recs(struct recs *g, const uint32_t *id, int n, int aggr)
{
	memset(g, 0, sizeof(*g));
	for (int i = 0; i < n && i < MAX_IDS; i++) {
		g->rec[i].id = id[i];
		g->rec[i].aggr = aggr;
		g->n++;
	}
}

/* The kid of @kids whose thread @tid is, or NULL. */
const struct kid *kid_of(struct kid *const *kids, int n, uint32_t tid)
{
	for (int i = 0; i < n; i++)
		for (int j = 0; j < kids[i]->n; j++)
			if ((uint32_t)kids[i]->tid[j] == tid)
				return kids[i];
	return NULL;
}

/* --------------------------------------------------------------- dumps */

/*
 * Whether a test that dumps in a loop since @t0 dumps again: 20 times at
 * least, then while under @most dumps and @secs seconds.
 */
bool dump_more(int dumps, int most, int secs, const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return dumps < 20 || (dumps < most && t.tv_sec - t0->tv_sec < secs);
}

/* A socket for one dump, read part by part, that fails rather than hang. */
int dump_socket(void)
{
	struct timeval tv = { .tv_sec = WAIT_MS / 1000 };
	int fd = tsnl_open(), err;

	if (fd >= 0 && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv))) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* Sends the request of a dump of the cgroup @fd on @nl, numbered *@seq. */
int dump_start(struct world *w, int nl, int fd, uint32_t *seq)
{
	struct tsnl_msg m;

	tsnl_msg_init(&m, w->family, TASKSTATS_CMD_GET, NLM_F_DUMP);
	tsnl_put_u32(&m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, fd);
	*seq = m.nlh.nlmsg_seq;
	return tsnl_send(nl, &m);
}

/*
 * Reads the dump of request @seq on @nl to its end, keeping its records
 * in @g: how many came, or the dump's -errno.
 */
int dump_rest(int nl, uint32_t seq, struct recs *g)
{
	int n, records = 0;
	bool done = false;

	while (!done) {
		n = tsnl_dump_part(nl, seq, keep, g, NULL, &done);
		if (n < 0)
			return n;
		records += n;
	}
	return records;
}

/* @n sleepers without threads in @cgroup, their pids added to @ids. */
int sleepers(struct world *w, const char *cgroup, int n, struct ids *ids)
{
	struct kid *k;
	int err;

	for (int i = 0; i < n; i++) {
		err = sleeper(w, cgroup, 0, &k);
		if (err)
			return err;
		add_tids(ids, k);
	}
	return 0;
}

/* The nr_dying_descendants of the cgroup @dir, or -errno. */
int dying_descendants(const char *dir)
{
	static const char key[] = "nr_dying_descendants ";
	char path[PATH_BUF + 16], buf[4096], *p;
	int n;

	snprintf(path, sizeof(path), "%s/cgroup.stat", dir);
	n = ts_read_file(path, buf, sizeof(buf));
	if (n < 0)
		return n;
	p = strstr(buf, key);
	return p ? atoi(p + strlen(key)) : -ENOENT;
}

/* Removes the empty cgroup @dir, waiting at most WAIT_MS for it to empty. */
int remove_empty(const char *dir)
{
	for (int ms = 0; ms < WAIT_MS; ms++) {
		if (!rmdir(dir))
			return 0;
		if (errno != EBUSY)
			return -errno;
		usleep(1000);
	}
	return -EBUSY;
}

/* ---------------------------------------------------------------- access */

static bool proc_io_readable(pid_t pid)
{
	char path[64], buf[512];

	snprintf(path, sizeof(path), "/proc/%d/io", pid);
	return ts_read_file(path, buf, sizeof(buf)) > 0;
}

/*
 * For a test's child that reports through a pipe: dumps the cgroup @fd by
 * pid and by tgid, the results in *@n and *@tgid_n, the ids in @id and
 * @tgid (MAX_IDS each).
 */
static void dump_both(int nl, uint16_t family, int fd, int *n, uint32_t *id,
		      int *tgid_n, uint32_t *tgid)
{
	*n = tsnl_dump_cgroup(nl, family, fd, 0, keep, &got);
	for (int i = 0; i < got.n && i < MAX_IDS; i++)
		id[i] = got.rec[i].id;
	got.n = 0;
	*tgid_n = tsnl_dump_cgroup(nl, family, fd, TSNL_DUMP_TGID, keep, &got);
	for (int i = 0; i < got.n && i < MAX_IDS; i++)
		tgid[i] = got.rec[i].id;
}

/* User A's dump of the test's cgroup, from a child: see cgroup_dumps.h. */
void dump_as_a(struct world *w, pid_t own, pid_t roots, int out)
{
	static struct seen_by_a s;
	uint16_t family;
	int fd, nl;

	close(w->hold[1]);
	become(UID_A);
	s.own_io = proc_io_readable(own);
	s.root_io = proc_io_readable(roots);
	fd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s.open_err = fd < 0 ? -errno : 0;
	nl = tsnl_open();
	if (fd < 0 || nl < 0 || tsnl_family(nl, TASKSTATS_GENL_NAME, &family)) {
		s.n = -EIO;
		s.tgid_n = -EIO;
	} else {
		dump_both(nl, family, fd, &s.n, s.id, &s.tgid_n, s.tgid);
	}
	_exit(write(out, &s, sizeof(s)) == sizeof(s) ? 0 : 1);
}

/*
 * The ids of a cgroup file listing pids, as the reader's pid namespace
 * names them: those of tasks outside it read as 0, counted in *@hidden.
 */
static void read_cgroup_ids(int dirfd, const char *file, struct ids *s, int *hidden)
{
	char buf[4096], *line, *save;
	int fd = openat(dirfd, file, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	s->n = 0;
	*hidden = 0;
	if (n < 0) {
		*hidden = -1;
		return;
	}
	buf[n] = '\0';
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (atoi(line))
			add_id(s, atoi(line));
		else
			(*hidden)++;
	}
}

/*
 * Joins the test's cgroup, opens it and makes a container (user A's user
 * and pid namespaces, see container_pid1()) whose pid 1 forks a child,
 * then reads the cgroup's files and dumps it through the fd opened
 * outside. Writes what pid 1 saw to @out.
 */
void dump_in_a_container(struct world *w, int out)
{
	static struct seen_in_container s;
	uint16_t family = 0;
	int fd, nl = -1;
	pid_t kid;

	close(w->hold[1]);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	fd = open(w->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	s.err = fd < 0 ? -errno : container_pid1(w->dir);
	if (!s.err) {		/* pid 1 */
		kid = fork();
		if (kid == 0)
			for (;;)
				pause();
		nl = tsnl_open();
		if (kid < 0 || nl < 0 || tsnl_family(nl, TASKSTATS_GENL_NAME, &family))
			s.err = -EIO;
	}
	if (!s.err) {
		read_cgroup_ids(fd, "cgroup.threads", &s.threads, &s.hidden_threads);
		read_cgroup_ids(fd, "cgroup.procs", &s.procs, &s.hidden_procs);
		dump_both(nl, family, fd, &s.n, s.id, &s.tgid_n, s.tgid);
	}
	/* Pid 1's exit takes its child along. */
	_exit(write(out, &s, sizeof(s)) == sizeof(s) ? 0 : 1);
}
