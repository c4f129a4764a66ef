//! `scil catalogue [--json]`, `scil catalogue instantiate` writing scenario
//! files that `scil replay` runs, and the service's `GET /api/v1/catalogue` plus a run with
//! `"sync": true` whose results carry the validity verdict.

use crate::support;
use std::path::{Path, PathBuf};
use std::process::Command;
use support::{shared, tempdir};

use serde_json::{json, Value};

fn scil(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_scil"))
        .args(args)
        .output()
        .expect("scil runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ids_all() -> Vec<String> {
    scil::scenario::ncap2026::Catalogue::bundled()
        .row
        .iter()
        .map(|r| r.id.clone())
        .collect()
}

#[test]
fn catalogue_json_and_table() {
    let (code, out, err) = scil(&["catalogue", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(out.trim()).expect("one JSON array");
    let ids: Vec<&str> = v
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|e| e["id"].as_str())
        .collect();
    assert_eq!(ids, ids_all());
    let tool_rows: usize = v
        .as_array()
        .expect("array")
        .iter()
        .map(|e| e["rows"].as_array().map_or(0, Vec::len))
        .sum();
    assert_eq!(tool_rows, 43);
    for e in v.as_array().expect("array") {
        assert!(
            !e["vut_speeds_kmh"].as_array().expect("speeds").is_empty(),
            "{e}"
        );
    }
    let ccrb = v
        .as_array()
        .expect("array")
        .iter()
        .find(|e| e["id"] == "CCRb")
        .expect("CCRb");
    assert_eq!(ccrb["headway_s"], json!(1.0));
    let (code, out, _) = scil(&["catalogue"]);
    assert_eq!(code, 0);
    for id in ids_all() {
        assert!(out.contains(&id), "{id} in {out}");
    }
    assert!(out.contains("43 rating-tool rows"), "{out}");
}

fn instantiate(dir: &Path, args: &[&str]) -> PathBuf {
    let map = shared("opendrive/proving_ground.xodr");
    let out = dir.join(format!("{}.toml", args[0].to_lowercase()));
    let mut a = vec!["catalogue", "instantiate"];
    a.extend_from_slice(args);
    let (m, o) = (map.display().to_string(), out.display().to_string());
    a.extend_from_slice(&["--map", &m, "-o", &o]);
    let (code, _, err) = scil(&a);
    assert_eq!(code, 0, "{args:?}: {err}");
    out
}

#[test]
fn instantiated_scenarios_replay() {
    let dir = tempdir("cli");
    // CPNA-75 at 30 km/h where the shared run crosses: the same geometry as the shared
    // scenario, with sync and validity on.
    let sc = instantiate(
        &dir,
        &[
            "CPNA-75",
            "--vut-speed",
            "30",
            "--impact-x",
            "200",
            "--lane",
            "-1",
        ],
    );
    let text = std::fs::read_to_string(&sc).expect("written");
    assert!(
        text.contains("catalogue_id = \"CPNA\"") && text.contains("sync = true"),
        "{text}"
    );
    let csv = shared("replays/cpna75_30kmh.csv");
    let (code, out, err) = scil(&[
        "replay",
        csv.to_str().expect("utf8"),
        "--scenario",
        sc.to_str().expect("utf8"),
        "--json",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(out.trim()).expect("json");
    let i = &v["impacts"][0];
    let travel = i["dummy_travel_m"].as_f64().expect("impact");
    assert!((travel - 4.46375).abs() <= 0.02, "{travel}");
    assert!((i["impact_speed_kmh"].as_f64().expect("speed") - 30.0).abs() < 1.0);
    assert_eq!(
        v["validity"]["checks"].as_array().map(Vec::len),
        Some(6),
        "{v}"
    );

    // A rear and a longitudinal entry load and replay (the shared VUT drives through).
    for args in [
        vec![
            "CCRs",
            "--vut-speed",
            "30",
            "--impact-x",
            "225",
            "--lane",
            "-1",
        ],
        vec![
            "CPLA-50",
            "--vut-speed",
            "30",
            "--impact-x",
            "190",
            "--lane",
            "-1",
        ],
    ] {
        let sc = instantiate(&dir, &args);
        let (code, out, err) = scil(&[
            "replay",
            csv.to_str().expect("utf8"),
            "--scenario",
            sc.to_str().expect("utf8"),
            "--json",
        ]);
        assert_eq!(code, 0, "{args:?}: {err}");
        let v: Value = serde_json::from_str(out.trim()).expect("json");
        assert!(v["impacts"][0]["time_s"].is_f64(), "{args:?}: {v}");
        assert!(
            v["impacts"][0]["relative_speed_kmh"].is_f64(),
            "{args:?}: {v}"
        );
    }

    // Out of range and unknown ids are clear errors.
    let map = shared("opendrive/proving_ground.xodr");
    let m = map.to_str().expect("utf8");
    let (code, _, err) = scil(&[
        "catalogue",
        "instantiate",
        "CPNA-75",
        "--vut-speed",
        "95",
        "--map",
        m,
        "--impact-x",
        "200",
        "--lane",
        "-1",
        "-o",
        "/dev/null",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("95") && err.contains("outside"), "{err}");
    let (code, _, err) = scil(&[
        "catalogue",
        "instantiate",
        "XYZ",
        "--vut-speed",
        "30",
        "--map",
        m,
        "--impact-x",
        "200",
        "--lane",
        "-1",
    ]);
    assert_ne!(code, 0);
    assert!(err.contains("XYZ") && err.contains("CCFtap"), "{err}");
}

#[test]
fn service_catalogue_and_sync_run() {
    let rt = tokio::runtime::Runtime::new().expect("rt");
    rt.block_on(async {
        let dir = tempdir("serve");
        let (_server, base) = support::service::spawn(&dir, "op").await;
        let http = reqwest::Client::new();
        let get = |p: String| {
            let http = http.clone();
            async move {
                let r = http.get(p).send().await.expect("GET");
                (r.status().as_u16(), r.json::<Value>().await.unwrap_or(Value::Null))
            }
        };
        let (s, v) = get(format!("{base}/catalogue")).await;
        assert_eq!(s, 200);
        let ids: Vec<&str> = v.as_array().expect("array").iter().filter_map(|e| e["id"].as_str()).collect();
        assert_eq!(ids, ids_all());
        let (s, v) = get(format!("{base}/catalogue/cpna-75")).await;
        assert_eq!((s, v["id"].as_str()), (200, Some("CPNA")));
        let (s, v) = get(format!("{base}/catalogue/CPTAns")).await;
        assert_eq!((s, v["id"].as_str()), (200, Some("CPTAfs & CPTAns")));
        let (s, v) = get(format!("{base}/catalogue/nope")).await;
        assert_eq!(s, 404);
        assert!(v["error"].is_string());
        let (_, doc) = get(format!("{base}/openapi.json")).await;
        assert!(doc["paths"]["/catalogue"]["get"].is_object(), "{}", doc["paths"]);

        // A run of the shared scenario with a validity table and "sync": true.
        let toml = std::fs::read_to_string(shared("scenarios/cpna75_30kmh.toml"))
            .expect("scenario")
            .replace("map = \"../opendrive/proving_ground.xodr\"\n", "")
            .replace("[vut]\n", "[vut]\nspeed_kmh = 30\n")
            + "\n[validity]\n";
        let r = http
            .post(format!("{base}/scenarios"))
            .bearer_auth("op")
            .json(&json!({"id": "cpna75_sync", "toml": toml, "map_id": "proving_ground"}))
            .send()
            .await
            .expect("POST");
        assert!(r.status().is_success(), "{:?}", r.text().await);
        let r = http
            .post(format!("{base}/runs"))
            .bearer_auth("op")
            .json(&json!({"scenario_id": "cpna75_sync", "replay": "cpna75_30kmh", "speed": "max", "sync": true, "start": true}))
            .send()
            .await
            .expect("POST");
        assert_eq!(r.status().as_u16(), 201);
        let run: Value = r.json().await.expect("json");
        let id = run["id"].as_str().expect("id").to_string();
        let t0 = std::time::Instant::now();
        loop {
            let (_, r) = get(format!("{base}/runs/{id}")).await;
            if matches!(r["state"].as_str(), Some("finished" | "aborted" | "failed")) {
                assert_eq!(r["state"], "finished", "{r}");
                break;
            }
            assert!(t0.elapsed().as_secs() < 60, "{r}");
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        let (s, res) = get(format!("{base}/runs/{id}/results")).await;
        assert_eq!(s, 200);
        let travel = res["impacts"][0]["dummy_travel_m"].as_f64().expect("impact");
        assert!((travel - 4.46375).abs() <= 0.02, "synced service run: {travel}");
        assert_eq!(res["validity"]["checks"].as_array().map(Vec::len), Some(6), "{res}");

        // The series report of that run: HTML with the verdicts and plots, CSV with its row.
        let r = http.get(format!("{base}/reports?runs={id}")).send().await.expect("GET");
        assert_eq!(r.status().as_u16(), 200);
        assert!(r.headers()[reqwest::header::CONTENT_TYPE].to_str().unwrap_or("").starts_with("text/html"));
        let page = r.text().await.expect("html");
        assert!(page.contains("<svg") && page.contains("vut_steering_rate") && page.contains(&id), "{page}");
        let r = http.get(format!("{base}/reports?runs={id}&format=csv")).send().await.expect("GET");
        let text = r.text().await.expect("csv");
        let row = text.lines().nth(1).expect("one row");
        assert!(row.starts_with(&format!("\"{id}\",")), "{row}");
        let (s, v) = get(format!("{base}/reports?runs=nope")).await;
        assert_eq!(s, 404, "{v}");
        let (s, _) = get(format!("{base}/reports?runs=")).await;
        assert_eq!(s, 422);
    });
}

/// Splits one CSV line of `catalogue_grid::csv` (quoted fields may hold commas).
fn csv_fields(line: &str) -> Vec<String> {
    let (mut out, mut cur, mut quoted) = (Vec::new(), String::new(), false);
    for ch in line.chars() {
        match ch {
            '"' => quoted = !quoted,
            ',' if !quoted => out.push(std::mem::take(&mut cur)),
            c => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// A scenario instantiated from the catalogue is the one its file reads back as: written as
/// TOML and loaded again, every grid cell's scenario is unchanged (instantiate checks it with
/// the loader's own checks, without the round trip). A debug build takes every seventh cell.
#[test]
fn instantiated_scenarios_read_back_unchanged() {
    use scil::sweep::catalogue_grid as g;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cat = scil::scenario::ncap2026::Catalogue::bundled();
    let load = |p: &str| scil::map::Map::load(&root.join(p)).expect(p);
    let straight = load("data/opendrive/proving_ground.xodr");
    let junction = load("data/osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr");
    let step = if cfg!(debug_assertions) { 7 } else { 1 };
    let mut checked = 0;
    for c in g::cells(&cat).iter().step_by(step) {
        let row = &cat.row[c.row];
        let map = if row.family.needs_junction() {
            &junction
        } else {
            &straight
        };
        let Ok(sc) = row.instantiate(&c.params, &map.road_network) else {
            continue;
        };
        let text = toml::to_string(&sc).expect("TOML");
        let back = scil::scenario::Scenario::from_toml(&text).expect("loads");
        assert_eq!(back, sc, "{}", sc.name);
        checked += 1;
    }
    assert!(checked > 2237 / step - 10, "{checked} scenarios");
}

/// The path geometry gives the results the stored run gave (`tools/golden-paths.sh`,
/// `tests/golden/paths/grid.csv`): same cells, impacts and verdicts, locations within 1 mm
/// across a 2 m body, speeds within 1 mm/s, arrival errors within 1 µs (plus the CSV's 1e-6
/// rounding). A debug build runs every fifth cell; a release build (`cargo test --release`)
/// runs the whole grid.
#[test]
fn grid_matches_the_stored_run() {
    use scil::sweep::catalogue_grid as g;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let golden = std::fs::read_to_string(root.join("tests/golden/paths/grid.csv"))
        .expect("tests/golden/paths/grid.csv");
    let golden: Vec<&str> = golden.lines().skip(1).collect();
    let cat = scil::scenario::ncap2026::Catalogue::bundled();
    let load = |p: &str| std::sync::Arc::new(scil::map::Map::load(&root.join(p)).expect(p));
    let straight = load("data/opendrive/proving_ground.xodr");
    let junction = load("data/osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr");
    let cells = g::cells(&cat);
    assert_eq!(
        cells.len(),
        golden.len(),
        "the grid has the stored run's cells"
    );
    let step = if cfg!(debug_assertions) { 5 } else { 1 };
    let picked: Vec<usize> = (0..cells.len()).step_by(step).collect();
    let subset: Vec<g::Cell> = picked.iter().map(|&k| cells[k].clone()).collect();
    let maps = g::Maps {
        straight: Some(straight),
        junction: Some(junction),
    };
    let out = g::run(&cat, &subset, &maps, None, 2, &|_| {});
    let csv = g::csv(&out.results);
    let mut worst = [0.0f64; 4];
    for (line, &k) in csv.lines().skip(1).zip(&picked) {
        let (new, old) = (csv_fields(line), csv_fields(golden[k]));
        assert_eq!(new.len(), old.len(), "cell {k}: {line}");
        // row … impacted, valid and error exactly.
        for c in (0..10).chain(14..16) {
            assert_eq!(
                new[c], old[c],
                "cell {k} column {c}:\nnew {line}\nold {}",
                golden[k]
            );
        }
        // location (fraction of a ≤ 2 m width), impact and relative speed (km/h), arrival
        // error (s).
        for (i, (c, tol)) in [(10, 0.001 / 2.0), (11, 0.0036), (12, 0.0036), (13, 1e-6)]
            .into_iter()
            .enumerate()
        {
            match (new[c].parse::<f64>(), old[c].parse::<f64>()) {
                (Ok(a), Ok(b)) => {
                    let d = (a - b).abs();
                    worst[i] = worst[i].max(d);
                    assert!(
                        d <= tol + 1.01e-6,
                        "cell {k} column {c}: {a} vs {b}:\nnew {line}\nold {}",
                        golden[k]
                    );
                }
                _ => assert_eq!(new[c], old[c], "cell {k} column {c}"),
            }
        }
    }
    println!(
        "{} cells compared; largest differences: location {:.2e}, impact speed {:.2e} km/h, relative speed {:.2e} km/h, arrival error {:.2e} s",
        picked.len(),
        worst[0],
        worst[1],
        worst[2],
        worst[3]
    );
}

/// The workbook rehearsal writes the values the stored run wrote
/// (`tests/golden/paths/rehearsed.xlsx`, `tools/golden-paths.sh`): speeds (km/h) within
/// 1 mm/s, TTCs within 1 µs, distances within 1 mm (plus the 1e-6 rounding of written values),
/// everything else exactly.
#[test]
fn rehearsal_matches_the_stored_run() {
    use scil::ncap::xlsx::{Cell, Workbook};
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/paths");
    let dir = tempdir("rehearse-golden");
    let out = dir.join("rehearsed.xlsx");
    let input = root.join("ca_preprocessed_template.xlsx");
    let (code, text, err) = scil(&[
        "ncap",
        "rehearse",
        input.to_str().expect("path"),
        "--out",
        out.to_str().expect("path"),
        "--quiet",
    ]);
    assert_eq!(code, 0, "{text}\n{err}");
    let (new, old) = (
        Workbook::open(&out).expect("new workbook"),
        Workbook::open(&root.join("rehearsed.xlsx")).expect("stored workbook"),
    );
    let mut compared = 0;
    for sheet in old.sheet_names.iter().filter(|s| s.ends_with("verif.")) {
        let (a, b) = (
            new.grid(sheet).expect("sheet"),
            old.grid(sheet).expect("sheet"),
        );
        assert_eq!(a.rows.len(), b.rows.len(), "{sheet}");
        for (r, (ra, rb)) in a.rows.iter().zip(&b.rows).enumerate() {
            // The row's quantity (its `Expected value`) sets the tolerance.
            let quantity = rb.iter().find_map(|c| match c {
                Cell::Text(t) if t.starts_with("v_") => Some(0.0036),
                Cell::Text(t) if t.eq_ignore_ascii_case("ttc") || t == "fcw_ttc" => Some(1e-6),
                Cell::Text(t) if t.starts_with("dtle") => Some(1e-3),
                _ => None,
            });
            let tol = quantity.map_or(1e-9, |t| t + 1.01e-6);
            for c in 0..ra.len().max(rb.len()) {
                match (a.get(r, c), b.get(r, c)) {
                    (Cell::Number(x), Cell::Number(y)) => {
                        compared += 1;
                        assert!(
                            (x - y).abs() <= tol,
                            "{sheet} row {} column {c}: {x} vs {y}",
                            r + 1
                        );
                    }
                    (x, y) => assert_eq!(x, y, "{sheet} row {} column {c}", r + 1),
                }
            }
        }
    }
    assert!(compared > 200, "{compared} numbers compared");
}

/// The file `instantiate` writes fits on a screen (at most 120 lines) for every row, reads
/// back as the scenario it was written from, and a turning VUT's path in it is the protocol's
/// segments: the straight in, clothoid, arc, clothoid and the straight out; a lane-changing
/// target's path is segments too. A debug build takes each row's first cell and every seventh.
#[test]
fn instantiated_files_are_short() {
    use scil::cli::catalogue::{compacted, scenario_file};
    use scil::scenario::ncap2026::Family;
    use scil::scenario::PathSpec;
    use scil::sweep::catalogue_grid as g;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cat = scil::scenario::ncap2026::Catalogue::bundled();
    let load = |p: &str| scil::map::Map::load(&root.join(p)).expect(p);
    let straight = load("data/opendrive/proving_ground.xodr");
    let junction = load("data/osc-ncap/OpenDRIVE/NCAP/X-Intersection_NCAP.xodr");
    let step = if cfg!(debug_assertions) { 7 } else { 1 };
    // Row id → (cells written, most lines).
    let mut rows: std::collections::BTreeMap<String, (usize, usize)> = Default::default();
    for (k, c) in g::cells(&cat).iter().enumerate() {
        let row = &cat.row[c.row];
        if k % step != 0 && rows.contains_key(&row.id) {
            continue;
        }
        let map = if row.family.needs_junction() {
            &junction
        } else {
            &straight
        };
        let Ok(sc) = row.instantiate(&c.params, &map.road_network) else {
            continue;
        };
        let want = compacted(sc.clone());
        let text = scenario_file(sc, "a test").expect("scenario file");
        let lines = text.lines().count();
        let back = scil::scenario::Scenario::from_toml(&text).expect("reads back");
        assert_eq!(back, want, "{}", want.name);
        if matches!(row.family, Family::TurnAcross | Family::SfsTurnAcross) {
            let Some(PathSpec::Segments(p)) = &back.vut.path else {
                panic!("{}: the VUT's path is not segments\n{text}", want.name)
            };
            let kinds: Vec<&str> = p
                .segments
                .iter()
                .map(|s| match (s.line, s.arc, s.clothoid) {
                    (Some(_), _, _) => "line",
                    (_, Some(_), _) => "arc",
                    (_, _, Some(_)) => "clothoid",
                    _ => "none",
                })
                .collect();
            // A start from standstill stands past the straight in: its path starts there.
            let full = ["line", "clothoid", "arc", "clothoid", "line"];
            assert!(
                full.ends_with(&kinds) && kinds.len() >= 3,
                "{}: {kinds:?}",
                want.name
            );
            assert!(text.contains("segments = [\n    {"), "{text}");
        }
        if row.family == Family::HeadOnLaneChange {
            let Some(PathSpec::Segments(p)) = &back.targets[0].path else {
                panic!("{}: the lane change is not segments\n{text}", want.name)
            };
            assert_eq!(p.segments.len(), 8, "{}: {:?}", want.name, p.segments);
        }
        let e = rows.entry(row.id.clone()).or_default();
        *e = (e.0 + 1, e.1.max(lines));
    }
    assert_eq!(rows.len(), cat.row.len(), "every row written: {rows:?}");
    for (id, (n, most)) in &rows {
        println!("{id}: {n} files, at most {most} lines");
    }
    let long: Vec<_> = rows.iter().filter(|(_, (_, most))| *most > 120).collect();
    assert!(long.is_empty(), "rows with files over 120 lines: {long:?}");
}
