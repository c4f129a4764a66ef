//! Map matching: (x, y[, yaw]) → road, lane, s, t.
//!
//! Each road's reference line is cut into short windows (≤ 2 m, split at geometry and lane
//! section starts). A window's bounding box covers the full lateral extent of all lanes at both
//! ends, grown by the sagitta its heading change can cause, so any point inside a lane of that
//! stretch of road lies inside the box. A uniform grid over the boxes ([`BoxGrid`]) gives the
//! candidate windows of a point from one cell; in each window the foot point is found by solving (P − r(s))·T(s) = 0 with a
//! bracketed secant/bisection, which cannot wander into a distant local minimum because every
//! overlapping window — on every candidate road — is solved independently.

use crate::boxgrid::BoxGrid;
use crate::model::{Road, TrafficRule};
use crate::{wrap_angle, LanePosition, OpenDrive};

/// One indexed window of one road.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Window {
    road: usize,
    s0: f64,
    s1: f64,
    min: [f64; 2],
    max: [f64; 2],
    /// The lane section and the plan-view geometry in force at every s of [s0, s1) (windows
    /// are cut at both kinds of start), or [`LOOK_UP`] where a degenerate cut left more than
    /// one: map matching then looks them up as before.
    sec: u32,
    geom: u32,
    /// The box touches a box of another road, or of a part of its own road more than
    /// [`NEAR`] windows away: a warm start from this window could miss a candidate.
    shared: bool,
    /// The lane ids of section `sec` run 1, 2, … and −1, −2, … outward
    /// (see [`Road::lane_spans`]).
    regular: bool,
}

/// [`Window::sec`] / [`Window::geom`] when there is no single one.
const LOOK_UP: u32 = u32::MAX;

/// Windows either side of the previous match a warm start looks at.
const NEAR: usize = 6;

/// Spatial index over road windows.
#[derive(Debug)]
pub(crate) struct Index {
    windows: Vec<Window>,
    grid: BoxGrid,
    /// First window of each road (windows are stored road by road, in s order), plus the end.
    road_start: Vec<usize>,
    /// Per window, the reference line at its two ends as (x, y, h, sin h, cos h), exactly as
    /// [`Road::reference_sc`] gives it: the foot-point search evaluates both ends for every
    /// candidate window, every sample.
    ends: Vec<[[f64; 5]; 2]>,
    /// Per window that is not `shared`, the first and last window whose box touches its box
    /// (all of them on its road, within [`NEAR`]): every other window containing a point of this
    /// window's box lies in this range.
    reach: Vec<(u32, u32)>,
    /// Lane spans of the sections where they are the same at every s (see
    /// [`Road::spans_constant`]: constant widths and lane offset, as on most test tracks):
    /// worked out once here instead of from the width records every sample.
    spans: SectionSpans,
}

/// Per lane section (`first[road] + sec`), the start in `spans` of its lanes' (inner, outer) t
/// in [`Road::lane_spans`] order, or [`LOOK_UP`] when they vary along the section.
#[derive(Debug, Default)]
struct SectionSpans {
    first: Vec<u32>,
    start: Vec<u32>,
    spans: Vec<(f64, f64)>,
}

impl SectionSpans {
    fn build(roads: &[Road]) -> SectionSpans {
        let mut out = SectionSpans::default();
        for r in roads {
            out.first.push(out.start.len() as u32);
            for (k, ls) in r.lane_sections.iter().enumerate() {
                let end = r.lane_sections.get(k + 1).map_or(r.length, |n| n.s);
                let start = u32::try_from(out.spans.len()).unwrap_or(LOOK_UP);
                if start != LOOK_UP && r.lanes_regular(k) && r.spans_constant(k, end) {
                    r.lane_spans(k, ls.s, |_, inner, outer| out.spans.push((inner, outer)));
                    out.start.push(start);
                } else {
                    out.start.push(LOOK_UP);
                }
            }
        }
        out
    }

    /// The spans of section `sec` of road `road`, when they are constant.
    fn of(&self, road: usize, sec: usize, lanes: usize) -> Option<&[(f64, f64)]> {
        let k = *self.first.get(road)? as usize + sec;
        let start = *self.start.get(k)?;
        if start == LOOK_UP {
            return None;
        }
        self.spans.get(start as usize..start as usize + lanes)
    }
}

