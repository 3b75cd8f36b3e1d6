//! The effect interpreter: what clicks, wheel turns and keys do to the state. Each
//! effect of [`Op`] is applied in order; the first failure opens an error dialog in
//! the window and stops the rest.

use std::collections::BTreeMap;

use super::layout::{Live, LiveControl, Target};
use super::vfs::{self, normalize, HOME};
use super::{Clipboard, DesktopState, Dialog, Document, KeyToken, LoadedApp, Record, Window};
use crate::env::spec::{collection_spec, ControlType, Effect, Op};
use crate::model::{fill_placeholders, ParameterSet};

const MEDIA: &[&str] = &["mp3", "wav", "mp4", "mkv"];

/// The template context of window `wi`: its fields plus `selected`,
/// `selected_path`, `cwd`, `doc_path`, `doc_name`, `doc_stem`, `doc_dir`, `home`,
/// `clipboard`, `n`, `playing`.
pub fn context(state: &DesktopState, wi: usize) -> ParameterSet {
    let mut p = ParameterSet::new();
    let Some(w) = state.windows.get(wi) else {
        return p;
    };
    for (k, v) in &w.fields {
        p.insert(k.clone(), v.clone());
    }
    p.insert("home".into(), HOME.into());
    p.entry("cwd".into()).or_insert_with(|| HOME.into());
    let parent = vfs::parent(&p["cwd"]).to_string();
    p.insert("cwd_parent".into(), parent);
    p.insert("selected".into(), w.selected.clone().unwrap_or_default());
    // The selected record's own fields (`selected_amount`): the first record of
    // any collection holding the selected value.
    if let Some(sel) = w.selected.as_deref().filter(|s| !s.is_empty()) {
        let record = state
            .collections
            .values()
            .flatten()
            .find(|r| r.values().any(|v| v == sel));
        for (k, v) in record.into_iter().flatten() {
            p.insert(format!("selected_{k}"), v.clone());
        }
    }
    p.insert(
        "selected_path".into(),
        w.selected_path.clone().unwrap_or_default(),
    );
    p.insert("n".into(), (state.seq + 1).to_string());
    p.insert(
        "clipboard".into(),
        state.clipboard.as_text().unwrap_or_default().to_string(),
    );
    p.insert(
        "playing".into(),
        state
            .playing
            .as_deref()
            .map(vfs::base_name)
            .unwrap_or("nothing")
            .to_string(),
    );
    if let Some(d) = &w.doc {
        let name = d.name();
        let stem = name
            .rsplit_once('.')
            .map(|(s, _)| s.to_string())
            .unwrap_or(name.clone());
        p.insert("doc_path".into(), d.path.clone().unwrap_or_default());
        p.insert(
            "doc_dir".into(),
            d.path
                .as_deref()
                .map(vfs::parent)
                .unwrap_or(p["cwd"].as_str())
                .to_string(),
        );
        p.insert("doc_name".into(), name);
        p.insert("doc_stem".into(), stem);
        p.insert("doc_kind".into(), d.kind.clone());
        for (k, v) in &d.props {
            p.insert(format!("prop_{k}"), v.clone());
        }
    } else {
        p.insert("doc_name".into(), "Untitled".into());
        p.insert("doc_stem".into(), "Untitled".into());
    }
    for (k, v) in &state.settings {
        p.insert(format!("setting_{k}"), v.clone());
    }
    p
}

/// `content`'s first line, then the rest of it once per record of `collection`
/// (its fields as placeholders): a table export of the whole collection.
fn each_record(state: &DesktopState, collection: &str, content: &str) -> String {
    let (header, row) = content.split_once('\n').unwrap_or((content, ""));
    let mut out = header.to_string();
    for r in state.collections.get(collection).into_iter().flatten() {
        out.push('\n');
        out.push_str(&fill(row, r));
    }
    out
}

/// Fills `{placeholders}` from `ctx`; placeholders without a value become empty.
pub fn fill(template: &str, ctx: &ParameterSet) -> String {
    let names = crate::model::placeholders(template);
    if names.iter().all(|n| ctx.contains_key(n)) {
        return fill_placeholders(template, ctx);
    }
    let mut full = ctx.clone();
    for n in names {
        full.entry(n).or_default();
    }
    fill_placeholders(template, &full)
}

/// Evaluates a `when` condition: `doc`, `selection`, `clipboard`, `playing`,
/// `dialog`, `field:NAME` (non-empty), `doc_kind:EXT`; `!` negates.
pub fn cond(state: &DesktopState, wi: usize, when: &str) -> bool {
    let (neg, c) = match when.strip_prefix('!') {
        Some(c) => (true, c),
        None => (false, when),
    };
    let Some(w) = state.windows.get(wi) else {
        return false;
    };
    let v = match c {
        "doc" => w.doc.is_some(),
        "selection" => w.selected.is_some(),
        "clipboard" => state.clipboard != Clipboard::Empty,
        "playing" => state.playing.is_some(),
        other => {
            if let Some(f) = other.strip_prefix("field:") {
                w.fields.get(f).is_some_and(|v| !v.is_empty())
            } else if let Some(k) = other.strip_prefix("doc_kind:") {
                w.doc.as_ref().is_some_and(|d| d.kind == k)
            } else {
                false
            }
        }
    };
    v != neg
}

/// The conditions `cond` understands (for lint).
pub fn known_condition(when: &str) -> bool {
    let c = when.strip_prefix('!').unwrap_or(when);
    matches!(c, "doc" | "selection" | "clipboard" | "playing")
        || c.strip_prefix("field:").is_some_and(|f| !f.is_empty())
        || c.strip_prefix("doc_kind:").is_some_and(|f| !f.is_empty())
}

/// Opens (or focuses) a window of `app`.
pub fn launch(state: &mut DesktopState, app: &LoadedApp) {
    if let Some(i) = state.windows.iter().position(|w| w.app == app.spec.name) {
        state.active = Some(i);
        return;
    }
    let mut fields = app.spec.fields.clone();
    fields.insert(
        "cwd".to_string(),
        app.spec
            .cwd
            .clone()
            .unwrap_or_else(|| format!("{HOME}/Documents")),
    );
    state.windows.push(Window {
        app: app.spec.name.clone(),
        screen: app.spec.start.clone(),
        history: Vec::new(),
        fields,
        doc: None,
        scroll: BTreeMap::new(),
        selected: None,
        selected_path: None,
        dialog: None,
        focus: None,
    });
    state.active = Some(state.windows.len() - 1);
}

