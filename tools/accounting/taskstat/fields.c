// SPDX-License-Identifier: GPL-2.0
/*
 * taskstat - the fields of struct taskstats: names, units, formatting, JSON
 * and the parsing of TASKSTATS_CMD_NEW messages into records.
 */
#define _GNU_SOURCE
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/genetlink.h>

#include "taskstat.h"

/*
 * Offsets and widths are facts of the ABI; "since" is the version that
 * added the field, "kind" which records fill it.
 */
const struct field fields[NFIELDS] = {
	[F_version] = { "version", 0, 2, U_COUNT, 1, K_TGID },
	[F_ac_pid] = { "ac_pid", 128, 4, U_ID, 2, K_PID },
	[F_ac_ppid] = { "ac_ppid", 132, 4, U_ID, 2, K_PID },
	[F_ac_tgid] = { "ac_tgid", 368, 4, U_ID, 12, K_PID },
	[F_ac_uid] = { "ac_uid", 120, 4, U_ID, 2, K_PID },
	[F_ac_gid] = { "ac_gid", 124, 4, U_ID, 2, K_PID },
	[F_ac_comm] = { "ac_comm", 80, 32, U_STR, 2, K_PID },
	[F_ac_exitcode] = { "ac_exitcode", 4, 4, U_WAIT, 2, K_EXIT },
	[F_ac_flag] = { "ac_flag", 8, 1, U_HEX, 2, K_PID },
	[F_ac_nice] = { "ac_nice", 9, 1, U_NICE, 2, K_PID },
	[F_ac_sched] = { "ac_sched", 112, 1, U_COUNT, 2, K_PID },
	[F_ac_btime] = { "ac_btime", 136, 4, U_SEC, 2, K_PID },
	[F_ac_btime64] = { "ac_btime64", 344, 8, U_SEC, 10, K_PID },
	[F_ac_etime] = { "ac_etime", 144, 8, U_US, 2, K_TGID },
	[F_ac_tgetime] = { "ac_tgetime", 376, 8, U_US, 12, K_PID },
	[F_ac_utime] = { "ac_utime", 152, 8, U_US, 2, K_TGID },
	[F_ac_stime] = { "ac_stime", 160, 8, U_US, 2, K_TGID },
	[F_ac_utimescaled] = { "ac_utimescaled", 288, 8, U_US, 6, K_PID },
	[F_ac_stimescaled] = { "ac_stimescaled", 296, 8, U_US, 6, K_PID },
	[F_nvcsw] = { "nvcsw", 272, 8, U_COUNT, 6, K_TGID },
	[F_nivcsw] = { "nivcsw", 280, 8, U_COUNT, 6, K_TGID },
	[F_ac_minflt] = { "ac_minflt", 168, 8, U_COUNT, 2, K_PID },
	[F_ac_majflt] = { "ac_majflt", 176, 8, U_COUNT, 2, K_PID },
	[F_coremem] = { "coremem", 184, 8, U_MBUS, 2, K_PID },
	[F_virtmem] = { "virtmem", 192, 8, U_MBUS, 2, K_PID },
	[F_hiwater_rss] = { "hiwater_rss", 200, 8, U_KB, 2, K_PID },
	[F_hiwater_vm] = { "hiwater_vm", 208, 8, U_KB, 2, K_PID },
	[F_read_char] = { "read_char", 216, 8, U_BYTES, 2, K_IO },
	[F_write_char] = { "write_char", 224, 8, U_BYTES, 2, K_IO },
	[F_read_syscalls] = { "read_syscalls", 232, 8, U_COUNT, 2, K_IO },
	[F_write_syscalls] = { "write_syscalls", 240, 8, U_COUNT, 2, K_IO },
	[F_read_bytes] = { "read_bytes", 248, 8, U_BYTES, 3, K_IO },
	[F_write_bytes] = { "write_bytes", 256, 8, U_BYTES, 3, K_IO },
	[F_cancelled_write_bytes] = { "cancelled_write_bytes", 264, 8, U_BYTES, 3, K_IO },
	[F_cpu_run_real_total] = { "cpu_run_real_total", 64, 8, U_NS, 1, K_TGID },
	[F_cpu_run_virtual_total] = { "cpu_run_virtual_total", 72, 8, U_NS, 1, K_TGID },
	[F_cpu_scaled_run_real_total] = { "cpu_scaled_run_real_total", 304, 8, U_NS, 6, K_TGID },
	[F_cpu_count] = { "cpu_count", 16, 8, U_COUNT, 1, K_TGID },
	[F_cpu_delay_total] = { "cpu_delay_total", 24, 8, U_NS, 1, K_TGID },
	[F_blkio_count] = { "blkio_count", 32, 8, U_COUNT, 1, K_TGID },
	[F_blkio_delay_total] = { "blkio_delay_total", 40, 8, U_NS, 1, K_TGID },
	[F_swapin_count] = { "swapin_count", 48, 8, U_COUNT, 1, K_TGID },
	[F_swapin_delay_total] = { "swapin_delay_total", 56, 8, U_NS, 1, K_TGID },
	[F_freepages_count] = { "freepages_count", 312, 8, U_COUNT, 7, K_TGID },
	[F_freepages_delay_total] = { "freepages_delay_total", 320, 8, U_NS, 7, K_TGID },
	[F_thrashing_count] = { "thrashing_count", 328, 8, U_COUNT, 9, K_TGID },
	[F_thrashing_delay_total] = { "thrashing_delay_total", 336, 8, U_NS, 9, K_TGID },
	[F_compact_count] = { "compact_count", 352, 8, U_COUNT, 11, K_TGID },
	[F_compact_delay_total] = { "compact_delay_total", 360, 8, U_NS, 11, K_TGID },
	[F_wpcopy_count] = { "wpcopy_count", 400, 8, U_COUNT, 13, K_TGID },
	[F_wpcopy_delay_total] = { "wpcopy_delay_total", 408, 8, U_NS, 13, K_TGID },
	[F_irq_count] = { "irq_count", 416, 8, U_COUNT, 14, K_TGID },
	[F_irq_delay_total] = { "irq_delay_total", 424, 8, U_NS, 14, K_TGID },
	[F_ac_exe_dev] = { "ac_exe_dev", 384, 8, U_HEX, 12, K_PID },
	[F_ac_exe_inode] = { "ac_exe_inode", 392, 8, U_COUNT, 12, K_PID },
	[F_cpu_delay_max] = { "cpu_delay_max", 432, 8, U_NS, 16, K_TGID },
	[F_cpu_delay_min] = { "cpu_delay_min", 440, 8, U_NS, 16, K_TGID },
	[F_cpu_delay_max_ts] = { "cpu_delay_max_ts", 560, 16, U_TS, 17, K_TGID },
	[F_blkio_delay_max] = { "blkio_delay_max", 448, 8, U_NS, 16, K_TGID },
	[F_blkio_delay_min] = { "blkio_delay_min", 456, 8, U_NS, 16, K_TGID },
	[F_blkio_delay_max_ts] = { "blkio_delay_max_ts", 576, 16, U_TS, 17, K_TGID },
	[F_swapin_delay_max] = { "swapin_delay_max", 464, 8, U_NS, 16, K_TGID },
	[F_swapin_delay_min] = { "swapin_delay_min", 472, 8, U_NS, 16, K_TGID },
	[F_swapin_delay_max_ts] = { "swapin_delay_max_ts", 592, 16, U_TS, 17, K_TGID },
	[F_freepages_delay_max] = { "freepages_delay_max", 480, 8, U_NS, 16, K_TGID },
	[F_freepages_delay_min] = { "freepages_delay_min", 488, 8, U_NS, 16, K_TGID },
	[F_freepages_delay_max_ts] = { "freepages_delay_max_ts", 608, 16, U_TS, 17, K_TGID },
	[F_thrashing_delay_max] = { "thrashing_delay_max", 496, 8, U_NS, 16, K_TGID },
	[F_thrashing_delay_min] = { "thrashing_delay_min", 504, 8, U_NS, 16, K_TGID },
	[F_thrashing_delay_max_ts] = { "thrashing_delay_max_ts", 624, 16, U_TS, 17, K_TGID },
	[F_compact_delay_max] = { "compact_delay_max", 512, 8, U_NS, 16, K_TGID },
	[F_compact_delay_min] = { "compact_delay_min", 520, 8, U_NS, 16, K_TGID },
	[F_compact_delay_max_ts] = { "compact_delay_max_ts", 640, 16, U_TS, 17, K_TGID },
	[F_wpcopy_delay_max] = { "wpcopy_delay_max", 528, 8, U_NS, 16, K_TGID },
	[F_wpcopy_delay_min] = { "wpcopy_delay_min", 536, 8, U_NS, 16, K_TGID },
	[F_wpcopy_delay_max_ts] = { "wpcopy_delay_max_ts", 656, 16, U_TS, 17, K_TGID },
	[F_irq_delay_max] = { "irq_delay_max", 544, 8, U_NS, 16, K_TGID },
	[F_irq_delay_min] = { "irq_delay_min", 552, 8, U_NS, 16, K_TGID },
	[F_irq_delay_max_ts] = { "irq_delay_max_ts", 672, 16, U_TS, 17, K_TGID },
};

