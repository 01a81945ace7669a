// SPDX-License-Identifier: GPL-2.0
/*
 * The checks on every answer read: errors and what they echo, NLMSG_DONE,
 * the records of a GET or a dump, cgroupstats, and the exit records a
 * listener hears.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <linux/cgroupstats.h>
#include <linux/genetlink.h>
#include <linux/taskstats.h>

#include "fuzz.h"

static const char * const cg_name[CG_NR + 1] = {
	"a closed fd", "an O_PATH fd", "a file", "/tmp", V2_ROOT, V2_CHILD,
	V2_SUB, "a removed cgroup", V1_DIR, V1_CHILD, "an fd",
};

/* ---------------------------------------------------------- the checks */

static void count_errno(struct fuzz *f, int err)
{
	f->c.err[err > 0 && err < ERRNO_SLOTS ? err : 0]++;
}

static bool errno_documented(int err)
{
	switch (err) {
	case EINVAL:
	case EPERM:
	case ESRCH:
	case E2BIG:
	case ERANGE:
	case ENOMEM:
	case EOPNOTSUPP:
	case ENOENT:
	case ENOSPC:
	case EBUSY:
	case EINTR:
	case EAGAIN:
	case EMSGSIZE:
		return true;
	default:
		return false;
	}
}

/*
 * EOVERFLOW is cpulist_parse()'s answer to a number beyond 32 bits
 * ("4294967296"): legitimate for a listener request, and only there.
 * EBADF is this series' answer to a cgroup request naming a closed or
 * O_PATH fd, and only to those.
 */
static bool errno_ok(const struct req *r, int err)
{
	return errno_documented(err) || (err == EOVERFLOW && r->exp == EXP_LISTEN) ||
	       (err == EBADF && (r->exact || r->lid_known) && r->want == EBADF);
}

/*
 * Whether error @err answers @r as predicted: exactly its errno, or EBUSY
 * for a dump while another runs, or ENOMEM, which any allocation allows.
 */
static bool errno_due(const struct req *r, int err)
{
	return !r->exact || err == r->want || err == ENOMEM ||
	       (err == EBUSY && r->busy_ok);
}

/* A cursor over attributes that insists on the kernel's own layout. */
struct walk {
	const char *p;
	int rem;
	bool bad;
};

static struct walk walk_start(const void *p, int len)
{
	struct walk w = { .p = p, .rem = len, .bad = len < 0 };

	return w;
}

static const struct nlattr *walk_next(struct walk *w)
{
	const struct nlattr *na = (const struct nlattr *)w->p;
	int step;

	if (w->bad || w->rem == 0)
		return NULL;
	if (w->rem < NLA_HDRLEN || na->nla_len < NLA_HDRLEN ||
	    na->nla_len > w->rem) {
		w->bad = true;
		return NULL;
	}
	step = NLA_ALIGN(na->nla_len);
	if (step > w->rem) {
		w->bad = true;
		return NULL;
	}
	w->p += step;
	w->rem -= step;
	return na;
}

/*
 * Whether the kernel may have put an empty TASKSTATS_TYPE_NULL at @na, to
 * align the 64-bit payload of the next attribute: only where its buffer
 * was 8-byte aligned (nla_need_padding_for_64bit(); never on architectures
 * with HAVE_EFFICIENT_UNALIGNED_ACCESS). A datagram is read into an 8-byte
 * aligned buffer, where an attribute has the alignment it had there.
 */
static bool pad_may_be_at(const struct nlattr *na)
{
	return !((unsigned long)na % 8);
}

/* What parse_aggr() found in a record besides its id. */
struct aggr {
	__u32 id;
	bool has_cgid;
	__u64 cgid;
};

/*
 * Checks one TASKSTATS_TYPE_AGGR_* nest, in the kernel's exact layout:
 * its id of its kind, [NULL,] STATS of a known version and, as @cgid
 * asks (1: it must, 0: it must not, -1: either), [NULL,] CGROUP_ID of 8
 * bytes, not 0; a NULL pad only where the kernel may put one. Returns
 * NULL or why not.
 */
static const char *parse_aggr(const struct nlattr *aggr, int cgid,
			      struct aggr *a)
{
	enum { ID, STATS, AFTER, CGID, END } want = ID;
	int id_type = aggr->nla_type == TASKSTATS_TYPE_AGGR_PID ?
		      TASKSTATS_TYPE_PID : TASKSTATS_TYPE_TGID;
	struct walk w = walk_start(aggr + 1, aggr->nla_len - NLA_HDRLEN);
	const struct nlattr *na;
	bool pad = false;
	__u16 version;

