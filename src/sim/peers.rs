//! Co-simulation peers built on the simulated VUT, for tests and demos: the BeamNG side of
//! vehicleSystemsCoupling (`scil sim beamng`) and a YaCoP tool (`scil sim yacop`). Each drives
//! the [`SimVut`] in strict lock-step (one message, wait for its answer, step) and feeds the
//! targets it learns from the answers to the vehicle's AEB — the loop closed over the wire.

use std::net::SocketAddr;
use std::time::Duration;

use serde::Serialize;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpStream, UdpSocket};
use tokio::time::Instant;

use super::{vehicle, SimOptions, SimVut, TargetView};
use crate::run::cosim::beamng::{self, idx, IN_LEN, OUT_LEN};
use crate::run::cosim::Latencies;
use crate::run::RunSetup;
use crate::scenario::profile::Profile;

/// What a peer saw (printed by `scil sim beamng|yacop --json`).
#[derive(Debug, Clone, Default, Serialize)]
pub struct PeerStats {
    pub steps: u64,
    pub answered: u64,
    /// Answers that did not come within the timeout (the step went on without one).
    pub timeouts: u64,
    /// Answers that could not be read.
    pub bad_answers: u64,
    pub elapsed_s: f64,
    /// Lock-step round trips per second.
    pub steps_per_s: f64,
    pub rtt_p50_us: Option<f64>,
    pub rtt_p99_us: Option<f64>,
    /// The target became active (seen in the answers).
    pub target_active_seen: bool,
    pub aeb_braked: bool,
    pub final_speed_mps: f64,
    /// Final VUT front bumper position along the path relative to the target's line, m.
    pub front_to_line_m: f64,
}

/// The first target as the answers describe it (velocity direction from consecutive
/// positions, as a sensor would see it).
struct Seen {
    view: Option<TargetView>,
    yaw: f64,
    last: Option<(f64, f64)>,
}

impl Seen {
    fn new(setup: &RunSetup) -> Seen {
        Seen {
            view: None,
            yaw: setup
                .scenario
                .targets
                .first()
                .map_or(0.0, |t| Profile::of(t).yaw),
            last: None,
        }
    }

    fn update(&mut self, x: f64, y: f64, speed: f64) {
        if !(x.is_finite() && y.is_finite()) {
            return;
        }
        if let Some((lx, ly)) = self.last {
            if (x - lx).hypot(y - ly) > 1e-9 {
                self.yaw = (y - ly).atan2(x - lx);
            }
        }
        self.last = Some((x, y));
        self.view = Some(TargetView {
            x,
            y,
            yaw_rad: self.yaw,
            speed_mps: if speed.is_finite() { speed } else { 0.0 },
        });
    }

    fn views(&self) -> Vec<TargetView> {
        self.view.into_iter().collect()
    }
}

struct Run {
    car: SimVut,
    s_line: f64,
    s_end: f64,
    dt: f64,
    standing: u64,
    max_steps: u64,
}

impl Run {
    fn new(setup: &RunSetup, opts: &SimOptions) -> Run {
        let (car, s_line) = vehicle(setup, opts);
        let s_end = super::end_s(setup, &car, s_line);
        let dt = opts.step_ms / 1000.0;
        Run {
            car,
            s_line,
            s_end,
            dt,
            standing: 0,
            max_steps: (opts.max_duration_s / dt).ceil() as u64,
        }
    }

    /// Steps the car; true when the run is over.
    fn step(&mut self, targets: &[TargetView]) -> bool {
        self.car.step(self.dt, targets);
        self.standing = if self.car.v <= 0.0 {
            self.standing + 1
        } else {
            0
        };
        self.standing as f64 * self.dt >= 1.0 || self.car.s >= self.s_end
    }

    fn finish(&self, st: &mut PeerStats, lat: &Latencies, t0: Instant) {
        st.elapsed_s = t0.elapsed().as_secs_f64();
        st.steps_per_s = st.steps as f64 / st.elapsed_s.max(1e-9);
        st.rtt_p50_us = lat.percentile(50.0);
        st.rtt_p99_us = lat.percentile(99.0);
        st.aeb_braked = self.car.is_braking();
        st.final_speed_mps = self.car.v;
        st.front_to_line_m = self.car.s + self.car.p.reference_to_front_m - self.s_line;
    }
}

