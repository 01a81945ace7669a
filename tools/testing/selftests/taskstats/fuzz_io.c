// SPDX-License-Identifier: GPL-2.0
/*
 * The netlink side: resolving families, the fuzzing socket and its
 * options, sending a datagram and draining its answers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/genetlink.h>
#include <linux/taskstats.h>

#include "fuzz.h"

#define RX_SLOTS	16		/* datagrams per recvmmsg() */
#define RX_SLOT		(96 * 1024)	/* > a dump part, > an echoed BIG_LIST */
#define DRAIN_MS	2000
#define RCVBUF		(4 * 1024 * 1024)
#define SNDBUF		(1024 * 1024)

/*
 * The slots of one recvmmsg(), a datagram each: 8-byte aligned, as the
 * kernel's buffers are, for fuzz_check.c's pad_may_be_at().
 */
static __u64 rx_words[RX_SLOTS][RX_SLOT / 8];

/* ---------------------------------------------------------------- socket */

static int nl_socket(int *portid)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK };
	socklen_t alen = sizeof(addr);
	int fd;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
	    getsockname(fd, (struct sockaddr *)&addr, &alen)) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (portid)
		*portid = addr.nl_pid;
	return fd;
}

/*
 * Asks the genl controller about one family, by name or by id. Returns
 * its id, or -errno.
 */
static int ctrl_family(int fd, __u16 attr, const void *data, int len)
{
	struct sockaddr_nl dst = { .nl_family = AF_NETLINK };
	static __u64 words[4096];
	char *buf = (char *)words;
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int id = -ENOENT;
	char req[256];
	struct msg m;

	msg_begin(&m, req, GENL_ID_CTRL, REQ_ACK, CTRL_CMD_GETFAMILY);
	put(&m, attr, data, len);
	msg_hdr(&m)->nlmsg_seq = 1;
	if (sendto(fd, req, m.len, 0, (struct sockaddr *)&dst, sizeof(dst)) < 0)
		return -errno;
	for (;;) {
		const struct nlmsghdr *h = (const struct nlmsghdr *)buf;
		ssize_t n;
		int rem;

		if (poll(&p, 1, 5000) <= 0)
			return -ETIMEDOUT;
		n = recv(fd, buf, sizeof(words), 0);
		if (n < 0)
			return -errno;
		for (rem = n; rem >= NLMSG_HDRLEN && h->nlmsg_len >= NLMSG_HDRLEN &&
		     (int)h->nlmsg_len <= rem;
		     rem -= NLMSG_ALIGN(h->nlmsg_len),
		     h = (const void *)((const char *)h + NLMSG_ALIGN(h->nlmsg_len))) {
			const struct nlattr *na;
			int arem;

			if (h->nlmsg_seq != 1)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR) {
				const struct nlmsgerr *e = NLMSG_DATA(h);

				return e->error ? e->error : id;
			}
			na = (const void *)((const char *)h + NLMSG_LENGTH(GENL_HDRLEN));
			arem = (int)h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
			while (arem >= NLA_HDRLEN && na->nla_len >= NLA_HDRLEN &&
			       na->nla_len <= arem) {
				if (na->nla_type == CTRL_ATTR_FAMILY_ID) {
					__u16 v;

					memcpy(&v, na + 1, sizeof(v));
					id = v;
				}
				arem -= NLA_ALIGN(na->nla_len);
				na = (const void *)((const char *)na +
						    NLA_ALIGN(na->nla_len));
			}
		}
	}
}

/* The id of the TASKSTATS family, by the genl controller, or -errno. */
int resolve_family(void)
{
	int fd = nl_socket(NULL);
	int id;

	if (fd < 0)
		return fd;
	id = ctrl_family(fd, CTRL_ATTR_FAMILY_NAME, TASKSTATS_GENL_NAME,
			 sizeof(TASKSTATS_GENL_NAME));
	close(fd);
	return id;
}

/* Family ids the controller does not know: their requests get ENOENT. */
void probe_bad_families(struct targets *t)
{
	static const __u16 cand[NR_BAD_FAMILY] = { 0x7ffe, 0xfffe, 0x1ffe, 0x3ffe };
	int fd = nl_socket(NULL);
	int i;

	if (fd < 0)
		return;
	for (i = 0; i < NR_BAD_FAMILY; i++)
		if (ctrl_family(fd, CTRL_ATTR_FAMILY_ID, &cand[i],
				sizeof(cand[i])) == -ENOENT)
			t->bad_family[t->nr_bad_family++] = cand[i];
	close(fd);
}

