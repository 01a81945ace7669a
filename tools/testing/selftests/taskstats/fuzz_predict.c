// SPDX-License-Identifier: GPL-2.0
/*
 * The predictor: what a message must get, from its final bytes as
 * netlink_rcv_skb(), genetlink and the family's policy will see them;
 * and what an fd is to a cgroup request.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/cgroupstats.h>
#include <linux/genetlink.h>
#include <linux/magic.h>
#include <linux/taskstats.h>

#include "fuzz.h"

/* ------------------------------------------------------------ predictor */

/* Whether an attribute passes the family's (liberal) policy. */
static bool attr_valid(bool cg, int type, int len)
{
	if (cg)
		return len >= 4;			/* NLA_U32 */
	switch (type) {
	case TASKSTATS_CMD_ATTR_PID:
	case TASKSTATS_CMD_ATTR_TGID:
	case TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD:
		return len >= 4;			/* NLA_U32 */
	case TASKSTATS_CMD_ATTR_REGISTER_CPUMASK:
	case TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK:
		return len >= 1;			/* NLA_STRING */
	default:
		return len == 0;			/* NLA_FLAG */
	}
}

/*
 * The attributes as the kernel's liberal parse sees them: the walk stops
 * at the first one that does not fit, types beyond @maxattr are ignored,
 * the last of a type wins. Returns false if one fails the policy.
 */
