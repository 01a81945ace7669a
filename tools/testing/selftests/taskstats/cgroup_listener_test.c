// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup v2 ids on records (TASKSTATS_CMD_ATTR_CGROUP_ID) and listeners of
 * one cgroup (REGISTER_CPUMASK with DUMP_CGROUP_FD, DUMP_SUBTREE).
 *
 * The ground truth of an id is the file handle of the cgroup's directory
 * (name_to_handle_at(): the kernfs id, which the kernel calls the cgroup
 * id), of the directory the test put the task in, or the one
 * /proc/PID/cgroup names. The tasks are the test's own, in cgroups it made
 * (cgroup_world.h): a cgroup listener must hear exactly their exits, as
 * no one else runs there, and records are queued before their task can
 * be reaped, so that once the test reaped its children, what a listener
 * has queued is all it will ever hear of them.
 *
 * A kernel without the feature (6.12's own, and the series before it)
 * has no attribute 8 in its GET policy and ignores it, as it ignores
 * DUMP_CGROUP_FD on a registration: there the tests skip, with
 * TS_NO_CGROUP_IDS, but for the one that the probe says so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "agent.h"
#include "cgroup_fixture.h"
#include "cgroup_world.h"
#include "janitor.h"
#include "tsnl.h"

#define EXITS		4	/* children that exit in each cgroup */
#define MAX_HEARD	64

#define SKIP_NO_IDS	TS_NO_CGROUP_IDS "no TASKSTATS_CMD_ATTR_CGROUP_ID in the GET policy"

/* ------------------------------------------------------------ ground truth */

/*
 * Whether an AGGR nest is as it always was, an id (PID or TGID) of 4
 * bytes, maybe the NULL pad, STATS as long as struct taskstats, and
 * nothing else, or with @cgroup_id that, then a 12-byte CGROUP_ID.
 */
static bool shape_is(const struct tsnl_shape *s, int id_type, bool cgroup_id)
{
	bool pad = s->n > 1 && s->type[1] == TASKSTATS_TYPE_NULL;
	int n = 0, len = NLA_HDRLEN + NLA_HDRLEN + 4 + NLA_HDRLEN + sizeof(struct taskstats);

	len += pad ? NLA_HDRLEN : 0;
	len += cgroup_id ? NLA_HDRLEN + 8 : 0;
	if (s->len != len || s->n != 2 + pad + cgroup_id || s->type[n++] != id_type)
		return false;
	if (pad)
		n++;
	if (s->type[n++] != TASKSTATS_TYPE_STATS)
		return false;
	return !cgroup_id || s->type[n] == TASKSTATS_TYPE_CGROUP_ID;
}

/* What a nest that is not shape_is() is like. */
static void shape_log(struct __test_metadata *_metadata, const struct tsnl_shape *s)
{
	TH_LOG("a nest of %d bytes and %d attributes, the first %d then %d",
	       s->len, s->n, s->type[0], s->type[1]);
}

/* ----------------------------------------------------------- their tasks */

/* Moves the process @pid into @cgroup (its cgroup.procs): 0 or -errno. */
static int move_to(const char *cgroup, pid_t pid)
{
	char path[PATH_BUF + 16], buf[16];

	snprintf(path, sizeof(path), "%s/cgroup.procs", cgroup);
	snprintf(buf, sizeof(buf), "%d", pid);
	return ts_write_file(path, buf);
}

/* Moves us into @cgroup: 0 or -errno. */
static int join(const char *cgroup)
{
	return move_to(cgroup, getpid());
}

static void *park(void *arg)
{
	for (;;)
		pause();
	return NULL;
}

/*
 * A child that joins @first, then @then if not NULL, makes a thread if
 * @thread (then its exit is a group's, with its group's record), and
 * exits; reaped. Return: its pid, or -1.
 */
static pid_t exit_in(const char *first, const char *then, bool thread)
{
	pthread_t t;
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (join(first) || (then && join(then)))
			_exit(1);
		if (thread && pthread_create(&t, NULL, park, NULL))
			_exit(1);
		_exit(0);	/* exit_group: the thread too */
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status))
		return -1;
	return pid;
}

/*
 * What a listener heard: the PID record of each exit message, in order,
 * and the message that held the record of one group.
 */
struct heard {
	int n;
	int messages;
	uint32_t pid[MAX_HEARD];
	bool have_id[MAX_HEARD];
	uint64_t id[MAX_HEARD];
	uint32_t tgid;			/* the group */
	struct tsnl_exit group;		/* its message with its TGID record */
	bool have_group;
};

static void note_exit(const struct tsnl_exit *e, void *arg)
{
	struct heard *h = arg;

	if (e->have_tgid && e->tgid == h->tgid) {
		h->group = *e;
		h->have_group = true;
	}
	if (!e->have_pid || h->n == MAX_HEARD)
		return;
	h->pid[h->n] = e->pid;
	h->have_id[h->n] = e->pid_more.have_cgroup_id;
	h->id[h->n] = e->pid_more.cgroup_id;
	h->n++;
}

