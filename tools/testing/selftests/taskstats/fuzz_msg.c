// SPDX-License-Identifier: GPL-2.0
/*
 * Laying a genetlink message out attribute by attribute, and the values
 * its attributes name (pids, fds, cpulists), drawn from the stream.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <linux/genetlink.h>
#include <linux/taskstats.h>

#include "fuzz.h"

/* ------------------------------------------------------ message builder */

/* The netlink header of message @m. */
struct nlmsghdr *msg_hdr(const struct msg *m)
{
	return (struct nlmsghdr *)m->base;
}

/* The genetlink header of message @m. */
struct genlmsghdr *msg_genl(const struct msg *m)
{
	return NLMSG_DATA(msg_hdr(m));
}

/* Starts message @m at @at: its netlink and genetlink headers alone. */
void msg_begin(struct msg *m, char *at, __u16 type, __u16 flags,
	       __u8 cmd)
{
	struct nlmsghdr *h = (struct nlmsghdr *)at;
	struct genlmsghdr *g = NLMSG_DATA(h);

	m->base = at;
	m->len = NLMSG_LENGTH(GENL_HDRLEN);
	memset(at, 0, m->len);
	h->nlmsg_len = m->len;
	h->nlmsg_type = type;
	h->nlmsg_flags = flags;
	g->cmd = cmd;
	g->version = TASKSTATS_GENL_VERSION;
}

/*
 * Appends an attribute whose header claims @nla_len and which takes
 * @len payload bytes (padded); returns the payload for the caller to fill.
 */
void *put_raw(struct msg *m, __u16 type, __u16 nla_len, int len)
{
	struct nlattr *na = (struct nlattr *)(m->base + m->len);
	int pad = NLA_ALIGN(len) - len;

	na->nla_type = type;
	na->nla_len = nla_len;
	memset((char *)(na + 1) + len, 0, pad);
	m->len += NLA_HDRLEN + len + pad;
	msg_hdr(m)->nlmsg_len = m->len;
	return na + 1;
}

/* Appends an attribute of @len bytes from @data. */
void put(struct msg *m, __u16 type, const void *data, int len)
{
	memcpy(put_raw(m, type, NLA_HDRLEN + len, len), data, len);
}

/* Appends an attribute of four bytes, @v. */
void put_u32(struct msg *m, __u16 type, __u32 v)
{
	put(m, type, &v, sizeof(v));
}

/* Appends an attribute with no payload. */
void put_flag(struct msg *m, __u16 type)
{
	put_raw(m, type, NLA_HDRLEN, 0);
}

/* Appends an attribute of @len bytes from the stream. */
void put_rand(struct msg *m, __u16 type, int len)
{
	fill_rand(put_raw(m, type, NLA_HDRLEN + len, len), len);
}

/* ------------------------------------------------------- what to name */

/* A pid or tgid: each draw takes the same two numbers from the stream. */
__u32 pick_id(struct fuzz *f)
{
	const struct targets *t = &f->t;
	__u32 kind = below(20);
	__u64 r = rnd();
	unsigned int n;

	switch (kind) {
	case 0:
		return 0;
	case 1:
		return 1;
	case 2:
		return 2;		/* kthreadd */
	case 3:
		return t->nr_kthread ? t->kthread[r % t->nr_kthread] : 2;
	case 4:
	case 5:
		return t->self;
	case 6:
		return t->thread;
	case 7:
		return (__u32)-1;
	case 8:
		return t->pid_max + 1;
	case 9:
		return t->pid_max - (r & 1);
	case 10:
		return (__u32)r;
	case 11:
		return t->zombie;
	case 12:
	case 13:
	case 14:
		/* The newest first: the likeliest to be exiting now. */
		n = t->nr_exiting < 8 ? t->nr_exiting : 8;
		if (!n)
			return t->self;
		return t->exiting[(t->exit_head - 1 - r % n) % NR_EXITING];
	case 15:
		return t->spawner;
	case 16:
		return t->parent;
	case 17:
		return 1 + r % t->pid_max;
	case 18:
		return r & 1 ? INT_MAX : 0x80000000u;
	default:
		return t->self + r % 4;
	}
}

/* A cgroup directory's fd: small cgroups more often than the roots. */
static __u32 pick_cgroup_dir(struct fuzz *f, __u64 r)
{
	static const __u8 dirs[] = {
		CG_V2CHILD, CG_V2CHILD, CG_V2SUB, CG_V2SUB, CG_V2, CG_V1CHILD,
		CG_V1ROOT,
	};

	return f->t.cg_fd[dirs[r % ARRAY_SIZE(dirs)]];
}

