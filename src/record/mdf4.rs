//! A stored run as ASAM MDF 4.10 for CANape and asammdf users: one channel group per vehicle
//! (master `t` in seconds, the map-frame pose, speed and the CAN-derived fields as 64-bit
//! floats, NaN where a row has no value) and one `events` group (time and event kind).
//! Uncompressed DT blocks; the file is built in memory (a run's export is bounded by
//! [`crate::serve::exports::MAX_ROWS`]).

use crate::store::{EventRow, TelemetryRow};

/// Bytes of an event kind in the `events` group (UTF-8, NUL-padded).
const KIND_BYTES: usize = 32;

struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    /// Appends a block (8-byte aligned) and returns its offset.
    fn block(&mut self, id: &[u8; 2], links: &[u64], data: &[u8]) -> u64 {
        while !self.buf.len().is_multiple_of(8) {
            self.buf.push(0);
        }
        let at = self.buf.len() as u64;
        let len = 24 + 8 * links.len() + data.len();
        self.buf.extend_from_slice(b"##");
        self.buf.extend_from_slice(id);
        self.buf.extend_from_slice(&[0; 4]);
        self.buf.extend_from_slice(&(len as u64).to_le_bytes());
        self.buf
            .extend_from_slice(&(links.len() as u64).to_le_bytes());
        for l in links {
            self.buf.extend_from_slice(&l.to_le_bytes());
        }
        self.buf.extend_from_slice(data);
        at
    }

    fn text(&mut self, id: &[u8; 2], s: &str) -> u64 {
        let mut d = s.as_bytes().to_vec();
        d.push(0);
        while !d.len().is_multiple_of(8) {
            d.push(0);
        }
        self.block(id, &[], &d)
    }

    /// A CN block: (name, unit, data type, byte offset, bits, master).
    #[allow(clippy::too_many_arguments)]
    fn channel(
        &mut self,
        next: u64,
        name: &str,
        unit: &str,
        data_type: u8,
        byte_offset: u32,
        bits: u32,
        master: bool,
    ) -> u64 {
        let tx = self.text(b"TX", name);
        let unit = if unit.is_empty() {
            0
        } else {
            self.text(b"TX", unit)
        };
        let mut d = Vec::with_capacity(72);
        d.push(if master { 2 } else { 0 });
        d.push(if master { 1 } else { 0 });
        d.push(data_type);
        d.push(0);
        d.extend_from_slice(&byte_offset.to_le_bytes());
        d.extend_from_slice(&bits.to_le_bytes());
        d.extend_from_slice(&[0; 4 + 4 + 1 + 1 + 2]);
        d.extend_from_slice(&[0; 48]);
        self.block(b"CN", &[next, 0, tx, 0, 0, 0, unit, 0], &d)
    }

    /// A channel group of `n` records of `rec_bytes`, channels from `cn`, data in `dt`.
    fn group(&mut self, name: &str, cn: u64, n: u64, rec_bytes: u32, records: &[u8]) -> u64 {
        let dt = self.block(b"DT", &[], records);
        let tx = self.text(b"TX", name);
        let mut d = Vec::with_capacity(32);
        d.extend_from_slice(&0u64.to_le_bytes());
        d.extend_from_slice(&n.to_le_bytes());
        d.extend_from_slice(&[0; 8]);
        d.extend_from_slice(&rec_bytes.to_le_bytes());
        d.extend_from_slice(&0u32.to_le_bytes());
        let cg = self.block(b"CG", &[0, cn, tx, 0, 0, 0], &d);
        self.block(b"DG", &[0, cg, dt, 0], &[0; 8])
    }
}

/// The float channels of a vehicle's group after the master, with their units.
const CHANNELS: [(&str, &str); 9] = [
    ("x", "m"),
    ("y", "m"),
    ("yaw", "rad"),
    ("speed", "m/s"),
    ("steering_wheel", "deg"),
    ("brake_light", ""),
    ("wheel_speed", "m/s"),
    ("road_s", "m"),
    ("road_t", "m"),
];

fn values(r: &TelemetryRow) -> [f64; 10] {
    let o = |v: Option<f64>| v.unwrap_or(f64::NAN);
    [
        r.t,
        r.x,
        r.y,
        r.yaw,
        r.speed_mps,
        o(r.steering_wheel_deg),
        o(r.brake_light.map(|b| if b { 1.0 } else { 0.0 })),
        o(r.wheel_speed_mps),
        o(r.road_s),
        o(r.road_t),
    ]
}

