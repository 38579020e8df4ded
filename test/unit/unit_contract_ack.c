/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_contract, continued: who acknowledges (the core's RDS ACKs, or a
 * transport that acknowledges itself), an ACK owed when its frame found
 * no room, and a message cancelled while the transport holds it half
 * sent. The transports are unit_contract.c's.
 */
#include <errno.h>
#include <string.h>
#include <arpa/inet.h>

#include <CUnit/CUnit.h>

#include "rds_test.h"
#include "rds_private.h"
#include "unit_contract.h"

static uint64_t
ct_send_acked(void)
{
	struct rte_rds_stats st;

	CU_ASSERT_FATAL(rte_rds_stats_get(0, &st) == 0);
	return st.s_send_acked;
}

/*
 * Who acknowledges. The peer sends a message that asks for an ACK
 * (ACK_REQUIRED) and acknowledges, in its header, all 20 we sent. Over
 * the plain transport the core answers with an ACK-only frame, frees the
 * 20 and sets ACK_REQUIRED on every max_unacked_packets-th message. Over
 * one that acknowledges itself none of that: no ACK-only frame (not
 * even after the delayed-ACK time), no ACK in our headers, no
 * ACK_REQUIRED of the policy, the peer's ACK field changes nothing;
 * messages are freed when the transport says (rds_send_drop_acked), and
 * after a reset exactly those it did not acknowledge go again, marked
 * RETRANSMITTED.
 */
static void
ack_case(bool by_transport)
{
	const char *ip = by_transport ? CT_ACKS_IP : CT_IP;
	struct sockaddr_in to = rds_test_sin(CT_PEER, 9);
	struct rds_header wire;
	struct rds_conn *c;
	unsigned int i, ack_req = 0;
	uint64_t deadline;
	char buf[8];
	int s;

	lib_up(1);
	s = rds_test_socket(ip, 4000, 0, 0);
	CU_ASSERT_FATAL(s >= 0);
	for (i = 0; i < 20; i++)
		CU_ASSERT_EQUAL(rte_rds_sendto(s, "x", 1, 0,
					       (struct sockaddr *)&to,
					       sizeof(to)), 1);
	for (i = 0; i < 4; i++)
		rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL_FATAL(ct.nb_hdrs, 20);
	for (i = 0; i < 20; i++) {
		CU_ASSERT_EQUAL(ct.hdrs[i].seq, i + 1);
		CU_ASSERT_EQUAL(ct.hdrs[i].ack, 0);	/* nothing received */
		if (ct.hdrs[i].flags & RDS_FLAG_ACK_REQUIRED)
			ack_req++;
	}
	/* None, or every 8 (the kernel's sysctl default). */
	CU_ASSERT(by_transport ? ack_req == 0 : ack_req >= 2);

	c = ct_conn(ip, by_transport ? CT_ACKS_TRANS_ID : CT_TRANS_ID);
	CU_ASSERT_FATAL(c != NULL);
	rds_hdr_encode(&wire, 1, 20, 1, 9, 4000, RDS_FLAG_ACK_REQUIRED, 0);
	CU_ASSERT_EQUAL(rds_recv_frame(c, &wire, "y", 1), 0);
	CU_ASSERT_EQUAL(rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT,
					 NULL, NULL), 1);
	rte_rds_engine_poll(0);
	if (!by_transport) {
		CU_ASSERT_EQUAL(ct.acks, 1);
		CU_ASSERT_EQUAL(ct_send_acked(), 20);
		goto out;
	}
	/* Past the delayed ACK too. */
	deadline = rte_get_tsc_cycles() + 3 * rds_lib->delayed_ack_tsc +
		   rte_get_tsc_hz() / 1000;
	while (rte_get_tsc_cycles() < deadline)
		rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL(ct.acks, 0);
	CU_ASSERT_EQUAL(ct_send_acked(), 0);
	/* The transport acknowledges 12: those go, the rest stay. */
	rds_send_drop_acked(c, 12);
	CU_ASSERT_EQUAL(ct_send_acked(), 12);
	ct_send1(s, "x");
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL_FATAL(ct.nb_hdrs, 21);
	CU_ASSERT_EQUAL(ct.hdrs[20].seq, 21);
	CU_ASSERT_EQUAL(ct.hdrs[20].ack, 0);	/* one received: still none */
	/* A reset: 13 .. 21 again, in order, marked; nothing else. */
	rds_conn_error(c, "test");
	for (i = 0; i < 4; i++)
		rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL_FATAL(ct.nb_hdrs, 30);
	for (i = 21; i < 30; i++) {
		CU_ASSERT_EQUAL(ct.hdrs[i].seq, i - 8);
		CU_ASSERT(ct.hdrs[i].flags & RDS_FLAG_RETRANSMITTED);
	}
	CU_ASSERT_EQUAL(ct.acks, 0);
	rds_send_drop_acked(c, 21);
	CU_ASSERT_EQUAL(ct_send_acked(), 21);
out:
	CU_ASSERT(rte_rds_close(s) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
}

void
test_acks_rds(void)
{
	ack_case(false);
}

void
test_acks_by_transport(void)
{
	ack_case(true);
}

