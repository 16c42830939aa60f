// SPDX-License-Identifier: GPL-2.0
/*
 * bridge.c - skin-ros2-bridge: skind's parts as ROS 2 topics over DDS
 *
 * A process of its own, so that DDS (its threads, allocations, network
 * and blocking) never reaches skind's sample path: it follows skind
 * through the client library (skin/follow.h: the socket's wakeups and the
 * shared memory's seqlocked copies), and per published part writes
 *
 *	NS/PART/values    tactile_msgs/TactileState    compensated values
 *	NS/PART/raw       tactile_msgs/TactileState    raw values (raw = yes)
 *	NS/PART/contacts  tactile_msgs/TactileContacts contacts; one empty
 *	                                               message at a release
 *
 * (docs/ROS2.md).  The writers live as long as their part: a skind restart
 * or reload that keeps a part (same name and sizes) keeps its writers, so
 * subscribers see no change of publisher; a part a reload removes loses
 * its writers, a new part gets them.
 *
 * The participant and its domain live as long as the host's usable
 * addresses: Cyclone DDS picks its interface once, when the domain is
 * made, so when the addresses change (a link that gets carrier after the
 * bridge started: net_watch.h) the bridge deletes every writer and the
 * participant and makes them again, on the same topics; subscribers see
 * one writer go and another come.  A stop deletes the writers, then the
 * participant, which tells subscribers at once (docs/ROS2.md, "Stop,
 * restart, late join").
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <skin/client.h>
#include <skin/follow.h>

#include "config.h"
#include "dds.h"
#include "follow_source.h"
#include "log.h"
#include "msg.h"
#include "net_watch.h"
#include "service.h"
#include "skin_clock.h"

#define DEFAULT_CONFIG	"/etc/skin/skin-ros2.conf"
/* SIGTERM is honoured within a second: what DDS takes to shut down
 * counts in it */
#define DDS_DELETE_TIMEOUT_MS	800

struct bridge_part {
	bool live;			/* in the current object */
	struct ros2_msg_part msg;
	dds_entity_t w_values, w_raw, w_contacts;
	unsigned int map_index;
	uint64_t written, failed;
};

struct bridge {
	struct ros2_config cfg;
	sd_event *e;
	dds_entity_t domain, pp;
	/* each on its own: a part's messages point into themselves */
	struct bridge_part **parts;
	unsigned int n_parts;
	/* the current object's part i -> parts[], or NULL: not published */
	struct bridge_part **by_index;
	unsigned int n_index;
	int verbose;
};

static void writer_delete(dds_entity_t *w)
{
	dds_entity_t t;

	if (*w <= 0)
		return;
	t = dds_get_topic(*w);
	dds_delete(*w);
	if (t > 0)
		dds_delete(t);
	*w = 0;
}

static void part_writers_close(struct bridge_part *bp)
{
	writer_delete(&bp->w_values);
	writer_delete(&bp->w_raw);
	writer_delete(&bp->w_contacts);
}

static void part_drop(struct bridge_part *bp)
{
	part_writers_close(bp);
	ros2_msg_part_free(&bp->msg);
}

static dds_entity_t part_writer(struct bridge *b, const char *part,
				const char *leaf,
				const dds_topic_descriptor_t *desc)
{
	char topic[ROS2_DDS_TOPIC_LEN];
	dds_entity_t w;
	int rc = ros2_dds_topic_name(topic, sizeof(topic), b->cfg.ns, part, leaf);

	if (rc) {
		log_warn("part %s: no ROS topic name %s/%s/%s (%s): not published",
			 part, b->cfg.ns, part, leaf, strerror(-rc));
		return rc;
	}
	w = ros2_dds_writer(b->pp, desc, topic);
	if (w < 0)
		log_err("part %s: DDS writer on %s: %s", part, topic,
			dds_strretcode(w));
	return w;
}

/* @bp's writers in the current participant; none on failure */
static int part_writers_open(struct bridge *b, struct bridge_part *bp)
{
	const char *name = bp->msg.sensor;

	bp->w_values = part_writer(b, name, "values",
				   &tactile_msgs_msg_dds__TactileState__desc);
	if (b->cfg.raw && bp->w_values > 0)
		bp->w_raw = part_writer(b, name, "raw",
					&tactile_msgs_msg_dds__TactileState__desc);
	if (bp->w_values > 0 && bp->w_raw >= 0)
		bp->w_contacts = part_writer(b, name, "contacts",
					     &tactile_msgs_msg_dds__TactileContacts__desc);
	if (bp->w_values <= 0 || bp->w_raw < 0 || bp->w_contacts <= 0) {
		part_writers_close(bp);
		return -EIO;
	}
	return 0;
}

