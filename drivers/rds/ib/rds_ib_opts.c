/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ib transport's per-address options: "key=value,..." in DPDK's
 * devargs style (rte_kvargs), as rte_rds_addr_conf.args carries them.
 * The keys and their defaults are listed in rte_rds_ib.h. The receive
 * keys come in two sets: srq_min and srq_max for the engine's shared
 * receive queue (srq=1, the default), recv_wr and flow_control for a
 * ring of each connection's own (srq=0); a key of the other set given
 * explicitly is EINVAL rather than silently unused.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <rte_kvargs.h>

#include "rds_ib.h"

static int
rds_ib_opt_uint(const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long x;

	/* strtoull would take spaces, signs and wrap negatives. */
	if (v == NULL || *v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno != 0 || end == v || *end != '\0' || x < min || x > max)
		return -EINVAL;
	*out = x;
	return 0;
}

/* proto=3.1|4.1: the version proposed when we connect (the kernel's
 * c_proposed_version: 3.1 in mainline, 4.1 in UEK). */
static int
rds_ib_opt_proto(struct rte_kvargs *kv, uint16_t *proto)
{
	const char *v;

	if (rte_kvargs_count(kv, "proto") == 0)
		return 0;
	if (rte_kvargs_count(kv, "proto") > 1) {
		IB_LOG(ERR, "option proto given twice");
		return -EINVAL;
	}
	v = rte_kvargs_get(kv, "proto");
	if (v != NULL && strcmp(v, "3.1") == 0) {
		*proto = RDS_PROTOCOL_3_1;
	} else if (v != NULL && strcmp(v, "4.1") == 0) {
		*proto = RDS_PROTOCOL_4_1;
	} else {
		IB_LOG(ERR, "bad proto '%s' (3.1 or 4.1)", v != NULL ? v : "");
		return -EINVAL;
	}
	return 0;
}

int
rds_ib_opts_parse(const char *args, struct rds_ib_opts *o)
{
	static const char *const keys[] = {
		"dev", "cm_port", "send_wr", "recv_wr", "flow_control",
		"stall_ms", "zerocopy", "zc_min", "srq", "srq_min", "srq_max",
		"proto", NULL,
	};
	static const struct {
		const char *key;
		uint64_t min, max;
	} nums[] = {
		{ "cm_port", 1, UINT16_MAX },
		{ "send_wr", RDS_IB_MIN_WR, RDS_IB_MAX_WR },
		{ "recv_wr", RDS_IB_MIN_WR, RDS_IB_MAX_WR },
		{ "flow_control", 0, 1 },
		{ "stall_ms", 0, RDS_IB_MAX_STALL_MS },
		{ "zerocopy", 0, 1 },
		{ "zc_min", 1, RDS_FRAG_SIZE },
		{ "srq", 0, 1 },
		{ "srq_min", RDS_IB_MIN_WR, RDS_IB_MAX_WR },
		{ "srq_max", RDS_IB_MIN_WR, RDS_IB_MAX_WR },
	};
	uint64_t val[RTE_DIM(nums)];
	bool given[RTE_DIM(nums)];
	struct rte_kvargs *kv;
	unsigned int i;
	int ret = 0;

	memset(o, 0, sizeof(*o));
	o->cm_port = RDS_IB_DEF_CM_PORT;
	o->send_wr = RDS_IB_DEF_SEND_WR;
	o->recv_wr = RDS_IB_DEF_RECV_WR;
	o->flow_control = true;
	o->stall_ms = RDS_IB_DEF_STALL_MS;
	o->zerocopy = true;
	o->zc_min = RDS_IB_DEF_ZC_MIN;
	o->srq = true;
	o->srq_min = RDS_IB_DEF_SRQ_MIN;
	o->srq_max = RDS_IB_DEF_SRQ_MAX;
	o->proto = RDS_PROTOCOL_3_1;
	o->flow_control = !o->srq;	/* credits need a ring of one's own */
	if (args == NULL || args[0] == '\0')
		return 0;
	if (rds_transport_args_check("ib", args, keys) != 0)
		return -EINVAL;
	kv = rte_kvargs_parse(args, keys);
	if (kv == NULL) {
		IB_LOG(ERR, "bad options '%s' (keys: dev, cm_port, send_wr, "
		       "recv_wr, flow_control, stall_ms, zerocopy, zc_min, srq, "
		       "srq_min, srq_max, proto)", args);
		return -EINVAL;
	}
	val[0] = o->cm_port;
	val[1] = o->send_wr;
	val[2] = o->recv_wr;
	val[3] = o->flow_control;
	val[4] = o->stall_ms;
	val[5] = o->zerocopy;
	val[6] = o->zc_min;
	val[7] = o->srq;
	val[8] = o->srq_min;
	val[9] = o->srq_max;
	memset(given, 0, sizeof(given));
	for (i = 0; i < RTE_DIM(nums); i++) {
		const char *v;

		if (rte_kvargs_count(kv, nums[i].key) > 1) {
			IB_LOG(ERR, "option %s given twice", nums[i].key);
			ret = -EINVAL;
			break;
		}
		v = rte_kvargs_get(kv, nums[i].key);
		if (v == NULL && rte_kvargs_count(kv, nums[i].key) == 0)
			continue;
		given[i] = true;
		if (rds_ib_opt_uint(v, nums[i].min, nums[i].max,
				    &val[i]) != 0) {
			IB_LOG(ERR, "bad %s '%s' (%" PRIu64 "..%" PRIu64 ")",
			       nums[i].key, v != NULL ? v : "",
			       nums[i].min, nums[i].max);
			ret = -EINVAL;
			break;
		}
	}
	if (ret == 0)
		ret = rds_ib_opt_proto(kv, &o->proto);
	rte_kvargs_free(kv);
	if (ret != 0)
		return ret;
	/* The two sets of receive keys (above). */
	if (val[7] != 0 && (given[2] || (given[3] && val[3] != 0))) {
		IB_LOG(ERR, "%s applies to a receive ring of each connection's "
		       "own: give srq=0 with it", given[2] ? "recv_wr" :
		       "flow_control=1");
		return -EINVAL;
	}
	if (val[7] == 0 && (given[8] || given[9])) {
		IB_LOG(ERR, "%s applies to the shared receive queue: not with "
		       "srq=0", given[8] ? "srq_min" : "srq_max");
		return -EINVAL;
	}
	if (!given[3])
		val[3] = val[7] == 0;
	if (!given[8] && val[8] > val[9])
		val[8] = val[9];
	if (!given[9] && val[9] < val[8])
		val[9] = val[8];
	if (val[8] > val[9]) {
		IB_LOG(ERR, "srq_min %" PRIu64 " is more than srq_max %" PRIu64,
		       val[8], val[9]);
		return -EINVAL;
	}
	o->cm_port = (uint16_t)val[0];
	o->cm_port_given = given[0];
	o->send_wr = (uint32_t)val[1];
	o->recv_wr = (uint32_t)val[2];
	o->flow_control = val[3] != 0;
	o->stall_ms = (uint32_t)val[4];
	o->zerocopy = val[5] != 0;
	o->zc_min = (uint32_t)val[6];
	o->srq = val[7] != 0;
	o->srq_min = (uint32_t)val[8];
	o->srq_max = (uint32_t)val[9];
	return 0;
}
