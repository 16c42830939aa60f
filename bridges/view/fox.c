// SPDX-License-Identifier: GPL-2.0
/*
 * fox.c - Foxglove's WebSocket protocol v1, its JSON side (fox.h)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "fox.h"

/* The ros2msg schemas: the message's .msg text, then each type it uses
 * after a line of 80 '=' and "MSG: pkg/Type" (as ROS 2's rosbag2 and
 * Foxglove's parser take them).  tactile_msgs is ubi-agni's
 * tactile_toolbox; the rest ROS 2's common_interfaces. */
#define SEP "================================================================================\n"
#define MSG_HEADER \
	SEP "MSG: std_msgs/Header\n" \
	"builtin_interfaces/Time stamp\n" \
	"string frame_id\n" \
	SEP "MSG: builtin_interfaces/Time\n" \
	"int32 sec\n" \
	"uint32 nanosec\n"

static const char state_schema[] =
	"std_msgs/Header header\n"
	"sensor_msgs/ChannelFloat32[] sensors\n"
	MSG_HEADER
	SEP "MSG: sensor_msgs/ChannelFloat32\n"
	"string name\n"
	"float32[] values\n";

static const char contacts_schema[] =
	"tactile_msgs/TactileContact[] contacts\n"
	SEP "MSG: tactile_msgs/TactileContact\n"
	"std_msgs/Header header\n"
	"string name\n"
	"geometry_msgs/Point position\n"
	"geometry_msgs/Vector3 normal\n"
	"geometry_msgs/Wrench wrench\n"
	MSG_HEADER
	SEP "MSG: geometry_msgs/Point\n"
	"float64 x\n"
	"float64 y\n"
	"float64 z\n"
	SEP "MSG: geometry_msgs/Vector3\n"
	"float64 x\n"
	"float64 y\n"
	"float64 z\n"
	SEP "MSG: geometry_msgs/Wrench\n"
	"geometry_msgs/Vector3 force\n"
	"geometry_msgs/Vector3 torque\n";

/* skin-view's own message (cdr.h): a part's whole publication */
static const char part_state_schema[] =
	"builtin_interfaces/Time stamp\n"
	"uint64 sample\n"
	"uint32 state\n"
	"uint8[] raw\n"
	"float32[] values\n"
	"uint8[] flags\n"
	"float32[] baselines\n"
	"float32[] thresholds\n"
	"skin_msgs/PartContact[] contacts\n"
	SEP "MSG: builtin_interfaces/Time\n"
	"int32 sec\n"
	"uint32 nanosec\n"
	SEP "MSG: skin_msgs/PartContact\n"
	"uint32 id\n"
	"float32 pressure\n"
	"float32[2] cop2d\n"
	"float64[3] cop\n"
	"float64[3] force\n"
	"float64[3] normal\n"
	"uint32[] taxels\n";

/* The JSON channels' schemas (JSON Schema; no "$schema" URI, which
 * would name a site in the package): what a message has
 * (docs/VIEW.md gives each field's meaning) */
static const char layout_schema[] =
	"{"
	"\"title\":\"skin.Layout\","
	"\"description\":\"How each of skind's parts is drawn (skin-view, docs/VIEW.md): per slot of the part's vector (the taxel id, 0-based) its 2D position, kind (t tactile, h thermal, - none), board, triangle and channel; an outline per triangle\","
	"\"type\":\"object\",\"required\":[\"generation\",\"parts\"],"
	"\"properties\":{\"generation\":{\"type\":\"integer\"},"
	"\"parts\":{\"type\":\"array\",\"items\":{\"type\":\"object\","
	"\"required\":[\"name\",\"n\",\"x\",\"y\",\"kind\",\"board\",\"triangle\",\"channel\",\"outlines\",\"radius\"],"
	"\"properties\":{\"name\":{\"type\":\"string\"},\"skin_part\":{\"type\":\"string\"},"
	"\"n\":{\"type\":\"integer\"},\"source\":{\"type\":\"string\"},"
	"\"unit\":{\"type\":[\"string\",\"null\"]},"
	"\"x\":{\"type\":\"array\",\"items\":{\"type\":[\"number\",\"null\"]}},"
	"\"y\":{\"type\":\"array\",\"items\":{\"type\":[\"number\",\"null\"]}},"
	"\"kind\":{\"type\":\"string\"},"
	"\"board\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}},"
	"\"triangle\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}},"
	"\"channel\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}},"
	"\"outlines\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"array\",\"items\":{\"type\":\"number\"}}}},"
	"\"outline_slots\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}},"
	"\"patches\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
	"\"radius\":{\"type\":\"number\"}}}}}}";

