//! Layout: turns the desktop state into the visible controls (with labels, parents
//! and rects) and the [`Scene`] the screenshot is drawn from. One function decides
//! both, so boxes in observations and pixels in screenshots always agree.

use super::effects::{cond, context, fill};
use super::vfs;
use super::{DesktopState, LoadedApp};
use crate::env::render::{Scene, SceneControl, SCREEN_HEIGHT, SCREEN_WIDTH};
use crate::env::spec::{ControlType, ItemSource};
use crate::env::{ControlInfo, Observation};
use crate::model::Action;

pub const TASKBAR_H: i32 = 40;
pub const TITLE_H: i32 = 32;
const X0: i32 = 12;
const X1: i32 = SCREEN_WIDTH as i32 - 12;
const CONTENT_BOTTOM: i32 = SCREEN_HEIGHT as i32 - TASKBAR_H - 28;
const ROW_H: i32 = 26;
const LINE_H: i32 = 20;

/// What a visible control does when acted on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// Control `index` of the active window's current screen.
    Spec {
        index: usize,
    },
    /// An item of the List that is control `list` of the screen.
    Item {
        list: usize,
        key: String,
        path: Option<String>,
    },
    /// A launcher icon on the desktop (app index).
    Launch(usize),
    /// A taskbar button (window index).
    Focus(usize),
    ShowDesktop,
    Minimize,
    CloseWindow,
    DialogOk,
    /// Shown, does nothing.
    Inert,
}

/// A visible control with what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveControl {
    pub info: ControlInfo,
    /// Stable name (spec text, item key, app name): what events record.
    pub name: String,
    pub target: Target,
}

/// The layout of one state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Live {
    pub scene: Scene,
    pub controls: Vec<LiveControl>,
    pub window_titles: Vec<String>,
}

impl Live {
    /// The observation of this layout.
    pub fn observation(&self, feedback: Option<String>) -> Observation {
        Observation {
            window_title: self.scene.title.clone(),
            controls: self.controls.iter().map(|c| c.info.clone()).collect(),
            feedback,
            scene: self.scene.clone(),
            captured: None,
        }
    }

    /// The control an action aims at: by label (if its text agrees with a given
    /// control_text), else by exact control text or name, else ignoring case.
    pub fn resolve(&self, action: &Action) -> Option<usize> {
        let text = action.control_text.trim();
        let agrees =
            |c: &LiveControl| text.is_empty() || c.info.control_text == text || c.name == text;
        if let Some(label) = &action.control_label {
            if let Some(i) = self
                .controls
                .iter()
                .position(|c| c.info.label == label.trim() && agrees(c))
            {
                return Some(i);
            }
        }
        if text.is_empty() {
            return None;
        }
        self.controls
            .iter()
            .position(|c| c.info.control_text == text || c.name == text)
            .or_else(|| {
                let lower = text.to_lowercase();
                self.controls.iter().position(|c| {
                    c.info.control_text.to_lowercase() == lower || c.name.to_lowercase() == lower
                })
            })
    }

    /// The first List or Document control (where a bare wheel goes).
    pub fn first_scrollable(&self) -> Option<usize> {
        self.controls
            .iter()
            .position(|c| matches!(c.info.control_type.as_str(), "List" | "Document"))
    }

    /// The control holding the keyboard focus in the active window.
    pub fn focused(&self, state: &DesktopState) -> Option<usize> {
        let w = state.windows.get(state.active?)?;
        let focus = w.focus.as_ref()?;
        self.controls.iter().position(|c| &c.name == focus)
    }
}

struct Builder {
    controls: Vec<LiveControl>,
    scene: Vec<SceneControl>,
}

impl Builder {
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        name: &str,
        text: &str,
        ty: &str,
        parent: (&str, &str),
        rect: [i32; 4],
        target: Target,
        extra: impl FnOnce(&mut SceneControl),
    ) {
        let rect = clamp(rect);
        let label = (self.controls.len() + 1).to_string();
        let info = ControlInfo {
            label: label.clone(),
            control_text: text.to_string(),
            control_type: ty.to_string(),
            parent_control_text: parent.0.to_string(),
            parent_control_type: parent.1.to_string(),
            rect,
            focused: false,
        };
        let mut sc = SceneControl {
            label,
            text: text.to_string(),
            control_type: ty.to_string(),
            rect,
            caption: None,
            lines: Vec::new(),
            selected: false,
            checked: false,
            scroll: None,
        };
        extra(&mut sc);
        self.scene.push(sc);
        self.controls.push(LiveControl {
            info,
            name: name.to_string(),
            target,
        });
    }
}