/*
 * The ACK is sent when a frame that carries it goes, not when its header
 * is built: a header built for a frame that found no room (the driver's
 * -EAGAIN) leaves the ACK owed, and the next frame that goes carries it.
 * An ACK-only frame first (the peer asked, ACK_REQUIRED), then a DATA
 * frame (the ACK of a second message rides on it).
 */
void
test_ack_owed(void)
{
	struct rds_header wire;
	struct rds_conn *c;
	char buf[8];
	int s;

	s = ct_up_sent();
	rte_rds_engine_poll(0);
	rte_rds_engine_poll(0);
	c = ct_conn(CT_IP, CT_TRANS_ID);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_EQUAL_FATAL(ct.nb_hdrs, 1);
	/* The peer's message 1 asks for an ACK; no room for it. */
	ct.no_room = true;
	rds_hdr_encode(&wire, 1, 0, 1, 9, 4000, RDS_FLAG_ACK_REQUIRED, 0);
	CU_ASSERT_EQUAL(rds_recv_frame(c, &wire, "y", 1), 0);
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL(ct.acks, 0);
	CU_ASSERT_EQUAL(c->ack_sent, 0);
	CU_ASSERT_TRUE(rds_conn_has_work(c));	/* still owed */
	ct.no_room = false;
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL(ct.acks, 1);
	CU_ASSERT_EQUAL(c->ack_sent, 1);
	CU_ASSERT_FALSE(rds_conn_has_work(c));
	/* Message 2 without ACK_REQUIRED: the ACK waits for a frame; ours
	 * finds no room first, then goes and carries it. */
	rds_hdr_encode(&wire, 2, 0, 1, 9, 4000, 0, 0);
	CU_ASSERT_EQUAL(rds_recv_frame(c, &wire, "z", 1), 0);
	ct.no_room = true;
	ct_send1(s, "x");
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL(ct.nb_hdrs, 1);
	CU_ASSERT_EQUAL(c->ack_next, 2);
	CU_ASSERT_EQUAL(c->ack_sent, 1);	/* not sent: owed */
	ct.no_room = false;
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL_FATAL(ct.nb_hdrs, 2);
	CU_ASSERT_EQUAL(ct.hdrs[1].ack, 2);
	CU_ASSERT_EQUAL(c->ack_sent, 2);
	CU_ASSERT_EQUAL(ct.acks, 1);		/* no ACK-only frame */
	while (rte_rds_recvfrom(s, buf, sizeof(buf), MSG_DONTWAIT, NULL,
				NULL) > 0)
		;
	CU_ASSERT(rte_rds_close(s) == 0);
	CU_ASSERT(rte_rds_fini() == 0);
}

/*
 * A message its socket cancels (close, or RDS_CANCEL_SENT_TO) while the
 * transport holds it half sent (its xmit returned -EAGAIN: the message
 * is the connection's xmit_cur) still goes out whole if the connection
 * stays up, as in the kernel (c_xmit_rm). After a reset it never goes:
 * the kernel's rds_send_drop_to took it off c_retrans, and a peer that
 * restarted meanwhile would otherwise take a closed socket's message
 * for the first one of whoever binds that port next.
 */
static void
cancel_half_sent(bool reset)
{
	struct rds_conn *c;
	uint64_t cancelled;
	int s;

	/* The connection up and its congestion map sent, one message gone
	 * (unacknowledged: the close takes it off retrans_q). */
	s = ct_up_sent();
	rte_rds_engine_poll(0);
	rte_rds_engine_poll(0);
	CU_ASSERT_EQUAL_FATAL(ct.xmits, 1);
	ct.no_room = true;
	ct_send1(s, "y");
	rte_rds_engine_poll(0);
	rte_rds_engine_poll(0);
	c = ct_conn(CT_IP, CT_TRANS_ID);
	CU_ASSERT_FATAL(c != NULL);
	CU_ASSERT_FATAL(c->xmit_cur != NULL);	/* half handed over */
	CU_ASSERT_EQUAL(ct.xmits, 1);
	CU_ASSERT(rte_rds_close(s) == 0);
	rte_rds_engine_poll(0);
	CU_ASSERT_PTR_EQUAL(TAILQ_FIRST(&c->send_q), c->xmit_cur);
	if (reset) {
		rds_conn_error(c, "test");
		rte_rds_engine_poll(0);
	}
	ct.no_room = false;
	rte_rds_engine_poll(0);
	rte_rds_engine_poll(0);
	cancelled = rds_engine_get(0)->stats.s_send_cancelled;
	/* The close took the first one off retrans_q either way. */
	if (reset) {
		CU_ASSERT_EQUAL(ct.xmits, 1);
		CU_ASSERT_TRUE(TAILQ_EMPTY(&c->send_q));
		CU_ASSERT_EQUAL(cancelled, 2);
	} else {
		CU_ASSERT_EQUAL(ct.xmits, 2);
		CU_ASSERT_EQUAL(cancelled, 1);
	}
	CU_ASSERT(rte_rds_fini() == 0);
}

void
test_cancel_half_sent(void)
{
	cancel_half_sent(false);
}

void
test_cancel_half_sent_reset(void)
{
	cancel_half_sent(true);
}
