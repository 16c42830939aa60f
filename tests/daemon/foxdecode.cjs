// SPDX-License-Identifier: GPL-2.0
//
// foxdecode - skin-view's messages as the daemon layer's Foxglove clients
// (viewclient.cjs, viewctl.cjs) print them, one decoder for both:
//
//	decode(channel, data, ts) ->
//	{"ev":"state","topic":T,"ts":NS,"stamp":NS,"frame":F,"name":N,"values":[...]}
//	{"ev":"contacts","topic":T,"ts":NS,"stamp":NS|null,"contacts":[...]}
//	{"ev":"partstate","topic":T,"ts":NS,"stamp":NS,"sample":N,"state":S,"raw":[...],
//	 "values":[...],"flags":[...],"baselines":[...],"thresholds":[...],"contacts":[...]}
//	{"ev":"json","topic":T,"ts":NS,"message":{...}}
//
// The CDR through npm's @foxglove/cdr (SKIN_NODE_MODULES, scripts/node-tree).
"use strict";

const path = require("path");
const { CdrReader } = require(path.join(process.env.SKIN_NODE_MODULES, "@foxglove/cdr"));

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

module.exports = { decode };
