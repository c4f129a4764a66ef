// WebSocket fan-out benchmark (figures, not a test): how many live clients can watch a run before
// ingest slows. For each K (default 0, 1, 10, 50, 100, 200, 500) it creates a run replaying a
// bundled CSV at ×N (`--speed 20`, or `--speed max`), connects K WebSocket clients to
// /api/v1/runs/{id}/live, starts the run and waits for `finished`.
//
// Ingest time is the server's own: from the engine's `armed` event (first sample) to its
// `finished` event (last sample), both stamped by the server when recorded (GET /runs/{id}/events,
// `created_at`); REST wall time start→finished (which also waits for the database flush) is
// printed beside it. Ingest rate = samples / ingest time, ratio against the K = 0 baseline of the
// same invocation (1.00 = no slowdown). Frames per client are counted by each client; the ratio is
// against the frames the run sent (the most any client received at K = 1). Lagged = frames the
// server skipped for slow clients (`scil_ws_lagged_frames_total` delta). The clients run in this
// one Node process on the same machine as the server, competing for its cores (a pessimistic
// setup: real viewers are on other machines).
//
//   node web/bench/fanout.mjs [--bin target/debug/scil] [--speed 20|max] [--clients 0,1,10,50,100,200,500]
//                              [--scenario cpna75_10kmh] [--replay ID] [--repeat 2]
//                              [--url http://127.0.0.1:PORT (use a running server)]
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
const WebSocket = require('ws');

const argv = process.argv.slice(2);
const opt = (name, dflt) => { const i = argv.indexOf(`--${name}`); return i >= 0 ? argv[i + 1] : dflt; };
const SPEED_ARG = opt('speed', '20');
const SPEED = SPEED_ARG === 'max' ? 'max' : Number(SPEED_ARG);
const KS = opt('clients', '0,1,10,50,100,200,500').split(',').map(Number);
const SCENARIO = opt('scenario', 'cpna75_10kmh');
const REPLAY = opt('replay', SCENARIO);
const REPEAT = Number(opt('repeat', 2));
const TOKEN = process.env.SCIL_TOKEN || 'bench-token';
const BIN = opt('bin', process.env.SCIL_BIN || path.join(process.env.CARGO_TARGET_DIR || path.join(root, 'target'), 'debug/scil'));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let base = opt('url', null), server = null;
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'scil-fanout-'));

