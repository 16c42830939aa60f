// SPDX-License-Identifier: GPL-2.0
//
// page.js - skin-view's page: the whole body (#/) and one part
// (#/part/NAME) from the server's Foxglove channels (docs/VIEW.md):
// /skin/layout, /skin/health, /skin/replay, /skin/PART/state.  No library,
// nothing fetched from elsewhere.  window.skinView is what the browser
// tests read (tests/daemon/browser.cjs).

import { FoxClient } from "./ws.js";
import { readPartState } from "./cdr.js";
import { scene, paint, svg, taxelAtPixel, faultOf, FAULTS, TAXEL_TOUCHED, geometry } from "./draw.js";
import { digest, fillTable } from "./health.js";
import { Rings, plot } from "./rings.js";

const $ = (id) => document.getElementById(id);
const STATE_RE = /^\/skin\/([^/]+)\/state$/;

const view = {
	layout: null,		// the newest /skin/layout
	lparts: new Map(),	// part -> its layout
	states: new Map(),	// part -> newest PartState
	health: null,		// the newest /skin/health
	dig: digest(null, null),
	replay: null,		// the newest /skin/replay
	route: { name: "body" },
	opts: { mode: "compensated", auto: true, min: 0, max: 100, blobs: false },
	hover: -1,
	rings: null,		// the shown part's 30 s
	scenes: new Map(),	// part -> the scene last painted
	forceMax: 0,		// the largest |force| seen: the arrows' scale
	dirty: new Set(),
	errors: 0,
};

// --- the connection ------------------------------------------------------

const fox = new FoxClient(`ws://${location.host}/`, {
	onState: (t) => { $("conn").textContent = t; },
	onInfo: (info) => { $("server").textContent = info.name; },
	onChannels: () => { subscribe(); replayBar(); },
	onServices: () => { actionsBar(); replayBar(); },
	onMessage: (topic, data, ts, ch) => {
		try {
			message(topic, data, ch);
		} catch (e) {
			view.errors++;
			console.warn(`skin-view: ${topic}: ${e.message}`);
		}
	},
});

function subscribe() {
	const want = ["/skin/layout", "/skin/health", "/skin/replay"];
	for (const name of shownParts())
		want.push(`/skin/${name}/state`);
	fox.want(want);
	const parts = [...fox.byTopic.keys()].map((t) => STATE_RE.exec(t)?.[1]).filter(Boolean);
	$("conn").dataset.parts = parts.join(" ");
}

function shownParts() {
	if (view.route.name === "part")
		return [view.route.part];
	return view.layout ? view.layout.parts.map((p) => p.name) : [];
}

const utf8 = new TextDecoder();

function message(topic, data, ch) {
	if (topic === "/skin/layout") {
		view.layout = JSON.parse(utf8.decode(data));
		view.lparts = new Map(view.layout.parts.map((p) => [p.name, p]));
		view.dig = digest(view.health, view.layout);
		if (view.rings && view.route.name === "part")
			view.rings = null;
		route();
		return;
	}
	if (topic === "/skin/health") {
		view.health = JSON.parse(utf8.decode(data));
		view.dig = digest(view.health, view.layout);
		healthView();
		for (const p of view.lparts.keys())
			view.dirty.add(p);
		return;
	}
	if (topic === "/skin/replay") {
		view.replay = JSON.parse(utf8.decode(data));
		replayBar();
		return;
	}
	const m = STATE_RE.exec(topic);
	if (!m || ch.schemaName !== "skin_msgs/msg/PartState")
		return;
	const st = readPartState(data);
	const name = m[1];
	view.states.set(name, st);
	for (const c of st.contacts) {
		const f = Math.hypot(...c.force);
		if (isFinite(f))
			view.forceMax = Math.max(view.forceMax, f);
	}
	if (view.route.name === "part" && view.route.part === name) {
		if (!view.rings || view.rings.n !== st.raw.length)
			view.rings = new Rings(st.raw.length, 30);
		view.rings.push(st);
	}
	view.dirty.add(name);
}

// --- drawing -------------------------------------------------------------

