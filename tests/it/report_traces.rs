//! `scil replay --traces` keeps the time series in the run
//! result (checked against the replayed CSV read independently), a result without them stays
//! as it was, `scil report` draws one SVG per quantity per run (or says "run with --traces"),
//! and a service run keeps its traces for `GET /reports`.

use crate::support;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{shared, tempdir};

use serde_json::{json, Value};

const QUANTITIES: [&str; 7] = [
    "vut_speed",
    "vut_lateral",
    "vut_yaw_rate",
    "vut_steering_rate",
    "ttc",
    "target_speed",
    "target_travel",
];

/// The shared 30 km/h scenario with a nominal speed and a `[validity]` table, map by path.
fn scenario(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(shared("scenarios/cpna75_30kmh.toml")).expect("scenario");
    let text = text
        .replace(
            "map = \"../opendrive/proving_ground.xodr\"",
            &format!(
                "map = \"{}\"",
                shared("opendrive/proving_ground.xodr").display()
            ),
        )
        .replace("[vut]\n", "[vut]\nspeed_kmh = 30\n")
        + "\n[validity]\n";
    let p = dir.join("cpna75_30kmh_validity.toml");
    std::fs::write(&p, text).expect("write");
    p
}

fn scil(args: &[&str]) -> std::process::Output {
    let out = Command::new(env!("CARGO_BIN_EXE_scil"))
        .args(args)
        .output()
        .expect("scil");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The CSV rows: (time, x, y, speed km/h, steering °).
fn csv_rows(p: &Path) -> Vec<[f64; 5]> {
    let text = std::fs::read_to_string(p).expect("csv");
    text.lines()
        .skip(1)
        .map(|l| {
            let c: Vec<f64> = l
                .split(',')
                .map(|c| c.trim().parse().expect("num"))
                .collect();
            [c[0], c[1], c[2], c[4], c[5]]
        })
        .collect()
}

fn figures(page: &str, run: &str) -> Vec<String> {
    QUANTITIES
        .iter()
        .filter(|q| {
            let tag = format!("<figure data-run=\"{run}\" data-quantity=\"{q}\"><svg");
            page.contains(&tag)
        })
        .map(|q| q.to_string())
        .collect()
}

#[test]
fn replay_traces_match_the_csv_and_the_report_plots_them() {
    let dir = tempdir("cli");
    let sc = scenario(&dir);
    let csv = shared("replays/cpna75_30kmh.csv");
    let (csv_s, sc_s) = (csv.display().to_string(), sc.display().to_string());
    let base = ["replay", &csv_s, "--scenario", &sc_s, "--json"];
    let with: Value =
        serde_json::from_slice(&scil(&[&base[..], &["--traces"]].concat()).stdout).expect("json");
    let without: Value = serde_json::from_slice(&scil(&base).stdout).expect("json");
    // Off: no "traces" key; on: the rest of the result is identical.
    assert!(without.get("traces").is_none());
    let mut rest = with.clone();
    let tr = rest
        .as_object_mut()
        .and_then(|o| o.remove("traces"))
        .expect("traces");
    assert_eq!(rest, without);

    // Against the CSV read here: instants, speed, TTC by the paper's formula.
    let rows = csv_rows(&csv);
    let w = &with["validity"]["window"];
    let (from, to) = (
        w["from_s"].as_f64().expect("from"),
        w["to_s"].as_f64().expect("to"),
    );
    assert_eq!(&tr["window"], w);
    let t: Vec<f64> = tr["t_s"]
        .as_array()
        .expect("t")
        .iter()
        .filter_map(Value::as_f64)
        .collect();
    let expect: Vec<&[f64; 5]> = rows
        .iter()
        .filter(|r| r[0] >= from - 1.0 - 1e-6 && r[0] <= to + 0.5 + 1e-6)
        .collect();
    assert_eq!(
        t.len(),
        expect.len(),
        "25 Hz: every sample from T0 − 1 s to end + 0.5 s"
    );
    let impact = with["impacts"][0]["time_s"].as_f64().expect("impact");
    let ttc = &tr["targets"][0]["ttc_s"];
    for (k, r) in expect.iter().enumerate() {
        assert!((t[k] - r[0]).abs() < 1e-6, "{} vs {}", t[k], r[0]);
        let v = tr["vut_speed_kmh"][k].as_f64().expect("speed");
        assert!((v - r[3]).abs() < 1e-3, "{}: {v} vs {}", r[0], r[3]);
        if r[0] < impact - 0.1 {
            let (dx, dy) = (200.0 - r[1], -5.75 - r[2]);
            let want = ((dx * dx + dy * dy - 16.0).sqrt() - 2.3) / (r[3] / 3.6);
            let got = ttc[k].as_f64().expect("ttc");
            assert!((got - want).abs() < 1e-4, "{}: ttc {got} vs {want}", r[0]);
        }
        // Lateral deviation from T0 on (the VUT drives along the lane, y ≈ −1.75).
        let lat = &tr["vut_lateral_m"][k];
        if r[0] < from - 1e-9 {
            assert!(lat.is_null(), "{}: lateral before T0", r[0]);
        } else if r[0] >= from + 0.04 {
            assert!(lat.is_f64(), "{}: lateral in the window", r[0]);
        }
        if let Some(l) = lat.as_f64() {
            assert!(l.abs() < 0.05, "{}: {l}", r[0]);
        }
    }
    // Bands and the validity checks agree.
    assert_eq!(tr["bands"]["vut_speed_kmh"]["lo"], 30.0);
    assert_eq!(tr["bands"]["vut_speed_kmh"]["hi"], 31.0);
    assert_eq!(tr["bands"]["vut_lateral_m"]["hi"], 0.05);
    assert_eq!(
        tr["targets"][0]["speed_band"]["lo"]
            .as_f64()
            .map(|x| (x * 10.0).round()),
        Some(48.0)
    );
    let travel = tr["targets"][0]["travel_m"]
        .as_array()
        .expect("travel")
        .iter()
        .filter_map(Value::as_f64)
        .fold(0.0, f64::max);
    assert!(travel > 4.0, "the dummy walks: {travel}");

    // The report: seven plots for the traced run, a note for the other, self-contained.
    let (a, b) = (dir.join("traced.json"), dir.join("plain.json"));
    std::fs::write(&a, with.to_string()).expect("write");
    std::fs::write(&b, without.to_string()).expect("write");
    let html = dir.join("series.html");
    scil(&[
        "report",
        "-o",
        &html.display().to_string(),
        &a.display().to_string(),
        &b.display().to_string(),
    ]);
    let page = std::fs::read_to_string(&html).expect("html");
    assert_eq!(figures(&page, "traced"), QUANTITIES, "one SVG per quantity");
    assert!(figures(&page, "plain").is_empty());
    assert!(page.contains("plain: this result has no traces — run with --traces"));
    for bad in ["<script", "src=", "href=", "url(", "<img", "<link"] {
        assert!(!page.contains(bad), "self-contained: {bad}");
    }
    // The summary CSV keeps its two rows; the traced run has its traces CSV.
    let summary = std::fs::read_to_string(html.with_extension("csv")).expect("csv");
    assert_eq!(summary.lines().count(), 3);
    // Each run's window, what closed it and the T0 rule: in the CSV's columns of those names (the
    // objects on the ground follow them) and the page.
    let head: Vec<&str> = summary.lines().next().expect("header").split(',').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).expect(name);
    let (from_i, closed_i, t0_i) = (col("window_from_s"), col("closed_by"), col("t0_rule"));
    assert_eq!(
        head[from_i..=t0_i],
        ["window_from_s", "window_to_s", "closed_by", "t0_rule"]
    );
    let closed = with["validity"]["closed_by"].as_str().expect("closed_by");
    for line in summary.lines().skip(1) {
        let cells: Vec<&str> = line.split(',').collect();
        assert_eq!([cells[closed_i], cells[t0_i]], [closed, "ttc"], "{line}");
        let from: f64 = cells[from_i].parse().expect("from");
        let want = with["validity"]["window"]["from_s"]
            .as_f64()
            .expect("from_s");
        assert!((from - want).abs() < 1e-3, "{line}");
    }
    assert!(
        page.contains(&format!("closed by {closed}")),
        "verdict cell names the window's end"
    );
    let tcsv = std::fs::read_to_string(dir.join("series.traced.traces.csv")).expect("traces csv");
    assert!(!dir.join("series.plain.traces.csv").exists());
    let mut lines = tcsv.lines();
    let header = lines.next().expect("header");
    assert!(header.starts_with("t_s,vut_speed_kmh,vut_lateral_m,vut_yaw_rate_dps,vut_steering_rate_dps,dummy_ttc_s,dummy_speed_kmh,dummy_travel_m"), "{header}");
    let first: f64 = lines
        .next()
        .and_then(|l| l.split(',').next())
        .and_then(|c| c.parse().ok())
        .expect("t");
    assert!((first - t[0]).abs() < 1e-9);
    assert_eq!(tcsv.lines().count(), t.len() + 1);
}

