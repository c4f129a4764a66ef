//! An OpenSCENARIO file uploaded to the service (`POST /scenarios` with `xosc`): read against
//! the bundled Euro NCAP catalogs and road networks, stored as a scenario on the junction map,
//! and run on the simulated VUT like any other scenario; bad files are refused with the element
//! and line that the reader names.

use std::time::Duration;

use reqwest::StatusCode;
use serde_json::{json, Value};

const OP: &str = "test-operator-token";

use crate::support;
use support::http::Api;

fn xosc(rel: &str) -> String {
    std::fs::read_to_string(support::data(&format!("osc-ncap/OpenSCENARIO/NCAP/{rel}")))
        .expect("bundled OpenSCENARIO file")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uploaded_xosc_runs_on_the_junction_map() {
    let (_server, base) = support::service::spawn(&support::tempdir("serve-xosc"), OP).await;
    let c = Api::new(base, OP);

    // The bundled road networks are maps of the service.
    let (s, maps) = c.get("/maps").await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        maps.as_array()
            .is_some_and(|m| m.iter().any(|m| m["id"] == "X-Intersection_NCAP")),
        "{maps}"
    );

    let text = xosc("AEB_VRU_2023/NCAP_AEB_VRU_CPTA_2023.xosc");
    let (s, v) = c
        .post(
            "/scenarios",
            json!({"id": "cpta-15", "xosc": text, "file_name": "NCAP_AEB_VRU_CPTA_2023.xosc",
                   "parameters": {"Ego_speed_kph": "15"}}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    assert_eq!(v["map_id"], "X-Intersection_NCAP", "{v}");
    let (s, sc) = c.get("/scenarios/cpta-15").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(sc["scenario"]["vut"]["speed_kmh"], 15.0, "{sc}");
    assert!(
        sc["scenario"]["vut"]["path"].is_object(),
        "a planned VUT path: {sc}"
    );
    let toml = sc["toml"].as_str().expect("toml");
    assert!(
        toml.contains("Ego_speed_kph = 15"),
        "parameters kept: {toml}"
    );

    // Its plan before any run: the VUT's turn, the pedestrian's path and conflict point.
    let (s, p) = c.get("/scenarios/cpta-15/plan").await;
    assert_eq!(s, StatusCode::OK, "{p}");
    assert_eq!(p["map_id"], "X-Intersection_NCAP", "{p}");
    let vut_path = p["plan"]["vut_path"].as_array().expect("vut path");
    assert!(vut_path.len() > 10, "{p}");
    let turn = |pts: &[Value]| {
        let h = |a: &Value, b: &Value| {
            let (ax, ay, bx, by) = (
                a[0].as_f64().unwrap(),
                a[1].as_f64().unwrap(),
                b[0].as_f64().unwrap(),
                b[1].as_f64().unwrap(),
            );
            (by - ay).atan2(bx - ax)
        };
        let n = pts.len();
        let d = h(&pts[n - 2], &pts[n - 1]) - h(&pts[0], &pts[1]);
        d.sin().atan2(d.cos()).abs()
    };
    assert!(turn(vut_path) > 1.0, "the VUT turns: {p}");
    let t = &p["plan"]["targets"][0];
    assert!(t["path"].as_array().is_some_and(|a| a.len() >= 2), "{t}");
    let cp = t["conflict_point"].as_array().expect("conflict point");
    // The conflict point lies on the VUT's path.
    let (cx, cy) = (cp[0].as_f64().unwrap(), cp[1].as_f64().unwrap());
    let near = vut_path
        .iter()
        .map(|q| (q[0].as_f64().unwrap() - cx).hypot(q[1].as_f64().unwrap() - cy))
        .fold(f64::INFINITY, f64::min);
    assert!(near < 3.0, "conflict point {near} m from the VUT path");
    let (s, _) = c.get("/scenarios/no-such/plan").await;
    assert_eq!(s, StatusCode::NOT_FOUND);

    // It runs like any scenario: the simulated VUT drives its turn and meets the pedestrian
    // at the file's synchronisation point.
    let (s, run) = c
        .post(
            "/runs",
            json!({"scenario_id": "cpta-15", "source": {"kind": "sim_vut", "vut_speed_kmh": 15},
                   "speed": "max", "start": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    let done = c.wait_terminal(&id, Duration::from_secs(120)).await;
    assert_eq!(done["state"], "finished", "{done}");
    let (s, r) = c.get(&format!("/runs/{id}/results")).await;
    assert_eq!(s, StatusCode::OK, "{r}");
    let hit: Vec<&Value> = r["impacts"]
        .as_array()
        .expect("impacts")
        .iter()
        .filter(|i| i["time_s"].is_number())
        .collect();
    assert!(
        !hit.is_empty(),
        "the drive-through VUT hits the pedestrian: {r}"
    );
    for i in hit {
        if let Some(e) = i["arrival_error_s"].as_f64() {
            assert!(e.abs() <= 0.1, "arrival error {e}: {i}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_xosc_upload_names_what_is_wrong() {
    let (_server, base) = support::service::spawn(&support::tempdir("serve-xosc-bad"), OP).await;
    let c = Api::new(base, OP);
    let text = xosc("AEB_VRU_2023/NCAP_AEB_VRU_CPTA_2023.xosc");

    // An element scil cannot honour: named with its line.
    let bad = text.replacen("<Storyboard>", "<Storyboard>\n<UnheardOfAction/>", 1);
    let line = bad
        .lines()
        .position(|l| l.contains("UnheardOfAction"))
        .expect("inserted")
        + 1;
    let (s, v) = c
        .post(
            "/scenarios",
            json!({"id": "bad", "xosc": bad, "file_name": "bad.xosc"}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let detail = v["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("UnheardOfAction"), "{detail}");
    assert!(detail.contains(&line.to_string()), "line {line}: {detail}");
    assert!(
        !detail.contains("scil-xosc-"),
        "no temporary paths: {detail}"
    );

    // A violated parameter constraint names the parameter.
    let (s, v) = c
        .post(
            "/scenarios",
            json!({"id": "bad2", "xosc": text, "parameters": {"Ego_initTTC": "-5"}}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("Ego_initTTC"),
        "{v}"
    );

    // A variation file is refused with what to do instead.
    let var = support::shared("osc-ncap/OpenSCENARIO/NCAP/AEB_VRU_2023/Variations/NCAP_AEB_VRU_CPTAfs-50_Variation_2023.xosc");
    if let Ok(text) = std::fs::read_to_string(&var) {
        let (s, v) = c
            .post("/scenarios", json!({"id": "var", "xosc": text}))
            .await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
        assert!(
            v["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("variation"),
            "{v}"
        );
    }

    // Exactly one of toml and xosc.
    let (s, v) = c
        .post(
            "/scenarios",
            json!({"id": "both", "xosc": "x", "toml": "y"}),
        )
        .await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
}

/// A multipart upload of an OpenSCENARIO file with the uploader's own catalog and road network:
/// they are read first (by the relative paths the file names), the rest of the catalogs are
/// the bundled ones, the road network becomes a map; a missing catalog is a 422 naming its
/// path.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_multipart_upload_reads_the_uploaders_catalogs_and_road_network() {
    let (_server, base) = support::service::spawn(&support::tempdir("serve-xosc-multi"), OP).await;
    let c = Api::new(base, OP);
    let text = xosc("AEB_C2C_2023/NCAP_AEB_C2C_CCR_2023.xosc")
        .replacen(
            r#"<Directory path="../Catalogs/Vehicles" />"#,
            r#"<Directory path="../MyCatalogs/Vehicles" />"#,
            1,
        )
        .replacen(
            "../../../OpenDRIVE/NCAP/StraightRoad_NCAP_noRoadmarks.xodr",
            "../../../OpenDRIVE/Mine/MyStraightRoad.xodr",
            1,
        );
    // The uploader's VUT is wider than the bundled one.
    let vehicles = xosc("Catalogs/Vehicles/Vehicles.xosc").replacen(
        r#"<Dimensions height="1.577" length="4.358" width="1.815" />"#,
        r#"<Dimensions height="1.577" length="4.358" width="1.9" />"#,
        1,
    );
    assert!(vehicles.contains(r#"width="1.9""#));
    let xodr = std::fs::read(support::data(
        "osc-ncap/OpenDRIVE/NCAP/StraightRoad_NCAP_noRoadmarks.xodr",
    ))
    .expect("bundled road network");
    let form = |with_catalog: bool, id: &str| {
        let mut f = reqwest::multipart::Form::new()
            .text("id", id.to_string())
            .text("parameters", r#"{"Ego_speed_kph": "40"}"#)
            .part(
                "xosc",
                reqwest::multipart::Part::text(text.clone()).file_name("CCR.xosc"),
            )
            .part(
                "file",
                reqwest::multipart::Part::bytes(xodr.clone())
                    .file_name("../../../OpenDRIVE/Mine/MyStraightRoad.xodr"),
            );
        if with_catalog {
            f = f.part(
                "file",
                reqwest::multipart::Part::text(vehicles.clone())
                    .file_name("../MyCatalogs/Vehicles/Vehicles.xosc"),
            );
        }
        f
    };
    let post = |f: reqwest::multipart::Form| {
        let url = c.url("/scenarios");
        async move {
            let r = reqwest::Client::new()
                .post(url)
                .bearer_auth(OP)
                .multipart(f)
                .send()
                .await
                .expect("request");
            let s = r.status();
            (s, r.json::<Value>().await.unwrap_or(Value::Null))
        }
    };

    let (s, v) = post(form(true, "ccr-mine")).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    assert_eq!(v["map_id"], "MyStraightRoad", "{v}");
    let (s, sc) = c.get("/scenarios/ccr-mine").await;
    assert_eq!(s, StatusCode::OK);
    assert_eq!(
        sc["scenario"]["vut"]["width_m"], 1.9,
        "the uploader's catalog: {sc}"
    );
    assert_eq!(sc["scenario"]["vut"]["speed_kmh"], 40.0, "{sc}");
    let (s, maps) = c.get("/maps").await;
    assert_eq!(s, StatusCode::OK);
    assert!(
        maps.as_array()
            .is_some_and(|m| m.iter().any(|m| m["id"] == "MyStraightRoad")),
        "{maps}"
    );
    // The same network again is the same map; it runs like any scenario.
    let (s, v) = post(form(true, "ccr-mine-2")).await;
    assert_eq!(s, StatusCode::CREATED, "{v}");
    let (s, run) = c
        .post(
            "/runs",
            json!({"scenario_id": "ccr-mine", "source": {"kind": "sim_vut", "vut_speed_kmh": 40},
                   "speed": "max", "start": true}),
        )
        .await;
    assert_eq!(s, StatusCode::CREATED, "{run}");
    let id = run["id"].as_str().expect("id").to_string();
    let done = c.wait_terminal(&id, Duration::from_secs(120)).await;
    assert_eq!(done["state"], "finished", "{done}");

    // Without the catalog the file names, and no bundled one at that path: 422 naming it.
    let (s, v) = post(form(false, "ccr-missing")).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    let detail = v["detail"].as_str().unwrap_or_default();
    assert!(detail.contains("../MyCatalogs/Vehicles"), "{detail}");
    assert!(
        !detail.contains("scil-xosc-"),
        "no temporary paths: {detail}"
    );

    // A part above the library, and a missing scenario file, are refused.
    let f = reqwest::multipart::Form::new()
        .part(
            "xosc",
            reqwest::multipart::Part::text(text.clone()).file_name("CCR.xosc"),
        )
        .part(
            "file",
            reqwest::multipart::Part::text("x").file_name("../../../../etc/passwd"),
        );
    let (s, v) = post(f).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["detail"]
            .as_str()
            .unwrap_or_default()
            .contains("../../../../etc/passwd"),
        "{v}"
    );
    let f = reqwest::multipart::Form::new().text("id", "none");
    let (s, v) = post(f).await;
    assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
    assert!(
        v["detail"].as_str().unwrap_or_default().contains("xosc"),
        "{v}"
    );
}
