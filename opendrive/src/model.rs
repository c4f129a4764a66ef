//! The OpenDRIVE data model as parsed (plus evaluation helpers on roads).

use crate::geometry::Geometry;

/// Header `<offset>`: projected = rotate(map, hdg) + (x, y) (ASAM OpenDRIVE 1.8 §8.5).
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Offset {
    /// x shift (m).
    pub x: f64,
    /// y shift (m).
    pub y: f64,
    /// z shift (m).
    pub z: f64,
    /// Rotation (rad) about z, applied before the shift.
    pub hdg: f64,
}

/// `<header>` contents that matter for geometry and geo-referencing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Header {
    /// `revMajor`.
    pub rev_major: u32,
    /// `revMinor`.
    pub rev_minor: u32,
    /// `name`.
    pub name: String,
    /// `vendor`.
    pub vendor: String,
    /// Trimmed PROJ string from `<geoReference>` (CDATA or plain text).
    pub geo_reference: Option<String>,
    /// `<offset>`.
    pub offset: Option<Offset>,
}

/// A cubic polynomial record valid from `s` (road s for laneOffset/elevation, sOffset within the
/// lane section for widths/borders): `a + b·ds + c·ds² + d·ds³`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Poly3 {
    /// Start of validity.
    pub s: f64,
    /// a
    pub a: f64,
    /// b
    pub b: f64,
    /// c
    pub c: f64,
    /// d
    pub d: f64,
}

impl Poly3 {
    /// Value at `ds` from the record start.
    pub fn at(&self, ds: f64) -> f64 {
        self.a + ds * (self.b + ds * (self.c + ds * self.d))
    }
    /// Derivative at `ds`.
    pub fn slope(&self, ds: f64) -> f64 {
        self.b + ds * (2.0 * self.c + ds * 3.0 * self.d)
    }
}

/// Evaluates the record in force at `s` (the last whose start ≤ s); `None` when none starts before.
pub(crate) fn eval_records(records: &[Poly3], s: f64) -> Option<f64> {
    let i = records.partition_point(|r| r.s <= s);
    if i == 0 {
        return None;
    }
    let r = &records[i - 1];
    Some(r.at(s - r.s))
}

/// Road `<link>` target.
#[derive(Debug, Clone, PartialEq)]
pub struct RoadLink {
    /// `elementType` (`road` or `junction`).
    pub element_type: String,
    /// `elementId`.
    pub element_id: String,
    /// `contactPoint` (`start`/`end`) if given.
    pub contact_point: Option<String>,
}

/// One `<lane>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Lane {
    /// Lane id (positive left, negative right, 0 centre).
    pub id: i32,
    /// `type` (driving, sidewalk, …).
    pub lane_type: String,
    /// `level`.
    pub level: bool,
    /// `<width>` records (s = sOffset), sorted.
    pub widths: Vec<Poly3>,
    /// `<border>` records (s = sOffset), sorted; used only when there are no widths.
    pub borders: Vec<Poly3>,
    /// Lane link predecessor id.
    pub predecessor: Option<i32>,
    /// Lane link successor id.
    pub successor: Option<i32>,
}

/// One `<laneSection>`.
#[derive(Debug, Clone, PartialEq)]
pub struct LaneSection {
    /// Start s on the road.
    pub s: f64,
    /// `singleSide` (stored only).
    pub single_side: bool,
    /// Left lanes ordered 1, 2, 3, … (outward).
    pub left: Vec<Lane>,
    /// Centre lane(s).
    pub center: Vec<Lane>,
    /// Right lanes ordered -1, -2, … (outward).
    pub right: Vec<Lane>,
}

impl LaneSection {
    /// Finds a lane by id.
    pub fn lane(&self, id: i32) -> Option<&Lane> {
        let side = if id > 0 {
            &self.left
        } else if id < 0 {
            &self.right
        } else {
            &self.center
        };
        side.iter().find(|l| l.id == id)
    }
    /// All lanes, left outermost first, then centre, then right.
    pub fn lanes(&self) -> impl Iterator<Item = &Lane> {
        self.left
            .iter()
            .rev()
            .chain(self.center.iter())
            .chain(self.right.iter())
    }
}

