// SPDX-License-Identifier: GPL-2.0
/*
 * A task stuck in exec against the requests that meet it, each asked as
 * nobody: a GET, a dump that meets the exec first or after a record, and
 * a request on a socket whose dump waits for it. None may wait as long as
 * the exec likes. A kernel without the dump (and so without unprivileged
 * reads) skips these tests.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/aio_abi.h>

#include "../kselftest_harness.h"
#include "disks.h"
#include "dump_seen.h"
#include "tsnl.h"

/*
 * An exec that holds its exec_update_lock for seconds, as one whose old
 * memory has AIO in flight does: exec_mmap() takes the lock, then its
 * mmput() of the old memory waits for the AIO, and the test's slow disk
 * (dm-delay) serves every read SLOW_MS late. The child reads that disk
 * as root, becomes nobody (dumpable, so that nobody may read it) and
 * execs sleep. Its name changes only after the wait, still under the
 * lock: a record named "sleep" was read after the exec.
 *
 * Nothing in /proc can show the wait without waiting for the lock itself
 * (wchan, syscall and stack take it); what a request answered meanwhile
 * is the test.
 */
#define SLOW_READS	12
#define SLOW_MS		8000

static struct ts_disk slow;	/* the disk the exec's reads wait for */

static pid_t stuck_exec_start(void)
{
	const char *dev = slow.dev;
	struct iocb cb[SLOW_READS], *cbs[SLOW_READS];
	aio_context_t ctx = 0;
	pid_t pid;
	void *buf;
	int fd;

	pid = fork();
	if (pid)
		return pid;
	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096) ||
	    syscall(SYS_io_setup, SLOW_READS, &ctx))
		_exit(1);
	for (int i = 0; i < SLOW_READS; i++) {
		/* Apart, so that the block layer cannot merge them. */
		cb[i] = (struct iocb){
			.aio_lio_opcode = IOCB_CMD_PREAD, .aio_fildes = fd,
			.aio_buf = (unsigned long)buf, .aio_nbytes = 4096,
			.aio_offset = (long long)i * 65536,
		};
		cbs[i] = &cb[i];
	}
	if (syscall(SYS_io_submit, ctx, SLOW_READS, cbs) != SLOW_READS)
		_exit(2);
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		_exit(3);
	prctl(PR_SET_DUMPABLE, 1);
	execl("/bin/sleep", "sleep", "300", (char *)NULL);
	_exit(4);
}

static pid_t stuck;	/* the exec, for the helpers below */
static pid_t before;	/* a task of nobody's with a lower pid, or 0 */

/* Exit codes of the helpers below: 0 is what the test expects. */
enum { MET_EXEC, GET_FAILED = 10, WAITED, DUMP_FAILED, DUMP_WRONG, NEVER_MET };

/*
 * One GET of the exec: MET_EXEC while it holds its lock, WAITED once it
 * is done (the record is named "sleep"), GET_FAILED, or -1 before it
 * started (EPERM: root's until it becomes nobody; or the old name).
 */
static int get_the_exec_once(int fd, uint16_t family)
{
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_reply r;
	struct taskstats ts;
	int err = tsnl_get(fd, family, TASKSTATS_CMD_ATTR_PID, stuck, &ts, &r, buf);

	if (err == -EAGAIN)
		return MET_EXEC;
	if (err)
		return err == -EPERM ? -1 : GET_FAILED;
	return strcmp(ts.ac_comm, "sleep") ? -1 : WAITED;
}

/* Asks until a GET meets the exec, which lasts some SLOW_MS. */
static int get_until_the_exec(int fd, uint16_t family)
{
	for (int i = 0; i < 6000; i++) {
		int ret = get_the_exec_once(fd, family);

		if (ret >= 0)
			return ret;
		usleep(10000);
	}
	return NEVER_MET;
}

static int get_stuck_exec(int fd, uint16_t family, pid_t other)
{
	return get_until_the_exec(fd, family);
}

struct stuck_seen {
	struct seen seen;
	char comm[TS_COMM_LEN];	/* the exec's, as the dump had it */
};

static void stuck_record(uint32_t id, int aggr, const struct taskstats *ts, void *arg)
{
	struct stuck_seen *s = arg;

	count_record(id, aggr, ts, &s->seen);
	if (id == (uint32_t)stuck)
		memcpy(s->comm, ts->ac_comm, sizeof(s->comm));
}

