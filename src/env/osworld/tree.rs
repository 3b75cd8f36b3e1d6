//! OSWorld's accessibility tree (`GET /accessibility` → `{"AT": xml}`) read into
//! [`Node`]s.
//!
//! The server writes one element per accessible object: the tag is its role with
//! spaces as dashes (`push-button`), `name` its name, states as `st:NAME="true"`,
//! its screen box as `cp:screencoord="(x, y)"` and `cp:size="(w, h)"` (only for
//! visible, showing objects), and the text it shows as the element's text. The
//! root is `desktop-frame`; its children are the running applications.
//!
//! Only the subset of XML lxml writes is read: elements, attributes, text,
//! character and the five named entities; declarations, comments and CDATA are
//! skipped or taken as text.

use crate::env::real::Node;

/// One element of the tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Element {
    /// The tag without namespace prefix (`push-button`).
    pub tag: String,
    /// Attributes by qualified name (`name`, `st:showing`, `cp:size`).
    pub attrs: Vec<(String, String)>,
    pub text: String,
    pub children: Vec<Element>,
}

impl Element {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    fn state(&self, state: &str) -> bool {
        self.attr(&format!("st:{state}")) == Some("true")
    }
}

/// Parses the XML of a tree.
///
/// # Errors
/// A sentence saying where the text is not well-formed.
pub fn parse(xml: &str) -> Result<Element, String> {
    let mut p = Parser { s: xml, i: 0 };
    p.skip_prolog();
    let root = p.element()?;
    Ok(root)
}

struct Parser<'a> {
    s: &'a str,
    i: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        &self.s[self.i..]
    }

    fn err(&self, what: &str) -> String {
        format!("accessibility tree: {what} at byte {}", self.i)
    }

    fn skip_ws(&mut self) {
        let n = self.rest().len() - self.rest().trim_start().len();
        self.i += n;
    }

    /// Skips `<?...?>`, `<!...>` and whitespace before the root.
    fn skip_prolog(&mut self) {
        loop {
            self.skip_ws();
            let end = if self.rest().starts_with("<?") {
                self.rest().find("?>").map(|e| e + 2)
            } else if self.rest().starts_with("<!--") {
                self.rest().find("-->").map(|e| e + 3)
            } else if self.rest().starts_with("<!") {
                self.rest().find('>').map(|e| e + 1)
            } else {
                return;
            };
            match end {
                Some(e) => self.i += e,
                None => return,
            }
        }
    }

    fn name(&mut self) -> Result<String, String> {
        let len = self
            .rest()
            .find(|c: char| c.is_whitespace() || matches!(c, '>' | '/' | '='))
            .unwrap_or(self.rest().len());
        if len == 0 {
            return Err(self.err("a name was expected"));
        }
        let n = self.rest()[..len].to_string();
        self.i += len;
        Ok(n)
    }

    fn element(&mut self) -> Result<Element, String> {
        if !self.rest().starts_with('<') {
            return Err(self.err("'<' was expected"));
        }
        self.i += 1;
        let qname = self.name()?;
        let mut el = Element {
            tag: local(&qname).to_string(),
            ..Element::default()
        };
        loop {
            self.skip_ws();
            if self.rest().starts_with("/>") {
                self.i += 2;
                return Ok(el);
            }
            if self.rest().starts_with('>') {
                self.i += 1;
                break;
            }
            let (k, v) = self.attribute()?;
            if k != "xmlns" && !k.starts_with("xmlns:") {
                el.attrs.push((k, v));
            }
        }
        self.content(&mut el, &qname)?;
        Ok(el)
    }

    fn attribute(&mut self) -> Result<(String, String), String> {
        let k = self.name()?;
        self.skip_ws();
        if !self.rest().starts_with('=') {
            return Err(self.err("'=' was expected"));
        }
        self.i += 1;
        self.skip_ws();
        let quote = self
            .rest()
            .chars()
            .next()
            .filter(|c| matches!(c, '"' | '\''))
            .ok_or_else(|| self.err("a quoted value was expected"))?;
        self.i += 1;
        let end = self
            .rest()
            .find(quote)
            .ok_or_else(|| self.err("an attribute value is not closed"))?;
        let v = unescape(&self.rest()[..end]);
        self.i += end + 1;
        Ok((k, v))
    }

    /// Text and children up to `</qname>`.
    fn content(&mut self, el: &mut Element, qname: &str) -> Result<(), String> {
        loop {
            let lt = self
                .rest()
                .find('<')
                .ok_or_else(|| self.err(&format!("<{qname}> is not closed")))?;
            el.text.push_str(&unescape(&self.rest()[..lt]));
            self.i += lt;
            if let Some(after) = self.rest().strip_prefix("</") {
                let end = after
                    .find('>')
                    .ok_or_else(|| self.err("a closing tag is not closed"))?;
                if after[..end].trim() != qname {
                    return Err(self.err(&format!("</{}> closes <{qname}>", after[..end].trim())));
                }
                self.i += 2 + end + 1;
                return Ok(());
            }
            if self.rest().starts_with("<!--") {
                let end = self
                    .rest()
                    .find("-->")
                    .ok_or_else(|| self.err("open comment"))?;
                self.i += end + 3;
                continue;
            }
            if let Some(after) = self.rest().strip_prefix("<![CDATA[") {
                let end = after.find("]]>").ok_or_else(|| self.err("open CDATA"))?;
                el.text.push_str(&after[..end]);
                self.i += 9 + end + 3;
                continue;
            }
            el.children.push(self.element()?);
        }
    }
}

/// The local part of a qualified name (`cp:size` → `size`).
fn local(qname: &str) -> &str {
    qname.rsplit(':').next().unwrap_or(qname)
}

