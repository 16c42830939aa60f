// SPDX-License-Identifier: GPL-2.0
//
// draw.js - a part as its layout, built once as a list of shapes (a
// "scene") and then painted on a canvas or written as SVG: the PNG and
// the SVG export are the same drawing.
//
// Layout units (skinGui's or metres, docs/VIEW.md) go to pixels with one
// uniform scale that fits the layout's taxels and outlines in the view,
// y pointing up as in the layout's own coordinates.

import { viridis } from "./colormap.js";

export const TAXEL_TOUCHED = 1 << 0;
export const TAXEL_THERMAL = 1 << 2;

// SKIN_SHM_TAXEL_* fault bits (include/skin/shm.h) and their colours, the
// most serious first: a taxel's outline takes the first that applies
export const FAULTS = [
	{ name: "dead", bit: 1 << 5, color: "#111111", what: "its triangle sent nothing" },
	{ name: "saturated", bit: 1 << 4, color: "#e6194b", what: "at the end of its range" },
	{ name: "stuck", bit: 1 << 3, color: "#b04cff", what: "does not change" },
	{ name: "noisy", bit: 1 << 6, color: "#ff8c00", what: "moves too much untouched" },
	{ name: "diagnostics", bit: 1 << 7, color: "#f032e6", what: "the board's diagnostics" },
	{ name: "calibration", bit: 0, color: "#1e90ff", what: "its baseline is out of range" },
];
export const SILENT_COLOR = "#9a9a9a";
const FAULT_BITS = FAULTS.reduce((a, f) => a | f.bit, 0);

// the fault (one of FAULTS) of a taxel: its flags byte, else the health
// report's names for it (calibration faults are only there)
export function faultOf(flags, names) {
	for (const f of FAULTS)
		if ((f.bit && (flags & f.bit)) || (names && names.includes(f.name)))
			return f;
	return null;
}

export function faultBits(flags) {
	return flags & FAULT_BITS;
}

// what the layout needs once: its extent, and the board and triangle of
// each outline (the taxel nearest its centroid)
const geometryCache = new WeakMap();

export function geometry(lp) {
	let g = geometryCache.get(lp);
	if (g)
		return g;
	let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
	const grow = (x, y) => {
		if (x === null || y === null || !isFinite(x) || !isFinite(y))
			return;
		x0 = Math.min(x0, x); x1 = Math.max(x1, x);
		y0 = Math.min(y0, y); y1 = Math.max(y1, y);
	};
	const r = lp.radius > 0 ? lp.radius : 1;
	const placed = [];
	for (let i = 0; i < lp.n; i++)
		if (lp.x[i] !== null && lp.y[i] !== null && lp.kind[i] !== "-") {
			grow(lp.x[i] - r, lp.y[i] - r);
			grow(lp.x[i] + r, lp.y[i] + r);
			placed.push(i);
		}
	const owners = (lp.outlines || []).map((poly) => {
		let cx = 0, cy = 0;
		for (const [x, y] of poly) {
			grow(x, y);
			cx += x / poly.length;
			cy += y / poly.length;
		}
		let best = -1, bd = Infinity;
		for (const i of placed) {
			const d = (lp.x[i] - cx) ** 2 + (lp.y[i] - cy) ** 2;
			if (d < bd) {
				bd = d;
				best = i;
			}
		}
		return best < 0 ? null : { board: lp.board[best], triangle: lp.triangle[best] };
	});
	if (!isFinite(x0)) {
		x0 = y0 = 0;
		x1 = y1 = 1;
	}
	g = { x0, y0, x1, y1, placed, owners, r };
	geometryCache.set(lp, g);
	return g;
}

// layout units <-> pixels for a view of @w x @h with @right pixels kept
// for the colour bar
export function transform(lp, w, h, right, margin) {
	const g = geometry(lp);
	const aw = Math.max(1, w - right - 2 * margin), ah = Math.max(1, h - 2 * margin);
	const bw = Math.max(g.x1 - g.x0, 1e-9), bh = Math.max(g.y1 - g.y0, 1e-9);
	const s = Math.min(aw / bw, ah / bh);
	const ox = margin + (aw - bw * s) / 2, oy = margin + (ah - bh * s) / 2;
	return {
		s,
		px: (x, y) => [ox + (x - g.x0) * s, oy + (g.y1 - y) * s],
		layout: (X, Y) => [g.x0 + (X - ox) / s, g.y1 - (Y - oy) / s],
	};
}

