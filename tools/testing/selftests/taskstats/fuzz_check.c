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
	       (err == EBADF && r->exact && r->want == EBADF);
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
 * Checks one TASKSTATS_TYPE_AGGR_* nest: one id of its kind, one STATS of
 * a known version, nothing else but NULL pads. Returns NULL or why not.
 */
static const char *parse_aggr(const struct nlattr *aggr, __u32 *id)
{
	int id_type = aggr->nla_type == TASKSTATS_TYPE_AGGR_PID ?
		      TASKSTATS_TYPE_PID : TASKSTATS_TYPE_TGID;
	struct walk w = walk_start(aggr + 1, aggr->nla_len - NLA_HDRLEN);
	const struct nlattr *na;
	int ids = 0, stats = 0;
	__u16 version;

	while ((na = walk_next(&w))) {
		int len = na->nla_len - NLA_HDRLEN;

		if (na->nla_type == id_type) {
			if (len != sizeof(__u32))
				return "id of the wrong size";
			*id = attr_u32(na);
			ids++;
		} else if (na->nla_type == TASKSTATS_TYPE_NULL) {
			if (len)
				return "a NULL pad with a payload";
		} else if (na->nla_type == TASKSTATS_TYPE_STATS) {
			if (len < 4)
				return "STATS shorter than 4 bytes";
			memcpy(&version, na + 1, sizeof(version));
			if (version < 1 || version > TASKSTATS_VERSION)
				return "STATS of an unknown version";
			stats++;
		} else {
			return "an unexpected attribute";
		}
	}
	if (w.bad)
		return "attributes run past the aggregate";
	if (ids != 1 || stats != 1)
		return "not one id and one STATS";
	return NULL;
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
	int n = 0;
	__u32 id = 0;

	while ((na = walk_next(&w))) {
		if (na->nla_type != r->aggr) {
			violation(f, r, h, "attribute %u where aggregate %u belongs",
				  na->nla_type, r->aggr);
			return;
		}
		why = parse_aggr(na, &id);
		if (why) {
			violation(f, r, h, "malformed record: %s", why);
			return;
		}
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

/* An exit record heard by a listener: port id 0, a seq of its CPU. */
static void on_event(struct fuzz *f, const struct nlmsghdr *h)
{
	const struct genlmsghdr *g = NLMSG_DATA(h);
	struct walk w = walk_start((const char *)h + NLMSG_LENGTH(GENL_HDRLEN),
				   h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
	const struct nlattr *na;
	const char *why;
	int n = 0;
	__u32 id = 0;

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
		why = parse_aggr(na, &id);
		if (why) {
			violation(f, NULL, h, "malformed exit record: %s", why);
			return;
		}
		n++;
		check_record(f, NULL, h, id);
	}
	if (w.bad || !n)
		violation(f, NULL, h, "exit message does not walk to its end");
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