fn app_of<'a>(apps: &'a [LoadedApp], w: &Window) -> Option<&'a LoadedApp> {
    apps.iter().find(|a| a.spec.name == w.app)
}

/// A click on a visible control.
pub fn click(
    state: &mut DesktopState,
    apps: &[LoadedApp],
    c: &LiveControl,
    button: &str,
    double: bool,
) -> (bool, String) {
    state.counter += 1;
    match &c.target {
        Target::Launch(i) => {
            if let Some(app) = apps.get(*i) {
                launch(state, app);
                return (true, format!("Opened {}", app.spec.name));
            }
            (false, "No such application".into())
        }
        Target::Focus(i) => {
            state.active = Some(*i);
            (true, format!("Switched to {}", state.windows[*i].app))
        }
        Target::ShowDesktop | Target::Minimize => {
            state.active = None;
            (true, "Showing the desktop".into())
        }
        Target::CloseWindow => {
            close_active(state);
            (true, "Closed the window".into())
        }
        Target::DialogOk => {
            if let Some(w) = state.active.and_then(|i| state.windows.get_mut(i)) {
                w.dialog = None;
            }
            (true, "Closed the message".into())
        }
        Target::Inert => (true, format!("Clicked '{}'; nothing happens", c.name)),
        Target::Spec { index } => {
            let Some(wi) = state.active else {
                return (false, "No window".into());
            };
            let Some(app) = app_of(apps, &state.windows[wi]) else {
                return (false, "No application".into());
            };
            let screen = &app.spec.screens[&state.windows[wi].screen];
            let spec = screen.controls[*index].get_ref();
            if button != "left" {
                return (true, format!("Right-clicked '{}'; no menu here", spec.text));
            }
            match spec.control_type {
                ControlType::Edit | ControlType::Document => {
                    state.windows[wi].focus = Some(spec.text.clone());
                    if spec.click.is_empty() {
                        return (true, format!("Focused '{}'", spec.text));
                    }
                }
                ControlType::CheckBox => {
                    let f = spec.field_name();
                    let w = &mut state.windows[wi];
                    let on = w.fields.get(&f).is_some_and(|v| v == "true");
                    w.fields
                        .insert(f, if on { "false" } else { "true" }.to_string());
                }
                ControlType::ComboBox if !spec.options.is_empty() => {
                    let f = spec.field_name();
                    let w = &mut state.windows[wi];
                    let cur = w.fields.get(&f).cloned().unwrap_or_default();
                    let next = spec
                        .options
                        .iter()
                        .position(|o| *o == cur)
                        .map(|i| (i + 1) % spec.options.len())
                        .unwrap_or(0);
                    w.fields.insert(f, spec.options[next].clone());
                }
                ControlType::List | ControlType::Text if spec.click.is_empty() => {
                    return (true, format!("Clicked '{}'; nothing happens", spec.text));
                }
                _ => {}
            }
            let effects = spec.click.clone();
            let name = spec.text.clone();
            run(state, apps, wi, &effects, &format!("Clicked '{name}'"))
        }
        Target::Item { list, key, path } => {
            let Some(wi) = state.active else {
                return (false, "No window".into());
            };
            {
                let w = &mut state.windows[wi];
                w.selected = Some(key.clone());
                w.selected_path = path.clone();
            }
            let Some(app) = app_of(apps, &state.windows[wi]) else {
                return (false, "No application".into());
            };
            let screen = &app.spec.screens[&state.windows[wi].screen];
            let spec = screen.controls[*list].get_ref();
            let effects = if double && button == "left" {
                // Double click on a folder of a Dir list enters it.
                if let (Some(p), Some(crate::env::spec::ItemSource::Dir { .. })) =
                    (path, &spec.items)
                {
                    if state.vfs.is_dir(p) {
                        let w = &mut state.windows[wi];
                        w.fields.insert("cwd".into(), p.clone());
                        w.selected = None;
                        w.selected_path = None;
                        w.scroll.insert(spec.text.clone(), 0);
                        return (true, format!("Opened folder {p}"));
                    }
                }
                spec.double.clone()
            } else if button == "left" {
                spec.click.clone()
            } else {
                Vec::new()
            };
            run(state, apps, wi, &effects, &format!("Selected '{key}'"))
        }
    }
}

fn close_active(state: &mut DesktopState) {
    if let Some(i) = state.active {
        if i < state.windows.len() {
            let w = state.windows.remove(i);
            if w.app == "Media Player" {
                state.playing = None;
            }
        }
        state.active = if state.windows.is_empty() {
            None
        } else {
            Some(state.windows.len() - 1)
        };
    }
}

/// A wheel turn over a control (its List, Document, or the desktop).
pub fn scroll(state: &mut DesktopState, live: &Live, c: &LiveControl, dist: i32) -> (bool, String) {
    let Some(wi) = state.active else {
        let rows = 26usize.div_ceil(5);
        let cur = state.desktop_scroll as i32;
        state.desktop_scroll = (cur + dist.signum()).clamp(0, rows as i32 - 1) as usize;
        return (true, "Scrolled the desktop".into());
    };
    // A ListItem scrolls its List.
    let (name, info) = match c.info.control_type.as_str() {
        "ListItem" => {
            let parent = &c.info.parent_control_text;
            match live
                .controls
                .iter()
                .find(|o| &o.name == parent && o.info.control_type == "List")
            {
                Some(l) => (l.name.clone(), l.clone()),
                None => return (false, "Nothing to scroll here".into()),
            }
        }
        "List" | "Document" => (c.name.clone(), c.clone()),
        _ => return (false, format!("'{}' cannot be scrolled", c.name)),
    };
    let scene = live
        .scene
        .controls
        .iter()
        .find(|s| s.label == info.info.label)
        .and_then(|s| s.scroll);
    let Some((first, total, rows)) = scene else {
        return (false, "Nothing to scroll here".into());
    };
    let max_first = total.saturating_sub(rows);
    let step = dist * 3;
    let new = (first as i64 + step as i64).clamp(0, max_first as i64) as usize;
    state.windows[wi].scroll.insert(name.clone(), new);
    if new == first {
        (true, format!("'{name}' cannot scroll further"))
    } else {
        (true, format!("Scrolled '{name}' to row {}", new + 1))
    }
}

