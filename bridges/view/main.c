// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - skin-view: skind's parts in a browser and in Foxglove
 *
 * A process of its own on skind's public outputs, as the bridges are
 * (skin/follow.h: the socket's wakeups, the shared memory's copies), so
 * that no browser ever reaches skind's sample path.  Per part it keeps
 * three Foxglove channels, /skin/PART/values, /skin/PART/raw (the ROS 2
 * bridge's topics: tactile_msgs/TactileState) and /skin/PART/contacts
 * (TactileContacts, sent when there are contacts and once when they
 * end, as the ROS 2 bridge does), each sample encoded once in the ROS 2
 * bridge's CDR bytes (cdr.h) and handed to the server (server.h), which
 * sends it to the clients subscribed.  A part that a reload keeps (same
 * name and taxel count) keeps its channels; a part that goes loses them.
 * docs/VIEW.md.
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

#include "actions.h"
#include "cdr.h"
#include "config.h"
#include "follow_source.h"
#include "log.h"
#include "replay.h"
#include "server.h"
#include "service.h"
#include "skin_clock.h"

#define DEFAULT_CONFIG	"/etc/skin/skin-view.conf"
#define N_KINDS		3
#define MAX_BOARDS	64	/* --board, an ETH capture's */

struct view_part {
	char name[SKIN_SHM_NAME_LEN];
	char frame[128];
	unsigned int n_taxels;
	uint32_t chan[N_KINDS];		/* enum fox_kind's order */
	unsigned int last_contacts;
	bool live;
};

struct view {
	struct server *srv;
	struct cdr cdr;
	struct view_part *parts;
	unsigned int n_parts;
	struct view_part **by_index;	/* the object's part i */
	unsigned int n_index;
};

static void part_close(struct view *v, struct view_part *p)
{
	unsigned int k;

	for (k = 0; k < N_KINDS; k++)
		server_channel_remove(v->srv, p->chan[k]);
}

static int part_open(struct view *v, struct view_part *p,
		     const struct skin_shm_part_desc *d)
{
	const char *frame = skin_part_id_frame((enum skin_part_id)d->skin_part);
	unsigned int k;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", d->name);
	/* the ROS 2 bridge's default frame_id, so the bytes are its bytes */
	snprintf(p->frame, sizeof(p->frame), "%s", frame ? frame : d->name);
	p->n_taxels = d->n_taxels;
	for (k = 0; k < N_KINDS; k++) {
		int64_t id = server_channel_add(v->srv, d->name, (enum fox_kind)k);

		if (id < 0) {
			while (k--)
				server_channel_remove(v->srv, p->chan[k]);
			return (int)id;
		}
		p->chan[k] = (uint32_t)id;
	}
	return 0;
}

static struct view_part *find(struct view *v, const char *name)
{
	unsigned int i;

	for (i = 0; i < v->n_parts; i++)
		if (!strcmp(v->parts[i].name, name))
			return &v->parts[i];
	return NULL;
}

static void attach(struct view *v, const struct skin_shm_map *m)
{
	unsigned int n = skin_shm_n_parts(m), i, k;
	struct view_part *np;

	free(v->by_index);
	v->n_index = 0;
	v->by_index = calloc(n ? n : 1, sizeof(*v->by_index));
	np = realloc(v->parts, (v->n_parts + n + 1) * sizeof(*np));
	if (np)
		v->parts = np;
	if (!v->by_index || !np) {
		log_err("out of memory: nothing served until skind's next object");
		return;
	}
	for (i = 0; i < v->n_parts; i++)
		v->parts[i].live = false;
	for (i = 0; i < n; i++) {
		const struct skin_shm_part_desc *d = skin_shm_part(m, i);
		struct view_part *p = find(v, d->name);

		if (p && p->n_taxels != d->n_taxels) {
			part_close(v, p);
			*p = v->parts[--v->n_parts];
			p = NULL;
		}
		if (!p) {
			p = &v->parts[v->n_parts];
			if (part_open(v, p, d)) {
				log_err("part %s: no channels (out of memory)", d->name);
				continue;
			}
			v->n_parts++;
		}
		p->live = true;
	}
	for (i = 0; i < v->n_parts; ) {
		if (v->parts[i].live) {
			i++;
			continue;
		}
		log_info("part %s: gone from skind, its channels removed",
			 v->parts[i].name);
		part_close(v, &v->parts[i]);
		v->parts[i] = v->parts[--v->n_parts];
	}
	/* the array moved: index it now */
	for (i = 0; i < n; i++)
		v->by_index[i] = find(v, skin_shm_part(m, i)->name);
	v->n_index = n;
	k = 0;
	for (i = 0; i < n; i++)
		k += v->by_index[i] != NULL;
	log_info("attached to skind (pid %u, generation %llu): %u parts served",
		 m->hdr->pid, (unsigned long long)m->hdr->generation, k);
}

static void publish(struct view *v, uint32_t chan, uint64_t ns)
{
	int rc;

	if (v->cdr.err) {
		log_warn("a sample not encoded: out of memory");
		return;
	}
	rc = server_publish(v->srv, chan, cdr_data(&v->cdr), v->cdr.len, ns);
	if (rc)
		log_warn("a sample not served: %s", strerror(-rc));
}

static void sample(struct view *v, const struct skin_follow_sample *s)
{
	const struct skin_shm_map *m = s->map;
	struct view_part *p = s->part < v->n_index ? v->by_index[s->part] : NULL;
	const struct skin_shm_part *head = skin_shm_head(s->block);
	const struct skin_contact_record *c0;
	struct cdr_stamp t;
	uint64_t ns;
	unsigned int n;

	if (!p)
		return;
	cdr_stamp_from(&t, head->frame_ts_ns ? head->frame_ts_ns : head->publish_ns,
		       clock_mono_to_real_ns());
	ns = (uint64_t)t.sec * 1000000000ull + t.nanosec;
	cdr_tactile_state(&v->cdr, &t, p->frame, p->name,
			  skin_shm_values(m, s->part, s->block), p->n_taxels);
	publish(v, p->chan[FOX_VALUES], ns);
	cdr_tactile_state_raw(&v->cdr, &t, p->frame, p->name,
			      skin_shm_raw(m, s->part, s->block), p->n_taxels);
	publish(v, p->chan[FOX_RAW], ns);
	n = head->n_contacts;
	c0 = skin_shm_contact(m, s->part, s->block, 0);
	if (!c0)
		n = 0;
	if (n > skin_shm_part(m, s->part)->max_contacts)
		n = skin_shm_part(m, s->part)->max_contacts;
	/* a release once, then nothing until the next contact */
	if (n || p->last_contacts) {
		cdr_tactile_contacts(&v->cdr, &t, p->frame, c0, n, m->contact_size);
		publish(v, p->chan[FOX_CONTACTS], ns);
	}
	p->last_contacts = n;
}

static void on_event(struct skin_follow *f, enum skin_follow_event ev,
		     const struct skin_follow_sample *s, void *data)
{
	struct view *v = data;

	(void)f;
	switch (ev) {
	case SKIN_FOLLOW_ATTACHED:
		attach(v, s->map);
		break;
	case SKIN_FOLLOW_SAMPLE:
		sample(v, s);
		break;
	case SKIN_FOLLOW_DETACHED:
		/* the channels stay: skind is expected back */
		v->n_index = 0;
		log_info("skind went away (%s): waiting for it",
			 strerror(-s->reason));
		break;
	case SKIN_FOLLOW_STATE:
		break;
	}
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
		"  -r, --replay LOG   serve a candump -l log instead of skind, processed\n"
		"                     as skind would with --config's skind.conf\n"
		"  -b, --board BOARD  with --replay, LOG is an ETH capture (pcap, pcapng)\n"
		"                     of this board, as skin-eth's --board; repeatable\n"
		"      --view-config FILE  skin-view's configuration (with --replay,\n"
		"                     where --config names skind.conf)\n"
		"      --check        check the configuration and exit\n"
		"  -h, --help         this text, then exit\n"
		"      --version      \"skin-view VERSION\", then exit\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "check", no_argument, NULL, 'k' },
		{ "replay", required_argument, NULL, 'r' },
		{ "view-config", required_argument, NULL, 'v' },
		{ "board", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *socket_path = NULL, *replay = NULL, *vconfig = NULL;
	struct view_replay *rp = NULL;
	char *boards[MAX_BOARDS];
	unsigned int n_boards = 0;
	struct actions *act = NULL;
	struct skin_follow_options fo = { 0 };
	struct follow_source *fs = NULL;
	struct view_config cfg;
	struct skin_error err;
	struct view v;
	sd_event *e = NULL;
	const char *skind_config = NULL;
	bool check = false;
	int o, rc;

	log_init("skin-view", LOG_INFO, 0);
	while ((o = getopt_long(argc, argv, "c:s:r:b:h", opts, NULL)) != -1) {
		switch (o) {
		case 'c': config = optarg; break;
		case 's': socket_path = optarg; break;
		case 'k': check = true; break;
		case 'r': replay = optarg; break;
		case 'v': vconfig = optarg; break;
		case 'b':
			if (n_boards == MAX_BOARDS) {
				log_err("--board: more than %d boards", MAX_BOARDS);
				return 2;
			}
			boards[n_boards++] = optarg;
			break;
		case 'h': usage(stdout); return 0;
		case 'V': puts("skin-view " SKIN_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc || (replay && !config) || (n_boards && !replay)) {
		usage(stderr);
		return 2;
	}
	/* replaying, --config is the recording's skind.conf (as skinctl's) */
	if (replay || vconfig) {
		skind_config = replay ? config : NULL;
		config = vconfig;
	}
	view_config_init(&cfg);
	if ((config || access(DEFAULT_CONFIG, F_OK) == 0) &&
	    view_config_load(&cfg, config ? config : DEFAULT_CONFIG, &err)) {
		log_err("%s", err.text);
		return 1;
	}
	if (check) {
		printf("%s: http://%s:%u/ (data %s), %u clients, %u per address, actions %s\n",
		       config ? config : DEFAULT_CONFIG, cfg.address, cfg.port,
		       cfg.data_dir, cfg.max_clients, cfg.max_per_address,
		       cfg.token[0] ? "with the token" : "none");
		return 0;
	}

	memset(&v, 0, sizeof(v));
	cdr_init(&v.cdr, 0);
	raise_nofile(cfg.max_connections + 64);
	rc = service_init(&e);
	if (rc < 0) {
		log_err("sd-event: %s", strerror(-rc));
		return 1;
	}
	rc = server_new(&v.srv, e, &cfg);
	if (rc)
		goto out;
	fo.socket = socket_path ? socket_path : cfg.socket[0] ? cfg.socket : NULL;
	if (replay) {
		unsigned int n;
		const struct fox_service *sv = replay_services(&n);

		rc = replay_new(&rp, e, v.srv, skind_config, replay, boards, n_boards);
		if (rc)
			goto out;
		server_set_services(v.srv, sv, n, replay_call, rp);
	} else {
		rc = follow_source_new(&fs, e, &fo, on_event, &v);
		if (rc) {
			log_err("following skind: %s", strerror(-rc));
			goto out;
		}
	}
	if (!replay && cfg.token[0]) {
		unsigned int n;
		const struct fox_service *sv = actions_services(&n);

		rc = actions_new(&act, e, v.srv, fo.socket, cfg.token);
		if (rc)
			goto out;
		server_set_services(v.srv, sv, n, actions_call, act);
	}
	log_info("serving http://%s%s%s:%u/ from %s: %s%s",
		 strchr(cfg.address, ':') ? "[" : "", cfg.address,
		 strchr(cfg.address, ':') ? "]" : "", cfg.port, cfg.data_dir,
		 replay ? "replaying " : "following skind", replay ? replay : "");
	service_ready(NULL);
	rc = service_run_beside(e, server_wait, v.srv);
	{
		struct server_stats st;

		server_stats(v.srv, &st);
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
	actions_free(act);
	replay_free(rp);
	follow_source_free(fs);
	server_free(v.srv);
	sd_event_unref(e);
	cdr_free(&v.cdr);
	free(v.parts);
	free(v.by_index);
	return rc ? 1 : 0;
}