/* Everything queued on the listener @fd, and the message of @group's end. */
static void drain(int fd, struct heard *h, pid_t group)
{
	memset(h, 0, sizeof(*h));
	h->tgid = group;
	h->messages = tsnl_drain(fd, note_exit, h);
}

/* The index of @pid among what was heard, or -1. */
static int heard_at(const struct heard *h, pid_t pid)
{
	for (int i = 0; i < h->n; i++)
		if (h->pid[i] == (uint32_t)pid)
			return i;
	return -1;
}

/* -------------------------------------------------------- records' ids */

/*
 * The world of a test of ids and of listeners: the test's cgroup, with a
 * cgroup l under it, l/c under that and a sibling s of l.
 */
struct tree {
	char l[PATH_BUF + 8];
	char c[PATH_BUF + 16];
	char s[PATH_BUF + 8];
	int lfd;
	uint64_t l_id, c_id, s_id;
};

/* False if the test is skipped or failed. */
static bool tree_setup(struct __test_metadata *_metadata, struct world *w,
		       struct tree *t)
{
	t->lfd = -1;
	if (!world_setup(_metadata, w))
		return false;
	if (!ts_kernel_cgroup_ids())
		SKIP(return false, SKIP_NO_IDS);
	snprintf(t->l, sizeof(t->l), "%s/l", w->dir);
	snprintf(t->c, sizeof(t->c), "%s/c", t->l);
	snprintf(t->s, sizeof(t->s), "%s/s", w->dir);
	ASSERT_EQ(0, ts_mess_cgroup(w->mess, t->l));
	ASSERT_EQ(0, ts_mess_cgroup(w->mess, t->c));
	ASSERT_EQ(0, ts_mess_cgroup(w->mess, t->s));
	t->lfd = open(t->l, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, t->lfd);
	t->l_id = ts_cgroup_id_of(t->l);
	t->c_id = ts_cgroup_id_of(t->c);
	t->s_id = ts_cgroup_id_of(t->s);
	ASSERT_NE((uint64_t)0, t->l_id) TH_LOG("no cgroup id for %s", t->l);
	ASSERT_NE(t->l_id, t->c_id);
	ASSERT_NE(t->l_id, t->s_id);
	return true;
}

static void tree_teardown(struct world *w, struct tree *t)
{
	if (t->lfd >= 0)
		close(t->lfd);
	world_teardown(w);
}

FIXTURE(ids) {
	struct world w;
	struct tree t;
	char buf[TSNL_BUF_SIZE];
};

FIXTURE_SETUP(ids)
{
	tree_setup(_metadata, &self->w, &self->t);
}

FIXTURE_TEARDOWN(ids)
{
	tree_teardown(&self->w, &self->t);
}

/* A GET of @id with the TSNL_* @flags, on the world's socket. */
static int get(struct _test_data_ids *self, int attr, pid_t id, int flags,
	       struct tsnl_reply *r)
{
	struct taskstats ts;

	return tsnl_get_flags(self->w.nl, self->w.family, attr, id, flags, &ts, r,
			      self->buf);
}

TEST_F(ids, get_by_pid_with_the_flag_carries_the_id_of_the_tasks_cgroup_after_stats)
{
	struct tsnl_reply r;
	struct kid *k;

	ASSERT_EQ(0, sleeper(&self->w, self->t.l, 0, &k));
	ASSERT_EQ(0, get(self, TASKSTATS_CMD_ATTR_PID, k->pid, TSNL_CGROUP_ID, &r));
	EXPECT_EQ(TASKSTATS_TYPE_AGGR_PID, r.aggr_type);
	ASSERT_TRUE(r.have_cgroup_id);
	EXPECT_EQ(self->t.l_id, r.cgroup_id);
	EXPECT_TRUE(shape_is(&r.shape, TASKSTATS_TYPE_PID, true)) shape_log(_metadata, &r.shape);
}

/*
 * A threaded cgroup: a process in l (a domain that becomes threaded root)
 * whose thread is moved to l/c (made threaded), so that its group and its
 * thread have cgroups of their own.
 */
static struct kid *threaded_kid(struct __test_metadata *_metadata,
				struct _test_data_ids *self)
{
	char path[PATH_BUF + 32], tid[16];
	struct kid *k;

	snprintf(path, sizeof(path), "%s/cgroup.type", self->t.c);
	ASSERT_EQ(0, ts_write_file(path, "threaded"));
	ASSERT_EQ(0, sleeper(&self->w, self->t.l, 1, &k));
	snprintf(path, sizeof(path), "%s/cgroup.threads", self->t.c);
	snprintf(tid, sizeof(tid), "%d", k->tid[1]);
	ASSERT_EQ(0, ts_write_file(path, tid));
	ASSERT_EQ(self->t.c_id, ts_task_cgroup_id(cgroup_root, k->tid[1]));
	return k;
}

