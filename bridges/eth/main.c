// SPDX-License-Identifier: GPL-2.0
/*
 * skin-eth - the ETH boards' skin onto CAN (docs/ETH.md)
 *
 * An iCub's ETH boards carry their MTB boards' CAN frames inside UDP
 * datagrams to the head PC, where yarprobotinterface owns the port.  The
 * gateway reads those datagrams without taking them away and hands every
 * carried frame on as CAN, one interface per board CAN port.  This
 * version replays a capture file into a candump log; the live mode (a
 * packet socket onto vcan interfaces) is still to come.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "gateway.h"

static const char usage[] =
"Usage: skin-eth --replay CAPTURE --board BOARD... [OPTIONS]\n"
"\n"
"Read the ETH boards' UDP datagrams from a capture file (pcap or pcapng;\n"
"Ethernet, Linux cooked or raw IP), check each (docs/ETH.md), and write\n"
"the MTB CAN frames of the sound ones as candump -L lines, on one\n"
"interface per board CAN port, with the capture's times.  The counters\n"
"(per board: datagrams, frames, lost, each rejection) go to stderr.\n"
"\n"
"Options:\n"
"  -r, --replay CAPTURE  the capture to read ('-': stdin)\n"
"  -b, --board BOARD     a board: [NAME=]IPV4[:PORT[,PORT]]; its interfaces\n"
"                        are NAMEcanPORT, NAME by default eb and the\n"
"                        address's last number (10.0.1.24: eb24can1,\n"
"                        eb24can2); PORT: the CAN port of patch 0, then 1\n"
"                        (default 1,2; a board with skinCanAddrsPatch2\n"
"                        alone: :2); repeatable\n"
"  -p, --udp-port N      the boards' UDP port (12345)\n"
"  -o, --log FILE        the candump log ('-', default: stdout)\n"
"  -n, --no-log          no log: only the counters\n"
"  -h, --help            this text, then exit\n"
"      --version         \"skin-eth VERSION\", then exit\n"
"\n"
"Exit status: 0 the capture was read to its end (rejected datagrams are\n"
"counted, not errors); 1 it could not be read or the log written;\n"
"2 usage.\n";

int main(int argc, char **argv)
{
	enum { OPT_VERSION = 256 };
	static const struct option longopts[] = {
		{ "replay", required_argument, NULL, 'r' },
		{ "board", required_argument, NULL, 'b' },
		{ "udp-port", required_argument, NULL, 'p' },
		{ "log", required_argument, NULL, 'o' },
		{ "no-log", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct gateway g = { .udp_port = SKIN_ETH_UDP_PORT, .log = stdout };
	const char *replay = NULL, *log = "-";
	struct skin_error err;
	bool no_log = false;
	unsigned long u;
	char *end;
	int c, status = 2;

	g.rx = skin_eth_rx_new();
	if (!g.rx) {
		fprintf(stderr, "skin-eth: out of memory\n");
		return 1;
	}
	while ((c = getopt_long(argc, argv, "r:b:p:o:nh", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			replay = optarg;
			break;
		case 'b':
			if (skin_eth_rx_add_board(g.rx, optarg, &err)) {
				fprintf(stderr, "skin-eth: --board: %s\n", err.text);
				goto out;
			}
			break;
		case 'p':
			errno = 0;
			u = strtoul(optarg, &end, 10);
			if (end == optarg || *end || errno || !u || u > 65535) {
				fprintf(stderr, "skin-eth: --udp-port: 1..65535, not '%s'\n", optarg);
				goto out;
			}
			g.udp_port = (uint16_t)u;
			break;
		case 'o':
			log = optarg;
			break;
		case 'n':
			no_log = true;
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
	if (optind < argc || !replay) {
		fprintf(stderr, optind < argc ? "skin-eth: unexpected argument '%s'\n" :
			"skin-eth: --replay CAPTURE is the only mode yet\n",
			optind < argc ? argv[optind] : "");
		goto out;
	}
	if (!skin_eth_rx_n_boards(g.rx)) {
		fprintf(stderr, "skin-eth: no --board: every datagram would be foreign\n");
		goto out;
	}
	if (no_log) {
		g.log = NULL;
	} else if (strcmp(log, "-")) {
		g.log = fopen(log, "w");
		if (!g.log) {
			fprintf(stderr, "skin-eth: %s: %s\n", log, strerror(errno));
			status = 1;
			goto out;
		}
	}
	status = gateway_replay(&g, replay) ? 1 : 0;
	if (g.log && g.log != stdout && fclose(g.log)) {
		fprintf(stderr, "skin-eth: %s: %s\n", log, strerror(errno));
		status = 1;
	}
	gateway_print_counters(&g, stderr);
out:
	skin_eth_rx_free(g.rx);
	return status;
}
