// SPDX-License-Identifier: GPL-2.0
/*
 * The counts of a dump's records by id: see dump_seen.h.
 */
#include <stdlib.h>
#include <string.h>

#include "dump_seen.h"
#include "tsnl.h"

static int nr_ids;		/* kernel.pid_max: no pid reaches it */

void count_record(uint32_t id, int aggr, const struct taskstats *ts, void *arg)
{
	struct seen *s = arg;

	s->records++;
	if (aggr != s->aggr)
		s->wrong_aggr++;
	/* A TGID record carries no ids; a PID record carries its own. */
	if (ts->version != TASKSTATS_VERSION ||
	    (aggr == TASKSTATS_TYPE_AGGR_PID && ts->ac_pid != id))
		s->not_its_own++;
	if (s->check_uid && ts->ac_uid != s->uid)
		s->other_uid++;
	if (id >= (uint32_t)nr_ids) {
		s->most = 255;
		return;
	}
	if (s->count[id] < 255)
		s->count[id]++;
	if (s->count[id] > s->most)
		s->most = s->count[id];
}

void seen_reset(struct seen *s, bool tgid)
{
	if (!nr_ids) {
		char buf[32];

		if (ts_read_file("/proc/sys/kernel/pid_max", buf, sizeof(buf)) > 0)
			nr_ids = atoi(buf);
		if (nr_ids <= 0)
			nr_ids = 4 * 1024 * 1024;	/* PID_MAX_LIMIT */
	}
	if (!s->count)
		s->count = calloc(nr_ids, 1);
	else
		memset(s->count, 0, nr_ids);
	if (!s->count)
		abort();
	s->most = 0;
	s->records = 0;
	s->wrong_aggr = 0;
	s->not_its_own = 0;
	s->other_uid = 0;
	memset(&s->arrived, 0, sizeof(s->arrived));
	s->aggr = tgid ? TASKSTATS_TYPE_AGGR_TGID : TASKSTATS_TYPE_AGGR_PID;
}

int dump_into(int fd, uint16_t family, bool tgid, struct seen *s)
{
	seen_reset(s, tgid);
	return tsnl_dump(fd, family, tgid, count_record, s, &s->arrived);
}
