// SPDX-License-Identifier: GPL-2.0
/*
 * taskstat - read per-task statistics from the kernel's taskstats interface
 *
 *   taskstat get -p PID | -t TGID
 *   taskstat top [-d SECONDS] [-n ITERATIONS] [-s KEY] [-P] [-o] [-b] [-l N] [--once]
 *                [--cgroup PATH [--subtree]]
 *   taskstat listen [-c CPULIST] [--ppid PID] [--count N] [--table]
 *                   [--cgroup PATH [--subtree]] [--cgroup-ids]
 *   taskstat cgroup PATH
 *
 * Every command takes --json, --verbose and --help. Fields are printed with
 * their names from struct taskstats and converted to readable units: CPU
 * times and delays in milliseconds, I/O in bytes. A field is shown only if
 * the kernel's record is long enough to contain it, so the tool works
 * against kernels with older versions of the struct. See taskstat(8).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/cgroupstats.h>
#include <linux/genetlink.h>

#include "taskstat.h"

#define MAX_RECORDS 64

bool opt_json, opt_verbose;

static const char usage_all[] =
	"usage: taskstat [--json] [--verbose] COMMAND [OPTIONS]\n"
	"       taskstat get -p PID | -t TGID\n"
	"       taskstat top [-d SECONDS] [-n ITERATIONS] [-s KEY] [-P] [-o] [-b] [-l N] [--once]\n"
	"                    [--cgroup PATH [--subtree]]\n"
	"       taskstat listen [-c CPULIST] [--ppid PID] [--count N] [--table]\n"
	"                       [--cgroup PATH [--subtree]] [--cgroup-ids]\n"
	"       taskstat cgroup PATH\n"
	"\n"
	"Commands:\n"
	"  get       print the record of one task (-p) or thread group (-t)\n"
	"  top       every task (or one cgroup's) with its CPU %, delays and I/O over\n"
	"            each interval: a screen on a terminal, text or JSON otherwise\n"
	"  listen    print the records of tasks (or one cgroup's) as they exit\n"
	"  cgroup    print the task counts of a cgroup directory (v2 or v1)\n"
	"\n"
	"Options of every command:\n"
	"  --json        one JSON object per record, values in the kernel's units\n"
	"  -v, --verbose say what is being done on stderr\n"
	"  -h, --help    help for the command\n"
	"\n"
	"listen needs CAP_NET_ADMIN; so does every request on kernels without\n"
	"unprivileged self-query. See taskstat(8).\n";

static const char usage_get[] =
	"usage: taskstat get [--json] [-v] -p PID | -t TGID\n"
	"\n"
	"Prints every field of the record of task PID (-p, --pid) or of thread\n"
	"group TGID (-t, --tgid) with its unit, as far as the kernel's record\n"
	"version has it. --json prints one object with the raw values.\n";

static const char usage_listen[] =
	"usage: taskstat listen [-c CPULIST] [--ppid PID] [--count N] [--table]\n"
	"                       [--cgroup PATH [--subtree]] [--cgroup-ids] [--json] [-v]\n"
	"\n"
	"Registers for the exit records of the CPUs in CPULIST (-c, --cpus;\n"
	"default: every possible CPU) and prints one line per record as it\n"
	"arrives: the PID record of each exiting task, and the TGID record of\n"
	"its process when the last thread of a multi-threaded process exits.\n"
	"  --ppid PID   only tasks whose parent is PID\n"
	"  --count N    stop after N PID records (default: until SIGINT)\n"
	"  --table      collect the PID records (at most 64) and print them as\n"
	"               one table, fields as rows, at the end\n"
	"  --cgroup PATH  only the tasks that exit in the cgroup v2 directory\n"
	"               PATH (the kernel filters); the lines end with their cgroup\n"
	"  --subtree    with --cgroup: and in its descendants\n"
	"  --cgroup-ids end each line with the cgroup the task exited in\n"
	"  --json       one JSON object per record instead of a line, with\n"
	"               \"cgroup_id\" and \"cgroup\" where the kernel has them\n"
	"--cgroup and --cgroup-ids need a kernel with cgroup listeners: on any\n"
	"other taskstat fails rather than hear every exit.\n";

static const char usage_cgroup[] =
	"usage: taskstat cgroup [--json] [-v] PATH\n"
	"\n"
	"Prints how many tasks of the cgroup at PATH are sleeping, running,\n"
	"stopped, in uninterruptible sleep and waiting for I/O: the tasks in\n"
	"that cgroup itself, not in its descendants. PATH is a directory of a\n"
	"cgroup v2 hierarchy (such as /sys/fs/cgroup/system.slice/ssh.service)\n"
	"or of a v1 one. A kernel whose CGROUPSTATS_CMD_GET is upstream's\n"
	"understands only cgroup v1 and answers EINVAL for a v2 directory;\n"
	"'taskstat top --cgroup PATH' lists a cgroup's tasks on any kernel.\n"
	"Needs no privilege.\n";

int common_opt(int c, const char *help)
{
	switch (c) {
	case 'J':
		opt_json = true;
		return 1;
	case 'v':
		opt_verbose = true;
		return 1;
	case 'h':
		fputs(help, stdout);
		exit(0);
	}
	exit(usage_error(help));
}

/* Prints @usage to stderr; returns 2, the status of a usage error. */
int usage_error(const char *usage)
{
	fputs(usage, stderr);
	return 2;
}

