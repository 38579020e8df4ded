/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tcp suite's played kernel peer (tcp_test.h): plain TCP sockets of
 * the run's family writing and reading the kernel's rds_tcp framing, to
 * check the library's wire against the kernel's struct rds_header, its
 * handling of bad frames, and the knock of a higher address.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <CUnit/CUnit.h>
#include <rte_rds.h>

#include "tcp_test.h"

static void
put_be(uint8_t *p, uint64_t v, unsigned int n)
{
	while (n-- > 0) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}

static uint64_t
get_be(const uint8_t *p, unsigned int n)
{
	uint64_t v = 0;

	while (n-- > 0)
		v = v << 8 | *p++;
	return v;
}

/* RFC 1071 over the 48 bytes, as ip_fast_csum. */
static uint16_t
raw_csum(const uint8_t *p)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < HDR_LEN; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

void
raw_encode(uint8_t *p, const struct raw_hdr *h, bool csum)
{
	uint16_t c;

	memset(p, 0, HDR_LEN);
	put_be(p, h->seq, 8);
	put_be(p + 8, h->ack, 8);
	put_be(p + 16, h->len, 4);
	put_be(p + 20, h->sport, 2);
	put_be(p + 22, h->dport, 2);
	p[24] = h->flags;
	if (csum) {
		c = raw_csum(p);
		put_be(p + 30, c, 2);
	}
}

/* Decode; false when the checksum is neither 0 nor right. */
bool
raw_decode(const uint8_t *p, struct raw_hdr *h)
{
	h->seq = get_be(p, 8);
	h->ack = get_be(p + 8, 8);
	h->len = (uint32_t)get_be(p + 16, 4);
	h->sport = (uint16_t)get_be(p + 20, 2);
	h->dport = (uint16_t)get_be(p + 22, 2);
	h->flags = p[24];
	return get_be(p + 30, 2) == 0 || raw_csum(p) == 0;
}

int
raw_connect(const char *from, const char *to)
{
	union rds_test_addr sa = rds_test_addr(from, 0);
	int fd = socket(sa.sa.sa_family, SOCK_STREAM, 0);

	if (fd < 0)
		return -1;
	if (bind(fd, &sa.sa, rds_test_addr_len(&sa)) != 0)
		goto fail;
	sa = rds_test_addr(to, 16385);
	if (connect(fd, &sa.sa, rds_test_addr_len(&sa)) != 0)
		goto fail;
	return fd;
fail:
	close(fd);
	return -1;
}

/* Read exactly len bytes, within timeout_ms: len, 0 at EOF or reset,
 * -1 on timeout. */
