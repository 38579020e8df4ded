/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rds-engined: the engine process that serves every process on the host
 * (rte_rds_attach.h). It is the only DPDK process: it owns the
 * transports and the engines, and listens on a UNIX socket for clients
 * (programs calling rte_rds_attach(), or AF_RDS programs under the
 * preload library).
 *
 *   rds-engined [EAL args] -- --addr IP=transport[,key=value...] ...
 *               [--listen PATH] [--daemon] [--group NAME] [--mode OCTAL]
 *               [--idle busy|pause|yield|sleep] [--idle-polls N]
 *               [--region-mb N]
 *               [--max-clients N] [--max-clients-per-uid N]
 *               [--keep-mb N] [--max-conns N] [--pid-file PATH]
 *               [--log-file PATH]
 *
 * Engines: one per worker lcore of -l; with only the main lcore, one
 * engine runs inline on the main thread, which then serves the socket
 * between engine passes. See doc/rds-engined.8.
 *
 * Where its messages go: standard output and error; with --log-file,
 * that file (the EAL's and the library's log too); with --daemon and no
 * --log-file, syslog (ident rds-engined, facility daemon), where the
 * EAL sends its log anyway.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <grp.h>
#include <ifaddrs.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_pause.h>
#include <rte_rds.h>
#include <rte_rds_attach.h>

#ifdef RDS_ENGINED_HAVE_IB
#include <infiniband/verbs.h>
#endif

#define MAX_ADDR_ARGS 256

static volatile sig_atomic_t stop_now;
/* Detached without a log file: our messages go to syslog. */
static bool use_syslog;

/* One message of ours: an error (LOG_ERR) to standard error, anything
 * else to standard output, or to syslog once detached without a file. */
static void __attribute__((format(printf, 2, 3)))
say(int prio, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (use_syslog) {
		vsyslog(prio, fmt, ap);
	} else {
		vfprintf(prio <= LOG_ERR ? stderr : stdout, fmt, ap);
		fputc('\n', prio <= LOG_ERR ? stderr : stdout);
		fflush(prio <= LOG_ERR ? stderr : stdout);
	}
	va_end(ap);
}

static void
on_signal(int sig)
{
	(void)sig;
	stop_now = 1;
}

/* Every client socket holds a descriptor of ours (its wake-up pair) and
 * every client two more: as many as the hard limit allows. */
static void
raise_fd_limit(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			perror("setrlimit(RLIMIT_NOFILE)");
	}
}

static void
usage(const char *prog)
{
	printf("Usage: %s [EAL options] -- [options]\n"
	       "  --addr IP=transport[,key=value...]  a local address (repeat;\n"
	       "        IPv6 bare or in brackets: [fd00::1]=loop);\n"
	       "        transports: loop, eth, ib, tcp. Without --addr: the IPv4\n"
	       "        addresses of the RDMA devices present, on ib\n"
	       "  --listen PATH      UNIX socket for clients (default %s,\n"
	       "                     or $RTE_RDS_ENGINE)\n"
	       "  --mode OCTAL       its permissions (default 0660)\n"
	       "  --group NAME       its group\n"
	       "  --daemon           detach from the terminal (before the EAL)\n"
	       "  --pid-file PATH    write the process id there\n"
	       "  --log-file PATH    append every message there (the EAL's\n"
	       "                     too); with --daemon and no --log-file,\n"
	       "                     messages go to syslog\n"
	       "  --idle POLICY      engines when idle: busy, pause, yield\n"
	       "                     (default), sleep\n"
	       "  --idle-polls N     empty passes before the policy applies\n"
	       "                     (default 1024; 1 for an engine that\n"
	       "                     shares its core with its clients)\n"
	       "  --region-mb N      shared region per client (default 32)\n"
	       "  --max-clients N    clients at once (default 256)\n"
	       "  --max-clients-per-uid N  clients of one user at once\n"
	       "                     (default 64)\n"
	       "  --keep-mb N        messages kept for a client that does\n"
	       "                     not read, in MiB (default 64)\n"
	       "  --max-conns N      connections an engine holds (8..16777216,\n"
	       "                     default 4096)\n"
	       "  --help\n", prog, RTE_RDS_ENGINE_PATH);
}

