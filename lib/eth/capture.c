// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * capture.c - UDP datagrams out of packets and capture files
 * (skin/capture.h)
 *
 * The file formats are tcpdump.org's: pcap (a 24-byte file header, then
 * 16-byte record headers) and pcapng (blocks of type, length, body,
 * length).  Every length a file states is checked against the bound
 * before anything is allocated or read, so a damaged file is an error
 * naming the packet, never a huge allocation or a read past the end.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <skin/capture.h>

static const char *const cap_verdict_names[SKIN_CAP_VERDICT_NR] = {
	[SKIN_CAP_UDP]		= "udp",
	[SKIN_CAP_NOT_IPV4]	= "not_ipv4",
	[SKIN_CAP_NOT_UDP]	= "not_udp",
	[SKIN_CAP_FRAGMENT]	= "ip_fragment",
	[SKIN_CAP_TRUNCATED]	= "truncated",
	[SKIN_CAP_BAD_IP]	= "bad_ip",
	[SKIN_CAP_BAD_UDP]	= "bad_udp",
	[SKIN_CAP_BAD_LINK]	= "bad_link",
};

const char *skin_capture_verdict_name(unsigned int verdict)
{
	return verdict < SKIN_CAP_VERDICT_NR ? cap_verdict_names[verdict] : NULL;
}

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

#define ETHERTYPE_IPV4	0x0800
#define ETHERTYPE_VLAN	0x8100
#define IPPROTO_UDP_	17

enum skin_capture_verdict skin_udp_decode(uint32_t linktype,
					  const uint8_t *pkt, size_t caplen,
					  struct skin_udp *u)
{
	size_t off, ihl, total, ulen;
	uint16_t proto;

	switch (linktype) {
	case SKIN_LINKTYPE_ETHERNET:
		if (caplen < 14)
			return SKIN_CAP_TRUNCATED;
		proto = be16(pkt + 12);
		off = 14;
		if (proto == ETHERTYPE_VLAN) {
			if (caplen < 18)
				return SKIN_CAP_TRUNCATED;
			proto = be16(pkt + 16);
			off = 18;
		}
		break;
	case SKIN_LINKTYPE_LINUX_SLL:	/* ..., u16 protocol at 14 */
		if (caplen < 16)
			return SKIN_CAP_TRUNCATED;
		proto = be16(pkt + 14);
		off = 16;
		break;
	case SKIN_LINKTYPE_LINUX_SLL2:	/* u16 protocol at 0, 20 bytes */
		if (caplen < 20)
			return SKIN_CAP_TRUNCATED;
		proto = be16(pkt);
		off = 20;
		break;
	case SKIN_LINKTYPE_RAW:
		if (caplen < 1)
			return SKIN_CAP_TRUNCATED;
		proto = (pkt[0] >> 4) == 4 ? ETHERTYPE_IPV4 : 0;
		off = 0;
		break;
	default:
		return SKIN_CAP_BAD_LINK;
	}
	if (proto != ETHERTYPE_IPV4)
		return SKIN_CAP_NOT_IPV4;
	if (caplen - off < 20)
		return SKIN_CAP_TRUNCATED;
	pkt += off;
	caplen -= off;
	ihl = (size_t)(pkt[0] & 0xf) * 4;
	total = be16(pkt + 2);
	if ((pkt[0] >> 4) != 4 || ihl < 20 || total < ihl)
		return SKIN_CAP_BAD_IP;
	if (pkt[9] != IPPROTO_UDP_)
		return SKIN_CAP_NOT_UDP;
	/* more fragments, or an offset: part of a datagram */
	if (be16(pkt + 6) & 0x3fff)
		return SKIN_CAP_FRAGMENT;
	if (total - ihl < 8)
		return SKIN_CAP_BAD_IP;
	if (caplen < ihl + 8)
		return SKIN_CAP_TRUNCATED;
	ulen = be16(pkt + ihl + 4);
	if (ulen < 8 || ulen > total - ihl)
		return SKIN_CAP_BAD_UDP;
	if (caplen < ihl + ulen)
		return SKIN_CAP_TRUNCATED;
	memcpy(&u->src, pkt + 12, 4);
	memcpy(&u->dst, pkt + 16, 4);
	u->sport = be16(pkt + ihl);
	u->dport = be16(pkt + ihl + 2);
	u->payload = pkt + ihl + 8;
	u->len = ulen - 8;
	return SKIN_CAP_UDP;
}