	memset(a, 0, sizeof(*a));
	while ((na = walk_next(&w))) {
		int len = na->nla_len - NLA_HDRLEN;

		if (na->nla_type == TASKSTATS_TYPE_NULL) {
			if (len)
				return "a NULL pad with a payload";
			if (!pad_may_be_at(na))
				return "a NULL pad where no payload needs aligning";
			if ((want != STATS && want != AFTER) || pad)
				return "a NULL pad out of place";
			pad = true;
			continue;
		}
		if (want == ID) {
			if (na->nla_type != id_type)
				return "a record that does not start with its id";
			if (len != sizeof(__u32))
				return "id of the wrong size";
			a->id = attr_u32(na);
			want = STATS;
		} else if (want == STATS) {
			if (na->nla_type != TASKSTATS_TYPE_STATS)
				return "no STATS after the id";
			if (len < 4)
				return "STATS shorter than 4 bytes";
			memcpy(&version, na + 1, sizeof(version));
			if (version < 1 || version > TASKSTATS_VERSION)
				return "STATS of an unknown version";
			want = AFTER;
		} else if (want == AFTER && na->nla_type == TASKSTATS_TYPE_CGROUP_ID) {
			if (!cgid)
				return "CGROUP_ID in a record that did not ask for it";
			if (len != sizeof(__u64))
				return "CGROUP_ID not of 8 bytes";
			memcpy(&a->cgid, na + 1, sizeof(a->cgid));
			if (!a->cgid)
				return "CGROUP_ID 0";
			a->has_cgid = true;
			want = END;
		} else {
			return "an unexpected attribute";
		}
		pad = false;
	}
	if (w.bad)
		return "attributes run past the aggregate";
	if (pad)
		return "a NULL pad at the end";
	if (want == ID || want == STATS)
		return "not one id and one STATS";
	if (cgid == 1 && !a->has_cgid)
		return "no CGROUP_ID, which the request asked for";
	return NULL;
}

/*
 * The cgroup id of a record asked with CGROUP_ID: that of its task's
 * cgroup, where the fuzzer knows it (a watched task, which stays in its
 * cgroup; a task listed by a dump of ts-fuzz or ts-fuzz/sub, where only
 * the fuzzer's tasks are and stay).
 */
static void check_cgid(struct fuzz *f, const struct req *r,
		       const struct nlmsghdr *h, const struct aggr *a)
{
	const __u64 *id = f->t.node_id;
	__u64 due = 0;
	int i;

	for (i = 0; i < f->t.nr_watch; i++)
		if (f->t.watch[i].id == a->id)
			due = id[f->t.watch[i].node];
	if (due && a->cgid != due) {
		violation(f, r, h, "the record of task %u says cgroup %llu, it is in %llu",
			  a->id, (unsigned long long)a->cgid,
			  (unsigned long long)due);
		return;
	}
	if (!r || !r->cgdump)
		return;
	if ((r->cg_kind == CG_V2CHILD && !lid_matches(f, LID(1, LF_CHILD, r->subtree), a->cgid)) ||
	    (r->cg_kind == CG_V2SUB && !lid_matches(f, LID(1, LF_SUB, r->subtree), a->cgid)))
		violation(f, r, h, "a dump of %s%s lists task %u of cgroup %llu",
			  cg_name[r->cg_kind], r->subtree ? " with its subtree" : "",
			  a->id, (unsigned long long)a->cgid);
}

/* A cgroup's dump: a record of a watched task says where it is. */
static void check_watch(struct fuzz *f, struct req *r, const struct nlmsghdr *h,
			__u32 id)
{
	int i;

	for (i = 0; i < f->t.nr_watch; i++) {
		if (f->t.watch[i].id != id)
			continue;
		if (r->forbid & (1 << i))
			violation(f, r, h, "a dump of %s%s lists task %u, which is not in it",
				  cg_name[r->cg_kind], r->subtree ? " with its subtree" : "",
				  id);
		r->seen |= 1 << i;
	}
}

