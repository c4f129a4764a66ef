// scil dashboard: live view over WebSocket + run control. Messages only update `L` (the latest
// state); one requestAnimationFrame loop draws whatever changed, so a 25 Hz (or ×N) stream never
// queues redraws.
import { get, getAuth, post, postForm, getToken, setToken, runId, asList } from './api.js';
import { MapView, completePlan, planFocus } from './mapview.js';
import { TimePlot } from './plots.js';
import { Results } from './results.js';
import { Analysis } from './analysis.js';
import { TestDay } from './testday.js';
import { SIM_VUT, simOption, simSelected, simSource, initParams, showParams } from './params.js';
import { ValidityLamps } from './validity.js';
import { RunStrip } from './runs_strip.js';
import { ObjectsPanel, roleOf, stateOf } from './objects.js';
import { describe, inWords } from './events.js';
import { initMapUpload, showSite } from './maps.js';
import { initUpload } from './upload.js';

const $ = (s) => document.querySelector(s);
// a 10-minute run at 100 Hz is 60 000 points: the whole run stays on screen
const MAX_POINTS = 200000, MAX_EVENTS = 2000, TRAIL_MIN_M = 0.25, TRAIL_MAX = 40000;
const ACTIVE = ['armed', 'running'];

// ---------------------------------------------------------------- live state
const L = {
  runId: null, scenarioId: null, mapId: null, state: null, t0: null,
  vut: null, trail: [], targets: new Map(), triggerPoint: null,
  ttc: [[], []], speed: [[], [], []], threshold: null, lastTtc: null, ttcByTarget: new Map(),
  instants: [], carriers: new Map(), carrierOf: new Map(), events: [], health: [], healthAt: 0,
  objects: null, runRow: null, linkWarned: new Map(), lastSynced: new Map(),
  dirty: { map: true, plots: true, hud: true, tables: true, events: true, state: true },
};
// for tests and debugging: counters, never used by the UI itself
const stats = { messages: 0, samples: 0, ttc: 0, events: 0, frames: 0, hello: 0, lastRate: 0 };
window.__scil = { L, stats };
let analysis = null; // the Analysis view (sweeps), made with the tabs below

const lamps = new ValidityLamps(document.getElementById('validity-lamps'));

function resetRun(id) {
  lamps.reset();
  if (id !== L.runId) { L.runScenario = undefined; L.runPlan = null; L.loggedState = null; }
  Object.assign(L, { runId: id, t0: null, vut: null, trail: [], targets: new Map(), triggerPoint: null,
    ttc: [[], []], speed: [[], [], []], threshold: null, lastTtc: null, ttcByTarget: new Map(), instants: [],
    carriers: new Map(), carrierOf: new Map(), events: [], health: [], healthAt: 0, lastSynced: new Map(),
    objects: id === L.runId ? L.objects : null, runRow: id === L.runId ? L.runRow : null, linkWarned: new Map() });
  for (const k in L.dirty) L.dirty[k] = true;
}

const rel = (t) => { if (L.t0 == null) L.t0 = t; return t - L.t0; };
const fmt = (v, d = 2) => (v == null || !isFinite(v) ? '—' : Number(v).toFixed(d));

function push(series, ...vals) {
  for (let i = 0; i < vals.length; i++) series[i].push(vals[i]);
  if (series[0].length > MAX_POINTS) for (const s of series) s.splice(0, s.length - MAX_POINTS);
}

// ---------------------------------------------------------------- messages
function onMessage(m) {
  stats.messages++;
  // Only the shown run's frames (a track follower moves on to the track's next run).
  if (m.type !== 'hello' && m.type !== 'run_started' && m.run_id != null && L.runId != null && m.run_id !== L.runId) return;
  switch (m.type) {
    case 'hello': {
      stats.hello++;
      const id = runId(m.run);
      if (L.runId != null && id !== L.runId) {
        // The page never switches by itself: say so, and stay on the shown run.
        strip.started(id, m.track ?? (m.run && m.run.track));
        connect(L.runId);
        return;
      }
      if (L.runId == null) {
        // an idle page takes the first run it learns of, then follows that run only
        resetRun(id);
        setPreview(null);
        if (wsTarget !== id) { connect(id); return; }
      }
      if (m.t0 != null) L.t0 = m.t0;
      L.track = m.track ?? (m.run && m.run.track) ?? null;
      L.scenarioId = m.scenario_id ?? (m.run && m.run.scenario_id) ?? L.scenarioId;
      L.runPlan = m.plan ?? null;
      if (!L.preview) L.plan = L.runPlan;
      scenarioDetail(L.scenarioId).then((sc) => {
        if (id !== L.runId) return;
        L.runScenario = sc;
        L.runPlan = completePlan(m.plan ?? null, sc);
        if (!L.preview) { L.plan = L.runPlan; L.dirty.map = true; }
        showValidityWhy();
      });
      if (m.run && m.run.state) setState(m.run.state);
      if (m.map_id && m.map_id !== L.mapId) loadMap(m.map_id);
      syncScenario();
      L.dirty.state = true;
      break;
    }
    case 'history': onHistory(m); break;
    case 'run_started':
      if (L.runId == null && wsTarget && wsTarget.track !== undefined) { resetRun(m.run_id); connect(m.run_id); }
      else strip.started(m.run_id, m.track);
      break;
    case 'sample': {
      stats.samples++;
      if (m.run_id != null && L.runId == null) L.runId = m.run_id;
      const t = rel(m.t);
      if (m.kind === 'target') {
        let tg = L.targets.get(m.vehicle);
        if (!tg) { tg = { trail: [] }; L.targets.set(m.vehicle, tg); }
        Object.assign(tg, { x: m.x, y: m.y, yaw: m.yaw, speed: m.speed_mps, t });
        addTrail(tg.trail, m.x, m.y);
        if (!L.carriers.has(m.vehicle)) L.carriers.set(m.vehicle, 'waiting');
        if (m.speed_mps > 0.05 && ['waiting', 'scheduled', 'triggered', 'started', 'retimed'].includes(L.carriers.get(m.vehicle))) L.carriers.set(m.vehicle, 'moving');
      } else {
        L.vut = { x: m.x, y: m.y, yaw: m.yaw, speed: m.speed_mps, brake: m.brake, steer: m.steering_wheel_deg, wheel: m.wheel_speed_mps, road: m.road, t };
        addTrail(L.trail, m.x, m.y);
        push(L.speed, t, m.speed_mps * 3.6, m.brake ? m.speed_mps * 3.6 : null);
        L.dirty.plots = true; L.dirty.hud = true;
      }
      L.dirty.map = true; L.dirty.tables = true;
      break;
    }
    case 'ttc': {
      stats.ttc++;
      const t = rel(m.t);
      if (m.threshold_s != null) L.threshold = m.threshold_s;
      const v = m.ttc_s == null || !isFinite(m.ttc_s) ? null : m.ttc_s;
      L.ttcByTarget.set(m.target, v);
      if (!L.carriers.has(m.target)) L.carriers.set(m.target, 'waiting');
      // one line: the first target's TTC (CPNA has one); others show in the carrier table
      const first = L.ttcByTarget.keys().next().value;
      if (m.target === first) { push(L.ttc, t, v); L.lastTtc = v; }
      L.dirty.plots = true; L.dirty.hud = true; L.dirty.tables = true;
      break;
    }
    case 'event': onEvent(m); break;
    case 'state': {
      // logged only as a change (a joining page gets the current state again after its history;
      // a control's own answer may have shown it already)
      const changed = m.state !== L.loggedState;
      setState(m.state);
      if (changed) { L.loggedState = m.state; addLog(null, 'state', { state: m.state }); strip.refresh(); }
      break;
    }
    case 'sweep': stats.sweepFrames = (stats.sweepFrames || 0) + 1; if (analysis) analysis.onFrame(m); break;
    case 'health': L.health = m.sources || []; L.healthAt = performance.now(); L.dirty.tables = true; break;
    default: break;
  }
}

