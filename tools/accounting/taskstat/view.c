// SPDX-License-Identifier: GPL-2.0
/*
 * taskstat top - from two samples to what is shown. A frame holds each
 * task's change over the interval (the tasks alive at its end and those
 * that exited during it); rows are made from it for a view (per task or
 * per thread group, only active ones, sorted) and rendered as text lines
 * for the terminal or batch mode, or as JSON Lines. Rendering reads the
 * frame and never the kernel, so a key that changes the view redraws at
 * once, without a new sample.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "top.h"

/* Each counter's field, in the order of enum ctr; its JSON member is the field's name. */
static const enum fid ctr_field[NCTR] = {
	F_ac_utime, F_ac_stime, F_cpu_run_real_total, F_cpu_run_virtual_total, F_nvcsw,
	F_nivcsw, F_ac_minflt, F_ac_majflt, F_read_bytes, F_write_bytes, F_read_char,
	F_write_char, F_read_syscalls, F_write_syscalls, F_cancelled_write_bytes, F_cpu_count,
	F_cpu_delay_total, F_blkio_count, F_blkio_delay_total, F_swapin_count,
	F_swapin_delay_total, F_freepages_count, F_freepages_delay_total, F_thrashing_count,
	F_thrashing_delay_total, F_compact_count, F_compact_delay_total, F_wpcopy_count,
	F_wpcopy_delay_total, F_irq_count, F_irq_delay_total,
};

/* The delay classes, in the order of the record and of the columns. */
static const struct {
	const char *name, *hdr;
	enum ctr delay;
	int width;
} classes[] = {
	{ "cpu", "CPUDLY", C_cpu_delay_total, 7 },
	{ "blkio", "BLKIO", C_blkio_delay_total, 6 },
	{ "swapin", "SWAPIN", C_swapin_delay_total, 7 },
	{ "freepages", "FREEPG", C_freepages_delay_total, 7 },
	{ "thrashing", "THRASH", C_thrashing_delay_total, 7 },
	{ "compact", "COMPACT", C_compact_delay_total, 8 },
	{ "wpcopy", "WPCOPY", C_wpcopy_delay_total, 7 },
	{ "irq", "IRQ", C_irq_delay_total, 6 },
};

#define NCLASS ARRAY_SIZE(classes)

/* What a row is measured by: V_DLY + a class is that class's delay. */
enum val {
	V_CPU,
	V_DLY,
	V_MEM = V_DLY + NCLASS,	/* swapin + freepages + thrashing + compact */
	V_READ, V_WRITE, V_IO, V_RCHAR, V_WCHAR,
	V_CSW, V_IOW, V_MAJFLT,
};

/* How a value is shown: a percentage, bytes or events per second. */
enum vfmt { VF_PCT, VF_BYTES, VF_COUNT };

static const struct {
	enum ctr a, b;		/* the value is the sum of the two changes */
	enum vfmt fmt;
} vals[] = {
	[V_CPU] = { C_ac_utime, C_ac_stime, VF_PCT },
	[V_READ] = { C_read_bytes, C_read_bytes, VF_BYTES },
	[V_WRITE] = { C_write_bytes, C_write_bytes, VF_BYTES },
	[V_IO] = { C_read_bytes, C_write_bytes, VF_BYTES },
	[V_RCHAR] = { C_read_char, C_read_char, VF_BYTES },
	[V_WCHAR] = { C_write_char, C_write_char, VF_BYTES },
	[V_CSW] = { C_nvcsw, C_nivcsw, VF_COUNT },
	[V_IOW] = { C_blkio_count, C_blkio_count, VF_COUNT },
	[V_MAJFLT] = { C_ac_majflt, C_ac_majflt, VF_COUNT },
};	/* the delays' entries are zero: VF_PCT, and row_value() handles them */

/*
 * Value @v of a row over @interval seconds: CPU as % of one CPU, a delay
 * as % of the interval (ns of waiting / ns of interval: above 100 when
 * several threads wait), the rest per second. False if the records do
 * not carry it (a class a record version lacks).
 */