/* The aggregates of a TASKSTATS_CMD_NEW answering @r. */
static void parse_records(struct fuzz *f, struct req *r,
			  const struct nlmsghdr *h)
{
	struct walk w = walk_start((const char *)h + NLMSG_LENGTH(GENL_HDRLEN),
				   h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
	const struct nlattr *na;
	const char *why;
	struct aggr a;
	int n = 0;
	__u32 id = 0;

	while ((na = walk_next(&w))) {
		if (na->nla_type != r->aggr) {
			violation(f, r, h, "attribute %u where aggregate %u belongs",
				  na->nla_type, r->aggr);
			return;
		}
		why = parse_aggr(na, r->cgid, &a);
		if (why) {
			violation(f, r, h, "malformed record%s: %s",
				  r->cgid ? " (CGROUP_ID asked)" : "", why);
			return;
		}
		id = a.id;
		if (a.has_cgid)
			check_cgid(f, r, h, &a);
		n++;
		if (r->exp == EXP_GET && id != r->id)
			violation(f, r, h, "record of %u answers a GET of %u", id, r->id);
		if (r->exp == EXP_DUMP && r->cgdump) {
			if (r->must | r->forbid)
				check_watch(f, r, h, id);
		} else if (r->exp == EXP_DUMP) {
			if (r->seen_id && id <= r->id)
				violation(f, r, h, "dump record %u after %u: not in pid order",
					  id, r->id);
			r->id = id;
			r->seen_id = true;
		}
		check_record(f, r, h, id);
	}
	if (w.bad)
		violation(f, r, h, "attributes do not walk to the end of the message");
	else if (!n || (r->exp == EXP_GET && n != 1))
		violation(f, r, h, "%d records in one message", n);
}

/* The extended ACK attributes that may follow an error or a DONE. */
static void check_tlvs(struct fuzz *f, const struct req *r,
		       const struct nlmsghdr *h, __u32 off)
{
	const struct nlmsghdr *q = req_hdr(f, r);
	const struct nlattr *na;
	struct walk w;
	__u32 v;

	if (h->nlmsg_len < off) {
		violation(f, r, h, "answer of %u bytes, shorter than %u",
			  h->nlmsg_len, off);
		return;
	}
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS)) {
		if (h->nlmsg_len != off)
			violation(f, r, h, "%u stray bytes after the answer",
				  h->nlmsg_len - off);
		return;
	}
	if (!f->ext_ack)
		violation(f, r, h, "extended ACK without NETLINK_EXT_ACK");
	w = walk_start((const char *)h + off, h->nlmsg_len - off);
	while ((na = walk_next(&w))) {
		int len = na->nla_len - NLA_HDRLEN;

		if (na->nla_type == NLMSGERR_ATTR_OFFS) {
			if (len != sizeof(v)) {
				violation(f, r, h, "NLMSGERR_ATTR_OFFS of %d bytes", len);
				continue;
			}
			v = attr_u32(na);
			if (v < NLMSG_HDRLEN || v >= q->nlmsg_len)
				violation(f, r, h, "NLMSGERR_ATTR_OFFS %u outside the request",
					  v);
		} else if (na->nla_type == NLMSGERR_ATTR_MSG) {
			if (!len || !memchr(na + 1, '\0', len))
				violation(f, r, h, "NLMSGERR_ATTR_MSG without NUL");
		}
	}
	if (w.bad)
		violation(f, r, h, "extended ACK attributes do not walk to the end");
}

static void complete(struct fuzz *f, struct req *r)
{
	r->done = true;
	f->outstanding--;
}

/* The header, and unless capped the payload, of the request it answers. */
static void check_echo(struct fuzz *f, const struct req *r,
		       const struct nlmsghdr *h, int err)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	const struct nlmsghdr *q = req_hdr(f, r);
	bool capped = h->nlmsg_flags & NLM_F_CAPPED;
	__u32 off = NLMSG_LENGTH(sizeof(*e));
	__u32 echo = q->nlmsg_len - NLMSG_HDRLEN;

	if (memcmp(&e->msg, q, sizeof(*q)))
		violation(f, r, h, "the error does not echo the request's header");
	if (capped != (!err || f->cap_ack))
		violation(f, r, h, "NLM_F_CAPPED is %s for error %d with NETLINK_CAP_ACK %s",
			  capped ? "set" : "clear", err, f->cap_ack ? "on" : "off");
	if (!capped) {
		if (h->nlmsg_len < off + echo) {
			violation(f, r, h, "the echoed request is cut short");
			return;
		}
		if (memcmp(e + 1, (const char *)q + NLMSG_HDRLEN, echo))
			violation(f, r, h, "the echoed request is not the one sent");
		off += NLMSG_ALIGN(echo);
	}
	check_tlvs(f, r, h, off);
}

