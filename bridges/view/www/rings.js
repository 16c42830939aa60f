// SPDX-License-Identifier: GPL-2.0
//
// rings.js - the shown part's last seconds, every sample as it came (its
// time, raw and compensated values), for the taxel plot and the CSV
// export; and the plot of one taxel from it.

export class Rings {
	constructor(n, seconds) {
		this.n = n;
		this.span = seconds * 1e9;
		this.t = [];
		this.raw = [];
		this.values = [];
		this.head = 0;		// the oldest kept
	}

	push(st) {
		let t = st.stamp_ns;
		const last = this.t.length > this.head ? this.t[this.t.length - 1] : -Infinity;
		if (t < last - 1e9) {
			// time went back a second or more (a replay seeked): a new
			// recording
			this.t = [];
			this.raw = [];
			this.values = [];
			this.head = 0;
		} else if (t < last) {
			// a little: skind read a part's boards' rings one after the
			// other after a pause (its stamp is the newest board
			// sample's), the values are still the newest: kept, in order
			t = last;
		}
		this.t.push(t);
		this.raw.push(st.raw);
		this.values.push(st.values);
		while (this.head < this.t.length && this.t[this.head] < t - this.span) {
			this.raw[this.head] = this.values[this.head] = null;
			this.head++;
		}
		if (this.head > 4096) {	// compact now and then, not every push
			this.t = this.t.slice(this.head);
			this.raw = this.raw.slice(this.head);
			this.values = this.values.slice(this.head);
			this.head = 0;
		}
	}

	get length() {
		return this.t.length - this.head;
	}

	last() {
		return this.length ? this.t[this.t.length - 1] : 0;
	}

	forEach(fn) {
		for (let k = this.head; k < this.t.length; k++)
			fn(this.t[k], this.raw[k], this.values[k]);
	}
}

// taxel @i's @what ("raw" or "values") over the ring's span on @canvas,
// newest at the right, with @threshold dashed when given
export function plot(canvas, rings, i, what, threshold) {
	const ctx = canvas.getContext("2d");
	const W = canvas.width, H = canvas.height, L = 38, B = 14;
	ctx.fillStyle = "#ffffff";
	ctx.fillRect(0, 0, W, H);
	const t1 = rings.last(), t0 = t1 - rings.span;
	let lo = Infinity, hi = -Infinity;
	rings.forEach((t, raw, values) => {
		const v = (what === "raw" ? raw : values)[i];
		lo = Math.min(lo, v);
		hi = Math.max(hi, v);
	});
	if (threshold > 0)
		hi = Math.max(hi, threshold);
	if (!isFinite(lo)) {
		lo = 0;
		hi = 1;
	}
	if (hi - lo < 1) {
		hi += 0.5;
		lo -= 0.5;
	}
	const x = (t) => L + (t - t0) / rings.span * (W - L - 4);
	const y = (v) => 4 + (hi - v) / (hi - lo) * (H - B - 8);
	ctx.strokeStyle = "#cccccc";
	ctx.strokeRect(L, 4, W - L - 4, H - B - 8);
	ctx.fillStyle = "#444444";
	ctx.font = "10px sans-serif";
	ctx.textBaseline = "middle";
	ctx.fillText(hi.toFixed(hi - lo >= 10 ? 0 : 1), 2, y(hi) + 5);
	ctx.fillText(lo.toFixed(hi - lo >= 10 ? 0 : 1), 2, y(lo) - 3);
	ctx.fillText("-30 s", L, H - 6);
	ctx.fillText("now", W - 24, H - 6);
	if (threshold > 0) {
		ctx.setLineDash([4, 3]);
		ctx.strokeStyle = "#e6194b";
		ctx.beginPath();
		ctx.moveTo(L, y(threshold));
		ctx.lineTo(W - 4, y(threshold));
		ctx.stroke();
		ctx.setLineDash([]);
	}
	ctx.strokeStyle = "#1f4e9a";
	ctx.lineWidth = 1.2;
	ctx.beginPath();
	let k = 0;
	rings.forEach((t, raw, values) => {
		const v = (what === "raw" ? raw : values)[i];
		if (k++)
			ctx.lineTo(x(t), y(v));
		else
			ctx.moveTo(x(t), y(v));
	});
	ctx.stroke();
	ctx.lineWidth = 1;
}
