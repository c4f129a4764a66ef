//! `results.parquet`: a sweep's rows as typed columns (the same rows as `results.csv`), for
//! DuckDB, Spark, pandas/pyarrow; and the reader [`super::merge`] uses to combine shards.
//!
//! Columns: `index` (INT64), `cell` (INT64), `seed` (UINT64), one column per varied key except
//! `method` (DOUBLE, or UTF8 for `replay` and `sync`; a dot in the key becomes `_`:
//! `noise.pos` → `noise_pos`), then the measured columns of [`COLUMNS`]: DOUBLE (null when
//! the run has no value), `method` UTF8, `samples` UINT64, `validity` and `error` nullable UTF8.

use std::path::Path;

use parquet::file::reader::{FileReader, SerializedFileReader};
use parquet::record::Field;

use super::grid::{Grid, Key, Value};
use super::results::{Row, COLUMNS};
use crate::record::parquet::{write_file, Col};

/// Rows per row group.
const ROW_GROUP: usize = 65_536;

/// The Parquet column name of a varied key (`noise.pos` → `noise_pos`).
pub fn column_name(key: Key) -> String {
    key.name().replace('.', "_")
}

fn is_text(key: Key) -> bool {
    matches!(key, Key::Replay | Key::Sync | Key::Parameters)
}

/// The varied keys that have their own column (a varied `method` is the measured column).
fn key_columns(grid: &Grid) -> Vec<Key> {
    grid.keys()
        .into_iter()
        .filter(|k| *k != Key::Method)
        .collect()
}

fn schema(grid: &Grid) -> String {
    let mut s = String::from(
        "message scil_sweep_row {\n  REQUIRED INT64 index;\n  REQUIRED INT64 cell;\n  REQUIRED INT64 seed (INTEGER(64,false));\n",
    );
    for k in key_columns(grid) {
        let ty = if is_text(k) { "BYTE_ARRAY" } else { "DOUBLE" };
        let ann = if is_text(k) { " (UTF8)" } else { "" };
        s.push_str(&format!("  REQUIRED {ty} {}{ann};\n", column_name(k)));
    }
    for c in COLUMNS {
        let line = match c {
            "method" => "  REQUIRED BYTE_ARRAY method (UTF8);\n".to_string(),
            "samples" => "  REQUIRED INT64 samples (INTEGER(64,false));\n".to_string(),
            "validity" | "error" => format!("  OPTIONAL BYTE_ARRAY {c} (UTF8);\n"),
            _ => format!("  OPTIONAL DOUBLE {c};\n"),
        };
        s.push_str(&line);
    }
    s.push('}');
    s
}

/// Writes `rows` (in the given order) to `path`.
pub fn write_rows(path: &Path, grid: &Grid, rows: &[Row]) -> std::io::Result<()> {
    let keys = key_columns(grid);
    let groups = rows.chunks(ROW_GROUP).map(|rs| {
        let mut cols = vec![
            Col::I64(rs.iter().map(|r| Some(r.index as i64)).collect()),
            Col::I64(rs.iter().map(|r| Some(r.cell as i64)).collect()),
            // UINT64 stored in INT64's 64 bits (the logical type says how to read them).
            Col::I64(rs.iter().map(|r| Some(r.seed as i64)).collect()),
        ];
        for &k in &keys {
            if is_text(k) {
                cols.push(Col::Str(
                    rs.iter()
                        .map(|r| r.value(k).map(|v| v.to_string()))
                        .collect(),
                ));
            } else {
                cols.push(Col::F64(
                    rs.iter().map(|r| r.value(k).and_then(Value::num)).collect(),
                ));
            }
        }
        for c in COLUMNS {
            cols.push(match c {
                "method" => Col::Str(rs.iter().map(|r| Some(r.method.clone())).collect()),
                "samples" => Col::I64(rs.iter().map(|r| Some(r.samples as i64)).collect()),
                "validity" => Col::Str(rs.iter().map(|r| r.validity.clone()).collect()),
                "error" => Col::Str(rs.iter().map(|r| r.error.clone()).collect()),
                _ => Col::F64(rs.iter().map(|r| r.metric(c)).collect()),
            });
        }
        cols
    });
    // An empty sweep still gets a file with the schema (one empty row group is not needed).
    let f = std::fs::File::create(path)?;
    let w = write_file(std::io::BufWriter::new(f), &schema(grid), groups)
        .map_err(|e| std::io::Error::other(format!("{}: {e}", path.display())))?;
    w.into_inner()
        .map_err(|e| std::io::Error::other(e.to_string()))?
        .sync_all()
}

