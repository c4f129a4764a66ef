//! `scil map info|eval|locate|geojson <XODR>`: the road manager from the command line; `scil map
//! place|survey` (a map of one's own site) are in `map_site`.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use opendrive::OpenDrive;

#[derive(Subcommand, Debug)]
pub enum MapCommand {
    /// Roads, junctions, total length, geometry counts, geoReference.
    Info { xodr: PathBuf },
    /// Evaluate lane borders: input CSV `road_id,lane_id,s`; output `road_id,lane_id,s,x,y,hdg`
    /// (lane 0 = reference line without laneOffset; k = outer border of lane k).
    Eval {
        xodr: PathBuf,
        #[arg(long)]
        points: PathBuf,
    },
    /// Map-match points: input CSV `x,y[,yaw]`; output `x,y,road_id,lane_id,s,t` (empty road and
    /// lane for points off the map).
    Locate {
        xodr: PathBuf,
        #[arg(long)]
        points: PathBuf,
    },
    /// Lanes as GeoJSON (map coordinates; `--wgs84` for lon/lat through the geoReference).
    Geojson {
        xodr: PathBuf,
        #[arg(long)]
        wgs84: bool,
    },
    /// Put a layout at a site: the map's (0,0) at --origin, its +x axis at compass --heading.
    /// Every road's plan view is turned and moved and a geoReference (transverse Mercator at the
    /// origin) is written; the rest of the file is kept as it was.
    Place(super::map_site::PlaceArgs),
    /// Make a road from a drive along a lane centre (a recording with WGS84 positions: OxTS
    /// NcomToCsv export, CSV with latitude/longitude, NCOM capture).
    Survey(super::map_site::SurveyArgs),
}

fn load(p: &Path) -> anyhow::Result<OpenDrive> {
    OpenDrive::from_path(p).map_err(|e| anyhow::anyhow!("{}: {e}", p.display()))
}

/// Reads a small CSV of points, skipping a header row if its first cell is not numeric.
fn read_rows(p: &Path) -> anyhow::Result<Vec<(u64, Vec<String>)>> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .trim(csv::Trim::All)
        .from_path(p)
        .with_context(|| format!("{}: cannot open", p.display()))?;
    let mut rows = Vec::new();
    for (i, rec) in rdr.records().enumerate() {
        let rec = rec.with_context(|| format!("{}: unreadable row", p.display()))?;
        let line = rec.position().map(|p| p.line()).unwrap_or(i as u64 + 1);
        let cells: Vec<String> = rec.iter().map(str::to_string).collect();
        if cells.iter().all(|c| c.is_empty()) {
            continue;
        }
        rows.push((line, cells));
    }
    Ok(rows)
}

fn num(p: &Path, line: u64, what: &str, v: &str) -> anyhow::Result<f64> {
    v.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .ok_or_else(|| anyhow::anyhow!("{}:{line}: {what} '{v}' is not a number", p.display()))
}

pub fn run(cmd: MapCommand) -> anyhow::Result<ExitCode> {
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    match cmd {
        MapCommand::Place(a) => return super::map_site::place(a),
        MapCommand::Survey(a) => return super::map_site::survey(a),
        MapCommand::Info { xodr } => {
            let map = load(&xodr)?;
            let i = map.info();
            writeln!(out, "file         {}", xodr.display())?;
            writeln!(out, "revision     {}.{}", i.revision.0, i.revision.1)?;
            writeln!(out, "roads        {}", i.roads)?;
            writeln!(out, "junctions    {}", i.junctions)?;
            writeln!(out, "lane sections {}", i.lane_sections)?;
            writeln!(out, "total length {:.3} m", i.total_length)?;
            for (k, n) in &i.geometry_counts {
                writeln!(out, "geometry     {k}: {n}")?;
            }
            writeln!(
                out,
                "geoReference {}",
                i.geo_reference.as_deref().unwrap_or("(none)")
            )?;
            if let Some(o) = &map.header.offset {
                writeln!(
                    out,
                    "offset       x={} y={} z={} hdg={}",
                    o.x, o.y, o.z, o.hdg
                )?;
            }
            // The site `scil map place` recorded (the file is read again as text for it).
            let text = std::fs::read_to_string(&xodr).unwrap_or_default();
            if let Some(site) = opendrive::place::site_of(&text) {
                let alt = site.alt_m.map(|a| format!(", {a} m")).unwrap_or_default();
                writeln!(
                    out,
                    "site         {}, {}{alt}; +x axis at heading {}°",
                    site.lat_deg, site.lon_deg, site.heading_deg
                )?;
            }
        }
        MapCommand::Eval { xodr, points } => {
            let map = load(&xodr)?;
            writeln!(out, "road_id,lane_id,s,x,y,hdg")?;
            for (line, c) in read_rows(&points)? {
                if line == 1 && c.first().is_some_and(|f| f == "road_id") {
                    continue;
                }
                if c.len() < 3 {
                    anyhow::bail!("{}:{line}: expected road_id,lane_id,s", points.display());
                }
                let lane: i32 = c[1].parse().map_err(|_| {
                    anyhow::anyhow!(
                        "{}:{line}: lane_id '{}' is not an integer",
                        points.display(),
                        c[1]
                    )
                })?;
                let s = num(&points, line, "s", &c[2])?;
                match map.lane_border(&c[0], lane, s) {
                    Some(p) => writeln!(
                        out,
                        "{},{},{},{:.6},{:.6},{:.9}",
                        c[0], lane, c[2], p.x, p.y, p.hdg
                    )?,
                    None => anyhow::bail!(
                        "{}:{line}: road '{}' lane {lane} at s={} does not exist",
                        points.display(),
                        c[0],
                        c[2]
                    ),
                }
            }
        }
        MapCommand::Locate { xodr, points } => {
            let map = load(&xodr)?;
            writeln!(out, "x,y,road_id,lane_id,s,t")?;
            for (line, c) in read_rows(&points)? {
                if line == 1 && c.first().is_some_and(|f| f == "x") {
                    continue;
                }
                if c.len() < 2 {
                    anyhow::bail!("{}:{line}: expected x,y", points.display());
                }
                let x = num(&points, line, "x", &c[0])?;
                let y = num(&points, line, "y", &c[1])?;
                let yaw = match c.get(2) {
                    Some(v) if !v.is_empty() => Some(num(&points, line, "yaw", v)?),
                    _ => None,
                };
                match map.locate(x, y, yaw) {
                    Some(p) => writeln!(
                        out,
                        "{},{},{},{},{:.6},{:.6}",
                        c[0], c[1], p.road_id, p.lane_id, p.s, p.t
                    )?,
                    None => writeln!(out, "{},{},,,,", c[0], c[1])?,
                }
            }
        }
        MapCommand::Geojson { xodr, wgs84 } => {
            let map = load(&xodr)?;
            // Streamed: memory stays at one lane's points however large the map.
            match crate::map::write_lanes_geojson(&map, wgs84, &mut out) {
                Ok(()) => {}
                Err(opendrive::geojson::WriteError::Io(e)) => return Err(e.into()),
                Err(e) => return Err(anyhow::anyhow!("{}: {e}", xodr.display())),
            }
            writeln!(out)?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
