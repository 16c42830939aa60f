// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - skin-view: skind's parts in a browser and in Foxglove
 *
 * A process of its own on skind's public outputs, as the bridges are
 * (skin/follow.h: the socket's wakeups, the shared memory's copies), so
 * that no browser ever reaches skind's sample path.  This file is the
 * command line and the follower: each of skind's objects sets the parts
 * served and, for a new configuration, their layout (skind.conf read
 * again), and each part's sample goes to view_publish_part() (view.h:
 * the part channels and /skin/layout); the health (health.h: a second
 * connection to skind's socket) is asked for a round when the follower
 * sees a change, and publishes /skin/health.  A part that a reload keeps
 * (same name and taxel count) keeps its channels; a part that goes loses
 * them.  docs/VIEW.md.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <skin/client.h>
#include <skin/follow.h>
#include <skin/model.h>

#include "config.h"
#include "follow_source.h"
#include "health.h"
#include "log.h"
#include "server.h"
#include "service.h"
#include "skin_clock.h"
#include "view.h"

#define DEFAULT_CONFIG	"/etc/skin/skin-view.conf"

/* The taxel flags that say a fault (include/skin/shm.h, 1.4): bits 3..7 */
#define FAULT_FLAGS	0xf8u

struct app {
	struct view *view;
	struct server *srv;
	struct health *health;
	uint32_t health_chan;
	unsigned int *faulty;		/* per part: taxels with a fault flag */
	unsigned int n_faulty;
	const struct view_config *cfg;
	const char *skind_config;
	uint64_t instance, generation;	/* the object the layout is of */
	bool have_layout;
};

/* skind.conf's model: the parts' slots, wiring and flattening.  NULL with
 * @why when it cannot be read. */
static struct skin_model *skind_model(const char *path, double *add_threshold,
				      char *why, size_t why_len)
{
	struct skin_config *c;
	struct skin_model *m = NULL;
	struct skin_error err;

	c = skin_config_load(path, &err);
	if (c) {
		*add_threshold = c->comp.add_threshold;
		m = skin_config_build_model(c, &err);
	}
	if (!m)
		snprintf(why, why_len, "skind's configuration: %s", err.text);
	skin_config_free(c);
	return m;
}

/* --check: how skind.conf's parts would be drawn.  What cannot be used
 * is said (the journal's warnings at run time), not fatal: skin-view
 * draws those parts from the flattening. */
static void check_layouts(const struct view_config *cfg)
{
	struct view_layout_want *want;
	struct skin_model *m;
	struct view_layout l;
	double add;
	char why[1300];
	unsigned int i;

	m = skind_model(cfg->skind_config, &add, why, sizeof(why));
	if (!m) {
		printf("layouts: %s\n", why);
		return;
	}
	want = calloc(m->n_parts ? m->n_parts : 1, sizeof(*want));
	if (want) {
		for (i = 0; i < m->n_parts; i++)
			want[i] = (struct view_layout_want){ m->parts[i].name,
							     m->parts[i].skin_part,
							     m->parts[i].n_taxels, NULL };
		if (!view_layout_build(&l, m, NULL, cfg, want, m->n_parts, 0)) {
			for (i = 0; i < l.n_parts; i++)
				printf("part %s: %u of %u slots placed: %s\n", l.parts[i].name,
				       l.parts[i].n_placed, l.parts[i].n, l.parts[i].source);
			view_layout_free(&l);
		}
	}
	free(want);
	skin_model_free(m);
}

/* The layout of the object just attached, when it is a new one (a
 * reload's generation, or another skind) */
static void layout_of(struct app *a, const struct skin_follow_sample *s)
{
	const struct skin_shm_map *m = s->map;
	unsigned int n = skin_shm_n_parts(m), i;
	const uint8_t **flags;
	void **blocks;
	struct skin_model *model;
	double add = 0;
	char why[1300];
	uint64_t t0;

	if (a->have_layout && a->instance == m->hdr->instance &&
	    a->generation == m->hdr->generation)
		return;
	flags = calloc(n ? n : 1, sizeof(*flags));
	blocks = calloc(n ? n : 1, sizeof(*blocks));
	if (!flags || !blocks) {
		log_err("layout: out of memory");
		free(flags);
		free(blocks);
		return;
	}
	/* the kinds of a part skind.conf lacks: its taxel flags, from a
	 * copy of its block (none of the follower's has come yet) */
	for (i = 0; i < n; i++) {
		blocks[i] = malloc(skin_shm_part(m, i)->size);
		if (blocks[i] && !skin_shm_read_part(m, i, blocks[i], 100))
			flags[i] = skin_shm_flags(m, i, blocks[i]);
	}
	/* once per configuration, in the loop: 0.1 s for the full body's
	 * files (the clients wait that long once per reload) */
	t0 = clock_monotonic_ns();
	model = skind_model(a->skind_config, &add, why, sizeof(why));
	if (!model)
		log_warn("%s: the parts are drawn without positions", why);
	else
		view_set_add_threshold(a->view, add);
	if (!view_set_layout(a->view, model, why, flags, m->hdr->generation)) {
		a->have_layout = true;
		a->instance = m->hdr->instance;
		a->generation = m->hdr->generation;
		log_info("layout built from %s in %.0f ms", a->skind_config,
			 (clock_monotonic_ns() - t0) / 1e6);
	}
	skin_model_free(model);
	for (i = 0; i < n; i++)
		free(blocks[i]);
	free(blocks);
	free(flags);
}

static void attach(struct app *a, const struct skin_follow_sample *s)
{
	const struct skin_shm_map *m = s->map;
	unsigned int n = skin_shm_n_parts(m), i;
	struct view_part_desc *d = calloc(n ? n : 1, sizeof(*d));

	if (!d) {
		log_err("out of memory: nothing served until skind's next object");
		return;
	}
	for (i = 0; i < n; i++) {
		const struct skin_shm_part_desc *pd = skin_shm_part(m, i);

		d[i] = (struct view_part_desc){ pd->name, (enum skin_part_id)pd->skin_part,
						pd->n_taxels };
	}
	if (view_set_parts(a->view, d, n) < 0) {
		free(d);
		log_err("out of memory: nothing served until skind's next object");
		return;
	}
	free(d);
	free(a->faulty);
	a->faulty = calloc(n ? n : 1, sizeof(*a->faulty));
	a->n_faulty = a->faulty ? n : 0;
	health_poke(a->health);
	log_info("attached to skind (pid %u, generation %llu): %u parts served",
		 m->hdr->pid, (unsigned long long)m->hdr->generation, n);
	layout_of(a, s);
}

/* A sample of skind's shared memory, to view_publish_part() */
static void sample(struct app *a, const struct skin_follow_sample *s)
{
	const struct skin_shm_map *m = s->map;
	const struct skin_shm_part *head = skin_shm_head(s->block);
	const struct skin_shm_part_desc *d = skin_shm_part(m, s->part);
	struct view_sample vs = {
		.frame_ns = head->frame_ts_ns ? head->frame_ts_ns : head->publish_ns,
		.sample = head->samples,
		.state = head->state,
		.raw = skin_shm_raw(m, s->part, s->block),
		.values = skin_shm_values(m, s->part, s->block),
		.flags = skin_shm_flags(m, s->part, s->block),
		.baselines = skin_shm_baselines(m, s->part, s->block),
		.thresholds = skin_shm_thresholds(m, s->part, s->block),
		.contacts = skin_shm_contact(m, s->part, s->block, 0),
		.contact_stride = m->contact_size,
		.n_contacts = head->n_contacts,
		.contact_taxels = skin_shm_contact_taxels(m, s->part, s->block),
		.n_contact_taxels = head->n_contact_taxels,
	};
	int rc;

	unsigned int i, faulty = 0;

	if (vs.n_contacts > d->max_contacts)
		vs.n_contacts = d->max_contacts;
	rc = view_publish_part(a->view, s->part, &vs);
	/* a taxel that became faulty or healthy: /skin/health soon */
	for (i = 0; i < d->n_taxels; i++)
		faulty += (vs.flags[i] & FAULT_FLAGS) != 0;
	if (s->part < a->n_faulty && a->faulty[s->part] != faulty) {
		a->faulty[s->part] = faulty;
		health_poke(a->health);
	}
	if (rc && rc != -ENOENT)
		log_warn("part %s: a sample not served: %s", d->name, strerror(-rc));
}

static void on_event(struct skin_follow *f, enum skin_follow_event ev,
		     const struct skin_follow_sample *s, void *data)
{
	struct app *a = data;

	(void)f;
	switch (ev) {
	case SKIN_FOLLOW_ATTACHED:
		attach(a, s);
		break;
	case SKIN_FOLLOW_SAMPLE:
		sample(a, s);
		break;
	case SKIN_FOLLOW_DETACHED:
		/* the channels stay: skind is expected back */
		view_detach(a->view);
		health_poke(a->health);
		log_info("skind went away (%s): waiting for it",
			 strerror(-s->reason));
		break;
	case SKIN_FOLLOW_STATE:
		/* a patch attached or left, a calibration: the parts' lines */
		health_poke(a->health);
		break;
	}
}

static void health_publish(void *data, const char *json, size_t len, uint64_t real_ns)
{
	struct app *a = data;

	server_publish(a->srv, a->health_chan, (const uint8_t *)json, len, real_ns);
}

static void health_add_threshold(void *data, double value)
{
	struct app *a = data;

	view_set_add_threshold(a->view, value);
}

/* Room for max_connections descriptors, as far as the hard limit goes */
static void raise_nofile(unsigned int want)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) || rl.rlim_cur >= want)
		return;
	rl.rlim_cur = rl.rlim_max < want ? rl.rlim_max : want;
	if (setrlimit(RLIMIT_NOFILE, &rl))
		log_warn("descriptors: %s", strerror(errno));
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: skin-view [OPTIONS]\n"
		"Serve skind's parts to browsers and Foxglove (HTTP, WebSocket).\n\n"
		"  -c, --config FILE  configuration (default " DEFAULT_CONFIG ",\n"
		"                     defaults when that file does not exist)\n"
		"  -s, --socket PATH  skind's socket (overrides the configuration)\n"
		"      --skind-config FILE  skind's configuration, for the parts' layout\n"
		"                     (overrides skind_config; default /etc/skin/skind.conf)\n"
		"      --check        check the configuration and exit\n"
		"  -h, --help         this text, then exit\n"
		"      --version      \"skin-view VERSION\", then exit\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "skind-config", required_argument, NULL, 'K' },
		{ "check", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *socket_path = NULL, *skind_config = NULL;
	struct skin_follow_options fo = { 0 };
	struct follow_source *fs = NULL;
	static const struct health_ops health_ops = {
		.publish = health_publish, .add_threshold = health_add_threshold,
	};
	struct server *srv = NULL;
	struct view_config cfg;
	int64_t id;
	struct skin_error err;
	struct app a;
	sd_event *e = NULL;
	bool check = false;
	int o, rc;

	log_init("skin-view", LOG_INFO, 0);
	while ((o = getopt_long(argc, argv, "c:s:h", opts, NULL)) != -1) {
		switch (o) {
		case 'c': config = optarg; break;
		case 's': socket_path = optarg; break;
		case 'K': skind_config = optarg; break;
		case 'k': check = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': puts("skin-view " SKIN_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	view_config_init(&cfg);
	if ((config || access(DEFAULT_CONFIG, F_OK) == 0) &&
	    view_config_load(&cfg, config ? config : DEFAULT_CONFIG, &err)) {
		log_err("%s", err.text);
		return 1;
	}
	if (skind_config)
		snprintf(cfg.skind_config, sizeof(cfg.skind_config), "%s", skind_config);
	if (check) {
		printf("%s: http://%s:%u/ (data %s), %u clients, %u per address, actions %s\n",
		       config ? config : DEFAULT_CONFIG, cfg.address, cfg.port,
		       cfg.data_dir, cfg.max_clients, cfg.max_per_address,
		       cfg.token[0] ? "with the token" : "none");
		check_layouts(&cfg);
		return 0;
	}

	memset(&a, 0, sizeof(a));
	a.cfg = &cfg;
	a.skind_config = cfg.skind_config;
	raise_nofile(cfg.max_connections + 64);
	rc = service_init(&e);
	if (rc < 0) {
		log_err("sd-event: %s", strerror(-rc));
		return 1;
	}
	rc = server_new(&srv, e, &cfg);
	if (rc)
		goto out;
	rc = view_new(&a.view, srv, &cfg);
	if (rc)
		goto out;
	fo.socket = socket_path ? socket_path : cfg.socket[0] ? cfg.socket : NULL;
	id = server_channel_add(srv, NULL, FOX_HEALTH);
	rc = id < 0 ? (int)id : health_new(&a.health, e, &cfg, fo.socket, &health_ops, &a);
	if (rc)
		goto out;
	a.srv = srv;
	a.health_chan = (uint32_t)id;
	rc = follow_source_new(&fs, e, &fo, on_event, &a);
	if (rc) {
		log_err("following skind: %s", strerror(-rc));
		goto out;
	}
	log_info("serving http://%s%s%s:%u/ from %s: following skind",
		 strchr(cfg.address, ':') ? "[" : "", cfg.address,
		 strchr(cfg.address, ':') ? "]" : "", cfg.port, cfg.data_dir);
	service_ready(NULL);
	rc = service_run_beside(e, server_wait, srv);
	{
		struct server_stats st;
		uint64_t enc_n, enc_ns;

		server_stats(srv, &st);
		view_encode_cost(a.view, &enc_n, &enc_ns);
		log_info("encoded %llu part samples, %.1f us each (the four channels of a part, handed to the server)",
			 (unsigned long long)enc_n, enc_n ? enc_ns / 1e3 / enc_n : 0.0);
		log_info("served %llu clients (%llu refused over a cap), %llu samples sent, %llu replaced unsent; closed: %llu idle, %llu stalled, %llu malformed, %llu oversized, %llu queue full; %llu connections hung up over the cap per address",
			 (unsigned long long)st.accepted, (unsigned long long)st.refused_cap,
			 (unsigned long long)st.frames, (unsigned long long)st.replaced,
			 (unsigned long long)st.closed_idle, (unsigned long long)st.closed_stalled,
			 (unsigned long long)st.closed_malformed,
			 (unsigned long long)st.closed_oversize,
			 (unsigned long long)st.closed_queue,
			 (unsigned long long)st.refused_addr);
	}
out:
	follow_source_free(fs);
	health_free(a.health);
	view_free(a.view);
	free(a.faulty);
	server_free(srv);
	sd_event_unref(e);
	return rc ? 1 : 0;
}
