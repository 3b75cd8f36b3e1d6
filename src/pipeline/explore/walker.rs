//! The offline explorer of real desktops (`synth explore --env x11|osworld`): with no
//! model, it finds an application's subtasks in the application itself, through
//! the backend's observations alone (no code per application).
//!
//! For each application of the backend's catalogue (`resources/<backend>/apps`) it
//! 1. lists the sandbox's files the application opens (by the catalogue's
//!    `extensions` and the resource kinds' `file_kinds`): these are its inputs;
//! 2. walks its menu bar: opens every top-level menu and reads its items; the
//!    item named like one of the rules' `open_items` is how a file is opened,
//!    items that open a dialog with a text field and are not skipped by the rules
//!    are candidates (each item is chosen once to see, and the dialog closed
//!    again; the name need not end in "...": not every application marks its
//!    dialogs);
//! 3. tries every candidate in a freshly reset desktop as is and, when that
//!    made a file, after typing a line at the end of the opened document ("edit"
//!    family), then after pasting the clipboard there ("paste" family: the
//!    desktop starts with the text verify prepares a `text_in_clipboard` input
//!    with; its subtask reads that input, so it follows a copy in a task). The
//!    rules' `families` say which families a walk tries.
//!    When the candidate's dialog has a text field, it types a new file's path
//!    there and confirms. A candidate is kept when a new file of a known kind
//!    appears in the sandbox; as is, only when that file's kind is not the
//!    input's (a conversion: `.txt` to `.pdf`, `.csv` to `.xlsx`) or it read
//!    no file. A plain Save As of a text as a text is an unchanged copy:
//!    readers reject a file saved again unchanged under a new name, and a
//!    chain through it hands on a copy; the same item after an edit is kept;
//! 4. repeats each kept candidate on the other inputs; every run that makes its
//!    file is one parameter set, with its demonstration (the actions it took) as
//!    the trajectory.
//!
//! A kept candidate becomes a proposed subtask: its template says what was done
//! ("In Mousepad, open '{txt_path}', add the line '{line}' at the end and save it
//! as '{new_txt_path}' with File > Save As."), its resources are the input file
//! and the new file, and its evaluation checks the outcome (the new file exists
//! and, in the edit family, contains the line), not only the clicks.
//! `synth verify` then replays every demonstration in a new desktop
//! ([`super::super::verify::real`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::env::x11::AppEntry;
use crate::env::{ControlInfo, EnvError, Environment, Observation, Setup};
use crate::model::{
    Action, ActionCall, Check, CheckCall, Evaluation, ParameterSet, Provenance, Subtask,
    SubtaskTrajectory, TrajectoryAction,
};
use crate::resources::Catalog;

/// Where the real sandbox's files live, as tasks name them.
const HOME: &str = "/home/user";

/// What the walker tries and skips: data, shared by every application.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WalkRules {
    /// Menu items that open a file (the first one found is used).
    pub open_items: Vec<String>,
    /// Menu items never tried (matched by prefix, ignoring case and dots).
    pub skip: Vec<String>,
    /// Lines typed into a document in the edit family, one per parameter set.
    pub lines: Vec<String>,
    /// How a line is written into a file of an extension (the key, lowercase,
    /// no dot): a form holding `{line}` ("# {line}" for a script, "<p>{line}</p>"
    /// for a page). A file of an extension not listed gets the line as is.
    #[serde(default)]
    pub line_forms: BTreeMap<String, String>,
    /// At most this many inputs per file extension (parameter sets per subtask).
    pub max_inputs: usize,
    /// The stem suffix of the new file: plain family, edit family.
    pub suffixes: [String; 2],
    /// The stem suffix of the paste family's new file ("notes_merged.txt"):
    /// not the edit family's, so a paste and an edit of one input never name
    /// the same file.
    #[serde(default = "default_paste_suffix")]
    pub paste_suffix: String,
    /// Further suffixes, for a file another walk made: its stem already ends
    /// in family suffixes, so the new file's stem replaces them with the
    /// first of the family's own, these, then the other family's that the
    /// stem does not carry ("welcome_reviewed" is edited into
    /// "welcome_revised", never "welcome_reviewed_reviewed").
    #[serde(default)]
    pub other_suffixes: Vec<String>,
    /// Menu items that select the whole document (the copy family; Ctrl+A when
    /// the application has none).
    #[serde(default)]
    pub select_items: Vec<String>,
    /// Menu items that copy the selection to the clipboard (the copy family).
    #[serde(default)]
    pub copy_items: Vec<String>,
    /// The clipboard kind a copy from an input of this resource kind makes
    /// (cells copied from a workbook are a table); others make text.
    #[serde(default)]
    pub clipboard_kinds: BTreeMap<String, String>,
    /// Seconds one application's tries may take, counted once its menus are
    /// probed: past them no new candidate is tried (what was found is kept,
    /// what was not tried is named).
    #[serde(default)]
    pub budget_secs: Option<u64>,
    /// Seconds the probe of one application's menus may take. Past them the
    /// probe stops with the candidates found so far; the items not probed yet
    /// are kept in the walk cache and probed by the next walk. Separate from
    /// `budget_secs`, so an application with hundreds of menu items still has
    /// its whole budget for trying what it offers.
    #[serde(default)]
    pub probe_secs: Option<u64>,
    /// Menu items probed and tried before the others, in this order (matched
    /// by prefix as `skip` is): the ones that name a new file, so that a
    /// budget spent on a long menu bar is spent after them.
    #[serde(default)]
    pub prefer: Vec<String>,
    /// The families a walk tries (all of them when absent), so a walk can try
    /// one family alone on applications explored before.
    #[serde(default = "Family::all")]
    pub families: Vec<Family>,
}

fn default_paste_suffix() -> String {
    "merged".into()
}

/// A kind of work the walker tries on an application, named as in the rules'
/// `families`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// A candidate (Save As, Export) chosen on the opened file as it is.
    AsIs,
    /// A line typed at the end, then the candidate.
    Edit,
    /// The clipboard pasted at the end, then the candidate.
    Paste,
    /// The whole file selected and copied to the clipboard.
    Copy,
    /// A calculator's entries worked out and copied.
    Compute,
}

impl Family {
    /// Every family, in the order a walk tries them.
    fn all() -> Vec<Family> {
        vec![
            Family::AsIs,
            Family::Edit,
            Family::Paste,
            Family::Copy,
            Family::Compute,
        ]
    }
}

impl WalkRules {
    /// Reads `resources/x11/explore.toml` of `workspace`.
    ///
    /// # Errors
    /// A missing or malformed file (the message names it and the line).
    pub fn load(workspace: &Path) -> Result<WalkRules, EnvError> {
        let path = workspace.join("resources").join("x11").join("explore.toml");
        let text = std::fs::read_to_string(&path).map_err(|source| EnvError::Io {
            path: path.clone(),
            source,
        })?;
        let rules: WalkRules = toml::from_str(&text)
            .map_err(|e| EnvError::Setup(format!("{}: {e}", path.display())))?;
        if rules.lines.is_empty() || rules.max_inputs == 0 || rules.families.is_empty() {
            return Err(EnvError::Setup(format!(
                "{}: `lines` and `families` must not be empty and `max_inputs` must be at least 1",
                path.display()
            )));
        }
        if let Some((ext, _)) = rules
            .line_forms
            .iter()
            .find(|(_, form)| form.matches("{line}").count() != 1)
        {
            return Err(EnvError::Setup(format!(
                "{}: `line_forms.{ext}` must hold `{{line}}` once",
                path.display()
            )));
        }
        Ok(rules)
    }

    /// `line` as it is typed into (and read back from) a file with extension
    /// `ext`: its form in `line_forms`, else the line as is.
    fn line_in(&self, ext: Option<&str>, line: &str) -> String {
        ext.and_then(|e| self.line_forms.get(&e.to_lowercase()))
            .map_or_else(|| line.to_string(), |form| form.replacen("{line}", line, 1))
    }

    /// The stem suffix of `family`'s new file, and the other families'
    /// suffixes (see `other_suffixes`), the ones after it when a stem carries
    /// it already.
    fn suffixes_of(&self, family: Family) -> (&str, Vec<String>) {
        let own = match family {
            Family::Edit => &self.suffixes[1],
            Family::Paste => &self.paste_suffix,
            _ => &self.suffixes[0],
        };
        let others = self
            .other_suffixes
            .iter()
            .chain(&self.suffixes)
            .chain(std::iter::once(&self.paste_suffix))
            .filter(|w| *w != own)
            .cloned()
            .collect();
        (own, others)
    }

    /// Whether a walk tries `family`.
    fn runs(&self, family: Family) -> bool {
        self.families.contains(&family)
    }

    /// The first menu item named like one of `names`.
    fn find<'m>(names: &[String], menus: &'m [MenuPath]) -> Option<&'m MenuPath> {
        names
            .iter()
            .find_map(|n| menus.iter().find(|m| bare(n) == bare(&m.item)))
    }

    fn skips(&self, item: &str) -> bool {
        let item = bare(item).to_lowercase();
        self.skip
            .iter()
            .any(|s| item.starts_with(&bare(s).to_lowercase()))
    }

    /// Where `item` comes in the `prefer` order (items it does not name come
    /// last).
    fn rank(&self, item: &str) -> usize {
        let item = bare(item).to_lowercase();
        self.prefer
            .iter()
            .position(|p| item.starts_with(&bare(p).to_lowercase()))
            .unwrap_or(self.prefer.len())
    }

    /// `items` without the skipped ones, the preferred first (a stable sort:
    /// otherwise in menu order).
    fn order(&self, items: &mut Vec<MenuPath>) {
        items.retain(|c| !self.skips(&c.item));
        items.sort_by_key(|c| self.rank(&c.item));
    }
}

/// A menu item's name without its dialog dots.
fn bare(name: &str) -> &str {
    name.trim()
        .trim_end_matches('…')
        .trim_end_matches("...")
        .trim()
}

/// A menu item under a top-level menu (a menu bar's or a menu button's), or
/// one of the catalogue's `items`: under submenus (`via`, clicked after
/// `menu`), or reached by a key combination (`keys`; its `menu` empty).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MenuPath {
    pub menu: String,
    pub item: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keys: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub via: Vec<String>,
}

impl MenuPath {
    fn new(menu: &str, item: &str) -> MenuPath {
        MenuPath {
            menu: menu.to_string(),
            item: item.to_string(),
            keys: None,
            via: Vec::new(),
        }
    }

    fn words(&self) -> String {
        match &self.keys {
            Some(k) => format!("{} ({})", bare(&self.item), key_words(k)),
            None => {
                let mut path = vec![self.menu.as_str()];
                path.extend(self.via.iter().map(|v| bare(v)));
                path.push(bare(&self.item));
                path.join(" > ")
            }
        }
    }
}

/// Keys in action notation as a person writes them: `^s` is "Ctrl+S", `^+s`
/// "Ctrl+Shift+S", `%{F4}` "Alt+F4".
fn key_words(keys: &str) -> String {
    let mut parts = Vec::new();
    let mut rest = keys;
    loop {
        let mut chars = rest.chars();
        let modifier = match chars.next() {
            Some('^') => "Ctrl",
            Some('%') => "Alt",
            Some('+') if rest.len() > 1 => "Shift",
            _ => break,
        };
        parts.push(modifier.to_string());
        rest = chars.as_str();
    }
    let key = rest.trim_start_matches('{').trim_end_matches('}');
    let mut key_chars = key.chars();
    parts.push(match key_chars.next() {
        Some(first) => first.to_uppercase().chain(key_chars).collect(),
        None => String::new(),
    });
    parts.join("+")
}

/// A file the application opens, with its resource kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputFile {
    pub path: String,
    pub kind: String,
    /// What stored subtasks put into it when another walk made it (empty for
    /// the sandbox's own files).
    pub lineage: Lineage,
}

/// What the stored subtasks that make a file put into it, back to the
/// sandbox's own files: the files it was made from (its input, that file's
/// input...) and the lines typed on the way. An edit of it types another
/// line, and its new name is none of these files' names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lineage {
    pub from: BTreeSet<String>,
    pub lines: BTreeSet<String>,
}

/// How one stored parameter set made a file: the files it opened and the
/// line it typed.
#[derive(Debug, Clone, Default)]
struct Making {
    from: Vec<String>,
    line: Option<String>,
}

