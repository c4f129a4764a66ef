// Test day view: a test series from Euro NCAP's rating-tool workbook (POST /series). A grid per
// scenario as the rating tool draws it (cells at the points' test-point coordinates), each cell in
// the predicted colour with the measured result; run the next point, repeat an invalid one,
// download the filled workbook. Every control names the series and the point it acts on.
import { get, post, postForm, asList, getToken } from './api.js';

const $ = (s) => document.querySelector(s);
const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
const fmt = (v) => (v == null || !isFinite(v) ? '' : String(Math.round(v * 100) / 100));
const short = (sheet) => String(sheet || '').replace(/\s*verif\.\s*$/, '');
const STATE_MARK = { planned: '·', running: '▶', invalid: '✗', valid: '½', done: '✓', not_runnable: '–' };

/** `(5, 2)` → [5, 2]. */
function cellOf(tp) {
  const m = /\(\s*(-?\d+)\s*,\s*(-?\d+)\s*\)/.exec(tp || '');
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** The point a "run next" press runs: the first planned one, else one whose baseline is due. */
export function nextPoint(points) {
  return points.find((p) => p.runnable && p.state === 'planned')
    || points.find((p) => p.runnable && p.state === 'valid') || null;
}

/** `name=HOST[:PORT][@ACTOR], …` → [{name, address, actor}]. */
export function carriersOf(text) {
  return String(text || '').split(',').map((c) => c.trim()).filter(Boolean).map((c) => {
    const at = c.lastIndexOf('@');
    const actor = at > 0 ? c.slice(at + 1).trim() : null;
    const spec = at > 0 ? c.slice(0, at).trim() : c;
    const i = spec.indexOf('=');
    return i > 0 ? { name: spec.slice(0, i).trim(), address: spec.slice(i + 1).trim(), actor } : { name: spec, address: spec, actor };
  });
}

/**
 * The objects of a point's run on the ground: the VUT robot (drives `vut`), then each carrier,
 * driving the actor it names (`@ACTOR`) or else the point's next undriven moving target.
 * Throws naming what is missing or unknown.
 */
export function groundObjects(p, robotText, carriersText) {
  const actors = (p && p.actors) || [];
  const moving = actors.filter((a) => a.drives !== 'vut').map((a) => a.drives);
  const [robot] = carriersOf(robotText);
  if (!robot) throw new Error('name the VUT robot (name=HOST)');
  const carriers = carriersOf(carriersText);
  const named = new Set(carriers.map((c) => c.actor).filter(Boolean));
  for (const a of named) {
    if (!moving.includes(a)) throw new Error(`carrier for '${a}': point ${p && p.point} has no such moving actor (${moving.join(', ') || 'none'})`);
  }
  const free = moving.filter((a) => !named.has(a));
  const out = [{ name: robot.name, address: robot.address, drives: 'vut' }];
  for (const c of carriers) {
    const drives = c.actor || free.shift();
    if (!drives) throw new Error(`carrier '${c.name}': point ${p && p.point} has no moving actor left for it (${moving.join(', ') || 'none'})`);
    out.push({ name: c.name, address: c.address, drives });
  }
  if (free.length) throw new Error(`point ${p && p.point}: no carrier for ${free.join(', ')}`);
  return out;
}

/** The point's speeds as its cell shows them: `20/10` (VUT/target km/h), or the VUT's alone. */
export function speedsOf(p) {
  const q = (p && p.params) || {};
  const v = q.vut_speed_kmh, t = q.target_speed_kmh;
  if (v == null) return '';
  return t == null ? `${fmt(v)}` : `${fmt(v)}/${fmt(t)}`;
}

function label(p) {
  return `point ${p.point} (${short(p.sheet)} row ${p.row}, ${p.scenario} ${p.test_point || ''})`;
}

export class TestDay {
  constructor(toast) {
    this.toast = toast;
    this.series = null; // the shown series (GET /series/{id})
    this.selected = null; // point number
    this.timer = null;
    $('#td-upload').addEventListener('click', () => this.upload());
    $('#td-vut').addEventListener('change', (e) => {
      const ground = e.target.value !== 'sim';
      $('#td-ground').hidden = !ground;
      // a run on the ground goes in real time: no pace to choose
      $('#td-speed-label').hidden = ground;
      $('#td-bind-label').hidden = e.target.value !== 'ncom';
      $('#td-robot-label').hidden = e.target.value !== 'robot';
      this.renderPoint();
    });
    for (const id of ['#td-robot', '#td-carriers']) $(id).addEventListener('input', () => this.renderPoint());
    $('#td-refresh').addEventListener('click', () => this.refresh());
    $('#td-list').addEventListener('change', (e) => { if (e.target.value) this.show(e.target.value); });
    $('#td-next').addEventListener('click', () => {
      const b = $('#td-next');
      if (b.dataset.point) this.run(b.dataset.series, Number(b.dataset.point), b.dataset.state);
    });
    $('#td-grids').addEventListener('click', (e) => {
      const c = e.target.closest('[data-point]');
      if (c) { this.selected = Number(c.dataset.point); this.renderPoint(); }
    });
    $('#td-point').addEventListener('click', (e) => {
      const b = e.target.closest('button[data-action=run]');
      if (b) this.run(b.dataset.series, Number(b.dataset.point), b.dataset.state);
    });
  }

  async refresh() {
    try {
      const maps = asList(await get('/maps'), 'maps');
      const sel = $('#td-junction');
      const keep = sel.value;
      sel.innerHTML = '<option value="">— none —</option>' + maps.map((m) => `<option value="${esc(m.id)}">${esc(m.id)}</option>`).join('');
      if (keep) sel.value = keep;
      else if (maps.some((m) => /intersection/i.test(m.id))) sel.value = maps.find((m) => /intersection/i.test(m.id)).id;
      const list = asList(await get('/series'), 'series');
      $('#td-list').innerHTML = '<option value="">— series —</option>' + list.map((s) =>
        `<option value="${esc(s.id)}" title="${esc(s.name)} · ${esc(s.id)}">${esc(s.name)} · ${(s.states && s.states.done) || 0}/${s.runnable} done</option>`).join('');
      if (this.series) { $('#td-list').value = this.series.id; await this.show(this.series.id); }
      else if (list.length) { $('#td-list').value = list[0].id; await this.show(list[0].id); }
    } catch (e) { this.toast(e.message, true); }
  }

  async upload() {
    const f = $('#td-file').files[0];
    if (!f) { this.toast('choose the preprocessed workbook (.xlsx) first', true); return; }
    $('#td-status').textContent = `uploading ${f.name} and planning its verification points…`;
    const form = new FormData();
    form.append('file', f, f.name);
    if ($('#td-junction').value) form.append('junction_map', $('#td-junction').value);
    try {
      const s = await postForm('/series', form);
      this.toast(`series ${s.id}: ${s.points_total} points, ${s.runnable} runnable`);
      this.series = null;
      await this.refresh();
      $('#td-list').value = s.id;
      await this.show(s.id);
    } catch (e) { this.toast(e.message, true); $('#td-status').textContent = e.message; }
  }

  async show(id) {
    try {
      this.series = await get(`/series/${encodeURIComponent(id)}`);
      this.render();
    } catch (e) { this.toast(e.message, true); }
    clearTimeout(this.timer);
    // While a point runs, follow it.
    if (this.series && this.series.points.some((p) => p.state === 'running')) {
      this.timer = setTimeout(() => { if (this.series && this.series.id === id) this.show(id); }, 1000);
    }
  }

  async run(seriesId, point, state) {
    const speed = $('#td-speed').value;
    const body = { expect_state: state, speed: speed === 'max' ? 'max' : Number(speed) };
    const mode = $('#td-vut').value;
    if (mode === 'ncom') {
      // On the ground: the real VUT's NCOM and the carriers named here, in real time.
      body.source = { kind: 'ncom', bind: $('#td-bind').value.trim() };
      delete body.speed;
      body.carriers = carriersOf($('#td-carriers').value).map(({ name, address }) => ({ name, address }));
    } else if (mode === 'robot') {
      // Every object on the ground: the VUT's robot (its MONR is the telemetry) and a carrier
      // per moving target. The run is created and its objects drive to its start; the operator
      // arms and starts it on the Live tab, and it drives back to its start when it ends.
      const p = this.series && this.series.points.find((x) => x.point === point);
      let objects;
      try { objects = groundObjects(p, $('#td-robot').value, $('#td-carriers').value); } catch (e) { this.toast(e.message, true); return; }
      delete body.speed;
      body.source = { kind: 'monr', carrier: objects[0].name };
      body.carriers = objects;
      body.return_to_start = true;
      body.start = false;
    }
    try {
      const r = await post(`/series/${encodeURIComponent(seriesId)}/points/${point}/run`, body);
      if (mode === 'robot') {
        const o = r.objects || {};
        const driving = o.state === 'returning' ? 'its objects drive to its start, then ' : '';
        this.toast(`series ${seriesId} point ${point}: run ${r.run.id} created: ${driving}arm and start it on the Live tab (view it from the active runs)`);
      } else {
        this.toast(`series ${seriesId} point ${point}: attempt ${r.attempt} (${r.kind}) run ${r.run.id}`);
      }
      this.selected = point;
      await this.show(seriesId);
    } catch (e) { this.toast(e.message, true); await this.show(seriesId); }
  }

  render() {
    const s = this.series;
    const pts = s.points;
    const n = (st) => (s.states && s.states[st]) || 0;
    $('#td-status').textContent = `${s.name} · ${s.id}: ${s.points_total} points, ${s.runnable} runnable — ` +
      `${n('done')} done, ${n('running')} running, ${n('invalid')} invalid, ${n('valid')} awaiting baseline, ${n('planned')} planned`;
    const dl = $('#td-download');
    dl.href = `/api/v1/series/${encodeURIComponent(s.id)}/workbook.xlsx` + (getToken() ? `?token=${encodeURIComponent(getToken())}` : '');
    dl.textContent = `download filled workbook of ${s.id}`;
    dl.hidden = false;
    const next = nextPoint(pts);
    const b = $('#td-next');
    b.disabled = !next;
    b.dataset.series = s.id;
    b.dataset.point = next ? next.point : '';
    b.dataset.state = next ? next.state : '';
    b.textContent = next ? `Run next: ${label(next)} of ${s.id}` : `Run next: no point left to run in ${s.id}`;
    // A grid per sheet and scenario.
    const groups = new Map();
    for (const p of pts) {
      const k = `${p.sheet}\u0000${p.scenario}`;
      if (!groups.has(k)) groups.set(k, []);
      groups.get(k).push(p);
    }
    let html = '';
    for (const [k, list] of groups) {
      const [sheet, scen] = k.split('\u0000');
      const cells = list.map((p) => [p, cellOf(p.test_point)]);
      const rows = Math.max(0, ...cells.map(([, c]) => (c ? c[0] : 0))) + 1;
      const cols = Math.max(0, ...cells.map(([, c]) => (c ? c[1] : 0))) + 1;
      const at = new Map(cells.filter(([, c]) => c).map(([p, c]) => [`${c[0]},${c[1]}`, p]));
      const done = list.filter((p) => p.state === 'done').length;
      html += `<div class="td-grid"><div class="sub">${esc(scen)} <span class="muted">${esc(short(sheet))} · ${done}/${list.length} done</span></div><table class="dense">`;
      for (let r = 0; r < rows; r++) {
        html += '<tr>';
        for (let c = 0; c < cols; c++) {
          const p = at.get(`${r},${c}`);
          if (!p) { html += '<td class="td-empty"></td>'; continue; }
          const colour = p.predicted_colour || 'none';
          const text = p.state === 'done' ? fmt(p.value) : `${STATE_MARK[p.state] || '?'} ${speedsOf(p)}`.trim();
          const sel = p.point === this.selected ? ' td-sel' : '';
          html += `<td class="td-cell td-${esc(colour)} td-state-${esc(p.state)}${sel}" data-point="${p.point}" data-state="${esc(p.state)}" title="${esc(label(p))}: predicted ${esc(p.prediction || '—')}, ${esc(p.state)}${p.value != null ? ` ${fmt(p.value)} (${esc(p.expected)})` : ''}">${esc(text)}</td>`;
        }
        html += '</tr>';
      }
      html += '</table></div>';
    }
    $('#td-grids').innerHTML = html;
    this.renderPoint();
  }

  /** With the VUT robot: which object drives which of the point's actors (or why none can). */
  objectsLine(p) {
    if ($('#td-vut').value !== 'robot' || !p.runnable) return '';
    try {
      const objs = groundObjects(p, $('#td-robot').value, $('#td-carriers').value);
      return `<div id="td-objects">objects: ${objs.map((o) => `${esc(o.name)} → ${esc(o.drives)}`).join(', ')}</div>`;
    } catch (e) { return `<div id="td-objects" class="warn">${esc(e.message)}</div>`; }
  }

  renderPoint() {
    const s = this.series;
    const box = $('#td-point');
    const p = s && s.points.find((x) => x.point === this.selected);
    if (!p) { box.innerHTML = `<p class="muted">${s ? 'Select a cell of a grid.' : 'No points yet: upload a workbook first.'}</p>`; return; }
    let action = '';
    const btn = (what) => `<button type="button" data-action="run" data-series="${esc(s.id)}" data-point="${p.point}" data-state="${esc(p.state)}">${what} ${esc(label(p))} of ${esc(s.id)}</button>`;
    if (p.runnable && p.state === 'planned') action = btn('Run');
    else if (p.runnable && p.state === 'invalid') action = btn('Repeat');
    else if (p.runnable && p.state === 'valid') action = btn('Run the baseline of');
    const attempts = (p.attempts || []).map((a) => `<tr data-attempt="${a.attempt}"><td>${a.attempt}</td><td>${esc(a.kind)}</td><td class="td-att-${esc(a.state)}">${esc(a.state)}</td><td>${fmt(a.value)}</td><td><a href="/?run=${encodeURIComponent(a.run_id)}" target="_blank" rel="noopener">${esc(a.run_id)}</a></td><td>${esc(a.note || '')}</td></tr>`).join('');
    box.innerHTML = `<div><b>${esc(label(p))}</b></div>
      <div>predicted <span class="td-chip td-${esc(p.predicted_colour || 'none')}">${esc(p.prediction || '—')}</span> · measures ${esc(p.expected)}${p.baseline_expected ? ` and ${esc(p.baseline_expected)}` : ''} · state <b id="td-point-state">${esc(p.state)}</b>${p.value != null ? ` · value <b>${fmt(p.value)}</b>` : ''}${p.baseline_value != null ? ` · baseline ${fmt(p.baseline_value)}` : ''}</div>
      ${p.reason ? `<div class="muted">not runnable: ${esc(p.reason)}</div>` : ''}
      ${this.objectsLine(p)}
      <div>${action}</div>
      ${attempts ? `<table class="dense" id="td-attempts"><thead><tr><th>#</th><th>kind</th><th>verdict</th><th>value</th><th>run</th><th>note</th></tr></thead><tbody>${attempts}</tbody></table>` : ''}`;
  }
}