/// Traffic rule of a road.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrafficRule {
    /// Right-hand traffic (default).
    Rht,
    /// Left-hand traffic.
    Lht,
}

/// One `<road>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Road {
    /// `id` (kept as string: ids are not always numeric).
    pub id: String,
    /// `name`.
    pub name: String,
    /// `length`.
    pub length: f64,
    /// `junction` ("-1" when not in a junction).
    pub junction: String,
    /// `rule`.
    pub rule: TrafficRule,
    /// Link to predecessor.
    pub predecessor: Option<RoadLink>,
    /// Link to successor.
    pub successor: Option<RoadLink>,
    /// Plan view, sorted by s.
    pub plan_view: Vec<Geometry>,
    /// `<elevation>` records (stored).
    pub elevation: Vec<Poly3>,
    /// `<superelevation>` records (stored).
    pub superelevation: Vec<Poly3>,
    /// `<laneOffset>` records.
    pub lane_offsets: Vec<Poly3>,
    /// Lane sections, sorted by s.
    pub lane_sections: Vec<LaneSection>,
    /// `id` again, shared: every map match names its road, and a vehicle matched at 100 Hz
    /// should not allocate a copy of the id each time.
    pub(crate) shared_id: std::sync::Arc<str>,
}

impl Road {
    /// Whether the road belongs to a junction.
    pub fn in_junction(&self) -> bool {
        self.junction != "-1" && !self.junction.is_empty()
    }

    /// Reference-line (x, y, heading) at `s` (clamped to the road).
    pub fn reference(&self, s: f64) -> (f64, f64, f64) {
        let i = self
            .plan_view
            .partition_point(|g| g.s <= s)
            .saturating_sub(1);
        match self.plan_view.get(i) {
            Some(g) => g.eval(s),
            None => (0.0, 0.0, 0.0),
        }
    }

    /// Index of the plan-view geometry [`Road::reference`] evaluates at `s` (`None` without any).
    pub(crate) fn geometry_index(&self, s: f64) -> Option<usize> {
        let i = self
            .plan_view
            .partition_point(|g| g.s <= s)
            .saturating_sub(1);
        (i < self.plan_view.len()).then_some(i)
    }

    /// [`Road::reference`] plus sin and cos of the heading.
    pub fn reference_sc(&self, s: f64) -> (f64, f64, f64, f64, f64) {
        let i = self
            .plan_view
            .partition_point(|g| g.s <= s)
            .saturating_sub(1);
        match self.plan_view.get(i) {
            Some(g) => g.eval_sc(s),
            None => (0.0, 0.0, 0.0, 0.0, 1.0),
        }
    }

    /// laneOffset at `s` (0 without records).
    pub fn lane_offset(&self, s: f64) -> f64 {
        eval_records(&self.lane_offsets, s).unwrap_or(0.0)
    }

    /// Index of the lane section containing `s`.
    pub fn section_index(&self, s: f64) -> Option<usize> {
        if self.lane_sections.is_empty() {
            return None;
        }
        Some(
            self.lane_sections
                .partition_point(|ls| ls.s <= s)
                .saturating_sub(1),
        )
    }

    /// Outer border t of every lane of section `sec` at `s`, as (lane id, t) pairs
    /// starting with (0, laneOffset) then left lanes outward then right lanes outward.
    ///
    /// Widths are cumulative outward from the centre lane; a lane with only `<border>` records
    /// takes its outer border directly as laneOffset + border(ds) (see crate docs).
    pub fn borders(&self, sec: usize, s: f64) -> Vec<(i32, f64)> {
        let mut out = Vec::new();
        self.borders_into(sec, s, &mut out);
        out
    }

