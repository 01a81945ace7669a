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
};

struct field {
	const char *name;
	size_t off, size;
	enum unit unit;
};

extern const struct field fields[];
extern const size_t nfields;

/* One record: which aggregate it was and the stats as long as the kernel sent. */
struct record {
	int aggr;		/* TASKSTATS_TYPE_AGGR_PID or _TGID */
	unsigned int id;
	int len;		/* bytes of struct taskstats the kernel sent */
	bool has_cgid;		/* the record carried TASKSTATS_TYPE_CGROUP_ID */
	uint64_t cgid;
	struct taskstats ts;
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
bool field_present(const struct record *r, const struct field *f);
unsigned long long field_value(const struct taskstats *ts, const struct field *f);
bool record_u64(const struct record *r, size_t off, unsigned long long *v);
void format_field(char *buf, size_t size, const struct record *r, const struct field *f);
void print_table(const struct record *recs, int n, char **labels);
void json_string(FILE *out, const char *s, size_t max);
void json_record(FILE *out, const struct record *r, const char *extra);
void json_cgroup(FILE *out, const struct record *r);
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
unsigned long long opt_uint(const char *arg, unsigned long long max, const char *what);

/* Set by SIGINT and SIGTERM once catch_stop() has run. */
extern sig_atomic_t stop;
void catch_stop(void);

#endif /* TASKSTAT_H */