/// The lineage of `path` under `makers` (every parameter set that makes a
/// path, by the path): the union over all of them, followed back through
/// their inputs.
fn lineage(path: &str, makers: &BTreeMap<String, Vec<Making>>) -> Lineage {
    let mut out = Lineage::default();
    let mut todo = vec![path.to_string()];
    let mut seen = BTreeSet::new();
    while let Some(p) = todo.pop() {
        if !seen.insert(p.clone()) {
            continue;
        }
        for m in makers.get(&p).into_iter().flatten() {
            out.lines.extend(m.line.iter().cloned());
            for f in &m.from {
                out.from.insert(f.clone());
                todo.push(f.clone());
            }
        }
    }
    out
}

/// One successful try: the actions taken and the file they made.
#[derive(Debug, Clone)]
pub struct Demo {
    pub input: Option<InputFile>,
    pub change: Change,
    pub output: InputFile,
    pub actions: Vec<TrajectoryAction>,
}

/// What a try of a candidate does to the opened document before it saves a
/// new file: it owns the family's step (none, a typed line, a paste), the
/// clipboard the desktop starts with, and what the subtask says and checks of
/// it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// Nothing: the as-is family.
    AsIs,
    /// This line (in its file's form) typed on a new line at the end.
    Line(String),
    /// The clipboard pasted at the end (Ctrl+V), the desktop starting with
    /// the text a `text_in_clipboard` input is prepared with.
    Paste,
}

impl Change {
    /// Whether the document is changed (an edit, kept whatever the kinds).
    fn edits(&self) -> bool {
        *self != Change::AsIs
    }

    /// The text the desktop's clipboard holds when the try starts: for a
    /// paste, what `verify` prepares a `text_in_clipboard` input with, so the
    /// walk and its replay paste the same.
    fn clipboard(&self) -> Option<&'static str> {
        (*self == Change::Paste).then(|| crate::env::real::prepared_clipboard(""))
    }

    /// Whether the saved file's text (`saved`, None when unreadable) shows
    /// the change where the walk can tell: a paste's text must be in it. A
    /// paste's evaluation cannot read it back (in a task the clipboard holds
    /// what the node before copied), so the walk keeps only runs where the
    /// paste reached the file: an archiver's Save As after Ctrl+V writes a
    /// new archive that holds nothing pasted.
    fn shown_in(&self, saved: Option<&str>) -> bool {
        match self.clipboard() {
            Some(pasted) => saved.is_some_and(|t| t.contains(pasted)),
            None => true,
        }
    }

    /// The typed line, when there is one.
    fn line(&self) -> Option<&str> {
        match self {
            Change::Line(line) => Some(line),
            _ => None,
        }
    }

    /// Makes the change on the document open in `rec` (`input` the opened
    /// file).
    fn make(&self, rec: &mut Recorder<'_>, input: Option<&InputFile>) -> Result<(), EnvError> {
        match self {
            Change::AsIs => return Ok(()),
            Change::Line(line) => {
                rec.click_into_text(input)?;
                rec.step(
                    // The closing Enter ends the line: a spreadsheet keeps a
                    // typed cell in edit mode, and out of its saved file,
                    // until then.
                    keys(&format!("^{{END}}{{ENTER}}{}{{ENTER}}", typed_text(line))),
                    &format!("I go to the end of the document and add the line '{line}'."),
                )?;
            }
            Change::Paste => {
                rec.click_into_text(input)?;
                // The paste is a step of its own: its Ctrl+V is what the
                // subtask checks.
                rec.step(
                    keys("^{END}{ENTER}"),
                    "I go to the end of the document and start a new line.",
                )?;
                rec.step(
                    keys(PASTE_KEYS),
                    "I paste the copied text there with Ctrl+V.",
                )?;
            }
        }
        Ok(())
    }
}

/// The keys that paste the clipboard (the paste family presses and checks them).
const PASTE_KEYS: &str = "^v";

/// What the walk of one application found.
#[derive(Debug, Default)]
pub struct WalkReport {
    pub subtasks: Vec<Subtask>,
    /// Candidates tried, and why the ones not kept were dropped.
    pub tried: usize,
    pub dropped: Vec<String>,
}

/// What the walker learned about an application's menus before trying
/// anything: every item, and the candidates (items whose dialog has a text
/// field). Kept in the walk cache so a later walk of the same program skips
/// the probe.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Probe {
    /// The program the probe was made on (a changed command probes again).
    pub command: Vec<String>,
    pub menus: Vec<MenuPath>,
    pub candidates: Vec<MenuPath>,
    /// Items the probe's time ran out before (the next walk probes them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unprobed: Vec<MenuPath>,
}

/// The time a part of one application's walk may still take.
struct Budget(Option<std::time::Instant>);

impl Budget {
    fn of(secs: Option<u64>) -> Budget {
        Budget(secs.map(|s| std::time::Instant::now() + std::time::Duration::from_secs(s)))
    }

    fn spent(&self) -> bool {
        self.0.is_some_and(|end| std::time::Instant::now() >= end)
    }
}

/// Walks application `app` on `env` and returns its proposed subtasks. The
/// probe of its menus is read from, or written to, `cache` (a folder) when
/// given.
///
/// # Errors
/// A desktop that fails (the application does not start...).
pub fn walk(
    env: &mut dyn Environment,
    app: &AppEntry,
    catalog: &Catalog,
    rules: &WalkRules,
    made: &[InputFile],
    cache: Option<&Path>,
) -> Result<WalkReport, EnvError> {
    let mut report = WalkReport::default();
    let inputs = input_files(env, app, catalog, rules, made)?;
    let probe = probe_cached(env, app, rules, inputs.first(), cache)?;
    if !probe.unprobed.is_empty() {
        let names: Vec<String> = probe.unprobed.iter().map(MenuPath::words).collect();
        report.dropped.push(format!(
            "not probed, the probe's time is spent (the next walk probes them): {}",
            names.join(", ")
        ));
    }
    // The tries' budget starts once the menus are known.
    let budget = Budget::of(rules.budget_secs);
    let open = WalkRules::find(&rules.open_items, &probe.menus).cloned();
    // With no file to open, the application's own empty document is the input.
    let firsts: Vec<Option<&InputFile>> = if inputs.is_empty() || open.is_none() {
        vec![None]
    } else {
        inputs.iter().map(Some).collect()
    };
    let ctx = Tries {
        app,
        catalog,
        rules,
        open: open.as_ref(),
        firsts: &firsts,
    };
    // The preferred items (Save As...) first, then the copy family (one try
    // per input; it yields on most viewers), then the other items: an
    // application slow to start spends its budget after what names new files.
    let (preferred, others): (Vec<&MenuPath>, Vec<&MenuPath>) = probe
        .candidates
        .iter()
        .partition(|c| rules.rank(&c.item) < rules.prefer.len());
    ctx.candidates(env, &preferred, &budget, &mut report)?;
    let copy = WalkRules::find(&rules.copy_items, &probe.menus);
    if let (true, Some(open), Some(copy)) = (rules.runs(Family::Copy), &open, copy) {
        let family = CopyFamily {
            app,
            open,
            select: WalkRules::find(&rules.select_items, &probe.menus),
            copy,
        };
        copy_family(env, rules, &family, &inputs, &budget, &mut report)?;
    }
    // An application that reads no file but works out what is typed into it
    // (a calculator): its catalogue's entries, each copied once worked out.
    if let (true, false, Some(copy)) = (rules.runs(Family::Compute), app.entries.is_empty(), copy) {
        compute_family(env, app, copy, &budget, &mut report)?;
    }
    ctx.candidates(env, &others, &budget, &mut report)?;
    Ok(report)
}

/// The compute family: in a fresh desktop, type each of the catalogue's
/// `entries` into `app` and Enter, then copy with `copy`; a run whose
/// clipboard then holds a result ([`computed`]) is a demonstration. One
/// subtask for all of them.
fn compute_family(
    env: &mut dyn Environment,
    app: &AppEntry,
    copy: &MenuPath,
    budget: &Budget,
    report: &mut WalkReport,
) -> Result<(), EnvError> {
    report.tried += 1;
    let mut demos: Vec<(String, String, Vec<TrajectoryAction>)> = Vec::new();
    for (i, entry) in app.entries.iter().enumerate() {
        if budget.spent() {
            report.dropped.push(format!(
                "{}: {} of {} entries not tried, the walk's budget is spent",
                copy.words(),
                app.entries.len() - i,
                app.entries.len()
            ));
            break;
        }
        let Some(mut rec) = open_input(env, app, None, None, None)? else {
            continue;
        };
        rec.step(
            keys(&format!("{}{{ENTER}}", typed_text(entry))),
            &format!("I type {entry} and press Enter to work it out."),
        )?;
        if !rec.choose(copy, "put the result on the clipboard")? {
            continue;
        }
        let clipboard = rec.env.probes().clipboard_text();
        match clipboard.as_deref().and_then(|c| computed(entry, c)) {
            Some(result) => demos.push((entry.clone(), result, rec.actions)),
            None => report.dropped.push(format!(
                "{}: {entry} left no result on the clipboard ({:?})",
                copy.words(),
                clipboard.unwrap_or_default()
            )),
        }
    }
    if demos.is_empty() {
        return Ok(());
    }
    report.subtasks.push(compute_subtask(app, copy, &demos));
    Ok(())
}

/// The result `app` put on the clipboard for `entry`: the clipboard's first
/// line when it is a number (digits, with a sign, a point, a comma, an
/// exponent) that is not the entry itself (nothing was worked out). None
/// otherwise.
fn computed(entry: &str, clipboard: &str) -> Option<String> {
    let value = first_line(clipboard)?;
    let numeric = value.chars().any(|c| c.is_ascii_digit())
        && value
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '-' | '+' | '.' | ',' | 'e' | 'E'));
    let plain = |s: &str| s.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    (numeric && plain(value) != plain(entry)).then(|| value.to_string())
}

/// The subtask of the compute family's demonstrations: (entry, result,
/// actions) each.
fn compute_subtask(
    app: &AppEntry,
    copy: &MenuPath,
    demos: &[(String, String, Vec<TrajectoryAction>)],
) -> Subtask {
    let template = format!(
        "In {}, work out {{expression}} and copy the result with {}.",
        app.name,
        copy.words()
    );
    let params: Vec<ParameterSet> = demos
        .iter()
        .map(|(entry, result, _)| {
            let mut p = ParameterSet::new();
            p.insert("expression".into(), entry.clone());
            p.insert("result".into(), result.clone());
            p
        })
        .collect();
    let evaluation = Evaluation {
        checks: vec![
            check(
                chosen_check(copy),
                &format!("{} was not chosen", copy.words()),
            ),
            check(
                CheckCall::CheckClipboardContains {
                    text: "{result}".into(),
                },
                "the clipboard does not hold the result '{result}'",
            ),
        ],
    };
    let actions: Vec<Vec<TrajectoryAction>> = demos.iter().map(|d| d.2.clone()).collect();
    assemble(
        app,
        Shape {
            template,
            params,
            inputs: vec![],
            // [`computed`] keeps only numbers.
            outputs: vec!["number_in_clipboard".into()],
            evaluation,
        },
        &actions,
    )
}

