//! Streaming OpenDRIVE reader built on quick-xml.
//!
//! The reader keeps a stack of open element names so that context-dependent elements
//! (`<line>` in a geometry vs. in a road mark, lane vs. road `<link>`) are recognised by their
//! parent. Unknown elements (objects, signals, road marks, user data, …) are skipped, so newer
//! revisions and vendor extensions do not stop loading.

use std::borrow::Cow;

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;
use smallvec::SmallVec;

use crate::error::Error;
use crate::geometry::{Geometry, GeometryKind, PRange};
use crate::model::*;

/// Raw parse result before indexing.
pub(crate) struct Parsed {
    pub header: Header,
    pub roads: Vec<Road>,
    pub junctions: Vec<Junction>,
}

/// `raw` as text: borrowed when it is valid UTF-8 (always, for a document read as `&str`),
/// else repaired.
fn utf8(raw: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(raw) {
        Ok(v) => Cow::Borrowed(v),
        Err(_) => String::from_utf8_lossy(raw),
    }
}

/// Attributes of one element with the context needed for error messages. Names and values are
/// borrowed from the document (a value is owned only when it holds an escape or invalid UTF-8):
/// no allocation per attribute.
struct Attrs<'b> {
    element: Cow<'b, str>,
    line: usize,
    /// (local name as bytes: compared with ASCII names, never decoded; value); inline up to 8
    /// (no OpenDRIVE element the reader uses has more), so most elements allocate nothing.
    list: SmallVec<[(&'b [u8], Cow<'b, str>); 8]>,
}

impl<'b> Attrs<'b> {
    fn new(e: &'b BytesStart<'_>, line: usize) -> Result<Attrs<'b>, Error> {
        let element = utf8(e.local_name().into_inner());
        let mut list = SmallVec::new();
        // Elements the reader never looks at (objects, signals, road marks, user data, …: most
        // of a CARLA map) keep their attributes unread.
        if !is_read(e.local_name().into_inner()) {
            return Ok(Attrs {
                element,
                line,
                list,
            });
        }
        for a in e.attributes().with_checks(false) {
            let a = a.map_err(|err| Error::Xml {
                line,
                message: format!("<{element}>: {err}"),
            })?;
            let key = a.key.local_name().into_inner();
            // Nearly every value is borrowed plain text: no escape to resolve, so it is used in
            // place (quick-xml's unescape would scan and re-validate it the same way).
            let value = match a.value {
                Cow::Borrowed(raw) if !raw.contains(&b'&') => utf8(raw),
                _ => match a.unescape_value() {
                    Ok(v) => v,
                    Err(_) => Cow::Owned(String::from_utf8_lossy(&a.value).into_owned()),
                },
            };
            list.push((key, value));
        }
        Ok(Attrs {
            element,
            line,
            list,
        })
    }

    fn get(&self, name: &str) -> Option<&str> {
        self.list
            .iter()
            .find(|(k, _)| *k == name.as_bytes())
            .map(|(_, v)| v.as_ref())
    }

    fn invalid(&self, attribute: &str, value: &str, reason: &str) -> Error {
        Error::InvalidAttribute {
            element: self.element.to_string(),
            attribute: attribute.to_string(),
            value: value.to_string(),
            reason: reason.to_string(),
            line: self.line,
        }
    }

    fn string(&self, name: &str) -> Result<String, Error> {
        self.get(name)
            .map(|v| v.trim().to_string())
            .ok_or_else(|| Error::MissingAttribute {
                element: self.element.to_string(),
                attribute: name.to_string(),
                line: self.line,
            })
    }

    /// A finite number. `nan`, `inf` and malformed numbers such as `4.00000000000000000+0`
    /// are rejected rather than repaired: guessing the intended value of a corrupted map would
    /// silently move roads, which is worse for a test facility than refusing the file.
    fn num(&self, name: &str) -> Result<f64, Error> {
        let raw = self.get(name).ok_or_else(|| Error::MissingAttribute {
            element: self.element.to_string(),
            attribute: name.to_string(),
            line: self.line,
        })?;
        parse_finite(raw).map_err(|reason| self.invalid(name, raw, reason))
    }

    /// Like [`Attrs::num`] but an absent attribute gives `default`.
    fn num_or(&self, name: &str, default: f64) -> Result<f64, Error> {
        match self.get(name) {
            None => Ok(default),
            Some(raw) => parse_finite(raw).map_err(|reason| self.invalid(name, raw, reason)),
        }
    }

    fn int(&self, name: &str) -> Result<i32, Error> {
        let raw = self.string(name)?;
        if let Ok(v) = raw.parse::<i32>() {
            return Ok(v);
        }
        // Some exporters write integral ids as "1.0".
        match parse_finite(&raw) {
            Ok(f) if f.fract() == 0.0 && f.abs() < 1e9 => Ok(f as i32),
            _ => Err(self.invalid(name, &raw, "not an integer")),
        }
    }

    fn poly(&self, s_name: &str) -> Result<Poly3, Error> {
        Ok(Poly3 {
            s: self.num(s_name)?,
            a: self.num_or("a", 0.0)?,
            b: self.num_or("b", 0.0)?,
            c: self.num_or("c", 0.0)?,
            d: self.num_or("d", 0.0)?,
        })
    }
}