const STEP: f64 = 2.0;

impl Index {
    pub(crate) fn build(roads: &[Road]) -> Index {
        // Roads are windowed independently: on a big map the second half of them (by length)
        // is windowed on a second thread, and the parts are joined in road order — the same
        // windows as one thread would give.
        let total: f64 = roads.iter().map(|r| r.length.max(0.0)).sum();
        let mut acc = 0.0;
        let half = roads
            .iter()
            .position(|r| {
                acc += r.length.max(0.0);
                acc >= 0.5 * total
            })
            .map_or(roads.len(), |i| i + 1);
        let parallel = total.is_finite() && total > PARALLEL_LENGTH && half < roads.len();
        let (mut windows, ends, mut road_start) = if parallel {
            let (first, rest) = roads.split_at(half);
            let (a, b) = std::thread::scope(|scope| {
                let helper =
                    std::thread::Builder::new().spawn_scoped(scope, || road_windows(rest, half));
                let a = road_windows(first, 0);
                (a, helper.ok().and_then(|h| h.join().ok()))
            });
            // No helper thread (none could be started, or it panicked — it cannot on any input
            // we know): the second half is done here.
            let b = b.unwrap_or_else(|| road_windows(rest, half));
            let (mut windows, mut ends, mut road_start) = a;
            let base = windows.len();
            windows.extend(b.0);
            ends.extend(b.1);
            road_start.extend(b.2.into_iter().map(|i| i + base));
            (windows, ends, road_start)
        } else {
            road_windows(roads, 0)
        };
        road_start.push(windows.len());
        let boxes: Vec<_> = windows
            .iter()
            .map(|w| [w.min[0], w.min[1], w.max[0], w.max[1]])
            .collect();
        let grid = BoxGrid::build(&boxes);
        // Which windows are shared, and each one's reach: independent per window, so a big map
        // splits the range over two threads too.
        let n = windows.len();
        let touch = |range: std::ops::Range<usize>| -> Vec<(bool, (u32, u32))> {
            range
                .map(|i| {
                    let Some(w) = windows.get(i) else {
                        return (true, (i as u32, i as u32));
                    };
                    let mut r = (i as u32, i as u32);
                    let mut shared = false;
                    // `reach` is only used for windows that are not shared, where it spans
                    // every touching box; a shared window stops at the first far box.
                    grid.query_while(&[w.min[0], w.min[1], w.max[0], w.max[1]], |d| {
                        let j = d as usize;
                        shared =
                            windows.get(j).is_none_or(|o| o.road != w.road) || j.abs_diff(i) > NEAR;
                        r = (r.0.min(d), r.1.max(d));
                        !shared
                    });
                    (shared, r)
                })
                .collect()
        };
        let flags = if parallel {
            let (mut a, b) = std::thread::scope(|scope| {
                let helper = std::thread::Builder::new().spawn_scoped(scope, || touch(n / 2..n));
                let a = touch(0..n / 2);
                (a, helper.ok().and_then(|h| h.join().ok()))
            });
            a.extend(b.unwrap_or_else(|| touch(n / 2..n)));
            a
        } else {
            touch(0..n)
        };
        let mut reach = Vec::with_capacity(n);
        for (w, (shared, r)) in windows.iter_mut().zip(flags) {
            w.shared = shared;
            reach.push(r);
        }
        Index {
            windows,
            grid,
            road_start,
            ends,
            reach,
            spans: SectionSpans::build(roads),
        }
    }

