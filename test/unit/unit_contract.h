/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unit_contract's parts: the test transports and the general cases in
 * unit_contract.c, who acknowledges and what a cancel does to a message
 * the transport holds half sent in unit_contract_ack.c. What they share.
 */
#ifndef UNIT_CONTRACT_H
#define UNIT_CONTRACT_H

#define CT_TRANS_ID 0x7e
#define CT_ACKS_TRANS_ID 0x7d
#define CT_IP "10.255.0.1"
#define CT_ACKS_IP "10.255.0.3"
#define CT_PEER "10.9.9.1"
#define CT_MAX_HDRS 64
#define CT_RDMA_TRANS_ID 0x7c
#define CT_RDMA_IP "10.255.0.4"

struct ct_state {
	unsigned int flushes[RTE_RDS_MAX_ENGINES];
	unsigned int connects, shutdowns;
	char args[RTE_RDS_ARGSIZE];
	int xmits;
	int acks;			/* ACK-only frames sent */
	bool no_room;			/* xmit, xmit_ack: build the header,
					 * then -EAGAIN (the frame did not
					 * go) */
	unsigned int nb_hdrs;		/* DATA headers sent, decoded */
	struct rds_hdr_info hdrs[CT_MAX_HDRS];
	/* contract_rdma's xmit_op: what it does with an operation. */
	int op_calls;
	bool op_posted;			/* leave it in flight (ct.op kept) */
	int op_status;			/* else its result */
	struct rds_rdma_op *op;		/* in flight, held */
};
extern struct ct_state ct;


/* The library up with the contract transports' addresses (and a loop
 * one), inline engines; ct zeroed. */
void lib_up(unsigned int engines);
/* Engine 0's connection from ip to CT_PEER over transport trans_id. */
struct rds_conn *ct_conn(const char *ip, uint8_t trans_id);

/* Send 1 byte, b[0], from s to CT_PEER port 9. */
void ct_send1(int s, const char *b);
/* lib_up(1), a socket bound to CT_IP port 4000 and one message of it
 * sent (not polled): the socket. */
int ct_up_sent(void);

/* unit_contract_ack.c */
void test_acks_rds(void);
void test_acks_by_transport(void);
void test_ack_owed(void);
void test_cancel_half_sent(void);
void test_cancel_half_sent_reset(void);

#endif /* UNIT_CONTRACT_H */
