// The simulated-VUT source in the run form and the live-parameters control of a running run
// (PATCH /api/v1/runs/{id}/parameters: ttc offset, position noise).
import { patch } from './api.js';

const $ = (s) => document.querySelector(s);
export const SIM_VUT = 'sim_vut';

/** The option the Replay picker gets for the built-in simulated VUT. */
export const simOption = () => `<option value="${SIM_VUT}">◆ simulated VUT (closed loop)</option>`;

/** True when the run form's source is the simulated VUT (shows its options). */
export function simSelected() {
  const on = $('#replay').value === SIM_VUT;
  $('#sim-opts').hidden = !on;
  return on;
}

/** The `source` of a new simulated-VUT run from the form. */
export function simSource() {
  const src = { kind: SIM_VUT, vut_speed_kmh: Number($('#sim-speed').value) || 40 };
  if ($('#sim-aeb').checked) src.aeb = { ttc_s: 1.2, decel_mps2: 8, delay_ms: 150 };
  return src;
}

/** Wires the live-parameters panel; `runIdOf()` gives the shown run, `stateOf()` the state the
 * page shows (sent as `expect_state`: the server refuses the change if the run is elsewhere),
 * `toast(msg, err)`, `refused(id, seenState)` after a 409 (the run moved on). */
export function initParams(runIdOf, stateOf, toast, refused) {
  $('#replay').addEventListener('change', simSelected);
  $('#p-apply').addEventListener('click', async () => {
    const id = runIdOf();
    if (id == null) return;
    const body = {};
    const ttc = $('#p-ttc').value.trim(), pos = $('#p-pos').value.trim();
    if (ttc !== '') body.ttc_offset_s = Number(ttc);
    if (pos !== '') body['noise.pos'] = Number(pos);
    if (!Object.keys(body).length) { toast('nothing to change', true); return; }
    const seen = stateOf();
    body.expect_state = seen;
    try {
      const r = await patch(`/runs/${encodeURIComponent(id)}/parameters`, body);
      const p = (r && r.parameters) || {};
      $('#p-now').textContent = `offset ${p.ttc_offset_s ?? '—'} s · pos σ ${(p.noise && p.noise.pos) ?? '—'} m`;
      delete body.expect_state;
      toast(`parameters changed: ${Object.entries(body).map(([k, v]) => `${k}=${v}`).join(', ')}`);
    } catch (e) {
      if (e.status === 409 && refused) await refused(id, seen);
      else toast(e.message, true);
    }
  });
}

/** The panel shows while the run is running. */
export function showParams(state) {
  const on = state === 'running';
  if ($('#params-panel').hidden === on) {
    $('#params-panel').hidden = !on;
    if (!on) $('#p-now').textContent = '';
  }
}