static int part_open(struct bridge *b, struct bridge_part *bp,
		     const struct skin_shm_part_desc *d)
{
	int rc = ros2_msg_part_init(&bp->msg, d->name,
				    ros2_config_frame(&b->cfg, d->name, d->skin_part),
				    d->n_taxels, d->max_contacts);

	if (rc)
		return rc;
	rc = part_writers_open(b, bp);
	if (rc)
		ros2_msg_part_free(&bp->msg);
	return rc;
}

static int find(const struct bridge *b, const char *name)
{
	unsigned int i;

	for (i = 0; i < b->n_parts; i++)
		if (!strcmp(b->parts[i]->msg.sensor, name))
			return (int)i;
	return -1;
}

/* Its writers deleted (its topics go with them), its place taken by the
 * last part. */
static void part_remove(struct bridge *b, unsigned int i)
{
	unsigned int k;

	for (k = 0; k < b->n_index; k++)
		if (b->by_index[k] == b->parts[i])
			b->by_index[k] = NULL;
	part_drop(b->parts[i]);
	free(b->parts[i]);
	b->parts[i] = b->parts[--b->n_parts];
}

/* A new object: keep the writers of the parts it keeps, drop the others,
 * open the new ones. */
static void attach(struct bridge *b, const struct skin_shm_map *m)
{
	unsigned int n = skin_shm_n_parts(m), i, kept = 0, opened = 0;
	struct bridge_part **np;
	int k;

	free(b->by_index);
	b->n_index = 0;
	b->by_index = calloc(n ? n : 1, sizeof(*b->by_index));
	np = realloc(b->parts, (b->n_parts + n) * sizeof(*np));
	if (np)
		b->parts = np;	/* room for every part of @m past the live ones */
	if (!b->by_index || !np) {
		log_err("out of memory: nothing published until skind's next object");
		return;
	}
	for (i = 0; i < b->n_parts; i++)
		b->parts[i]->live = false;
	for (i = 0; i < n; i++) {
		const struct skin_shm_part_desc *d = skin_shm_part(m, i);
		struct bridge_part *bp;

		if (!ros2_config_publishes(&b->cfg, d->name))
			continue;
		k = find(b, d->name);
		bp = k >= 0 ? b->parts[k] : NULL;
		if (bp && (bp->msg.n_taxels != d->n_taxels ||
			   bp->msg.max_contacts != d->max_contacts ||
			   strcmp(bp->msg.frame_id, ros2_config_frame(&b->cfg, d->name, d->skin_part)))) {
			log_info("part %s: new sizes, new writers", d->name);
			part_remove(b, (unsigned int)k);
			bp = NULL;
		}
		if (bp) {
			kept++;
		} else {
			bp = calloc(1, sizeof(*bp));
			if (!bp || part_open(b, bp, d)) {
				free(bp);
				continue;
			}
			b->parts[b->n_parts++] = bp;
			opened++;
		}
		bp->live = true;
		bp->map_index = i;
		b->by_index[i] = bp;
	}
	b->n_index = n;
	/* parts gone from skind: their writers go, so do their topics */
	for (i = 0; i < b->n_parts; ) {
		if (b->parts[i]->live) {
			i++;
			continue;
		}
		log_info("part %s: gone from skind, its topics removed",
			 b->parts[i]->msg.sensor);
		part_remove(b, i);
	}
	for (i = 0; i < b->cfg.n_parts; i++)
		if (b->cfg.parts[i].publish &&
		    skin_shm_find_part(m, b->cfg.parts[i].name) < 0)
			log_warn("part %s: configured but skind has no such part",
				 b->cfg.parts[i].name);
	log_info("attached to skind (pid %u, generation %llu): %u parts published (%u kept, %u new)",
		 m->hdr->pid, (unsigned long long)m->hdr->generation,
		 kept + opened, kept, opened);
}

/* `parts =`: the follower copies and tells only those */
static int follow_configured_parts(struct skin_follow *f,
				   const struct ros2_config *cfg)
{
	const char **names = calloc(cfg->n_parts ? cfg->n_parts : 1, sizeof(*names));
	unsigned int i, n = 0;
	int r;

	if (!names)
		return -ENOMEM;
	for (i = 0; i < cfg->n_parts; i++)
		if (cfg->parts[i].publish)
			names[n++] = cfg->parts[i].name;
	/* none named to publish: a name no part has, not "every part" */
	if (!n)
		names[n++] = "";
	r = skin_follow_set_parts(f, names, n);
	free(names);
	return r;
}

