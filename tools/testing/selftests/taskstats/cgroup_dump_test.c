// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup v2: the dump of one cgroup (TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD,
 * with DUMP_TGID and DUMP_SUBTREE). Its errors are cgroup_error_test.c's.
 * Its fixture is named cgroup, as cgroup_test.c's is, and sets up alike.
 *
 * Every test makes a fresh cgroup under the cgroup2 root, puts tasks of its
 * own there (each joins by writing its pid to cgroup.procs, then makes its
 * threads), waits in /proc/PID/stat for the state each must be in, and
 * compares the exact set of ids of a dump with what it did. The world it
 * does so in, and how it is cleaned up, are cgroup_world.h's.
 *
 * Linux 6.12's own implementation cannot dump: on a kernel whose family
 * has no dump, every test skips, saying so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "../kselftest_harness.h"
#include "agent.h"
#include "cgroup_dumps.h"
#include "cgroup_fixture.h"
#include "cgroup_world.h"
#include "janitor.h"
#include "tsnl.h"

#define MANY		150	/* tasks: more records than one part of a dump holds */
#define NEWCOMERS	8

CGROUP_WORLD_FIXTURE;

/* --------------------------------------------------------------- dumps */

TEST_F(cgroup, an_empty_cgroup_dumps_no_record)
{
	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	EXPECT_EQ(0, dump(&self->w, self->w.dirfd, 0, &got));
	EXPECT_EQ(0, dump(&self->w, self->w.dirfd, TSNL_DUMP_TGID, &got));
	EXPECT_EQ(0, dump(&self->w, self->w.dirfd, TSNL_DUMP_SUBTREE, &got));
}

TEST_F_TIMEOUT(cgroup, cgroup_dump_lists_exactly_its_tasks_while_others_fork_and_exit_outside, 60)
{
	static const int threads[] = { 0, 2, 3 };
	struct spec busy = { .cgroup = self->w.dir, .kind = BUSY, .threads = 1 };
	struct ids want = { 0 };
	int dumps = 0, wrong = 0, failed = 0, n;
	unsigned long forks;
	struct timespec t0;
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	for (int i = 0; i < 3; i++) {
		ASSERT_EQ(0, sleeper(&self->w, self->w.dir, threads[i], &k));
		add_tids(&want, k);
	}
	ASSERT_EQ(0, spawn(&self->w, &busy, &k));
	add_tids(&want, k);
	ASSERT_EQ(0, churn_start(&self->w));
	ASSERT_EQ(0, wait_started(&self->w.shared->forks)) TH_LOG("the churner never forked");
	forks = self->w.shared->forks;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = dump(&self->w, self->w.dirfd, 0, &got);
		if (n < 0) {
			if (!failed++)
				TH_LOG("a dump failed: %s", strerror(-n));
		} else if (n != got.n || !same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, !wrong)) {
			wrong++;
		}
	} while (dump_more(++dumps, 500, 3, &t0));
	forks = self->w.shared->forks - forks;
	TH_LOG("%d dumps while %lu tasks forked and exited outside the cgroup", dumps, forks);
	EXPECT_EQ(0, failed);
	EXPECT_EQ(0, wrong) TH_LOG("%d of %d dumps were not the cgroup's tasks", wrong, dumps);
	EXPECT_LT(0UL, forks);
}

TEST_F(cgroup, cgroup_dump_by_tgid_lists_each_process_once_by_its_tgid)
{
	struct spec busy = { .cgroup = self->w.dir, .kind = BUSY, .threads = 2 };
	struct ids want = { 0 };
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 3, &k));
	add_id(&want, k->pid);
	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 0, &k));
	add_id(&want, k->pid);
	ASSERT_EQ(0, spawn(&self->w, &busy, &k));
	add_id(&want, k->pid);
	ASSERT_EQ(3, dump(&self->w, self->w.dirfd, TSNL_DUMP_TGID, &got));
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_TGID, true));
}