/* ---- capture files ------------------------------------------------- */

#define PCAP_MAGIC_US	0xa1b2c3d4u
#define PCAP_MAGIC_NS	0xa1b23c4du
#define PCAPNG_SHB	0x0a0d0d0au
#define PCAPNG_BOM	0x1a2b3c4du
#define PCAPNG_IDB	1u
#define PCAPNG_SPB	3u
#define PCAPNG_EPB	6u
/* a pcapng block: the largest packet and its options */
#define BLOCK_MAX	(SKIN_CAPTURE_SNAPLEN_MAX + 65536)
#define IFACES_MAX	256

struct iface {
	uint32_t linktype;
	uint32_t snaplen;
	uint64_t units;		/* timestamp units per second */
};

struct skin_capture {
	FILE *f;
	bool owns_f;
	bool done;
	bool ng;
	bool shb_started;	/* the first block's type was read already */
	bool swapped;		/* the file's byte order is not ours */
	char *name;
	unsigned long count;
	uint8_t *buf;
	size_t cap;
	/* pcap */
	uint32_t linktype;
	bool ns;
	/* pcapng: the current section's interfaces */
	struct iface ifaces[IFACES_MAX];
	unsigned int n_ifaces;
};

static uint32_t get32(const struct skin_capture *c, const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return c->swapped ? __builtin_bswap32(v) : v;
}

static uint16_t get16(const struct skin_capture *c, const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return c->swapped ? __builtin_bswap16(v) : v;
}

static int fail(struct skin_capture *c, struct skin_error *err,
		const char *what)
{
	c->done = true;
	if (c->count)
		skin_error_set(err, c->name, 0, 0, "after packet %lu: %s",
			       c->count, what);
	else
		skin_error_set(err, c->name, 0, 0, "%s", what);
	return -1;
}

/* Exactly n bytes: 1, or 0 at a clean end (none), or -1 (short, error) */
static int read_exact(struct skin_capture *c, void *p, size_t n)
{
	size_t got = fread(p, 1, n, c->f);

	if (got == n)
		return 1;
	return got == 0 && !ferror(c->f) ? 0 : -1;
}

static int grow(struct skin_capture *c, size_t n)
{
	uint8_t *b;

	if (n <= c->cap)
		return 0;
	b = realloc(c->buf, n);
	if (!b)
		return -1;
	c->buf = b;
	c->cap = n;
	return 0;
}

/* pcapng's if_tsresol: 10^-v, or 2^-v when bit 7 is set */
static uint64_t tsresol_units(uint8_t v)
{
	uint64_t u = 1;
	unsigned int i, e = v & 0x7f;

	if (v & 0x80)
		return e < 64 ? 1ull << e : 0;
	for (i = 0; i < e; i++) {
		if (u > UINT64_MAX / 10)
			return 0;
		u *= 10;
	}
	return u;
}

static uint64_t ts_to_ns(uint64_t ts, uint64_t units)
{
	if (units == 1000000000ull)
		return ts;
	return (uint64_t)((unsigned __int128)ts * 1000000000ull / units);
}

static int open_pcap(struct skin_capture *c, const uint8_t *h,
		     struct skin_error *err)
{
	uint32_t magic;
	uint8_t rest[20];

	memcpy(&magic, h, 4);
	if (magic == PCAP_MAGIC_US || magic == PCAP_MAGIC_NS) {
		c->swapped = false;
	} else if (__builtin_bswap32(magic) == PCAP_MAGIC_US ||
		   __builtin_bswap32(magic) == PCAP_MAGIC_NS) {
		c->swapped = true;
		magic = __builtin_bswap32(magic);
	} else {
		return fail(c, err, "not a pcap or pcapng capture");
	}
	c->ns = magic == PCAP_MAGIC_NS;
	if (read_exact(c, rest, sizeof(rest)) != 1)
		return fail(c, err, "truncated pcap file header");
	if (get16(c, rest) != 2)
		return fail(c, err, "pcap version is not 2.x");
	/* the low 16 bits are the link type; the FCS bits above are not */
	c->linktype = get32(c, rest + 16) & 0xffff;
	return 0;
}