fn clamp(r: [i32; 4]) -> [i32; 4] {
    let w = SCREEN_WIDTH as i32;
    let h = SCREEN_HEIGHT as i32;
    let l = r[0].clamp(0, w - 1);
    let t = r[1].clamp(0, h - 1);
    [l, t, r[2].clamp(l + 1, w), r[3].clamp(t + 1, h)]
}

/// Width of an inline control showing `text`.
fn inline_width(text: &str) -> i32 {
    (text.chars().count() as i32 * 8 + 24).clamp(56, 320)
}

/// Builds the layout of `state`.
pub fn build(state: &DesktopState, apps: &[LoadedApp]) -> Live {
    let mut b = Builder {
        controls: Vec::new(),
        scene: Vec::new(),
    };
    let mut title = "Desktop".to_string();
    let mut dialog = None;
    let mut status = state.feedback.clone();
    let mut app_name = None;
    match state
        .active
        .and_then(|i| state.windows.get(i).map(|w| (i, w)))
    {
        None => {
            let cols = 5;
            for (i, app) in apps.iter().enumerate().skip(state.desktop_scroll * cols) {
                let k = (i - state.desktop_scroll * cols) as i32;
                let (col, row) = (k % cols as i32, k / cols as i32);
                let top = 56 + row * 52;
                if top + 44 > CONTENT_BOTTOM {
                    break;
                }
                let left = 40 + col * 240;
                b.push(
                    &app.spec.name,
                    &app.spec.name,
                    "ListItem",
                    ("Desktop", "List"),
                    [left, top, left + 220, top + 44],
                    Target::Launch(i),
                    |_| {},
                );
            }
        }
        Some((wi, w)) => {
            let app = apps.iter().find(|a| a.spec.name == w.app);
            app_name = Some(w.app.clone());
            let ctx = context(state, wi);
            if let Some(app) = app {
                let screen = app.spec.screens.get(&w.screen);
                title = match screen.and_then(|s| s.title.as_ref()) {
                    Some(t) => fill(t, &ctx),
                    None => match &w.doc {
                        Some(d) => format!("{} - {}", d.name(), app.spec.name),
                        None => app.spec.name.clone(),
                    },
                };
                if let Some(d) = &w.dialog {
                    dialog = Some((d.title.clone(), d.message.clone()));
                    let (l, t) = (390, 300);
                    b.push(
                        &d.message,
                        &d.message,
                        "Text",
                        (&d.title, "Window"),
                        [l + 20, t + 50, l + 480, t + 100],
                        Target::Inert,
                        |s| s.lines = vec![d.message.clone()],
                    );
                    b.push(
                        "OK",
                        "OK",
                        "Button",
                        (&d.title, "Window"),
                        [l + 380, t + 120, l + 480, t + 150],
                        Target::DialogOk,
                        |_| {},
                    );
                } else if let Some(screen) = screen {
                    layout_screen(&mut b, state, wi, screen, &ctx, &title);
                }
            }
            let right = SCREEN_WIDTH as i32;
            b.push(
                "Minimize",
                "Minimize",
                "Button",
                (&title, "TitleBar"),
                [right - 92, 2, right - 48, 30],
                Target::Minimize,
                |_| {},
            );
            b.push(
                "Close",
                "Close",
                "Button",
                (&title, "TitleBar"),
                [right - 46, 2, right - 2, 30],
                Target::CloseWindow,
                |_| {},
            );
        }
    }
    let bar_top = SCREEN_HEIGHT as i32 - TASKBAR_H;
    b.push(
        "Start",
        "Start",
        "Button",
        ("Taskbar", "Pane"),
        [4, bar_top + 4, 84, bar_top + 36],
        Target::ShowDesktop,
        |_| {},
    );
    let mut window_titles = Vec::new();
    for (i, w) in state.windows.iter().enumerate() {
        let wt = window_title(state, i, apps);
        window_titles.push(wt);
        let left = 92 + i as i32 * 150;
        if left + 144 > SCREEN_WIDTH as i32 - 100 {
            continue;
        }
        let active = state.active == Some(i);
        b.push(
            &w.app,
            &w.app,
            "Button",
            ("Taskbar", "Pane"),
            [left, bar_top + 4, left + 144, bar_top + 36],
            Target::Focus(i),
            |s| s.selected = active,
        );
    }
    if let Some(p) = &state.playing {
        let s = format!("Playing {}", vfs::base_name(p));
        status = Some(match status {
            Some(f) => format!("{f} | {s}"),
            None => s,
        });
    }
    Live {
        scene: Scene {
            title,
            app: app_name,
            controls: b.scene,
            status,
            dialog,
            clock: format!(
                "{:02}:{:02}",
                9 + (state.counter / 60) % 12,
                state.counter % 60
            ),
        },
        controls: b.controls,
        window_titles,
    }
}