/// Keyboard input aimed at a control (or the focused one, or the window).
pub fn keyboard(
    state: &mut DesktopState,
    apps: &[LoadedApp],
    c: Option<&LiveControl>,
    tokens: &[KeyToken],
) -> (bool, String) {
    state.counter += 1;
    let Some(wi) = state.active else {
        return (false, "No window has the keyboard focus".into());
    };
    if state.windows[wi].dialog.is_some() {
        let closes = tokens
            .iter()
            .any(|t| matches!(t, KeyToken::Combo(k) if k == "{enter}" || k == "{esc}"));
        if closes {
            state.windows[wi].dialog = None;
            return (true, "Closed the message".into());
        }
        return (false, "A message box is open: press OK first".into());
    }
    let spec_index = c.and_then(|c| match c.target {
        Target::Spec { index } => Some(index),
        _ => None,
    });
    let Some(app) = app_of(apps, &state.windows[wi]) else {
        return (false, "No application".into());
    };
    let screen_id = state.windows[wi].screen.clone();
    let screen = &app.spec.screens[&screen_id];
    let spec = spec_index.map(|i| screen.controls[i].get_ref().clone());
    let mut messages: Vec<String> = Vec::new();
    let mut ok = true;
    let mut text = String::new();
    let mut first_text = true;
    let flush_text =
        |state: &mut DesktopState, text: &mut String, first: &mut bool| -> Result<String, String> {
            if text.is_empty() {
                return Ok(String::new());
            }
            let t = std::mem::take(text);
            let w = &mut state.windows[wi];
            match spec.as_ref().map(|s| s.control_type) {
                Some(ControlType::Edit) | Some(ControlType::ComboBox) => {
                    let s = spec.as_ref().map(|s| s.field_name()).unwrap_or_default();
                    let v = w.fields.entry(s.clone()).or_default();
                    if *first {
                        v.clear();
                    }
                    v.push_str(&t);
                    *first = false;
                    w.focus = spec.as_ref().map(|s| s.text.clone());
                    Ok(format!("Typed '{t}'"))
                }
                Some(ControlType::Document) => match w.doc.as_mut() {
                    Some(d) => {
                        d.content.push_str(&t);
                        d.modified = true;
                        Ok(format!("Typed '{t}' into the document"))
                    }
                    None => Err("No document is open to type into".into()),
                },
                Some(other) => Err(format!("Cannot type into a {}", other.as_str())),
                None => Err("No control has the keyboard focus".into()),
            }
        };
    for t in tokens {
        match t {
            KeyToken::Char(ch) => text.push(*ch),
            KeyToken::Combo(k) => {
                match flush_text(state, &mut text, &mut first_text) {
                    Ok(m) if !m.is_empty() => messages.push(m),
                    Ok(_) => {}
                    Err(e) => {
                        ok = false;
                        messages.push(e);
                    }
                }
                let (kok, m) = key(state, apps, wi, spec.as_ref(), k);
                ok &= kok;
                messages.push(m);
                if state.active != Some(wi)
                    || state.windows.get(wi).is_none_or(|w| w.dialog.is_some())
                {
                    break;
                }
            }
        }
    }
    if state.active == Some(wi) {
        match flush_text(state, &mut text, &mut first_text) {
            Ok(m) if !m.is_empty() => messages.push(m),
            Ok(_) => {}
            Err(e) => {
                ok = false;
                messages.push(e);
            }
        }
    }
    (ok, messages.join("; "))
}

fn key(
    state: &mut DesktopState,
    apps: &[LoadedApp],
    wi: usize,
    spec: Option<&crate::env::spec::ControlSpec>,
    k: &str,
) -> (bool, String) {
    let w = &mut state.windows[wi];
    match (k, spec.map(|s| s.control_type)) {
        ("{backspace}", Some(ControlType::Edit)) => {
            if let Some(s) = spec {
                w.fields.entry(s.field_name()).or_default().pop();
            }
            return (true, "Deleted a character".into());
        }
        ("{enter}", Some(ControlType::Edit)) => {
            if let Some(s) = spec {
                if !s.enter.is_empty() {
                    let effects = s.enter.clone();
                    return run(state, apps, wi, &effects, "Pressed Enter");
                }
            }
        }
        ("{enter}", Some(ControlType::Document)) => {
            if let Some(d) = w.doc.as_mut() {
                d.content.push('\n');
                d.modified = true;
                return (true, "New line".into());
            }
        }
        ("{esc}", _) if !w.history.is_empty() => {
            let prev = w.history.pop().unwrap_or_default();
            w.screen = prev;
            return (true, "Went back".into());
        }
        _ => {}
    }
    let Some(app) = app_of(apps, &state.windows[wi]) else {
        return (false, "No application".into());
    };
    let screen = &app.spec.screens[&state.windows[wi].screen];
    let effects = screen.keys.get(k).or_else(|| app.spec.keys.get(k)).cloned();
    match effects {
        Some(e) => run(state, apps, wi, &e, &format!("Pressed {k}")),
        None => (true, format!("Pressed {k}; nothing happens")),
    }
}

/// Runs effects in window `wi`; the first failure opens an error dialog.
fn run(
    state: &mut DesktopState,
    apps: &[LoadedApp],
    wi: usize,
    effects: &[Effect],
    what: &str,
) -> (bool, String) {
    let mut messages = vec![what.to_string()];
    for e in effects {
        match apply(state, apps, wi, &e.op) {
            Ok(Some(m)) => messages.push(m),
            Ok(None) => {}
            Err(msg) => {
                if let Some(w) = state.windows.get_mut(wi) {
                    w.dialog = Some(Dialog {
                        title: "Error".into(),
                        message: msg.clone(),
                    });
                }
                messages.push(format!("Error: {msg}"));
                return (true, messages.join("; "));
            }
        }
        if state.windows.get(wi).is_none() {
            break;
        }
    }
    (true, messages.join("; "))
}

fn path_of(state: &DesktopState, wi: usize, template: &str) -> Result<String, String> {
    let ctx = context(state, wi);
    let raw = fill(template, &ctx);
    if raw.trim().is_empty() {
        return Err("No file name was given".into());
    }
    let cwd = ctx.get("cwd").cloned().unwrap_or_else(|| HOME.into());
    normalize(&raw, &cwd).map_err(|e| e.to_string())
}

fn with_ext(path: String, kinds: &[String]) -> Result<String, String> {
    let ext = vfs::extension(&path);
    if ext.is_empty() {
        return Ok(match kinds.first() {
            Some(k) => format!("{path}.{k}"),
            None => path,
        });
    }
    if kinds.is_empty() || kinds.contains(&ext) {
        Ok(path)
    } else {
        Err(format!(
            ".{ext} is not a supported format here (use {})",
            kinds.join(", ")
        ))
    }
}

