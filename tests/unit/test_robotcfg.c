// SPDX-License-Identifier: GPL-2.0
/*
 * test_robotcfg.c - skinctl import robots-configuration (robotcfg.c) on
 * the real files: iCubGenova11's robot folder and iCubGenova04's skin
 * files (tests/data/icub/robots-configuration/), the outputs read back by
 * the libraries that will read them (lib/model's skind.conf, lib/eth's
 * board specs, the YARP bridge's configuration), and malformed copies.
 *
 * The expected values are read by hand from the XML, named at each check.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include <skin/ethrx.h>
#include <skin/model.h>

#include "config.h"
#include "robotcfg.h"

#define DATA SKIN_SOURCE_ROOT "/tests/data/icub"
#define G11 DATA "/robots-configuration/iCubGenova11"
#define G04 DATA "/robots-configuration/iCubGenova04"

static char tmp[64];

static int make_tmp(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test_robotcfg.XXXXXX");
	return mkdtemp(tmp) ? 0 : -1;
}

static int remove_tmp(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

static void run(const char *fmt, ...)
{
	char cmd[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	assert_int_equal(system(cmd), 0);
}

static void write_out(const struct robotcfg *r, const char *name,
		      void (*writer)(const struct robotcfg *, FILE *))
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmp, name);
	f = fopen(path, "w");
	assert_non_null(f);
	writer(r, f);
	assert_int_equal(fclose(f), 0);
}

static const struct skin_part *part(const struct skin_model *m, const char *name)
{
	unsigned int i;

	for (i = 0; i < m->n_parts; i++)
		if (!strcmp(m->parts[i].name, name))
			return &m->parts[i];
	fail_msg("no part %s", name);
	return NULL;
}

/* The k-th patch of a part: its bus and address */
static void expect_patch(const struct skin_model *m, const char *name,
			 unsigned int k, const char *bus, int addr)
{
	const struct skin_part *p = part(m, name);
	const struct skin_patch *pt;

	assert_true(k < p->n_patches);
	pt = &m->patches[p->first_patch + k];
	assert_int_equal(pt->order, k);
	assert_string_equal(pt->bus, bus);
	assert_int_equal(pt->address, addr);
}

/* The values skind.conf gives board BUS:ADDRESS */
static const struct skin_config_board *board_of(const struct skin_config *c,
						const char *bus, int addr)
{
	unsigned int i, j;

	for (i = 0; i < c->n_parts; i++)
		for (j = 0; j < c->parts[i].n_patches; j++) {
			const struct skin_config_patch *pt = &c->parts[i].patches[j];

			if (pt->address == addr && !strcmp(c->buses[pt->bus].name, bus))
				return &pt->board;
		}
	fail_msg("no board %s:%d", bus, addr);
	return NULL;
}

/* Every imported bus is tapped: skind's patches send the boards nothing */
static void expect_listen_only(const struct skin_config *c)
{
	unsigned int i;

	for (i = 0; i < c->n_buses; i++)
		if (!c->buses[i].listen_only)
			fail_msg("[bus %s] is not listen_only", c->buses[i].name);
}

static bool has_note(const struct robotcfg *r, const char *text)
{
	unsigned int i;

	for (i = 0; i < robotcfg_n_notes(r); i++)
		if (strstr(robotcfg_note(r, i), text))
			return true;
	return false;
}

