//! Vector ASC text logs, line by line.
//!
//! ```text
//! date Fri Nov 27 18:51:02.994 2026
//! base hex  timestamps absolute
//! Begin Triggerblock Mon Jan 05 11:30:00.0 1970
//!  0.002751 1  18F20002x       Rx   d 8 D1 8B E8 45 F4 22 7A 01
//!  0.010000 CANFD   1 Rx        156  1 0 8  8 00 02 00 00 00 00 00 00 ...
//! End TriggerBlock
//! ```
//!
//! Classic frames are `TIME CHANNEL ID[x] Rx|Tx d|r DLC DATA…`; CAN FD frames `TIME CANFD
//! CHANNEL Rx|Tx ID[x] [NAME] BRS ESI DLC LEN DATA…`. `base dec` writes ids and bytes in decimal.
//! Times count from the trigger block's start (`timestamps absolute`) or from the previous event
//! (`relative`); a frame's time is the trigger block's date (read as UTC) plus that.
//! Other lines (events, statistics, error frames) are passed over.

use super::CanFrame;

/// Reads an ASC log's lines; keeps the header state (number base, time base).
#[derive(Debug, Default)]
pub struct AscParser {
    decimal: bool,
    relative: bool,
    /// Unix seconds of the current trigger block's start.
    base_s: f64,
    /// Time of the previous event (relative timestamps).
    last: f64,
    /// Lines that were no frame (events, header lines), passed over.
    pub other_lines: u64,
}

fn parse_date(s: &str) -> Option<f64> {
    // "Mon Jan 05 11:30:00.0 1970", or with "am"/"pm" before the year.
    let toks: Vec<&str> = s.split_whitespace().collect();
    let (mon, day, time, rest) = (toks.get(1)?, toks.get(2)?, toks.get(3)?, &toks[4..]);
    let (pm, year) = match rest {
        [ampm, y] => (Some(ampm.eq_ignore_ascii_case("pm")), *y),
        [y] => (None, *y),
        _ => return None,
    };
    let month = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]
    .iter()
    .position(|m| mon.to_ascii_lowercase().starts_with(m))? as u32
        + 1;
    let mut hms = time.split(':');
    let mut h: u32 = hms.next()?.parse().ok()?;
    let m: u32 = hms.next()?.parse().ok()?;
    let sec: f64 = hms.next()?.parse().ok()?;
    match pm {
        Some(true) if h < 12 => h += 12,
        Some(false) if h == 12 => h = 0,
        _ => {}
    }
    let d = chrono::NaiveDate::from_ymd_opt(year.parse().ok()?, month, day.parse().ok()?)?;
    let t = d.and_hms_opt(h, m, 0)?.and_utc().timestamp() as f64;
    (sec.is_finite() && (0.0..61.0).contains(&sec)).then_some(t + sec)
}

impl AscParser {
    pub fn new() -> Self {
        Self::default()
    }

    /// One line: `Ok(Some(frame))`, `Ok(None)` for a line that is no frame, or why a line that
    /// looks like a frame is malformed.
    pub fn line(&mut self, line: &str) -> Result<Option<CanFrame>, String> {
        let l = line.trim();
        let lower = l.to_ascii_lowercase();
        if lower.starts_with("base ") {
            self.decimal = lower.starts_with("base dec");
            self.relative = lower.contains("timestamps relative");
            self.other_lines += 1;
            return Ok(None);
        }
        if lower.starts_with("begin triggerblock") {
            self.base_s = parse_date(&l[18..]).unwrap_or(0.0);
            self.last = 0.0;
            self.other_lines += 1;
            return Ok(None);
        }
        let toks: Vec<&str> = l.split_whitespace().collect();
        let Some(t) = toks.first().and_then(|t| t.parse::<f64>().ok()) else {
            self.other_lines += 1;
            return Ok(None);
        };
        if !t.is_finite() {
            return Err(format!("time '{}' is not finite", toks[0]));
        }
        let rel = if self.relative { self.last + t } else { t };
        let frame = if toks.get(1).is_some_and(|c| c.eq_ignore_ascii_case("CANFD")) {
            self.fd(&toks[2..])?
        } else if toks.len() >= 5
            && toks[1].parse::<u32>().is_ok()
            && matches!(toks[3], "Rx" | "Tx")
            && matches!(toks[4], "d" | "r" | "D" | "R")
        {
            Some(self.classic(&toks[1..])?)
        } else {
            None
        };
        self.last = rel;
        match frame {
            Some(mut f) => {
                f.time_s = Some(self.base_s + rel);
                Ok(Some(f))
            }
            None => {
                self.other_lines += 1;
                Ok(None)
            }
        }
    }

