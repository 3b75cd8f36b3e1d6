//! The text of a file as the check APIs read it on a real desktop
//! ([`super::x11`], [`super::osworld`]): for a document an office application
//! saves compressed, its document text, so that "add a line and save" can be
//! checked in a `.docx`, `.xlsx`, `.odt`, `.ods` or `.gnumeric` as in a `.txt`.
//!
//! What a file is, is decided by its bytes, never by its name or the
//! application that wrote it:
//! - a zip archive holding an office document's main XML parts (OOXML's
//!   `word/document.xml`, `xl/sharedStrings.xml` and `xl/worksheets/*.xml`,
//!   `ppt/slides/*.xml`; OpenDocument's `content.xml`): the text of those parts;
//! - gzip whose content is XML (Gnumeric's workbooks, AbiWord's `.zabw`): the
//!   text of the decompressed XML;
//! - a PDF (`%PDF-`, as LibreOffice's Export as PDF writes it): the text its
//!   pages show, read by the `pdf-extract` crate (fonts' ToUnicode maps and
//!   encodings; typographic ligatures such as `ﬁ` spelled out), when its
//!   compressed streams stay within the bound below;
//! - anything else (plain text, an uncompressed XML file, a zip of photos, a
//!   PDF that cannot be read): the bytes as they are, read as UTF-8 (invalid
//!   sequences replaced), exactly as before.
//!
//! The text of XML is its character data with the tags left out and entities
//! decoded; a paragraph, heading, cell or row ends with a newline, and the
//! elements that stand for a space, a tab or a line break (`<text:s/>`,
//! `<w:tab/>`, `<text:line-break/>`) give that character. Whitespace-only text
//! that holds a line break is indentation and is left out.

use std::io::{Cursor, Read};

use quick_xml::events::{BytesStart, Event};
use quick_xml::Reader;

/// The most bytes read from one decompressed part (a larger part is cut there):
/// a small archive must not decompress into memory without bound.
const MAX_PART_BYTES: u64 = 64 << 20;

/// The XML parts whose text is an office document's text, by name prefix, in
/// the order their text is joined. A part matches when its name starts with a
/// prefix and ends with `.xml`.
const TEXT_PARTS: &[&str] = &[
    "word/document.xml",
    "xl/sharedStrings.xml",
    "xl/worksheets/sheet",
    "ppt/slides/slide",
    "content.xml",
];

/// Elements whose end ends a line of text: paragraphs and headings, shared
/// strings, cells and rows (OOXML, OpenDocument, Gnumeric).
const BLOCKS: &[&str] = &[
    "p",
    "h",
    "si",
    "c",
    "row",
    "table-cell",
    "table-row",
    "Cell",
];

/// The text of a file with content `bytes` (see the module's documentation).
pub fn text_of(bytes: &[u8]) -> String {
    document_text(bytes).unwrap_or_else(|| String::from_utf8_lossy(bytes).into_owned())
}

/// The document text of a zip office document or of gzip XML; None for any
/// other content (or one that cannot be read as such).
fn document_text(bytes: &[u8]) -> Option<String> {
    if bytes.starts_with(b"PK\x03\x04") {
        zip_text(bytes)
    } else if bytes.starts_with(b"%PDF-") {
        pdf_text(bytes)
    } else if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut xml = Vec::new();
        flate2::read::MultiGzDecoder::new(bytes)
            .take(MAX_PART_BYTES)
            .read_to_end(&mut xml)
            .ok()?;
        let s = String::from_utf8_lossy(&xml);
        let start = s.trim_start_matches('\u{feff}').trim_start();
        start.starts_with('<').then(|| xml_text(start)).flatten()
    } else {
        None
    }
}

