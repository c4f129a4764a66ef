// Throwaway mock of the scil service contract (REST + WS), for developing the dashboard without
// the real server: `node tests/browser/mock-server.mjs [port]`. The browser test itself runs
// against the real `scil` binary (run.mjs); this mock is used only with `--mock`.
import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from '../../web/node_modules/ws/wrapper.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const WEB = path.join(root, 'web');
const TOKEN = process.env.SCIL_TOKEN || 'secret';

const csv = fs.readFileSync(path.join(root, 'data/replays/cpna75_30kmh.csv'), 'utf8').trim().split('\n').slice(1)
  .map((l) => l.split(',').map(Number)).map(([t, x, y, hdg, v, st, b]) => ({ t, x, y, yaw: (90 - hdg) * Math.PI / 180, v: v / 3.6, brake: b }));
const geo = { type: 'FeatureCollection', features: [-5.25, -3.5, -1.75, 0, 1.75, 3.5, 5.25].filter((_, i) => i % 1 === 0).map((y, i) => ({
  type: 'Feature', properties: { road: '1', lane: y === 0 ? 0 : Math.sign(y) * Math.ceil(Math.abs(y) / 3.5), type: y === 0 ? 'center' : 'border' },
  geometry: { type: 'LineString', coordinates: [[0, y * 2], [400, y * 2]] } })) };

const runs = [];
const clients = new Set();
const MIME = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.json': 'application/json' };
const send = (res, code, obj) => { res.writeHead(code, { 'content-type': 'application/json' }); res.end(JSON.stringify(obj)); };
const bcast = (m) => { const s = JSON.stringify(m); for (const c of clients) c.send(s); };

function play(run) {
  const THR = 3.9339, PATH_X = 200, REF_FRONT = 2.3;
  let i = 0, trig = null, impact = false;
  run.state = 'running'; bcast({ type: 'state', run_id: run.id, state: 'running' });
  const timer = setInterval(() => {
    if (run.state !== 'running' || i >= csv.length) {
      clearInterval(timer);
      if (run.state === 'running') { run.state = 'finished'; bcast({ type: 'event', run_id: run.id, t: csv[csv.length - 1].t, event: { event: 'finished', time_s: csv[csv.length - 1].t } }); bcast({ type: 'state', run_id: run.id, state: 'finished' }); }
      return;
    }
    const s = csv[i++];
    run.tel.push({ t: s.t, speed_mps: s.v, x: s.x, y: s.y });
    bcast({ type: 'sample', run_id: run.id, t: s.t, vehicle: 'vut', kind: 'vut', x: s.x, y: s.y, yaw: s.yaw, speed_mps: s.v, brake: s.brake, road: { road_id: '1', lane_id: -1, s: s.x, t: s.y + 1.75 } });
    const dlong = PATH_X - (s.x + REF_FRONT), ttc = s.v > 0.1 && dlong > 0 ? dlong / s.v : null;
    run.tel[run.tel.length - 1].ttc_s = ttc;
    bcast({ type: 'ttc', run_id: run.id, t: s.t, target: 'dummy', ttc_s: ttc, threshold_s: THR });
    if (!trig && ttc != null && ttc <= THR) {
      trig = { target: 'dummy', time_s: s.t, fired_at_s: s.t, ttc_s: ttc, d_long_m: dlong, vut_speed_mps: s.v, fire_error_ms: 0.9, threshold_s: THR, method: 'predicted', retimed: true };
      run.results.triggers.push({ ...trig, vut_speed_kmh: s.v * 3.6 });
      bcast({ type: 'event', run_id: run.id, t: s.t, event: { event: 'triggered', ...trig } });
    }
    if (trig) {
      const dt = s.t - trig.time_s, dy = Math.min(dt * 1.389, 8);
      bcast({ type: 'sample', run_id: run.id, t: s.t, vehicle: 'dummy', kind: 'target', x: PATH_X, y: -5.75 + dy, yaw: Math.PI / 2, speed_mps: 1.389, brake: 0, road: null });
      if (!impact && dlong <= 0) {
        impact = true;
        const im = { target: 'dummy', time_s: s.t, dummy_travel_m: dy, nominal_travel_m: 4.46375, overlap: 0.79, stopped_short_m: null, note: null };
        run.results.impacts.push(im);
        bcast({ type: 'event', run_id: run.id, t: s.t, event: { event: 'impact', ...im } });
      }
    }
    run.results.samples++;
    if (i % 25 === 0) bcast({ type: 'health', sources: [{ name: 'replay', rate_hz: 25 * run.speed, age_s: 0.01, errors: 0 }] });
  }, 40 / run.speed);
}

