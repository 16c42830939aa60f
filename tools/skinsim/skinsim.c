// SPDX-License-Identifier: GPL-2.0
/*
 * skinsim - simulated iCub skin boards: on CAN, into ring files or logs,
 * or behind simulated ETH boards
 *
 * One file per mode: can.c (boards on SocketCAN that answer the driver's
 * start-up commands), offline.c (ring files, candump logs and the ETH
 * boards' datagrams without a bus, eth.c the ETH boards), replay.c (a
 * candump log back onto CAN or into ring files), on what run.c gives
 * them all (the run's outputs and boards).  This file is
 * the top: the options, the set-up of a run and the choice of its mode.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <skin/capture.h>

#include "skinsim.h"

static const char usage[] =
"Usage: skinsim [OPTIONS] [SCENARIO]\n"
"       skinsim --replay LOG [--fast] [--bus FROM=TO]... [--ring DIR --config FILE]\n"
"       skinsim --board BOARD... --pcap FILE|--eth [OPTIONS] [SCENARIO]\n"
"\n"
"Simulate the MTB skin boards of a skind.conf: baselines near noLoad,\n"
"Gaussian noise, thermal drift, the scenario's touches over the parts'\n"
"real taxel positions, and its faults.  SCENARIO is a text file\n"
"(docs/SIMULATOR.md; examples in etc/scenarios/); without one, noise\n"
"only, until stopped.\n"
"\n"
"Modes:\n"
"  (default)             CAN: every board of the config on its interface\n"
"                        (raw sockets); a board answers SET_BRD_CFG,\n"
"                        SET_TRIANG_CFG and SET_TXMODE to 0x200|address,\n"
"                        streams only after SET_TXMODE(on), at the period,\n"
"                        noLoad, shift and triangles it was given, and stops\n"
"                        on SET_TXMODE(off).  The scenario's clock starts\n"
"                        when the first board starts streaming.\n"
"  --ring DIR            no CAN: one ring file per board in DIR, laid out as\n"
"                        /dev/skin/NAME, written by the driver's own core\n"
"  --log FILE            no CAN: a candump -l log of what the boards would\n"
"                        send ('-': stdout)\n"
"  --can --log FILE      CAN, and a candump -l log of what the boards sent\n"
"  --replay LOG          send a candump -l log to CAN at its timing (or\n"
"                        --fast); with --ring and --config, into ring files\n"
"  --pcap FILE           ETH boards, no network: a pcap of the UDP datagrams\n"
"                        the --board boards send ('-': stdout); with --log,\n"
"                        --ring or --eth too\n"
"  --eth                 ETH boards over UDP: each --board sends from its\n"
"                        address (one of this host's), port 12345, to\n"
"                        --head, every 1 ms; in real time\n"
"  --list                print the boards of the config and exit\n"
"\n"
"Options:\n"
"  -c, --config FILE     skind.conf (default: the scenario's 'config')\n"
"  -s, --seed N          seed of every random draw (default: the scenario's)\n"
"  -d, --duration TIME   stop after TIME (10s, 500ms; default: the scenario's)\n"
"  -t, --truth FILE      write the ground truth, per sample ('-': stdout)\n"
"  -f, --fast            --ring, --log, --pcap, --replay: as fast as possible\n"
"  -b, --bus FROM=TO     use interface TO for the config's bus FROM (e.g.\n"
"                        can0=vcan0); repeatable\n"
"      --class N         data class of the frames: 4 (default) or 3\n"
"      --ring-frames N   frames per ring file, a power of two (256)\n"
"      --all-triangles   --ring, --log, --pcap, --eth: enable every triangle,\n"
"                        not only those the geometry has\n"
"      --epoch SEC       --log, --pcap: timestamps start at SEC (default: now)\n"
"      --board BOARD     an ETH board: [NAME=]IPV4[:PORT[,PORT]], its CAN\n"
"                        ports NAMEcanPORT (10.0.1.24: eb24can1, eb24can2;\n"
"                        PORT: the port of patch 0, then 1; default 1,2)\n"
"                        carry the config's buses of those names;\n"
"                        repeatable\n"
"      --head IPV4[:PORT]  where the ETH boards send (10.0.1.104:12345)\n"
"  -v, --verbose         say what the boards are told, once per command\n"
"  -h, --help            this text, then exit\n"
"      --version         \"skinsim VERSION\", then exit\n"
"\n"
"Exit status: 0 done; 1 bad input or a failure (said on stderr); 2 usage.\n";

static int parse_time(const char *s, uint64_t *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return -1;
	if (strcmp(end, "s") == 0)
		v *= 1e9;
	else if (strcmp(end, "ms") == 0)
		v *= 1e6;
	else
		return -1;
	if (v > 86400e9)
		return -1;
	*out = (uint64_t)llround(v);
	return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	enum { OPT_CLASS = 256, OPT_RING_FRAMES, OPT_ALL, OPT_EPOCH, OPT_LIST,
	       OPT_RING, OPT_LOG, OPT_REPLAY, OPT_CAN, OPT_VERSION, OPT_PCAP,
	       OPT_ETH, OPT_BOARD, OPT_HEAD };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "seed", required_argument, NULL, 's' },
		{ "duration", required_argument, NULL, 'd' },
		{ "truth", required_argument, NULL, 't' },
		{ "fast", no_argument, NULL, 'f' },
		{ "bus", required_argument, NULL, 'b' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ "class", required_argument, NULL, OPT_CLASS },
		{ "ring-frames", required_argument, NULL, OPT_RING_FRAMES },
		{ "all-triangles", no_argument, NULL, OPT_ALL },
		{ "epoch", required_argument, NULL, OPT_EPOCH },
		{ "list", no_argument, NULL, OPT_LIST },
		{ "ring", required_argument, NULL, OPT_RING },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "replay", required_argument, NULL, OPT_REPLAY },
		{ "can", no_argument, NULL, OPT_CAN },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ "pcap", required_argument, NULL, OPT_PCAP },
		{ "eth", no_argument, NULL, OPT_ETH },
		{ "board", required_argument, NULL, OPT_BOARD },
		{ "head", required_argument, NULL, OPT_HEAD },
		{ NULL, 0, NULL, 0 },
	};
	unsigned long long u;
	char *end, *eq;
	int c;

	o->cls = 4;
	o->ring_log2 = 8;
	while ((c = getopt_long(argc, argv, "c:s:d:t:fb:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'c':
			o->config = optarg;
			break;
		case 's':
			errno = 0;
			u = strtoull(optarg, &end, 0);
			if (end == optarg || *end || errno || optarg[0] == '-') {
				fprintf(stderr, "skinsim: --seed: not an unsigned integer: '%s'\n", optarg);
				return -1;
			}
			o->seed = u;
			o->have_seed = true;
			break;
		case 'd':
			if (parse_time(optarg, &o->duration_ns)) {
				fprintf(stderr, "skinsim: --duration: expected a time such as 10s or 500ms, not '%s'\n", optarg);
				return -1;
			}
			o->have_duration = true;
			break;
		case 't':
			o->truth = optarg;
			break;
		case 'f':
			o->fast = true;
			break;
		case 'b':
			eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1] ||
			    (size_t)(eq - optarg) >= IFNAMSIZ ||
			    strlen(eq + 1) >= IFNAMSIZ) {
				fprintf(stderr, "skinsim: --bus: expected FROM=TO (interface names), not '%s'\n", optarg);
				return -1;
			}
			if (o->n_maps == MAX_BUS_MAPS) {
				fprintf(stderr, "skinsim: --bus: at most %d\n", MAX_BUS_MAPS);
				return -1;
			}
			memcpy(o->map_from[o->n_maps], optarg, (size_t)(eq - optarg));
			o->map_from[o->n_maps][eq - optarg] = '\0';
			strcpy(o->map_to[o->n_maps], eq + 1);
			o->n_maps++;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			fputs(usage, stdout);
			exit(0);
		case OPT_VERSION:
			puts("skinsim " SKIN_VERSION);
			exit(0);
		case OPT_CLASS:
			if (strcmp(optarg, "3") && strcmp(optarg, "4")) {
				fprintf(stderr, "skinsim: --class: 3 or 4, not '%s'\n", optarg);
				return -1;
			}
			o->cls = (uint8_t)(optarg[0] - '0');
			break;
		case OPT_RING_FRAMES:
			u = strtoull(optarg, &end, 0);
			if (*end || u < 2 || u > 65536 || (u & (u - 1))) {
				fprintf(stderr, "skinsim: --ring-frames: a power of two 2..65536, not '%s'\n", optarg);
				return -1;
			}
			o->ring_log2 = (unsigned int)__builtin_ctzll(u);
			break;
		case OPT_ALL:
			o->all_triangles = true;
			break;
		case OPT_EPOCH:
			u = strtoull(optarg, &end, 10);
			if (end == optarg || *end || u > 10000000000ULL) {
				fprintf(stderr, "skinsim: --epoch: seconds, not '%s'\n", optarg);
				return -1;
			}
			o->epoch_ns = u * 1000000000ULL;
			o->have_epoch = true;
			break;
		case OPT_LIST:
			o->list = true;
			break;
		case OPT_RING:
			o->ring_dir = optarg;
			break;
		case OPT_LOG:
			o->log = optarg;
			break;
		case OPT_REPLAY:
			o->replay = optarg;
			break;
		case OPT_CAN:
			o->can = true;
			break;
		case OPT_PCAP:
			o->pcap = optarg;
			break;
		case OPT_ETH:
			o->eth = true;
			break;
		case OPT_BOARD:
			if (o->n_boards == MAX_ETH_BOARDS) {
				fprintf(stderr, "skinsim: --board: at most %d\n", MAX_ETH_BOARDS);
				return -1;
			}
			o->boards[o->n_boards++] = optarg;
			break;
		case OPT_HEAD:
			o->head = optarg;
			break;
		default:
			return -2;
		}
	}
	if (optind < argc)
		o->scenario = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "skinsim: one scenario only ('%s')\n", argv[optind]);
		return -2;
	}
	if (o->replay && (o->scenario || o->log || o->truth)) {
		fprintf(stderr, "skinsim: --replay takes no scenario, --log or --truth\n");
		return -2;
	}
	if (o->replay && o->ring_dir && !o->config) {
		fprintf(stderr, "skinsim: --replay into --ring needs --config (which boards)\n");
		return -2;
	}
	if (o->can && (o->ring_dir || o->replay)) {
		fprintf(stderr, "skinsim: --can goes with neither --ring nor --replay\n");
		return -2;
	}
	if (o->ring_dir && o->log) {
		fprintf(stderr, "skinsim: --ring or --log, not both\n");
		return -2;
	}
	if ((o->pcap || o->eth) && (o->can || o->replay)) {
		fprintf(stderr, "skinsim: --pcap and --eth go with neither --can nor --replay\n");
		return -2;
	}
	if ((o->pcap || o->eth) != (o->n_boards > 0)) {
		fprintf(stderr, o->n_boards ? "skinsim: --board goes with --pcap or --eth\n" :
			"skinsim: --pcap and --eth need the boards: --board\n");
		return -2;
	}
	if (o->head && !o->eth && !o->pcap) {
		fprintf(stderr, "skinsim: --head goes with --pcap or --eth\n");
		return -2;
	}
	if (o->pcap && !strcmp(o->pcap, "-") &&
	    ((o->log && !strcmp(o->log, "-")) || (o->truth && !strcmp(o->truth, "-")))) {
		fprintf(stderr, "skinsim: one of --pcap, --log and --truth on stdout\n");
		return -2;
	}
	if (o->eth && o->fast) {
		fprintf(stderr, "skinsim: --eth sends in real time: no --fast\n");
		return -2;
	}
	return 0;
}

static void list_boards(const struct run *r)
{
	unsigned int i;

	printf("# NAME BUS ADDRESS PART ORDER PRESENT\n");
	for (i = 0; i < skin_sim_patches(r->sim); i++) {
		const struct skin_sim_patch_info *p = skin_sim_patch(r->sim, i);

		printf("%s %s %u %s %u %04x\n", p->name, bus_map(r->o, p->bus),
		       p->address, p->part_name, p->order, p->present);
	}
}

static void on_signal(int sig)
{
	(void)sig;
	skinsim_stop = 1;
}

static FILE *open_out(const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdout : fopen(path, "we");

	if (!f)
		fprintf(stderr, "skinsim: %s: %s\n", path, strerror(errno));
	return f;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct run r = { .o = &o };
	struct skin_sim_scenario *sc = NULL;
	struct skin_error err;
	const char *config;
	int status = 1, n;
	unsigned int i;

	n = parse_options(argc, argv, &o);
	if (n) {
		if (n == -2)	/* a usage error, said: the usage, as every program */
			fputs(usage, stderr);
		return n == -2 ? 2 : 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);

	if (o.scenario) {
		sc = skin_sim_scenario_load(o.scenario, &err);
		if (!sc) {
			fprintf(stderr, "skinsim: %s\n", err.text);
			return 1;
		}
		if (o.have_seed)
			skin_sim_scenario_set_seed(sc, o.seed);
	}
	config = o.config ? o.config : sc ? skin_sim_scenario_config(sc) : NULL;
	if (!config && !(o.replay && !o.ring_dir)) {
		fprintf(stderr, "skinsim: no config: give --config or a scenario with 'config'\n");
		goto out;
	}
	if (config) {
		r.config = skin_config_load(config, &err);
		if (!r.config) {
			fprintf(stderr, "skinsim: %s\n", err.text);
			goto out;
		}
		if (!sc && o.have_seed) {
			sc = skin_sim_scenario_load_buffer("", 0, "(command line)", &err);
			if (sc)
				skin_sim_scenario_set_seed(sc, o.seed);
		}
		r.sim = skin_sim_new(r.config, sc, &err);
		if (!r.sim) {
			fprintf(stderr, "skinsim: %s\n", err.text);
			goto out;
		}
		skin_sim_set_class(r.sim, o.cls);
	}
	r.duration_ns = o.have_duration ? o.duration_ns :
			sc ? skin_sim_scenario_duration(sc) : 0;
	if (o.list) {
		list_boards(&r);
		status = 0;
		goto out;
	}
	if (o.truth && !(r.truth = open_out(o.truth)))
		goto out;
	if (r.truth && skin_sim_truth_header(r.truth, r.sim))
		goto out;
	if (o.log && !(r.log = open_out(o.log)))
		goto out;
	if (o.ring_dir && open_rings(&r))
		goto out;
	if (o.pcap && (!(r.pcap = open_out(o.pcap)) ||
		       skin_capture_write_header(r.pcap))) {
		if (r.pcap)
			fprintf(stderr, "skinsim: %s: %s\n", o.pcap, strerror(errno));
		goto out;
	}
	if ((o.pcap || o.eth) && eth_open(&r))
		goto out;

	if (o.replay)
		status = run_replay(&r);
	else if (o.ring_dir || (o.log && !o.can) || o.pcap || o.eth)
		status = run_offline(&r);
	else
		status = run_can(&r);
out:
	if (r.truth && (fflush(r.truth) || ferror(r.truth))) {
		fprintf(stderr, "skinsim: %s: write error\n", o.truth);
		status = 1;
	}
	if (r.log && (fflush(r.log) || ferror(r.log))) {
		fprintf(stderr, "skinsim: %s: write error\n", o.log);
		status = 1;
	}
	if (r.pcap && (fflush(r.pcap) || ferror(r.pcap))) {
		fprintf(stderr, "skinsim: %s: write error\n", o.pcap);
		status = 1;
	}
	if (r.pcap && r.pcap != stdout)
		fclose(r.pcap);
	eth_close(&r);
	if (r.truth && r.truth != stdout)
		fclose(r.truth);
	if (r.log && r.log != stdout)
		fclose(r.log);
	if (r.rings) {
		for (i = 0; i < skin_sim_patches(r.sim); i++)
			skin_sim_ring_close(r.rings[i]);
		free(r.rings);
	}
	skin_sim_free(r.sim);
	skin_config_free(r.config);
	skin_sim_scenario_free(sc);
	return status;
}
