//! The workspace's static catalogues: resource kinds (`resources/resources.toml`),
//! application categories and scenarios (`resources/categories.toml`), capabilities
//! (`resources/capabilities.toml`), and the resources that hold on the initial
//! desktop (`resources/fixtures/` and `resources/desktop.toml`); topics
//! (`resources/topics.toml`, see [`crate::topics`]).
//!
//! Owns parsing and validating those files; errors name the file and line. Also owns
//! [`Resource`] (a kind with its actual parameter) and how a subtask's declared
//! resources are instantiated from a parameter set.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::model::{Dimension, Level, Levels, Subtask};
use crate::topics::Topics;

/// Errors reading the catalogue files.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    #[error("cannot read {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}:{line}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// One resource kind from `resources.toml`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KindSpec {
    pub description: String,
    /// Does the kind take an actual parameter?
    pub parameter: bool,
    /// For path kinds: file extensions (lower case, no dot) that count as this kind.
    #[serde(default)]
    pub file_kinds: Vec<String>,
    /// The parameter names a folder.
    #[serde(default)]
    pub directory: bool,
    /// How a task's goal names a resource of this kind; `{}` stands for the actual
    /// parameter ("the PDF '{}'"). Without one, [`KindSpec::phrase_for`] words it
    /// from the description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phrase: Option<String>,
    /// The phrase where an application calls the record something else (a
    /// `todo_item` made in Kanban is "the card '{}'"), by application name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub phrase_in: BTreeMap<String, String>,
    /// The one place on the desktop that holds this state (`clipboard`): kinds
    /// with the same holder replace each other, so a task has at most one node
    /// making any of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    /// For a plain format (text, CSV, source code): the document properties a
    /// file of this kind keeps ("sort" in a CSV); a change of any other property
    /// (a frozen header, word wrap, bold type) is lost on saving. Absent: every
    /// property is kept. For a clipboard kind: the properties a copy carries (a
    /// copied image keeps its brightness, not a favourite mark in a library);
    /// absent there: none, only the text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keeps_props: Option<Vec<String>>,
    /// The file's text is a machine format (an iCalendar export): nobody copies
    /// it as text to paste it for a reader, so no subtask copies it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub machine_text: bool,
    /// A file of this kind wraps other files unchanged (a zip archive): packing a
    /// file is no change of its format.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub wraps: bool,
    /// The action that makes it says it ("set volume to 50"): an instruction
    /// does not name the value again ("..., giving the setting 'volume=50'"
    /// reads as a template, not as a request).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub implied: bool,
    /// Readers type the value in rather than pick it (an e-mail address typed
    /// into To): a node that makes one (adds the contact) hands nothing to
    /// them, so no dependency joins the two, and only values the desktop
    /// starts with are read.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub typed: bool,
    /// For markup (a web page's HTML): the applications that render it (a
    /// browser). Any other application shows its source, which is code: prose
    /// made of it there (its text copied to paste for a reader, a PDF or a
    /// document of its source) shows tags, not the page. Empty: no markup.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rendered_by: Vec<String>,
    /// A print format (PDF): a file of this kind is printed or exported to be
    /// read or sent as it is. Making one from something that is no file (a
    /// web page printed to PDF) is a change of format, and a print made in a
    /// task is not converted again (a printed page converted to a Word
    /// document).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub print: bool,
    /// A record that keeps track of work (a to-do, a note, a calendar event):
    /// a person files one thing in one such place, so a task that files one
    /// file in two of them is busywork
    /// ([`crate::graph::PointlessKind::FiledTwice`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub tracker: bool,
    /// A setting of the desktop itself (the wallpaper, the volume): a change
    /// made for the person at the machine, a goal of its own. A task that
    /// sets a picture as the wallpaper and mails it besides has two goals
    /// ([`crate::graph::PointlessKind::FiledBeside`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub setting: bool,
    /// A message that passes a file on (a mail, a chat message): like a
    /// tracker, a person sends one file one way, so a task that mails a report
    /// and posts it in the chat besides, or files it and sends it, is padding
    /// ([`crate::graph::PointlessKind::FiledTwice`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sends: bool,
    /// What a file of this kind becomes inside a document it is inserted into,
    /// when that is not text: a document property ("picture"). The document's
    /// kinds keep it or not (`keeps_props`), and a copy of the document's text
    /// leaves it behind (a picture inserted and then only the text copied on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inserted_as: Option<String>,
    /// For a clipboard kind: how a message or record that carries a pasted
    /// copy names it in a task's intent, `{}` standing for where it was
    /// copied from ("the result of {}": the result of '36*1.50+24*2'). A
    /// goal that says only "the chat message sent" leaves out what it is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pasted: Option<String>,
    /// A record a message can pass on by its address (a web page: one sends
    /// the link). A file saved from it only so that a mail or a chat carries
    /// it is a detour ([`crate::graph::PointlessKind::ConvertedToCarry`]).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub linked: bool,
    /// Clipboard content that quotes a file (its text, its code, its cells):
    /// a message that only says it could carry the file itself
    /// ([`crate::graph::PointlessKind::ConvertedToCarry`]). A picture pasted
    /// is the picture, not a quote.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quoted: bool,
}