function sceneOf(name, width, height, small) {
	const lp = view.lparts.get(name);
	const d = view.dig.parts.get(name);
	const st = view.states.get(name) || null;
	const usable = st && st.raw.length === lp.n ? st : null;
	return scene(lp, usable, { ...view.opts, width, height, small, title: small ? "" : name,
		faults: d?.faults, silent: d?.silent, hover: small ? -1 : view.hover,
		forceScale: view.forceMax > 0 ? height / 4 / view.forceMax : 1 });
}

function draw(canvas, name, small) {
	if (!view.lparts.has(name))
		return;
	const sc = sceneOf(name, canvas.width, canvas.height, small);
	paint(canvas, sc);
	if (!small || !view.scenes.has(name) || view.route.name === "body")
		view.scenes.set(name, sc);
	canvas.dataset.sample = view.states.get(name)?.sample ?? "";
}

function frame() {
	if (view.dirty.size) {
		for (const c of document.querySelectorAll("canvas[data-part]"))
			if (view.dirty.has(c.dataset.part))
				draw(c, c.dataset.part, c.classList.contains("small"));
		if (view.route.name === "part" && view.dirty.has(view.route.part)) {
			taxelInfo();
			contactsList();
		}
		view.dirty.clear();
		readiness();
	}
	requestAnimationFrame(frame);
}

function readiness() {
	const names = shownParts();
	// (a part skind does not run, all its boards gone say, may never
	// send a sample: its health says so)
	const quiet = (n) => { const s = view.dig.parts.get(n)?.state; return s && s !== "running"; };
	const ok = !!view.layout && names.length > 0 &&
		names.every((n) => view.lparts.has(n) && view.scenes.has(n) && (view.states.has(n) || quiet(n)));
	skinView.ready = ok;
	document.body.dataset.ready = ok ? "1" : "0";
}

// --- routes --------------------------------------------------------------

function route() {
	const m = /^#\/part\/([^/]+)$/.exec(location.hash);
	const before = view.route;
	view.route = m ? { name: "part", part: decodeURIComponent(m[1]) } : { name: "body" };
	if (before.name !== view.route.name || before.part !== view.route.part) {
		view.hover = -1;
		view.rings = null;
	}
	$("body-view").hidden = view.route.name !== "body";
	$("part-view").hidden = view.route.name !== "part";
	if (view.route.name === "body")
		bodyView();
	else
		partView();
	subscribe();
	healthView();
	for (const p of view.lparts.keys())
		view.dirty.add(p);
	readiness();
}

function bodyView() {
	const grid = $("body-grid");
	grid.textContent = "";
	document.title = "skin-view: the whole body";
	for (const lp of view.layout?.parts || []) {
		const a = document.createElement("a");
		a.className = "card";
		a.href = `#/part/${encodeURIComponent(lp.name)}`;
		a.dataset.part = lp.name;
		const h = document.createElement("h3");
		h.textContent = lp.name;
		const badge = document.createElement("span");
		badge.className = "badge";
		badge.dataset.partBadge = lp.name;
		h.append(" ", badge);
		const c = document.createElement("canvas");
		c.width = 260;
		c.height = 190;
		c.className = "small";
		c.dataset.part = lp.name;
		a.append(h, c);
		grid.append(a);
	}
	badges();
}

function badges() {
	for (const b of document.querySelectorAll("[data-part-badge]")) {
		const d = view.dig.parts.get(b.dataset.partBadge);
		const level = d ? d.level : -1;
		b.className = "badge " + (["ok", "warn", "bad"][level] || "unknown");
		b.dataset.level = level;
		b.textContent = level < 0 ? "no health yet" : level === 0 ? "ok" :
			d.count ? `${d.count} fault${d.count > 1 ? "s" : ""}` : level === 1 ? "counters" : "fault";
	}
}

function partView() {
	const name = view.route.part;
	document.title = `skin-view: ${name}`;
	$("part-name").textContent = name;
	const lp = view.lparts.get(name);
	$("part-source").textContent = lp ? `${lp.n} slots, ${geometry(lp).placed.length} drawn; layout: ${lp.source}` :
		view.layout ? "no such part in the layout" : "waiting for the layout";
	$("part-canvas").dataset.part = name;
	$("part-badge").dataset.partBadge = name;
	taxelInfo();
	contactsList();
}

