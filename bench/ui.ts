// Web view benchmark: a finished run of 10,000 elements × 6 mapped tasks, served by a
// real `switchyard ui` child process and opened in headless Chromium. Prints the time of the API
// documents the run page loads (and their size), of the page load until the first rows are drawn,
// and of scrolling to the last row. Target: the page loads in under 2 s on the 2-core machine.
//
// usage: node dist/bench/ui.js [elements] [rounds]      (default 10000 5; best and median printed)

import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";
import { makeBigRun } from "./big-run.js";
import { scratchDir } from "./scratch.js";

const n = Number(process.argv[2] ?? 10_000);
const rounds = Number(process.argv[3] ?? 5);
const summary = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return `best ${s[0]!.toFixed(0)} ms, median ${s[Math.floor(s.length / 2)]!.toFixed(0)} ms`;
};

async function main(): Promise<void> {
  const dir = scratchDir("sy-bench-ui-");
  const state = join(dir, "state");
  const child = spawn(process.execPath, [resolve("bin/switchyard.js"), "ui", "--port", "0", "--state-dir", state], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  try {
    const run = await makeBigRun(state, n);
    // The printed address carries the write token after `#`; the pages read without it.
    const url = await new Promise<string>((done) =>
      createInterface({ input: child.stdout! }).once("line", (l) => done(l.trim().replace(/#.*$/, ""))),
    );
    const api: Record<string, number[]> = { run: [], grid: [] };
    let gridBytes = 0;
    for (let i = 0; i < rounds; i++) {
      for (const [name, path] of [
        ["run", `api/runs/${run}`],
        ["grid", `api/runs/${run}/grid`],
      ] as const) {
        const t0 = performance.now();
        const body = await (await fetch(new URL(path, url))).text();
        api[name]!.push(performance.now() - t0);
        if (name === "grid") gridBytes = body.length;
      }
    }
    const context = await chromium.launchPersistentContext(join(dir, "profile"), {
      executablePath: "/usr/bin/chromium",
      headless: true,
      viewport: { width: 1280, height: 900 },
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    const load: number[] = [];
    const scroll: number[] = [];
    try {
      for (let i = 0; i < rounds; i++) {
        const page = await context.newPage();
        const t0 = performance.now();
        await page.goto(`${url}#/runs/${run}`);
        await page.locator('.rows .grid-row[data-key="ticket-00000"]').waitFor();
        load.push(performance.now() - t0);
        const t1 = performance.now();
        await page.locator(".grid-body").evaluate((el) => (el.scrollTop = el.scrollHeight));
        await page.locator(`.rows .grid-row[data-key="ticket-${String(n - 1).padStart(5, "0")}"]`).waitFor();
        scroll.push(performance.now() - t1);
        await page.close();
      }
    } finally {
      await context.close();
    }
    console.log(`${n} elements × 6 mapped tasks, ${rounds} rounds`);
    console.log(`GET /api/runs/ID        ${summary(api.run!)}`);
    console.log(`GET /api/runs/ID/grid   ${summary(api.grid!)} (${(gridBytes / 1024).toFixed(0)} KiB)`);
    console.log(`page load to first rows ${summary(load)}`);
    console.log(`scroll to the last row  ${summary(scroll)}`);
  } finally {
    child.kill("SIGINT");
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
