// SPDX-License-Identifier: GPL-2.0
/*
 * The socket of the sem and group fixtures (semantics_test.c and
 * group_record_test.c): see semantics.h.
 */
#include <unistd.h>

#include "semantics.h"

/* Failures are the caller's to assert: no harness here. */
int sem_sock_open(struct sem_sock *s)
{
	s->fd = tsnl_open();
	if (s->fd < 0)
		return s->fd;
	ts_possible_cpus(s->cpus, sizeof(s->cpus));
	return tsnl_family(s->fd, TASKSTATS_GENL_NAME, &s->family);
}

void sem_sock_close(struct sem_sock *s)
{
	tsnl_cpumask(s->fd, s->family, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
		     s->cpus);
	close(s->fd);
}

int listen_all(struct sem_sock *s, int fd)
{
	return ts_register_all(fd, s->family, s->cpus, sizeof(s->cpus));
}
