//! The ISO 22133 links under faults, through a userspace proxy (tests/support/fault_proxy.rs):
//! MONR loss and delay are measured per carrier and refuse arming beyond the limits, naming
//! the measure; a delay within the limits does not show up as travel error, because MONR are
//! timed by the carrier's own time stamp.
//! A carrier behind a veth pair in a network namespace whose link goes down (root only).

use std::time::Duration;

use scil::dispatch::carrier_sim::{self, SimConfig, SimHandle};
use scil::dispatch::control_centre::{
    CarrierConfig, CarrierMode, ControlCentre, ControlCentreConfig, ControlCentreHandle, GeoOrigin,
};
use scil::dispatch::iso22133::ObjectState;
use scil::dispatch::object::ObjectConfig;
use scil::dispatch::profile::DummyProfile;
use scil::dispatch::safety::SafetyConfig;
use tokio::time::Instant;

use crate::support;
use support::fault_proxy::{FaultProxy, Faults};

const T: Duration = Duration::from_secs(5);

/// One test at a time: the timing ones should not share the two cores with each other.
static SERIAL: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn sim() -> SimHandle {
    carrier_sim::spawn(SimConfig {
        tcp_port: 0,
        udp_port: 0,
        object: ObjectConfig {
            id: 7,
            // Its own heartbeat timeout before OSEM sets one: 1 s, so that a slow link is
            // judged by the control centre's measures, not cut by the carrier.
            heab_rate_hz: 10,
            ..Default::default()
        },
        ..Default::default()
    })
    .await
    .expect("sim binds")
}

/// A control centre whose carrier is reached through `proxy`.
fn cc(proxy: &FaultProxy) -> ControlCentreHandle {
    ControlCentre::spawn(ControlCentreConfig {
        origin: GeoOrigin {
            lat_deg: 46.84,
            lon_deg: 16.84,
            alt_m: 150.0,
            rotation_deg: 0.0,
        },
        carriers: vec![CarrierConfig {
            name: "carrier-1".into(),
            object_id: 7,
            host: "127.0.0.1".into(),
            tcp_port: proxy.tcp_addr.port(),
            udp_port: proxy.udp_addr.port(),
            mode: CarrierMode::Trajectory,
            profile: Some(DummyProfile::from_scenario(200.0, -5.75, 0.0, 1.0, 5.0)),
        }],
        safety: SafetyConfig {
            // No VUT in these tests: the stale-telemetry rule is fed by a ticker.
            telemetry_stale_s: 1.0,
            // Loss is what is measured here, not what aborts.
            monr_miss_limit: 50,
            ..Default::default()
        },
        heab_timeout_ms: Some(1000),
        ..Default::default()
    })
    .expect("valid config")
}

fn feed_telemetry(h: &ControlCentreHandle) -> tokio::task::JoinHandle<()> {
    let h = h.clone();
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_millis(10));
        loop {
            tick.tick().await;
            h.telemetry();
        }
    })
}

