// SPDX-License-Identifier: GPL-2.0
//
// viewclient - a Foxglove WebSocket client of skin-view, through npm's
// @foxglove/ws-protocol (its FoxgloveClient, on the ws package's
// WebSocket) and @foxglove/cdr (its CdrReader decodes what comes), for
// the daemon layer (tests/daemon/test_skind.py)
//
//	node viewclient.cjs URL SECONDS TOPIC...
//
// SKIN_NODE_MODULES names the node_modules directory (scripts/node-tree).
// Subscribes to each TOPIC once it is advertised and prints, one JSON
// object a line:
//
//	{"ev":"serverInfo", ...the message}
//	{"ev":"advertise","channels":[{id,topic,encoding,schemaName,schemaEncoding,schema}]}
//	{"ev":"state","topic":T,"ts":NS,"stamp":NS,"frame":F,"name":N,"values":[...]}
//	{"ev":"contacts","topic":T,"ts":NS,"stamp":NS|null,"contacts":[{name,frame,position,normal,force,torque}]}
//	{"ev":"partstate","topic":T,"ts":NS,"stamp":NS,"sample":N,"state":S,"raw":[...],
//	 "values":[...],"flags":[...],"baselines":[...],"thresholds":[...],
//	 "contacts":[{id,pressure,cop2d,cop,force,normal,taxels}]}
//	{"ev":"json","topic":T,"ts":NS,"message":{...}}    (/skin/layout, /skin/health)
//	{"ev":"status", ...}   {"ev":"close","code":C,"reason":R}
//
// and {"ev":"end","counts":{TOPIC:N}} SECONDS after the first message data
// (a client that starts late on a loaded machine still collects as long),
// or after 60 s without one.  Exit 0, or 1 on a client error.
"use strict";

const path = require("path");
const mods = process.env.SKIN_NODE_MODULES;
const WebSocket = require(path.join(mods, "ws"));
const { FoxgloveClient } = require(path.join(mods, "@foxglove/ws-protocol"));
const { CdrReader } = require(path.join(mods, "@foxglove/cdr"));

const [url, seconds, ...topics] = process.argv.slice(2);
const out = (o) => process.stdout.write(JSON.stringify(o, (k, v) =>
	typeof v === "bigint" ? v.toString() : Number.isNaN(v) ? "NaN" : v) + "\n");

const ws = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
const client = new FoxgloveClient({ ws });
const subs = new Map();		// subscription id -> channel
const counts = {};
let failed = false;
let started = false;

function header(r) {
	const sec = r.int32();
	const nsec = r.uint32();
	return { stamp: BigInt(sec) * 1000000000n + BigInt(nsec), frame: r.string() };
}

function vec(r) {
	return [r.float64(), r.float64(), r.float64()];
}

function decode(ch, data, ts) {
	if (ch.encoding === "json")
		return { ev: "json", topic: ch.topic, ts,
			 message: JSON.parse(new TextDecoder().decode(data)) };
	const r = new CdrReader(data);
	if (ch.schemaName === "skin_msgs/msg/PartState") {
		const sec = r.int32();
		const nsec = r.uint32();
		const m = { ev: "partstate", topic: ch.topic, ts,
			    stamp: BigInt(sec) * 1000000000n + BigInt(nsec) };
		m.sample = r.uint64();
		m.state = r.uint32();
		m.raw = Array.from(r.uint8Array());
		m.values = Array.from(r.float32Array());
		m.flags = Array.from(r.uint8Array());
		m.baselines = Array.from(r.float32Array());
		m.thresholds = Array.from(r.float32Array());
		const n = r.sequenceLength();
		m.contacts = [];
		for (let i = 0; i < n; i++)
			m.contacts.push({ id: r.uint32(), pressure: r.float32(),
					  cop2d: [r.float32(), r.float32()],
					  cop: vec(r), force: vec(r), normal: vec(r),
					  taxels: Array.from(r.uint32Array()) });
		if (r.offset !== r.byteLength)
			throw new Error(`${r.byteLength - r.offset} bytes after the message`);
		return m;
	}
	if (ch.schemaName === "tactile_msgs/msg/TactileState") {
		const h = header(r);
		const n = r.sequenceLength();
		if (n !== 1)
			throw new Error(`${n} sensors`);
		const name = r.string();
		const values = Array.from(r.float32Array());
		return { ev: "state", topic: ch.topic, ts, stamp: h.stamp, frame: h.frame,
			 name, values };
	}
	const n = r.sequenceLength();
	const contacts = [];
	let stamp = null;
	for (let i = 0; i < n; i++) {
		const h = header(r);
		stamp = h.stamp;
		contacts.push({ frame: h.frame, name: r.string(), position: vec(r),
				normal: vec(r), force: vec(r), torque: vec(r) });
	}
	return { ev: "contacts", topic: ch.topic, ts, stamp, contacts };
}

client.on("serverInfo", (m) => out({ ev: "serverInfo", ...m }));
client.on("status", (m) => out({ ev: "status", ...m }));
client.on("error", (e) => {
	out({ ev: "error", message: String(e && e.message || e) });
	failed = true;
});
client.on("close", (e) => out({ ev: "close", code: e.code, reason: String(e.reason) }));
client.on("advertise", (channels) => {
	out({ ev: "advertise", channels });
	for (const ch of channels)
		if (topics.includes(ch.topic)) {
			subs.set(client.subscribe(ch.id), ch);
			counts[ch.topic] = counts[ch.topic] || 0;
		}
});
let timer = setTimeout(end, 60000);

function end() {
	out({ ev: "end", counts });
	client.close();
	process.exit(failed ? 1 : 0);
}

client.on("message", ({ subscriptionId, timestamp, data }) => {
	const ch = subs.get(subscriptionId);
	if (timer && !started) {
		started = true;
		clearTimeout(timer);
		timer = setTimeout(end, Number(seconds) * 1000);
	}
	if (!ch) {
		out({ ev: "error", message: `message of subscription ${subscriptionId}` });
		failed = true;
		return;
	}
	counts[ch.topic]++;
	try {
		out(decode(ch, data, timestamp));
	} catch (e) {
		out({ ev: "error", message: `${ch.topic}: ${e.message}` });
		failed = true;
	}
});

