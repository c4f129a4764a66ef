// Results view: runs with the seed paper's Table 2 quantities, per-run speed/TTC plots from the
// stored telemetry, and a side-by-side comparison of several runs.
import uPlot from './vendor/uPlot.esm.js';
import { get, runId, asList } from './api.js';
import { TimePlot, COLORS } from './plots.js';
import { inWords } from './events.js';
import { linksBlock, wireVerify } from './runlinks.js';

const $ = (s) => document.querySelector(s);
const NOMINAL_TRAVEL_M = 4.46375;
/** Dummy travel error reference (±20 mm, the trigger accuracy of the seed paper), the one the report draws for scale: not a protocol check. */
export const TRAVEL_BAND_M = 0.020;
const fmt = (v, d = 3) => (v == null || !isFinite(v) ? '—' : Number(v).toFixed(d));
const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
const DONE = ['finished', 'aborted', 'failed'];

/** Telemetry rows in any of the plausible shapes → VUT rows {t, v (m/s), ttc, brake}. */
export function normTelemetry(data) {
  let rows = Array.isArray(data) ? data : asList(data, 'samples');
  if (!rows.length && data) rows = asList(data, 'telemetry').length ? asList(data, 'telemetry') : asList(data, 'rows');
  const out = [];
  for (const r of rows) {
    const kind = r.kind ?? r.vehicle;
    if (kind && kind !== 'vut' && kind !== 'VUT') continue;
    const t = r.t ?? r.time_s ?? r.time;
    if (t == null) continue;
    const v = r.speed_mps ?? r.v_mps ?? (r.speed_kmh != null ? r.speed_kmh / 3.6 : r.speed);
    out.push({ t: Number(t), v: v == null ? null : Number(v), ttc: r.ttc_s ?? r.ttc ?? null, brake: r.brake ?? r.brake_light, x: r.x, y: r.y, yaw: r.yaw });
  }
  out.sort((a, b) => a.t - b.t);
  return out;
}

/**
 * TTC recomputed from stored VUT telemetry when the rows carry none: distance along the VUT
 * heading from its front bumper to each target's path line (start point + INS heading), over
 * speed — the engine's definition, without its interpolation. `sc` = GET /scenarios/{id}.
 */
export function ttcFromTelemetry(rows, sc) {
  const spec = sc && sc.scenario;
  const tg = spec && spec.targets && spec.targets[0];
  if (!tg || !tg.start) return null;
  const front = (spec.vut && spec.vut.reference_to_front_m) || 0;
  const h = (tg.heading_deg || 0) * Math.PI / 180, dx = Math.sin(h), dy = Math.cos(h);   // INS: clockwise from north
  return rows.map((r) => {
    if (r.v == null || r.v < 0.1 || r.yaw == null) return null;
    const ux = Math.cos(r.yaw), uy = Math.sin(r.yaw);
    const fx = r.x + front * ux, fy = r.y + front * uy;
    const den = ux * dy - uy * dx;                       // ray (f + s·u) meets line (start + k·d)
    if (Math.abs(den) < 1e-6) return null;
    const s = ((tg.start.x - fx) * dy - (tg.start.y - fy) * dx) / den;
    return s > 0 ? s / r.v : null;
  });
}

/** The Table 2 row of a run's results. */
export function table2(res) {
  const tr = (res && res.triggers && res.triggers[res.triggers.length - 1]) || null;
  const im = (res && res.impacts && res.impacts[res.impacts.length - 1]) || null;
  const nominal = im && im.nominal_travel_m != null ? im.nominal_travel_m : NOMINAL_TRAVEL_M;
  return {
    ttc: tr && tr.ttc_s, dlong: tr && tr.d_long_m, vkmh: tr && tr.vut_speed_kmh, thr: tr && tr.threshold_s,
    fireErr: tr && tr.fire_error_ms, method: tr && tr.method, retimed: tr && tr.retimed, trigT: tr && tr.time_s,
    travel: im && im.dummy_travel_m, nominal, dTravel: im && im.dummy_travel_m != null ? im.dummy_travel_m - nominal : null,
    overlap: im && im.overlap, short: im && im.stopped_short_m, impT: im && im.time_s, note: im && im.note,
    impKmh: im && im.impact_speed_kmh, reduction: im && im.speed_reduction_kmh,
    samples: res && res.samples, skipped: res && res.skipped_rows, aborted: res && res.aborted,
  };
}

const CHECK_LABEL = { vut_speed: 'VUT speed', vut_lateral: 'VUT lateral', vut_yaw_rate: 'yaw rate', vut_steering_rate: 'steering rate', target_speed: 'target speed', target_lateral: 'target lateral' };