function healthView() {
	badges();
	const only = view.route.name === "part" ? new Set([view.route.part]) : null;
	fillTable($("health-table").tBodies[0], view.dig.rows, only, (part, taxel) => {
		if (view.route.name !== "part" || view.route.part !== part)
			location.hash = `#/part/${encodeURIComponent(part)}`;
		view.hover = taxel;
		view.dirty.add(part);
	});
	const s = view.health?.skind;
	$("skind").textContent = !view.health ? "" : !s?.connected ? "skind: not connected" :
		`skind: generation ${s.generation}` + (s.faults === false ? " (it lists no faulty taxels: a skind without the faults command)" : "");
	$("skind").className = s && !s.connected ? "bad" : "";
	const e = view.health?.eth;
	$("eth").textContent = !e ? "" : e.error ? `ETH counters ${e.file}: ${e.error}` :
		`ETH counters ${e.file}, ${Number(e.age_s).toFixed(0)} s old`;
}

// --- the taxel under the pointer -----------------------------------------

function taxelAt(part, i) {
	const lp = view.lparts.get(part);
	if (!lp || i < 0 || i >= lp.n)
		return null;
	const st = view.states.get(part);
	const names = view.dig.parts.get(part)?.faults.get(i);
	const f = faultOf(st ? st.flags[i] : 0, names);
	const prim = view.scenes.get(part)?.prims.find((p) => p.taxel === i);
	return {
		part, id: i, port: i + 1,
		kind: { t: "tactile", h: "thermal", "-": "none" }[lp.kind[i]] || lp.kind[i],
		board: lp.board[i], triangle: lp.triangle[i], channel: lp.channel[i],
		x: lp.x[i], y: lp.y[i],
		sample: st ? st.sample : null,
		raw: st ? st.raw[i] : null,
		baseline: st ? st.baselines[i] : null,
		threshold: st ? st.thresholds[i] : null,
		compensated: st ? st.values[i] : null,
		touched: st ? !!(st.flags[i] & TAXEL_TOUCHED) : null,
		flags: st ? st.flags[i] : null,
		fault: f ? f.name : null,
		faults: names || [],
		color: prim ? prim.fill : null,
		outline: prim ? (prim.blob ? prim.outline : prim.stroke) : null,
	};
}

const fix = (v, d) => (v === null || v === undefined ? "–" : Number.isInteger(v) ? String(v) : v.toFixed(d));

function taxelInfo() {
	const box = $("taxel");
	const part = view.route.part;
	const t = view.hover >= 0 ? taxelAt(part, view.hover) : null;
	if (!t) {
		box.dataset.taxel = "";
		$("taxel-text").textContent = "Point at a taxel.";
		return;
	}
	box.dataset.taxel = t.id;
	const rows = [
		["taxel", `${t.id} (port position ${t.port})`], ["kind", t.kind],
		["board", t.board < 0 ? "–" : t.board], ["triangle", t.triangle < 0 ? "–" : t.triangle],
		["channel", t.channel < 0 ? "–" : t.channel],
		["raw", t.raw === null ? "–" : `${t.raw} (255 − raw: ${255 - t.raw})`],
		["baseline", fix(t.baseline, 2)], ["threshold", t.threshold ? fix(t.threshold, 2) : "none yet"],
		["compensated", fix(t.compensated, 2)], ["touched", t.touched ? "yes" : "no"],
		["fault", t.fault ? [t.fault, ...t.faults.filter((n) => n !== t.fault)].join(", ") : "none"],
	];
	const dl = $("taxel-text");
	dl.textContent = "";
	for (const [k, v] of rows) {
		const dt = document.createElement("dt");
		dt.textContent = k;
		const dd = document.createElement("dd");
		dd.textContent = v;
		if (k === "fault" && t.fault)
			dd.style.color = FAULTS.find((f) => f.name === t.fault).color;
		dl.append(dt, dd);
	}
	if (view.rings)
		plot($("taxel-plot"), view.rings, t.id, view.opts.mode === "raw" ? "raw" : "values",
		     view.opts.mode === "raw" ? null : t.threshold);
}

