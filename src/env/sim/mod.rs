//! The simulated desktop: one shared state (virtual file system, clipboard, windows
//! and focus, each window's open document, named collections, settings, playback)
//! driven by the application specs of `resources/apps/*.toml`.
//!
//! Owns the state types ([`DesktopState`]), stepping actions ([`SimDesktop::step`]),
//! the effect interpreter (`effects`), the layout that gives controls their rects
//! (`layout`), and the rules deciding when a resource holds (`holds`).

mod effects;
mod holds;
mod layout;
mod narrate;
mod prepare;
mod replica;
pub mod vfs;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};

use super::spec::{collection_spec, load_apps, LoadedApp};
use super::{
    ControlInfo, EnvBackend, EnvError, Environment, Event, EventKind, Observation, Probes, Setup,
    StepOutcome,
};
use crate::model::{Action, ActionCall};
use crate::resources::{Catalog, KindSpec, Resource};

pub use effects::arith;
pub use holds::{has_rule, NON_PATH_RULES};
pub use layout::{Live, Target};
pub use prepare::stand_in;
pub use vfs::{normalize, Vfs, VfsError, HOME};

/// A document open in a window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Document {
    /// None until saved.
    pub path: Option<String>,
    /// The file extension standing for its kind (`docx`, `xlsx`, `png`...).
    pub kind: String,
    pub content: String,
    pub props: BTreeMap<String, String>,
    pub modified: bool,
}

impl Document {
    /// The file text: content then one `@prop: value` line per property.
    pub fn file_text(&self) -> String {
        let mut out = self.content.clone();
        for (k, v) in &self.props {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!("@{k}: {v}"));
        }
        out
    }

    /// Reads a file's text back (trailing `@prop: value` lines become properties).
    pub fn from_file(path: &str, kind: &str, text: &str) -> Document {
        let mut lines: Vec<&str> = text.lines().collect();
        let mut props = BTreeMap::new();
        while let Some(last) = lines.last() {
            match last.strip_prefix('@').and_then(|l| l.split_once(": ")) {
                Some((k, v)) if !k.contains(' ') => {
                    props.insert(k.to_string(), v.to_string());
                    lines.pop();
                }
                _ => break,
            }
        }
        Document {
            path: Some(path.to_string()),
            kind: kind.to_string(),
            content: lines.join("\n"),
            props,
            modified: false,
        }
    }

    pub fn name(&self) -> String {
        match &self.path {
            Some(p) => vfs::base_name(p).to_string(),
            None => format!("Untitled.{}", self.kind),
        }
    }
}

/// The clipboard.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "holds", content = "value", rename_all = "snake_case")]
pub enum Clipboard {
    #[default]
    Empty,
    Text(String),
    /// Cells as CSV rows.
    Table(String),
    /// An image, by its description.
    Image(String),
}

impl Clipboard {
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Clipboard::Empty => None,
            Clipboard::Text(t) | Clipboard::Table(t) | Clipboard::Image(t) => Some(t),
        }
    }
}

/// A modal message box.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dialog {
    pub title: String,
    pub message: String,
}

/// An application window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    pub app: String,
    pub screen: String,
    pub history: Vec<String>,
    /// Edit values and other fields (`cwd`, `url`, `output`...).
    pub fields: BTreeMap<String, String>,
    pub doc: Option<Document>,
    /// First visible row per scrollable control (by control text).
    pub scroll: BTreeMap<String, usize>,
    /// The selected list item (text) and, for folder listings, its path.
    pub selected: Option<String>,
    pub selected_path: Option<String>,
    pub dialog: Option<Dialog>,
    /// The control (text) that has the keyboard focus.
    pub focus: Option<String>,
}

/// The collection holding the text of the web pages `desktop.toml` describes.
pub(crate) const PAGES: &str = "pages";

/// One record of a collection: field name -> value.
pub type Record = BTreeMap<String, String>;