/** The validity verdict with every check's worst value against its limit (not only a lamp). */
export function verdictBlock(res) {
  const v = res && res.validity;
  if (!v) return '<div class="sub" id="detail-verdict">validity: no verdict — the scenario has no [validity] section, so nothing is judged</div>';
  if (v.valid == null) return `<div class="sub" id="detail-verdict">validity: no verdict — ${v.window ? 'the run ended before its validity window closed' : 'the validity window never opened (the VUT did not reach T0)'}</div>`;
  const rows = (v.checks || []).map((c) => `<tr data-channel="${esc(c.channel)}"><td>${esc(CHECK_LABEL[c.channel] || c.channel)}</td>`
    + `<td class="${c.ok ? 'ok' : 'bad'}">${c.ok ? 'ok' : 'FAIL'}</td><td class="num">${fmt(c.worst, 3)}</td><td>${esc(c.limit ?? '')}</td>`
    + `<td class="num">${c.first_violation_s != null ? fmt(c.first_violation_s - (v.window ? v.window.from_s : 0), 3) : ''}</td></tr>`).join('');
  return `<div class="sub" id="detail-verdict">validity: <b class="${v.valid ? 'ok' : 'bad'}">${v.valid ? 'VALID' : 'INVALID'}</b></div>`
    + (rows ? `<table class="dense" id="detail-checks"><thead><tr><th>channel</th><th>verdict</th><th class="num">worst</th><th>limit</th><th class="num">first break [s into window]</th></tr></thead><tbody>${rows}</tbody></table>` : '');
}

/** A run on the ground: the impact from the objects' MONR against the planned one, and each object. */
export function groundBlock(res) {
  const g = res && res.ground;
  if (!g) return '';
  const imp = (g.impacts || []).map((i) => `<tr data-target="${esc(i.target)}"><td>${esc(i.target)}</td><td class="num">${fmt(i.planned_location, 3)}</td>`
    + `<td class="num">${fmt(i.monr && i.monr.location, 3)}</td><td class="num ${i.error != null && Math.abs(i.error) <= 0.05 ? 'ok' : 'bad'}">${i.error == null ? '—' : (i.error >= 0 ? '+' : '') + fmt(i.error, 3)}</td>`
    + `<td class="num">${i.relative_drift_s == null ? '—' : fmt(i.relative_drift_s * 1000, 1)}</td><td class="num">${fmt(i.corrected && i.corrected.location, 3)}</td>`
    + `<td class="num ${i.corrected_error != null && Math.abs(i.corrected_error) <= 0.05 ? 'ok' : 'bad'}">${i.corrected_error == null ? '—' : (i.corrected_error >= 0 ? '+' : '') + fmt(i.corrected_error, 3)}</td></tr>`).join('');
  const states = (o) => (o.states_seen || []).map((s) => s.state).filter((s, k, a) => k === 0 || a[k - 1] !== s).join(' → ');
  const objs = (g.objects || []).map((o) => `<tr data-object="${esc(o.name)}"><td>${esc(o.name)}</td><td>${o.drives === 'vut' ? 'VUT robot' : `target ${esc(o.drives)}`}</td>`
    + `<td>${esc(states(o))}</td><td class="num">${o.monr_count ?? '—'}</td><td class="num">${fmt(o.max_lateral_m, 3)}</td>`
    + `<td class="num">${fmt(o.max_schedule_lag_s, 3)}</td><td class="num">${fmt(o.end_distance_m, 2)}</td></tr>`).join('');
  return `<div class="sub">impact on the ground: location (0 = the VUT's left edge, 1 = its right edge) from the objects' MONR against the planned one</div>`
    + `<table class="dense ground-table" id="detail-impacts"><thead><tr><th>target</th><th class="num">planned</th><th class="num">MONR</th><th class="num">error</th><th class="num">relative drift [ms]</th><th class="num">drift taken out</th><th class="num">its error</th></tr></thead><tbody>${imp || '<tr><td colspan=7 class="muted">no impact from MONR</td></tr>'}</tbody></table>`
    + `<div class="sub">objects</div><table class="dense ground-table" id="detail-objects"><thead><tr><th>object</th><th>role</th><th>states</th><th class="num">MONR</th><th class="num">max lateral [m]</th><th class="num">max schedule lag [s]</th><th class="num">end of path [m]</th></tr></thead><tbody>${objs}</tbody></table>`;
}

