// SPDX-License-Identifier: GPL-2.0
/*
 * How much an exit listener may leave unread: a container's listener no
 * more than the socket buffer any user may ask for, each record past it
 * counted as dropped; the initial namespace's admin as much as the buffer
 * it forces. A kernel without listeners in containers (the reference: it
 * cannot dump) skips the container's test.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/sock_diag.h>

#include "../kselftest_harness.h"
#include "agent.h"
#include "tsnl.h"

/*
 * An unread listener's queue, asking BIG_BUF of buffer: EXITS exits, one
 * at a time, make some 2.3 KiB of buffer each, three times what twice the
 * default net.core.rmem_max (212992) holds.
 */
#define BIG_BUF		(16 << 20)
#define EXITS		600

struct queue_state {
	uint64_t cap;		/* twice net.core.rmem_max */
	uint32_t rmem;		/* bytes queued */
	uint32_t drops;		/* messages dropped */
};

static void queue_state(struct __test_metadata *_metadata, int fd,
			struct queue_state *q)
{
	uint32_t mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);
	char buf[32];

	ASSERT_LT(0, ts_read_file("/proc/sys/net/core/rmem_max", buf, sizeof(buf)));
	q->cap = 2 * strtoull(buf, NULL, 10);
	ASSERT_EQ(0, getsockopt(fd, SOL_SOCKET, SO_MEMINFO, mem, &len));
	ASSERT_LE(SK_MEMINFO_DROPS + 1, (int)(len / sizeof(mem[0])));
	q->rmem = mem[SK_MEMINFO_RMEM_ALLOC];
	q->drops = mem[SK_MEMINFO_DROPS];
}

/* The socket's buffer as SO_RCVBUF reads it back: twice what was set. */
static uint64_t rcvbuf(int fd)
{
	socklen_t len = sizeof(int);
	int val = 0;

	getsockopt(fd, SOL_SOCKET, SO_RCVBUF, &val, &len);
	return val;
}

/* Messages queued on @fd, read until none is left. */
static int read_all(int fd)
{
	static char buf[TSNL_BUF_SIZE];
	int n = 0;

	while (tsnl_recv(fd, buf, sizeof(buf), MSG_DONTWAIT) > 0)
		n++;
	return n;
}

FIXTURE(queue) {
	struct agent c;
	int fd;			/* the container's listener */
};

FIXTURE_SETUP(queue)
{
	pid_t init;
	int ret;

	memset(self, 0, sizeof(*self));
	self->fd = -1;
	if (!ts_kernel_dumps())
		SKIP(return, "this kernel has no listeners in containers (no dump)");
	ret = agent_start(&self->c, CONTAINER, &init);
	if (ret == 4)
		SKIP(return, "cannot create a user namespace");
	ASSERT_EQ(0, ret);
}

FIXTURE_TEARDOWN(queue)
{
	agent_stop(&self->c);
	if (self->fd >= 0)
		close(self->fd);
}

/*
 * Anyone can be that container's root, and the records its listener
 * leaves unread are charged to no memory cgroup. What bounds them is the
 * socket's buffer, which it cannot force (SO_RCVBUFFORCE asks for
 * CAP_NET_ADMIN in the initial user namespace, even in a network
 * namespace of its own): they stop at what SO_RCVBUF grants any socket,
 * and each one past that is counted as lost, not kept.
 */
TEST_F_TIMEOUT(queue, a_containers_unread_listener_holds_no_more_than_rmem_max_allows, 120)
{
	struct queue_state q;
	int first, read;

	ASSERT_EQ(0, ask(&self->c, OP_LISTEN_BIG, BIG_BUF, "", -1, &self->fd));
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(EXITS, ask(&self->c, OP_EXITS, EXITS, "", -1, NULL));
	queue_state(_metadata, self->fd, &q);
	ASSERT_EQ(q.cap, rcvbuf(self->fd));
	first = tsnl_recv(self->fd, NULL, 0, MSG_DONTWAIT | MSG_PEEK);
	read = read_all(self->fd);
	TH_LOG("%u bytes queued in %d records (buffer %llu), %u dropped",
	       q.rmem, read, (unsigned long long)q.cap, q.drops);
	EXPECT_LE(q.rmem, q.cap);
	ASSERT_LT(0, read);
	/* Filled up to the buffer, not short of it: one more would not fit. */
	EXPECT_LT(q.cap, q.rmem + q.rmem / read);
	EXPECT_EQ(-ENOBUFS, first);
	/* Each of its exits either waits in the queue or counts as dropped. */
	EXPECT_EQ(EXITS, read + (int)q.drops);
}

/*
 * The initial namespace's admin may force a buffer that holds them all,
 * as upstream's listeners (all of them the admin's) could: the bound
 * above is the container's buffer, not something every listener meets.
 * A fixture for the time limit too: 600 forks of this program take
 * longer than the default 30 s on the debug kernel under TCG.
 */
FIXTURE(forced) {
	int fd;			/* the admin's listener, its buffer forced */
};

FIXTURE_SETUP(forced)
{
	int bytes = BIG_BUF;
	uint16_t family;
	char cpus[256];

	self->fd = tsnl_open();
	ASSERT_LE(0, self->fd);
	if (tsnl_family(self->fd, TASKSTATS_GENL_NAME, &family))
		SKIP(return, "no TASKSTATS family");
	ASSERT_EQ(0, setsockopt(self->fd, SOL_SOCKET, SO_RCVBUFFORCE, &bytes, sizeof(bytes)));
	ASSERT_EQ(0, ts_register_all(self->fd, family, cpus, sizeof(cpus)));
}

FIXTURE_TEARDOWN(forced)
{
	close(self->fd);
}

TEST_F_TIMEOUT(forced, an_admins_forced_buffer_holds_every_record, 120)
{
	struct queue_state q;
	int read;

	ASSERT_EQ(EXITS, fork_exits(EXITS));
	queue_state(_metadata, self->fd, &q);
	read = read_all(self->fd);
	TH_LOG("%u bytes queued in %d records (twice rmem_max: %llu)",
	       q.rmem, read, (unsigned long long)q.cap);
	EXPECT_LT(q.cap, q.rmem);
	EXPECT_EQ(0U, q.drops);
	/* Every exit of ours at least; other tasks of the guest may end too. */
	EXPECT_LE(EXITS, read);
}

TEST_HARNESS_MAIN