static const char health_schema[] =
	"{"
	"\"title\":\"skin.Health\","
	"\"description\":\"skind's status, its parts and patches with their counters and faulty taxels, the driver's per-patch counters, skin-eth's counters (skin-view, docs/VIEW.md)\","
	"\"type\":\"object\",\"required\":[\"time_ns\",\"skind\",\"parts\",\"eth\"],"
	"\"properties\":{\"time_ns\":{\"type\":\"integer\"},"
	"\"skind\":{\"type\":\"object\",\"properties\":{\"connected\":{\"type\":\"boolean\"},"
	"\"generation\":{\"type\":[\"integer\",\"null\"]},\"status\":{\"type\":[\"object\",\"null\"]},"
	"\"faults\":{\"type\":\"boolean\"},\"faults_truncated\":{\"type\":\"boolean\"}}},"
	"\"parts\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
	"\"name\":{\"type\":\"string\"},\"state\":{\"type\":\"string\"},"
	"\"samples\":{\"type\":\"integer\"},\"lost\":{\"type\":\"integer\"},"
	"\"patches\":{\"type\":\"array\",\"items\":{\"type\":\"object\"}},"
	"\"faults\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
	"\"taxel\":{\"type\":\"integer\"},\"flags\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
	"\"since_ns\":{\"type\":\"integer\"},\"raw\":{\"type\":[\"number\",\"null\"]},"
	"\"baseline\":{\"type\":[\"number\",\"null\"]}}}}}}},"
	"\"eth\":{\"type\":[\"object\",\"null\"]}}}";

/* /skin/replay's messages (docs/VIEW.md, "Replay") */
static const char replay_schema[] =
	"{"
	"\"title\":\"skin.Replay\","
	"\"type\":\"object\",\"properties\":{"
	"\"t_s\":{\"type\":\"number\",\"description\":\"the recording's time shown, from its start\"},"
	"\"duration_s\":{\"type\":\"number\"},"
	"\"playing\":{\"type\":\"boolean\"},"
	"\"speed\":{\"type\":\"number\"},"
	"\"file\":{\"type\":\"string\"}}}";

const char *fox_schema_name(enum fox_kind k)
{
	switch (k) {
	case FOX_CONTACTS: return "tactile_msgs/msg/TactileContacts";
	case FOX_STATE: return "skin_msgs/msg/PartState";
	case FOX_LAYOUT: return "skin.Layout";
	case FOX_HEALTH: return "skin.Health";
	case FOX_REPLAY: return "skin.Replay";
	default: return "tactile_msgs/msg/TactileState";
	}
}

const char *fox_schema(enum fox_kind k)
{
	switch (k) {
	case FOX_CONTACTS: return contacts_schema;
	case FOX_STATE: return part_state_schema;
	case FOX_LAYOUT: return layout_schema;
	case FOX_HEALTH: return health_schema;
	case FOX_REPLAY: return replay_schema;
	default: return state_schema;
	}
}

/* skin-view's own channels are JSON, the part channels CDR */
static bool fox_is_json(enum fox_kind k)
{
	return k == FOX_LAYOUT || k == FOX_HEALTH || k == FOX_REPLAY;
}

const char *fox_encoding(enum fox_kind k)
{
	return fox_is_json(k) ? "json" : "cdr";
}

const char *fox_schema_encoding(enum fox_kind k)
{
	return fox_is_json(k) ? "jsonschema" : "ros2msg";
}

const char *fox_leaf(enum fox_kind k)
{
	switch (k) {
	case FOX_VALUES: return "values";
	case FOX_RAW: return "raw";
	case FOX_CONTACTS: return "contacts";
	case FOX_STATE: return "state";
	case FOX_LAYOUT: return "layout";
	case FOX_HEALTH: return "health";
	case FOX_REPLAY: return "replay";
	case FOX_KINDS: break;
	}
	return "?";
}

/* The object's text, malloc'ed; the object put */
static char *text_of(json_object *o)
{
	char *s = NULL;

	if (o) {
		const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
							       JSON_C_TO_STRING_NOSLASHESCAPE);

		s = t ? strdup(t) : NULL;
		json_object_put(o);
	}
	return s;
}

