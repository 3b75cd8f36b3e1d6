//! Static analysis of an application spec, shared by the offline explorer and the
//! offline coder: which screens are reachable and how, which controls open a
//! document, which control clicks produce resources (`Op::produces`), and, for each
//! such producer, the whole path that reaches it: the controls clicked, the fields
//! typed, the list items selected, and the parameter slots those need.
//!
//! A [`Plan`] is pure data derived from the spec alone (no desktop state), so the
//! explorer (which words instructions from it) and the coder (which derives checks
//! from it) always agree on what a subtask's path is. [`execute`] runs a plan with
//! concrete values in a [`Replica`] to learn which resources it really makes.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use crate::env::sim::vfs;
use crate::env::spec::{
    collection_spec, AppSpec, ControlSpec, ControlType, Effect, ItemSource, Op,
};
use crate::env::Replica;
use crate::model::{Action, ActionCall, ParameterSet};
use crate::resources::{Catalog, Resource};

/// One step of a path through an application.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Left click on the control with this text.
    Click(String),
    /// Type the value of slot `slot` into the Edit `control`.
    Type { control: String, slot: String },
    /// Select the file or folder named by slot `slot` in the folder List `list`.
    SelectPath { list: String, slot: String },
    /// Select the item named by slot `slot` in List `list`.
    SelectItem { list: String, slot: String },
    /// Double-click the file named by slot `slot` in the folder List `list`.
    OpenPath { list: String, slot: String },
}

/// What a parameter slot stands for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SlotRole {
    /// An existing file (or folder) of this path kind.
    InputPath { kind: String },
    /// A resource with a parameter that must already hold (a contact, a web address,
    /// a recipe...).
    InputRecord { kind: String },
    /// One item of a fixed list (a chat contact, an article).
    Choice { values: Vec<String> },
    /// A new file (or folder) path the subtask creates, typed in full.
    OutputPath { kind: String, ext: String },
    /// A new record key the subtask creates (typed).
    OutputRecord { kind: String },
    /// Free text typed into a field (a date, a body, a file name stem).
    Text { field: String },
}

/// A named parameter of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slot {
    pub name: String,
    pub role: SlotRole,
    /// The label of the control the value goes into (for wording).
    pub label: String,
    /// How a value typed into that control reads in a request (the Edit's
    /// `says`, e.g. "to '{}'"); without one, "with <label> '<value>'".
    pub says: Option<String>,
}

/// A path from the application's start to a producing click.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub app: String,
    pub steps: Vec<Step>,
    pub slots: Vec<Slot>,
    /// Instruction phrases in order, with `{slot}` placeholders.
    pub phrases: Vec<String>,
    /// The control texts the path clicks, in order (buttons, not list items).
    pub clicked: Vec<String>,
    /// The control whose click produces the outputs.
    pub producer: String,
    /// Resource kinds the producing effect can make hold.
    pub produces: Vec<String>,
    /// The screen of the producing control.
    pub screen: String,
    /// The window fields the producing click reads.
    pub reads: Vec<String>,
    /// For a Save As: the application's own file extension (the first it lists).
    pub native_ext: Option<String>,
    /// The clipboard kind the path pastes (`text_in_clipboard`...): an input that
    /// takes no parameter, made by whichever subtask copied before.
    pub pastes: Option<String>,
}

impl Plan {
    pub fn slot(&self, name: &str) -> Option<&Slot> {
        self.slots.iter().find(|s| s.name == name)
    }

    /// The resource kinds of the input slots (files and records), in slot order.
    pub fn input_kinds(&self) -> Vec<String> {
        self.slots
            .iter()
            .filter_map(|s| match &s.role {
                SlotRole::InputPath { kind } | SlotRole::InputRecord { kind } => Some(kind.clone()),
                _ => None,
            })
            .collect()
    }

    /// The output slot of a kind that wraps other files (the zip an archive
    /// plan makes), if any.
    pub fn wrapping_output(&self, catalog: &Catalog) -> Option<&Slot> {
        self.slots.iter().find(|s| {
            matches!(&s.role, SlotRole::OutputPath { kind, .. }
                if catalog.kinds.get(kind).is_some_and(|k| k.wraps))
        })
    }

    /// The kinds of the file slots, in slot order.
    pub fn input_path_kinds(&self) -> Vec<String> {
        self.slots
            .iter()
            .filter_map(|s| match &s.role {
                SlotRole::InputPath { kind } => Some(kind.clone()),
                _ => None,
            })
            .collect()
    }

    /// The instruction template without the computed-output clause: the stable
    /// part the coder matches on.
    pub fn base_template(&self) -> String {
        format!("In {}, {}", self.app, self.phrases.join(", then "))
    }

    /// The full template, naming outputs that no slot types (`computed`) at the end
    /// the way a person would ("..., giving the archive '{zip_path}'"), each by its
    /// kind's phrase in `resources.toml`.
    pub fn template(&self, computed: &[String], catalog: &Catalog) -> String {
        let mut t = self.base_template();
        let computed: Vec<&String> = computed
            .iter()
            .filter(|k| !catalog.kinds.get(*k).is_some_and(|k| k.implied))
            .collect();
        if !computed.is_empty() {
            let names: Vec<String> = computed
                .iter()
                .map(|k| {
                    let placeholder = format!("{{{k}}}");
                    match catalog.kinds.get(*k) {
                        Some(kind) => kind.phrase_for(Some(&placeholder)),
                        None => format!("'{placeholder}'"),
                    }
                })
                .collect();
            t.push_str(&format!("{COMPUTED_LEAD}{}", names.join(" and ")));
        }
        t.push('.');
        t
    }
}

/// Opens the clause that names a plan's computed outputs; the coder matches on it.
pub const COMPUTED_LEAD: &str = ", giving ";

/// Context names every window has (never a parameter).
const CONTEXT_NAMES: &[&str] = &[
    "cwd",
    "cwd_parent",
    "home",
    "n",
    "clipboard",
    "playing",
    "doc_path",
    "doc_name",
    "doc_stem",
    "doc_dir",
    "doc_kind",
];

fn controls(app: &AppSpec, screen: &str) -> Vec<ControlSpec> {
    app.screens
        .get(screen)
        .map(|s| s.controls.iter().map(|c| c.get_ref().clone()).collect())
        .unwrap_or_default()
}

/// The string templates an op reads.
fn op_templates(op: &Op) -> Vec<&str> {
    match op {
        Op::SetField { value, .. } | Op::AppendField { value, .. } => vec![value],
        Op::Require { when, .. } => vec![when],
        Op::OpenFile { path, .. }
        | Op::InsertFile { path, .. }
        | Op::SaveAs { path, .. }
        | Op::Export { path, .. }
        | Op::CreateDir { path }
        | Op::Delete { path }
        | Op::Play { path }
        | Op::Capture { path }
        | Op::Record { path }
        | Op::Download { path } => vec![path],
        // With `each`, the content's placeholders are each record's fields.
        Op::CreateFile {
            path,
            each: Some(_),
            ..
        } => vec![path],
        Op::CreateFile { path, content, .. } => vec![path, content],
        Op::Copy { what, .. } => vec![what],
        Op::SetProp { value, .. } => vec![value],
        Op::AppendDoc { text, .. } => vec![text],
        Op::Rename { from, to } => vec![from, to],
        Op::Move { from, to_dir } | Op::CopyFile { from, to_dir } => vec![from, to_dir],
        Op::Compress { sources, path } => vec![sources, path],
        Op::Extract { path, dest } => vec![path, dest],
        Op::AddRecord { fields, .. } => fields.values().map(String::as_str).collect(),
        Op::DeleteRecord { key, .. } => vec![key],
        Op::SetSetting { value, .. } => vec![value],
        Op::Visit { url } => vec![url],
        Op::Run { command } => vec![command],
        Op::Message { text } => vec![text],
        Op::OpenWith { path, .. } => vec![path],
        Op::SetRecordField { key, value, .. } => vec![key, value],
        _ => vec![],
    }
}

fn needs_doc(op: &Op) -> bool {
    match op {
        Op::Save | Op::SaveAs { .. } | Op::Export { .. } | Op::SetProp { .. } => true,
        Op::AppendDoc { .. } | Op::InsertFile { .. } => true,
        Op::Copy { what, .. } => matches!(what.as_str(), "document" | "table" | "image"),
        Op::Paste { into, .. } => into == "document",
        Op::Require { when, .. } => when == "doc",
        _ => false,
    }
}

/// Does the op make something new hold (the producing effect of a path)?
fn is_producer(op: &Op, catalog: &Catalog) -> bool {
    let kinds = op.produces(&|e| kind_of_ext(catalog, e));
    let useful = kinds.iter().any(|k| !k.ends_with("_in_processing"))
        || matches!(op, Op::Run { command } if command == "{command}");
    // Opening the file in another application (`open_with`, "edit the
    // screenshot") is no producer: that application opens the file itself.
    useful
        && matches!(
            op,
            Op::SaveAs { .. }
                | Op::Export { .. }
                | Op::Copy { .. }
                | Op::CreateDir { .. }
                | Op::Extract { .. }
                | Op::Compress { .. }
                | Op::Play { .. }
                | Op::AddRecord { .. }
                | Op::SetSetting { .. }
                | Op::Capture { .. }
                | Op::Record { .. }
                | Op::Download { .. }
                | Op::Evaluate { .. }
                | Op::CreateFile { .. }
        )
        || matches!(op, Op::Run { command } if command == "{command}")
}

/// The path kinds of a file extension.
pub fn kind_of_ext(catalog: &Catalog, ext: &str) -> Vec<String> {
    catalog
        .kinds
        .iter()
        .filter(|(_, k)| k.file_kinds.iter().any(|f| f == ext))
        .map(|(n, _)| n.clone())
        .collect()
}

/// The first file extension of a path kind.
fn ext_of_kind(catalog: &Catalog, kind: &str) -> Option<String> {
    catalog
        .kinds
        .get(kind)
        .and_then(|k| k.file_kinds.first().cloned())
}

/// A navigation edge: a click that moves the window to another screen.
#[derive(Debug, Clone)]
struct Hop {
    steps: Vec<Step>,
    slots: Vec<Slot>,
    phrases: Vec<String>,
    clicked: Vec<String>,
    to: String,
}