/*
 * A listener request was answered @err: whether that can be, and what the
 * socket's listener may be now (f->lst_may). The cpulist is parsed before
 * anything else is looked at, and which cpulists parse, or parse empty
 * (then a registration makes no listener), is not predicted: an error
 * the cpulist may cause proves nothing, and a registration answered 0
 * may have left the socket without a listener.
 */
/* What a registration named, for a violation. */
static const char *reg_name(const struct req *r)
{
	if (r->cg_kind != CG_NONE)
		return cg_name[r->cg_kind];
	return r->subtree ? "DUMP_SUBTREE alone" : "no cgroup";
}

static void check_listen(struct fuzz *f, struct req *r,
			 const struct nlmsghdr *h, int err)
{
	__u32 me = 1u << r->lid, none = 1u << LID_NONE;
	__u32 may = f->lst_may;

	if (!r->reg) {
		/* A deregistration of every CPU drops the listener. */
		if (!err) {
			f->lst_stale |= may & ~none;
			f->lst_may |= none;
		}
		return;
	}
	if (!r->lid_known || !f->series) {
		if (!err)
			f->lst_may = LID_ANY;
		return;
	}
	switch (err) {
	case 0:
		if (r->want) {
			violation(f, r, h, "a registration naming %s%s succeeded; %s was due",
				  reg_name(r), r->subtree ? " with its subtree" : "",
				  errno_name(r->want));
			f->lst_may = LID_ANY;
		} else if (!(may & (none | me))) {
			violation(f, r, h, "registered as %#x over a listener of %#x, not EBUSY",
				  r->lid, may);
			f->lst_may = LID_ANY;
		} else {
			f->lst_may = me | (may & none);
		}
		break;
	case EBUSY:
		if (r->want)
			violation(f, r, h, "EBUSY for a registration naming %s: %s was due first",
				  reg_name(r), errno_name(r->want));
		else if (!(may & ~(none | me)))
			violation(f, r, h, "EBUSY for a registration as %#x over a listener of %#x",
				  r->lid, may);
		may &= ~(none | me);
		f->lst_may = may ? may : LID_ANY;
		break;
	case EBADF:
	case ENOENT:
	case EOPNOTSUPP:
		if (err != r->want)
			violation(f, r, h, "a registration naming %s got %s, %s was due",
				  reg_name(r), errno_name(err),
				  r->want ? errno_name(r->want) : "0");
		break;
	default:
		break;
	}
}

static void on_error(struct fuzz *f, struct req *r, const struct nlmsghdr *h)
{
	const struct nlmsgerr *e = NLMSG_DATA(h);
	int err;

	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*e))) {
		violation(f, r, h, "NLMSG_ERROR of %u bytes", h->nlmsg_len);
		if (!r->done && r->exp != EXP_NONE)
			complete(f, r);
		return;
	}
	err = -e->error;
	if (err)
		count_errno(f, err);
	if (err < 0 || err > 4095)
		violation(f, r, h, "error %d is no errno", e->error);
	check_echo(f, r, h, err);
	if (r->done) {
		violation(f, r, h, "a second answer (%s)", errno_name(err));
		return;
	}
	switch (r->exp) {
	case EXP_NONE:
		violation(f, r, h, "an answer (%s) to a message with a lying nlmsg_len",
			  errno_name(err));
		return;
	case EXP_ACK:
		if (err)
			violation(f, r, h, "%s for a message the kernel only acknowledges",
				  errno_name(err));
		break;
	case EXP_ERR:
		if (!err)
			violation(f, r, h, "a request that must fail was acknowledged");
		else if (!errno_due(r, err))
			violation(f, r, h, "%s where %s was due (a dump of %s)", errno_name(err),
				  errno_name(r->want), r->cgdump ? cg_name[r->cg_kind] :
				  "DUMP_SUBTREE without DUMP_CGROUP_FD");
		break;
	case EXP_LISTEN:
		if (f->phase == PH_USER && err != EPERM)
			violation(f, r, h, "an unprivileged listener request got %s, not EPERM",
				  err ? errno_name(err) : "0");
		else if (f->phase != PH_USER)
			check_listen(f, r, h, err);
		break;
	case EXP_GET:
		if (!err && !r->replied)
			violation(f, r, h, "a GET acknowledged without its record");
		break;
	case EXP_CG:
		if (!err && !r->replied && r->cg == CGX_REPLY)
			violation(f, r, h,
				  "cgroupstats of a cgroup acknowledged without a record");
		if (!errno_due(r, err))
			violation(f, r, h, "cgroupstats of %s answered %s, not %s",
				  cg_name[r->cg_kind], err ? errno_name(err) : "0",
				  r->want ? errno_name(r->want) : "0");
		break;
	case EXP_DUMP:
		/*
		 * The dump started on a full socket: its first part did not
		 * fit, the rest comes as we read, then NLMSG_DONE.
		 */
		if (err == ENOBUFS) {
			f->c.dump_nobufs++;
			r->nobufs = true;
			return;
		}
		if (!err)
			violation(f, r, h, "a dump acknowledged: it must end with NLMSG_DONE");
		else if (!errno_due(r, err))
			violation(f, r, h, "a dump of %s failed to start: %s",
				  r->cgdump ? cg_name[r->cg_kind] : "every task",
				  errno_name(err));
		break;
	}
	if (err && r->replied)
		violation(f, r, h, "a record and then %s", errno_name(err));
	if (err && !errno_ok(r, err))
		violation(f, r, h, "undocumented errno %s", errno_name(err));
	complete(f, r);
}