    /// The windows whose box contains (x, y) when a warm start from window `hint` can name all
    /// of them without the tree: the point is in a box of the hint's stretch of road that
    /// touches no other road and no distant part of its own road. `None` otherwise.
    ///
    /// The first container is looked for outward from the hint (a moving vehicle is usually
    /// still in it or its neighbour); when it is not `shared`, every other container touches its
    /// box and so lies in its `reach` — a handful of boxes to test instead of the whole stretch.
    fn warm_hits(&self, hint: u32, x: f64, y: f64, out: &mut Vec<u32>) -> Option<()> {
        let h = hint as usize;
        let road = self.windows.get(h)?.road;
        let (lo, hi) = (*self.road_start.get(road)?, *self.road_start.get(road + 1)?);
        let contains = |i: usize| {
            self.windows
                .get(i)
                .is_some_and(|w| x >= w.min[0] && x <= w.max[0] && y >= w.min[1] && y <= w.max[1])
        };
        let mut first = None;
        'outward: for d in 0..=NEAR {
            for i in [h.checked_add(d), h.checked_sub(d).filter(|_| d > 0)]
                .into_iter()
                .flatten()
            {
                if i >= lo && i < hi && contains(i) {
                    first = Some(i);
                    break 'outward;
                }
            }
        }
        let c = first?;
        if self.windows.get(c)?.shared {
            return None;
        }
        let (from, to) = *self.reach.get(c)?;
        out.clear();
        for i in from as usize..=to as usize {
            if contains(i) {
                if self.windows.get(i)?.shared || i.abs_diff(h) > NEAR {
                    return None;
                }
                out.push(i as u32);
            }
        }
        if out.is_empty() {
            return None;
        }
        Some(())
    }
}

/// Total road length (m) above which [`Index::build`] windows the roads on two threads.
const PARALLEL_LENGTH: f64 = 4_000.0;

/// The windows of `roads` (road indices start at `first`), their reference-line ends and the
/// first window of each road.
#[allow(clippy::type_complexity)]
fn road_windows(roads: &[Road], first: usize) -> (Vec<Window>, Vec<[[f64; 5]; 2]>, Vec<usize>) {
    let mut windows = Vec::new();
    let mut ends = Vec::new();
    let mut road_start = Vec::with_capacity(roads.len() + 1);
    let mut cuts: Vec<f64> = Vec::new();
    let mut ss: Vec<f64> = Vec::new();
    for (k, r) in roads.iter().enumerate() {
        let ri = first + k;
        road_start.push(windows.len());

        cuts.clear();
        cuts.extend(
            r.plan_view
                .iter()
                .map(|g| g.s)
                .chain(r.lane_sections.iter().map(|l| l.s)),
        );
        cuts.push(0.0);
        cuts.push(r.length);
        cuts.retain(|s| s.is_finite() && *s >= 0.0 && *s <= r.length);
        cuts.sort_by(|a, b| a.total_cmp(b));
        cuts.dedup_by(|a, b| (*a - *b).abs() < 1e-9);
        ss.clear();
        for w in cuts.windows(2) {
            let n = (((w[1] - w[0]) / STEP).ceil().max(1.0) as usize).min(1_000_000);
            for i in 0..n {
                ss.push(w[0] + (w[1] - w[0]) * i as f64 / n as f64);
            }
        }
        ss.push(r.length);
        // The reference line at each cut point, evaluated once: it is the end of one window
        // and the start of the next (for the box and for the `ends` cache alike).
        let sc = |s: f64| {
            let (x, y, h, sn, cs) = r.reference_sc(s);
            [x, y, h, sn, cs]
        };
        let mut at0 = match ss.first() {
            Some(&s) => sc(s),
            None => continue,
        };
        for w in ss.windows(2) {
            let (s0, s1) = (w[0], w[1]);
            let at1 = sc(s1);
            // The far end is evaluated just inside the window so section (and geometry)
            // boundaries use this window's.
            let se1 = (s1 - 1e-9).max(s0);
            let in1 = if se1 == s1 { at1 } else { sc(se1) };
            let mut min = [f64::INFINITY; 2];
            let mut max = [f64::NEG_INFINITY; 2];
            let mut tabs: f64 = 0.0;
            for (se, at) in [(s0, &at0), (se1, &in1)] {
                let (tmin, tmax) = extent(r, se);
                for t in [tmin, tmax] {
                    let (x, y) = (at[0] - at[3] * t, at[1] + at[4] * t);
                    min = [min[0].min(x), min[1].min(y)];
                    max = [max[0].max(x), max[1].max(y)];
                    tabs = tabs.max(t.abs());
                }
            }
            let dh = wrap_angle(in1[2] - at0[2]).abs();
            let margin = 0.05 + dh * (tabs + (s1 - s0));
            min = [min[0] - margin, min[1] - margin];
            max = [max[0] + margin, max[1] + margin];
            if min.iter().chain(max.iter()).all(|v| v.is_finite()) {
                // Both lookups are monotone in s: equal at s0 and just below s1, they are
                // constant on [s0, s1).
                let last = s1.next_down().max(s0);
                let one = |a: Option<usize>, b: Option<usize>| match (a, b) {
                    (Some(a), Some(b)) if a == b => u32::try_from(a).unwrap_or(LOOK_UP),
                    _ => LOOK_UP,
                };
                let sec = one(r.section_index(s0), r.section_index(last));
                let geom = one(r.geometry_index(s0), r.geometry_index(last));
                windows.push(Window {
                    road: ri,
                    s0,
                    s1,
                    min,
                    max,
                    sec,
                    geom,
                    shared: false,
                    regular: sec != LOOK_UP && r.lanes_regular(sec as usize),
                });
                ends.push([at0, at1]);
            }
            at0 = at1;
        }
    }
    (windows, ends, road_start)
}