/* The cgroups of the subtree tests: the test's, then in pre-order. */
enum { TOP, B, B_C, D, NR_TREE };

static const char * const tree_name[NR_TREE] = { "", "/b", "/b/c", "/d" };

/*
 * One process of two threads in each cgroup of the tree, made in
 * pre-order, or with @reverse from the last cgroup to the first: then
 * the later a cgroup comes in pre-order, the lower its tasks' ids.
 */
static void make_tree(struct __test_metadata *_metadata, struct world *w,
		      char path[NR_TREE][PATH_BUF + 8], struct kid *kid[NR_TREE],
		      bool reverse)
{
	for (int i = 0; i < NR_TREE; i++) {
		snprintf(path[i], PATH_BUF + 8, "%s%s", w->dir, tree_name[i]);
		if (i)
			ASSERT_EQ(0, ts_mess_cgroup(w->mess, path[i]));
	}
	for (int i = 0; i < NR_TREE; i++) {
		int cg = reverse ? NR_TREE - 1 - i : i;

		ASSERT_EQ(0, sleeper(w, path[cg], 1, &kid[cg]));
	}
}

TEST_F(cgroup, cgroup_dump_leaves_out_child_cgroups_without_the_subtree_flag)
{
	char path[NR_TREE][PATH_BUF + 8];
	struct kid *kid[NR_TREE];
	struct ids want = { 0 };

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	make_tree(_metadata, &self->w, path, kid, false);
	add_tids(&want, kid[TOP]);
	ASSERT_EQ(want.n, dump(&self->w, self->w.dirfd, 0, &got));
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
}

TEST_F(cgroup, subtree_dump_lists_every_task_of_every_descendant_once)
{
	char path[NR_TREE][PATH_BUF + 8];
	struct kid *kid[NR_TREE];
	struct ids want = { 0 };

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	make_tree(_metadata, &self->w, path, kid, false);
	for (int i = 0; i < NR_TREE; i++)
		add_tids(&want, kid[i]);
	ASSERT_EQ(want.n, dump(&self->w, self->w.dirfd, TSNL_DUMP_SUBTREE, &got));
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
}

/*
 * Pid order, as a dump of every task, whatever the order of the cgroups:
 * the tree's tasks are made from its last cgroup to its first, so that
 * pre-order would send them in decreasing order.
 */
TEST_F(cgroup, subtree_dump_lists_its_tasks_in_pid_order)
{
	char path[NR_TREE][PATH_BUF + 8];
	struct kid *kid[NR_TREE];
	struct ids want = { 0 };

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	make_tree(_metadata, &self->w, path, kid, true);
	for (int i = 0; i < NR_TREE; i++)
		add_tids(&want, kid[i]);
	ASSERT_EQ(want.n, dump(&self->w, self->w.dirfd, TSNL_DUMP_SUBTREE, &got));
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
	for (int i = 1; i < got.n; i++) {
		EXPECT_LT(got.rec[i - 1].id, got.rec[i].id)
			TH_LOG("record %d, of %u, came after one of %u", i,
			       got.rec[i].id, got.rec[i - 1].id);
	}
}

/*
 * Tasks moving between two cgroups of a subtree while it is dumped: each
 * dump sends each task once at most, in pid order. A task that moves
 * behind the walk may be missed; that is counted, not judged.
 */