static void put(struct bridge_part *bp, dds_entity_t w, const void *msg)
{
	dds_return_t rc = dds_write(w, msg);

	if (rc == DDS_RETCODE_OK) {
		bp->written++;
		return;
	}
	/* counted, and said once in a while: a DDS fault is the bridge's */
	if (bp->failed++ % 1000 == 0)
		log_warn("part %s: dds_write: %s (%llu failures)", bp->msg.sensor,
			 dds_strretcode(rc), (unsigned long long)bp->failed);
}

static void sample(struct bridge *b, const struct skin_follow_sample *s)
{
	const struct skin_shm_map *m = s->map;
	struct bridge_part *bp = s->part < b->n_index ? b->by_index[s->part] : NULL;
	const struct skin_shm_part *head = skin_shm_head(s->block);
	const struct skin_contact_record *c0;
	ros2_time t;
	unsigned int n;

	if (!bp)
		return;
	ros2_msg_stamp(&t, head->frame_ts_ns ? head->frame_ts_ns : head->publish_ns,
		       clock_mono_to_real_ns());
	ros2_msg_fill_values(&bp->msg, &t, skin_shm_values(m, s->part, s->block));
	put(bp, bp->w_values, &bp->msg.values);
	if (bp->w_raw > 0) {
		ros2_msg_fill_raw(&bp->msg, &t, skin_shm_raw(m, s->part, s->block));
		put(bp, bp->w_raw, &bp->msg.raw);
	}
	n = head->n_contacts;
	c0 = skin_shm_contact(m, s->part, s->block, 0);
	if (!c0)
		n = 0;
	if (ros2_msg_fill_contacts(&bp->msg, &t, c0, n, m->contact_size))
		put(bp, bp->w_contacts, &bp->msg.contacts);
}

static void on_event(struct skin_follow *f, enum skin_follow_event ev,
		     const struct skin_follow_sample *s, void *data)
{
	struct bridge *b = data;

	(void)f;
	switch (ev) {
	case SKIN_FOLLOW_ATTACHED:
		attach(b, s->map);
		break;
	case SKIN_FOLLOW_SAMPLE:
		sample(b, s);
		break;
	case SKIN_FOLLOW_DETACHED:
		/* the writers stay: skind is expected back */
		b->n_index = 0;
		log_info("skind went away (%s): waiting for it",
			 strerror(-s->reason));
		break;
	case SKIN_FOLLOW_STATE:
		/* no new sample: a TactileState has no field for the rest */
		break;
	}
}

/*
 * Deleting a participant: Cyclone 0.10.2 was seen to hang there for good,
 * joining a receive thread that never woke (tests/ros2).  Neither a stop
 * nor a new participant waits for it past DDS_DELETE_TIMEOUT_MS: the
 * process exits, with @hung_exit (0 on a stop; 1 otherwise, and systemd
 * starts the bridge again).
 */
static volatile sig_atomic_t hung_exit;

static void on_dds_hung(int sig)
{
	static const char msg[] = "skin-ros2-bridge: warning: DDS did not shut down in time: exiting without it\n";

	(void)sig;
	if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
		/* nothing left to tell it to */
	}
	_exit(hung_exit);
}

static void dds_deadline(int exit_code, unsigned int ms)
{
	struct itimerval it = { .it_value = { ms / 1000, (ms % 1000) * 1000 } };

	hung_exit = exit_code;
	signal(SIGALRM, on_dds_hung);
	setitimer(ITIMER_REAL, &it, NULL);
}

/* Every writer, then the participant: each writer's deletion is
 * announced (its instance unregistered, its publication disposed) while
 * the participant still sends, then the participant's own. */
static void participant_close(struct bridge *b)
{
	unsigned int i;

	for (i = 0; i < b->n_parts; i++)
		part_writers_close(b->parts[i]);
	if (b->pp > 0)
		dds_delete(b->pp);
	if (b->domain > 0)
		dds_delete(b->domain);
	b->pp = b->domain = 0;
}

static int participant_open(struct bridge *b)
{
	b->domain = ros2_dds_domain(b->cfg.domain_id);
	if (b->domain < 0) {
		log_err("DDS domain %u (CYCLONEDDS_URI?): %s", b->cfg.domain_id,
			dds_strretcode(b->domain));
		return -EIO;
	}
	b->pp = dds_create_participant(b->cfg.domain_id, NULL, NULL);
	if (b->pp < 0) {
		log_err("DDS participant on domain %u: %s", b->cfg.domain_id,
			dds_strretcode(b->pp));
		dds_delete(b->domain);
		b->domain = 0;
		return -EIO;
	}
	return 0;
}

