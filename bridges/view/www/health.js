// SPDX-License-Identifier: GPL-2.0
//
// health.js - /skin/health (docs/VIEW.md) read against /skin/layout: the
// table "which board, which triangle, what is wrong, since when", and per
// part what the drawing marks (faulty taxels, silent boards) and its badge.

import { FAULTS, SILENT_COLOR } from "./draw.js";

// counters that count work done, not trouble: never shown
const DRIVER_WORK = new Set(["rx_head", "rx_tail", "frames", "tx_commands"]);
const ETH_WORK = new Set(["addr", "name", "datagrams", "published", "frames", "rops_skin", "rops_other"]);

const firstSeen = new Map();	// row key -> page time (ms) it was first seen

// a time of the report as ms since the epoch: since_ns is skind's frame
// time, CLOCK_MONOTONIC, which the report's monotonic_ns and time_ns (the
// server's two clocks at one instant) turn into a date; one already past
// 2001 is CLOCK_REALTIME (a replay's recording); without either the page
// says when it first saw the row
function sinceMs(key, ns, health) {
	if (!firstSeen.has(key))
		firstSeen.set(key, Date.now());
	if (typeof ns !== "number")
		return firstSeen.get(key);
	if (ns > 1e18)
		return ns / 1e6;
	if (typeof health?.monotonic_ns === "number" && typeof health?.time_ns === "number" &&
	    ns <= health.monotonic_ns)
		return (health.time_ns - (health.monotonic_ns - ns)) / 1e6;
	return firstSeen.get(key);
}

function nonZero(obj, skip) {
	return Object.entries(obj || {}).filter(([k, v]) => !skip.has(k) && typeof v === "number" && v > 0);
}

// what the drawing and the table need, from @health and @layout (either
// may be null before it comes)
export function digest(health, layout) {
	const parts = new Map();	// name -> { faults: Map, silent: Set, level, count }
	const rows = [];
	const lp = new Map((layout?.parts || []).map((p) => [p.name, p]));
	const seen = new Set();
	const row = (r) => {
		r.key = [r.part, r.board, r.triangle, r.taxel, r.fault].join("|");
		r.since = sinceMs(r.key, r.since_ns, health);
		seen.add(r.key);
		rows.push(r);
	};
	for (const hp of health?.parts || []) {
		const l = lp.get(hp.name);
		const d = { faults: new Map(), silent: new Set(), level: 0, count: 0, state: hp.state };
		parts.set(hp.name, d);
		if (hp.state && hp.state !== "running")
			d.level = Math.max(d.level, 1);
		// one row per board, triangle and set of faults: a dead triangle
		// is one row of its taxels, not twelve
		const groups = new Map();
		for (const f of hp.faults || []) {
			d.faults.set(f.taxel, f.flags);
			d.count++;
			d.level = 2;
			const board = l ? l.board[f.taxel] : null, triangle = l ? l.triangle[f.taxel] : null;
			const key = `${board}|${triangle}|${f.flags.join(",")}`;
			if (!groups.has(key))
				groups.set(key, { board, triangle, flags: f.flags, list: [] });
			groups.get(key).list.push(f);
		}
		for (const g of groups.values()) {
			g.list.sort((a, b) => a.taxel - b.taxel);
			const worst = FAULTS.find((x) => g.flags.includes(x.name));
			const raws = g.list.map((f) => f.raw).filter((r) => r !== undefined);
			const one = g.list.length === 1 ? g.list[0] : null;
			row({ part: hp.name, kind: "taxel", taxel: g.list[0].taxel, taxels: g.list.map((f) => f.taxel),
				board: g.board, triangle: g.triangle,
				what: g.flags.join(", ") + (one && one.raw !== undefined ? ` (raw ${one.raw}, baseline ${one.baseline})` :
					raws.length ? ` (raw ${Math.min(...raws)}–${Math.max(...raws)})` : ""),
				since_ns: Math.min(...g.list.map((f) => f.since_ns)),
				color: worst ? worst.color : "#444444", fault: worst ? worst.name : g.flags[0] });
		}
		if (hp.faults_more > 0) {
			d.count += hp.faults_more;
			d.level = 2;
		}
		if (hp.faults_more > 0)
			row({ part: hp.name, kind: "taxel", taxel: null, board: null, triangle: null,
				what: `${hp.faults_more} more faulty taxels (skind lists so many)`, color: "#444444", fault: "more" });
		for (const p of hp.patches || []) {
			const where = { part: hp.name, kind: "board", board: p.address, bus: p.bus, patch: p.name, triangle: null, taxel: null };
			if (p.silent || p.attached === false) {
				d.silent.add(p.address);
				d.level = 2;
				d.count++;
				row({ ...where, what: p.attached === false ? "not attached" : "silent: no frame",
					color: SILENT_COLOR, fault: "silent" });
			}
			const c = nonZero({ lost: p.lost, partial: p.partial, skipped: p.skipped }, new Set());
			const drv = nonZero(p.driver, DRIVER_WORK);
			if (c.length || drv.length) {
				d.level = Math.max(d.level, 1);
				row({ ...where, what: [...c, ...drv.map(([k, v]) => ["driver " + k, v])]
					.map(([k, v]) => `${k} ${v}`).join(", "), color: "#c08000", fault: "counters" });
			}
		}
	}
	if (health?.eth && health.eth.age_s > 5)
		row({ part: "ETH", kind: "eth", board: null, triangle: null, taxel: null,
			what: `skin-eth's counters are ${Number(health.eth.age_s).toFixed(0)} s old: skin-eth stopped?`,
			color: "#c08000", fault: "eth" });
	for (const b of health?.eth?.boards || []) {
		const bad = nonZero(b, ETH_WORK);
		if (bad.length)
			row({ part: "ETH", kind: "eth", board: b.name + (b.addr ? ` (${b.addr})` : ""), triangle: null, taxel: null,
				what: bad.map(([k, v]) => `${k} ${v}`).join(", "), color: "#c08000", fault: "eth" });
	}
	for (const k of firstSeen.keys())
		if (!seen.has(k))
			firstSeen.delete(k);	// gone: a new fault starts a new "since"
	return { parts, rows };
}