fn doc_mut(state: &mut DesktopState, wi: usize) -> Result<&mut Document, String> {
    state.windows[wi]
        .doc
        .as_mut()
        .ok_or_else(|| "No document is open".to_string())
}

/// Applies one effect; `Ok(Some(msg))` reports what happened. A successful
/// effect whose path used `{n}` advances the sequence.
fn apply(
    state: &mut DesktopState,
    apps: &[LoadedApp],
    wi: usize,
    op: &Op,
) -> Result<Option<String>, String> {
    let numbered = match op {
        Op::Capture { path } | Op::Record { path } | Op::CreateFile { path, .. }
            if path.contains("{n}") =>
        {
            Some(path.as_str())
        }
        _ => None,
    };
    if let Some(template) = numbered {
        state.seq = first_free_number(state, wi, template) - 1;
    }
    let out = apply_op(state, apps, wi, op)?;
    if numbered.is_some() {
        state.seq += 1;
    }
    Ok(out)
}

/// The number a numbered file name (`Screenshot-{n}.png`) takes: the first one
/// whose file does not exist yet, as screenshot tools and file managers number new
/// files. The name then depends only on the folder's content, not on how many
/// numbered files other applications made earlier in the session, so a recorded
/// trajectory makes the same file when it is replayed after other work.
fn first_free_number(state: &mut DesktopState, wi: usize, template: &str) -> u64 {
    let mut n = 1;
    loop {
        state.seq = n - 1;
        match path_of(state, wi, template) {
            Ok(p) if state.vfs.get(&p).is_some() => n += 1,
            _ => return n,
        }
    }
}

