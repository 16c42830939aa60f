/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * skin/capture.h - UDP datagrams out of link-layer packets and capture files
 *
 * skin_udp_decode() takes one captured packet (Ethernet with or without
 * one VLAN tag, Linux cooked SLL or SLL2, or raw IPv4) to its IPv4 UDP
 * datagram: addresses, ports, payload.  A gateway reads the wire and a
 * capture file through it alike.  IP fragments are rejected, not
 * reassembled: the boards' ropframes fit one Ethernet frame, so a
 * fragment is not theirs (docs/ETH.md).  Checksums are not verified: the
 * frames were checked by the Ethernet FCS, and a capture of a host's own
 * sends holds checksums the NIC had still to fill in.
 *
 * The capture files are tcpdump's pcap (microsecond or nanosecond, either
 * byte order) and pcapng (Wireshark's and dumpcap's; section, interface
 * and enhanced or simple packet blocks; others are skipped), read
 * natively: no libpcap.  The writer writes pcap with Ethernet frames.
 *
 *	struct skin_capture *c = skin_capture_open("robot.pcap", &err);
 *	struct skin_capture_packet p;
 *	struct skin_udp u;
 *	while ((n = skin_capture_next(c, &p, &err)) > 0)
 *		if (skin_udp_decode(p.linktype, p.data, p.caplen, &u) ==
 *		    SKIN_CAP_UDP)
 *			use(p.ts_ns, &u);
 *	if (n < 0) die(err.text);	(a damaged file: where and what)
 *	skin_capture_close(c);
 */
#ifndef SKIN_CAPTURE_H
#define SKIN_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <netinet/in.h>

#include <skin/model.h>		/* struct skin_error */

#ifdef __cplusplus
extern "C" {
#endif

/* Link types (tcpdump.org's LINKTYPE_ values) */
#define SKIN_LINKTYPE_ETHERNET	1
#define SKIN_LINKTYPE_RAW	101	/* raw IP */
#define SKIN_LINKTYPE_LINUX_SLL	113
#define SKIN_LINKTYPE_LINUX_SLL2 276

/* The largest packet a capture may hold (tcpdump's own bound) */
#define SKIN_CAPTURE_SNAPLEN_MAX 262144

/* What a packet was: only SKIN_CAP_UDP has a datagram; the NOT_ ones
 * are other traffic, skipped; the others rejections. */
enum skin_capture_verdict {
	SKIN_CAP_UDP,
	SKIN_CAP_NOT_IPV4,	/* ARP, IPv6, ... */
	SKIN_CAP_NOT_UDP,	/* TCP, ICMP, ... */
	SKIN_CAP_FRAGMENT,	/* an IP fragment (not reassembled) */
	SKIN_CAP_TRUNCATED,	/* the capture stops inside the datagram */
	SKIN_CAP_BAD_IP,	/* IPv4 header or total length lies */
	SKIN_CAP_BAD_UDP,	/* UDP length lies */
	SKIN_CAP_BAD_LINK,	/* a link type this reader does not know */
	SKIN_CAP_VERDICT_NR
};

/* "udp", "not_ipv4", ...; NULL outside */
const char *skin_capture_verdict_name(unsigned int verdict);

/**
 * struct skin_udp - a datagram inside a packet
 * @src: source address; @sport its port
 * @dst: destination address; @dport its port
 * @payload: the UDP payload, inside the packet given
 * @len: its length, as the UDP header says (all of it was captured)
 */
struct skin_udp {
	struct in_addr src;
	struct in_addr dst;
	uint16_t sport;
	uint16_t dport;
	const uint8_t *payload;
	size_t len;
};

enum skin_capture_verdict skin_udp_decode(uint32_t linktype,
					  const uint8_t *pkt, size_t caplen,
					  struct skin_udp *u);

/**
 * struct skin_capture_packet - one packet of a capture file
 * @ts_ns: its time, nanoseconds since the epoch
 * @linktype: its link type
 * @data: its bytes, valid until the next call
 * @caplen: bytes captured
 * @origlen: bytes on the wire
 */
struct skin_capture_packet {
	uint64_t ts_ns;
	uint32_t linktype;
	const uint8_t *data;
	size_t caplen;
	size_t origlen;
};

struct skin_capture;

/* Open a capture for reading ("-": stdin); NULL with *err. */
struct skin_capture *skin_capture_open(const char *path,
				       struct skin_error *err);
/* Read from an open stream (stays the caller's); name for messages. */
struct skin_capture *skin_capture_open_stream(FILE *f, const char *name,
					      struct skin_error *err);
/* 1 and *p filled; 0 at the end; -1 with *err ("FILE: packet N: WHAT")
 * when the file is damaged or unreadable (further calls return 0). */
int skin_capture_next(struct skin_capture *c, struct skin_capture_packet *p,
		      struct skin_error *err);
/* Packets read so far */
unsigned long skin_capture_count(const struct skin_capture *c);
void skin_capture_close(struct skin_capture *c);

/* The pcap file header (microseconds, Ethernet, this host's byte order):
 * 0, or -1 with errno. */
int skin_capture_write_header(FILE *f);
/* One IPv4 UDP datagram in an Ethernet frame (checksums filled; MACs
 * made from the addresses): 0, or -1 with errno (EMSGSIZE: more than an
 * unfragmented datagram holds). */
int skin_capture_write_udp(FILE *f, uint64_t ts_ns, struct in_addr src,
			   uint16_t sport, struct in_addr dst,
			   uint16_t dport, const void *payload, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* SKIN_CAPTURE_H */
