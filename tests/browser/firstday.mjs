// A newcomer's first day on the dashboard: the selected scenario's map drawn before any preview,
// recordings of every kind through the page's file control (an MDF4 and a VBOX written by
// independent writers, a CSV whose speed column needs a mapping given in the page), each run
// to its end and listed with its kind; the same file again is recognised; the finished run
// shows its verdict with checks and values, links to its report, exports and record, each of
// which downloads, and a verify button that answers.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export async function firstdayTest({ ctx, base, root, tmp, token, test, assert }) {
  const dir = path.join(tmp, 'firstday');
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('python3', [path.join(root, 'tests/browser/firstday_files.py'), path.join(root, 'data'), dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(base);
  await page.fill('#token', token);
  await page.dispatchEvent('#token', 'change');
  await page.waitForFunction(() => [...document.querySelectorAll('#scenario option')].some((o) => o.value === 'cpna75_30kmh'), null, { timeout: 10000 });

  await test('first day: the chosen scenario\'s lanes before Preview; the upload takes every recording; signed in once', async () => {
    await page.selectOption('#scenario', 'cpna75_30kmh');
    await page.waitForFunction(() => window.__scil.map.lines.length > 0 && !window.__scil.L.preview, null, { timeout: 10000 });
    const u = await page.evaluate(() => ({ accept: document.querySelector('#upload').accept, label: document.querySelector('#upload').closest('label').textContent,
      who: document.querySelector('#whoami').textContent }));
    for (const ext of ['.csv', '.mf4', '.vbo', '.mcap', '.adma']) assert(u.accept.includes(ext), `accept '${u.accept}' lacks ${ext}`);
    assert(/recording/.test(u.label), `upload label '${u.label}'`);
    assert(/^signed in: \w+/.test(u.who) && !/^signed in: (\w+) \(\1\)$/.test(u.who), `whoami '${u.who}'`);
  });

  // Uploads `file` (mapping the speed column when the service asks), runs it to its end as fast
  // as the pace allows, and gives the run's id and the replay's.
  async function uploadAndRun(file, mapSpeed = null) {
    await page.fill('#speed', '20');
    const before = await page.evaluate(() => window.__scil.L.runId);
    await page.setInputFiles('#upload', path.join(dir, file));
    if (mapSpeed) {
      await page.waitForSelector('#colmap:not([hidden]) select[data-field=speed]', { timeout: 10000 });
      const why = await page.textContent('#colmap .why');
      assert(/speed \(a column named Velocity, Speed/.test(why) && /column=FIELD=NAME/.test(why), `missing-column message '${why}'`);
      await page.selectOption('#colmap select[data-field=speed]', mapSpeed);
      await page.fill('#colmap input[data-unit=speed]', 'kmh');
      await page.click('#colmap-go');
    }
    await page.waitForFunction((b) => window.__scil.L.runId != null && window.__scil.L.runId !== b && window.__scil.L.state === 'created', before, { timeout: 15000 })
      .catch(async () => { throw new Error(`${file}: no run (${await page.textContent('#toast')})`); });
    const id = await page.evaluate(() => window.__scil.L.runId);
    const replay = await page.$eval('#replay', (s) => s.value);
    await page.waitForSelector('#btn-arm:not([disabled])', { timeout: 10000 });
    await page.click('#btn-arm');
    await page.waitForSelector('#btn-start:not([disabled])', { timeout: 10000 });
    await page.click('#btn-start');
    await page.waitForSelector('#run-state[data-state=finished]', { timeout: 30000 });
    return { id, replay };
  }

  const runs = {};
  await test('first day: a CSV with an unusual speed header runs with the mapping given in the page', async () => {
    runs.csv = await uploadAndRun('cpna75_odd_header.csv', 'VelocityKmh');
  });
  await test('first day: an MF4 and a VBOX upload from the file control, run, and are listed with their kind', async () => {
    runs.mf4 = await uploadAndRun('cpna75.mf4');
    runs.vbo = await uploadAndRun('cpna75.vbo');
    const list = await (await page.request.get(`${base}api/v1/replays`)).json();
    const kind = (id) => (list.find((r) => r.id === id) || {}).kind;
    assert(kind(runs.mf4.replay) === 'mdf4' && kind(runs.vbo.replay) === 'vbo' && kind(runs.csv.replay) === 'csv',
      `kinds ${kind(runs.csv.replay)}, ${kind(runs.mf4.replay)}, ${kind(runs.vbo.replay)}`);
    const opts = await page.$$eval('#replay option', (os) => os.map((o) => o.textContent));
    assert(opts.some((o) => /cpna75\.mf4 · MDF4/.test(o)) && opts.some((o) => /cpna75\.vbo · VBO/.test(o)), `replay options ${opts}`);
  });
  await test('first day: the same file again is recognised, not stored twice', async () => {
    await page.setInputFiles('#upload', path.join(dir, 'cpna75.mf4'));
    await page.waitForFunction(() => /uploaded before/.test(document.querySelector('#toast').textContent), null, { timeout: 10000 });
    const list = await (await page.request.get(`${base}api/v1/replays`)).json();
    assert(list.filter((r) => r.name === 'cpna75.mf4').length === 1, `${list.filter((r) => r.name === 'cpna75.mf4').length} replays named cpna75.mf4`);
    await page.click('#estop');   // the run made on it is not needed
  });

  await test('first day: the finished run shows its verdict, checks and values, and leads onward', async () => {
    const id = runs.mf4.id;
    await page.click('[data-tab=results]');
    await page.click('#refresh-runs');
    await page.waitForSelector(`#runs tr[data-id="${id}"]`, { timeout: 10000 });
    await page.click(`#runs tr[data-id="${id}"] td:nth-child(2)`);
    await page.waitForFunction((rid) => document.querySelector('#detail-id').textContent === rid
      && document.querySelector('#verify-run')?.dataset.run === rid, id, { timeout: 10000 });
    const d = await page.evaluate(() => ({ verdict: document.querySelector('#detail-verdict').textContent, checks: document.querySelectorAll('#detail-checks tbody tr').length,
      links: [...document.querySelectorAll('#run-links a.dl')].map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('download')]),
      cards: Object.fromEntries([...document.querySelectorAll('#detail .kv > div')].map((x) => [x.querySelector('.k').textContent, x.querySelector('.v').textContent])) }));
    assert(/VALID|INVALID/.test(d.verdict) && d.checks >= 6, `verdict '${d.verdict}', ${d.checks} checks`);
    assert(/^\d+\.\d\d$/.test(d.cards['impact speed']) && /^-?\d+\.\d\d$/.test(d.cards['speed reduction']), `impact cards ${d.cards['impact speed']} / ${d.cards['speed reduction']}`);
    const labels = d.links.map((l) => l[0]).join(' ');
    for (const l of ['report', 'telemetry.parquet', 'MCAP', 'MF4', 'OpenSCENARIO', 'record.json']) assert(labels.includes(l), `links: ${labels}`);
    for (const [label, href, name] of d.links) {
      assert(name, `${label}: no download attribute`);
      const r = await page.request.get(new URL(href, base).toString());
      const body = await r.body();
      assert(r.ok() && body.length > 100, `${label}: ${r.status()}, ${body.length} bytes`);
    }
    await page.click('#verify-run');
    await page.waitForFunction(() => /intact/.test(document.querySelector('#verify-answer').textContent), null, { timeout: 10000 });
    const ans = await page.textContent('#verify-answer');
    assert(/^intact: \d+ events/.test(ans), `verify answer '${ans}'`);
  });

  await test('first day: no page errors', async () => {
    assert(errors.length === 0, errors.slice(0, 3).join(' | '));
  });
  await page.close();
}