fn apply_op(
    state: &mut DesktopState,
    apps: &[LoadedApp],
    wi: usize,
    op: &Op,
) -> Result<Option<String>, String> {
    let fill_in = |state: &DesktopState, t: &str| fill(t, &context(state, wi));
    match op {
        Op::Goto { screen } => {
            let w = &mut state.windows[wi];
            let from = std::mem::replace(&mut w.screen, screen.clone());
            w.history.push(from);
            Ok(None)
        }
        Op::Back => {
            let w = &mut state.windows[wi];
            if let Some(prev) = w.history.pop() {
                w.screen = prev;
            }
            Ok(None)
        }
        Op::Launch { app } => {
            let a = apps
                .iter()
                .find(|a| &a.spec.name == app)
                .ok_or_else(|| format!("Application '{app}' is not installed"))?;
            launch(state, a);
            Ok(Some(format!("Opened {app}")))
        }
        Op::Close => {
            state.active = Some(wi);
            close_active(state);
            Ok(Some("Closed the window".into()))
        }
        Op::SetField { field, value } => {
            let mut v = fill_in(state, value);
            if field == "cwd" {
                // The current folder is always a normalised, existing folder.
                let cwd = state.windows[wi]
                    .fields
                    .get("cwd")
                    .cloned()
                    .unwrap_or_else(|| HOME.into());
                v = normalize(&v, &cwd).map_err(|e| e.to_string())?;
                if !state.vfs.is_dir(&v) {
                    return Err(format!("Folder not found: {v}"));
                }
                state.windows[wi].scroll.clear();
                state.windows[wi].selected = None;
                state.windows[wi].selected_path = None;
            }
            state.windows[wi].fields.insert(field.clone(), v);
            Ok(None)
        }
        Op::AppendField { field, value, sep } => {
            let v = fill_in(state, value);
            let f = state.windows[wi].fields.entry(field.clone()).or_default();
            if !f.is_empty() {
                f.push_str(sep);
            }
            f.push_str(&v);
            Ok(None)
        }
        Op::Evaluate { field, into } => {
            let expr = state.windows[wi]
                .fields
                .get(field)
                .cloned()
                .unwrap_or_default();
            let result = match arith(&expr) {
                Some(v) => format_number(v),
                None => return Err(format!("Cannot calculate '{expr}'")),
            };
            let w = &mut state.windows[wi];
            w.fields.insert(into.clone(), result.clone());
            w.fields
                .insert("history".into(), format!("{expr} = {result}"));
            Ok(Some(format!("= {result}")))
        }
        Op::Require { when, message } => {
            if cond(state, wi, when) {
                Ok(None)
            } else {
                Err(fill_in(state, message))
            }
        }
        Op::OpenFile { path, kinds } => {
            let p = path_of(state, wi, path)?;
            let text = match state.vfs.read(&p) {
                Ok(t) => t.to_string(),
                Err(vfs::VfsError::IsDir(_)) => {
                    return Err(format!("'{p}' is a folder, not a file"));
                }
                Err(_) => return Err(format!("File not found: {p}")),
            };
            let ext = vfs::extension(&p);
            if !kinds.contains(&ext) {
                return Err(format!(
                    "Cannot open '{}': {} opens {} files",
                    vfs::base_name(&p),
                    state.windows[wi].app,
                    kinds.join(", ")
                ));
            }
            let w = &mut state.windows[wi];
            w.doc = Some(Document::from_file(&p, &ext, &text));
            w.fields.insert("cwd".into(), vfs::parent(&p).to_string());
            w.scroll.clear();
            Ok(Some(format!("Opened {p}")))
        }
        Op::NewDocument { kind } => {
            state.windows[wi].doc = Some(Document {
                path: None,
                kind: kind.clone(),
                content: String::new(),
                props: BTreeMap::new(),
                modified: false,
            });
            Ok(Some(format!("New {kind} document")))
        }
        Op::Save => {
            let d = doc_mut(state, wi)?;
            let Some(p) = d.path.clone() else {
                return Err("This document has not been saved yet: use Save As".into());
            };
            let text = d.file_text();
            d.modified = false;
            state.vfs.write(&p, text).map_err(|e| e.to_string())?;
            state.written.push(p.clone());
            Ok(Some(format!("Saved {p}")))
        }
        Op::SaveAs { path, kinds } => {
            let p = with_ext(path_of(state, wi, path)?, kinds)?;
            let text = doc_mut(state, wi)?.file_text();
            state.vfs.write(&p, text).map_err(|e| e.to_string())?;
            state.written.push(p.clone());
            let d = doc_mut(state, wi)?;
            d.kind = vfs::extension(&p);
            d.path = Some(p.clone());
            d.modified = false;
            Ok(Some(format!("Saved {p}")))
        }
        Op::Export { path, kind } => {
            let p = with_ext(path_of(state, wi, path)?, std::slice::from_ref(kind))?;
            let d = doc_mut(state, wi)?;
            // The exported file holds what the document shows (its text and
            // formatting), as a real PDF or Word export does.
            let text = d.file_text();
            state.vfs.write(&p, text).map_err(|e| e.to_string())?;
            state.written.push(p.clone());
            Ok(Some(format!("Exported {p}")))
        }
        Op::Copy { what, .. } => {
            let w = &state.windows[wi];
            let clip = match what.as_str() {
                "selection" => Clipboard::Text(w.selected.clone().ok_or("Nothing is selected")?),
                "document" => {
                    Clipboard::Text(w.doc.as_ref().ok_or("No document is open")?.content.clone())
                }
                "table" => {
                    let d = w.doc.as_ref().ok_or("No document is open")?;
                    Clipboard::Table(d.content.clone())
                }
                "image" => {
                    let d = w.doc.as_ref().ok_or("No image is open")?;
                    if !matches!(d.kind.as_str(), "png" | "jpg" | "jpeg") {
                        return Err("The open document is not an image".into());
                    }
                    Clipboard::Image(d.file_text())
                }
                template => {
                    let t = fill_in(state, template);
                    if t.is_empty() {
                        return Err("Nothing to copy".into());
                    }
                    Clipboard::Text(t)
                }
            };
            state.clipboard = clip;
            Ok(Some("Copied to the clipboard".into()))
        }
        Op::Paste { into, .. } => {
            let clip = state.clipboard.clone();
            if clip == Clipboard::Empty {
                return Err("The clipboard is empty".into());
            }
            if into == "document" {
                let d = doc_mut(state, wi)?;
                let add = match &clip {
                    Clipboard::Image(desc) => image_mention(desc),
                    other => other.as_text().unwrap_or_default().to_string(),
                };
                if !d.content.is_empty() && !d.content.ends_with('\n') {
                    d.content.push('\n');
                }
                d.content.push_str(&add);
                d.modified = true;
            } else {
                let t = clip.as_text().unwrap_or_default().to_string();
                state.windows[wi].fields.insert(into.clone(), t);
            }
            Ok(Some("Pasted".into()))
        }
        Op::SetProp { prop, value } => {
            let v = fill_in(state, value);
            let d = doc_mut(state, wi)?;
            d.props.insert(prop.clone(), v.clone());
            d.modified = true;
            Ok(Some(format!("{prop} set to {v}")))
        }
        Op::AppendDoc { text, totals, .. } => {
            let mut t = fill_in(state, text);
            let d = doc_mut(state, wi)?;
            if *totals {
                t = totals_row(&d.content, &t);
            }
            if !d.content.is_empty() && !d.content.ends_with('\n') {
                d.content.push('\n');
            }
            d.content.push_str(&t);
            d.modified = true;
            Ok(None)
        }
        Op::InsertFile { path, kinds } => {
            let p = path_of(state, wi, path)?;
            let ext = vfs::extension(&p);
            if !kinds.contains(&ext) {
                return Err(format!(
                    "Cannot insert '{}': only {} files",
                    vfs::base_name(&p),
                    kinds.join(", ")
                ));
            }
            let text = match state.vfs.read(&p) {
                Ok(t) => t.to_string(),
                Err(_) => return Err(format!("File not found: {p}")),
            };
            let name = vfs::base_name(&p).to_string();
            let d = doc_mut(state, wi)?;
            if !d.content.is_empty() && !d.content.ends_with('\n') {
                d.content.push('\n');
            }
            if matches!(ext.as_str(), "png" | "jpg" | "jpeg") {
                d.content.push_str(&format!("[Picture: {name}]"));
            } else {
                d.content.push_str(text.trim_end());
            }
            d.modified = true;
            Ok(Some(format!("Inserted {name}")))
        }
        Op::CreateFile {
            path,
            content,
            each,
        } => {
            let p = path_of(state, wi, path)?;
            if state.vfs.get(&p).is_some() {
                return Err(format!("'{p}' already exists"));
            }
            let c = match each {
                Some(collection) => each_record(state, collection, content),
                None => fill_in(state, content),
            };
            state.vfs.write(&p, c).map_err(|e| e.to_string())?;
            state.written.push(p.clone());
            Ok(Some(format!("Created {p}")))
        }
        Op::CreateDir { path } => {
            let p = path_of(state, wi, path)?;
            state.vfs.mkdir(&p).map_err(|e| e.to_string())?;
            Ok(Some(format!("Created folder {p}")))
        }
        Op::Rename { from, to } => {
            let f = path_of(state, wi, from)?;
            let t_raw = fill_in(state, to);
            if t_raw.trim().is_empty() {
                return Err("No new name was given".into());
            }
            let t = if t_raw.contains('/') {
                path_of(state, wi, to)?
            } else {
                normalize(&t_raw, vfs::parent(&f)).map_err(|e| e.to_string())?
            };
            state.vfs.rename(&f, &t).map_err(|e| e.to_string())?;
            let w = &mut state.windows[wi];
            w.selected = Some(vfs::base_name(&t).to_string());
            w.selected_path = Some(t.clone());
            Ok(Some(format!("Renamed to {t}")))
        }
        Op::Move { from, to_dir } | Op::CopyFile { from, to_dir } => {
            let f = path_of(state, wi, from)?;
            let d = path_of(state, wi, to_dir)?;
            if !state.vfs.is_dir(&d) {
                return Err(format!("Folder not found: {d}"));
            }
            let t = vfs::Vfs::join(&d, vfs::base_name(&f));
            if matches!(op, Op::Move { .. }) {
                state.vfs.rename(&f, &t).map_err(|e| e.to_string())?;
                state.windows[wi].selected = None;
                state.windows[wi].selected_path = None;
                Ok(Some(format!("Moved to {t}")))
            } else {
                state.vfs.copy(&f, &t).map_err(|e| e.to_string())?;
                Ok(Some(format!("Copied to {t}")))
            }
        }
        Op::Delete { path } => {
            let p = path_of(state, wi, path)?;
            state.vfs.remove(&p).map_err(|e| e.to_string())?;
            let w = &mut state.windows[wi];
            w.selected = None;
            w.selected_path = None;
            Ok(Some(format!("Deleted {p}")))
        }
        Op::Compress { sources, path } => {
            let ctx = context(state, wi);
            let cwd = ctx.get("cwd").cloned().unwrap_or_else(|| HOME.into());
            let srcs: Vec<String> = fill(sources, &ctx)
                .split(';')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|s| normalize(s, &cwd).map_err(|e| e.to_string()))
                .collect::<Result<_, _>>()?;
            if srcs.is_empty() {
                return Err("Nothing was chosen to compress".into());
            }
            let p = with_ext(path_of(state, wi, path)?, &["zip".to_string()])?;
            let zip = state.vfs.pack(&srcs).map_err(|e| e.to_string())?;
            state.vfs.write(&p, zip).map_err(|e| e.to_string())?;
            state.written.push(p.clone());
            Ok(Some(format!("Created archive {p}")))
        }
        Op::Extract { path, dest } => {
            let p = path_of(state, wi, path)?;
            let zip = state.vfs.read(&p).map_err(|e| e.to_string())?.to_string();
            let d = path_of(state, wi, dest)?;
            let n = state.vfs.unpack(&zip, &d).map_err(|e| e.to_string())?;
            Ok(Some(format!("Extracted {n} entries to {d}")))
        }
        Op::Play { path } => {
            let p = path_of(state, wi, path)?;
            if !state.vfs.is_file(&p) {
                return Err(format!("File not found: {p}"));
            }
            if !MEDIA.contains(&vfs::extension(&p).as_str()) {
                return Err(format!("'{}' is not a media file", vfs::base_name(&p)));
            }
            state.playing = Some(p.clone());
            Ok(Some(format!("Playing {p}")))
        }
        Op::Stop => {
            state.playing = None;
            Ok(Some("Stopped".into()))
        }
        Op::AddRecord { collection, fields } => {
            let spec = collection_spec(collection)
                .ok_or_else(|| format!("unknown collection {collection}"))?;
            let ctx = context(state, wi);
            let r: Record = fields
                .iter()
                .map(|(k, v)| (k.clone(), fill(v, &ctx).trim().to_string()))
                .collect();
            if r.get(spec.key).is_none_or(|v| v.is_empty()) {
                return Err(format!("The {} is required", spec.key.replace('_', " ")));
            }
            let key = r[spec.key].clone();
            // A bookmark makes its page known to the browser; a feed subscription
            // does not (the reader fetches the feed, nothing is handed over).
            if spec.name == "bookmarks" {
                state.known_urls.insert(key.clone());
            }
            state
                .collections
                .entry(collection.clone())
                .or_default()
                .push(r);
            Ok(Some(format!(
                "Added '{key}' to {}",
                collection.replace('_', " ")
            )))
        }
        Op::DeleteRecord { collection, key } => {
            let spec = collection_spec(collection)
                .ok_or_else(|| format!("unknown collection {collection}"))?;
            let k = fill_in(state, key);
            let list = state.collections.entry(collection.clone()).or_default();
            let before = list.len();
            list.retain(|r| r.get(spec.key) != Some(&k));
            if list.len() == before {
                return Err(format!("'{k}' was not found"));
            }
            state.windows[wi].selected = None;
            Ok(Some(format!("Deleted '{k}'")))
        }
        Op::SetSetting { key, value } => {
            let v = fill_in(state, value);
            state.settings.insert(key.clone(), v.clone());
            state.changed_settings.insert(key.clone());
            Ok(Some(format!("{} set to {v}", key.replace('_', " "))))
        }
        Op::Capture { path } => {
            let subject = state
                .windows
                .iter()
                .enumerate()
                .rev()
                .find(|(i, _)| *i != wi)
                .map(|(_, w)| w.app.clone())
                .unwrap_or_else(|| "Desktop".into());
            let desc = format!("Screenshot of {subject}");
            if path.is_empty() {
                state.clipboard = Clipboard::Image(desc);
                return Ok(Some("Screenshot copied to the clipboard".into()));
            }
            let p = with_ext(path_of(state, wi, path)?, &["png".into(), "jpg".into()])?;
            state.vfs.write(&p, desc).map_err(|e| e.to_string())?;
            state.written.push(p.clone());
            state.windows[wi]
                .fields
                .insert("last_capture".into(), p.clone());
            Ok(Some(format!("Saved screenshot {p}")))
        }
        Op::Record { path } => {
            let p = with_ext(path_of(state, wi, path)?, &["mp4".into(), "mkv".into()])?;
            let subject = state
                .windows
                .iter()
                .rev()
                .find(|w| w.app != state.windows[wi].app)
                .map(|w| w.app.clone())
                .unwrap_or_else(|| "Desktop".into());
            state
                .vfs
                .write(&p, format!("Screen recording of {subject}"))
                .map_err(|e| e.to_string())?;
            state.windows[wi]
                .fields
                .insert("last_recording".into(), p.clone());
            Ok(Some(format!("Saved recording {p}")))
        }
        Op::Visit { url } => {
            let u = fill_in(state, url).trim().to_string();
            let found = canonical_url(&state.known_urls, &u)
                .ok_or_else(|| format!("This site can't be reached: {u}"))?;
            let text = page_text(state, &found);
            let w = &mut state.windows[wi];
            w.fields.insert("url".into(), found.clone());
            w.fields.insert("page".into(), text);
            state
                .collections
                .entry("history".into())
                .or_default()
                .push([("url".to_string(), found.clone())].into_iter().collect());
            Ok(Some(format!("Loaded {found}")))
        }
        Op::Download { path } => {
            let url = state.windows[wi]
                .fields
                .get("url")
                .cloned()
                .unwrap_or_default();
            if url.is_empty() {
                return Err("No page is loaded".into());
            }
            let p = with_ext(path_of(state, wi, path)?, &["html".into()])?;
            let html = format!(
                "<html><head><title>{url}</title></head><body>{}</body></html>",
                page_text(state, &url)
            );
            state.vfs.write(&p, html).map_err(|e| e.to_string())?;
            state.written.push(p.clone());
            Ok(Some(format!("Saved page as {p}")))
        }
        Op::Run { command } => {
            let line = fill_in(state, command);
            let out = shell(state, wi, &line);
            let w = &mut state.windows[wi];
            let mut log = w.fields.get("output").cloned().unwrap_or_default();
            if !log.is_empty() {
                log.push('\n');
            }
            log.push_str(&format!("$ {line}"));
            if !out.is_empty() {
                log.push('\n');
                log.push_str(&out);
            }
            let tail: Vec<&str> = log.lines().rev().take(8).collect();
            let log = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
            w.fields.insert("output".into(), log);
            // What the last command printed, without the prompt line: what a
            // person copies (a reader found '$ cat ...' pasted into a deck).
            w.fields.insert("last_output".into(), out);
            Ok(None)
        }
        Op::Message { text } => Ok(Some(fill_in(state, text))),
        Op::OpenWith { app, path } => {
            let p = path_of(state, wi, path)?;
            if !state.vfs.is_file(&p) {
                return Err(format!("File not found: {p}"));
            }
            let ext = vfs::extension(&p);
            let target = if app == "default" {
                apps.iter().find(|a| a.spec.defaults.contains(&ext))
            } else {
                apps.iter().find(|a| &a.spec.name == app)
            }
            .ok_or_else(|| format!("No application opens .{ext} files"))?;
            if !target.spec.opens.contains(&ext) {
                return Err(format!("{} cannot open .{ext} files", target.spec.name));
            }
            launch(state, target);
            let ti = state.active.unwrap_or(wi);
            if MEDIA.contains(&ext.as_str()) && target.spec.name == "Media Player" {
                state.playing = Some(p.clone());
                return Ok(Some(format!("Playing {p}")));
            }
            let text = state.vfs.read(&p).map_err(|e| e.to_string())?.to_string();
            let w = &mut state.windows[ti];
            w.doc = Some(Document::from_file(&p, &ext, &text));
            w.fields.insert("cwd".into(), vfs::parent(&p).to_string());
            Ok(Some(format!("Opened {p} in {}", target.spec.name)))
        }
        Op::SetRecordField {
            collection,
            key,
            field,
            value,
        } => {
            let spec = collection_spec(collection)
                .ok_or_else(|| format!("unknown collection {collection}"))?;
            let k = fill_in(state, key);
            let v = fill_in(state, value);
            let rec = state
                .collections
                .get_mut(collection)
                .and_then(|rs| rs.iter_mut().find(|r| r.get(spec.key) == Some(&k)))
                .ok_or_else(|| format!("'{k}' was not found"))?;
            rec.insert(field.clone(), v.clone());
            Ok(Some(format!("'{k}': {field} set to {v}")))
        }
    }
}