/// The screens reachable from `from` with the steps to get there (shortest first).
fn navigation(app: &AppSpec, from: &str) -> BTreeMap<String, Hop> {
    let mut out: BTreeMap<String, Hop> = BTreeMap::new();
    out.insert(
        from.to_string(),
        Hop {
            steps: vec![],
            slots: vec![],
            phrases: vec![],
            clicked: vec![],
            to: from.to_string(),
        },
    );
    let mut queue = VecDeque::from([from.to_string()]);
    while let Some(screen) = queue.pop_front() {
        let here = out[&screen].clone();
        for c in controls(app, &screen) {
            let Some(to) = c.click.iter().find_map(|e| match &e.op {
                Op::Goto { screen } => Some(screen.clone()),
                _ => None,
            }) else {
                continue;
            };
            if out.contains_key(&to) {
                continue;
            }
            // Only plain moves: no effect besides going there, literal fields and
            // conditions on the open document.
            let plain = c.click.iter().all(|e| match &e.op {
                Op::Goto { .. } => true,
                Op::SetField { value, .. } => {
                    !value.contains('{')
                        || (value == "{selected}" && c.control_type == ControlType::List)
                }
                Op::Require { when, .. } => when == "doc",
                _ => false,
            });
            if !plain {
                continue;
            }
            let mut hop = here.clone();
            hop.to = to.clone();
            if c.control_type == ControlType::List {
                let Some(ItemSource::Static { values }) = &c.items else {
                    continue;
                };
                let slot = slug_name(&c.text);
                hop.steps.push(Step::SelectItem {
                    list: c.text.clone(),
                    slot: slot.clone(),
                });
                hop.slots.push(Slot {
                    name: slot.clone(),
                    role: SlotRole::Choice {
                        values: values.clone(),
                    },
                    label: c.text.clone(),
                    says: None,
                });
                hop.phrases.push(format!("open '{{{slot}}}' in {}", c.text));
                // The field the list sets keeps the slot's name.
                if let Some(field) = c.click.iter().find_map(|e| match &e.op {
                    Op::SetField { field, value } if value == "{selected}" => Some(field.clone()),
                    _ => None,
                }) {
                    if let Some(s) = hop.slots.last_mut() {
                        s.label = field;
                    }
                }
            } else {
                hop.steps.push(Step::Click(c.text.clone()));
                hop.clicked.push(c.text.clone());
            }
            out.insert(to.clone(), hop);
            queue.push_back(to);
        }
    }
    out
}

fn slug_name(text: &str) -> String {
    crate::env::spec::slug(text)
}

/// The screen after running `effects` on `screen` (goto and back).
fn screen_after(effects: &[Effect], screen: &str, history: &mut Vec<String>) -> String {
    let mut cur = screen.to_string();
    for e in effects {
        match &e.op {
            Op::Goto { screen } => {
                history.push(cur.clone());
                cur = screen.clone();
            }
            Op::Back => {
                if let Some(p) = history.pop() {
                    cur = p;
                }
            }
            _ => {}
        }
    }
    cur
}

/// A way to open a document of the app: steps from the start screen.
#[derive(Debug, Clone)]
struct Opener {
    steps: Vec<Step>,
    clicked: Vec<String>,
    phrase: String,
    kinds: Vec<String>,
    end: String,
    slot_label: String,
}

fn openers(app: &AppSpec, catalog: &Catalog) -> Vec<Opener> {
    let nav = navigation(app, &app.start);
    let mut out = Vec::new();
    for (screen, hop) in &nav {
        let cs = controls(app, screen);
        for c in &cs {
            if c.click
                .iter()
                .any(|e| matches!(e.op, Op::CreateFile { .. } | Op::NewDocument { .. }))
            {
                continue;
            }
            if c.control_type == ControlType::List {
                let Some(kinds) = c.double.iter().find_map(|e| match &e.op {
                    Op::OpenFile { path, kinds } if path == "{selected_path}" => {
                        Some(kinds.clone())
                    }
                    _ => None,
                }) else {
                    continue;
                };
                if !matches!(c.items, Some(ItemSource::Dir { .. })) {
                    continue;
                }
                let mut steps = hop.steps.clone();
                steps.push(Step::OpenPath {
                    list: c.text.clone(),
                    slot: String::new(),
                });
                let mut h: Vec<String> = nav_history(app, hop);
                let end = screen_after(&c.double, screen, &mut h);
                let mut path_kinds = Vec::new();
                for e in &kinds {
                    for k in kind_of_ext(catalog, e) {
                        if !path_kinds.contains(&k) {
                            path_kinds.push(k);
                        }
                    }
                }
                out.push(Opener {
                    steps,
                    clicked: hop.clicked.clone(),
                    phrase: "open".to_string(),
                    kinds: path_kinds,
                    end,
                    slot_label: c.text.clone(),
                });
                continue;
            }
            let Some((path, kinds)) = c.click.iter().find_map(|e| match &e.op {
                Op::OpenFile { path, kinds } => Some((path.clone(), kinds.clone())),
                _ => None,
            }) else {
                continue;
            };
            let mut steps = hop.steps.clone();
            let label;
            if path == "{selected_path}" {
                let Some(list) = cs
                    .iter()
                    .find(|l| matches!(l.items, Some(ItemSource::Dir { .. })))
                else {
                    continue;
                };
                steps.push(Step::SelectPath {
                    list: list.text.clone(),
                    slot: String::new(),
                });
                label = list.text.clone();
            } else if let Some(field) = path.strip_prefix('{').and_then(|p| p.strip_suffix('}')) {
                let Some(edit) = cs
                    .iter()
                    .find(|e| e.control_type == ControlType::Edit && e.field_name() == field)
                else {
                    continue;
                };
                steps.push(Step::Type {
                    control: edit.text.clone(),
                    slot: String::new(),
                });
                label = edit.text.clone();
            } else {
                continue;
            }
            steps.push(Step::Click(c.text.clone()));
            let mut clicked = hop.clicked.clone();
            clicked.push(c.text.clone());
            let mut h: Vec<String> = nav_history(app, hop);
            let end = screen_after(&c.click, screen, &mut h);
            let describe = c
                .click
                .iter()
                .find_map(|e| e.describe.clone())
                .unwrap_or_else(|| "open".to_string());
            let mut path_kinds = Vec::new();
            for e in &kinds {
                for k in kind_of_ext(catalog, e) {
                    if !path_kinds.contains(&k) {
                        path_kinds.push(k);
                    }
                }
            }
            out.push(Opener {
                steps,
                clicked,
                phrase: describe,
                kinds: path_kinds,
                end,
                slot_label: label,
            });
        }
    }
    out
}

/// The screen history after following `hop` from the start screen.
fn nav_history(app: &AppSpec, hop: &Hop) -> Vec<String> {
    let mut history = Vec::new();
    let mut cur = app.start.clone();
    for s in &hop.steps {
        let text = match s {
            Step::Click(t) => t,
            Step::SelectItem { list, .. } => list,
            _ => continue,
        };
        if let Some(c) = controls(app, &cur).into_iter().find(|c| &c.text == text) {
            cur = screen_after(&c.click, &cur, &mut history);
        }
    }
    history
}

/// Every plan of one application, in a deterministic order.
pub fn plans(app: &AppSpec, catalog: &Catalog) -> Vec<Plan> {
    let opens = openers(app, catalog);
    let opener = opens
        .iter()
        .find(|o| o.steps.iter().any(|s| matches!(s, Step::Type { .. })))
        .or_else(|| opens.first())
        .cloned();
    let mut out = Vec::new();
    // Producers reachable without a document.
    let start_nav = navigation(app, &app.start);
    for (screen, hop) in &start_nav {
        for c in controls(app, screen) {
            out.extend(producer_plans(app, catalog, screen, &c, hop, None));
        }
    }
    // Producers after opening a document (screens reachable from where the opener ends).
    if let Some(op) = &opener {
        let nav = navigation(app, &op.end);
        for (screen, hop) in &nav {
            for c in controls(app, screen) {
                out.extend(producer_plans(app, catalog, screen, &c, hop, Some(op)));
            }
        }
    }
    // Modifier variants: one content change before the producing click.
    let mods = modifiers(app, catalog, opener.as_ref().map(|o| o.end.as_str()));
    let mut with_mods = Vec::new();
    for p in &out {
        if !p.steps.iter().any(|s| matches!(s, Step::Type { slot, .. } | Step::OpenPath { slot, .. } | Step::SelectPath { slot, .. } if p.slot(slot).is_some_and(|s| matches!(s.role, SlotRole::InputPath { .. }))))
        {
            continue;
        }
        for m in &mods {
            if let Some(v) = with_modifier(p, m, catalog) {
                with_mods.push(v);
            }
        }
    }
    // A copy of a file under a new name with nothing changed hands nothing new
    // to anyone: a same-kind Save As is kept only after a change.
    out.retain(|p| {
        !p.slots
            .iter()
            .any(|s| s.name.starts_with("new_") && matches!(s.role, SlotRole::OutputPath { .. }))
    });
    out.extend(with_mods);
    let gathered = gathering_variants(app, &out, catalog);
    out.extend(gathered);
    // Preset variants: a tab or button that sets a field the producing click reads.
    let mut presets = Vec::new();
    for p in &out {
        if p.slots
            .iter()
            .any(|s| matches!(s.role, SlotRole::InputPath { .. }))
        {
            continue;
        }
        for x in controls(app, &p.screen) {
            if x.text == p.producer || x.click.is_empty() || p.clicked.contains(&x.text) {
                continue;
            }
            let typed = |f: &str| {
                controls(app, &p.screen)
                    .iter()
                    .any(|y| y.control_type == ControlType::Edit && y.field_name() == f)
            };
            let sets_read = x.click.iter().all(|e| {
                matches!(&e.op, Op::SetField { field, value } if !value.contains('{') && field != "cwd" && p.reads.contains(field) && !typed(field))
            });
            if !sets_read {
                continue;
            }
            let mut v = p.clone();
            let at = v
                .steps
                .iter()
                .rposition(|s| matches!(s, Step::Click(t) if t == &p.producer))
                .unwrap_or(v.steps.len());
            v.steps.insert(at, Step::Click(x.text.clone()));
            let ci = v.clicked.len().saturating_sub(1);
            v.clicked.insert(ci, x.text.clone());
            let phrase = x
                .click
                .iter()
                .find_map(|e| e.describe.clone())
                .unwrap_or_else(|| format!("choose {}", x.text));
            let last = v.phrases.len().saturating_sub(1);
            v.phrases.insert(last, phrase);
            presets.push(v);
        }
    }
    out.extend(presets);
    // The text of a machine format (an iCalendar export) is for programs: no
    // subtask opens such a file as a document to copy its text or to save,
    // print or convert it for a reader. (Selecting it in a file list to zip,
    // move or attach it, or importing it, stays.)
    out.retain(|p| !reads_machine_text(p, catalog));
    let mut seen = BTreeSet::new();
    out.retain(|p| seen.insert(p.base_template()));
    out
}

/// Does plan `p` open a file whose text is a machine format
/// ([`crate::resources::KindSpec::machine_text`]) as a document, and then copy
/// its text or make another file of it?
fn reads_machine_text(p: &Plan, catalog: &Catalog) -> bool {
    let opened = |name: &str| {
        p.steps.iter().any(|st| {
            matches!(st, Step::Type { slot, .. } | Step::OpenPath { slot, .. } if slot == name)
        })
    };
    let machine = p.slots.iter().any(|s| {
        matches!(&s.role, SlotRole::InputPath { kind }
            if catalog.kinds.get(kind).is_some_and(|k| k.machine_text))
            && opened(&s.name)
    });
    let text_copy = crate::env::spec::clipboard_kind("text");
    let reads_out = p
        .produces
        .iter()
        .any(|k| k == text_copy || catalog.kinds.get(k).is_some_and(|x| x.is_path()));
    machine && reads_out
}

