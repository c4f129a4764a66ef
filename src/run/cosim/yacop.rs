//! YaCoP (YAKINDU Communication Protocol): TCP, one message per line `#,<name>,<value>\n`.
//!
//! Inputs: `vut.x`, `vut.y` (map m), `vut.yaw` (rad, map frame) or `vut.heading_deg` (INS),
//! `vut.speed` (m/s), optional `vut.steering_wheel_deg`, `vut.brake` (0/1). Values hold until
//! changed; a sample is committed when `vut.t` (s) arrives (x, y, speed and a heading needed).
//! After each committed sample scil answers `#,<target>.active,0|1`, `#,<target>.x,…`,
//! `#,<target>.y,…`, `#,<target>.speed,…` per target, `#,vut.ttc,…` (`nan` when undefined) and
//! closes the step with `#,scil.step,<t>`. `#,param.<name>,<value>` changes a live parameter
//! ([`crate::run::params`]). Unknown names and malformed lines (not three fields, no `#`, not a
//! number, over 4 KiB) are counted and reported, never fatal.

use std::fmt::Write as _;

use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::time::Instant;

use super::{CosimReport, Latencies, Link, StepOutputs};
use crate::frame::yaw_to_heading;
use crate::run::params::LiveParams;
use crate::sample::{InsPosition, InsSample};

/// Longest accepted line.
pub const MAX_LINE: u64 = 4096;

/// One parsed line.
#[derive(Debug, Clone, PartialEq)]
pub enum Line<'a> {
    Value(&'a str, f64),
    Malformed(String),
}

pub fn parse_line(l: &str) -> Line<'_> {
    let l = l.trim_end_matches(['\r', '\n']);
    let mut it = l.splitn(3, ',');
    let (Some(h), Some(name), Some(v)) = (it.next(), it.next(), it.next()) else {
        return Line::Malformed(format!(
            "not '#,<name>,<value>': '{}'",
            l.chars().take(80).collect::<String>()
        ));
    };
    if h.trim() != "#" || name.trim().is_empty() {
        return Line::Malformed(format!(
            "not '#,<name>,<value>': '{}'",
            l.chars().take(80).collect::<String>()
        ));
    }
    match v.trim().parse::<f64>() {
        Ok(x) => Line::Value(name.trim(), x),
        Err(_) => Line::Malformed(format!(
            "{}: not a number: '{}'",
            name.trim(),
            v.trim().chars().take(40).collect::<String>()
        )),
    }
}

/// The VUT values held between commits.
#[derive(Debug, Default, Clone)]
pub struct Pending {
    pub x: Option<f64>,
    pub y: Option<f64>,
    pub yaw: Option<f64>,
    pub heading_deg: Option<f64>,
    pub speed: Option<f64>,
    pub steering_wheel_deg: Option<f64>,
    pub brake: Option<f64>,
}

impl Pending {
    /// Sets a `vut.*` input; false for a name that is not one.
    pub fn set(&mut self, name: &str, v: f64) -> bool {
        let slot = match name {
            "vut.x" => &mut self.x,
            "vut.y" => &mut self.y,
            "vut.yaw" => {
                self.heading_deg = None;
                &mut self.yaw
            }
            "vut.heading_deg" => {
                self.yaw = None;
                &mut self.heading_deg
            }
            "vut.speed" => &mut self.speed,
            "vut.steering_wheel_deg" => &mut self.steering_wheel_deg,
            "vut.brake" => &mut self.brake,
            _ => return false,
        };
        *slot = Some(v);
        true
    }

    pub fn sample(&self, t: f64, vut_id: &str) -> Result<InsSample, String> {
        let heading = match (self.yaw, self.heading_deg) {
            (Some(y), _) => yaw_to_heading(y),
            (None, Some(h)) => h,
            _ => return Err(format!("vut.t={t}: no vut.yaw or vut.heading_deg yet")),
        };
        let (Some(x), Some(y), Some(v)) = (self.x, self.y, self.speed) else {
            return Err(format!("vut.t={t}: vut.x, vut.y and vut.speed needed"));
        };
        if ![t, x, y, v, heading].iter().all(|a| a.is_finite()) {
            return Err(format!("vut.t={t}: non-finite value"));
        }
        Ok(InsSample {
            time_s: t,
            vehicle: vut_id.into(),
            position: InsPosition::Local { x, y },
            heading_deg: heading.rem_euclid(360.0),
            speed_mps: v.abs(),
            steering_wheel_deg: self.steering_wheel_deg.filter(|a| a.is_finite()),
            brake_light: self.brake.map(|b| b > 0.5),
            accel_mps2: None,
            yaw_rate_rps: None,
            wheel_speed_mps: None,
            fcw: None,
        })
    }
}