/*
 * A usage error that names its cause: "taskstat: CMD: WHY" and the usage
 * on stderr; returns 2.
 */
int usage_bad(const char *cmd, const char *usage, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "taskstat: %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return usage_error(usage);
}

/* An option's decimal argument in [0, @max]; else says it is not a @what, exits 2. */
unsigned long long opt_uint(const char *arg, unsigned long long max, const char *what)
{
	unsigned long long v;

	if (!parse_uint(arg, max, &v)) {
		fprintf(stderr, "taskstat: not a %s: %s\n", what, arg);
		exit(2);
	}
	return v;
}

/* Read after every external call (recvfrom(), nanosleep()): no volatile needed. */
sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

void catch_stop(void)
{
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
}

static int cmd_get(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "tgid", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'J' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static struct nl nl;
	static struct reply rep;
	static char label[32];
	char *labels[1] = { label };
	unsigned long long id = 0;
	int attr = 0, c, err;

	while ((c = getopt_long(argc, argv, "p:t:" COMMON_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 'p':
		case 't':
			if (attr)
				return usage_bad("get", usage_get,
						 "-p and -t exclude each other, and each is given once");
			attr = c == 'p' ? TASKSTATS_CMD_ATTR_PID : TASKSTATS_CMD_ATTR_TGID;
			id = opt_uint(optarg, UINT32_MAX, "pid");
			break;
		default:
			common_opt(c, usage_get);
		}
	}
	if (optind < argc)
		return usage_bad("get", usage_get, "unexpected argument '%s'", argv[optind]);
	if (!attr)
		return usage_bad("get", usage_get, "-p PID or -t TGID is needed");
	nl_open(&nl);
	/* JSON carries the task's cgroup where the kernel can say it. */
	if (opt_json)
		nl_ask_ids(&nl);
	err = nl_get(&nl, attr, id, reply_cb, &rep);
	if (err)
		return report(CTX_TASK, attr == TASKSTATS_CMD_ATTR_PID ? "GET pid" : "GET tgid",
			      -err);
	if (!rep.n) {
		fprintf(stderr, "taskstat: the kernel's answer holds no record\n");
		return 1;
	}
	if (opt_verbose)
		fprintf(stderr, "taskstat: record version %u, %d bytes\n",
			rec_version(&rep.rec[0]), rep.rec[0].len);
	io_rounded(&nl);
	if (opt_json) {
		json_record(stdout, &rep.rec[0], NULL);
	} else {
		snprintf(label, sizeof(label), "%s %u",
			 rep.rec[0].aggr == TASKSTATS_TYPE_AGGR_TGID ? "tgid" : "pid",
			 rep.rec[0].id);
		print_table(&rep.rec[0], 1, labels);
	}
	delay_hint(&rep.rec[0]);
	nl_close(&nl);
	return 0;
}

struct listen_state {
	long long ppid;
	unsigned long long count, seen;
	bool table;
	bool show_cg;		/* a CGROUP column: --cgroup or --cgroup-ids */
	int n;
	struct record recs[MAX_RECORDS];
	char label[MAX_RECORDS][TS_COMM_BYTES * 4 + 16];	/* name/pid */
};

static void listen_header(const struct listen_state *st)
{
	printf("%-4s %7s %7s %-16s %-10s %8s %8s %8s %8s %8s %8s %8s %7s %7s %7s %3s%s\n",
	       "TYPE", "ID", "PPID", "COMM", "EXIT", "ELAPSED", "UTIME", "STIME",
	       "CPUDLY", "BLKIO", "SWAPIN", "IRQDLY", "MAXRSS", "READ", "WRITE", "VER",
	       st->show_cg ? " CGROUP" : "");
}

/* The CGROUP column: the path, the bare id of a cgroup gone since, or "-". */
static void print_cgroup_cell(const struct record *r)
{
	const char *path = r->has_cgid ? cgroup_path(r->cgid) : NULL;

	char buf[PATH_MAX * 4 + 1];

	if (path) {
		text_escape(buf, sizeof(buf), path, strlen(path));
		printf(" %s", buf);
	} else if (r->has_cgid) {
		printf(" id:%llu", (unsigned long long)r->cgid);
	} else {
		printf(" -");
	}
}

/* One record as one line; @pid is the PID record of the same message. */
static void listen_line(const struct listen_state *st, const struct record *r,
			const struct record *pid)
{
	static const struct {
		enum fid f;
		int width;
	} cols[] = {
		{ F_ac_etime, 8 }, { F_ac_utime, 8 }, { F_ac_stime, 8 },
		{ F_cpu_delay_total, 8 }, { F_blkio_delay_total, 8 },
		{ F_swapin_delay_total, 8 }, { F_irq_delay_total, 8 },
		{ F_hiwater_rss, 7 }, { F_read_bytes, 7 }, { F_write_bytes, 7 },
	};
	bool tgid = r->aggr == TASKSTATS_TYPE_AGGR_TGID;
	char exit[16], cell[32], comm[TS_COMM_BYTES * 4 + 1];

	format_field(exit, sizeof(exit), pid, F_ac_exitcode);
	format_field(comm, sizeof(comm), pid, F_ac_comm);
	format_field(cell, sizeof(cell), pid, F_ac_ppid);
	printf("%-4s %7u %7s %-16s %-10s", tgid ? "tgid" : "pid", r->id, cell, comm, exit);
	for (size_t i = 0; i < ARRAY_SIZE(cols); i++) {
		unsigned long long v;

		/* The ELAPSED of a TGID record is a sum over threads: not shown. */
		if ((tgid && cols[i].f == F_ac_etime) || !rec_u64(r, cols[i].f, &v))
			snprintf(cell, sizeof(cell), "-");
		else
			human(cell, sizeof(cell), v, fields[cols[i].f].unit);
		if (fields[cols[i].f].kind == K_IO && io_rounding == 1 && strcmp(cell, "-"))
			strcat(cell, "~");
		printf(" %*s", cols[i].width, cell);
	}
	printf(" %3u", rec_version(r));
	if (st->show_cg)
		print_cgroup_cell(r);
	printf("\n");
}

static int listen_cb(const struct nlmsghdr *h, void *data)
{
	struct listen_state *st = data;
	struct reply rep;
	const struct record *pid;
	char extra[128], stamp[64];
	unsigned long long ppid;

	reply_cb(h, &rep);
	if (!rep.n || rep.rec[0].aggr != TASKSTATS_TYPE_AGGR_PID || !rep.rec[0].len)
		return MNL_CB_OK;
	for (int i = 0; i < rep.n; i++)
		rep.rec[i].exited = true;
	pid = &rep.rec[0];
	rec_u64(pid, F_ac_ppid, &ppid);
	if (st->ppid >= 0 && ppid != (unsigned long long)st->ppid)
		return MNL_CB_OK;
	if (st->count && st->seen >= st->count)
		return MNL_CB_OK;
	st->seen++;
	delay_hint(pid);
	if (st->table) {
		if (st->n < MAX_RECORDS) {
			char comm[TS_COMM_BYTES * 4 + 1];

			st->recs[st->n] = *pid;
			format_field(comm, sizeof(comm), pid, F_ac_comm);
			snprintf(st->label[st->n], sizeof(st->label[st->n]), "%s/%u", comm,
				 pid->id);
			st->n++;
		}
		return MNL_CB_OK;
	}
	for (int i = 0; i < rep.n; i++) {
		if (!opt_json) {
			listen_line(st, &rep.rec[i], pid);
			continue;
		}
		/* One time for the records of one exit; a TGID record names its task. */
		if (!i)
			json_timestamp_str(stamp, sizeof(stamp));
		else
			snprintf(extra, sizeof(extra), "%s,\"pid\":%u", stamp, pid->id);
		json_record(stdout, &rep.rec[i], i ? extra : stamp);
	}
	return MNL_CB_OK;
}

/*
 * Asks for cgroup ids where listen needs them: --cgroup and --cgroup-ids
 * fail without them (a kernel without would ignore the cgroup and send
 * every exit), --json has them where the kernel does. Returns 0 or the
 * exit status of the failure.
 */
static int listen_ask_ids(struct nl *nl, const char *cgpath, bool show)
{
	char what[PATH_MAX + 32];

	if (!cgpath && !show && !opt_json)
		return 0;
	if (nl_ask_ids(nl) || (!cgpath && !show))
		return 0;
	if (cgpath)
		snprintf(what, sizeof(what), "listen --cgroup %s", cgpath);
	else
		snprintf(what, sizeof(what), "listen --cgroup-ids");
	return report_no_cgroup_ids(what, nl_cgroup_ids(nl));
}

/*
 * Whether @s is a cpulist as the kernel parses one (cpulist_parse()):
 * numbers and ranges N-M with N <= M, separated by commas. The kernel
 * answers EINVAL for anything else; this names the list instead.
 */
static bool cpulist_ok(const char *s)
{
	do {
		unsigned long a, b;
		char *end;

		if (*s < '0' || *s > '9')
			return false;
		a = strtoul(s, &end, 10);
		b = a;
		if (*end == '-') {
			if (end[1] < '0' || end[1] > '9')
				return false;
			b = strtoul(end + 1, &end, 10);
		}
		if (b < a || (*end && *end != ','))
			return false;
		s = *end ? end + 1 : end;
	} while (*s);
	return true;
}

static int cmd_listen(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cpus", required_argument, NULL, 'c' },
		{ "ppid", required_argument, NULL, 'P' },
		{ "count", required_argument, NULL, 'n' },
		{ "table", no_argument, NULL, 'T' },
		{ "cgroup", required_argument, NULL, 'C' },
		{ "subtree", no_argument, NULL, 'S' },
		{ "cgroup-ids", no_argument, NULL, 'I' },
		{ "json", no_argument, NULL, 'J' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static struct nl nl;
	static struct listen_state st = { .ppid = -1 };
	char *labels[MAX_RECORDS];
	char cpus[1024] = "", what[PATH_MAX + 64];
	struct listener l = { .cpus = cpus, .cgfd = -1 };
	const char *cgpath = NULL;
	int c, err;

	while ((c = getopt_long(argc, argv, "c:n:" COMMON_SHORTOPTS, opts, NULL)) != -1) {
		switch (c) {
		case 'c':
			snprintf(cpus, sizeof(cpus), "%s", optarg);
			break;
		case 'P':
			st.ppid = opt_uint(optarg, INT32_MAX, "number");
			break;
		case 'n':
			st.count = opt_uint(optarg, INT32_MAX, "number");
			break;
		case 'T':
			st.table = true;
			break;
		case 'C':
			cgpath = optarg;
			st.show_cg = true;
			break;
		case 'S':
			l.subtree = true;
			break;
		case 'I':
			st.show_cg = true;
			break;
		default:
			common_opt(c, usage_listen);
		}
	}
	if (optind < argc)
		return usage_bad("listen", usage_listen, "unexpected argument '%s'", argv[optind]);
	if (cpus[0] && !cpulist_ok(cpus))
		return usage_bad("listen", usage_listen,
				 "bad CPU list '%s' (CPU numbers and ranges: 0-3,8)", cpus);
	if (st.table && opt_json) {
		fprintf(stderr, "taskstat: --table and --json exclude each other\n");
		return 2;
	}
	if (l.subtree && !cgpath) {
		fprintf(stderr, "taskstat: --subtree needs --cgroup\n");
		return usage_error(usage_listen);
	}
	if (st.table && (!st.count || st.count > MAX_RECORDS))
		st.count = MAX_RECORDS;
	if (!cpus[0])
		possible_cpus(cpus, sizeof(cpus));
	/*
	 * Not O_DIRECTORY: whether it is a cgroup's is the kernel's to say.
	 * O_NONBLOCK: a FIFO named by mistake must not hang the open.
	 */
	if (cgpath) {
		l.cgfd = open(cgpath, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (l.cgfd < 0)
			return report(CTX_SOCKET, cgpath, errno);
	}
	nl_open(&nl);
	err = listen_ask_ids(&nl, cgpath, st.show_cg);
	if (err)
		return err;
	err = -nl_register(&nl, &l);
	if (err && cgpath) {
		snprintf(what, sizeof(what), "registering the exit listener for cgroup %s", cgpath);
		return report_cgroup(CTX_LISTEN, what, cgpath, l.cgfd, err);
	}
	if (err)
		return report(CTX_LISTEN, "registering the exit listener", err);
	setvbuf(stdout, NULL, _IOLBF, 0);
	io_rounded(&nl);
	if (!st.table && !opt_json)
		listen_header(&st);
	/* Scripts wait for this line: it comes once the listener is in place. */
	fprintf(stderr, "taskstat: listening on cpus %s%s%s%s\n", cpus,
		cgpath ? " for cgroup " : "", cgpath ? cgpath : "",
		l.subtree ? " and its descendants" : "");
	catch_stop();
	while (!stop && (!st.count || st.seen < st.count)) {
		int len = mnl_socket_recvfrom(nl.sock, nl.buf, sizeof(nl.buf));

		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				fprintf(stderr,
					"taskstat: the socket buffer overflowed: exit records were lost\n");
				continue;
			}
			return report(CTX_LISTEN, "receiving exit records", errno);
		}
		/* Exit records are not answers: any sequence, port 0. */
		mnl_cb_run(nl.buf, len, 0, 0, listen_cb, &st);
	}
	nl_deregister(&nl, cpus);
	nl_close(&nl);
	if (l.cgfd >= 0)
		close(l.cgfd);
	if (st.table) {
		for (int i = 0; i < st.n; i++)
			labels[i] = st.label[i];
		print_table(st.recs, st.n, labels);
	}
	return 0;
}

struct cg_answer {
	struct cgroupstats cs;
	bool found;
};

static int cgroup_cb(const struct nlmsghdr *h, void *data)
{
	struct cg_answer *ans = data;
	struct nlattr *a;

	mnl_attr_for_each(a, h, sizeof(struct genlmsghdr)) {
		size_t len = mnl_attr_get_payload_len(a);

		if (mnl_attr_get_type(a) != CGROUPSTATS_TYPE_CGROUP_STATS)
			continue;
		memcpy(&ans->cs, mnl_attr_get_payload(a),
		       len < sizeof(ans->cs) ? len : sizeof(ans->cs));
		ans->found = true;
	}
	return MNL_CB_OK;
}

/**
 * cgroup_counts() - CGROUPSTATS_CMD_GET of the cgroup directory open at @fd.
 * @nl: the socket to ask on
 * @fd: a cgroup directory, v1 or v2
 * @cs: gets the counts of its tasks by state
 *
 * Return: 0, -errno as the kernel answered, or -ENODATA for an answer
 * without statistics.
 */
int cgroup_counts(struct nl *nl, int fd, struct cgroupstats *cs)
{
	struct cg_answer ans = { 0 };
	struct nlmsghdr *h;
	int err;

	h = nl_request(nl, nl->family, CGROUPSTATS_CMD_GET, NLM_F_ACK);
	mnl_attr_put_u32(h, CGROUPSTATS_CMD_ATTR_FD, fd);
	err = nl_talk(nl, h, cgroup_cb, &ans);
	if (err)
		return err;
	if (!ans.found)
		return -ENODATA;
	*cs = ans.cs;
	return 0;
}

static int cmd_cgroup(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'J' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	static const char * const names[] = {
		"sleeping", "running", "stopped", "uninterruptible", "io_wait",
	};
	static struct nl nl;
	struct cgroupstats cs;
	const char *path;
	char what[PATH_MAX + 32];
	__u64 v[5];
	int c, fd, err, version;

	while ((c = getopt_long(argc, argv, COMMON_SHORTOPTS, opts, NULL)) != -1)
		common_opt(c, usage_cgroup);
	if (optind != argc - 1)
		return usage_error(usage_cgroup);
	path = argv[optind];
	fd = open(path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return report(CTX_SOCKET, path, errno);
	version = cgroup_version(fd);
	if (opt_verbose)
		fprintf(stderr, "taskstat: %s is %s\n", path,
			version == 2 ? "on cgroup v2" : version ? "on cgroup v1" :
			"on no cgroup file system");
	nl_open(&nl);
	err = cgroup_counts(&nl, fd, &cs);
	if (err == -ENODATA) {
		fprintf(stderr, "taskstat: the kernel's answer holds no cgroup statistics\n");
		return 1;
	}
	if (err) {
		snprintf(what, sizeof(what), "CGROUPSTATS_CMD_GET of %s", path);
		return report_cgroup(CTX_CGROUP, what, path, fd, -err);
	}
	close(fd);
	nl_close(&nl);
	v[0] = cs.nr_sleeping;
	v[1] = cs.nr_running;
	v[2] = cs.nr_stopped;
	v[3] = cs.nr_uninterruptible;
	v[4] = cs.nr_io_wait;
	if (opt_json) {
		printf("{\"cgroup\":");
		json_string(stdout, path, strlen(path));
		printf(",\"cgroup_version\":%d", version);
		for (int i = 0; i < 5; i++)
			printf(",\"nr_%s\":%llu", names[i], (unsigned long long)v[i]);
		printf("}\n");
		return 0;
	}
	printf("cgroup %s (v%d)\n", path, version);
	for (int i = 0; i < 5; i++)
		printf("%-16s %llu\n", names[i], (unsigned long long)v[i]);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "get", cmd_get },
		{ "top", cmd_top },
		{ "listen", cmd_listen },
		{ "cgroup", cmd_cgroup },
	};
	int i = 1;

	/* Options before the command apply to it. */
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(usage_all, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "--json")) {
			opt_json = true;
		} else if (!strcmp(argv[i], "-v") || !strcmp(argv[i], "--verbose")) {
			opt_verbose = true;
		} else {
			fprintf(stderr, "taskstat: unknown option %s\n", argv[i]);
			return usage_error(usage_all);
		}
	}
	if (i == argc)
		return usage_error(usage_all);
	for (size_t c = 0; c < ARRAY_SIZE(cmds); c++)
		if (!strcmp(argv[i], cmds[c].name))
			return cmds[c].fn(argc - i, argv + i);
	if (!strcmp(argv[i], "help")) {
		fputs(usage_all, stdout);
		return 0;
	}
	fprintf(stderr, "taskstat: unknown command %s\n", argv[i]);
	return usage_error(usage_all);
}
