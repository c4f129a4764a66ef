//! `scil ground`: objects on the ground without the service — `characterise` drives one
//! object through a characterisation run over its ISO 22133 link and prints what it measured.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::capabilities::ObjectKind;
use crate::dispatch::control_centre::GeoOrigin;
use crate::dispatch::ground::characterise::Request;
use crate::dispatch::ground::{GroundOptions, Pose};

#[derive(Debug, clap::Subcommand)]
pub enum GroundCommand {
    /// Drive one object straight ahead from where it stands — accelerate to a speed, hold it,
    /// stop — and measure its dead time, acceleration, deceleration, speed- and
    /// lateral-tracking error and MONR latency from its MONR.
    Characterise(CharacteriseArgs),
}

#[derive(Debug, clap::Args)]
pub struct CharacteriseArgs {
    /// The object's name.
    pub name: String,
    /// Its ISO 22133 endpoint, `HOST[:TCP[:UDP]]`.
    #[arg(long)]
    pub address: String,
    /// Its kind: vut_robot, pedestrian_platform or vehicle_platform.
    #[arg(long, default_value = "vut_robot")]
    pub kind: String,
    /// Where it stands: `X,Y,HEADING` (map metres, INS heading in degrees: 0 = north,
    /// clockwise).
    #[arg(long, allow_hyphen_values = true)]
    pub from: String,
    /// The OpenDRIVE map whose geo-reference origin the object uses (OSEM).
    #[arg(long)]
    pub map: Option<PathBuf>,
    /// The speed to hold, km/h.
    #[arg(long, default_value_t = Request::default().speed_kmh)]
    pub speed_kmh: f64,
    /// How long to hold it, s.
    #[arg(long, default_value_t = Request::default().hold_s)]
    pub hold_s: f64,
    /// The planned launch, m/s² (a little above what the object drives, to measure its own;
    /// default 1.5 times its kind's).
    #[arg(long)]
    pub accel: Option<f64>,
    /// The planned stop, m/s² (default 1.5 times its kind's).
    #[arg(long)]
    pub decel: Option<f64>,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(c: GroundCommand) -> anyhow::Result<ExitCode> {
    match c {
        GroundCommand::Characterise(a) => {
            crate::run::runtime()?.block_on(characterise(a))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn parse_pose(s: &str) -> anyhow::Result<Pose> {
    let v: Vec<f64> = s
        .split(',')
        .map(|x| x.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| anyhow::anyhow!("--from {s}: expected X,Y,HEADING"))?;
    match v[..] {
        [x, y, h] if x.is_finite() && y.is_finite() && h.is_finite() => {
            Ok(Pose::new(x, y, crate::frame::heading_to_yaw(h)))
        }
        _ => anyhow::bail!("--from {s}: expected X,Y,HEADING"),
    }
}

async fn characterise(a: CharacteriseArgs) -> anyhow::Result<()> {
    let kind = ObjectKind::parse(&a.kind).ok_or_else(|| {
        anyhow::anyhow!(
            "--kind {}: vut_robot, pedestrian_platform or vehicle_platform",
            a.kind
        )
    })?;
    let d = Request::for_kind(kind);
    let req = Request {
        speed_kmh: a.speed_kmh,
        hold_s: a.hold_s,
        accel_mps2: a.accel.unwrap_or(d.accel_mps2),
        decel_mps2: a.decel.unwrap_or(d.decel_mps2),
    };
    req.validate().map_err(|e| anyhow::anyhow!("{e}"))?;
    let from = parse_pose(&a.from)?;
    let origin = match &a.map {
        Some(p) => {
            let m = crate::map::Map::load(p)?;
            m.geo
                .as_ref()
                .map(|g| g.to_wgs84(0.0, 0.0))
                .filter(|(la, lo)| la.is_finite() && lo.is_finite())
                .map(|(lat_deg, lon_deg)| GeoOrigin {
                    lat_deg,
                    lon_deg,
                    alt_m: 0.0,
                    rotation_deg: 0.0,
                })
                .unwrap_or_default()
        }
        None => GeoOrigin::default(),
    };
    let opts = GroundOptions::default();
    let plan = crate::dispatch::ground::characterise_drive::plan(
        &a.name,
        kind,
        &req,
        from,
        opts.traj_dt_s,
    );
    let c = crate::dispatch::ground::characterise_drive::characterise(
        plan, &a.address, &req, origin, &opts,
    )
    .await
    .map_err(|e| anyhow::anyhow!("characterisation of {}: {e}", a.name))?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&c)?);
    } else {
        let m = &c.measured;
        println!(
            "object {} ({} MONR, {:.1} m straight)",
            c.object, c.monr_count, c.length_m
        );
        println!("  dead time          {:>7.0} ms", m.dead_time_s * 1000.0);
        println!("  acceleration       {:>7.2} m/s²", m.accel_mps2);
        println!("  deceleration       {:>7.2} m/s²", m.decel_mps2);
        println!("  speed error (RMS)  {:>7.3} m/s", m.speed_error_mps);
        println!("  lateral error (RMS){:>7.3} m", m.lateral_error_m);
        match m.monr_latency_s {
            Some(l) => println!("  MONR latency       {:>7.1} ms", l * 1000.0),
            None => println!("  MONR latency       unknown"),
        }
    }
    Ok(())
}