static bool row_value(const struct row *row, enum val v, double interval, double *x)
{
	enum ctr a, b;

	*x = 0;
	if (v >= V_DLY && v < V_MEM) {
		a = classes[v - V_DLY].delay;
		*x = row->d[a] / 1e7 / interval;
		return row->have[a];
	}
	if (v == V_MEM) {
		bool have = false;

		for (int c = 2; c <= 5; c++) {
			double y;

			have |= row_value(row, V_DLY + c, interval, &y);
			*x += y;
		}
		return have;
	}
	a = vals[v].a;
	b = vals[v].b;
	*x = row->d[a] + (b != a ? row->d[b] : 0);
	*x /= v == V_CPU ? 1e4 * interval : interval;	/* us of CPU time: % */
	return row->have[a];
}

const struct sort_key sort_keys[] = {
	{ "cpu", 'c', V_CPU }, { "cpu-delay", 'd', V_DLY + 0 }, { "blkio", 'b', V_DLY + 1 },
	{ "swapin", 0, V_DLY + 2 }, { "freepages", 0, V_DLY + 3 }, { "thrashing", 0, V_DLY + 4 },
	{ "compact", 0, V_DLY + 5 }, { "memory", 'm', V_MEM }, { "wpcopy", 0, V_DLY + 6 },
	{ "irq", 0, V_DLY + 7 }, { "io", 'i', V_IO }, { "read", 0, V_READ },
	{ "write", 0, V_WRITE },
};

const size_t nsort_keys = ARRAY_SIZE(sort_keys);

int sort_key_by_name(const char *name)
{
	for (size_t k = 0; k < nsort_keys; k++)
		if (!strcmp(name, sort_keys[k].name))
			return k;
	return -1;
}

/*
 * Whether @r, of the same id as the earlier @old, is the same task: a
 * reused id is a new task, which started at another time. The kernel
 * derives the start second from two clocks, so it may move by one.
 */
bool same_task(const struct record *old, const struct record *r)
{
	unsigned long long a, b;

	rec_u64(old, F_ac_btime64, &a);
	rec_u64(r, F_ac_btime64, &b);
	return a + 1 >= b && b + 1 >= a;
}

/*
 * Adds task @r to the frame with its change since the sample @prev: what
 * it had there is subtracted; a task not there started during the
 * interval, and all it has counts.
 */
void frame_add(struct frame *fr, const struct record *r, const struct snap *prev)
{
	const struct record *old = snap_find(prev, r);
	struct task *t;

	if (old && !same_task(old, r))
		old = NULL;
	fr->tasks = grow_array(fr->tasks, fr->n, &fr->cap, sizeof(*fr->tasks), 256);
	t = &fr->tasks[fr->n++];
	t->r = r;
	for (size_t i = 0; i < NCTR; i++) {
		unsigned long long v, o = 0;

		t->have[i] = rec_u64(r, ctr_field[i], &v);
		if (old)
			rec_u64(old, ctr_field[i], &o);
		t->d[i] = v >= o ? v - o : v;
	}
}

static unsigned int task_tgid(const struct record *r)
{
	unsigned long long tgid;

	return rec_u64(r, F_ac_tgid, &tgid) && tgid ? tgid : r->id;
}

static void task_row(struct row *row, const struct task *t, bool exited)
{
	memset(row, 0, sizeof(*row));
	row->id = t->r->id;
	row->tgid = task_tgid(t->r);
	row->r = t->r;
	row->exited = exited;
	row->tasks = 1;
	row->has_comm = rec_has(t->r, F_ac_comm);
	snprintf(row->comm, sizeof(row->comm), "%s", rec_comm(t->r));
	memcpy(row->d, t->d, sizeof(row->d));
	memcpy(row->have, t->have, sizeof(row->have));
}

/* A thread group whose leader is not among its rows: the name /proc has. */
static bool proc_comm(unsigned int tgid, char *comm, size_t size)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%u/comm", tgid);
	f = fopen(path, "r");
	if (!f)
		return false;
	ok = fgets(comm, size, f);
	fclose(f);
	comm[strcspn(comm, "\n")] = '\0';
	return ok;
}

