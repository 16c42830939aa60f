// SPDX-License-Identifier: GPL-2.0
//
// skin-view's page, for now: connect to the server's WebSocket with
// Foxglove's protocol (the one the server speaks), list the parts it
// advertises, subscribe to each part's values and count the samples.
// No library, nothing fetched from elsewhere.
"use strict";

const parts = new Map();	// part -> { row, channels: Set, samples }
const bySub = new Map();	// subscription id -> part
let nextSub = 1;

function state(text) {
	document.getElementById("state").textContent = text;
}

function partOf(topic) {
	const m = /^\/skin\/([^/]+)\/([^/]+)$/.exec(topic);
	return m ? { part: m[1], leaf: m[2] } : null;
}

function row(name) {
	let p = parts.get(name);
	if (!p) {
		const tr = document.createElement("tr");
		tr.innerHTML = "<td></td><td></td><td class=\"n\">0</td>";
		tr.cells[0].textContent = name;
		document.querySelector("#parts tbody").appendChild(tr);
		p = { row: tr, channels: new Set(), samples: 0 };
		parts.set(name, p);
	}
	return p;
}

function connect() {
	const ws = new WebSocket(`ws://${location.host}/`, ["foxglove.websocket.v1"]);
	ws.binaryType = "arraybuffer";
	ws.onopen = () => state("connected");
	ws.onclose = (ev) => {
		state(`closed (${ev.code} ${ev.reason}): connecting again`);
		setTimeout(connect, 2000);
	};
	ws.onmessage = (ev) => {
		if (typeof ev.data !== "string") {
			const v = new DataView(ev.data);
			if (v.getUint8(0) !== 1)
				return;
			const name = bySub.get(v.getUint32(1, true));
			const p = name && parts.get(name);
			if (p)
				p.row.cells[2].textContent = ++p.samples;
			return;
		}
		const msg = JSON.parse(ev.data);
		if (msg.op === "serverInfo") {
			state(`connected to ${msg.name}`);
		} else if (msg.op === "advertise") {
			const subs = [];
			for (const ch of msg.channels) {
				const t = partOf(ch.topic);
				if (!t)
					continue;
				const p = row(t.part);
				p.channels.add(t.leaf);
				p.row.cells[1].textContent = [...p.channels].join(", ");
				if (t.leaf === "values") {
					bySub.set(nextSub, t.part);
					subs.push({ id: nextSub++, channelId: ch.id });
				}
			}
			if (subs.length)
				ws.send(JSON.stringify({ op: "subscribe", subscriptions: subs }));
		} else if (msg.op === "status") {
			console.warn("skin-view:", msg.message);
		}
	};
}

connect();
