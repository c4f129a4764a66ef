//! BeamNG.tech `vehicleSystemsCoupling` (the Simulink generic interface): scil takes the
//! Simulink side. UDP; BeamNG sends each step 111 little-endian f64 (1-based: 1 id, 2–11
//! driver controls, 12–25 body state, 26–37 status, 38–61 wheels, 62–111 custom) and waits
//! for an answer of 64 f64 (1 id = received id + 1, 2 throttle, 3 brake, 4 steering, 5 gear,
//! 6–13 torques, 14 drive mode, 15–64 custom 1–50). NaN in an answer means "leave unchanged":
//! scil sends NaN for everything it does not control.
//!
//! Each valid message is one lock-step step of the session ([`super::Link`]): sim time =
//! id × step, position posX/posY (through the run's interface block), yaw, groundspeed;
//! the answer carries the session's outputs after that step (default: custom1 = the target's
//! activation 0/1, custom2/3 = its x/y (map frame), custom4 = its speed (m/s), custom5 = the
//! VUT TTC (s), NaN when undefined). A datagram of the wrong size or with non-finite id,
//! position or speed is counted (`malformed`) and skipped, never a panic; a message whose id is
//! not above the last one is answered from the current state without a step.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::UdpSocket;
use tokio::time::Instant;

use super::{CosimReport, Latencies, Link, StepOutputs};
use crate::frame::yaw_to_heading;
use crate::sample::{InsPosition, InsSample};

/// Doubles BeamNG sends per message.
pub const IN_LEN: usize = 111;
/// Doubles an answer has.
pub const OUT_LEN: usize = 64;

/// 0-based indices of the fields scil reads (the 1-based field number minus one).
pub mod idx {
    pub const ID: usize = 0;
    pub const THROTTLE: usize = 1;
    pub const BRAKE: usize = 3;
    pub const STEERING: usize = 9;
    pub const POS_X: usize = 11;
    pub const POS_Y: usize = 12;
    pub const VEL_X: usize = 14;
    pub const VEL_Y: usize = 15;
    pub const GROUNDSPEED: usize = 17;
    pub const ACC_X: usize = 18;
    pub const YAW: usize = 23;
    pub const CUSTOM1_IN: usize = 61;
    /// Answer: throttle, brake, steering, gear, drive mode, custom 1.
    pub const OUT_THROTTLE: usize = 1;
    pub const OUT_BRAKE: usize = 2;
    pub const OUT_STEERING: usize = 3;
    pub const OUT_GEAR: usize = 4;
    pub const OUT_DRIVE_MODE: usize = 13;
    pub const OUT_CUSTOM1: usize = 14;
}

/// Decodes a datagram of `n` little-endian doubles.
pub fn decode(buf: &[u8], n: usize) -> Result<Vec<f64>, String> {
    if buf.len() != n * 8 {
        return Err(format!(
            "{} bytes, expected {} ({} doubles)",
            buf.len(),
            n * 8,
            n
        ));
    }
    Ok(buf
        .chunks_exact(8)
        .map(|c| {
            let mut b = [0u8; 8];
            b.copy_from_slice(c);
            f64::from_le_bytes(b)
        })
        .collect())
}

