//! What the objects of a run did against their plans: each object's lag behind its schedule
//! and, per target, the impact from MONR against the planned one.

use serde::Serialize;

use super::bench::Prepared;
use super::impact::{drift_between, monr_impact, timing_corrected, MonrImpact};
use super::plan::{Drives, ObjectPlan};
use super::track::PlannedTrack;
use crate::dispatch::control_centre::MonrSample;
use crate::dispatch::iso22133::ObjectState;

/// A target's impact as driven (MONR) against the planned one (the rehearsal's).
#[derive(Debug, Clone, Serialize)]
pub struct ImpactCheck {
    pub target: String,
    pub planned_location: Option<f64>,
    pub monr: Option<MonrImpact>,
    /// MONR location − planned location.
    pub error: Option<f64>,
    /// How much further the target object drifted off its own schedule than the VUT robot
    /// between the target's start and the impact, s (positive: the target fell behind). Shown,
    /// never taken out of the verdict: motion lag is part of what the objects did.
    pub relative_drift_s: Option<f64>,
    /// Diagnosis of a platform, never the verdict: where the objects would have met had each
    /// kept its own TRAJ schedule (the target's track shifted by `relative_drift_s`), and its
    /// location − planned location.
    pub on_schedule: Option<MonrImpact>,
    pub on_schedule_error: Option<f64>,
    /// How far the target object's clock runs ahead of the VUT robot's, measured before the
    /// start: the difference of the smallest MONR arrival − time stamp of each (one-way delay
    /// plus clock offset; the objects share one network, so the difference is their clocks').
    pub clock_offset_s: Option<f64>,
    /// The impact from MONR with that clock offset taken out, and its location − planned
    /// location.
    pub corrected: Option<MonrImpact>,
    pub corrected_error: Option<f64>,
}

/// An object's lags behind its plan while RUNNING ([`PlannedTrack::schedule_lags`], times
/// from its first RUNNING MONR) with that MONR's control-centre time.
pub type Lags = Option<(f64, Vec<(f64, f64)>)>;

/// Every object's [`Lags`], computed once for the reports and the impact checks.
pub fn lags_of(plans: &[ObjectPlan], monr: &[Vec<MonrSample>]) -> Vec<Lags> {
    plans
        .iter()
        .zip(monr)
        .map(|(p, m)| running_lags(&p.track, m))
        .collect()
}

/// One object's [`Lags`] from its MONR.
fn running_lags(track: &PlannedTrack, monr: &[MonrSample]) -> Lags {
    let running: Vec<&MonrSample> = monr
        .iter()
        .filter(|m| m.state == ObjectState::Running)
        .collect();
    let t0 = running.first()?.t_s;
    let pts: Vec<(f64, f64, f64)> = running.iter().map(|m| (m.t_s - t0, m.x, m.y)).collect();
    Some((t0, track.schedule_lags(&pts)))
}

/// Each moving target driven by an object, with the VUT robot among them: its impact from
/// MONR against the rehearsal's: as driven, with a clock offset between the objects measured
/// before the start taken out, and (a diagnosis) had both kept their schedules.
pub fn impact_checks(
    prepared: &Prepared,
    monr: &[Vec<MonrSample>],
    lags: &[Lags],
    pre_start_latency: &[Option<f64>],
) -> Vec<ImpactCheck> {
    let Some(vi) = prepared.plans.iter().position(|p| p.drives == Drives::Vut) else {
        return Vec::new();
    };
    let vut = &prepared.setup.scenario.vut;
    prepared
        .plans
        .iter()
        .enumerate()
        .filter_map(|(i, p)| match &p.drives {
            Drives::Target(id) => Some((i, id)),
            Drives::Vut => None,
        })
        .filter_map(|(i, id)| {
            let spec = prepared
                .setup
                .scenario
                .targets
                .iter()
                .find(|t| &t.id == id)?;
            let planned = prepared.rehearsal.as_ref().and_then(|r| {
                r.impacts
                    .iter()
                    .find(|m| &m.target == id && m.time_s.is_some())
                    .and_then(|m| m.location)
            });
            let (vt, tt) = (monr.get(vi)?, monr.get(i)?);
            let got = monr_impact(vut, spec, vt, tt);
            // Each object's drift from the target's start to the impact.
            let (target_lags, vut_lags) = (lags.get(i)?, lags.get(vi)?);
            let relative_drift_s = got.zip(target_lags.as_ref()).and_then(|(g, (t0, lags))| {
                let target = drift_between(lags, *t0, *t0, g.t_s)?;
                let vut = vut_lags
                    .as_ref()
                    .and_then(|(v0, vl)| drift_between(vl, *v0, *t0, g.t_s))
                    .unwrap_or(0.0);
                Some(target - vut)
            });
            let clock_offset_s = match (pre_start_latency.get(vi), pre_start_latency.get(i)) {
                (Some(Some(v)), Some(Some(t))) => Some(v - t),
                _ => None,
            };
            let corrected = clock_offset_s.and_then(|d| timing_corrected(vut, spec, vt, tt, d));
            let on_schedule = relative_drift_s.and_then(|d| timing_corrected(vut, spec, vt, tt, d));
            let error = |g: Option<MonrImpact>| match (g, planned) {
                (Some(g), Some(p)) => Some(g.location - p),
                _ => None,
            };
            Some(ImpactCheck {
                target: id.clone(),
                planned_location: planned,
                error: error(got),
                monr: got,
                relative_drift_s,
                on_schedule_error: error(on_schedule),
                on_schedule,
                clock_offset_s,
                corrected_error: error(corrected),
                corrected,
            })
        })
        .collect()
}

/// How far behind its plan an object drove in metres, as the speed rule measures it live
/// ([`crate::dispatch::motion_watch::Lag`]): the planned distance along its path at each
/// RUNNING MONR (time from its first RUNNING MONR) less the distance it had driven there. At
/// its last RUNNING MONR and the largest (by magnitude); negative = ahead.
pub fn lag_m(track: &PlannedTrack, name: &str, monr: &[MonrSample]) -> Option<(f64, f64)> {
    let mut w = crate::dispatch::motion_watch::PathWatch::of_traj(&track.to_traj(0, name))?;
    let mut running = monr.iter().filter(|m| m.state == ObjectState::Running);
    let first = running.next()?;
    let t0 = first.t_s;
    let (mut last, mut worst) = (0.0f64, 0.0f64);
    for m in std::iter::once(first).chain(running) {
        let at = w.locate(m.x, m.y, 1.0);
        last = w.planned_along(m.t_s - t0) - at.along_m;
        if last.abs() > worst.abs() {
            worst = last;
        }
    }
    Some((last, worst))
}