fn canonical_url(known: &std::collections::BTreeSet<String>, u: &str) -> Option<String> {
    let strip = |s: &str| {
        s.trim_start_matches("https://")
            .trim_start_matches("http://")
            .trim_start_matches("www.")
            .trim_end_matches('/')
            .to_ascii_lowercase()
    };
    let want = strip(u);
    if want.is_empty() {
        return None;
    }
    known.iter().find(|k| strip(k) == want).cloned()
}

/// A row of column totals for the CSV table `content`: `label` in the first
/// cell, then per column the sum of its values below the header when they are
/// all numbers (with two decimals when one of them has a point), else empty.
fn totals_row(content: &str, label: &str) -> String {
    let rows: Vec<Vec<&str>> = content
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(',').map(str::trim).collect())
        .collect();
    let width = content.lines().next().map_or(1, |h| h.split(',').count());
    let mut cells = vec![label.to_string()];
    for c in 1..width {
        let values: Vec<&str> = rows
            .iter()
            .map(|r| r.get(c).copied().unwrap_or(""))
            .collect();
        let numbers: Option<Vec<f64>> = values.iter().map(|v| v.parse::<f64>().ok()).collect();
        cells.push(match numbers {
            Some(n) if !n.is_empty() => {
                let sum: f64 = n.iter().sum();
                if values.iter().any(|v| v.contains('.')) {
                    format!("{sum:.2}")
                } else {
                    format!("{sum:.0}")
                }
            }
            _ => String::new(),
        });
    }
    cells.join(",")
}

