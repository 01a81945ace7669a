// SPDX-License-Identifier: GPL-2.0
/*
 * taskstats_stress: the checks of the listeners that run after the storm:
 * a steady listener's records and drops cover every storm exit, and the
 * silent one overflowed. Drops are read from /proc/net/netlink.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "stress.h"

/*
 * The Drops column of /proc/net/netlink for the socket with inode @ino,
 * or -1. Columns are found by their header, not by position.
 */
static long netlink_drops(ino_t ino)
{
	int drops_col = -1, inode_col = -1, col;
	char line[512], *tok, *save;
	long drops = -1;
	FILE *f;

	f = fopen("/proc/net/netlink", "re");
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f)) {
		col = 0;
		for (tok = strtok_r(line, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save), col++) {
			if (!strcmp(tok, "Drops"))
				drops_col = col;
			else if (!strcmp(tok, "Inode"))
				inode_col = col;
		}
	}
	while (drops_col >= 0 && inode_col >= 0 && fgets(line, sizeof(line), f)) {
		long d = -1;
		bool match = false;

		col = 0;
		for (tok = strtok_r(line, " \t\n", &save); tok;
		     tok = strtok_r(NULL, " \t\n", &save), col++) {
			if (col == drops_col)
				d = strtol(tok, NULL, 10);
			else if (col == inode_col)
				match = strtoull(tok, NULL, 10) == (unsigned long long)ino;
		}
		if (match) {
			drops = d;
			break;
		}
	}
	fclose(f);
	return drops;
}

/*
 * A steady listener heard every storm exit, as a record or as a drop.
 * Drops count other tasks' exits too: an inequality.
 */
long check_steady(struct listener *l, unsigned long expected, bool complete)
{
	long drops = netlink_drops(l->ino);

	printf("# %s: %lu records (%lu of storm tasks, %lu groups), %ld drops, %lu ENOBUFS%s\n",
	       l->name, l->records, l->storm_records, l->group_records, drops,
	       l->enobufs, l->drain_cut ? ", final drain cut short" : "");
	/* Workers killed at a deadline leave exits uncounted: no balance. */
	if (!complete)
		return drops;
	if (l->storm_records > expected)
		violation("%s: %lu storm records for %lu storm tasks", l->name,
			  l->storm_records, expected);
	if (drops < 0 && l->storm_records < expected)
		violation("%s: %lu of %lu storm records, and no Drops in /proc/net/netlink",
			  l->name, l->storm_records, expected);
	else if (drops >= 0 && l->storm_records + drops < expected)
		violation("%s: %lu storm records + %ld drops < %lu storm exits",
			  l->name, l->storm_records, drops, expected);
	return drops;
}

/* The silent listener must have overflowed and have ENOBUFS pending. */
long check_silent(struct listener *l, unsigned long exits)
{
	long drops = netlink_drops(l->ino);
	socklen_t len = sizeof(int);
	int err = 0;

	getsockopt(l->fd, SOL_SOCKET, SO_ERROR, &err, &len);
	printf("# %s: never read, %ld drops, pending error %d (%s)\n", l->name,
	       drops, err, err ? strerror(err) : "none");
	if (drops < 0) {
		printf("# %s: no Drops in /proc/net/netlink, overflow not checked\n",
		       l->name);
	} else if (!drops) {
		/* Its queue holds a few records: fewer exits may all fit. */
		if (exits >= 100)
			violation("%s: %lu exits and not one dropped", l->name, exits);
		else
			printf("# %s: only %lu storm exits, which may all fit\n",
			       l->name, exits);
	} else if (err != ENOBUFS) {
		violation("%s: %ld drops but pending error %d, not ENOBUFS",
			  l->name, drops, err);
	}
	return drops;
}
