// Browser test of operator safety on two tracks (called by run.mjs): its own `scil serve` with
// `tracks = ["north", "south"]`, two runs at once, three pages.
//   - a page following track north takes north's run and never switches: south's run shows as
//     a notice; the active-runs strip lists both;
//   - ABORT on the page showing south's run leaves north's running;
//   - a page opened mid-run shows the trigger at the same t as the first page and the trace
//     from the start.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export async function tracksTest({ ctx, scil, tmp, port, token, test, assert, sleep, waitHttp, children }) {
  const dir = path.join(tmp, 'tracks');
  fs.mkdirSync(dir, { recursive: true });
  const cfg = path.join(dir, 'scil.toml');
  fs.writeFileSync(cfg, 'tracks = ["north", "south"]\n');
  const log = fs.openSync(path.join(dir, 'server.log'), 'w');
  const env = { ...process.env, SCIL_OPERATOR_TOKEN: token, SCIL_BIND: `127.0.0.1:${port}`,
    DATABASE_URL: `sqlite://${path.join(dir, 'scil.db')}?mode=rwc`, SCIL_STORAGE_DIR: path.join(dir, 'storage'), RUST_LOG: 'warn' };
  const child = spawn(scil, ['serve', '--config', cfg], { stdio: ['ignore', log, log], env });
  children.push(child);
  const base = `http://127.0.0.1:${port}/`;
  await waitHttp(`${base}api/v1/scenarios`, 20000);
  const api = async (method, p, body) => {
    const r = await fetch(`${base}api/v1${p}`, { method, headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const t = await r.text();
    if (!r.ok) throw new Error(`${method} ${p}: ${r.status} ${t}`);
    return t ? JSON.parse(t) : null;
  };
  const open = async (q) => {
    const p = await ctx.newPage();
    await p.goto(`${base}${q}`);
    await p.waitForSelector('#conn[data-state=open]', { timeout: 10000 });
    await p.fill('#token', token);
    await p.dispatchEvent('#token', 'change');
    return p;
  };
  // Below real time (the 26 s replay lasts 35 s): both runs are still running when south is
  // aborted, after north's trigger and the mid-run page, also on a loaded machine.
  const run = (track) => api('POST', '/runs', { scenario_id: 'cpna75_30kmh', replay: 'cpna75_30kmh', speed: 0.75, start: true, track });
  const shown = (p) => p.evaluate(() => window.__scil.L.runId);
  const trigT = (p) => p.evaluate(() => (window.__scil.L.instants.find((i) => i.kind === 'trigger') || {}).t ?? null);

  const first = await open('?track=north');
  const north = (await run('north')).id;
  await first.waitForFunction((id) => window.__scil.L.runId === id && window.__scil.L.state === 'running', north, { timeout: 10000 });
  const south = (await run('south')).id;

  await test('two tracks: the page stays on its run, the other run is a notice and in the strip', async () => {
    await first.waitForSelector('#notice:not([hidden])', { timeout: 5000 });
    const note = await first.textContent('#notice-text');
    assert(note.includes(south) && note.includes('south'), `notice '${note}'`);
    await first.waitForFunction(() => document.querySelectorAll('#strip .chip').length === 2, null, { timeout: 5000 });
    const chips = await first.$$eval('#strip .chip', (cs) => cs.map((c) => `${c.dataset.track}:${c.dataset.run}`));
    assert(chips.includes(`north:${north}`) && chips.includes(`south:${south}`), `strip ${chips}`);
    assert(await shown(first) === north, `first page switched to ${await shown(first)}`);
  });

  const second = await open(`?run=${south}`);
  await second.waitForFunction(() => window.__scil.L.state === 'running', null, { timeout: 10000 });
  await first.waitForFunction(() => window.__scil.L.instants.some((i) => i.kind === 'trigger'), null, { timeout: 30000 });

  await test('a page opened mid-run: the trigger at the same t, the trace from the start', async () => {
    const third = await open('?track=north');
    await third.waitForFunction((id) => window.__scil.L.runId === id && window.__scil.L.instants.some((i) => i.kind === 'trigger'), north, { timeout: 10000 });
    const [a, b] = [await trigT(first), await trigT(third)];
    assert(a != null && Math.abs(a - b) < 1e-9, `trigger at ${a} s on the first page, ${b} s on the late one`);
    const s1 = await first.evaluate(() => ({ t0: window.__scil.L.t0, x0: window.__scil.L.speed[0][0], n: window.__scil.L.speed[0].length, trail: window.__scil.L.trail.slice(0, 2) }));
    const s3 = await third.evaluate(() => ({ t0: window.__scil.L.t0, x0: window.__scil.L.speed[0][0], n: window.__scil.L.speed[0].length, trail: window.__scil.L.trail.slice(0, 2) }));
    assert(s1.t0 === s3.t0 && s3.x0 === 0, `time axes: first t0 ${s1.t0}, late t0 ${s3.t0} starting at ${s3.x0}`);
    assert(s3.trail[0] === s1.trail[0] && s3.trail[1] === s1.trail[1], `trace starts at ${s3.trail} vs ${s1.trail}`);
    assert(s3.n >= 0.9 * s1.n, `late page has ${s3.n} speed points, first ${s1.n}`);
    await third.close();
  });

  await test('ABORT on one track leaves the other running; no page switched', async () => {
    assert(await second.isVisible('#estop'), 'no ABORT on the south page');
    await second.click('#estop');
    await second.waitForFunction(() => window.__scil.L.state === 'aborted', null, { timeout: 10000 });
    // the page shows the engine's abort at once; the stored state follows once the data is committed
    let st = '';
    for (let i = 0; i < 100 && (st = (await api('GET', `/runs/${south}`)).state) === 'running'; i++) await sleep(100);
    assert(st === 'aborted', `south is ${st}`);
    const n = await api('GET', `/runs/${north}`);
    assert(n.state === 'running', `north is ${n.state}`);
    assert(await shown(first) === north && await first.evaluate(() => window.__scil.L.state) === 'running', 'first page left north');
    assert(await shown(second) === south, 'second page switched');
  });
  await api('POST', '/runs/abort-all', {});
  await test('a finished run opened later (Results → live view): the same trigger t, from the store', async () => {
    for (let i = 0; i < 100 && (await api('GET', `/runs/${north}`)).state === 'running'; i++) await sleep(100);
    const t1 = await trigT(first);
    const again = await open(`?run=${north}`);
    await again.waitForFunction(() => window.__scil.L.instants.some((i) => i.kind === 'trigger'), null, { timeout: 10000 });
    const t4 = await trigT(again);
    assert(Math.abs(t1 - t4) < 1e-9, `trigger at ${t1} s live, ${t4} s from the store`);
    assert(await again.evaluate(() => window.__scil.L.speed[0][0] === 0 && window.__scil.L.trail.length > 10), 'no trace from the start');
    await again.close();
  });
  await test('a page without a run in its URL: its remembered track, else nothing armed — never another track\'s run', async () => {
    // only south has an active run; the default track (north) has none
    const south2 = (await api('POST', '/runs', { scenario_id: 'cpna75_30kmh', replay: 'cpna75_30kmh', speed: 1, track: 'south' })).id;
    const p = await ctx.newPage();
    await p.goto(base);
    await p.evaluate(() => localStorage.removeItem('scil.track'));
    await p.reload();
    await p.waitForSelector('#conn[data-state=open]', { timeout: 10000 });
    await sleep(1200);
    const fresh = await p.evaluate(() => ({ run: window.__scil.L.runId, track: document.querySelector('#track').value, abort: !document.querySelector('#estop').hidden }));
    // (it may show north's latest run, ended: its own track, nothing to abort)
    assert(fresh.run !== south2 && !fresh.abort && fresh.track === 'north', `fresh page: ${JSON.stringify(fresh)}`);
    // the operator picks south: remembered for this browser, shown again after a reload
    await p.selectOption('#track', 'south');
    await p.waitForFunction((id) => window.__scil.L.runId === id, south2, { timeout: 5000 });
    await p.reload();
    await p.waitForFunction((id) => window.__scil.L.runId === id && !document.querySelector('#estop').hidden, south2, { timeout: 10000 });
    assert(await p.inputValue('#track') === 'south', 'track picker not on the remembered track');
    await p.close();
    await api('POST', `/runs/${south2}/abort`, {});
  });
  await first.close(); await second.close();
}