/// Smallest and largest border t at s (all lanes, centre included).
fn extent(r: &Road, s: f64) -> (f64, f64) {
    let Some(sec) = r.section_index(s) else {
        let o = r.lane_offset(s);
        return (o, o);
    };
    r.border_extent(sec, s)
}

/// Solves (P − r(s))·T(s) = 0 on [a, b]; `None` when the foot point is not in the window.
/// `ends` is the reference line at a and b (see [`Index::ends`]). Returns s and, when it was
/// evaluated there, the reference line at s as (x, y, h, sin h, cos h).
fn foot(
    r: &Road,
    px: f64,
    py: f64,
    a: f64,
    b: f64,
    ends: &[[f64; 5]; 2],
) -> Option<(f64, Option<[f64; 5]>)> {
    let f = |s: f64| {
        let (x, y, h, sn, cs) = r.reference_sc(s);
        ((px - x) * cs + (py - y) * sn, [x, y, h, sn, cs])
    };
    let at_end = |e: &[f64; 5]| (px - e[0]) * e[4] + (py - e[1]) * e[3];
    let (mut a, mut b) = (a, b);
    let (mut fa, mut fb) = (at_end(&ends[0]), at_end(&ends[1]));
    const EPS: f64 = 1e-9;
    if fa.abs() <= EPS {
        return Some((a, Some(ends[0])));
    }
    if fb.abs() <= EPS {
        return Some((b, Some(ends[1])));
    }
    if fa < 0.0 || fb > 0.0 {
        return None;
    }
    // Illinois variant of regula falsi: superlinear, and keeps the bracket.
    let mut side = 0;
    for _ in 0..100 {
        let m = if fa != fb {
            (a * fb - b * fa) / (fb - fa)
        } else {
            0.5 * (a + b)
        };
        let m = if m > a && m < b { m } else { 0.5 * (a + b) };
        let (fm, at) = f(m);
        if fm.abs() <= 1e-10 || (b - a) < 1e-10 {
            return Some((m, Some(at)));
        }
        if fm > 0.0 {
            a = m;
            fa = fm;
            if side == 1 {
                fb *= 0.5;
            }
            side = 1;
        } else {
            b = m;
            fb = fm;
            if side == -1 {
                fa *= 0.5;
            }
            side = -1;
        }
    }
    Some((0.5 * (a + b), None))
}

struct Candidate {
    window: u32,
    road: usize,
    lane: i32,
    s: f64,
    t: f64,
    /// Reference-line heading at s.
    h: f64,
    centre_dist: f64,
    driving: bool,
}

/// Where the previous match of a moving vehicle was: lets the next one start from there
/// (same answer, no tree query) when that stretch of road is unambiguous.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MatchHint(Option<u32>);

pub(crate) fn locate(
    map: &OpenDrive,
    x: f64,
    y: f64,
    yaw: Option<f64>,
    brute: bool,
) -> Option<LanePosition> {
    locate_hinted(map, x, y, yaw, brute, &mut MatchHint::default())
}

