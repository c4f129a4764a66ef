//! `scil bench join`: a WebSocket client joining a long run late — how long until the whole run
//! so far (the `history` frame) is delivered and parsed — against a bare loopback WebSocket
//! that sends the same bytes (the floor: moving and parsing that much JSON), measured in the
//! same process.
//!
//! The run is a real service run (in-process `scil serve` on an ephemeral port, SQLite in a
//! temporary directory): a generated recording of `minutes` at `rate_hz` (the VUT driving up and
//! down the bundled proving ground's lane at 30 km/h), replayed at `speed` × real time. The
//! client joins once the run is 90 % through (history from memory) and again after it finished
//! (history from the store).

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clap::Args;
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio_tungstenite::tungstenite::Message;

use crate::run::Pace;
use crate::serve::supervisor::{NewRun, RunSource};
use crate::store::ReplayRow;

#[derive(Args, Debug, Clone)]
pub struct JoinBenchArgs {
    /// Length of the recorded run, minutes.
    #[arg(long, default_value_t = 10.0)]
    pub minutes: f64,
    /// Sample rate of the recording, Hz.
    #[arg(long, default_value_t = 100.0)]
    pub rate_hz: f64,
    /// Replay speed (× real time) while the run is recorded.
    #[arg(long, default_value_t = 30.0)]
    pub speed: f64,
    /// Measured joins of each kind (medians are printed).
    #[arg(long, default_value_t = 3)]
    pub rounds: usize,
}

/// The VUT up and down the lane y = −1.75 m between x = 20 m and 240 m at 30 km/h.
fn write_recording(path: &Path, minutes: f64, rate_hz: f64) -> anyhow::Result<usize> {
    let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
    writeln!(
        f,
        "Time,PosX,PosY,Heading,Velocity,Steering_Angle,Brake_Light"
    )?;
    let (x0, x1, v) = (20.0_f64, 240.0_f64, 30.0 / 3.6);
    let leg = (x1 - x0) / v;
    let n = (minutes * 60.0 * rate_hz).round() as usize;
    for i in 0..n {
        let t = i as f64 / rate_hz;
        let k = (t / leg).floor();
        let s = (t - k * leg) * v;
        let back = (k as i64) % 2 == 1;
        let (x, heading) = if back {
            (x1 - s, 270.0)
        } else {
            (x0 + s, 90.0)
        };
        writeln!(
            f,
            "{:.3},{x:.4},-1.7500,{heading:.3},30.000,0.0,0",
            387_000.0 + t
        )?;
    }
    f.flush()?;
    Ok(n)
}

type Client =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// Connects and reads until the `history` frame is parsed: (seconds, the frame, VUT samples).
async fn join_once(url: &str) -> anyhow::Result<(f64, String, usize)> {
    let t = Instant::now();
    let (mut ws, _): (Client, _) = tokio_tungstenite::connect_async(url).await?;
    while let Some(m) = ws.next().await {
        if let Message::Text(text) = m? {
            let v: Value = serde_json::from_str(text.as_str())?;
            if v["type"] == "history" {
                let secs = t.elapsed().as_secs_f64();
                let n = v["vehicles"]["vut"]["t"].as_array().map_or(0, Vec::len);
                return Ok((secs, text.as_str().to_string(), n));
            }
        }
    }
    anyhow::bail!("{url}: closed before the history frame")
}

/// The floor: a bare WebSocket on loopback sends `payload` once; connect, receive, parse.
async fn bare_once(payload: &str) -> anyhow::Result<f64> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let body = payload.to_string();
    let server = tokio::spawn(async move {
        if let Ok((tcp, _)) = listener.accept().await {
            if let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await {
                let _ = ws.send(Message::Text(body)).await;
                let _ = ws.next().await;
            }
        }
    });
    let t = Instant::now();
    let (mut ws, _): (Client, _) =
        tokio_tungstenite::connect_async(format!("ws://{addr}/")).await?;
    let m = ws
        .next()
        .await
        .ok_or_else(|| anyhow::anyhow!("bare socket closed"))??;
    let _: Value = serde_json::from_str(m.to_text()?)?;
    let secs = t.elapsed().as_secs_f64();
    let _ = ws.close(None).await;
    server.abort();
    Ok(secs)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

