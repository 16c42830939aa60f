/* SPDX-License-Identifier: GPL-2.0 */
/*
 * name.h - YARP's name server, found and spoken to as YARP does
 *
 * Finding it (YARP 3.12's NameConfig): the configuration directory is
 * $YARP_CONFIG_HOME, else $XDG_CONFIG_HOME/yarp, else ~/.config/yarp; the
 * namespace is $YARP_NAMESPACE, else the first word of
 * yarp_namespace.conf there, else /root; the file is yarp.conf for /root
 * and, for any other namespace, its name with every character that is not
 * a letter or digit made '_', plus ".conf" ("/lab1" -> "_lab1.conf").
 * The file holds "IP PORT [MODE]".  (YARP's last resort, a multicast
 * query to 224.2.1.1:10001, is not done: a bridge is configured.)
 *
 * Speaking to it: one TCP connection per command, "NAME_SERVER CMD\n"
 * out, lines back until "*** end of message".  Requests run on an
 * sd-event loop and never block it; each has a time limit.
 */
#ifndef SKIN_YARP_NAME_H
#define SKIN_YARP_NAME_H

#include <netinet/in.h>
#include <stddef.h>

#include <systemd/sd-event.h>

/* "IP PORT [MODE]" of the name server, as found */
struct yn_server {
	char host[64];
	uint16_t port;
	char ns[64];		/* the namespace */
	char file[512];		/* where it was read */
};

/*
 * Find the name server's address as YARP does.  @env: a getenv-like
 * function (NULL: getenv), so tests can give their own environment.
 * Return: 0, -ENOENT (no file: *why says which) or -EINVAL (a bad file:
 * *why says FILE:LINE: what).
 */
int yn_find(struct yn_server *s, const char *(*env)(const char *name),
	    char *why, size_t why_len);

/* The registration a reply describes ("registration name N ip A port P
 * type T"); port 0 when the name is not registered */
struct yn_reg {
	char name[256];
	char ip[64];
	int port;
	char carrier[32];
};

/* Parse a reply's registration line: 0, or -EPROTO */
int yn_parse_reg(const char *reply, struct yn_reg *r);

struct yn_client;

/* @reply: the whole reply text (NULL on error), @err 0 or -errno */
typedef void (*yn_reply_fn)(void *data, int err, const char *reply);

int yn_client_new(struct yn_client **c, sd_event *e,
		  const struct sockaddr_in *server, unsigned int timeout_ms);
/* Requests still pending are answered -ECANCELED first. */
void yn_client_free(struct yn_client *c);
/* Send "NAME_SERVER @cmd\n"; @fn is called once, later, from the loop.
 * 0 or -errno (then @fn is never called): -EINVAL for a command holding a
 * control character, -EBUSY with 128 requests waiting already. */
int yn_request(struct yn_client *c, const char *cmd, yn_reply_fn fn,
	       void *data);
/* Requests not answered yet */
unsigned int yn_pending(const struct yn_client *c);

/* Resolve @host (numeric or a name: getaddrinfo, once at start) */
int yn_address(const char *host, uint16_t port, struct sockaddr_in *sa);

#endif /* SKIN_YARP_NAME_H */