function addTrail(tr, x, y) {
  const n = tr.length;
  if (n >= 2 && Math.hypot(tr[n - 2] - x, tr[n - 1] - y) < TRAIL_MIN_M) return;
  tr.push(x, y);
  if (tr.length > 2 * TRAIL_MAX) tr.splice(0, tr.length - 2 * TRAIL_MAX);
}

// The whole run so far (a page that joins late, or reconnects): drawn on the run's own time
// axis, t0 = the run's first VUT sample, the same on every page and in the results.
function onHistory(m) {
  stats.history = (stats.history || 0) + 1;
  const keepState = L.state;
  resetRun(m.run_id);
  L.state = keepState;
  if (m.t0 != null) L.t0 = m.t0;
  const t0 = L.t0 ?? 0;
  let vutT = null, vutX = null, vutY = null;
  for (const [vid, tr] of Object.entries(m.vehicles || {})) {
    const n = tr.t.length; if (!n) continue;
    const last = n - 1;
    if (tr.kind === 'vut') {
      vutT = tr.t; vutX = tr.x; vutY = tr.y;
      for (let i = 0; i < n; i++) {
        addTrail(L.trail, tr.x[i], tr.y[i]);
        const v = tr.speed_mps[i] * 3.6;
        L.speed[0].push(tr.t[i] - t0); L.speed[1].push(v); L.speed[2].push(tr.brake[i] ? v : null);
      }
      L.vut = { x: tr.x[last], y: tr.y[last], yaw: tr.yaw[last], speed: tr.speed_mps[last], brake: !!tr.brake[last], t: tr.t[last] - t0 };
    } else {
      const tg = { trail: [] };
      for (let i = 0; i < n; i++) addTrail(tg.trail, tr.x[i], tr.y[i]);
      Object.assign(tg, { x: tr.x[last], y: tr.y[last], yaw: tr.yaw[last], speed: tr.speed_mps[last], t: tr.t[last] - t0 });
      L.targets.set(vid, tg);
      L.carriers.set(vid, tr.speed_mps.some((v) => v > 0.05) ? 'moving' : 'waiting');
    }
  }
  let first = true;
  for (const [target, s] of Object.entries(m.ttc || {})) {
    if (s.threshold_s != null) L.threshold = s.threshold_s;
    if (!L.carriers.has(target)) L.carriers.set(target, 'waiting');
    const n = s.t.length;
    L.ttcByTarget.set(target, n ? s.ttc_s[n - 1] : null);
    if (first) { for (let i = 0; i < n; i++) { L.ttc[0].push(s.t[i] - t0); L.ttc[1].push(s.ttc_s[i]); } L.lastTtc = n ? s.ttc_s[n - 1] : null; }
    first = false;
  }
  // A stored event without its own sample time (the operator's create, arm, start) keeps the
  // clock time it was stored at: it is not put at the run's last sample, after the impact.
  const vutNow = L.vut; L.vut = null;
  for (const e of m.events || []) onEvent(e);
  L.vut = vutNow;
  // the trigger point where the VUT was at the trigger, not where it is now
  const trig = (m.events || []).find((e) => e.event && e.event.event === 'triggered');
  if (trig && vutT && trig.event.time_s != null) {
    let lo = 0, hi = vutT.length - 1;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (vutT[mid] < trig.event.time_s) lo = mid + 1; else hi = mid; }
    L.triggerPoint = [vutX[lo], vutY[lo]];
  }
  if (m.state) { setState(m.state); L.loggedState = m.state; }
  for (const k in L.dirty) L.dirty[k] = true;
  if (vutT && vutT.length) hudFromStore(m.run_id, vutT[vutT.length - 1]);
}

// The history carries positions only: the lane, steering and wheel speed of the VUT's latest
// sample come from the stored telemetry (a finished run's, or a running one's once written).
async function hudFromStore(id, tAbs) {
  let rows = [];
  try { rows = asList(await get(`/runs/${encodeURIComponent(id)}/telemetry?from=${tAbs - 0.5}&limit=200`), 'rows'); } catch { return; }
  const vut = rows.filter((r) => r.kind === 'vut').pop();
  // only while the HUD still shows the history's sample (a live sample is newer)
  if (!vut || id !== L.runId || !L.vut || L.vut.road !== undefined) return;
  L.vut.road = vut.road_id != null ? { road_id: vut.road_id, lane_id: vut.lane_id, s: vut.road_s, t: vut.road_t } : null;
  if (vut.steering_wheel_deg != null) L.vut.steer = vut.steering_wheel_deg;
  if (vut.wheel_speed_mps != null) L.vut.wheel = vut.wheel_speed_mps;
  L.dirty.hud = true;
}

