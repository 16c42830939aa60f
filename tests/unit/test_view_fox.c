// SPDX-License-Identifier: GPL-2.0
/*
 * test_view_fox.c - skin-view's side of Foxglove's WebSocket protocol
 * (bridges/view/fox.c) and its configuration (config.c)
 *
 * The messages are read back with json-c and checked field by field
 * against the published specification's (docs/VIEW.md); requests from
 * clients are parsed as they come, hostile ones included.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <json-c/json.h>

#include "conf.h"
#include "config.h"
#include "fox.h"

static json_object *field(json_object *o, const char *k)
{
	json_object *f = NULL;

	assert_true(json_object_object_get_ex(o, k, &f));
	return f;
}

static json_object *parse(char *text)
{
	json_object *o;

	assert_non_null(text);
	o = json_tokener_parse(text);
	assert_non_null(o);
	free(text);
	return o;
}

static void test_server_info(void **state)
{
	json_object *o = parse(fox_server_info("skin-view 1", "s-1", false));

	(void)state;
	assert_string_equal(json_object_get_string(field(o, "op")), "serverInfo");
	assert_string_equal(json_object_get_string(field(o, "name")), "skin-view 1");
	assert_string_equal(json_object_get_string(field(o, "sessionId")), "s-1");
	/* read-only: no optional capability */
	assert_int_equal(json_object_array_length(field(o, "capabilities")), 0);
	json_object_put(o);
}

/* Services: the capability, their advertisement, a call's bytes both ways */
static void test_services(void **state)
{
	static const struct fox_service sv = { 3, "/skin/get", "skin.Get",
					       "{\"type\":\"object\"}", "{}" };
	json_object *o = parse(fox_server_info("skin-view 1", "s-1", true)), *a, *r;
	uint8_t req[32] = { FOX_OP_SERVICE_CALL_REQUEST, 3, 0, 0, 0, 9, 0, 0, 0, 4, 0, 0, 0,
			    'j', 's', 'o', 'n', '{', '}' };
	uint8_t head[FOX_SERVICE_HEADER];
	struct fox_call c;

	(void)state;
	assert_string_equal(json_object_get_string(
		json_object_array_get_idx(field(o, "capabilities"), 0)), "services");
	assert_string_equal(json_object_get_string(
		json_object_array_get_idx(field(o, "supportedEncodings"), 0)), "json");
	json_object_put(o);

	o = parse(fox_advertise_services(&sv, 1));
	assert_string_equal(json_object_get_string(field(o, "op")), "advertiseServices");
	a = json_object_array_get_idx(field(o, "services"), 0);
	assert_int_equal(json_object_get_int(field(a, "id")), 3);
	assert_string_equal(json_object_get_string(field(a, "name")), "/skin/get");
	r = field(a, "request");
	assert_string_equal(json_object_get_string(field(r, "encoding")), "json");
	assert_string_equal(json_object_get_string(field(r, "schemaEncoding")), "jsonschema");
	assert_string_equal(json_object_get_string(field(r, "schemaName")), "skin.Get_Request");
	json_object_put(o);

	o = parse(fox_service_failure(3, 9, "not authorised"));
	assert_string_equal(json_object_get_string(field(o, "op")), "serviceCallFailure");
	assert_int_equal(json_object_get_int(field(o, "callId")), 9);
	assert_string_equal(json_object_get_string(field(o, "message")), "not authorised");
	json_object_put(o);

	assert_int_equal(fox_parse_service_call(req, 19, &c), 0);
	assert_int_equal(c.service, 3);
	assert_int_equal(c.call, 9);
	assert_int_equal(c.encoding_len, 4);
	assert_memory_equal(c.encoding, "json", 4);
	assert_int_equal(c.payload_len, 2);
	assert_memory_equal(c.payload, "{}", 2);
	/* no payload; an encoding longer than the message, a short header,
	 * another opcode */
	req[9] = 6;
	assert_int_equal(fox_parse_service_call(req, 19, &c), 0);
	assert_int_equal(c.payload_len, 0);
	req[9] = 7;
	assert_int_equal(fox_parse_service_call(req, 19, &c), -EBADMSG);
	req[9] = 200;
	assert_int_equal(fox_parse_service_call(req, 19, &c), -EBADMSG);
	assert_int_equal(fox_parse_service_call(req, 12, &c), -EBADMSG);
	req[0] = 1;
	req[9] = 4;
	assert_int_equal(fox_parse_service_call(req, 19, &c), -EBADMSG);

	fox_service_header(head, 3, 9);
	assert_int_equal(head[0], FOX_OP_SERVICE_CALL_RESPONSE);
	assert_int_equal(head[1], 3);
	assert_int_equal(head[5], 9);
	assert_int_equal(head[9], 4);
	assert_memory_equal(head + 13, "json", 4);
}

