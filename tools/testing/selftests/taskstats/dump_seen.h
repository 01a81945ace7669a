/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the dump tests count of a dump (ext_test.c, stuck_exec_test.c and
 * the checks of ext_access.c): how often each id came, and which records
 * were not what every record must be.
 */
#ifndef TS_DUMP_SEEN_H
#define TS_DUMP_SEEN_H

#include <stdbool.h>
#include <stdint.h>

#include "tsnl.h"

/*
 * How often each id was seen in one dump: count[] has a byte for every
 * pid below kernel.pid_max, allocated by the first seen_reset().
 */
struct seen {
	unsigned char *count;
	int most;		/* the largest count, or 255 for an id >= pid_max */
	int records, wrong_aggr, other_uid;
	int not_its_own;	/* a record of another version or pid than its id */
	struct tsnl_dump_count arrived;	/* how the records came */
	int aggr;		/* the aggregate type every record must have */
	uint32_t uid;		/* when set, the uid every record must have */
	bool check_uid;
};

/* A tsnl_dump_fn: counts the record of @id in the struct seen @arg. */
void count_record(uint32_t id, int aggr, const struct taskstats *ts, void *arg);

/* Empties @s for a dump by pid, or by tgid if @tgid. */
void seen_reset(struct seen *s, bool tgid);

/* A dump by pid (by tgid if @tgid) counted in @s: its records, or -errno. */
int dump_into(int fd, uint16_t family, bool tgid, struct seen *s);

#endif
