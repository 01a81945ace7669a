// SPDX-License-Identifier: GPL-2.0
/*
 * taskstat top - the terminal: an ncurses screen that shows the lines
 * view.c renders, cut to its width, and reads keys. Reading is never
 * blocking: top.c poll()s standard input with its timer and the exit
 * listener and calls tui_key() when a key is there. ncurses turns
 * SIGWINCH into KEY_RESIZE, which tui_key() returns after the screen
 * has taken the new size.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include <curses.h>

#include "top.h"

/* SCREEN of curses.h */
static struct screen *screen;

/* Takes over the terminal; false if ncurses cannot (no terminfo entry). */
bool tui_open(void)
{
	screen = newterm(NULL, stdout, stdin);
	if (!screen)
		return false;
	/* Restores the terminal on any exit() too: an error path, a failed allocation. */
	atexit(tui_close);
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	return true;
}

/* Gives the terminal back as it was; safe to call twice. */
void tui_close(void)
{
	if (!screen)
		return;
	endwin();
	delscreen(screen);
	screen = NULL;
}

void tui_size(int *rows, int *cols)
{
	getmaxyx(stdscr, *rows, *cols);
}

/* Line @s at row @y, cut to the screen's width in display columns. */
static void put_line(int y, const char *s, attr_t attr)
{
	char buf[4096];

	fit_width(buf, sizeof(buf), s, COLS, false);
	attrset(attr);
	mvaddstr(y, 0, buf);
	if (attr & A_REVERSE) {
		/* The column header is a bar across the screen. */
		for (int x = getcurx(stdscr); x < COLS && getcury(stdscr) == y; x++)
			addch(' ');
	}
	attrset(A_NORMAL);
}

/*
 * Draws the header lines of @t and as many of its rows as fit, from row
 * *@scroll on; *@scroll is first kept within what there is to show.
 */
void tui_draw(const struct text *t, size_t *scroll)
{
	size_t rows = t->n - t->head, fit, y = 0;
	const struct line *cols = t->head ? &t->v[t->head - 1] : NULL;

	fit = LINES > (int)t->head ? LINES - t->head : 0;
	if (*scroll + fit > rows)
		*scroll = rows > fit ? rows - fit : 0;
	erase();
	for (size_t i = 0; i < t->head && y < (size_t)LINES; i++, y++)
		put_line(y, t->v[i].s,
			 t->v[i].kind == L_COLS ? A_REVERSE : t->v[i].kind == L_NOTE ? A_BOLD : 0);
	/* The sorted column stands out of the header bar (its bytes are ASCII). */
	if (cols && t->sort_col[1] > t->sort_col[0] && t->sort_col[0] < COLS && y) {
		int len = t->sort_col[1] - t->sort_col[0];

		if (t->sort_col[0] + len > COLS)
			len = COLS - t->sort_col[0];
		attrset(A_BOLD | A_UNDERLINE);
		mvaddnstr(t->head - 1, t->sort_col[0], cols->s + t->sort_col[0], len);
		attrset(A_NORMAL);
	}
	for (size_t i = *scroll; i < rows && y < (size_t)LINES; i++, y++)
		put_line(y, t->v[t->head + i].s, t->v[t->head + i].kind == L_EXITED ? A_DIM : 0);
	refresh();
}

/* A screen of one line, while there is nothing else to show. */
void tui_message(const char *msg)
{
	erase();
	put_line(0, msg, 0);
	refresh();
}

/* The help screen: @help's lines, cut to the screen. */
void tui_help(const char *help)
{
	const char *s = help;
	char line[512];

	erase();
	for (int y = 0; *s && y < LINES; y++) {
		size_t len = strcspn(s, "\n");

		snprintf(line, sizeof(line), "%.*s", (int)len, s);
		put_line(y, line, y ? 0 : A_BOLD);
		s += len + (s[len] == '\n');
	}
	refresh();
}

/* The next key typed, or ERR if none is waiting. */
int tui_key(void)
{
	return getch();
}