/// A content change on the document screen (set a property, add a line).
#[derive(Debug, Clone)]
struct Modifier {
    control: String,
    phrase: String,
    /// The Edit typed into and the field it fills.
    typed: Option<(String, String)>,
    /// The file kind the typed value names (an `insert_file`'s first kind): the
    /// value is then an input file, in slot `other_<kind>`.
    reads: Option<String>,
    /// The clipboard kind a paste into the document reads.
    pastes: Option<String>,
    /// Does it change the document's text (a line, a file, a paste), not only a
    /// property or the file on disk? Only such a change shows in a copy.
    content: bool,
    /// Does it change the document at all (not only save it)?
    edits: bool,
    /// Does it append a fixed line nobody chooses (a date, a "TODO" comment)?
    fixed_line: bool,
    /// The document kinds a paste makes sense in (empty: any).
    into_kinds: Vec<String>,
    /// The document properties it sets ("freeze", "wrap", "sort").
    props: Vec<String>,
}

fn modifiers(app: &AppSpec, catalog: &Catalog, doc_screen: Option<&str>) -> Vec<Modifier> {
    let Some(screen) = doc_screen else {
        return vec![];
    };
    let cs = controls(app, screen);
    let mut out = Vec::new();
    for c in &cs {
        if !matches!(c.control_type, ControlType::Button | ControlType::MenuItem)
            || c.click.is_empty()
        {
            continue;
        }
        let changes_doc = |op: &Op| {
            matches!(
                op,
                Op::SetProp { .. } | Op::AppendDoc { .. } | Op::InsertFile { .. } | Op::Save
            ) || matches!(op, Op::Paste { into, .. } if into == "document")
        };
        let only_doc = c
            .click
            .iter()
            .all(|e| changes_doc(&e.op) || matches!(e.op, Op::Require { .. }))
            && c.click.iter().any(|e| changes_doc(&e.op));
        if !only_doc {
            continue;
        }
        let Some(phrase) = c.click.iter().find_map(|e| e.describe.clone()) else {
            continue;
        };
        let mut typed = None;
        for e in &c.click {
            for t in op_templates(&e.op) {
                for name in crate::model::placeholders(t) {
                    if let Some(edit) = cs
                        .iter()
                        .find(|x| x.control_type == ControlType::Edit && x.field_name() == name)
                    {
                        typed = Some((edit.text.clone(), name));
                    } else {
                        typed = Some((String::new(), String::new()));
                    }
                }
            }
        }
        if typed.as_ref().is_some_and(|(c, _)| c.is_empty()) {
            continue;
        }
        let reads = c.click.iter().find_map(|e| match &e.op {
            Op::InsertFile { kinds, .. } => kinds
                .first()
                .and_then(|x| kind_of_ext(catalog, x).into_iter().next()),
            _ => None,
        });
        let pasted = c
            .click
            .iter()
            .flat_map(|e| e.op.pasted_kinds())
            .collect::<Vec<_>>();
        // A file inserted as something other than text (a picture) is a
        // property of the document, not its text: a plain format or a copy of
        // the text leaves it behind.
        let inserted_as = reads
            .as_ref()
            .and_then(|k| catalog.kinds.get(k))
            .and_then(|k| k.inserted_as.clone());
        let content = c.click.iter().any(|e| match e.op {
            Op::AppendDoc { .. } | Op::Paste { .. } => true,
            Op::InsertFile { .. } => inserted_as.is_none(),
            _ => false,
        });
        let edits = c
            .click
            .iter()
            .any(|e| !matches!(e.op, Op::Save | Op::Require { .. }));
        let fixed_line = c
            .click
            .iter()
            .any(|e| matches!(&e.op, Op::AppendDoc { text, .. } if !text.contains('{')));
        let into_kinds: Vec<String> = c
            .click
            .iter()
            .flat_map(|e| match &e.op {
                Op::Paste { files, .. } | Op::AppendDoc { files, .. } => files.clone(),
                _ => vec![],
            })
            .flat_map(|ext| kind_of_ext(catalog, &ext))
            .collect();
        let props: Vec<String> = c
            .click
            .iter()
            .filter_map(|e| match &e.op {
                Op::SetProp { prop, .. } => Some(prop.clone()),
                _ => None,
            })
            .chain(inserted_as)
            .collect();
        if pasted.is_empty() {
            out.push(Modifier {
                control: c.text.clone(),
                phrase: phrase.clone(),
                typed: typed.clone(),
                reads,
                pastes: None,
                content,
                edits,
                fixed_line,
                into_kinds: into_kinds.clone(),
                props: props.clone(),
            });
        }
        // A paste reads what another subtask copied: one modifier per kind the
        // target takes, worded after it ("paste the table on the clipboard").
        for kind in pasted {
            let what = catalog
                .kinds
                .get(&kind)
                .map(|k| k.phrase_for(None))
                .unwrap_or_else(|| "the clipboard".into());
            out.push(Modifier {
                control: c.text.clone(),
                phrase: phrase.replacen("the clipboard", &what, 1),
                typed: typed.clone(),
                reads: None,
                pastes: Some(kind),
                content,
                edits,
                fixed_line,
                into_kinds: into_kinds.clone(),
                props: props.clone(),
            });
        }
    }
    out
}

/// Is `kind` state the clipboard holds?
pub fn on_clipboard(catalog: &Catalog, kind: &str) -> bool {
    catalog
        .kinds
        .get(kind)
        .is_some_and(|k| k.holder.as_deref() == Some("clipboard"))
}

fn with_modifier(p: &Plan, m: &Modifier, catalog: &Catalog) -> Option<Plan> {
    // Insert the modifier right after the opener (its click ends the input steps).
    let first_input = p.steps.iter().position(|s| {
        matches!(
            s,
            Step::Type { .. } | Step::SelectPath { .. } | Step::OpenPath { .. }
        )
    })?;
    let at = if matches!(p.steps[first_input], Step::OpenPath { .. }) {
        first_input + 1
    } else {
        p.steps[first_input..]
            .iter()
            .position(|s| matches!(s, Step::Click(_)))
            .map(|i| first_input + i + 1)?
    };
    if p.clicked.contains(&m.control) {
        return None;
    }
    // Saving the file before saving it under a new name, exporting or copying it
    // changes nothing anyone gets.
    if !m.edits {
        return None;
    }
    // A property the saved format cannot keep (a frozen header or word wrap
    // saved as CSV or plain text) is lost on saving: nothing anyone gets.
    let lost = p.slots.iter().any(|s| match &s.role {
        SlotRole::OutputPath { kind, .. } => catalog
            .kinds
            .get(kind)
            .and_then(|k| k.keeps_props.as_ref())
            .is_some_and(|keeps| m.props.iter().any(|x| !keeps.contains(x))),
        _ => false,
    });
    if !m.content && lost {
        return None;
    }
    // Before a copy, only a change that the copy carries shows in what is
    // copied: the text, and the properties the clipboard kind keeps (a copied
    // image keeps its brightness, not a favourite mark; bold type or a save
    // before "copy the text" is lost on the way); pasting what is on the
    // clipboard and then copying over it hands nothing on.
    let copies = p.produces.iter().any(|k| on_clipboard(catalog, k));
    let carried = |k: &String| {
        on_clipboard(catalog, k)
            && catalog
                .kinds
                .get(k)
                .and_then(|s| s.keeps_props.as_ref())
                .is_some_and(|keeps| {
                    !m.props.is_empty() && m.props.iter().all(|x| keeps.contains(x))
                })
    };
    let carries_edits = p.produces.iter().any(carried);
    // A fixed line (the date, a "TODO" comment) added only to be copied along is
    // filler: nobody saves it, and the reader of the copy did not ask for it.
    if copies && (m.pastes.is_some() || m.fixed_line || !(m.content || carries_edits)) {
        return None;
    }
    // Nor does anyone join a second file in only to copy the result (append a
    // PDF, then copy the text): the join is kept where the joined file is saved.
    if copies && m.reads.is_some() {
        return None;
    }
    let opens_other = p.slots.iter().any(|s| {
        matches!(&s.role, SlotRole::InputPath { kind } if !m.into_kinds.is_empty() && !m.into_kinds.contains(kind))
    });
    if opens_other {
        return None;
    }
    let mut v = p.clone();
    v.pastes = m.pastes.clone();
    let mut insert = Vec::new();
    let mut phrase = m.phrase.clone();
    if let Some((control, field)) = &m.typed {
        let (name, role) = match &m.reads {
            Some(kind) => (
                format!("other_{kind}"),
                SlotRole::InputPath { kind: kind.clone() },
            ),
            None => (
                field.clone(),
                SlotRole::Text {
                    field: field.clone(),
                },
            ),
        };
        if v.slot(&name).is_some() {
            return None;
        }
        insert.push(Step::Type {
            control: control.clone(),
            slot: name.clone(),
        });
        v.slots.push(Slot {
            name: name.clone(),
            role,
            label: control.clone(),
            says: None,
        });
        phrase = format!("{phrase} '{{{name}}}'");
    }
    insert.push(Step::Click(m.control.clone()));
    for (i, s) in insert.into_iter().enumerate() {
        v.steps.insert(at + i, s);
    }
    let ci = v
        .clicked
        .iter()
        .position(|c| c == &v.producer)
        .unwrap_or(v.clicked.len());
    v.clicked.insert(ci.min(v.clicked.len()), m.control.clone());
    v.phrases.insert(1.min(v.phrases.len()), phrase);
    Some(v)
}

