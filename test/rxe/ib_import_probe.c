/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ib_import_probe: not a test. Can another process share the engine's
 * verbs context and protection domain (rdma-core's ibv_import_device()
 * and ibv_import_pd()), so that an attached client registers its own
 * memory for the engine's QPs? Opens the first RDMA device, allocates a
 * PD, then tries the import in the same process and in a forked child
 * (which inherits the command descriptor, as one handed over a Unix
 * socket would be): ibv_import_device(), ibv_import_pd(), and an
 * ibv_reg_mr() of the child's memory in the imported PD. Prints each
 * step's result. Exit 0 if the child registered its memory, 1 if a step
 * failed, 77 without a device. doc/ib.md, "RDMA from attached clients".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <infiniband/verbs.h>

#define LEN 65536

static int
child(struct ibv_context *ctx, uint32_t pd_handle)
{
	struct ibv_context *c;
	struct ibv_pd *pd;
	struct ibv_mr *mr;
	void *buf;

	c = ibv_import_device(ctx->cmd_fd);
	if (c == NULL) {
		printf("ib_import_probe: child: ibv_import_device: %s\n",
		       strerror(errno));
		return 1;
	}
	pd = ibv_import_pd(c, pd_handle);
	if (pd == NULL) {
		printf("ib_import_probe: child: ibv_import_pd: %s\n",
		       strerror(errno));
		return 1;
	}
	buf = aligned_alloc(4096, LEN);
	if (buf == NULL)
		return 1;
	mr = ibv_reg_mr(pd, buf, LEN, IBV_ACCESS_LOCAL_WRITE |
			IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	if (mr == NULL) {
		printf("ib_import_probe: child: ibv_reg_mr in the imported "
		       "PD: %s\n", strerror(errno));
		return 1;
	}
	printf("ib_import_probe: child: its memory registered in the "
	       "engine's PD: lkey %#x rkey %#x\n", mr->lkey, mr->rkey);
	return 0;
}

int
main(void)
{
	struct ibv_context *ctx, *same;
	struct ibv_device **list;
	struct ibv_pd *pd;
	int n, st;
	pid_t p;

	setvbuf(stdout, NULL, _IOLBF, 0);
	list = ibv_get_device_list(&n);
	if (list == NULL || n == 0) {
		printf("ib_import_probe: no RDMA device\n");
		return 77;
	}
	ctx = ibv_open_device(list[0]);
	if (ctx == NULL) {
		printf("ib_import_probe: ibv_open_device: %s\n",
		       strerror(errno));
		return 1;
	}
	pd = ibv_alloc_pd(ctx);
	if (pd == NULL) {
		printf("ib_import_probe: ibv_alloc_pd: %s\n", strerror(errno));
		return 1;
	}
	printf("ib_import_probe: device %s, command descriptor %d, PD "
	       "handle %u\n", ibv_get_device_name(list[0]), ctx->cmd_fd,
	       pd->handle);
	same = ibv_import_device(ctx->cmd_fd);
	printf("ib_import_probe: same process: ibv_import_device: %s\n",
	       same != NULL ? "ok" : strerror(errno));
	fflush(stdout);
	p = fork();
	if (p < 0)
		return 1;
	if (p == 0)
		_exit(child(ctx, pd->handle));
	if (waitpid(p, &st, 0) != p || !WIFEXITED(st))
		return 1;
	printf("ib_import_probe: %s\n", WEXITSTATUS(st) == 0 ?
	       "a client can register its memory in the engine's PD" :
	       "a client cannot share the engine's PD on this device");
	return WEXITSTATUS(st) == 0 ? 0 : 1;
}
