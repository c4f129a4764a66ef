// Objects on the ground (the VUT's robot, the carriers): one row per object in every state of
// the run — its role, ISO 22133 state, whether it stands at its start (else how far away), its
// link figures (MONR rate, loss, latency), how far behind its plan it drives (while it runs)
// and its last fault in words. Rows carry
// `data-object="NAME"`. The figures come from `GET /runs/{id}` (`objects`), polled by the page.

const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));
const fmt = (v, d) => (v == null || !isFinite(v) ? '—' : Number(v).toFixed(d));

/** `vut` → "VUT robot", a target id → "target ID". */
export const roleOf = (drives) => (drives === 'vut' ? 'VUT robot' : drives ? `target ${drives}` : '—');

/** The object's state as the page says it (ISO 22133 states in capitals). */
export function stateOf(o) {
  if (!o.state) return o.connected === false ? 'not connected' : 'not connected yet';
  if (o.state === 'returning') return 'driving to its start';
  if (o.state === 'disconnected') return 'disconnected';
  return String(o.state).replace(/_/g, ' ').toUpperCase();
}

/** Where the object stands against its start, in words, with a class for its colour. */
export function startOf(o) {
  const f = o.from_start;
  if (o.state === 'returning') {
    return f ? [`${fmt(f.distance_m, 1)} m to go`, 'warn'] : ['driving to its start', 'warn'];
  }
  if (o.at_start === true) return ['at its start', 'ok'];
  if (!o.pose) return ['no position reported yet', 'muted'];
  if (!o.start) return ['start not planned yet (Arm or Back to start plans it)', 'muted'];
  if (f) return [`${fmt(f.distance_m, 2)} m and ${fmt(f.heading_deg, 1)}° from its start`, 'bad'];
  return ['not at its start', 'bad'];
}

/** MONR rate, loss and latency in words (latency: arrival − the object's own time stamp). */
export function linkOf(o) {
  const l = o.link;
  if (!l) return [o.connected === false ? 'link down' : 'no link open', 'muted'];
  const lat = l.latency_ms;
  const latText = lat < 0 ? `${fmt(lat, 0)} ms (clocks differ)` : `${fmt(lat, 0)} ms`;
  return [`${fmt(l.rate_hz, 0)} Hz · loss ${fmt(l.monr_loss * 100, 0)} % · ${latText}`, o.link_warning ? 'warn' : 'ok'];
}

/** While it runs: how far behind (or ahead of) its plan, in metres and seconds. */
export function lagOf(o) {
  const l = o.lag;
  if (!l) return ['—', 'muted'];
  if (Math.abs(l.m) < 0.05) return ['on its plan', 'ok'];
  const side = l.m > 0 ? 'behind' : 'ahead';
  return [`${fmt(Math.abs(l.m), 2)} m (${fmt(Math.abs(l.s), 2)} s) ${side}`, Math.abs(l.m) > 1 ? 'warn' : 'ok'];
}

export class ObjectsPanel {
  constructor(panel, table, summary) {
    Object.assign(this, { panel, table, summary });
  }

  /** Draws the rows (`objects` null: a run without objects, the panel hides). */
  render(objects, runFault) {
    const list = objects || [];
    this.panel.hidden = list.length === 0;
    if (!list.length) return;
    const atStart = list.filter((o) => o.at_start === true).length;
    const returning = list.some((o) => o.state === 'returning');
    this.summary.textContent = returning ? 'driving to their starts' : `${atStart} of ${list.length} at start`
      + (runFault && runFault.text ? ` · run ended: ${runFault.text}` : '');
    this.table.querySelector('tbody').innerHTML = list.map((o) => {
      const [start, sc] = startOf(o), [link, lc] = linkOf(o), [lag, gc] = lagOf(o);
      const fault = o.fault || (runFault && runFault.object === o.name ? runFault.text : '') || o.link_warning || '';
      const fc = o.fault || (runFault && runFault.object === o.name) ? 'bad' : o.link_warning ? 'warn' : '';
      return `<tr data-object="${esc(o.name)}" data-state="${esc(o.state ?? '')}" data-at-start="${o.at_start === true}">`
        + `<td><b>${esc(o.name)}</b></td><td>${esc(roleOf(o.drives))}</td>`
        + `<td class="obj-state">${esc(stateOf(o))}</td><td class="obj-start ${sc}">${esc(start)}</td>`
        + `<td class="obj-link ${lc}" title="MONR rate, share of MONR missing, and latency (arrival − the object's time stamp: one-way delay plus any clock offset)">${esc(link)}</td>`
        + `<td class="obj-lag ${gc}" title="Distance along its path between where its plan is now and where its MONR says it is, and the same at its planned speed">${esc(lag)}</td>`
        + `<td class="obj-fault ${fc}">${esc(fault)}</td></tr>`;
    }).join('');
  }
}