/// The BeamNG side: sends 111-double messages from `sock` to `scil`, one per step (id = step
/// number), and waits up to `timeout` for the answer with id = step + 1.
pub async fn beamng_peer(
    setup: &RunSetup,
    opts: &SimOptions,
    sock: UdpSocket,
    scil: SocketAddr,
    timeout: Duration,
) -> PeerStats {
    let mut run = Run::new(setup, opts);
    let mut seen = Seen::new(setup);
    let mut st = PeerStats::default();
    let mut lat = Latencies::default();
    let mut buf = vec![0u8; 2048];
    let t0 = Instant::now();
    for k in 0..=run.max_steps {
        let (x, y, yaw) = run.car.pose();
        let mut m = [0.0f64; IN_LEN];
        m[idx::ID] = k as f64;
        m[idx::THROTTLE] = if run.car.a > 0.0 { 0.3 } else { 0.0 };
        m[idx::BRAKE] = if run.car.is_braking() { 1.0 } else { 0.0 };
        m[idx::POS_X] = x;
        m[idx::POS_Y] = y;
        m[idx::VEL_X] = run.car.v * yaw.cos();
        m[idx::VEL_Y] = run.car.v * yaw.sin();
        m[idx::GROUNDSPEED] = run.car.v;
        m[idx::ACC_X] = run.car.a;
        m[idx::YAW] = yaw;
        let sent = Instant::now();
        if sock.send_to(&beamng::encode(&m), scil).await.is_err() {
            st.bad_answers += 1;
        }
        st.steps += 1;
        // Wait for this step's answer (older ones are skipped, as BeamNG does).
        let deadline = sent + timeout;
        loop {
            match tokio::time::timeout_at(deadline, sock.recv_from(&mut buf)).await {
                Err(_) => {
                    st.timeouts += 1;
                    break;
                }
                Ok(Err(_)) => continue,
                Ok(Ok((n, _))) => match beamng::decode(&buf[..n], OUT_LEN) {
                    Err(_) => st.bad_answers += 1,
                    Ok(a) if a[idx::ID] < (k + 1) as f64 => {}
                    Ok(a) => {
                        lat.push(sent.elapsed().as_secs_f64() * 1e6);
                        st.answered += 1;
                        let c = idx::OUT_CUSTOM1;
                        if a[c] == 1.0 {
                            st.target_active_seen = true;
                        }
                        seen.update(a[c + 1], a[c + 2], a[c + 3]);
                        break;
                    }
                },
            }
        }
        if run.step(&seen.views()) {
            break;
        }
    }
    run.finish(&mut st, &lat, t0);
    st
}

/// A YaCoP tool: connects to scil, sends the VUT each step (`vut.x`, `vut.y`, `vut.yaw`,
/// `vut.speed`, `vut.brake`, then `vut.t`) and reads until `#,scil.step,…`. `params` lines
/// (`name=value`) are sent before step `at_step`.
pub async fn yacop_peer(
    setup: &RunSetup,
    opts: &SimOptions,
    stream: TcpStream,
    params: &[(u64, String, f64)],
    timeout: Duration,
) -> PeerStats {
    let mut run = Run::new(setup, opts);
    let mut seen = Seen::new(setup);
    let target = setup
        .scenario
        .targets
        .first()
        .map(|t| t.id.clone())
        .unwrap_or_default();
    let mut st = PeerStats::default();
    let mut lat = Latencies::default();
    let _ = stream.set_nodelay(true);
    let (rd, mut wr) = stream.into_split();
    let mut rd = BufReader::new(rd);
    let mut line = String::new();
    let t0 = Instant::now();
    for k in 0..=run.max_steps {
        let (x, y, yaw) = run.car.pose();
        let mut msg = String::new();
        for (at, name, v) in params {
            if *at == k {
                msg.push_str(&format!("#,param.{name},{v}\n"));
            }
        }
        msg.push_str(&format!(
            "#,vut.x,{x}\n#,vut.y,{y}\n#,vut.yaw,{yaw}\n#,vut.speed,{}\n#,vut.brake,{}\n#,vut.t,{}\n",
            run.car.v,
            u8::from(run.car.is_braking()),
            k as f64 * run.dt
        ));
        let sent = Instant::now();
        if wr.write_all(msg.as_bytes()).await.is_err() {
            break;
        }
        st.steps += 1;
        let (mut tx, mut ty, mut tv) = (f64::NAN, f64::NAN, f64::NAN);
        let deadline = sent + timeout;
        loop {
            line.clear();
            match tokio::time::timeout_at(deadline, rd.read_line(&mut line)).await {
                Err(_) => {
                    st.timeouts += 1;
                    break;
                }
                Ok(Err(_)) | Ok(Ok(0)) => {
                    run.finish(&mut st, &lat, t0);
                    return st;
                }
                Ok(Ok(_)) => {}
            }
            let mut it = line.trim_end().splitn(3, ',');
            let (Some(_), Some(name), Some(v)) = (it.next(), it.next(), it.next()) else {
                st.bad_answers += 1;
                continue;
            };
            let v: f64 = v.parse().unwrap_or(f64::NAN);
            match name.strip_prefix(target.as_str()) {
                Some(".active") if v == 1.0 => st.target_active_seen = true,
                Some(".x") => tx = v,
                Some(".y") => ty = v,
                Some(".speed") => tv = v,
                _ => {}
            }
            if name == "scil.step" {
                lat.push(sent.elapsed().as_secs_f64() * 1e6);
                st.answered += 1;
                break;
            }
        }
        seen.update(tx, ty, tv);
        if run.step(&seen.views()) {
            break;
        }
    }
    let _ = wr.shutdown().await;
    run.finish(&mut st, &lat, t0);
    st
}
