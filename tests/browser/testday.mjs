// Test day tab: a rating-tool workbook (made by Euro NCAP's own tool, euroncap-rating-2026)
// uploaded from the page, a point run with "run next", the grid and the download link. Skipped
// (reported, not failed) without the Python package, unless CI=true.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The preprocessed workbook, made with the script the Rust tests use; null when the tool is missing. */
function workbook(root, tmp) {
  try { execFileSync('python3', ['-c', 'import euroncap_rating_2026']); } catch {
    if (process.env.CI === 'true') throw new Error('CI=true but python module euroncap_rating_2026 is unavailable');
    return null;
  }
  const src = fs.readFileSync(path.join(root, 'tests/it/support/rating_tool.rs'), 'utf8');
  const m = /pub const PREPARE: &str = r#"([\s\S]*?)"#;/.exec(src);
  if (!m) throw new Error('PREPARE script not found in tests/it/support/rating_tool.rs');
  const dir = fs.mkdtempSync(path.join(tmp, 'wb-'));
  const out = execFileSync('python3', ['-c', m[1], dir], { encoding: 'utf8' });
  return JSON.parse(out.trim()).workbook;
}

export async function testdayTest({ page, base, root, tmp, token, test, assert, shot }) {
  const wb = workbook(root, tmp);
  if (!wb) { console.log('  skip test day: python module euroncap_rating_2026 unavailable'); return; }
  // The junction map for the turning rows, registered through the API.
  const xodr = path.join(root, '../shared/osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr');
  if (fs.existsSync(xodr)) {
    const form = new FormData();
    form.append('id', 'x_intersection');
    form.append('file', new Blob([fs.readFileSync(xodr)]), 'X-Intersection_NCAP.xodr');
    await fetch(`${base}api/v1/maps`, { method: 'POST', headers: { Authorization: `Bearer ${token}` }, body: form });
  }
  await test('test day: upload a workbook, a grid per scenario with the predicted colours', async () => {
    await page.click('[data-tab=testday]');
    await page.waitForFunction(() => [...document.querySelectorAll('#td-junction option')].some((o) => o.value === 'x_intersection'), null, { timeout: 10000 });
    await page.selectOption('#td-junction', 'x_intersection');
    await page.setInputFiles('#td-file', wb);
    await page.click('#td-upload');
    await page.waitForFunction(() => document.querySelectorAll('#td-grids .td-cell').length > 200, null, { timeout: 300000 });
    const g = await page.evaluate(() => ({
      grids: document.querySelectorAll('#td-grids .td-grid').length,
      green: document.querySelectorAll('#td-grids .td-cell.td-green').length,
      status: document.querySelector('#td-status').textContent,
    }));
    assert(g.grids > 20 && g.green > 0, `grids ${g.grids}, green cells ${g.green}`);
    const n = Number((/(\d+) points/.exec(g.status) || [])[1]);
    assert(n > 200, `status '${g.status}'`);
  });
  await test('test day: "run next" names the series and point, runs it to done; download link', async () => {
    const sid = await page.evaluate(() => window.__scil.testday.series.id);
    await page.selectOption('#td-speed', 'max');
    const b = await page.$eval('#td-next', (e) => ({ text: e.textContent, point: e.dataset.point, series: e.dataset.series }));
    assert(b.series === sid && b.text.includes(sid) && b.text.includes(`point ${b.point} `), `button '${b.text}'`);
    await page.click('#td-next');
    await page.waitForSelector(`#td-grids .td-cell[data-point="${b.point}"].td-state-done`, { timeout: 60000 });
    const cell = await page.$eval(`#td-grids .td-cell[data-point="${b.point}"]`, (e) => e.textContent);
    assert(/^-?\d/.test(cell), `the done cell shows the measured value: '${cell}'`);
    await page.click(`#td-grids .td-cell[data-point="${b.point}"]`);
    const verdict = await page.$eval('#td-attempts tbody tr td:nth-child(3)', (e) => e.textContent);
    assert(verdict === 'valid', `attempt verdict '${verdict}'`);
    const next = await page.$eval('#td-next', (e) => e.dataset.point);
    assert(next !== b.point, 'run next moves on to another point');
    const href = await page.$eval('#td-download', (e) => e.getAttribute('href'));
    assert(href.includes(`/series/${sid}/workbook.xlsx`), `download ${href}`);
    if (shot) await page.screenshot({ path: shot });
    const r = await fetch(new URL(href, base));
    assert(r.ok && /spreadsheetml/.test(r.headers.get('content-type') || ''), `download ${r.status}`);
  });
  await test('test day on the ground: the VUT robot and a carrier per moving actor; the run is created for the operator to arm', async () => {
    const s = await page.evaluate(() => window.__scil.testday.series);
    const p = s.points.find((x) => x.runnable && x.state === 'planned' && (x.actors || []).length === 2);
    assert(p, 'a planned point with the VUT and one moving target');
    const actor = p.actors[1].drives;
    await page.selectOption('#td-vut', 'robot');
    assert(await page.isVisible('#td-robot') && !(await page.isVisible('#td-bind')), 'robot address shown, NCOM bind hidden');
    await page.fill('#td-robot', 'robot=127.0.0.2');
    await page.fill('#td-carriers', 'target=127.0.0.3');
    await page.click(`#td-grids .td-cell[data-point="${p.point}"]`);
    let line = await page.textContent('#td-objects');
    assert(line.includes('robot → vut') && line.includes(`target → ${actor}`), `objects line '${line}'`);
    // A carrier naming an actor the point does not have: said before anything is sent.
    await page.fill('#td-carriers', 'target=127.0.0.3@nobody');
    line = await page.textContent('#td-objects');
    assert(/no such moving actor/.test(line), `objects line '${line}'`);
    await page.fill('#td-carriers', `target=127.0.0.3@${actor}`);
    // The request the page sends (answered here: no objects run in the browser test).
    let sent = null;
    const route = `**/api/v1/series/${s.id}/points/${p.point}/run`;
    await page.route(route, async (r) => {
      sent = JSON.parse(r.request().postData() || 'null');
      await r.fulfill({ status: 201, contentType: 'application/json', body: JSON.stringify({ run: { id: 'run-ground-1', state: 'created' }, objects: { state: 'returning' } }) });
    });
    try {
      await page.click('#td-point button[data-action=run]');
      await page.waitForFunction(() => /run-ground-1 created/.test(document.querySelector('#toast').textContent), null, { timeout: 10000 });
    } finally { await page.unroute(route); }
    assert(sent && sent.source.kind === 'monr' && sent.source.carrier === 'robot', `source ${JSON.stringify(sent && sent.source)}`);
    assert(sent.carriers.length === 2 && sent.carriers[0].drives === 'vut' && sent.carriers[1].drives === actor && sent.carriers[1].address === '127.0.0.3', `carriers ${JSON.stringify(sent.carriers)}`);
    assert(sent.start === false && sent.return_to_start === true && sent.speed === undefined, `body ${JSON.stringify(sent)}`);
    const toast = await page.textContent('#toast');
    assert(/drive to its start, then arm and start it/.test(toast), `toast '${toast}'`);
    await page.selectOption('#td-vut', 'sim');
  });
}
