/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_RDS_ATTACH_H
#define RTE_RDS_ATTACH_H

/**
 * @file
 * One engine process for many: an engine process (rds-engined, or any
 * program that calls rte_rds_server_start()) serves the processes that
 * attach to it over a UNIX socket. An attached process initialises no
 * EAL: after rte_rds_attach() the socket calls of rte_rds_socket.h work
 * as in the engine process, with the same errno values, on the engine's
 * addresses and connections (one connection per peer for every process
 * on the host).
 *
 * Each attached process gets a shared memory region (a memfd) holding
 * its sockets' queues and message buffers, addressed by offsets; the
 * engine copies messages in and out of it and never follows a pointer of
 * the client's, so a client that writes garbage into its region is
 * disconnected and hurts only itself. A client that exits or is killed
 * has its sockets closed and its ports released by the engine.
 *
 * Differences from the sockets of the engine process itself:
 * - a send to a congested destination waits in the engine (no ENOBUFS;
 *   RDS_CONG_MONITOR is refused with ENOPROTOOPT), and so do the
 *   socket's later sends;
 * - every message counts at least 256 bytes against the socket's send
 *   and receive buffers (so that zero-length messages fill them too);
 * - RDMA: regions (RDS_GET_MR, RDMA_MAP) and the local vectors and
 *   atomic results of RDMA control messages are this process's memory,
 *   checked at the call, on the loop and eth transports; on ib a NIC
 *   would have to reach it, and they are refused with EOPNOTSUPP. The
 *   engine reaches that memory only with this process's own rights and
 *   only in the address space it had when it attached (rds-engined(8),
 *   "Trust"): after an exec, or when this process is not dumpable (it
 *   changed its credentials: prctl(PR_SET_DUMPABLE, 1) makes it so
 *   again) or its pid is not visible to the engine (another pid
 *   namespace), they fail with ESRCH or EPERM; a region unmapped or a
 *   process gone ends an operation with REMOTE_ERROR, never a fault in
 *   the engine. A send with one RDMA or atomic operation goes through
 *   the socket's request ring like any send, with its arguments, its
 *   local vector and a WRITE's data (taken in the call, as in-process,
 *   where one buffer of the region holds them): its errno (EFAULT, EINVAL, EMSGSIZE, EOPNOTSUPP) is
 *   the kernel's, from the same checks made in this process's memory
 *   before it is queued; the engine checks it again when it takes it,
 *   and an operation whose memory went or changed meanwhile ends with
 *   RDS_RDMA_OTHER_ERROR (if it asked for a notification; else the
 *   next send or SO_ERROR says it). A send with RDMA_DEST or RDMA_MAP,
 *   or on a transport a client cannot tell, is made in a call to the
 *   engine;
 * - after fork(), the child cannot use the parent's sockets (EBADF): it
 *   attaches again by itself at its first rte_rds_socket() (the preload
 *   library does so);
 * - rte_rds_engine_poll() and the zero-copy receive calls are not
 *   available (ENXIO, 0).
 * When the engine stops or is killed, calls fail with ECONNRESET (never
 * hang), rte_rds_event_arm() reports POLLERR | POLLHUP, and
 * rte_rds_attached() says 0; a new rte_rds_attach() reaches a restarted
 * engine. The sockets of the engine that went stay closed: after the new
 * attach their handles are EBADF, and never name a socket of the new
 * attachment (a handle carries its attachment).
 */

#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The UNIX socket an engine listens on when nothing else is said; the
 * RTE_RDS_ENGINE environment variable overrides it. */
#define RTE_RDS_ENGINE_PATH "/run/rds-engined.sock"

/**
 * Attach this process to an engine process. Needs no EAL (and must not be
 * called in a process where rte_rds_init() is in effect).
 *
 * @param path
 *   The engine's UNIX socket, or NULL for $RTE_RDS_ENGINE or
 *   RTE_RDS_ENGINE_PATH.
 * @return
 *   0, or -1 with rte_errno (and errno): EEXIST (attached already to an
 *   engine that is there, or the library is initialised in this
 *   process; after the engine went away, or in a forked child, a new
 *   attach is allowed), ENOENT or ECONNREFUSED (no
 *   engine there), EACCES (no permission), EMFILE (the engine serves as
 *   many processes of this user as it allows), ENFILE (as many processes
 *   as it allows in all), EPROTO (not an engine, or another version, or
 *   the engine hung up), ENOMEM.
 */
