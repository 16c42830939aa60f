// SPDX-License-Identifier: GPL-2.0
//
// colormap.js - viridis, the perceptually uniform colour map of
// matplotlib (dark blue for low, yellow for high), as a polynomial fit of
// its table (a 6th-order fit per channel, within 1/255 of it), sampled
// once into 256 entries.

const C = [
	[0.2777273272234177, 0.005407344544966578, 0.3340998053353061],
	[0.1050930431085774, 1.404613529898575, 1.384590162594685],
	[-0.3308618287255563, 0.214847559468213, 0.09509516302823659],
	[-4.634230498983486, -5.799100973351585, -19.33244095627987],
	[6.228269936347081, 14.17993336680509, 56.69055260068105],
	[4.776384997670288, -13.74514537774601, -65.35303263337234],
	[-5.435455855934631, 4.645852612178535, 26.3124352495832],
];

function hex2(x) {
	return Math.max(0, Math.min(255, Math.round(x * 255))).toString(16).padStart(2, "0");
}

const LUT = [];
for (let i = 0; i < 256; i++) {
	const t = i / 255;
	const c = [0, 1, 2].map((k) => {
		let v = 0;
		for (let j = C.length - 1; j >= 0; j--)
			v = v * t + C[j][k];
		return v;
	});
	LUT.push("#" + c.map(hex2).join(""));
}

// the colour of @t in [0, 1] (clamped; NaN: grey)
export function viridis(t) {
	if (!(t === t))
		return "#808080";
	return LUT[Math.max(0, Math.min(255, Math.round(t * 255)))];
}
