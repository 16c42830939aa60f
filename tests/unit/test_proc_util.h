/* SPDX-License-Identifier: GPL-2.0 */
/*
 * test_proc_util.h - models, frames and feeding for the test_proc* programs
 */
#ifndef TEST_PROC_UTIL_H
#define TEST_PROC_UTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "skin/model.h"
#include "skin/proc.h"

/* A strip of 4 taxels, 10 mm apart along y (idx 0..3 of one patch);
 * taxel 1 is turned a quarter turn about x: its normal is (0, -1, 0). */
static const char strip_urdf[] =
	"<robot name=\"t\"><link name=\"strip_link\"/>\n"
	"<sensor name=\"strip\" update_rate=\"50\"><parent link=\"strip_link\"/>\n"
	"<origin xyz=\"0 0 0\" rpy=\"0 0 0\"/><tactile channel=\"strip\">\n"
	"<taxel idx=\"0\" xyz=\"0 0 0\" rpy=\"0 0 0\"><geometry><box size=\"0.005 0.005 0.001\"/></geometry></taxel>\n"
	"<taxel idx=\"1\" xyz=\"0 0.01 0\" rpy=\"1.5707963267948966 0 0\"><geometry><box size=\"0.005 0.005 0.001\"/></geometry></taxel>\n"
	"<taxel idx=\"2\" xyz=\"0 0.02 0\" rpy=\"0 0 0\"><geometry><box size=\"0.005 0.005 0.001\"/></geometry></taxel>\n"
	"<taxel idx=\"3\" xyz=\"0 0.03 0\" rpy=\"0 0 0\"><geometry><box size=\"0.005 0.005 0.001\"/></geometry></taxel>\n"
	"</tactile></sensor></robot>\n";

struct fixture {
	char dir[64];
	struct skin_config *cfg;
	struct skin_model *m;
	struct skin_proc *p;
};

static inline void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(fputs(text, f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
}

/*
 * The form of the per-patch arithmetic the fixtures' processors run
 * (skin_proc_new_opts()): AUTO, the best the CPU has, unless a test that
 * compares the forms sets another (and only one the CPU has).
 */
static enum skin_proc_isa fixture_isa;

static inline void fixture_proc(struct fixture *fx)
{
	const struct skin_proc_opts o = { .isa = fixture_isa };
	struct skin_error err;

	fx->p = skin_proc_new_opts(fx->m, &fx->cfg->comp, &o, &err);
	if (!fx->p)
		fail_msg("proc: %s", err.text);
	if (fixture_isa != SKIN_PROC_ISA_AUTO)
		assert_int_equal(skin_proc_isa(fx->p), fixture_isa);
}

/* The strip as part "strip" on can0:1 with extra [skind] lines. */
static inline void fixture_strip(struct fixture *fx, const char *skind)
{
	char conf[2048], path[128];
	struct skin_error err;

	strcpy(fx->dir, "/tmp/test_proc.XXXXXX");
	assert_non_null(mkdtemp(fx->dir));
	snprintf(path, sizeof(path), "%s/strip.urdf", fx->dir);
	write_file(path, strip_urdf);
	snprintf(conf, sizeof(conf),
		 "[skind]\ncalibration_s = 0.1\nperiod_ms = 20\nmax_neighbor_dist_m = 0.015\n%s\n"
		 "[bus can0]\n[part strip]\nlayout = none\ngeometry = strip.urdf\n"
		 "geometry_format = urdf\npatches = can0:1\n", skind);
	snprintf(path, sizeof(path), "%s/skind.conf", fx->dir);
	fx->cfg = skin_config_load_buffer(conf, strlen(conf), path, &err);
	if (!fx->cfg)
		fail_msg("config: %s", err.text);
	fx->m = skin_config_build_model(fx->cfg, &err);
	if (!fx->m)
		fail_msg("model: %s", err.text);
	fixture_proc(fx);
}

/* etc/skind.conf: the iCub upper body, 7 parts, 18 patches. */
static inline void fixture_icub(struct fixture *fx,
				void (*tweak)(struct skin_config_comp *))
{
	struct skin_error err;
	char path[1024];

	fx->dir[0] = '\0';
	snprintf(path, sizeof(path), "%s/etc/skind.conf", SKIN_SOURCE_ROOT);
	fx->cfg = skin_config_load(path, &err);
	if (!fx->cfg)
		fail_msg("config: %s", err.text);
	if (tweak)
		tweak(&fx->cfg->comp);
	fx->m = skin_config_build_model(fx->cfg, &err);
	if (!fx->m)
		fail_msg("model: %s", err.text);
	fixture_proc(fx);
}

static inline void fixture_done(struct fixture *fx)
{
	char cmd[160];

	skin_proc_free(fx->p);
	skin_model_free(fx->m);
	skin_config_free(fx->cfg);
	if (fx->dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx->dir);
		if (system(cmd))
			fail_msg("cannot remove %s", fx->dir);
	}
}

/* A frame with every triangle refreshed and every value at @fill. */
static inline void frame_init(struct skin_frame *f, uint64_t seq, uint64_t ts,
			      uint8_t fill)
{
	memset(f, 0, sizeof(*f));
	f->seq = seq;
	f->timestamp_ns = ts;
	f->refreshed = 0xffff;
	memset(f->values, fill, sizeof(f->values));
}

#define MS 1000000ull

/* Feed the strip one sample: raw values of taxels 0..3 at t = seq * 20 ms */
static inline int feed4(struct skin_proc *p, uint64_t seq, int r0, int r1,
			int r2, int r3)
{
	struct skin_frame f;

	frame_init(&f, seq, seq * 20 * MS, 240);
	f.values[0] = (uint8_t)r0;
	f.values[1] = (uint8_t)r1;
	f.values[2] = (uint8_t)r2;
	f.values[3] = (uint8_t)r3;
	return skin_proc_feed(p, 0, &f);
}

#endif
