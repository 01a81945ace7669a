// SPDX-License-Identifier: GPL-2.0
/*
 * taskstat - the fields of struct taskstats: names, units, formatting, JSON
 * and the parsing of TASKSTATS_CMD_NEW messages into records.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/genetlink.h>

#include "taskstat.h"

/* @w is the field's width in bytes: a fact of the ABI, as is its name. */
#define F(m, w, u) { #m, offsetof(struct taskstats, m), w, u }
#define F64(m, u) F(m, 8, u)

/* Printed in this order: who, times, memory, I/O, then delays by class. */
const struct field fields[] = {
	F(version, 2, U_COUNT),
	F(ac_pid, 4, U_ID), F(ac_ppid, 4, U_ID), F(ac_tgid, 4, U_ID),
	F(ac_uid, 4, U_ID), F(ac_gid, 4, U_ID),
	F(ac_comm, TS_COMM_LEN, U_STR), F(ac_exitcode, 4, U_WAIT),
	F(ac_flag, 1, U_HEX), F(ac_nice, 1, U_COUNT), F(ac_sched, 1, U_COUNT),
	F(ac_btime, 4, U_SEC), F64(ac_btime64, U_SEC),
	F64(ac_etime, U_US), F64(ac_tgetime, U_US),
	F64(ac_utime, U_US), F64(ac_stime, U_US),
	F64(ac_utimescaled, U_US), F64(ac_stimescaled, U_US),
	F64(nvcsw, U_COUNT), F64(nivcsw, U_COUNT),
	F64(ac_minflt, U_COUNT), F64(ac_majflt, U_COUNT),
	F64(coremem, U_MBUS), F64(virtmem, U_MBUS),
	F64(hiwater_rss, U_KB), F64(hiwater_vm, U_KB),
	F64(read_char, U_BYTES), F64(write_char, U_BYTES),
	F64(read_syscalls, U_COUNT), F64(write_syscalls, U_COUNT),
	F64(read_bytes, U_BYTES), F64(write_bytes, U_BYTES),
	F64(cancelled_write_bytes, U_BYTES),
	F64(cpu_run_real_total, U_NS), F64(cpu_run_virtual_total, U_NS),
	F64(cpu_scaled_run_real_total, U_NS),
	F64(cpu_count, U_COUNT), F64(cpu_delay_total, U_NS),
	F64(blkio_count, U_COUNT), F64(blkio_delay_total, U_NS),
	F64(swapin_count, U_COUNT), F64(swapin_delay_total, U_NS),
	F64(freepages_count, U_COUNT), F64(freepages_delay_total, U_NS),
	F64(thrashing_count, U_COUNT), F64(thrashing_delay_total, U_NS),
	F64(compact_count, U_COUNT), F64(compact_delay_total, U_NS),
	F64(wpcopy_count, U_COUNT), F64(wpcopy_delay_total, U_NS),
	F64(irq_count, U_COUNT), F64(irq_delay_total, U_NS),
	F64(ac_exe_dev, U_HEX), F64(ac_exe_inode, U_COUNT),
	/* version 16: extremes of each delay class; 17: when the max was */
	F64(cpu_delay_max, U_NS), F64(cpu_delay_min, U_NS),
	F(cpu_delay_max_ts, 16, U_TS),
	F64(blkio_delay_max, U_NS), F64(blkio_delay_min, U_NS),
	F(blkio_delay_max_ts, 16, U_TS),
	F64(swapin_delay_max, U_NS), F64(swapin_delay_min, U_NS),
	F(swapin_delay_max_ts, 16, U_TS),
	F64(freepages_delay_max, U_NS), F64(freepages_delay_min, U_NS),
	F(freepages_delay_max_ts, 16, U_TS),
	F64(thrashing_delay_max, U_NS), F64(thrashing_delay_min, U_NS),
	F(thrashing_delay_max_ts, 16, U_TS),
	F64(compact_delay_max, U_NS), F64(compact_delay_min, U_NS),
	F(compact_delay_max_ts, 16, U_TS),
	F64(wpcopy_delay_max, U_NS), F64(wpcopy_delay_min, U_NS),
	F(wpcopy_delay_max_ts, 16, U_TS),
	F64(irq_delay_max, U_NS), F64(irq_delay_min, U_NS),
	F(irq_delay_max_ts, 16, U_TS),
};

