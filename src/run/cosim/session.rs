//! A co-simulation session: the peer adapter and the run layer's session side by side on one
//! runtime; the report gets the adapter's `cosim` block.

use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream, UdpSocket};

use super::beamng::{self, BeamngOptions};
use super::{yacop, Latencies};
use crate::run::params::LiveParams;
use crate::run::source::inject::Injection;
use crate::run::{RunReport, RunSetup, Session, SessionOptions, Sink};

/// Session options of a co-simulation: as fast as the peer, live parameters on.
fn session(
    setup: &Arc<RunSetup>,
    name: String,
    injection: Injection,
    sinks: Vec<Box<dyn Sink>>,
) -> (Session, super::Link, LiveParams) {
    let (mut feed, outputs, link) = super::link(setup, name);
    let params = LiveParams::new();
    // Zero injection passes every sample untouched; the handle makes noise live-changeable.
    if let Ok(h) = feed.inject(injection) {
        params.attach_injection(h);
    }
    let mut s = Session::new(
        setup.clone(),
        feed,
        SessionOptions {
            live: Some(params.clone()),
            ..SessionOptions::default()
        },
    );
    for k in sinks {
        s.add_sink(k);
    }
    s.add_sink(Box::new(outputs));
    (s, link, params)
}

/// BeamNG on `sock` (bound by the caller) until it goes quiet or `shutdown`.
pub async fn run_beamng(
    setup: Arc<RunSetup>,
    sock: UdpSocket,
    opts: BeamngOptions,
    injection: Injection,
    sinks: Vec<Box<dyn Sink>>,
    shutdown: impl std::future::Future<Output = ()>,
) -> (RunReport, Latencies) {
    let name = format!(
        "beamng-udp:{}",
        sock.local_addr().map(|a| a.to_string()).unwrap_or_default()
    );
    let (s, link, _params) = session(&setup, name, injection, sinks);
    let (mut report, (rep, lat)) = tokio::join!(s.run(), beamng::serve(sock, link, opts, shutdown));
    report.cosim = Some(rep);
    (report, lat)
}

/// Where a YaCoP session gets its peer.
pub enum YacopEnd {
    /// Accept one peer on this listener.
    Listen(TcpListener),
    /// Connect to this address.
    Connect(String),
}

/// One YaCoP peer until it disconnects or `shutdown`. An error when no peer could be had.
pub async fn run_yacop(
    setup: Arc<RunSetup>,
    end: YacopEnd,
    injection: Injection,
    sinks: Vec<Box<dyn Sink>>,
    shutdown: impl std::future::Future<Output = ()>,
) -> anyhow::Result<(RunReport, Latencies)> {
    tokio::pin!(shutdown);
    let (stream, peer): (TcpStream, String) = match end {
        YacopEnd::Listen(l) => tokio::select! {
            _ = &mut shutdown => anyhow::bail!("stopped before a YaCoP peer connected"),
            r = l.accept() => {
                let (s, a) = r?;
                (s, format!("yacop-tcp:{a}"))
            }
        },
        YacopEnd::Connect(addr) => {
            let s = TcpStream::connect(&addr)
                .await
                .map_err(|e| anyhow::anyhow!("connect to {addr}: {e}"))?;
            (s, format!("yacop-tcp:{addr}"))
        }
    };
    let _ = stream.set_nodelay(true);
    let (s, link, params) = session(&setup, peer.clone(), injection, sinks);
    let vut = setup.vut_id().to_string();
    let (mut report, (rep, lat)) = tokio::join!(
        s.run(),
        yacop::serve(stream, peer, link, params, vut, shutdown)
    );
    report.cosim = Some(rep);
    Ok((report, lat))
}
