//! A small XML tree with line numbers (quick-xml underneath): every element keeps the line it
//! starts on, so that the reader can name `file:line` for anything it cannot honour.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use quick_xml::events::Event;
use quick_xml::Reader;

use crate::Error;

/// One element: name, attributes (in document order), child elements, text, line.
#[derive(Debug, Clone)]
pub struct Node {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Node>,
    pub text: String,
    pub line: usize,
    pub file: Arc<PathBuf>,
}

impl Node {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }

    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Node> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }

    /// `file:line` of this element.
    pub fn at(&self) -> String {
        format!("{}:{}", self.file.display(), self.line)
    }

    /// An error at this element.
    pub fn err(&self, reason: impl Into<String>) -> Error {
        Error::At {
            at: self.at(),
            element: self.name.clone(),
            reason: reason.into(),
        }
    }

    /// Rejects every attribute and child element not in the lists: nothing in a file is
    /// silently ignored.
    pub fn check(&self, attrs: &[&str], children: &[&str]) -> Result<(), Error> {
        for (k, _) in &self.attrs {
            if !attrs.contains(&k.as_str()) {
                return Err(self.err(format!("unsupported attribute '{k}'")));
            }
        }
        for c in &self.children {
            if !children.contains(&c.name.as_str()) {
                return Err(c.err(format!("unsupported element inside <{}>", self.name)));
            }
        }
        Ok(())
    }

    /// The single child element (for choice elements such as `<Position>`).
    pub fn only_child(&self) -> Result<&Node, Error> {
        match self.children.as_slice() {
            [c] => Ok(c),
            [] => Err(self.err("expected one child element, found none")),
            _ => {
                Err(self.children[1]
                    .err(format!("<{}> takes exactly one child element", self.name)))
            }
        }
    }

    /// A required child.
    pub fn req(&self, name: &str) -> Result<&Node, Error> {
        self.child(name)
            .ok_or_else(|| self.err(format!("missing <{name}>")))
    }
}

/// Parses a file into its root element.
pub fn parse_file(path: &Path) -> Result<Node, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| Error::Io {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    parse_str(&text, path)
}

/// Parses a document; `path` names it in errors.
pub fn parse_str(src: &str, path: &Path) -> Result<Node, Error> {
    let file = Arc::new(path.to_path_buf());
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut reader = Reader::from_str(src);
    reader.config_mut().check_end_names = true;
    let bytes = src.as_bytes();
    let mut line = 1usize;
    let mut counted = 0usize;
    let mut line_at = |pos: usize| {
        let pos = pos.min(bytes.len());
        if pos > counted {
            line += bytes[counted..pos].iter().filter(|&&b| b == b'\n').count();
            counted = pos;
        }
        line
    };
    let mut stack: Vec<Node> = Vec::new();
    let mut root: Option<Node> = None;
    loop {
        let pos = reader.buffer_position() as usize;
        let ev = reader.read_event();
        let ev = match ev {
            Ok(ev) => ev,
            Err(e) => {
                let l = line_at(reader.error_position() as usize);
                return Err(Error::Xml {
                    at: format!("{}:{l}", file.display()),
                    reason: e.to_string(),
                });
            }
        };
        // The event starts after leading whitespace: count lines up to its '<'.
        let start = pos
            + bytes[pos.min(bytes.len())..]
                .iter()
                .take_while(|b| b.is_ascii_whitespace())
                .count();
        let l = line_at(start);
        let xml_err = |reason: String| Error::Xml {
            at: format!("{}:{l}", file.display()),
            reason,
        };
        match ev {
            Event::Start(ref e) | Event::Empty(ref e) => {
                let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                let mut attrs = Vec::new();
                for a in e.attributes() {
                    let a = a.map_err(|e| xml_err(e.to_string()))?;
                    let k = String::from_utf8_lossy(a.key.as_ref()).into_owned();
                    let v = a
                        .unescape_value()
                        .map_err(|e| xml_err(e.to_string()))?
                        .into_owned();
                    attrs.push((k, v));
                }
                let node = Node {
                    name,
                    attrs,
                    children: Vec::new(),
                    text: String::new(),
                    line: l,
                    file: file.clone(),
                };
                if matches!(ev, Event::Empty(_)) {
                    match stack.last_mut() {
                        Some(p) => p.children.push(node),
                        None => root = Some(node),
                    }
                } else {
                    stack.push(node);
                }
            }
            Event::End(_) => {
                let Some(node) = stack.pop() else {
                    return Err(xml_err("unbalanced end tag".into()));
                };
                match stack.last_mut() {
                    Some(p) => p.children.push(node),
                    None => root = Some(node),
                }
            }
            Event::Text(t) => {
                if let Some(p) = stack.last_mut() {
                    let t = t.unescape().map_err(|e| xml_err(e.to_string()))?;
                    p.text.push_str(t.trim());
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    if !stack.is_empty() {
        return Err(Error::Xml {
            at: format!("{}:{line}", file.display()),
            reason: "unexpected end of file".into(),
        });
    }
    root.ok_or_else(|| Error::Xml {
        at: format!("{}:1", file.display()),
        reason: "no root element".into(),
    })
}