char *fox_server_info(const char *name, const char *session_id, bool services)
{
	json_object *o = json_object_new_object(), *caps = json_object_new_array();

	if (!o || !caps) {
		json_object_put(o);
		json_object_put(caps);
		return NULL;
	}
	json_object_object_add(o, "op", json_object_new_string("serverInfo"));
	json_object_object_add(o, "name", json_object_new_string(name));
	if (services) {
		json_object *enc = json_object_new_array();

		json_object_array_add(caps, json_object_new_string("services"));
		json_object_array_add(enc, json_object_new_string(FOX_SERVICE_ENCODING));
		json_object_object_add(o, "supportedEncodings", enc);
	}
	json_object_object_add(o, "capabilities", caps);
	json_object_object_add(o, "sessionId", json_object_new_string(session_id));
	return text_of(o);
}

char *fox_advertise(const struct fox_channel *const *ch, unsigned int n)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	unsigned int i;

	if (!o || !a) {
		json_object_put(o);
		json_object_put(a);
		return NULL;
	}
	json_object_object_add(o, "op", json_object_new_string("advertise"));
	for (i = 0; i < n; i++) {
		json_object *c = json_object_new_object();

		if (!c)
			break;
		json_object_object_add(c, "id", json_object_new_int64(ch[i]->id));
		json_object_object_add(c, "topic", json_object_new_string(ch[i]->topic));
		json_object_object_add(c, "encoding",
				       json_object_new_string(fox_encoding(ch[i]->kind)));
		json_object_object_add(c, "schemaName",
				       json_object_new_string(fox_schema_name(ch[i]->kind)));
		json_object_object_add(c, "schema",
				       json_object_new_string(fox_schema(ch[i]->kind)));
		json_object_object_add(c, "schemaEncoding",
				       json_object_new_string(fox_schema_encoding(ch[i]->kind)));
		json_object_array_add(a, c);
	}
	json_object_object_add(o, "channels", a);
	if (i < n) {
		json_object_put(o);
		return NULL;
	}
	return text_of(o);
}

char *fox_unadvertise(const uint32_t *ids, unsigned int n)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	unsigned int i;

	if (!o || !a) {
		json_object_put(o);
		json_object_put(a);
		return NULL;
	}
	json_object_object_add(o, "op", json_object_new_string("unadvertise"));
	for (i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int64(ids[i]));
	json_object_object_add(o, "channelIds", a);
	return text_of(o);
}

char *fox_status(int level, const char *message)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "op", json_object_new_string("status"));
	json_object_object_add(o, "level", json_object_new_int(level));
	json_object_object_add(o, "message", json_object_new_string(message));
	return text_of(o);
}

/* A JSON number that is a uint32: ids are */
static bool get_u32(json_object *o, const char *key, uint32_t *v)
{
	json_object *f;
	int64_t x;

	if (!json_object_object_get_ex(o, key, &f) || !json_object_is_type(f, json_type_int))
		return false;
	x = json_object_get_int64(f);
	if (x < 0 || x > UINT32_MAX)
		return false;
	*v = (uint32_t)x;
	return true;
}

static int bad(char *why, size_t why_len, const char *field, const char *what)
{
	snprintf(why, why_len, "%s: %s", field, what);
	return -EBADMSG;
}

int fox_parse_request(const char *text, size_t len, unsigned int max_subs,
		      struct fox_request *r, char *why, size_t why_len)
{
	json_tokener *tok = json_tokener_new_ex(16);
	json_object *o, *op, *list;
	const char *name, *field;
	unsigned int i, n;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	if (!tok)
		return -ENOMEM;
	o = json_tokener_parse_ex(tok, text, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len) {
		snprintf(why, why_len, "not one JSON value");
		rc = -EPROTO;
		goto out;
	}
	if (!json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "op", &op) ||
	    !json_object_is_type(op, json_type_string)) {
		snprintf(why, why_len, "not a JSON object with a string \"op\"");
		rc = -EPROTO;
		goto out;
	}
	name = json_object_get_string(op);
	snprintf(r->op_name, sizeof(r->op_name), "%s", name);
	if (!strcmp(name, "subscribe")) {
		r->op = FOX_REQ_SUBSCRIBE;
		field = "subscriptions";
	} else if (!strcmp(name, "unsubscribe")) {
		r->op = FOX_REQ_UNSUBSCRIBE;
		field = "subscriptionIds";
	} else {
		r->op = FOX_REQ_OTHER;
		goto out;
	}
	if (!json_object_object_get_ex(o, field, &list) ||
	    !json_object_is_type(list, json_type_array)) {
		rc = bad(why, why_len, field, "no array of that name");
		goto out;
	}
	n = (unsigned int)json_object_array_length(list);
	if (n > max_subs) {
		snprintf(why, why_len, "%s: more than %u entries", field, max_subs);
		rc = -E2BIG;
		goto out;
	}
	r->subs = calloc(n ? n : 1, sizeof(*r->subs));
	if (!r->subs) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(list, i);
		struct fox_sub *s = &r->subs[i];

		if (r->op == FOX_REQ_SUBSCRIBE) {
			if (!json_object_is_type(e, json_type_object) ||
			    !get_u32(e, "id", &s->id) ||
			    !get_u32(e, "channelId", &s->channel)) {
				rc = bad(why, why_len, field, "an entry without a uint32 id and channelId");
				goto out;
			}
		} else {
			int64_t x = json_object_get_int64(e);

			if (!json_object_is_type(e, json_type_int) || x < 0 ||
			    x > UINT32_MAX) {
				rc = bad(why, why_len, field, "an entry that is not a uint32");
				goto out;
			}
			s->id = (uint32_t)x;
		}
	}
	r->n_subs = n;
