/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef RTE_RDS_H
#define RTE_RDS_H

/**
 * @file
 * librte_rds: Reliable Datagram Sockets in user space.
 *
 * This header sets the library up: the local addresses and their
 * transports, the engines (polling threads that own connections) and their
 * idle policy, and the library's lifetime. The socket calls are in
 * rte_rds_socket.h, the counters in rte_rds_stats.h; this header includes
 * both.
 *
 * Error convention: calls return -1 (or NULL) and set rte_errno to the
 * errno value rds(7) documents for the same situation; calls returning
 * -1 set errno to the same value.
 */

#include <stdint.h>
#include <netinet/in.h>

#include <rte_rds_socket.h>
#include <rte_rds_stats.h>
#include <rte_rds_info.h>
#include <rte_rds_attach.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most engines one library instance runs. */
#define RTE_RDS_MAX_ENGINES 16
/** Length of a transport or device name, with its NUL. */
#define RTE_RDS_NAMESIZE 32
/** Engine lcore value that makes an engine inline (driven by the application). */
#define RTE_RDS_ENGINE_INLINE UINT32_MAX

/** What an engine does after a run of empty polls. */
enum rte_rds_idle_policy {
	RTE_RDS_IDLE_BUSY = 0,	/**< never idle: pure busy-poll, lowest latency */
	RTE_RDS_IDLE_PAUSE,	/**< rte_pause() between empty polls */
	RTE_RDS_IDLE_YIELD,	/**< sched_yield(): lets other threads share the core */
	RTE_RDS_IDLE_SLEEP,	/**< sleep idle_sleep_us microseconds */
};

/** One engine: a run loop that owns connections and polls transports. */
struct rte_rds_engine_conf {
	/** EAL lcore to run on, or RTE_RDS_ENGINE_INLINE for an engine the
	 * application drives with rte_rds_engine_poll(). */
	uint32_t lcore_id;
	/** Idle policy applied after idle_polls empty polls. */
	enum rte_rds_idle_policy idle;
	/** Empty polls before the idle policy applies (0: 1024). */
	uint32_t idle_polls;
	/** Sleep length for RTE_RDS_IDLE_SLEEP (0: 50 us). */
	uint32_t idle_sleep_us;
};

/** Length of an address's driver options, with its NUL. */
#define RTE_RDS_ARGSIZE 256

/** One local address and the transport that serves it. */
struct rte_rds_addr_conf {
	/** IPv4 address, network byte order (family AF_INET). */
	struct in_addr addr;
	/** Transport name: "loop" (reachable only from this instance),
	 * "ib" or "eth". */
	char transport[RTE_RDS_NAMESIZE];
	/** Transport device (verbs device, ethdev name); empty for auto. */
	char dev[RTE_RDS_NAMESIZE];
	/** The driver's options for this address, key=value pairs separated
	 * by commas in DPDK's devargs style (each driver's header lists its
	 * keys: rte_rds_ib.h, rte_rds_eth.h); empty for the defaults. The
	 * ib transport's settings (CM port, ring sizes, flow control, stall
	 * bound) are such options. */
	char args[RTE_RDS_ARGSIZE];
	/** AF_INET (addr) or AF_INET6 (addr6); 0 is AF_INET. Every
	 * transport serves IPv6 addresses ("loop", "ib", "eth", "tcp"); a
	 * transport without it refuses one at rte_rds_init() with
	 * EAFNOSUPPORT (and a log line). */
	sa_family_t family;
	/** IPv6 address (family AF_INET6); a v4-mapped one is stored as
	 * IPv4 (addr). */
	struct in6_addr addr6;
};

/** Local addresses a configuration holds inline; more go to the heap. */
#define RTE_RDS_CONF_INLINE_ADDRS 16

/**
 * Library configuration, filled with defaults by rte_rds_conf_init().
 * Addresses are added with rte_rds_conf_add_addr(), with no fixed limit:
 * the first RTE_RDS_CONF_INLINE_ADDRS in addr[], the others in an array
 * it allocates, which rte_rds_conf_free() frees (rte_rds_init() keeps a
 * copy of its own). rte_rds_conf_addr() reads any of them.
 */
struct rte_rds_conf {
	uint16_t nb_engines;		/**< engines, 1..RTE_RDS_MAX_ENGINES */
	uint32_t nb_addrs;		/**< local addresses (no fixed limit) */
	struct rte_rds_engine_conf engine[RTE_RDS_MAX_ENGINES]; /**< engines */
	/** The first addresses. */
	struct rte_rds_addr_conf addr[RTE_RDS_CONF_INLINE_ADDRS];
	/** Addresses RTE_RDS_CONF_INLINE_ADDRS.. nb_addrs - 1, or NULL. */
	struct rte_rds_addr_conf *addr_more;
	uint32_t max_sockets;		/**< most open sockets (default 65536;
					 * slots are made as handles are used) */
	uint64_t buf_cache_bytes;	/**< free message buffers over 16 KiB
					 * kept for reuse (default 64 MiB) */
	uint32_t sndbuf_default;	/**< SO_SNDBUF default (kernel wmem_default: 212992) */
	uint32_t rcvbuf_default;	/**< SO_RCVBUF default (kernel rmem_default: 212992) */
	uint32_t reconnect_min_ms;	/**< reconnect backoff floor (1 ms) */
	uint32_t reconnect_max_ms;	/**< reconnect backoff ceiling (1000 ms) */
	uint32_t max_unacked_packets;	/**< ask for an ACK every N messages (8) */
	uint32_t max_unacked_bytes;	/**< ask for an ACK every N bytes (16 MiB) */
	int socket_id;			/**< NUMA socket for memory (SOCKET_ID_ANY) */
	/** Most connections an engine holds, 8 to 2^24 (default 4096; its
	 * table is made at rte_rds_init(), about 100 bytes an entry). A
	 * message to a peer past it is dropped and counted in
	 * send_cancelled, the engine logs it, and the sender's next send
	 * fails with ENOMEM (sending nothing; SO_ERROR takes it too). */
	uint32_t max_conns;
};

