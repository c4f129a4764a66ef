//! Admission of a new run: its track, and its scenario, map, source, DBC and carriers checked
//! against the store before anything is created (422 naming what is wrong).

use super::run::{CarrierSpec, NewRun, RunSource};
use super::Supervisor;
use crate::ingest::can::DbcDecoder;
use crate::ingest::csv::BadRowPolicy;
use crate::run::{InsSpec, Pace, RunSetup, SourceSpec};
use crate::scenario::engine::EngineConfig;
use crate::scenario::Scenario;
use crate::serve::error::{ApiError, ApiResult};

/// The track of a new run: the demo's own, a configured one, or the default; 422 otherwise.
pub(super) fn track_of(st: &Supervisor, req: &NewRun) -> ApiResult<String> {
    let c = &st.config;
    if req.demo {
        return Ok(c.demo.track.clone());
    }
    match &req.track {
        None => Ok(c.default_track().to_string()),
        Some(t) if c.is_track(t) => Ok(t.clone()),
        Some(t) => Err(ApiError::Unprocessable(format!(
            "track '{t}' is not a track of this service (tracks: {})",
            c.tracks.join(", ")
        ))),
    }
}

/// Checks a new run against the store (scenario, map, replay, DBC, carriers). Carriers that
/// do not say what they drive take it from the scenario ([`drives_from_scenario`]).
pub(super) async fn validate(st: &Supervisor, req: &mut NewRun) -> ApiResult<Option<String>> {
    track_of(st, req)?;
    let Some(sc) = st.store.get_scenario(&req.scenario_id).await? else {
        return Err(ApiError::Unprocessable(
            crate::serve::known::unknown(&st.store, "scenario", &req.scenario_id).await,
        ));
    };
    let scenario = Scenario::from_toml(&sc.toml)
        .map_err(|e| ApiError::Unprocessable(format!("scenario '{}': {e}", req.scenario_id)))?;
    let map_id = req.map_id.clone().or(sc.map_id);
    if let Some(m) = &map_id {
        if st.store.get_map(m).await?.is_none() {
            return Err(ApiError::Unprocessable(
                crate::serve::known::unknown(&st.store, "map", m).await,
            ));
        }
    }
    let spec = SourceSpec {
        can: req.can.clone(),
        ..SourceSpec::ins(ins_spec_unresolved(&req.source))
    };
    spec.validate().map_err(ApiError::Unprocessable)?;
    validate_sim(req)?;
    if let RunSource::SimVut(o) = &req.source {
        if o.vut_speed_kmh == 0.0 {
            // 0 km/h is for a VUT that starts from standstill or stands parked; any other
            // simulated VUT would never move.
            if scenario.vut.launch.is_none() && scenario.vut.door.is_none() {
                return Err(ApiError::Unprocessable(format!(
                    "sim_vut: vut speed 0 km/h, but the VUT of scenario '{}' neither starts from standstill (vut.launch) nor stands parked (vut.door): it would never move",
                    req.scenario_id
                )));
            }
        }
    }
    if let RunSource::CsvReplay { replay_id, .. } = &req.source {
        let Some(replay) = st.store.get_replay(replay_id).await? else {
            return Err(ApiError::Unprocessable(
                crate::serve::known::unknown(&st.store, "replay", replay_id).await,
            ));
        };
        // A replay recorded elsewhere (another map, or far from the scenario's paths).
        if let Some(why) =
            crate::serve::replay_fit::check(st, &req.scenario_id, map_id.as_deref(), &replay)
                .await?
        {
            return Err(ApiError::Unprocessable(why));
        }
        if !req.carriers.is_empty() && req.speed == Pace::Max {
            return Err(ApiError::Unprocessable(
                "real carriers move in real time: a replay with carriers needs a speed factor, not \"max\"".into(),
            ));
        }
    }
    if let Some(c) = &req.can {
        let Some(row) = st.store.get_dbc(c.dbc()).await? else {
            return Err(ApiError::Unprocessable(format!(
                "DBC '{}' is not registered (POST /api/v1/dbcs)",
                c.dbc()
            )));
        };
        if let Some(m) = &req.can_mapping {
            let dbc = DbcDecoder::parse(&row.text)
                .map_err(|e| ApiError::Unprocessable(format!("DBC '{}': {e}", c.dbc())))?;
            let missing = m.missing_in(&dbc);
            if !missing.is_empty() {
                return Err(ApiError::Unprocessable(format!(
                    "DBC '{}' defines no signal {}",
                    c.dbc(),
                    missing.join(", ")
                )));
            }
        }
    } else if req.can_mapping.is_some() {
        return Err(ApiError::Unprocessable(
            "can_mapping needs a CAN source (can)".into(),
        ));
    }
    drives_from_scenario(&scenario, &req.scenario_id, &mut req.carriers)?;
    super::virtual_targets::check(&scenario, &req.scenario_id, req)?;
    let ground = super::ground::is_ground(&req.carriers)?;
    if let RunSource::Monr { carrier } = &req.source {
        let drives_vut = req
            .carriers
            .iter()
            .any(|c| &c.name == carrier && c.drives == Some(crate::dispatch::ground::Drives::Vut));
        if !drives_vut {
            return Err(ApiError::Unprocessable(format!(
                "source monr: carrier '{carrier}' must be one of the run's carriers with \"drives\": \"vut\""
            )));
        }
    }
    if ground {
        // Objects on the ground: names and addresses here; what each drives is checked
        // against the scenario when the run is planned (arming), naming the object.
        carrier_specs(&req.carriers)?;
        crate::dispatch::ground::Ground::new(
            super::ground::object_specs(st, &req.carriers),
            super::ground::options(&st.config.ground),
        )
        .map_err(|e| ApiError::Unprocessable(format!("carriers: {e}")))?;
    } else if !req.carriers.is_empty() {
        let setup = RunSetup::new(scenario, None, EngineConfig::default());
        setup
            .carrier_configs_except(&carrier_specs(&req.carriers)?, &req.virtual_targets)
            .map_err(|e| ApiError::Unprocessable(format!("carriers: {e:#}")))?;
    }
    Ok(map_id)
}

