/* SPDX-License-Identifier: GPL-2.0 */
/*
 * wire.h - YARP's wire format, written and read without YARP
 *
 * What a YARP 3.x (or 4.0) peer expects on a TCP connection to or from a
 * port (docs/YARP.md; checked against YARP 3.12.3's
 * sources and, in tests/yarp, against its tools):
 *
 *  - payloads: Bottles (int32 code, int32 count, items; a list whose items
 *    all have one type carries that type in its code and no item tags),
 *    yarp::sig::Vector ([LIST|FLOAT64][N][N x float64]) and skinDynLib's
 *    skinContactList;
 *  - framing: the 8-byte "YA <int32> RP" numbers, the connection header
 *    (carrier magic + sender name), the message index (block count, block
 *    lengths) and the port command block, with or without an envelope
 *    (yarp::os::Stamp as text: "seq time");
 *  - reading: a Bottle of atoms (the rpc port's commands).
 *
 * Everything is little endian (YARP's NetInt32 / NetFloat64).  The only
 * difference between YARP 3 and 4 on this wire is the float tags (4.0:
 * FLOAT32 10, FLOAT64 20), so every writer of a tag takes the version.
 *
 * Buffers grow on demand (yw_buf); an allocation failure is remembered in
 * the buffer and reported once by yw_buf_ok(), so encoders need no error
 * path per item.  Nothing here does I/O.
 */
#ifndef SKIN_YARP_WIRE_H
#define SKIN_YARP_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Bottle tags shared by YARP 3 and 4 */
#define YW_TAG_INT32	1
#define YW_TAG_VOCAB32	9
#define YW_TAG_STRING	4
#define YW_TAG_BLOB	12
#define YW_TAG_INT64	17
#define YW_TAG_LIST	256

/* The wire's major version: which float tags it uses. */
enum yw_version {
	YW_YARP3 = 3,	/* FLOAT64 10, FLOAT32 128 (YARP 3.0 ... 3.12) */
	YW_YARP4 = 4,	/* FLOAT64 20, FLOAT32 10 (YARP 4.0) */
};

int yw_tag_float64(enum yw_version v);

/* The binary carriers' 8-byte connection headers (tcp wants an ack per
 * message, fast_tcp and udp none); text starts "CONNECT ".  udp: the
 * header goes over TCP, the reader answers with a UDP port number ("YA
 * <port> RP") and closes, and every message follows as datagrams
 * (yw_dgram_head()). */
enum yw_carrier {
	YW_TCP,
	YW_FAST_TCP,
	YW_TEXT,
	YW_UDP,
};

const char *yw_carrier_name(enum yw_carrier c);
/* "tcp", "fast_tcp", "text", "udp" -> 0 and *c, else -EINVAL */
int yw_carrier_parse(const char *name, enum yw_carrier *c);

/*
 * A port name a peer gives us to connect to, before it goes to the name
 * server ("NAME_SERVER query NAME\n"): YARP 3.12's own rule
 * (NetworkBase::isValidPortName: starts with '/', does not end with '/',
 * no space), and, since the name server reads its commands as a line of
 * Bottle text, no control character (a newline would end the command and
 * start another), no '"', '\\', '(' or ')' (Bottle syntax), at most
 * 255 bytes.  YARP's anonymous "..." names no peer to connect to.
 */
bool yw_port_name_ok(const char *name);
/* The name a peer gives for itself in its connection header (a port
 * name, or a tool's "admin"), echoed in replies: 1 to 255 bytes, none a
 * control character */
bool yw_peer_name_ok(const char *name);

struct yw_buf {
	uint8_t *data;
	size_t len, cap;
	bool failed;		/* an allocation failed: the content is cut */
};

void yw_buf_init(struct yw_buf *b);
void yw_buf_free(struct yw_buf *b);
void yw_buf_reset(struct yw_buf *b);
/* true when every append since the last reset fitted */
bool yw_buf_ok(const struct yw_buf *b);
void yw_put(struct yw_buf *b, const void *p, size_t n);
void yw_put_i32(struct yw_buf *b, int32_t x);
void yw_put_f64(struct yw_buf *b, double x);
void yw_put_str(struct yw_buf *b, const char *s);	/* bytes, no NUL */

/* The 8-byte number "YA <int32 LE> RP" */
void yw_number(uint8_t out[8], int32_t n);
/* -> 0 and *n, or -EPROTO when @in is not one */
int yw_number_parse(const uint8_t in[8], int32_t *n);

/*
 * Payloads
 */
/* yarp::sig::Vector of @n values (n > 0), from doubles (monitor:o), skind's
 * floats or raw bytes */
void yw_vector_f64(struct yw_buf *b, enum yw_version v, const double *x,
		   unsigned int n);
void yw_vector_f32(struct yw_buf *b, enum yw_version v, const float *x,
		   unsigned int n);
void yw_vector_u8(struct yw_buf *b, enum yw_version v, const uint8_t *x,
		  unsigned int n);
/* The same as Bottle text (what a text-carrier reader is sent): YARP's
 * numeric::to_string, "%.21g" with ".0" added to whole numbers. */
void yw_vector_f64_text(struct yw_buf *b, const double *x, unsigned int n);
void yw_vector_f32_text(struct yw_buf *b, const float *x, unsigned int n);
void yw_vector_u8_text(struct yw_buf *b, const uint8_t *x, unsigned int n);