/// The whole desktop state; serde-serializable so it can be snapshotted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DesktopState {
    pub vfs: Vfs,
    pub clipboard: Clipboard,
    /// Windows in z-order (last = top).
    pub windows: Vec<Window>,
    /// The focused window (None: the desktop is shown).
    pub active: Option<usize>,
    pub collections: BTreeMap<String, Vec<Record>>,
    pub settings: BTreeMap<String, String>,
    pub changed_settings: BTreeSet<String>,
    /// The media file playing.
    pub playing: Option<String>,
    pub known_urls: BTreeSet<String>,
    pub events: Vec<Event>,
    pub counter: u64,
    /// The `{n}` sequence used in generated file names (grows when one is used).
    pub seq: u64,
    pub feedback: Option<String>,
    /// First visible row of the desktop's launcher.
    pub desktop_scroll: usize,
    /// The files the last step wrote (a save over an unchanged file included).
    #[serde(skip)]
    pub written: Vec<String>,
}

/// The simulated desktop.
#[derive(Debug)]
pub struct SimDesktop {
    apps: Arc<Vec<LoadedApp>>,
    kinds: Arc<BTreeMap<String, KindSpec>>,
    initial: Arc<DesktopState>,
    state: DesktopState,
    /// The control layout of the current state, built when first asked for after
    /// a change (a planner stepping many copies looks at few layouts).
    live: OnceLock<layout::Live>,
}

impl Clone for SimDesktop {
    /// Copies the state; the copy builds its layout again when asked (copies are
    /// mostly made to be stepped, which changes the layout anyway).
    fn clone(&self) -> SimDesktop {
        SimDesktop {
            apps: self.apps.clone(),
            kinds: self.kinds.clone(),
            initial: self.initial.clone(),
            state: self.state.clone(),
            live: OnceLock::new(),
        }
    }
}

/// Default system settings.
const DEFAULT_SETTINGS: &[(&str, &str)] = &[
    ("theme", "Light"),
    ("wallpaper", "Default"),
    ("volume", "50"),
    ("brightness", "70"),
    ("night_light", "Off"),
    ("language", "English"),
    ("time_zone", "UTC"),
    ("wifi", "On"),
    ("bluetooth", "Off"),
    ("display_scale", "100%"),
    ("notifications", "On"),
    ("default_browser", "Browser"),
    ("chat_status", "Available"),
    ("feed_refresh", "Hourly"),
];

impl SimDesktop {
    /// Loads apps, catalogue, fixtures and `resources/desktop.toml` from a workspace.
    pub fn load(workspace: &Path) -> Result<SimDesktop, EnvError> {
        let apps = load_apps(workspace)?;
        let catalog = Catalog::load(workspace)?;
        let vfs = Vfs::from_host(&workspace.join("resources").join("fixtures"))?;
        let desktop = workspace.join("resources").join("desktop.toml");
        let (initial_records, record_fields, pages) = if desktop.is_file() {
            #[derive(Deserialize)]
            struct DesktopFile {
                #[serde(default)]
                initial: BTreeMap<String, Vec<String>>,
                #[serde(default)]
                records: BTreeMap<String, Vec<Record>>,
                #[serde(default)]
                pages: BTreeMap<String, String>,
            }
            let file: DesktopFile = crate::resources::read_toml(&desktop)?;
            (file.initial, file.records, file.pages)
        } else {
            (BTreeMap::new(), BTreeMap::new(), BTreeMap::new())
        };
        let mut desk = SimDesktop::from_parts(apps, catalog.kinds, vfs, &initial_records)?;
        let invalid = |message| crate::resources::CatalogError::Invalid {
            path: desktop.clone(),
            message,
        };
        desk.fill_records(&record_fields).map_err(invalid)?;
        desk.fill_pages(&pages).map_err(invalid)?;
        Ok(desk)
    }