/// Plans whose producing click is control `c` on `screen`, reached by `hop`.
fn producer_plans(
    app: &AppSpec,
    catalog: &Catalog,
    screen: &str,
    c: &ControlSpec,
    hop: &Hop,
    opener: Option<&Opener>,
) -> Vec<Plan> {
    if c.control_type == ControlType::List || c.click.is_empty() {
        return vec![];
    }
    let Some(prod) = c.click.iter().find(|e| is_producer(&e.op, catalog)) else {
        return vec![];
    };
    let doc = c.click.iter().any(|e| needs_doc(&e.op))
        || c.click
            .iter()
            .any(|e| op_templates(&e.op).iter().any(|t| t.contains("{doc_")));
    if doc != opener.is_some() {
        return vec![];
    }
    let cs = controls(app, screen);
    let mut steps = Vec::new();
    let mut slots: Vec<Slot> = Vec::new();
    let mut phrases = Vec::new();
    let mut clicked = Vec::new();
    let mut input_kinds: Vec<Option<String>> = vec![None];
    if let Some(op) = opener {
        let mut s = op.steps.clone();
        for st in &mut s {
            match st {
                Step::Type { slot, .. }
                | Step::SelectPath { slot, .. }
                | Step::OpenPath { slot, .. }
                    if slot.is_empty() =>
                {
                    *slot = "@in".into()
                }
                _ => {}
            }
        }
        steps.extend(s);
        clicked.extend(op.clicked.clone());
        phrases.push(format!("{} '{{@in}}'", op.phrase));
        slots.push(Slot {
            name: "@in".into(),
            role: SlotRole::InputPath {
                kind: String::new(),
            },
            label: op.slot_label.clone(),
            says: None,
        });
        input_kinds = op.kinds.iter().cloned().map(Some).collect();
    }
    steps.extend(hop.steps.clone());
    slots.extend(hop.slots.clone());
    phrases.extend(hop.phrases.clone());
    clicked.extend(hop.clicked.clone());

    // What the producing click reads.
    let mut names: Vec<String> = Vec::new();
    let mut selection = false;
    for e in &c.click {
        if matches!(&e.op, Op::Copy { what, .. } if what == "selection") {
            selection = true;
        }
        if let Op::Require { when, .. } = &e.op {
            if when == "selection" {
                selection = true;
            }
            if let Some(f) = when.strip_prefix("field:") {
                names.push(f.to_string());
            }
        }
        let implicit: Vec<String> = match &e.op {
            Op::Download { .. } => vec!["url".into()],
            Op::Evaluate { field, .. } => vec![field.clone()],
            _ => vec![],
        };
        let mut read: Vec<String> = implicit;
        for t in op_templates(&e.op) {
            read.extend(crate::model::placeholders(t));
        }
        for n in read {
            if !names.contains(&n) {
                names.push(n);
            }
        }
    }
    let mut used_setters: Vec<String> = Vec::new();
    let mut pre_steps = Vec::new();
    let mut extra_ops: Vec<Op> = Vec::new();
    let mut typed_phrases = Vec::new();
    // Where the selection's phrase goes: before the phrases of setter clicks.
    let selection_at = phrases.len();
    let mut selected_phrase = None;
    for n in &names {
        if CONTEXT_NAMES.contains(&n.as_str())
            || n.starts_with("setting_")
            || n.starts_with("prop_")
        {
            continue;
        }
        if slots.iter().any(|s| &s.label == n || &s.name == n) {
            continue;
        }
        // The selection, or a field of the selected record (`selected_amount`).
        if n == "selected" || n.starts_with("selected_") {
            selection = true;
            continue;
        }
        if let Some(edit) = cs
            .iter()
            .find(|x| x.control_type == ControlType::Edit && &x.field_name() == n)
        {
            let (step, slot) = typed_slot(edit, n);
            pre_steps.push(step);
            slots.push(slot);
            typed_phrases.push(slots.len() - 1);
            continue;
        }
        if app.fields.get(n).is_some_and(|v| !v.is_empty()) {
            continue;
        }
        // A field another control on this screen sets (a visited page, a result).
        let mut setters: Vec<&ControlSpec> = cs
            .iter()
            .filter(|x| {
                x.text != c.text
                    && x.control_type != ControlType::List
                    && x.click.iter().any(|e| sets_field(&e.op, n))
                    && !x.click.iter().any(|e| {
                        op_templates(&e.op)
                            .iter()
                            .any(|t| t.contains(&format!("{{{n}}}")))
                    })
            })
            .collect();
        setters.sort_by_key(|x| {
            let typed = x.click.iter().any(|e| {
                op_templates(&e.op).iter().any(|t| {
                    crate::model::placeholders(t).iter().any(|m| {
                        cs.iter()
                            .any(|y| y.control_type == ControlType::Edit && &y.field_name() == m)
                    })
                })
            });
            // One that rewrites a typed field first (squares the number
            // typed) comes after one that takes it as typed (evaluates it).
            let rewrites = x.click.iter().any(|e| {
                let field = match &e.op {
                    Op::SetField { field, value } if value.contains(&format!("{{{field}}}")) => {
                        field
                    }
                    Op::AppendField { field, .. } => field,
                    _ => return false,
                };
                cs.iter()
                    .any(|y| y.control_type == ControlType::Edit && &y.field_name() == field)
            });
            (rewrites, !typed, x.describe.is_none())
        });
        if let Some(setter) = setters.first().copied() {
            if used_setters.contains(&setter.text) {
                continue;
            }
            used_setters.push(setter.text.clone());
            extra_ops.extend(setter.click.iter().map(|e| e.op.clone()));
            if setter
                .click
                .iter()
                .any(|e| matches!(e.op, Op::Paste { .. }))
            {
                return vec![];
            }
            let mut inner = Vec::new();
            for e in &setter.click {
                // What the setter reads: its templates' fields, and the field
                // an evaluation reads as typed (the calculator's display).
                let mut read: Vec<String> = match &e.op {
                    Op::Evaluate { field, .. } => vec![field.clone()],
                    _ => vec![],
                };
                for t in op_templates(&e.op) {
                    read.extend(crate::model::placeholders(t));
                }
                for m in read {
                    if m == "selected" || m.starts_with("selected_") {
                        selection = true;
                    }
                    if let Some(edit) = cs
                        .iter()
                        .find(|x| x.control_type == ControlType::Edit && x.field_name() == m)
                    {
                        if !slots.iter().any(|s| s.name == m) {
                            let (step, slot) = typed_slot(edit, &m);
                            inner.push(step);
                            slots.push(slot);
                            let d = setter
                                .click
                                .iter()
                                .find_map(|e| e.describe.clone())
                                .unwrap_or_else(|| format!("click '{}'", setter.text));
                            phrases.push(format!("{d} '{{{m}}}'"));
                        }
                    }
                }
            }
            if inner.is_empty() {
                let d = setter
                    .click
                    .iter()
                    .find_map(|e| e.describe.clone())
                    .unwrap_or_else(|| format!("click '{}'", setter.text));
                phrases.push(d);
            }
            pre_steps.extend(inner);
            pre_steps.push(Step::Click(setter.text.clone()));
            clicked.push(setter.text.clone());
            continue;
        }
        // A field a neighbouring screen sets and comes back (an attachment).
        if let Some((goto_ctl, edit, set_ctl, says)) = setter_screen(app, &cs, n) {
            pre_steps.push(Step::Click(goto_ctl.clone()));
            pre_steps.push(Step::Type {
                control: edit.clone(),
                slot: n.clone(),
            });
            pre_steps.push(Step::Click(set_ctl.clone()));
            clicked.push(goto_ctl.clone());
            clicked.push(set_ctl);
            slots.push(Slot {
                name: n.clone(),
                role: SlotRole::InputPath {
                    kind: String::new(),
                },
                label: edit,
                says,
            });
            typed_phrases.push(slots.len() - 1);
            continue;
        }
        return vec![];
    }
    if selection {
        let Some(list) = cs
            .iter()
            .find(|l| l.control_type == ControlType::List && l.items.is_some())
        else {
            return vec![];
        };
        match list.items.as_ref() {
            Some(ItemSource::Dir { kinds, .. }) => {
                steps.push(Step::SelectPath {
                    list: list.text.clone(),
                    slot: "@sel".into(),
                });
                slots.push(Slot {
                    name: "@sel".into(),
                    role: SlotRole::InputPath {
                        kind: String::new(),
                    },
                    label: list.text.clone(),
                    says: None,
                });
                let mut ks = Vec::new();
                for e in kinds {
                    for k in kind_of_ext(catalog, e) {
                        if !ks.contains(&k) {
                            ks.push(k);
                        }
                    }
                }
                if let Op::Extract { .. } = prod.op {
                    ks = vec!["zip_path".into()];
                }
                if let Op::Play { .. } = prod.op {
                    ks.retain(|k| k == "audio_path" || k == "video_path");
                    if ks.is_empty() {
                        ks = vec!["audio_path".into(), "video_path".into()];
                    }
                }
                if ks.is_empty() {
                    ks = catalog
                        .kinds
                        .iter()
                        .filter(|(_, k)| !k.file_kinds.is_empty())
                        .map(|(n, _)| n.clone())
                        .collect();
                }
                if opener.is_some() {
                    return vec![];
                }
                input_kinds = ks.into_iter().map(Some).collect();
                selected_phrase = Some("select '{@sel}'".to_string());
            }
            Some(ItemSource::Collection { name }) => {
                let Some(spec) = collection_spec(name) else {
                    return vec![];
                };
                steps.push(Step::SelectItem {
                    list: list.text.clone(),
                    slot: spec.kind.to_string(),
                });
                slots.push(Slot {
                    name: spec.kind.to_string(),
                    role: SlotRole::InputRecord {
                        kind: spec.kind.to_string(),
                    },
                    label: list.text.clone(),
                    says: None,
                });
                selected_phrase = Some(format!("select '{{{}}}'", spec.kind));
            }
            Some(ItemSource::Static { values }) => {
                let name = slug_name(&list.text);
                steps.push(Step::SelectItem {
                    list: list.text.clone(),
                    slot: name.clone(),
                });
                slots.push(Slot {
                    name: name.clone(),
                    role: SlotRole::Choice {
                        values: values.clone(),
                    },
                    label: list.text.clone(),
                    says: None,
                });
                selected_phrase = Some(format!("select '{{{name}}}'"));
            }
            _ => return vec![],
        }
    }
    steps.extend(pre_steps);
    steps.push(Step::Click(c.text.clone()));
    clicked.push(c.text.clone());
    if let Some(p) = selected_phrase {
        phrases.insert(selection_at.min(phrases.len()), p);
    }
    let describe = c
        .click
        .iter()
        .find_map(|e| e.describe.clone())
        .unwrap_or_else(|| format!("click '{}'", c.text));
    let mut produces = prod.op.produces(&|e| kind_of_ext(catalog, e));
    if let Op::Run { .. } = prod.op {
        produces = vec!["txt_path".into(), "dir_path".into()];
    }

    // Name the slots after the resources they stand for.
    let mut base = Plan {
        app: app.name.clone(),
        steps,
        slots,
        phrases,
        clicked,
        producer: c.text.clone(),
        produces: produces.clone(),
        screen: screen.to_string(),
        reads: names.clone(),
        native_ext: match &prod.op {
            Op::SaveAs { kinds, .. } => kinds.first().cloned(),
            _ => None,
        },
        pastes: None,
    };
    for op in &extra_ops {
        classify(&mut base, op, catalog);
    }
    for e in &c.click {
        classify(&mut base, &e.op, catalog);
    }
    // A typed field a button on the screen can fill from the clipboard (a mail's
    // body): besides typing it, the path may paste what another subtask copied.
    let mut bases = vec![with_typed(
        base.clone(),
        &describe,
        &typed_phrases,
        None,
        catalog,
    )];
    if let Some((t, control, kinds)) = typed_phrases.iter().find_map(|&t| {
        let slot = base.slots.get(t)?;
        if !matches!(slot.role, SlotRole::Text { .. }) {
            return None;
        }
        let x = cs.iter().find(|x| {
            x.text != c.text
                && !x.click.is_empty()
                && x.click
                    .iter()
                    .all(|e| matches!(&e.op, Op::Paste { into, .. } if into == &slot.name))
        })?;
        Some((t, x.text.clone(), x.click[0].op.pasted_kinds()))
    }) {
        for kind in kinds {
            let pasted = Pasted {
                slot: t,
                control: control.clone(),
                kind,
            };
            bases.push(with_typed(
                base.clone(),
                &describe,
                &typed_phrases,
                Some(&pasted),
                catalog,
            ));
        }
    }

    // One variant per input kind (and per output extension for Save As).
    let mut out = Vec::new();
    for (base, ik) in bases
        .iter()
        .flat_map(|b| input_kinds.iter().map(move |ik| (b, ik.clone())))
    {
        let mut p = base.clone();
        if let Some(k) = &ik {
            let in_name = if p.slot("@in").is_some() {
                "@in"
            } else {
                "@sel"
            };
            if p.slot(in_name).is_none() {
                continue;
            }
            let role = SlotRole::InputPath { kind: k.clone() };
            if !rename_slot(&mut p, in_name, k, role.clone()) {
                // The output took the kind's name ("save as '{pdf_path}'"): it
                // becomes the new file of that kind, `new_<kind>`.
                let Some(out) = p
                    .slot(k)
                    .filter(|s| matches!(s.role, SlotRole::OutputPath { .. }))
                    .cloned()
                else {
                    continue;
                };
                if !rename_slot(&mut p, k, &format!("new_{k}"), out.role)
                    || !rename_slot(&mut p, in_name, k, role)
                {
                    continue;
                }
            }
        } else if p.slot("@in").is_some() || p.slot("@sel").is_some() {
            continue;
        }
        // Attachments and other untyped input paths: one variant per path kind.
        let open_slots: Vec<String> = p
            .slots
            .iter()
            .filter(|s| matches!(&s.role, SlotRole::InputPath { kind } if kind.is_empty()))
            .map(|s| s.name.clone())
            .collect();
        let mut variants = vec![p];
        for n in open_slots {
            let mut next = Vec::new();
            for v in &variants {
                // A picker whose file list shows only some extensions (pictures
                // for a wallpaper) offers only their kinds.
                let shown = picker_kinds(app, &cs, &n, catalog);
                let file_kinds = catalog
                    .kinds
                    .iter()
                    .filter(|(_, spec)| !spec.file_kinds.is_empty())
                    .map(|(k, _)| k.as_str())
                    .filter(|k| shown.is_empty() || shown.iter().any(|s| s == k));
                for k in file_kinds {
                    let mut w = v.clone();
                    if rename_slot(
                        &mut w,
                        &n,
                        k,
                        SlotRole::InputPath {
                            kind: k.to_string(),
                        },
                    ) {
                        next.push(w);
                    }
                }
            }
            variants = next;
        }
        for v in variants {
            out.extend(output_variants(v, catalog));
        }
    }
    out
}

