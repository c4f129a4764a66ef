// The active-runs strip: every created/armed/running run on every track (track, scenario,
// state, the run's own time), to view one or abort it, and ABORT ALL. A run that starts while
// the page shows another one becomes a notice ("run X started on track Y — view"): the page
// never switches runs by itself.
import { get, post } from './api.js';

const $ = (s) => document.querySelector(s);
const esc = (s) => String(s ?? '').replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]));

export class RunStrip {
  /** `shown()` = the run id the page shows; `view(id)` shows a run; `op(fn)` runs a control
   * with the page's error toast. */
  constructor({ shown, shownState, view, op, toast }) {
    Object.assign(this, { shown, shownState, view, op, toast, runs: [], noticeRun: null });
    $('#strip-runs').addEventListener('click', (ev) => {
      const b = ev.target.closest('button'); if (!b) return;
      const chip = b.closest('.chip'), id = chip.dataset.run, state = chip.dataset.state;
      if (b.classList.contains('view')) this.view(id);
      // an abort stops the run in whatever active state it is now; only an ended run is refused
      if (b.classList.contains('abort')) this.op(async () => {
        try { await post(`/runs/${encodeURIComponent(id)}/abort`, { expect_state: state }); this.toast(`ABORT sent to run ${id}`); }
        catch (e) { if (e.status !== 409) throw e; this.toast(`ABORT not needed: run ${id} has already ended`, true); }
        this.refresh();
      });
    });
    $('#abort-all').addEventListener('click', () => this.op(async () => {
      const r = await post('/runs/abort-all', {});
      const n = (r && r.aborted && r.aborted.length) || 0;
      this.toast(n ? `ABORT ALL: ${n} run(s) aborted: ${r.aborted.map((x) => x.id).join(', ')}` : 'ABORT ALL: no active run');
      this.refresh();
    }));
    $('#notice-view').addEventListener('click', () => { if (this.noticeRun) this.view(this.noticeRun); this.hideNotice(); });
    $('#notice-close').addEventListener('click', () => this.hideNotice());
    this.refresh();
    setInterval(() => this.refresh(), 1000);
  }

  // Polled every second and on every state change the page sees; overlapping refreshes keep
  // the newest answer only.
  async refresh() {
    const n = (this.seq = (this.seq || 0) + 1);
    let runs;
    try { runs = await get('/runs?active=true') || []; } catch { return; }
    if (n !== this.seq) return;
    this.runs = runs;
    this.render();
  }

  render() {
    const shown = this.shown();
    const html = this.runs.map((r0) => {
      // the shown run's chip takes the state the page has from its live stream (no poll lag)
      const live = r0.id === shown && this.shownState ? this.shownState() : null;
      const r = live ? { ...r0, state: live } : r0;
      const t = r.t_s == null ? '' : `t=${Number(r.t_s).toFixed(1)} s`;
      const canAbort = ['created', 'armed', 'running'].includes(r.state);
      return `<span class="chip${r.id === shown ? ' shown' : ''}" data-run="${esc(r.id)}" data-state="${esc(r.state)}" data-track="${esc(r.track)}">`
        + `<span class="track">${esc(r.track ?? '—')}</span><span>${esc(r.scenario_id)}</span>${r.demo ? '<span class="muted">demo</span>' : ''}`
        + `<span class="pill" data-state="${esc(r.state)}">${esc(r.state)}</span><span class="muted">${t}</span>`
        + `${r.id === shown ? '<span class="muted">shown</span>' : '<button type="button" class="view">view</button>'}`
        + `${canAbort ? `<button type="button" class="abort" title="Abort run ${esc(r.id)} on track ${esc(r.track)}">ABORT</button>` : ''}</span>`;
    }).join('');
    $('#strip-runs').innerHTML = html || '<span class="none">none</span>';
  }

  /** A run started somewhere: a notice unless it is the shown one. */
  started(runId, track) {
    this.refresh();
    if (runId === this.shown()) return;
    this.noticeRun = runId;
    $('#notice-text').textContent = `run ${runId} started on track ${track ?? '?'}`;
    $('#notice').hidden = false;
  }

  hideNotice() { $('#notice').hidden = true; this.noticeRun = null; }
}
