// The map canvas: OpenDRIVE lane lines to scale (GeoJSON in map coordinates), VUT and targets
// with heading and trails. Own pan/zoom (no WebGL). Drawn only when asked (from the app's
// requestAnimationFrame loop), never per message.

const VUT_LEN = 4.6, VUT_WID = 1.855, VUT_REF_TO_FRONT = 2.3;

export class MapView {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext('2d');
    this.lines = [];          // [{type, lane, pts: Float64Array [x0,y0,x1,y1,…]}]
    this.bounds = null;       // {x0,y0,x1,y1}
    this.cx = 0; this.cy = 0; this.scale = 4;   // world centre, px per metre
    this.follow = true;
    this.dirty = true;
    this.onUserMove = () => {};
    this._bindInput();
    new ResizeObserver(() => { this.dirty = true; }).observe(canvas);
  }

  setGeoJSON(gj) {
    this.lines = [];
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (const f of (gj && gj.features) || []) {
      const g = f.geometry; if (!g) continue;
      const parts = g.type === 'LineString' ? [g.coordinates] : g.type === 'MultiLineString' ? g.coordinates
        : g.type === 'Polygon' ? g.coordinates : [];
      const p = f.properties || {};
      for (const part of parts) {
        const pts = new Float64Array(part.length * 2);
        part.forEach((c, i) => {
          pts[2 * i] = c[0]; pts[2 * i + 1] = c[1];
          if (c[0] < x0) x0 = c[0]; if (c[0] > x1) x1 = c[0];
          if (c[1] < y0) y0 = c[1]; if (c[1] > y1) y1 = c[1];
        });
        this.lines.push({ type: String(p.type ?? ''), lane: p.lane ?? p.lane_id, road: p.road ?? p.road_id, pts });
      }
    }
    this.bounds = isFinite(x0) ? { x0, y0, x1, y1 } : null;
    this.fit();
  }

  fit(extra) {
    let b = this.bounds;
    if (extra && extra.length) {
      b = b ? { ...b } : { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
      for (const [x, y] of extra) { b.x0 = Math.min(b.x0, x - 20); b.x1 = Math.max(b.x1, x + 20); b.y0 = Math.min(b.y0, y - 20); b.y1 = Math.max(b.y1, y + 20); }
    }
    if (!b) return;
    const w = this.canvas.clientWidth || 800, h = this.canvas.clientHeight || 600;
    this.cx = (b.x0 + b.x1) / 2; this.cy = (b.y0 + b.y1) / 2;
    this.scale = Math.max(0.05, Math.min(w / Math.max(1, b.x1 - b.x0), h / Math.max(1, b.y1 - b.y0)) * 0.92);
    this.dirty = true;
  }

  /** Fits the view to these points alone (a scenario's plan), not the whole map. */
  fitPoints(pts) {
    if (!pts || !pts.length) return;
    const saved = this.bounds;
    this.bounds = null;
    this.fit(pts);
    this.bounds = saved;
  }

  zoom(f, px, py) {
    const w = this.canvas.clientWidth, h = this.canvas.clientHeight;
    if (px === undefined) { px = w / 2; py = h / 2; }
    const [wx, wy] = this.toWorld(px, py);
    this.scale = Math.min(400, Math.max(0.02, this.scale * f));
    // keep (wx,wy) under the cursor
    this.cx = wx - (px - w / 2) / this.scale;
    this.cy = wy + (py - h / 2) / this.scale;
    this.dirty = true;
  }

  toWorld(px, py) {
    const w = this.canvas.clientWidth, h = this.canvas.clientHeight;
    return [this.cx + (px - w / 2) / this.scale, this.cy - (py - h / 2) / this.scale];
  }

  _bindInput() {
    const c = this.canvas;
    let drag = null;
    c.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = c.getBoundingClientRect();
      const f = Math.exp(-e.deltaY * 0.0015);
      // zooming around the cursor moves the view: only if not following
      if (this.follow) this.zoom(f); else this.zoom(f, e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    c.addEventListener('pointerdown', (e) => { drag = { x: e.clientX, y: e.clientY, cx: this.cx, cy: this.cy }; c.setPointerCapture(e.pointerId); c.style.cursor = 'grabbing'; });
    c.addEventListener('pointermove', (e) => {
      if (!drag) return;
      const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3 && this.follow) { this.follow = false; this.onUserMove(); }
      this.cx = drag.cx - dx / this.scale; this.cy = drag.cy + dy / this.scale; this.dirty = true;
    });
    const end = () => { drag = null; c.style.cursor = 'grab'; };
    c.addEventListener('pointerup', end); c.addEventListener('pointercancel', end);
    c.addEventListener('dblclick', (e) => { const r = c.getBoundingClientRect(); this.zoom(2, e.clientX - r.left, e.clientY - r.top); });
  }

  /** Draws the scene. `st` = {vut, targets: Map, trail: [x,y,…], triggerPoint, plan}. */
  draw(st) {
    const c = this.canvas, dpr = window.devicePixelRatio || 1;
    const w = c.clientWidth, h = c.clientHeight;
    this._w = w; this._h = h; this._placed = [];
    if (c.width !== Math.round(w * dpr) || c.height !== Math.round(h * dpr)) { c.width = Math.round(w * dpr); c.height = Math.round(h * dpr); }
    // objects on the ground: while following, every object and its start pose stay in view
    const objPts = [];
    for (const o of st.objects || []) {
      if (o.pose) objPts.push([o.pose.x, o.pose.y]);
      if (o.start) objPts.push([o.start.x, o.start.y]);
    }
    if (this.follow && objPts.length) {
      this._keepInView(objPts, w, h);
    } else if (this.follow && st.vut) {
      // follow with look-ahead: the VUT sits behind the centre, so what it drives towards
      // (the dummy, the trigger) is on screen well before it is reached
      const v = st.vut, moving = v.speed == null || v.speed > 1;
      const lead = moving ? 0.25 * (Math.abs(Math.cos(v.yaw)) * w + Math.abs(Math.sin(v.yaw)) * h) / this.scale : 0;
      this.cx = v.x + Math.cos(v.yaw) * lead; this.cy = v.y + Math.sin(v.yaw) * lead;
    }
    const ctx = this.ctx;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#0c0e12'; ctx.fillRect(0, 0, w, h);
    const s = this.scale, ox = w / 2 - this.cx * s, oy = h / 2 + this.cy * s;
    const X = (x) => ox + x * s, Y = (y) => oy - y * s;
    this._grid(ctx, w, h, X, Y);

    // lanes
    for (const ln of this.lines) {
      const t = ln.type.toLowerCase(), lane = Number(ln.lane);
      if (lane === 0 || t.includes('center') || t.includes('reference')) { ctx.strokeStyle = '#c9a227'; ctx.setLineDash([6, 6]); ctx.lineWidth = 1.2; }
      else if (t.includes('driving') || t === 'border' || t === '') { ctx.strokeStyle = '#8c94a3'; ctx.setLineDash([]); ctx.lineWidth = 1; }
      else { ctx.strokeStyle = '#4a5160'; ctx.setLineDash([]); ctx.lineWidth = 1; }
      const p = ln.pts;
      ctx.beginPath(); ctx.moveTo(X(p[0]), Y(p[1]));
      for (let i = 2; i < p.length; i += 2) ctx.lineTo(X(p[i]), Y(p[i + 1]));
      ctx.stroke();
    }
    ctx.setLineDash([]);

    // the plan: every actor's planned path (dashed), start points, conflict points, static
    // obstructions — each drawn at least a readable size, whatever the zoom
    if (st.plan) this._plan(ctx, st.plan, X, Y, s);

    // trails
    const trail = (pts, color) => {
      if (pts.length < 4) return;
      ctx.strokeStyle = color; ctx.lineWidth = 2; ctx.globalAlpha = 0.7; ctx.beginPath();
      ctx.moveTo(X(pts[0]), Y(pts[1]));
      for (let i = 2; i < pts.length; i += 2) ctx.lineTo(X(pts[i]), Y(pts[i + 1]));
      ctx.stroke(); ctx.globalAlpha = 1;
    };
    trail(st.trail, '#2f6fb8');
    for (const tg of st.targets.values()) trail(tg.trail, '#a08420');

    // trigger position
    if (st.triggerPoint) {
      const [tx, ty] = st.triggerPoint;
      ctx.strokeStyle = '#ff5cd6'; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.arc(X(tx), Y(ty), 7, 0, 2 * Math.PI); ctx.stroke();
      ctx.fillStyle = '#ff5cd6'; ctx.font = '11px monospace'; this._text(ctx, 'trigger', X(tx) + 9, Y(ty) - 9);
    }

    // targets: circle + heading
    for (const [id, tg] of st.targets) {
      const px = X(tg.x), py = Y(tg.y), r = Math.max(5, 0.35 * s);
      ctx.fillStyle = '#ffcf3a'; ctx.beginPath(); ctx.arc(px, py, r, 0, 2 * Math.PI); ctx.fill();
      this._arrow(ctx, px, py, tg.yaw, Math.max(14, 1.2 * s), '#ffcf3a');
      ctx.fillStyle = '#ffe9a0'; ctx.font = '11px monospace'; this._text(ctx, id, px + r + 4, py + 4);
    }

    // VUT: oriented rectangle (INS reference 2.3 m behind the front), heading arrow
    if (st.vut) {
      const v = st.vut, px = X(v.x), py = Y(v.y);
      ctx.save(); ctx.translate(px, py); ctx.rotate(-v.yaw);
      const L = Math.max(VUT_LEN * s, 14), W = Math.max(VUT_WID * s, 7);
      const front = (VUT_REF_TO_FRONT / VUT_LEN) * L;
      ctx.fillStyle = v.brake ? '#ff4d4f' : '#4fa3ff'; ctx.strokeStyle = '#e8f1ff'; ctx.lineWidth = 1.5;
      ctx.beginPath(); ctx.rect(front - L, -W / 2, L, W); ctx.fill(); ctx.stroke();
      ctx.fillStyle = '#e8f1ff'; ctx.beginPath(); ctx.moveTo(front, 0); ctx.lineTo(front - Math.min(L * 0.3, 10), -W / 2 + 1); ctx.lineTo(front - Math.min(L * 0.3, 10), W / 2 - 1); ctx.closePath(); ctx.fill();
      ctx.restore();
      this._arrow(ctx, px, py, v.yaw, Math.max(26, 6 * s), '#9fd0ff');
      ctx.fillStyle = '#cfe6ff'; ctx.font = '11px monospace'; this._text(ctx, 'VUT', px + 10, py - 12);
    }
    if (this.geofence) this._geofence(ctx, X, Y);
    // objects on the ground (VUT robot, carriers): start pose (hollow square with its heading)
    // and live MONR pose (diamond), labelled with name and state (the label kept inside the
    // map); green when at its start
    const label = (text, x, y, col) => {
      ctx.font = '11px monospace';
      const tw = ctx.measureText(text).width;
      const lx = Math.min(Math.max(x, 4), w - tw - 4), ly = Math.min(Math.max(y, 14), h - 24);
      ctx.fillStyle = 'rgba(12,14,18,.75)'; ctx.fillRect(lx - 2, ly - 11, tw + 4, 14);
      ctx.fillStyle = col; ctx.fillText(text, lx, ly);
    };
    for (const o of st.objects || []) {
      const col = o.at_start ? '#52c41a' : '#c08cff';
      if (o.start) {
        const sx = X(o.start.x), sy = Y(o.start.y), yaw = (90 - o.start.heading_deg) * Math.PI / 180;
        ctx.strokeStyle = col; ctx.lineWidth = 1.5; ctx.strokeRect(sx - 6, sy - 6, 12, 12);
        this._arrow(ctx, sx, sy, yaw, 16, col);
      }
      if (o.pose) {
        const px = X(o.pose.x), py = Y(o.pose.y), yaw = (90 - o.pose.heading_deg) * Math.PI / 180;
        ctx.fillStyle = col; ctx.beginPath();
        ctx.moveTo(px, py - 7); ctx.lineTo(px + 7, py); ctx.lineTo(px, py + 7); ctx.lineTo(px - 7, py); ctx.closePath(); ctx.fill();
        this._arrow(ctx, px, py, yaw, 18, col);
        const stateText = o.state === 'returning' ? 'to its start' : String(o.state ?? '').toUpperCase();
        label(`${o.name} ${stateText}${o.at_start ? ' · at start' : ''}`, px + 10, py + 14, col);
      }
    }
    // whatever is off screen: an arrow on the edge towards it, with its distance from the VUT
    const off = [...st.targets].map(([id, tg]) => [id, tg.x, tg.y, '#ffcf3a']);
    if (st.vut) off.push(['VUT', st.vut.x, st.vut.y, '#4fa3ff']);
    for (const o of st.objects || []) if (o.pose) off.push([o.name, o.pose.x, o.pose.y, '#c08cff']);
    if (st.triggerPoint) off.push(['trigger', st.triggerPoint[0], st.triggerPoint[1], '#ff5cd6']);
    for (const [id, x, y, color] of off) this._offscreen(ctx, w, h, X(x), Y(y), id, st.vut && id !== 'VUT' ? Math.hypot(x - st.vut.x, y - st.vut.y) : null, color);
    this._scaleBar(ctx, w, h);
    this.dirty = false;
  }

  /** Centres the view on `pts` and zooms out (never in) until they all fit with a margin. */
  _keepInView(pts, w, h) {
    const xs = pts.map((p) => p[0]), ys = pts.map((p) => p[1]);
    const x0 = Math.min(...xs), x1 = Math.max(...xs), y0 = Math.min(...ys), y1 = Math.max(...ys);
    const m = 60;
    const fit = Math.min((w - 2 * m) / Math.max(1, x1 - x0), (h - 2 * m) / Math.max(1, y1 - y0));
    if (fit > 0 && this.scale > fit) this.scale = Math.max(0.05, fit);
    this.cx = (x0 + x1) / 2; this.cy = (y0 + y1) / 2;
  }

  /** The map's geofence: `{permitted: [[x,y],…], forbidden: [[[x,y],…],…]}` (map frame). */
  setGeofence(gf) { this.geofence = gf && ((gf.permitted || []).length || (gf.forbidden || []).length) ? gf : null; this.dirty = true; }

  _geofence(ctx, X, Y) {
    const poly = (pts) => {
      if (!pts || pts.length < 3) return false;
      ctx.beginPath(); ctx.moveTo(X(pts[0][0]), Y(pts[0][1]));
      for (const p of pts) ctx.lineTo(X(p[0]), Y(p[1]));
      ctx.closePath();
      return true;
    };
    const g = this.geofence;
    ctx.save();
    if (poly(g.permitted)) { ctx.strokeStyle = '#3ccf6e'; ctx.lineWidth = 1.5; ctx.setLineDash([4, 4]); ctx.stroke(); }
    ctx.setLineDash([]);
    for (const f of g.forbidden || []) {
      if (!poly(f)) continue;
      ctx.fillStyle = 'rgba(255,77,79,.18)'; ctx.fill(); ctx.strokeStyle = '#ff4d4f'; ctx.lineWidth = 1.5; ctx.stroke();
    }
    ctx.restore();
  }

  /** A map label kept inside the canvas and off the labels drawn before it in this frame
   *  (moved down a line while it would overlap one). */
  _text(ctx, text, x, y) {
    const w = this._w ?? ctx.canvas.clientWidth, h = this._h ?? ctx.canvas.clientHeight, placed = this._placed ?? [];
    const tw = ctx.measureText(text).width, lh = 13;
    const lx = Math.min(Math.max(x, 4), Math.max(4, w - tw - 4));
    let ly = Math.min(Math.max(y, 12), h - 4);
    for (let i = 0; i < 8; i++) {
      const hit = placed.find((r) => lx < r.x + r.w + 2 && lx + tw + 2 > r.x && ly - lh < r.y && ly > r.y - lh);
      if (!hit) break;
      ly = hit.y + lh;
    }
    placed.push({ x: lx, y: ly, w: tw });
    ctx.fillText(text, lx, ly);
  }

  _offscreen(ctx, w, h, px, py, label, dist, color) {
    const m = 14;
    if (px >= 0 && px <= w && py >= 0 && py <= h) return;
    const cx = w / 2, cy = h / 2, dx = px - cx, dy = py - cy;
    const k = Math.min((w / 2 - m) / Math.max(1e-9, Math.abs(dx)), (h / 2 - m) / Math.max(1e-9, Math.abs(dy)));
    const ex = cx + dx * k, ey = cy + dy * k, a = Math.atan2(dy, dx);
    ctx.save(); ctx.translate(ex, ey); ctx.rotate(a);
    ctx.fillStyle = color; ctx.beginPath(); ctx.moveTo(8, 0); ctx.lineTo(-6, -6); ctx.lineTo(-6, 6); ctx.closePath(); ctx.fill();
    ctx.restore();
    const text = dist == null ? label : `${label} ${dist.toFixed(0)} m`;
    ctx.font = '11px monospace'; ctx.fillStyle = color;
    const tw = ctx.measureText(text).width;
    ctx.fillText(text, Math.min(Math.max(ex - tw / 2, 4), w - tw - 4), ey + (ey > h / 2 ? -12 : 20));
  }

  /** The plan's drawing; `planMarks` (CSS px, for tests) lists what was drawn where. */
  _plan(ctx, plan, X, Y, s) {
    const marks = [];
    const line = (pts, color, label) => {
      if (!pts || pts.length < 2) return;
      ctx.strokeStyle = color; ctx.lineWidth = 2.5; ctx.setLineDash([10, 6]); ctx.beginPath();
      ctx.moveTo(X(pts[0][0]), Y(pts[0][1]));
      for (const p of pts) ctx.lineTo(X(p[0]), Y(p[1]));
      ctx.stroke(); ctx.setLineDash([]);
      // the direction of travel at the path's end
      const a = pts[pts.length - 2], b = pts[pts.length - 1];
      this._arrow(ctx, X(a[0]), Y(a[1]), Math.atan2(b[1] - a[1], b[0] - a[0]), Math.max(12, Math.hypot(b[0] - a[0], b[1] - a[1]) * s), color);
      marks.push({ kind: 'path', label, x: X(pts[0][0]), y: Y(pts[0][1]) });
    };
    const start = (p, color, label) => {
      const x = X(p[0]), y = Y(p[1]);
      ctx.fillStyle = color; ctx.strokeStyle = '#0c0e12'; ctx.lineWidth = 2;
      ctx.beginPath(); ctx.arc(x, y, 6, 0, 2 * Math.PI); ctx.fill(); ctx.stroke();
      ctx.font = '12px monospace'; this._text(ctx, label, x + 9, y + 16);
      marks.push({ kind: 'start', label, x, y });
    };
    if (plan.vut_path) { line(plan.vut_path, '#4fa3ff', 'VUT path'); start(plan.vut_path[0], '#4fa3ff', 'VUT start'); }
    else if (plan.vut_line) {
      // a replayed VUT has no path in its scenario: its centreline through the crossing
      line(plan.vut_line, '#4fa3ff', 'VUT centreline');
      // labelled where the line enters the view (away from the crossing's own labels)
      const [a, b] = plan.vut_line, w = this.canvas.clientWidth, h = this.canvas.clientHeight;
      for (let i = 0; i <= 40; i++) {
        const x = X(a[0] + (b[0] - a[0]) * i / 40), y = Y(a[1] + (b[1] - a[1]) * i / 40);
        if (x > 30 && x < w - 140 && y > 30 && y < h - 30) {
          ctx.fillStyle = '#4fa3ff'; ctx.font = '12px monospace'; this._text(ctx, 'VUT centreline', x + 4, y - 8);
          break;
        }
      }
    }
    const door = plan.door;
    if (door) {
      // the standing VUT's door: closed (thin) and opened (thick), and the cyclist's distance
      // that opens it
      ctx.strokeStyle = '#e05a5a'; ctx.lineWidth = 1; ctx.beginPath();
      ctx.moveTo(X(door.hinge[0]), Y(door.hinge[1])); ctx.lineTo(X(door.rear_edge[0]), Y(door.rear_edge[1])); ctx.stroke();
      ctx.lineWidth = 3; ctx.beginPath();
      ctx.moveTo(X(door.hinge[0]), Y(door.hinge[1])); ctx.lineTo(X(door.open_edge[0]), Y(door.open_edge[1])); ctx.stroke();
      ctx.fillStyle = '#e05a5a'; ctx.font = '11px monospace';
      this._text(ctx, `door: opens at ${door.open_at_m} m`, X(door.open_edge[0]) + 6, Y(door.open_edge[1]) - 6);
    }
    for (const t of plan.targets || []) {
      if (t.static) {
        // a parked car: its footprint at its place (the start point is its rear end), never
        // smaller than a readable box
        const yaw = (90 - t.heading_deg) * Math.PI / 180;
        const len = Math.max(t.length_m * s, 14), wid = Math.max(t.width_m * s, 7);
        ctx.save(); ctx.translate(X(t.start[0]), Y(t.start[1])); ctx.rotate(-yaw);
        ctx.fillStyle = '#5a606c'; ctx.strokeStyle = '#aab1bf'; ctx.lineWidth = 1.5;
        ctx.beginPath(); ctx.rect(0, -wid / 2, len, wid); ctx.fill(); ctx.stroke();
        ctx.restore();
        ctx.fillStyle = '#aab1bf'; ctx.font = '12px monospace';
        this._text(ctx, `${t.id} (parked)`, X(t.start[0]) + 8, Y(t.start[1]) + 18);
        marks.push({ kind: 'static', label: t.id, x: X(t.start[0]), y: Y(t.start[1]) });
        continue;
      }
      line(t.path, '#d8a93a', t.id);
      if (t.start) start(t.start, '#ffcf3a', `${t.id} start`);
      if (t.conflict_point) {
        const [cx, cy] = t.conflict_point, r = 7;
        ctx.strokeStyle = '#ff7a45'; ctx.lineWidth = 2.5; ctx.beginPath();
        ctx.moveTo(X(cx) - r, Y(cy) - r); ctx.lineTo(X(cx) + r, Y(cy) + r);
        ctx.moveTo(X(cx) - r, Y(cy) + r); ctx.lineTo(X(cx) + r, Y(cy) - r); ctx.stroke();
        ctx.fillStyle = '#ff7a45'; ctx.font = '12px monospace'; this._text(ctx, `conflict ${t.id}`, X(cx) + 9, Y(cy) - 9);
        marks.push({ kind: 'conflict', label: t.id, x: X(cx), y: Y(cy) });
      }
    }
    this.planMarks = marks;
  }

  /** Zooms by `f` about a world point (it stays where it is on the screen). */
  zoomAbout(f, wx, wy) {
    const w = this.canvas.clientWidth, h = this.canvas.clientHeight;
    const px = w / 2 + (wx - this.cx) * this.scale, py = h / 2 - (wy - this.cy) * this.scale;
    this.zoom(f, px, py);
  }

  _arrow(ctx, x, y, yaw, len, color) {
    const ex = x + Math.cos(yaw) * len, ey = y - Math.sin(yaw) * len;
    ctx.strokeStyle = color; ctx.lineWidth = 1.5; ctx.beginPath(); ctx.moveTo(x, y); ctx.lineTo(ex, ey); ctx.stroke();
    const a = 0.45, hl = 6;
    ctx.beginPath(); ctx.moveTo(ex, ey);
    ctx.lineTo(ex - hl * Math.cos(yaw - a), ey + hl * Math.sin(yaw - a));
    ctx.lineTo(ex - hl * Math.cos(yaw + a), ey + hl * Math.sin(yaw + a)); ctx.closePath(); ctx.fillStyle = color; ctx.fill();
  }

  _niceStep(px) {
    const m = px / this.scale, p = Math.pow(10, Math.floor(Math.log10(m))), f = m / p;
    return (f < 2 ? 2 : f < 5 ? 5 : 10) * p;
  }

  _grid(ctx, w, h, X, Y) {
    const step = this._niceStep(60);
    const [wx0, wy1] = this.toWorld(0, 0), [wx1, wy0] = this.toWorld(w, h);
    ctx.strokeStyle = '#161a21'; ctx.lineWidth = 1; ctx.beginPath();
    for (let x = Math.ceil(wx0 / step) * step; x <= wx1; x += step) { ctx.moveTo(Math.round(X(x)) + .5, 0); ctx.lineTo(Math.round(X(x)) + .5, h); }
    for (let y = Math.ceil(wy0 / step) * step; y <= wy1; y += step) { ctx.moveTo(0, Math.round(Y(y)) + .5); ctx.lineTo(w, Math.round(Y(y)) + .5); }
    ctx.stroke();
  }

  _scaleBar(ctx, w, h) {
    const m = this._niceStep(100), px = m * this.scale;
    const x = w - px - 16, y = h - 16;
    ctx.strokeStyle = '#d7dbe3'; ctx.lineWidth = 2; ctx.beginPath();
    ctx.moveTo(x, y - 4); ctx.lineTo(x, y); ctx.lineTo(x + px, y); ctx.lineTo(x + px, y - 4); ctx.stroke();
    ctx.fillStyle = '#d7dbe3'; ctx.font = '11px monospace'; ctx.textAlign = 'center';
    ctx.fillText(`${m >= 1 ? m : m.toFixed(1)} m`, x + px / 2, y - 6); ctx.textAlign = 'start';
  }
}