/// What each object of a ground run drives, where the run body does not say (`drives`): the
/// scenario's `vut.carrier` drives the VUT, a target's `carrier` drives that target. The run is
/// on the ground when a carrier says what it drives or is the scenario's `vut.carrier`; other
/// runs keep their carriers as ISO 22133 targets of the carriers sink. 422 naming a carrier the
/// scenario does not place, or one it names for several actors.
pub(super) fn drives_from_scenario(
    scenario: &Scenario,
    scenario_id: &str,
    carriers: &mut [CarrierSpec],
) -> ApiResult<()> {
    use crate::dispatch::ground::Drives;
    let vut = scenario.vut.carrier.as_deref();
    let ground = carriers
        .iter()
        .any(|c| c.drives.is_some() || Some(c.name.as_str()) == vut);
    if !ground {
        return Ok(());
    }
    for c in carriers.iter_mut().filter(|c| c.drives.is_none()) {
        let targets: Vec<&str> = scenario
            .targets
            .iter()
            .filter(|t| t.carrier.as_deref() == Some(c.name.as_str()))
            .map(|t| t.id.as_str())
            .collect();
        c.drives = match (Some(c.name.as_str()) == vut, targets.as_slice()) {
            (true, []) => Some(Drives::Vut),
            (false, [t]) => Some(Drives::Target(t.to_string())),
            (false, []) => {
                return Err(ApiError::Unprocessable(format!(
                    "carrier '{}': scenario '{scenario_id}' names no actor it drives (vut.carrier, targets[].carrier); say what it drives with \"drives\"",
                    c.name
                )))
            }
            (is_vut, many) => {
                let mut actors: Vec<&str> = many.to_vec();
                if is_vut {
                    actors.insert(0, "vut");
                }
                return Err(ApiError::Unprocessable(format!(
                    "carrier '{}': scenario '{scenario_id}' names it for several actors ({}); say which it drives with \"drives\"",
                    c.name,
                    actors.join(", ")
                )));
            }
        };
    }
    Ok(())
}