/// A typed field filled from the clipboard instead: the slot (index into the
/// plan's slots), the button that pastes into it, the clipboard kind it reads.
struct Pasted {
    slot: usize,
    control: String,
    kind: String,
}

/// `base` with its producing phrase: `describe` followed by the values typed into
/// slots `typed` ("send the e-mail '{email_sent}' with To '{email_address}'"). With
/// `pasted`, that slot's Edit is filled by clicking its paste button rather than by
/// typing, and the phrase names the clipboard's content instead of a value.
fn with_typed(
    mut base: Plan,
    describe: &str,
    typed: &[usize],
    pasted: Option<&Pasted>,
    catalog: &Catalog,
) -> Plan {
    let mut phrase = describe.to_string();
    let mut extra: Vec<String> = Vec::new();
    for &t in typed {
        let Some(slot) = base.slots.get(t) else {
            continue;
        };
        let name = slot.name.clone();
        match &slot.role {
            SlotRole::OutputPath { .. } => phrase.push_str(&format!(" as '{{{name}}}'")),
            SlotRole::OutputRecord { .. } => phrase.push_str(&format!(" '{{{name}}}'")),
            _ if pasted.is_some_and(|p| p.slot == t) => {
                let kind = &pasted.map(|p| p.kind.clone()).unwrap_or_default();
                let what = catalog
                    .kinds
                    .get(kind)
                    .map(|k| k.phrase_for(None))
                    .unwrap_or_else(|| "the clipboard".into());
                extra.push(match &slot.says {
                    Some(says) => says.replace("'{}'", &what).replace("{}", &what),
                    None => format!("with {what} as {}", slot.label),
                })
            }
            _ => extra.push(match &slot.says {
                Some(says) => says.replace("{}", &format!("{{{name}}}")),
                None => format!("with {} '{{{name}}}'", slot.label),
            }),
        }
    }
    if !extra.is_empty() {
        phrase.push(' ');
        phrase.push_str(&join_pieces(&extra));
    }
    base.phrases.push(phrase);
    if let Some(p) = pasted {
        let name = base.slots[p.slot].name.clone();
        for st in &mut base.steps {
            if matches!(st, Step::Type { slot, .. } if slot == &name) {
                *st = Step::Click(p.control.clone());
            }
        }
        base.slots.remove(p.slot);
        let at = base
            .clicked
            .iter()
            .position(|c| c == &base.producer)
            .unwrap_or(base.clicked.len());
        base.clicked.insert(at, p.control.clone());
        base.pastes = Some(p.kind.clone());
    }
    base
}

