// SPDX-License-Identifier: GPL-2.0
/*
 * The generators: each lays one kind of request out, good or hostile, as
 * the stream draws it; and the datagram of them in flight, each message
 * given its seq and what it must get.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/cgroupstats.h>
#include <linux/genetlink.h>
#include <linux/taskstats.h>

#include "fuzz.h"

/* A cpulist payload being laid out. */
static char list_buf[BIG_LIST + 16];

/* ----------------------------------------------------------- attributes */

/* An attribute type: mostly small, sometimes any, sometimes flagged. */
static __u16 rand_type(void)
{
	__u32 k = below(10);
	__u16 t = below(11);
	__u16 any = rnd();

	if (k < 6)
		return t;
	if (k < 8)
		return any;
	return t | (any & 1 ? NLA_F_NESTED : NLA_F_NET_BYTEORDER);
}

/* Garbage: random types and lengths, short headers, nests of garbage. */
static void put_garbage(struct msg *m, int depth)
{
	static const int bad_sizes[] = { 0, 1, 2, 3, 5, 8 };
	__u32 k = below(10);
	int off, n, i;

	if (k == 0 && depth < 2) {
		off = m->len;
		put_flag(m, rand_type() | NLA_F_NESTED);
		n = 1 + below(3);
		for (i = 0; i < n; i++)
			put_garbage(m, depth + 1);
		((struct nlattr *)(m->base + off))->nla_len = m->len - off;
	} else if (k == 1) {
		/* nla_len 0..3: the parse stops here. */
		put_raw(m, rand_type(), below(NLA_HDRLEN), 0);
	} else if (k == 2) {
		put_rand(m, 1 + below(GET_MAXATTR),
			 bad_sizes[below(ARRAY_SIZE(bad_sizes))]);
	} else {
		put_rand(m, rand_type(), below(65));
	}
}

/* A PID or TGID attribute of a size other than 4. */
static void put_badsize(struct fuzz *f, struct msg *m, __u16 type)
{
	static const int sizes[] = { 0, 1, 2, 3, 5, 8 };
	int len = sizes[below(ARRAY_SIZE(sizes))];
	__u32 id = pick_id(f);
	char *p = put_raw(m, type, NLA_HDRLEN + len, len);

	fill_rand(p, len);
	if (len >= 4)
		memcpy(p, &id, sizeof(id));
}

static void put_cpulist(struct fuzz *f, struct msg *m, __u16 type)
{
	bool big = false;
	int n = gen_cpulist(f, list_buf, false, &big);

	put(m, type, list_buf, n);
}

/*
 * TASKSTATS_CMD_ATTR_CGROUP_ID: a flag, now and then with a payload,
 * which fails the policy of a kernel that has it.
 */
static void put_cgid(struct msg *m)
{
	if (chance(50))
		put_rand(m, TASKSTATS_CMD_ATTR_CGROUP_ID, 1 + below(8));
	else
		put_flag(m, TASKSTATS_CMD_ATTR_CGROUP_ID);
}

/* One of the attributes of a dump, well formed. */
static void put_dump_attr(struct fuzz *f, struct msg *m)
{
	switch (below(4)) {
	case 0:
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
		break;
	case 3:
		put_cgid(m);
		break;
	case 1:
		put_u32(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, pick_dump_fd(f));
		break;
	default:
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_SUBTREE);
		break;
	}
}

/* One attribute a TASKSTATS_CMD_GET may carry, good or bad. */
static void put_action(struct fuzz *f, struct msg *m)
{
	switch (below(11)) {
	case 0:
	case 1:
		put_u32(m, TASKSTATS_CMD_ATTR_PID, pick_id(f));
		break;
	case 2:
		put_u32(m, TASKSTATS_CMD_ATTR_TGID, pick_id(f));
		break;
	case 3:
		put_cpulist(f, m, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK);
		break;
	case 4:
		put_cpulist(f, m, TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK);
		break;
	case 5:
		put_dump_attr(f, m);
		break;
	case 6:
		put_badsize(f, m, chance(500) ? TASKSTATS_CMD_ATTR_PID :
						TASKSTATS_CMD_ATTR_TGID);
		break;
	case 7:
		put_u32(m, TASKSTATS_CMD_ATTR_PID |
			(chance(500) ? NLA_F_NESTED : NLA_F_NET_BYTEORDER),
			pick_id(f));
		break;
	case 8:
		put_rand(m, GET_MAXATTR + 1 + below(5), below(9));
		break;
	case 9:
		put_cgid(m);
		break;
	default:
		put_garbage(m, 0);
		break;
	}
}

