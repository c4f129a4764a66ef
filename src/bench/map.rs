//! Map load and map matching figures (prints; not a test): per OpenDRIVE file, the time to read
//! it, parse it into the model, and build the road table and spatial index (median of several
//! loads), then the cost of one `locate` (spatial-index query) on points along every lane's
//! centre line, of a warm-started `locate_hinted` along those lines as a moving vehicle calls
//! it, and — the baseline in the same run — of a brute-force search over every road.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use opendrive::{MatchHint, OpenDrive};

/// Figures for one file.
pub struct MapFigures {
    pub file: PathBuf,
    pub bytes: usize,
    pub roads: usize,
    pub loads: usize,
    pub read: Duration,
    pub parse: Duration,
    pub index: Duration,
    /// Whole `OpenDrive::from_path` (read + parse + index), median.
    pub total: Duration,
    pub points: usize,
    pub hits: usize,
    pub locate_ns: f64,
    pub hinted_ns: f64,
    pub brute_ns: f64,
    pub brute_points: usize,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v.get(v.len() / 2).copied().unwrap_or_default()
}

/// Every lane's centre line as points every `step` metres, one polyline per (road, lane).
fn lane_lines(od: &OpenDrive, step: f64) -> Vec<Vec<(f64, f64)>> {
    let mut out = Vec::new();
    for r in &od.roads {
        let mut ids: Vec<i32> = r
            .lane_sections
            .iter()
            .flat_map(|s| s.left.iter().chain(s.right.iter()).map(|l| l.id))
            .collect();
        ids.sort_unstable();
        ids.dedup();
        for id in ids {
            let line = od.lane_center_polyline(&r.id, id, step);
            if line.len() >= 2 {
                out.push(line);
            }
        }
    }
    out
}

/// Measures one file; `min_loads` loads at least, more while they take under half a second.
pub fn measure(path: &Path, min_loads: usize) -> anyhow::Result<MapFigures> {
    let t = Instant::now();
    let bytes = std::fs::read(path)?;
    let read = t.elapsed();
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (mut parse, mut index, mut total) = (Vec::new(), Vec::new(), Vec::new());
    let started = Instant::now();
    let mut od = None;
    while parse.len() < min_loads.max(1)
        || (started.elapsed() < Duration::from_millis(500) && parse.len() < 50)
    {
        let (m, times) = OpenDrive::from_str_timed(&text)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        parse.push(times.parse);
        index.push(times.index);
        let t = Instant::now();
        let whole =
            OpenDrive::from_path(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        total.push(t.elapsed());
        drop(whole);
        od = Some(m);
    }
    let od = od.ok_or_else(|| anyhow::anyhow!("no load"))?;

    // Query points: lane centre lines every 1 m (at most ~20 000 points, evenly thinned).
    let lines = lane_lines(&od, 1.0);
    let all: usize = lines.iter().map(Vec::len).sum();
    let stride = all.div_ceil(20_000).max(1);
    let mut headed: Vec<Vec<(f64, f64, f64)>> = Vec::new();
    for l in &lines {
        let pts: Vec<(f64, f64, f64)> = l
            .windows(2)
            .step_by(stride)
            .map(|w| (w[0].0, w[0].1, (w[1].1 - w[0].1).atan2(w[1].0 - w[0].0)))
            .collect();
        if !pts.is_empty() {
            headed.push(pts);
        }
    }
    let points: usize = headed.iter().map(Vec::len).sum();

    let t = Instant::now();
    let mut hits = 0usize;
    for p in headed.iter().flatten() {
        hits += usize::from(std::hint::black_box(od.locate(p.0, p.1, Some(p.2))).is_some());
    }
    let locate_ns = t.elapsed().as_secs_f64() * 1e9 / points.max(1) as f64;

    let t = Instant::now();
    for line in &headed {
        let mut hint = MatchHint::default();
        for p in line {
            std::hint::black_box(od.locate_hinted(p.0, p.1, Some(p.2), &mut hint));
        }
    }
    let hinted_ns = t.elapsed().as_secs_f64() * 1e9 / points.max(1) as f64;

    // Brute force on a subset (it is slow on large maps).
    let every = points.div_ceil(1000).max(1);
    let subset: Vec<&(f64, f64, f64)> = headed.iter().flatten().step_by(every).collect();
    let t = Instant::now();
    for p in &subset {
        std::hint::black_box(od.locate_brute_force(p.0, p.1, Some(p.2)));
    }
    let brute_ns = t.elapsed().as_secs_f64() * 1e9 / subset.len().max(1) as f64;

    Ok(MapFigures {
        file: path.to_path_buf(),
        bytes: bytes.len(),
        roads: od.roads.len(),
        loads: parse.len(),
        read,
        parse: median(parse),
        index: median(index),
        total: median(total),
        points,
        hits,
        locate_ns,
        hinted_ns,
        brute_ns,
        brute_points: subset.len(),
    })
}

pub use opendrive::xodr_files;

impl std::fmt::Display for MapFigures {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        writeln!(
            f,
            "{} ({:.0} kB, {} roads; median of {} loads)",
            self.file.display(),
            self.bytes as f64 / 1024.0,
            self.roads,
            self.loads
        )?;
        writeln!(
            f,
            "  load: read {:.2} ms, parse {:.2} ms, index {:.2} ms; whole from_path {:.2} ms",
            ms(self.read),
            ms(self.parse),
            ms(self.index),
            ms(self.total)
        )?;
        writeln!(
            f,
            "  locate on {} lane-centre points ({} matched): index {:.0} ns, warm-started {:.0} ns, \
             brute force {:.0} ns ({} points)",
            self.points, self.hits, self.locate_ns, self.hinted_ns, self.brute_ns, self.brute_points
        )?;
        writeln!(
            f,
            "  ratio brute force / index locate: {:.1}",
            self.brute_ns / self.locate_ns
        )
    }
}