/* The run-time half of opening the fuzzing socket, with f's options. */
static void sock_reopen(struct fuzz *f)
{
	int ext = f->ext_ack, cap = f->cap_ack;
	int rcv = RCVBUF, snd = SNDBUF;
	int portid = 0;

	if (f->sock >= 0)
		close(f->sock);
	f->reg_tried = false;
	f->lst_may = 1u << LID_NONE;
	f->lst_stale = 0;
	f->sock = nl_socket(&portid);
	if (f->sock < 0) {
		violation(f, NULL, NULL, "netlink socket: %s",
			  strerror(-f->sock));
		return;
	}
	f->portid = portid;
	if (setsockopt(f->sock, SOL_SOCKET, SO_RCVBUFFORCE, &rcv, sizeof(rcv)))
		setsockopt(f->sock, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	if (setsockopt(f->sock, SOL_SOCKET, SO_SNDBUFFORCE, &snd, sizeof(snd)))
		setsockopt(f->sock, SOL_SOCKET, SO_SNDBUF, &snd, sizeof(snd));
	setsockopt(f->sock, SOL_NETLINK, NETLINK_EXT_ACK, &ext, sizeof(ext));
	setsockopt(f->sock, SOL_NETLINK, NETLINK_CAP_ACK, &cap, sizeof(cap));
}

/*
 * A fresh socket now and then drops its listener, so that registrations
 * do not pile up; when is drawn from the stream, as are its options.
 */
void sock_open(struct fuzz *f)
{
	f->ext_ack = chance(500);
	f->cap_ack = chance(300);
	f->reopen_at = 100 + below(500);
	f->on_sock = 0;
	if (!f->dry)
		sock_reopen(f);
	/* After the socket, whose fd pick_dump_fd() may name. */
	f->style_has_fd = chance(600);
	f->style_fd = pick_dump_fd(f);
	f->style_subtree = chance(f->style_has_fd ? 400 : 20);
	f->style_cgid = chance(500);
}

/* -------------------------------------------------------- send and read */

/* Sends the datagram laid out and counts the answers it is owed. */
void send_datagram(struct fuzz *f)
{
	struct sockaddr_nl dst = { .nl_family = AF_NETLINK };
	ssize_t n;
	int i;

	f->outstanding = 0;
	if (f->sock < 0)
		return;
	for (i = 0; i < f->nreq; i++) {
		struct req *r = &f->req[i];

		if (r->exp == EXP_NONE)
			r->done = true;
		else
			f->outstanding++;
		if (r->exp == EXP_LISTEN && r->reg)
			f->reg_tried = true;
	}
	do {
		if (f->use_sendto)
			n = sendto(f->sock, f->tx, f->txlen, 0,
				   (struct sockaddr *)&dst, sizeof(dst));
		else
			n = send(f->sock, f->tx, f->txlen, 0);
	} while (n < 0 && errno == EINTR);
	if (n != f->txlen) {
		if (f->c.send_errors++ < 5)
			printf("# %s: sendmsg of %d bytes: %s\n",
			       phase_name[f->phase], f->txlen,
			       n < 0 ? strerror(errno) : "short");
		f->outstanding = 0;
		return;
	}
	f->c.expected += f->outstanding;
}

/* Messages read that answer a request: every one but the exit records. */
static __u64 answers_read(const struct fuzz *f)
{
	return f->c.replies - f->c.events;
}

/*
 * Reads answers until every message of the datagram is accounted for.
 * They are queued already; only a dump is continued by our reads. A
 * message still unanswered after DRAIN_MS without an answer (exit
 * records do not count) is missing, and the socket is replaced so that
 * nothing late lingers on it.
 */
void drain(struct fuzz *f)
{
	static struct mmsghdr mm[RX_SLOTS];
	static struct iovec iov[RX_SLOTS];
	struct pollfd p = { .fd = f->sock, .events = POLLIN };
	__u64 answers = answers_read(f), now;
	__u64 quiet_until = now_ns() + DRAIN_MS * 1000000ULL;
	int i, n;

	f->overruns_at = f->c.overruns;
	for (i = 0; i < RX_SLOTS; i++) {
		iov[i].iov_base = rx_words[i];
		iov[i].iov_len = RX_SLOT;
		memset(&mm[i].msg_hdr, 0, sizeof(mm[i].msg_hdr));
		mm[i].msg_hdr.msg_iov = &iov[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	while (f->outstanding > 0) {
		n = recvmmsg(f->sock, mm, RX_SLOTS, MSG_DONTWAIT, NULL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				f->c.overruns++;
				continue;
			}
			if (errno != EAGAIN) {
				violation(f, NULL, NULL, "recvmmsg: %s", strerror(errno));
				break;
			}
			/*
			 * Silence is of answers: the exits a listener hears
			 * never stop in a phase whose tasks keep exiting.
			 */
			now = now_ns();
			if (now >= quiet_until)
				break;
			n = poll(&p, 1, (quiet_until - now) / 1000000 + 1);
			if (n > 0 || (n < 0 && errno == EINTR))
				continue;
			break;
		}
		for (i = 0; i < n; i++) {
			if (mm[i].msg_hdr.msg_flags & MSG_TRUNC)
				violation(f, NULL, NULL, "an answer longer than %d bytes",
					  RX_SLOT);
			else
				on_datagram(f, (const char *)rx_words[i], mm[i].msg_len);
		}
		if (answers_read(f) != answers) {
			answers = answers_read(f);
			quiet_until = now_ns() + DRAIN_MS * 1000000ULL;
		}
	}
	if (f->outstanding <= 0)
		return;
	f->c.missing += f->outstanding;
	if (f->c.overruns == f->overruns_at)
		violation(f, NULL, NULL, "%d answers missing, no overrun lost them",
			  f->outstanding);
	for (i = 0; i < f->nreq && f->verbose; i++) {
		const struct req *r = &f->req[i];

		if (r->done)
			continue;
		printf("# %s: no answer to seq %u (expected %s)\n",
		       phase_name[f->phase], r->seq, exp_name[r->exp]);
		print_hex("request", req_hdr(f, r), r->size);
	}
	sock_reopen(f);
}
