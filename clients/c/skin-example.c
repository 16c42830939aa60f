// SPDX-License-Identifier: MIT
/*
 * skin-example - the smallest robot program on the installed libskin
 *
 *	cc skin-example.c $(pkg-config --cflags --libs skin) -o skin-example
 *	skin-example                     skind's status and each part's latest
 *	                                 publication, from its shared memory
 *	skin-example /dev/skin/NAME N    N raw frames from the driver's ring
 *
 * Copy it as the start of your own; the APIs are <skin/client.h> and
 * <skin/ring.h>, whose comments say who owns what.
 */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <skin/client.h>
#include <skin/ring.h>

static void print_line(const char *line, void *data)
{
	(void)data;
	printf("%s\n", line);
}

static int from_skind(void)
{
	struct skin_shm_map m;
	struct skin_client *c;
	char why[256] = "";
	unsigned int i;
	int err;

	c = skin_client_connect(NULL, &err);
	if (!c) {
		fprintf(stderr, "skin-example: skind: %s\n", strerror(-err));
		return 1;
	}
	err = skin_client_command(c, "status", print_line, NULL, why, sizeof(why));
	if (err < 0) {
		fprintf(stderr, "skin-example: status: %s %s\n", strerror(-err), why);
		skin_client_close(c);
		return 1;
	}
	/* the shared memory's fd, passed over the socket */
	err = skin_client_shm(c, &m);
	skin_client_close(c);
	if (err < 0) {
		fprintf(stderr, "skin-example: shm: %s\n", strerror(-err));
		return 1;
	}
	for (i = 0; i < skin_shm_n_parts(&m); i++) {
		const struct skin_shm_part_desc *d = skin_shm_part(&m, i);
		void *buf = malloc(d->size);

		if (!buf || skin_shm_read_part(&m, i, buf, 1000) < 0) {
			fprintf(stderr, "skin-example: %s: no consistent read\n", d->name);
			free(buf);
			skin_shm_close(&m);
			return 1;
		}
		printf("part %s taxels %u samples %llu\n", d->name, d->n_taxels,
		       (unsigned long long)skin_shm_head(buf)->samples);
		free(buf);
	}
	skin_shm_close(&m);
	return 0;
}

static int from_ring(const char *path, long n)
{
	struct skin_ring_map m;
	struct skin_frame f;
	int err;

	err = skin_ring_map_open(&m, path);
	if (err < 0) {
		fprintf(stderr, "skin-example: %s: %s\n", path, strerror(-err));
		return 1;
	}
	while (n > 0) {
		struct pollfd p = { .fd = m.fd, .events = POLLIN };

		if (poll(&p, 1, 5000) <= 0 || (p.revents & (POLLHUP | POLLERR))) {
			fprintf(stderr, "skin-example: %s: no frame within 5 s\n", path);
			skin_ring_map_close(&m);
			return 1;
		}
		while (n > 0 && skin_ring_map_next(&m, &f) > 0) {
			printf("frame %llu ts %llu value0 %u lost %llu\n",
			       (unsigned long long)f.seq,
			       (unsigned long long)f.timestamp_ns, f.values[0],
			       (unsigned long long)m.lost);
			n--;
		}
	}
	skin_ring_map_close(&m);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 1)
		return from_skind();
	if (argc == 3)
		return from_ring(argv[1], atol(argv[2]));
	fprintf(stderr, "usage: skin-example [/dev/skin/NAME COUNT]\n");
	return 2;
}
