//! A newcomer's first day against the service: the bundled run is judged, a recording with an
//! unusual header uploads with a column mapping given in the form, the same file twice is one
//! replay, `fits` means the replay reaches the conflict, the run's exports download, and every
//! error names the file or id and what to do.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

use crate::support::http::Api;
use crate::support::{data, service, tempdir};

const OP: &str = "firstday-operator";

async fn upload(
    api: &Api,
    name: &str,
    bytes: Vec<u8>,
    fields: &[(&str, &str)],
) -> (StatusCode, Value) {
    let mut form = reqwest::multipart::Form::new();
    for (k, v) in fields {
        form = form.text(k.to_string(), v.to_string());
    }
    form = form.part(
        "file",
        reqwest::multipart::Part::bytes(bytes).file_name(name.to_string()),
    );
    let r = api
        .http
        .post(api.url("/replays"))
        .bearer_auth(OP)
        .multipart(form)
        .send()
        .await
        .expect("upload");
    let s = r.status();
    (s, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_first_day_with_the_service() {
    let dir = tempdir("firstday");
    let (_server, base) = service::spawn(&dir, OP).await;
    let api = Api::new(base, OP);

    // The bundled run is judged: a verdict with its checks and values; impact speed and speed
    // reduction against the scenario's test speed.
    let (s, run) = api
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "replay": "cpna75_30kmh", "speed": "max"}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    api.post_empty(&format!("/runs/{id}/arm")).await;
    api.post_empty(&format!("/runs/{id}/start")).await;
    api.wait_terminal(&id, Duration::from_secs(60)).await;
    let (s, res) = api.get(&format!("/runs/{id}/results")).await;
    assert_eq!(s, StatusCode::OK, "{res}");
    let v = &res["validity"];
    assert!(v["valid"].is_boolean(), "no verdict: {v}");
    let checks = v["checks"].as_array().expect("checks");
    assert!(checks.len() >= 6, "{v}");
    assert!(checks.iter().all(|c| c["worst"].is_number()), "{v}");
    let imp = &res["impacts"][0];
    let (speed, reduction) = (
        imp["impact_speed_kmh"].as_f64().expect("impact speed"),
        imp["speed_reduction_kmh"]
            .as_f64()
            .expect("speed reduction"),
    );
    assert!((30.0 - speed - reduction).abs() < 1e-9, "{imp}");
    // The report says the verdict; nothing is coloured out of tolerance on a band not judged.
    let html = api
        .http
        .get(api.url(&format!("/reports?runs={id}")))
        .send()
        .await
        .expect("report")
        .text()
        .await
        .expect("html");
    assert!(html.contains("VALID"), "no verdict in the report");
    assert!(
        html.contains("not judged"),
        "travel reference not marked as not judged"
    );

    // Each export of the run downloads.
    for path in [
        "telemetry.parquet",
        "events.parquet",
        "export.mcap",
        "export.mf4",
        "export.xosc",
        "record.json",
    ] {
        let r = api
            .http
            .get(api.url(&format!("/runs/{id}/{path}")))
            .send()
            .await
            .expect("export");
        assert_eq!(r.status(), StatusCode::OK, "{path}");
        let disp = r
            .headers()
            .get("content-disposition")
            .and_then(|h| h.to_str().ok())
            .unwrap_or("")
            .to_string();
        assert!(disp.starts_with("attachment"), "{path}: {disp}");
        let body = r.bytes().await.expect("body");
        if path == "export.xosc" {
            let text = String::from_utf8_lossy(&body);
            assert!(
                text.contains("<OpenSCENARIO") && text.contains("proving_ground.xodr"),
                "{text:.300}"
            );
        }
    }

    // A CSV with a speed header the service does not know: the message lists the names it
    // takes and says how to map it in the form; with the mapping it uploads and runs.
    let csv = std::fs::read_to_string(data("replays/cpna75_30kmh.csv"))
        .expect("csv")
        .replacen("Velocity", "VelocityKmh", 1);
    let base_fields = [("scenario_id", "cpna75_30kmh"), ("speed", "max")];
    let (s, e) = upload(&api, "odd.csv", csv.clone().into_bytes(), &base_fields).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    let why = e["detail"].as_str().unwrap_or_default();
    assert!(
        why.contains("odd.csv")
            && why.contains("speed (a column named Velocity, Speed")
            && why.contains("column=FIELD=NAME"),
        "{why}"
    );
    let mapped = [
        ("scenario_id", "cpna75_30kmh"),
        ("speed", "max"),
        ("column", "speed=VelocityKmh:kmh"),
    ];
    let (s, up) = upload(&api, "odd.csv", csv.clone().into_bytes(), &mapped).await;
    assert_eq!(s, StatusCode::CREATED, "{up}");
    assert_eq!(up["replay_kind"], "csv");
    let first = up["replay_id"].as_str().expect("replay").to_string();
    let run = api
        .wait_terminal(up["id"].as_str().expect("run"), Duration::from_secs(60))
        .await;
    assert_eq!(run["state"], "finished", "{run}");
    let (_, res) = api
        .get(&format!(
            "/runs/{}/results",
            up["id"].as_str().unwrap_or("")
        ))
        .await;
    assert_eq!(res["triggers"].as_array().map(Vec::len), Some(1), "{res}");
    // The same file with the same mapping again: the stored replay, not a copy.
    let (s, again) = upload(&api, "odd-again.csv", csv.into_bytes(), &mapped).await;
    assert_eq!(s, StatusCode::CREATED, "{again}");
    assert_eq!(again["replay_id"], first.as_str(), "{again}");
    assert_eq!(again["duplicate_of"]["id"], first.as_str(), "{again}");
    let (_, list) = api.get("/replays").await;
    let rows = list.as_array().expect("list");
    let mine: Vec<&Value> = rows
        .iter()
        .filter(|r| r["sha256"].is_string() && !r["bundled"].as_bool().unwrap_or(true))
        .collect();
    assert_eq!(mine.len(), 1, "{list}");
    assert_eq!(
        mine[0]["columns"],
        json!(["speed=VelocityKmh:kmh"]),
        "{list}"
    );

    // A raw GeneSys ADMAnet recording (as `scil feed --adma --save` writes it) uploads as a
    // replay of its own kind and runs.
    let adma = dir.join("drive.adma");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_scil"))
        .args([
            "feed",
            data("replays/cpna75_30kmh_wgs84.csv")
                .to_str()
                .unwrap_or(""),
        ])
        .args([
            "--adma",
            "127.0.0.1:9",
            "--save",
            adma.to_str().unwrap_or(""),
            "--speed",
            "0",
        ])
        .output()
        .expect("scil feed");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&adma).expect("adma");
    let (s, up) = upload(
        &api,
        "drive.adma",
        bytes,
        &[("scenario_id", "cpna75_30kmh"), ("speed", "max")],
    )
    .await;
    assert_eq!(s, StatusCode::CREATED, "{up}");
    assert_eq!(up["replay_kind"], "adma", "{up}");
    let run = api
        .wait_terminal(up["id"].as_str().unwrap_or(""), Duration::from_secs(60))
        .await;
    assert_eq!(run["state"], "finished", "{run}");
    let (_, res) = api
        .get(&format!(
            "/runs/{}/results",
            up["id"].as_str().unwrap_or("")
        ))
        .await;
    assert_eq!(res["triggers"].as_array().map(Vec::len), Some(1), "{res}");

    // Files of the wrong kind name the file and what it is.
    let mut mdf = b"MDF     4.10    ".to_vec();
    mdf.resize(256, 0);
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(mdf).file_name("cpna75.mf4"),
    );
    let r = api
        .http
        .post(api.url("/maps"))
        .bearer_auth(OP)
        .multipart(form)
        .send()
        .await
        .expect("map upload");
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    let e: Value = r.json().await.unwrap_or(Value::Null);
    let why = e["detail"].as_str().unwrap_or_default();
    assert!(
        why.starts_with("cpna75.mf4 is an ASAM MDF4 file") && why.contains("upload it as a replay"),
        "{why}"
    );
    let xodr = std::fs::read(data("opendrive/proving_ground.xodr")).expect("xodr");
    let (s, e) = upload(&api, "pg.xodr", xodr, &base_fields).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    let why = e["detail"].as_str().unwrap_or_default();
    assert!(
        why.starts_with("pg.xodr is an OpenDRIVE map: upload it as a map"),
        "{why}"
    );

    // An unknown id lists the known ones.
    let (s, e) = api
        .post(
            "/runs",
            json!({"scenario_id": "cpna75", "replay": "cpna75_30kmh"}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    let why = e["detail"].as_str().unwrap_or_default();
    assert!(
        why.contains("scenario 'cpna75' does not exist; known scenarios: ")
            && why.contains("cpna75_30kmh")
            && why.contains("GET /api/v1/scenarios"),
        "{why}"
    );

    // `fits` means it triggers: the CPNA drives and the lap (it drives the scenario's lane
    // through the conflict point) fit the 30 km/h scenario; the survey drive, which starts past
    // the conflict, does not, and says why.
    let (s, list) = api.get("/replays?scenario=cpna75_30kmh").await;
    assert_eq!(s, StatusCode::OK, "{list}");
    let row = |id: &str| {
        list.as_array()
            .and_then(|l| l.iter().find(|r| r["id"] == id).cloned())
            .unwrap_or_else(|| panic!("no replay {id}: {list}"))
    };
    for id in [
        "cpna75_10kmh",
        "cpna75_30kmh",
        "cpna75_50kmh",
        "cpna75_30kmh_wgs84",
        "lap_50kmh",
    ] {
        assert_eq!(row(id)["fits"], true, "{id}: {}", row(id));
    }
    let survey = row("survey_drive_wgs84");
    assert_eq!(survey["fits"], false, "{survey}");
    let why = survey["misfit"].as_str().unwrap_or_default().to_string();
    assert!(why.contains("survey_drive_wgs84"), "{why}");
    // What fits triggers; what does not is refused with the same reason.
    let (s, lap) = api
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "replay": "lap_50kmh", "speed": "max", "start": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{lap}");
    let lap_id = lap["id"].as_str().unwrap_or_default().to_string();
    api.wait_terminal(&lap_id, Duration::from_secs(60)).await;
    let (_, res) = api.get(&format!("/runs/{lap_id}/results")).await;
    assert_eq!(res["triggers"].as_array().map(Vec::len), Some(1), "{res}");
    let (s, e) = api
        .post(
            "/runs",
            json!({"scenario_id": "cpna75_30kmh", "replay": "survey_drive_wgs84"}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{e}");
    assert_eq!(e["detail"].as_str(), Some(why.as_str()), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The command line says what it wants where the service takes an id, and what `verify` reads.
#[test]
fn the_command_line_says_what_it_wants() {
    let scil = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_scil"))
            .args(args)
            .output()
            .expect("scil runs");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let csv = data("replays/cpna75_30kmh.csv");
    let (ok, err) = scil(&[
        "replay",
        csv.to_str().unwrap_or(""),
        "--scenario",
        "cpna75_30kmh",
    ]);
    assert!(!ok);
    assert!(
        err.contains("not an id as the service does")
            && err.contains("scenarios/cpna75_30kmh.toml"),
        "{err}"
    );
    let dir = tempdir("firstday-cli");
    let mf4 = dir.join("run.mf4");
    let mut bytes = b"MDF     4.10    ".to_vec();
    bytes.resize(512, 0xff);
    std::fs::write(&mf4, bytes).expect("write");
    let (ok, err) = scil(&["verify", mf4.to_str().unwrap_or("")]);
    assert!(!ok);
    assert!(
        err.contains("run.mf4 is an ASAM MDF4 file")
            && err.contains("scil verify reads a run record"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
