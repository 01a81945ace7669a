// SPDX-License-Identifier: GPL-2.0
/*
 * Generic netlink family introspection (CTRL_CMD_GETFAMILY): a family's
 * id, its commands and their flags; the attributes of a command's policy
 * (CTRL_CMD_GETPOLICY); and what the kernel under test offers the tests
 * (ts_kernel_dumps(), ts_kernel_unfixed(), ts_kernel_cgroup_ids()).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tsnl.h"
#include "tsnl_internal.h"

/*
 * Resolves a genl family into @id; @buf (TSNL_BUF_SIZE) keeps the whole
 * answer, whose CTRL_ATTR_OPS the callers read. Returns its length.
 */
static int tsnl_family_query(int fd, const char *name, uint16_t *id,
			     char *buf)
{
	struct tsnl_msg m;
	struct tsnl_iter it;
	struct nlattr *na;
	int n;

	tsnl_msg_init(&m, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	((struct genlmsghdr *)NLMSG_DATA(&m.nlh))->version = 1;
	tsnl_put_str(&m, CTRL_ATTR_FAMILY_NAME, name);
	n = tsnl_transact(fd, &m, buf, TSNL_BUF_SIZE);
	if (n <= 0)
		return n ? n : -EBADMSG;
	it = tsnl_genl_attrs(buf, n);
	while ((na = tsnl_next(&it))) {
		if (na->nla_type == CTRL_ATTR_FAMILY_ID) {
			memcpy(id, NLA_DATA(na), sizeof(*id));
			return n;
		}
	}
	return -EBADMSG;
}

/**
 * tsnl_family() - resolve a generic netlink family name to its id.
 *
 * Return: 0, or the negative errno (-ENOENT when the family is absent).
 */
int tsnl_family(int fd, const char *name, uint16_t *id)
{
	static char buf[TSNL_BUF_SIZE];
	int n = tsnl_family_query(fd, name, id, buf);

	return n < 0 ? n : 0;
}

/**
 * tsnl_family_op_flags() - the flags of command @op of the family @name.
 * @fd: a generic netlink socket
 * @name: the family's name
 * @op: the command
 *
 * Return: its GENL_CMD_CAP_* and GENL_*_PERM flags, -ENOENT if the family
 * has no such command, or another negative errno.
 */
int tsnl_family_op_flags(int fd, const char *name, int op)
{
	static char buf[TSNL_BUF_SIZE];
	struct tsnl_iter it, ops, one;
	struct nlattr *na, *op_na, *f;
	uint16_t id;
	int n = tsnl_family_query(fd, name, &id, buf);

	if (n < 0)
		return n;
	it = tsnl_genl_attrs(buf, n);
	while ((na = tsnl_next(&it))) {
		if (na->nla_type != CTRL_ATTR_OPS)
			continue;
		ops = tsnl_attrs(NLA_DATA(na), na->nla_len - NLA_HDRLEN);
		while ((op_na = tsnl_next(&ops))) {
			uint32_t v, id = 0, flags = 0;

			one = tsnl_attrs(NLA_DATA(op_na), op_na->nla_len - NLA_HDRLEN);
			while ((f = tsnl_next(&one))) {
				memcpy(&v, NLA_DATA(f), sizeof(v));
				if (f->nla_type == CTRL_ATTR_OP_ID)
					id = v;
				else if (f->nla_type == CTRL_ATTR_OP_FLAGS)
					flags = v;
			}
			if ((int)id == op)
				return (int)(flags & 0x7fffffff);
		}
	}
	return -ENOENT;
}

/**
 * tsnl_family_has_op() - does the family @name implement command @op?
 * @fd: a generic netlink socket
 * @name: the family's name
 * @op: the command
 *
 * Return: 1 if it does, 0 if not, or a negative errno.
 */
int tsnl_family_has_op(int fd, const char *name, int op)
{
	int flags = tsnl_family_op_flags(fd, name, op);

	if (flags == -ENOENT)
		return 0;
	return flags < 0 ? flags : 1;
}

/**
 * ts_kernel_dumps() - whether the kernel's TASKSTATS family can dump.
 *
 * The family says so itself: its GET command carries GENL_CMD_CAP_DUMP
 * in CTRL_CMD_GETFAMILY's list of operations. Linux 6.12's own
 * implementation has no dump, and none of what this one builds on it
 * (reads without CAP_NET_ADMIN under the access rule, listener rules,
 * containers, counts of cgroup v2): tests of those skip on a kernel
 * without the dump, with a reason that starts "this kernel". So do the
 * tests of bugs that only this implementation mends.
 *
 * Return: true if TASKSTATS_CMD_GET has a dump.
 */
bool ts_kernel_dumps(void)
{
	int fd = tsnl_open(), flags = -1;

	if (fd >= 0) {
		flags = tsnl_family_op_flags(fd, TASKSTATS_GENL_NAME, TASKSTATS_CMD_GET);
		close(fd);
	}
	return flags > 0 && (flags & GENL_CMD_CAP_DUMP);
}

/**
 * ts_kernel_unfixed() - whether the kernel is declared to lack the fixes.
 *
 * The series opens with fixes of bugs of Linux 6.12's own implementation,
 * for stable kernels. Their tests need nothing else of the series, and on
 * a kernel without the fix they fail, as the test of a bug should. A run
 * on a kernel known to lack them (the rig's reference: 6.12 as released)
 * says so with TASKSTATS_UNFIXED=1 in the environment; those tests then
 * skip, with a reason that starts "this kernel".
 *
 * Return: true if TASKSTATS_UNFIXED is set and is neither "" nor "0".
 */
bool ts_kernel_unfixed(void)
{
	const char *v = getenv("TASKSTATS_UNFIXED");

	return v && *v && strcmp(v, "0");
}

/*
 * Policies and attributes a policy dump can describe to ts_policy_has_attr().
 * Its nests are marked NLA_F_NESTED: their types are read through
 * NLA_TYPE_MASK.
 */
#define POLICIES	16
#define POLICY_ATTRS	64

/* What a policy dump said: each policy's attributes, and the op's policy. */
struct policy_seen {
	uint64_t attrs[POLICIES];	/* bit a: attribute a is in the policy */
	int do_policy;			/* index of the op's "do" policy, or -1 */
};

/* A CTRL_ATTR_OP_POLICY: { op: { CTRL_ATTR_POLICY_DO: index, ... } }. */
static void note_op_policy(const struct nlattr *na, int op, struct policy_seen *ps)
{
	struct tsnl_iter ops = tsnl_attrs(NLA_DATA(na), na->nla_len - NLA_HDRLEN), one;
	struct nlattr *o, *f;

	while ((o = tsnl_next(&ops))) {
		if ((o->nla_type & NLA_TYPE_MASK) != op)
			continue;
		one = tsnl_attrs(NLA_DATA(o), o->nla_len - NLA_HDRLEN);
		while ((f = tsnl_next(&one)))
			if ((f->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_POLICY_DO)
				memcpy(&ps->do_policy, NLA_DATA(f), sizeof(uint32_t));
	}
}

/* A CTRL_ATTR_POLICY: { policy index: { attribute: { its type... } } }. */
static void note_policy(const struct nlattr *na, struct policy_seen *ps)
{
	struct tsnl_iter pols = tsnl_attrs(NLA_DATA(na), na->nla_len - NLA_HDRLEN), attrs;
	struct nlattr *p, *a;

	while ((p = tsnl_next(&pols))) {
		int idx = p->nla_type & NLA_TYPE_MASK;

		if (idx >= POLICIES)
			continue;
		attrs = tsnl_attrs(NLA_DATA(p), p->nla_len - NLA_HDRLEN);
		while ((a = tsnl_next(&attrs))) {
			int attr = a->nla_type & NLA_TYPE_MASK;

			if (attr < POLICY_ATTRS)
				ps->attrs[idx] |= 1ULL << attr;
		}
	}
}

/* The attributes of one message of a policy dump, into @ps. */
static void note_policy_msg(const struct nlmsghdr *h, int op, struct policy_seen *ps)
{
	struct tsnl_iter it = tsnl_genl_attrs(h, h->nlmsg_len);
	struct nlattr *na;

	while ((na = tsnl_next(&it))) {
		int type = na->nla_type & NLA_TYPE_MASK;

		if (type == CTRL_ATTR_OP_POLICY)
			note_op_policy(na, op, ps);
		else if (type == CTRL_ATTR_POLICY)
			note_policy(na, ps);
	}
}

/*
 * Reads the policy dump answering request @seq into @ps. Return: 0 at its
 * NLMSG_DONE, or the negative errno of the dump or of a read.
 */
static int read_policy_dump(int fd, uint32_t seq, int op, struct policy_seen *ps)
{
	static char buf[TSNL_BUF_SIZE];

	for (;;) {
		int n = tsnl_recv(fd, buf, sizeof(buf), 0);
		struct nlmsghdr *h;

		if (n < 0)
			return n;
		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			if (!tsnl_answers(h, seq))
				continue;
			if (h->nlmsg_type == NLMSG_DONE)
				return *(int *)NLMSG_DATA(h);
			if (h->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(h))->error;
			note_policy_msg(h, op, ps);
		}
	}
}

/**
 * ts_policy_has_attr() - does command @op of the family @name accept
 * attribute @attr, as the kernel's policy of its "do" says?
 * @fd: a generic netlink socket
 * @name: the family's name
 * @op: the command
 * @attr: the attribute
 *
 * Asks CTRL_CMD_GETPOLICY for @op's policies alone (CTRL_ATTR_OP); the
 * dump lists each attribute the policy defines, none it leaves NLA_UNSPEC.
 *
 * Return: 1 if it does, 0 if not, or a negative errno (-ENOENT: no such
 * family or command).
 */
int ts_policy_has_attr(int fd, const char *name, int op, int attr)
{
	struct policy_seen ps = { .do_policy = -1 };
	struct tsnl_msg m;
	int err;

	tsnl_msg_init(&m, GENL_ID_CTRL, CTRL_CMD_GETPOLICY, NLM_F_DUMP);
	((struct genlmsghdr *)NLMSG_DATA(&m.nlh))->version = 1;
	tsnl_put_str(&m, CTRL_ATTR_FAMILY_NAME, name);
	tsnl_put_u32(&m, CTRL_ATTR_OP, op);
	err = tsnl_send(fd, &m) ?: read_policy_dump(fd, m.nlh.nlmsg_seq, op, &ps);
	if (err)
		return err;
	if (ps.do_policy < 0 || ps.do_policy >= POLICIES || attr >= POLICY_ATTRS)
		return 0;
	return !!(ps.attrs[ps.do_policy] & (1ULL << attr));
}

/**
 * ts_kernel_cgroup_ids() - whether the kernel's TASKSTATS family has cgroup
 * ids on records and cgroup listeners (TASKSTATS_CMD_ATTR_CGROUP_ID).
 *
 * The policy of TASKSTATS_CMD_GET says so: a kernel without them (6.12's
 * own, the series before them) has no attribute 8 there, and its liberal
 * validation ignores an attribute it does not know: asking it for a cgroup
 * id gets a record without, and a cgroup listener is registered for every
 * exit. The tests of the feature skip there, with TS_NO_CGROUP_IDS.
 *
 * Return: true if the GET policy lists TASKSTATS_CMD_ATTR_CGROUP_ID.
 */
bool ts_kernel_cgroup_ids(void)
{
	int fd = tsnl_open(), has = 0;

	if (fd >= 0) {
		has = ts_policy_has_attr(fd, TASKSTATS_GENL_NAME, TASKSTATS_CMD_GET,
					 TASKSTATS_CMD_ATTR_CGROUP_ID);
		close(fd);
	}
	return has > 0;
}