function onEvent(m) {
  stats.events++;
  const e = m.event || {};
  const name = e.event || 'event';
  const t = m.t ?? e.time_s;
  switch (name) {
    // The engine's own `armed` event comes when its task starts, which for a run is after the
    // run went `running`: the run state is taken from `state` frames only.
    case 'armed': break;
    case 'trigger_scheduled': L.carriers.set(e.target, 'scheduled'); break;
    case 'trigger_unscheduled': L.carriers.set(e.target, 'waiting'); break;
    case 'triggered':
    case 'trigger_assessed': {
      if (e.threshold_s != null) L.threshold = e.threshold_s;
      const cur = L.carriers.get(e.target);
      if (cur !== 'impact' && cur !== 'moving') L.carriers.set(e.target, 'triggered');
      L.instants = L.instants.filter((i) => !(i.kind === 'trigger' && i.target === e.target));
      L.instants.push({ kind: 'trigger', target: e.target, t: e.time_s != null ? rel(e.time_s) : null, label: 'trigger', color: '#ff5cd6' });
      if (L.vut && name === 'triggered') L.triggerPoint = [L.vut.x, L.vut.y];
      break;
    }
    case 'impact':
      L.carriers.set(e.target, e.time_s != null ? 'impact' : 'done');
      if (e.time_s != null) L.instants.push({ kind: 'impact', target: e.target, t: rel(e.time_s), label: 'impact', color: '#3ccf6e' });
      break;
    case 'carrier_state':
      // the dispatcher's command to the carrier (started / retimed / stopped)
      if (e.target) {
        if (e.carrier) L.carrierOf.set(e.target, e.carrier);
        const cur = L.carriers.get(e.target);
        if (e.state === 'stopped') L.carriers.set(e.target, 'stopped');
        else if (!['moving', 'impact', 'done'].includes(cur)) L.carriers.set(e.target, e.state);
      }
      break;
    case 'aborted': for (const k of L.carriers.keys()) L.carriers.set(k, 'aborted'); setState('aborted'); break;
    case 'finished': break;
    case 'validity': lamps.onBreak(e, rel); break;
    case 'verdict': lamps.onVerdict(e, rel); break;
  }
  addLog(t, name, e, m.at);
  L.dirty.plots = true; L.dirty.tables = true;
}

// Every event gets a time: its own sample time, else the run's latest VUT sample when it came;
// one that came before the first sample keeps the clock time it came at.
let eventSeq = 0;
// closed-loop synchronisation re-times a target every few samples: one line per target and
// second, counting the re-timings it stands for
const SYNCED_MERGE_S = 1.0;
function addLog(t, name, e, at = null) {
  let abs = t;
  if (abs == null && L.vut && L.t0 != null) abs = L.vut.t + L.t0;
  if (name === 'synced') {
    const last = L.lastSynced && L.lastSynced.get(e.target);
    if (last && abs != null && last.abs != null && abs - last.abs < SYNCED_MERGE_S) {
      last.e = { ...e, count: (last.e.count || 1) + 1 };
      L.dirty.events = true;
      return;
    }
  }
  const ev = { abs, wall: at ? new Date(at) : new Date(), seq: eventSeq++, name, e };
  L.events.push(ev);
  if (name === 'synced') { L.lastSynced = L.lastSynced || new Map(); L.lastSynced.set(e.target, ev); }
  if (L.events.length > MAX_EVENTS) L.events.splice(0, L.events.length - MAX_EVENTS);
  L.dirty.events = true;
}
/** The event's time on the run's axis (s since the first VUT sample), or null before it. */
const eventT = (ev) => (ev.abs != null && L.t0 != null ? ev.abs - L.t0 : null);

function setState(s) {
  if (!s || s === L.state) return;
  L.state = s; L.dirty.state = true;
}