    fn num(&self, s: &str) -> Result<u32, String> {
        let r = if self.decimal {
            s.parse()
        } else {
            u32::from_str_radix(s, 16)
        };
        r.map_err(|_| format!("'{s}' is not a number"))
    }

    fn id(&self, s: &str) -> Result<(u32, bool), String> {
        let (digits, ext) = match s.strip_suffix(['x', 'X']) {
            Some(d) => (d, true),
            None => (s, false),
        };
        let id = self.num(digits)?;
        if (ext && id > 0x1FFF_FFFF) || (!ext && id > 0x7FF) {
            return Err(format!("CAN id '{s}' out of range"));
        }
        Ok((id, ext))
    }

    fn bytes(&self, toks: &[&str], n: usize) -> Result<Vec<u8>, String> {
        if toks.len() < n {
            return Err(format!("{n} data bytes announced, {} given", toks.len()));
        }
        toks[..n]
            .iter()
            .map(|t| match self.num(t)? {
                v @ 0..=255 => Ok(v as u8),
                _ => Err(format!("data byte '{t}' out of range")),
            })
            .collect()
    }

    /// `CHANNEL ID Rx d DLC DATA…`
    fn classic(&self, t: &[&str]) -> Result<CanFrame, String> {
        let ch: u32 = t[0].parse().map_err(|_| "bad channel".to_string())?;
        let (id, ext) = self.id(t[1])?;
        let remote = t[3].eq_ignore_ascii_case("r");
        let dlc = match t.get(4) {
            Some(d) => self.num(d)? as usize,
            None if remote => 0,
            None => return Err("no DLC".into()),
        };
        let mut f = CanFrame::new(id, ext, &[]);
        f.remote = remote;
        if !remote {
            f.data = self.bytes(t.get(5..).unwrap_or_default(), dlc.min(8))?;
        }
        f.iface = Some(format!("can{}", ch.saturating_sub(1)));
        Ok(f)
    }

    /// `CHANNEL Rx ID [NAME] BRS ESI DLC LEN DATA…`
    fn fd(&self, t: &[&str]) -> Result<Option<CanFrame>, String> {
        if t.len() < 7 {
            return Ok(None);
        }
        let ch: u32 = t[0].parse().map_err(|_| "bad channel".to_string())?;
        let (id, ext) = self.id(t[2])?;
        // A symbolic message name may stand between the id and BRS: BRS and ESI are 0/1.
        let mut i = 3;
        if !(t[i] == "0" || t[i] == "1")
            || !(t.get(i + 1) == Some(&"0") || t.get(i + 1) == Some(&"1"))
        {
            i += 1;
        }
        let brs = t.get(i) == Some(&"1");
        let esi = t.get(i + 1) == Some(&"1");
        let len: usize = t
            .get(i + 3)
            .ok_or("no data length")?
            .parse()
            .map_err(|_| "bad data length".to_string())?;
        if len > 64 {
            return Err(format!("{len} data bytes"));
        }
        let mut f = CanFrame::new(id, ext, &[]);
        f.data = self.bytes(t.get(i + 4..).unwrap_or_default(), len)?;
        f.fd = true;
        f.fd_flags = u8::from(brs) | (u8::from(esi) << 1);
        f.iface = Some(format!("can{}", ch.saturating_sub(1)));
        Ok(Some(f))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines() {
        let mut p = AscParser::new();
        assert!(p.line("base hex  timestamps absolute").unwrap().is_none());
        assert!(p
            .line("Begin Triggerblock Mon Jan 05 11:30:00.0 1970")
            .unwrap()
            .is_none());
        let f = p
            .line(" 0.002751 1  18F20002x       Rx   d 8 D1 8B E8 45 F4 22 7A 01")
            .unwrap()
            .unwrap();
        assert_eq!((f.id, f.extended, f.data.len()), (0x18F20002, true, 8));
        assert!((f.time_s.unwrap() - 387000.002751).abs() < 1e-6);
        let f = p
            .line(" 1.0 1 156 Rx d 6 00 02 00 00 00 00")
            .unwrap()
            .unwrap();
        assert_eq!(f.data, vec![0, 2, 0, 0, 0, 0]);
        let f = p
            .line(" 1.5 CANFD 1 Rx 123 1 0 9 12 00 01 02 03 04 05 06 07 08 09 0A 0B 0 0 0")
            .unwrap()
            .unwrap();
        assert!(f.fd && f.data.len() == 12 && f.fd_flags == 1);
        assert!(p.line(" 2.0 Start of measurement").unwrap().is_none());
        assert!(p.line(" 2.0 1 800 Rx d 1 00").is_err());
        assert!(p.line(" 2.0 1 156 Rx d 8 00").is_err());
        assert_eq!(
            parse_date("Wed Mar 3 02:16:44.5 pm 2021"),
            Some(1614781004.5)
        );
    }
}