/* ----------------------------------------------------------- generators */

/*
 * Each generator lays one message out at @at and returns whether it is
 * big enough to end the datagram.
 */
static bool gen_get(struct fuzz *f, struct msg *m, char *at)
{
	__u16 type = chance(550) ? TASKSTATS_CMD_ATTR_PID :
				   TASKSTATS_CMD_ATTR_TGID;
	__u32 cgid = below(8);		/* 0: before the id, 1: after */

	msg_begin(m, at, f->family, REQ_ACK, TASKSTATS_CMD_GET);
	if (!cgid)
		put_cgid(m);
	put_u32(m, type, pick_id(f));
	if (cgid == 1)
		put_cgid(m);
	return false;
}

/* Several action attributes, duplicates, flags: the first action wins. */
static bool gen_multi(struct fuzz *f, struct msg *m, char *at)
{
	int i, n = 2 + below(5);

	msg_begin(m, at, f->family, REQ_ACK, TASKSTATS_CMD_GET);
	for (i = 0; i < n; i++)
		put_action(f, m);
	return false;
}

static bool gen_badsize(struct fuzz *f, struct msg *m, char *at)
{
	msg_begin(m, at, f->family, REQ_ACK, TASKSTATS_CMD_GET);
	put_badsize(f, m, chance(500) ? TASKSTATS_CMD_ATTR_PID :
					TASKSTATS_CMD_ATTR_TGID);
	if (chance(300))
		put_u32(m, TASKSTATS_CMD_ATTR_PID, pick_id(f));
	return false;
}

/*
 * The cgroup a listener request names and whether its records carry
 * CGROUP_ID: a registration mostly as the socket's style says (so that
 * its listener lasts, and hears its cgroup), else anything: another
 * cgroup, none, DUMP_SUBTREE alone, CGROUP_ID or not (EBUSY on a socket
 * that listens otherwise). A deregistration ignores them.
 */
static void put_listen_cgroup(struct fuzz *f, struct msg *m, bool reg)
{
	bool style = reg ? chance(750) : chance(50);
	bool has_fd = chance(500), subtree = chance(200), cgid = chance(400);
	__u32 fd = pick_dump_fd(f);

	if (style) {
		has_fd = f->style_has_fd;
		subtree = f->style_subtree;
		cgid = f->style_cgid;
		fd = f->style_fd;
	} else if (!reg && !chance(300)) {
		return;
	}
	if (cgid)
		put_flag(m, TASKSTATS_CMD_ATTR_CGROUP_ID);
	if (has_fd)
		put_u32(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, fd);
	if (subtree)
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_SUBTREE);
}

static bool gen_listener(struct fuzz *f, struct msg *m, char *at,
			 bool allow_big)
{
	__u16 type = chance(600) ? TASKSTATS_CMD_ATTR_REGISTER_CPUMASK :
				   TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK;
	bool big = false;
	int n;

	msg_begin(m, at, f->family, REQ_ACK, TASKSTATS_CMD_GET);
	n = gen_cpulist(f, list_buf, allow_big, &big);
	if (chance(100))
		put_u32(m, TASKSTATS_CMD_ATTR_PID, pick_id(f));
	put(m, type, list_buf, n);
	if (chance(100))
		put_u32(m, TASKSTATS_CMD_ATTR_TGID, pick_id(f));
	put_listen_cgroup(f, m, type == TASKSTATS_CMD_ATTR_REGISTER_CPUMASK);
	return big;
}

/*
 * A dump of one cgroup: DUMP_CGROUP_FD good or of a bad size, duplicated,
 * DUMP_SUBTREE with it, alone or with a payload, and DUMP_TGID or not.
 */
