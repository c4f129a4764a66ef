//! Placing a layout at a site: every road's plan view turned and moved so that the map's (0, 0)
//! sits at a WGS84 origin and its +x axis points at a compass heading, with a transverse Mercator
//! `<geoReference>` about that origin.
//!
//! The document is edited as text: only the `x`, `y` and `hdg` attribute values of plan-view
//! `<geometry>` and signal `<positionInertial>` elements change, the header's `<geoReference>`
//! is written (or replaced), its `<offset>` removed, its `north`/`south`/`east`/`west` bounds
//! (when it has them) recomputed from the placed roads, and the site itself recorded as a header
//! `<userData code="scil:site" value="lat=… lon=… [alt=…] heading=…"/>` (what [`site_of`]
//! reads back: the dashboard shows it, `scil scenario place` turns scenarios by it). Everything
//! else — comments, attribute order, quoting, indentation, vendor data — stays byte for byte as
//! it was.
//!
//! The placed geometry is written itself rather than left to a header `<offset>`, so readers
//! that ignore the offset (many do) agree with those that apply it. When an altitude is given it
//! is kept as an `<offset>` with only `z` set, which moves nothing horizontally.

use quick_xml::events::Event;
use quick_xml::Reader;

use crate::error::Error;

/// Where a layout goes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placement {
    /// Latitude of the map's (0, 0), degrees (WGS84).
    pub lat_deg: f64,
    /// Longitude of the map's (0, 0), degrees (WGS84).
    pub lon_deg: f64,
    /// Ellipsoidal height of the map's z = 0, metres, if known.
    pub alt_m: Option<f64>,
    /// Compass heading of the map's +x axis: degrees, 0 = north, clockwise.
    pub heading_deg: f64,
}

impl Placement {
    /// Checks the ranges: a latitude within ±85° (transverse Mercator near the poles is not a
    /// site frame), a longitude within ±180°, finite numbers.
    pub fn validate(&self) -> Result<(), String> {
        let finite = [self.lat_deg, self.lon_deg, self.heading_deg]
            .iter()
            .chain(self.alt_m.iter())
            .all(|v| v.is_finite());
        if !finite {
            return Err("origin and heading must be finite numbers".into());
        }
        if self.lat_deg.abs() > 85.0 {
            return Err(format!("latitude {} is outside ±85°", self.lat_deg));
        }
        if self.lon_deg.abs() > 180.0 {
            return Err(format!("longitude {} is outside ±180°", self.lon_deg));
        }
        Ok(())
    }

    /// The PROJ string of the site frame: transverse Mercator about the origin, scale 1, WGS84.
    /// Its grid north is true north at the origin.
    pub fn proj4(&self) -> String {
        tmerc_at(self.lat_deg, self.lon_deg)
    }

    /// Rotation from map axes to east/north (counter-clockwise, radians): the map's +x at
    /// compass heading h is the direction π/2 − h from east.
    pub fn rotation(&self) -> f64 {
        std::f64::consts::FRAC_PI_2 - self.heading_deg.to_radians()
    }

    /// A map point (x, y, heading) in the placed frame.
    pub fn apply(&self, x: f64, y: f64, hdg: f64) -> (f64, f64, f64) {
        let r = self.rotation();
        let (sn, cs) = r.sin_cos();
        (x * cs - y * sn, x * sn + y * cs, crate::wrap_angle(hdg + r))
    }
}

/// `code` of the header `<userData>` that records a site.
pub const SITE_CODE: &str = "scil:site";

impl Placement {
    /// The `value` of the site record: `lat=… lon=… [alt=…] heading=…`.
    pub fn record(&self) -> String {
        let mut s = format!("lat={} lon={}", self.lat_deg, self.lon_deg);
        if let Some(a) = self.alt_m {
            s.push_str(&format!(" alt={a}"));
        }
        s.push_str(&format!(" heading={}", self.heading_deg));
        s
    }

    /// Reads a [`Placement::record`]; `None` when a key is missing or a value is not a number.
    pub fn from_record(value: &str) -> Option<Placement> {
        let (mut lat, mut lon, mut alt, mut hdg) = (None, None, None, None);
        for kv in value.split_whitespace() {
            let (k, v) = kv.split_once('=')?;
            let v = v.parse::<f64>().ok().filter(|v| v.is_finite())?;
            match k {
                "lat" => lat = Some(v),
                "lon" => lon = Some(v),
                "alt" => alt = Some(v),
                "heading" => hdg = Some(v),
                _ => {}
            }
        }
        Some(Placement {
            lat_deg: lat?,
            lon_deg: lon?,
            alt_m: alt,
            heading_deg: hdg?,
        })
    }

