//! A run at a placed site: the bundled 30 km/h CPNA-75 run, once as the recorded replay in the
//! proving-ground map's metres, once live at a site elsewhere on the globe — the map placed
//! there by the service (`origin`, `heading`), the scenario turned with it
//! (`scil scenario place`), and the same drive fed as an INS would send it at that site: a
//! WGS84 recording (positions taken through the placed map's geoReference by pyproj, true
//! headings by pyproj's geodesics) sent by `scil feed` as OxTS NCOM over UDP. Both give the
//! same triggers and impacts.

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::{self, data, free_udp_port, python};
use support::http::Api;

const OP: &str = "site-run-operator";
/// The site: a layout's (0, 0) and the compass heading of its +x axis.
const LAT: f64 = 51.4816;
const LON: f64 = -1.3108;
const ALT: f64 = 112.5;
const HEADING: f64 = 33.5;

fn scil(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_scil"))
        .args(args)
        .output()
        .expect("run scil");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn p(path: &Path) -> &str {
    path.to_str().expect("utf-8 path")
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or(f64::NAN)
}

/// The recorded drive (map metres of the unplaced map) at the site: each position turned with
/// the layout and taken to WGS84 through `proj4`, each heading turned and made true (the
/// azimuth of a step along it), speed in m/s: an OxTS NcomToCsv-style export.
fn wgs84_drive(proj4: &str, csv: &Path, out: &Path) -> Option<usize> {
    let script = r#"
import csv, math, sys
from pyproj import Geod, Transformer
proj4, hdg, alt, src, dst = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
to_wgs = Transformer.from_crs(proj4, "EPSG:4326", always_xy=True)
g = Geod(ellps="WGS84")
r = math.radians(90.0 - hdg)
rows = list(csv.DictReader(open(src)))
with open(dst, "w") as f:
    f.write(" Time(), Latitude(deg), Longitude(deg), Altitude(m), Heading(deg), Speed horizontal(m/s)\n")
    for row in rows:
        x, y = float(row["PosX"]), float(row["PosY"])
        px, py = x * math.cos(r) - y * math.sin(r), x * math.sin(r) + y * math.cos(r)
        grid = math.radians(float(row["Heading"]) + hdg - 90.0)
        lon, lat = to_wgs.transform(px, py)
        lon2, lat2 = to_wgs.transform(px + math.sin(grid), py + math.cos(grid))
        az = g.inv(lon, lat, lon2, lat2)[0] % 360.0
        v = float(row["Velocity"]) / 3.6
        f.write(f"{row['Time']},{lat:.10f},{lon:.10f},{alt},{az:.7f},{v:.6f}\n")
print(len(rows))
"#;
    python::run(
        "pyproj",
        script,
        &[
            proj4,
            &HEADING.to_string(),
            &ALT.to_string(),
            p(csv),
            p(out),
        ],
    )
    .map(|s| s.trim().parse().expect("row count"))
}

/// `POST /maps` of `file` as `id`, placed at the site.
async fn upload_placed(c: &Api, file: &Path, id: &str) -> (StatusCode, Value) {
    let form = reqwest::multipart::Form::new()
        .text("id", id.to_string())
        .text("origin", format!("{LAT},{LON},{ALT}"))
        .text("heading", HEADING.to_string())
        .part(
            "file",
            reqwest::multipart::Part::bytes(std::fs::read(file).expect("read map"))
                .file_name("proving_ground.xodr"),
        );
    let r = c
        .http
        .post(c.url("/maps"))
        .bearer_auth(OP)
        .multipart(form)
        .send()
        .await
        .expect("upload");
    let s = r.status();
    (s, r.json().await.expect("json"))
}

async fn results(c: &Api, id: &str) -> Value {
    let (s, r) = c.get(&format!("/runs/{id}/results")).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    r
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn placed_site_live_ncom_triggers_like_map_metres() {
    let dir = support::tempdir("site-run");
    let (server, base) = support::service::spawn(&dir, OP).await;
    let c = Api::new(base, OP);
    let map = data("opendrive/proving_ground.xodr");
    let scenario = data("scenarios/cpna75_30kmh.toml");

    // The service places the layout at the site; it shows the site and the new frame.
    let (s, m) = upload_placed(&c, &map, "pg_site").await;
    assert_eq!(s, StatusCode::CREATED, "{m}");
    assert_eq!(m["site"]["lat"], json!(LAT), "{m}");
    assert_eq!(m["site"]["heading"], json!(HEADING), "{m}");
    let (s, m) = c.get("/maps/pg_site").await;
    assert_eq!(s, StatusCode::OK, "{m}");
    assert_eq!(
        (f(&m["site"]["lon"]), f(&m["site"]["alt"])),
        (LON, ALT),
        "{m}"
    );
    let proj4 = m["geo_reference"]
        .as_str()
        .expect("geoReference")
        .to_string();
    assert!(proj4.contains(&format!("+lat_0={LAT}")), "{proj4}");

    // `scil map place` writes the same map; `scil scenario place` turns the scenario with it
    // (the heading from the site the map records).
    let placed = dir.join("pg_site.xodr");
    let origin = format!("{LAT},{LON},{ALT}");
    let (code, _, err) = scil(&[
        "map",
        "place",
        p(&map),
        "--origin",
        &origin,
        "--heading",
        &HEADING.to_string(),
        "-o",
        p(&placed),
    ]);
    assert_eq!(code, 0, "{err}");
    let site_toml = dir.join("cpna75_site.toml");
    let (code, _, err) = scil(&[
        "scenario",
        "place",
        p(&scenario),
        "--map",
        p(&placed),
        "-o",
        p(&site_toml),
    ]);
    assert_eq!(code, 0, "{err}");
    let toml = std::fs::read_to_string(&site_toml).expect("read placed scenario");
    assert!(toml.contains("map = \"pg_site.xodr\""), "{toml}");
    // The dummy's start (200, -5.75) turned with the layout, its walk (north) turned too.
    let placed_sc = scil::scenario::Scenario::from_toml(&toml).expect("placed scenario");
    let r = (90.0 - HEADING).to_radians();
    let t = &placed_sc.targets[0];
    let (ex, ey) = (
        200.0 * r.cos() + 5.75 * r.sin(),
        200.0 * r.sin() - 5.75 * r.cos(),
    );
    assert!(
        (t.start.x - ex).hypot(t.start.y - ey) < 1e-9,
        "{:?}",
        t.start
    );
    assert!((t.heading_deg - (HEADING - 90.0).rem_euclid(360.0)).abs() < 1e-9);
    let (s, sc) = c
        .post(
            "/scenarios",
            json!({"id": "cpna75_site", "toml": toml, "map_id": "pg_site"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{sc}");

    // The drive at the site, as the INS there records it.
    let wgs84 = dir.join("cpna75_site_wgs84.csv");
    let Some(rows) = wgs84_drive(&proj4, &data("replays/cpna75_30kmh.csv"), &wgs84) else {
        server.task.abort();
        return;
    };
    assert!(rows > 600, "{rows} rows");

    // In map metres: the recorded replay on the unplaced map.
    let (s, run) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh", "speed": "max", "start": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    let ref_id = run["id"].as_str().expect("id").to_string();
    let done = c.wait_terminal(&ref_id, Duration::from_secs(60)).await;
    assert_eq!(done["state"], "finished", "{done}");
    let reference = results(&c, &ref_id).await;

    // At the site: a live NCOM source, fed by `scil feed` at the recording's own 25 Hz (the
    // samples the replay sees), twice as fast as recorded.
    let bind = format!("127.0.0.1:{}", free_udp_port());
    let (s, run) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_site", "source": {"kind": "ncom", "bind": bind}, "start": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    assert_eq!(run["source"]["kind"], "ncom");
    let id = run["id"].as_str().expect("id").to_string();
    let mut feed = Command::new(env!("CARGO_BIN_EXE_scil"))
        .args([
            "feed",
            p(&wgs84),
            "--ncom",
            &bind,
            "--rate",
            "25",
            "--speed",
            "2",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("scil feed");
    // The run is finished once the impact is in, while the car still streams (the recording
    // goes on for 5 s of its time after the impact; without samples the run would be aborted
    // as stale).
    let t0 = Instant::now();
    loop {
        let events = c.events(&id).await;
        if events
            .iter()
            .any(|e| e["kind"] == "impact" || e["event"]["event"] == "impact")
        {
            break;
        }
        if let Ok(Some(status)) = feed.try_wait() {
            panic!("scil feed ended ({status}) before the live run's impact: {events:?}");
        }
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "no impact: {events:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let (s, r) = c.post(&format!("/runs/{id}/finish"), json!({})).await;
    assert_eq!(s, StatusCode::ACCEPTED, "{r}");
    let done = c.wait_terminal(&id, Duration::from_secs(30)).await;
    assert_eq!(done["state"], "finished", "{done}");
    let fed = tokio::task::spawn_blocking(move || feed.wait_with_output())
        .await
        .expect("join")
        .expect("scil feed");
    assert!(
        fed.status.success(),
        "{}",
        String::from_utf8_lossy(&fed.stderr)
    );
    let live = results(&c, &id).await;
    server.task.abort();

    // Same triggers and impacts, within 1 ms. NCOM carries velocities to 1e-4 m/s (1e-5 of the
    // speed: 50 µs of a 3.9 s TTC) and angles to 1e-6 rad, and the positions went through two
    // projections (sub-millimetre): together some 10 µs. A dummy or a road turned wrongly by as
    // little as a centimetre moves the instants by more than a millisecond at 8.4 m/s.
    println!(
        "map metres: triggers {} impacts {}\nsite, live NCOM: triggers {} impacts {}",
        reference["triggers"], reference["impacts"], live["triggers"], live["impacts"]
    );
    let (rt, lt) = (
        reference["triggers"].as_array().expect("triggers"),
        live["triggers"].as_array().expect("triggers"),
    );
    assert!(!rt.is_empty(), "the replay triggers: {reference}");
    assert_eq!(rt.len(), lt.len(), "{rt:?} vs {lt:?}");
    let mut worst: f64 = 0.0;
    for (a, b) in rt.iter().zip(lt) {
        assert_eq!(a["target"], b["target"]);
        for k in ["fired_at_s", "time_s"] {
            let d = (f(&a[k]) - f(&b[k])).abs();
            worst = worst.max(d);
            assert!(
                d <= 0.001,
                "{k}: replay {} vs site {} ({:.3} ms)",
                a[k],
                b[k],
                d * 1e3
            );
        }
        let dttc = (f(&a["ttc_s"]) - f(&b["ttc_s"])).abs();
        assert!(dttc <= 0.001, "TTC {} vs {}", a["ttc_s"], b["ttc_s"]);
    }
    let (ri, li) = (
        reference["impacts"].as_array().expect("impacts"),
        live["impacts"].as_array().expect("impacts"),
    );
    assert!(!ri.is_empty(), "the replay hits: {reference}");
    assert_eq!(ri.len(), li.len(), "{ri:?} vs {li:?}");
    for (a, b) in ri.iter().zip(li) {
        let d = (f(&a["time_s"]) - f(&b["time_s"])).abs();
        worst = worst.max(d);
        assert!(d <= 0.001, "impact {a} vs {b}");
        // Where it hits: the dummy was turned with the map.
        let dov = (f(&a["overlap"]) - f(&b["overlap"])).abs();
        assert!(dov <= 0.005, "overlap {a} vs {b}");
        // Where along its walk the dummy was hit.
        let dtr = (f(&a["dummy_travel_m"]) - f(&b["dummy_travel_m"])).abs();
        assert!(dtr <= 0.01, "dummy travel {a} vs {b}");
    }
    println!(
        "worst trigger/impact instant difference {:.3} ms",
        worst * 1e3
    );
}