/// The probe of `app`: from the cache when it holds one of the same program
/// (its unprobed items probed now, as far as the probe's time goes), else made
/// now; stored in the cache either way. Dialogs are probed with `first` open
/// (when the application opens files): a viewer or an archiver enables its
/// Save As only once it shows a document.
fn probe_cached(
    env: &mut dyn Environment,
    app: &AppEntry,
    rules: &WalkRules,
    first: Option<&InputFile>,
    cache: Option<&Path>,
) -> Result<Probe, EnvError> {
    let file = cache.map(|dir| dir.join(format!("{}.json", app.stem)));
    let cached = file
        .as_ref()
        .and_then(|f| std::fs::read_to_string(f).ok())
        .and_then(|t| serde_json::from_str::<Probe>(&t).ok())
        .filter(|p| p.command == app.command);
    let mut probe = match cached {
        Some(p) => p,
        None => {
            let menus = menu_items(env, app)?;
            let open = WalkRules::find(&rules.open_items, &menus).cloned();
            let unprobed = menus
                .iter()
                .filter(|m| Some(*m) != open.as_ref())
                .cloned()
                .collect();
            Probe {
                command: app.command.clone(),
                menus,
                candidates: Vec::new(),
                unprobed,
            }
        }
    };
    // The catalogue's key-combination items, also those it gained since the
    // probe was made.
    for item in catalogue_items(app) {
        if !probe.menus.contains(&item) {
            probe.menus.push(item.clone());
            if WalkRules::find(&rules.open_items, std::slice::from_ref(&item)).is_none() {
                probe.unprobed.push(item);
            }
        }
    }
    // Rules may skip more, or prefer others, since the probe was made.
    rules.order(&mut probe.unprobed);
    if !probe.unprobed.is_empty() {
        let budget = Budget::of(rules.probe_secs);
        let todo = std::mem::take(&mut probe.unprobed);
        let open = WalkRules::find(&rules.open_items, &probe.menus);
        let shown = Shown { app, open, first };
        let (found, left) = with_name_field(env, &shown, todo, &budget)?;
        probe.candidates.extend(found);
        probe.unprobed = left;
        if let Some(f) = &file {
            let written = f
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| {
                    std::fs::write(f, serde_json::to_string_pretty(&probe).unwrap_or_default())
                });
            if let Err(e) = written {
                tracing::warn!(file = %f.display(), error = %e, "walk cache not written");
            }
        }
    }
    rules.order(&mut probe.candidates);
    Ok(probe)
}

/// What every try of one application's candidates shares.
struct Tries<'a> {
    app: &'a AppEntry,
    catalog: &'a Catalog,
    rules: &'a WalkRules,
    open: Option<&'a MenuPath>,
    firsts: &'a [Option<&'a InputFile>],
}

impl Tries<'_> {
    /// Tries `cands` in order while the budget lasts; names the ones it left.
    fn candidates(
        &self,
        env: &mut dyn Environment,
        cands: &[&MenuPath],
        budget: &Budget,
        report: &mut WalkReport,
    ) -> Result<(), EnvError> {
        for cand in cands {
            if budget.spent() {
                report.dropped.push(format!(
                    "{}: not tried, the walk's budget is spent",
                    cand.words()
                ));
                continue;
            }
            self.families(env, cand, report)?;
        }
        Ok(())
    }

    /// Tries `cand` in the rules' families that save a file, as is, after an
    /// edit, after a paste (the last two only in an application that edits
    /// its documents); each family that made files becomes subtasks (one per
    /// input kind and output kind), except an as-is group that saves its
    /// input's kind again ([`discarded`]: an unchanged copy, named in
    /// `report.dropped`). A family is tried only when the one before it made
    /// a file.
    fn families(
        &self,
        env: &mut dyn Environment,
        cand: &MenuPath,
        report: &mut WalkReport,
    ) -> Result<(), EnvError> {
        let families = [Family::AsIs, Family::Edit, Family::Paste]
            .into_iter()
            .filter(|f| self.rules.runs(*f) && (self.app.edits || *f == Family::AsIs));
        for family in families {
            report.tried += 1;
            let demos = self.demos(env, cand, family)?;
            if demos.is_empty() {
                let named = match family {
                    Family::Edit => " (edit)",
                    Family::Paste => " (paste)",
                    _ => "",
                };
                let what = match family {
                    Family::Paste => "no new file holding the pasted text",
                    _ => "no new file",
                };
                report
                    .dropped
                    .push(format!("{}{named}: {what}", cand.words()));
                // What makes no file as is makes none after an edit either.
                break;
            }
            let mut groups: BTreeMap<(Option<String>, String), Vec<Demo>> = BTreeMap::new();
            for d in demos {
                let key = (
                    d.input.as_ref().map(|i| i.kind.clone()),
                    d.output.kind.clone(),
                );
                groups.entry(key).or_default().push(d);
            }
            let edits = family != Family::AsIs;
            for ((input, output), group) in &groups {
                // An unchanged copy is no subtask; the edit family is still
                // tried (a line typed, then the same item).
                if let Some(why) = discarded(edits, input.as_deref(), output) {
                    let kind = input.as_deref().unwrap_or_default();
                    report
                        .dropped
                        .push(format!("{}: {kind} {why}", cand.words()));
                    continue;
                }
                report.subtasks.push(subtask_of(self.app, cand, group));
            }
        }
        Ok(())
    }

    /// The demonstrations of one family of `cand`, one per input that made its
    /// file; none when the first input does not.
    fn demos(
        &self,
        env: &mut dyn Environment,
        cand: &MenuPath,
        family: Family,
    ) -> Result<Vec<Demo>, EnvError> {
        let mut demos = Vec::new();
        let (suffix, others) = self.rules.suffixes_of(family);
        // Input kinds whose as-is run saved a file of their own kind: that
        // group is discarded, so its other inputs are not tried.
        let mut copied_kinds: BTreeSet<&str> = BTreeSet::new();
        for (i, input) in self.firsts.iter().enumerate() {
            if i > 0 && input.is_some_and(|f| copied_kinds.contains(f.kind.as_str())) {
                continue;
            }
            let Some(change) = self.change(family, i, *input) else {
                continue;
            };
            let attempt = Attempt {
                app: self.app,
                open: self.open,
                input: *input,
                change: &change,
                target: cand,
                suffix,
                others: &others,
            };
            // The first input decides whether the candidate works at all; a
            // real application's dialog sometimes misses typed keys, so that
            // first try is made twice before the candidate is dropped.
            let mut made = try_candidate(env, self.catalog, &attempt)?;
            if made.is_none() && i == 0 {
                made = try_candidate(env, self.catalog, &attempt)?;
            }
            match made {
                Some(d) => {
                    if let Some(f) = input {
                        if discarded(change.edits(), Some(&f.kind), &d.output.kind).is_some() {
                            copied_kinds.insert(f.kind.as_str());
                        }
                    }
                    demos.push(d);
                }
                None if i == 0 => break,
                None => {}
            }
        }
        Ok(demos)
    }

    /// What `family` does to its `i`th input before saving: for the edit
    /// family the `i`th line ([`line_for`]) in the file's form, none when
    /// every line is in the input already (an edit would repeat one).
    fn change(&self, family: Family, i: usize, input: Option<&InputFile>) -> Option<Change> {
        match family {
            Family::Edit => {
                let line = line_for(&self.rules.lines, i, input.map(|f| &f.lineage.lines))?;
                // Written as the document's kind wants it ("# ..." in a script).
                let ext = match input {
                    Some(f) => f.path.rsplit_once('.').map(|(_, e)| e),
                    None => self.app.extensions.first().map(String::as_str),
                };
                Some(Change::Line(self.rules.line_in(ext, line)))
            }
            Family::Paste => Some(Change::Paste),
            _ => Some(Change::AsIs),
        }
    }
}

/// Why one family's demonstrations from an input kind to an output kind are
/// no subtask, or None when they are one. The as-is family (`edit` false; a
/// typed line or a paste edits)
/// is kept only when it converts (`.txt` to `.pdf`, `.csv` to `.xlsx`) or
/// reads no file: a file saved again unchanged in its own kind under a new
/// name holds no work (readers reject it, and the composer drops such a node
/// as [`crate::graph::pointless::PointlessKind::UnchangedCopy`]), and a chain
/// through it hands on a copy instead of an edited file. The same item after
/// an edit (the edit family) is kept whatever the kinds.
fn discarded(edit: bool, input: Option<&str>, output: &str) -> Option<&'static str> {
    (!edit && input == Some(output))
        .then_some("saved again as is in its own kind: an unchanged copy, not kept")
}

/// The menu items of the copy family of one application.
struct CopyFamily<'a> {
    app: &'a AppEntry,
    open: &'a MenuPath,
    select: Option<&'a MenuPath>,
    copy: &'a MenuPath,
}

/// The copy family: open each input, select all of it and copy it; a run that
/// leaves text on the clipboard is a demonstration. One subtask per input kind.
fn copy_family(
    env: &mut dyn Environment,
    rules: &WalkRules,
    family: &CopyFamily<'_>,
    inputs: &[InputFile],
    budget: &Budget,
    report: &mut WalkReport,
) -> Result<(), EnvError> {
    report.tried += 1;
    let mut groups: BTreeMap<String, Vec<CopyDemo>> = BTreeMap::new();
    for (i, input) in inputs.iter().enumerate() {
        if budget.spent() {
            report.dropped.push(format!(
                "{}: {} of {} inputs not tried, the walk's budget is spent",
                family.copy.words(),
                inputs.len() - i,
                inputs.len()
            ));
            break;
        }
        if let Some(d) = try_copy(env, family, input)? {
            groups.entry(input.kind.clone()).or_default().push(d);
        }
    }
    if groups.is_empty() {
        report
            .dropped
            .push(format!("{}: nothing on the clipboard", family.copy.words()));
    }
    for demos in groups.values() {
        report.subtasks.push(copy_subtask(rules, family, demos));
    }
    Ok(())
}

/// One successful copy: the input, the start of what the clipboard held, and
/// the actions.
struct CopyDemo {
    input: InputFile,
    copied: String,
    actions: Vec<TrajectoryAction>,
}

/// Opens `input`, selects all and copies; the demonstration when the clipboard
/// then holds text.
fn try_copy(
    env: &mut dyn Environment,
    f: &CopyFamily<'_>,
    input: &InputFile,
) -> Result<Option<CopyDemo>, EnvError> {
    let Some(mut rec) = open_input(env, f.app, Some(f.open), Some(input), None)? else {
        return Ok(None);
    };
    // Selecting all selects in the control with the focus: the document's.
    rec.click_into_text(Some(input))?;
    let selected = match f.select {
        Some(select) => rec.choose(select, "select the whole document")?,
        None => rec.step(keys("^a"), "I select the whole document with Ctrl+A.")?,
    };
    let copied = selected && rec.choose(f.copy, "put the selection on the clipboard")?;
    if !copied {
        return Ok(None);
    }
    let Some(text) = rec.env.probes().clipboard_text() else {
        return Ok(None);
    };
    Ok(snippet(&text).map(|copied| CopyDemo {
        input: input.clone(),
        copied,
        actions: rec.actions,
    }))
}

/// The words a check looks for on the clipboard: the start of the first line
/// with text, at most 6 words and 40 characters, cut before a word with
/// template braces, with the line's own separators (a sheet's cells are
/// copied tab-separated, and the check looks for the text as it is). None when
/// the line starts with no word.
fn snippet(text: &str) -> Option<String> {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    let mut end = 0;
    for (n, word) in line.split_whitespace().enumerate() {
        let stop = word.as_ptr() as usize - line.as_ptr() as usize + word.len();
        if n == 6 || word.contains(['{', '}']) || (n > 0 && stop > 40) {
            break;
        }
        end = stop;
    }
    (end > 0).then(|| line[..end].to_string())
}

/// The subtask of a copy family's demonstrations of one input kind.
fn copy_subtask(rules: &WalkRules, f: &CopyFamily<'_>, demos: &[CopyDemo]) -> Subtask {
    let slot = demos[0].input.kind.clone();
    let clip = rules
        .clipboard_kinds
        .get(&slot)
        .cloned()
        .unwrap_or_else(|| "text_in_clipboard".into());
    let template = format!(
        "In {}, open '{{{slot}}}', select all of it and copy it with {}.",
        f.app.name,
        f.copy.words()
    );
    let params: Vec<ParameterSet> = demos
        .iter()
        .map(|d| {
            let mut p = ParameterSet::new();
            p.insert(slot.clone(), d.input.path.clone());
            p.insert("copied".into(), d.copied.clone());
            p
        })
        .collect();
    let evaluation = Evaluation {
        checks: vec![
            check(
                chosen_check(f.copy),
                &format!("{} was not chosen", f.copy.words()),
            ),
            check(
                CheckCall::CheckClipboardContains {
                    text: "{copied}".into(),
                },
                "the clipboard does not hold '{copied}'",
            ),
        ],
    };
    let actions: Vec<Vec<TrajectoryAction>> = demos.iter().map(|d| d.actions.clone()).collect();
    assemble(
        f.app,
        Shape {
            template,
            params,
            inputs: vec![slot],
            outputs: vec![clip],
            evaluation,
        },
        &actions,
    )
}