const size_t nfields = ARRAY_SIZE(fields);

const char *unit_name(enum unit u)
{
	switch (u) {
	case U_NS:
	case U_US:
		return "ms";
	case U_BYTES:
		return "bytes";
	case U_KB:
		return "KiB";
	case U_MBUS:
		return "MB-us";
	default:
		return "";
	}
}

bool field_present(const struct record *r, const struct field *f)
{
	return f->off + f->size <= (size_t)r->len;
}

unsigned long long field_value(const struct taskstats *ts, const struct field *f)
{
	const char *p = (const char *)ts + f->off;

	switch (f->size) {
	case 1:
		return *(const __u8 *)p;
	case 2:
		return *(const __u16 *)p;
	case 4:
		return *(const __u32 *)p;
	default:
		return *(const __u64 *)p;
	}
}

/* The 64-bit counter at @off of @r's stats; false (and 0) if @r is too short for it. */
bool record_u64(const struct record *r, size_t off, unsigned long long *v)
{
	__u64 x = 0;
	bool have = off + sizeof(x) <= (size_t)r->len;

	if (have)
		memcpy(&x, (const char *)&r->ts + off, sizeof(x));
	*v = x;
	return have;
}

void format_field(char *buf, size_t size, const struct record *r, const struct field *f)
{
	unsigned long long v;

	if (!field_present(r, f)) {
		snprintf(buf, size, "-");
		return;
	}
	if (f->unit == U_TS) {
		const struct __kernel_timespec *ts = (const void *)((const char *)&r->ts + f->off);
		time_t t = ts->tv_sec;
		struct tm tm;
		size_t n;

		if (!ts->tv_sec && !ts->tv_nsec) {
			snprintf(buf, size, "-");
			return;
		}
		/* A second count gmtime cannot convert is printed as a number. */
		if (!gmtime_r(&t, &tm)) {
			snprintf(buf, size, "%llds.%09lld", (long long)ts->tv_sec,
				 (long long)ts->tv_nsec);
			return;
		}
		n = strftime(buf, size, "%T", &tm);
		snprintf(buf + n, size - n, ".%06lld", (long long)ts->tv_nsec / 1000);
		return;
	}
	if (f->unit == U_STR) {
		snprintf(buf, size, "%.*s", (int)f->size,
			 (const char *)&r->ts + f->off);
		return;
	}
	v = field_value(&r->ts, f);
	switch (f->unit) {
	case U_NS:
		snprintf(buf, size, "%.3f", v / 1e6);
		break;
	case U_US:
		snprintf(buf, size, "%.3f", v / 1e3);
		break;
	case U_HEX:
		snprintf(buf, size, "0x%llx", v);
		break;
	case U_WAIT:
		if (v & 0x7f)
			snprintf(buf, size, "signal %llu", v & 0x7f);
		else
			snprintf(buf, size, "exit %llu", (v >> 8) & 0xff);
		break;
	case U_SEC: {
		time_t t = v;
		struct tm tm;

		if (!v) {
			snprintf(buf, size, "0");
			break;
		}
		if (gmtime_r(&t, &tm))
			strftime(buf, size, "%F %T", &tm);
		else
			snprintf(buf, size, "%llu", v);
		break;
	}
	default:
		snprintf(buf, size, "%llu", v);
	}
}

/* Fields as rows, one column per record. */
void print_table(const struct record *recs, int n, char **labels)
{
	char cell[64];

	printf("%-26s %-6s", "field", "unit");
	for (int i = 0; i < n; i++)
		printf(" %18s", labels && labels[i] ? labels[i] : "");
	printf("\n");
	for (size_t f = 0; f < nfields; f++) {
		printf("%-26s %-6s", fields[f].name, unit_name(fields[f].unit));
		for (int i = 0; i < n; i++) {
			format_field(cell, sizeof(cell), &recs[i], &fields[f]);
			printf(" %18s", cell);
		}
		printf("\n");
	}
}

