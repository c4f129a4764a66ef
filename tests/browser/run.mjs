// Browser test of the scil dashboard: starts the real `scil serve` (or, with --mock, the
// throwaway contract mock), drives Debian's Chromium through playwright-core, runs a CPNA replay
// from the dashboard's own controls and checks what an operator would see.
//
//   node tests/browser/run.mjs [--mock] [--keep]
// env: SCIL_BIN (default $CARGO_TARGET_DIR/debug/scil or target/debug/scil), CHROMIUM (default
// /usr/bin/chromium), SCREENSHOT (default target/dashboard.png).
// Prints `browser: N passed, M failed` last; exits non-zero on any failure.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const require = createRequire(path.join(root, 'web/package.json'));
const { chromium } = require('playwright-core');

const args = new Set(process.argv.slice(2));
const MOCK = args.has('--mock');
const TOKEN = 'browser-test-token';
const targetDir = process.env.CARGO_TARGET_DIR || path.join(root, 'target');
const SCIL = process.env.SCIL_BIN || path.join(targetDir, 'debug/scil');
const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const SHOT = process.env.SCREENSHOT || path.join(root, 'target/dashboard.png');
const SCENARIO = 'cpna75_30kmh';
const SPEED = Number(process.env.SCIL_TEST_SPEED || 2);

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'scil-browser-'));
const children = [];
let browser = null;

function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => resolve(p)); });
    s.on('error', reject);
  });
}

async function waitHttp(url, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try { const r = await fetch(url); if (r.status < 500) return; } catch { /* not up yet */ }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(`server did not answer ${url} within ${ms} ms`);
}

async function startServer(port) {
  const log = fs.openSync(path.join(tmp, 'server.log'), 'w');
  let cmd, argv;
  if (MOCK) { cmd = process.execPath; argv = [path.join(here, 'mock-server.mjs'), String(port)]; }
  else {
    if (!fs.existsSync(SCIL)) throw new Error(`${SCIL} not found: build it first (cargo build) or set SCIL_BIN`);
    cmd = SCIL; argv = ['serve'];
  }
  // the service is configured through its environment overrides (see src/serve/config.rs)
  const env = { ...process.env, SCIL_TOKEN: TOKEN, SCIL_OPERATOR_TOKEN: TOKEN, SCIL_BIND: `127.0.0.1:${port}`,
    DATABASE_URL: `sqlite://${path.join(tmp, 'scil.db')}?mode=rwc`, SCIL_STORAGE_DIR: path.join(tmp, 'storage'), RUST_LOG: process.env.RUST_LOG || 'warn' };
  const child = spawn(cmd, argv, { stdio: ['ignore', log, log], env });
  children.push(child);
  child.on('exit', (code, sig) => { if (code !== null && code !== 0) console.error(`server exited ${code ?? sig}`); });
  await waitHttp(`http://127.0.0.1:${port}/api/v1/scenarios`, 20000);
}