/*
 * Built against a header of version 17 or later, the table must agree
 * with its struct; an older header lacks fields to compare.
 */
#if defined(TASKSTATS_VERSION) && TASKSTATS_VERSION >= 17
#define TS_AT(m, o) static_assert(offsetof(struct taskstats, m) == (o), "ABI offset")
TS_AT(version, 0);
TS_AT(ac_pid, 128);
TS_AT(ac_ppid, 132);
TS_AT(ac_tgid, 368);
TS_AT(ac_uid, 120);
TS_AT(ac_gid, 124);
TS_AT(ac_comm, 80);
TS_AT(ac_exitcode, 4);
TS_AT(ac_flag, 8);
TS_AT(ac_nice, 9);
TS_AT(ac_sched, 112);
TS_AT(ac_btime, 136);
TS_AT(ac_btime64, 344);
TS_AT(ac_etime, 144);
TS_AT(ac_tgetime, 376);
TS_AT(ac_utime, 152);
TS_AT(ac_stime, 160);
TS_AT(ac_utimescaled, 288);
TS_AT(ac_stimescaled, 296);
TS_AT(nvcsw, 272);
TS_AT(nivcsw, 280);
TS_AT(ac_minflt, 168);
TS_AT(ac_majflt, 176);
TS_AT(coremem, 184);
TS_AT(virtmem, 192);
TS_AT(hiwater_rss, 200);
TS_AT(hiwater_vm, 208);
TS_AT(read_char, 216);
TS_AT(write_char, 224);
TS_AT(read_syscalls, 232);
TS_AT(write_syscalls, 240);
TS_AT(read_bytes, 248);
TS_AT(write_bytes, 256);
TS_AT(cancelled_write_bytes, 264);
TS_AT(cpu_run_real_total, 64);
TS_AT(cpu_run_virtual_total, 72);
TS_AT(cpu_scaled_run_real_total, 304);
TS_AT(cpu_count, 16);
TS_AT(cpu_delay_total, 24);
TS_AT(blkio_count, 32);
TS_AT(blkio_delay_total, 40);
TS_AT(swapin_count, 48);
TS_AT(swapin_delay_total, 56);
TS_AT(freepages_count, 312);
TS_AT(freepages_delay_total, 320);
TS_AT(thrashing_count, 328);
TS_AT(thrashing_delay_total, 336);
TS_AT(compact_count, 352);
TS_AT(compact_delay_total, 360);
TS_AT(wpcopy_count, 400);
TS_AT(wpcopy_delay_total, 408);
TS_AT(irq_count, 416);
TS_AT(irq_delay_total, 424);
TS_AT(ac_exe_dev, 384);
TS_AT(ac_exe_inode, 392);
TS_AT(cpu_delay_max, 432);
TS_AT(cpu_delay_min, 440);
TS_AT(cpu_delay_max_ts, 560);
TS_AT(blkio_delay_max, 448);
TS_AT(blkio_delay_min, 456);
TS_AT(blkio_delay_max_ts, 576);
TS_AT(swapin_delay_max, 464);
TS_AT(swapin_delay_min, 472);
TS_AT(swapin_delay_max_ts, 592);
TS_AT(freepages_delay_max, 480);
TS_AT(freepages_delay_min, 488);
TS_AT(freepages_delay_max_ts, 608);
TS_AT(thrashing_delay_max, 496);
TS_AT(thrashing_delay_min, 504);
TS_AT(thrashing_delay_max_ts, 624);
TS_AT(compact_delay_max, 512);
TS_AT(compact_delay_min, 520);
TS_AT(compact_delay_max_ts, 640);
TS_AT(wpcopy_delay_max, 528);
TS_AT(wpcopy_delay_min, 536);
TS_AT(wpcopy_delay_max_ts, 656);
TS_AT(irq_delay_max, 544);
TS_AT(irq_delay_min, 552);
TS_AT(irq_delay_max_ts, 672);
#endif

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