TEST_F_TIMEOUT(cgroup, subtree_dump_sends_a_task_once_while_tasks_move_between_its_cgroups, 60)
{
	char b[PATH_BUF + 8], d[PATH_BUF + 8];
	int dumps = 0, bad = 0, failed = 0, short_dumps = 0, n;
	struct timespec t0;
	pid_t pids[24];
	struct ids want = { 0 };
	unsigned long moves;
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	snprintf(b, sizeof(b), "%s/b", self->w.dir);
	snprintf(d, sizeof(d), "%s/d", self->w.dir);
	ASSERT_EQ(0, ts_mess_cgroup(self->w.mess, b));
	ASSERT_EQ(0, ts_mess_cgroup(self->w.mess, d));
	for (int i = 0; i < (int)ARRAY_SIZE(pids); i++) {
		ASSERT_EQ(0, sleeper(&self->w, b, 0, &k));
		pids[i] = k->pid;
		add_id(&want, k->pid);
	}
	ASSERT_EQ(0, mover_start(&self->w, pids, ARRAY_SIZE(pids), d, b));
	ASSERT_EQ(0, wait_started(&self->w.shared->moves)) TH_LOG("the mover never moved a task");
	moves = self->w.shared->moves;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		n = dump(&self->w, self->w.dirfd, TSNL_DUMP_SUBTREE, &got);
		if (n < 0 && !failed++)
			TH_LOG("a dump failed: %s", strerror(-n));
		for (int i = 0; n >= 0 && i < got.n; i++) {
			if (has_id(&want, got.rec[i].id) &&
			    (!i || got.rec[i - 1].id < got.rec[i].id))
				continue;
			if (!bad++)
				TH_LOG("dump %d: record %d is of %u, after %u", dumps, i,
				       got.rec[i].id, i ? got.rec[i - 1].id : 0);
			break;
		}
		short_dumps += n >= 0 && got.n < want.n;
	} while (dump_more(++dumps, 300, 5, &t0));
	moves = self->w.shared->moves - moves;
	TH_LOG("%d dumps while %lu moves; %d missed a task that moved", dumps, moves,
	       short_dumps);
	EXPECT_EQ(0, failed);
	EXPECT_EQ(0, bad) TH_LOG("%d of %d dumps sent a task twice, out of order or not ours",
				 bad, dumps);
	EXPECT_LT(0UL, moves);
}

TEST_F(cgroup, subtree_dump_of_a_child_cgroup_leaves_out_its_parent_and_sibling)
{
	char path[NR_TREE][PATH_BUF + 8];
	struct kid *kid[NR_TREE];
	struct ids want = { 0 };
	int fd;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	make_tree(_metadata, &self->w, path, kid, false);
	add_tids(&want, kid[B]);
	add_tids(&want, kid[B_C]);
	fd = open(path[B], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(want.n, dump(&self->w, fd, TSNL_DUMP_SUBTREE, &got));
	close(fd);
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
}

TEST_F(cgroup, subtree_dump_by_tgid_lists_each_process_of_the_subtree_once)
{
	char path[NR_TREE][PATH_BUF + 8];
	struct kid *kid[NR_TREE];
	struct ids want = { 0 };

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	make_tree(_metadata, &self->w, path, kid, false);
	for (int i = 0; i < NR_TREE; i++)
		add_id(&want, kid[i]->pid);
	ASSERT_EQ(NR_TREE, dump(&self->w, self->w.dirfd,
				TSNL_DUMP_SUBTREE | TSNL_DUMP_TGID, &got));
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_TGID, true));
}

/*
 * A threaded tree: the test's cgroup becomes a threaded domain with a
 * threaded child, "t", into which the last two of a sleeper's four
 * threads move (cgroup.threads); its leader and first thread stay. The
 * child's path is written to @child, an fd of it returned.
 */
static int split_by_a_threaded_cgroup(struct __test_metadata *_metadata,
				      struct world *w, struct kid **k, char *child)
{
	char file[PATH_BUF + 32], tid[16];
	int fd;