static int cmp_tgid(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	if (x->tgid != y->tgid)
		return x->tgid < y->tgid ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/*
 * Sums the task rows of each thread group into one (@rows sorted by
 * tgid), I/O included: the PID records, not the group's TGID record,
 * which carries no I/O. A task that exited in the interval counts in its
 * group; the group is exited if all its tasks are. Returns the rows left.
 */
static size_t merge_groups(struct row *rows, size_t n)
{
	size_t out = 0;

	qsort(rows, n, sizeof(*rows), cmp_tgid);
	for (size_t i = 0; i < n; i++) {
		struct row *g = &rows[out], *t = &rows[i];
		bool leader = t->id == t->tgid;

		if (!out || rows[out - 1].tgid != t->tgid) {
			*g = *t;
			g->id = t->tgid;
			out++;
			continue;
		}
		g = &rows[out - 1];
		g->tasks++;
		g->exited &= t->exited;
		for (size_t k = 0; k < NCTR; k++) {
			g->d[k] += t->d[k];
			g->have[k] |= t->have[k];
		}
		if (leader) {
			g->r = t->r;
			memcpy(g->comm, t->comm, sizeof(g->comm));
			g->has_comm = t->has_comm;
		}
	}
	for (size_t i = 0; i < out; i++)
		if (rows[i].r->id != rows[i].tgid)
			rows[i].has_comm |= proc_comm(rows[i].tgid, rows[i].comm,
						      sizeof(rows[i].comm));
	return out;
}

/* Did something in the interval: CPU time, a delay or I/O. */
static bool row_active(const struct row *row)
{
	static const enum ctr busy[] = {
		C_ac_utime, C_ac_stime, C_read_bytes, C_write_bytes, C_read_char,
		C_write_char, C_cpu_delay_total, C_blkio_delay_total, C_swapin_delay_total,
		C_freepages_delay_total, C_thrashing_delay_total, C_compact_delay_total,
		C_wpcopy_delay_total, C_irq_delay_total,
	};

	for (size_t i = 0; i < ARRAY_SIZE(busy); i++)
		if (row->d[busy[i]])
			return true;
	return false;
}

/* qsort() has no argument for the order: set before each sort. */
static enum val sort_by;
static bool sort_reverse;

static int cmp_rows(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	double vx, vy;
	int c = 0;

	row_value(x, sort_by, 1, &vx);
	row_value(y, sort_by, 1, &vy);
	if (vx == vy) {
		row_value(x, V_CPU, 1, &vx);
		row_value(y, V_CPU, 1, &vy);
	}
	if (vx != vy)
		c = vx < vy ? 1 : -1;
	if (sort_reverse)
		c = -c;
	return c ? c : x->id < y->id ? -1 : x->id > y->id;
}

/*
 * The rows of view @v, in @rows (malloc()ed; the caller frees): per task
 * or per thread group, only the active ones with v->active, sorted, at
 * most v->limit. Returns how many; *@total is how many tasks or groups
 * the frame has.
 */
size_t frame_rows(const struct frame *fr, const struct view *v, struct row **rows,
		  size_t *total)
{
	struct row *r = malloc((fr->n ? fr->n : 1) * sizeof(*r));
	size_t n = 0;

	if (!r) {
		perror("taskstat");
		exit(1);
	}
	for (size_t i = 0; i < fr->n; i++)
		task_row(&r[n++], &fr->tasks[i], i >= fr->nlive);
	if (v->procs)
		n = merge_groups(r, n);
	*total = n;
	if (v->active) {
		size_t keep = 0;

		for (size_t i = 0; i < n; i++)
			if (row_active(&r[i]))
				r[keep++] = r[i];
		n = keep;
	}
	sort_by = sort_keys[v->sort].val;
	sort_reverse = v->reverse;
	qsort(r, n, sizeof(*r), cmp_rows);
	if (v->limit && n > v->limit)
		n = v->limit;
	*rows = r;
	return n;
}

/* Every task of the frame summed, exited ones too: the totals of the header. */
static void frame_total(const struct frame *fr, struct row *sum)
{
	memset(sum, 0, sizeof(*sum));
	for (size_t i = 0; i < fr->n; i++)
		for (size_t k = 0; k < NCTR; k++) {
			sum->d[k] += fr->tasks[i].d[k];
			sum->have[k] |= fr->tasks[i].have[k];
		}
}

/*
 * The display width of the character at @s, and its length in @len: the
 * locale's idea (setlocale() ran), one column for what it cannot decode.
 */
static int char_width(const char *s, size_t *len)
{
	mbstate_t st;
	wchar_t wc;
	size_t n;
	int w;

	memset(&st, 0, sizeof(st));
	n = mbrtowc(&wc, s, strlen(s), &st);
	if (n == (size_t)-1 || n == (size_t)-2 || !n) {
		*len = 1;
		return 1;
	}
	*len = n;
	w = wcwidth(wc);
	return w < 0 ? 1 : w;
}

/*
 * @s cut to @width display columns (not if @width < 0) and with @pad,
 * padded with spaces to it, into @out. Names are escaped before (text
 * cells hold printable UTF-8), so columns are counted, not bytes: a
 * name "é" takes one column in two bytes. Returns the bytes written.
 */
size_t fit_width(char *out, size_t size, const char *s, int width, bool pad)
{
	size_t o = 0, len;
	int cols = 0;

	if (!size)
		return 0;
	while (*s) {
		int w = char_width(s, &len);

		if ((width >= 0 && cols + w > width) || o + len >= size)
			break;
		memcpy(out + o, s, len);
		o += len;
		s += len;
		cols += w;
	}
	while (pad && cols < width && o + 1 < size) {
		out[o++] = ' ';
		cols++;
	}
	out[o] = '\0';
	return o;
}

/* The spaces that pad @s to @width display columns. */
static int pad_to(const char *s, int width)
{
	size_t len;

	for (; *s && width > 0; s += len)
		width -= char_width(s, &len);
	return width > 0 ? width : 0;
}

/* A growing string, for one line. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static void sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(b->s ? b->s + b->len : NULL, b->s ? b->cap - b->len : 0, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if (b->s && b->len + n < b->cap)
			break;
		b->cap = 2 * (b->cap + n + 64);
		b->s = realloc(b->s, b->cap);
		if (!b->s) {
			perror("taskstat");
			exit(1);
		}
	}
	b->len += n;
}

/* Ends the line being built in @b as a line of @t; @b starts anew. */
static void text_add(struct text *t, enum line_kind kind, struct sbuf *b)
{
	t->v = grow_array(t->v, t->n, &t->cap, sizeof(*t->v), 64);
	t->v[t->n].s = b->s ? b->s : strdup("");
	t->v[t->n++].kind = kind;
	memset(b, 0, sizeof(*b));
}

void text_free(struct text *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].s);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* A rate in at most 5 characters: 999, 1.5K, 12K, 3.4M (1024s for bytes). */
static void fmt_rate(char *buf, size_t size, double x, double base)
{
	static const char units[] = " KMGTP";
	int u = 0;

	while (x >= 999.5 && u < 5) {
		x /= base;
		u++;
	}
	if (!u)
		snprintf(buf, size, x && x < 9.95 ? "%.1f" : "%.0f", x);
	else
		snprintf(buf, size, x < 9.95 ? "%.1f%c" : "%.0f%c", x, units[u]);
}