    /// Gives the web pages `desktop.toml`'s `[pages]` lists the text they show
    /// (a recipe's steps, an article's lines), kept in the `pages` collection
    /// (records of `url` and `text`) where the browser reads them
    /// ([`effects::page_text`]); a page not listed shows a generic home page.
    ///
    /// # Errors
    /// A page whose address `[initial]` does not list as a `url`.
    pub fn fill_pages(&mut self, pages: &BTreeMap<String, String>) -> Result<(), String> {
        for (url, text) in pages {
            if !self.state.known_urls.contains(url) {
                return Err(format!(
                    "[pages] gives text to '{url}', which [initial] does not list under url"
                ));
            }
            let record: Record = [("url", url), ("text", text)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.trim().to_string()))
                .collect();
            self.state
                .collections
                .entry(PAGES.into())
                .or_default()
                .push(record);
        }
        self.initial = Arc::new(self.state.clone());
        self.refresh();
        Ok(())
    }

    /// Gives the initial records the fields `desktop.toml`'s `[records]` lists
    /// beyond their key, by collection (an expense's amount and category): a
    /// record seeded with its key alone exports empty columns ('Coffee,,').
    ///
    /// # Errors
    /// An unknown collection, a record without the collection's key field, or
    /// one whose key `[initial]` does not list (naming it).
    pub fn fill_records(&mut self, fields: &BTreeMap<String, Vec<Record>>) -> Result<(), String> {
        for (name, records) in fields {
            let spec = collection_spec(name)
                .ok_or_else(|| format!("[records] names an unknown collection '{name}'"))?;
            for rec in records {
                let key = rec.get(spec.key).ok_or_else(|| {
                    format!("a record of [records.{name}] has no '{}' field", spec.key)
                })?;
                let rows = self.state.collections.entry(name.clone()).or_default();
                let row = rows
                    .iter_mut()
                    .find(|r| r.get(spec.key) == Some(key))
                    .ok_or_else(|| {
                        format!(
                            "[records.{name}] fills '{key}', which [initial] does not list under {}",
                            spec.kind
                        )
                    })?;
                row.extend(rec.iter().map(|(k, v)| (k.clone(), v.clone())));
            }
        }
        self.initial = Arc::new(self.state.clone());
        self.refresh();
        Ok(())
    }

    /// Builds a desktop from loaded parts (tests use it with small fixtures).
    pub fn from_parts(
        apps: Vec<LoadedApp>,
        kinds: BTreeMap<String, KindSpec>,
        mut vfs: Vfs,
        initial_records: &BTreeMap<String, Vec<String>>,
    ) -> Result<SimDesktop, EnvError> {
        for d in [
            "Desktop",
            "Documents",
            "Pictures",
            "Music",
            "Videos",
            "Downloads",
            "Projects",
        ] {
            vfs.force_dir(&format!("{HOME}/{d}"));
        }
        let mut state = DesktopState {
            vfs,
            clipboard: Clipboard::Empty,
            windows: Vec::new(),
            active: None,
            collections: BTreeMap::new(),
            settings: DEFAULT_SETTINGS
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            changed_settings: BTreeSet::new(),
            playing: None,
            known_urls: BTreeSet::new(),
            events: Vec::new(),
            counter: 0,
            seq: 0,
            feedback: None,
            desktop_scroll: 0,
            written: Vec::new(),
        };
        for (kind, params) in initial_records {
            for p in params {
                seed_record(&mut state, kind, p);
            }
        }
        let initial = Arc::new(state.clone());
        let mut desk = SimDesktop {
            apps: Arc::new(apps),
            kinds: Arc::new(kinds),
            initial,
            state,
            live: OnceLock::new(),
        };
        desk.refresh();
        Ok(desk)
    }

    /// The loaded applications.
    pub fn apps(&self) -> &[LoadedApp] {
        &self.apps
    }

    pub fn app(&self, name: &str) -> Option<&LoadedApp> {
        self.apps.iter().find(|a| a.spec.name == name)
    }

    /// The current state.
    pub fn state(&self) -> &DesktopState {
        &self.state
    }

    /// Replaces the whole state (a snapshot taken with [`SimDesktop::state`]).
    pub fn restore(&mut self, state: DesktopState) {
        self.state = state;
        self.refresh();
    }

    /// The resource kinds of the catalogue.
    pub fn kinds(&self) -> &BTreeMap<String, KindSpec> {
        &self.kinds
    }

    /// Does `resource` hold in the current state? Unknown kinds never hold.
    pub fn holds(&self, resource: &Resource) -> bool {
        holds::holds(&self.state, &self.kinds, resource)
    }

    /// Every resource that holds now (path kinds for every file and folder, records
    /// of every collection, clipboard, open documents, playback, settings...).
    pub fn current_resources(&self) -> BTreeSet<Resource> {
        holds::enumerate(&self.state, &self.kinds)
    }

    /// The resources that hold on the fresh desktop.
    pub fn initial_resources(&self) -> BTreeSet<Resource> {
        holds::enumerate(&self.initial, &self.kinds)
    }

    /// The live layout (controls with their targets) of the current state.
    pub fn live(&self) -> &layout::Live {
        self.live
            .get_or_init(|| layout::build(&self.state, &self.apps))
    }

    fn refresh(&mut self) {
        self.live = OnceLock::new();
    }

    /// The current observation. The simulator cannot fail, so this is the
    /// infallible form of [`Environment::observe`], for code that holds a
    /// `SimDesktop` itself (the offline explorer and actor search its states).
    pub fn observe(&self) -> Observation {
        self.live().observation(self.state.feedback.clone())
    }

    /// What the screen shows before `action`, in words: the infallible form of
    /// [`Environment::describe_before`] (see [`narrate`]).
    pub fn screen_before(&self, action: &Action) -> String {
        narrate::screen_before(self, action)
    }

    /// Performs `action`: the infallible form of [`Environment::step`].
    pub fn step(&mut self, action: &Action) -> StepOutcome {
        let (ok, feedback) = self.do_step(action);
        self.finish(ok, feedback)
    }

    /// Performs `action` like [`Environment::step`] without building the
    /// observation; returns whether the action was valid.
    pub fn step_quiet(&mut self, action: &Action) -> bool {
        let (ok, feedback) = self.do_step(action);
        self.state.feedback = Some(feedback);
        self.refresh();
        ok
    }

    fn app_index(&self, name: &str) -> Option<usize> {
        self.apps.iter().position(|a| a.spec.name == name)
    }

    /// Launches (or focuses) an application by name.
    pub fn launch(&mut self, name: &str) -> Result<(), EnvError> {
        let idx = self
            .app_index(name)
            .ok_or_else(|| EnvError::UnknownApp(name.to_string()))?;
        effects::launch(&mut self.state, &self.apps[idx]);
        self.refresh();
        Ok(())
    }

    fn log(&mut self, kind: EventKind, control_text: &str, control_type: &str, hit: bool) {
        let app = self
            .state
            .active
            .and_then(|i| self.state.windows.get(i))
            .map(|w| w.app.clone());
        self.state.events.push(Event {
            kind,
            control_text: control_text.to_string(),
            control_type: control_type.to_string(),
            app,
            hit,
        });
    }

    fn finish(&mut self, ok: bool, feedback: String) -> StepOutcome {
        self.state.feedback = Some(feedback);
        self.refresh();
        StepOutcome {
            ok,
            observation: self.observe(),
        }
    }

    fn do_step(&mut self, action: &Action) -> (bool, String) {
        self.state.written.clear();
        let found = self.live().resolve(action);
        match &action.call {
            ActionCall::ClickInput { button, double } => {
                let Some(ix) = found else {
                    let what = describe_target(action);
                    self.log(
                        EventKind::Click {
                            button: button.clone(),
                            double: *double,
                        },
                        &action.control_text,
                        "",
                        false,
                    );
                    return (false, format!("No visible control {what}"));
                };
                let c = self.live().controls[ix].clone();
                self.log(
                    EventKind::Click {
                        button: button.clone(),
                        double: *double,
                    },
                    &c.name,
                    &c.info.control_type,
                    true,
                );
                effects::click(&mut self.state, &self.apps, &c, button, *double)
            }
            ActionCall::WheelMouseInput { wheel_dist } => {
                let ix = found.or_else(|| self.live().first_scrollable());
                let (name, ty) = ix
                    .map(|i| {
                        let c = &self.live().controls[i];
                        (c.name.clone(), c.info.control_type.clone())
                    })
                    .unwrap_or_default();
                self.log(
                    EventKind::Scroll { dist: *wheel_dist },
                    &name,
                    &ty,
                    ix.is_some(),
                );
                match ix {
                    Some(i) => {
                        let c = self.live().controls[i].clone();
                        // The field, not `live()`: the layout is borrowed while
                        // the state is changed.
                        let live = self
                            .live
                            .get_or_init(|| layout::build(&self.state, &self.apps));
                        effects::scroll(&mut self.state, live, &c, *wheel_dist)
                    }
                    None => (false, "Nothing to scroll here".to_string()),
                }
            }
            ActionCall::KeyboardInput { keys } => {
                let explicit = action.control_label.is_some() || !action.control_text.is_empty();
                if explicit && found.is_none() {
                    let what = describe_target(action);
                    let text: String = parse_keys(keys)
                        .into_iter()
                        .filter_map(|t| match t {
                            KeyToken::Char(c) => Some(c),
                            KeyToken::Combo(_) => None,
                        })
                        .collect();
                    self.log(EventKind::Type { text }, &action.control_text, "", false);
                    return (false, format!("No visible control {what}"));
                }
                let target = found.or_else(|| self.live().focused(&self.state));
                let (name, ty) = target
                    .map(|i| {
                        let c = &self.live().controls[i];
                        (c.name.clone(), c.info.control_type.clone())
                    })
                    .unwrap_or_default();
                let tokens = parse_keys(keys);
                let text: String = tokens
                    .iter()
                    .filter_map(|t| match t {
                        KeyToken::Char(c) => Some(*c),
                        KeyToken::Combo(_) => None,
                    })
                    .collect();
                if !text.is_empty() {
                    self.log(EventKind::Type { text }, &name, &ty, target.is_some());
                }
                for t in &tokens {
                    if let KeyToken::Combo(k) = t {
                        self.log(EventKind::Keys { keys: k.clone() }, &name, &ty, true);
                    }
                }
                let c = target.map(|i| self.live().controls[i].clone());
                effects::keyboard(&mut self.state, &self.apps, c.as_ref(), &tokens)
            }
        }
    }
}