function contactsList() {
	const ul = $("contacts");
	const st = view.states.get(view.route.part);
	ul.textContent = "";
	for (const c of st?.contacts || []) {
		const li = document.createElement("li");
		const f = Math.hypot(...c.force);
		const n = Math.hypot(...c.normal);
		let angle = "";
		if (f > 0 && n > 0) {
			const cos = -(c.force[0] * c.normal[0] + c.force[1] * c.normal[1] + c.force[2] * c.normal[2]) / f / n;
			angle = `, ${(Math.acos(Math.max(-1, Math.min(1, cos))) * 180 / Math.PI).toFixed(0)}° from the inward normal`;
		}
		li.dataset.contact = c.id;
		li.textContent = `#${c.id}: ${c.taxels.length} taxels, pressure ${c.pressure.toFixed(1)}` +
			(isFinite(f) ? `, |force| ${f.toFixed(2)} N${angle}` : "");
		ul.append(li);
	}
	if (!ul.childElementCount)
		ul.textContent = "none";
}

// --- export --------------------------------------------------------------

// the whole body's cards side by side, as the page shows them
function bodyComposite() {
	const names = view.layout ? view.layout.parts.map((p) => p.name) : [];
	const cols = Math.min(4, Math.max(1, names.length)), w = 260, h = 190, head = 20;
	return { names, cols, w, h, head, W: cols * w, H: Math.ceil(names.length / cols) * (h + head) };
}

function exportPNG() {
	if (view.route.name === "part")
		return $("part-canvas").toDataURL("image/png");
	const c = bodyComposite();
	const out = document.createElement("canvas");
	out.width = Math.max(1, c.W);
	out.height = Math.max(1, c.H);
	const ctx = out.getContext("2d");
	ctx.fillStyle = "#ffffff";
	ctx.fillRect(0, 0, out.width, out.height);
	c.names.forEach((name, k) => {
		const x = (k % c.cols) * c.w, y = Math.floor(k / c.cols) * (c.h + c.head);
		ctx.fillStyle = "#222222";
		ctx.font = "13px sans-serif";
		ctx.textBaseline = "middle";
		ctx.fillText(name, x + 6, y + c.head / 2);
		const src = document.querySelector(`canvas.small[data-part="${CSS.escape(name)}"]`);
		if (src)
			ctx.drawImage(src, x, y + c.head);
	});
	return out.toDataURL("image/png");
}

function exportSVG() {
	if (view.route.name === "part") {
		const cv = $("part-canvas");
		return svg(sceneOf(view.route.part, cv.width, cv.height, false), cv.width, cv.height,
			   `skin-view ${view.route.part}`);
	}
	const c = bodyComposite();
	const parts = c.names.map((name, k) => {
		const x = (k % c.cols) * c.w, y = Math.floor(k / c.cols) * (c.h + c.head);
		const inner = svg(sceneOf(name, c.w, c.h, true), c.w, c.h, name, `hatch-${k}`);
		return `<g transform="translate(${x} ${y})"><text x="6" y="${c.head / 2}" font-family="sans-serif" font-size="13" dominant-baseline="middle">${name.replace(/[<&]/g, "")}</text>` +
			`<g transform="translate(0 ${c.head})">${inner.replace(/^<svg[^>]*>/, "<svg>").replace(/<svg>/, `<svg width="${c.w}" height="${c.h}">`)}</g></g>`;
	});
	return `<svg xmlns="http://www.w3.org/2000/svg" width="${c.W}" height="${c.H}" viewBox="0 0 ${c.W} ${c.H}">\n` +
		`<rect width="${c.W}" height="${c.H}" fill="#ffffff"/>\n${parts.join("\n")}\n</svg>`;
}