static void fmt_value(char *buf, size_t size, const struct row *row, enum val v,
		      double interval)
{
	double x;

	if (!row_value(row, v, interval, &x))
		snprintf(buf, size, "-");
	else if (vals[v].fmt != VF_PCT)
		fmt_rate(buf, size, x, vals[v].fmt == VF_BYTES ? 1024 : 1000);
	else
		snprintf(buf, size, x < 999.95 ? "%.1f" : "%.0f", x);
}

/* The columns, in the order shown; a layout takes them by priority. */
enum col_kind { COL_TGID, COL_ID, COL_COMM, COL_FLAG, COL_TASKS, COL_VAL };

enum col_mode { CM_BOTH, CM_THREADS, CM_PROCS };

struct column {
	const char *hdr;
	enum col_kind kind;
	enum val val;
	int width, prio;
	enum col_mode mode;
};

#define DCOL(c, prio) { NULL, COL_VAL, V_DLY + (c), 0, prio, CM_BOTH }

static const struct column columns[] = {
	{ "TGID", COL_TGID, 0, 7, 3, CM_THREADS },
	{ "TID", COL_ID, 0, 7, 0, CM_BOTH },
	{ "COMM", COL_COMM, 0, 15, 0, CM_BOTH },
	{ "X", COL_FLAG, 0, 1, 0, CM_BOTH },
	{ "THR", COL_TASKS, 0, 4, 3, CM_PROCS },
	{ "CPU%", COL_VAL, V_CPU, 6, 0, CM_BOTH },
	DCOL(0, 0), DCOL(1, 0), DCOL(2, 4), DCOL(3, 4), DCOL(4, 4), DCOL(5, 4),
	{ "MEMDLY", COL_VAL, V_MEM, 7, 1, CM_BOTH },
	DCOL(6, 4), DCOL(7, 2),
	{ "READ/s", COL_VAL, V_READ, 7, 0, CM_BOTH },
	{ "WRITE/s", COL_VAL, V_WRITE, 8, 0, CM_BOTH },
	{ "RCHAR/s", COL_VAL, V_RCHAR, 8, 5, CM_BOTH },
	{ "WCHAR/s", COL_VAL, V_WCHAR, 8, 5, CM_BOTH },
	{ "CSW/s", COL_VAL, V_CSW, 6, 6, CM_BOTH },
	{ "IOW/s", COL_VAL, V_IOW, 6, 6, CM_BOTH },
	{ "MAJFL/s", COL_VAL, V_MAJFLT, 8, 6, CM_BOTH },
};

