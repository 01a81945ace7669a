/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of taskstats_stress share: limits, the options, the
 * structures of the shared mapping, of records, of the listener, dump and
 * GET threads and of storm workers, the state of a run (defined in
 * taskstats_stress.c) and the functions one part calls in another. What
 * the program does and checks is told in taskstats_stress.c.
 *
 * No locks. What the storm's processes share with us is in MAP_SHARED
 * mappings (sh, created, pids), updated with atomics; a storm id is set
 * in created before its task exists, and a pid stored with release
 * before the task exits. The flags aux_stop, storm_over and sh->stop are
 * read with flag_get() and set with flag_set() only; drain_until is set
 * before storm_over. violations and execs are counted atomically. The
 * rest of the state is set before the threads start and only read while
 * they run. A struct listener, dumper or getter belongs to the thread
 * that runs it; main() reads its counters once the thread is joined.
 *
 * Every file defines _GNU_SOURCE before its first include.
 */
#ifndef TASKSTATS_STRESS_H
#define TASKSTATS_STRESS_H

#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/netlink.h>
#include <linux/taskstats.h>

#include "tsnl.h"	/* and issue 48's attributes, for an older uapi header */

#define EXEC_ENV	"TASKSTATS_STRESS_EXEC"	/* set in the exec loop */
#define BUF_SIZE	65536		/* a dump message is at most 32 KiB */
#define REQ_SIZE	4096
#define LONG_BITS	(8 * sizeof(unsigned long))

/* listener_cpumask(): the acknowledgment was dropped with the overflow. */
#define ACK_LOST	1

struct options {
	unsigned long tasks;
	unsigned long time;
	int listeners;
	unsigned long seed;
	unsigned long pace;	/* multiplies the side workloads' pauses */
	bool quick;		/* a storm stopped at its deadline is complete */
	bool verbose;
};

/* Everything the storm's processes share with us, in a shared mapping. */
struct shared {
	unsigned long next_id;		/* the next storm id to hand out */
	unsigned long exited;		/* storm tasks reaped */
	unsigned long procs;		/* ... of which processes */
	unsigned long threads;		/* ... and threads */
	unsigned long wrong_cpu;	/* exited on another CPU than expected */
	unsigned long unnamed;		/* could not take their name */
	unsigned long killed;		/* ended by a signal */
	unsigned long exited_cg;	/* of the storm tasks reaped, in cg_path */
	unsigned long unnamed_cg;	/* ... and of those, unnamed */
	unsigned long cg_workers;	/* workers that moved into cg_path */
	unsigned long retries;		/* fork() or pthread_create() failed */
	unsigned long setns_loops;	/* round trips of the setns child */
	unsigned long setns_made;	/* namespace pairs it created */
	int setns_err;			/* its errno, if it failed */
	int setns_skip;			/* errno: no namespace to switch to */
	int stop;			/* workers: the deadline, stop now */
	unsigned long cpu_exits[CPU_SETSIZE];
};

/* One record: an AGGR_PID or AGGR_TGID attribute, taken apart. */
struct record {
	int aggr;
	__u32 id;
	int stats_len;
	__u16 version;
	__u32 ac_pid;
	__u32 ac_tgid;
	char comm[TS_COMM_LEN + 1];
	bool has_pid;			/* STATS long enough for ac_pid */
	bool has_tgid;
	bool has_comm;
	bool has_cgid;			/* TASKSTATS_TYPE_CGROUP_ID came */
	__u64 cgid;
};

/* An exit listener socket and the thread that owns it. */
struct listener {
	char name[16];
	int fd;
	ino_t ino;
	int cpu;			/* chaotic: the CPU its thread runs on */
	char *buf;
	unsigned long *seen;		/* storm ids received on this socket */
	int cg_fd;			/* registers for this cgroup, or -1 */
	bool cgid;			/* registers with CGROUP_ID */
	__u32 seq;
	bool ack_wait;			/* a request of ours is unanswered */
	int ack_err;
	bool overrun;			/* ENOBUFS since the last drain */
	__u32 last_tgid;		/* ac_tgid of the message's AGGR_PID */
	__u64 rng;
	pthread_t thread;
	bool started;
	unsigned long records;		/* AGGR_PID records */
	unsigned long storm_records;	/* ... of storm tasks, each once */
	unsigned long group_records;	/* AGGR_TGID records */
	unsigned long cgid_records;	/* records whose CGROUP_ID was checked */
	unsigned long enobufs;
	unsigned long stale_acks;
	unsigned long lost_acks;
	unsigned long enomem;
	unsigned long sockets;		/* chaotic: sockets opened */
	unsigned long registrations;
	unsigned long bursts;
	unsigned long unread_closes;	/* closed with records queued */
	bool drain_cut;			/* steady: the final drain ran out */
};