/*
 * A cgroup's dump ended with 0: every watched task due in it was listed,
 * unless answers may have been lost (the dump started on a full socket,
 * or the socket overran during this datagram).
 */
static void check_cgroup_dump(struct fuzz *f, struct req *r,
			      const struct nlmsghdr *h)
{
	__u8 missed = r->must & ~r->seen;
	int i;

	f->c.cg_dumps++;
	if (!r->must || r->nobufs || f->c.overruns != f->overruns_at)
		return;
	f->c.cg_checked++;
	for (i = 0; i < f->t.nr_watch && missed; i++)
		if (missed & (1 << i))
			violation(f, r, h, "a dump of %s%s%s left out task %u, which is in it",
				  cg_name[r->cg_kind], r->subtree ? " with its subtree" : "",
				  r->aggr == TASKSTATS_TYPE_AGGR_TGID ? " by tgid" : "",
				  f->t.watch[i].id);
}

static void on_done(struct fuzz *f, struct req *r, const struct nlmsghdr *h)
{
	int err = 0, v;

	if (r->exp != EXP_DUMP)
		violation(f, r, h, "NLMSG_DONE answers a request that is no dump");
	if (!(h->nlmsg_flags & NLM_F_MULTI))
		violation(f, r, h, "NLMSG_DONE without NLM_F_MULTI");
	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(int))) {
		violation(f, r, h, "NLMSG_DONE of %u bytes", h->nlmsg_len);
	} else {
		memcpy(&v, NLMSG_DATA(h), sizeof(v));
		err = -v;
		if (err)
			count_errno(f, err);
		if (err < 0 || (err && !errno_ok(r, err)))
			violation(f, r, h, "dump ended with %s", errno_name(err));
		check_tlvs(f, r, h, NLMSG_LENGTH(sizeof(int)));
	}
	if (r->done) {
		violation(f, r, h, "a second NLMSG_DONE");
		return;
	}
	if (r->exp == EXP_DUMP && r->cgdump && !err)
		check_cgroup_dump(f, r, h);
	if (r->exp != EXP_NONE)
		complete(f, r);
}

/* The counts of V2_SUB, which holds one task, sleeping in pause(). */
static void check_one_sleeper(struct fuzz *f, const struct req *r,
			      const struct nlmsghdr *h, const struct nlattr *na)
{
	struct cgroupstats cs;

	memcpy(&cs, na + 1, sizeof(cs));
	if (cs.nr_sleeping != 1 || cs.nr_running || cs.nr_stopped ||
	    cs.nr_uninterruptible || cs.nr_io_wait)
		violation(f, r, h, "%s (one sleeper): %llu S, %llu R, %llu T, %llu D, %llu io",
			  V2_SUB, (unsigned long long)cs.nr_sleeping,
			  (unsigned long long)cs.nr_running,
			  (unsigned long long)cs.nr_stopped,
			  (unsigned long long)cs.nr_uninterruptible,
			  (unsigned long long)cs.nr_io_wait);
}