static void test_genova11(void **state)
{
	struct skin_error err;
	struct skin_config *c;
	struct skin_model *m;
	struct robotcfg *r;
	struct skin_eth_rx *rx;
	struct yb_config yc;
	char path[256], line[256], why[512];
	unsigned int i, k, n_taxels = 0;
	FILE *f;

	(void)state;
	r = robotcfg_read(G11, &err);
	if (!r)
		fail_msg("%s", err.text);
	assert_int_equal(robotcfg_find_geometry(r, DATA "/positions", &err), 0);
	write_out(r, "skind.conf", robotcfg_write_skind);
	write_out(r, "skin-eth.boards", robotcfg_write_boards);
	write_out(r, "skin-yarp.conf", robotcfg_write_yarp);
	/* the hand's triangles 0..6 (left_arm-eb24-j4_7-skinSpec.xml:25,
	 * right_arm-eb27-j4_7-skinSpec.xml:26: shift 0, cdcOffset 0x2000)
	 * are the only settings off the defaults; every other set repeats
	 * them, and no board set (specialCfgBoards) exists */
	assert_int_equal(robotcfg_n_notes(r), 2);
	assert_true(has_note(r, "left_arm-eb24-j4_7-skinSpec.xml:25: board eb24can1:14 triangles 0..6: enabled 1, shift 0, cdc_offset 0x2000"));
	assert_true(has_note(r, "right_arm-eb27-j4_7-skinSpec.xml:26: board eb27can1:14 triangles 0..6"));
	robotcfg_free(r);

	snprintf(path, sizeof(path), "%s/skind.conf", tmp);
	c = skin_config_load(path, &err);
	if (!c)
		fail_msg("%s", err.text);
	/* every skinSpec's defaultCfgBoard: period 50, skinType 8, noLoad
	 * 0xf0; defaultCfgTriangle: shift 2, cdcOffset 0x2200 */
	assert_int_equal(c->board.period_ms, 50);
	assert_int_equal(c->board.skin_type, 8);
	assert_int_equal(c->board.no_load, 0xf0);
	assert_int_equal(c->board.shift, 2);
	assert_int_equal(c->board.cdc_offset, 0x2200);
	/* 5 boards, 7 CAN ports: the legs' eb10 and eb11 have two */
	assert_int_equal(c->n_buses, 7);
	expect_listen_only(c);
	/* the hand's triangles 0..6 are part of a board: a note, and the
	 * board keeps [board]'s values */
	assert_int_equal(board_of(c, "eb24can1", 14)->cdc_offset, 0x2200);
	assert_int_equal(board_of(c, "eb24can1", 14)->shift, 2);
	m = skin_config_build_model(c, &err);
	if (!m)
		fail_msg("%s", err.text);
	skin_config_free(c);
	/* the 13 ports of wrappers/skin/ *.xml */
	assert_int_equal(m->n_parts, 13);
	for (i = 0; i < m->n_parts; i++)
		n_taxels += m->parts[i].n_taxels;
	/* total_taxels: arms 1344, legs 2496, torso 768 */
	assert_int_equal(n_taxels, 2 * 1344 + 2 * 2496 + 768);

	/* left_arm-eb24-j4_7-skin.xml:10 skinCanAddrsPatch1 14 13 12 11 10 9
	 * 8, one patch (CAN1 of 10.0.1.24); left_arm-skin_wrapper.xml:11-13:
	 * left_hand 0..191 = board 14, left_forearm 192..575 = 13 12,
	 * left_arm 576..1343 = 11 10 9 8 */
	expect_patch(m, "left_hand", 0, "eb24can1", 14);
	expect_patch(m, "left_forearm", 0, "eb24can1", 13);
	expect_patch(m, "left_forearm", 1, "eb24can1", 12);
	expect_patch(m, "left_arm", 0, "eb24can1", 11);
	expect_patch(m, "left_arm", 3, "eb24can1", 8);
	assert_int_equal(part(m, "left_arm")->skin_part, SKIN_LEFT_UPPER_ARM);
	/* left_leg-eb10-skin.xml:10-11: patch 1 (CAN1) 1..7, patch 2 (CAN2)
	 * 13 12 8 9 10 11; embObjSkin puts patch 2's boards first, so
	 * left_leg-skin_wrapper.xml:13 left_foot 0..383 = CAN2's 13 12,
	 * :12 left_leg_lower 384..1151 = CAN2's 8 9 10 11, :11
	 * left_leg_upper 1152..2495 = CAN1's 1..7 */
	expect_patch(m, "left_foot", 0, "eb10can2", 13);
	expect_patch(m, "left_foot", 1, "eb10can2", 12);
	expect_patch(m, "left_leg_lower", 0, "eb10can2", 8);
	expect_patch(m, "left_leg_lower", 3, "eb10can2", 11);
	expect_patch(m, "left_leg_upper", 0, "eb10can1", 1);
	expect_patch(m, "left_leg_upper", 6, "eb10can1", 7);
	assert_int_equal(part(m, "left_leg_upper")->n_taxels, 1344);
	expect_patch(m, "right_foot", 0, "eb11can2", 13);
	/* torso-eb22-skin.xml:11 7 8 9 10 on face-eb22-j0-eln.xml's board */
	expect_patch(m, "torso", 0, "eb22can1", 7);
	expect_patch(m, "torso", 3, "eb22can1", 10);
	assert_int_equal(part(m, "torso")->skin_part, SKIN_FRONT_TORSO);

	/* the gateway's boards, through lib/eth's own parser; each patch's
	 * bus is one of the gateway's interfaces */
	snprintf(path, sizeof(path), "%s/skin-eth.boards", tmp);
	f = fopen(path, "r");
	assert_non_null(f);
	rx = skin_eth_rx_new();
	assert_non_null(rx);
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (line[0] == '#' || !line[0])
			continue;
		if (skin_eth_rx_add_board(rx, line, &err))
			fail_msg("%s: %s", line, err.text);
	}
	fclose(f);
	assert_int_equal(skin_eth_rx_n_boards(rx), 5);
	for (i = 0; i < skin_eth_rx_n_boards(rx); i++) {
		const struct skin_eth_board *b = skin_eth_rx_board(rx, i);

		/* left_leg-eb10-skin-eln.xml: IpAddress 10.0.1.10, two patches */
		if (!strcmp(b->name, "eb10")) {
			assert_int_equal(b->addr.s_addr, inet_addr("10.0.1.10"));
			assert_int_equal(b->n_patches, 2);
			assert_int_equal(b->port[0], 1);
			assert_int_equal(b->port[1], 2);
		}
		if (!strcmp(b->name, "eb24")) {
			assert_int_equal(b->addr.s_addr, inet_addr("10.0.1.24"));
			assert_int_equal(b->n_patches, 1);
			assert_int_equal(b->port[0], 1);
		}
	}
	for (i = 0; i < m->n_patches; i++) {
		bool found = false;

		for (k = 0; k < skin_eth_rx_n_boards(rx) && !found; k++) {
			const struct skin_eth_board *b = skin_eth_rx_board(rx, k);
			unsigned int p;

			for (p = 0; p < b->n_patches; p++)
				found |= !strcmp(b->ifname[p], m->patches[i].bus);
		}
		if (!found)
			fail_msg("bus %s is no gateway interface", m->patches[i].bus);
	}
	skin_eth_rx_free(rx);

	/* the bridge names each raw port as the robot's wrapper does */
	snprintf(path, sizeof(path), "%s/skin-yarp.conf", tmp);
	yb_config_defaults(&yc);
	if (yb_config_load(&yc, path, why, sizeof(why)))
		fail_msg("%s", why);
	for (i = 0; i < m->n_parts; i++)
		assert_string_equal(yb_config_port_name(&yc, m->parts[i].name,
							m->parts[i].skin_part),
				    m->parts[i].name);
	skin_model_free(m);
}