// ---------------------------------------------------------------- websocket
// wsTarget: a run id (that run only) or {track} (an idle page waiting for the track's next run)
let ws = null, wsTarget = null, backoff = 500;
function connect(target = wsTarget) {
  wsTarget = target;
  // the old socket's queued frames are dropped with it
  if (ws) { ws.onclose = null; ws.onmessage = null; ws.close(); }
  const q = new URLSearchParams();
  let path;
  if (typeof target === 'object' && target) { path = '/api/v1/live'; q.set('track', target.track); }
  else path = `/api/v1/runs/${encodeURIComponent(target)}/live`;
  // browsers cannot set headers on a WebSocket: the service also takes ?token=
  const tok = getToken();
  if (tok) q.set('token', tok);
  const qs = q.toString();
  const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}${path}${qs ? `?${qs}` : ''}`;
  setConn('connecting');
  ws = new WebSocket(url);
  ws.onopen = () => { setConn('open'); backoff = 500; };
  ws.onmessage = (ev) => {
    let m; try { m = JSON.parse(ev.data); } catch { return; }
    if (Array.isArray(m)) m.forEach(onMessage); else onMessage(m);
  };
  ws.onclose = () => { setConn('closed'); setTimeout(() => connect(wsTarget), backoff); backoff = Math.min(backoff * 2, 5000); };
  ws.onerror = () => {};
}
function setConn(s) {
  const el = $('#conn'); el.dataset.state = s;
  el.textContent = s === 'open' ? `WS ${typeof wsTarget === 'object' && wsTarget ? 'track ' + wsTarget.track : 'run ' + wsTarget}` : s === 'connecting' ? 'WS …' : 'WS down';
}

// ---------------------------------------------------------------- map + plots
const mapView = new MapView($('#map'));
mapView.onUserMove = () => { $('#follow').checked = false; };
$('#follow').addEventListener('change', (e) => { mapView.follow = e.target.checked; mapView.dirty = true; });
$('#fit').addEventListener('click', () => { mapView.follow = false; $('#follow').checked = false; mapView.fit(L.vut ? [[L.vut.x, L.vut.y]] : []); });
// ± zoom about the plan during a preview, else about the view centre (the VUT when following)
const zoomBy = (f) => (L.preview && L.previewFocus ? mapView.zoomAbout(f, ...L.previewFocus) : mapView.zoom(f));
$('#zoom-in').addEventListener('click', () => zoomBy(1.5));
$('#zoom-out').addEventListener('click', () => zoomBy(1 / 1.5));

async function loadMap(id) {
  L.mapId = id; $('#map-name').textContent = id;
  showSite(id, () => L.mapId);
  try { mapView.setGeoJSON(await get(`/maps/${encodeURIComponent(id)}/geojson`)); }
  catch (e) { toast(`map ${id}: ${e.message}`, true); }
  if (mapView.follow) mapView.scale = Math.max(mapView.scale, 7);
  // the map's geofence (empty where it has none)
  mapView.setGeofence(null);
  get(`/maps/${encodeURIComponent(id)}/geofence`).then((g) => { if (L.mapId === id) { mapView.setGeofence(g); L.dirty.map = true; } }).catch(() => {});
  L.dirty.map = true;
}

// The TTC axis follows the bulk of the data (a slow run's 40 s TTC is on it; the 97th
// percentile, so the short rise of a VUT that stops does not flatten the approach) up to a
// minute; values above the axis are said in words at the top of the plot.
const TTC_TOP_S = 60;
function ttcTop(vals) {
  const step = Math.max(1, Math.floor(vals.length / 2000)), s = [];
  for (let i = 0; i < vals.length; i += step) if (vals[i] != null && isFinite(vals[i])) s.push(vals[i]);
  if (!s.length) return 5;
  s.sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.97))];
}
const ttcPlot = new TimePlot($('#plot-ttc'), { series: [{ label: 'TTC', color: '#ffcf3a', digits: 3 }], height: 150, unit: 's',
  yRange: (u) => [0, Math.min(Math.max(ttcTop(u.data[1] || []) * 1.1, (L.threshold ?? 0) * 1.5, 1), Math.max(TTC_TOP_S, (L.threshold ?? 0) * 3))] });
const speedPlot = new TimePlot($('#plot-speed'), { series: [{ label: 'v', color: '#4fa3ff', digits: 1 }, { label: 'brake', color: '#ff4d4f', digits: 1 }], height: 130, unit: 'km/h' });
window.__scil.plots = { ttc: ttcPlot, speed: speedPlot };
window.__scil.map = mapView;
window.__scil.loadMap = (id) => loadMap(id);

// ---------------------------------------------------------------- render loop
let lastTables = 0, rateCount = 0, rateT = performance.now(), lastFrame = 0;
// Drawn from requestAnimationFrame; when the browser stops delivering frames (a hidden or
// occluded window, some headless modes) a 4 Hz timer keeps the state, tables and plots current.
function frame(now, fromTimer = false) {
  lastFrame = performance.now();
  stats.frames++;
  if (L.dirty.map || mapView.dirty || mapView.follow && L.dirty.hud) {
    // a preview shows the scenario's plan alone, not the shown run's actors
    mapView.draw(L.preview ? { vut: null, targets: new Map(), trail: [], triggerPoint: null, plan: L.plan }
      : { vut: L.vut, targets: L.targets, trail: L.trail, triggerPoint: L.triggerPoint, plan: L.plan, objects: L.objects });
    L.dirty.map = false;
  }
  if (L.dirty.plots) {
    // a preview has no run data: empty plots marked "preview"
    const pv = !!L.preview;
    ttcPlot.marks = pv ? { threshold: null, instants: [] } : { threshold: L.threshold, instants: L.instants };
    speedPlot.marks = { threshold: null, instants: pv ? [] : L.instants };
    ttcPlot.setData(pv ? [[], []] : L.ttc); speedPlot.setData(pv ? [[], [], []] : L.speed);
    $('#ttc-legend').textContent = pv ? '' : `threshold ${fmt(L.threshold, 3)} s`;
    L.dirty.plots = false;
  }
  if (L.dirty.hud) { renderHud(); L.dirty.hud = false; }
  if (L.dirty.state) { renderState(); L.dirty.state = false; }
  if (now - lastTables > 200) {
    if (L.dirty.tables || L.health.length) { renderTables(); L.dirty.tables = false; }
    if (L.dirty.events) { renderEvents(); L.dirty.events = false; }
    lastTables = now;
  }
  if (now - rateT >= 1000) {
    stats.lastRate = (stats.messages - rateCount) * 1000 / (now - rateT); rateCount = stats.messages; rateT = now;
    $('#msg-rate').textContent = `${stats.lastRate.toFixed(0)} msg/s`;
  }
  if (!fromTimer) requestAnimationFrame(frame);
}
setInterval(() => { if (performance.now() - lastFrame > 250) frame(performance.now(), true); }, 250);
// objects on the ground: their MONR poses, states and start poses from the run (twice a second)
async function pollObjects() {
  if (L.runId == null) { L.objects = null; objectsPanel.render(null); return; }
  const id = L.runId;
  try {
    const r = await get(`/runs/${encodeURIComponent(id)}`);
    if (id !== L.runId) return;
    const before = JSON.stringify((L.objects || []).map((o) => [o.state, o.at_start]));
    L.objects = r.objects || null;
    L.runRow = r;
    if (L.objects) L.dirty.map = true;
    // a link past its warning level is said as it happens (once per object and warning)
    for (const o of L.objects || []) {
      const w = o.link_warning || null;
      if (w && !L.linkWarned.get(o.name)) addLog(null, 'link_warning', { carrier: o.name, text: w });
      L.linkWarned.set(o.name, w);
    }
    objectsPanel.render(L.objects, runFault(r));
    // the controls follow the objects (back to start, ABORT while they drive back)
    if (JSON.stringify((L.objects || []).map((o) => [o.state, o.at_start])) !== before) renderState();
  } catch { /* the next poll */ }
}
/** The run's abort as data (`abort`: kind, object, text), else its stored reason. */
function runFault(r) {
  if (!r) return null;
  if (r.abort && r.abort.text) return { object: r.abort.object ?? null, text: r.abort.text };
  return r.error ? { object: null, text: inWords(r.error) } : null;
}
const objectsPanel = new ObjectsPanel($('#objects-panel'), $('#objects'), $('#objects-summary'));
window.__scil.objectsPanel = objectsPanel;
setInterval(pollObjects, 500);

function renderHud() {
  // a preview shows no run: no values of the run the page follows
  const v = L.preview ? null : L.vut;
  $('#hud-t').textContent = v ? `${fmt(v.t, 2)} s` : '—';
  $('#hud-v').textContent = v ? `${fmt(v.speed * 3.6, 1)} km/h` : '—';
  const ttcEl = $('#hud-ttc');
  ttcEl.textContent = L.lastTtc == null ? '—' : `${fmt(L.lastTtc, 3)} s`;
  ttcEl.className = L.lastTtc != null && L.threshold != null && L.lastTtc <= L.threshold ? 'bad' : '';
  const b = $('#hud-brake'); b.textContent = v ? (v.brake ? 'ON' : 'off') : '—'; b.className = v && v.brake ? 'bad' : '';
  $('#hud-steer').textContent = v && v.steer != null ? `${fmt(v.steer, 1)}°` : '—';
  $('#hud-wheel').textContent = v && v.wheel != null ? `${fmt(v.wheel * 3.6, 1)} km/h` : '—';
  $('#vut-pos').textContent = v ? `x ${fmt(v.x, 2)} m, y ${fmt(v.y, 2)} m` : '—';
  // `road` undefined: not known (a page that joined late, before its lookup answered)
  $('#hud-lane').textContent = v && v.road ? `road ${v.road.road_id} lane ${v.road.lane_id} s=${fmt(v.road.s, 1)} m t=${fmt(v.road.t, 2)} m`
    : (v && v.road === null ? 'off map' : '—');
  const last = !L.preview && L.speed[1].length ? L.speed[1][L.speed[1].length - 1] : null;
  $('#speed-legend').textContent = last == null ? '' : `${fmt(last, 1)} km/h`;
}

function renderTables() {
  if (L.preview) {
    const plan = L.plan || {};
    $('#carriers tbody').innerHTML = (plan.targets || []).map((t) => `<tr><td>${esc(t.id)}</td><td><span class="st st-waiting">${t.static ? 'parked' : 'planned'}</span></td><td class="num">—</td><td class="num">—</td></tr>`).join('')
      || '<tr><td colspan=4 class="muted">no targets</td></tr>';
    $('#health tbody').innerHTML = '<tr><td colspan=4 class="muted">preview: no run</td></tr>';
    return;
  }
  const rows = [];
  for (const [id, st] of L.carriers) {
    const tg = L.targets.get(id), ttc = L.ttcByTarget.get(id);
    const car = L.carrierOf.get(id);
    rows.push(`<tr><td>${esc(id)}${car ? ` <span class="muted">${esc(car)}</span>` : ''}</td><td><span class="st st-${st}">${st}</span></td><td class="num">${tg ? fmt(tg.speed * 3.6, 1) : '—'}</td><td class="num">${fmt(ttc, 2)}</td></tr>`);
  }
  // a ground run's targets are its objects' carriers, before any target moves
  const ground = (L.objects || []).filter((o) => o.drives !== 'vut');
  if (!rows.length) for (const o of ground) rows.push(`<tr><td>${esc(o.name)} <span class="muted">${esc(roleOf(o.drives))}</span></td><td><span class="st">${esc(stateOf(o))}</span></td><td class="num">—</td><td class="num">—</td></tr>`);
  $('#carriers tbody').innerHTML = rows.join('') || '<tr><td colspan=4 class="muted">no targets</td></tr>';
  // health frames come about once a second while a run is running; when none has come for 2.5 s
  // (server stalled, WebSocket stuck) the rows turn red with the time since the last one
  const ended = L.state != null && !ACTIVE.includes(L.state) && L.state !== 'created';
  const since = (performance.now() - L.healthAt) / 1000;
  $('#health tbody').innerHTML = L.health.map((s) => {
    if (ended) return `<tr><td>${esc(s.name)}</td><td class="num stale">—</td><td class="num stale">run ${esc(L.state)}</td><td class="num ${s.errors ? 'bad' : ''}">${s.errors ?? 0}</td></tr>`;
    const age = s.age_s, cls = age == null ? 'muted' : age < 0.2 ? 'ok' : age < 1 ? 'warn' : 'bad';
    const ageTd = since > 2.5 ? `<td class="num bad" title="no health report for ${fmt(since, 1)} s">no report ${fmt(since, 0)} s</td>`
      : `<td class="num ${cls}">${age == null ? '—' : fmt(age, 2) + ' s'}</td>`;
    return `<tr><td>${esc(s.name)}</td><td class="num">${fmt(s.rate_hz, 1)} Hz</td>${ageTd}<td class="num ${s.errors ? 'bad' : ''}">${s.errors ?? 0}</td></tr>`;
  }).join('') || `<tr><td colspan=4 class="muted">${(L.objects || []).length ? 'the VUT robot\'s MONR: its link in Objects' : 'no sources'}</td></tr>`;
}

// Newest first, in the order of their times (the ones before the first sample oldest, by arrival).
function renderEvents() {
  if (L.preview) {
    $('#events').innerHTML = `<div class="ev-none muted">preview of ${esc(L.preview)}: no run data (back to run: the map's “back to run”)</div>`;
    $('#event-count').textContent = '';
    return;
  }
  const html = [];
  // what an object drives, for the events of objects that move no target (the VUT's robot)
  const ctx = { t0: L.t0, role: (c) => { const o = (L.objects || []).find((x) => x.name === c); return o ? roleOf(o.drives) : null; } };
  const key = (ev) => { const t = eventT(ev); return t == null ? -Infinity : t; };
  const sorted = L.events.slice().sort((a, b) => key(a) - key(b) || a.seq - b.seq);
  for (let i = sorted.length - 1; i >= 0; i--) {
    const ev = sorted[i], t = eventT(ev);
    const time = t != null ? `<span class="t" data-t="${t}">${t.toFixed(3)} s</span>`
      : `<span class="t" data-wall="1" title="clock time: before the run's first VUT sample">${ev.wall.toLocaleTimeString('en-GB')}</span>`;
    const text = describe(ev.name, ev.e, ctx);
    html.push(`<div class="ev ev-${esc(ev.name)}" data-event="${esc(ev.name)}">${time}<span class="n">${esc(ev.name.replace(/_/g, ' '))}</span><span class="d" title="${esc(text)}">${esc(text)}</span></div>`);
  }
  $('#events').innerHTML = html.join('');
  $('#event-count').textContent = String(L.events.length);
}

