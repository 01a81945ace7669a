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
 * Every field of struct taskstats, in the order they are printed: who,
 * times, memory, I/O, then delays by class. fields[] (fields.c) gives
 * each its ABI offset and width: the tool reads records by those rather
 * than by the struct of the header it was built with, so that it reads
 * version 17 records when built against a distribution's older header.
 */
enum fid {
	F_version, F_ac_pid, F_ac_ppid, F_ac_tgid, F_ac_uid, F_ac_gid,
	F_ac_comm, F_ac_exitcode, F_ac_flag, F_ac_nice, F_ac_sched, F_ac_btime,
	F_ac_btime64, F_ac_etime, F_ac_tgetime, F_ac_utime, F_ac_stime,
	F_ac_utimescaled, F_ac_stimescaled, F_nvcsw, F_nivcsw, F_ac_minflt,
	F_ac_majflt, F_coremem, F_virtmem, F_hiwater_rss, F_hiwater_vm,
	F_read_char, F_write_char, F_read_syscalls, F_write_syscalls,
	F_read_bytes, F_write_bytes, F_cancelled_write_bytes,
	F_cpu_run_real_total, F_cpu_run_virtual_total,
	F_cpu_scaled_run_real_total, F_cpu_count, F_cpu_delay_total,
	F_blkio_count, F_blkio_delay_total, F_swapin_count,
	F_swapin_delay_total, F_freepages_count, F_freepages_delay_total,
	F_thrashing_count, F_thrashing_delay_total, F_compact_count,
	F_compact_delay_total, F_wpcopy_count, F_wpcopy_delay_total,
	F_irq_count, F_irq_delay_total, F_ac_exe_dev, F_ac_exe_inode,
	F_cpu_delay_max, F_cpu_delay_min, F_cpu_delay_max_ts,
	F_blkio_delay_max, F_blkio_delay_min, F_blkio_delay_max_ts,
	F_swapin_delay_max, F_swapin_delay_min, F_swapin_delay_max_ts,
	F_freepages_delay_max, F_freepages_delay_min, F_freepages_delay_max_ts,
	F_thrashing_delay_max, F_thrashing_delay_min, F_thrashing_delay_max_ts,
	F_compact_delay_max, F_compact_delay_min, F_compact_delay_max_ts,
	F_wpcopy_delay_max, F_wpcopy_delay_min, F_wpcopy_delay_max_ts,
	F_irq_delay_max, F_irq_delay_min, F_irq_delay_max_ts,
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
void format_field(char *buf, size_t size, const struct record *r, enum fid f);
void print_table(const struct record *recs, int n, char **labels);
size_t text_escape(char *buf, size_t size, const char *s, size_t len);
void json_string(FILE *out, const char *s, size_t max);
void json_timestamp_str(char *buf, size_t size);
void json_timestamp(FILE *out);
const char *json_io_rounded(void);
void json_value(FILE *out, const struct record *r, enum fid f);
void json_record(FILE *out, const struct record *r, const char *extra);
void json_cgroup(FILE *out, const struct record *r);
extern int io_rounding;
typedef void (*record_fn)(const struct record *r, void *arg);
void walk_records(const struct nlmsghdr *h, record_fn fn, void *arg);
int reply_cb(const struct nlmsghdr *h, void *data);
void delay_hint(const struct record *r);
void human(char *buf, size_t size, unsigned long long v, enum unit u);
void *grow_array(void *p, size_t n, size_t *cap, size_t size, size_t first);
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
int usage_bad(const char *cmd, const char *usage, const char *fmt, ...);
unsigned long long opt_uint(const char *arg, unsigned long long max, const char *what);

/* Set by SIGINT and SIGTERM once catch_stop() has run. */
extern sig_atomic_t stop;
void catch_stop(void);

#endif /* TASKSTAT_H */