/* iCubGenova04's arm skinSpec on the same board: the hand's board is
 * skinType 1 (palm and fingertips, specialCfgBoards), the arm's others 0
 * (its defaultCfgBoard), every other device's 8; triangles off but for
 * the listed sets.  [board] has what most boards have, each other board
 * its own [board BUS:ADDRESS]; the sets of part of a board stay notes. */
static void test_genova04_hand(void **state)
{
	struct skin_error err;
	struct skin_config *c;
	struct robotcfg *r;
	char path[256];

	(void)state;
	run("cp -r '%s' '%s/robot'", G11, tmp);
	run("cp '%s/left_arm-eb24-j4_7-skinSpec.xml' '%s/robot/hardware/skin/'", G04, tmp);
	snprintf(path, sizeof(path), "%s/robot", tmp);
	r = robotcfg_read(path, &err);
	if (!r)
		fail_msg("%s", err.text);
	/* iCubGenova04 left_arm-eb24-j4_7-skinSpec.xml:23 boardSetCfg1 is
	 * [board eb24can1:14], no note */
	assert_false(has_note(r, "boards eb24can1:14"));
	assert_true(has_note(r, "defaultCfgTriangle enabled false"));
	/* :38 triangleSetCfg3, board 13 all on, the defaults: the board's
	 * values; :35, the hand's triangles 0..6, part of a board: a note */
	assert_false(has_note(r, "board eb24can1:13 triangles 0..15"));
	assert_true(has_note(r, "left_arm-eb24-j4_7-skinSpec.xml:35: board eb24can1:14 triangles 0..6: enabled 1, shift 0, cdc_offset 0x2000"));
	assert_int_equal(robotcfg_find_geometry(r, DATA "/positions", &err), 0);
	write_out(r, "skind.conf", robotcfg_write_skind);
	robotcfg_free(r);
	snprintf(path, sizeof(path), "%s/skind.conf", tmp);
	c = skin_config_load(path, &err);
	if (!c)
		fail_msg("%s", err.text);
	/* 37 boards of skinType 8 (the legs', the torso's, the right arm's) */
	assert_int_equal(c->board.skin_type, 8);
	assert_int_equal(c->board.period_ms, 50);
	assert_int_equal(board_of(c, "eb24can1", 14)->skin_type, 1);
	assert_int_equal(board_of(c, "eb24can1", 13)->skin_type, 0);
	assert_int_equal(board_of(c, "eb24can1", 8)->skin_type, 0);
	assert_int_equal(board_of(c, "eb27can1", 14)->skin_type, 8);
	assert_int_equal(board_of(c, "eb10can2", 13)->skin_type, 8);
	assert_int_equal(board_of(c, "eb24can1", 14)->no_load, 0xf0);
	expect_listen_only(c);
	skin_config_free(c);
	run("grep -qx '\\[board eb24can1:14\\]' '%s/skind.conf'", tmp);
	run("test $(grep -c '^\\[board ' '%s/skind.conf') = 7", tmp);
}