#[test]
fn service_runs_keep_traces_and_the_report_plots_them() {
    let rt = tokio::runtime::Runtime::new().expect("rt");
    rt.block_on(async {
        let dir = tempdir("serve");
        let (_server, base) = support::service::spawn(&dir, "op").await;
        let http = reqwest::Client::new();
        let toml = std::fs::read_to_string(shared("scenarios/cpna75_30kmh.toml"))
            .expect("scenario")
            .replace("map = \"../opendrive/proving_ground.xodr\"\n", "")
            .replace("[vut]\n", "[vut]\nspeed_kmh = 30\n")
            + "\n[validity]\n";
        let r = http
            .post(format!("{base}/scenarios"))
            .bearer_auth("op")
            .json(&json!({"id": "cpna75_traces", "toml": toml, "map_id": "proving_ground"}))
            .send()
            .await
            .expect("POST");
        assert!(r.status().is_success(), "{:?}", r.text().await);
        let r = http
            .post(format!("{base}/runs"))
            .bearer_auth("op")
            .json(&json!({"scenario_id": "cpna75_traces", "replay": "cpna75_30kmh", "speed": "max", "start": true}))
            .send()
            .await
            .expect("POST");
        assert_eq!(r.status().as_u16(), 201);
        let run: Value = r.json().await.expect("json");
        let id = run["id"].as_str().expect("id").to_string();
        let t0 = std::time::Instant::now();
        loop {
            let r: Value = http
                .get(format!("{base}/runs/{id}"))
                .send()
                .await
                .expect("GET")
                .json()
                .await
                .expect("json");
            if matches!(r["state"].as_str(), Some("finished" | "aborted" | "failed")) {
                assert_eq!(r["state"], "finished", "{r}");
                break;
            }
            assert!(t0.elapsed().as_secs() < 60, "{r}");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let res: Value = http
            .get(format!("{base}/runs/{id}/results"))
            .send()
            .await
            .expect("GET")
            .json()
            .await
            .expect("json");
        let tr = &res["traces"];
        let n = tr["t_s"].as_array().map_or(0, Vec::len);
        assert!(n > 100, "service results keep traces: {n}");
        assert_eq!(tr["window"], res["validity"]["window"]);
        assert_eq!(tr["targets"][0]["ttc_s"].as_array().map(Vec::len), Some(n));

        let page = http
            .get(format!("{base}/reports?runs={id}"))
            .send()
            .await
            .expect("GET")
            .text()
            .await
            .expect("html");
        assert_eq!(figures(&page, &id), QUANTITIES, "one SVG per quantity");
        assert!(!page.contains("<script"));
        let r = http
            .get(format!("{base}/reports?runs={id}&format=traces_csv"))
            .send()
            .await
            .expect("GET");
        assert_eq!(r.status().as_u16(), 200);
        let text = r.text().await.expect("csv");
        assert!(text.starts_with("t_s,vut_speed_kmh,"), "{text}");
        assert_eq!(text.lines().count(), n + 1);
        let r = http
            .get(format!("{base}/reports?runs={id},{id}&format=traces_csv"))
            .send()
            .await
            .expect("GET");
        assert_eq!(r.status().as_u16(), 422);
    });
}

/// A generated 100 Hz run (known kinematics: 30 km/h straight, CPNA-75 dummy) straight from the
/// engine into the report: seven plots, the window's edges and the band in the SVGs.
#[test]
fn generated_run_report_has_every_plot() {
    use scil::sample::Sample;
    use scil::scenario::engine::{Engine, EngineConfig, Output};
    use scil::scenario::Scenario;
    let sc = Scenario::from_toml(
        r#"name = "gen"
[vut]
width_m = 1.855
length_m = 4.6
reference_to_front_m = 2.3
speed_kmh = 30
[validity]
[[targets]]
id = "dummy"
kind = "pedestrian"
start = { x = 200.0, y = -5.75 }
heading_deg = 0.0
lateral_start_m = 4.0
accel_distance_m = 1.0
speed_kmh = 5.0
overlap = 0.75
"#,
    )
    .expect("scenario");
    let mut e = Engine::new(&sc, EngineConfig::default(), scil::twin::Twin::new(None));
    e.record_traces();
    e.arm(0.0);
    let mut events = Vec::new();
    let v = 30.0 / 3.6;
    for k in 0..1000 {
        let t = k as f64 * 0.01;
        while let Some(due) = e.poll_timeout() {
            if due > t {
                break;
            }
            e.handle_timeout(due);
        }
        e.handle_sample(&Sample {
            steering_wheel_deg: Some(0.0),
            brake_light: Some(false),
            accel_mps2: Some(0.0),
            yaw_rate_rps: Some(0.0),
            ..Sample::vut(t, 130.0 + v * t, -1.75, 0.0, v)
        });
        while let Some(o) = e.poll_output() {
            if let Output::Event(ev) = o {
                events.push(ev);
            }
        }
    }
    e.finish(9.99);
    while let Some(o) = e.poll_output() {
        if let Output::Event(ev) = o {
            events.push(ev);
        }
    }
    let mut report = scil::run::RunReport::from_events(&events);
    report.traces = e.take_traces();
    let result = serde_json::to_value(&report).expect("json");
    assert_eq!(result["validity"]["valid"], true, "{}", result["validity"]);
    // T0 at TTC 4 s: the front (x + 2.3) at 200 − 4 v; impact at 200.
    let t0 = (200.0 - 4.0 * v - 132.3) / v;
    let t_imp = (200.0 - 132.3) / v;
    let tr = &result["traces"];
    assert!((tr["window"]["from_s"].as_f64().expect("from") - t0).abs() < 1e-6);
    assert!((tr["window"]["to_s"].as_f64().expect("to") - t_imp).abs() < 1e-6);
    let n = tr["t_s"].as_array().map_or(0, Vec::len);
    assert_eq!(
        n,
        ((t_imp + 0.5).min(9.99) * 100.0).floor() as usize - (((t0 - 1.0) * 100.0).ceil() as usize)
            + 1
    );
    let page = scil::ncap_report::html(
        "generated",
        &[scil::ncap_report::RunInput {
            name: "gen".into(),
            result,
        }],
    );
    assert_eq!(figures(&page, "gen"), QUANTITIES);
    // Each figure is one SVG with the shaded band (a filled rectangle) where a band applies.
    for q in [
        "vut_speed",
        "vut_lateral",
        "vut_yaw_rate",
        "vut_steering_rate",
        "target_speed",
    ] {
        let start = page
            .find(&format!("data-quantity=\"{q}\""))
            .expect("figure");
        let fig = &page[start..start + page[start..].find("</figure>").expect("end")];
        assert_eq!(fig.matches("<svg").count(), 1, "{q}");
        assert!(
            fig.contains("<rect") && fig.contains("opacity=\"0.18\""),
            "{q}: band shaded"
        );
    }
}