/* What the NLMSG_DONE of a dump that skipped the exec says. */
#define SKIPPED_THE_EXEC	"tasks skipped mid-exec: 1"

/* A dump, with the extack message of its NLMSG_DONE in @c. */
static int dump_stuck(int fd, uint16_t family, struct stuck_seen *s,
		      struct tsnl_dump_count *c)
{
	int one = 1;

	memset(s->comm, 0, sizeof(s->comm));
	seen_reset(&s->seen, false);
	if (setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)))
		return -errno;
	return tsnl_dump(fd, family, false, stuck_record, s, c);
}

/*
 * Whether a dump that met the exec left it out, said so, and went on to
 * the tasks after it: the caller, forked after the exec, has a higher pid.
 */
static bool dump_skipped_the_exec(const struct stuck_seen *s,
				  const struct tsnl_dump_count *c)
{
	return !strcmp(c->done_msg, SKIPPED_THE_EXEC) && !s->seen.count[stuck] &&
	       s->seen.count[getpid()] == 1;
}

/* Whether the exec still holds its lock: a GET of it on a socket of its own. */
static int exec_still_runs(uint16_t family)
{
	int fd = tsnl_open(), ret;

	if (fd < 0)
		return GET_FAILED;
	ret = get_the_exec_once(fd, family);
	close(fd);
	return ret < 0 ? GET_FAILED : ret;
}

/* The exec is its first readable task: no record before it. */
static int dump_stuck_exec_first(int fd, uint16_t family, pid_t other)
{
	static struct stuck_seen s;
	struct tsnl_dump_count c;

	for (int i = 0; i < 6000; i++) {
		int n = dump_stuck(fd, family, &s, &c);

		if (n < 0)
			return DUMP_FAILED;
		if (!strcmp(s.comm, "sleep"))
			return WAITED;
		if (c.done_msg[0])
			return dump_skipped_the_exec(&s, &c) ?
			       exec_still_runs(family) : DUMP_WRONG;
		usleep(10000);
	}
	return NEVER_MET;
}

/*
 * Once a GET met the exec, a dump: its first part ends at the exec,
 * after the record before it; the next part waits a moment, finds the
 * exec still there, leaves it out and lists the tasks after it, long
 * before the exec is done.
 */
static int dump_stuck_exec_after(int fd, uint16_t family, pid_t other)
{
	static struct stuck_seen s;
	struct tsnl_dump_count c;
	int ret = get_until_the_exec(fd, family);

	if (ret)
		return ret;
	if (dump_stuck(fd, family, &s, &c) < 2 || c.reads < 2 ||
	    s.seen.count[before] != 1 || !dump_skipped_the_exec(&s, &c))
		return DUMP_WRONG;
	return exec_still_runs(family);
}

/* The reader of a dump's first part, whose recvmsg() makes the next. */
struct part_reader {
	int fd;
	uint32_t seq;
	struct stuck_seen seen;
	pid_t tid;
	int ret;
	bool done;
};

