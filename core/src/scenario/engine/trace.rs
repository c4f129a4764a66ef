//! Per-sample traces for the report's time-series plots, off unless asked
//! for ([`Engine::record_traces`]). At every VUT sample the recorder keeps the validity frame
//! the verdict uses (or, without a `[validity]` table, the same frame without a lateral
//! reference) and each target's VUT TTC, speed and travel; at finish it takes the window and
//! the limits, and [`Engine::take_traces`] builds the `"traces"` block
//! ([`crate::scenario::validity::trace`]).
//!
//! Memory stays bounded on a long (live) run: until the window opens only the last
//! [`KEEP_BEFORE_S`] are kept, and recording stops [`TAIL_S`] after the kept range ends (the
//! margins leave the phaseless filter's values in the kept range as over the whole record).

/// Record kept while the window has not opened (s); also the span of a run without a window.
pub const KEEP_BEFORE_S: f64 = 200.0;
/// Recorded beyond the kept range's end, for the backward filter pass (s).
pub const TAIL_S: f64 = 2.0;

use super::Engine;
use crate::sample::Sample;
use crate::scenario::ttc;
use crate::scenario::validity::trace::{self, TargetInput, TraceSetup, Traces};
use crate::scenario::validity::{Frame, Limits};
use crate::scenario::Activation;

/// Series of one target, one entry per VUT sample.
#[derive(Debug, Clone, Default)]
struct Series {
    ttc_s: Vec<Option<f64>>,
    speed_kmh: Vec<Option<f64>>,
    travel_m: Vec<Option<f64>>,
}

pub(crate) struct Recorder {
    frames: Vec<Frame>,
    targets: Vec<Series>,
    /// Past the kept range: nothing more is recorded.
    done: bool,
    /// Window, limits and the checked target's interval, taken at finish.
    end: Option<End>,
}

struct End {
    setup: TraceSetup,
    primary: Option<usize>,
    /// `None` when it never started.
    primary_interval: Option<(Option<f64>, Option<f64>)>,
}

impl Recorder {
    fn new(targets: usize) -> Recorder {
        Recorder {
            frames: Vec::new(),
            targets: vec![Series::default(); targets],
            done: false,
            end: None,
        }
    }
}

impl Recorder {
    /// Drops frames before `t` (in batches of 10 s, so the cost stays linear).
    fn trim(&mut self, t: f64) {
        if self.frames.first().is_none_or(|f| f.time_s >= t - 10.0) {
            return;
        }
        let k = self.frames.partition_point(|f| f.time_s < t);
        self.frames.drain(..k);
        for s in &mut self.targets {
            s.ttc_s.drain(..k.min(s.ttc_s.len()));
            s.speed_kmh.drain(..k.min(s.speed_kmh.len()));
            s.travel_m.drain(..k.min(s.travel_m.len()));
        }
    }
}

impl Engine {
    /// Keeps per-sample traces of this run (call before the first sample); the run's result
    /// then carries them ([`Engine::take_traces`] after finish).
    pub fn record_traces(&mut self) {
        if self.proto.traces.is_none() {
            self.proto.traces = Some(Recorder::new(self.tracks.len()));
        }
    }

    /// The run's traces (once; `None` unless [`Engine::record_traces`] was called).
    pub fn take_traces(&mut self) -> Option<Traces> {
        self.trace_finish();
        let rec = self.proto.traces.take()?;
        let end = rec.end?;
        let targets = self
            .tracks
            .iter()
            .zip(rec.targets)
            .enumerate()
            .map(|(i, (t, s))| TargetInput {
                id: t.spec.id.clone(),
                kind: t.spec.kind,
                nominal_speed_kmh: t.spec.speed_kmh,
                nominal_travel_m: t
                    .crossing()
                    .then(|| ttc::nominal_travel_m(&t.spec, &self.vut)),
                speed_checked: (end.primary == Some(i)
                    && end.setup.limits.target_nominal_kmh.is_some())
                .then_some(end.primary_interval)
                .flatten(),
                ttc_s: s.ttc_s,
                speed_kmh: s.speed_kmh,
                travel_m: s.travel_m,
            })
            .collect();
        Some(trace::build(&rec.frames, &end.setup, targets))
    }