	snprintf(child, PATH_BUF + 8, "%s/t", w->dir);
	ASSERT_EQ(0, ts_mess_cgroup(w->mess, child));
	snprintf(file, sizeof(file), "%s/cgroup.type", child);
	ASSERT_EQ(0, ts_write_file(file, "threaded"));
	ASSERT_EQ(0, sleeper(w, w->dir, 3, k));
	ASSERT_EQ(4, (*k)->n);
	snprintf(file, sizeof(file), "%s/cgroup.threads", child);
	for (int i = 2; i < 4; i++) {
		snprintf(tid, sizeof(tid), "%d", (*k)->tid[i]);
		ASSERT_EQ(0, ts_write_file(file, tid));
	}
	fd = open(child, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	return fd;
}

TEST_F(cgroup, a_threaded_cgroup_dumps_the_threads_it_holds_and_its_domain_the_others)
{
	struct ids in_domain = { 0 }, in_child = { 0 };
	char child[PATH_BUF + 8];
	struct kid *k;
	int fd;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	fd = split_by_a_threaded_cgroup(_metadata, &self->w, &k, child);
	for (int i = 0; i < 4; i++)
		add_id(i < 2 ? &in_domain : &in_child, k->tid[i]);
	EXPECT_EQ(2, dump(&self->w, self->w.dirfd, 0, &got));
	EXPECT_TRUE(same_ids(&got, &in_domain, TASKSTATS_TYPE_AGGR_PID, true));
	EXPECT_EQ(2, dump(&self->w, fd, 0, &got));
	EXPECT_TRUE(same_ids(&got, &in_child, TASKSTATS_TYPE_AGGR_PID, true));
	close(fd);
}

/*
 * By tgid, a process comes from its leader's cgroup, once, with or
 * without the subtree, and its record holds every thread: its voluntary
 * switches are the sum /proc gives of all four, wherever each sits. The
 * threaded cgroup, which holds no leader, lists no group.
 */
TEST_F(cgroup, a_process_split_by_a_threaded_cgroup_is_dumped_by_tgid_once_from_its_leaders)
{
	struct ids want = { 0 };
	char child[PATH_BUF + 8];
	uint64_t before, after;
	int fd, threads;
	struct kid *k;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	fd = split_by_a_threaded_cgroup(_metadata, &self->w, &k, child);
	add_id(&want, k->pid);
	EXPECT_EQ(0, dump(&self->w, fd, TSNL_DUMP_TGID, &got));
	close(fd);
	EXPECT_EQ(1, dump(&self->w, self->w.dirfd, TSNL_DUMP_TGID | TSNL_DUMP_SUBTREE, &got));
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_TGID, true));
	/* The sleepers are parked: their switches hold still across the dump. */
	before = ts_threads_sum(k->pid, "voluntary_ctxt_switches", &threads);
	ASSERT_EQ(4, threads);
	ASSERT_EQ(1, dump(&self->w, self->w.dirfd, TSNL_DUMP_TGID, &got));
	after = ts_threads_sum(k->pid, "voluntary_ctxt_switches", &threads);
	ASSERT_EQ(before, after);
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_TGID, true));
	EXPECT_EQ(before, got.rec[0].ts.nvcsw);
}

/* Root's process of three threads and one of user A, two threads. */
TEST_F(cgroup, cgroup_dump_records_name_their_task_its_group_parent_and_owner)
{
	static const char * const name[2] = { "ts_cg_root", "ts_cg_user" };
	static const uid_t uid[2] = { 0, UID_A };
	struct kid *kids[2];
	struct ids want = { 0 };

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, spawn(&self->w, &(struct spec){ .cgroup = self->w.dir,
				   .threads = 2 - i, .uid = uid[i], .name = name[i] },
				   &kids[i]));
		add_tids(&want, kids[i]);
	}
	ASSERT_EQ(want.n, dump(&self->w, self->w.dirfd, 0, &got));
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
	for (int i = 0; i < got.n; i++) {
		const struct taskstats *ts = &got.rec[i].ts;
		const struct kid *k = kid_of(kids, 2, got.rec[i].id);
		int who = k == kids[1];

		ASSERT_NE(NULL, k);
		EXPECT_EQ(TASKSTATS_VERSION, ts->version);
		EXPECT_EQ(got.rec[i].id, ts->ac_pid);
		EXPECT_EQ((uint32_t)k->pid, ts->ac_tgid);
		EXPECT_EQ((uint32_t)getpid(), ts->ac_ppid);
		EXPECT_EQ(uid[who], ts->ac_uid);
		EXPECT_EQ(uid[who], ts->ac_gid);
		EXPECT_STREQ(name[who], ts->ac_comm);
	}
}