/// The run's telemetry and events as an MDF 4.10 file. `t` keeps the source's time base (a
/// replay's GPS seconds of the week), so the header's start time is left at 0 and the time
/// the file was made (`made_ns`, ns since 1970) goes in its history block.
pub fn write_run(rows: &[TelemetryRow], events: &[EventRow], made_ns: u64) -> Vec<u8> {
    let start_ns = 0u64;
    let mut w = Writer {
        buf: Vec::with_capacity(1024 + rows.len() * 80),
    };
    // Identification block.
    w.buf.extend_from_slice(b"MDF     4.10    scil    ");
    w.buf.extend_from_slice(&[0; 4]);
    w.buf.extend_from_slice(&410u16.to_le_bytes());
    w.buf.extend_from_slice(&[0; 34]);
    // The header at 64, its links patched at the end: dg_first, fh_first.
    let mut hd = Vec::with_capacity(32);
    hd.extend_from_slice(&start_ns.to_le_bytes());
    hd.extend_from_slice(&[0; 4]);
    hd.push(0); // time flags: UTC
    hd.extend_from_slice(&[0; 3]);
    hd.extend_from_slice(&[0; 16]);
    let hd_at = w.block(b"HD", &[0; 6], &hd);
    let md = w.text(
        b"MD",
        "<FHcomment><TX>exported by scil</TX><tool_id>scil</tool_id><tool_vendor>scil</tool_vendor><tool_version>0.1</tool_version></FHcomment>",
    );
    let mut fh = made_ns.to_le_bytes().to_vec();
    fh.extend_from_slice(&[0; 8]);
    let fh_at = w.block(b"FH", &[0, md], &fh);

    let mut vehicles: Vec<&str> = Vec::new();
    for r in rows {
        if !vehicles.contains(&r.vehicle.as_str()) {
            vehicles.push(&r.vehicle);
        }
    }
    let mut dgs = Vec::new();
    for v in &vehicles {
        let mut records = Vec::new();
        let mut n = 0u64;
        for r in rows.iter().filter(|r| r.vehicle == *v) {
            for x in values(r) {
                records.extend_from_slice(&x.to_le_bytes());
            }
            n += 1;
        }
        let mut next = 0;
        for (i, (name, unit)) in CHANNELS.iter().enumerate().rev() {
            next = w.channel(next, name, unit, 4, 8 * (i as u32 + 1), 64, false);
        }
        let cn = w.channel(next, "t", "s", 4, 0, 64, true);
        dgs.push(w.group(v, cn, n, 80, &records));
    }
    let timed: Vec<&EventRow> = events.iter().filter(|e| e.t.is_some()).collect();
    if !timed.is_empty() {
        let mut records = Vec::new();
        for e in &timed {
            records.extend_from_slice(&e.t.unwrap_or_default().to_le_bytes());
            let mut k = [0u8; KIND_BYTES];
            let b = e.kind.as_bytes();
            // Cut at a character boundary.
            let mut len = b.len().min(KIND_BYTES);
            while !e.kind.is_char_boundary(len) {
                len -= 1;
            }
            k[..len].copy_from_slice(&b[..len]);
            records.extend_from_slice(&k);
        }
        let kind = w.channel(0, "kind", "", 7, 8, 8 * KIND_BYTES as u32, false);
        let cn = w.channel(kind, "t", "s", 4, 0, 64, true);
        let rec = 8 + KIND_BYTES as u32;
        dgs.push(w.group("events", cn, timed.len() as u64, rec, &records));
    }
    // Chain the data groups (dg_next is each DG's first link) and patch the header.
    for pair in dgs.windows(2) {
        let at = pair[0] as usize + 24;
        w.buf[at..at + 8].copy_from_slice(&pair[1].to_le_bytes());
    }
    let first = dgs.first().copied().unwrap_or(0);
    let at = hd_at as usize + 24;
    w.buf[at..at + 8].copy_from_slice(&first.to_le_bytes());
    w.buf[at + 8..at + 16].copy_from_slice(&fh_at.to_le_bytes());
    w.buf
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::mdf4::blocks::read_tree;

    #[test]
    fn reads_back() {
        let row = |t: f64, v: &str| TelemetryRow {
            run_id: "r".into(),
            seq: 0,
            t,
            vehicle: v.into(),
            kind: "vut".into(),
            x: t * 2.0,
            y: -1.0,
            yaw: 0.5,
            speed_mps: 8.0,
            steering_wheel_deg: None,
            brake_light: Some(true),
            road_id: None,
            lane_id: None,
            road_s: None,
            road_t: None,
            wheel_speed_mps: None,
        };
        let rows = vec![row(1.0, "vut"), row(1.0, "dummy"), row(1.04, "vut")];
        let bytes = write_run(&rows, &[], 0);
        let tree = read_tree(&mut std::io::Cursor::new(&bytes)).unwrap();
        assert_eq!(tree.version, 410);
        assert_eq!(tree.data_groups.len(), 2);
        let g = &tree.data_groups[0].groups[0];
        assert_eq!((g.name.as_str(), g.cycles, g.record_bytes), ("vut", 2, 80));
        assert_eq!(g.master().unwrap().name, "t");
        assert_eq!(g.channels[1].name, "x");
        assert_eq!(g.channels[1].unit, "m");
    }
}