// the shown part's last 30 s between @t0 and @t1 (seconds since the
// epoch; omitted: all of it), one row per sample: time, then a column
// per taxel of @what ("values": compensated, "raw")
function exportCSV(part, t0 = -Infinity, t1 = Infinity, what = "values") {
	const lp = view.lparts.get(part);
	if (!lp)
		throw new Error(`no part ${part}`);
	const ids = geometry(lp).placed;
	const lines = ["time_s," + ids.map((i) => `taxel_${i}`).join(",")];
	if (view.rings && view.route.name === "part" && view.route.part === part)
		view.rings.forEach((t, raw, values) => {
			const s = t / 1e9;
			if (s < t0 || s > t1)
				return;
			const src = what === "raw" ? raw : values;
			lines.push(s.toFixed(6) + "," + ids.map((i) => (what === "raw" ? String(src[i]) : src[i].toPrecision(6))).join(","));
		});
	return lines.join("\n") + "\n";
}

function download(name, href) {
	const a = document.createElement("a");
	a.href = href;
	a.download = name;
	document.body.append(a);
	a.click();
	a.remove();
}

function blobURL(text, type) {
	const u = URL.createObjectURL(new Blob([text], { type }));
	setTimeout(() => URL.revokeObjectURL(u), 10000);
	return u;
}

function stamp() {
	return new Date().toISOString().replace(/[:.]/g, "-").slice(0, 19);
}

function viewName() {
	return view.route.name === "part" ? view.route.part : "body";
}

// --- replay --------------------------------------------------------------

function replayBar() {
	const on = fox.byTopic.has("/skin/replay") || fox.services.has("/skin/replay");
	$("replay").hidden = !on;
	const r = view.replay;
	if (!on || !r)
		return;
	const seek = $("replay-seek");
	seek.max = r.duration_s;
	if (document.activeElement !== seek)
		seek.value = r.t_s;
	$("replay-time").textContent = `${r.t_s.toFixed(1)} / ${r.duration_s.toFixed(1)} s`;
	$("replay-file").textContent = r.file || "";
	$("replay-play").textContent = r.playing ? "pause" : "play";
	$("replay-play").dataset.playing = r.playing ? "1" : "0";
	if (document.activeElement !== $("replay-speed"))
		$("replay-speed").value = String(r.speed);
	$("replay").dataset.t = r.t_s;
}

function replayCall(req) {
	$("replay-msg").textContent = "";
	return fox.call("/skin/replay", req).catch((e) => {
		$("replay-msg").textContent = e.message;
		throw e;
	});
}

// --- actions -------------------------------------------------------------

function actionsBar() {
	const cal = fox.services.has("/skin/calibrate"), set = fox.services.has("/skin/set");
	$("actions").hidden = !(cal || set);
	$("act-calibrate").hidden = !cal;
	$("act-calibrate-all").hidden = !cal;
	$("act-set").hidden = !set;
	paramValue();
}

// the chosen parameter's value now, when the server can say (no token)
function paramValue() {
	if (!fox.services.has("/skin/get"))
		return;
	const param = $("act-param").value;
	fox.call("/skin/get", { param }).then((r) => {
		const v = r.params?.[param];
		if (v !== undefined && $("act-param").value === param && document.activeElement !== $("act-value"))
			$("act-value").value = v;
	}).catch((e) => { $("act-msg").textContent = e.message; });
}

async function act(name, req) {
	const out = $("act-msg");
	out.textContent = "…";
	out.className = "";
	try {
		const r = await fox.call(name, { token: $("act-token").value, ...req });
		out.textContent = r.ok === false ? `refused: ${r.error || JSON.stringify(r)}` :
			r.message || (r.param ? `${r.param} = ${r.value}` : "done");
		out.className = r.ok === false ? "bad" : "ok";
	} catch (e) {
		out.textContent = e.message;
		out.className = "bad";
	}
}

// --- controls ------------------------------------------------------------