/// The sandbox's files `app` opens, one per extension first, at most
/// `rules.max_inputs`.
fn input_files(
    env: &mut dyn Environment,
    app: &AppEntry,
    catalog: &Catalog,
    rules: &WalkRules,
    made: &[InputFile],
) -> Result<Vec<InputFile>, EnvError> {
    env.reset(&Setup::default())?;
    let mut by_ext: BTreeMap<String, Vec<InputFile>> = BTreeMap::new();
    for (path, is_dir) in env.probes().paths_under(HOME) {
        let ext = path.rsplit_once('.').map(|(_, e)| e.to_lowercase());
        let Some(ext) = ext.filter(|e| !is_dir && app.extensions.contains(e)) else {
            continue;
        };
        if let Some(kind) = kind_of_ext(catalog, &ext) {
            by_ext.entry(ext).or_default().push(InputFile {
                path,
                kind,
                lineage: Lineage::default(),
            });
        }
    }
    // A file another application's subtask makes comes second in its extension:
    // trying it is what lets tasks hand files from one application to the next.
    for f in made {
        let Some(ext) = f.path.rsplit_once('.').map(|(_, e)| e.to_lowercase()) else {
            continue;
        };
        if let Some(list) = by_ext.get_mut(&ext) {
            if !list.iter().any(|i| i.path == f.path) {
                list.insert(1.min(list.len()), f.clone());
            }
        }
    }
    // The first file of every extension (in the catalogue's order) comes first:
    // it decides whether a candidate works; then the others, up to
    // `max_inputs` per extension.
    let mut out = Vec::new();
    for round in 0..rules.max_inputs {
        for ext in &app.extensions {
            if let Some(f) = by_ext.get(ext).and_then(|fs| fs.get(round)) {
                out.push(f.clone());
            }
        }
    }
    Ok(out)
}

/// The resource kind whose files have extension `ext`.
fn kind_of_ext(catalog: &Catalog, ext: &str) -> Option<String> {
    catalog
        .kinds
        .iter()
        .find(|(_, k)| !k.directory && k.file_kinds.iter().any(|f| f == ext))
        .map(|(name, _)| name.clone())
}

/// The items of every top-level menu of `app`'s window, each once (a window
/// may list its menu bar twice: LibreOffice keeps a hidden copy).
fn menu_items(env: &mut dyn Environment, app: &AppEntry) -> Result<Vec<MenuPath>, EnvError> {
    let obs = env.reset(&launch(app))?;
    let mut tops: Vec<String> = Vec::new();
    for c in &obs.controls {
        if c.control_type == "MenuItem"
            && c.parent_control_type == "Window"
            && !tops.contains(&c.control_text)
        {
            tops.push(c.control_text.clone());
        }
    }
    // The catalogue's menu buttons that the window shows: a button's menu is
    // no child of the button, so its items are the menu items the click
    // brought up.
    let buttons: Vec<String> = app
        .menu_buttons
        .iter()
        .filter(|b| {
            obs.controls
                .iter()
                .any(|c| c.control_type == "Button" && c.control_text == **b)
        })
        .cloned()
        .collect();
    let before: BTreeSet<&str> = obs
        .controls
        .iter()
        .filter(|c| c.control_type == "MenuItem")
        .map(|c| c.control_text.as_str())
        .collect();
    let mut out: Vec<MenuPath> = Vec::new();
    for top in tops.iter().chain(&buttons) {
        let is_button = buttons.contains(top);
        let opened = env.step(&click(top))?.observation;
        for c in &opened.controls {
            let path = MenuPath::new(top, &c.control_text);
            let in_menu = if is_button {
                !c.control_text.trim().is_empty() && !before.contains(c.control_text.as_str())
            } else {
                c.parent_control_text == *top
            };
            if c.control_type == "MenuItem" && in_menu && !out.contains(&path) {
                out.push(path);
            }
        }
        env.step(&keys("{ESC}"))?;
    }
    Ok(out)
}

/// The catalogue's own items of `app` (see [`AppEntry::items`]).
fn catalogue_items(app: &AppEntry) -> Vec<MenuPath> {
    app.items
        .iter()
        .map(|i| MenuPath {
            menu: i.via.first().cloned().unwrap_or_default(),
            item: i.item.clone(),
            keys: i.keys.clone(),
            via: i.via.iter().skip(1).cloned().collect(),
        })
        .collect()
}

/// Chooses menu item `item` on `env`: its keys, or its menu, its submenus
/// and the item. The outcome of the last step.
fn choose(env: &mut dyn Environment, item: &MenuPath) -> Result<crate::env::StepOutcome, EnvError> {
    if let Some(k) = &item.keys {
        return env.step(&keys(k));
    }
    env.step(&click(&item.menu))?;
    for sub in &item.via {
        env.step(&click(sub))?;
    }
    env.step(&click(&item.item))
}

/// The candidates whose dialog has a text field to name a file in: each is
/// opened and closed again (Escape) in one session, resetting only when the
/// application does not come back to its main window. Also returns the
/// candidates left unprobed when the budget ran out.
fn with_name_field(
    env: &mut dyn Environment,
    shown: &Shown<'_>,
    candidates: Vec<MenuPath>,
    budget: &Budget,
) -> Result<(Vec<MenuPath>, Vec<MenuPath>), EnvError> {
    let mut main = shown.fresh(env)?;
    let mut out = Vec::new();
    let mut todo = candidates.into_iter();
    while let Some(cand) = todo.next() {
        if budget.spent() {
            return Ok((out, std::iter::once(cand).chain(todo).collect()));
        }
        let opened = choose(env, &cand)?;
        let dialog = &opened.observation;
        if opened.ok
            && !same_window(&dialog.window_title, &main)
            && dialog.controls.iter().any(|c| c.control_type == "Edit")
        {
            out.push(cand);
        }
        let mut back = env.step(&keys("{ESC}"))?.observation;
        // An item that opens a submenu opens no dialog: Escape closed the
        // submenu only, and the menu it is in is still open.
        for _ in 0..2 {
            if !menu_open(&back) {
                break;
            }
            back = env.step(&keys("{ESC}"))?.observation;
        }
        if !same_window(&back.window_title, &main) {
            main = shown.fresh(env)?;
        }
    }
    Ok((out, Vec::new()))
}

/// What the probe shows its dialogs over: the application, with its first
/// input opened when it has one and an item that opens files.
struct Shown<'a> {
    app: &'a AppEntry,
    open: Option<&'a MenuPath>,
    first: Option<&'a InputFile>,
}

impl Shown<'_> {
    /// Resets the desktop to the application showing its first input (or its
    /// own empty window when that does not open); the main window's title.
    fn fresh(&self, env: &mut dyn Environment) -> Result<String, EnvError> {
        if self.open.is_some() && self.first.is_some() {
            if let Some(rec) = open_input(env, self.app, self.open, self.first, None)? {
                return Ok(rec.last.window_title);
            }
        }
        Ok(env.reset(&launch(self.app))?.window_title)
    }
}

/// Whether the window in front shows the top-level menu `menu` (a document
/// window does; a question asked over it does not).
fn shows_menu(obs: &Observation, menu: &str) -> bool {
    obs.controls
        .iter()
        .any(|c| matches!(c.control_type.as_str(), "MenuItem" | "Button") && c.control_text == menu)
}

/// Whether a menu is open in `obs`: a menu item shows inside another.
fn menu_open(obs: &Observation) -> bool {
    obs.controls
        .iter()
        .any(|c| c.control_type == "MenuItem" && c.parent_control_type == "MenuItem")
}

/// Whether two window titles name the same window: an editor marks a changed
/// document with a `*` in its title, which is no new window.
fn same_window(a: &str, b: &str) -> bool {
    let plain = |t: &str| t.replace('*', "").trim().to_string();
    plain(a) == plain(b)
}

fn launch(app: &AppEntry) -> Setup {
    Setup {
        launch: vec![app.name.clone()],
        ..Setup::default()
    }
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

fn keys(keys: &str) -> Action {
    Action {
        call: ActionCall::KeyboardInput { keys: keys.into() },
        control_label: None,
        control_text: String::new(),
    }
}

/// One try of a candidate.
struct Attempt<'a> {
    app: &'a AppEntry,
    open: Option<&'a MenuPath>,
    input: Option<&'a InputFile>,
    change: &'a Change,
    target: &'a MenuPath,
    /// The family's suffix of the new file's stem.
    suffix: &'a str,
    /// The suffixes tried after it, in order, when the input's stem carries it.
    others: &'a [String],
}

/// The line an edit of the `i`th input types: the `i`th of `lines` (round),
/// else the next one not in `typed` (the lines already typed into a file
/// another walk made, each in its file's form: "# Two." holds "Two."); none
/// when every line is.
fn line_for<'l>(
    lines: &'l [String],
    i: usize,
    typed: Option<&BTreeSet<String>>,
) -> Option<&'l String> {
    (0..lines.len())
        .map(|k| &lines[(i + k) % lines.len()])
        .find(|l| typed.is_none_or(|t| !t.iter().any(|t| t.contains(l.as_str()))))
}

/// `text` in the action notation of typed keys: the characters that notation
/// reads as modifiers or key names (`^ % + ~ { }`) braced, so each is typed as
/// itself.
fn typed_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '^' | '%' | '+' | '~' | '{' | '}') {
            out.push('{');
            out.push(c);
            out.push('}');
        } else {
            out.push(c);
        }
    }
    out
}

/// Steps on a desktop and records each step as a trajectory action.
struct Recorder<'e> {
    env: &'e mut dyn Environment,
    last: Observation,
    actions: Vec<TrajectoryAction>,
}

impl Recorder<'_> {
    /// Chooses `item` to `goal` (its keys, or its menu then the item); false
    /// when a step reached no control.
    fn choose(&mut self, item: &MenuPath, goal: &str) -> Result<bool, EnvError> {
        if let Some(k) = &item.keys {
            return self.step(
                keys(k),
                &format!(
                    "{} is {}; I press it to {goal}.",
                    bare(&item.item),
                    key_words(k)
                ),
            );
        }
        if !self.step(
            click(&item.menu),
            &format!("{} is in the {} menu.", bare(&item.item), item.menu),
        )? {
            return Ok(false);
        }
        for sub in &item.via {
            if !self.step(
                click(sub),
                &format!("{} is in its {} submenu.", bare(&item.item), bare(sub)),
            )? {
                return Ok(false);
            }
        }
        self.step(
            click(&item.item),
            &format!("I choose {} to {goal}.", bare(&item.item)),
        )
    }

    /// Performs `action`; false when it reached no control.
    fn step(&mut self, action: Action, thought: &str) -> Result<bool, EnvError> {
        let target = self.env.target_of(&action)?;
        let out = self.env.step(&action)?;
        self.actions.push(TrajectoryAction {
            call: action.call.clone(),
            rect: target.as_ref().map_or([0; 4], |c| c.rect),
            description: describe(&self.last),
            thought: thought.to_string(),
            effect: out.observation.feedback.clone().unwrap_or_default(),
            control_text: action.control_text.clone(),
            control_label: None,
        });
        self.last = out.observation;
        Ok(out.ok)
    }

    /// Types `path` into the dialog in front (replacing its text) and confirms:
    /// Enter, once more when the first only closed the completion, then the
    /// application's `confirm_keys`, then the dialog's confirming button.
    /// False when the dialog stays.
    fn type_path(&mut self, app: &AppEntry, path: &str, thought: &str) -> Result<bool, EnvError> {
        let dialog = self.last.window_title.clone();
        self.step(keys(&format!("^a{path}")), thought)?;
        for _ in 0..2 {
            self.step(keys("{ENTER}"), "I confirm the name with Enter.")?;
            if self.last.window_title != dialog {
                return Ok(true);
            }
        }
        for k in &app.confirm_keys {
            self.step(
                keys(k),
                &format!(
                    "Enter leaves the dialog open; {} confirms it.",
                    key_words(k)
                ),
            )?;
            if self.last.window_title != dialog {
                return Ok(true);
            }
        }
        let Some(button) = confirm_button(&self.last).filter(|_| shows_window(&self.last)) else {
            return Ok(false);
        };
        self.step(
            click(&button),
            &format!("The dialog is still open; {button} confirms it."),
        )?;
        Ok(self.last.window_title != dialog)
    }

    /// The dialog's name field: the text field with the focus, else the first.
    fn text_field(&self) -> Option<&ControlInfo> {
        let fields = || {
            self.last
                .controls
                .iter()
                .filter(|c| c.control_type == "Edit")
        };
        fields().find(|c| c.focused).or_else(|| fields().next())
    }

    /// Clicks into the document before keys meant for it, when the keyboard
    /// focus is not in a text ([`text_to_click`]): an editor may leave it in
    /// a side panel after opening a file. The click is a recorded step, so a
    /// replay makes it too. `input` is the opened file.
    fn click_into_text(&mut self, input: Option<&InputFile>) -> Result<(), EnvError> {
        let doc = input.and_then(|i| self.env.probes().file_text(&i.path));
        let Some(text) = doc
            .and_then(|d| text_to_click(&self.last, &d))
            .map(|c| c.control_text.clone())
        else {
            return Ok(());
        };
        self.step(
            click(&text),
            "The keyboard focus is not in the document; I click into its text first.",
        )?;
        Ok(())
    }
}