/* An fd number for CGROUPSTATS_CMD_ATTR_FD (or DUMP_CGROUP_FD). */
__u32 pick_fd(struct fuzz *f)
{
	static const __u32 huge[] = { (__u32)-1, INT_MAX, 0x80000000u, 1048576 };
	__u32 kind = below(CG_NR + 5);
	__u64 r = rnd();

	if (kind < CG_NR)
		return f->t.cg_fd[kind];
	switch (kind) {
	case CG_NR:
		return f->sock >= 0 ? f->sock : f->t.cg_fd[CG_CLOSED];
	case CG_NR + 1:
		return f->t.spawn_fd >= 0 ? f->t.spawn_fd : f->t.cg_fd[CG_CLOSED];
	case CG_NR + 2:
		return r % 3;		/* stdin, stdout, stderr: whatever */
	case CG_NR + 3:
		return huge[r % ARRAY_SIZE(huge)];
	default:
		return pick_cgroup_dir(f, r);
	}
}

/* An fd for DUMP_CGROUP_FD: mostly a cgroup's, whose tasks come back. */
__u32 pick_dump_fd(struct fuzz *f)
{
	__u64 r = rnd();

	return r & 3 ? pick_cgroup_dir(f, r >> 2) : pick_fd(f);
}

static int copy_str(char *out, const char *s)
{
	int n = strlen(s);

	memcpy(out, s, n);
	return n;
}

/*
 * A cpulist payload written to @out; returns its length, NUL included if
 * it has one. Lists longer than 256 bytes only come with @allow_big; those
 * longer than 1 KiB set *@big, which ends the datagram.
 */
int gen_cpulist(struct fuzz *f, char *out, bool allow_big, bool *big)
{
	static const char * const lists[] = {
		"", "0", "1", "0-1", "0,1", "1-1", "0-0", "all", "N", "0-N",
		"0-1:1/2", "0-3:1/2", "0-3:0/2", "0-3:3/2", "0-3:1/0", "0-",
		"-1", "-", "3-1", "1-0", ",", ",,,,", " ", "\n", "0 1", " 0 ",
		"0,,1", "4294967295", "4294967296", "99999999999999999999",
		"0-99999", "0-4294967295", "a", "0x1", "+1", "0-1-2", "0:1",
		"1/2", "0-1:/", "0-1:1/", "2147483648", "\t0", "0\n1", "0-1,",
		"N-0", "all:1/2", "ALL", "0-1:2/1",
	};
	static const int long_lens[] = {
		125, 126, 164, 700, 1636, 3172, 6244, 49252, BIG_LIST,
	};
	static const __u32 nums[] = {
		0, 1, 2, 3, 4, 7, 63, 64, 255, 4095, 4096, 65535, INT_MAX,
		0xffffffffu,
	};
	static const char soup[] = "0123456789-,:/ N\nax";
	__u32 kind = below(14);
	__u32 end = below(20);
	__u64 r = rnd();
	int n = 0, len, i;

	switch (kind) {
	case 0:
	case 1:
	case 2:
	case 3:
		n = copy_str(out, lists[r % ARRAY_SIZE(lists)]);
		break;
	case 4:
		n = copy_str(out, f->t.possible);
		break;
	case 5:
		n = sprintf(out, "%u", (unsigned int)(r % 8));
		break;
	case 6:
		len = 1 + r % 40;
		for (i = 0; i < len; i++)
			n += sprintf(out + n, "%u,",
				     (unsigned int)((r >> (8 + i % 32)) & 1));
		break;
	case 7:
		len = long_lens[r % ARRAY_SIZE(long_lens)];
		if (!allow_big && len > 256)
			len = 125 + (r >> 8) % 100;
		for (n = 0; n < len; n++)
			out[n] = n & 1 ? ',' : (r & 256 ? '0' : '1');
		*big = len > 1024;
		break;
	case 8:
		n = r % 65;
		fill_rand(out, n);
		break;
	case 9:
		n = 1 + r % 24;
		for (i = 0; i < n; i++)
			out[i] = soup[below(sizeof(soup) - 1)];
		break;
	case 10:
		n = sprintf(out, "%u-%u", nums[r % ARRAY_SIZE(nums)],
			    nums[(r >> 8) % ARRAY_SIZE(nums)]);
		break;
	case 11:
		n = sprintf(out, "%u-%u:%u/%u", nums[r % ARRAY_SIZE(nums)],
			    nums[(r >> 8) % ARRAY_SIZE(nums)],
			    nums[(r >> 16) % ARRAY_SIZE(nums)],
			    nums[(r >> 24) % ARRAY_SIZE(nums)]);
		break;
	case 12:
		return 0;		/* an empty payload: fails the policy */
	default:
		if (allow_big && !((r >> 40) % 4)) {
			for (n = 0; n < BIG_LIST; n++)
				out[n] = n & 1 ? ',' : '0';
			*big = true;
		} else {
			n = copy_str(out, lists[r % ARRAY_SIZE(lists)]);
		}
		break;
	}
	if (end < 15) {
		out[n++] = '\0';
	} else if (end >= 18) {		/* something after the NUL */
		out[n++] = '\0';
		out[n++] = '0';
		if (end == 19)
			out[n++] = '-';
	}
	return n;
}