out:
	if (rc)
		fox_request_free(r);
	json_object_put(o);
	json_tokener_free(tok);
	return rc;
}

void fox_request_free(struct fox_request *r)
{
	free(r->subs);
	r->subs = NULL;
	r->n_subs = 0;
}

void fox_data_header(uint8_t *p, uint32_t sub, uint64_t ns)
{
	int i;

	p[0] = FOX_OP_MESSAGE_DATA;
	for (i = 0; i < 4; i++)
		p[1 + i] = (uint8_t)(sub >> (8 * i));
	for (i = 0; i < 8; i++)
		p[5 + i] = (uint8_t)(ns >> (8 * i));
}

static json_object *service_schema(const char *name, const char *schema)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "encoding", json_object_new_string(FOX_SERVICE_ENCODING));
	json_object_object_add(o, "schemaName", json_object_new_string(name));
	json_object_object_add(o, "schemaEncoding", json_object_new_string("jsonschema"));
	json_object_object_add(o, "schema", json_object_new_string(schema));
	return o;
}

char *fox_advertise_services(const struct fox_service *sv, unsigned int n)
{
	json_object *o = json_object_new_object(), *a = json_object_new_array();
	unsigned int i;

	if (!o || !a) {
		json_object_put(o);
		json_object_put(a);
		return NULL;
	}
	json_object_object_add(o, "op", json_object_new_string("advertiseServices"));
	for (i = 0; i < n; i++) {
		json_object *c = json_object_new_object();
		char name[96];

		if (!c)
			break;
		json_object_object_add(c, "id", json_object_new_int64(sv[i].id));
		json_object_object_add(c, "name", json_object_new_string(sv[i].name));
		json_object_object_add(c, "type", json_object_new_string(sv[i].type));
		snprintf(name, sizeof(name), "%s_Request", sv[i].type);
		json_object_object_add(c, "request", service_schema(name, sv[i].request_schema));
		snprintf(name, sizeof(name), "%s_Response", sv[i].type);
		json_object_object_add(c, "response",
				       service_schema(name, sv[i].response_schema));
		json_object_array_add(a, c);
	}
	json_object_object_add(o, "services", a);
	if (i < n) {
		json_object_put(o);
		return NULL;
	}
	return text_of(o);
}

char *fox_service_failure(uint32_t service, uint32_t call, const char *message)
{
	json_object *o = json_object_new_object();

	if (!o)
		return NULL;
	json_object_object_add(o, "op", json_object_new_string("serviceCallFailure"));
	json_object_object_add(o, "serviceId", json_object_new_int64(service));
	json_object_object_add(o, "callId", json_object_new_int64(call));
	json_object_object_add(o, "message", json_object_new_string(message));
	return text_of(o);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	int i;

	for (i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int fox_parse_service_call(const uint8_t *p, size_t len, struct fox_call *c)
{
	uint32_t n;

	if (len < 13 || p[0] != FOX_OP_SERVICE_CALL_REQUEST)
		return -EBADMSG;
	c->service = get_le32(p + 1);
	c->call = get_le32(p + 5);
	n = get_le32(p + 9);
	if (n > len - 13)
		return -EBADMSG;
	c->encoding = (const char *)p + 13;
	c->encoding_len = n;
	c->payload = (const char *)p + 13 + n;
	c->payload_len = len - 13 - n;
	return 0;
}

void fox_service_header(uint8_t *p, uint32_t service, uint32_t call)
{
	p[0] = FOX_OP_SERVICE_CALL_RESPONSE;
	put_le32(p + 1, service);
	put_le32(p + 5, call);
	put_le32(p + 9, sizeof(FOX_SERVICE_ENCODING) - 1);
	memcpy(p + 13, FOX_SERVICE_ENCODING, sizeof(FOX_SERVICE_ENCODING) - 1);
}
