// SPDX-License-Identifier: GPL-2.0
/*
 * gateway.c - the sequence every packet takes, in either mode, and the
 * counters (gateway.h)
 *
 * A packet is decoded (link layer, IPv4, UDP: skin/capture.h), kept only
 * on the boards' port and when it is not the head PC's own send to a
 * board (yarprobotinterface's commands), then handed with its source to
 * the receiver (skin/ethrx.h), which checks and counts it and hands over
 * the frames of a sound datagram from a configured board, in order.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include <skin/canlog.h>

#include "gateway.h"

struct packet_ctx {
	struct gateway *g;
	uint64_t ts_ns;
};

static void on_frame(void *ctx, const struct skin_eth_board *b,
		     unsigned int patch, const struct skin_eth_can *f)
{
	struct packet_ctx *p = ctx;
	struct gateway *g = p->g;
	unsigned int port = g->first[b - skin_eth_rx_board(g->rx, 0)] + patch;
	struct can_frame cf = { .can_id = f->id, .len = f->len };

	memcpy(cf.data, f->data, f->len);
	if (g->log && !g->log_failed) {
		struct skin_canlog_record rec;

		/* the receiver passes only patches the board has */
		skin_canlog_record_classic(&rec, p->ts_ns, b->ifname[patch], &cf);
		if (skin_canlog_write(g->log, &rec)) {
			fprintf(stderr, "skin-eth: writing the log: %s (no more lines)\n",
				strerror(errno));
			g->log_failed = true;
		}
	}
	if (g->can)
		gateway_output_frame(g, port, &cf);
}

static bool is_board(const struct skin_eth_rx *rx, struct in_addr a)
{
	unsigned int i;

	for (i = 0; i < skin_eth_rx_n_boards(rx); i++)
		if (skin_eth_rx_board(rx, i)->addr.s_addr == a.s_addr)
			return true;
	return false;
}

void gateway_packet(struct gateway *g, uint32_t linktype,
		    const uint8_t *pkt, size_t caplen, uint64_t ts_ns)
{
	struct packet_ctx p = { .g = g, .ts_ns = ts_ns };
	enum skin_capture_verdict v;
	struct skin_udp u;

	g->packets++;
	v = skin_udp_decode(linktype, pkt, caplen, &u);
	g->capture[v]++;
	if (v != SKIN_CAP_UDP)
		return;
	if (u.sport != g->udp_port && u.dport != g->udp_port) {
		g->other_port++;
		return;
	}
	/* the head PC's commands to a board (yarprobotinterface's) */
	if (is_board(g->rx, u.dst) && !is_board(g->rx, u.src)) {
		g->to_boards++;
		return;
	}
	skin_eth_rx_datagram(g->rx, u.src, u.payload, u.len, on_frame, &p);
}

/* ---- the boards file ----------------------------------------------- */

int gateway_read_boards(struct skin_eth_rx *rx, const char *path,
			struct skin_error *err)
{
	char line[512];
	unsigned int n = 0;
	FILE *f;

	f = skin_file_fopen(path, SKIN_FILE_STREAM, err);
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *s = line, *e;
		struct skin_error e2;

		n++;
		if (!strchr(line, '\n') && !feof(f)) {
			skin_error_set(err, path, n, 0, "line longer than %zu bytes",
				       sizeof(line) - 2);
			goto bad;
		}
		e = strchr(s, '#');
		if (e)
			*e = '\0';
		while (isspace((unsigned char)*s))
			s++;
		e = s + strlen(s);
		while (e > s && isspace((unsigned char)e[-1]))
			*--e = '\0';
		if (!*s)
			continue;
		if (skin_eth_rx_add_board(rx, s, &e2)) {
			skin_error_set(err, path, n, 0, "%s", e2.text);
			goto bad;
		}
	}
	if (ferror(f)) {
		skin_error_set(err, path, 0, 0, "%s", strerror(errno));
		goto bad;
	}
	fclose(f);
	if (!skin_eth_rx_n_boards(rx)) {
		skin_error_set(err, path, 0, 0, "no board in it");
		return -1;
	}
	return 0;
bad:
	fclose(f);
	return -1;
}