int rte_rds_attach(const char *path);

/**
 * Detach: close this process's sockets and let the region go.
 *
 * @return
 *   0, or -1 with rte_errno ENXIO (not attached).
 */
int rte_rds_detach(void);

/**
 * Is this process attached to an engine that is there? Looks at once
 * (the engine's connection and the sockets' wake-up descriptors, with a
 * system call): an engine that stopped or was killed a moment ago is
 * seen, so that the caller may attach again (the preload library asks
 * at each socket()).
 *
 * @return
 *   1 when attached (not a child forked since, and the engine has not
 *   gone), 0 otherwise.
 */
int rte_rds_attached(void);

/**
 * Move an attached socket's event fd (rte_rds_event_fd()) to another
 * descriptor number: the library makes a duplicate of it at the lowest
 * free number not below min_fd (close-on-exec, as fcntl F_DUPFD_CLOEXEC)
 * and uses that one from then on. The old number stays open and is the
 * caller's when the call returns, to close or to dup2 another file over:
 * no call of the library reads, polls, shuts or closes it any more,
 * calls of other threads blocked on the socket included (the move waits
 * for them to end their sleep on it, at most 10 ms, and they go on with
 * the new number). For a process that must keep the
 * library's descriptors out of a program's way (the preload library
 * gives the program the old number and keeps the new one hidden).
 *
 * @param s
 *   Socket handle.
 * @param min_fd
 *   The lowest number the new descriptor may have.
 * @return
 *   The new descriptor, or -1 with rte_errno: ENXIO (not attached: the
 *   event fds of the library's own sockets do not move), EBADF (no such
 *   socket), EINVAL (min_fd negative, or not below RLIMIT_NOFILE),
 *   EMFILE (no free number from min_fd up).
 */
int rte_rds_event_fd_move(int s, int min_fd);

/**
 * The descriptor of this process's connection to the engine (a UNIX
 * socket the library uses by number, kept at a number from FD_SETSIZE up,
 * or from half the descriptor limit when that is lower). A program that
 * closes or replaces descriptors it does not know of (closefrom,
 * close_range, dup2 onto any number) must leave it alone, or move it
 * first with rte_rds_attach_fd_move(); the preload library does so for
 * the programs it runs. A forked child does not inherit it: the library
 * closes it in the child.
 *
 * @return
 *   The descriptor, or -1 with rte_errno ENXIO (not attached).
 */
int rte_rds_attach_fd(void);

/**
 * Move the descriptor of the connection to the engine to the lowest free
 * number from min_fd up; the old number becomes the caller's (it may put
 * another file there at once). Waits for a call on the connection in
 * progress to end.
 *
 * @param min_fd
 *   The lowest number it may take.
 * @return
 *   The new descriptor, or -1 with rte_errno: ENXIO (not attached),
 *   EINVAL (min_fd negative, or not below RLIMIT_NOFILE), EMFILE (no
 *   free number from min_fd up).
 */
int rte_rds_attach_fd_move(int min_fd);

/** How an engine process serves others (rte_rds_server_start). */
struct rte_rds_server_conf {
	/** UNIX socket path to listen on (removed first if stale). */
	const char *path;
	/** Its permissions (default 0660 when 0). */
	mode_t mode;
	/** Its group, or -1 to keep the process's. */
	gid_t gid;
	/** Region size per client in MiB (default 32 when 0). */
	uint32_t region_mb;
	/** Most clients at once (default 256 when 0). */
	uint32_t max_clients;
	/** Most clients of one user (uid) at once (default 64, and at most
	 * max_clients, when 0). */
	uint32_t max_clients_per_uid;
	/** Received messages the engine keeps for one client whose region
	 * is full, in MiB (default 64 when 0): past it a delivery is
	 * refused as a full receive queue of the engine's own process
	 * refuses it (the sender's transport sends it again later). */
	uint32_t keep_mb;
};

