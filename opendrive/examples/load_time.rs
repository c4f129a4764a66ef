//! Load-time probe, the counterpart of libOpenDRIVE's `load_time` program (which times the
//! `OpenDriveMap` constructor: file read + XML parse + model build, no spatial index).
//! Prints medians of N loads: whole `from_path` (read + parse + index; the map's drop is not
//! timed, as libOpenDRIVE's program does not time its destructor), and the parse and index
//! parts. Run: `cargo run --release -p opendrive --example load_time -- map.xodr [N]`.
use std::time::Instant;

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: load_time <map.xodr> [N]");
        std::process::exit(2);
    };
    let n: usize = args
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(13)
        .max(1);
    let (mut whole, mut parse, mut index) = (Vec::new(), Vec::new(), Vec::new());
    let mut roads = 0;
    for _ in 0..n {
        let t = Instant::now();
        let loaded = opendrive::OpenDrive::from_path(&path);
        // Timed like libOpenDRIVE's program: up to the loaded map, not its destruction.
        whole.push(t.elapsed().as_secs_f64() * 1e3);
        match loaded {
            Ok(m) => roads = m.roads.len(),
            Err(e) => {
                eprintln!("error: {e}");
                std::process::exit(1);
            }
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        if let Ok((_, lt)) = opendrive::OpenDrive::from_str_timed(&text) {
            parse.push(lt.parse.as_secs_f64() * 1e3);
            index.push(lt.index.as_secs_f64() * 1e3);
        }
    }
    println!(
        "{path}: {roads} roads, from_path median {:.2} ms (parse {:.2} ms, index {:.2} ms; {n} loads)",
        median(&mut whole),
        median(&mut parse),
        median(&mut index)
    );
}