pub(crate) fn locate_hinted(
    map: &OpenDrive,
    x: f64,
    y: f64,
    yaw: Option<f64>,
    brute: bool,
    hint: &mut MatchHint,
) -> Option<LanePosition> {
    if !x.is_finite() || !y.is_finite() {
        *hint = MatchHint(None);
        return None;
    }
    SCRATCH.with(|cell| match cell.try_borrow_mut() {
        Ok(mut sc) => {
            let sc = &mut *sc;
            locate_with(map, x, y, yaw, brute, hint, &mut sc.0, &mut sc.1, &mut sc.2)
        }
        // Re-entered on this thread (cannot happen today): fresh buffers.
        Err(_) => locate_with(
            map,
            x,
            y,
            yaw,
            brute,
            hint,
            &mut Vec::new(),
            &mut Vec::new(),
            &mut Vec::new(),
        ),
    })
}

/// Per-thread buffers of [`locate_with`] (see `SCRATCH`).
type Scratch = (Vec<u32>, Vec<Candidate>, Vec<(i32, f64)>);

thread_local! {
    /// Per-thread buffers of [`locate_with`]: map matching runs per sample and must not
    /// allocate.
    static SCRATCH: std::cell::RefCell<Scratch> =
        const { std::cell::RefCell::new((Vec::new(), Vec::new(), Vec::new())) };
}