impl KindSpec {
    pub fn is_path(&self) -> bool {
        self.directory || !self.file_kinds.is_empty()
    }

    /// Does a record of this kind take a file somewhere for good: a tracker
    /// record filing it or a message sending it? One file goes one such way.
    pub fn delivers(&self) -> bool {
        self.tracker || self.sends
    }

    /// The resource named for a reader: the kind's `phrase` with `parameter` quoted
    /// in place of `{}` ("the PDF '/home/user/a.pdf'"); without a phrase, "the
    /// resource '<parameter>'", or the description's first words for kinds without
    /// a parameter.
    pub fn phrase_for(&self, parameter: Option<&str>) -> String {
        self.phrase_with(self.phrase.as_deref(), parameter)
    }

    /// [`KindSpec::phrase_for`] as application `app` names the resource: its
    /// `phrase_in` entry when it has one ("the card '{}'" in Kanban).
    pub fn phrase_in_app(&self, app: &str, parameter: Option<&str>) -> String {
        let own = self.phrase_in.get(app).map(String::as_str);
        self.phrase_with(own.or(self.phrase.as_deref()), parameter)
    }

    fn phrase_with(&self, phrase: Option<&str>, parameter: Option<&str>) -> String {
        match (phrase, parameter) {
            (Some(p), Some(v)) => p.replacen("{}", v, 1),
            (Some(p), None) => p.replace(" '{}'", "").replace("{}", ""),
            (None, Some(v)) => format!("the resource '{v}'"),
            (None, None) => {
                let d = self.description.trim_end_matches('.');
                let d = d
                    .strip_prefix("A ")
                    .or_else(|| d.strip_prefix("An "))
                    .unwrap_or(d);
                let mut chars = d.chars();
                let first = chars.next().map(|c| c.to_lowercase().to_string());
                format!(
                    "the state where {}{}",
                    first.unwrap_or_default(),
                    chars.as_str()
                )
            }
        }
    }
}

/// A scenario of OmniBench appendix A.5.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    pub categories: Vec<String>,
}

/// A capability of OmniBench table 12 as level constraints on some dimensions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Capability {
    pub name: String,
    pub title: String,
    pub constraints: BTreeMap<Dimension, Level>,
}

impl Capability {
    /// Does a task with these levels test this capability?
    pub fn matches(&self, levels: &Levels) -> bool {
        self.constraints.iter().all(|(d, l)| levels.get(*d) == *l)
    }
}

/// All catalogues of a workspace.
#[derive(Debug, Clone)]
pub struct Catalog {
    pub kinds: BTreeMap<String, KindSpec>,
    pub categories: Vec<String>,
    pub scenarios: Vec<Scenario>,
    pub capabilities: Vec<Capability>,
    /// What values are about (`resources/topics.toml`; empty without the file).
    pub topics: Topics,
    /// What the desktop's own files show, by path (`[shows]` in
    /// `resources/desktop.toml`: the contact list shows "contacts"), for the
    /// edits that suit some content only (an application effect's `suits`).
    pub shows: BTreeMap<String, String>,
    /// Desktop files that are nobody's work (`incidental` in
    /// `resources/desktop.toml`: the welcome notes). They stay on the desktop,
    /// but no explored subtask reads them.
    pub incidental: BTreeSet<String>,
}

