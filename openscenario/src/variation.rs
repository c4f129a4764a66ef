//! Variation files (`ParameterValueDistribution`): deterministic single-parameter
//! distributions (sets and ranges) and multi-parameter value sets; the combinations are the
//! Cartesian product of the distributions, in file order (the last distribution varies
//! fastest).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::params::{fmt_num, Scope};
use crate::read::{check_root, header, num, str_attr};
use crate::xml::{self, Node};
use crate::Error;

/// Most combinations a variation file may have.
pub const MAX_COMBINATIONS: usize = 100_000;

/// A variation file: the scenario it varies and one parameter assignment per combination.
#[derive(Debug, Clone)]
pub struct Variation {
    pub scenario_file: PathBuf,
    pub combinations: Vec<BTreeMap<String, String>>,
    /// Number of values of each distribution (their product is `combinations.len()`).
    pub distribution_sizes: Vec<usize>,
}

/// True when the file is a variation file (root holds `<ParameterValueDistribution>`).
pub fn is_variation(path: &Path) -> Result<bool, Error> {
    let root = xml::parse_file(path)?;
    Ok(root.child("ParameterValueDistribution").is_some())
}

/// Reads a variation file.
pub fn read_variation(path: &Path) -> Result<Variation, Error> {
    let root = xml::parse_file(path)?;
    check_root(&root)?;
    root.check(
        &["xmlns:xsi", "xsi:noNamespaceSchemaLocation"],
        &["FileHeader", "ParameterValueDistribution"],
    )?;
    header(&root)?;
    let pvd = root.req("ParameterValueDistribution")?;
    pvd.check(&[], &["ScenarioFile", "Deterministic", "Stochastic"])?;
    let s = Scope::default();
    let sf = pvd.req("ScenarioFile")?;
    sf.check(&["filepath"], &[])?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let scenario_file = dir.join(str_attr(sf, &s, "filepath")?);
    if let Some(st) = pvd.child("Stochastic") {
        return Err(st.err("stochastic distributions are not supported (deterministic ones are)"));
    }
    let det = pvd.req("Deterministic")?;
    det.check(
        &[],
        &[
            "DeterministicSingleParameterDistribution",
            "DeterministicMultiParameterDistribution",
        ],
    )?;
    let mut dists: Vec<Vec<Vec<(String, String)>>> = Vec::new();
    for d in &det.children {
        dists.push(if d.name == "DeterministicSingleParameterDistribution" {
            single(d, &s)?
        } else {
            multi(d, &s)?
        });
    }
    let total = dists.iter().try_fold(1usize, |a, d| a.checked_mul(d.len()));
    if total.is_none_or(|t| t > MAX_COMBINATIONS) {
        return Err(det.err(format!(
            "the distributions have more than {MAX_COMBINATIONS} combinations"
        )));
    }
    let mut combinations = vec![BTreeMap::new()];
    for dist in &dists {
        let mut next = Vec::with_capacity(combinations.len() * dist.len());
        for c in &combinations {
            for values in dist {
                let mut c2: BTreeMap<String, String> = c.clone();
                for (k, v) in values {
                    if c2.insert(k.clone(), v.clone()).is_some() {
                        return Err(det.err(format!(
                            "parameter '{k}' is varied by more than one distribution"
                        )));
                    }
                }
                next.push(c2);
            }
        }
        combinations = next;
    }
    Ok(Variation {
        scenario_file,
        distribution_sizes: dists.iter().map(Vec::len).collect(),
        combinations,
    })
}

fn single(d: &Node, s: &Scope) -> Result<Vec<Vec<(String, String)>>, Error> {
    d.check(
        &["parameterName"],
        &[
            "DistributionSet",
            "DistributionRange",
            "UserDefinedDistribution",
        ],
    )?;
    let name = str_attr(d, s, "parameterName")?;
    let c = d.only_child()?;
    let values: Vec<String> = match c.name.as_str() {
        "DistributionSet" => {
            c.check(&[], &["Element"])?;
            let mut v = Vec::new();
            for e in &c.children {
                e.check(&["value"], &[])?;
                v.push(str_attr(e, s, "value")?);
            }
            v
        }
        "DistributionRange" => {
            c.check(&["stepWidth"], &["Range"])?;
            let step = num(c, s, "stepWidth")?;
            let r = c.req("Range")?;
            r.check(&["lowerLimit", "upperLimit"], &[])?;
            let (lo, hi) = (num(r, s, "lowerLimit")?, num(r, s, "upperLimit")?);
            if step.is_nan() || step <= 0.0 || hi < lo {
                return Err(c.err("a range needs stepWidth > 0 and lowerLimit ≤ upperLimit"));
            }
            let n = ((hi - lo) / step + 1e-9).floor() as usize;
            if n > 100_000 {
                return Err(c.err("the range has more than 100000 values"));
            }
            (0..=n)
                .map(|i| fmt_num(round12(lo + i as f64 * step)))
                .collect()
        }
        _ => return Err(c.err("user-defined distributions are not supported")),
    };
    if values.is_empty() {
        return Err(c.err(format!("the distribution of '{name}' has no values")));
    }
    Ok(values
        .into_iter()
        .map(|v| vec![(name.clone(), v)])
        .collect())
}

/// Removes float noise of `lo + i·step` (10 + 3·0.1 → 10.3, not 10.300000000000001).
fn round12(v: f64) -> f64 {
    (v * 1e9).round() / 1e9
}

fn multi(d: &Node, s: &Scope) -> Result<Vec<Vec<(String, String)>>, Error> {
    d.check(&[], &["ValueSetDistribution"])?;
    let vs = d.only_child()?;
    vs.check(&[], &["ParameterValueSet"])?;
    let mut out = Vec::new();
    for set in &vs.children {
        set.check(&[], &["ParameterAssignment"])?;
        let mut one = Vec::new();
        for a in &set.children {
            a.check(&["parameterRef", "value"], &[])?;
            one.push((str_attr(a, s, "parameterRef")?, str_attr(a, s, "value")?));
        }
        out.push(one);
    }
    if out.is_empty() {
        return Err(vs.err("a value set distribution needs at least one set"));
    }
    Ok(out)
}