/* The IPv4 addresses of the RDMA devices' network interfaces. */
static int
default_addrs(struct rte_rds_conf *conf)
{
#ifdef RDS_ENGINED_HAVE_IB
	struct ibv_device **devs;
	struct ifaddrs *ifa, *i;
	int n = 0, nd, d;
	char path[512], ifname[IF_NAMESIZE + 1], ip[INET_ADDRSTRLEN];
	FILE *f;

	devs = ibv_get_device_list(&nd);
	if (devs == NULL || getifaddrs(&ifa) != 0) {
		if (devs != NULL)
			ibv_free_device_list(devs);
		return 0;
	}
	for (d = 0; d < nd; d++) {
		/* The netdev of port 1's GID 0. */
		snprintf(path, sizeof(path),
			 "/sys/class/infiniband/%s/ports/1/gid_attrs/ndevs/0",
			 ibv_get_device_name(devs[d]));
		f = fopen(path, "r");
		if (f == NULL)
			continue;
		if (fgets(ifname, sizeof(ifname), f) == NULL) {
			fclose(f);
			continue;
		}
		fclose(f);
		ifname[strcspn(ifname, "\n")] = '\0';
		for (i = ifa; i != NULL; i = i->ifa_next) {
			if (i->ifa_addr == NULL ||
			    i->ifa_addr->sa_family != AF_INET ||
			    strcmp(i->ifa_name, ifname) != 0)
				continue;
			inet_ntop(AF_INET,
				  &((struct sockaddr_in *)i->ifa_addr)->sin_addr,
				  ip, sizeof(ip));
			if (rte_rds_conf_add_addr(conf, ip, "ib",
				ibv_get_device_name(devs[d])) == 0) {
				say(LOG_NOTICE, "rds-engined: %s=ib (device "
				    "%s, %s)", ip, ibv_get_device_name(devs[d]),
				    ifname);
				n++;
			}
		}
	}
	freeifaddrs(ifa);
	ibv_free_device_list(devs);
	return n;
#else
	(void)conf;
	return 0;
#endif
}

/*
 * An option of ours among the EAL's (before "--", or with no "--" at
 * all): the EAL would print its whole usage for it, which does not say
 * what went wrong. Its name, or NULL.
 */
static const char *
ours_before_dashes(int argc, char **argv, const struct option *longopts)
{
	const struct option *o;
	size_t n;
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strncmp(argv[i], "--", 2) != 0)
			continue;
		n = strcspn(argv[i] + 2, "=");
		for (o = longopts; o->name != NULL; o++)
			if (strlen(o->name) == n &&
			    strncmp(o->name, argv[i] + 2, n) == 0 &&
			    strcmp(o->name, "help") != 0)
				return argv[i];
	}
	return NULL;
}

/* Did the EAL's arguments say to run without hugepages? */
static bool
eal_no_huge(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
		if (strcmp(argv[i], "--no-huge") == 0)
			return true;
	return false;
}