/* iCubGenova04's skin file is yarprobotinterface 1.0's: its includes are
 * relative to the robot's folder; general.xml is not in tests/data */
static void test_genova04_missing_include(void **state)
{
	struct skin_error err;
	char path[256];

	(void)state;
	run("mkdir -p '%s/g04/hardware/skin' '%s/g04/wrappers/skin'", tmp, tmp);
	run("cp '%s/left_arm-eb24-j4_7-skin.xml' '%s/left_arm-eb24-j4_7-skinSpec.xml' '%s/g04/hardware/skin/'",
	    G04, G04, tmp);
	snprintf(path, sizeof(path), "%s/g04", tmp);
	assert_null(robotcfg_read(path, &err));
	assert_non_null(strstr(err.text, "hardware/skin/left_arm-eb24-j4_7-skin.xml:6:"));
	assert_non_null(strstr(err.text, "g04/general.xml: cannot open"));
}

/* A copy of iCubGenova11 with one file changed; the error's FILE:LINE and
 * what it expected */
static void expect_error(const char *file, const char *from, const char *to,
			 const char *where, const char *what)
{
	struct skin_error err;
	char path[256];
	struct robotcfg *r;

	run("rm -rf '%s/bad' && cp -r '%s' '%s/bad'", tmp, G11, tmp);
	if (from)
		run("sed -i 's|%s|%s|' '%s/bad/%s'", from, to, tmp, file);
	else
		run("rm '%s/bad/%s'", tmp, file);
	snprintf(path, sizeof(path), "%s/bad", tmp);
	r = robotcfg_read(path, &err);
	if (r) {
		robotcfg_free(r);
		fail_msg("%s: accepted", file);
	}
	if (!strstr(err.text, where) || !strstr(err.text, what))
		fail_msg("got \"%s\", expected %s and %s", err.text, where, what);
}

