/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The access checks of ext_test.c that run in other credentials and
 * namespaces: as nobody (the callbacks of ts_as_nobody()), as pid 1 of a
 * rootless container, or from a network namespace of the test's choosing.
 * Each returns an exit code for the test to check, 0 the expected one.
 */
#ifndef TS_EXT_ACCESS_H
#define TS_EXT_ACCESS_H

#include <stdint.h>
#include <sys/types.h>

/* As nobody: a GET of one's own task succeeds, with one's uid. */
int get_own_task(int fd, uint16_t family, pid_t other);

/* As nobody: a GET of root's task @other is EPERM. */
int get_roots_task(int fd, uint16_t family, pid_t other);

/* As nobody: a dump lists one's own tasks only, not root's @other. */
int dump_own_tasks(int fd, uint16_t family, pid_t other);

/* As nobody: a listener registration is EPERM. */
int register_listener(int fd, uint16_t family, pid_t other);

/*
 * As nobody: makes a rootless container, whose pid 1 checks what it sees
 * of itself and of the host's task @host_pid; 4 if user namespaces are
 * unavailable. fds 3 and 4 are pipes to and from the host side.
 */
int container(int fd, uint16_t family, pid_t host_pid);

/* A GET, a dump and a registration from this netns: each 0, or each @err. */
int asked_from_this_netns(int err);

/* A child in a rootless container, its netlink socket in *@sock; or 0. */
pid_t container_holder(int *sock);

/* Closes @sock and kills the container_holder() @holder. */
void holder_stop(pid_t holder, int sock);

/* A GET of @pid write(2)n on @sock: 0 if its record came, or -errno. */
int written_get(int sock, uint16_t family, pid_t pid);

#endif