unsigned int rec_version(const struct record *r)
{
	__u16 v = 0;

	if (r->len >= (int)sizeof(v))
		memcpy(&v, r->raw, sizeof(v));
	return v;
}

/*
 * Whether @r carries field @f: the kernel sent enough bytes, its version
 * has the field, and the kind of record fills it. A TGID record leaves
 * the ids, name, start time, memory and I/O at zero, and only an exit
 * record has an exit status: those zeros are not values.
 */
bool rec_has(const struct record *r, enum fid f)
{
	const struct field *fl = &fields[f];

	if (fl->off + fl->size > r->len || rec_version(r) < fl->since)
		return false;
	switch (fl->kind) {
	case K_TGID:
		return true;
	case K_EXIT:
		return r->exited && r->aggr == TASKSTATS_TYPE_AGGR_PID;
	default:
		return r->aggr == TASKSTATS_TYPE_AGGR_PID;
	}
}

/* Field @f of @r zero-extended; false (and 0) if @r does not carry it. */
bool rec_u64(const struct record *r, enum fid f, unsigned long long *v)
{
	const struct field *fl = &fields[f];
	const unsigned char *p = r->raw + fl->off;
	__u64 x = 0;
	__u32 w;
	__u16 h;

	*v = 0;
	if (!rec_has(r, f))
		return false;
	switch (fl->size) {
	case 1:
		x = *p;
		break;
	case 2:
		memcpy(&h, p, sizeof(h));
		x = h;
		break;
	case 4:
		memcpy(&w, p, sizeof(w));
		x = w;
		break;
	case 8:
		memcpy(&x, p, sizeof(x));
		break;
	default:
		return false;	/* not a number */
	}
	*v = x;
	return true;
}