/// Text with its entities replaced (`&amp;`, `&#10;`, `&#x41;`...); an unknown
/// entity is kept as written.
pub fn unescape(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(amp) = rest.find('&') {
        out.push_str(&rest[..amp]);
        rest = &rest[amp..];
        let decoded = rest.find(';').and_then(|semi| {
            let c = match &rest[1..semi] {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                e => e
                    .strip_prefix("#x")
                    .or_else(|| e.strip_prefix("#X"))
                    .map(|h| u32::from_str_radix(h, 16))
                    .or_else(|| e.strip_prefix('#').map(str::parse))
                    .and_then(Result::ok)
                    .and_then(char::from_u32),
            }?;
            Some((c, semi + 1))
        });
        match decoded {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// A pair `"(a, b)"` as the server writes boxes.
fn pair(s: &str) -> Option<(i32, i32)> {
    let inner = s.trim().strip_prefix('(')?.strip_suffix(')')?;
    let (a, b) = inner.split_once(',')?;
    Some((a.trim().parse().ok()?, b.trim().parse().ok()?))
}

/// The showing objects of one application, with whether each is its active window.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppTree {
    /// The application's name on the accessibility bus.
    pub name: String,
    pub nodes: Vec<Node>,
    /// Indices of its window nodes that are active (have the focus).
    pub active: Vec<usize>,
}

/// The applications of a tree (the root's children), each with its showing
/// objects in document order; an object that is not showing is left out with
/// everything below it.
pub fn applications(root: &Element) -> Vec<AppTree> {
    root.children
        .iter()
        .map(|app| {
            let mut t = AppTree {
                name: app.attr("name").unwrap_or_default().to_string(),
                ..AppTree::default()
            };
            for child in &app.children {
                collect(child, None, &mut t);
            }
            t
        })
        .collect()
}

fn collect(el: &Element, parent: Option<usize>, t: &mut AppTree) {
    if !el.state("showing") {
        return;
    }
    let role = el.tag.replace('-', " ");
    let rect = match (
        el.attr("cp:screencoord").and_then(pair),
        el.attr("cp:size").and_then(pair),
    ) {
        (Some((x, y)), Some((w, h))) => [x, y, x + w, y + h],
        _ => [0; 4],
    };
    let i = t.nodes.len();
    if el.state("active") && crate::env::real::WINDOW_ROLES.contains(&role.as_str()) {
        t.active.push(i);
    }
    t.nodes.push(Node {
        name: el.attr("name").unwrap_or_default().to_string(),
        role,
        rect,
        parent,
        focused: el.state("focused"),
        active: el.state("active"),
        text: el.text.trim().chars().take(200).collect(),
    });
    for child in &el.children {
        collect(child, Some(i), t);
    }
}

/// The names of every application's showing windows.
pub fn window_titles(apps: &[AppTree]) -> Vec<String> {
    apps.iter()
        .flat_map(|a| a.nodes.iter())
        .filter(|n| crate::env::real::WINDOW_ROLES.contains(&n.role.as_str()))
        .map(|n| n.name.clone())
        .filter(|n| !n.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const TREE: &str = r#"<desktop-frame xmlns:st="https://accessibility.ubuntu.example.org/ns/state" xmlns:cp="https://accessibility.ubuntu.example.org/ns/component">
<application name="gedit" st:enabled="true">
  <frame name="notes.txt - gedit" st:showing="true" st:visible="true" st:active="true" cp:screencoord="(0, 0)" cp:size="(1920, 1080)">
    <push-button name="Save" st:showing="true" st:visible="true" cp:screencoord="(1700, 10)" cp:size="(80, 30)"></push-button>
    <menu name="File" st:showing="true" cp:screencoord="(5, 40)" cp:size="(40, 20)">
      <menu-item name="Save As&#8230;" st:showing="false" cp:screencoord="(5, 60)" cp:size="(120, 20)"/>
    </menu>
    <text name="" st:showing="true" st:focused="true" cp:screencoord="(0, 80)" cp:size="(1920, 900)">Tom &amp; Jerry &lt;3&#10;line two</text>
  </frame>
</application>
<application name="gnome-shell"><window name="" st:showing="true"/></application>
</desktop-frame>"#;

    #[test]
    fn a_tree_becomes_showing_nodes_with_boxes_and_parents() {
        let root = parse(TREE).unwrap();
        assert_eq!(root.tag, "desktop-frame");
        let apps = applications(&root);
        assert_eq!(apps.len(), 2);
        let g = &apps[0];
        assert_eq!(g.name, "gedit");
        assert_eq!(g.active, vec![0]);
        let names: Vec<_> = g.nodes.iter().map(|n| n.name.as_str()).collect();
        // The hidden menu item is left out.
        assert_eq!(names, ["notes.txt - gedit", "Save", "File", ""]);
        assert_eq!(g.nodes[1].role, "push button");
        assert_eq!(g.nodes[1].rect, [1700, 10, 1780, 40]);
        assert_eq!(g.nodes[1].parent, Some(0));
        assert_eq!(g.nodes[3].text, "Tom & Jerry <3\nline two");
        assert!(g.nodes[3].focused);
        assert_eq!(window_titles(&apps), ["notes.txt - gedit"]);
    }

    #[test]
    fn entities_and_malformed_text() {
        assert_eq!(
            unescape("a&quot;b&apos;&#x41;&#66;&bogus;&"),
            "a\"b'AB&bogus;&"
        );
        assert!(parse("<a><b></a>").unwrap_err().contains("closes"));
        assert!(parse("<a name=\"x>").is_err());
        assert_eq!(pair("(-5, 7)"), Some((-5, 7)));
        assert_eq!(pair("5, 7"), None);
    }
}