/// What the page at `url` shows: its text from `desktop.toml`'s `[pages]`
/// (the `pages` collection), else a generic home page of its site.
pub(crate) fn page_text(state: &DesktopState, url: &str) -> String {
    let listed = state
        .collections
        .get(super::PAGES)
        .into_iter()
        .flatten()
        .find(|r| r.get("url").map(String::as_str) == Some(url))
        .and_then(|r| r.get("text"));
    if let Some(text) = listed {
        return text.clone();
    }
    let host = url
        .trim_start_matches("https://")
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap_or(url);
    format!("Welcome to {host}\nThis page at {url} has articles, links and a contact form.")
}

/// A tiny shell for the Terminal app. Returns the command's output.
fn shell(state: &mut DesktopState, wi: usize, line: &str) -> String {
    let cwd = state.windows[wi]
        .fields
        .get("cwd")
        .cloned()
        .unwrap_or_else(|| HOME.into());
    let (cmd, redirect) = match line.split_once('>') {
        Some((c, f)) => (c.trim(), Some(f.trim())),
        None => (line.trim(), None),
    };
    let args: Vec<&str> = cmd.split_whitespace().collect();
    let norm = |p: &str| normalize(p, &cwd).map_err(|e| e.to_string());
    let res: Result<String, String> = (|| match args.as_slice() {
        [] => Ok(String::new()),
        ["pwd"] => Ok(cwd.clone()),
        ["ls"] => Ok(state.vfs.list(&cwd).map_err(|e| e.to_string())?.join("  ")),
        ["ls", p] => Ok(state
            .vfs
            .list(&norm(p)?)
            .map_err(|e| e.to_string())?
            .join("  ")),
        ["cd"] => {
            state.windows[wi].fields.insert("cwd".into(), HOME.into());
            Ok(String::new())
        }
        ["cd", p] => {
            let d = norm(p)?;
            if !state.vfs.is_dir(&d) {
                return Err(format!("cd: {p}: No such directory"));
            }
            state.windows[wi].fields.insert("cwd".into(), d);
            Ok(String::new())
        }
        ["mkdir", ps @ ..] if !ps.is_empty() => {
            for p in ps.iter().filter(|p| **p != "-p") {
                let d = norm(p)?;
                if ps.contains(&"-p") {
                    state.vfs.force_dir(&d);
                } else {
                    state.vfs.mkdir(&d).map_err(|e| format!("mkdir: {e}"))?;
                }
            }
            Ok(String::new())
        }
        ["touch", ps @ ..] if !ps.is_empty() => {
            for p in ps {
                let f = norm(p)?;
                if !state.vfs.is_file(&f) {
                    state
                        .vfs
                        .write(&f, String::new())
                        .map_err(|e| format!("touch: {e}"))?;
                }
            }
            Ok(String::new())
        }
        ["rm", ps @ ..] if !ps.is_empty() => {
            for p in ps.iter().filter(|p| !p.starts_with('-')) {
                state
                    .vfs
                    .remove(&norm(p)?)
                    .map_err(|e| format!("rm: {e}"))?;
            }
            Ok(String::new())
        }
        ["mv", a, b] | ["cp", a, b] => {
            let from = norm(a)?;
            let mut to = norm(b)?;
            if state.vfs.is_dir(&to) {
                to = vfs::Vfs::join(&to, vfs::base_name(&from));
            }
            if args[0] == "mv" {
                state
                    .vfs
                    .rename(&from, &to)
                    .map_err(|e| format!("mv: {e}"))?;
            } else {
                state.vfs.copy(&from, &to).map_err(|e| format!("cp: {e}"))?;
            }
            Ok(String::new())
        }
        ["cat", p] => Ok(state
            .vfs
            .read(&norm(p)?)
            .map_err(|e| format!("cat: {e}"))?
            .to_string()),
        ["echo", rest @ ..] => Ok(rest.join(" ").trim_matches('"').to_string()),
        ["python" | "python3", p] => {
            let f = norm(p)?;
            let src = state.vfs.read(&f).map_err(|e| format!("python: {e}"))?;
            let printed: Vec<String> = src
                .lines()
                .filter_map(|l| {
                    l.trim()
                        .strip_prefix("print(")
                        .and_then(|r| r.strip_suffix(')'))
                })
                .map(|s| s.trim_matches(|c| c == '"' || c == '\'').to_string())
                .collect();
            Ok(printed.join("\n"))
        }
        ["zip", out, srcs @ ..] if !srcs.is_empty() => {
            let o = norm(out)?;
            let s: Vec<String> = srcs.iter().map(|p| norm(p)).collect::<Result<_, _>>()?;
            let z = state.vfs.pack(&s).map_err(|e| format!("zip: {e}"))?;
            state.vfs.write(&o, z).map_err(|e| format!("zip: {e}"))?;
            state.written.push(o.clone());
            Ok(format!("created {o}"))
        }
        ["unzip", z] | ["unzip", z, "-d", _] => {
            let zp = norm(z)?;
            let dest = if args.len() == 4 {
                norm(args[3])?
            } else {
                cwd.clone()
            };
            let text = state
                .vfs
                .read(&zp)
                .map_err(|e| format!("unzip: {e}"))?
                .to_string();
            let n = state
                .vfs
                .unpack(&text, &dest)
                .map_err(|e| format!("unzip: {e}"))?;
            Ok(format!("extracted {n} entries"))
        }
        [other, ..] => Err(format!("{other}: command not found")),
    })();
    match (res, redirect) {
        (Ok(out), Some(f)) => {
            match norm(f).and_then(|p| state.vfs.write(&p, out).map_err(|e| e.to_string())) {
                Ok(()) => String::new(),
                Err(e) => e,
            }
        }
        (Ok(out), None) => out,
        (Err(e), _) => e,
    }
}

