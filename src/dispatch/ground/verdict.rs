//! The verdict of a ground run from what the objects did.
//!
//! During a ground run the engine triggers and synchronises on a simulated target that follows
//! the plan from the instant it was triggered. Its figures are the *plan*; the verdict is taken
//! from the objects' own MONR, time-aligned on their own time stamps:
//!
//! * `impacts[]`: the impact location, its instant and the VUT's speed then, from the VUT's
//!   and the target's MONR ([`super::impact::monr_impact`]);
//! * `validity`: the target checks (`target_speed` raw MONR speed from 0.5 s after the
//!   target's planned acceleration, the protocol's stabilisation, to its planned braking; `target_lateral` the MONR position's
//!   distance from the target's planned path) over the window, the window closed by the MONR
//!   impact; the VUT checks stay those of the VUT's telemetry (the robot's MONR or the INS, as
//!   the run was fed), yaw rate and acceleration through the phaseless 10 Hz filter;
//! * `plan`: the engine's impacts and verdict on the simulated target, beside them.

use super::plan::{Drives, Prepared};
use super::report::ImpactCheck;
use crate::dispatch::control_centre::MonrSample;
use crate::dispatch::iso22133::ObjectState;
use crate::run::report::RunReport;
pub use crate::run::report::{PlanFigures, VerdictSources};
use crate::scenario::engine::ImpactRecord;
use crate::scenario::validity::{Channel, Check, Limits, WindowEnd};
use crate::scenario::{Activation, TargetSpec};

/// How long after its planned acceleration ends a target's speed is first judged, s (Euro NCAP:
/// T0 of a crossing scenario is 0.5 s after the target's acceleration phase; the car-to-car
/// crossing rows ask for 0.5 s of stabilisation).
pub const TARGET_STABILISATION_S: f64 = 0.5;

/// MONR speed of a track at `t` (linear between samples).
fn speed_at(track: &[MonrSample], t: f64) -> Option<f64> {
    let i = track.partition_point(|m| m.t_s <= t);
    let a = track.get(i.checked_sub(1)?)?;
    let b = track.get(i).unwrap_or(a);
    let f = if b.t_s > a.t_s {
        (t - a.t_s) / (b.t_s - a.t_s)
    } else {
        0.0
    };
    Some(a.speed_mps.abs() + f * (b.speed_mps.abs() - a.speed_mps.abs()))
}

fn running(track: &[MonrSample]) -> Vec<MonrSample> {
    track
        .iter()
        .filter(|m| m.state == ObjectState::Running)
        .copied()
        .collect()
}

/// The target's limits as the engine sets them for its primary target.
fn limits(prepared: &Prepared, t: &TargetSpec) -> Limits {
    let vut = &prepared.setup.scenario.vut;
    Limits {
        vut_nominal_kmh: match &vut.launch {
            Some(_) => None,
            None => Some(vut.speed_kmh.unwrap_or(0.0)),
        },
        target_nominal_kmh: (t.speed_kmh > 0.0).then_some(t.speed_kmh),
        target_kind: Some(t.kind),
        longitudinal: matches!(
            t.activation,
            Activation::Begin | Activation::Static | Activation::Headway
        ),
        steer_until_s: None,
    }
}

/// A target check over `(t, deviation)` samples inside `[from, to]`.
fn check(lim: &Limits, ch: Channel, devs: &[(f64, f64)], from: f64, to: f64) -> Option<Check> {
    let (lo, hi, limit) = lim.band(ch);
    let mut worst: Option<(f64, f64)> = None;
    let mut first = None;
    for &(t, d) in devs {
        if t < from - 1e-9 || t > to + 1e-9 {
            continue;
        }
        let e = (lo - d).max(d - hi);
        if worst.is_none_or(|(we, _)| e > we) {
            worst = Some((e, d));
        }
        if e > 0.0 && first.is_none() {
            first = Some(t);
        }
    }
    let (_, w) = worst?;
    Some(Check {
        channel: ch,
        ok: first.is_none(),
        limit,
        worst: w,
        first_violation_s: first,
    })
}

/// The primary target's checks from its object's MONR (times in the run's sample time:
/// `cc_minus_sample_s` is the control centre's time less the sample time).
fn target_checks(
    prepared: &Prepared,
    monr: &[Vec<MonrSample>],
    window: (f64, f64),
    cc_minus_sample_s: f64,
) -> Option<(Vec<Check>, String)> {
    let sc = &prepared.setup.scenario;
    let primary = sc
        .targets
        .iter()
        .find(|t| t.activation != Activation::Static)?;
    let (i, plan) = prepared
        .plans
        .iter()
        .enumerate()
        .find(|(_, p)| p.drives == Drives::Target(primary.id.clone()))?;
    let track = running(monr.get(i)?);
    let t0 = track.first()?.t_s;
    let lim = limits(prepared, primary);
    // The planned constant-speed stretch (after the launch has ended, before any braking), on
    // the object's clock from its first RUNNING MONR.
    let nominal = primary.speed_kmh / 3.6;
    let p0 = plan.track.points.first()?.t;
    let at_speed: Vec<f64> = plan
        .track
        .points
        .iter()
        .filter(|p| nominal > 0.0 && (p.v.abs() - nominal).abs() < 0.01 && p.a.abs() < 1e-3)
        .map(|p| p.t - p0)
        .collect();
    let mut checks = Vec::new();
    if let (Some(a), Some(b)) = (at_speed.first(), at_speed.last()) {
        // The protocol's stabilisation after the acceleration phase.
        let a = a + TARGET_STABILISATION_S;
        let devs: Vec<(f64, f64)> = track
            .iter()
            .filter(|m| m.t_s - t0 >= a && m.t_s - t0 <= *b)
            .map(|m| {
                (
                    m.t_s - cc_minus_sample_s,
                    m.speed_mps.abs() * 3.6 - primary.speed_kmh,
                )
            })
            .collect();
        checks.extend(check(&lim, Channel::TargetSpeed, &devs, window.0, window.1));
    }
    let devs: Vec<(f64, f64)> = track
        .iter()
        .map(|m| (m.t_s - cc_minus_sample_s, plan.track.lateral_m(m.x, m.y)))
        .collect();
    checks.extend(check(
        &lim,
        Channel::TargetLateral,
        &devs,
        window.0,
        window.1,
    ));
    Some((checks, plan.name.clone()))
}

