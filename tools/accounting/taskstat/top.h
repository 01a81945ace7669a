/* SPDX-License-Identifier: GPL-2.0 */
/*
 * taskstat top - what its parts share. top.c collects samples and runs
 * the loop, view.c turns two samples into rows and renders them (text
 * lines or JSON), tui.c puts the lines on an ncurses screen.
 */
#ifndef TASKSTAT_TOP_H
#define TASKSTAT_TOP_H

#include <time.h>

#include "taskstat.h"

/* The counters top follows: a row holds the change of each over the interval. */
enum ctr {
	C_ac_utime,
	C_ac_stime,
	C_cpu_run_real_total,
	C_cpu_run_virtual_total,
	C_nvcsw,
	C_nivcsw,
	C_ac_minflt,
	C_ac_majflt,
	C_read_bytes,
	C_write_bytes,
	C_read_char,
	C_write_char,
	C_read_syscalls,
	C_write_syscalls,
	C_cancelled_write_bytes,
	C_cpu_count,
	C_cpu_delay_total,
	C_blkio_count,
	C_blkio_delay_total,
	C_swapin_count,
	C_swapin_delay_total,
	C_freepages_count,
	C_freepages_delay_total,
	C_thrashing_count,
	C_thrashing_delay_total,
	C_compact_count,
	C_compact_delay_total,
	C_wpcopy_count,
	C_wpcopy_delay_total,
	C_irq_count,
	C_irq_delay_total,
	NCTR
};

/* A sample: PID records sorted by id. */
struct snap {
	struct record *recs;
	size_t n, cap;
	double t;		/* CLOCK_MONOTONIC when its collection started */
};

void snap_add(struct snap *s, const struct record *r);
const struct record *snap_find(const struct snap *s, const struct record *r);

/* One task's change over the interval: a live one's, or one that exited in it. */
struct task {
	const struct record *r;
	unsigned long long d[NCTR];
	bool have[NCTR];
};

/* What a line shows: a task, or with -P the tasks of one thread group. */
struct row {
	unsigned int id, tgid;
	const struct record *r;	/* version and cgroup: the leader's, or a thread's */
	char comm[TS_COMM_BYTES];
	bool has_comm;
	bool exited;		/* every task of the row exited in the interval */
	unsigned int tasks;
	unsigned long long d[NCTR];
	bool have[NCTR];
};

/* The pressure of one resource: some and full, averages over 10, 60, 300 s. */
struct psi {
	const char *res;
	bool some, full;
	double avg[2][3];
};

#define NPSI 4

/* How a view is chosen: by options, then by keys. */
struct view {
	int sort;		/* index into sort_keys[] */
	bool reverse;		/* smallest first */
	bool procs;		/* one row per thread group */
	bool active;		/* only rows with CPU, delay or I/O */
	size_t limit;		/* at most this many rows; 0: no limit */
	size_t scroll;		/* TUI: the first row shown */
	double delay;		/* seconds between frames */
};

/* One frame: the tasks of an interval and what the header says. */
struct frame {
	int no;
	double interval;	/* seconds between the two samples */
	time_t when;
	char stamp[64];		/* its JSON "timestamp" member */
	struct task *tasks;	/* live ones, then those that exited */
	size_t n, nlive, cap;
	unsigned int version;	/* of the records */
	const char *via;	/* how they were collected, for line 1 */
	const char *cgpath;	/* --cgroup PATH, or NULL */
	bool subtree;
	const char *cgcounts;	/* --cgroup: the line of its tasks by state */
	const char *exits_off;	/* why exits are not counted, or NULL */
	bool exits_lost;
	int delayacct;		/* delayacct_sysctl() */
	struct psi psi[NPSI];
	bool psi_cgroup;
};

bool same_task(const struct record *old, const struct record *r);
void frame_add(struct frame *fr, const struct record *r, const struct snap *prev);

/* The lines of a text frame; the rows start at .head. */
enum line_kind { L_TEXT, L_NOTE, L_COLS, L_ROW, L_EXITED };

struct line {
	char *s;
	enum line_kind kind;
};

struct text {
	struct line *v;
	size_t n, cap, head;
	int sort_col[2];	/* bytes of the sorted column in the column header line */
};

struct sort_key {
	const char *name;
	int letter;		/* its key in the TUI, or 0 */
	int val;		/* what it sorts by: an enum val of view.c */
};

extern const struct sort_key sort_keys[];
extern const size_t nsort_keys;

int sort_key_by_name(const char *name);
size_t frame_rows(const struct frame *fr, const struct view *v, struct row **rows,
		  size_t *total);
void render_text(struct text *t, const struct frame *fr, const struct view *v,
		 const struct row *rows, size_t n, size_t total, int width, bool tall, bool tui);
void text_free(struct text *t);
void render_json(const struct frame *fr, const struct view *v, const struct row *rows,
		 size_t n);
size_t fit_width(char *out, size_t size, const char *s, int width, bool pad);

/* tui.c */
bool tui_open(void);
void tui_close(void);
void tui_size(int *rows, int *cols);
void tui_draw(const struct text *t, size_t *scroll);
void tui_message(const char *msg);
void tui_help(const char *help);
int tui_key(void);

#endif /* TASKSTAT_TOP_H */