static int next_pcap(struct skin_capture *c, struct skin_capture_packet *p,
		     struct skin_error *err)
{
	uint8_t h[16];
	uint32_t incl, orig, frac;
	int r = read_exact(c, h, sizeof(h));

	if (r == 0) {
		c->done = true;
		return 0;
	}
	if (r < 0)
		return fail(c, err, "truncated record header");
	frac = get32(c, h + 4);
	incl = get32(c, h + 8);
	orig = get32(c, h + 12);
	if (incl > SKIN_CAPTURE_SNAPLEN_MAX)
		return fail(c, err, "a record longer than 262144 bytes");
	if (frac >= (c->ns ? 1000000000u : 1000000u))
		return fail(c, err, "a timestamp's fraction is out of range");
	if (grow(c, incl ? incl : 1))
		return fail(c, err, "out of memory");
	if (incl && read_exact(c, c->buf, incl) != 1)
		return fail(c, err, "truncated packet");
	p->ts_ns = (uint64_t)get32(c, h) * 1000000000ull +
		   (c->ns ? frac : frac * 1000ull);
	p->linktype = c->linktype;
	p->data = c->buf;
	p->caplen = incl;
	p->origlen = orig < incl ? incl : orig;
	c->count++;
	return 1;
}

/*
 * The rest of a pcapng block whose length field says @total: the body
 * (*len bytes, into c->buf, @head bytes of the block before it) and the
 * trailing copy of the length, which must agree.  @min: the least
 * length the block's kind allows.
 */
static int block_body(struct skin_capture *c, uint32_t total, uint32_t head,
		      uint32_t min, size_t *len, struct skin_error *err)
{
	if (total < min || total % 4 || total > BLOCK_MAX)
		return fail(c, err, "a pcapng block's length is out of range");
	*len = total - head;
	if (grow(c, *len + 4))
		return fail(c, err, "out of memory");
	if (read_exact(c, c->buf, *len + 4) != 1)
		return fail(c, err, "truncated pcapng block");
	if (get32(c, c->buf + *len) != total)
		return fail(c, err, "a pcapng block's two lengths differ");
	return 1;
}

/*
 * The next pcapng block: its type and body (c->buf, *len bytes).  The
 * section header's byte order is learnt here.  1, 0 at the end, -1.
 */
static int ng_block(struct skin_capture *c, uint32_t *type, size_t *len,
		    struct skin_error *err)
{
	uint8_t h[8];
	uint32_t shb = PCAPNG_SHB;
	int r;

	if (c->shb_started) {
		/* the opener read the first block's type to tell the format */
		c->shb_started = false;
		memcpy(h, &shb, 4);
		r = read_exact(c, h + 4, 4) == 1 ? 1 : -1;
	} else {
		r = read_exact(c, h, sizeof(h));
	}

	if (r == 0) {
		c->done = true;
		return 0;
	}
	if (r < 0)
		return fail(c, err, "truncated pcapng block header");
	memcpy(type, h, 4);
	if (*type == PCAPNG_SHB) {
		uint8_t bom[4];
		uint32_t b;

		if (read_exact(c, bom, 4) != 1)
			return fail(c, err, "truncated pcapng section header");
		memcpy(&b, bom, 4);
		if (b == PCAPNG_BOM)
			c->swapped = false;
		else if (__builtin_bswap32(b) == PCAPNG_BOM)
			c->swapped = true;
		else
			return fail(c, err, "pcapng section header without its byte-order magic");
		c->n_ifaces = 0;	/* a new section: new interfaces */
		/* its body after the byte-order magic, 12 bytes at least */
		return block_body(c, get32(c, h + 4), 16, 28, len, err);
	}
	*type = get32(c, h);
	return block_body(c, get32(c, h + 4), 12, 12, len, err);
}

