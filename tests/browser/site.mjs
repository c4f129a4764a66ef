// Browser test of the map upload with a site (called by run.mjs; alone: `--only-site`): the
// dashboard's upload form sends a layout with its origin and heading as POST /maps takes them,
// the service stores it placed, and the map view shows the map with its site. A half-filled
// site is refused in the form, a site the service refuses shows the service's reason.
import path from 'node:path';

export async function siteTest({ ctx, base, root, token, test, assert, shot }) {
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`); });
  await page.goto(base);
  await page.waitForSelector('#conn[data-state=open]', { timeout: 10000 });
  await page.fill('#token', token);
  await page.dispatchEvent('#token', 'change');
  const xodr = path.join(root, 'data/osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr');
  const status = () => page.textContent('#map-status');
  const fill = async (v) => {
    for (const [k, x] of Object.entries(v)) await page.fill(`#map-${k}`, x);
  };

  await test('map upload: a half-filled site is refused in the form', async () => {
    await page.click('#map-upload summary');
    await page.waitForSelector('#map-send', { state: 'visible', timeout: 5000 });
    await page.setInputFiles('#map-file', xodr);
    await fill({ id: 'x_site', lat: '51.4816', lon: '', alt: '', heading: '' });
    await page.click('#map-send');
    const s = await status();
    assert(/a site needs longitude, heading/.test(s), `status '${s}'`);
    assert(await page.$eval('#map-status', (e) => e.classList.contains('bad')), 'not shown as an error');
  });

  await test("map upload: the service's refusal of a site is shown in its words", async () => {
    await fill({ id: 'x_far', lat: '89', lon: '-1.3108', alt: '', heading: '33.5' });
    await page.click('#map-send');
    await page.waitForFunction(() => /85/.test(document.querySelector('#map-status').textContent), null, { timeout: 10000 })
      .catch(async () => { throw new Error(`status '${await status()}'`); });
    const r = await fetch(`${base}api/v1/maps/x_far`);
    assert(r.status === 404, `refused map stored: ${r.status}`);
  });

  await test('map upload: origin and heading place the layout; the map view shows its site', async () => {
    await fill({ id: 'x_site', lat: '51.4816', lon: '-1.3108', alt: '112.5', heading: '33.5' });
    await page.click('#map-send');
    await page.waitForFunction(() => /stored map x_site/.test(document.querySelector('#map-status').textContent), null, { timeout: 10000 })
      .catch(async () => { throw new Error(`status '${await status()}'`); });
    // What the service stored: the placed map and its site, as the form sent them.
    const m = await (await fetch(`${base}api/v1/maps/x_site`)).json();
    assert(m.site && m.site.lat === 51.4816 && m.site.lon === -1.3108 && m.site.alt === 112.5 && m.site.heading === 33.5,
      `site ${JSON.stringify(m.site)}`);
    assert(/\+proj=tmerc \+lat_0=51\.4816 \+lon_0=-1\.3108/.test(m.geo_reference ?? ''), `geoReference ${m.geo_reference}`);
    // The map view: the uploaded map, its lanes and its site.
    await page.waitForFunction(() => document.querySelector('#map-name').textContent === 'x_site'
      && !document.querySelector('#map-site').hidden, null, { timeout: 10000 })
      .catch(async () => { throw new Error(`map '${await page.textContent('#map-name')}', site '${await page.textContent('#map-site')}'`); });
    const site = await page.textContent('#map-site');
    assert(site === 'site 51.481600, -1.310800 · 112.5 m · +x at 33.5°', `site line '${site}'`);
    await page.waitForFunction(() => window.__scil.map.lines.length >= 3, null, { timeout: 10000 });
    if (shot) await page.screenshot({ path: shot });
  });

  await test('map view: a map without a site shows none', async () => {
    await page.evaluate(() => window.__scil.loadMap('proving_ground'));
    await page.waitForFunction(() => document.querySelector('#map-name').textContent === 'proving_ground', null, { timeout: 10000 });
    await page.waitForTimeout(500);
    assert(await page.$eval('#map-site', (e) => e.hidden), `site shown: '${await page.textContent('#map-site')}'`);
  });

  await test('map upload: no page errors', async () => {
    assert(errors.length === 0, errors.slice(0, 3).join(' | '));
  });
  await page.close();
}
