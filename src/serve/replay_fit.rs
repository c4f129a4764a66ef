//! Whether a recorded replay fits a scenario, i.e. whether replaying it will reach the
//! scenario's conflict and trigger its target: its VUT samples lie on the scenario's map (at
//! least [`ON_MAP_MIN`] of them on the map's lanes, after the scenario's interface put them in
//! the map frame), come within [`APPROACH_M`] of the point where the scenario's VUT meets its
//! first target (its conflict point on the planned path, or the point on the VUT's line the
//! target's start names), pass it in the scenario's direction (within [`HEADING_MAX_DEG`]),
//! and drive along the scenario's path (within [`LATERAL_M`] of it) for at least [`RUN_UP_M`]
//! before it. A run refuses a replay that does not (422 with the reason); the replay list can
//! say it per scenario (`GET /replays?scenario=ID`).

use std::path::Path;

use crate::ingest::csv::{BadRowPolicy, ColumnSpec};
use crate::ingest::recording::Recording;
use crate::run::setup::RunSetup;

/// Smallest share of the samples on the map's lanes.
pub const ON_MAP_MIN: f64 = 0.5;
/// Largest closest approach (m) of the samples to the scenario's meeting point: a lane and a
/// half beside it (a VUT in the neighbouring lane still fits).
pub const APPROACH_M: f64 = 5.0;
/// Largest lateral distance (m) of a sample from the scenario's VUT path that counts as
/// driving it (the neighbouring lane's centre is 3.5 m away).
pub const LATERAL_M: f64 = 1.5;
/// Largest heading difference (°) from the scenario's path where the VUT passes the meeting
/// point: a VUT crossing it or driving it the other way never reaches the conflict.
pub const HEADING_MAX_DEG: f64 = 45.0;
/// Shortest drive (m) along the scenario's path before the meeting point: the trigger predicts
/// the VUT's arrival from its approach.
pub const RUN_UP_M: f64 = 15.0;
/// At most this many samples are matched to the map's lanes (evenly spread over the file).
const MAP_CHECKS: usize = 400;

/// The verdict on one replay for one scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Fit {
    /// VUT samples read.
    pub samples: usize,
    /// Share of the checked samples on the map's lanes (`None`: the scenario has no map).
    pub on_map: Option<f64>,
    /// Closest approach to the meeting point, m (`None`: no sample in the map frame).
    pub closest_m: Option<f64>,
    /// Smallest heading difference (°) from the scenario's path among the samples within
    /// [`APPROACH_M`] of the meeting point (`None`: none that close).
    pub heading_off_deg: Option<f64>,
    /// Longest drive (m) along the scenario's path, in its direction, that ends at the meeting
    /// point (samples within [`LATERAL_M`] of the path before it).
    pub run_up_m: f64,
}

impl Fit {
    pub fn fits(&self) -> bool {
        self.samples > 0
            && self.on_map.is_none_or(|f| f >= ON_MAP_MIN)
            && self.closest_m.is_some_and(|d| d <= APPROACH_M)
            && self.heading_off_deg.is_some_and(|h| h <= HEADING_MAX_DEG)
            && self.run_up_m >= RUN_UP_M
    }

    /// Why not, naming the replay, the scenario and its map (and `recorded_on`, the map the
    /// replay was recorded for when known); `None` when it fits.
    pub fn reason(
        &self,
        replay: &str,
        scenario: &str,
        map: Option<&str>,
        recorded_on: Option<&str>,
    ) -> Option<String> {
        if self.fits() {
            return None;
        }
        let map = map.unwrap_or("(none)");
        let recorded = match recorded_on {
            Some(m) if m != map => format!("; it was recorded on map '{m}'"),
            _ => String::new(),
        };
        if self.samples == 0 {
            return Some(format!("replay '{replay}' has no VUT sample in the frame of scenario '{scenario}' (map '{map}'){recorded}"));
        }
        if let Some(f) = self.on_map.filter(|f| *f < ON_MAP_MIN) {
            return Some(format!(
                "replay '{replay}' does not lie on map '{map}' of scenario '{scenario}': {:.0} % of its samples are on the map's lanes (at least {:.0} % needed){recorded}",
                100.0 * f,
                100.0 * ON_MAP_MIN
            ));
        }
        Some(match (self.closest_m, self.heading_off_deg) {
            (Some(d), _) if d > APPROACH_M => format!(
                "replay '{replay}' never approaches the paths of scenario '{scenario}' (map '{map}'): its VUT comes no closer than {d:.1} m to where the scenario's VUT meets its target (at most {APPROACH_M} m){recorded}"
            ),
            (Some(_), Some(h)) if h > HEADING_MAX_DEG => format!(
                "replay '{replay}' does not drive into the conflict of scenario '{scenario}': where its VUT passes the meeting point it heads {h:.0}° away from the scenario's path (at most {HEADING_MAX_DEG}°){recorded}"
            ),
            (Some(_), Some(_)) => format!(
                "replay '{replay}' does not approach the conflict of scenario '{scenario}' along its path: its VUT drives only {:.1} m within {LATERAL_M} m of the scenario's path before the meeting point (at least {RUN_UP_M} m, for the trigger to predict its arrival){recorded}",
                self.run_up_m
            ),
            _ => format!("replay '{replay}' has no sample near scenario '{scenario}'"),
        })
    }
}