/* An interface description block: link type, snap length, if_tsresol */
static int ng_iface(struct skin_capture *c, size_t len, struct skin_error *err)
{
	struct iface *i;
	size_t off = 8;

	if (len < 8)
		return fail(c, err, "truncated pcapng interface block");
	if (c->n_ifaces == IFACES_MAX)
		return fail(c, err, "more than 256 interfaces in a pcapng section");
	i = &c->ifaces[c->n_ifaces++];
	i->linktype = get16(c, c->buf);
	i->snaplen = get32(c, c->buf + 4);
	i->units = 1000000;
	while (len - off >= 4) {
		uint16_t code = get16(c, c->buf + off);
		uint16_t olen = get16(c, c->buf + off + 2);

		off += 4;
		if (code == 0)
			break;
		if (olen > len - off)
			return fail(c, err, "a pcapng option runs past its block");
		if (code == 9 && olen == 1) {
			i->units = tsresol_units(c->buf[off]);
			if (!i->units)
				return fail(c, err, "a pcapng timestamp resolution out of range");
		}
		off += (olen + 3u) & ~3u;
		if (off > len)
			break;
	}
	return 0;
}

static int next_pcapng(struct skin_capture *c, struct skin_capture_packet *p,
		       struct skin_error *err)
{
	for (;;) {
		uint32_t type, id, incl, orig;
		size_t len;
		int r = ng_block(c, &type, &len, err);
		const struct iface *i;

		if (r <= 0)
			return r;
		if (type == PCAPNG_IDB) {
			if (ng_iface(c, len, err))
				return -1;
			continue;
		}
		if (type != PCAPNG_EPB && type != PCAPNG_SPB)
			continue;	/* statistics, names, comments... */
		if (type == PCAPNG_EPB) {
			if (len < 20)
				return fail(c, err, "truncated pcapng packet block");
			id = get32(c, c->buf);
			incl = get32(c, c->buf + 12);
			orig = get32(c, c->buf + 16);
			if (incl > len - 20)
				return fail(c, err, "a pcapng packet runs past its block");
		} else {
			if (len < 4)
				return fail(c, err, "truncated pcapng packet block");
			id = 0;
			orig = get32(c, c->buf);
			incl = orig;
			if (c->n_ifaces && c->ifaces[0].snaplen &&
			    incl > c->ifaces[0].snaplen)
				incl = c->ifaces[0].snaplen;
			if (incl > len - 4)
				return fail(c, err, "a pcapng packet runs past its block");
		}
		if (id >= c->n_ifaces)
			return fail(c, err, "a pcapng packet of an undescribed interface");
		i = &c->ifaces[id];
		if (type == PCAPNG_EPB) {
			uint64_t ts = (uint64_t)get32(c, c->buf + 4) << 32 |
				      get32(c, c->buf + 8);

			p->ts_ns = ts_to_ns(ts, i->units);
			p->data = c->buf + 20;
		} else {
			p->ts_ns = 0;	/* a simple packet block has none */
			p->data = c->buf + 4;
		}
		p->linktype = i->linktype;
		p->caplen = incl;
		p->origlen = orig < incl ? incl : orig;
		c->count++;
		return 1;
	}
}

struct skin_capture *skin_capture_open_stream(FILE *f, const char *name,
					      struct skin_error *err)
{
	struct skin_capture *c = calloc(1, sizeof(*c));
	uint8_t h[4];
	uint32_t magic;

	if (!c || !(c->name = strdup(name))) {
		free(c);
		skin_error_set(err, name, 0, 0, "out of memory");
		return NULL;
	}
	c->f = f;
	if (read_exact(c, h, 4) != 1) {
		fail(c, err, "empty or truncated capture");
		goto bad;
	}
	memcpy(&magic, h, 4);
	if (magic == PCAPNG_SHB) {
		c->ng = true;
		c->shb_started = true;
		return c;
	}
	if (open_pcap(c, h, err))
		goto bad;
	return c;
bad:
	free(c->name);
	free(c);
	return NULL;
}