fn describe_target(action: &Action) -> String {
    match (&action.control_label, action.control_text.as_str()) {
        (Some(l), "") => format!("labelled '{l}'"),
        (Some(l), t) => format!("labelled '{l}' with text '{t}'"),
        (None, "") => "(no control named)".to_string(),
        (None, t) => format!("with text '{t}'"),
    }
}

/// Puts a `desktop.toml` initial record into the state.
fn seed_record(state: &mut DesktopState, kind: &str, param: &str) {
    match kind {
        "url" => {
            state.known_urls.insert(param.to_string());
        }
        "setting_value" => {}
        _ => {
            let Some(col) = crate::env::spec::COLLECTIONS
                .iter()
                .find(|c| c.kind == kind && c.name != "cards" && c.name != "sticky_notes")
            else {
                return;
            };
            let spec = collection_spec(col.name).unwrap_or(col);
            let mut r = Record::new();
            r.insert(spec.key.to_string(), param.to_string());
            if spec.name == "contacts" {
                let name = param.split('@').next().unwrap_or(param);
                r.insert("name".to_string(), capitalize(name));
            }
            if spec.name == "bookmarks" {
                state.known_urls.insert(param.to_string());
            }
            state
                .collections
                .entry(spec.name.to_string())
                .or_default()
                .push(r);
        }
    }
}

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// One token of a keyboard_input string (pywinauto notation).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyToken {
    Char(char),
    /// Normalised: `^s`, `%f`, `+{tab}`, `{enter}`.
    Combo(String),
}

