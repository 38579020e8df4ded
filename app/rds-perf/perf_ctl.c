/* SPDX-License-Identifier: BSD-3-Clause */

/*
 * rds-perf control messages: the ib hello and done exchanges, and the
 * RDMA modes' hello over loop. They travel between the client's control
 * socket (ib; over loop the client's data socket) and the server's socket,
 * so the server tells them from requests by their source, never by their
 * length or contents.
 */

#include <rte_byteorder.h>

#include "perf.h"

/* Send a control message from s, non-blocking, with the client's cookie
 * in RDS_CMSG_RDMA_DEST when there is a region (RDMA modes). */
ssize_t
perf_ctl_sendmsg(const struct perf_ctx *ctx, int s,
		 const struct sockaddr_in *to, const struct perf_ctl_msg *m)
{
	union {
		struct cmsghdr align;
		uint8_t b[CMSG_SPACE(sizeof(uint64_t))];
	} cbuf;
	struct iovec iov = {
		.iov_base = (void *)(uintptr_t)m,
		.iov_len = sizeof(*m),
	};
	struct msghdr mh = {
		.msg_name = (void *)(uintptr_t)to,
		.msg_namelen = sizeof(*to),
		.msg_iov = &iov,
		.msg_iovlen = 1,
	};
	struct cmsghdr *cm;

	if (ctx->region != NULL) {
		memset(&cbuf, 0, sizeof(cbuf));
		mh.msg_control = &cbuf;
		mh.msg_controllen = sizeof(cbuf.b);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_RDS;
		cm->cmsg_type = RDS_CMSG_RDMA_DEST;
		cm->cmsg_len = CMSG_LEN(sizeof(uint64_t));
		memcpy(CMSG_DATA(cm), &ctx->cookie, sizeof(uint64_t));
	}
	return rte_rds_sendmsg(s, &mh, MSG_DONTWAIT);
}

/* The cookie of a received message (RDS_CMSG_RDMA_DEST), if any. */
bool
perf_cmsg_cookie(struct msghdr *mh, uint64_t *cookie)
{
	struct cmsghdr *cm;

	if (mh->msg_control == NULL || mh->msg_controllen == 0)
		return false;
	for (cm = CMSG_FIRSTHDR(mh); cm != NULL; cm = CMSG_NXTHDR(mh, cm))
		if (cm->cmsg_level == SOL_RDS &&
		    cm->cmsg_type == RDS_CMSG_RDMA_DEST &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(uint64_t))) {
			memcpy(cookie, CMSG_DATA(cm), sizeof(*cookie));
			return true;
		}
	return false;
}

/*
 * ib control messages. They travel between the client's control socket and
 * the server's socket, so the server tells them from requests by their
 * source, never by their length or contents.
 */
void
perf_ctl_put(struct perf_ctl_msg *m, enum perf_ctl_type type,
	     const struct perf_opts *o, uint16_t data_port_be,
	     uint64_t v0, uint64_t v1, uint64_t v2)
{
	memset(m, 0, sizeof(*m));
	m->magic = rte_cpu_to_be_32(PERF_CTL_MAGIC);
	m->version = rte_cpu_to_be_16(PERF_CTL_VERSION);
	m->type = rte_cpu_to_be_16((uint16_t)type);
	m->mode = rte_cpu_to_be_32((uint32_t)o->mode);
	m->size = rte_cpu_to_be_32(o->size);
	m->depth = rte_cpu_to_be_32(o->depth);
	m->data_port = data_port_be;
	m->v[0] = rte_cpu_to_be_64(v0);
	m->v[1] = rte_cpu_to_be_64(v1);
	m->v[2] = rte_cpu_to_be_64(v2);
}

/* Decode a control message in place (to host order). Its type, or 0 when
 * it is not one of ours. */
int
perf_ctl_get(const void *p, size_t len, struct perf_ctl_msg *m)
{
	unsigned int i;

	if (len != sizeof(*m))
		return 0;
	memcpy(m, p, sizeof(*m));
	if (rte_be_to_cpu_32(m->magic) != PERF_CTL_MAGIC ||
	    rte_be_to_cpu_16(m->version) != PERF_CTL_VERSION)
		return 0;
	m->type = rte_be_to_cpu_16(m->type);
	m->mode = rte_be_to_cpu_32(m->mode);
	m->size = rte_be_to_cpu_32(m->size);
	m->depth = rte_be_to_cpu_32(m->depth);
	for (i = 0; i < RTE_DIM(m->v); i++)
		m->v[i] = rte_be_to_cpu_64(m->v[i]);
	if (m->type < PERF_CTL_HELLO || m->type > PERF_CTL_TYPE_MAX)
		return 0;
	return m->type;
}

/* Send a control message, retrying on push-back (driving the engine) for
 * up to 'secs'. */
void
perf_ctl_send(const struct perf_ctx *ctx, int s,
	      const struct sockaddr_in *to, const struct perf_ctl_msg *m,
	      const char *what, double secs)
{
	const uint64_t hz = rte_get_tsc_hz();
	const uint64_t end = rte_rdtsc() + (uint64_t)(secs * (double)hz);
	ssize_t n;

	for (;;) {
		n = rte_rds_sendto(s, m, sizeof(*m), MSG_DONTWAIT,
				   (const struct sockaddr *)to, sizeof(*to));
		if (n == (ssize_t)sizeof(*m))
			return;
		if (n >= 0)
			perf_die("rte_rds_sendto(%s) returned %zd, not %zu",
				 what, n, sizeof(*m));
		if (rte_errno != EAGAIN && rte_errno != ENOBUFS)
			perf_fail("rte_rds_sendto(%s)", what);
		if (rte_rdtsc() > end)
			perf_fail("rte_rds_sendto(%s) (pushed back for %.0f s)",
				  what, secs);
		perf_poll(ctx);
	}
}

/* A server takes a client's hello (checked already): the run's mode,
 * size, depth and stream seconds into o, this run's index and the number
 * of runs of the client's size list (v[2]: index << 32 | runs; 0 from a
 * client that sends one run), the window and the receive buffer. */
void
perf_ctl_take_hello(struct perf_ctx *ctx, struct perf_opts *o,
		    const struct perf_ctl_msg *in)
{
	uint8_t *buf;

	ctx->runs = (uint32_t)in->v[2] != 0 ? (uint32_t)in->v[2] : 1;
	ctx->run = (unsigned int)(in->v[2] >> 32);
	o->mode = (enum perf_mode)in->mode;
	o->size = in->size;
	o->depth = in->depth;
	if (perf_is_stream(o->mode))
		o->secs = (double)in->v[1] / 1e6;
	ctx->window = perf_window(o);
	buf = realloc(ctx->srv_buf, o->size + PERF_RX_SLACK);
	if (buf == NULL)
		perf_die("out of memory");
	ctx->srv_buf = buf;
}
