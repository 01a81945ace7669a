/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Agents: processes with an identity (a user, root, a container's root, a
 * host root process that entered the container) that obey commands sent
 * over a socket pair, so that a test can ask "what does this requester
 * get?" of each. See access_test.c.
 */
#ifndef TS_AGENT_H
#define TS_AGENT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define UID_A		65534	/* the user whose tasks are read */
#define UID_B		65533	/* another user */
#define SUID_PATH	"/tmp/ts_suid"		/* a setuid-root copy of us */
#define PLAIN_PATH	"/tmp/ts_plain"		/* a plain copy of us */

enum who {
	HOST_A,		/* user A on the host */
	HOST_B,		/* user B on the host */
	HOST_ROOT,	/* root on the host: the initial namespace's admin */
	CONTAINER,	/* root of user, pid, net and mount namespaces A made */
	ENTERED,	/* host root that entered the container (setns) */
};

enum op {
	OP_SPAWN,	/* arg: SPAWN_* flags; replies with the target's pidfd */
	OP_PROC_IO,	/* 1 if /proc/PID/io opens and reads */
	OP_GET_PID,	/* 1 if a GET by pid returns the target's record */
	OP_GET_TGID,	/* 1 if a GET by tgid returns the target's group */
	OP_DUMP,	/* 1 if a dump lists the target */
	OP_DUMP_TGID,	/* 1 if a dump by tgid lists the target's group */
	OP_LISTEN,	/* registers an exit listener (arg: LISTEN_*): 0 or -errno */
	OP_HEARD,	/* once the target exited, 1 if it was heard; arg HEARD_* */
	OP_HELD_OPEN,	/* opens a socket and replies with it */
	OP_HELD_DUMP,	/* starts a dump on that socket */
	OP_HELD_REST,	/* reads the dump's rest: roots' records, end code */
	OP_HELD_ANSWER,	/* reads an answer: 1 for a record, or the error */
	OP_RACE,	/* GETs the target for arg ms: records of a setuid program */
	OP_LISTEN_MORE,	/* one more socket listening on CPU 0: 0 or -errno */
	OP_LISTEN_LESS,	/* closes the last of those */
	OP_LISTEN_WIDER,	/* the last of those adds every CPU: 0 or -errno */
	OP_LISTEN_RACE,	/* arg sockets registered by two threads at once each */
	OP_SET_LIMIT,	/* user.max_taskstats_listeners of its user namespace */
	OP_REGISTER_ON,	/* registers CPU 0 on the socket passed: 0 or -errno */
	OP_DEREGISTER_ON,	/* deregisters CPU 0 on the socket passed */
	OP_LISTEN_BIG,	/* listens on every CPU asking arg bytes of buffer */
	OP_EXITS,	/* arg children that exit at once, one at a time */
	OP_IDS,		/* an id (arg: IDS_*) in a GET of the target, or of itself */
	OP_HEARD_IDS,	/* an id (arg: IDS_*) in the last exit OP_HEARD heard */
	OP_BECOME_B_WITH,	/* root becomes user B keeping the arg mask's caps */
	OP_LISTEN_CGROUP,	/* listens to the cgroup fd passed, arg TSNL_*: 0 or -errno */
};

/*
 * The ids of a record, as the requester's namespaces translate them, and
 * two I/O counters, whose precision depends on the requester too.
 */
enum id_field {
	IDS_UID,
	IDS_GID,
	IDS_PID,
	IDS_PPID,
	IDS_WCHAR,	/* write_char */
	IDS_SYSCW,	/* write_syscalls */
	IDS_CGROUP,	/* the cgroup id (OP_HEARD_IDS): -ENODATA if none */
};

/*
 * OP_GET_PID and OP_GET_TGID take as arg the target's pid where the test
 * runs: asked for by that number, a target with no pid in the agent's
 * namespace must not exist there.
 */

#define SPAWN_UNDUMPABLE	1
#define SPAWN_SETUID		2
#define SPAWN_ZOMBIE		4
#define SPAWN_LEADER_EXITS	8	/* a thread outlives its zombie leader */
#define SPAWN_GETS_ITSELF	16	/* reads its own record first (a GET) */

/* OP_LISTEN: registering without CAP_SYS_ADMIN in the effective set. */
#define LISTEN_FEWER_CAPS	1

/* What OP_HEARD answers in its second value about the exit it heard. */
enum heard_aux {
	HEARD_TGID = 1,	/* whether the message held the group's record */
	HEARD_SEQ,	/* the message's number (nlmsg_seq) */
	HEARD_FLAG,	/* ac_flag of the task's record */
};

struct cmd {
	int op;
	int arg;
	char name[16];		/* the target's command name */
};

struct agent {
	pid_t pid;		/* in our pid namespace */
	int sock;
};

int send_fd(int sock, const void *buf, size_t len, int fd);
int recv_fd(int sock, void *buf, size_t len, int *fd);
void become(uid_t uid);
int container_enter(void);
int container_pid1(const char *cgroup);
void fork_exit_forever(unsigned long *forks);	/* never returns */
int fork_exits(int n);
int agent_start(struct agent *a, enum who role, pid_t *init);
void agent_stop(struct agent *a);
void target_kill(int *pidfd);
bool wait_exited(int pidfd);
pid_t pidfd_local(int pidfd);
int ask2(struct agent *a, int op, int arg, const char *name, int pidfd,
	 int *reply_fd, int *aux);
int ask(struct agent *a, int op, int arg, const char *name, int pidfd,
	int *reply_fd);
int copy_self(const char *path, bool suid);

#endif