const results = [];
async function test(name, fn) {
  const t0 = Date.now();
  try { await fn(); results.push([name, true]); console.log(`  ok   ${name} (${Date.now() - t0} ms)`); }
  catch (e) { results.push([name, false]); console.log(`  FAIL ${name}: ${e.message.split('\n')[0]}`); }
}
const assert = (c, msg) => { if (!c) throw new Error(msg); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function main() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/`;
  console.log(`browser: ${MOCK ? 'mock server' : SCIL} on ${base}, chromium ${CHROMIUM}`);
  await startServer(port);

  const ctx = await chromium.launchPersistentContext(path.join(tmp, 'profile'), {
    executablePath: CHROMIUM, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    viewport: { width: 1600, height: 900 },
  });
  browser = ctx;
  const page = ctx.pages()[0] || await ctx.newPage();
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  // resource 404s (e.g. probing an optional endpoint) are logged by Chromium as console errors: not app errors
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });

  await page.goto(base);
  await page.waitForSelector('#conn[data-state=open]', { timeout: 10000 });
  await page.fill('#token', TOKEN);
  await page.dispatchEvent('#token', 'change');
  await page.waitForFunction((s) => [...document.querySelectorAll('#scenario option')].some((o) => o.value === s), SCENARIO, { timeout: 10000 });
  await page.selectOption('#scenario', SCENARIO);
  await page.waitForFunction(() => document.querySelectorAll('#replay option').length > 0);
  const replays = await page.$$eval('#replay option', (os) => os.map((o) => o.value));
  if (replays.includes(SCENARIO)) await page.selectOption('#replay', SCENARIO);
  await page.fill('#speed', String(SPEED));

  // operator sequence: new run → arm → start
  await page.click('#btn-create');
  await page.waitForFunction(() => window.__scil.L.runId != null, null, { timeout: 10000 });
  const runId = await page.evaluate(() => window.__scil.L.runId);
  await page.waitForSelector('#btn-arm:not([disabled])', { timeout: 10000 });
  await page.click('#btn-arm');
  await page.waitForSelector('#run-state[data-state=armed]', { timeout: 10000 });
  await test('e-stop visible while armed', async () => {
    assert(await page.isVisible('#estop'), 'ABORT button hidden while armed');
  });
  await page.waitForSelector('#btn-start:not([disabled])', { timeout: 10000 });
  await page.click('#btn-start');

  await test('VUT marker moves on the map', async () => {
    await page.waitForFunction(() => window.__scil.L.vut != null, null, { timeout: 15000 });
    const a = await page.evaluate(() => ({ x: window.__scil.L.vut.x, y: window.__scil.L.vut.y, pos: document.querySelector('#vut-pos').textContent, f: window.__scil.stats.frames }));
    await sleep(1000);
    const b = await page.evaluate(() => ({ x: window.__scil.L.vut.x, y: window.__scil.L.vut.y, pos: document.querySelector('#vut-pos').textContent, f: window.__scil.stats.frames }));
    const d = Math.hypot(b.x - a.x, b.y - a.y);
    assert(d > 1, `VUT moved only ${d.toFixed(2)} m in 1 s`);
    assert(a.pos !== b.pos, `position readout did not change (${a.pos})`);
    assert(b.f - a.f > 10, `only ${b.f - a.f} animation frames in 1 s`);
  });

  await test('TTC plot updates with the threshold line', async () => {
    await page.waitForFunction(() => window.__scil.plots.ttc.u.data[0].length > 5, null, { timeout: 10000 });
    const n1 = await page.evaluate(() => window.__scil.plots.ttc.u.data[0].length);
    await sleep(600);
    const n2 = await page.evaluate(() => window.__scil.plots.ttc.u.data[0].length);
    assert(n2 > n1, `TTC plot points ${n1} → ${n2}`);
    const thr = await page.evaluate(() => window.__scil.plots.ttc.marks.threshold);
    assert(thr > 0, `no threshold on the TTC plot (${thr})`);
  });

  await test('trigger event appears in the event log', async () => {
    await page.waitForSelector('#events .ev-triggered, #events .ev-trigger_assessed', { timeout: 40000 / Math.min(SPEED, 1) });
    const txt = await page.textContent('#events .ev-triggered, #events .ev-trigger_assessed');
    assert(/ttc_s=\d/.test(txt), `trigger row lacks TTC: ${txt}`);
    const marks = await page.evaluate(() => window.__scil.plots.ttc.marks.instants.filter((i) => i.kind === 'trigger').length);
    assert(marks >= 1, 'trigger instant not marked on the TTC plot');
  });

  // let the run finish (impact etc.), then screenshot the live view
  await page.waitForSelector('#run-state[data-state=finished], #run-state[data-state=aborted], #run-state[data-state=failed]', { timeout: 60000 }).catch(() => {});
  await sleep(400);
  fs.mkdirSync(path.dirname(SHOT), { recursive: true });
  await page.screenshot({ path: SHOT });

  await test('results table shows the trigger', async () => {
    await page.click('[data-tab=results]');
    const sel = `#runs tr[data-id="${runId}"] .trig-ttc`;
    await page.waitForFunction((s) => { const e = document.querySelector(s); return e && /\d/.test(e.textContent); }, sel, { timeout: 15000 });
    const ttc = Number(await page.textContent(sel));
    assert(ttc > 0.5 && ttc < 10, `TTC at trigger ${ttc}`);
    await page.waitForFunction(() => document.querySelectorAll('#detail .kv div').length > 5, null, { timeout: 10000 });
    // comparison of the ticked runs (one is enough to render the side-by-side table)
    await page.check(`#runs tr[data-id="${runId}"] input`);
    await page.click('#compare');
    await page.waitForSelector('#cmp-table', { timeout: 10000 });
    const cmp = await page.textContent('#cmp-table');
    assert(cmp.includes('TTC at trigger') && cmp.includes(`run ${runId}`), 'comparison table incomplete');
    await page.screenshot({ path: SHOT.replace(/\.png$/, '-results.png') });
  });

  await test('no page errors', async () => {
    assert(pageErrors.length === 0, pageErrors.slice(0, 3).join(' | '));
  });
}

let code = 0;
try { await main(); }
catch (e) { console.log(`  FAIL setup: ${e.message.split('\n')[0]}`); results.push(['setup', false]); }
finally {
  if (browser) await browser.close().catch(() => {});
  for (const c of children) c.kill('SIGTERM');
  const logf = path.join(tmp, 'server.log');
  const failed = results.filter((r) => !r[1]).length;
  if (failed && fs.existsSync(logf)) { console.log('--- server log (tail) ---'); console.log(fs.readFileSync(logf, 'utf8').split('\n').slice(-30).join('\n')); }
  if (!args.has('--keep')) fs.rmSync(tmp, { recursive: true, force: true });
  code = failed ? 1 : 0;
  console.log(`browser: ${results.length - failed} passed, ${failed} failed`);
  process.exit(code);
}