/// The text keys in pywinauto notation type, when they only type text (`cat
/// {~}/a.txt` types `cat ~/a.txt`, `4*16{+}2` types `4*16+2`): what a person
/// reading a step types. Keys with a combination or a named key stay as written.
pub fn keys_as_text(keys: &str) -> String {
    let mut text = String::with_capacity(keys.len());
    for t in parse_keys(keys) {
        match t {
            KeyToken::Char(c) => text.push(c),
            KeyToken::Combo(_) => return keys.to_string(),
        }
    }
    text
}

/// Splits pywinauto key notation: `^x` ctrl, `%x` alt, `+x` shift, `{NAME}` named
/// keys, `{{}` / `{}}` literal braces, `~` enter; anything else is a typed character.
pub fn parse_keys(keys: &str) -> Vec<KeyToken> {
    let chars: Vec<char> = keys.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let braced = |i: usize| -> Option<(String, usize)> {
        if chars.get(i) != Some(&'{') {
            return None;
        }
        // `{{}` and `{}}` are literal braces.
        if chars.get(i + 2) == Some(&'}') && matches!(chars.get(i + 1), Some('{') | Some('}')) {
            return Some((chars[i + 1].to_string(), i + 3));
        }
        let end = chars[i + 1..].iter().position(|c| *c == '}')? + i + 1;
        let name: String = chars[i + 1..end].iter().collect();
        Some((format!("{{{}}}", name.to_ascii_lowercase()), end + 1))
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '^' | '%' | '+' if i + 1 < chars.len() => {
                let mut mods = String::new();
                let mut j = i;
                while j < chars.len() && matches!(chars[j], '^' | '%' | '+') {
                    mods.push(chars[j]);
                    j += 1;
                }
                if j >= chars.len() {
                    out.push(KeyToken::Combo(mods));
                    break;
                }
                match braced(j) {
                    Some((name, next)) => {
                        out.push(KeyToken::Combo(format!("{mods}{name}")));
                        i = next;
                    }
                    None => {
                        out.push(KeyToken::Combo(format!(
                            "{mods}{}",
                            chars[j].to_ascii_lowercase()
                        )));
                        i = j + 1;
                    }
                }
            }
            '{' => match braced(i) {
                // `{+}`, `{%}`, `{{}`: a literal character.
                Some((name, next)) if name.chars().count() == 3 => {
                    out.extend(name.chars().nth(1).map(KeyToken::Char));
                    i = next;
                }
                Some((name, next)) if name.chars().count() == 1 => {
                    out.extend(name.chars().map(KeyToken::Char));
                    i = next;
                }
                Some((name, next)) => {
                    out.push(KeyToken::Combo(name));
                    i = next;
                }
                None => {
                    out.push(KeyToken::Char(c));
                    i += 1;
                }
            },
            '~' => {
                out.push(KeyToken::Combo("{enter}".to_string()));
                i += 1;
            }
            _ => {
                out.push(KeyToken::Char(c));
                i += 1;
            }
        }
    }
    out
}