/// Reads the recording `file` (named `display` in errors; `kind` as stored: an `mcap` is in the
/// map frame already; `columns`: its column mapping) and judges it against `setup`'s scenario
/// and map.
pub fn assess(
    setup: &RunSetup,
    file: &Path,
    display: &Path,
    kind: &str,
    columns: &[String],
) -> Result<Fit, String> {
    let (line, s_line) = crate::sim::Path::for_scenario(setup);
    let (px, py, _) = line.pose(s_line);
    let vut = setup.vut_id().to_string();
    let mut points = Vec::new();
    if kind == "mcap" {
        let iface = setup.interface.for_map_frame();
        let src = crate::record::McapSource::open(file)
            .map_err(|e| format!("{}: {e}", display.display()))?;
        for s in src.flatten() {
            if let Ok(m) = iface.to_map(&s) {
                points.push((m.x, m.y, m.yaw_rad));
            }
        }
    } else {
        let specs: Vec<ColumnSpec> = columns.iter().filter_map(|c| c.parse().ok()).collect();
        let mut src = Recording::open_as(file, display, &specs, BadRowPolicy::Skip)
            .map_err(|e| format!("{}: line {}: {}", e.file.display(), e.line, e.reason))?;
        while let Some(s) = src.next_sample() {
            let Ok(s) = s else { continue };
            if *s.vehicle != *vut {
                continue;
            }
            if let Ok(m) = setup.interface.to_map(&s) {
                points.push((m.x, m.y, m.yaw_rad));
            }
        }
    }
    let closest_m = points
        .iter()
        .map(|(x, y, _)| (x - px).hypot(y - py))
        .fold(None, |m: Option<f64>, d| Some(m.map_or(d, |m| m.min(d))));
    let (heading_off_deg, run_up_m) = along_path(&points, &line, s_line, (px, py));
    let on_map = setup.map.as_ref().map(|map| {
        let step = points.len().div_ceil(MAP_CHECKS).max(1);
        let checked: Vec<_> = points.iter().step_by(step).collect();
        let on = checked
            .iter()
            .filter(|(x, y, _)| map.road_network.locate(*x, *y, None).is_some())
            .count();
        if checked.is_empty() {
            0.0
        } else {
            on as f64 / checked.len() as f64
        }
    });
    Ok(Fit {
        samples: points.len(),
        on_map,
        closest_m,
        heading_off_deg,
        run_up_m,
    })
}

/// Heading difference from `line` (°) where the samples pass the meeting point `p` (the
/// smallest among those within [`APPROACH_M`]), and the longest stretch along `line` in its
/// direction, within [`LATERAL_M`] of it, that ends within [`APPROACH_M`] of `s_line`.
fn along_path(
    points: &[(f64, f64, f64)],
    line: &crate::sim::Path,
    s_line: f64,
    p: (f64, f64),
) -> (Option<f64>, f64) {
    let off = |x: f64, y: f64, yaw: f64| {
        let s = line.project(x, y);
        let (lx, ly, lyaw) = line.pose(s);
        let d = (yaw - lyaw + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU)
            - std::f64::consts::PI;
        (s, (x - lx).hypot(y - ly), d.abs().to_degrees())
    };
    let heading = points
        .iter()
        .filter(|(x, y, _)| (x - p.0).hypot(y - p.1) <= APPROACH_M)
        .map(|&(x, y, yaw)| off(x, y, yaw).2)
        .fold(None, |m: Option<f64>, h| Some(m.map_or(h, |m| m.min(h))));
    // Runs of consecutive samples on the path and in its direction; the longest one that
    // reaches the meeting point.
    let mut best = 0.0f64;
    let mut start: Option<f64> = None;
    for &(x, y, yaw) in points {
        let (s, lat, h) = off(x, y, yaw);
        if lat <= LATERAL_M && h <= HEADING_MAX_DEG {
            let s0 = *start.get_or_insert(s);
            if (s - s_line).abs() <= APPROACH_M {
                best = best.max(s_line - s0);
            }
        } else {
            start = None;
        }
    }
    (heading, best)
}

/// Why replay `replay` does not fit scenario `scenario_id` on map `map_id` (the run's map,
/// else the scenario's), or `None` when it fits: recorded on another map (when the replay's map
/// is known), else judged on its samples ([`assess`]).
pub async fn check(
    st: &super::context::Shared,
    scenario_id: &str,
    map_id: Option<&str>,
    replay: &crate::store::ReplayRow,
) -> super::error::ApiResult<Option<String>> {
    use super::error::ApiError;
    let (row, scenario) = st.load_scenario(scenario_id, "does not exist").await?;
    let map_id = map_id.map(str::to_string).or(row.map_id.clone());
    if let (Some(rec), Some(want)) = (&replay.map_id, &map_id) {
        if rec != want {
            return Ok(Some(format!(
                "replay '{}' was recorded on map '{rec}', but scenario '{scenario_id}' is on map '{want}'",
                replay.id
            )));
        }
    }
    let map = st.map_opt(map_id.as_deref()).await?;
    let setup = RunSetup::try_new(scenario, map, Default::default())
        .map_err(|e| ApiError::Unprocessable(format!("scenario '{scenario_id}': {e:#}")))?;
    let path = super::shared_files::replay_path(st, replay).await?;
    let display = std::path::PathBuf::from(&replay.name);
    let (kind, columns) = (replay.kind.clone(), replay.column_specs());
    let fit = tokio::task::spawn_blocking(move || assess(&setup, &path, &display, &kind, &columns))
        .await
        .map_err(|e| ApiError::Internal(anyhow::anyhow!("replay fit: {e}")))?
        .map_err(ApiError::Unprocessable)?;
    Ok(fit.reason(
        &replay.id,
        scenario_id,
        map_id.as_deref(),
        replay.map_id.as_deref(),
    ))
}