static void put_cgroup_dump(struct fuzz *f, struct msg *m)
{
	static const int sizes[] = { 0, 1, 2, 3, 5, 8 };
	__u32 v = below(8), tgid = below(4);	/* 1: before, 2: after */
	bool subtree = chance(500);
	__u32 fd = pick_dump_fd(f);
	int len;
	char *p;

	if (tgid == 1)
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
	switch (v) {
	case 0:
	case 1:
	case 2:
		put_u32(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, fd);
		break;
	case 3:
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_SUBTREE);
		put_u32(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, fd);
		subtree = false;
		break;
	case 4:
		subtree = true;		/* DUMP_SUBTREE alone */
		break;
	case 5:
		len = sizes[below(ARRAY_SIZE(sizes))];
		p = put_raw(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, NLA_HDRLEN + len, len);
		fill_rand(p, len);
		if (len >= 4)
			memcpy(p, &fd, sizeof(fd));
		break;
	case 6:
		put_u32(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, fd);
		put_rand(m, TASKSTATS_CMD_ATTR_DUMP_SUBTREE, 1 + below(4));
		break;
	default:
		/* The last of a type counts: a bad fd, then a good one. */
		put_u32(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, pick_fd(f));
		if (chance(300))
			put_u32(m, TASKSTATS_CMD_ATTR_PID, pick_id(f));
		put_u32(m, TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD, fd);
		break;
	}
	if (subtree)
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_SUBTREE);
	if (tgid == 2)
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
}

static bool gen_dump(struct fuzz *f, struct msg *m, char *at)
{
	__u32 v = below(14);
	__u8 cmd = TASKSTATS_CMD_GET;
	int i, n;

	if (chance(100))
		cmd = chance(500) ? CGROUPSTATS_CMD_GET : below(256);
	msg_begin(m, at, f->family, REQ_ACK | NLM_F_DUMP, cmd);
	switch (v) {
	case 0:
		break;
	case 1:
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
		break;
	case 2:
		put_rand(m, TASKSTATS_CMD_ATTR_DUMP_TGID, 1 + below(4));
		break;
	case 3:
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
		put_u32(m, TASKSTATS_CMD_ATTR_PID, pick_id(f));
		break;
	case 4:
		put_u32(m, TASKSTATS_CMD_ATTR_TGID, pick_id(f));
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
		put_cpulist(f, m, TASKSTATS_CMD_ATTR_REGISTER_CPUMASK);
		break;
	case 5:
		put_u32(m, TASKSTATS_CMD_ATTR_PID, pick_id(f));
		break;
	case 6:
		n = 1 + below(4);
		for (i = 0; i < n; i++)
			put_garbage(m, 0);
		if (chance(500))
			put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
		break;
	case 7:
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID | NLA_F_NESTED);
		put_flag(m, TASKSTATS_CMD_ATTR_DUMP_TGID);
		break;
	default:
		put_cgroup_dump(f, m);
		break;
	}
	if (chance(250))
		put_cgid(m);
	return false;
}

static bool gen_cgroup(struct fuzz *f, struct msg *m, char *at)
{
	__u32 v = below(10);
	__u32 fd = pick_fd(f);
	int len;
	char *p;

	msg_begin(m, at, f->family, REQ_ACK, CGROUPSTATS_CMD_GET);
	switch (v) {
	case 0:
		break;			/* no fd at all */
	case 1:
		put_rand(m, CGROUPSTATS_CMD_ATTR_FD, below(4));
		break;
	case 2:
		len = chance(500) ? 5 : 8;
		p = put_raw(m, CGROUPSTATS_CMD_ATTR_FD, NLA_HDRLEN + len, len);
		fill_rand(p, len);
		memcpy(p, &fd, sizeof(fd));
		break;
	case 3:
		put_u32(m, CGROUPSTATS_CMD_ATTR_FD, pick_fd(f));
		put_u32(m, CGROUPSTATS_CMD_ATTR_FD, fd);
		break;
	default:
		put_u32(m, CGROUPSTATS_CMD_ATTR_FD, fd);
		break;
	}
	if (chance(100))
		put_garbage(m, 0);
	return false;
}

/* Any command number of the family, with or without NLM_F_DUMP. */
static bool gen_anycmd(struct fuzz *f, struct msg *m, char *at)
{
	__u8 cmd = below(256);
	__u16 flags = REQ_ACK | (chance(200) ? NLM_F_DUMP : 0);
	int i, n = below(4);

	msg_begin(m, at, f->family, flags, cmd);
	for (i = 0; i < n; i++) {
		if (chance(500))
			put_action(f, m);
		else
			put_garbage(m, 0);
	}
	return false;
}