/// `resources/desktop.toml`: the records on a fresh desktop by kind, and what
/// its files show. (`records`, the fields of those records beyond their key,
/// and `pages`, the text of its web pages, are the simulated desktop's, read
/// where it loads: [`crate::env::sim`].)
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct DesktopFile {
    #[serde(default)]
    initial: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    shows: BTreeMap<String, String>,
    #[serde(default)]
    incidental: BTreeSet<String>,
    #[serde(default, rename = "records")]
    _records: Option<toml::Value>,
    #[serde(default, rename = "pages")]
    _pages: Option<toml::Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct KindsFile {
    kinds: BTreeMap<String, KindSpec>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CategoriesFile {
    categories: Vec<String>,
    scenarios: Vec<Scenario>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CapabilitiesFile {
    capabilities: Vec<Capability>,
}

/// Reads and parses a TOML file, naming file and line on error.
pub fn read_toml<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T, CatalogError> {
    let text = std::fs::read_to_string(path).map_err(|source| CatalogError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_toml(path, &text)
}

/// Parses TOML text that came from `path`, naming file and line on error.
pub fn parse_toml<T: serde::de::DeserializeOwned>(
    path: &Path,
    text: &str,
) -> Result<T, CatalogError> {
    toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start.min(text.len())].matches('\n').count() + 1)
            .unwrap_or(1);
        CatalogError::Parse {
            path: path.to_path_buf(),
            line,
            message: e.message().to_string(),
        }
    })
}

impl Catalog {
    /// Loads `resources/{resources,categories,capabilities,topics}.toml` under `workspace`.
    pub fn load(workspace: &Path) -> Result<Catalog, CatalogError> {
        let dir = workspace.join("resources");
        let kinds_path = dir.join("resources.toml");
        let kinds: KindsFile = read_toml(&kinds_path)?;
        let cats_path = dir.join("categories.toml");
        let cats: CategoriesFile = read_toml(&cats_path)?;
        let caps_path = dir.join("capabilities.toml");
        let caps: CapabilitiesFile = read_toml(&caps_path)?;
        for s in &cats.scenarios {
            if let Some(bad) = s.categories.iter().find(|c| !cats.categories.contains(c)) {
                return Err(CatalogError::Invalid {
                    path: cats_path,
                    message: format!("scenario '{}' names unknown category '{bad}'", s.name),
                });
            }
        }
        for (name, k) in &kinds.kinds {
            if k.is_path() && !k.parameter {
                return Err(CatalogError::Invalid {
                    path: kinds_path,
                    message: format!("path kind '{name}' must take a parameter"),
                });
            }
            if k.print && k.file_kinds.is_empty() {
                return Err(CatalogError::Invalid {
                    path: kinds_path,
                    message: format!("kind '{name}': a print format must name file kinds"),
                });
            }
        }
        let topics = Topics::load(&dir.join("topics.toml"))?;
        let desktop = dir.join("desktop.toml");
        let (shows, incidental) = if desktop.is_file() {
            let file = read_toml::<DesktopFile>(&desktop)?;
            (file.shows, file.incidental)
        } else {
            (BTreeMap::new(), BTreeSet::new())
        };
        Ok(Catalog {
            kinds: kinds.kinds,
            categories: cats.categories,
            scenarios: cats.scenarios,
            capabilities: caps.capabilities,
            topics,
            shows,
            incidental,
        })
    }

    pub fn capability(&self, name: &str) -> Option<&Capability> {
        self.capabilities.iter().find(|c| c.name == name)
    }

    /// The capabilities a task with these levels tests, by name.
    pub fn capabilities_of(&self, levels: &Levels) -> Vec<String> {
        self.capabilities
            .iter()
            .filter(|c| c.matches(levels))
            .map(|c| c.name.clone())
            .collect()
    }