pub fn encode(vals: &[f64]) -> Vec<u8> {
    vals.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// Which custom outputs carry what (1-based custom numbers, 0 = not sent).
#[derive(Debug, Clone)]
pub struct OutputMap {
    /// The target whose state is sent (scenario id; default: the first target).
    pub target: Option<String>,
    pub active: usize,
    pub x: usize,
    pub y: usize,
    pub speed: usize,
    pub ttc: usize,
}

impl Default for OutputMap {
    fn default() -> Self {
        OutputMap {
            target: None,
            active: 1,
            x: 2,
            y: 3,
            speed: 4,
            ttc: 5,
        }
    }
}

/// The answer to message `id`: `id + 1`, everything NaN except the mapped custom outputs.
pub fn answer(id: f64, o: &StepOutputs, map: &OutputMap) -> [f64; OUT_LEN] {
    let mut a = [f64::NAN; OUT_LEN];
    a[idx::ID] = id + 1.0;
    let t = match &map.target {
        Some(id) => o.targets.iter().find(|t| &t.id == id),
        None => o.targets.first(),
    };
    let mut put = |custom: usize, v: f64| {
        if (1..=50).contains(&custom) {
            a[idx::OUT_CUSTOM1 + custom - 1] = v;
        }
    };
    if let Some(t) = t {
        put(map.active, if t.active { 1.0 } else { 0.0 });
        put(map.x, t.x);
        put(map.y, t.y);
        put(map.speed, t.speed_mps);
    }
    put(map.ttc, o.vut_ttc_s.unwrap_or(f64::NAN));
    a
}

/// The VUT sample of a message (sim time = id × step), or why it cannot be one.
pub fn to_sample(m: &[f64], step_s: f64, vut_id: &str) -> Result<InsSample, String> {
    let id = m[idx::ID];
    let (x, y, v) = (m[idx::POS_X], m[idx::POS_Y], m[idx::GROUNDSPEED]);
    if !(id.is_finite() && id >= 0.0) {
        return Err(format!("message id {id}"));
    }
    if !(x.is_finite() && y.is_finite() && v.is_finite()) {
        return Err(format!("message {id}: position/speed not finite"));
    }
    // Yaw if given, else the velocity direction.
    let yaw = if m[idx::YAW].is_finite() {
        m[idx::YAW]
    } else {
        m[idx::VEL_Y].atan2(m[idx::VEL_X])
    };
    let brake = m[idx::BRAKE];
    Ok(InsSample {
        time_s: id * step_s,
        vehicle: vut_id.into(),
        position: InsPosition::Local { x, y },
        heading_deg: if yaw.is_finite() {
            yaw_to_heading(yaw)
        } else {
            0.0
        },
        speed_mps: v.abs(),
        steering_wheel_deg: None,
        brake_light: brake.is_finite().then_some(brake > 0.05),
        accel_mps2: None,
        yaw_rate_rps: None,
        wheel_speed_mps: None,
        fcw: None,
    })
}

/// Options of the scil side.
#[derive(Debug, Clone)]
pub struct BeamngOptions {
    /// Where answers go (BeamNG listens on 64891 by default).
    pub send: SocketAddr,
    /// BeamNG's send period, s (sim time = id × step).
    pub step_s: f64,
    /// End this long after the last message.
    pub idle_end: Duration,
    pub outputs: OutputMap,
    pub vut_id: String,
}

/// Serves BeamNG on `sock` until it has been silent for `idle_end` after its first message,
/// `shutdown` completes, or the session ends. Closes the link (the session finishes).
pub async fn serve(
    sock: UdpSocket,
    mut link: Link,
    opts: BeamngOptions,
    shutdown: impl std::future::Future<Output = ()>,
) -> (CosimReport, Latencies) {
    let mut rep = CosimReport {
        peer: format!(
            "beamng-udp:{}",
            sock.local_addr().map(|a| a.to_string()).unwrap_or_default()
        ),
        ..CosimReport::default()
    };
    let mut lat = Latencies::default();
    let mut buf = vec![0u8; 2048];
    let mut last_id: Option<f64> = None;
    let mut seen_any = false;
    tokio::pin!(shutdown);
    loop {
        let idle = async {
            if seen_any {
                tokio::time::sleep(opts.idle_end).await
            } else {
                std::future::pending::<()>().await
            }
        };
        let (n, _from) = tokio::select! {
            biased;
            _ = &mut shutdown => break,
            _ = idle => break,
            r = sock.recv_from(&mut buf) => match r {
                Ok(x) => x,
                Err(e) => {
                    // ICMP port unreachable from an earlier answer and the like: not fatal.
                    tracing::debug!("beamng recv: {e}");
                    continue;
                }
            },
        };
        let t_rx = Instant::now();
        seen_any = true;
        rep.received += 1;
        let m = match decode(&buf[..n], IN_LEN) {
            Ok(m) => m,
            Err(e) => {
                rep.malformed += 1;
                rep.note(format!("datagram: {e}"));
                continue;
            }
        };
        let id = m[idx::ID];
        let outputs = match to_sample(&m, opts.step_s, &opts.vut_id) {
            Err(e) => {
                rep.malformed += 1;
                rep.note(e);
                if !id.is_finite() {
                    continue;
                }
                link.outputs()
            }
            Ok(_) if last_id.is_some_and(|l| id <= l) => {
                rep.note(format!(
                    "message {id} not above {}: answered without a step",
                    last_id.unwrap_or(0.0)
                ));
                link.outputs()
            }
            Ok(s) => {
                last_id = Some(id);
                let r = link.step(s).await;
                rep.steps += 1;
                if r.ended {
                    // The session is over: answer this one, then stop.
                    let a = answer(id, &r.outputs, &opts.outputs);
                    if sock.send_to(&encode(&a), opts.send).await.is_ok() {
                        rep.answered += 1;
                    }
                    break;
                }
                r.outputs
            }
        };
        let a = answer(id, &outputs, &opts.outputs);
        match sock.send_to(&encode(&a), opts.send).await {
            Ok(_) => {
                rep.answered += 1;
                let us = t_rx.elapsed().as_secs_f64() * 1e6;
                lat.push(us);
                if us > opts.step_s * 1e6 {
                    rep.late += 1;
                }
            }
            Err(e) => rep.note(format!("send to {}: {e}", opts.send)),
        }
    }
    link.close();
    (rep, lat)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run::cosim::TargetOut;

    #[test]
    fn codec_and_answer() {
        let mut m = vec![0.0; IN_LEN];
        m[idx::ID] = 7.0;
        m[idx::POS_X] = 12.5;
        m[idx::POS_Y] = -1.75;
        m[idx::GROUNDSPEED] = 11.0;
        m[idx::YAW] = 0.0;
        let d = decode(&encode(&m), IN_LEN).expect("decodes");
        let s = to_sample(&d, 0.01, "vut").expect("sample");
        assert!((s.time_s - 0.07).abs() < 1e-12 && (s.heading_deg - 90.0).abs() < 1e-9);
        assert!(decode(&[0u8; 100], IN_LEN).is_err());
        m[idx::POS_X] = f64::NAN;
        assert!(to_sample(&m, 0.01, "vut").is_err());
        let o = StepOutputs {
            t: Some(0.07),
            targets: vec![TargetOut {
                id: "dummy".into(),
                active: true,
                x: 200.0,
                y: -5.0,
                yaw_rad: 1.57,
                speed_mps: 1.2,
                ttc_s: Some(3.0),
            }],
            vut_ttc_s: Some(3.0),
            vut_launch_s: None,
            door_opened_s: None,
        };
        let a = answer(7.0, &o, &OutputMap::default());
        assert_eq!(a[0], 8.0);
        assert!(a[1].is_nan() && a[2].is_nan() && a[13].is_nan() && a[63].is_nan());
        assert_eq!(&a[14..19], &[1.0, 200.0, -5.0, 1.2, 3.0]);
    }
}