TEST_F(ids, get_by_pid_of_a_thread_carries_the_threads_own_cgroup)
{
	struct kid *k = threaded_kid(_metadata, self);
	struct tsnl_reply r;

	ASSERT_EQ(0, get(self, TASKSTATS_CMD_ATTR_PID, k->tid[1], TSNL_CGROUP_ID, &r));
	ASSERT_TRUE(r.have_cgroup_id);
	EXPECT_EQ(self->t.c_id, r.cgroup_id);
}

TEST_F(ids, get_by_tgid_carries_the_leaders_cgroup_not_a_threads)
{
	struct kid *k = threaded_kid(_metadata, self);
	struct tsnl_reply r;

	ASSERT_EQ(0, get(self, TASKSTATS_CMD_ATTR_TGID, k->pid, TSNL_CGROUP_ID, &r));
	EXPECT_EQ(TASKSTATS_TYPE_AGGR_TGID, r.aggr_type);
	ASSERT_TRUE(r.have_cgroup_id);
	EXPECT_EQ(self->t.l_id, r.cgroup_id);
	EXPECT_TRUE(shape_is(&r.shape, TASKSTATS_TYPE_TGID, true)) shape_log(_metadata, &r.shape);
}

TEST_F(ids, get_without_the_flag_has_no_cgroup_id_and_the_shape_it_always_had)
{
	struct tsnl_reply r;
	struct kid *k;

	ASSERT_EQ(0, sleeper(&self->w, self->t.l, 1, &k));
	ASSERT_EQ(0, get(self, TASKSTATS_CMD_ATTR_PID, k->pid, 0, &r));
	EXPECT_FALSE(r.have_cgroup_id);
	EXPECT_TRUE(shape_is(&r.shape, TASKSTATS_TYPE_PID, false)) shape_log(_metadata, &r.shape);
	ASSERT_EQ(0, get(self, TASKSTATS_CMD_ATTR_TGID, k->pid, 0, &r));
	EXPECT_FALSE(r.have_cgroup_id);
	EXPECT_TRUE(shape_is(&r.shape, TASKSTATS_TYPE_TGID, false)) shape_log(_metadata, &r.shape);
}

/* What a dump's records were like: see check_record(). */
struct dump_check {
	bool flag;		/* the dump asked for ids */
	int records;
	int bad_shape;		/* not shape_is() */
	int with_id;		/* carrying CGROUP_ID */
	int checked;		/* whose task still had a /proc/PID/cgroup */
	int wrong;		/* of those, with another id */
	uint32_t first_wrong;
};

static void check_record(uint32_t id, int aggr, const struct taskstats *ts, void *arg)
{
	const struct tsnl_reply *r = tsnl_dump_record();
	struct dump_check *c = arg;
	uint64_t want;

	c->records++;
	c->bad_shape += !shape_is(&r->shape, aggr == TASKSTATS_TYPE_AGGR_PID ?
				  TASKSTATS_TYPE_PID : TASKSTATS_TYPE_TGID, c->flag);
	if (!r->have_cgroup_id)
		return;
	c->with_id++;
	/* A TGID record's is the leader's: /proc/TGID/cgroup. */
	want = ts_task_cgroup_id(cgroup_root, id);
	if (!want)
		return;		/* it exited since */
	c->checked++;
	if (want != r->cgroup_id && !c->wrong++)
		c->first_wrong = id;
}

FIXTURE(dump_ids) {
	struct world w;
	struct tree t;
};

FIXTURE_VARIANT(dump_ids) {
	int flags;		/* TSNL_DUMP_TGID, TSNL_DUMP_SUBTREE */
	bool cgroup;		/* a dump of the test's cgroup (DUMP_CGROUP_FD) */
};

FIXTURE_VARIANT_ADD(dump_ids, of_every_task) {
};

FIXTURE_VARIANT_ADD(dump_ids, of_every_thread_group) {
	.flags = TSNL_DUMP_TGID,
};

FIXTURE_VARIANT_ADD(dump_ids, of_a_cgroup_subtree) {
	.flags = TSNL_DUMP_SUBTREE, .cgroup = true,
};

FIXTURE_VARIANT_ADD(dump_ids, of_a_cgroup_subtree_by_thread_group) {
	.flags = TSNL_DUMP_SUBTREE | TSNL_DUMP_TGID, .cgroup = true,
};

FIXTURE_SETUP(dump_ids)
{
	struct kid *k;

	if (!tree_setup(_metadata, &self->w, &self->t))
		return;
	/* Tasks of ours in three cgroups, so that ids differ among records. */
	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 1, &k));
	ASSERT_EQ(0, sleeper(&self->w, self->t.l, 2, &k));
	ASSERT_EQ(0, sleeper(&self->w, self->t.c, 0, &k));
}