    /// Calls `f(lane id, t)` for the reference line (id 0, the lane offset) and every lane
    /// border of section `sec` at `s`, left side then right side, inner to outer: the one
    /// place the border arithmetic is written.
    fn for_each_border(&self, sec: usize, s: f64, mut f: impl FnMut(i32, f64)) {
        let Some(ls) = self.lane_sections.get(sec) else {
            return;
        };
        let off = self.lane_offset(s);
        let ds = s - ls.s;
        f(0, off);
        for (side, sign) in [(&ls.left, 1.0), (&ls.right, -1.0)] {
            let mut t = off;
            for lane in side.iter() {
                if !lane.widths.is_empty() {
                    let w = lane_record(&lane.widths, ds);
                    t += sign * w;
                } else if !lane.borders.is_empty() {
                    t = off + lane_record(&lane.borders, ds);
                }
                f(lane.id, t);
            }
        }
    }

    /// [`Road::borders`] into a buffer the caller reuses (map matching calls this per sample).
    pub fn borders_into(&self, sec: usize, s: f64, out: &mut Vec<(i32, f64)>) {
        out.clear();
        self.for_each_border(sec, s, |id, t| out.push((id, t)));
    }

    /// Smallest and largest of 0 and the [`Road::borders_into`] values of section `sec` at `s`
    /// (the same arithmetic, without the buffer): the lateral extent of the road there.
    pub(crate) fn border_extent(&self, sec: usize, s: f64) -> (f64, f64) {
        let (mut lo, mut hi) = (0.0f64, 0.0f64);
        self.for_each_border(sec, s, |_, t| {
            lo = lo.min(t);
            hi = hi.max(t);
        });
        (lo, hi)
    }

    /// Whether the lane ids of section `sec` run 1, 2, … and −1, −2, … outward (as written by
    /// every tool we know), which [`Road::lane_spans`] relies on.
    pub(crate) fn lanes_regular(&self, sec: usize) -> bool {
        let Some(ls) = self.lane_sections.get(sec) else {
            return false;
        };
        let regular = |side: &[Lane], sign: i32| {
            side.iter()
                .enumerate()
                .all(|(k, l)| i64::from(l.id) == i64::from(sign) * (k as i64 + 1))
        };
        regular(&ls.left, 1) && regular(&ls.right, -1)
    }

    /// Calls `f(lane, inner t, outer t)` for every lane of section `sec` at `s`, left lanes then
    /// right lanes, each side outward, with exactly the values [`Road::borders_into`] and a
    /// lookup of the lane's and its inner neighbour's id give — provided the caller has checked
    /// [`Road::lanes_regular`] (map matching does so once per window, at load).
    pub(crate) fn lane_spans(&self, sec: usize, s: f64, mut f: impl FnMut(&Lane, f64, f64)) {
        let Some(ls) = self.lane_sections.get(sec) else {
            return;
        };
        let off = self.lane_offset(s);
        let ds = s - ls.s;
        for (side, sign) in [(&ls.left, 1.0), (&ls.right, -1.0)] {
            let mut t = off;
            for lane in side.iter() {
                let inner = t;
                if !lane.widths.is_empty() {
                    let w = lane_record(&lane.widths, ds);
                    t += sign * w;
                } else if !lane.borders.is_empty() {
                    t = off + lane_record(&lane.borders, ds);
                }
                f(lane, inner, t);
            }
        }
    }