/// Element names whose attributes the reader uses (every name in `parse`'s match).
fn is_read(name: &[u8]) -> bool {
    matches!(
        name,
        b"OpenDRIVE"
            | b"header"
            | b"geoReference"
            | b"offset"
            | b"road"
            | b"predecessor"
            | b"successor"
            | b"geometry"
            | b"line"
            | b"arc"
            | b"spiral"
            | b"poly3"
            | b"paramPoly3"
            | b"elevation"
            | b"superelevation"
            | b"laneOffset"
            | b"laneSection"
            | b"lane"
            | b"width"
            | b"border"
            | b"junction"
            | b"connection"
            | b"laneLink"
    )
}

/// Longest road or geometry accepted (1000 km). Longer values are corrupt data, and would only
/// make the load-time tables and the spatial index explode.
const MAX_LENGTH: f64 = 1.0e6;

fn parse_finite(raw: &str) -> Result<f64, &'static str> {
    let t = raw.trim();
    // Fast path: a correctly rounded parser over the whole text; anything it does not take
    // (or that is not finite) goes the standard way, so accepted inputs and values are those
    // of `str::parse`.
    if let Ok(v) = fast_float2::parse::<f64, _>(t) {
        if v.is_finite() {
            return Ok(v);
        }
    }
    match t.parse::<f64>() {
        Ok(v) if v.is_finite() => Ok(v),
        Ok(_) => Err("not a finite number"),
        Err(_) => Err("not a number"),
    }
}

/// Incremental byte-offset → line number (positions only move forward while reading), so
/// error messages can name a line without rescanning a 2 MB file for every element.
struct LineCounter<'s> {
    src: &'s [u8],
    pos: usize,
    line: usize,
}

impl LineCounter<'_> {
    fn line_at(&mut self, pos: usize) -> usize {
        let end = pos.min(self.src.len());
        if end < self.pos {
            self.pos = 0;
            self.line = 1;
        }
        // memchr's vector search: a plain byte filter here cost a tenth of the whole parse.
        self.line += memchr::memchr_iter(b'\n', self.src.get(self.pos..end).unwrap_or(&[])).count();
        self.pos = end;
        self.line
    }
}

/// Partially built geometry header waiting for its primitive child.
struct PendingGeometry {
    s: f64,
    x: f64,
    y: f64,
    hdg: f64,
    length: f64,
    kind: Option<GeometryKind>,
    line: usize,
}