#define NCOLS ARRAY_SIZE(columns)
#define MAX_PRIO 6
#define COMM_MAX 32		/* the widest COMM a layout gives (a name escaped) */

static const char *col_hdr(const struct column *c, bool procs)
{
	if (c->kind == COL_ID)
		return procs ? "PID" : "TID";
	return c->hdr ? c->hdr : classes[c->val - V_DLY].hdr;
}

static int col_width(const struct column *c)
{
	return c->width ? c->width : classes[c->val - V_DLY].width;
}

/* Which columns a line of @width shows (all if @width < 0), and COMM's width. */
struct layout {
	bool show[NCOLS];
	int comm;
};

/*
 * Takes the columns by priority while they fit, each with its separating
 * space, COMM at 15; what is left widens COMM up to COMM_MAX. 80 columns
 * hold the ids, COMM, CPU%, the cpu, blkio, memory and irq delays and
 * I/O; 200 hold every column.
 */
static void choose_layout(struct layout *l, int width, bool procs)
{
	int used = -1;

	memset(l, 0, sizeof(*l));
	l->comm = 15;
	for (int p = 0; p <= MAX_PRIO; p++)
		for (size_t i = 0; i < NCOLS; i++) {
			const struct column *c = &columns[i];

			if (c->prio != p || (c->mode == CM_THREADS && procs) ||
			    (c->mode == CM_PROCS && !procs))
				continue;
			if (width >= 0 && p && used + 1 + col_width(c) > width)
				continue;
			l->show[i] = true;
			used += 1 + col_width(c);
		}
	if (width < 0)
		l->comm = 16;
	else if (width > used)
		l->comm += width - used < COMM_MAX - 15 ? width - used : COMM_MAX - 15;
}

static bool col_sorted(const struct column *c, int sort)
{
	enum val v = sort_keys[sort].val;

	return c->kind == COL_VAL &&
	       (c->val == v || (v == V_IO && (c->val == V_READ || c->val == V_WRITE)));
}