export class Results {
  constructor() {
    this.runs = [];
    this.cache = new Map();      // id → results (only for finished runs)
    this.selected = null;
    this.plots = null;
    this.cmpPlot = null;
    $('#refresh-runs').addEventListener('click', () => this.refresh());
    $('#compare').addEventListener('click', () => this.compare());
    $('#runs tbody').addEventListener('change', () => this.reportLink());
    $('#runs tbody').addEventListener('click', (e) => {
      if (e.target.matches('input')) return;
      const tr = e.target.closest('tr[data-id]'); if (tr) this.show(tr.dataset.id);
    });
  }

  /** The Euro NCAP test-series report (server-rendered HTML, plots and CSV) of the ticked runs,
   *  or of the selected one when none is ticked. */
  reportLink() {
    const ticked = [...document.querySelectorAll('#runs input:checked')].map((i) => i.value);
    const ids = ticked.length ? ticked : (this.selected ? [this.selected] : []);
    const a = $('#report-link');
    a.hidden = !ids.length;
    a.href = `/api/v1/reports?runs=${ids.map(encodeURIComponent).join(',')}`;
    a.textContent = ticked.length > 1 ? `Euro NCAP report (${ticked.length} runs)` : 'Euro NCAP report';
  }

  async results(id, state) {
    if (this.cache.has(id)) return this.cache.get(id);
    const r = await get(`/runs/${encodeURIComponent(id)}/results`);
    if (DONE.includes(state)) this.cache.set(id, r);
    return r;
  }

  async refresh() {
    let runs;
    try { runs = asList(await get($('#show-demo') && $('#show-demo').checked ? '/runs' : '/runs?demo=false'), 'runs'); } catch (e) { $('#runs tbody').innerHTML = `<tr><td colspan=8 class="bad">${esc(e.message)}</td></tr>`; return; }
    // newest first: by creation time when the server gives one, else by id
    const key = (r) => String(r.created_at ?? r.created ?? r.started_at ?? runId(r) ?? '');
    runs.sort((a, b) => key(b).localeCompare(key(a), undefined, { numeric: true }));
    this.runs = runs;
    const checked = new Set([...document.querySelectorAll('#runs input:checked')].map((i) => i.value));
    const rows = await Promise.all(runs.slice(0, 100).map(async (run) => {
      const id = String(runId(run)), st = run.state ?? '';
      let t = {};
      if (DONE.includes(st)) { try { t = table2(await this.results(id, st)); } catch { t = {}; } }
      const band = t.dTravel == null ? 'muted' : Math.abs(t.dTravel) <= TRAVEL_BAND_M ? 'ok' : 'warn';
      const travel = t.travel == null ? '—' : `${fmt(t.travel, 3)} <span class="${band}">(${t.dTravel >= 0 ? '+' : ''}${fmt(t.dTravel, 3)})</span>`;
      return `<tr data-id="${esc(id)}" class="${id === this.selected ? 'sel' : ''}"><td><input type="checkbox" value="${esc(id)}" ${checked.has(id) ? 'checked' : ''}></td>`
        + `<td>${esc(id)}${run.demo ? ' <span class="muted">demo</span>' : ''}</td><td>${esc(run.scenario_id ?? run.scenario ?? '')}${run.track ? ` <span class="muted">@${esc(run.track)}</span>` : ''}</td><td><span class="pill" data-state="${esc(st)}">${esc(st)}</span></td>`
        + `<td class="num trig-ttc">${fmt(t.ttc, 3)}</td><td class="num">${fmt(t.dlong, 2)}</td><td class="num">${travel}</td><td class="num">${fmt(t.fireErr, 2)}</td></tr>`;
    }));
    $('#runs tbody').innerHTML = rows.join('') || '<tr><td colspan=8 class="muted">no runs yet</td></tr>';
    if (this.selected && runs.some((r) => String(runId(r)) === this.selected)) this.show(this.selected);
    else if (runs.length) this.show(String(runId(runs[0])));
  }