/**
 * Serve other processes: listen on conf->path. The library must be up
 * (rte_rds_init). The caller's thread then calls rte_rds_server_poll()
 * in its loop.
 *
 * @param conf
 *   The server's settings.
 * @return
 *   0, or -1 with rte_errno: ENXIO (library not up), EEXIST (serving
 *   already), EINVAL (no path), EADDRINUSE (another engine listens
 *   there), or the errno of socket, bind, listen, chmod, chown.
 */
int rte_rds_server_start(const struct rte_rds_server_conf *conf);

/**
 * Serve: accept clients, answer their calls, notice the ones that went
 * away (their sockets are closed within this call). Waits up to
 * timeout_ms for something to do (0: look and return; negative: wait).
 *
 * @param timeout_ms
 *   How long to wait.
 * @return
 *   The number of events handled, or -1 with rte_errno ENXIO (not
 *   serving).
 */
int rte_rds_server_poll(int timeout_ms);

/**
 * Stop serving: every client is disconnected (its calls fail with
 * ECONNRESET), its sockets closed, the socket path removed.
 *
 * @return
 *   0, or -1 with rte_errno ENXIO (not serving).
 */
int rte_rds_server_stop(void);

/**
 * Has a client sent a control call since the last rte_rds_server_poll()?
 * A hint the engines take from the clients' regions in their passes
 * (so not without an engine running): a program that drives an engine
 * inline and serves the socket between its passes (rds-engined -l with
 * one lcore) calls rte_rds_server_poll(0) when it says so, not only on
 * its own schedule, and a client's call (an RDMA send with RDMA_MAP,
 * say) waits for one pass, not for that schedule. Costs one load.
 *
 * @return
 *   1 when one did, else 0 (also when not serving).
 */
int rte_rds_server_pending(void);

/**
 * Clients attached now.
 *
 * @return
 *   The number of clients, 0 when not serving.
 */
unsigned int rte_rds_server_clients(void);

/** What a server has done (rte_rds_server_stats_get). */
struct rte_rds_server_stats {
	uint64_t clients;		/**< attached now */
	uint64_t attached;		/**< attaches accepted in all */
	uint64_t refused;		/**< attaches refused (bad hello, too
					 * many clients, no memory) */
	uint64_t detached;		/**< clients gone (exit, kill, detach) */
	uint64_t violations;		/**< clients disconnected for breaking
					 * the protocol through their region
					 * or socket */
	uint64_t calls;			/**< control calls answered */
	uint64_t msgs_in;		/**< messages taken from regions */
	uint64_t msgs_out;		/**< messages put into regions */
	uint64_t hello_late;		/**< connections closed without a hello
					 * in time (2 s) */
	uint64_t kept_refused;		/**< deliveries refused: the client
					 * had keep_mb kept already */
	uint64_t ops_in;		/**< RDMA and atomic operations taken
					 * with their sends from request
					 * rings (no call each) */
	uint64_t ops_dropped;		/**< of those, dropped: their checks
					 * in the client's memory failed in
					 * the engine (the client was told) */
	uint64_t msgs_zc;		/**< of msgs_in, sent from the client's
					 * own TX buffer (the loop transport,
					 * 1 KiB or more, no control message):
					 * not copied into the engine's memory,
					 * copied once into the receiver's */
	uint64_t gone_held;		/**< clients gone whose TX buffers
					 * messages not yet received still
					 * hold: their regions stay mapped
					 * until the last of those goes */
	uint64_t tx_wakes;		/**< blocked senders woken because
					 * TX buffers of their region came
					 * back (their send buffer had room,
					 * their region no buffer) */
};

/**
 * Read the server's counters.
 *
 * @param st
 *   Filled.
 * @return
 *   0, or -1 with rte_errno ENXIO (not serving) or EINVAL (NULL).
 */
int rte_rds_server_stats_get(struct rte_rds_server_stats *st);

#ifdef __cplusplus
}
#endif

#endif /* RTE_RDS_ATTACH_H */