/// Whether `c` takes typed text (a field or a document).
fn is_text(c: &ControlInfo) -> bool {
    matches!(c.control_type.as_str(), "Edit" | "Document")
}

/// The first line of `text` with a character other than white space, trimmed.
fn first_line(text: &str) -> Option<&str> {
    text.lines().map(str::trim).find(|l| !l.is_empty())
}

/// The control to click into before typing into the document whose text is
/// `doc`: when no text control has the keyboard focus, the largest text
/// control that shows the document (its first line is the document's). None
/// when the focus is in a text already or no control shows the document.
fn text_to_click<'o>(obs: &'o Observation, doc: &str) -> Option<&'o ControlInfo> {
    if obs.controls.iter().any(|c| c.focused && is_text(c)) {
        return None;
    }
    let first = first_line(doc)?;
    let area = |c: &ControlInfo| {
        i64::from(c.rect[2] - c.rect[0]).max(0) * i64::from(c.rect[3] - c.rect[1]).max(0)
    };
    obs.controls
        .iter()
        .filter(|c| is_text(c) && first_line(&c.control_text) == Some(first))
        .max_by_key(|c| area(c))
}

/// Whether the dialog in front asks for something before a file's name: none
/// of its text fields has the focus or holds the name of `input` (a save
/// dialog proposes the document's name in its focused name field).
fn asks_options_first(obs: &Observation, input: Option<&InputFile>) -> bool {
    let stem = input.map(|i| {
        let name = i.path.rsplit('/').next().unwrap_or(&i.path);
        name.rsplit_once('.')
            .map_or(name, |(stem, _)| stem)
            .to_string()
    });
    !obs.controls.iter().any(|c| {
        c.control_type == "Edit"
            && (c.focused
                || stem
                    .as_deref()
                    .is_some_and(|s| !s.is_empty() && c.control_text.contains(s)))
    })
}

/// Whether the controls of `obs` include the window in front's own (some
/// control's window is the one of its title): a dialog the accessibility bus
/// does not show (Chromium's GTK dialogs) leaves the controls of the window
/// under it, whose buttons must not be clicked for the dialog's.
fn shows_window(obs: &Observation) -> bool {
    obs.controls.iter().any(|c| {
        c.parent_control_type == "Window" && same_window(&c.parent_control_text, &obs.window_title)
    })
}

/// The button that confirms a dialog: the lowest, rightmost button that does
/// not cancel.
fn confirm_button(obs: &Observation) -> Option<String> {
    obs.controls
        .iter()
        .filter(|c| c.control_type == "Button" && !c.control_text.is_empty())
        .filter(|c| !["cancel", "close", "no"].contains(&c.control_text.to_lowercase().as_str()))
        .max_by_key(|c| (c.rect[1], c.rect[0]))
        .map(|c| c.control_text.clone())
}

/// The observation of a step: the window in front and what it offers.
fn describe(obs: &Observation) -> String {
    let names: Vec<&str> = obs
        .controls
        .iter()
        .filter(|c| !c.control_text.is_empty())
        .take(8)
        .map(|c| c.control_text.as_str())
        .collect();
    format!(
        "The window '{}' is in front, showing {}.",
        obs.window_title,
        names.join(", ")
    )
}

/// Resets the desktop with `app` launched, `input` in the sandbox and
/// `clipboard` on the clipboard, and opens `input` with the `open` item (when
/// both are given); the recorder of what was done, None when the file did not
/// open.
fn open_input<'e>(
    env: &'e mut dyn Environment,
    app: &AppEntry,
    open: Option<&MenuPath>,
    input: Option<&InputFile>,
    clipboard: Option<&str>,
) -> Result<Option<Recorder<'e>>, EnvError> {
    let setup = Setup {
        clipboard_text: clipboard.map(str::to_string),
        ..launch(app)
    };
    let last = env.reset(&setup)?;
    if let Some(input) = input {
        let resource = crate::resources::Resource::new(&input.kind, Some(input.path.clone()));
        if !env.holds(&resource) {
            env.prepare(&app.name, &resource, &ParameterSet::new())
                .map_err(EnvError::Setup)?;
        }
    }
    let mut rec = Recorder {
        env,
        last,
        actions: Vec::new(),
    };
    if let (Some(open), Some(input)) = (open, input) {
        let goal = format!("open '{}'", input.path);
        if !rec.choose(open, &goal)? {
            return Ok(None);
        }
        if !rec.type_path(app, &input.path, &format!("I type the path to {goal}."))? {
            return Ok(None);
        }
        // An application may ask how to read the file before it shows it
        // (LibreOffice's "Text Import" for a CSV): a window in front without
        // the menu the file was opened from is such a question, and Enter
        // takes its default answer (an item reached by keys has no menu to
        // look for).
        if open.keys.is_none() && !shows_menu(&rec.last, &open.menu) {
            let question = rec.last.window_title.clone();
            rec.step(
                keys("{ENTER}"),
                &format!("'{question}' asks how to open the file; Enter takes its default answer."),
            )?;
        }
    }
    Ok(Some(rec))
}

/// Runs one attempt in a fresh desktop; the demonstration when a new file of a
/// known kind appeared.
fn try_candidate(
    env: &mut dyn Environment,
    catalog: &Catalog,
    a: &Attempt<'_>,
) -> Result<Option<Demo>, EnvError> {
    let Some(mut rec) = open_input(env, a.app, a.open, a.input, a.change.clipboard())? else {
        return Ok(None);
    };
    let before: BTreeSet<String> = files(rec.env);
    a.change.make(&mut rec, a.input)?;
    let main = rec.last.window_title.clone();
    if !rec.choose(a.target, "save a new file")? {
        return Ok(None);
    }
    // A dialog may ask for options before the file's name (LibreOffice's
    // "PDF Options"): a window over the document where no text field has the
    // focus or holds the input's name is such a question, and its confirming
    // button goes on to the dialog that names the file.
    if !same_window(&rec.last.window_title, &main)
        && shows_window(&rec.last)
        && asks_options_first(&rec.last, a.input)
    {
        if let Some(button) = confirm_button(&rec.last) {
            let question = rec.last.window_title.clone();
            rec.step(
                click(&button),
                &format!("'{question}' sets options first; {button} goes on to name the file."),
            )?;
        }
    }
    let out_path = new_path(a, native_ext(&rec.last).as_deref());
    if rec.text_field().is_none()
        || !rec.type_path(
            a.app,
            &out_path,
            &format!("I name the new file '{out_path}'."),
        )?
    {
        return Ok(None);
    }
    // An application may ask once more before it writes (LibreOffice's
    // "Confirm File Format" when the name keeps a foreign format): with the
    // new file not there yet and another window than the document's in front,
    // Enter takes that question's default answer.
    if !files(rec.env).contains(&out_path) && !same_window(&rec.last.window_title, &main) {
        let question = rec.last.window_title.clone();
        rec.step(
            keys("{ENTER}"),
            &format!("'{question}' asks before saving; Enter takes its default answer."),
        )?;
    }
    let made: Vec<String> = files(rec.env)
        .into_iter()
        .filter(|p| !before.contains(p))
        .collect();
    let actions = rec.actions;
    let Some(output) = made.iter().find_map(|p| {
        let ext = p.rsplit_once('.')?.1.to_lowercase();
        kind_of_ext(catalog, &ext).map(|kind| InputFile {
            path: p.clone(),
            kind,
            lineage: Lineage::default(),
        })
    }) else {
        return Ok(None);
    };
    // The demonstration must name the file it made (an application may have
    // added its own extension to the typed name).
    if output.path != out_path {
        return Ok(None);
    }
    if !a
        .change
        .shown_in(rec.env.probes().file_text(&output.path).as_deref())
    {
        return Ok(None);
    }
    Ok(Some(Demo {
        input: a.input.cloned(),
        change: a.change.clone(),
        output,
        actions,
    }))
}

/// The path typed for the new file: beside the input, its stem with the
/// family's suffix (Documents/<app>_<suffix> without input), with the
/// extension of the file type the dialog offers (`native`), else the input's.
fn new_path(a: &Attempt<'_>, native: Option<&str>) -> String {
    let (stem, ext) = match a.input {
        Some(input) => {
            let (stem, ext) = input.path.rsplit_once('.').unwrap_or((&input.path, "txt"));
            let mut avoid: BTreeSet<&str> = input.lineage.from.iter().map(|p| stem_of(p)).collect();
            avoid.insert(stem);
            return format!(
                "{}.{}",
                new_stem(stem, a.suffix, a.others, &avoid),
                native.unwrap_or(ext)
            );
        }
        None => (
            format!("{HOME}/Documents/{}", a.app.stem),
            a.app
                .extensions
                .first()
                .cloned()
                .unwrap_or_else(|| "txt".into()),
        ),
    };
    format!("{stem}_{}.{}", a.suffix, native.unwrap_or(&ext))
}

/// A check that must hold, with the message shown when it does not.
fn check(call: CheckCall, message: &str) -> Check {
    Check {
        call,
        expect: true,
        message: Some(message.to_string()),
    }
}

/// A path without its extension.
fn stem_of(path: &str) -> &str {
    match path.rsplit_once('.') {
        Some((stem, _)) if !stem.ends_with('/') => stem,
        _ => path,
    }
}

/// The stem of a file made from one with stem `stem`: `stem` and `suffix`,
/// unless `stem` already ends in family suffixes (`suffix` or one of
/// `others`: a file another walk made). Then those are replaced by the first
/// of `suffix` and `others` that they do not hold, so a word is never
/// repeated; a stem in `avoid` (the input's and those of the files it was
/// made from) is never the result.
fn new_stem(stem: &str, suffix: &str, others: &[String], avoid: &BTreeSet<&str>) -> String {
    let family = |w: &str| w == suffix || others.iter().any(|o| o == w);
    let mut base = stem;
    let mut carried = BTreeSet::new();
    while let Some((head, word)) = base.rsplit_once('_') {
        // The file's own name is kept whole ("final.txt" has no base).
        if !family(word) || head.is_empty() || head.ends_with('/') {
            break;
        }
        carried.insert(word);
        base = head;
    }
    if carried.is_empty() {
        return format!("{stem}_{suffix}");
    }
    let words = std::iter::once(suffix).chain(others.iter().map(String::as_str));
    for word in words.filter(|w| !carried.contains(w)) {
        let new = format!("{base}_{word}");
        if !avoid.contains(new.as_str()) {
            return new;
        }
    }
    // Every suffix is taken: a number after the family's own.
    (2..)
        .map(|n| format!("{base}_{suffix}{n}"))
        .find(|new| !avoid.contains(new.as_str()))
        .unwrap_or_default()
}

/// The extension of the file type a save dialog has chosen, when its file type
/// box names one ("AbiWord (.abw, .zabw)", "Gnumeric XML (*.gnumeric)").
fn native_ext(obs: &Observation) -> Option<String> {
    obs.controls
        .iter()
        .filter(|c| c.control_type == "ComboBox")
        .find_map(|c| {
            let inside = c.control_text.split_once('(')?.1;
            let first = inside.split([',', ';', ')', ' ']).next()?;
            let ext = first.trim_start_matches('*').strip_prefix('.')?;
            (!ext.is_empty() && ext.chars().all(|ch| ch.is_ascii_alphanumeric()))
                .then(|| ext.to_lowercase())
        })
}

/// Every file (not folder) under the sandbox home.
fn files(env: &dyn Environment) -> BTreeSet<String> {
    env.probes()
        .paths_under(HOME)
        .into_iter()
        .filter(|(_, dir)| !dir)
        .map(|(p, _)| p)
        .collect()
}

