/* SPDX-License-Identifier: GPL-2.0 */
/*
 * taskstat - shared declarations: records, the field table, netlink.
 */
#ifndef TASKSTAT_H
#define TASKSTAT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <libmnl/libmnl.h>
#include <linux/taskstats.h>

/* Flag of a TASKSTATS_CMD_GET dump: one AGGR_TGID record per thread group. */
#ifndef TASKSTATS_CMD_ATTR_DUMP_TGID
#define TASKSTATS_CMD_ATTR_DUMP_TGID 5
#endif
/* A dump of one cgroup: u32, a cgroup directory fd; flag, and its descendants. */
#ifndef TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD
#define TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD 6
#endif
#ifndef TASKSTATS_CMD_ATTR_DUMP_SUBTREE
#define TASKSTATS_CMD_ATTR_DUMP_SUBTREE 7
#endif
/*
 * Cgroup ids (issue 48): a flag asking that records carry the task's
 * cgroup v2 id, a u64 in the AGGR_PID / AGGR_TGID nest after STATS.
 * DUMP_CGROUP_FD and DUMP_SUBTREE on REGISTER_CPUMASK make a listener
 * for one cgroup. Kept for builds against older headers.
 */
#ifndef TASKSTATS_TYPE_CGROUP_ID
#define TASKSTATS_TYPE_CGROUP_ID 7
#endif
#ifndef TASKSTATS_CMD_ATTR_CGROUP_ID
#define TASKSTATS_CMD_ATTR_CGROUP_ID 8
#endif

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum unit {
	U_COUNT,	/* plain number */
	U_ID,		/* identifier */
	U_NS,		/* nanoseconds, shown in ms */
	U_US,		/* microseconds, shown in ms */
	U_BYTES,
	U_KB,
	U_MBUS,		/* MB-usec integral */
	U_SEC,		/* seconds since the epoch */
	U_STR,
	U_HEX,
	U_WAIT,		/* a wait(2) status */
	U_TS,		/* struct __kernel_timespec, wall clock */
	U_NICE,		/* a nice value the kernel stores in a __u8: signed */
};

/* Which records fill a field (Documentation/accounting/taskstats.rst). */
enum kind {
	K_PID,		/* PID records only */
	K_TGID,		/* PID and TGID records */
	K_IO,		/* PID records; the I/O counters a kernel may round to KiB */
	K_EXIT,		/* exit records only: the exit status */
};

/*
 * Every field of struct taskstats as the ABI lays it out: name, offset,
 * width in bytes, unit, the TASKSTATS_VERSION that added it, and which
 * records carry it. Offsets and widths are facts of the ABI; the tool
 * reads records by them rather than by the struct of the header it was
 * built with, so that it reads version 17 records when built against a
 * distribution's older header. Printed in this order: who, times,
 * memory, I/O, then delays by class.
 */