FIXTURE_TEARDOWN(dump_ids)
{
	tree_teardown(&self->w, &self->t);
}

/* A dump with @flags (and the variant's) into @c: its number of records. */
static int dump_checked(struct _test_data_dump_ids *self,
			const struct _fixture_variant_dump_ids *variant,
			int flags, struct dump_check *c)
{
	int fd = variant->cgroup ? self->w.dirfd : -1;

	memset(c, 0, sizeof(*c));
	c->flag = flags & TSNL_CGROUP_ID;
	return tsnl_dump_cgroup(self->w.nl, self->w.family, fd, variant->flags | flags,
				check_record, c);
}

TEST_F(dump_ids, with_the_flag_each_record_carries_its_tasks_cgroup_id)
{
	struct dump_check c;

	ASSERT_LT(0, dump_checked(self, variant, TSNL_CGROUP_ID, &c));
	EXPECT_EQ(0, c.bad_shape);
	EXPECT_EQ(c.records, c.with_id);
	EXPECT_LT(0, c.checked);
	EXPECT_EQ(0, c.wrong) TH_LOG("%d of %d records had another cgroup, the first of %u",
				     c.wrong, c.checked, c.first_wrong);
}

TEST_F(dump_ids, without_the_flag_no_record_carries_a_cgroup_id)
{
	struct dump_check c;

	ASSERT_LT(0, dump_checked(self, variant, 0, &c));
	EXPECT_EQ(0, c.with_id);
	EXPECT_EQ(0, c.bad_shape);
}

/* ------------------------------------------------------------ listeners */

/*
 * The setup of the fixtures that register a socket: the tree, and @fd, a
 * socket to register for @cpus, every possible CPU (-1 until it is open).
 */
static void sock_setup(struct __test_metadata *_metadata, struct world *w,
		       struct tree *t, int *fd, char *cpus, int size)
{
	*fd = -1;
	if (!tree_setup(_metadata, w, t))
		return;
	*fd = tsnl_open();
	ASSERT_LE(0, *fd);
	ts_possible_cpus(cpus, size);
}

static void sock_teardown(struct world *w, struct tree *t, int fd)
{
	if (fd >= 0)
		close(fd);
	tree_teardown(w, t);
}

FIXTURE(listener) {
	struct world w;
	struct tree t;
	int fd;			/* the listener under test */
	char cpus[256];		/* every possible CPU */
	struct heard h;
};

FIXTURE_SETUP(listener)
{
	sock_setup(_metadata, &self->w, &self->t, &self->fd, self->cpus,
		   sizeof(self->cpus));
}

FIXTURE_TEARDOWN(listener)
{
	sock_teardown(&self->w, &self->t, self->fd);
}

/* Registers the listener for the cgroup @cgroup_fd on every CPU. */
static int listen_to(struct _test_data_listener *self, int cgroup_fd, int flags)
{
	return tsnl_register(self->fd, self->w.family, self->cpus, cgroup_fd, flags);
}

/* The pids of the children run_everywhere() made, by cgroup. */
struct everywhere {
	pid_t l[EXITS], c[EXITS], s[EXITS], top[EXITS];
};

/* EXITS children exit in each of l, l/c, s and the test's cgroup. */
static void run_everywhere(struct __test_metadata *_metadata,
			   struct _test_data_listener *self, struct everywhere *e)
{
	for (int i = 0; i < EXITS; i++) {
		e->l[i] = exit_in(self->t.l, NULL, false);
		e->c[i] = exit_in(self->t.c, NULL, false);
		e->s[i] = exit_in(self->t.s, NULL, false);
		e->top[i] = exit_in(self->w.dir, NULL, false);
		ASSERT_LT(0, e->l[i]);
		ASSERT_LT(0, e->c[i]);
		ASSERT_LT(0, e->s[i]);
		ASSERT_LT(0, e->top[i]);
	}
	drain(self->fd, &self->h, 0);
}

/* Expects each of @pids heard once, with @id if not 0. */
static void expect_heard(struct __test_metadata *_metadata, const struct heard *h,
			 const pid_t *pids, uint64_t id)
{
	for (int i = 0; i < EXITS; i++) {
		int at = heard_at(h, pids[i]);

		EXPECT_LE(0, at) TH_LOG("the exit of %d was not heard", pids[i]);
		if (at < 0 || !id)
			continue;
		EXPECT_TRUE(h->have_id[at]);
		EXPECT_EQ(id, h->id[at]);
	}
}