static void test_advertise(void **state)
{
	struct fox_channel a = { 7, FOX_VALUES, "/skin/pad/values" };
	struct fox_channel b = { 9, FOX_CONTACTS, "/skin/pad/contacts" };
	const struct fox_channel *v[] = { &a, &b };
	json_object *o = parse(fox_advertise(v, 2)), *ch, *c;
	const char *schema;

	(void)state;
	assert_string_equal(json_object_get_string(field(o, "op")), "advertise");
	ch = field(o, "channels");
	assert_int_equal(json_object_array_length(ch), 2);
	c = json_object_array_get_idx(ch, 0);
	assert_int_equal(json_object_get_int64(field(c, "id")), 7);
	assert_string_equal(json_object_get_string(field(c, "topic")), "/skin/pad/values");
	assert_string_equal(json_object_get_string(field(c, "encoding")), "cdr");
	assert_string_equal(json_object_get_string(field(c, "schemaEncoding")), "ros2msg");
	assert_string_equal(json_object_get_string(field(c, "schemaName")),
			    "tactile_msgs/msg/TactileState");
	schema = json_object_get_string(field(c, "schema"));
	assert_non_null(strstr(schema, "sensor_msgs/ChannelFloat32[] sensors\n"));
	assert_non_null(strstr(schema, "\nMSG: std_msgs/Header\n"));
	assert_non_null(strstr(schema, "\nMSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n"));
	c = json_object_array_get_idx(ch, 1);
	assert_string_equal(json_object_get_string(field(c, "schemaName")),
			    "tactile_msgs/msg/TactileContacts");
	schema = json_object_get_string(field(c, "schema"));
	assert_true(!strncmp(schema, "tactile_msgs/TactileContact[] contacts\n", 39));
	assert_non_null(strstr(schema, "\nMSG: geometry_msgs/Wrench\n"));
	json_object_put(o);

	/* none at all is still an advertise (the specification: one always) */
	o = parse(fox_advertise(NULL, 0));
	assert_int_equal(json_object_array_length(field(o, "channels")), 0);
	json_object_put(o);
}

static void test_unadvertise_status(void **state)
{
	static const uint32_t ids[] = { 3, 4294967295u };
	json_object *o = parse(fox_unadvertise(ids, 2)), *a;

	(void)state;
	assert_string_equal(json_object_get_string(field(o, "op")), "unadvertise");
	a = field(o, "channelIds");
	assert_int_equal(json_object_get_int64(json_object_array_get_idx(a, 1)), 4294967295ll);
	json_object_put(o);
	o = parse(fox_status(2, "no \"channel\" 5"));
	assert_string_equal(json_object_get_string(field(o, "op")), "status");
	assert_int_equal(json_object_get_int(field(o, "level")), 2);
	assert_string_equal(json_object_get_string(field(o, "message")), "no \"channel\" 5");
	json_object_put(o);
}

static int req(const char *text, struct fox_request *r)
{
	char why[128];

	return fox_parse_request(text, strlen(text), 4, r, why, sizeof(why));
}