/// Parses a whole document.
pub(crate) fn parse(src: &str) -> Result<Parsed, Error> {
    // A comment (or anything else) before `<?xml` makes the declaration illegal in strict XML;
    // maps in the wild have it, so the declaration is simply ignored wherever it is.
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut reader = Reader::from_str(src);
    reader.config_mut().trim_text(false);
    reader.config_mut().check_end_names = true;

    // Open element names; the strings are kept and overwritten (`depth` are in use), so a
    // document's thousands of elements do not allocate a name each.
    let mut stack: Vec<String> = Vec::new();
    let mut depth = 0usize;
    let mut header = Header::default();
    let mut saw_root = false;
    let mut roads: Vec<Road> = Vec::new();
    let mut junctions: Vec<Junction> = Vec::new();
    let mut road: Option<Road> = None;
    let mut geom: Option<PendingGeometry> = None;
    let mut section: Option<LaneSection> = None;
    let mut lane: Option<(Lane, String)> = None; // lane + side
    let mut junction: Option<Junction> = None;
    let mut connection: Option<Connection> = None;
    let mut geo_text: Option<String> = None;

    let mut lines = LineCounter {
        src: src.as_bytes(),
        pos: 0,
        line: 1,
    };
    loop {
        let pos = reader.buffer_position() as usize;
        let line = lines.line_at(pos);
        let ev = match reader.read_event() {
            Ok(ev) => ev,
            Err(e) => {
                let at = lines.line_at(reader.error_position() as usize);
                return Err(Error::Xml {
                    line: at,
                    message: e.to_string(),
                });
            }
        };
        match ev {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let empty = matches!(ev, Event::Empty(_));
                let at = Attrs::new(e, line)?;
                let name: &str = &at.element;
                let open = &stack[..depth];
                let parent = open.last().map(String::as_str).unwrap_or("");
                let grand = if open.len() >= 2 {
                    open[open.len() - 2].as_str()
                } else {
                    ""
                };
                match (name, parent) {
                    ("OpenDRIVE", "") => saw_root = true,
                    ("header", "OpenDRIVE") => {
                        header.rev_major = at.int("revMajor").map(|v| v.max(0) as u32).unwrap_or(1);
                        header.rev_minor = at.int("revMinor").map(|v| v.max(0) as u32).unwrap_or(4);
                        header.name = at.get("name").unwrap_or("").to_string();
                        header.vendor = at.get("vendor").unwrap_or("").to_string();
                    }
                    ("geoReference", "header") => geo_text = Some(String::new()),
                    ("offset", "header") => {
                        header.offset = Some(Offset {
                            x: at.num_or("x", 0.0)?,
                            y: at.num_or("y", 0.0)?,
                            z: at.num_or("z", 0.0)?,
                            hdg: at.num_or("hdg", 0.0)?,
                        })
                    }
                    ("road", "OpenDRIVE") => {
                        let rule = match at.get("rule").map(|r| r.trim().to_ascii_uppercase()) {
                            Some(r) if r == "LHT" => TrafficRule::Lht,
                            _ => TrafficRule::Rht,
                        };
                        let id = at.string("id")?;
                        road = Some(Road {
                            shared_id: std::sync::Arc::from(id.as_str()),
                            id,
                            name: at.get("name").unwrap_or("").to_string(),
                            length: {
                                let l = at.num("length")?;
                                if !(0.0..=MAX_LENGTH).contains(&l) {
                                    return Err(at.invalid(
                                        "length",
                                        at.get("length").unwrap_or(""),
                                        "must be between 0 and 1000 km",
                                    ));
                                }
                                l
                            },
                            junction: at.get("junction").unwrap_or("-1").trim().to_string(),
                            rule,
                            predecessor: None,
                            successor: None,
                            plan_view: Vec::new(),
                            elevation: Vec::new(),
                            superelevation: Vec::new(),
                            lane_offsets: Vec::new(),
                            lane_sections: Vec::new(),
                        });
                    }
                    ("predecessor" | "successor", "link") if grand == "road" => {
                        if let Some(r) = road.as_mut() {
                            let l = RoadLink {
                                element_type: at.get("elementType").unwrap_or("road").to_string(),
                                element_id: at.string("elementId")?,
                                contact_point: at.get("contactPoint").map(str::to_string),
                            };
                            if name == "predecessor" {
                                r.predecessor = Some(l)
                            } else {
                                r.successor = Some(l)
                            }
                        }
                    }
                    ("predecessor" | "successor", "link") if grand == "lane" => {
                        if let Some((l, _)) = lane.as_mut() {
                            let id = at.int("id")?;
                            if name == "predecessor" {
                                l.predecessor = Some(id)
                            } else {
                                l.successor = Some(id)
                            }
                        }
                    }
                    ("geometry", "planView") => {
                        let length = at.num("length")?;
                        if length < 0.0 {
                            return Err(at.invalid(
                                "length",
                                at.get("length").unwrap_or(""),
                                "negative length",
                            ));
                        }
                        geom = Some(PendingGeometry {
                            s: at.num("s")?,
                            x: at.num("x")?,
                            y: at.num("y")?,
                            hdg: at.num("hdg")?,
                            length,
                            kind: None,
                            line,
                        });
                    }
                    ("line" | "arc" | "spiral" | "poly3" | "paramPoly3", "geometry") => {
                        let kind = match name {
                            "line" => GeometryKind::Line,
                            "arc" => GeometryKind::Arc {
                                curvature: at.num("curvature")?,
                            },
                            "spiral" => GeometryKind::Spiral {
                                curv_start: at.num("curvStart")?,
                                curv_end: at.num("curvEnd")?,
                            },
                            "poly3" => GeometryKind::Poly3 {
                                a: at.num("a")?,
                                b: at.num("b")?,
                                c: at.num("c")?,
                                d: at.num("d")?,
                            },
                            _ => {
                                let p_range = match at.get("pRange").map(str::trim) {
                                    None | Some("normalized") => PRange::Normalized,
                                    Some("arcLength") => PRange::ArcLength,
                                    Some(other) => {
                                        return Err(at.invalid(
                                            "pRange",
                                            other,
                                            "expected \"arcLength\" or \"normalized\"",
                                        ))
                                    }
                                };
                                GeometryKind::ParamPoly3 {
                                    u: [at.num("aU")?, at.num("bU")?, at.num("cU")?, at.num("dU")?],
                                    v: [at.num("aV")?, at.num("bV")?, at.num("cV")?, at.num("dV")?],
                                    p_range,
                                }
                            }
                        };
                        if let Some(g) = geom.as_mut() {
                            g.kind = Some(kind);
                        }
                    }
                    ("elevation", "elevationProfile") => {
                        if let Some(r) = road.as_mut() {
                            r.elevation.push(at.poly("s")?)
                        }
                    }
                    ("superelevation", "lateralProfile") => {
                        if let Some(r) = road.as_mut() {
                            r.superelevation.push(at.poly("s")?)
                        }
                    }
                    ("laneOffset", "lanes") => {
                        if let Some(r) = road.as_mut() {
                            r.lane_offsets.push(at.poly("s")?)
                        }
                    }
                    ("laneSection", "lanes") => {
                        let single = at
                            .get("singleSide")
                            .map(|v| v.trim() == "true")
                            .unwrap_or(false);
                        section = Some(LaneSection {
                            s: at.num("s")?,
                            single_side: single,
                            left: vec![],
                            center: vec![],
                            right: vec![],
                        });
                    }
                    ("lane", "left" | "center" | "right") if section.is_some() => {
                        let level = matches!(at.get("level").map(str::trim), Some("true" | "1"));
                        let l = Lane {
                            id: at.int("id")?,
                            lane_type: at.get("type").unwrap_or("none").trim().to_string(),
                            level,
                            widths: vec![],
                            borders: vec![],
                            predecessor: None,
                            successor: None,
                        };
                        lane = Some((l, parent.to_string()));
                    }
                    ("width", "lane") => {
                        if let Some((l, _)) = lane.as_mut() {
                            l.widths.push(at.poly("sOffset")?)
                        }
                    }
                    ("border", "lane") => {
                        if let Some((l, _)) = lane.as_mut() {
                            l.borders.push(at.poly("sOffset")?)
                        }
                    }
                    ("junction", "OpenDRIVE") => {
                        junction = Some(Junction {
                            id: at.string("id")?,
                            name: at.get("name").unwrap_or("").to_string(),
                            junction_type: at.get("type").unwrap_or("default").trim().to_string(),
                            connections: vec![],
                        })
                    }
                    ("connection", "junction") => {
                        connection = Some(Connection {
                            id: at.get("id").unwrap_or("").trim().to_string(),
                            incoming_road: at.get("incomingRoad").unwrap_or("").trim().to_string(),
                            connecting_road: at.get("connectingRoad").map(|s| s.trim().to_string()),
                            linked_road: at.get("linkedRoad").map(|s| s.trim().to_string()),
                            contact_point: at.get("contactPoint").map(|s| s.trim().to_string()),
                            lane_links: vec![],
                        })
                    }
                    ("laneLink", "connection") => {
                        if let Some(c) = connection.as_mut() {
                            c.lane_links.push((at.int("from")?, at.int("to")?))
                        }
                    }
                    _ => {}
                }
                if !saw_root && name != "OpenDRIVE" {
                    return Err(Error::Structure(format!(
                        "root element is <{name}>, expected <OpenDRIVE> (line {line})"
                    )));
                }
                if empty {
                    close(
                        name,
                        &stack[..depth],
                        &mut Closers {
                            road: &mut road,
                            roads: &mut roads,
                            geom: &mut geom,
                            section: &mut section,
                            lane: &mut lane,
                            junction: &mut junction,
                            junctions: &mut junctions,
                            connection: &mut connection,
                            header: &mut header,
                            geo_text: &mut geo_text,
                        },
                    )?;
                } else {
                    match stack.get_mut(depth) {
                        Some(slot) => {
                            slot.clear();
                            slot.push_str(name);
                        }
                        None => stack.push(name.to_string()),
                    }
                    depth += 1;
                }
            }
            Event::End(ref e) => {
                let name = String::from_utf8_lossy(e.local_name().into_inner());
                depth = depth.saturating_sub(1);
                close(
                    &name,
                    &stack[..depth],
                    &mut Closers {
                        road: &mut road,
                        roads: &mut roads,
                        geom: &mut geom,
                        section: &mut section,
                        lane: &mut lane,
                        junction: &mut junction,
                        junctions: &mut junctions,
                        connection: &mut connection,
                        header: &mut header,
                        geo_text: &mut geo_text,
                    },
                )?;
            }
            Event::Text(ref t) => {
                if let Some(g) = geo_text.as_mut() {
                    let txt = t
                        .unescape()
                        .map(|c| c.into_owned())
                        .unwrap_or_else(|_| String::from_utf8_lossy(t).into_owned());
                    g.push_str(&txt);
                }
            }
            Event::CData(ref t) => {
                if let Some(g) = geo_text.as_mut() {
                    g.push_str(&String::from_utf8_lossy(t));
                }
            }
            Event::Eof => {
                if let Some(open) = stack[..depth].last() {
                    return Err(Error::Xml {
                        line,
                        message: format!("document ends inside <{open}>"),
                    });
                }
                break;
            }
            _ => {}
        }
    }
    if !saw_root {
        return Err(Error::Structure("no <OpenDRIVE> root element".into()));
    }
    Ok(Parsed {
        header,
        roads,
        junctions,
    })
}

