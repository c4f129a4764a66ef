// The way onward from a finished run: its report, exports and record as downloads, and a
// button that asks the service to verify the record and shows the answer.
import { API, get } from './api.js';

const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

/** [label, path under /api/v1, file name, title] of every download a finished run offers. */
export function runDownloads(id) {
  const e = encodeURIComponent(id);
  return [
    ['report (HTML)', `/reports?runs=${e}`, `${id}.report.html`, 'The Euro NCAP report of this run: verdict, checks, Table 2, plots'],
    ['telemetry.parquet', `/runs/${e}/telemetry.parquet`, `${id}.telemetry.parquet`, 'Telemetry for pandas, DuckDB, Spark'],
    ['events.parquet', `/runs/${e}/events.parquet`, `${id}.events.parquet`, 'Events for pandas, DuckDB, Spark'],
    ['MCAP', `/runs/${e}/export.mcap`, `${id}.mcap`, 'For Foxglove / Lichtblick'],
    ['MF4', `/runs/${e}/export.mf4`, `${id}.mf4`, 'ASAM MDF 4 for CANape, asammdf'],
    ['OpenSCENARIO', `/runs/${e}/export.xosc`, `${id}.xosc`, 'The recorded motion as OpenSCENARIO 1.3'],
    ['record.json', `/runs/${e}/record.json`, `${id}.record.json`, 'The sealed record: check it offline with scil verify FILE'],
  ];
}

/** The links and the verify button (HTML); wire the button with `wireVerify`. */
export function linksBlock(id) {
  const links = runDownloads(id).map(([label, p, name, title]) => `<a class="dl" href="${API}${p}" download="${esc(name)}" title="${esc(title)}">${esc(label)}</a>`).join(' ');
  return `<div class="sub run-links" id="run-links">downloads: ${links} <button type="button" id="verify-run" data-run="${esc(id)}" title="Check the run's record: every event's hash and the seal of its results and telemetry">verify</button> <span id="verify-answer"></span></div>`;
}

/** The verify button's answer, in words. */
export function verifyWords(v) {
  if (!v) return 'no answer';
  if (v.ok) return `intact: ${v.events} events in the chain${v.sealed ? ', results and telemetry sealed' : ''}${v.head ? ` · head ${String(v.head).slice(0, 16)}…` : ''}`;
  return `NOT intact: ${(v.problems || []).join('; ') || (v.chained === false ? 'stored before records were chained' : 'see the record')}`;
}

export function wireVerify(root) {
  const b = root.querySelector('#verify-run');
  if (!b) return;
  b.addEventListener('click', async () => {
    const out = root.querySelector('#verify-answer');
    out.textContent = 'verifying…'; out.className = '';
    try {
      const v = await get(`/runs/${encodeURIComponent(b.dataset.run)}/verify`);
      out.textContent = verifyWords(v); out.className = v && v.ok ? 'ok' : 'bad';
    } catch (e) { out.textContent = e.message; out.className = 'bad'; }
  });
}