/// The answer lines of a committed step.
pub fn answer(t: f64, o: &StepOutputs) -> String {
    let mut s = String::new();
    for tg in &o.targets {
        let _ = write!(
            s,
            "#,{id}.active,{}\n#,{id}.x,{}\n#,{id}.y,{}\n#,{id}.speed,{}\n",
            u8::from(tg.active),
            tg.x,
            tg.y,
            tg.speed_mps,
            id = tg.id
        );
    }
    let _ = write!(
        s,
        "#,vut.ttc,{}\n#,scil.step,{t}\n",
        o.vut_ttc_s.map_or("nan".to_string(), |v| v.to_string())
    );
    s
}

/// Serves one YaCoP peer on `stream` until it disconnects, the session ends or `shutdown`.
/// Closes the link (the session finishes).
pub async fn serve<S: AsyncRead + AsyncWrite + Unpin>(
    stream: S,
    peer: String,
    mut link: Link,
    params: LiveParams,
    vut_id: String,
    shutdown: impl std::future::Future<Output = ()>,
) -> (CosimReport, Latencies) {
    let mut rep = CosimReport {
        peer,
        ..CosimReport::default()
    };
    let mut lat = Latencies::default();
    let (rd, mut wr) = tokio::io::split(stream);
    let mut rd = BufReader::new(rd);
    let mut pending = Pending::default();
    let mut buf = Vec::with_capacity(256);
    let mut last_t: Option<f64> = None;
    tokio::pin!(shutdown);
    loop {
        buf.clear();
        let mut lim = (&mut rd).take(MAX_LINE);
        let n = tokio::select! {
            biased;
            _ = &mut shutdown => break,
            r = lim.read_until(b'\n', &mut buf) => match r {
                Ok(n) => n,
                Err(e) => {
                    rep.note(format!("read: {e}"));
                    break;
                }
            },
        };
        if n == 0 {
            break; // the peer disconnected
        }
        let t_rx = Instant::now();
        if buf.last() != Some(&b'\n') && n as u64 >= MAX_LINE {
            rep.received += 1;
            rep.malformed += 1;
            rep.note(format!("line over {MAX_LINE} bytes"));
            // Skip the rest of the line.
            let mut rest = Vec::new();
            let _ = rd.read_until(b'\n', &mut rest).await;
            continue;
        }
        let Ok(text) = std::str::from_utf8(&buf) else {
            rep.received += 1;
            rep.malformed += 1;
            rep.note("line is not UTF-8".into());
            continue;
        };
        if text.trim().is_empty() {
            continue;
        }
        rep.received += 1;
        let (name, v) = match parse_line(text) {
            Line::Value(n, v) => (n.to_string(), v),
            Line::Malformed(e) => {
                rep.malformed += 1;
                rep.note(e);
                continue;
            }
        };
        if let Some(p) = name.strip_prefix("param.") {
            if let Err(e) = params.set(p, v, "yacop") {
                if e.starts_with("unknown") {
                    rep.unknown += 1;
                } else {
                    rep.malformed += 1;
                }
                rep.note(e);
            }
            continue;
        }
        if name != "vut.t" {
            if !pending.set(&name, v) {
                rep.unknown += 1;
                rep.note(format!("unknown name '{name}'"));
            }
            continue;
        }
        // Commit a step.
        let outputs = match pending.sample(v, &vut_id) {
            Ok(_) if last_t.is_some_and(|l| v <= l) => {
                rep.malformed += 1;
                rep.note(format!("vut.t={v} not after {}", last_t.unwrap_or(0.0)));
                link.outputs()
            }
            Ok(s) => {
                last_t = Some(v);
                let r = link.step(s).await;
                rep.steps += 1;
                let a = answer(v, &r.outputs);
                if wr.write_all(a.as_bytes()).await.is_ok() {
                    rep.answered += 1;
                    lat.push(t_rx.elapsed().as_secs_f64() * 1e6);
                }
                if r.ended {
                    break;
                }
                continue;
            }
            Err(e) => {
                rep.malformed += 1;
                rep.note(e);
                link.outputs()
            }
        };
        // Not committed: the peer still gets its step closed.
        if wr.write_all(answer(v, &outputs).as_bytes()).await.is_ok() {
            rep.answered += 1;
        }
    }
    let _ = wr.flush().await;
    link.close();
    (rep, lat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        assert_eq!(parse_line("#,vut.x,12.5\n"), Line::Value("vut.x", 12.5));
        assert!(matches!(parse_line("#,vut.x\n"), Line::Malformed(_)));
        assert!(matches!(parse_line("x,vut.x,1\n"), Line::Malformed(_)));
        assert!(matches!(parse_line("#,vut.x,abc\n"), Line::Malformed(_)));
        let mut p = Pending::default();
        assert!(p.set("vut.x", 1.0) && p.set("vut.y", 2.0) && p.set("vut.speed", 3.0));
        assert!(p.sample(0.0, "vut").is_err());
        assert!(p.set("vut.yaw", 0.0));
        assert!((p.sample(0.0, "vut").expect("sample").heading_deg - 90.0).abs() < 1e-9);
        assert!(!p.set("car.x", 1.0));
    }
}