/// The proposed subtask of a candidate's demonstrations (all of one shape: the
/// first decides the template).
fn subtask_of(app: &AppEntry, cand: &MenuPath, demos: &[Demo]) -> Subtask {
    let first = &demos[0];
    let in_slot = first.input.as_ref().map(|i| i.kind.clone());
    let same_kind = in_slot.as_deref() == Some(first.output.kind.as_str());
    let out_name = if same_kind {
        format!("new_{}", first.output.kind)
    } else {
        first.output.kind.clone()
    };
    let out_slot = if same_kind {
        format!("{}:{out_name}", first.output.kind)
    } else {
        out_name.clone()
    };
    let mut clauses = Vec::new();
    if let Some(slot) = &in_slot {
        clauses.push(format!("open '{{{slot}}}'"));
    }
    match (&first.change, &in_slot) {
        (Change::AsIs, _) => {}
        (Change::Line(_), _) => clauses.push("add the line '{line}' at the end".to_string()),
        (Change::Paste, Some(_)) => clauses.push("paste the copied text at its end".to_string()),
        (Change::Paste, None) => clauses.push("paste the copied text".to_string()),
    }
    clauses.push(format!("save it as '{{{out_name}}}' with {}", cand.words()));
    let template = format!("In {}, {}.", app.name, join_clauses(&clauses));
    let params: Vec<ParameterSet> = demos
        .iter()
        .map(|d| {
            let mut p = ParameterSet::new();
            if let (Some(slot), Some(i)) = (&in_slot, &d.input) {
                p.insert(slot.clone(), i.path.clone());
            }
            if let Some(line) = d.change.line() {
                p.insert("line".into(), line.to_string());
            }
            p.insert(out_name.clone(), d.output.path.clone());
            p
        })
        .collect();
    // A paste reads the clipboard: a parameterless input, so it follows any
    // copy of its kind in a task.
    let pasted = (first.change == Change::Paste).then(|| "text_in_clipboard".to_string());
    let actions: Vec<Vec<TrajectoryAction>> = demos.iter().map(|d| d.actions.clone()).collect();
    assemble(
        app,
        Shape {
            template,
            params,
            inputs: in_slot.into_iter().chain(pasted).collect(),
            outputs: vec![out_slot],
            evaluation: evaluation_of(cand, &out_name, &first.change),
        },
        &actions,
    )
}

/// What a family found out about a subtask: its template, one parameter set per
/// demonstration, its resource slots and its evaluation.
struct Shape {
    template: String,
    params: Vec<ParameterSet>,
    inputs: Vec<String>,
    outputs: Vec<String>,
    evaluation: Evaluation,
}

/// The proposed subtask of `shape`, with demonstration `i` (`actions[i]`) as the
/// trajectory of parameter set `i`.
fn assemble(app: &AppEntry, shape: Shape, actions: &[Vec<TrajectoryAction>]) -> Subtask {
    let id = super::subtask_id(&app.name, &shape.template);
    let trajectories = actions
        .iter()
        .zip(&shape.params)
        .enumerate()
        .map(|(i, (actions, params))| SubtaskTrajectory {
            trajectory_id: format!("{id}-p{i}"),
            instruction: crate::model::fill_placeholders(&shape.template, params),
            observations: Vec::new(),
            actions: actions.clone(),
            subtask_id: id.clone(),
            parameter_index: Some(i),
        })
        .collect();
    Subtask {
        id,
        instruction_template: shape.template,
        application: app.name.clone(),
        category: Some(app.category.clone()),
        os: "Linux".into(),
        available_parameters: shape.params,
        input_resources: shape.inputs,
        output_resources: shape.outputs,
        evaluation: Some(shape.evaluation),
        trajectories,
        provenance: Some(Provenance {
            backend: "offline".into(),
            model: None,
            prompt_hash: None,
            round: None,
            note: Some(crate::store::explore::EXPLORE_NOTE.into()),
        }),
    }
}

