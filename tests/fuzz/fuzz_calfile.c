// SPDX-License-Identifier: GPL-2.0
/*
 * fuzz_calfile.c - libFuzzer harness for skind's calibration file
 * (skin_proc_restore(), lib/proc/calfile.c)
 *
 * The processor is the iCub hand's built-in layout (one part "hand", one
 * board).  Beyond "no crash, no leak, no UB": a refused file names itself
 * and leaves the part as it was; an accepted one saves to a file that
 * restores to the same baselines and thresholds, bit for bit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <skin/proc.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char conf[] =
	"[bus can0]\n[part hand]\nskin_part = left_hand\nlayout = hand_v2_1\npatches = can0:14\n";

static struct skin_config *cfg;
static struct skin_model *model;
static char in_path[64], out_path[64];

static void cleanup(void)
{
	unlink(in_path);
	unlink(out_path);
}

static void setup(void)
{
	struct skin_error err;
	const char *dir;

	cfg = skin_config_load_buffer(conf, strlen(conf), "fuzz.conf", &err);
	model = cfg ? skin_config_build_model(cfg, &err) : NULL;
	if (!model)
		abort();
	/* tmpfs when there is one: on a disk, every input's write, the
	 * save's fsync() and the rename over the last file cost most of the
	 * time (2,100 inputs a second on ext4) */
	dir = access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm";
	snprintf(in_path, sizeof(in_path), "%s/fuzz_calfile.%d.in", dir, (int)getpid());
	snprintf(out_path, sizeof(out_path), "%s/fuzz_calfile.%d.out", dir, (int)getpid());
	atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct skin_proc *p, *q;
	struct skin_error err;
	FILE *f;
	int rc;

	if (!model)
		setup();
	f = fopen(in_path, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	p = skin_proc_new(model, &cfg->comp, &err);
	if (!p)
		abort();
	rc = skin_proc_restore(p, in_path, &err);
	if (rc < 0) {
		if (!strstr(err.text, in_path) ||
		    skin_proc_state(p, 0) != SKIN_PROC_UNCALIBRATED)
			abort();
	} else if (skin_proc_state(p, 0) == SKIN_PROC_RUNNING) {
		if (skin_proc_save(p, out_path, &err))
			abort();
		q = skin_proc_new(model, &cfg->comp, &err);
		if (!q || skin_proc_restore(q, out_path, &err) ||
		    memcmp(skin_proc_baselines(p, 0), skin_proc_baselines(q, 0),
			   model->parts[0].n_taxels * sizeof(double)) ||
		    memcmp(skin_proc_thresholds(p, 0), skin_proc_thresholds(q, 0),
			   model->parts[0].n_taxels * sizeof(double)) ||
		    memcmp(skin_proc_faults(p, 0), skin_proc_faults(q, 0),
			   model->parts[0].n_taxels))
			abort();
		skin_proc_free(q);
	}
	skin_proc_free(p);
	return 0;
}