#[allow(clippy::too_many_arguments)]
fn locate_with(
    map: &OpenDrive,
    x: f64,
    y: f64,
    yaw: Option<f64>,
    brute: bool,
    hint: &mut MatchHint,
    hits: &mut Vec<u32>,
    cands: &mut Vec<Candidate>,
    borders: &mut Vec<(i32, f64)>,
) -> Option<LanePosition> {
    let idx = &map.index;
    hits.clear();
    cands.clear();
    let warm = match hint.0 {
        Some(h) if !brute => idx.warm_hits(h, x, y, hits).is_some(),
        _ => false,
    };
    if brute {
        // Exhaustive: every window of every road is solved, no bounding boxes consulted.
        hits.clear();
        hits.extend(0..idx.windows.len() as u32);
    } else if !warm {
        hits.clear();
        idx.grid.query(&[x, y, x, y], |d| hits.push(d));
    }
    hits.sort_unstable();
    for &h in hits.iter() {
        let Some(w) = idx.windows.get(h as usize) else {
            continue;
        };
        let Some(r) = map.roads.get(w.road) else {
            continue;
        };
        let Some(ends) = idx.ends.get(h as usize) else {
            continue;
        };
        let Some((s, at)) = foot(r, x, y, w.s0, w.s1, ends) else {
            continue;
        };
        if cands
            .iter()
            .any(|c| c.road == w.road && (c.s - s).abs() < 1e-6)
        {
            continue;
        }
        let [rx, ry, rh, sn, cs] = at.unwrap_or_else(|| {
            let (x, y, h, sn, cs) = r.reference_sc(s);
            [x, y, h, sn, cs]
        });
        let t = -(x - rx) * sn + (y - ry) * cs;
        // Lane section: at a section start belonging to the window's side.
        let se = if s >= w.s1 && w.s1 > w.s0 {
            (s - 1e-9).max(w.s0)
        } else {
            s
        };
        let known = w.sec != LOOK_UP && se >= w.s0 && se < w.s1;
        let Some(sec) = (if known {
            Some(w.sec as usize)
        } else {
            r.section_index(se)
        }) else {
            continue;
        };
        let mut consider = |lane: &crate::model::Lane, o: f64, i: f64| {
            let (lo, hi) = if o < i { (o, i) } else { (i, o) };
            if hi - lo <= 0.0 || t < lo || t > hi {
                return;
            }
            cands.push(Candidate {
                window: h,
                road: w.road,
                lane: lane.id,
                s,
                t,
                h: rh,
                centre_dist: (t - 0.5 * (lo + hi)).abs(),
                driving: lane.lane_type.eq_ignore_ascii_case("driving"),
            });
        };
        // Lane spans in one pass; the general lookup by id only for irregular lane ids.
        let regular = if known {
            w.regular
        } else {
            r.lanes_regular(sec)
        };
        if regular {
            let constant = r.lane_sections.get(sec).and_then(|ls| {
                let n = ls.left.len() + ls.right.len();
                (se >= ls.s)
                    .then(|| idx.spans.of(w.road, sec, n))
                    .flatten()
                    .map(|sp| (ls, sp))
            });
            match constant {
                // The same values `lane_spans` gives at `se` (see `Road::spans_constant`).
                Some((ls, sp)) => {
                    for (lane, &(inner, outer)) in ls.left.iter().chain(&ls.right).zip(sp) {
                        consider(lane, outer, inner);
                    }
                }
                None => r.lane_spans(sec, se, |lane, inner, outer| consider(lane, outer, inner)),
            }
            continue;
        }
        r.borders_into(sec, se, borders);
        let Some(ls) = r.lane_sections.get(sec) else {
            continue;
        };
        for lane in ls.left.iter().chain(ls.right.iter()) {
            let inner_id = crate::model::inner_lane_id(lane.id);
            let outer = borders.iter().find(|(id, _)| *id == lane.id).map(|b| b.1);
            let inner = borders.iter().find(|(id, _)| *id == inner_id).map(|b| b.1);
            let (Some(o), Some(i)) = (outer, inner) else {
                continue;
            };
            consider(lane, o, i);
        }
    }
    let score = |c: &Candidate| -> (u8, u8, f64) {
        let wrong_dir = match yaw {
            Some(yaw) => {
                let r = &map.roads[c.road];
                let forward = (c.lane < 0) == (r.rule == TrafficRule::Rht);
                // The foot point's heading: what `r.reference(c.s)` gives, bit for bit.
                let h = c.h;
                let dir = if forward { h } else { h + std::f64::consts::PI };
                u8::from(wrap_angle(yaw - dir).abs() > std::f64::consts::FRAC_PI_2)
            }
            None => 0,
        };
        (u8::from(!c.driving), wrong_dir, c.centre_dist)
    };
    let best = cands.iter().min_by(|a, b| {
        let (sa, sb) = (score(a), score(b));
        sa.0.cmp(&sb.0)
            .then(sa.1.cmp(&sb.1))
            .then(sa.2.total_cmp(&sb.2))
    });
    let Some(best) = best else {
        *hint = MatchHint(None);
        return None;
    };
    *hint = MatchHint(Some(best.window));
    let r = &map.roads[best.road];
    let heading_rel = match yaw {
        Some(yaw) => {
            // Inside the window (not at its end) its section and geometry are the ones a
            // lookup at s would find, and the foot point's heading is the geometry's there.
            let w = idx.windows.get(best.window as usize);
            let known = w.filter(|w| best.s >= w.s0 && best.s < w.s1);
            let closed = match known {
                Some(w) if w.sec != LOOK_UP && w.geom != LOOK_UP => {
                    r.plan_view.get(w.geom as usize).and_then(|g| {
                        constant_centre_heading(idx, w, r, g, best).or_else(|| {
                            r.lane_center_heading_in(g, best.h, w.sec as usize, best.lane, best.s)
                        })
                    })
                }
                _ => r.lane_center_heading(best.lane, best.s),
            };
            let hc = match closed {
                Some(hc) => hc,
                None => lane_center_heading_fd(r, best.lane, best.s),
            };
            wrap_angle(yaw - hc)
        }
        None => 0.0,
    };
    Some(LanePosition {
        road_id: r.shared_id.clone(),
        lane_id: best.lane,
        s: best.s,
        t: best.t,
        heading_rel,
    })
}

/// [`Road::lane_center_heading_in`] in a section whose spans are constant (see
/// [`Road::spans_constant`]): every width and offset slope there is a signed zero, so the lane
/// centre's t' is zero and the closed form `h + atan2(t_c', 1 − κ·t_c)` is exactly `h` while
/// `κ·t_c < 1`. `None` (the full computation) otherwise.
fn constant_centre_heading(
    idx: &Index,
    w: &Window,
    r: &Road,
    g: &crate::geometry::Geometry,
    best: &Candidate,
) -> Option<f64> {
    if !w.regular {
        return None;
    }
    let sec = w.sec as usize;
    let ls = r.lane_sections.get(sec)?;
    let spans = idx.spans.of(w.road, sec, ls.left.len() + ls.right.len())?;
    let kappa = g.curvature(best.s)?;
    // Regular ids: lane ±k is the k-th of its side, left lanes first.
    let k = (best.lane.unsigned_abs() as usize).checked_sub(1)?;
    let at = if best.lane > 0 { k } else { ls.left.len() + k };
    let (inner, outer) = *spans.get(at)?;
    let tc = 0.5 * (inner + outer);
    (kappa * tc < 1.0).then_some(best.h)
}