/*
 * The column header line; the sorted column's name ends with '*', and
 * t->sort_col says where it is, for the terminal to highlight it.
 */
static void column_header(struct text *t, const struct layout *l, const struct view *v)
{
	struct sbuf b = { 0 };
	char cell[64];

	t->sort_col[0] = 0;
	t->sort_col[1] = 0;
	for (size_t i = 0; i < NCOLS; i++) {
		const struct column *c = &columns[i];
		bool sorted = col_sorted(c, v->sort);

		if (!l->show[i])
			continue;
		if (b.len)
			sb_printf(&b, " ");
		snprintf(cell, sizeof(cell), "%s%s", col_hdr(c, v->procs), sorted ? "*" : "");
		if (sorted && !t->sort_col[1])
			t->sort_col[0] = b.len;
		if (c->kind == COL_COMM || c->kind == COL_FLAG)
			sb_printf(&b, "%-*s", c->kind == COL_COMM ? l->comm : 1, cell);
		else
			sb_printf(&b, "%*s", col_width(c), cell);
		if (sorted)
			t->sort_col[1] = b.len;
	}
	text_add(t, L_COLS, &b);
}

/*
 * One row. The name is escaped (a task names itself with any bytes)
 * and fitted to COMM's width; in batch mode (@cut false) a longer name
 * is kept whole and pushes the rest of its line right.
 */
static void row_line(struct text *t, const struct layout *l, const struct row *row,
		     const struct view *v, double interval, bool cut)
{
	char esc[TS_COMM_BYTES * 4 + 1], name[sizeof(esc) + COMM_MAX * 4], cell[32];
	struct sbuf b = { 0 };

	for (size_t i = 0; i < NCOLS; i++) {
		const struct column *c = &columns[i];

		if (!l->show[i])
			continue;
		if (b.len)
			sb_printf(&b, " ");
		switch (c->kind) {
		case COL_TGID:
			sb_printf(&b, "%*u", c->width, row->tgid);
			break;
		case COL_ID:
			sb_printf(&b, "%*u", c->width, row->id);
			break;
		case COL_COMM:
			if (row->has_comm)
				text_escape(esc, sizeof(esc), row->comm, sizeof(row->comm));
			else
				snprintf(esc, sizeof(esc), "-");
			fit_width(name, sizeof(name), esc, cut ? l->comm : -1, false);
			sb_printf(&b, "%s%*s", name, pad_to(name, l->comm), "");
			break;
		case COL_FLAG:
			sb_printf(&b, "%s", row->exited ? "X" : " ");
			break;
		case COL_TASKS:
			sb_printf(&b, "%*u", c->width, row->tasks);
			break;
		case COL_VAL:
			fmt_value(cell, sizeof(cell), row, c->val, interval);
			sb_printf(&b, "%*s", col_width(c), cell);
			break;
		}
	}
	text_add(t, row->exited ? L_EXITED : L_ROW, &b);
}

static void psi_block(struct text *t, const struct frame *fr)
{
	static const char * const kind[] = { "some", "full" };
	struct sbuf b = { 0 };
	bool head = false;

	for (size_t i = 0; i < NPSI; i++) {
		const struct psi *p = &fr->psi[i];

		if (!p->some && !p->full)
			continue;
		if (!head) {
			sb_printf(&b, "pressure of the %s, %% of time stalled over 10/60/300 s:",
				  fr->psi_cgroup ? "cgroup" : "system");
			text_add(t, L_TEXT, &b);
			head = true;
		}
		sb_printf(&b, "  %-7s", p->res);
		for (int k = 0; k < 2; k++)
			if (k ? p->full : p->some)
				sb_printf(&b, "  %-4s %6.2f %6.2f %6.2f", kind[k], p->avg[k][0],
					  p->avg[k][1], p->avg[k][2]);
		text_add(t, L_TEXT, &b);
	}
}