    /// The scenario of a set of categories: the combined scenario whose categories
    /// are all present (most categories first), else the basic scenario of the most
    /// frequent category, else the catch-all.
    pub fn scenario_of<'a>(&self, categories: impl IntoIterator<Item = &'a str>) -> String {
        let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
        for c in categories {
            *counts.entry(c).or_default() += 1;
        }
        let present = |s: &Scenario| {
            !s.categories.is_empty() && s.categories.iter().all(|c| counts.contains_key(c.as_str()))
        };
        let best_combined = self
            .scenarios
            .iter()
            .filter(|s| s.categories.len() > 1 && present(s))
            .max_by_key(|s| s.categories.len());
        if let Some(s) = best_combined {
            return s.name.clone();
        }
        let top = counts
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then(b.0.cmp(a.0)))
            .map(|(c, _)| *c);
        self.scenarios
            .iter()
            .find(|s| s.categories.len() == 1 && Some(s.categories[0].as_str()) == top)
            .or_else(|| self.scenarios.iter().find(|s| s.categories.is_empty()))
            .map(|s| s.name.clone())
            .unwrap_or_default()
    }

    /// The file kinds that match a path's extension.
    pub fn kinds_of_path(&self, path: &str) -> Vec<&str> {
        let ext = Path::new(path)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        self.kinds
            .iter()
            .filter(|(_, k)| match &ext {
                Some(ext) => k.file_kinds.iter().any(|f| f == ext),
                None => false,
            })
            .map(|(n, _)| n.as_str())
            .collect()
    }
}

/// A resource: a kind and, for kinds that take one, its actual parameter.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Resource {
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parameter: Option<String>,
}

impl Resource {
    pub fn new(kind: impl Into<String>, parameter: Option<String>) -> Resource {
        Resource {
            kind: kind.into(),
            parameter,
        }
    }
}

impl fmt::Display for Resource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.parameter {
            Some(p) => write!(f, "{}={}", self.kind, p),
            None => f.write_str(&self.kind),
        }
    }
}

/// A subtask's resource slot: `kind`, or `kind:name` when the parameter that holds
/// the actual value is not named after the kind (a subtask that reads one text file
/// and writes another declares `txt_path` and `txt_path:new_txt_path`). Returns
/// (kind, parameter name).
pub fn split_slot(slot: &str) -> (&str, &str) {
    match slot.split_once(':') {
        Some((kind, name)) if !name.is_empty() => (kind, name),
        Some((kind, _)) => (kind, kind),
        None => (slot, slot),
    }
}

/// The slot string for a resource of `kind` whose value is parameter `name` (the
/// inverse of [`split_slot`]).
pub fn slot_of(kind: &str, name: &str) -> String {
    if kind == name {
        kind.to_string()
    } else {
        format!("{kind}:{name}")
    }
}

/// Why a subtask's declared resources cannot be instantiated.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResourceError {
    #[error("unknown resource kind '{0}'")]
    UnknownKind(String),
    #[error("resource '{kind}' takes a parameter but parameter set {index} has no '{kind}'")]
    MissingParameter { kind: String, index: usize },
    #[error("placeholder '{{{name}}}' has no value in parameter set {index}")]
    PlaceholderWithoutParameter { name: String, index: usize },
    #[error("subtask has no parameter sets")]
    NoParameterSets,
}

/// The input and output resources of instantiated subtask (`subtask`, `index`).
pub fn instantiate(
    catalog: &Catalog,
    subtask: &Subtask,
    index: usize,
) -> Result<(Vec<Resource>, Vec<Resource>), ResourceError> {
    let one = |slot: &String| -> Result<Resource, ResourceError> {
        let (kind, name) = split_slot(slot);
        let spec = catalog
            .kinds
            .get(kind)
            .ok_or_else(|| ResourceError::UnknownKind(kind.to_string()))?;
        if spec.parameter {
            let p = subtask.resource_parameter(name, index).ok_or_else(|| {
                ResourceError::MissingParameter {
                    kind: slot.clone(),
                    index,
                }
            })?;
            Ok(Resource::new(kind, Some(p.to_string())))
        } else {
            Ok(Resource::new(kind, None))
        }
    };
    let inputs = subtask
        .input_resources
        .iter()
        .map(one)
        .collect::<Result<_, _>>()?;
    let outputs = subtask
        .output_resources
        .iter()
        .map(one)
        .collect::<Result<_, _>>()?;
    Ok((inputs, outputs))
}