/// "a", "a and b", "a, b and c".
fn join_clauses(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The check that `item` was chosen: its keys pressed, or the item clicked.
fn chosen_check(item: &MenuPath) -> CheckCall {
    match &item.keys {
        Some(k) => CheckCall::CheckKeyPresses { keys: k.clone() },
        None => CheckCall::CheckMouseClicks {
            text: item.item.clone(),
        },
    }
}

/// Checks of the outcome: the item was chosen, the new file exists, and what
/// `change` did: the typed line is in it, or Ctrl+V was pressed.
fn evaluation_of(cand: &MenuPath, out_name: &str, change: &Change) -> Evaluation {
    let mut checks = vec![check(
        chosen_check(cand),
        &format!("{} was not chosen", cand.words()),
    )];
    if *change == Change::Paste {
        // Not the pasted text in the new file: in a task the clipboard holds
        // what the copy before this subtask put there, not the text the walk
        // and verify prepare.
        checks.push(check(
            CheckCall::CheckKeyPresses {
                keys: PASTE_KEYS.into(),
            },
            "the clipboard was not pasted with Ctrl+V",
        ));
    }
    checks.push(check(
        CheckCall::CheckFileExists {
            file_path: format!("{{{out_name}}}"),
        },
        &format!("'{{{out_name}}}' was not saved"),
    ));
    if change.line().is_some() {
        checks.push(check(
            CheckCall::CheckFileContains {
                file_path: format!("{{{out_name}}}"),
                text: "{line}".into(),
            },
            &format!("'{{{out_name}}}' does not hold the line '{{line}}'"),
        ));
    }
    Evaluation { checks }
}

/// The files that stored subtasks of applications other than `app` make (their
/// path outputs, every parameter set), each with its lineage over every
/// stored subtask (`app`'s too: a chain may pass through it).
fn stored_outputs(
    cx: &crate::stage::StageContext<'_>,
    app: &str,
) -> Result<Vec<InputFile>, crate::store::StoreError> {
    use crate::model::SubtaskStatus;
    let is_file = |kind: &str| {
        cx.catalog
            .kinds
            .get(kind)
            .is_some_and(|k| !k.directory && !k.file_kinds.is_empty())
    };
    let mut out = Vec::new();
    let mut makers: BTreeMap<String, Vec<Making>> = BTreeMap::new();
    for status in [SubtaskStatus::Proposed, SubtaskStatus::Verified] {
        for s in cx.store.subtasks(status)? {
            for (i, params) in s.available_parameters.iter().enumerate() {
                let Ok((inputs, outputs)) = crate::resources::instantiate(cx.catalog, &s, i) else {
                    continue;
                };
                let from: Vec<String> = inputs
                    .into_iter()
                    .filter(|r| is_file(&r.kind))
                    .filter_map(|r| r.parameter)
                    .collect();
                for r in outputs {
                    let (true, Some(path)) = (is_file(&r.kind), r.parameter) else {
                        continue;
                    };
                    makers.entry(path.clone()).or_default().push(Making {
                        from: from.clone(),
                        line: params.get("line").cloned(),
                    });
                    if s.application != app {
                        out.push(InputFile {
                            path,
                            kind: r.kind,
                            lineage: Lineage::default(),
                        });
                    }
                }
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out.dedup_by(|a, b| a.path == b.path);
    for f in &mut out {
        f.lineage = lineage(&f.path, &makers);
    }
    Ok(out)
}

/// `synth explore` on a real backend: walks every application of the catalogue
/// (or `args.apps`) not explored yet and stores its subtasks as proposed, each
/// application in one transaction. Only the offline explorer walks; a model
/// explorer on a real desktop is refused with one message.
///
/// # Errors
/// An unknown application, a desktop that fails, a store that fails.
pub fn run_real(
    args: &super::ExploreArgs,
    cx: &crate::stage::StageContext<'_>,
) -> Result<super::ExploreReport, super::ExploreError> {
    use super::{AppCounts, ExploreError, ExploreReport};
    use crate::model::SubtaskStatus;
    if cx.llm.backend != crate::llm::Backend::Offline {
        return Err(ExploreError::Env(EnvError::Setup(format!(
            "on --env {} the explorer walks the applications itself; use --llm offline",
            cx.env.backend.name()
        ))));
    }
    let started = std::time::Instant::now();
    let catalogue = crate::env::real::catalogue_of(&cx.workspace, cx.env.backend)?;
    let rules = WalkRules::load(&cx.workspace)?;
    let apps: Vec<&AppEntry> = if args.apps.is_empty() {
        // The application that opens the most file types first: its outputs are
        // inputs the others can try.
        let mut apps: Vec<&AppEntry> = catalogue.iter().filter(|a| !a.launcher).collect();
        apps.sort_by_key(|a| std::cmp::Reverse(a.extensions.len()));
        apps
    } else {
        args.apps
            .iter()
            .map(|a| {
                crate::env::real::find_app(&catalogue, a)
                    .ok_or_else(|| ExploreError::UnknownApp(a.clone()))
            })
            .collect::<Result<_, _>>()?
    };
    let run_id = cx.store.begin_run(
        "explore",
        &serde_json::to_value(args).unwrap_or(serde_json::Value::Null),
    )?;
    let explored = cx.store.explored_applications()?;
    let cache = cx
        .workspace
        .join("generated")
        .join("walk-cache")
        .join(cx.env.backend.name());
    let mut env = cx.desktop(0)?;
    let bar = cx.progress(apps.len() as u64, "explore");
    let mut report = ExploreReport {
        run_id,
        applications: BTreeMap::new(),
        proposed: 0,
        rejected: 0,
        wall_seconds: 0.0,
    };
    for app in apps {
        bar.set_message(app.name.clone());
        let counts = report.applications.entry(app.name.clone()).or_default();
        if explored.contains(&app.name) {
            counts.skipped = true;
            bar.inc(1);
            continue;
        }
        let made = stored_outputs(cx, &app.name)?;
        match walk(env.as_mut(), app, cx.catalog, &rules, &made, Some(&cache)) {
            Ok(found) => {
                for d in &found.dropped {
                    tracing::info!(application = %app.name, "{d}");
                }
                let records: Vec<_> = found
                    .subtasks
                    .into_iter()
                    .map(|s| (s, SubtaskStatus::Proposed, None))
                    .collect();
                cx.store.put_explored(&records, Some(run_id))?;
                counts.proposed += records.len();
                report.proposed += records.len();
            }
            Err(e) => {
                tracing::warn!(application = %app.name, error = %e, "walk failed");
                *counts = AppCounts {
                    failed: Some(e.to_string()),
                    ..AppCounts::default()
                };
            }
        }
        bar.inc(1);
    }
    bar.finish_and_clear();
    report.wall_seconds = started.elapsed().as_secs_f64();
    let failed: BTreeMap<&String, &String> = report.failed().collect();
    let summary = serde_json::json!({"proposed": report.proposed, "failed": failed});
    let status = crate::store::RunStatus::done_unless(!failed.is_empty());
    cx.store.finish_run(run_id, status, &summary)?;
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> WalkRules {
        WalkRules {
            open_items: vec!["Open...".into()],
            skip: vec!["Print".into(), "Open Recent".into()],
            lines: vec!["Checked.".into()],
            max_inputs: 3,
            suffixes: ["final".into(), "reviewed".into()],
            other_suffixes: vec!["revised".into(), "updated".into()],
            select_items: vec!["Select All".into()],
            copy_items: vec!["Copy".into()],
            clipboard_kinds: BTreeMap::new(),
            line_forms: BTreeMap::new(),
            budget_secs: None,
            probe_secs: None,
            prefer: vec!["Save As".into(), "Export".into()],
            paste_suffix: "merged".into(),
            families: Family::all(),
        }
    }

    fn words(ws: &[&str]) -> Vec<String> {
        ws.iter().map(|w| (*w).to_string()).collect()
    }

    #[test]
    fn an_unchanged_copy_is_discarded_and_an_edit_or_a_conversion_kept() {
        // A plain Save As of a text as a text: an unchanged copy.
        assert!(discarded(false, Some("txt_path"), "txt_path").is_some());
        // The same after a typed line, a conversion, and no input at all.
        assert!(discarded(true, Some("txt_path"), "txt_path").is_none());
        assert!(discarded(false, Some("txt_path"), "pdf_path").is_none());
        assert!(discarded(false, Some("csv_path"), "xlsx_path").is_none());
        assert!(discarded(true, Some("csv_path"), "xlsx_path").is_none());
        assert!(discarded(false, None, "txt_path").is_none());
    }

    #[test]
    fn a_made_file_is_not_named_with_its_suffix_again() {
        let edit_others = words(&["revised", "updated", "final"]);
        let plain_others = words(&["revised", "updated", "reviewed"]);
        let name = |stem: &str, suffix: &str, others: &[String]| {
            new_stem(stem, suffix, others, &BTreeSet::from([stem]))
        };
        let d = "/home/user/Desktop";
        // A sandbox's own file: the family's suffix, as before.
        assert_eq!(
            name(&format!("{d}/welcome"), "reviewed", &edit_others),
            format!("{d}/welcome_reviewed")
        );
        // Made by an edit: edited again, then saved as is.
        assert_eq!(
            name(&format!("{d}/welcome_reviewed"), "reviewed", &edit_others),
            format!("{d}/welcome_revised")
        );
        assert_eq!(
            name(&format!("{d}/welcome_reviewed"), "final", &plain_others),
            format!("{d}/welcome_final")
        );
        // Several suffixes carried: none of them comes back.
        assert_eq!(
            name("/p/index_reviewed_final", "final", &plain_others),
            "/p/index_revised"
        );
        // A folder's underscore and a name that is only a suffix are kept.
        assert_eq!(
            name("/home/user/my_final/x", "final", &plain_others),
            "/home/user/my_final/x_final"
        );
        // The files it was made from are not named again: welcome_revised came
        // from welcome_reviewed, so its edit is not saved over that file.
        let avoid = BTreeSet::from(["/d/welcome_revised", "/d/welcome_reviewed", "/d/welcome"]);
        assert_eq!(
            new_stem("/d/welcome_revised", "reviewed", &edit_others, &avoid),
            "/d/welcome_updated"
        );
        // Every suffix taken: a number.
        let all = BTreeSet::from([
            "/d/a_reviewed",
            "/d/a_revised",
            "/d/a_updated",
            "/d/a_final",
        ]);
        assert_eq!(
            new_stem("/d/a_reviewed", "reviewed", &edit_others, &all),
            "/d/a_reviewed2"
        );
        // No stem repeats a word, and none equals its input's, over a chain of
        // edits and copies.
        let mut stem = "/d/stock".to_string();
        let mut seen = BTreeSet::new();
        for k in 0..8 {
            let (suffix, others) = if k % 2 == 0 {
                ("reviewed", &edit_others)
            } else {
                ("final", &plain_others)
            };
            seen.insert(stem.clone());
            let avoid: BTreeSet<&str> = seen.iter().map(String::as_str).collect();
            let next = new_stem(&stem, suffix, others, &avoid);
            assert!(!seen.contains(&next), "{next} again");
            let parts: Vec<&str> = next.rsplit('/').next().unwrap().split('_').collect();
            let unique: BTreeSet<&&str> = parts.iter().collect();
            assert_eq!(unique.len(), parts.len(), "{next} repeats a word");
            stem = next;
        }
    }

    #[test]
    fn a_chained_edit_types_another_line_than_its_input_holds() {
        let lines = words(&["One.", "Two.", "Three."]);
        // The sandbox's own files: one line per input, in turn.
        assert_eq!(line_for(&lines, 0, None).unwrap(), "One.");
        assert_eq!(line_for(&lines, 4, None).unwrap(), "Two.");
        // A file made by an edit that typed the first line: the next one.
        let typed = BTreeSet::from(["One.".to_string()]);
        assert_eq!(line_for(&lines, 0, Some(&typed)).unwrap(), "Two.");
        let typed = BTreeSet::from(["Two.".to_string(), "Three.".to_string()]);
        assert_eq!(line_for(&lines, 1, Some(&typed)).unwrap(), "One.");
        let typed: BTreeSet<String> = lines.iter().cloned().collect();
        assert!(line_for(&lines, 0, Some(&typed)).is_none());
    }

    #[test]
    fn a_line_is_written_in_its_files_form() {
        let mut r = rules();
        r.line_forms.insert("py".into(), "# {line}".into());
        r.line_forms.insert("html".into(), "<p>{line}</p>".into());
        assert_eq!(r.line_in(Some("py"), "One."), "# One.");
        assert_eq!(r.line_in(Some("PY"), "One."), "# One.");
        assert_eq!(r.line_in(Some("html"), "One."), "<p>One.</p>");
        // Not listed, or no extension: as is.
        assert_eq!(r.line_in(Some("txt"), "One."), "One.");
        assert_eq!(r.line_in(None, "One."), "One.");
        // A line with braces is put into the form once, not read as a form.
        assert_eq!(r.line_in(Some("py"), "{line} x"), "# {line} x");
    }

    #[test]
    fn the_committed_forms_suit_scripts_and_pages() {
        let r = WalkRules::load(Path::new(env!("CARGO_MANIFEST_DIR"))).unwrap();
        let line = &r.lines[0];
        assert_eq!(r.line_in(Some("py"), line), format!("# {line}"));
        assert_eq!(r.line_in(Some("sh"), line), format!("# {line}"));
        assert_eq!(r.line_in(Some("html"), line), format!("<p>{line}</p>"));
        for ext in ["txt", "md", "csv", "docx", "xlsx"] {
            assert_eq!(&r.line_in(Some(ext), line), line, "{ext}");
        }
    }

    #[test]
    fn a_form_without_its_line_is_refused() {
        let err = load_with(|committed| {
            let broken = committed.replace("py = \"# {line}\"", "py = \"# note\"");
            assert_ne!(broken, committed);
            broken
        })
        .unwrap_err()
        .to_string();
        assert!(err.contains("line_forms.py"), "{err}");
    }

    #[test]
    fn a_typed_form_is_typed_as_itself() {
        // What the edit step types reads back, through the key notation, as the
        // very characters of the line (the check looks for those).
        for text in ["# One.", "<p>One.</p>", "50% + 2 ^ {x} ~"] {
            let typed: String = crate::env::sim::parse_keys(&typed_text(text))
                .into_iter()
                .map(|t| match t {
                    crate::env::sim::KeyToken::Char(c) => c,
                    other => panic!("{text:?}: {other:?} is no character"),
                })
                .collect();
            assert_eq!(typed, text);
        }
    }

    #[test]
    fn a_line_typed_in_another_form_is_typed_already() {
        let lines = words(&["One.", "Two."]);
        // A script's maker typed "# One.": an HTML edit of it types "Two.".
        let typed: BTreeSet<String> = ["# One.".to_string()].into();
        assert_eq!(line_for(&lines, 0, Some(&typed)).unwrap(), "Two.");
        let typed: BTreeSet<String> = ["# One.".to_string(), "<p>Two.</p>".to_string()].into();
        assert!(line_for(&lines, 0, Some(&typed)).is_none());
    }

    #[test]
    fn a_made_file_carries_the_lines_and_files_of_its_whole_chain() {
        let making = |from: &[&str], line: Option<&str>| Making {
            from: words(from),
            line: line.map(str::to_string),
        };
        let makers = BTreeMap::from([
            // Mousepad's edit of the sandbox's welcome.txt...
            (
                "/d/w_reviewed.txt".to_string(),
                vec![making(&["/d/w.txt"], Some("One."))],
            ),
            // ... Geany's edit of it, and a copy of that (two makers).
            (
                "/d/w_revised.txt".to_string(),
                vec![
                    making(&["/d/w_reviewed.txt"], Some("Two.")),
                    making(&["/d/w_final.txt"], None),
                ],
            ),
            // A cycle does not loop.
            (
                "/d/w_final.txt".to_string(),
                vec![making(&["/d/w_revised.txt"], None)],
            ),
        ]);
        let l = lineage("/d/w_revised.txt", &makers);
        assert_eq!(
            l.lines,
            BTreeSet::from(["One.".to_string(), "Two.".to_string()])
        );
        assert_eq!(
            l.from,
            BTreeSet::from(
                [
                    "/d/w.txt",
                    "/d/w_reviewed.txt",
                    "/d/w_final.txt",
                    "/d/w_revised.txt"
                ]
                .map(String::from)
            )
        );
        assert_eq!(lineage("/d/w.txt", &makers), Lineage::default());
    }

    #[test]
    fn the_copied_snippet_is_the_start_of_the_first_line_with_words() {
        assert_eq!(
            snippet("\n  \nQuarterly report for the north region and more words\nnext").as_deref(),
            Some("Quarterly report for the north region")
        );
        assert_eq!(snippet("a {b} c").as_deref(), Some("a"));
        // Cells copied from a sheet keep their tabs: the clipboard holds them.
        assert_eq!(
            snippet("Name\tEmail\tPhone\nAda\tada@x.org\t1").as_deref(),
            Some("Name\tEmail\tPhone")
        );
        assert_eq!(
            snippet("Supercalifragilisticexpialidocious-and-then-some words here").as_deref(),
            Some("Supercalifragilisticexpialidocious-and-then-some")
        );
        assert_eq!(snippet(" \n\t{}\n"), None);
    }

    #[test]
    fn menu_items_are_found_by_name_without_their_dots() {
        let menus = vec![
            MenuPath::new("Edit", "Copy"),
            MenuPath::new("Edit", "Select All…"),
        ];
        let rules = rules();
        assert_eq!(
            WalkRules::find(&rules.select_items, &menus).map(|m| m.item.as_str()),
            Some("Select All…")
        );
        assert_eq!(WalkRules::find(&rules.open_items, &menus), None);
    }

    #[test]
    fn a_window_without_the_open_menu_is_a_question() {
        let obs = |title: &str, controls: &[(&str, &str)]| Observation {
            window_title: title.into(),
            controls: controls
                .iter()
                .map(|(kind, text)| ControlInfo {
                    label: "1".into(),
                    control_text: (*text).into(),
                    control_type: (*kind).into(),
                    parent_control_text: String::new(),
                    parent_control_type: "Window".into(),
                    rect: [0; 4],
                    focused: false,
                })
                .collect(),
            feedback: None,
            scene: Default::default(),
            captured: None,
        };
        let document = obs(
            "stock.csv - LibreOffice Calc",
            &[("MenuItem", "File"), ("MenuItem", "Edit")],
        );
        let import = obs(
            "Text Import - [stock.csv]",
            &[("Button", "OK"), ("CheckBox", "File")],
        );
        assert!(shows_menu(&document, "File"));
        assert!(!shows_menu(&import, "File"));
        assert!(!shows_menu(&document, "Archive"));
    }

    #[test]
    fn the_file_type_box_names_the_native_extension() {
        let obs = |text: &str| Observation {
            window_title: "Save File As".into(),
            controls: vec![ControlInfo {
                label: "1".into(),
                control_text: text.into(),
                control_type: "ComboBox".into(),
                parent_control_text: String::new(),
                parent_control_type: String::new(),
                rect: [0; 4],
                focused: false,
            }],
            feedback: None,
            scene: Default::default(),
            captured: None,
        };
        assert_eq!(
            native_ext(&obs("AbiWord (.abw, .zabw, abw.gz)")).as_deref(),
            Some("abw")
        );
        assert_eq!(
            native_ext(&obs("Gnumeric XML (*.gnumeric)")).as_deref(),
            Some("gnumeric")
        );
        assert_eq!(native_ext(&obs("Text Files")), None);
        // LibreOffice's filters list several extensions, split by ';'.
        assert_eq!(
            native_ext(&obs("XHTML (.html;.xhtml)")).as_deref(),
            Some("html")
        );
    }

    /// A control of `kind` showing `text` at `rect`, focused or not.
    fn control(kind: &str, text: &str, rect: [i32; 4], focused: bool) -> ControlInfo {
        ControlInfo {
            label: "1".into(),
            control_text: text.into(),
            control_type: kind.into(),
            parent_control_text: String::new(),
            parent_control_type: "Window".into(),
            rect,
            focused,
        }
    }

    fn window(controls: Vec<ControlInfo>) -> Observation {
        Observation {
            window_title: "index.html - Geany".into(),
            controls,
            feedback: None,
            scene: Default::default(),
            captured: None,
        }
    }

    #[test]
    fn a_dialog_off_the_bus_is_not_clicked_blind() {
        let button = |window: &str| ControlInfo {
            parent_control_text: window.into(),
            ..control("Button", "Bookmark this tab", [0, 0, 10, 10], false)
        };
        let mut obs = window(vec![button("index.html - Geany")]);
        assert!(shows_window(&obs));
        obs.window_title = "Save File".into();
        assert!(!shows_window(&obs));
    }

    #[test]
    fn the_document_is_clicked_into_when_the_focus_is_not_in_a_text() {
        let doc = "<!DOCTYPE html>\n<html>\n";
        let page = |focused: bool| {
            window(vec![
                control("Edit", "Search", [0, 0, 100, 20], false),
                control(
                    "Edit",
                    "<!DOCTYPE html>\n<html>",
                    [0, 30, 700, 500],
                    focused,
                ),
                control("TabItem", "Symbols", [0, 0, 50, 20], !focused),
            ])
        };
        // Focus in a side panel: the text that shows the document.
        let unfocused = page(false);
        let target = text_to_click(&unfocused, doc).map(|c| c.control_text.as_str());
        assert_eq!(target, Some("<!DOCTYPE html>\n<html>"));
        // Focus in the document already: no click.
        assert!(text_to_click(&page(true), doc).is_none());
        // No text control shows the document (a spreadsheet's name box and
        // font box): no click, whatever the sizes.
        let sheet = window(vec![
            control("Edit", "A1", [0, 0, 120, 30], false),
            control("Edit", "Sans", [0, 40, 170, 70], false),
        ]);
        assert!(text_to_click(&sheet, "Name,Email\nAda,a@x.org").is_none());
    }

    #[test]
    fn a_dialog_without_a_name_field_asks_for_options_first() {
        let input = InputFile {
            path: "/home/user/Documents/budget.xlsx".into(),
            kind: "xlsx_path".into(),
            lineage: Lineage::default(),
        };
        // LibreOffice's PDF Options: fields, none focused, none with the name.
        let options = window(vec![
            control("Edit", "", [0, 0, 100, 20], false),
            control("Edit", "300 DPI", [0, 30, 100, 50], false),
            control("Button", "Export", [0, 60, 100, 80], false),
        ]);
        assert!(asks_options_first(&options, Some(&input)));
        // A save dialog: its name field holds the document's name, or has the
        // focus.
        let save = |text: &str, focused: bool| {
            window(vec![
                control("Edit", text, [0, 0, 300, 20], focused),
                control("Button", "Save", [0, 60, 100, 80], false),
            ])
        };
        assert!(!asks_options_first(
            &save("budget.xlsx", false),
            Some(&input)
        ));
        assert!(!asks_options_first(&save("", true), Some(&input)));
        assert!(!asks_options_first(&save("", true), None));
        assert!(asks_options_first(&save("", false), None));
    }

    #[test]
    fn preferred_items_come_first_and_skipped_ones_go() {
        let item = MenuPath::new;
        let mut items = vec![
            item("Data", "Sort..."),
            item("File", "Print..."),
            item("Data", "Filter..."),
            item("File", "Export as PDF..."),
            item("File", "Save As…"),
        ];
        rules().order(&mut items);
        let names: Vec<&str> = items.iter().map(|m| m.item.as_str()).collect();
        assert_eq!(
            names,
            ["Save As…", "Export as PDF...", "Sort...", "Filter..."]
        );
    }

    #[test]
    fn skip_rules_match_by_prefix_without_dots_or_case() {
        let r = rules();
        assert!(r.skips("Print..."));
        assert!(r.skips("print preview…"));
        assert!(r.skips("Open Recent"));
        assert!(!r.skips("Save As..."));
        assert_eq!(bare("Save As…"), "Save As");
    }

    #[test]
    fn the_committed_rules_load() {
        let ws = Path::new(env!("CARGO_MANIFEST_DIR"));
        let r = WalkRules::load(ws).unwrap();
        assert!(r.skips("Quit"));
        assert!(!r.open_items.is_empty());
    }

    fn entry() -> AppEntry {
        AppEntry {
            name: "Mousepad".into(),
            category: "Office".into(),
            command: vec!["mousepad".into()],
            open: vec![],
            env: Default::default(),
            window_class: "Mousepad".into(),
            accessible_name: "mousepad".into(),
            extensions: vec!["txt".into()],
            stem: "mousepad".into(),
            launcher: false,
            start_secs: 30,
            menu_buttons: vec![],
            items: vec![],
            confirm_keys: vec![],
            ready_text: None,
            entries: vec![],
            edits: true,
        }
    }

    #[test]
    fn a_computed_result_is_a_number_other_than_the_entry() {
        assert_eq!(computed("1234*56", "69104\n"), Some("69104".into()));
        assert_eq!(computed("2^10", "  1024 "), Some("1024".into()));
        assert_eq!(computed("1/8", "0.125"), Some("0.125".into()));
        assert_eq!(computed("7-9", "-2"), Some("-2".into()));
        // Nothing worked out: the entry itself, or no number at all.
        assert_eq!(computed("42", "42"), None);
        assert_eq!(computed("4 2", "42"), None);
        assert_eq!(computed("1234*56", "1234*56"), None);
        assert_eq!(computed("1/0", "inf"), None);
        assert_eq!(computed("1+1", ""), None);
        assert_eq!(computed("1+1", "Error"), None);
    }

    #[test]
    fn a_computed_value_is_one_subtask_that_checks_the_clipboard() {
        let mut app = entry();
        app.name = "Galculator".into();
        app.entries = vec!["1234*56".into(), "2^10".into()];
        let copy = MenuPath::new("Edit", "Copy");
        let demos = vec![
            ("1234*56".to_string(), "69104".to_string(), vec![]),
            ("2^10".to_string(), "1024".to_string(), vec![]),
        ];
        let s = compute_subtask(&app, &copy, &demos);
        assert_eq!(
            s.instruction_template,
            "In Galculator, work out {expression} and copy the result with Edit > Copy."
        );
        assert!(s.input_resources.is_empty());
        assert_eq!(s.output_resources, vec!["number_in_clipboard"]);
        assert_eq!(s.available_parameters[1]["result"], "1024");
        assert_eq!(
            s.trajectories[0].instruction,
            "In Galculator, work out 1234*56 and copy the result with Edit > Copy."
        );
        let apis: Vec<&str> = s
            .evaluation
            .unwrap()
            .checks
            .iter()
            .map(|c| c.call.api_name())
            .collect();
        assert_eq!(apis, ["check_mouse_clicks", "check_clipboard_contains"]);
    }

    #[test]
    fn a_same_kind_copy_gets_a_second_slot_and_outcome_checks() {
        let cand = MenuPath::new("File", "Save As...");
        let demo = |i: &str, o: &str| Demo {
            input: Some(InputFile {
                path: i.into(),
                kind: "txt_path".into(),
                lineage: Lineage::default(),
            }),
            change: Change::Line("Checked.".into()),
            output: InputFile {
                path: o.into(),
                kind: "txt_path".into(),
                lineage: Lineage::default(),
            },
            actions: vec![],
        };
        let s = subtask_of(
            &entry(),
            &cand,
            &[
                demo("/home/user/a.txt", "/home/user/a_reviewed.txt"),
                demo("/home/user/b.txt", "/home/user/b_reviewed.txt"),
            ],
        );
        assert_eq!(
            s.instruction_template,
            "In Mousepad, open '{txt_path}', add the line '{line}' at the end and save it as '{new_txt_path}' with File > Save As."
        );
        assert_eq!(s.input_resources, vec!["txt_path"]);
        assert_eq!(s.output_resources, vec!["txt_path:new_txt_path"]);
        assert_eq!(s.available_parameters.len(), 2);
        assert_eq!(
            s.available_parameters[1]["new_txt_path"],
            "/home/user/b_reviewed.txt"
        );
        let apis: Vec<&str> = s
            .evaluation
            .unwrap()
            .checks
            .iter()
            .map(|c| c.call.api_name())
            .collect();
        assert_eq!(
            apis,
            [
                "check_mouse_clicks",
                "check_file_exists",
                "check_file_contains"
            ]
        );
        assert_eq!(s.trajectories.len(), 2);
    }

    #[test]
    fn a_paste_reads_the_file_and_the_clipboard_and_checks_the_paste() {
        let cand = MenuPath::new("File", "Save As...");
        let demo = Demo {
            input: Some(InputFile {
                path: "/home/user/a.txt".into(),
                kind: "txt_path".into(),
                lineage: Lineage::default(),
            }),
            change: Change::Paste,
            output: InputFile {
                path: "/home/user/a_merged.txt".into(),
                kind: "txt_path".into(),
                lineage: Lineage::default(),
            },
            actions: vec![],
        };
        let s = subtask_of(&entry(), &cand, &[demo]);
        assert_eq!(
            s.instruction_template,
            "In Mousepad, open '{txt_path}', paste the copied text at its end and save it as '{new_txt_path}' with File > Save As."
        );
        assert_eq!(s.input_resources, ["txt_path", "text_in_clipboard"]);
        assert_eq!(s.output_resources, ["txt_path:new_txt_path"]);
        assert!(!s.available_parameters[0].contains_key("line"));
        let checks = s.evaluation.unwrap().checks;
        let apis: Vec<&str> = checks.iter().map(|c| c.call.api_name()).collect();
        assert_eq!(
            apis,
            [
                "check_mouse_clicks",
                "check_key_presses",
                "check_file_exists"
            ]
        );
        assert_eq!(
            checks[1].call,
            CheckCall::CheckKeyPresses { keys: "^v".into() }
        );
        // A paste edits: kept whatever the kinds; the walk prepares the
        // clipboard as verify prepares a `text_in_clipboard` input.
        assert!(discarded(Change::Paste.edits(), Some("txt_path"), "txt_path").is_none());
        assert_eq!(
            Change::Paste.clipboard(),
            Some(crate::env::real::prepared_clipboard(""))
        );
        assert_eq!(Change::Line("x".into()).clipboard(), None);
    }

    #[test]
    fn a_paste_is_kept_only_when_the_saved_file_holds_the_pasted_text() {
        let pasted = crate::env::real::prepared_clipboard("");
        let doc = format!("Welcome\n{pasted}\n");
        assert!(Change::Paste.shown_in(Some(&doc)));
        // An archive saved again after Ctrl+V, or a file that cannot be read.
        assert!(!Change::Paste.shown_in(Some("PK\u{3}\u{4} photos")));
        assert!(!Change::Paste.shown_in(None));
        // The other families are not judged by the file's text here (the
        // edit family's evaluation reads its line back on replay).
        assert!(Change::AsIs.shown_in(None));
        assert!(Change::Line("x".into()).shown_in(Some("no line")));
    }

    #[test]
    fn each_family_names_its_file_with_its_own_suffix() {
        let r = rules();
        assert_eq!(r.suffixes_of(Family::AsIs).0, "final");
        assert_eq!(r.suffixes_of(Family::Edit).0, "reviewed");
        let (own, others) = r.suffixes_of(Family::Paste);
        assert_eq!(own, "merged");
        assert_eq!(others, ["revised", "updated", "final", "reviewed"]);
        assert!(r
            .suffixes_of(Family::Edit)
            .1
            .contains(&"merged".to_string()));
    }

    fn load_with(edit: impl Fn(&str) -> String) -> Result<WalkRules, EnvError> {
        let dir = tempfile::tempdir().unwrap();
        let x11 = dir.path().join("resources/x11");
        std::fs::create_dir_all(&x11).unwrap();
        let committed = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("resources/x11/explore.toml"),
        )
        .unwrap();
        std::fs::write(x11.join("explore.toml"), edit(&committed)).unwrap();
        WalkRules::load(dir.path())
    }

    #[test]
    fn the_families_walked_are_data() {
        let families = |r: &WalkRules| r.families.clone();
        let all = load_with(|t| t.to_string()).unwrap();
        assert_eq!(families(&all), Family::all());
        let absent = load_with(|t| {
            t.lines()
                .filter(|l| !l.starts_with("families"))
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap();
        assert_eq!(families(&absent), Family::all());
        let line = "families = [\"as_is\", \"edit\", \"paste\", \"copy\", \"compute\"]";
        let paste = load_with(|t| t.replace(line, "families = [\"paste\"]")).unwrap();
        assert_eq!(families(&paste), [Family::Paste]);
        assert!(paste.runs(Family::Paste) && !paste.runs(Family::Copy));
        let bad = load_with(|t| t.replace(line, "families = [\"pastes\"]")).unwrap_err();
        let bad = bad.to_string();
        assert!(
            bad.contains("explore.toml") && bad.contains("pastes"),
            "{bad}"
        );
        let empty = load_with(|t| t.replace(line, "families = []")).unwrap_err();
        assert!(empty.to_string().contains("`families`"), "{empty}");
    }
}