/* The pressure in one line: some and full over the last 10 s. */
static void psi_line(struct text *t, const struct frame *fr)
{
	struct sbuf b = { 0 };

	for (size_t i = 0; i < NPSI; i++) {
		const struct psi *p = &fr->psi[i];

		if (!p->some && !p->full)
			continue;
		if (!b.len)
			sb_printf(&b, "%spressure avg10 some/full %%:",
				  fr->psi_cgroup ? "cgroup " : "");
		sb_printf(&b, " %s ", p->res);
		if (p->some)
			sb_printf(&b, "%.1f", p->avg[0][0]);
		else
			sb_printf(&b, "-");
		if (p->full)
			sb_printf(&b, "/%.1f", p->avg[1][0]);
		else
			sb_printf(&b, "/-");
	}
	if (b.len)
		text_add(t, L_TEXT, &b);
}

/* The totals: CPU and I/O, and each delay class (grouped when narrow). */
static void totals(struct text *t, const struct frame *fr, bool wide)
{
	struct sbuf b = { 0 };
	struct row sum;
	char r[16], w[16];

	frame_total(fr, &sum);
	fmt_value(r, sizeof(r), &sum, V_CPU, fr->interval);
	sb_printf(&b, "total: CPU %s%%", r);
	fmt_value(r, sizeof(r), &sum, V_READ, fr->interval);
	fmt_value(w, sizeof(w), &sum, V_WRITE, fr->interval);
	sb_printf(&b, ", read %sB/s, write %sB/s", r, w);
	if (wide) {
		fmt_value(r, sizeof(r), &sum, V_RCHAR, fr->interval);
		fmt_value(w, sizeof(w), &sum, V_WCHAR, fr->interval);
		sb_printf(&b, ", rchar %sB/s, wchar %sB/s", r, w);
	}
	text_add(t, L_TEXT, &b);
	sb_printf(&b, "delays, %% of the interval:");
	for (size_t c = 0; c < NCLASS; c++) {
		bool mem = c >= 2 && c <= 5;

		if (!wide && mem && c != 2)
			continue;
		fmt_value(r, sizeof(r), &sum, !wide && mem ? V_MEM : V_DLY + c, fr->interval);
		sb_printf(&b, "%s %s %s", c ? "," : "", !wide && mem ? "memory" : classes[c].name,
			  r);
	}
	text_add(t, L_TEXT, &b);
}

static void notes(struct text *t, const struct frame *fr)
{
	struct sbuf b = { 0 };

	if (fr->cgcounts) {
		sb_printf(&b, "%s", fr->cgcounts);
		text_add(t, L_TEXT, &b);
	}
	if (fr->exits_off)
		sb_printf(&b, "tasks that exited: not counted (%s)", fr->exits_off);
	else if (fr->exits_lost)
		sb_printf(&b, "%s",
			  "tasks that exited: some not counted (the listener's socket buffer overflowed)");
	if (b.len)
		text_add(t, L_NOTE, &b);
	if (io_rounding == 1) {
		sb_printf(&b, "I/O counts rounded down to KiB by this kernel");
		text_add(t, L_NOTE, &b);
	}
	if (fr->delayacct == '0') {
		sb_printf(&b, "%s",
			  "delay accounting off: only cpu delays counted (sysctl kernel.task_delayacct=1)");
		text_add(t, L_NOTE, &b);
	}
}

/*
 * Frame @fr as text lines in @t: a header (what, when, how collected;
 * the interval and sort; totals; pressure; notes), the column header,
 * then @rows. @width chooses the columns (< 0: every column, nothing
 * cut); @tall gives the pressure a line per resource; @tui adds the
 * help hint.
 */