  async show(id) {
    this.selected = id;
    this.reportLink();
    for (const tr of document.querySelectorAll('#runs tbody tr')) tr.classList.toggle('sel', tr.dataset.id === id);
    const run = this.runs.find((r) => String(runId(r)) === id) || {};
    $('#detail-id').textContent = id;
    // the whole run in the live view (map, trace, plots, events), in a tab of its own
    $('#detail-sub').innerHTML = `${esc(run.scenario_id ?? '')} · ${esc(run.track ?? '')} · ${esc(run.state ?? '')} · <a class="live-link" href="?run=${encodeURIComponent(id)}" target="_blank" rel="noopener">live view</a>`;
    let res, tel = [];
    if (run.state && !DONE.includes(run.state)) {
      // A created, armed or running run has no results yet (GET …/results is 404 until it ends).
      $('#detail').innerHTML = `<p class="muted">${esc(run.state)}: results when the run ends</p>`;
      // A run ending now is stored a moment after the live view says so: look again while it
      // is the one shown.
      clearTimeout(this.recheck);
      this.recheck = setTimeout(() => { if (this.selected === id && !document.hidden) this.refresh(); }, 1000);
      return;
    }
    try { res = await this.results(id, run.state); } catch (e) { if (this.selected === id) $('#detail').innerHTML = `<p class="bad">${esc(e.message)}</p>`; return; }
    try { tel = normTelemetry(await get(`/runs/${encodeURIComponent(id)}/telemetry?format=json`)); } catch { tel = []; }
    if (this.selected !== id) return;      // another run was picked meanwhile: do not draw this one over it
    const t = table2(res);
    const card = (k, v, u = '', cls = '') => `<div><div class="k">${k}</div><span class="v ${cls}">${v}</span><span class="u">${u}</span></div>`;
    const onGround = !!(res && res.ground);
    const errCls = t.fireErr == null ? '' : Math.abs(t.fireErr) <= 5 ? 'ok' : Math.abs(t.fireErr) <= 20 ? 'warn' : 'bad';
    // ±20 mm is the trigger's reference accuracy, not a protocol check: outside it is not a failure
    const trCls = t.dTravel == null ? '' : Math.abs(t.dTravel) <= TRAVEL_BAND_M ? 'ok' : 'warn';
    $('#detail').innerHTML = `<div class="kv">`
      + card('TTC at trigger', fmt(t.ttc, 4), 's') + card('threshold (TTC_dummy)', fmt(t.thr, 4), 's')
      + card('d_long at trigger', fmt(t.dlong, 3), 'm') + card('VUT speed at trigger', fmt(t.vkmh, 2), 'km/h')
      + card('trigger-time error', fmt(t.fireErr, 2), 'ms', errCls)
      + card('dummy travel at impact', fmt(t.travel, 4), 'm', trCls)
      + card('nominal travel', fmt(t.nominal, 5), 'm') + card('travel − nominal', t.dTravel == null ? '—' : (t.dTravel >= 0 ? '+' : '') + fmt(t.dTravel, 4), 'm', trCls)
      + card(onGround ? 'overlap (engine, planned kinematics)' : 'overlap', fmt(t.overlap == null ? null : t.overlap * 100, 1), '% of width') + card('stopped short', fmt(t.short, 2), 'm')
      + card('impact speed', t.impKmh == null ? (t.impT == null ? 'no impact' : 'no test speed') : fmt(t.impKmh, 2), t.impKmh == null ? '' : 'km/h')
      + card('speed reduction', t.reduction == null ? (t.impT == null ? 'no impact' : 'no test speed (vut.speed_kmh)') : fmt(t.reduction, 2), t.reduction == null ? '' : 'km/h')
      + card('method', esc(t.method ?? '—'), t.retimed ? 'retimed' : '') + card('samples', t.samples ?? '—', t.skipped ? `${t.skipped} skipped` : '')
      + ((res && res.parameter_changes && res.parameter_changes.length)
        ? card('parameter changes', esc(res.parameter_changes.map((c) => `${c.name}=${c.value}`).join(', ')), `${res.parameter_changes.length}`) : '')
      + (res && res.abort && res.abort.text ? card('aborted', esc(res.abort.text), '', 'bad') : t.aborted ? card('aborted', esc(inWords(t.aborted)), '', 'bad') : '')
      + (t.note ? card('note', esc(t.note)) : '')
      + `</div>` + linksBlock(id) + verdictBlock(res) + groundBlock(res);
    wireVerify($('#detail'));
    if (tel.length && !tel.some((r) => r.ttc != null) && run.scenario_id) {
      try {
        const ttc = ttcFromTelemetry(tel, await this.scenario(run.scenario_id));
        if (ttc) tel.forEach((r, i) => { r.ttc = ttc[i]; });
      } catch { /* no TTC plot */ }
    }
    if (this.selected === id) this.plotRun(tel, t);
  }

  async scenario(id) {
    this.scenarios = this.scenarios || new Map();
    if (!this.scenarios.has(id)) this.scenarios.set(id, await get(`/scenarios/${encodeURIComponent(id)}`));
    return this.scenarios.get(id);
  }