static void test_malformed(void **state)
{
	(void)state;
	/* the eln file torso-eb22-skin.xml:9 includes */
	expect_error("hardware/electronics/face-eb22-j0-eln.xml", NULL, NULL,
		     "hardware/skin/torso-eb22-skin.xml:9:", "face-eb22-j0-eln.xml: cannot open");
	expect_error("hardware/skin/left_arm-eb24-j4_7-skin.xml", " 9 8 ", " 9 99 ",
		     "hardware/skin/left_arm-eb24-j4_7-skin.xml:10:",
		     "\"99\": expected integers 0..15");
	expect_error("hardware/skin/torso-eb22-skin.xml", "type=\"embObjSkin\"", "type=\"skin\"",
		     "hardware/skin/torso-eb22-skin.xml:5:", "type \"skin\": expected embObjSkin");
	expect_error("hardware/electronics/face-eb22-j0-eln.xml", "10.0.1.22", "10.0.1.x",
		     "hardware/electronics/face-eb22-j0-eln.xml:11:", "expected an IPv4 address");
	expect_error("hardware/skin/left_arm-eb24-j4_7-skinSpec.xml", "<group name=\"defaultCfgBoard\">",
		     "<group name=\"defaultCfgBoard\"><",
		     "left_arm-eb24-j4_7-skinSpec.xml:6:", ": XML: ");
	/* torso's board at the left arm's address: lib/eth refuses the
	 * second board, at the line of its address */
	expect_error("hardware/electronics/face-eb22-j0-eln.xml", "10.0.1.22", "10.0.1.24",
		     "hardware/electronics/face-eb22-j0-eln.xml:11:", "is already configured");
	/* :25 triangleSetCfg1 on board 14; 7 is no board of the patch */
	expect_error("hardware/skin/left_arm-eb24-j4_7-skinSpec.xml",
		     "triangleSetCfg1\">      1            14", "triangleSetCfg1\">      1            7",
		     "left_arm-eb24-j4_7-skinSpec.xml:25:", "expected a board of patch 1");
	expect_error("wrappers/skin/torso-skin_wrapper.xml", "torso-eb22-skin <", "torso-eb99-skin <",
		     "wrappers/skin/torso-skin_wrapper.xml:18:", "expected the name of an embObjSkin device");
	expect_error("wrappers/skin/torso-skin_wrapper.xml", "768 ", "769 ",
		     "wrappers/skin/torso-skin_wrapper.xml:7:", "expected the sum of the ports");
	expect_error("wrappers/skin/left_arm-skin_wrapper.xml", "192 575  0 383", "192 575  0 384",
		     "wrappers/skin/left_arm-skin_wrapper.xml:12:", "wTop - wBase = top - base");
}

