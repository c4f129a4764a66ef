// The recording upload of the control bar: any kind the service replays (CSV, MDF4, VBOX, MCAP,
// raw ADMAnet),
// a column mapping when the service cannot find a field in a CSV's header, and the service's
// word when the same file was uploaded before.
import { postForm } from './api.js';

const $ = (s) => document.querySelector(s);
const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

/** What the file control accepts: every kind `POST /replays` reads (told by content there). */
export const ACCEPT = '.csv,.txt,.mf4,.mdf,.vbo,.mcap,.adma,text/csv';

// The fields a missing-column error can name, with what the mapping form asks for each.
const FIELDS = {
  time: [['time', 's']],
  position: [['x', 'm'], ['y', 'm']],
  heading: [['heading', 'deg']],
  speed: [['speed', 'km/h']],
};

/** The missing fields and the header from the service's "missing column(s): …" message. */
export function parseMissing(detail) {
  const m = /missing column\(s\): (.*?) \(header: \[(.*?)\]/.exec(String(detail || ''));
  if (!m) return null;
  const fields = Object.keys(FIELDS).filter((f) => new RegExp(`(^|; )${f}\\b`).test(m[1]));
  const header = m[2].split(',').map((h) => h.trim()).filter(Boolean);
  return fields.length ? { fields, header } : null;
}

/**
 * Wires the file control. `ctx`: scenario() → the chosen scenario id, speed() → pace,
 * uploaded(run, replayId, file, scenarioId, kind) → follow the new run, toast(msg, err).
 */
export function initUpload(ctx) {
  const input = $('#upload');
  input.accept = ACCEPT;
  let pending = null;   // { file, scenario } awaiting a mapping

  async function send(file, sid, columns = []) {
    const fd = new FormData();
    fd.append('scenario_id', sid);
    fd.append('speed', String(ctx.speed()));
    fd.append('start', 'false');
    for (const c of columns) fd.append('column', c);
    fd.append('file', file, file.name);
    try {
      // the service stores the recording and creates a run on it (not started)
      const r = await postForm('/replays', fd);
      hideMapping();
      const rid = (r && (r.replay_id ?? r.replay)) || file.name;
      const kind = (r && r.replay_kind) || '';
      const dup = r && r.duplicate_of;
      await ctx.uploaded(r, rid, file, sid, kind);
      ctx.toast(dup ? `${file.name} was uploaded before (replay ${rid}): run ${r.id} uses it again`
        : `uploaded ${file.name} (${kind.toUpperCase() || 'recording'}) → replay ${rid}, run ${r && r.id}`);
    } catch (e) {
      const miss = parseMissing(e.detail);
      if (miss) { pending = { file, sid }; showMapping(file.name, miss, e.detail); }
      ctx.toast(e.message, true);
    }
  }

  function showMapping(name, miss, detail) {
    const box = $('#colmap');
    const opts = miss.header.map((h) => `<option value="${esc(h)}">${esc(h)}</option>`).join('');
    const rows = miss.fields.flatMap((f) => FIELDS[f]).map(([field, unit]) => `<label>${field} <select data-field="${field}">${opts}</select>`
      + ` unit <input data-unit="${field}" type="text" size="5" placeholder="${unit}" title="the column's unit, when its header does not say it (e.g. kmh, m/s, deg, rad)"></label>`).join('');
    box.innerHTML = `<span class="why">${esc(name)}: ${esc(detail)}</span><span class="map-fields">${rows}</span>`
      + '<button type="button" id="colmap-go">upload with this mapping</button><button type="button" id="colmap-close" title="dismiss">×</button>';
    box.hidden = false;
    $('#colmap-go').addEventListener('click', () => {
      if (!pending) return;
      const cols = [...box.querySelectorAll('select[data-field]')].map((s) => {
        const f = s.dataset.field, u = box.querySelector(`input[data-unit="${f}"]`).value.trim();
        return `${f}=${s.value}${u ? `:${u}` : ''}`;
      });
      send(pending.file, pending.sid, cols);
    });
    $('#colmap-close').addEventListener('click', hideMapping);
  }
  function hideMapping() { $('#colmap').hidden = true; $('#colmap').innerHTML = ''; pending = null; }

  input.addEventListener('change', async (ev) => {
    const file = ev.target.files[0]; if (!file) return;
    hideMapping();
    await send(file, ctx.scenario());
    ev.target.value = '';
  });
}