  plotRun(tel, t) {
    if (!this.plots) {
      this.plots = {
        speed: new TimePlot($('#res-speed'), { series: [{ label: 'v', color: '#4fa3ff', digits: 1 }], height: 150, unit: 'km/h' }),
        // to the data up to a minute; more is marked off scale on the plot
        ttc: new TimePlot($('#res-ttc'), { series: [{ label: 'TTC', color: '#ffcf3a', digits: 3 }], height: 150, unit: 's',
          yRange: (u, lo, hi) => [0, Math.min(Math.max((hi ?? 5) * 1.05, 1), 60)] }),
      };
    }
    const t0 = tel.length ? tel[0].t : (t.trigT ?? 0);
    const inst = [];
    if (t.trigT != null) inst.push({ t: t.trigT - t0, label: 'trigger', color: '#ff5cd6' });
    if (t.impT != null) inst.push({ t: t.impT - t0, label: 'impact', color: '#3ccf6e' });
    const x = tel.map((r) => r.t - t0);
    this.plots.speed.marks = { threshold: null, instants: inst };
    this.plots.speed.setData([x, tel.map((r) => (r.v == null ? null : r.v * 3.6))]);
    const hasTtc = tel.some((r) => r.ttc != null);
    this.plots.ttc.marks = { threshold: t.thr, instants: inst };
    this.plots.ttc.setData(hasTtc ? [x, tel.map((r) => r.ttc)] : [[], []]);
  }

  async compare() {
    const ids = [...document.querySelectorAll('#runs input:checked')].map((i) => i.value);
    if (ids.length < 1) { $('#comparison').innerHTML = '<p class="muted">Tick runs first.</p>'; return; }
    const data = await Promise.all(ids.map(async (id) => {
      const run = this.runs.find((r) => String(runId(r)) === id) || {};
      let res = null, tel = [];
      try { res = await this.results(id, run.state); } catch { /* shown as — */ }
      try { tel = normTelemetry(await get(`/runs/${encodeURIComponent(id)}/telemetry?format=json`)); } catch { /* no plot */ }
      return { id, run, t: table2(res), tel };
    }));
    const rows = [
      ['scenario', (d) => esc(d.run.scenario_id ?? '')], ['state', (d) => esc(d.run.state ?? '')],
      ['VUT speed at trigger [km/h]', (d) => fmt(d.t.vkmh, 2)], ['threshold TTC_dummy [s]', (d) => fmt(d.t.thr, 4)],
      ['TTC at trigger [s]', (d) => fmt(d.t.ttc, 4)], ['d_long at trigger [m]', (d) => fmt(d.t.dlong, 3)],
      ['trigger-time error [ms]', (d) => fmt(d.t.fireErr, 2)], ['dummy travel at impact [m]', (d) => fmt(d.t.travel, 4)],
      ['nominal travel [m]', (d) => fmt(d.t.nominal, 5)], ['travel − nominal [m]', (d) => fmt(d.t.dTravel, 4)],
      ['overlap [% of width]', (d) => fmt(d.t.overlap == null ? null : d.t.overlap * 100, 1)], ['method', (d) => esc(d.t.method ?? '—') + (d.t.retimed ? ' (retimed)' : '')],
    ];
    $('#comparison').innerHTML = `<table class="dense" id="cmp-table"><thead><tr><th></th>${data.map((d, i) => `<th class="num" style="color:${COLORS[i % COLORS.length]}">run ${esc(d.id)}</th>`).join('')}</tr></thead><tbody>`
      + rows.map(([k, f]) => `<tr><td class="muted">${k}</td>${data.map((d) => `<td class="num">${f(d)}</td>`).join('')}</tr>`).join('') + '</tbody></table>'
      + '<div class="sub" style="margin-top:6px">VUT speed [km/h] over time relative to the trigger instant</div>';
    // overlay: speed vs (t − trigger), x axes joined
    const tables = data.map((d) => {
      const ref = d.t.trigT ?? (d.tel.length ? d.tel[0].t : 0);
      return [d.tel.map((r) => Math.round((r.t - ref) * 1000) / 1000), d.tel.map((r) => (r.v == null ? null : r.v * 3.6))];
    });
    const joined = tables.length ? uPlot.join(tables) : [[]];
    if (this.cmpPlot) { this.cmpPlot.u.destroy(); $('#cmp-speed').innerHTML = ''; }
    this.cmpPlot = new TimePlot($('#cmp-speed'), { xLabel: 't − trigger [s]', series: data.map((d, i) => ({ label: `run ${d.id}`, color: COLORS[i % COLORS.length], digits: 1 })), height: 160 });
    for (const s of this.cmpPlot.u.series.slice(1)) s.spanGaps = true;
    this.cmpPlot.marks = { threshold: null, instants: [{ t: 0, label: 'trigger', color: '#ff5cd6' }] };
    this.cmpPlot.setData(joined);
  }
}