const server = http.createServer(async (req, res) => {
  const u = new URL(req.url, 'http://x');
  const p = u.pathname;
  let body = '';
  for await (const ch of req) body += ch;
  const authed = req.headers.authorization === `Bearer ${TOKEN}`;
  let m;
  if (p === '/api/v1/scenarios') return send(res, 200, [{ id: 'cpna75_30kmh', map_id: 'proving_ground' }, { id: 'cpna75_10kmh', map_id: 'proving_ground' }]);
  if (p === '/api/v1/runs' && req.method === 'GET') return send(res, 200, runs.map(({ id, scenario_id, state }) => ({ id, scenario_id, state })));
  if (p === '/api/v1/runs' && req.method === 'POST') {
    if (!authed) return send(res, 401, { error: 'unauthorized' });
    const b = JSON.parse(body || '{}');
    const run = { id: runs.length + 1, scenario_id: b.scenario_id, state: 'created', speed: b.speed || 1, tel: [], results: { samples: 0, skipped_rows: 0, triggers: [], impacts: [], aborted: null } };
    runs.push(run);
    return send(res, 201, { id: run.id, scenario_id: run.scenario_id, state: run.state });
  }
  if ((m = p.match(/^\/api\/v1\/runs\/(\d+)\/(arm|start|abort)$/)) && req.method === 'POST') {
    if (!authed) return send(res, 401, { error: 'unauthorized' });
    const run = runs[m[1] - 1];
    if (m[2] === 'arm') { run.state = 'armed'; bcast({ type: 'state', run_id: run.id, state: 'armed' }); }
    if (m[2] === 'start') play(run);
    if (m[2] === 'abort') { run.state = 'aborted'; run.results.aborted = 'operator'; bcast({ type: 'event', run_id: run.id, t: null, event: { event: 'aborted', reason: 'operator' } }); bcast({ type: 'state', run_id: run.id, state: 'aborted' }); }
    return send(res, 200, { id: run.id, state: run.state });
  }
  if ((m = p.match(/^\/api\/v1\/runs\/(\d+)\/results$/))) return send(res, 200, runs[m[1] - 1].results);
  if ((m = p.match(/^\/api\/v1\/runs\/(\d+)\/telemetry$/))) return send(res, 200, runs[m[1] - 1].tel);
  if (p.startsWith('/api/v1/maps/')) return send(res, 200, geo);
  if (p.startsWith('/api/')) return send(res, 404, { error: 'not found' });
  const f = path.join(WEB, p === '/' ? 'index.html' : path.normalize(p));
  if (!f.startsWith(WEB) || !fs.existsSync(f)) { res.writeHead(404); return res.end('not found'); }
  res.writeHead(200, { 'content-type': MIME[path.extname(f)] || 'application/octet-stream' });
  fs.createReadStream(f).pipe(res);
});
const wss = new WebSocketServer({ server });
wss.on('connection', (c, req) => {
  clients.add(c);
  const run = runs[runs.length - 1];
  c.send(JSON.stringify({ type: 'hello', run: run ? { id: run.id, state: run.state } : null, scenario_id: run?.scenario_id, map_id: 'proving_ground' }));
  c.on('close', () => clients.delete(c));
});
const port = Number(process.argv[2] || 8089);
server.listen(port, '127.0.0.1', () => console.log(`mock scil on http://127.0.0.1:${port} (token '${TOKEN}')`));