// Why the validity lamps are grey, when they are: the scenario has no validity section, or the
// run ended without a verdict.
function showValidityWhy() {
  const sc = L.preview ? L.previewScenario : L.runScenario;
  let why = '';
  if (sc && !sc.validity) why = 'no validity section in this scenario: no validity is judged';
  else if (L.preview) why = 'preview: the lamps light during a run';
  else if (sc && lamps.verdict == null && L.state && !ACTIVE.includes(L.state) && L.state !== 'created') why = `no verdict: the run ${L.state} before its validity window closed`;
  lamps.setWhy(why);
  $('#validity-why').textContent = why ? 'grey: see below' : 'first violation';
}

function renderState() {
  const el = $('#run-state');
  el.dataset.state = L.state || 'none';
  el.textContent = L.state ? L.state : 'no run';
  L.dirty.tables = true;
  $('#run-info').textContent = L.runId != null ? `run ${L.runId} · track ${L.track ?? '?'} · ${L.scenarioId ?? '?'} · map ${L.mapId ?? '?'}` : 'waiting for a run';
  // ABORT shows for a created, armed or running run (the server aborts all three), and while
  // the run's objects drive back to their starts (it stops them)
  const returning = (L.objects || []).some((o) => o.state === 'returning');
  const active = ACTIVE.includes(L.state) || L.state === 'created' || returning;
  $('#estop').hidden = !active;
  $('#estop').title = L.runId != null ? `Abort run ${L.runId} (track ${L.track ?? '?'}): stop every carrier` : '';
  // enabled only where the server accepts them: arm a created run (not while its objects
  // drive to their starts), start an armed one
  $('#btn-arm').disabled = L.runId == null || L.state !== 'created' || returning;
  $('#btn-arm').title = returning ? 'The objects are driving to their starts: arm when they stand' : '';
  $('#btn-start').disabled = L.runId == null || L.state !== 'armed';
  // back to start: a created or ended run with objects on the ground, not all at their start.
  // Its place is kept when it does not apply, so that ABORT never moves.
  const objects = L.objects || [];
  const ended = L.state != null && !ACTIVE.includes(L.state) && L.state !== 'created';
  const ground = objects.length > 0;
  const allAtStart = ground && objects.every((o) => o.at_start === true);
  $('#btn-return').classList.toggle('reserve', !ground);
  $('#btn-return').disabled = !ground || !(ended || L.state === 'created') || returning || allAtStart;
  $('#btn-return').title = !ground ? '' : returning ? 'The objects are driving to their starts (ABORT stops them)'
    : allAtStart ? 'Every object stands at its start'
    : `Drive the objects of run ${L.runId} to their start poses`;
  // a run on the ground moves in real time from its objects' MONR: no replay, no pace
  for (const sel of ['#replay', '#speed', '#upload']) $(sel).closest('label').hidden = ground;
  $('#btn-create').disabled = !!$('#btn-create').dataset.busy;
  for (const b of ['#btn-arm', '#btn-start', '#btn-return']) if ($(b).dataset.busy) $(b).disabled = true;
  showParams(L.state);
  showValidityWhy();
  strip.render();
}

