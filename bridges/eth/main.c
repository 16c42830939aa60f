// SPDX-License-Identifier: GPL-2.0
/*
 * skin-eth - the ETH boards' skin onto CAN (docs/ETH.md)
 *
 * An iCub's ETH boards carry their MTB boards' CAN frames inside UDP
 * datagrams to the head PC, where yarprobotinterface owns the port.  The
 * gateway reads those datagrams without taking them away (live.c) and
 * hands every carried frame on as CAN, one interface per board CAN port
 * (output.c), or replays a capture file (replay.c); --setup creates the
 * interfaces (setup.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "gateway.h"

static const char usage[] =
"Usage: skin-eth [--boards FILE] [--board BOARD]... [OPTIONS]\n"
"       skin-eth --setup [--boards FILE] [--board BOARD]...\n"
"       skin-eth --replay CAPTURE [--boards FILE] [--board BOARD]... [OPTIONS]\n"
"\n"
"Live (the default): read the ETH boards' UDP datagrams off the wire with a\n"
"packet socket (CAP_NET_RAW), beside the process that owns their port\n"
"(yarprobotinterface), check each (docs/ETH.md), and write the MTB CAN\n"
"frames of the sound ones onto one CAN interface per board CAN port, in\n"
"the order the boards carried them.  Until SIGTERM or SIGINT; SIGUSR1\n"
"prints the counters on stderr, as the exit does.\n"
"--setup: create the boards' missing vcan interfaces and set every one up\n"
"(CAP_NET_ADMIN), then exit.\n"
"--replay: read a capture file (pcap or pcapng; Ethernet, Linux cooked or\n"
"raw IP) instead, into candump -L lines with the capture's times.\n"
"\n"
"Options:\n"
"  -B, --boards FILE     the boards, one a line as --board's BOARD, '#'\n"
"                        comments (skinctl import writes it)\n"
"  -b, --board BOARD     a board: [NAME=]IPV4[:PORT[,PORT]]; its interfaces\n"
"                        are NAMEcanPORT, NAME by default eb and the\n"
"                        address's last number (10.0.1.24: eb24can1,\n"
"                        eb24can2); PORT: the CAN port of patch 0, then 1\n"
"                        (default 1,2; a board with skinCanAddrsPatch2\n"
"                        alone: :2); repeatable\n"
"  -p, --udp-port N      the boards' UDP port (12345)\n"
"  -i, --interface IF    live: read only IF's packets (default: every\n"
"                        interface's)\n"
"  -o, --log FILE        candump -L lines of the frames ('-': stdout);\n"
"                        replay's default: stdout; live's: none\n"
"  -n, --no-log          replay: no log, only the counters\n"
"      --no-can          live: no CAN interfaces (with --log)\n"
"  -w, --wait-interfaces live: a missing interface is no error; its frames\n"
"                        are dropped (counted) until it exists\n"
"  -C, --counters FILE   live: the counters, rewritten whole every second\n"
"                        (docs/ETH.md \"The counters file\")\n"
"      --ring-ms MS      live: read through a receive ring whose blocks the\n"
"                        kernel hands over when full or MS ms after their\n"
"                        first packet: fewer wake-ups, up to MS ms later\n"
"                        (default: each packet as it comes)\n"
"  -s, --setup           create the missing vcan interfaces, set them up\n"
"  -r, --replay CAPTURE  the capture to read ('-': stdin)\n"
"  -h, --help            this text, then exit\n"
"      --version         \"skin-eth VERSION\", then exit\n"
"\n"
"Exit status: 0 a replay's capture was read to its end, a live gateway\n"
"stopped by a signal, every interface set up; 1 a capture or the log that\n"
"could not be read or written, a missing interface, no packet socket,\n"
"an interface --setup could not create; 2 usage.\n";

static int parse_port(const char *s, uint16_t *port)
{
	unsigned long u;
	char *end;

	errno = 0;
	u = strtoul(s, &end, 10);
	if (end == s || *end || errno || !u || u > 65535)
		return -1;
	*port = (uint16_t)u;
	return 0;
}

int main(int argc, char **argv)
{
	enum { OPT_VERSION = 256, OPT_NO_CAN, OPT_RING_MS };
	static const struct option longopts[] = {
		{ "boards", required_argument, NULL, 'B' },
		{ "board", required_argument, NULL, 'b' },
		{ "udp-port", required_argument, NULL, 'p' },
		{ "interface", required_argument, NULL, 'i' },
		{ "log", required_argument, NULL, 'o' },
		{ "no-log", no_argument, NULL, 'n' },
		{ "no-can", no_argument, NULL, OPT_NO_CAN },
		{ "wait-interfaces", no_argument, NULL, 'w' },
		{ "counters", required_argument, NULL, 'C' },
		{ "setup", no_argument, NULL, 's' },
		{ "ring-ms", required_argument, NULL, OPT_RING_MS },
		{ "replay", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct gateway g = { .udp_port = SKIN_ETH_UDP_PORT };
	struct live_opts lo = { .status_period_s = 5 };
	const char *replay = NULL, *log = NULL;
	struct skin_error err;
	bool no_log = false, no_can = false, wait = false, setup = false;
	int c, status = 2;

	g.rx = skin_eth_rx_new();
	if (!g.rx) {
		fprintf(stderr, "skin-eth: out of memory\n");
		return 1;
	}
	while ((c = getopt_long(argc, argv, "B:b:p:i:o:nwC:sr:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'B':
			if (gateway_read_boards(g.rx, optarg, &err)) {
				fprintf(stderr, "skin-eth: %s\n", err.text);
				status = 1;
				goto out;
			}
			break;
		case 'b':
			if (skin_eth_rx_add_board(g.rx, optarg, &err)) {
				fprintf(stderr, "skin-eth: --board: %s\n", err.text);
				goto out;
			}
			break;
		case 'p':
			if (parse_port(optarg, &g.udp_port)) {
				fprintf(stderr, "skin-eth: --udp-port: 1..65535, not '%s'\n", optarg);
				goto out;
			}
			break;
		case 'i':
			lo.interface = optarg;
			break;
		case 'o':
			log = optarg;
			break;
		case 'n':
			no_log = true;
			break;
		case OPT_NO_CAN:
			no_can = true;
			break;
		case 'w':
			wait = true;
			break;
		case 'C':
			lo.counters = optarg;
			break;
		case OPT_RING_MS: {
			uint16_t ms;

			if (parse_port(optarg, &ms) || ms > 1000) {
				fprintf(stderr, "skin-eth: --ring-ms: 1..1000, not '%s'\n", optarg);
				goto out;
			}
			lo.ring_ms = ms;
			break;
		}
		case 's':
			setup = true;
			break;
		case 'r':
			replay = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			status = 0;
			goto out;
		case OPT_VERSION:
			puts("skin-eth " SKIN_VERSION);
			status = 0;
			goto out;
		default:
			fputs(usage, stderr);
			goto out;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "skin-eth: unexpected argument '%s'\n", argv[optind]);
		goto out;
	}
	if (setup + !!replay > 1 ||
	    (replay && (no_can || wait || lo.interface || lo.counters || lo.ring_ms)) ||
	    (!replay && no_log) || (setup && (log || no_can))) {
		fprintf(stderr, "skin-eth: options of another mode (live, --setup, --replay): see --help\n");
		goto out;
	}
	if (!skin_eth_rx_n_boards(g.rx)) {
		fprintf(stderr, "skin-eth: no --board or --boards: every datagram would be foreign\n");
		goto out;
	}
	if (gateway_output_init(&g)) {
		fprintf(stderr, "skin-eth: out of memory\n");
		status = 1;
		goto out;
	}
	if (setup) {
		status = gateway_setup(&g);
		goto out;
	}
	if (replay && !log)
		log = "-";
	if (log && !no_log) {
		/* live: a restarted gateway's lines follow its predecessor's */
		g.log = strcmp(log, "-") ? fopen(log, replay ? "we" : "ae") : stdout;
		if (!g.log) {
			fprintf(stderr, "skin-eth: %s: %s\n", log, strerror(errno));
			status = 1;
			goto out;
		}
	}
	if (replay) {
		status = gateway_replay(&g, replay) ? 1 : 0;
	} else {
		g.can = !no_can;
		if (g.can && gateway_output_open(&g, wait)) {
			status = 1;
			goto close_log;
		}
		status = gateway_live(&g, &lo);
	}
	gateway_print_counters(&g, stderr);
close_log:
	if (g.log && g.log != stdout && fclose(g.log)) {
		fprintf(stderr, "skin-eth: %s: %s\n", log, strerror(errno));
		status = 1;
	}
	if (g.log_failed)
		status = 1;
out:
	gateway_output_close(&g);
	skin_eth_rx_free(g.rx);
	return status;
}
