//! The rating tool's workbook as a file: read every sheet's cells with `calamine` (a maintained
//! pure-Rust spreadsheet reader), and write measured values back by editing only the cells
//! concerned inside the worksheet XML of the zip package. Every other part of the package
//! (styles, data validation, the other sheets, the tool's integrity sheet) is copied byte for
//! byte, compressed data included, so the file stays what the rating tool wrote.

use std::collections::BTreeMap;
use std::io::{Cursor, Read, Write};

use anyhow::{anyhow, bail, Context};
use calamine::{Data, Reader, Xlsx};

/// One cell read from a sheet: 1-based row, 0-based column (A = 0).
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Empty,
    Number(f64),
    Text(String),
    Bool(bool),
}

impl Cell {
    /// The cell as text (numbers in their shortest form); `None` when empty.
    pub fn text(&self) -> Option<String> {
        match self {
            Cell::Empty => None,
            Cell::Number(v) => Some(format!("{v}")),
            Cell::Text(s) => {
                let t = s.trim();
                (!t.is_empty()).then(|| t.to_string())
            }
            Cell::Bool(b) => Some(if *b { "TRUE".into() } else { "FALSE".into() }),
        }
    }
}

/// A sheet's cells as a dense grid (`rows[r][c]`, row 0 = sheet row 1).
#[derive(Debug, Clone, Default)]
pub struct Grid {
    pub rows: Vec<Vec<Cell>>,
}

impl Grid {
    pub fn get(&self, row0: usize, col: usize) -> &Cell {
        self.rows
            .get(row0)
            .and_then(|r| r.get(col))
            .unwrap_or(&Cell::Empty)
    }
}

/// What to write into a cell.
#[derive(Debug, Clone, PartialEq)]
pub enum NewValue {
    Number(f64),
    Text(String),
}

/// The workbook: the package bytes plus its sheets' names in order.
pub struct Workbook {
    bytes: Vec<u8>,
    pub sheet_names: Vec<String>,
}

impl Workbook {
    pub fn open(path: &std::path::Path) -> anyhow::Result<Workbook> {
        let bytes =
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        Workbook::from_bytes(bytes).with_context(|| format!("{}", path.display()))
    }