function age(ms) {
	const s = Math.max(0, (Date.now() - ms) / 1000);
	if (s < 120)
		return `${s.toFixed(0)} s ago`;
	if (s < 7200)
		return `${(s / 60).toFixed(0)} min ago`;
	return `${(s / 3600).toFixed(1)} h ago`;
}

// taxel ids as runs ("228–233, 235", iCub's 0-based ids), with the port
// positions of a single one
function taxelList(ids) {
	if (ids.length === 1)
		return `${ids[0]} (port ${ids[0] + 1})`;
	const runs = [];
	for (const i of ids) {
		const r = runs[runs.length - 1];
		if (r && i === r[1] + 1)
			r[1] = i;
		else
			runs.push([i, i]);
	}
	return runs.map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join(", ") + ` (${ids.length} taxels)`;
}

// fill <tbody> @tb with @rows (only the parts in @only, when given)
export function fillTable(tb, rows, only, onPick) {
	const want = only ? rows.filter((r) => only.has(r.part)) : rows;
	tb.textContent = "";
	if (!want.length) {
		const tr = tb.insertRow();
		const td = tr.insertCell();
		td.colSpan = 6;
		td.className = "ok";
		td.textContent = "nothing wrong";
		return;
	}
	for (const r of want) {
		const tr = tb.insertRow();
		tr.dataset.part = r.part;
		tr.dataset.fault = r.fault;
		if (r.taxel !== null) {
			tr.dataset.taxel = r.taxel;
			tr.dataset.taxels = (r.taxels || [r.taxel]).join(" ");
		}
		if (r.board !== null && r.board !== undefined)
			tr.dataset.board = r.board;
		const cells = [r.part,
			r.board === null || r.board === undefined || r.board < 0 ? "–" : (r.bus ? `${r.bus}:${r.board}` : String(r.board)),
			r.triangle === null || r.triangle < 0 ? (r.kind === "board" ? "all" : "–") : String(r.triangle),
			r.taxel === null ? "–" : taxelList(r.taxels || [r.taxel]),
			r.what,
			`${new Date(r.since).toTimeString().slice(0, 8)} (${age(r.since)})`];
		for (const c of cells)
			tr.insertCell().textContent = c;
		const sw = document.createElement("span");
		sw.className = "swatch";
		sw.style.background = r.color;
		tr.cells[4].prepend(sw);
		if (onPick && r.taxel !== null)
			tr.addEventListener("click", () => onPick(r.part, r.taxel));
	}
}