/// Normalises a key description for comparison: pywinauto notation as parsed, and
/// `ctrl+s` / `Enter` spellings mapped to it.
pub fn normalize_keys(keys: &str) -> String {
    let k = keys.trim();
    let lower = k.to_ascii_lowercase();
    let mut mods = String::new();
    let mut rest = lower.as_str();
    loop {
        if let Some(r) = rest.strip_prefix("ctrl+") {
            mods.push('^');
            rest = r;
        } else if let Some(r) = rest.strip_prefix("alt+") {
            mods.push('%');
            rest = r;
        } else if let Some(r) = rest.strip_prefix("shift+") {
            mods.push('+');
            rest = r;
        } else {
            break;
        }
    }
    if !mods.is_empty() || (rest.len() > 1 && rest.chars().all(|c| c.is_ascii_alphanumeric())) {
        let key = if rest.chars().count() > 1 && !rest.starts_with('{') {
            format!("{{{rest}}}")
        } else {
            rest.to_string()
        };
        return format!("{mods}{key}");
    }
    parse_keys(k)
        .into_iter()
        .map(|t| match t {
            KeyToken::Char(c) => c.to_string(),
            KeyToken::Combo(s) => s,
        })
        .collect()
}

impl Environment for SimDesktop {
    fn backend(&self) -> EnvBackend {
        EnvBackend::Sim
    }