    pub fn from_bytes(bytes: Vec<u8>) -> anyhow::Result<Workbook> {
        // An operator who picked the wrong file hears what it is, not the zip reader's detail.
        if bytes.starts_with(&[0xD0, 0xCF, 0x11, 0xE0]) {
            bail!("not an Excel workbook (.xlsx): this is an old .xls file; save it as .xlsx");
        }
        if !bytes.starts_with(b"PK\x03\x04") {
            bail!("not an Excel workbook (.xlsx): send the rating tool's ca_preprocessed_template.xlsx");
        }
        check_references(&bytes)?;
        let wb: Xlsx<_> = Xlsx::new(Cursor::new(bytes.as_slice())).map_err(|_| {
            anyhow!(
                "not an Excel workbook (.xlsx): the file is damaged or another kind of zip \
                 package (no readable workbook inside)"
            )
        })?;
        let sheet_names = wb.sheet_names();
        Ok(Workbook { bytes, sheet_names })
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The cells of `sheet`.
    pub fn grid(&self, sheet: &str) -> anyhow::Result<Grid> {
        let mut wb: Xlsx<_> = Xlsx::new(Cursor::new(self.bytes.as_slice()))
            .map_err(|e| anyhow!("not an .xlsx workbook: {e}"))?;
        let range = wb
            .worksheet_range(sheet)
            .map_err(|e| anyhow!("sheet '{sheet}': {e}"))?;
        let mut grid = Grid::default();
        let Some((r0, c0)) = range.start() else {
            return Ok(grid);
        };
        let (r0, c0) = (r0 as usize, c0 as usize);
        grid.rows = vec![Vec::new(); r0];
        for row in range.rows() {
            let mut out = vec![Cell::Empty; c0];
            out.extend(row.iter().map(|d| match d {
                Data::Empty => Cell::Empty,
                Data::Int(i) => Cell::Number(*i as f64),
                Data::Float(f) => Cell::Number(*f),
                Data::String(s) => Cell::Text(s.clone()),
                Data::Bool(b) => Cell::Bool(*b),
                Data::DateTime(d) => Cell::Number(d.as_f64()),
                Data::DateTimeIso(s) | Data::DurationIso(s) => Cell::Text(s.clone()),
                Data::Error(e) => Cell::Text(format!("#{e:?}")),
            }));
            grid.rows.push(out);
        }
        Ok(grid)
    }

    /// A copy of the package with `edits` applied: sheet name → (1-based row, 0-based column)
    /// → value. Only the named worksheets' XML parts are rewritten.
    pub fn with_edits(
        &self,
        edits: &BTreeMap<String, BTreeMap<(u32, u32), NewValue>>,
    ) -> anyhow::Result<Vec<u8>> {
        let parts = sheet_parts(&self.bytes)?;
        let mut by_part: BTreeMap<String, &BTreeMap<(u32, u32), NewValue>> = BTreeMap::new();
        for (sheet, cells) in edits {
            let part = parts
                .get(sheet)
                .ok_or_else(|| anyhow!("the workbook has no sheet '{sheet}'"))?;
            by_part.insert(part.clone(), cells);
        }
        let mut zin = zip::ZipArchive::new(Cursor::new(self.bytes.as_slice()))
            .context("not a zip package")?;
        let mut out = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for i in 0..zin.len() {
            let name = zin.by_index_raw(i)?.name()?.to_string();
            match by_part.get(&name) {
                None => {
                    let f = zin.by_index_raw(i)?;
                    out.raw_copy_file(f)?;
                }
                Some(cells) => {
                    let mut f = zin.by_index(i)?;
                    let mut xml = String::new();
                    f.read_to_string(&mut xml)
                        .with_context(|| format!("{name}: not UTF-8 XML"))?;
                    drop(f);
                    let patched = set_cells(&xml, cells).with_context(|| name.clone())?;
                    let opts = zip::write::SimpleFileOptions::default()
                        .compression_method(zip::CompressionMethod::Deflated);
                    out.start_file(name.as_str(), opts)?;
                    out.write_all(patched.as_bytes())?;
                }
            }
        }
        Ok(out.finish()?.into_inner())
    }
}

/// Sheet name → its worksheet part inside the package (`xl/worksheets/sheetN.xml`).
fn sheet_parts(bytes: &[u8]) -> anyhow::Result<BTreeMap<String, String>> {
    // An operator who picked the wrong file gets what it is not, not the zip reader's detail.
    let mut z = zip::ZipArchive::new(Cursor::new(bytes)).map_err(|_| {
        anyhow::anyhow!("not an Excel workbook (.xlsx): the file is not an Office Open XML package")
    })?;
    let read = |z: &mut zip::ZipArchive<Cursor<&[u8]>>, n: &str| -> anyhow::Result<String> {
        let mut s = String::new();
        z.by_name(n)
            .map_err(|_| anyhow::anyhow!("not an Excel workbook (.xlsx): it has no {n}"))?
            .read_to_string(&mut s)?;
        Ok(s)
    };
    let wb = read(&mut z, "xl/workbook.xml")?;
    let rels = read(&mut z, "xl/_rels/workbook.xml.rels")?;
    let mut targets = BTreeMap::new();
    for tag in tags(&rels, "Relationship") {
        if let (Some(id), Some(t)) = (attr(tag, "Id"), attr(tag, "Target")) {
            let path = if let Some(abs) = t.strip_prefix('/') {
                abs.to_string()
            } else {
                format!("xl/{t}")
            };
            targets.insert(id, path);
        }
    }
    let mut out = BTreeMap::new();
    for tag in tags(&wb, "sheet") {
        let name = attr(tag, "name").map(|n| unescape(&n));
        let rid = attr_local(tag, "id");
        if let (Some(name), Some(rid)) = (name, rid) {
            if let Some(t) = targets.get(&rid) {
                out.insert(name, t.clone());
            }
        }
    }
    Ok(out)
}

/// The start tags `<name …>` / `<name …/>` in `xml` (the text between `<` and `>`).
fn tags<'a>(xml: &'a str, name: &str) -> Vec<&'a str> {
    let open = format!("<{name}");
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = xml[i..].find(&open) {
        let s = i + p;
        let after = xml[s + open.len()..].chars().next();
        if matches!(after, Some(' ' | '/' | '>' | '\n' | '\r' | '\t')) {
            if let Some(e) = xml[s..].find('>') {
                out.push(&xml[s..s + e + 1]);
                i = s + e + 1;
                continue;
            }
        }
        i = s + open.len();
    }
    out
}

