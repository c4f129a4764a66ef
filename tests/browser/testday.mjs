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
}