/* ------------------------------------------------------- dumps in parts */

/*
 * Netlink builds a dump one part, one skb, at a time: the first in the
 * sendmsg() of the request, each next one at the end of the recvmsg()
 * that reads the one before, as long as the socket has room. A part of
 * ours holds about 10 records on a socket never read (8 KiB) and 44 once
 * it has been read with a large buffer (32 KiB), so MANY tasks take
 * several parts. What the requester does between two reads happens
 * before the part after next is built.
 */

/*
 * The dump of a cgroup of MANY tasks. Once its first part is read, the
 * tasks that part did not send move to another cgroup and NEWCOMERS
 * join: the dump still sends the tasks of its start, the moved ones
 * too, each once, and no newcomer. The parts read third and later, at
 * least, are built after the moves.
 */
TEST_F_TIMEOUT(cgroup,
	       cgroup_dump_sends_the_tasks_it_started_with_even_moved_out_and_no_newcomer,
	       120)
{
	char a[PATH_BUF + 8], b[PATH_BUF + 8], procs[PATH_BUF + 24], pid[16];
	struct ids want = { 0 }, newcomers = { 0 };
	int nl, fd, first, second, rest, moved = 0;
	uint32_t seq;
	bool done;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	snprintf(a, sizeof(a), "%s/a", self->w.dir);
	snprintf(b, sizeof(b), "%s/b", self->w.dir);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", b);
	ASSERT_EQ(0, ts_mess_cgroup(self->w.mess, a));
	ASSERT_EQ(0, ts_mess_cgroup(self->w.mess, b));
	ASSERT_EQ(0, sleepers(&self->w, a, MANY, &want));
	fd = open(a, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	nl = dump_socket();
	ASSERT_LE(0, nl);
	got.n = 0;
	got.dropped = 0;
	ASSERT_EQ(0, dump_start(&self->w, nl, fd, &seq));
	close(fd);
	first = tsnl_dump_part(nl, seq, keep, &got, NULL, &done);
	ASSERT_LE(0, first) TH_LOG("the dump failed: %s", strerror(-first));
	ASSERT_FALSE(done) TH_LOG("the first part ended the dump: no task left to move");
	for (int i = 0; i < want.n; i++) {
		if (has_rec(&got, want.id[i]))
			continue;
		snprintf(pid, sizeof(pid), "%u", want.id[i]);
		ASSERT_EQ(0, ts_write_file(procs, pid));
		moved++;
	}
	ASSERT_EQ(0, sleepers(&self->w, a, NEWCOMERS, &newcomers));
	second = tsnl_dump_part(nl, seq, keep, &got, NULL, &done);
	ASSERT_LE(0, second) TH_LOG("the dump failed: %s", strerror(-second));
	ASSERT_FALSE(done) TH_LOG("the second part ended the dump: none built after the moves");
	rest = dump_rest(nl, seq, &got);
	close(nl);
	ASSERT_LE(0, rest) TH_LOG("the dump failed: %s", strerror(-rest));
	TH_LOG("records: %d in the first part, %d in the second, %d after; %d tasks moved",
	       first, second, rest, moved);
	EXPECT_LT(0, rest) TH_LOG("no record in a part built after the moves");
	for (int i = 0; i < newcomers.n; i++) {
		EXPECT_FALSE(has_rec(&got, newcomers.id[i]))
			TH_LOG("%u, a newcomer, was sent", newcomers.id[i]);
	}
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
}

/*
 * A dump of a cgroup of MANY tasks is left after its first part, its
 * socket open and unread; the tasks are killed and reaped and the cgroup
 * removed. The cgroup, dying, is freed all the same, within WAIT_MS: the
 * dump holds no task, css_set or cgroup between its parts. The count is
 * the test cgroup's own, which nothing else touches; the cgroup may be
 * dying still or already freed when it is first read.
 */
TEST_F_TIMEOUT(cgroup, cgroup_dump_left_unread_keeps_no_removed_cgroup_alive, 120)
{
	int nl, fd, first, before, removed, now, ms;
	char c[PATH_BUF + 8];
	struct ids want = { 0 };
	uint32_t seq;
	bool done;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	snprintf(c, sizeof(c), "%s/c", self->w.dir);
	before = dying_descendants(self->w.dir);
	ASSERT_LE(0, before) TH_LOG("%s/cgroup.stat: %s", self->w.dir, strerror(-before));
	ASSERT_EQ(0, ts_mess_cgroup(self->w.mess, c));
	ASSERT_EQ(0, sleepers(&self->w, c, MANY, &want));
	fd = open(c, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ASSERT_LE(0, fd);
	nl = dump_socket();
	ASSERT_LE(0, nl);
	got.n = 0;
	got.dropped = 0;
	ASSERT_EQ(0, dump_start(&self->w, nl, fd, &seq));
	close(fd);
	first = tsnl_dump_part(nl, seq, keep, &got, NULL, &done);
	ASSERT_LE(0, first) TH_LOG("the dump failed: %s", strerror(-first));
	ASSERT_FALSE(done) TH_LOG("the first part ended the dump: it holds nothing");
	reap_kids(&self->w);
	ASSERT_EQ(0, remove_empty(c));
	removed = dying_descendants(self->w.dir);
	now = removed;
	for (ms = 0; now > before && ms < WAIT_MS; ms += 10) {
		usleep(10000);
		now = dying_descendants(self->w.dir);
	}
	TH_LOG("dying descendants of the test cgroup: %d before, %d after rmdir, %d %d ms later",
	       before, removed, now, ms);
	close(nl);
	EXPECT_LE(0, now);
	EXPECT_LE(now, before) TH_LOG("the dump left unread keeps the removed cgroup");
}

/*
 * The request of a dump of a cgroup of MANY tasks is sent, then the tasks
 * are killed and reaped before the first read. That first part may have
 * been built in the send, before the exits, with tasks still alive then;
 * every later part is built after them: none of those has a record, and
 * the dump ends with NLMSG_DONE 0.
 */
TEST_F_TIMEOUT(cgroup, cgroup_dump_leaves_out_the_tasks_that_exit_before_their_turn, 120)
{
	struct ids want = { 0 };
	int nl, first, later;
	uint32_t seq;
	bool done;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	ASSERT_EQ(0, sleepers(&self->w, self->w.dir, MANY, &want));
	nl = dump_socket();
	ASSERT_LE(0, nl);
	got.n = 0;
	got.dropped = 0;
	ASSERT_EQ(0, dump_start(&self->w, nl, self->w.dirfd, &seq));
	reap_kids(&self->w);
	first = tsnl_dump_part(nl, seq, keep, &got, NULL, &done);
	ASSERT_LE(0, first) TH_LOG("the dump failed: %s", strerror(-first));
	later = done ? 0 : dump_rest(nl, seq, &got);
	close(nl);
	TH_LOG("%d records in the first part, %d in the later ones, of %d tasks",
	       first, later, MANY);
	ASSERT_LT(first, MANY) TH_LOG("the first part sent every task: none had to be looked up");
	EXPECT_EQ(0, later) TH_LOG("the dump ended with %s", later < 0 ?
				   strerror(-later) : "records of tasks reaped");
	for (int i = 0; i < got.n; i++) {
		EXPECT_TRUE(has_id(&want, got.rec[i].id))
			TH_LOG("%u is not of the cgroup's tasks", got.rec[i].id);
	}
}

/* ---------------------------------------------------------------- access */

/*
 * A cgroup holding a process of root's and one of user A's, both with a
 * thread; A dumps it: its own process's records only, the others left
 * out in silence, as /proc/PID/io tells A.
 */
TEST_F(cgroup, unprivileged_cgroup_dump_lists_only_the_users_own_tasks)
{
	struct ids want = { 0 }, want_tgid = { 0 };
	static struct seen_by_a s;
	struct kid *roots, *own;
	struct pollfd p;
	int pipefd[2];
	pid_t dumper;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 1, &roots));
	ASSERT_EQ(0, spawn(&self->w, &(struct spec){ .cgroup = self->w.dir,
			   .threads = 1, .uid = UID_A }, &own));
	add_tids(&want, own);
	add_id(&want_tgid, own->pid);
	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	dumper = fork();
	ASSERT_LE(0, dumper);
	if (dumper == 0)
		dump_as_a(&self->w, own->pid, roots->pid, pipefd[1]);
	close(pipefd[1]);
	p = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	ASSERT_EQ(1, poll(&p, 1, WAIT_MS));
	ASSERT_EQ((ssize_t)sizeof(s), read(pipefd[0], &s, sizeof(s)));
	close(pipefd[0]);
	waitpid(dumper, NULL, 0);
	/* The oracle first: the case is the one the test means. */
	ASSERT_TRUE(s.own_io);
	ASSERT_FALSE(s.root_io);
	ASSERT_EQ(0, s.open_err);
	ASSERT_EQ(want.n, s.n);
	ASSERT_EQ(want_tgid.n, s.tgid_n);
	as_recs(&got, s.id, s.n, TASKSTATS_TYPE_AGGR_PID);
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
	as_recs(&got, s.tgid, s.tgid_n, TASKSTATS_TYPE_AGGR_TGID);
	EXPECT_TRUE(same_ids(&got, &want_tgid, TASKSTATS_TYPE_AGGR_TGID, true));
}