const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

// ---------------------------------------------------------------- run control
let scenarios = [];
const uploaded = [];
// Messages have their own place in the active-runs strip (between the runs and ABORT ALL): they
// never lie over a control, so a click on ABORT always reaches ABORT.
function toast(msg, err = false) {
  const t = $('#toast'); t.textContent = msg; t.title = msg; t.className = err ? 'err' : 'ok';
  clearTimeout(toast.timer); toast.timer = setTimeout(() => { t.textContent = ''; t.title = ''; t.className = ''; }, err ? 8000 : 4000);
}

async function loadScenarios() {
  try {
    scenarios = asList(await get('/scenarios'), 'scenarios').map((s) => (typeof s === 'string' ? { id: s } : s));
  } catch (e) { toast(e.message, true); scenarios = []; }
  $('#scenario').innerHTML = scenarios.map((s) => `<option value="${esc(s.id)}">${esc(s.name && s.name !== s.id ? `${s.id} — ${s.name}` : s.id)}</option>`).join('');
  if (!scenarioTouched && L.scenarioId && scenarios.some((s) => s.id === L.scenarioId)) $('#scenario').value = L.scenarioId;
  await fillReplays();
}

async function fillReplays() {
  const sid = $('#scenario').value;
  const keepSim = $('#replay').value === SIM_VUT;   // the simulated VUT stays chosen across scenarios
  const sc = scenarios.find((s) => s.id === sid) || {};
  let list = asList(sc.replays, 'replays');
  let judged = false;
  if (!list.length) {
    // The server says which replays fit this scenario (on its map, near its paths).
    try { list = asList(await get(`/replays?scenario=${encodeURIComponent(sid)}`), 'replays'); judged = true; } catch { list = []; }
  }
  list = list.map((r) => (typeof r === 'string' ? { id: r } : r))
    .filter((r) => r.fits !== false && (!r.scenario_id || r.scenario_id === sid));
  if (!list.length && sid && !judged) list = [{ id: sid }];
  for (const u of uploaded) if (u.scenario_id === sid && !list.some((r) => r.id === u.id)) list.push(u);
  const kindOf = (r) => (r.kind && r.kind !== 'csv' ? ` · ${r.kind.toUpperCase()}` : '');
  $('#replay').innerHTML = list.map((r) => `<option value="${esc(r.id)}">${esc(r.name || r.id)}${kindOf(r)}${r.uploaded || r.bundled === false ? ' (upload)' : ''}</option>`).join('') + simOption();
  if (uploaded.length && uploaded[uploaded.length - 1].scenario_id === sid) $('#replay').value = uploaded[uploaded.length - 1].id;
  // No fitting replay (an uploaded scenario on its own map): the simulated VUT.
  if (keepSim || !list.length) $('#replay').value = SIM_VUT;
  simSelected();
  // The chosen scenario's map is drawn at once while no live run holds the map panel.
  if (sc.map_id && sc.map_id !== L.mapId && !L.preview && !ACTIVE.includes(L.state)) loadMap(sc.map_id);
}

// A scenario's own description (GET /scenarios/{id}, cached per page load): whether it has a
// validity section, and what a crossing target's plan leaves implicit.
const scenarioCache = new Map();
function scenarioDetail(sid) {
  if (!sid) return Promise.resolve(null);
  if (!scenarioCache.has(sid)) {
    scenarioCache.set(sid, get(`/scenarios/${encodeURIComponent(sid)}`).then((r) => (r && r.scenario) || null).catch(() => null));
  }
  return scenarioCache.get(sid);
}

// Preview: the map shows the scenario's plan alone; the live panels say "preview" and show no
// run data until the operator goes back to the run (or a new run is shown).
function setPreview(sid, plan = null) {
  L.preview = sid;
  if (sid) L.plan = plan;
  else { L.plan = L.runPlan ?? null; L.previewFocus = null; mapView.follow = true; $('#follow').checked = true; $('#map-name').textContent = L.mapId ?? '—'; }
  $('#preview-badge').hidden = !sid; $('#end-preview').hidden = !sid;
  for (const b of document.querySelectorAll('.preview-mark')) b.hidden = !sid;
  document.body.classList.toggle('previewing', !!sid);
  lamps.setPreview(!!sid);
  for (const k in L.dirty) L.dirty[k] = true;
  showValidityWhy();
}

