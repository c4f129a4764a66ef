//! Euro NCAP test validity (protocol §1.5, §4.3.2).
//!
//! A run is valid when, over the window from T0 (VUT TTC = 4 s, or the protocol's own T0: see
//! [`T0Rule`]) to the first of impact, AEB onset (brake light or deceleration onset) or FCW
//! onset ([`WindowEnd`]), every channel stays within its limit (yaw and steering rates only up
//! to T_steer when it is given):
//!
//! | channel | limit | signal |
//! |---|---|---|
//! | `vut_speed` | nominal 0 / +1 km/h | raw |
//! | `vut_lateral` | ±0.05 m from the intended path | raw |
//! | `vut_yaw_rate` | 0 ± 1.0 °/s | 6th-order Butterworth 10 Hz, forward-backward |
//! | `vut_steering_rate` | 0 ± 15 °/s | same filter on the steering-wheel angle's derivative |
//! | `target_speed` | pedestrian ±0.2, cyclist ±0.5, car ±1.0 km/h (after its acceleration) | raw |
//! | `target_lateral` | ±0.05 m crossing, ±0.15 m longitudinal (car ±0.10 m) | raw |
//!
//! "12-pole phaseless" is read as a 6th-order filter run forward and backward (12 poles in
//! all, zero phase). A measurement rate below 100 Hz is a warning, not a verdict.
//!
//! [`assess`] is the final (offline) verdict over a recorded window; [`Live`] is the causal
//! check the engine runs sample by sample, reporting the first break of each channel at once
//! (causal filter, so it can differ from the final verdict near the limit; the final one is
//! authoritative).

pub mod aeb;
pub mod filter;
pub mod trace;

use serde::{Deserialize, Serialize};

use super::TargetKind;
use filter::{Butterworth, Causal};

/// `[validity]` in a scenario file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ValiditySpec {
    /// VUT TTC that opens the window (T0).
    #[serde(default = "default_t0")]
    pub t0_ttc_s: f64,
    /// Abort the run when a channel breaks (live).
    #[serde(default)]
    pub abort_on_invalid: bool,
    /// Longitudinal deceleration that counts as AEB onset (m/s², positive).
    #[serde(default = "default_aeb_decel")]
    pub aeb_decel_mps2: f64,
    /// Which instant is T0 (default `auto`: a braking target's deceleration onset − 1 s, else
    /// VUT TTC = `t0_ttc_s`).
    #[serde(default, skip_serializing_if = "T0Rule::is_auto")]
    pub t0: T0Rule,
    /// T_steer of a turning scenario: seconds after the run is armed. With `t0 = "steer"` the
    /// window opens 1 s before it; when given, yaw-rate and steering-rate checks end at it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t_steer_s: Option<f64>,
    /// T_steer as a place: the instant the VUT's control point passes this arc length of its
    /// planned path (`vut.path`), where the turn begins. Used instead of `t_steer_s`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub steer_at_path_s: Option<f64>,
    /// Tolerance (s) on the synchronised target's arrival at its conflict point against the
    /// VUT's (Euro NCAP: ±0.1 s in the crossing-path tests). Judged when the VUT reaches its
    /// conflict point before any intervention.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conflict_arrival_s: Option<f64>,
}

/// The protocol's T0 rules (Euro NCAP frontal collisions v1.1, §1.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum T0Rule {
    /// `target_brake` when the primary target brakes, else `ttc`.
    #[default]
    Auto,
    /// VUT TTC reaches `t0_ttc_s` (4 s).
    Ttc,
    /// Turning scenarios: T_steer − 1 s (needs `t_steer_s`).
    Steer,
    /// Braking-target scenarios: the target's deceleration onset − 1 s.
    TargetBrake,
    /// Car/PTW crossing scenarios: 0.5 s after the target's acceleration phase.
    TargetAccelEnd,
}

impl T0Rule {
    pub fn is_auto(&self) -> bool {
        *self == T0Rule::Auto
    }

    /// The rule in effect: `auto` is `target_brake` when the primary target brakes, else `ttc`.
    pub fn resolved(self, target_brakes: bool) -> T0Rule {
        match self {
            T0Rule::Auto if target_brakes => T0Rule::TargetBrake,
            T0Rule::Auto => T0Rule::Ttc,
            r => r,
        }
    }
}

/// What closed the validity window (`"closed_by"` in the verdict).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowEnd {
    Impact,
    /// Forward collision warning onset.
    Fcw,
    /// AEB onset seen as the brake light.
    BrakeLight,
    /// AEB onset seen as deceleration beyond `aeb_decel_mps2`.
    Deceleration,
    /// None of these: the run ended (or was aborted) first.
    EndOfRun,
}

fn default_t0() -> f64 {
    4.0
}
fn default_aeb_decel() -> f64 {
    1.0
}