/* A one-byte field holding a signed value (ac_nice); 0 if absent. */
long long rec_s64(const struct record *r, enum fid f)
{
	unsigned long long v;

	if (!rec_u64(r, f, &v))
		return 0;
	return fields[f].size == 1 ? (long long)(__s8)v : (long long)v;
}

/* The command name, NUL-terminated; "" if @r carries none. */
const char *rec_comm(const struct record *r)
{
	static char comm[TS_COMM_BYTES + 1];

	if (!rec_has(r, F_ac_comm))
		return "";
	memcpy(comm, r->raw + fields[F_ac_comm].off, TS_COMM_BYTES);
	comm[TS_COMM_BYTES] = '\0';
	return comm;
}

/* struct __kernel_timespec, which older headers lack: two 64-bit numbers. */
struct ts_time {
	int64_t tv_sec;
	int64_t tv_nsec;
};

/* Set by io_rounded(): 1 if this kernel rounds the I/O counters to KiB. */
int io_rounding = -1;

/* A struct __kernel_timespec field as a time of day, UTC; "-" if unset. */
static void format_ts(char *buf, size_t size, const unsigned char *p)
{
	struct ts_time ts;
	struct tm tm;
	time_t t;
	size_t n;

	memcpy(&ts, p, sizeof(ts));
	t = ts.tv_sec;
	if (!ts.tv_sec && !ts.tv_nsec) {
		snprintf(buf, size, "-");
		return;
	}
	/* A second count gmtime cannot convert is printed as a number. */
	if (!gmtime_r(&t, &tm)) {
		snprintf(buf, size, "%llds.%09lld", (long long)ts.tv_sec, (long long)ts.tv_nsec);
		return;
	}
	n = strftime(buf, size, "%T", &tm);
	snprintf(buf + n, size - n, ".%06lld", (long long)ts.tv_nsec / 1000);
}

/*
 * Field @f of @r for a text column: "-" if the record does not carry it,
 * names escaped (text_escape()), I/O counters the kernel rounds to KiB
 * followed by "~".
 */
void format_field(char *buf, size_t size, const struct record *r, enum fid f)
{
	const struct field *fl = &fields[f];
	unsigned long long v;

	if (!rec_has(r, f)) {
		snprintf(buf, size, "-");
		return;
	}
	if (fl->unit == U_TS) {
		format_ts(buf, size, r->raw + fl->off);
		return;
	}
	if (fl->unit == U_STR) {
		const char *s = f == F_ac_comm ? rec_comm(r) : (const char *)r->raw + fl->off;

		text_escape(buf, size, s, strnlen(s, fl->size));
		return;
	}
	rec_u64(r, f, &v);
	switch (fl->unit) {
	case U_NS:
		snprintf(buf, size, "%.3f", v / 1e6);
		break;
	case U_US:
		snprintf(buf, size, "%.3f", v / 1e3);
		break;
	case U_HEX:
		snprintf(buf, size, "0x%llx", v);
		break;
	case U_NICE:
		snprintf(buf, size, "%lld", rec_s64(r, f));
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

		if (v && gmtime_r(&t, &tm))
			strftime(buf, size, "%F %T", &tm);
		else
			snprintf(buf, size, "%llu", v);
		break;
	}
	default:
		snprintf(buf, size, "%llu%s", v,
			 fl->kind == K_IO && io_rounding == 1 ? "~" : "");
	}
}