TEST_F(listener, a_cgroup_listener_hears_exactly_its_cgroups_exits_not_its_childrens)
{
	struct everywhere e;

	ASSERT_EQ(0, listen_to(self, self->t.lfd, 0));
	run_everywhere(_metadata, self, &e);
	expect_heard(_metadata, &self->h, e.l, 0);
	EXPECT_EQ(EXITS, self->h.messages);
	for (int i = 0; i < self->h.n; i++)
		EXPECT_FALSE(self->h.have_id[i]);
}

TEST_F(listener, a_subtree_listener_hears_exactly_the_exits_of_its_cgroup_and_descendants)
{
	struct everywhere e;

	ASSERT_EQ(0, listen_to(self, self->t.lfd, TSNL_DUMP_SUBTREE));
	run_everywhere(_metadata, self, &e);
	expect_heard(_metadata, &self->h, e.l, 0);
	expect_heard(_metadata, &self->h, e.c, 0);
	EXPECT_EQ(2 * EXITS, self->h.messages);
}

TEST_F(listener, each_exit_record_carries_the_id_of_the_cgroup_its_task_exited_in)
{
	struct everywhere e;

	ASSERT_EQ(0, listen_to(self, self->t.lfd, TSNL_DUMP_SUBTREE | TSNL_CGROUP_ID));
	run_everywhere(_metadata, self, &e);
	expect_heard(_metadata, &self->h, e.l, self->t.l_id);
	expect_heard(_metadata, &self->h, e.c, self->t.c_id);
	EXPECT_EQ(2 * EXITS, self->h.messages);
}

TEST_F(listener, a_task_is_heard_by_the_cgroup_it_exits_in_not_the_one_it_started_in)
{
	pid_t came, left;
	int at;

	ASSERT_EQ(0, listen_to(self, self->t.lfd, TSNL_CGROUP_ID));
	came = exit_in(self->t.s, self->t.l, false);
	left = exit_in(self->t.l, self->t.s, false);
	ASSERT_LT(0, came);
	ASSERT_LT(0, left);
	drain(self->fd, &self->h, 0);
	at = heard_at(&self->h, came);
	ASSERT_LE(0, at);
	EXPECT_EQ(self->t.l_id, self->h.id[at]);
	EXPECT_EQ(-1, heard_at(&self->h, left));
	EXPECT_EQ(1, self->h.messages);
}

/*
 * The last thread of a group sends both records in one message; each
 * carries the id, as each thread's own message does.
 */
TEST_F(listener, both_records_of_a_groups_last_exit_carry_the_cgroup_id)
{
	const struct tsnl_exit *g = &self->h.group;
	pid_t pid;

	ASSERT_EQ(0, listen_to(self, self->t.lfd, TSNL_CGROUP_ID));
	pid = exit_in(self->t.l, NULL, true);
	ASSERT_LT(0, pid);
	drain(self->fd, &self->h, pid);
	EXPECT_EQ(2, self->h.n);
	for (int i = 0; i < self->h.n; i++)
		EXPECT_EQ(self->t.l_id, self->h.id[i]);
	ASSERT_TRUE(self->h.have_group);
	ASSERT_TRUE(g->tgid_more.have_cgroup_id);
	EXPECT_EQ(self->t.l_id, g->tgid_more.cgroup_id);
	ASSERT_TRUE(g->pid_more.have_cgroup_id);
	EXPECT_EQ(self->t.l_id, g->pid_more.cgroup_id);
	EXPECT_TRUE(shape_is(&g->tgid_more.shape, TASKSTATS_TYPE_TGID, true))
		shape_log(_metadata, &g->tgid_more.shape);
}

TEST_F(listener, exit_records_without_the_flag_have_no_cgroup_id_and_their_old_shape)
{
	const struct tsnl_exit *g = &self->h.group;
	pid_t pid;

	ASSERT_EQ(0, ts_register_all(self->fd, self->w.family, self->cpus, sizeof(self->cpus)));
	pid = exit_in(self->t.l, NULL, true);
	ASSERT_LT(0, pid);
	drain(self->fd, &self->h, pid);
	/* Everyone's exits: the group's message is the one with its record. */
	ASSERT_TRUE(self->h.have_group);
	EXPECT_FALSE(g->pid_more.have_cgroup_id);
	EXPECT_FALSE(g->tgid_more.have_cgroup_id);
	EXPECT_TRUE(shape_is(&g->pid_more.shape, TASKSTATS_TYPE_PID, false))
		shape_log(_metadata, &g->pid_more.shape);
	EXPECT_TRUE(shape_is(&g->tgid_more.shape, TASKSTATS_TYPE_TGID, false))
		shape_log(_metadata, &g->tgid_more.shape);
}