/*
 * A container's root given the fd of a host cgroup that holds root's
 * process, the container's maker and the container's two tasks dumps
 * the container's two tasks only, by the pids its namespace gives them:
 * the cgroup's own files, read inside, name the same ones and show the
 * others as 0.
 */
TEST_F(cgroup, a_containers_cgroup_dump_lists_its_own_tasks_only_by_its_own_pids)
{
	struct ids want = { .n = 2, .id = { 1, 2 } };
	static struct seen_in_container s;
	struct pollfd p;
	int pipefd[2];
	struct kid *k;
	pid_t maker;

	if (!self->w.series)
		SKIP(return, SKIP_DUMP);
	ASSERT_EQ(0, sleeper(&self->w, self->w.dir, 1, &k));
	ASSERT_EQ(0, pipe2(pipefd, O_CLOEXEC));
	maker = fork();
	ASSERT_LE(0, maker);
	if (maker == 0)
		dump_in_a_container(&self->w, pipefd[1]);
	close(pipefd[1]);
	p = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	ASSERT_EQ(1, poll(&p, 1, WAIT_MS));
	ASSERT_EQ((ssize_t)sizeof(s), read(pipefd[0], &s, sizeof(s)));
	close(pipefd[0]);
	waitpid(maker, NULL, 0);
	if (s.err == 4)
		SKIP(return, "cannot create a user namespace");
	ASSERT_EQ(0, s.err);
	/* The oracle: inside, the cgroup shows pids 1 and 2 and hides the rest. */
	as_recs(&got, s.threads.id, s.threads.n, TASKSTATS_TYPE_AGGR_PID);
	ASSERT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
	as_recs(&got, s.procs.id, s.procs.n, TASKSTATS_TYPE_AGGR_PID);
	ASSERT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
	ASSERT_EQ(3, s.hidden_threads);		/* root's leader and thread, the maker */
	ASSERT_EQ(2, s.hidden_procs);
	ASSERT_EQ(2, s.n);
	ASSERT_EQ(2, s.tgid_n);
	as_recs(&got, s.id, s.n, TASKSTATS_TYPE_AGGR_PID);
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_PID, true));
	as_recs(&got, s.tgid, s.tgid_n, TASKSTATS_TYPE_AGGR_TGID);
	EXPECT_TRUE(same_ids(&got, &want, TASKSTATS_TYPE_AGGR_TGID, true));
}

TEST_HARNESS_MAIN
