// Browser test of the scil dashboard: starts the real `scil serve` (or, with --mock, the
// throwaway contract mock), drives Debian's Chromium through playwright-core, runs a CPNA replay
// from the dashboard's own controls and checks what an operator would see.
//
//   node tests/browser/run.mjs [--mock] [--keep] [--only-ground] [--no-ground] [--only-site] [--only-firstday]
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
import { tracksTest } from './tracks.mjs';
import { testdayTest } from './testday.mjs';
import { operatorTest, liveChecks, layoutTest } from './operator.mjs';
import { groundTest } from './ground.mjs';
import { siteTest } from './site.mjs';
import { firstdayTest } from './firstday.mjs';

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
const SHOT = process.env.SCREENSHOT || path.join(root, MOCK ? 'target/dashboard-mock.png' : 'target/dashboard.png');
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

let diagnose = async () => 'page not opened';

async function main() {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}/`;
  console.log(`browser: ${MOCK ? 'mock server' : SCIL} on ${base}, chromium ${CHROMIUM}`);
  await startServer(port);

  const ctx = await chromium.launchPersistentContext(path.join(tmp, 'profile'), {
    executablePath: CHROMIUM, headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run',
      // keep timers and animation frames running in a window nobody looks at
      '--disable-renderer-backgrounding', '--disable-background-timer-throttling', '--disable-backgrounding-occluded-windows'],
    viewport: { width: 1600, height: 900 },
  });
  browser = ctx;
  if (args.has('--only-ground')) {
    await groundTest({ ctx, scil: SCIL, root, tmp, port: await freePort(), token: TOKEN, test, assert, sleep, waitHttp, children });
    return;
  }
  if (args.has('--only-firstday')) {
    await firstdayTest({ ctx, base, root, tmp, token: TOKEN, test, assert });
    return;
  }
  if (args.has('--only-site')) {
    await siteTest({ ctx, base, root, token: TOKEN, test, assert, shot: SHOT.replace(/\.png$/, '-site.png') });
    return;
  }
  const page = ctx.pages()[0] || await ctx.newPage();
  diagnose = () => page.evaluate(() => {
    const q = (s) => document.querySelector(s);
    return `L.state=${window.__scil?.L?.state} frames=${window.__scil?.stats?.frames} msgs=${window.__scil?.stats?.messages} run-state=${q("#run-state")?.dataset.state} start-disabled=${q('#btn-start')?.disabled} arm-disabled=${q('#btn-arm')?.disabled} toast="${q('#toast')?.textContent ?? ''}" scenario=${(() => { const s = q('#scenario'); if (!s) return 'absent'; const r = s.getBoundingClientRect(); return `${s.options.length} options, value "${s.value}", disabled ${s.disabled}, box ${Math.round(r.width)}x${Math.round(r.height)}, connected ${s.isConnected}`; })()}`;
  }).catch((e) => `no page state (${e.message})`);
  const pageErrors = [];
  page.on('pageerror', (e) => pageErrors.push(e.message));
  // resource 404s (e.g. probing an optional endpoint) are logged by Chromium as console errors: not app errors
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) pageErrors.push(`console: ${m.text()}`); });

  // Open the page, sign in and choose the scenario. A page that does not get there is loaded
  // once more, and what it showed is printed with Playwright's own call log (a setup that
  // failed on a loaded machine once, with the option present, left nothing else to go on).
  const openAndChoose = async () => {
    await page.goto(base);
    await page.waitForSelector('#conn[data-state=open]', { timeout: 10000 });
    await page.fill('#token', TOKEN);
    await page.dispatchEvent('#token', 'change');
    await page.waitForFunction((s) => [...document.querySelectorAll('#scenario option')].some((o) => o.value === s), SCENARIO, { timeout: 10000 });
    await page.selectOption('#scenario', SCENARIO, { timeout: 15000 });
  };
  await openAndChoose().catch(async (e) => {
    console.log(`  setup: the page did not take the scenario; loaded again. ${e.message}`);
    console.log(`       page: ${await diagnose()}`);
    await openAndChoose();
  });
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
  await page.waitForSelector('#run-state[data-state=running]', { timeout: 10000 });
  await test('e-stop visible while running', async () => {
    assert(await page.isVisible('#estop'), 'ABORT button hidden while running');
  });
  await test('Results tab says "results when the run ends" for the running run', async () => {
    await page.click('[data-tab=results]');
    await page.waitForFunction(() => /results when the run ends/.test(document.querySelector('#detail')?.textContent ?? ''), null, { timeout: 5000 });
    const bad = await page.evaluate(() => document.querySelector('#detail .bad')?.textContent ?? '');
    assert(!bad, `error shown: ${bad}`);
    await page.click('[data-tab=live]');
  });

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

  await test('map: lanes to scale, VUT and dummy with trails, lane readout', async () => {
    const m = await page.evaluate(() => {
      const { L, map } = window.__scil;
      const dummy = L.targets.get('dummy');
      return { lines: map.lines.length, scale: map.scale, trail: L.trail.length / 2, dummy: dummy ? { x: dummy.x, y: dummy.y } : null,
        lane: document.querySelector('#hud-lane').textContent, mapName: document.querySelector('#map-name').textContent };
    });
    assert(m.lines >= 3, `only ${m.lines} lane lines (map ${m.mapName})`);
    assert(m.mapName === 'proving_ground', `map name ${m.mapName}`);
    assert(m.scale > 1 && m.scale < 100, `map scale ${m.scale} px/m`);
    assert(m.trail >= 3, `VUT trail has ${m.trail} points`);
    assert(m.dummy && Math.abs(m.dummy.x - 200) < 1, `dummy not at its start (200, -5.75): ${JSON.stringify(m.dummy)}`);
    assert(/^road \S+ lane -?\d+ s=\d+\.\d m t=-?\d+\.\d\d m$/.test(m.lane), `lane readout '${m.lane}'`);
  });

  await test('source health and carrier state shown', async () => {
    await page.waitForFunction(() => document.querySelectorAll('#health tbody tr').length >= 2
      && /csv:/.test(document.querySelector('#health tbody').textContent), null, { timeout: 5000 });
    const h = await page.$$eval('#health tbody tr', (rs) => rs.map((r) => [...r.cells].map((c) => c.textContent)));
    const src = h.find((r) => r[0].startsWith('csv:'));
    const hz = parseFloat(src[1]);
    assert(Math.abs(hz - 25 * SPEED) < 25 * SPEED * 0.3, `source rate ${src[1]} (expected ≈ ${25 * SPEED} Hz)`);
    const c = await page.textContent('#carriers tbody');
    assert(/dummy/.test(c) && /waiting|scheduled|started|triggered|moving/.test(c), `carrier table: ${c}`);
  });

  await test('validity lamps: a live break lights its channel with the first violation', async () => {
    const r = await page.evaluate(() => {
      const { L, onMessage } = window.__scil;
      const t0 = L.t0 ?? 0;
      const n = document.querySelectorAll('#validity-lamps .vl').length;
      onMessage({ type: 'event', event: { event: 'validity', channel: 'vut_speed', time_s: t0 + 1.25, value: 1.4, limit: 'nominal 0/+1.0 km/h' } });
      const lamp = document.querySelector('#validity-lamps .vl[data-channel="vut_speed"]');
      const other = document.querySelector('#validity-lamps .vl[data-channel="vut_lateral"]');
      const res = { n, lamp: lamp.dataset.lamp, text: lamp.textContent, other: other.dataset.lamp };
      window.__scil.lamps.reset();
      return res;
    });
    assert(r.n === 6, `${r.n} lamps`);
    assert(r.lamp === 'bad' && /first 1\.250 s/.test(r.text), `vut_speed lamp ${r.lamp} '${r.text}'`);
    assert(r.other === 'off', `vut_lateral lamp ${r.other}`);
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
    assert(/TTC \d+\.\d+ s/.test(txt), `trigger row lacks TTC: ${txt}`);
    const marks = await page.evaluate(() => window.__scil.plots.ttc.marks.instants.filter((i) => i.kind === 'trigger').length);
    assert(marks >= 1, 'trigger instant not marked on the TTC plot');
    assert(await page.evaluate(() => window.__scil.L.triggerPoint != null), 'trigger position not marked on the map');
  });

  // the live view just after the impact (run still going, ABORT shown, both vehicles and the
  // trigger on the map), then again once the run has finished
  await page.waitForSelector('#events .ev-impact', { timeout: 30000 }).catch(() => {});
  await sleep(300);
  fs.mkdirSync(path.dirname(SHOT), { recursive: true });
  await page.screenshot({ path: SHOT });
  if (!MOCK) await liveChecks({ page, test, assert });
  await page.waitForSelector('#run-state[data-state=finished], #run-state[data-state=aborted], #run-state[data-state=failed]', { timeout: 60000 }).catch(() => {});
  await sleep(400);
  await test('live view after the run: impact logged, e-stop gone', async () => {
    assert(await page.evaluate(() => window.__scil.L.state) === 'finished', `run ended ${await page.evaluate(() => window.__scil.L.state)}`);
    await page.waitForSelector('#events .ev-impact', { timeout: 2000 });
    assert(!(await page.isVisible('#estop')), 'ABORT button still shown after the run');
  });
  await test('validity verdict: window, T0 rule and what closed it', async () => {
    // The bundled CPNA-75 run opens its window at TTC 4 s and closes it at the impact; a verdict
    // frame with the other T0 rule and window end (as the engine sends it) is played in here.
    const w = await page.evaluate(() => {
      const { L, onMessage } = window.__scil;
      const t0 = L.t0 ?? 0;
      onMessage({ type: 'event', event: { event: 'verdict', valid: true, warnings: [], checks: [],
        window: { from_s: t0 + 3.5, to_s: t0 + 6.25 }, closed_by: 'fcw', t0_rule: 'steer' } });
      const el = document.querySelector('#validity-lamps .vl-window');
      const verdict = document.querySelector('#validity-lamps .vl-verdict');
      const res = el && { by: el.dataset.closedBy, t0: el.dataset.t0, text: el.textContent, verdict: verdict && verdict.textContent };
      window.__scil.lamps.reset();
      return res;
    });
    assert(w, 'no window line under the lamps');
    assert(w.by === 'fcw' && w.t0 === 'steer' && w.verdict === 'VALID', `closed by '${w?.by}', T0 '${w?.t0}', '${w?.verdict}'`);
    assert(/window 3\.50–6\.25 s/.test(w.text) && /closed by FCW/.test(w.text) && /T0 rule steer/.test(w.text), `'${w.text}'`);
  });
  await page.screenshot({ path: SHOT.replace(/\.png$/, '-finished.png') });

  // a second run straight through the API (×10), to compare the two side by side
  const api = async (method, p, body) => {
    const r = await fetch(`${base}api/v1${p}`, { method, headers: { Authorization: `Bearer ${TOKEN}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const t = await r.text();
    if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${t}`);
    return t ? JSON.parse(t) : null;
  };
  const run2 = (await api('POST', '/runs', { scenario_id: SCENARIO, replay: SCENARIO, speed: 10, start: true })).id;
  for (let i = 0; i < 200 && !['finished', 'aborted', 'failed'].includes((await api('GET', `/runs/${run2}`)).state); i++) await sleep(100);

  await test('results table shows the trigger (Table 2 values from the server)', async () => {
    const res = await api('GET', `/runs/${runId}/results`);
    const trig = res.triggers[res.triggers.length - 1], imp = res.impacts[res.impacts.length - 1];
    await page.click('[data-tab=results]');
    const sel = `#runs tr[data-id="${runId}"] .trig-ttc`;
    await page.waitForFunction((s) => { const e = document.querySelector(s); return e && /\d/.test(e.textContent); }, sel, { timeout: 15000 });
    const ttc = Number(await page.textContent(sel));
    assert(ttc > 0.5 && ttc < 10, `TTC at trigger ${ttc}`);
    assert(Math.abs(ttc - trig.ttc_s) < 0.0006, `table TTC ${ttc} ≠ server ${trig.ttc_s}`);
    await page.click(`#runs tr[data-id="${runId}"] td:nth-child(2)`);
    await page.waitForFunction((id) => document.querySelector('#detail-id').textContent === id && document.querySelectorAll('#detail .kv > div').length > 5, runId, { timeout: 10000 });
    const cards = Object.fromEntries(await page.$$eval('#detail .kv > div', (ds) => ds.map((d) => [d.querySelector('.k').textContent, d.querySelector('.v').textContent])));
    const near = (k, want, tol) => { const v = Number(cards[k]); assert(Math.abs(v - want) <= tol, `${k}: shown ${cards[k]}, server ${want}`); };
    near('TTC at trigger', trig.ttc_s, 6e-5);
    near('d_long at trigger', trig.d_long_m, 6e-4);
    near('trigger-time error', trig.fire_error_ms, 6e-3);
    near('dummy travel at impact', imp.dummy_travel_m, 6e-5);
    near('nominal travel', 4.46375, 1e-9);
    assert(Math.abs(imp.dummy_travel_m - 4.46375) < 0.5, `dummy travel ${imp.dummy_travel_m} far from nominal`);
  });

  await test('two runs compared side by side', async () => {
    await page.click('#refresh-runs');
    await page.waitForFunction((id) => { const e = document.querySelector(`#runs tr[data-id="${id}"] .trig-ttc`); return e && /\d/.test(e.textContent); }, run2, { timeout: 15000 });
    await page.check(`#runs tr[data-id="${runId}"] input`);
    await page.check(`#runs tr[data-id="${run2}"] input`);
    await page.click('#compare');
    await page.waitForSelector('#cmp-table', { timeout: 10000 });
    const head = await page.$$eval('#cmp-table thead th', (ths) => ths.map((t) => t.textContent));
    assert(head.includes(`run ${runId}`) && head.includes(`run ${run2}`), `comparison columns: ${head.join(', ')}`);
    const row = await page.$$eval('#cmp-table tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)).find((r) => r[0].startsWith('TTC at trigger')));
    assert(row && row.slice(1).every((v) => /^\d+\.\d+$/.test(v)), `TTC row: ${row}`);
    const series = await page.evaluate(() => document.querySelectorAll('#cmp-speed .u-legend .u-series').length);
    assert(series >= 3, `overlay plot has ${series - 1} runs`);
    await page.screenshot({ path: SHOT.replace(/\.png$/, '-results.png') });
  });

  if (!MOCK) await test('Euro NCAP report of the ticked runs: server HTML with verdicts and plots', async () => {
    const href = await page.getAttribute('#report-link', 'href');
    assert(href && href.includes(encodeURIComponent(runId)) && href.includes(encodeURIComponent(run2)), `report link ${href}`);
    const resp = await page.request.get(new URL(href, page.url()).toString());
    assert(resp.ok(), `report ${resp.status()}`);
    const html = await resp.text();
    assert(/<svg/.test(html), 'report has no plots');
    assert(html.includes(runId) && html.includes(run2), 'report does not name both runs');
  });

  if (!MOCK) await test('analysis: a sweep from the dashboard, progress over the WebSocket, plots and table', async () => {
    await page.click('[data-tab=analysis]');
    await page.waitForFunction(() => document.querySelectorAll('#sw-replays input').length >= 3
      && [...document.querySelectorAll('#sw-scenario option')].some((o) => o.value === 'cpna75_30kmh'), null, { timeout: 10000 });
    await page.selectOption('#sw-scenario', SCENARIO);
    for (const id of await page.$$eval('#sw-replays input', (is) => is.map((i) => i.value))) {
      if (['cpna75_10kmh', 'cpna75_30kmh', 'cpna75_50kmh'].includes(id)) await page.check(`#sw-replays input[value="${id}"]`);
      else await page.uncheck(`#sw-replays input[value="${id}"]`);
    }
    await page.fill('#sw-vary', 'method=predicted,at_sample\nnoise.pos=0,0.02');
    await page.fill('#sw-repeat', '2');
    const frames0 = await page.evaluate(() => window.__scil.stats.sweepFrames || 0);
    await page.click('#sw-run');
    await page.waitForSelector('#sw-progress[data-state=finished]', { timeout: 60000 });
    await page.waitForFunction(() => document.querySelectorAll('#analysis-plots figure svg').length >= 2
      && document.querySelectorAll('#sweep-table tbody tr').length === 24, null, { timeout: 15000 });
    const frames = (await page.evaluate(() => window.__scil.stats.sweepFrames || 0)) - frames0;
    assert(frames >= 2, `only ${frames} sweep progress frames over the live WebSocket`);
    const t2 = await page.$$eval('#sw-table2 tbody tr', (trs) => trs.map((tr) => [...tr.cells].map((c) => c.textContent)));
    assert(t2.length === 6, `Table 2 has ${t2.length} rows (3 speeds × 2 methods)`);
    const at = t2.filter((r) => r[1] === 'at_sample').map((r) => Number(r[8]));
    const pr = t2.filter((r) => r[1] === 'predicted').map((r) => Number(r[8]));
    assert(at.every((v) => v > 2) && pr.every((v) => Math.abs(v) < 5), `fire errors at_sample ${at} predicted ${pr}`);
    const status = await page.textContent('#sw-status');
    assert(/finished 24\/24/.test(status), `status '${status}'`);
    const id = await page.evaluate(() => window.__scil.analysis.current);
    const r = await fetch(`${base}api/v1/sweeps/${id}/report.html`);
    assert(r.ok && (await r.text()).includes('<svg'), 'report.html has no SVG');
    await page.screenshot({ path: SHOT.replace(/\.png$/, '-analysis.png') });
  });

  if (!MOCK) await test('simulated VUT from the run form; live ttc offset shows in the results', async () => {
    await page.click('[data-tab=live]');
    if ((await page.inputValue('#scenario')) !== SCENARIO) await page.selectOption('#scenario', SCENARIO);
    // the replay list refills asynchronously after a scenario change: choose until it holds
    for (let i = 0; i < 20 && !(await page.isVisible('#sim-speed')); i++) {
      await page.waitForFunction(() => [...document.querySelectorAll('#replay option')].some((o) => o.value === 'sim_vut'), null, { timeout: 5000 });
      await page.selectOption('#replay', 'sim_vut');
      await sleep(150);
    }
    assert(await page.isVisible('#sim-speed'), 'simulated-VUT options hidden');
    await page.fill('#sim-speed', '40');
    await page.fill('#speed', '1');
    const before = await page.evaluate(() => window.__scil.L.runId);
    await page.click('#btn-create');
    await page.waitForFunction((b) => window.__scil.L.runId !== b, before, { timeout: 10000 })
      .catch(async () => { throw new Error(`no run created: ${await page.textContent('#toast')}`); });
    const simRun = await page.evaluate(() => window.__scil.L.runId);
    await page.waitForSelector('#btn-arm:not([disabled])', { timeout: 10000 });
    await page.click('#btn-arm');
    await page.waitForSelector('#run-state[data-state=armed]', { timeout: 10000 })
      .catch(async () => { throw new Error(`run ${simRun} not armed (${await page.evaluate(() => window.__scil.L.state)}): ${await page.textContent('#toast')}`); });
    await page.waitForSelector('#btn-start:not([disabled])', { timeout: 10000 });
    await page.click('#btn-start');
    await page.waitForSelector('#run-state[data-state=running]', { timeout: 10000 });
    await page.waitForSelector('#params-panel:not([hidden])', { timeout: 5000 });
    await page.fill('#p-ttc', '0.5');
    await page.click('#p-apply');
    await page.waitForFunction(() => /offset 0\.5 s/.test(document.querySelector('#p-now').textContent), null, { timeout: 5000 });
    await page.waitForSelector('#events .ev-parameter_change', { timeout: 5000 });
    await page.waitForSelector('#run-state[data-state=finished]', { timeout: 40000 })
      .catch(async () => { throw new Error(`run ${simRun} shown ${await page.evaluate(() => window.__scil.L.state)}, server ${JSON.stringify(await api('GET', `/runs/${simRun}`))}`); });
    const res = await api('GET', `/runs/${simRun}/results`);
    const ch = res.parameter_changes || [];
    assert(ch.length === 1 && ch[0].name === 'ttc_offset_s' && ch[0].value === 0.5, `parameter_changes ${JSON.stringify(ch)}`);
    const thr = res.triggers[0].threshold_s;
    assert(Math.abs(thr - (3.9339 + 0.5)) < 1e-3, `threshold ${thr} not shifted by the offset`);
    assert(res.impacts[0].stopped_short_m > 0, `AEB did not stop short: ${JSON.stringify(res.impacts[0])}`);
    await page.click('[data-tab=results]');
    await page.click('#refresh-runs');
    await page.waitForSelector(`#runs tr[data-id="${simRun}"]`, { timeout: 10000 });
    await page.click(`#runs tr[data-id="${simRun}"] td:nth-child(2)`);
    await page.waitForFunction((id) => document.querySelector('#detail-id').textContent === id
      && /parameter changes/.test(document.querySelector('#detail').textContent), simRun, { timeout: 10000 })
      .catch(async () => { throw new Error(`no parameter-changes card: ${await page.textContent('#detail')}`); });
    const cards = Object.fromEntries(await page.$$eval('#detail .kv > div', (ds) => ds.map((d) => [d.querySelector('.k').textContent, d.querySelector('.v').textContent])));
    assert(cards['parameter changes'] === 'ttc_offset_s=0.5', `results card: ${cards['parameter changes']}`);
    assert(Math.abs(Number(cards['threshold (TTC_dummy)']) - 4.4339) < 1e-3, `threshold card ${cards['threshold (TTC_dummy)']}`);
    await page.screenshot({ path: SHOT.replace(/\.png$/, '-sim.png') });
  });

  if (!MOCK) {
    await operatorTest({ ctx, base, root, token: TOKEN, test, assert, sleep, api, finishedRun: runId, pageErrors })
      .catch((e) => { results.push(['operator setup', false]); console.log(`  FAIL operator setup: ${e.message.split('\n')[0]}`); });
  }

  if (!MOCK) {
    await firstdayTest({ ctx, base, root, tmp, token: TOKEN, test, assert })
      .catch((e) => { results.push(['first day setup', false]); console.log(`  FAIL first day setup: ${e.message.split('\n')[0]}`); });
  }

  if (!MOCK) {
    await testdayTest({ page, base, root, tmp, token: TOKEN, test, assert, shot: SHOT.replace(/\.png$/, '-testday.png') })
      .catch((e) => { results.push(['test day setup', false]); console.log(`  FAIL test day setup: ${e.message.split('\n')[0]}`); });
  }

  if (!MOCK) await layoutTest({ page, root, test, assert, runId });

  if (!MOCK && !args.has('--no-ground')) {
    await groundTest({ ctx, scil: SCIL, root, tmp, port: await freePort(), token: TOKEN, test, assert, sleep, waitHttp, children })
      .catch((e) => { results.push(['ground setup', false]); console.log(`  FAIL ground setup: ${e.message.split('\n')[0]}`); });
  }

  if (!MOCK) {
    await tracksTest({ ctx, scil: SCIL, tmp, port: await freePort(), token: TOKEN, test, assert, sleep, waitHttp, children })
      .catch((e) => { results.push(['tracks setup', false]); console.log(`  FAIL tracks setup: ${e.message.split('\n')[0]}`); });
  }

  if (!MOCK) await test("scenario preview: an uploaded OpenSCENARIO file's plan on the map before any run", async () => {
    const xosc = fs.readFileSync(path.join(root, 'data/osc-ncap/OpenSCENARIO/NCAP/AEB_VRU_2023/NCAP_AEB_VRU_CPTA_2023.xosc'), 'utf8');
    const r = await fetch(`${base}api/v1/scenarios`, { method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'cpta-preview', xosc, file_name: 'CPTA.xosc', parameters: { Ego_speed_kph: '15' } }) });
    assert(r.status === 201, `upload: ${r.status} ${await r.text()}`);
    const p = await ctx.newPage();
    p.on('pageerror', (e) => pageErrors.push(e.message));
    await p.goto(base);
    await p.waitForSelector('#conn[data-state=open]', { timeout: 10000 });
    await p.waitForFunction(() => [...document.querySelectorAll('#scenario option')].some((o) => o.value === 'cpta-preview'), null, { timeout: 10000 });
    await p.selectOption('#scenario', 'cpta-preview');
    await p.click('#btn-preview');
    await p.waitForFunction(() => window.__scil.L.preview === 'cpta-preview' && window.__scil.L.plan?.targets?.[0]?.conflict_point != null, null, { timeout: 10000 });
    await p.waitForFunction(() => document.querySelector('#map-name').textContent.includes('X-Intersection_NCAP'), null, { timeout: 10000 });
    // drawn: the VUT's planned path (blue) and the conflict mark (orange)
    await p.waitForFunction(() => {
      const c = window.__scil.map.canvas, g = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let blue = 0, orange = 0;
      for (let i = 0; i < g.length; i += 4) {
        const near = (r, gg, b) => Math.abs(g[i] - r) < 16 && Math.abs(g[i + 1] - gg) < 16 && Math.abs(g[i + 2] - b) < 16;
        if (near(0x4f, 0xa3, 0xff)) blue++;
        if (near(0xff, 0x7a, 0x45)) orange++;
      }
      return blue > 50 && orange > 10;
    }, null, { timeout: 10000 });
    await p.screenshot({ path: SHOT.replace(/\.png$/, '-preview.png') });
    await p.close();
  });

  if (!MOCK) {
    await siteTest({ ctx, base, root, token: TOKEN, test, assert, shot: SHOT.replace(/\.png$/, '-site.png') })
      .catch((e) => { results.push(['site setup', false]); console.log(`  FAIL site setup: ${e.message.split('\n')[0]}`); });
  }

  await test('no page errors', async () => {
    assert(pageErrors.length === 0, pageErrors.slice(0, 3).join(' | '));
  });
}

let code = 0;
try { await main(); }
catch (e) {
  console.log(`  FAIL setup: ${e.message}`);
  console.log(`       page: ${await diagnose()}`);
  results.push(['setup', false]);
}
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
