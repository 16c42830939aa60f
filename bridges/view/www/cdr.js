// SPDX-License-Identifier: GPL-2.0
//
// cdr.js - the CDR the server sends (XCDR1, after the 4-byte
// encapsulation header; little endian, as bridges/view/cdr.c writes it;
// a big-endian header is read too), and the one message the page
// decodes: skin_msgs/msg/PartState (docs/VIEW.md).

export class CdrReader {
	constructor(view) {
		this.v = view;
		if (view.byteLength < 4)
			throw new Error("CDR: shorter than its header");
		const kind = view.getUint8(1);	// 0: CDR_BE, 1: CDR_LE
		if (kind > 1)
			throw new Error(`CDR: encapsulation ${kind} not read here`);
		this.le = kind === 1;
		this.base = 4;		// alignment is counted from after the header
		this.at = 4;
	}

	align(n) {
		const off = (this.at - this.base) % n;
		if (off)
			this.at += n - off;
	}

	need(n) {
		if (this.at + n > this.v.byteLength)
			throw new Error(`CDR: ${n} bytes past the end at ${this.at}`);
	}

	u8() { this.need(1); return this.v.getUint8(this.at++); }
	u32() { this.align(4); this.need(4); const x = this.v.getUint32(this.at, this.le); this.at += 4; return x; }
	i32() { this.align(4); this.need(4); const x = this.v.getInt32(this.at, this.le); this.at += 4; return x; }
	f32() { this.align(4); this.need(4); const x = this.v.getFloat32(this.at, this.le); this.at += 4; return x; }
	f64() { this.align(8); this.need(8); const x = this.v.getFloat64(this.at, this.le); this.at += 8; return x; }
	u64() { this.align(8); this.need(8); const x = this.v.getBigUint64(this.at, this.le); this.at += 8; return x; }

	seqLength(elem) {
		const n = this.u32();
		this.align(elem);
		this.need(n * elem);
		return n;
	}

	u8s() {
		const n = this.seqLength(1);
		const a = new Uint8Array(this.v.buffer.slice(this.v.byteOffset + this.at,
							     this.v.byteOffset + this.at + n));
		this.at += n;
		return a;
	}

	f32s() {
		const n = this.seqLength(4);
		const a = new Float32Array(n);
		for (let i = 0; i < n; i++)
			a[i] = this.v.getFloat32(this.at + 4 * i, this.le);
		this.at += 4 * n;
		return a;
	}

	u32s() {
		const n = this.seqLength(4);
		const a = new Uint32Array(n);
		for (let i = 0; i < n; i++)
			a[i] = this.v.getUint32(this.at + 4 * i, this.le);
		this.at += 4 * n;
		return a;
	}

	vec(n, read) {
		const a = [];
		for (let i = 0; i < n; i++)
			a.push(read.call(this));
		return a;
	}

	time() {
		const sec = this.i32();
		const nsec = this.u32();
		return sec * 1e9 + nsec;	// ns, a double: 1 us resolution today
	}
}

// skin_msgs/msg/PartState (and its PartContact[])
export function readPartState(view) {
	const r = new CdrReader(view);
	const m = {};
	m.stamp_ns = r.time();
	m.sample = Number(r.u64());
	m.state = r.u32();
	m.raw = r.u8s();
	m.values = r.f32s();
	m.flags = r.u8s();
	m.baselines = r.f32s();
	m.thresholds = r.f32s();
	const nc = r.u32();
	if (nc > 4096)
		throw new Error(`PartState: ${nc} contacts`);
	m.contacts = [];
	for (let i = 0; i < nc; i++) {
		const c = {};
		c.id = r.u32();
		c.pressure = r.f32();
		c.cop2d = r.vec(2, r.f32);
		c.cop = r.vec(3, r.f64);
		c.force = r.vec(3, r.f64);
		c.normal = r.vec(3, r.f64);
		c.taxels = r.u32s();
		m.contacts.push(c);
	}
	return m;
}