static void on_cgroupstats(struct fuzz *f, struct req *r,
			   const struct nlmsghdr *h)
{
	struct walk w = walk_start((const char *)h + NLMSG_LENGTH(GENL_HDRLEN),
				   h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
	const struct nlattr *na;
	int n = 0;

	if (r->exp != EXP_CG || r->cg == CGX_NONE)
		violation(f, r, h, "a cgroupstats record answers a request for none");
	if (r->replied)
		violation(f, r, h, "a second cgroupstats record");
	r->replied = true;
	if (h->nlmsg_flags & NLM_F_MULTI)
		violation(f, r, h, "cgroupstats record with NLM_F_MULTI");
	while ((na = walk_next(&w))) {
		if (na->nla_type != CGROUPSTATS_TYPE_CGROUP_STATS ||
		    na->nla_len - NLA_HDRLEN < (int)sizeof(struct cgroupstats))
			violation(f, r, h, "cgroupstats attribute %u of %u bytes",
				  na->nla_type, na->nla_len);
		else if (r->cg_one)
			check_one_sleeper(f, r, h, na);
		n++;
	}
	if (w.bad || n != 1)
		violation(f, r, h, "malformed cgroupstats record (%d attributes)", n);
}

/* A TASKSTATS_CMD_NEW or CGROUPSTATS_CMD_NEW answering @r. */
static void on_new(struct fuzz *f, struct req *r, const struct nlmsghdr *h)
{
	const struct genlmsghdr *g = NLMSG_DATA(h);
	bool multi = h->nlmsg_flags & NLM_F_MULTI;

	if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN)) {
		violation(f, r, h, "a family message of %u bytes", h->nlmsg_len);
		return;
	}
	if (r->done)
		violation(f, r, h, "a record after the request was answered");
	if (g->version != TASKSTATS_GENL_VERSION || g->reserved)
		violation(f, r, h, "genl header version %u reserved %u",
			  g->version, g->reserved);
	if (g->cmd == CGROUPSTATS_CMD_NEW) {
		on_cgroupstats(f, r, h);
		return;
	}
	if (g->cmd != TASKSTATS_CMD_NEW) {
		violation(f, r, h, "an answer with command %u", g->cmd);
		return;
	}
	if (r->exp == EXP_GET) {
		if (multi)
			violation(f, r, h, "a GET's record with NLM_F_MULTI");
		if (r->replied)
			violation(f, r, h, "a second record for one GET");
		r->replied = true;
	} else if (r->exp == EXP_DUMP) {
		if (!multi)
			violation(f, r, h, "a dump's records without NLM_F_MULTI");
	} else {
		violation(f, r, h, "a taskstats record answers a request for none");
		return;
	}
	parse_records(f, r, h);
}

/*
 * The records of an exit message as the socket's listener may have asked
 * for them: with CGROUP_ID or not (both records alike), and only of its
 * cgroup. A listener dropped may still have a record or two on its way:
 * its identity still counts (f->lst_stale).
 */
static void check_event_lid(struct fuzz *f, const struct nlmsghdr *h,
			    const struct aggr *a, int n)
{
	__u32 may = (f->lst_may | f->lst_stale) & ~(1u << LID_NONE);
	__u8 lid;
	int i;

	/*
	 * A registration of this datagram not yet answered may have made
	 * the listener: exits can reach it before its ACK is queued.
	 */
	for (i = 0; i < f->nreq; i++) {
		const struct req *r = &f->req[i];

		if (r->exp != EXP_LISTEN || !r->reg || r->done)
			continue;
		may |= r->lid_known ? 1u << r->lid : LID_ANY;
	}
	may &= ~(1u << LID_NONE);
	if (n == 2 && a[0].has_cgid != a[1].has_cgid) {
		violation(f, NULL, h, "an exit message with CGROUP_ID in one record only");
		return;
	}
	if (!f->cgids) {
		if (a[0].has_cgid)
			violation(f, NULL, h, "an exit record with CGROUP_ID, on a kernel without");
		return;
	}
	if (!f->series || f->phase == PH_USER || !may || may == (LID_ANY & ~(1u << LID_NONE)))
		return;
	for (lid = 0; lid < LID_NONE; lid++) {
		if (!(may & (1u << lid)) || LID_CGID(lid) != a[0].has_cgid)
			continue;
		if (!a[0].has_cgid || lid_matches(f, lid, a[0].cgid))
			return;
	}
	if (a[0].has_cgid)
		violation(f, NULL, h, "the exit record of %u (cgroup %llu) for a listener of %#x",
			  a[0].id, (unsigned long long)a[0].cgid, may);
	else
		violation(f, NULL, h, "the exit record of %u, no CGROUP_ID, for a listener of %#x",
			  a[0].id, may);
}