/// Reads the rows of a `results.parquet` written for `grid`: every row's key columns must be
/// its grid point's (a file of another grid is an error naming the row).
pub fn read_rows(path: &Path, grid: &Grid) -> anyhow::Result<Vec<Row>> {
    let what = path.display();
    let reader = SerializedFileReader::try_from(path)
        .map_err(|e| anyhow::anyhow!("{what}: not a readable Parquet file: {e}"))?;
    let keys = key_columns(grid);
    let want: Vec<String> = ["index", "cell", "seed"]
        .into_iter()
        .map(String::from)
        .chain(keys.iter().map(|k| column_name(*k)))
        .chain(COLUMNS.iter().map(|c| c.to_string()))
        .collect();
    let have: Vec<String> = reader
        .metadata()
        .file_metadata()
        .schema_descr()
        .columns()
        .iter()
        .map(|c| c.name().to_string())
        .collect();
    if have != want {
        anyhow::bail!(
            "{what}: columns {} do not match this sweep's grid ({})",
            have.join(","),
            want.join(",")
        );
    }
    let total = grid.runs();
    let mut rows = Vec::new();
    for (n, rec) in reader
        .get_row_iter(None)
        .map_err(|e| anyhow::anyhow!("{what}: {e}"))?
        .enumerate()
    {
        let rec = rec.map_err(|e| anyhow::anyhow!("{what}: row {n}: {e}"))?;
        let f: Vec<&Field> = rec.get_column_iter().map(|(_, f)| f).collect();
        let bad = |col: &str| anyhow::anyhow!("{what}: row {n}: bad or missing '{col}'");
        let int = |i: usize, col: &str| match f.get(i) {
            Some(Field::Long(v)) if *v >= 0 => Ok(*v as u64),
            Some(Field::ULong(v)) => Ok(*v),
            _ => Err(bad(col)),
        };
        let num = |i: usize, col: &str| match f.get(i) {
            Some(Field::Double(v)) => Ok(Some(*v)),
            Some(Field::Null) => Ok(None),
            _ => Err(bad(col)),
        };
        let text = |i: usize, col: &str| match f.get(i) {
            Some(Field::Str(v)) => Ok(Some(v.clone())),
            Some(Field::Null) => Ok(None),
            _ => Err(bad(col)),
        };
        let index = int(0, "index")? as usize;
        if index >= total {
            anyhow::bail!("{what}: row {n}: index {index} is outside the grid of {total} runs");
        }
        let p = grid.point(index);
        if int(1, "cell")? as usize != p.cell.index || int(2, "seed")? != p.seed {
            anyhow::bail!(
                "{what}: row {n} (index {index}): cell or seed differ from this sweep's grid"
            );
        }
        for (j, k) in keys.iter().enumerate() {
            let v = p.cell.get(*k);
            let same = match f.get(3 + j) {
                Some(Field::Str(s)) => v.and_then(Value::text) == Some(s.as_str()),
                Some(Field::Double(x)) => v.and_then(Value::num) == Some(*x),
                _ => false,
            };
            if !same {
                anyhow::bail!(
                    "{what}: row {n} (index {index}): '{}' differs from this sweep's grid",
                    column_name(*k)
                );
            }
        }
        let base = 3 + keys.len();
        let col = |c: &str| base + COLUMNS.iter().position(|x| *x == c).unwrap_or(0);
        let m = |c: &str| num(col(c), c);
        rows.push(Row {
            index,
            cell: p.cell.index,
            seed: p.seed,
            values: p.cell.values.clone(),
            trigger_time_s: m("trigger_time_s")?,
            ttc_s: m("ttc_s")?,
            d_long_m: m("d_long_m")?,
            vut_speed_kmh: m("vut_speed_kmh")?,
            fire_error_ms: m("fire_error_ms")?,
            method: text(col("method"), "method")?.ok_or_else(|| bad("method"))?,
            dummy_travel_m: m("dummy_travel_m")?,
            nominal_travel_m: m("nominal_travel_m")?,
            travel_error_m: m("travel_error_m")?,
            impact_time_s: m("impact_time_s")?,
            stopped_short_m: m("stopped_short_m")?,
            samples: int(col("samples"), "samples")?,
            validity: text(col("validity"), "validity")?,
            error: text(col("error"), "error")?,
        });
    }
    Ok(rows)
}
