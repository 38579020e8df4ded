/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the api binaries share (api_common.h): the stub transport, their
 * main() and the helpers.
 */

#include "api_common.h"

const char *ctx = "";
bool api_attached;
static const char *api_engine;

bool
api_skip_attached(const char *why)
{
	if (!api_attached)
		return false;
	printf("\n    SKIP (attached): %s\n    ", why);
	return true;
}

/* ------------------------------------------------------------------ */
/* A stub transport with an id of its own (api_common.h). */

static int
fake_laddr_check(struct rds_laddr *la)
{
	return strcmp(la->dev, "nodev") == 0 ? -ENODEV : 0;
}

static int
fake_conn_alloc(struct rds_conn *c)
{
	RTE_SET_USED(c);
	return -ENODEV;
}

static const struct rds_transport fake_transport = {
	.name = "ut_fake",
	.trans_id = API_TRANS_FAKE,
	.flags = 0,
	.laddr_check = fake_laddr_check,
	.conn_alloc = fake_conn_alloc,
};

int
api_main(const char *name, const struct rds_test_case *cases)
{
	if (rds_transport_count() >= RDS_MAX_TRANSPORTS ||
	    rds_transport_by_name("ut_fake") != NULL) {
		fprintf(stderr, "%s: no room for the stub transport\n", name);
		return 1;
	}
	rds_transport_register(&fake_transport);
	api_engine = getenv("RDS_API_ENGINE");
	if (api_engine != NULL && api_engine[0] != '\0') {
		/* A client of the run's rds-engined: no EAL, as any. */
		api_attached = true;
		printf("%s: attached to the rds-engined at %s\n", name,
		       api_engine);
		return rds_test_main(name, NULL, cases);
	}
	return rds_test_main(name, "0", cases);
}

/* ------------------------------------------------------------------ */
/* Helpers */

void
std_conf(struct rte_rds_conf *conf)
{
	rds_test_conf(conf, RTE_RDS_ENGINE_INLINE, RTE_RDS_IDLE_BUSY);
}

static int
lib_attach(void)
{
	int ret;

	/* A case that failed before its lib_down left the attachment. */
	if (rte_rds_attached() == 1) {
		printf("\n    (a case left the attachment: detaching)");
		rte_rds_detach();
	}
	ret = rte_rds_attach(api_engine);
	if (ret != 0)
		printf("\n    rte_rds_attach(%s): %s\n", api_engine,
		       strerror(rte_errno));
	CU_ASSERT_FATAL(ret == 0);
	return ret;
}

int
lib_up_conf(const struct rte_rds_conf *conf)
{
	int ret;

	if (api_attached) {
		printf("\n    lib_up_conf attached: the case needs its own "
		       "conf and must be API_IN_PROCESS_ONLY\n");
		CU_FAIL_FATAL("lib_up_conf in an attached run");
	}
	ret = rds_test_lib_init(conf);

	CU_ASSERT_FATAL(ret == 0);
	return ret;
}

int
lib_up(void)
{
	struct rte_rds_conf conf;

	if (api_attached)
		return lib_attach();
	std_conf(&conf);
	return lib_up_conf(&conf);
}

void
lib_down(void)
{
	rds_test_watchdog(0, NULL);
	if (api_attached) {
		CU_ASSERT_EQUAL(rte_rds_detach(), 0);
		CU_ASSERT_EQUAL(rte_rds_attached(), 0);
		return;
	}
	CU_ASSERT_EQUAL(rte_rds_fini(), 0);
	CU_ASSERT_EQUAL(rte_rds_engine_count(), 0);
}

void
set_timeo(int s, int opt, long sec, long usec)
{
	struct timeval tv = { .tv_sec = sec, .tv_usec = usec };

	CU_ASSERT_EQUAL_FATAL(rte_rds_setsockopt(s, SOL_SOCKET, opt, &tv,
						 sizeof(tv)), 0);
}

void
set_int(int s, int level, int opt, int v)
{
	CU_ASSERT_EQUAL_FATAL(rte_rds_setsockopt(s, level, opt, &v,
						 sizeof(v)), 0);
}