/* ---- counters ------------------------------------------------------ */

static void print_packets(const struct gateway *g, FILE *f, const char *head)
{
	unsigned int v;

	fprintf(f, "%spackets %llu udp %llu other_port %llu to_boards %llu",
		head, g->packets, g->capture[SKIN_CAP_UDP], g->other_port,
		g->to_boards);
	for (v = SKIN_CAP_UDP + 1; v < SKIN_CAP_VERDICT_NR; v++)
		if (g->capture[v])
			fprintf(f, " %s %llu", skin_capture_verdict_name(v),
				g->capture[v]);
}

void gateway_print_counters(const struct gateway *g, FILE *f)
{
	unsigned int i;

	print_packets(g, f, "capture: ");
	if (g->socket_drops)
		fprintf(f, " socket_drops %llu", g->socket_drops);
	if (g->foreign_filtered)
		fprintf(f, " foreign_filtered %llu", g->foreign_filtered);
	if (g->outgoing)
		fprintf(f, " outgoing %llu", g->outgoing);
	if (g->recv_errors)
		fprintf(f, " recv_errors %llu", g->recv_errors);
	fputc('\n', f);
	skin_eth_rx_print(g->rx, f);
	for (i = 0; g->can && i < g->n_ports; i++)
		fprintf(f, "%s (%s): frames %llu dropped %llu rebinds %llu%s\n",
			g->ports[i].ifname, g->ports[i].board, g->ports[i].frames,
			g->ports[i].dropped, g->ports[i].rebinds,
			g->ports[i].fd < 0 ? " (not bound)" : "");
}

/* key=value: the counters line's "key N" pairs, the names as they are */
static void print_kv(FILE *f, const struct skin_eth_counters *c)
{
	unsigned int v;

	fprintf(f, " datagrams=%llu published=%llu frames=%llu lost=%llu resets=%llu"
		" rops_skin=%llu rops_other=%llu rops_unknown=%llu",
		(unsigned long long)c->datagrams,
		(unsigned long long)c->verdict[SKIN_ETH_OK],
		(unsigned long long)c->frames, (unsigned long long)c->lost,
		(unsigned long long)c->seq_resets,
		(unsigned long long)c->rops_skin,
		(unsigned long long)c->rops_other,
		(unsigned long long)c->rops_unknown);
	for (v = SKIN_ETH_OK + 1; v < SKIN_ETH_VERDICT_NR; v++)
		fprintf(f, " %s=%llu", skin_eth_verdict_name(v),
			(unsigned long long)c->verdict[v]);
}

void gateway_write_counters(const struct gateway *g, FILE *f)
{
	char addr[INET_ADDRSTRLEN];
	unsigned int i, v;

	fprintf(f, "capture - packets=%llu udp=%llu other_port=%llu to_boards=%llu socket_drops=%llu outgoing=%llu recv_errors=%llu",
		g->packets, g->capture[SKIN_CAP_UDP], g->other_port,
		g->to_boards, g->socket_drops, g->outgoing, g->recv_errors);
	for (v = SKIN_CAP_UDP + 1; v < SKIN_CAP_VERDICT_NR; v++)
		fprintf(f, " %s=%llu", skin_capture_verdict_name(v), g->capture[v]);
	fprintf(f, " foreign_filtered=%llu\n", g->foreign_filtered);
	for (i = 0; i < skin_eth_rx_n_boards(g->rx); i++) {
		const struct skin_eth_board *b = skin_eth_rx_board(g->rx, i);

		inet_ntop(AF_INET, &b->addr, addr, sizeof(addr));
		fprintf(f, "board %s addr=%s", b->name, addr);
		print_kv(f, &b->counters);
		fputc('\n', f);
	}
	fprintf(f, "foreign -");
	print_kv(f, skin_eth_rx_foreign(g->rx));
	fputc('\n', f);
	for (i = 0; i < g->n_ports; i++)
		fprintf(f, "interface %s board=%s bound=%d frames=%llu dropped=%llu rebinds=%llu\n",
			g->ports[i].ifname, g->ports[i].board, g->ports[i].fd >= 0,
			g->ports[i].frames, g->ports[i].dropped,
			g->ports[i].rebinds);
}