async function previewScenario(sid) {
  if (!sid) return;
  try {
    const [r, sc] = await Promise.all([get(`/scenarios/${encodeURIComponent(sid)}/plan`), scenarioDetail(sid)]);
    const plan = completePlan(r.plan || {}, sc);
    setPreview(sid, plan);
    L.previewScenario = sc;
    if (r.map_id && r.map_id !== L.mapId) await loadMap(r.map_id);
    const pts = planFocus(plan);
    mapView.follow = false; $('#follow').checked = false; mapView.fitPoints(pts);
    if (pts.length) {
      const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
      L.previewFocus = [(Math.min(...xs) + Math.max(...xs)) / 2, (Math.min(...ys) + Math.max(...ys)) / 2];
    }
    $('#map-name').textContent = `${r.map_id ?? '—'} · preview of ${sid}`;
    L.dirty.map = true;
    const n = (plan.targets || []).length;
    toast(`preview of ${sid}: ${plan.vut_path ? 'VUT path' : plan.vut_line ? 'VUT centreline' : 'no VUT path'} and ${n} target${n === 1 ? '' : 's'}`);
  } catch (e) { toast(`preview of ${sid}: ${e.message}`, true); }
}
$('#btn-preview').addEventListener('click', () => previewScenario($('#scenario').value));
$('#end-preview').addEventListener('click', () => setPreview(null));

// the scenario picker follows the live run until the operator chooses one
let scenarioTouched = false;
$('#scenario').addEventListener('change', () => { scenarioTouched = true; fillReplays(); });
function syncScenario() {
  const sel = $('#scenario');
  if (scenarioTouched || !L.scenarioId || sel.value === L.scenarioId) return;
  if ([...sel.options].some((o) => o.value === L.scenarioId)) { sel.value = L.scenarioId; fillReplays(); }
}
initUpload({
  scenario: () => $('#scenario').value,
  speed: () => Number($('#speed').value) || 1,
  toast,
  uploaded: async (r, rid, file, sid, kind) => {
    if (!uploaded.some((u) => u.id === rid)) uploaded.push({ id: rid, name: file.name, kind, scenario_id: sid, uploaded: true });
    await fillReplays();
    $('#replay').value = rid;
    // follow the run the service created on it (not started)
    const id = runId(r);
    if (id != null) { resetRun(id); setPreview(null); L.scenarioId = sid; L.state = null; setState(r.state || 'created'); connect(id); }
  },
});

$('#token').value = getToken();
$('#token').addEventListener('change', (e) => { setToken(e.target.value.trim()); toast(e.target.value ? 'token stored for this tab' : 'token cleared'); showWho(); });

// Who the token signs in: the name the audit trail and the run's events record.
async function showWho() {
  const el = $('#whoami');
  try {
    const w = await getAuth('/whoami');
    // "operator" signed in as the unnamed operator token: the name once
    el.textContent = w && w.name ? `signed in: ${w.name}${w.role && w.role !== w.name ? ` (${w.role})` : ''}` : (getToken() ? 'unknown token' : 'not signed in');
    el.className = w && w.name ? 'signed-in' : '';
  } catch { el.textContent = 'not signed in'; el.className = ''; }
}
showWho();

async function op(fn) {
  try { return await fn(); } catch (e) { toast(e.status === 401 || e.status === 403 ? `${e.message} — enter the operator token` : e.message, true); return null; }
}

// A control button is busy while its request is out: a double click sends one request.
function busy(sel, fn) {
  const b = $(sel);
  b.addEventListener('click', async () => {
    if (b.dataset.busy) return;
    b.dataset.busy = '1'; b.disabled = true;
    try { await fn(); } finally { delete b.dataset.busy; renderState(); }
  });
}

// The run's state from the server, after a control was refused (409): the page shows where the
// run really is and says what happened.
async function refreshState(id, action, seen, detail = null) {
  let row = null;
  try { row = await get(`/runs/${encodeURIComponent(id)}`); } catch { /* the message says what is known */ }
  if (id !== L.runId) return;
  if (row && row.state) setState(row.state);
  if (row && row.objects) { L.objects = row.objects; objectsPanel.render(L.objects, runFault(row)); L.dirty.map = true; }
  const now = row && row.state ? row.state : 'unknown';
  strip.refresh();
  renderState();
  // the run is where the page showed it: the server refused for another reason, said in full
  if (detail && now === seen) { refused(id, action, detail, now); return; }
  toast(now === seen ? `${action} of run ${id} refused: it is ${now}` : `${action} not done: run ${id} is ${now}, not ${seen ?? '—'} as the page showed; page updated`, true);
}

// A refused control says what the server said, in full (the refusal bar wraps; it sits in the
// page's flow under the active-runs strip, never over a control) and offers what resolves it:
// the objects back to their starts, or arming anyway where the API allows an override.
function refused(id, action, detail, state) {
  const bar = $('#refusal');
  $('#refusal-text').textContent = `${action} of run ${id} refused: ${detail}`;
  const notAtStart = /not at its start|from the start of its path/.test(detail);
  const offers = [];
  if (notAtStart && state === 'created') {
    offers.push(`<button type="button" data-offer="return" title="Drive the objects of run ${esc(id)} to their start poses">return them to their starts</button>`);
    if (action === 'arm') offers.push(`<button type="button" data-offer="override" title="Arm run ${esc(id)} although an object is not at its start">arm anyway (override)</button>`);
  }
  $('#refusal-offers').innerHTML = offers.join('');
  bar.dataset.run = id;
  bar.dataset.action = action;
  bar.hidden = false;
}
function clearRefusal() { $('#refusal').hidden = true; }
$('#refusal-close').addEventListener('click', clearRefusal);
$('#refusal-offers').addEventListener('click', (ev) => {
  const b = ev.target.closest('button[data-offer]'); if (!b) return;
  const id = $('#refusal').dataset.run;
  if (id !== L.runId) { clearRefusal(); return; }
  clearRefusal();
  if (b.dataset.offer === 'return') op(() => backToStart());
  else if (b.dataset.offer === 'override') op(() => control('arm', 'armed', { override_start: true }));
});

