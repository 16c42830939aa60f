// SPDX-License-Identifier: GPL-2.0
//
// browser - skin-view's page in the machine's Chromium, headless, driven
// through npm's playwright-core for the daemon layer
// (tests/daemon/test_skind.py, cases "skin-view: the page ...")
//
//	node browser.cjs URL
//
// SKIN_NODE_MODULES names the node_modules directory (scripts/node-tree);
// SKIN_CHROMIUM the browser (default /usr/bin/chromium).  Opens URL, then
// reads one JSON command a line on stdin and answers each with one JSON
// line on stdout, {"ok":true,...} or {"ok":false,"error":"..."}:
//
//	{"op":"goto","hash":"#/part/NAME"}   load URL + hash (a new load)
//	{"op":"hash","hash":"#/"}            change the hash (no load)
//	{"op":"eval","expr":"JS"}            the value of expression JS in the page
//	{"op":"wait","expr":"JS","timeout":S}
//	                                     until JS is truthy: its value, or
//	                                     an error after S seconds
//	{"op":"shot","path":P,"selector":SEL} a PNG of element SEL (the page
//	                                     when none)
//	{"op":"hover","selector":SEL,"x":X,"y":Y}
//	                                     the pointer at X,Y of element SEL
//	{"op":"problems"}                    {"console":[...],"failed":[...],
//	                                     "pageerrors":[...]} since the start:
//	                                     console errors and warnings,
//	                                     requests that failed or got >= 400
//	{"op":"quit"}
"use strict";

const path = require("path");
const readline = require("readline");
const { chromium } = require(path.join(process.env.SKIN_NODE_MODULES, "playwright-core"));

const url = process.argv[2];
const out = (o) => process.stdout.write(JSON.stringify(o) + "\n");
const problems = { console: [], failed: [], pageerrors: [] };

async function main() {
	const browser = await chromium.launch({
		executablePath: process.env.SKIN_CHROMIUM || "/usr/bin/chromium",
		headless: true,
		// a container's /dev/shm is small; the suite may run as root
		args: ["--disable-dev-shm-usage", "--no-sandbox"],
	});
	const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
	page.on("console", (m) => {
		if (m.type() === "error" || m.type() === "warning")
			problems.console.push(`${m.type()}: ${m.text()}`);
	});
	page.on("pageerror", (e) => problems.pageerrors.push(String(e)));
	page.on("requestfailed", (r) => problems.failed.push(`${r.url()}: ${r.failure()?.errorText}`));
	page.on("response", (r) => {
		if (r.status() >= 400)
			problems.failed.push(`${r.url()}: HTTP ${r.status()}`);
	});

	const ops = {
		goto: async (c) => {
			await page.goto(url + (c.hash || ""), { waitUntil: "load" });
			return {};
		},
		hash: async (c) => {
			await page.evaluate((h) => { location.hash = h; }, c.hash);
			return {};
		},
		eval: async (c) => ({ value: await page.evaluate(c.expr) }),
		// polled from here: waitForFunction() evaluates its string with
		// eval in the page, which the page's CSP forbids (as it should)
		wait: async (c) => {
			const end = Date.now() + (c.timeout || 10) * 1000;
			let v, err;
			for (;;) {
				try {
					v = await page.evaluate(c.expr);
					err = null;
				} catch (e) {
					err = e;
				}
				if (v || Date.now() > end)
					break;
				await new Promise((r) => setTimeout(r, 100));
			}
			if (!v)
				throw new Error(`not true within ${c.timeout || 10} s: ${c.expr}` +
						(err ? ` (${err.message.split("\n")[0]})` : ""));
			return { value: v };
		},
		shot: async (c) => {
			if (c.selector)
				await page.locator(c.selector).screenshot({ path: c.path });
			else
				await page.screenshot({ path: c.path, fullPage: !!c.full });
			return {};
		},
		hover: async (c) => {
			await page.locator(c.selector).hover({ position: { x: c.x, y: c.y } });
			return {};
		},
		problems: async () => problems,
	};

	const rl = readline.createInterface({ input: process.stdin });
	for await (const line of rl) {
		if (!line.trim())
			continue;
		let c;
		try {
			c = JSON.parse(line);
		} catch (e) {
			out({ ok: false, error: `not JSON: ${e.message}` });
			continue;
		}
		if (c.op === "quit")
			break;
		const fn = ops[c.op];
		if (!fn) {
			out({ ok: false, error: `unknown op ${c.op}` });
			continue;
		}
		try {
			out({ ok: true, ...(await fn(c)) });
		} catch (e) {
			out({ ok: false, error: String(e.message || e).split("\n")[0] });
		}
	}
	await browser.close();
}

main().catch((e) => {
	console.error(e);
	process.exit(1);
});