/// Evaluates `+ - * / ( )` arithmetic over decimals (also `×`, `÷`).
pub fn arith(expr: &str) -> Option<f64> {
    let s: Vec<char> = expr
        .chars()
        .filter(|c| !c.is_whitespace())
        .map(|c| match c {
            '×' | 'x' => '*',
            '÷' => '/',
            other => other,
        })
        .collect();
    let mut i = 0;
    let v = sum(&s, &mut i)?;
    (i == s.len() && v.is_finite()).then_some(v)
}

fn sum(s: &[char], i: &mut usize) -> Option<f64> {
    let mut v = product(s, i)?;
    while *i < s.len() && (s[*i] == '+' || s[*i] == '-') {
        let op = s[*i];
        *i += 1;
        let r = product(s, i)?;
        v = if op == '+' { v + r } else { v - r };
    }
    Some(v)
}

fn product(s: &[char], i: &mut usize) -> Option<f64> {
    let mut v = atom(s, i)?;
    while *i < s.len() && (s[*i] == '*' || s[*i] == '/') {
        let op = s[*i];
        *i += 1;
        let r = atom(s, i)?;
        v = if op == '*' { v * r } else { v / r };
    }
    Some(v)
}

fn atom(s: &[char], i: &mut usize) -> Option<f64> {
    if *i >= s.len() {
        return None;
    }
    if s[*i] == '-' {
        *i += 1;
        return atom(s, i).map(|v| -v);
    }
    if s[*i] == '(' {
        *i += 1;
        let v = sum(s, i)?;
        if s.get(*i) != Some(&')') {
            return None;
        }
        *i += 1;
        return Some(v);
    }
    let start = *i;
    while *i < s.len() && (s[*i].is_ascii_digit() || s[*i] == '.') {
        *i += 1;
    }
    s[start..*i].iter().collect::<String>().parse().ok()
}

fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        let s = format!("{v:.6}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

/// How a pasted picture reads in a document: its description and the edits it
/// was copied with (`[image: A beach (rotation 90, filter grayscale)]`), so a
/// picture edited before the copy arrives edited.
fn image_mention(desc: &str) -> String {
    let mut lines = desc.lines();
    let what = lines.next().unwrap_or("");
    let edits: Vec<String> = lines
        .filter_map(|l| l.strip_prefix('@')?.split_once(": "))
        .map(|(k, v)| format!("{} {v}", k.replace('_', " ")))
        .collect();
    if edits.is_empty() {
        format!("[image: {what}]")
    } else {
        format!("[image: {what} ({})]", edits.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arithmetic() {
        assert_eq!(arith("2+3*4"), Some(14.0));
        assert_eq!(arith("(2+3)*4"), Some(20.0));
        assert_eq!(arith("-2.5*2"), Some(-5.0));
        assert_eq!(arith("1/0"), None);
        assert_eq!(arith("2+"), None);
        assert_eq!(format_number(0.1 + 0.2), "0.3");
    }

    #[test]
    fn a_total_row_sums_the_numeric_columns() {
        let table = "quarter,region,revenue\nQ1,North,120500\nQ2,South,134200\n";
        assert_eq!(totals_row(table, "Total"), "Total,,254700");
        let bills = "category,item,amount\nBills,Water,31.50\nFood,Shop,61.2\n";
        assert_eq!(totals_row(bills, "Total"), "Total,,92.70");
    }

    #[test]
    fn a_pasted_picture_shows_its_edits() {
        assert_eq!(image_mention("A beach"), "[image: A beach]");
        assert_eq!(
            image_mention("A beach\nat noon\n@rotation: 90\n@filter: grayscale"),
            "[image: A beach (rotation 90, filter grayscale)]"
        );
    }
}