/**
 * Fill a configuration with the defaults: one inline engine with the
 * yielding idle policy, no local address, kernel buffer sizes.
 *
 * @param conf
 *   Configuration to fill; must not be NULL.
 */
void rte_rds_conf_init(struct rte_rds_conf *conf);

/**
 * Add a local address to a configuration.
 *
 * @param conf
 *   Configuration to change.
 * @param ip
 *   IPv4 address in dotted form, e.g. "10.0.0.1", or an IPv6 address,
 *   e.g. "fd00::1" (a v4-mapped one is IPv4): every transport serves
 *   IPv6 addresses (rte_rds_socket.h, "IPv6 addresses").
 * @param transport
 *   "loop", "ib", "eth" or "tcp".
 * @param dev
 *   Transport device name, or NULL.
 * @return
 *   0, or -1 with rte_errno EINVAL (bad address or name) or ENOMEM.
 */
int rte_rds_conf_add_addr(struct rte_rds_conf *conf, const char *ip,
			  const char *transport, const char *dev);

/**
 * Add a local address given as one string, as rds-engined's --addr:
 * "IP=transport[,key=value...]", e.g. "10.0.0.1=eth,port=net_memif0";
 * an IPv6 address as it is or in brackets ("fd00::1=loop",
 * "[fd00::1]=loop").
 * The key=value pairs are the driver's options (rte_rds_addr_conf.args);
 * the key "dev" also sets the device.
 *
 * @param conf
 *   Configuration to change.
 * @param spec
 *   The address, its transport and options.
 * @return
 *   0, or -1 with rte_errno EINVAL (bad address, name or syntax) or
 *   ENOMEM.
 */
int rte_rds_conf_add_addr_str(struct rte_rds_conf *conf, const char *spec);

/**
 * Free what rte_rds_conf_add_addr() allocated in a configuration (the
 * addresses past RTE_RDS_CONF_INLINE_ADDRS); the configuration is left
 * with no address. Needed only with more than RTE_RDS_CONF_INLINE_ADDRS
 * addresses; harmless otherwise.
 *
 * @param conf
 *   Configuration, or NULL.
 */
void rte_rds_conf_free(struct rte_rds_conf *conf);

/**
 * One address of a configuration.
 *
 * @param conf
 *   Configuration.
 * @param i
 *   Index, 0..nb_addrs - 1.
 * @return
 *   The address, or NULL for a bad index.
 */
const struct rte_rds_addr_conf *
rte_rds_conf_addr(const struct rte_rds_conf *conf, uint32_t i);

/**
 * Create the library instance: engines, socket table, buffers,
 * transports. EAL must be initialised. Engines with an lcore are not
 * started until rte_rds_start().
 *
 * @param conf
 *   Configuration; NULL for the defaults.
 * @return
 *   0, or -1 with rte_errno: EEXIST (already initialised), EINVAL (bad
 *   configuration, unknown transport, lcore not available), ENOMEM,
 *   ENODEV (a transport could not open its device).
 */
int rte_rds_init(const struct rte_rds_conf *conf);

/**
 * Launch every engine that has an lcore with rte_eal_remote_launch().
 *
 * @return
 *   0, or -1 with rte_errno: ENXIO (not initialised), EBUSY (an lcore is
 *   busy).
 */
int rte_rds_start(void);

/**
 * Run one iteration of an engine's loop: drain application channels,
 * poll transports, transmit, run timers, deliver. Used for inline
 * engines; calls made while another thread is polling the same engine
 * return 0 at once. The caller must be an EAL lcore or a thread registered
 * with rte_thread_register().
 *
 * @param engine_id
 *   Engine index, 0..nb_engines-1.
 * @return
 *   Units of work done (0 when idle), or -1 with rte_errno: ENXIO (not
 *   initialised), EINVAL (bad id, or the engine runs on its own lcore).
 */
int rte_rds_engine_poll(unsigned int engine_id);

/**
 * Number of engines of the running instance.
 *
 * @return
 *   Engine count, 0 when not initialised.
 */
unsigned int rte_rds_engine_count(void);

/**
 * Stop the engines, close every socket, tear connections down and free
 * all memory. Messages not yet acknowledged are discarded.
 *
 * @return
 *   0, or -1 with rte_errno ENXIO (not initialised).
 */
int rte_rds_fini(void);

#ifdef __cplusplus
}
#endif

#endif /* RTE_RDS_H */