/* An exit record heard by a listener: port id 0, a seq of its CPU. */
static void on_event(struct fuzz *f, const struct nlmsghdr *h)
{
	const struct genlmsghdr *g = NLMSG_DATA(h);
	struct walk w = walk_start((const char *)h + NLMSG_LENGTH(GENL_HDRLEN),
				   h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
	const struct nlattr *na;
	struct aggr a[2];
	const char *why;
	int n = 0;

	f->c.events++;
	/*
	 * Upstream sends exit records to a listener's port id, and keeps a
	 * closed listener until a send to it fails: a new socket bound to
	 * the same port id gets them. Its known weakness, not a finding of
	 * ours; this series sends to the registered socket only.
	 */
	if (!f->series && (!f->reg_tried || f->phase == PH_USER))
		f->c.strays++;
	else if (!f->reg_tried || f->phase == PH_USER)
		violation(f, NULL, h, "an exit record on a socket that %s",
			  f->reg_tried ? "may not listen" : "never registered");
	if (h->nlmsg_len < NLMSG_LENGTH(GENL_HDRLEN) ||
	    g->cmd != TASKSTATS_CMD_NEW || (h->nlmsg_flags & NLM_F_MULTI)) {
		violation(f, NULL, h, "a malformed exit message");
		return;
	}
	while ((na = walk_next(&w))) {
		int want = n ? TASKSTATS_TYPE_AGGR_TGID : TASKSTATS_TYPE_AGGR_PID;

		if (na->nla_type != want || n == 2) {
			violation(f, NULL, h, "exit record: attribute %u", na->nla_type);
			return;
		}
		why = parse_aggr(na, -1, &a[n]);
		if (why) {
			violation(f, NULL, h, "malformed exit record: %s", why);
			return;
		}
		check_record(f, NULL, h, a[n].id);
		n++;
	}
	if (w.bad || !n)
		violation(f, NULL, h, "exit message does not walk to its end");
	else
		check_event_lid(f, h, a, n);
}

static void on_message(struct fuzz *f, const struct nlmsghdr *h)
{
	__u32 idx = h->nlmsg_seq - f->seq_base;
	struct req *r;

	f->c.replies++;
	if (h->nlmsg_pid == 0 && h->nlmsg_type == f->family) {
		on_event(f, h);
		return;
	}
	if (h->nlmsg_pid != f->portid) {
		violation(f, NULL, h, "an answer for port %u on port %u",
			  h->nlmsg_pid, f->portid);
		return;
	}
	if (idx >= (__u32)f->nreq) {
		violation(f, NULL, h, "an answer to seq %u, not in flight",
			  h->nlmsg_seq);
		return;
	}
	r = &f->req[idx];
	if (h->nlmsg_type == NLMSG_ERROR)
		on_error(f, r, h);
	else if (h->nlmsg_type == NLMSG_DONE)
		on_done(f, r, h);
	else if (h->nlmsg_type == f->family)
		on_new(f, r, h);
	else
		violation(f, r, h, "an answer of type %u", h->nlmsg_type);
}

/* Checks every answer of one datagram read from the socket. */
void on_datagram(struct fuzz *f, const char *buf, int len)
{
	int rem = len;

	while (rem >= NLMSG_HDRLEN) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;

		if (h->nlmsg_len < NLMSG_HDRLEN || (int)h->nlmsg_len > rem) {
			violation(f, NULL, NULL, "a message of %u bytes in %d",
				  h->nlmsg_len, rem);
			return;
		}
		on_message(f, h);
		rem -= NLMSG_ALIGN(h->nlmsg_len);
		buf += NLMSG_ALIGN(h->nlmsg_len);
	}
	if (rem)
		violation(f, NULL, NULL, "%d stray bytes at the end of a datagram", rem);
}
