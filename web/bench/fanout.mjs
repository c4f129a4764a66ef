// WebSocket fan-out benchmark (figures, not a test): how many live clients can watch a run before
// ingest slows. For K = 0, 1, 10, 50, 100, 200 … it creates a run replaying a bundled CSV at ×N
// (25 Hz × N samples), connects K WebSocket clients to /api/v1/runs/{id}/live, starts the run and
// times it from `start` to `finished` (REST polling). Ingest rate = samples / wall time; the
// ratio is against the K = 0 baseline (1.00 = no slowdown). Clients share this machine's cores
// with the server, as a browser on the operator's laptop would not.
//
//   node web/bench/fanout.mjs [--bin target/debug/scil] [--speed 10] [--clients 0,1,10,50,100,200]
//                              [--replay cpna75_30kmh] [--url http://127.0.0.1:PORT (use a running server)]
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
const SPEED = Number(opt('speed', 10));
const KS = opt('clients', '0,1,10,50,100,200').split(',').map(Number);
const SCENARIO = opt('scenario', 'cpna75_30kmh');
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
  for (const p of ['/metrics', '/api/v1/metrics']) {
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
  await sleep(300);     // let the tail of the stream arrive
  for (const c of clients) c.ws.close();
  const lag1 = await lagged();
  const per = clients.map((c) => c.samples);
  return { k, id, state: st.state, samples: res.samples, wall, rate: res.samples / wall,
    minSamples: per.length ? Math.min(...per) : null, maxSamples: per.length ? Math.max(...per) : null,
    msgs: clients.reduce((a, c) => a + c.n, 0), lagged: lag0 == null || lag1 == null ? null : lag1 - lag0 };
}

try {
  if (!base) await startServer();
  console.log(`fan-out: ${SCENARIO} replay ${REPLAY} at ×${SPEED} (${25 * SPEED} Hz VUT samples), best of ${REPEAT} per K, server ${base}`);
  console.log('   K   samples   wall [s]   ingest [samples/s]   ratio   per-client samples (min..max)   msgs/s to clients   lagged frames');
  let baseline = null;
  for (const k of KS) {
    let best = null;
    for (let r = 0; r < REPEAT; r++) { const x = await once(k); if (!best || x.rate > best.rate) best = x; }
    if (baseline == null) baseline = best.rate;
    const per = best.minSamples == null ? '—' : `${best.minSamples}..${best.maxSamples}`;
    console.log(`${String(k).padStart(4)}   ${String(best.samples).padStart(7)}   ${best.wall.toFixed(3).padStart(8)}   ${best.rate.toFixed(1).padStart(18)}   ${(best.rate / baseline).toFixed(3).padStart(5)}   ${per.padStart(29)}   ${(best.msgs / best.wall).toFixed(0).padStart(17)}   ${String(best.lagged ?? '—').padStart(13)}${best.state !== 'finished' ? '  (' + best.state + ')' : ''}`);
  }
} finally {
  if (server) server.kill('SIGTERM');
  fs.rmSync(tmp, { recursive: true, force: true });
}