struct skin_capture *skin_capture_open(const char *path,
				       struct skin_error *err)
{
	struct skin_capture *c;
	FILE *f;

	if (!strcmp(path, "-"))
		return skin_capture_open_stream(stdin, "(stdin)", err);
	f = skin_file_fopen(path, SKIN_FILE_STREAM, err);
	if (!f)
		return NULL;
	c = skin_capture_open_stream(f, path, err);
	if (!c) {
		fclose(f);
		return NULL;
	}
	c->owns_f = true;
	return c;
}

int skin_capture_next(struct skin_capture *c, struct skin_capture_packet *p,
		      struct skin_error *err)
{
	if (c->done)
		return 0;
	return c->ng ? next_pcapng(c, p, err) : next_pcap(c, p, err);
}

unsigned long skin_capture_count(const struct skin_capture *c)
{
	return c->count;
}

void skin_capture_close(struct skin_capture *c)
{
	if (!c)
		return;
	if (c->owns_f)
		fclose(c->f);
	free(c->buf);
	free(c->name);
	free(c);
}

/* ---- writing ------------------------------------------------------- */

int skin_capture_write_header(FILE *f)
{
	uint8_t h[24];
	uint32_t magic = PCAP_MAGIC_US, zero = 0;
	uint32_t snaplen = SKIN_CAPTURE_SNAPLEN_MAX;
	uint32_t link = SKIN_LINKTYPE_ETHERNET;
	uint16_t major = 2, minor = 4;

	/* in this host's byte order, which the magic tells a reader */
	memcpy(h, &magic, 4);
	memcpy(h + 4, &major, 2);
	memcpy(h + 6, &minor, 2);
	memcpy(h + 8, &zero, 4);	/* thiszone */
	memcpy(h + 12, &zero, 4);	/* sigfigs */
	memcpy(h + 16, &snaplen, 4);
	memcpy(h + 20, &link, 4);
	return fwrite(h, sizeof(h), 1, f) == 1 ? 0 : -1;
}

static uint16_t ip_checksum(const uint8_t *p, size_t n)
{
	uint32_t sum = 0;
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += be16(p + i);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

int skin_capture_write_udp(FILE *f, uint64_t ts_ns, struct in_addr src,
			   uint16_t sport, struct in_addr dst,
			   uint16_t dport, const void *payload, size_t len)
{
	uint8_t hdr[14 + 20 + 8] = { 0 };
	uint8_t *ip = hdr + 14, *udp = ip + 20;
	uint32_t rec[4];

	if (len > 65535 - 28) {
		errno = EMSGSIZE;
		return -1;
	}
	/* locally administered MACs holding the IPv4 addresses */
	hdr[0] = 0x02;
	memcpy(hdr + 2, &dst, 4);
	hdr[6] = 0x02;
	memcpy(hdr + 8, &src, 4);
	put_be16(hdr + 12, ETHERTYPE_IPV4);
	ip[0] = 0x45;
	put_be16(ip + 2, (uint16_t)(20 + 8 + len));
	put_be16(ip + 6, 0x4000);	/* don't fragment */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP_;
	memcpy(ip + 12, &src, 4);
	memcpy(ip + 16, &dst, 4);
	put_be16(ip + 10, ip_checksum(ip, 20));
	put_be16(udp, sport);
	put_be16(udp + 2, dport);
	put_be16(udp + 4, (uint16_t)(8 + len));
	/* UDP checksum 0: none, allowed over IPv4 */
	rec[0] = (uint32_t)(ts_ns / 1000000000ull);
	rec[1] = (uint32_t)(ts_ns % 1000000000ull / 1000);
	rec[2] = rec[3] = (uint32_t)(sizeof(hdr) + len);
	if (fwrite(rec, sizeof(rec), 1, f) != 1 ||
	    fwrite(hdr, sizeof(hdr), 1, f) != 1 ||
	    (len && fwrite(payload, len, 1, f) != 1))
		return -1;
	return 0;
}