    fn applications(&self) -> Vec<String> {
        self.apps.iter().map(|a| a.spec.name.clone()).collect()
    }

    fn reset(&mut self, setup: &Setup) -> Result<Observation, EnvError> {
        self.state = (*self.initial).clone();
        for (path, content) in &setup.files {
            let p = normalize(path, HOME)
                .map_err(|e| EnvError::Setup(format!("file '{path}': {e}")))?;
            self.state.vfs.force_file(&p, content.clone());
        }
        if let Some(t) = &setup.clipboard_text {
            self.state.clipboard = Clipboard::Text(t.clone());
        }
        for app in &setup.launch {
            let idx = self
                .app_index(app)
                .ok_or_else(|| EnvError::UnknownApp(app.clone()))?;
            effects::launch(&mut self.state, &self.apps[idx]);
        }
        self.refresh();
        Ok(SimDesktop::observe(self))
    }

    fn observe(&self) -> Result<Observation, EnvError> {
        Ok(SimDesktop::observe(self))
    }

    fn step(&mut self, action: &Action) -> Result<StepOutcome, EnvError> {
        Ok(SimDesktop::step(self, action))
    }

    fn probes(&self) -> &dyn Probes {
        self
    }

    fn describe_before(&self, action: &Action) -> Result<String, EnvError> {
        Ok(self.screen_before(action))
    }

    /// The control the simulator acts on: a keystroke without a named control
    /// goes to the focused one, a bare wheel to the first scrollable one.
    fn target_of(&self, action: &Action) -> Result<Option<ControlInfo>, EnvError> {
        let live = self.live();
        let target = match &action.call {
            ActionCall::KeyboardInput { .. } => {
                live.resolve(action).or_else(|| live.focused(&self.state))
            }
            ActionCall::WheelMouseInput { .. } => {
                live.resolve(action).or_else(|| live.first_scrollable())
            }
            ActionCall::ClickInput { .. } => live.resolve(action),
        };
        Ok(target.map(|i| live.controls[i].info.clone()))
    }

    fn holds(&self, resource: &Resource) -> bool {
        SimDesktop::holds(self, resource)
    }

    fn prepare(
        &mut self,
        app: &str,
        input: &Resource,
        params: &crate::model::ParameterSet,
    ) -> Result<(), String> {
        prepare::prepare(self, app, input, params)
    }
}

impl Probes for SimDesktop {
    fn events(&self) -> &[Event] {
        &self.state.events
    }

    fn file_text(&self, path: &str) -> Option<String> {
        let p = normalize(path, HOME).ok()?;
        self.state.vfs.read(&p).ok().map(str::to_string)
    }

    fn dir_exists(&self, path: &str) -> bool {
        normalize(path, HOME).is_ok_and(|p| self.state.vfs.is_dir(&p))
    }