/// The text a PDF's pages show; None when it cannot be read, or when its
/// compressed streams would inflate past [`MAX_PART_BYTES`] together (the
/// reader inflates every stream in memory, so that is checked first).
fn pdf_text(bytes: &[u8]) -> Option<String> {
    if bytes.len() as u64 > MAX_PART_BYTES || pdf_inflated_bytes(bytes) > MAX_PART_BYTES {
        return None;
    }
    // The reader panics on some malformed files: such a file is its bytes.
    let text = std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem(bytes))
        .ok()?
        .ok()?;
    Some(spell_ligatures(&text))
}

/// How many bytes the zlib streams of a PDF inflate to together, counted up to
/// one past [`MAX_PART_BYTES`] (no more is ever held).
fn pdf_inflated_bytes(bytes: &[u8]) -> u64 {
    let mut total = 0u64;
    let mut rest = bytes;
    while let Some(at) = find(rest, b"stream") {
        let after = &rest[at + b"stream".len()..];
        let ends_keyword = at >= 3 && &rest[at - 3..at] == b"end";
        let data = after
            .strip_prefix(b"\r\n")
            .or_else(|| after.strip_prefix(b"\n"))
            .filter(|_| !ends_keyword);
        rest = after;
        let Some(data) = data else { continue };
        let end = find(data, b"endstream").unwrap_or(data.len());
        let mut inflated = Vec::new();
        // A stream that is no zlib data (an image's DCT, a broken one) inflates
        // to what could be read of it, often nothing.
        let _ = flate2::read::ZlibDecoder::new(&data[..end])
            .take(MAX_PART_BYTES + 1 - total)
            .read_to_end(&mut inflated);
        total += inflated.len() as u64;
        if total > MAX_PART_BYTES {
            break;
        }
        rest = &data[end..];
    }
    total
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// `text` with the Unicode ligatures a typeset PDF may map its glyphs to
/// (U+FB00 to U+FB06) written as their letters: "ﬁgures" is "figures".
fn spell_ligatures(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\u{fb00}' => out.push_str("ff"),
            '\u{fb01}' => out.push_str("fi"),
            '\u{fb02}' => out.push_str("fl"),
            '\u{fb03}' => out.push_str("ffi"),
            '\u{fb04}' => out.push_str("ffl"),
            '\u{fb05}' | '\u{fb06}' => out.push_str("st"),
            c => out.push(c),
        }
    }
    out
}

fn zip_text(bytes: &[u8]) -> Option<String> {
    let mut archive = zip::ZipArchive::new(Cursor::new(bytes)).ok()?;
    let mut parts: Vec<(usize, String)> = archive
        .file_names()
        .filter_map(Result::ok)
        .filter_map(|name| {
            let rank = TEXT_PARTS
                .iter()
                .position(|p| name.starts_with(p) && name.ends_with(".xml"))?;
            Some((rank, name.into_owned()))
        })
        .collect();
    if parts.is_empty() {
        return None;
    }
    // sheet2.xml before sheet10.xml: by rank, then by name length, then name.
    parts.sort_by(|a, b| (a.0, a.1.len(), &a.1).cmp(&(b.0, b.1.len(), &b.1)));
    let mut out = String::new();
    for (_, name) in parts {
        let mut xml = Vec::new();
        archive
            .by_name(&name)
            .ok()?
            .take(MAX_PART_BYTES)
            .read_to_end(&mut xml)
            .ok()?;
        out.push_str(&xml_text(&String::from_utf8_lossy(&xml))?);
    }
    Some(out)
}

fn local(name: &[u8]) -> &[u8] {
    name.rsplit(|&b| b == b':').next().unwrap_or(name)
}

fn attr(e: &BytesStart, local_name: &str) -> Option<String> {
    e.attributes()
        .with_checks(false)
        .filter_map(Result::ok)
        .find(|a| local(a.key.as_ref().as_bytes()) == local_name.as_bytes())
        .map(|a| a.value.into_owned())
}

