/* SPDX-License-Identifier: GPL-2.0 */
/*
 * config.h - skin-view's configuration (skin-view.conf, skin-view(8))
 *
 *	[view]
 *	address = 127.0.0.1     the address it listens on
 *	port = 8765             its TCP port (HTTP and WebSocket)
 *	max_clients = 64        WebSocket clients at once
 *	max_per_address = 16    WebSocket clients from one address
 *	max_connections = 1024  TCP connections held, of any kind
 *	max_connections_per_address = 64   ... from one address
 *	queue_bytes = 262144    a client's queued replies, at most
 *	idle_timeout_s = 30     a connection that asks for nothing, closed
 *	max_frame = 65536       a client's message, at most (bytes)
 *	token = ...             what an action needs (none: no actions)
 *	socket = PATH           skind's socket
 *	data_dir = PATH         the page's files
 *	skind_config = PATH     skind's configuration: the parts' model
 *	eth_counters = PATH     skin-eth's counters file (docs/ETH.md)
 *
 *	[layout PART]           how part PART is drawn (/skin/layout)
 *	file = PATH             a skinGui .ini (any geometry file with one
 *	                        part of PART's size); relative to this
 *	                        file's directory
 *
 * lib/conf's syntax (conf.h); every error names FILE:LINE:COL.
 */
#ifndef VIEW_CONFIG_H
#define VIEW_CONFIG_H

#include <stddef.h>
#include <stdint.h>

#include <skin/model.h>

#define VIEW_CONFIG_ADDR_LEN	64
#define VIEW_CONFIG_PATH_LEN	256
#define VIEW_CONFIG_TOKEN_LEN	128
#define VIEW_CONFIG_SOCK_LEN	108	/* sun_path */
#define VIEW_CONFIG_MAX_LAYOUTS	64	/* [layout PART] sections */

/* [layout PART]: where PART's drawing comes from */
struct view_config_layout {
	char part[SKIN_PART_NAME_MAX + 1];
	char file[VIEW_CONFIG_PATH_LEN];	/* resolved; "": none given */
	char where[VIEW_CONFIG_PATH_LEN + 16];	/* FILE:LINE of its file = */
};

struct view_config {
	char address[VIEW_CONFIG_ADDR_LEN];
	uint32_t port;
	uint32_t max_clients;
	uint32_t max_per_address;
	uint32_t max_connections;
	uint32_t max_connections_per_address;
	uint32_t queue_bytes;
	uint32_t idle_timeout_s;
	uint32_t max_frame;
	char token[VIEW_CONFIG_TOKEN_LEN];	/* "": no actions */
	char socket[VIEW_CONFIG_SOCK_LEN];	/* "": skind's default */
	char data_dir[VIEW_CONFIG_PATH_LEN];
	char skind_config[VIEW_CONFIG_PATH_LEN];
	char eth_counters[VIEW_CONFIG_PATH_LEN];
	struct view_config_layout layouts[VIEW_CONFIG_MAX_LAYOUTS];
	unsigned int n_layouts;
};

/* The [layout PART] of @part, or NULL */
const struct view_config_layout *view_config_layout(const struct view_config *c,
						    const char *part);

void view_config_init(struct view_config *c);
struct conf_key;
const struct conf_key *view_config_keys(size_t *n);
int view_config_parse(struct view_config *c, const char *buf,
		      const char *name, struct skin_error *err);
int view_config_load(struct view_config *c, const char *path,
		     struct skin_error *err);

#endif /* VIEW_CONFIG_H */