    /// Whether [`Road::lane_spans`] of section `sec` gives the same values, bit for bit, at
    /// every s from the section start to `end`: the lane offset and every lane's width (or
    /// border) record stay the same one over that stretch, and each is a constant (b, c and d
    /// zero). `a + ds·(b + ds·(c + ds·d))` is then exactly `a` for any finite ds ≥ 0 (the
    /// product is a signed zero, and `a + ±0 = a` — except for `a = −0`, which is refused).
    // `!(a >= b)` on purpose: a NaN end is refused too.
    #[allow(clippy::neg_cmp_op_on_partial_ord)]
    pub(crate) fn spans_constant(&self, sec: usize, end: f64) -> bool {
        let Some(ls) = self.lane_sections.get(sec) else {
            return false;
        };
        if !(end >= ls.s) {
            return false;
        }
        let flat = |records: &[Poly3], x0: f64, x1: f64| {
            let i0 = records.partition_point(|r| r.s <= x0);
            let i1 = records.partition_point(|r| r.s <= x1);
            i0 == i1
                && (i0 == 0
                    || records.get(i0 - 1).is_some_and(|r| {
                        r.b == 0.0
                            && r.c == 0.0
                            && r.d == 0.0
                            && r.a.is_finite()
                            && !(r.a == 0.0 && r.a.is_sign_negative())
                    }))
        };
        let len = end - ls.s;
        flat(&self.lane_offsets, ls.s, end)
            && ls.left.iter().chain(&ls.right).all(|l| {
                if l.widths.is_empty() {
                    flat(&l.borders, 0.0, len)
                } else {
                    flat(&l.widths, 0.0, len)
                }
            })
    }

    /// Outer border t of `lane_id` at `s` (laneOffset included); lane 0 gives the laneOffset.
    pub fn border_t(&self, lane_id: i32, s: f64) -> Option<f64> {
        let sec = self.section_index(s)?;
        let ls = self.lane_sections.get(sec)?;
        if lane_id != 0 {
            ls.lane(lane_id)?;
        }
        self.borders(sec, s)
            .into_iter()
            .find(|(id, _)| *id == lane_id)
            .map(|(_, t)| t)
    }

    /// Inner and outer border t of `lane_id` at `s`.
    pub fn lane_span(&self, lane_id: i32, s: f64) -> Option<(f64, f64)> {
        if lane_id == 0 {
            return None;
        }
        let inner_id = inner_lane_id(lane_id);
        let sec = self.section_index(s)?;
        let ls = self.lane_sections.get(sec)?;
        // The borders of one side only, outward up to the lane (as `borders` computes them).
        let off = self.lane_offset(s);
        let ds = s - ls.s;
        let (side, sign) = if lane_id > 0 {
            (&ls.left, 1.0)
        } else {
            (&ls.right, -1.0)
        };
        let (mut t, mut inner) = (off, if inner_id == 0 { Some(off) } else { None });
        for lane in side.iter() {
            if !lane.widths.is_empty() {
                t += sign * lane_record(&lane.widths, ds);
            } else if !lane.borders.is_empty() {
                t = off + lane_record(&lane.borders, ds);
            }
            if lane.id == inner_id {
                inner = Some(t);
            }
            if lane.id == lane_id {
                return Some((inner?, t));
            }
        }
        None
    }

    /// Heading of the centre line of `lane_id` at `s`, in the direction of increasing s, from
    /// the closed forms: with t_c the lane centre's t and κ the reference line's curvature, the
    /// centre line's tangent is (1 − κ·t_c)·T + t_c'·N, so its heading is h + atan2(t_c', 1 − κ·t_c).
    /// `None` where the reference line has no closed-form curvature (cubics) or the lane does
    /// not exist at `s`.
    pub fn lane_center_heading(&self, lane_id: i32, s: f64) -> Option<f64> {
        if lane_id == 0 {
            return None;
        }
        let g = self.plan_view.get(self.geometry_index(s)?)?;
        g.curvature(s)?;
        let sec = self.section_index(s)?;
        self.lane_center_heading_in(g, g.eval(s).2, sec, lane_id, s)
    }

