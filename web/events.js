// Events of the live view in words: each event's own sentence (object names, states, link
// figures, abort causes), and for any other event its fields as key=value with units. Never
// raw JSON: nested values are said in words or by their count.

const fmt = (v, d = 2) => (v == null || !isFinite(v) ? '—' : Number(v).toFixed(d));
// The unit a key's suffix names (" s" for ttc_offset_s); a count has none.
const SUFFIX_UNIT = [[/_ms$/, ' ms'], [/_mps2$/, ' m/s²'], [/_mps$/, ' m/s'], [/_kmh$/, ' km/h'], [/_deg$/, ' °'], [/_hz$/, ' Hz'], [/_s$/, ' s'], [/_m$|^noise\.pos$/, ' m']];
export const unitOf = (k) => (SUFFIX_UNIT.find(([re]) => re.test(k)) || [null, ''])[1];
export const CHANNEL_UNIT = { vut_speed: 'km/h', target_speed: 'km/h', vut_lateral: 'm', target_lateral: 'm', vut_yaw_rate: '°/s', vut_steering_rate: '°/s', conflict_arrival: 's' };
const STATE = (s) => (s == null ? '?' : String(s).replace(/_/g, ' ').toUpperCase());

/** A link's figures in words: "MONR 94 Hz, loss 6 %, latency 3 ms". */
export function linkWords(l) {
  if (!l || typeof l !== 'object') return '';
  const lat = l.latency_ms;
  return `MONR ${fmt(l.rate_hz, 0)} Hz, loss ${fmt((l.monr_loss ?? 0) * 100, 0)} %, latency ${fmt(lat, 0)} ms${lat < 0 ? ' (the object\'s clock is ahead)' : ''}`;
}

/** An abort reason (the control centre's, tagged by `kind`) in words. */
export function abortWords(r) {
  if (r == null) return '';
  if (typeof r !== 'object') return String(r);
  if (r.text) return r.text;
  switch (r.kind) {
    case 'monr_lost': return `object ${r.carrier}: lost (${r.missed} consecutive MONR missing)`;
    case 'carrier_disconnected': return `object ${r.carrier}: disconnected`;
    case 'carrier_abort': return `object ${r.carrier} reported ABORTING`;
    case 'left_armed': return `object ${r.carrier} left ARMED before the start (now ${STATE(r.state)})`;
    case 'telemetry_stale': return `no VUT telemetry for ${fmt(r.age_s, 2)} s (limit ${fmt(r.limit_s, 2)} s)`;
    case 'estop': return r.reason || 'operator abort';
    default: return flat(r);
  }
}

/** A text with a JSON object in it (a stored abort reason: `control centre abort: {"kind": …}`)
 * with that object said in words. */