/// The INS spec of a stored source before the replay id is resolved to its file.
pub(super) fn ins_spec_unresolved(src: &RunSource) -> InsSpec {
    match src {
        RunSource::CsvReplay { replay_id, .. } => InsSpec::Csv {
            path: replay_id.into(),
            columns: Vec::new(),
            on_bad_row: BadRowPolicy::Stop,
        },
        RunSource::Ncom { bind } => InsSpec::Ncom { bind: bind.clone() },
        RunSource::Adma { bind } => InsSpec::Adma { bind: bind.clone() },
        RunSource::Json { transport, bind } => InsSpec::Json {
            transport: *transport,
            bind: bind.clone(),
        },
        // Not opened through the source factory (see `sim_run`); checked by its own rules.
        RunSource::SimVut(_) => InsSpec::Csv {
            path: "sim:vut".into(),
            columns: Vec::new(),
            on_bad_row: BadRowPolicy::Stop,
        },
        // The robot's MONR, fed by the ground layer; never opened here.
        RunSource::Monr { carrier } => InsSpec::Csv {
            path: format!("monr:{carrier}").into(),
            columns: Vec::new(),
            on_bad_row: BadRowPolicy::Stop,
        },
    }
}

pub(super) fn carrier_specs(carriers: &[CarrierSpec]) -> ApiResult<Vec<String>> {
    carriers
        .iter()
        .map(|c| {
            if c.name.contains('=') || c.name.trim().is_empty() {
                Err(ApiError::Unprocessable(format!(
                    "bad carrier name '{}'",
                    c.name
                )))
            } else {
                Ok(format!("{}={}", c.name, c.address))
            }
        })
        .collect()
}

/// The rules of a `sim_vut` source (nothing to check for the others).
fn validate_sim(req: &NewRun) -> ApiResult<()> {
    let RunSource::SimVut(o) = &req.source else {
        return Ok(());
    };
    o.validate()
        .map_err(|e| ApiError::Unprocessable(format!("sim_vut: {e}")))?;
    if req.can.is_some() {
        return Err(ApiError::Unprocessable(
            "sim_vut: a simulated VUT takes no CAN source".into(),
        ));
    }
    if !req.carriers.is_empty() && req.speed == Pace::Max {
        return Err(ApiError::Unprocessable(
            "real carriers move in real time: a simulated run with carriers needs a speed factor, not \"max\"".into(),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::ground::Drives;

    fn scenario(vut_carrier: Option<&str>) -> Scenario {
        let mut s = Scenario::from_toml(include_str!("../../../data/scenarios/cpna75_30kmh.toml"))
            .expect("bundled scenario");
        s.vut.carrier = vut_carrier.map(String::from);
        s
    }

    fn carrier(name: &str, drives: Option<Drives>) -> CarrierSpec {
        CarrierSpec {
            name: name.into(),
            address: "127.0.0.2".into(),
            drives,
            mobility: None,
            max_lateral_m: None,
            capabilities: None,
        }
    }

    #[test]
    fn the_scenario_says_what_each_object_drives() {
        let mut c = vec![carrier("robot", None), carrier("carrier-1", None)];
        drives_from_scenario(&scenario(Some("robot")), "s", &mut c).expect("mapped");
        assert_eq!(c[0].drives, Some(Drives::Vut));
        assert_eq!(c[1].drives, Some(Drives::Target("dummy".into())));
    }

    #[test]
    fn the_run_body_wins_and_a_run_without_the_vut_robot_keeps_its_carriers() {
        // `drives` in the body is kept; the others follow the scenario.
        let mut c = vec![
            carrier("robot", Some(Drives::Target("dummy".into()))),
            carrier("carrier-1", None),
        ];
        drives_from_scenario(&scenario(None), "s", &mut c).expect("mapped");
        assert_eq!(c[0].drives, Some(Drives::Target("dummy".into())));
        assert_eq!(c[1].drives, Some(Drives::Target("dummy".into())));
        // No `drives` and no VUT robot of the scenario among them: targets of the carriers sink.
        let mut c = vec![carrier("carrier-1", None)];
        drives_from_scenario(&scenario(Some("robot")), "s", &mut c).expect("unchanged");
        assert_eq!(c[0].drives, None);
    }

    #[test]
    fn a_carrier_the_scenario_does_not_place_is_named() {
        let mut c = vec![carrier("robot", None), carrier("spare", None)];
        let e = drives_from_scenario(&scenario(Some("robot")), "s", &mut c).unwrap_err();
        assert!(
            format!("{e:?}").contains("carrier 'spare': scenario 's' names no actor"),
            "{e:?}"
        );
        let mut c = vec![carrier("carrier-1", None)];
        let e = drives_from_scenario(&scenario(Some("carrier-1")), "s", &mut c).unwrap_err();
        assert!(
            format!("{e:?}").contains("several actors (vut, dummy)"),
            "{e:?}"
        );
    }
}
