// REST helpers for /api/v1 and the operator token (kept in sessionStorage: this tab only).

export const API = '/api/v1';
const TOKEN_KEY = 'scil.token';

export function getToken() { return sessionStorage.getItem(TOKEN_KEY) || ''; }
export function setToken(t) {
  if (t) sessionStorage.setItem(TOKEN_KEY, t); else sessionStorage.removeItem(TOKEN_KEY);
}

export class ApiError extends Error {
  /** `detail`: the server's own words, without the status. */
  constructor(status, msg, detail) { super(msg); this.status = status; this.detail = detail ?? msg; }
}

async function request(method, path, { body, form, auth } = {}) {
  const headers = {};
  if (auth || method !== 'GET') {
    const t = getToken();
    if (t) headers.Authorization = `Bearer ${t}`;
  }
  let payload;
  if (form) payload = form;
  else if (body !== undefined) { headers['Content-Type'] = 'application/json'; payload = JSON.stringify(body); }
  const r = await fetch(API + path, { method, headers, body: payload });
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = text; }
  if (!r.ok) {
    // the server's own words: {"error": "conflict", "detail": "cannot start run 'x': it is created"}
    const msg = (data && (data.detail || data.error || data.message)) || (typeof data === 'string' && data) || r.statusText;
    throw new ApiError(r.status, `${r.status}: ${msg}`, msg);
  }
  return data;
}

export const get = (p) => request('GET', p);
// A read that sends the token (e.g. who it signs in).
export const getAuth = (p) => request('GET', p, { auth: true });
export const post = (p, body) => request('POST', p, { body });
export const patch = (p, body) => request('PATCH', p, { body });
export const postForm = (p, form) => request('POST', p, { form });

/** A run object's id, whatever the server calls it. */
export function runId(run) {
  if (run == null) return null;
  if (typeof run !== 'object') return run;
  return run.id ?? run.run_id ?? run.run ?? null;
}

/** Lists come as a bare array or wrapped ({runs:[…]}, {items:[…]}). */
export function asList(data, key) {
  if (Array.isArray(data)) return data;
  if (data && Array.isArray(data[key])) return data[key];
  if (data && Array.isArray(data.items)) return data.items;
  return [];
}