    /// This placement applied to a map that was already placed at `before`: the layout's
    /// (0, 0) is at this origin, and its +x axis, turned first by `before` and then by this
    /// placement, points at `before.heading + heading − 90°`.
    pub fn after(&self, before: &Placement) -> Placement {
        Placement {
            heading_deg: (before.heading_deg + self.heading_deg - 90.0).rem_euclid(360.0),
            ..*self
        }
    }
}

/// The site a placed map records (its header's `scil:site` `<userData>`), if it has one.
pub fn site_of(xml: &str) -> Option<Placement> {
    let mut reader = Reader::from_str(xml);
    let mut stack: Vec<Vec<u8>> = Vec::new();
    loop {
        let ev = reader.read_event().ok()?;
        match ev {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let name = e.local_name().into_inner().to_vec();
                if name == b"userData" && stack.last().map(Vec::as_slice) == Some(b"header") {
                    if let Some(v) = site_value(e) {
                        return Placement::from_record(&v);
                    }
                }
                // The header comes before the roads: no need to read further.
                if name == b"road" {
                    return None;
                }
                if matches!(ev, Event::Start(_)) {
                    stack.push(name);
                }
            }
            Event::End(_) => {
                stack.pop();
            }
            Event::Eof => return None,
            _ => {}
        }
    }
}

/// The `value` of a `<userData>` whose `code` is [`SITE_CODE`].
fn site_value(e: &quick_xml::events::BytesStart) -> Option<String> {
    let code = e.try_get_attribute("code").ok()??;
    if code.unescape_value().ok()? != SITE_CODE {
        return None;
    }
    let v = e.try_get_attribute("value").ok()??;
    Some(v.unescape_value().ok()?.into_owned())
}

/// North, south, east and west (largest y, smallest y, largest x, smallest x) of every road's
/// outer lane borders once placed, sampled every 0.5 m of s; `None` for a map without roads.
fn placed_bounds(od: &crate::OpenDrive, at: &Placement) -> Option<[f64; 4]> {
    let mut b: Option<[f64; 4]> = None;
    for road in &od.roads {
        let n = (road.length / 0.5).ceil().clamp(1.0, 1e7) as usize;
        for i in 0..=n {
            let s = road.length * i as f64 / n as f64;
            let (lo, hi) = match road.section_index(s) {
                Some(sec) => road.border_extent(sec, s),
                None => (0.0, 0.0),
            };
            for t in [lo, hi] {
                let (x, y) = road.st_to_xy(s, t);
                let (px, py, _) = at.apply(x, y, 0.0);
                if !(px.is_finite() && py.is_finite()) {
                    continue;
                }
                let v = b.get_or_insert([py, py, px, px]);
                *v = [v[0].max(py), v[1].min(py), v[2].max(px), v[3].min(px)];
            }
        }
    }
    b
}

/// The header start tag with its `north`/`south`/`east`/`west` values (those it has) set to
/// `bounds`, rounded outward to the millimetre.
fn header_with_bounds(tag: &str, bounds: Option<[f64; 4]>) -> String {
    let Some([n, s, e, w]) = bounds else {
        return tag.to_string();
    };
    // Outward, but not for the last bits of a rounded sine (3.5 + 6e-16 is 3.500).
    let up = |v: f64| format!("{:.3}", ((v * 1000.0) - 1e-6).ceil() / 1000.0 + 0.0);
    let down = |v: f64| format!("{:.3}", ((v * 1000.0) + 1e-6).floor() / 1000.0 + 0.0);
    let mut spans: Vec<(usize, usize, String)> = attr_spans(tag)
        .into_iter()
        .filter_map(|(k, a, z)| {
            let v = match k.as_str() {
                "north" => up(n),
                "south" => down(s),
                "east" => up(e),
                "west" => down(w),
                _ => return None,
            };
            Some((a, z, v))
        })
        .collect();
    spans.sort_by_key(|v| v.0);
    let mut out = String::with_capacity(tag.len() + 32);
    let mut i = 0;
    for (a, z, v) in spans {
        out.push_str(&tag[i..a]);
        out.push_str(&v);
        i = z;
    }
    out.push_str(&tag[i..]);
    out
}

