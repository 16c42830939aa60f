// SPDX-License-Identifier: GPL-2.0
//
// cdrcheck - the page's CDR reader (bridges/view/www/cdr.js) against npm's
// @foxglove/cdr writer: skin_msgs/msg/PartState messages of random sizes
// (none to 800 slots, none to 5 contacts, NaN and infinities, big and
// little endian) written by CdrWriter and read by readPartState() field
// for field; and truncated ones refused with an error, never a wrong read.
// For the daemon layer (tests/daemon/test_skind.py).
//
//	node cdrcheck.cjs COUNT
//
// SKIN_NODE_MODULES names the node_modules directory (scripts/node-tree).
// Prints "cdrcheck: N messages, N truncations refused" and exits 0, or
// names the first difference and exits 1.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const url = require("url");
const { CdrWriter, EncapsulationKind } = require(path.join(process.env.SKIN_NODE_MODULES, "@foxglove/cdr"));

let seed = 29;
function rnd() {	// xorshift32: the same messages every run
	seed ^= seed << 13;
	seed ^= seed >>> 17;
	seed ^= seed << 5;
	return (seed >>> 0) / 4294967296;
}
const int = (n) => Math.floor(rnd() * n);
const f32 = (x) => Math.fround(x);
const special = [NaN, Infinity, -Infinity, 0, -0];
const real = () => (rnd() < 0.05 ? special[int(special.length)] : (rnd() - 0.5) * 1e4);

function message() {
	const n = int(4) === 0 ? 0 : int(800);
	const m = {
		sec: int(2 ** 31), nsec: int(1e9), sample: BigInt(int(2 ** 32)) * 65536n + BigInt(int(65536)),
		state: int(32),
		raw: Uint8Array.from({ length: n }, () => int(256)),
		values: Float32Array.from({ length: n }, () => f32(real())),
		flags: Uint8Array.from({ length: n }, () => int(256)),
		baselines: Float32Array.from({ length: n }, () => f32(real())),
		thresholds: Float32Array.from({ length: n }, () => f32(real())),
		contacts: Array.from({ length: int(6) }, () => ({
			id: int(2 ** 32), pressure: f32(real()), cop2d: [f32(real()), f32(real())],
			cop: [real(), real(), real()], force: [real(), real(), real()], normal: [real(), real(), real()],
			taxels: Uint32Array.from({ length: int(40) }, () => int(2 ** 32)),
		})),
	};
	m.be = int(4) === 0;
	return m;
}

function write(m) {
	const w = new CdrWriter({ kind: m.be ? EncapsulationKind.CDR_BE : EncapsulationKind.CDR_LE });
	w.int32(m.sec).uint32(m.nsec).uint64(m.sample).uint32(m.state);
	w.uint8Array(m.raw, true).float32Array(m.values, true).uint8Array(m.flags, true);
	w.float32Array(m.baselines, true).float32Array(m.thresholds, true);
	w.sequenceLength(m.contacts.length);
	for (const c of m.contacts) {
		w.uint32(c.id).float32(c.pressure).float32Array(c.cop2d, false);
		w.float64Array(c.cop, false).float64Array(c.force, false).float64Array(c.normal, false);
		w.uint32Array(c.taxels, true);
	}
	return w.data;
}

const same = (a, b) => Object.is(a, b) || (a !== a && b !== b);

function compare(m, got) {
	const want = { stamp_ns: m.sec * 1e9 + m.nsec, sample: Number(m.sample), state: m.state };
	for (const k of Object.keys(want))
		if (!same(got[k], want[k]))
			return `${k}: ${got[k]} != ${want[k]}`;
	for (const k of ["raw", "values", "flags", "baselines", "thresholds"]) {
		if (got[k].length !== m[k].length)
			return `${k}: ${got[k].length} elements, not ${m[k].length}`;
		for (let i = 0; i < m[k].length; i++)
			if (!same(got[k][i], m[k][i]))
				return `${k}[${i}]: ${got[k][i]} != ${m[k][i]}`;
	}
	if (got.contacts.length !== m.contacts.length)
		return `${got.contacts.length} contacts, not ${m.contacts.length}`;
	for (let j = 0; j < m.contacts.length; j++)
		for (const k of ["id", "pressure", "cop2d", "cop", "force", "normal", "taxels"]) {
			const a = [].concat(Array.from(got.contacts[j][k].length === undefined ? [got.contacts[j][k]] : got.contacts[j][k]));
			const b = [].concat(Array.from(m.contacts[j][k].length === undefined ? [m.contacts[j][k]] : m.contacts[j][k]));
			if (a.length !== b.length || a.some((x, i) => !same(x, b[i])))
				return `contact ${j} ${k}: ${a} != ${b}`;
		}
	return null;
}

async function main() {
	// (the page's module as it is, imported from a copy named .mjs: this
	// tree has no package.json that would make node read .js as a module)
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "cdrcheck-"));
	const mjs = path.join(dir, "cdr.mjs");
	fs.copyFileSync(path.join(__dirname, "../../bridges/view/www/cdr.js"), mjs);
	const { readPartState } = await import(url.pathToFileURL(mjs).href);
	fs.rmSync(dir, { recursive: true });
	const count = Number(process.argv[2] || 200);
	let refused = 0;
	for (let k = 0; k < count; k++) {
		const m = message();
		const data = write(m);
		const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
		let why;
		try {
			why = compare(m, readPartState(view));
		} catch (e) {
			why = `not read: ${e.message}`;
		}
		if (why) {
			console.log(`cdrcheck: message ${k} (${m.raw.length} slots, ${m.contacts.length} contacts, ${m.be ? "BE" : "LE"}): ${why}`);
			process.exit(1);
		}
		// cut short: an error, never a message (a cut after the last
		// contact's taxels cannot be told from a whole one)
		const cut = int(data.byteLength - 4) + 4;
		if (cut < data.byteLength) {
			let read = null;
			try {
				read = readPartState(new DataView(data.buffer, data.byteOffset, cut));
			} catch (e) {
				refused++;
			}
			if (read && cut < data.byteLength - 3) {
				console.log(`cdrcheck: message ${k} cut at ${cut} of ${data.byteLength} bytes was read`);
				process.exit(1);
			}
		}
	}
	console.log(`cdrcheck: ${count} messages, ${refused} truncations refused`);
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
