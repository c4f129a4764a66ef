//! Placing a layout at a site: every road's plan view turned and moved so that the map's (0, 0)
//! sits at a WGS84 origin and its +x axis points at a compass heading, with a transverse Mercator
//! `<geoReference>` about that origin.
//!
//! The document is edited as text: only the `x`, `y` and `hdg` attribute values of plan-view
//! `<geometry>` and signal `<positionInertial>` elements change, the header's `<geoReference>`
//! is written (or replaced) and its `<offset>` removed. Everything else — comments, attribute
//! order, quoting, indentation, vendor data — stays byte for byte as it was.
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
    crate::OpenDrive::from_str(xml)?;
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
    if let Some((s, e)) = offset {
        edits.push(Edit {
            start: line_start_if_blank(xml, s),
            end: e,
            text: String::new(),
        });
    }
    if h_empty {
        // `<header …/>` becomes `<header …>` + children + `</header>`.
        let tag = &xml[h_start..h_end];
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
        edits.push(Edit {
            start: s,
            end: e,
            text: header_children,
        });
    } else {
        let _ = header_end;
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
                !l.contains("geoReference") && !l.contains("offset") && !l.contains("</header>")
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