/* The usable addresses changed: Cyclone takes them only when the domain
 * is made. */
static void on_network(struct net_watch *w, void *data)
{
	struct bridge *b = data;
	unsigned int i;

	log_info("network changed (%s): DDS started again on it",
		 net_watch_describe(w));
	dds_deadline(1, DDS_DELETE_TIMEOUT_MS);
	participant_close(b);
	dds_deadline(0, 0);
	if (participant_open(b)) {
		sd_event_exit(b->e, 1);
		return;
	}
	for (i = 0; i < b->n_parts; ) {
		if (!part_writers_open(b, b->parts[i])) {
			i++;
			continue;
		}
		log_err("part %s: no writers in the new participant: not published",
			b->parts[i]->msg.sensor);
		part_remove(b, i);
	}
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: skin-ros2-bridge [OPTIONS]\n"
		"Publish skind's parts as ROS 2 topics (tactile_msgs over DDS).\n\n"
		"  -c, --config FILE  configuration (default " DEFAULT_CONFIG ",\n"
		"                     defaults when that file does not exist)\n"
		"  -s, --socket PATH  skind's socket (overrides the configuration)\n"
		"      --check        check the configuration and exit\n"
		"  -h, --help         this text, then exit\n"
		"      --version      \"skin-ros2-bridge VERSION\", then exit\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "socket", required_argument, NULL, 's' },
		{ "check", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL, *socket_path = NULL;
	struct skin_follow_options fo = { 0 };
	struct follow_source *fs = NULL;
	struct net_watch *nw = NULL;
	sd_event *e = NULL;
	struct bridge b;
	struct skin_error err;
	bool check = false;
	unsigned int i;
	int o, rc;

	log_init("skin-ros2-bridge", LOG_INFO, 0);
	while ((o = getopt_long(argc, argv, "c:s:h", opts, NULL)) != -1) {
		switch (o) {
		case 'c': config = optarg; break;
		case 's': socket_path = optarg; break;
		case 'k': check = true; break;
		case 'h': usage(stdout); return 0;
		case 'V': puts("skin-ros2-bridge " SKIN_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}

	memset(&b, 0, sizeof(b));
	ros2_config_init(&b.cfg);
	if (config || access(DEFAULT_CONFIG, F_OK) == 0) {
		if (ros2_config_load(&b.cfg, config ? config : DEFAULT_CONFIG, &err)) {
			log_err("%s", err.text);
			ros2_config_free(&b.cfg);
			return 1;
		}
	}
	if (check) {
		printf("%s: domain %u, namespace %s, %s parts, raw %s\n",
		       config ? config : DEFAULT_CONFIG, b.cfg.domain_id,
		       b.cfg.ns, b.cfg.all_parts ? "all" : "some",
		       b.cfg.raw ? "yes" : "no");
		ros2_config_free(&b.cfg);
		return 0;
	}

	rc = service_init(&e);
	if (rc < 0) {
		log_err("sd-event: %s", strerror(-rc));
		ros2_config_free(&b.cfg);
		return 1;
	}
	b.e = e;
	rc = net_watch_new(&nw, e, on_network, &b);
	if (rc < 0 || participant_open(&b)) {
		if (rc < 0)
			log_err("watching the network: %s", strerror(-rc));
		net_watch_free(nw);
		sd_event_unref(e);
		ros2_config_free(&b.cfg);
		return 1;
	}
	fo.socket = socket_path ? socket_path :
		    b.cfg.socket[0] ? b.cfg.socket : NULL;
	rc = follow_source_new(&fs, e, &fo, on_event, &b);
	if (!rc && !b.cfg.all_parts)
		rc = follow_configured_parts(follow_source_follower(fs), &b.cfg);
	if (rc) {
		log_err("following skind: %s", strerror(-rc));
		goto out;
	}
	log_info("domain %u, namespace %s: following skind", b.cfg.domain_id,
		 b.cfg.ns);
	service_ready(NULL);
	rc = service_run(e);
out:
	follow_source_free(fs);
	net_watch_free(nw);
	sd_event_unref(e);
	/* the writers' and the participant's deletions tell the subscribers
	 * at once that the writers are gone, rather than at the end of their
	 * lease */
	dds_deadline(0, DDS_DELETE_TIMEOUT_MS);
	participant_close(&b);
	dds_delete(DDS_CYCLONEDDS_HANDLE);
	dds_deadline(0, 0);
	for (i = 0; i < b.n_parts; i++) {
		part_drop(b.parts[i]);
		free(b.parts[i]);
	}
	free(b.parts);
	free(b.by_index);
	ros2_config_free(&b.cfg);
	return rc ? 1 : 0;
}