static void test_requests(void **state)
{
	struct fox_request r;

	(void)state;
	assert_int_equal(req("{\"op\":\"subscribe\",\"subscriptions\":[{\"id\":0,\"channelId\":3},"
			     "{\"id\":4294967295,\"channelId\":5}]}", &r), 0);
	assert_int_equal(r.op, FOX_REQ_SUBSCRIBE);
	assert_int_equal(r.n_subs, 2);
	assert_int_equal(r.subs[0].channel, 3);
	assert_int_equal(r.subs[1].id, 4294967295u);
	fox_request_free(&r);
	assert_int_equal(req("{\"op\":\"unsubscribe\",\"subscriptionIds\":[0,1]}", &r), 0);
	assert_int_equal(r.op, FOX_REQ_UNSUBSCRIBE);
	assert_int_equal(r.n_subs, 2);
	assert_int_equal(r.subs[1].id, 1);
	fox_request_free(&r);
	/* another op of the specification: understood, not offered */
	assert_int_equal(req("{\"op\":\"getParameters\",\"parameterNames\":[]}", &r), 0);
	assert_int_equal(r.op, FOX_REQ_OTHER);
	assert_string_equal(r.op_name, "getParameters");
	fox_request_free(&r);

	/* malformed: not one JSON object with a string op */
	assert_int_equal(req("", &r), -EPROTO);
	assert_int_equal(req("{", &r), -EPROTO);
	assert_int_equal(req("[1,2]", &r), -EPROTO);
	assert_int_equal(req("{\"op\":3}", &r), -EPROTO);
	assert_int_equal(req("{\"op\":\"subscribe\"} {}", &r), -EPROTO);
	assert_int_equal(req("\"subscribe\"", &r), -EPROTO);
	/* bad requests: the fields are not the specification's */
	assert_int_equal(req("{\"op\":\"subscribe\"}", &r), -EBADMSG);
	assert_int_equal(req("{\"op\":\"subscribe\",\"subscriptions\":{}}", &r), -EBADMSG);
	assert_int_equal(req("{\"op\":\"subscribe\",\"subscriptions\":[{\"id\":-1,\"channelId\":3}]}", &r), -EBADMSG);
	assert_int_equal(req("{\"op\":\"subscribe\",\"subscriptions\":[{\"id\":4294967296,\"channelId\":3}]}", &r), -EBADMSG);
	assert_int_equal(req("{\"op\":\"subscribe\",\"subscriptions\":[{\"id\":1.5,\"channelId\":3}]}", &r), -EBADMSG);
	assert_int_equal(req("{\"op\":\"subscribe\",\"subscriptions\":[{\"id\":1}]}", &r), -EBADMSG);
	assert_int_equal(req("{\"op\":\"unsubscribe\",\"subscriptionIds\":[\"1\"]}", &r), -EBADMSG);
	/* past the caller's bound */
	assert_int_equal(req("{\"op\":\"unsubscribe\",\"subscriptionIds\":[1,2,3,4,5]}", &r), -E2BIG);
	/* deep nesting is refused by the tokenizer, not followed */
	{
		char deep[400];

		memset(deep, '[', sizeof(deep) - 1);
		deep[sizeof(deep) - 1] = 0;
		assert_int_equal(req(deep, &r), -EPROTO);
	}
}

static void test_data_header(void **state)
{
	static const uint8_t want[FOX_DATA_HEADER] = {
		0x01, 0x78, 0x56, 0x34, 0x12,
		0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01,
	};
	uint8_t p[FOX_DATA_HEADER];

	(void)state;
	fox_data_header(p, 0x12345678u, 0x0102030405060708ull);
	assert_memory_equal(p, want, sizeof(want));
}

