//! `scil map place` and `scil map survey`: a map of one's own site.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use opendrive::place::Placement;
use opendrive::survey::Lanes;

/// `scil map place MAP --origin LAT,LON[,ALT] --heading DEG -o OUT.xodr`
#[derive(Debug, Args)]
pub struct PlaceArgs {
    /// The layout (OpenDRIVE).
    pub map: PathBuf,
    /// WGS84 position of the map's (0,0): LAT,LON in degrees, optionally ,ALT in metres.
    #[arg(long, allow_hyphen_values = true)]
    pub origin: String,
    /// Compass heading of the map's +x axis, degrees (0 = north, clockwise).
    #[arg(long, allow_hyphen_values = true)]
    pub heading: f64,
    /// Where the placed map is written.
    #[arg(short, long)]
    pub output: PathBuf,
}

pub fn place(a: PlaceArgs) -> anyhow::Result<ExitCode> {
    let (lat_deg, lon_deg, alt_m) = crate::site::parse_origin(&a.origin)?;
    let at = Placement {
        lat_deg,
        lon_deg,
        alt_m,
        heading_deg: a.heading,
    };
    let xml = std::fs::read_to_string(&a.map)
        .with_context(|| format!("{}: cannot read", a.map.display()))?;
    let out = opendrive::place::place(&xml, &at)
        .map_err(|e| anyhow::anyhow!("{}: {e}", a.map.display()))?;
    std::fs::write(&a.output, out)
        .with_context(|| format!("{}: cannot write", a.output.display()))?;
    eprintln!(
        "placed {} at {lat_deg}, {lon_deg}, +x axis heading {}° → {}",
        a.map.display(),
        a.heading,
        a.output.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// `scil map survey DRIVE -o OUT.xodr --lane-width W [--lanes-left N] [--lanes-right N]
/// [--tolerance M]`
#[derive(Debug, Args)]
pub struct SurveyArgs {
    /// The drive: OxTS NcomToCsv export, CSV with latitude/longitude, or NCOM capture.
    pub drive: PathBuf,
    /// Where the road is written (OpenDRIVE).
    #[arg(short, long)]
    pub output: PathBuf,
    /// Lane width, metres.
    #[arg(long)]
    pub lane_width: f64,
    /// Lanes left of the driven line.
    #[arg(long, default_value_t = 1)]
    pub lanes_left: u32,
    /// Lanes right of the driven line.
    #[arg(long, default_value_t = 1)]
    pub lanes_right: u32,
    /// Largest distance of a driven position from the reference line, metres.
    #[arg(long, default_value_t = 0.10)]
    pub tolerance: f64,
    /// Road name written into the file (default: the drive's file name).
    #[arg(long)]
    pub name: Option<String>,
}

pub fn survey(a: SurveyArgs) -> anyhow::Result<ExitCode> {
    let samples = crate::site::read_recording(&a.drive)?;
    let name = a.name.clone().unwrap_or_else(|| {
        a.drive
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "survey".into())
    });
    let lanes = Lanes {
        width: a.lane_width,
        left: a.lanes_left,
        right: a.lanes_right,
    };
    let s = crate::site::survey(&samples, &lanes, a.tolerance, &name)
        .with_context(|| format!("{}", a.drive.display()))?;
    std::fs::write(&a.output, &s.xodr)
        .with_context(|| format!("{}: cannot write", a.output.display()))?;
    let (worst, at) = s.fit.worst();
    let (lat, lon) = s.drive.wgs84[0];
    println!(
        "road         {:.3} m, {} geometries",
        s.fit.length,
        s.fit.geometries.len()
    );
    println!(
        "positions    {} used, {} standing dropped, {} reversing dropped",
        s.drive.wgs84.len(),
        s.drive.standing,
        s.drive.reversing
    );
    println!(
        "distance     worst {:.4} m (time {:.3}), mean {:.4} m",
        worst,
        s.drive.time_s.get(at).copied().unwrap_or(f64::NAN),
        s.fit.mean()
    );
    println!("origin       {lat:.9}, {lon:.9} (first position)");
    println!("written      {}", a.output.display());
    Ok(ExitCode::SUCCESS)
}
