// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * ethrx.c - the configured ETH boards and what each sent (skin/ethrx.h)
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include <skin/ethrx.h>

struct skin_eth_rx {
	struct skin_eth_board *boards;
	unsigned int n_boards;
	struct skin_eth_counters foreign;
};

struct skin_eth_rx *skin_eth_rx_new(void)
{
	return calloc(1, sizeof(struct skin_eth_rx));
}

void skin_eth_rx_free(struct skin_eth_rx *rx)
{
	if (!rx)
		return;
	free(rx->boards);
	free(rx);
}

unsigned int skin_eth_rx_n_boards(const struct skin_eth_rx *rx)
{
	return rx->n_boards;
}

const struct skin_eth_board *skin_eth_rx_board(const struct skin_eth_rx *rx,
					       unsigned int i)
{
	return i < rx->n_boards ? &rx->boards[i] : NULL;
}

const struct skin_eth_counters *
skin_eth_rx_foreign(const struct skin_eth_rx *rx)
{
	return &rx->foreign;
}

/* A name the interface names can start with: letters, digits, '_', '-' */
static bool name_ok(const char *s, size_t n)
{
	size_t i;

	if (!n || n > SKIN_ETH_NAME_MAX)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' &&
		    s[i] != '-')
			return false;
	return true;
}

int skin_eth_rx_add_board(struct skin_eth_rx *rx, const char *spec,
			  struct skin_error *err)
{
	struct skin_eth_board b = { 0 }, *grown;
	const char *eq = strchr(spec, '='), *addr = eq ? eq + 1 : spec;
	const char *colon = strchr(addr, ':');
	char text[INET_ADDRSTRLEN], name[SKIN_ETH_NAME_MAX + 1];
	size_t alen = colon ? (size_t)(colon - addr) : strlen(addr);
	unsigned int i;

	if (eq && !name_ok(spec, (size_t)(eq - spec))) {
		skin_error_set(err, spec, 0, 0,
			       "a board's name is 1 to %d letters, digits, '_' or '-'",
			       SKIN_ETH_NAME_MAX);
		return -1;
	}
	if (alen < sizeof(text)) {
		memcpy(text, addr, alen);
		text[alen] = '\0';
	}
	if (alen >= sizeof(text) || inet_pton(AF_INET, text, &b.addr) != 1) {
		skin_error_set(err, spec, 0, 0,
			       "expected [NAME=]IPV4[:PORT[,PORT]]");
		return -1;
	}
	if (colon) {
		const char *p = colon + 1;

		while (b.n_patches < SKIN_ETH_CAN_PORTS &&
		       (*p == '1' || *p == '2')) {
			b.port[b.n_patches++] = (unsigned int)(*p++ - '0');
			if (*p != ',')
				break;
			p++;
		}
		if (*p || !b.n_patches ||
		    (b.n_patches == 2 && b.port[0] == b.port[1])) {
			skin_error_set(err, spec, 0, 0,
				       "the CAN ports of patch 0 and 1: 1, 2, \"1,2\" or \"2,1\"");
			return -1;
		}
	} else {
		b.n_patches = SKIN_ETH_CAN_PORTS;
		b.port[0] = 1;
		b.port[1] = 2;
	}
	if (eq)
		snprintf(name, sizeof(name), "%.*s", (int)(eq - spec), spec);
	else
		snprintf(name, sizeof(name), "eb%u",
			 (unsigned int)(ntohl(b.addr.s_addr) & 0xff));
	memcpy(b.name, name, sizeof(b.name));
	for (i = 0; i < b.n_patches; i++)
		snprintf(b.ifname[i], sizeof(b.ifname[i]), "%scan%u", name,
			 b.port[i]);
	for (i = 0; i < rx->n_boards; i++) {
		if (rx->boards[i].addr.s_addr == b.addr.s_addr ||
		    !strcmp(rx->boards[i].name, b.name)) {
			inet_ntop(AF_INET, &rx->boards[i].addr, text,
				  sizeof(text));
			skin_error_set(err, spec, 0, 0,
				       "board %s (%s) is already configured%s",
				       rx->boards[i].name, text,
				       eq ? "" : " (name the boards: NAME=ADDR)");
			return -1;
		}
	}
	grown = realloc(rx->boards, (rx->n_boards + 1) * sizeof(*grown));
	if (!grown) {
		skin_error_set(err, spec, 0, 0, "out of memory");
		return -1;
	}
	rx->boards = grown;
	rx->boards[rx->n_boards++] = b;
	return 0;
}

static struct skin_eth_board *find(struct skin_eth_rx *rx, struct in_addr a)
{
	unsigned int i;

