// Time-series plots on uPlot (vendored), dark styled, with an optional horizontal threshold line
// and vertical instant markers (trigger, impact).
import uPlot from './vendor/uPlot.esm.js';

const AXIS = { stroke: '#7d8596', grid: { stroke: '#232833', width: 1 }, ticks: { stroke: '#2a2f3a', width: 1 }, font: '11px monospace' };
export const COLORS = ['#4fa3ff', '#ffcf3a', '#3ccf6e', '#ff5cd6', '#ff9f1a', '#b48cff', '#4de1e1', '#ff6b6b'];

/**
 * A plot of one or more series over a shared x. `opts.series` = [{label, color}], `opts.xLabel`.
 * `marks` = {threshold: number|null, instants: [{t, label, color}]} is read at every redraw.
 */
export class TimePlot {
  constructor(el, opts) {
    this.el = el;
    this.marks = { threshold: null, instants: [] };
    this.data = [[], ...opts.series.map(() => [])];
    this.unit = opts.unit || '';
    const self = this;
    const series = [{ label: opts.xLabel || 't [s]', value: (u, v) => (v == null ? '—' : v.toFixed(2)) },
      ...opts.series.map((s, i) => ({ label: s.label, stroke: s.color || COLORS[i], width: 1.5, spanGaps: false,
        value: (u, v) => (v == null ? '—' : v.toFixed(s.digits ?? 2)) }))];
    this.u = new uPlot({
      width: Math.max(200, el.clientWidth || 400), height: opts.height || 150,
      legend: { show: opts.legend !== false, live: true },
      cursor: { drag: { x: true, y: false } },
      scales: { x: { time: false }, y: { range: opts.yRange || ((u, lo, hi) => [Math.min(0, lo ?? 0), (hi ?? 1) * 1.08 || 1]) } },
      axes: [{ ...AXIS, size: 26 }, { ...AXIS, size: 40 }],
      series,
      hooks: { draw: [(u) => self._drawMarks(u)] },
    }, this.data, el);
    new ResizeObserver(() => {
      const w = Math.max(200, el.clientWidth);
      if (Math.abs(w - this.u.width) > 2) this.u.setSize({ width: w, height: opts.height || 150 });
    }).observe(el);
  }

  setData(data) { this.data = data; this.u.setData(data); }

  // Labels never overlap: each one takes the first text row where it is clear of the ones
  // already placed (`labelBoxes`, CSS px, for tests). Values above the y scale (`offScale`) are
  // said in words at the top edge.
  _drawMarks(u) {
    const ctx = u.ctx, { left, top, width, height } = u.bbox, dpr = devicePixelRatio;
    ctx.save();
    ctx.beginPath(); ctx.rect(left, top, width, height); ctx.clip();
    ctx.textAlign = 'left'; ctx.textBaseline = 'alphabetic';
    ctx.font = `${11 * dpr}px monospace`;
    const boxes = [];
    const clear = (b) => !boxes.some((o) => b.x0 < o.x1 && o.x0 < b.x1 && b.y0 < o.y1 && o.y0 < b.y1);
    const label = (text, x, y, color) => {
      const w = ctx.measureText(text).width, h = 12 * dpr;
      let b = { x0: x, x1: x + w, y0: y - h + 2 * dpr, y1: y + 2 * dpr };
      for (let row = 0; row < 6 && !clear(b); row++) b = { ...b, y0: b.y0 + h, y1: b.y1 + h };
      boxes.push({ ...b, text });
      ctx.fillStyle = color; ctx.fillText(text, b.x0, b.y1 - 2 * dpr);
    };
    const sc = u.scales.y;
    let above = 0, max = -Infinity;
    for (let i = 1; i < u.data.length; i++) for (const v of u.data[i] || []) if (v != null && sc.max != null && v > sc.max) { above++; if (v > max) max = v; }
    this.offScale = above ? { n: above, max, top: sc.max } : null;
    if (above) {
      const text = `▲ ${above} above ${sc.max.toFixed(0)} ${this.unit} (max ${max.toFixed(1)} ${this.unit})`;
      label(text, Math.max(left + 4 * dpr, left + width - ctx.measureText(text).width - 6 * dpr), top + 12 * dpr, '#ffcf3a');
    }
    const th = this.marks.threshold;
    if (th != null && isFinite(th)) {
      const y = u.valToPos(th, 'y', true);
      ctx.strokeStyle = '#ff4d4f'; ctx.setLineDash([6, 4]); ctx.lineWidth = 1.5 * dpr;
      ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(left + width, y); ctx.stroke();
      ctx.setLineDash([]);
      label(`threshold ${th.toFixed(3)} s`, left + 6 * dpr, y - 4 * dpr, '#ff4d4f');
    }
    for (const m of this.marks.instants || []) {
      if (m.t == null || !isFinite(m.t)) continue;
      const x = u.valToPos(m.t, 'x', true);
      ctx.strokeStyle = m.color || '#ff5cd6'; ctx.lineWidth = 1.5 * dpr;
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke();
      if (m.label) label(m.label, x + 4 * dpr, top + 12 * dpr, m.color || '#ff5cd6');
    }
    this.labelBoxes = boxes.map((b) => ({ text: b.text, x0: b.x0 / dpr, x1: b.x1 / dpr, y0: b.y0 / dpr, y1: b.y1 / dpr }));
    ctx.restore();
  }
}