// A crossing target placed by its start, heading and lateral distance (no path of its own) gets
// its walk line and its nominal impact point (E + (overlap − 0.5)·w from its start); a replayed
// VUT (no path) its centreline through the crossing.
export function completePlan(plan, sc) {
  if (!plan || !sc) return plan;
  const out = { ...plan, targets: (plan.targets || []).map((t) => ({ ...t })) };
  const w = (sc.vut && sc.vut.width_m) || 1.855;
  for (const t of out.targets) {
    const spec = (sc.targets || []).find((x) => x.id === t.id);
    if (t.path || t.static || !spec || !(spec.lateral_start_m > 0.1) || !t.start) continue;
    const h = (t.heading_deg ?? spec.heading_deg ?? 0) * Math.PI / 180, d = [Math.sin(h), Math.cos(h)];
    const e = spec.lateral_start_m, travel = e + ((spec.overlap ?? 0.5) - 0.5) * w;
    const at = (k) => [t.start[0] + d[0] * k, t.start[1] + d[1] * k];
    t.path = [t.start, at(2 * e)];
    if (!t.conflict_point) t.conflict_point = at(travel);
    if (!out.vut_path && !out.vut_line) {
      const c = at(e), n = [d[1], -d[0]], half = 60;
      out.vut_line = [[c[0] - n[0] * half, c[1] - n[1] * half], [c[0] + n[0] * half, c[1] + n[1] * half]];
    }
  }
  return out;
}

// The points a plan is about: targets, their paths and conflicts, static obstructions, and the
// VUT's path near them (a long approach would shrink the rest to hairlines).
export function planFocus(plan) {
  const near = [];
  for (const t of plan.targets || []) {
    if (t.start) near.push(t.start);
    for (const p of t.path || []) near.push(p);
    if (t.conflict_point) near.push(t.conflict_point);
  }
  const vut = plan.vut_path || [];
  if (!near.length) return vut.slice();
  const xs = near.map((p) => p[0]), ys = near.map((p) => p[1]), M = 40;
  const [x0, x1, y0, y1] = [Math.min(...xs) - M, Math.max(...xs) + M, Math.min(...ys) - M, Math.max(...ys) + M];
  return near.concat(vut.filter(([x, y]) => x >= x0 && x <= x1 && y >= y0 && y <= y1));
}
