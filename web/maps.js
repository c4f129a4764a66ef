// Map upload: an OpenDRIVE file, optionally placed at a site (origin latitude, longitude and
// altitude, compass heading of the layout's +x axis) as POST /maps takes them; and the site line
// of the map view (`site` of GET /maps/{id}: where a placed layout's (0, 0) is and where its
// +x axis points).
import { get, postForm } from './api.js';

const $ = (s) => document.querySelector(s);
const fixed = (v, d) => Number(v).toFixed(d);

/** `site 51.481600, -1.310800 · 112.5 m · +x at 33.5°` for a map's `site`; '' without one. */
export function siteText(site) {
  if (!site) return '';
  const alt = site.alt != null ? ` · ${fixed(site.alt, 1)} m` : '';
  return `site ${fixed(site.lat, 6)}, ${fixed(site.lon, 6)}${alt} · +x at ${fixed(site.heading, 1)}°`;
}

/** Shows the site of map `id` beside its name (hidden when it has none); `current()` is the
 * map the view shows by the time the answer comes. */
export async function showSite(id, current) {
  const el = $('#map-site');
  el.hidden = true; el.textContent = ''; el.title = '';
  let m = null;
  try { m = await get(`/maps/${encodeURIComponent(id)}`); } catch { return; } // the map load says why
  if (current() !== id || !m?.site) return;
  el.textContent = siteText(m.site);
  el.title = `geoReference ${m.geo_reference ?? '—'}`;
  el.hidden = false;
}

/** The form as POST /maps takes it, or an Error naming what is missing. Strings as typed
 * ('' = empty); a site needs latitude, longitude and heading, the altitude is optional. */
export function mapForm({ file, id, lat, lon, alt, heading }) {
  if (!file) throw new Error('choose an OpenDRIVE file (.xodr)');
  const fd = new FormData();
  fd.append('file', file, file.name);
  if (id) fd.append('id', id);
  if ([lat, lon, alt, heading].some((v) => v !== '')) {
    const missing = [['latitude', lat], ['longitude', lon], ['heading', heading]].filter(([, v]) => v === '').map(([k]) => k);
    if (missing.length) throw new Error(`a site needs ${missing.join(', ')} (altitude is optional)`);
    fd.append('origin', alt === '' ? `${lat},${lon}` : `${lat},${lon},${alt}`);
    fd.append('heading', heading);
  }
  return fd;
}

/** Wires the upload form; `onStored(map)` after the service stored it. */
export function initMapUpload({ toast, onStored }) {
  const status = (text, bad) => { const s = $('#map-status'); s.textContent = text; s.classList.toggle('bad', !!bad); };
  $('#map-send').addEventListener('click', async () => {
    // A number input reads '' when empty or not a number: say which one is not a number.
    const num = (sel) => { const el = $(sel); if (el.validity.badInput) throw new Error(`${el.name}: not a number`); return el.value.trim(); };
    let fd;
    try {
      fd = mapForm({ file: $('#map-file').files[0], id: $('#map-id').value.trim(), lat: num('#map-lat'), lon: num('#map-lon'),
        alt: num('#map-alt'), heading: num('#map-heading') });
    } catch (e) { status(e.message, true); return; }
    $('#map-send').disabled = true;
    status('uploading…');
    try {
      const m = await postForm('/maps', fd);
      status(`stored map ${m.id}${m.site ? ` · ${siteText(m.site)}` : ''}`);
      toast(`map ${m.id} stored${m.site ? ' (placed at its site)' : ''}`);
      onStored(m);
    } catch (e) {
      status(e.detail ?? e.message, true);
    } finally {
      $('#map-send').disabled = false;
    }
  });
}
