// Live Euro NCAP validity lamps: one lamp per channel. Grey until the run's
// validity window says something; red the moment the engine's `validity` event reports a break
// (with the first violation's time), green/red per channel from the final `verdict`.

export const CHANNELS = ['vut_speed', 'vut_lateral', 'vut_yaw_rate', 'vut_steering_rate', 'target_speed', 'target_lateral'];
// What closed the validity window (the verdict's `closed_by`).
const END = {
  impact: 'impact', fcw: 'FCW', brake_light: 'brake light (AEB onset)',
  deceleration: 'deceleration (AEB onset)', end_of_run: 'end of run',
};
const LABEL = {
  vut_speed: 'VUT speed', vut_lateral: 'VUT lateral', vut_yaw_rate: 'yaw rate',
  vut_steering_rate: 'steering rate', target_speed: 'target speed', target_lateral: 'target lateral',
};

const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

export class ValidityLamps {
  constructor(el) {
    this.el = el;
    this.reset();
  }

  /** Why the lamps are grey ('' when they need no word). */
  setWhy(text) {
    if (text === this.why) return;
    this.why = text;
    this.render();
  }

  /** During a scenario preview the lamps show no run's data (the run's verdict comes back after). */
  setPreview(on) {
    if (!!on === !!this.preview) return;
    this.preview = !!on;
    this.render();
  }

  reset() {
    this.state = new Map(CHANNELS.map((c) => [c, { lamp: 'off', first: null, value: null, limit: '' }]));
    this.verdict = null;
    this.window = null;
    this.render();
  }

  // `validity` event: { channel, time_s, value, limit }; `rel` maps sample time to run time.
  onBreak(e, rel) {
    const s = this.state.get(e.channel);
    if (!s) return;
    if (s.first == null) s.first = rel(e.time_s);
    s.lamp = 'bad'; s.value = e.value; s.limit = e.limit || s.limit;
    this.render();
  }

  // `verdict` event: the run result's `validity` object.
  onVerdict(v, rel) {
    this.verdict = v.valid;
    // The window the verdict judged, what closed it and which T0 rule opened it.
    this.window = v.window ? {
      from: rel(v.window.from_s), to: rel(v.window.to_s),
      by: v.closed_by || null, t0: v.t0_rule || 'ttc',
    } : null;
    for (const c of v.checks || []) {
      const s = this.state.get(c.channel);
      if (!s) continue;
      s.lamp = c.ok ? 'ok' : 'bad';
      s.limit = c.limit; s.value = c.worst;
      if (c.first_violation_s != null) s.first = rel(c.first_violation_s);
    }
    this.render();
  }

  render() {
    if (!this.el) return;
    const pv = !!this.preview;
    const w = pv ? null : this.window;
    const span = w ? `<div class="vl-window muted" data-closed-by="${w.by || ''}" data-t0="${w.t0}">window ${w.from.toFixed(2)}–${w.to.toFixed(2)} s · T0 rule ${w.t0}${w.by ? ` · closed by ${END[w.by] || w.by}` : ''}</div>` : '';
    const head = this.verdict == null || pv ? '' : `<div class="vl-verdict ${this.verdict ? 'ok' : 'bad'}">${this.verdict ? 'VALID' : 'INVALID'}</div>${span}`;
    const why = this.why && (this.verdict == null || pv) ? `<div class="vl-why">${this.why}</div>` : '';
    this.el.innerHTML = why + head + CHANNELS.map((c) => {
      const s = pv ? { lamp: 'off', first: null, value: null, limit: '' } : this.state.get(c);
      const first = s.first == null ? '' : `first ${s.first.toFixed(3)} s`;
      const title = `${LABEL[c]}${s.limit ? ` — limit ${s.limit}` : ''}${s.value != null ? `, value ${Number(s.value).toFixed(3)}` : ''}`;
      // a red lamp says its value and limit beside it, not only in its tooltip
      const val = s.lamp === 'bad' && s.value != null ? ` <span class="vl-val">${Number(s.value).toFixed(3)}${s.limit ? ` (limit ${esc(s.limit)})` : ''}</span>` : '';
      return `<div class="vl" data-channel="${c}" data-lamp="${s.lamp}" title="${esc(title)}"><span class="lamp ${s.lamp}"></span>${LABEL[c]}${val}<span class="muted"> ${first}</span></div>`;
    }).join('');
  }
}
