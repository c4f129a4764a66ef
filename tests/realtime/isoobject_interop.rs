//! scil against the stock RI-SE isoObject demo (`ISO_objectDemo -b circle`), the open reference
//! ISO 22133 test object. Runs when SCIL_ISOOBJECT_DEMO names the built binary
//! (`.ci/run` builds it from third_party/isoObject); otherwise prints why it skips.
//!
//! The demo listens on the fixed ISO 22133 ports (TCP 53241, UDP 53240), so everything is in
//! one test. It checks what the probe found broken: arming with readyToArm = 2, no stale abort
//! while arming, and the post-run heartbeat (the demo logs "Unexpected event 'soft stop
//! requested' in state NormalStop" for every HEAB NORMAL_STOP after it stopped).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use scil::dispatch::control_centre::{
    CarrierConfig, CarrierMode, ControlCentre, ControlCentreConfig, GeoOrigin,
};
use scil::dispatch::events::{EventKind, Phase};
use scil::dispatch::iso22133::ObjectState;
use scil::dispatch::profile::DummyProfile;
use scil::dispatch::safety::SafetyConfig;

const T: Duration = Duration::from_secs(10);

struct Demo {
    child: Child,
    log: PathBuf,
}

impl Demo {
    fn start(bin: &Path, tag: &str) -> Demo {
        let log = std::env::temp_dir().join(format!("isoobject-{tag}-{}.log", std::process::id()));
        let out = std::fs::File::create(&log).expect("log file");
        let child = Command::new(bin)
            // Its default behaviour follows the TRAJ it is given, so the motion rules (path,
            // standing, speed) hold for it as for a real object.
            .args(["-i", "127.0.0.1"])
            .stdout(Stdio::from(out.try_clone().expect("dup")))
            .stderr(Stdio::from(out))
            .spawn()
            .expect("ISO_objectDemo starts");
        std::thread::sleep(Duration::from_millis(500));
        Demo { child, log }
    }

    fn stop(mut self) -> String {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let mut s = String::new();
        if let Ok(mut f) = std::fs::File::open(&self.log) {
            let _ = f.read_to_string(&mut s);
        }
        s
    }
}

fn unexpected_events(log: &str) -> usize {
    log.lines()
        .filter(|l| l.contains("nexpected event"))
        .count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arms_runs_and_stops_the_stock_isoobject_demo() {
    let Some(bin) = std::env::var_os("SCIL_ISOOBJECT_DEMO").map(PathBuf::from) else {
        println!("skip: SCIL_ISOOBJECT_DEMO not set (.ci/run builds third_party/isoObject)");
        return;
    };
    assert!(bin.exists(), "{} missing", bin.display());

    // 1. The control centre alone: arm (readyToArm = 2), start, normal stop.
    let demo = Demo::start(&bin, "cc");
    let h = ControlCentre::spawn(ControlCentreConfig {
        origin: GeoOrigin {
            lat_deg: 57.71,
            lon_deg: 12.94,
            alt_m: 200.0,
            rotation_deg: 0.0,
        },
        carriers: vec![CarrierConfig {
            name: "iso".into(),
            object_id: 1,
            host: "127.0.0.1".into(),
            tcp_port: 53241,
            udp_port: 53240,
            mode: CarrierMode::Trajectory,
            profile: Some(DummyProfile::from_scenario(0.0, 0.0, 0.0, 0.5, 5.0)),
        }],
        safety: SafetyConfig::default(),
        ..Default::default()
    })
    .expect("valid config");
    assert!(
        h.wait_carrier_state("iso", ObjectState::Disarmed, T).await,
        "connects, DISARMED"
    );
    let readiness = h.snapshot().carriers[0].readiness;
    println!("isoObject readyToArm: {readiness:?}");
    assert!(
        h.wait_armable(T).await,
        "armable: {:?}",
        h.snapshot().carriers[0]
    );
    h.arm(T).await.expect("the demo arms");
    assert_eq!(h.snapshot().phase, Phase::Armed);
    // Armed, no VUT sample yet: no stale-telemetry abort.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        h.snapshot().phase,
        Phase::Armed,
        "{:?}",
        h.snapshot().events
    );
    h.start_at(tokio::time::Instant::now() + Duration::from_millis(50));
    let h2 = h.clone();
    let feed = tokio::spawn(async move {
        loop {
            h2.telemetry();
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    });
    assert!(
        h.wait_carrier_state("iso", ObjectState::Running, T).await,
        "RUNNING"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    h.finish();
    assert!(
        h.wait_carrier_state("iso", ObjectState::Postrun, T).await,
        "NormalStop: {:?}",
        h.snapshot().events
    );
    tokio::time::sleep(Duration::from_millis(1000)).await; // 100 heartbeats
    feed.abort();
    let events = h.snapshot().events;
    assert!(
        !events
            .iter()
            .any(|e| matches!(e.kind, EventKind::Abort { .. })),
        "{events:?}"
    );
    h.shutdown().await;
    let log = demo.stop();
    let n = unexpected_events(&log);
    println!("control centre: {n} 'unexpected event' lines from the demo after a normal stop");
    assert!(
        n <= 2,
        "heartbeat keeps sending NORMAL_STOP: {n} unexpected events\n{log}"
    );

    // 2. A real-time replay through the command line, dispatching the demo as the carrier.
    let demo = Demo::start(&bin, "replay");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("shared");
    let out = Command::new(env!("CARGO_BIN_EXE_scil"))
        .arg("replay")
        .arg(root.join("replays/cpna75_30kmh.csv"))
        .arg("--scenario")
        .arg(root.join("scenarios/cpna75_30kmh.toml"))
        .args([
            "--speed",
            "4",
            "--carrier",
            "carrier-1=127.0.0.1:53241",
            "--json",
        ])
        .output()
        .expect("scil replay");
    let log = demo.stop();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "replay against the demo failed: {stderr}\n{log}"
    );
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).expect("JSON result");
    assert_eq!(v["triggers"][0]["target"], "dummy", "{v}");
    let n = unexpected_events(&log);
    println!("replay: {n} 'unexpected event' lines from the demo");
    assert!(n <= 2, "{n} unexpected events\n{log}");
}