static bool parse_req(const struct nlmsghdr *h, int maxattr, bool cg,
		      const struct nlattr **tb)
{
	const char *p = (const char *)h + NLMSG_LENGTH(GENL_HDRLEN);
	int rem = (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

	memset(tb, 0, sizeof(*tb) * (maxattr + 1));
	while (rem >= NLA_HDRLEN) {
		const struct nlattr *na = (const struct nlattr *)p;
		int type = na->nla_type & NLA_TYPE_MASK;

		if (na->nla_len < NLA_HDRLEN || na->nla_len > rem)
			break;
		if (type >= 1 && type <= maxattr) {
			if (!attr_valid(cg, type, na->nla_len - NLA_HDRLEN))
				return false;
			tb[type] = na;
		}
		p += NLA_ALIGN(na->nla_len);
		rem -= NLA_ALIGN(na->nla_len);
	}
	return true;
}

/* The payload of attribute @na as a u32. */
__u32 attr_u32(const struct nlattr *na)
{
	__u32 v;

	memcpy(&v, na + 1, sizeof(v));
	return v;
}

/*
 * Whether cgroupstats of fd @v may answer with a record on upstream's
 * kernel: only a directory of a cgroup v1 hierarchy can (fdget() skips
 * O_PATH files, a closed fd is answered with nothing, anything else with
 * EINVAL).
 */
static __u8 cg_classify(const struct fuzz *f, __u32 v)
{
	struct statfs sfs;
	struct stat st;
	int fl;

	if (f->dry)
		return CGX_ANY;
	if (v > INT_MAX)
		return CGX_NONE;
	fl = fcntl((int)v, F_GETFL);
	if (fl < 0 || (fl & O_PATH))
		return CGX_NONE;
	if (fstatfs((int)v, &sfs) || fstat((int)v, &st))
		return CGX_ANY;
	if (sfs.f_type == CGROUP_SUPER_MAGIC && S_ISDIR(st.st_mode))
		return CGX_REPLY;
	return CGX_NONE;
}

/* What fd @v is, found out with the fuzzer's own syscalls. */
__u8 fd_probe(__u32 v)
{
	struct statfs sfs;
	struct stat st;
	int fl;

	if (v > INT_MAX)
		return FDC_CLOSED;	/* beyond any fd table */
	fl = fcntl((int)v, F_GETFL);
	if (fl < 0)
		return errno == EBADF ? FDC_CLOSED : FDC_ANY;
	if (fl & O_PATH)
		return FDC_OPATH;
	if (fstatfs((int)v, &sfs) || fstat((int)v, &st))
		return FDC_ANY;
	if (!S_ISDIR(st.st_mode))
		return FDC_OTHER;
	if (sfs.f_type == CGROUP2_SUPER_MAGIC)
		return FDC_V2;
	if (sfs.f_type == CGROUP_SUPER_MAGIC)
		return FDC_V1;
	return FDC_OTHER;
}

/*
 * What fd @v is, and *@kind which of the targets' cg_fd it is (CG_NONE
 * for another): those were classified once, when opened; only they can
 * be a removed cgroup.
 */
static __u8 fd_class(const struct fuzz *f, __u32 v, __u8 *kind)
{
	int i;

	*kind = CG_NONE;
	if (f->dry)
		return FDC_ANY;
	for (i = 0; i < CG_NR && v <= INT_MAX; i++) {
		if (f->t.cg_fd[i] == (int)v) {
			*kind = i;
			return f->t.cg_class[i];
		}
	}
	return fd_probe(v);
}

/*
 * The -errno an fd of class @c gets at the start of a cgroup's dump, and
 * from cgroupstats (this series' kernel): 0 for one that works.
 */
static int fd_errno(__u8 c)
{
	switch (c) {
	case FDC_CLOSED:
	case FDC_OPATH:
		return -EBADF;
	case FDC_OTHER:
		return -EINVAL;
	case FDC_GONE:
		return -ENOENT;
	default:
		return 0;
	}
}

/* Whether a task in cgroup @task is in a dump of cgroup @dump. */
static bool node_in(__u8 task, __u8 dump, bool subtree)
{
	if (task == dump)
		return true;
	if (!subtree)
		return false;
	return dump == NODE_ROOT || (dump == NODE_CHILD && task == NODE_SUB);
}

/*
 * Which of the watched tasks a dump of the cgroup of kind @kind must list
 * (if it ends cleanly) and which it must not.
 */
static void predict_watch(const struct fuzz *f, __u8 kind, bool tgid,
			  struct req *r)
{
	__u8 dump = kind == CG_V2 ? NODE_ROOT : kind == CG_V2CHILD ? NODE_CHILD :
		    kind == CG_V2SUB ? NODE_SUB : NODE_UNKNOWN;
	int i;

	if (dump == NODE_UNKNOWN)
		return;
	for (i = 0; i < f->t.nr_watch; i++) {
		const struct watch *w = &f->t.watch[i];

		if (w->node == NODE_UNKNOWN || (tgid && w->thread))
			continue;
		if (!node_in(w->node, dump, r->subtree))
			r->forbid |= 1 << i;
		else if (w->must)
			r->must |= 1 << i;
	}
}

/* A dump (NLM_F_DUMP) of TASKSTATS_CMD_GET that passes the policy. */
static void predict_dump(const struct fuzz *f, const struct nlattr **tb,
			 struct req *r)
{
	const struct nlattr *fd = tb[TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD];
	bool tgid = tb[TASKSTATS_CMD_ATTR_DUMP_TGID];
	__u8 c;

	r->exp = EXP_DUMP;
	r->aggr = tgid ? TASKSTATS_TYPE_AGGR_TGID : TASKSTATS_TYPE_AGGR_PID;
	/* Within the policy only on a kernel that has it. */
	r->cgid = tb[TASKSTATS_CMD_ATTR_CGROUP_ID];
	/* Upstream has no dump; its policy ignores these attributes. */
	if (!f->series)
		return;
	r->exact = !f->dry;
	r->subtree = tb[TASKSTATS_CMD_ATTR_DUMP_SUBTREE];
	if (r->subtree && !fd) {
		r->exp = EXP_ERR;
		r->want = EINVAL;
		return;
	}
	if (!fd)
		return;
	r->cgdump = true;
	c = fd_class(f, attr_u32(fd), &r->cg_kind);
	if (c == FDC_ANY) {
		r->exact = false;
		return;
	}
	r->want = -fd_errno(c);
	if (r->want)
		r->exp = EXP_ERR;
	else
		predict_watch(f, r->cg_kind, tgid, r);
}

/* The filter of a listener of the cgroup of kind @kind. */
static __u8 kind_filter(__u8 kind)
{
	switch (kind) {
	case CG_V2:
		return LF_ROOT;
	case CG_V2CHILD:
		return LF_CHILD;
	case CG_V2SUB:
		return LF_SUB;
	default:
		return LF_OTHER;
	}
}

/*
 * REGISTER_CPUMASK: on a kernel with cgroup listeners, the identity it
 * asks for and, once its cpulist parsed (which is not predicted), the
 * errno its cgroup attributes are due: family.c's cmd_listener() checks
 * the capability, parses the cpulist, then the CGROUP_ID flag, the cgroup
 * (EBADF, EINVAL, ENOENT, EOPNOTSUPP; DUMP_SUBTREE alone EINVAL), and
 * then whether the socket listens already with another identity (EBUSY).
 * Elsewhere those attributes are ignored: every registration is alike.
 */
static void predict_register(const struct fuzz *f, const struct nlattr **tb,
			     struct req *r)
{
	const struct nlattr *fd = tb[TASKSTATS_CMD_ATTR_DUMP_CGROUP_FD];
	bool cgid = tb[TASKSTATS_CMD_ATTR_CGROUP_ID];
	bool subtree;
	__u8 c;

	r->exp = EXP_LISTEN;
	r->reg = true;
	if (f->dry)
		return;
	r->lid_known = true;
	if (!f->cgids)
		return;			/* LID(0, LF_ALL, 0), nothing due */
	subtree = tb[TASKSTATS_CMD_ATTR_DUMP_SUBTREE];
	r->subtree = subtree;
	if (!fd) {
		r->want = subtree ? EINVAL : 0;
		r->lid = LID(cgid, LF_ALL, 0);
		return;
	}
	c = fd_class(f, attr_u32(fd), &r->cg_kind);
	switch (c) {
	case FDC_V2:
		r->lid = LID(cgid, kind_filter(r->cg_kind), subtree);
		break;
	case FDC_V1:
		r->want = EOPNOTSUPP;
		break;
	case FDC_ANY:
		r->lid_known = false;
		break;
	default:
		r->want = -fd_errno(c);
		break;
	}
}

/*
 * Whether an exit record of a task that exited in cgroup @cgid may reach
 * a listener of identity @lid (as far as the ids known tell).
 */
bool lid_matches(const struct fuzz *f, __u8 lid, __u64 cgid)
{
	const __u64 *id = f->t.node_id;
	bool subtree = LID_SUBTREE(lid);

	switch (LID_FILTER(lid)) {
	case LF_ROOT:
		return subtree || !id[NODE_ROOT] || cgid == id[NODE_ROOT];
	case LF_CHILD:
		if (!id[NODE_CHILD] || cgid == id[NODE_CHILD])
			return true;
		return subtree && (!id[NODE_SUB] || cgid == id[NODE_SUB]);
	case LF_SUB:
		return !id[NODE_SUB] || cgid == id[NODE_SUB];
	default:
		return true;
	}
}

/* CGROUPSTATS_CMD_GET of fd @v. */
static void predict_cgroupstats(const struct fuzz *f, __u32 v, struct req *r)
{
	__u8 c;

	r->exp = EXP_CG;
	if (!f->series) {
		r->cg = cg_classify(f, v);
		/*
		 * The fix at the head of the series answers EBADF where 6.12
		 * as released answers nothing (see ts_kernel_unfixed()).
		 */
		if (f->dry || f->unfixed)
			return;
		c = fd_probe(v);
		if (c == FDC_CLOSED || c == FDC_OPATH) {
			r->exact = true;
			r->want = EBADF;
		}
		return;
	}
	c = fd_class(f, v, &r->cg_kind);
	if (c == FDC_ANY) {
		r->cg = CGX_ANY;
		return;
	}
	r->exact = true;
	r->want = -fd_errno(c);
	r->cg = c == FDC_V1 || c == FDC_V2 ? CGX_REPLY : CGX_NONE;
	r->cg_one = r->cg == CGX_REPLY && r->cg_kind == CG_V2SUB && f->t.sub_one;
}

/*
 * What message @h must get, into @r: nothing if @lying (its nlmsg_len
 * lies), else as the kernel will see it.
 */
void predict(const struct fuzz *f, const struct nlmsghdr *h, bool lying,
	     struct req *r)
{
	const struct genlmsghdr *g = NLMSG_DATA(h);
	bool dump = (h->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP;
	const struct nlattr *tb[GET_MAXATTR + 1] = { NULL };

	if (lying) {
		r->exp = EXP_NONE;
		return;
	}
	if (!(h->nlmsg_flags & NLM_F_REQUEST) ||
	    h->nlmsg_type < NLMSG_MIN_TYPE) {
		r->exp = EXP_ACK;
		return;
	}
	r->exp = EXP_ERR;
	if (h->nlmsg_type != f->family ||
	    h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN))
		return;
	if (g->cmd == TASKSTATS_CMD_GET) {
		if (!parse_req(h, f->get_maxattr, false, tb))
			return;
		if (dump) {
			predict_dump(f, tb, r);
		} else if (tb[TASKSTATS_CMD_ATTR_REGISTER_CPUMASK]) {
			predict_register(f, tb, r);
		} else if (tb[TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK]) {
			r->exp = EXP_LISTEN;
		} else if (tb[TASKSTATS_CMD_ATTR_PID]) {
			r->exp = EXP_GET;
			r->cgid = tb[TASKSTATS_CMD_ATTR_CGROUP_ID];
			r->aggr = TASKSTATS_TYPE_AGGR_PID;
			r->id = attr_u32(tb[TASKSTATS_CMD_ATTR_PID]);
		} else if (tb[TASKSTATS_CMD_ATTR_TGID]) {
			r->exp = EXP_GET;
			r->cgid = tb[TASKSTATS_CMD_ATTR_CGROUP_ID];
			r->aggr = TASKSTATS_TYPE_AGGR_TGID;
			r->id = attr_u32(tb[TASKSTATS_CMD_ATTR_TGID]);
		}
		return;
	}
	if (g->cmd != CGROUPSTATS_CMD_GET || dump)
		return;
	if (!parse_req(h, CGROUPSTATS_CMD_ATTR_MAX, true, tb) ||
	    !tb[CGROUPSTATS_CMD_ATTR_FD])
		return;
	predict_cgroupstats(f, attr_u32(tb[CGROUPSTATS_CMD_ATTR_FD]), r);
}