/* The dump thread. */
struct dumper {
	int fd;
	__u32 seq;
	char *buf;
	__u64 rng;
	pthread_t thread;
	bool started;
	unsigned long dumps;
	unsigned long records;
	unsigned long setns_missing;	/* dumps without the setns child */
	unsigned long exec_missing;	/* ... without the exec loop */
};

/* The GET thread. */
struct getter {
	int fd;
	__u32 seq;
	char *buf;
	__u64 rng;
	pthread_t thread;
	bool started;
	unsigned long gets;
	unsigned long records;
	unsigned long esrch;
	unsigned long eperm;
	unsigned long enomem;
	unsigned long reaped;		/* upstream's ac_pid 0 records */
};

struct worker {
	pid_t pid;
	int cpu;
	bool threads;
	bool done;
	bool killed;		/* once stopping: its exits not all counted */
};

struct nl_req {
	union {
		struct nlmsghdr nlh;
		char buf[REQ_SIZE];
	};
};

extern struct options opt;
extern __u16 family;
extern double t_hard;			/* CLOCK_MONOTONIC seconds */
extern double op_timeout;		/* for one request and its answer */
extern double drain_until;		/* steady readers: last read */
extern int aux_stop;			/* chaotic, dump, GET threads: end */
extern int storm_over;			/* steady readers: drain and end */
extern unsigned long violations;
extern pid_t pgrp;			/* the process group of our children */
extern pid_t main_pid;
extern int cpus[CPU_SETSIZE], ncpus;	/* CPUs we may run on */
extern int possible[CPU_SETSIZE], npossible;
extern char possible_str[1024];
extern struct shared *sh;
extern unsigned long *created;		/* storm ids handed to a task */
extern __u32 *pids;			/* the pid each storm task reported */
extern size_t map_bytes;		/* of a bitmap of all storm ids */
extern pid_t setns_pid, exec_pid;
extern int exec_count_fd;		/* the exec loop's count, read end */
extern unsigned long execs;		/* generations of the exec loop */
extern bool dumps_ok;			/* the kernel dumps */
extern pthread_attr_t small_stack;	/* for short-lived threads */
/*
 * Cgroup listeners (issue 48): when the kernel has them, half the storm
 * workers move themselves into cgroup v2 cg_path (whose id is cg_id),
 * marking in in_cg each storm id they hand out; the others stay in the
 * cgroup we started in (home_id, 0 if not known).
 */
extern bool cgids_ok;			/* the kernel has CGROUP_ID */
extern char cg_path[512];		/* "" when there is none */
extern int cg_dir;			/* its directory, open */
extern __u64 cg_id, home_id;
extern unsigned long *in_cg;		/* storm ids handed out in cg_path */

/* stress_util.c */

/* Counts a violation; true if it is among those printed in full. */
bool count_violation(void);