/* One skinDynLib skinContact (skinContact::write's layout) */
struct yw_contact {
	int32_t id;		/* skinContact's contactId is written as int32 */
	int32_t body_part, link_number, skin_part;
	double cop[3], force[3], moment[3], geo[3], normal[3];
	double pressure;
	unsigned int n_taxels;
	const uint32_t *taxels;
};

/* skinContactList: yw_contact_list() with the count, then each contact */
void yw_contact_list(struct yw_buf *b, unsigned int n);
void yw_contact(struct yw_buf *b, enum yw_version v,
		const struct yw_contact *c);

/* Bottles of atoms, for the rpc replies */
void yw_bottle_begin(struct yw_buf *b, int32_t code, unsigned int n);
void yw_item_i32(struct yw_buf *b, int32_t x);		/* tagged */
void yw_item_f64(struct yw_buf *b, enum yw_version v, double x);
void yw_item_str(struct yw_buf *b, const char *s);
void yw_item_vocab(struct yw_buf *b, const char *v);	/* up to 4 chars */

/*
 * Framing
 */
/* A connection's header as the source sends it: 8 bytes, then (tcp,
 * fast_tcp) int32 strlen(name)+1 and the name with its NUL, or (text)
 * the name and "\r\n". */
void yw_conn_header(struct yw_buf *b, enum yw_carrier c, const char *from);
/* The carrier of a received 8-byte header, or -EPROTO; *ack_variant is set for
 * text_ack's "CONNACK " (an admin connection) */
int yw_conn_header_parse(const uint8_t in[8], enum yw_carrier *c,
			 bool *ack_variant);

/*
 * udp (YARP's DgramTwoWayStream): a message is cut into datagrams of at
 * most YW_DGRAM_MAX bytes, each starting with 8 bytes: int32 LE the
 * CRC-32 (zlib's) of the rest of the datagram, int32 LE its index in the
 * message (0, 1, ...; the reader drops a message whose indices or CRCs
 * do not follow).  Then the message exactly as on tcp (yw_msg_head() and
 * the payload).
 */
#define YW_DGRAM_HEAD	8
#define YW_DGRAM_MAX	(65507 - YW_DGRAM_HEAD)	/* UDP_MAX_DATAGRAM_SIZE */
uint32_t yw_crc32(const void *p, size_t n);
void yw_dgram_head(uint8_t out[YW_DGRAM_HEAD], const void *rest, size_t n,
		   int32_t index);

/* Envelope text of yarp::os::Stamp: "%d %.*g" with DBL_DIG */
int yw_stamp_text(char *buf, size_t len, int32_t seq, double time);

/*
 * A message's head for a binary carrier: the index ("YA 10 RP", block
 * count 2, 1, 0xff x 8, both lengths, 0) and the port command block ("D"
 * or "d": no reply / reply wanted; with @envelope: "D <envelope>"), for a
 * payload of @payload_len bytes that follows it on the wire.
 */
void yw_msg_head(struct yw_buf *b, const char *envelope, bool reply,
		 size_t payload_len);
/* The same for the text carrier: "d\r\n" (or the envelope line) before a
 * payload line. */
void yw_msg_head_text(struct yw_buf *b, const char *envelope, bool reply);

/*
 * Reading a Bottle of atoms (a command)
 */
enum yw_atom_type {
	YW_ATOM_INT,
	YW_ATOM_FLOAT,
	YW_ATOM_STRING,
	YW_ATOM_VOCAB,		/* [abcd]: up to 4 characters */
	YW_ATOM_LIST,		/* a nested list of the next i items (replies only) */
};

struct yw_atom {
	enum yw_atom_type type;
	int64_t i;
	double f;
	char s[600];		/* strings longer than that are refused */
};

/*
 * Parse a binary Bottle of up to @max atoms (no nested lists) from @p.
 * Return: the number of atoms, or -EPROTO (malformed, nested, too long).
 * Either version's float tags are accepted as floats when unambiguous:
 * 10 is float64 for @v = YW_YARP3 and float32 for YW_YARP4.
 */
int yw_parse_bottle(const uint8_t *p, size_t len, enum yw_version v,
		    struct yw_atom *atoms, unsigned int max);
/* The same from a text line (text carrier): words, numbers, "quoted",
 * [vocab]. */
int yw_parse_text(const char *line, struct yw_atom *atoms, unsigned int max);

/*
 * Atoms as a Bottle (code 256, each item tagged) and as Bottle text
 * (strings quoted, floats as YARP prints them, [vocab], (list)).  The
 * array is the Bottle's items in order, depth first: a YW_ATOM_LIST atom
 * of i items is followed by those items (each a list again or not), so
 * @n counts array entries, not the Bottle's top-level items.  A nested
 * list is written as YARP reads it (tag 256, count, tagged items); an i
 * that overruns the array is cut at its end.
 */
void yw_atoms_bottle(struct yw_buf *b, enum yw_version v,
		     const struct yw_atom *atoms, unsigned int n);
void yw_atoms_text(struct yw_buf *b, const struct yw_atom *atoms,
		   unsigned int n);

#endif /* SKIN_YARP_WIRE_H */
