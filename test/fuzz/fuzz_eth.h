/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef FUZZ_ETH_H
#define FUZZ_ETH_H

/*
 * Shared by fuzz_eth.c and fuzz_eth_corpus.c: an mbuf over a static
 * buffer, without a pool or an EAL. rds_eth_frame_build() and
 * rds_eth_frame_parse() only use an mbuf's data (buf_addr, data_off,
 * data_len, pkt_len, nb_segs, next) and offload fields (ol_flags,
 * l2_len, l3_len), which is what is set here; it is never freed.
 */

#include <stdint.h>
#include <string.h>

#include <rte_mbuf.h>

#define FUZZ_ETH_ROOM 65535		/* buf_len is 16 bits */

struct fuzz_eth_mbuf {
	struct rte_mbuf m;
	uint8_t room[FUZZ_ETH_ROOM];
};

/* m with len bytes of data at the end of its room (so that a read past
 * the data runs into the redzone ASan puts after the buffer), copied
 * from src (if not NULL). NULL if len does not fit. */
static inline struct rte_mbuf *
fuzz_eth_mbuf(struct fuzz_eth_mbuf *fm, const void *src, uint32_t len)
{
	struct rte_mbuf *m = &fm->m;

	if (len > FUZZ_ETH_ROOM)
		return NULL;
	memset(m, 0, sizeof(*m));
	m->buf_addr = fm->room;
	m->buf_len = FUZZ_ETH_ROOM;
	m->data_off = (uint16_t)(FUZZ_ETH_ROOM - len);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
	m->nb_segs = 1;
	m->next = NULL;
	rte_mbuf_refcnt_set(m, 1);
	if (src != NULL && len != 0)
		memcpy(fm->room + m->data_off, src, len);
	return m;
}

#endif /* FUZZ_ETH_H */
