//! `scil bench replay`: the run layer's replay path (CSV source → interface block → twin,
//! map-matched → engine → report, as `scil replay --speed max` runs it) against bare CSV parses
//! of the same file, measured in the same process.
//!
//! The file is a shared replay repeated into a long one. Copies alternate direction: the odd
//! copies are the same rows driven back (reverse order, time still increasing, heading turned by
//! 180°), so the long file is one continuous, physically plausible drive that the CSV source's
//! plausibility filter accepts row by row and the map matcher follows on the map — a plain
//! time-shifted copy would jump back to the start every copy and be rejected (and would not
//! measure what a long recording costs).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use crate::run::sink::events::FnSink;
use crate::run::{replay_blocking, RunSetup, SourceSpec};
use crate::scenario::engine::EngineConfig;

/// The long file; removed on drop unless it was asked to be kept.
struct LongFile {
    path: PathBuf,
    keep: bool,
    rows: u64,
}

impl Drop for LongFile {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

fn column(header: &[&str], name: &str) -> Option<usize> {
    header
        .iter()
        .position(|h| h.trim().eq_ignore_ascii_case(name))
}

/// Writes `repeat` copies of `csv` (see the module doc) to `out`.
fn long_file(csv: &Path, repeat: usize, out: PathBuf, keep: bool) -> anyhow::Result<LongFile> {
    let text = std::fs::read_to_string(csv)?;
    let mut lines = text.lines();
    let header_line = lines
        .next()
        .ok_or_else(|| anyhow::anyhow!("{}: empty", csv.display()))?;
    let header: Vec<&str> = header_line.split(',').collect();
    let time_col = column(&header, "time")
        .ok_or_else(|| anyhow::anyhow!("{}: no `Time` column", csv.display()))?;
    let heading_col = column(&header, "heading")
        .ok_or_else(|| anyhow::anyhow!("{}: no `Heading` column", csv.display()))?;
    let mut rows: Vec<(f64, Vec<&str>)> = Vec::new();
    for (i, l) in lines.enumerate() {
        if l.trim().is_empty() {
            continue;
        }
        let cells: Vec<&str> = l.split(',').collect();
        let t = cells
            .get(time_col)
            .and_then(|c| c.trim().parse::<f64>().ok())
            .ok_or_else(|| anyhow::anyhow!("{}:{}: no numeric time", csv.display(), i + 2))?;
        rows.push((t, cells));
    }
    let (Some(first), Some(last)) = (rows.first(), rows.last()) else {
        anyhow::bail!("{}: no rows", csv.display());
    };
    let (t_first, t_last) = (first.0, last.0);
    let dt = match rows.get(1) {
        Some(r) => r.0 - t_first,
        None => 0.04,
    };
    let span = t_last - t_first + dt;
    let mut f = std::io::BufWriter::new(std::fs::File::create(&out)?);
    writeln!(f, "{header_line}")?;
    let mut n = 0u64;
    for k in 0..repeat {
        let offset = k as f64 * span;
        let back = k % 2 == 1;
        let order: Box<dyn Iterator<Item = &(f64, Vec<&str>)>> = if back {
            Box::new(rows.iter().rev())
        } else {
            Box::new(rows.iter())
        };
        for (t, cells) in order {
            // Driven back: the row recorded at t is passed at the mirrored instant.
            let t_out = if back {
                t_first + (t_last - t) + offset
            } else {
                t + offset
            };
            for (j, c) in cells.iter().enumerate() {
                if j > 0 {
                    f.write_all(b",")?;
                }
                if j == time_col {
                    write!(f, "{t_out:.3}")?;
                } else if j == heading_col && back {
                    let h: f64 = c.trim().parse().unwrap_or(0.0);
                    write!(f, "{:.3}", (h + 180.0).rem_euclid(360.0))?;
                } else {
                    f.write_all(c.as_bytes())?;
                }
            }
            f.write_all(b"\n")?;
            n += 1;
        }
    }
    f.flush()?;
    Ok(LongFile {
        path: out,
        keep,
        rows: n,
    })
}

/// Measures and returns the printed figures.
pub fn run(
    csv: &Path,
    scenario: &Path,
    repeat: usize,
    rounds: usize,
    keep: Option<&Path>,
) -> anyhow::Result<String> {
    let out = match keep {
        Some(p) => p.to_path_buf(),
        None => std::env::temp_dir().join(format!("scil-bench-{}.csv", std::process::id())),
    };
    let big = long_file(csv, repeat, out, keep.is_some())?;
    let setup = Arc::new(RunSetup::load(
        scenario,
        None,
        EngineConfig {
            stale_limit_s: None,
            ..EngineConfig::default()
        },
    )?);
    // Rounds interleave the three measurements so that drift of a shared machine hits them
    // alike; the ratio printed is the median of the rounds' own ratios.
    let rounds = rounds.max(1);
    let mut plain_t = Vec::with_capacity(rounds);
    let mut bytes_t = Vec::with_capacity(rounds);
    let mut full_t = Vec::with_capacity(rounds);
    let (mut n_plain, mut n_bytes, mut n) = (0u64, 0u64, 0u64);
    let mut acc = 0.0;
    let has_map = setup.map.is_some();
    for _ in 0..rounds {
        // Baseline: the csv crate reading every record and parsing every cell as f64.
        let t = Instant::now();
        let mut rdr = csv::Reader::from_path(&big.path)?;
        let mut rec = csv::StringRecord::new();
        n_plain = 0;
        while rdr.read_record(&mut rec)? {
            for c in rec.iter() {
                acc += c.trim().parse::<f64>().unwrap_or(0.0);
            }
            n_plain += 1;
        }
        plain_t.push(t.elapsed().as_secs_f64());
        // Second baseline: the fastest bare parse (byte records, fast float parser): what the
        // replay path's own CSV reading costs at least.
        let t = Instant::now();
        let mut rdr = csv::Reader::from_path(&big.path)?;
        let mut brec = csv::ByteRecord::new();
        n_bytes = 0;
        while rdr.read_byte_record(&mut brec)? {
            for c in brec.iter() {
                acc += fast_float2::parse::<f64, _>(c.trim_ascii()).unwrap_or(0.0);
            }
            n_bytes += 1;
        }
        bytes_t.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let report = replay_blocking(
            setup.clone(),
            &SourceSpec::csv(&big.path),
            vec![Box::new(FnSink(|_: &_| {}))],
        )?;
        full_t.push(t.elapsed().as_secs_f64());
        n = report.samples;
        if n != big.rows {
            anyhow::bail!(
                "the replay took {n} of {} rows (error: {}); the figures would not compare like with like",
                big.rows,
                report.error.as_deref().unwrap_or("none")
            );
        }
    }
    let median = |v: &[f64]| {
        let mut v = v.to_vec();
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    // Throughput ratio of one round = baseline time / replay time (same rows).
    let ratio_plain = median(
        &plain_t
            .iter()
            .zip(&full_t)
            .map(|(p, f)| (n as f64 / f) / (n_plain as f64 / p))
            .collect::<Vec<_>>(),
    );
    let ratio_bytes = median(
        &bytes_t
            .iter()
            .zip(&full_t)
            .map(|(b, f)| (n as f64 / f) / (n_bytes as f64 / b))
            .collect::<Vec<_>>(),
    );
    let (plain, plain_bytes, full) = (median(&plain_t), median(&bytes_t), median(&full_t));
    let mut s = String::new();
    let _ = writeln!(
        s,
        "file: {} × {repeat} (alternating direction) = {n} samples (checksum {acc:.1}){}",
        csv.display(),
        if big.keep {
            format!(", kept as {}", big.path.display())
        } else {
            String::new()
        }
    );
    let _ = writeln!(
        s,
        "plain CSV parse : {:>12.0} rows/s ({plain:.3} s)",
        n_plain as f64 / plain
    );
    let _ = writeln!(
        s,
        "scil replay max : {:>12.0} samples/s ({full:.3} s, map matching {})",
        n as f64 / full,
        if has_map { "on" } else { "off" }
    );
    let _ = writeln!(
        s,
        "byte-record parse: {:>12.0} rows/s ({plain_bytes:.3} s)",
        n_bytes as f64 / plain_bytes
    );
    let _ = writeln!(
        s,
        "ratio replay/plain throughput: {ratio_plain:.2} (median of {rounds} interleaved rounds; times above are medians)"
    );
    let _ = writeln!(
        s,
        "ratio replay/byte-record parse throughput: {ratio_bytes:.2}"
    );
    Ok(s)
}