#define TS_FIELDS(X) \
	X(version, 0, 2, U_COUNT, 1, K_TGID) \
	X(ac_pid, 128, 4, U_ID, 2, K_PID) \
	X(ac_ppid, 132, 4, U_ID, 2, K_PID) \
	X(ac_tgid, 368, 4, U_ID, 12, K_PID) \
	X(ac_uid, 120, 4, U_ID, 2, K_PID) \
	X(ac_gid, 124, 4, U_ID, 2, K_PID) \
	X(ac_comm, 80, 32, U_STR, 2, K_PID) \
	X(ac_exitcode, 4, 4, U_WAIT, 2, K_EXIT) \
	X(ac_flag, 8, 1, U_HEX, 2, K_PID) \
	X(ac_nice, 9, 1, U_NICE, 2, K_PID) \
	X(ac_sched, 112, 1, U_COUNT, 2, K_PID) \
	X(ac_btime, 136, 4, U_SEC, 2, K_PID) \
	X(ac_btime64, 344, 8, U_SEC, 10, K_PID) \
	X(ac_etime, 144, 8, U_US, 2, K_TGID) \
	X(ac_tgetime, 376, 8, U_US, 12, K_PID) \
	X(ac_utime, 152, 8, U_US, 2, K_TGID) \
	X(ac_stime, 160, 8, U_US, 2, K_TGID) \
	X(ac_utimescaled, 288, 8, U_US, 6, K_PID) \
	X(ac_stimescaled, 296, 8, U_US, 6, K_PID) \
	X(nvcsw, 272, 8, U_COUNT, 6, K_TGID) \
	X(nivcsw, 280, 8, U_COUNT, 6, K_TGID) \
	X(ac_minflt, 168, 8, U_COUNT, 2, K_PID) \
	X(ac_majflt, 176, 8, U_COUNT, 2, K_PID) \
	X(coremem, 184, 8, U_MBUS, 2, K_PID) \
	X(virtmem, 192, 8, U_MBUS, 2, K_PID) \
	X(hiwater_rss, 200, 8, U_KB, 2, K_PID) \
	X(hiwater_vm, 208, 8, U_KB, 2, K_PID) \
	X(read_char, 216, 8, U_BYTES, 2, K_IO) \
	X(write_char, 224, 8, U_BYTES, 2, K_IO) \
	X(read_syscalls, 232, 8, U_COUNT, 2, K_IO) \
	X(write_syscalls, 240, 8, U_COUNT, 2, K_IO) \
	X(read_bytes, 248, 8, U_BYTES, 3, K_IO) \
	X(write_bytes, 256, 8, U_BYTES, 3, K_IO) \
	X(cancelled_write_bytes, 264, 8, U_BYTES, 3, K_IO) \
	X(cpu_run_real_total, 64, 8, U_NS, 1, K_TGID) \
	X(cpu_run_virtual_total, 72, 8, U_NS, 1, K_TGID) \
	X(cpu_scaled_run_real_total, 304, 8, U_NS, 6, K_TGID) \
	X(cpu_count, 16, 8, U_COUNT, 1, K_TGID) \
	X(cpu_delay_total, 24, 8, U_NS, 1, K_TGID) \
	X(blkio_count, 32, 8, U_COUNT, 1, K_TGID) \
	X(blkio_delay_total, 40, 8, U_NS, 1, K_TGID) \
	X(swapin_count, 48, 8, U_COUNT, 1, K_TGID) \
	X(swapin_delay_total, 56, 8, U_NS, 1, K_TGID) \
	X(freepages_count, 312, 8, U_COUNT, 7, K_TGID) \
	X(freepages_delay_total, 320, 8, U_NS, 7, K_TGID) \
	X(thrashing_count, 328, 8, U_COUNT, 9, K_TGID) \
	X(thrashing_delay_total, 336, 8, U_NS, 9, K_TGID) \
	X(compact_count, 352, 8, U_COUNT, 11, K_TGID) \
	X(compact_delay_total, 360, 8, U_NS, 11, K_TGID) \
	X(wpcopy_count, 400, 8, U_COUNT, 13, K_TGID) \
	X(wpcopy_delay_total, 408, 8, U_NS, 13, K_TGID) \
	X(irq_count, 416, 8, U_COUNT, 14, K_TGID) \
	X(irq_delay_total, 424, 8, U_NS, 14, K_TGID) \
	X(ac_exe_dev, 384, 8, U_HEX, 12, K_PID) \
	X(ac_exe_inode, 392, 8, U_COUNT, 12, K_PID) \
	X(cpu_delay_max, 432, 8, U_NS, 16, K_TGID) \
	X(cpu_delay_min, 440, 8, U_NS, 16, K_TGID) \
	X(cpu_delay_max_ts, 560, 16, U_TS, 17, K_TGID) \
	X(blkio_delay_max, 448, 8, U_NS, 16, K_TGID) \
	X(blkio_delay_min, 456, 8, U_NS, 16, K_TGID) \
	X(blkio_delay_max_ts, 576, 16, U_TS, 17, K_TGID) \
	X(swapin_delay_max, 464, 8, U_NS, 16, K_TGID) \
	X(swapin_delay_min, 472, 8, U_NS, 16, K_TGID) \
	X(swapin_delay_max_ts, 592, 16, U_TS, 17, K_TGID) \
	X(freepages_delay_max, 480, 8, U_NS, 16, K_TGID) \
	X(freepages_delay_min, 488, 8, U_NS, 16, K_TGID) \
	X(freepages_delay_max_ts, 608, 16, U_TS, 17, K_TGID) \
	X(thrashing_delay_max, 496, 8, U_NS, 16, K_TGID) \
	X(thrashing_delay_min, 504, 8, U_NS, 16, K_TGID) \
	X(thrashing_delay_max_ts, 624, 16, U_TS, 17, K_TGID) \
	X(compact_delay_max, 512, 8, U_NS, 16, K_TGID) \
	X(compact_delay_min, 520, 8, U_NS, 16, K_TGID) \
	X(compact_delay_max_ts, 640, 16, U_TS, 17, K_TGID) \
	X(wpcopy_delay_max, 528, 8, U_NS, 16, K_TGID) \
	X(wpcopy_delay_min, 536, 8, U_NS, 16, K_TGID) \
	X(wpcopy_delay_max_ts, 656, 16, U_TS, 17, K_TGID) \
	X(irq_delay_max, 544, 8, U_NS, 16, K_TGID) \
	X(irq_delay_min, 552, 8, U_NS, 16, K_TGID) \
	X(irq_delay_max_ts, 672, 16, U_TS, 17, K_TGID)

enum fid {
#define TS_FID(m, off, size, unit, since, kind) F_##m,
	TS_FIELDS(TS_FID)
#undef TS_FID
	NFIELDS
};

struct field {
	const char *name;
	unsigned short off, size;
	enum unit unit;
	unsigned char since;
	enum kind kind;
};

extern const struct field fields[NFIELDS];

/* Longest STATS payload kept; a longer (later) record is cut to it. */
#define TS_RAW_MAX 1024
#define TS_COMM_BYTES 32

