/* SPDX-License-Identifier: GPL-2.0 */
/*
 * fox.h - Foxglove's WebSocket protocol v1, its JSON side
 *
 * What skin-view says and understands of the published specification
 * (subprotocols foxglove.websocket.v1 and foxglove.sdk.v1; docs/VIEW.md):
 * serverInfo (no optional capability: the server is read-only),
 * advertise and unadvertise of its channels, status; from a client,
 * subscribe and unsubscribe.  Every other op a client sends gets an error
 * status, as does a request that names an unknown channel or reuses a
 * subscription id.  The binary Message Data header (opcode 1, the
 * subscription id, a timestamp) is FOX_DATA_HEADER bytes.
 *
 * The channels' schemas are tactile_msgs' .msg files with their
 * dependencies, as ROS 2 and Foxglove's ros2msg parser read them, and
 * skin_msgs/PartState's (cdr.h); the JSON channels' are JSON Schemas.
 *
 * Ownership: every returned string is malloc'ed, the caller frees it.
 * Errors: NULL for out of memory.  Threads: any.
 */
#ifndef VIEW_FOX_H
#define VIEW_FOX_H

#include <stddef.h>
#include <stdint.h>

#define FOX_SUBPROTOCOL		"foxglove.websocket.v1"
#define FOX_SUBPROTOCOL_SDK	"foxglove.sdk.v1"
#define FOX_OP_MESSAGE_DATA	0x01
#define FOX_DATA_HEADER		13	/* opcode, u32 subscription, u64 ns */

enum fox_kind {
	FOX_VALUES,		/* TactileState of the compensated values */
	FOX_RAW,		/* TactileState of the raw values */
	FOX_CONTACTS,		/* TactileContacts */
	FOX_STATE,		/* skin_msgs/PartState: the whole publication */
	/* skin-view's own, of no part (/skin/LEAF), JSON: */
	FOX_LAYOUT,		/* skin.Layout: how each part is drawn */
	FOX_HEALTH,		/* skin.Health: skind's, the driver's, skin-eth's */
	FOX_KINDS
};

/* The kinds a part has a channel of (/skin/PART/LEAF) */
#define FOX_PART_KINDS	(FOX_STATE + 1)

struct fox_channel {
	uint32_t id;
	enum fox_kind kind;
	char topic[80];		/* /skin/PART/values ... */
};

const char *fox_schema_name(enum fox_kind k);
const char *fox_schema(enum fox_kind k);
/* "cdr" or "json", and the schema's: "ros2msg" or "jsonschema" */
const char *fox_encoding(enum fox_kind k);
const char *fox_schema_encoding(enum fox_kind k);
/* The topic's leaf: values, raw, contacts */
const char *fox_leaf(enum fox_kind k);

char *fox_server_info(const char *name, const char *session_id);
char *fox_advertise(const struct fox_channel *const *ch, unsigned int n);
char *fox_unadvertise(const uint32_t *ids, unsigned int n);
/* level 0 info, 1 warning, 2 error */
char *fox_status(int level, const char *message);

/* A client's request, parsed */
enum fox_op {
	FOX_REQ_SUBSCRIBE,
	FOX_REQ_UNSUBSCRIBE,
	FOX_REQ_OTHER,		/* a valid op this server does not offer */
};

struct fox_sub {
	uint32_t id;
	uint32_t channel;	/* subscribe only */
};

struct fox_request {
	enum fox_op op;
	char op_name[48];	/* for the status of FOX_REQ_OTHER */
	struct fox_sub *subs;	/* malloc'ed; subscribe and unsubscribe */
	unsigned int n_subs;
};

/* Parse one text message of @len bytes: 0; -EPROTO when it is not one
 * JSON object with a string op (a malformed message); -EBADMSG for a
 * subscribe or unsubscribe whose fields are not the specification's (a
 * bad request); -E2BIG past @max_subs entries; -ENOMEM.  @why says what
 * was wrong. */
int fox_parse_request(const char *text, size_t len, unsigned int max_subs,
		      struct fox_request *r, char *why, size_t why_len);
void fox_request_free(struct fox_request *r);

/* The Message Data header at @p: opcode, @sub, @ns (little endian) */
void fox_data_header(uint8_t *p, uint32_t sub, uint64_t ns);

#endif /* VIEW_FOX_H */