/* A port that is not whole boards: no part, a note, the rest imported */
static void test_partial_board(void **state)
{
	struct skin_error err;
	struct skin_config *c;
	struct robotcfg *r;
	char path[256];

	(void)state;
	run("rm -rf '%s/part' && cp -r '%s' '%s/part'", tmp, G11, tmp);
	run("sed -i 's|0 767 0 767|0 99 0 99</elem><elem name=\"torso_rest\">100 767 0 667|' '%s/part/wrappers/skin/torso-skin_wrapper.xml'",
	    tmp);
	snprintf(path, sizeof(path), "%s/part", tmp);
	r = robotcfg_read(path, &err);
	if (!r)
		fail_msg("%s", err.text);
	assert_true(has_note(r, "port torso: values 0..99 are not whole boards"));
	assert_true(has_note(r, "port torso_rest: values 100..767 are not whole boards"));
	assert_true(has_note(r, "board eb22can1:7 is in no wrapper's port"));
	robotcfg_free(r);

	/* the torso's boards of skinType 1, in no part: no [board BUS:ADDRESS]
	 * for them (it would name a board of no patch) */
	run("sed -i 's|<param name=\"skinType\">      8  </param>|<param name=\"skinType\"> 1 </param>|' '%s/part/hardware/skin/torso-eb22-skinSpec.xml'",
	    tmp);
	run("grep -q '\"skinType\"> 1 <' '%s/part/hardware/skin/torso-eb22-skinSpec.xml'", tmp);
	r = robotcfg_read(path, &err);
	if (!r)
		fail_msg("%s", err.text);
	assert_int_equal(robotcfg_find_geometry(r, DATA "/positions", &err), 0);
	write_out(r, "skind.conf", robotcfg_write_skind);
	robotcfg_free(r);
	run("test $(grep -c '^\\[board ' '%s/skind.conf') = 0", tmp);
	snprintf(path, sizeof(path), "%s/skind.conf", tmp);
	c = skin_config_load(path, &err);
	if (!c)
		fail_msg("%s", err.text);
	assert_int_equal(c->board.skin_type, 8);
	skin_config_free(c);
}

/* The program: its three files, the notes on stderr, its exit status */
static void test_program(void **state)
{
	char cmd[1024], path[256];
	struct skin_config *c;
	struct skin_error err;
	FILE *f;
	int status;

	(void)state;
	snprintf(cmd, sizeof(cmd),
		 "'%s' import robots-configuration '%s' --output-dir '%s' --geometry-dir '%s' >'%s/out' 2>'%s/err'",
		 SKINCTL, G11, tmp, DATA "/positions", tmp, tmp);
	assert_int_equal(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/skind.conf", tmp);
	c = skin_config_load(path, &err);
	if (!c)
		fail_msg("%s", err.text);
	assert_int_equal(c->n_parts, 13);
	skin_config_free(c);
	run("grep -qx '%s/skin-eth.boards' '%s/out'", tmp, tmp);
	run("grep -qx 'eb10=10.0.1.10:1,2' '%s/skin-eth.boards'", tmp);
	run("test $(grep -c '^note: ' '%s/err') = 2", tmp);
	/* without geometry: written, refused by the load check, exit 1 */
	snprintf(cmd, sizeof(cmd),
		 "'%s' import robots-configuration '%s' --output-dir '%s' --no-geometry 2>'%s/err'",
		 SKINCTL, G11, tmp, tmp);
	status = system(cmd);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	run("grep -q 'does not load: .*skind.conf:[0-9]*:1: \\[part left_hand\\]: expected a layout, a geometry file or both' '%s/err'",
	    tmp);
	/* an error: FILE:LINE on stderr, exit 1, nothing written */
	snprintf(cmd, sizeof(cmd), "'%s' import robots-configuration '%s' --output-dir '%s/none' 2>'%s/err'",
		 SKINCTL, DATA, tmp, tmp);
	status = system(cmd);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	run("grep -q 'hardware/skin: cannot read' '%s/err'", tmp);
	/* usage */
	snprintf(cmd, sizeof(cmd), "'%s' import robot-configuration '%s' 2>/dev/null", SKINCTL, G11);
	status = system(cmd);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 2);
	f = fopen(path, "r");
	assert_non_null(f);
	fclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_genova11, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_genova04_hand, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_genova04_missing_include, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_malformed, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_partial_board, make_tmp, remove_tmp),
		cmocka_unit_test_setup_teardown(test_program, make_tmp, remove_tmp),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