    fn clipboard_text(&self) -> Option<String> {
        self.state.clipboard.as_text().map(str::to_string)
    }

    fn control_texts(&self) -> Vec<String> {
        let mut out = vec![self.live().scene.title.clone()];
        out.extend(
            self.live()
                .controls
                .iter()
                .map(|c| c.info.control_text.clone()),
        );
        out
    }

    fn screen_texts(&self) -> Vec<String> {
        self.live().scene.drawn_texts()
    }

    fn window_titles(&self) -> Vec<String> {
        self.live().window_titles.clone()
    }

    fn paths_under(&self, dir: &str) -> Vec<(String, bool)> {
        let Ok(dir) = normalize(dir, HOME) else {
            return Vec::new();
        };
        let prefix = format!("{}/", dir.trim_end_matches('/'));
        let vfs = &self.state.vfs;
        vfs.paths()
            .filter(|(p, _)| p.starts_with(&prefix))
            .map(|(p, _)| (p.clone(), vfs.is_dir(p)))
            .collect()
    }
}

/// Is `when` a condition the simulator understands? (Used by lint.)
pub fn effects_known_condition(when: &str) -> bool {
    effects::known_condition(when)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_fields_fill_only_listed_records() {
        let initial = BTreeMap::from([("expense_record".to_string(), vec!["Coffee".to_string()])]);
        let mut d =
            SimDesktop::from_parts(Vec::new(), BTreeMap::new(), Vfs::default(), &initial).unwrap();
        let row = |label: &str, amount: &str| {
            BTreeMap::from([(
                "expenses".to_string(),
                vec![Record::from([
                    ("label".to_string(), label.to_string()),
                    ("amount".to_string(), amount.to_string()),
                ])],
            )])
        };
        d.fill_records(&row("Coffee", "4.50")).unwrap();
        let expenses = &d.state().collections["expenses"];
        assert_eq!(expenses.len(), 1);
        assert_eq!(expenses[0]["amount"], "4.50");
        // A reset goes back to the filled record, not to its bare key.
        d.reset(&Setup::default()).unwrap();
        assert_eq!(d.state().collections["expenses"][0]["amount"], "4.50");
        let err = d.fill_records(&row("Tea", "2.00")).unwrap_err();
        assert!(
            err.contains("'Tea'") && err.contains("expense_record"),
            "{err}"
        );
        let unknown = BTreeMap::from([("wallets".to_string(), Vec::new())]);
        assert!(d.fill_records(&unknown).unwrap_err().contains("'wallets'"));
    }

    #[test]
    fn keys_parse_in_pywinauto_notation() {
        assert_eq!(
            parse_keys("2{+}3"),
            vec![
                KeyToken::Char('2'),
                KeyToken::Char('+'),
                KeyToken::Char('3')
            ]
        );
        let t = parse_keys("ab^s{ENTER}%{F4}{{}~");
        assert_eq!(
            t,
            vec![
                KeyToken::Char('a'),
                KeyToken::Char('b'),
                KeyToken::Combo("^s".into()),
                KeyToken::Combo("{enter}".into()),
                KeyToken::Combo("%{f4}".into()),
                KeyToken::Char('{'),
                KeyToken::Combo("{enter}".into()),
            ]
        );
        assert_eq!(normalize_keys("Ctrl+S"), "^s");
        assert_eq!(normalize_keys("{ENTER}"), "{enter}");
        assert_eq!(normalize_keys("enter"), "{enter}");
        assert_eq!(normalize_keys("^C"), "^c");
    }

    #[test]
    fn documents_keep_properties_across_save_and_open() {
        let mut d = Document::from_file("/a.png", "png", "A cat");
        d.props.insert("filter".into(), "grayscale".into());
        let text = d.file_text();
        let back = Document::from_file("/a.png", "png", &text);
        assert_eq!(back.content, "A cat");
        assert_eq!(back.props["filter"], "grayscale");
    }
}