    /// [`Road::lane_center_heading`] where the caller already knows the geometry `g` and lane
    /// section `sec` in force at `s` and the reference heading `h` there (`g.eval(s).2`): map
    /// matching has them from the foot-point search.
    pub(crate) fn lane_center_heading_in(
        &self,
        g: &Geometry,
        h: f64,
        sec: usize,
        lane_id: i32,
        s: f64,
    ) -> Option<f64> {
        if lane_id == 0 {
            return None;
        }
        let kappa = g.curvature(s)?;
        let inner_id = inner_lane_id(lane_id);
        let ls = self.lane_sections.get(sec)?;
        let (off, doff) = records_slope(&self.lane_offsets, s).unwrap_or((0.0, 0.0));
        let ds = s - ls.s;
        let (side, sign) = if lane_id > 0 {
            (&ls.left, 1.0)
        } else {
            (&ls.right, -1.0)
        };
        let mut t = (off, doff);
        let mut inner = if inner_id == 0 { Some(t) } else { None };
        let mut span = None;
        for lane in side.iter() {
            if !lane.widths.is_empty() {
                let (w, dw) = lane_record_slope(&lane.widths, ds);
                t = (t.0 + sign * w, t.1 + sign * dw);
            } else if !lane.borders.is_empty() {
                let (b, db) = lane_record_slope(&lane.borders, ds);
                t = (off + b, doff + db);
            }
            if lane.id == inner_id {
                inner = Some(t);
            }
            if lane.id == lane_id {
                span = Some((inner?, t));
                break;
            }
        }
        let ((ti, dti), (to, dto)) = span?;
        let (tc, dtc) = (0.5 * (ti + to), 0.5 * (dti + dto));
        Some(if dtc == 0.0 && kappa * tc < 1.0 {
            h
        } else {
            h + dtc.atan2(1.0 - kappa * tc)
        })
    }

    /// (x, y) of road coordinate (s, t).
    pub fn st_to_xy(&self, s: f64, t: f64) -> (f64, f64) {
        let (x, y, _, sn, cs) = self.reference_sc(s);
        (x - sn * t, y + cs * t)
    }
}

/// The id of the lane next to `id` towards the centre lane (0 for lanes 1 and −1).
pub(crate) fn inner_lane_id(id: i32) -> i32 {
    if id > 0 {
        id - 1
    } else {
        id + 1
    }
}

/// Value and derivative of the record in force at `s`; `None` when none starts before.
fn records_slope(records: &[Poly3], s: f64) -> Option<(f64, f64)> {
    let i = records.partition_point(|r| r.s <= s);
    let r = records.get(i.checked_sub(1)?)?;
    Some((r.at(s - r.s), r.slope(s - r.s)))
}

/// [`lane_record`] with its derivative.
fn lane_record_slope(records: &[Poly3], ds: f64) -> (f64, f64) {
    let i = records.partition_point(|r| r.s <= ds);
    match records.get(i.saturating_sub(1)) {
        Some(r) => (r.at(ds - r.s), r.slope(ds - r.s)),
        None => (0.0, 0.0),
    }
}

/// Width (or border) at `ds` from the record in force; 0 before the first record.
fn lane_record(records: &[Poly3], ds: f64) -> f64 {
    let i = records.partition_point(|r| r.s <= ds);
    match records.get(i.saturating_sub(1)) {
        Some(r) => r.at(ds - r.s),
        None => 0.0,
    }
}

/// A junction `<connection>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Connection {
    /// `id`.
    pub id: String,
    /// `incomingRoad`.
    pub incoming_road: String,
    /// `connectingRoad` (absent in direct junctions).
    pub connecting_road: Option<String>,
    /// `linkedRoad` (direct junctions).
    pub linked_road: Option<String>,
    /// `contactPoint`.
    pub contact_point: Option<String>,
    /// `<laneLink from to>` pairs.
    pub lane_links: Vec<(i32, i32)>,
}

/// A `<junction>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Junction {
    /// `id`.
    pub id: String,
    /// `name`.
    pub name: String,
    /// `type` (`default`, `direct`, `virtual`, …).
    pub junction_type: String,
    /// Connections.
    pub connections: Vec<Connection>,
}