/// The value of attribute `name` in a start tag.
fn attr(tag: &str, name: &str) -> Option<String> {
    let mut i = 0;
    while let Some(p) = tag[i..].find(name) {
        let s = i + p;
        let before = tag[..s].chars().last();
        let rest = &tag[s + name.len()..];
        if matches!(before, Some(' ' | '\n' | '\r' | '\t')) {
            let rest = rest.trim_start();
            if let Some(rest) = rest.strip_prefix('=') {
                let rest = rest.trim_start();
                let q = rest.chars().next()?;
                if q == '"' || q == '\'' {
                    let end = rest[1..].find(q)?;
                    return Some(rest[1..1 + end].to_string());
                }
            }
        }
        i = s + name.len();
    }
    None
}

/// The value of a namespaced attribute by its local name (`r:id`, `ns1:id`, …).
fn attr_local(tag: &str, local: &str) -> Option<String> {
    let suffix = format!(":{local}=");
    let p = tag.find(&suffix)?;
    let start = tag[..p].rfind([' ', '\n', '\t', '\r'])? + 1;
    attr(tag, &tag[start..p + suffix.len() - 1])
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// `A`, `B`, …, `Z`, `AA`, … for a 0-based column.
pub fn column_name(col: u32) -> String {
    let mut n = col + 1;
    let mut s = Vec::new();
    while n > 0 {
        let r = (n - 1) % 26;
        s.push(b'A' + r as u8);
        n = (n - 1) / 26;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// 0-based column of a cell reference such as `N12`.
fn ref_column(r: &str) -> Option<u32> {
    let letters: String = r.chars().take_while(|c| c.is_ascii_uppercase()).collect();
    if letters.is_empty() {
        return None;
    }
    if letters.len() > MAX_COLUMN_LETTERS {
        return None;
    }
    let mut n = 0u32;
    for b in letters.bytes() {
        n = n * 26 + u32::from(b - b'A' + 1);
    }
    Some(n - 1)
}

/// A sheet ends at column XFD (three letters) and row 1 048 576 (seven digits).
const MAX_COLUMN_LETTERS: usize = 3;
const MAX_ROW_DIGITS: usize = 7;
/// The most one XML part may inflate to while its references are checked; the rating tool's
/// largest sheet is well under 1 MiB.
const MAX_PART_BYTES: u64 = 64 << 20;

/// Every cell reference and range (`r="…"`, `ref="…"`) in the package's XML parts is within a
/// sheet's bounds. The spreadsheet reader accumulates a reference's column letters and row
/// digits without a bound, so a damaged file with `AAAAAAAA1` must be refused before it is read.
fn check_references(bytes: &[u8]) -> anyhow::Result<()> {
    let Ok(mut z) = zip::ZipArchive::new(Cursor::new(bytes)) else {
        // The reader itself names a package that is no zip.
        return Ok(());
    };
    for i in 0..z.len() {
        let Ok(f) = z.by_index(i) else { continue };
        let Ok(name) = f.name().map(|n| n.to_string()) else {
            continue;
        };
        if !(name.starts_with("xl/") && name.ends_with(".xml")) {
            continue;
        }
        let mut xml = Vec::new();
        if f.take(MAX_PART_BYTES + 1).read_to_end(&mut xml).is_err() {
            bail!("not an Excel workbook (.xlsx): the file is damaged ({name} cannot be inflated)");
        }
        if xml.len() as u64 > MAX_PART_BYTES {
            bail!(
                "not an Excel workbook (.xlsx): {name} inflates to more than {} MiB",
                MAX_PART_BYTES >> 20
            );
        }
        if let Some(bad) = reference_out_of_bounds(&xml) {
            bail!(
                "not an Excel workbook (.xlsx): {name} has the cell reference '{bad}', beyond a \
                 sheet's last cell XFD1048576; the file is damaged"
            );
        }
    }
    Ok(())
}

/// The first `r`/`ref` attribute value in `xml` whose column letters or row digits exceed a
/// sheet's bounds, shortened for a message.
fn reference_out_of_bounds(xml: &[u8]) -> Option<String> {
    let ws = |b: u8| matches!(b, b' ' | b'\t' | b'\r' | b'\n');
    let mut i = 0;
    while i + 1 < xml.len() {
        if !(ws(xml[i]) && xml[i + 1] == b'r') {
            i += 1;
            continue;
        }
        let mut j = i + 2;
        if xml[j..].starts_with(b"ef") {
            j += 2;
        }
        while j < xml.len() && ws(xml[j]) {
            j += 1;
        }
        if xml.get(j) != Some(&b'=') {
            i += 1;
            continue;
        }
        j += 1;
        while j < xml.len() && ws(xml[j]) {
            j += 1;
        }
        let Some(&q) = xml.get(j).filter(|&&q| q == b'"' || q == b'\'') else {
            i += 1;
            continue;
        };
        let start = j + 1;
        let end = xml[start..]
            .iter()
            .position(|&b| b == q)
            .map_or(xml.len(), |p| start + p);
        let value = &xml[start..end];
        for token in value.split(|&b| b == b':' || ws(b)) {
            let letters = token.iter().take_while(|b| b.is_ascii_alphabetic()).count();
            let digits = token[letters..]
                .iter()
                .take_while(|b| b.is_ascii_digit())
                .count();
            if letters > MAX_COLUMN_LETTERS || digits > MAX_ROW_DIGITS {
                let shown: String = String::from_utf8_lossy(value).chars().take(40).collect();
                return Some(shown);
            }
        }
        i = end;
    }
    None
}

fn cell_xml(row: u32, col: u32, style: Option<&str>, v: &NewValue) -> String {
    let r = format!("{}{row}", column_name(col));
    let s = style.map(|s| format!(" s=\"{s}\"")).unwrap_or_default();
    match v {
        NewValue::Number(x) => format!("<c r=\"{r}\"{s}><v>{x}</v></c>"),
        NewValue::Text(t) => {
            format!(
                "<c r=\"{r}\"{s} t=\"inlineStr\"><is><t>{}</t></is></c>",
                escape(t)
            )
        }
    }
}

/// One element in a row: its column, byte span and style.
struct CellSpan {
    col: u32,
    start: usize,
    end: usize,
    style: Option<String>,
}

/// The `<c>` elements of a row's content.
fn row_cells(content: &str) -> anyhow::Result<Vec<CellSpan>> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = content[i..].find("<c") {
        let s = i + p;
        let after = content[s + 2..].chars().next();
        if !matches!(after, Some(' ' | '>' | '/' | '\n' | '\t' | '\r')) {
            i = s + 2;
            continue;
        }
        let tag_end = s + content[s..]
            .find('>')
            .ok_or_else(|| anyhow!("unterminated cell"))?;
        let tag = &content[s..=tag_end];
        let end = if tag.ends_with("/>") {
            tag_end + 1
        } else {
            s + content[s..]
                .find("</c>")
                .ok_or_else(|| anyhow!("unterminated cell"))?
                + 4
        };
        let r = attr(tag, "r").ok_or_else(|| anyhow!("a cell without a reference"))?;
        let col = ref_column(&r).ok_or_else(|| anyhow!("bad cell reference {r}"))?;
        out.push(CellSpan {
            col,
            start: s,
            end,
            style: attr(tag, "s"),
        });
        i = end;
    }
    Ok(out)
}

/// `xml` (a worksheet part) with the given cells set; rows and cells that do not exist yet are
/// inserted in order.
pub fn set_cells(xml: &str, cells: &BTreeMap<(u32, u32), NewValue>) -> anyhow::Result<String> {
    let mut by_row: BTreeMap<u32, Vec<(u32, &NewValue)>> = BTreeMap::new();
    for ((r, c), v) in cells {
        if *r == 0 {
            bail!("row numbers start at 1");
        }
        by_row.entry(*r).or_default().push((*c, v));
    }
    let sd = xml
        .find("<sheetData")
        .ok_or_else(|| anyhow!("worksheet without sheetData"))?;
    let sd_tag_end = sd
        + xml[sd..]
            .find('>')
            .ok_or_else(|| anyhow!("bad sheetData"))?;
    // `<sheetData/>`: expand to an element.
    let (head, body, tail) = if xml[..=sd_tag_end].ends_with("/>") {
        (
            format!("{}<sheetData>", &xml[..sd]),
            String::new(),
            format!("</sheetData>{}", &xml[sd_tag_end + 1..]),
        )
    } else {
        let close = xml
            .find("</sheetData>")
            .ok_or_else(|| anyhow!("unterminated sheetData"))?;
        (
            xml[..=sd_tag_end].to_string(),
            xml[sd_tag_end + 1..close].to_string(),
            xml[close..].to_string(),
        )
    };
    // Split the body into rows.
    let mut rows: Vec<(u32, String)> = Vec::new();
    let mut i = 0;
    while let Some(p) = body[i..].find("<row") {
        let s = i + p;
        let tag_end = s + body[s..]
            .find('>')
            .ok_or_else(|| anyhow!("unterminated row"))?;
        let tag = &body[s..=tag_end];
        let r: u32 = attr(tag, "r")
            .and_then(|v| v.parse().ok())
            .ok_or_else(|| anyhow!("a row without a number"))?;
        let end = if tag.ends_with("/>") {
            tag_end + 1
        } else {
            s + body[s..]
                .find("</row>")
                .ok_or_else(|| anyhow!("unterminated row {r}"))?
                + 6
        };
        rows.push((r, body[s..end].to_string()));
        i = end;
    }
    for (r, new_cells) in by_row {
        let idx = rows.iter().position(|(n, _)| *n >= r);
        let existing = idx.filter(|&k| rows[k].0 == r);
        let row_xml = match existing {
            Some(k) => rows[k].1.clone(),
            None => format!("<row r=\"{r}\"/>"),
        };
        let patched = patch_row(&row_xml, r, &new_cells)?;
        match (existing, idx) {
            (Some(k), _) => rows[k].1 = patched,
            (None, Some(k)) => rows.insert(k, (r, patched)),
            (None, None) => rows.push((r, patched)),
        }
    }
    let mut out = head;
    for (_, x) in rows {
        out.push_str(&x);
    }
    out.push_str(&tail);
    Ok(out)
}

fn patch_row(row_xml: &str, r: u32, new_cells: &[(u32, &NewValue)]) -> anyhow::Result<String> {
    let tag_end = row_xml.find('>').ok_or_else(|| anyhow!("bad row"))?;
    let (open, content, close) = if row_xml[..=tag_end].ends_with("/>") {
        (
            format!("{}>", row_xml[..tag_end - 1].trim_end()),
            String::new(),
            "</row>".to_string(),
        )
    } else {
        let c = row_xml.len() - "</row>".len();
        (
            row_xml[..=tag_end].to_string(),
            row_xml[tag_end + 1..c].to_string(),
            "</row>".to_string(),
        )
    };
    // The row's `spans` hint would no longer cover an inserted column: drop it (optional).
    let open = match attr(&open, "spans") {
        Some(sp) => open.replace(&format!(" spans=\"{sp}\""), ""),
        None => open,
    };
    let spans = row_cells(&content)?;
    let mut pieces: Vec<(u32, String)> = Vec::new();
    let mut last = 0;
    let mut between = String::new();
    for sp in &spans {
        between.push_str(&content[last..sp.start]);
        let new = new_cells.iter().find(|(c, _)| *c == sp.col);
        let x = match new {
            Some((c, v)) => cell_xml(r, *c, sp.style.as_deref(), v),
            None => content[sp.start..sp.end].to_string(),
        };
        pieces.push((sp.col, format!("{between}{x}")));
        between.clear();
        last = sp.end;
    }
    let trailing = content[last..].to_string();
    for (c, v) in new_cells {
        if !spans.iter().any(|s| s.col == *c) {
            let at = pieces.iter().position(|(col, _)| col > c);
            let x = (*c, cell_xml(r, *c, None, v));
            match at {
                Some(k) => pieces.insert(k, x),
                None => pieces.push(x),
            }
        }
    }
    let mut out = open;
    for (_, x) in pieces {
        out.push_str(&x);
    }
    out.push_str(&trailing);
    out.push_str(&close);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_that_is_no_workbook_is_named_so_without_the_zip_detail() {
        for (bytes, want) in [
            (&b"run,ttc\n1,2.5\n"[..], "send the rating tool's"),
            (
                &[0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1][..],
                "old .xls file",
            ),
            (&b"PK\x03\x04 truncated"[..], "damaged"),
        ] {
            let e = Workbook::from_bytes(bytes.to_vec())
                .err()
                .map(|e| format!("{e:#}"))
                .unwrap_or_default();
            assert!(e.contains(want), "{e}");
            assert!(e.starts_with("not an Excel workbook (.xlsx)"), "{e}");
            assert!(!e.contains("EOCD") && !e.contains("archive"), "{e}");
        }
    }

    #[test]
    fn columns_and_references() {
        assert_eq!(column_name(0), "A");
        assert_eq!(column_name(13), "N");
        assert_eq!(column_name(26), "AA");
        assert_eq!(ref_column("N12"), Some(13));
        assert_eq!(ref_column("AA3"), Some(26));
    }

    #[test]
    fn references_beyond_a_sheet_are_found_before_the_reader_sees_them() {
        let ok = br#"<worksheet><dimension ref="A1:XFD1048576"/><sheetData><row r="3"><c r="AB3" t="s"><v>0</v></c></row></sheetData><mergeCells><mergeCell ref = 'B2:C9'/></mergeCells></worksheet>"#;
        assert_eq!(reference_out_of_bounds(ok), None);
        for (xml, bad) in [
            (
                &br#"<row r="1"><c r="AAAAAAAAAAAAAAAAAAAAAAAAAAAAA1"/></row>"#[..],
                "AAAAAAAAAAAAAAAAAAAAAAAAAAAAA1",
            ),
            (&br#"<row r="99999999999999"/>"#[..], "99999999999999"),
            (
                &b"<dimension\nref='A1:B77777777777'/>"[..],
                "A1:B77777777777",
            ),
            (&br#"<c r="XFDA1"/>"#[..], "XFDA1"),
        ] {
            assert_eq!(reference_out_of_bounds(xml).as_deref(), Some(bad));
        }
        assert_eq!(ref_column("AAAAAAAAAAAA1"), None);
    }

    /// A damaged workbook the fuzzer found (a worksheet whose compressed data was altered, which
    /// inflates to a cell reference with a long run of column letters and made the spreadsheet
    /// reader overflow), and a sound package with such a reference: both refused, naming the part.
    #[test]
    fn a_workbook_with_an_endless_column_reference_is_refused_as_damaged() {
        let found = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fuzz/corpus/ncap_workbook/long_column_reference.xlsx"
        ))
        .expect("the regression input");
        let mut z = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default();
        for (name, xml) in [
            ("[Content_Types].xml", "<Types/>"),
            ("xl/workbook.xml", "<workbook/>"),
            (
                "xl/worksheets/sheet1.xml",
                r#"<worksheet><sheetData><row r="1"><c r="AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA1"><v>1</v></c></row></sheetData></worksheet>"#,
            ),
        ] {
            z.start_file(name, opts).expect("zip");
            z.write_all(xml.as_bytes()).expect("zip");
        }
        let sound = z.finish().expect("zip").into_inner();
        for (bytes, want) in [
            (found, "the file is damaged (xl/worksheets/"),
            (sound, "xl/worksheets/sheet1.xml has the cell reference 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA', beyond"),
        ] {
            let e = Workbook::from_bytes(bytes)
                .err()
                .map(|e| format!("{e:#}"))
                .unwrap_or_default();
            assert!(e.starts_with("not an Excel workbook (.xlsx): "), "{e}");
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn cells_are_replaced_and_inserted_in_order() {
        let xml = r#"<worksheet><sheetData><row r="1" spans="1:3"><c r="A1" t="s"><v>0</v></c><c r="C1" s="4"/></row><row r="3"><c r="B3"><v>2</v></c></row></sheetData></worksheet>"#;
        let mut cells = BTreeMap::new();
        cells.insert((1, 2), NewValue::Number(12.5));
        cells.insert((1, 1), NewValue::Text("A&B".into()));
        cells.insert((2, 0), NewValue::Number(0.0));
        cells.insert((4, 3), NewValue::Number(1.0));
        let out = set_cells(xml, &cells).expect("patch");
        assert_eq!(
            out,
            "<worksheet><sheetData><row r=\"1\"><c r=\"A1\" t=\"s\"><v>0</v></c><c r=\"B1\" t=\"inlineStr\"><is><t>A&amp;B</t></is></c><c r=\"C1\" s=\"4\"><v>12.5</v></c></row>\
<row r=\"2\"><c r=\"A2\"><v>0</v></c></row><row r=\"3\"><c r=\"B3\"><v>2</v></c></row><row r=\"4\"><c r=\"D4\"><v>1</v></c></row></sheetData></worksheet>"
        );
    }

    #[test]
    fn attributes_with_prefixes() {
        let tag = r#"<sheet name="FC - Car &amp; PTW verif." sheetId="8" r:id="rId8"/>"#;
        assert_eq!(
            attr(tag, "name").map(|n| unescape(&n)).as_deref(),
            Some("FC - Car & PTW verif.")
        );
        assert_eq!(attr_local(tag, "id").as_deref(), Some("rId8"));
        assert_eq!(attr(tag, "sheetId").as_deref(), Some("8"));
    }
}
