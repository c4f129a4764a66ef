//! `scil sweep merge DIR… --out DIR`: the shards of one sweep ([`super::shard`]) combined into
//! the results and report an unsharded run writes. Refused with a clear error: a directory that
//! is not a shard, shards of different sweeps, a missing, duplicate or interrupted shard, rows
//! that do not match the grid.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use super::grid::{Axis, Grid, Key};
use super::shard::{Manifest, MANIFEST_FORMAT};
use super::{parquet, Outcome};

/// The merged sweep.
pub struct Merged {
    pub sweep_id: String,
    pub scenario_name: String,
    pub grid: Grid,
    /// Every run in index order; `elapsed_s` is the longest shard's, `jobs` the sum.
    pub outcome: Outcome,
    pub shards: usize,
}

/// Reads `DIR/shard.json`.
pub fn read_manifest(dir: &Path) -> anyhow::Result<Manifest> {
    let p = dir.join("shard.json");
    let text = std::fs::read_to_string(&p).with_context(|| {
        format!(
            "{}: not a sweep shard (no readable shard.json; shards are written by `scil sweep … --shard K/N`)",
            dir.display()
        )
    })?;
    let m: Manifest = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a valid shard manifest", p.display()))?;
    if m.format != MANIFEST_FORMAT {
        bail!(
            "{}: format '{}', expected '{MANIFEST_FORMAT}'",
            p.display(),
            m.format
        );
    }
    Ok(m)
}

fn grid_of(m: &Manifest, dir: &Path) -> anyhow::Result<Grid> {
    let axes = m
        .axes
        .iter()
        .map(|a| Axis::from_strs(Key::parse(&a.key)?, a.values.iter().map(String::as_str)))
        .collect::<Result<Vec<_>, _>>()
        .with_context(|| format!("{}: shard.json grid", dir.display()))?;
    let grid = Grid::new(axes, m.repeat, m.seed, usize::MAX)
        .with_context(|| format!("{}: shard.json grid", dir.display()))?;
    if grid.runs() != m.total {
        bail!(
            "{}: shard.json says {} runs, its grid has {}",
            dir.display(),
            m.total,
            grid.runs()
        );
    }
    Ok(grid)
}

/// Checks and combines the shards in `dirs`.
pub fn merge(dirs: &[PathBuf]) -> anyhow::Result<Merged> {
    if dirs.is_empty() {
        bail!("scil sweep merge: no shard directories given");
    }
    let mut shards: Vec<(PathBuf, Manifest)> = Vec::new();
    for d in dirs {
        shards.push((d.clone(), read_manifest(d)?));
    }
    let (d0, m0) = &shards[0];
    for (d, m) in &shards[1..] {
        if m.sweep_id != m0.sweep_id {
            bail!(
                "{} is a shard of sweep {}, {} of sweep {}: shards of different sweeps (another grid or other input files) cannot be merged",
                d0.display(),
                m0.sweep_id,
                d.display(),
                m.sweep_id
            );
        }
        if m.shard.count != m0.shard.count {
            bail!(
                "{} is shard {}/{}, {} is shard {}/{}: the sweep was split differently",
                d0.display(),
                m0.shard.index,
                m0.shard.count,
                d.display(),
                m.shard.index,
                m.shard.count
            );
        }
    }
    let n = m0.shard.count;
    let mut by_index: BTreeMap<usize, &(PathBuf, Manifest)> = BTreeMap::new();
    for s in &shards {
        if let Some(prev) = by_index.insert(s.1.shard.index, s) {
            bail!(
                "shard {}/{n} is given twice: {} and {}",
                s.1.shard.index,
                prev.0.display(),
                s.0.display()
            );
        }
    }
    let missing: Vec<String> = (0..n)
        .filter(|k| !by_index.contains_key(k))
        .map(|k| k.to_string())
        .collect();
    if !missing.is_empty() {
        bail!(
            "sweep {}: missing shard{} {} of 0..{} (got {} of {n})",
            m0.sweep_id,
            if missing.len() == 1 { "" } else { "s" },
            missing.join(", "),
            n - 1,
            by_index.len()
        );
    }
    let grid = grid_of(m0, d0)?;
    let total = grid.runs();
    let mut rows = Vec::with_capacity(total);
    let (mut elapsed, mut jobs) = (0.0f64, 0usize);
    for (d, m) in by_index.values().map(|s| (&s.0, &s.1)) {
        let range = m.shard.range(total);
        if m.range != [range.start, range.end] || m.total != total {
            bail!(
                "{}: shard {}/{n} covers runs {}..{}, expected {}..{}",
                d.display(),
                m.shard.index,
                m.range[0],
                m.range[1],
                range.start,
                range.end
            );
        }
        if m.cancelled || m.rows != range.len() {
            bail!(
                "{}: shard {}/{n} is incomplete ({} of {} runs; it was interrupted): run it again",
                d.display(),
                m.shard.index,
                m.rows,
                range.len()
            );
        }
        let mut part = parquet::read_rows(&d.join("results.parquet"), &grid)?;
        part.sort_by_key(|r| r.index);
        let indices_ok =
            part.len() == range.len() && part.iter().zip(range.clone()).all(|(r, i)| r.index == i);
        if !indices_ok {
            bail!(
                "{}: results.parquet has {} rows, not exactly the runs {}..{} of shard {}/{n}",
                d.display(),
                part.len(),
                range.start,
                range.end,
                m.shard.index
            );
        }
        rows.extend(part);
        elapsed = elapsed.max(m.elapsed_s);
        jobs += m.jobs;
    }
    Ok(Merged {
        sweep_id: m0.sweep_id.clone(),
        scenario_name: m0.scenario_name.clone(),
        grid,
        outcome: Outcome {
            rows,
            total,
            cancelled: false,
            elapsed_s: elapsed,
            jobs,
        },
        shards: n,
    })
}