ssize_t
raw_read(int fd, void *buf, size_t len, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	size_t got = 0;
	ssize_t n;

	while (got < len) {
		if (poll(&p, 1, timeout_ms) <= 0)
			return -1;
		n = recv(fd, (uint8_t *)buf + got, len - got, 0);
		if (n <= 0)
			return 0;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* Wait until the library closes fd (EOF or RST). */
bool
raw_closed(int fd)
{
	uint8_t b[4096];
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (;;) {
		if (poll(&p, 1, 20000) <= 0)
			return false;
		if (recv(fd, b, sizeof(b), 0) <= 0)
			return true;
	}
}

bool
raw_send_frame(int fd, uint64_t seq, uint16_t sport, uint16_t dport,
	       const void *p, uint32_t len, bool csum)
{
	struct raw_hdr h = { .seq = seq, .len = len, .sport = sport,
			     .dport = dport };
	uint8_t b[HDR_LEN];

	raw_encode(b, &h, csum);	/* csum false: 0, as rds_tcp sends */
	return send(fd, b, sizeof(b), 0) == (ssize_t)sizeof(b) &&
	       (len == 0 || send(fd, p, len, 0) == (ssize_t)len);
}

/* The played peer's frames are delivered (checksum 0, as the kernel's
 * rds_tcp sends them, or computed); what the library sends it is the
 * kernel's framing; then garbage ends the connection, counted. */
void
test_raw_peer(void)
{
	struct rte_rds_tcp_stats st0;
	union rds_test_addr from, to, want;
	struct raw_hdr hi;
	uint8_t h[HDR_LEN];
	static uint8_t buf[CONG_MAP_BYTES];
	ssize_t n;
	int fd, b;

	tcp_lib_up();
	b = rds_test_socket_trans(ip_b, 5000, 0, 0, RDS_TRANS_TCP);
	CU_ASSERT_FATAL(b >= 0);
	fd = raw_connect(ip_lo, ip_b);
	CU_ASSERT_FATAL(fd >= 0);
	/* The library's congestion map comes first, on every connect. */
	CU_ASSERT_EQUAL_FATAL(raw_read(fd, h, sizeof(h), 20000),
			      (ssize_t)sizeof(h));
	CU_ASSERT(raw_decode(h, &hi));
	CU_ASSERT_EQUAL(hi.flags, FLAG_CONG_BITMAP);
	CU_ASSERT_EQUAL(hi.len, CONG_MAP_BYTES);
	CU_ASSERT_EQUAL(raw_read(fd, buf, hi.len, 20000), (ssize_t)hi.len);

	CU_ASSERT(raw_send_frame(fd, 1, 7000, 5000, "kernel", 6, false));
	n = rds_test_wait_msg_from(b, buf, sizeof(buf), &from, 20000);
	CU_ASSERT_EQUAL(n, 6);
	CU_ASSERT(n == 6 && memcmp(buf, "kernel", 6) == 0);
	/* The source: the peer's address, of the socket's family. */
	want = rds_test_addr(ip_lo, 7000);
	CU_ASSERT(rds_test_addr_eq(&from, &want));
	CU_ASSERT(raw_send_frame(fd, 2, 7000, 5000, "csum", 4, true));
	CU_ASSERT_EQUAL(rds_test_wait_msg_from(b, buf, sizeof(buf), &from,
					       20000), 4);

	/* The library's message to the played peer: a header and the
	 * payload, sequenced; acknowledged once TCP has it. */
	st0 = tcp_stats();
	to = rds_test_addr(ip_lo, 7000);
	CU_ASSERT_EQUAL(rds_test_send_to(b, "reply", 5, &to, 0), 5);
	CU_ASSERT_EQUAL_FATAL(raw_read(fd, h, sizeof(h), 20000),
			      (ssize_t)sizeof(h));
	CU_ASSERT(raw_decode(h, &hi));
	CU_ASSERT_EQUAL(hi.len, 5);
	CU_ASSERT_EQUAL(hi.sport, 5000);
	CU_ASSERT_EQUAL(hi.dport, 7000);
	CU_ASSERT_EQUAL(hi.ack, 0);	/* no RDS ACKs on tcp */
	CU_ASSERT(hi.seq >= 1);
	CU_ASSERT_EQUAL(raw_read(fd, buf, 5, 20000), 5);
	CU_ASSERT(memcmp(buf, "reply", 5) == 0);
	for (n = 0; n < 2000 && tcp_stats().tx_acked_msgs ==
	     st0.tx_acked_msgs; n++)
		usleep(10000);
	CU_ASSERT(tcp_stats().tx_acked_msgs > st0.tx_acked_msgs);

	/* A header whose checksum is wrong: dropped, counted, and the
	 * connection ends. */
	st0 = tcp_stats();
	hi = (struct raw_hdr){ .seq = 3, .len = 4, .sport = 7000,
			       .dport = 5000 };
	raw_encode(h, &hi, true);
	h[31] ^= 0x34;
	CU_ASSERT(send(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h));
	CU_ASSERT(raw_closed(fd));
	close(fd);
	CU_ASSERT_EQUAL(tcp_stats().rx_bad_frames, st0.rx_bad_frames + 1);

	/* A length past 1 MiB: the same. */
	fd = raw_connect(ip_lo, ip_b);
	CU_ASSERT_FATAL(fd >= 0);
	hi = (struct raw_hdr){ .seq = 4, .len = (1u << 20) + 1,
			       .sport = 7000, .dport = 5000 };
	raw_encode(h, &hi, false);
	CU_ASSERT(send(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h));
	CU_ASSERT(raw_closed(fd));
	close(fd);
	CU_ASSERT_EQUAL(tcp_stats().rx_bad_frames, st0.rx_bad_frames + 2);
	/* Nothing of either reached the socket. */
	CU_ASSERT(rds_test_wait_msg_from(b, buf, sizeof(buf), &from, 200) < 0);
	tcp_print_stats("raw peer");
	rte_rds_close(b);
	CU_ASSERT(rds_test_lib_fini() == 0);
}

/* A peer of a higher address connects (a knock): the library resets
 * that connection and connects back, from its own address to the
 * peer's port 16385. */
void
test_knock(void)
{
	union rds_test_addr sa = rds_test_addr(ip_hi, 16385), got;
	union rds_test_addr want = rds_test_addr(ip_b, 0);
	struct pollfd p;
	socklen_t len;
	int lfd, fd, one = 1, nfd;

	tcp_lib_up();
	lfd = socket(sa.sa.sa_family, SOCK_STREAM, 0);
	CU_ASSERT_FATAL(lfd >= 0);
	setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	CU_ASSERT_FATAL(bind(lfd, &sa.sa, rds_test_addr_len(&sa)) == 0);
	CU_ASSERT_FATAL(listen(lfd, 4) == 0);
	fd = raw_connect(ip_hi, ip_b);
	CU_ASSERT_FATAL(fd >= 0);
	CU_ASSERT(raw_closed(fd));	/* reset by the library */
	close(fd);
	p.fd = lfd;
	p.events = POLLIN;
	CU_ASSERT_FATAL(poll(&p, 1, 20000) == 1);
	len = sizeof(got);
	nfd = accept(lfd, &got.sa, &len);
	CU_ASSERT_FATAL(nfd >= 0);
	/* From B's address (any port), of the run's family. */
	got.in.sin_port = 0;
	if (got.sa.sa_family == AF_INET6)
		got.in6.sin6_port = 0;
	CU_ASSERT(rds_test_addr_eq(&got, &want));
	CU_ASSERT(tcp_stats().knocks_answered >= 1);
	tcp_print_stats("knock");
	close(nfd);
	close(lfd);
	CU_ASSERT(rds_test_lib_fini() == 0);
}
