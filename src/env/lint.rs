//! `synth env lint`: validates every application file against the effect
//! vocabulary, the resource catalogue, the fixtures and itself. Every problem names
//! the file and line.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt;
use std::path::{Path, PathBuf};

use super::sim::effects_known_condition;
use super::sim::vfs::Vfs;
use super::spec::{
    collection_spec, parse_app, ControlType, Effect, ItemSource, LoadedApp, Op, CLIPBOARD_CONTENTS,
};
use super::EnvError;
use crate::resources::Catalog;

/// One problem found by lint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LintIssue {
    pub path: PathBuf,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for LintIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path.display(), self.line, self.message)
    }
}

/// What app files are checked against.
pub struct LintContext {
    pub categories: Vec<String>,
    /// Known file extensions (from the catalogue's path kinds).
    pub extensions: BTreeSet<String>,
    /// Names of all applications.
    pub apps: BTreeSet<String>,
    /// The fixture tree.
    pub fixtures: Vfs,
}

/// Lints every `resources/apps/*.toml` of a workspace.
pub fn lint_workspace(workspace: &Path) -> Result<Vec<LintIssue>, EnvError> {
    let catalog = Catalog::load(workspace)?;
    let dir = workspace.join("resources").join("apps");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map_err(|source| EnvError::Io {
            path: dir.clone(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("toml"))
        .collect();
    paths.sort();
    let mut issues = Vec::new();
    let mut apps = Vec::new();
    for path in paths {
        let text = std::fs::read_to_string(&path).map_err(|source| EnvError::Io {
            path: path.clone(),
            source,
        })?;
        match parse_app(&path, &text) {
            Ok(app) => apps.push(app),
            Err(EnvError::Spec {
                path,
                line,
                message,
            }) => issues.push(LintIssue {
                path,
                line,
                message,
            }),
            Err(other) => return Err(other),
        }
    }
    let ctx = LintContext {
        categories: catalog.categories.clone(),
        extensions: catalog
            .kinds
            .values()
            .flat_map(|k| k.file_kinds.iter().cloned())
            .collect(),
        apps: apps.iter().map(|a| a.spec.name.clone()).collect(),
        fixtures: Vfs::from_host(&workspace.join("resources").join("fixtures"))?,
    };
    let mut names = BTreeMap::new();
    for app in &apps {
        if let Some(prev) = names.insert(app.spec.name.clone(), app.path.clone()) {
            issues.push(LintIssue {
                path: app.path.clone(),
                line: find_line(&app.text, "name"),
                message: format!(
                    "application '{}' is also defined in {}",
                    app.spec.name,
                    prev.display()
                ),
            });
        }
        issues.extend(lint_app(app, &ctx));
    }
    Ok(issues)
}

fn find_line(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.trim_start().starts_with(needle))
        .map(|i| i + 1)
        .unwrap_or(1)
}

/// Lints one parsed application.
pub fn lint_app(app: &LoadedApp, ctx: &LintContext) -> Vec<LintIssue> {
    let spec = &app.spec;
    let mut out = Vec::new();
    let mut issue = |line: usize, message: String| {
        out.push(LintIssue {
            path: app.path.clone(),
            line,
            message,
        });
    };
    if !ctx.categories.contains(&spec.category) {
        issue(
            find_line(&app.text, "category"),
            format!("unknown category '{}'", spec.category),
        );
    }
    if !spec.screens.contains_key(&spec.start) {
        issue(
            find_line(&app.text, "start"),
            format!("start screen '{}' does not exist", spec.start),
        );
    }
    let screen_line = |sid: &str| find_line(&app.text, &format!("[screens.{sid}]"));
    // Effects.
    let check_effect = |e: &Effect, line: usize, issue: &mut dyn FnMut(usize, String)| {
        let ext_ok = |x: &str| ctx.extensions.contains(x);
        let literal_path = |p: &str| !p.contains('{') && p.starts_with('/');
        match &e.op {
            Op::Goto { screen } if !spec.screens.contains_key(screen) => {
                issue(line, format!("goto: screen '{screen}' does not exist"));
            }
            Op::Launch { app: a } if !ctx.apps.contains(a) => {
                issue(line, format!("launch: application '{a}' does not exist"));
            }
            Op::OpenFile { kinds, path }
            | Op::SaveAs { kinds, path }
            | Op::InsertFile { kinds, path } => {
                if kinds.is_empty() {
                    issue(line, format!("{}: no file kinds", e.op.name()));
                }
                for k in kinds.iter().filter(|k| !ext_ok(k)) {
                    issue(line, format!("{}: unknown file kind '{k}'", e.op.name()));
                }
                if matches!(e.op, Op::OpenFile { .. })
                    && literal_path(path)
                    && !ctx.fixtures.is_file(path)
                {
                    issue(line, format!("open_file: fixture '{path}' does not exist"));
                }
            }
            Op::NewDocument { kind } | Op::Export { kind, .. } if !ext_ok(kind) => {
                issue(line, format!("{}: unknown file kind '{kind}'", e.op.name()));
            }
            Op::AddRecord { collection, fields } => match collection_spec(collection) {
                None => issue(
                    line,
                    format!("add_record: unknown collection '{collection}'"),
                ),
                Some(c) if !fields.contains_key(c.key) => {
                    issue(
                        line,
                        format!(
                            "add_record: collection '{collection}' needs field '{}'",
                            c.key
                        ),
                    );
                }
                _ => {}
            },
            Op::OpenWith { app: a, .. } if a != "default" && !ctx.apps.contains(a) => {
                issue(line, format!("open_with: application '{a}' does not exist"));
            }
            Op::SetRecordField { collection, .. } | Op::DeleteRecord { collection, .. }
                if collection_spec(collection).is_none() =>
            {
                issue(
                    line,
                    format!("delete_record: unknown collection '{collection}'"),
                );
            }
            Op::Paste { accepts, files, .. } => {
                for a in accepts
                    .iter()
                    .filter(|a| !CLIPBOARD_CONTENTS.contains(&a.as_str()))
                {
                    issue(
                        line,
                        format!(
                            "paste: unknown clipboard content '{a}' ({})",
                            CLIPBOARD_CONTENTS.join(", ")
                        ),
                    );
                }
                for k in files.iter().filter(|k| !ext_ok(k)) {
                    issue(line, format!("paste: unknown file kind '{k}'"));
                }
            }
            Op::Copy { gives: Some(g), .. } if !CLIPBOARD_CONTENTS.contains(&g.as_str()) => {
                issue(
                    line,
                    format!(
                        "copy: unknown clipboard content '{g}' ({})",
                        CLIPBOARD_CONTENTS.join(", ")
                    ),
                );
            }
            Op::Require { when, .. } if !effects_known_condition(when) => {
                issue(line, format!("require: unknown condition '{when}'"));
            }
            Op::Play { path } | Op::Extract { path, .. }
                if literal_path(path) && !ctx.fixtures.is_file(path) =>
            {
                issue(
                    line,
                    format!("{}: fixture '{path}' does not exist", e.op.name()),
                );
            }
            Op::Copy { what, .. } if what.is_empty() => issue(line, "copy: empty 'what'".into()),
            _ => {}
        }
    };
    for (key, effects) in &spec.keys {
        let line = find_line(&app.text, &format!("\"{key}\""));
        if super::sim::normalize_keys(key).is_empty() {
            issue(line, format!("key '{key}' is not a key combo"));
        }
        for e in effects {
            check_effect(e, line, &mut issue);
        }
    }
    // Reachability over goto edges.
    let mut edges: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (sid, screen) in &spec.screens {
        let line = screen_line(sid);
        if screen.controls.is_empty() {
            issue(line, format!("screen '{sid}' has no controls"));
        }
        let mut seen: BTreeMap<String, usize> = BTreeMap::new();
        let texts: BTreeSet<&str> = screen
            .controls
            .iter()
            .map(|c| c.get_ref().text.as_str())
            .collect();
        for (key, effects) in &screen.keys {
            for e in effects {
                check_effect(e, line, &mut issue);
                if let Op::Goto { screen } = &e.op {
                    edges.entry(sid).or_default().insert(screen.clone());
                }
            }
            let _ = key;
        }
        for (key, effects) in &spec.keys {
            let _ = key;
            for e in effects {
                if let Op::Goto { screen } = &e.op {
                    edges.entry(sid).or_default().insert(screen.clone());
                }
            }
        }
        for c in &screen.controls {
            let line = app.line_of(c.span().start);
            let c = c.get_ref();
            if let Some(prev) = seen.insert(c.text.clone(), line) {
                issue(
                    line,
                    format!(
                        "duplicate control '{}' on screen '{sid}' (first on line {prev})",
                        c.text
                    ),
                );
            }
            if let Some(p) = &c.parent {
                if !texts.contains(p.as_str()) {
                    issue(
                        line,
                        format!("parent '{p}' is not a control of screen '{sid}'"),
                    );
                }
            }
            if let Some(w) = &c.when {
                if !effects_known_condition(w) {
                    issue(line, format!("unknown condition '{w}'"));
                }
            }
            if c.text.trim().is_empty() {
                issue(line, "control with empty text".into());
            }
            match (&c.items, c.control_type) {
                (Some(_), ControlType::List) => {}
                (None, ControlType::List) => issue(line, format!("List '{}' has no items", c.text)),
                (Some(_), other) => issue(
                    line,
                    format!("items on a {} (only a List has items)", other.as_str()),
                ),
                _ => {}
            }
            match &c.items {
                Some(ItemSource::Collection { name }) if collection_spec(name).is_none() => {
                    issue(line, format!("items: unknown collection '{name}'"));
                }
                Some(ItemSource::Dir { path, kinds }) => {
                    for k in kinds.iter().filter(|k| !ctx.extensions.contains(*k)) {
                        issue(line, format!("items: unknown file kind '{k}'"));
                    }
                    if !path.contains('{') && !ctx.fixtures.is_dir(path) {
                        issue(
                            line,
                            format!("items: folder '{path}' does not exist in the fixtures"),
                        );
                    }
                }
                _ => {}
            }
            if let Some(says) = &c.says {
                if c.control_type != ControlType::Edit {
                    issue(
                        line,
                        format!(
                            "says on a {} (only an Edit has a value to word)",
                            c.control_type.as_str()
                        ),
                    );
                } else if says.matches("{}").count() != 1 {
                    issue(
                        line,
                        format!("says '{says}' must hold '{{}}' once, for the value"),
                    );
                }
            }
            for e in c.click.iter().chain(&c.enter).chain(&c.double) {
                check_effect(e, line, &mut issue);
                if let Op::Goto { screen } = &e.op {
                    edges.entry(sid).or_default().insert(screen.clone());
                }
            }
        }
    }
    let mut reached: BTreeSet<String> = BTreeSet::new();
    let mut queue = VecDeque::from([spec.start.clone()]);
    while let Some(s) = queue.pop_front() {
        if !reached.insert(s.clone()) {
            continue;
        }
        for n in edges.get(s.as_str()).into_iter().flatten() {
            queue.push_back(n.clone());
        }
    }
    for sid in spec.screens.keys() {
        if !reached.contains(sid) {
            issue(
                screen_line(sid),
                format!("screen '{sid}' is unreachable from '{}'", spec.start),
            );
        }
    }
    out
}