static void *read_first_part(void *arg)
{
	struct part_reader *p = arg;
	bool done;

	__atomic_store_n(&p->tid, gettid(), __ATOMIC_RELEASE);
	p->ret = tsnl_dump_part(p->fd, p->seq, stuck_record, &p->seen, NULL,
				&done);
	__atomic_store_n(&p->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * The attack on the socket's dump mutex: one thread reads a dump's first
 * part, and its recvmsg() goes on to make the next part, which meets the
 * exec; meanwhile another thread asks for a new dump on the same socket,
 * which takes that mutex under genetlink's cb_lock. Had the part waited
 * for the exec, the request would have held cb_lock as long, and a family
 * registering meanwhile every genetlink request behind it. The request
 * must be answered while the exec still runs.
 */
static int dump_request_beside_a_waiting_part(int fd, uint16_t family,
					      pid_t other)
{
	static struct part_reader p;
	struct tsnl_msg m;
	pthread_t reader;
	int ret = get_until_the_exec(fd, family);

	if (ret)
		return ret;
	seen_reset(&p.seen.seen, false);
	tsnl_msg_init(&m, family, TASKSTATS_CMD_GET, NLM_F_DUMP);
	if (tsnl_send(fd, &m))
		return DUMP_FAILED;
	p.fd = fd;
	p.seq = m.nlh.nlmsg_seq;
	if (pthread_create(&reader, NULL, read_first_part, &p))
		return DUMP_FAILED;
	/* Until the part waits for the exec (D), or has given up on it. */
	for (int i = 0; i < 5000; i++) {
		pid_t tid = __atomic_load_n(&p.tid, __ATOMIC_ACQUIRE);

		if (__atomic_load_n(&p.done, __ATOMIC_ACQUIRE) ||
		    (tid && ts_proc_state(tid) == 'D'))
			break;
		usleep(1000);
	}
	tsnl_msg_init(&m, family, TASKSTATS_CMD_GET, NLM_F_DUMP);
	if (tsnl_send(fd, &m))
		return DUMP_FAILED;
	ret = exec_still_runs(family);
	pthread_join(reader, NULL);
	if (ret)
		return ret;
	if (p.ret < 1 || p.seen.seen.count[before] != 1 || p.seen.seen.count[stuck])
		return DUMP_WRONG;
	return 0;
}

/* A task of nobody's, forked before the exec: a record before it. */
static pid_t nobodys_sleeper_start(void)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
		_exit(1);
	prctl(PR_SET_DUMPABLE, 1);
	for (;;)
		pause();
}

FIXTURE(stuck) {
	uint16_t family;
	pid_t sleeper;
};

FIXTURE_SETUP(stuck)
{
	int fd;

	self->sleeper = 0;
	stuck = 0;
	before = 0;
	if (!ts_kernel_dumps())
		SKIP(return, "this kernel has no unprivileged reads (no dump)");
	fd = ts_disk_slow(&slow, 1 << 20, SLOW_MS);
	if (fd == TS_DISK_CANNOT)
		SKIP(return, "%s", slow.why);
	ASSERT_EQ(0, fd);
	fd = tsnl_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, tsnl_family(fd, TASKSTATS_GENL_NAME, &self->family));
	close(fd);
}

FIXTURE_TEARDOWN(stuck)
{
	/* A SIGKILL takes once the exec is done, its reads SLOW_MS late. */
	if (stuck > 0) {
		kill(stuck, SIGKILL);
		waitpid(stuck, NULL, 0);
	}
	if (self->sleeper > 0) {
		kill(self->sleeper, SIGKILL);
		waitpid(self->sleeper, NULL, 0);
	}
	ts_disk_drop(&slow);
}

/*
 * A GET runs under genetlink's cb_lock, which every family's registration
 * takes for writing: waiting there for the exec would stall them all.
 */
TEST_F_TIMEOUT(stuck, get_of_ones_task_stuck_in_exec_is_eagain_at_once, 120)
{
	stuck = stuck_exec_start();
	ASSERT_LT(0, stuck);
	EXPECT_EQ(MET_EXEC, ts_as_nobody(get_stuck_exec, self->family, 0));
}

/*
 * One user's exec, stuck as long as it likes, must not cut another's dump
 * short: the dump leaves that task out, says so in its NLMSG_DONE, and
 * goes on.
 */
TEST_F_TIMEOUT(stuck, dump_meeting_an_exec_before_any_record_skips_it_and_says_so, 120)
{
	stuck = stuck_exec_start();
	ASSERT_LT(0, stuck);
	EXPECT_EQ(MET_EXEC, ts_as_nobody(dump_stuck_exec_first, self->family, 0));
}

/* Nobody's sleeper in *@sleeper, a record before the exec; then the exec. */
static void stuck_after_a_sleeper(struct __test_metadata *_metadata,
				  pid_t *sleeper)
{
	*sleeper = nobodys_sleeper_start();
	ASSERT_LT(0, *sleeper);
	before = *sleeper;
	stuck = stuck_exec_start();
	ASSERT_LT(0, stuck);
}

/*
 * The part after the first runs from recvmsg(), under the socket's dump
 * mutex: it waits a moment for an exec, not as long as the exec likes,
 * then leaves the task out.
 */
TEST_F_TIMEOUT(stuck, dump_meeting_a_long_exec_after_a_record_skips_it_after_a_moment, 120)
{
	stuck_after_a_sleeper(_metadata, &self->sleeper);
	EXPECT_EQ(MET_EXEC, ts_as_nobody(dump_stuck_exec_after, self->family, 0));
}

TEST_F_TIMEOUT(stuck, request_on_a_socket_whose_dump_met_a_long_exec_is_answered_before_it, 120)
{
	stuck_after_a_sleeper(_metadata, &self->sleeper);
	EXPECT_EQ(MET_EXEC, ts_as_nobody(dump_request_beside_a_waiting_part,
					 self->family, 0));
}

TEST_HARNESS_MAIN
