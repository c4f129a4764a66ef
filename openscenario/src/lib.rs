//! ASAM OpenSCENARIO XML 1.3 for scil: a reader for the subset the Euro NCAP scenario files use
//! (parameters with expressions and constraints, catalogs, entities, Init, storyboard,
//! positions, the actions and conditions of those files, ClothoidSpline and Polyline
//! trajectories, deterministic variation files) and a writer for recorded runs.
//!
//! The reader hands out a plain [`model::Scenario`]: every parameter evaluated, every catalog
//! reference replaced by its entry. Anything it cannot honour is an [`Error`] naming the
//! element and its `file:line`; nothing is silently ignored. [`geom`] places positions and
//! trajectories on an OpenDRIVE map.

pub mod actions;
pub mod expr;
pub mod geom;
pub mod model;
pub mod params;
pub mod read;
pub mod storyboard;
pub mod value;
pub mod variation;
pub mod write;
pub mod xml;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use model::Scenario;
pub use value::Value;
pub use variation::{read_variation, Variation};

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{path}: {reason}", path = path.display())]
    Io { path: PathBuf, reason: String },
    #[error("{at}: {reason}")]
    Xml { at: String, reason: String },
    #[error("{at}: <{element}>: {reason}")]
    At {
        at: String,
        element: String,
        reason: String,
    },
    #[error("{0}")]
    Param(String),
    #[error("{0}")]
    Geometry(String),
}

/// One concrete scenario: the parameter values it was read with and the scenario.
#[derive(Debug, Clone)]
pub struct Concrete {
    pub parameters: BTreeMap<String, Value>,
    pub scenario: Scenario,
}

/// Reads a scenario file with parameter overrides (name → literal value).
pub fn read_scenario(path: &Path, overrides: &BTreeMap<String, String>) -> Result<Scenario, Error> {
    read::read_scenario(path, overrides)
}

/// Reads a scenario file or a variation file: one concrete scenario, or one per combination of
/// the variation (`overrides` apply on top of every combination).
pub fn import(path: &Path, overrides: &BTreeMap<String, String>) -> Result<Vec<Concrete>, Error> {
    if variation::is_variation(path)? {
        let v = read_variation(path)?;
        let mut out = Vec::with_capacity(v.combinations.len());
        for combo in &v.combinations {
            let mut all = combo.clone();
            all.extend(overrides.iter().map(|(k, v)| (k.clone(), v.clone())));
            let sc = read_scenario(&v.scenario_file, &all).map_err(|e| {
                Error::Param(format!(
                    "{}: combination {}: {e}",
                    path.display(),
                    describe(combo)
                ))
            })?;
            out.push(Concrete {
                parameters: sc.parameters.clone(),
                scenario: sc,
            });
        }
        Ok(out)
    } else {
        let sc = read_scenario(path, overrides)?;
        Ok(vec![Concrete {
            parameters: sc.parameters.clone(),
            scenario: sc,
        }])
    }
}

/// `a=1, b=2`.
pub fn describe(combo: &BTreeMap<String, String>) -> String {
    combo
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}