pub async fn run(a: JoinBenchArgs) -> anyhow::Result<String> {
    let dir = std::env::temp_dir().join(format!("scil-bench-join-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let result = measure(&a, &dir).await;
    let _ = std::fs::remove_dir_all(&dir);
    result
}

async fn measure(a: &JoinBenchArgs, dir: &Path) -> anyhow::Result<String> {
    let rounds = a.rounds.max(1);
    let csv: PathBuf = dir.join("long.csv");
    let rows = write_recording(&csv, a.minutes, a.rate_hz)?;
    let mut config = crate::serve::Config {
        bind: "127.0.0.1:0".into(),
        database_url: format!("sqlite://{}?mode=rwc", dir.join("scil.db").display()),
        storage_dir: dir.join("storage"),
        ..crate::serve::Config::default()
    };
    config.auth.operator_tokens = vec!["bench".into()];
    let server = crate::serve::spawn(config).await?;
    let st = server.state.clone();
    st.store
        .upsert_replay(&ReplayRow {
            id: "bench_long".into(),
            name: "long.csv".into(),
            scenario_id: Some("cpna75_30kmh".into()),
            path: csv.display().to_string(),
            bytes: std::fs::metadata(&csv)?.len() as i64,
            row_count: rows as i64,
            bundled: false,
            created_at: chrono::Utc::now(),
            kind: "csv".into(),
            sha256: None,
            columns: None,
            map_id: Some("proving_ground".into()),
        })
        .await?;
    let row = st
        .supervisor
        .create(NewRun {
            scenario_id: "cpna75_30kmh".into(),
            map_id: None,
            source: RunSource::CsvReplay {
                replay_id: "bench_long".into(),
                file_name: "long.csv".into(),
            },
            can: None,
            can_mapping: None,
            speed: Pace::factor_checked(a.speed).map_err(|e| anyhow::anyhow!(e))?,
            carriers: Vec::new(),
            sync: false,
            record: false,
            track: None,
            demo: false,
        })
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let id = row.id.clone();
    st.supervisor
        .arm(&id, None)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    st.supervisor
        .start(&id, None)
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let url = format!("ws://{}/api/v1/runs/{id}/live", server.addr);
    let span = a.minutes * 60.0;
    // Wait until the run is 90 % through (its own sample time).
    let t_wait = Instant::now();
    loop {
        let run = st.supervisor.active(&id);
        let Some(run) = run else {
            anyhow::bail!("the run ended before it was 90 % through (too fast? lower --speed)");
        };
        let done = {
            let h = run.history.lock().unwrap_or_else(|p| p.into_inner());
            h.t0.zip(h.last_t).map_or(0.0, |(a, b)| b - a)
        };
        if done >= 0.9 * span {
            break;
        }
        if t_wait.elapsed() > Duration::from_secs_f64(span / a.speed * 3.0 + 60.0) {
            anyhow::bail!("the run reached only {done:.0} s of {span:.0} s");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let mut live = Vec::new();
    let mut payload = String::new();
    let mut live_samples = 0;
    for _ in 0..rounds {
        let (s, text, n) = join_once(&url).await?;
        live.push(s);
        payload = text;
        live_samples = n;
    }
    let live_bytes = payload.len();
    let done = st
        .supervisor
        .wait_done(&id, Duration::from_secs_f64(span / a.speed * 3.0 + 120.0))
        .await
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut stored = Vec::new();
    let mut stored_bytes = 0;
    let mut stored_samples = 0;
    for _ in 0..rounds {
        let (s, text, n) = join_once(&url).await?;
        stored.push(s);
        stored_bytes = text.len();
        stored_samples = n;
    }
    // The floor: the running run's history frame over a bare socket.
    let mut bare = Vec::new();
    for _ in 0..rounds {
        bare.push(bare_once(&payload).await?);
    }
    server.task.abort();
    let (l, s, b) = (median(live), median(stored), median(bare));
    let mut out = String::new();
    writeln!(
        out,
        "join a {:.0}-minute run at {:.0} Hz ({rows} samples, replayed ×{}; run {} {}); medians of {rounds}",
        a.minutes, a.rate_hz, a.speed, id, done.state
    )?;
    writeln!(
        out,
        "  bare WebSocket, same {:.1} MB of JSON (baseline): {:8.1} ms   1.00",
        payload.len() as f64 / 1e6,
        b * 1e3
    )?;
    writeln!(
        out,
        "  join running run at 90 % (memory): {:8.1} ms   {:.2}   ({live_samples} VUT samples, {:.1} MB)",
        l * 1e3,
        l / b,
        live_bytes as f64 / 1e6
    )?;
    writeln!(
        out,
        "  join finished run (store):          {:8.1} ms   {:.2}   ({stored_samples} VUT samples, {:.1} MB)",
        s * 1e3,
        s / b,
        stored_bytes as f64 / 1e6
    )?;
    Ok(out)
}