/* Registering for the CPUs it has and then some, with the same filter. */
TEST_F(listener, the_same_filter_on_more_cpus_registers_again)
{
	struct everywhere e;

	ASSERT_EQ(0, tsnl_register(self->fd, self->w.family, "0", self->t.lfd, 0));
	EXPECT_EQ(0, tsnl_register(self->fd, self->w.family, "0", self->t.lfd, 0));
	EXPECT_EQ(0, listen_to(self, self->t.lfd, 0));
	run_everywhere(_metadata, self, &e);
	expect_heard(_metadata, &self->h, e.l, 0);
	EXPECT_EQ(EXITS, self->h.messages);
}

/*
 * The listener keeps the id, not the cgroup: its cgroup can be removed,
 * and a new one made at the same path is another.
 */
TEST_F(listener, a_removed_cgroups_listener_hears_nothing_more)
{
	char path[PATH_BUF + 8];
	struct everywhere e;
	int fd;

	snprintf(path, sizeof(path), "%s/gone", self->w.dir);
	ASSERT_EQ(0, ts_mess_cgroup(self->w.mess, path));
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, listen_to(self, fd, TSNL_DUMP_SUBTREE));
	close(fd);
	ASSERT_EQ(0, rmdir(path));
	ASSERT_EQ(0, mkdir(path, 0755));
	ASSERT_LT(0, exit_in(path, NULL, false));
	run_everywhere(_metadata, self, &e);
	EXPECT_EQ(0, self->h.messages);
	EXPECT_EQ(0, close(self->fd));
	self->fd = -1;
}

TEST_F(listener, a_cgroup_v1_directory_is_eopnotsupp_and_registers_nothing)
{
	char sub[PATH_BUF + 8];
	int fd;

	if (!v1_cgroup(_metadata, &self->w, sub, sizeof(sub)))
		return;
	fd = open(sub, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EOPNOTSUPP, listen_to(self, fd, 0));
	close(fd);
	ASSERT_LT(0, exit_in(self->t.l, NULL, false));
	drain(self->fd, &self->h, 0);
	EXPECT_EQ(0, self->h.messages);
}

/* ------------------------------------------------- refused registrations */

FIXTURE(register_error) {
	struct world w;
	struct tree t;
	int fd;
	char cpus[256];
	struct heard h;
};

FIXTURE_VARIANT(register_error) {
	enum target target;
	int err;
};

FIXTURE_VARIANT_ADD(register_error, of_a_closed_fd) {
	.target = CLOSED_FD, .err = -EBADF,
};

FIXTURE_VARIANT_ADD(register_error, of_an_o_path_fd) {
	.target = O_PATH_FD, .err = -EBADF,
};

