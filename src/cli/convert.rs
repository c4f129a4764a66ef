//! `scil convert IN -o OUT.csv`: any recording scil reads (CSV, ASAM MDF4, Racelogic VBOX,
//! scil's MCAP) as scil's CSV, with WGS84 positions where the input has them.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;

use crate::ingest::csv::{BadRowPolicy, ColumnSpec};
use crate::ingest::detect::{self, FileKind};
use crate::ingest::recording::Recording;
use crate::sample::{InsPosition, InsSample};

#[derive(Args, Debug, Clone)]
pub struct ConvertArgs {
    /// The recording (its kind is told by its content).
    pub input: PathBuf,
    /// The CSV to write.
    #[arg(long, short)]
    pub out: PathBuf,
    /// Explicit mapping of a field to a column or channel (see `scil replay --column`).
    #[arg(long = "column", value_name = "FIELD=COLUMN[:UNIT]")]
    pub columns: Vec<String>,
    /// What to do with a row that cannot be read.
    #[arg(long, value_enum, default_value_t = BadRowPolicy::Stop)]
    pub on_bad_row: BadRowPolicy,
}

/// The CSV header for samples whose position is local (map x/y) or WGS84.
fn header(wgs84: bool) -> &'static str {
    if wgs84 {
        "Time,Latitude(deg),Longitude(deg),Altitude(m),Heading(deg),Velocity(km/h),Steering_Angle(deg),Brake_Light"
    } else {
        "Time,PosX,PosY,Heading,Velocity,Steering_Angle,Brake_Light"
    }
}

fn opt(v: Option<f64>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

fn row(s: &InsSample) -> String {
    let tail = format!(
        "{},{},{},{}",
        s.heading_deg,
        s.speed_mps * 3.6,
        opt(s.steering_wheel_deg),
        s.brake_light
            .map(|b| if b { "1" } else { "0" })
            .unwrap_or("")
    );
    match s.position {
        InsPosition::Local { x, y } => format!("{},{x},{y},{tail}", s.time_s),
        InsPosition::Wgs84 {
            lat_deg,
            lon_deg,
            alt_m,
        } => format!("{},{lat_deg},{lon_deg},{},{tail}", s.time_s, opt(alt_m)),
    }
}

/// `scil convert`.
pub fn run(a: ConvertArgs) -> anyhow::Result<ExitCode> {
    let columns: Vec<ColumnSpec> = a
        .columns
        .iter()
        .map(|c| c.parse::<ColumnSpec>().map_err(anyhow::Error::msg))
        .collect::<Result<_, _>>()?;
    let kind = detect::sniff_path(&a.input)
        .with_context(|| format!("cannot read {}", a.input.display()))?;
    let samples: Box<dyn Iterator<Item = anyhow::Result<InsSample>>> = if kind == FileKind::Mcap {
        Box::new(crate::record::McapSource::open(&a.input)?)
    } else {
        let rec = Recording::open(&a.input, &columns, a.on_bad_row)
            .map_err(|e| anyhow::anyhow!("{e}"))?
            .with_plausibility(None);
        Box::new(rec.map(|r| r.map_err(|e| anyhow::anyhow!("{e}"))))
    };
    let tmp = a.out.with_extension("csv.part");
    let f =
        std::fs::File::create(&tmp).with_context(|| format!("cannot create {}", tmp.display()))?;
    let mut out = std::io::BufWriter::new(f);
    let mut wgs84: Option<bool> = None;
    let mut n = 0u64;
    for s in samples {
        let s = s?;
        let is_wgs = matches!(s.position, InsPosition::Wgs84 { .. });
        match wgs84 {
            None => {
                writeln!(out, "{}", header(is_wgs))?;
                wgs84 = Some(is_wgs);
            }
            Some(w) if w != is_wgs => anyhow::bail!(
                "{}: sample at t={} changes from {} to {} positions",
                a.input.display(),
                s.time_s,
                if w { "WGS84" } else { "map x/y" },
                if is_wgs { "WGS84" } else { "map x/y" }
            ),
            _ => {}
        }
        writeln!(out, "{}", row(&s))?;
        n += 1;
    }
    if n == 0 {
        let _ = std::fs::remove_file(&tmp);
        anyhow::bail!("{}: no sample in the recording", a.input.display());
    }
    out.flush()?;
    drop(out);
    std::fs::rename(&tmp, &a.out).with_context(|| format!("cannot write {}", a.out.display()))?;
    eprintln!("convert: {n} samples → {}", a.out.display());
    Ok(ExitCode::SUCCESS)
}
