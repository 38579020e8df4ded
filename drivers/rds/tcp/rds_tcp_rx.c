/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tcp transport's framing (net/rds/tcp_recv.c rds_tcp_data_recv): the
 * stream is [48-byte RDS header][h_len payload bytes], again and again,
 * never split into fragments. The header is taken as the core takes one
 * (rds_hdr_decode: the checksum when not 0, the extensions, a length up
 * to RDS's largest message, 1 MiB: the kernel's receiver believes any
 * h_len, a user-space one allocates it), and a congestion map must be
 * 8 KiB before its buffer is allocated. A frame
 * that does not decode ends the stream (the caller resets the
 * connection), as nothing after it can be trusted to start a header.
 *
 * No socket here: bytes come in from the caller (a staging buffer, or
 * read straight into the payload, rds_tcp_rx_direct), so that the unit
 * test drives it with any split of a stream.
 */
#include <errno.h>
#include <string.h>

#include "rds_tcp.h"

void
rds_tcp_rx_init(struct rds_tcp_rx *rx)
{
	memset(rx, 0, sizeof(*rx));
}

void
rds_tcp_rx_reset(struct rds_tcp_rx *rx)
{
	rds_msg_free(rx->m);
	rds_tcp_rx_init(rx);
}

/* The header is whole: decode it and get the payload's buffer. */
static int
rds_tcp_rx_header(struct rds_tcp_rx *rx, const char **why)
{
	if (!rx->in_data) {
		/* The checksum, the extensions, and a length up to 1 MiB. */
		if (rds_hdr_decode(rx->hdr, RDS_HEADER_SIZE, &rx->h, why) != 0)
			return -EBADMSG;
		if (rx->h.flags == RDS_FLAG_CONG_BITMAP &&
		    rx->h.len != RDS_CONG_MAP_BYTES) {
			*why = "congestion map of a wrong length";
			return -EBADMSG;
		}
	}
	if (rx->h.len != 0 && rx->m == NULL) {
		rx->m = rds_msg_alloc(rx->h.len);
		if (rx->m == NULL)
			return -ENOMEM;
	}
	rx->in_data = true;
	rx->data_have = 0;
	return rx->h.len == 0 ? RDS_TCP_RX_FRAME : RDS_TCP_RX_NEED;
}

int
rds_tcp_rx_feed(struct rds_tcp_rx *rx, const uint8_t *buf, uint32_t len,
		uint32_t *used, const char **why)
{
	uint32_t n, got = 0;
	int ret;

	*used = 0;
	if (!rx->in_data) {
		if (rx->hdr_have < RDS_HEADER_SIZE) {
			n = RTE_MIN(len, RDS_HEADER_SIZE - rx->hdr_have);
			memcpy(rx->hdr + rx->hdr_have, buf, n);
			rx->hdr_have += n;
			got = n;
			*used = got;
			if (rx->hdr_have < RDS_HEADER_SIZE)
				return RDS_TCP_RX_NEED;
		}
		ret = rds_tcp_rx_header(rx, why);
		if (ret != RDS_TCP_RX_NEED)
			return ret;
	}
	if (rx->data_have == rx->h.len)
		return RDS_TCP_RX_FRAME;
	n = RTE_MIN(len - got, rx->h.len - rx->data_have);
	memcpy(rds_msg_data(rx->m) + rx->data_have, buf + got, n);
	rx->data_have += n;
	*used = got + n;
	return rx->data_have == rx->h.len ? RDS_TCP_RX_FRAME : RDS_TCP_RX_NEED;
}

uint32_t
rds_tcp_rx_direct(const struct rds_tcp_rx *rx, uint8_t **p)
{
	if (!rx->in_data || rx->m == NULL)
		return 0;
	*p = rds_msg_data(rx->m) + rx->data_have;
	return rx->h.len - rx->data_have;
}

int
rds_tcp_rx_advance(struct rds_tcp_rx *rx, uint32_t n)
{
	rx->data_have += n;
	return rx->data_have == rx->h.len ? RDS_TCP_RX_FRAME : RDS_TCP_RX_NEED;
}

struct rds_msg *
rds_tcp_rx_take(struct rds_tcp_rx *rx, struct rds_hdr_info *h)
{
	struct rds_msg *m = rx->m;

	*h = rx->h;
	rds_tcp_rx_init(rx);
	return m;
}

void
rds_tcp_rx_rem(const struct rds_tcp_rx *rx, uint64_t *hdr_rem,
	       uint64_t *data_rem)
{
	if (rx->in_data) {
		*hdr_rem = 0;
		*data_rem = rx->h.len - rx->data_have;
	} else {
		*hdr_rem = RDS_HEADER_SIZE - rx->hdr_have;
		*data_rem = 0;
	}
}