/// The title of window `wi` (as shown in its title bar).
pub fn window_title(state: &DesktopState, wi: usize, apps: &[LoadedApp]) -> String {
    let Some(w) = state.windows.get(wi) else {
        return String::new();
    };
    let Some(app) = apps.iter().find(|a| a.spec.name == w.app) else {
        return w.app.clone();
    };
    match app
        .spec
        .screens
        .get(&w.screen)
        .and_then(|s| s.title.as_ref())
    {
        Some(t) => fill(t, &context(state, wi)),
        None => match &w.doc {
            Some(d) => format!("{} - {}", d.name(), app.spec.name),
            None => app.spec.name.clone(),
        },
    }
}

/// The items of a List: (display text, key, path).
pub fn list_items(
    state: &DesktopState,
    wi: usize,
    source: &ItemSource,
    ctx: &crate::model::ParameterSet,
) -> Vec<(String, String, Option<String>)> {
    let w = &state.windows[wi];
    match source {
        ItemSource::Static { values } => values
            .iter()
            .map(|v| (v.clone(), v.clone(), None))
            .collect(),
        ItemSource::Dir { path, kinds } => {
            let cwd = w.fields.get("cwd").map(String::as_str).unwrap_or(vfs::HOME);
            let Ok(dir) = vfs::normalize(&fill(path, ctx), cwd) else {
                return Vec::new();
            };
            state
                .vfs
                .list(&dir)
                .unwrap_or_default()
                .into_iter()
                .filter(|n| {
                    n.ends_with('/') || kinds.is_empty() || kinds.contains(&vfs::extension(n))
                })
                .map(|n| {
                    let p = vfs::Vfs::join(&dir, n.trim_end_matches('/'));
                    (n.clone(), n.trim_end_matches('/').to_string(), Some(p))
                })
                .collect()
        }
        ItemSource::Collection { name } => {
            let key = crate::env::spec::collection_spec(name)
                .map(|c| c.key)
                .unwrap_or("title");
            state
                .collections
                .get(name)
                .map(|rs| {
                    rs.iter()
                        .map(|r| {
                            let k = r.get(key).cloned().unwrap_or_default();
                            let shown = match r.get("text").or_else(|| r.get("detail")) {
                                Some(t) if !t.is_empty() => format!("{k}: {t}"),
                                _ => k.clone(),
                            };
                            (shown, k, None)
                        })
                        .collect()
                })
                .unwrap_or_default()
        }
        ItemSource::DocLines => w
            .doc
            .as_ref()
            .map(|d| {
                d.content
                    .lines()
                    .filter(|l| !l.trim().is_empty())
                    .map(|l| (l.to_string(), l.to_string(), None))
                    .collect()
            })
            .unwrap_or_default(),
        ItemSource::Windows => (0..state.windows.len())
            .map(|i| {
                let t = state.windows[i].app.clone();
                (t.clone(), t, None)
            })
            .collect(),
    }
}