/* A JSON string of at most @max bytes of @s; bytes >= 0x80 as Latin-1. */
void json_string(FILE *out, const char *s, size_t max)
{
	fputc('"', out);
	for (size_t i = 0; i < max && s[i]; i++) {
		unsigned char c = s[i];

		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || c >= 0x7f)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

/*
 * One record as one JSON object on one line. Values are in the kernel's
 * units (see taskstat(8)); fields the record is too short for are left out.
 * @extra, if set, is inserted verbatim after the header members, which
 * end with the record's cgroup.
 */
void json_record(FILE *out, const struct record *r, const char *extra)
{
	fprintf(out, "{\"type\":\"%s\",\"id\":%u,\"stats_len\":%d",
		r->aggr == TASKSTATS_TYPE_AGGR_TGID ? "tgid" : "pid", r->id, r->len);
	if (extra)
		fprintf(out, ",%s", extra);
	json_cgroup(out, r);
	for (size_t i = 0; i < nfields; i++) {
		const struct field *f = &fields[i];
		const char *p = (const char *)&r->ts + f->off;

		if (!field_present(r, f))
			continue;
		fprintf(out, ",\"%s\":", f->name);
		if (f->unit == U_STR) {
			json_string(out, p, f->size);
		} else if (f->unit == U_TS) {
			const struct __kernel_timespec *ts = (const void *)p;

			fprintf(out, "{\"tv_sec\":%lld,\"tv_nsec\":%lld}",
				(long long)ts->tv_sec, (long long)ts->tv_nsec);
		} else {
			fprintf(out, "%llu", field_value(&r->ts, f));
		}
	}
	fprintf(out, "}\n");
}

/*
 * The members "cgroup_id" and "cgroup" (its path below the cgroup2 mount),
 * each null if unknown: the record carries no id (not asked for, or a
 * kernel without them), or its cgroup is gone.
 */
void json_cgroup(FILE *out, const struct record *r)
{
	const char *path = r->has_cgid ? cgroup_path(r->cgid) : NULL;

	if (r->has_cgid)
		fprintf(out, ",\"cgroup_id\":%llu", (unsigned long long)r->cgid);
	else
		fprintf(out, ",\"cgroup_id\":null");
	fprintf(out, ",\"cgroup\":");
	if (path)
		json_string(out, path, strlen(path));
	else
		fprintf(out, "null");
}

static void fill_record(struct record *r, int aggr, const struct nlattr *nest)
{
	static bool warned;
	struct nlattr *in;

	memset(r, 0, sizeof(*r));
	r->aggr = aggr;
	mnl_attr_for_each_nested(in, nest) {
		switch (mnl_attr_get_type(in)) {
		case TASKSTATS_TYPE_PID:
		case TASKSTATS_TYPE_TGID:
			if (mnl_attr_get_payload_len(in) >= 4)
				r->id = mnl_attr_get_u32(in);
			break;
		case TASKSTATS_TYPE_STATS:
			r->len = mnl_attr_get_payload_len(in);
			if (r->len > (int)sizeof(r->ts))
				r->len = sizeof(r->ts);
			memcpy(&r->ts, mnl_attr_get_payload(in), r->len);
			break;
		case TASKSTATS_TYPE_CGROUP_ID:
			/* A u64 that may be only 4-byte aligned. */
			if (mnl_attr_get_payload_len(in) < sizeof(r->cgid))
				break;
			memcpy(&r->cgid, mnl_attr_get_payload(in), sizeof(r->cgid));
			r->has_cgid = true;
			break;
		}
	}
	/* Version 15 was published with fields inserted: only trust version. */
	if (r->len >= 2 && r->ts.version == 15) {
		if (!warned)
			fprintf(stderr,
				"taskstat: record version 15 has an unknown layout: showing only its version\n");
		warned = true;
		r->len = sizeof(r->ts.version);
	}
}

/*
 * Calls @fn for every record of a message: an answer carries one, an exit
 * message one or two (the task's and its group's), a dump message one
 * (a packed dump of older versions of this series, several).
 */
void walk_records(const struct nlmsghdr *h, record_fn fn, void *arg)
{
	struct nlattr *a;
	struct record r;

	mnl_attr_for_each(a, h, sizeof(struct genlmsghdr)) {
		int t = mnl_attr_get_type(a);

		if (t != TASKSTATS_TYPE_AGGR_PID && t != TASKSTATS_TYPE_AGGR_TGID)
			continue;
		fill_record(&r, t, a);
		fn(&r, arg);
	}
}

static void reply_add(const struct record *r, void *data)
{
	struct reply *rep = data;

	if (rep->n < (int)ARRAY_SIZE(rep->rec))
		rep->rec[rep->n++] = *r;
}

/* Fills a struct reply from an answer or an exit message. */
int reply_cb(const struct nlmsghdr *h, void *data)
{
	struct reply *rep = data;

	rep->n = 0;
	walk_records(h, reply_add, rep);
	return MNL_CB_OK;
}

/*
 * Delay classes other than cpu are only kept for tasks that started while
 * delay accounting was on. If they are all zero and it is off, say how to
 * switch it on, once.
 */
void delay_hint(const struct record *r)
{
	static const size_t counts[] = {
		offsetof(struct taskstats, blkio_count),
		offsetof(struct taskstats, swapin_count),
		offsetof(struct taskstats, freepages_count),
		offsetof(struct taskstats, thrashing_count),
		offsetof(struct taskstats, compact_count),
		offsetof(struct taskstats, wpcopy_count),
		offsetof(struct taskstats, irq_count),
	};
	static bool done;
	unsigned long long v;

	if (done)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++)
		if (record_u64(r, counts[i], &v) && v)
			return;
	if (delayacct_sysctl() != '0')
		return;
	done = true;
	fprintf(stderr,
		"taskstat: hint: delay accounting is off (kernel.task_delayacct = 0), so delays other than cpu read 0: run 'sysctl kernel.task_delayacct=1' (tasks started afterwards) or boot with 'delayacct'\n");
}

