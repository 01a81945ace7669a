// SPDX-License-Identifier: GPL-2.0
/*
 * The children and workers of fields_test.c, and the readings their
 * records are compared with: see fields_child.h.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include "fields_child.h"
#include "tsnl.h"

uint64_t now_us(clockid_t clk)
{
	struct timespec t;

	clock_gettime(clk, &t);
	return t.tv_sec * 1000000ULL + t.tv_nsec / 1000;
}

void idle(void *arg)
{
}

int exit_with(void *arg)
{
	return (long)arg;
}

int kill_self(void *arg)
{
	signal((long)arg, SIG_DFL);
	raise((long)arg);
	return 99;
}

int exec_true(void *arg)
{
	execl("/bin/true", "true", NULL);
	return 127;
}

int renice(void *arg)
{
	if (setpriority(PRIO_PROCESS, 0, (long)arg))
		return 1;
	return 0;
}

int set_name(void *arg)
{
	return prctl(PR_SET_NAME, arg) ? 1 : 0;
}

int set_ids(void *arg)
{
	if (setresgid(2345, 2345, 2345) || setresuid(1234, 1234, 1234))
		return 1;
	return 0;
}

int sleep_then_exit(void *arg)
{
	usleep((long)arg);
	return 0;
}

/* Field @field (numbered from 1 as in proc(5)) of /proc/PID/stat. */
int proc_stat_field(pid_t pid, int field, unsigned long long *val)
{
	char path[64], buf[1024], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (ts_read_file(path, buf, sizeof(buf)) < 0)
		return -1;
	/* The comm (field 2) may hold spaces: field 3 follows its ") ". */
	p = strrchr(buf, ')');
	for (int f = 2; p && f < field; f++)
		p = strchr(p + 1, ' ');
	if (!p || sscanf(p + 1, "%llu", val) != 1)
		return -1;
	return 0;
}

/* The number after "@key:" in /proc/PID/status. */
int proc_status_field(pid_t pid, const char *key, uint64_t *val)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	return ts_proc_field(path, key, val);
}

/* Start time = boot time (/proc/stat btime) + starttime of /proc/PID/stat. */
int proc_start(pid_t pid, uint64_t *start)
{
	char buf[4096], *p;
	unsigned long long ticks, btime = 0;

	if (ts_read_file("/proc/stat", buf, sizeof(buf)) < 0)
		return -1;
	p = strstr(buf, "\nbtime ");
	if (!p)
		return -1;
	btime = strtoull(p + 7, NULL, 10);
	if (proc_stat_field(pid, 22, &ticks))
		return -1;
	*start = btime + ticks / sysconf(_SC_CLK_TCK);
	return 0;
}

#define TG_LEADER_ALONE	200000	/* us the leader lives before the thread */
#define TG_THREAD_LIFE	100000	/* us the thread sleeps */

static void *thread_sleeps_then_ends(void *arg)
{
	struct tg_clock *c = arg;

	c->tid = syscall(SYS_gettid);
	usleep(TG_THREAD_LIFE);
	c->thread_end = now_us(CLOCK_MONOTONIC);
	return NULL;
}

/* Ends the process once the leader is a zombie: this thread is its last. */
static void *thread_outlives_its_leader(void *arg)
{
	struct tg_clock *c = arg;

	c->tid = syscall(SYS_gettid);
	for (int i = 0; i < 10000 && ts_proc_state(getpid()) != 'Z'; i++)
		usleep(1000);
	c->leader_gone = ts_proc_state(getpid()) == 'Z';
	usleep(TG_THREAD_LIFE);
	c->thread_end = now_us(CLOCK_MONOTONIC);
	_exit(0);
}

void run_two_threads(struct tg_clock *c, bool leader_first)
{
	pthread_t t;

	c->start = now_us(CLOCK_MONOTONIC);
	usleep(TG_LEADER_ALONE);
	c->before_create = now_us(CLOCK_MONOTONIC);
	if (pthread_create(&t, NULL, leader_first ? thread_outlives_its_leader :
			   thread_sleeps_then_ends, c))
		_exit(1);
	c->after_create = now_us(CLOCK_MONOTONIC);
	if (leader_first)
		pthread_exit(NULL);
	pthread_join(t, NULL);
	_exit(0);
}

void match_exit(const struct tsnl_exit *e, void *arg)
{
	struct exit_of *x = arg;

	if (e->have_pid && e->pid == (uint32_t)x->pid) {
		x->seen = true;
		x->ts = e->pid_ts;
	}
}

/*
 * ac_exe_dev is huge_encode_dev() of the executable's super block, the
 * kernel's "new" dev_t encoding (minor bits 0-7, major 8-19, the rest of
 * the minor 20-31), whatever encoding the C library uses for st_dev.
 */
uint64_t kernel_dev(dev_t dev)
{
	uint64_t ma = major(dev), mi = minor(dev);

	return (mi & 0xff) | (ma << 8) | ((mi & ~0xffULL) << 12);
}

/* CPU time the calling thread has used (sum_exec_runtime), in us. */
static uint64_t cpu_us(void)
{
	return now_us(CLOCK_THREAD_CPUTIME_ID);
}

/*
 * Spins in user space until the thread has used @us more CPU time. The
 * clock is a system call: read once per 2^20 iterations (milliseconds,
 * even emulated), it adds well under 1% of system time.
 */
void spin_user(uint64_t us)
{
	uint64_t end = cpu_us() + us;
	unsigned long x = 0;

	while (cpu_us() < end)
		for (int i = 0; i < 1 << 20; i++)
			__asm__ __volatile__("" : "+r" (x));
}

/* Reads /dev/zero, all clear_user() in the kernel, for @us of CPU time. */
static int read_zeros(uint64_t us)
{
	uint64_t end = cpu_us() + us;
	static char buf[64 << 10];
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 1;
	while (cpu_us() < end)
		for (int i = 0; i < 8; i++)
			if (read(fd, buf, sizeof(buf)) != sizeof(buf))
				return 1;
	close(fd);
	return 0;
}

#define USER_US		450000
#define SYSTEM_US	150000

/* Three parts of CPU time in user space, then one in the kernel. */
int user_then_system(void *arg)
{
	spin_user(USER_US);
	return read_zeros(SYSTEM_US);
}

uint64_t tv_us(struct timeval a, struct timeval b)
{
	return (b.tv_sec - a.tv_sec) * 1000000ULL + b.tv_usec - a.tv_usec;
}

void touch_new_pages(void *arg)
{
	char *p = mmap(NULL, TOUCH_PAGES * PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(3);
	madvise(p, TOUCH_PAGES * PAGE, MADV_NOHUGEPAGE);
	for (int i = 0; i < TOUCH_PAGES; i++)
		p[i * PAGE] = 1;
}

static unsigned char cold_sum;

void touch_cold_file(void *arg)
{
	struct cold_file *cf = arg;
	int fd = open(cf->path, O_RDONLY);
	char *p;

	if (fd < 0)
		_exit(3);
	p = mmap(NULL, cf->size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		_exit(4);
	madvise(p, cf->size, MADV_RANDOM);
	for (size_t i = 0; i < cf->size; i += PAGE)
		cold_sum += p[i];
	munmap(p, cf->size);
	close(fd);
}

int sleep_often(void *arg)
{
	for (long i = 0; i < (long)arg; i++)
		usleep(1000);
	return 0;
}

/* Spins in user space until the thread has used @arg us more CPU time. */
void spin_for(void *arg)
{
	spin_user((long)arg);
}

int first_allowed_cpu(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set))
			return cpu;
	return -1;
}

int pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set);
}