async function api(method, p, body) {
  const r = await fetch(`${base}/api/v1${p}`, { method, headers: { Authorization: `Bearer ${TOKEN}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
  const t = await r.text();
  if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${t}`);
  return t ? JSON.parse(t) : null;
}
const idOf = (run) => run.id ?? run.run_id ?? run.run;

/** Frames the server skipped for lagging clients (Prometheus counter), if it exposes one. */
async function lagged() {
  for (const p of ['/api/v1/metrics', '/metrics']) {
    try {
      const r = await fetch(base + p); if (!r.ok) continue;
      const m = (await r.text()).match(/^scil_ws_lagged_frames_total(?:\{[^}]*\})?\s+([0-9.e+]+)/m);
      if (m) return Number(m[1]);
    } catch { /* not exposed */ }
  }
  return null;
}

async function startServer() {
  const port = await new Promise((res) => { const s = net.createServer(); s.listen(0, '127.0.0.1', () => { const p = s.address().port; s.close(() => res(p)); }); });
  base = `http://127.0.0.1:${port}`;
  const log = fs.openSync(path.join(tmp, 'server.log'), 'w');
  const env = { ...process.env, SCIL_OPERATOR_TOKEN: TOKEN, SCIL_BIND: `127.0.0.1:${port}`,
    DATABASE_URL: `sqlite://${path.join(tmp, 'scil.db')}?mode=rwc`, SCIL_STORAGE_DIR: path.join(tmp, 'storage'), RUST_LOG: 'warn' };
  server = spawn(BIN, ['serve'], { stdio: ['ignore', log, log], env });
  for (let i = 0; i < 200; i++) { try { await fetch(`${base}/api/v1/health`); return; } catch { await sleep(100); } }
  throw new Error('server did not come up');
}

async function once(k) {
  const run = await api('POST', '/runs', { scenario_id: SCENARIO, replay: REPLAY, speed: SPEED });
  const id = idOf(run);
  const clients = [];
  const lag0 = await lagged();
  await Promise.all(Array.from({ length: k }, () => new Promise((resolve, reject) => {
    const c = { n: 0, samples: 0, ws: new WebSocket(`${base.replace('http', 'ws')}/api/v1/runs/${id}/live`) };
    c.ws.on('open', resolve); c.ws.on('error', reject);
    c.ws.on('message', (d) => { c.n++; if (d.length > 12 && d.toString('utf8', 0, 20).includes('"sample"')) c.samples++; });
    c.ws.on('close', () => { c.closed = true; });
    clients.push(c);
  })));
  await sleep(200);
  try { await api('POST', `/runs/${id}/arm`); } catch { /* arm may be implicit */ }
  const t0 = performance.now();
  await api('POST', `/runs/${id}/start`);
  let st;
  for (;;) {
    st = await api('GET', `/runs/${id}`);
    if (['finished', 'aborted', 'failed'].includes(st.state)) break;
    await sleep(10);
  }
  const wall = (performance.now() - t0) / 1000;
  const res = await api('GET', `/runs/${id}/results`);
  // server-side ingest window: engine `armed` (first sample) → engine `finished` (last sample)
  const evs = await api('GET', `/runs/${id}/events`);
  const at = (kind) => { const e = evs.find((x) => x.kind === kind); return e ? Date.parse(e.created_at) : null; };
  const ta = at('armed'), tf = at('finished');
  const ingest = ta != null && tf != null && tf > ta ? (tf - ta) / 1000 : null;
  // let the tail of the stream arrive (each client drains what the server still has for it)
  let prev = -1;
  for (let i = 0; i < 100; i++) { const n = clients.reduce((a, c) => a + c.n, 0); if (n === prev) break; prev = n; await sleep(100); }
  const closed = clients.filter((c) => c.closed).length;      // dropped by the server (or the network) mid-run
  for (const c of clients) c.ws.close();
  const lag1 = await lagged();
  const per = clients.map((c) => c.n);
  const samples = res.samples;
  return { k, id, state: st.state, samples, wall, ingest, rate: samples / (ingest ?? wall),
    minFrames: per.length ? Math.min(...per) : null, maxFrames: per.length ? Math.max(...per) : null,
    meanFrames: per.length ? per.reduce((a, b) => a + b, 0) / per.length : null,
    closed,
    msgs: clients.reduce((a, c) => a + c.n, 0), lagged: lag0 == null || lag1 == null ? null : lag1 - lag0 };
}

try {
  if (!base) await startServer();
  console.log(`fan-out: ${SCENARIO} replay ${REPLAY} at ${SPEED === 'max' ? 'max pace' : `×${SPEED} (${25 * SPEED} Hz VUT samples)`}, best of ${REPEAT} per K, server ${base} (${BIN})`);
  console.log('   K  samples  ingest[s]  wall[s]  ingest[samples/s]  ratio  frames/client min..max (mean)  frame ratio  frames/s out  lagged');
  let baseline = null, full = null;
  const rows = [];
  for (const k of KS) {
    let best = null;
    for (let r = 0; r < REPEAT; r++) { const x = await once(k); if (!best || x.rate > best.rate) best = x; }
    if (baseline == null) baseline = best.rate;
    if (full == null && best.maxFrames) full = best.maxFrames;      // every frame of the run (K = 1)
    const per = best.minFrames == null ? '—' : `${best.minFrames}..${best.maxFrames} (${best.meanFrames.toFixed(0)})`;
    const fr = best.meanFrames == null || !full ? '—' : (best.meanFrames / full).toFixed(3);
    rows.push({ ...best, ratio: best.rate / baseline, frameRatio: fr });
    console.log(`${String(k).padStart(4)}  ${String(best.samples).padStart(7)}  ${(best.ingest ?? NaN).toFixed(3).padStart(9)}  ${best.wall.toFixed(3).padStart(7)}  ${best.rate.toFixed(0).padStart(17)}  ${(best.rate / baseline).toFixed(3).padStart(5)}  ${per.padStart(30)}  ${fr.padStart(11)}  ${(best.msgs / (best.ingest ?? best.wall)).toFixed(0).padStart(12)}  ${String(best.lagged ?? '—').padStart(6)}${best.state !== 'finished' ? '  (' + best.state + ')' : ''}${best.closed ? `  ${best.closed} closed` : ''}`);
  }
  if (opt('json', null)) fs.writeFileSync(opt('json'), JSON.stringify({ scenario: SCENARIO, speed: SPEED, rows }, null, 1));
} finally {
  if (server) server.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
}