/* One record: which aggregate it was and the stats as long as the kernel sent. */
struct record {
	int aggr;		/* TASKSTATS_TYPE_AGGR_PID or _TGID */
	unsigned int id;
	int len;		/* bytes of the STATS attribute kept in raw[] */
	bool has_cgid;		/* the record carried TASKSTATS_TYPE_CGROUP_ID */
	bool exited;		/* an exit record, heard by a listener */
	bool comm_set;		/* rec_set_comm() filled ac_comm */
	uint64_t cgid;
	unsigned char raw[TS_RAW_MAX];
};

/* A TASKSTATS_CMD_NEW message: a PID record, and at a group's end a TGID one. */
struct reply {
	int n;
	struct record rec[2];
};

/* Options common to every subcommand. */
extern bool opt_json, opt_verbose;

/* fields.c */
const char *unit_name(enum unit u);
unsigned int rec_version(const struct record *r);
bool rec_has(const struct record *r, enum fid f);
bool rec_u64(const struct record *r, enum fid f, unsigned long long *v);
long long rec_s64(const struct record *r, enum fid f);
const char *rec_comm(const struct record *r);
void rec_set_comm(struct record *r, const char *comm);
void format_field(char *buf, size_t size, const struct record *r, enum fid f);
void print_table(const struct record *recs, int n, char **labels);
size_t text_escape(char *buf, size_t size, const char *s, size_t len);
void json_string(FILE *out, const char *s, size_t max);
void json_timestamp_str(char *buf, size_t size);
void json_timestamp(FILE *out);
void json_value(FILE *out, const struct record *r, enum fid f);
void json_record(FILE *out, const struct record *r, const char *extra);
void json_cgroup(FILE *out, const struct record *r);
extern int io_rounding;
typedef void (*record_fn)(const struct record *r, void *arg);
void walk_records(const struct nlmsghdr *h, record_fn fn, void *arg);
int reply_cb(const struct nlmsghdr *h, void *data);
void delay_hint(const struct record *r);
void human(char *buf, size_t size, unsigned long long v, enum unit u);
bool parse_uint(const char *s, unsigned long long max, unsigned long long *v);
int delayacct_sysctl(void);

/* nl.c */
enum ctx {
	CTX_SOCKET,
	CTX_FAMILY,
	CTX_TASK,
	CTX_LISTEN,
	CTX_DUMP,	/* a TASKSTATS dump, of every task or of one cgroup */
	CTX_CGROUP,	/* CGROUPSTATS_CMD_GET */
};

struct nl {
	struct mnl_socket *sock;
	unsigned int portid, seq;
	uint16_t family;
	bool ids;		/* requests ask for cgroup ids: nl_ask_ids() */
	int cgids;		/* nl_cgroup_ids()'s answer + 2; 0: not asked yet */
	char buf[1 << 16];
};

/* What an exit listener registers for. */
struct listener {
	const char *cpus;	/* a cpulist */
	int cgfd;		/* a cgroup v2 directory, or -1: every task */
	bool subtree;		/* with cgfd: and its descendants */
};

int report(enum ctx ctx, const char *what, int err);
void nl_open(struct nl *nl);
void nl_close(struct nl *nl);
struct nlmsghdr *nl_request(struct nl *nl, uint16_t type, uint8_t cmd, uint16_t flags);
int nl_talk(struct nl *nl, struct nlmsghdr *h, mnl_cb_t cb, void *data);
int nl_get(struct nl *nl, int attr, uint32_t id, mnl_cb_t cb, void *data);
int nl_cgroup_ids(struct nl *nl);
bool nl_ask_ids(struct nl *nl);
void nl_put_ids(struct nl *nl, struct nlmsghdr *h);
int report_no_cgroup_ids(const char *what, int probe);
int io_rounded(struct nl *nl);
void possible_cpus(char *cpus, size_t size);
int nl_register(struct nl *nl, const struct listener *l);
void nl_deregister(struct nl *nl, const char *cpus);
const char *nl_kernel_msg(void);
int cgroup_version(int fd);
struct cgroupstats;
int cgroup_counts(struct nl *nl, int fd, struct cgroupstats *cs);
int report_cgroup(enum ctx ctx, const char *what, const char *path, int fd, int err);

/* cgpath.c */
const char *cgroup_path(uint64_t id);

/* top.c */
int cmd_top(int argc, char **argv);

/*
 * taskstat.c: --json ('J'), --verbose ('v') and --help ('h') of every
 * command. COMMON_SHORTOPTS ends each getopt string, and each table of
 * long options ends with the three; common_opt() handles them and every
 * unknown option.
 */
#define COMMON_SHORTOPTS "vh"

int common_opt(int c, const char *help);
int usage_error(const char *usage);
int usage_bad(const char *cmd, const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
unsigned long long opt_uint(const char *arg, unsigned long long max, const char *what);

/* Set by SIGINT and SIGTERM once catch_stop() has run. */
extern sig_atomic_t stop;
void catch_stop(void);

#endif /* TASKSTAT_H */