/// Rewrites `run`'s impacts and verdict from the objects (see the module doc). The engine's
/// figures move to `run.plan`. `impacts` are the MONR impact checks, `vut_from_ins` says which
/// telemetry fed the VUT.
pub fn from_objects(
    run: &mut RunReport,
    prepared: &Prepared,
    monr: &[Vec<MonrSample>],
    impacts: &[ImpactCheck],
    cc_minus_sample_s: f64,
    vut_from_ins: bool,
) {
    let Some(vi) = prepared.plans.iter().position(|p| p.drives == Drives::Vut) else {
        return;
    };
    run.plan = Some(PlanFigures {
        impacts: run.impacts.clone(),
        validity: run.validity.clone(),
    });
    run.verdict_from = Some(VerdictSources {
        impacts: "monr",
        target_checks: "monr",
        vut_checks: if vut_from_ins { "ins" } else { "monr" },
    });
    let vut_track = running(monr.get(vi).map(Vec::as_slice).unwrap_or(&[]));
    let nominal = prepared.setup.scenario.vut.speed_kmh;
    let mut first_impact: Option<f64> = None;
    for rec in run.impacts.iter_mut() {
        let Some(c) = impacts.iter().find(|c| c.target == rec.target) else {
            continue;
        };
        match c.monr {
            Some(m) => {
                let t = m.t_s - cc_minus_sample_s;
                first_impact = Some(first_impact.map_or(t, |f: f64| f.min(t)));
                let v = speed_at(&vut_track, m.t_s).map(|v| v * 3.6);
                rec.time_s = Some(t);
                rec.location = Some(m.location);
                rec.overlap = None;
                rec.impact_point = None;
                rec.dummy_travel_m = None;
                rec.closest_approach_m = Some(0.0);
                rec.arrival_error_s = None;
                rec.stopped_short_m = None;
                rec.relative_speed_kmh = None;
                rec.note = Some("from the objects' MONR".into());
                if let Some(v) = v {
                    rec.vut_speed_kmh = Some(v);
                    rec.impact_speed_kmh = Some(v);
                    rec.speed_reduction_kmh = nominal.map(|n| n - v);
                }
            }
            None => {
                // The objects did not meet: no impact, whatever the plan said.
                *rec = ImpactRecord {
                    target: rec.target.clone(),
                    time_s: None,
                    dummy_travel_m: None,
                    nominal_travel_m: rec.nominal_travel_m,
                    overlap: None,
                    stopped_short_m: None,
                    note: Some("no impact in the objects' MONR".into()),
                    impact_point: None,
                    impact_speed_kmh: None,
                    relative_speed_kmh: None,
                    speed_reduction_kmh: None,
                    location: None,
                    vut_speed_kmh: vut_track.last().map(|m| m.speed_mps.abs() * 3.6),
                    arrival_error_s: None,
                    closest_approach_m: None,
                };
            }
        }
    }
    let Some(v) = run.validity.as_mut() else {
        return;
    };
    let Some(win) = v.window.as_mut() else {
        return;
    };
    // The window closes at the objects' impact (the AEB onset and warnings stay the VUT's).
    match (first_impact, v.closed_by) {
        (Some(t), Some(WindowEnd::Impact | WindowEnd::EndOfRun) | None) if t >= win.from_s => {
            win.to_s = t;
            v.closed_by = Some(WindowEnd::Impact);
        }
        (Some(t), _) if t >= win.from_s && t < win.to_s => {
            win.to_s = t;
            v.closed_by = Some(WindowEnd::Impact);
        }
        (None, Some(WindowEnd::Impact)) => v.closed_by = Some(WindowEnd::EndOfRun),
        _ => {}
    }
    let window = (win.from_s, win.to_s);
    if let Some((checks, object)) = target_checks(prepared, monr, window, cc_minus_sample_s) {
        v.checks
            .retain(|c| !matches!(c.channel, Channel::TargetSpeed | Channel::TargetLateral));
        v.checks.extend(checks);
        v.warnings
            .push(format!("target checks from object {object}'s MONR"));
    }
    v.valid = !v.checks.is_empty() && v.checks.iter().all(|c| c.ok);
}