static void test_config(void **state)
{
	struct view_config c;
	struct skin_error err;
	char path[1024];

	(void)state;
	view_config_init(&c);
	assert_string_equal(c.address, "127.0.0.1");
	assert_int_equal(c.port, 8765);
	assert_string_equal(c.token, "");
	/* the shipped file loads, and says what the defaults are */
	snprintf(path, sizeof(path), "%s/bridges/view/skin-view.conf", SKIN_SOURCE_ROOT);
	assert_int_equal(view_config_load(&c, path, &err), 0);
	assert_string_equal(c.address, "127.0.0.1");
	assert_int_equal(c.max_clients, 64);

	view_config_init(&c);
	assert_int_equal(view_config_parse(&c, "[view]\naddress = ::1\nport = 9000\n"
					   "token = 0123456789abcdef\n", "t", &err), 0);
	assert_string_equal(c.address, "::1");
	assert_int_equal(c.port, 9000);
	assert_string_equal(c.token, "0123456789abcdef");

	/* a file with a token that every user may read is refused */
	{
		char tmp[] = "/tmp/skin-view-token.XXXXXX";
		int fd = mkstemp(tmp);
		static const char text[] = "[view]\ntoken = 0123456789abcdef\n";

		assert_true(fd >= 0);
		assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)sizeof(text) - 1);
		close(fd);
		assert_int_equal(chmod(tmp, 0644), 0);
		view_config_init(&c);
		assert_int_equal(view_config_load(&c, tmp, &err), -EACCES);
		assert_non_null(strstr(err.text, "holds a token, and every user may read it: chmod o-rw"));
		assert_int_equal(chmod(tmp, 0640), 0);
		view_config_init(&c);
		assert_int_equal(view_config_load(&c, tmp, &err), 0);
		assert_string_equal(c.token, "0123456789abcdef");
		unlink(tmp);
	}

	view_config_init(&c);
	assert_int_equal(view_config_parse(&c, "[view]\naddress = localhost\n", "t", &err), -EINVAL);
	assert_string_equal(err.text, "t:2:11: address = 'localhost': expected an IPv4 or IPv6 address (0.0.0.0 or :: for every interface)");
	assert_int_equal(view_config_parse(&c, "[view]\nport = 0\n", "t", &err), -EINVAL);
	assert_int_equal(view_config_parse(&c, "[view]\ntoken = short\n", "t", &err), -EINVAL);
	assert_int_equal(view_config_parse(&c, "[view]\ndata_dir = relative\n", "t", &err), -EINVAL);
	assert_int_equal(view_config_parse(&c, "[bridge]\n", "t", &err), -EINVAL);
	assert_int_equal(view_config_parse(&c, "[view]\nnosuch = 1\n", "t", &err), -EINVAL);
	view_config_init(&c);
	assert_int_equal(view_config_parse(&c, "[view]\nmax_clients = 4\nmax_per_address = 5\n",
					   "t", &err), -EINVAL);
	view_config_init(&c);
	assert_int_equal(view_config_parse(&c, "[view]\nmax_connections = 16\n"
					   "max_connections_per_address = 17\n", "t", &err), -EINVAL);
}

/* man/skin-view.8's [view] keys are the table's, line for line, up to
 * the next section or subsection (test_view_fox --man prints them) */
static void test_man_page(void **state)
{
	const struct conf_key *t;
	char *page = NULL, *from, *to, *want;
	size_t n = 0, nk;
	FILE *f;

	(void)state;
	f = fopen(SKIN_SOURCE_ROOT "/man/skin-view.8", "r");
	assert_non_null(f);
	assert_true(getdelim(&page, &n, '\0', f) > 0);
	fclose(f);
	from = strstr(page, ".SS [view]\n");
	assert_non_null(from);
	from += strlen(".SS [view]\n");
	to = strstr(from, ".SH ");
	assert_non_null(to);
	if (strstr(from, ".SS ") && strstr(from, ".SS ") < to)
		to = strstr(from, ".SS ");
	t = view_config_keys(&nk);
	want = conf_keys_man(t, nk);
	assert_non_null(want);
	if ((size_t)(to - from) != strlen(want) || memcmp(from, want, strlen(want)))
		fail_msg("man/skin-view.8's [view] differs from bridges/view/config.c's table:\n%s", want);
	free(want);
	free(page);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_server_info),
		cmocka_unit_test(test_advertise),
		cmocka_unit_test(test_services),
		cmocka_unit_test(test_unadvertise_status),
		cmocka_unit_test(test_requests),
		cmocka_unit_test(test_data_header),
		cmocka_unit_test(test_config),
		cmocka_unit_test(test_man_page),
	};

	if (argc > 1 && !strcmp(argv[1], "--man")) {
		size_t n;
		const struct conf_key *t = view_config_keys(&n);
		char *man = conf_keys_man(t, n);

		fputs(man ? man : "", stdout);
		free(man);
		return man ? 0 : 1;
	}

	return cmocka_run_group_tests(tests, NULL, NULL);
}
