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

  _drawMarks(u) {
    const ctx = u.ctx, { left, top, width, height } = u.bbox;
    ctx.save();
    ctx.beginPath(); ctx.rect(left, top, width, height); ctx.clip();
    ctx.textAlign = 'left'; ctx.textBaseline = 'alphabetic';
    const th = this.marks.threshold;
    if (th != null && isFinite(th)) {
      const y = u.valToPos(th, 'y', true);
      ctx.strokeStyle = '#ff4d4f'; ctx.setLineDash([6, 4]); ctx.lineWidth = 1.5 * devicePixelRatio;
      ctx.beginPath(); ctx.moveTo(left, y); ctx.lineTo(left + width, y); ctx.stroke();
      ctx.setLineDash([]); ctx.fillStyle = '#ff4d4f'; ctx.font = `${11 * devicePixelRatio}px monospace`;
      ctx.fillText(`threshold ${th.toFixed(3)} s`, left + 6 * devicePixelRatio, y - 4 * devicePixelRatio);
    }
    for (const m of this.marks.instants || []) {
      if (m.t == null || !isFinite(m.t)) continue;
      const x = u.valToPos(m.t, 'x', true);
      ctx.strokeStyle = m.color || '#ff5cd6'; ctx.lineWidth = 1.5 * devicePixelRatio;
      ctx.beginPath(); ctx.moveTo(x, top); ctx.lineTo(x, top + height); ctx.stroke();
      ctx.fillStyle = m.color || '#ff5cd6'; ctx.font = `${11 * devicePixelRatio}px monospace`;
      ctx.fillText(m.label || '', x + 4 * devicePixelRatio, top + 12 * devicePixelRatio);
    }
    ctx.restore();
  }
}