void render_text(struct text *t, const struct frame *fr, const struct view *v,
		 const struct row *rows, size_t n, size_t total, int width, bool tall, bool tui)
{
	struct sbuf b = { 0 };
	struct layout l;
	char now[16];
	struct tm tm;

	text_free(t);
	strftime(now, sizeof(now), "%T", localtime_r(&fr->when, &tm));
	sb_printf(&b, "taskstat top - %s, %zu %s%s", now, total,
		  v->procs ? "thread group" : "task", total == 1 ? "" : "s");
	if (fr->cgpath) {
		char path[PATH_MAX * 4 + 1];

		/* A directory's name may hold any byte but '/'. */
		text_escape(path, sizeof(path), fr->cgpath, strlen(fr->cgpath));
		sb_printf(&b, " of cgroup %s%s", path, fr->subtree ? " and its descendants" : "");
	}
	sb_printf(&b, ", records v%u, via %s", fr->version, fr->via);
	/* Where it does not fit, the note of notes() says it when it is off. */
	if (width < 0 || (int)b.len + 15 <= width)
		sb_printf(&b, ", delayacct %s",
			  fr->delayacct < 0 ? "unknown" : fr->delayacct == '1' ? "on" : "off");
	text_add(t, L_TEXT, &b);
	sb_printf(&b, "interval %.1f s", fr->interval);
	/* + and - change the next one. */
	if (tui && (v->delay > fr->interval * 1.1 || v->delay < fr->interval / 1.1))
		sb_printf(&b, " (next %.1f s)", v->delay);
	sb_printf(&b, ", sorted by %s%s%s", sort_keys[v->sort].name,
		  v->reverse ? ", ascending" : "", v->active ? ", active only" : "");
	if (!fr->exits_off)
		sb_printf(&b, ", %zu exited", fr->n - fr->nlive);
	if (tui)
		sb_printf(&b, "; h: help");
	text_add(t, L_TEXT, &b);
	totals(t, fr, width < 0 || width >= 120);
	if (tall)
		psi_block(t, fr);
	else
		psi_line(t, fr);
	notes(t, fr);
	choose_layout(&l, width, v->procs);
	column_header(t, &l, v);
	t->head = t->n;
	for (size_t i = 0; i < n; i++)
		row_line(t, &l, &rows[i], v, fr->interval, width >= 0);
}

static void json_rate(const char *name, const struct row *row, enum val v, double interval)
{
	double x;

	if (row_value(row, v, interval, &x))
		printf(",\"%s\":%.*f", name, vals[v].fmt == VF_PCT ? 2 : 0, x);
	else
		printf(",\"%s\":null", name);
}

/*
 * Frame @fr as JSON Lines: one object per row, all with the frame's
 * timestamp; the counters are changes over the interval (null: the
 * record does not carry them), the rates those shown on screen.
 */
void render_json(const struct frame *fr, const struct view *v, const struct row *rows,
		 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct row *row = &rows[i];

		printf("{%s,\"frame\":%d,\"interval\":%.3f,\"type\":\"%s\",\"id\":%u,\"tgid\":%u",
		       fr->stamp, fr->no, fr->interval, v->procs ? "tgid" : "pid", row->id,
		       row->tgid);
		if (v->procs)
			printf(",\"tasks\":%u", row->tasks);
		printf(",\"version\":%u,\"comm\":", rec_version(row->r));
		if (row->has_comm)
			json_string(stdout, row->comm, sizeof(row->comm));
		else
			printf("null");
		json_cgroup(stdout, row->r);
		printf(",\"io_rounded\":%s,\"exited\":%s", json_io_rounded(),
		       row->exited ? "true" : "false");
		for (size_t k = 0; k < NCTR; k++)
			if (row->have[k])
				printf(",\"%s\":%llu", fields[ctr_field[k]].name, row->d[k]);
			else
				printf(",\"%s\":null", fields[ctr_field[k]].name);
		json_rate("cpu_pct", row, V_CPU, fr->interval);
		for (size_t c = 0; c < NCLASS; c++) {
			char name[32];

			snprintf(name, sizeof(name), "%s_delay_pct", classes[c].name);
			json_rate(name, row, V_DLY + c, fr->interval);
		}
		json_rate("memory_delay_pct", row, V_MEM, fr->interval);
		json_rate("read_bps", row, V_READ, fr->interval);
		json_rate("write_bps", row, V_WRITE, fr->interval);
		json_rate("rchar_bps", row, V_RCHAR, fr->interval);
		json_rate("wchar_bps", row, V_WCHAR, fr->interval);
		printf("}\n");
	}
}