static int
parse_idle(const char *s, enum rte_rds_idle_policy *p)
{
	if (strcmp(s, "busy") == 0)
		*p = RTE_RDS_IDLE_BUSY;
	else if (strcmp(s, "pause") == 0)
		*p = RTE_RDS_IDLE_PAUSE;
	else if (strcmp(s, "yield") == 0)
		*p = RTE_RDS_IDLE_YIELD;
	else if (strcmp(s, "sleep") == 0)
		*p = RTE_RDS_IDLE_SLEEP;
	else
		return -1;
	return 0;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "addr", required_argument, NULL, 'a' },
		{ "listen", required_argument, NULL, 'L' },
		{ "mode", required_argument, NULL, 'm' },
		{ "group", required_argument, NULL, 'g' },
		{ "daemon", no_argument, NULL, 'd' },
		{ "pid-file", required_argument, NULL, 'p' },
		{ "log-file", required_argument, NULL, 'o' },
		{ "idle", required_argument, NULL, 'i' },
		{ "idle-polls", required_argument, NULL, 'I' },
		{ "region-mb", required_argument, NULL, 'r' },
		{ "max-clients", required_argument, NULL, 'c' },
		{ "max-clients-per-uid", required_argument, NULL, 'u' },
		{ "keep-mb", required_argument, NULL, 'k' },
		{ "max-conns", required_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *addrs[MAX_ADDR_ARGS];
	const char *pid_file = NULL, *group = NULL, *log_file = NULL;
	const char *misplaced;
	struct rte_rds_server_conf sc;
	struct rte_rds_conf conf;
	enum rte_rds_idle_policy idle = RTE_RDS_IDLE_YIELD;
	unsigned int nb_addrs = 0, i, lcore, nb_workers = 0;
	bool daemonize = false, inline_engine;
	int eal_argc, opt, ret, rc = 1;
	uint64_t last_srv = 0, srv_every, empty = 0, idle_polls = 1024;
	uint64_t max_conns = 0;
	char *end;
	int dd;

	memset(&sc, 0, sizeof(sc));
	sc.gid = (gid_t)-1;
	sc.path = getenv("RTE_RDS_ENGINE");
	if (sc.path == NULL || *sc.path == '\0')
		sc.path = RTE_RDS_ENGINE_PATH;
	/* Our options come after "--"; --daemon must act before the EAL
	 * starts threads, so they are read first. */
	for (dd = 1; dd < argc && strcmp(argv[dd], "--") != 0; dd++)
		if (strcmp(argv[dd], "--help") == 0 ||
		    strcmp(argv[dd], "-h") == 0) {
			usage(argv[0]);
			return 0;
		}
	misplaced = ours_before_dashes(argc, argv, longopts);
	if (misplaced != NULL) {
		fprintf(stderr, "rds-engined: %s is an option of rds-engined, "
			"not of the EAL: put it after \"--\" (rds-engined "
			"[EAL options] -- [options]; --help lists them)\n",
			misplaced);
		return 1;
	}
	if (dd < argc) {
		int n = argc - dd;
		char **av = argv + dd;

		optind = 1;
		while ((opt = getopt_long(n, av, "", longopts, NULL)) != -1) {
			switch (opt) {
			case 'a':
				if (nb_addrs == MAX_ADDR_ARGS) {
					fprintf(stderr, "too many --addr\n");
					return 1;
				}
				addrs[nb_addrs++] = optarg;
				break;
			case 'L':
				sc.path = optarg;
				break;
			case 'm':
				sc.mode = (mode_t)strtoul(optarg, &end, 8);
				if (*end != '\0' || sc.mode == 0 ||
				    sc.mode > 0777) {
					fprintf(stderr, "bad --mode %s\n",
						optarg);
					return 1;
				}
				break;
			case 'g':
				group = optarg;
				break;
			case 'd':
				daemonize = true;
				break;
			case 'p':
				pid_file = optarg;
				break;
			case 'o':
				log_file = optarg;
				break;
			case 'i':
				if (parse_idle(optarg, &idle) != 0) {
					fprintf(stderr, "bad --idle %s\n",
						optarg);
					return 1;
				}
				break;
			case 'I':
				idle_polls = strtoull(optarg, &end, 10);
				if (*end != '\0' || idle_polls == 0 ||
				    idle_polls > UINT32_MAX) {
					fprintf(stderr, "bad --idle-polls %s "
						"(1..4294967295)\n", optarg);
					return 1;
				}
				break;
			case 'r':
				sc.region_mb = (uint32_t)strtoul(optarg, &end,
								 10);
				if (*end != '\0' || sc.region_mb < 4 ||
				    sc.region_mb > 4096) {
					fprintf(stderr, "bad --region-mb %s "
						"(4..4096)\n", optarg);
					return 1;
				}
				break;
			case 'c':
				sc.max_clients = (uint32_t)strtoul(optarg,
								   &end, 10);
				if (*end != '\0' || sc.max_clients == 0) {
					fprintf(stderr, "bad --max-clients "
						"%s\n", optarg);
					return 1;
				}
				break;
			case 'u':
			case 'k': {
				unsigned long v = strtoul(optarg, &end, 10);

				if (*end != '\0' || v == 0 || v > UINT32_MAX) {
					fprintf(stderr, "bad --%s %s\n",
						opt == 'u' ?
						"max-clients-per-uid" :
						"keep-mb", optarg);
					return 1;
				}
				if (opt == 'u')
					sc.max_clients_per_uid = (uint32_t)v;
				else
					sc.keep_mb = (uint32_t)v;
				break;
			}
			case 'C':
				/* The library checks the range (EINVAL). */
				max_conns = strtoull(optarg, &end, 10);
				if (*end != '\0' || *optarg == '\0' ||
				    *optarg == '-' || max_conns > UINT32_MAX) {
					fprintf(stderr, "bad --max-conns %s "
						"(8..16777216)\n", optarg);
					return 1;
				}
				break;
			case 'h':
				usage(argv[0]);
				return 0;
			default:
				usage(argv[0]);
				return 1;
			}
		}
		if (optind < n) {
			fprintf(stderr, "unexpected argument '%s'\n",
				av[optind]);
			return 1;
		}
	}
	if (group != NULL) {
		struct group *gr = getgrnam(group);

		if (gr == NULL) {
			fprintf(stderr, "no group '%s'\n", group);
			return 1;
		}
		sc.gid = gr->gr_gid;
	}
	/* The log file is opened on the terminal's watch (an error is seen
	 * there), then takes standard output and error: ours, the EAL's
	 * and the library's log (which the EAL writes to standard output)
	 * go there, detached or not. */
	if (log_file != NULL) {
		int lfd = open(log_file, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			       0640);

		if (lfd < 0) {
			fprintf(stderr, "rds-engined: cannot open --log-file "
				"%s: %s\n", log_file, strerror(errno));
			return 1;
		}
		fflush(stdout);
		fflush(stderr);
		if (dup2(lfd, STDOUT_FILENO) < 0 ||
		    dup2(lfd, STDERR_FILENO) < 0) {
			perror("dup2");
			return 1;
		}
		close(lfd);
		setvbuf(stdout, NULL, _IOLBF, 0);
	}
	if (daemonize) {
		if (daemon(0, log_file != NULL) != 0) {
			perror("daemon");
			return 1;
		}
		if (log_file != NULL) {
			/* daemon() left the terminal as standard input. */
			int nfd = open("/dev/null", O_RDONLY);

			if (nfd >= 0 && nfd != STDIN_FILENO) {
				dup2(nfd, STDIN_FILENO);
				close(nfd);
			}
		}
		if (log_file == NULL) {
			openlog("rds-engined", LOG_PID | LOG_NDELAY, LOG_DAEMON);
			use_syslog = true;
		}
	}
	raise_fd_limit();
	eal_argc = dd;
	ret = rte_eal_init(eal_argc, argv);
	if (ret < 0) {
		int err = rte_errno;

		say(LOG_ERR, "rte_eal_init: %s", rte_strerror(err));
		/* Most often: no hugepages this user may take. */
		if ((err == ENOMEM || err == EACCES || err == EPERM) &&
		    !eal_no_huge(argc, argv))
			say(LOG_ERR, "rds-engined: the EAL could not set up its "
			    "memory: reserve and mount 2 MB hugepages that this "
			    "user may use (config/setup.sh does, as root), or "
			    "run without them: rds-engined -l 0 --no-pci "
			    "--no-huge -m 512 -- ... (rds-engined(8), RUNNING "
			    "IT)");
		return 1;
	}
	/* With a log file, the EAL's log goes there only (not to syslog
	 * besides, as its default does). */
	if (log_file != NULL)
		rte_openlog_stream(stdout);
	rte_rds_conf_init(&conf);
	for (i = 0; i < nb_addrs; i++) {
		if (rte_rds_conf_add_addr_str(&conf, addrs[i]) != 0) {
			say(LOG_ERR, "bad --addr '%s': %s", addrs[i],
			    rte_strerror(rte_errno));
			goto out_eal;
		}
	}
	if (nb_addrs == 0 && default_addrs(&conf) == 0) {
		say(LOG_ERR, "no --addr given, and no RDMA device with an "
		    "IPv4 address found: nothing to serve");
		goto out_eal;
	}
	/* One engine per worker lcore; none: one inline engine. */
	RTE_LCORE_FOREACH_WORKER(lcore) {
		if (nb_workers == RTE_RDS_MAX_ENGINES)
			break;
		conf.engine[nb_workers].lcore_id = lcore;
		conf.engine[nb_workers].idle = idle;
		conf.engine[nb_workers].idle_polls = (uint32_t)idle_polls;
		nb_workers++;
	}
	if (max_conns != 0)
		conf.max_conns = (uint32_t)max_conns;
	inline_engine = nb_workers == 0;
	if (inline_engine) {
		conf.nb_engines = 1;
		conf.engine[0].lcore_id = RTE_RDS_ENGINE_INLINE;
		conf.engine[0].idle = idle;
	} else {
		conf.nb_engines = (uint16_t)nb_workers;
	}
	if (rte_rds_init(&conf) != 0) {
		say(LOG_ERR, "rte_rds_init: %s", rte_strerror(rte_errno));
		goto out_conf;
	}
	if (rte_rds_start() != 0) {
		say(LOG_ERR, "rte_rds_start: %s", rte_strerror(rte_errno));
		goto out_lib;
	}
	if (rte_rds_server_start(&sc) != 0) {
		say(LOG_ERR, "cannot listen on %s: %s", sc.path,
		    rte_strerror(rte_errno));
		goto out_lib;
	}
	if (pid_file != NULL) {
		FILE *f = fopen(pid_file, "w");

		if (f == NULL || fprintf(f, "%d\n", (int)getpid()) < 0) {
			say(LOG_ERR, "cannot write %s", pid_file);
			if (f != NULL)
				fclose(f);
			goto out_srv;
		}
		fclose(f);
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	say(LOG_NOTICE, "rds-engined: %u address(es), %u engine(s)%s, "
	    "listening on %s", conf.nb_addrs, (unsigned int)conf.nb_engines,
	    inline_engine ? " (inline on the main thread)" : "", sc.path);
	/* The main thread serves the socket; with an inline engine it
	 * drives it too, and looks at the socket once a millisecond, or
	 * when a client said it sent a call (rte_rds_server_pending), or
	 * sleeps in poll(2) while the engine has had nothing to do. */
	srv_every = rte_get_tsc_hz() / 1000;
	while (!stop_now) {
		if (!inline_engine) {
			rte_rds_server_poll(100);
			continue;
		}
		ret = rte_rds_engine_poll(0);
		empty = ret > 0 ? 0 : empty + 1;
		if (empty >= idle_polls) {
			/* The idle policy of an inline engine is ours. */
			if (idle == RTE_RDS_IDLE_YIELD)
				sched_yield();
			else if (idle == RTE_RDS_IDLE_PAUSE)
				rte_pause();
			else if (idle == RTE_RDS_IDLE_SLEEP) {
				rte_rds_server_poll(1);
				last_srv = rte_rdtsc();
				continue;
			}
		}
		/* On schedule, or sooner for a client that sent a call (at
		 * most every 20 us: a client that calls without end costs
		 * the engine no more than that). */
		if (rte_rdtsc() - last_srv < srv_every &&
		    (!rte_rds_server_pending() ||
		     rte_rdtsc() - last_srv < srv_every / 50))
			continue;
		last_srv = rte_rdtsc();
		rte_rds_server_poll(0);
	}
	say(LOG_NOTICE, "rds-engined: stopping");
	rc = 0;
out_srv:
	rte_rds_server_stop();
	if (pid_file != NULL)
		unlink(pid_file);
out_lib:
	rte_rds_fini();
out_conf:
	rte_rds_conf_free(&conf);
out_eal:
	rte_eal_cleanup();
	return rc;
}