fn layout_screen(
    b: &mut Builder,
    state: &DesktopState,
    wi: usize,
    screen: &crate::env::spec::ScreenSpec,
    ctx: &crate::model::ParameterSet,
    title: &str,
) {
    let w = &state.windows[wi];
    let mut x = X0;
    let mut y = TITLE_H + 10;
    let mut row_h = 0;
    let window_parent = (title, "Window");
    for (index, spec) in screen.controls.iter().enumerate() {
        let c = spec.get_ref();
        if let Some(when) = &c.when {
            if !cond(state, wi, when) {
                continue;
            }
        }
        let parent_text;
        let parent = match &c.parent {
            Some(p) => {
                let ty = screen
                    .controls
                    .iter()
                    .find(|o| &o.get_ref().text == p)
                    .map(|o| o.get_ref().control_type.as_str())
                    .unwrap_or("Pane");
                parent_text = p.clone();
                (parent_text.as_str(), ty)
            }
            None => window_parent,
        };
        let ty = c.control_type;
        if ty.is_inline() {
            let width = inline_width(&c.text);
            if x + width > X1 {
                x = X0;
                y += row_h + 8;
                row_h = 0;
            }
            let rect = [x, y, x + width, y + 28];
            if rect[3] > CONTENT_BOTTOM {
                continue;
            }
            x += width + 8;
            row_h = row_h.max(28);
            let (text, checked) = match ty {
                ControlType::ComboBox => {
                    let v = w.fields.get(&c.field_name()).cloned().unwrap_or_default();
                    (if v.is_empty() { c.text.clone() } else { v }, false)
                }
                ControlType::CheckBox => (
                    c.text.clone(),
                    w.fields.get(&c.field_name()).is_some_and(|v| v == "true"),
                ),
                _ => (c.text.clone(), false),
            };
            b.push(
                &c.text,
                &text,
                ty.as_str(),
                parent,
                rect,
                Target::Spec { index },
                |s| {
                    s.checked = checked;
                },
            );
            continue;
        }
        // Block controls start a new row.
        if x > X0 {
            x = X0;
            y += row_h + 8;
            row_h = 0;
        }
        match ty {
            ControlType::Edit => {
                let rect = [X0 + 180, y, (X0 + 180 + 720).min(X1), y + 30];
                if rect[3] > CONTENT_BOTTOM {
                    continue;
                }
                let value = w.fields.get(&c.field_name()).cloned().unwrap_or_default();
                let text = if value.is_empty() {
                    c.text.clone()
                } else {
                    value.clone()
                };
                let focused = w.focus.as_deref() == Some(c.text.as_str());
                b.push(
                    &c.text,
                    &text,
                    "Edit",
                    parent,
                    rect,
                    Target::Spec { index },
                    |s| {
                        s.caption = Some(c.text.clone());
                        s.lines = vec![value];
                        s.selected = focused;
                    },
                );
                y += 38;
            }
            ControlType::Text => {
                let text = fill(c.value.as_deref().unwrap_or(&c.text), ctx);
                let lines: Vec<String> = text.lines().take(8).map(str::to_string).collect();
                let h = (lines.len().max(1) as i32) * LINE_H + 4;
                let rect = [X0, y, X1, y + h];
                if rect[3] > CONTENT_BOTTOM {
                    continue;
                }
                b.push(
                    &c.text,
                    &text,
                    "Text",
                    parent,
                    rect,
                    Target::Spec { index },
                    |s| {
                        s.lines = lines;
                    },
                );
                y += h + 6;
            }
            ControlType::List => {
                let rows = c.rows.unwrap_or(8).max(1);
                let items = c
                    .items
                    .as_ref()
                    .map(|src| list_items(state, wi, src, ctx))
                    .unwrap_or_default();
                let first = w
                    .scroll
                    .get(&c.text)
                    .copied()
                    .unwrap_or(0)
                    .min(items.len().saturating_sub(1));
                let shown = rows.min(items.len().saturating_sub(first));
                let h = (rows as i32) * ROW_H + 4;
                let rect = [X0, y, X1, y + h];
                if rect[3] > CONTENT_BOTTOM {
                    continue;
                }
                let total = items.len();
                b.push(
                    &c.text,
                    &c.text,
                    "List",
                    parent,
                    rect,
                    Target::Spec { index },
                    |s| {
                        s.scroll = Some((first, total, rows));
                    },
                );
                let lp = (c.text.as_str(), "List");
                for (k, (shown_text, key, path)) in
                    items.into_iter().skip(first).take(shown).enumerate()
                {
                    let top = y + 2 + k as i32 * ROW_H;
                    let sel = w.selected.as_deref() == Some(key.as_str());
                    b.push(
                        &key,
                        &shown_text,
                        "ListItem",
                        lp,
                        [X0 + 2, top, X1 - 16, top + ROW_H - 2],
                        Target::Item {
                            list: index,
                            key: key.clone(),
                            path,
                        },
                        |s| {
                            s.selected = sel;
                        },
                    );
                }
                y += h + 8;
            }
            ControlType::Document => {
                let bottom = CONTENT_BOTTOM;
                if bottom - y < 60 {
                    continue;
                }
                let (text, mut lines) = match &w.doc {
                    Some(d) => {
                        let mut lines: Vec<String> =
                            d.content.lines().map(str::to_string).collect();
                        for (k, v) in &d.props {
                            lines.push(format!("[{k}: {v}]"));
                        }
                        (d.content.clone(), lines)
                    }
                    None => (String::new(), vec!["(no document open)".to_string()]),
                };
                let first = w
                    .scroll
                    .get(&c.text)
                    .copied()
                    .unwrap_or(0)
                    .min(lines.len().saturating_sub(1));
                let visible = ((bottom - y - 8) / LINE_H).max(1) as usize;
                let total = lines.len();
                lines = lines.into_iter().skip(first).take(visible).collect();
                let text = if text.is_empty() {
                    c.text.clone()
                } else {
                    text
                };
                b.push(
                    &c.text,
                    &text,
                    "Document",
                    parent,
                    [X0, y, X1, bottom],
                    Target::Spec { index },
                    |s| {
                        s.lines = lines;
                        s.scroll = Some((first, total, visible));
                    },
                );
                y = bottom + 4;
            }
            _ => {}
        }
    }
}