/*
 * Fields as rows, one column per record, each column as wide as its
 * widest cell. A note follows when the I/O counters are rounded.
 */
void print_table(const struct record *recs, int n, char **labels)
{
	char cell[160];
	int w = 18;

	for (int i = 0; i < n; i++) {
		if (labels && labels[i] && (int)strlen(labels[i]) > w)
			w = strlen(labels[i]);
		for (size_t f = 0; f < NFIELDS; f++) {
			format_field(cell, sizeof(cell), &recs[i], f);
			if ((int)strlen(cell) > w)
				w = strlen(cell);
		}
	}
	printf("%-26s %-6s", "field", "unit");
	for (int i = 0; i < n; i++)
		printf(" %*s", w, labels && labels[i] ? labels[i] : "");
	printf("\n");
	for (size_t f = 0; f < NFIELDS; f++) {
		printf("%-26s %-6s", fields[f].name, unit_name(fields[f].unit));
		for (int i = 0; i < n; i++) {
			format_field(cell, sizeof(cell), &recs[i], f);
			printf(" %*s", w, cell);
		}
		printf("\n");
	}
	if (io_rounding == 1)
		printf("~ rounded down to a multiple of 1024 by this kernel\n");
}

/*
 * The length of the UTF-8 sequence at @s (at most @n bytes) if it is a
 * valid one, with its code point in @cp; 0 for a byte that starts none:
 * a stray continuation, an overlong form, a surrogate, beyond U+10FFFF,
 * or cut short.
 */