function controls() {
	const canvas = $("part-canvas");
	canvas.addEventListener("mousemove", (ev) => {
		const part = view.route.part;
		const sc = view.scenes.get(part);
		const lp = view.lparts.get(part);
		if (!sc || !lp)
			return;
		const r = canvas.getBoundingClientRect();
		const i = taxelAtPixel(lp, sc, (ev.clientX - r.left) * canvas.width / r.width,
				       (ev.clientY - r.top) * canvas.height / r.height);
		if (i >= 0 && i !== view.hover) {
			view.hover = i;
			view.dirty.add(part);
		}
	});
	const opts = () => {
		view.opts.mode = $("mode").value;
		view.opts.blobs = $("shape").value === "blobs";
		view.opts.auto = $("auto").checked;
		view.opts.min = Number($("min").value);
		view.opts.max = Number($("max").value);
		$("min").disabled = $("max").disabled = view.opts.auto;
		for (const p of view.lparts.keys())
			view.dirty.add(p);
	};
	for (const id of ["mode", "shape", "auto", "min", "max"])
		$(id).addEventListener("input", opts);
	$("mode").addEventListener("change", () => {
		// a fixed range that suits the mode
		if (view.opts.auto)
			return;
		[$("min").value, $("max").value] = $("mode").value === "raw" ? [0, 255] : [0, 100];
		opts();
	});
	opts();
	$("export-png").addEventListener("click", () => download(`skin-${viewName()}-${stamp()}.png`, exportPNG()));
	$("export-svg").addEventListener("click", () => download(`skin-${viewName()}-${stamp()}.svg`,
		blobURL(exportSVG(), "image/svg+xml")));
	$("export-csv").addEventListener("click", () => {
		const s = Number($("csv-seconds").value) || 30;
		const now = view.rings ? view.rings.last() / 1e9 : 0;
		download(`skin-${viewName()}-${stamp()}.csv`,
			 blobURL(exportCSV(view.route.part, now - s, Infinity, $("csv-what").value), "text/csv"));
	});
	$("replay-play").addEventListener("click", () =>
		replayCall({ op: view.replay?.playing ? "pause" : "play" }).catch(() => {}));
	$("replay-seek").addEventListener("change", () =>
		replayCall({ op: "seek", t_s: Number($("replay-seek").value) }).catch(() => {}));
	$("replay-speed").addEventListener("change", () =>
		replayCall({ op: "speed", speed: Number($("replay-speed").value) }).catch(() => {}));
	$("act-calibrate").addEventListener("click", () => act("/skin/calibrate", { part: view.route.part || "all" }));
	$("act-calibrate-all").addEventListener("click", () => act("/skin/calibrate", { part: "all" }));
	$("act-set-go").addEventListener("click", () => act("/skin/set", { param: $("act-param").value, value: $("act-value").value }));
	$("act-form").addEventListener("submit", (ev) => ev.preventDefault());
	$("act-param").addEventListener("change", paramValue);
	window.addEventListener("hashchange", route);
	// a health table "since" reads as an age: keep it true
	setInterval(healthView, 5000);
}

window.skinView = {
	ready: false,
	get parts() {
		const o = {};
		for (const [name, lp] of view.lparts) {
			const st = view.states.get(name);
			o[name] = { layout: lp, sample: st ? st.sample : null, stamp_ns: st ? st.stamp_ns : null,
				state: st ? st.state : null,
				contacts: st ? st.contacts.map((c) => ({ ...c, taxels: [...c.taxels] })) : [],
				faults: [...(view.dig.parts.get(name)?.faults.keys() || [])],
				silent: [...(view.dig.parts.get(name)?.silent || [])] };
		}
		return o;
	},
	get health() { return view.health; },
	get replay() { return view.replay; },
	get route() { return { ...view.route }; },
	get errors() { return view.errors; },
	setMode(mode, auto = true, min = 0, max = 100) {
		$("mode").value = mode;
		$("auto").checked = auto;
		$("min").value = min;
		$("max").value = max;
		$("auto").dispatchEvent(new Event("input"));
	},
	// where taxel @i of the shown part is on its canvas (CSS pixels from
	// its top left corner), for a test to point at it
	pixelOf(i) {
		const part = view.route.part, lp = view.lparts.get(part), sc = view.scenes.get(part);
		if (!lp || !sc || lp.x[i] === null)
			return null;
		const c = $("part-canvas"), r = c.getBoundingClientRect();
		const [X, Y] = sc.T.px(lp.x[i], lp.y[i]);
		return { x: X * r.width / c.width, y: Y * r.height / c.height };
	},
	taxelAt,
	exportPNG,
	exportSVG,
	exportCSV,
	replayCall: (req) => fox.call("/skin/replay", req),
};

controls();
route();
requestAnimationFrame(frame);
