//! Sweeps on batch schedulers: `scil sweep --shard K/N` (the real binary) split into 3 shards
//! and `scil sweep merge` give the same rows (CSV byte for byte, Parquet row for row, read back
//! by scil and by pyarrow) and the same report tables as the unsharded sweep; merge refuses
//! missing, duplicate and foreign shards; `--shard auto` reads the scheduler's index.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support;
use support::{python, shared, tempdir};

fn sweep(out: &Path, seed: &str, extra: &[&str], env: &[(&str, &str)]) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_scil"));
    c.arg("sweep")
        .arg("--scenario")
        .arg(shared("scenarios/cpna75_30kmh.toml"))
        .arg("--replay")
        .arg(shared("replays/cpna75_30kmh.csv"))
        .arg("--replay")
        .arg(shared("replays/cpna75_50kmh.csv"))
        .args(["--vary", "method=predicted,at_sample"])
        .args(["--vary", "noise.pos=0,0.05"])
        .args(["--repeat", "2", "--seed", seed, "--jobs", "2", "--quiet"])
        .arg("--out")
        .arg(out)
        .args(extra)
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("SLURM_ARRAY_TASK_ID");
    for (k, v) in env {
        c.env(k, v);
    }
    let o = c.output().expect("scil runs");
    assert!(
        o.status.success(),
        "scil sweep {extra:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn merge(dirs: &[&PathBuf], out: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_scil"))
        .args(["sweep", "merge"])
        .args(dirs)
        .arg("--out")
        .arg(out)
        .output()
        .expect("scil runs")
}

fn text(p: PathBuf) -> String {
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The report from its first table on (the header line names run time and jobs).
fn report_tables(dir: &Path) -> String {
    let h = text(dir.join("report.html"));
    let at = h.find("<h2>Table 2").expect("table 2 in the report");
    h[at..].to_string()
}

#[test]
fn three_shards_merged_equal_the_unsharded_sweep() {
    let root = tempdir("shards");
    let whole = root.join("whole");
    sweep(&whole, "7", &[], &[]);
    let shards: Vec<PathBuf> = (0..3).map(|k| root.join(format!("shard{k}"))).collect();
    sweep(&shards[0], "7", &["--shard", "0/3"], &[]);
    // Kubernetes Indexed Job: the index from the environment, the count given.
    sweep(
        &shards[1],
        "7",
        &["--shard", "auto/3"],
        &[("JOB_COMPLETION_INDEX", "1")],
    );
    // Slurm job array --array=1-3: 1-based task ids, the count from Slurm.
    sweep(
        &shards[2],
        "7",
        &["--shard", "auto"],
        &[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
        ],
    );
    let lines: Vec<usize> = shards
        .iter()
        .map(|d| text(d.join("results.csv")).lines().count() - 1)
        .collect();
    assert_eq!(lines, vec![5, 5, 6], "16 runs in 3 contiguous slices");

    let merged = root.join("merged");
    // Shards in any order.
    let o = merge(&[&shards[2], &shards[0], &shards[1]], &merged);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let csv_whole = text(whole.join("results.csv"));
    assert_eq!(csv_whole.lines().count(), 17);
    assert_eq!(
        text(merged.join("results.csv")),
        csv_whole,
        "CSV byte for byte"
    );
    assert_eq!(report_tables(&merged), report_tables(&whole));

    // The Parquet rows, read back through scil's reader against the grid, row for row.
    let m = scil::sweep::merge::merge(&shards).expect("merges");
    let grid = &m.grid;
    let a = scil::sweep::parquet::read_rows(&whole.join("results.parquet"), grid).expect("whole");
    let b = scil::sweep::parquet::read_rows(&merged.join("results.parquet"), grid).expect("merged");
    assert_eq!(a.len(), 16);
    assert_eq!(a, b);
    assert_eq!(m.outcome.rows, a);
    assert!(a.iter().all(|r| r.error.is_none() && r.ttc_s.is_some()));

    // An independent reader: pyarrow sees the same rows and values as the CSV.
    let script = r#"
import sys, csv, pyarrow.parquet as pq
t = pq.read_table(sys.argv[1]).to_pylist()
rows = list(csv.DictReader(open(sys.argv[2])))
assert len(t) == len(rows) == 16, (len(t), len(rows))
for p, c in zip(t, rows):
    assert p["index"] == int(c["index"]) and p["seed"] == int(c["seed"])
    assert p["replay"] == c["replay"] and p["method"] == c["method"]
    assert p["noise_pos"] == float(c["noise.pos"])
    for k in ("ttc_s", "fire_error_ms", "travel_error_m"):
        assert (p[k] is None and c[k] == "") or p[k] == float(c[k]), (k, p[k], c[k])
print("ok", len(t))
"#;
    let merged_pq = merged.join("results.parquet");
    let whole_csv = whole.join("results.csv");
    if let Some(out) = python::run(
        "pyarrow",
        script,
        &[
            merged_pq.to_str().expect("utf-8 path"),
            whole_csv.to_str().expect("utf-8 path"),
        ],
    ) {
        assert_eq!(out.trim(), "ok 16");
    }

    // Refused: a missing shard, a shard given twice, a shard of another sweep.
    let err = |o: std::process::Output| {
        assert!(!o.status.success());
        String::from_utf8_lossy(&o.stderr).into_owned()
    };
    let e = err(merge(&[&shards[0], &shards[2]], &root.join("m1")));
    assert!(e.contains("missing shard 1 of 0..2"), "{e}");
    let e = err(merge(
        &[&shards[0], &shards[1], &shards[1], &shards[2]],
        &root.join("m2"),
    ));
    assert!(e.contains("shard 1/3 is given twice"), "{e}");
    let other = root.join("other");
    sweep(&other, "8", &["--shard", "1/3"], &[]);
    let e = err(merge(&[&shards[0], &other, &shards[2]], &root.join("m3")));
    assert!(e.contains("shards of different sweeps"), "{e}");
    let e = err(merge(&[&whole], &root.join("m4")));
    assert!(e.contains("not a sweep shard"), "{e}");
    assert!(!root.join("m1").exists() && !root.join("m3").exists());

    // A shard of a differently split run of the same sweep.
    let four = root.join("four");
    sweep(&four, "7", &["--shard", "3/4"], &[]);
    let e = err(merge(&[&shards[0], &shards[1], &four], &root.join("m5")));
    assert!(e.contains("split differently"), "{e}");
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn bad_shard_arguments_are_clear_errors() {
    let root = tempdir("shard-args");
    for (spec, env, want) in [
        ("3/3", vec![], "out of range"),
        ("a/b", vec![], "not a non-negative integer"),
        ("auto", vec![], "neither $JOB_COMPLETION_INDEX"),
        ("auto", vec![("JOB_COMPLETION_INDEX", "0")], "auto/N"),
    ] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_scil"));
        c.arg("sweep")
            .arg("--scenario")
            .arg(shared("scenarios/cpna75_30kmh.toml"))
            .arg("--replay")
            .arg(shared("replays/cpna75_30kmh.csv"))
            .args(["--shard", spec, "--quiet"])
            .arg("--out")
            .arg(root.join("x"))
            .env_remove("JOB_COMPLETION_INDEX")
            .env_remove("SLURM_ARRAY_TASK_ID");
        for (k, v) in env {
            c.env(k, v);
        }
        let o = c.output().expect("runs");
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && e.contains(want), "{spec}: {e}");
        assert!(!e.contains("panicked"), "{e}");
    }
    let _ = std::fs::remove_dir_all(&root);
}