	for (i = 0; i < rx->n_boards; i++)
		if (rx->boards[i].addr.s_addr == a.s_addr)
			return &rx->boards[i];
	return NULL;
}

/* Whether the datagram's framing (markers and sizes) was sound, so that
 * its sequence number is the board's. */
static bool framed(enum skin_eth_verdict v)
{
	return v == SKIN_ETH_OK || v >= SKIN_ETH_BAD_ROP_SIZE;
}

/* The sequence number of a datagram framed soundly: counted, and the
 * verdict a repeated one gets. */
static enum skin_eth_verdict follow_seq(struct skin_eth_board *b, uint64_t seq,
					enum skin_eth_verdict v)
{
	if (!b->have_seq) {
		b->have_seq = true;
	} else if (seq == b->last_seq) {
		return v == SKIN_ETH_OK ? SKIN_ETH_DUPLICATE : v;
	} else if (seq > b->last_seq) {
		b->counters.lost += seq - b->last_seq - 1;
	} else {
		b->counters.seq_resets++;
	}
	b->last_seq = seq;
	return v;
}

struct emit_ctx {
	const struct skin_eth_board *b;
	skin_eth_rx_fn fn;
	void *ctx;
};

static void emit_one(void *ctx, const struct skin_eth_can *f)
{
	struct emit_ctx *e = ctx;

	e->fn(e->ctx, e->b, f->patch, f);
}

enum skin_eth_verdict skin_eth_rx_datagram(struct skin_eth_rx *rx,
					   struct in_addr src,
					   const void *buf, size_t len,
					   skin_eth_rx_fn fn, void *ctx)
{
	struct skin_eth_board *b = find(rx, src);
	struct skin_ropframe info;
	enum skin_eth_verdict v;
	unsigned int i;

	if (!b) {
		rx->foreign.datagrams++;
		rx->foreign.verdict[SKIN_ETH_FOREIGN]++;
		return SKIN_ETH_FOREIGN;
	}
	b->counters.datagrams++;
	v = skin_ropframe_parse(buf, len, &info, NULL, NULL);
	if (v == SKIN_ETH_OK) {
		/* every skin ROP's index must be one of the board's patches */
		for (i = 0; i < 4; i++) {
			uint64_t mine = i ? 0 : (1ull << b->n_patches) - 1;

			if (info.patches[i] & ~mine)
				v = SKIN_ETH_BAD_PATCH;
		}
	}
	if (framed(v))
		v = follow_seq(b, info.seq, v);
	b->counters.verdict[v]++;
	if (v != SKIN_ETH_OK)
		return v;
	b->counters.frames += info.n_frames;
	b->counters.rops_skin += info.n_skin;
	b->counters.rops_other += info.n_other;
	b->counters.rops_unknown += info.n_unknown;
	if (fn) {
		struct emit_ctx e = { .b = b, .fn = fn, .ctx = ctx };

		skin_ropframe_emit(buf, len, emit_one, &e);
	}
	return v;
}

int skin_eth_counters_format(char *buf, size_t len,
			     const struct skin_eth_counters *c)
{
	size_t n;
	int r;
	unsigned int v;

	r = snprintf(buf, len,
		     "datagrams %llu published %llu frames %llu lost %llu resets %llu rops %llu/%llu/%llu",
		     (unsigned long long)c->datagrams,
		     (unsigned long long)c->verdict[SKIN_ETH_OK],
		     (unsigned long long)c->frames,
		     (unsigned long long)c->lost,
		     (unsigned long long)c->seq_resets,
		     (unsigned long long)c->rops_skin,
		     (unsigned long long)c->rops_other,
		     (unsigned long long)c->rops_unknown);
	if (r < 0)
		return r;
	n = (size_t)r;
	for (v = SKIN_ETH_OK + 1; v < SKIN_ETH_VERDICT_NR; v++) {
		if (!c->verdict[v])
			continue;
		r = snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0,
			     " %s %llu", skin_eth_verdict_name(v),
			     (unsigned long long)c->verdict[v]);
		if (r < 0)
			return r;
		n += (size_t)r;
	}
	return (int)n;
}

void skin_eth_rx_print(const struct skin_eth_rx *rx, FILE *f)
{
	char line[1024], addr[INET_ADDRSTRLEN];
	unsigned int i;

	for (i = 0; i < rx->n_boards; i++) {
		const struct skin_eth_board *b = &rx->boards[i];

		inet_ntop(AF_INET, &b->addr, addr, sizeof(addr));
		skin_eth_counters_format(line, sizeof(line), &b->counters);
		fprintf(f, "%s %s: %s\n", b->name, addr, line);
	}
	fprintf(f, "foreign: datagrams %llu\n",
		(unsigned long long)rx->foreign.datagrams);
}
