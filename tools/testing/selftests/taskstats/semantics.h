/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the tests of how records relate share (semantics_test.c and
 * group_record_test.c): the socket their sem and group fixtures ask and
 * listen on, and the switch of delay accounting.
 */
#ifndef TS_SEMANTICS_H
#define TS_SEMANTICS_H

#include <stdint.h>

#include "tsnl.h"

#define DELAYACCT	"/proc/sys/kernel/task_delayacct"

/* A socket for GETs and exit records, and the CPUs it may listen to. */
struct sem_sock {
	int fd;
	uint16_t family;
	char cpus[256];
	char buf[TSNL_BUF_SIZE];
};

/*
 * Opens @s's socket, lists the possible CPUs and resolves the TASKSTATS
 * family. Return: 0, or the negative errno of the socket (@s->fd < 0) or
 * of resolving the family.
 */
int sem_sock_open(struct sem_sock *s);

/* Deregisters @s from every possible CPU and closes it. */
void sem_sock_close(struct sem_sock *s);

/* Registers @fd as exit listener for every possible CPU. */
int listen_all(struct sem_sock *s, int fd);

#endif
