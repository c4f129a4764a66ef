//! Co-simulation end to end on loopback: scil's BeamNG and YaCoP adapters against this
//! crate's own peers (the simulated VUT on the other side of the wire), lock-step, full speed.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::net::{TcpListener, TcpStream, UdpSocket};

use scil::run::cosim::beamng::{BeamngOptions, OutputMap};
use scil::run::cosim::session::{run_beamng, run_yacop, YacopEnd};
use scil::run::RunSetup;
use scil::scenario::engine::EngineConfig;
use scil::sim::{run_sim, SimOptions};

fn setup() -> Option<Arc<RunSetup>> {
    let p = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/scenarios/cpna75_30kmh.toml"
    ));
    if !p.exists() {
        eprintln!("skipping: {} not found", p.display());
        return None;
    }
    Some(Arc::new(
        RunSetup::load(p, None, EngineConfig::default()).expect("setup"),
    ))
}

fn aeb_opts() -> SimOptions {
    SimOptions {
        vut_speed_kmh: 40.0,
        aeb: Some("ttc=1.2,decel=8,delay_ms=150".parse().expect("aeb")),
        ..SimOptions::default()
    }
}

#[test]
fn beamng_coupling_lock_step_closes_the_loop() {
    let Some(setup) = setup() else { return };
    let opts = aeb_opts();
    let rt = scil::run::runtime().expect("runtime");
    let (report, lat, st) = rt.block_on(async {
        let scil_sock = UdpSocket::bind("127.0.0.1:0").await.expect("bind");
        let peer_sock = UdpSocket::bind("127.0.0.1:0").await.expect("bind");
        let scil_addr = scil_sock.local_addr().expect("addr");
        let bopts = BeamngOptions {
            send: peer_sock.local_addr().expect("addr"),
            step_s: opts.step_ms / 1000.0,
            idle_end: Duration::from_millis(300),
            outputs: OutputMap::default(),
            vut_id: setup.vut_id().to_string(),
        };
        let scil_side = tokio::spawn(run_beamng(
            setup.clone(),
            scil_sock,
            bopts,
            Default::default(),
            Vec::new(),
            std::future::pending(),
        ));
        // A malformed datagram first: counted, never fatal.
        peer_sock
            .send_to(&[1u8; 13], scil_addr)
            .await
            .expect("send");
        let st = scil::sim::peers::beamng_peer(
            &setup,
            &opts,
            peer_sock,
            scil_addr,
            Duration::from_secs(2),
        )
        .await;
        let (report, lat) = scil_side.await.expect("join");
        (report, lat, st)
    });
    let c = report.cosim.clone().expect("cosim block");
    println!(
        "BeamNG lock-step: {} steps in {:.3} s = {:.0} messages/s; round trip p50 {:.0} µs p99 {:.0} µs; scil {}; late {}",
        st.steps,
        st.elapsed_s,
        st.steps_per_s,
        st.rtt_p50_us.unwrap_or(f64::NAN),
        st.rtt_p99_us.unwrap_or(f64::NAN),
        lat.summary(),
        c.late
    );
    assert!(report.error.is_none(), "{:?}", report.error);
    assert_eq!(st.timeouts, 0, "every step answered in time");
    assert_eq!(st.answered, st.steps);
    assert_eq!(c.malformed, 1);
    assert_eq!(c.received, st.steps + 1);
    assert_eq!(c.steps, st.steps);
    assert_eq!(report.samples, st.steps);
    assert!(st.target_active_seen && st.aeb_braked, "{st:?}");
    let tr = report.triggers.first().expect("trigger");
    assert!((tr.ttc_s - tr.threshold_s).abs() < 0.01, "{tr:?}");
    let imp = report.impacts.first().expect("impact record");
    let short = imp.stopped_short_m.expect("stopped short");
    assert!(imp.time_s.is_none() && short > 0.5, "{imp:?}");
    // The same loop in-process: the wire changes nothing that matters.
    let direct = run_sim(setup, &opts);
    let dt = direct.triggers.first().expect("trigger");
    assert!(
        (dt.time_s - tr.time_s).abs() < 1e-6,
        "{} vs {}",
        dt.time_s,
        tr.time_s
    );
    let ds = direct.impacts[0].stopped_short_m.expect("stopped short");
    assert!((ds - short).abs() < 0.05, "{ds} vs {short}");
}

#[test]
fn yacop_lock_step_with_live_parameters_and_junk() {
    let Some(setup) = setup() else { return };
    let opts = aeb_opts();
    let rt = scil::run::runtime().expect("runtime");
    let (report, st) = rt.block_on(async {
        let l = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = l.local_addr().expect("addr");
        let scil_side = tokio::spawn(run_yacop(
            setup.clone(),
            YacopEnd::Listen(l),
            Default::default(),
            Vec::new(),
            std::future::pending(),
        ));
        let mut s = TcpStream::connect(addr).await.expect("connect");
        s.write_all(b"#,car.colour,3\ngarbage\n#,vut.x,abc\n#,param.nope,1\n")
            .await
            .expect("write");
        let params = vec![
            (10, "ttc_offset_s".to_string(), 0.5),
            (20, "noise.pos".to_string(), 0.0),
        ];
        let st = scil::sim::peers::yacop_peer(&setup, &opts, s, &params, Duration::from_secs(2)).await;
        let (report, lat) = scil_side.await.expect("join").expect("yacop");
        println!(
            "YaCoP lock-step: {} steps in {:.3} s = {:.0} steps/s; round trip p50 {:.0} µs p99 {:.0} µs; scil {}",
            st.steps,
            st.elapsed_s,
            st.steps_per_s,
            st.rtt_p50_us.unwrap_or(f64::NAN),
            st.rtt_p99_us.unwrap_or(f64::NAN),
            lat.summary()
        );
        (report, st)
    });
    assert!(report.error.is_none(), "{:?}", report.error);
    let c = report.cosim.clone().expect("cosim");
    assert_eq!(st.timeouts, 0);
    assert_eq!(c.steps, st.steps);
    assert_eq!((c.unknown, c.malformed), (2, 2), "{c:?}");
    let tr = report.triggers.first().expect("trigger");
    assert!(
        (tr.threshold_s - (3.9339 + 0.5)).abs() < 1e-3,
        "offset applied: {tr:?}"
    );
    assert_eq!(report.parameter_changes.len(), 2);
    assert_eq!(report.parameter_changes[0].name, "ttc_offset_s");
    assert_eq!(report.parameter_changes[0].after_sample_s, Some(0.09));
    assert!(st.aeb_braked, "{st:?}");
}