busy('#btn-create', () => op(async () => {
  const body = { scenario_id: $('#scenario').value, replay: $('#replay').value || undefined, speed: Number($('#speed').value) || 1, track: $('#track').value || undefined };
  if (body.replay === SIM_VUT) { delete body.replay; body.source = simSource(); }
  const run = await post('/runs', body);
  const id = runId(run);
  resetRun(id); setPreview(null); L.scenarioId = body.scenario_id; L.state = null; setState(run && run.state ? run.state : 'created');
  rememberTrack(run && run.track ? run.track : body.track);
  toast(`run ${id} created on track ${(run && run.track) || body.track || '?'}`);
  connect(id);
  strip.refresh();
}));
// Every control names the shown run and the state the page shows (the server refuses it with
// 409 when the run is no longer in that state).
// A refused control (409: the run moved on) refreshes the page's state and says so.
async function control(action, next, extra = {}) {
  const id = L.runId, seen = L.state;
  if (id == null) return;
  try {
    const r = await post(`/runs/${encodeURIComponent(id)}/${action}`, { expect_state: seen, ...extra });
    if (id === L.runId) { setState(r && r.state ? r.state : next); clearRefusal(); }
    strip.refresh();
  } catch (e) {
    // the server's own words (a state mismatch, an object not at its start, a lost link)
    if (e.status === 409) await refreshState(id, action, seen, e.detail);
    else throw e;
  }
}
busy('#btn-arm', () => op(() => control('arm', 'armed')));
busy('#btn-start', () => op(() => control('start', 'running')));
// Back to start: the objects of the shown (ended) run drive to their start poses; the map shows
// them moving, ABORT stops them.
async function backToStart() {
  const id = L.runId;
  if (id == null) return;
  try {
    const r = await post(`/runs/${encodeURIComponent(id)}/return`);
    clearRefusal();
    toast(r && r.state === 'at_start' ? `run ${id}: every object stands at its start` : `run ${id}: objects driving to their starts`);
  } catch (e) {
    if (e.status === 409) await refreshState(id, 'Back to start', L.state, e.detail);
    else throw e;
  }
  await pollObjects();
}
busy('#btn-return', () => op(backToStart));
initParams(() => L.runId, () => L.state, toast, (id, seen) => refreshState(id, 'parameter change', seen));
// A stored map is shown at once, unless a run is on screen (its own map stays).
initMapUpload({ toast, onStored: (m) => { if (!ACTIVE.includes(L.state)) loadMap(m.id); } });
// ABORT acts on the run shown whatever state the page last saw: the server aborts a created,
// armed or running run alike. Never disabled, never busy: every press is sent.
$('#estop').addEventListener('click', () => op(async () => {
  const id = L.runId;
  if (id == null) return;
  try {
    await post(`/runs/${encodeURIComponent(id)}/abort`, { expect_state: L.state });
    toast(`ABORT sent to run ${id}`);
  } catch (e) {
    if (e.status !== 409) throw e;
    // the run had already ended
    await refreshState(id, 'ABORT', L.state);
  }
  strip.refresh();
}));

// ---------------------------------------------------------------- tabs
const results = new Results();
analysis = new Analysis(toast);
window.__scil.analysis = analysis;
const testday = new TestDay(toast);
window.__scil.testday = testday;
// Tests inject live frames through the same path as the WebSocket.
window.__scil.onMessage = onMessage;
window.__scil.lamps = lamps;
for (const b of document.querySelectorAll('#tabs .tab')) {
  b.addEventListener('click', () => {
    for (const o of document.querySelectorAll('#tabs .tab')) o.classList.toggle('active', o === b);
    for (const v of document.querySelectorAll('.view')) v.hidden = v.id !== b.dataset.tab;
    if (b.dataset.tab === 'results') results.refresh();
    else if (b.dataset.tab === 'analysis') analysis.refresh();
    else if (b.dataset.tab === 'testday') testday.refresh();
    else mapView.dirty = true;
    location.hash = b.dataset.tab;
  });
}
if (location.hash === '#results') document.querySelector('[data-tab=results]').click();
if (location.hash === '#analysis') document.querySelector('[data-tab=analysis]').click();
if (location.hash === '#testday') document.querySelector('[data-tab=testday]').click();

// What the page shows: ?run=<id>; else the active run of its track (?track=, else the track this
// browser last used, else the default track), else nothing: it waits on that track for its next
// run. It never shows another track's run by itself (only the demo's, on a service with no run
// on its default track and no track chosen), and never switches runs by itself.
const TRACK_KEY = 'scil.track';
function rememberTrack(t) { if (t) try { localStorage.setItem(TRACK_KEY, t); } catch { /* storage off */ } }
function rememberedTrack() { try { return localStorage.getItem(TRACK_KEY); } catch { return null; } }
const strip = new RunStrip({ shown: () => L.runId, shownState: () => L.state, view, op, toast });
window.__scil.strip = strip;
function view(id) {
  // the run's Live tab, whichever tab the page was on
  if ($('#live').hidden) document.querySelector('[data-tab=live]').click();
  if (id == null || id === L.runId) return;
  clearRefusal();
  resetRun(id); setPreview(null); L.state = null; L.dirty.state = true;
  connect(id);
  strip.render();
}
$('#show-demo').addEventListener('change', () => results.refresh());
async function startView() {
  const q = new URLSearchParams(location.search);
  let tracks = { tracks: [], default: null, demo: null };
  try { tracks = await get('/tracks'); } catch { /* older service: no tracks */ }
  const known = tracks.tracks || [];
  const remembered = rememberedTrack();
  const chosen = q.get('track') || (known.includes(remembered) ? remembered : null);
  const track = chosen || tracks.default || known[0] || 'main';
  if (q.get('track')) rememberTrack(q.get('track'));
  $('#track').innerHTML = known.map((t) => `<option value="${esc(t)}">${esc(t)}</option>`).join('');
  if (known.includes(track)) $('#track').value = track;
  if (q.get('run')) { resetRun(q.get('run')); connect(q.get('run')); return; }
  let active = [];
  try { active = asList(await get('/runs?active=true'), 'runs'); } catch { active = []; }
  const pick = active.find((r) => r.track === track);
  // the demo (`scil` with no arguments) on its own track, for a page that chose none
  const demo = !chosen && !pick && tracks.demo && active.find((r) => r.demo && r.track === tracks.demo);
  if (pick) { resetRun(pick.id); connect(pick.id); }
  else if (demo) connect({ track: tracks.demo });
  else connect({ track });
}
// Another track in the picker: remembered for this browser; a page that shows no active run
// follows that track from now on.
$('#track').addEventListener('change', (e) => {
  const t = e.target.value;
  rememberTrack(t);
  if (L.runId == null || !(ACTIVE.includes(L.state) || L.state === 'created')) {
    const r = strip.runs.find((x) => x.track === t);
    if (r) view(r.id);
    else if (!(wsTarget && typeof wsTarget === 'object' && wsTarget.track === t)) {
      resetRun(null); L.state = null; L.dirty.state = true; connect({ track: t });
    }
  }
});
startView();
loadScenarios();
renderState();
requestAnimationFrame(frame);