/// The character data of the XML document `xml` (see the module's
/// documentation); None when it is not well formed.
pub fn xml_text(xml: &str) -> Option<String> {
    let mut reader = Reader::from_str(xml);
    let mut out = String::new();
    // Inside an OOXML cell whose value is an index into the shared strings
    // (`<c t="s"><v>3</v></c>`): that number is no text of the sheet.
    let mut shared_cell = false;
    let mut skip_depth = 0usize;
    loop {
        match reader.read_event().ok()? {
            Event::Start(e) => {
                let name = e.name();
                let name = local(name.as_ref().as_bytes());
                if name == b"c" {
                    shared_cell = attr(&e, "t").as_deref() == Some("s");
                } else if skip_depth > 0 || (name == b"v" && shared_cell) {
                    skip_depth += 1;
                }
            }
            Event::End(e) => {
                let name = e.name();
                let name = local(name.as_ref().as_bytes());
                skip_depth = skip_depth.saturating_sub(1);
                if name == b"c" {
                    shared_cell = false;
                }
                if BLOCKS.iter().any(|b| b.as_bytes() == name) && !out.ends_with('\n') {
                    out.push('\n');
                }
            }
            Event::Empty(e) => {
                let name = e.name();
                match local(name.as_ref().as_bytes()) {
                    b"s" => {
                        let n = attr(&e, "c").and_then(|c| c.parse().ok()).unwrap_or(1);
                        out.extend(std::iter::repeat_n(' ', n.min(1000)));
                    }
                    b"tab" => out.push('\t'),
                    b"br" | b"line-break" | b"cr" => out.push('\n'),
                    n if BLOCKS.iter().any(|b| b.as_bytes() == n)
                        && !out.is_empty()
                        && !out.ends_with('\n') =>
                    {
                        out.push('\n');
                    }
                    _ => {}
                }
            }
            Event::Text(t) if skip_depth == 0 => {
                let t = t.xml10_content();
                if !(t.trim().is_empty() && t.contains('\n')) {
                    out.push_str(&t);
                }
            }
            Event::CData(t) if skip_depth == 0 => out.push_str(&t.xml10_content()),
            Event::GeneralRef(r) if skip_depth == 0 => {
                if let Some(c) = r.resolve_char_ref().ok()? {
                    out.push(c);
                } else {
                    out.push_str(quick_xml::escape::resolve_predefined_entity(&r)?);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn zip_of(parts: &[(&str, &str)]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        for (name, body) in parts {
            w.start_file(*name, opts).unwrap();
            w.write_all(body.as_bytes()).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    fn gzip_of(body: &str) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(body.as_bytes()).unwrap();
        e.finish().unwrap()
    }

    /// Probes over files in memory whose text is read as a real desktop reads it.
    struct Files(Vec<(&'static str, Vec<u8>)>);

    impl crate::env::Probes for Files {
        fn events(&self) -> &[crate::env::Event] {
            &[]
        }
        fn file_text(&self, path: &str) -> Option<String> {
            self.0
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, b)| text_of(b))
        }
        fn dir_exists(&self, _: &str) -> bool {
            false
        }
        fn clipboard_text(&self) -> Option<String> {
            None
        }
        fn control_texts(&self) -> Vec<String> {
            Vec::new()
        }
        fn screen_texts(&self) -> Vec<String> {
            Vec::new()
        }
        fn window_titles(&self) -> Vec<String> {
            Vec::new()
        }
        fn paths_under(&self, _: &str) -> Vec<(String, bool)> {
            Vec::new()
        }
    }

    const LINE: &str = "Reviewed by Dana on Monday.";

    /// `check_file_contains(path, text)` over one file with content `bytes`.
    fn contains(bytes: Vec<u8>, text: &str) -> bool {
        let call = crate::model::CheckCall::CheckFileContains {
            file_path: "/home/user/Documents/f".into(),
            text: text.into(),
        };
        crate::env::run_check(&call, &Files(vec![("/home/user/Documents/f", bytes)]))
    }

    /// The predicate holds for the typed line in the document's text, not for a
    /// line that is not there, and the compressed bytes alone would not hold it.
    fn holds_only_in_the_text(bytes: Vec<u8>) {
        assert!(
            !String::from_utf8_lossy(&bytes).contains(LINE),
            "the raw bytes already hold the line"
        );
        assert!(contains(bytes.clone(), LINE), "{:?}", text_of(&bytes));
        assert!(!contains(bytes, "Approved for the team meeting."));
    }

    fn docx(body: &str) -> Vec<u8> {
        zip_of(&[
            (
                "[Content_Types].xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>"#,
            ),
            (
                "_rels/.rels",
                r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>"#,
            ),
            (
                "word/styles.xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:style w:styleId="Normal"><w:name w:val="Normal"/></w:style></w:styles>"#,
            ),
            ("word/document.xml", body),
        ])
    }

    #[test]
    fn a_docx_holds_its_paragraphs_text() {
        // As LibreOffice writes a typed line: split into runs at spell-check and
        // revision marks, the space kept by xml:space.
        let body = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Travel itinerary: Lisbon</w:t></w:r></w:p><w:p><w:pPr><w:pStyle w:val="Normal"/></w:pPr><w:r><w:rPr></w:rPr><w:t xml:space="preserve">Reviewed by </w:t></w:r><w:proofErr w:type="spellStart"/><w:r><w:rPr></w:rPr><w:t>Dana</w:t></w:r><w:proofErr w:type="spellEnd"/><w:r><w:rPr></w:rPr><w:t xml:space="preserve"> on Monday.</w:t></w:r></w:p><w:sectPr><w:pgSz w:w="12240" w:h="15840"/></w:sectPr></w:body></w:document>"#;
        holds_only_in_the_text(docx(body));
        assert_eq!(
            text_of(&docx(body)),
            format!("Travel itinerary: Lisbon\n{LINE}\n")
        );
    }

    #[test]
    fn an_xlsx_holds_its_shared_strings_and_cells() {
        let bytes = zip_of(&[
            (
                "[Content_Types].xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/></Types>"#,
            ),
            (
                "xl/workbook.xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets><sheet name="Budget" sheetId="1"/></sheets></workbook>"#,
            ),
            (
                "xl/sharedStrings.xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" count="3" uniqueCount="3"><si><t>category</t></si><si><t>Flights &amp; hotels</t></si><si><t xml:space="preserve">Reviewed by Dana on Monday.</t></si></sst>"#,
            ),
            (
                "xl/worksheets/sheet1.xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1"><v>1250.5</v></c></row><row r="2"><c r="A2" t="s"><v>1</v></c><c r="B2"><f>SUM(B1:B1)</f><v>1250.5</v></c></row><row r="3"><c r="A3" t="s"><v>2</v></c></row></sheetData></worksheet>"#,
            ),
        ]);
        holds_only_in_the_text(bytes.clone());
        let text = text_of(&bytes);
        assert!(text.contains("Flights & hotels"), "{text:?}");
        assert!(text.contains("1250.5\nSUM(B1:B1)1250.5"), "{text:?}");
        // The shared-string indexes are no text of the sheet.
        assert!(!text.contains("0\n"), "{text:?}");
    }

    #[test]
    fn an_odt_holds_its_paragraphs_with_their_spaces() {
        let bytes = zip_of(&[
            ("mimetype", "application/vnd.oasis.opendocument.text"),
            (
                "META-INF/manifest.xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0"><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>"#,
            ),
            (
                "styles.xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><office:document-styles xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"/>"#,
            ),
            (
                "content.xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:text><text:h text:outline-level="1">Quarterly report</text:h><text:p text:style-name="P1">Revenue<text:s text:c="2"/>rose<text:tab/>8%</text:p><text:p text:style-name="P1"><text:span text:style-name="T1">Reviewed</text:span> by Dana on Monday.</text:p></office:text></office:body></office:document-content>"#,
            ),
        ]);
        holds_only_in_the_text(bytes.clone());
        assert_eq!(
            text_of(&bytes),
            format!("Quarterly report\nRevenue  rose\t8%\n{LINE}\n")
        );
    }

    #[test]
    fn an_ods_holds_its_cells() {
        let bytes = zip_of(&[
            ("mimetype", "application/vnd.oasis.opendocument.spreadsheet"),
            (
                "content.xml",
                r#"<?xml version="1.0" encoding="UTF-8"?><office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"><office:body><office:spreadsheet><table:table table:name="Sheet1"><table:table-row><table:table-cell office:value-type="string"><text:p>item</text:p></table:table-cell><table:table-cell office:value-type="float" office:value="3"><text:p>3</text:p></table:table-cell></table:table-row><table:table-row><table:table-cell office:value-type="string"><text:p>Reviewed by Dana on Monday.</text:p></table:table-cell></table:table-row></table:table></office:spreadsheet></office:body></office:document-content>"#,
            ),
        ]);
        holds_only_in_the_text(bytes.clone());
        assert_eq!(text_of(&bytes), format!("item\n3\n{LINE}\n"));
    }

    #[test]
    fn a_gnumeric_workbook_holds_its_cells() {
        // As Gnumeric writes it: gzip, indented XML, the cell text escaped.
        let xml = r#"<?xml version="1.0" encoding="UTF-8"?>
<gnm:Workbook xmlns:gnm="http://www.gnumeric.org/v10.dtd">
  <gnm:SheetNameIndex>
    <gnm:SheetName>Sheet1</gnm:SheetName>
  </gnm:SheetNameIndex>
  <gnm:Sheets>
    <gnm:Sheet>
      <gnm:Cells>
        <gnm:Cell Row="0" Col="0" ValueType="60">Tom &amp; Jerry&apos;s</gnm:Cell>
        <gnm:Cell Row="0" Col="1" ValueType="40">42</gnm:Cell>
        <gnm:Cell Row="5" Col="0" ValueType="60">Reviewed by Dana on Monday.</gnm:Cell>
      </gnm:Cells>
    </gnm:Sheet>
  </gnm:Sheets>
</gnm:Workbook>
"#;
        let bytes = gzip_of(xml);
        holds_only_in_the_text(bytes.clone());
        assert_eq!(
            text_of(&bytes),
            format!("Sheet1Tom & Jerry's\n42\n{LINE}\n")
        );
    }

    /// The real desktop's own fixtures (written by Gnumeric's ssconvert).
    #[test]
    fn the_fixture_documents_read_as_their_text() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("resources/x11/fixtures/home/user/Documents");
        let docx = std::fs::read(dir.join("travel_itinerary.docx")).unwrap();
        assert!(
            text_of(&docx).contains("Day 3: tram 28 and the castle\nDay 4: day trip to Sintra\n")
        );
        let xlsx = std::fs::read(dir.join("budget.xlsx")).unwrap();
        assert!(
            text_of(&xlsx).contains("Flights to Lisbon"),
            "{}",
            text_of(&xlsx)
        );
        assert!(!text_of(&xlsx).contains("<c "));
    }

    fn pdf_fixture(name: &str) -> Vec<u8> {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/pdf")
            .join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// LibreOffice's own PDFs (`soffice --convert-to pdf` of a text file and
    /// of a CSV, as Writer's and Calc's Export as PDF write them: subset fonts,
    /// compressed page streams): the typed line is in their text, not in their
    /// bytes.
    #[test]
    fn a_pdf_libreoffice_exported_holds_its_text() {
        let writer = pdf_fixture("welcome_reviewed.pdf");
        assert!(
            !String::from_utf8_lossy(&writer).contains("Approved for the team"),
            "the raw bytes already hold the line"
        );
        let text = text_of(&writer);
        for line in [
            "Welcome to the team!",
            "Your first week starts on Monday.",
            "Checked against the March figures.",
            "Approved for the team meeting.",
        ] {
            assert!(text.contains(line), "{line:?} not in {text:?}");
        }
        assert!(contains(writer.clone(), "Approved for the team meeting."));
        assert!(!contains(writer, LINE));

        let calc = pdf_fixture("contacts_reviewed.pdf");
        holds_only_in_the_text(calc.clone());
        let text = text_of(&calc);
        assert!(text.contains("ben@example.com"), "{text:?}");
    }

    #[test]
    fn the_sandbox_pdfs_read_as_their_text() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("resources/x11/fixtures/home/user/Documents");
        let lease = std::fs::read(dir.join("lease_agreement.pdf")).unwrap();
        let text = text_of(&lease);
        assert!(!text.starts_with("%PDF"), "{text:?}");
        assert!(!text.trim().is_empty());
    }

    #[test]
    fn a_pdf_that_cannot_be_read_is_its_bytes() {
        let bytes = b"%PDF-1.4\nnot really a pdf\n%%EOF\n".to_vec();
        assert_eq!(text_of(&bytes), String::from_utf8_lossy(&bytes));
    }

    /// A stream that inflates past the bound is not handed to the reader: the
    /// file is its bytes, and counting it holds no more than the bound.
    #[test]
    fn a_pdf_whose_streams_inflate_past_the_bound_is_its_bytes() {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        let zeros = vec![0u8; 1 << 20];
        for _ in 0..(MAX_PART_BYTES >> 20) + 1 {
            z.write_all(&zeros).unwrap();
        }
        let data = z.finish().unwrap();
        let mut bytes = b"%PDF-1.4\n1 0 obj\n<</Length 0/Filter/FlateDecode>>\nstream\n".to_vec();
        bytes.extend_from_slice(&data);
        bytes.extend_from_slice(b"\nendstream\nendobj\n%%EOF\n");
        assert!(pdf_inflated_bytes(&bytes) > MAX_PART_BYTES);
        assert!(pdf_text(&bytes).is_none());
        // The fixture's own streams are well within it.
        assert!(pdf_inflated_bytes(&pdf_fixture("welcome_reviewed.pdf")) < 1 << 20);
    }

    #[test]
    fn ligatures_are_spelled_out() {
        assert_eq!(
            spell_ligatures("\u{fb01}gures \u{fb02}at o\u{fb03}ce"),
            "figures flat office"
        );
    }

    #[test]
    fn plain_files_are_their_bytes() {
        assert_eq!(text_of(b"Hello\nworld"), "Hello\nworld");
        let xml = "<doc><p>a &amp; b</p></doc>";
        assert_eq!(text_of(xml.as_bytes()), xml);
        assert_eq!(text_of(&[0xff, b'a']), "\u{fffd}a");
    }

    #[test]
    fn a_zip_that_is_no_office_document_is_its_bytes() {
        let bytes = zip_of(&[("photos/beach.txt", "Reviewed by Dana")]);
        assert_eq!(text_of(&bytes), String::from_utf8_lossy(&bytes));
        assert!(text_of(&bytes).contains("photos/beach.txt"));
    }

    #[test]
    fn gzip_that_is_no_xml_is_its_bytes() {
        let bytes = gzip_of("just text");
        assert_eq!(text_of(&bytes), String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn broken_xml_in_a_document_falls_back_to_the_bytes() {
        let bytes = zip_of(&[("content.xml", "<office:text><text:p>a</text:q>")]);
        assert_eq!(text_of(&bytes), String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn xml_text_joins_runs_and_ends_paragraphs() {
        let t = xml_text(
            r#"<w:body><w:p><w:r><w:t>Rev</w:t></w:r><w:r><w:t xml:space="preserve">iewed </w:t></w:r><w:r><w:tab/><w:t>by &quot;Dana&quot; &#38; &#x41;</w:t></w:r></w:p><w:p><w:r><w:t>next</w:t></w:r></w:p></w:body>"#,
        )
        .unwrap();
        assert_eq!(t, "Reviewed \tby \"Dana\" & A\nnext\n");
    }
}