export function inWords(text) {
  const t = String(text ?? '');
  const i = t.indexOf('{');
  if (i < 0) return t;
  try { return t.slice(0, i) + abortWords(JSON.parse(t.slice(i))); } catch { return t.replace(/[{}"]/g, ''); }
}

/** Fields as key=value (numbers with their unit); nested objects one level down, lists by count. */
function flat(e, prefix = '') {
  const parts = [];
  for (const [k, v] of Object.entries(e)) {
    if (k === 'event' || k === 'time_s' || v == null) continue;
    const key = prefix + k;
    if (typeof v === 'number') parts.push(`${key}=${Number.isInteger(v) ? v : v.toFixed(3)}${unitOf(k)}`);
    else if (Array.isArray(v)) parts.push(`${key}: ${v.length} item${v.length === 1 ? '' : 's'}`);
    else if (typeof v === 'object') { if (!prefix) parts.push(flat(v, `${key}.`)); }
    else parts.push(`${key}=${inWords(v)}`);
  }
  return parts.filter(Boolean).join(' ');
}

/**
 * One event in words. `ctx` = {t0: the run's first sample time, role(carrier): what an object
 * drives, for objects that move no target}.
 */
export function describe(name, e, ctx = {}) {
  const t0 = ctx.t0;
  const u = (k, label, d, unit) => (e[k] == null ? '' : `${label} ${typeof e[k] === 'number' ? e[k].toFixed(d) : e[k]} ${unit} `);
  const who = (c, target) => {
    const role = target ?? (ctx.role ? ctx.role(c) : null);
    return role && role !== c ? `${c ?? '?'} (${role})` : `${c ?? '?'}`;
  };
  switch (name) {
    case 'triggered': case 'trigger_assessed':
      return `${e.target} ${u('ttc_s', 'TTC', 3, 's')}${u('d_long_m', 'd_long', 2, 'm')}v ${fmt((e.vut_speed_mps ?? 0) * 3.6, 1)} km/h ${u('fire_error_ms', 'fire error', 2, 'ms')}`;
    case 'impact':
      return `${e.target} ${u('dummy_travel_m', 'dummy travel', 3, 'm')}${e.nominal_travel_m != null ? `nominal ${fmt(e.nominal_travel_m, 5)} m ` : ''}${e.overlap != null ? `overlap ${fmt(e.overlap * 100, 0)} % of width ` : ''}${u('stopped_short_m', 'stopped short by', 2, 'm')}${e.note ?? ''}`;
    case 'trigger_scheduled': return `${e.target} at t=${fmt(e.at_s != null && t0 != null ? e.at_s - t0 : e.at_s, 3)} s`;
    case 'state': return e.state;
    case 'parameter_change': return `${e.name}=${e.value}${typeof e.value === 'number' ? unitOf(e.name) : ''} by ${e.by ?? '?'}`;
    case 'carrier_state': return `${who(e.carrier, e.target)} → ${STATE(e.state)}${e.time_s != null && t0 != null ? ` at t=${fmt(e.time_s - t0, 3)} s` : ''}`;
    case 'carrier_connected': return `${who(e.carrier)} connected`;
    case 'carrier_disconnected': return `${who(e.carrier)} disconnected${e.reason ? `: ${e.reason}` : ''}`;
    case 'carrier_abort': return `ABORT to every object: ${abortWords(e.reason)}`;
    case 'carrier_strt': return `start command to ${who(e.carrier)}`;
    case 'link_degraded': return `${who(e.carrier)}: ${e.measure ? `${String(e.measure).replace(/_/g, ' ')} past its warning level; ` : ''}${linkWords(e.link)}`;
    case 'link_warning': return `${who(e.carrier)}: ${e.text}`;
    case 'synced': return `${e.target} re-timed to the VUT${e.predicted_impact_s != null && t0 != null ? `, impact predicted at t=${fmt(e.predicted_impact_s - t0, 3)} s` : ''}${e.count > 1 ? ` (${e.count} times)` : ''}`;
    case 'objects_armed': return `objects armed: ${(e.objects || []).map((o) => `${o.name} ${STATE(o.state)}`).join(', ')}`;
    case 'returned': {
      const r = e.report || {};
      if (r.error) return `drive to the starts failed: ${r.error}`;
      const objs = (r.objects || []).map((o) => `${o.name} ${fmt(o.end_distance_m, 2)} m, ${fmt(o.end_heading_deg, 1)}° from its start`).join('; ');
      return `${r.at_start ? 'every object at its start' : 'not every object at its start'}${r.aborted ? ` (aborted: ${abortWords(safeParse(r.aborted))})` : ''}${objs ? `: ${objs}` : ''}`;
    }
    case 'aborted': return e.abort && e.abort.text ? e.abort.text : e.reason ? `${inWords(e.reason)}` : flat(e);
    case 'validity': return `${e.channel} ${fmt(e.value, 3)}${CHANNEL_UNIT[e.channel] ? ` ${CHANNEL_UNIT[e.channel]}` : ''}${e.limit ? ` (limit ${e.limit})` : ''}`;
    case 'seal': return 'record sealed: digests of its results, telemetry and run';
    case 'control': return `${e.action ?? 'control'} by ${e.by ?? '?'}`;
    case 'verdict': return `${e.valid ? 'VALID' : 'INVALID'}${e.window ? ` window ${fmt(e.window.from_s - (t0 ?? 0), 2)}–${fmt(e.window.to_s - (t0 ?? 0), 2)} s` : ''}`;
    default: return flat(e);
  }
}

function safeParse(s) {
  if (typeof s !== 'string') return s;
  try { return JSON.parse(s); } catch { return s; }
}