static bool gen_garbage(struct fuzz *f, struct msg *m, char *at)
{
	__u8 cmd = chance(700) ? TASKSTATS_CMD_GET : CGROUPSTATS_CMD_GET;
	int i, n = 1 + below(6);

	msg_begin(m, at, f->family, REQ_ACK, cmd);
	for (i = 0; i < n; i++)
		put_garbage(m, 0);
	return false;
}

/* A last attribute whose nla_len runs past the end of the message. */
static bool gen_truncated(struct fuzz *f, struct msg *m, char *at)
{
	__u16 type;
	int have, claim;

	if (chance(700))
		gen_get(f, m, at);
	else
		gen_cgroup(f, m, at);
	type = chance(500) ? rand_type() : 1 + below(GET_MAXATTR);
	have = below(17);
	claim = have + 1 + below(200);
	fill_rand(put_raw(m, type, NLA_HDRLEN + claim, have), have);
	return false;
}

/* Not this family, not a request, a control type, another genl version. */
static bool gen_elsewhere(struct fuzz *f, struct msg *m, char *at)
{
	__u32 v = below(4);
	__u64 r = rnd();
	struct nlmsghdr *h;

	gen_get(f, m, at);
	h = msg_hdr(m);
	switch (v) {
	case 0:
		h->nlmsg_type = f->t.nr_bad_family ?
			f->t.bad_family[r % f->t.nr_bad_family] : NLMSG_NOOP;
		break;
	case 1:
		h->nlmsg_type = r % NLMSG_MIN_TYPE;
		break;
	case 2:
		h->nlmsg_flags &= ~NLM_F_REQUEST;
		break;
	default:
		msg_genl(m)->version = r;
		break;
	}
	return false;
}

/* An nlmsg_len too short for the genl header. */
static bool gen_shorthdr(struct fuzz *f, struct msg *m, char *at)
{
	msg_begin(m, at, f->family, REQ_ACK, TASKSTATS_CMD_GET);
	fill_rand(at + NLMSG_HDRLEN, GENL_HDRLEN);
	m->len = NLMSG_HDRLEN + below(GENL_HDRLEN);
	msg_hdr(m)->nlmsg_len = m->len;
	return false;
}

/* A good message with a few bits or bytes changed after its nlmsghdr. */
static bool gen_mutant(struct fuzz *f, struct msg *m, char *at)
{
	int i, n, off;
	__u64 v;

	switch (below(4)) {
	case 0:
		gen_get(f, m, at);
		break;
	case 1:
		gen_listener(f, m, at, false);
		break;
	case 2:
		gen_cgroup(f, m, at);
		break;
	default:
		gen_dump(f, m, at);
		break;
	}
	n = 1 + below(4);
	for (i = 0; i < n; i++) {
		off = NLMSG_HDRLEN + below(m->len - NLMSG_HDRLEN);
		v = rnd();
		if (v & 1)
			at[off] ^= 1 << ((v >> 1) & 7);
		else
			at[off] = v >> 8;
	}
	return false;
}

static bool gen_msg(struct fuzz *f, struct msg *m, char *at)
{
	__u32 k = below(100);

	if (k < 22)
		return gen_get(f, m, at);
	if (k < 30)
		return gen_multi(f, m, at);
	if (k < 36)
		return gen_badsize(f, m, at);
	if (k < 48)
		return gen_listener(f, m, at, true);
	if (k < 53)
		return gen_dump(f, m, at);
	if (k < 63)
		return gen_cgroup(f, m, at);
	if (k < 71)
		return gen_anycmd(f, m, at);
	if (k < 81)
		return gen_garbage(f, m, at);
	if (k < 85)
		return gen_truncated(f, m, at);
	if (k < 89)
		return gen_elsewhere(f, m, at);
	if (k < 92)
		return gen_shorthdr(f, m, at);
	return gen_mutant(f, m, at);
}