/* Counts a violation and prints it, the first MAX_PRINTED in full. */
#define violation(fmt, ...)						\
	do {								\
		if (count_violation())					\
			printf("# violation: " fmt "\n", ##__VA_ARGS__); \
	} while (0)

/* Flags read with acquire and set with release, across threads. */
int flag_get(int *flag);
void flag_set(int *flag);
/* Counters shared with the storm's processes, relaxed. */
void shared_add(unsigned long *counter, unsigned long n);
unsigned long shared_get(unsigned long *counter);
/* CLOCK_MONOTONIC, in seconds. */
double now(void);
/* Sleeps @ms milliseconds. */
void sleep_ms(double ms);
/* Waits up to @ms for @fd to be readable. */
int wait_in(int fd, double ms);
/* Seconds left before the hard deadline, for a child's alarm(). */
unsigned int secs_left(void);
/* @secs from now, but never later than 1.5 s before the hard deadline. */
double budget(double secs);
/* The caller's thread id. */
pid_t thread_id(void);
/* A random number below @n from state @s (0 if @n is 0). */
unsigned int rng_below(__u64 *s, unsigned int n);
/* The first state of random stream @stream, from --seed. */
__u64 rng_seed(unsigned int stream);
/* Sets a bit of a private bitmap; returns whether it was set already. */
bool bit_test_set(unsigned long *map, unsigned long bit);
/* Sets, clears and tests a bit of a bitmap shared across processes. */
void bit_set_shared(unsigned long *map, unsigned long bit);
void bit_clear_shared(unsigned long *map, unsigned long bit);
bool bit_shared(unsigned long *map, unsigned long bit);
/* The name of storm task @id, and back; -1 for any other name. */
void storm_name(char name[16], unsigned long id);
long storm_id(const char *comm);

/* stress_nl.c */

/* Opens a bound generic netlink socket with receive buffer @rcvbuf. */
int nl_open(int rcvbuf);
/* Starts a request of @type, genl command @cmd, at sequence @seq. */
void req_init(struct nl_req *r, __u16 type, __u8 cmd, __u16 flags,
	      __u32 seq);
/* Appends attribute @type of @len bytes, if it fits. */
void req_put(struct nl_req *r, __u16 type, const void *data, int len);
/* Sends @r to the kernel; 0 or -errno. */
int nl_send(int fd, struct nl_req *r);
/* One datagram, or -errno; a truncated one is -EMSGSIZE. */
int nl_recv(int fd, char *buf, int size, int flags);
/* The answer to request @seq by @until at *@out: its length, or -errno. */
int nl_answer(int fd, __u32 seq, char *buf, double until,
	      struct nlmsghdr **out);
/* The error of an NLMSG_ERROR message, or -EBADMSG if it is too short. */
int nl_error(const struct nlmsghdr *h);
/* The id of the TASKSTATS family in *@id; 0 or -errno. */
int resolve_family(int fd, __u16 *id);
/* Hands each record of a TASKSTATS_CMD_NEW message to @fn; -1 if bad. */
int parse_message(const struct nlmsghdr *h,
		  void (*fn)(const struct record *r, int i, void *arg),
		  void *arg, const char **why);

/* stress_listen.c */

/* (De)registers @l for @mask: the acked error, ACK_LOST, -ETIMEDOUT. */
int listener_cpumask(struct listener *l, int attr, const char *mask);
/* Names @l after @name and @index and allocates its buffers. */
int listener_init(struct listener *l, const char *name, int index);
/* Opens @l's socket and registers it for every possible CPU. */
int listener_open_all(struct listener *l, int rcvbuf);
/* The thread of a steady listener: reads until the storm is over. */
void *steady_main(void *arg);
/* A thread that returns at once: an exit. */
void *idle_thread(void *arg);
/* The thread of a chaotic listener: socket after socket until aux_stop. */
void *chaotic_main(void *arg);

/* stress_dump.c */

/* One dump, read to its NLMSG_DONE: 0, its error or -ETIMEDOUT. */
int dump_once(struct dumper *d, bool tgid, bool probe);
/* The dump thread: dumps by pid and by tgid in turn until aux_stop. */
void *dump_main(void *arg);

/* stress_get.c */

/* The GET thread: GETs of the side workloads and the storm until aux_stop. */
void *get_main(void *arg);

/* stress_storm.c */

/*
 * A storm worker process: pinned, moved into cg_path if @in_cgroup,
 * waits for EOF on @start, never returns.
 */
void storm_worker(int cpu, bool threads, bool in_cgroup, int start);

/* stress_children.c */

/* Runs as a generation of the exec loop (@spec is EXEC_ENV's value). */
int exec_generation(const char *spec);
/* Forks a child into our process group; 0 in the child, or -errno. */
pid_t spawn(void);
/* Starts the child that founds the process group and only waits. */
pid_t start_anchor(void);
/* Starts the child that switches namespaces with setns(). */
pid_t start_setns(void);
/* Starts the exec loop; its generations are counted on exec_count_fd. */
pid_t start_exec_loop(void);
/* Reaps the storm workers that exited; returns how many are left. */
int reap_workers(struct worker *w, int n, bool stopping);
/* Waits for @pid until @until; returns its status, or -1. */
int reap_by(pid_t pid, double until);

/* stress_check.c */

/* Checks a steady listener's records and drops; returns its drops. */
long check_steady(struct listener *l, unsigned long expected, bool complete);
/* Checks that the silent listener overflowed; returns its drops. */
long check_silent(struct listener *l, unsigned long exits);

/* stress_setup.c */

/* Parses the options into opt: -1 to go on, or the exit status. */
int parse_options(int argc, char **argv);
/* Finds the CPUs we may run on and the possible ones. */
void find_cpus(void);
/* A shared anonymous mapping of @size bytes, or NULL. */
void *map_shared(size_t size);
/* Checks the family, the right to listen and dumps: -1 or the exit status. */
int preflight(struct dumper *d);
/* Makes cg_path, if the kernel has cgroup listeners; cg_cleanup() removes it. */
void cg_setup(void);
void cg_cleanup(void);

#endif
