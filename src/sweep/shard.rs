//! One slice of a sweep for a batch scheduler: `--shard K/N` runs the K-th (0-based) of N
//! disjoint, contiguous slices of the run indices; `--shard auto` takes K (and N) from a
//! Kubernetes Indexed Job or a Slurm job array. A shard's directory holds its rows
//! (`results.parquet`, `results.csv`), its `report.html` and `shard.json`: which sweep (an id
//! hashed from the grid and the input files' bytes), which slice, how many rows.

use std::io::Read;
use std::ops::Range;
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::grid::Grid;

/// The `format` of `shard.json`.
pub const MANIFEST_FORMAT: &str = "scil-sweep-shard/1";

/// The K-th (0-based) of N slices.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    fn new(index: usize, count: usize, what: &str) -> Result<Shard, String> {
        if count == 0 {
            return Err(format!("{what}: the shard count must be at least 1"));
        }
        if index >= count {
            return Err(format!(
                "{what}: shard {index} is out of range (shards are 0..{}, 0-based)",
                count - 1
            ));
        }
        Ok(Shard { index, count })
    }

    /// `K/N`, `auto` or `auto/N` (see [`Shard::from_env`]); `env` reads the environment.
    pub fn parse(spec: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Shard, String> {
        let spec = spec.trim();
        let what = format!("--shard {spec}");
        let num = |s: &str, name: &str| {
            s.trim()
                .parse::<usize>()
                .map_err(|_| format!("{what}: {name} '{s}' is not a non-negative integer"))
        };
        if spec == "auto" {
            return Shard::from_env(None, env);
        }
        let (k, n) = spec
            .split_once('/')
            .ok_or_else(|| format!("{what}: expected K/N (e.g. 0/4), auto or auto/N"))?;
        let n = num(n, "N")?;
        if k.trim() == "auto" {
            return Shard::from_env(Some(n), env);
        }
        Shard::new(num(k, "K")?, n, &what)
    }

    /// The shard of this process from the scheduler's environment: `JOB_COMPLETION_INDEX`
    /// (Kubernetes Indexed Job, 0-based; the count is `count`, the Job's `completions`), else
    /// `SLURM_ARRAY_TASK_ID` (made 0-based with `SLURM_ARRAY_TASK_MIN` and
    /// `SLURM_ARRAY_TASK_STEP`; the count is `count` or `SLURM_ARRAY_TASK_COUNT`).
    pub fn from_env(
        count: Option<usize>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Shard, String> {
        let var = |name: &str| -> Result<Option<usize>, String> {
            match env(name) {
                None => Ok(None),
                Some(v) => v
                    .trim()
                    .parse::<usize>()
                    .map(Some)
                    .map_err(|_| format!("--shard auto: ${name}='{v}' is not a number")),
            }
        };
        if let Some(k) = var("JOB_COMPLETION_INDEX")? {
            let n = count.ok_or_else(|| {
                "--shard auto: $JOB_COMPLETION_INDEX is set but Kubernetes does not give the \
                 shard count: use --shard auto/N with N the Job's completions"
                    .to_string()
            })?;
            return Shard::new(k, n, "--shard auto ($JOB_COMPLETION_INDEX)");
        }
        if let Some(id) = var("SLURM_ARRAY_TASK_ID")? {
            let min = var("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let step = var("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
            let k = id.checked_sub(min).ok_or_else(|| {
                format!(
                    "--shard auto: $SLURM_ARRAY_TASK_ID {id} is below $SLURM_ARRAY_TASK_MIN {min}"
                )
            })? / step;
            let n = match count {
                Some(n) => n,
                None => var("SLURM_ARRAY_TASK_COUNT")?.ok_or_else(|| {
                    "--shard auto: $SLURM_ARRAY_TASK_COUNT is not set: use --shard auto/N"
                        .to_string()
                })?,
            };
            return Shard::new(k, n, "--shard auto ($SLURM_ARRAY_TASK_ID)");
        }
        Err(
            "--shard auto: neither $JOB_COMPLETION_INDEX (Kubernetes Indexed Job) nor \
             $SLURM_ARRAY_TASK_ID (Slurm job array) is set: use --shard K/N"
                .into(),
        )
    }

    /// This shard's run indices of a grid of `total` runs: contiguous, sizes differ by at most
    /// one, the N slices cover `0..total` exactly once.
    pub fn range(&self, total: usize) -> Range<usize> {
        let at = |k: usize| (k as u128 * total as u128 / self.count as u128) as usize;
        at(self.index)..at(self.index + 1)
    }
}

/// One grid axis as written in `shard.json` (values as text, parsed back by the grid's rules).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AxisSpec {
    pub key: String,
    pub values: Vec<String>,
}

/// `shard.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: String,
    /// Hash of the grid and the input files: shards of one sweep share it.
    pub sweep_id: String,
    pub scenario_name: String,
    pub axes: Vec<AxisSpec>,
    pub repeat: u32,
    pub seed: u64,
    /// Runs in the whole grid.
    pub total: usize,
    pub shard: Shard,
    /// This shard's run indices, `[start, end)`.
    pub range: [usize; 2],
    /// Rows written (all of `range` unless interrupted).
    pub rows: usize,
    pub cancelled: bool,
    pub elapsed_s: f64,
    pub jobs: usize,
}

