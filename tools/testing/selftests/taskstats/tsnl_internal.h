/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The attribute walking that the tsnl*.c files share, defined in tsnl.c:
 * not an interface of the tests, which use tsnl.h.
 */
#ifndef TSNL_INTERNAL_H
#define TSNL_INTERNAL_H

#include "tsnl.h"

#define NLA_DATA(na)	((void *)((char *)(na) + NLA_HDRLEN))

/* A cursor over a run of attributes; tsnl_next() yields each valid one. */
struct tsnl_iter {
	const char *p;
	int rem;
};

/* The @len bytes of attributes at @start. */
struct tsnl_iter tsnl_attrs(const void *start, int len);
struct tsnl_iter tsnl_genl_attrs(const void *h, int len);
/* The next attribute; NULL at the end or at one that overruns the rest. */
struct nlattr *tsnl_next(struct tsnl_iter *it);
/* The id and stats of an AGGR_PID or AGGR_TGID nest, into @r. */
void tsnl_parse_aggr(const struct nlattr *aggr, struct tsnl_reply *r);

#endif
