// SPDX-License-Identifier: GPL-2.0
/*
 * The single-task GETs: get (by PID), tgid (by TGID of a group of blocked
 * threads) and siglock (what such a GET costs the group's other threads).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"

/* ---------------------------------------------------------------- get, tgid */

/* @count GETs of @id on @nl, untimed. */
static int gets_on(struct nl *nl, __u16 attr, __u32 id, long count)
{
	static char buf[RXBUF_SIZE];
	int r = 1;

	for (long i = 0; i < count && r == 1; i++)
		r = get_one(nl, attr, id, buf);
	errno = r < 0 ? -r : EPROTO;
	return r == 1 ? 0 : fail("TASKSTATS_CMD_GET");
}

/* @count GETs of @id, after a twentieth as many untimed: their mean. */
static int time_gets(__u16 attr, __u32 id, long count, const char *name)
{
	unsigned long long t0, t1;
	struct nl nl;
	int ret;

	if (nl_taskstats(&nl, 0))
		return 1;
	ret = gets_on(&nl, attr, id, count / 20 + 1);
	t0 = now_ns();
	ret = ret ? ret : gets_on(&nl, attr, id, count);
	t1 = now_ns();
	close(nl.fd);
	if (ret)
		return ret;
	note("%s: %ld GETs in %.3f s", name, count, (t1 - t0) / 1e9);
	result(name, (double)(t1 - t0) / count, "ns");
	return 0;
}

/* get: the mean ns of a TASKSTATS_CMD_GET of our own PID. */
int cmd_get(const struct opts *o)
{
	return time_gets(TASKSTATS_CMD_ATTR_PID, getpid(), pick(o->count, 100000, 2000, o),
			 "get_pid");
}

static void *blocked_thread(void *arg)
{
	char c;

	/* Returns when the main thread closes the write end. */
	while (read(*(int *)arg, &c, 1) > 0)
		;
	return NULL;
}

/* @count GETs of @id on a socket of their own, untimed. */
static int plain_gets(__u16 attr, __u32 id, long count)
{
	struct nl nl;
	int ret;

	if (nl_taskstats(&nl, 0))
		return 1;
	ret = gets_on(&nl, attr, id, count);
	close(nl.fd);
	return ret;
}

/* Threads blocked in read() until the gate's write end closes. */
struct blocked {
	pthread_t *tids;
	long started;
	int gate[2];
};

/* Starts @n blocked threads; 0, or what failed (reported). */
static int blocked_start(struct blocked *b, long n)
{
	pthread_attr_t attr;

	b->started = 0;
	b->tids = calloc(n, sizeof(*b->tids));
	if (!b->tids || pipe(b->gate)) {
		free(b->tids);
		b->tids = NULL;	/* nothing for blocked_stop() */
		return fail("blocked threads");
	}
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	while (b->started < n) {
		errno = pthread_create(&b->tids[b->started], &attr, blocked_thread,
				       &b->gate[0]);
		if (errno)
			break;
		b->started++;
	}
	pthread_attr_destroy(&attr);
	if (b->started == n)
		return 0;
	return fail("pthread_create");
}

/* Ends what blocked_start() started, even partly: EOF on the gate. */
static void blocked_stop(struct blocked *b)
{
	close(b->gate[1]);
	for (long i = 0; i < b->started; i++)
		pthread_join(b->tids[i], NULL);
	close(b->gate[0]);
	free(b->tids);
}

/* tgid: the mean ns of a TGID GET of our group, with THREADS blocked threads. */
int cmd_tgid(const struct opts *o)
{
	long threads = o->threads > 0 ? o->threads : 64;
	long count = pick(o->count, 20000, 500, o);
	struct blocked b;
	char name[64];
	int ret;

	ret = blocked_start(&b, threads);
	if (!b.tids)
		return ret;
	if (!ret) {
		snprintf(name, sizeof(name), "get_tgid_%ld", threads);
		ret = time_gets(TASKSTATS_CMD_ATTR_TGID, getpid(), count, name);
	}
	blocked_stop(&b);
	return ret;
}

/* The thread of cmd_siglock() that takes its siglock, on CPU 0. */
struct siglock_prober {
	int started;
	int stop;
	int err;
	unsigned long long calls, t0, t1;
};

static void *siglock_prober_main(void *arg)
{
	struct siglock_prober *p = arg;
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	p->err = pin_cpu(0) ? errno : 0;
	p->t0 = now_ns();
	__atomic_store_n(&p->started, 1, __ATOMIC_RELEASE);
	while (!p->err && !__atomic_load_n(&p->stop, __ATOMIC_ACQUIRE)) {
		/* Each call changes the mask: one that did not takes no lock. */
		pthread_sigmask(SIG_BLOCK, &set, NULL);
		pthread_sigmask(SIG_UNBLOCK, &set, NULL);
		p->calls += 2;
	}
	p->t1 = now_ns();
	return NULL;
}

/*
 * What a TGID GET of a large group costs the group's other threads. The
 * benchmark, on CPU 1, first reads its own group of THREADS + 1 threads
 * by TGID, back to back (the GET's latency); then as often again while
 * one more thread, on CPU 0, blocks and unblocks a signal without pause,
 * each call taking the process's siglock: how many calls it makes per
 * second meanwhile. A kernel that sums the group under siglock,
 * interrupts off, holds that thread up for most of each GET. Neither its
 * longest call (preemptions of the thread dwarf a GET) nor the GETs'
 * latency beside it (under -icount the two CPUs share one clock) is a
 * measure of that.
 */
int cmd_siglock(const struct opts *o)
{
	long threads = pick(o->threads, 4096, 32, o);
	long count = pick(o->count, 200, 20, o);
	struct siglock_prober p = {};
	struct blocked b;
	pthread_t prober;
	char name[64];
	int ret;

	if (pin_cpu(1))
		return fail("siglock: CPU 1");
	ret = blocked_start(&b, threads);
	if (!b.tids)
		return ret;
	if (ret)
		goto out;
	snprintf(name, sizeof(name), "get_tgid_%ld", threads);
	ret = time_gets(TASKSTATS_CMD_ATTR_TGID, getpid(), count, name);
	if (ret)
		goto out;
	errno = pthread_create(&prober, NULL, siglock_prober_main, &p);
	if (errno) {
		ret = fail("pthread_create");
		goto out;
	}
	while (!__atomic_load_n(&p.started, __ATOMIC_ACQUIRE))
		sched_yield();
	ret = plain_gets(TASKSTATS_CMD_ATTR_TGID, getpid(), count);
	__atomic_store_n(&p.stop, 1, __ATOMIC_RELEASE);
	pthread_join(prober, NULL);
	errno = p.err;
	if (p.err)
		ret = fail("siglock prober");
	note("siglock: %llu mask changes on CPU 0 in %.3f s", p.calls, (p.t1 - p.t0) / 1e9);
	if (!ret)
		resultf(p.calls * 1e9 / (p.t1 - p.t0), "changes/s",
			"get_tgid_%ld_siglock_rate", threads);
out:
	blocked_stop(&b);
	return ret;
}
