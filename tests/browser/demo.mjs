// One-off check of `scil` with no arguments (= `scil serve --demo`): within a minute of starting,
// the dashboard at http://127.0.0.1:8080 (the default bind) must show a live demo run — WebSocket
// open, a run `running`, the VUT moving, TTC points arriving — without any token or click.
// Runs the binary in a temporary directory (its default SQLite `scil.db` lands there).
//
//   node tests/browser/demo.mjs     env: SCIL_BIN, CHROMIUM, SCREENSHOT (default target/dashboard-demo.png)
// Prints `demo: ok …` or `demo: FAIL …`; exit code 1 on failure.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const require = createRequire(path.join(root, 'web/package.json'));
const { chromium } = require('playwright-core');
const targetDir = process.env.CARGO_TARGET_DIR || path.join(root, 'target');
const SCIL = process.env.SCIL_BIN || path.join(targetDir, 'debug/scil');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOT = process.env.SCREENSHOT || path.join(root, 'target/dashboard-demo.png');
const BASE = 'http://127.0.0.1:8080/';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'scil-demo-'));
const log = fs.openSync(path.join(tmp, 'server.log'), 'w');
// no arguments, no SCIL_* overrides: exactly what `cargo run --release` does
const env = { ...process.env };
for (const k of Object.keys(env)) if (k.startsWith('SCIL_') || k === 'DATABASE_URL') delete env[k];
const t0 = Date.now();
const server = spawn(SCIL, [], { cwd: tmp, stdio: ['ignore', log, log], env });
let ctx = null, ok = false;
try {
  for (let i = 0; ; i++) {
    try { await fetch(BASE); break; } catch { if (Date.now() - t0 > 20000) throw new Error('no answer on :8080 within 20 s'); await sleep(150); }
  }
  ctx = await chromium.launchPersistentContext(path.join(tmp, 'profile'), {
    executablePath: CHROMIUM, headless: true, viewport: { width: 1600, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run',
      // keep timers and animation frames running in a window nobody looks at
      '--disable-renderer-backgrounding', '--disable-background-timer-throttling', '--disable-backgrounding-occluded-windows'],
  });
  const page = ctx.pages()[0] || await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(BASE);
  await page.waitForSelector('#conn[data-state=open]', { timeout: 10000 });
  await page.waitForSelector('#run-state[data-state=running]', { timeout: 60000 - (Date.now() - t0) });
  await page.waitForFunction(() => window.__scil.L.vut != null && window.__scil.plots.ttc.u.data[0].length > 5, null, { timeout: 15000 });
  const a = await page.evaluate(() => ({ ...window.__scil.L.vut }));
  await sleep(1500);
  const b = await page.evaluate(() => ({ ...window.__scil.L.vut, lanes: window.__scil.map.lines.length, run: window.__scil.L.runId }));
  const moved = Math.hypot(b.x - a.x, b.y - a.y);
  const since = ((Date.now() - t0) / 1000).toFixed(1);
  await sleep(Math.max(0, 9000 - (Date.now() - t0)));   // a little way into the run for the picture
  fs.mkdirSync(path.dirname(SHOT), { recursive: true });
  await page.screenshot({ path: SHOT });
  if (moved < 5) throw new Error(`VUT moved only ${moved.toFixed(2)} m in 1.5 s (real time 30 km/h ≈ 12.5 m)`);
  if (!b.lanes) throw new Error('map has no lane lines');
  if (errors.length) throw new Error(`page errors: ${errors.slice(0, 3).join(' | ')}`);
  console.log(`demo: ok — live run ${b.run} on the dashboard ${since} s after start; VUT moved ${moved.toFixed(1)} m in 1.5 s; ${b.lanes} lane lines; screenshot ${SHOT}`);
  ok = true;
} catch (e) {
  console.log(`demo: FAIL ${e.message.split('\n')[0]}`);
  console.log(fs.readFileSync(path.join(tmp, 'server.log'), 'utf8').split('\n').slice(-20).join('\n'));
} finally {
  if (ctx) await ctx.close().catch(() => {});
  server.kill('SIGTERM');
  await sleep(300);
  fs.rmSync(tmp, { recursive: true, force: true });
  process.exit(ok ? 0 : 1);
}