/// The value phrases of one action in a row: "to 'a', with 'b' attached and with
/// the copied text as the body".
fn join_pieces(pieces: &[String]) -> String {
    match pieces {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Typing field `name` into Edit `edit`: the step and the text slot it fills.
fn typed_slot(edit: &ControlSpec, name: &str) -> (Step, Slot) {
    (
        Step::Type {
            control: edit.text.clone(),
            slot: name.to_string(),
        },
        Slot {
            name: name.to_string(),
            role: SlotRole::Text {
                field: name.to_string(),
            },
            label: edit.text.clone(),
            says: edit.says.clone(),
        },
    )
}

fn sets_field(op: &Op, name: &str) -> bool {
    match op {
        Op::Visit { .. } => name == "url" || name == "page",
        Op::Evaluate { into, .. } => into == name,
        Op::Capture { .. } => name == "last_capture",
        Op::Record { .. } => name == "last_recording",
        Op::Run { .. } => name == "output" || name == "last_output",
        Op::Paste { into, .. } => into == name,
        Op::AppendField { field, .. } => field == name,
        // A state a control turns on (a recording started), not one it clears.
        Op::SetField { field, value } => field == name && !value.is_empty(),
        _ => false,
    }
}

/// A control on a screen one click away that sets field `name` from an Edit and
/// comes back: (the control that goes there, the Edit, the control that sets,
/// the Edit's `says`).
fn setter_screen(
    app: &AppSpec,
    cs: &[ControlSpec],
    name: &str,
) -> Option<(String, String, String, Option<String>)> {
    for c in cs {
        let Some(to) = c.click.iter().find_map(|e| match &e.op {
            Op::Goto { screen } => Some(screen.clone()),
            _ => None,
        }) else {
            continue;
        };
        let other = controls(app, &to);
        for s in &other {
            let sets = s.click.iter().find_map(|e| match &e.op {
                Op::SetField { field, value } | Op::AppendField { field, value, .. }
                    if field == name =>
                {
                    value
                        .strip_prefix('{')
                        .and_then(|v| v.strip_suffix('}'))
                        .map(str::to_string)
                }
                _ => None,
            });
            let Some(from) = sets else { continue };
            if !s.click.iter().any(|e| matches!(e.op, Op::Back)) {
                continue;
            }
            if let Some(edit) = other
                .iter()
                .find(|e| e.control_type == ControlType::Edit && e.field_name() == from)
            {
                return Some((
                    c.text.clone(),
                    edit.text.clone(),
                    s.text.clone(),
                    edit.says.clone(),
                ));
            }
        }
    }
    None
}

/// The path kinds the file list of the screen that sets field `name` shows (see
/// [`setter_screen`]); empty when that list shows every file.
fn picker_kinds(app: &AppSpec, cs: &[ControlSpec], name: &str, catalog: &Catalog) -> Vec<String> {
    let mut out = Vec::new();
    for c in cs {
        let Some(to) = c.click.iter().find_map(|e| match &e.op {
            Op::Goto { screen } => Some(screen.clone()),
            _ => None,
        }) else {
            continue;
        };
        let other = controls(app, &to);
        if !other.iter().any(|s| {
            s.click
                .iter()
                .any(|e| matches!(&e.op, Op::SetField { field, .. } | Op::AppendField { field, .. } if field == name))
        }) {
            continue;
        }
        for l in &other {
            if let Some(ItemSource::Dir { kinds, .. }) = &l.items {
                for e in kinds {
                    for k in kind_of_ext(catalog, e) {
                        if !out.contains(&k) {
                            out.push(k);
                        }
                    }
                }
            }
        }
        if !out.is_empty() {
            return out;
        }
    }
    out
}

/// Paths that gather two files where the spec lets a list be built: a file
/// selected, then a control clicked that appends the selection to a field the
/// producing click reads (Archiver's Add before Compress), when the click
/// makes an archive. The variant selects a second file of the first one's kind
/// (`other_<kind>`) and clicks the same control again: a zip of two files is
/// something to hand on, a zip of one is not. (A mail of several attachments
/// is a bundle of the explorer's, of files of several applications.)
fn gathering_variants(app: &AppSpec, plans: &[Plan], catalog: &Catalog) -> Vec<Plan> {
    plans
        .iter()
        .filter(|p| p.wrapping_output(catalog).is_some())
        .filter_map(|p| {
            let kind = gathers(app, p)?;
            bundle_variant(app, p, &[kind.clone(), kind])
        })
        .collect()
}

/// The kind of the file `plan` selects and appends to a list its producing
/// click reads (see [`gathering_variants`]), when it gathers one file so.
pub fn gathers(app: &AppSpec, plan: &Plan) -> Option<String> {
    gathering_point(app, plan).map(|g| g.kind)
}

/// Where a gathering plan selects and appends its file.
struct Gathering {
    /// Index of the first step of the segment that adds one file.
    at: usize,
    /// The steps that add one file (`slot` is their file slot): a selection
    /// and the click that appends it (Archiver's Add), or the click that opens
    /// a picker, the typed path and the click that appends it and comes back
    /// (Mail's Attach).
    segment: Vec<Step>,
    slot: String,
    kind: String,
    /// The label of the control the file goes into (for wording).
    label: String,
    /// The phrase that names the file, and how more files are worded in it.
    phrase_at: usize,
    wording: ListWording,
}

/// How a bundle's further files are worded.
enum ListWording {
    /// "select 'a', add it to the archive list, repeat with 'b' and 'c'".
    Repeat,
    /// "with 'a', 'b' and 'c' attached": the quoted file becomes a list.
    InPlace,
}

fn gathering_point(app: &AppSpec, p: &Plan) -> Option<Gathering> {
    let appends = |text: &str, selection: bool| {
        app.screens.values().flat_map(|s| &s.controls).any(|c| {
            let c = c.get_ref();
            c.text == text
                && c.click.iter().any(|e| match &e.op {
                    Op::AppendField { value, .. } if selection => value.contains("{selected"),
                    Op::AppendField { value, .. } => value.starts_with('{') && value.ends_with('}'),
                    _ => false,
                })
        })
    };
    let kind_of = |slot: &str| match p.slot(slot).map(|s| &s.role) {
        Some(SlotRole::InputPath { kind }) if !kind.is_empty() => Some(kind.clone()),
        _ => None,
    };
    // A selection and the click on its screen that appends it.
    let picked = p.steps.windows(2).enumerate().find_map(|(at, w)| match w {
        [Step::SelectPath { list, slot }, Step::Click(c)]
            if controls(app, &p.screen).iter().any(|x| x.text == *c) && appends(c, true) =>
        {
            let selected = format!("select '{{{slot}}}'");
            Some(Gathering {
                at,
                segment: w.to_vec(),
                slot: slot.clone(),
                kind: kind_of(slot)?,
                label: list.clone(),
                phrase_at: p.phrases.iter().position(|ph| *ph == selected)?,
                wording: ListWording::Repeat,
            })
        }
        _ => None,
    });
    if picked.is_some() {
        return picked;
    }
    // A picker one click away whose typed path is appended on the way back.
    p.steps.windows(3).enumerate().find_map(|(at, w)| match w {
        [Step::Click(_), Step::Type { control, slot }, Step::Click(c)] if appends(c, false) => {
            let quoted = format!("'{{{slot}}}'");
            Some(Gathering {
                at,
                segment: w.to_vec(),
                slot: slot.clone(),
                kind: kind_of(slot)?,
                label: control.clone(),
                phrase_at: p.phrases.iter().position(|ph| ph.contains(&quoted))?,
                wording: ListWording::InPlace,
            })
        }
        _ => None,
    })
}

/// Ordinal prefixes of the slots of a kind's later files in a bundle: the
/// second PDF is `other_pdf_path`, the third `third_pdf_path`.
const ORDINALS: [&str; 5] = ["", "other_", "third_", "fourth_", "fifth_"];

/// The largest bundle [`bundle_variant`] builds.
pub const MAX_BUNDLE: usize = ORDINALS.len();

/// The plan a subtask was worded from: the longest of `plans` (the static
/// analysis) that `worded` accepts, else a bundle ([`bundle_variant`]) of
/// `input_kinds` (the kinds of the subtask's inputs, in order, three or more)
/// built on a gathering plan of the first kind, when `worded` accepts it. The
/// explorer, the coder and the actor all read a subtask through this, so a
/// bundle's checks and demonstration follow its path like any other's.
pub fn worded_plan(
    app: &AppSpec,
    plans: &[Plan],
    input_kinds: &[String],
    worded: impl Fn(&Plan) -> bool,
) -> Option<Plan> {
    if let Some(p) = plans
        .iter()
        .filter(|p| worded(p))
        .max_by_key(|p| p.base_template().len())
    {
        return Some(p.clone());
    }
    plans
        .iter()
        .filter(|p| p.input_path_kinds().len() == 1)
        .filter_map(|p| {
            // The subtask's inputs less the plan's other inputs (the address
            // a bundle is mailed to) are the bundle's files.
            let mut files = input_kinds.to_vec();
            for s in &p.slots {
                if let SlotRole::InputRecord { kind } = &s.role {
                    let at = files.iter().position(|k| k == kind)?;
                    files.remove(at);
                }
            }
            let first = gathers(app, p)?;
            (files.len() >= 3 && files.first() == Some(&first))
                .then(|| bundle_variant(app, p, &files))
                .flatten()
        })
        .find(|p| worded(p))
}

/// The slot names of a bundle of `kinds` ([`bundle_variant`]): the kind, then
/// its ordinals; cut short at a kind repeated more than [`MAX_BUNDLE`] times.
pub fn bundle_slot_names(kinds: &[String]) -> Vec<String> {
    let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut names = Vec::new();
    for k in kinds {
        let n = seen.entry(k.as_str()).or_insert(0);
        let Some(ordinal) = ORDINALS.get(*n) else {
            break;
        };
        names.push(format!("{ordinal}{k}"));
        *n += 1;
    }
    names
}

/// A gathering plan that selects and appends one file of each of `kinds` in
/// turn (kinds may repeat: two PDFs and a workbook), the first of which must be
/// the kind `plan` already gathers: a launch kit zipped from the deck's PDF, the
/// budget's PDF and the product photo. Slots are named by kind, a repeated
/// kind by its ordinal (`other_pdf_path`, `third_pdf_path`). `None` when
/// `plan` gathers nothing, gathers another first kind, or `kinds` has fewer
/// than two files or more than [`MAX_BUNDLE`] of one kind.
pub fn bundle_variant(app: &AppSpec, plan: &Plan, kinds: &[String]) -> Option<Plan> {
    let g = gathering_point(app, plan)?;
    if kinds.len() < 2 || kinds.first() != Some(&g.kind) {
        return None;
    }
    let mut v = plan.clone();
    let names = bundle_slot_names(kinds);
    if names.len() != kinds.len()
        || names[0] != g.slot
        || names[1..].iter().any(|n| plan.slot(n).is_some())
    {
        return None;
    }
    let width = g.segment.len();
    for (i, (name, kind)) in names.iter().zip(kinds).enumerate().skip(1) {
        let at = g.at + width * i;
        for (j, step) in g.segment.iter().enumerate() {
            let step = match step {
                Step::SelectPath { list, .. } => Step::SelectPath {
                    list: list.clone(),
                    slot: name.clone(),
                },
                Step::Type { control, .. } => Step::Type {
                    control: control.clone(),
                    slot: name.clone(),
                },
                other => other.clone(),
            };
            v.steps.insert(at + j, step);
        }
        v.slots.push(Slot {
            name: name.clone(),
            role: SlotRole::InputPath { kind: kind.clone() },
            label: g.label.clone(),
            says: None,
        });
    }
    let quoted: Vec<String> = names.iter().map(|n| format!("'{{{n}}}'")).collect();
    match g.wording {
        ListWording::Repeat => {
            let after_add = (g.phrase_at + 2).min(v.phrases.len());
            v.phrases
                .insert(after_add, format!("repeat with {}", and_list(&quoted[1..])));
        }
        ListWording::InPlace => {
            let phrase = &mut v.phrases[g.phrase_at];
            *phrase = phrase.replacen(&quoted[0], &and_list(&quoted), 1);
        }
    }
    Some(v)
}

/// "'a'", "'a' and 'b'", "'a', 'b' and 'c'".
fn and_list(items: &[String]) -> String {
    match items.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Renames a slot everywhere (steps, phrases); false when the name is taken.
fn rename_slot(p: &mut Plan, from: &str, to: &str, role: SlotRole) -> bool {
    if from != to && p.slot(to).is_some() {
        return false;
    }
    for s in &mut p.slots {
        if s.name == from {
            s.name = to.to_string();
            s.role = role.clone();
        }
    }
    for st in &mut p.steps {
        match st {
            Step::Type { slot, .. }
            | Step::SelectPath { slot, .. }
            | Step::SelectItem { slot, .. }
            | Step::OpenPath { slot, .. }
                if slot == from =>
            {
                *slot = to.to_string()
            }
            _ => {}
        }
    }
    let old = format!("{{{from}}}");
    let new = format!("{{{to}}}");
    for ph in &mut p.phrases {
        *ph = ph.replace(&old, &new);
    }
    true
}

/// Gives typed slots their resource meaning from the op that reads them.
fn classify(p: &mut Plan, op: &Op, catalog: &Catalog) {
    let exact = |t: &str| -> Option<String> {
        t.strip_prefix('{')
            .and_then(|v| v.strip_suffix('}'))
            .filter(|v| !v.contains('{'))
            .map(str::to_string)
    };
    let mut rename: Vec<(String, String, SlotRole)> = Vec::new();
    match op {
        Op::SaveAs { path, kinds } => {
            if let Some(f) = exact(path) {
                // The extension is chosen per variant; mark with the first kind.
                let ext = kinds.first().cloned().unwrap_or_default();
                if let Some(k) = kind_of_ext(catalog, &ext).first() {
                    rename.push((
                        f,
                        k.clone(),
                        SlotRole::OutputPath {
                            kind: k.clone(),
                            ext,
                        },
                    ));
                }
            }
        }
        Op::Export { path, kind: ext } => {
            if let Some(f) = exact(path) {
                if let Some(k) = kind_of_ext(catalog, ext).first() {
                    rename.push((
                        f,
                        k.clone(),
                        SlotRole::OutputPath {
                            kind: k.clone(),
                            ext: ext.clone(),
                        },
                    ));
                }
            }
        }
        Op::Compress { path, .. } => {
            if let Some(f) = exact(path) {
                rename.push((
                    f,
                    "zip_path".into(),
                    SlotRole::OutputPath {
                        kind: "zip_path".into(),
                        ext: "zip".into(),
                    },
                ));
            }
        }
        Op::Capture { path } if !path.is_empty() => {
            if let Some(f) = exact(path) {
                rename.push((
                    f,
                    "img_path".into(),
                    SlotRole::OutputPath {
                        kind: "img_path".into(),
                        ext: "png".into(),
                    },
                ));
            }
        }
        Op::Record { path } => {
            if let Some(f) = exact(path) {
                rename.push((
                    f,
                    "video_path".into(),
                    SlotRole::OutputPath {
                        kind: "video_path".into(),
                        ext: "mp4".into(),
                    },
                ));
            }
        }
        Op::CreateDir { path } => {
            if let Some(f) = exact(path) {
                rename.push((
                    f,
                    "dir_path".into(),
                    SlotRole::OutputPath {
                        kind: "dir_path".into(),
                        ext: String::new(),
                    },
                ));
            }
        }
        Op::Extract { dest, .. } => {
            if let Some(f) = exact(dest) {
                if f != "cwd" {
                    rename.push((
                        f,
                        "dir_path".into(),
                        SlotRole::OutputPath {
                            kind: "dir_path".into(),
                            ext: String::new(),
                        },
                    ));
                }
            }
        }
        Op::CreateFile { path, .. } => {
            if let Some(f) = exact(path) {
                let ext = ext_of_kind(catalog, "txt_path").unwrap_or_else(|| "txt".into());
                rename.push((
                    f,
                    "txt_path".into(),
                    SlotRole::OutputPath {
                        kind: "txt_path".into(),
                        ext,
                    },
                ));
            }
        }
        Op::AddRecord { collection, fields } => {
            if let Some(spec) = collection_spec(collection) {
                for (k, v) in fields {
                    let Some(f) = exact(v) else { continue };
                    if k == spec.key {
                        let role = match p
                            .slots
                            .iter()
                            .find(|s| s.name == f || s.label == f)
                            .map(|s| s.role.clone())
                        {
                            Some(SlotRole::Choice { values }) => SlotRole::Choice { values },
                            _ => SlotRole::OutputRecord {
                                kind: spec.kind.to_string(),
                            },
                        };
                        rename.push((f, spec.kind.to_string(), role));
                    } else if k == "to" && collection == "sent_mail" {
                        rename.push((
                            f,
                            "email_address".into(),
                            SlotRole::InputRecord {
                                kind: "email_address".into(),
                            },
                        ));
                    } else if k == "attachment" {
                        // Attachment slots are typed per variant later.
                    }
                }
            }
        }
        Op::Play { path } => {
            if let Some(f) = exact(path) {
                if f != "selected_path" && f != "doc_path" {
                    rename.push((
                        f,
                        "audio_path".into(),
                        SlotRole::InputPath {
                            kind: "audio_path".into(),
                        },
                    ));
                }
            }
        }
        Op::Visit { url } => {
            if let Some(f) = exact(url) {
                if f != "url" {
                    rename.push((
                        f,
                        "url".into(),
                        SlotRole::InputRecord { kind: "url".into() },
                    ));
                }
            }
        }
        Op::SetSetting { value, .. } => {
            if let Some(f) = exact(value) {
                rename.push((
                    f,
                    "setting_value".into(),
                    SlotRole::OutputRecord {
                        kind: "setting_value".into(),
                    },
                ));
            }
        }
        _ => {}
    }
    for (from, to, role) in rename {
        let Some(from) = p
            .slots
            .iter()
            .find(|s| s.name == from || s.label == from)
            .map(|s| s.name.clone())
        else {
            continue;
        };
        if p.slot(&from)
            .is_some_and(|s| matches!(s.role, SlotRole::Text { .. } | SlotRole::Choice { .. }))
        {
            // A taken name means the plan would need the same kind twice.
            if !rename_slot(p, &from, &to, role) {
                p.slots.retain(|s| s.name != "@invalid");
                p.phrases.push("@invalid".into());
            }
        }
    }
}

/// Save As variants: one per target extension whose kind is not an input kind.
fn output_variants(p: Plan, catalog: &Catalog) -> Vec<Plan> {
    if p.phrases.iter().any(|ph| ph == "@invalid") {
        return vec![];
    }
    let inputs = p.input_kinds();
    let Some(out_slot) = p
        .slots
        .iter()
        .find(|s| matches!(s.role, SlotRole::OutputPath { .. }))
        .cloned()
    else {
        return vec![p];
    };
    let SlotRole::OutputPath { kind, .. } = &out_slot.role else {
        return vec![p];
    };
    if !p.produces.contains(kind) {
        // The output comes from an earlier click (a setter); keep its kind.
        return vec![p];
    }
    // The producing op's possible extensions.
    let mut exts: Vec<String> = Vec::new();
    for k in &p.produces {
        if let Some(spec) = catalog.kinds.get(k) {
            for e in &spec.file_kinds {
                if !exts.contains(e) {
                    exts.push(e.clone());
                }
            }
        }
    }
    // When the producer can write the kind it read (a Save As), it makes a copy of
    // that kind or one in the application's own format (the first it lists):
    // renaming 'index.html' to 'index.md' converts nothing.
    let ext_kinds: Vec<String> = exts
        .iter()
        .filter_map(|e| kind_of_ext(catalog, e).into_iter().next())
        .collect();
    let rewrites_input = ext_kinds.iter().any(|k| inputs.contains(k));
    let native = p
        .native_ext
        .as_deref()
        .and_then(|e| kind_of_ext(catalog, e).into_iter().next());
    let mut out = Vec::new();
    let mut kinds_done = BTreeSet::new();
    for e in exts {
        let Some(k) = kind_of_ext(catalog, &e).into_iter().next() else {
            continue;
        };
        if rewrites_input && !inputs.contains(&k) && Some(&k) != native.as_ref() {
            continue;
        }
        if !kinds_done.insert(k.clone()) {
            continue;
        }
        // A new file of a kind the plan also reads ("save a.txt as b.txt") gets
        // its own slot, `new_<kind>`, so input and output stay apart.
        let name = if inputs.contains(&k) {
            format!("new_{k}")
        } else {
            k.clone()
        };
        let mut v = p.clone();
        if name != out_slot.name && v.slot(&name).is_some() {
            continue;
        }
        rename_slot(
            &mut v,
            &out_slot.name,
            &name,
            SlotRole::OutputPath {
                kind: k.clone(),
                ext: e.clone(),
            },
        );
        out.push(v);
    }
    if out.is_empty() && !inputs.contains(kind) && p.produces.contains(kind) {
        return vec![p];
    }
    if out.is_empty() && kind == "dir_path" {
        return vec![p];
    }
    out
}

/// Why a plan could not be run with some values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunFailure(pub String);

/// Runs `plan` with `values` on a copy of `base` (whose active window is none) and
/// returns the desktop afterwards. A step that opens an error dialog or finds no
/// control fails the run.
pub fn execute(
    base: &dyn Replica,
    plan: &Plan,
    values: &ParameterSet,
) -> Result<Box<dyn Replica>, RunFailure> {
    let mut d = base.fork();
    d.launch(&plan.app).map_err(|e| RunFailure(e.to_string()))?;
    Ok(actions_of(&*d, plan, values)?.0)
}

/// Runs the steps of `plan` with `values` from `start` (the application's window
/// already in front): the desktop after them and every action taken, in order
/// (the clicks, typing, scrolling and double clicks the steps come down to).
///
/// # Errors
/// The first step that fails, with the desktop's feedback.
pub fn actions_of(
    start: &dyn Replica,
    plan: &Plan,
    values: &ParameterSet,
) -> Result<(Box<dyn Replica>, Vec<Action>), RunFailure> {
    let mut d = Runner {
        d: start.fork(),
        log: Vec::new(),
    };
    for step in &plan.steps {
        match step {
            Step::Click(text) => act(&mut d, click(text))?,
            Step::Type { control, slot } => {
                let v = values
                    .get(slot)
                    .ok_or_else(|| RunFailure(format!("no value for {slot}")))?;
                act(
                    &mut d,
                    Action {
                        call: ActionCall::KeyboardInput {
                            keys: escape_keys(v),
                        },
                        control_label: None,
                        control_text: control.clone(),
                    },
                )?;
            }
            Step::SelectItem { list, slot } => {
                let v = values
                    .get(slot)
                    .ok_or_else(|| RunFailure(format!("no value for {slot}")))?;
                select_visible(&mut d, list, v)?;
            }
            Step::SelectPath { list, slot } => {
                let v = values
                    .get(slot)
                    .ok_or_else(|| RunFailure(format!("no value for {slot}")))?;
                select_path(&mut d, list, v)?;
            }
            Step::OpenPath { list, slot } => {
                let v = values
                    .get(slot)
                    .ok_or_else(|| RunFailure(format!("no value for {slot}")))?;
                select_path(&mut d, list, v)?;
                act(
                    &mut d,
                    Action {
                        call: ActionCall::ClickInput {
                            button: "left".into(),
                            double: true,
                        },
                        control_label: None,
                        control_text: vfs::base_name(v).to_string(),
                    },
                )?;
            }
        }
    }
    Ok((d.d, d.log))
}

/// Keys in pywinauto notation that type `text` literally.
pub fn escape_keys(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '{' | '}' | '+' | '^' | '%' | '~' | '(' | ')' => {
                out.push('{');
                out.push(c);
                out.push('}');
            }
            _ => out.push(c),
        }
    }
    out
}

fn click(text: &str) -> Action {
    Action {
        call: ActionCall::ClickInput {
            button: "left".into(),
            double: false,
        },
        control_label: None,
        control_text: text.to_string(),
    }
}

/// A desktop being driven, with the actions taken on it.
struct Runner {
    d: Box<dyn Replica>,
    log: Vec<Action>,
}

fn act(r: &mut Runner, a: Action) -> Result<(), RunFailure> {
    let d = &mut r.d;
    let out = d.act(&a);
    r.log.push(a);
    let d = &r.d;
    if !out.ok {
        return Err(RunFailure(out.observation.feedback.unwrap_or_default()));
    }
    if let Some(w) = d.state().active.and_then(|i| d.state().windows.get(i)) {
        if let Some(dialog) = &w.dialog {
            return Err(RunFailure(dialog.message.clone()));
        }
    }
    Ok(())
}

fn visible(d: &dyn Replica, name: &str) -> bool {
    d.live().controls.iter().any(|c| c.name == name)
}

/// Wheel steps tried to scroll an item into view before giving up (the walk
/// also stops when the list no longer scrolls): enough for a folder of a few
/// hundred files (Documents holds about 70 since the desktop grew to 52 topics;
/// 20 steps left 'travel_itinerary.docx' out of Archiver's reach).
const SCROLL_STEPS: usize = 200;

/// Clicks item `name` of List `list`, scrolling it into view.
fn select_visible(d: &mut Runner, list: &str, name: &str) -> Result<(), RunFailure> {
    for _ in 0..SCROLL_STEPS {
        if visible(&*d.d, name) {
            return act(d, click(name));
        }
        let a = Action {
            call: ActionCall::WheelMouseInput { wheel_dist: 1 },
            control_label: None,
            control_text: list.to_string(),
        };
        let before =
            d.d.state()
                .windows
                .iter()
                .map(|w| w.scroll.clone())
                .collect::<Vec<_>>();
        act(d, a)?;
        let after =
            d.d.state()
                .windows
                .iter()
                .map(|w| w.scroll.clone())
                .collect::<Vec<_>>();
        if before == after {
            break;
        }
    }
    Err(RunFailure(format!("'{name}' is not in {list}")))
}

/// Navigates a folder list to the parent of `path` and selects it.
fn select_path(d: &mut Runner, list: &str, path: &str) -> Result<(), RunFailure> {
    let target = vfs::normalize(path, vfs::HOME).map_err(|e| RunFailure(e.to_string()))?;
    let parent = vfs::parent(&target).to_string();
    let cwd = |d: &dyn Replica| {
        d.state()
            .active
            .and_then(|i| d.state().windows.get(i))
            .and_then(|w| w.fields.get("cwd").cloned())
            .unwrap_or_default()
    };
    if cwd(&*d.d) != parent {
        // The sidebar button for the longest matching folder.
        let mut best: Option<(usize, String)> = None;
        for c in &d.d.live().controls {
            if c.info.control_type != "Button" {
                continue;
            }
            let folder = format!("{}/{}", vfs::HOME, c.name);
            let home = c.name == "Home";
            let f = if home { vfs::HOME.to_string() } else { folder };
            if parent == f || parent.starts_with(&format!("{f}/")) {
                let len = f.len();
                if best.as_ref().is_none_or(|(l, _)| len > *l) {
                    best = Some((len, c.name.clone()));
                }
            }
        }
        if let Some((_, b)) = best {
            act(d, click(&b))?;
        }
        let mut guard = 0;
        while cwd(&*d.d) != parent && guard < 8 {
            guard += 1;
            let cur = cwd(&*d.d);
            let rest = parent
                .strip_prefix(&format!("{cur}/"))
                .ok_or_else(|| RunFailure(format!("cannot reach {parent} from {cur}")))?;
            let next = rest.split('/').next().unwrap_or_default().to_string();
            for _ in 0..20 {
                if visible(&*d.d, &next) {
                    break;
                }
                act(
                    d,
                    Action {
                        call: ActionCall::WheelMouseInput { wheel_dist: 1 },
                        control_label: None,
                        control_text: list.to_string(),
                    },
                )?;
            }
            act(
                d,
                Action {
                    call: ActionCall::ClickInput {
                        button: "left".into(),
                        double: true,
                    },
                    control_label: None,
                    control_text: next,
                },
            )?;
        }
    }
    select_visible(d, list, vfs::base_name(&target))
}

/// The resources that hold after a run and did not before, without the
/// `*_in_processing` kinds (an open window is not a lasting result).
pub fn new_resources(before: &BTreeSet<Resource>, after: &dyn Replica) -> Vec<Resource> {
    after
        .current_resources()
        .into_iter()
        .filter(|r| !before.contains(r) && !r.kind.ends_with("_in_processing"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn setup() -> (Box<dyn Replica>, Catalog) {
        let ws = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
        let desktops = crate::env::EnvSetup::default().desktops(&ws).unwrap();
        (desktops.replica().unwrap(), Catalog::load(&ws).unwrap())
    }

    #[test]
    fn an_archive_list_gathers_two_files_into_one_zip() {
        let (d, c) = setup();
        let app = &d.spec("Archiver").unwrap().spec;
        let ps = plans(app, &c);
        let two = ps
            .iter()
            .find(|p| p.slot("pdf_path").is_some() && p.slot("other_pdf_path").is_some())
            .expect("a plan that packs two PDFs");
        let adds = two
            .steps
            .iter()
            .filter(|s| **s == Step::Click("Add".into()));
        assert_eq!(adds.count(), 2, "{:?}", two.steps);
        assert!(two
            .base_template()
            .contains("repeat with '{other_pdf_path}'"));
        // The single-file path stays beside it.
        assert!(ps
            .iter()
            .any(|p| p.slot("pdf_path").is_some() && p.slot("other_pdf_path").is_none()));
        let mut v = ParameterSet::new();
        v.insert(
            "pdf_path".into(),
            "/home/user/Downloads/invoice_march.pdf".into(),
        );
        v.insert(
            "other_pdf_path".into(),
            "/home/user/Documents/lease_agreement.pdf".into(),
        );
        v.insert("zip_path".into(), "/home/user/Downloads/bills.zip".into());
        let after = execute(&*d, two, &v).unwrap();
        let zip = after
            .state()
            .vfs
            .read("/home/user/Downloads/bills.zip")
            .unwrap();
        assert!(
            zip.contains("invoice_march.pdf") && zip.contains("lease_agreement.pdf"),
            "{zip}"
        );
    }

    #[test]
    fn a_bundle_gathers_files_of_several_kinds_and_is_found_again_by_its_wording() {
        let (d, c) = setup();
        let app = &d.spec("Archiver").unwrap().spec;
        let ps = plans(app, &c);
        let base = ps
            .iter()
            .find(|p| gathers(app, p).as_deref() == Some("docx_path") && p.input_kinds().len() == 1)
            .expect("a plan that packs one document");
        let kinds: Vec<String> = ["docx_path", "img_path", "pdf_path", "pdf_path"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            bundle_slot_names(&kinds),
            ["docx_path", "img_path", "pdf_path", "other_pdf_path"]
        );
        let bundle = bundle_variant(app, base, &kinds).expect("a bundle of four");
        assert!(
            bundle.base_template().contains(
                "repeat with '{img_path}', '{pdf_path}' and '{other_pdf_path}', then compress"
            ),
            "{}",
            bundle.base_template()
        );
        let adds = bundle
            .steps
            .iter()
            .filter(|s| **s == Step::Click("Add".into()))
            .count();
        assert_eq!(adds, 4, "{:?}", bundle.steps);
        // Another first kind, or one kind six times, is no bundle of this plan.
        assert!(bundle_variant(app, base, &kinds[1..]).is_none());
        assert!(bundle_variant(app, base, &vec!["docx_path".to_string(); 6]).is_none());
        // The coder and the actor find it again from the subtask's wording.
        let wording = bundle.base_template();
        let found = worded_plan(app, &ps, &kinds, |p| p.base_template() == wording);
        assert_eq!(found.as_ref(), Some(&bundle));
        let mut v = ParameterSet::new();
        for (slot, path) in [
            ("docx_path", "/home/user/Documents/travel_itinerary.docx"),
            ("img_path", "/home/user/Pictures/beach.jpg"),
            ("pdf_path", "/home/user/Downloads/invoice_march.pdf"),
            ("other_pdf_path", "/home/user/Documents/lease_agreement.pdf"),
            ("zip_path", "/home/user/Documents/kit.zip"),
        ] {
            v.insert(slot.into(), path.into());
        }
        let after = execute(&*d, &bundle, &v).unwrap();
        let zip = after
            .state()
            .vfs
            .read("/home/user/Documents/kit.zip")
            .unwrap();
        for name in [
            "travel_itinerary.docx",
            "beach.jpg",
            "invoice_march.pdf",
            "lease_agreement.pdf",
        ] {
            assert!(zip.contains(name), "{name} not in {zip}");
        }
    }

    #[test]
    fn a_mail_attaches_several_files_and_sends_them_in_one_message() {
        let (d, c) = setup();
        let app = &d.spec("Mail").unwrap().spec;
        let ps = plans(app, &c);
        let base = ps
            .iter()
            .find(|p| {
                gathers(app, p).as_deref() == Some("pdf_path")
                    && p.input_path_kinds().len() == 1
                    && p.pastes.is_none()
            })
            .expect("a mail that attaches one PDF");
        // Mail makes no archive: no same-kind pairs of its own.
        assert!(!ps.iter().any(|p| p.slot("other_pdf_path").is_some()));
        let kinds: Vec<String> = ["pdf_path", "img_path", "xlsx_path"]
            .map(String::from)
            .to_vec();
        let mail = bundle_variant(app, base, &kinds).expect("a mail of three attachments");
        let wording = mail.base_template();
        assert!(
            wording.contains("with '{pdf_path}', '{img_path}' and '{xlsx_path}' attached"),
            "{wording}"
        );
        let attaches = mail
            .steps
            .iter()
            .filter(|s| **s == Step::Click("Attach file".into()))
            .count();
        assert_eq!(attaches, 3, "{:?}", mail.steps);
        // Found again from the subtask's inputs (the address is one of them).
        let mut inputs = vec!["email_address".to_string()];
        inputs.extend(kinds.iter().cloned());
        let found = worded_plan(app, &ps, &inputs, |p| p.base_template() == wording);
        assert_eq!(found.as_ref(), Some(&mail));
        let mut v = ParameterSet::new();
        for (slot, value) in [
            ("pdf_path", "/home/user/Downloads/invoice_march.pdf"),
            ("img_path", "/home/user/Pictures/beach.jpg"),
            ("xlsx_path", "/home/user/Documents/budget.xlsx"),
            ("email_address", "team@example.com"),
            ("email_sent", "Paperwork"),
            ("body", "All three attached."),
        ] {
            v.insert(slot.into(), value.into());
        }
        let after = execute(&*d, &mail, &v).unwrap();
        let sent = &after.state().collections["sent_mail"];
        let last = sent.last().expect("a sent mail");
        assert_eq!(
            last["attachment"],
            "/home/user/Downloads/invoice_march.pdf; /home/user/Pictures/beach.jpg; \
             /home/user/Documents/budget.xlsx"
        );
    }

    #[test]
    fn writer_has_an_export_plan_after_opening() {
        let (d, c) = setup();
        let app = &d.spec("Writer").unwrap().spec;
        let ps = plans(app, &c);
        let export = ps
            .iter()
            .find(|p| {
                p.producer == "Export"
                    && p.slot("docx_path").is_some()
                    && p.slot("pdf_path").is_some()
            })
            .unwrap_or_else(|| {
                panic!(
                    "{:#?}",
                    ps.iter().map(|p| p.base_template()).collect::<Vec<_>>()
                )
            });
        assert!(export.clicked.contains(&"Export PDF".to_string()));
        let mut v = ParameterSet::new();
        v.insert(
            "docx_path".into(),
            "/home/user/Documents/travel_itinerary.docx".into(),
        );
        v.insert(
            "pdf_path".into(),
            "/home/user/Documents/itinerary_x.pdf".into(),
        );
        let before = d.current_resources();
        let after = execute(&*d, export, &v).unwrap();
        let new = new_resources(&before, &*after);
        assert!(
            new.contains(&Resource::new(
                "pdf_path",
                Some("/home/user/Documents/itinerary_x.pdf".into())
            )),
            "{new:?}"
        );
    }

    #[test]
    fn a_document_plan_may_paste_what_another_subtask_copied() {
        let (d, c) = setup();
        let ps = plans(&d.spec("Sheets").unwrap().spec, &c);
        let paste = ps
            .iter()
            .find(|p| {
                p.pastes.as_deref() == Some("table_in_clipboard")
                    && p.base_template().contains("under a new name")
            })
            .unwrap_or_else(|| {
                panic!(
                    "no Sheets plan pastes a table then saves: {:#?}",
                    ps.iter()
                        .map(|p| (p.base_template(), p.producer.clone(), p.pastes.clone()))
                        .collect::<Vec<_>>()
                )
            });
        assert_eq!(paste.pastes.as_deref(), Some("table_in_clipboard"));
        assert!(
            paste.base_template().contains("paste the copied table"),
            "{}",
            paste.base_template()
        );
        // Pasting and then copying over it is not a plan.
        assert!(!ps
            .iter()
            .any(|p| p.pastes.is_some() && p.produces.iter().any(|k| on_clipboard(&c, k))));
    }

    #[test]
    fn a_picture_is_inserted_only_where_it_is_kept() {
        let (d, c) = setup();
        let ps = plans(&d.spec("Writer").unwrap().spec, &c);
        let inserts: Vec<&Plan> = ps
            .iter()
            .filter(|p| p.slot("other_img_path").is_some())
            .collect();
        let names = |v: &[&Plan]| v.iter().map(|p| p.base_template()).collect::<Vec<_>>();
        // Saved as a Word document or exported as PDF: the picture is kept.
        assert!(
            inserts.iter().any(|p| p.slot("pdf_path").is_some()),
            "{:#?}",
            names(&inserts)
        );
        // Not before copying the text, nor saved as plain text.
        let lost: Vec<&Plan> = inserts
            .iter()
            .copied()
            .filter(|p| {
                p.produces.iter().any(|k| on_clipboard(&c, k))
                    || p.slots.iter().any(|s| {
                        matches!(&s.role, SlotRole::OutputPath { kind, .. } if kind == "txt_path")
                    })
            })
            .collect();
        assert!(lost.is_empty(), "{:#?}", names(&lost));
    }

    #[test]
    fn a_typed_field_with_a_paste_button_has_a_pasting_variant() {
        let (d, c) = setup();
        let ps = plans(&d.spec("Mail").unwrap().spec, &c);
        let paste = ps
            .iter()
            .find(|p| p.pastes.is_some() && p.producer == "Send")
            .unwrap_or_else(|| {
                panic!(
                    "{:#?}",
                    ps.iter().map(|p| p.base_template()).collect::<Vec<_>>()
                )
            });
        // The body is pasted, not typed: no slot, a click on the paste button.
        assert!(paste.slot("body").is_none(), "{:?}", paste.slots);
        assert!(paste.clicked.iter().any(|c| c.contains("Paste")));
        // Worded by the Edit's `says`: "with the copied text as the body".
        assert!(
            paste
                .base_template()
                .contains("with the copied text as the body"),
            "{}",
            paste.base_template()
        );
        assert!(
            paste.base_template().contains("to '{email_address}'"),
            "{}",
            paste.base_template()
        );
    }

    #[test]
    fn no_plan_does_filler_before_handing_on() {
        let (d, c) = setup();
        let templates = |app: &str| -> Vec<String> {
            plans(&d.spec(app).unwrap().spec, &c)
                .iter()
                .map(|p| p.base_template())
                .collect()
        };
        let editor = templates("Text Editor");
        // The date goes into a text, never into a table or a calendar export,
        // and nothing opens an iCalendar file's text to copy, print or convert
        // it for a reader; Files still zips one.
        assert!(
            editor.iter().any(|t| t.contains("insert the date")),
            "{editor:#?}"
        );
        for t in &editor {
            let date_in_table = t.contains("insert the date") && t.contains("{csv_path}");
            assert!(!date_in_table, "{t}");
            assert!(!t.contains("{ics_path}"), "{t}");
        }
        assert!(
            templates("Files").iter().any(|t| t.contains("ics")),
            "{:#?}",
            templates("Files")
        );
        // A fixed line is not added only to be copied along.
        for t in templates("Code Editor") {
            assert!(!(t.contains("comment line") && t.contains("copy")), "{t}");
        }
        // A copy carries what the clipboard keeps: a favourite mark is no part
        // of a copied picture.
        for t in templates("Photos") {
            assert!(!(t.contains("favorite") && t.contains("copy")), "{t}");
        }
        // Compressing a PDF is lost on converting it to a Word document.
        for t in templates("PDF Tool") {
            assert!(!(t.contains("compress") && t.contains("Word")), "{t}");
        }
    }
}