/// The axes of `grid` for the manifest.
pub fn axis_specs(grid: &Grid) -> Vec<AxisSpec> {
    grid.axes
        .iter()
        .map(|a| AxisSpec {
            key: a.key.name().to_string(),
            values: a.values.iter().map(|v| v.to_string()).collect(),
        })
        .collect()
}

/// The sweep's id: SHA-256 over the grid (keys, values, repeat, first seed) and the bytes of
/// every input file (scenario, map, replays), each with its role. Shards started with the same
/// command line on the same files share it; any change to a file or to the grid changes it.
pub fn sweep_id(grid: &Grid, inputs: &[(&str, &Path)]) -> std::io::Result<String> {
    let mut h = Sha256::new();
    h.update(b"scil-sweep/1\n");
    let spec = serde_json::json!({
        "axes": axis_specs(grid),
        "repeat": grid.repeat,
        "seed": grid.seed,
    });
    h.update(spec.to_string().as_bytes());
    for (role, path) in inputs {
        h.update(format!("\n{role}\n").as_bytes());
        let mut f = std::fs::File::open(path)
            .map_err(|e| std::io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        let mut buf = vec![0u8; 1 << 16];
        let mut len: u64 = 0;
        loop {
            let n = f.read(&mut buf)?;
            if n == 0 {
                break;
            }
            len += n as u64;
            h.update(&buf[..n]);
        }
        h.update(len.to_le_bytes());
    }
    let d = h.finalize();
    Ok(d.iter().take(16).map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| {
            vars.iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn slices_cover_the_grid_once() {
        for total in [0usize, 1, 2, 7, 10, 100_001] {
            for n in 1..=9 {
                let mut next = 0;
                for k in 0..n {
                    let r = Shard { index: k, count: n }.range(total);
                    assert_eq!(r.start, next);
                    assert!(r.len() <= total / n + 1);
                    next = r.end;
                }
                assert_eq!(next, total);
            }
        }
    }

    #[test]
    fn parses_explicit_and_scheduler_shards() {
        let none = env(&[]);
        assert_eq!(Shard::parse("2/3", &none), Ok(Shard { index: 2, count: 3 }));
        assert!(Shard::parse("3/3", &none).is_err_and(|e| e.contains("out of range")));
        assert!(Shard::parse("1/0", &none).is_err());
        assert!(Shard::parse("x/3", &none).is_err_and(|e| e.contains("'x'")));
        assert!(Shard::parse("auto", &none).is_err_and(|e| e.contains("neither")));
        let k8s = env(&[("JOB_COMPLETION_INDEX", "4")]);
        assert_eq!(
            Shard::parse("auto/5", &k8s),
            Ok(Shard { index: 4, count: 5 })
        );
        assert!(Shard::parse("auto", &k8s).is_err_and(|e| e.contains("auto/N")));
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "8"),
        ]);
        assert_eq!(
            Shard::parse("auto", &slurm),
            Ok(Shard { index: 6, count: 8 })
        );
        let bad = env(&[("SLURM_ARRAY_TASK_ID", "seven")]);
        assert!(Shard::parse("auto/8", &bad).is_err_and(|e| e.contains("not a number")));
    }
}