/// Heading of the lane centre line in the direction of increasing s where
/// [`Road::lane_center_heading`] has no closed form: a finite difference.
fn lane_center_heading_fd(r: &Road, lane: i32, s: f64) -> f64 {
    let d = 0.05f64.min(r.length * 0.5).max(1e-6);
    let a = (s - d).max(0.0);
    let b = (s + d).min(r.length);
    let p = |s: f64| {
        r.lane_span(lane, s)
            .map(|(i, o)| r.st_to_xy(s, 0.5 * (i + o)))
    };
    match (p(a), p(b)) {
        (Some(pa), Some(pb)) if b > a => (pb.1 - pa.1).atan2(pb.0 - pa.0),
        _ => r.reference(s).2,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `.xodr` under the shared maps directory.
    fn shared_maps() -> Vec<std::path::PathBuf> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/opendrive");
        let out = crate::xodr_files(std::path::Path::new(root));
        assert!(out.len() >= 8, "{} maps under {root}", out.len());
        out
    }

    /// The spans worked out once per section are, bit for bit, what `lane_spans` gives at
    /// every s of the section (its start, its end, and many points between), on every shared
    /// map; and a section with a varying width is not taken as constant.
    #[test]
    fn constant_section_spans_equal_lane_spans_everywhere_in_the_section() {
        let (mut constant, mut varying) = (0usize, 0usize);
        let mut loaded = 0;
        for path in shared_maps() {
            // Some shared maps are bad on purpose (their errors are tested elsewhere).
            let Ok(map) = OpenDrive::from_path(&path) else {
                continue;
            };
            loaded += 1;
            for (ri, r) in map.roads.iter().enumerate() {
                for (k, ls) in r.lane_sections.iter().enumerate() {
                    let n = ls.left.len() + ls.right.len();
                    let end = r.lane_sections.get(k + 1).map_or(r.length, |x| x.s);
                    let Some(sp) = map.index.spans.of(ri, k, n) else {
                        varying += 1;
                        continue;
                    };
                    constant += 1;
                    let mut ss: Vec<f64> = (0..=64)
                        .map(|i| ls.s + (end - ls.s) * f64::from(i) / 64.0)
                        .collect();
                    ss.extend([end.next_down().max(ls.s), end]);
                    for s in ss {
                        let mut got = Vec::with_capacity(n);
                        r.lane_spans(k, s, |_, i, o| got.push((i.to_bits(), o.to_bits())));
                        let want: Vec<_> =
                            sp.iter().map(|(i, o)| (i.to_bits(), o.to_bits())).collect();
                        assert_eq!(
                            got,
                            want,
                            "{} road {} section {k} at s={s}",
                            path.display(),
                            r.id
                        );
                    }
                }
            }
        }
        assert!(loaded >= 8, "{loaded} maps loaded");
        assert!(
            constant > 50 && varying > 0,
            "constant {constant}, varying {varying}"
        );
    }

    #[test]
    fn a_width_that_changes_is_not_constant() {
        let xml = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../shared/opendrive/proving_ground.xodr"
        ))
        .expect("proving ground map");
        let map = OpenDrive::from_str(&xml).expect("loads");
        let r = &map.roads[0];
        let end = r.lane_sections.get(1).map_or(r.length, |x| x.s);
        assert!(r.spans_constant(0, end));
        // A slope on one width (b ≠ 0), then a −0 width: neither is constant any more.
        let sloped = xml.replacen(
            r#"<width a="3.5" b="0.0""#,
            r#"<width a="3.5" b="0.001""#,
            1,
        );
        let m = OpenDrive::from_str(&sloped).expect("loads");
        assert!(!m.roads[0].spans_constant(0, end));
        assert!(m.index.spans.of(0, 0, 4).is_none());
        let neg_zero = xml.replacen(r#"<width a="3.5""#, r#"<width a="-0.0""#, 1);
        let m = OpenDrive::from_str(&neg_zero).expect("loads");
        assert!(!m.roads[0].spans_constant(0, end));
    }
}