struct Closers<'a> {
    road: &'a mut Option<Road>,
    roads: &'a mut Vec<Road>,
    geom: &'a mut Option<PendingGeometry>,
    section: &'a mut Option<LaneSection>,
    lane: &'a mut Option<(Lane, String)>,
    junction: &'a mut Option<Junction>,
    junctions: &'a mut Vec<Junction>,
    connection: &'a mut Option<Connection>,
    header: &'a mut Header,
    geo_text: &'a mut Option<String>,
}

/// Finishes the object an element built when the element closes. `stack` holds the parents.
fn close(name: &str, stack: &[String], c: &mut Closers<'_>) -> Result<(), Error> {
    let parent = stack.last().map(String::as_str).unwrap_or("");
    match (name, parent) {
        ("geoReference", "header") => {
            if let Some(t) = c.geo_text.take() {
                let t = t.trim().to_string();
                c.header.geo_reference = if t.is_empty() { None } else { Some(t) };
            }
        }
        ("geometry", "planView") => {
            if let Some(g) = c.geom.take() {
                let kind = g.kind.ok_or_else(|| {
                    Error::Structure(format!(
                        "<geometry> at line {} has no line/arc/spiral/poly3/paramPoly3 child",
                        g.line
                    ))
                })?;
                if let Some(r) = c.road.as_mut() {
                    r.plan_view
                        .push(Geometry::new(g.s, g.x, g.y, g.hdg, g.length, kind));
                }
            }
        }
        ("lane", "left" | "center" | "right") => {
            if let (Some((mut l, side)), Some(sec)) = (c.lane.take(), c.section.as_mut()) {
                l.widths.sort_by(|a, b| a.s.total_cmp(&b.s));
                l.borders.sort_by(|a, b| a.s.total_cmp(&b.s));
                match side.as_str() {
                    "left" => sec.left.push(l),
                    "right" => sec.right.push(l),
                    _ => sec.center.push(l),
                }
            }
        }
        ("laneSection", "lanes") => {
            if let (Some(mut sec), Some(r)) = (c.section.take(), c.road.as_mut()) {
                sec.left.sort_by_key(|l| l.id);
                sec.right.sort_by_key(|l| -l.id);
                r.lane_sections.push(sec);
            }
        }
        ("road", "OpenDRIVE") => {
            if let Some(mut r) = c.road.take() {
                r.plan_view.sort_by(|a, b| a.s.total_cmp(&b.s));
                r.lane_sections.sort_by(|a, b| a.s.total_cmp(&b.s));
                r.lane_offsets.sort_by(|a, b| a.s.total_cmp(&b.s));
                r.elevation.sort_by(|a, b| a.s.total_cmp(&b.s));
                r.superelevation.sort_by(|a, b| a.s.total_cmp(&b.s));
                if r.plan_view.is_empty() {
                    return Err(Error::Structure(format!(
                        "road \"{}\" has no <planView> geometry",
                        r.id
                    )));
                }
                c.roads.push(r);
            }
        }
        ("connection", "junction") => {
            if let (Some(conn), Some(j)) = (c.connection.take(), c.junction.as_mut()) {
                j.connections.push(conn);
            }
        }
        ("junction", "OpenDRIVE") => {
            if let Some(j) = c.junction.take() {
                c.junctions.push(j);
            }
        }
        _ => {}
    }
    Ok(())
}
