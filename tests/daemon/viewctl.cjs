// SPDX-License-Identifier: GPL-2.0
//
// viewctl - a Foxglove WebSocket client of skin-view that calls its
// services (actions, replay) through npm's @foxglove/ws-protocol, for the
// daemon layer (tests/daemon/test_skind.py)
//
//	node viewctl.cjs URL STEPS
//
// SKIN_NODE_MODULES names the node_modules directory (scripts/node-tree).
// STEPS is a JSON array run in order once serverInfo, the channels and
// the services have come:
//
//	{"call": "/skin/set", "request": {...}}   a service call, waited for
//	{"subscribe": ["/skin/pad/values", ...]}  those channels
//	{"wait": SECONDS}                         messages meanwhile
//	{"mark": "LABEL"}
//
// and prints, one JSON object a line:
//
//	{"ev":"serverInfo", ...}  {"ev":"services","services":[...]}
//	{"ev":"response","service":NAME,"response":{...}}
//	{"ev":"failure","service":NAME,"message":M}
//	{"ev":"replay","topic":T,...the message}             a json channel
//	{"ev":"state" | "contacts" | "partstate", ...}       as foxdecode.cjs
//	{"ev":"mark","label":L}  {"ev":"status",...}  {"ev":"end"}
//
// Exit 0, or 1 on a client error or a call not answered in 30 s.
"use strict";

const path = require("path");
const mods = process.env.SKIN_NODE_MODULES;
const WebSocket = require(path.join(mods, "ws"));
const { FoxgloveClient } = require(path.join(mods, "@foxglove/ws-protocol"));
const { decode } = require("./foxdecode.cjs");

const [url, stepsText] = process.argv.slice(2);
const steps = JSON.parse(stepsText);
const out = (o) => process.stdout.write(JSON.stringify(o, (k, v) =>
	typeof v === "bigint" ? v.toString() : Number.isNaN(v) ? "NaN" : v) + "\n");

const ws = new WebSocket(url, [FoxgloveClient.SUPPORTED_SUBPROTOCOL]);
const client = new FoxgloveClient({ ws });
const channels = new Map();	// topic -> channel
const subs = new Map();		// subscription id -> channel
const services = new Map();	// name -> service
const waiting = new Map();	// call id -> resolve
let callId = 1;
let started = false;

function fail(message) {
	out({ ev: "error", message });
	process.exit(1);
}

/* skin-view's json channels spread into the line (/skin/replay's fields
 * at its top), the others as viewclient.cjs prints them */
function decodeMessage(ch, data, ts) {
	if (ch.encoding === "json")
		return { ev: "replay", topic: ch.topic,
			 ...JSON.parse(new TextDecoder().decode(data)) };
	return decode(ch, data, ts);
}

function call(name, request) {
	const sv = services.get(name);
	if (!sv)
		fail(`no service ${name}`);
	const id = callId++;
	const data = new TextEncoder().encode(JSON.stringify(request));
	return new Promise((resolve) => {
		const timer = setTimeout(() => fail(`${name}: no answer in 30 s`), 30000);
		waiting.set(id, (o) => {
			clearTimeout(timer);
			out({ service: name, ...o });
			resolve();
		});
		client.sendServiceCallRequest({ serviceId: sv.id, callId: id, encoding: "json", data });
	});
}

async function run() {
	for (const s of steps) {
		if (s.call !== undefined) {
			await call(s.call, s.request);
		} else if (s.subscribe) {
			for (const t of s.subscribe) {
				const ch = channels.get(t);
				if (!ch)
					fail(`no channel ${t}`);
				subs.set(client.subscribe(ch.id), ch);
			}
		} else if (s.wait !== undefined) {
			await new Promise((r) => setTimeout(r, s.wait * 1000));
		} else if (s.mark !== undefined) {
			out({ ev: "mark", label: s.mark });
		}
	}
	out({ ev: "end" });
	client.close();
	process.exit(0);
}

function maybeStart() {
	if (!started && channels.size && services.size) {
		started = true;
		clearTimeout(startTimer);
		run().catch((e) => fail(String(e && e.stack || e)));
	}
}

client.on("serverInfo", (m) => out({ ev: "serverInfo", ...m }));
client.on("status", (m) => out({ ev: "status", ...m }));
client.on("error", (e) => fail(String(e && e.message || e)));
client.on("close", (e) => out({ ev: "close", code: e.code, reason: String(e.reason) }));
client.on("advertise", (chs) => {
	for (const ch of chs)
		channels.set(ch.topic, ch);
	maybeStart();
});
client.on("advertiseServices", (svs) => {
	out({ ev: "services", services: svs });
	for (const sv of svs)
		services.set(sv.name, sv);
	maybeStart();
});
client.on("serviceCallResponse", (m) => {
	const done = waiting.get(m.callId);
	waiting.delete(m.callId);
	if (!done)
		fail(`a response to no call: ${m.callId}`);
	if (m.encoding !== "json")
		fail(`response encoding ${m.encoding}`);
	done({ ev: "response", response: JSON.parse(new TextDecoder().decode(m.data)) });
});
client.on("serviceCallFailure", (m) => {
	const done = waiting.get(m.callId);
	waiting.delete(m.callId);
	if (!done)
		fail(`a failure of no call: ${m.callId}`);
	done({ ev: "failure", message: m.message });
});
client.on("message", ({ subscriptionId, timestamp, data }) => {
	const ch = subs.get(subscriptionId);
	if (!ch)
		return;		// unsubscribed meanwhile
	try {
		out(decodeMessage(ch, data, timestamp));
	} catch (e) {
		fail(`${ch.topic}: ${e.message}`);
	}
});
const startTimer = setTimeout(() => fail("no serverInfo, channels and services in 30 s"), 30000);
