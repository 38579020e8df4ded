/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The devices' asynchronous events: a control thread per device reads
 * each as it comes and acknowledges it at once. libibverbs's
 * ibv_destroy_qp and ibv_destroy_srq wait until every event the kernel
 * reported for the object is acknowledged, and a device reports
 * IBV_EVENT_QP_LAST_WQE_REACHED for a QP of an SRQ that goes to the error
 * state (as every tear-down puts it): read from an engine's own thread,
 * an event reported between its last look and the destroy would block
 * that engine for good. The SRQ limit event sets the flag of its SRQ,
 * which the owning engine reads at its next poll (the SRQ is not
 * destroyed before the event is acknowledged, so the flag is there);
 * errors of a device, an SRQ or a CQ are logged, a QP's show in its
 * completions too.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/eventfd.h>

#include <rte_lcore.h>

#include "rds_ib.h"

static void
rds_ib_async_one(struct rds_ib_dev *d, const struct ibv_async_event *ev)
{
	const char *name = ibv_get_device_name(d->verbs->device);

	switch (ev->event_type) {
	case IBV_EVENT_SRQ_LIMIT_REACHED:
		__atomic_store_n(&((struct rds_ib_edev *)
				   ev->element.srq->srq_context)->limit_hit,
				 true, __ATOMIC_RELEASE);
		break;
	case IBV_EVENT_SRQ_ERR:
	case IBV_EVENT_CQ_ERR:
	case IBV_EVENT_DEVICE_FATAL:
		IB_LOG(ERR, "%s: async event: %s", name,
		       ibv_event_type_str(ev->event_type));
		break;
	default:
		IB_LOG(DEBUG, "%s: async event: %s", name,
		       ibv_event_type_str(ev->event_type));
		break;
	}
}

static void *
rds_ib_async_main(void *arg)
{
	struct rds_ib_dev *d = arg;
	struct ibv_async_event ev;
	struct pollfd p[2] = {
		{ .fd = d->verbs->async_fd, .events = POLLIN },
		{ .fd = d->async_stop_fd, .events = POLLIN },
	};

	for (;;) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			IB_LOG(ERR, "async events: poll: %s", strerror(errno));
			break;
		}
		if (p[1].revents != 0)
			break;
		while (ibv_get_async_event(d->verbs, &ev) == 0) {
			rds_ib_async_one(d, &ev);
			ibv_ack_async_event(&ev);
		}
	}
	return NULL;
}

int
rds_ib_async_start(struct rds_ib_dev *d)
{
	int flags, ret;

	flags = fcntl(d->verbs->async_fd, F_GETFL);
	if (flags < 0 || fcntl(d->verbs->async_fd, F_SETFL,
			       flags | O_NONBLOCK) < 0) {
		ret = -errno;
		IB_LOG(ERR, "async events: fcntl: %s", strerror(-ret));
		return ret;
	}
	d->async_stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->async_stop_fd < 0) {
		ret = -errno;
		IB_LOG(ERR, "async events: eventfd: %s", strerror(-ret));
		return ret;
	}
	ret = rte_ctrl_thread_create(&d->async_tid, "rds-ib-async", NULL,
				     rds_ib_async_main, d);
	if (ret != 0) {
		IB_LOG(ERR, "async events: no thread: %s", strerror(ret));
		close(d->async_stop_fd);
		return -ret;
	}
	d->async_running = true;
	return 0;
}

void
rds_ib_async_stop(struct rds_ib_dev *d)
{
	uint64_t one = 1;

	if (!d->async_running)
		return;
	if (write(d->async_stop_fd, &one, sizeof(one)) != sizeof(one))
		IB_LOG(ERR, "async events: eventfd write: %s", strerror(errno));
	pthread_join(d->async_tid, NULL);
	close(d->async_stop_fd);
	d->async_running = false;
}