int
get_int(int s, int level, int opt)
{
	socklen_t len = sizeof(int);
	int v = 0x5a5a5a5a;

	CU_ASSERT_EQUAL(rte_rds_getsockopt(s, level, opt, &v, &len), 0);
	CU_ASSERT_EQUAL(len, sizeof(int));
	return v;
}

/* A socket bound to ip:port whose blocking receives give up after 2 s. */
int
sock_at(const char *ip, uint16_t port)
{
	int s = rds_test_socket(ip, port, 0, 0);

	CU_ASSERT_FATAL(s >= 0);
	set_timeo(s, SO_RCVTIMEO, 2, 0);
	return s;
}

ssize_t
send_to(int s, const void *buf, size_t len, const char *ip, uint16_t port,
	int flags)
{
	struct sockaddr_in to = rds_test_sin(ip, port);

	return rds_test_send(s, buf, len, &to, flags);
}

/* sendmsg of "x" with one control message (level, type, data of dlen). */
ssize_t
send_cmsg(int s, const char *ip, uint16_t port, int level, int type,
	  size_t dlen)
{
	struct sockaddr_in to = rds_test_sin(ip, port);

	return rds_test_send_cmsg(s, "x", 1, &to, level, type, NULL, dlen,
				  MSG_DONTWAIT);
}

/* Blocking receive (the socket's SO_RCVTIMEO bounds it). */
ssize_t
recv_one(int s, void *buf, size_t len, struct sockaddr_in *from, int flags,
	 int *mflags)
{
	return rds_test_recv(s, buf, len, from, flags, mflags);
}

/* Expect exactly len bytes equal to want from ip:port on s. */
void
expect_msg(int s, const void *want, size_t len, const char *ip,
	   uint16_t port)
{
	struct sockaddr_in from, src = rds_test_sin(ip, port);
	static uint8_t buf[RTE_RDS_MAX_MSG_SIZE + 16];
	int mflags = -1;
	ssize_t r;

	memset(&from, 0, sizeof(from));
	r = recv_one(s, buf, sizeof(buf), &from, 0, &mflags);
	CU_ASSERT_EQUAL(r, (ssize_t)len);
	if (r != (ssize_t)len)
		printf("\n    [%s] recv: got %zd (%s), want %zu\n", ctx, r,
		       r < 0 ? strerror(rte_errno) : "-", len);
	if (r == (ssize_t)len && len > 0)
		CU_ASSERT(memcmp(buf, want, len) == 0);
	CU_ASSERT(rds_test_sin_eq(&from, &src));
	CU_ASSERT_EQUAL(mflags, 0);
}

/* Nothing queued on s, even after the engine ran a while. */
void
expect_nothing(int s)
{
	uint8_t buf[16];

	rds_test_kick_n(64);
	EXPECT_ERR(rds_test_recv(s, buf, sizeof(buf), NULL, MSG_DONTWAIT,
				 NULL), EAGAIN);
}

/* Drive the engine for 20 ms: delayed ACKs (200 us) go out. */
void
settle(void)
{
	uint64_t t0 = rds_test_now_ns();

	while (rds_test_now_ns() - t0 < 20000000ULL)
		rds_test_kick();
}

uint64_t
elapsed_ms(uint64_t t0)
{
	return (rds_test_now_ns() - t0) / 1000000;
}

/* Congest IP3:5000 (a socket with the smallest SO_RCVBUF): three
 * 1000-byte messages from s, delivered. */
void
congest(int s, const uint8_t *buf)
{
	struct rte_rds_stats st;
	uint64_t d0;
	int i;

	st = rds_test_stats();
	d0 = st.s_recv_delivered;
	for (i = 0; i < 3; i++)
		EXPECT_RET(send_to(s, buf, 1000, RDS_TEST_IP3, 5000,
				   MSG_DONTWAIT), 1000);
	for (i = 0; i < 1000; i++) {
		rds_test_kick();
		st = rds_test_stats();
		if (st.s_recv_delivered >= d0 + 3)
			break;
	}
	CU_ASSERT_EQUAL(st.s_recv_delivered, d0 + 3);
}