impl Default for ValiditySpec {
    fn default() -> Self {
        ValiditySpec {
            t0_ttc_s: default_t0(),
            abort_on_invalid: false,
            aeb_decel_mps2: default_aeb_decel(),
            t0: T0Rule::Auto,
            t_steer_s: None,
            steer_at_path_s: None,
            conflict_arrival_s: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Hash, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum Channel {
    VutSpeed,
    VutLateral,
    VutYawRate,
    VutSteeringRate,
    TargetSpeed,
    TargetLateral,
    /// The target's arrival at its conflict point minus the VUT's (s): one value per run, not
    /// a per-sample channel (not in [`Channel::ALL`]).
    ConflictArrival,
    /// A lead vehicle's time headway from T0 until it brakes (s; the value furthest outside
    /// its band, or the extreme nearest to leaving it): one check per run, not in
    /// [`Channel::ALL`].
    Headway,
}

impl Channel {
    pub const ALL: [Channel; 6] = [
        Channel::VutSpeed,
        Channel::VutLateral,
        Channel::VutYawRate,
        Channel::VutSteeringRate,
        Channel::TargetSpeed,
        Channel::TargetLateral,
    ];
}

/// Limits of one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Limits {
    /// Nominal VUT speed; `None`: not checked (a start from standstill).
    pub vut_nominal_kmh: Option<f64>,
    pub target_nominal_kmh: Option<f64>,
    pub target_kind: Option<TargetKind>,
    /// Target moves along the VUT path (longitudinal/rear) rather than across it.
    pub longitudinal: bool,
    /// T_steer (sample time): yaw-rate and steering-rate checks end here ("to T_steer").
    pub steer_until_s: Option<f64>,
}

impl Limits {
    /// Whether channel `c` counts at `t` (yaw and steering only up to T_steer).
    fn counts(&self, c: Channel, t: f64) -> bool {
        match (c, self.steer_until_s) {
            (Channel::VutYawRate | Channel::VutSteeringRate, Some(ts)) => t <= ts + 1e-9,
            _ => true,
        }
    }
}

impl Limits {
    /// (low, high) band of the deviation, and its text.
    pub fn band(&self, c: Channel) -> (f64, f64, String) {
        let sym = |v: f64, unit: &str| (-v, v, format!("±{v} {unit}"));
        match c {
            Channel::VutSpeed => (0.0, 1.0, "nominal 0/+1.0 km/h".into()),
            Channel::VutLateral => sym(0.05, "m"),
            Channel::VutYawRate => sym(1.0, "°/s (10 Hz phaseless Butterworth)"),
            Channel::VutSteeringRate => sym(15.0, "°/s (10 Hz phaseless Butterworth)"),
            Channel::TargetSpeed => sym(
                match self.target_kind {
                    Some(TargetKind::Pedestrian) => 0.2,
                    Some(TargetKind::Cyclist) => 0.5,
                    _ => 1.0,
                },
                "km/h",
            ),
            Channel::TargetLateral => sym(
                match (self.target_kind, self.longitudinal) {
                    (Some(TargetKind::Vehicle), _) => 0.10,
                    (Some(TargetKind::Motorcycle), _) => 0.15,
                    (_, true) => 0.15,
                    _ => 0.05,
                },
                "m",
            ),
            Channel::ConflictArrival => sym(0.1, "s"),
            Channel::Headway => (0.0, 0.1, "nominal 0/+0.1 s".into()),
        }
    }
}

/// One VUT sample with what the checks need. `None` = not measured.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Frame {
    pub time_s: f64,
    pub vut_speed_kmh: f64,
    /// Lateral offset from the intended path (m, left positive).
    pub vut_lateral_m: Option<f64>,
    pub yaw_rate_dps: f64,
    pub steering_wheel_deg: Option<f64>,
    /// Longitudinal acceleration as measured (m/s²; raw: the AEB onset filters it, see
    /// [`aeb`]).
    pub vut_accel_mps2: f64,
    /// Target speed (km/h) once past its acceleration phase; `None` before or without target.
    pub target_speed_kmh: Option<f64>,
    pub target_lateral_m: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Window {
    pub from_s: f64,
    pub to_s: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Check {
    pub channel: Channel,
    pub ok: bool,
    pub limit: String,
    /// The deviation with the least margin (most outside the band), in the channel's unit.
    pub worst: f64,
    pub first_violation_s: Option<f64>,
}

/// The verdict: the `"validity"` object of results and `scil replay --json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Validity {
    pub valid: bool,
    pub window: Option<Window>,
    pub warnings: Vec<String>,
    pub checks: Vec<Check>,
    /// What closed the window (additive to the contract).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub closed_by: Option<WindowEnd>,
    /// The T0 rule that opened the window, when not the default TTC one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t0_rule: Option<T0Rule>,
}

impl Validity {
    /// The channel that broke first (earliest first violation).
    pub fn first_broken(&self) -> Option<Channel> {
        self.checks
            .iter()
            .filter_map(|c| c.first_violation_s.map(|t| (t, c.channel)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, c)| c)
    }
}

pub const FILTER_ORDER: usize = 6;
pub const FILTER_CUTOFF_HZ: f64 = 10.0;

/// Median sample interval.
fn median_dt(frames: &[Frame]) -> Option<f64> {
    let mut d: Vec<f64> = frames
        .windows(2)
        .map(|w| w[1].time_s - w[0].time_s)
        .filter(|d| *d > 0.0)
        .collect();
    if d.is_empty() {
        return None;
    }
    d.sort_by(f64::total_cmp);
    Some(d[d.len() / 2])
}

fn rate_warning(dt: Option<f64>) -> Option<String> {
    let hz = 1.0 / dt?;
    (hz < 99.5).then(|| format!("measurement rate {hz:.0} Hz is below the protocol's 100 Hz"))
}

/// Deviation of each channel at each frame (`None` when not measured). Filtering of yaw rate
/// and steering-wheel velocity over the whole record (so the window edges see no start-up).
pub(crate) fn deviations(
    frames: &[Frame],
    lim: &Limits,
    warnings: &mut Vec<String>,
) -> Vec<[Option<f64>; 6]> {
    let dt = median_dt(frames);
    let filt = dt.and_then(|dt| Butterworth::lowpass(FILTER_ORDER, FILTER_CUTOFF_HZ, 1.0 / dt));
    if dt.is_some() && filt.is_none() {
        warnings.push(
            "sample rate too low for the 10 Hz filter: yaw and steering rates unfiltered".into(),
        );
    }
    let smooth = |x: Vec<f64>| match &filt {
        Some(f) => f.filtfilt(&x),
        None => x,
    };
    // Yaw and steering rates count only up to T_steer: they are filtered over the record up to
    // it, so that the phaseless filter does not carry the steering onset back into the
    // samples before T_steer.
    let n_steer = match lim.steer_until_s {
        Some(ts) => frames.iter().take_while(|f| f.time_s <= ts + 1e-9).count(),
        None => frames.len(),
    };
    let mut yaw = smooth(frames[..n_steer].iter().map(|f| f.yaw_rate_dps).collect());
    yaw.extend(frames[n_steer..].iter().map(|f| f.yaw_rate_dps));
    let have_steer = frames.iter().all(|f| f.steering_wheel_deg.is_some());
    let steer_rate = if have_steer && frames.len() >= 2 {
        let frames_all = frames;
        let frames = &frames_all[..n_steer.max(2).min(frames_all.len())];
        let a: Vec<f64> = frames
            .iter()
            .map(|f| f.steering_wheel_deg.unwrap_or(0.0))
            .collect();
        let n = a.len();
        let d: Vec<f64> = (0..n)
            .map(|i| {
                let (i0, i1) = (i.saturating_sub(1), (i + 1).min(n - 1));
                let dt = frames[i1].time_s - frames[i0].time_s;
                if dt > 0.0 {
                    (a[i1] - a[i0]) / dt
                } else {
                    0.0
                }
            })
            .collect();
        // Past T_steer the rate is not checked.
        let mut r = smooth(d);
        r.resize(frames_all.len(), 0.0);
        Some(r)
    } else {
        if !frames.is_empty() {
            warnings.push("no steering-wheel angle: vut_steering_rate not checked".into());
        }
        None
    };
    frames
        .iter()
        .enumerate()
        .map(|(i, f)| {
            [
                lim.vut_nominal_kmh.map(|n| f.vut_speed_kmh - n),
                f.vut_lateral_m,
                Some(yaw[i]),
                steer_rate.as_ref().map(|s| s[i]),
                match (f.target_speed_kmh, lim.target_nominal_kmh) {
                    (Some(v), Some(n)) => Some(v - n),
                    _ => None,
                },
                f.target_lateral_m,
            ]
        })
        .collect()
}

/// Outside-the-band excess (> 0 is a violation).
fn excess(d: f64, lo: f64, hi: f64) -> f64 {
    (lo - d).max(d - hi)
}

/// The final verdict over `frames` (the whole record; only frames within `window` count).
pub fn assess(frames: &[Frame], lim: &Limits, window: Option<Window>) -> Validity {
    let mut warnings = Vec::new();
    if let Some(w) = rate_warning(median_dt(frames)) {
        warnings.push(w);
    }
    let Some(win) = window else {
        warnings.push("the validity window never opened (VUT TTC never reached T0)".into());
        return Validity {
            valid: false,
            window: None,
            warnings,
            checks: Vec::new(),
            closed_by: None,
            t0_rule: None,
        };
    };
    let devs = deviations(frames, lim, &mut warnings);
    let mut checks = Vec::new();
    for (k, ch) in Channel::ALL.iter().enumerate() {
        let (lo, hi, text) = lim.band(*ch);
        let mut worst: Option<(f64, f64)> = None;
        let mut first = None;
        for (f, d) in frames.iter().zip(&devs) {
            if f.time_s < win.from_s - 1e-9 || f.time_s > win.to_s + 1e-9 {
                continue;
            }
            let Some(d) = d[k] else { continue };
            if !lim.counts(*ch, f.time_s) {
                continue;
            }
            let e = excess(d, lo, hi);
            if worst.is_none_or(|(we, _)| e > we) {
                worst = Some((e, d));
            }
            if e > 0.0 && first.is_none() {
                first = Some(f.time_s);
            }
        }
        if let Some((_, w)) = worst {
            checks.push(Check {
                channel: *ch,
                ok: first.is_none(),
                limit: text,
                worst: w,
                first_violation_s: first,
            });
        }
    }
    Validity {
        valid: checks.iter().all(|c| c.ok) && !checks.is_empty(),
        window: Some(win),
        warnings,
        checks,
        closed_by: None,
        t0_rule: None,
    }
}

/// A break reported live.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Break {
    pub channel: Channel,
    pub time_s: f64,
    pub value: f64,
    pub limit: String,
}

/// Causal sample-by-sample check (the engine's live lamp per channel).
#[derive(Debug, Clone)]
pub struct Live {
    limits: Limits,
    yaw: Option<Causal>,
    steer: Option<Causal>,
    prev_steer: Option<(f64, f64)>,
    broken: [bool; 6],
    dt: Option<f64>,
    last_t: Option<f64>,
}

impl Live {
    pub fn new(limits: Limits) -> Live {
        Live {
            limits,
            yaw: None,
            steer: None,
            prev_steer: None,
            broken: [false; 6],
            dt: None,
            last_t: None,
        }
    }