    /// Records this VUT sample (after the validity step, which built its frame).
    pub(super) fn trace_step(&mut self, s: &Sample) {
        let Some(rec) = self.proto.traces.as_mut() else {
            return;
        };
        let Some(v) = self.twin.get(&self.cfg.vut_id) else {
            return;
        };
        let now = s.time_s;
        let (from, to) = self
            .proto
            .validity
            .as_ref()
            .map_or((None, None), |tr| tr.bounds());
        if rec.done || to.is_some_and(|e| now > e + trace::AFTER_END_S + TAIL_S) {
            rec.done = true;
            return;
        }
        if from.is_none() {
            rec.trim(now - KEEP_BEFORE_S);
        }
        let frame = self
            .proto
            .validity
            .as_ref()
            .and_then(|tr| tr.last_frame())
            .filter(|f| f.time_s == now)
            .copied()
            .unwrap_or(Frame {
                time_s: now,
                vut_speed_kmh: v.speed_mps * 3.6,
                vut_lateral_m: None,
                yaw_rate_dps: v.yaw_rate_rps.to_degrees(),
                steering_wheel_deg: v.steering_wheel_deg,
                vut_accel_mps2: v.accel_mps2,
                target_speed_kmh: None,
                target_lateral_m: None,
            });
        rec.frames.push(frame);
        for (t, series) in self.tracks.iter().zip(rec.targets.iter_mut()) {
            let obj = self.twin.get(&t.spec.id);
            let travel = if t.measured {
                obj.map(|o| {
                    let (c, sn) = (t.profile.yaw.cos(), t.profile.yaw.sin());
                    (o.x - t.profile.start_x) * c + (o.y - t.profile.start_y) * sn
                })
            } else {
                Some(t.origin().map_or(0.0, |o| t.profile.travel(now - o)))
            };
            series.ttc_s.push(t.ttc);
            series.speed_kmh.push(obj.map(|o| o.speed_mps * 3.6));
            series.travel_m.push(travel);
        }
    }

    /// Takes the window and the limits (at finish, before the verdict consumes them).
    pub(super) fn trace_finish(&mut self) {
        let primary_fallback = self
            .tracks
            .iter()
            .position(|t| t.spec.activation != Activation::Static)
            .or(if self.tracks.is_empty() {
                None
            } else {
                Some(0)
            });
        let Some(rec) = self.proto.traces.as_mut() else {
            return;
        };
        if rec.end.is_some() {
            return;
        }
        let tr = self.proto.validity.as_ref();
        let primary = tr.map_or(primary_fallback, |tr| tr.primary());
        let limits = match tr {
            Some(tr) => tr.limits().clone(),
            None => {
                let t = primary.map(|i| &self.tracks[i].spec);
                Limits {
                    vut_nominal_kmh: match &self.vut.launch {
                        Some(_) => None,
                        None => Some(self.vut.speed_kmh.unwrap_or(0.0)),
                    },
                    target_nominal_kmh: t.filter(|t| t.speed_kmh > 0.0).map(|t| t.speed_kmh),
                    target_kind: t.map(|t| t.kind),
                    longitudinal: t.is_some_and(|t| t.activation != Activation::Ttc),
                    steer_until_s: None,
                }
            }
        };
        // The target speed is checked after the acceleration and before braking.
        let primary_interval = primary.and_then(|i| self.tracks.get(i)).and_then(|t| {
            let o = t.origin()?;
            Some((
                Some(o + t.profile.t_acc),
                t.spec.brake.map(|b| o + b.after_s),
            ))
        });
        rec.end = Some(End {
            setup: TraceSetup {
                limits,
                vut_nominal_known: self.vut.speed_kmh.is_some() && self.vut.launch.is_none(),
                window: tr.and_then(|tr| tr.window()),
                t0_ttc_s: tr.map(|tr| tr.t0_ttc_s()),
            },
            primary,
            primary_interval,
        });
    }
}
