// SPDX-License-Identifier: GPL-2.0
//
// ws.js - a client of Foxglove's WebSocket protocol (subprotocol
// foxglove.websocket.v1, the published specification v1), the part of it
// the page needs: channels as the server advertises them, subscriptions,
// binary Message Data, and service calls when the server offers them.
// Reconnects after a close, subscribing again to what was asked for.

export const SUBPROTOCOL = "foxglove.websocket.v1";

const OP_MESSAGE_DATA = 1;
const OP_TIME = 2;
const OP_SERVICE_RESPONSE = 3;
const OP_SERVICE_REQUEST = 2;	// client to server

export class FoxClient {
	// handlers: { onState(text), onInfo(info), onChannels(), onMessage(topic, DataView, tsNs, channel), onServices() }
	constructor(url, handlers) {
		this.url = url;
		this.h = handlers;
		this.channels = new Map();	// id -> channel
		this.byTopic = new Map();	// topic -> channel
		this.services = new Map();	// name -> service
		this.wanted = new Set();	// topics the page wants
		this.subs = new Map();		// subscription id -> topic
		this.subOf = new Map();		// topic -> subscription id
		this.calls = new Map();		// call id -> { resolve, reject }
		this.nextSub = 1;
		this.nextCall = 1;
		this.info = null;
		this.ws = null;
		this.connect();
	}

	connect() {
		const ws = new WebSocket(this.url, [SUBPROTOCOL]);
		this.ws = ws;
		ws.binaryType = "arraybuffer";
		ws.onopen = () => this.h.onState?.("connected");
		ws.onclose = (ev) => {
			if (this.ws !== ws)
				return;
			this.reset();
			this.h.onState?.(`closed (${ev.code}${ev.reason ? " " + ev.reason : ""}): connecting again`);
			this.h.onChannels?.();
			setTimeout(() => this.connect(), 2000);
		};
		ws.onmessage = (ev) => {
			if (typeof ev.data === "string")
				this.text(JSON.parse(ev.data));
			else
				this.binary(new DataView(ev.data));
		};
	}

	reset() {
		this.channels.clear();
		this.byTopic.clear();
		this.services.clear();
		this.subs.clear();
		this.subOf.clear();
		for (const c of this.calls.values())
			c.reject(new Error("connection closed"));
		this.calls.clear();
	}

	send(obj) {
		if (this.ws && this.ws.readyState === WebSocket.OPEN)
			this.ws.send(JSON.stringify(obj));
	}

	text(msg) {
		switch (msg.op) {
		case "serverInfo":
			this.info = msg;
			this.h.onInfo?.(msg);
			break;
		case "advertise":
			for (const ch of msg.channels) {
				this.channels.set(ch.id, ch);
				this.byTopic.set(ch.topic, ch);
			}
			this.sync();
			this.h.onChannels?.();
			break;
		case "unadvertise":
			for (const id of msg.channelIds) {
				const ch = this.channels.get(id);
				if (!ch)
					continue;
				this.channels.delete(id);
				if (this.byTopic.get(ch.topic) === ch)
					this.byTopic.delete(ch.topic);
				const sub = this.subOf.get(ch.topic);
				if (sub !== undefined) {
					this.subs.delete(sub);
					this.subOf.delete(ch.topic);
				}
			}
			this.h.onChannels?.();
			break;
		case "advertiseServices":
			for (const s of msg.services)
				this.services.set(s.name, s);
			this.h.onServices?.();
			break;
		case "unadvertiseServices":
			for (const [name, s] of this.services)
				if (msg.serviceIds.includes(s.id))
					this.services.delete(name);
			this.h.onServices?.();
			break;
		case "serviceCallFailure": {
			const c = this.calls.get(msg.callId);
			if (c) {
				this.calls.delete(msg.callId);
				c.reject(new Error(msg.message));
			}
			break;
		}
		case "status":
			// level 2 is an error: the page asked for something wrong
			(msg.level >= 2 ? console.error : console.info)("skin-view:", msg.message);
			break;
		}
	}

	binary(v) {
		const op = v.getUint8(0);
		if (op === OP_MESSAGE_DATA) {
			const topic = this.subs.get(v.getUint32(1, true));
			const ch = topic && this.byTopic.get(topic);
			if (ch)
				this.h.onMessage?.(topic, new DataView(v.buffer, v.byteOffset + 13),
						   v.getBigUint64(5, true), ch);
		} else if (op === OP_SERVICE_RESPONSE) {
			const callId = v.getUint32(5, true);
			const elen = v.getUint32(9, true);
			const c = this.calls.get(callId);
			if (!c)
				return;
			this.calls.delete(callId);
			const body = new Uint8Array(v.buffer, v.byteOffset + 13 + elen);
			try {
				c.resolve(JSON.parse(new TextDecoder().decode(body) || "{}"));
			} catch (e) {
				c.reject(e);
			}
		} else if (op !== OP_TIME) {
			console.warn("skin-view: unknown binary op", op);
		}
	}

	// the topics wanted: subscribe to those advertised, unsubscribe the rest
	want(topics) {
		this.wanted = new Set(topics);
		this.sync();
	}

	sync() {
		const add = [], drop = [];
		for (const [topic, id] of this.subOf)
			if (!this.wanted.has(topic) || !this.byTopic.has(topic)) {
				drop.push(id);
				this.subOf.delete(topic);
				this.subs.delete(id);
			}
		for (const topic of this.wanted) {
			const ch = this.byTopic.get(topic);
			if (!ch || this.subOf.has(topic))
				continue;
			const id = this.nextSub++;
			this.subs.set(id, topic);
			this.subOf.set(topic, id);
			add.push({ id, channelId: ch.id });
		}
		if (drop.length)
			this.send({ op: "unsubscribe", subscriptionIds: drop });
		if (add.length)
			this.send({ op: "subscribe", subscriptions: add });
	}

	// a service call with a JSON request; resolves to the JSON response
	call(name, request) {
		const s = this.services.get(name);
		if (!s || !this.ws || this.ws.readyState !== WebSocket.OPEN)
			return Promise.reject(new Error(`no service ${name}`));
		const callId = this.nextCall++;
		const enc = new TextEncoder();
		const encoding = enc.encode("json");
		const body = enc.encode(JSON.stringify(request));
		const buf = new Uint8Array(13 + encoding.length + body.length);
		const v = new DataView(buf.buffer);
		v.setUint8(0, OP_SERVICE_REQUEST);
		v.setUint32(1, s.id, true);
		v.setUint32(5, callId, true);
		v.setUint32(9, encoding.length, true);
		buf.set(encoding, 13);
		buf.set(body, 13 + encoding.length);
		return new Promise((resolve, reject) => {
			this.calls.set(callId, { resolve, reject });
			this.ws.send(buf);
		});
	}
}