// the value shown for taxel @i of state @st in @mode
export function shown(st, i, mode) {
	if (mode === "raw")
		return st.raw[i];
	if (mode === "binarized")
		return st.flags[i] & TAXEL_TOUCHED ? 1 : 0;
	return st.values[i];
}

// the colour range [lo, hi] of @mode: fixed, or the shown taxels' extent
export function colorRange(lp, st, opts) {
	if (opts.mode === "binarized")
		return [0, 1];
	if (!opts.auto || !st)
		return [opts.min, opts.max];
	let lo = Infinity, hi = -Infinity;
	for (const i of geometry(lp).placed) {
		const v = shown(st, i, opts.mode);
		if (isFinite(v)) {
			lo = Math.min(lo, v);
			hi = Math.max(hi, v);
		}
	}
	if (!isFinite(lo))
		return [opts.min, opts.max];
	if (opts.mode !== "raw") {
		// compensated values rest at 0: noise alone never fills the scale
		lo = Math.min(lo, 0);
		hi = Math.max(hi, 10);
	}
	if (hi - lo < 1)
		hi = lo + 1;
	return [lo, hi];
}

function fmt(v) {
	return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2);
}

function arrow(prims, x, y, dx, dy, color, width) {
	const len = Math.hypot(dx, dy);
	if (len < 1)
		return;
	const ux = dx / len, uy = dy / len, hl = Math.min(8, len / 2);
	const tx = x + dx, ty = y + dy;
	prims.push({ t: "line", pts: [[x, y], [tx, ty]], stroke: color, width });
	prims.push({ t: "poly", pts: [[tx, ty],
		[tx - hl * ux - hl * 0.5 * uy, ty - hl * uy + hl * 0.5 * ux],
		[tx - hl * ux + hl * 0.5 * uy, ty - hl * uy - hl * 0.5 * ux]], fill: color });
}