/* A short human form of a time or size for the columns of top and listen. */
void human(char *buf, size_t size, unsigned long long v, enum unit u)
{
	double x = v;

	if (u == U_US)
		x *= 1e3;
	if (u == U_KB)
		x *= 1024;
	if (!v) {
		snprintf(buf, size, "0");
	} else if (u == U_NS || u == U_US) {
		if (x < 1e6)
			snprintf(buf, size, "%.0fus", x / 1e3);
		else if (x < 1e9)
			snprintf(buf, size, "%.1fms", x / 1e6);
		else if (x < 60e9)
			snprintf(buf, size, "%.2fs", x / 1e9);
		else if (x < 3600e9)
			snprintf(buf, size, "%.1fm", x / 60e9);
		else
			snprintf(buf, size, "%.1fh", x / 3600e9);
	} else if (u == U_BYTES || u == U_KB) {
		if (x < 1024)
			snprintf(buf, size, "%.0fB", x);
		else if (x < 1024 * 1024)
			snprintf(buf, size, "%.1fK", x / 1024);
		else if (x < 1024.0 * 1024 * 1024)
			snprintf(buf, size, "%.1fM", x / (1024 * 1024));
		else
			snprintf(buf, size, "%.1fG", x / (1024.0 * 1024 * 1024));
	} else {
		snprintf(buf, size, "%llu", v);
	}
}

/*
 * kernel.task_delayacct: the first character of its file ('0' off, '1' on;
 * '\0' if empty), or -1 if there is none.
 */
int delayacct_sysctl(void)
{
	FILE *f = fopen("/proc/sys/kernel/task_delayacct", "r");
	int c;

	if (!f)
		return -1;
	c = fgetc(f);
	fclose(f);
	return c == EOF ? '\0' : c;
}

/* A decimal number in [0, @max]; false for anything else. */
bool parse_uint(const char *s, unsigned long long max, unsigned long long *v)
{
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return !errno && !*end && *v <= max;
}
