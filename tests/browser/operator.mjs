// Browser test of what an operator meets at a live test (called by run.mjs on its one service
// and one browser), each by measurement:
//   - messages never lie over ABORT / ABORT ALL (boxes, and what a click at ABORT's centre hits);
//   - ABORT from a page with a stale state aborts; Arm on a stale page refreshes and says so;
//     a double click arms once; New run twice quickly makes one run;
//   - objects on the ground: Back to start for an ended run, ABORT shown while they drive back;
//   - events in time order, each with its time; every number with its unit;
//   - the HUD of a page loaded from the store shows the lane; TTC plot scale and off-scale mark;
//     plot labels never overlap; validity says why it is grey; the active-runs strip follows
//     the page's own state at once;
//   - preview: every actor drawn at a readable scale, zoom about the plan, live panels marked;
//   - nothing overflows its panel at 1400×900 and 1920×1080 (every tab), screenshots of both;
//   - a clear message for a bad workbook, dark sweep plots, a favicon.
import fs from 'node:fs';
import path from 'node:path';

export const SIZES = [[1400, 900], [1920, 1080]];

/** In the page: what sticks out of its panel, or hides behind a scroll, or is cut in a picker. */
export function overflowReport() {
  const out = [];
  const vis = (el) => {
    const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none';
  };
  const name = (el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''}`;
  const boxes = [...document.querySelectorAll('.view:not([hidden]) .panel, #topbar, #strip')];
  for (const box of boxes) {
    if (!vis(box)) continue;
    const br = box.getBoundingClientRect();
    if (br.right > innerWidth + 1) out.push(`${name(box)} ends at ${br.right.toFixed(0)} px, window ${innerWidth}`);
    for (const el of [box, ...box.querySelectorAll('*')]) {
      if (!vis(el) || el.closest('svg') && el.tagName.toLowerCase() !== 'svg') continue;
      const r = el.getBoundingClientRect(), cs = getComputedStyle(el);
      if (r.right > br.right + 1 || r.left < br.left - 1) out.push(`${name(el)} [${r.left.toFixed(0)}–${r.right.toFixed(0)}] outside ${name(box)} [${br.left.toFixed(0)}–${br.right.toFixed(0)}]`);
      // content behind a horizontal scroll or cut off is hidden from the operator, unless it
      // is a one-line text that ends in an ellipsis and carries its full text as a tooltip
      // (a typed value longer than its field scrolls inside it: not layout)
      const cut = el.scrollWidth > el.clientWidth + 1 && ['auto', 'scroll', 'hidden', 'clip'].includes(cs.overflowX) && !['INPUT', 'TEXTAREA'].includes(el.tagName);
      if (cut && !(cs.textOverflow === 'ellipsis' && el.title)) out.push(`${name(el)} hides ${el.scrollWidth - el.clientWidth} px of its ${el.scrollWidth} px`);
      if (el.tagName === 'SELECT' && el.selectedIndex >= 0) {
        const c = document.createElement('canvas').getContext('2d');
        c.font = `${cs.fontSize} ${cs.fontFamily}`;
        const text = el.options[el.selectedIndex].text;
        const room = el.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 14;
        if (c.measureText(text).width > room + 1) out.push(`${name(el)} shows "${text}" in ${room.toFixed(0)} px`);
      }
    }
  }
  return out;
}

/** In the page: boxes of the messages and of every abort control, and what a click at each
 * abort control's centre reaches. */
export function abortCover() {
  const box = (el) => { const r = el.getBoundingClientRect(); return { l: r.left, r: r.right, t: r.top, b: r.bottom, w: r.width }; };
  const aborts = [...document.querySelectorAll('#estop, #abort-all, #strip .chip button.abort')].filter((e) => e.getBoundingClientRect().width > 0);
  const msgs = [...document.querySelectorAll('#toast, #notice, #refusal')].filter((e) => e.getBoundingClientRect().width > 0 && !e.hidden);
  const hits = [];
  for (const a of aborts) {
    const A = box(a);
    for (const m of msgs) {
      const M = box(m);
      if (M.l < A.r && A.l < M.r && M.t < A.b && A.t < M.b) hits.push(`${m.id} over ${a.id || 'chip ABORT'}`);
    }
    const at = document.elementFromPoint((A.l + A.r) / 2, (A.t + A.b) / 2);
    if (at !== a && !a.contains(at)) hits.push(`a click at ${a.id || 'chip ABORT'} reaches ${at ? at.id || at.tagName : 'nothing'}`);
  }
  return { aborts: aborts.length, messages: msgs.map((m) => m.textContent.slice(0, 60)), hits };
}

/** In the page: numbers shown without their unit, in the HUD, tables, events and run form. */
export function unitReport() {
  const bad = [];
  const NUM = /(^|[\s=(,])(-?\d+(?:\.\d+)?)(?=$|[\s,)])/g;
  const UNIT = /^\s?(s|ms|m|km\/h|m\/s|m\/s²|°|°\/s|Hz|%)(\b|$|\s|,|\))/;
  const check = (where, text) => {
    for (const m of text.matchAll(NUM)) {
      const rest = text.slice(m.index + m[0].length);
      if (!UNIT.test(rest)) bad.push(`${where}: "${m[2]}" in "${text.trim().slice(0, 80)}"`);
    }
  };
  // road and lane are names, not quantities
  for (const el of document.querySelectorAll('#hud > div > span')) if (el.textContent !== '—') check(`HUD ${el.id}`, el.textContent.replace(/^road \S+ lane -?\d+/, ''));
  for (const el of document.querySelectorAll('#events .ev')) {
    check(`event ${el.dataset.event} time`, el.querySelector('.t').dataset.wall ? '' : el.querySelector('.t').textContent);
    check(`event ${el.dataset.event}`, el.querySelector('.d').textContent.replace(/\b\S*\d\S*[_-]\S*/g, ''));
  }
  // every numeric column of the live tables names its unit (a count of errors needs none)
  for (const th of document.querySelectorAll('#carriers th, #health th')) {
    const t = th.textContent;
    if (/TTC|v\b|speed/.test(t) && !/\[[^\]]+\]/.test(t)) bad.push(`header "${t}" without [unit]`);
  }
  for (const td of document.querySelectorAll('#health td.num:nth-child(2), #health td.num:nth-child(3)')) if (/\d/.test(td.textContent)) check('sources', td.textContent);
  const pace = document.querySelector('#speed').closest('label').textContent;
  if (!/× real time/.test(pace)) bad.push(`pace field "${pace}"`);
  for (const el of document.querySelectorAll('#strip .chip .muted')) if (/\d/.test(el.textContent)) check('strip', el.textContent.replace(/^t=/, ''));
  return bad;
}

export async function operatorTest({ ctx, base, root, token, test, assert, sleep, api, finishedRun, pageErrors }) {
  const shots = path.join(root, 'target', 'browser');
  fs.mkdirSync(shots, { recursive: true });
  const page = await ctx.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  const open = async (q = '') => {
    await page.goto(`${base}${q}`);
    await page.waitForSelector('#conn[data-state=open]', { timeout: 10000 });
    if (!(await page.inputValue('#token'))) { await page.fill('#token', token); await page.dispatchEvent('#token', 'change'); }
  };
  const L = (expr) => page.evaluate(expr);
  const newRun = async () => (await api('POST', '/runs', { scenario_id: 'cpna75_30kmh', replay: 'cpna75_30kmh', speed: 1 })).id;
  const stale = (state) => page.evaluate((s) => window.__scil.onMessage({ type: 'state', state: s }), state);
  await page.setViewportSize({ width: 1400, height: 900 });

  await test('ABORT from a page whose state is stale aborts the run', async () => {
    const id = await newRun();
    await open(`?run=${id}`);
    await page.waitForSelector('#run-state[data-state=created]', { timeout: 10000 });
    await api('POST', `/runs/${id}/arm`, {});
    await page.waitForSelector('#run-state[data-state=armed]', { timeout: 10000 });
    // the page misses the change: it shows `created` while the run is armed
    await stale('created');
    assert(await L(() => window.__scil.L.state) === 'created', 'page state not stale');
    await page.click('#estop');
    let st = '';
    for (let i = 0; i < 50 && (st = (await api('GET', `/runs/${id}`)).state) !== 'aborted'; i++) await sleep(100);
    assert(st === 'aborted', `run is ${st} after ABORT from a stale page`);
    await page.waitForSelector('#run-state[data-state=aborted]', { timeout: 5000 });
    assert(!(await page.isVisible('#estop')), 'ABORT still shown for an aborted run');
  });

  await test('Arm on a stale page: the page refreshes its state and says what happened', async () => {
    const id = await newRun();
    await open(`?run=${id}`);
    await page.waitForSelector('#run-state[data-state=created]', { timeout: 10000 });
    await api('POST', `/runs/${id}/arm`, {});
    await page.waitForSelector('#run-state[data-state=armed]', { timeout: 10000 });
    await stale('created');
    await page.waitForSelector('#btn-arm:not([disabled])', { timeout: 2000 });
    await page.click('#btn-arm');
    await page.waitForSelector('#run-state[data-state=armed]', { timeout: 5000 });
    const msg = await page.textContent('#toast');
    assert(/is armed, not created/.test(msg) && /page updated/.test(msg), `message '${msg}'`);
    assert(await page.isDisabled('#btn-arm') && !(await page.isDisabled('#btn-start')), 'controls not following the refreshed state');
    await api('POST', `/runs/${id}/abort`, {});
  });

  await test('objects on the ground: Back to start for an ended run, ABORT while they drive back', async () => {
    // The service's answers for a finished run with two objects (the stock objects of a ground
    // run are not part of this test): away from their starts, then driving back.
    let phase = 'away', returns = 0;
    const objects = () => [['robot', 'vut'], ['ped', 'dummy']].map(([name, drives]) => ({
      name, drives, state: phase === 'returning' ? 'returning' : 'disarmed',
      pose: { x: 10, y: 2, heading_deg: 90 }, start: { x: 0, y: 0, heading_deg: 90 }, at_start: false }));
    const runUrl = new RegExp(`/api/v1/runs/${finishedRun}$`);
    await page.route(runUrl, async (route) => {
      if (route.request().method() !== 'GET') return route.continue();
      const res = await route.fetch();
      const body = await res.json();
      return route.fulfill({ response: res, json: { ...body, objects: objects() } });
    });
    const actUrl = new RegExp(`/api/v1/runs/${finishedRun}/(return|abort)$`);
    await page.route(actUrl, (route) => {
      const ret = route.request().url().endsWith('/return');
      if (ret) { returns++; phase = 'returning'; } else phase = 'away';
      return route.fulfill({ status: ret ? 202 : 200, json: ret ? { run_id: finishedRun } : { id: finishedRun, state: 'finished' } });
    });
    try {
      await open(`?run=${finishedRun}`);
      await page.waitForSelector('#btn-return:visible:not([disabled])', { timeout: 5000 });
      assert(!(await page.isVisible('#estop')), 'ABORT shown for a finished run before any drive back');
      await page.click('#btn-return');
      await page.waitForSelector('#estop:visible', { timeout: 3000 });
      assert(returns === 1, `${returns} return requests`);
      assert(await page.isDisabled('#btn-return'), 'Back to start enabled while the objects drive back');
      const c = await L(abortCover);
      assert(c.hits.length === 0, `ABORT covered while the objects drive back: ${c.hits.join('; ')}`);
      await page.click('#estop');
      await page.waitForSelector('#estop', { state: 'hidden', timeout: 3000 });
    } finally {
      await page.unroute(runUrl);
      await page.unroute(actUrl);
    }
  });

  await test('messages never cover ABORT or ABORT ALL (both sizes); a click at ABORT reaches it', async () => {
    const id = await newRun();
    await open(`?run=${id}`);
    await page.waitForSelector('#estop:visible', { timeout: 10000 });
    for (const [w, h] of SIZES) {
      await page.setViewportSize({ width: w, height: h });
      // a success message, then a long error (a refused start of a created run)
      await page.click('#btn-preview');
      await page.waitForFunction(() => /preview of/.test(document.querySelector('#toast').textContent), null, { timeout: 5000 });
      let c = await L(abortCover);
      assert(c.aborts >= 2 && c.hits.length === 0, `${w}×${h} success message: ${c.hits.join('; ') || `${c.aborts} abort controls`}`);
      await page.click('#end-preview');
      // the page believes the run is armed: its Start is refused (409), a red message
      await stale('armed');
      await page.click('#btn-start');
      await page.waitForFunction(() => document.querySelector('#toast').className === 'err', null, { timeout: 5000 });
      c = await L(abortCover);
      assert(c.hits.length === 0, `${w}×${h} error message: ${c.hits.join('; ')}`);
    }
    // and the click under the message goes through
    await page.click('#estop');
    await page.waitForSelector('#run-state[data-state=aborted]', { timeout: 5000 });
    await page.setViewportSize({ width: 1400, height: 900 });
  });

  await test('double click on Arm arms once, without an error; New run twice quickly makes one run', async () => {
    await open('');
    await page.waitForFunction(() => [...document.querySelectorAll('#scenario option')].some((o) => o.value === 'cpna75_30kmh'), null, { timeout: 10000 });
    await page.selectOption('#scenario', 'cpna75_30kmh');
    await page.waitForFunction(() => [...document.querySelectorAll('#replay option')].some((o) => o.value === 'cpna75_30kmh'), null, { timeout: 5000 });
    await page.selectOption('#replay', 'cpna75_30kmh');
    const before = (await api('GET', '/runs?active=true')).length;
    await page.dblclick('#btn-create');
    await page.waitForSelector('#run-state[data-state=created]', { timeout: 10000 });
    await sleep(300);
    const after = (await api('GET', '/runs?active=true')).length;
    assert(after - before === 1, `${after - before} runs made by a double click on New run`);
    // the strip follows the page's own state at once (no poll lag)
    await page.waitForSelector('#btn-arm:not([disabled])');
    await page.dblclick('#btn-arm');
    const t0 = Date.now();
    await page.waitForFunction(() => document.querySelector('#strip .chip.shown')?.dataset.state === 'armed', null, { timeout: 3000 });
    const lag = Date.now() - t0;
    await page.waitForSelector('#run-state[data-state=armed]', { timeout: 5000 });
    await sleep(300);
    const cls = await page.getAttribute('#toast', 'class');
    assert(cls !== 'err', `error after a double click: ${await page.textContent('#toast')}`);
    assert(lag < 400, `strip showed armed ${lag} ms after the page`);
    await page.click('#estop');
  });

  await test('a page loaded from the store: lane in the HUD, events in order, no stale state row on top', async () => {
    await open(`?run=${finishedRun}`);
    await page.waitForFunction(() => window.__scil.L.instants.some((i) => i.kind === 'impact'), null, { timeout: 10000 });
    await page.waitForFunction(() => /^road /.test(document.querySelector('#hud-lane').textContent), null, { timeout: 5000 })
      .catch(async () => { throw new Error(`lane '${await page.textContent('#hud-lane')}'`); });
    const lane = await page.textContent('#hud-lane');
    assert(/^road \S+ lane -?\d+ s=\d+\.\d m t=-?\d+\.\d\d m$/.test(lane), `lane '${lane}'`);
    const top = await page.$$eval('#events .ev', (es) => es.slice(0, 3).map((e) => e.dataset.event));
    assert(!top.includes('state'), `top events ${top}`);
    const bad = await L(unitReport);
    assert(bad.length === 0, bad.slice(0, 4).join(' | '));
  });

  await test('the bundled scenario is judged: the stored run shows its verdict on every channel', async () => {
    await page.waitForSelector('#validity-lamps .vl-verdict', { timeout: 5000 });
    const v = await page.evaluate(() => ({ verdict: document.querySelector('#validity-lamps .vl-verdict').textContent,
      why: document.querySelector('#validity-lamps .vl-why')?.textContent ?? '', lamps: document.querySelectorAll('#validity-lamps .vl').length }));
    assert(/^(VALID|INVALID)$/.test(v.verdict) && !v.why && v.lamps >= 6, `validity ${JSON.stringify(v)}`);
  });

  await test('TTC plot: scaled to a slow run, off-scale values marked; plot labels never overlap', async () => {
    const r = await page.evaluate(() => {
      const { L, onMessage, plots } = window.__scil;
      const t0 = L.t0 ?? 0, out = {};
      const boxes = plots.ttc.labelBoxes || [];
      out.overlap = boxes.some((a, i) => boxes.some((b, j) => j > i && a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1));
      out.labels = boxes.map((b) => b.text);
      return out;
    });
    assert(r.labels.includes('trigger') && r.labels.includes('impact'), `labels ${r.labels}`);
    assert(!r.overlap, `plot labels overlap: ${r.labels}`);
    // a slow run: TTC 45 s … 1 s
    const slow = await page.evaluate(async () => {
      const { L, onMessage, plots } = window.__scil;
      const t0 = L.t0 ?? 0, last = L.ttc[0].length ? L.ttc[0][L.ttc[0].length - 1] : 0;
      L.ttc = [[], []];
      for (let i = 0; i < 45; i++) onMessage({ type: 'ttc', target: 'dummy', t: t0 + last + 1 + i, ttc_s: 45 - i, threshold_s: 3.9 });
      await new Promise((res) => setTimeout(res, 600));
      const top = plots.ttc.u.scales.y.max, off1 = plots.ttc.offScale;
      onMessage({ type: 'ttc', target: 'dummy', t: t0 + last + 50, ttc_s: 250, threshold_s: 3.9 });
      await new Promise((res) => setTimeout(res, 600));
      return { top, off1, off2: plots.ttc.offScale, top2: plots.ttc.u.scales.y.max, labels: (plots.ttc.labelBoxes || []).map((b) => b.text) };
    });
    assert(slow.top >= 45 && !slow.off1, `slow run: y axis to ${slow.top} s, off scale ${JSON.stringify(slow.off1)}`);
    assert(slow.off2 && slow.off2.n >= 1 && slow.labels.some((l) => /above \d+ s/.test(l) && /250\.0 s/.test(l)), `off-scale not marked: ${JSON.stringify(slow)}`);
  });

  await test('preview: every actor at a readable scale, zoom about the plan, live panels marked', async () => {
    await page.selectOption('#scenario', 'cpna75_30kmh');
    await page.click('#btn-preview');
    await page.waitForFunction(() => window.__scil.L.preview === 'cpna75_30kmh' && (window.__scil.map.planMarks || []).length >= 2, null, { timeout: 10000 });
    await page.waitForTimeout(300);
    const p = await page.evaluate(() => {
      const { map, plots } = window.__scil;
      const c = map.canvas, g = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const count = (r, gg, b) => { let n = 0; for (let i = 0; i < g.length; i += 4) if (Math.abs(g[i] - r) < 20 && Math.abs(g[i + 1] - gg) < 20 && Math.abs(g[i + 2] - b) < 20) n++; return n; };
      return { marks: map.planMarks.map((m) => `${m.kind}:${m.label}`), scale: map.scale, blue: count(0x4f, 0xa3, 0xff), yellow: count(0xff, 0xcf, 0x3a), orange: count(0xff, 0x7a, 0x45),
        badges: [...document.querySelectorAll('.preview-mark, #preview-badge')].filter((b) => !b.hidden).length,
        ttc: plots.ttc.u.data[0].length, speed: plots.speed.u.data[0].length, hud: document.querySelector('#hud-v').textContent,
        events: document.querySelector('#events').textContent, validity: document.querySelector('#validity-lamps').textContent };
    });
    assert(p.marks.includes('start:dummy start') && p.marks.includes('conflict:dummy'), `plan marks ${p.marks}`);
    assert(p.blue > 200 && p.yellow > 60 && p.orange > 20, `drawn pixels: VUT ${p.blue}, dummy ${p.yellow}, conflict ${p.orange}`);
    assert(p.scale >= 3, `preview scale ${p.scale.toFixed(2)} px/m`);
    assert(p.badges >= 4 && p.ttc === 0 && p.speed === 0 && p.hud === '—' && /preview/.test(p.events), `live panels during the preview: ${JSON.stringify(p)}`);
    assert(/preview: the lamps light during a run/.test(p.validity), `validity during the preview: ${p.validity}`);
    // pan away, then +: the plan stays where it is on the screen, 1.5× larger
    const box = await page.locator('#map').boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down(); await page.mouse.move(box.x + box.width / 2 - 120, box.y + box.height / 2 + 60, { steps: 4 }); await page.mouse.up();
    const at = () => page.evaluate(() => { const { map, L } = window.__scil; const [x, y] = L.previewFocus; return { x: map.canvas.clientWidth / 2 + (x - map.cx) * map.scale, y: map.canvas.clientHeight / 2 - (y - map.cy) * map.scale, s: map.scale }; });
    const a = await at();
    await page.click('#zoom-in');
    const b = await at();
    assert(Math.abs(a.x - b.x) < 1 && Math.abs(a.y - b.y) < 1 && Math.abs(b.s / a.s - 1.5) < 1e-6, `zoom moved the plan: ${JSON.stringify([a, b])}`);
    for (const [w, h] of SIZES) { await page.setViewportSize({ width: w, height: h }); await page.waitForTimeout(200); await page.screenshot({ path: path.join(shots, `preview-${w}x${h}.png`) }); }
    await page.setViewportSize({ width: 1400, height: 900 });
    await page.click('#end-preview');
    await page.waitForFunction(() => window.__scil.L.preview == null && document.querySelector('#preview-badge').hidden, null, { timeout: 3000 });
  });

  await test('a bad workbook gets a clear message (not a zip error)', async () => {
    await page.click('[data-tab=testday]');
    await page.setInputFiles('#td-file', { name: 'results.xlsx', mimeType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', buffer: Buffer.from('run,ttc\n1,2.5\n') });
    await page.click('#td-upload');
    await page.waitForFunction(() => /workbook/i.test(document.querySelector('#td-status').textContent), null, { timeout: 10000 });
    const msg = await page.textContent('#td-status');
    assert(/not an Excel workbook/.test(msg) && !/zip|EOCD|archive|central directory/i.test(msg), `message '${msg}'`);
  });

  await test('favicon: an icon that loads', async () => {
    const ok = await page.evaluate(() => new Promise((res) => {
      const href = document.querySelector('link[rel=icon]')?.href;
      if (!href || href === 'data:,') return res(false);
      const img = new Image(); img.onload = () => res(img.naturalWidth > 0); img.onerror = () => res(false); img.src = href;
    }));
    assert(ok, 'no favicon');
  });

  await page.close();
}

/** On the page that shows a live run just after its impact: events and units. */
export async function liveChecks({ page, test, assert }) {
  await test('events in time order, each with its time; every number with its unit', async () => {
    const rows = await page.$$eval('#events .ev', (es) => es.map((e) => ({ n: e.dataset.event, t: e.querySelector('.t').dataset.t, wall: !!e.querySelector('.t').dataset.wall, text: e.querySelector('.t').textContent })));
    assert(rows.length > 3 && rows.every((r) => r.text.trim()), `an event without its time: ${JSON.stringify(rows.find((r) => !r.text.trim()))}`);
    const ts = rows.filter((r) => r.t != null).map((r) => Number(r.t));
    assert(ts.every((t, i) => i === 0 || ts[i - 1] >= t), `events not newest first by time: ${ts.slice(0, 8)}`);
    const firstWall = rows.findIndex((r) => r.wall);
    assert(firstWall < 0 || rows.slice(firstWall).every((r) => r.wall), 'an event before the first sample listed above a timed one');
    assert(rows.filter((r) => r.n === 'state').length >= 2, `state rows: ${rows.filter((r) => r.n === 'state').length}`);
    assert(rows.some((r) => r.n === 'state' && r.t != null) || rows.some((r) => r.n === 'state' && r.wall), 'state rows without a time');
    const bad = await page.evaluate(unitReport);
    assert(bad.length === 0, bad.slice(0, 4).join(' | '));
  });
}

/** Layout at both sizes on every tab of `page` (a page that has run, results and a sweep). */
export async function layoutTest({ page, root, test, assert, runId }) {
  const shots = path.join(root, 'target', 'browser');
  fs.mkdirSync(shots, { recursive: true });
  const before = page.viewportSize();
  await test('nothing overflows its panel at 1400×900 and 1920×1080 (every tab); screenshots', async () => {
    const bad = [];
    for (const [w, h] of SIZES) {
      await page.setViewportSize({ width: w, height: h });
      for (const tab of ['live', 'results', 'analysis', 'testday']) {
        await page.click(`[data-tab=${tab}]`);
        if (tab === 'results' && runId) {
          await page.waitForSelector(`#runs tr[data-id="${runId}"]`, { timeout: 10000 });
          await page.click(`#runs tr[data-id="${runId}"] td:nth-child(2)`);
          await page.waitForFunction(() => document.querySelectorAll('#detail .kv > div').length > 3, null, { timeout: 10000 });
        }
        await page.waitForTimeout(350);
        for (const o of await page.evaluate(overflowReport)) bad.push(`${w}×${h} ${tab}: ${o}`);
        await page.screenshot({ path: path.join(shots, `${tab}-${w}x${h}.png`) });
      }
    }
    await page.click('[data-tab=live]');
    if (bad.length) console.log(bad.slice(0, 40).map((b) => `       ${b}`).join('\n'));
    assert(bad.length === 0, `${bad.length} clipped: ${bad.slice(0, 5).join(' | ')}`);
  });
  await test('sweep plots are dark like the page', async () => {
    await page.click('[data-tab=analysis]');
    const lum = await page.evaluate(async () => {
      const fig = document.querySelector('#analysis-plots figure');
      if (!fig) return null;
      const svg = fig.querySelector('svg'), r = svg.getBoundingClientRect();
      const img = new Image();
      img.src = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(new XMLSerializer().serializeToString(svg))}`;
      await img.decode();
      const c = document.createElement('canvas'); c.width = Math.max(1, r.width); c.height = Math.max(1, r.height);
      const ctx = c.getContext('2d');
      ctx.fillStyle = getComputedStyle(fig).backgroundColor; ctx.fillRect(0, 0, c.width, c.height);
      ctx.drawImage(img, 0, 0, c.width, c.height);
      const plain = ctx.getImageData(0, 0, c.width, c.height).data;
      const c2 = document.createElement('canvas'); c2.width = c.width; c2.height = c.height;
      const x2 = c2.getContext('2d'); x2.filter = getComputedStyle(fig).filter; x2.drawImage(c, 0, 0);
      const shown = x2.getImageData(0, 0, c.width, c.height).data;
      const mean = (d) => { let s = 0; for (let i = 0; i < d.length; i += 4) s += 0.2126 * d[i] + 0.7152 * d[i + 1] + 0.0722 * d[i + 2]; return s / (d.length / 4); };
      return { plain: mean(plain), shown: mean(shown) };
    });
    assert(lum, 'no sweep plot');
    assert(lum.shown < 80, `sweep plot mean luminance ${lum.shown.toFixed(0)} (page background ≈ 17; undarkened ${lum.plain.toFixed(0)})`);
    await page.click('[data-tab=live]');
  });
  await test('empty panels are compact before first use', async () => {
    const p = await page.context().newPage();
    await p.setViewportSize({ width: 1400, height: 900 });
    await p.goto(page.url().replace(/[?#].*$/, '') + '#results');
    await p.waitForSelector('#runs tbody tr', { timeout: 10000 });
    // (the detail panel shows the latest run by itself: only the comparison is unused)
    const h = await p.evaluate(() => Object.fromEntries(['#compare-panel'].map((s) => [s, document.querySelector(s).getBoundingClientRect().height])));
    await p.goto(page.url().replace(/[?#].*$/, '') + '#analysis');
    await p.waitForTimeout(300);
    h['#sweep-results'] = await p.evaluate(() => document.querySelector('#sweep-results').getBoundingClientRect().height);
    await p.close();
    const big = Object.entries(h).filter(([, v]) => v > 120);
    assert(big.length === 0, `empty panels: ${big.map(([k, v]) => `${k} ${v.toFixed(0)} px`).join(', ')}`);
  });
  await page.setViewportSize(before);
}