    /// Sets T_steer (sample time): yaw and steering checks end there.
    pub fn set_steer_until(&mut self, t: Option<f64>) {
        self.limits.steer_until_s = t;
    }

    fn design(&self) -> Option<Butterworth> {
        Butterworth::lowpass(FILTER_ORDER, FILTER_CUTOFF_HZ, 1.0 / self.dt?)
    }

    /// Feeds one frame; `in_window` says whether it counts. Returns the channels that broke now.
    pub fn step(&mut self, f: &Frame, in_window: bool) -> Vec<Break> {
        if let Some(t) = self.last_t {
            let d = f.time_s - t;
            if d > 0.0 {
                self.dt = Some(self.dt.map_or(d, |e| 0.9 * e + 0.1 * d));
            }
        }
        self.last_t = Some(f.time_s);
        if self.yaw.is_none() {
            if let Some(b) = self.design() {
                self.yaw = Some(b.causal(f.yaw_rate_dps));
            }
        }
        let yaw = match self.yaw.as_mut() {
            Some(c) => c.step(f.yaw_rate_dps),
            None => f.yaw_rate_dps,
        };
        let rate = match (f.steering_wheel_deg, self.prev_steer) {
            (Some(a), Some((t0, a0))) if f.time_s > t0 => Some((a - a0) / (f.time_s - t0)),
            _ => None,
        };
        self.prev_steer = f.steering_wheel_deg.map(|a| (f.time_s, a));
        let rate = match rate {
            Some(r) => {
                if self.steer.is_none() {
                    self.steer = self.design().map(|b| b.causal(r));
                }
                Some(self.steer.as_mut().map_or(r, |c| c.step(r)))
            }
            None => None,
        };
        if !in_window {
            return Vec::new();
        }
        let devs = [
            self.limits.vut_nominal_kmh.map(|n| f.vut_speed_kmh - n),
            f.vut_lateral_m,
            Some(yaw),
            rate,
            match (f.target_speed_kmh, self.limits.target_nominal_kmh) {
                (Some(v), Some(n)) => Some(v - n),
                _ => None,
            },
            f.target_lateral_m,
        ];
        let mut out = Vec::new();
        for (k, ch) in Channel::ALL.iter().enumerate() {
            let Some(d) = devs[k] else { continue };
            if !self.limits.counts(*ch, f.time_s) {
                continue;
            }
            let (lo, hi, text) = self.limits.band(*ch);
            if !self.broken[k] && excess(d, lo, hi) > 0.0 {
                self.broken[k] = true;
                out.push(Break {
                    channel: *ch,
                    time_s: f.time_s,
                    value: d,
                    limit: text,
                });
            }
        }
        out
    }
}