// The scene of part @lp (its layout) with state @st (PartState, or null
// before the first sample).  @o: { width, height, mode, auto, min, max,
// small, faults: Map taxel -> names (the health report), silent:
// Set of board addresses, hover: taxel or -1, forceScale: px per N }
export function scene(lp, st, o) {
	const small = !!o.small;
	const right = small ? 0 : 78;
	const T = transform(lp, o.width, o.height, right, small ? 4 : 16);
	const g = geometry(lp);
	const prims = [{ t: "rect", x: 0, y: 0, w: o.width, h: o.height, fill: "#ffffff" }];
	const [lo, hi] = colorRange(lp, st, o);
	const silent = o.silent || new Set();

	// triangles and pads: a silent board's hatched
	(lp.outlines || []).forEach((poly, k) => {
		const own = g.owners[k];
		const dead = own && silent.has(own.board);
		prims.push({ t: "poly", pts: poly.map(([x, y]) => T.px(x, y)),
			fill: dead ? "hatch" : "#f2f2f2", stroke: dead ? SILENT_COLOR : "#b8b8b8",
			width: 1, data: own ? { board: own.board, triangle: own.triangle,
						 silent: dead ? 1 : 0 } : null });
	});

	const r = Math.max(small ? 1 : 2, g.r * T.s);
	for (const i of g.placed) {
		const [X, Y] = T.px(lp.x[i], lp.y[i]);
		const silentTaxel = silent.has(lp.board[i]);
		let fill = "#d0d0d0";
		if (st && i < st.raw.length && !silentTaxel)
			fill = viridis((shown(st, i, o.mode) - lo) / (hi - lo));
		else if (silentTaxel)
			fill = SILENT_COLOR;
		const f = faultOf(st && i < st.flags.length ? st.flags[i] : 0, o.faults?.get(i));
		const thermal = lp.kind[i] === "h";
		const stroke = f ? f.color : thermal ? "#404040" : null;
		const width = f ? (small ? 1.5 : 2.5) : 1;
		if (thermal)	// a thermal pad: a square, never a pressure cell
			prims.push({ t: "poly", pts: [[X - r, Y - r], [X + r, Y - r], [X + r, Y + r], [X - r, Y + r]],
				fill, stroke, width, taxel: i, fault: f?.name });
		else if (o.blobs && !silentTaxel)	// skinGui's look: a soft spot
			prims.push({ t: "circle", x: X, y: Y, r: 2 * r, fill, blob: true, stroke: null, outline: stroke, taxel: i, fault: f?.name },
				   ...(stroke ? [{ t: "circle", x: X, y: Y, r, stroke, width }] : []));
		else
			prims.push({ t: "circle", x: X, y: Y, r, fill, stroke, width, taxel: i, fault: f?.name });
		if (i === o.hover)
			prims.push({ t: "circle", x: X, y: Y, r: r + 3, stroke: "#000000", width: 2 });
	}

	// contacts: the centre of pressure, its id and pressure, and |force|
	// as an arrow up the page from it (docs/VIEW.md: what the 2D arrow says)
	if (st)
		for (const c of st.contacts) {
			const [cx, cy] = c.cop2d;
			if (!isFinite(cx) || !isFinite(cy))
				continue;
			const [X, Y] = T.px(cx, cy);
			const fmag = Math.hypot(...c.force);
			prims.push({ t: "circle", x: X, y: Y, r: small ? 3 : 6, fill: "#ffffff", stroke: "#d00000", width: 2 });
			prims.push({ t: "circle", x: X, y: Y, r: small ? 1 : 2, fill: "#d00000" });
			if (fmag > 0 && isFinite(fmag))
				arrow(prims, X, Y, 0, -Math.min(o.height / 4, Y - 4, fmag * (o.forceScale || 1)), "#d00000", small ? 1.5 : 2.5);
			if (!small)
				prims.push({ t: "text", x: X + 9, y: Y + 12, size: 11, fill: "#d00000",
					text: `#${c.id} p ${fmt(c.pressure)}${isFinite(fmag) ? ` |F| ${fmt(fmag)} N` : ""}` });
		}

	// the colour bar
	if (!small) {
		const x = o.width - right + 14, y0 = 24, y1 = o.height - 24, bw = 16;
		if (o.mode === "binarized") {
			prims.push({ t: "rect", x, y: y0, w: bw, h: bw, fill: viridis(1), stroke: "#444444" });
			prims.push({ t: "text", x: x + bw + 4, y: y0 + bw / 2, size: 11, fill: "#222222", text: "on" });
			prims.push({ t: "rect", x, y: y0 + 2 * bw, w: bw, h: bw, fill: viridis(0), stroke: "#444444" });
			prims.push({ t: "text", x: x + bw + 4, y: y0 + 2.5 * bw, size: 11, fill: "#222222", text: "off" });
		} else {
			const steps = 64, h = (y1 - y0) / steps;
			for (let k = 0; k < steps; k++)
				prims.push({ t: "rect", x, y: y1 - (k + 1) * h, w: bw, h: h + 0.5, fill: viridis((k + 0.5) / steps) });
			prims.push({ t: "rect", x, y: y0, w: bw, h: y1 - y0, stroke: "#444444" });
			for (const [v, y] of [[hi, y0], [(lo + hi) / 2, (y0 + y1) / 2], [lo, y1]])
				prims.push({ t: "text", x: x + bw + 4, y, size: 11, fill: "#222222", text: fmt(v) });
		}
		prims.push({ t: "text", x: 8, y: 12, size: 12, fill: "#222222",
			text: `${o.mode}${o.mode === "binarized" ? "" : o.auto ? ", auto range" : ", fixed range"}` +
				(o.title ? ` · ${o.title}` : "") });
	}
	return { prims, T, range: [lo, hi], r };
}

function hatchPattern(ctx) {
	const c = document.createElement("canvas");
	c.width = c.height = 8;
	const g = c.getContext("2d");
	g.fillStyle = "#e4e4e4";
	g.fillRect(0, 0, 8, 8);
	g.strokeStyle = SILENT_COLOR;
	g.lineWidth = 1.5;
	g.beginPath();
	g.moveTo(0, 8); g.lineTo(8, 0);
	g.moveTo(-2, 2); g.lineTo(2, -2);
	g.moveTo(6, 10); g.lineTo(10, 6);
	g.stroke();
	return ctx.createPattern(c, "repeat");
}