/// Connects through a proxy with `faults`, waits until the link has been measured, arms.
async fn arm_through(
    faults: Faults,
) -> (
    SimHandle,
    FaultProxy,
    ControlCentreHandle,
    Result<(), String>,
) {
    let sim = sim().await;
    let proxy = FaultProxy::start(sim.tcp_addr, sim.udp_addr, faults).await;
    let h = cc(&proxy);
    assert!(
        h.wait_armable(T).await,
        "connects: {:?}",
        h.snapshot().carriers
    );
    // A full window of measures.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    let link = h.snapshot().carriers[0].link;
    println!("{faults:?}: measured {link:?}");
    let armed = h.arm(T).await.map_err(|e| e.to_string());
    (sim, proxy, h, armed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_the_monr_lost_refuses_arming_naming_the_loss() {
    let _g = SERIAL.lock().await;
    let (_sim, _p, h, armed) = arm_through(Faults {
        udp_loss: 0.5,
        ..Default::default()
    })
    .await;
    let e = armed.expect_err("arming refused");
    assert!(e.contains("MONR loss"), "{e}");
    let loss = h.snapshot().carriers[0].link.monr_loss;
    assert!((0.35..0.65).contains(&loss), "{loss}");
    h.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_150_ms_delay_refuses_arming_naming_the_latency() {
    let _g = SERIAL.lock().await;
    let (_sim, _p, h, armed) = arm_through(Faults {
        delay: Duration::from_millis(150),
        ..Default::default()
    })
    .await;
    let e = armed.expect_err("arming refused");
    assert!(e.contains("MONR latency"), "{e}");
    let lat = h.snapshot().carriers[0].link.latency_ms;
    assert!((140.0..200.0).contains(&lat), "{lat}");
    h.shutdown().await;
}

/// Distance travelled at 0.3, 0.5, … 1.1 s after the scheduled start (carrier-stamped track).
async fn travel_with(delay: Duration) -> Vec<f64> {
    let (_sim, _p, h, armed) = arm_through(Faults {
        delay,
        ..Default::default()
    })
    .await;
    armed.expect("arms");
    let feed = feed_telemetry(&h);
    // Scheduled far enough ahead that STRT arrives before its instant.
    h.start_at(Instant::now() + Duration::from_millis(400));
    assert!(
        h.wait_carrier_state("carrier-1", ObjectState::Running, T)
            .await
    );
    tokio::time::sleep(Duration::from_millis(1600)).await;
    let c = h.snapshot().carriers[0].clone();
    // The STRT's own start time: when its timer fired (a loaded machine fires late).
    let t0 = c.strt_scheduled_s.expect("scheduled") + c.strt_timer_late_us.unwrap_or(0.0) / 1e6;
    if std::env::var("SCIL_PRINT_TRACK").is_ok() {
        let i = c
            .track
            .iter()
            .position(|p| p.4 == ObjectState::Running)
            .unwrap_or(0);
        for p in &c.track[i.saturating_sub(3)..(i + 6).min(c.track.len())] {
            println!("{:.4} {:.4} {:.4} {:?}", p.0 - t0, p.1, p.2, p.4);
        }
    }
    let out: Vec<f64> = (0..5)
        .map(|k| {
            c.travel_at(t0 + 0.3 + 0.2 * k as f64)
                .expect("track covers the instant")
        })
        .collect();
    feed.abort();
    h.abort("test over");
    h.shutdown().await;
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_90_ms_delay_arms_and_does_not_show_as_travel_error() {
    let _g = SERIAL.lock().await;
    let clean = travel_with(Duration::ZERO).await;
    let delayed = travel_with(Duration::from_millis(90)).await;
    let worst = clean
        .iter()
        .zip(&delayed)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    println!("travel without delay {clean:?}\ntravel with 90 ms    {delayed:?}\nworst difference {:.1} mm", worst * 1000.0);
    assert!(clean[4] > 0.2, "the carrier moved: {clean:?}");
    assert!(worst < 0.005, "travel error {:.1} mm", worst * 1000.0);
}

/// A service run with a real carrier behind the proxy: a slow link is warned about live; a
/// partition makes the control centre abort (n missing MONR), and the run's API state says
/// `aborted` at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_link_warns_and_a_partition_aborts_at_once() {
    let _g = SERIAL.lock().await;
    let dir = support::tempdir("partition");
    let (_server, base) = support::service::spawn(&dir, "op").await;
    let api = support::http::Api::new(base, "op");
    let sim = carrier_sim::spawn(SimConfig {
        tcp_port: 0,
        udp_port: 0,
        object: ObjectConfig {
            ready_to_arm: true,
            ..Default::default()
        },
        ..Default::default()
    })
    .await
    .expect("sim");
    let proxy = FaultProxy::start(sim.tcp_addr, sim.udp_addr, Faults::default()).await;
    let address = format!(
        "127.0.0.1:{}:{}",
        proxy.tcp_addr.port(),
        proxy.udp_addr.port()
    );
    let (s, run) = api
        .post(
            "/runs",
            serde_json::json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh",
                "speed": 2, "start": true,
                "carriers": [{"name": "carrier-1", "address": address}]}),
        )
        .await;
    assert_eq!(s, reqwest::StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    // Armed and going (the carrier is armed before the first sample is applied).
    let t0 = Instant::now();
    loop {
        let evs = api.events(&id).await;
        if evs
            .iter()
            .any(|e| e["event"]["event"] == "carrier_state" && e["event"]["state"] == "ARMED")
        {
            break;
        }
        let (_, r) = api.get(&format!("/runs/{id}")).await;
        assert_eq!(r["state"], "running", "{r}");
        assert!(t0.elapsed() < T, "carrier never ARMED: {evs:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // A link that degrades while the run goes (60 ms: beyond the 50 ms warning level, within
    // the limits) is reported live.
    proxy.set(Faults {
        delay: Duration::from_millis(60),
        ..Default::default()
    });
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let warned: Vec<serde_json::Value> = api
        .events(&id)
        .await
        .into_iter()
        .filter(|e| e["kind"] == "link_degraded")
        .collect();
    assert!(
        warned
            .first()
            .and_then(|e| e["event"]["measure"].as_str())
            .is_some_and(|m| m.starts_with("MONR latency")),
        "{warned:?}"
    );
    let (_, r) = api.get(&format!("/runs/{id}")).await;
    assert_eq!(
        r["state"], "running",
        "a slow link warns, it does not abort: {r}"
    );
    proxy.set(Faults::default());
    tokio::time::sleep(Duration::from_millis(300)).await;
    proxy.set(Faults {
        partition: true,
        ..Default::default()
    });
    let cut = Instant::now();
    let (seen, seen_at) = loop {
        let (_, r) = api.get(&format!("/runs/{id}")).await;
        // Received now: the change happened before.
        let at = chrono::Utc::now();
        if r["state"] != "running" {
            break (r, at);
        }
        assert!(
            cut.elapsed() < T,
            "still running 5 s after the partition: {r}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let after = cut.elapsed();
    println!(
        "partition → API state {} after {:.0} ms ({})",
        seen["state"],
        after.as_secs_f64() * 1000.0,
        seen["error"]
    );
    assert_eq!(seen["state"], "aborted", "{seen}");
    assert!(after < Duration::from_millis(500), "{after:?}");
    // Settled: its data and final state stored.
    let t1 = Instant::now();
    loop {
        let (_, r) = api.get(&format!("/runs/{id}")).await;
        if !r["finished_at"].is_null() {
            assert_eq!(r["state"], "aborted", "{r}");
            break;
        }
        assert!(t1.elapsed() < Duration::from_secs(30), "never settled: {r}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The control centre's abort decision (its event, stamped when it was published) → the
    // API's state: within 100 ms.
    let all = api.events(&id).await;
    if std::env::var("SCIL_PRINT_TRACK").is_ok() {
        for e in all.iter().rev().take(12) {
            println!("{e}");
        }
    }
    let decided = all
        .into_iter()
        .find(|e| {
            e["kind"] == "dispatch"
                && e["event"].to_string().contains("abort")
                && e["event"].to_string().contains("monr_lost")
        })
        .and_then(|e| e["created_at"].as_str().map(str::to_string))
        .and_then(|t| chrono::DateTime::parse_from_rfc3339(&t).ok())
        .expect("the control centre's abort event");
    let lag_ms = (seen_at - decided.with_timezone(&chrono::Utc)).num_milliseconds();
    println!("abort decided → API aborted: at most {lag_ms} ms");
    assert!(lag_ms < 100, "{lag_ms} ms");
}

/// A carrier (the `scil carrier-sim` ISO 22133 test object) in its own network namespace,
/// reached over a veth pair: `ip link set <peer> down` drops the link as a pulled cable or a
/// dead radio would. The namespace (and with it the veth pair) and the carrier process go when
/// this is dropped, also when the test fails.
struct VethCarrier {
    ns: String,
    host_if: String,
    child: Option<std::process::Child>,
    /// The carrier's address: IP:TCP:UDP.
    address: String,
    carrier_if: String,
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = std::process::Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip {}: {e}", args.join(" ")))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

impl VethCarrier {
    /// Err: why namespaces or veth cannot be used here (the test then skips).
    fn start() -> Result<VethCarrier, String> {
        let uid = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|s| {
                s.lines()
                    .find(|l| l.starts_with("Uid:"))
                    .and_then(|l| l.split_whitespace().nth(2).map(str::to_string))
            })
            .and_then(|u| u.parse::<u32>().ok());
        if uid != Some(0) {
            return Err("not root: cannot create network namespaces".into());
        }
        if std::process::Command::new("ip").arg("-V").output().is_err() {
            return Err("`ip` (iproute2) not found".into());
        }
        let pid = std::process::id();
        let net = 16 + pid % 200;
        let mut v = VethCarrier {
            ns: format!("scil-veth-{pid}"),
            host_if: format!("scv{pid}h"),
            carrier_if: format!("scv{pid}c"),
            child: None,
            address: format!("10.231.{net}.2:{}:{}", 53241, 53240),
        };
        // From here on, Drop cleans up whatever was made.
        ip(&["netns", "add", &v.ns])?;
        ip(&[
            "link",
            "add",
            &v.host_if,
            "type",
            "veth",
            "peer",
            "name",
            &v.carrier_if,
            "netns",
            &v.ns,
        ])?;
        ip(&[
            "addr",
            "add",
            &format!("10.231.{net}.1/24"),
            "dev",
            &v.host_if,
        ])?;
        ip(&["link", "set", &v.host_if, "up"])?;
        ip(&[
            "-n",
            &v.ns,
            "addr",
            "add",
            &format!("10.231.{net}.2/24"),
            "dev",
            &v.carrier_if,
        ])?;
        ip(&["-n", &v.ns, "link", "set", &v.carrier_if, "up"])?;
        ip(&["-n", &v.ns, "link", "set", "lo", "up"])?;
        let child = std::process::Command::new("ip")
            .args([
                "netns",
                "exec",
                &v.ns,
                env!("CARGO_BIN_EXE_scil"),
                "carrier-sim",
            ])
            .args(["--listen", &format!("10.231.{net}.2"), "--quiet"])
            .args(["--tcp-port", "53241", "--udp-port", "53240"])
            .stdin(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("ip netns exec … scil carrier-sim: {e}"))?;
        v.child = Some(child);
        Ok(v)
    }

    /// Waits until the carrier listens (its TCP socket, read from the namespace's
    /// /proc/net/tcp: no probe connection that the carrier would take for a control centre).
    async fn listening(&mut self) -> Result<(), String> {
        let t0 = Instant::now();
        loop {
            let out = std::process::Command::new("ip")
                .args(["netns", "exec", &self.ns, "cat", "/proc/net/tcp"])
                .output()
                .map_err(|e| e.to_string())?;
            let text = String::from_utf8_lossy(&out.stdout);
            // Local port 53241 = 0xCFF9, state 0A = LISTEN.
            if text.lines().any(|l| {
                let f: Vec<&str> = l.split_whitespace().collect();
                f.len() > 3 && f[1].ends_with(":CFF9") && f[3] == "0A"
            }) {
                return Ok(());
            }
            if let Some(Ok(Some(status))) = self.child.as_mut().map(|c| c.try_wait()) {
                return Err(format!("carrier-sim exited: {status}"));
            }
            if t0.elapsed() > Duration::from_secs(20) {
                return Err("carrier-sim never listened".into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The link goes down on the carrier's side.
    fn link_down(&self) {
        ip(&["-n", &self.ns, "link", "set", &self.carrier_if, "down"]).expect("link down");
    }
}

impl Drop for VethCarrier {
    fn drop(&mut self) {
        if let Some(mut c) = self.child.take() {
            // `ip netns exec` execs the carrier: this is its process.
            let _ = c.kill();
            let _ = c.wait();
        }
        // Deleting the namespace deletes its end of the pair, and with it the host's end.
        let _ = ip(&["netns", "del", &self.ns]);
        let _ = ip(&["link", "del", &self.host_if]);
    }
}

/// A service run whose carrier sits behind a veth pair in a network namespace: the carrier's
/// link set down mid-run makes the control centre abort (MONR lost), and the run's API state
/// says `aborted` within the bound of the partition test above; the run then settles `aborted`.
/// Skips (printing why) where namespaces or veth are not permitted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn carrier_link_down_on_veth_aborts_the_run() {
    let _g = SERIAL.lock().await;
    let mut carrier = match VethCarrier::start() {
        Ok(c) => c,
        Err(why) => {
            println!("skip: {why}");
            return;
        }
    };
    carrier.listening().await.expect("the carrier listens");
    let dir = support::tempdir("veth");
    let (_server, base) = support::service::spawn(&dir, "op").await;
    let api = support::http::Api::new(base, "op");
    let (s, run) = api
        .post(
            "/runs",
            serde_json::json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh",
                "speed": 2, "start": true,
                "carriers": [{"name": "carrier-1", "address": carrier.address}]}),
        )
        .await;
    assert_eq!(s, reqwest::StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    let t0 = Instant::now();
    loop {
        let evs = api.events(&id).await;
        if evs
            .iter()
            .any(|e| e["event"]["event"] == "carrier_state" && e["event"]["state"] == "ARMED")
        {
            break;
        }
        let (_, r) = api.get(&format!("/runs/{id}")).await;
        assert_eq!(r["state"], "running", "{r}");
        assert!(t0.elapsed() < T, "carrier never ARMED: {evs:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Running over the veth link for a moment.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (_, r) = api.get(&format!("/runs/{id}")).await;
    assert_eq!(r["state"], "running", "the link works: {r}");
    let cut = Instant::now();
    carrier.link_down();
    let seen = loop {
        let (_, r) = api.get(&format!("/runs/{id}")).await;
        if r["state"] != "running" {
            break r;
        }
        assert!(
            cut.elapsed() < T,
            "still running 5 s after the link went down: {r}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    };
    let after = cut.elapsed();
    println!(
        "veth link down → API state {} after {:.0} ms ({})",
        seen["state"],
        after.as_secs_f64() * 1000.0,
        seen["error"]
    );
    assert_eq!(seen["state"], "aborted", "{seen}");
    assert!(after < Duration::from_millis(500), "{after:?}");
    let t1 = Instant::now();
    loop {
        let (_, r) = api.get(&format!("/runs/{id}")).await;
        if !r["finished_at"].is_null() {
            assert_eq!(r["state"], "aborted", "{r}");
            break;
        }
        assert!(t1.elapsed() < Duration::from_secs(30), "never settled: {r}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let abort = api.events(&id).await.into_iter().find(|e| {
        e["kind"] == "dispatch"
            && e["event"].to_string().contains("abort")
            && e["event"].to_string().contains("monr_lost")
    });
    assert!(abort.is_some(), "the control centre's abort (MONR lost)");
}