FIXTURE_VARIANT_ADD(register_error, of_a_regular_file) {
	.target = REGULAR_FILE, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(register_error, of_a_directory_outside_cgroupfs) {
	.target = OTHER_DIR, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(register_error, of_a_cgroup_control_file) {
	.target = CONTROL_FILE, .err = -EINVAL,
};

FIXTURE_VARIANT_ADD(register_error, of_a_removed_cgroup) {
	.target = REMOVED, .err = -ENOENT,
};

FIXTURE_VARIANT_ADD(register_error, of_the_subtree_flag_without_a_cgroup) {
	.target = SUBTREE_ALONE, .err = -EINVAL,
};

FIXTURE_SETUP(register_error)
{
	sock_setup(_metadata, &self->w, &self->t, &self->fd, self->cpus,
		   sizeof(self->cpus));
}

FIXTURE_TEARDOWN(register_error)
{
	sock_teardown(&self->w, &self->t, self->fd);
}

/*
 * A kernel that ignored the filter would have registered the socket for
 * every exit: after the error, it must hear none, here or anywhere.
 */
TEST_F(register_error, is_the_documented_errno_and_registers_nothing)
{
	int flags = variant->target == SUBTREE_ALONE ? TSNL_DUMP_SUBTREE : 0;
	bool close_it;
	int fd, err;

	fd = target_fd(_metadata, &self->w, variant->target, &close_it);
	err = tsnl_register(self->fd, self->w.family, self->cpus, fd, flags);
	if (close_it)
		close(fd);
	EXPECT_EQ(variant->err, err) TH_LOG("expected %s, got %s", strerror(-variant->err),
					    strerror(-err));
	ASSERT_LT(0, exit_in(self->t.l, NULL, false));
	ASSERT_LT(0, exit_in(self->w.dir, NULL, false));
	drain(self->fd, &self->h, 0);
	EXPECT_EQ(0, self->h.messages);
}

/* A socket listens with the filter of its first registration. */
FIXTURE(reregister) {
	struct world w;
	struct tree t;
	int fd;
	char cpus[256];
	struct heard h;
};

enum filter_target { NONE, L, S };

FIXTURE_VARIANT(reregister) {
	enum filter_target first, then;
	int first_flags, then_flags;
};

FIXTURE_VARIANT_ADD(reregister, to_another_cgroup) {
	.first = L, .then = S,
};

FIXTURE_VARIANT_ADD(reregister, with_the_subtree_flag_added) {
	.first = L, .then = L, .then_flags = TSNL_DUMP_SUBTREE,
};

FIXTURE_VARIANT_ADD(reregister, with_the_subtree_flag_dropped) {
	.first = L, .first_flags = TSNL_DUMP_SUBTREE, .then = L,
};

FIXTURE_VARIANT_ADD(reregister, with_the_cgroup_id_flag_added) {
	.first = L, .then = L, .then_flags = TSNL_CGROUP_ID,
};

FIXTURE_VARIANT_ADD(reregister, with_the_cgroup_id_flag_dropped) {
	.first = NONE, .first_flags = TSNL_CGROUP_ID, .then = NONE,
};

FIXTURE_VARIANT_ADD(reregister, without_the_cgroup_of_a_cgroup_listener) {
	.first = L, .then = NONE,
};

FIXTURE_VARIANT_ADD(reregister, with_a_cgroup_on_a_listener_of_every_exit) {
	.first = NONE, .then = L,
};

FIXTURE_SETUP(reregister)
{
	sock_setup(_metadata, &self->w, &self->t, &self->fd, self->cpus,
		   sizeof(self->cpus));
}

FIXTURE_TEARDOWN(reregister)
{
	sock_teardown(&self->w, &self->t, self->fd);
}

/* A registration for @target (no fd for NONE) with @flags. */
static int register_for(struct _test_data_reregister *self, enum filter_target target,
			int flags)
{
	const char *path = target == L ? self->t.l : self->t.s;
	int fd = -1, err;

	if (target != NONE) {
		fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
	}
	err = tsnl_register(self->fd, self->w.family, self->cpus, fd, flags);
	if (fd >= 0)
		close(fd);
	return err;
}

TEST_F(reregister, with_another_filter_is_ebusy_and_the_first_filter_stays)
{
	pid_t in_l, in_s;

	ASSERT_EQ(0, register_for(self, variant->first, variant->first_flags));
	EXPECT_EQ(-EBUSY, register_for(self, variant->then, variant->then_flags));
	in_l = exit_in(self->t.l, NULL, false);
	in_s = exit_in(self->t.s, NULL, false);
	ASSERT_LT(0, in_l);
	ASSERT_LT(0, in_s);
	drain(self->fd, &self->h, 0);
	EXPECT_LE(0, heard_at(&self->h, in_l));
	EXPECT_EQ(variant->first == NONE, heard_at(&self->h, in_s) >= 0);
	for (int i = 0; i < self->h.n; i++)
		EXPECT_EQ(!!(variant->first_flags & TSNL_CGROUP_ID), self->h.have_id[i]);
}

/* ------------------------------------------------------------ containers */

/*
 * A container's root (user A's user and pid namespaces) listening to the
 * cgroup l, which the host made and hands it by an fd; its tasks, and
 * others, are moved there by the host.
 */
FIXTURE(container) {
	struct world w;
	struct tree t;
	struct agent c, other;
	pid_t init;
	int target;		/* pidfd */
};

FIXTURE_SETUP(container)
{
	int ret;

	self->target = -1;
	if (!tree_setup(_metadata, &self->w, &self->t))
		return;
	ret = agent_start(&self->c, CONTAINER, &self->init);
	if (ret == 4)
		SKIP(return, "cannot create a user namespace");
	ASSERT_EQ(0, ret);
}

FIXTURE_TEARDOWN(container)
{
	target_kill(&self->target);
	agent_stop(&self->other);
	agent_stop(&self->c);
	tree_teardown(&self->w, &self->t);
}

/* @a spawns a target named @name, which the host moves to @cgroup (if any). */
static void spawn_in(struct __test_metadata *_metadata, struct _test_data_container *self,
		     struct agent *a, const char *name, const char *cgroup)
{
	ASSERT_EQ(0, ask(a, OP_SPAWN, 0, name, -1, &self->target));
	ASSERT_LE(0, self->target);
	if (!cgroup)
		return;
	ASSERT_EQ(0, move_to(cgroup, pidfd_local(self->target)));
}

/* Kills the target; then whether the container heard its exit. */
static int kill_heard(struct __test_metadata *_metadata,
		      struct _test_data_container *self, const char *name)
{
	EXPECT_EQ(0, syscall(SYS_pidfd_send_signal, self->target, SIGKILL, NULL, 0));
	return ask(&self->c, OP_HEARD, 0, name, self->target, NULL);
}

TEST_F(container, a_containers_cgroup_listener_hears_its_tasks_there_in_its_own_ids)
{
	pid_t inside;

	ASSERT_EQ(0, ask(&self->c, OP_LISTEN_CGROUP, TSNL_CGROUP_ID, "", self->t.lfd, NULL));
	spawn_in(_metadata, self, &self->c, "ts_cg_own", self->t.l);
	inside = ts_pid_inside(pidfd_local(self->target));
	ASSERT_LT(1, inside);
	ASSERT_EQ(1, kill_heard(_metadata, self, "ts_cg_own"));
	EXPECT_EQ(inside, ask(&self->c, OP_HEARD_IDS, IDS_PID, "", -1, NULL));
	EXPECT_EQ(0, ask(&self->c, OP_HEARD_IDS, IDS_UID, "", -1, NULL));
	if (self->t.l_id > INT32_MAX)
		SKIP(return, "the cgroup id %llu is more than the agent can answer",
		     (unsigned long long)self->t.l_id);
	EXPECT_EQ((int)self->t.l_id, ask(&self->c, OP_HEARD_IDS, IDS_CGROUP, "", -1, NULL));
}

TEST_F(container, a_containers_cgroup_listener_hears_none_of_its_tasks_elsewhere)
{
	ASSERT_EQ(0, ask(&self->c, OP_LISTEN_CGROUP, 0, "", self->t.lfd, NULL));
	spawn_in(_metadata, self, &self->c, "ts_cg_away", self->t.s);
	EXPECT_EQ(0, kill_heard(_metadata, self, "ts_cg_away"));
}

/* A host task: forked here, named @name, exits in @cgroup; its pidfd. */
static int host_exit_in(const char *cgroup, const char *name)
{
	int go[2], pidfd;
	char c;
	pid_t pid;

	if (pipe2(go, O_CLOEXEC))
		return -errno;
	pid = fork();
	if (pid == 0) {
		prctl(PR_SET_NAME, name);
		close(go[1]);
		if (join(cgroup) || read(go[0], &c, 1) < 0)
			_exit(1);
		_exit(0);
	}
	close(go[0]);
	pidfd = pid < 0 ? -errno : syscall(SYS_pidfd_open, pid, 0);
	close(go[1]);		/* now it exits */
	if (pid > 0)
		waitpid(pid, NULL, 0);
	return pidfd;
}

/* The host's fd of a cgroup it runs tasks in: none of them is heard. */
TEST_F(container, a_containers_cgroup_listener_hears_no_host_task_in_that_cgroup)
{
	ASSERT_EQ(0, ask(&self->c, OP_LISTEN_CGROUP, TSNL_DUMP_SUBTREE, "", self->t.lfd, NULL));
	self->target = host_exit_in(self->t.l, "ts_cg_host");
	ASSERT_LE(0, self->target);
	EXPECT_EQ(0, ask(&self->c, OP_HEARD, 0, "ts_cg_host", self->target, NULL));
}

/*
 * The access rule holds under the filter: a host root process that
 * entered the container is a task of its pid namespace, in the cgroup,
 * which the container's root may not read.
 */
TEST_F(container, a_containers_cgroup_listener_hears_no_task_there_it_may_not_read)
{
	ASSERT_EQ(0, agent_start(&self->other, ENTERED, &self->init));
	ASSERT_EQ(0, ask(&self->c, OP_LISTEN_CGROUP, 0, "", self->t.lfd, NULL));
	spawn_in(_metadata, self, &self->other, "ts_cg_entered", self->t.l);
	/* The oracle: /proc hides it from the container's root. */
	ASSERT_EQ(0, ask(&self->c, OP_PROC_IO, 0, "", self->target, NULL));
	EXPECT_EQ(0, kill_heard(_metadata, self, "ts_cg_entered"));
}

/* Listening takes CAP_NET_ADMIN, with a cgroup as without. */
TEST_F(container, a_user_without_cap_net_admin_may_not_listen_to_a_cgroup_either)
{
	pid_t init;

	ASSERT_EQ(0, agent_start(&self->other, HOST_A, &init));
	EXPECT_EQ(-EPERM, ask(&self->other, OP_LISTEN_CGROUP, 0, "", self->t.lfd, NULL));
}

/* ------------------------------------------------------------ the probe */

/*
 * The probe is the policy's word, and the policy tells the truth: a GET
 * that asks for the id gets one exactly on a kernel whose GET policy
 * lists attribute 8. One without ignores the attribute: its record has
 * no id, which is why the tests above skip there.
 */
TEST(a_get_asking_for_the_cgroup_id_gets_one_iff_the_get_policy_lists_it)
{
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_reply r;
	struct taskstats ts;
	uint16_t family;
	int fd = tsnl_open();

	ASSERT_LE(0, fd);
	if (tsnl_family(fd, TASKSTATS_GENL_NAME, &family))
		SKIP(return, "no TASKSTATS family");
	ASSERT_EQ(0, tsnl_get_flags(fd, family, TASKSTATS_CMD_ATTR_PID, getpid(),
				    TSNL_CGROUP_ID, &ts, &r, buf));
	EXPECT_EQ(ts_kernel_cgroup_ids(), r.have_cgroup_id);
	close(fd);
}

TEST_HARNESS_MAIN