/* Header fields the kernel should not care about, and odd lengths. */
static void fuzz_header(struct msg *m)
{
	static const __u16 extra[] = {
		NLM_F_ECHO, NLM_F_ROOT, NLM_F_MATCH, NLM_F_ATOMIC, NLM_F_DUMP,
		NLM_F_MULTI, NLM_F_EXCL | NLM_F_CREATE, NLM_F_APPEND,
		NLM_F_DUMP_INTR, 0x8000,
	};
	struct nlmsghdr *h = msg_hdr(m);
	struct genlmsghdr *g = msg_genl(m);
	bool version = chance(60), reserved = chance(30), flags = chance(60);
	bool pid = chance(20), trim = chance(30);
	__u64 r = rnd();
	__u16 flag = extra[below(ARRAY_SIZE(extra))];

	if (version)
		g->version = r;
	if (reserved)
		g->reserved = r >> 8;
	if (flags)
		h->nlmsg_flags |= flag;
	if (pid)
		h->nlmsg_pid = r >> 24;
	/* An odd nlmsg_len cuts the last attribute; the next starts aligned. */
	if (trim && h->nlmsg_len > NLMSG_LENGTH(GENL_HDRLEN) + NLA_HDRLEN)
		h->nlmsg_len -= 1 + (r >> 56) % 3;
}

/* A message whose nlmsg_len lies: netlink_rcv_skb() drops it silently. */
static void gen_lying(struct fuzz *f, struct msg *m, char *at)
{
	__u32 v = below(4);
	__u64 r = rnd();
	struct nlmsghdr *h;

	gen_get(f, m, at);
	h = msg_hdr(m);
	switch (v) {
	case 0:
		h->nlmsg_len = m->len + 1 + r % 64;
		break;
	case 1:
		h->nlmsg_len = 0xffffffff;
		break;
	case 2:
		h->nlmsg_len = r % NLMSG_HDRLEN;
		break;
	default:
		h->nlmsg_len = m->len + 65536;
		break;
	}
}

/* ------------------------------------------------------------- datagram */

/* Gives the message just laid out its seq and expectation. */
static void finish(struct fuzz *f, struct msg *m, bool lying)
{
	struct req *r = &f->req[f->nreq++];
	struct nlmsghdr *h = msg_hdr(m);

	memset(r, 0, sizeof(*r));
	h->nlmsg_seq = ++f->seq;
	r->seq = h->nlmsg_seq;
	r->off = f->txlen;
	r->size = lying ? m->len : (int)NLMSG_ALIGN(h->nlmsg_len);
	r->cg_kind = CG_NONE;
	predict(f, h, lying, r);
	/*
	 * A socket runs one dump at a time: while an earlier one of the
	 * datagram still runs, a dump is refused with EBUSY.
	 */
	if (!lying && (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP)
		r->busy_ok = f->dumps > 0;
	if (r->exp == EXP_DUMP)
		f->dumps++;
	f->txlen += r->size;
}

/*
 * Lays a datagram out: 1 to 64 messages, a big one last, a lying one
 * last or alone, sometimes a few stray bytes after the last (fewer than
 * a header: ignored).
 */
void build_datagram(struct fuzz *f)
{
	__u32 want = chance(250) ? 1 : 2 + below(MAX_BATCH - 1);
	bool lie, junk;
	struct msg m;

	f->use_sendto = chance(700);
	f->txlen = 0;
	f->nreq = 0;
	f->dumps = 0;
	f->seq_base = f->seq + 1;
	while ((__u32)f->nreq < want && f->c.messages + f->nreq < f->budget) {
		bool big = gen_msg(f, &m, f->tx + f->txlen);

		fuzz_header(&m);
		if (!big && m.len > MSG_ROOM) {
			fprintf(stderr, "taskstats_fuzz: message of %d bytes\n",
				m.len);
			exit(2);
		}
		finish(f, &m, false);
		if (big)
			break;
	}
	lie = chance(40);
	junk = chance(20);
	if (lie && f->c.messages + f->nreq < f->budget) {
		gen_lying(f, &m, f->tx + f->txlen);
		finish(f, &m, true);
	} else if (junk) {
		int n = 1 + below(NLMSG_HDRLEN - 1);

		fill_rand(f->tx + f->txlen, n);
		f->txlen += n;
	}
}

/* A dry run's output: each message of the datagram in hex, and its due. */
void print_datagram(const struct fuzz *f)
{
	char what[64];
	int i;

	printf("# datagram %llu: %d messages, %d bytes, %s\n",
	       (unsigned long long)f->c.datagrams + 1, f->nreq, f->txlen,
	       f->use_sendto ? "sendto" : "send");
	for (i = 0; i < f->nreq; i++) {
		const struct req *r = &f->req[i];

		snprintf(what, sizeof(what), "seq %u %s", r->seq,
			 exp_name[r->exp]);
		print_hex(what, req_hdr(f, r), r->size);
	}
}
