//! Stock isoObjects for the ground series: one `ISO_objectDemo` process per object, each on
//! its own loopback address, and (for a real platform's motion) a platform proxy in front of
//! each on an address of its own.

use std::net::{IpAddr, Ipv4Addr};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use crate::dispatch::ground::Pose;
use crate::dispatch::object_dynamics::Dynamics;
use crate::dispatch::platform_proxy::{self, ProxyConfig, ProxyHandle};

/// How a point names a stock object's own crash (the point is then driven once more).
pub const CRASHED: &str = "stock object crashed";

/// The objects of one point, running.
pub struct Up {
    children: Vec<(IpAddr, Child)>,
    proxies: Vec<Option<ProxyHandle>>,
    logs: Vec<std::path::PathBuf>,
}

/// Addresses of a point's objects and proxies: 127.A.B.(1+i) and 127.A.B.(101+i), A from this
/// process (series run side by side do not meet), B from the point (a fresh address per
/// point: nothing of the last point's sessions is reused).
fn address(point: usize, i: usize, proxy: bool) -> IpAddr {
    let a = 16 + (std::process::id() % 200) as u8;
    let b = (point % 250) as u8;
    let c = 1 + i as u8 + if proxy { 100 } else { 0 };
    IpAddr::V4(Ipv4Addr::new(127, a, b, c))
}

/// Starts a stock object per entry of `dynamics` (standing at `starts[i]`), behind a proxy
/// with those dynamics where given.
pub async fn start(
    bin: &Path,
    point: usize,
    starts: &[Pose],
    dynamics: &[Option<Dynamics>],
) -> Result<Up, String> {
    let mut up = Up {
        children: Vec::new(),
        proxies: Vec::new(),
        logs: Vec::new(),
    };
    for i in 0..dynamics.len() {
        let ip = address(point, i, false);
        let log = std::env::temp_dir().join(format!("scil-series-{}-{ip}.log", std::process::id()));
        let out = std::fs::File::create(&log).map_err(|e| format!("{}: {e}", log.display()))?;
        let err = out.try_clone().map_err(|e| e.to_string())?;
        let child = Command::new(bin)
            .args(["-i", &ip.to_string()])
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err))
            .spawn()
            .map_err(|e| format!("{}: {e}", bin.display()))?;
        up.children.push((ip, child));
        up.logs.push(log);
    }
    for (i, d) in dynamics.iter().enumerate() {
        let proxy = match d {
            Some(d) => Some(
                platform_proxy::spawn(ProxyConfig {
                    listen: address(point, i, true),
                    object: address(point, i, false),
                    tcp_port: crate::dispatch::iso22133::DEFAULT_TCP_PORT,
                    udp_port: crate::dispatch::iso22133::DEFAULT_UDP_PORT,
                    dynamics: d.clone(),
                    start: starts.get(i).map(|p| (p.x, p.y, p.yaw)),
                })
                .await
                .map_err(|e| format!("platform proxy: {e}"))?,
            ),
            None => None,
        };
        up.proxies.push(proxy);
    }
    // The stock object takes a moment to open its ports.
    tokio::time::sleep(Duration::from_millis(500)).await;
    Ok(up)
}

impl Up {
    /// Where the control centre reaches object `i` (ISO 22133's default ports).
    pub fn address(&self, i: usize) -> String {
        let proxied = self.proxies.get(i).is_some_and(Option::is_some);
        match self.children.get(i) {
            Some((ip, _)) if !proxied => ip.to_string(),
            _ => self
                .proxies
                .get(i)
                .and_then(Option::as_ref)
                .map_or_else(String::new, |p| p.tcp_addr.ip().to_string()),
        }
    }

    /// Stops every object and proxy; the point's outcome, or the crash of a stock object
    /// (died of a signal before it was stopped) with its log's last lines.
    pub fn stop(mut self, outcome: Result<(), String>) -> Result<(), String> {
        use std::os::unix::process::ExitStatusExt;
        let mut crashed = Vec::new();
        for ((ip, child), log) in self.children.iter_mut().zip(&self.logs) {
            if let Ok(Some(st)) = child.try_wait() {
                if let Some(sig) = st.signal() {
                    let tail = std::fs::read_to_string(log).unwrap_or_default();
                    let tail: Vec<&str> = tail.lines().rev().take(3).collect();
                    crashed.push(format!("{ip} died of signal {sig} ({})", tail.join(" / ")));
                }
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        for log in &self.logs {
            let _ = std::fs::remove_file(log);
        }
        self.proxies.clear();
        if crashed.is_empty() {
            outcome
        } else {
            Err(format!("{CRASHED}: {}", crashed.join("; ")))
        }
    }
}

impl Drop for Up {
    fn drop(&mut self) {
        for (_, c) in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}
