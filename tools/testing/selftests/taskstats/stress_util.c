// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats_stress: what every part uses: violations and their count,
 * the flags and counters shared between threads and processes, clocks
 * and deadlines, the seeded random numbers, bitmaps of storm ids and the
 * names of storm tasks.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "stress.h"

#define MAX_PRINTED	40		/* violations printed in full */

bool count_violation(void)
{
	unsigned long n = __atomic_add_fetch(&violations, 1, __ATOMIC_RELAXED);

	if (n == MAX_PRINTED + 1)
		printf("# violation: more violations follow, not printed\n");
	return n <= MAX_PRINTED;
}

int flag_get(int *flag)
{
	return __atomic_load_n(flag, __ATOMIC_ACQUIRE);
}

void flag_set(int *flag)
{
	__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
}

void shared_add(unsigned long *counter, unsigned long n)
{
	__atomic_add_fetch(counter, n, __ATOMIC_RELAXED);
}

unsigned long shared_get(unsigned long *counter)
{
	return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

void sleep_ms(double ms)
{
	long ns = (long)(ms * 1e6);
	struct timespec ts = {
		.tv_sec = ns / 1000000000L,
		.tv_nsec = ns % 1000000000L,
	};

	nanosleep(&ts, NULL);
}

/* Waits up to @ms for @fd to be readable. */
int wait_in(int fd, double ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (ms < 0)
		ms = 0;
	return poll(&p, 1, (int)ms);
}

/* Seconds left before the hard deadline, for a child's alarm(). */
unsigned int secs_left(void)
{
	double left = t_hard - now();

	return left > 0 ? (unsigned int)left + 1 : 1;
}

/* @secs from now, but never later than 1.5 s before the hard deadline. */
double budget(double secs)
{
	double until = now() + secs;

	return until < t_hard - 1.5 ? until : t_hard - 1.5;
}

pid_t thread_id(void)
{
	return (pid_t)syscall(SYS_gettid);
}

/* xorshift64*: reproducible from --seed, one state per thread. */
static __u64 rng_next(__u64 *s)
{
	__u64 x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

unsigned int rng_below(__u64 *s, unsigned int n)
{
	return n ? rng_next(s) % n : 0;
}

__u64 rng_seed(unsigned int stream)
{
	return ((__u64)opt.seed + 1) * 0x9E3779B97F4A7C15ULL +
	       (__u64)(stream + 1) * 0xBF58476D1CE4E5B9ULL + 1;
}

/* Bitmaps of storm ids: private ones per listener, shared ones atomic. */
bool bit_test_set(unsigned long *map, unsigned long bit)
{
	unsigned long mask = 1UL << (bit % LONG_BITS);
	bool was = map[bit / LONG_BITS] & mask;

	map[bit / LONG_BITS] |= mask;
	return was;
}

void bit_set_shared(unsigned long *map, unsigned long bit)
{
	__atomic_fetch_or(&map[bit / LONG_BITS], 1UL << (bit % LONG_BITS),
			  __ATOMIC_SEQ_CST);
}

void bit_clear_shared(unsigned long *map, unsigned long bit)
{
	__atomic_fetch_and(&map[bit / LONG_BITS], ~(1UL << (bit % LONG_BITS)),
			   __ATOMIC_SEQ_CST);
}

bool bit_shared(unsigned long *map, unsigned long bit)
{
	return __atomic_load_n(&map[bit / LONG_BITS], __ATOMIC_ACQUIRE) &
	       (1UL << (bit % LONG_BITS));
}

/* The name of storm task @id, and back; -1 for any other name. */
void storm_name(char name[16], unsigned long id)
{
	snprintf(name, 16, "S%08x", (unsigned int)id);
}

long storm_id(const char *comm)
{
	unsigned long id = 0;
	int i;

	if (comm[0] != 'S' || comm[9] != '\0')
		return -1;
	for (i = 1; i < 9; i++) {
		char c = comm[i];

		if (c >= '0' && c <= '9')
			id = id * 16 + (c - '0');
		else if (c >= 'a' && c <= 'f')
			id = id * 16 + (c - 'a' + 10);
		else
			return -1;
	}
	return id;
}