/// Checks a subtask's shape against the catalogue: known kinds, at least one
/// parameter set, every placeholder and every parameterised resource filled in
/// every parameter set.
pub fn validate_subtask(catalog: &Catalog, subtask: &Subtask) -> Result<(), ResourceError> {
    if subtask.available_parameters.is_empty() {
        return Err(ResourceError::NoParameterSets);
    }
    let names = subtask.placeholders();
    for (index, params) in subtask.available_parameters.iter().enumerate() {
        if let Some(name) = names.iter().find(|n| !params.contains_key(n.as_str())) {
            return Err(ResourceError::PlaceholderWithoutParameter {
                name: name.clone(),
                index,
            });
        }
        instantiate(catalog, subtask, index)?;
    }
    Ok(())
}

/// The resources that hold on the initial desktop: every file and folder under
/// `resources/fixtures/` (the fixture tree mirrors the virtual file system:
/// `resources/fixtures/home/user/a.pdf` is `/home/user/a.pdf`) as the path kinds
/// that match it, plus the records listed in `resources/desktop.toml`.
pub fn initial_resources(
    workspace: &Path,
    catalog: &Catalog,
) -> Result<BTreeSet<Resource>, CatalogError> {
    let mut out = BTreeSet::new();
    let root = workspace.join("resources").join("fixtures");
    if root.is_dir() {
        let dir_kinds: Vec<&String> = catalog
            .kinds
            .iter()
            .filter(|(_, k)| k.directory)
            .map(|(n, _)| n)
            .collect();
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            let entries = std::fs::read_dir(&dir).map_err(|source| CatalogError::Io {
                path: dir.clone(),
                source,
            })?;
            for entry in entries {
                let entry = entry.map_err(|source| CatalogError::Io {
                    path: dir.clone(),
                    source,
                })?;
                let path = entry.path();
                let rel = path.strip_prefix(&root).unwrap_or(&path);
                let virtual_path = format!("/{}", rel.to_string_lossy().replace('\\', "/"));
                if path.is_dir() {
                    for k in &dir_kinds {
                        out.insert(Resource::new(k.as_str(), Some(virtual_path.clone())));
                    }
                    stack.push(path);
                } else {
                    for k in catalog.kinds_of_path(&virtual_path) {
                        out.insert(Resource::new(k, Some(virtual_path.clone())));
                    }
                }
            }
        }
    }
    let desktop = workspace.join("resources").join("desktop.toml");
    if desktop.is_file() {
        let file: DesktopFile = read_toml(&desktop)?;
        for (kind, params) in file.initial {
            let spec = catalog
                .kinds
                .get(&kind)
                .ok_or_else(|| CatalogError::Invalid {
                    path: desktop.clone(),
                    message: format!("unknown resource kind '{kind}'"),
                })?;
            if spec.parameter {
                for p in params {
                    out.insert(Resource::new(kind.clone(), Some(p)));
                }
            } else {
                out.insert(Resource::new(kind.clone(), None));
            }
        }
        // What `[shows]` describes must be on the desktop: a file or a record
        // (a web page the browser knows).
        let present = |p: &str| {
            out.iter()
                .any(|r: &Resource| r.parameter.as_deref() == Some(p))
        };
        if let Some(path) = file.shows.keys().find(|p| !present(p)) {
            return Err(CatalogError::Invalid {
                path: desktop.clone(),
                message: format!(
                    "[shows] names '{path}', which is neither a file under resources/fixtures nor a record of [initial]"
                ),
            });
        }
        if let Some(path) = file.incidental.iter().find(|p| !present(p)) {
            return Err(CatalogError::Invalid {
                path: desktop.clone(),
                message: format!(
                    "incidental names '{path}', which is not a file under resources/fixtures"
                ),
            });
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
    }

    #[test]
    fn slots_name_their_kind_and_parameter() {
        assert_eq!(split_slot("pdf_path"), ("pdf_path", "pdf_path"));
        assert_eq!(
            split_slot("pdf_path:new_pdf_path"),
            ("pdf_path", "new_pdf_path")
        );
        assert_eq!(slot_of("pdf_path", "pdf_path"), "pdf_path");
        assert_eq!(
            slot_of("pdf_path", "other_pdf_path"),
            "pdf_path:other_pdf_path"
        );
        let c = Catalog::load(&workspace()).unwrap();
        let s: Subtask = serde_json::from_value(serde_json::json!({
            "id": "x", "instruction_template": "In PDF Tool, append '{other_pdf_path}' to '{pdf_path}', saving '{new_pdf_path}'.",
            "application": "PDF Tool", "OS": "Linux",
            "available_parameters": [{"pdf_path": "/home/user/a.pdf", "other_pdf_path": "/home/user/b.pdf", "new_pdf_path": "/home/user/c.pdf"}],
            "input_resources": ["pdf_path", "pdf_path:other_pdf_path"],
            "output_resources": ["pdf_path:new_pdf_path"]
        }))
        .unwrap();
        let (ins, outs) = instantiate(&c, &s, 0).unwrap();
        assert_eq!(
            ins,
            vec![
                Resource::new("pdf_path", Some("/home/user/a.pdf".into())),
                Resource::new("pdf_path", Some("/home/user/b.pdf".into())),
            ]
        );
        assert_eq!(
            outs,
            vec![Resource::new("pdf_path", Some("/home/user/c.pdf".into()))]
        );
    }

    #[test]
    fn shipped_catalogues_load() {
        let c = Catalog::load(&workspace()).unwrap();
        assert_eq!(c.categories.len(), 12);
        assert_eq!(c.scenarios.len(), 20);
        assert_eq!(c.capabilities.len(), 10);
        assert!(c.kinds["xlsx_path"].parameter);
        assert!(!c.kinds["table_in_clipboard"].parameter);
    }

    #[test]
    fn toml_errors_name_the_line() {
        let err = parse_toml::<KindsFile>(Path::new("x.toml"), "[kinds.a]\ndescription = 1\n")
            .unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("x.toml:2:"), "{text}");
    }

    #[test]
    fn shows_must_name_something_on_the_desktop() {
        let c = Catalog::load(&workspace()).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let fixtures = dir.path().join("resources/fixtures/home/user/Documents");
        std::fs::create_dir_all(&fixtures).unwrap();
        std::fs::write(fixtures.join("notes.txt"), "notes").unwrap();
        let desktop = dir.path().join("resources/desktop.toml");
        let write = |shows: &str| {
            std::fs::write(
                &desktop,
                format!("[initial]\nurl = [\"https://news.example.com\"]\n\n[shows]\n{shows}\n"),
            )
            .unwrap();
        };
        write("\"/home/user/Documents/notes.txt\" = \"prose\"\n\"https://news.example.com\" = \"home page\"");
        let held = initial_resources(dir.path(), &c).unwrap();
        assert!(held
            .iter()
            .any(|r| r.parameter.as_deref() == Some("/home/user/Documents/notes.txt")));

        write("\"/home/user/Documents/missing.txt\" = \"prose\"");
        let err = initial_resources(dir.path(), &c).unwrap_err().to_string();
        assert!(err.contains("desktop.toml"), "{err}");
        assert!(err.contains("'/home/user/Documents/missing.txt'"), "{err}");
    }

    #[test]
    fn capability_matching() {
        let c = Catalog::load(&workspace()).unwrap();
        let levels = Levels {
            dependency: Level::Hard,
            instruction: Level::Hard,
            knowledge: Level::Hard,
            hierarchy: Level::Easy,
            branch: Level::Hard,
        };
        let caps = c.capabilities_of(&levels);
        assert!(caps.contains(&"parallel_planning".to_string()));
        assert!(caps.contains(&"long_instruction_following".to_string()));
        assert!(!caps.contains(&"long_range_planning".to_string()));
    }
}