export function paint(canvas, sc) {
	const ctx = canvas.getContext("2d");
	const hatch = hatchPattern(ctx);
	ctx.textBaseline = "middle";
	for (const p of sc.prims) {
		ctx.beginPath();
		if (p.t === "rect") {
			ctx.rect(p.x, p.y, p.w, p.h);
		} else if (p.t === "circle") {
			ctx.arc(p.x, p.y, p.r, 0, 2 * Math.PI);
		} else if (p.t === "poly" || p.t === "line") {
			p.pts.forEach(([x, y], k) => (k ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
			if (p.t === "poly")
				ctx.closePath();
		} else if (p.t === "text") {
			ctx.font = `${p.size}px sans-serif`;
			ctx.fillStyle = p.fill;
			ctx.fillText(p.text, p.x, p.y);
			continue;
		}
		if (p.blob) {
			const g = ctx.createRadialGradient(p.x, p.y, 0, p.x, p.y, p.r);
			g.addColorStop(0, p.fill);
			g.addColorStop(0.45, p.fill + "cc");
			g.addColorStop(1, p.fill + "00");
			ctx.fillStyle = g;
			ctx.fill();
		} else if (p.fill) {
			ctx.fillStyle = p.fill === "hatch" ? hatch : p.fill;
			ctx.fill();
		}
		if (p.stroke) {
			ctx.strokeStyle = p.stroke;
			ctx.lineWidth = p.width || 1;
			ctx.stroke();
		}
	}
}

function esc(s) {
	return String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;" })[c]);
}

const n2 = (v) => Math.round(v * 100) / 100;

// the scene as a standalone SVG document (data-taxel/data-fault on the
// taxels, data-board/data-triangle on the outlines)
export function svg(sc, width, height, title, id = "hatch") {
	const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
		`<title>${esc(title)}</title>`,
		`<defs><pattern id="${id}" width="8" height="8" patternUnits="userSpaceOnUse"><rect width="8" height="8" fill="#e4e4e4"/><path d="M0 8L8 0M-2 2L2 -2M6 10L10 6" stroke="${SILENT_COLOR}" stroke-width="1.5"/></pattern></defs>`];
	const blobs = new Set(sc.prims.filter((p) => p.blob).map((p) => p.fill));
	if (blobs.size)
		out.push(`<defs>${[...blobs].map((c) => `<radialGradient id="${id}-${c.slice(1)}">` +
			`<stop offset="0" stop-color="${c}"/><stop offset="0.45" stop-color="${c}" stop-opacity="0.8"/>` +
			`<stop offset="1" stop-color="${c}" stop-opacity="0"/></radialGradient>`).join("")}</defs>`);
	for (const p of sc.prims) {
		const fill = p.blob ? `url(#${id}-${p.fill.slice(1)})` :
			p.fill ? (p.fill === "hatch" ? `url(#${id})` : p.fill) : "none";
		const stroke = p.stroke ? ` stroke="${p.stroke}" stroke-width="${p.width || 1}"` : "";
		let data = "";
		if (p.taxel !== undefined)
			data += ` data-taxel="${p.taxel}"`;
		if (p.fault)
			data += ` data-fault="${p.fault}"`;
		if (p.data)
			data += ` data-board="${p.data.board}" data-triangle="${p.data.triangle}"`;
		if (p.t === "rect")
			out.push(`<rect x="${n2(p.x)}" y="${n2(p.y)}" width="${n2(p.w)}" height="${n2(p.h)}" fill="${fill}"${stroke}/>`);
		else if (p.t === "circle")
			out.push(`<circle cx="${n2(p.x)}" cy="${n2(p.y)}" r="${n2(p.r)}" fill="${fill}"${stroke}${data}/>`);
		else if (p.t === "poly")
			out.push(`<polygon points="${p.pts.map(([x, y]) => `${n2(x)},${n2(y)}`).join(" ")}" fill="${fill}"${stroke}${data}/>`);
		else if (p.t === "line")
			out.push(`<polyline points="${p.pts.map(([x, y]) => `${n2(x)},${n2(y)}`).join(" ")}" fill="none"${stroke}/>`);
		else if (p.t === "text")
			out.push(`<text x="${n2(p.x)}" y="${n2(p.y)}" font-family="sans-serif" font-size="${p.size}" fill="${p.fill}" dominant-baseline="middle">${esc(p.text)}</text>`);
	}
	out.push("</svg>");
	return out.join("\n");
}

// the taxel of @lp nearest pixel (X, Y), within 1.5 radii; -1: none
export function taxelAtPixel(lp, sc, X, Y) {
	const [x, y] = sc.T.layout(X, Y);
	const g = geometry(lp);
	let best = -1, bd = (1.5 * Math.max(g.r, 2 / sc.T.s)) ** 2;
	for (const i of g.placed) {
		const d = (lp.x[i] - x) ** 2 + (lp.y[i] - y) ** 2;
		if (d < bd) {
			bd = d;
			best = i;
		}
	}
	return best;
}