static size_t utf8_seq(const unsigned char *s, size_t n, unsigned int *cp)
{
	size_t len;
	unsigned int min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		len = 2;
		min = 0x80;
		*cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		len = 3;
		min = 0x800;
		*cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		len = 4;
		min = 0x10000;
		*cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	if (*cp < min || *cp > 0x10ffff || (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return len;
}

/* C0, DEL and C1: what a terminal would act on rather than show. */
static bool control(unsigned int cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

/*
 * @len bytes of @s made safe for a terminal and one line: printable UTF-8
 * as it is, a backslash as "\\", each byte of a control character or of
 * invalid UTF-8 as "\xNN". A task names itself (prctl(PR_SET_NAME),
 * /proc/self/comm) with any bytes it likes; this keeps its name from
 * moving the cursor or splitting a line. Always terminated, cut at a
 * whole character; returns the length written.
 */
size_t text_escape(char *buf, size_t size, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0;

	if (!size)
		return 0;
	for (size_t i = 0; i < len && u[i];) {
		unsigned int cp;
		size_t n = utf8_seq(u + i, len - i, &cp);
		char tmp[20];
		size_t t = 0;

		if (n && cp == '\\')
			t = snprintf(tmp, sizeof(tmp), "\\\\");
		else if (n && !control(cp))
			memcpy(tmp, u + i, t = n);
		else
			for (size_t j = 0; j < (n ? n : 1); j++)
				t += snprintf(tmp + t, sizeof(tmp) - t, "\\x%02x", u[i + j]);
		if (o + t >= size)
			break;
		memcpy(buf + o, tmp, t);
		o += t;
		i += n ? n : 1;
	}
	buf[o] = '\0';
	return o;
}

/*
 * A JSON string of at most @max bytes of @s (up to its NUL). Valid UTF-8
 * stays UTF-8, controls are escaped, and each byte of invalid UTF-8 is
 * written as a lone surrogate \udcNN, Python's "surrogateescape": no byte
 * is lost or taken for another character, and
 * s.encode("utf-8", "surrogateescape") gives back the bytes.
 */
void json_string(FILE *out, const char *s, size_t max)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = strnlen(s, max);

	fputc('"', out);
	for (size_t i = 0; i < len;) {
		unsigned int cp;
		size_t n = utf8_seq(u + i, len - i, &cp);

		if (!n)
			fprintf(out, "\\udc%02x", u[i]);
		else if (cp == '"' || cp == '\\')
			fprintf(out, "\\%c", cp);
		else if (cp == '\n')
			fputs("\\n", out);
		else if (cp == '\t')
			fputs("\\t", out);
		else if (control(cp))
			fprintf(out, "\\u%04x", cp);
		else
			fwrite(u + i, 1, n, out);
		i += n ? n : 1;
	}
	fputc('"', out);
}

/* "timestamp":"YYYY-MM-DDTHH:MM:SS.uuuuuuZ", now (UTC), no leading comma. */
void json_timestamp_str(char *buf, size_t size)
{
	struct timespec now;
	char date[32];
	struct tm tm;

	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(date, sizeof(date), "%FT%T", &tm);
	snprintf(buf, size, "\"timestamp\":\"%s.%06ldZ\"", date, now.tv_nsec / 1000);
}

void json_timestamp(FILE *out)
{
	char buf[64];

	json_timestamp_str(buf, sizeof(buf));
	fputs(buf, out);
}

/* io_rounding as a JSON value: null where the probe could not tell. */
const char *json_io_rounded(void)
{
	return io_rounding < 0 ? "null" : io_rounding ? "true" : "false";
}

/* Field @f of @r as a JSON value in the kernel's units; null if absent. */
void json_value(FILE *out, const struct record *r, enum fid f)
{
	const struct field *fl = &fields[f];
	const unsigned char *p = r->raw + fl->off;
	unsigned long long v;

	if (!rec_has(r, f)) {
		fputs("null", out);
	} else if (fl->unit == U_STR) {
		json_string(out, f == F_ac_comm ? rec_comm(r) : (const char *)p, fl->size);
	} else if (fl->unit == U_TS) {
		struct ts_time ts;

		memcpy(&ts, p, sizeof(ts));
		fprintf(out, "{\"tv_sec\":%lld,\"tv_nsec\":%lld}", (long long)ts.tv_sec,
			(long long)ts.tv_nsec);
	} else if (fl->unit == U_NICE) {
		fprintf(out, "%lld", rec_s64(r, f));
	} else {
		rec_u64(r, f, &v);
		fprintf(out, "%llu", v);
	}
}

/*
 * One record as one JSON object on one line. Values are in the kernel's
 * units (see taskstat(8)); a field the record does not carry is null,
 * one its version does not have is left out. @extra, if set, is inserted
 * verbatim after the header members, which end with the record's cgroup
 * and whether the I/O counters are rounded.
 */
void json_record(FILE *out, const struct record *r, const char *extra)
{
	fprintf(out, "{\"type\":\"%s\",\"id\":%u,\"stats_len\":%d",
		r->aggr == TASKSTATS_TYPE_AGGR_TGID ? "tgid" : "pid", r->id, r->len);
	if (extra)
		fprintf(out, ",%s", extra);
	json_cgroup(out, r);
	fprintf(out, ",\"io_rounded\":%s", json_io_rounded());
	for (size_t f = 0; f < NFIELDS; f++) {
		if (fields[f].off + fields[f].size > r->len || rec_version(r) < fields[f].since)
			continue;
		fprintf(out, ",\"%s\":", fields[f].name);
		json_value(out, r, f);
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

	memset(r, 0, offsetof(struct record, raw));
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
			if (r->len > (int)sizeof(r->raw))
				r->len = sizeof(r->raw);
			memcpy(r->raw, mnl_attr_get_payload(in), r->len);
			memset(r->raw + r->len, 0, sizeof(r->raw) - r->len);
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
	if (rec_version(r) == 15) {
		if (!warned)
			fprintf(stderr,
				"taskstat: record version 15 has an unknown layout: showing only its version\n");
		warned = true;
		r->len = 2;
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
	static const enum fid counts[] = {
		F_blkio_count, F_swapin_count, F_freepages_count, F_thrashing_count,
		F_compact_count, F_wpcopy_count, F_irq_count,
	};
	static bool done;
	unsigned long long v;

	if (done)
		return;
	for (size_t i = 0; i < ARRAY_SIZE(counts); i++)
		if (rec_u64(r, counts[i], &v) && v)
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

/*
 * The array @p of @n elements of @size bytes, with room for one more:
 * *@cap elements are allotted, doubled when full, @first the first time.
 * Out of memory the tool cannot go on: it says so and exits.
 */
void *grow_array(void *p, size_t n, size_t *cap, size_t size, size_t first)
{
	if (n < *cap)
		return p;
	*cap = *cap ? 2 * *cap : first;
	p = realloc(p, *cap * size);
	if (!p) {
		perror("taskstat");
		exit(1);
	}
	return p;
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