/// `+proj=tmerc` about (lat, lon): the geoReference scil writes for a site.
pub fn tmerc_at(lat_deg: f64, lon_deg: f64) -> String {
    format!(
        "+proj=tmerc +lat_0={lat_deg} +lon_0={lon_deg} +k=1 +x_0=0 +y_0=0 +ellps=WGS84 +units=m +no_defs"
    )
}

/// A byte range of the document to replace.
struct Edit {
    start: usize,
    end: usize,
    text: String,
}

/// The document placed at `at` (see the module documentation). The input must be a loadable
/// OpenDRIVE document; its errors are returned as the loader reports them.
pub fn place(xml: &str, at: &Placement) -> Result<String, Error> {
    at.validate().map_err(Error::Structure)?;
    // Refuse what the loader refuses, with its file positions, before editing anything.
    let od = crate::OpenDrive::from_str(xml)?;
    let bounds = placed_bounds(&od, at);
    let mut reader = Reader::from_str(xml);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Vec<u8>> = Vec::new();
    let mut edits: Vec<Edit> = Vec::new();
    // The header: its start tag span and whether it is an empty element.
    let mut header: Option<(usize, usize, bool)> = None;
    let mut header_end: Option<usize> = None;
    let mut geo_ref: Option<(usize, usize)> = None;
    let mut geo_ref_start = 0usize;
    let mut offset: Option<(usize, usize)> = None;
    let mut offset_start = 0usize;
    // A site record the map already has: (span, the site), and the start of an open one.
    let mut site: Option<((usize, usize), Option<Placement>)> = None;
    let mut site_open: Option<(usize, Option<Placement>)> = None;
    loop {
        let before = reader.buffer_position() as usize;
        let ev = reader.read_event().map_err(|e| Error::Xml {
            line: line_of(xml, reader.error_position() as usize),
            message: e.to_string(),
        })?;
        let after = reader.buffer_position() as usize;
        match ev {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(ev, Event::Empty(_));
                let name = e.local_name().into_inner().to_vec();
                let parent = stack.last().map(Vec::as_slice);
                match (name.as_slice(), parent) {
                    (b"header", Some(b"OpenDRIVE")) => header = Some((before, after, empty)),
                    (b"geoReference", Some(b"header")) => {
                        if empty {
                            geo_ref = Some((before, after));
                        }
                        geo_ref_start = before;
                    }
                    (b"offset", Some(b"header")) => {
                        if empty {
                            offset = Some((before, after));
                        }
                        offset_start = before;
                    }
                    (b"userData", Some(b"header")) if site.is_none() => {
                        if let Some(v) = site_value(e) {
                            let before_site = Placement::from_record(&v);
                            if empty {
                                site = Some(((before, after), before_site));
                            } else {
                                site_open = Some((before, before_site));
                            }
                        }
                    }
                    (b"geometry", Some(b"planView")) | (b"positionInertial", _) => {
                        edits.push(placed_tag(xml, before, after, at)?);
                    }
                    _ => {}
                }
                if !empty {
                    stack.push(name);
                }
            }
            Event::End(ref e) => {
                let name = e.local_name().into_inner().to_vec();
                stack.pop();
                let parent = stack.last().map(Vec::as_slice);
                match (name.as_slice(), parent) {
                    (b"header", Some(b"OpenDRIVE")) => header_end = Some(before),
                    (b"geoReference", Some(b"header")) => geo_ref = Some((geo_ref_start, after)),
                    (b"offset", Some(b"header")) => offset = Some((offset_start, after)),
                    (b"userData", Some(b"header")) => {
                        if let Some((start, p)) = site_open.take() {
                            site = Some(((start, after), p));
                        }
                    }
                    _ => {}
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    let Some((h_start, h_end, h_empty)) = header else {
        return Err(Error::Structure("no <header> in <OpenDRIVE>".into()));
    };
    let indent = indent_of(xml, h_start);
    let child_indent = format!("{indent}    ");
    let mut header_children = format!("<geoReference><![CDATA[{}]]></geoReference>", at.proj4());
    if let Some(z) = at.alt_m {
        header_children.push_str(&format!(
            "\n{child_indent}<offset x=\"0\" y=\"0\" z=\"{z}\" hdg=\"0\"/>"
        ));
    }
    // The site of the layout: this placement, after the one the map already had.
    let recorded = match site.as_ref().and_then(|s| s.1.as_ref()) {
        Some(before) => at.after(before),
        None => *at,
    };
    header_children.push_str(&format!(
        "\n{child_indent}<userData code=\"{SITE_CODE}\" value=\"{}\"/>",
        recorded.record()
    ));
    if let Some(((s, e), _)) = site {
        edits.push(Edit {
            start: line_start_if_blank(xml, s),
            end: e,
            text: String::new(),
        });
    }
    let header_tag = header_with_bounds(&xml[h_start..h_end], bounds);
    if let Some((s, e)) = offset {
        edits.push(Edit {
            start: line_start_if_blank(xml, s),
            end: e,
            text: String::new(),
        });
    }
    if h_empty {
        // `<header …/>` becomes `<header …>` + children + `</header>`.
        let tag = header_tag.as_str();
        let open = tag.trim_end_matches('>').trim_end().trim_end_matches('/');
        edits.push(Edit {
            start: h_start,
            end: h_end,
            text: format!(
                "{}>\n{child_indent}{header_children}\n{indent}</header>",
                open.trim_end()
            ),
        });
    } else if let Some((s, e)) = geo_ref {
        push_header_tag(&mut edits, xml, h_start, h_end, header_tag);
        edits.push(Edit {
            start: s,
            end: e,
            text: header_children,
        });
    } else {
        let _ = header_end;
        push_header_tag(&mut edits, xml, h_start, h_end, header_tag);
        edits.push(Edit {
            start: h_end,
            end: h_end,
            text: format!("\n{child_indent}{header_children}"),
        });
    }
    edits.sort_by_key(|e| e.start);
    let mut out = String::with_capacity(xml.len() + 256);
    let mut at_byte = 0;
    for e in edits {
        if e.start < at_byte {
            return Err(Error::Structure("overlapping header elements".into()));
        }
        out.push_str(&xml[at_byte..e.start]);
        out.push_str(&e.text);
        at_byte = e.end;
    }
    out.push_str(&xml[at_byte..]);
    Ok(out)
}

/// Replaces the header's start tag when its bounds changed.
fn push_header_tag(edits: &mut Vec<Edit>, xml: &str, start: usize, end: usize, text: String) {
    if xml[start..end] != text {
        edits.push(Edit { start, end, text });
    }
}

/// The tag `xml[start..end]` with its x, y and hdg placed.
fn placed_tag(xml: &str, start: usize, end: usize, at: &Placement) -> Result<Edit, Error> {
    let tag = &xml[start..end];
    let line = line_of(xml, start);
    let attrs = attr_spans(tag);
    let name = tag
        .trim_start_matches('<')
        .split(|c: char| c.is_whitespace() || c == '/' || c == '>')
        .next()
        .unwrap_or("")
        .to_string();
    let value = |key: &str| -> Result<Option<f64>, Error> {
        match attrs.iter().find(|a| a.0 == key) {
            None => Ok(None),
            Some(&(_, s, e)) => {
                let raw = &tag[s..e];
                raw.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .map(Some)
                    .ok_or_else(|| Error::InvalidAttribute {
                        element: name.clone(),
                        attribute: key.to_string(),
                        value: raw.to_string(),
                        reason: "not a finite number".into(),
                        line,
                    })
            }
        }
    };
    let missing = |key: &str| Error::MissingAttribute {
        element: name.clone(),
        attribute: key.to_string(),
        line,
    };
    let x = value("x")?.ok_or_else(|| missing("x"))?;
    let y = value("y")?.ok_or_else(|| missing("y"))?;
    let hdg = value("hdg")?;
    let (px, py, ph) = at.apply(x, y, hdg.unwrap_or(0.0));
    let mut new_values: Vec<(usize, usize, String)> = Vec::new();
    for &(ref key, s, e) in &attrs {
        let v = match key.as_str() {
            "x" => px,
            "y" => py,
            "hdg" => ph,
            _ => continue,
        };
        new_values.push((s, e, format!("{v}")));
    }
    new_values.sort_by_key(|v| v.0);
    let mut text = String::with_capacity(tag.len() + 32);
    let mut i = 0;
    for (s, e, v) in new_values {
        text.push_str(&tag[i..s]);
        text.push_str(&v);
        i = e;
    }
    text.push_str(&tag[i..]);
    Ok(Edit { start, end, text })
}

/// (name, value start, value end) of each attribute of one start tag, offsets within the tag.
/// XML forbids the quote character inside its own quotes, so the scan needs no escapes.
fn attr_spans(tag: &str) -> Vec<(String, usize, usize)> {
    let b = tag.as_bytes();
    let mut out = Vec::new();
    // Skip `<name`.
    let mut i = 1;
    while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b'>' && b[i] != b'/' {
        i += 1;
    }
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if i >= b.len() || b[i] == b'>' || b[i] == b'/' {
            return out;
        }
        let n0 = i;
        while i < b.len() && b[i] != b'=' && !b[i].is_ascii_whitespace() {
            i += 1;
        }
        let key = &tag[n0..i];
        // Local name: an attribute `ns:x` is not the plain `x` this module edits.
        while i < b.len() && (b[i].is_ascii_whitespace() || b[i] == b'=') {
            i += 1;
        }
        if i >= b.len() {
            return out;
        }
        let q = b[i];
        if q != b'"' && q != b'\'' {
            return out;
        }
        let v0 = i + 1;
        let Some(len) = b[v0..].iter().position(|&c| c == q) else {
            return out;
        };
        out.push((key.to_string(), v0, v0 + len));
        i = v0 + len + 1;
    }
}

/// 1-based line of a byte offset.
fn line_of(xml: &str, at: usize) -> usize {
    xml.as_bytes()[..at.min(xml.len())]
        .iter()
        .filter(|&&c| c == b'\n')
        .count()
        + 1
}

/// The whitespace before the element starting at `at` on its line.
fn indent_of(xml: &str, at: usize) -> String {
    let line_start = xml[..at].rfind('\n').map_or(0, |i| i + 1);
    let lead = &xml[line_start..at];
    if lead.chars().all(char::is_whitespace) {
        lead.to_string()
    } else {
        String::new()
    }
}

/// Where a removed element's line begins when only whitespace precedes it there (so removing it
/// leaves no blank line), else `at`.
fn line_start_if_blank(xml: &str, at: usize) -> usize {
    let line_start = xml[..at].rfind('\n').unwrap_or(0);
    if xml[line_start..at].chars().all(char::is_whitespace) {
        line_start
    } else {
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = r#"<?xml version="1.0"?>
<OpenDRIVE>
  <!-- kept -->
  <header revMajor="1" revMinor="6" vendor='x'/>
  <road id="1" length="100" junction="-1">
    <planView>
      <geometry s="0" x="10" y="0" hdg="0" length="100"><line/></geometry>
    </planView>
    <lanes><laneSection s="0"><center><lane id="0" type="none"/></center>
      <right><lane id="-1" type="driving"><width sOffset="0" a="3.5" b="0" c="0" d="0"/></lane></right>
    </laneSection></lanes>
  </road>
</OpenDRIVE>
"#;

    #[test]
    fn heading_east_keeps_axes_and_adds_the_frame() {
        let at = Placement {
            lat_deg: 47.0,
            lon_deg: 17.0,
            alt_m: None,
            heading_deg: 90.0,
        };
        let out = place(DOC, &at).unwrap();
        let od = crate::OpenDrive::from_str(&out).unwrap();
        let (x, y, h) = od.road("1").unwrap().reference(50.0);
        assert!((x - 60.0).abs() < 1e-9 && y.abs() < 1e-9 && h.abs() < 1e-12);
        assert_eq!(
            od.header.geo_reference.as_deref(),
            Some(at.proj4().as_str())
        );
        assert!(out.contains("<!-- kept -->") && out.contains("vendor='x'"));
    }

    #[test]
    fn heading_north_turns_x_to_north() {
        let at = Placement {
            lat_deg: 47.0,
            lon_deg: 17.0,
            alt_m: Some(120.5),
            heading_deg: 0.0,
        };
        let out = place(DOC, &at).unwrap();
        let od = crate::OpenDrive::from_str(&out).unwrap();
        let (x, y, h) = od.road("1").unwrap().reference(50.0);
        assert!(x.abs() < 1e-9 && (y - 60.0).abs() < 1e-9);
        assert!((h - std::f64::consts::FRAC_PI_2).abs() < 1e-12);
        let o = od.header.offset.unwrap();
        assert_eq!((o.x, o.y, o.z, o.hdg), (0.0, 0.0, 120.5, 0.0));
        // Everything but the edited values is unchanged.
        let diff: Vec<_> = DOC
            .lines()
            .zip(out.lines().filter(|l| {
                !l.contains("geoReference")
                    && !l.contains("offset")
                    && !l.contains("userData")
                    && !l.contains("</header>")
            }))
            .filter(|(a, b)| a != b)
            .collect();
        assert_eq!(diff.len(), 2, "{diff:?}");
    }

    #[test]
    fn replaces_a_frame_and_removes_the_offset() {
        let doc = DOC.replace(
            "<header revMajor=\"1\" revMinor=\"6\" vendor='x'/>",
            "<header revMajor=\"1\" revMinor=\"6\">\n    <geoReference>+proj=utm +zone=33</geoReference>\n    <offset x=\"5\" y=\"6\" z=\"0\" hdg=\"0.1\"/>\n  </header>",
        );
        let at = Placement {
            lat_deg: -33.9,
            lon_deg: 18.4,
            alt_m: None,
            heading_deg: 30.0,
        };
        let out = place(&doc, &at).unwrap();
        let od = crate::OpenDrive::from_str(&out).unwrap();
        assert!(od.header.offset.is_none());
        assert_eq!(out.matches("geoReference>").count(), 2);
        assert!(!out.contains("utm"));
    }

    #[test]
    fn records_the_site_and_composes_a_second_placement() {
        let at = Placement {
            lat_deg: 47.0,
            lon_deg: 17.0,
            alt_m: Some(100.0),
            heading_deg: 30.0,
        };
        let once = place(DOC, &at).unwrap();
        assert_eq!(site_of(&once), Some(at));
        assert_eq!(site_of(DOC), None);
        // Placed again: the layout's +x axis turned by both, one record.
        let again = Placement {
            lat_deg: 48.0,
            lon_deg: 11.0,
            alt_m: None,
            heading_deg: 120.0,
        };
        let twice = place(&once, &again).unwrap();
        assert_eq!(twice.matches(SITE_CODE).count(), 1);
        let got = site_of(&twice).unwrap();
        assert_eq!((got.lat_deg, got.lon_deg, got.alt_m), (48.0, 11.0, None));
        assert!((got.heading_deg - 60.0).abs() < 1e-12, "{got:?}");
        // The road's direction agrees with the recorded heading (compass of +x).
        let od = crate::OpenDrive::from_str(&twice).unwrap();
        let (_, _, h) = od.road("1").unwrap().reference(0.0);
        let compass = (90.0 - h.to_degrees()).rem_euclid(360.0);
        assert!((compass - got.heading_deg).abs() < 1e-9, "{compass}");
    }

    #[test]
    fn recomputes_the_bounds_the_header_has() {
        let doc = DOC.replace(
            "vendor='x'/>",
            "north=\"0.0\" south=\"0.0\" east=\"0.0\" west=\"0.0\" vendor='x'/>",
        );
        let at = Placement {
            lat_deg: 47.0,
            lon_deg: 17.0,
            alt_m: None,
            heading_deg: 0.0,
        };
        let out = place(&doc, &at).unwrap();
        // Road from (10, 0) to (110, 0), lane -1 3.5 m to its right, turned to point north:
        // x from 0 to 3.5, y from 10 to 110.
        assert!(
            out.contains("north=\"110.000\" south=\"10.000\" east=\"3.500\" west=\"0.000\""),
            "{out}"
        );
        // Without bounds in the header none are added.
        assert!(!place(DOC, &at).unwrap().contains("north="));
    }

    #[test]
    fn bad_input_is_refused_with_its_reason() {
        let at = Placement {
            lat_deg: 47.0,
            lon_deg: 17.0,
            alt_m: None,
            heading_deg: 0.0,
        };
        let bad = DOC.replace("x=\"10\"", "x=\"nan\"");
        let e = place(&bad, &at).unwrap_err().to_string();
        assert!(e.contains("line 7") && e.contains("\"x\""), "{e}");
        let far = Placement {
            lat_deg: 89.0,
            ..at
        };
        assert!(place(DOC, &far).unwrap_err().to_string().contains("85"));
    }
}
